"""The eager autograd of ``txl.ops.flash_attention`` / ``flash_attention_varlen`` (a torch.autograd.Function that
launches the kernels directly) against the custom ops' autograd (what torch.compile traces), without a GPU: CPU
tensors, the kernels replaced by the float64 models of test_attention_sinks_asym_cpu (forward: o and the base-2 M;
backward: the FA2 formula from P = exp2(S - M), plus the preprocess's Delta). Dense and packed, GQA, causal,
windows with sink tokens, learnable sinks, return_lse, deterministic: the same outputs and gradients both ways
(and the reference's), eager calls never enter the custom ops, torch.compile still traces them, and the plan
fast paths of later calls (dense backward, packed forward) launch what the first call did."""

import pytest

from txl.ops import _attention_bwd
from txl.ops import _launch
from txl.ops import attention as A
from txl.ops import attention_varlen as V

from .test_attention_sinks_asym_cpu import _cpu_kernel, _mask_of, _model_backward, _model_forward


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _models(torch, monkeypatch, calls):
    """Patch the kernels' launch paths with the float64 models; ``calls`` counts what ran."""

    def forward(q, k, v, causal, sm_scale, kernel, local=None, sinks=None):
        calls["fwd"] = calls.get("fwd", 0) + 1
        B, H, N, _ = q.shape
        mask = _mask_of(local, causal, N, N)
        o, m2 = _model_forward(q, k, v, mask, sm_scale, sinks)
        m = torch.zeros(B * H, A.padded_len(N))
        m[:, :N] = m2.reshape(B * H, N)
        return o, m

    def backward(do, q, k, v, o, m, causal, sm_scale, deterministic=False, local=None, return_delta=False):
        calls["bwd"] = calls.get("bwd", 0) + 1
        calls["bwd_args"] = (causal, deterministic, local)
        B, H, N, _ = q.shape
        mask = _mask_of(local, causal, N, N)
        grads = _model_backward(do, q, k, v, o, m.view(B, H, -1)[:, :, :N], mask, sm_scale)
        if not return_delta:
            return grads
        delta = torch.zeros_like(m)
        delta.view(B, H, -1)[:, :, :N] = (do.double() * o.double()).sum(-1).to(delta.dtype)
        return (*grads, delta)

    def seqs(cu_q, cu_k):
        from .attention_variants_ref import seq_bounds

        return zip(seq_bounds(cu_q), seq_bounds(cu_k))

    def varlen_forward(q, k, v, cu_q, cu_k, max_q, max_k, sm_scale, local, sinks=None, plan_key=None):
        calls["vfwd"] = calls.get("vfwd", 0) + 1
        H = q.shape[1]
        o = torch.zeros(q.shape[0], H, v.shape[2], dtype=q.dtype)
        m = torch.zeros(H, V._m_len(q.shape[0]))
        for (qa, qb), (ka, kb) in seqs(cu_q, cu_k):
            mask = _mask_of(A._local_of(*local), False, qb - qa, kb - ka)
            oo, mm = _model_forward(q[qa:qb].transpose(0, 1), k[ka:kb].transpose(0, 1), v[ka:kb].transpose(0, 1),
                                    mask, sm_scale, sinks)
            o[qa:qb] = oo.transpose(0, 1)
            m[:, qa:qb] = mm
        return o, m

    def backward_varlen(do, q, k, v, o, m, cu_q, cu_k, max_q, max_k, sm_scale, deterministic, local,
                        return_delta=False):
        calls["vbwd"] = calls.get("vbwd", 0) + 1
        dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
        for (qa, qb), (ka, kb) in seqs(cu_q, cu_k):
            mask = _mask_of(A._local_of(*local), False, qb - qa, kb - ka)
            t = [x.transpose(0, 1) for x in (do[qa:qb], q[qa:qb], k[ka:kb], v[ka:kb], o[qa:qb])]
            a, b, c = _model_backward(*t, m[:, qa:qb], mask, sm_scale)
            dq[qa:qb], dk[ka:kb], dv[ka:kb] = a.transpose(0, 1), b.transpose(0, 1), c.transpose(0, 1)
        if not return_delta:
            return dq, dk, dv
        delta = torch.zeros_like(m)
        delta[:, :q.shape[0]] = (do.double() * o.double()).sum(-1).t().to(delta.dtype)
        return dq, dk, dv, delta

    monkeypatch.setattr(A, "_forward", forward)
    monkeypatch.setattr(_attention_bwd, "backward", backward)
    monkeypatch.setattr(V, "_forward", varlen_forward)
    monkeypatch.setattr(_attention_bwd, "backward_varlen", backward_varlen)
    monkeypatch.setattr(_launch, "DEVICE_TYPES", ("cuda", "cpu"))  # the ops take the CPU tensors
    A._custom_op()
    V._custom_op()
    for name in ("txl::flash_attention", "txl::flash_attention_backward", "txl::flash_attention_varlen",
                 "txl::flash_attention_varlen_backward"):
        _cpu_kernel(torch, name)


def _grads(torch, out, ins, do):
    return torch.autograd.grad(out, [t for t in ins if t is not None and t.requires_grad], do)


@pytest.mark.parametrize("causal,group,sinks,window,lse,det", [
    (False, 1, False, (-1, -1), False, False),
    (True, 2, False, (-1, -1), True, False),
    (True, 4, True, (-1, -1), False, True),
    (False, 2, True, (7, 3), True, False),
    (True, 1, True, (5, 0), False, False),
])
def test_dense_eager_matches_the_custom_op(torch, monkeypatch, causal, group, sinks, window, lse, det):
    calls = {}
    _models(torch, monkeypatch, calls)
    torch.manual_seed(4)
    B, H, N, D, scale = 2, 4, 37, 64, 0.3
    q = torch.randn(B, H, N, D, dtype=torch.float16, requires_grad=True)
    k, v = (torch.randn(B, H // group, N, D, dtype=torch.float16, requires_grad=True) for _ in range(2))
    s = torch.randn(H, requires_grad=True) if sinks else None
    n_sink = 2 if window != (-1, -1) else 0
    r = A.flash_attention(q, k, v, causal=causal, sm_scale=scale, return_lse=lse, deterministic=det, window=window,
                          num_sink_tokens=n_sink, sinks=s)
    o, lse_t = r if lse else (r, None)
    assert type(o.grad_fn).__name__.startswith("FlashAttentionFunction")  # not the custom op's
    do = torch.randn_like(o)
    got = _grads(torch, o, (q, k, v, s), do)
    assert calls["bwd_args"][1] == det
    # the custom op, as torch.compile traces it (called eagerly here: same kernels)
    local = A.local_masks(window, n_sink, causal) if window != (-1, -1) else None
    left, right, ns = local if local is not None else (A.BIG, A.BIG, 0)
    o2, lse2, _ = A._custom_op()(q, k, v, causal, scale, "fa3", det, left, right, ns, s)
    want = _grads(torch, o2, (q, k, v, s), do)
    assert torch.equal(o, o2)
    if lse:
        assert torch.equal(lse_t, lse2) and not lse_t.requires_grad
    for g, w in zip(got, want):
        assert torch.equal(g, w)
    # and the reference's (float64 autograd)
    from .attention_sinks_ref import dense_sink_reference

    qr, kr, vr = (t.detach().double().requires_grad_() for t in (q, k, v))
    sr = s.detach().double().requires_grad_() if sinks else torch.full((H,), -float("inf"), dtype=torch.float64)
    ref, ref_lse = dense_sink_reference(qr, kr, vr, sr, causal, scale, window, n_sink, dtype=torch.float64)
    assert torch.allclose(o.double(), ref, atol=2e-3)
    if lse:
        assert torch.allclose(lse_t.double(), ref_lse, atol=1e-5)
    ref_grads = torch.autograd.grad(ref, [qr, kr, vr] + ([sr] if sinks else []), do.double())
    for g, w in zip(got, ref_grads):  # (fp16 inputs and o: the backward reads the rounded o)
        assert torch.allclose(g.double(), w, rtol=2e-2, atol=2e-2)


def test_dense_eager_sinks_only_and_lse_only(torch, monkeypatch):
    calls = {}
    _models(torch, monkeypatch, calls)
    torch.manual_seed(5)
    q, k, v = (torch.randn(1, 2, 20, 64, dtype=torch.float16) for _ in range(3))
    s = torch.randn(2, requires_grad=True)
    o = A.flash_attention(q, k, v, sm_scale=0.25, sinks=s)
    (ds,) = torch.autograd.grad(o.sum(), s)  # no backward kernel: dsinks from dO and O in torch
    assert "bwd" not in calls and ds.shape == (2,)
    o2, _, _ = A._custom_op()(q, k, v, False, 0.25, "fa3", False, A.BIG, A.BIG, 0, s)
    (ds2,) = torch.autograd.grad(o2.sum(), s)
    assert torch.allclose(ds, ds2)
    # an lse that is returned but unused needs no zero-filled gradient; o's gradient still flows
    qg = q.clone().requires_grad_()
    o3, lse = A.flash_attention(qg, k, v, sm_scale=0.25, return_lse=True)
    (dq,) = torch.autograd.grad(o3.sum(), qg)
    assert dq.shape == q.shape and lse.grad_fn is None


def test_asym_pair_without_backward_still_errors(torch, monkeypatch):
    _models(torch, monkeypatch, {})
    q, k = (torch.randn(1, 2, 20, 128, dtype=torch.float16, requires_grad=True) for _ in range(2))
    v = torch.randn(1, 2, 20, 64, dtype=torch.float16, requires_grad=True)
    o = A.flash_attention(q, k, v)
    with pytest.raises(NotImplementedError, match="asymmetric head dims .*no backward kernel yet"):
        o.sum().backward()


@pytest.mark.parametrize("sinks,lse,causal", [(False, False, True), (True, True, True), (True, False, False)])
def test_varlen_eager_matches_the_custom_op(torch, monkeypatch, sinks, lse, causal):
    calls = {}
    _models(torch, monkeypatch, calls)
    torch.manual_seed(6)
    lens_q, lens_k = [5, 30, 3, 17], [9, 30, 4, 6]
    H, HK, D, scale, window, n_sink = 4, 2, 64, 0.25, (6, 0), 2
    cu_q = torch.tensor([0, 5, 35, 38, 55], dtype=torch.int32)
    cu_k = torch.tensor([0, 9, 39, 43, 49], dtype=torch.int32)
    q = torch.randn(sum(lens_q), H, D, dtype=torch.float16, requires_grad=True)
    k, v = (torch.randn(sum(lens_k), HK, D, dtype=torch.float16, requires_grad=True) for _ in range(2))
    s = torch.randn(H, requires_grad=True) if sinks else None
    r = V.flash_attention_varlen(q, k, v, cu_q, cu_k, max(lens_q), max(lens_k), causal=causal, sm_scale=scale,
                                 window=window, num_sink_tokens=n_sink, return_lse=lse, sinks=s)
    o, lse_t = r if lse else (r, None)
    assert type(o.grad_fn).__name__.startswith("FlashAttentionVarlenFunction")
    do = torch.randn_like(o)
    got = _grads(torch, o, (q, k, v, s), do)
    left, right, ns = A.local_masks(window, n_sink, causal)
    o2, lse2, _ = V._custom_op()(q, k, v, cu_q, cu_k, max(lens_q), max(lens_k), scale, left, right, ns, False, s)
    want = _grads(torch, o2, (q, k, v, s), do)
    assert torch.equal(o, o2)
    if lse:
        assert torch.allclose(lse_t, lse2) and not lse_t.requires_grad
    for g, w in zip(got, want):
        assert torch.equal(g, w)
    from .attention_sinks_ref import varlen_sink_reference

    qr, kr, vr = (t.detach().double().requires_grad_() for t in (q, k, v))
    sr = s.detach().double().requires_grad_() if sinks else torch.full((H,), -float("inf"), dtype=torch.float64)
    ref, _ = varlen_sink_reference(qr, kr, vr, cu_q, cu_k, sr, causal, scale, window, n_sink, dtype=torch.float64)
    ref_grads = torch.autograd.grad(ref, [qr, kr, vr] + ([sr] if sinks else []), do.double())
    for g, w in zip(got, ref_grads):
        assert torch.allclose(g.double(), w, rtol=2e-2, atol=2e-2)


def test_compile_traces_the_custom_ops(torch, monkeypatch):
    # torch.compile (dynamo + AOT autograd) sees torch.ops.txl.flash_attention in the forward graph and
    # txl.flash_attention_backward in the backward graph; the eager autograd.Function is not traced
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd

    _models(torch, monkeypatch, {})
    graphs = []

    def record(gm, example_inputs):
        graphs.append(str(gm.code))
        return make_boxed_func(gm.forward)

    torch._dynamo.reset()
    f = torch.compile(lambda q, k, v: A.flash_attention(q, k, v, causal=True, sm_scale=0.3),
                      backend=aot_autograd(fw_compiler=record, bw_compiler=record), fullgraph=True)
    torch.manual_seed(7)
    q, k, v = (torch.randn(1, 2, 24, 64, dtype=torch.float16, requires_grad=True) for _ in range(3))
    o = f(q, k, v)
    do = torch.randn_like(o)
    got = torch.autograd.grad(o, (q, k, v), do)
    text = "\n".join(graphs)
    assert "txl.flash_attention.default" in text and "txl.flash_attention_backward.default" in text, text
    o2 = A.flash_attention(q, k, v, causal=True, sm_scale=0.3)
    want = torch.autograd.grad(o2, (q, k, v), do)
    assert torch.allclose(o, o2)
    for g, w in zip(got, want):
        assert torch.allclose(g, w)
    torch._dynamo.reset()


def test_fake_shapes_of_both_ops(torch):
    from torch._subclasses.fake_tensor import FakeTensorMode

    op, vop = A._custom_op(), V._custom_op()
    with FakeTensorMode():
        q = torch.empty(2, 4, 100, 64, dtype=torch.bfloat16, device="cuda")
        k = torch.empty(2, 2, 100, 64, dtype=torch.bfloat16, device="cuda")
        o, lse, m = op(q, k, k, True, 0.1, "fa3", False, A.BIG, A.BIG, 0, None)
        assert o.shape == q.shape and lse.shape == (2, 4, 100) and m.shape == (8, 128)
        qv = torch.empty(300, 4, 64, dtype=torch.bfloat16, device="cuda")
        kv = torch.empty(300, 2, 64, dtype=torch.bfloat16, device="cuda")
        cu = torch.empty(3, dtype=torch.int32, device="cuda")
        o, lse, m = vop(qv, kv, kv, cu, cu, 200, 200, 0.1, A.BIG, 0, 0, False, None)
        assert o.shape == qv.shape and lse.shape == (4, 300) and m.shape == (4, V._m_len(300))


# ---- the plan fast paths (stand-in launches record what each call launched) -------------------------------------
class _Enc:
    """A stand-in's encoded TMA descriptor: what it was encoded for."""

    def __init__(self, t):
        self.ptr, self.shape, self.stride = t.data_ptr(), tuple(t.shape), t.stride()


class _Fast:
    """A stand-in runtime.FastLaunch: records each launch; ``kinds`` per param ("desc": its setter encodes an _Enc,
    as FastLaunch's descriptor setter returns the encoded descriptor that a later launch may pass instead)."""

    def __init__(self, kinds=()):
        import threading

        self.calls, self.encoded = [], []
        self.lock = threading.Lock()
        self.setters = [self._encode if k == "desc" else None for k in kinds]

    def _encode(self, t):
        assert self.lock.locked()  # (the setter writes the launch's shared parameter slot)
        self.encoded.append(_Enc(t))
        return self.encoded[-1]

    def __call__(self, grid, values, stream=None):
        self.calls.append((grid, list(values)))


def test_planned_launch_caches_descriptors_by_address_and_size(torch):
    # _launch.PlannedLaunch encodes a descriptor param once per (address, numel), through the launch's own setter,
    # as (numel / width, width) rows; pointer params and scalars pass as they are; workspace pieces are aligned,
    # disjoint, and encode at their own address
    fast = _Fast(["desc", "", ""])
    step = _launch.PlannedLaunch(fast, (2,), [0, 1, 2], [(0, 64)])
    a = torch.empty(256, 64)
    step([a, a, 5])
    step([a, a, 5])
    assert len(fast.encoded) == 1 and fast.encoded[0].shape == (256, 64) and fast.encoded[0].ptr == a.data_ptr()
    assert fast.calls[1] == ((2, 1, 1), [fast.encoded[0], a, 5])
    step([a[:128], a, 5])  # the same address, fewer rows: encoded again
    assert len(fast.encoded) == 2 and fast.encoded[1].shape == (128, 64)
    step([a, a, 6], (3, 4, 1))  # a grid of the call's own (packed plans)
    assert len(fast.encoded) == 2 and fast.calls[-1] == ((3, 4, 1), [fast.encoded[0], a, 6])
    layout, total = _launch.workspace_layout([(3,), (4, 64), (2, 2)])
    assert [off for off, _, _ in layout] == [0, _launch.WORKSPACE_ALIGN, 3 * _launch.WORKSPACE_ALIGN]
    assert total == 4 * _launch.WORKSPACE_ALIGN
    pieces = _launch.workspace_pieces(torch, layout, total, "cpu")
    assert all(p.data_ptr() % 16 == 0 for p in pieces) and pieces[1].data_ptr() - pieces[0].data_ptr() == 512
    t = pieces[1].tensor()
    assert t.shape == (4, 64) and t.dtype == torch.float32 and t.data_ptr() == pieces[1].data_ptr()
    step([pieces[1], pieces[2], 5])
    assert fast.encoded[-1].ptr == pieces[1].data_ptr() and fast.encoded[-1].shape == (4, 64)
    assert fast.calls[-1][1][1] is pieces[2]


def test_backward_plan_launches_what_the_first_call_did(torch, monkeypatch):
    # the first call launches through _launch.fast_launch and records a plan; later calls (plan.run) launch the
    # same kernels on their own tensors, with the same grids and constants: descriptor params as descriptors
    # encoded for the tensors the first call's descriptors described (shape, strides), at the new addresses;
    # scratch tensors as disjoint, aligned pieces of one workspace
    import txl

    recorded = []

    def fast_launch(fn, grid, args, kwargs):
        recorded.append((fn, tuple(grid) + (1,) * (3 - len(grid)), args))

    def launcher(fn, args, kwargs, dev):
        return _Fast(["desc" if isinstance(a, txl.TensorDescriptor) else "" for a in args]), \
            fn.arg_names[:len(args)]

    monkeypatch.setattr(_launch, "fast_launch", fast_launch)
    monkeypatch.setattr(_launch, "DEVICE_TYPES", ("cuda", "cpu"))
    monkeypatch.setattr(_attention_bwd._Plan, "_launcher", staticmethod(launcher))
    monkeypatch.setattr(_attention_bwd, "_plans", {})
    B, H, HK, N, D = 2, 8, 1, 1000, 64
    q, o, do = (torch.randn(B, H, N, D, dtype=torch.bfloat16) for _ in range(3))
    k, v = (torch.randn(B, HK, N, D, dtype=torch.bfloat16) for _ in range(2))
    m = torch.zeros(B * H, A.padded_len(N))
    dq, dk, dv, delta = _attention_bwd.backward(do, q, k, v, o, m, True, 0.125, return_delta=True)
    assert len(_attention_bwd._plans) == 1 and len(recorded) == 4  # preprocess, dK/dV (split), combine, convert
    plan = next(iter(_attention_bwd._plans.values()))
    q2, o2, do2 = (t.clone() for t in (q, o, do))
    dq2, dk2, dv2, delta2 = _attention_bwd.backward(do2, q2, k, v, o2, m, True, 0.125, return_delta=True)
    assert dq2.shape == dq.shape and dk2.shape == (B, HK, N, D) and dv2.shape == (B, HK, N, D)
    assert dq2.is_contiguous() and dq2.dtype == torch.bfloat16
    assert delta2.shape == delta.shape and delta2.dtype == torch.float32
    assert len(recorded) == 4  # the plan launched, not fast_launch
    ours = {q.data_ptr(): q2, o.data_ptr(): o2, do.data_ptr(): do2, dq.data_ptr(): dq2, dk.data_ptr(): dk2,
            dv.data_ptr(): dv2}
    pieces = []
    for (fn, grid, args), step in zip(recorded, plan.indexed):
        fast = step.fast
        assert len(fast.calls) == 1 and fast.calls[0][0] == grid == step.grid
        vals = fast.calls[0][1]
        assert len(vals) == len(args)
        for a, val in zip(args, vals):
            if isinstance(a, txl.TensorDescriptor):
                t = a.base
                assert isinstance(val, _Enc) and val.shape == tuple(t.shape) and val.stride == t.stride()
                if t.data_ptr() in ours:  # this call's tensor where the first call had its own
                    assert val.ptr == ours[t.data_ptr()].data_ptr()
                elif t.data_ptr() in (k.data_ptr(), v.data_ptr()):  # the same k and v
                    assert val.ptr == t.data_ptr()
                else:
                    pieces.append((val.ptr, t.numel()))  # a scratch tensor (the dQ accumulator)
            elif isinstance(a, torch.Tensor):
                assert val.data_ptr() % 16 == 0
                if a.data_ptr() in ours:
                    assert val.data_ptr() == ours[a.data_ptr()].data_ptr()
                elif a.data_ptr() in (m.data_ptr(), k.data_ptr(), v.data_ptr()):  # (k's, v's rows: the same)
                    assert val.data_ptr() == a.data_ptr()
                elif a.dtype == torch.int32:
                    assert val is a  # the dummy cu_seqlens
                else:
                    assert isinstance(val, _launch.Piece) and val.shape == tuple(a.shape)
                    pieces.append((val.data_ptr(), a.numel()))
            else:
                assert val == a
    # Delta, the dQ accumulator, dK and dV partials: one workspace, pieces that do not overlap
    spans = sorted(set(pieces))
    assert len(spans) == 4 and (delta2.data_ptr(), delta2.numel()) in spans
    assert all(p + 4 * n <= p2 for (p, n), (p2, _) in zip(spans, spans[1:]))
    # a third call with the same inputs: their descriptors come from the plan's cache, not encoded again
    encoded = sum(len(s.fast.encoded) for s in plan.indexed)
    keep = [s.fast.encoded[:] for s in plan.indexed]
    _attention_bwd.backward(do2, q2, k, v, o2, m, True, 0.125)
    enc_q = [e for es in keep for e in es if e.ptr == q2.data_ptr()]
    assert enc_q and sum(len(s.fast.encoded) for s in plan.indexed) - encoded <= 4  # at most dq_acc, dq, dk, dv
    assert not [e for s in plan.indexed for e in s.fast.encoded[len(keep[plan.indexed.index(s)]):]
                if e.ptr in (q2.data_ptr(), k.data_ptr(), v.data_ptr(), do2.data_ptr())]
    # a key that differs (deterministic) goes through fast_launch again
    _attention_bwd.backward(do, q, k, v, o, m, True, 0.125, deterministic=True)
    assert len(recorded) > 4 and len(_attention_bwd._plans) == 2


def test_varlen_forward_plan(torch, monkeypatch):
    # the packed forward: the first fast-path launch records a _VarlenPlan; a later call with other lengths (same
    # key) launches the same FastLaunch with its own tensors and ints, through the fast path of
    # flash_attention_varlen (no checks, no custom op)
    import txl
    from txl.autotune import Autotuner

    fast = None
    launched = []

    def fast_launch(fn, grid, args, kwargs):
        nonlocal fast
        if fast is None:
            fast = _Fast(["desc" if isinstance(a, txl.TensorDescriptor) else "" for a in args] + [""])
        names = fn.arg_names[:len(args)] + (["SINK_LOGITS"] if kwargs.get("SINK_LOGITS") is not None else [])
        vals = [getattr(a, "base", a) if isinstance(a, txl.TensorDescriptor) else a for a in args]
        vals += [kwargs["SINK_LOGITS"]] if kwargs.get("SINK_LOGITS") is not None else []
        launched.append((tuple(grid) + (1,), vals))
        fast(tuple(grid) + (1,), vals)
        return fast, names

    def getitem(self, grid):
        def run(*args, **kwargs):  # "autotunes": records the first config as the key's best
            self.best[self._key_of(self._bind_partial(args, kwargs))] = self.configs[0]
        return run

    monkeypatch.setattr(V, "fast_launch", fast_launch)
    monkeypatch.setattr(Autotuner, "__getitem__", getitem)
    monkeypatch.setattr(_launch, "DEVICE_TYPES", ("cuda", "cpu"))
    monkeypatch.setattr(V, "_plans", {})
    monkeypatch.setattr(torch.cuda, "current_device", lambda: -1)
    import contextlib

    monkeypatch.setattr(torch.cuda, "device", lambda d: contextlib.nullcontext())
    H, HK, D = 4, 2, 64
    sinks = torch.randn(H)

    def call(lens):
        cu = torch.tensor([0] + [sum(lens[:i + 1]) for i in range(len(lens))], dtype=torch.int32)
        q = torch.randn(sum(lens), H, D, dtype=torch.bfloat16)
        k, v = (torch.randn(sum(lens), HK, D, dtype=torch.bfloat16) for _ in range(2))
        o = V.flash_attention_varlen(q, k, v, cu, cu, max(lens), max(lens), causal=True, window=(64, 0),
                                     num_sink_tokens=4, sinks=sinks)
        return q, k, v, cu, o

    call([100, 300, 50])  # autotunes (no launch recorded here)
    assert not V._plans
    call([100, 300, 50])  # the tuned config through fast_launch: records the plan
    assert len(V._plans) == 1 and len(launched) == 1
    first_grid, first_vals = launched[0]
    q, k, v, cu, o = call([200, 290, 7])  # the same key: 3 sequences, max_seqlen_q in 300's bucket (512)
    assert len(launched) == 1 and len(fast.calls) == 2  # through the plan
    grid, vals = fast.calls[1]
    assert grid == (A.padded_len(290) // 128, 3 * H, 1) and first_grid == (A.padded_len(300) // 128, 3 * H, 1)
    assert len(vals) == len(first_vals)
    # the descriptors encoded for this call's q and o as (total, heads * head dim) rows
    assert isinstance(vals[0], _Enc) and vals[0].ptr == q.data_ptr() and vals[0].shape == (q.shape[0], H * D)
    assert vals[0].stride == (H * D, 1)
    assert vals[3].ptr == o.data_ptr() and vals[3].shape == (q.shape[0], H * D) and o.shape == (q.shape[0], H, D)
    assert vals[5] is o  # O's pointer param: the tensor itself
    assert vals[1].ptr == k.data_ptr() and vals[1].shape == (k.shape[0], HK * D)
    assert vals[7] == 290 and vals[8] == V._m_len(q.shape[0]) and vals[9] == 3 * H
    assert vals[10] is cu and vals[11] is cu
    assert vals[12:16] == first_vals[12:16]  # heads, window, sink tokens
    assert vals[16] is sinks
    # a new bucket of max_seqlen_q is a new key: the checked path again
    call([1000, 20])
    assert len(V._plans) == 1


def test_varlen_backward_replay_launches_what_fast_launch_would(torch, monkeypatch):
    # backward_varlen's first call of a key records each launch's FastLaunch; a later call with other packed
    # lengths replays them with the tensors as they are: the same kernels, grids, ints, descriptors (encoded for
    # the same rows: shape, strides, and q's address) and pointers (same sizes, q's address) as that call through
    # fast_launch
    import txl

    fasts = {}
    through_fast_launch = []

    def fast_launch(fn, grid, args, kwargs):
        if fn not in fasts:
            fasts[fn] = _Fast(["desc" if isinstance(a, txl.TensorDescriptor) else "" for a in args])
        fast = fasts[fn]
        vals = [a.base if isinstance(a, txl.TensorDescriptor) else a for a in args]
        through_fast_launch.append(fn)
        fast(tuple(grid) + (1,) * (3 - len(grid)), vals)
        return fast, fn.arg_names[:len(args)]

    monkeypatch.setattr(_launch, "fast_launch", fast_launch)
    monkeypatch.setattr(_launch, "DEVICE_TYPES", ("cuda", "cpu"))
    monkeypatch.setattr(_attention_bwd, "_varlen_plans", {})
    H, HK, D = 4, 2, 64

    def tensors(lens):
        cu = torch.tensor([0] + [sum(lens[:i + 1]) for i in range(len(lens))], dtype=torch.int32)
        q, o, do = (torch.randn(sum(lens), H, D, dtype=torch.bfloat16) for _ in range(3))
        k, v = (torch.randn(sum(lens), HK, D, dtype=torch.bfloat16) for _ in range(2))
        m = torch.zeros(H, V._m_len(sum(lens)))
        return do, q, k, v, o, m, cu, cu, max(lens), max(lens)

    local = A.local_masks((64, 0), 4, True)
    for deterministic in (False, True):
        _attention_bwd.backward_varlen(*tensors([100, 300, 50]), 0.125, deterministic, local)
        n = len(through_fast_launch)
        assert n == 3  # preprocess, dK/dV, then the convert (or the deterministic dQ kernel)
        args = tensors([130, 7, 290])  # other lengths, the same key
        dq, dk, dv, delta = _attention_bwd.backward_varlen(*args, 0.125, deterministic, local, return_delta=True)
        assert len(through_fast_launch) == n, "replayed, not launched through fast_launch"
        replayed = [f.calls[-1] for f in fasts.values() if f.calls][-3:]
        assert dq.shape == args[1].shape and dk.shape == args[2].shape and delta.shape == args[5].shape
        monkeypatch.setattr(_attention_bwd, "_varlen_plans", {})
        _attention_bwd.backward_varlen(*args, 0.125, deterministic, local)  # the same call through fast_launch
        assert len(through_fast_launch) == n + 3
        expected = [f.calls[-1] for f in fasts.values() if f.calls][-3:]
        # the dK/dV kernel's seven descriptors (and the deterministic dQ kernel's none) were looked up encoded
        assert sum(isinstance(a, _Enc) for _, vals in replayed for a in vals) == 7
        for (grid, vals), (grid2, vals2) in zip(replayed, expected):
            assert grid == grid2 and len(vals) == len(vals2)
            for a, b in zip(vals, vals2):
                if isinstance(a, _Enc):
                    assert a.shape == tuple(b.shape) and a.stride == b.stride()
                    if b.data_ptr() == args[1].data_ptr():
                        assert a.ptr == b.data_ptr()
                elif isinstance(a, torch.Tensor):
                    assert a.numel() == b.numel() and a.dtype == b.dtype and a.is_contiguous()
                    if b.data_ptr() == args[1].data_ptr():
                        assert a.data_ptr() == b.data_ptr()
                else:
                    assert a == b
        for f in fasts.values():
            f.calls.clear()
        fasts.clear()
        through_fast_launch.clear()
        monkeypatch.setattr(_attention_bwd, "_varlen_plans", {})


def test_varlen_fast_path_keeps_the_per_call_checks(torch, monkeypatch):
    # a key's later calls skip _check, but not what the key cannot hold: k and v totals must agree
    calls = {}
    _models(torch, monkeypatch, calls)
    monkeypatch.setattr(V, "_plans", {})
    H, D = 2, 64
    cu = torch.tensor([0, 10, 30], dtype=torch.int32)
    q, k, v = (torch.randn(30, H, D, dtype=torch.float16) for _ in range(3))
    key = V._plan_key(q, k, v, cu, cu, 20, True, (-1, -1), 0, False)
    V._plans[key] = lambda *a: (_ for _ in ()).throw(AssertionError("the plan ran"))
    monkeypatch.setattr(torch.cuda, "current_device", lambda: -1)
    with pytest.raises(ValueError, match="must have the same shape"):
        V.flash_attention_varlen(q, k, v[:29], cu, cu, 20, 20, causal=True)
    with pytest.raises(AssertionError, match="the plan ran"):  # the same call with matching totals takes the plan
        V.flash_attention_varlen(q, k, v, cu, cu, 20, 20, causal=True)
