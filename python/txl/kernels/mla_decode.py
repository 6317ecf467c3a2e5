"""MLA decoding (DeepSeek's multi-head latent attention) over a paged KV cache: Triton-style kernels, split-KV +
combine, for few query rows per sequence (heads x query tokens < 64; mla_decode_wgmma.py takes 64 and more).

Every query head attends to one shared latent KV head: a cache row is [c (D_V = 512) | k_pe (D_PE = 64)]; the
scores are q_nope . c + q_pe . k_pe, and the values are c itself (V is the first D_V columns of K).

* mla_decode_split, program (b, head block, split): the BLOCK_H query heads of sequence b against the keys
  [start, end) of split `split` of its cache (NUM_SPLITS equal parts, rounded to BLOCK_N keys), online softmax
  over tiles of BLOCK_N keys; writes the unnormalised partial O / l (float32) and its log2-sum-exp. A tile lies in
  one page of the cache (PAGE % BLOCK_N == 0), so its page is one scalar load of the block table and the tile's
  loads can be issued ahead (cp.async rings). The cache tile feeds both dots: transposed for the scores, as is for
  P @ V.
* mla_decode_combine, program (b, head): the splits' partials weighted by 2^(lse_s - lse) (Flash-Decoding).

Several query tokens per sequence (S_Q > 1, speculative decoding) are more heads: row h of the H = S_Q * HQ rows is
token h // HQ, head h % HQ. CAUSAL: token t is the cache's position seqlen - S_Q + t and sees the keys up to it
(bottom-right alignment); a row that sees no key gets O = 0 and lse = -inf (+inf after the combine).

Layouts (element strides): Q (B, H, D_V + D_PE) rows of q_nope | q_pe; KV (pages, PAGE, D_V + D_PE); BT (B, pages
per sequence) int32; SEQLENS (B,) int32; PART_O (B, H, NUM_SPLITS, D_V) and PART_LSE (B, H, NUM_SPLITS) float32;
O (B, H, D_V); LSE (B, H) float32 log2 units (+inf: the sequence has no key).
"""

import txl
import txl.language as tl


@txl.jit
def _split_keys(SEQLENS, NUM_SPLITS, BLOCK_N: tl.constexpr):
    # Program (b, hb, split) of a split kernel: batch b's row block hb and keys start .. end - 1 of its cache
    # (split `split` of NUM_SPLITS, whole BLOCK_N tiles but at the sequence's end).
    b = tl.program_id(0)
    hb = tl.program_id(1)
    split = tl.program_id(2)
    seqlen = tl.load(SEQLENS + b)
    per_split = tl.cdiv(tl.cdiv(seqlen, NUM_SPLITS), BLOCK_N) * BLOCK_N
    start = split * per_split
    end = tl.minimum(start + per_split, seqlen)
    return b, hb, split, seqlen, start, end


@txl.jit
def _load_q(Q, b, hb, H, D_V: tl.constexpr, D_PE: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_N: tl.constexpr):
    # The row block's query rows (masked past H), split into the latent part q_nope (D_V) and the rope part q_pe
    # (D_PE), with the offsets the kernel reuses.
    offs_h = hb * BLOCK_H + tl.arange(0, BLOCK_H)
    hmask = offs_h < H
    offs_v = tl.arange(0, D_V)
    offs_pe = tl.arange(0, D_PE)
    offs_n = tl.arange(0, BLOCK_N)
    q_rows = (b.to(tl.int64) * H + offs_h) * (D_V + D_PE)
    q_nope = tl.load(Q + q_rows[:, None] + offs_v[None, :], mask=hmask[:, None], other=0.0)
    q_pe = tl.load(Q + q_rows[:, None] + D_V + offs_pe[None, :], mask=hmask[:, None], other=0.0)
    return offs_h, hmask, offs_v, offs_pe, offs_n, q_nope, q_pe


@txl.jit
def mla_decode_split(Q, KV, BT, SEQLENS, PART_O, PART_LSE, sm_scale, H, bt_stride, HQ, S_Q,
                     D_V: tl.constexpr, D_PE: tl.constexpr, PAGE: tl.constexpr, BLOCK_H: tl.constexpr,
                     BLOCK_N: tl.constexpr, NUM_SPLITS: tl.constexpr, CAUSAL: tl.constexpr = False):
    D: tl.constexpr = D_V + D_PE
    b, hb, split, seqlen, start, end = _split_keys(SEQLENS, NUM_SPLITS, BLOCK_N)
    offs_h, hmask, offs_v, offs_pe, offs_n, q_nope, q_pe = _load_q(Q, b, hb, H, D_V, D_PE, BLOCK_H, BLOCK_N)
    qk_scale = sm_scale * 1.44269504
    m_i = tl.zeros([BLOCK_H], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_H], dtype=tl.float32)
    acc = tl.zeros([BLOCK_H, D_V], dtype=tl.float32)
    bt_row = BT + b.to(tl.int64) * bt_stride
    for n in range(start, end, BLOCK_N):
        page = tl.load(bt_row + n // PAGE)
        pos = n + offs_n
        valid = pos < end
        rows = (page.to(tl.int64) * PAGE + n % PAGE + offs_n) * D
        c = tl.load(KV + rows[:, None] + offs_v[None, :], mask=valid[:, None], other=0.0)
        k_pe = tl.load(KV + rows[:, None] + D_V + offs_pe[None, :], mask=valid[:, None], other=0.0)
        s = tl.dot(q_nope, tl.trans(c))
        s = tl.dot(q_pe, tl.trans(k_pe), s)
        p, alpha, l_i, m_ij = _masked_softmax(s, m_i, l_i, pos, valid, seqlen, S_Q, offs_h, qk_scale, HQ, CAUSAL)
        acc = tl.dot(p.to(c.dtype), c, acc * alpha[:, None])
        m_i = m_ij
    seen = l_i > 0.0
    out = acc / tl.where(seen, l_i, 1.0)[:, None]
    lse = tl.where(seen, m_i + tl.log2(tl.where(seen, l_i, 1.0)), float("-inf"))
    part = (b.to(tl.int64) * H + offs_h) * NUM_SPLITS + split
    tl.store(PART_O + part[:, None] * D_V + offs_v[None, :], out, mask=hmask[:, None])
    tl.store(PART_LSE + part, lse, mask=hmask)


@txl.jit
def _masked_softmax(s, m_i, l_i, pos, valid, seqlen, S_Q, offs_h, qk_scale, HQ: tl.constexpr, CAUSAL: tl.constexpr):
    # The online softmax of one tile of scores s (rows: query heads x tokens, offs_h; keys at positions pos, valid
    # where inside the split): masked (CAUSAL: each row's token sees keys up to its own position), in the log2
    # domain. Returns (P, alpha = the rescale of what came before, the new row sum, the new row max).
    if CAUSAL:
        last = seqlen - S_Q + offs_h // HQ  # the last key each row sees
        s = tl.where(valid[None, :] & (pos[None, :] <= last[:, None]), s * qk_scale, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(s, 1))
        m_sub = tl.where(m_ij == float("-inf"), 0.0, m_ij)  # a row that has seen no key yet: P = 0, not NaN
    else:
        s = tl.where(valid[None, :], s * qk_scale, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(s, 1))
        m_sub = m_ij
    p = tl.exp2(s - m_sub[:, None])
    alpha = tl.exp2(m_i - m_sub)
    l_i = l_i * alpha + tl.sum(p, 1)
    return p, alpha, l_i, m_ij


@txl.jit
def mla_decode_combine(PART_O, PART_LSE, O, LSE, H, D_V: tl.constexpr, NUM_SPLITS: tl.constexpr,
                       SPLITS_P: tl.constexpr):
    b = tl.program_id(0)
    h = tl.program_id(1)
    offs_s = tl.arange(0, SPLITS_P)
    offs_v = tl.arange(0, D_V)
    smask = offs_s < NUM_SPLITS
    row = b.to(tl.int64) * H + h
    lse = tl.load(PART_LSE + row * NUM_SPLITS + offs_s, mask=smask, other=float("-inf"))
    m = tl.max(lse, 0)
    m_use = tl.where(m == float("-inf"), 0.0, m)
    w = tl.exp2(lse - m_use)
    total = tl.sum(w, 0)
    parts = tl.load(PART_O + (row * NUM_SPLITS + offs_s)[:, None] * D_V + offs_v[None, :], mask=smask[:, None],
                    other=0.0)
    out = tl.sum(parts * w[:, None], 0) / tl.where(total > 0.0, total, 1.0)
    tl.store(O + row * D_V + offs_v, out.to(O.dtype.element_ty))
    tl.store(LSE + row, tl.where(total > 0.0, m_use + tl.log2(tl.where(total > 0.0, total, 1.0)), float("inf")))


def next_power_of_2(n):
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def split_constexprs(page_size, num_splits, d_v=512, d_pe=64, causal=False):
    """mla_decode_split's constexprs: 16 query heads per program (mma.sync M = 16; a 16 x 512 float32 accumulator
    is 64 registers a thread), tiles of at most 32 keys within one page."""
    cx = dict(D_V=d_v, D_PE=d_pe, PAGE=page_size, BLOCK_H=16, BLOCK_N=min(32, page_size), NUM_SPLITS=num_splits)
    if causal:
        cx["CAUSAL"] = True
    return cx
