"""Decoding attention over a paged KV cache for MHA / GQA / MQA (FlashAttention's ``flash_attn_with_kvcache``):
Triton-style kernels, split-KV + combine, the design of mla_decode.py with one KV head per program.

* kvcache_decode_split, program (b, kv head * row block, split): the query rows of one KV head's group,
  GROUP query heads x S_Q query tokens packed into one tile of BLOCK_M rows (row r = token r // GROUP, head
  r % GROUP of the group), so a decode step of a GQA model fills the dot's M with heads instead of padding one
  token to 16 rows; they attend to the keys [start, end) of split `split` of sequence b's cache (NUM_SPLITS equal
  parts rounded to BLOCK_N keys) with an online softmax over tiles of BLOCK_N keys. A tile lies in one page, or
  (pages smaller than the tile) spans whole pages, so its pages are scalar loads of the block table and the
  tile's K / V loads can be issued ahead (cp.async rings). With NUM_SPLITS == 1 it writes O and LSE itself; else the unnormalised partial
  O / l (float32) and its log2-sum-exp, merged by
* kvcache_decode_combine, program (b * S_Q + token, head): the splits' partials weighted by 2^(lse_s - lse).

Causal (S_Q > 1, speculative decoding): token i of the S_Q new ones is the cache's position seqlen - S_Q + i and
sees the keys up to it (FlashAttention's bottom-right alignment). A row that sees no key (seqlen 0, or causal
with seqlen < S_Q) gets O = 0 and LSE = +inf; nothing divides by zero or subtracts -inf from -inf.

Layouts (element strides): Q and O (B, S_Q, H, D) contiguous; K / V (pages, page rows, H_KV, D) with the strides
given (last dimension contiguous); BT (B, bt_stride-strided row) int32; SEQLENS (B,) int32; LSE (B, S_Q, H)
float32 log2 units; PART_O (B, S_Q, H, NUM_SPLITS, D) and PART_LSE (B, S_Q, H, NUM_SPLITS) float32. ``cap``: keys
the block table can address (its columns x page size, or the cache's rows unpaged): a longer seqlen is cut there,
so no launch reads outside the table (the op checks lengths before launching unless told not to). ``n_pages``: a
page index outside [0, n_pages) reads as masked keys instead of another process's memory.
"""

import txl
import txl.language as tl


@txl.jit
def kvcache_decode_split(Q, K, V, BT, SEQLENS, O, LSE, PART_O, PART_LSE, sm_scale, H, cap, n_pages, bt_stride,
                         sk_page, sk_tok, sk_head, sv_page, sv_tok, sv_head,
                         D: tl.constexpr, GROUP: tl.constexpr, S_Q: tl.constexpr, BLOCK_M: tl.constexpr,
                         M_BLOCKS: tl.constexpr, PAGE: tl.constexpr, BLOCK_N: tl.constexpr,
                         NUM_SPLITS: tl.constexpr, CAUSAL: tl.constexpr):
    b = tl.program_id(0)
    kvh = tl.program_id(1) // M_BLOCKS
    mb = tl.program_id(1) % M_BLOCKS
    split = tl.program_id(2)
    rows = mb * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < GROUP * S_Q
    tok = rows // GROUP
    head = kvh * GROUP + rows % GROUP
    out_rows = (b.to(tl.int64) * S_Q + tok) * H + head  # row of O / LSE: (b, token, head)
    offs_d = tl.arange(0, D)
    offs_n = tl.arange(0, BLOCK_N)
    q = tl.load(Q + out_rows[:, None] * D + offs_d[None, :], mask=rmask[:, None], other=0.0)
    seqlen = tl.minimum(tl.load(SEQLENS + b), cap)
    per_split = tl.cdiv(tl.cdiv(seqlen, NUM_SPLITS), BLOCK_N) * BLOCK_N
    start = split * per_split
    end = tl.minimum(start + per_split, seqlen)
    # Causal: the last key a row sees is its own position (its token is one of the cache's last S_Q).
    last = seqlen - S_Q + tok
    qk_scale = sm_scale * 1.44269504
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, D], dtype=tl.float32)
    bt_row = BT + b.to(tl.int64) * bt_stride
    last_page = tl.maximum(tl.cdiv(seqlen, PAGE) - 1, 0)
    for n in range(start, end, BLOCK_N):
        pos = n + offs_n
        if PAGE >= BLOCK_N:  # the tile lies in one page: one scalar load of the table
            page = tl.load(bt_row + n // PAGE)
        else:
            # The tile spans BLOCK_N // PAGE pages (16- and 32-key pages): a scalar load of the table for each, so
            # they are issued ahead with the tile's copies (a vector load of the table is not: the loop pipeliner
            # takes no load whose addresses come from another load's tile, and the cache reads became plain
            # loads). Past the sequence's last page the index is clamped (its keys are masked).
            first = n // PAGE
            page = tl.zeros([BLOCK_N], dtype=tl.int32) + tl.load(bt_row + first)
            for j in tl.static_range(1, BLOCK_N // PAGE):
                page = tl.where(offs_n // PAGE == j, tl.load(bt_row + tl.minimum(first + j, last_page)), page)
        valid = (pos < end) & (page >= 0) & (page < n_pages)
        slot = pos % PAGE
        k_rows = page.to(tl.int64) * sk_page + slot * sk_tok + kvh * sk_head
        v_rows = page.to(tl.int64) * sv_page + slot * sv_tok + kvh * sv_head
        k = tl.load(K + k_rows[:, None] + offs_d[None, :], mask=valid[:, None], other=0.0)
        v = tl.load(V + v_rows[:, None] + offs_d[None, :], mask=valid[:, None], other=0.0)
        s = tl.dot(q, tl.trans(k))
        if CAUSAL:
            s = tl.where(valid[None, :] & (pos[None, :] <= last[:, None]), s * qk_scale, float("-inf"))
        else:
            s = tl.where(valid[None, :], s * qk_scale, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(s, 1))
        # A row that has seen no key yet keeps m = -inf: subtract 0 instead (p and alpha are then 0, not NaN).
        m_sub = tl.where(m_ij == float("-inf"), 0.0, m_ij)
        p = tl.exp2(s - m_sub[:, None])
        alpha = tl.exp2(m_i - m_sub)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_ij
    live = l_i > 0.0
    l_safe = tl.where(live, l_i, 1.0)
    out = acc / l_safe[:, None]
    if NUM_SPLITS == 1:
        tl.store(O + out_rows[:, None] * D + offs_d[None, :], out.to(O.dtype.element_ty), mask=rmask[:, None])
        tl.store(LSE + out_rows, tl.where(live, m_i + tl.log2(l_safe), float("inf")), mask=rmask)
    else:
        part = out_rows * NUM_SPLITS + split
        tl.store(PART_O + part[:, None] * D + offs_d[None, :], out, mask=rmask[:, None])
        tl.store(PART_LSE + part, tl.where(live, m_i + tl.log2(l_safe), float("-inf")), mask=rmask)


@txl.jit
def kvcache_decode_combine(PART_O, PART_LSE, O, LSE, H, D: tl.constexpr, NUM_SPLITS: tl.constexpr,
                           SPLITS_P: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * H + tl.program_id(1)
    offs_s = tl.arange(0, SPLITS_P)
    offs_d = tl.arange(0, D)
    smask = offs_s < NUM_SPLITS
    lse = tl.load(PART_LSE + row * NUM_SPLITS + offs_s, mask=smask, other=float("-inf"))
    m = tl.max(lse, 0)
    m_use = tl.where(m == float("-inf"), 0.0, m)
    w = tl.exp2(lse - m_use)
    total = tl.sum(w, 0)
    parts = tl.load(PART_O + (row * NUM_SPLITS + offs_s)[:, None] * D + offs_d[None, :], mask=smask[:, None],
                    other=0.0)
    t_safe = tl.where(total > 0.0, total, 1.0)
    out = tl.sum(parts * w[:, None], 0) / t_safe
    tl.store(O + row * D + offs_d, out.to(O.dtype.element_ty))
    tl.store(LSE + row, tl.where(total > 0.0, m_use + tl.log2(t_safe), float("inf")))


def next_power_of_2(n):
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def row_block(group, s_q):
    """(BLOCK_M, M_BLOCKS): the group's GROUP x S_Q query rows in one block of 16 (mma.sync's M) or 64 rows (one
    wgmma M step); more than 64 rows take several blocks, each reading the tile again (from L2: the blocks of one
    KV head run side by side). No 32-row block: on mma.sync its 32 x 128 q and accumulator spilled (8 bytes at
    head dim 128), and the kernel is memory-bound, so the idle wgmma rows cost nothing measurable."""
    rows = group * s_q
    block = 16 if rows <= 16 else 64
    return block, -(-rows // block)


def split_constexprs(head_dim, group, s_q, page_size, num_splits, causal):
    """kvcache_decode_split's constexprs: tiles of 64 keys (32 at head dim 256: its 64 x 256 accumulator is 128
    registers a thread), within one page or spanning several small ones."""
    block_m, m_blocks = row_block(group, s_q)
    return dict(D=head_dim, GROUP=group, S_Q=s_q, BLOCK_M=block_m, M_BLOCKS=m_blocks, PAGE=page_size,
                BLOCK_N=64 if head_dim <= 128 else 32, NUM_SPLITS=num_splits, CAUSAL=bool(causal and s_q > 1))
