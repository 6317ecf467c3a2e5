"""``tl.gather(src, index, axis)``: Triton 3.6's gather of a register tile (``x.gather(index, axis)`` as a method).

``result[i][j] = src[index[i][j]][j]`` for ``axis = 0`` (any axis alike): ``index`` has ``src``'s rank and its size
in every other dimension, the result ``index``'s shape and ``src``'s dtype (Triton's rules, checked here with the
fix and again by the op's verifier). The frontend emits one ``txl.gather``; the compiler reads the source through
shared memory (``--txl-allocate-scratch`` gives the op its scratch). Out-of-range indices, undefined in Triton, read
the element at the index modulo the axis size.
"""

from ...ir import dialects as ods
from ...errors import SemanticError
from ..core import block_type, builtin, tensor
from .context import _b
from .values import to_tensor, _static_int


def gather_tile(src, index, axis):
    """The ``txl.gather`` of ``src`` at ``index`` along ``axis``."""
    src, index = to_tensor(src), to_tensor(index)
    axis = _static_int(axis, "tl.gather axis")
    if not isinstance(src.type, block_type):
        raise SemanticError("tl.gather: src must be a tensor, got a scalar of %s" % src.type)
    if not isinstance(index.type, block_type):
        raise SemanticError("tl.gather: index must be a tensor of indices, got a scalar of %s" % index.type,
                            "index a scalar position with a mask and tl.sum, or gather with a one-element tile")
    if not index.type.element_ty.is_int() or index.type.element_ty.is_bool():
        raise SemanticError("tl.gather: index must be an integer tensor, got %s" % index.type.element_ty.name,
                            "convert it with index.to(tl.int32)")
    shape, ishape = list(src.type.shape), list(index.type.shape)
    rank = len(shape)
    if len(ishape) != rank:
        raise SemanticError("tl.gather: source and index tensors must have the same rank, got %s and %s"
                            % (shape, ishape), "reshape or expand_dims the index to rank %d" % rank)
    if not -rank <= axis < rank:
        raise SemanticError("tl.gather: axis %d must be < source rank (%d)" % (axis, rank))
    if axis < 0:
        axis += rank
    for d in range(rank):
        if d != axis and ishape[d] != shape[d]:
            raise SemanticError("tl.gather: index dimension %d (%d) must match the source's (%d): only the gather "
                                "axis %d may differ (source %s, index %s)" % (d, ishape[d], shape[d], axis, shape,
                                                                              ishape),
                                "broadcast the index with tl.broadcast_to(index, %s)"
                                % [ishape[k] if k == axis else shape[k] for k in range(rank)])
    ty = block_type(src.type.element_ty, ishape)
    op = _b().insert(ods.txl.gather(src.handle, index.handle, result=ty, axis=axis))
    return tensor(op.result, ty)


@builtin
def gather(src, index, axis):
    """Triton's ``tl.gather``: ``src`` gathered along ``axis`` at the positions of ``index``."""
    return gather_tile(src, index, axis)
