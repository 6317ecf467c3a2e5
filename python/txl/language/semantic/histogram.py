"""``tl.histogram(input, num_bins, mask=None)``: Triton 3.6's histogram of a 1-D integer tile (``x.histogram(n)`` as a
method): ``result[b]`` counts the elements equal to ``b`` for ``b`` in ``[0, num_bins)`` (where ``mask`` is set), an
int32 tile of ``num_bins``; other values are not counted. The frontend emits one ``txl.histogram``; the compiler
counts with shared-memory atomics in the op's scratch (``--txl-allocate-scratch``)."""

from ...ir import dialects as ods
from ...errors import SemanticError
from ..core import _unwrap, block_type, builtin, int32, tensor
from .broadcast import broadcast_to
from .context import _b
from .values import to_tensor, _static_int


def histogram_tile(x, num_bins, mask=None):
    """The ``txl.histogram`` of ``x`` with ``num_bins`` bins."""
    x = to_tensor(x)
    num_bins = _static_int(num_bins, "tl.histogram num_bins")
    if not isinstance(x.type, block_type) or len(x.type.shape) != 1:
        raise SemanticError("tl.histogram only supports 1D input, got %s" % x.type,
                            "flatten it first: tl.histogram(x.reshape(x.numel), num_bins)")
    if not x.type.element_ty.is_int() or x.type.element_ty.is_bool():
        raise SemanticError("tl.histogram only supports integer input, got %s" % x.type.element_ty.name,
                            "convert the values to bin numbers first, e.g. (x * scale).to(tl.int32)")
    if num_bins < 1 or num_bins & (num_bins - 1):
        raise SemanticError("tl.histogram: num_bins must be a power of two (a tile size), got %d" % num_bins)
    m = None
    if _unwrap(mask) is not None:
        m = broadcast_to(to_tensor(mask), list(x.type.shape))
        if not m.type.element_ty.is_bool():
            raise SemanticError("tl.histogram: mask must have boolean scalar type, got %s" % m.type.element_ty.name)
        m = m.handle
    ty = block_type(int32, [num_bins])
    op = _b().insert(ods.txl.histogram(x.handle, m, result=ty))
    return tensor(op.result, ty)


@builtin
def histogram(input, num_bins, mask=None):
    """Triton's ``tl.histogram``: counts of the values ``0 .. num_bins - 1`` in the 1-D integer tile ``input``."""
    return histogram_tile(input, num_bins, mask)
