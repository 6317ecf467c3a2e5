"""Flash attention forward with one warpgroup (TXL's non-warp-specialized ``_attn_fwd_tma_txl``,
docs/txl-reference.md §4a):
BLOCK_M = 64 query rows per block, K/V streamed through a NUM_STAGES-deep TMA ring with a hand-written prologue of
NUM_STAGES - 1 loads, the same warpgroup both loading and computing. Same arguments, layouts and semantics as
``flash_attention.py``: bf16/fp16, HEAD_DIM 64/128/256, CAUSAL, GQA (H_Q_PER_KV), padded N (EVEN_N=False masks
keys >= N_CTX), M = base-2 log-sum-exp. Grid (N_PAD / BLOCK_M, B * H); num_warps=4, num_warpgroups=1.

Iteration j: load tile j + NUM_STAGES - 1 into stage (j - 1) % NUM_STAGES (its last reader, PV_{j-1}, retired with
dot_wait 0 in iteration j - 1; the wgmma being warpgroup-wide, every warp has also passed its waits on that stage,
so re-arming its mbarriers cannot race a late waiter); wait K_j; S = Q K_j^T; dot_wait 0; softmax; O *= alpha;
wait V_j; O += P V_j; dot_wait 0. K and V have their own full barriers so S starts before V lands.
"""

import txl
import txl.language as tl

from txl.kernels import _attention_common as _common
from txl.kernels._attention_common import _advance, _epilogue, _program_tile, _softmax_init, _softmax_pv


@txl.jit
def _load_kv(bK, bV, k_full, v_full, desc_k, desc_v, stage, kv_y, KV_BYTES: tl.constexpr):
    kf = txl.get_buffer(k_full, stage)
    txl.mbar_expect(kf, KV_BYTES)
    txl.tma_load(txl.get_buffer(bK, stage), desc_k, [kv_y, 0], kf)
    vf = txl.get_buffer(v_full, stage)
    txl.mbar_expect(vf, KV_BYTES)
    txl.tma_load(txl.get_buffer(bV, stage), desc_v, [kv_y, 0], vf)


@txl.jit(do_not_specialize=["N_CTX", "N_PAD"])
def flash_attention_1wg(desc_q, desc_k, desc_v, desc_o, M, O, sm_scale, N_CTX, N_PAD,
                        HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        NUM_STAGES: tl.constexpr, CAUSAL: tl.constexpr, EVEN_N: tl.constexpr,
                        H_Q_PER_KV: tl.constexpr):
    tl.static_assert(BLOCK_M == 64, "one warpgroup of 64 query rows")
    tl.static_assert(NUM_STAGES >= 2, "the ring needs at least two stages")
    tl.static_assert(not CAUSAL or BLOCK_M % BLOCK_N == 0, "causal: BLOCK_M must be a multiple of BLOCK_N")
    Q_BYTES: tl.constexpr = BLOCK_M * HEAD_DIM * 2
    KV_BYTES: tl.constexpr = BLOCK_N * HEAD_DIM * 2
    dtype = desc_q.dtype

    # (its q_y unused: this kernel adds off_y + q_row where it is used, and the PTX measured is that order's)
    off_hz, off_y, off_kv, q_row, _, n_tiles = _program_tile(N_CTX, BLOCK_M, BLOCK_N, CAUSAL, H_Q_PER_KV)

    bQ = txl.smem_alloc([BLOCK_M, HEAD_DIM], dtype)  # Q, then the O staging tile
    bK = txl.smem_alloc([BLOCK_N, HEAD_DIM], dtype, num_stages=NUM_STAGES)
    bV = txl.smem_alloc([BLOCK_N, HEAD_DIM], dtype, num_stages=NUM_STAGES)
    q_full = txl.mbar_alloc(1)
    k_full = txl.mbar_alloc(1, num_stages=NUM_STAGES)
    v_full = txl.mbar_alloc(1, num_stages=NUM_STAGES)

    q = txl.get_buffer(bQ, 0)
    qb = txl.get_buffer(q_full, 0)
    txl.mbar_expect(qb, Q_BYTES)
    txl.tma_load(q, desc_q, [off_y + q_row, 0], qb)
    # Prologue: tiles 0 .. NUM_STAGES - 2 into stages 0 .. NUM_STAGES - 2.
    for i in tl.static_range(NUM_STAGES - 1):
        if i < n_tiles:
            _load_kv(bK, bV, k_full, v_full, desc_k, desc_v, i, off_kv + i * BLOCK_N, KV_BYTES)
    txl.mbar_wait(qb, 0)
    qk_scale = sm_scale * 1.44269504

    acc, m_i, l_i = _softmax_init(BLOCK_M, HEAD_DIM)
    s = 0
    phase = 0
    ps = NUM_STAGES - 1  # the stage tile j + NUM_STAGES - 1 goes to
    for j in range(0, n_tiles):
        jn = j + NUM_STAGES - 1
        if jn < n_tiles:
            _load_kv(bK, bV, k_full, v_full, desc_k, desc_v, ps, off_kv + jn * BLOCK_N, KV_BYTES)
        txl.mbar_wait(txl.get_buffer(k_full, s), phase)
        qk = tl.dot(q, txl.get_buffer(bK, s).T)
        txl.dot_wait(0)
        l_i, acc, m_i = _softmax_pv(qk, acc, m_i, l_i, qk_scale, j, n_tiles, q_row, N_CTX, bV, v_full, s, phase, dtype,
                                    BLOCK_M, BLOCK_N, CAUSAL, EVEN_N)
        ps = s  # stage of tile j: free once this iteration's PV retired
        s, phase = _advance(s, phase, NUM_STAGES)

    _epilogue(acc, m_i, l_i, M, off_hz * N_PAD + q_row, q, desc_o, off_y + q_row, 0, O, HEAD_DIM, N_CTX - q_row,
              BLOCK_M, HEAD_DIM, EVEN_N)


def signature(head_dim=128, block_m=64, block_n=64, dtype="bf16"):
    return _common.signature(head_dim, block_m, block_n, dtype)


def constexprs(head_dim=128, causal=False, block_m=64, block_n=64, num_stages=3, even_n=True, h_q_per_kv=1):
    return _common.constexprs(head_dim, causal, block_m, block_n, num_stages, even_n, h_q_per_kv)


SIGNATURE = signature()
CONSTEXPRS = constexprs()
OPTIONS = {"num_warps": 4, "num_warpgroups": 1}
