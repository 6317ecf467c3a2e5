"""Sliding-window, sink-token and variable-length attention on the GPU: ``txl.ops.flash_attention(..., window=,
num_sink_tokens=)`` and ``txl.ops.flash_attention_varlen`` against a float32 torch reference with an explicit boolean
mask (``txl/tests/attention_variants_ref.py``: the masking rule is written out there) on fresh random data: o, lse
(+inf exactly where a row sees no key) and dq/dk/dv, with exact zeros for rows that see no key and keys that no query
sees; GQA, hd64/128/256, fp16 and bf16; varlen batches with seqlen_k != seqlen_q (bottom-right alignment), fully
masked rows and zero-length sequences; bit-identical dq with deterministic=True; argument errors on CUDA tensors.

    PYTHONPATH=python TXL_TXLC=... python3 -m pytest -q python/txl/tests/gpu/test_attention_variants_gpu.py
"""

import math
import zlib

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

import txl  # noqa: E402
import txl.ops  # noqa: E402

from ..attention_variants_ref import dense_reference, varlen_dead_rows, varlen_reference, visible_mask  # noqa: E402
from ..test_attention_variants_cpu import BAD_DENSE, BAD_VARLEN, call_bad  # noqa: E402

pytestmark = pytest.mark.gpu

O_TOL, GRAD_TOL, LSE_ATOL = 1e-2, 2e-2, 1e-2  # as test_attention_bwd_gpu.py; lse: natural log, absolute


def _need_varlen():
    if not hasattr(txl.ops, "flash_attention_varlen"):
        pytest.skip("txl.ops.flash_attention_varlen is not there yet")


@pytest.fixture(autouse=True)
def _seed(request):
    # Fresh random data per test, reproducible: the seed is a hash of the test's name (with its parameters).
    torch.manual_seed(zlib.crc32(request.node.name.encode()))


def _rel(a, b):
    # Relative Frobenius error with a floor (as test_attention_bwd_gpu.py), for tensors that are ~0 in exact arithmetic.
    return ((a.float() - b).norm() / b.norm().clamp_min(1e-3 * max(b.numel(), 1) ** 0.5)).item()


def _check_lse(lse, ref):
    assert lse.dtype == torch.float32 and lse.shape == ref.shape, (lse.dtype, lse.shape, ref.shape)
    live = torch.isfinite(ref)
    assert not torch.isnan(lse).any()
    # +inf exactly for the rows with no visible key, finite everywhere else
    assert torch.equal(lse == math.inf, ~live), "lse must be +inf exactly for the rows that see no key"
    if live.any():
        err = (lse[live] - ref[live]).abs().max().item()
        assert err < LSE_ATOL, ("lse", err)


def _check_grads(pairs, dtype):
    for name, g, r in pairs:
        assert g is not None, name
        assert g.dtype == dtype and g.shape == r.shape, (name, g.dtype, g.shape, r.shape)
        assert torch.isfinite(g).all(), name + " has NaN/inf"
        err = _rel(g, r)
        assert err < GRAD_TOL, (name, err)


def _grad_or_zero(t):
    return t.grad if t.grad is not None else torch.zeros_like(t)


# -----------------------------------------------------------------------------------------------------------------
# Dense (B, H, N, D) with a window and sink tokens
# -----------------------------------------------------------------------------------------------------------------
DENSE = [  # B, H, H_KV, N, D, causal, window, sinks, dtype
    (2, 4, 4, 1000, 128, True, (256, 0), 0, torch.bfloat16),      # causal-local
    (2, 4, 4, 1000, 128, False, (128, 128), 0, torch.bfloat16),   # symmetric band
    (2, 4, 4, 1000, 128, False, (100, -1), 4, torch.bfloat16),    # left window only, sinks; 100 not a block multiple
    (1, 4, 4, 2048, 64, True, (256, -1), 64, torch.bfloat16),     # causal caps the unbounded right at 0
    (1, 4, 4, 2048, 64, False, (-1, 64), 4, torch.bfloat16),      # right window only (sinks then change nothing)
    (1, 4, 4, 2048, 64, True, (1000, 0), 4, torch.bfloat16),
    (1, 8, 2, 1000, 128, True, (128, 0), 4, torch.bfloat16),      # GQA 4:1
    (1, 8, 2, 777, 64, False, (200, 200), 64, torch.bfloat16),    # GQA, sinks
    (1, 4, 4, 600, 256, True, (200, 0), 4, torch.bfloat16),       # hd256
    (1, 4, 2, 1000, 128, False, (300, 50), 4, torch.float16),     # fp16, GQA
    (1, 2, 2, 300, 64, False, (0, 0), 0, torch.bfloat16),         # each query sees only its own key
    # test_attention_sinks_gpu's failing shape (dq 0.045 with learnable sinks, H200, session 18) without them:
    # tells a windowed-backward bug from a sinks one
    (1, 4, 4, 777, 64, False, (100, 100), 0, torch.bfloat16),
    (1, 2, 2, 500, 64, True, (-1, 100), 0, torch.bfloat16),       # causal wins over right=100: plain causal
    (1, 2, 2, 384, 128, False, (5000, 5000), 0, torch.bfloat16),  # window wider than N: full attention
    (1, 2, 2, 500, 64, True, (64, 0), 200, torch.bfloat16),       # more sinks than the window is wide
]


def _dense_id(c):
    B, H, HK, N, D, causal, window, sinks, dtype = c
    return "%dx%dx%dx%dx%d-%s-w%d,%d-s%d-%s" % (B, H, HK, N, D, "causal" if causal else "full", window[0], window[1],
                                               sinks, str(dtype).split(".")[-1])


@pytest.mark.parametrize("B,H,HK,N,D,causal,window,sinks,dtype", DENSE, ids=[_dense_id(c) for c in DENSE])
def test_dense_window_matches_float32_reference(B, H, HK, N, D, causal, window, sinks, dtype):
    q = torch.randn(B, H, N, D, device="cuda", dtype=dtype)
    k, v = (torch.randn(B, HK, N, D, device="cuda", dtype=dtype) for _ in range(2))
    do = torch.randn_like(q)
    qt, kt, vt = (t.clone().requires_grad_() for t in (q, k, v))
    o, lse = txl.ops.flash_attention(qt, kt, vt, causal=causal, return_lse=True, window=window,
                                     num_sink_tokens=sinks)
    o.backward(do)
    qr, kr, vr = (t.float().requires_grad_() for t in (q, k, v))
    ref, ref_lse = dense_reference(qr, kr, vr, causal, None, window, sinks)
    ref.backward(do.float())
    assert o.dtype == dtype and o.shape == q.shape
    assert torch.isfinite(o).all()
    assert _rel(o, ref) < O_TOL, ("o", _rel(o, ref))
    _check_lse(lse, ref_lse)
    _check_grads((("dq", qt.grad, qr.grad), ("dk", kt.grad, kr.grad), ("dv", vt.grad, vr.grad)), dtype)


def test_dense_window_without_grad_and_return_lse_flag():
    # The eager no-grad path (a launch plan per shape, first and second call) and the autograd path.
    q = torch.randn(1, 4, 1000, 128, device="cuda", dtype=torch.bfloat16)
    k, v = torch.randn_like(q), torch.randn_like(q)
    kw = dict(causal=True, window=(256, 0), num_sink_tokens=4)
    with torch.no_grad():
        o1, lse1 = txl.ops.flash_attention(q, k, v, return_lse=True, **kw)
        o1b = txl.ops.flash_attention(q, k, v, **kw)  # the plan's second call, return_lse=False: a tensor
    o2, lse2 = txl.ops.flash_attention(q.clone().requires_grad_(), k, v, return_lse=True, **kw)
    assert isinstance(o1b, torch.Tensor)
    ref, ref_lse = dense_reference(q, k, v, True, None, (256, 0), 4)
    for o in (o1, o1b, o2):
        assert _rel(o, ref) < O_TOL
    for lse in (lse1, lse2):
        _check_lse(lse, ref_lse)


def test_plain_causal_is_unchanged():
    # window=(-1, -1), num_sink_tokens=0 is the existing causal op, bit for bit (forward and dq).
    q = torch.randn(2, 4, 1000, 128, device="cuda", dtype=torch.bfloat16)
    k, v, do = torch.randn_like(q), torch.randn_like(q), torch.randn_like(q)
    outs = []
    for kw in ({}, dict(window=(-1, -1), num_sink_tokens=0)):
        qt = q.clone().requires_grad_()
        o = txl.ops.flash_attention(qt, k, v, causal=True, deterministic=True, **kw)
        o.backward(do)
        outs.append((o.detach(), qt.grad))
    assert torch.equal(outs[0][0], outs[1][0])
    assert torch.equal(outs[0][1], outs[1][1])


# -----------------------------------------------------------------------------------------------------------------
# Varlen: packed (total, H, D) with cu_seqlens
# -----------------------------------------------------------------------------------------------------------------
def _cu(lens):
    cu = [0]
    for n in lens:
        cu.append(cu[-1] + n)
    return torch.tensor(cu, dtype=torch.int32, device="cuda")


def _varlen_inputs(lens_q, lens_k, H, HK, D, dtype):
    tq, tk = sum(lens_q), sum(lens_k)
    q = torch.randn(tq, H, D, device="cuda", dtype=dtype)
    k, v = (torch.randn(tk, HK, D, device="cuda", dtype=dtype) for _ in range(2))
    do = torch.randn_like(q)
    return q, k, v, do, _cu(lens_q), _cu(lens_k)


def _run_varlen(q, k, v, do, cu_q, cu_k, lens_q, lens_k, causal, window, sinks, sm_scale=None, deterministic=False):
    qt, kt, vt = (t.clone().requires_grad_() for t in (q, k, v))
    o, lse = txl.ops.flash_attention_varlen(qt, kt, vt, cu_q, cu_k, max(lens_q), max(lens_k), causal=causal,
                                            sm_scale=sm_scale, window=window, num_sink_tokens=sinks,
                                            return_lse=True, deterministic=deterministic)
    o.backward(do)
    return o, lse, (_grad_or_zero(qt), _grad_or_zero(kt), _grad_or_zero(vt))


VARLEN = [  # lens_q, lens_k (None: = lens_q), H, H_KV, D, causal, window, sinks, dtype, sm_scale
    ([1, 777, 3001], None, 4, 4, 128, False, (-1, -1), 0, torch.bfloat16, None),
    ([1, 777, 3001], None, 8, 2, 64, True, (-1, -1), 0, torch.bfloat16, None),           # GQA causal
    ([1, 777, 3001], None, 4, 2, 128, True, (256, 0), 4, torch.bfloat16, None),          # GQA, window + sinks
    ([1, 777, 3001], [5, 700, 3100], 4, 4, 64, True, (-1, -1), 0, torch.bfloat16, None),  # bottom-right causal;
    # seq 1 (777 queries, 700 keys): its first 77 rows see no key
    ([1, 777, 3001], [5, 700, 3100], 4, 2, 128, False, (128, 128), 4, torch.float16, 0.05),
    ([1, 777, 3001], [5, 700, 3100], 4, 4, 64, True, (300, 0), 64, torch.bfloat16, None),
    ([300, 64, 7], [100, 64, 0], 2, 2, 64, True, (-1, -1), 0, torch.bfloat16, None),    # 200 + 7 rows fully masked
    ([0, 300], [0, 300], 2, 1, 128, True, (64, 0), 4, torch.bfloat16, None),            # a zero-length sequence
    ([0, 300, 20], [50, 300, 0], 2, 2, 128, False, (100, -1), 2, torch.bfloat16, None),  # keys no query sees,
    # queries with no key
    ([1, 777, 1000], None, 2, 2, 256, True, (128, 0), 4, torch.bfloat16, None),          # hd256
]


def _varlen_id(c):
    lq, lk, H, HK, D, causal, window, sinks, dtype, scale = c
    return "q%s-k%s-%dx%dx%d-%s-w%d,%d-s%d-%s" % ("_".join(map(str, lq)), "_".join(map(str, lk or lq)), H, HK, D,
                                               "causal" if causal else "full", window[0], window[1], sinks,
                                               str(dtype).split(".")[-1])


@pytest.mark.parametrize("lens_q,lens_k,H,HK,D,causal,window,sinks,dtype,sm_scale", VARLEN,
                         ids=[_varlen_id(c) for c in VARLEN])
def test_varlen_matches_float32_reference(lens_q, lens_k, H, HK, D, causal, window, sinks, dtype, sm_scale):
    _need_varlen()
    lens_k = lens_k or lens_q
    q, k, v, do, cu_q, cu_k = _varlen_inputs(lens_q, lens_k, H, HK, D, dtype)
    o, lse, grads = _run_varlen(q, k, v, do, cu_q, cu_k, lens_q, lens_k, causal, window, sinks, sm_scale)
    qr, kr, vr = (t.float().requires_grad_() for t in (q, k, v))
    ref, ref_lse = varlen_reference(qr, kr, vr, cu_q, cu_k, causal, sm_scale, window, sinks)
    ref.backward(do.float())
    ref_grads = [_grad_or_zero(t) for t in (qr, kr, vr)]
    assert o.dtype == dtype and o.shape == q.shape
    assert lse.shape == (H, q.shape[0])
    assert torch.isfinite(o).all()
    assert _rel(o, ref) < O_TOL, ("o", _rel(o, ref))
    _check_lse(lse, ref_lse)
    _check_grads(zip(("dq", "dk", "dv"), grads, ref_grads), dtype)
    # Rows that see no key: output and dq exactly 0; keys that no query sees: dk, dv exactly 0.
    dead_q, dead_k = (m.cuda() for m in varlen_dead_rows(cu_q, cu_k, causal, window, sinks))
    if dead_q.any():
        assert (o[dead_q] == 0).all(), "rows with no visible key must be 0"
        assert (grads[0][dead_q] == 0).all(), "dq of rows with no visible key must be 0"
    if dead_k.any():
        assert (grads[1][dead_k] == 0).all() and (grads[2][dead_k] == 0).all(), "dk/dv of keys no query sees"


def test_varlen_without_grad_and_without_lse():
    _need_varlen()
    lens = [1, 777, 3001]
    q, k, v, _, cu, _ = _varlen_inputs(lens, lens, 4, 2, 128, torch.bfloat16)
    with torch.no_grad():
        o = txl.ops.flash_attention_varlen(q, k, v, cu, cu, max(lens), max(lens), causal=True, window=(256, 0),
                                           num_sink_tokens=4)
    assert isinstance(o, torch.Tensor) and o.shape == q.shape and o.dtype == q.dtype
    ref, _ = varlen_reference(q, k, v, cu, cu, True, None, (256, 0), 4)
    assert _rel(o, ref) < O_TOL


def test_varlen_single_sequence_matches_dense():
    # One sequence packed = the dense op with B = 1 (same mask), on the same data.
    _need_varlen()
    N, H, HK, D = 1000, 4, 2, 128
    q, k, v, _, cu, _ = _varlen_inputs([N], [N], H, HK, D, torch.bfloat16)
    kw = dict(causal=True, window=(200, 0), num_sink_tokens=4)
    o_v = txl.ops.flash_attention_varlen(q, k, v, cu, cu, N, N, **kw)
    o_d = txl.ops.flash_attention(*(t.transpose(0, 1).unsqueeze(0).contiguous() for t in (q, k, v)), **kw)
    assert _rel(o_v, o_d[0].transpose(0, 1).float()) < O_TOL


def test_varlen_deterministic_dq_is_bit_identical():
    _need_varlen()
    lens_q, lens_k = [1, 777, 3001], [5, 700, 3100]
    q, k, v, do, cu_q, cu_k = _varlen_inputs(lens_q, lens_k, 4, 2, 128, torch.bfloat16)
    runs = [_run_varlen(q, k, v, do, cu_q, cu_k, lens_q, lens_k, True, (256, 0), 4, deterministic=True)
            for _ in range(2)]
    assert torch.equal(runs[0][2][0], runs[1][2][0]), "deterministic=True: dq differs between two runs"
    qr, kr, vr = (t.float().requires_grad_() for t in (q, k, v))
    ref, _ = varlen_reference(qr, kr, vr, cu_q, cu_k, True, None, (256, 0), 4)
    ref.backward(do.float())
    _check_grads(zip(("dq", "dk", "dv"), runs[0][2], (qr.grad, kr.grad, vr.grad)), torch.bfloat16)


# -----------------------------------------------------------------------------------------------------------------
# Argument errors on CUDA tensors (the same table as the CPU file; no kernel is launched)
# -----------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", BAD_DENSE, ids=[c[0] for c in BAD_DENSE])
def test_dense_bad_arguments_raise(case):
    _need_varlen()
    call_bad(torch, "cuda", case, varlen=False)


@pytest.mark.parametrize("case", BAD_VARLEN, ids=[c[0] for c in BAD_VARLEN])
def test_varlen_bad_arguments_raise(case):
    _need_varlen()
    call_bad(torch, "cuda", case, varlen=True)


def test_reference_mask_sanity():
    # The reference mask on the GPU agrees with its CPU build (guards the device= path of the helper).
    m = visible_mask(777, 700, (128, 0), 4, True, device="cuda")
    assert torch.equal(m.cpu(), visible_mask(777, 700, (128, 0), 4, True))
