"""Semantics of the txl language: type promotion, broadcasting and the IR each operation becomes.

The code generator (``txl.compiler.code_generator``) and the builtins call these functions while a kernel is
being compiled; ``current()`` is the active ``Context`` (the IR builder, the launch options and a little state
shared by the whole kernel, such as the wgmma groups still in flight). Every user error is a ``SemanticError``
with a message that says what was expected and, where possible, how to fix it; the code generator adds the
source location.

The rules follow Triton's ``semantic.py``: Python numbers are "weak" (they take the type of the tensor they meet),
16-bit floats of different kinds meet in fp32, integers widen to the wider operand, ``/`` on integers is a float
division, ``//`` and ``%`` truncate like C. Shapes broadcast NumPy-style from the right.
"""

import contextlib
import math
import struct

from ..compiler.errors import SemanticError, ShapeMismatchError, UnsupportedError
from . import core
from .core import (block_type, dtype, mbar_type, pointer_type, smem_type, tensor, tensordesc_type,
                   tmem_type, _unwrap)

_current = []


def current():
    return _current[-1] if _current else None


@contextlib.contextmanager
def activate(ctx):
    _current.append(ctx)
    try:
        yield ctx
    finally:
        _current.pop()


class Context:
    """What the semantic functions need while one kernel is compiled."""

    def __init__(self, builder, num_warps, num_warpgroups, target, codegen=None):
        self.builder = builder
        self.num_warps = num_warps  # warps per role: 4 (a warpgroup, TXL), or 8/16 whose warpgroups split M
        self.num_warpgroups = num_warpgroups
        self.target = target
        self.codegen = codegen  # the CodeGenerator: inlining combine functions, re-binding names after waits
        self.dots = []  # every txl.dot op (marked async at the end when a txl.dot_wait follows it)
        self.deferred_errors = []
        self.debug = False  # device assertions are compiled in (Triton's debug: @txl.jit(debug=True), TRITON_DEBUG=1)


def _ctx():
    c = current()
    if c is None:
        raise RuntimeError("txl language functions can only be used inside a @txl.jit function")
    return c


def _b():
    return _ctx().builder


def unsupported(what, fix=None):
    raise UnsupportedError("%s is not supported yet by txl (the dialect has no operation for it)" % what, fix)


# ----------------------------------------------------------------------------------------------------------------
# Constants and conversion of Python values
# ----------------------------------------------------------------------------------------------------------------
def _float_literal(value, ty):
    """An MLIR float literal for ``value`` in type ``ty`` (hex bit patterns for inf/nan)."""
    if math.isinf(value) or math.isnan(value):
        bits = ty.primitive_bitwidth
        if bits == 32:
            return "0x%08X" % struct.unpack("<I", struct.pack("<f", value))[0]
        if bits == 64:
            return "0x%016X" % struct.unpack("<Q", struct.pack("<d", value))[0]
        if ty.name == "fp16":
            return "0x%04X" % struct.unpack("<H", struct.pack("<e", value))[0]
        if ty.name == "bf16":
            return "0x%04X" % (struct.unpack("<I", struct.pack("<f", value))[0] >> 16)
        raise SemanticError("cannot write %r as %s" % (value, ty.name))
    if ty.primitive_bitwidth == 32:
        value = struct.unpack("<f", struct.pack("<f", value))[0]  # round to f32 first
    return "%.9e" % value if ty.primitive_bitwidth <= 32 else "%.17e" % value


def _literal(value, ty):
    if ty.is_bool():
        return "true" if value else "false"
    if ty.is_floating():
        return _float_literal(float(value), ty)
    return str(int(value))


def weak_dtype(value):
    """The type a Python number takes on its own (Triton: int -> int32 or int64, float -> fp32)."""
    if isinstance(value, bool):
        return core.int1
    if isinstance(value, int):
        if -2**31 <= value < 2**31:
            return core.int32
        if -2**63 <= value < 2**63:
            return core.int64
        raise SemanticError("integer constant %d does not fit in 64 bits" % value)
    if isinstance(value, float):
        return core.float32
    raise SemanticError("%r cannot be used as a run-time value (expected an int, float or bool)" % (value,))


def constant(value, ty):
    """A scalar constant (hoisted to the top of the kernel and deduplicated)."""
    if ty.is_int() and not ty.is_bool():
        bits = ty.primitive_bitwidth
        value = int(value)
        lo, hi = (0, 2**bits) if ty.is_int_unsigned() else (-2**(bits - 1), 2**(bits - 1))
        if not lo <= value < hi:
            value = (value + 2**bits) % 2**bits  # wrap like C (e.g. -1 as uint32)
            if not ty.is_int_unsigned() and value >= 2**(bits - 1):
                value -= 2**bits
    lit = _literal(value, ty)
    tmpl = "arith.constant %s" % lit if ty.is_bool() else "arith.constant %s : {r[0]}" % lit
    op = _b().create_hoisted(tmpl, [ty], attrs={"const": value},
                             key=("const", lit, ty.to_ir()))
    if op.result.hint is None:
        if ty.is_bool():
            op.result.hint = "true" if value else "false"
        elif ty.is_int():
            op.result.hint = ("c%d" % value if value >= 0 else "c_m%d" % -value) + \
                ("" if ty.primitive_bitwidth == 32 else "_" + ty.to_ir())
        else:
            op.result.hint = "cst"
    return tensor(op.result, ty)


def const_value(t):
    """The Python value of a tensor that is an arith.constant (scalar or splat), else None."""
    owner = getattr(t.handle, "owner", None)
    if owner is not None and hasattr(owner, "attrs") and "const" in owner.attrs:
        return owner.attrs["const"]
    return None


def to_tensor(x, ty=None):
    """A run-time value for ``x`` (a tensor, a constexpr or a Python number), converted to ``ty`` if given."""
    x = _unwrap(x)
    if isinstance(x, tensor):
        return x if ty is None else cast(x, ty)
    if isinstance(x, (bool, int, float)):
        return constant(x, ty or weak_dtype(x))
    if x is None:
        raise SemanticError("None cannot be used as a run-time value")
    raise SemanticError("%r cannot be used as a run-time value here" % (x,))


def dense(value, ty):
    """``arith.constant dense<v> : tensor<...>`` (emitted at its use: tile constants are not hoisted so each use
    gets the register layout it needs)."""
    lit = _literal(value, ty.element_ty)
    op = _b().create("arith.constant dense<%s> : {r[0]}" % lit, [], [ty], pure=True, attrs={"const": value})
    return tensor(op.result, ty)


def _i32(x, what):
    """``x`` as an i32 run-time value (int constexprs become constants)."""
    x = _unwrap(x)
    if isinstance(x, tensor):
        if isinstance(x.type, dtype) and x.type.is_int() and not x.type.is_bool():
            return x if x.type == core.int32 else cast(x, core.int32)
        raise SemanticError("%s must be an integer scalar, got %s" % (what, x.type))
    if isinstance(x, int) and not isinstance(x, bool):
        return constant(x, core.int32)
    raise SemanticError("%s must be an integer, got %r" % (what, x))


def _static_int(x, what):
    x = _unwrap(x)
    if isinstance(x, bool) or not isinstance(x, int):
        raise SemanticError("%s must be a compile-time integer (a literal or a tl.constexpr), got %r"
                            % (what, x if not isinstance(x, tensor) else "a run-time value"),
                            "pass it as a tl.constexpr parameter or a literal")
    return x


# ----------------------------------------------------------------------------------------------------------------
# Type promotion
# ----------------------------------------------------------------------------------------------------------------
def _promote_floats(a, b):
    if a == b:
        return a
    if "fp64" in (a.name, b.name):
        return core.float64
    if "fp32" in (a.name, b.name):
        return core.float32
    if a.primitive_bitwidth != b.primitive_bitwidth:
        return a if a.primitive_bitwidth > b.primitive_bitwidth else b
    return core.float32  # fp16 vs bf16, fp8 kinds


def _promote_ints(a, b):
    if a == b:
        return a
    if a.is_bool():
        return b
    if b.is_bool():
        return a
    if a.primitive_bitwidth != b.primitive_bitwidth:
        return a if a.primitive_bitwidth > b.primitive_bitwidth else b
    return a if a.is_int_unsigned() else b  # same width: unsigned wins (C)


def result_dtype(a, b, a_weak=False, b_weak=False):
    """The dtype two operands are computed in."""
    if a_weak != b_weak:
        strong, weak = (b, a) if a_weak else (a, b)
        if weak.is_floating():
            return strong if strong.is_floating() else core.float32
        if weak.is_bool() and strong.is_bool():
            return strong
        if strong.is_bool():
            return weak
        # A Python int that does not fit the other operand's type (3221225472 next to an i32) keeps its own
        # 64-bit type, as in Triton (ints outside i32 are i64): the operation is done in i64, nothing wraps.
        if weak.is_int() and strong.is_int() and weak.primitive_bitwidth > strong.primitive_bitwidth:
            return weak
        return strong
    if a.is_floating() or b.is_floating():
        if a.is_floating() and b.is_floating():
            return _promote_floats(a, b)
        return a if a.is_floating() else b
    return _promote_ints(a, b)


# ----------------------------------------------------------------------------------------------------------------
# Shapes
# ----------------------------------------------------------------------------------------------------------------
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
    op = _b().create("txl.splat {o[0]} : {t[0]} -> {r[0]}", [t.handle], [ty], pure=True)
    return tensor(op.result, ty)


_REMAT = ("txl.make_range", "txl.splat", "arith.", "math.")


def _rematerialize(t, depth=6):
    """A fresh copy of the cheap, pure computation producing the 1-D tile ``t`` (make_range, splat, constants and
    elementwise ops on them). ``offs[:, None]`` and ``offs[None, :]`` of one ``offs`` need the values in two
    different register layouts; the compiler cannot convert between them yet (cross-thread relayout), so each
    expand_dims gets its own copy, as Triton's layout rematerialization would produce."""
    owner = t.handle.owner
    if depth == 0 or not isinstance(owner, ir_Op()) or not owner.pure or owner.regions \
            or not owner.template.startswith(_REMAT) or len(owner.results) != 1:
        return None
    operands = []
    for v in owner.operands:
        if isinstance(v.type, block_type):
            c = _rematerialize(tensor(v, v.type), depth - 1)
            if c is None:
                return None
            operands.append(c.handle)
        else:
            operands.append(v)
    op = _b().create(owner.template, operands, [t.type], pure=True, attrs=dict(owner.attrs))
    op.result.hint = t.handle.hint
    return tensor(op.result, t.type)


def ir_Op():
    from ..compiler.ir import Op
    return Op


def expand_dims(t, axis):
    t = to_tensor(t)
    if isinstance(t.type, block_type) and len(t.type.shape) == 1:
        copy = _rematerialize(t)
        t = t if copy is None else copy
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
    op = _b().create("txl.expand_dims {o[0]}, %d : {t[0]} -> {r[0]}" % axis, [t.handle], [ty], pure=True)
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
    op = _b().create("txl.broadcast {o[0]} : {t[0]} -> {r[0]}", [t.handle], [ty], pure=True)
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


# ----------------------------------------------------------------------------------------------------------------
# Casts
# ----------------------------------------------------------------------------------------------------------------
def _with_elem(t_type, elem):
    return block_type(elem, t_type.shape) if isinstance(t_type, block_type) else elem


def _unop(template, t, result_type, pure=True):
    op = _b().create(template, [t.handle], [result_type], pure=pure)
    return tensor(op.result, result_type)


def _address_cast(t, src, dst, rt):
    """Casts involving pointers, as Triton's: an int (sign-extended to 64 bits) to a pointer, a pointer to int64
    (or to bool: != 0), a pointer to a pointer of another element type (the same address)."""
    if src.is_ptr() and dst.is_ptr():
        return _address_cast(_address_cast(t, src, core.int64, _with_elem(t.type, core.int64)), core.int64, dst, rt)
    if src.is_ptr() and dst.is_bool():
        return compare("!=", _address_cast(t, src, core.int64, _with_elem(t.type, core.int64)), 0)
    if src.is_ptr() and dst.is_int() and dst.primitive_bitwidth == 64:
        return _unop("txl.ptr_to_int {o[0]} : {t[0]} -> {r[0]}", t, rt)
    if dst.is_ptr() and src.is_int() and not src.is_bool():
        if src.primitive_bitwidth != 64 or src.is_int_unsigned():
            t = cast(t, core.int64)
        return _unop("txl.int_to_ptr {o[0]} : {t[0]} -> {r[0]}", t, rt)
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
        return _unop("arith.truncf {o[0]} : {t[0]} to {r[0]}", t, rt)
    if dst in (core.float16, core.float32):
        return _unop("arith.extf {o[0]} : {t[0]} to {r[0]}", t, rt)
    return cast(_unop("arith.extf {o[0]} : {t[0]} to {r[0]}", t, _with_elem(t.type, core.float32)), dst)


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
        return _unop("arith.bitcast {o[0]} : {t[0]} to {r[0]}", t, rt)
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
        return _unop("arith.%s {o[0]} : {t[0]} to {r[0]}" % op, t, rt)
    if src.is_int() and dst.is_floating():
        op = "uitofp" if (src.is_bool() or src.is_int_unsigned()) else "sitofp"
        return _unop("arith.%s {o[0]} : {t[0]} to {r[0]}" % op, t, rt)
    if src.is_floating() and dst.is_int():
        if dst.is_bool():
            return compare("!=", t, to_tensor(0.0, src))
        op = "fptoui" if dst.is_int_unsigned() else "fptosi"
        return _unop("arith.%s {o[0]} : {t[0]} to {r[0]}" % op, t, rt)
    # int -> int
    if dst.is_bool():
        return compare("!=", t, constant(0, src) if not isinstance(t.type, block_type) else dense(0, t.type))
    if dst.primitive_bitwidth > src.primitive_bitwidth:
        op = "extui" if (src.is_bool() or src.is_int_unsigned()) else "extsi"
        return _unop("arith.%s {o[0]} : {t[0]} to {r[0]}" % op, t, rt)
    if dst.primitive_bitwidth < src.primitive_bitwidth:
        return _unop("arith.trunci {o[0]} : {t[0]} to {r[0]}" % (), t, rt)
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
    flags = " fastmath<contract>" if name in _CONTRACT else ""
    if name == "divf" and not ieee_div:
        # Triton's `/` on floats is the approximate full-range division (div.full.f32, 2 ulp); tl.div_rn and
        # tl.fdiv(ieee_rounding=True) are the IEEE one.
        flags = " fastmath<afn>"
    op = _b().create("arith.%s {o[0]}, {o[1]}%s : {r[0]}" % (name, flags), [a.handle, b.handle], [rt], pure=True)
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
    if opname == "+":
        folded = _add_into_dot(ta, tb)
        if folded is None:
            folded = _add_into_dot(tb, ta)
        if folded is not None:
            return folded
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
    op = _b().create("arith.%s %s, {o[0]}, {o[1]} : {t[0]}" % (name, pred), [ta.handle, tb.handle], [rt],
                     pure=True)
    return tensor(op.result, rt)


def neg(t):
    t = to_tensor(t)
    _check_value(t, "unary `-`")
    if t.dtype.is_floating():
        return _unop("arith.negf {o[0]} : {r[0]}", t, t.type)
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
    op = _b().create("txl.addptr {o[0]}, {o[1]} : {t[0]}, {t[1]}", [ptr.handle, offset.handle], [ptr.type],
                     pure=True)
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
    tmpl = "arith.select {o[0]}, {o[1]}, {o[2]} : " + ("{t[0]}, {r[0]}" if shape else "{r[0]}")
    op = _b().create(tmpl, [cond.handle, tx.handle, ty.handle], [tx.type], pure=True)
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
    flags = " fastmath<afn>" if name in ("exp2", "sin", "cos") else ""
    return _unop("math.%s {o[0]}%s : {r[0]}" % (name, flags), t, t.type)


def abs_(t):
    t = to_tensor(t)
    if t.dtype.is_floating():
        return _unop("math.absf {o[0]} : {r[0]}", t, t.type)
    if t.dtype.is_int_unsigned() or t.dtype.is_bool():
        return t
    return _unop("math.absi {o[0]} : {r[0]}", t, t.type)


def fma(x, y, z):
    tx, ty, tz = to_tensor(x), to_tensor(y), to_tensor(z)
    ety = result_dtype(result_dtype(tx.dtype, ty.dtype), tz.dtype)
    if not ety.is_floating():
        raise SemanticError("tl.fma needs floating-point operands")
    shape = broadcast_shapes(broadcast_shapes(_shape(tx), _shape(ty)), _shape(tz))
    vals = [cast(broadcast_to(v, shape) if shape else v, ety) for v in (tx, ty, tz)]
    op = _b().create("math.fma {o[0]}, {o[1]}, {o[2]} : {r[0]}", [v.handle for v in vals], [vals[0].type],
                     pure=True)
    return tensor(op.result, vals[0].type)


# ----------------------------------------------------------------------------------------------------------------
# Indexing, views and layout-free reshapes
# ----------------------------------------------------------------------------------------------------------------
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
        op = _b().create("txl.trans {o[0]}, %s : {t[0]} -> {r[0]}" % order, [t.handle], [rt], pure=True)
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
    op = _b().create("txl.reshape {o[0]} : {t[0]} -> {r[0]}", [t.handle], [rt], pure=True)
    return tensor(op.result, rt)


def join(a, b):
    """tl.join: a new last dimension of size 2 holding a and b (broadcast and promoted to one type)."""
    a, b = binary_broadcast(to_tensor(a), to_tensor(b), "tl.join")
    ety = result_dtype(a.dtype, b.dtype)
    a, b = cast(a, ety), cast(b, ety)
    if not isinstance(a.type, block_type):
        a, b = splat(a, [1]), splat(b, [1])
    rt = block_type(ety, list(a.type.shape) + [2])
    op = _b().create("txl.join {o[0]}, {o[1]} : {t[0]} -> {r[0]}", [a.handle, b.handle], [rt], pure=True)
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
    op = _b().create("txl.split {o[0]} : {t[0]} -> {r[0]}", [t.handle], [rt, rt], pure=True)
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
    op = _b().create("txl.get_buffer {o[0]}[{o[1]}] : {t[0]}", [src.handle, idx.handle], [rt], pure=True)
    return tensor(op.result, rt)


def smem_trans(t, order):
    order = [int(_unwrap(o)) for o in order]
    shape = [t.type.shape[o] for o in order]
    flip = order != list(range(len(order)))
    rt = t.type.view(shape=shape, transposed=(not t.type.transposed) if flip else t.type.transposed)
    op = _b().create("txl.smem_trans {o[0]} [%s] : {t[0]} -> {r[0]}" % ", ".join(map(str, order)), [t.handle],
                     [rt], pure=True)
    return tensor(op.result, rt)


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
    from ..compiler import ir
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
    comb = ir.Op("arith.%s {o[0]}, {o[1]} : {r[0]}" % _combine_name(kind, ety), body.args, [ety], pure=True)
    ret = ir.Op("txl.reduce_return {o[0]} : {t[0]}", [comb.result], [])
    body.ops = [comb, ret]
    region = ir.Region([body], print_entry_args=True)
    op = _b().create("txl.reduce {o[0]} axis %d : ({t[0]}) -> {r[0]} {R[0]}" % axis, [t.handle], [rt],
                     regions=[region], pure=True)
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
    from ..compiler import ir
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
    rng = tensor(_b().create("txl.make_range 0, %d : {r[0]}" % shape[axis], [],
                             [block_type(core.int32, [shape[axis]])], pure=True).result,
                 block_type(core.int32, [shape[axis]]))
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
        better = ir.Op("arith.cmpf %s, {o[0]}, {o[1]} : {t[0]}" % ("ogt" if kind == "max" else "olt"), [x1, x0],
                       [core.int1], pure=True)
        equal = ir.Op("arith.cmpf oeq, {o[0]}, {o[1]} : {t[0]}", [x1, x0], [core.int1], pure=True)
    else:
        sign = "u" if ety.is_int_unsigned() else "s"
        better = ir.Op("arith.cmpi %s%s, {o[0]}, {o[1]} : {t[0]}" % (sign, "gt" if kind == "max" else "lt"),
                       [x1, x0], [core.int1], pure=True)
        equal = ir.Op("arith.cmpi eq, {o[0]}, {o[1]} : {t[0]}", [x1, x0], [core.int1], pure=True)
    first = ir.Op("arith.cmpi %s, {o[0]}, {o[1]} : {t[0]}" % ("slt" if tie_break_left else "sgt"), [i1, i0],
                  [core.int1], pure=True)
    tie = ir.Op("arith.andi {o[0]}, {o[1]} : {t[0]}", [equal.result, first.result], [core.int1], pure=True)
    take = ir.Op("arith.ori {o[0]}, {o[1]} : {t[0]}", [better.result, tie.result], [core.int1], pure=True)
    xs = ir.Op("arith.select {o[0]}, {o[1]}, {o[2]} : {t[1]}", [take.result, x1, x0], [ety], pure=True)
    ix = ir.Op("arith.select {o[0]}, {o[1]}, {o[2]} : {t[1]}", [take.result, i1, i0], [core.int32], pure=True)
    ret = ir.Op("txl.reduce_return {o[0]}, {o[1]} : {t[0]}, {t[1]}", [xs.result, ix.result], [])
    body.ops = [better, equal, first, tie, take, xs, ix, ret]
    region = ir.Region([body], print_entry_args=True)
    op = _b().create("txl.reduce {o[0]}, {o[1]} axis %d : ({t[0]}, {t[1]}) -> ({r[0]}, {r[1]}) {R[0]}" % axis,
                     [t.handle, idx.handle], [vt, it], regions=[region], pure=True)
    vals, inds = tensor(op.results[0], vt), tensor(op.results[1], it)
    if keep_dims:
        vals, inds = expand_dims(vals, axis), expand_dims(inds, axis)
    return vals, inds


# ----------------------------------------------------------------------------------------------------------------
# Memory: pointers
# ----------------------------------------------------------------------------------------------------------------
_CACHE = {"": None, ".ca": "ca", ".cg": "cg", ".cv": "cv", ".cs": "cs", ".wb": "wb", ".wt": "wt",
          "ca": "ca", "cg": "cg", "cv": "cv", "cs": "cs", "wb": "wb", "wt": "wt"}
_EVICT = {"": None, "evict_normal": None, "evict_first": "evict_first", "evict_last": "evict_last"}


def _mem_attrs(cache_modifier, eviction_policy, volatile=False):
    cm, ev = _unwrap(cache_modifier) or "", _unwrap(eviction_policy) or ""
    if cm not in _CACHE:
        raise SemanticError("unknown cache_modifier %r (expected one of .ca .cg .cv .cs .wb .wt)" % cm)
    if ev not in _EVICT:
        raise SemanticError("unknown eviction_policy %r (expected evict_first / evict_last)" % ev)
    attrs = []
    if _CACHE[cm]:
        attrs.append("cache = #txl<cache %s>" % _CACHE[cm])
    if _EVICT[ev]:
        attrs.append("evict = #txl<evict %s>" % _EVICT[ev])
    if _unwrap(volatile):
        attrs.append("isVolatile")
    return (" {{" + ", ".join(attrs) + "}}") if attrs else ""


def _bool_mask(mask, what):
    """A mask is a boolean (i1) tile or scalar, as in Triton ("Mask must have boolean scalar type"): an integer
    mask is almost always a forgotten comparison, and reading it as `!= 0` quietly would hide that."""
    m = to_tensor(mask)
    if not m.dtype.is_bool():
        raise SemanticError("%s: the mask must be a boolean tile (i1), got %s" % (what, m.dtype.name),
                            "compare to get one, e.g. `mask=m != 0` or `mask=offs < n`")
    return m


def load(pointer, mask=None, other=None, boundary_check=(), padding_option="", cache_modifier="",
         eviction_policy="", volatile=False):
    if isinstance(_unwrap(pointer), core.block_pointer):
        return _load_block_pointer(_unwrap(pointer), mask, other, boundary_check, padding_option, cache_modifier,
                                   eviction_policy, volatile)
    ptr = to_tensor(pointer)
    if isinstance(ptr.type, tensordesc_type):
        raise SemanticError("tl.load does not take a TMA descriptor", "use desc.load([x, y])")
    if not ptr.dtype.is_ptr():
        raise SemanticError("tl.load needs a pointer or a tile of pointers, got %s" % ptr.type,
                            "build pointers as base_ptr + offsets")
    if _unwrap(boundary_check) or _unwrap(padding_option):
        _not_a_block_pointer("tl.load", "boundary_check/padding_option", "mask=offs < n, other=0.0")
    mask, other = _unwrap(mask), _unwrap(other)
    if other is not None and mask is None:
        raise SemanticError("tl.load: `other` is only used with a `mask`", "pass mask=... or drop other=")
    elt = ptr.dtype.element_ty
    operands, tmpl = [], "txl.load {o[0]}"
    if mask is not None:
        m = cast(_bool_mask(mask, "tl.load"), core.int1)
        shape = broadcast_shapes(_shape(ptr), _shape(m), "the mask of tl.load")
        if shape:
            ptr, m = broadcast_to(ptr, shape), broadcast_to(m, shape)
        operands.append(m)
        tmpl += " mask {o[1]}"
        if other is not None:
            o = to_tensor(other, elt) if not isinstance(other, tensor) else cast(other, elt)
            if shape:
                o = broadcast_to(o, shape)
            operands.append(o)
            tmpl += " other {o[2]}"
    rt = _with_elem(ptr.type, elt)
    tmpl += _mem_attrs(cache_modifier, eviction_policy, volatile) + " : {t[0]} -> {r[0]}"
    op = _b().create(tmpl, [ptr.handle] + [v.handle for v in operands], [rt])
    return tensor(op.result, rt)


def store(pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy=""):
    if isinstance(_unwrap(pointer), core.block_pointer):
        return _store_block_pointer(_unwrap(pointer), value, mask, boundary_check, cache_modifier, eviction_policy)
    ptr = to_tensor(pointer)
    if isinstance(ptr.type, tensordesc_type):
        raise SemanticError("tl.store does not take a TMA descriptor", "use desc.store([x, y], value)")
    if not ptr.dtype.is_ptr():
        raise SemanticError("tl.store needs a pointer or a tile of pointers, got %s" % ptr.type)
    if _unwrap(boundary_check):
        _not_a_block_pointer("tl.store", "boundary_check", "mask=offs < n")
    elt = ptr.dtype.element_ty
    val = to_tensor(value)
    _check_value(val, "tl.store")
    shape = broadcast_shapes(_shape(ptr), _shape(val), "tl.store (pointers and value)")
    mask = _unwrap(mask)
    m = None
    if mask is not None:
        m = cast(_bool_mask(mask, "tl.store"), core.int1)
        shape = broadcast_shapes(shape, _shape(m), "the mask of tl.store")
    if shape:
        ptr, val = broadcast_to(ptr, shape), broadcast_to(val, shape)
        if m is not None:
            m = broadcast_to(m, shape)
    val = cast(val, elt)
    tmpl = "txl.store {o[0]}, {o[1]}" + (" mask {o[2]}" if m is not None else "")
    tmpl += _mem_attrs(cache_modifier, eviction_policy) + " : {t[0]}, {t[1]}"
    _b().create(tmpl, [ptr.handle, val.handle] + ([m.handle] if m is not None else []), [])


# ----------------------------------------------------------------------------------------------------------------
# Block pointers: tl.make_block_ptr, tl.advance, and tl.load / tl.store through them
# ----------------------------------------------------------------------------------------------------------------
# A block pointer is a frontend value (core.block_pointer) holding the scalars the user gave. A load or store
# through it is ONE txl.load / txl.store -- the op `tl.load(ptrs, mask=..., other=...)` emits -- of the pointer
# tile base + sum_d (offsets[d] + arange(block_shape[d])) * strides[d], computed in 64 bits as Triton's
# RewriteTensorPointer does, masked by 0 <= index < shape[d] on the boundary_check dimensions. The C++ passes
# then treat it as any pointer load (txl-vectorize-accesses, the cp.async ring of txl-schedule-loops).
def _not_a_block_pointer(what, args, mask_example):
    raise SemanticError("%s: %s only apply to block pointers (tl.make_block_ptr); for a tile of pointers the "
                        "compiler does not know the bounds (Triton refuses it too)" % (what, args),
                        "mask the elements instead (%s), or build a block pointer with tl.make_block_ptr"
                        % mask_example)


def _bp_list(x):
    x = _unwrap(x)
    return list(x) if isinstance(x, (tuple, list)) else [x]


def _bp_int(v, ty, what):
    """A shape / stride (i64) or offset (i32) of a block pointer: Triton's widths."""
    v = _unwrap(v)
    if isinstance(v, tensor):
        if not isinstance(v.type, dtype) or not v.dtype.is_int() or v.dtype.is_bool():
            raise SemanticError("%s must be integer scalars, got %s" % (what, v.type))
        if ty == core.int32 and v.dtype.primitive_bitwidth == 64:
            raise SemanticError("%s are 32-bit integers (Triton's rule for block pointers), got an %s value"
                                % (what, v.dtype.name),
                                "convert it with .to(tl.int32), or index with a tile of pointers for 64-bit offsets")
        return cast(v, ty)
    if isinstance(v, bool) or not isinstance(v, int):
        raise SemanticError("%s must be integers, got %r" % (what, v))
    bits = ty.primitive_bitwidth
    if not -2**(bits - 1) <= v < 2**(bits - 1):
        raise SemanticError("%s: %d does not fit in %d bits (block pointers have 64-bit shapes and strides and "
                            "32-bit offsets)" % (what, v, bits))
    return constant(v, ty)


def _bp_static_ints(x, what, fix):
    out = []
    for v in _bp_list(x):
        v = _unwrap(v)
        if isinstance(v, bool) or not isinstance(v, int):
            raise SemanticError("%s must be a tuple of compile-time integers (literals or tl.constexpr), got %s"
                                % (what, "a run-time value" if isinstance(v, tensor) else repr(v)), fix)
        out.append(v)
    return out


def make_block_ptr(base, shape, strides, offsets, block_shape, order):
    """tl.make_block_ptr: a core.block_pointer (no IR until it is loaded from or stored to)."""
    if isinstance(_unwrap(base), core.block_pointer):
        raise SemanticError("tl.make_block_ptr: base is already a block pointer", "move it with tl.advance(ptr, "
                            "offsets), or pass the tensor's base pointer")
    base = to_tensor(base)
    if not isinstance(base.type, pointer_type):
        raise SemanticError("tl.make_block_ptr needs a scalar pointer as base (the parent tensor's first element), "
                            "got %s" % base.type)
    block = _bp_static_ints(block_shape, "tl.make_block_ptr: block_shape",
                            "write the block sizes as literals or tl.constexpr parameters, e.g. "
                            "block_shape=(BLOCK_M, BLOCK_K)")
    if not block:
        raise SemanticError("tl.make_block_ptr: block_shape needs at least one dimension")
    for b in block:
        if b < 1 or b & (b - 1):
            raise SemanticError("tl.make_block_ptr: block_shape %s: every block dimension must be a power of two "
                                "(as every tile's), got %d" % (tuple(block), b),
                                "round the block up to a power of two and let boundary_check mask the rest")
    rank = len(block)
    order = _bp_static_ints(order, "tl.make_block_ptr: order", "e.g. order=(1, 0) for a row-major tensor")
    lists = [("shape", _bp_list(shape)), ("strides", _bp_list(strides)), ("offsets", _bp_list(offsets)),
             ("order", order)]
    for name, vals in lists:
        if len(vals) != rank:
            raise SemanticError("tl.make_block_ptr: block_shape has %d dimensions but %s has %d; shape, strides, "
                                "offsets, block_shape and order need one entry per dimension" % (rank, name, len(vals)))
    if sorted(order) != list(range(rank)):
        raise SemanticError("tl.make_block_ptr: order must be a permutation of (0, ..., %d), got %s"
                            % (rank - 1, tuple(order)),
                            "order lists the dimensions from the fastest-varying in memory: (1, 0) for row-major")
    block_type(base.type.element_ty, block)  # the tile size limit, checked here at the user's line
    return core.block_pointer(base, [_bp_int(v, core.int64, "tl.make_block_ptr shape") for v in lists[0][1]],
                              [_bp_int(v, core.int64, "tl.make_block_ptr strides") for v in lists[1][1]],
                              [_bp_int(v, core.int32, "tl.make_block_ptr offsets") for v in lists[2][1]],
                              block, order)


def _block_pointer(ptr, what):
    ptr = _unwrap(ptr)
    if not isinstance(ptr, core.block_pointer):
        raise SemanticError("%s needs a block pointer (from tl.make_block_ptr), got %s"
                            % (what, ptr.type if isinstance(ptr, tensor) else repr(ptr)),
                            "for a tile of pointers add to the pointers instead: ptrs += k * stride")
    return ptr


def advance(ptr, offsets):
    """tl.advance: the block pointer with ``offsets`` added to its offsets (pure frontend arithmetic: i32 adds)."""
    ptr = _block_pointer(ptr, "tl.advance")
    deltas = _bp_list(offsets)
    rank = len(ptr.block_shape)
    if len(deltas) != rank:
        raise SemanticError("tl.advance: the block pointer has %d dimensions (block %s) but %d offsets were given"
                            % (rank, ptr.block_shape, len(deltas)),
                            "give one offset per dimension, e.g. tl.advance(ptr, (0, BLOCK_K))" if rank == 2 else
                            "give one offset per dimension")
    new = []
    for off, d in zip(ptr.offsets, deltas):
        d = _bp_int(d, core.int32, "tl.advance offsets")
        new.append(off if const_value(d) == 0 else binary("+", off, d))  # unchanged fields stay the same value
    return core.block_pointer(ptr.base, ptr.shape, ptr.strides, new, ptr.block_shape, ptr.order)


def _bp_boundary_check(ptr, boundary_check, what):
    """Triton's _canonicalize_boundary_check: distinct dimensions in [0, rank), sorted."""
    bc = _unwrap(boundary_check)
    if bc is None:
        return ()
    rank = len(ptr.block_shape)
    dims = []
    for d in _bp_list(bc):
        d = _unwrap(d)
        if isinstance(d, bool) or not isinstance(d, int):
            raise SemanticError("%s: boundary_check takes compile-time dimension numbers, got %s"
                                % (what, "a run-time value" if isinstance(d, tensor) else repr(d)),
                                "e.g. boundary_check=(0, 1)")
        if not 0 <= d < rank:
            raise SemanticError("%s: boundary_check dimension %d is out of range for a %d-D block pointer "
                                "(dimensions 0 to %d)" % (what, d, rank, rank - 1),
                                "list the dimensions whose bounds to check, e.g. boundary_check=%r"
                                % (tuple(range(rank)),))
        if d in dims:
            raise SemanticError("%s: dimension %d appears twice in boundary_check" % (what, d))
        dims.append(d)
    return tuple(sorted(dims))


def _make_range(n):
    ty = block_type(core.int32, [n])
    return tensor(_b().create("txl.make_range 0, %d : {r[0]}" % n, [], [ty], pure=True).result, ty)


def _bp_along(t, d, rank):
    """The 1-D tile ``t`` as dimension ``d`` of a rank-``rank`` tile (size 1 elsewhere)."""
    for _ in range(d):
        t = expand_dims(t, 0)
    for _ in range(rank - d - 1):
        t = expand_dims(t, len(_shape(t)))
    return t


def _bp_tile(ptr, check):
    """The pointer tile of a block pointer and the mask of its ``check`` dimensions (None when there is none):
    per dimension d, the index column/row ``offsets[d] + arange(block_shape[d])`` (i64, shaped to dimension d),
    its product with ``strides[d]`` summed into the offsets, and ``0 <= index < shape[d]`` and-ed into the mask."""
    rank = len(ptr.block_shape)
    offs = mask = None
    for d, n in enumerate(ptr.block_shape):
        off = ptr.offsets[d]
        idx = cast(_make_range(n), core.int64)
        c_off = const_value(off)
        if c_off != 0:
            idx = binary("+", idx, cast(off, core.int64))
        idx = _bp_along(idx, d, rank)
        stride = ptr.strides[d]
        term = idx if const_value(stride) == 1 else binary("*", idx, stride)
        offs = term if offs is None else binary("+", offs, term)
        if d in check:
            inside = compare("<", idx, ptr.shape[d])
            if c_off is None or c_off < 0:  # a constant offset >= 0 needs no lower bound
                inside = logical("and", compare(">=", idx, constant(0, core.int64)), inside)
            mask = inside if mask is None else logical("and", mask, inside)
    return addptr(ptr.base, offs), mask


_PADDINGS = ("", "zero", "nan")


def _load_block_pointer(ptr, mask, other, boundary_check, padding_option, cache_modifier, eviction_policy,
                        volatile):
    if _unwrap(mask) is not None or _unwrap(other) is not None:
        raise SemanticError("tl.load: a block pointer takes no mask or other (Triton refuses them too): the "
                            "elements outside the parent tensor are given by boundary_check and padding_option",
                            "write tl.load(ptr, boundary_check=(0, 1), padding_option='zero')")
    padding = _unwrap(padding_option)
    padding = "" if padding is None else padding
    if padding not in _PADDINGS:
        raise SemanticError("tl.load: unknown padding_option %r (expected '', 'zero' or 'nan')" % (padding,))
    elt = ptr.element_ty
    if padding == "nan" and not elt.is_floating():
        raise SemanticError("tl.load: padding_option='nan' needs a floating-point block pointer, this one is %s "
                            "(Triton refuses it too)" % elt.name, "use padding_option='zero'")
    dims = _bp_boundary_check(ptr, boundary_check, "tl.load")
    ptrs, m = _bp_tile(ptr, dims)
    fill = None
    if m is not None and padding:
        fill = 0 if padding == "zero" else float("nan")
    return load(ptrs, m, fill, (), "", cache_modifier, eviction_policy, volatile)


def _store_block_pointer(ptr, value, mask, boundary_check, cache_modifier, eviction_policy):
    if _unwrap(mask) is not None:
        raise SemanticError("tl.store: a block pointer takes no mask (Triton refuses it too): the elements outside "
                            "the parent tensor are left alone by boundary_check",
                            "write tl.store(ptr, value, boundary_check=(0, 1))")
    dims = _bp_boundary_check(ptr, boundary_check, "tl.store")
    elt = ptr.element_ty
    weak = not isinstance(_unwrap(value), tensor)
    val = to_tensor(value, elt) if weak else _unwrap(value)
    _check_value(val, "tl.store")
    if isinstance(val.type, block_type):
        if tuple(val.type.shape) != ptr.block_shape:
            raise SemanticError("tl.store: the value is a %s tile but the block pointer's block is %s"
                                % (list(val.type.shape), list(ptr.block_shape)),
                                "store a tile of the block's shape")
    elif not isinstance(val.type, dtype):
        raise SemanticError("tl.store: cannot store %s through a block pointer" % val.type)
    if val.dtype != elt:
        raise SemanticError("tl.store: the value has element type %s but the block pointer points to %s (Triton "
                            "refuses the mismatch too)" % (val.dtype.name, elt.name),
                            "convert it first: value.to(tl.%s)" % core._DTYPE_PY_NAMES.get(elt.name, elt.name))
    ptrs, m = _bp_tile(ptr, dims)
    store(ptrs, broadcast_to(val, list(ptr.block_shape)), m, (), cache_modifier, eviction_policy)


# ----------------------------------------------------------------------------------------------------------------
# Memory: atomics
# ----------------------------------------------------------------------------------------------------------------
_SEMS = {None: "acq_rel", "": "acq_rel", "acq_rel": "acq_rel", "acquire": "acquire", "release": "release",
         "relaxed": "relaxed"}
_SCOPES = {None: "gpu", "": "gpu", "gpu": "gpu", "cta": "cta", "sys": "sys"}


def _sem_scope(name, sem, scope):
    sem, scope = _unwrap(sem), _unwrap(scope)
    if sem not in _SEMS:
        raise SemanticError("%s: unknown sem %r" % (name, sem),
                            "use one of \"acquire\", \"release\", \"acq_rel\" (the default), \"relaxed\"")
    if scope not in _SCOPES:
        raise SemanticError("%s: unknown scope %r" % (name, scope),
                            "use one of \"gpu\" (the default), \"cta\", \"sys\"")
    return _SEMS[sem], _SCOPES[scope]


# What each tl.atomic_* takes (Triton's rules; PTX atom's types).
_ATOMIC_TYPES = {
    "add": ("int32", "uint32", "int64", "uint64", "fp16", "bf16", "fp32", "fp64"),
    "max": ("int32", "uint32", "int64", "uint64", "fp32", "fp64"),
    "min": ("int32", "uint32", "int64", "uint64", "fp32", "fp64"),
    "and": ("int32", "uint32", "int64", "uint64"),
    "or": ("int32", "uint32", "int64", "uint64"),
    "xor": ("int32", "uint32", "int64", "uint64"),
    "xchg": ("int32", "uint32", "int64", "uint64", "fp32", "fp64"),
    "cas": ("int16", "uint16", "int32", "uint32", "int64", "uint64", "fp16", "bf16", "fp32", "fp64"),
}


def _atomic_pointer(name, pointer, kind):
    ptr = to_tensor(pointer)
    if isinstance(ptr.type, tensordesc_type):
        raise SemanticError("%s does not take a TMA descriptor" % name,
                            "build pointers as base_ptr + offsets")
    if not ptr.dtype.is_ptr():
        raise SemanticError("%s needs a pointer or a tile of pointers, got %s" % (name, ptr.type),
                            "build pointers as base_ptr + offsets")
    elt = ptr.dtype.element_ty
    if elt.name not in _ATOMIC_TYPES[kind]:
        fix = "accumulate in a wider type (e.g. an int32 or float32 buffer)"
        if kind in ("max", "min") and elt.name in ("fp16", "bf16"):
            fix = "keep the buffer in float32 (PTX has no 16-bit float atomic max/min)"
        elif kind in ("and", "or", "xor") and elt.is_floating():
            fix = "operate on the bits: pass an integer pointer of the same width"
        raise SemanticError("%s does not take %s elements (it takes %s)"
                            % (name, elt.name, ", ".join(_ATOMIC_TYPES[kind])), fix)
    return ptr, elt


def _atomic_value(name, ptr, elt, value):
    val = to_tensor(value)
    _check_value(val, name)
    if val.dtype.is_ptr():
        raise SemanticError("%s: the value must be a number, got %s" % (name, val.type))
    return val


def atomic_rmw(kind, pointer, value, mask=None, sem=None, scope=None):
    """tl.atomic_<kind>: one txl.atomic_rmw; returns the old values."""
    name = "tl.atomic_" + kind
    sem, scope = _sem_scope(name, sem, scope)
    ptr, elt = _atomic_pointer(name, pointer, kind)
    val = _atomic_value(name, ptr, elt, value)
    shape = broadcast_shapes(_shape(ptr), _shape(val), "%s (pointers and value)" % name)
    mask = _unwrap(mask)
    m = None
    if mask is not None:
        m = cast(_bool_mask(mask, name), core.int1)
        shape = broadcast_shapes(shape, _shape(m), "the mask of %s" % name)
    if shape:
        ptr, val = broadcast_to(ptr, shape), broadcast_to(val, shape)
        if m is not None:
            m = broadcast_to(m, shape)
    val = cast(val, elt)
    op_kind = kind
    if kind in ("max", "min") and elt.is_int_unsigned():
        op_kind = "u" + kind
    rt = _with_elem(ptr.type, elt)
    tmpl = "txl.atomic_rmw %s %s %s {o[0]}, {o[1]}" % (op_kind, sem, scope)
    tmpl += (" mask {o[2]}" if m is not None else "") + " : {t[0]}, {t[1]}"
    op = _b().create(tmpl, [ptr.handle, val.handle] + ([m.handle] if m is not None else []), [rt])
    return tensor(op.result, rt)


def atomic_cas(pointer, cmp, value, sem=None, scope=None):
    """tl.atomic_cas: one txl.atomic_cas; returns the old values."""
    name = "tl.atomic_cas"
    sem, scope = _sem_scope(name, sem, scope)
    ptr, elt = _atomic_pointer(name, pointer, "cas")
    c = _atomic_value(name, ptr, elt, cmp)
    val = _atomic_value(name, ptr, elt, value)
    shape = broadcast_shapes(_shape(ptr), _shape(val), "%s (pointers and value)" % name)
    shape = broadcast_shapes(shape, _shape(c), "%s (pointers and cmp)" % name)
    if shape:
        ptr, c, val = broadcast_to(ptr, shape), broadcast_to(c, shape), broadcast_to(val, shape)
    c, val = cast(c, elt), cast(val, elt)
    rt = _with_elem(ptr.type, elt)
    tmpl = "txl.atomic_cas %s %s {o[0]}, {o[1]}, {o[2]} : {t[0]}, {t[2]}" % (sem, scope)
    op = _b().create(tmpl, [ptr.handle, c.handle, val.handle], [rt])
    return tensor(op.result, rt)


# ----------------------------------------------------------------------------------------------------------------
# Matrix multiply
# ----------------------------------------------------------------------------------------------------------------
def dot(a, b, acc=None, out_dtype=None, use_acc=None):
    """``txl.dot``: wgmma with A in shared memory or registers and B in shared memory."""
    a, b = _unwrap(a), _unwrap(b)
    if not isinstance(a, tensor) or not isinstance(b, tensor):
        raise SemanticError("tl.dot needs tensors, got %r and %r" % (a, b))
    if a.dtype != b.dtype and not isinstance(a.type, mbar_type) and not isinstance(b.type, mbar_type):
        # Checked before B is staged through shared memory, which would convert it quietly.
        if isinstance(a.type, block_type) or isinstance(b.type, block_type):
            fix = "convert one explicitly, e.g. `tl.dot(a, b.to(tl.%s))` (or `a.to(tl.%s)`)" % (
                core._DTYPE_PY_NAMES.get(a.dtype.name, a.dtype.name),
                core._DTYPE_PY_NAMES.get(b.dtype.name, b.dtype.name))
        else:
            fix = "allocate both shared-memory operands with one element type (convert the data before it is stored)"
        raise SemanticError("tl.dot: A is %s and B is %s; the tensor cores multiply operands of one element type"
                            % (a.dtype.name, b.dtype.name), fix)
    if (isinstance(a.type, block_type) and isinstance(b.type, block_type) and a.dtype.is_floating()
            and a.dtype.primitive_bitwidth >= 32):
        return _fma_dot(a, b, acc, out_dtype)
    # What the user wrote: operands in shared memory or registers. txl-lower-tile-copies reads a tile that
    # desc.load brought through shared memory from there and stages any other register B (wgmma reads B from
    # shared memory); such a dot runs synchronously unless the loop pipeliner gives it a ring of buffers.
    staged = isinstance(b.type, block_type) or getattr(a, "from_desc", False)
    if isinstance(b.type, block_type):
        b = _dot_register_b(a, b)
    else:
        b = as_view(b, "tl.dot operand B")
    if isinstance(a.type, smem_type):
        a = as_view(a, "tl.dot operand A")
    elif not isinstance(a.type, block_type):
        raise SemanticError("tl.dot operand A must be a shared-memory buffer or a register tile, got %s" % a.type)
    sa, sb = list(a.type.shape), list(b.type.shape)
    if len(sa) != 2 or len(sb) != 2:
        raise SemanticError("tl.dot needs 2-D operands, got %s and %s" % (sa, sb))
    if sa[1] != sb[0]:
        raise SemanticError("tl.dot: A is %s and B is %s, but A's columns must equal B's rows" % (sa, sb),
                            "for A x B^T with B stored N x K, pass the transposed view `b.T`")
    if a.dtype != b.dtype:
        fix = None
        if isinstance(a.type, block_type):
            fix = "convert A first: `.to(%r)`" % (b.dtype,)
        raise SemanticError("tl.dot: A is %s and B is %s; wgmma needs one element type" % (a.dtype.name,
                                                                                          b.dtype.name), fix)
    out_dtype = _unwrap(out_dtype)
    acc = _unwrap(acc)
    if isinstance(acc, tensor) and isinstance(acc.type, tmem_type):
        # TXL lowers this to a synchronous tcgen05 MMA; txl's tcgen05 MMA is txl.dotx, whose completion the kernel
        # waits for on an mbarrier it owns (the tile must not be read, nor its operands' buffers reused, before).
        raise SemanticError("tl.dot with a tensor-memory accumulator: txl runs tcgen05 MMAs as txl.dotx, which "
                            "signals an mbarrier when done",
                            "write txl.dotx(a, b, acc, mbars=[bar]) and txl.mbar_wait(bar, phase) before "
                            "txl.tmem_load(acc) or reusing a/b's buffers")
    zero_acc = acc is None and use_acc is None
    if acc is None:
        ety = out_dtype or (core.int32 if a.dtype.is_int() else core.float32)
        acc = dense(0, block_type(ety, [sa[0], sb[1]]))
    else:
        acc = to_tensor(acc)
        if not isinstance(acc.type, block_type) or list(acc.type.shape) != [sa[0], sb[1]]:
            raise SemanticError("tl.dot: the accumulator must be a %s tile, got %s" % ([sa[0], sb[1]], acc.type))
    operands = [a.handle, b.handle, acc.handle]
    tmpl = "txl.dot {o[0]}, {o[1]}, {o[2]}"
    if use_acc is not None:
        ua = cast(to_tensor(use_acc), core.int1)
        operands.append(ua.handle)
        tmpl += " use_acc {o[3]}"
    op = _b().create(tmpl + "{x} : {t[0]}, {t[1]}, {t[2]}", operands, [acc.type])
    op.template = op.template.replace("{x}", "%s")  # filled with " {async}" or "" at the end
    # A dot with register operands (staged by txl-lower-tile-copies) stays synchronous: txl.dot_wait does not
    # cover it (the next execution of the op overwrites its staging buffer).
    op.attrs["dot"] = not staged
    op.attrs["zero_acc"] = zero_acc
    _ctx().dots.append(op)
    return tensor(op.result, acc.type)


def _fma_dot(a, b, acc, out_dtype):
    """``tl.dot`` of fp32 (or fp64) register tiles: products summed along K on the CUDA cores, as Triton's FMA dot
    (its lowering of fp32 dots with input_precision="ieee"; "tf32" and "tf32x3" get the same, at least as exact,
    result): sum(a[:, :, None] * b[None, :, :], axis=1) + acc. The tensor cores' 16-bit and fp8 paths are not
    used: wgmma and mma.sync take no fp32 operands here."""
    sa, sb = list(a.type.shape), list(b.type.shape)
    if len(sa) != 2 or len(sb) != 2:
        raise SemanticError("tl.dot needs 2-D operands, got %s and %s" % (sa, sb))
    if sa[1] != sb[0]:
        raise SemanticError("tl.dot: A is %s and B is %s, but A's columns must equal B's rows" % (sa, sb),
                            "for A x B^T, pass `tl.trans(b)`")
    out_dtype = _unwrap(out_dtype)
    if out_dtype is not None and out_dtype.primitive_bitwidth < 32:  # fp64 operands accumulate in fp64
        raise SemanticError("tl.dot of %s operands accumulates in %s, got out_dtype=%s"
                            % (a.dtype.name, a.dtype.name, out_dtype.name))
    if sa[0] * sa[1] * sb[1] > core.MAX_TILE_NUMEL:
        raise SemanticError("tl.dot of %s operands %s x %s: txl multiplies fp32 tiles on the CUDA cores through "
                            "a %d-element product tile, more than the %d a tile may have"
                            % (a.dtype.name, sa, sb, sa[0] * sa[1] * sb[1], core.MAX_TILE_NUMEL),
                            "use smaller blocks, or convert the operands to bf16/fp16 (`a.to(tl.bfloat16)`) for "
                            "the tensor cores")
    prod = binary("*", broadcast_to(expand_dims(a, 2), [sa[0], sa[1], sb[1]]),
                  broadcast_to(expand_dims(b, 0), [sa[0], sa[1], sb[1]]))
    r = _reduce_axes("sum", prod, 1, False)
    acc = _unwrap(acc)
    if acc is None:
        return r
    acc = to_tensor(acc)
    if not isinstance(acc.type, block_type) or list(acc.type.shape) != [sa[0], sb[1]]:
        raise SemanticError("tl.dot: the accumulator must be a %s tile, got %s" % ([sa[0], sb[1]], acc.type))
    return binary("+", cast(acc, a.dtype), r)


def _add_into_dot(x, d):
    """``x + tl.dot(a, b)`` is ``tl.dot(a, b, x)``, as in Triton (its combine pass folds the add into the dot):
    when ``d`` is the result of a dot written without an accumulator that nothing has read yet, of x's type, and
    x was computed before the dot. TXL's asynchronous kernels rely on it (``acc += tl.dot(q, k.T)`` followed by
    ``txl.dot_wait(0)``: the add would otherwise read the dot's result while the tensor cores still write it).
    Returns the dot's result, or None when the rule does not apply."""
    op = getattr(d.handle, "owner", None)
    if not isinstance(op, ir_Op()) or not op.attrs.get("zero_acc") or op.attrs.get("waited"):
        return None
    if not isinstance(x.type, block_type) or x.type != d.type:
        return None
    block = op.block
    if block is None or any(_reads(o, d.handle) for o in block.ops[block.ops.index(op) + 1:]):
        return None
    codegen = _ctx().codegen
    if codegen is not None and any(isinstance(v, tensor) and v.handle is d.handle for v in codegen.lscope.values()):
        return None  # the kernel named the product (`s = tl.dot(a, b)`): it may read it again, unchanged
    owner = x.handle.owner
    if isinstance(owner, ir_Op()):
        if owner.block is block and block.ops.index(owner) > block.ops.index(op):
            return None  # computed after the dot: it cannot be the dot's accumulator
    op.operands[2] = x.handle
    op.attrs["zero_acc"] = False
    return d


def _dot_register_b(a, b):
    """Checks a register B of tl.dot (e.g. from tl.load) and converts it to A's element type, as the dot reads
    it: wgmma takes 16-bit or fp8 operands of one type."""
    b = to_tensor(b)
    if len(b.type.shape) != 2:
        raise SemanticError("tl.dot needs 2-D operands, got B of shape %s" % list(b.type.shape))
    ety = a.dtype if isinstance(a, tensor) and a.dtype.is_floating() else b.dtype
    if not ety.is_floating() or ety.primitive_bitwidth not in (8, 16):
        raise SemanticError("tl.dot with B in registers: B is %s, but wgmma takes 16-bit or fp8 operands"
                            % b.dtype.name, "convert B first: `b.to(tl.bfloat16)`")
    if b.dtype != ety:
        if not b.dtype.is_floating():
            raise SemanticError("tl.dot: A is %s and B is %s; wgmma needs one element type"
                                % (ety.name, b.dtype.name), "convert B first: `b.to(%s)`" % ety.name)
        b = cast(b, ety)
    return b


def dot_wait(pendings):
    """``txl.dot_wait N``: wait until at most N wgmma groups are in flight. The accumulators of the dots of this
    block that the wait retires are passed through it, and the kernel's names re-bound to the results (what
    ``%x = txl.dot_wait N, %x_issued`` says in hand-written IR)."""
    n = _static_int(pendings, "txl.dot_wait pendings")
    if n < 0:
        raise SemanticError("txl.dot_wait pendings must be >= 0, got %d" % n)
    b = _b()
    block = b.block
    # Dots of this block not covered by an earlier wait, in issue order.
    issued = [op for op in block.ops if op.attrs.get("dot") and not op.attrs.get("waited")]
    covered = issued[:len(issued) - n] if n else issued
    # The wait makes the dots it covers asynchronous: the tensor cores write their results until here, so a read
    # before the wait (other than as another dot's accumulator, a chained group) would see a half-written tile.
    # That is the kernel's bug, refused at the read (quietly making the dot synchronous instead would hide the
    # overlap the kernel asked for). Dots that stage an operand (attrs["dot"] False) are never covered.
    ok = []
    for d in covered:
        d.attrs["waited"] = True
        pos = block.ops.index(d)
        readers = [o for o in block.ops[pos + 1:] if _reads(o, d.result)]
        bad = [o for o in readers if not (o.attrs.get("dot") and o.operands[2] is d.result
                                          and o.operands[0] is not d.result)]
        if bad:
            raise _error_at(bad[0].loc or d.loc,
                            "reads the result of tl.dot (%s) before the txl.dot_wait that retires it (%s): the "
                            "tensor cores may still be writing it" % (_loc_text(d.loc), _loc_text(_b().loc)),
                            "move this read after txl.dot_wait, or drop the txl.dot_wait to make the dot "
                            "synchronous")
        ok.append(d)
    for d in ok:
        d.attrs["async"] = True
    for d in issued[len(covered):]:
        d.attrs["async"] = True  # still in flight after this wait: only a later wait may read it
        d.attrs["pending_wait"] = True
    vals = [d.result for d in ok if not any(_reads(o, d.result) for o in block.ops[block.ops.index(d) + 1:])]
    if not vals:
        b.create("txl.dot_wait %d" % n, [], [])
        return None
    tys = [v.type for v in vals]
    names = ", ".join("{o[%d]}" % i for i in range(len(vals)))
    types = ", ".join("{t[%d]}" % i for i in range(len(vals)))
    op = b.create("txl.dot_wait %d, %s : %s" % (n, names, types), vals, tys)
    ctx = _ctx()
    if ctx.codegen is not None:
        for old, new in zip(vals, op.results):
            ctx.codegen.replace_value(old, tensor(new, new.type))
    return None


_LOC_RE = None


def _parse_loc(loc):
    """(file, line, col) of a 'loc("file":line:col)' string, or None."""
    global _LOC_RE
    if _LOC_RE is None:
        import re
        _LOC_RE = re.compile(r'loc\((".*"):(\d+):(\d+)\)$')
    m = _LOC_RE.match(loc or "")
    if not m:
        return None
    import json
    return json.loads(m.group(1)), int(m.group(2)), int(m.group(3))


def _loc_text(loc):
    where = _parse_loc(loc)
    return "line %d" % where[1] if where else "earlier"


def _error_at(loc, message, fix=None):
    """A CompilationError at an op the kernel created earlier (its recorded source location), for errors found
    when a later statement runs; a SemanticError (at the statement running now) when the op has no location."""
    where = _parse_loc(loc)
    if where is None:
        return SemanticError(message, fix)
    import linecache
    from ..compiler.errors import CompilationError
    file, line, col = where
    ctx = _ctx()
    kernel = getattr(getattr(ctx.codegen, "info", None), "name", None) if ctx.codegen is not None else None
    return CompilationError(message, file=file, line=line, col=col, source_line=linecache.getline(file, line) or None,
                            fix=fix, kernel=kernel)


def _reads(op, value):
    """True if ``op`` or an op nested in its regions uses ``value``."""
    if any(v is value for v in op.operands):
        return True
    return any(_reads(o, value) for r in op.regions for blk in r.blocks for o in blk.ops)


def finalize_dots(ctx):
    """Marks each txl.dot async or not (see dot_wait) once the whole kernel has been generated."""
    for op in ctx.dots:
        op.template = op.template.replace("%s", " {{async}}" if op.attrs.get("async") else "", 1)


# ----------------------------------------------------------------------------------------------------------------
# TMA descriptors as Triton values: desc.load / desc.store
# ----------------------------------------------------------------------------------------------------------------
def _offsets(offsets, rank, what):
    offsets = _unwrap(offsets)
    if not isinstance(offsets, (tuple, list)):
        offsets = [offsets]
    if len(offsets) != rank:
        raise SemanticError("%s needs %d offsets (one per dimension of the descriptor), got %d"
                            % (what, rank, len(offsets)))
    return [_i32(o, "%s offset" % what) for o in offsets]


def _desc(desc, what):
    desc = _unwrap(desc)
    if not isinstance(desc, tensor) or not isinstance(desc.type, tensordesc_type):
        raise SemanticError("%s needs a TMA descriptor argument (signature 'tensordesc<bf16[128, 64]>'), got %s"
                            % (what, desc.type if isinstance(desc, tensor) else repr(desc)))
    return desc


def desc_load(desc, offsets):
    """desc.load([x, y]): one ``txl.desc_load``. The C++ passes decide how the tile travels: a ring of buffers
    filled iterations ahead in a pipelined loop (txl-schedule-loops), else a staging buffer, an mbarrier and its
    phase (txl-lower-tile-copies)."""
    desc = _desc(desc, "desc.load")
    idx = _offsets(offsets, len(desc.type.block_shape), "desc.load")
    rt = block_type(desc.type.element_ty, desc.type.block_shape)
    coords = ", ".join("{o[%d]}" % (i + 1) for i in range(len(idx)))
    op = _b().create("txl.desc_load {o[0]}[%s] : {t[0]} -> {r[0]}" % coords, [desc.handle] + [i.handle for i in idx],
                     [rt], pure=True)
    out = tensor(op.result, rt)
    out.from_desc = True  # a dot reads it where desc.load brought it (see dot)
    return out


def desc_store(desc, offsets, value):
    """desc.store([x, y], v): one ``txl.desc_store`` (complete when it returns; txl-lower-tile-copies stages it)."""
    desc = _desc(desc, "desc.store")
    idx = _offsets(offsets, len(desc.type.block_shape), "desc.store")
    val = to_tensor(value)
    shape, ety = desc.type.block_shape, desc.type.element_ty
    if not isinstance(val.type, block_type) or list(val.type.shape) != list(shape):
        raise SemanticError("desc.store: the value must be a %s tile (the descriptor's block), got %s"
                            % (shape, val.type))
    val = cast(val, ety)
    n = len(idx)
    coords = ", ".join("{o[%d]}" % (i + 1) for i in range(n))
    _b().create("txl.desc_store {o[0]}[%s], {o[%d]} : {t[0]}, {t[%d]}" % (coords, n + 1, n + 1),
                [desc.handle] + [i.handle for i in idx] + [val.handle], [])


# ----------------------------------------------------------------------------------------------------------------
# Device-built TMA descriptors: tl.make_tensor_descriptor
# ----------------------------------------------------------------------------------------------------------------
# A descriptor built in the kernel lives in global memory (TMA reads tensor maps from param, const or global
# space). The kernel gets one hidden parameter, `txl_global_scratch` (a !txl.ptr<i8> marked
# `txl.global_scratch = bytes per CTA`), which the launcher allocates and passes. Each call site has one
# 128-byte slot per warpgroup and CTA, because the first thread of each warpgroup that runs the op builds its own
# copy (it is the thread that issues that warpgroup's TMA): slot = ((site * warpgroups + warpgroup) * CTAs + CTA)
# * 128, so the per-CTA size is only needed at the end (sites * warpgroups * 128).
GLOBAL_SCRATCH = "txl_global_scratch"


def _grid_value(name, axis):
    op = _b().create("txl.%s %d" % (name, axis), [], [core.int32], pure=True)
    return cast(tensor(op.result, core.int32), core.int64)


def _descriptor_slot():
    ctx = _ctx()
    st = ctx.__dict__.setdefault("global_scratch", {"arg": None, "sites": {}})
    if st["arg"] is None:
        if getattr(ctx, "entry", None) is None:
            raise SemanticError("tl.make_tensor_descriptor needs a kernel (the launcher passes its scratch memory)")
        st["arg"] = ctx.entry.add_arg(core.pointer_type(core.int8), GLOBAL_SCRATCH)
    site = ctx.codegen.call_site() if ctx.codegen is not None else (object(),)
    index = st["sites"].setdefault(site, len(st["sites"]))
    warpgroups = max(1, -(-ctx.num_warps * ctx.num_warpgroups // 4))
    ctas = binary("*", binary("*", _grid_value("num_programs", 0), _grid_value("num_programs", 1)),
                  _grid_value("num_programs", 2))
    cta = binary("+", _grid_value("program_id", 0),
                 binary("*", _grid_value("num_programs", 0),
                        binary("+", _grid_value("program_id", 1),
                               binary("*", _grid_value("num_programs", 1), _grid_value("program_id", 2)))))
    # Each warpgroup's leader writes its own slot; in a kernel whose role spans the warpgroups (num_warps = 8) the
    # code generator makes this 0 (one leader, one slot used).
    wg = cast(tensor(_b().create("txl.warpgroup_id", [], [core.int32], pure=True, attrs={"role_slot": True}).result,
                     core.int32), core.int64)
    slot = binary("+", binary("*", binary("+", constant(index * warpgroups, core.int64), wg), ctas), cta)
    return addptr(tensor(st["arg"], st["arg"].type), binary("*", slot, constant(128, core.int64)))


def global_scratch_bytes(ctx):
    """(the hidden scratch argument, bytes per CTA), or None when the kernel builds no descriptor."""
    st = ctx.__dict__.get("global_scratch")
    if not st or st["arg"] is None:
        return None
    warpgroups = max(1, -(-ctx.num_warps * ctx.num_warpgroups // 4))
    return st["arg"], len(st["sites"]) * warpgroups * 128


def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero"):
    """tl.make_tensor_descriptor(base, shape, strides, block_shape): a TMA descriptor built on the device (see the
    comment above) for desc.load / desc.store and the TXL TMA builtins."""
    base = to_tensor(base)
    if not isinstance(base.type, pointer_type) or base.type.address_space != 1:
        raise SemanticError("tl.make_tensor_descriptor needs a global pointer as base, got %s" % base.type)
    ety = base.type.element_ty
    if ety.primitive_bitwidth not in (8, 16, 32, 64) or ety.is_bool():
        raise SemanticError("tl.make_tensor_descriptor: TMA moves 8-, 16-, 32- and 64-bit elements, got %s"
                            % ety.name)
    block = [_static_int(b, "tl.make_tensor_descriptor block_shape") for b in _unwrap(block_shape)]
    shape, strides = list(_unwrap(shape)), list(_unwrap(strides))
    if not 1 <= len(block) <= 5 or len(shape) != len(block) or len(strides) != len(block):
        raise SemanticError("tl.make_tensor_descriptor needs 1 to 5 dimensions and as many sizes, strides and "
                            "block sizes; got %d, %d and %d" % (len(shape), len(strides), len(block)))
    if const_value(to_tensor(strides[-1])) != 1:
        raise SemanticError("tl.make_tensor_descriptor: the last stride must be the constant 1 (TMA reads rows "
                            "that are contiguous in memory), got %r" % (_unwrap(strides[-1]),),
                            "transpose the tensor first (or describe its transpose and use .T on the tile)")
    padding = _unwrap(padding_option)
    if padding not in ("zero", "nan"):
        raise SemanticError("tl.make_tensor_descriptor(padding_option=%r): out-of-bounds elements read as 'zero' "
                            "or 'nan'" % (padding,), "use padding_option='zero' or 'nan'")
    if padding == "nan" and not ety.is_floating() or padding == "nan" and ety.is_fp8():
        raise SemanticError("tl.make_tensor_descriptor(padding_option='nan'): NaN padding needs fp16, bf16, fp32 or "
                            "fp64 elements, got %s" % ety.name, "use padding_option='zero'")

    def i64(v, what):
        v = _unwrap(v)
        if not isinstance(v, tensor):
            return constant(_static_int(v, "tl.make_tensor_descriptor %s" % what), core.int64)
        if not isinstance(v.type, dtype) or not v.dtype.is_int() or v.dtype.is_bool():
            raise SemanticError("tl.make_tensor_descriptor %s must be integer scalars, got %s" % (what, v.type))
        return cast(v, core.int64)

    dims = [i64(v, "sizes") for v in shape]
    strd = [i64(v, "strides") for v in strides]
    try:
        desc_ty = tensordesc_type(ety, block)
    except ValueError as e:
        raise SemanticError("tl.make_tensor_descriptor: %s" % e) from None
    slot = _descriptor_slot()
    n = len(block)
    operands = [base.handle] + [v.handle for v in dims] + [v.handle for v in strd] + [slot.handle]
    tmpl = "txl.make_tensor_descriptor {o[0]}, [%s], [%s], {o[%d]}%s : {t[0]}, {t[%d]} -> %s" % (
        ", ".join("{o[%d]}" % (1 + i) for i in range(n)), ", ".join("{o[%d]}" % (1 + n + i) for i in range(n)),
        1 + 2 * n, " {{nan_fill}}" if padding == "nan" else "", 1 + 2 * n, desc_ty.to_ir())
    op = _b().create(tmpl, operands, [desc_ty])
    return tensor(op.result, desc_ty)


# ----------------------------------------------------------------------------------------------------------------
# Shared memory, mbarriers, TMA (the TXL builtins call these)# ----------------------------------------------------------------------------------------------------------------
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
    op = _b().create_hoisted("txl.smem_alloc : {r[0]}", [ty])
    return tensor(op.result, ty)


def tmem_alloc(shape, dtype_, num_stages=1):
    shape = _shape_list(shape, "txl.tmem_alloc")
    n = _static_int(num_stages, "txl.tmem_alloc num_stages")
    ty = tmem_type(shape, _unwrap(dtype_), n)
    op = _b().create_hoisted("txl.tmem_alloc : {r[0]}", [ty])
    return tensor(op.result, ty)


def mbar_alloc(arr_count, num_stages=1):
    count = _static_int(arr_count, "txl.mbar_alloc arr_count")
    n = _static_int(num_stages, "txl.mbar_alloc num_stages")
    ty = mbar_type(n)
    op = _b().create_hoisted("txl.mbar_alloc count %d : {r[0]}" % count, [ty])
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
    if p is None:
        _b().create("txl.mbar_expect {o[0]}, %d" % n, [bar.handle], [])
    else:
        _b().create("txl.mbar_expect {o[0]}, %d pred {o[1]}" % n, [bar.handle, p.handle], [])


def tma_load(dst, desc, offsets, mbar):
    desc = _desc(desc, "txl.tma_load")
    view = as_view(dst, "txl.tma_load destination")
    bar = as_view(mbar, "txl.tma_load mbarrier", kind="mbar")
    idx = _offsets(offsets, len(desc.type.block_shape), "txl.tma_load")
    if not isinstance(view.type, smem_type):
        raise SemanticError("txl.tma_load writes a shared-memory buffer, got %s" % view.type)
    view.type.cell.set_swizzle(desc.type.swizzle, "a TMA load")
    n = len(idx)
    names = ", ".join("{o[%d]}" % (i + 1) for i in range(n))
    _b().create("txl.tma_load {o[0]}[%s], {o[%d]}, {o[%d]} : {t[0]}, {t[%d]}" % (names, n + 1, n + 2, n + 1),
                [desc.handle] + [i.handle for i in idx] + [view.handle, bar.handle], [])


TMA_REDUCE_KINDS = ("add", "min", "max")


def tma_store(src, desc, offsets, reduce=None):
    desc = _desc(desc, "txl.tma_store")
    view = as_view(src, "txl.tma_store source")
    idx = _offsets(offsets, len(desc.type.block_shape), "txl.tma_store")
    if reduce is not None and (not isinstance(reduce, str) or reduce not in TMA_REDUCE_KINDS):
        raise SemanticError("txl.tma_store(reduce=%r): the TMA reductions are %s" % (reduce, ", ".join(
            map(repr, TMA_REDUCE_KINDS))))
    view.type.cell.set_swizzle(desc.type.swizzle, "a TMA store")
    n = len(idx)
    names = ", ".join("{o[%d]}" % (i + 2) for i in range(n))
    red = " reduce %s" % reduce if reduce else ""
    _b().create("txl.tma_store {o[0]}, {o[1]}[%s]%s : {t[0]}, {t[1]}" % (names, red),
                [view.handle, desc.handle] + [i.handle for i in idx], [])


def smem_load(src, ctaId=-1):
    view = as_view(src, "txl.smem_load")
    rt = block_type(view.type.element_ty, view.type.shape)
    attr = " {{ctaId = %d : i32}}" % ctaId if ctaId != -1 else ""
    op = _b().create("txl.smem_load {o[0]}%s : {t[0]} -> {r[0]}" % attr, [view.handle], [rt])
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
    attr = " {{ctaId = %d : i32}}" % ctaId if ctaId != -1 else ""
    _b().create("txl.smem_store {o[0]}, {o[1]}%s : {t[0]}, {t[1]}" % attr, [val.handle, view.handle], [])


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


def math_op(template, t, result_dtype_=None):
    """One elementwise op from a template with ``{o[0]}``/``{r[0]}`` (and ``{t[0]}``) on a scalar or tile."""
    t = to_tensor(t)
    _check_value(t, template.split()[0])
    rt = t.type if result_dtype_ is None else _with_elem(t.type, result_dtype_)
    return _unop(template, t, rt)


def _combine_inputs(what, inputs, combine_fn):
    """The @txl.jit combine function and the tiles (one, or a tuple of one shape) of tl.reduce / tl.associative_scan;
    booleans become int8 (i1 registers do not cross lanes)."""
    from ..jit import JITFunction
    fn = _unwrap(combine_fn)
    if not isinstance(fn, JITFunction):
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
    from ..compiler import ir
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
    body.ops.append(ir.Op("txl.reduce_return %s : %s" % (", ".join("{o[%d]}" % i for i in range(n)),
                                                         ", ".join("{t[%d]}" % i for i in range(n))),
                          [r.handle for r in rets], []))
    return ir.Region([body], print_entry_args=True)


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
    n = len(ts)
    region = _combine_region(what, fn, etys)
    out_shape = shape[:axis] + shape[axis + 1:]
    rts = [block_type(ety, out_shape) if out_shape else ety for ety in etys]
    ops_ = ", ".join("{o[%d]}" % i for i in range(n))
    tys = ", ".join("{t[%d]}" % i for i in range(n))
    res = ", ".join("{r[%d]}" % i for i in range(n))
    op = _b().create("txl.reduce %s axis %d : (%s) -> %s {R[0]}" % (ops_, axis, tys, res if n == 1 else "(%s)" % res),
                     [t.handle for t in ts], rts, regions=[region], pure=True)
    outs = [tensor(v, rt) for v, rt in zip(op.results, rts)]
    if keep_dims:
        outs = [expand_dims(o, axis) for o in outs]
    return outs[0] if single else tuple(outs)


def scan_named(kind, t, axis=0, reverse=False, dtype_=None):
    """tl.cumsum / tl.cumprod: one txl.scan with an add / mul combiner. As in Triton, bfloat16 is scanned in
    float32, and cumsum widens integers narrower than 32 bits to (u)int32 unless ``dtype`` says otherwise."""
    from ..compiler import ir
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
    comb = ir.Op("arith.%s {o[0]}, {o[1]} : {r[0]}" % _combine_name(kind, ety), body.args, [ety], pure=True)
    body.ops = [comb, ir.Op("txl.reduce_return {o[0]} : {t[0]}", [comb.result], [])]
    region = ir.Region([body], print_entry_args=True)
    op = _b().create("txl.scan {o[0]} axis %d%s : ({t[0]}) -> {r[0]} {R[0]}" % (axis, " reverse" if reverse else ""),
                     [t.handle], [t.type], regions=[region], pure=True)
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
    n = len(ts)
    region = _combine_region(what, fn, etys)
    rts = [t.type for t in ts]
    ops_ = ", ".join("{o[%d]}" % i for i in range(n))
    tys = ", ".join("{t[%d]}" % i for i in range(n))
    res = ", ".join("{r[%d]}" % i for i in range(n))
    op = _b().create("txl.scan %s axis %d%s : (%s) -> %s {R[0]}"
                     % (ops_, axis, " reverse" if reverse else "", tys, res if n == 1 else "(%s)" % res),
                     [t.handle for t in ts], rts, regions=[region], pure=True)
    outs = [tensor(v, rt) for v, rt in zip(op.results, rts)]
    outs = [cast(o, core.int1) if b else o for o, b in zip(outs, bools)]
    return outs[0] if single else tuple(outs)


def device_assert(cond, msg=""):
    """tl.device_assert / ``assert`` on a run-time value: a txl.assert of the (boolean) condition when the kernel
    is compiled with debug (as in Triton; otherwise nothing)."""
    cond = to_tensor(cond)
    if not cond.dtype.is_bool():
        cond = binary("!=", cond, 0)
    if not _ctx().debug:
        return None
    text = str(msg).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("{", "{{").replace("}", "}}")
    _b().create('txl.assert {o[0]}, "%s" : {t[0]}' % text, [cond.handle], [])
    return None


def sort_or_flip(kind, x, dim=None, descending=False):
    """tl.sort / tl.flip: one txl.sort (a bitonic network) or txl.flip along ``dim`` (the last one when None; txl
    takes any dimension, Triton only the last). Booleans travel as int8; unsigned integers sort as the next wider
    signed type (txl.sort compares signed)."""
    what = "tl." + kind
    t = to_tensor(x)
    if not isinstance(t.type, block_type):
        raise SemanticError("%s works on a tile, got the scalar %s" % (what, t.type))
    shape = _shape(t)
    axis = _reduction_axis(len(shape) - 1 if dim is None else dim, len(shape))
    if shape[axis] & (shape[axis] - 1):
        raise SemanticError("%s: dimension %d has %d elements; a power of two is needed" % (what, axis, shape[axis]))
    ety = t.dtype
    work = ety
    if ety.is_bool():
        if kind == "sort":
            raise SemanticError("tl.sort of booleans is not supported", "sort x.to(tl.int8) instead")
        work = core.int8
    elif kind == "sort" and ety.is_int_unsigned():
        if ety.primitive_bitwidth >= 64:
            raise SemanticError("tl.sort of uint64 is not supported (txl compares signed)",
                                "sort x.to(tl.int64) when the values fit")
        work = core.int64 if ety.primitive_bitwidth == 32 else core.int32
    elif kind == "sort" and not (ety.is_int() or ety.is_floating()):
        raise SemanticError("tl.sort sorts integers and floats, got %s" % ety.name)
    t = cast(t, work)
    attrs = " descending" if kind == "sort" and descending else ""
    op = _b().create("txl.%s {o[0]} axis %d%s : {t[0]}" % (kind, axis, attrs), [t.handle], [t.type])
    return cast(tensor(op.result, t.type), ety)


def topk(x, k, dim=None):
    """tl.topk: the k largest elements along ``dim`` (the last one when None), in descending order. The dimension
    is sorted descending (txl.sort), split into (n / k, k) and reduced with max over the first part: column c of
    the split holds sorted elements c, k + c, 2k + c, ..., of which the first is the largest."""
    t = to_tensor(x)
    if not isinstance(t.type, block_type):
        raise SemanticError("tl.topk works on a tile, got the scalar %s" % t.type)
    shape = _shape(t)
    axis = _reduction_axis(len(shape) - 1 if dim is None else dim, len(shape))
    k = _static_int(k, "tl.topk k")
    n = shape[axis]
    if k < 1 or k > n or k & (k - 1):
        raise SemanticError("tl.topk: k must be a power of two from 1 to the dimension's %d elements, got %d" % (n, k))
    s = sort_or_flip("sort", t, axis, descending=True)
    if k == n:
        return s
    split = reshape(s, shape[:axis] + [n // k, k] + shape[axis + 1:])
    return reduce_named("max", split, axis)
