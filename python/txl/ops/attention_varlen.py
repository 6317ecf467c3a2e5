"""``txl.ops.flash_attention_varlen``: flash attention over packed sequences of different lengths (flash-attn 2's
varlen interface), forward and backward, on the fa3 kernels' packed path (VARLEN).

    o = txl.ops.flash_attention_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, causal=True)

* q (total_q, H, D), k/v (total_k, H_KV, D) bf16/fp16 CUDA tensors, the tokens of sequence b at rows
  cu_seqlens_q[b] .. cu_seqlens_q[b + 1] - 1 (int32 CUDA tensors of B + 1 offsets from 0); D in {64, 128, 256};
  GQA as flash_attention. max_seqlen_* bound the sequences' lengths (they size the grids; a longer sequence is
  not checked, since that would need the offsets on the host).
* Masks as flash_attention, positions counted within each sequence; when a sequence's query and key lengths
  differ, query i lines up with key i + len_k - len_q (bottom-right, as flash-attn >= 2.1): causal keeps keys
  j <= i + len_k - len_q. ``window=(left, right)`` and ``num_sink_tokens`` as flash_attention. A query row that
  sees no key gets O = 0 and lse = +inf.
* ``return_lse``: also the (H, total_q) float32 log-sum-exp (natural log), flash-attn's varlen layout.
* ``sinks``: learnable attention sinks, a (H,) float tensor of logits (flash_attention's; differentiable). v may
  have a smaller head dim than q and k (flash_attention's ASYM_HEAD_DIMS; forward only so far): o is
  (total_q, H, D_v).
* Differentiable: dq, dk, dv through the FA3-style backward's packed path. A torch custom op
  (``torch.ops.txl.flash_attention_varlen`` with its backward op) for tracing (torch.compile, make_fx); eager
  calls go through a ``torch.autograd.Function`` (``_autograd_fn``) or, without gradients, straight to the
  kernels. The first call of a (longest-sequence bucket, head dim, dtype) autotunes; later ones launch the chosen
  config through a plan (``_VarlenPlan``, keyed on everything the argument checks look at but the packed
  lengths, which may change from call to call); the backward replays its launches the same way
  (``_attention_bwd.backward_varlen``).
"""

import math
import typing

from txl.ops import _launch
from txl.ops.attention import (BIG, BLOCK, DTYPES, _launch_args, _rotate, backward_unsupported, check_head_dims,
                               check_sinks, fast_launch, get_tuner, local_masks, n_bucket, padded_len, sink_grad,
                               sink_grad_from_delta)

_WHERE = "txl.ops.flash_attention_varlen"


def _check(torch, q, k, v, cu_q, cu_k, max_q, max_k, sm_scale):
    for name, t in (("q", q), ("k", k), ("v", v), ("cu_seqlens_q", cu_q), ("cu_seqlens_k", cu_k)):
        if not isinstance(t, torch.Tensor):
            raise TypeError("%s: %s must be a torch.Tensor, got %s" % (_WHERE, name, type(t).__name__))
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.dim() != 3:
            raise ValueError("%s: %s must be 3-D (total tokens, heads, head_dim), got shape %s"
                             % (_WHERE, name, tuple(t.shape)))
        if t.dtype != q.dtype or str(t.dtype).replace("torch.", "") not in DTYPES:
            raise TypeError("%s: q, k, v must share one dtype of torch.bfloat16, torch.float16; got %s, %s, %s"
                            % (_WHERE, q.dtype, k.dtype, v.dtype))
        if t.device.type not in _launch.DEVICE_TYPES or t.device != q.device:
            raise ValueError("%s: %s is on %s: q, k, v and the offsets must be on one CUDA device"
                             % (_WHERE, name, t.device))
    for name, t in (("cu_seqlens_q", cu_q), ("cu_seqlens_k", cu_k)):
        if t.dtype != torch.int32 or t.dim() != 1 or t.numel() < 2:
            raise ValueError("%s: %s must be a 1-D torch.int32 tensor of B + 1 offsets, got %s of shape %s"
                             % (_WHERE, name, t.dtype, tuple(t.shape)))
        if t.device != q.device:
            raise ValueError("%s: %s is on %s but q on %s" % (_WHERE, name, t.device, q.device))
    if cu_q.numel() != cu_k.numel():
        raise ValueError("%s: cu_seqlens_q has %d offsets and cu_seqlens_k %d: one per sequence + 1 each"
                         % (_WHERE, cu_q.numel(), cu_k.numel()))
    if k.shape[:2] != v.shape[:2]:
        raise ValueError("%s: k %s and v %s must have the same shape (v's head dim may be smaller)"
                         % (_WHERE, tuple(k.shape), tuple(v.shape)))
    if k.shape[2] != q.shape[2]:
        raise ValueError("%s: head dims q %d, k %d: must be equal" % (_WHERE, q.shape[2], k.shape[2]))
    check_head_dims(q.shape[2], v.shape[2], "fa3", _WHERE)
    if k.shape[1] < 1 or q.shape[1] % k.shape[1]:
        raise ValueError("%s: q has %d heads and k/v %d: the query head count must be a multiple of the kv head "
                         "count (GQA)" % (_WHERE, q.shape[1], k.shape[1]))
    for name, n in (("max_seqlen_q", max_q), ("max_seqlen_k", max_k)):
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise TypeError("%s: %s must be an int >= 0, got %r" % (_WHERE, name, n))
    if sm_scale is not None and (isinstance(sm_scale, bool) or not isinstance(sm_scale, (int, float))
                                 or not (math.isfinite(sm_scale) and sm_scale > 0)):
        raise ValueError("%s: sm_scale must be a positive finite float or None, got %r" % (_WHERE, sm_scale))
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.stride(-1) != 1:
            raise ValueError("%s: %s must have its head dim contiguous (stride 1); call .contiguous()"
                             % (_WHERE, name))


def _m_len(total_q):
    # M's row length: every packed token, plus a block so that a last query block's rows stay inside.
    return padded_len(max(total_q, 1)) + BLOCK


def _forward(q, k, v, cu_q, cu_k, max_q, max_k, sm_scale, local, sinks=None, plan_key=None):
    """(o (total_q, H, D_v), m (H, M_LEN) float32 base-2 LSE over the packed tokens); ``sinks``: (H,) float32
    learnable sink logits or None. ``plan_key``: where a launch through the fast path records its _VarlenPlan."""
    import torch
    import txl

    total_q, H, D = q.shape
    total_k, Hk, _ = k.shape
    Dv = v.shape[2]
    B = cu_q.numel() - 1
    q2 = q.contiguous().view(total_q, H * D)
    k2 = k.contiguous().view(total_k, Hk * D)
    v2 = v.contiguous().view(total_k, Hk * Dv)
    o = torch.empty((total_q, H, Dv), dtype=q.dtype, device=q.device)
    o2 = o.view(total_q, H * Dv)
    m = torch.empty((H, _m_len(total_q)), dtype=torch.float32, device=q.device)
    n_pad = padded_len(max(max_q, 1))
    grid, args, kwargs = _launch_args("fa3", q2, k2, v2, o2, m, sm_scale, max(max_q, 1), m.shape[1], B * H, D, False,
                                      H // Hk, local, (cu_q, cu_k, H), head_dim_v=Dv, sink_logits=sinks)

    def packed_grid(meta):
        return (n_pad // meta["BLOCK_M"], B * H)

    with torch.cuda.device(q.device):
        tuner = get_tuner("fa3", D, False, "varlen", Dv)
        key = tuner._key_of(tuner._bind_partial(args, kwargs))
        # a tuner of one config launches it without tuning (as Triton's), so it never enters tuner.best
        config = tuner.configs[0] if len(tuner.configs) == 1 else tuner.best.get(key)
        if config is None:  # the first call of its key autotunes (and its launch computes o and m)
            tuner[packed_grid](*args, **kwargs)
            return o, m
        # Later calls: the tuned config through the fast launch path (no per-call tuner and binding work).
        block_n = config.kwargs["BLOCK_N"]
        boxes = ([64, D], [block_n, D], [block_n, Dv], [64, Dv])
        args = tuple(txl.TensorDescriptor(d.base, block_shape=b) for d, b in zip(args[:4], boxes)) + args[4:]
        entry = fast_launch(tuner.fn, packed_grid(config.kwargs), args,
                            dict(kwargs, **config.kwargs, **config.options))
    if plan_key is not None and isinstance(entry, tuple) and q.device.type in _launch.DEVICE_TYPES:
        fast, names = entry
        order = tuner.fn.arg_names[:len(args)] + ["SINK_LOGITS"]
        if all(n in order for n in names):
            if len(_plans) > 256:
                _plans.clear()
            _plans[plan_key] = _VarlenPlan(fast, [order.index(n) for n in names], config.kwargs["BLOCK_M"],
                                           args[10:], (H, D), (Hk, D), (Hk, Dv), q.dtype, q.device)
    return o, m


_plans = {}


def _plan_key(q, k, v, cu_q, cu_k, max_q, causal, window, num_sink_tokens, has_sinks):
    """Everything a forward launch plan depends on but the packed lengths: the checks of _check hold for every
    call with the key (the totals and max_seqlen_q's class are checked per call), and the launch is the one
    config tuned for the bucket of max_seqlen_q, whose ints specialise on == 1 and divisibility by 16.
    AttributeError / TypeError for arguments of other types (the checked path reports them)."""
    bh = (cu_q.shape[0] - 1) * q.shape[1]
    n = max(max_q, 1)
    return (q.shape[1:], k.shape[1:], v.shape[1:], q.dtype, k.dtype, v.dtype, q.device, k.device, v.device,
            cu_q.device, cu_k.device, cu_q.dtype, cu_k.dtype, cu_q.shape, cu_k.shape, cu_q.stride(), cu_k.stride(),
            q.stride(), k.stride(), v.stride(), causal, window, num_sink_tokens, has_sinks, n_bucket(n), n == 1,
            n % 16 == 0, bh == 1, bh % 16 == 0)


class _VarlenPlan:
    """One forward launch of packed sequences, from a call that went through _forward's fast_launch: the
    FastLaunch of the tuned config and where each of its params comes from; a call allocates o and M and
    launches (no tuner lookup, no binding, no TensorDescriptor objects, no fingerprint, no row views: the
    descriptors are looked up by address and size, _launch.PlannedLaunch). ``tail``: the launch's constant
    arguments after BH (cu_q, cu_k, heads, window, sinks: cu_q/cu_k replaced per call)."""

    def __init__(self, fast, idx, block_m, tail, q_dims, k_dims, v_dims, dtype, device):
        self.block_m = block_m
        self.heads, self.d = q_dims
        self.hk, self.dv = v_dims
        self.tail = tuple(tail[2:6])  # NUM_HEADS, WIN_LEFT, WIN_RIGHT, N_SINK
        self.dtype, self.device = dtype, device
        # desc_q, desc_k, desc_v, desc_o are the launch's arguments 0..3: (total, heads * head dim) rows
        widths = (self.heads * self.d, self.hk * self.d, self.hk * self.dv, self.heads * self.dv)
        self.step = _launch.PlannedLaunch(fast, None, idx, [(pos, widths[i]) for pos, i in enumerate(idx) if i < 4])

    def __call__(self, q, k, v, cu_q, cu_k, max_q, sm_scale, sinks):
        import torch

        if not q.is_contiguous():
            q = q.contiguous()
        if not k.is_contiguous():
            k = k.contiguous()
        if not v.is_contiguous():
            v = v.contiguous()
        total_q = q.shape[0]
        H = self.heads
        o = torch.empty((total_q, H, self.dv), dtype=self.dtype, device=self.device)
        m_len = _m_len(total_q)
        m = torch.empty((H, m_len), dtype=torch.float32, device=self.device)
        n = max(max_q, 1)
        bh = (cu_q.shape[0] - 1) * H
        env = [q, k, v, o, m, o, sm_scale, n, m_len, bh, cu_q, cu_k]
        env += self.tail
        env.append(sinks)
        self.step(env, (padded_len(n) // self.block_m, bh, 1))
        return o, m


_op = None


def _custom_op():
    global _op
    if _op is None:
        import torch

        @torch.library.custom_op("txl::flash_attention_varlen", mutates_args=(), device_types="cuda")
        # sink_logits: learnable sinks ((H,) float32) or None, last and defaulted (calls from before it still work)
        def varlen_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, cu_q: torch.Tensor, cu_k: torch.Tensor,
                      max_q: int, max_k: int, sm_scale: float, left: int, right: int, sinks: int,
                      deterministic: bool, sink_logits: typing.Optional[torch.Tensor] = None
                      ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            o, m = _forward(q, k, v, cu_q, cu_k, max_q, max_k, sm_scale, (left, right, sinks), sink_logits)
            return o, (m[:, :q.shape[0]] * math.log(2.0)).contiguous(), m

        @varlen_op.register_fake
        def _(q, k, v, cu_q, cu_k, max_q, max_k, sm_scale, left, right, sinks, deterministic, sink_logits=None):
            return (q.new_empty((q.shape[0], q.shape[1], v.shape[2])),
                    q.new_empty((q.shape[1], q.shape[0]), dtype=torch.float32),
                    q.new_empty((q.shape[1], _m_len(q.shape[0])), dtype=torch.float32))

        def setup_context(ctx, inputs, output):
            q, k, v, cu_q, cu_k, max_q, max_k, sm_scale, left, right, sinks, deterministic, sink_logits = inputs
            o, lse, m = output
            ctx.mark_non_differentiable(lse, m)
            ctx.save_for_backward(q, k, v, o, m, cu_q, cu_k, sink_logits)
            ctx.args = (max_q, max_k, sm_scale, deterministic, (left, right, sinks))

        @torch.library.custom_op("txl::flash_attention_varlen_backward", mutates_args=(), device_types="cuda")
        def varlen_backward_op(do: torch.Tensor, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor,
                               m: torch.Tensor, cu_q: torch.Tensor, cu_k: torch.Tensor, max_q: int, max_k: int,
                               sm_scale: float, left: int, right: int, sinks: int,
                               deterministic: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            from txl.ops import _attention_bwd

            return _attention_bwd.backward_varlen(do, q, k, v, o, m, cu_q, cu_k, max_q, max_k, sm_scale,
                                                  deterministic, (left, right, sinks))

        @varlen_backward_op.register_fake
        def _(do, q, k, v, o, m, cu_q, cu_k, max_q, max_k, sm_scale, left, right, sinks, deterministic):
            return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)

        def backward(ctx, do, dlse, dm):
            q, k, v, o, m, cu_q, cu_k, sink_logits = ctx.saved_tensors
            max_q, max_k, sm_scale, deterministic, local = ctx.args
            need_qkv = any(ctx.needs_input_grad[:3])
            need_sinks = sink_logits is not None and ctx.needs_input_grad[12]
            if not _launch.tracing(torch):  # the op called directly: the eager backward
                dq, dk, dv, dsink = _backward_eager(do, q, k, v, o, m, cu_q, cu_k, sink_logits, need_qkv,
                                                    need_sinks, max_q, max_k, sm_scale, deterministic, local)
                return dq, dk, dv, None, None, None, None, None, None, None, None, None, dsink
            dq = dk = dv = dsink = None
            if need_qkv:
                err = backward_unsupported(q, v, "txl.ops.flash_attention_varlen backward")
                if err is not None:
                    raise err
                # M includes the sinks: the kernels' dq, dk, dv need nothing new for them.
                dq, dk, dv = varlen_backward_op(do.contiguous(), q, k, v, o, m, cu_q, cu_k, max_q, max_k,
                                                sm_scale, *local, deterministic)
            if need_sinks:
                dsink = sink_grad(do, o, m[:, :q.shape[0]], sink_logits, packed=True)
            return dq, dk, dv, None, None, None, None, None, None, None, None, None, dsink

        varlen_op.register_autograd(backward, setup_context=setup_context)
        _op = varlen_op
    return _op


def flash_attention_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, causal=False,
                           sm_scale=None, window=(-1, -1), num_sink_tokens=0, return_lse=False, deterministic=False,
                           rope=None, rope_interleaved=False, sinks=None):
    """Attention over packed sequences; see the module docstring. ``rope=(cos, sin)`` as flash_attention's, positions
    counted within each sequence (needs cu_seqlens_k to be cu_seqlens_q). ``sinks``: learnable sink logits (H,)."""
    import torch

    # Eager calls whose key ran before (_plan_key: everything _check looks at but the totals): no checks but the
    # per-call ones, straight to the plan, through the eager autograd.Function when a gradient is wanted.
    if (rope is None and type(causal) is bool and type(return_lse) is bool and type(deterministic) is bool
            and type(window) is tuple and type(num_sink_tokens) is int and type(max_seqlen_q) is int
            and type(max_seqlen_k) is int and max_seqlen_q >= 0 and max_seqlen_k >= 0
            and (sm_scale is None or (type(sm_scale) is float and 0.0 < sm_scale < math.inf))
            and not _launch.tracing(torch)):
        try:
            sinks_ok = sinks is None or (type(sinks) is torch.Tensor and sinks.dtype == torch.float32
                                         and sinks.is_contiguous() and sinks.shape == q.shape[1:2]
                                         and sinks.device == q.device and sinks.data_ptr() % 16 == 0)
            # (the key holds all but the totals: k's and v's must agree, and none be 0, the zero-size path's case)
            key = _plan_key(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, causal, window, num_sink_tokens,
                            sinks is not None) if (sinks_ok and q.shape[0] and k.shape[0]
                                                   and k.shape[0] == v.shape[0]) else None
            plan = _plans.get(key) if key is not None else None
            # the launch is specialised for 16-byte aligned pointers (torch's allocations; a slice may not be)
            if plan is not None and (q.data_ptr() | k.data_ptr() | v.data_ptr() | cu_seqlens_q.data_ptr()
                                     | cu_seqlens_k.data_ptr()) % 16:
                plan = None
        except (AttributeError, TypeError, IndexError):
            plan = None
        if plan is not None and q.get_device() == torch.cuda.current_device():
            scale = 1.0 / math.sqrt(q.shape[-1]) if sm_scale is None else sm_scale
            if torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad
                                            or (sinks is not None and sinks.requires_grad)):
                return _autograd_fn().apply(q, k, v, sinks, cu_seqlens_q, cu_seqlens_k,
                                            (max_seqlen_q, max_seqlen_k, scale, plan.tail[1:], deterministic,
                                             return_lse, plan, key))
            o, m = plan(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, scale, sinks)
            return (o, (m[:, :q.shape[0]] * math.log(2.0))) if return_lse else o

    _check(torch, q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, sm_scale)
    sinks = check_sinks(torch, sinks, q.shape[1], q.device, "fa3", _WHERE)
    if rope is not None:
        if cu_seqlens_k is not cu_seqlens_q:
            raise ValueError("%s: rope needs the queries and keys packed alike: pass the same tensor as cu_seqlens_q "
                             "and cu_seqlens_k, or apply txl.ops.apply_rope to q and k yourself" % _WHERE)
        q, k = _rotate(q, k, rope, rope_interleaved, _WHERE, cu_seqlens=cu_seqlens_q, max_seqlen=max_seqlen_q)
    if not isinstance(causal, bool) or not isinstance(return_lse, bool) or not isinstance(deterministic, bool):
        raise TypeError("%s: causal, return_lse and deterministic must be bools" % _WHERE)
    left, right, n_sink = local_masks(window, num_sink_tokens, causal, _WHERE)
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(q.shape[-1])
    if q.shape[0] == 0 or k.shape[0] == 0:  # no queries, or no keys for any of them: zeros, zero gradients
        o = q[..., :v.shape[2]] * 0.0 + (q.sum() + k.sum() + v.sum()) * 0.0
        lse = torch.full((q.shape[1], q.shape[0]), math.inf, dtype=torch.float32, device=q.device)
        if sinks is not None:  # each row's softmax is its sink alone: o = 0, lse = the sink
            o = o + sinks.sum() * 0.0
            lse = sinks.detach().view(-1, 1).expand(-1, q.shape[0]).contiguous()
        return (o, lse) if return_lse else o
    max_q, max_k, sm_scale = int(max_seqlen_q), int(max_seqlen_k), float(sm_scale)
    if _launch.tracing(torch):
        o, lse, _ = _custom_op()(q, k, v, cu_seqlens_q, cu_seqlens_k, max_q, max_k, sm_scale, left, right, n_sink,
                                 deterministic, sinks)
        return (o, lse) if return_lse else o
    # Eager: a plan for the next call of this key when the arguments are what the fast path above takes (a tuple
    # window, ints, the sinks as the kernel reads them; rope rotates q and k first, so its calls never get one).
    key = None
    if (rope is None and type(window) is tuple and type(num_sink_tokens) is int and type(max_seqlen_q) is int
            and type(max_seqlen_k) is int):
        key = _plan_key(q, k, v, cu_seqlens_q, cu_seqlens_k, max_q, causal, window, num_sink_tokens,
                        sinks is not None)
    if torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad
                                    or (sinks is not None and sinks.requires_grad)):
        return _autograd_fn().apply(q, k, v, sinks, cu_seqlens_q, cu_seqlens_k,
                                    (max_q, max_k, sm_scale, (left, right, n_sink), deterministic, return_lse, None,
                                     key))
    o, m = _forward(q, k, v, cu_seqlens_q, cu_seqlens_k, max_q, max_k, sm_scale, (left, right, n_sink), sinks,
                    plan_key=key)
    return (o, (m[:, :q.shape[0]] * math.log(2.0))) if return_lse else o


def _backward_eager(do, q, k, v, o, m, cu_q, cu_k, sink_logits, need_qkv, need_sinks, max_q, max_k, sm_scale,
                    deterministic, local):
    """(dq, dk, dv, dsinks) of an eager backward (None where not needed): the packed backward kernels directly;
    the sinks' gradient from the preprocess's Delta, or from dO and O in torch when q, k, v need none."""
    from txl.ops import _attention_bwd

    dq = dk = dv = dsink = delta = None
    if need_qkv:
        err = backward_unsupported(q, v, "txl.ops.flash_attention_varlen backward")
        if err is not None:
            raise err
        # M includes the sinks: the kernels' dq, dk, dv need nothing new for them.
        dq, dk, dv, delta = _attention_bwd.backward_varlen(do.contiguous(), q, k, v, o, m, cu_q, cu_k, max_q, max_k,
                                                           sm_scale, deterministic, local, return_delta=True)
    if need_sinks:
        rows = m[:, :q.shape[0]]
        dsink = (sink_grad_from_delta(delta[:, :q.shape[0]], rows, sink_logits) if delta is not None
                 else sink_grad(do, o, rows, sink_logits, packed=True))
    return dq, dk, dv, dsink


_fn = None


def _autograd_fn():
    """The eager autograd of flash_attention_varlen (attention._autograd_fn's, for packed sequences): ``apply(q, k,
    v, sinks, cu_q, cu_k, (max_q, max_k, sm_scale, local, deterministic, want_lse, plan, plan_key))``, ``plan`` the
    key's _VarlenPlan or None (_forward, which records one under ``plan_key``); the non-tensor arguments in one
    tuple, as attention._autograd_fn's (torch's apply walks its arguments in Python)."""
    global _fn
    if _fn is None:
        import torch

        class FlashAttentionVarlenFunction(torch.autograd.Function):
            @staticmethod
            def forward(ctx, q, k, v, sinks, cu_q, cu_k, call):
                max_q, max_k, sm_scale, local, deterministic, want_lse, plan, plan_key = call
                if plan is not None:
                    o, m = plan(q, k, v, cu_q, cu_k, max_q, sm_scale, sinks)
                else:
                    o, m = _forward(q, k, v, cu_q, cu_k, max_q, max_k, sm_scale, local, sinks, plan_key=plan_key)
                ctx.save_for_backward(q, k, v, o, m, cu_q, cu_k, sinks)
                ctx.set_materialize_grads(False)
                ctx.args = (max_q, max_k, sm_scale, deterministic, local)
                if want_lse:
                    lse = m[:, :q.shape[0]] * math.log(2.0)
                    ctx.mark_non_differentiable(lse)
                    return o, lse
                return o

            @staticmethod
            def backward(ctx, do, dlse=None):
                if do is None:
                    return (None,) * 7
                q, k, v, o, m, cu_q, cu_k, sinks = ctx.saved_tensors
                need = ctx.needs_input_grad
                max_q, max_k, sm_scale, deterministic, local = ctx.args
                dq, dk, dv, dsink = _backward_eager(do, q, k, v, o, m, cu_q, cu_k, sinks,
                                                    need[0] or need[1] or need[2], sinks is not None and need[3],
                                                    max_q, max_k, sm_scale, deterministic, local)
                return dq, dk, dv, dsink, None, None, None

        _fn = FlashAttentionVarlenFunction
    return _fn


__all__ = ["flash_attention_varlen", "BIG"]
