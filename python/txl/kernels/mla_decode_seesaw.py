"""MLA decoding, compute-bound case, with FlashMLA's "seesaw" schedule: the default of `txl.ops.mla_decode` for 64+
query rows (`mla_decode.SCHEDULE` = "seesaw"; "fa3" selects mla_decode_wgmma.py, with the same arguments, tiles,
outputs and producer; bench/mla_decode.py --fa3 times both).

In mla_decode_wgmma.py one consumer (WG1) computes every tile's S = Q K^T and softmax and WG2 only multiplies P V,
so WG1's softmax hides only under P V wgmmas. Here the consumers take turns: tiles are taken in pairs (e = 2i, o =
2i + 1); WG1 computes S_e and WG2 S_o at the same time, each softmax runs while the other warpgroup's GEMMs keep
the tensor cores busy, and each consumer still owns one half of the output columns (WG1 0 .. 255, WG2 256 .. 511),
so P of each tile is used from registers by the warpgroup that computed it and through shared memory by the other.
Both halves of O must carry one running row max, so the maxima travel through shared memory in a chain:

  WG1: S_e; m_e = max(m, rowmax S_e) -> bM (me_full); P_e = exp2(S_e - m_e); O_L = O_L * alpha + P_e V_e[L]
       (RS wgmma, async); m_o <- bM (mo_full); P_e * exp2(m_e - m_o) -> bP (pe_full); O_L *= exp2(m_e - m_o);
       O_L += P_o V_o[L] (bP, po_full).
  WG2: S_o; m_e <- bM (me_full); m_o = max(m_e, rowmax S_o) -> bM (mo_full); O_R *= exp2(m - m_o);
       O_R += P_o V_o[R] (RS); O_R += P_e V_e[R] (bP, pe_full); P_o -> bP (po_full).

Each warpgroup keeps its row sum l at the shared max; the two are added at the end (bL). The barriers are
mbarriers of 128 arrivals completing once per pair (parity = pair & 1); every hand-over is ordered by one of them
(the single bP and bM buffers are rewritten only after the reader's signal that follows its read). An odd last
tile has no o: WG2 then computes a wholly masked S on the other stage's stale (finite) contents, so P_o = 0 and
no wgmma sits under a branch. Pair i's e is in stage i % 2 and o in the other: with fixed stages every wgmma
descriptor was loop-invariant, LLVM hoisted all of them out of the loop and ptxas spilled over 500 bytes. Tail keys (past the sequence's end) are zeroed by each warpgroup in its own 256 V
columns before its P V of that tile (64-column blocks, fence.proxy.async, a barrier of its own threads).
"""

import txl
import txl.language as tl

from txl.kernels.mla_decode_wgmma import BLOCK_M, BLOCK_N, _split_range, _store_out, _tile_mask


@txl.jit
def _zero_half(kt, n_valid, bar, X: tl.constexpr, COLS: tl.constexpr, BLOCK_N: tl.constexpr):
    # Rows n_valid.. of columns X .. X + COLS of the cache tile kt become 0 (64-column blocks), visible to this
    # warpgroup's wgmmas after fence.proxy.async and the warpgroup's barrier `bar`.
    keep = (tl.arange(0, BLOCK_N) < n_valid)[:, None]
    for c in tl.static_range(0, COLS, 64):
        v = txl.smem_slice(kt, X + c, 64, dim=1)
        x = txl.smem_load(v)
        txl.smem_store(v, tl.where(keep, x, tl.zeros_like(x)))
    txl.fence_proxy_async()
    txl.bar_wait(bar, 128)


@txl.jit
def _scores(q, kt, n0, end, seqlen, row0, H, S_Q, qk_scale, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
            CAUSAL: tl.constexpr):
    # S of the tile at key n0 (masked where it reaches past the split's end or, CAUSAL, past a row's position) and
    # its row max in the kernel's units.
    qk = tl.dot(q, kt.T)
    txl.dot_wait(0)
    need = n0 + BLOCK_N > end
    if CAUSAL:
        need = need | (n0 + BLOCK_N + S_Q - 1 > seqlen)
    if need:
        qk = _tile_mask(qk, n0, end, seqlen, row0, H, S_Q, BLOCK_M, BLOCK_N, CAUSAL)
    return qk, tl.max(qk, 1) * qk_scale


@txl.jit
def _finite(m, CAUSAL: tl.constexpr):
    # The max subtracted: a row that has seen no key yet (CAUSAL only) subtracts 0, so its P and rescale are 0.
    if CAUSAL:
        m = tl.where(m == float("-inf"), 0.0, m)
    return m


@txl.jit
def _pair(i, start, n_tiles, bK, bQ, BLOCK_N: tl.constexpr):
    # Pair i of tiles, as both consumers see it: its parity, the first keys of tiles e and o, whether tile o
    # exists, their stages of the cache ring, and Q.
    ph = i & 1
    e0 = start + 2 * i * BLOCK_N
    o0 = e0 + BLOCK_N
    has_o = 2 * i + 1 < n_tiles
    ke = txl.get_buffer(bK, ph)
    ko = txl.get_buffer(bK, ph ^ 1)
    q = txl.get_buffer(bQ, ph * (ph ^ 1))  # always 0; see the module docstring (descriptor hoisting)
    return ph, e0, o0, has_o, ke, ko, q


@txl.jit
def _finish(acc, m, l_i, bL, l_full, O, LSE, PART_O, PART_LSE, b, row0, split, ROWS, NUM_SPLITS, W: tl.constexpr,
            COLS: tl.constexpr, D_V: tl.constexpr, BLOCK_M: tl.constexpr, PARTIAL: tl.constexpr):
    # Consumer W's end: the row sums of both consumers' tiles added through shared memory (each publishes its own
    # and waits for the other's), then its output columns (_store_out; m, the row max, from WG1 only).
    txl.smem_store(txl.get_buffer(bL, W), l_i)
    txl.mbar_arrive(txl.get_buffer(l_full, W))
    txl.mbar_wait(txl.get_buffer(l_full, 1 - W), 0)
    l_i = l_i + txl.smem_load(txl.get_buffer(bL, 1 - W))
    _store_out(acc, m, l_i, O, LSE, PART_O, PART_LSE, b, row0, split, ROWS, W, NUM_SPLITS, COLS, D_V, BLOCK_M,
               PARTIAL)


@txl.jit(do_not_specialize=["ROWS", "H", "S_Q", "NUM_SPLITS"])
def mla_decode_seesaw(desc_q, desc_kv, BT, SEQLENS, O, LSE, PART_O, PART_LSE, sm_scale, ROWS, H, S_Q, bt_stride,
                      NUM_SPLITS, D_V: tl.constexpr, D_PE: tl.constexpr, PAGE: tl.constexpr,
                      PARTIAL: tl.constexpr, CAUSAL: tl.constexpr = False, CONSUMER_REGS: tl.constexpr = 240):
    tl.static_assert(PAGE % BLOCK_N == 0, "a 64-key tile lies in one page")
    tl.static_assert(D_V == 512, "two consumers of 256 output columns (wgmma's widest N)")
    D: tl.constexpr = D_V + D_PE
    COLS: tl.constexpr = D_V // 2
    TILE_BYTES: tl.constexpr = BLOCK_N * D * 2
    Q_BYTES: tl.constexpr = BLOCK_M * D * 2
    PRODUCER_REGS: tl.constexpr = 504 - 2 * CONSUMER_REGS
    dtype = desc_q.dtype

    b, split, row0, seqlen, start, end, n_tiles = _split_range(SEQLENS, NUM_SPLITS, BLOCK_M, BLOCK_N)
    n_pairs = tl.cdiv(n_tiles, 2)

    bQ = txl.smem_alloc([BLOCK_M, D], dtype)
    bK = txl.smem_alloc([BLOCK_N, D], dtype, num_stages=2)  # pair i: e in [i % 2], o in the other
    bP = txl.smem_alloc([BLOCK_M, BLOCK_N], dtype)
    bM = txl.smem_alloc([BLOCK_M], tl.float32)
    bL = txl.smem_alloc([BLOCK_M], tl.float32, num_stages=2)  # [W]: consumer W's l
    q_full = txl.mbar_alloc(1)
    k_full = txl.mbar_alloc(1, num_stages=2)
    k_empty = txl.mbar_alloc(256, num_stages=2)
    me_full = txl.mbar_alloc(128)
    mo_full = txl.mbar_alloc(128)
    pe_full = txl.mbar_alloc(128)
    po_full = txl.mbar_alloc(128)
    l_full = txl.mbar_alloc(128, num_stages=2)

    if txl.is_warpgroup([0]):
        txl.reg_dealloc(PRODUCER_REGS)
        qb = txl.get_buffer(q_full, 0)
        txl.mbar_expect(qb, Q_BYTES)
        txl.tma_load(txl.get_buffer(bQ, 0), desc_q, [b * ROWS + row0, 0], qb)
        bt_row = BT + b.to(tl.int64) * bt_stride
        for j in range(0, n_tiles):
            n0 = start + j * BLOCK_N
            page = tl.load(bt_row + n0 // PAGE)
            s = (j + j // 2) % 2  # pair i = j // 2: e in stage i % 2, o in the other
            txl.mbar_wait(txl.get_buffer(k_empty, s), ((j // 2) & 1) ^ 1)
            kf = txl.get_buffer(k_full, s)
            txl.mbar_expect(kf, TILE_BYTES)
            txl.tma_load(txl.get_buffer(bK, s), desc_kv, [page * PAGE + n0 % PAGE, 0], kf)

    qk_scale = sm_scale * 1.44269504
    p_s = txl.get_buffer(bP, 0)
    m_s = txl.get_buffer(bM, 0)

    if txl.is_warpgroup([1]):
        # ---- WG1: tile e of each pair, output columns 0 .. 255.
        txl.reg_alloc(CONSUMER_REGS)
        txl.mbar_wait(txl.get_buffer(q_full, 0), 0)
        if n_tiles == 1:  # stage 1 is never loaded: its V columns (P = 0 meets them) must not hold NaN
            _zero_half(txl.get_buffer(bK, 1), 0, 10, 0, COLS, BLOCK_N)
        acc = tl.zeros([BLOCK_M, COLS], tl.float32)
        m_run = tl.zeros([BLOCK_M], tl.float32) - float("inf")
        l_i = tl.zeros([BLOCK_M], tl.float32)
        for i in range(0, n_pairs):
            ph, e0, o0, has_o, ke, ko, q = _pair(i, start, n_tiles, bK, bQ, BLOCK_N)
            txl.mbar_wait(txl.get_buffer(k_full, ph), ph)
            if e0 + BLOCK_N > seqlen:
                _zero_half(ke, seqlen - e0, 10, 0, COLS, BLOCK_N)
            qk, mx = _scores(q, ke, e0, end, seqlen, row0, H, S_Q, qk_scale, BLOCK_M, BLOCK_N, CAUSAL)
            m_e = tl.maximum(m_run, mx)
            txl.smem_store(m_s, m_e)
            txl.mbar_arrive(txl.get_buffer(me_full, 0))
            m_sub = _finite(m_e, CAUSAL)
            p = tl.exp2(tl.fma(qk, qk_scale, -m_sub[:, None]))
            alpha = tl.exp2(m_run - m_sub)
            l_i = l_i * alpha + tl.sum(p, 1)
            acc = tl.dot(p.to(dtype), txl.smem_slice(ke, 0, COLS, dim=1), acc * alpha[:, None])
            txl.mbar_wait(txl.get_buffer(mo_full, 0), ph)
            m_o = txl.smem_load(m_s)
            # P_e and what came before, to WG2's max m_o (a row with no key yet: m_e = -inf, beta = 0, not inf)
            beta = tl.exp2(m_e - _finite(m_o, CAUSAL))
            txl.smem_store(p_s, (p * beta[:, None]).to(dtype))
            txl.fence_proxy_async()
            txl.mbar_arrive(txl.get_buffer(pe_full, 0))
            txl.dot_wait(0)
            txl.mbar_arrive(txl.get_buffer(k_empty, ph))
            acc = acc * beta[:, None]
            l_i = l_i * beta
            # Tile o (without one, P_o = 0 against stage 1's finite contents: no branch around the wgmma).
            if has_o:
                txl.mbar_wait(txl.get_buffer(k_full, ph ^ 1), ph)
                if o0 + BLOCK_N > seqlen:
                    _zero_half(ko, seqlen - o0, 10, 0, COLS, BLOCK_N)
            txl.mbar_wait(txl.get_buffer(po_full, 0), ph)
            acc = tl.dot(p_s, txl.smem_slice(ko, 0, COLS, dim=1), acc)
            txl.dot_wait(0)
            if has_o:
                txl.mbar_arrive(txl.get_buffer(k_empty, ph ^ 1))
            m_run = m_o
        _finish(acc, m_run, l_i, bL, l_full, O, LSE, PART_O, PART_LSE, b, row0, split, ROWS, NUM_SPLITS, 0, COLS, D_V,
                BLOCK_M, PARTIAL)

    if txl.is_warpgroup([2]):
        # ---- WG2: tile o of each pair, output columns 256 .. 511. Without a tile o (an odd last tile) S_o is
        # computed on stage 1's stale contents and wholly masked (o0 >= end): P_o = 0, m_o = m_e.
        txl.reg_alloc(CONSUMER_REGS)
        txl.mbar_wait(txl.get_buffer(q_full, 0), 0)
        if n_tiles == 1:
            _zero_half(txl.get_buffer(bK, 1), 0, 11, COLS, COLS, BLOCK_N)
        acc = tl.zeros([BLOCK_M, COLS], tl.float32)
        m_run = tl.zeros([BLOCK_M], tl.float32) - float("inf")
        l_i = tl.zeros([BLOCK_M], tl.float32)
        for i in range(0, n_pairs):
            ph, e0, o0, has_o, ke, ko, q = _pair(i, start, n_tiles, bK, bQ, BLOCK_N)
            if has_o:
                txl.mbar_wait(txl.get_buffer(k_full, ph ^ 1), ph)
                if o0 + BLOCK_N > seqlen:
                    _zero_half(ko, seqlen - o0, 11, COLS, COLS, BLOCK_N)
            qk, mx = _scores(q, ko, o0, end, seqlen, row0, H, S_Q, qk_scale, BLOCK_M, BLOCK_N, CAUSAL)
            txl.mbar_wait(txl.get_buffer(me_full, 0), ph)
            m_o = tl.maximum(txl.smem_load(m_s), mx)
            txl.smem_store(m_s, m_o)
            txl.mbar_arrive(txl.get_buffer(mo_full, 0))
            m_sub = _finite(m_o, CAUSAL)
            p = tl.exp2(tl.fma(qk, qk_scale, -m_sub[:, None]))
            alpha = tl.exp2(m_run - m_sub)
            l_i = l_i * alpha + tl.sum(p, 1)
            p_lo = p.to(dtype)
            acc = tl.dot(p_lo, txl.smem_slice(ko, COLS, COLS, dim=1), acc * alpha[:, None])
            txl.mbar_wait(txl.get_buffer(k_full, ph), ph)
            if e0 + BLOCK_N > seqlen:
                _zero_half(ke, seqlen - e0, 11, COLS, COLS, BLOCK_N)
            txl.mbar_wait(txl.get_buffer(pe_full, 0), ph)
            acc = tl.dot(p_s, txl.smem_slice(ke, COLS, COLS, dim=1), acc)
            txl.dot_wait(0)
            txl.mbar_arrive(txl.get_buffer(k_empty, ph))
            txl.smem_store(p_s, p_lo)
            txl.fence_proxy_async()
            txl.mbar_arrive(txl.get_buffer(po_full, 0))
            if has_o:
                txl.mbar_arrive(txl.get_buffer(k_empty, ph ^ 1))
            m_run = m_o
        _finish(acc, None, l_i, bL, l_full, O, LSE, PART_O, PART_LSE, b, row0, split, ROWS, NUM_SPLITS, 1, COLS, D_V,
                BLOCK_M, PARTIAL)
