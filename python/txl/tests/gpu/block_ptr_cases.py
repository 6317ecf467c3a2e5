"""GPU cases for block pointers (tl.make_block_ptr / tl.advance / tl.load and tl.store with boundary_check; the IR
side is test_block_ptr.py), run by test_block_ptr_gpu.py and precompiled by ``python/txl/tools/precompile.py``.

- ``bp_copy``: a 2-D copy of a 100 x 70 fp32 matrix through 64 x 32 blocks (odd shapes: the last row and column
  blocks are partial). The load is boundary-checked with padding_option zero or nan; the store is boundary-checked
  into a larger buffer whose margin must stay untouched; each loaded block (padding included) is also stored whole
  into a buffer of whole blocks, which shows the padding value.
- ``bp_colmajor``: the same copy from a column-major parent (strides (1, M), order (0, 1)).
- ``bp_gemm``: Triton's block-pointer tutorial GEMM (fp16 in, fp32 accumulate, fp16 out), both block pointers
  advanced along K in the loop, M, N, K not multiples of the blocks. ``bp_gemm`` runs with the default
  num_stages=3 on rows that are 16-byte aligned, but K = 216 and N = 184 are not multiples of 16, so the JIT
  cannot promise that alignment and txl-schedule-loops keeps these loads out of the cp.async ring (as Triton
  does; test_cp_async_alignment_gpu.py has ring cases); ``bp_gemm_odd`` has odd K and N (rows not 16-byte
  aligned) and runs with num_stages=1 (plain pointer loads).

Outputs whose tolerance has ``equal_nan`` may hold NaN (the nan padding); test_block_ptr_gpu.py checks those.
"""

import txl
import txl.language as tl

from txl.tests.gpu.dsl_cases import Case, cdiv

MODULE = __name__


@txl.jit
def bp_copy(x_ptr, y_ptr, p_ptr, M, N, stride_xm, stride_ym, stride_pm,
            BM: tl.constexpr, BN: tl.constexpr, PAD: tl.constexpr, COL_MAJOR: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    if COL_MAJOR:  # x[m, n] at x_ptr + m + n * stride_xm
        xb = tl.make_block_ptr(base=x_ptr, shape=(M, N), strides=(1, stride_xm), offsets=(pm * BM, pn * BN),
                               block_shape=(BM, BN), order=(0, 1))
    else:
        xb = tl.make_block_ptr(base=x_ptr, shape=(M, N), strides=(stride_xm, 1), offsets=(pm * BM, pn * BN),
                               block_shape=(BM, BN), order=(1, 0))
    x = tl.load(xb, boundary_check=(0, 1), padding_option=PAD)
    yb = tl.make_block_ptr(y_ptr, (M, N), (stride_ym, 1), (pm * BM, pn * BN), (BM, BN), (1, 0))
    tl.store(yb, x, boundary_check=(0, 1))
    # The whole block as loaded (the padding included): p has whole blocks, nothing to check.
    pb = tl.make_block_ptr(p_ptr, (tl.num_programs(0) * BM, tl.num_programs(1) * BN), (stride_pm, 1), (0, 0),
                           (BM, BN), (1, 0))
    tl.store(tl.advance(pb, (pm * BM, pn * BN)), x)


MARGIN = 8  # y is the top-left M x N of an (M + 8) x (N + 8) buffer whose margin must keep its value


def _copy(M, N, pad, col_major=False, BM=64, BN=32):
    def build(T):
        gm, gn = cdiv(M, BM), cdiv(N, BN)
        src = T.randn((N, M) if col_major else (M, N))  # column-major M x N: its transpose stored row-major
        y = T.full((M + MARGIN, N + MARGIN), 7.0)
        p = T.empty((gm * BM, gn * BN))

        def x():
            return src.T if col_major else src

        def ref_y():
            r = T.torch.full((M + MARGIN, N + MARGIN), 7.0, device="cuda")
            r[:M, :N] = x()
            return r

        def ref_p():
            r = T.torch.full((gm * BM, gn * BN), 0.0 if pad == "zero" else float("nan"), device="cuda")
            r[:M, :N] = x()
            return r

        return dict(grid=(gm, gn), args=(src, y, p, M, N, M if col_major else N, N + MARGIN, gn * BN),
                    kwargs=dict(BM=BM, BN=BN, PAD=pad, COL_MAJOR=col_major), out=y, ref=ref_y,
                    extra=[("padded blocks", p, ref_p, dict(atol=0, rtol=0, equal_nan=True))])

    return build


@txl.jit
def bp_gemm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_block_ptr = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                                    offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    b_block_ptr = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                                    offsets=(0, pid_n * BLOCK_N), block_shape=(BLOCK_K, BLOCK_N), order=(1, 0))
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_block_ptr, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_block_ptr, boundary_check=(0, 1), padding_option="zero")
        accumulator = tl.dot(a, b, accumulator)
        a_block_ptr = tl.advance(a_block_ptr, (0, BLOCK_K))
        b_block_ptr = tl.advance(b_block_ptr, (BLOCK_K, 0))
    c = accumulator.to(tl.float16)
    c_block_ptr = tl.make_block_ptr(base=c_ptr, shape=(M, N), strides=(stride_cm, stride_cn),
                                    offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N), block_shape=(BLOCK_M, BLOCK_N),
                                    order=(1, 0))
    tl.store(c_block_ptr, c, boundary_check=(0, 1))


def _gemm(M, N, K, BM, BN, BK, **options):
    def build(T):
        a = T.randn((M, K), "float16")
        b = T.randn((K, N), "float16")
        c = T.full((M + MARGIN, N), 7.0, "float16")  # rows M.. must stay untouched

        def ref():
            r = T.torch.full((M + MARGIN, N), 7.0, device="cuda", dtype=T.torch.float16)
            r[:M] = (a.float() @ b.float()).half()
            return r

        return dict(grid=(cdiv(M, BM), cdiv(N, BN)), args=(a, b, c, M, N, K, K, 1, N, 1, N, 1),
                    kwargs=dict(BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, **options), out=c, ref=ref)

    return build


GEMM_TOL = dict(atol=6e-2, rtol=1e-2)  # fp16 inputs, fp32 accumulation, fp16 output (|c| ~ sqrt(K) ~ 15)
CASES = [
    Case("bp_copy_zero", _copy(100, 70, "zero"), MODULE, "bp_copy", tol=dict(atol=0, rtol=0)),
    Case("bp_copy_nan", _copy(100, 70, "nan"), MODULE, "bp_copy", tol=dict(atol=0, rtol=0)),
    Case("bp_copy_zero_odd", _copy(37, 129, "zero", BM=16, BN=64), MODULE, "bp_copy", tol=dict(atol=0, rtol=0)),
    Case("bp_colmajor", _copy(100, 70, "nan", col_major=True), MODULE, "bp_copy", tol=dict(atol=0, rtol=0)),
    Case("bp_gemm", _gemm(200, 184, 216, 128, 128, 64), MODULE, "bp_gemm", tol=GEMM_TOL),
    Case("bp_gemm_odd", _gemm(197, 203, 205, 64, 64, 32, num_stages=1), MODULE, "bp_gemm", tol=GEMM_TOL),
]
