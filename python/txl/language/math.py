"""``tl.math`` (``txl.language.math``): Triton 3.6's ``triton.language.math`` functions that txl lowers; the
others (``erf``) are refused where the kernel names them, with what to use instead (see ``triton_api.MATH``)."""

from . import triton_api as _api
from .standard import (abs, ceil, cos, div_rn, exp, exp2, fdiv, floor, fma, log, log2, rsqrt, sin, sqrt,  # noqa: F401
                       sqrt_rn, umulhi)

_api.install_refusals(globals())


def __getattr__(name):
    raise _api.missing_attribute(__name__, name)
