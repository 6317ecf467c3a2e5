"""Shape operations on register tiles: indexing with ``None`` / ``:``, transposes (``tl.trans`` / ``tl.permute``),
``tl.reshape``, ``tl.join`` / ``tl.split`` and what is built from them (``tl.cat``, ``tl.interleave``). They rename
coordinates only: no data moves between threads."""

import math

from ...ir import dialects as ods
from ...errors import SemanticError
from ..core import block_type, dtype, mbar_type, smem_type, tensor, tmem_type, _unwrap
from .context import unsupported, _b
from .values import result_dtype, to_tensor, _static_int
from .broadcast import binary_broadcast, expand_dims, splat, _shape
from .arith import cast
from .buffers import as_view, smem_trans
from .reductions import unsplat


def subscript(t, slices):
    """``x[None, :]``, ``x[:, None]``: insert size-1 dimensions. Other indexing of a register tile has no op."""
    if not isinstance(slices, tuple):
        slices = (slices,)
    t = to_tensor(t)
    if isinstance(t.type, dtype) and all(_unwrap(s) is None for s in slices):
        return splat(t, [1] * len(slices))  # s[None] of a scalar (Triton's 0-d tensor): a 1-element tile
    if not isinstance(t.type, block_type):
        unsupported("indexing %s" % t.type,
                    "use txl.get_buffer(buf, i) for a stage of an allocation and txl.smem_index(buf, i) for a "
                    "sub-tile of a shared-memory buffer" if isinstance(t.type, (smem_type, mbar_type)) else None)
    ret, dim, consumed = t, 0, 0  # dim: position in the result; consumed: dimensions of t covered by `:`
    for s in slices:
        s = _unwrap(s)
        if s is None:
            ret = expand_dims(ret, dim)
            dim += 1
        elif isinstance(s, slice) and s.start is None and s.stop is None and s.step is None:
            dim += 1
            consumed += 1
        else:
            unsupported("indexing a register tile with %r (only `None` and `:` are allowed, as in x[:, None])"
                        % (s,), "select elements with tl.where, or keep the data in shared memory and use "
                                "txl.smem_slice / txl.smem_index")
    if consumed != len(_shape(t)):
        raise SemanticError("x[...] must have one `:` per dimension of the %d-D tensor (got %d)"
                            % (len(_shape(t)), consumed))
    return ret


def trans(t, *dims):
    """``x.T`` / ``tl.trans(x)``: a transposed view of a shared-memory buffer (txl.smem_trans)."""
    t = to_tensor(t)
    dims = [_unwrap(d) for d in dims]
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = [_unwrap(d) for d in dims[0]]
    if isinstance(t.type, smem_type) and not isinstance(t.type, tmem_type):
        t = as_view(t, "smem_trans")
        rank = len(t.type.shape)
        order = dims or list(reversed(range(rank)))
        return smem_trans(t, order)
    if isinstance(t.type, block_type):
        rank = len(t.type.shape)
        order = [_static_int(d, "tl.trans dimension") for d in dims] or list(reversed(range(rank)))
        if sorted(order) != list(range(rank)):
            raise SemanticError("tl.trans/permute of a %d-D tile needs a permutation of %s, got %s"
                                % (rank, list(range(rank)), order))
        if order == list(range(rank)):
            return t
        shape = [t.type.shape[d] for d in order]
        rt = block_type(t.dtype, shape)
        op = _b().insert(ods.txl.trans(t.handle, result=rt, order=order))
        out = tensor(op.result, rt)
        out.from_desc = getattr(t, "from_desc", False)
        return out
    raise SemanticError("cannot transpose %s" % t.type)


def reshape(t, shape):
    """tl.reshape / tensor.reshape of a register tile: the same elements in row-major order (txl.reshape moves
    no data: the result's layout is the source's with its coordinates renamed)."""
    t = to_tensor(t)
    shape = [_static_int(d, "tl.reshape shape") for d in shape]
    if not shape:  # to Triton's 0-d tensor: a scalar
        return unsplat(t, "tl.reshape to ()")
    if isinstance(t.type, dtype) and math.prod(shape) == 1:
        return splat(t, shape)
    if not isinstance(t.type, block_type):
        raise SemanticError("tl.reshape needs a register tile, got %s" % t.type)
    if any(d <= 0 for d in shape) or math.prod(shape) != math.prod(t.type.shape):
        raise SemanticError("cannot reshape a %s tile (%d elements) to %s"
                            % (list(t.type.shape), math.prod(t.type.shape), shape))
    if list(shape) == list(t.type.shape):
        return t
    rt = block_type(t.dtype, shape)
    op = _b().insert(ods.txl.reshape(t.handle, result=rt))
    return tensor(op.result, rt)


def join(a, b):
    """tl.join: a new last dimension of size 2 holding a and b (broadcast and promoted to one type)."""
    a, b = binary_broadcast(to_tensor(a), to_tensor(b), "tl.join")
    ety = result_dtype(a.dtype, b.dtype)
    a, b = cast(a, ety), cast(b, ety)
    if not isinstance(a.type, block_type):
        a, b = splat(a, [1]), splat(b, [1])
    rt = block_type(ety, list(a.type.shape) + [2])
    op = _b().insert(ods.txl.join(a.handle, b.handle, result=rt))
    return tensor(op.result, rt)


def split(t):
    """tl.split: the two halves of a last dimension of size 2."""
    t = to_tensor(t)
    if not isinstance(t.type, block_type) or t.type.shape[-1] != 2:
        raise SemanticError("tl.split needs a tile whose last dimension has size 2, got %s" % t.type,
                            "reshape first, e.g. `tl.split(tl.reshape(x, [M, N // 2, 2]))`")
    if len(t.type.shape) == 1:
        t = reshape(t, [1, 2])
    rt = block_type(t.dtype, list(t.type.shape[:-1]))
    op = _b().insert(ods.txl.split(t.handle, outLHS=rt, outRHS=rt))
    return tuple(tensor(r, rt) for r in op.results)


def cat(a, b):
    """tl.cat: a then b along the first dimension. join puts the pair dimension last; moving it to the front and
    merging it with the first dimension lists all of a, then all of b. All three rename coordinates only."""
    j = join(a, b)
    rank = len(j.type.shape)
    front = trans(j, [rank - 1] + list(range(rank - 1)))
    shape = list(j.type.shape[:-1])
    return reshape(front, [2 * shape[0]] + shape[1:])


def interleave(a, b):
    """tl.interleave: a and b alternating along their last dimension (join, then merge the pairs)."""
    j = join(a, b)
    shape = list(j.type.shape[:-2]) + [j.type.shape[-2] * 2]
    return reshape(j, shape)
