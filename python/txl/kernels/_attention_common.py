"""What the flash-attention kernels (flash_attention*.py) share: the TMA producer of the three-warpgroup kernels, the
online-softmax step, the masks, the epilogue, and the host-side signature/constexpr builders."""

import txl  # noqa: F401
import txl.language as tl


@txl.jit
def _advance(s, phase, NUM_STAGES: tl.constexpr):
    # Next stage of a ring; the mbarrier parity flips each time the index wraps to 0.
    s = s + 1
    wrap = s == NUM_STAGES
    return tl.where(wrap, 0, s), tl.where(wrap, phase ^ 1, phase)


@txl.jit
def _mask_causal(qk, diag, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    # Key column c of the tile is in the future of local query row r when c > r + diag, where
    # diag = (first query row of the tile) - (first key of the tile), both absolute.
    rows = diag + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    return tl.where(cols[None, :] > rows[:, None], float("-inf"), qk)


@txl.jit
def _mask_keys(qk, n_valid, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    # Keys at or past N_CTX (the zero rows the API padded K/V with) get no weight: columns >= n_valid.
    cols = tl.arange(0, BLOCK_N)
    return tl.where(cols[None, :] >= n_valid, float("-inf"), qk)


@txl.jit
def _mask_tile(qk, j, n_tiles, q_row, N_CTX, ROWS: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr,
               EVEN_N: tl.constexpr):
    # qk: ROWS query rows starting at absolute row q_row, against KV tile j. CAUSAL: only tiles that reach the
    # diagonal are masked (scf.if on a scalar). Not EVEN_N: the last tile masks the padded keys. (With CAUSAL the
    # causal mask already hides every padded key from a real query row; padded query rows are sliced away.)
    k_row = j * BLOCK_N
    if CAUSAL:
        if k_row + BLOCK_N > q_row + 1:
            qk = _mask_causal(qk, q_row - k_row, ROWS, BLOCK_N)
    else:
        if not EVEN_N:
            if j == n_tiles - 1:
                qk = _mask_keys(qk, N_CTX - k_row, ROWS, BLOCK_N)
    return qk


@txl.jit
def _mask_local(qk, q_row, k_row, len_k, off, left, right, n_sink, ROWS: tl.constexpr, COLS: tl.constexpr):
    # The local masks (sliding window, sink tokens, sequence ends), rows = queries q_row.., columns = keys k_row..
    # (positions within their sequences, off = len_k - len_q: bottom-right alignment). Key j stays visible from
    # query i when j < len_k, j <= i + off + right and (j >= i + off - left or j < n_sink); an unbounded side is
    # 2^30 (BIG). The scalar tests skip the elementwise mask for a tile wholly inside every row's window.
    last_q = q_row + ROWS - 1
    need = (k_row + COLS > len_k) | (k_row + COLS - 1 > q_row + off + right)
    need = need | ((k_row + COLS > n_sink) & (tl.maximum(k_row, n_sink) < last_q + off - left))
    if need:
        qs = q_row + tl.arange(0, ROWS)
        keys = k_row + tl.arange(0, COLS)
        keep = _visible(qs[:, None], keys[None, :], len_k, off, left, right, n_sink)
        qk = tl.where(keep, qk, float("-inf"))
    return qk


@txl.jit
def _visible(qs, keys, len_k, off, left, right, n_sink):
    # Which (query, key) pairs the local masks keep; qs and keys broadcast against each other (see _mask_local).
    keep = (keys < len_k) & (keys <= qs + (off + right))
    return keep & ((keys >= qs + (off - left)) | (keys < n_sink))


@txl.jit
def _local_range(q0, len_q, len_k, left, right, n_sink, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    # The KV tiles the query rows q0 .. q0 + ROWS - 1 of a sequence see under the local masks (_mask_local): the
    # tiles holding sink tokens (0 .. ns - 1), then the window's tiles lo .. lo + n_tiles - ns - 1; visit j of
    # 0 .. n_tiles - 1 is tile _kv_tile(j, ns, lo). At least one tile is visited (a block that sees no key, or
    # one past the sequence's end, runs one fully masked tile: its rows get O = 0 and M = +inf).
    off = len_k - len_q
    hi = tl.cdiv(tl.maximum(tl.minimum(len_k, q0 + ROWS + off + right), 0), BLOCK_N)  # tiles below the right edge
    ns = tl.minimum(tl.cdiv(n_sink, BLOCK_N), hi)
    lo = tl.maximum(tl.maximum(q0 + off - left, 0) // BLOCK_N, ns)
    n_tiles = ns + tl.maximum(hi - lo, 0)
    n_tiles = tl.where(q0 < len_q, n_tiles, 0)
    return ns, lo, tl.maximum(n_tiles, 1)


@txl.jit
def _kv_tile(j, ns, lo, LOCAL: tl.constexpr):
    # The KV tile of visit j (_local_range); without local masks visit j is tile j.
    tile = j
    if LOCAL:
        tile = tl.where(j < ns, j, j - ns + lo)
    return tile


@txl.jit
def _seq(off_hz, N_CTX, CU_Q, CU_K, NUM_HEADS, HEAD_DIM: tl.constexpr, H_Q_PER_KV: tl.constexpr,
         VARLEN: tl.constexpr):
    # Where head off_hz's sequence lives: (first Q/O row, Q/O column, first K/V row, K/V column, len_q, len_k).
    # Dense: (B * H * N_CTX, HEAD_DIM) rows, one head after another. VARLEN: packed tokens, Q/O (total_q,
    # NUM_HEADS * HEAD_DIM) and K/V (total_k, H_KV * HEAD_DIM), sequence b's tokens from CU_Q[b] / CU_K[b], a
    # head's columns at head * HEAD_DIM.
    if VARLEN:
        b = off_hz // NUM_HEADS
        h = off_hz - b * NUM_HEADS
        q_tok = tl.load(CU_Q + b)
        k_tok = tl.load(CU_K + b)
        len_q = tl.load(CU_Q + b + 1) - q_tok
        len_k = tl.load(CU_K + b + 1) - k_tok
        q_x = h * HEAD_DIM
        k_x = (h // H_Q_PER_KV) * HEAD_DIM
    else:
        q_tok = off_hz * N_CTX
        k_tok = (off_hz // H_Q_PER_KV) * N_CTX
        len_q = N_CTX
        len_k = N_CTX
        q_x = 0
        k_x = 0
    return q_tok, q_x, k_tok, k_x, len_q, len_k


@txl.jit
def _pingpong(PASS: tl.constexpr):
    # The ping-pong of the two consumers: WG1 waits on named barrier 8 and passes on 9, WG2 the other way round.
    if txl.is_warpgroup([1]):
        if PASS:
            txl.bar_arrive(9, 256)
        else:
            txl.bar_wait(8, 256)
    else:
        if PASS:
            txl.bar_arrive(8, 256)
        else:
            txl.bar_wait(9, 256)


@txl.jit
def _pingpong_wait():
    # Wait for this warpgroup's turn on the tensor cores.
    _pingpong(False)


@txl.jit
def _pingpong_pass():
    # This warpgroup's GEMMs are issued: the other consumer may issue its own.
    _pingpong(True)


@txl.jit
def _retire_pv(acc, alpha, m_new, v_empty, sk, phk, sv, phv, NUM_STAGES: tl.constexpr):
    # The end of a step of the FA3 loop: the previous tile's PV wgmma retired, so its V stage is released; the
    # accumulator rescaled to the new row max, which becomes the running one; both rings advance.
    txl.dot_wait(0)
    txl.mbar_arrive(txl.get_buffer(v_empty, sv))
    acc = acc * alpha[:, None]
    m_i = m_new
    sk, phk = _advance(sk, phk, NUM_STAGES)
    sv, phv = _advance(sv, phv, NUM_STAGES)
    return acc, m_i, sk, phk, sv, phv


@txl.jit
def _kv_ring_barriers(NUM_STAGES: tl.constexpr):
    # The K/V rings' barriers of the three-warpgroup forward kernels, per stage: K and V landed (one arrival and
    # the TMA bytes) and released by both consumers (256 arrivals).
    k_full = txl.mbar_alloc(1, num_stages=NUM_STAGES)
    v_full = txl.mbar_alloc(1, num_stages=NUM_STAGES)
    k_empty = txl.mbar_alloc(256, num_stages=NUM_STAGES)
    v_empty = txl.mbar_alloc(256, num_stages=NUM_STAGES)
    return k_full, v_full, k_empty, v_empty


@txl.jit
def _consumer_half(bQ, HALF_M: tl.constexpr):
    # A consumer of the three-warpgroup forward kernels: which it is (WG1: 0, WG2: 1), its first row within the
    # query tile and its half of Q.
    if txl.is_warpgroup([1]):
        qi = 0
        row0 = 0
    else:
        qi = 1
        row0 = HALF_M
    q = txl.get_buffer(bQ, qi)
    return qi, row0, q


@txl.jit
def _produce(bQ, bK, bV, q_full, k_full, v_full, k_empty, v_empty, desc_q, desc_k, desc_v, qo_y, off_kv, n_tiles,
             HALF_M: tl.constexpr, BLOCK_N: tl.constexpr, NUM_STAGES: tl.constexpr, Q_BYTES: tl.constexpr,
             KV_BYTES: tl.constexpr):
    # WG0 of the three-warpgroup kernels: the two Q halves once, then K and V of every tile through the rings.
    # A stage is refilled once both consumers released it (k_empty / v_empty, 256 arrivals); the parity starts
    # at 1 so the first pass over the rings does not block.
    qb0 = txl.get_buffer(q_full, 0)
    txl.mbar_expect(qb0, Q_BYTES)
    txl.tma_load(txl.get_buffer(bQ, 0), desc_q, [qo_y, 0], qb0)
    qb1 = txl.get_buffer(q_full, 1)
    txl.mbar_expect(qb1, Q_BYTES)
    txl.tma_load(txl.get_buffer(bQ, 1), desc_q, [qo_y + HALF_M, 0], qb1)
    _stream_kv(bK, bV, k_full, v_full, k_empty, v_empty, desc_k, desc_v, off_kv, n_tiles, 0, 1, BLOCK_N, NUM_STAGES,
               KV_BYTES)


@txl.jit
def _stream_kv(bK, bV, k_full, v_full, k_empty, v_empty, desc_k, desc_v, off_kv, n_tiles, s, phase,
               BLOCK_N: tl.constexpr, NUM_STAGES: tl.constexpr, KV_BYTES: tl.constexpr, ns=0, lo=0, k_x=0,
               LOCAL: tl.constexpr = False, V_BYTES: tl.constexpr = 0, v_x=0):
    # K and V of KV tiles 0 .. n_tiles - 1 (rows off_kv + j * BLOCK_N; LOCAL: visit j is tile _kv_tile(j, ns, lo),
    # columns k_x ..) through the rings, from ring position (s, phase); a stage is refilled once both consumers
    # released it. Returns the next ring position. V_BYTES > 0 (V's head dim differs from K's): a V tile is
    # V_BYTES and its columns start at v_x; otherwise V is shaped and placed as K (KV_BYTES, k_x).
    for j in range(0, n_tiles):
        kv_y = off_kv + _kv_tile(j, ns, lo, LOCAL) * BLOCK_N
        txl.mbar_wait(txl.get_buffer(k_empty, s), phase)
        kf = txl.get_buffer(k_full, s)
        txl.mbar_expect(kf, KV_BYTES)
        txl.tma_load(txl.get_buffer(bK, s), desc_k, [kv_y, k_x], kf)
        txl.mbar_wait(txl.get_buffer(v_empty, s), phase)
        vf = txl.get_buffer(v_full, s)
        if V_BYTES > 0:
            txl.mbar_expect(vf, V_BYTES)
            txl.tma_load(txl.get_buffer(bV, s), desc_v, [kv_y, v_x], vf)
        else:
            txl.mbar_expect(vf, KV_BYTES)
            txl.tma_load(txl.get_buffer(bV, s), desc_v, [kv_y, k_x], vf)
        s, phase = _advance(s, phase, NUM_STAGES)
    return s, phase


@txl.jit
def _fold_sink(acc, m_i, l_i, sink):
    # A learnable attention sink (gpt-oss): one more logit per row that joins the softmax's denominator but adds
    # no value. sink is the head's logit in the kernel's units (base 2: the user's logit, which is in the units of
    # q.k * sm_scale, times log2(e), as m_i = max(S) * sm_scale * log2(e)). With m = max(m_i, sink):
    # acc *= exp2(m_i - m), l = l * exp2(m_i - m) + exp2(sink - m); the epilogue then stores acc / l and
    # M = m + log2(l), so the saved LSE includes the sink and a backward recomputing P = exp2(S - M) needs no
    # change. A row whose m is still -inf (no visible key, sink -inf) subtracts 0: alpha = 0 and l stays 0 (the
    # SAFE epilogue's empty row); a row with no visible key and a finite sink gets l = 1, O = 0, M = sink.
    m_new = tl.maximum(m_i, sink)
    m_sub = tl.where(m_new == float("-inf"), 0.0, m_new)
    alpha = tl.exp2(m_i - m_sub)
    l_i = l_i * alpha + tl.exp2(sink - m_sub)
    return acc * alpha[:, None], m_new, l_i


@txl.jit
def _seq_v(off_hz, NUM_HEADS, HEAD_DIM_V: tl.constexpr, H_Q_PER_KV: tl.constexpr, VARLEN: tl.constexpr):
    # Where head off_hz's O and V columns start when V's head dim (HEAD_DIM_V) differs from Q/K's (_seq gives
    # Q's and K's): packed sequences put a head's O columns at head * HEAD_DIM_V of (total_q, NUM_HEADS *
    # HEAD_DIM_V) and its V columns at kv head * HEAD_DIM_V of (total_k, H_KV * HEAD_DIM_V); dense rows start at 0.
    o_x = 0
    v_x = 0
    if VARLEN:
        h = off_hz % NUM_HEADS
        o_x = h * HEAD_DIM_V
        v_x = (h // H_Q_PER_KV) * HEAD_DIM_V
    return o_x, v_x


@txl.jit
def _softmax_step(qk, m_i, l_i, qk_scale, SAFE: tl.constexpr = False):
    # Online softmax of one S tile in base 2: the new row max, P = exp2(S * scale - m) (one fma per element),
    # alpha = exp2(m_old - m_new) that rescales what was accumulated so far, and the new row sum. SAFE (local
    # masks, where a row may have seen no key yet): a row max still at -inf is subtracted as 0, so its P and alpha
    # are 0 instead of NaN.
    m_new = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
    m_sub = m_new
    if SAFE:
        m_sub = tl.where(m_new == float("-inf"), 0.0, m_new)
    p = tl.exp2(tl.fma(qk, qk_scale, -m_sub[:, None]))
    alpha = tl.exp2(m_i - m_sub)
    l_i = l_i * alpha + tl.sum(p, 1)
    return p, m_new, l_i, alpha


@txl.jit
def _program_tile(N_CTX, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr,
                  H_Q_PER_KV: tl.constexpr):
    # The query block of a one-tile-per-program grid (N_PAD / BLOCK_M, B * H), heaviest causal blocks first: its
    # (batch, head), its head's first row of Q/O (heads are N_CTX rows apart; M's are N_PAD), its kv head's first
    # row of K/V, its first query row within the head and in Q/O, and the key tiles it visits.
    if CAUSAL:
        start_m = tl.num_programs(0) - 1 - tl.program_id(0)
    else:
        start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_y = off_hz * N_CTX
    off_kv = (off_hz // H_Q_PER_KV) * N_CTX
    q_row = start_m * BLOCK_M
    q_y = off_y + q_row
    if CAUSAL:
        n_tiles = (q_row + BLOCK_M) // BLOCK_N
    else:
        n_tiles = tl.cdiv(N_CTX, BLOCK_N)
    return off_hz, off_y, off_kv, q_row, q_y, n_tiles


@txl.jit
def _softmax_init(ROWS: tl.constexpr, COLS: tl.constexpr):
    # The online softmax's state before the first key tile: O accumulator 0, row max -inf, row sum 0.
    acc = tl.zeros([ROWS, COLS], tl.float32)
    m_i = tl.full([ROWS], float("-inf"), tl.float32)
    l_i = tl.zeros([ROWS], tl.float32)
    return acc, m_i, l_i


@txl.jit
def _softmax_pv(qk, acc, m_i, l_i, qk_scale, j, n_tiles, q_row, N_CTX, bV, v_full, s, phase, dtype,
                ROWS: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr, EVEN_N: tl.constexpr):
    # Key tile j of a dense forward (S = qk, its keys' V in stage s of bV once v_full's stage s has landed): the
    # masks, the online softmax, acc rescaled and acc += P V (waited for). Returns (row sum, acc, new row max):
    # the order the loops carry them in (the loop's values are ordered by first assignment; PTX follows it).
    if CAUSAL or not EVEN_N:
        qk = _mask_tile(qk, j, n_tiles, q_row, N_CTX, ROWS, BLOCK_N, CAUSAL, EVEN_N)
    p, m_new, l_i, alpha = _softmax_step(qk, m_i, l_i, qk_scale)
    acc = acc * alpha[:, None]
    txl.mbar_wait(txl.get_buffer(v_full, s), phase)
    acc = tl.dot(p.to(dtype), txl.get_buffer(bV, s), acc)
    txl.dot_wait(0)
    return l_i, acc, m_new


@txl.jit
def _epilogue(acc, m_i, l_i, M, m_y, o_tile, desc_o, o_y, o_x, O, o_stride, n_valid, ROWS: tl.constexpr,
              HEAD_DIM: tl.constexpr, EVEN_N: tl.constexpr, SAFE: tl.constexpr = False,
              M_MASKED: tl.constexpr = False):
    # O = acc / l (one reciprocal per row) into rows o_y.. (columns o_x.., row stride o_stride) of O; M = m +
    # log2(l), the base-2 log-sum-exp of each query row, into M[m_y ..] (M has N_PAD rows per head, so every row
    # has a slot). o_tile is the warpgroup's Q buffer (its last S GEMM has retired) or its own staging buffer.
    # The O rows go through o_tile and one TMA store, except when fewer than ROWS rows are real (n_valid < ROWS:
    # a head's last query block, whose next rows are the next head's or sequence's): then the real ones are
    # stored under a mask. SAFE: a row that saw no key (l = 0) gets O = 0 and M = +inf (so the backward's
    # P = exp2(S - M) is 0 there). M_MASKED (packed sequences): only the n_valid real rows' M is stored (the slots
    # after them are the next sequence's).
    if SAFE:
        empty = l_i == 0.0
        m_i = tl.where(empty, float("inf"), m_i + tl.log2(l_i))
        acc = acc * tl.where(empty, 0.0, 1.0 / l_i)[:, None]
    else:
        m_i = m_i + tl.log2(l_i)
        acc = acc * (1.0 / l_i)[:, None]
    if M_MASKED:
        tl.store(M + m_y + tl.arange(0, ROWS), m_i, mask=tl.arange(0, ROWS) < n_valid)
    else:
        tl.store(M + m_y + tl.arange(0, ROWS), m_i)
    out = acc.to(desc_o.dtype)
    if EVEN_N:
        _store_tile(out, o_tile, desc_o, o_y, o_x)
    else:
        if n_valid >= ROWS:
            _store_tile(out, o_tile, desc_o, o_y, o_x)
        else:
            rows = tl.arange(0, ROWS)
            cols = tl.arange(0, HEAD_DIM)
            base = O + o_y.to(tl.int64) * o_stride + o_x
            tl.store(base + rows[:, None] * o_stride + cols[None, :], out, mask=rows[:, None] < n_valid)


@txl.jit
def _store_tile(out, o_tile, desc_o, o_y, o_x=0):
    txl.smem_store(o_tile, out)
    txl.fence_proxy_async()
    txl.tma_store(o_tile, desc_o, [o_y, o_x])
    txl.tma_store_wait(0)


# Host side: what every attention kernel takes. q_box: the query rows one Q/O descriptor box holds; head_dim_v:
# V's and O's head dim when it differs from Q's and K's (the fa3 kernel's HEAD_DIM_V).
def signature(head_dim, q_box, block_n, dtype, head_dim_v=None):
    dv = head_dim_v or head_dim
    return {
        "desc_q": "tensordesc<%s[%d, %d]>" % (dtype, q_box, head_dim),
        "desc_k": "tensordesc<%s[%d, %d]>" % (dtype, block_n, head_dim),
        "desc_v": "tensordesc<%s[%d, %d]>" % (dtype, block_n, dv),
        "desc_o": "tensordesc<%s[%d, %d]>" % (dtype, q_box, dv),
        "M": "*fp32", "O": "*%s" % dtype, "sm_scale": "fp32", "N_CTX": "i32", "N_PAD": "i32",
    }


def constexprs(head_dim, causal, block_m, block_n, num_stages, even_n, h_q_per_kv):
    return {"HEAD_DIM": head_dim, "BLOCK_M": block_m, "BLOCK_N": block_n, "NUM_STAGES": num_stages,
            "CAUSAL": causal, "EVEN_N": even_n, "H_Q_PER_KV": h_q_per_kv}
