"""Run-time values from Python values: constants (hoisted and deduplicated), ``to_tensor``, and the type promotion
rules (Triton's: Python numbers are "weak" and take the type of the tensor they meet, 16-bit floats of different
kinds meet in fp32, integers widen to the wider operand)."""

import math
import struct

from ... import ir
from ...ir import dialects as ods
from ...errors import SemanticError
from .. import core
from ..core import dtype, tensor, _unwrap
from .context import _b


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
    op = _b().hoist(ods.arith.constant(result=ty, value=ir.Attr(lit if ty.is_bool() else "%s : %s" % (lit, ty))),
                    attrs={"const": value}, key=("const", lit, ty.to_ir()))
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
        return x if ty is None else arith.cast(x, ty)
    if isinstance(x, (bool, int, float)):
        return constant(x, ty or weak_dtype(x))
    if x is None:
        raise SemanticError("None cannot be used as a run-time value")
    raise SemanticError("%r cannot be used as a run-time value here" % (x,))


def dense(value, ty):
    """``arith.constant dense<v> : tensor<...>`` (emitted at its use: tile constants are not hoisted so each use
    gets the register layout it needs)."""
    lit = _literal(value, ty.element_ty)
    op = _b().insert(ods.arith.constant(result=ty, value=ir.TypedAttr("dense<%s>" % lit, ty)),
                     attrs={"const": value})
    return tensor(op.result, ty)


def _i32(x, what):
    """``x`` as an i32 run-time value (int constexprs become constants)."""
    x = _unwrap(x)
    if isinstance(x, tensor):
        if isinstance(x.type, dtype) and x.type.is_int() and not x.type.is_bool():
            return x if x.type == core.int32 else arith.cast(x, core.int32)
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


# arith needs this module's functions, and to_tensor / _i32 convert with arith.cast: a module reference,
# bound once this module's names exist (the package imports this module before arith).
from . import arith  # noqa: E402
