"""Learnable attention sinks (gpt-oss) on the GPU: ``txl.ops.flash_attention(..., sinks=)`` and
``txl.ops.flash_attention_varlen(..., sinks=)`` against a float32 torch reference that appends each head's sink
logit as an extra score column and drops it before P @ V (``tests/attention_sinks_ref.py``), on fresh random data:
o, lse (which includes the sink), dq, dk, dv and dsinks (autograd through the reference); with causal, sliding
windows and sink tokens, packed sequences (rows that see no key: o = 0, lse = the sink), GQA, hd64/128/256,
bf16/fp16, every fa3 autotuning config launched directly (persistent included); sinks of -inf change nothing
(to the last bits of exp2(0)); opcheck of the op's registrations; argument errors on CUDA tensors.

    python3 -m pytest -q python/txl/tests/gpu/test_attention_sinks_gpu.py
"""

import math
import zlib

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

import txl  # noqa: E402,F401
import txl.ops  # noqa: E402
from txl.ops import attention as A  # noqa: E402

from ..attention_sinks_ref import (dense_sink_grads_given_output, dense_sink_reference,  # noqa: E402
                                  varlen_sink_reference)
from ..attention_variants_ref import varlen_dead_rows  # noqa: E402

pytestmark = pytest.mark.gpu

O_TOL, GRAD_TOL, LSE_ATOL = 1e-2, 2e-2, 1e-2  # as test_attention_variants_gpu.py; lse: natural log, absolute


@pytest.fixture(autouse=True)
def _seed(request):
    torch.manual_seed(zlib.crc32(request.node.name.encode()))


def _rel(a, b):
    return ((a.float() - b.float()).norm() / b.float().norm().clamp_min(1e-3 * max(b.numel(), 1) ** 0.5)).item()


def _sinks(H, scale=2.0, shift=0.0):
    # Per-head logits of the size of the scaled scores (|q.k| * sm_scale ~ 1 for unit-variance data), some heads
    # well above them (the sink takes most of the mass) and some below.
    s = torch.randn(H, device="cuda") * scale + shift
    s[0] = 6.0
    if H > 1:
        s[1] = -4.0
    return s


def _check_lse(lse, ref):
    assert lse.dtype == torch.float32 and lse.shape == ref.shape, (lse.dtype, lse.shape, ref.shape)
    assert torch.isfinite(lse).all(), "with finite sinks every row's lse is finite"
    err = (lse - ref).abs().max().item()
    assert err < LSE_ATOL, ("lse", err)


def _check(name, got, ref, tol):
    assert got is not None, name
    assert got.shape == ref.shape, (name, got.shape, ref.shape)
    assert torch.isfinite(got).all(), name + " has NaN/inf"
    err = _rel(got, ref)
    assert err < tol, (name, err)


def launch_config(q, k, v, causal, sm_scale, cfg, sinks=None, local=None):
    """(o, m) of one launch of the fa3 kernel with one of its autotuning configs (``cfg``, a txl.Config of
    A.get_tuner), dense (B, H, N, D) inputs, bypassing the tuner: every config gets checked, not only the one the
    tuner picks on this GPU."""
    B, H, N, D = q.shape
    Hk, Dv = k.shape[1], v.shape[-1]
    n_pad = A.padded_len(N)
    q2, k2, v2 = (t.contiguous().view(-1, t.shape[-1]) for t in (q, k, v))
    o = torch.empty(B, H, N, Dv, dtype=q.dtype, device=q.device)
    m = torch.empty(B * H, n_pad, dtype=torch.float32, device=q.device)
    grid, args, kwargs = A._launch_args("fa3", q2, k2, v2, o.view(-1, Dv), m, sm_scale, N, n_pad, B * H, D, causal,
                                        H // Hk, local, head_dim_v=Dv, sink_logits=sinks, heads=H)
    tuner = A.get_tuner("fa3", D, causal and local is None, "dense" if local is None else "window", Dv)
    nargs = tuner.fn.bind(args, dict(kwargs, **cfg.kwargs))
    cfg.pre_hook(nargs)
    tuner.fn[tuple(grid(dict(nargs, **cfg.kwargs)))](**nargs, **cfg.options)
    return o, m


def fa3_configs(D, causal, local=False, Dv=None):
    return A.get_tuner("fa3", D, causal and not local, "window" if local else "dense", Dv).configs


# -----------------------------------------------------------------------------------------------------------------
# Dense (B, H, N, D)
# -----------------------------------------------------------------------------------------------------------------
DENSE = [  # B, H, H_KV, N, D, causal, window, sink tokens, dtype
    (2, 8, 8, 1024, 128, False, (-1, -1), 0, torch.bfloat16),
    (2, 8, 2, 1000, 128, True, (-1, -1), 0, torch.bfloat16),     # causal, GQA 4:1, padded N
    (1, 8, 1, 777, 64, False, (-1, -1), 0, torch.bfloat16),      # MQA
    (1, 4, 4, 600, 256, True, (-1, -1), 0, torch.bfloat16),      # hd256
    (1, 4, 2, 1000, 128, False, (-1, -1), 0, torch.float16),     # fp16
    (1, 8, 8, 2048, 64, True, (128, 0), 0, torch.bfloat16),      # gpt-oss: sliding window 128 + learnable sinks
    (1, 4, 2, 1000, 128, True, (256, 0), 4, torch.bfloat16),     # window + sink tokens + learnable sinks
    (1, 4, 4, 777, 64, False, (100, 100), 0, torch.bfloat16),    # symmetric band
    (1, 2, 2, 300, 64, False, (0, 0), 0, torch.bfloat16),        # each query sees only its own key (and the sink)
]


def _dense_id(c):
    B, H, HK, N, D, causal, window, toks, dtype = c
    return "%dx%dx%dx%dx%d-%s-w%d,%d-t%d-%s" % (B, H, HK, N, D, "causal" if causal else "full", window[0], window[1],
                                               toks, str(dtype).split(".")[-1])


@pytest.mark.parametrize("B,H,HK,N,D,causal,window,toks,dtype", DENSE, ids=[_dense_id(c) for c in DENSE])
def test_dense_sinks_match_float32_reference(B, H, HK, N, D, causal, window, toks, dtype):
    q = torch.randn(B, H, N, D, device="cuda", dtype=dtype)
    k, v = (torch.randn(B, HK, N, D, device="cuda", dtype=dtype) for _ in range(2))
    sinks = _sinks(H)
    do = torch.randn_like(q)
    qt, kt, vt = (t.clone().requires_grad_() for t in (q, k, v))
    st = sinks.clone().requires_grad_()
    o, lse = txl.ops.flash_attention(qt, kt, vt, causal=causal, return_lse=True, window=window,
                                     num_sink_tokens=toks, sinks=st)
    o.backward(do)
    qr, kr, vr, sr = (t.float().requires_grad_() for t in (q, k, v, sinks))
    ref, ref_lse = dense_sink_reference(qr, kr, vr, sr, causal, None, window, toks)
    ref.backward(do.float())
    assert o.dtype == dtype and o.shape == q.shape
    _check("o", o, ref, O_TOL)
    _check_lse(lse, ref_lse)
    # What the 16-bit output costs any flash backward by itself (Delta = dO . O read from the stored O): the
    # exact-math gradients with Delta from the reference output rounded to `dtype`. Where a row's keys hold almost
    # all its mass next to the sink, dO.V - Delta cancels and that alone exceeds GRAD_TOL (the w0,0 case: dq
    # 0.045; dsinks 0.025 at 777 w100,100); the kernel may be off by at most twice that, never by more.
    rounded = dense_sink_grads_given_output(q, k, v, sinks, do, ref.detach().to(dtype), causal, None, window, toks)
    for name, g, r, inh in (("dq", qt.grad, qr.grad, rounded[0]), ("dk", kt.grad, kr.grad, rounded[1]),
                            ("dv", vt.grad, vr.grad, rounded[2]), ("dsinks", st.grad, sr.grad, rounded[3])):
        assert g.dtype == (torch.float32 if name == "dsinks" else dtype)
        _check(name, g, r, max(GRAD_TOL, 2 * _rel(inh, r)))
    # the sinks matter: the output differs from attention without them
    assert _rel(o, txl.ops.flash_attention(q, k, v, causal=causal, window=window, num_sink_tokens=toks)) > 1e-2


@pytest.mark.parametrize("D", [64, 128, 256])
@pytest.mark.parametrize("causal", [False, True])
def test_every_config_with_sinks(D, causal):
    # Each fa3 autotuning config (persistent ones too), launched directly, against the reference; and sinks of
    # -inf give what the same config gives without sinks (alpha = exp2(0), l + exp2(-inf) = l).
    B, H, HK, N = 2, 4, 2, 1000
    q = torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16)
    k, v = (torch.randn(B, HK, N, D, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    sinks = _sinks(H)
    scale = 1.0 / math.sqrt(D)
    ref, ref_lse = dense_sink_reference(q, k, v, sinks, causal, scale)
    for cfg in fa3_configs(D, causal):
        o, m = launch_config(q, k, v, causal, scale, cfg, sinks)
        _check("o %s" % cfg.kwargs, o, ref, O_TOL)
        _check_lse(A._lse(m, q.shape), ref_lse)
        o_ninf, m_ninf = launch_config(q, k, v, causal, scale, cfg, torch.full((H,), -math.inf, device="cuda"))
        o_none, m_none = launch_config(q, k, v, causal, scale, cfg, None)
        assert _rel(o_ninf, o_none) < 1e-3, "sinks of -inf must change nothing (%s)" % cfg.kwargs
        assert (A._lse(m_ninf, q.shape) - A._lse(m_none, q.shape)).abs().max().item() < 1e-5


def test_window_configs_with_sinks():
    B, H, N, D = 1, 4, 1000, 128
    q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    sinks = _sinks(H)
    scale = 1.0 / math.sqrt(D)
    ref, ref_lse = dense_sink_reference(q, k, v, sinks, True, scale, (200, 0), 4)
    local = A.local_masks((200, 0), 4, True)
    for cfg in fa3_configs(D, True, local=True):
        o, m = launch_config(q, k, v, False, scale, cfg, sinks, local)
        _check("o %s" % cfg.kwargs, o, ref, O_TOL)
        _check_lse(A._lse(m, q.shape), ref_lse)


def test_sinks_without_grad_bf16_sinks_and_plan_reuse():
    # The eager no-grad path (a plan per shape: first and second call), bf16 sinks (converted to float32), the
    # sinks' values changing between calls of one plan, and only the sinks requiring grad (no backward kernel).
    B, H, N, D = 2, 8, 1000, 64
    q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    for sinks in (_sinks(H).bfloat16(), _sinks(H, shift=1.0), _sinks(H, shift=-1.0)):
        with torch.no_grad():
            o, lse = txl.ops.flash_attention(q, k, v, causal=True, return_lse=True, sinks=sinks)
            o2 = txl.ops.flash_attention(q, k, v, causal=True, sinks=sinks)
        ref, ref_lse = dense_sink_reference(q, k, v, sinks.float(), True)
        _check("o", o, ref, O_TOL)
        _check("o (second call)", o2, ref, O_TOL)
        _check_lse(lse, ref_lse)
    st = _sinks(H).requires_grad_()
    o = txl.ops.flash_attention(q, k, v, causal=True, sinks=st)
    do = torch.randn_like(o)
    o.backward(do)
    sr = st.detach().clone().requires_grad_()
    ref, _ = dense_sink_reference(q, k, v, sr, True)
    ref.backward(do.float())
    _check("dsinks", st.grad, sr.grad, GRAD_TOL)
    sb = _sinks(H).bfloat16().requires_grad_()  # gpt-oss keeps its sinks in bf16: the gradient comes back in bf16
    txl.ops.flash_attention(q, k, v, causal=True, sinks=sb).backward(do)
    assert sb.grad is not None and sb.grad.dtype == torch.bfloat16 and torch.isfinite(sb.grad).all()


def test_deterministic_with_sinks():
    B, H, N, D = 1, 4, 1000, 128
    q, k, v, do = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16) for _ in range(4))
    sinks = _sinks(H)
    runs = []
    for _ in range(2):
        qt, st = q.clone().requires_grad_(), sinks.clone().requires_grad_()
        txl.ops.flash_attention(qt, k, v, causal=True, deterministic=True, sinks=st).backward(do)
        runs.append((qt.grad, st.grad))
    assert torch.equal(runs[0][0], runs[1][0]) and torch.equal(runs[0][1], runs[1][1])


def test_opcheck():
    q, k, v = (torch.randn(1, 4, 256, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    sinks = torch.randn(4, device="cuda", requires_grad=True)
    big = A.BIG
    torch.library.opcheck(torch.ops.txl.flash_attention, (q, k, v, True, 0.125, "fa3", False, big, big, 0, sinks),
                          test_utils=("test_schema", "test_faketensor", "test_autograd_registration"))


def test_torch_compile_fullgraph_with_sinks_and_asym_dims():
    # torch.compile traces the op (its fake gives o v's head dim); the sinks' gradient through the compiled graph.
    q = torch.randn(2, 4, 1000, 192, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(2, 2, 1000, 192, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(2, 2, 1000, 128, device="cuda", dtype=torch.bfloat16)
    sinks = _sinks(4).requires_grad_()

    def block(q, k, v, s):
        return txl.ops.flash_attention(q * 1.0, k, v, causal=True, sinks=s).float() * 2.0

    compiled = torch.compile(block, fullgraph=True)
    out = compiled(q, k, v, sinks)
    sr = sinks.detach().clone().requires_grad_()
    ref, _ = dense_sink_reference(q, k, v, sr, True)
    assert out.shape == (2, 4, 1000, 128)
    _check("o", out / 2.0, ref, O_TOL)
    do = torch.randn_like(out)
    out.backward(do)
    (ref * 2.0).backward(do)
    _check("dsinks", sinks.grad, sr.grad, GRAD_TOL)


# -----------------------------------------------------------------------------------------------------------------
# Varlen
# -----------------------------------------------------------------------------------------------------------------
def _cu(lens):
    cu = [0]
    for n in lens:
        cu.append(cu[-1] + n)
    return torch.tensor(cu, dtype=torch.int32, device="cuda")


VARLEN = [  # lens_q, lens_k (None: = lens_q), H, H_KV, D, causal, window, sink tokens, dtype
    ([1, 777, 3001], None, 4, 4, 128, False, (-1, -1), 0, torch.bfloat16),
    ([1, 777, 3001], None, 8, 2, 64, True, (-1, -1), 0, torch.bfloat16),
    ([1, 777, 3001], None, 4, 2, 128, True, (128, 0), 0, torch.bfloat16),       # gpt-oss's pattern, packed
    ([1, 777, 3001], [5, 700, 3100], 4, 4, 64, True, (-1, -1), 0, torch.bfloat16),  # 77 rows see no key
    ([1, 777, 3001], [5, 700, 3100], 4, 2, 128, False, (128, 128), 4, torch.float16),
    ([300, 64, 7], [100, 64, 0], 2, 2, 64, True, (-1, -1), 0, torch.bfloat16),  # 200 + 7 rows see no key
    ([0, 300], [0, 300], 2, 1, 128, True, (64, 0), 4, torch.bfloat16),          # a zero-length sequence
    ([1, 777, 1000], None, 2, 2, 256, True, (128, 0), 0, torch.bfloat16),       # hd256
]


def _varlen_id(c):
    lq, lk, H, HK, D, causal, window, toks, dtype = c
    return "q%s-k%s-%dx%dx%d-%s-w%d,%d-t%d-%s" % ("_".join(map(str, lq)), "_".join(map(str, lk or lq)), H, HK, D,
                                               "causal" if causal else "full", window[0], window[1], toks,
                                               str(dtype).split(".")[-1])


@pytest.mark.parametrize("lens_q,lens_k,H,HK,D,causal,window,toks,dtype", VARLEN, ids=[_varlen_id(c) for c in VARLEN])
def test_varlen_sinks_match_float32_reference(lens_q, lens_k, H, HK, D, causal, window, toks, dtype):
    lens_k = lens_k or lens_q
    cu_q, cu_k = _cu(lens_q), _cu(lens_k)
    q = torch.randn(sum(lens_q), H, D, device="cuda", dtype=dtype)
    k, v = (torch.randn(sum(lens_k), HK, D, device="cuda", dtype=dtype) for _ in range(2))
    do = torch.randn_like(q)
    sinks = _sinks(H)
    qt, kt, vt, st = (t.clone().requires_grad_() for t in (q, k, v, sinks))
    o, lse = txl.ops.flash_attention_varlen(qt, kt, vt, cu_q, cu_k, max(lens_q), max(lens_k), causal=causal,
                                            window=window, num_sink_tokens=toks, return_lse=True, sinks=st)
    o.backward(do)
    qr, kr, vr, sr = (t.float().requires_grad_() for t in (q, k, v, sinks))
    ref, ref_lse = varlen_sink_reference(qr, kr, vr, cu_q, cu_k, sr, causal, None, window, toks)
    ref.backward(do.float())
    assert o.shape == q.shape and lse.shape == (H, q.shape[0])
    _check("o", o, ref, O_TOL)
    _check_lse(lse, ref_lse)
    for name, t, r in (("dq", qt, qr), ("dk", kt, kr), ("dv", vt, vr)):
        g = t.grad if t.grad is not None else torch.zeros_like(t)
        _check(name, g, r.grad if r.grad is not None else torch.zeros_like(r), GRAD_TOL)
    _check("dsinks", st.grad, sr.grad, GRAD_TOL)
    dead_q, _ = (m.cuda() for m in varlen_dead_rows(cu_q, cu_k, causal, window, toks))
    if dead_q.any():  # a row that sees no key: its softmax is the sink alone
        assert (o[dead_q] == 0).all()
        h_lse = sinks.view(-1, 1).expand(-1, int(dead_q.sum()))
        assert (lse[:, dead_q] - h_lse).abs().max().item() < 1e-4


def test_varlen_without_keys_with_sinks():
    # No keys at all: the op returns without a launch; o = 0, lse = the sinks.
    H, D = 4, 64
    q = torch.randn(10, H, D, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(0, H, D, device="cuda", dtype=torch.bfloat16)
    sinks = _sinks(H)
    o, lse = txl.ops.flash_attention_varlen(q, k, k, _cu([10]), _cu([0]), 10, 0, return_lse=True, sinks=sinks)
    assert (o == 0).all() and torch.allclose(lse, sinks.view(-1, 1).expand(-1, 10))


# -----------------------------------------------------------------------------------------------------------------
# Argument errors on CUDA tensors (nothing is launched)
# -----------------------------------------------------------------------------------------------------------------
def test_bad_sinks_raise():
    x = torch.zeros(1, 4, 128, 64, device="cuda", dtype=torch.bfloat16)
    cases = [(torch.zeros(3, device="cuda"), ValueError, r"expected \(4,\)"),
             (torch.zeros(4, 1, device="cuda"), ValueError, r"expected \(4,\)"),
             (torch.zeros(4, dtype=torch.int32, device="cuda"), TypeError, "floating-point"),
             (torch.zeros(4), ValueError, "sinks is on cpu"),
             ([0.0] * 4, TypeError, "sinks must be a torch.Tensor")]
    for bad, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            txl.ops.flash_attention(x, x, x, sinks=bad)
    with pytest.raises(ValueError, match="kernel='fa3' only"):
        txl.ops.flash_attention(x, x, x, sinks=torch.zeros(4, device="cuda"), kernel="ws")
    qv = torch.zeros(6, 2, 64, device="cuda", dtype=torch.bfloat16)
    cu = torch.tensor([0, 2, 6], dtype=torch.int32, device="cuda")
    with pytest.raises(ValueError, match=r"flash_attention_varlen: sinks has shape \(3,\)"):
        txl.ops.flash_attention_varlen(qv, qv, qv, cu, cu, 4, 4, sinks=torch.zeros(3, device="cuda"))
