"""Learnable attention sinks and asymmetric head dims of ``txl.ops.flash_attention`` / ``flash_attention_varlen``
without a GPU:

* every new kernel configuration (each (D, D_v) pair's autotuning configs; each fa3 config with sinks; the local
  mask modes) compiles through txlc and ptxas without spills, and through the ops' own precompile path;
* the frontend IR of a symmetric kernel is the same whether HEAD_DIM_V is left out or equals HEAD_DIM, and the
  sink code is there only with sinks;
* argument errors (head-dim pairs, the sinks tensor);
* with torch: the float32 reference of ``attention_sinks_ref.py`` against the formula written out, ``sink_grad``
  against autograd, and the custom ops' autograd wiring on CPU tensors, the GPU work replaced by float64 models of
  the kernels (forward: the reference's o and base-2 M; backward: the FA2 backward from P = exp2(S - M)), checked
  against autograd through the reference: dq, dk, dv and dsinks, dense and packed. GPU checks:
  ``tests/gpu/test_attention_sinks_gpu.py``, ``tests/gpu/test_attention_asym_gpu.py``."""

import math

import pytest

from txl.kernels import flash_attention as fa
from txl.ops import attention as A

from .dsl_helpers import compile_ptx, ir_of


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


# ---- head dims -------------------------------------------------------------------------------------------------
def test_asym_pairs_and_configs_agree():
    assert set(A._FA3_ASYM_CONFIGS) <= set(A.ASYM_HEAD_DIMS)
    assert len(A.ASYM_HEAD_DIMS) == 49 and (192, 128) in A.ASYM_HEAD_DIMS
    for d, dv in A.ASYM_HEAD_DIMS:
        assert dv < d <= 256 and d % 16 == 0 and dv >= 16 and dv & (dv - 1) == 0, (d, dv)
        cfgs = A._asym_configs(d, dv)
        assert 1 <= len(cfgs) <= 2, (d, dv, cfgs)
        for bn, ns, persistent in cfgs:
            assert not persistent, "asymmetric configs run one CTA per tile"
            assert A.asym_smem(d, dv, bn, ns) <= A.SMEM_BYTES, (d, dv, bn, ns)


def test_check_head_dims():
    for d in A.HEAD_DIMS:
        A.check_head_dims(d, d, "ws")
    for d, dv in A.ASYM_HEAD_DIMS:
        A.check_head_dims(d, dv)
    with pytest.raises(ValueError, match="head dim 96 is not supported"):
        A.check_head_dims(96, 96)
    with pytest.raises(ValueError, match="head dim 192 is not supported.*a v head dim of 16/32/64/128"):
        A.check_head_dims(192, 192)
    for d, dv in ((128, 256), (192, 96), (100, 64), (40, 32), (272, 128), (64, 8)):
        with pytest.raises(ValueError, match="head dims q/k %d and v %d are not supported; supported: equal head "
                                             "dims 64/128/256, or a v head dim of 16/32/64/128" % (d, dv)):
            A.check_head_dims(d, dv)
    with pytest.raises(ValueError, match="asymmetric head dims .*kernel='fa3' only"):
        A.check_head_dims(192, 128, "1wg")


# ---- every new configuration compiles, no spills ---------------------------------------------------------------
def _asym_variants(pairs):
    return [(d, dv, bn, ns) for d, dv in pairs for bn, ns, _ in A._asym_configs(d, dv)]


def _compile(d, dv, bn, ns, causal=False, even_n=True, group=1, sinks=False, persistent=False, mode="dense",
             dtype="bf16", regs=240):
    cx = fa.constexprs(d, causal, 128, bn, ns, even_n, group, persistent=persistent, consumer_regs=regs,
                       varlen=mode == "varlen", window=mode == "window", head_dim_v=dv, sink_logits=sinks)
    text = ir_of(fa.flash_attention, fa.signature(d, 128, bn, dtype, dv, sinks), cx, **fa.OPTIONS)
    ptx, err = compile_ptx(text, emit="cubin")
    assert "wgmma.mma_async" in ptx
    assert "spill" not in err.lower(), err
    return text, ptx


@pytest.mark.parametrize("d,dv,block_n,num_stages", _asym_variants(A._FA3_ASYM_CONFIGS))
@pytest.mark.parametrize("causal,even_n,group,mode,sinks,dtype", [
    (False, True, 1, "dense", False, "bf16"), (True, False, 2, "dense", True, "fp16"),
    (False, True, 4, "varlen", True, "bf16"), (False, True, 1, "window", False, "bf16")])
def test_asym_configs_compile(d, dv, block_n, num_stages, causal, even_n, group, mode, sinks, dtype):
    text, ptx = _compile(d, dv, block_n, num_stages, causal, even_n, group, sinks, mode=mode, dtype=dtype)
    # V and O boxes have D_v columns; the O tile is the first D_v columns of the Q buffer
    assert "!txl.tensordesc<%dx%dx%s" % (block_n, dv, {"fp16": "f16"}.get(dtype, dtype)) in text
    assert "txl.smem_subslice" in text


@pytest.mark.parametrize("d,dv,block_n,num_stages",
                         _asym_variants([p for p in A.ASYM_HEAD_DIMS if p not in A._FA3_ASYM_CONFIGS]))
def test_every_asym_pair_compiles(d, dv, block_n, num_stages):
    # Every other pair's configs (O in its own staging tiles), causal, padded N, GQA, with sinks: every code path
    # of the kernel in one compile each.
    text, _ = _compile(d, dv, block_n, num_stages, True, False, 2, sinks=True)
    assert "txl.smem_subslice" not in text and "%SINK_LOGITS" in text


def _sink_variants():
    out = []
    for d, cfgs in A._FA3_CONFIGS.items():
        for cfg in cfgs:
            out.append((d,) + tuple(cfg[:3]) + (cfg[3] if len(cfg) > 3 else 240,))
    return out


@pytest.mark.parametrize("d,block_n,num_stages,persistent,regs", _sink_variants())
@pytest.mark.parametrize("causal,even_n,group", [(False, True, 1), (True, False, 2)])
def test_sink_configs_compile(d, block_n, num_stages, persistent, regs, causal, even_n, group):
    # Every dense fa3 config (persistent ones included: the sink is folded per tile) with learnable sinks.
    text, _ = _compile(d, d, block_n, num_stages, causal, even_n, group, sinks=True, persistent=persistent, regs=regs)
    assert "%SINK_LOGITS" in text


@pytest.mark.parametrize("mode", ["dense", "window", "varlen"])
@pytest.mark.parametrize("d,dv,sinks", [(128, 128, True), (192, 128, True), (192, 128, False), (256, 64, True),
                                         (64, 64, True)])
def test_ops_precompile(mode, d, dv, sinks):
    # The ops' own path (launch arguments, descriptors' boxes from the configs' pre-hooks, the tuner's configs of
    # the mode) for the new combinations, as a call would compile them.
    kernels = A.precompile("fa3", d, True, n=1000, heads=4, kv_heads=2, mode=mode, head_dim_v=dv, sinks=sinks)
    cfgs = A._FA3_CONFIGS[d] if d == dv else A._FA3_ASYM_CONFIGS[(d, dv)]
    # causal and the local-mask modes run one CTA per tile: the tuner drops the persistent configs
    assert len(kernels) == len([c for c in cfgs if not c[2]])
    for k in kernels:
        assert "wgmma.mma_async" in k.asm["ptx"]


def test_precompile_rejects_unsupported_pairs():
    with pytest.raises(ValueError, match="head dim 192 is not supported"):
        A.precompile("fa3", 192, False, head_dim_v=192)
    with pytest.raises(ValueError, match="head dims q/k 128 and v 96 are not supported"):
        A.precompile("fa3", 128, False, head_dim_v=96)


# ---- the IR: defaults change nothing, the sink code only with sinks ---------------------------------------------
def test_symmetric_ir_is_unchanged_by_an_explicit_head_dim_v():
    sig = fa.signature(128, 128, 128, "bf16")
    cx = fa.constexprs(128, True, 128, 128, 2, False, 2)
    assert "HEAD_DIM_V" not in cx and cx["SINK_LOGITS"] is None
    base = ir_of(fa.flash_attention, sig, cx, **fa.OPTIONS)
    assert ir_of(fa.flash_attention, sig, dict(cx, HEAD_DIM_V=128), **fa.OPTIONS) == base
    assert ir_of(fa.flash_attention, sig, dict(cx, HEAD_DIM_V=0), **fa.OPTIONS) == base
    assert "SINK_LOGITS" not in base and "smem_subslice" not in base
    with_sinks = ir_of(fa.flash_attention, fa.signature(128, 128, 128, "bf16", sink_logits=True),
                       fa.constexprs(128, True, 128, 128, 2, False, 2, sink_logits=True), **fa.OPTIONS)
    assert "%SINK_LOGITS" in with_sinks and with_sinks.count("math.exp2") == base.count("math.exp2") + 2


def test_kernel_rejects_v_wider_than_q():
    from txl.errors import CompilationError

    with pytest.raises(CompilationError, match="V's head dim must not exceed"):
        ir_of(fa.flash_attention, fa.signature(64, 128, 128, "bf16", 128), fa.constexprs(64, head_dim_v=128),
              **fa.OPTIONS)


# ---- argument errors (torch CPU tensors: raised before anything is launched) -----------------------------------
def _z(torch, shape, dtype=None):
    return torch.zeros(shape, dtype=dtype or torch.bfloat16)


def test_dense_argument_errors(torch):
    q = _z(torch, (1, 4, 128, 192))
    v = _z(torch, (1, 4, 128, 128))
    with pytest.raises(ValueError, match="head dim 192 is not supported"):
        A.flash_attention(q, q, q)
    with pytest.raises(ValueError, match="kernel='fa3' only"):
        A.flash_attention(q, q, v, kernel="ws")
    with pytest.raises(ValueError, match="v's head dim may be smaller"):
        A.flash_attention(q, q, _z(torch, (1, 4, 256, 128)))
    with pytest.raises(ValueError, match="q is on cpu"):  # a supported pair passes the shape checks
        A.flash_attention(q, q, v)
    x = _z(torch, (1, 4, 128, 64))
    for bad, exc, msg in ((torch.zeros(3), ValueError, r"sinks has shape \(3,\); expected \(4,\)"),
                          (torch.zeros(4, dtype=torch.int32), TypeError, "floating-point"),
                          ([0.0] * 4, TypeError, "sinks must be a torch.Tensor"),
                          (torch.zeros(1, 4), ValueError, "expected \\(4,\\)")):
        with pytest.raises(exc, match=msg):
            A.check_sinks(torch, bad, 4, torch.device("cpu"))
    with pytest.raises(ValueError, match="learnable sinks run on kernel='fa3' only"):
        A.check_sinks(torch, torch.zeros(4), 4, torch.device("cpu"), "pingpong")
    assert A.check_sinks(torch, torch.zeros(4, dtype=torch.bfloat16), 4, torch.device("cpu")).dtype == torch.float32
    with pytest.raises(ValueError, match="q is on cpu"):
        A.flash_attention(x, x, x, sinks=torch.zeros(4))


# ---- the reference and the sinks' gradient (torch, CPU, float64) -----------------------------------------------
def test_reference_against_the_formula(torch):
    from .attention_sinks_ref import dense_sink_reference, sink_attention
    from .attention_variants_ref import masked_attention, visible_mask

    torch.manual_seed(0)
    B, H, HK, N, D, DV = 2, 4, 2, 37, 16, 8
    q = torch.randn(B, H, N, D, dtype=torch.float64)
    k = torch.randn(B, HK, N, D, dtype=torch.float64)
    v = torch.randn(B, HK, N, DV, dtype=torch.float64)
    sinks = torch.randn(H, dtype=torch.float64) * 2
    o, lse = dense_sink_reference(q, k, v, sinks, True, 0.3, dtype=torch.float64)
    kk, vv = k.repeat_interleave(2, 1), v.repeat_interleave(2, 1)
    s = (q @ kk.transpose(-1, -2) * 0.3).masked_fill(torch.ones(N, N, dtype=torch.bool).triu(1), -math.inf)
    e = torch.exp(s)
    den = e.sum(-1) + torch.exp(sinks).view(1, H, 1)
    assert torch.allclose(o, (e @ vv) / den.unsqueeze(-1), atol=1e-12)
    assert torch.allclose(lse, torch.log(den), atol=1e-12)
    # a sink of -inf is no sink; rows that see no key: o = 0 and lse = the sink
    mask = visible_mask(N, N, (3, 0), 0, True)
    none = sink_attention(q, k, v, mask, 0.3, torch.full((H,), -math.inf, dtype=torch.float64))
    plain = masked_attention(q, k, v, mask, 0.3)
    assert torch.allclose(none[0], plain[0]) and torch.allclose(none[1], plain[1])
    dead = torch.zeros(N, N, dtype=torch.bool)
    o_dead, lse_dead = sink_attention(q, k, v, dead, 0.3, sinks)
    assert (o_dead == 0).all() and torch.allclose(lse_dead, sinks.view(1, H, 1).expand(B, H, N))


def test_sink_grad_matches_autograd(torch):
    from .attention_sinks_ref import dense_sink_reference

    torch.manual_seed(1)
    B, H, HK, N, D, DV = 2, 4, 1, 50, 16, 16
    q = torch.randn(B, H, N, D, dtype=torch.float64)
    k = torch.randn(B, HK, N, D, dtype=torch.float64)
    v = torch.randn(B, HK, N, DV, dtype=torch.float64)
    sinks = (torch.randn(H, dtype=torch.float64) * 3).requires_grad_()
    # a window that leaves the first rows' later keys masked, sink tokens, causal
    o, lse = dense_sink_reference(q, k, v, sinks, True, 0.25, (5, 0), 2, dtype=torch.float64)
    do = torch.randn_like(o)
    (want,) = torch.autograd.grad(o, sinks, do)
    got = A.sink_grad(do, o.detach(), lse.detach() * A.LOG2E, sinks.detach())
    # (sink_grad reduces in float32, as the op's bf16/fp16 do and o come)
    assert torch.allclose(got.double(), want, rtol=1e-5, atol=1e-6), (got, want)
    # packed layout: do, o (rows, H, D_v) and M (H, rows), as the varlen backward passes them
    packed = [t.permute(0, 2, 1, 3).reshape(B * N, H, DV) for t in (do, o.detach())]
    got_packed = A.sink_grad(*packed, (lse.detach() * A.LOG2E).transpose(0, 1).reshape(H, B * N), sinks.detach(),
                             packed=True)
    assert torch.allclose(got_packed.double(), want, rtol=1e-5, atol=1e-6)
    # rows with M = +inf (no key, no sink) add nothing
    m_inf = torch.full((B, H, N), math.inf, dtype=torch.float64)
    assert (A.sink_grad(do, o.detach(), m_inf, sinks.detach()) == 0).all()


def test_grads_given_output_match_autograd(torch):
    # With the exact output, the flash backward formula of dense_sink_grads_given_output is autograd's gradient
    # (GQA, window, sink tokens, causal); with a bf16-rounded output it is not, most where the sink is weak.
    from .attention_sinks_ref import dense_sink_grads_given_output, dense_sink_reference

    torch.manual_seed(2)
    B, H, HK, N, D = 1, 4, 2, 40, 16
    q, k, v = (torch.randn(B, h, N, D, dtype=torch.float64, requires_grad=True) for h in (H, HK, HK))
    sinks = torch.tensor([6.0, -4.0, 0.5, 1.0], dtype=torch.float64, requires_grad=True)
    o, _ = dense_sink_reference(q, k, v, sinks, True, None, (6, 0), 2, dtype=torch.float64)
    do = torch.randn_like(o)
    want = torch.autograd.grad(o, (q, k, v, sinks), do)
    got = dense_sink_grads_given_output(q, k, v, sinks, do, o.detach(), True, None, (6, 0), 2)
    for g, w in zip(got, want):
        assert torch.allclose(g.double(), w, rtol=1e-4, atol=1e-5)
    q0, k0, v0 = (torch.randn(1, 2, 30, D, dtype=torch.float64) for _ in range(3))
    s0 = torch.tensor([6.0, -4.0], dtype=torch.float64)
    o0, _ = dense_sink_reference(q0, k0, v0, s0, False, None, (0, 0), 0, dtype=torch.float64)
    do0 = torch.randn_like(o0)
    exact = dense_sink_grads_given_output(q0, k0, v0, s0, do0, o0, False, None, (0, 0), 0)
    rounded = dense_sink_grads_given_output(q0, k0, v0, s0, do0, o0.bfloat16(), False, None, (0, 0), 0)
    err = ((rounded[0] - exact[0]).norm() / exact[0].norm()).item()
    assert err > 1e-3, err  # the cancellation the GPU test's bound allows for


# ---- the custom ops' autograd on CPU, with float64 models of the kernels ------------------------------------------
def _mask_of(local, causal, lq, lk):
    from .attention_variants_ref import visible_mask

    if local is None:
        return visible_mask(lq, lk, (-1, -1), 0, causal)
    left, right, n_sink = local
    window = (-1 if left == A.BIG else left, -1 if right == A.BIG else right)
    return visible_mask(lq, lk, window, n_sink, False)


def _model_forward(q, k, v, mask, sm_scale, sinks):
    # what the fa3 kernel computes: o and the base-2 M (with the sink when there is one)
    from .attention_sinks_ref import sink_attention

    o, lse = sink_attention(q.double(), k.double(), v.double(), mask, sm_scale, None if sinks is None else sinks.double())
    return o.to(q.dtype), (lse * A.LOG2E).float()


def _model_backward(do, q, k, v, o, m2, mask, sm_scale):
    # what the backward kernels compute: P = exp2(S * sm_scale * log2(e) - M), Delta = rowsum(do * o), dS = P (dP -
    # Delta), with GQA's dk/dv summed over a kv head's query heads
    import torch

    g = q.shape[-3] // k.shape[-3]
    kk, vv = (t.double().repeat_interleave(g, -3) for t in (k, v))
    s = (q.double() @ kk.transpose(-1, -2)) * sm_scale
    p = torch.exp2(s * A.LOG2E - m2.double().unsqueeze(-1)).masked_fill(~mask, 0.0)
    dp = do.double() @ vv.transpose(-1, -2)
    delta = (do.double() * o.double()).sum(-1, keepdim=True)
    ds = p * (dp - delta)
    dq = ds @ kk * sm_scale
    dk = (ds.transpose(-1, -2) @ q.double() * sm_scale)
    dv = p.transpose(-1, -2) @ do.double()
    shape_k = k.shape[:-3] + (k.shape[-3], g) + dk.shape[-2:]
    dk = dk.reshape(shape_k).sum(-3)
    dv = dv.reshape(k.shape[:-3] + (k.shape[-3], g) + dv.shape[-2:]).sum(-3)
    return dq.to(q.dtype), dk.to(k.dtype), dv.to(v.dtype)


def _cpu_kernel(torch, name):
    # Register the op's own implementation for CPU tensors too (private torch API: skip if it moved).
    try:
        from torch._library.custom_ops import OPDEFS
        op = OPDEFS[name]
        fn = op._init_fn
    except (ImportError, KeyError, AttributeError):
        pytest.skip("torch's custom-op internals moved: cannot run %s on CPU" % name)
    op.register_kernel("cpu")(fn)


@pytest.mark.parametrize("causal,d,dv,group", [(True, 64, 64, 2), (False, 32, 32, 1), (True, 192, 128, 2),
                                                (False, 128, 64, 1)])
def test_dense_op_autograd_with_sinks(torch, monkeypatch, causal, d, dv, group):
    from txl.ops import _attention_bwd

    from .attention_sinks_ref import dense_sink_reference

    torch.manual_seed(2)
    B, H, N, scale = 2, 4, 40, 0.2
    HK = H // group
    mask = _mask_of(None, causal, N, N)

    def forward(q, k, v, causal_, sm_scale, kernel, local=None, sinks=None):
        o, m2 = _model_forward(q, k, v, mask, sm_scale, sinks)
        m = torch.zeros(B * H, A.padded_len(N))
        m[:, :N] = m2.reshape(B * H, N)
        return o, m

    def backward(do, q, k, v, o, m, causal_, sm_scale, deterministic=False, local=None, return_delta=False):
        grads = _model_backward(do, q, k, v, o, m.view(B, H, -1)[:, :, :N], mask, sm_scale)
        if not return_delta:
            return grads
        delta = torch.zeros_like(m)  # the preprocess's layout: (B * H, N_PAD), rows past N unused
        delta.view(B, H, -1)[:, :, :N] = (do.double() * o.double()).sum(-1).to(delta.dtype)
        return (*grads, delta)

    monkeypatch.setattr(A, "_forward", forward)
    monkeypatch.setattr(_attention_bwd, "backward", backward)
    monkeypatch.setattr(_attention_bwd, "check_supported", lambda q, where=None: None)
    op = A._custom_op()
    _cpu_kernel(torch, "txl::flash_attention")
    _cpu_kernel(torch, "txl::flash_attention_backward")
    q = torch.randn(B, H, N, d, requires_grad=True)
    k = torch.randn(B, HK, N, d, requires_grad=True)
    v = torch.randn(B, HK, N, dv, requires_grad=True)
    sinks = torch.randn(H, requires_grad=True)
    o, lse, _ = op(q, k, v, causal, scale, "fa3", False, A.BIG, A.BIG, 0, sinks)
    do = torch.randn_like(o)
    qr, kr, vr, sr = (t.detach().double().requires_grad_() for t in (q, k, v, sinks))
    ref, ref_lse = dense_sink_reference(qr, kr, vr, sr, causal, scale, dtype=torch.float64)
    assert o.shape == (B, H, N, dv) and torch.allclose(o.double(), ref, atol=1e-5)
    assert torch.allclose(lse.double(), ref_lse, atol=1e-5)
    if d != dv and (d, dv) not in getattr(_attention_bwd, "ASYM_HEAD_DIMS", ()):
        # a pair the backward kernels do not declare: a clear error for q, k, v; the sinks alone still train
        with pytest.raises(NotImplementedError, match="asymmetric head dims .*no backward kernel yet"):
            o.backward(do)
        # the sinks alone need no backward kernel
        o2, _, _ = op(q.detach(), k.detach(), v.detach(), causal, scale, "fa3", False, A.BIG, A.BIG, 0, sinks)
        o2.backward(do)
        ref.backward(do.double())
        assert torch.allclose(sinks.grad.double(), sr.grad, rtol=1e-4, atol=1e-6)
        return
    o.backward(do)
    ref.backward(do.double())
    for name, g, r in (("dq", q.grad, qr.grad), ("dk", k.grad, kr.grad), ("dv", v.grad, vr.grad),
                       ("dsinks", sinks.grad, sr.grad)):
        assert g is not None and g.shape == r.shape, name
        assert torch.allclose(g.double(), r, rtol=1e-4, atol=1e-5), (name, (g.double() - r).abs().max())


def test_varlen_op_autograd_with_sinks(torch, monkeypatch):
    from txl.ops import _attention_bwd
    from txl.ops import attention_varlen as V

    from .attention_sinks_ref import varlen_sink_reference

    torch.manual_seed(3)
    lens_q, lens_k = [5, 30, 0, 17], [9, 30, 4, 0]
    H, HK, D, scale, window, n_sink = 4, 2, 32, 0.25, (6, 0), 2
    cu_q = torch.tensor([0, 5, 35, 35, 52], dtype=torch.int32)
    cu_k = torch.tensor([0, 9, 39, 43, 43], dtype=torch.int32)
    from .attention_variants_ref import seq_bounds

    def per_seq(fn):
        outs = []
        for (qa, qb), (ka, kb) in zip(seq_bounds(cu_q), seq_bounds(cu_k)):
            outs.append(fn(qa, qb, ka, kb))
        return outs

    def forward(q, k, v, cu_q_, cu_k_, max_q, max_k, sm_scale, local, sinks=None):
        o = torch.zeros(q.shape[0], H, v.shape[2], dtype=q.dtype)
        m = torch.zeros(H, V._m_len(q.shape[0]))

        def one(qa, qb, ka, kb):
            mask = _mask_of(local, False, qb - qa, kb - ka)
            oo, mm = _model_forward(q[qa:qb].transpose(0, 1), k[ka:kb].transpose(0, 1), v[ka:kb].transpose(0, 1),
                                    mask, sm_scale, sinks)
            o[qa:qb] = oo.transpose(0, 1)
            m[:, qa:qb] = mm

        per_seq(one)
        return o, m

    def backward_varlen(do, q, k, v, o, m, cu_q_, cu_k_, max_q, max_k, sm_scale, deterministic, local,
                        return_delta=False):
        dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)

        def one(qa, qb, ka, kb):
            mask = _mask_of(local, False, qb - qa, kb - ka)
            t = [x.transpose(0, 1) for x in (do[qa:qb], q[qa:qb], k[ka:kb], v[ka:kb], o[qa:qb])]
            a, b, c = _model_backward(*t, m[:, qa:qb], mask, sm_scale)
            dq[qa:qb], dk[ka:kb], dv[ka:kb] = a.transpose(0, 1), b.transpose(0, 1), c.transpose(0, 1)

        per_seq(one)
        if not return_delta:
            return dq, dk, dv
        delta = torch.zeros_like(m)  # (H, M_LEN) over the packed tokens
        delta[:, :q.shape[0]] = (do.double() * o.double()).sum(-1).t().to(delta.dtype)
        return dq, dk, dv, delta

    monkeypatch.setattr(V, "_forward", forward)
    monkeypatch.setattr(_attention_bwd, "backward_varlen", backward_varlen)
    op = V._custom_op()
    _cpu_kernel(torch, "txl::flash_attention_varlen")
    _cpu_kernel(torch, "txl::flash_attention_varlen_backward")
    q = torch.randn(sum(lens_q), H, D, requires_grad=True)
    k = torch.randn(sum(lens_k), HK, D, requires_grad=True)
    v = torch.randn(sum(lens_k), HK, D, requires_grad=True)
    sinks = torch.randn(H, requires_grad=True)
    left, right, n = A.local_masks(window, n_sink, True)
    o, lse, _ = op(q, k, v, cu_q, cu_k, max(lens_q), max(lens_k), scale, left, right, n, False, sinks)
    do = torch.randn_like(o)
    o.backward(do)
    qr, kr, vr, sr = (t.detach().double().requires_grad_() for t in (q, k, v, sinks))
    ref, ref_lse = varlen_sink_reference(qr, kr, vr, cu_q, cu_k, sr, True, scale, window, n_sink,
                                         dtype=torch.float64)
    ref.backward(do.double())
    assert torch.allclose(o.double(), ref, atol=1e-5) and torch.allclose(lse.double(), ref_lse, atol=1e-5)
    for name, g, r in (("dq", q.grad, qr.grad), ("dk", k.grad, kr.grad), ("dv", v.grad, vr.grad),
                       ("dsinks", sinks.grad, sr.grad)):
        assert g is not None and torch.allclose(g.double(), r, rtol=1e-4, atol=1e-5), \
            (name, (g.double() - r).abs().max())


def test_fake_shapes(torch):
    # torch.compile's view of the ops: o takes v's head dim
    from torch._subclasses.fake_tensor import FakeTensorMode

    op = A._custom_op()
    with FakeTensorMode():
        q = torch.empty(2, 4, 100, 192, dtype=torch.bfloat16, device="cuda")
        v = torch.empty(2, 2, 100, 128, dtype=torch.bfloat16, device="cuda")
        k = torch.empty(2, 2, 100, 192, dtype=torch.bfloat16, device="cuda")
        o, lse, m = op(q, k, v, True, 0.1, "fa3", False, A.BIG, A.BIG, 0, torch.empty(4, device="cuda"))
        assert o.shape == (2, 4, 100, 128) and lse.shape == (2, 4, 100) and m.shape == (8, 128)
