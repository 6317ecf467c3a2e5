"""Reductions and scans: ``tl.sum`` / ``tl.max`` / ``tl.argmax``..., ``tl.reduce`` and ``tl.associative_scan`` with
a @txl.jit combine function, ``tl.cumsum`` / ``tl.cumprod``, and ``unsplat`` (a one-element tile to a scalar)."""

from ... import ir
from ...ir import dialects as ods
from ...errors import SemanticError
from .. import core
from ..core import block_type, dtype, is_jit_function, tensor, _unwrap
from .context import unsupported, _b, _ctx
from .values import to_tensor, _static_int
from .broadcast import broadcast_to, expand_dims, splat, _shape
from .arith import cast


# ----------------------------------------------------------------------------------------------------------------
# Reductions
# ----------------------------------------------------------------------------------------------------------------
def _combine_name(kind, ety):
    if kind in ("or", "xor", "and"):
        return kind + "i"
    if kind == "sum":
        return "addf" if ety.is_floating() else "addi"
    if kind == "prod":
        return "mulf" if ety.is_floating() else "muli"
    if ety.is_floating():
        return "%snumf" % kind
    return kind + ("ui" if ety.is_int_unsigned() else "si")


def _reduction_axis(axis, rank):
    """A static axis of a rank-``rank`` tile, negative ones counted from the end."""
    axis = _static_int(axis, "reduction axis")
    if axis < 0:
        axis += rank
    if not 0 <= axis < rank:
        raise SemanticError("axis %d is out of range for a %d-D tensor" % (axis, rank))
    return axis


def sum_dtype(ety, dtype_=None):
    """The dtype tl.sum / tl.cumsum return (Triton 3.6's _pick_sum_dtype): ``dtype`` when given, (u)int32 for
    integers narrower than 32 bits (booleans count as unsigned, as in Triton), else the input's dtype (a bf16 sum
    is bf16)."""
    if dtype_ is not None:
        return dtype_
    if ety.is_int() and ety.primitive_bitwidth < 32:
        return core.uint32 if ety.is_int_unsigned() or ety.is_bool() else core.int32
    return ety


def reduce_named(kind, t, axis=None, keep_dims=False, dtype_=None):
    """tl.max / tl.min / tl.sum along ``axis`` (all axes when None). max and min reduce in the input's dtype (the
    callers promote as Triton does); sum returns ``sum_dtype``, accumulating a 16-bit float result in fp32 and
    rounding once at the end (Triton adds in the 16-bit type: same dtype, a result at least as exact)."""
    t = to_tensor(t)
    if not isinstance(t.type, block_type):
        raise SemanticError("tl.%s reduces a tile, got the scalar %s" % (kind, t.type))
    if kind != "sum":
        return _reduce_axes(kind, t, axis, keep_dims)
    out = sum_dtype(t.dtype, dtype_)
    acc = core.float32 if out.is_floating() and out.primitive_bitwidth < 32 else out
    return cast(_reduce_axes(kind, cast(t, acc), axis, keep_dims), out)


def _reduce_axes(kind, t, axis, keep_dims):
    """One txl.reduce with an arith combiner along ``axis``; along every axis (innermost first, so a 2-D tile
    becomes a row, then a scalar) when it is None."""
    shape = _shape(t)
    if axis is None:
        r = t
        for _ in range(len(shape)):
            r = _reduce_axes(kind, r, len(_shape(r)) - 1, False)
        if keep_dims:
            r = splat(r, [1] * len(shape))
        return r
    axis = _reduction_axis(axis, len(shape))
    ety = t.dtype
    out_shape = shape[:axis] + shape[axis + 1:]
    rt = block_type(ety, out_shape) if out_shape else ety
    body = ir.Block([ety, ety], ["x", "y"])
    comb = getattr(ods.arith, _combine_name(kind, ety))(*body.args, result=ety)
    body.ops = [comb, ods.txl.reduce_return([comb.result])]
    op = _b().insert(ods.txl.reduce([t.handle], results=[rt], axis=axis, combineOp=ir.Region([body])))
    r = tensor(op.result, rt)
    if keep_dims:
        r = expand_dims(r, axis)
    return r


def unsplat(t, what="tl.reshape"):
    """The element of a one-element tile as a scalar (Triton's unsplat: ``x.item()``, a reshape to ``()``). A
    1-element reduction along every axis: it combines nothing, so the value is the element itself."""
    t = to_tensor(t)
    if isinstance(t.type, dtype):
        return t
    if not isinstance(t.type, block_type) or t.type.numel != 1:
        raise SemanticError("%s needs a tile of one element to make a scalar of, got %s" % (what, t.type),
                            "reduce it first (tl.sum / tl.max), or keep it a tile")
    if t.dtype.is_ptr():
        unsupported("%s of a tile of pointers" % what, "keep the pointer a scalar, or use a 1-element tile")
    work = core.int8 if t.dtype.is_bool() else t.dtype  # i1 registers do not cross lanes
    return cast(_reduce_axes("max", cast(t, work), None, False), t.dtype)


def reduce_arg(kind, t, axis, keep_dims=False, tie_break_left=True):
    """(max or min, its index) along ``axis``: one txl.reduce over (values, indices) whose combiner keeps the
    better value and, between equal values, the smaller index (the larger with tie_break_left=False), so the
    result does not depend on the order the lowering combines registers, lanes and warps in."""
    t = to_tensor(t)
    if not isinstance(t.type, block_type):
        raise SemanticError("tl.arg%s reduces a tile, got the scalar %s" % (kind, t.type))
    shape = _shape(t)
    if axis is None:
        if len(shape) != 1:
            raise SemanticError("tl.arg%s of a %d-D tile needs an axis" % (kind, len(shape)),
                                "pass axis=..., or reshape the tile to 1-D first")
        axis = 0
    axis = _reduction_axis(axis, len(shape))
    ety = t.dtype
    if ety.is_bool():
        t, ety = cast(t, core.int8), core.int8
    rty = block_type(core.int32, [shape[axis]])
    rng = tensor(_b().insert(ods.txl.make_range(result=rty, start=0, end=shape[axis])).result, rty)
    idx = rng
    for d in range(len(shape)):
        if d != axis:
            idx = expand_dims(idx, d)
    idx = broadcast_to(idx, shape)
    out_shape = shape[:axis] + shape[axis + 1:]
    vt = block_type(ety, out_shape) if out_shape else ety
    it = block_type(core.int32, out_shape) if out_shape else core.int32
    body = ir.Block([ety, core.int32, ety, core.int32], ["x0", "i0", "x1", "i1"])
    x0, i0, x1, i1 = body.args
    if ety.is_floating():
        better = ods.arith.cmpf(x1, x0, result=core.int1, predicate="ogt" if kind == "max" else "olt")
        equal = ods.arith.cmpf(x1, x0, result=core.int1, predicate="oeq")
    else:
        sign = "u" if ety.is_int_unsigned() else "s"
        better = ods.arith.cmpi(x1, x0, result=core.int1, predicate=sign + ("gt" if kind == "max" else "lt"))
        equal = ods.arith.cmpi(x1, x0, result=core.int1, predicate="eq")
    first = ods.arith.cmpi(i1, i0, result=core.int1, predicate="slt" if tie_break_left else "sgt")
    tie = ods.arith.andi(equal.result, first.result, result=core.int1)
    take = ods.arith.ori(better.result, tie.result, result=core.int1)
    xs = ods.arith.select(take.result, x1, x0, result=ety)
    ix = ods.arith.select(take.result, i1, i0, result=core.int32)
    ret = ods.txl.reduce_return([xs.result, ix.result])
    body.ops = [better, equal, first, tie, take, xs, ix, ret]
    op = _b().insert(ods.txl.reduce([t.handle, idx.handle], results=[vt, it], axis=axis,
                                    combineOp=ir.Region([body])))
    vals, inds = tensor(op.results[0], vt), tensor(op.results[1], it)
    if keep_dims:
        vals, inds = expand_dims(vals, axis), expand_dims(inds, axis)
    return vals, inds


# ----------------------------------------------------------------------------------------------------------------
# Combine functions: tl.reduce and tl.associative_scan
# ----------------------------------------------------------------------------------------------------------------
def _combine_inputs(what, inputs, combine_fn):
    """The @txl.jit combine function and the tiles (one, or a tuple of one shape) of tl.reduce / tl.associative_scan;
    booleans become int8 (i1 registers do not cross lanes)."""
    fn = _unwrap(combine_fn)
    if not is_jit_function(fn):
        raise SemanticError("%s needs a @txl.jit combine function, got %r" % (what, fn),
                            "decorate the combine function with @txl.jit")
    single = not isinstance(_unwrap(inputs), (tuple, list))
    ts = [to_tensor(t) for t in ([inputs] if single else _unwrap(inputs))]
    for t in ts:
        if not isinstance(t.type, block_type):
            raise SemanticError("%s works on tiles, got %s" % (what, t.type))
    shape = _shape(ts[0])
    if any(_shape(t) != shape for t in ts):
        raise SemanticError("%s: the tiles combined together need one shape, got %s"
                            % (what, ", ".join(str(_shape(t)) for t in ts)))
    return fn, single, ts, shape


def _combine_region(what, fn, etys):
    """The combiner region of a txl.reduce / txl.scan: the @txl.jit ``fn`` inlined on scalar block arguments (the
    earlier values, then the later ones), ending in txl.reduce_return of one value per operand."""
    n = len(etys)
    body = ir.Block(etys + etys, ["a%d" % i for i in range(n)] + ["b%d" % i for i in range(n)])
    args = [tensor(v, ety) for v, ety in zip(body.args, etys + etys)]
    ctx = _ctx()
    b = ctx.builder
    saved = (b.block, b.entry, b.hoisted, b._const_cache)
    # The combiner is self-contained: its constants are created in its own block, not hoisted to the kernel's.
    b.block, b.entry, b.hoisted, b._const_cache = body, body, [], {}
    try:
        gen = ctx.codegen
        ret = gen.call_jit(gen.cur_call, fn, args, {})
        hoisted = b.hoisted
    finally:
        b.block, b.entry, b.hoisted, b._const_cache = saved
    rets = list(_unwrap(ret)) if isinstance(_unwrap(ret), (tuple, list)) else [ret]
    if len(rets) != n:
        raise SemanticError("%s: the combine function %s returns %d value%s for %d tile%s"
                            % (what, fn.__name__, len(rets), "" if len(rets) == 1 else "s", n, "" if n == 1 else "s"))
    rets = [cast(to_tensor(r, ety), ety) for r, ety in zip(rets, etys)]
    for r in rets:
        if not isinstance(r.type, dtype):
            raise SemanticError("%s: the combine function must return scalars, got %s" % (what, r.type))
    for op in hoisted:
        op.block = body
    body.ops = hoisted + body.ops
    body.ops.append(ods.txl.reduce_return([r.handle for r in rets]))
    return ir.Region([body])


def reduce_fn(inputs, axis, combine_fn, keep_dims=False, what="tl.reduce"):
    """tl.reduce(input, axis, combine_fn): one txl.reduce whose combiner region is the @txl.jit ``combine_fn``
    inlined on scalar block arguments (the running values, then the new ones); ``inputs`` may be a tuple of
    tiles of one shape, reduced together (combine_fn then takes and returns tuples' elements)."""
    fn, single, ts, shape = _combine_inputs(what, inputs, combine_fn)
    if axis is None:
        r = ts
        for _ in range(len(shape)):
            r = reduce_fn(tuple(r), len(_shape(r[0])) - 1, fn, False, what)
            r = list(r)
        if keep_dims:
            r = [splat(x, [1] * len(shape)) for x in r]
        return r[0] if single else tuple(r)
    axis = _reduction_axis(axis, len(shape))
    ts = [cast(t, core.int8) if t.dtype.is_bool() else t for t in ts]  # i1 registers do not cross lanes
    etys = [t.dtype for t in ts]
    region = _combine_region(what, fn, etys)
    out_shape = shape[:axis] + shape[axis + 1:]
    rts = [block_type(ety, out_shape) if out_shape else ety for ety in etys]
    op = _b().insert(ods.txl.reduce([t.handle for t in ts], results=rts, axis=axis, combineOp=region))
    outs = [tensor(v, rt) for v, rt in zip(op.results, rts)]
    if keep_dims:
        outs = [expand_dims(o, axis) for o in outs]
    return outs[0] if single else tuple(outs)


# ----------------------------------------------------------------------------------------------------------------
# Scans
# ----------------------------------------------------------------------------------------------------------------
def scan_named(kind, t, axis=0, reverse=False, dtype_=None):
    """tl.cumsum / tl.cumprod: one txl.scan with an add / mul combiner. As in Triton, bfloat16 is scanned in
    float32, and cumsum widens integers narrower than 32 bits to (u)int32 unless ``dtype`` says otherwise."""
    what = "tl.cum" + kind
    t = to_tensor(t)
    if not isinstance(t.type, block_type):
        raise SemanticError("%s scans a tile, got the scalar %s" % (what, t.type))
    ety = core.float32 if t.dtype == core.bfloat16 else t.dtype
    if kind == "sum":
        # Triton 3.6 counts booleans in uint32; txl refuses them below (test_scan.py pins that refusal for now).
        ety = sum_dtype(ety, dtype_) if not ety.is_bool() else ety
    if ety.is_bool():
        raise SemanticError("%s of booleans is not defined" % what, "convert first: x.to(tl.int32)")
    t = cast(t, ety)
    axis = _reduction_axis(axis, len(_shape(t)))
    body = ir.Block([ety, ety], ["x", "y"])
    comb = getattr(ods.arith, _combine_name(kind, ety))(*body.args, result=ety)
    body.ops = [comb, ods.txl.reduce_return([comb.result])]
    op = _b().insert(ods.txl.scan([t.handle], results=[t.type], axis=axis, reverse=bool(reverse),
                                  combineOp=ir.Region([body])))
    return tensor(op.result, t.type)


def scan_fn(inputs, axis, combine_fn, reverse=False, what="tl.associative_scan"):
    """tl.associative_scan(input, axis, combine_fn, reverse): one txl.scan (inclusive, in order along ``axis``)
    whose combiner region is the @txl.jit ``combine_fn``; results have the inputs' shapes and dtypes (booleans
    are scanned as int8, then compared with 0)."""
    fn, single, ts, shape = _combine_inputs(what, inputs, combine_fn)
    if axis is None:
        raise SemanticError("%s needs an axis (Triton's scans take one)" % what, "pass axis=0 for a 1-D tile")
    axis = _reduction_axis(axis, len(shape))
    bools = [t.dtype.is_bool() for t in ts]
    ts = [cast(t, core.int8) if t.dtype.is_bool() else t for t in ts]
    etys = [t.dtype for t in ts]
    region = _combine_region(what, fn, etys)
    rts = [t.type for t in ts]
    op = _b().insert(ods.txl.scan([t.handle for t in ts], results=rts, axis=axis, reverse=bool(reverse),
                                  combineOp=region))
    outs = [tensor(v, rt) for v, rt in zip(op.results, rts)]
    outs = [cast(o, core.int1) if b else o for o, b in zip(outs, bools)]
    return outs[0] if single else tuple(outs)
