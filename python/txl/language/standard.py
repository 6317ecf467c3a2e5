"""The part of ``triton.language`` that attention and GEMM kernels use, with Triton's names and arguments, so that
``import txl.language as tl`` replaces ``import triton.language as tl``.

Constructs the txl dialect has no operation for (reshape/permute/split/join of register tiles, device-side
descriptor creation, atomics...) raise an ``UnsupportedError`` naming the construct and the alternative.
"""

import builtins

from ..ir import dialects as ods
from ..errors import SemanticError
from . import core
from . import semantic as S
from .core import block_type, builtin, constexpr, dtype, tensor, _shape_arg, _unwrap


# ---------------------------------------------------------------------------------------------------------------
# Program and tile creation
# ---------------------------------------------------------------------------------------------------------------
@builtin
def program_id(axis):
    from .txl_builtins import _grid_op
    return _grid_op("program_id", axis)


@builtin
def num_programs(axis):
    from .txl_builtins import _grid_op
    return _grid_op("num_programs", axis)


@builtin
def arange(start, end):
    start = S._static_int(start, "tl.arange start")
    end = S._static_int(end, "tl.arange end")
    if not 0 <= start < end:
        raise SemanticError("tl.arange(%d, %d) needs 0 <= start < end" % (start, end))
    n = end - start
    if n & (n - 1):
        raise SemanticError("tl.arange(%d, %d) has %d elements; tile sizes must be powers of two" % (start, end, n))
    ty = block_type(core.int32, [n])
    op = S._b().insert(ods.txl.make_range(result=ty, start=start, end=end))
    return tensor(op.result, ty)


def _dtype_arg(d, what):
    d = _unwrap(d)
    if not isinstance(d, dtype):
        raise SemanticError("%s takes a dtype such as tl.float32, got %r" % (what, d))
    return d


@builtin
def zeros(shape, dtype):
    return full(shape, 0, dtype)


@builtin
def zeros_like(input):
    t = S.to_tensor(input)
    return full(S._shape(t), 0, t.dtype)


@builtin
def full(shape, value, dtype):
    """A tile of ``shape`` filled with ``value``; for ``shape == ()`` (Triton's 0-d tensor) a scalar of ``dtype``:
    txl has no 0-d tiles, so ``acc = tl.zeros((), tl.float32)`` and ``acc += tl.sum(x)`` meet as scalars."""
    shape = _shape_arg([shape])
    d = _dtype_arg(dtype, "tl.full")
    v = _unwrap(value)
    if not shape:
        return S.to_tensor(v, d) if isinstance(v, (int, float, bool)) else S.cast(S.to_tensor(v), d)
    ty = block_type(d, shape)
    if isinstance(v, (int, float, bool)):
        return S.dense(v, ty)
    return S.splat(S.cast(S.to_tensor(v), d), shape)


@builtin
def cdiv(x, div):
    x, div = _unwrap(x), _unwrap(div)
    if isinstance(x, int) and isinstance(div, int):
        return constexpr(-(-x // div))
    tx, td = S.to_tensor(x), S.to_tensor(div)
    ety = S.result_dtype(tx.dtype, td.dtype, not isinstance(x, tensor), not isinstance(div, tensor))
    if not ety.is_int():
        raise SemanticError("tl.cdiv needs integers, got %s and %s" % (tx.dtype.name, td.dtype.name))
    tx, td = S.binary_broadcast(S.cast(tx, ety), S.cast(td, ety), "tl.cdiv")
    return S._binop("ceildivui" if ety.is_int_unsigned() else "ceildivsi", tx, td)


@builtin
def cast(input, dtype, fp_downcast_rounding=None, bitcast=False):
    return S.cast(input, _dtype_arg(dtype, "tl.cast"), bitcast=_unwrap(bitcast))


@builtin
def broadcast_to(input, *shape):
    return S.broadcast_to(input, _shape_arg(shape))


@builtin
def broadcast(input, other):
    a, b = S.binary_broadcast(S.to_tensor(input), S.to_tensor(other), "tl.broadcast")
    return a, b


@builtin
def expand_dims(input, axis):
    axes = _unwrap(axis)
    t = S.to_tensor(input)
    for a in (axes if isinstance(axes, (list, tuple)) else [axes]):
        t = S.expand_dims(t, _unwrap(a))
    return t


# ---------------------------------------------------------------------------------------------------------------
# Memory
# ---------------------------------------------------------------------------------------------------------------
@builtin
def load(pointer, mask=None, other=None, boundary_check=(), padding_option="", cache_modifier="",
         eviction_policy="", volatile=False):
    return S.load(pointer, mask, other, boundary_check, padding_option, cache_modifier, eviction_policy, volatile)


@builtin
def store(pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy=""):
    S.store(pointer, value, mask, boundary_check, cache_modifier, eviction_policy)


@builtin
def make_block_ptr(base, shape, strides, offsets, block_shape, order):
    """A pointer to a ``block_shape`` block of the parent tensor at ``base`` (``shape``, ``strides``), starting at
    ``offsets``; ``order`` lists the dimensions from the fastest-varying in memory. ``tl.load(ptr,
    boundary_check=(0, 1), padding_option="zero")`` / ``tl.store(ptr, x, boundary_check=...)`` read and write the
    block, masking the elements outside ``[0, shape)`` on the checked dimensions; ``tl.advance`` moves it."""
    return S.make_block_ptr(base, shape, strides, offsets, block_shape, order)


@builtin
def advance(base, offsets):
    """The block pointer ``base`` moved by ``offsets`` (one per dimension, in elements)."""
    return S.advance(base, offsets)


@builtin
def atomic_add(pointer, val, mask=None, sem=None, scope=None):
    return S.atomic_rmw("add", pointer, val, mask, sem, scope)


@builtin
def atomic_max(pointer, val, mask=None, sem=None, scope=None):
    return S.atomic_rmw("max", pointer, val, mask, sem, scope)


@builtin
def atomic_min(pointer, val, mask=None, sem=None, scope=None):
    return S.atomic_rmw("min", pointer, val, mask, sem, scope)


@builtin
def atomic_and(pointer, val, mask=None, sem=None, scope=None):
    return S.atomic_rmw("and", pointer, val, mask, sem, scope)


@builtin
def atomic_or(pointer, val, mask=None, sem=None, scope=None):
    return S.atomic_rmw("or", pointer, val, mask, sem, scope)


@builtin
def atomic_xor(pointer, val, mask=None, sem=None, scope=None):
    return S.atomic_rmw("xor", pointer, val, mask, sem, scope)


@builtin
def atomic_xchg(pointer, val, mask=None, sem=None, scope=None):
    return S.atomic_rmw("xchg", pointer, val, mask, sem, scope)


@builtin
def atomic_cas(pointer, cmp, val, sem=None, scope=None):
    return S.atomic_cas(pointer, cmp, val, sem, scope)


@builtin
def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero"):
    return S.make_tensor_descriptor(base, shape, strides, block_shape, padding_option)


@builtin
def dot(input, other, acc=None, input_precision=None, allow_tf32=None, max_num_imprecise_acc=None,
        out_dtype=core.float32):
    """wgmma: ``input`` a shared-memory buffer or a register tile, ``other`` a shared-memory buffer (``k.T`` for a
    transposed view). Asynchronous when a txl.dot_wait follows it in the same block, else synchronous. fp32 (and
    fp64) register tiles are multiplied on the CUDA cores, as Triton's FMA dot, for every ``input_precision``."""
    return S.dot(input, other, acc, _unwrap(out_dtype))


@builtin
def trans(input, *dims):
    return S.trans(input, *dims)


@builtin
def permute(input, *dims):
    return S.trans(input, *dims)


@builtin
def reshape(input, *shape, can_reorder=False):
    t = _unwrap(input)
    if isinstance(t, tensor) and isinstance(t.type, core.smem_type):
        from .txl_builtins import smem_reshape
        return smem_reshape(t, _shape_arg(shape))
    return S.reshape(t, _shape_arg(shape))


@builtin
def view(input, *shape):
    return S.reshape(input, _shape_arg(shape))


@builtin
def split(a):
    return S.split(a)


@builtin
def join(a, b):
    return S.join(a, b)


@builtin
def interleave(a, b):
    return S.interleave(a, b)


@builtin
def cat(input, other, can_reorder=False):
    # Triton allows any order (can_reorder); txl keeps input's elements first, then other's.
    return S.cat(input, other)






# ---------------------------------------------------------------------------------------------------------------
# Elementwise math
# ---------------------------------------------------------------------------------------------------------------
@builtin
def where(condition, x, y):
    return S.where(condition, x, y)


@builtin
def maximum(x, y, propagate_nan=None):
    return S.minmax("max", x, y, propagate_nan)


@builtin
def minimum(x, y, propagate_nan=None):
    return S.minmax("min", x, y, propagate_nan)


@builtin
def clamp(x, min, max, propagate_nan=None):
    return S.minmax("min", S.minmax("max", x, min), max)


def _math(name):
    def fn(x):
        return S.math_unary(name, x, triton_rule=name)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = ("Elementwise math.%s of fp32 values, as Triton 3.6 (which refuses bf16/fp16 and integer tiles: "
                  "convert them with .to(tl.float32))." % name)
    return builtin(fn)


exp = _math("exp")
exp2 = _math("exp2")
log = _math("log")
log2 = _math("log2")
sqrt = _math("sqrt")
rsqrt = _math("rsqrt")
sin = _math("sin")
cos = _math("cos")
floor = _math("floor")
ceil = _math("ceil")


@builtin
def erf(x):
    """The error function: CUDA libdevice's erf (linked from libdevice.10.bc; fp16/bf16 compute in fp32)."""
    # Triton 3.6 takes fp32 / fp64 only here; txl also takes fp16 / bf16 (libdevice's erff in fp32, rounded back),
    # which test_libdevice.py relies on: more than Triton accepts, never less.
    from .extra.cuda import libdevice
    return libdevice.erf(x)


@builtin
def debug_barrier():
    """Every thread of the block waits for all the others (Triton's __syncthreads: bar.sync 0 over the block)."""
    ctx = S.current()
    S._b().insert(ods.txl.bar_wait(bar=0, numThreads=32 * ctx.num_warps * ctx.num_warpgroups))


@builtin
def abs(x):
    return S.abs_(x)


@builtin
def fma(x, y, z):
    return S.fma(x, y, z)


@builtin
def sigmoid(x):
    S.check_triton_math_dtypes("sigmoid", x)  # Triton's 1 / (1 + exp(-x)): its tl.exp takes fp32 / fp64 only
    t = S.to_tensor(x)
    return S.binary("/", 1.0, S.binary("+", 1.0, S.math_unary("exp", S.neg(t))))


@builtin
def fdiv(x, y, ieee_rounding=False):
    return S.binary("/", x, y, ieee_div=bool(_unwrap(ieee_rounding)))


@builtin
def div_rn(x, y):
    S.check_triton_math_dtypes("div_rn", x, y)
    return S.binary("/", x, y, ieee_div=True)


# ---------------------------------------------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------------------------------------------
def _reduce_input(what, input, axis):
    """tl.max(0, x) / tl.min(a, b): two values where a tile and an axis belong (tl.max reduces one tile)."""
    t, ax = _unwrap(input), _unwrap(axis)
    if isinstance(t, tensor) and not isinstance(t.type, dtype):
        if not isinstance(ax, tensor):
            return  # a tile (or a buffer, refused by the reduction itself)
        desc = "a tile"
    elif isinstance(t, tensor):
        desc = "the scalar %s" % t.type
    else:
        desc = "the number %r" % (t,)
    raise SemanticError("tl.%s reduces a tile along an axis (tl.%s(input, axis)); here input is %s%s"
                        % (what, what, desc, " and axis a run-time value" if isinstance(ax, tensor) else ""),
                        "for the elementwise %simum of two values write tl.%simum(a, b)" % (what, what))


def _minmax_reduce(kind, input, axis, return_indices, tie_break_left, keep_dims):
    """tl.max / tl.min with Triton 3.6's dtypes: bfloat16 is reduced in float32 (the hardware has no bf16 max), and
    without indices every type narrower than 32 bits widens (floats to float32, integers and booleans to int32).
    So tl.max of a bf16 tile is an fp32 scalar, as in Triton: ``x - tl.max(x)`` is then fp32."""
    _reduce_input(kind, input, axis)
    t = S.to_tensor(input)
    if isinstance(t.type, block_type) and not t.dtype.is_ptr():
        if t.dtype == core.bfloat16:
            t = S.cast(t, core.float32)
        if not _unwrap(return_indices) and t.dtype.primitive_bitwidth < 32:
            t = S.cast(t, core.float32 if t.dtype.is_floating() else core.int32)
    if _unwrap(return_indices):
        return S.reduce_arg(kind, t, _unwrap(axis), _unwrap(keep_dims), _unwrap(tie_break_left))
    return S.reduce_named(kind, t, _unwrap(axis), _unwrap(keep_dims))


@builtin
def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    return _minmax_reduce("max", input, axis, return_indices, return_indices_tie_break_left, keep_dims)


@builtin
def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    return _minmax_reduce("min", input, axis, return_indices, return_indices_tie_break_left, keep_dims)


@builtin
def sum(input, axis=None, keep_dims=False, dtype=None):
    """The sum along ``axis`` (all axes when None), with Triton 3.6's dtype: ``dtype`` when given, (u)int32 for
    integers narrower than 32 bits, else the input's (a bf16 sum is bf16; txl accumulates it in fp32)."""
    return S.reduce_named("sum", input, _unwrap(axis), _unwrap(keep_dims), _unwrap(dtype))


@builtin
def argmax(input, axis, tie_break_left=True, keep_dims=False):
    return _minmax_reduce("max", input, axis, True, tie_break_left, keep_dims)[1]


@builtin
def argmin(input, axis, tie_break_left=True, keep_dims=False):
    return _minmax_reduce("min", input, axis, True, tie_break_left, keep_dims)[1]




# ---------------------------------------------------------------------------------------------------------------
# Hints and compile-time helpers
# ---------------------------------------------------------------------------------------------------------------
@builtin
def multiple_of(input, values):
    """A divisibility hint; txl's compiler does not use it, so the value passes through unchanged."""
    return input


@builtin
def max_contiguous(input, values):
    """A contiguity hint; passes the value through unchanged."""
    return input


@builtin
def max_constancy(input, values):
    return input


@builtin
def assume(cond):
    return None


@builtin
def static_assert(cond, msg=""):
    c = _unwrap(cond)
    if isinstance(c, tensor):
        raise SemanticError("tl.static_assert needs a compile-time condition, got a run-time value",
                            "compare constexprs only (e.g. tl.static_assert(BLOCK_M % 64 == 0))")
    if not c:
        raise SemanticError("static_assert failed" + (": " + str(_unwrap(msg)) if _unwrap(msg) else ""))


@builtin
def static_print(*values, sep=" ", end="\n", file=None, flush=False):
    import builtins
    builtins.print(*[_unwrap(v) for v in values], sep=sep, end=end, flush=flush)


@builtin
def device_print(prefix, *args, hex=False):
    """Triton's device printf: every thread prints ``pid (x, y, z) [idx (...)] <prefix><value>`` for each value
    it holds (vprintf; the output appears when the kernel finishes)."""
    from .txl_builtins import print as txl_print
    return txl_print(prefix, list(args), hex=hex)


@builtin
def device_assert(cond, msg="", mask=None):
    """Triton's device assertion: in a kernel compiled with debug (``@txl.jit(debug=True)`` or TRITON_DEBUG=1 /
    TXL_DEBUG=1 in the environment), a thread holding a false element of ``cond`` (where ``mask`` is true) prints
    ``file:line: function: block: [..], thread: [..] Assertion `msg` failed.`` and stops the kernel (the host sees
    cudaErrorAssert); without debug it compiles to nothing."""
    cond = S.to_tensor(_unwrap(cond))
    if _unwrap(mask) is not None:
        cond = S.binary("|", cond, S.binary("==", S.to_tensor(_unwrap(mask)), 0))
    return S.device_assert(cond, _unwrap(msg))


# ---------------------------------------------------------------------------------------------------------------
# More of triton.language (3.6): arithmetic helpers, softmax, ravel, swizzle2d, descriptor functions
# ---------------------------------------------------------------------------------------------------------------
class PropagateNan:
    """tl.maximum / tl.minimum / tl.clamp's ``propagate_nan``: ``NONE`` (max.f32: the non-NaN operand wins) or
    ``ALL`` (a NaN operand makes the result NaN)."""

    class _Mode:
        def __init__(self, name):
            self.name = name

        def __repr__(self):
            return "PropagateNan." + self.name

        __str__ = __repr__

    NONE = _Mode("NONE")
    ALL = _Mode("ALL")


TRITON_MAX_TENSOR_NUMEL = core.MAX_TILE_NUMEL


@builtin
def add(x, y, sanitize_overflow=True):
    """x + y (Triton's sanitize_overflow only matters with its sanitizer; accepted)."""
    return S.binary("+", x, y)


@builtin
def sub(x, y, sanitize_overflow=True):
    return S.binary("-", x, y)


@builtin
def mul(x, y, sanitize_overflow=True):
    return S.binary("*", x, y)


@builtin
def sqrt_rn(x):
    """The IEEE square root (sqrt.rn) of fp32 values (Triton's rule). txl's tl.sqrt is the IEEE one too."""
    return S.math_unary("sqrt", x, triton_rule="sqrt_rn")


@builtin
def umulhi(x, y):
    """The high 32 bits of the 64-bit product of two 32-bit integers, read as unsigned (mul.hi.u32)."""
    return S.mulhi(x, y, unsigned=True, what="tl.umulhi")


@builtin
def softmax(x, dim=None, keep_dims=False, ieee_rounding=False):
    """exp(x - max) / sum(exp(x - max)) along ``dim`` (0 when None), as Triton's tl.softmax: the max widens 16-bit
    floats to fp32 (tl.max's rule), so a bf16 tile's softmax is fp32."""
    d = 0 if _unwrap(dim) is None else _unwrap(dim)
    kd = _unwrap(keep_dims)
    t = S.to_tensor(x)
    z = S.binary("-", t, _minmax_reduce("max", t, d, False, True, kd))
    num = S.math_unary("exp", z, triton_rule="exp")
    return S.binary("/", num, S.reduce_named("sum", num, d, kd), ieee_div=bool(_unwrap(ieee_rounding)))


@builtin
def ravel(x, can_reorder=False):
    """The tile as 1-D (row-major)."""
    t = S.to_tensor(x)
    if not isinstance(t.type, block_type):
        raise SemanticError("tl.ravel takes a tile, got %s" % t.type)
    return S.reshape(t, [t.type.numel])


def _int_arith(op, a, b):
    a, b = _unwrap(a), _unwrap(b)
    if isinstance(a, int) and isinstance(b, int) and (b != 0 or op not in ("//", "%")):
        q = builtins.abs(a) // builtins.abs(b) * (1 if (a >= 0) == (b >= 0) else -1) if b else 0  # C division
        return {"+": a + b, "-": a - b, "*": a * b, "//": q, "%": a - b * q}[op]
    return S.binary(op, a, b)


@builtin
def swizzle2d(i, j, size_i, size_j, size_g):
    """Renumbers the (i, j) indices of a row-major size_i x size_j grid so that groups of ``size_g`` rows are
    walked column by column (Triton's tile grouping for L2 reuse). Returns (new_i, new_j)."""
    ij = _int_arith("+", _int_arith("*", i, size_j), j)
    size_gj = _int_arith("*", size_g, size_j)
    off_i = _int_arith("*", _int_arith("//", ij, size_gj), size_g)
    rest = _int_arith("-", size_i, off_i)
    if isinstance(rest, int) and isinstance(_unwrap(size_g), int):
        group = builtins.min(rest, _unwrap(size_g))
    else:
        group = S.minmax("min", rest, size_g)
    ij = _int_arith("%", ij, size_gj)
    return _int_arith("+", off_i, _int_arith("%", ij, group)), _int_arith("//", ij, group)


@builtin
def load_tensor_descriptor(desc, offsets):
    """desc.load(offsets)."""
    return S.desc_load(desc, offsets)


@builtin
def store_tensor_descriptor(desc, offsets, value):
    """desc.store(offsets, value)."""
    return S.desc_store(desc, offsets, value)


@builtin
def uint_to_uniform_float(x):
    """A random 32- or 64-bit integer tile to floats uniform in [0, 1) (Triton's mapping, bit for bit)."""
    t = S.to_tensor(x)
    if t.dtype.is_floating() or t.dtype.is_bool() or t.dtype.primitive_bitwidth not in (32, 64) \
            or t.dtype.is_ptr():
        raise SemanticError("tl.uint_to_uniform_float takes 32- or 64-bit integers, got %s" % t.dtype.name)
    if t.dtype.primitive_bitwidth == 32:
        t, scale = S.cast(t, core.int32, bitcast=True), 4.6566127342e-10
    else:
        t, scale = S.cast(t, core.int64, bitcast=True), 1.0842020432385337e-19
    t = S.where(S.binary("<", t, 0), S.binary("-", S.neg(t), 1), t)
    return S.binary("*", t, scale)



@builtin
def reduce(input, axis, combine_fn, keep_dims=False):
    """Reduces ``input`` (a tile, or a tuple of tiles of one shape) along ``axis`` (all axes when None) with the
    @txl.jit ``combine_fn(a, b)`` (for tuples: ``combine_fn(a0, a1, ..., b0, b1, ...)`` returning a tuple). The
    order of combination is the lowering's (registers, then lanes, then warps): the function must be associative
    and commutative, as in Triton."""
    return S.reduce_fn(input, _unwrap(axis), combine_fn, _unwrap(keep_dims))


@builtin
def associative_scan(input, axis, combine_fn, reverse=False):
    """The inclusive scan of ``input`` (a tile, or a tuple of tiles of one shape) along ``axis`` with the @txl.jit
    ``combine_fn(a, b)`` (a: the earlier elements' combination, b: the later ones'; tuples as tl.reduce), in order,
    or with ``reverse`` from the end (the scan of the reversed tile, reversed, as in Triton). The function must be
    associative; it need not be commutative."""
    return S.scan_fn(input, _unwrap(axis), combine_fn, _unwrap(reverse))


def _log2(i):
    """floor(log2(i)) of a compile-time integer (Triton's triton.language.standard._log2, which fla reads as
    tl.standard._log2)."""
    i = int(_unwrap(i))
    n = 0
    while i > 1:
        i >>= 1
        n += 1
    return n


def _is_power_of_two(i):
    i = int(_unwrap(i))
    return (i & (i - 1)) == 0 and i != 0


@builtin
def sort(x, dim=None, descending=False):
    """``x`` sorted along ``dim`` (the last dimension when None), ascending or ``descending``: a bitonic network
    in registers, lanes and (when the warps split the dimension) shared memory. Integers compare signed (unsigned
    ones are sorted as the next wider signed type), floats by ``<``."""
    return S.sort_or_flip("sort", x, _unwrap(dim), bool(_unwrap(descending)))


@builtin
def topk(x, k, dim=None):
    """The ``k`` largest elements of ``x`` along ``dim`` (the last dimension when None), in descending order (k a
    power of two)."""
    return S.topk(x, _unwrap(k), _unwrap(dim))


@builtin
def flip(x, dim=None):
    """``x`` reversed along ``dim`` (the last dimension when None)."""
    return S.sort_or_flip("flip", x, _unwrap(dim))


@builtin
def cumsum(input, axis=0, reverse=False, dtype=None):
    """The running sum along ``axis`` (Triton's dtype rules: bfloat16 sums in float32, integers narrower than 32
    bits in (u)int32, unless ``dtype`` is given)."""
    return S.scan_named("sum", input, _unwrap(axis), _unwrap(reverse), _unwrap(dtype))


@builtin
def cumprod(input, axis=0, reverse=False):
    """The running product along ``axis`` (bfloat16 multiplies in float32)."""
    return S.scan_named("prod", input, _unwrap(axis), _unwrap(reverse))


def _int_reduce(kind, what, input, axis, keep_dims):
    t = S.to_tensor(input)
    if not isinstance(t.type, block_type):
        raise SemanticError("%s reduces a tile, got the scalar %s" % (what, t.type))
    if not t.dtype.is_int():
        raise SemanticError("%s needs integers, got %s" % (what, t.dtype.name), "convert with .to(tl.int32)")
    if t.dtype.is_bool():
        return S.cast(S.reduce_named(kind, S.cast(t, core.int8), _unwrap(axis), _unwrap(keep_dims)), core.int1)
    return S.reduce_named(kind, t, _unwrap(axis), _unwrap(keep_dims))


@builtin
def xor_sum(input, axis=None, keep_dims=False):
    """The bitwise xor of the elements along ``axis`` (integers)."""
    return _int_reduce("xor", "tl.xor_sum", input, axis, keep_dims)


@builtin
def reduce_or(input, axis, keep_dims=False):
    """The bitwise or of the elements along ``axis`` (integers and booleans)."""
    return _int_reduce("or", "tl.reduce_or", input, axis, keep_dims)
