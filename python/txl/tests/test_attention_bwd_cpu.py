"""The attention backward kernels (txl.kernels.flash_attention_bwd) through the real compiler, no GPU: every variant
the op launches compiles to SASS without spills, with the structure the design relies on (async wgmma with a
transposed-A dQ GEMM, the fp32 TMA reduce-add of dQ, the producer/consumer register split)."""

import re

import pytest

from txl.kernels import flash_attention_bwd as kb

from .dsl_helpers import compile_ptx, ir_of


@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("causal,even_n,dtype,group", [(False, True, "bf16", 1), (True, True, "bf16", 1),
                                                    (True, False, "fp16", 2), (False, False, "bf16", 4)])
def test_bwd_compiles_without_spills(head_dim, causal, even_n, dtype, group):
    text = ir_of(kb.flash_attention_bwd, kb.signature(head_dim, dtype=dtype),
                 kb.constexprs(head_dim, causal, even_n=even_n, h_q_per_kv=group), **kb.OPTIONS)
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
