"""``txl.ops.flash_attention``: the forward flash-attention kernels of ``txl.kernels`` behind a torch API.

    o = txl.ops.flash_attention(q, k, v, causal=True)                 # q (B, H, N, D), k/v (B, H_KV, N, D)
    o, lse = txl.ops.flash_attention(q, k, v, return_lse=True)        # lse (B, H, N) float32, natural log

* bf16 or fp16 CUDA tensors, (batch, heads, sequence, head dim); D in {64, 128, 256}; k and v may have fewer heads
  than q (GQA/MQA: H must be a multiple of H_KV; query head h reads kv head h // (H // H_KV)).
* Asymmetric head dims (kernel "fa3"): v's head dim D_v may be smaller than q's and k's D (DeepSeek-V3 prefill:
  192 / 128); o is (B, H, N, D_v). ASYM_HEAD_DIMS: D a multiple of 16 up to 256, D_v one of 16, 32, 64, 128 (the
  O accumulator is a register tile, whose dimensions are powers of two). The backward is _attention_bwd's where it
  declares the pair (192/128 and 256/128 dense), else a NotImplementedError.
* ``sinks``: learnable attention sinks (gpt-oss, kernel "fa3"), a (H,) float tensor of per-head logits in the
  units of q.k * sm_scale that join every query row's softmax denominator and add no value:
  o_i = sum_j exp(s_ij - m) v_j / (sum_j exp(s_ij - m) + exp(sink_h - m)); lse includes the sink; differentiable
  in q, k, v and the sinks (dsink_h = -sum over rows of exp(sink_h - lse_i) * rowsum(do_i * o_i)). Not to be
  confused with ``num_sink_tokens`` (StreamingLLM: the first keys stay visible under a sliding window).
* Any N >= 1, with no copies: the kernels read q, k, v in place as (B * H * N, D) rows through TMA (a head's last
  key block masks the keys past N; its last query block stores only its real rows). Only a layout that is not
  (B, H, N, D)-contiguous or a base address that is not 16-byte aligned is copied first.
* ``kernel``: "fa3" (``flash_attention.py``: producer + 2 consumers, ping-pong, intra-warpgroup overlap, one CTA per
  tile or persistent), "pingpong"
  (``flash_attention_ws.py`` with PINGPONG), "ws" (``flash_attention_ws.py``), "1wg" (``flash_attention_1wg.py``).
* Each (kernel, head dim) is autotuned (``txl.autotune``) over a few (BLOCK_N, NUM_STAGES[, PERSISTENT]) configs, keyed on
  (N bucket, D, causal, dtype); the choice is kept in the kernel cache directory.
* A torch custom op (``torch.ops.txl.flash_attention``, with a fake implementation and an autograd formula), so
  ``torch.compile(fullgraph=True)`` (and make_fx / AOT autograd: ``_launch.tracing``) traces through it. Eager
  calls skip the dispatcher: they launch through a per-shape plan (``_Plan``), after the first call of a shape
  (validation, autotuning, compilation) a few allocations and one launch, and when a gradient is wanted through a
  ``torch.autograd.Function`` (``_autograd_fn``) whose backward calls ``_attention_bwd.backward`` (a plan per
  shape too), as FA2's flash_attn does. CUDA-graph capture works for shapes that ran once before capture.
* Differentiable (every head dim): ``o.backward()`` runs the FA3-style backward of
  ``txl.kernels.flash_attention_bwd`` (``_attention_bwd.py``), which reuses the forward's saved statistics;
  ``deterministic=True`` gives bit-identical dQ across runs.

``precompile(...)`` compiles the specialisations a call would use without torch or a GPU (shape-only stand-in
tensors), to fill a cache for a GPU host without txlc.
"""

import importlib
import math
import typing

from txl.compiler.meta import MetaTensor
# BLOCK, BIG, padded_len, _dummy_i32 and fast_launch live in _launch, below this module and the ones it imports
# (_attention_bwd, rope); they stay importable from here, as txl.ops.attention.fast_launch etc.
from txl.ops import _attention_bwd, _launch
from txl.ops._launch import BIG, BLOCK, _dummy_i32, fast_launch, padded_len  # noqa: F401

HEAD_DIMS = (64, 128, 256)
# (q/k head dim, v head dim) pairs with D_v < D (kernel "fa3"): D a multiple of 16 (TMA rows of whole 32-byte
# swizzle spans), D_v a power of two (the O accumulator is a register tile: txl-assign-layouts distributes only
# power-of-two dimensions over the threads).
ASYM_V_DIMS = (16, 32, 64, 128)
ASYM_HEAD_DIMS = tuple((d, dv) for d in range(32, 257, 16) for dv in ASYM_V_DIMS if dv < d)
DTYPES = ("bfloat16", "float16")
LOG2E = 1.4426950408889634

# name -> (module, kernel, BLOCK_M, num_warpgroups, {head_dim: [(BLOCK_N, NUM_STAGES[, PERSISTENT]), ...]})
# Shared memory (bytes, bf16/fp16): 3-WG kernels Q 2x(64 x D) (O reuses it) + NUM_STAGES x 2 x (BLOCK_N x D);
# hd128 with 3 stages is 229488 of the 232448 available; hd256 only fits BLOCK_N 64 with 2 stages (196688).
# fa3 PERSISTENT stages O in its own 2 x (64 x D): hd128 fits 2 stages, hd256 none. A 4th element: the consumers'
# setmaxnreg budget (default 240 with 24 for the producer; 232 with 40).
_WS_CONFIGS = {64: [(128, 2), (128, 3), (64, 2)], 128: [(128, 2), (128, 3)], 256: [(64, 2)]}
_FA3_CONFIGS = {64: [(128, 2, False), (128, 3, False), (64, 2, False), (128, 2, True), (128, 3, True)],
                128: [(128, 2, False), (128, 3, False), (128, 2, True), (128, 2, False, 232)], 256: [(64, 2, False)]}
# fa3 with asymmetric head dims (D, D_v), one CTA per tile: shared memory is Q 2 x 64 x D + stages x BLOCK_N x (D +
# D_v) elements, + O 2 x 64 x D_v unless O is staged in Q's tile (D and D_v multiples of 64), of the 232448 bytes.
# The pairs of DeepSeek-style models, chosen by hand ((192, 128): 213088 bytes with BLOCK_N 128 and 2 stages, 172160
# with 64 and 3); every other pair gets the first two of _ASYM_CANDIDATES that fit (_asym_configs). No config
# spills (test_attention_sinks_asym_cpu.py compiles them all through ptxas).
_FA3_ASYM_CONFIGS = {(128, 64): [(128, 2, False), (128, 3, False)], (192, 64): [(128, 2, False)],
                     (192, 128): [(128, 2, False), (64, 3, False)], (256, 64): [(128, 2, False), (64, 2, False)],
                     (256, 128): [(64, 2, False), (64, 3, False)]}
_ASYM_CANDIDATES = ((128, 2), (128, 3), (64, 3), (64, 2))
SMEM_BYTES = 232448  # an H100 CTA's shared memory


def asym_smem(d, dv, block_n, stages):
    """Shared-memory bytes of the fa3 kernel with head dims (d, dv) (2-byte elements, one CTA per tile): Q, the K/V
    rings, O's own staging tiles unless O lives in Q's, and 1 KB for mbarriers and alignment."""
    o = 0 if d % 64 == 0 and dv % 64 == 0 else 2 * 64 * dv * 2
    return 2 * 64 * d * 2 + o + stages * block_n * (d + dv) * 2 + 1024


def _asym_configs(d, dv):
    """The autotuning configs of an asymmetric pair: the hand-picked ones, else the first two candidates that fit."""
    if (d, dv) in _FA3_ASYM_CONFIGS:
        return _FA3_ASYM_CONFIGS[(d, dv)]
    return [(bn, ns, False) for bn, ns in _ASYM_CANDIDATES if asym_smem(d, dv, bn, ns) <= SMEM_BYTES][:2]
KERNELS = {
    "fa3": ("txl.kernels.flash_attention", "flash_attention", 128, 3, _FA3_CONFIGS),
    "pingpong": ("txl.kernels.flash_attention_ws", "flash_attention_ws", 128, 3, _WS_CONFIGS),
    "ws": ("txl.kernels.flash_attention_ws", "flash_attention_ws", 128, 3, _WS_CONFIGS),
    "1wg": ("txl.kernels.flash_attention_1wg", "flash_attention_1wg", 64, 1,
            {64: [(64, 3), (64, 2)], 128: [(64, 3), (64, 2)], 256: [(64, 2), (64, 3)]}),
}


# Constexprs a kernel name adds to its function's (pingpong is the ws kernel with its barriers).
KERNEL_CONSTEXPRS = {"pingpong": {"PINGPONG": True}}


def n_bucket(n):
    """The autotuning bucket of a sequence length: the next power of two, at least 128, at most 16384."""
    return min(max(1 << max(int(n) - 1, 0).bit_length(), 128), 16384)


# ---------------------------------------------------------------------------------------------------------------
# Autotuning
# ---------------------------------------------------------------------------------------------------------------
_tuners = {}


def _make_pre_hook(block_m, block_n, head_dim, head_dim_v=None):
    import txl

    dv = head_dim_v or head_dim

    def hook(nargs):
        # The launch passes the descriptors with any block shape; each config gives them its tiles.
        rows = block_m // 2 if block_m == 128 else block_m
        for name, box in (("desc_q", [rows, head_dim]), ("desc_k", [block_n, head_dim]), ("desc_v", [block_n, dv]),
                          ("desc_o", [rows, dv])):
            nargs[name] = txl.TensorDescriptor(nargs[name].base, block_shape=box)

    return hook


def get_tuner(kernel, head_dim, causal=False, mode="dense", head_dim_v=None):
    """The txl.autotune wrapper of one kernel for one head dim and masking. ``mode``: "dense", "window" (sliding
    window / sink tokens: the fa3 kernel's local masks) or "varlen" (packed sequences, fa3). ``head_dim_v``: V's
    head dim when it differs (fa3, ASYM_HEAD_DIMS)."""
    head_dim_v = None if head_dim_v == head_dim else head_dim_v
    key = (kernel, head_dim, bool(causal), mode, head_dim_v)
    t = _tuners.get(key)
    if t is not None:
        return t
    import txl
    from txl.autotune import Autotuner

    mod_name, fn_name, block_m, n_wg, cfgs = KERNELS[kernel]
    fn = getattr(importlib.import_module(mod_name), fn_name)
    configs = []
    for cfg in cfgs[head_dim] if head_dim_v is None else _asym_configs(head_dim, head_dim_v):
        if mode != "dense" and len(cfg) > 2 and cfg[2]:
            continue  # local masks run one CTA per tile
        if causal and len(cfg) > 2 and cfg[2]:
            # The persistent schedule walks tiles round-robin; causal tiles range from 1 to N/BLOCK_N KV tiles,
            # so its CTAs finish unevenly: 452 TFLOP/s against 540 for one CTA per tile at (16,32,4096,128) on
            # the H100 (docs/reliability-and-call-cost.md). It stays correct (the config sweep runs it); a
            # dynamic tile scheduler would be needed to make it pay.
            continue
        bn, ns = cfg[:2]
        kw = dict(KERNEL_CONSTEXPRS.get(kernel, {}), BLOCK_M=block_m, BLOCK_N=bn, NUM_STAGES=ns)
        if mode != "dense":
            kw["VARLEN" if mode == "varlen" else "WINDOW"] = True
        if len(cfg) > 2:
            kw["PERSISTENT"] = cfg[2]
        if len(cfg) > 3:
            kw["CONSUMER_REGS"] = cfg[3]
        configs.append(txl.Config(kw, num_warps=4, num_warpgroups=n_wg,
                                  pre_hook=_make_pre_hook(block_m, bn, head_dim, head_dim_v)))

    class _AttentionTuner(Autotuner):
        def _key_of(self, nargs):  # (N bucket, D, causal, dtype, mode, learnable sinks)
            base = nargs["desc_q"].base
            return (n_bucket(nargs["N_CTX"]), nargs["HEAD_DIM"], bool(nargs["CAUSAL"]), str(base.dtype), mode,
                    nargs.get("SINK_LOGITS") is not None)

    t = _tuners[key] = _AttentionTuner(fn, configs, key=["N_CTX", "HEAD_DIM", "CAUSAL"], warmup=10, rep=50,
                                       verbose=False)
    return t


def _num_sms():
    """Multiprocessors of the current GPU (132 on the H100) for persistent grids; 132 without torch/a GPU
    (precompiling: the grid does not change the compiled kernel)."""
    try:
        import torch

        return torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
    except Exception:
        return 132


def _launch_args(kernel, q2, k2, v2, o2, m, sm_scale, n, n_pad, bh, head_dim, causal, group, local=None,
                 varlen=None, head_dim_v=None, sink_logits=None, heads=1):
    """(grid, args, kwargs) of one launch of ``kernel`` on (rows, D) tensors with n rows per head (m: (bh, n_pad)).
    ``local``: (left, right, sinks) of the local masks (window sides, BIG when unbounded; causal folded into right)
    or None. ``varlen``: (cu_q, cu_k, heads) of packed sequences (q2/o2 (total_q, heads * D), k2/v2 (total_k,
    kv heads * D), n the longest query sequence, m (heads, n_pad)); fa3 only. ``head_dim_v``: v2's and o2's head
    dim when it differs from D (fa3); ``sink_logits``: a (heads,) float32 tensor of learnable sinks or None (fa3;
    ``heads``: the query heads of a dense launch, whose row bh of M is head bh % heads)."""
    import txl

    block_m = KERNELS[kernel][2]
    dv = head_dim_v or head_dim
    descs = [txl.TensorDescriptor(t, block_shape=[block_m, d]) for t, d in ((q2, head_dim), (k2, head_dim),
                                                                             (v2, dv), (o2, dv))]
    args = tuple(descs) + (m, o2, float(sm_scale), int(n), int(n_pad))
    kwargs = dict(HEAD_DIM=head_dim, CAUSAL=bool(causal), EVEN_N=(n == n_pad), H_Q_PER_KV=int(group))
    if kernel == "fa3":
        cu_q, cu_k, heads = varlen if varlen is not None else (_dummy_i32(m), _dummy_i32(m), heads)
        left, right, sinks = local if local is not None else (BIG, BIG, 0)
        args += (int(bh), cu_q, cu_k, int(heads), int(left), int(right), int(sinks))
        if varlen is not None or local is not None:  # (the tuner's configs of the mode set VARLEN / WINDOW)
            kwargs.update(CAUSAL=False, EVEN_N=kwargs["EVEN_N"] and varlen is None)
        if dv != head_dim:
            kwargs["HEAD_DIM_V"] = dv
        kwargs["SINK_LOGITS"] = sink_logits
    elif dv != head_dim or sink_logits is not None:
        raise ValueError("txl.ops.flash_attention: asymmetric head dims and learnable sinks run on kernel='fa3' "
                         "only, got kernel=%r" % (kernel,))

    def grid(meta):
        tiles = n_pad // meta["BLOCK_M"] * bh
        if meta.get("PERSISTENT"):
            return (min(_num_sms(), tiles), 1)
        return (n_pad // meta["BLOCK_M"], bh)

    return grid, args, kwargs


def local_masks(window, num_sink_tokens, causal, where="txl.ops.flash_attention"):
    """(left, right, sinks) for the kernels' local masks from the user's ``window=(left, right)`` (-1: unbounded)
    and ``num_sink_tokens``, causal folded into right; None when they reduce to plain (non-)causal attention."""
    if (not isinstance(window, (tuple, list)) or len(window) != 2
            or not all(isinstance(w, int) and not isinstance(w, bool) for w in window)):
        raise TypeError("%s: window must be a pair of ints (left, right), -1 for an unbounded side; got %r"
                        % (where, window))
    if any(w < -1 for w in window):
        raise ValueError("%s: window sides must be >= 0, or -1 for unbounded; got %r" % (where, tuple(window)))
    if isinstance(num_sink_tokens, bool) or not isinstance(num_sink_tokens, int) or num_sink_tokens < 0:
        raise ValueError("%s: num_sink_tokens must be an int >= 0, got %r" % (where, num_sink_tokens))
    left = BIG if window[0] < 0 else min(window[0], BIG)
    right = BIG if window[1] < 0 else min(window[1], BIG)
    if causal:
        right = min(right, 0)
    sinks = 0 if left == BIG else min(num_sink_tokens, BIG)  # sinks add nothing to an unbounded left side
    return (left, right, sinks)


def _local_of(left, right, sinks):
    """The custom ops' (left, right, sinks) ints back to local masks: (BIG, BIG, 0) stands for none (plain
    attention never reaches the ops as local masks: flash_attention turns them into causal=True/False)."""
    return None if (left, right) == (BIG, BIG) else (left, right, sinks)


def _plain(local):
    """Whether local masks (left, right, sinks) are plain non-causal or causal attention: (is_plain, causal)."""
    left, right, sinks = local
    return left == BIG and right in (0, BIG), right == 0


# ---------------------------------------------------------------------------------------------------------------
# Validation (before anything is allocated or launched)
# ---------------------------------------------------------------------------------------------------------------
def check_head_dims(d, dv, kernel="fa3", where="txl.ops.flash_attention"):
    """q/k head dim d and v head dim dv: equal and one of HEAD_DIMS, or a pair of ASYM_HEAD_DIMS (kernel fa3)."""
    rule = ("a v head dim of %s below a q/k head dim that is a multiple of 16 up to 256, kernel='fa3'"
            % "/".join(map(str, ASYM_V_DIMS)))
    if d == dv:
        if d not in HEAD_DIMS:
            raise ValueError("%s: head dim %d is not supported; supported: %s, or %s"
                             % (where, d, ", ".join(map(str, HEAD_DIMS)), rule))
        return
    if (d, dv) not in ASYM_HEAD_DIMS:
        raise ValueError("%s: head dims q/k %d and v %d are not supported; supported: equal head dims %s, or %s; pad "
                         "v with zero columns to a supported head dim and slice the output"
                         % (where, d, dv, "/".join(map(str, HEAD_DIMS)), rule))
    if kernel != "fa3":
        raise ValueError("%s: asymmetric head dims (q/k %d, v %d) run on kernel='fa3' only, got kernel=%r"
                         % (where, d, dv, kernel))


def check_sinks(torch, sinks, heads, device, kernel="fa3", where="txl.ops.flash_attention"):
    """The learnable sinks argument: None, or a (heads,) floating-point tensor on ``device``; returns it as
    contiguous float32 (a differentiable conversion) or None."""
    if sinks is None:
        return None
    if not isinstance(sinks, torch.Tensor):
        raise TypeError("%s: sinks must be a torch.Tensor of shape (%d,) (one logit per query head) or None, got %s"
                        % (where, heads, type(sinks).__name__))
    if sinks.dim() != 1 or sinks.shape[0] != heads:
        raise ValueError("%s: sinks has shape %s; expected (%d,): one logit per query head"
                         % (where, tuple(sinks.shape), heads))
    if not sinks.is_floating_point():
        raise TypeError("%s: sinks is %s; expected a floating-point tensor (float32, bfloat16 or float16)"
                        % (where, sinks.dtype))
    if sinks.device != device:
        raise ValueError("%s: sinks is on %s but q on %s" % (where, sinks.device, device))
    if kernel != "fa3":
        raise ValueError("%s: learnable sinks run on kernel='fa3' only, got kernel=%r" % (where, kernel))
    sinks = sinks.float().contiguous()
    if not _launch.tracing(torch) and sinks.data_ptr() % 16:  # (traced tensors have no address)
        sinks = sinks.clone()  # 16-byte aligned, as the launches are specialised
    return sinks


def _check_inputs(torch, q, k, v, causal, sm_scale, return_lse, kernel):
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError("txl.ops.flash_attention: %s must be a torch.Tensor, got %s" % (name, type(t).__name__))
    if kernel not in KERNELS:
        raise ValueError("txl.ops.flash_attention: kernel=%r is not one of %s" % (kernel, ", ".join(map(repr, KERNELS))))
    if not isinstance(causal, bool):
        raise TypeError("txl.ops.flash_attention: causal must be a bool, got %r" % (causal,))
    if not isinstance(return_lse, bool):
        raise TypeError("txl.ops.flash_attention: return_lse must be a bool, got %r" % (return_lse,))
    if sm_scale is not None and (isinstance(sm_scale, bool) or not isinstance(sm_scale, (int, float))):
        raise TypeError("txl.ops.flash_attention: sm_scale must be a float or None, got %r" % (sm_scale,))
    if sm_scale is not None and not (math.isfinite(sm_scale) and sm_scale > 0):
        raise ValueError("txl.ops.flash_attention: sm_scale must be positive and finite, got %r" % (sm_scale,))
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.dim() != 4:
            raise ValueError("txl.ops.flash_attention: %s must be 4-D (batch, heads, seq, head_dim), got shape %s"
                             % (name, tuple(t.shape)))
    if q.dtype not in (torch.bfloat16, torch.float16):
        raise TypeError("txl.ops.flash_attention: q is %s; supported: torch.bfloat16, torch.float16" % q.dtype)
    for name, t in (("k", k), ("v", v)):
        if t.dtype != q.dtype:
            raise TypeError("txl.ops.flash_attention: %s is %s but q is %s: q, k, v must have one dtype"
                            % (name, t.dtype, q.dtype))
    B, H, N, D = q.shape
    if k.shape[:3] != v.shape[:3]:
        raise ValueError("txl.ops.flash_attention: k %s and v %s must have the same shape (v's head dim may be "
                         "smaller)" % (tuple(k.shape), tuple(v.shape)))
    Bk, Hk, Nk, Dk = k.shape
    if Bk != B or Nk != N or Dk != D:
        raise ValueError("txl.ops.flash_attention: k/v shape %s does not match q %s: batch, sequence length and "
                         "head dim must be equal (only the head count may differ, for GQA)"
                         % (tuple(k.shape), tuple(q.shape)))
    check_head_dims(D, v.shape[-1], kernel)
    if Hk < 1 or H % Hk:
        raise ValueError("txl.ops.flash_attention: q has %d heads and k/v %d: the query head count must be a "
                         "multiple of the kv head count (GQA)" % (H, Hk))
    if B < 1 or H < 1 or N < 1:
        raise ValueError("txl.ops.flash_attention: empty input, q shape %s" % (tuple(q.shape),))
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.stride(-1) != 1:
            raise ValueError("txl.ops.flash_attention: %s has stride %d in its last dimension: TMA needs the head "
                             "dim contiguous (stride 1); call .contiguous()" % (name, t.stride(-1)))
    # (the device last: shape errors are found the same on any device)
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.device.type not in _launch.DEVICE_TYPES:
            raise ValueError("txl.ops.flash_attention: %s is on %s: the kernels run on a CUDA GPU; move it with "
                             ".cuda()" % (name, t.device))
    if not (q.device == k.device == v.device):
        raise ValueError("txl.ops.flash_attention: q, k, v are on different devices (%s, %s, %s)"
                         % (q.device, k.device, v.device))


# ---------------------------------------------------------------------------------------------------------------
# Forward
# ---------------------------------------------------------------------------------------------------------------
def _rows(t):
    """(B * H * N, D) rows of a (B, H, N, D) tensor: a view when it is contiguous with a 16-byte aligned base (TMA
    reads it in place), else a contiguous copy."""
    B, H, N, D = t.shape
    if not t.is_contiguous() or t.data_ptr() % 16:
        t = t.contiguous() if not t.is_contiguous() else t.clone()
    return t.view(B * H * N, D)


class _Plan:
    """How calls of one shape launch: the autotuned config's kernel, its grid and the constant scalars. Built by
    the first call of the shape (which validates, autotunes and compiles); later calls only allocate O and M and
    launch (runtime.FastLaunch re-encodes a TMA descriptor only for an address it has not seen)."""

    def __init__(self, torch, kernel, q, k, v, causal, sm_scale, local=None, sinks=None):
        from txl.runtime.launcher import FastLaunch

        if torch.cuda.is_current_stream_capturing():
            raise RuntimeError(
                "txl.ops.flash_attention: the first call for shape %s (%s, causal=%s) autotunes and compiles, which "
                "cannot run inside CUDA graph capture: call it once with this shape before capturing"
                % (tuple(q.shape), q.dtype, causal))
        B, H, N, D = q.shape
        Hk, Dv = k.shape[1], v.shape[-1]
        self.torch, self.shape, self.dtype, self.device = torch, (B, H, N, Dv), q.dtype, q.device
        self.n, self.n_pad, self.bh = N, padded_len(N), B * H
        q2, k2, v2 = _rows(q), _rows(k), _rows(v)
        o2 = torch.empty((B * H * N, Dv), dtype=q.dtype, device=q.device)
        m = torch.empty((B * H, self.n_pad), dtype=torch.float32, device=q.device)
        grid, args, kwargs = _launch_args(kernel, q2, k2, v2, o2, m, sm_scale, N, self.n_pad, B * H, D, causal,
                                          H // Hk, local, head_dim_v=Dv, sink_logits=sinks, heads=H)
        tuner = get_tuner(kernel, D, causal, "dense" if local is None else "window", Dv)
        tuner[grid](*args, **kwargs)  # autotunes on the first call of its key; this launch's result is discarded
        config = tuner.best_config  # the config of that launch (a tuner of one config launches it untuned)
        nargs = tuner.fn.bind(args, dict(kwargs, **config.kwargs))
        config.pre_hook(nargs)
        compiled = tuner.fn.warmup(grid=None, **nargs, **config.options)
        self.grid = tuple(grid(dict(nargs, **config.options))) + (1,)
        launcher = compiled.launcher()
        names = [p.name for p in launcher.params]
        expected = ["desc_q", "desc_k", "desc_v", "desc_o", "M", "O", "sm_scale", "N_CTX", "N_PAD"]
        expected += ["BH", "CU_Q", "CU_K", "NUM_HEADS", "WIN_LEFT", "WIN_RIGHT", "N_SINK"] if kernel == "fa3" else []
        expected += ["SINK_LOGITS"] if sinks is not None else []
        unnamed = ["arg%d" % i for i in range(len(expected))]  # a sidecar without txl.name: in signature order
        if names != expected and names != unnamed:
            raise RuntimeError("txl.ops.flash_attention: kernel %s has params %s, expected %s" % (kernel, names,
                                                                                                  expected))
        self.launch = FastLaunch(launcher, q.get_device())
        self.config = config
        self.tail = tuple(args[7:]) if kernel == "fa3" else (N, self.n_pad)
        # The plan's key holds the strides, so whether q, k, v can be read in place is known here.
        self.in_place = all(t.is_contiguous() for t in (q, k, v))
        self.ready((B * H * N, D), (B * Hk * N, D), (B * Hk * N, Dv), (B * H * N, Dv), sinks is not None)

    def ready(self, q_rows, k_rows, v_rows, o_rows, has_sinks):
        """The per-call launch (after self.launch, self.grid and self.tail are set): desc_q, desc_k, desc_v and
        desc_o by address (_launch.PlannedLaunch: the key fixes the rows' shapes, so a call passes q, k, v and o as
        they are, without four row views and four descriptor lookups by (address, shape, strides))."""
        n = 7 + len(self.tail) + bool(has_sinks)
        self.step = _launch.PlannedLaunch(self.launch, self.grid, range(n),
                                          ((0, q_rows[1]), (1, k_rows[1]), (2, v_rows[1]), (3, o_rows[1])))
        # M when the caller wants no LSE (eager calls): written by every such launch, read by none, so launches on
        # several streams may share it.
        self.m_scratch = None

    def __call__(self, q, k, v, sm_scale, want_m=True, sinks=None):
        torch = self.torch
        if not self.in_place or (q.data_ptr() | k.data_ptr() | v.data_ptr()) % 16:
            q, k, v = _rows(q), _rows(k), _rows(v)
        o = torch.empty(self.shape, dtype=self.dtype, device=self.device)
        if want_m or torch.cuda.is_current_stream_capturing():  # a graph gets its own M, from its own pool
            m = torch.empty((self.bh, self.n_pad), dtype=torch.float32, device=self.device)
        else:
            if self.m_scratch is None:
                self.m_scratch = torch.empty((self.bh, self.n_pad), dtype=torch.float32, device=self.device)
            m = self.m_scratch
        env = [q, k, v, o, m, o, sm_scale]
        env += self.tail
        if sinks is not None:
            env.append(sinks)
        self.step(env)
        return o, m


_plans = {}


def _plan_key(q, k, v, causal, kernel, local=None, has_sinks=False):
    # Everything a plan depends on; raises AttributeError for non-tensors (the checked path reports those).
    return (kernel, causal, q.shape, k.shape, q.dtype, k.dtype, v.dtype, q.get_device(), k.get_device(),
            v.get_device(), q.stride(), k.stride(), v.stride(), v.shape, local, has_sinks)


def _forward(q, k, v, causal, sm_scale, kernel, local=None, sinks=None):
    """(o (B, H, N, D_v), m (B * H, N_PAD) float32 base-2 log-sum-exp) of validated inputs; ``local``: the local
    masks (local_masks()), None for plain attention; ``sinks``: (H,) float32 learnable sink logits or None."""
    import torch

    key = _plan_key(q, k, v, causal, kernel, local, sinks is not None)
    plan = _plans.get(key)
    if plan is None:
        with torch.cuda.device(q.device):
            plan = _Plan(torch, kernel, q, k, v, causal, sm_scale, local, sinks)
        if len(_plans) > 256:
            _plans.clear()
        _plans[key] = plan
    if q.get_device() != torch.cuda.current_device():
        with torch.cuda.device(q.device):
            return plan(q, k, v, sm_scale, sinks=sinks)
    return plan(q, k, v, sm_scale, sinks=sinks)


def _rotate(q, k, rope, interleaved, where, **packed):
    # RoPE runs as one pre-pass over q and k (txl.ops.rope): inside the attention kernel every K tile would be
    # rotated once per query block that reads it (N / 128 times) and the TMA -> wgmma path would need a round
    # trip through registers; the pre-pass reads and writes q and k once (memory-bound, ~4% of a causal
    # (4, 32, 8192, 128) forward).
    from txl.ops.rope import apply_rope

    if not isinstance(rope, (tuple, list)) or len(rope) != 2:
        raise TypeError("%s: rope must be a pair (cos, sin) of (seqlen, rotary_dim / 2) tensors, got %s"
                        % (where, type(rope).__name__))
    return apply_rope(q, k, rope[0], rope[1], interleaved=interleaved, **packed)


def _lse(m, shape):
    B, H, N, _ = shape
    return m.view(B, H, -1)[:, :, :N] * math.log(2.0)  # base-2 M -> natural log


def _rowdot(a, b):
    """rowsum(a * b) over the last dimension, summed in float32, a slab of rows at a time. The products stay in the
    inputs' dtype (bf16/fp16: each rounded by at most 2^-9 relative, which leaves Delta within ~0.2%): float32
    copies of dO and O would be 1.6 GB at (4, 32, 8192, 128) and ~4x the memory traffic, about 1 ms of a 12 ms
    backward; this is one read of each, one write and read of the products."""
    import torch

    out = torch.empty(a.shape[:-1], dtype=torch.float32, device=a.device)
    a2, b2, o2 = a.reshape(-1, a.shape[-1]), b.reshape(-1, b.shape[-1]), out.view(-1)
    step = max(1, (1 << 26) // a.shape[-1])
    for i in range(0, a2.shape[0], step):
        o2[i:i + step] = (a2[i:i + step] * b2[i:i + step]).sum(-1, dtype=torch.float32)
    return out


def sink_grad(do, o, m2, sinks, packed=False):
    """d loss / d sinks of learnable sinks, in torch: the sink's probability in row i is exp(sink_h - lse_i) =
    exp2(sink_h * log2(e) - M_i), and a logit that adds no value gets dS = P * (0 - Delta_i), Delta_i =
    rowsum(do_i * o_i) (the softmax backward; the kernels' dq/dk/dv need nothing new since M includes the sink).
    do, o: (..., H, rows, D_v) with m2 (..., H, rows) the matching base-2 M (+inf rows give 0); packed: do, o
    (rows, H, D_v) with m2 (H, rows). Sums over all but the head."""
    delta = _rowdot(do, o)
    return sink_grad_from_delta(delta.t() if packed else delta, m2, sinks)


def sink_grad_from_delta(delta, m2, sinks):
    """sink_grad with Delta given ((..., H, rows) float32, as m2): the backward's preprocess computes it anyway
    (_attention_bwd.backward(..., return_delta=True)), so eager skips sink_grad's second read of dO and O."""
    import torch

    p = torch.exp2(sinks.view(-1, 1) * LOG2E - m2)
    return -(p * delta).sum(-1).reshape(-1, sinks.shape[0]).sum(0)


def backward_unsupported(q, v, where="txl.ops.flash_attention backward"):
    """NotImplementedError when the backward kernels cannot take these head dims (asymmetric: until
    ``_attention_bwd`` declares the (D, D_v) pairs it runs in ASYM_HEAD_DIMS), else None."""
    d, dv = q.shape[-1], v.shape[-1]
    if d != dv and (d, dv) not in getattr(_attention_bwd, "ASYM_HEAD_DIMS", ()):
        return NotImplementedError(
            "%s: asymmetric head dims (q/k %d, v %d) have no backward kernel yet (forward only); for training, pad "
            "v with zero columns to head dim %d (the extra output columns are zero) or use "
            "torch.nn.functional.scaled_dot_product_attention" % (where, d, dv, d))
    return None


def _backward_eager(do, q, k, v, o, m, sink_logits, need_qkv, need_sinks, causal, sm_scale, deterministic, local):
    """(dq, dk, dv, dsinks) of an eager backward (None where not needed): the backward kernels directly
    (_attention_bwd.backward, which checks the head dims on a key's first call); the sinks' gradient from the
    preprocess's Delta, or from dO and O in torch when q, k, v need none."""
    dq = dk = dv = dsink = delta = None
    if need_qkv:
        if q.shape[-1] != v.shape[-1]:
            err = backward_unsupported(q, v)
            if err is not None:
                raise err
        # The sinks change nothing here: M includes them, and the kernels recompute P = exp2(S - M).
        # (Delta only when the sinks' gradient reads it: viewing it out of the workspace costs two torch ops)
        out = _attention_bwd.backward(do, q, k, v, o, m, causal, sm_scale, deterministic, local,
                                      return_delta=need_sinks)
        dq, dk, dv = out[:3]
        delta = out[3] if need_sinks else None
    if need_sinks:
        B, H, N, _ = q.shape
        rows = m.view(B, H, -1)[:, :, :N]
        dsink = (sink_grad_from_delta(delta.view(B, H, -1)[:, :, :N], rows, sink_logits) if delta is not None
                 else sink_grad(do, o, rows, sink_logits))
    return dq, dk, dv, dsink


_fn = None


def _autograd_fn():
    """The eager autograd of flash_attention: a torch.autograd.Function whose forward and backward launch the
    kernels directly, as FA2's flash_attn does for eager calls; torch.compile traces the custom op (_custom_op)
    instead. Through the custom op an eager training call paid the dispatcher and its generated autograd wrapper
    in the forward, zero-filled gradients for the lse and M outputs in the backward, and an lse it may not
    return (bench/attention_host_cpu.py: docs/reliability-and-call-cost.md). ``apply(q, k, v, sinks, (plan,
    causal, sm_scale, kernel, deterministic, local, want_lse))``: ``plan`` the shape's forward _Plan when the
    caller found one (its checks passed), else None (_forward, which builds it). The non-tensor arguments travel
    as one tuple: torch's apply walks its arguments in Python (functorch's unwrap_dead_wrappers), and 11 of them
    cost ~5 us more per call than 5 on the CPU harness."""
    global _fn
    if _fn is None:
        import torch

        class FlashAttentionFunction(torch.autograd.Function):
            @staticmethod
            def forward(ctx, q, k, v, sinks, call):
                plan, causal, sm_scale, kernel, deterministic, local, want_lse = call
                if plan is not None:
                    o, m = plan(q, k, v, sm_scale, sinks=sinks)
                else:
                    o, m = _forward(q, k, v, causal, sm_scale, kernel, local, sinks)
                ctx.save_for_backward(q, k, v, o, m, sinks)
                ctx.set_materialize_grads(False)  # (no zero-filled gradient for an unused lse)
                ctx.args = (causal, sm_scale, deterministic, local)
                if want_lse:
                    lse = _lse(m, q.shape)
                    ctx.mark_non_differentiable(lse)
                    return o, lse
                return o

            @staticmethod
            def backward(ctx, do, dlse=None):
                q, k, v, o, m, sinks = ctx.saved_tensors
                need = ctx.needs_input_grad
                if do is None:
                    return None, None, None, None, None
                dq, dk, dv, dsink = _backward_eager(do, q, k, v, o, m, sinks, need[0] or need[1] or need[2],
                                                    sinks is not None and need[3], *ctx.args)
                return dq, dk, dv, dsink, None

        _fn = FlashAttentionFunction
    return _fn


_op = None


def _custom_op():
    """torch.ops.txl.flash_attention: (q, k, v, causal, sm_scale, kernel) -> (o, lse), registered once."""
    global _op
    if _op is None:
        import torch

        # The third output is the kernel's own statistic M ((B * H, N_PAD), base 2), saved for the backward so
        # that it reuses the forward's softmax statistics exactly (no recomputation, no round trip through lse).
        @torch.library.custom_op("txl::flash_attention", mutates_args=(), device_types="cuda")
        # left/right/sinks: the local masks of local_masks(), (BIG, BIG, 0) for none (causal is then the flag).
        # sink_logits: the learnable sinks ((H,) float32) or None; the last argument, with a default, so that
        # calls written before it existed keep working.
        def flash_attention_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool, sm_scale: float,
                               kernel: str, deterministic: bool, left: int, right: int, sinks: int,
                               sink_logits: typing.Optional[torch.Tensor] = None
                               ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            o, m = _forward(q, k, v, causal, sm_scale, kernel, _local_of(left, right, sinks), sink_logits)
            return o, _lse(m, q.shape).contiguous(), m

        @flash_attention_op.register_fake
        def _(q, k, v, causal, sm_scale, kernel, deterministic, left, right, sinks, sink_logits=None):
            B, H, N, D = q.shape
            return (q.new_empty((B, H, N, v.shape[-1])), q.new_empty((B, H, N), dtype=torch.float32),
                    q.new_empty((B * H, padded_len(N)), dtype=torch.float32))

        def setup_context(ctx, inputs, output):
            q, k, v, causal, sm_scale, kernel, deterministic, left, right, sinks, sink_logits = inputs
            o, lse, m = output
            ctx.mark_non_differentiable(lse, m)
            ctx.save_for_backward(q, k, v, o, m, sink_logits)
            ctx.causal, ctx.sm_scale, ctx.deterministic = causal, sm_scale, deterministic
            ctx.local = (left, right, sinks)

        # The backward is an op of its own, so that torch.compile traces it (with the fake) instead of running
        # the kernels on fake tensors.
        @torch.library.custom_op("txl::flash_attention_backward", mutates_args=(), device_types="cuda")
        def flash_attention_backward_op(do: torch.Tensor, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                                        o: torch.Tensor, m: torch.Tensor, causal: bool, sm_scale: float,
                                        deterministic: bool, left: int, right: int,
                                        sinks: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            return _attention_bwd.backward(do, q, k, v, o, m, causal, sm_scale, deterministic,
                                           _local_of(left, right, sinks))

        @flash_attention_backward_op.register_fake
        def _(do, q, k, v, o, m, causal, sm_scale, deterministic, left, right, sinks):
            return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)

        def backward(ctx, do, dlse, dm):
            q, k, v, o, m, sink_logits = ctx.saved_tensors
            need_qkv = any(ctx.needs_input_grad[:3])
            need_sinks = sink_logits is not None and ctx.needs_input_grad[10]
            if _launch.tracing(torch):
                dq = dk = dv = dsink = None
                if need_qkv:
                    err = backward_unsupported(q, v)
                    if err is not None:
                        raise err
                    # The sinks change nothing here: M includes them, and the kernels recompute P = exp2(S - M).
                    dq, dk, dv = flash_attention_backward_op(do, q, k, v, o, m, ctx.causal, ctx.sm_scale,
                                                             ctx.deterministic, *ctx.local)
                if need_sinks:
                    B, H, N, _ = q.shape
                    dsink = sink_grad(do, o, m.view(B, H, -1)[:, :, :N], sink_logits)
            else:  # eager (the op called directly): the kernels, as the eager autograd.Function does
                dq, dk, dv, dsink = _backward_eager(do, q, k, v, o, m, sink_logits, need_qkv, need_sinks,
                                                    ctx.causal, ctx.sm_scale, ctx.deterministic,
                                                    _local_of(*ctx.local))
            return dq, dk, dv, None, None, None, None, None, None, None, dsink

        flash_attention_op.register_autograd(backward, setup_context=setup_context)
        _op = flash_attention_op
    return _op


def flash_attention(q, k, v, causal=False, sm_scale=None, return_lse=False, kernel="fa3", deterministic=False,
                    window=(-1, -1), num_sink_tokens=0, rope=None, rope_interleaved=False, sinks=None):
    """softmax(q k^T * sm_scale [+ masks]) v; see the module docstring. sm_scale defaults to 1/sqrt(D).
    ``deterministic=True`` makes the backward's dQ bit-identical from run to run (a slower dQ pass instead of
    fp32 reduce-adds in no fixed order). ``window=(left, right)``: query i sees keys i - left .. i + right (-1:
    unbounded; causal caps right at 0), plus the first ``num_sink_tokens`` keys (attention sinks); a row that sees
    no key gets 0 (lse +inf). ``rope=(cos, sin)``: rotary embeddings applied to q and k first (``apply_rope``,
    (N, ROT / 2) tables, ``rope_interleaved`` for GPT-J pairs), differentiable. ``sinks``: learnable sinks, a
    (H,) tensor of per-head logits that join each row's softmax denominator (gpt-oss); a row that sees no key
    then gets 0 with lse = its sink."""
    import torch

    if rope is not None:
        q, k = _rotate(q, k, rope, rope_interleaved, "txl.ops.flash_attention")

    if sm_scale is None and type(q) is torch.Tensor and q.dim() == 4:
        sm_scale = 1.0 / math.sqrt(q.shape[-1])
    local = None
    if window != (-1, -1) or num_sink_tokens:
        local = local_masks(window, num_sink_tokens, causal)
        plain, plain_causal = _plain(local)
        if plain:
            local, causal = None, plain_causal
        elif kernel != "fa3":
            raise ValueError("txl.ops.flash_attention: window/num_sink_tokens run on kernel='fa3' only, got kernel=%r"
                             % (kernel,))
    # Eager calls of a shape seen before: straight to its plan (the checks it passed hold for every call with the
    # same key; sm_scale and the flags are checked here), through the eager autograd.Function when a gradient is
    # wanted.
    plan = None
    if (type(sm_scale) is float and 0.0 < sm_scale < math.inf and type(causal) is bool and type(return_lse) is bool
            and type(deterministic) is bool and not _launch.tracing(torch)):
        try:
            # learnable sinks as the kernel reads them: contiguous float32 (H,) on q's device
            sinks_ok = sinks is None or (type(sinks) is torch.Tensor and sinks.dtype == torch.float32
                                         and sinks.is_contiguous() and sinks.shape == q.shape[1:2]
                                         and sinks.device == q.device and sinks.data_ptr() % 16 == 0)
            if sinks_ok:
                plan = _plans.get(_plan_key(q, k, v, causal, kernel, local, sinks is not None))
        except (AttributeError, TypeError):
            plan = None
    if plan is not None and q.get_device() == torch.cuda.current_device():
        if torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad
                                        or (sinks is not None and sinks.requires_grad)):
            return _autograd_fn().apply(q, k, v, sinks, (plan, causal, sm_scale, kernel, deterministic, local,
                                                         return_lse))
        else:
            o, m = plan(q, k, v, sm_scale, want_m=return_lse, sinks=sinks)
            return (o, _lse(m, q.shape)) if return_lse else o
    _check_inputs(torch, q, k, v, causal, sm_scale, return_lse, kernel)
    sinks = check_sinks(torch, sinks, q.shape[1], q.device, kernel)
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(q.shape[-1])
    sm_scale = float(sm_scale)
    traced = _launch.tracing(torch)
    if traced or (torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad or
                                               (sinks is not None and sinks.requires_grad))):
        if not isinstance(deterministic, bool):
            raise TypeError("txl.ops.flash_attention: deterministic must be a bool, got %r" % (deterministic,))
        if not traced:
            return _autograd_fn().apply(q, k, v, sinks, (None, causal, sm_scale, kernel, deterministic, local,
                                                         return_lse))
        left, right, n_sink = local if local is not None else (BIG, BIG, 0)
        o, lse, _ = _custom_op()(q, k, v, causal, sm_scale, kernel, deterministic, left, right, n_sink, sinks)
        return (o, lse) if return_lse else o
    o, m = _forward(q, k, v, causal, sm_scale, kernel, local, sinks)
    return (o, _lse(m, q.shape)) if return_lse else o


# ---------------------------------------------------------------------------------------------------------------
# Precompiling (no torch, no GPU)
# ---------------------------------------------------------------------------------------------------------------
def precompile(kernel, head_dim, causal, dtype="bfloat16", n=4096, heads=2, kv_heads=None, mode="dense",
               head_dim_v=None, sinks=False):
    """Compile every autotuning config of one call shape (through the cache) without launching: returns the
    CompiledKernels. Only the dtype, head dims, causal, whether n is a multiple of 128, heads // kv_heads and
    whether there are learnable sinks matter for the specialisation."""
    if dtype not in DTYPES:
        raise ValueError("dtype %r: supported %s" % (dtype, DTYPES))
    kv_heads = kv_heads or heads
    dv = head_dim_v or head_dim
    check_head_dims(head_dim, dv, kernel, "txl.ops.attention.precompile")
    n_pad = padded_len(n)
    q2 = MetaTensor((heads * n, head_dim), dtype)
    o2 = MetaTensor((heads * n, dv), dtype)
    k2, v2 = MetaTensor((kv_heads * n, head_dim), dtype), MetaTensor((kv_heads * n, dv), dtype)
    m = MetaTensor((heads, n_pad), "float32")
    local = (256, 0, 4) if mode == "window" else None
    varlen = (MetaTensor((2,), "int32"), MetaTensor((2,), "int32"), heads) if mode == "varlen" else None
    sink_logits = MetaTensor((heads,), "float32") if sinks else None
    grid, args, kwargs = _launch_args(kernel, q2, k2, v2, o2, m, 1.0 / math.sqrt(head_dim), n, n_pad, heads,
                                      head_dim, causal and mode == "dense", heads // kv_heads, local, varlen,
                                      head_dim_v=dv, sink_logits=sink_logits, heads=heads)
    return get_tuner(kernel, head_dim, causal and mode == "dense", mode, dv).warmup(*args, grid=grid, **kwargs)
