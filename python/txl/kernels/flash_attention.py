"""FA3-style flash attention forward for Hopper (TXL's ``_attn_fwd_ws_tma_txl3``, REFERENCE-TXL §4a), written like
examples/flash_attention_fwd_sm90.mlir (and its causal twin): O = softmax(Q K^T * sm_scale) V per (batch, head),
bf16 or fp16 in/out (the descriptors' element type), f32 softmax and accumulation, plus M = m + log2(l) per query
row (base 2).

Q, O are (B * H * N_PAD, HEAD_DIM) row-major tensors behind TMA descriptors, K, V (B * H_KV * N_PAD, HEAD_DIM)
with H = H_KV * H_Q_PER_KV (GQA: query head off_hz reads kv head off_hz // H_Q_PER_KV); M is (B * H, N_PAD) f32.
N_PAD is a positive multiple of BLOCK_M and BLOCK_N (the API pads with zero rows); N_CTX <= N_PAD is the real
sequence length: with EVEN_N=False the last KV tile masks keys >= N_CTX, and query rows >= N_CTX compute on zeros
(the API slices them away).

Grid (N_PAD / BLOCK_M, B * H); num_warps=4, num_warpgroups=3:
  WG0       producer (setmaxnreg.dec 24): TMA-loads the two Q halves once, then streams K and V through
            NUM_STAGES-deep rings guarded by full (count 1 + bytes) / empty (count 256) mbarriers.
  WG1, WG2  consumers (setmaxnreg.inc 240), BLOCK_M / 2 query rows each. FA3 overlap: the first S = Q K^T and
            its softmax are peeled; each iteration issues S_j and O += P_{j-1} V_{j-1} back to back, waits for S_j
            only (dot_wait 1), runs softmax on it while the PV wgmma runs, then dot_wait 0. Named barriers 8/9
            (256 threads) make the two consumers take turns on the tensor cores (ping-pong); WG2 pre-arrives on 8
            (FA3's form). S * scale - m is one fma, exp2 is the flush-to-zero ex2 (tl.exp2 lowers with `afn`),
            and the epilogue takes one reciprocal per row.
  The O tile is staged in the consumer's own Q half (Q is dead after its last S GEMM), which keeps shared memory
  at Q + NUM_STAGES * (K + V): 192 KB for HEAD_DIM 128 with 3 stages plus Q, 192 KB for HEAD_DIM 256 with
  BLOCK_N 64 and 2 stages.
CAUSAL: a block visits KV tiles 0 .. (start_m + 1) * BLOCK_M / BLOCK_N - 1 only, masks the tiles that reach the
diagonal, and blocks are scheduled heaviest first.
"""

import txl
import txl.language as tl


from txl.kernels import _attention_common as _common
from txl.kernels._attention_common import _advance, _epilogue, _mask_tile, _produce, _softmax_step


@txl.jit(do_not_specialize=["N_CTX", "N_PAD"])
def flash_attention(desc_q, desc_k, desc_v, desc_o, M, sm_scale, N_CTX, N_PAD,
                    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    NUM_STAGES: tl.constexpr, CAUSAL: tl.constexpr, EVEN_N: tl.constexpr,
                    H_Q_PER_KV: tl.constexpr):
    tl.static_assert(BLOCK_M == 128, "two consumer warpgroups of 64 query rows")
    tl.static_assert(not CAUSAL or BLOCK_M % BLOCK_N == 0, "causal: BLOCK_M must be a multiple of BLOCK_N")
    HALF_M: tl.constexpr = BLOCK_M // 2
    Q_BYTES: tl.constexpr = HALF_M * HEAD_DIM * 2  # bf16 / fp16
    KV_BYTES: tl.constexpr = BLOCK_N * HEAD_DIM * 2
    dtype = desc_q.dtype

    if CAUSAL:
        start_m = tl.num_programs(0) - 1 - tl.program_id(0)  # heaviest blocks (most KV tiles) first
    else:
        start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_y = off_hz * N_PAD  # first row of this (batch, head) in Q, O, M
    off_kv = (off_hz // H_Q_PER_KV) * N_PAD  # first row of its kv head in K, V
    q_rows = start_m * BLOCK_M
    qo_y = off_y + q_rows
    if CAUSAL:
        n_tiles = (q_rows + BLOCK_M) // BLOCK_N  # KV tiles left of and on the diagonal
    else:
        n_tiles = tl.cdiv(N_CTX, BLOCK_N)

    bQ = txl.smem_alloc([HALF_M, HEAD_DIM], dtype, num_stages=2)  # [0]: WG1's rows, [1]: WG2's; then their O
    bK = txl.smem_alloc([BLOCK_N, HEAD_DIM], dtype, num_stages=NUM_STAGES)
    bV = txl.smem_alloc([BLOCK_N, HEAD_DIM], dtype, num_stages=NUM_STAGES)
    q_full = txl.mbar_alloc(1, num_stages=2)
    k_full = txl.mbar_alloc(1, num_stages=NUM_STAGES)
    v_full = txl.mbar_alloc(1, num_stages=NUM_STAGES)
    k_empty = txl.mbar_alloc(256, num_stages=NUM_STAGES)
    v_empty = txl.mbar_alloc(256, num_stages=NUM_STAGES)

    # ---- WG0: TMA producer.
    if txl.is_warpgroup([0]):
        txl.reg_dealloc(24)
        _produce(bQ, bK, bV, q_full, k_full, v_full, k_empty, v_empty, desc_q, desc_k, desc_v, qo_y, off_kv, n_tiles,
                 HALF_M, BLOCK_N, NUM_STAGES, Q_BYTES, KV_BYTES)

    # ---- WG1, WG2: consumers, HALF_M query rows each.
    if txl.is_warpgroup([1, 2]):
        txl.reg_alloc(240)
        if txl.is_warpgroup([1]):
            qi = 0
            row0 = 0
        else:
            txl.bar_arrive(8, 256)  # WG2 opens the ping-pong: WG1 issues first (FA3's form)
            qi = 1
            row0 = HALF_M
        q_row = q_rows + row0  # first query row of this warpgroup within the head
        q = txl.get_buffer(bQ, qi)
        txl.mbar_wait(txl.get_buffer(q_full, qi), 0)
        qk_scale = sm_scale * 1.44269504  # exp(x * sm_scale) = exp2(x * sm_scale * log2(e))

        # Peeled tile 0 (K stage 0, parity 0): S0 and its softmax.
        txl.mbar_wait(txl.get_buffer(k_full, 0), 0)
        qk = tl.dot(q, txl.get_buffer(bK, 0).T)
        txl.dot_wait(0)
        txl.mbar_arrive(txl.get_buffer(k_empty, 0))
        if CAUSAL or not EVEN_N:
            qk = _mask_tile(qk, 0, n_tiles, q_row, N_CTX, HALF_M, BLOCK_N, CAUSAL, EVEN_N)
        m_i = tl.max(qk, 1) * qk_scale
        p = tl.exp2(tl.fma(qk, qk_scale, -m_i[:, None]))
        l_i = tl.sum(p, 1)
        p_lo = p.to(dtype)

        # Main loop, tiles j = 1 .. n-1: K of tile j, V of tile j - 1.
        acc = tl.zeros([HALF_M, HEAD_DIM], tl.float32)
        sk = 1 % NUM_STAGES
        phk = 1 if NUM_STAGES == 1 else 0
        sv = 0
        phv = 0
        for j in range(1, n_tiles):
            txl.mbar_wait(txl.get_buffer(k_full, sk), phk)
            if txl.is_warpgroup([1]):  # wait for this warpgroup's turn on the tensor cores
                txl.bar_wait(8, 256)
            else:
                txl.bar_wait(9, 256)
            qk = tl.dot(q, txl.get_buffer(bK, sk).T)
            txl.mbar_wait(txl.get_buffer(v_full, sv), phv)
            acc = tl.dot(p_lo, txl.get_buffer(bV, sv), acc)
            txl.dot_wait(1)  # S_j retired, PV may still run
            txl.mbar_arrive(txl.get_buffer(k_empty, sk))
            if txl.is_warpgroup([1]):
                txl.bar_arrive(9, 256)
            else:
                txl.bar_arrive(8, 256)
            if CAUSAL or not EVEN_N:
                qk = _mask_tile(qk, j, n_tiles, q_row, N_CTX, HALF_M, BLOCK_N, CAUSAL, EVEN_N)
            # Online softmax of S_j while the PV wgmma runs.
            p, m_new, l_i, alpha = _softmax_step(qk, m_i, l_i, qk_scale)
            p_lo = p.to(dtype)
            txl.dot_wait(0)  # PV of tile j - 1 retired: V_{j-1} can be refilled
            txl.mbar_arrive(txl.get_buffer(v_empty, sv))
            acc = acc * alpha[:, None]
            m_i = m_new
            sk, phk = _advance(sk, phk, NUM_STAGES)
            sv, phv = _advance(sv, phv, NUM_STAGES)

        # Last PV. Nobody waits for this V stage to be released.
        txl.mbar_wait(txl.get_buffer(v_full, sv), phv)
        acc = tl.dot(p_lo, txl.get_buffer(bV, sv), acc)
        txl.dot_wait(0)
        if txl.is_warpgroup([1]):
            txl.bar_wait(8, 256)  # consume WG2's last arrival on barrier 8

        # Epilogue: O / l (one reciprocal per row), M = m + log2(l).
        _epilogue(acc, m_i, l_i, M, off_y, q_row, q, desc_o, qo_y + row0, HALF_M)


def signature(head_dim=128, block_m=128, block_n=128, dtype="bf16"):
    return _common.signature(head_dim, block_m // 2, block_n, dtype)


def constexprs(head_dim=128, causal=False, block_m=128, block_n=128, num_stages=2, even_n=True, h_q_per_kv=1):
    return _common.constexprs(head_dim, causal, block_m, block_n, num_stages, even_n, h_q_per_kv)


SIGNATURE = signature()
CONSTEXPRS = constexprs()
OPTIONS = {"num_warps": 4, "num_warpgroups": 3}
