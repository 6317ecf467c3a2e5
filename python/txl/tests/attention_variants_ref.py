"""Float32 torch references for the masked attention variants of ``txl.ops``: sliding window, sink tokens and
variable-length (packed) batches. Used by ``tests/gpu/test_attention_variants_gpu.py``, the reference self-tests of
``tests/test_attention_variants_cpu.py`` (torch CPU tensors) and ``bench/variants.py``. torch is imported lazily.

The masking rule (both ``txl.ops.flash_attention(..., window=, num_sink_tokens=)`` and
``txl.ops.flash_attention_varlen``), with i a query's position within its sequence, j a key's, len_q/len_k the
sequence's lengths and off = len_k - len_q (bottom-right alignment, as flash-attn >= 2.1; 0 for the dense op):

    key j is visible from query i  iff  j < len_k  and  j <= i + off + right
                                        and  (j >= i + off - left  or  j < num_sink_tokens)

window = (left, right), -1 unbounded on that side; causal=True caps right at 0. A query row with no visible key has
output 0 and lse = +inf and contributes no gradient.
"""

import math


def effective_window(window, causal):
    """(left, right) after causal: -1 stays "unbounded" for left; causal turns right into min(right, 0), with an
    unbounded right (-1) becoming 0."""
    left, right = (int(x) for x in window)
    if causal:
        right = 0 if right < 0 else min(right, 0)
    return left, right


def visible_mask(len_q, len_k, window=(-1, -1), num_sink_tokens=0, causal=False, device=None):
    """(len_q, len_k) bool: True where key j is visible from query i (the rule in the module docstring)."""
    import torch

    left, right = effective_window(window, causal)
    i = torch.arange(len_q, device=device).view(-1, 1)
    j = torch.arange(len_k, device=device).view(1, -1)
    d = i + (len_k - len_q)  # the key aligned with query i
    vis = torch.ones(len_q, len_k, dtype=torch.bool, device=device)
    if right >= 0:
        vis &= j <= d + right
    if left >= 0:
        vis &= (j >= d - left) | (j < num_sink_tokens)
    return vis


def visible_pairs(len_q, len_k, window=(-1, -1), num_sink_tokens=0, causal=False):
    """Number of visible (i, j) pairs of one sequence (one head), without building the mask: O(len_q)."""
    import torch

    if len_q <= 0 or len_k <= 0:
        return 0
    left, right = effective_window(window, causal)
    d = torch.arange(len_q, dtype=torch.int64) + (len_k - len_q)
    hi = (d + right).clamp(max=len_k - 1) if right >= 0 else torch.full_like(d, len_k - 1)  # last visible key
    lo = (d - left).clamp(min=0) if left >= 0 else torch.zeros_like(d)  # first key of the window
    band = (hi - lo + 1).clamp(min=0)
    # sinks below the window: j < num_sink_tokens, j < lo, j <= hi
    sinks = torch.minimum(torch.minimum(lo, hi + 1), torch.full_like(lo, int(num_sink_tokens))).clamp(min=0)
    return int((band + (sinks if left >= 0 else 0)).sum())


def masked_attention(q, k, v, mask, sm_scale):
    """softmax(q k^T * sm_scale, masked) v and its natural-log lse in the dtype of q (use float32 or float64).

    q (..., H, Lq, D), k/v (..., H_KV, Lk, D) (GQA: query head h reads kv head h // (H // H_KV)), mask (Lq, Lk)
    bool (or broadcastable to (..., H, Lq, Lk)). Rows with no visible key give o = 0 and lse = +inf; autograd through
    it gives finite gradients everywhere (zero for those rows), never NaN."""
    import torch

    group = q.shape[-3] // k.shape[-3]
    if group > 1:
        k, v = k.repeat_interleave(group, -3), v.repeat_interleave(group, -3)
    s = (q @ k.transpose(-1, -2)) * sm_scale
    has = mask.any(-1, keepdim=True)  # (..., Lq, 1): the row sees at least one key
    s = s.masked_fill(~mask, float("-inf"))
    s = torch.where(has, s, torch.zeros((), dtype=s.dtype, device=s.device))  # dead rows: finite, no gradient
    p = torch.softmax(s, -1) * has.to(s.dtype)
    o = p @ v
    lse = torch.logsumexp(s, -1)
    lse = torch.where(has.squeeze(-1), lse, torch.full((), math.inf, dtype=lse.dtype, device=lse.device))
    return o, lse


def dense_reference(q, k, v, causal=False, sm_scale=None, window=(-1, -1), num_sink_tokens=0, dtype=None):
    """(o (B, H, N, D), lse (B, H, N)) of the dense op on (B, H, N, D) tensors, computed in ``dtype`` (default
    float32); differentiable when the inputs are leaves requiring grad in that dtype."""
    import torch

    dtype = dtype or torch.float32
    n, d = q.shape[-2], q.shape[-1]
    scale = sm_scale if sm_scale is not None else 1.0 / math.sqrt(d)
    mask = visible_mask(n, k.shape[-2], window, num_sink_tokens, causal, device=q.device)
    return masked_attention(q.to(dtype), k.to(dtype), v.to(dtype), mask, scale)


def seq_bounds(cu_seqlens):
    """[(start, end), ...] of a cu_seqlens tensor or list."""
    cu = cu_seqlens.tolist() if hasattr(cu_seqlens, "tolist") else list(cu_seqlens)
    return list(zip(cu[:-1], cu[1:]))


def varlen_reference(q, k, v, cu_seqlens_q, cu_seqlens_k, causal=False, sm_scale=None, window=(-1, -1),
                     num_sink_tokens=0, dtype=None):
    """(o (total_q, H, D), lse (H, total_q)) of the varlen op on packed (total, heads, D) tensors, one sequence at a
    time, in ``dtype`` (default float32); differentiable like ``dense_reference``."""
    import torch

    dtype = dtype or torch.float32
    d = q.shape[-1]
    scale = sm_scale if sm_scale is not None else 1.0 / math.sqrt(d)
    os_, lses = [], []
    for (qa, qb), (ka, kb) in zip(seq_bounds(cu_seqlens_q), seq_bounds(cu_seqlens_k)):
        qs = q[qa:qb].to(dtype).transpose(0, 1)  # (H, Lq, D)
        ks, vs = (t[ka:kb].to(dtype).transpose(0, 1) for t in (k, v))
        mask = visible_mask(qb - qa, kb - ka, window, num_sink_tokens, causal, device=q.device)
        o, lse = masked_attention(qs, ks, vs, mask, scale)
        os_.append(o.transpose(0, 1))
        lses.append(lse)
    return torch.cat(os_, 0), torch.cat(lses, 1)


def varlen_dead_rows(cu_seqlens_q, cu_seqlens_k, causal=False, window=(-1, -1), num_sink_tokens=0):
    """(dead_q (total_q,) bool, dead_k (total_k,) bool) on the CPU: query rows that see no key, key rows that no
    query sees (their output / gradients must be exactly zero)."""
    import torch

    dq, dk = [], []
    for (qa, qb), (ka, kb) in zip(seq_bounds(cu_seqlens_q), seq_bounds(cu_seqlens_k)):
        m = visible_mask(qb - qa, kb - ka, window, num_sink_tokens, causal)
        dq.append(~m.any(1))
        dk.append(~m.any(0))
    return torch.cat(dq), torch.cat(dk)
