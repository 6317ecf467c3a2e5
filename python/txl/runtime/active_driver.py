"""Triton's ``triton.runtime.driver.active`` for txl: the device, stream, target and properties queries host code
makes (Triton's tutorials read them at their top: ``DEVICE = triton.runtime.driver.active.get_active_torch_device()``).

``txl.runtime.driver.active`` is a ``CudaDriver`` of this module; ``txl.runtime.driver.set_active(d)`` /
``reset_active()`` swap it, as Triton's ``driver.set_active`` does (a test or a machine without a GPU can install a
stand-in). Nothing here runs at import: creating the object touches neither torch nor the GPU. The queries use
txl's ctypes wrapper of libcuda (``txl.runtime.driver.CudaDriver``), so they work without torch; the current device
and stream are torch's when torch is loaded, as for txl's own launches. Without an NVIDIA driver or a GPU a query
raises ``TxlDriverNotFoundError`` / ``TxlNoDeviceError`` saying so; ``get_active_torch_device()`` needs torch.
"""

import sys
import threading

from . import driver as _drv
from . import dtypes as _dt
from .driver import GPUTarget  # noqa: F401 (defined in driver.py, which this module builds on; importable here too)
from .errors import TxlRuntimeError


def _ordinal(device, driver):
    """A CUDA device ordinal from None (the current device), an int, a torch.device or 'cuda:N'."""
    if device is None:
        return driver.get_current_device()
    if isinstance(device, str):
        kind, _, idx = device.partition(":")
        if kind != "cuda":
            raise ValueError("device %r is not a CUDA device" % device)
        return int(idx) if idx else driver.get_current_device()
    if not _dt.is_int(device):
        kind = getattr(device, "type", "cuda")
        if kind != "cuda":
            raise ValueError("device %r is not a CUDA device" % (device,))
        idx = getattr(device, "index", None)
        return driver.get_current_device() if idx is None else int(idx)
    return int(device)


class CudaUtils:
    """``driver.active.utils``: device properties (Triton's ``get_device_properties``)."""

    def __init__(self, driver):
        self._driver = driver

    def get_device_properties(self, device=None):
        """Triton's dict of device ``device``'s properties (cuDeviceGetAttribute): ``max_shared_mem`` (bytes a block
        can opt in to), ``max_num_regs`` (registers per block), ``multiprocessor_count``, ``warpSize``,
        ``sm_clock_rate`` and ``mem_clock_rate`` (kHz), ``mem_bus_width`` (bits)."""
        ordinal = _ordinal(device, self._driver)
        cache = self._driver._properties
        hit = cache.get(ordinal)
        if hit is None:
            cu = _drv.get_driver()
            attr = lambda a: cu.device_attribute(ordinal, a)  # noqa: E731
            hit = {"max_shared_mem": attr(_drv.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
                   "max_num_regs": attr(_drv.CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK),
                   "multiprocessor_count": attr(_drv.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
                   "warpSize": attr(_drv.CU_DEVICE_ATTRIBUTE_WARP_SIZE),
                   "sm_clock_rate": attr(_drv.CU_DEVICE_ATTRIBUTE_CLOCK_RATE),
                   "mem_clock_rate": attr(_drv.CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE),
                   "mem_bus_width": attr(_drv.CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)}
            cache[ordinal] = hit
        return dict(hit)


class CudaDriver:
    """Triton's active CUDA driver object (``triton.backends.nvidia.driver.CudaDriver``), host queries only:
    ``get_current_device()``, ``set_current_device(i)``, ``get_current_stream(device=None)``,
    ``get_device_capability(device=None)``, ``get_current_target()``, ``get_active_torch_device()``,
    ``get_device_interface()``, ``get_benchmarker()``, ``get_empty_cache_for_benchmark()`` / ``clear_cache(c)`` and
    ``utils.get_device_properties(device)``."""

    backend = "cuda"

    def __init__(self):
        self.utils = CudaUtils(self)
        self._properties = {}  # ordinal -> properties dict
        self._capability = {}  # ordinal -> (major, minor)
        self._local = threading.local()  # set_current_device without torch

    @staticmethod
    def is_active():
        """Whether an NVIDIA driver and a GPU are there (txl's libcuda wrapper loads)."""
        try:
            _drv.get_driver()
            return True
        except TxlRuntimeError:
            return False

    # -- device and stream -------------------------------------------------------------------------------------
    def get_current_device(self):
        """The current CUDA device: torch's when torch is loaded (what txl's launches use), else the one
        ``set_current_device`` chose on this thread, else 0."""
        if sys.modules.get("torch") is not None:
            return _dt._current_torch_device()
        return getattr(self._local, "device", 0)

    def set_current_device(self, device):
        ordinal = int(device)
        torch = sys.modules.get("torch")
        if torch is not None:
            torch.cuda.set_device(ordinal)
        else:
            _drv.get_driver().set_device(ordinal)  # checks the ordinal
        self._local.device = ordinal

    def get_current_stream(self, device=None):
        """The CUstream handle (an int) launches on ``device`` go to: torch's current stream when torch is loaded,
        else the legacy default stream (0)."""
        return _drv.current_stream(_ordinal(device, self))

    def get_device_capability(self, device=None):
        """(major, minor) compute capability of ``device`` (default: the current one): (9, 0) on an H100."""
        ordinal = _ordinal(device, self)
        cc = self._capability.get(ordinal)
        if cc is None:
            cc = self._capability[ordinal] = tuple(_drv.get_driver().compute_capability(ordinal))
        return cc

    def get_current_target(self):
        """GPUTarget("cuda", 10 * major + minor, 32) of the current device: arch 90 on an H100."""
        major, minor = self.get_device_capability()
        return GPUTarget("cuda", major * 10 + minor, 32)

    # -- torch -----------------------------------------------------------------------------------------------
    @staticmethod
    def _torch(what):
        try:
            import torch
        except ImportError:
            raise RuntimeError("txl.runtime.driver.active.%s needs torch, which is not installed (txl's own "
                               "queries, get_current_target() and utils.get_device_properties(), do not)"
                               % what) from None
        return torch

    def get_active_torch_device(self):
        """torch.device("cuda", current device)."""
        return self._torch("get_active_torch_device()").device("cuda", self.get_current_device())

    def get_device_interface(self):
        return self._torch("get_device_interface()").cuda

    def get_benchmarker(self):
        from ..testing import do_bench

        return do_bench

    def get_empty_cache_for_benchmark(self):
        """256 MB that ``clear_cache`` zeroes between timed runs (so that L2 holds none of the inputs)."""
        torch = self._torch("get_empty_cache_for_benchmark()")
        return torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int, device="cuda")

    def clear_cache(self, cache):
        cache.zero_()

    def __repr__(self):
        return "<txl CudaDriver (txl.runtime.driver.active)>"


# txl.runtime.driver.active / default (Triton's driver.active): this module's object, put into driver.py's names
# here rather than created there, so that driver.py, which this module builds on, imports nothing of it.
_drv.default = _drv.active = CudaDriver()  # creating it touches neither torch nor the GPU
