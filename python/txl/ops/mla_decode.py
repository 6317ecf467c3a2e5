"""``txl.ops.mla_decode``: DeepSeek MLA decoding over a paged latent KV cache (FlashMLA's interface), split-KV +
combine.

    o = txl.ops.mla_decode(q, kv_cache, block_table, cache_seqlens)

* q (B, H, 576) (one query token per sequence) or (B, S_Q, H, 576) (S_Q query tokens: speculative decoding): per
  query head [q_nope absorbed into the latent space (512) | q_pe (64)].
* kv_cache (num_pages, page_size, 576) or (num_pages, page_size, 1, 576): per cached token [latent c (512) |
  k_pe (64)], one latent head shared by all query heads; V is c (the first 512 columns). page_size a power of two
  >= 16.
* block_table (B, max_pages) int32: the cache pages of sequence b in order; cache_seqlens (B,) int32: its length
  (<= max_pages * page_size; 0 gives O = 0 and lse = +inf).
* bf16 or fp16; H any count >= 1; ``sm_scale`` defaults to 576 ** -0.5 (DeepSeek models pass their own, 192 ** -0.5
  times the YaRN factor).
* FP8 cache: kv_cache torch.float8_e4m3fn (same layout, 16-byte aligned) with q bf16 or fp16, and ``kv_scale`` its
  per-tensor float32 dequantization scale, a 0-d or (1,) tensor on q's device (FlashMLA's / FA3's descale: the real
  cache value is the e4m3 value * kv_scale; None: 1.0). The kernel reads the e4m3 rows (half the bytes), converts
  them to q's dtype in shared memory (exact) and folds the scale into the softmax scale (S = q . k * kv_scale *
  sm_scale) and the output (O = P V * kv_scale); the scale is read on the GPU (no host synchronisation). O is q's
  dtype. Every FP8 shape runs on txl/kernels/mla_decode_fp8.py (the mma.sync kernel's FP8 variant, 16 rows per
  program); the wgmma kernel has no FP8 variant yet, so with 64+ query rows per sequence (compute-bound) an FP8
  cache is expected to be slower than a bf16 one (not measured). kv_scale with a bf16/fp16 cache is an error.
* ``causal`` (S_Q > 1): query token t is the cache's position seqlen - S_Q + t and sees the keys up to it
  (FlashAttention's bottom-right alignment); without it every token sees the whole cache (FlashMLA's default).
* ``num_splits``: parts each sequence's cache is split into (Flash-Decoding), one program each, combined by a
  second kernel; by default chosen for the grid to fill the GPU's SMs (``default_splits``).
* Returns o (like q with 512 columns) and, with ``return_lse``, the natural-log log-sum-exp float32, (B, H) for
  one query token (3-D q, or S_Q == 1), (B, S_Q, H) for several. Inference only (no autograd).

Kernels: a sequence's S_Q * H query rows, when more than 16 and the pages hold whole 64-key tiles, run on the
wgmma kernel (TXL-style, FlashMLA's design: 64 rows per CTA, padded below 64, TMA, wgmma, two consumer warpgroups
splitting the 512 output columns; compute-bound at 128 heads), in the seesaw schedule
(txl/kernels/mla_decode_seesaw.py; SCHEDULE = "fa3": txl/kernels/mla_decode_wgmma.py); 16 rows or fewer, or
16/32-key pages on txl/kernels/mla_decode.py (Triton-style: page lookups as scalar loads, tl.dot on mma.sync with
M = 16; memory-bound); an FP8 cache on txl/kernels/mla_decode_fp8.py whatever the rows.
"""

import functools
import math
from typing import Optional

_WHERE = "txl.ops.mla_decode"
D_V, D_PE = 512, 64
MAX_SPLITS = 64


def _check_dtypes(torch, q, kv, kv_scale):
    """q's and the cache's dtypes, and kv_scale (FP8 caches only): a float32 0-d or (1,) tensor on q's device."""
    fp8 = kv.dtype == getattr(torch, "float8_e4m3fn", None)
    if q.dtype not in (torch.bfloat16, torch.float16) or (kv.dtype != q.dtype and not fp8):
        raise TypeError("%s: q must be torch.bfloat16 or torch.float16 and kv_cache q's dtype or "
                        "torch.float8_e4m3fn (with kv_scale); got %s, %s" % (_WHERE, q.dtype, kv.dtype))
    if fp8:
        if kv.data_ptr() % 16:
            raise ValueError("%s: a float8_e4m3fn kv_cache must start at a 16-byte aligned address (its rows are "
                             "copied 16 bytes at a time); got a view at offset %d bytes" % (_WHERE, kv.data_ptr() % 16))
        if kv_scale is not None:
            if not isinstance(kv_scale, torch.Tensor):
                raise TypeError("%s: kv_scale must be a torch.Tensor (float32, 0-d or (1,), on q's device), got %s"
                                % (_WHERE, type(kv_scale).__name__))
            if kv_scale.dtype != torch.float32 or kv_scale.dim() > 1 or kv_scale.numel() != 1:
                raise ValueError("%s: kv_scale must be one float32 value, a 0-d or (1,) tensor (the per-tensor "
                                 "dequantization scale: real value = fp8 value * kv_scale); got %s %s"
                                 % (_WHERE, kv_scale.dtype, tuple(kv_scale.shape)))
            if kv_scale.device != q.device:
                raise ValueError("%s: kv_scale is on %s, q on %s: kv_scale must be on q's device"
                                 % (_WHERE, kv_scale.device, q.device))
    elif kv_scale is not None:
        raise ValueError("%s: kv_scale is the dequantization scale of a torch.float8_e4m3fn kv_cache; this kv_cache "
                         "is %s (pass kv_scale=None)" % (_WHERE, kv.dtype))


def _check(torch, q, kv, bt, seqlens, sm_scale, num_splits, causal=False, kv_scale=None):
    from txl.ops import _launch

    for name, t in (("q", q), ("kv_cache", kv), ("block_table", bt), ("cache_seqlens", seqlens)):
        if not isinstance(t, torch.Tensor):
            raise TypeError("%s: %s must be a torch.Tensor, got %s" % (_WHERE, name, type(t).__name__))
        if t.device.type not in _launch.DEVICE_TYPES or t.device != q.device:
            raise ValueError("%s: %s is on %s: all inputs must be on one CUDA device" % (_WHERE, name, t.device))
    D = D_V + D_PE
    if q.dim() not in (3, 4) or q.shape[-1] != D or q.shape[-2] < 1 or (q.dim() == 4 and q.shape[1] < 1):
        raise ValueError("%s: q must be (B, H, %d) or (B, S_Q, H, %d) with H, S_Q >= 1, got %s"
                         % (_WHERE, D, D, tuple(q.shape)))
    if not (kv.dim() == 3 or (kv.dim() == 4 and kv.shape[2] == 1)) or kv.shape[-1] != D:
        raise ValueError("%s: kv_cache must be (num_pages, page_size, %d) or (num_pages, page_size, 1, %d), got %s"
                         % (_WHERE, D, D, tuple(kv.shape)))
    page = kv.shape[1]
    if page < 16 or page & (page - 1):
        raise ValueError("%s: page_size (kv_cache.shape[1]) must be a power of two >= 16, got %d" % (_WHERE, page))
    _check_dtypes(torch, q, kv, kv_scale)
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
    if not isinstance(causal, bool):
        raise TypeError("%s: causal must be a bool, got %r" % (_WHERE, causal))


_SMS = {}
# Query rows (S_Q * H) per sequence from which the wgmma kernel runs, its 64-row tile padded below 64 (the kernel
# masks the rows past a sequence's own). The mma.sync kernel's programs take 16 rows each and each reads the whole
# cache: from 17 rows on it reads it twice or more, the padded wgmma tile once. GPU time per call (H200, session
# 21, each kernel at its own default splits): rows 20 / 24 / 32 / 48 ran 1.35-3.0x faster padded (1.35-2.4x against
# mma.sync's current split rule; e.g. (64, 32, 8192): 0.169 against 0.287 ms); at 16 rows the two are even (0.090 /
# 0.086 ms at (64, 16, 4096)), so 16 rows
# stay on mma.sync (half its registers, no TMA alignment needs). bench/mla_decode.py's "wgmma pad" column times the
# 16-row rows padded (this set to 1 for that call).
WGMMA_ROWS = 17
# The wgmma kernel's schedule: "seesaw" (txl/kernels/mla_decode_seesaw.py: the consumers take alternate tiles'
# S and softmax, FlashMLA's schedule) or "fa3" (txl/kernels/mla_decode_wgmma.py: WG1 computes every S and softmax,
# FA3's intra-warpgroup overlap). Seesaw is the default: 1.04-1.24x the fa3 schedule on every compute-bound row
# (H200, session 21; 487 against 399 TFLOP/s at 132 x 128 heads x 4096). bench/mla_decode.py --fa3 times both.
SCHEDULE = "seesaw"


def _sms(device):
    import torch

    if device not in _SMS:
        _SMS[device] = torch.cuda.get_device_properties(device).multi_processor_count
    return _SMS[device]


def uses_wgmma(rows, page_size, num_pages):
    """Whether a sequence's ``rows`` query rows (S_Q * H) run on the wgmma kernel: more than one mma.sync program's
    16 (WGMMA_ROWS), pages of whole 64-key tiles, and cache rows TMA's int32 coordinates address."""
    return rows >= WGMMA_ROWS and page_size % 64 == 0 and num_pages * page_size < 2 ** 31


@functools.lru_cache(maxsize=256)
def wgmma_splits(programs, capacity, sms):
    """Splits for the wgmma kernel (one CTA per SM: 224 KB of shared memory): the count s that minimises waves(s) x
    (tiles per split + 2), waves(s) = ceil(programs * s / SMs) and the 2 tiles standing for a program's fixed cost
    (Q, pipeline fill, epilogue, the combine); ``capacity``: the cache slots a sequence can address (block-table
    columns x page size), standing in for its length (reading the lengths would synchronise with the GPU)."""
    tiles = max(1, -(-capacity // 64))
    best, cost = 1, None
    for s in range(1, min(MAX_SPLITS, tiles) + 1):
        c = -(-programs * s // sms) * (-(-tiles // s) + 2)
        if cost is None or c < cost:
            best, cost = s, c
    return best


def default_splits(batch, heads, capacity, device, s_q=1, page_size=64, num_pages=1, fp8=False):
    """Splits per sequence. mma.sync kernel (and its FP8 variant, which every FP8 cache takes): as many as fill at
    most two full waves of two programs per SM (255 registers a thread), at most one per 256 cache slots of a
    sequence. Rounding the count down matters: (64, 16, 4096) ran 0.105 ms with 9 splits (576 programs, a third
    wave of 48) and 0.097 with 8 (512), (128, 16, 2048) 0.112 with 5 and 0.098 with 4 (GPU time, H200, session 21).
    wgmma kernel: ``wgmma_splits``."""
    rows = heads * s_q
    if not fp8 and uses_wgmma(rows, page_size, num_pages):
        return wgmma_splits(batch * -(-rows // 64), capacity, _sms(device))
    programs = batch * -(-rows // 16)
    want = 4 * _sms(device) // max(programs, 1)
    return max(1, min(want, capacity // 256, MAX_SPLITS))


def _plan_key(q, kv, bt, seqlens, num_splits, causal, kv_scale):
    """What the launches of a call specialise on (shapes, dtypes, 16-byte alignment, the ints passed to the kernels
    and the module's knobs), so a later call with an equal key differs only in addresses and sm_scale."""
    return (q.shape, q.dtype, q.data_ptr() % 16 == 0, q.device, kv.shape, kv.dtype, kv.data_ptr() % 16 == 0,
            bt.shape, bt.stride(0), seqlens.shape, num_splits, causal, kv_scale is None, SCHEDULE, WGMMA_ROWS)


_plans = {}


def _forward(q, kv, bt, seqlens, sm_scale, num_splits, causal, kv_scale=None):
    """(o (B, S_Q, H, 512), lse2 (B, S_Q, H) float32 log2 units) of validated contiguous q (B, S_Q, H, 576) and
    kv (pages, page, 576); kv float8_e4m3fn with kv_scale a (1,) float32 tensor (the FP8 mma.sync kernel).

    Decoding kernels take tens of microseconds, so the host path matters: a call whose key (``_plan_key``) ran
    before replays the FastLaunch of each of its launches (_launch.PlannedLaunch: descriptors looked up by the
    tensors' addresses, no TensorDescriptor objects, no fingerprints); the first call of a key launches through
    _launch.fast_launch and records them."""
    import torch

    from txl.ops import _launch

    key = _plan_key(q, kv, bt, seqlens, num_splits, causal, kv_scale)
    replay = _plans.get(key)
    if replay is not None:
        it = iter(replay)

        def launch(fn, grid, args, kwargs):
            next(it)(args, tuple(grid) + (1,) * (3 - len(grid)))
    else:
        import txl

        recorded = []

        def launch(fn, grid, args, kwargs):
            fast, names = _launch.fast_launch(fn, grid, args, kwargs)
            order = fn.arg_names[:len(args)]
            if all(n in order for n in names):
                idx = [order.index(n) for n in names]
                descs = [(pos, args[i].base.shape[-1]) for pos, i in enumerate(idx)
                         if isinstance(args[i], txl.TensorDescriptor)]
                recorded.append(_launch.PlannedLaunch(fast, None, idx, descs))
            else:  # a param outside the positional arguments: this key is not replayed
                recorded.append(None)

    first = replay is None
    if q.get_device() == torch.cuda.current_device():
        out = _launches(torch, launch, first, q, kv, bt, seqlens, sm_scale, num_splits, causal, kv_scale)
    else:
        with torch.cuda.device(q.device):
            out = _launches(torch, launch, first, q, kv, bt, seqlens, sm_scale, num_splits, causal, kv_scale)
    if first and None not in recorded:
        if len(_plans) > 64:
            _plans.clear()
        _plans[key] = recorded
    return out


def _launches(torch, launch, first, q, kv, bt, seqlens, sm_scale, num_splits, causal, kv_scale):
    """The kernels of one call, each through ``launch(fn, grid, args, kwargs)``; ``first``: the call records its
    launches (descriptors as txl.TensorDescriptor), else it replays them (descriptors as the tensors themselves,
    viewed by the plan as (rows, 576))."""
    from txl.kernels import mla_decode as km
    from txl.kernels import mla_decode_fp8 as kf
    from txl.kernels import mla_decode_seesaw as ks
    from txl.kernels import mla_decode_wgmma as kw

    B, S_Q, H, _ = q.shape
    rows = S_Q * H
    page = kv.shape[1]
    o = torch.empty((B, S_Q, H, D_V), dtype=q.dtype, device=q.device)
    lse = torch.empty((B, S_Q, H), dtype=torch.float32, device=q.device)
    if B * rows == 0:
        return o, lse
    causal = causal and S_Q > 1  # one token sees the whole cache either way
    # TMA needs 16-byte aligned bases: a misaligned q (a view into a larger buffer) is copied, a misaligned cache
    # (too large to copy) takes the mma.sync kernel.
    fp8 = kv.dtype == torch.float8_e4m3fn  # every shape on the FP8 mma.sync kernel (mla_decode_fp8.py)
    wgmma = not fp8 and uses_wgmma(rows, page, kv.shape[0]) and kv.data_ptr() % 16 == 0
    # the split kernels always write partials; the wgmma kernel with one split writes O and LSE itself
    part_o = part_lse = lse  # (then unused: any float32 tensor)
    if num_splits > 1 or not wgmma:
        part_o = torch.empty((B, rows, num_splits, D_V), dtype=torch.float32, device=q.device)
        part_lse = torch.empty((B, rows, num_splits), dtype=torch.float32, device=q.device)
    if wgmma:
        if q.data_ptr() % 16:
            q = q.clone()
        desc_q, desc_kv = q, kv
        if first:
            import txl

            desc_q = txl.TensorDescriptor(q.view(B * rows, D_V + D_PE), block_shape=[kw.BLOCK_M, D_V + D_PE])
            desc_kv = txl.TensorDescriptor(kv.view(-1, D_V + D_PE), block_shape=[kw.BLOCK_N, D_V + D_PE])
        if SCHEDULE not in ("fa3", "seesaw"):
            raise ValueError("%s: mla_decode.SCHEDULE must be 'fa3' or 'seesaw', got %r" % (_WHERE, SCHEDULE))
        kernel = ks.mla_decode_seesaw if SCHEDULE == "seesaw" else kw.mla_decode_wgmma
        launch(kernel, (-(-rows // kw.BLOCK_M), B, num_splits),
               (desc_q, desc_kv, bt, seqlens, o, lse, part_o, part_lse, float(sm_scale), rows, H, S_Q,
                bt.stride(0), num_splits), dict(kw.constexprs(page, num_splits, causal), **kw.OPTIONS))
        if num_splits == 1:
            return o, lse
    elif fp8:
        if kv_scale is None:
            kv_scale = _ones(q.device)
        cx = kf.split_constexprs(page, num_splits, D_V, D_PE, causal)
        launch(kf.mla_decode_split_fp8, (B, -(-rows // cx["BLOCK_H"]), num_splits),
               (q, kv, bt, seqlens, part_o, part_lse, float(sm_scale), kv_scale, rows, bt.stride(0), H, S_Q),
               dict(cx, num_warps=4))
    else:
        cx = km.split_constexprs(page, num_splits, D_V, D_PE, causal)
        launch(km.mla_decode_split, (B, -(-rows // cx["BLOCK_H"]), num_splits),
               (q, kv, bt, seqlens, part_o, part_lse, float(sm_scale), rows, bt.stride(0), H, S_Q),
               dict(cx, num_warps=4))
    launch(km.mla_decode_combine, (B, rows), (part_o, part_lse, o, lse, rows),
           dict(D_V=D_V, NUM_SPLITS=num_splits, SPLITS_P=km.next_power_of_2(num_splits), num_warps=4))
    return o, lse


_op = None
_ONES = {}


def _ones(device):
    """A (1,) float32 1.0 on ``device``: the scale of an FP8 cache passed without one."""
    import torch

    if device not in _ONES:
        _ONES[device] = torch.ones(1, dtype=torch.float32, device=device)
    return _ONES[device]


def _custom_op():
    global _op
    if _op is None:
        import torch

        @torch.library.custom_op("txl::mla_decode", mutates_args=(), device_types="cuda")
        def mla_op(q: torch.Tensor, kv: torch.Tensor, bt: torch.Tensor, seqlens: torch.Tensor, sm_scale: float,
                   num_splits: int, causal: bool,
                   kv_scale: Optional[torch.Tensor] = None) -> tuple[torch.Tensor, torch.Tensor]:
            return _forward(q, kv, bt, seqlens, sm_scale, num_splits, causal, kv_scale)

        @mla_op.register_fake
        def _(q, kv, bt, seqlens, sm_scale, num_splits, causal, kv_scale=None):
            return (q.new_empty(q.shape[:3] + (D_V,)), q.new_empty(q.shape[:3], dtype=torch.float32))

        _op = mla_op
    return _op


def mla_decode(q, kv_cache, block_table, cache_seqlens, sm_scale=None, num_splits=None, return_lse=False,
               causal=False, kv_scale=None):
    """MLA decoding; see the module docstring."""
    import torch

    _check(torch, q, kv_cache, block_table, cache_seqlens, sm_scale, num_splits, causal, kv_scale)
    if not isinstance(return_lse, bool):
        raise TypeError("%s: return_lse must be a bool" % _WHERE)
    q4 = (q.unsqueeze(1) if q.dim() == 3 else q).contiguous()
    kv3 = kv_cache.reshape(kv_cache.shape[0], kv_cache.shape[1], kv_cache.shape[-1]).contiguous()
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(D_V + D_PE)
    fp8 = kv3.dtype == getattr(torch, "float8_e4m3fn", None)
    if num_splits is None:
        num_splits = default_splits(q4.shape[0], q4.shape[2], block_table.shape[1] * kv3.shape[1], q.device,
                                    q4.shape[1], kv3.shape[1], kv3.shape[0], fp8=fp8)
    if kv_scale is not None:
        kv_scale = kv_scale.reshape(1).contiguous()
    from txl.ops import _launch

    args = (q4, kv3, block_table.contiguous(), cache_seqlens.contiguous(), float(sm_scale), int(num_splits), causal,
            kv_scale)
    # torch.compile and other tracing record the custom op (with its fake); an eager call launches directly: the
    # custom op's dispatch alone cost 50-90 us of host time per call on the H200's host, more than the kernels'
    # GPU time on the memory-bound rows.
    o, lse2 = _custom_op()(*args) if _launch.tracing(torch) else _forward(*args)
    if q.dim() == 3:
        o = o.squeeze(1)
    if q4.shape[1] == 1:
        lse2 = lse2.squeeze(1)  # one query token: (B, H), as before S_Q > 1 existed
    return (o, lse2 * math.log(2.0)) if return_lse else o


def mla_reference(q, kv_cache, block_table, cache_seqlens, sm_scale=None, causal=False, kv_scale=None):
    """float32 torch reference for 3-D kv_cache: (o, lse natural log) shaped (B, H, 512) and (B, H) for a 3-D q,
    (B, S_Q, H, 512) and (B, S_Q, H) for a 4-D one; a row that sees no key has o = 0 and lse = +inf (tests,
    benchmarks). An FP8 cache is dequantized (value * kv_scale, default 1.0) in float32."""
    import torch

    if kv_cache.dtype == getattr(torch, "float8_e4m3fn", None):  # index the bytes: not every torch indexes fp8
        kv_cache = kv_cache.view(torch.uint8)
        fp8_scale = 1.0 if kv_scale is None else kv_scale.reshape(()).float()
    else:
        fp8_scale = None

    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(D_V + D_PE)
    q4 = q.unsqueeze(1) if q.dim() == 3 else q
    B, S_Q, H, _ = q4.shape
    page = kv_cache.shape[1]
    o = torch.zeros(B, S_Q, H, D_V, device=q.device)
    lse = torch.full((B, S_Q, H), math.inf, device=q.device)
    for b in range(B):
        n = int(cache_seqlens[b])
        pages = block_table[b, :-(-n // page)].long()
        rows = kv_cache[pages].reshape(-1, kv_cache.shape[-1])[:n]
        if fp8_scale is not None:
            rows = rows.view(torch.float8_e4m3fn).float() * fp8_scale
        rows = rows.float()  # (n, 576)
        for t in range(S_Q):
            seen = max(0, min(n, n - S_Q + t + 1)) if causal else n  # keys 0 .. seen - 1
            if seen == 0:
                continue
            s = (q4[b, t].float() @ rows[:seen].T) * sm_scale  # (H, seen)
            o[b, t] = torch.softmax(s, -1) @ rows[:seen, :D_V]
            lse[b, t] = torch.logsumexp(s, -1)
    if q.dim() == 3:
        return o[:, 0], lse[:, 0]
    return o, lse
