"""``txl.ops.nsa_selection_attention``: block-sparse selection attention (the "selected blocks" branch of Native
Sparse Attention), forward and backward, dense and packed (varlen).

    o = txl.ops.nsa_selection_attention(q, k, v, block_indices, block_size=64)

* dense: q (B, HQ, N, D), k and v (B, HK, N, D), block_indices (B, HK, N, S); packed (``cu_seqlens`` given, int32
  B + 1 offsets): q (total, HQ, D), k and v (total, HK, D), block_indices (total, HK, S). bf16/fp16, D a power of
  two in 16 .. 256, HQ a multiple of HK (the G = HQ / HK query heads of a KV head share its selection, as in NSA).
* block_indices[.., h, t, :] lists the key blocks (block j = keys j * block_size .. j * block_size + block_size -
  1 of t's own sequence) that query t of every head of KV head h attends to; -1 = no block. Attention is causal
  within the selected blocks (keys after t are masked), so listing blocks past t is allowed and they add nothing.
  Indices should be distinct (top-k gives that): a block listed twice is attended twice, as a gather would.
* block_size in {32, 64, 128}; S (top-k) any count >= 1. A row that sees no key gets O = 0 (lse = +inf).
* ``return_lse``: also the natural-log log-sum-exp, (B, HQ, N) dense or (HQ, total) packed, float32.
* Differentiable (a torch custom op): dq from one kernel per (token, KV head); dk and dv from one kernel per
  (key block, KV head) over the tokens that selected the block (lists built on the GPU by sorting the selections),
  so the gradients are deterministic and need no atomics.

Kernels: txl/kernels/nsa.py (Triton-style: pointer loads, tl.dot with M = the group's heads padded to >= 16).
"""

import math

_WHERE = "txl.ops.nsa_selection_attention"
BLOCK_SIZES = (32, 64, 128)
NUM_WARPS = 4


def _check(torch, q, k, v, idx, block_size, sm_scale, cu_seqlens):
    for name, t in (("q", q), ("k", k), ("v", v), ("block_indices", idx)):
        if not isinstance(t, torch.Tensor):
            raise TypeError("%s: %s must be a torch.Tensor, got %s" % (_WHERE, name, type(t).__name__))
    varlen = cu_seqlens is not None
    rank = 3 if varlen else 4
    layout = "(total, heads, D)" if varlen else "(B, heads, N, D)"
    for name, t in (("q", q), ("k", k), ("v", v), ("block_indices", idx)):
        if t.dim() != rank:
            raise ValueError("%s: %s must be %d-D %s%s, got shape %s" % (
                _WHERE, name, rank, layout, " with cu_seqlens" if varlen else " (pass cu_seqlens for packed "
                "sequences)", tuple(t.shape)))
        if t.device.type != "cuda" or t.device != q.device:
            raise ValueError("%s: %s is on %s: all inputs must be on one CUDA device" % (_WHERE, name, t.device))
    if q.dtype not in (torch.bfloat16, torch.float16) or k.dtype != q.dtype or v.dtype != q.dtype:
        raise TypeError("%s: q, k, v must share one dtype of torch.bfloat16, torch.float16; got %s, %s, %s"
                        % (_WHERE, q.dtype, k.dtype, v.dtype))
    if idx.dtype not in (torch.int32, torch.int64):
        raise TypeError("%s: block_indices must be torch.int32 or torch.int64, got %s" % (_WHERE, idx.dtype))
    if k.shape != v.shape:
        raise ValueError("%s: k %s and v %s must have the same shape" % (_WHERE, tuple(k.shape), tuple(v.shape)))
    hd = 1  # the heads axis: (B, H, N, D) and (total, H, D) both have it at 1
    D = q.shape[-1]
    if k.shape[-1] != D or D < 16 or D > 256 or D & (D - 1):
        raise ValueError("%s: head dims q %d, k %d: must be equal and a power of two in 16 .. 256"
                         % (_WHERE, D, k.shape[-1]))
    HQ, HK = q.shape[hd], k.shape[hd]
    if HK < 1 or HQ % HK:
        raise ValueError("%s: q has %d heads and k/v %d: the query head count must be a multiple of the kv head "
                         "count" % (_WHERE, HQ, HK))
    if HQ // HK > 64:
        raise ValueError("%s: %d query heads per kv head; at most 64 are supported (split the group)"
                         % (_WHERE, HQ // HK))
    tokens_q = q.shape[0] if varlen else (q.shape[0], q.shape[2])
    tokens_k = k.shape[0] if varlen else (k.shape[0], k.shape[2])
    if tokens_q != tokens_k:
        raise ValueError("%s: q has %s tokens and k/v %s: selection attention is self-attention over one sequence "
                         "(batch) of tokens" % (_WHERE, tokens_q, tokens_k))
    want = (q.shape[0], HK) if varlen else (q.shape[0], HK, q.shape[2])
    if tuple(idx.shape[:-1]) != want or idx.shape[-1] < 1:
        raise ValueError("%s: block_indices has shape %s; expected %s + (S,) with S >= 1 selected blocks per token "
                         "and kv head" % (_WHERE, tuple(idx.shape), want))
    if isinstance(block_size, bool) or block_size not in BLOCK_SIZES:
        raise ValueError("%s: block_size must be one of %s, got %r" % (_WHERE, BLOCK_SIZES, block_size))
    if sm_scale is not None and (isinstance(sm_scale, bool) or not isinstance(sm_scale, (int, float))
                                 or not (math.isfinite(sm_scale) and sm_scale > 0)):
        raise ValueError("%s: sm_scale must be a positive finite float or None, got %r" % (_WHERE, sm_scale))
    if varlen:
        if not isinstance(cu_seqlens, torch.Tensor) or cu_seqlens.dtype != torch.int32 or cu_seqlens.dim() != 1 \
                or cu_seqlens.numel() < 2:
            raise ValueError("%s: cu_seqlens must be a 1-D torch.int32 tensor of B + 1 offsets" % _WHERE)
        if cu_seqlens.device != q.device:
            raise ValueError("%s: cu_seqlens is on %s but q on %s" % (_WHERE, cu_seqlens.device, q.device))


def _strides(t, varlen):
    """(batch, head, position) element strides of a contiguous (B, H, N, *) or packed (total, H, *) tensor."""
    s = t.stride()
    return (0, s[1], s[0]) if varlen else (s[0], s[1], s[2])


def _geometry(q, idx, cu):
    """(tokens, N, bos): global token count, dense sequence length (0 packed) and the per-token first-token array
    (packed; a placeholder dense)."""
    import torch

    if cu is None:
        return q.shape[0] * q.shape[2], q.shape[2], torch.zeros(1, dtype=torch.int32, device=q.device)
    total = q.shape[0]
    lens = cu[1:] - cu[:-1]
    bos = torch.repeat_interleave(cu[:-1], lens, output_size=total)
    return total, 0, bos


def _kernels():
    from txl.kernels import nsa

    return nsa


def fast_launch(fn, grid, args, kwargs):
    from txl.ops.attention import fast_launch as launch

    launch(fn, grid, args, kwargs)


def _forward(q, k, v, idx, block_size, sm_scale, cu):
    """(o, lse2 (tokens, HQ) float32 log2 units) of validated contiguous inputs."""
    import torch

    kn = _kernels()
    varlen = cu is not None
    tokens, N, bos = _geometry(q, idx, cu)
    HQ, HK, D, S = q.shape[1], k.shape[1], q.shape[-1], idx.shape[-1]
    o = torch.empty_like(q)
    lse = torch.empty((tokens, HQ), dtype=torch.float32, device=q.device)
    if tokens == 0:
        return o, lse
    cx = kn.tile_constexprs(HQ // HK, D, S, block_size)
    with torch.cuda.device(q.device):
        fast_launch(kn.nsa_fwd, (tokens, HK), (q, k, v, idx, bos, o, lse, float(sm_scale), N, HQ) + _strides(q, varlen)
                    + _strides(k, varlen) + _strides(idx, varlen), dict(cx, VARLEN=varlen, num_warps=NUM_WARPS))
    return o, lse


def _block_lists(idx, cu, tokens, N, HK, block_size):
    """The inverse of the selection, on the GPU without a host sync: (rows (NB, 3) int32 = (first token of the
    sequence, first key position, sequence length) per key block (NB an upper bound; spare blocks have length 0),
    tokens (entries,) int32 sorted by (block, kv head), offsets and counts (NB * HK,) int32 into it)."""
    import torch

    dev = idx.device
    S = idx.shape[-1]
    t = torch.arange(tokens, device=dev, dtype=torch.int64)
    if cu is None:
        sel = idx.permute(0, 2, 1, 3).reshape(tokens, HK, S).long()  # (B, HK, N, S) -> token-major
        nb_seq = -(-N // block_size)
        seq = t // N
        pos = t - seq * N
        blk_start = seq * nb_seq
        NB = (tokens // N) * nb_seq
        g = torch.arange(NB, device=dev, dtype=torch.int64)
        b = g // nb_seq
        rows = torch.stack([b * N, (g - b * nb_seq) * block_size, torch.full_like(g, N)], 1)
    else:
        sel = idx.long()
        cu64 = cu.long()
        lens = cu64[1:] - cu64[:-1]
        nb = (lens + block_size - 1) // block_size
        cu_blk = torch.cat([nb.new_zeros(1), nb.cumsum(0)])
        seq = torch.searchsorted(cu64[1:], t, right=True)
        pos = t - cu64[seq]
        blk_start = cu_blk[seq]
        NB = tokens // block_size + lens.numel()  # sum of ceil(len / bs) <= total / bs + B
        g = torch.arange(NB, device=dev, dtype=torch.int64)
        b = torch.searchsorted(cu_blk[1:], g, right=True).clamp(max=lens.numel() - 1)
        real = g < cu_blk[-1]
        rows = torch.stack([cu64[b], (g - cu_blk[b]) * block_size, torch.where(real, lens[b], 0)], 1)
        rows[:, 1] = torch.where(real, rows[:, 1], 0)
    valid = (sel >= 0) & (sel * block_size <= pos[:, None, None])
    h = torch.arange(HK, device=dev, dtype=torch.int64)[None, :, None]
    key = torch.where(valid, (blk_start[:, None, None] + sel) * HK + h, NB * HK).reshape(-1)
    key, order = torch.sort(key, stable=True)
    toks = (order // (HK * S)).to(torch.int32)
    counts = torch.bincount(key, minlength=NB * HK + 1)[:NB * HK]
    offs = (counts.cumsum(0) - counts).to(torch.int32)
    return rows.to(torch.int32).contiguous(), toks, offs, counts.to(torch.int32), NB


def _backward(do, q, k, v, o, lse, idx, block_size, sm_scale, cu):
    import torch

    kn = _kernels()
    varlen = cu is not None
    tokens, N, bos = _geometry(q, idx, cu)
    HQ, HK, D, S = q.shape[1], k.shape[1], q.shape[-1], idx.shape[-1]
    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    if tokens == 0:
        return dq, dk.zero_(), dv.zero_()
    delta = torch.empty((tokens, HQ), dtype=torch.float32, device=q.device)
    sq, sk = _strides(q, varlen), _strides(k, varlen)
    cx = kn.tile_constexprs(HQ // HK, D, S, block_size)
    rows, toks, offs, counts, NB = _block_lists(idx, cu, tokens, N, HK, block_size)
    with torch.cuda.device(q.device):
        fast_launch(kn.nsa_bwd_dq, (tokens, HK), (q, k, v, o, do, idx, bos, lse, delta, dq, float(sm_scale), N, HQ)
                    + sq + sk + _strides(idx, varlen), dict(cx, VARLEN=varlen, num_warps=NUM_WARPS))
        # 128-key blocks: two warpgroups split M; two stages of Q/dO fit next to K and V.
        fast_launch(kn.nsa_bwd_dkv, (NB, HK), (q, k, v, do, lse, delta, rows, toks, offs, counts, dk, dv,
                                               float(sm_scale), N, HQ, HK) + sq + sk,
                    dict(kn.dkv_constexprs(HQ // HK, D, block_size), VARLEN=varlen,
                         num_warps=8 if block_size == 128 else NUM_WARPS, num_stages=2 if block_size == 128 else 3))
    return dq, dk, dv


_op = None


def _custom_op():
    global _op
    if _op is None:
        from typing import Optional

        import torch

        @torch.library.custom_op("txl::nsa_selection_attention", mutates_args=(), device_types="cuda")
        def nsa_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, idx: torch.Tensor, block_size: int,
                   sm_scale: float, cu: Optional[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
            return _forward(q, k, v, idx, block_size, sm_scale, cu)

        @nsa_op.register_fake
        def _(q, k, v, idx, block_size, sm_scale, cu):
            tokens = q.shape[0] if cu is not None else q.shape[0] * q.shape[2]
            return torch.empty_like(q), q.new_empty((tokens, q.shape[1]), dtype=torch.float32)

        def setup_context(ctx, inputs, output):
            q, k, v, idx, block_size, sm_scale, cu = inputs
            o, lse = output
            ctx.mark_non_differentiable(lse)
            ctx.save_for_backward(q, k, v, o, lse, idx, cu)
            ctx.args = (block_size, sm_scale)

        @torch.library.custom_op("txl::nsa_selection_attention_backward", mutates_args=(), device_types="cuda")
        def nsa_backward_op(do: torch.Tensor, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor,
                            lse: torch.Tensor, idx: torch.Tensor, block_size: int, sm_scale: float,
                            cu: Optional[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            return _backward(do, q, k, v, o, lse, idx, block_size, sm_scale, cu)

        @nsa_backward_op.register_fake
        def _(do, q, k, v, o, lse, idx, block_size, sm_scale, cu):
            return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)

        def backward(ctx, do, dlse):
            q, k, v, o, lse, idx, cu = ctx.saved_tensors
            dq, dk, dv = nsa_backward_op(do.contiguous(), q, k, v, o, lse, idx, *ctx.args, cu)
            return dq, dk, dv, None, None, None, None

        nsa_op.register_autograd(backward, setup_context=setup_context)
        _op = nsa_op
    return _op


def nsa_selection_attention(q, k, v, block_indices, block_size=64, sm_scale=None, cu_seqlens=None,
                            return_lse=False):
    """Selection attention; see the module docstring."""
    import torch

    _check(torch, q, k, v, block_indices, block_size, sm_scale, cu_seqlens)
    if not isinstance(return_lse, bool):
        raise TypeError("%s: return_lse must be a bool" % _WHERE)
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(q.shape[-1])
    q, k, v = (t.contiguous() for t in (q, k, v))
    idx = block_indices.to(torch.int32).contiguous()
    cu = None if cu_seqlens is None else cu_seqlens.contiguous()
    from txl.ops import _launch

    args = (q, k, v, idx, int(block_size), float(sm_scale), cu)
    # The custom op (its autograd formula, torch.compile's fake) when tracing or when a gradient is wanted; else the
    # kernels directly: the custom op's dispatch alone costs tens of microseconds of host time per call.
    if _launch.tracing(torch) or (torch.is_grad_enabled() and (q.requires_grad or k.requires_grad
                                                                or v.requires_grad)):
        o, lse2 = _custom_op()(*args)
    else:
        o, lse2 = _forward(*args)
    if not return_lse:
        return o
    lse = lse2 * math.log(2.0)  # (tokens, HQ), log2 -> natural
    if cu is None:
        lse = lse.view(q.shape[0], q.shape[2], q.shape[1]).transpose(1, 2).contiguous()  # (B, HQ, N)
    else:
        lse = lse.t().contiguous()  # (HQ, total)
    return o, lse


def nsa_reference(q, k, v, block_indices, block_size=64, sm_scale=None, cu_seqlens=None):
    """float32 torch reference of nsa_selection_attention (dense masks per sequence; for tests and benchmarks)."""
    import torch

    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(q.shape[-1])
    if cu_seqlens is None:
        seqs = [(q[b], k[b], v[b], block_indices[b]) for b in range(q.shape[0])]
    else:
        cu = cu_seqlens.tolist()
        seqs = [(q[a:e].transpose(0, 1), k[a:e].transpose(0, 1), v[a:e].transpose(0, 1),
                 block_indices[a:e].transpose(0, 1)) for a, e in zip(cu[:-1], cu[1:])]
    outs = []
    for qs, ks, vs, sel in seqs:  # (H, n, D), (HK, n, D), (HK, n, S)
        HQ, n, _ = qs.shape
        HK = ks.shape[0]
        nb = max(1, -(-n // block_size))
        hit = torch.zeros(HK, n, nb + 1, dtype=torch.float32, device=q.device)
        sel = sel.long()
        sel = torch.where((sel >= 0) & (sel < nb), sel, nb)
        hit.scatter_add_(2, sel, torch.ones_like(sel, dtype=torch.float32))  # times each block is listed
        mult = hit[..., :nb].repeat_interleave(block_size, dim=2)[..., :n]  # (HK, n queries, n keys)
        causal = torch.ones(n, n, dtype=torch.bool, device=q.device).tril()
        mult = torch.where(causal, mult, 0.0).repeat_interleave(HQ // HK, dim=0)
        kf = ks.float().repeat_interleave(HQ // HK, dim=0)
        vf = vs.float().repeat_interleave(HQ // HK, dim=0)
        s = (qs.float() @ kf.transpose(1, 2)) * sm_scale
        mx = torch.where(mult > 0, s, float("-inf")).amax(-1, keepdim=True)
        w = torch.exp(s - torch.where(torch.isinf(mx), 0.0, mx).detach()) * mult
        den = w.sum(-1, keepdim=True)
        o = (w @ vf) / torch.where(den > 0, den, 1.0)
        outs.append(o)
    if cu_seqlens is None:
        return torch.stack(outs)
    return torch.cat([o.transpose(0, 1) for o in outs]) if outs else q.float() * 0
