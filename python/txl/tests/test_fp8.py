"""fp8 conversions of tiles (no GPU needed): float8e4nv / float8e5 to and from the float types lower to PTX's
cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 and cvt.rn.f16x2.{e4m3x2,e5m2x2}, two registers per instruction, and ptxas
accepts them; scalars and other fp8 formats are refused at the user's line. The GPU test (gpu/test_fp8_gpu.py)
compares the bytes with torch's conversions."""

import collections
import re

import pytest

import txl
import txl.language as tl
from txl.tests.gpu.fp8_cases import SIG, fp8_roundtrip

from .dsl_helpers import compile_ptx, ir_of


@pytest.mark.parametrize("e4", [True, False], ids=["e4m3", "e5m2"])
def test_fp8_conversions_lower_to_cvt(e4):
    text = ir_of(fp8_roundtrip, SIG[e4], {"E4": e4, "BLOCK": 256})
    kind = "f8E4M3FN" if e4 else "f8E5M2"
    assert "arith.truncf %%x : tensor<256xf32> to tensor<256x%s>" % kind in text
    assert "arith.extf %%f8 : tensor<256x%s> to tensor<256xf32>" % kind in text
    compile_ptx(text, emit="cubin")  # ptxas accepts it
    ptx, _ = compile_ptx(text)
    cvt = collections.Counter(re.findall(r"cvt\.[\w.]+", ptx))
    x2 = "e4m3x2" if e4 else "e5m2x2"
    # two registers per instruction each way (then f16 -> f32 per register)
    pairs = cvt["cvt.rn.satfinite.%s.f32" % x2]
    assert pairs >= 1 and cvt["cvt.rn.f16x2.%s" % x2] == pairs and cvt["cvt.f32.f16"] == 2 * pairs, cvt


@txl.jit
def _scalar_fp8(x_ptr, y_ptr):
    tl.store(y_ptr, tl.load(x_ptr).to(tl.float8e4nv))


def test_scalar_fp8_conversion_is_refused():
    with pytest.raises(Exception, match=r"converting fp32 values to fp8e4nv is not supported yet: txl converts tiles"):
        ir_of(_scalar_fp8, {"x_ptr": "*fp32", "y_ptr": "*fp8e4nv"})
