"""TXL's per-warp partial reductions and the shared-memory slots through which a kernel exchanges them.

TXL (a Triton fork) defines ``txl.warp_max`` / ``txl.warp_sum`` as a reduction that stops after the shuffles inside
each warp: every thread gets the combination of what *its warp* holds, one value per warp, replicated across the
warp's lanes. TXL's 04-softmax kernels then write the cross-warp step themselves:

* ``txl.frag_smem_store(buf, partial, layout)``: under ``layout`` (a ``txl.BlockedLayout`` over ``buf``'s shape, e.g.
  ``threads_per_warp=[1], warps_per_cta=[num_warps]``) thread (lane, warp) stores its value at the element the layout
  gives register 0 of that lane and warp; threads the layout does not cover (lanes >= its threads per warp, warps >=
  its warps) do not store;
* ``txl.frag_smem_load(buf, shape, layout, other)``: each thread reads the element the layout gives it (threads the
  layout does not cover get ``other``): a per-thread value (TXL reinterprets that register as a tile of ``shape``);
* ``txl.warp_max`` / ``warp_sum`` of that value combines the 32 lanes of each warp.

In txl the partial reduction is ``txl.warp_reduce`` (a rank-1 tile: the elements the warp holds in the layout txl
assigns to the tile; a scalar: the warp's 32 lanes), and the two slot accesses are ``txl.slot_store`` /
``txl.slot_load``, whose lane and warp bases (element indices) this module computes from TXL's layout as Triton
does (``BlockedLayout`` -> linear layout over the per-CTA shape; bases past the shape hold copies). Register layouts
of higher rank with an axis keep txl's complete reduction (``S.reduce_named``), which is TXL's value whenever the
warps do not split the axis.

Synchronisation: TXL's compiler (Triton's membar analysis) puts a CTA barrier between a shared-memory write and a
read of it by other threads. Here a slot store is preceded by a CTA barrier (it may overwrite what other warps of the
previous loop iteration still read), and a read of a buffer a slot store wrote since the last such barrier is
preceded by one. A barrier is never put inside a run-time ``if`` (its branch may run in some threads only): a read
there that needs one is an error at the user's line. Stores with ``mbar`` (st.async into another CTA) are ordered by
the mbarrier wait, as in TXL.

Clusters (``num_ctas = C > 1``): TXL splits a tile over the cluster's CTAs (CTA b holds the b-th C-th of a 1-D tile)
and a warp holds only elements of its CTA's share. txl's CTAs each hold the whole tile, so a partial reduction of a
tile in such a kernel combines only the elements of the CTA's share (the others count as the identity: -inf for max,
0 for sum), which is the value TXL's warp gets.
"""

from .. import ir
from ..ir import dialects as ods
from ..errors import SemanticError
from . import core
from . import semantic as S
from .core import block_type, dtype, tensor, _unwrap
from .layouts import BlockedLayout

_VIEW_OPS = ("txl.get_buffer", "txl.smem_index", "txl.smem_subslice", "txl.smem_trans", "txl.smem_reshape")


# ---------------------------------------------------------------------------------------------------------------
# Layouts -> lane and warp bases
# ---------------------------------------------------------------------------------------------------------------
def _log2(n, what):
    n = int(n)
    if n <= 0 or n & (n - 1):
        raise SemanticError("%s must be a power of two, got %d" % (what, n))
    return n.bit_length() - 1


def _standard(sizes, order, unit):
    """identityStandardND: log2(sizes[d]) bases per dimension, dimensions in ``order`` (fastest first); basis i of
    dimension d moves coordinate d by unit[d] * 2^i."""
    bases = []
    for d in order:
        for i in range(_log2(sizes[d], "a layout's size along dimension %d" % d)):
            c = [0] * len(sizes)
            c[d] = unit[d] << i
            bases.append(c)
    return bases


def slot_bases(layout, shape, what):
    """(laneBases, warpBases) of TXL's ``layout`` over a buffer of ``shape``: the row-major element index register 0
    of each lane bit and each warp bit lands on (0: a copy), as Triton's BlockedLayout -> LinearLayout over the
    per-CTA shape (``shape`` / ``cta_split_num``) gives them. Refuses layouts that give a thread several elements
    (a per-thread value is one register)."""
    layout = _unwrap(layout)
    if layout is None:
        raise SemanticError("%s of a per-thread value (e.g. a txl.warp_max / warp_sum partial) needs the `layout` "
                            "that says which element each thread writes" % what,
                            "pass TXL's layout, e.g. txl.BlockedLayout(size_per_thread=[1], threads_per_warp=[1], "
                            "warps_per_cta=[num_warps], order=[0]) for one element per warp")
    if not isinstance(layout, BlockedLayout):
        raise SemanticError("%s of a per-thread value takes a txl.BlockedLayout, got %s" % (what, type(layout).__name__))
    rank = len(shape)
    spt, tpw, wpc, order = (list(map(int, _unwrap(x))) for x in (layout.size_per_thread, layout.threads_per_warp,
                                                                 layout.warps_per_cta, layout.order))
    split = list(map(int, _unwrap(layout.cta_split_num))) if layout.cta_split_num else [1] * rank
    if not all(len(x) == rank for x in (spt, tpw, wpc, order, split)):
        raise SemanticError("%s: the layout's rank (size_per_thread=%s, threads_per_warp=%s, warps_per_cta=%s, "
                            "order=%s) is not the buffer's (%s)" % (what, spt, tpw, wpc, order, list(shape)))
    if sorted(order) != list(range(rank)):
        raise SemanticError("%s: the layout's order %s is not a permutation of 0..%d" % (what, order, rank - 1))
    if any(s % c for s, c in zip(shape, split)):
        raise SemanticError("%s: the buffer %s does not split into cta_split_num=%s" % (what, list(shape), split))
    cta_shape = [s // c for s, c in zip(shape, split)]
    for d, s in enumerate(cta_shape):
        _log2(s, "%s: the buffer's per-CTA size along dimension %d" % (what, d))
    if sum(_log2(t, "threads_per_warp") for t in tpw) > 5 or sum(_log2(w, "warps_per_cta") for w in wpc) > 5:
        raise SemanticError("%s: the layout has more than 32 threads per warp or 32 warps" % what)
    reg = _standard(spt, order, [1] * rank)
    lane = _standard(tpw, order, spt)
    warp = _standard(wpc, order, [a * b for a, b in zip(spt, tpw)])
    # Bases past the shape hold copies (Triton's ensureLayoutNotLargerThan: the largest ones become 0).
    for d in range(rank):
        covered = 1
        for b in reg + lane + warp:
            covered = max(covered, 2 * b[d])
        while covered > cta_shape[d]:
            big = max((b for b in reg + lane + warp if b[d]), key=lambda b: b[d])
            big[d] = 0
            covered //= 2
    if any(any(b) for b in reg):
        raise SemanticError("%s: the layout gives each thread several elements of the buffer %s (size_per_thread=%s "
                            "over a per-CTA shape of %s), but a per-thread value is one register"
                            % (what, list(shape), spt, cta_shape),
                            "use a layout of one element per thread: size_per_thread=[1] and threads_per_warp x "
                            "warps_per_cta covering the buffer, e.g. threads_per_warp=[1], warps_per_cta=[num_warps]")

    def flat(c):
        i = 0
        for d in range(rank):
            i = i * cta_shape[d] + c[d]
        return i

    return [flat(b) for b in lane], [flat(b) for b in warp]


def _covers_all(lanes, warps):
    c = S.current()
    return len(lanes) == 5 and (1 << len(warps)) >= c.num_warps * c.num_warpgroups


# ---------------------------------------------------------------------------------------------------------------
# Barriers (TXL's membar for the slot accesses)
# ---------------------------------------------------------------------------------------------------------------
def _root(v):
    """The allocation a shared-memory view comes from (None: unknown, e.g. a view carried through a loop)."""
    while True:
        op = getattr(v, "owner", None)
        if op is None or not hasattr(op, "operands"):
            return None
        if op.name in _VIEW_OPS:
            v = op.operands[0]
            continue
        return id(v)


def _state():
    ctx = S._ctx()
    st = getattr(ctx, "_slot_accesses", None)
    if st is None:
        st = ctx._slot_accesses = {"write": set(), "read": set()}
    return st


def _in_branch():
    gen = S._ctx().codegen
    return getattr(gen, "cond_depth", 0) > 0


def _barrier():
    """bar.sync over the CTA, or over the warpgroup inside `if txl.is_warpgroup([w])` (named barrier 1 + w, the
    compiler's warpgroup barrier)."""
    gen = S._ctx().codegen
    for kind, ids in reversed(getattr(gen, "roles", ()) or ()):
        if kind == "is_warpgroup" and ids and len(ids) == 1:
            S._b().insert(ods.txl.bar_wait(bar=1 + ids[0], numThreads=128))
            break
    else:
        c = S.current()
        S._b().insert(ods.txl.bar_wait(bar=0, numThreads=32 * c.num_warps * c.num_warpgroups))
    st = _state()
    st["write"].clear()
    st["read"].clear()


def _hits(root, roots):
    return bool(roots) and (root is None or root in roots or None in roots)


def sync_read(view, what):
    """Before a read of ``view``: a barrier when a slot store wrote its allocation since the last one."""
    root = _root(view.handle)
    st = _state()
    if _hits(root, st["write"]):
        if _in_branch():
            raise SemanticError("%s reads a buffer that txl.frag_smem_store wrote (per-thread slots) with no barrier "
                                "since, inside a run-time `if`: the barrier TXL's compiler puts before the read would "
                                "run in some threads only" % what,
                                "read the buffer outside the `if` (as TXL's tutorials do), or call "
                                "tl.debug_barrier() before the `if`")
        _barrier()
    _state()["read"].add(root)


def sync_write(view):
    """Before a slot store into ``view``: a barrier (other warps may still read what it overwrites, e.g. in the
    previous loop iteration), unless inside a run-time `if`, where none can be put."""
    st = _state()
    if not _in_branch():
        _barrier()
    st["write"].add(_root(view.handle))


# ---------------------------------------------------------------------------------------------------------------
# The builtins' semantics
# ---------------------------------------------------------------------------------------------------------------
def is_partial_layout(layout):
    """TXL's fragment idiom: a BlockedLayout of fewer than 32 threads per warp (a txl tile layout has 32)."""
    layout = _unwrap(layout)
    if not isinstance(layout, BlockedLayout):
        return False
    n = 1
    for t in _unwrap(layout.threads_per_warp):
        n *= int(_unwrap(t))
    return n < 32


def slot_store(view, value, layout, pred, cta, mbar):
    """txl.frag_smem_store of a per-thread scalar: txl.slot_store with the layout's bases."""
    what = "txl.frag_smem_store"
    ety = view.type.element_ty
    if value.dtype != ety:
        raise SemanticError("%s: the value is %s but the buffer holds %s" % (what, value.dtype, ety),
                            "convert the value to the buffer's dtype (%s) first with .to(...)" % ety)
    lanes, warps = slot_bases(layout, list(view.type.shape), what)
    if mbar is None:
        sync_write(view)
    S._b().insert(ods.txl.slot_store(value.handle, view.handle, mbar, None if pred is None else pred.handle,
                                     laneBases=lanes, warpBases=warps, ctaId=cta if cta != -1 else None))


def slot_load(view, shape, layout, other, pred, cta):
    """txl.frag_smem_load under a layout of fewer threads than a warp: each thread's element as a per-thread scalar
    (txl.slot_load); threads the layout does not cover get ``other``."""
    what = "txl.frag_smem_load"
    ety = view.type.element_ty
    lanes, warps = slot_bases(layout, list(view.type.shape), what)
    o = None
    if _unwrap(other) is not None:
        o = S.cast(S.to_tensor(_unwrap(other), ety), ety)
        if not isinstance(o.type, dtype):
            raise SemanticError("%s with a per-thread layout: `other` must be a scalar, got %s" % (what, o.type))
    elif pred is not None:
        raise SemanticError("%s with `pred` needs `other` (the value where pred is false)" % what)
    elif not _covers_all(lanes, warps):
        raise SemanticError("%s: the layout covers %d lanes and %d warps, not every thread, so the others need a "
                            "value" % (what, 1 << len(lanes), 1 << len(warps)),
                            "pass other= (TXL's fill value: -float('inf') before a txl.warp_max, 0.0 before a "
                            "txl.warp_sum)")
    sync_read(view, what)
    op = S._b().insert(ods.txl.slot_load(view.handle, None if o is None else o.handle,
                                         None if pred is None else pred.handle, result=ety, laneBases=lanes,
                                         warpBases=warps, ctaId=cta if cta != -1 else None))
    return tensor(op.result, ety)


def _combiner(kind, ety):
    body = ir.Block([ety, ety], ["x", "y"])
    if kind == "sum":
        name = "addf" if ety.is_floating() else "addi"
    elif ety.is_floating():
        name = "maxnumf" if kind == "max" else "minnumf"
    else:
        name = kind + ("ui" if ety.is_int_unsigned() else "si")
    comb = getattr(ods.arith, name)(*body.args, result=ety)
    body.ops = [comb, ods.txl.reduce_return([comb.result])]
    return ir.Region([body])


def _arg_combiner(ety, tie_break_left):
    body = ir.Block([ety, core.int32, ety, core.int32], ["x0", "i0", "x1", "i1"])
    x0, i0, x1, i1 = body.args
    if ety.is_floating():
        better = ods.arith.cmpf(x1, x0, result=core.int1, predicate="ogt")
        equal = ods.arith.cmpf(x1, x0, result=core.int1, predicate="oeq")
    else:
        sign = "u" if ety.is_int_unsigned() else "s"
        better = ods.arith.cmpi(x1, x0, result=core.int1, predicate=sign + "gt")
        equal = ods.arith.cmpi(x1, x0, result=core.int1, predicate="eq")
    first = ods.arith.cmpi(i1, i0, result=core.int1, predicate="slt" if tie_break_left else "sgt")
    tie = ods.arith.andi(equal.result, first.result, result=core.int1)
    take = ods.arith.ori(better.result, tie.result, result=core.int1)
    xs = ods.arith.select(take.result, x1, x0, result=ety)
    ix = ods.arith.select(take.result, i1, i0, result=core.int32)
    body.ops = [better, equal, first, tie, take, xs, ix, ods.txl.reduce_return([xs.result, ix.result])]
    return ir.Region([body])


def _identity(kind, ety):
    if kind == "sum":
        return 0.0 if ety.is_floating() else 0
    if ety.is_floating():
        return float("-inf")
    if ety.is_int_unsigned():
        return 0
    return -(1 << (ety.primitive_bitwidth - 1))


def _cta_share(t, kind):
    """In a cluster of C CTAs, the elements outside this CTA's share of the 1-D tile ``t`` (CTA b: [b*N/C,
    (b+1)*N/C), Triton's split) become the combiner's identity."""
    c = int(getattr(S._ctx(), "num_ctas", 1) or 1)
    n = S._shape(t)[0]
    if c == 1 or n < c:
        return t
    from . import txl_builtins
    rng = tensor(S._b().insert(ods.txl.make_range(result=block_type(core.int32, [n]), start=0, end=n)).result, block_type(core.int32, [n]))
    mine = S.compare("==", S.binary("//", rng, n // c), txl_builtins.cta_rank())
    return S.where(mine, t, S.to_tensor(_identity(kind, t.dtype), t.dtype))


def warp_reduce(kind, input, axis, keep_dims, dtype_=None, return_indices=False, tie_break_left=True):
    """txl.warp_max / txl.warp_sum. A scalar combines the warp's 32 lanes; a 1-D tile (or any tile with axis=None,
    flattened) the elements its warp holds: one value per warp (txl.warp_reduce). A tile of rank >= 2 reduced along
    an axis is txl's complete reduction (TXL's value wherever the warps do not split the axis)."""
    name = "txl.warp_" + kind
    t = S.to_tensor(_unwrap(input))
    axis, keep_dims = _unwrap(axis), bool(_unwrap(keep_dims))
    scalar = not isinstance(t.type, block_type)
    if not scalar and len(S._shape(t)) > 1 and axis is not None:
        if return_indices:
            return S.reduce_arg(kind, t, axis, keep_dims, tie_break_left)
        return S.reduce_named(kind, t, axis, keep_dims, dtype_)
    if axis is not None:
        a = S._static_int(axis, name + " axis")
        if a not in (0, -1):
            raise SemanticError("%s: axis %d is out of range for a %s" % (
                name, a, "per-thread value (axis 0 or None)" if scalar else "1-D tile"))
    shape = [] if scalar else S._shape(t)
    if len(shape) > 1:
        n = 1
        for s in shape:
            n *= s
        t = S.reshape(t, [n])
    ety = t.dtype
    if ety.is_bool():
        t, ety = S.cast(t, core.int8), core.int8
    if kind == "max":  # TXL: bf16/fp16 and narrow integers are compared in 32 bits
        if ety.primitive_bitwidth < 32:
            ety = core.float32 if ety.is_floating() else core.int32
            t = S.cast(t, ety)
        out = ety
    else:
        out = S.sum_dtype(ety, _unwrap(dtype_))
        ety = core.float32 if out.is_floating() and out.primitive_bitwidth < 32 else out
        t = S.cast(t, ety)
    if not scalar:
        t = _cta_share(t, kind)
    if return_indices:
        if scalar:
            raise SemanticError("%s(return_indices=True) needs a tile (indices of its elements), got a per-thread "
                                "value" % name)
        n = S._shape(t)[0]
        idx = tensor(S._b().insert(ods.txl.make_range(result=block_type(core.int32, [n]), start=0, end=n)).result, block_type(core.int32, [n]))
        op = S._b().insert(ods.txl.warp_reduce([t.handle, idx.handle], results=[ety, core.int32],
                                               combineOp=_arg_combiner(ety, tie_break_left)))
        vals, inds = tensor(op.results[0], ety), tensor(op.results[1], core.int32)
        if keep_dims:
            vals, inds = S.splat(vals, [1] * max(1, len(shape))), S.splat(inds, [1] * max(1, len(shape)))
        return vals, inds
    op = S._b().insert(ods.txl.warp_reduce([t.handle], results=[ety], combineOp=_combiner(kind, ety)))
    r = S.cast(tensor(op.result, ety), out)
    if keep_dims and shape:
        r = S.splat(r, [1] * len(shape))
    return r
