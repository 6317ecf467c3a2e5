"""Flash attention backward with asymmetric head dims: Q and K of head dim HEAD_DIM (D), V, O and dO of HEAD_DIM_V
(D_v < D; DeepSeek-V3's prefill is 192 / 128). dQ, dK are D wide, dV D_v wide. The forward's M and the
preprocess's Delta are used as in ``flash_attention_bwd.py``, whose helpers (the key block's addressing, the
Q/dO ring, the masks, the split of the walk over CTAs and its partial stores) this kernel shares.

The tiling is the head-dim-256 kernel's (``flash_attention_bwd_hd256``): a CTA owns BLOCK_N = 64 keys of one kv
head (grid (N_PAD / 64, B * H_KV[, SPLIT])) and walks the query blocks of its GQA group; consumer 0 computes S^T =
K Q^T and P^T, consumer 1 dP^T = V dO^T and dS^T, both through shared memory; then each consumer adds its own
columns of dV += P^T dO, dK += dS^T Q and dQ = dS K. With D != D_v the columns are not halves: they are whole
64-column blocks (128 bytes, one swizzle block, so every slice of a tile is a tile), chosen by the caller so the
two consumers do the same GEMM work (ASYM_PLANS in ``txl.ops._attention_bwd``): consumer 0 takes dK columns
0 .. DK0, dV columns 0 .. DV0 and dQ column blocks 0 .. NQ0, consumer 1 the rest. (192, 128): consumer 0 dK 128 +
dV 64 + dQ 64 columns, consumer 1 dK 64 + dV 64 + dQ 128: 256 each. dQ goes out one 64-column block at a time
with an fp32 TMA reduce-add, dK and dV through 64-column boxes.

Dense layouts only (no packed sequences, no sliding window) and dQ by reduce-adds only (deterministic=False): the
op says so before launching.
"""

import txl
import txl.language as tl

from txl.kernels._attention_common import _advance
from txl.kernels.flash_attention_bwd import (_add_dq, _column_split_buffers, _column_split_producer,
                                             _column_split_start, _column_split_step, _key_block,
                                             _store_partial)


@txl.jit(do_not_specialize=["N_CTX", "N_PAD", "NUM_HEADS", "WIN_LEFT", "WIN_RIGHT", "N_SINK"])
def flash_attention_bwd_asym(desc_q, desc_k, desc_v, desc_do, desc_dq, desc_dk, desc_dv, M, Delta, DK, DV, sm_scale,
                             N_CTX, N_PAD, CU_Q, CU_K, NUM_HEADS, WIN_LEFT, WIN_RIGHT, N_SINK,
                             HEAD_DIM: tl.constexpr, HEAD_DIM_V: tl.constexpr, BLOCK_M: tl.constexpr,
                             BLOCK_N: tl.constexpr, NUM_STAGES: tl.constexpr, CAUSAL: tl.constexpr,
                             EVEN_N: tl.constexpr, H_Q_PER_KV: tl.constexpr, DK0: tl.constexpr, DV0: tl.constexpr,
                             NQ0: tl.constexpr, CONSUMER_REGS: tl.constexpr = 240, DQ: tl.constexpr = True,
                             SPLIT: tl.constexpr = 1):
    tl.static_assert(BLOCK_N == 64 and BLOCK_M == 64, "the 64 x 64 tiling of the column-split kernel")
    tl.static_assert(HEAD_DIM % 64 == 0 and HEAD_DIM_V % 64 == 0 and HEAD_DIM_V <= HEAD_DIM,
                     "head dims: whole 64-column blocks, D_v <= D")
    tl.static_assert(0 < DK0 and DK0 < HEAD_DIM and DK0 % 64 == 0, "consumer 0's dK columns: 64-column blocks")
    tl.static_assert(0 < DV0 and DV0 < HEAD_DIM_V and DV0 % 64 == 0, "consumer 0's dV columns: 64-column blocks")
    tl.static_assert(0 < NQ0 and NQ0 < HEAD_DIM // 64, "each consumer adds some dQ column blocks")
    tl.static_assert(DQ, "dQ by reduce-adds only (no deterministic dQ kernel for asymmetric head dims)")
    PRODUCER_REGS: tl.constexpr = 504 - 2 * CONSUMER_REGS
    Q_BYTES: tl.constexpr = BLOCK_M * HEAD_DIM * 2
    DO_BYTES: tl.constexpr = BLOCK_M * HEAD_DIM_V * 2
    NQB: tl.constexpr = HEAD_DIM // 64
    dtype = desc_q.dtype

    (k_row, kv_y, k_x, q_base, q_gstride, q_x0, x_gstride, m_base, len_q, len_k, q_start, per_head, out_stride, t_lo,
     t_hi, part_y) = _key_block(N_CTX, N_PAD, CU_Q, CU_K, NUM_HEADS, WIN_LEFT, WIN_RIGHT, N_SINK, HEAD_DIM, BLOCK_M,
                                BLOCK_N, CAUSAL, H_Q_PER_KV, False, False, SPLIT)

    bK, bV, bQ, bdO, bP, bdS, bdQ, kv_full, q_full, do_full, qdo_empty = _column_split_buffers(
        dtype, HEAD_DIM, HEAD_DIM_V, BLOCK_M, BLOCK_N, NUM_STAGES, 64, NQB)  # bdQ[j]: dQ staging of column block j

    if txl.is_warpgroup([0]):
        txl.reg_dealloc(PRODUCER_REGS)
        _column_split_producer(bK, bV, bQ, bdO, kv_full, q_full, do_full, qdo_empty, desc_q, desc_k, desc_v, desc_do,
                               kv_y, 0, q_base, q_gstride, q_x0, x_gstride, q_start, per_head, t_lo, t_hi,
                               BLOCK_N * (HEAD_DIM + HEAD_DIM_V) * 2, Q_BYTES, DO_BYTES, BLOCK_M, NUM_STAGES)

    if txl.is_warpgroup([1, 2]):
        txl.reg_alloc(CONSUMER_REGS)
        if txl.is_warpgroup([1]):
            _consumer_asym(bK, bV, bQ, bdO, bP, bdS, bdQ, kv_full, q_full, do_full, qdo_empty, desc_dq, desc_dk,
                           desc_dv, M, Delta, DK, DV, sm_scale, N_PAD, m_base, k_row, kv_y, len_q, len_k, q_start,
                           per_head, t_lo, t_hi, part_y, 0, 0, DK0, 0, DV0, 0, NQ0, HEAD_DIM, HEAD_DIM_V, BLOCK_M,
                           BLOCK_N, NUM_STAGES, CAUSAL, EVEN_N, SPLIT)
        else:
            _consumer_asym(bK, bV, bQ, bdO, bP, bdS, bdQ, kv_full, q_full, do_full, qdo_empty, desc_dq, desc_dk,
                           desc_dv, M, Delta, DK, DV, sm_scale, N_PAD, m_base, k_row, kv_y, len_q, len_k, q_start,
                           per_head, t_lo, t_hi, part_y, 1, DK0, HEAD_DIM - DK0, DV0, HEAD_DIM_V - DV0, NQ0, NQB,
                           HEAD_DIM, HEAD_DIM_V, BLOCK_M, BLOCK_N, NUM_STAGES, CAUSAL, EVEN_N, SPLIT)


@txl.jit
def _consumer_asym(bK, bV, bQ, bdO, bP, bdS, bdQ, kv_full, q_full, do_full, qdo_empty, desc_dq, desc_dk, desc_dv, M,
                   Delta, DK, DV, sm_scale, N_PAD, m_base, k_row, kv_y, len_q, len_k, q_start, per_head, t_lo,
                   t_hi, part_y, W: tl.constexpr, KX: tl.constexpr, KC: tl.constexpr, VX: tl.constexpr,
                   VC: tl.constexpr, QB0: tl.constexpr, QB1: tl.constexpr, HEAD_DIM: tl.constexpr,
                   HEAD_DIM_V: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   NUM_STAGES: tl.constexpr, CAUSAL: tl.constexpr, EVEN_N: tl.constexpr, SPLIT: tl.constexpr):
    # Consumer W: S^T and P^T (W = 0) or dP^T and dS^T (W = 1), then dK columns KX .. KX + KC, dV columns VX ..
    # VX + VC and dQ column blocks QB0 .. QB1 - 1.
    dtype, qk_scale, k_all, v_all, dv, dk = _column_split_start(desc_dk, sm_scale, bK, bV, kv_full, BLOCK_N, VC, KC)
    s = 0
    phase = 0
    for t in range(t_lo, t_hi):
        m_y, q_s, do_s, p_s, ds_s = _column_split_step(
            t, s, phase, bQ, bdO, bP, bdS, k_all, v_all, q_full, do_full, M, Delta, qk_scale, m_base, N_PAD, k_row,
            q_start, per_head, len_q, len_k, 0, 0, 0, dtype, W, BLOCK_M, BLOCK_N, CAUSAL, EVEN_N, False)
        dv = tl.dot(p_s, txl.smem_slice(do_s, VX, VC, dim=1), dv)
        dk = tl.dot(ds_s, txl.smem_slice(q_s, KX, KC, dim=1), dk)
        txl.dot_wait(0)
        txl.mbar_arrive(txl.get_buffer(qdo_empty, s))  # Q_s and dO_s read
        for j in tl.static_range(QB0, QB1):
            dq = tl.dot(ds_s.T, txl.smem_slice(k_all, j * 64, 64, dim=1))
            txl.dot_wait(0)
            _add_dq(dq, txl.get_buffer(bdQ, j), desc_dq, m_y, j * 64)
        s, phase = _advance(s, phase, NUM_STAGES)

    if SPLIT > 1:
        # a share of the key block's walk: f32 partials from registers (see flash_attention_bwd)
        _store_partial(dv, DV, part_y, VX, BLOCK_N, VC, HEAD_DIM_V)
        _store_partial(dk * sm_scale, DK, part_y, KX, BLOCK_N, KC, HEAD_DIM)
    else:
        # once both consumers' last GEMMs have retired (S^T reads all of K, dP^T all of V, the dQ blocks K's
        # columns), dV and dK go out through their columns of V's and K's buffers
        txl.bar_wait(10, 256)
        n_valid = len_k - k_row
        _store_cols(dv.to(dtype), v_all, desc_dv, DV, kv_y, VX, HEAD_DIM_V, n_valid, BLOCK_N, VC, EVEN_N)
        _store_cols((dk * sm_scale).to(dtype), k_all, desc_dk, DK, kv_y, KX, HEAD_DIM, n_valid, BLOCK_N, KC, EVEN_N)
    txl.tma_store_wait(0)


@txl.jit
def _store_cols(out, tile, desc, OUT, y, x, stride, n_valid, ROWS: tl.constexpr, COLS: tl.constexpr,
                EVEN_N: tl.constexpr):
    # out (ROWS x COLS) at row y, columns x .. x + COLS of OUT (rows stride elements apart): staged in the same
    # columns of `tile` and sent with one TMA store per 64 columns (desc's box is ROWS x 64), or, when fewer than
    # ROWS rows are real (the rest belong to the next head), a masked store of the real ones.
    if EVEN_N:
        _tma_cols(out, tile, desc, y, x, COLS)
    else:
        if n_valid >= ROWS:
            _tma_cols(out, tile, desc, y, x, COLS)
        else:
            rows = tl.arange(0, ROWS)
            cols = tl.arange(0, COLS)
            base = OUT + y.to(tl.int64) * stride + x
            tl.store(base + rows[:, None] * stride + cols[None, :], out, mask=rows[:, None] < n_valid)


@txl.jit
def _tma_cols(out, tile, desc, y, x, COLS: tl.constexpr):
    txl.smem_store(txl.smem_slice(tile, x, COLS, dim=1), out)
    for j in tl.static_range(COLS // 64):
        txl.tma_store(txl.smem_slice(tile, x + j * 64, 64, dim=1), desc, [y, x + j * 64])


def signature(head_dim=192, head_dim_v=128, dtype="bf16", split=1):
    part = "fp32" if split > 1 else dtype
    return {
        "desc_q": "tensordesc<%s[64, %d]>" % (dtype, head_dim),
        "desc_k": "tensordesc<%s[64, %d]>" % (dtype, head_dim),
        "desc_v": "tensordesc<%s[64, %d]>" % (dtype, head_dim_v),
        "desc_do": "tensordesc<%s[64, %d]>" % (dtype, head_dim_v),
        "desc_dq": "tensordesc<fp32[64, 64]>",
        "desc_dk": "tensordesc<%s[64, 64]>" % dtype,
        "desc_dv": "tensordesc<%s[64, 64]>" % dtype,
        "M": "*fp32", "Delta": "*fp32", "DK": "*" + part, "DV": "*" + part, "sm_scale": "fp32",
        "N_CTX": "i32", "N_PAD": "i32", "CU_Q": "*i32", "CU_K": "*i32", "NUM_HEADS": "i32", "WIN_LEFT": "i32",
        "WIN_RIGHT": "i32", "N_SINK": "i32",
    }


def constexprs(head_dim=192, head_dim_v=128, plan=(128, 64, 1), causal=False, num_stages=1, even_n=True,
               h_q_per_kv=1, split=1):
    dk0, dv0, nq0 = plan
    return {"HEAD_DIM": head_dim, "HEAD_DIM_V": head_dim_v, "BLOCK_M": 64, "BLOCK_N": 64, "NUM_STAGES": num_stages,
            "CAUSAL": causal, "EVEN_N": even_n, "H_Q_PER_KV": h_q_per_kv, "DK0": dk0, "DV0": dv0, "NQ0": nq0,
            "SPLIT": split}


OPTIONS = {"num_warps": 4, "num_warpgroups": 3}
