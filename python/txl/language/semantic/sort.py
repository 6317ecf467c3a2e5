"""Sorting: ``tl.sort`` / ``tl.flip`` (one txl.sort / txl.flip along a dimension) and ``tl.topk`` built on them."""

from ...ir import dialects as ods
from ...errors import SemanticError
from .. import core
from ..core import block_type, tensor
from .context import _b
from .values import to_tensor, _static_int
from .broadcast import _shape
from .arith import cast
from .reductions import reduce_named, _reduction_axis
from .shapes import reshape


def sort_or_flip(kind, x, dim=None, descending=False):
    """tl.sort / tl.flip: one txl.sort (a bitonic network) or txl.flip along ``dim`` (the last one when None; txl
    takes any dimension, Triton only the last). Booleans travel as int8; unsigned integers sort as the next wider
    signed type (txl.sort compares signed)."""
    what = "tl." + kind
    t = to_tensor(x)
    if not isinstance(t.type, block_type):
        raise SemanticError("%s works on a tile, got the scalar %s" % (what, t.type))
    shape = _shape(t)
    axis = _reduction_axis(len(shape) - 1 if dim is None else dim, len(shape))
    if shape[axis] & (shape[axis] - 1):
        raise SemanticError("%s: dimension %d has %d elements; a power of two is needed" % (what, axis, shape[axis]))
    ety = t.dtype
    work = ety
    if ety.is_bool():
        if kind == "sort":
            raise SemanticError("tl.sort of booleans is not supported", "sort x.to(tl.int8) instead")
        work = core.int8
    elif kind == "sort" and ety.is_int_unsigned():
        if ety.primitive_bitwidth >= 64:
            raise SemanticError("tl.sort of uint64 is not supported (txl compares signed)",
                                "sort x.to(tl.int64) when the values fit")
        work = core.int64 if ety.primitive_bitwidth == 32 else core.int32
    elif kind == "sort" and not (ety.is_int() or ety.is_floating()):
        raise SemanticError("tl.sort sorts integers and floats, got %s" % ety.name)
    t = cast(t, work)
    attrs = {"descending": True} if kind == "sort" and descending else {}
    op = _b().insert(getattr(ods.txl, kind)(t.handle, result=t.type, axis=axis, **attrs))
    return cast(tensor(op.result, t.type), ety)


def topk(x, k, dim=None):
    """tl.topk: the k largest elements along ``dim`` (the last one when None), in descending order. The dimension
    is sorted descending (txl.sort), split into (n / k, k) and reduced with max over the first part: column c of
    the split holds sorted elements c, k + c, 2k + c, ..., of which the first is the largest."""
    t = to_tensor(x)
    if not isinstance(t.type, block_type):
        raise SemanticError("tl.topk works on a tile, got the scalar %s" % t.type)
    shape = _shape(t)
    axis = _reduction_axis(len(shape) - 1 if dim is None else dim, len(shape))
    k = _static_int(k, "tl.topk k")
    n = shape[axis]
    if k < 1 or k > n or k & (k - 1):
        raise SemanticError("tl.topk: k must be a power of two from 1 to the dimension's %d elements, got %d" % (n, k))
    s = sort_or_flip("sort", t, axis, descending=True)
    if k == n:
        return s
    split = reshape(s, shape[:axis] + [n // k, k] + shape[axis + 1:])
    return reduce_named("max", split, axis)
