"""GPU cases for Triton-style desc.load inside run-time loops (see test_dsl_desc_loop.py for the IR side).

Each kernel walks the K tiles of two bf16 matrices A and B (M x K) with ``a_desc.load`` / ``b_desc.load`` in a
loop and accumulates ``A * B`` tile by tile in float32: out[m, j] = sum over tiles t of A[m, t*BK + j] * B[m, t*BK
+ j] (out is M x BK, float32). Variants: scf.for, nested loops (a persistent outer loop over row blocks, which also
stores in a loop), scf.while, a load under an `if` in the loop (even tiles only), sizes that are not multiples of
the tile (TMA fills out-of-bounds elements with zeros and clips the stores), and a warp-specialized kernel whose
two consumer warpgroups each stream their own rows. Cases use ``dsl_cases.Case``/``run_case``, so
``python/txl/tools/precompile.py`` (which collects every ``*_cases.py`` here) precompiles them.
"""

import txl
import txl.language as tl

from txl.tests.gpu.dsl_cases import Case, cdiv

MODULE = __name__


@txl.jit
def desc_loop_for(a_desc, b_desc, out_desc, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M
    acc = tl.zeros([BLOCK_M, BLOCK_K], tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([off_m, k])
        b = b_desc.load([off_m, k])
        acc += a.to(tl.float32) * b.to(tl.float32)
    out_desc.store([off_m, 0], acc)


@txl.jit
def desc_loop_nested(a_desc, b_desc, out_desc, M, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    num_blocks = tl.cdiv(M, BLOCK_M)
    for mb in range(tl.program_id(0), num_blocks, tl.num_programs(0)):
        acc = tl.zeros([BLOCK_M, BLOCK_K], tl.float32)
        for k in range(0, K, BLOCK_K):
            acc += a_desc.load([mb * BLOCK_M, k]).to(tl.float32) * b_desc.load([mb * BLOCK_M, k]).to(tl.float32)
        out_desc.store([mb * BLOCK_M, 0], acc)


@txl.jit
def desc_loop_while(a_desc, b_desc, out_desc, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M
    acc = tl.zeros([BLOCK_M, BLOCK_K], tl.float32)
    k = 0
    while k < K:
        a = a_desc.load([off_m, k])
        b = b_desc.load([off_m, k])
        acc += a.to(tl.float32) * b.to(tl.float32)
        k += BLOCK_K
    out_desc.store([off_m, 0], acc)


@txl.jit
def desc_loop_if(a_desc, b_desc, out_desc, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M
    acc = tl.zeros([BLOCK_M, BLOCK_K], tl.float32)
    for k in range(0, K, BLOCK_K):
        if (k // BLOCK_K) % 2 == 0:
            acc += a_desc.load([off_m, k]).to(tl.float32) * b_desc.load([off_m, k]).to(tl.float32)
    out_desc.store([off_m, 0], acc)


@txl.jit
def desc_loop_ws(a_desc, b_desc, out_desc, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    """Warpgroups 1 and 2 each take their own row block (own staging stage, own mbarrier, warpgroup syncs)."""
    if txl.is_warpgroup([0]):
        txl.reg_dealloc(40)
    if txl.is_warpgroup([1, 2]):
        off_m = (tl.program_id(0) * 2 + txl.warpgroup_id() - 1) * BLOCK_M
        acc = tl.zeros([BLOCK_M, BLOCK_K], tl.float32)
        for k in range(0, K, BLOCK_K):
            acc += a_desc.load([off_m, k]).to(tl.float32) * b_desc.load([off_m, k]).to(tl.float32)
        out_desc.store([off_m, 0], acc)


def _ref(T, a, b, BK, only_even=False):
    """sum over K tiles of a * b (float32), the K tail zero-padded as TMA does."""
    torch = T.torch
    M, K = a.shape
    KP = cdiv(K, BK) * BK
    p = torch.zeros(M, KP, device=a.device, dtype=torch.float32)
    p[:, :K] = a.float() * b.float()
    tiles = p.view(M, KP // BK, BK)
    if only_even:
        tiles = tiles[:, ::2]
    return tiles.sum(1)


def _build(kernel, M, K, BM=64, BK=64, persistent_ctas=None, ws=False):
    def build(T):
        a = T.randn((M, K), "bfloat16")
        b = T.randn((M, K), "bfloat16")
        out = T.empty((M, BK), "float32")
        args = [T.desc(a, [BM, BK]), T.desc(b, [BM, BK]), T.desc(out, [BM, BK])]
        blocks = cdiv(M, BM)
        grid = (blocks,)
        if kernel == "desc_loop_nested":
            args += [M, K]
            grid = (persistent_ctas or blocks,)
        else:
            args += [K]
        kw = dict(BLOCK_M=BM, BLOCK_K=BK)
        if ws:
            kw.update(num_warps=4, num_warpgroups=3)
            grid = (cdiv(blocks, 2),)
        return dict(grid=grid, args=tuple(args), kwargs=kw, out=out,
                    ref=lambda: _ref(T, a, b, BK, only_even=(kernel == "desc_loop_if")))

    return build


TOL = dict(atol=1e-3, rtol=1e-4)
CASES = [
    Case("desc_loop_for", _build("desc_loop_for", 256, 512), MODULE, "desc_loop_for", tol=TOL),
    Case("desc_loop_for_ragged", _build("desc_loop_for", 200, 200), MODULE, "desc_loop_for", tol=TOL),
    Case("desc_loop_nested", _build("desc_loop_nested", 448, 320, persistent_ctas=3), MODULE, "desc_loop_nested",
         tol=TOL),
    Case("desc_loop_nested_ragged", _build("desc_loop_nested", 300, 136, persistent_ctas=2), MODULE,
         "desc_loop_nested", tol=TOL),
    Case("desc_loop_while", _build("desc_loop_while", 256, 576), MODULE, "desc_loop_while", tol=TOL),
    Case("desc_loop_while_ragged", _build("desc_loop_while", 130, 1000), MODULE, "desc_loop_while", tol=TOL),
    Case("desc_loop_if", _build("desc_loop_if", 192, 640), MODULE, "desc_loop_if", tol=TOL),
    Case("desc_loop_ws", _build("desc_loop_ws", 512, 384, ws=True), MODULE, "desc_loop_ws", tol=TOL),
    Case("desc_loop_ws_ragged", _build("desc_loop_ws", 328, 264, ws=True), MODULE, "desc_loop_ws", tol=TOL),
    # Long loops over many CTAs per SM (warps drift apart: the staging buffer's reuse must be synchronized).
    Case("desc_loop_for_long", _build("desc_loop_for", 8192, 4096), MODULE, "desc_loop_for", tol=TOL),
    Case("desc_loop_ws_long", _build("desc_loop_ws", 8192, 4096, ws=True), MODULE, "desc_loop_ws", tol=TOL),
]
