"""Pointer-load GEMMs whose rows are not 16-byte aligned, run through the cp.async ring (num_stages=3).

The loop pipeliner (txl-schedule-loops) puts a pointer-tile load that feeds a dot into a ring of shared buffers
filled by cp.async. A cp.async moves 4, 8 or 16 bytes and faults ("misaligned address") on a global address that is
not aligned to its size, so each copy moves only what the AxisInfo analysis proves aligned:

- ``ptr_gemm``: Triton's tutorial GEMM with pointer loads (bench/triton_style_kernels.py's ``gemm_ptr`` with a 2-D
  grid): ``a_ptrs += BLOCK_K * stride_ak`` in the loop, rows wrapped with ``% M`` / ``% N``, K tails masked. With
  K = 197 the rows of A are 394 bytes apart and the jit passes stride_am without ":16": A stays a plain load (one
  element per instruction), B keeps 16-byte copies when N % 16 == 0, else it too stays a plain load.
- ``ptr_gemm_const_strides``: the same body with the row strides as constexprs, so their exact divisibility is
  known: K = 196 (rows of A 8-byte aligned) gives A 8-byte copies, K = 198 (4-byte aligned) 4-byte copies.
- ``bp_gemm`` of block_ptr_cases (Triton's block-pointer tutorial GEMM) with odd K and N at num_stages=3 (that
  file runs its odd case with num_stages=1), and with every dimension a multiple of 16, which keeps 16-byte
  copies.

Shared by test_cp_async_alignment_gpu.py (runs each case on the GPU against torch in float32) and the CPU test
test_cp_async_alignment.py (compiles the same kernels and checks the copy widths); precompile.py collects CASES.
"""

import txl
import txl.language as tl

from txl.tests.gpu.block_ptr_cases import GEMM_TOL, _gemm as _bp_gemm
from txl.tests.gpu.dsl_cases import Case, cdiv

MODULE = __name__


@txl.jit
def _gemm_tile(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(tl.float16)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@txl.jit
def ptr_gemm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    _gemm_tile(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
               BLOCK_M, BLOCK_N, BLOCK_K)


@txl.jit
def ptr_gemm_const_strides(a_ptr, b_ptr, c_ptr, M, N, K, stride_cm, STRIDE_AM: tl.constexpr,
                           STRIDE_BK: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                           BLOCK_K: tl.constexpr):
    _gemm_tile(a_ptr, b_ptr, c_ptr, M, N, K, STRIDE_AM, 1, STRIDE_BK, 1, stride_cm, 1, BLOCK_M, BLOCK_N, BLOCK_K)


def _ptr_gemm(M, N, K, BM, BN, BK, const_strides=False, **options):
    """C[M, N] (fp16) = A[M, K] @ B[K, N], row-major, fp16 in, fp32 accumulation; C has MARGIN extra rows that must
    keep their value."""
    def build(T):
        a = T.randn((M, K), "float16")
        b = T.randn((K, N), "float16")
        c = T.full((M + MARGIN, N), 7.0, "float16")

        def ref():
            r = T.torch.full((M + MARGIN, N), 7.0, device="cuda", dtype=T.torch.float16)
            r[:M] = (a.float() @ b.float()).half()
            return r

        kwargs = dict(BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, **options)
        if const_strides:
            args = (a, b, c, M, N, K, N)
            kwargs.update(STRIDE_AM=K, STRIDE_BK=N)
        else:
            args = (a, b, c, M, N, K, K, 1, N, 1, N, 1)
        return dict(grid=(cdiv(M, BM), cdiv(N, BN)), args=args, kwargs=kwargs, out=c, ref=ref)

    return build


MARGIN = 8
STAGES = dict(num_stages=3)
CASES = [
    # rows of A and B 2-byte aligned only: no ring, plain loads (the loop is still pipelined: its dot is async)
    Case("cpa_ptr_gemm_odd", _ptr_gemm(200, 203, 197, 128, 64, 32, **STAGES), MODULE, "ptr_gemm", tol=GEMM_TOL),
    # A unaligned (K = 197), B aligned (N = 208): A plain, B through 16-byte copies
    Case("cpa_ptr_gemm_odd_k", _ptr_gemm(197, 208, 197, 128, 64, 32, **STAGES), MODULE, "ptr_gemm", tol=GEMM_TOL),
    # everything a multiple of 16 but not of the blocks: 16-byte copies, masked tails
    Case("cpa_ptr_gemm_aligned", _ptr_gemm(208, 176, 224, 128, 64, 64, **STAGES), MODULE, "ptr_gemm",
         tol=GEMM_TOL),
    # A's row stride known exactly: K = 196 -> 8-byte copies, K = 198 -> 4-byte copies (B's columns wrap at an N
    # of unknown divisibility: B stays a plain load)
    Case("cpa_ptr_gemm_8b", _ptr_gemm(130, 204, 196, 128, 64, 32, const_strides=True, **STAGES), MODULE,
         "ptr_gemm_const_strides", tol=GEMM_TOL),
    Case("cpa_ptr_gemm_4b", _ptr_gemm(130, 202, 198, 128, 64, 32, const_strides=True, **STAGES), MODULE,
         "ptr_gemm_const_strides", tol=GEMM_TOL),
    # Triton's block-pointer GEMM: bp_gemm_odd's shape through the ring's stage count, and an aligned one
    Case("cpa_bp_gemm_odd", _bp_gemm(197, 203, 205, 64, 64, 32, num_stages=3), "txl.tests.gpu.block_ptr_cases",
         "bp_gemm", tol=GEMM_TOL),
    Case("cpa_bp_gemm_aligned", _bp_gemm(208, 176, 224, 128, 128, 64, num_stages=3),
         "txl.tests.gpu.block_ptr_cases", "bp_gemm", tol=GEMM_TOL),
]
