"""``libdevice`` (``txl.language.extra.cuda.libdevice``; ``from txl.language.extra import libdevice``): the
functions of Triton 3.6's ``triton.language.extra.cuda.libdevice`` that PTX computes with its own instructions
(rounding, classification, bit casts, conversions, popc/clz, the ``fast_*`` approximations, the ``_rn``
operations), and the others (the exact transcendental functions ``exp``, ``sin``, ``tanh``, ``pow``, ``erf``...,
the directed roundings, the integer intrinsics) as calls of CUDA's libdevice, which txlc links from
libdevice.10.bc (see ``triton_api.LIBDEVICE``).

Integer results follow libdevice: the classification functions (``isnan``, ``isinf``, ``finitef``,
``isfinited``, ``signbit``) and ``popc``/``clz``/``ffs`` return int32 (0 or 1 for the classifications).
"""

import math as _pymath

from ....ir import dialects as ods
from ....errors import SemanticError
from ... import core as _core
from ... import semantic as S
from ... import triton_api as _api
from ...core import builtin, _unwrap
from ...standard import abs, fma  # noqa: F401  (libdevice.abs / libdevice.fma are tl.abs / tl.fma)
from .libdevice_table import SIGNATURES as _SIGS

_F32, _F64 = _core.float32, _core.float64
_I32, _U32, _I64, _U64 = _core.int32, _core.uint32, _core.int64, _core.uint64


def _float(x, what):
    t = S.to_tensor(x)
    if not t.dtype.is_floating():
        raise SemanticError("libdevice.%s takes floating-point values, got %s" % (what, t.dtype.name),
                            "convert first: x.to(tl.float32)")
    return t


def _fp32(x, what):
    """The fast_* approximations exist in fp32 only (libdevice's are __nv_fast_*f)."""
    t = S.to_tensor(x)
    if t.dtype.is_int():
        t = S.cast(t, _F32)
    if t.dtype != _F32:
        raise SemanticError("libdevice.%s computes in fp32, got %s" % (what, t.dtype.name),
                            "convert first: libdevice.%s(x.to(tl.float32))" % what)
    return t


def _int(x, what):
    t = S.to_tensor(x)
    if not t.dtype.is_int() or t.dtype.is_bool():
        raise SemanticError("libdevice.%s takes integers, got %s" % (what, t.dtype.name))
    return t


def _unary(name, template, check=_float):
    def fn(x):
        return S.math_op(template, check(x, name))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = "libdevice.%s: ``%s``." % (name, template)
    return builtin(fn)


# -- rounding, roots ---------------------------------------------------------------------------------------------
ceil = _unary("ceil", "math.ceil")
floor = _unary("floor", "math.floor")
trunc = _unary("trunc", "math.trunc")
rint = _unary("rint", "math.roundeven")
nearbyint = _unary("nearbyint", "math.roundeven")
round = _unary("round", "math.round")  # halfway cases away from zero, as C's roundf
sqrt = _unary("sqrt", "math.sqrt")
sqrt_rn = _unary("sqrt_rn", "math.sqrt")
rsqrt = _unary("rsqrt", "math.rsqrt")
exp2 = _unary("exp2", "math.exp2", _fp32)  # ex2.approx.f32, subnormals kept (as __nv_exp2f)
log2 = _unary("log2", "math.log2", _fp32)


@builtin
def fma_rn(x, y, z):
    return S.fma(x, y, z)


# -- operations rounded to nearest (no contraction into fma) ----------------------------------------------------
def _binary_rn(name, arith):
    def fn(x, y):
        tx, ty = S.to_tensor(x), S.to_tensor(y)
        ety = S.result_dtype(tx.dtype, ty.dtype, not isinstance(_unwrap(x), _core.tensor),
                             not isinstance(_unwrap(y), _core.tensor))
        if not ety.is_floating():
            ety = _F32
        tx, ty = S.binary_broadcast(S.cast(tx, ety), S.cast(ty, ety), "libdevice." + name)
        op = S._b().insert(getattr(ods.arith, arith)(tx.handle, ty.handle, result=tx.type))
        return _core.tensor(op.result, tx.type)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = "libdevice.%s: IEEE %s rounded to nearest even, never fused into an fma." % (name, arith)
    return builtin(fn)


add_rn = _binary_rn("add_rn", "addf")
sub_rn = _binary_rn("sub_rn", "subf")
mul_rn = _binary_rn("mul_rn", "mulf")
div_rn = _binary_rn("div_rn", "divf")


@builtin
def rcp_rn(x):
    t = _float(x, "rcp_rn")
    return div_rn(S.to_tensor(1.0, t.dtype), t)


@builtin
def fast_dividef(x, y):
    tx, ty = _fp32(x, "fast_dividef"), _fp32(y, "fast_dividef")
    tx, ty = S.binary_broadcast(tx, ty, "libdevice.fast_dividef")
    # `arcp` as well as `afn`: x times an approximate reciprocal (div.approx.f32, __fdividef); `afn` alone is
    # Triton's `/` (div.full.f32).
    op = S._b().insert(ods.arith.divf(tx.handle, ty.handle, result=tx.type, fastmath="arcp,afn"))
    return _core.tensor(op.result, tx.type)


@builtin
def copysign(x, y):
    tx, ty = _float(x, "copysign"), S.to_tensor(y)
    tx, ty = S.binary_broadcast(tx, S.cast(ty, tx.dtype), "libdevice.copysign")
    op = S._b().insert(ods.math.copysign(tx.handle, ty.handle, result=tx.type))
    return _core.tensor(op.result, tx.type)


@builtin
def saturatef(x):
    """x clamped to [0, 1]; NaN gives 0 (as __nv_saturatef)."""
    t = _float(x, "saturatef")
    return S.minmax("min", S.minmax("max", t, 0.0), 1.0)


# -- fast approximations (fp32) ---------------------------------------------------------------------------------
@builtin
def fast_expf(x):
    return S.math_unary("exp", _fp32(x, "fast_expf"))


@builtin
def fast_exp10f(x):
    t = _fp32(x, "fast_exp10f")
    return S.math_unary("exp2", S.binary("*", t, _pymath.log2(10.0)))


@builtin
def fast_logf(x):
    return S.math_unary("log", _fp32(x, "fast_logf"))


@builtin
def fast_log2f(x):
    return S.math_unary("log2", _fp32(x, "fast_log2f"))


@builtin
def fast_log10f(x):
    return S.binary("*", S.math_unary("log2", _fp32(x, "fast_log10f")), _pymath.log10(2.0))


@builtin
def fast_sinf(x):
    return S.math_unary("sin", _fp32(x, "fast_sinf"))


@builtin
def fast_cosf(x):
    return S.math_unary("cos", _fp32(x, "fast_cosf"))


@builtin
def fast_tanf(x):
    t = _fp32(x, "fast_tanf")
    return fast_dividef(S.math_unary("sin", t), S.math_unary("cos", t))


@builtin
def fast_powf(x, y):
    """exp2(y * log2(x)) with the approximate instructions (x > 0), as __nv_fast_powf."""
    return S.math_unary("exp2", S.binary("*", _fp32(y, "fast_powf"), S.math_unary("log2", _fp32(x, "fast_powf"))))


# -- classification (int32 results, as libdevice) ---------------------------------------------------------------
def _classify(name, test):
    def fn(x):
        t = _float(x, name)
        return S.cast(test(t), _I32)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = "libdevice.%s: 1 or 0 as int32." % name
    return builtin(fn)


def _cmpf(pred, a, b):
    op = S._b().insert(ods.arith.cmpf(a.handle, b.handle, result=S._with_elem(a.type, _core.int1), predicate=pred))
    return _core.tensor(op.result, S._with_elem(a.type, _core.int1))


def _inf_like(t):
    return S.dense(float("inf"), t.type) if isinstance(t.type, _core.block_type) else S.constant(float("inf"), t.dtype)


isnan = _classify("isnan", lambda t: _cmpf("uno", t, t))
isinf = _classify("isinf", lambda t: _cmpf("oeq", S.abs_(t), _inf_like(t)))
finitef = _classify("finitef", lambda t: _cmpf("olt", S.abs_(t), _inf_like(t)))
isfinited = _classify("isfinited", lambda t: _cmpf("olt", S.abs_(t), _inf_like(t)))


@builtin
def signbit(x):
    t = _float(x, "signbit")
    ity = {16: _core.int16, 32: _I32, 64: _I64}[t.dtype.primitive_bitwidth]
    return S.cast(S.binary("<", S.cast(t, ity, bitcast=True), 0), _I32)


# -- bit casts --------------------------------------------------------------------------------------------------
def _bitcast(name, src, dst):
    def fn(x):
        t = S.to_tensor(x)
        if t.dtype.primitive_bitwidth != src.primitive_bitwidth or t.dtype.is_floating() != src.is_floating():
            raise SemanticError("libdevice.%s takes %s, got %s" % (name, src.name, t.dtype.name))
        return S.cast(S.cast(t, src, bitcast=t.dtype.is_floating() != src.is_floating()), dst, bitcast=True)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = "libdevice.%s: the bits of a %s as a %s." % (name, src.name, dst.name)
    return builtin(fn)


float_as_int = _bitcast("float_as_int", _F32, _I32)
float_as_uint = _bitcast("float_as_uint", _F32, _U32)
int_as_float = _bitcast("int_as_float", _I32, _F32)
uint_as_float = _bitcast("uint_as_float", _U32, _F32)
double_as_longlong = _bitcast("double_as_longlong", _F64, _I64)
longlong_as_double = _bitcast("longlong_as_double", _I64, _F64)


def _as_u64(x, what):
    t = S.to_tensor(x)
    if t.dtype != _F64:
        raise SemanticError("libdevice.%s takes fp64, got %s" % (what, t.dtype.name))
    return S.cast(t, _U64, bitcast=True)


@builtin
def double2hiint(x):
    return S.cast(S.cast(S.binary(">>", _as_u64(x, "double2hiint"), 32), _U32), _I32)


@builtin
def double2loint(x):
    return S.cast(S.cast(_as_u64(x, "double2loint"), _U32), _I32)


@builtin
def hiloint2double(hi, lo):
    h = S.cast(S.cast(_int(hi, "hiloint2double"), _U32), _U64)
    lo_ = S.cast(S.cast(_int(lo, "hiloint2double"), _U32), _U64)
    return S.cast(S.binary("|", S.binary("<<", h, 32), lo_), _F64, bitcast=True)


# -- integer intrinsics -----------------------------------------------------------------------------------------
@builtin
def popc(x):
    return S.cast(S.math_op("math.ctpop", _int(x, "popc")), _I32)


@builtin
def clz(x):
    return S.cast(S.math_op("math.ctlz", _int(x, "clz")), _I32)


@builtin
def ffs(x):
    """1 + the index of the least significant set bit, 0 for 0 (as __nv_ffs)."""
    t = _int(x, "ffs")
    tz = S.cast(S.math_op("math.cttz", t), _I32)
    return S.where(S.binary("==", t, 0), 0, S.binary("+", tz, 1))


@builtin
def mulhi(x, y):
    """The high 32 bits of the 64-bit product (signed for int32, unsigned for uint32), as __nv_mulhi/umulhi."""
    tx = _int(x, "mulhi")
    return S.mulhi(tx, y, unsigned=tx.dtype.is_int_unsigned(), what="libdevice.mulhi")


# -- conversions ------------------------------------------------------------------------------------------------
_ROUND = {"rn": "math.roundeven", "rd": "math.floor", "ru": "math.ceil", "rz": None}
_NAMES = {"int": _I32, "uint": _U32, "ll": _I64, "ull": _U64, "float": _F32, "double": _F64}


def _to_int(name, src, dst, rounding):
    def fn(x):
        t = S.to_tensor(x)
        if not t.dtype.is_floating():
            raise SemanticError("libdevice.%s takes %s, got %s" % (name, src.name, t.dtype.name))
        t = S.cast(t, src)
        if _ROUND[rounding]:
            t = S.math_op(_ROUND[rounding], t)
        return S.cast(t, dst)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = "libdevice.%s: %s to %s, rounding %s." % (name, src.name, dst.name, rounding)
    return builtin(fn)


def _to_float(name, src, dst):
    def fn(x):
        t = S.to_tensor(x)
        if src.is_int() and not t.dtype.is_int():
            raise SemanticError("libdevice.%s takes %s, got %s" % (name, src.name, t.dtype.name))
        return S.cast(S.cast(t, src), dst)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = "libdevice.%s: %s to %s, rounded to nearest even." % (name, src.name, dst.name)
    return builtin(fn)


def _install_conversions(g):
    for s in ("float", "double"):
        for d in ("int", "uint", "ll", "ull"):
            for r in _ROUND:
                n = "%s2%s_%s" % (s, d, r)
                g[n] = _to_int(n, _NAMES[s], _NAMES[d], r)
    for s in ("int", "uint", "ll", "ull"):
        for d in ("float", "double"):
            n = "%s2%s_rn" % (s, d)
            g[n] = _to_float(n, _NAMES[s], _NAMES[d])
    g["double2float_rn"] = _to_float("double2float_rn", _F64, _F32)


_install_conversions(globals())


# -- the rest of libdevice: calls of CUDA's libdevice functions ---------------------------------------------------
# The transcendental functions, the directed roundings (add_rd, ...), the integer intrinsics (brev, sad, ...):
# one txl.extern_elementwise per call; txlc links libdevice.10.bc (--libdevice, TXL_LIBDEVICE or the CUDA
# toolkit's) and inlines the function. The symbol and its argument types come from libdevice itself
# (libdevice_table.py): fp32 picks __nv_<name>f, fp64 __nv_<name> (add_rd: __nv_fadd_rd / __nv_dadd_rd), unsigned
# integers the __nv_u<name> variant. fp16/bf16 operands compute in fp32 and the result is converted back.
_LLVM_TO_DTYPE = {"float": _F32, "double": _F64, "i32": _I32, "i64": _I64}


def _candidates(name):
    if name.endswith(("_rd", "_ru", "_rz", "_rn")) and "2" not in name:
        base, r = name[:-3], name[-2:]
        spellings = ["f%s_%s" % (base, r), "%sf_%s" % (base, r), "d%s_%s" % (base, r), "%s_%s" % (base, r)]
    else:
        spellings = [name + "f", name, "u" + name, name + "ll"]
    return ["__nv_" + c for c in spellings if "__nv_" + c in _SIGS]


def _llvm_type(t):
    d = t.dtype
    if d.is_floating():
        return "double" if d == _F64 else "float"
    return "i64" if d.primitive_bitwidth == 64 else "i32"


def _pick(name, args, weak):
    """(symbol, its signature) for the call's argument dtypes; None when libdevice has no such variant."""
    want = [_llvm_type(a) for a in args]
    unsigned = any(a.dtype.is_int_unsigned() for a, w in zip(args, weak) if not w)
    best = None
    for sym in _candidates(name):
        ret, params = _SIGS[sym]
        if len(params) != len(args):
            continue
        # a Python number fits any parameter of its kind (an int also a float one)
        if all(p == w_ or (wk and (p in ("float", "double") or w_ == p)) for p, w_, wk in zip(params, want, weak)):
            if best is None or sym.startswith("__nv_u") == unsigned:
                best = (sym, ret, params)
                if sym.startswith("__nv_u") == unsigned:
                    break
    return best


def _libdevice_call(name):
    def fn(*xs):
        if not xs:
            raise SemanticError("libdevice.%s needs arguments" % name)
        weak = [not isinstance(_unwrap(x), _core.tensor) for x in xs]
        args = [S.to_tensor(x) for x in xs]
        half = [a.dtype for a in args if a.dtype.is_floating() and a.dtype.primitive_bitwidth == 16]
        args = [S.cast(a, _F32) if a.dtype.is_floating() and a.dtype.primitive_bitwidth == 16 else a for a in args]
        picked = _pick(name, args, weak)
        if picked is None:
            sigs = ", ".join("%s(%s)" % (sym, ", ".join(_SIGS[sym][1])) for sym in _candidates(name))
            raise SemanticError("libdevice.%s has no variant for (%s): libdevice defines %s"
                                % (name, ", ".join(a.dtype.name for a in args), sigs),
                                "convert the arguments, e.g. x.to(tl.float32)")
        sym, ret, params = picked
        args = [S.cast(a, _LLVM_TO_DTYPE[p]) if _llvm_type(a) != p or a.dtype.is_bool() else a
                for a, p in zip(args, params)]
        shape = None
        for a in args:
            if isinstance(a.type, _core.block_type):
                shape = S._shape(a) if shape is None else S.broadcast_shapes(shape, S._shape(a), "libdevice." + name)
        if shape is not None:
            args = [S.broadcast_to(a, shape) for a in args]
        rdt = _LLVM_TO_DTYPE[ret]
        if rdt.is_int() and sym.startswith("__nv_u") and sym not in ("__nv_ull2float_rd",):
            rdt = _U32 if ret == "i32" else _U64
        rtype = _core.block_type(rdt, shape) if shape is not None else rdt
        op = S._b().insert(ods.txl.extern_elementwise([a.handle for a in args], result=rtype, symbol=sym))
        out = _core.tensor(op.result, rtype)
        if half and rdt == _F32 and all(h == half[0] for h in half):
            out = S.cast(out, half[0])
        return out
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = "libdevice.%s: CUDA libdevice's %s (linked from libdevice.10.bc)." % (
        name, " / ".join(_candidates(name)))
    return builtin(fn)


def _install_libdevice_calls(g):
    for name in _api.LIBDEVICE_CALLS:
        g[name] = _libdevice_call(name)


_install_libdevice_calls(globals())
_api.install_refusals(globals())


def __getattr__(name):
    raise _api.missing_attribute(__name__, name)
