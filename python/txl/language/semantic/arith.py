"""Elementwise operations: casts (``.to()``, pointers, fp8), binary and unary arithmetic with Triton's promotion, the
comparisons, ``tl.where``, min/max, the math functions (``tl.exp2``...) and device assertions."""

from ... import ir
from ...ir import dialects as ods
from ...errors import SemanticError, UnsupportedError
from .. import core
from ..core import block_type, dtype, mbar_type, smem_type, tensor, tensordesc_type, tmem_type, _unwrap
from .context import _b, _ctx
from .values import const_value, constant, dense, result_dtype, to_tensor
from .broadcast import binary_broadcast, broadcast_shapes, broadcast_to, _shape


# ----------------------------------------------------------------------------------------------------------------
# Casts
# ----------------------------------------------------------------------------------------------------------------
def _with_elem(t_type, elem):
    return block_type(elem, t_type.shape) if isinstance(t_type, block_type) else elem


def _unop(name, t, result_type, **attrs):
    """The one-operand, one-result op ``name`` (``arith.extf``, ``math.exp2``, ...) of ``t``."""
    op = _b().insert(ir.build_op(name, [t.handle], [result_type], attrs, []))
    return tensor(op.result, result_type)


def _address_cast(t, src, dst, rt):
    """Casts involving pointers, as Triton's: an int (sign-extended to 64 bits) to a pointer, a pointer to int64
    (or to bool: != 0), a pointer to a pointer of another element type (the same address)."""
    if src.is_ptr() and dst.is_ptr():
        return _address_cast(_address_cast(t, src, core.int64, _with_elem(t.type, core.int64)), core.int64, dst, rt)
    if src.is_ptr() and dst.is_bool():
        return compare("!=", _address_cast(t, src, core.int64, _with_elem(t.type, core.int64)), 0)
    if src.is_ptr() and dst.is_int() and dst.primitive_bitwidth == 64:
        return _unop("txl.ptr_to_int", t, rt)
    if dst.is_ptr() and src.is_int() and not src.is_bool():
        if src.primitive_bitwidth != 64 or src.is_int_unsigned():
            t = cast(t, core.int64)
        return _unop("txl.int_to_ptr", t, rt)
    raise SemanticError("cannot cast %s to %s: pointers convert to and from int64 (and to pointers of another "
                        "element type)" % (src, dst), "cast through tl.int64")


_FP8_CVT = ("fp8e4nv", "fp8e5")  # the formats PTX converts (cvt.*.e4m3x2 / e5m2x2): float8e4nv, float8e5


def _fp8_cast(t, src, dst, rt):
    """Tiles to and from fp8 e4m3 / e5m2: through f32 (cvt.rn.satfinite, as Triton rounds) and f16 (exact)."""
    if not isinstance(t.type, block_type) or any(d.is_fp8() and d.name not in _FP8_CVT for d in (src, dst)):
        raise UnsupportedError("converting %s values to %s is not supported yet: txl converts tiles between "
                               "float8e4nv / float8e5 and the float types" % (src.name, dst.name),
                               "convert on the host (torch: x.to(torch.float8_e4m3fn)), or bitcast with "
                               ".to(tl.uint8, bitcast=True) to move the bytes")
    if src.is_fp8() and dst.is_fp8():
        return cast(cast(t, core.float16), dst)
    if dst.is_fp8():
        if src != core.float32:
            t = cast(t, core.float32)
        return _unop("arith.truncf", t, rt)
    if dst in (core.float16, core.float32):
        return _unop("arith.extf", t, rt)
    return cast(_unop("arith.extf", t, _with_elem(t.type, core.float32)), dst)


def cast(t, dst, bitcast=False):
    t = to_tensor(t)
    dst = _unwrap(dst)
    if not isinstance(dst, dtype):
        raise SemanticError(".to() takes a dtype (tl.float32, tl.bfloat16, ...), got %r" % (dst,))
    src = t.dtype
    if not isinstance(t.type, (dtype, block_type)):
        raise SemanticError("cannot convert %s to %s" % (t.type, dst))
    if src == dst:
        return t
    rt = _with_elem(t.type, dst)
    if src.is_ptr() or dst.is_ptr():
        return _address_cast(t, src, dst, rt)
    if bitcast:
        if src.primitive_bitwidth != dst.primitive_bitwidth:
            raise SemanticError("bitcast needs types of one width, got %s and %s" % (src.name, dst.name))
        return _unop("arith.bitcast", t, rt)
    cv = const_value(t)
    if cv is not None and not isinstance(t.type, block_type):
        if dst.is_floating():
            return constant(float(cv), dst)
        if dst.is_bool():
            return constant(bool(cv), dst)
        return constant(int(cv), dst)
    if src.is_fp8() or dst.is_fp8():
        return _fp8_cast(t, src, dst, rt)
    if src.is_floating() and dst.is_floating():
        op = "extf" if dst.primitive_bitwidth > src.primitive_bitwidth else "truncf"
        if dst.primitive_bitwidth == src.primitive_bitwidth:  # fp16 <-> bf16 goes through f32
            return cast(cast(t, core.float32), dst)
        return _unop("arith." + op, t, rt)
    if src.is_int() and dst.is_floating():
        op = "uitofp" if (src.is_bool() or src.is_int_unsigned()) else "sitofp"
        return _unop("arith." + op, t, rt)
    if src.is_floating() and dst.is_int():
        if dst.is_bool():
            return compare("!=", t, to_tensor(0.0, src))
        op = "fptoui" if dst.is_int_unsigned() else "fptosi"
        return _unop("arith." + op, t, rt)
    # int -> int
    if dst.is_bool():
        return compare("!=", t, constant(0, src) if not isinstance(t.type, block_type) else dense(0, t.type))
    if dst.primitive_bitwidth > src.primitive_bitwidth:
        op = "extui" if (src.is_bool() or src.is_int_unsigned()) else "extsi"
        return _unop("arith." + op, t, rt)
    if dst.primitive_bitwidth < src.primitive_bitwidth:
        return _unop("arith.trunci" % (), t, rt)
    return tensor(t.handle, rt)  # same width, signedness differs: MLIR integers are signless


# ----------------------------------------------------------------------------------------------------------------
# Arithmetic
# ----------------------------------------------------------------------------------------------------------------
_FLOAT_OPS = {"+": "addf", "-": "subf", "*": "mulf", "/": "divf", "%": "remf"}


_INT_OPS = {"+": "addi", "-": "subi", "*": "muli", "&": "andi", "|": "ori", "^": "xori", "<<": "shli"}


_CMP_F = {"<": "olt", "<=": "ole", ">": "ogt", ">=": "oge", "==": "oeq", "!=": "une"}


_CMP_S = {"<": "slt", "<=": "sle", ">": "sgt", ">=": "sge", "==": "eq", "!=": "ne"}


_CMP_U = {"<": "ult", "<=": "ule", ">": "ugt", ">=": "uge", "==": "eq", "!=": "ne"}


_OP_NAMES = {"+": "`+`", "-": "`-`", "*": "`*`", "/": "`/`", "//": "`//`", "%": "`%`", "&": "`&`", "|": "`|`",
             "^": "`^`", "<<": "`<<`", ">>": "`>>`", "<": "`<`", "<=": "`<=`", ">": "`>`", ">=": "`>=`",
             "==": "`==`", "!=": "`!=`"}


def _check_value(t, opname):
    if isinstance(t.type, (smem_type, mbar_type, tensordesc_type)):
        kind = {smem_type: "a shared-memory buffer", tmem_type: "a tensor-memory buffer",
                mbar_type: "an mbarrier", tensordesc_type: "a TMA descriptor"}[type(t.type)]
        fix = None
        if isinstance(t.type, smem_type):
            fix = "load it into registers first with txl.smem_load(buf)"
        raise SemanticError("%s is %s, not a value %s can compute with" % (t.type, kind, opname), fix)


# Float +, -, * may contract into fma (Triton's default enable_fp_fusion=True): x * s - m is one instruction.
_CONTRACT = {"addf", "subf", "mulf"}


def _binop(name, a, b, result_type=None, ieee_div=False):
    rt = result_type or a.type
    flags = {"fastmath": "contract"} if name in _CONTRACT else {}
    if name == "divf" and not ieee_div:
        # Triton's `/` on floats is the approximate full-range division (div.full.f32, 2 ulp); tl.div_rn and
        # tl.fdiv(ieee_rounding=True) are the IEEE one.
        flags = {"fastmath": "afn"}
    op = _b().insert(getattr(ods.arith, name)(a.handle, b.handle, result=rt, **flags))
    return tensor(op.result, rt)


def binary(opname, a, b, ieee_div=False):
    """``a <op> b`` with Triton's promotion and broadcasting; ``opname`` is the Python operator (``/`` is
    correctly rounded only with ``ieee_div``)."""
    a_weak = not isinstance(_unwrap(a), tensor)
    b_weak = not isinstance(_unwrap(b), tensor)
    a, b = _unwrap(a), _unwrap(b)
    if opname in _CMP_S:
        return compare(opname, a, b)
    ta = a if isinstance(a, tensor) else to_tensor(a)
    tb = b if isinstance(b, tensor) else to_tensor(b)
    pretty = _OP_NAMES.get(opname, opname)
    _check_value(ta, pretty)
    _check_value(tb, pretty)
    # Pointer arithmetic.
    if ta.dtype.is_ptr() or tb.dtype.is_ptr():
        if opname == "+" and tb.dtype.is_ptr() and not ta.dtype.is_ptr():
            ta, tb = tb, ta
        if ta.dtype.is_ptr() and not tb.dtype.is_ptr() and opname in ("+", "-"):
            if not tb.dtype.is_int():
                raise SemanticError("pointer offsets must be integers, got %s" % tb.dtype.name,
                                    "convert the offset with .to(tl.int32)")
            if opname == "-":
                tb = neg(tb)
            return addptr(ta, tb, pretty)
        raise SemanticError("%s is not defined between %s and %s" % (pretty, ta.type, tb.type),
                            "pointers support only `ptr + int` and `ptr - int`")
    ety = result_dtype(ta.dtype, tb.dtype, a_weak, b_weak)
    if opname == "/" and ety.is_int():
        ety = core.float32  # true division, as in Triton
    if opname in ("&", "|", "^", "<<", ">>") and ety.is_floating():
        raise SemanticError("%s needs integer operands, got %s and %s" % (pretty, ta.dtype.name, tb.dtype.name))
    if opname == "//" and ety.is_floating():
        raise SemanticError("`//` needs integer operands, got %s and %s" % (ta.dtype.name, tb.dtype.name),
                            "use `/` for floating-point division")
    ta, tb = binary_broadcast(ta, tb, pretty)
    ta, tb = cast(ta, ety), cast(tb, ety)
    # Fold scalar constants (keeps index arithmetic on constexpr-derived values readable).
    ca, cb = const_value(ta), const_value(tb)
    if ca is not None and cb is not None and not isinstance(ta.type, block_type):
        folded = _fold(opname, ca, cb, ety)
        if folded is not None:
            return constant(folded, ety)
    if ety.is_floating():
        return _binop(_FLOAT_OPS[opname], ta, tb, ieee_div=ieee_div)
    unsigned = ety.is_int_unsigned()
    if opname == "//":
        return _binop("divui" if unsigned else "divsi", ta, tb)
    if opname == "%":
        return _binop("remui" if unsigned else "remsi", ta, tb)
    if opname == ">>":
        return _binop("shrui" if unsigned else "shrsi", ta, tb)
    return _binop(_INT_OPS[opname], ta, tb)


def _fold(opname, x, y, ety):
    try:
        if ety.is_floating():
            r = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y, "/": lambda: x / y}.get(opname)
            return r() if r else None
        x, y = int(x), int(y)
        if opname in ("//", "%") and y == 0:
            return None
        if opname == "//":
            q = abs(x) // abs(y)
            return q if (x >= 0) == (y >= 0) else -q  # C truncation
        if opname == "%":
            return x - y * _fold("//", x, y, ety)
        r = {"+": x + y, "-": x - y, "*": x * y, "&": x & y, "|": x | y, "^": x ^ y}.get(opname)
        if r is None:
            return None
        bits = ety.primitive_bitwidth
        if not -2**(bits - 1) <= r < 2**(bits - 1):
            return None  # would wrap: leave it to the hardware semantics
        return r
    except (ArithmeticError, ValueError):
        return None


def compare(opname, a, b):
    a_weak = not isinstance(_unwrap(a), tensor)
    b_weak = not isinstance(_unwrap(b), tensor)
    ta, tb = to_tensor(a), to_tensor(b)
    pretty = _OP_NAMES[opname]
    _check_value(ta, pretty)
    _check_value(tb, pretty)
    ety = result_dtype(ta.dtype, tb.dtype, a_weak, b_weak)
    ta, tb = binary_broadcast(ta, tb, pretty)
    ta, tb = cast(ta, ety), cast(tb, ety)
    rt = _with_elem(ta.type, core.int1)
    if ety.is_floating():
        pred, name = _CMP_F[opname], "cmpf"
    else:
        pred, name = (_CMP_U if ety.is_int_unsigned() else _CMP_S)[opname], "cmpi"
    op = _b().insert(getattr(ods.arith, name)(ta.handle, tb.handle, result=rt, predicate=pred))
    return tensor(op.result, rt)


def neg(t):
    t = to_tensor(t)
    _check_value(t, "unary `-`")
    if t.dtype.is_floating():
        return _unop("arith.negf", t, t.type)
    zero = dense(0, t.type) if isinstance(t.type, block_type) else constant(0, t.dtype)
    return _binop("subi", zero, t)


def invert(t):
    t = to_tensor(t)
    if not t.dtype.is_int():
        raise SemanticError("`~` needs an integer or boolean operand, got %s" % t.dtype.name)
    ones = dense(-1 if not t.dtype.is_bool() else True, t.type) if isinstance(t.type, block_type) \
        else constant(-1 if not t.dtype.is_bool() else True, t.dtype)
    return _binop("xori", t, ones)


def logical_not(t):
    t = to_tensor(t)
    if t.role:
        raise SemanticError("`not txl.%s(...)` cannot be a warp-specialization condition" % t.role,
                            "list the other ids instead, e.g. `if txl.is_warpgroup([1, 2]):`, or use `else:`")
    return invert(cast(t, core.int1))


def logical(opname, a, b):
    """``a and b`` / ``a or b`` on run-time booleans (both sides are evaluated)."""
    for v in (a, b):
        if isinstance(v, tensor) and v.role:
            raise SemanticError("txl.%s(...) must be the whole condition of an `if` (the warpgroup "
                                "partitioning recognises `if txl.%s([...]):` only)" % (v.role, v.role),
                                "nest the two conditions: `if txl.%s([...]):` then `if other:` inside" % v.role)
    ta, tb = cast(to_tensor(a), core.int1), cast(to_tensor(b), core.int1)
    ta, tb = binary_broadcast(ta, tb, "`%s`" % opname)
    return _binop("andi" if opname == "and" else "ori", ta, tb)


def addptr(ptr, offset, opname="`+`"):
    ptr, offset = binary_broadcast(ptr, offset, opname)
    op = _b().insert(ods.txl.addptr(ptr.handle, offset.handle, result=ptr.type))
    return tensor(op.result, ptr.type)


def where(cond, x, y):
    cond = cast(to_tensor(cond), core.int1)
    x_weak = not isinstance(_unwrap(x), tensor)
    y_weak = not isinstance(_unwrap(y), tensor)
    tx, ty = to_tensor(x), to_tensor(y)
    if tx.dtype.is_ptr() or ty.dtype.is_ptr():
        ety = tx.dtype if tx.dtype.is_ptr() else ty.dtype
    else:
        ety = result_dtype(tx.dtype, ty.dtype, x_weak, y_weak)
    shape = broadcast_shapes(_shape(cond), broadcast_shapes(_shape(tx), _shape(ty), "tl.where"), "tl.where")
    if shape:
        cond, tx, ty = broadcast_to(cond, shape), broadcast_to(tx, shape), broadcast_to(ty, shape)
    tx, ty = cast(tx, ety), cast(ty, ety)
    op = _b().insert(ods.arith.select(cond.handle, tx.handle, ty.handle, result=tx.type))
    return tensor(op.result, tx.type)


def minmax(kind, a, b, propagate_nan=None):
    a_weak = not isinstance(_unwrap(a), tensor)
    b_weak = not isinstance(_unwrap(b), tensor)
    ta, tb = to_tensor(a), to_tensor(b)
    ety = result_dtype(ta.dtype, tb.dtype, a_weak, b_weak)
    ta, tb = binary_broadcast(ta, tb, "tl.%simum" % kind)
    ta, tb = cast(ta, ety), cast(tb, ety)
    if ety.is_floating():
        nan_all = str(_unwrap(propagate_nan)).endswith("ALL")
        name = ("%simumf" if nan_all else "%snumf") % kind
    else:
        name = kind + ("ui" if ety.is_int_unsigned() else "si")
    return _binop(name, ta, tb)


def mulhi(x, y, unsigned, what):
    """The high half of the double-width product of two integers of up to 32 bits (mul.hi): the product is
    computed in 64 bits and shifted (txl's elementwise lowering has no two-result multiply)."""
    x, y = _unwrap(x), _unwrap(y)
    x_weak, y_weak = not isinstance(x, tensor), not isinstance(y, tensor)
    # A 32-bit constant such as 0x9E3779B9 (>= 2^31: int64 on its own) takes the other operand's 32-bit type.
    if x_weak and not y_weak and isinstance(x, int) and -2**31 <= x < 2**32 and y.dtype.primitive_bitwidth == 32:
        x = constant(x, y.dtype)
    if y_weak and not x_weak and isinstance(y, int) and -2**31 <= y < 2**32 and x.dtype.primitive_bitwidth == 32:
        y = constant(y, x.dtype)
    tx, ty = to_tensor(x), to_tensor(y)
    ety = result_dtype(tx.dtype, ty.dtype, x_weak, y_weak)
    if not ety.is_int() or ety.is_bool() or ety.primitive_bitwidth != 32:
        raise SemanticError("%s takes 32-bit integers, got %s and %s" % (what, tx.dtype.name, ty.dtype.name),
                            "convert the operands with .to(tl.uint32) (64-bit high products are not built yet)")
    tx, ty = binary_broadcast(cast(tx, ety), cast(ty, ety), what)
    half = core.uint32 if unsigned else core.int32
    wide = core.uint64 if unsigned else core.int64
    tx, ty = cast(cast(tx, half), wide), cast(cast(ty, half), wide)
    prod = _binop("muli", tx, ty)
    hi = _binop("shrui" if unsigned else "shrsi", prod, cast(to_tensor(32), wide) if not isinstance(prod.type, block_type)
                else dense(32, prod.type))
    return cast(cast(hi, half), ety)


# ----------------------------------------------------------------------------------------------------------------
# Math functions
# ----------------------------------------------------------------------------------------------------------------
_MATH_TYPES = {"exp": ("fp32",), "log": ("fp32",), "log2": ("fp32",), "exp2": ("fp32", "fp16", "bf16"),
               "sin": ("fp32", "fp16", "bf16"), "cos": ("fp32", "fp16", "bf16"), "erf": ()}


# The element types Triton 3.6's triton.language.math functions accept for tensor arguments (its _check_dtype: a
# bf16/fp16 or integer tile is an error there, "Expected dtype ['fp32', 'fp64'] but got bf16", not converted).
# tl.<name> and x.<name>() check the same: a kernel that compiles with txl compiles with Triton.
TRITON_MATH_DTYPES = dict({n: ("fp32", "fp64") for n in ("exp", "exp2", "log", "log2", "cos", "sin", "sqrt",
                                                        "rsqrt", "erf", "floor", "ceil")},
                          sqrt_rn=("fp32",), div_rn=("fp32",), sigmoid=("fp32", "fp64"))


def check_triton_math_dtypes(name, *args):
    """Triton's dtype rule of tl.<name> (TRITON_MATH_DTYPES) on the tensor arguments (numbers are converted)."""
    ok = TRITON_MATH_DTYPES[name]
    for a in args:
        a = _unwrap(a)
        if isinstance(a, tensor) and isinstance(a.type, (dtype, block_type)) and a.dtype.name not in ok:
            raise SemanticError("tl.%s takes %s values, got %s: Triton 3.6 refuses it too (\"Expected dtype %s but "
                                "got %s\"; its math functions do not convert 16-bit floats or integers)"
                                % (name, " / ".join(ok), a.dtype.name, list(ok), a.dtype.name),
                                "convert first: tl.%s(x.to(tl.float32))" % name)


def math_unary(name, t, float_only=True, triton_rule=None):
    """``math.<name>`` on a float scalar or tile. ``triton_rule``: the tl function whose Triton dtype rule the
    argument must follow (the user-facing tl.exp...; txl's own callers convert integers to fp32 first)."""
    arg = t
    t = to_tensor(t)
    _check_value(t, "tl.%s" % name)
    if float_only and not t.dtype.is_floating():
        t = cast(t, core.float32)
    # The element types the GPU back end has an instruction for (NVPTX has no libcalls: anything else fails in
    # LLVM's instruction selection, "Cannot select" / "no libcall available"). The C++ side checks the same
    # table for IR input (convert-txl-to-nvvm's checkOp).
    if name in _MATH_TYPES:
        ok = _MATH_TYPES[name]
        if t.dtype.name not in ok:
            if not ok:
                raise UnsupportedError("tl.%s is not supported yet: the GPU back end has no lowering for it" % name,
                                       "compute it from tl.exp2 / tl.log2 or a polynomial")
            also = ""
            if triton_rule and t.dtype.name not in TRITON_MATH_DTYPES[triton_rule]:
                also = " (Triton 3.6 refuses it too: it takes %s)" % " / ".join(TRITON_MATH_DTYPES[triton_rule])
            raise SemanticError("tl.%s is computed in %s on the GPU, got %s%s" % (name, " / ".join(ok),
                                                                                   t.dtype.name, also),
                                "convert first: tl.%s(x.to(tl.float32))" % name)
    if triton_rule:
        check_triton_math_dtypes(triton_rule, arg)
    # tl.exp2 is the fast approximation, as in Triton and FA3: `afn` lets the compiler use the flush-to-zero
    # ex2.approx (one MUFU op instead of four instructions that keep subnormal results). sin/cos are the MUFU
    # approximations too (sin.approx.f32: absolute error about 2^-21 in [-pi, pi]): without `afn` NVPTX has no
    # lowering for them at all.
    flags = {"fastmath": "afn"} if name in ("exp2", "sin", "cos") else {}
    return _unop("math." + name, t, t.type, **flags)


def abs_(t):
    t = to_tensor(t)
    if t.dtype.is_floating():
        return _unop("math.absf", t, t.type)
    if t.dtype.is_int_unsigned() or t.dtype.is_bool():
        return t
    return _unop("math.absi", t, t.type)


def fma(x, y, z):
    tx, ty, tz = to_tensor(x), to_tensor(y), to_tensor(z)
    ety = result_dtype(result_dtype(tx.dtype, ty.dtype), tz.dtype)
    if not ety.is_floating():
        raise SemanticError("tl.fma needs floating-point operands")
    shape = broadcast_shapes(broadcast_shapes(_shape(tx), _shape(ty)), _shape(tz))
    vals = [cast(broadcast_to(v, shape) if shape else v, ety) for v in (tx, ty, tz)]
    op = _b().insert(ods.math.fma(*[v.handle for v in vals], result=vals[0].type))
    return tensor(op.result, vals[0].type)


def math_op(name, t, result_dtype_=None):
    """The one-operand elementwise op ``name`` (``math.ceil``, ...) on a scalar or tile."""
    t = to_tensor(t)
    _check_value(t, name)
    rt = t.type if result_dtype_ is None else _with_elem(t.type, result_dtype_)
    return _unop(name, t, rt)


# ----------------------------------------------------------------------------------------------------------------
# Device assertions
# ----------------------------------------------------------------------------------------------------------------
def device_assert(cond, msg=""):
    """tl.device_assert / ``assert`` on a run-time value: a txl.assert of the (boolean) condition when the kernel
    is compiled with debug (as in Triton; otherwise nothing)."""
    cond = to_tensor(cond)
    if not cond.dtype.is_bool():
        cond = binary("!=", cond, 0)
    if not _ctx().debug:
        return None
    _b().insert(ods.txl.assert_(cond.handle, message=str(msg)))
    return None
