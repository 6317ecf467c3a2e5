"""The attention backward kernels (txl.kernels.flash_attention_bwd) through the real compiler, no GPU: every variant
the op launches compiles to SASS without spills, with the structure the design relies on (async wgmma with a
transposed-A dQ GEMM, the fp32 TMA reduce-add of dQ, the producer/consumer register split)."""

import re

import pytest

from txl.kernels import flash_attention_bwd as kb

from .dsl_helpers import compile_ptx, ir_of


# At head dim 128 the consumers hold dV and dK (128 registers) next to S^T and dP^T (64, one in flight): with the
# op's 3-stage ring the kernel spills 4 bytes, its masked variants (causal, or N not a multiple of 128) 20-64
# bytes. Known, and measured no slower per FLOP than the unmasked one on the H100; strict, so that a fix shows up
# as XPASS.
_HD128_SPILLS = pytest.mark.xfail(strict=True, reason="hd128 spills 4-64 bytes (known)")


def _variants():
    out = []
    for d in (64, 128):
        for causal, even_n, dtype, group in ((False, True, "bf16", 1), (True, True, "bf16", 1),
                                             (True, False, "fp16", 2), (False, False, "bf16", 4)):
            marks = [_HD128_SPILLS] if d == 128 else []
            out.append(pytest.param(d, causal, even_n, dtype, group, marks=marks))
    return out


@pytest.mark.parametrize("head_dim,causal,even_n,dtype,group", _variants())
def test_bwd_compiles_without_spills(head_dim, causal, even_n, dtype, group):
    from txl.ops._attention_bwd import NUM_STAGES

    cx = kb.constexprs(head_dim, causal, num_stages=NUM_STAGES[head_dim], even_n=even_n, h_q_per_kv=group)
    text = ir_of(kb.flash_attention_bwd, kb.signature(head_dim, dtype=dtype), cx, **kb.OPTIONS)
    assert text.count("reduce add") == 2, "one dQ reduce-add in each consumer body"
    ptx, err = compile_ptx(text, emit="cubin")
    assert "spill" not in err.lower(), err
    assert "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group" in ptx
    assert re.search(r"setmaxnreg.inc.sync.aligned.u32\s+240;", ptx) and re.search(r"setmaxnreg.dec.sync.aligned.u32\s+24;", ptx)
    # S^T, dP^T (SS), dV, dK (RS) and the dQ GEMM(s) of each consumer: async wgmma, never waited on one by one.
    assert ptx.count("wgmma.mma_async") >= 10
    assert "wgmma.wait_group.sync.aligned 1" in ptx


def test_preprocess_compiles():
    sig = {"O": "*bf16", "DO": "*bf16", "Delta": "*fp32", "N_CTX": "i32", "N_PAD": "i32"}
    text = ir_of(kb.attention_bwd_preprocess, sig, {"HEAD_DIM": 128, "BLOCK": 64})
    ptx, err = compile_ptx(text, emit="cubin")
    assert "spill" not in err.lower(), err


@pytest.mark.parametrize("head_dim,block_n", [(64, 64), (128, 32)])
@pytest.mark.parametrize("causal", [False, True])
def test_deterministic_dq_kernel_compiles(head_dim, block_n, causal):
    from txl.ops._attention_bwd import DQ_BLOCK_N

    assert DQ_BLOCK_N[head_dim] == block_n
    sig = {"Q": "*bf16", "K": "*bf16", "V": "*bf16", "DO": "*bf16", "DQ": "*bf16", "M": "*fp32", "Delta": "*fp32",
           "sm_scale": "fp32", "N_CTX": "i32", "N_PAD": "i32"}
    cx = dict(HEAD_DIM=head_dim, BLOCK_M=64, BLOCK_N=block_n, CAUSAL=causal, H_Q_PER_KV=2)
    ptx, err = compile_ptx(ir_of(kb.attention_bwd_dq, sig, cx, num_warps=4, num_stages=2), emit="cubin")
    assert "wgmma.mma_async" in ptx
    assert "spill" not in err.lower(), err


def test_deterministic_mode_drops_the_reduce_add():
    cx = dict(kb.constexprs(128, True), DQ=False)
    text = ir_of(kb.flash_attention_bwd, kb.signature(128), cx, **kb.OPTIONS)
    assert "reduce add" not in text
    ptx, err = compile_ptx(text, emit="cubin")
    assert "cp.reduce.async.bulk" not in ptx and "spill" not in err.lower()


@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
def test_dq_convert_compiles(dtype):
    sig = {"DQ_ACC": "*fp32", "DQ": "*" + dtype, "sm_scale": "fp32", "N_CTX": "i32", "N_PAD": "i32"}
    ptx, err = compile_ptx(ir_of(kb.attention_bwd_dq_convert, sig, {"HEAD_DIM": 128, "BLOCK": 32}), emit="cubin")
    assert "ld.global" in ptx and "st.global" in ptx and "spill" not in err.lower()


# hd256 (two consumers split the head dim; 64 keys per CTA): 170-200 bytes of spills, known (strict xfail).
@pytest.mark.xfail(strict=True, reason="hd256 backward spills 170-200 bytes (known)")
@pytest.mark.parametrize("causal,even_n", [(False, True), (True, False)])
def test_hd256_compiles_without_spills(causal, even_n):
    cx = kb.constexprs(256, causal, block_n=64, num_stages=1, even_n=even_n, h_q_per_kv=2)
    text = ir_of(kb.flash_attention_bwd_hd256, kb.signature(256), cx, **kb.OPTIONS)
    ptx, err = compile_ptx(text, emit="cubin")
    assert ptx.count("cp.reduce.async.bulk.tensor") >= 2  # each consumer adds its dQ columns
    assert "spill" not in err.lower(), err
