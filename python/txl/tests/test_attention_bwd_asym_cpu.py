"""The attention backward with asymmetric head dims (q/k D, v D_v < D; txl.kernels.flash_attention_bwd_asym), no
GPU: every configuration the op launches compiles to SASS without spills with the structure it relies on, the
preprocess and dQ convert at a head dim that is no power of two, and which pairs the op accepts or refuses."""

import re
import types

import pytest

from txl.kernels import flash_attention_bwd as kb
from txl.kernels import flash_attention_bwd_asym as kba
from txl.ops import _attention_bwd as AB

from .dsl_helpers import compile_ptx, ir_of


def _variants():
    out = []
    for pair in AB.ASYM_PLANS:
        for causal, even_n, dtype, group, split in ((False, True, "bf16", 1, 1), (True, False, "fp16", 2, 1),
                                                    (False, False, "bf16", 4, 4), (True, False, "bf16", 8, 8)):
            out.append((pair, causal, even_n, dtype, group, split))
    return out


@pytest.mark.parametrize("pair,causal,even_n,dtype,group,split", _variants())
def test_asym_kernel_compiles(pair, causal, even_n, dtype, group, split):
    d, dv = pair
    cx = kba.constexprs(d, dv, AB.ASYM_PLANS[pair], causal, AB.ASYM_STAGES[pair], even_n, group, split)
    text = ir_of(kba.flash_attention_bwd_asym, kba.signature(d, dv, dtype, split), cx, **kba.OPTIONS)
    ptx, err = compile_ptx(text, emit="cubin")
    assert "spill" not in err.lower(), err
    assert re.search(r"setmaxnreg.inc.sync.aligned.u32\s+240;", ptx)
    # the consumers' GEMM work per step is balanced by the plan: 16-deep wgmmas over S^T (K = D) + dV + dK + dQ
    # of consumer 0 and dP^T (K = D_v) + dV + dK + dQ of consumer 1; each counted in m64nNk16 instructions
    # (S^T: D / 16; dP^T: D_v / 16; dV and dK of each consumer over 64 queries: 4 each; dQ: 4 per 64-column block)
    assert ptx.count("wgmma.mma_async") == d // 16 + dv // 16 + 4 * 4 + 4 * (d // 64)
    # dQ: one fp32 reduce-add per 64-column block (each consumer its own blocks); dK/dV: 64-column TMA boxes
    assert "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add" in ptx
    if split > 1:
        assert "%ctaid.z" in ptx
    else:
        assert "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group" in ptx


@pytest.mark.parametrize("dq_dim", [192, 256])
def test_preprocess_zeroes_a_wider_dq_accumulator(dq_dim):
    sig = {"O": "*bf16", "DO": "*bf16", "Delta": "*fp32", "DQ_ACC": "*fp32:16", "N_CTX": "i32", "N_PAD": "i32",
           "HEAD_STRIDE": "i32"}
    text = ir_of(kb.attention_bwd_preprocess, sig,
                 {"HEAD_DIM": 128, "BLOCK": 64, "ROW_STRIDE": 128, "ZERO_DQ": True, "DQ_DIM": dq_dim})
    ptx, err = compile_ptx(text, emit="cubin")
    assert "spill" not in err.lower(), err
    # BLOCK x DQ_DIM f32 zeros with 16-byte stores: 64 * dq_dim / 4 vector stores over 128 threads
    assert len(re.findall(r"st\.global\.v4\.(b32|f32|u32)", ptx)) == 64 * dq_dim // 4 // 128


def test_convert_of_a_192_wide_dq():
    sig = {"DQ_ACC": "*fp32", "DQ": "*bf16", "sm_scale": "fp32", "N_CTX": "i32", "N_PAD": "i32",
           "HEAD_STRIDE": "i32"}
    cx = {"HEAD_DIM": 192, "BLOCK": 32, "ROW_STRIDE": 192, "COL_BLOCK": 64}
    ptx, err = compile_ptx(ir_of(kb.attention_bwd_dq_convert, sig, cx), emit="cubin")
    assert "ld.global" in ptx and "st.global" in ptx and "spill" not in err.lower()


def _t(*shape):
    return types.SimpleNamespace(shape=shape)


def test_which_pairs_the_backward_takes():
    AB.check_supported(_t(1, 2, 8, 192), v=_t(1, 2, 8, 128))
    AB.check_supported(_t(1, 2, 8, 256), v=_t(1, 2, 8, 128))
    AB.check_supported(_t(1, 2, 8, 192))  # q alone (the op's own check): 192 is a D of a supported pair
    for d, dv in ((192, 64), (128, 64), (256, 64), (192, 192), (96, 64)):
        with pytest.raises(NotImplementedError, match="head dim"):
            AB.check_supported(_t(1, 2, 8, d), v=_t(1, 2, 8, dv))
    assert set(AB.ASYM_HEAD_DIMS) == set(AB.ASYM_PLANS)


def test_plans_are_whole_blocks_and_balanced():
    for (d, dv), (dk0, dv0, nq0) in AB.ASYM_PLANS.items():
        assert dk0 % 64 == 0 and dv0 % 64 == 0 and 0 < dk0 < d and 0 < dv0 < dv and 0 < nq0 < d // 64
        # register tiles are powers of two
        for cols in (dk0, d - dk0, dv0, dv - dv0):
            assert cols & (cols - 1) == 0
        # GEMM columns added per step (dK + dV + dQ)
        assert dk0 + dv0 + 64 * nq0 == (d - dk0) + (dv - dv0) + (d - 64 * nq0)
        # shared memory (bytes): K, V, the Q/dO ring, P^T and dS^T, the dQ staging
        stages = AB.ASYM_STAGES[(d, dv)]
        smem = 64 * (d + dv) * 2 * (1 + stages) + 4 * 64 * 64 * 2 + d // 64 * 64 * 64 * 4
        assert smem <= 227 * 1024
        assert 64 * (d + dv) * 2 * (2 + stages) + 4 * 64 * 64 * 2 + d // 64 * 64 * 64 * 4 > 227 * 1024


def test_varlen_asym_backward_refused_before_any_view():
    # The packed backward has no asymmetric kernel: the refusal must come before its row views, which assume one
    # head dim (an H200 run got a reshape error instead of this message).
    torch = pytest.importorskip("torch")
    q, v = torch.zeros(300, 2, 192), torch.zeros(300, 2, 128)
    cu = torch.tensor([0, 100, 300], dtype=torch.int32)
    with pytest.raises(NotImplementedError, match="asymmetric head dims .q/k 192, v 128."):
        AB.backward_varlen(torch.zeros(300, 2, 128), q, q, v, torch.zeros(300, 2, 128), torch.zeros(2, 384), cu, cu,
                           200, 200, 0.1, False, None)
