"""txl: an MLIR compiler for GPU attention kernels (Hopper sm_90a).

Importing ``txl`` is cheap and imports neither torch nor the CUDA driver; see ``txl.runtime`` for loading and
launching compiled kernels.
"""

# txl's own version (the package's, pyproject.toml reads it). ``txl.__version__`` is the Triton version whose
# semantics txl implements (below): under `import txl as triton` libraries read triton.__version__ to pick code paths
# (flash-linear-attention: `version.parse(triton.__version__) >= version.parse("3.4.0")`), and those must be the
# paths of the Triton txl behaves like, not of a Triton "0.1". docs/triton-host-api.md.
txl_version = "0.1.0"

# Compile, launch and autotune (no torch, no driver at import: those load on first use).
from .jit import JITFunction, jit  # noqa: E402,F401
from .compiler.compiler import CompiledKernel, compile  # noqa: E402,F401,A004
from .autotune import Config, autotune, heuristics, next_power_of_2  # noqa: E402,F401
from .autotune import cdiv as _host_cdiv  # noqa: E402
from .jit import TensorDescriptor  # noqa: E402,F401  (logical tile; txl.runtime.TensorDescriptor is encoded)

# Triton's host API: triton.runtime.driver.active (txl.runtime.driver.active), triton.set_allocator,
# triton.tools.tensor_descriptor.TensorDescriptor (the class above), triton.OutOfResources. None touches the GPU here.
from . import runtime  # noqa: E402,F401
from . import tools  # noqa: E402,F401
from .runtime._allocation import set_allocator  # noqa: E402,F401
from .runtime.errors import OutOfResources  # noqa: E402,F401

# The TXL builtins at the top level (txl.smem_alloc, txl.is_warpgroup, ...), as TXL kernels spell them, and
# `txl.constexpr` for annotations. txl.language imports no torch/CUDA either.
from . import language  # noqa: E402,F401
from .language import constexpr  # noqa: E402,F401
from .language.triton_api import TRITON_VERSION as __version__  # noqa: E402  (defined once, there)
from .language import TXL_BUILTINS as _TXL_BUILTINS  # noqa: E402

globals().update({_n: getattr(language, _n) for _n in _TXL_BUILTINS})

# As TXL's `from .language import *`: every triton.language name txl.language has (txl.zeros, txl.arange, txl.dot,
# txl.float16, txl.tensor_descriptor, txl.math, ... and the refused ones, which stay located errors in kernels), so
# TXL kernels that spell Triton's functions through `txl.` compile. Names txl defines itself (jit, compile, Config,
# autotune, TensorDescriptor, cdiv, ...) keep txl's meaning; `txl.cdiv` works in kernels too (below).
_NOT_EXPORTED = {"EncodingCell", "TXL_BUILTINS", "builtin", "core", "semantic", "standard", "triton_api",
                 "txl_builtins", "layouts", "random"}
for _n in dir(language):
    if not _n.startswith("_") and _n not in _NOT_EXPORTED and _n not in globals():
        globals()[_n] = getattr(language, _n)
del _n


def cdiv(x, y):
    """ceil(x / y): on the host (triton.cdiv) and, as TXL's `txl.cdiv` (triton.language's), inside kernels."""
    from .language import semantic as _sem

    if _sem.current() is not None:
        return language.cdiv(x, y)
    return _host_cdiv(x, y)


cdiv.__txl_builtin__ = True  # the frontend calls it with the kernel's values (tl.cdiv when they are run-time)
Cdiv = cdiv  # TXL's `from triton import cdiv as Cdiv`


def __getattr__(name):
    # txl.ops (torch operators) loads on first use, so that `import txl` stays cheap.
    if name in ("ops", "testing"):
        import importlib

        return importlib.import_module("." + name, __name__)
    if name == "profiler":  # TXL's patched proton (txl.profiler, txl.profiler.language): no-op scopes
        import importlib

        return importlib.import_module(".profiler", __name__)
    # A triton.language name txl does not have: txl.language says whether Triton has it (triton_api.py).
    return language.__getattr__(name)
