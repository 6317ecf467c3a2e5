"""Asymmetric head dims on the GPU (q/k head dim D, v head dim D_v < D; DeepSeek-V3 prefill: 192 / 128):
``txl.ops.flash_attention`` and ``txl.ops.flash_attention_varlen`` against a float32 torch reference on fresh random
data: o (B, H, N, D_v) and lse, dense / causal / sliding window / packed sequences, GQA, bf16/fp16, N not a
multiple of 128, the hand-tuned pairs (128/64, 192/64, 192/128, 256/64, 256/128: O staged in Q's tile) and a sample
of the other pairs of ``ASYM_HEAD_DIMS`` (O in tiles of its own, 64- and 32-byte swizzles: q/k 48, 80, 96, 144, 160,
240; v 16, 32), every autotuning config launched directly, with learnable sinks;
agreement with torch SDPA where a backend takes the shape. The backward: where ``_attention_bwd`` declares the pair
(its ASYM_HEAD_DIMS: 192/128 and 256/128), dq/dk/dv (and dsinks) against the reference; otherwise a
NotImplementedError that says so.

    python3 -m pytest -q python/txl/tests/gpu/test_attention_asym_gpu.py
"""

import math
import zlib

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

import txl  # noqa: E402,F401
import txl.ops  # noqa: E402
from txl.ops import _attention_bwd  # noqa: E402
from txl.ops import attention as A  # noqa: E402

from ..attention_sinks_ref import dense_sink_reference, varlen_sink_reference  # noqa: E402
from ..attention_variants_ref import dense_reference, varlen_reference  # noqa: E402
from .test_attention_sinks_gpu import _check, _cu, _sinks, fa3_configs, launch_config  # noqa: E402

pytestmark = pytest.mark.gpu

O_TOL, GRAD_TOL, LSE_ATOL = 1e-2, 2e-2, 1e-2


@pytest.fixture(autouse=True)
def _seed(request):
    torch.manual_seed(zlib.crc32(request.node.name.encode()))


def _bwd_pairs():
    return tuple(getattr(_attention_bwd, "ASYM_HEAD_DIMS", ()))


def _inputs(B, H, HK, N, D, DV, dtype):
    q = torch.randn(B, H, N, D, device="cuda", dtype=dtype)
    k = torch.randn(B, HK, N, D, device="cuda", dtype=dtype)
    v = torch.randn(B, HK, N, DV, device="cuda", dtype=dtype)
    return q, k, v


def _check_lse(lse, ref):
    assert lse.dtype == torch.float32 and lse.shape == ref.shape
    live = torch.isfinite(ref)
    assert torch.equal(lse == math.inf, ~live)
    if live.any():
        assert (lse[live] - ref[live]).abs().max().item() < LSE_ATOL


DENSE = [  # B, H, H_KV, N, D, D_v, causal, window, dtype
    (2, 8, 8, 1024, 192, 128, False, (-1, -1), torch.bfloat16),   # DeepSeek-V3 prefill
    (2, 8, 8, 1000, 192, 128, True, (-1, -1), torch.bfloat16),    # causal, padded N
    (1, 8, 2, 777, 192, 128, True, (-1, -1), torch.bfloat16),     # GQA 4:1
    (1, 4, 4, 1000, 192, 128, False, (-1, -1), torch.float16),    # fp16
    (1, 4, 4, 1000, 192, 128, True, (256, 0), torch.bfloat16),    # sliding window
    (1, 4, 2, 1000, 128, 64, True, (-1, -1), torch.bfloat16),
    (1, 4, 4, 600, 192, 64, False, (-1, -1), torch.bfloat16),
    (1, 4, 4, 600, 256, 64, True, (-1, -1), torch.bfloat16),
    (1, 4, 1, 1000, 256, 128, False, (-1, -1), torch.bfloat16),   # MQA
    (1, 4, 4, 300, 256, 128, True, (100, 0), torch.float16),
    (1, 4, 2, 1000, 96, 64, True, (-1, -1), torch.bfloat16),     # q/k 96: 64-byte swizzle, O in its own tiles
    (1, 4, 4, 777, 160, 128, False, (-1, -1), torch.bfloat16),
    (1, 4, 4, 500, 64, 32, True, (64, 0), torch.float16),        # v 32
]


def _dense_id(c):
    B, H, HK, N, D, DV, causal, window, dtype = c
    return "%dx%dx%dx%d-d%d_v%d-%s-w%d,%d-%s" % (B, H, HK, N, D, DV, "causal" if causal else "full", window[0],
                                                window[1], str(dtype).split(".")[-1])


@pytest.mark.parametrize("B,H,HK,N,D,DV,causal,window,dtype", DENSE, ids=[_dense_id(c) for c in DENSE])
def test_dense_asym_matches_float32_reference(B, H, HK, N, D, DV, causal, window, dtype):
    q, k, v = _inputs(B, H, HK, N, D, DV, dtype)
    with torch.no_grad():
        o, lse = txl.ops.flash_attention(q, k, v, causal=causal, window=window, return_lse=True)
    ref, ref_lse = dense_reference(q, k, v, causal, None, window)
    assert o.dtype == dtype and o.shape == (B, H, N, DV)
    _check("o", o, ref, O_TOL)
    _check_lse(lse, ref_lse)


# The hand-tuned pairs and a sample of the others (each swizzle of Q and O, v down to 16).
PAIRS = list(A._FA3_ASYM_CONFIGS) + [(96, 64), (160, 128), (80, 32), (64, 16), (240, 128), (48, 32), (144, 64)]


@pytest.mark.parametrize("pair", PAIRS, ids=["d%d_v%d" % p for p in PAIRS])
@pytest.mark.parametrize("causal", [False, True])
def test_every_asym_config(pair, causal):
    # Each autotuning config of the pair, launched directly, with and without learnable sinks.
    D, DV = pair
    B, H, HK, N = 2, 4, 2, 1000
    q, k, v = _inputs(B, H, HK, N, D, DV, torch.bfloat16)
    scale = 1.0 / math.sqrt(D)
    sinks = _sinks(H)
    ref, ref_lse = dense_reference(q, k, v, causal, scale)
    ref_s, ref_s_lse = dense_sink_reference(q, k, v, sinks, causal, scale)
    for cfg in fa3_configs(D, causal, Dv=DV):
        for s, r, rl in ((None, ref, ref_lse), (sinks, ref_s, ref_s_lse)):
            o, m = launch_config(q, k, v, causal, scale, cfg, s)
            _check("o %s sinks=%s" % (cfg.kwargs, s is not None), o, r, O_TOL)
            _check_lse(A._lse(m, q.shape), rl)


def test_asym_with_sinks_and_window_configs():
    B, H, N, D, DV = 1, 4, 1000, 192, 128
    q, k, v = _inputs(B, H, H, N, D, DV, torch.bfloat16)
    sinks = _sinks(H)
    scale = 1.0 / math.sqrt(D)
    ref, ref_lse = dense_sink_reference(q, k, v, sinks, True, scale, (128, 0), 4)
    local = A.local_masks((128, 0), 4, True)
    for cfg in fa3_configs(D, True, local=True, Dv=DV):
        o, m = launch_config(q, k, v, False, scale, cfg, sinks, local)
        _check("o %s" % cfg.kwargs, o, ref, O_TOL)
        _check_lse(A._lse(m, q.shape), ref_lse)


def test_sinks_gradient_with_asym_dims():
    # Only the sinks require grad: their gradient needs no backward kernel, whatever the head dims.
    B, H, N, D, DV = 1, 4, 1000, 192, 128
    q, k, v = _inputs(B, H, 2, N, D, DV, torch.bfloat16)
    st = _sinks(H).requires_grad_()
    o = txl.ops.flash_attention(q, k, v, causal=True, sinks=st)
    do = torch.randn_like(o)
    o.backward(do)
    sr = st.detach().clone().requires_grad_()
    ref, _ = dense_sink_reference(q, k, v, sr, True)
    ref.backward(do.float())
    _check("dsinks", st.grad, sr.grad, GRAD_TOL)


@pytest.mark.parametrize("pair", [(192, 128), (256, 128), (128, 64), (96, 64)], ids=lambda p: "d%d_v%d" % p)
@pytest.mark.parametrize("with_sinks", [False, True])
def test_asym_backward_or_clear_error(pair, with_sinks):
    D, DV = pair
    B, H, HK, N = 1, 4, 2, 1000
    q, k, v = _inputs(B, H, HK, N, D, DV, torch.bfloat16)
    qt, kt, vt = (t.clone().requires_grad_() for t in (q, k, v))
    sinks = _sinks(H) if with_sinks else None
    st = sinks.clone().requires_grad_() if with_sinks else None
    o = txl.ops.flash_attention(qt, kt, vt, causal=True, sinks=st)
    do = torch.randn_like(o)
    if pair not in _bwd_pairs():
        with pytest.raises(NotImplementedError, match="asymmetric head dims .*%d.*%d" % (D, DV)):
            o.backward(do)
        return
    o.backward(do)
    qr, kr, vr = (t.float().requires_grad_() for t in (q, k, v))
    sr = sinks.clone().requires_grad_() if with_sinks else None
    ref, _ = dense_sink_reference(qr, kr, vr, sr, True)
    ref.backward(do.float())
    grads = [("dq", qt.grad, qr.grad), ("dk", kt.grad, kr.grad), ("dv", vt.grad, vr.grad)]
    for name, g, r in grads:
        assert g.dtype == torch.bfloat16
        _check(name, g, r, GRAD_TOL)
    if with_sinks:
        _check("dsinks", st.grad, sr.grad, GRAD_TOL)


def test_against_sdpa():
    # torch SDPA takes D_v != D in some backends (efficient / math; cuDNN on recent versions): same answer.
    F = torch.nn.functional
    q, k, v = _inputs(2, 8, 8, 1000, 192, 128, torch.bfloat16)
    o = txl.ops.flash_attention(q, k, v, causal=True)
    want = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert want.shape == o.shape
    _check("o vs SDPA", o, want.float(), O_TOL)


# -----------------------------------------------------------------------------------------------------------------
# Varlen
# -----------------------------------------------------------------------------------------------------------------
VARLEN = [  # lens_q, lens_k, H, H_KV, D, D_v, causal, window, with learnable sinks
    ([1, 777, 3001], None, 4, 4, 192, 128, False, (-1, -1), False),
    ([1, 777, 3001], None, 8, 2, 192, 128, True, (-1, -1), True),
    ([1, 777, 3001], [5, 700, 3100], 4, 2, 192, 128, True, (-1, -1), False),   # rows that see no key
    ([300, 64, 7], [100, 64, 0], 2, 2, 128, 64, True, (128, 0), True),
    ([0, 300, 20], [50, 300, 0], 2, 1, 256, 128, False, (100, -1), False),
    ([1, 777, 1000], None, 4, 2, 96, 64, True, (-1, -1), True),
    ([5, 300], [7, 310], 2, 2, 80, 32, False, (64, 64), False),
]


@pytest.mark.parametrize("lens_q,lens_k,H,HK,D,DV,causal,window,with_sinks", VARLEN)
def test_varlen_asym_matches_float32_reference(lens_q, lens_k, H, HK, D, DV, causal, window, with_sinks):
    lens_k = lens_k or lens_q
    cu_q, cu_k = _cu(lens_q), _cu(lens_k)
    q = torch.randn(sum(lens_q), H, D, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(sum(lens_k), HK, D, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(sum(lens_k), HK, DV, device="cuda", dtype=torch.bfloat16)
    sinks = _sinks(H) if with_sinks else None
    o, lse = txl.ops.flash_attention_varlen(q, k, v, cu_q, cu_k, max(lens_q), max(lens_k), causal=causal,
                                            window=window, return_lse=True, sinks=sinks)
    if with_sinks:
        ref, ref_lse = varlen_sink_reference(q, k, v, cu_q, cu_k, sinks, causal, None, window)
    else:
        ref, ref_lse = varlen_reference(q, k, v, cu_q, cu_k, causal, None, window)
    assert o.shape == (q.shape[0], H, DV) and lse.shape == (H, q.shape[0])
    _check("o", o, ref, O_TOL)
    _check_lse(lse, ref_lse)


def test_varlen_asym_backward_is_refused_clearly():
    q = torch.randn(300, 2, 192, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    k = torch.randn(300, 2, 192, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(300, 2, 128, device="cuda", dtype=torch.bfloat16)
    cu = _cu([100, 200])
    o = txl.ops.flash_attention_varlen(q, k, v, cu, cu, 200, 200, causal=True)
    assert o.shape == (300, 2, 128)
    try:
        o.sum().backward()
    except NotImplementedError as e:
        assert "asymmetric head dims" in str(e)
    else:  # a packed backward for the pair exists: then it must be right
        qr, kr, vr = (t.detach().float().requires_grad_() for t in (q, k, v))
        ref, _ = varlen_reference(qr, kr, vr, cu, cu, True)
        ref.sum().backward()
        _check("dq", q.grad, qr.grad, GRAD_TOL)


def test_bad_pairs_raise():
    q = torch.zeros(1, 2, 128, 192, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="head dim 192 is not supported"):
        txl.ops.flash_attention(q, q, q)
    with pytest.raises(ValueError, match="head dims q/k 192 and v 96 are not supported"):
        txl.ops.flash_attention(q, q, q[..., :96])
    with pytest.raises(ValueError, match="kernel='fa3' only"):
        txl.ops.flash_attention(q, q, q[..., :128].contiguous(), kernel="1wg")
    qv = torch.zeros(6, 2, 192, device="cuda", dtype=torch.bfloat16)
    cu = torch.tensor([0, 2, 6], dtype=torch.int32, device="cuda")
    with pytest.raises(ValueError, match="flash_attention_varlen: head dims q/k 192 and v 96"):
        txl.ops.flash_attention_varlen(qv, qv, qv[..., :96].contiguous(), cu, cu, 4, 4)
