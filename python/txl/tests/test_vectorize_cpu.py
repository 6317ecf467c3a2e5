"""Vector global accesses from the DSL (txl-vectorize-accesses through txlc): aligned pointers (the ":16"
specialisation) and ranges give ld.global.v4 / st.global.v4; without the alignment proof, one element per
instruction."""

import re

import txl
import txl.language as tl

from .dsl_helpers import compile_ptx, ir_of


@txl.jit
def _scale_rows(X, Y, stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(X + row * stride + cols, mask=mask, other=0.0)
    tl.store(Y + row * stride + cols, x * 2.0, mask=mask)


def _accesses(ptx):
    return sorted(set(re.findall(r"\b(ld\.global\S*|st\.global\S*)", ptx)))


def test_aligned_rows_move_16_bytes_per_access():
    sig = {"X": "*fp32:16", "Y": "*fp32:16", "stride": "i32:16", "n": "i32:16"}
    text = ir_of(_scale_rows, sig, {"BLOCK": 1024})
    assert "txl.divisibility = 16" in text
    ptx, _ = compile_ptx(text)
    assert _accesses(ptx) == ["ld.global.v4.b32", "st.global.v4.b32"], _accesses(ptx)


def test_fp16_rows_pack_eight_elements():
    sig = {"X": "*fp16:16", "Y": "*fp16:16", "stride": "i32:16", "n": "i32:16"}
    ptx, _ = compile_ptx(ir_of(_scale_rows, sig, {"BLOCK": 2048}))
    assert "ld.global.v4.b32" in ptx and "st.global.v4.b32" in ptx


def test_unproven_alignment_stays_scalar():
    # a base of unknown alignment, then a row stride and a bound of unknown divisibility
    for sig in ({"X": "*fp32", "Y": "*fp32", "stride": "i32:16", "n": "i32:16"},
                {"X": "*fp32:16", "Y": "*fp32:16", "stride": "i32", "n": "i32:16"},
                {"X": "*fp32:16", "Y": "*fp32:16", "stride": "i32:16", "n": "i32"}):
        ptx, _ = compile_ptx(ir_of(_scale_rows, sig, {"BLOCK": 1024}))
        assert not any(".v" in a for a in _accesses(ptx)), (sig, _accesses(ptx))
