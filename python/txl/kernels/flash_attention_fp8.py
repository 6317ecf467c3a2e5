"""FP8 (e4m3) flash attention forward for Hopper, FA3's FP8 design on the bf16 fa3 kernel (flash_attention.py):
O = softmax(Q K^T * sm_scale) V with Q, K, V float8_e4m3fn, f32 softmax and accumulation, bf16 O, and per-tensor or
per-(batch, kv head) descales (FA3's q_descale / k_descale / v_descale): the dequantized inputs are Q * dq, K * dk,
V * dv, so S = (Q K^T) * dq * dk and O = (P V) * dv; dq * dk is folded into the softmax scale and dv into the
epilogue (per query row the same factor, so it commutes with the softmax).

Layout (the op, ops/attention_fp8.py, builds it):
  Q (B * H * N, D) fp8 rows, K (B * H_KV * N, D) fp8 rows (as the bf16 kernel reads them, in place);
  VT (B * H_KV * D, N_V) fp8: V transposed per kv head by transpose_v below (row d of head g holds V[g, :, d],
  with RENAME_P its keys permuted inside every 32 by key_perm; N_V = N rounded up to 32, the columns of keys past N
  zero). FP8 wgmma (k32) reads B only K-major: for O += P V, K is the key dimension, so a V tile must be contiguous
  along keys in shared memory: the (D, BLOCK_N) box of VT, used as its transpose (docs/attention-fp8.md: the
  transpose is one pass of its own, not yet in the kernel);
  O (B * H * N, D) bf16; M (B * H, N_PAD) f32 (base-2 log-sum-exp, as the bf16 kernel).
  DQ, DK, DV: f32 descales read at (kv head index) * DESCALE_STRIDE (0: one per tensor, 1: (B, H_KV) per head).

Work split and pipeline as the bf16 fa3 kernel (one CTA per (128-row query block, head)): WG0 is the TMA producer
(Q halves, K and VT tiles through NUM_STAGES-deep rings), WG1/WG2 consume 64 query rows each with ping-pong on
named barriers 8/9 and S_j issued before P_{j-1} VT_{j-1} (softmax overlaps the PV wgmma). P is rounded to e4m3
scaled by 2^P_SHIFT (256: P in (0, 256], clear of e4m3's subnormals below 2^-6 where FA3's unscaled P in [0, 1]
loses precision; l carries the same factor) and is the PV wgmma's register A operand, its columns renamed into the A
fragment's order with no data movement (_a_operand; RENAME_P). O is staged in its own bf16 buffer (Q's
fp8 tile is half its size).
"""

import txl
import txl.language as tl

from txl.kernels._attention_common import (_advance, _consumer_half, _kv_ring_barriers, _mask_tile, _pingpong_pass,
                                           _pingpong_wait, _retire_pv)

LOG2E = 1.44269504


@txl.jit(do_not_specialize=["N_CTX", "N_PAD", "DESCALE_STRIDE"])
def flash_attention_fp8(desc_q, desc_k, desc_vt, desc_o, M, O, DQ, DK, DV, sm_scale, N_CTX, N_PAD,
                        DESCALE_STRIDE, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        NUM_STAGES: tl.constexpr, CAUSAL: tl.constexpr, EVEN_N: tl.constexpr,
                        H_Q_PER_KV: tl.constexpr, CONSUMER_REGS: tl.constexpr = 240,
                        RENAME_P: tl.constexpr = True, P_SHIFT: tl.constexpr = 8.0,
                        RESCALE_TAU: tl.constexpr = -1.0):
    tl.static_assert(BLOCK_M == 128, "two consumer warpgroups of 64 query rows")
    tl.static_assert(not CAUSAL or BLOCK_M % BLOCK_N == 0, "causal: BLOCK_M must be a multiple of BLOCK_N")
    HALF_M: tl.constexpr = BLOCK_M // 2
    PRODUCER_REGS: tl.constexpr = 504 - 2 * CONSUMER_REGS
    Q_BYTES: tl.constexpr = HALF_M * HEAD_DIM  # one byte per element
    KV_BYTES: tl.constexpr = BLOCK_N * HEAD_DIM
    dtype = desc_q.dtype

    n_m = N_PAD // BLOCK_M
    t = tl.program_id(0) + tl.program_id(1) * tl.num_programs(0)
    off_hz = t // n_m
    if CAUSAL:
        start_m = n_m - 1 - t % n_m  # heaviest query blocks first
        n_tiles = (start_m * BLOCK_M + BLOCK_M) // BLOCK_N
    else:
        start_m = t % n_m
        n_tiles = tl.cdiv(N_CTX, BLOCK_N)
    off_kv = off_hz // H_Q_PER_KV  # (batch, kv head): K/VT rows and the descales' index

    bQ = txl.smem_alloc([HALF_M, HEAD_DIM], dtype, num_stages=2)  # [0]: WG1's rows, [1]: WG2's
    bO = txl.smem_alloc([HALF_M, HEAD_DIM], desc_o.dtype, num_stages=2)
    bK = txl.smem_alloc([BLOCK_N, HEAD_DIM], dtype, num_stages=NUM_STAGES)
    bVt = txl.smem_alloc([HEAD_DIM, BLOCK_N], dtype, num_stages=NUM_STAGES)
    q_full = txl.mbar_alloc(1, num_stages=2)
    k_full, v_full, k_empty, v_empty = _kv_ring_barriers(NUM_STAGES)

    # ---- WG0: TMA producer. The first pass over the rings does not block: parities start at 1.
    if txl.is_warpgroup([0]):
        txl.reg_dealloc(PRODUCER_REGS)
        qo_y = off_hz * N_CTX + start_m * BLOCK_M
        for h in tl.static_range(2):
            qb = txl.get_buffer(q_full, h)
            txl.mbar_expect(qb, Q_BYTES)
            txl.tma_load(txl.get_buffer(bQ, h), desc_q, [qo_y + h * HALF_M, 0], qb)
        k_y = off_kv * N_CTX
        vt_y = off_kv * HEAD_DIM
        s = 0
        phase = 1
        for j in range(0, n_tiles):
            txl.mbar_wait(txl.get_buffer(k_empty, s), phase)
            kf = txl.get_buffer(k_full, s)
            txl.mbar_expect(kf, KV_BYTES)
            txl.tma_load(txl.get_buffer(bK, s), desc_k, [k_y + j * BLOCK_N, 0], kf)
            txl.mbar_wait(txl.get_buffer(v_empty, s), phase)
            vf = txl.get_buffer(v_full, s)
            txl.mbar_expect(vf, KV_BYTES)
            txl.tma_load(txl.get_buffer(bVt, s), desc_vt, [vt_y, j * BLOCK_N], vf)
            s, phase = _advance(s, phase, NUM_STAGES)

    # ---- WG1, WG2: consumers, HALF_M query rows each.
    if txl.is_warpgroup([1, 2]):
        txl.reg_alloc(CONSUMER_REGS)
        qi, row0, q = _consumer_half(bQ, HALF_M)
        d_off = off_kv * DESCALE_STRIDE
        qk_scale = sm_scale * LOG2E * tl.load(DQ + d_off) * tl.load(DK + d_off)
        v_scale = tl.load(DV + d_off)
        if txl.is_warpgroup([2]):
            txl.bar_arrive(8, 256)  # WG1 takes the first turn on the tensor cores
        q_row = start_m * BLOCK_M + row0
        txl.mbar_wait(txl.get_buffer(q_full, qi), 0)
        sk = 0
        phk = 0
        sv = 0
        phv = 0

        # Peeled KV tile 0: S0 and its softmax.
        txl.mbar_wait(txl.get_buffer(k_full, sk), phk)
        qk = tl.dot(q, txl.get_buffer(bK, sk).T)
        txl.dot_wait(0)
        txl.mbar_arrive(txl.get_buffer(k_empty, sk))
        sk, phk = _advance(sk, phk, NUM_STAGES)
        if CAUSAL or not EVEN_N:
            qk = _mask_tile(qk, 0, n_tiles, q_row, N_CTX, HALF_M, BLOCK_N, CAUSAL, EVEN_N)
        # P is computed as 2^P_SHIFT * softmax numerator (l too, so O = acc / l is unchanged; M subtracts it):
        # values in (0, 2^P_SHIFT], below e4m3's largest (448), keep 8 more binades above its subnormals (2^-6)
        m_i = tl.max(qk, 1) * qk_scale
        p = tl.exp2(tl.fma(qk, qk_scale, (P_SHIFT - m_i)[:, None]))
        l_i = tl.sum(p, 1)
        p8 = _a_operand(p.to(dtype), HALF_M, BLOCK_N, RENAME_P)

        acc = tl.zeros([HALF_M, HEAD_DIM], tl.float32)
        for j in range(1, n_tiles):
            txl.mbar_wait(txl.get_buffer(k_full, sk), phk)
            _pingpong_wait()
            qk = tl.dot(q, txl.get_buffer(bK, sk).T)
            txl.mbar_wait(txl.get_buffer(v_full, sv), phv)
            acc = tl.dot(p8, txl.get_buffer(bVt, sv).T, acc)
            txl.dot_wait(1)  # S_j retired, PV may still run
            txl.mbar_arrive(txl.get_buffer(k_empty, sk))
            _pingpong_pass()
            if CAUSAL or not EVEN_N:
                qk = _mask_tile(qk, j, n_tiles, q_row, N_CTX, HALF_M, BLOCK_N, CAUSAL, EVEN_N)
            if RESCALE_TAU < 0:
                p, m_new, l_i, alpha = _softmax_step_shifted(qk, m_i, l_i, qk_scale, P_SHIFT)
                p8 = _a_operand(p.to(dtype), HALF_M, BLOCK_N, RENAME_P)
                acc, m_i, sk, phk, sv, phv = _retire_pv(acc, alpha, m_new, v_empty, sk, phk, sv, phv, NUM_STAGES)
            else:
                p, m_new, l_i, alpha, moved = _softmax_step_lazy(qk, m_i, l_i, qk_scale, P_SHIFT, RESCALE_TAU)
                p8 = _a_operand(p.to(dtype), HALF_M, BLOCK_N, RENAME_P)
                txl.dot_wait(0)  # P_{j-1} V_{j-1} retired: its V stage is free and acc may be read
                txl.mbar_arrive(txl.get_buffer(v_empty, sv))
                if moved > 0:  # some row of this warp moved its max: rescale (a branch uniform in the warp)
                    acc = acc * alpha[:, None]
                m_i = m_new
                sk, phk = _advance(sk, phk, NUM_STAGES)
                sv, phv = _advance(sv, phv, NUM_STAGES)

        txl.mbar_wait(txl.get_buffer(v_full, sv), phv)
        acc = tl.dot(p8, txl.get_buffer(bVt, sv).T, acc)
        txl.dot_wait(0)
        txl.mbar_arrive(txl.get_buffer(v_empty, sv))

        # Epilogue: O = acc * dv / l (bf16), M = m + log2(l).
        tl.store(M + off_hz * N_PAD + q_row + tl.arange(0, HALF_M), m_i + tl.log2(l_i) - P_SHIFT)
        out = (acc * (v_scale / l_i)[:, None]).to(desc_o.dtype)
        o_y = off_hz * N_CTX + q_row
        o_tile = txl.get_buffer(bO, qi)
        if EVEN_N:
            _store_o(out, o_tile, desc_o, o_y)
        else:
            n_valid = N_CTX - q_row
            if n_valid >= HALF_M:
                _store_o(out, o_tile, desc_o, o_y)
            else:  # the head's last rows: the next rows of O are the next head's
                rows = tl.arange(0, HALF_M)
                cols = tl.arange(0, HEAD_DIM)
                base = O + o_y.to(tl.int64) * HEAD_DIM
                tl.store(base + rows[:, None] * HEAD_DIM + cols[None, :], out, mask=rows[:, None] < n_valid)
        if txl.is_warpgroup([1]):
            txl.bar_wait(8, 256)  # consume WG2's last hand-back: the barrier is left complete at exit


@txl.jit
def _softmax_step_shifted(qk, m_i, l_i, qk_scale, P_SHIFT: tl.constexpr):
    # _attention_common._softmax_step with P (and so l) scaled by 2^P_SHIFT: P = exp2(S * scale - m + P_SHIFT),
    # one fma per element as there (the shift joins the per-row term). Rows always see a key here (no local masks),
    # so m is finite.
    m_new = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
    p = tl.exp2(tl.fma(qk, qk_scale, (P_SHIFT - m_new)[:, None]))
    alpha = tl.exp2(m_i - m_new)
    l_i = l_i * alpha + tl.sum(p, 1)
    return p, m_new, l_i, alpha


@txl.jit
def _softmax_step_lazy(qk, m_i, l_i, qk_scale, P_SHIFT: tl.constexpr, TAU: tl.constexpr):
    # _softmax_step_shifted with FA4's conditional rescaling: a row's running max moves only when the tile's max
    # passes it by more than TAU (log2 units), so P = exp2(S * scale - m + P_SHIFT) <= 2^(P_SHIFT + TAU) (445.7 for
    # 8 + 0.8: below e4m3's largest, 448) and l, O and M stay exact (each keeps the max it was scaled by). `moved`
    # (per warp: txl.warp_max) says whether any of the warp's rows moved; the accumulator's rescale (one multiply
    # per element, ~15% of this issue-bound softmax) runs only then, which after the first tiles is rarely.
    m_tile = tl.max(qk, 1) * qk_scale
    m_new = tl.where(m_tile > m_i + TAU, m_tile, m_i)
    p = tl.exp2(tl.fma(qk, qk_scale, (P_SHIFT - m_new)[:, None]))
    alpha = tl.exp2(m_i - m_new)
    l_i = l_i * alpha + tl.sum(p, 1)
    moved = txl.warp_max((m_new > m_i).to(tl.int32))
    return p, m_new, l_i, alpha, moved


@txl.jit
def _a_operand(p8, ROWS: tl.constexpr, BLOCK_N: tl.constexpr, RENAME: tl.constexpr):
    # P (fp8, in the wgmma accumulator layout of S) renamed into the fp8 A-operand layout with no data movement.
    # Within each 32 columns, thread t of a quad holds S columns {2t, 2t+1} + 8i (i = 0..3): column bits c0 and
    # c3, c4 in registers, c1, c2 in the lane; the e4m3 A fragment (k32) wants k bits k0, k1 (byte in a register)
    # and k4 in registers, k2, k3 in the lane. Column c becomes k = c0 + 2 c3 + 4 c1 + 8 c2 + 16 c4, a coordinate
    # rename (reshape + permute, moved through the layout) that leaves every element where it is; VT's keys are
    # permuted the same way (transpose_v with PERMUTE, key_perm), so P' VT' = P V. RENAME=False keeps P's column
    # order (then the compiler relayouts P through shared memory, and VT must not be permuted).
    out = p8
    if RENAME:
        x = tl.reshape(p8, [ROWS, BLOCK_N // 32, 2, 2, 2, 2, 2])  # (row, block, c4, c3, c2, c1, c0)
        x = tl.permute(x, [0, 1, 2, 4, 5, 3, 6])  # (row, block, k4 = c4, k3 = c2, k2 = c1, k1 = c3, k0 = c0)
        out = tl.reshape(x, [ROWS, BLOCK_N])
    return out


@txl.jit
def _store_o(out, o_tile, desc_o, o_y):
    txl.smem_store(o_tile, out)
    txl.fence_proxy_async()
    txl.tma_store(o_tile, desc_o, [o_y, 0])
    txl.tma_store_wait(0)


@txl.jit(do_not_specialize=["N"])
def transpose_v(V, VT, N, NV, HEAD_DIM: tl.constexpr, BLOCK: tl.constexpr, PERMUTE: tl.constexpr = True):
    # VT[g, d, k] = V[g, c, d] for the kv head g = program_id(1), keys c < N, with k = key_perm(c) inside each 32
    # keys (_a_operand); VT's columns N .. NV - 1 get zeros. Bytes (i8): fp8 is copied, not converted. Rows of V
    # are read whole (16-byte loads) in k order; the tile goes through shared memory transposed (the register
    # transpose is a rename, so its stores to shared memory are per byte), and VT's rows leave in 16-byte stores.
    # (A transposed view of an unswizzled buffer, smem_load(buf.T), would read it untransposed: see
    # docs/attention-fp8.md, "Compiler findings".)
    k = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    kk = k % 32
    c = (k - kk) + (kk & 1) + ((kk >> 2) & 1) * 2 + ((kk >> 3) & 1) * 4 + ((kk >> 1) & 1) * 8 + (kk & 16)
    if not PERMUTE:  # plain transpose (for the kernel with RENAME_P=False)
        c = k
    d = tl.arange(0, HEAD_DIM)
    g = tl.program_id(1).to(tl.int64)
    x = tl.load(V + g * N * HEAD_DIM + c[:, None] * HEAD_DIM + d[None, :], mask=c[:, None] < N, other=0)
    buf = txl.get_buffer(txl.smem_alloc([HEAD_DIM, BLOCK], tl.int8), 0)
    txl.smem_store(buf, tl.trans(x))
    tl.debug_barrier()
    xt = txl.smem_load(buf)
    tl.store(VT + g * HEAD_DIM * NV + d[:, None] * NV + k[None, :], xt, mask=k[None, :] < NV)


def key_perm(c):
    """Where key c of a 32-key group lands in VT (_a_operand's column map): k = c0 + 2 c3 + 4 c1 + 8 c2 + 16 c4."""
    bit = [(c >> i) & 1 for i in range(5)]
    return (c & ~31) + bit[0] + 2 * bit[3] + 4 * bit[1] + 8 * bit[2] + 16 * bit[4]


def signature(head_dim=128, block_n=128):
    return {
        "desc_q": "tensordesc<fp8e4nv[64, %d]>" % head_dim,
        "desc_k": "tensordesc<fp8e4nv[%d, %d]>" % (block_n, head_dim),
        "desc_vt": "tensordesc<fp8e4nv[%d, %d]>" % (head_dim, block_n),
        "desc_o": "tensordesc<bf16[64, %d]>" % head_dim,
        "M": "*fp32", "O": "*bf16", "DQ": "*fp32", "DK": "*fp32", "DV": "*fp32", "sm_scale": "fp32",
        "N_CTX": "i32", "N_PAD": "i32", "DESCALE_STRIDE": "i32",
    }


def default_rescale_tau(head_dim):
    """RESCALE_TAU for a head dim: the lazy rescale (_softmax_step_lazy) where it paid off on the H200 (session 21,
    same process, kernel alone: hd256 +4.3 % / +0.8 % causal at (4, 16, 8192)); every tile elsewhere (the lazy step
    measured 1-3.4 % slower at hd64 / hd128, where the accumulator has one element per S element instead of four and
    the per-warp vote and branch cost more than the multiplies they skip)."""
    return 0.8 if head_dim == 256 else -1.0


def constexprs(head_dim=128, causal=False, block_n=128, num_stages=2, even_n=True, h_q_per_kv=1, consumer_regs=240,
               rename_p=True, rescale_tau=None):
    return {"HEAD_DIM": head_dim, "BLOCK_M": 128, "BLOCK_N": block_n, "NUM_STAGES": num_stages, "CAUSAL": causal,
            "EVEN_N": even_n, "H_Q_PER_KV": h_q_per_kv, "CONSUMER_REGS": consumer_regs, "RENAME_P": rename_p,
            "RESCALE_TAU": default_rescale_tau(head_dim) if rescale_tau is None else rescale_tau}


OPTIONS = {"num_warps": 4, "num_warpgroups": 3}
