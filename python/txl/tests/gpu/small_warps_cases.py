"""Triton-style kernels launched with num_warps=1 or 2 (Triton's small configs, which autotune lists of
flash-linear-attention lean on): one role of 32 or 64 threads, no warpgroup, dots on mma.sync.

Shared by test_small_warps_gpu.py (runs each case against torch in float32) and the CPU test test_num_warps.py
(compiles them and checks the PTX); precompile.py collects CASES.
"""

import txl
import txl.language as tl

from txl.tests.gpu.dsl_cases import Case

MODULE = __name__


@txl.jit
def sw_softmax(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    """Row softmax: reductions across the lanes (and warps) of a small CTA."""
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n + cols, mask=cols < n, other=float("-inf"))
    e = tl.exp(x - tl.max(x, 0))
    tl.store(y_ptr + row * n + cols, e / tl.sum(e, 0), mask=cols < n)


@txl.jit
def sw_dot(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C = A @ B (fp16 in, fp32 out, row-major), looped over K: mma.sync on 1 or 2 warps."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K),
                    other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N),
                    other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@txl.jit
def sw_cumsum_atomic(x_ptr, y_ptr, total_ptr, BLOCK: tl.constexpr):
    """A scan along a row, and its sum added atomically into one float."""
    row = tl.program_id(0).to(tl.int64)
    x = tl.load(x_ptr + row * BLOCK + tl.arange(0, BLOCK))
    tl.store(y_ptr + row * BLOCK + tl.arange(0, BLOCK), tl.cumsum(x, 0))
    tl.atomic_add(total_ptr, tl.sum(x, 0))


def _softmax(rows, n, block, num_warps):
    def build(T):
        x = T.randn((rows, n), "float32")
        y = T.empty((rows, n), "float32")
        return dict(grid=(rows,), args=(x, y, n), kwargs=dict(BLOCK=block, num_warps=num_warps), out=y,
                    ref=lambda: T.torch.softmax(x, -1))

    return build


def _dot(M, N, K, num_warps, BM=64, BN=64, BK=32):
    def build(T):
        a = T.randn((M, K), "float16")
        b = T.randn((K, N), "float16")
        c = T.empty((M, N), "float32")
        return dict(grid=((M + BM - 1) // BM, (N + BN - 1) // BN), args=(a, b, c, M, N, K),
                    kwargs=dict(BM=BM, BN=BN, BK=BK, num_warps=num_warps), out=c,
                    ref=lambda: a.float() @ b.float())

    return build


def _cumsum_atomic(rows, block, num_warps):
    def build(T):
        x = T.randn((rows, block), "float32")
        y = T.empty((rows, block), "float32")
        total = T.full((1,), 0.0, "float32")
        return dict(grid=(rows,), args=(x, y, total), kwargs=dict(BLOCK=block, num_warps=num_warps), out=y,
                    ref=lambda: x.cumsum(-1),
                    extra=[("total", total, lambda: x.sum().reshape(1), dict(atol=1e-2, rtol=1e-4))])

    return build


CASES = [
    Case("sw_softmax_w1", _softmax(64, 1000, 1024, 1), MODULE, "sw_softmax", tol=dict(atol=1e-6, rtol=1e-5)),
    Case("sw_softmax_w2", _softmax(64, 1000, 1024, 2), MODULE, "sw_softmax", tol=dict(atol=1e-6, rtol=1e-5)),
    Case("sw_dot_w1", _dot(100, 72, 96, 1), MODULE, "sw_dot", tol=dict(atol=2e-2, rtol=1e-2)),
    Case("sw_dot_w2", _dot(130, 200, 64, 2), MODULE, "sw_dot", tol=dict(atol=2e-2, rtol=1e-2)),
    Case("sw_cumsum_atomic_w1", _cumsum_atomic(32, 256, 1), MODULE, "sw_cumsum_atomic",
         tol=dict(atol=1e-4, rtol=1e-4)),
    Case("sw_cumsum_atomic_w2", _cumsum_atomic(32, 256, 2), MODULE, "sw_cumsum_atomic",
         tol=dict(atol=1e-4, rtol=1e-4)),
]
