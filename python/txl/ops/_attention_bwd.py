"""The backward of ``txl.ops.flash_attention``: dQ, dK, dV from the saved q, k, v, o and the forward's base-2
log-sum-exp M (``txl.kernels.flash_attention_bwd``).

Three launches per call: the preprocess Delta = rowsum(dO * O) (f32, (B * H, N_PAD); it also zeroes the dQ
accumulator), the warp-specialized dK/dV kernel that also adds every key block's share of dQ into that f32
accumulator with TMA reduce-adds, then one
scale-and-convert of the accumulator into dQ (attention_bwd_dq_convert). The reduce-adds of different key blocks land in no fixed order, so
dQ may differ in its last bits from run to run; ``deterministic=True`` instead runs the dK/dV kernel without dQ
(DETERMINISTIC) and computes dQ in ``attention_bwd_dq``, one CTA per query block walking the key blocks in order.
"""


from txl.ops import _launch
from txl.ops._launch import BIG, BLOCK, _dummy_i32, padded_len

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
# Asymmetric head dims (q/k D, v D_v < D; flash_attention_bwd_asym, 64 keys per CTA, the two consumers split the
# columns): (D, D_v) -> (consumer 0's dK columns, its dV columns, its dQ 64-column blocks), whole 64-column blocks
# chosen so both consumers add the same number of GEMM columns per step: (192, 128) 128 + 64 + 64 against
# 64 + 64 + 128; (256, 128) 128 + 64 + 128 each. A D_v of 64 cannot be split into 64-column blocks.
ASYM_PLANS = {(192, 128): (128, 64, 1), (256, 128): (128, 64, 2)}
ASYM_HEAD_DIMS = tuple(ASYM_PLANS)  # what txl.ops.attention.backward_unsupported reads
# Q/dO ring depth: shared memory is K 64 x D + V 64 x D_v + stages x 64 x (D + D_v) (bf16) + P^T, dS^T 32 KB + the
# dQ staging D / 64 x 16 KB, of 227 KB: (192, 128) 200 KB with 2 stages, (256, 128) 192 KB with 1.
ASYM_STAGES = {(192, 128): 2, (256, 128): 1}
# The split of the dK/dV kernel's walk (split_walk), in query-block steps (a step: five 64 x 128 x D GEMMs per
# consumer, about 1.7 us at hd64 on the H200): a CTA's fixed cost (K/V load, filling the Q/dO ring, the epilogue),
# the combine launch's, and its reading of the partials per (CTA, split): a key block's f32 dK + dV, 128 x 2D x 4
# bytes, at about 2.5 TB/s, is 0.015 steps at any D. Estimates from the kernel's structure and the H200's
# bandwidth; the combine measured about 5 us (2.5 steps) at (2, 8, 1000, 64) with S = 8.
SPLIT_CTA_STEPS = 4
SPLIT_COMBINE_STEPS = 4
SPLIT_STEPS_PER_PARTIAL = 0.015
MAX_SPLIT = 16  # bounds the f32 partials (S copies of dK and dV)
COMBINE_CHUNK = 512  # elements per program of attention_bwd_dkv_combine: one 16-byte load per thread and split
# (N_PAD * D is a multiple of 2048; at (2, 16, 1, 128, 64), split 16, chunks of 2048 made 8 programs and the
# combine took 7 us, longer than the dK/dV kernel)
_SMS = {}


def split_walk(key_blocks, bkv, group, steps_per_head, sms):
    """How many CTAs share each key block's walk in the dK/dV kernel (1 .. MAX_SPLIT).

    A CTA owns one key block of one kv head and takes a whole SM (224 KB of shared memory); it walks ``group *
    steps_per_head`` query-block steps (every query block of every query head of the kv head's group) one after
    another. When key_blocks * bkv CTAs leave SMs idle (the issue's (2, 8, 1000, 64) MQA row: 16 CTAs of 128 steps
    on 132 SMs), S CTAs per key block each take a contiguous 1/S of the walk (whole query heads when S divides the
    group, so GQA/MQA splits the group's heads first; MHA splits its query blocks) and write a partial dK/dV that
    attention_bwd_dkv_combine sums. Modelled time: waves(S) * (ceil(walk / S) + SPLIT_CTA_STEPS), plus for S > 1
    the combine, SPLIT_COMBINE_STEPS + SPLIT_STEPS_PER_PARTIAL * CTAs * S; the S of least time wins, the smaller
    on a tie (fewer partial bytes). A grid that already fills the SMs is never split.
    ``steps_per_head``: query blocks a key block visits per head (the longest CTA's, under causal)."""
    ctas = key_blocks * bkv
    walk = group * steps_per_head
    if ctas >= sms or walk < 2:
        return 1

    def cost(s):
        waves = -(-ctas * s // sms)
        combine = SPLIT_COMBINE_STEPS + SPLIT_STEPS_PER_PARTIAL * ctas * s if s > 1 else 0
        return waves * (-(-walk // s) + SPLIT_CTA_STEPS) + combine

    return min(range(1, min(MAX_SPLIT, walk) + 1), key=lambda s: (cost(s), s))


def _num_sms(device):
    """Multiprocessors of ``device`` (132 for a tensor not on a GPU: CPU tests of the launch plan)."""
    import torch

    if device.type != "cuda":
        return 132
    if device not in _SMS:
        _SMS[device] = torch.cuda.get_device_properties(device).multi_processor_count
    return _SMS[device]


def _rows(t):
    B, H, N, D = t.shape
    if not t.is_contiguous() or t.data_ptr() % 16:
        t = t.contiguous() if not t.is_contiguous() else t.clone()
    return t.view(B * H * N, D)


def check_supported(q, where="txl.ops.flash_attention backward", v=None):
    """NotImplementedError unless a backward kernel takes q's head dim (and, given v, the pair (D, D_v))."""
    D = q.shape[-1]
    Dv = v.shape[-1] if v is not None else None
    if Dv is not None and Dv != D:
        if (D, Dv) not in ASYM_PLANS:
            raise NotImplementedError(
                "%s: asymmetric head dims (q/k %d, v %d) have no backward kernel (supported pairs: %s); pad v with "
                "zero columns to head dim %d or use torch.nn.functional.scaled_dot_product_attention"
                % (where, D, Dv, ", ".join("%d/%d" % p for p in ASYM_PLANS), D))
        return
    if D not in BWD_HEAD_DIMS and not (v is None and D in {d for d, _ in ASYM_PLANS}):
        raise NotImplementedError("%s: head dim %d has no backward kernel yet (supported: %s); use "
                                  "torch.nn.functional.scaled_dot_product_attention for training at this head dim"
                                  % (where, D, ", ".join(map(str, BWD_HEAD_DIMS))))


def backward(do, q, k, v, o, m, causal, sm_scale, deterministic=False, local=None, return_delta=False):
    """(dq, dk, dv) for o = flash_attention(q, k, v, causal, sm_scale) with m its (B * H, N_PAD) base-2 LSE;
    ``local``: the forward's local masks (attention.local_masks()) or None. ``return_delta``: also the
    preprocess's Delta = rowsum(dO * O) ((B * H, N_PAD) float32, products in float32), which the learnable sinks'
    gradient needs (attention.sink_grad_from_delta) and would otherwise read dO and O again for.

    A call whose (shapes, dtype, device, masking, determinism) ran before goes straight to its plan (_Plan.run):
    the checks, the split rule's choice and the launch recording of the first call hold for every call with the
    key."""
    # (split_walk in the key: a test or bench/attention_bwd.py --no-split that replaces the rule gets new plans)
    plan = _plans.get((q.shape, k.shape, v.shape, q.dtype, q.device, causal, deterministic, local, split_walk))
    if plan is not None:
        out = plan.run(do, q, k, v, o, m, sm_scale)
        if out is not None:
            return (out[0], out[1], out[2], out[3].tensor()) if return_delta else out[:3]
    return _backward(do, q, k, v, o, m, causal, sm_scale, deterministic, local, return_delta)


def _backward(do, q, k, v, o, m, causal, sm_scale, deterministic, local, return_delta):
    """backward() without a plan: checks, picks the split, launches through _launch.fast_launch (compiling on a
    first call) and records a plan for the key when the tensors allow one."""
    import torch

    check_supported(q, v=v)
    B, H, N, D = q.shape
    Hk, Dv = k.shape[1], v.shape[-1]
    if Dv != D and (deterministic or local is not None):
        raise NotImplementedError(
            "txl.ops.flash_attention backward: asymmetric head dims (q/k %d, v %d) run without %s (no kernel yet); "
            "call it with %s" % (D, Dv, "deterministic=True" if deterministic else "local masks (window / sinks)",
                                 "deterministic=False" if deterministic else "plain or causal masking"))
    n_pad = padded_len(N)
    # (contiguous whatever q's strides: the kernels write them as rows)
    dq, dk, dv = torch.empty((B, H, N, D), dtype=q.dtype, device=q.device), \
        torch.empty((B, Hk, N, D), dtype=q.dtype, device=q.device), \
        torch.empty((B, Hk, N, Dv), dtype=q.dtype, device=q.device)
    rows = [_rows(t) for t in (q, k, v, o, do)] + [dq.view(B * H * N, D), dk.view(B * Hk * N, D),
                                                   dv.view(B * Hk * N, Dv)]
    block_n = 64 if D == 256 or Dv != D else BLOCK_N
    split = split_walk(n_pad // block_n, B * Hk, H // Hk, n_pad // BLOCK_M, _num_sms(q.device))
    usable = (q.device.type in _launch.DEVICE_TYPES and m.is_contiguous() and m.data_ptr() % 16 == 0
              and m.dtype == torch.float32)
    launches, allocs = [], {}

    def record(fn, grid, args, kwargs):
        _launch.fast_launch(fn, grid, args, kwargs)
        launches.append((fn, grid, args, kwargs))

    _run(rows, m, sm_scale, deterministic, causal, local, None, D=D, H=H, Hk=Hk, n_ctx=N, n_pad=n_pad, bh=B * H,
         bkv=B * Hk, key_blocks=n_pad, query_blocks=n_pad, head_stride=N * D, row_stride=D, split=split, Dv=Dv,
         launch=record, allocs=allocs)
    if usable:
        plan = _Plan.build(launches, rows, m, allocs, q.get_device())
        if plan is not None:
            if len(_plans) > 64:
                _plans.clear()
            plan.outs = ((B, H, N, D), (B, Hk, N, D), (B, Hk, N, Dv))
            plan.dtype = q.dtype
            _plans[(q.shape, k.shape, v.shape, q.dtype, q.device, causal, deterministic, local, split_walk)] = plan
    return (dq, dk, dv, allocs["delta"][0]) if return_delta else (dq, dk, dv)


_plans = {}


class _Plan:
    """The launches of backward() for one static description (shapes, dtype, device, masking, determinism; the
    split follows from them): built from the first call's launches, which went through _launch.fast_launch
    (validating, compiling); a later call (run) allocates dq, dk, dv and one float32 workspace for the scratch
    tensors (Delta, the dQ accumulator, the split's partials) and launches each kernel through its
    runtime.FastLaunch with the call's tensors as they are (_launch.PlannedLaunch: descriptors by address, no
    row views), skipping the checks, the split rule, the per-launch fingerprint and the seven TensorDescriptor
    objects (at (2, 8, 1000, 64) the host took ~230 us of Python per backward against ~45 us of GPU time).
    ``steps``: (FastLaunch, grid, sources, descs), a source per kernel param: ("row", i) the call's rows[i]
    (q, k, v, o, do, dq, dk, dv), ("m",), ("scratch", name), ("scale",) or ("const", value); ``descs``: (param
    index, row width) of the descriptor params. Each source is an index into the list a call launches from:
    rows + [m, sm_scale] + scratch pieces + constants."""

    def __init__(self, steps, scratch, device):
        self.scratch, self.device = scratch, device
        names = [name for name, _ in scratch]
        consts = []
        self.indexed = []
        for fast, grid, sources, descs in steps:
            idx = []
            for src in sources:
                kind = src[0]
                if kind == "row":
                    idx.append(src[1])
                elif kind == "m":
                    idx.append(8)
                elif kind == "scale":
                    idx.append(9)
                elif kind == "scratch":
                    idx.append(10 + names.index(src[1]))
                else:
                    idx.append(10 + len(names) + len(consts))
                    consts.append(src[1])
            self.indexed.append(_launch.PlannedLaunch(fast, grid, idx, descs))
        self.consts = consts
        self.layout, self.ws_numel = _launch.workspace_layout([shape for _, shape in scratch])
        self.delta_at = names.index("delta") if "delta" in names else None
        self.outs = self.dtype = None  # set by backward(): dq's, dk's and dv's shapes, q's dtype

    @staticmethod
    def _launcher(fn, args, kwargs, dev):
        """(the FastLaunch of a launch that _launch.fast_launch ran, its params' names): compiled by then, so
        the JIT's cache hands the kernel back. (bench/attention_host_cpu.py replaces this with a stand-in.)"""
        from txl.runtime.launcher import FastLaunch

        launcher = fn.warmup(*args, grid=None, **kwargs).launcher()
        names = [p.name for p in launcher.params]
        if not all(n in fn.arg_names for n in names):
            bound = fn.bind(args, {n: v for n, v in kwargs.items() if n in fn.arg_names})
            names = list(fn.specialize(bound)[0])
        return FastLaunch(launcher, dev), names

    @classmethod
    def build(cls, launches, rows, m, allocs, dev):
        """The plan of a first call's ``launches`` ((fn, grid, args, kwargs) as _run made them) on ``rows`` and
        ``m``, ``allocs`` its scratch tensors by name; None when a launch reads a tensor that is not one of them
        (it would be stale in the next call)."""
        import torch
        import txl

        dummy = _dummy_i32(m)
        where = {id(t): ("row", i) for i, t in enumerate(rows)}
        where[id(m)] = ("m",)
        where.update({id(t): ("scratch", name) for name, (t, _) in allocs.items()})
        steps = []
        for fn, grid, args, kwargs in launches:
            fast, names = cls._launcher(fn, args, kwargs, dev)
            by_name = dict(zip(fn.arg_names, args))
            sources, descs = [], []
            for n in names:
                if n not in by_name:
                    return None  # a runtime param that is no positional argument: leave it to fast_launch
                v = by_name[n]
                if isinstance(v, txl.TensorDescriptor):
                    v = v.base
                    if id(v) not in where:
                        return None
                    descs.append((len(sources), v.shape[-1]))
                if isinstance(v, torch.Tensor):
                    # the call's tensors by where they come from; the dummy cu_seqlens is the one constant (any
                    # other tensor would be this call's, stale in the next: no plan then)
                    if id(v) not in where and v is not dummy:
                        return None
                    sources.append(where.get(id(v), ("const", v)))
                elif isinstance(v, float):
                    sources.append(("scale",))  # the only float argument
                else:
                    sources.append(("const", v))
            steps.append((fast, grid, sources, descs))
        return cls(steps, [(name, shape) for name, (_, shape) in allocs.items()], m.device)

    def run(self, do, q, k, v, o, m, sm_scale):
        """(dq, dk, dv, Delta piece) of a call with the plan's key (Delta: a _launch.Piece, ``.tensor()`` views
        it), or None when ``m`` is not the forward's (contiguous, 16-byte aligned float32) or dO is not q's
        dtype: backward() then takes the checked path."""
        import torch

        if m.dtype != torch.float32 or not m.is_contiguous() or m.data_ptr() % 16 or do.dtype != self.dtype:
            return None
        dtype, device = self.dtype, self.device
        # The kernels read the inputs in place when they are contiguous and 16-byte aligned (the key fixes their
        # shapes, so their rows are the first call's); anything else is copied, as the first call did.
        env = [t if t.is_contiguous() and not t.data_ptr() % 16 else _rows(t) for t in (q, k, v, o, do)]
        dq = torch.empty(self.outs[0], dtype=dtype, device=device)
        dk = torch.empty(self.outs[1], dtype=dtype, device=device)
        dv = torch.empty(self.outs[2], dtype=dtype, device=device)
        pieces = _launch.workspace_pieces(torch, self.layout, self.ws_numel, device)
        env += [dq, dk, dv, m, float(sm_scale)]
        env += pieces
        env += self.consts
        for step in self.indexed:
            step(env)
        return dq, dk, dv, pieces[self.delta_at]


def backward_varlen(do, q, k, v, o, m, cu_q, cu_k, max_q, max_k, sm_scale, deterministic, local, return_delta=False):
    """(dq, dk, dv) of packed sequences (attention_varlen): q, o, do (total_q, H, D), k, v (total_k, H_KV, D), m
    the forward's (H, M_LEN) base-2 LSE over the packed tokens; ``return_delta``: also Delta, (H, M_LEN) float32
    (see backward).

    The packed lengths change from call to call, so the launches are _run's each time, but a call whose key
    (_varlen_key: what the kernels specialise on) ran before replays the FastLaunch of each of its launches
    (_launch.PlannedLaunch) with the tensors as they are: descriptors looked up by address and size, no row
    views, no checks, no TensorDescriptor objects, no fingerprints (7 descriptors and 3 fingerprints cost most of
    this function's host time)."""
    import torch

    total_q, H, D = q.shape
    Hk, Dv = k.shape[1], v.shape[-1]
    # Before the row views below, which assume one head dim (an asymmetric pair failed there with a reshape
    # error instead of this message: H200, test_varlen_asym_backward_is_refused_clearly).
    if Dv != D:
        raise NotImplementedError("txl.ops.flash_attention_varlen backward: asymmetric head dims (q/k %d, v %d) "
                                  "have no packed-sequence backward kernel; pad v to head dim %d" % (D, Dv, D))
    dq, dk, dv = (torch.empty(t.shape, dtype=t.dtype, device=t.device) for t in (q, k, v))
    # (total, heads, D) tensors: a replay launches on them as they are, a first call on (total, heads * D) rows
    tensors = [t if t.is_contiguous() else t.contiguous() for t in (q, k, v, o, do)] + [dq, dk, dv]
    key = _varlen_key(q, k, v, tensors, m, cu_q, cu_k, max_q, deterministic, local, do)
    fasts = _varlen_plans.get(key) if key is not None else None
    if fasts is None:
        check_supported(q, "txl.ops.flash_attention_varlen backward")
    allocs = {}
    kw = dict(D=D, H=H, Hk=Hk, n_ctx=total_q, n_pad=m.shape[1], bh=H, bkv=(cu_q.shape[0] - 1) * Hk,
              key_blocks=padded_len(max_k), query_blocks=padded_len(max_q), head_stride=D, row_stride=H * D,
              max_q=max_q, batch=cu_q.shape[0] - 1, allocs=allocs)
    if fasts is not None:
        steps = iter(fasts)

        def replay(fn, grid, args, kwargs):
            next(steps)(args, tuple(grid) + (1,) * (3 - len(grid)))

        _run(tensors, m, sm_scale, deterministic, False, local, (cu_q, cu_k), launch=replay, descriptors=False,
             **kw)
    else:
        import txl

        recorded = []

        def record(fn, grid, args, kwargs):
            entry = _launch.fast_launch(fn, grid, args, kwargs)
            order = fn.arg_names[:len(args)]
            if isinstance(entry, tuple) and all(n in order for n in entry[1]):
                idx = [order.index(n) for n in entry[1]]
                descs = [(pos, args[i].base.shape[-1]) for pos, i in enumerate(idx)
                         if isinstance(args[i], txl.TensorDescriptor)]
                recorded.append(_launch.PlannedLaunch(entry[0], None, idx, descs))
            else:
                recorded.append(None)

        rows = [t.view(t.shape[0], t.shape[1] * D) for t in tensors]
        _run(rows, m, sm_scale, deterministic, False, local, (cu_q, cu_k), launch=record, **kw)
        if key is not None and None not in recorded:
            if len(_varlen_plans) > 64:
                _varlen_plans.clear()
            _varlen_plans[key] = recorded
    return (dq, dk, dv, allocs["delta"][0]) if return_delta else (dq, dk, dv)


_varlen_plans = {}


def _varlen_key(q, k, v, rows, m, cu_q, cu_k, max_q, deterministic, local, do=None):
    """What the packed backward's launches specialise on, or None (no replay) for tensors off the kernels' device
    types or not 16-byte aligned: head counts and dims, dtypes (dO's too: a replayed descriptor keeps its dtype),
    device, the sequence count, the classes of the ints that reach the kernels (== 1, divisible by 16: the packed
    total and max_seqlen_q; M's row length is a multiple of 128), M's layout, determinism and the local masks."""
    import torch

    if (q.device.type not in _launch.DEVICE_TYPES or m.dtype != torch.float32 or not m.is_contiguous()
            or not cu_q.is_contiguous() or not cu_k.is_contiguous()):
        return None
    ptrs = m.data_ptr() | cu_q.data_ptr() | cu_k.data_ptr()
    for t in rows:
        ptrs |= t.data_ptr()
    if ptrs % 16:
        return None
    total_q = q.shape[0]
    return (q.shape[1:], k.shape[1:], v.shape[1:], q.dtype, None if do is None else do.dtype, q.device,
            cu_q.shape, cu_q.dtype, cu_k.dtype, deterministic, local, total_q == 1, total_q % 16 == 0, max_q == 1,
            max_q % 16 == 0)


def _run(rows, m, sm_scale, deterministic, causal, local, varlen, D, H, Hk, n_ctx, n_pad, bh, bkv, key_blocks,
         query_blocks, head_stride, row_stride, max_q=None, batch=None, split=1, Dv=None, launch=None, allocs=None,
         descriptors=True):
    """The three launches on (rows, columns) views: q2, k2, v2, o2, do2 read, dq2, dk2, dv2 written. Dense:
    (B * H * N, D) rows, M (B * H, n_pad); packed (varlen = (cu_q, cu_k)): (total, heads * D) rows, M (H, n_pad)
    over the packed tokens. bh: the rows of M; key_blocks / query_blocks: the padded longest sequences.
    split > 1 (dense only): the dK/dV kernel's grid gets a third axis of ``split`` CTAs per key block, each over
    1 / split of its walk (split_walk), writing f32 partials that attention_bwd_dkv_combine sums in order (a
    fourth launch; deterministic either way). Dv (dense only): V's, O's and dO's head dim when it differs from D
    (flash_attention_bwd_asym; rows of v2, o2, do2, dv2 are Dv wide). ``launch``: how to launch (default
    _launch.fast_launch; _Plan records through it); ``allocs``: a dict that gets each scratch tensor allocated
    here by name, with its shape and dtype. ``descriptors=False``: descriptor arguments as their raw tensors (a
    launch through a FastLaunch that has the compiled boxes: backward_varlen's replay)."""
    import torch
    import txl
    from txl.kernels import flash_attention_bwd as kb

    launch = launch or _launch.fast_launch  # (looked up per call: tests record launches by replacing it)
    allocs = {} if allocs is None else allocs

    def scratch(name, shape):
        t = torch.empty(shape, dtype=torch.float32, device=q2.device)
        allocs[name] = (t, shape)
        return t

    q2, k2, v2, o2, do2, dq2, dk2, dv2 = rows
    assert n_pad % BLOCK_N == 0 and BLOCK % BLOCK_M == 0
    Dv = Dv or D
    asym = Dv != D
    assert not asym or (varlen is None and local is None and not deterministic)
    delta = scratch("delta", (bh, n_pad))
    dq_cols = 64 if asym else D // 2 if D > 64 else D
    # The f32 dQ accumulator the main kernel reduce-adds into, zeroed by the preprocess (deterministic: a 64-row
    # stand-in the kernel never touches; its descriptor must still describe a tensor).
    dq_acc = scratch("dq_acc", (BLOCK_M if deterministic else bh * n_pad, D))
    # O and dO rows are Dv wide (dense; asymmetric head dims are dense only)
    o_head_stride, o_row_stride = (n_ctx * Dv, Dv) if asym else (head_stride, row_stride)
    launch(kb.attention_bwd_preprocess, (n_pad // PRE_BLOCK, bh),
           (o2, do2, delta, dq_acc, n_ctx, n_pad, o_head_stride),
           dict(HEAD_DIM=Dv, BLOCK=PRE_BLOCK, ROW_STRIDE=o_row_stride, ZERO_DQ=not deterministic,
                **(dict(DQ_DIM=D) if asym else {})))
    cu_q, cu_k = varlen if varlen is not None else (_dummy_i32(m), _dummy_i32(m))
    left, right, sinks = local if local is not None else (BIG, BIG, 0)
    masks = (cu_q, cu_k, H, left, right, sinks)
    mode = dict(VARLEN=True) if varlen is not None else dict(WINDOW=True) if local is not None else {}
    even_n = varlen is None and n_ctx == n_pad
    n_ctx_k = max_q if varlen is not None else n_ctx  # (unread by the packed path)

    # Rows of K/V per box: a consumer's 64 keys (hd256, asymmetric: the CTA's 64 keys); dK/dV boxes are column
    # halves at hd256, 64-column blocks with asymmetric head dims.
    kv_box = 64
    out_cols = 64 if asym else D // 2 if D == 256 else D
    desc = (lambda t, box: txl.TensorDescriptor(t, block_shape=box)) if descriptors else (lambda t, box: t)
    descs = [desc(q2, [BLOCK_M, D]), desc(k2, [kv_box, D]), desc(v2, [kv_box, Dv]), desc(do2, [BLOCK_M, Dv]),
             desc(dq_acc, [BLOCK_M, dq_cols]), desc(dk2, [kv_box, out_cols]), desc(dv2, [kv_box, out_cols])]
    if asym:
        from txl.kernels import flash_attention_bwd_asym as kba

        block_n = 64
        kernel = kba.flash_attention_bwd_asym
        cx = kba.constexprs(D, Dv, ASYM_PLANS[(D, Dv)], bool(causal), ASYM_STAGES[(D, Dv)], even_n, H // Hk,
                            split)
    else:
        if D == 256:
            block_n = 64
            kernel = kb.flash_attention_bwd_hd256
        else:
            block_n = BLOCK_N
            kernel = kb.flash_attention_bwd
        cx = dict(kb.constexprs(D, bool(causal) and not mode, BLOCK_M, block_n, NUM_STAGES[D], even_n, H // Hk,
                                split=split), **mode)
    if split > 1:
        assert varlen is None
        part_rows = bkv * n_pad
        dk_out, dv_out = scratch("dk_part", (split, part_rows, D)), scratch("dv_part", (split, part_rows, Dv))
        grid = (key_blocks // block_n, bkv, split)
    else:
        dk_out, dv_out = dk2, dv2
        grid = (key_blocks // block_n, bkv)
    launch(kernel, grid, (*descs, m, delta, dk_out, dv_out, float(sm_scale), n_ctx_k, n_pad, *masks),
           dict(cx, DQ=not deterministic, **kb.OPTIONS))
    if split > 1:
        launch(kb.attention_bwd_dkv_combine, (n_pad * D // COMBINE_CHUNK, bkv), (dk_out, dv_out, dk2, dv2, n_ctx,
                                                                                 n_pad),
               dict(DK_DIM=D, DV_DIM=Dv, SPLIT=split, CHUNK=COMBINE_CHUNK))
    if deterministic:
        launch(kb.attention_bwd_dq, (query_blocks // DQ_BLOCK, batch * H if varlen is not None else bh),
               (q2, k2, v2, do2, dq2, m, delta, float(sm_scale), n_ctx_k, n_pad, *masks),
               dict(HEAD_DIM=D, BLOCK_M=DQ_BLOCK, BLOCK_N=DQ_BLOCK_N[D], CAUSAL=bool(causal) and not mode,
                    H_Q_PER_KV=H // Hk, num_warps=4, num_stages=2, **mode))
        return
    launch(kb.attention_bwd_dq_convert, (n_pad // CONVERT_BLOCK, bh),
           (dq_acc, dq2, float(sm_scale), n_ctx, n_pad, head_stride),
           dict(HEAD_DIM=D, BLOCK=CONVERT_BLOCK, ROW_STRIDE=row_stride, **(dict(COL_BLOCK=64) if asym else {})))
