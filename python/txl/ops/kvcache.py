"""``txl.ops.flash_attention_with_kvcache``: decoding attention (MHA, GQA, MQA) over a paged or contiguous KV cache
in FlashAttention's interface (``flash_attn_with_kvcache``), split-KV + combine. Inference only.

    o = txl.ops.flash_attention_with_kvcache(q, k_cache, v_cache, block_table=bt, cache_seqlens=lens)

* q (B, S_Q, H, D): S_Q new tokens per sequence (1 for decoding, up to 8 for speculative decoding).
* k_cache / v_cache, paged (``block_table`` given): (num_blocks, page_size, H_KV, D), page_size a power of two
  >= 16 (16 .. 256 are the tested ones); block_table (B, max_blocks) int32 lists sequence b's pages in order.
  Unpaged (block_table None): (B, seqlen_cache, H_KV, D), sequence b's keys are row b. The caches may be strided
  (a slice of a larger buffer) as long as their last dimension is contiguous.
* H a multiple of H_KV (the group: H / H_KV query heads share a KV head); D 64, 128 or 256; fp16 or bf16, one
  dtype for q and both caches.
* cache_seqlens: (B,) int32 tensor or an int, the keys of each sequence (default: all the cache can address,
  max_blocks * page_size or seqlen_cache). A length of 0 gives O = 0 and lse = +inf.
* causal: with S_Q > 1, token i sees the keys up to position cache_seqlens - S_Q + i (the new tokens are the last
  S_Q of the cache: FlashAttention's bottom-right alignment); a token that sees no key gets O = 0, lse = +inf.
  With S_Q = 1 causal changes nothing.
* softmax_scale: default D ** -0.5. num_splits: 0 picks by the occupancy rule (``default_splits``), else 1 .. 64
  parts of each sequence's cache, one program each, merged by a second kernel.
* return_softmax_lse: also return the natural-log log-sum-exp, (B, H, S_Q) float32 (FlashAttention's layout).
* check_lengths (default True): before launching, read cache_seqlens and the used block-table entries back to
  the host once (a device sync, skipped while a CUDA graph is being captured) and raise a located ValueError when
  a length exceeds what the block table addresses, is negative, or a used page index lies outside the cache.
  Pass False in a decoding loop that already knows its tables are right: the kernel still never reads outside
  the block table (longer lengths are cut to it) or the cache (such pages read as masked keys).

Not in FlashAttention's set here: appending new k / v into the cache, rotary, cache_batch_idx, cache_leftpad,
window_size, softcap, alibi.

Kernels: txl/kernels/kvcache_decode.py (Triton-style; a KV head's query heads x S_Q tokens share one tile).
"""

import math

_WHERE = "txl.ops.flash_attention_with_kvcache"
MAX_SPLITS = 64
HEAD_DIMS = (64, 128, 256)


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _check(torch, q, kc, vc, bt, seqlens, scale, causal, num_splits):
    """Shapes, dtypes, devices and options; raises with what was expected and how to fix it."""
    tensors = [("q", q), ("k_cache", kc), ("v_cache", vc)]
    if bt is not None:
        tensors.append(("block_table", bt))
    if isinstance(seqlens, torch.Tensor):
        tensors.append(("cache_seqlens", seqlens))
    for name, t in tensors:
        if not isinstance(t, torch.Tensor):
            raise TypeError("%s: %s must be a torch.Tensor, got %s" % (_WHERE, name, type(t).__name__))
    for name, t in tensors:
        if t.device.type != "cuda" or t.device != q.device:
            raise ValueError("%s: %s is on %s: all inputs must be on one CUDA device" % (_WHERE, name, t.device))
    if q.dim() != 4:
        raise ValueError("%s: q must be (batch, seqlen_q, nheads, headdim), got shape %s (a single decoding token "
                         "is q.unsqueeze(1))" % (_WHERE, tuple(q.shape)))
    B, s_q, H, D = q.shape
    for name, c in (("k_cache", kc), ("v_cache", vc)):
        if c.dim() != 4:
            raise ValueError("%s: %s must be (num_blocks, page_size, nheads_k, headdim) or, without block_table, "
                             "(batch, seqlen_cache, nheads_k, headdim); got shape %s" % (_WHERE, name,
                                                                                        tuple(c.shape)))
    if tuple(kc.shape) != tuple(vc.shape):
        raise ValueError("%s: k_cache %s and v_cache %s must have one shape (a V head dim other than K's is not "
                         "supported)" % (_WHERE, tuple(kc.shape), tuple(vc.shape)))
    if q.dtype not in (torch.float16, torch.bfloat16) or kc.dtype != q.dtype or vc.dtype != q.dtype:
        raise TypeError("%s: q, k_cache and v_cache must share one dtype of torch.float16, torch.bfloat16; got "
                        "%s, %s, %s" % (_WHERE, q.dtype, kc.dtype, vc.dtype))
    if kc.shape[3] != D:
        raise ValueError("%s: head dim of q (%d) and k_cache (%d) differ" % (_WHERE, D, kc.shape[3]))
    if D not in HEAD_DIMS:
        raise ValueError("%s: head dim %d is not supported: one of %s" % (_WHERE, D, HEAD_DIMS))
    h_kv = kc.shape[2]
    if h_kv == 0 or H % h_kv:
        raise ValueError("%s: nheads of q (%d) must be a multiple of nheads_k of the cache (%d)" % (_WHERE, H,
                                                                                                  h_kv))
    if not 1 <= s_q <= 8:
        raise ValueError("%s: seqlen_q (q.shape[1]) must be 1 .. 8 new tokens per sequence, got %d (prefill "
                         "belongs to txl.ops.flash_attention)" % (_WHERE, s_q))
    for name, c in (("k_cache", kc), ("v_cache", vc)):
        if c.stride(3) != 1:
            raise ValueError("%s: %s's last dimension must be contiguous (stride 1), got strides %s; pass "
                             "%s.contiguous()" % (_WHERE, name, tuple(c.stride()), name))
    if bt is not None:
        page = kc.shape[1]
        if page < 16 or page & (page - 1):
            raise ValueError("%s: page_size (k_cache.shape[1]) must be a power of two >= 16, got %d"
                             % (_WHERE, page))
        if bt.dtype != torch.int32 or bt.dim() != 2 or bt.shape[0] != B:
            raise ValueError("%s: block_table must be (batch, max_blocks) torch.int32 with batch = %d, got %s %s"
                             % (_WHERE, B, bt.dtype, tuple(bt.shape)))
    elif kc.shape[0] != B:
        raise ValueError("%s: without block_table, k_cache holds one row per sequence: its shape[0] (%d) must be "
                         "q's batch (%d)" % (_WHERE, kc.shape[0], B))
    if isinstance(seqlens, torch.Tensor):
        if seqlens.dtype != torch.int32 or tuple(seqlens.shape) != (B,):
            raise ValueError("%s: cache_seqlens must be a (batch,) torch.int32 tensor with batch = %d, got %s %s"
                             % (_WHERE, B, seqlens.dtype, tuple(seqlens.shape)))
    elif seqlens is not None and not (_is_int(seqlens) and seqlens >= 0):
        raise ValueError("%s: cache_seqlens must be a tensor, a non-negative int or None, got %r" % (_WHERE,
                                                                                                    seqlens))
    if scale is not None and (isinstance(scale, bool) or not isinstance(scale, (int, float))
                              or not (math.isfinite(scale) and scale > 0)):
        raise ValueError("%s: softmax_scale must be a positive finite float or None, got %r" % (_WHERE, scale))
    if not isinstance(causal, bool):
        raise TypeError("%s: causal must be a bool, got %r" % (_WHERE, causal))
    if not (_is_int(num_splits) and 0 <= num_splits <= MAX_SPLITS):
        raise ValueError("%s: num_splits must be an int in 0 (automatic) .. %d, got %r" % (_WHERE, MAX_SPLITS,
                                                                                          num_splits))


def _check_lengths(torch, bt, seqlens, page, cap, n_pages):
    """The data checks (one device sync): every length in 0 .. cap, every page a sequence uses in 0 .. n_pages."""
    if torch.cuda.is_current_stream_capturing():
        return
    lens = seqlens.long()
    if bt is None:
        lo, hi, bad_page = lens.min(), lens.max(), torch.zeros((), dtype=torch.long, device=lens.device)
    else:
        used = torch.arange(bt.shape[1], device=bt.device)[None, :] < ((lens.clamp(0, cap) + page - 1) // page)[:, None]
        out_of_range = used & ((bt < 0) | (bt >= n_pages))
        bad_page = torch.where(out_of_range.any(1), torch.arange(bt.shape[0], device=bt.device), -1).max()
        lo, hi = lens.min(), lens.max()
    lo, hi, bad = (int(x) for x in torch.stack([lo, hi, bad_page]).tolist())
    if lo < 0:
        raise ValueError("%s: cache_seqlens has a negative length (%d)" % (_WHERE, lo))
    if hi > cap:
        raise ValueError("%s: cache_seqlens has a length of %d keys, but the %s addresses only %d: %s"
                         % (_WHERE, hi, "block_table" if bt is not None else "cache",
                            cap, "give block_table more columns (max_blocks >= ceil(len / page_size))"
                            if bt is not None else "use a longer cache"))
    if bt is not None and bad >= 0:
        raise ValueError("%s: block_table row %d uses a page index outside 0 .. %d (k_cache.shape[0] - 1) within "
                         "its cache_seqlens" % (_WHERE, bad, n_pages - 1))


_SMS = {}


def default_splits(programs, capacity, device):
    """The occupancy rule: split each sequence until the grid has about four programs per SM (``programs``: the
    programs of one split, batch x KV heads x row blocks), at most one split per 256 keys the cache can hold,
    at most MAX_SPLITS. (MLA decoding, the same kernel design, measured 0.151 ms with 5 splits and 0.134 with 10 at
    (64, 16, 4096) on the H100.)"""
    import torch

    if device not in _SMS:
        _SMS[device] = torch.cuda.get_device_properties(device).multi_processor_count
    want = -(-4 * _SMS[device] // max(programs, 1))
    return max(1, min(want, capacity // 256, MAX_SPLITS))


def _forward(q, kc, vc, bt, seqlens, scale, causal, num_splits, page, cap):
    """(o (B, S_Q, H, D), lse2 (B, S_Q, H) float32 log2 units) of validated inputs (q contiguous)."""
    import torch

    from txl.kernels import kvcache_decode as kk
    from txl.ops.attention import fast_launch

    B, s_q, H, D = q.shape
    h_kv = kc.shape[2]
    o = torch.empty_like(q)
    lse = torch.empty((B, s_q, H), dtype=torch.float32, device=q.device)
    if o.numel() == 0:
        return o, lse
    cx = kk.split_constexprs(D, H // h_kv, s_q, page, num_splits, causal)
    if num_splits > 1:
        part_o = torch.empty((B, s_q, H, num_splits, D), dtype=torch.float32, device=q.device)
        part_lse = torch.empty((B, s_q, H, num_splits), dtype=torch.float32, device=q.device)
    else:  # the split kernel writes O and LSE itself
        part_o, part_lse = lse, lse
    with torch.cuda.device(q.device):
        fast_launch(kk.kvcache_decode_split, (B, h_kv * cx["M_BLOCKS"], num_splits),
                    (q, kc, vc, bt, seqlens, o, lse, part_o, part_lse, float(scale), H, cap, kc.shape[0],
                     bt.stride(0), kc.stride(0), kc.stride(1), kc.stride(2), vc.stride(0), vc.stride(1),
                     vc.stride(2)), dict(cx, num_warps=4))
        if num_splits > 1:
            fast_launch(kk.kvcache_decode_combine, (B * s_q, H), (part_o, part_lse, o, lse, H),
                        dict(D=D, NUM_SPLITS=num_splits, SPLITS_P=kk.next_power_of_2(num_splits), num_warps=4))
    return o, lse


_op = None


def _custom_op():
    global _op
    if _op is None:
        import torch

        @torch.library.custom_op("txl::flash_attention_with_kvcache", mutates_args=(), device_types="cuda")
        def kvcache_op(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, block_table: torch.Tensor,
                       cache_seqlens: torch.Tensor, softmax_scale: float, causal: bool, num_splits: int,
                       page_size: int, capacity: int) -> tuple[torch.Tensor, torch.Tensor]:
            return _forward(q.contiguous(), k_cache, v_cache, block_table, cache_seqlens, softmax_scale, causal,
                            num_splits, page_size, capacity)

        @kvcache_op.register_fake
        def _(q, k_cache, v_cache, block_table, cache_seqlens, softmax_scale, causal, num_splits, page_size,
              capacity):
            return torch.empty_like(q, memory_format=torch.contiguous_format), \
                q.new_empty(q.shape[:3], dtype=torch.float32)

        _op = kvcache_op
    return _op


def flash_attention_with_kvcache(q, k_cache, v_cache, block_table=None, cache_seqlens=None, softmax_scale=None,
                                 causal=False, num_splits=0, return_softmax_lse=False, check_lengths=True):
    """Decoding attention over a KV cache; see the module docstring."""
    import torch

    _check(torch, q, k_cache, v_cache, block_table, cache_seqlens, softmax_scale, causal, num_splits)
    if not isinstance(return_softmax_lse, bool) or not isinstance(check_lengths, bool):
        raise TypeError("%s: return_softmax_lse and check_lengths must be bools" % _WHERE)
    B, s_q, H, D = q.shape
    paged = block_table is not None
    if not paged:
        # Unpaged: one "page" per sequence, as long as a power of two that holds the cache's rows (the kernel
        # divides positions by it); the page stride is the batch stride.
        page = max(64, 1 << (k_cache.shape[1] - 1).bit_length())
        cap = k_cache.shape[1]
        block_table = torch.arange(B, dtype=torch.int32, device=q.device)[:, None]
    else:
        page = k_cache.shape[1]
        cap = block_table.shape[1] * page
    span = max(c.shape[1] * c.stride(1) + c.shape[2] * c.stride(2) for c in (k_cache, v_cache))
    if span >= 2 ** 31:
        # The kernel offsets a key within its page in int32 (the page's own offset is int64).
        raise ValueError("%s: a page (or, unpaged, a sequence's cache row) spans %d elements, past int32 offsets: "
                         "use a paged cache (block_table)" % (_WHERE, span))
    lengths_given = isinstance(cache_seqlens, torch.Tensor)
    if not lengths_given:
        n = cap if cache_seqlens is None else cache_seqlens
        if n > cap:
            raise ValueError("%s: cache_seqlens = %d exceeds the %d keys the %s addresses" % (
                _WHERE, n, cap, "block_table" if paged else "cache"))
        cache_seqlens = torch.full((B,), n, dtype=torch.int32, device=q.device)
    if check_lengths and B > 0 and (lengths_given or paged):
        _check_lengths(torch, block_table if paged else None, cache_seqlens, page, cap, k_cache.shape[0])
    if softmax_scale is None:
        softmax_scale = D ** -0.5
    if num_splits == 0:
        from txl.kernels.kvcache_decode import row_block

        num_splits = default_splits(B * k_cache.shape[2] * row_block(H // k_cache.shape[2], s_q)[1], cap,
                                    q.device)
    from txl.ops import _launch

    args = (k_cache, v_cache, block_table.contiguous(), cache_seqlens.contiguous(), float(softmax_scale), causal,
            int(num_splits), int(page), int(cap))
    # torch.compile and other tracing record the custom op (so does a call whose inputs want a gradient: the op has
    # no backward, and torch says so through it); an eager call launches directly (the custom op's dispatch cost
    # 50-90 us of host time per call on the H200's host: more than a short decoding step's kernels).
    traced = _launch.tracing(torch) or (torch.is_grad_enabled() and (q.requires_grad or k_cache.requires_grad
                                                                     or v_cache.requires_grad))
    o, lse2 = _custom_op()(q, *args) if traced else _forward(q.contiguous(), *args)
    if return_softmax_lse:
        return o, (lse2 * math.log(2.0)).permute(0, 2, 1)
    return o


def kvcache_reference(q, k_cache, v_cache, block_table, cache_seqlens, softmax_scale=None, causal=False):
    """float32 torch reference: (o (B, S_Q, H, D), lse (B, H, S_Q) natural log) gathered page by page (tests,
    benchmarks). Rows that see no key: o = 0, lse = +inf."""
    import torch

    B, s_q, H, D = q.shape
    h_kv = k_cache.shape[2]
    scale = D ** -0.5 if softmax_scale is None else softmax_scale
    o = torch.zeros(B, s_q, H, D, device=q.device)
    lse = torch.full((B, H, s_q), math.inf, device=q.device)
    for b in range(B):
        n = int(cache_seqlens[b])
        if block_table is None:
            k, v = k_cache[b, :n], v_cache[b, :n]
        else:
            page = k_cache.shape[1]
            pages = block_table[b, :-(-n // page)].long()
            k = k_cache[pages].reshape(-1, h_kv, D)[:n]
            v = v_cache[pages].reshape(-1, h_kv, D)[:n]
        k = k.float().repeat_interleave(H // h_kv, 1).transpose(0, 1)  # (H, n, D)
        v = v.float().repeat_interleave(H // h_kv, 1).transpose(0, 1)
        s = (q[b].float().transpose(0, 1) @ k.transpose(1, 2)) * scale  # (H, s_q, n)
        if causal:
            last = n - s_q + torch.arange(s_q, device=q.device)
            s = s.masked_fill(torch.arange(n, device=q.device)[None, :] > last[:, None], -math.inf)
        seen = torch.isfinite(s).any(-1)  # (H, s_q)
        p = torch.softmax(s.masked_fill(~seen[..., None], 0.0), -1) * seen[..., None]
        o[b] = (p @ v).transpose(0, 1)
        lse[b] = torch.where(seen, torch.logsumexp(s, -1), math.inf)
    return o, lse
