"""Broadcasting: splat, expand_dims, broadcast_to and the NumPy-style shape rule every elementwise operation applies
(shapes are aligned from the right)."""

from ...ir import dialects as ods
from ...errors import SemanticError, ShapeMismatchError
from ..core import block_type, dtype, tensor
from .context import _b
from .values import const_value, dense, to_tensor, _static_int


def _shape(t):
    return list(t.type.shape) if isinstance(t.type, block_type) else []


def splat(t, shape):
    """A tile of ``shape`` filled with the scalar ``t``; for ``shape == []`` the scalar itself (txl has no 0-d tiles:
    a 0-d tensor of Triton is a scalar here)."""
    if not shape:
        return t
    ty = block_type(t.type, shape)
    v = const_value(t)
    if v is not None and not t.type.is_ptr():
        return dense(v, ty)
    op = _b().insert(ods.txl.splat(t.handle, result=ty))
    return tensor(op.result, ty)


def expand_dims(t, axis):
    t = to_tensor(t)
    axis = _static_int(axis, "expand_dims axis")
    if isinstance(t.type, dtype) and axis in (0, -1):
        return splat(t, [1])  # a scalar is Triton's 0-d tensor: expand_dims gives a 1-element tile
    if not isinstance(t.type, block_type):
        raise SemanticError("expand_dims of %s: axis %d is out of range (a scalar has no dimensions: 0 or -1)"
                            % (t.type, axis) if isinstance(t.type, dtype) else "cannot expand_dims %s" % t.type)
    shape = _shape(t)
    if axis < 0:
        axis += len(shape) + 1
    if not 0 <= axis <= len(shape):
        raise SemanticError("expand_dims axis %d is out of range for a %d-D tensor" % (axis, len(shape)))
    new = shape[:axis] + [1] + shape[axis:]
    ty = block_type(t.type.element_ty, new)
    cv = const_value(t)
    if cv is not None:
        return dense(cv, ty)
    op = _b().insert(ods.txl.expand_dims(t.handle, result=ty, axis=axis))
    return tensor(op.result, ty)


def broadcast_to(t, shape):
    t = to_tensor(t)
    shape = [int(s) for s in shape]
    if not isinstance(t.type, block_type):
        return splat(t, shape)
    src = _shape(t)
    if src == shape:
        return t
    while len(src) < len(shape):
        t = expand_dims(t, 0)
        src = _shape(t)
    if len(src) != len(shape) or any(a != b and a != 1 for a, b in zip(src, shape)):
        raise SemanticError("cannot broadcast a tensor of shape %s to %s" % (src, shape))
    ty = block_type(t.type.element_ty, shape)
    cv = const_value(t)
    if cv is not None:
        return dense(cv, ty)
    op = _b().insert(ods.txl.broadcast(t.handle, result=ty))
    return tensor(op.result, ty)


def broadcast_shapes(lhs, rhs, opname="an operation"):
    """The common shape of two shapes (NumPy/Triton rules), or a ShapeMismatchError."""
    a, b = list(lhs), list(rhs)
    pa = [1] * (len(b) - len(a)) + a
    pb = [1] * (len(a) - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(pa, pb)):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            msg = ("incompatible shapes %s and %s for %s: shapes are aligned from the right, and dimension %d is "
                   "%d on one side and %d on the other (neither is 1)" % (a, b, opname, i, x, y))
            if len(a) != len(b):
                short = a if len(a) < len(b) else b
                msg += "; the %d-D shape %s is treated as %s" % (len(short), short,
                                                                 pa if len(a) < len(b) else pb)
            raise ShapeMismatchError(msg, a, b)
    return out


def binary_broadcast(a, b, opname="an operation"):
    """``a`` and ``b`` broadcast to one shape (scalars are splatted)."""
    sa, sb = _shape(a), _shape(b)
    if sa == sb:
        return a, b
    shape = broadcast_shapes(sa, sb, opname)
    return broadcast_to(a, shape), broadcast_to(b, shape)
