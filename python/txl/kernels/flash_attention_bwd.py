"""FA3-style flash attention backward for Hopper: dQ, dK, dV of O = softmax(Q K^T * sm_scale) V from the forward's
base-2 log-sum-exp M (``flash_attention.py``) and Delta = rowsum(dO * O) (``attention_bwd_preprocess``).

Layouts as in the forward: Q, dO are (B * H * N_CTX, HEAD_DIM) rows behind TMA descriptors with a box of BLOCK_M
rows, K, V, dK, dV (B * H_KV * N_CTX, HEAD_DIM) with a box of BLOCK_N / 2 rows; M and Delta are (B * H, N_PAD) f32;
dQ is accumulated in f32 into DQ_ACC, (B * H * N_PAD, HEAD_DIM) rows (zeroed by the caller, padded rows are
scratch), without sm_scale (the caller scales it once when converting to the input dtype).

A CTA owns one key block of BLOCK_N = 128 keys of one kv head (grid (N_PAD / BLOCK_N, B * H_KV)) and walks the
query blocks of every query head of its GQA group, so dK and dV are summed over the group in registers and stored
once. S and dP are computed transposed (keys are the wgmma M dimension), as in FA2's dK/dV loop:
  WG0       producer (setmaxnreg.dec): K and V of the key block once (two halves of 64 rows), then Q_i and dO_i of
            every query block through NUM_STAGES-deep rings (full: count 1 + bytes; empty: 256 arrivals).
  WG1, WG2  consumers (setmaxnreg.inc), W = 0 / 1: keys W * 64 .. W * 64 + 63 of the block. Per query block:
              S^T  = K_W Q_i^T              (SS wgmma, async)    dP^T = V_W dO_i^T   (SS, async)
              P^T  = exp2(S^T * scale * log2e - M_i)             dS^T = P^T * (dP^T - Delta_i)
              dV_W += P^T dO_i               (RS)                 dK_W += dS^T Q_i    (RS)
            dS^T goes to shared memory (double-buffered by query-block parity) and, once both consumers have
            written theirs (named barrier 8), dQ_i += dS K is split over the consumers by columns: WG W computes
            columns W * HEAD_DIM / 2 .. of dS_0 K_0 + dS_1 K_1 (both key halves; transposed-A wgmma from the dS^T
            tiles, column blocks of K as B) and adds them into DQ_ACC with one TMA reduce-add (fp32, no atomics
            in registers). At HEAD_DIM 64 (one swizzle block: no column split) WG W adds dS_W K_W, all columns.
            The dS^T parity buffers make the barrier enough: a consumer writes a buffer two query blocks after it
            was read, and the other consumer cannot be behind by a whole block (it met barrier 8 in between).
  Epilogue  dV_W straight from V_W's buffer (only WG W reads V_W), dK_W * sm_scale through K_W's once both
            consumers have retired their last dQ wgmma (named barrier 9); rows past N_CTX (the last key block of
            a head when N_CTX is not a multiple of BLOCK_N) are stored under a mask instead.
Masking: CAUSAL keeps key <= query (the loop starts at the first query block that reaches the key block), and with
EVEN_N=False keys and queries >= N_CTX get P = 0 (their rows of Q/dO/K/V are the next head's or zero-filled).
"""

import txl
import txl.language as tl

from txl.kernels._attention_common import _advance, _kv_tile, _local_range, _seq, _visible


@txl.jit
def attention_bwd_preprocess(O, DO, Delta, DQ_ACC, N_CTX, N_PAD, HEAD_STRIDE, HEAD_DIM: tl.constexpr,
                             BLOCK: tl.constexpr, ROW_STRIDE: tl.constexpr, ZERO_DQ: tl.constexpr,
                             DQ_DIM: tl.constexpr = 0):
    # Delta[bh, r] = sum_d O[r, d] * dO[r, d] in f32 for the real rows r < N_CTX of head bh, 0 for padded rows.
    # Row r of head bh starts at element bh * HEAD_STRIDE + r * ROW_STRIDE of O and dO: dense (B * H * N_CTX,
    # HEAD_DIM) rows (HEAD_STRIDE = N_CTX * HEAD_DIM, ROW_STRIDE = HEAD_DIM), or packed (total, H, HEAD_DIM)
    # tokens (bh = head, N_CTX = total, HEAD_STRIDE = HEAD_DIM, ROW_STRIDE = H * HEAD_DIM). Delta is (B * H, N_PAD)
    # (packed: (H, N_PAD)). Grid (N_PAD / BLOCK, B * H). ZERO_DQ: also zero these rows of DQ_ACC, whose rows are
    # DQ_DIM wide (Q's head dim; 0: HEAD_DIM, O's) in 64-column pieces when they differ (asymmetric head dims:
    # 192 is no power of two).
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    bh = tl.program_id(1)
    cols = tl.arange(0, HEAD_DIM)
    offs = bh.to(tl.int64) * HEAD_STRIDE + rows[:, None] * ROW_STRIDE + cols[None, :]
    mask = rows[:, None] < N_CTX
    o = tl.load(O + offs, mask=mask, other=0.0).to(tl.float32)
    do = tl.load(DO + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(Delta + bh * N_PAD + rows, tl.sum(o * do, 1))
    if ZERO_DQ:
        # The same rows of the (B * H * N_PAD, HEAD_DIM) f32 dQ accumulator the main kernel reduce-adds into, zeroed
        # here rather than by a torch.zeros launch of its own (13% of a backward's GPU time at (2, 16, 4096, 128)).
        acc_rows = bh.to(tl.int64) * N_PAD + rows
        if DQ_DIM == 0:
            tl.store(DQ_ACC + acc_rows[:, None] * HEAD_DIM + cols[None, :], tl.zeros([BLOCK, HEAD_DIM], tl.float32))
        else:
            zc = tl.arange(0, 64)
            for c in tl.static_range(DQ_DIM // 64):
                tl.store(DQ_ACC + acc_rows[:, None] * DQ_DIM + c * 64 + zc[None, :], tl.zeros([BLOCK, 64], tl.float32))


@txl.jit
def attention_bwd_dq_convert(DQ_ACC, DQ, sm_scale, N_CTX, N_PAD, HEAD_STRIDE, HEAD_DIM: tl.constexpr,
                             BLOCK: tl.constexpr, ROW_STRIDE: tl.constexpr, COL_BLOCK: tl.constexpr = 0):
    # dQ = sm_scale * DQ_ACC in dQ's dtype, dropping the padded rows: DQ_ACC is (B * H * N_PAD, HEAD_DIM) f32, dQ's
    # rows are laid out as attention_bwd_preprocess's O. One pass (6 bytes per element) instead of torch's scale
    # and cast (14). Grid (N_PAD / BLOCK, B * H). COL_BLOCK > 0: COL_BLOCK columns at a time (a head dim that is no
    # power of two, 192).
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    bh = tl.program_id(1).to(tl.int64)
    if COL_BLOCK == 0:
        cols = tl.arange(0, HEAD_DIM)
        acc = tl.load(DQ_ACC + (bh * N_PAD + rows[:, None]) * HEAD_DIM + cols[None, :])
        tl.store(DQ + bh * HEAD_STRIDE + rows[:, None] * ROW_STRIDE + cols[None, :],
                 (acc * sm_scale).to(DQ.dtype.element_ty), mask=rows[:, None] < N_CTX)
    else:
        for c in tl.static_range(HEAD_DIM // COL_BLOCK):
            cols = c * COL_BLOCK + tl.arange(0, COL_BLOCK)
            acc = tl.load(DQ_ACC + (bh * N_PAD + rows[:, None]) * HEAD_DIM + cols[None, :])
            tl.store(DQ + bh * HEAD_STRIDE + rows[:, None] * ROW_STRIDE + cols[None, :],
                     (acc * sm_scale).to(DQ.dtype.element_ty), mask=rows[:, None] < N_CTX)


@txl.jit
def attention_bwd_dkv_combine(DK_PART, DV_PART, DK, DV, N_CTX, N_PAD, DK_DIM: tl.constexpr, DV_DIM: tl.constexpr,
                              SPLIT: tl.constexpr, CHUNK: tl.constexpr):
    # dK, dV of a backward whose dK/dV kernel split each key block's walk over SPLIT CTAs: the sum of the SPLIT
    # f32 partials (dK's already scaled by sm_scale), added in split order (so bit-identical from run to run), in
    # dK's dtype, padded rows dropped. DK_PART is (SPLIT, B * H_KV, N_PAD, DK_DIM) f32, dK (B * H_KV, N_CTX,
    # DK_DIM) (DV likewise with DV_DIM <= DK_DIM): a kv head's rows are contiguous in both, so a program takes
    # CHUNK consecutive elements of one kv head (any head dim, no power-of-two tiles). Grid
    # (N_PAD * DK_DIM / CHUNK, B * H_KV).
    e = tl.program_id(0) * CHUNK + tl.arange(0, CHUNK)
    bkv = tl.program_id(1).to(tl.int64)
    _combine(DK_PART, DK, e, bkv, N_CTX, N_PAD, DK_DIM, SPLIT)
    if DV_DIM == DK_DIM:
        _combine(DV_PART, DV, e, bkv, N_CTX, N_PAD, DV_DIM, SPLIT)
    elif tl.program_id(0) * CHUNK < N_PAD * DV_DIM:  # dV has fewer elements: the last programs have none
        _combine(DV_PART, DV, e, bkv, N_CTX, N_PAD, DV_DIM, SPLIT)


@txl.jit
def _combine(PART, OUT, e, bkv, N_CTX, N_PAD, DIM: tl.constexpr, SPLIT: tl.constexpr):
    # Elements e (all < N_PAD * DIM) of kv head bkv: the SPLIT partials summed in order, stored where e is a real
    # row's.
    per_split = tl.num_programs(1).to(tl.int64) * N_PAD * DIM
    src = PART + bkv * N_PAD * DIM + e
    acc = tl.load(src)
    for s in tl.static_range(1, SPLIT):
        acc += tl.load(src + s * per_split)
    tl.store(OUT + bkv * N_CTX * DIM + e, acc.to(OUT.dtype.element_ty), mask=e < N_CTX * DIM)


@txl.jit(do_not_specialize=["N_CTX", "N_PAD", "NUM_HEADS", "WIN_LEFT", "WIN_RIGHT", "N_SINK"])
def attention_bwd_dq(Q, K, V, DO, DQ, M, Delta, sm_scale, N_CTX, N_PAD, CU_Q, CU_K, NUM_HEADS, WIN_LEFT, WIN_RIGHT,
                     N_SINK, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     CAUSAL: tl.constexpr, H_Q_PER_KV: tl.constexpr, VARLEN: tl.constexpr = False,
                     WINDOW: tl.constexpr = False):
    # dQ of one query block (deterministic=True: no reduce-adds, the key blocks are visited in order), written the
    # way a Triton user writes it (txl's loop pipeliner schedules it). Q, dO, dQ are (B * H * N_CTX, HEAD_DIM)
    # rows, K, V (B * H_KV * N_CTX, HEAD_DIM), M and Delta (B * H, N_PAD); VARLEN: packed tokens and M (H, N_PAD)
    # as the forward's. Grid (N_PAD / BLOCK_M, B * H) (VARLEN: longest query sequence / BLOCK_M).
    LOCAL: tl.constexpr = VARLEN or WINDOW
    start_m = tl.program_id(0) * BLOCK_M
    bh = tl.program_id(1)
    q_tok, q_x, k_tok, k_x, len_q, len_k = _seq(bh, N_CTX, CU_Q, CU_K, NUM_HEADS, HEAD_DIM, H_Q_PER_KV, VARLEN)
    if VARLEN:
        q_rs = NUM_HEADS * HEAD_DIM
        k_rs = (NUM_HEADS // H_Q_PER_KV) * HEAD_DIM
        m_base = (bh % NUM_HEADS) * N_PAD + q_tok
    else:
        q_rs = HEAD_DIM
        k_rs = HEAD_DIM
        m_base = bh * N_PAD
    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q_offs = (q_tok + offs_m[:, None]).to(tl.int64) * q_rs + q_x + offs_d[None, :]
    q_mask = offs_m[:, None] < len_q
    q = tl.load(Q + q_offs, mask=q_mask, other=0.0)
    do = tl.load(DO + q_offs, mask=q_mask, other=0.0)
    m = tl.load(M + m_base + offs_m)
    delta = tl.load(Delta + m_base + offs_m)
    qk_scale = sm_scale * 1.44269504
    dq = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    ns = 0
    lo = 0
    if LOCAL:
        ns, lo, n_visits = _local_range(start_m, len_q, len_k, WIN_LEFT, WIN_RIGHT, N_SINK, BLOCK_M, BLOCK_N)
    elif CAUSAL:
        n_visits = tl.cdiv(tl.minimum(start_m + BLOCK_M, N_CTX), BLOCK_N)
    else:
        n_visits = tl.cdiv(N_CTX, BLOCK_N)
    for j in range(0, n_visits):
        offs_n = _kv_tile(j, ns, lo, LOCAL) * BLOCK_N + tl.arange(0, BLOCK_N)
        kv_offs = (k_tok + offs_n[:, None]).to(tl.int64) * k_rs + k_x + offs_d[None, :]
        kv_mask = offs_n[:, None] < len_k
        k = tl.load(K + kv_offs, mask=kv_mask, other=0.0)
        v = tl.load(V + kv_offs, mask=kv_mask, other=0.0)
        p = tl.exp2(tl.dot(q, tl.trans(k)) * qk_scale - m[:, None])
        if LOCAL:
            keep = _visible(offs_m[:, None], offs_n[None, :], len_k, len_k - len_q, WIN_LEFT, WIN_RIGHT, N_SINK)
        else:
            keep = offs_n[None, :] < N_CTX
            if CAUSAL:
                keep = keep & (offs_m[:, None] >= offs_n[None, :])
        p = tl.where(keep, p, 0.0)
        dp = tl.dot(do, tl.trans(v))
        ds = p * (dp - delta[:, None])
        dq = tl.dot(ds.to(q.dtype), k, dq)
    tl.store(DQ + q_offs, (dq * sm_scale).to(q.dtype), mask=q_mask)


@txl.jit(do_not_specialize=["N_CTX", "N_PAD", "NUM_HEADS", "WIN_LEFT", "WIN_RIGHT", "N_SINK"])
def flash_attention_bwd(desc_q, desc_k, desc_v, desc_do, desc_dq, desc_dk, desc_dv, M, Delta, DK, DV, sm_scale,
                        N_CTX, N_PAD, CU_Q, CU_K, NUM_HEADS, WIN_LEFT, WIN_RIGHT, N_SINK, HEAD_DIM: tl.constexpr,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, NUM_STAGES: tl.constexpr, CAUSAL: tl.constexpr,
                        EVEN_N: tl.constexpr, H_Q_PER_KV: tl.constexpr, CONSUMER_REGS: tl.constexpr = 240,
                        DQ: tl.constexpr = True, VARLEN: tl.constexpr = False, WINDOW: tl.constexpr = False,
                        SPLIT: tl.constexpr = 1):
    tl.static_assert(BLOCK_N == 128, "two consumer warpgroups of 64 keys")
    tl.static_assert(BLOCK_M == 64, "query blocks of 64 rows (the transposed tiles' wgmma N)")
    tl.static_assert(NUM_STAGES >= 1, "the Q/dO ring needs a stage")
    HALF_N: tl.constexpr = BLOCK_N // 2
    PRODUCER_REGS: tl.constexpr = 504 - 2 * CONSUMER_REGS
    Q_BYTES: tl.constexpr = BLOCK_M * HEAD_DIM * 2
    KV_BYTES: tl.constexpr = HALF_N * HEAD_DIM * 2
    DQ_COLS: tl.constexpr = HEAD_DIM // 2 if HEAD_DIM > 64 else HEAD_DIM
    dtype = desc_q.dtype

    LOCAL: tl.constexpr = VARLEN or WINDOW
    tl.static_assert(not (LOCAL and CAUSAL), "local masks: causal is WIN_RIGHT = 0")

    # k_row: the first key of the block within its head (causal: block 0 starts first)
    (k_row, kv_y, k_x, q_base, q_gstride, q_x0, x_gstride, m_base, len_q, len_k, q_start, per_head, out_stride, t_lo,
     t_hi, part_y) = _key_block(N_CTX, N_PAD, CU_Q, CU_K, NUM_HEADS, WIN_LEFT, WIN_RIGHT, N_SINK, HEAD_DIM, BLOCK_M,
                                BLOCK_N, CAUSAL, H_Q_PER_KV, VARLEN, LOCAL, SPLIT)

    bK = txl.smem_alloc([HALF_N, HEAD_DIM], dtype, num_stages=2)  # [W]: consumer W's keys
    bV = txl.smem_alloc([HALF_N, HEAD_DIM], dtype, num_stages=2)
    bQ = txl.smem_alloc([BLOCK_M, HEAD_DIM], dtype, num_stages=NUM_STAGES)
    bdO = txl.smem_alloc([BLOCK_M, HEAD_DIM], dtype, num_stages=NUM_STAGES)
    bdS = txl.smem_alloc([HALF_N, BLOCK_M], dtype, num_stages=4)  # [2 * W + parity]: dS^T of consumer W
    bdQ = txl.smem_alloc([BLOCK_M, DQ_COLS], tl.float32, num_stages=2)  # [W]: dQ staging for the reduce-add
    kv_full = txl.mbar_alloc(1)
    q_full = txl.mbar_alloc(1, num_stages=NUM_STAGES)
    do_full = txl.mbar_alloc(1, num_stages=NUM_STAGES)
    qdo_empty = txl.mbar_alloc(256, num_stages=NUM_STAGES)

    if txl.is_warpgroup([0]):
        txl.reg_dealloc(PRODUCER_REGS)
        kb = txl.get_buffer(kv_full, 0)
        txl.mbar_expect(kb, 4 * KV_BYTES)
        txl.tma_load(txl.get_buffer(bK, 0), desc_k, [kv_y, k_x], kb)
        txl.tma_load(txl.get_buffer(bK, 1), desc_k, [kv_y + HALF_N, k_x], kb)
        txl.tma_load(txl.get_buffer(bV, 0), desc_v, [kv_y, k_x], kb)
        txl.tma_load(txl.get_buffer(bV, 1), desc_v, [kv_y + HALF_N, k_x], kb)
        _stream_q_do(bQ, bdO, q_full, do_full, qdo_empty, desc_q, desc_do, q_base, q_gstride, q_x0, x_gstride,
                     q_start, per_head, t_lo, t_hi, BLOCK_M, NUM_STAGES, Q_BYTES)

    if txl.is_warpgroup([1, 2]):
        txl.reg_alloc(CONSUMER_REGS)
        if txl.is_warpgroup([1]):
            _consumer(bK, bV, bQ, bdO, bdS, bdQ, kv_full, q_full, do_full, qdo_empty, desc_dq, desc_dk, desc_dv,
                      M, Delta, DK, DV, sm_scale, N_PAD, m_base, k_row, kv_y, k_x, len_q, len_k, q_start, per_head,
                      t_lo, t_hi, out_stride, part_y, WIN_LEFT, WIN_RIGHT, N_SINK, 0, HEAD_DIM, BLOCK_M, HALF_N,
                      DQ_COLS, NUM_STAGES, CAUSAL, EVEN_N and not VARLEN, DQ, LOCAL, SPLIT)
        else:
            _consumer(bK, bV, bQ, bdO, bdS, bdQ, kv_full, q_full, do_full, qdo_empty, desc_dq, desc_dk, desc_dv,
                      M, Delta, DK, DV, sm_scale, N_PAD, m_base, k_row, kv_y, k_x, len_q, len_k, q_start, per_head,
                      t_lo, t_hi, out_stride, part_y, WIN_LEFT, WIN_RIGHT, N_SINK, 1, HEAD_DIM, BLOCK_M, HALF_N,
                      DQ_COLS, NUM_STAGES, CAUSAL, EVEN_N and not VARLEN, DQ, LOCAL, SPLIT)


@txl.jit
def _key_block(N_CTX, N_PAD, CU_Q, CU_K, NUM_HEADS, WIN_LEFT, WIN_RIGHT, N_SINK, HEAD_DIM: tl.constexpr,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr, H_Q_PER_KV: tl.constexpr,
               VARLEN: tl.constexpr, LOCAL: tl.constexpr, SPLIT: tl.constexpr):
    # The dK/dV kernels' program (grid (N_PAD / BLOCK_N, B * H_KV[, SPLIT])): its key block's first key within the
    # head, where the block and its queries live (_bwd_block) and its share of the walk (_split_walk).
    k_row = tl.program_id(0) * BLOCK_N
    kv_y, k_x, q_base, q_gstride, q_x0, x_gstride, m_base, len_q, len_k, q_start, per_head, out_stride = _bwd_block(
        k_row, tl.program_id(1), N_CTX, N_PAD, CU_Q, CU_K, NUM_HEADS, WIN_LEFT, WIN_RIGHT, N_SINK, HEAD_DIM, BLOCK_M,
        BLOCK_N, CAUSAL, H_Q_PER_KV, VARLEN, LOCAL)
    t_lo, t_hi, part_y = _split_walk(per_head * H_Q_PER_KV, k_row, N_PAD, SPLIT, VARLEN)
    return (k_row, kv_y, k_x, q_base, q_gstride, q_x0, x_gstride, m_base, len_q, len_k, q_start, per_head, out_stride,
            t_lo, t_hi, part_y)


@txl.jit
def _bwd_block(k_row, off_bkv, N_CTX, N_PAD, CU_Q, CU_K, NUM_HEADS, WIN_LEFT, WIN_RIGHT, N_SINK,
               HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr,
               H_Q_PER_KV: tl.constexpr, VARLEN: tl.constexpr, LOCAL: tl.constexpr):
    # Where the key block (keys k_row .. k_row + BLOCK_N - 1 of kv head off_bkv = batch * H_KV + kv head) and its
    # queries live. Query head g of the group (0 .. H_Q_PER_KV - 1), query block qb: Q/dO box at row
    # q_base + g * q_gstride + qb * BLOCK_M, column q_x0 + g * x_gstride; its M/Delta/dQ-accumulator rows from
    # m_base + g * N_PAD + qb * BLOCK_M. The blocks to visit: q_start .. q_start + per_head - 1 (causal: from the
    # diagonal; LOCAL: the queries that see some key of the block under the local masks, none for a block past
    # the sequence's end). dK/dV rows are out_stride elements apart. Dense: (B * H * N_CTX, HEAD_DIM) rows, M
    # (B * H, N_PAD). VARLEN: packed tokens (as the forward's _seq), M (H, N_PAD) over the packed tokens.
    if VARLEN:
        h_kv = NUM_HEADS // H_Q_PER_KV
        b = off_bkv // h_kv
        hk = off_bkv - b * h_kv
        q_tok = tl.load(CU_Q + b)
        k_tok = tl.load(CU_K + b)
        len_q = tl.load(CU_Q + b + 1) - q_tok
        len_k = tl.load(CU_K + b + 1) - k_tok
        kv_y = k_tok + k_row
        k_x = hk * HEAD_DIM
        q_base = q_tok
        q_gstride = 0
        q_x0 = hk * H_Q_PER_KV * HEAD_DIM
        x_gstride = HEAD_DIM
        m_base = hk * H_Q_PER_KV * N_PAD + q_tok
        out_stride = h_kv * HEAD_DIM
    else:
        len_q = N_CTX
        len_k = N_CTX
        kv_y = off_bkv * N_CTX + k_row
        k_x = 0
        q_base = off_bkv * H_Q_PER_KV * N_CTX
        q_gstride = N_CTX
        q_x0 = 0
        x_gstride = 0
        m_base = off_bkv * H_Q_PER_KV * N_PAD
        out_stride = HEAD_DIM
    if LOCAL:
        off = len_k - len_q
        # First query that sees the block's first key; last one that sees its last key (every query sees a sink).
        first = tl.maximum(k_row - off - WIN_RIGHT, 0)
        last = tl.where(k_row < N_SINK, len_q - 1, k_row + BLOCK_N - 1 - off + WIN_LEFT)
        q_start = first // BLOCK_M
        per_head = tl.maximum(tl.cdiv(tl.maximum(tl.minimum(len_q, last + 1), 0), BLOCK_M) - q_start, 0)
        per_head = tl.where(k_row < len_k, per_head, 0)
    elif CAUSAL:
        q_start = k_row // BLOCK_M
        per_head = tl.cdiv(N_CTX, BLOCK_M) - q_start
    else:
        q_start = 0
        per_head = tl.cdiv(N_CTX, BLOCK_M)
    return kv_y, k_x, q_base, q_gstride, q_x0, x_gstride, m_base, len_q, len_k, q_start, per_head, out_stride


@txl.jit
def _split_walk(n_iter, k_row, N_PAD, SPLIT: tl.constexpr, VARLEN: tl.constexpr):
    # The key block's walk is n_iter steps t (query head t // per_head of the group, its query block t % per_head).
    # SPLIT > 1 (grid (key blocks, B * H_KV, SPLIT)): CTA s = program_id(2) walks steps s * n_iter / SPLIT ..
    # (s + 1) * n_iter / SPLIT - 1 (whole query heads when SPLIT divides the group), and its partial dK/dV rows are
    # those of (SPLIT, B * H_KV, N_PAD, HEAD_DIM) f32 at (s * B * H_KV + bkv) * N_PAD + k_row (dense layout only:
    # packed sequences are not split). Returns (first step, end step, first partial row).
    tl.static_assert(SPLIT == 1 or not VARLEN, "packed sequences are not split")
    t_lo = 0
    t_hi = n_iter
    part_y = 0
    if SPLIT > 1:
        s = tl.program_id(2)
        t_lo = s * n_iter // SPLIT
        t_hi = (s + 1) * n_iter // SPLIT
        part_y = (s * tl.num_programs(1) + tl.program_id(1)) * N_PAD + k_row
    return t_lo, t_hi, part_y


@txl.jit
def _store_partial(acc, PART, y, x, ROWS: tl.constexpr, COLS: tl.constexpr, STRIDE: tl.constexpr):
    # acc (f32, ROWS x COLS) into rows y.., columns x.. of the f32 partial buffer PART (rows STRIDE elements
    # apart), unmasked: the partial rows are padded to N_PAD per head.
    rows = tl.arange(0, ROWS)
    cols = tl.arange(0, COLS)
    tl.store(PART + (y.to(tl.int64) + rows[:, None]) * STRIDE + x + cols[None, :], acc)


@txl.jit
def _stream_q_do(bQ, bdO, q_full, do_full, qdo_empty, desc_q, desc_do, q_base, q_gstride, q_x0, x_gstride, q_start,
                 per_head, t_lo, t_hi, BLOCK_M: tl.constexpr, NUM_STAGES: tl.constexpr, TILE_BYTES: tl.constexpr,
                 DO_BYTES: tl.constexpr = 0):
    # The producer's Q/dO ring: iteration t is query block q_start + t % per_head of query head t // per_head of
    # the kv head's group (boxes as _bwd_block says); a stage is refilled once both consumers released it
    # (qdo_empty, 256 arrivals). The parity starts at 1, so the first pass over the ring does not wait.
    s = 0
    phase = 1
    for t in range(t_lo, t_hi):
        g = t // per_head
        q_y = q_base + g * q_gstride + (q_start + t - g * per_head) * BLOCK_M
        q_x = q_x0 + g * x_gstride
        txl.mbar_wait(txl.get_buffer(qdo_empty, s), phase)
        qf = txl.get_buffer(q_full, s)
        txl.mbar_expect(qf, TILE_BYTES)
        txl.tma_load(txl.get_buffer(bQ, s), desc_q, [q_y, q_x], qf)
        df = txl.get_buffer(do_full, s)
        txl.mbar_expect(df, DO_BYTES if DO_BYTES > 0 else TILE_BYTES)  # (asymmetric head dims: dO is narrower)
        txl.tma_load(txl.get_buffer(bdO, s), desc_do, [q_y, q_x], df)
        s, phase = _advance(s, phase, NUM_STAGES)


@txl.jit
def _mask_bwd(pT, key0, q0, N_CTX, ROWS: tl.constexpr, COLS: tl.constexpr, CAUSAL: tl.constexpr,
              EVEN_N: tl.constexpr):
    # pT: keys key0 .. key0 + ROWS - 1 (rows) against queries q0 .. q0 + COLS - 1 (columns), absolute positions in
    # the head. Keeps key <= query (CAUSAL) and key, query < N_CTX; the rest gets P = 0.
    keys = key0 + tl.arange(0, ROWS)
    qs = q0 + tl.arange(0, COLS)
    if CAUSAL:
        keep = keys[:, None] <= qs[None, :]  # with query < N_CTX, this also bounds the key
        if not EVEN_N:
            keep = keep & (qs[None, :] < N_CTX)
    else:
        keep = (keys[:, None] < N_CTX) & (qs[None, :] < N_CTX)
    return tl.where(keep, pT, 0.0)


@txl.jit
def _mask_tile(pT, key0, q0, len_q, len_k, WIN_LEFT, WIN_RIGHT, N_SINK, ROWS: tl.constexpr, COLS: tl.constexpr,
               CAUSAL: tl.constexpr, EVEN_N: tl.constexpr, LOCAL: tl.constexpr):
    # pT (keys key0.. as rows, queries q0.. as columns) under the kernel's masks: the local masks, or causal and
    # the sequence's end, applied only when some element of the tile is masked (the scalar tests cost less than
    # the elementwise mask).
    if LOCAL:
        pT = _mask_bwd_local(pT, key0, q0, len_q, len_k, WIN_LEFT, WIN_RIGHT, N_SINK, ROWS, COLS)
    else:
        need_mask = False
        if CAUSAL:
            need_mask = key0 + ROWS - 1 > q0  # some key of the tile is after some query
        if not EVEN_N:
            need_mask = need_mask | (q0 + COLS > len_q) | (key0 + ROWS > len_q)
        if need_mask:
            pT = _mask_bwd(pT, key0, q0, len_q, ROWS, COLS, CAUSAL, EVEN_N)
    return pT


@txl.jit
def _mask_bwd_local(pT, key0, q0, len_q, len_k, left, right, n_sink, ROWS: tl.constexpr, COLS: tl.constexpr):
    # pT (keys key0.. as rows, queries q0.. as columns) under the local masks (the forward's _mask_local,
    # transposed), queries >= len_q (the next sequence's, or padding) too; the rest gets P = 0. The scalar tests
    # skip the elementwise mask for a tile wholly inside.
    off = len_k - len_q
    need = (key0 + ROWS > len_k) | (q0 + COLS > len_q) | (key0 + ROWS - 1 > q0 + off + right)
    need = need | ((key0 + ROWS > n_sink) & (tl.maximum(key0, n_sink) < q0 + COLS - 1 + off - left))
    if need:
        keys = key0 + tl.arange(0, ROWS)
        qs = q0 + tl.arange(0, COLS)
        keep = _visible(qs[None, :], keys[:, None], len_k, off, left, right, n_sink) & (qs[None, :] < len_q)
        pT = tl.where(keep, pT, 0.0)
    return pT


@txl.jit
def _consumer(bK, bV, bQ, bdO, bdS, bdQ, kv_full, q_full, do_full, qdo_empty, desc_dq, desc_dk, desc_dv, M, Delta,
              DK, DV, sm_scale, N_PAD, m_base, k_row, kv_y, k_x, len_q, len_k, q_start, per_head, t_lo, t_hi,
              out_stride, part_y, WIN_LEFT, WIN_RIGHT, N_SINK, W: tl.constexpr, HEAD_DIM: tl.constexpr,
              BLOCK_M: tl.constexpr, HALF_N: tl.constexpr, DQ_COLS: tl.constexpr, NUM_STAGES: tl.constexpr,
              CAUSAL: tl.constexpr, EVEN_N: tl.constexpr, DQ: tl.constexpr, LOCAL: tl.constexpr, SPLIT: tl.constexpr):
    dtype = desc_dk.dtype
    qk_scale = sm_scale * 1.44269504  # exp(x * sm_scale) = exp2(x * qk_scale)
    key0 = k_row + W * HALF_N  # this consumer's first key within the head
    k_w = txl.get_buffer(bK, W)
    v_w = txl.get_buffer(bV, W)
    txl.mbar_wait(txl.get_buffer(kv_full, 0), 0)

    dv = tl.zeros([HALF_N, HEAD_DIM], tl.float32)
    dk = tl.zeros([HALF_N, HEAD_DIM], tl.float32)
    s = 0
    phase = 0
    for t in range(t_lo, t_hi):
        g = t // per_head
        q0 = (q_start + t - g * per_head) * BLOCK_M  # first query row of the block within its head
        m_y = m_base + g * N_PAD + q0  # the block's rows of M, Delta and the dQ accumulator
        cols = m_y + tl.arange(0, BLOCK_M)
        q_s = txl.get_buffer(bQ, s)
        do_s = txl.get_buffer(bdO, s)

        txl.mbar_wait(txl.get_buffer(q_full, s), phase)
        sT = tl.dot(k_w, q_s.T)
        txl.mbar_wait(txl.get_buffer(do_full, s), phase)
        dpT = tl.dot(v_w, do_s.T)
        txl.dot_wait(1)  # S^T retired; dP^T may still run
        # M and Delta are loaded where they are used, not at the top of the iteration: their 16 registers per
        # thread each (column vectors of the transposed tiles) would be live next to dV, dK, S^T, dP^T and the
        # mask's indices, past the 240 a consumer has.
        m = tl.load(M + cols)
        pT = tl.exp2(sT * qk_scale - m[None, :])
        pT = _mask_tile(pT, key0, q0, len_q, len_k, WIN_LEFT, WIN_RIGHT, N_SINK, HALF_N, BLOCK_M, CAUSAL, EVEN_N, LOCAL)
        delta = tl.load(Delta + cols)
        txl.dot_wait(0)  # dP^T retired
        dsT = (pT * (dpT - delta[None, :])).to(dtype)
        dv = tl.dot(pT.to(dtype), do_s, dv)
        dk = tl.dot(dsT, q_s, dk)

        if DQ:
            # dS^T to shared memory for dQ = dS K, which needs both consumers' halves (all 128 keys).
            par = t % 2
            txl.smem_store(txl.get_buffer(bdS, 2 * W + par), dsT)
            txl.fence_proxy_async()
            txl.bar_wait(8, 256)
            dq_y = m_y
            if DQ_COLS < HEAD_DIM:
                # Split by columns: this consumer's DQ_COLS columns of dS_0 K_0 + dS_1 K_1.
                k0c = txl.smem_slice(txl.get_buffer(bK, 0), W * DQ_COLS, DQ_COLS, dim=1)
                k1c = txl.smem_slice(txl.get_buffer(bK, 1), W * DQ_COLS, DQ_COLS, dim=1)
                dq = tl.dot(txl.get_buffer(bdS, par).T, k0c)
                dq = tl.dot(txl.get_buffer(bdS, 2 + par).T, k1c, dq)
                txl.dot_wait(0)  # dV, dK and dQ retired: Q_s and dO_s are free
                txl.mbar_arrive(txl.get_buffer(qdo_empty, s))
                _add_dq(dq, txl.get_buffer(bdQ, W), desc_dq, dq_y, W * DQ_COLS)
            else:
                # Head dim 64 (one swizzle block: no column split): the consumers take turns, consumer t % 2
                # adds all of dS K. One reduce-add of 16 KB per query block instead of one per consumer: at this
                # head dim the reduce traffic, not the tensor cores, is what the step waits on.
                if par == W:
                    dq = tl.dot(txl.get_buffer(bdS, par).T, txl.get_buffer(bK, 0))
                    dq = tl.dot(txl.get_buffer(bdS, 2 + par).T, txl.get_buffer(bK, 1), dq)
                    txl.dot_wait(0)
                    txl.mbar_arrive(txl.get_buffer(qdo_empty, s))
                    _add_dq(dq, txl.get_buffer(bdQ, W), desc_dq, dq_y, 0)
                else:
                    txl.dot_wait(0)
                    txl.mbar_arrive(txl.get_buffer(qdo_empty, s))
        else:
            txl.dot_wait(0)  # dV and dK retired
            txl.mbar_arrive(txl.get_buffer(qdo_empty, s))
        s, phase = _advance(s, phase, NUM_STAGES)

    # Epilogue: dV_W through V_W's buffer (read by this warpgroup only), dK_W through K_W's once the other
    # consumer's last dQ wgmma (which reads K_W's columns) has retired.
    if SPLIT > 1:
        # A share of the key block's walk: this CTA's partial dV_W, dK_W (f32) go to its own rows of the
        # partial buffers (DV, DK), which attention_bwd_dkv_combine sums in split order. The rows are padded to
        # N_PAD, so no mask; from registers, so K_W's buffer is not reused and barrier 9 is not needed.
        _store_partial(dv, DV, part_y + W * HALF_N, 0, HALF_N, HEAD_DIM, HEAD_DIM)
        _store_partial(dk * sm_scale, DK, part_y + W * HALF_N, 0, HALF_N, HEAD_DIM, HEAD_DIM)
    else:
        out_y = kv_y + W * HALF_N
        n_valid = len_k - key0
        _store_rows(dv.to(dtype), v_w, desc_dv, DV, out_y, k_x, out_stride, n_valid, HALF_N, HEAD_DIM, EVEN_N)
        if DQ:
            txl.bar_wait(9, 256)
        _store_rows((dk * sm_scale).to(dtype), k_w, desc_dk, DK, out_y, k_x, out_stride, n_valid, HALF_N, HEAD_DIM,
                    EVEN_N)
    txl.tma_store_wait(0)


@txl.jit(do_not_specialize=["N_CTX", "N_PAD", "NUM_HEADS", "WIN_LEFT", "WIN_RIGHT", "N_SINK"])
def flash_attention_bwd_hd256(desc_q, desc_k, desc_v, desc_do, desc_dq, desc_dk, desc_dv, M, Delta, DK, DV, sm_scale,
                              N_CTX, N_PAD, CU_Q, CU_K, NUM_HEADS, WIN_LEFT, WIN_RIGHT, N_SINK,
                              HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                              NUM_STAGES: tl.constexpr, CAUSAL: tl.constexpr, EVEN_N: tl.constexpr,
                              H_Q_PER_KV: tl.constexpr, CONSUMER_REGS: tl.constexpr = 240, DQ: tl.constexpr = True,
                              VARLEN: tl.constexpr = False, WINDOW: tl.constexpr = False, SPLIT: tl.constexpr = 1):
    # Head dim 256: a consumer cannot hold dV and dK of 64 keys over all 256 columns (256 registers), so the two
    # consumers split the head dim instead of the keys. A CTA owns BLOCK_N = 64 keys; per query block consumer 0
    # computes S^T = K Q^T and P^T, consumer 1 dP^T = V dO^T and, with P^T from shared memory, dS^T; P^T and dS^T
    # go through shared memory (double-buffered by parity; named barriers 8 and 9 order the hand-overs) and both
    # consumers then add their 128 columns: dV_W += P^T dO[:, W], dK_W += dS^T Q[:, W] and dQ[:, W] = dS K[:, W]
    # (fp32 TMA reduce-add). Shared memory: K, V 32 KB each, Q and dO 32 KB per stage, P^T and dS^T 16 KB each,
    # the dQ staging tiles 64 KB: one stage fits (224 KB).
    tl.static_assert(HEAD_DIM == 256 and BLOCK_N == 64 and BLOCK_M == 64, "the head-dim-256 tiling")
    COLS: tl.constexpr = HEAD_DIM // 2
    PRODUCER_REGS: tl.constexpr = 504 - 2 * CONSUMER_REGS
    TILE_BYTES: tl.constexpr = 64 * HEAD_DIM * 2
    dtype = desc_q.dtype

    LOCAL: tl.constexpr = VARLEN or WINDOW
    tl.static_assert(not (LOCAL and CAUSAL), "local masks: causal is WIN_RIGHT = 0")

    (k_row, kv_y, k_x, q_base, q_gstride, q_x0, x_gstride, m_base, len_q, len_k, q_start, per_head, out_stride, t_lo,
     t_hi, part_y) = _key_block(N_CTX, N_PAD, CU_Q, CU_K, NUM_HEADS, WIN_LEFT, WIN_RIGHT, N_SINK, HEAD_DIM, BLOCK_M,
                                BLOCK_N, CAUSAL, H_Q_PER_KV, VARLEN, LOCAL, SPLIT)

    bK, bV, bQ, bdO, bP, bdS, bdQ, kv_full, q_full, do_full, qdo_empty = _column_split_buffers(
        dtype, HEAD_DIM, HEAD_DIM, BLOCK_M, BLOCK_N, NUM_STAGES, COLS, 2)  # bdQ[W]: dQ staging

    if txl.is_warpgroup([0]):
        txl.reg_dealloc(PRODUCER_REGS)
        _column_split_producer(bK, bV, bQ, bdO, kv_full, q_full, do_full, qdo_empty, desc_q, desc_k, desc_v, desc_do,
                               kv_y, k_x, q_base, q_gstride, q_x0, x_gstride, q_start, per_head, t_lo, t_hi,
                               2 * TILE_BYTES, TILE_BYTES, TILE_BYTES, BLOCK_M, NUM_STAGES)

    if txl.is_warpgroup([1, 2]):
        txl.reg_alloc(CONSUMER_REGS)
        if txl.is_warpgroup([1]):
            _consumer_hd256(bK, bV, bQ, bdO, bP, bdS, bdQ, kv_full, q_full, do_full, qdo_empty, desc_dq, desc_dk,
                            desc_dv, M, Delta, DK, DV, sm_scale, N_PAD, m_base, k_row, kv_y, k_x, len_q, len_k,
                            q_start, per_head, t_lo, t_hi, out_stride, part_y, WIN_LEFT, WIN_RIGHT, N_SINK, 0, HEAD_DIM,
                            COLS, BLOCK_M, BLOCK_N, NUM_STAGES, CAUSAL, EVEN_N and not VARLEN, DQ, LOCAL, SPLIT)
        else:
            _consumer_hd256(bK, bV, bQ, bdO, bP, bdS, bdQ, kv_full, q_full, do_full, qdo_empty, desc_dq, desc_dk,
                            desc_dv, M, Delta, DK, DV, sm_scale, N_PAD, m_base, k_row, kv_y, k_x, len_q, len_k,
                            q_start, per_head, t_lo, t_hi, out_stride, part_y, WIN_LEFT, WIN_RIGHT, N_SINK, 1, HEAD_DIM,
                            COLS, BLOCK_M, BLOCK_N, NUM_STAGES, CAUSAL, EVEN_N and not VARLEN, DQ, LOCAL, SPLIT)


@txl.jit
def _column_split_buffers(dtype, HEAD_DIM: tl.constexpr, HEAD_DIM_V: tl.constexpr, BLOCK_M: tl.constexpr,
                          BLOCK_N: tl.constexpr, NUM_STAGES: tl.constexpr, DQ_COLS: tl.constexpr,
                          DQ_TILES: tl.constexpr):
    # The shared memory and barriers of a CTA whose consumers split the columns (head dim 256, asymmetric head
    # dims): K, V of the key block, the Q/dO ring, P^T and dS^T by parity, DQ_TILES dQ staging tiles of DQ_COLS f32
    # columns; K/V loaded (kv_full), Q_s and dO_s loaded (q_full, do_full) and released by both consumers
    # (qdo_empty).
    bK = txl.smem_alloc([BLOCK_N, HEAD_DIM], dtype)
    bV = txl.smem_alloc([BLOCK_N, HEAD_DIM_V], dtype)
    bQ = txl.smem_alloc([BLOCK_M, HEAD_DIM], dtype, num_stages=NUM_STAGES)
    bdO = txl.smem_alloc([BLOCK_M, HEAD_DIM_V], dtype, num_stages=NUM_STAGES)
    bP = txl.smem_alloc([BLOCK_N, BLOCK_M], dtype, num_stages=2)  # P^T by parity
    bdS = txl.smem_alloc([BLOCK_N, BLOCK_M], dtype, num_stages=2)  # dS^T by parity
    bdQ = txl.smem_alloc([BLOCK_M, DQ_COLS], tl.float32, num_stages=DQ_TILES)
    kv_full = txl.mbar_alloc(1)
    q_full = txl.mbar_alloc(1, num_stages=NUM_STAGES)
    do_full = txl.mbar_alloc(1, num_stages=NUM_STAGES)
    qdo_empty = txl.mbar_alloc(256, num_stages=NUM_STAGES)
    return bK, bV, bQ, bdO, bP, bdS, bdQ, kv_full, q_full, do_full, qdo_empty


@txl.jit
def _column_split_producer(bK, bV, bQ, bdO, kv_full, q_full, do_full, qdo_empty, desc_q, desc_k, desc_v, desc_do,
                           kv_y, k_x, q_base, q_gstride, q_x0, x_gstride, q_start, per_head, t_lo, t_hi,
                           KV_BYTES: tl.constexpr, Q_BYTES: tl.constexpr, DO_BYTES: tl.constexpr,
                           BLOCK_M: tl.constexpr, NUM_STAGES: tl.constexpr):
    # The producer of a column-split CTA: K and V of the key block (one box each, KV_BYTES in all), then the Q/dO
    # ring (_stream_q_do).
    kb = txl.get_buffer(kv_full, 0)
    txl.mbar_expect(kb, KV_BYTES)
    txl.tma_load(txl.get_buffer(bK, 0), desc_k, [kv_y, k_x], kb)
    txl.tma_load(txl.get_buffer(bV, 0), desc_v, [kv_y, k_x], kb)
    _stream_q_do(bQ, bdO, q_full, do_full, qdo_empty, desc_q, desc_do, q_base, q_gstride, q_x0, x_gstride, q_start,
                 per_head, t_lo, t_hi, BLOCK_M, NUM_STAGES, Q_BYTES, DO_BYTES)


@txl.jit
def _consumer_hd256(bK, bV, bQ, bdO, bP, bdS, bdQ, kv_full, q_full, do_full, qdo_empty, desc_dq, desc_dk, desc_dv,
                    M, Delta, DK, DV, sm_scale, N_PAD, m_base, k_row, kv_y, k_x, len_q, len_k, q_start, per_head,
                    t_lo, t_hi, out_stride, part_y, WIN_LEFT, WIN_RIGHT, N_SINK, W: tl.constexpr,
                    HEAD_DIM: tl.constexpr,
                    COLS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, NUM_STAGES: tl.constexpr,
                    CAUSAL: tl.constexpr, EVEN_N: tl.constexpr, DQ: tl.constexpr, LOCAL: tl.constexpr,
                    SPLIT: tl.constexpr):
    dtype, qk_scale, k_all, v_all, dv, dk = _column_split_start(desc_dk, sm_scale, bK, bV, kv_full, BLOCK_N, COLS,
                                                                 COLS)
    k_cols = txl.smem_slice(k_all, W * COLS, COLS, dim=1)  # this consumer's columns of K
    s = 0
    phase = 0
    for t in range(t_lo, t_hi):
        m_y, q_s, do_s, p_s, ds_s = _column_split_step(
            t, s, phase, bQ, bdO, bP, bdS, k_all, v_all, q_full, do_full, M, Delta, qk_scale, m_base, N_PAD, k_row,
            q_start, per_head, len_q, len_k, WIN_LEFT, WIN_RIGHT, N_SINK, dtype, W, BLOCK_M, BLOCK_N, CAUSAL, EVEN_N,
            LOCAL)
        # This consumer's columns of dV, dK and dQ.
        dv = tl.dot(p_s, txl.smem_slice(do_s, W * COLS, COLS, dim=1), dv)
        dk = tl.dot(ds_s, txl.smem_slice(q_s, W * COLS, COLS, dim=1), dk)
        if DQ:
            dq = tl.dot(ds_s.T, k_cols)
            txl.dot_wait(0)
            txl.mbar_arrive(txl.get_buffer(qdo_empty, s))
            dq_s = txl.get_buffer(bdQ, W)
            txl.tma_store_wait(0)
            txl.smem_store(dq_s, dq)
            txl.tma_store(dq_s, desc_dq, [m_y, W * COLS], reduce="add")
        else:
            txl.dot_wait(0)
            txl.mbar_arrive(txl.get_buffer(qdo_empty, s))
        s, phase = _advance(s, phase, NUM_STAGES)

    # Epilogue: once both consumers' last GEMMs have retired (consumer 0's S^T reads all of K, consumer 1's dP^T
    # all of V), dV and dK of this consumer's columns go out through its column block of V's and K's buffers.
    if SPLIT > 1:
        # This CTA's share of the key block's walk: f32 partials from registers (see flash_attention_bwd).
        _store_partial(dv, DV, part_y, W * COLS, BLOCK_N, COLS, HEAD_DIM)
        _store_partial(dk * sm_scale, DK, part_y, W * COLS, BLOCK_N, COLS, HEAD_DIM)
    else:
        txl.bar_wait(10, 256)
        n_valid = len_k - k_row
        _store_rows(dv.to(dtype), txl.smem_slice(v_all, W * COLS, COLS, dim=1), desc_dv, DV, kv_y, k_x + W * COLS,
                    out_stride, n_valid, BLOCK_N, COLS, EVEN_N)
        _store_rows((dk * sm_scale).to(dtype), txl.smem_slice(k_all, W * COLS, COLS, dim=1), desc_dk, DK, kv_y,
                    k_x + W * COLS, out_stride, n_valid, BLOCK_N, COLS, EVEN_N)
    txl.tma_store_wait(0)


@txl.jit
def _column_split_start(desc_dk, sm_scale, bK, bV, kv_full, BLOCK_N: tl.constexpr, VC: tl.constexpr,
                        KC: tl.constexpr):
    # A column-split consumer's start: the output dtype, the base-2 softmax scale, K and V of the key block once
    # they have landed, and its dV (VC columns) and dK (KC columns) accumulators, zero.
    dtype = desc_dk.dtype
    qk_scale = sm_scale * 1.44269504
    k_all = txl.get_buffer(bK, 0)
    v_all = txl.get_buffer(bV, 0)
    txl.mbar_wait(txl.get_buffer(kv_full, 0), 0)
    dv = tl.zeros([BLOCK_N, VC], tl.float32)
    dk = tl.zeros([BLOCK_N, KC], tl.float32)
    return dtype, qk_scale, k_all, v_all, dv, dk


@txl.jit
def _column_split_step(t, s, phase, bQ, bdO, bP, bdS, k_all, v_all, q_full, do_full, M, Delta, qk_scale, m_base,
                       N_PAD, k_row, q_start, per_head, len_q, len_k, WIN_LEFT, WIN_RIGHT, N_SINK, dtype,
                       W: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr,
                       EVEN_N: tl.constexpr, LOCAL: tl.constexpr):
    # Step t (ring stage s) of a CTA whose consumers split the columns, not the keys (head dim 256, asymmetric
    # head dims): consumer 0 puts S^T = K Q^T's P^T (masked) into the parity's P^T tile, consumer 1 dP^T = V dO^T's
    # dS^T = P^T (dP^T - Delta) into its dS^T tile; named barriers 8 (P^T written) and 9 (dS^T written) order the
    # hand-over. On return both tiles are written and both consumers have waited for Q_s and dO_s. Returns the
    # block's first row of M, Delta and the dQ accumulator, and the tiles Q_s, dO_s, P^T, dS^T.
    g = t // per_head
    q0 = (q_start + t - g * per_head) * BLOCK_M
    m_y = m_base + g * N_PAD + q0  # the block's rows of M, Delta and the dQ accumulator
    cols = m_y + tl.arange(0, BLOCK_M)
    q_s = txl.get_buffer(bQ, s)
    do_s = txl.get_buffer(bdO, s)
    p_s = txl.get_buffer(bP, t % 2)
    ds_s = txl.get_buffer(bdS, t % 2)
    if W == 0:
        # S^T and P^T (masked) into shared memory for both consumers.
        txl.mbar_wait(txl.get_buffer(q_full, s), phase)
        sT = tl.dot(k_all, q_s.T)
        txl.dot_wait(0)
        m = tl.load(M + cols)
        pT = tl.exp2(sT * qk_scale - m[None, :])
        pT = _mask_tile(pT, k_row, q0, len_q, len_k, WIN_LEFT, WIN_RIGHT, N_SINK, BLOCK_N, BLOCK_M, CAUSAL, EVEN_N,
                        LOCAL)
        txl.smem_store(p_s, pT.to(dtype))
        txl.fence_proxy_async()
        txl.bar_wait(8, 256)  # P^T written
        txl.mbar_wait(txl.get_buffer(do_full, s), phase)
        txl.bar_wait(9, 256)  # dS^T written
    else:
        # dP^T, then dS^T = P^T (dP^T - Delta) with consumer 0's P^T.
        txl.mbar_wait(txl.get_buffer(do_full, s), phase)
        dpT = tl.dot(v_all, do_s.T)
        txl.dot_wait(0)
        delta = tl.load(Delta + cols)
        txl.bar_wait(8, 256)  # P^T written
        pT = txl.smem_load(p_s).to(tl.float32)
        txl.smem_store(ds_s, (pT * (dpT - delta[None, :])).to(dtype))
        txl.fence_proxy_async()
        txl.mbar_wait(txl.get_buffer(q_full, s), phase)
        txl.bar_wait(9, 256)  # dS^T written
    return m_y, q_s, do_s, p_s, ds_s


@txl.jit
def _add_dq(dq, dq_s, desc_dq, y, x):
    # dq (f32) into the accumulator's box at (y, x) with one TMA reduce-add, staged through dq_s once the
    # previous reduce-add from it has read it.
    txl.tma_store_wait(0)
    txl.smem_store(dq_s, dq)
    txl.tma_store(dq_s, desc_dq, [y, x], reduce="add")


@txl.jit
def _store_rows(out, tile, desc, OUT, y, x, stride, n_valid, ROWS: tl.constexpr, COLS: tl.constexpr,
                EVEN_N: tl.constexpr):
    # ROWS x COLS at row y, columns x.. of OUT (rows stride elements apart): through `tile` and one TMA store, or,
    # when fewer than ROWS rows are real (the rows after them belong to the next head or sequence), a masked store
    # of the real ones.
    if EVEN_N:
        txl.smem_store(tile, out)
        txl.tma_store(tile, desc, [y, x])
    else:
        if n_valid >= ROWS:
            txl.smem_store(tile, out)
            txl.tma_store(tile, desc, [y, x])
        else:
            rows = tl.arange(0, ROWS)
            cols = tl.arange(0, COLS)
            base = OUT + y.to(tl.int64) * stride + x
            tl.store(base + rows[:, None] * stride + cols[None, :], out, mask=rows[:, None] < n_valid)


def signature(head_dim=128, block_m=64, block_n=128, dtype="bf16", split=1):
    # hd256 (flash_attention_bwd_hd256): 64 keys per CTA in one box, dQ/dK/dV by column halves.
    half = 64 if head_dim == 256 else block_n // 2
    dq_cols = head_dim // 2 if head_dim > 64 else head_dim
    out_cols = head_dim // 2 if head_dim == 256 else head_dim
    return {
        "desc_q": "tensordesc<%s[%d, %d]>" % (dtype, block_m, head_dim),
        "desc_k": "tensordesc<%s[%d, %d]>" % (dtype, half, head_dim),
        "desc_v": "tensordesc<%s[%d, %d]>" % (dtype, half, head_dim),
        "desc_do": "tensordesc<%s[%d, %d]>" % (dtype, block_m, head_dim),
        "desc_dq": "tensordesc<fp32[%d, %d]>" % (block_m, dq_cols),
        "desc_dk": "tensordesc<%s[%d, %d]>" % (dtype, half, out_cols),
        "desc_dv": "tensordesc<%s[%d, %d]>" % (dtype, half, out_cols),
        "M": "*fp32", "Delta": "*fp32", "sm_scale": "fp32",
        # SPLIT > 1: DK and DV are the f32 partial buffers (attention_bwd_dkv_combine sums them)
        "DK": "*%s" % ("fp32" if split > 1 else dtype), "DV": "*%s" % ("fp32" if split > 1 else dtype),
        "N_CTX": "i32", "N_PAD": "i32", "CU_Q": "*i32", "CU_K": "*i32", "NUM_HEADS": "i32", "WIN_LEFT": "i32",
        "WIN_RIGHT": "i32", "N_SINK": "i32",
    }


def constexprs(head_dim=128, causal=False, block_m=64, block_n=128, num_stages=2, even_n=True, h_q_per_kv=1,
               consumer_regs=240, varlen=False, window=False, split=1):
    return {"HEAD_DIM": head_dim, "BLOCK_M": block_m, "BLOCK_N": block_n, "NUM_STAGES": num_stages,
            "CAUSAL": causal, "EVEN_N": even_n, "H_Q_PER_KV": h_q_per_kv, "CONSUMER_REGS": consumer_regs,
            "VARLEN": varlen, "WINDOW": window, "SPLIT": split}


SIGNATURE = signature()
CONSTEXPRS = constexprs()
OPTIONS = {"num_warps": 4, "num_warpgroups": 3}
