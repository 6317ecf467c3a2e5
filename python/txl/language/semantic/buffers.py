"""Shared memory, tensor memory, mbarriers and TMA copies (the TXL builtins call these): allocations, one-stage
views, transposed views, loads and stores of buffers."""

from ...ir import dialects as ods
from ...errors import SemanticError
from .. import core
from ..core import block_type, dtype, mbar_type, smem_type, tensor, tmem_type, _unwrap
from .context import _b
from .values import constant, to_tensor, _i32, _static_int
from .broadcast import splat
from .arith import cast
from .descriptors import _desc, _offsets


# ----------------------------------------------------------------------------------------------------------------
# Buffers and their views
# ----------------------------------------------------------------------------------------------------------------
def as_view(t, what, kind=None):
    """A one-stage view of a buffer: a 1-stage allocation is used as its only stage (TXL allows
    ``smem_alloc(...)`` without get_buffer); a multi-stage one needs txl.get_buffer. ``kind="mbar"``: the operand
    must be an mbarrier (a shared-memory buffer there would only fail later, as ill-typed IR)."""
    t = _unwrap(t)
    if not isinstance(t, tensor) or not isinstance(t.type, (smem_type, mbar_type)):
        raise SemanticError("%s needs a shared-memory buffer or mbarrier, got %s"
                            % (what, t.type if isinstance(t, tensor) else repr(t)))
    if kind == "mbar" and not isinstance(t.type, mbar_type):
        raise SemanticError("%s needs an mbarrier (from txl.mbar_alloc), got the shared-memory buffer %s"
                            % (what, t.type), "pass the mbarrier allocated with txl.mbar_alloc(count) "
                            "(or one stage of it: txl.get_buffer(bars, i))")
    if t.type.num_stages == 1:
        return get_buffer(t, 0)
    if t.type.num_stages > 1:
        raise SemanticError("%s needs one stage of the %d-stage allocation %s" % (what, t.type.num_stages, t.type),
                            "pick a stage with txl.get_buffer(buf, index)")
    return t


def get_buffer(src, index):
    src = _unwrap(src)
    if not isinstance(src, tensor) or not isinstance(src.type, (smem_type, mbar_type)):
        raise SemanticError("txl.get_buffer needs an allocation from txl.smem_alloc / txl.tmem_alloc / "
                            "txl.mbar_alloc, got %s" % (src.type if isinstance(src, tensor) else repr(src)))
    if not src.type.num_stages:
        raise SemanticError("txl.get_buffer: %s is already one stage" % src.type,
                            "use the buffer directly")
    i = _unwrap(index)
    if isinstance(i, int) and not 0 <= i < src.type.num_stages:
        raise SemanticError("txl.get_buffer index %d is out of range for %d stages" % (i, src.type.num_stages))
    idx = _i32(index, "txl.get_buffer index")
    rt = src.type.view() if isinstance(src.type, smem_type) else mbar_type(0)
    op = _b().insert(ods.txl.get_buffer(src.handle, idx.handle, result=rt))
    return tensor(op.result, rt)


def smem_trans(t, order):
    order = [int(_unwrap(o)) for o in order]
    shape = [t.type.shape[o] for o in order]
    flip = order != list(range(len(order)))
    rt = t.type.view(shape=shape, transposed=(not t.type.transposed) if flip else t.type.transposed)
    op = _b().insert(ods.txl.smem_trans(t.handle, result=rt, order=order))
    return tensor(op.result, rt)


# ----------------------------------------------------------------------------------------------------------------
# Shared memory, mbarriers, TMA (the TXL builtins call these)
# ----------------------------------------------------------------------------------------------------------------
def _shape_list(shape, what):
    shape = _unwrap(shape)
    if not isinstance(shape, (tuple, list)):
        shape = [shape]
    return [_static_int(s, "%s shape" % what) for s in shape]


def smem_alloc(shape, dtype_, num_stages=1, mutable=True, name=None):
    shape = _shape_list(shape, "txl.smem_alloc")
    dtype_ = _unwrap(dtype_)
    if not isinstance(dtype_, dtype) or dtype_.is_ptr():
        raise SemanticError("txl.smem_alloc dtype must be an element type such as tl.bfloat16, got %r" % (dtype_,))
    n = _static_int(num_stages, "txl.smem_alloc num_stages")
    if n < 1:
        raise SemanticError("txl.smem_alloc num_stages must be >= 1, got %d" % n)
    ty = smem_type(shape, dtype_, n, core.EncodingCell(origin=name))
    # `mutable` is accepted for TXL compatibility: every txl buffer is writable.
    op = _b().hoist(ods.txl.smem_alloc(result=ty))
    return tensor(op.result, ty)


def tmem_alloc(shape, dtype_, num_stages=1):
    shape = _shape_list(shape, "txl.tmem_alloc")
    n = _static_int(num_stages, "txl.tmem_alloc num_stages")
    ty = tmem_type(shape, _unwrap(dtype_), n)
    op = _b().hoist(ods.txl.tmem_alloc(result=ty))
    return tensor(op.result, ty)


def mbar_alloc(arr_count, num_stages=1):
    count = _static_int(arr_count, "txl.mbar_alloc arr_count")
    n = _static_int(num_stages, "txl.mbar_alloc num_stages")
    ty = mbar_type(n)
    op = _b().hoist(ods.txl.mbar_alloc(result=ty, arriveCount=count))
    return tensor(op.result, ty)


def _pred(pred, what):
    pred = _unwrap(pred)
    if pred is None:
        return None
    if isinstance(pred, bool):
        return constant(pred, core.int1)
    p = to_tensor(pred)
    if isinstance(p.type, block_type):
        raise SemanticError("%s pred must be a scalar boolean" % what)
    return cast(p, core.int1)


def mbar_expect(mbar, nbytes, pred=None):
    bar = as_view(mbar, "txl.mbar_expect", kind="mbar")
    n = _static_int(nbytes, "txl.mbar_expect size_in_bytes")
    p = _pred(pred, "txl.mbar_expect")
    _b().insert(ods.txl.mbar_expect(bar.handle, None if p is None else p.handle, bytes=n))


def tma_load(dst, desc, offsets, mbar):
    desc = _desc(desc, "txl.tma_load")
    view = as_view(dst, "txl.tma_load destination")
    bar = as_view(mbar, "txl.tma_load mbarrier", kind="mbar")
    idx = _offsets(offsets, len(desc.type.block_shape), "txl.tma_load")
    if not isinstance(view.type, smem_type):
        raise SemanticError("txl.tma_load writes a shared-memory buffer, got %s" % view.type)
    _b().insert(ods.txl.tma_load(desc.handle, [i.handle for i in idx], view.handle, bar.handle))


TMA_REDUCE_KINDS = ("add", "min", "max")


def tma_store(src, desc, offsets, reduce=None):
    desc = _desc(desc, "txl.tma_store")
    view = as_view(src, "txl.tma_store source")
    idx = _offsets(offsets, len(desc.type.block_shape), "txl.tma_store")
    if reduce is not None and (not isinstance(reduce, str) or reduce not in TMA_REDUCE_KINDS):
        raise SemanticError("txl.tma_store(reduce=%r): the TMA reductions are %s" % (reduce, ", ".join(
            map(repr, TMA_REDUCE_KINDS))))
    _b().insert(ods.txl.tma_store(view.handle, desc.handle, [i.handle for i in idx], reduce=reduce or None))


def smem_load(src, ctaId=-1):
    view = as_view(src, "txl.smem_load")
    rt = block_type(view.type.element_ty, view.type.shape)
    op = _b().insert(ods.txl.smem_load(view.handle, result=rt, ctaId=ctaId if ctaId != -1 else None))
    return tensor(op.result, rt)


def smem_store(dst, value, ctaId=-1):
    view = as_view(dst, "txl.smem_store")
    val = to_tensor(value)
    if not isinstance(val.type, block_type):
        val = splat(val, view.type.shape)
    if list(val.type.shape) != list(view.type.shape):
        raise SemanticError("txl.smem_store: value %s does not have the buffer's shape %s"
                            % (val.type, view.type.shape))
    if val.dtype != view.type.element_ty:
        raise SemanticError("txl.smem_store: value is %s but the buffer holds %s" % (val.dtype.name,
                                                                                    view.type.element_ty.name),
                            "convert it first: value.to(%r)" % (view.type.element_ty,))
    _b().insert(ods.txl.smem_store(val.handle, view.handle, ctaId=ctaId if ctaId != -1 else None))
