"""MLA decoding over an FP8 (e4m3) latent cache with a per-tensor dequantization scale: the split kernel of
mla_decode.py (program (sequence, 16 query rows, split), mma.sync with M = 16, online softmax over tiles of BLOCK_N
keys within one page, partials merged by mla_decode.mla_decode_combine) reading float8_e4m3fn cache rows, half the
bytes of a bf16 cache (FlashMLA's FP8 decoding does the same: dequantize in the kernel, compute in 16 bits).

A cache row is [c (D_V = 512) | k_pe (D_PE = 64)] of e4m3 values whose real values are value * KV_SCALE (a float32
scalar read from device memory, so the host never synchronises on it). The tile is converted to q's 16-bit type
(exact: every e4m3 value is a bf16 and an fp16 value) and the scale is folded where it costs nothing:
S = (q . k8) * KV_SCALE * sm_scale (one factor of the softmax scale) and O = (P . c8) * KV_SCALE / l (one factor of
the epilogue), so the converted tile is the raw e4m3 values and no pass over the cache scales them.

Per tile (TXL-style inside a Triton-style kernel: the loop pipeliner rings only loads that feed a dot directly, and
a converted load does not, so the kernel keeps its own ring):
  * the cache rows arrive by cp.async (txl.async_load, masked rows zero-filled) into a NUM_STAGES ring of e4m3
    buffers ([BLOCK_N, 512] and [BLOCK_N, 64], 64-byte swizzle), NUM_STAGES - 1 tiles ahead of the one consumed;
  * after the wait and a CTA barrier, the tile NUM_STAGES - 1 ahead is issued into the stage consumed last
    iteration, and the current stage is converted 64 columns at a time into one 16-bit tile ([BLOCK_N, 512] and
    [BLOCK_N, 64], 128-byte swizzle: read by ldmatrix, as the pipeliner's own rings);
  * a second barrier, then S = q_nope c^T + q_pe k_pe^T (q stored once in shared memory, ldmatrix at each use, as
    the bf16 kernel's compiler does for q_nope), the online softmax, acc += P c.
  The first barrier also orders the previous iteration's ldmatrix reads of the 16-bit tile before its rewrite.

Keys past a split's end are zero-filled by cp.async (never read from memory: slots past a sequence's end may hold
anything, NaN included) and masked to -inf in the scores. CAUSAL: as mla_decode.py (token t of S_Q is the cache
position seqlen - S_Q + t and sees the keys up to it).

Layouts as mla_decode.mla_decode_split: Q (B, H, 576) rows (16-bit), KV (pages, PAGE, 576) e4m3, BT, SEQLENS int32,
KV_SCALE float32 (one element), PART_O (B, H, NUM_SPLITS, 512) and PART_LSE (B, H, NUM_SPLITS) float32 (log2 units,
-inf: no key).
"""

import txl
import txl.language as tl
from txl.language import semantic as _S
from txl.language.core import _unwrap, builtin

from txl.kernels.mla_decode import _load_q, _masked_softmax, _split_keys

NUM_STAGES = 3  # e4m3 tiles in the ring (NUM_STAGES - 1 in flight while one is converted)


@builtin
def _swizzled_alloc(shape, dtype, num_stages, swizzle):
    """txl.smem_alloc with a named NVMMA swizzle. txl gives a buffer a swizzle only when TMA or wgmma uses it (an
    mma.sync operand read by ldmatrix needs one, and column slices of a buffer need one); txl.smem_alloc's
    shared_enc argument is accepted but not used yet, so the swizzle is set as Gluon's shared layouts set it."""
    t = _S.smem_alloc(shape, dtype, num_stages)
    t.type.cell.set_swizzle(int(_unwrap(swizzle)), "the MLA fp8 kernel's mma.sync operand tiles")
    return t


@txl.jit
def _issue(b8v, b8p, stage, KV, bt_row, n, end, offs_n, offs_v, offs_pe, D_V: tl.constexpr, D: tl.constexpr,
           PAGE: tl.constexpr):
    # The e4m3 rows of the tile at key n into ring stage `stage`: two cp.async groups (c, k_pe); rows at or past
    # the split's end (the whole tile past it: prefetches beyond the last tile) are zero-filled, not read, and
    # their page is not looked up (the block table may end there).
    page = tl.load(bt_row + n // PAGE, mask=n < end, other=0)
    valid = (n + offs_n) < end
    rows = (page.to(tl.int64) * PAGE + n % PAGE + offs_n) * D
    txl.async_load(txl.get_buffer(b8v, stage), KV + rows[:, None] + offs_v[None, :], mask=valid[:, None], other=0.0)
    txl.async_load(txl.get_buffer(b8p, stage), KV + rows[:, None] + D_V + offs_pe[None, :], mask=valid[:, None],
                   other=0.0)


@txl.jit
def mla_decode_split_fp8(Q, KV, BT, SEQLENS, PART_O, PART_LSE, sm_scale, KV_SCALE, H, bt_stride, HQ, S_Q,
                         D_V: tl.constexpr, D_PE: tl.constexpr, PAGE: tl.constexpr, BLOCK_H: tl.constexpr,
                         BLOCK_N: tl.constexpr, NUM_SPLITS: tl.constexpr, CAUSAL: tl.constexpr = False,
                         STAGES: tl.constexpr = 3):
    tl.static_assert(PAGE % BLOCK_N == 0, "a tile lies in one page")
    tl.static_assert(STAGES >= 2, "a ring of at least two stages")
    D: tl.constexpr = D_V + D_PE
    b, hb, split, seqlen, start, end = _split_keys(SEQLENS, NUM_SPLITS, BLOCK_N)
    n_tiles = tl.cdiv(tl.maximum(end - start, 0), BLOCK_N)
    offs_h, hmask, offs_v, offs_pe, offs_n, q_nope, q_pe = _load_q(Q, b, hb, H, D_V, D_PE, BLOCK_H, BLOCK_N)
    dtype = q_nope.dtype
    kv_scale = tl.load(KV_SCALE)
    qk_scale = sm_scale * kv_scale * 1.44269504

    b8v = _swizzled_alloc([BLOCK_N, D_V], tl.float8e4nv, STAGES, 64)  # e4m3 ring: 64-byte column blocks
    b8p = _swizzled_alloc([BLOCK_N, D_PE], tl.float8e4nv, STAGES, 64)
    bv = txl.get_buffer(_swizzled_alloc([BLOCK_N, D_V], dtype, 1, 128), 0)  # the converted tile
    bp = txl.get_buffer(_swizzled_alloc([BLOCK_N, D_PE], dtype, 1, 128), 0)
    # q in shared memory, read with ldmatrix by every tile's S (q_pe too: in registers it is 16 more a thread, and
    # the causal variant spilled 8 bytes); the loop's first barrier orders these stores before the reads.
    bq = txl.get_buffer(_swizzled_alloc([BLOCK_H, D_V], dtype, 1, 128), 0)
    bqp = txl.get_buffer(_swizzled_alloc([BLOCK_H, D_PE], dtype, 1, 128), 0)
    txl.smem_store(bq, q_nope)
    txl.smem_store(bqp, q_pe)

    bt_row = BT + b.to(tl.int64) * bt_stride
    for i in tl.static_range(STAGES - 1):
        _issue(b8v, b8p, i, KV, bt_row, start + i * BLOCK_N, end, offs_n, offs_v, offs_pe, D_V, D, PAGE)

    m_i = tl.zeros([BLOCK_H], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_H], dtype=tl.float32)
    acc = tl.zeros([BLOCK_H, D_V], dtype=tl.float32)
    for j in range(0, n_tiles):
        n0 = start + j * BLOCK_N
        # Tile j's two groups have landed (the STAGES - 2 later tiles' may still fly), in every thread's view;
        # and every thread is past tile j - 1's reads of its e4m3 stage and of the 16-bit tile.
        txl.async_load_wait(2 * (STAGES - 2))
        tl.debug_barrier()
        _issue(b8v, b8p, (j + STAGES - 1) % STAGES, KV, bt_row, n0 + (STAGES - 1) * BLOCK_N, end, offs_n, offs_v,
               offs_pe, D_V, D, PAGE)
        sc = j % STAGES
        s8 = txl.get_buffer(b8v, sc)
        for c in tl.static_range(0, D_V, 64):
            txl.smem_store(txl.smem_slice(bv, c, 64, dim=1), txl.smem_load(txl.smem_slice(s8, c, 64, dim=1)).to(dtype))
        txl.smem_store(bp, txl.smem_load(txl.get_buffer(b8p, sc)).to(dtype))
        tl.debug_barrier()
        s = tl.dot(txl.smem_load(bq), bv.T)
        s = tl.dot(txl.smem_load(bqp), bp.T, s)
        pos = n0 + offs_n
        valid = pos < end
        p, alpha, l_i, m_ij = _masked_softmax(s, m_i, l_i, pos, valid, seqlen, S_Q, offs_h, qk_scale, HQ, CAUSAL)
        acc = tl.dot(p.to(dtype), bv, acc * alpha[:, None])
        m_i = m_ij
    txl.async_load_wait(0)  # the prefetches past the last tile (zero fills) are done before the CTA exits
    seen = l_i > 0.0
    out = acc * (kv_scale / tl.where(seen, l_i, 1.0))[:, None]
    lse = tl.where(seen, m_i + tl.log2(tl.where(seen, l_i, 1.0)), float("-inf"))
    part = (b.to(tl.int64) * H + offs_h) * NUM_SPLITS + split
    tl.store(PART_O + part[:, None] * D_V + offs_v[None, :], out, mask=hmask[:, None])
    tl.store(PART_LSE + part, lse, mask=hmask)


def split_constexprs(page_size, num_splits, d_v=512, d_pe=64, causal=False):
    """mla_decode_split_fp8's constexprs: 16 query rows per program, tiles of at most 32 keys within one page (as
    mla_decode.split_constexprs), a NUM_STAGES ring of e4m3 tiles."""
    cx = dict(D_V=d_v, D_PE=d_pe, PAGE=page_size, BLOCK_H=16, BLOCK_N=min(32, page_size), NUM_SPLITS=num_splits,
              STAGES=NUM_STAGES)
    if causal:
        cx["CAUSAL"] = True
    return cx


def signature(dtype="bf16"):
    """The runtime parameters on contiguous, 16-byte aligned tensors (what the op launches; tests)."""
    return {"Q": "*%s:16" % dtype, "KV": "*fp8e4nv:16", "BT": "*i32:16", "SEQLENS": "*i32:16",
            "PART_O": "*fp32:16", "PART_LSE": "*fp32:16", "sm_scale": "fp32", "KV_SCALE": "*fp32:16", "H": "i32",
            "bt_stride": "i32:16", "HQ": "i32", "S_Q": "i32"}
