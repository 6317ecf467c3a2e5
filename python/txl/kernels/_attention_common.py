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
               BLOCK_N: tl.constexpr, NUM_STAGES: tl.constexpr, KV_BYTES: tl.constexpr):
    # K and V of KV tiles 0 .. n_tiles - 1 (rows off_kv + j * BLOCK_N) through the rings, from ring position
    # (s, phase); a stage is refilled once both consumers released it. Returns the next ring position.
    for j in range(0, n_tiles):
        kv_y = off_kv + j * BLOCK_N
        txl.mbar_wait(txl.get_buffer(k_empty, s), phase)
        kf = txl.get_buffer(k_full, s)
        txl.mbar_expect(kf, KV_BYTES)
        txl.tma_load(txl.get_buffer(bK, s), desc_k, [kv_y, 0], kf)
        txl.mbar_wait(txl.get_buffer(v_empty, s), phase)
        vf = txl.get_buffer(v_full, s)
        txl.mbar_expect(vf, KV_BYTES)
        txl.tma_load(txl.get_buffer(bV, s), desc_v, [kv_y, 0], vf)
        s, phase = _advance(s, phase, NUM_STAGES)
    return s, phase


@txl.jit
def _softmax_step(qk, m_i, l_i, qk_scale):
    # Online softmax of one S tile in base 2: the new row max, P = exp2(S * scale - m) (one fma per element),
    # alpha = exp2(m_old - m_new) that rescales what was accumulated so far, and the new row sum.
    m_new = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
    p = tl.exp2(tl.fma(qk, qk_scale, -m_new[:, None]))
    alpha = tl.exp2(m_i - m_new)
    l_i = l_i * alpha + tl.sum(p, 1)
    return p, m_new, l_i, alpha


@txl.jit
def _epilogue(acc, m_i, l_i, M, m_y, o_tile, desc_o, o_y, O, n_valid, ROWS: tl.constexpr, HEAD_DIM: tl.constexpr,
              EVEN_N: tl.constexpr):
    # O = acc / l (one reciprocal per row) into rows o_y.. of O; M = m + log2(l), the base-2 log-sum-exp of each
    # query row, into M[m_y ..] (M has N_PAD rows per head, so every row has a slot). o_tile is the warpgroup's Q
    # buffer (its last S GEMM has retired) or its own staging buffer. The O rows go through o_tile and one TMA
    # store, except in a head's last query block when fewer than ROWS rows are real (n_valid < ROWS): O has
    # N_CTX rows per head, the rows after them are the next head's, so the real ones are stored under a mask.
    m_i = m_i + tl.log2(l_i)
    acc = acc * (1.0 / l_i)[:, None]
    tl.store(M + m_y + tl.arange(0, ROWS), m_i)
    out = acc.to(desc_o.dtype)
    if EVEN_N:
        _store_tile(out, o_tile, desc_o, o_y)
    else:
        if n_valid >= ROWS:
            _store_tile(out, o_tile, desc_o, o_y)
        else:
            rows = tl.arange(0, ROWS)
            cols = tl.arange(0, HEAD_DIM)
            base = O + o_y.to(tl.int64) * HEAD_DIM
            tl.store(base + rows[:, None] * HEAD_DIM + cols[None, :], out, mask=rows[:, None] < n_valid)


@txl.jit
def _store_tile(out, o_tile, desc_o, o_y):
    txl.smem_store(o_tile, out)
    txl.fence_proxy_async()
    txl.tma_store(o_tile, desc_o, [o_y, 0])
    txl.tma_store_wait(0)


# Host side: what every attention kernel takes. q_box: the query rows one Q/O descriptor box holds.
def signature(head_dim, q_box, block_n, dtype):
    return {
        "desc_q": "tensordesc<%s[%d, %d]>" % (dtype, q_box, head_dim),
        "desc_k": "tensordesc<%s[%d, %d]>" % (dtype, block_n, head_dim),
        "desc_v": "tensordesc<%s[%d, %d]>" % (dtype, block_n, head_dim),
        "desc_o": "tensordesc<%s[%d, %d]>" % (dtype, q_box, head_dim),
        "M": "*fp32", "O": "*%s" % dtype, "sm_scale": "fp32", "N_CTX": "i32", "N_PAD": "i32",
    }


def constexprs(head_dim, causal, block_m, block_n, num_stages, even_n, h_q_per_kv):
    return {"HEAD_DIM": head_dim, "BLOCK_M": block_m, "BLOCK_N": block_n, "NUM_STAGES": num_stages,
            "CAUSAL": causal, "EVEN_N": even_n, "H_Q_PER_KV": h_q_per_kv}
