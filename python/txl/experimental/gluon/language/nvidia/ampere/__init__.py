"""``gluon.language.nvidia.ampere``: ``async_copy`` (cp.async) and ``mma_v2`` (mma.sync)."""

from ......errors import SemanticError
from ......language import semantic as S
from ......language.core import builtin, _unwrap
from . import async_copy  # noqa: F401

__all__ = ["async_copy", "mma_v2"]


@builtin
def mma_v2(a, b, acc, input_precision=None):
    """acc + a @ b on mma.sync (txl.dot; txl runs a dot on mma.sync where its M is not whole 64-row wgmma steps
    or the kernel has 1 or 2 warps, with the register operand layouts the kernel's DotOperandLayouts name)."""
    if _unwrap(input_precision) not in (None, "tf32", "ieee"):
        raise SemanticError("mma_v2(input_precision=%r) is not supported" % (_unwrap(input_precision),))
    return S.dot(a, b, acc)
