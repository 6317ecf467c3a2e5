"""FA3-style flash attention forward for Hopper (TXL's ``_attn_fwd_ws_tma_txl3``, docs/txl-reference.md §4a), written
like
examples/flash_attention_fwd_sm90.mlir (and its causal twin): O = softmax(Q K^T * sm_scale) V per (batch, head),
bf16 or fp16 in/out (the descriptors' element type), f32 softmax and accumulation, plus M = m + log2(l) per query
row (base 2).

Q, O are (B * H * N_PAD, HEAD_DIM) row-major tensors behind TMA descriptors, K, V (B * H_KV * N_PAD, HEAD_DIM)
with H = H_KV * H_Q_PER_KV (GQA: query head off_hz reads kv head off_hz // H_Q_PER_KV); M is (B * H, N_PAD) f32.
N_PAD is a positive multiple of BLOCK_M and BLOCK_N (the API pads with zero rows); N_CTX <= N_PAD is the real
sequence length: with EVEN_N=False the last KV tile masks keys >= N_CTX, and query rows >= N_CTX compute on zeros
(the API slices them away). BH = batch * heads.

Work is split in tiles (query block of BLOCK_M rows, head), query block fastest; a CTA runs tiles
pid, pid + #CTAs, ... where pid = program_id(0) + program_id(1) * num_programs(0). Grid (N_PAD / BLOCK_M, BH): one
tile per CTA. PERSISTENT grid (min(#SMs, tiles), 1): one CTA per SM walks over tiles, so the producer loads the
next tile's Q and K/V while the consumers finish the previous one (its last PV and epilogue).
num_warps=4, num_warpgroups=3:
  WG0       producer (setmaxnreg.dec to PRODUCER_REGS, 24 by default): per tile, TMA-loads the two Q halves once the consumers released them
            (q_empty, 128 arrivals each), then streams K and V through NUM_STAGES-deep rings guarded by full
            (count 1 + bytes) / empty (count 256) mbarriers; the ring position carries over from tile to tile.
  WG1, WG2  consumers (setmaxnreg.inc to CONSUMER_REGS, 240 by default), BLOCK_M / 2 query rows each. FA3 overlap: the first S = Q K^T and
            its softmax are peeled; each iteration issues S_j and O += P_{j-1} V_{j-1} back to back, waits for S_j
            only (dot_wait 1), runs softmax on it while the PV wgmma runs, then dot_wait 0. Named barriers 8/9
            (256 threads) make the two consumers take turns on the tensor cores (ping-pong): one token passed back and
            forth over all tiles of the CTA (FA3's form): WG2 pre-arrives on 8 once, WG1 consumes the last
            arrival after its last tile. S *
            scale - m is one fma, exp2 is the flush-to-zero ex2 (tl.exp2 lowers with `afn`), and the epilogue takes
            one reciprocal per row. The last V stage of a tile is released too (the next tile refills it).
  O is staged through shared memory for its TMA store: in the consumer's own Q half when not PERSISTENT (Q is dead
  after its last S GEMM; this keeps shared memory at Q + NUM_STAGES * (K + V), so HEAD_DIM 128 fits 3 stages), in
  separate buffers when PERSISTENT (the next tile's Q may already be landing) or when a head dim is not a multiple
  of 64 (O's swizzle could differ from Q's).
HEAD_DIM_V (> 0, <= HEAD_DIM, a power of two): V's and O's head dim when it differs from Q's and K's (asymmetric
head dims, DeepSeek-V3's 192 / 128): V tiles, the PV GEMM's N, the O accumulator and its tile are HEAD_DIM_V wide.
SINK_LOGITS (a (NUM_HEADS,) f32 pointer, or None): learnable attention sinks, one logit per query head folded into
each row's m and l before the epilogue (_fold_sink), so O and M include it; NUM_HEADS is then the query heads of a
dense launch too.
CAUSAL (also PERSISTENT: its tile loop spilled 108 bytes at HEAD_DIM 128 until smem_store stopped LLVM from
hoisting the epilogue's addresses out of the loop): a tile visits KV
tiles 0 .. (start_m + 1) * BLOCK_M / BLOCK_N - 1 only, masks the tiles that reach the diagonal, and query blocks are
taken heaviest first.
"""

import txl
import txl.language as tl

from txl.kernels import _attention_common as _common
from txl.kernels._attention_common import (_advance, _consumer_half, _epilogue, _fold_sink, _kv_ring_barriers, _kv_tile,
                                           _local_range, _mask_local, _mask_tile, _pingpong_pass, _pingpong_wait,
                                           _retire_pv, _seq, _seq_v, _softmax_step, _stream_kv)


@txl.jit
def _tile(t, n_m, N_CTX, CU_Q, CU_K, NUM_HEADS, WIN_LEFT, WIN_RIGHT, N_SINK, HEAD_DIM: tl.constexpr,
          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr, H_Q_PER_KV: tl.constexpr,
          VARLEN: tl.constexpr, LOCAL: tl.constexpr):
    # Tile t -> (head, query block, KV visits, where the sequence lives (_seq), the local-mask visit map (ns, lo)).
    # Causal: query blocks heaviest first, KV tiles up to the diagonal. LOCAL: the tiles _local_range gives.
    off_hz = t // n_m
    q_tok, q_x, k_tok, k_x, len_q, len_k = _seq(off_hz, N_CTX, CU_Q, CU_K, NUM_HEADS, HEAD_DIM, H_Q_PER_KV, VARLEN)
    ns = 0
    lo = 0
    if LOCAL:
        start_m = t % n_m
        ns, lo, n_tiles = _local_range(start_m * BLOCK_M, len_q, len_k, WIN_LEFT, WIN_RIGHT, N_SINK, BLOCK_M,
                                       BLOCK_N)
    elif CAUSAL:
        start_m = n_m - 1 - t % n_m
        n_tiles = (start_m * BLOCK_M + BLOCK_M) // BLOCK_N
    else:
        start_m = t % n_m
        n_tiles = tl.cdiv(N_CTX, BLOCK_N)
    return off_hz, start_m, n_tiles, q_tok, q_x, k_tok, k_x, len_q, len_k, ns, lo


@txl.jit(do_not_specialize=["N_CTX", "N_PAD", "BH", "NUM_HEADS", "WIN_LEFT", "WIN_RIGHT", "N_SINK"])
def flash_attention(desc_q, desc_k, desc_v, desc_o, M, O, sm_scale, N_CTX, N_PAD, BH, CU_Q, CU_K, NUM_HEADS,
                    WIN_LEFT, WIN_RIGHT, N_SINK,
                    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    NUM_STAGES: tl.constexpr, CAUSAL: tl.constexpr, EVEN_N: tl.constexpr,
                    H_Q_PER_KV: tl.constexpr, PERSISTENT: tl.constexpr = False,
                    CONSUMER_REGS: tl.constexpr = 240, VARLEN: tl.constexpr = False, WINDOW: tl.constexpr = False,
                    HEAD_DIM_V: tl.constexpr = 0, SINK_LOGITS=None):
    tl.static_assert(BLOCK_M == 128, "two consumer warpgroups of 64 query rows")
    # V's and O's head dim: HEAD_DIM_V when given (> 0), else Q's and K's (HEAD_DIM).
    DV: tl.constexpr = HEAD_DIM_V if HEAD_DIM_V > 0 else HEAD_DIM
    tl.static_assert(DV <= HEAD_DIM, "V's head dim must not exceed Q's and K's")
    # O is staged for its TMA store in the consumer's Q tile (its first DV columns) when one CTA runs one tile and
    # both head dims are whole 128-byte swizzle blocks (multiples of 64), so that O's columns are whole blocks of
    # Q's with Q's swizzle; otherwise (PERSISTENT: the next tile's Q may be landing; other head dims: O's swizzle
    # may differ from Q's) in buffers of its own.
    O_IN_Q: tl.constexpr = not PERSISTENT and HEAD_DIM % 64 == 0 and DV % 64 == 0
    # Local masks (WINDOW: sliding window and sink tokens; VARLEN: packed sequences of their own lengths) take the
    # general path: causal is then folded into WIN_RIGHT by the caller, one CTA per tile.
    LOCAL: tl.constexpr = VARLEN or WINDOW
    tl.static_assert(not LOCAL or not (CAUSAL or PERSISTENT), "local masks: causal is WIN_RIGHT = 0, no PERSISTENT")
    tl.static_assert(not CAUSAL or BLOCK_M % BLOCK_N == 0, "causal: BLOCK_M must be a multiple of BLOCK_N")
    HALF_M: tl.constexpr = BLOCK_M // 2
    # setmaxnreg budgets: 128 producer threads + 256 consumer threads share 504 registers each of the 512 a
    # thread of the 64K file could have at 128 threads (24/240 as TXL, or 40/232).
    PRODUCER_REGS: tl.constexpr = 504 - 2 * CONSUMER_REGS
    Q_BYTES: tl.constexpr = HALF_M * HEAD_DIM * 2
    KV_BYTES: tl.constexpr = BLOCK_N * HEAD_DIM * 2
    V_BYTES: tl.constexpr = BLOCK_N * DV * 2 if DV != HEAD_DIM else 0  # 0: V is shaped as K
    dtype = desc_q.dtype

    if VARLEN:
        n_m = tl.cdiv(N_CTX, BLOCK_M)  # query blocks of the longest sequence (N_PAD is M's row length)
    else:
        n_m = N_PAD // BLOCK_M  # query blocks per head
    num_tiles = n_m * BH
    first = tl.program_id(0) + tl.program_id(1) * tl.num_programs(0)
    step = tl.num_programs(0) * tl.num_programs(1)

    bQ = txl.smem_alloc([HALF_M, HEAD_DIM], dtype, num_stages=2)  # [0]: WG1's rows, [1]: WG2's
    if O_IN_Q:
        bO = bQ
    else:
        bO = txl.smem_alloc([HALF_M, DV], dtype, num_stages=2)
    bK = txl.smem_alloc([BLOCK_N, HEAD_DIM], dtype, num_stages=NUM_STAGES)
    bV = txl.smem_alloc([BLOCK_N, DV], dtype, num_stages=NUM_STAGES)
    q_full = txl.mbar_alloc(1, num_stages=2)
    q_empty = txl.mbar_alloc(128, num_stages=2)
    k_full, v_full, k_empty, v_empty = _kv_ring_barriers(NUM_STAGES)

    # ---- WG0: TMA producer over every tile of this CTA. The first pass over the rings (and q_empty) does not
    # block: parities start at 1.
    if txl.is_warpgroup([0]):
        txl.reg_dealloc(PRODUCER_REGS)
        if PERSISTENT:
            qphase, s, phase = 1, 0, 1
            for t in range(first, num_tiles, step):
                qphase, s, phase = _producer_tile(
                    t, n_m, bQ, bK, bV, q_full, q_empty, k_full, v_full, k_empty, v_empty, desc_q, desc_k, desc_v,
                    N_CTX, CU_Q, CU_K, NUM_HEADS, WIN_LEFT, WIN_RIGHT, N_SINK, qphase, s, phase, HEAD_DIM, HALF_M,
                    BLOCK_M, BLOCK_N, NUM_STAGES, Q_BYTES, KV_BYTES, CAUSAL, H_Q_PER_KV, VARLEN, LOCAL, V_BYTES, DV)
        else:  # one tile: no loop (its loop-carried state would cost the consumers registers)
            _producer_tile(first, n_m, bQ, bK, bV, q_full, q_empty, k_full, v_full, k_empty, v_empty, desc_q, desc_k,
                           desc_v, N_CTX, CU_Q, CU_K, NUM_HEADS, WIN_LEFT, WIN_RIGHT, N_SINK, 1, 0, 1, HEAD_DIM,
                           HALF_M, BLOCK_M, BLOCK_N, NUM_STAGES, Q_BYTES, KV_BYTES, CAUSAL, H_Q_PER_KV, VARLEN,
                           LOCAL, V_BYTES, DV)

    # ---- WG1, WG2: consumers, HALF_M query rows of every tile each.
    if txl.is_warpgroup([1, 2]):
        txl.reg_alloc(CONSUMER_REGS)
        qi, row0, q = _consumer_half(bQ, HALF_M)
        o_tile = txl.get_buffer(bO, qi)
        if DV != HEAD_DIM and O_IN_Q:
            # O (HALF_M x DV) reuses the first DV columns of the Q tile: whole swizzle column blocks of it, laid
            # out as a tile of its own (docs/ARCHITECTURE.md: a swizzled tile is stored as column blocks).
            o_tile = txl.smem_slice(o_tile, 0, DV, 1)
        qk_scale = sm_scale * 1.44269504  # exp(x * sm_scale) = exp2(x * sm_scale * log2(e))
        # Ping-pong token (named barriers 8/9): WG2 hands WG1 the first turn once per CTA, not per tile, and WG1
        # takes the last hand-back after its last tile. Per tile both warpgroups pass the token the same number
        # of times (one per KV tile after the first), so it stays paired across tiles. A per-tile open/close
        # deadlocked persistent causal runs: WG2 could open tile k+1 (arrive on 8) before WG1 closed tile k (its
        # wait on 8), so barrier 8 completed on WG2's two arrivals alone and WG1 then waited forever.
        if txl.is_warpgroup([2]):
            txl.bar_arrive(8, 256)
        if PERSISTENT:
            qphase, sk, phk, sv, phv = 0, 0, 0, 0, 0  # Q parity and K/V ring positions, carried over tiles
            for t in range(first, num_tiles, step):
                qphase, sk, phk, sv, phv = _consumer_tile(
                    t, n_m, qi, row0, q, o_tile, bK, bV, q_full, q_empty, k_full, v_full, k_empty, v_empty, desc_o, M,
                    O, qk_scale, N_CTX, N_PAD, CU_Q, CU_K, NUM_HEADS, WIN_LEFT, WIN_RIGHT, N_SINK, qphase, sk, phk, sv,
                    phv, HALF_M, HEAD_DIM, BLOCK_M, BLOCK_N, NUM_STAGES, CAUSAL, EVEN_N, H_Q_PER_KV, VARLEN, LOCAL,
                    DV, SINK_LOGITS)
        else:
            _consumer_tile(first, n_m, qi, row0, q, o_tile, bK, bV, q_full, q_empty, k_full, v_full, k_empty, v_empty,
                           desc_o, M, O, qk_scale, N_CTX, N_PAD, CU_Q, CU_K, NUM_HEADS, WIN_LEFT, WIN_RIGHT, N_SINK, 0,
                           0, 0, 0, 0, HALF_M, HEAD_DIM, BLOCK_M, BLOCK_N, NUM_STAGES, CAUSAL, EVEN_N, H_Q_PER_KV,
                           VARLEN, LOCAL, DV, SINK_LOGITS)
        if txl.is_warpgroup([1]):
            txl.bar_wait(8, 256)  # consume WG2's last hand-back: the barrier is left complete at exit


@txl.jit
def _producer_tile(t, n_m, bQ, bK, bV, q_full, q_empty, k_full, v_full, k_empty, v_empty, desc_q, desc_k, desc_v,
                   N_CTX, CU_Q, CU_K, NUM_HEADS, WIN_LEFT, WIN_RIGHT, N_SINK, qphase, s, phase, HEAD_DIM: tl.constexpr,
                   HALF_M: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, NUM_STAGES: tl.constexpr,
                   Q_BYTES: tl.constexpr, KV_BYTES: tl.constexpr, CAUSAL: tl.constexpr, H_Q_PER_KV: tl.constexpr,
                   VARLEN: tl.constexpr, LOCAL: tl.constexpr, V_BYTES: tl.constexpr, DV: tl.constexpr):
    # Q halves of tile t once the consumers released them, then its K and V tiles through the rings.
    off_hz, start_m, n_tiles, q_tok, q_x, k_tok, k_x, len_q, len_k, ns, lo = _tile(
        t, n_m, N_CTX, CU_Q, CU_K, NUM_HEADS, WIN_LEFT, WIN_RIGHT, N_SINK, HEAD_DIM, BLOCK_M, BLOCK_N, CAUSAL,
        H_Q_PER_KV, VARLEN, LOCAL)
    qo_y = q_tok + start_m * BLOCK_M
    for h in tl.static_range(2):
        txl.mbar_wait(txl.get_buffer(q_empty, h), qphase)
        qb = txl.get_buffer(q_full, h)
        txl.mbar_expect(qb, Q_BYTES)
        txl.tma_load(txl.get_buffer(bQ, h), desc_q, [qo_y + h * HALF_M, q_x], qb)
    v_x = k_x
    if V_BYTES > 0:
        _, v_x = _seq_v(off_hz, NUM_HEADS, DV, H_Q_PER_KV, VARLEN)
    s, phase = _stream_kv(bK, bV, k_full, v_full, k_empty, v_empty, desc_k, desc_v, k_tok, n_tiles, s, phase,
                          BLOCK_N, NUM_STAGES, KV_BYTES, ns, lo, k_x, LOCAL, V_BYTES, v_x)
    return qphase ^ 1, s, phase


@txl.jit
def _consumer_tile(t, n_m, qi, row0, q, o_tile, bK, bV, q_full, q_empty, k_full, v_full, k_empty, v_empty, desc_o, M,
                   O, qk_scale, N_CTX, N_PAD, CU_Q, CU_K, NUM_HEADS, WIN_LEFT, WIN_RIGHT, N_SINK, qphase, sk, phk, sv,
                   phv, HALF_M: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   NUM_STAGES: tl.constexpr, CAUSAL: tl.constexpr, EVEN_N: tl.constexpr, H_Q_PER_KV: tl.constexpr,
                   VARLEN: tl.constexpr, LOCAL: tl.constexpr, DV: tl.constexpr, SINK_LOGITS):
    # One consumer warpgroup's HALF_M rows of tile t; returns the Q parity and K/V ring positions for the next.
    off_hz, start_m, n_tiles, q_tok, q_x, k_tok, k_x, len_q, len_k, ns, lo = _tile(
        t, n_m, N_CTX, CU_Q, CU_K, NUM_HEADS, WIN_LEFT, WIN_RIGHT, N_SINK, HEAD_DIM, BLOCK_M, BLOCK_N, CAUSAL,
        H_Q_PER_KV, VARLEN, LOCAL)
    q_row = start_m * BLOCK_M + row0  # first query row of this warpgroup within the head
    off = len_k - len_q  # local masks: query i lines up with key i + off (bottom-right)
    txl.mbar_wait(txl.get_buffer(q_full, qi), qphase)

    # Peeled KV tile 0: S0 and its softmax.
    txl.mbar_wait(txl.get_buffer(k_full, sk), phk)
    qk = tl.dot(q, txl.get_buffer(bK, sk).T)
    txl.dot_wait(0)
    txl.mbar_arrive(txl.get_buffer(k_empty, sk))
    if n_tiles == 1:
        txl.mbar_arrive(txl.get_buffer(q_empty, qi))  # Q's last S GEMM retired
    sk, phk = _advance(sk, phk, NUM_STAGES)
    if LOCAL:
        qk = _mask_local(qk, q_row, _kv_tile(0, ns, lo, LOCAL) * BLOCK_N, len_k, off, WIN_LEFT, WIN_RIGHT, N_SINK,
                         HALF_M, BLOCK_N)
    elif CAUSAL or not EVEN_N:
        qk = _mask_tile(qk, 0, n_tiles, q_row, N_CTX, HALF_M, BLOCK_N, CAUSAL, EVEN_N)
    m_i = tl.max(qk, 1) * qk_scale
    m_sub = m_i
    if LOCAL:  # a row that sees no key of this tile: P = 0, not NaN (see _softmax_step)
        m_sub = tl.where(m_i == float("-inf"), 0.0, m_i)
    p = tl.exp2(tl.fma(qk, qk_scale, -m_sub[:, None]))
    l_i = tl.sum(p, 1)
    p_lo = p.to(q.dtype)

    # KV tiles j = 1 .. n-1: S_j of K tile j while PV of tile j - 1 runs.
    acc = tl.zeros([HALF_M, DV], tl.float32)
    for j in range(1, n_tiles):
        txl.mbar_wait(txl.get_buffer(k_full, sk), phk)
        _pingpong_wait()  # this warpgroup's turn on the tensor cores
        qk = tl.dot(q, txl.get_buffer(bK, sk).T)
        txl.mbar_wait(txl.get_buffer(v_full, sv), phv)
        acc = tl.dot(p_lo, txl.get_buffer(bV, sv), acc)
        txl.dot_wait(1)  # S_j retired, PV may still run
        txl.mbar_arrive(txl.get_buffer(k_empty, sk))
        if j == n_tiles - 1:
            txl.mbar_arrive(txl.get_buffer(q_empty, qi))  # Q's last S GEMM retired
        _pingpong_pass()
        if LOCAL:
            qk = _mask_local(qk, q_row, _kv_tile(j, ns, lo, LOCAL) * BLOCK_N, len_k, off, WIN_LEFT, WIN_RIGHT,
                             N_SINK, HALF_M, BLOCK_N)
        elif CAUSAL or not EVEN_N:
            qk = _mask_tile(qk, j, n_tiles, q_row, N_CTX, HALF_M, BLOCK_N, CAUSAL, EVEN_N)
        # Online softmax of S_j while the PV wgmma runs.
        p, m_new, l_i, alpha = _softmax_step(qk, m_i, l_i, qk_scale, LOCAL)
        p_lo = p.to(q.dtype)
        acc, m_i, sk, phk, sv, phv = _retire_pv(acc, alpha, m_new, v_empty, sk, phk, sv, phv, NUM_STAGES)

    # Last PV; its V stage is released too (the producer refills it for the next tile).
    txl.mbar_wait(txl.get_buffer(v_full, sv), phv)
    acc = tl.dot(p_lo, txl.get_buffer(bV, sv), acc)
    txl.dot_wait(0)
    txl.mbar_arrive(txl.get_buffer(v_empty, sv))
    sv, phv = _advance(sv, phv, NUM_STAGES)
    if SINK_LOGITS is not None:  # learnable sinks: one f32 logit per query head, folded into l and m
        sink = tl.load(SINK_LOGITS + off_hz % NUM_HEADS) * 1.44269504
        acc, m_i, l_i = _fold_sink(acc, m_i, l_i, sink)
    o_x = q_x
    if DV != HEAD_DIM:
        o_x, _ = _seq_v(off_hz, NUM_HEADS, DV, H_Q_PER_KV, VARLEN)
    if VARLEN:
        # Packed (total_q, H * DV) rows; M is (H, N_PAD) over the packed tokens (flash-attn's LSE layout).
        o_stride = NUM_HEADS * DV
        m_y = (off_hz % NUM_HEADS) * N_PAD + q_tok + q_row
    else:
        o_stride = DV
        m_y = off_hz * N_PAD + q_row
    _epilogue(acc, m_i, l_i, M, m_y, o_tile, desc_o, q_tok + q_row, o_x, O, o_stride, len_q - q_row, HALF_M, DV,
              EVEN_N and not VARLEN, LOCAL, VARLEN)
    return qphase ^ 1, sk, phk, sv, phv


def signature(head_dim=128, block_m=128, block_n=128, dtype="bf16", head_dim_v=None, sink_logits=False):
    sig = dict(_common.signature(head_dim, block_m // 2, block_n, dtype, head_dim_v), BH="i32", CU_Q="*i32",
               CU_K="*i32", NUM_HEADS="i32", WIN_LEFT="i32", WIN_RIGHT="i32", N_SINK="i32")
    if sink_logits:
        sig["SINK_LOGITS"] = "*fp32"
    return sig


def constexprs(head_dim=128, causal=False, block_m=128, block_n=128, num_stages=2, even_n=True, h_q_per_kv=1,
               persistent=False, consumer_regs=240, varlen=False, window=False, head_dim_v=None, sink_logits=False):
    cx = dict(_common.constexprs(head_dim, causal, block_m, block_n, num_stages, even_n, h_q_per_kv),
              PERSISTENT=persistent, CONSUMER_REGS=consumer_regs, VARLEN=varlen, WINDOW=window)
    if head_dim_v and head_dim_v != head_dim:
        cx["HEAD_DIM_V"] = head_dim_v
    if not sink_logits:
        cx["SINK_LOGITS"] = None
    return cx


SIGNATURE = signature()
CONSTEXPRS = constexprs()
OPTIONS = {"num_warps": 4, "num_warpgroups": 3}
