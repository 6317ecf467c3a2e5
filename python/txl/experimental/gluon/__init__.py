"""``txl.experimental.gluon``: Triton's Gluon language (``triton.experimental.gluon``) compiled by txl.

``from txl.experimental import gluon`` / ``from txl.experimental.gluon import language as gl`` are the import swap of
``triton.experimental.gluon``: a Gluon kernel compiles through txl's code generator and passes, and its tiles carry
the layouts the kernel names (docs/gluon.md)."""

from . import language, nvidia  # noqa: F401
from ._runtime import GluonJITFunction, jit  # noqa: F401
from .language._core import constexpr_function  # noqa: F401

__all__ = ["jit", "constexpr_function", "language", "nvidia", "GluonJITFunction", "must_use_result"]


def must_use_result(x, s=True):
    """Gluon's decorator for builtins whose result must be used: a no-op marker."""
    return x
