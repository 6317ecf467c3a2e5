"""Block-sparse selection attention (NSA's "selected" branch): Triton-style kernels, forward and backward.

Every query token t of a sequence attends, with all G = HQ / HK query heads of a KV head h (a GQA group), to the
key blocks listed in IDX[t, h, :] (block b = keys b * BS .. b * BS + BS - 1 of t's own sequence; -1 = no block),
causally (keys after t are masked). The group's heads share the gathered K/V tile: one MMA of M = G rows
(padded up to BLOCK_G >= 16 with masked rows) per key tile.

Layouts: tokens are numbered globally, t = b * N + position (dense) or the packed row (VARLEN, flash-attn's varlen
layout, BOS (total,) int32 = the first token of t's sequence). Tensors are addressed through element strides of
(batch, head, position): Q, O, DO, DQ share sq*, K, V, DK, DV share sk*, IDX (S block indices per token and KV
head, int32) si*; packed tensors have no batch stride (the position stride is the token stride). LSE and DELTA are
(tokens, HQ) float32, LSE in log2 units (+inf: the row saw no key).

* nsa_fwd, program (t, h): online softmax over the S * BS / BLOCK_N key tiles of the selected blocks.
* nsa_bwd_dq, program (t, h): Delta = rowsum(O * dO) for the group's rows (stored for nsa_bwd_dkv), then
  dQ = sum over the selected tiles of dS K, recomputing P from LSE.
* nsa_bwd_dkv, program (key block g, h): dK and dV of one key block of one KV head, summed over the tokens that
  selected it (TOKENS[OFFS[g * HK + h] ..][:COUNTS[g * HK + h]], built by the op on the GPU by sorting the
  selections), TB tokens (TB * G query rows) per step; no atomics, so the gradients are deterministic.
  ROWS[g] = (first token of the block's sequence, position of the block's first key, sequence length).
"""

import txl
import txl.language as tl

LOG2E = 1.4426950408889634


@txl.jit
def _base(first, N, sb, sn, VARLEN: tl.constexpr):
    # The element offset of the sequence that starts at global token `first`: packed tensors count tokens along
    # one axis (stride sn), dense (B, H, N, D) ones have batch b = first / N at stride sb.
    if VARLEN:
        return first.to(tl.int64) * sn
    else:
        return (first // N).to(tl.int64) * sb


@txl.jit
def _first_token(t, BOS, N, VARLEN: tl.constexpr):
    # The first token of global token t's sequence.
    if VARLEN:
        return tl.load(BOS + t)
    else:
        return (t // N) * N


@txl.jit
def _key_tile(IDX, idx_base, it, pos_t, kv_base, skn, BS: tl.constexpr, BLOCK_N: tl.constexpr,
              NSUB: tl.constexpr):
    # Key tile `it` of a token's selection (NSUB tiles per selected block): the element offsets of its rows and
    # the keys the token sees (a listed block, at or before the token).
    blk = tl.load(IDX + idx_base + it // NSUB)
    pos = blk * BS + (it % NSUB) * BLOCK_N + tl.arange(0, BLOCK_N)
    return kv_base + pos.to(tl.int64) * skn, (pos <= pos_t) & (blk >= 0)


@txl.jit
def nsa_fwd(Q, K, V, IDX, BOS, O, LSE, sm_scale, N, HQ, sqb, sqh, sqn, skb, skh, skn, sib, sih, sit,
            G: tl.constexpr, BLOCK_G: tl.constexpr, HEAD_DIM: tl.constexpr, S: tl.constexpr, BS: tl.constexpr,
            BLOCK_N: tl.constexpr, VARLEN: tl.constexpr):
    t = tl.program_id(0)  # global token: b * N + position (dense) or the packed row (VARLEN)
    h = tl.program_id(1)
    first = _first_token(t, BOS, N, VARLEN)
    pos_t = t - first  # the token's position within its sequence
    offs_g = tl.arange(0, BLOCK_G)
    offs_d = tl.arange(0, HEAD_DIM)
    gmask = offs_g < G
    q_rows = _base(first, N, sqb, sqn, VARLEN) + pos_t.to(tl.int64) * sqn + (h * G + offs_g) * sqh
    q = tl.load(Q + q_rows[:, None] + offs_d[None, :], mask=gmask[:, None], other=0.0)
    kv_base = _base(first, N, skb, skn, VARLEN) + h * skh
    idx_base = _base(first, N, sib, sit, VARLEN) + pos_t.to(tl.int64) * sit + h * sih
    qk_scale = sm_scale * 1.44269504
    m_i = tl.zeros([BLOCK_G], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_G], dtype=tl.float32)
    acc = tl.zeros([BLOCK_G, HEAD_DIM], dtype=tl.float32)
    NSUB: tl.constexpr = BS // BLOCK_N
    for it in range(0, S * NSUB):
        kv_rows, valid = _key_tile(IDX, idx_base, it, pos_t, kv_base, skn, BS, BLOCK_N, NSUB)
        k = tl.load(K + kv_rows[:, None] + offs_d[None, :], mask=valid[:, None], other=0.0)
        qk = tl.dot(q, tl.trans(k)) * qk_scale
        qk = tl.where(valid[None, :], qk, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        m_use = tl.where(m_ij == float("-inf"), 0.0, m_ij)  # a row that has seen no key yet: no NaN from inf - inf
        p = tl.exp2(qk - m_use[:, None])
        alpha = tl.exp2(m_i - m_use)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + kv_rows[:, None] + offs_d[None, :], mask=valid[:, None], other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_ij
    seen = l_i > 0.0
    acc = acc / tl.where(seen, l_i, 1.0)[:, None]
    tl.store(O + q_rows[:, None] + offs_d[None, :], acc.to(O.dtype.element_ty), mask=gmask[:, None])
    lse = tl.where(seen, m_i + tl.log2(tl.where(seen, l_i, 1.0)), float("inf"))
    tl.store(LSE + t.to(tl.int64) * HQ + h * G + offs_g, lse, mask=gmask)


@txl.jit
def nsa_bwd_dq(Q, K, V, O, DO, IDX, BOS, LSE, DELTA, DQ, sm_scale, N, HQ, sqb, sqh, sqn, skb, skh, skn, sib, sih,
               sit, G: tl.constexpr, BLOCK_G: tl.constexpr, HEAD_DIM: tl.constexpr, S: tl.constexpr,
               BS: tl.constexpr, BLOCK_N: tl.constexpr, VARLEN: tl.constexpr):
    t = tl.program_id(0)
    h = tl.program_id(1)
    first = _first_token(t, BOS, N, VARLEN)
    pos_t = t - first
    offs_g = tl.arange(0, BLOCK_G)
    offs_d = tl.arange(0, HEAD_DIM)
    gmask = offs_g < G
    q_rows = _base(first, N, sqb, sqn, VARLEN) + pos_t.to(tl.int64) * sqn + (h * G + offs_g) * sqh
    q = tl.load(Q + q_rows[:, None] + offs_d[None, :], mask=gmask[:, None], other=0.0)
    do = tl.load(DO + q_rows[:, None] + offs_d[None, :], mask=gmask[:, None], other=0.0)
    o = tl.load(O + q_rows[:, None] + offs_d[None, :], mask=gmask[:, None], other=0.0)
    stat = t.to(tl.int64) * HQ + h * G + offs_g
    delta = tl.sum(o.to(tl.float32) * do.to(tl.float32), axis=1)
    tl.store(DELTA + stat, delta, mask=gmask)
    lse = tl.load(LSE + stat, mask=gmask, other=float("inf"))
    kv_base = _base(first, N, skb, skn, VARLEN) + h * skh
    idx_base = _base(first, N, sib, sit, VARLEN) + pos_t.to(tl.int64) * sit + h * sih
    qk_scale = sm_scale * 1.44269504
    dq = tl.zeros([BLOCK_G, HEAD_DIM], dtype=tl.float32)
    NSUB: tl.constexpr = BS // BLOCK_N
    for it in range(0, S * NSUB):
        kv_rows, valid = _key_tile(IDX, idx_base, it, pos_t, kv_base, skn, BS, BLOCK_N, NSUB)
        k = tl.load(K + kv_rows[:, None] + offs_d[None, :], mask=valid[:, None], other=0.0)
        v = tl.load(V + kv_rows[:, None] + offs_d[None, :], mask=valid[:, None], other=0.0)
        qk = tl.dot(q, tl.trans(k)) * qk_scale
        p = tl.where(valid[None, :], tl.exp2(qk - lse[:, None]), 0.0)
        dp = tl.dot(do, tl.trans(v))
        ds = p * (dp - delta[:, None])
        dq = tl.dot(ds.to(k.dtype), k, dq)
    dq = dq * sm_scale
    tl.store(DQ + q_rows[:, None] + offs_d[None, :], dq.to(DQ.dtype.element_ty), mask=gmask[:, None])


@txl.jit
def _step_tokens(TOKENS, c, cnt, slot, TB: tl.constexpr):
    # The tokens of one nsa_bwd_dkv step, per row (slot = the row's token of the step): TB scalar loads rather
    # than one gather of row indices, so the step's Q / dO addresses can be computed ahead and their loads
    # pipelined (txl-schedule-loops issues loads whose addresses depend on scalar loads only). Past the list's
    # end the last token repeats; those rows are masked.
    tok = tl.zeros(slot.shape, dtype=tl.int32)
    for j in tl.static_range(TB):
        tok = tl.where(slot == j, tl.load(TOKENS + tl.minimum(c + j, cnt - 1)), tok)
    return tok


@txl.jit
def nsa_bwd_dkv(Q, K, V, DO, LSE, DELTA, ROWS, TOKENS, OFFS, COUNTS, DK, DV, sm_scale, N, HQ, HK, sqb, sqh, sqn,
                skb, skh, skn, G: tl.constexpr, BLOCK_G: tl.constexpr, HEAD_DIM: tl.constexpr, BS: tl.constexpr,
                TB: tl.constexpr, VARLEN: tl.constexpr):
    g = tl.program_id(0)
    h = tl.program_id(1)
    first = tl.load(ROWS + g * 3)  # the first token of the block's sequence
    key0 = tl.load(ROWS + g * 3 + 1)  # the block's first key's position in it
    seq_len = tl.load(ROWS + g * 3 + 2)
    if key0 >= seq_len:  # past the last key block (the grid is an upper bound)
        return
    offs_n = tl.arange(0, BS)
    offs_d = tl.arange(0, HEAD_DIM)
    R: tl.constexpr = TB * BLOCK_G
    offs_r = tl.arange(0, R)
    kmask = key0 + offs_n < seq_len
    kv_rows = _base(first, N, skb, skn, VARLEN) + h * skh + (key0 + offs_n).to(tl.int64) * skn
    k = tl.load(K + kv_rows[:, None] + offs_d[None, :], mask=kmask[:, None], other=0.0)
    v = tl.load(V + kv_rows[:, None] + offs_d[None, :], mask=kmask[:, None], other=0.0)
    dk = tl.zeros([BS, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([BS, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q_base = _base(first, N, sqb, sqn, VARLEN)
    lst = g * HK + h
    off = tl.load(OFFS + lst)
    cnt = tl.load(COUNTS + lst)
    for c in range(0, cnt, TB):
        # Row r of this step: query head h * G + r % BLOCK_G (if < G) of the (c + r // BLOCK_G)-th token of the
        # block's list (global tokens of the block's own sequence).
        rmask = (c + offs_r // BLOCK_G < cnt) & (offs_r % BLOCK_G < G)
        tok = _step_tokens(TOKENS + off, c, cnt, offs_r // BLOCK_G, TB)
        pos = tok - first
        head = h * G + offs_r % BLOCK_G
        q_rows = q_base + pos.to(tl.int64) * sqn + head * sqh
        q = tl.load(Q + q_rows[:, None] + offs_d[None, :], mask=rmask[:, None], other=0.0)
        do = tl.load(DO + q_rows[:, None] + offs_d[None, :], mask=rmask[:, None], other=0.0)
        stat = tok.to(tl.int64) * HQ + head
        lse = tl.load(LSE + stat, mask=rmask, other=float("inf"))
        delta = tl.load(DELTA + stat, mask=rmask, other=0.0)
        qkT = tl.dot(k, tl.trans(q)) * qk_scale
        seen = (key0 + offs_n[:, None] <= pos[None, :]) & kmask[:, None]
        pT = tl.where(seen, tl.exp2(qkT - lse[None, :]), 0.0)
        dv = tl.dot(pT.to(do.dtype), do, dv)
        dpT = tl.dot(v, tl.trans(do))
        dsT = pT * (dpT - delta[None, :])
        dk = tl.dot(dsT.to(q.dtype), q, dk)
    dk = dk * sm_scale
    tl.store(DK + kv_rows[:, None] + offs_d[None, :], dk.to(DK.dtype.element_ty), mask=kmask[:, None])
    tl.store(DV + kv_rows[:, None] + offs_d[None, :], dv.to(DV.dtype.element_ty), mask=kmask[:, None])


def next_power_of_2(n):
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def tile_constexprs(group, head_dim, num_selected, block_size):
    """The constexprs shared by nsa_fwd and nsa_bwd_dq: G query heads per KV head padded to a 16-row MMA tile,
    key tiles of at most 64 rows (a 128-key block is two tiles)."""
    return dict(G=group, BLOCK_G=max(16, next_power_of_2(group)), HEAD_DIM=head_dim, S=num_selected, BS=block_size,
                BLOCK_N=min(block_size, 64))


def dkv_constexprs(group, head_dim, block_size):
    """nsa_bwd_dkv's constexprs: TB tokens of BLOCK_G (G padded to a power of two) rows, 64 rows a step at least."""
    block_g = next_power_of_2(group)
    return dict(G=group, BLOCK_G=block_g, HEAD_DIM=head_dim, BS=block_size, TB=max(1, 64 // block_g))
