"""tl.dot with M = 16 or 32 (or 64 on 8 warps) runs on mma.sync m16n8k16 (no GPU needed: the cases of
gpu/mma_sync_cases.py compiled to PTX and cubin; the GPU test runs them against torch)."""

import re

import pytest

from txl.tests.gpu import dsl_cases, mma_sync_cases

from .dsl_helpers import TXLC, _need


def _ptx(case):
    _need(TXLC)
    _, compiled = dsl_cases.run_case(case, dsl_cases.MetaFactory(), launch=False)
    return compiled.asm["ptx"]


@pytest.mark.parametrize("case", mma_sync_cases.CASES, ids=lambda c: c.name)
def test_small_m_dots_compile_to_mma_sync(case):
    ptx = _ptx(case)
    assert re.search(r"mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32", ptx), ptx[-2000:]
    assert "wgmma" not in ptx
    # operands from the pipeline rings come through ldmatrix: K-contiguous as is, N-contiguous B (.trans); a
    # kernel whose loads are not aligned enough for cp.async has no ring (ms_ptr_gemm_m32_ragged: K = 216)
    if "cp.async" not in ptx:
        return
    assert re.search(r"ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16", ptx), ptx[-2000:]
    assert re.search(r"ldmatrix\.sync\.aligned\.m8n8\.x4\.trans\.shared\.b16", ptx), ptx[-2000:]


def test_operands_are_read_from_the_ring_without_a_scratch_round_trip():
    # the GEMM's A and B come from cp.async rings straight into the mma.sync operand layouts: up to the loop's
    # drain (cp.async.wait_group 0) the only shared memory stores are the copies themselves (cp.async), no
    # st.shared of a relayout scratch (after it, the epilogue moves C through shared memory to store 16 bytes
    # per thread)
    ptx = _ptx(next(c for c in mma_sync_cases.CASES if c.name == "ms_ptr_gemm_m16"))
    assert "cp.async" in ptx
    loop, epilogue = re.split(r"cp\.async\.wait_group\s+0\b", ptx)
    assert not re.search(r"st\.shared", loop)
    assert re.search(r"st\.global\.v4", epilogue)


def test_m16_attention_counts():
    # BLOCK_M = 16, BLOCK_N = 64, D = 64 on 4 warps (one along M, 4 along N): Q K^T is 16 x 64 (2 column blocks
    # per warp) x 4 K steps, P V is 16 x 64 x 4 K steps: 8 + 8 mma.sync per iteration
    ptx = _ptx(next(c for c in mma_sync_cases.CASES if c.name == "ms_attn_m16"))
    assert len(re.findall(r"mma\.sync\.aligned", ptx)) == 16, ptx[-3000:]
