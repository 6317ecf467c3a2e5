"""``tl.extra`` (``txl.language.extra``): ``tl.extra.cuda.libdevice`` and, as in Triton, ``tl.extra.libdevice``
(the same module: txl targets CUDA only)."""

from . import cuda  # noqa: F401
from .cuda import libdevice  # noqa: F401

import sys as _sys  # noqa: E402

# `from txl.language.extra.libdevice import tanh` (a module path in Triton) names the same module.
_sys.modules[__name__ + ".libdevice"] = libdevice
