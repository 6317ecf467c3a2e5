"""Float32 torch references for learnable attention sinks (gpt-oss) and asymmetric head dims, for
``tests/gpu/test_attention_sinks_gpu.py``, ``tests/gpu/test_attention_asym_gpu.py``, the CPU self-tests of
``tests/test_attention_sinks_asym_cpu.py`` and ``bench/variants.py``. torch is imported lazily.

A learnable sink is one more logit per head, sink_h (in the units of q.k * sm_scale), that joins every query row's
softmax and contributes no value. The reference writes exactly that: the masked scores with the sink appended as
an extra column, softmax over all of it, the sink's column dropped before P @ V:

    o_i = sum_j exp(s_ij - m) v_j / (sum_j exp(s_ij - m) + exp(sink_h - m)),   lse_i = logsumexp([s_i., sink_h])

so autograd through it gives the sinks' gradient without any formula of ours. Masks follow
``attention_variants_ref.visible_mask`` (window, sink tokens, causal, bottom-right alignment). Asymmetric head dims
need nothing special: v's head dim only sets o's.
"""

import math

from .attention_variants_ref import seq_bounds, visible_mask


def sink_attention(q, k, v, mask, sm_scale, sinks):
    """(o, lse) of softmax([q k^T * sm_scale masked, sink]) without the sink's column, @ v, in q's dtype.

    q (..., H, Lq, D), k (..., H_KV, Lk, D), v (..., H_KV, Lk, D_v) (GQA: query head h reads kv head
    h // (H // H_KV)), mask (Lq, Lk) bool or broadcastable to (..., H, Lq, Lk), sinks (H,) (None: no sink, as
    attention_variants_ref.masked_attention). A row that sees no key gets o = 0 and lse = its sink (+inf without a
    sink, or with a sink of -inf); gradients stay finite."""
    import torch

    H = q.shape[-3]
    group = H // k.shape[-3]
    if group > 1:
        k, v = k.repeat_interleave(group, -3), v.repeat_interleave(group, -3)
    s = (q @ k.transpose(-1, -2)) * sm_scale
    s = s.masked_fill(~mask, float("-inf"))
    if sinks is None:
        col = torch.full(s.shape[:-1] + (1,), float("-inf"), dtype=s.dtype, device=s.device)
    else:
        col = sinks.to(s.dtype).view(H, 1, 1).expand(s.shape[:-1] + (1,))
    full = torch.cat([s, col], -1)
    lse = torch.logsumexp(full, -1)
    live = torch.isfinite(lse)  # the row sees a key or a finite sink
    safe = torch.where(live, lse, torch.zeros((), dtype=lse.dtype, device=lse.device))
    p = torch.exp(full - safe.unsqueeze(-1)) * live.unsqueeze(-1).to(s.dtype)
    o = p[..., :-1] @ v
    lse = torch.where(live, lse, torch.full((), math.inf, dtype=lse.dtype, device=lse.device))
    return o, lse


def dense_sink_reference(q, k, v, sinks, causal=False, sm_scale=None, window=(-1, -1), num_sink_tokens=0,
                         dtype=None):
    """(o (B, H, N, D_v), lse (B, H, N)) of ``txl.ops.flash_attention(q, k, v, causal, sm_scale, window=,
    num_sink_tokens=, sinks=)`` in ``dtype`` (default float32); differentiable in q, k, v and sinks when they are
    leaves requiring grad in that dtype."""
    import torch

    dtype = dtype or torch.float32
    scale = sm_scale if sm_scale is not None else 1.0 / math.sqrt(q.shape[-1])
    mask = visible_mask(q.shape[-2], k.shape[-2], window, num_sink_tokens, causal, device=q.device)
    return sink_attention(q.to(dtype), k.to(dtype), v.to(dtype), mask, scale,
                          None if sinks is None else sinks.to(dtype))


def dense_sink_grads_given_output(q, k, v, sinks, do, o, causal=False, sm_scale=None, window=(-1, -1),
                                  num_sink_tokens=0):
    """(dq, dk, dv, dsinks) in float32 of the dense sink attention, by the backward formula every flash backward
    uses (FA2/FA3 and txl's kernels): dS = P * (dO V^T - Delta), Delta_i = dO_i . O_i, dsink_h = -sum_i
    P_sink,i Delta_i, with Delta computed from the given ``o`` (the output as stored, e.g. in bf16) instead of the
    exact one. Against the exact float32 gradients this measures what storing O in 16 bits costs by itself: where
    a row's keys carry almost all its mass next to the sink (P close to 1), dO.V - Delta cancels and O's rounding
    (2^-9 relative) comes back amplified by P / (1 - P), in any kernel that reads O to form Delta."""
    import torch

    f = [t.detach().float() for t in (q, k, v, do, o)]
    q, k, v, do, o = f
    H, D = q.shape[1], q.shape[-1]
    group = H // k.shape[1]
    kx, vx = (t.repeat_interleave(group, 1) for t in (k, v))
    scale = sm_scale if sm_scale is not None else 1.0 / math.sqrt(D)
    mask = visible_mask(q.shape[-2], k.shape[-2], window, num_sink_tokens, causal, device=q.device)
    s = (q @ kx.transpose(-1, -2)) * scale
    s = s.masked_fill(~mask, float("-inf"))
    col = sinks.detach().float().view(H, 1, 1).expand(s.shape[:-1] + (1,))
    full = torch.cat([s, col], -1)
    lse = torch.logsumexp(full, -1, keepdim=True)
    live = torch.isfinite(lse)
    p = torch.exp(full - torch.where(live, lse, torch.zeros_like(lse))) * live
    pk, ps = p[..., :-1], p[..., -1]
    delta = (do * o).sum(-1, keepdim=True)
    ds = pk * (do @ vx.transpose(-1, -2) - delta)
    dq = scale * ds @ kx
    dk = scale * ds.transpose(-1, -2) @ q
    dv = pk.transpose(-1, -2) @ do
    B, Hk = k.shape[0], k.shape[1]
    dk = dk.view(B, Hk, group, *dk.shape[2:]).sum(2)
    dv = dv.view(B, Hk, group, *dv.shape[2:]).sum(2)
    dsinks = -(ps * delta[..., 0]).sum((0, 2))
    return dq, dk, dv, dsinks


def varlen_sink_reference(q, k, v, cu_seqlens_q, cu_seqlens_k, sinks, causal=False, sm_scale=None,
                          window=(-1, -1), num_sink_tokens=0, dtype=None):
    """(o (total_q, H, D_v), lse (H, total_q)) of ``txl.ops.flash_attention_varlen(..., sinks=)`` on packed
    (total, heads, D) tensors, one sequence at a time, in ``dtype`` (default float32); differentiable."""
    import torch

    dtype = dtype or torch.float32
    scale = sm_scale if sm_scale is not None else 1.0 / math.sqrt(q.shape[-1])
    s_ = None if sinks is None else sinks.to(dtype)
    os_, lses = [], []
    for (qa, qb), (ka, kb) in zip(seq_bounds(cu_seqlens_q), seq_bounds(cu_seqlens_k)):
        qs = q[qa:qb].to(dtype).transpose(0, 1)  # (H, Lq, D)
        ks, vs = (t[ka:kb].to(dtype).transpose(0, 1) for t in (k, v))
        mask = visible_mask(qb - qa, kb - ka, window, num_sink_tokens, causal, device=q.device)
        o, lse = sink_attention(qs, ks, vs, mask, scale, s_)
        os_.append(o.transpose(0, 1))
        lses.append(lse)
    return torch.cat(os_, 0), torch.cat(lses, 1)


def attention_flops(B, H, N_q, N_k, D, D_v, pairs=None):
    """Multiply-adds x 2 of a forward: S = Q K^T (D) and O = P V (D_v) over ``pairs`` visible (query, key) pairs
    per head (default N_q * N_k)."""
    pairs = N_q * N_k if pairs is None else pairs
    return 2.0 * B * H * pairs * (D + D_v)
