"""In-place updates of tiles smaller than the CTA: ``store(p, f(load(p)))`` where the layout holds each element in
several warps (or lanes, or registers).

Liger-Kernel's qwen2vl_mrope rotates q and k in place, one token per program, k as a (kv heads) x (head_dim / 2)
tile: 2 x 64 fp32 over 128 threads, so warps 1-3 hold copies of warp 0's elements. Every copy used to store; a warp
that ran late loaded what an early warp had already rotated and stored it rotated twice (8,526 of 4,194,304
elements wrong in Liger's test). Now one holder per element stores (Triton's rule, convert-txl-to-nvvm's
StoreLowering; lit: test/Conversion/TXLToNVVM/store-copies.mlir).

Shared by test_inplace_gpu.py (runs each case against torch in float32, several seeds) and the CPU test
test_store_copies.py (checks the stores' predicates in the PTX); precompile.py collects CASES.
"""

import txl
import txl.language as tl

from txl.tests.gpu.dsl_cases import Case

MODULE = __name__


@txl.jit
def inplace_rotate(x_ptr, cos_ptr, sin_ptr, H: tl.constexpr, D: tl.constexpr, BACKWARD: tl.constexpr):
    """Rotates the H heads of one token's x (H x D, contiguous) in place by the token's (D / 2) angles."""
    row = tl.program_id(0).to(tl.int64)
    x_ptr = x_ptr + row * (H * D)
    cols = tl.arange(0, D // 2)
    c = tl.load(cos_ptr + row * (D // 2) + cols)
    s = tl.load(sin_ptr + row * (D // 2) + cols)
    if BACKWARD:
        s = -s
    first = tl.arange(0, H)[:, None] * D + cols[None, :]
    x1 = tl.load(x_ptr + first)
    x2 = tl.load(x_ptr + first + D // 2)
    tl.store(x_ptr + first, x1 * c - x2 * s)
    tl.store(x_ptr + first + D // 2, x2 * c + x1 * s)


@txl.jit
def inplace_increment(x_ptr):
    """A scalar updated in place by its program: every thread holds the scalar, one thread stores it."""
    p = x_ptr + tl.program_id(0)
    tl.store(p, tl.load(p) + 1.0)


def _increment(n, **options):
    def build(T):
        x0 = T.randn((n,), "float32")
        x = x0.clone() if hasattr(x0, "clone") else x0
        return dict(grid=(n,), args=(x,), kwargs=dict(**options), out=x, ref=lambda: x0 + 1.0)

    return build


def _rotate(rows, H, D, backward=False, **options):
    def build(T):
        x0 = T.randn((rows, H, D), "float32")
        # the kernel overwrites x: the reference reads the untouched copy (MetaTensors have no data to copy)
        x = x0.clone() if hasattr(x0, "clone") else x0
        c = T.randn((rows, D // 2), "float32")
        s = T.randn((rows, D // 2), "float32")

        def ref():
            sn = -s if backward else s
            x1, x2 = x0[..., : D // 2], x0[..., D // 2:]
            cc, ss = c[:, None, :], sn[:, None, :]
            return T.torch.cat([x1 * cc - x2 * ss, x2 * cc + x1 * ss], dim=-1)

        return dict(grid=(rows,), args=(x, c, s), kwargs=dict(H=H, D=D, BACKWARD=backward, **options), out=x,
                    ref=ref)

    return build


TOL = dict(atol=1e-5, rtol=1e-5)
CASES = [
    # 2 x 64 over 4 warps: warps 1-3 copy warp 0 (Liger's k with 2 kv heads, head_dim 128)
    Case("inplace_rotate_2x64", _rotate(8192, 2, 128), MODULE, "inplace_rotate", tol=TOL),
    Case("inplace_rotate_2x64_bwd", _rotate(8192, 2, 128, backward=True), MODULE, "inplace_rotate", tol=TOL),
    # 4 x 32: lanes copy too; 8 warps of copies
    Case("inplace_rotate_4x32_w8", _rotate(4096, 4, 64, num_warps=8), MODULE, "inplace_rotate", tol=TOL),
    # a scalar: every thread loaded it, every thread stored x + 1, and a late thread could add 1 twice
    Case("inplace_increment", _increment(65536), MODULE, "inplace_increment", tol=TOL),
    Case("inplace_increment_w8", _increment(65536, num_warps=8), MODULE, "inplace_increment", tol=TOL),
    # 16 x 64 over 4 warps: no copies (the unchanged path)
    Case("inplace_rotate_16x64", _rotate(2048, 16, 128), MODULE, "inplace_rotate", tol=TOL),
]
