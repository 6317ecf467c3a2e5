"""Constructs of Triton libraries that txl refused until session 17 (flash-linear-attention's kernels), as small
kernels of our own checked against float32 torch: fp32 ``tl.dot`` (Triton's FMA dot, no tensor cores), a loop
with a negative constant step, and atomics whose pointers come from i64 offsets with a constant value.

Shared by test_library_constructs_gpu.py (on a GPU) and test_triton_lib_constructs.py (compiles them; CPU);
precompile.py collects CASES.
"""

import txl
import txl.language as tl

from txl.tests.gpu.dsl_cases import Case

MODULE = __name__


@txl.jit
def lc_fp32_dot(a_ptr, b_ptr, o_ptr, K: tl.constexpr, BM: tl.constexpr, BK: tl.constexpr):
    """o = a @ b for one BM x BM block, fp32 throughout, K in steps of BK."""
    rm = tl.arange(0, BM)
    acc = tl.zeros([BM, BM], dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
        b = tl.load(b_ptr + rk[:, None] * BM + rm[None, :])
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(o_ptr + rm[:, None] * BM + rm[None, :], acc)


@txl.jit
def lc_count_down(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    """A reverse decayed scan over blocks: o[block i] = x[block i] + 0.5 * o[block i + 1], last block first."""
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for i in range(tl.cdiv(n, BLOCK) - 1, -1, -1):
        acc = acc * 0.5 + tl.load(x_ptr + i * BLOCK + offs, mask=i * BLOCK + offs < n, other=0.0)
        tl.store(o_ptr + i * BLOCK + offs, acc, mask=i * BLOCK + offs < n)


@txl.jit
def lc_bucket_count(keys_ptr, counts_ptr, n, ROWS: tl.constexpr, WIDTH: tl.constexpr):
    """counts[k] += 1 for every key k >= 0 of a [ROWS, WIDTH] tile of i64 keys (-1: none)."""
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, WIDTH)
    keys = tl.load(keys_ptr + rows[:, None].to(tl.int64) * WIDTH + cols[None, :], mask=(rows < n)[:, None],
                   other=-1)
    tl.atomic_add(counts_ptr + keys, 1, mask=(rows < n)[:, None] & (keys >= 0))


def _fp32_dot(K, BM, BK, **options):
    def build(T):
        a = T.randn((BM, K), "float32")
        b = T.randn((K, BM), "float32")
        o = T.empty((BM, BM), "float32")
        return dict(grid=(1,), args=(a, b, o), kwargs=dict(K=K, BM=BM, BK=BK, **options), out=o,
                    ref=lambda: a.double().matmul(b.double()).float())

    return build


def _count_down(n, block):
    def build(T):
        x = T.randn((n,), "float32")
        o = T.empty((n,), "float32")

        def ref():
            torch = T.torch
            nb = (n + block - 1) // block
            xs = torch.nn.functional.pad(x, (0, nb * block - n)).view(nb, block)
            out, acc = torch.empty_like(xs), torch.zeros(block, device=x.device)
            for i in range(nb - 1, -1, -1):
                acc = acc * 0.5 + xs[i]
                out[i] = acc
            return out.flatten()[:n]

        return dict(grid=(1,), args=(x, o, n), kwargs=dict(BLOCK=block), out=o, ref=ref)

    return build


def _bucket_count(n, rows, width, buckets, **options):
    def build(T):
        keys = T.randint((n, width), -1, buckets, "int64")
        counts = T.full((buckets,), 0, "int32")

        def ref():
            k = keys.flatten()
            return T.torch.bincount(k[k >= 0], minlength=buckets).to(T.torch.int32)

        return dict(grid=((n + rows - 1) // rows,), args=(keys, counts, n),
                    kwargs=dict(ROWS=rows, WIDTH=width, **options), out=counts, ref=ref)

    return build


EXACT = dict(atol=0, rtol=0)
CASES = [
    Case("lc_fp32_dot_16", _fp32_dot(128, 16, 32), MODULE, "lc_fp32_dot", tol=dict(atol=1e-4, rtol=1e-4)),
    Case("lc_fp32_dot_32_w8", _fp32_dot(96, 32, 16, num_warps=8), MODULE, "lc_fp32_dot",
         tol=dict(atol=1e-4, rtol=1e-4)),
    Case("lc_count_down", _count_down(1000, 128), MODULE, "lc_count_down", tol=dict(atol=1e-5, rtol=1e-5)),
    Case("lc_bucket_count", _bucket_count(300, 128, 16, 37), MODULE, "lc_bucket_count", tol=EXACT),
    Case("lc_bucket_count_w8", _bucket_count(300, 128, 16, 37, num_warps=8), MODULE, "lc_bucket_count", tol=EXACT),
]
