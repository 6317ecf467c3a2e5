"""txl.ops.flash_attention's backward on the GPU: dQ, dK, dV against a float32 torch reference on fresh random data
(causal and not, GQA/MQA, N not a multiple of the block, rows of large magnitude, fp16 and bf16), a finite-difference
spot check of the gradient in float64, and torch.compile through the custom op's registered backward."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

import txl  # noqa: E402

pytestmark = pytest.mark.gpu


def _reference(q, k, v, causal, sm_scale, dtype=torch.float32):
    q, k, v = q.to(dtype), k.to(dtype), v.to(dtype)
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
    s = (q @ k.transpose(-1, -2)) * sm_scale
    if causal:
        n = q.shape[2]
        s = s.masked_fill(torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    return torch.softmax(s, -1) @ v


def _inputs(B, H, HK, N, D, dtype, big_rows=False):
    q = torch.randn(B, H, N, D, device="cuda", dtype=dtype)
    k, v = (torch.randn(B, HK, N, D, device="cuda", dtype=dtype) for _ in range(2))
    if big_rows:  # some query rows and keys with large logits: softmax close to one-hot
        q[:, :, ::7] *= 8
        k[:, :, ::5] *= 4
    do = torch.randn(B, H, N, D, device="cuda", dtype=dtype)
    return q, k, v, do


def _rel(a, b):
    # Relative Frobenius error, with a floor for gradients that are zero in exact arithmetic (N = 1: dQ and dK
    # vanish, the kernel returns rounding noise around zero).
    return ((a.float() - b).norm() / b.norm().clamp_min(1e-3 * b.numel() ** 0.5)).item()


CASES = [  # B, H, H_KV, N, D, causal, dtype, big rows
    (2, 4, 4, 1024, 128, False, torch.bfloat16, False),
    (2, 4, 4, 1000, 128, True, torch.bfloat16, False),
    (1, 8, 2, 777, 64, False, torch.float16, False),
    (1, 4, 1, 256, 128, True, torch.float16, False),
    (2, 2, 2, 1, 64, False, torch.bfloat16, False),
    (1, 2, 2, 130, 128, True, torch.bfloat16, False),
    (1, 4, 2, 640, 64, True, torch.bfloat16, True),
    (1, 2, 2, 512, 128, False, torch.bfloat16, True),
    (2, 2, 2, 512, 256, False, torch.bfloat16, False),
    (1, 4, 2, 333, 256, True, torch.bfloat16, False),
    (1, 2, 1, 200, 256, False, torch.float16, True),
]


@pytest.mark.parametrize("B,H,HK,N,D,causal,dtype,big", CASES)
def test_gradients_match_float32_reference(B, H, HK, N, D, causal, dtype, big):
    q, k, v, do = _inputs(B, H, HK, N, D, dtype, big)
    sm_scale = 0.5 / D ** 0.5 if big else None
    qt, kt, vt = (t.clone().requires_grad_() for t in (q, k, v))
    out = txl.ops.flash_attention(qt, kt, vt, causal=causal, sm_scale=sm_scale)
    out.backward(do)
    scale = sm_scale if sm_scale is not None else 1.0 / D ** 0.5
    qr, kr, vr = (t.float().requires_grad_() for t in (q, k, v))
    ref = _reference(qr, kr, vr, causal, scale)
    ref.backward(do.float())
    assert _rel(out, ref) < 1e-2
    for name, g, r in (("dq", qt.grad, qr.grad), ("dk", kt.grad, kr.grad), ("dv", vt.grad, vr.grad)):
        assert g.dtype == dtype and g.shape == r.shape, name
        assert not torch.isnan(g).any(), name
        assert _rel(g, r) < 2e-2, (name, _rel(g, r))


@pytest.mark.parametrize("causal,HK,N,D", [(True, 2, 1000, 128), (False, 4, 333, 64), (True, 2, 200, 256)])
def test_deterministic_dq_is_bit_identical(causal, HK, N, D):
    q, k, v, do = _inputs(2, 4, HK, N, D, torch.bfloat16)
    grads = []
    for _ in range(3):
        qt, kt, vt = (t.clone().requires_grad_() for t in (q, k, v))
        txl.ops.flash_attention(qt, kt, vt, causal=causal, deterministic=True).backward(do)
        grads.append((qt.grad, kt.grad, vt.grad))
    for g in grads[1:]:
        for a, b in zip(g, grads[0]):
            assert torch.equal(a, b)
    qr, kr, vr = (t.float().requires_grad_() for t in (q, k, v))
    _reference(qr, kr, vr, causal, D ** -0.5).backward(do.float())
    for g, r in zip(grads[0], (qr.grad, kr.grad, vr.grad)):
        assert _rel(g, r) < 2e-2


def test_finite_difference_spot_check():
    # d/dt L(q + t u, k + t u', v + t u'') at t = 0 in float64 against <grad, u> from the txl backward, L = <o, w>.
    torch.manual_seed(1)
    q, k, v, w = _inputs(1, 2, 2, 96, 64, torch.bfloat16)
    qt, kt, vt = (t.clone().requires_grad_() for t in (q, k, v))
    (txl.ops.flash_attention(qt, kt, vt, causal=True).float() * w.float()).sum().backward()
    us = [torch.randn_like(t, dtype=torch.float64) for t in (q, k, v)]
    eps = 1e-3

    def loss(t):
        qq, kk, vv = (x.double() + t * u for x, u in zip((q, k, v), us))
        return (_reference(qq, kk, vv, True, 1 / 8, torch.float64) * w.double()).sum()

    fd = ((loss(eps) - loss(-eps)) / (2 * eps)).item()
    an = sum((g.double() * u).sum() for g, u in zip((qt.grad, kt.grad, vt.grad), us)).item()
    assert abs(fd - an) <= 2e-2 * abs(fd) + 1e-3, (fd, an)


def test_torch_compile_backward():
    q, k, v, do = _inputs(1, 4, 2, 384, 128, torch.bfloat16)

    def f(q, k, v):
        return txl.ops.flash_attention(q, k, v, causal=True) * 2.0

    qt, kt, vt = (t.clone().requires_grad_() for t in (q, k, v))
    torch.compile(f, fullgraph=True)(qt, kt, vt).backward(do)
    qr, kr, vr = (t.float().requires_grad_() for t in (q, k, v))
    (_reference(qr, kr, vr, True, 128 ** -0.5) * 2.0).backward(do.float())
    for g, r in ((qt.grad, qr.grad), (kt.grad, kr.grad), (vt.grad, vr.grad)):
        assert _rel(g, r) < 2e-2


def test_sum_backward_and_backward_op_registration():
    # .sum().backward() hands the op an expanded (stride 0) dO; the backward is a custom op of its own.
    q, k, v, _ = _inputs(1, 4, 2, 200, 64, torch.float16)
    qt, kt, vt = (t.clone().requires_grad_() for t in (q, k, v))
    txl.ops.flash_attention(qt, kt, vt).sum().backward()
    qr, kr, vr = (t.float().requires_grad_() for t in (q, k, v))
    _reference(qr, kr, vr, False, 0.125).sum().backward()
    for g, r in ((qt.grad, qr.grad), (kt.grad, kr.grad), (vt.grad, vr.grad)):
        assert _rel(g, r) < 2e-2
    from txl.ops import attention as A

    A._custom_op()
    big = A.BIG  # (BIG, BIG, 0): no window, no sinks
    o, lse, m = torch.ops.txl.flash_attention(q, k, v, False, 0.125, "fa3", False, big, big, 0)
    torch.library.opcheck(torch.ops.txl.flash_attention_backward, (torch.randn_like(o), q, k, v, o, m, False, 0.125,
                                                                   False, big, big, 0), test_utils=("test_schema",
                                                                                       "test_faketensor"))


