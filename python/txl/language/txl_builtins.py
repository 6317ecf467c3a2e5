"""The TXL builtins (docs/txl-reference.md §3b) with TXL's names and argument names: ``txl.smem_alloc``,
``txl.tma_load``, ``txl.mbar_wait``, ``txl.is_warpgroup``, ...

Each becomes the txl dialect op of the same name. Buffers, mbarriers and descriptors are typed values
(``!txl.smem``, ``!txl.mbar``, ``!txl.tensordesc``) rather than TXL's plain tensors, so misuse (a multi-stage
buffer where one stage is needed, a register tile passed to a TMA load) is reported here with a fix.

Arguments TXL accepts but that only steer TXL's own layout or encoding choices (``layout=``, ``shared_enc=``,
``contiguity=`` of tma_load) are accepted and ignored: txl assigns register layouts and shared encodings itself,
so ignoring them cannot change a kernel's results.
"""

import re
from ..ir import dialects as ods
from ..errors import SemanticError
from . import core
from . import semantic as S
from . import warp_partials as WP
from .core import block_type, builtin, constexpr, tensor, tmem_type, _unwrap


def _ids(ids, what):
    ids = _unwrap(ids)
    if isinstance(ids, int):
        ids = [ids]
    if not isinstance(ids, (list, tuple)) or not ids:
        raise SemanticError("%s takes a non-empty list of ids, e.g. [0] or [1, 2]" % what)
    return [S._static_int(i, what + " id") for i in ids]


def _ctx():
    return S._ctx()


# ---------------------------------------------------------------------------------------------------------------
# Identity and warp specialization
# ---------------------------------------------------------------------------------------------------------------
def _id_op(name):
    """txl.tid / txl.warp_id / ...: ``name`` is the op's name in ``ods.txl``."""
    op = S._b().insert(getattr(ods.txl, name)(result=core.int32))
    return tensor(op.result, core.int32)


@builtin
def tid(axis=0):
    """threadIdx.x (txl.tid); kernels are 1-D in threads."""
    if _unwrap(axis) != 0:
        S.unsupported("txl.tid(%r): only axis 0 exists (txl blocks are 1-D)" % _unwrap(axis))
    return _id_op("tid")


@builtin
def tdim(axis=0):
    """blockDim.x: a compile-time constant (num_warps * num_warpgroups * 32)."""
    if _unwrap(axis) != 0:
        return constexpr(1)
    c = _ctx()
    return constexpr(c.num_warps * c.num_warpgroups * 32)


@builtin
def bid(axis=0):
    """blockIdx (txl.program_id)."""
    return _grid_op("program_id", axis)


@builtin
def bdim(axis=0):
    """gridDim (txl.num_programs)."""
    return _grid_op("num_programs", axis)


def _grid_op(name, axis):
    axis = S._static_int(axis, "axis")
    if axis not in (0, 1, 2):
        raise SemanticError("axis must be 0, 1 or 2, got %d" % axis)
    op = S._b().insert(getattr(ods.txl, name)(result=core.int32, axis=axis))
    return tensor(op.result, core.int32)


@builtin
def warp_id():
    return _id_op("warp_id")


@builtin
def warpgroup_id():
    return _id_op("warpgroup_id")


@builtin
def lane_id():
    return _id_op("lane_id")


@builtin
def cta_rank():
    return _id_op("cta_rank")


@builtin
def thread0():
    """True in thread 0 of block (0, 0, 0)."""
    t = S.compare("==", tid(), 0)
    for axis in (0, 1, 2):
        t = S.logical("and", t, S.compare("==", _grid_op("program_id", axis), 0))
    return t


@builtin
def wg_thread0(wgid):
    """True in the first thread of warpgroup ``wgid`` of block (0, 0, 0)."""
    w = S._static_int(wgid, "txl.wg_thread0 wgid")
    t = S.compare("==", tid(), w * 128)
    for axis in (0, 1, 2):
        t = S.logical("and", t, S.compare("==", _grid_op("program_id", axis), 0))
    return t


def _role(name, ids, limit_unit):
    ids = _ids(ids, "txl." + name)
    op = S._b().insert(getattr(ods.txl, name)(result=core.int1, ids=list(ids)))
    t = tensor(op.result, core.int1)
    t.role = name
    t.role_ids = tuple(ids)  # the code generator tracks warp-specialized regions by them
    return t


@builtin
def is_warpgroup(ids):
    """True in the listed warpgroups: `if txl.is_warpgroup([0]):` is a warp-specialized region."""
    c = _ctx()
    for i in _ids(ids, "txl.is_warpgroup"):
        if i >= c.num_warpgroups:
            raise SemanticError("txl.is_warpgroup(%s): warpgroup %d does not exist with num_warpgroups=%d"
                                % (list(_ids(ids, "")), i, c.num_warpgroups),
                                "compile with num_warpgroups=%d or more" % (i + 1))
    return _role("is_warpgroup", ids, "warpgroup")


@builtin
def is_warp(ids):
    """True in the listed warps (Blackwell-style warp roles)."""
    return _role("is_warp", ids, "warp")


@builtin
def reg_alloc(count):
    S._b().insert(ods.txl.reg_alloc(regCount=S._static_int(count, "txl.reg_alloc count")))


@builtin
def reg_dealloc(count):
    S._b().insert(ods.txl.reg_dealloc(regCount=S._static_int(count, "txl.reg_dealloc count")))


# ---------------------------------------------------------------------------------------------------------------
# Shared and tensor memory
# ---------------------------------------------------------------------------------------------------------------
@builtin
def smem_alloc(shape, dtype, num_stages=1, mutable=True, shared_enc=None):
    """A ``num_stages``-deep ring of ``shape`` tiles in shared memory (hoisted to the top of the kernel)."""
    return S.smem_alloc(shape, dtype, num_stages, mutable)


@builtin
def get_buffer(src, index):
    """Stage ``index`` (constexpr or run-time i32) of a smem/tmem/mbarrier allocation."""
    return S.get_buffer(src, index)


@builtin
def smem_load(smem, layout=None, cta_id=-1):
    WP.sync_read(S.as_view(smem, "txl.smem_load"), "txl.smem_load")
    return S.smem_load(smem, S._static_int(cta_id, "cta_id"))


@builtin
def smem_store(smem, value, cta_id=-1):
    S.smem_store(smem, value, S._static_int(cta_id, "cta_id"))


@builtin
def frag_smem_load(smem, shape, layout=None, other=None, pred=None, is_broadcast=False, cta_id=-1):
    """Partial / predicated load into a ``shape`` tile (TXL: deprecated, kept for porting). Under a ``layout`` of
    fewer than 32 threads per warp (TXL's exchange of per-warp partials) it is TXL's register reinterpretation: each
    thread gets the element the layout gives it (``other`` where it gives none) as a per-thread value, which
    ``txl.warp_max`` / ``warp_sum`` combine across the warp's lanes (txl.slot_load; language/warp_partials.py)."""
    view = S.as_view(smem, "txl.frag_smem_load")
    shape = S._shape_list(shape, "txl.frag_smem_load")
    if WP.is_partial_layout(layout):
        if _unwrap(is_broadcast):
            raise SemanticError("txl.frag_smem_load(is_broadcast=True) with a per-thread layout",
                                "drop is_broadcast (TXL deprecates it); read the whole buffer with txl.smem_load")
        p = S._pred(pred, "txl.frag_smem_load")
        return WP.slot_load(view, shape, layout, other, p, S._static_int(cta_id, "cta_id"))
    WP.sync_read(view, "txl.frag_smem_load")
    rt = block_type(view.type.element_ty, shape)
    o = None
    if _unwrap(other) is not None:
        o = S.to_tensor(_unwrap(other), view.type.element_ty)
        o = S.broadcast_to(S.cast(o, view.type.element_ty), shape).handle
    p = S._pred(pred, "txl.frag_smem_load")
    cta = S._static_int(cta_id, "cta_id")
    op = S._b().insert(ods.txl.frag_smem_load(view.handle, o, None if p is None else p.handle, result=rt,
                                              ctaId=cta if cta != -1 else None))
    return tensor(op.result, rt)


@builtin
def frag_smem_store(smem, value, layout=None, pred=None, cta_id=-1, mbar=None, predStr=""):
    """Partial store of a register tile into a (possibly 1-D) buffer (TXL: deprecated, kept for porting).
    ``predStr="slice:D"`` stores a 2-D value into a 1-D buffer along its other dimension (the elements along D
    are taken to be equal); with ``mbar`` the store is st.async and completes its bytes on that barrier."""
    view = S.as_view(smem, "txl.frag_smem_store")
    val = S.to_tensor(value)
    if not isinstance(val.type, block_type):
        # TXL's cross-warp reduction idiom: each warp stores its txl.warp_max / warp_sum partial (a per-thread value)
        # at the element `layout` gives its lane and warp (txl.slot_store; language/warp_partials.py).
        if _unwrap(predStr):
            raise SemanticError("txl.frag_smem_store: predStr=%r slices a 2-D tile; the value is a scalar"
                                % (_unwrap(predStr),), "drop predStr")
        bar = None
        if _unwrap(mbar) is not None:
            bar = S.as_view(mbar, "txl.frag_smem_store mbar", kind="mbar").handle
        p = S._pred(pred, "txl.frag_smem_store")
        WP.slot_store(view, val, layout, p, S._static_int(cta_id, "cta_id"), bar)
        return
    sliced = -1
    pred_str = _unwrap(predStr)
    if pred_str:
        m = re.fullmatch(r"slice:(\d)", str(pred_str))
        if not m:
            raise SemanticError("txl.frag_smem_store: predStr=%r is not understood" % (pred_str,),
                                "TXL's form is predStr='slice:D' (D: the value's dimension the store drops)")
        sliced = int(m.group(1))
        shape = list(getattr(val.type, "shape", []))
        if len(shape) != 2 or len(view.type.shape) != 1 or sliced > 1 or shape[1 - sliced] != view.type.shape[0]:
            raise SemanticError("txl.frag_smem_store: predStr='slice:%d' drops dimension %d of a 2-D value "
                                "stored into a 1-D buffer of the other dimension's size; got value %s and "
                                "buffer %s" % (sliced, sliced, shape, list(view.type.shape)),
                                "slice the dimension whose size is not the buffer's (predStr='slice:%d')"
                                % (0 if len(shape) == 2 and shape[1] == view.type.shape[0] else 1))
    bar = None
    if _unwrap(mbar) is not None:
        bar = S.as_view(mbar, "txl.frag_smem_store mbar", kind="mbar").handle
    p = S._pred(pred, "txl.frag_smem_store")
    cta = S._static_int(cta_id, "cta_id")
    S._b().insert(ods.txl.frag_smem_store(val.handle, view.handle, bar, None if p is None else p.handle,
                                          ctaId=cta if cta != -1 else None,
                                          slicedDim=sliced if sliced != -1 else None))


@builtin
def smem_index(input, index):
    """Sub-tile ``index`` along the leading dimension of a shared-memory view."""
    view = S.as_view(input, "txl.smem_index")
    idx = S._i32(index, "txl.smem_index index")
    rt = view.type.view(shape=view.type.shape[1:])
    op = S._b().insert(ods.txl.smem_index(view.handle, idx.handle, result=rt))
    return tensor(op.result, rt)


@builtin
def smem_slice(input, start, length, dim=0):
    """Rows (or columns, ``dim``) ``start .. start+length`` of a shared-memory view (txl.smem_subslice)."""
    view = S.as_view(input, "txl.smem_slice")
    start = S._static_int(start, "txl.smem_slice start")
    length = S._static_int(length, "txl.smem_slice length")
    dim = S._static_int(dim, "txl.smem_slice dim")
    shape = list(view.type.shape)
    if not 0 <= dim < len(shape) or start < 0 or start + length > shape[dim]:
        raise SemanticError("txl.smem_slice(start=%d, length=%d, dim=%d) is outside the buffer %s"
                            % (start, length, dim, shape))
    offsets = [0] * len(shape)
    offsets[dim] = start
    shape[dim] = length
    rt = view.type.view(shape=shape)
    op = S._b().insert(ods.txl.smem_subslice(view.handle, result=rt, offsets=offsets))
    return tensor(op.result, rt)


@builtin
def smem_trans(input, order):
    view = S.as_view(input, "txl.smem_trans")
    order = [S._static_int(o, "txl.smem_trans order") for o in _unwrap(order)]
    return S.smem_trans(view, order)


@builtin
def smem_reshape(input, shape):
    view = S.as_view(input, "txl.smem_reshape")
    shape = S._shape_list(shape, "txl.smem_reshape")
    rt = view.type.view(shape=shape)
    op = S._b().insert(ods.txl.smem_reshape(view.handle, result=rt))
    return tensor(op.result, rt)


@builtin
def tmem_alloc(shape, dtype, num_stages=1, mutable=True, shared_enc=None):
    """Tensor memory (Blackwell, sm_100a)."""
    return S.tmem_alloc(shape, dtype, num_stages)


def _tmem_view(t, what):
    t = _unwrap(t)
    if not isinstance(t, tensor) or not isinstance(t.type, tmem_type):
        raise SemanticError("%s needs a tensor-memory buffer from txl.tmem_alloc" % what)
    if t.type.num_stages == 1:
        return S.get_buffer(t, 0)
    if t.type.num_stages > 1:
        raise SemanticError("%s needs one stage of %s" % (what, t.type), "use txl.get_buffer(buf, i)")
    return t


@builtin
def tmem_load(tmem, cta_id=-1):
    view = _tmem_view(tmem, "txl.tmem_load")
    rt = block_type(view.type.element_ty, view.type.shape)
    op = S._b().insert(ods.txl.tmem_load(view.handle, result=rt))
    return tensor(op.result, rt)


@builtin
def tmem_store(tmem, value, cta_id=-1):
    view = _tmem_view(tmem, "txl.tmem_store")
    val = S.cast(S.to_tensor(value), view.type.element_ty)
    S._b().insert(ods.txl.tmem_store(val.handle, view.handle))


# ---------------------------------------------------------------------------------------------------------------
# mbarriers and named barriers
# ---------------------------------------------------------------------------------------------------------------
@builtin
def mbar_alloc(arr_count, num_stages=1):
    """``num_stages`` mbarriers that each complete a phase after ``arr_count`` arrivals."""
    return S.mbar_alloc(arr_count, num_stages)


@builtin
def mbar_expect(mbar, size_in_bytes, pred=None):
    S.mbar_expect(mbar, size_in_bytes, pred)


@builtin
def mbar_wait(mbar, phase):
    bar = S.as_view(mbar, "txl.mbar_wait", kind="mbar")
    ph = S._i32(phase, "txl.mbar_wait phase")
    S._b().insert(ods.txl.mbar_wait(bar.handle, ph.handle))


@builtin
def mbar_arrive(mbar, pred=None, track_async_op=False, tx_cnt=0, remote_cta_id=None):
    bar = S.as_view(mbar, "txl.mbar_arrive", kind="mbar")
    p = S._pred(pred, "txl.mbar_arrive")
    r = S._i32(remote_cta_id, "remote_cta_id") if _unwrap(remote_cta_id) is not None else None
    tx = S._static_int(tx_cnt, "tx_cnt")
    S._b().insert(ods.txl.mbar_arrive(bar.handle, None if p is None else p.handle, None if r is None else r.handle,
                                      track_async_op=bool(_unwrap(track_async_op)), tx_count=tx or None))


@builtin
def bar_arrive(bar, num_threads):
    S._b().insert(ods.txl.bar_arrive(bar=S._static_int(bar, "txl.bar_arrive bar"),
                                     numThreads=S._static_int(num_threads, "txl.bar_arrive num_threads")))


@builtin
def bar_wait(bar, num_threads):
    S._b().insert(ods.txl.bar_wait(bar=S._static_int(bar, "txl.bar_wait bar"),
                                   numThreads=S._static_int(num_threads, "txl.bar_wait num_threads")))


@builtin
def fence_proxy_async():
    S._b().insert(ods.txl.fence_proxy_async())


def cluster_barrier():
    """Every thread of every CTA of the cluster (a kernel launched with num_ctas > 1) waits here; shared-memory
    writes before it are visible to ``smem_load(..., cta_id=)`` after it. A txl extension (TXL has no name for it):
    also call it before the kernel ends while other CTAs may still read this CTA's buffers."""
    S._b().insert(ods.txl.cluster_barrier())


# ---------------------------------------------------------------------------------------------------------------
# Data movement
# ---------------------------------------------------------------------------------------------------------------
@builtin
def tma_load(value, desc, offsets, mbar, contiguity=-1):
    """TMA box at ``offsets`` of ``desc`` into the buffer ``value``, completing on ``mbar``."""
    S.tma_load(value, desc, offsets, mbar)


@builtin
def tma_store(value, desc, offsets, reduce=None):
    """TMA store of the buffer ``value`` to the box at ``offsets`` of ``desc``. ``reduce="add"`` (or "min",
    "max") combines the box into global memory instead of overwriting it (cp.reduce.async.bulk.tensor), so several
    CTAs may accumulate into one box, e.g. an fp32 dQ."""
    S.tma_store(value, desc, offsets, _unwrap(reduce))


@builtin
def tma_store_wait(pendings):
    S._b().insert(ods.txl.tma_store_wait(pendings=S._static_int(pendings, "txl.tma_store_wait pendings")))


@builtin
def tma_gather(value, desc, mbar, x_offsets, y_offset):
    """Rows ``x_offsets`` (an i32 tile) at column ``y_offset`` (sm_100a gather4)."""
    desc = S._desc(desc, "txl.tma_gather")
    view = S.as_view(value, "txl.tma_gather destination")
    bar = S.as_view(mbar, "txl.tma_gather mbarrier", kind="mbar")
    xs = S.cast(S.to_tensor(x_offsets), core.int32)
    y = S._i32(y_offset, "txl.tma_gather y_offset")
    S._b().insert(ods.txl.tma_gather(desc.handle, xs.handle, y.handle, view.handle, bar.handle))


@builtin
def async_load(mem, pointer, mask=None, other=None, boundary_check=(), padding_option="", cache_modifier="",
               eviction_policy="", volatile=False, contiguity=-1):
    """cp.async of a tile of global pointers into a shared-memory buffer."""
    if _unwrap(boundary_check) or _unwrap(padding_option) or _unwrap(volatile):
        S.unsupported("txl.async_load with boundary_check/padding_option/volatile", "use mask= and other=")
    view = S.as_view(mem, "txl.async_load destination")
    ptrs = S.to_tensor(pointer)
    if not isinstance(ptrs.type, block_type) or not ptrs.dtype.is_ptr():
        raise SemanticError("txl.async_load needs a tile of pointers, got %s" % ptrs.type)
    shape = list(ptrs.type.shape)
    m = o = None
    if _unwrap(mask) is not None:
        m = S.broadcast_to(S.cast(S.to_tensor(_unwrap(mask)), core.int1), shape).handle
    if _unwrap(other) is not None:
        elt = ptrs.dtype.element_ty
        o = S.broadcast_to(S.cast(S.to_tensor(_unwrap(other), elt), elt), shape).handle
    c = S._static_int(contiguity, "contiguity")
    S._b().insert(ods.txl.async_load(ptrs.handle, view.handle, m, o, contiguity=c if c != -1 else None,
                                     **S._mem_attrs(cache_modifier, eviction_policy)))


@builtin
def async_load_wait(pendings):
    S._b().insert(ods.txl.async_load_wait(pendings=S._static_int(pendings, "txl.async_load_wait pendings")))


# ---------------------------------------------------------------------------------------------------------------
# Compute
# ---------------------------------------------------------------------------------------------------------------
@builtin
def dot_wait(pendings):
    """Wait until at most ``pendings`` wgmma groups are in flight (``tl.dot`` is asynchronous when a dot_wait
    follows it)."""
    S.dot_wait(pendings)


@builtin
def dotx(input, other, acc=None, useD=None, pred=None, mbars=(), mbarPreds=(), input_precision=None,
         allow_tf32=None, max_num_imprecise_acc=None, out_dtype=core.float32, two_ctas=False):
    """tcgen05 MMA (sm_100a) into ``acc``: a tensor-memory buffer (accumulated in place; returns acc, as TXL) or a
    register tile (returns the new tile)."""
    a = _unwrap(input)
    a = _tmem_view(a, "txl.dotx A") if isinstance(a, tensor) and isinstance(a.type, tmem_type) \
        else S.as_view(a, "txl.dotx A")
    b = S.as_view(other, "txl.dotx B")
    c = _unwrap(acc)
    if c is None:
        raise SemanticError("txl.dotx needs acc= (a tensor-memory buffer or a register tile)")
    c = S.to_tensor(c)
    if isinstance(c.type, tmem_type):
        c = _tmem_view(c, "txl.dotx acc")
    use_d, p = [S._pred(v, "txl.dotx " + kw) for kw, v in (("use_d", useD), ("pred", pred))]
    mbars, preds = list(_unwrap(mbars) or ()), list(_unwrap(mbarPreds) or ())
    if preds and len(preds) != len(mbars):
        raise SemanticError("txl.dotx needs one predicate per mbarrier (%d mbars, %d preds)" % (len(mbars),
                                                                                               len(preds)))
    views = [S.as_view(m, "txl.dotx mbar", kind="mbar").handle for m in mbars]
    ps = [S._pred(x, "txl.dotx mbarPreds").handle for x in (preds or [True] * len(mbars))] if mbars else []
    op = S._b().insert(ods.txl.dotx(a.handle, b.handle, c.handle, None if use_d is None else use_d.handle,
                                    None if p is None else p.handle, views, ps,
                                    result=c.type if isinstance(c.type, block_type) else None,
                                    two_ctas=bool(_unwrap(two_ctas))))
    if isinstance(c.type, block_type):
        return tensor(op.result, c.type)
    # As TXL, dotx returns the accumulator: with a tensor-memory acc the MMA accumulates in place, so that is the
    # buffer itself (`acc = txl.dotx(a, b, acc, ...)` then `txl.tmem_load(acc)` reads the product).
    return _unwrap(acc)


@builtin
def warp_max(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    """TXL's per-warp maximum: of a 1-D tile (or any tile with axis=None), the maximum of the elements the thread's
    warp holds, one value per warp (txl.warp_reduce); of a per-thread value (txl.frag_smem_load under a per-thread
    layout), the maximum over the warp's 32 lanes. A tile of rank >= 2 along an axis: txl's complete tl.max (TXL's
    value wherever the warps do not split the axis). See language/warp_partials.py."""
    return WP.warp_reduce("max", input, axis, keep_dims, return_indices=bool(_unwrap(return_indices)),
                          tie_break_left=bool(_unwrap(return_indices_tie_break_left)))


@builtin
def warp_sum(input, axis=None, keep_dims=False, dtype=None):
    """TXL's per-warp sum (as txl.warp_max: one value per warp)."""
    return WP.warp_reduce("sum", input, axis, keep_dims, _unwrap(dtype))


@builtin
def print(prefix_or_data, data=None, hex=False):
    """Device printf: ``txl.print("m_i = ", m_i)`` or ``txl.print(x)``."""
    prefix, values = _unwrap(prefix_or_data), _unwrap(data)
    if not isinstance(prefix, str):
        prefix, values = "", prefix
    if values is None:
        values = []
    elif not isinstance(values, (list, tuple)):
        values = [values]
    vals = [S.to_tensor(_unwrap(v)) for v in values]
    S._b().insert(ods.txl.print([v.handle for v in vals], prefix=prefix, hex=bool(_unwrap(hex))))


# ---------------------------------------------------------------------------------------------------------------
# TXL names whose job the compiler does (layouts) and TXL's small helpers
# ---------------------------------------------------------------------------------------------------------------
@builtin
def relayout(value, shape, layout):
    """TXL's (deprecated) explicit layout conversion. txl assigns register layouts itself and inserts the
    conversions a tile needs, so the layout is a hint that is accepted and ignored (like ``smem_load(layout=)``)
    and the value is returned as is; ``shape`` must be the tile's (TXL's relayout does not reshape either)."""
    t = S.to_tensor(_unwrap(value))
    shp = [int(_unwrap(d)) for d in _unwrap(shape)]
    have = list(t.type.shape) if isinstance(t.type, block_type) else []
    if shp != have:
        raise SemanticError("txl.relayout(value, %s, layout): the value's shape is %s; relayout changes only the "
                            "layout, which txl chooses itself" % (shp, have),
                            "reshape first with tl.reshape(value, %s) (then relayout is not needed)" % (shp,))
    return t


@builtin
def print_layout(shape, dtype, layout, save_loc=None):
    raise SemanticError("txl.print_layout: txl assigns register layouts in the compiler, so a layout object of "
                        "the kernel is not the layout its tiles get",
                        "print the layouts txl assigned with `txlc kernel.mlir --stop-after=txl-assign-layouts` (or "
                        "run with TXL_DUMP_IR=1, which prints the IR after every stage)")


@builtin
def ones(shape, dtype):
    """TXL's ``txl.ones(shape, dtype)``: ``tl.full(shape, 1, dtype)``."""
    from . import standard
    return standard.full(shape, 1, dtype)


@builtin
def ones_like(input):
    """TXL's ``txl.ones_like(x)``: ones of x's shape and dtype."""
    from . import standard
    t = S.to_tensor(input)
    return standard.full(list(t.type.shape), 1, t.dtype)
