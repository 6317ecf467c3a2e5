"""txl host runtime: load compiled kernels (PTX/cubin + JSON sidecar), build TMA descriptors, launch.

Only the Python standard library (ctypes on libcuda.so.1) is required; torch is used when present (its primary
context and current stream are shared) but never imported by this package.

    from txl.runtime import load_kernel, TensorDescriptor
    k = load_kernel("gemm.json")
    k[(grid_m, grid_n)](a, c, M, 0.5)            # a: bf16 CUDA tensor encoded with the param's box/swizzle

Triton's host names: ``txl.runtime.driver.active`` (device, stream, target, device properties; active_driver.py)
and ``txl.set_allocator`` (the global scratch of kernels that build TMA descriptors on the device; _allocation.py).
"""

from .errors import (  # noqa: F401
    CudaError,
    OutOfResources,
    TxlDriverNotFoundError,
    TxlLaunchError,
    TxlModuleLoadError,
    TxlNoDeviceError,
    TxlRuntimeError,
    TxlSidecarError,
)
from .driver import CudaDriver, TensorDescriptor, TensorMapPlan, get_driver, plan_tensor_map  # noqa: F401
from .driver import GPUTarget  # noqa: F401
from . import active_driver  # noqa: F401,E402 (fills txl.runtime.driver.active / default)
from ._allocation import set_allocator  # noqa: F401
from .launcher import Kernel, KernelMeta, Param, load_kernel, normalize_grid, parse_sidecar  # noqa: F401

# Triton's triton.runtime also has the autotuner's names (txl.runtime.autotuner). They load on first use: importing
# them here would import txl.autotune while txl's own __init__ is still importing this package.
_AUTOTUNER_NAMES = ("Autotuner", "Config", "Heuristics", "autotune", "heuristics")


def __getattr__(name):
    if name in _AUTOTUNER_NAMES:
        from . import autotuner

        return getattr(autotuner, name)
    raise AttributeError("module 'txl.runtime' has no attribute %r" % name)


__all__ = [
    "CudaDriver", "CudaError", "GPUTarget", "Kernel", "KernelMeta", "OutOfResources", "Param", "TensorDescriptor",
    "TensorMapPlan", "set_allocator",
    "TxlDriverNotFoundError", "TxlLaunchError", "TxlModuleLoadError", "TxlNoDeviceError", "TxlRuntimeError",
    "TxlSidecarError", "get_driver", "load_kernel", "normalize_grid", "parse_sidecar", "plan_tensor_map",
]
