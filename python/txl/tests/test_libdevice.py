"""CUDA's libdevice through txl (no GPU needed): the libdevice functions PTX has no instruction for
(``tl.extra.cuda.libdevice.asin``, ``pow``, ``erf``, ``add_rd``, ``brev``, ...) become one ``txl.extern_elementwise``
each, with the symbol and argument types libdevice defines (``libdevice_table.py``, read from libdevice.10.bc), and
txlc links libdevice and inlines them: the PTX calls and declares no ``__nv_`` function. The GPU test
(gpu/test_libdevice_gpu.py) checks the values against torch in float64."""

import os

import pytest

import txl
import txl.language as tl
from txl.language import triton_api as api
from txl.language.extra import libdevice

from .dsl_helpers import TXLC, _need, compile_ptx, ir_of

LIBDEVICE_BC = os.environ.get("TXL_LIBDEVICE") or "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"
needs_libdevice = pytest.mark.skipif(not os.path.exists(LIBDEVICE_BC), reason="CUDA's libdevice.10.bc is missing")


@txl.jit
def _libdevice_linked(x_ptr, d_ptr, i_ptr, l_ptr, y_ptr):
    """Every function txl implements as a libdevice call, once, in fp32 (fp64 / ints where that is its type)."""
    offs = tl.arange(0, 128)
    x = tl.load(x_ptr + offs)
    d = tl.load(d_ptr + offs)
    i = tl.load(i_ptr + offs)
    ll = tl.load(l_ptr + offs)
    f = x
    f += libdevice.acos(x) + libdevice.acosh(x) + libdevice.add_rd(x, x) + libdevice.add_ru(x, x)
    f += libdevice.add_rz(x, x) + libdevice.asin(x) + libdevice.asinh(x) + libdevice.atan(x)
    f += libdevice.atan2(x, x) + libdevice.atanh(x) + libdevice.brev(i).to(tl.float32)
    f += libdevice.byte_perm(i, i, i).to(tl.float32) + libdevice.cbrt(x) + libdevice.cos(x) + libdevice.cosh(x)
    f += libdevice.cospi(x) + libdevice.cyl_bessel_i0(x) + libdevice.cyl_bessel_i1(x) + libdevice.div_rd(x, x)
    f += libdevice.div_ru(x, x) + libdevice.div_rz(x, x) + libdevice.double2float_rd(d)
    f += libdevice.double2float_ru(d) + libdevice.double2float_rz(d) + libdevice.erf(x) + libdevice.erfc(x)
    f += libdevice.erfcinv(x) + libdevice.erfcx(x) + libdevice.erfinv(x) + libdevice.exp(x) + libdevice.exp10(x)
    f += libdevice.expm1(x) + libdevice.fdim(x, x) + libdevice.fma_rd(x, x, x) + libdevice.fma_ru(x, x, x)
    f += libdevice.fma_rz(x, x, x) + libdevice.fmod(x, x) + libdevice.hadd(i, i).to(tl.float32)
    f += libdevice.hypot(x, x) + libdevice.ilogb(x).to(tl.float32) + libdevice.int2float_rd(i)
    f += libdevice.int2float_ru(i) + libdevice.int2float_rz(i) + libdevice.j0(x) + libdevice.j1(x)
    f += libdevice.jn(i, x) + libdevice.ldexp(x, i) + libdevice.lgamma(x)
    f += libdevice.ll2double_rd(ll).to(tl.float32) + libdevice.ll2double_ru(ll).to(tl.float32)
    f += libdevice.ll2double_rz(ll).to(tl.float32) + libdevice.ll2float_rd(ll) + libdevice.ll2float_ru(ll)
    f += libdevice.ll2float_rz(ll) + libdevice.llrint(x).to(tl.float32) + libdevice.llround(x).to(tl.float32)
    f += libdevice.log(x) + libdevice.log10(x) + libdevice.log1p(x) + libdevice.logb(x)
    f += libdevice.mul24(i, i).to(tl.float32) + libdevice.mul_rd(x, x) + libdevice.mul_ru(x, x)
    f += libdevice.mul_rz(x, x) + libdevice.nextafter(x, x) + libdevice.norm3d(x, x, x)
    f += libdevice.norm4d(x, x, x, x) + libdevice.normcdf(x) + libdevice.normcdfinv(x) + libdevice.pow(x, x)
    f += libdevice.rcbrt(x) + libdevice.rcp64h(d).to(tl.float32) + libdevice.rcp_rd(x) + libdevice.rcp_ru(x)
    f += libdevice.rcp_rz(x) + libdevice.remainder(x, x) + libdevice.rhadd(i, i).to(tl.float32)
    f += libdevice.rhypot(x, x) + libdevice.rnorm3d(x, x, x) + libdevice.rnorm4d(x, x, x, x)
    f += libdevice.rsqrt_rn(x) + libdevice.sad(i, i, i).to(tl.float32) + libdevice.scalbn(x, i) + libdevice.sin(x)
    f += libdevice.sinh(x) + libdevice.sinpi(x) + libdevice.sqrt_rd(x) + libdevice.sqrt_ru(x)
    f += libdevice.sqrt_rz(x) + libdevice.sub_rd(x, x) + libdevice.sub_ru(x, x) + libdevice.sub_rz(x, x)
    f += libdevice.tan(x) + libdevice.tanh(x) + libdevice.tgamma(x) + libdevice.uint2float_rd(i)
    f += libdevice.uint2float_ru(i) + libdevice.uint2float_rz(i) + libdevice.ull2double_rd(ll).to(tl.float32)
    f += libdevice.ull2double_ru(ll).to(tl.float32) + libdevice.ull2double_rz(ll).to(tl.float32)
    f += libdevice.ull2float_rd(ll) + libdevice.ull2float_ru(ll) + libdevice.ull2float_rz(ll) + libdevice.y0(x)
    f += libdevice.y1(x) + libdevice.yn(i, x)
    tl.store(y_ptr + offs, f)


SIG = {"x_ptr": "*fp32", "d_ptr": "*fp64", "i_ptr": "*i32", "l_ptr": "*i64", "y_ptr": "*fp32"}


def test_every_libdevice_call_is_one_extern_op_with_libdevices_symbol():
    text = ir_of(_libdevice_linked, SIG)
    for name in api.LIBDEVICE_CALLS:
        assert "libdevice.%s(" % name in _libdevice_linked.src, name
    for sym in ("__nv_asinf", "__nv_atan2f", "__nv_fadd_rd", "__nv_fmaf_rz", "__nv_double2float_ru", "__nv_jnf",
                "__nv_ldexpf", "__nv_brev", "__nv_byte_perm", "__nv_ll2double_rd", "__nv_rcp64h", "__nv_frsqrt_rn"):
        assert 'txl.extern_elementwise "%s"' % sym in text, sym


@needs_libdevice
def test_libdevice_is_linked_and_inlined():
    _need(TXLC)
    ptx, _ = compile_ptx(ir_of(_libdevice_linked, SIG))
    assert "__nv_" not in ptx and ".extern" not in ptx


@txl.jit
def _variants(h_ptr, u_ptr, y_ptr, v_ptr):
    offs = tl.arange(0, 64)
    h = tl.load(h_ptr + offs)
    u = tl.load(u_ptr + offs)
    tl.store(y_ptr + offs, libdevice.asin(h))  # fp16: computed in fp32, converted back
    tl.store(v_ptr + offs, libdevice.hadd(u, u) + libdevice.pow(h.to(tl.float64), 2))  # unsigned: __nv_uhadd


def test_half_precision_computes_in_fp32_and_unsigned_picks_the_u_variant():
    text = ir_of(_variants, {"h_ptr": "*fp16", "u_ptr": "*u32", "y_ptr": "*fp16", "v_ptr": "*fp64"})
    assert '"__nv_asinf"' in text and "arith.extf" in text and "arith.truncf" in text
    assert '"__nv_uhadd"' in text and '"__nv_pow"' in text


@txl.jit
def _wrong_type(x_ptr):
    offs = tl.arange(0, 64)
    tl.store(x_ptr + offs, libdevice.brev(tl.load(x_ptr + offs)))


def test_a_variant_libdevice_lacks_is_refused_with_its_signatures():
    with pytest.raises(Exception, match=r"libdevice.brev has no variant for \(fp32\): libdevice defines "
                                        r"__nv_brev\(i32\), __nv_brevll\(i64\)"):
        ir_of(_wrong_type, {"x_ptr": "*fp32"})


@needs_libdevice
def test_missing_libdevice_is_a_clear_error(monkeypatch, tmp_path):
    _need(TXLC)
    monkeypatch.setenv("TXL_LIBDEVICE", str(tmp_path / "nowhere.bc"))
    with pytest.raises(AssertionError, match=r"calls libdevice's '__nv_\w+' but CUDA's libdevice.10.bc was not "
                                             r"found \(looked in: .*nowhere.bc\); install the CUDA toolkit"):
        compile_ptx(ir_of(_variants, {"h_ptr": "*fp16", "u_ptr": "*u32", "y_ptr": "*fp16", "v_ptr": "*fp64"}))


@txl.jit
def _erf(x_ptr, y_ptr):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, tl.erf(x) + tl.math.erf(x))


def test_tl_erf_is_libdevices():
    text = ir_of(_erf, {"x_ptr": "*bf16", "y_ptr": "*bf16"})
    assert text.count('txl.extern_elementwise "__nv_erff"') == 2


def test_extern_libs_launch_option(tmp_path):
    # Triton's tutorial 07 launches with extern_libs={'libdevice': <its source tree's copy>}
    from txl.compiler.compiler import _txlc_flags

    bc = tmp_path / "libdevice.10.bc"
    bc.write_bytes(b"BC")
    assert _variants._libdevice_of({"libdevice": str(bc)}) == str(bc)
    assert _variants._libdevice_of({"libdevice": str(tmp_path / "missing.bc")}) is None  # txlc searches itself
    with pytest.raises(ValueError, match="txl links only CUDA's libdevice"):
        _variants._libdevice_of({"ocml": "ocml.bc"})
    assert "--libdevice=" + str(bc) in _txlc_flags("sm_90a", False, str(bc))
