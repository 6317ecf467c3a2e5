"""The attention backward with asymmetric head dims (q/k D, v D_v < D: flash_attention_bwd_asym): dQ, dK, dV against
float32 torch autograd on fresh random data, causal or not, N a multiple of the block or not, GQA/MQA (with and
without the query-head split), fp16 / bf16. The backward is called directly (``_attention_bwd.backward``) with o
and the base-2 log-sum-exp M computed in float32 here, so it is checked whatever the forward supports; one test
goes through ``txl.ops.flash_attention(...).backward()`` where the forward takes the pair."""

import math

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

import txl  # noqa: E402
from txl.ops import _attention_bwd as AB  # noqa: E402
from txl.ops.attention import padded_len  # noqa: E402

pytestmark = pytest.mark.gpu


def _expand(q, k, v):
    group = q.shape[1] // k.shape[1]
    return k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)


def _scores(q, k, causal, sm_scale):
    s = (q.float() @ k.float().transpose(-1, -2)) * sm_scale
    if causal:
        n = q.shape[2]
        s = s.masked_fill(torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    return s


def _rel(a, b):
    return ((a.float() - b).norm() / b.norm().clamp_min(1e-3 * b.numel() ** 0.5)).item()


CASES = [  # B, H, H_KV, N, D, D_v, causal, dtype
    (2, 4, 4, 512, 192, 128, False, torch.bfloat16),
    (1, 4, 4, 1000, 192, 128, True, torch.bfloat16),
    (2, 8, 2, 777, 192, 128, False, torch.float16),  # GQA, split
    (2, 8, 1, 1000, 192, 128, True, torch.bfloat16),  # MQA, split
    (1, 2, 2, 64, 192, 128, False, torch.float16),
    (1, 4, 2, 333, 256, 128, True, torch.bfloat16),
    (2, 4, 4, 256, 256, 128, False, torch.float16),
]


@pytest.mark.parametrize("B,H,HK,N,D,DV,causal,dtype", CASES)
def test_asym_gradients_match_float32_reference(B, H, HK, N, D, DV, causal, dtype):
    sm_scale = D ** -0.5
    q = torch.randn(B, H, N, D, device="cuda", dtype=dtype)
    k = torch.randn(B, HK, N, D, device="cuda", dtype=dtype)
    v = torch.randn(B, HK, N, DV, device="cuda", dtype=dtype)
    do = torch.randn(B, H, N, DV, device="cuda", dtype=dtype)
    qr, kr, vr = (t.float().requires_grad_() for t in (q, k, v))
    ke, ve = _expand(qr, kr, vr)
    s = _scores(qr, ke, causal, sm_scale)
    ref = torch.softmax(s, -1) @ ve
    ref.backward(do.float())
    with torch.no_grad():
        n_pad = padded_len(N)
        m = torch.zeros(B * H, n_pad, device="cuda", dtype=torch.float32)
        m[:, :N] = (torch.logsumexp(s, -1) / math.log(2)).reshape(B * H, N)
        o = ref.detach().to(dtype)
    dq, dk, dv = AB.backward(do, q, k, v, o, m, causal, sm_scale)
    for name, g, r in (("dq", dq, qr.grad), ("dk", dk, kr.grad), ("dv", dv, vr.grad)):
        assert g.dtype == dtype and g.shape == r.shape, name
        assert torch.isfinite(g).all(), name
        assert _rel(g, r) < 2e-2, (name, _rel(g, r))


def test_asym_through_the_op():
    B, H, HK, N, D, DV = 1, 4, 2, 300, 192, 128
    q = torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(B, HK, N, D, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(B, HK, N, DV, device="cuda", dtype=torch.bfloat16)
    do = torch.randn(B, H, N, DV, device="cuda", dtype=torch.bfloat16)
    qt, kt, vt = (t.clone().requires_grad_() for t in (q, k, v))
    try:
        out = txl.ops.flash_attention(qt, kt, vt, causal=True)
    except (NotImplementedError, ValueError) as e:  # the forward of another change; the direct test covers ours
        pytest.skip("forward does not take (192, 128) here: %s" % e)
    out.backward(do)
    qr, kr, vr = (t.float().requires_grad_() for t in (q, k, v))
    ke, ve = _expand(qr, kr, vr)
    (torch.softmax(_scores(qr, ke, True, D ** -0.5), -1) @ ve).backward(do.float())
    for g, r in ((qt.grad, qr.grad), (kt.grad, kr.grad), (vt.grad, vr.grad)):
        assert _rel(g, r) < 2e-2


def test_asym_refuses_what_it_has_no_kernel_for():
    q = torch.randn(1, 2, 128, 192, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(1, 2, 128, 192, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(1, 2, 128, 128, device="cuda", dtype=torch.bfloat16)
    m = torch.zeros(2, 128, device="cuda")
    o, do = (torch.randn(1, 2, 128, 128, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    with pytest.raises(NotImplementedError, match="deterministic"):
        AB.backward(do, q, k, v, o, m, False, 0.1, deterministic=True)
    with pytest.raises(NotImplementedError, match="asymmetric head dims"):
        AB.backward(do[..., :64], q, k, v[..., :64], o[..., :64], m, False, 0.1)
