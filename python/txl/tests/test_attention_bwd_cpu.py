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
    sig = {"O": "*bf16", "DO": "*bf16", "Delta": "*fp32", "DQ_ACC": "*fp32:16", "N_CTX": "i32", "N_PAD": "i32",
           "HEAD_STRIDE": "i32"}
    for row_stride in (128, 32 * 128):  # dense rows; packed (total, 32 heads, 128) tokens
        for zero in (False, True):
            text = ir_of(kb.attention_bwd_preprocess, sig,
                         {"HEAD_DIM": 128, "BLOCK": 64, "ROW_STRIDE": row_stride, "ZERO_DQ": zero})
            ptx, err = compile_ptx(text, emit="cubin")
            assert "spill" not in err.lower(), err
            # ZERO_DQ: the dQ accumulator's rows are zeroed with 16-byte stores (no torch.zeros launch)
            assert bool(re.search(r"st\.global\.v4\.(b32|f32|u32)", ptx)) == zero, ptx[-1500:]


@pytest.mark.parametrize("head_dim,block_n", [(64, 64), (128, 32)])
@pytest.mark.parametrize("causal", [False, True])
def test_deterministic_dq_kernel_compiles(head_dim, block_n, causal):
    from txl.ops._attention_bwd import DQ_BLOCK_N

    assert DQ_BLOCK_N[head_dim] == block_n
    cx = dict(HEAD_DIM=head_dim, BLOCK_M=64, BLOCK_N=block_n, CAUSAL=causal, H_Q_PER_KV=2)
    ptx, err = compile_ptx(ir_of(kb.attention_bwd_dq, DQ_SIG, cx, num_warps=4, num_stages=2), emit="cubin")
    assert "wgmma.mma_async" in ptx
    assert "spill" not in err.lower(), err


DQ_SIG = {"Q": "*bf16", "K": "*bf16", "V": "*bf16", "DO": "*bf16", "DQ": "*bf16", "M": "*fp32", "Delta": "*fp32",
          "sm_scale": "fp32", "N_CTX": "i32", "N_PAD": "i32", "CU_Q": "*i32", "CU_K": "*i32", "NUM_HEADS": "i32",
          "WIN_LEFT": "i32", "WIN_RIGHT": "i32", "N_SINK": "i32"}


@pytest.mark.parametrize("mode", ["VARLEN", "WINDOW"])
def test_deterministic_dq_kernel_local_masks_compile(mode):
    # Local masks (sliding window / sinks, packed sequences): the visited key tiles come from _local_range and
    # every tile is masked with _visible; the packed path reads the sequence offsets.
    cx = dict(HEAD_DIM=128, BLOCK_M=64, BLOCK_N=32, CAUSAL=False, H_Q_PER_KV=2, **{mode: True})
    text = ir_of(kb.attention_bwd_dq, DQ_SIG, cx, num_warps=4, num_stages=2)
    assert (text.count("%CU_Q") > 1) == (mode == "VARLEN")  # only the packed path reads the offsets
    assert text.count("%WIN_LEFT") > 1
    ptx, err = compile_ptx(text, emit="cubin")
    assert "wgmma.mma_async" in ptx and "spill" not in err.lower(), err


def test_deterministic_mode_drops_the_reduce_add():
    cx = dict(kb.constexprs(128, True), DQ=False)
    text = ir_of(kb.flash_attention_bwd, kb.signature(128), cx, **kb.OPTIONS)
    assert "reduce add" not in text
    ptx, err = compile_ptx(text, emit="cubin")
    assert "cp.reduce.async.bulk" not in ptx and "spill" not in err.lower()


@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
def test_dq_convert_compiles(dtype):
    sig = {"DQ_ACC": "*fp32", "DQ": "*" + dtype, "sm_scale": "fp32", "N_CTX": "i32", "N_PAD": "i32",
           "HEAD_STRIDE": "i32"}
    cx = {"HEAD_DIM": 128, "BLOCK": 32, "ROW_STRIDE": 128}
    ptx, err = compile_ptx(ir_of(kb.attention_bwd_dq_convert, sig, cx), emit="cubin")
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


def _spill_bytes(err):
    m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", err)
    return (int(m.group(1)) + int(m.group(2))) if m else 0


# Local masks (window / sinks: WINDOW, packed sequences: VARLEN): the key block visits the query blocks that see
# it (_bwd_block), masks with _mask_bwd_local, and the packed path addresses (total, heads * D) rows by column.
# hd64 has no spills; hd128 spills a few words (its range scalars next to dV, dK, S^T, dP^T), bounded here.
@pytest.mark.parametrize("head_dim,max_spill", [(64, 0), (128, 128)])
@pytest.mark.parametrize("mode", ["VARLEN", "WINDOW"])
def test_local_masks_compile(head_dim, max_spill, mode):
    from txl.ops._attention_bwd import NUM_STAGES

    cx = dict(kb.constexprs(head_dim, False, num_stages=NUM_STAGES[head_dim], even_n=False, h_q_per_kv=2),
              **{mode: True})
    text = ir_of(kb.flash_attention_bwd, kb.signature(head_dim), cx, **kb.OPTIONS)
    ptx, err = compile_ptx(text, emit="cubin")
    assert ptx.count("cp.reduce.async.bulk.tensor") >= 1
    assert _spill_bytes(err) <= max_spill, err
