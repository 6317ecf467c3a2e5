"""The backward of ``txl.ops.flash_attention``: dQ, dK, dV from the saved q, k, v, o and the forward's base-2
log-sum-exp M (``txl.kernels.flash_attention_bwd``).

Three launches per call: the preprocess Delta = rowsum(dO * O) (f32, (B * H, N_PAD)), the warp-specialized
dK/dV kernel that also adds every key block's share of dQ into an f32 accumulator with TMA reduce-adds, then one
scale-and-convert of the accumulator into dQ (attention_bwd_dq_convert). The reduce-adds of different key blocks land in no fixed order, so
dQ may differ in its last bits from run to run; ``deterministic=True`` instead runs the dK/dV kernel without dQ
(DETERMINISTIC) and computes dQ in ``attention_bwd_dq``, one CTA per query block walking the key blocks in order.
"""


from txl.ops.attention import BLOCK, padded_len

BLOCK_M = 64  # query rows per step of the dK/dV kernel
BLOCK_N = 128  # keys per CTA (two consumer warpgroups of 64)
PRE_BLOCK = 64  # rows per preprocess program
CONVERT_BLOCK = 32  # rows per program of the dQ scale-and-convert
DQ_BLOCK = 64  # query rows per program of the deterministic dQ kernel
# its keys per step: 64 spills 600 bytes at head dim 128; at 256 even 16 spills 1.2 KB (slow, but bit-exact)
DQ_BLOCK_N = {64: 64, 128: 32, 256: 16}
BWD_HEAD_DIMS = (64, 128, 256)
# Q/dO ring depth per head dim, measured on the H100 (bench/attention_bwd.py --stages): hd128 runs 5% faster with
# 3 (502 vs 476 TFLOP/s at (16, 32, 4096)), in 224 KB of the 227 KB (K, V 64 KB + Q, dO 96 KB + dS^T 32 KB + dQ
# staging 32 KB); hd64 gains nothing from a third.
# hd256 (flash_attention_bwd_hd256, 64 keys per CTA) fits one stage.
NUM_STAGES = {64: 2, 128: 3, 256: 1}


def _rows(t):
    B, H, N, D = t.shape
    if not t.is_contiguous() or t.data_ptr() % 16:
        t = t.contiguous() if not t.is_contiguous() else t.clone()
    return t.view(B * H * N, D)


def check_supported(q, where="txl.ops.flash_attention backward"):
    D = q.shape[-1]
    if D not in BWD_HEAD_DIMS:
        raise NotImplementedError("%s: head dim %d has no backward kernel yet (supported: %s); use "
                                  "torch.nn.functional.scaled_dot_product_attention for training at this head dim"
                                  % (where, D, ", ".join(map(str, BWD_HEAD_DIMS))))


def backward(do, q, k, v, o, m, causal, sm_scale, deterministic=False):
    """(dq, dk, dv) for o = flash_attention(q, k, v, causal, sm_scale) with m its (B * H, N_PAD) base-2 LSE."""
    import torch
    import txl
    from txl.kernels import flash_attention_bwd as kb

    check_supported(q)
    B, H, N, D = q.shape
    Hk = k.shape[1]
    n_pad = padded_len(N)
    assert n_pad % BLOCK_N == 0 and BLOCK % BLOCK_M == 0
    q2, k2, v2, o2, do2 = _rows(q), _rows(k), _rows(v), _rows(o), _rows(do)
    delta = torch.empty((B * H, n_pad), dtype=torch.float32, device=q.device)
    kb.attention_bwd_preprocess[(n_pad // PRE_BLOCK, B * H)](o2, do2, delta, N, n_pad, HEAD_DIM=D, BLOCK=PRE_BLOCK)

    dk = torch.empty((B, Hk, N, D), dtype=q.dtype, device=q.device)
    dv = torch.empty((B, Hk, N, D), dtype=q.dtype, device=q.device)
    dk2, dv2 = dk.view(B * Hk * N, D), dv.view(B * Hk * N, D)
    dq_cols = D // 2 if D > 64 else D
    # (deterministic: a 64-row stand-in the kernel never touches; its descriptor must still describe a tensor)
    dq_acc = torch.zeros((BLOCK_M if deterministic else B * H * n_pad, D), dtype=torch.float32, device=q.device)
    # Rows of K/V per box: a consumer's 64 keys (hd256: the CTA's 64 keys); dK/dV boxes are column halves at hd256.
    kv_box = 64
    out_cols = D // 2 if D == 256 else D
    descs = [txl.TensorDescriptor(q2, block_shape=[BLOCK_M, D]),
             txl.TensorDescriptor(k2, block_shape=[kv_box, D]),
             txl.TensorDescriptor(v2, block_shape=[kv_box, D]),
             txl.TensorDescriptor(do2, block_shape=[BLOCK_M, D]),
             txl.TensorDescriptor(dq_acc, block_shape=[BLOCK_M, dq_cols]),
             txl.TensorDescriptor(dk2, block_shape=[kv_box, out_cols]),
             txl.TensorDescriptor(dv2, block_shape=[kv_box, out_cols])]
    if D == 256:
        block_n = 64
        kernel, extra = kb.flash_attention_bwd_hd256, dict(DQ=not deterministic)
    else:
        block_n = BLOCK_N
        kernel, extra = kb.flash_attention_bwd, dict(DQ=not deterministic)
    kernel[(n_pad // block_n, B * Hk)](*descs, m, delta, dk2, dv2, float(sm_scale), N, n_pad,
                                       **kb.constexprs(D, bool(causal), BLOCK_M, block_n, NUM_STAGES[D], N == n_pad,
                                                       H // Hk),
                                       **extra, **kb.OPTIONS)
    if deterministic:
        dq = torch.empty_like(q)
        kb.attention_bwd_dq[(n_pad // DQ_BLOCK, B * H)](q2, k2, v2, do2, dq.view(B * H * N, D), m, delta,
                                                         float(sm_scale), N, n_pad, HEAD_DIM=D, BLOCK_M=DQ_BLOCK,
                                                         BLOCK_N=DQ_BLOCK_N[D], CAUSAL=bool(causal), H_Q_PER_KV=H // Hk,
                                                         num_warps=4, num_stages=2)
        return dq, dk, dv
    dq = torch.empty_like(q)
    kb.attention_bwd_dq_convert[(n_pad // CONVERT_BLOCK, B * H)](dq_acc, dq.view(B * H * N, D), float(sm_scale), N,
                                                                n_pad, HEAD_DIM=D, BLOCK=CONVERT_BLOCK)
    return dq, dk, dv
