"""``tl.math`` (``txl.language.math``): Triton 3.6's ``triton.language.math`` functions (see ``triton_api.MATH``;
``erf`` is CUDA libdevice's)."""

from . import triton_api as _api
from .standard import (abs, ceil, cos, div_rn, erf, exp, exp2, fdiv, floor, fma, log, log2, rsqrt, sin,  # noqa: F401
                       sqrt, sqrt_rn, umulhi)

_api.install_refusals(globals())


def __getattr__(name):
    raise _api.missing_attribute(__name__, name)
