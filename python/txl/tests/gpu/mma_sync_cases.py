"""Triton-style kernels whose dots have M = 16 or 32 (or 64 on 8 warps): txl runs them on mma.sync m16n8k16
(#txl.nvmma version 2) instead of wgmma, whose M is a multiple of 64 per warpgroup.

- ``ms_ptr_gemm*``: the pointer-load GEMM of cp_async_alignment_cases (cp.async ring: both operands are read from
  the ring straight into the mma.sync operand layouts) with BLOCK_M = 16 and 32, ragged shapes, and
  BLOCK_M = 64 on num_warps = 8;
- ``ms_attn*``: the Triton-style attention forward of num_warps8_cases with BLOCK_M = 16 (the shape of NSA's 16
  query heads of one KV group): Q K^T from a transposed ring read, P from the accumulator into the A layout.

Shared by test_mma_sync_gpu.py (runs each case against torch in float32) and the CPU test test_mma_sync.py
(compiles them and checks the PTX); precompile.py collects CASES.
"""

from txl.tests.gpu.block_ptr_cases import GEMM_TOL
from txl.tests.gpu.cp_async_alignment_cases import _ptr_gemm
from txl.tests.gpu.dsl_cases import Case
from txl.tests.gpu.num_warps8_cases import ATTN_TOL, _attn, _with

GEMM = "txl.tests.gpu.cp_async_alignment_cases"
ATTN = "txl.tests.gpu.num_warps8_cases"
S3 = dict(num_stages=3)
CASES = [
    Case("ms_ptr_gemm_m16", _ptr_gemm(64, 128, 128, 16, 64, 32, **S3), GEMM, "ptr_gemm", tol=GEMM_TOL),
    Case("ms_ptr_gemm_m32_ragged", _ptr_gemm(200, 184, 216, 32, 64, 64, **S3), GEMM, "ptr_gemm", tol=GEMM_TOL),
    Case("ms_ptr_gemm_m16_n128", _ptr_gemm(48, 256, 96, 16, 128, 32, **S3), GEMM, "ptr_gemm", tol=GEMM_TOL),
    Case("ms_ptr_gemm_m64_w8", _ptr_gemm(192, 128, 128, 64, 128, 64, num_warps=8, **S3), GEMM, "ptr_gemm",
         tol=GEMM_TOL),
    Case("ms_attn_m16", _with(_attn(2, 256, 64, False, BM=16, BN=64), num_warps=4), ATTN, "nw8_attn", tol=ATTN_TOL),
    Case("ms_attn_m16_causal_ragged", _with(_attn(2, 201, 64, True, BM=16, BN=64), num_warps=4), ATTN, "nw8_attn",
         tol=ATTN_TOL),
    Case("ms_attn_m32_d128", _with(_attn(1, 128, 128, False, BM=32, BN=32, num_stages=2), num_warps=4), ATTN,
         "nw8_attn", tol=ATTN_TOL),
]
