"""MLA decoding, compute-bound case (64 or more query rows per sequence: heads x query tokens), TXL-style:
warp-specialized, TMA, mbarriers, wgmma, in FlashMLA's design (one latent KV head shared by all query heads; a
cache row is [c (D_V = 512) | k_pe (D_PE = 64)], the scores are q . row over all 576 columns and V is c itself).

Program (64-row block mb, sequence b, split): rows are the sequence's query rows, row r = token * H + head (q
viewed as (B * S_Q * H, 576)); they attend to the keys [start, end) of split `split` of the cache (NUM_SPLITS
equal parts rounded to 64 keys), a 64-key tile at a time. A tile lies in one page (PAGE % 64 == 0), so it is one
TMA load of 64 rows x 576 columns at row page * PAGE + offset of the cache viewed as (pages * PAGE, 576).

num_warps=4, num_warpgroups=3:
  WG0       producer (setmaxnreg 24; WG1 256, WG2 224): Q (64 x 576, once), then the cache tiles through a 2-stage ring
            (k_full: 1 arrival + bytes; k_empty: 256 arrivals, both consumers). The page of a tile is a scalar
            load of the block table.
  WG1       S = Q K^T (64 x 64, K = 576, SS wgmma), the online softmax, P (bf16) and the rescale factor alpha
            into shared memory for both consumers (p_full / p_empty for WG2, one buffer), O[:, 0:256] +=
            P V[:, 0:256].
            FA3's overlap: S_j and P_{j-1} V_{j-1} are issued back to back and the softmax of S_j runs while the
            P V wgmma does.
  WG2       O[:, 256:512] *= alpha, += P V[:, 256:512], as WG1's P arrives; its P V runs while WG1 computes the
            next S and softmax.
  V is the first 512 columns of the same cache tile, so each tile is read from HBM once and feeds three GEMMs.
  Each consumer holds a 64 x 256 float32 accumulator (128 registers a thread).

Keys past the sequence's end in its last tile: the cache may hold anything there (NaN included: a page's unused
slots are never written), and P = 0 does not cancel NaN in P @ V, so WG2 zeroes the 512 V columns of those rows in
shared memory (generic stores, fence.proxy.async) and both consumers meet at named barrier 10 (256 threads) before
that tile's P @ V. The scores of those keys are masked to -inf, so what WG1's S GEMM reads there meanwhile does
not matter.

CAUSAL (S_Q > 1, speculative decoding): query token t of the S_Q new ones is the cache's position seqlen - S_Q + t
and sees the keys up to it (FlashAttention's bottom-right alignment); a row that sees no key (seqlen < S_Q - t)
gets O = 0 and LSE = +inf.

Outputs, rows g = b * ROWS + r (ROWS = S_Q * H) for r < ROWS: not PARTIAL (NUM_SPLITS == 1): O (g, D_V) in q's
dtype and LSE (g) float32 log2 units (+inf: no key). PARTIAL: the split's normalised partial PART_O
((g * NUM_SPLITS + split), D_V) float32 and PART_LSE (g * NUM_SPLITS + split) (-inf: no key), merged by
mla_decode.mla_decode_combine with ROWS rows per sequence. Shared memory: Q 72 KB + 2 x 72 KB cache tiles + P 8 KB + alpha = 229,696 bytes (txlc).
"""

import txl
import txl.language as tl

from txl.kernels._attention_common import _advance, _softmax_step

BLOCK_M = 64  # query rows per program: wgmma's M
BLOCK_N = 64  # keys per tile
NUM_STAGES = 2  # cache tiles in flight (72 KB each)


@txl.jit
def _tile_mask(qk, n0, end, seqlen, row0, H, S_Q, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               CAUSAL: tl.constexpr):
    # -inf for keys at or past the split's end and, CAUSAL, for keys after a row's own position.
    keys = n0 + tl.arange(0, BLOCK_N)
    if CAUSAL:
        tok = (row0 + tl.arange(0, BLOCK_M)) // H
        last = seqlen - S_Q + tok  # the last key row r sees
        keep = (keys[None, :] < end) & (keys[None, :] <= last[:, None])
    else:
        keep = (keys < end)[None, :]
    return tl.where(keep, qk, float("-inf"))


@txl.jit
def _split_range(SEQLENS, NUM_SPLITS, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # The program's work (grid (row blocks, batch, splits)): batch b, split, first query row row0, the sequence's
    # length, and the split's keys start .. end - 1 (whole BLOCK_N tiles but at the sequence's end), n_tiles tiles.
    mb = tl.program_id(0)
    b = tl.program_id(1)
    split = tl.program_id(2)
    row0 = mb * BLOCK_M
    seqlen = tl.load(SEQLENS + b)
    per_split = tl.cdiv(tl.cdiv(seqlen, NUM_SPLITS), BLOCK_N) * BLOCK_N
    start = split * per_split
    end = tl.minimum(start + per_split, seqlen)
    n_tiles = tl.cdiv(tl.maximum(end - start, 0), BLOCK_N)
    return b, split, row0, seqlen, start, end, n_tiles


@txl.jit
def _softmax(qk, m_i, l_i, qk_scale, n0, end, seqlen, row0, H, S_Q, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             CAUSAL: tl.constexpr):
    # The online softmax of the scores of the tile at key n0 (masked where it reaches past the split's end or,
    # CAUSAL, past a row's position): (P, new row max, new row sum, alpha = the rescale of what came before).
    need = n0 + BLOCK_N > end
    if CAUSAL:  # keys after the first query token's position
        need = need | (n0 + BLOCK_N + S_Q - 1 > seqlen)
    if need:
        qk = _tile_mask(qk, n0, end, seqlen, row0, H, S_Q, BLOCK_M, BLOCK_N, CAUSAL)
    # CAUSAL: a row that has seen no key yet gets P = 0 and alpha = 0, not NaN (the step's SAFE)
    return _softmax_step(qk, m_i, l_i, qk_scale, CAUSAL)


@txl.jit
def _hand_over(p_s, a_s, p_lo, alpha, p_full, p_empty, j):
    # P and alpha of the j-th tile to WG2 (and P to WG1's own P V), once WG2 is done with the previous P
    # (p_empty's parity starts at 1: no wait at j = 0) and WG1's P V of it has retired: generic stores,
    # fence.proxy.async (wgmma reads P), each thread's arrival for WG2, a barrier of WG1's threads for WG1.
    txl.mbar_wait(txl.get_buffer(p_empty, 0), (j & 1) ^ 1)
    txl.smem_store(p_s, p_lo)
    txl.smem_store(a_s, alpha)
    txl.fence_proxy_async()
    txl.mbar_arrive(txl.get_buffer(p_full, 0))
    txl.bar_wait(11, 128)  # all of WG1 has stored P before its own wgmma reads it


@txl.jit
def _zero_tail(kt, n_valid, D_V: tl.constexpr, BLOCK_N: tl.constexpr):
    # Rows n_valid.. of the V columns of the cache tile kt (keys past the sequence's end) become 0: read, masked
    # and written back 64 columns (one swizzle column block) at a time, 32 values a thread next to the 128
    # accumulator registers (WG1, with S and P live too, spilled doing this). Then fence.proxy.async, so the
    # wgmmas that read the tile (async proxy) see the stores once the caller's barrier orders them.
    keep = (tl.arange(0, BLOCK_N) < n_valid)[:, None]
    for c in tl.static_range(0, D_V, 64):
        v = txl.smem_slice(kt, c, 64, dim=1)
        x = txl.smem_load(v)
        txl.smem_store(v, tl.where(keep, x, tl.zeros_like(x)))
    txl.fence_proxy_async()


@txl.jit
def _store_out(acc, m_i, l_i, O, LSE, PART_O, PART_LSE, b, row0, split, ROWS, W: tl.constexpr,
               NUM_SPLITS, COLS: tl.constexpr, D_V: tl.constexpr, BLOCK_M: tl.constexpr, PARTIAL: tl.constexpr):
    # This consumer's COLS output columns of the block's real rows (r < ROWS); consumer 0 also stores the LSE
    # (m_i is None for consumer 1).
    seen = l_i > 0.0
    rows = row0 + tl.arange(0, BLOCK_M)
    rmask = rows < ROWS
    g = b.to(tl.int64) * ROWS + rows
    if W == 0:
        lse = m_i + tl.log2(tl.where(seen, l_i, 1.0))
        if not PARTIAL:
            tl.store(LSE + g, tl.where(seen, lse, float("inf")), mask=rmask)
        else:
            tl.store(PART_LSE + g * NUM_SPLITS + split, tl.where(seen, lse, float("-inf")), mask=rmask)
    out = acc * tl.where(seen, 1.0 / tl.where(seen, l_i, 1.0), 0.0)[:, None]
    cols = W * COLS + tl.arange(0, COLS)
    if not PARTIAL:
        tl.store(O + g[:, None] * D_V + cols[None, :], out.to(O.dtype.element_ty), mask=rmask[:, None])
    else:
        tl.store(PART_O + (g * NUM_SPLITS + split)[:, None] * D_V + cols[None, :], out, mask=rmask[:, None])


@txl.jit(do_not_specialize=["ROWS", "H", "S_Q", "NUM_SPLITS"])
def mla_decode_wgmma(desc_q, desc_kv, BT, SEQLENS, O, LSE, PART_O, PART_LSE, sm_scale, ROWS, H, S_Q, bt_stride,
                     NUM_SPLITS, D_V: tl.constexpr, D_PE: tl.constexpr, PAGE: tl.constexpr, PARTIAL: tl.constexpr,
                     CAUSAL: tl.constexpr = False, WG1_REGS: tl.constexpr = 256):
    tl.static_assert(PAGE % BLOCK_N == 0, "a 64-key tile lies in one page")
    tl.static_assert(D_V == 512, "two consumers of 256 output columns (wgmma's widest N)")
    D: tl.constexpr = D_V + D_PE
    COLS: tl.constexpr = D_V // 2
    TILE_BYTES: tl.constexpr = BLOCK_N * D * 2
    Q_BYTES: tl.constexpr = BLOCK_M * D * 2
    PRODUCER_REGS: tl.constexpr = 24
    dtype = desc_q.dtype

    b, split, row0, seqlen, start, end, n_tiles = _split_range(SEQLENS, NUM_SPLITS, BLOCK_M, BLOCK_N)

    bQ = txl.smem_alloc([BLOCK_M, D], dtype)
    bK = txl.smem_alloc([BLOCK_N, D], dtype, num_stages=NUM_STAGES)
    bP = txl.smem_alloc([BLOCK_M, BLOCK_N], dtype)
    bA = txl.smem_alloc([BLOCK_M], tl.float32)  # alpha of the tile in bP; after the last tile, l
    q_full = txl.mbar_alloc(1)
    k_full = txl.mbar_alloc(1, num_stages=NUM_STAGES)
    k_empty = txl.mbar_alloc(256, num_stages=NUM_STAGES)
    p_full = txl.mbar_alloc(128)
    p_empty = txl.mbar_alloc(128)
    l_full = txl.mbar_alloc(128)

    # ---- WG0: Q once, then the split's cache tiles. The first pass over the ring does not block (parity 1).
    if txl.is_warpgroup([0]):
        txl.reg_dealloc(PRODUCER_REGS)
        qb = txl.get_buffer(q_full, 0)
        txl.mbar_expect(qb, Q_BYTES)
        txl.tma_load(txl.get_buffer(bQ, 0), desc_q, [b * ROWS + row0, 0], qb)
        bt_row = BT + b.to(tl.int64) * bt_stride
        s = 0
        phase = 1
        for j in range(0, n_tiles):
            n0 = start + j * BLOCK_N
            page = tl.load(bt_row + n0 // PAGE)
            txl.mbar_wait(txl.get_buffer(k_empty, s), phase)
            kf = txl.get_buffer(k_full, s)
            txl.mbar_expect(kf, TILE_BYTES)
            txl.tma_load(txl.get_buffer(bK, s), desc_kv, [page * PAGE + n0 % PAGE, 0], kf)
            s, phase = _advance(s, phase, NUM_STAGES)

    # Consumers: setmaxnreg gives WG1 (S, softmax and half the output: 128 + 32 + 32 live registers) 256 and WG2
    # 224; with the producer's 24 that is the 504 a thread of each warpgroup shares (at 240 / 240 WG1 spilled).
    p_s = txl.get_buffer(bP, 0)
    a_s = txl.get_buffer(bA, 0)
    if txl.is_warpgroup([1]):
        txl.reg_alloc(WG1_REGS)
        acc = tl.zeros([BLOCK_M, COLS], tl.float32)
        s = 0
        phase = 0
        # ---- WG1: scores, softmax, P and alpha for WG2, output columns 0 .. 255. FA3's overlap: tile 0's S and
        # softmax are peeled; each iteration issues S_j and O += P_{j-1} V_{j-1} back to back, waits for S_j only
        # (dot_wait 1) and runs the softmax of S_j while the P V wgmma runs. P V reads P from shared memory, as
        # WG2's does (P in registers, pinned under the running wgmma next to S and the accumulator, spilled).
        qk_scale = sm_scale * 1.44269504
        q = txl.get_buffer(bQ, 0)
        txl.mbar_wait(txl.get_buffer(q_full, 0), 0)
        m_i = tl.zeros([BLOCK_M], tl.float32) - float("inf")
        l_i = tl.zeros([BLOCK_M], tl.float32)
        if n_tiles > 0:
            txl.mbar_wait(txl.get_buffer(k_full, 0), 0)
            qk = tl.dot(q, txl.get_buffer(bK, 0).T)
            txl.dot_wait(0)
            p, m_i, l_i, alpha = _softmax(qk, m_i, l_i, qk_scale, start, end, seqlen, row0, H, S_Q, BLOCK_M,
                                          BLOCK_N, CAUSAL)
            _hand_over(p_s, a_s, p.to(dtype), alpha, p_full, p_empty, 0)
            sv = 0  # the stage of the tile whose P V is pending
            s, phase = _advance(s, phase, NUM_STAGES)
            for j in range(1, n_tiles):
                n0 = start + j * BLOCK_N
                txl.mbar_wait(txl.get_buffer(k_full, s), phase)
                qk = tl.dot(q, txl.get_buffer(bK, s).T)
                acc = tl.dot(p_s, txl.smem_slice(txl.get_buffer(bK, sv), 0, COLS, dim=1), acc)
                txl.dot_wait(1)  # S_j retired; P_{j-1} V_{j-1} may still run
                p, m_i, l_i, alpha = _softmax(qk, m_i, l_i, qk_scale, n0, end, seqlen, row0, H, S_Q, BLOCK_M,
                                              BLOCK_N, CAUSAL)
                txl.dot_wait(0)  # P_{j-1} V_{j-1} retired: its stage and (with WG2's) the P buffer are free
                txl.mbar_arrive(txl.get_buffer(k_empty, sv))
                _hand_over(p_s, a_s, p.to(dtype), alpha, p_full, p_empty, j)
                acc = acc * alpha[:, None]
                sv = s
                s, phase = _advance(s, phase, NUM_STAGES)
            # The last tile's P V, after WG2 has zeroed its keys past the sequence's end (if it holds the end).
            if start + n_tiles * BLOCK_N > seqlen:
                txl.bar_wait(10, 256)
            acc = tl.dot(p_s, txl.smem_slice(txl.get_buffer(bK, sv), 0, COLS, dim=1), acc)
            txl.dot_wait(0)
            txl.mbar_arrive(txl.get_buffer(k_empty, sv))
        # l for WG2's normalisation, once WG2 has read the last alpha.
        txl.mbar_wait(txl.get_buffer(p_empty, 0), (n_tiles & 1) ^ 1)
        txl.smem_store(a_s, l_i)
        txl.mbar_arrive(txl.get_buffer(l_full, 0))
        _store_out(acc, m_i, l_i, O, LSE, PART_O, PART_LSE, b, row0, split, ROWS, 0, NUM_SPLITS, COLS, D_V,
                   BLOCK_M, PARTIAL)

    if txl.is_warpgroup([2]):
        txl.reg_alloc(504 - PRODUCER_REGS - WG1_REGS)
        acc = tl.zeros([BLOCK_M, COLS], tl.float32)
        s = 0
        phase = 0
        # ---- WG2: output columns 256 .. 511 with WG1's P and alpha.
        for j in range(0, n_tiles):
            n0 = start + j * BLOCK_N
            kt = txl.get_buffer(bK, s)
            txl.mbar_wait(txl.get_buffer(k_full, s), phase)
            if n0 + BLOCK_N > seqlen:
                _zero_tail(kt, seqlen - n0, D_V, BLOCK_N)
                txl.bar_wait(10, 256)  # both consumers: the zeros are in place for every P @ V
            txl.mbar_wait(txl.get_buffer(p_full, 0), j & 1)
            alpha = txl.smem_load(a_s)
            acc = tl.dot(p_s, txl.smem_slice(kt, COLS, COLS, dim=1), acc * alpha[:, None])
            txl.dot_wait(0)
            txl.mbar_arrive(txl.get_buffer(p_empty, 0))
            txl.mbar_arrive(txl.get_buffer(k_empty, s))
            s, phase = _advance(s, phase, NUM_STAGES)
        txl.mbar_wait(txl.get_buffer(l_full, 0), 0)
        l_i = txl.smem_load(a_s)
        _store_out(acc, None, l_i, O, LSE, PART_O, PART_LSE, b, row0, split, ROWS, 1, NUM_SPLITS, COLS,
                   D_V, BLOCK_M, PARTIAL)


def signature(dtype="bf16"):
    """The kernel's runtime parameters on contiguous tensors (what the op launches)."""
    d = 512 + 64
    return {"desc_q": "tensordesc<%s[%d, %d]>" % (dtype, BLOCK_M, d),
            "desc_kv": "tensordesc<%s[%d, %d]>" % (dtype, BLOCK_N, d),
            "BT": "*i32:16", "SEQLENS": "*i32:16", "O": "*%s:16" % dtype, "LSE": "*fp32:16", "PART_O": "*fp32:16",
            "PART_LSE": "*fp32:16", "sm_scale": "fp32", "ROWS": "i32", "H": "i32", "S_Q": "i32", "bt_stride": "i32",
            "NUM_SPLITS": "i32"}


def constexprs(page_size, num_splits, causal=False, d_v=512, d_pe=64):
    """The constexprs of a launch with ``num_splits`` splits (a runtime argument: only one split or several is
    compiled in, so a split count that changes as the block table grows compiles nothing new)."""
    return dict(D_V=d_v, D_PE=d_pe, PAGE=page_size, PARTIAL=num_splits > 1, CAUSAL=causal)


OPTIONS = {"num_warps": 4, "num_warpgroups": 3}
