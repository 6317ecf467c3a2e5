"""``txl.ops.mla_decode``: DeepSeek MLA decoding over a paged latent KV cache (FlashMLA's interface, one query token
per sequence), split-KV + combine.

    o = txl.ops.mla_decode(q, kv_cache, block_table, cache_seqlens)

* q (B, H, 576) or (B, 1, H, 576): per query head [q_nope absorbed into the latent space (512) | q_pe (64)].
* kv_cache (num_pages, page_size, 576) or (num_pages, page_size, 1, 576): per cached token [latent c (512) |
  k_pe (64)], one latent head shared by all query heads; V is c (the first 512 columns). page_size a power of two
  >= 16.
* block_table (B, max_pages) int32: the cache pages of sequence b in order; cache_seqlens (B,) int32: its length
  (<= max_pages * page_size; 0 gives O = 0 and lse = +inf).
* bf16 or fp16; H any count >= 1 (16 heads per program); ``sm_scale`` defaults to 576 ** -0.5 (DeepSeek models pass
  their own, 192 ** -0.5 times the YaRN factor).
* ``num_splits``: parts each sequence's cache is split into (Flash-Decoding), one program each, combined by a
  second kernel; by default enough programs for four per SM, at most one split per 256 cached tokens.
* Returns o (like q with 512 columns) and, with ``return_lse``, the natural-log log-sum-exp (B, H) float32.
  Inference only (no autograd).

Kernels: txl/kernels/mla_decode.py (Triton-style: page lookups as scalar loads, tl.dot on mma.sync with M = 16).
"""

import math

_WHERE = "txl.ops.mla_decode"
D_V, D_PE = 512, 64
MAX_SPLITS = 64


def _check(torch, q, kv, bt, seqlens, sm_scale, num_splits):
    for name, t in (("q", q), ("kv_cache", kv), ("block_table", bt), ("cache_seqlens", seqlens)):
        if not isinstance(t, torch.Tensor):
            raise TypeError("%s: %s must be a torch.Tensor, got %s" % (_WHERE, name, type(t).__name__))
        if t.device.type != "cuda" or t.device != q.device:
            raise ValueError("%s: %s is on %s: all inputs must be on one CUDA device" % (_WHERE, name, t.device))
    D = D_V + D_PE
    if not (q.dim() == 3 or (q.dim() == 4 and q.shape[1] == 1)) or q.shape[-1] != D:
        raise ValueError("%s: q must be (B, H, %d) or (B, 1, H, %d) (one query token per sequence), got %s"
                         % (_WHERE, D, D, tuple(q.shape)))
    if not (kv.dim() == 3 or (kv.dim() == 4 and kv.shape[2] == 1)) or kv.shape[-1] != D:
        raise ValueError("%s: kv_cache must be (num_pages, page_size, %d) or (num_pages, page_size, 1, %d), got %s"
                         % (_WHERE, D, D, tuple(kv.shape)))
    page = kv.shape[1]
    if page < 16 or page & (page - 1):
        raise ValueError("%s: page_size (kv_cache.shape[1]) must be a power of two >= 16, got %d" % (_WHERE, page))
    if q.dtype not in (torch.bfloat16, torch.float16) or kv.dtype != q.dtype:
        raise TypeError("%s: q and kv_cache must share one dtype of torch.bfloat16, torch.float16; got %s, %s"
                        % (_WHERE, q.dtype, kv.dtype))
    B = q.shape[0]
    if bt.dtype != torch.int32 or bt.dim() != 2 or bt.shape[0] != B:
        raise ValueError("%s: block_table must be (B, max_pages) torch.int32 with B = %d, got %s %s"
                         % (_WHERE, B, bt.dtype, tuple(bt.shape)))
    if seqlens.dtype != torch.int32 or tuple(seqlens.shape) != (B,):
        raise ValueError("%s: cache_seqlens must be (B,) torch.int32 with B = %d, got %s %s"
                         % (_WHERE, B, seqlens.dtype, tuple(seqlens.shape)))
    if sm_scale is not None and (isinstance(sm_scale, bool) or not isinstance(sm_scale, (int, float))
                                 or not (math.isfinite(sm_scale) and sm_scale > 0)):
        raise ValueError("%s: sm_scale must be a positive finite float or None, got %r" % (_WHERE, sm_scale))
    if num_splits is not None and (isinstance(num_splits, bool) or not isinstance(num_splits, int)
                                   or not 1 <= num_splits <= MAX_SPLITS):
        raise ValueError("%s: num_splits must be an int in 1 .. %d or None, got %r" % (_WHERE, MAX_SPLITS,
                                                                                     num_splits))


_SMS = {}


def default_splits(batch, heads, capacity, device):
    """Splits for about four programs per SM (measured on the H100 at (64, 16, 4096): 0.151 ms with 5 splits, 0.134
    with 10), at most one per 256 cache slots of a sequence."""
    import torch

    if device not in _SMS:
        _SMS[device] = torch.cuda.get_device_properties(device).multi_processor_count
    programs = batch * -(-heads // 16)
    want = -(-4 * _SMS[device] // max(programs, 1))
    return max(1, min(want, capacity // 256, MAX_SPLITS))


def _forward(q, kv, bt, seqlens, sm_scale, num_splits):
    """(o (B, H, 512), lse2 (B, H) float32 log2 units) of validated 3-D contiguous inputs."""
    import torch

    from txl.kernels import mla_decode as km
    from txl.ops.attention import fast_launch

    B, H, _ = q.shape
    page = kv.shape[1]
    o = torch.empty((B, H, D_V), dtype=q.dtype, device=q.device)
    lse = torch.empty((B, H), dtype=torch.float32, device=q.device)
    if B * H == 0:
        return o, lse
    part_o = torch.empty((B, H, num_splits, D_V), dtype=torch.float32, device=q.device)
    part_lse = torch.empty((B, H, num_splits), dtype=torch.float32, device=q.device)
    cx = km.split_constexprs(page, num_splits, D_V, D_PE)
    # Through the fast launch path: decoding kernels take tens of microseconds, the generic launch about as much.
    with torch.cuda.device(q.device):
        fast_launch(km.mla_decode_split, (B, -(-H // cx["BLOCK_H"]), num_splits),
                    (q, kv, bt, seqlens, part_o, part_lse, float(sm_scale), H, bt.stride(0)), dict(cx, num_warps=4))
        fast_launch(km.mla_decode_combine, (B, H), (part_o, part_lse, o, lse, H),
                    dict(D_V=D_V, NUM_SPLITS=num_splits, SPLITS_P=km.next_power_of_2(num_splits), num_warps=4))
    return o, lse


_op = None


def _custom_op():
    global _op
    if _op is None:
        import torch

        @torch.library.custom_op("txl::mla_decode", mutates_args=(), device_types="cuda")
        def mla_op(q: torch.Tensor, kv: torch.Tensor, bt: torch.Tensor, seqlens: torch.Tensor, sm_scale: float,
                   num_splits: int) -> tuple[torch.Tensor, torch.Tensor]:
            return _forward(q, kv, bt, seqlens, sm_scale, num_splits)

        @mla_op.register_fake
        def _(q, kv, bt, seqlens, sm_scale, num_splits):
            return (q.new_empty((q.shape[0], q.shape[1], D_V)),
                    q.new_empty((q.shape[0], q.shape[1]), dtype=torch.float32))

        _op = mla_op
    return _op


def mla_decode(q, kv_cache, block_table, cache_seqlens, sm_scale=None, num_splits=None, return_lse=False):
    """MLA decoding; see the module docstring."""
    import torch

    _check(torch, q, kv_cache, block_table, cache_seqlens, sm_scale, num_splits)
    if not isinstance(return_lse, bool):
        raise TypeError("%s: return_lse must be a bool" % _WHERE)
    four_d = q.dim() == 4
    q3 = q.reshape(q.shape[0], q.shape[-2], q.shape[-1]).contiguous()
    kv3 = kv_cache.reshape(kv_cache.shape[0], kv_cache.shape[1], kv_cache.shape[-1]).contiguous()
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(D_V + D_PE)
    if num_splits is None:
        num_splits = default_splits(q3.shape[0], q3.shape[1], block_table.shape[1] * kv3.shape[1], q.device)
    o, lse2 = _custom_op()(q3, kv3, block_table.contiguous(), cache_seqlens.contiguous(), float(sm_scale),
                           int(num_splits))
    if four_d:
        o = o.unsqueeze(1)
    return (o, lse2 * math.log(2.0)) if return_lse else o


def mla_reference(q, kv_cache, block_table, cache_seqlens, sm_scale=None):
    """float32 torch reference: (o (B, H, 512), lse (B, H) natural log) for 3-D q and kv_cache (tests, benchmarks)."""
    import torch

    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(D_V + D_PE)
    page = kv_cache.shape[1]
    outs, lses = [], []
    for b in range(q.shape[0]):
        n = int(cache_seqlens[b])
        pages = block_table[b, :-(-n // page)].long()
        rows = kv_cache[pages].reshape(-1, kv_cache.shape[-1])[:n].float()  # (n, 576)
        s = (q[b].float() @ rows.T) * sm_scale  # (H, n)
        if n == 0:
            outs.append(torch.zeros(q.shape[1], D_V, device=q.device))
            lses.append(torch.full((q.shape[1],), math.inf, device=q.device))
            continue
        outs.append(torch.softmax(s, -1) @ rows[:, :D_V])
        lses.append(torch.logsumexp(s, -1))
    return torch.stack(outs), torch.stack(lses)
