"""Warp-specialized flash attention forward, the plain form (TXL's ``_attn_fwd_ws_tma_txl1``, "hopper_txl_ws_naive",
docs/txl-reference.md §4a) and, with PINGPONG, the ping-pong form (``_attn_fwd_ws_tma_txl2``,
"hopper_txl_ws_pingpong"): a TMA producer warpgroup and two consumer warpgroups, no overlap inside a warpgroup (that is ``flash_attention.py``,
the FA3 form). Same arguments, layouts and semantics as ``flash_attention.py``:
bf16/fp16, HEAD_DIM 64/128/256, CAUSAL, GQA (H_Q_PER_KV), padded N (EVEN_N=False masks keys >= N_CTX), M = base-2
log-sum-exp.

Per consumer and KV tile j: wait K_j; S = Q K_j^T; dot_wait 0; release K_j; softmax; O *= alpha; wait V_j;
O += P V_j; dot_wait 0; release V_j.
PINGPONG: named barriers 8/9 (256 threads) make the two consumers take turns issuing their S GEMMs, one running
softmax while the other's GEMM is on the tensor cores: each waits on its own barrier (WG1: 8, WG2: 9) before S and
arrives on the other's once S is issued. WG2 pre-arrives on 8 so WG1 goes first; after the loop WG1 waits on 8 once
more to consume WG2's last arrival (8: n + 1 completions, 9: n).
"""

import txl
import txl.language as tl

from txl.kernels import _attention_common as _common
from txl.kernels._attention_common import (_advance, _epilogue, _kv_ring_barriers, _pingpong_pass, _pingpong_wait,
                                           _produce, _program_tile, _softmax_init, _softmax_pv)


@txl.jit(do_not_specialize=["N_CTX", "N_PAD"])
def flash_attention_ws(desc_q, desc_k, desc_v, desc_o, M, O, sm_scale, N_CTX, N_PAD,
                       HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       NUM_STAGES: tl.constexpr, CAUSAL: tl.constexpr, EVEN_N: tl.constexpr,
                       H_Q_PER_KV: tl.constexpr, PINGPONG: tl.constexpr = False):
    tl.static_assert(BLOCK_M == 128, "two consumer warpgroups of 64 query rows")
    tl.static_assert(not CAUSAL or BLOCK_M % BLOCK_N == 0, "causal: BLOCK_M must be a multiple of BLOCK_N")
    HALF_M: tl.constexpr = BLOCK_M // 2
    Q_BYTES: tl.constexpr = HALF_M * HEAD_DIM * 2
    KV_BYTES: tl.constexpr = BLOCK_N * HEAD_DIM * 2
    dtype = desc_q.dtype

    off_hz, off_y, off_kv, q_rows, qo_y, n_tiles = _program_tile(N_CTX, BLOCK_M, BLOCK_N, CAUSAL, H_Q_PER_KV)

    bQ = txl.smem_alloc([HALF_M, HEAD_DIM], dtype, num_stages=2)
    bK = txl.smem_alloc([BLOCK_N, HEAD_DIM], dtype, num_stages=NUM_STAGES)
    bV = txl.smem_alloc([BLOCK_N, HEAD_DIM], dtype, num_stages=NUM_STAGES)
    q_full = txl.mbar_alloc(1, num_stages=2)
    k_full, v_full, k_empty, v_empty = _kv_ring_barriers(NUM_STAGES)

    # ---- WG0: TMA producer.
    if txl.is_warpgroup([0]):
        txl.reg_dealloc(24)
        _produce(bQ, bK, bV, q_full, k_full, v_full, k_empty, v_empty, desc_q, desc_k, desc_v, qo_y, off_kv, n_tiles,
                 HALF_M, BLOCK_N, NUM_STAGES, Q_BYTES, KV_BYTES)

    # ---- WG1, WG2: consumers.
    if txl.is_warpgroup([1, 2]):
        txl.reg_alloc(240)
        if txl.is_warpgroup([1]):
            qi = 0
            row0 = 0
        else:
            if PINGPONG:
                txl.bar_arrive(8, 256)  # WG2 opens the ping-pong: WG1 issues first
            qi = 1
            row0 = HALF_M
        q_row = q_rows + row0
        q = txl.get_buffer(bQ, qi)
        txl.mbar_wait(txl.get_buffer(q_full, qi), 0)
        qk_scale = sm_scale * 1.44269504

        acc, m_i, l_i = _softmax_init(HALF_M, HEAD_DIM)
        s = 0
        phase = 0
        for j in range(0, n_tiles):
            txl.mbar_wait(txl.get_buffer(k_full, s), phase)
            if PINGPONG:
                _pingpong_wait()  # this warpgroup's turn on the tensor cores
            qk = tl.dot(q, txl.get_buffer(bK, s).T)
            if PINGPONG:
                _pingpong_pass()  # S issued: the other warpgroup may issue its own
            txl.dot_wait(0)
            txl.mbar_arrive(txl.get_buffer(k_empty, s))
            l_i, acc, m_i = _softmax_pv(qk, acc, m_i, l_i, qk_scale, j, n_tiles, q_row, N_CTX, bV, v_full, s, phase,
                                        dtype, HALF_M, BLOCK_N, CAUSAL, EVEN_N)
            txl.mbar_arrive(txl.get_buffer(v_empty, s))
            s, phase = _advance(s, phase, NUM_STAGES)
        if PINGPONG:
            if txl.is_warpgroup([1]):
                txl.bar_wait(8, 256)  # consume WG2's last arrival on barrier 8

        _epilogue(acc, m_i, l_i, M, off_hz * N_PAD + q_row, q, desc_o, qo_y + row0, 0, O, HEAD_DIM, N_CTX - q_row,
                  HALF_M, HEAD_DIM, EVEN_N)


def signature(head_dim=128, block_m=128, block_n=128, dtype="bf16"):
    return _common.signature(head_dim, block_m // 2, block_n, dtype)


def constexprs(head_dim=128, causal=False, block_m=128, block_n=128, num_stages=2, even_n=True, h_q_per_kv=1):
    return _common.constexprs(head_dim, causal, block_m, block_n, num_stages, even_n, h_q_per_kv)


SIGNATURE = signature()
CONSTEXPRS = constexprs()
OPTIONS = {"num_warps": 4, "num_warpgroups": 3}
