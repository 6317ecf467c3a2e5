"""The attention backward on small shapes (MQA/GQA and MHA), where the dK/dV kernel splits each key block's walk
over the query heads and blocks among several CTAs (``_attention_bwd.split_walk``) and a combine kernel sums their
f32 partials: dQ, dK, dV against float32 torch autograd on fresh random data (H_KV 1, 2 and MHA, N 1000 / 777 /
128 / 64, head dims 64 / 128 / 256, fp16 / bf16, causal or not, deterministic or not), each case first checked to
take the split path; deterministic=True bit-identical from run to run through the split path; repeated calls
through the per-shape launch plan."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

import txl  # noqa: E402
from txl.ops import _attention_bwd as AB  # noqa: E402
from txl.ops.attention import padded_len  # noqa: E402

pytestmark = pytest.mark.gpu


def _reference(q, k, v, causal, sm_scale):
    q, k, v = q.float(), k.float(), v.float()
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
    s = (q @ k.transpose(-1, -2)) * sm_scale
    if causal:
        n = q.shape[2]
        s = s.masked_fill(torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    return torch.softmax(s, -1) @ v


def _rel(a, b):
    return ((a.float() - b).norm() / b.norm().clamp_min(1e-3 * b.numel() ** 0.5)).item()


def _split_of(B, H, HK, N, D):
    n_pad = padded_len(N)
    block_n = 64 if D == 256 else AB.BLOCK_N
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    return AB.split_walk(n_pad // block_n, B * HK, H // HK, n_pad // AB.BLOCK_M, sms)


CASES = [  # B, H, H_KV, N, D, causal, dtype, deterministic
    (2, 8, 1, 1000, 64, False, torch.float16, False),  # the row
    (2, 8, 1, 1000, 64, True, torch.float16, False),
    (2, 8, 1, 1000, 64, False, torch.float16, True),
    (1, 8, 2, 1000, 128, False, torch.bfloat16, False),
    (1, 8, 2, 1000, 128, True, torch.bfloat16, True),
    (2, 8, 1, 777, 64, True, torch.bfloat16, False),
    (1, 8, 2, 777, 128, False, torch.float16, False),
    (1, 4, 1, 777, 128, True, torch.float16, True),
    (2, 8, 1, 128, 64, True, torch.bfloat16, False),
    (1, 8, 2, 128, 128, False, torch.float16, True),
    (2, 8, 1, 64, 64, False, torch.bfloat16, False),
    (1, 16, 2, 64, 128, True, torch.float16, False),
    (1, 8, 1, 64, 128, True, torch.bfloat16, True),
    (1, 4, 1, 333, 256, True, torch.bfloat16, False),
    (2, 8, 2, 1000, 256, False, torch.float16, True),
    (1, 4, 2, 777, 128, True, torch.bfloat16, False),  # 7 CTAs per key block: splits fall inside a head
    (1, 4, 4, 777, 128, False, torch.float16, False),  # MHA: a head's query blocks split
    (2, 4, 4, 1000, 64, True, torch.bfloat16, True),
]


@pytest.mark.parametrize("B,H,HK,N,D,causal,dtype,det", CASES)
def test_split_gradients_match_float32_reference(B, H, HK, N, D, causal, dtype, det):
    assert _split_of(B, H, HK, N, D) > 1, "the case must take the split path"
    q = torch.randn(B, H, N, D, device="cuda", dtype=dtype)
    k, v = (torch.randn(B, HK, N, D, device="cuda", dtype=dtype) for _ in range(2))
    do = torch.randn_like(q)
    qt, kt, vt = (t.clone().requires_grad_() for t in (q, k, v))
    out = txl.ops.flash_attention(qt, kt, vt, causal=causal, deterministic=det)
    out.backward(do)
    qr, kr, vr = (t.float().requires_grad_() for t in (q, k, v))
    ref = _reference(qr, kr, vr, causal, D ** -0.5)
    ref.backward(do.float())
    assert _rel(out, ref) < 1e-2
    for name, g, r in (("dq", qt.grad, qr.grad), ("dk", kt.grad, kr.grad), ("dv", vt.grad, vr.grad)):
        assert g.dtype == dtype and g.shape == r.shape, name
        assert torch.isfinite(g).all(), name
        assert _rel(g, r) < 2e-2, (name, _rel(g, r))


@pytest.mark.parametrize("B,H,HK,N,D,causal", [(2, 8, 1, 1000, 64, False), (1, 8, 2, 777, 128, True),
                                               (1, 4, 1, 200, 256, False)])
def test_split_deterministic_is_bit_identical(B, H, HK, N, D, causal):
    assert _split_of(B, H, HK, N, D) > 1
    q = torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16)
    k, v = (torch.randn(B, HK, N, D, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    do = torch.randn_like(q)
    grads = []
    for _ in range(3):
        qt, kt, vt = (t.clone().requires_grad_() for t in (q, k, v))
        txl.ops.flash_attention(qt, kt, vt, causal=causal, deterministic=True).backward(do)
        grads.append((qt.grad, kt.grad, vt.grad))
    for g in grads[1:]:
        for a, b in zip(g, grads[0]):
            assert torch.equal(a, b)


def test_split_matches_unsplit_kernel(monkeypatch):
    # The same inputs through the split path and, with the rule forced to 1, the single-CTA-per-key-block path:
    # dK/dV agree to the rounding of the two summation orders (f32 partials vs one f32 accumulator).
    B, H, HK, N, D = 2, 8, 1, 1000, 64
    q = torch.randn(B, H, N, D, device="cuda", dtype=torch.float16)
    k, v = (torch.randn(B, HK, N, D, device="cuda", dtype=torch.float16) for _ in range(2))
    do = torch.randn_like(q)
    res = []
    for force in (None, 1):
        if force is not None:
            monkeypatch.setattr(AB, "split_walk", lambda *a: force)
        qt, kt, vt = (t.clone().requires_grad_() for t in (q, k, v))
        txl.ops.flash_attention(qt, kt, vt, deterministic=True).backward(do)
        res.append((qt.grad, kt.grad, vt.grad))
    for a, b in zip(*res):
        assert _rel(a, b.float()) < 2e-3


@pytest.mark.parametrize("B,H,HK,N,D,causal,det", [(2, 8, 1, 1000, 64, False, False), (1, 4, 4, 333, 128, True, False),
                                                   (1, 4, 2, 200, 256, False, True), (2, 8, 2, 128, 128, True, True)])
def test_repeated_calls_through_the_plan(B, H, HK, N, D, causal, det):
    # The first call of a shape launches through attention.fast_launch and records a _Plan; later calls launch
    # through it with their own tensors (new addresses, fresh data): each call's gradients must match.
    AB._plans.clear()
    for i in range(3):
        q = torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16)
        k, v = (torch.randn(B, HK, N, D, device="cuda", dtype=torch.bfloat16) for _ in range(2))
        do = torch.randn_like(q)
        qt, kt, vt = (t.clone().requires_grad_() for t in (q, k, v))
        txl.ops.flash_attention(qt, kt, vt, causal=causal, deterministic=det).backward(do)
        assert len(AB._plans) == 1, "the first call records the plan, later ones reuse it"
        qr, kr, vr = (t.float().requires_grad_() for t in (q, k, v))
        _reference(qr, kr, vr, causal, D ** -0.5).backward(do.float())
        for name, g, r in (("dq", qt.grad, qr.grad), ("dk", kt.grad, kr.grad), ("dv", vt.grad, vr.grad)):
            assert _rel(g, r) < 2e-2, (i, name, _rel(g, r))
