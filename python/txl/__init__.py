"""txl: an MLIR compiler for GPU attention kernels (Hopper sm_90a).

Importing ``txl`` is cheap and imports neither torch nor the CUDA driver; see ``txl.runtime`` for loading and
launching compiled kernels.
"""

__version__ = "0.1.0"

# Compile, launch and autotune (no torch, no driver at import: those load on first use).
from .jit import JITFunction, jit  # noqa: E402,F401
from .compiler.compiler import CompiledKernel, compile  # noqa: E402,F401,A004
from .autotune import Config, autotune, cdiv, heuristics, next_power_of_2  # noqa: E402,F401
from .jit import TensorDescriptor  # noqa: E402,F401  (logical tile; txl.runtime.TensorDescriptor is encoded)

# The TXL builtins at the top level (txl.smem_alloc, txl.is_warpgroup, ...), as TXL kernels spell them, and
# `txl.constexpr` for annotations. txl.language imports no torch/CUDA either.
from . import language  # noqa: E402,F401
from .language import constexpr  # noqa: E402,F401
from .language import TXL_BUILTINS as _TXL_BUILTINS  # noqa: E402

globals().update({_n: getattr(language, _n) for _n in _TXL_BUILTINS})


def __getattr__(name):
    # txl.ops (torch operators) loads on first use, so that `import txl` stays cheap.
    if name in ("ops", "testing"):
        import importlib

        return importlib.import_module("." + name, __name__)
    raise AttributeError("module 'txl' has no attribute %r" % (name,))
