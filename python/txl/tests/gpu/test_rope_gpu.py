"""txl.ops.rope.apply_rope on the GPU: q and k rotated by one launch against a float32 torch reference
(non-interleaved and interleaved, head dims 64/128/256, a rotary dim below the head dim, fp16 and bf16, float32 and
16-bit cos/sin, GQA head counts, N not a multiple of the row block, strided and unaligned inputs, packed sequences
with cu_seqlens), the backward against torch autograd of the reference, the custom op's registration (opcheck) and
torch.compile through it. Timing: bench/rope.py."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.ops.rope import apply_rope, rope_reference  # noqa: E402

pytestmark = pytest.mark.gpu

# The kernel computes in float32 and rounds once: within one unit in the last place of the output dtype.
_TOL = {torch.bfloat16: dict(rtol=2 ** -7, atol=1e-3), torch.float16: dict(rtol=2 ** -10, atol=1e-3)}


def _tables(n, half, dtype=torch.float32, base=10000.0):
    inv = 1.0 / base ** (torch.arange(0, half, device="cuda", dtype=torch.float32) / half)
    theta = torch.arange(n, device="cuda", dtype=torch.float32)[:, None] * inv[None, :]
    return theta.cos().to(dtype), theta.sin().to(dtype)


def _check(out, ref, x, rot):
    tol = _TOL[out.dtype]
    torch.testing.assert_close(out.float(), ref, **tol)
    if rot < x.shape[-1]:  # columns past the rotary dim: copied bit for bit
        assert torch.equal(out[..., rot:], x[..., rot:])


@pytest.mark.parametrize("interleaved", [False, True], ids=["neox", "gptj"])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("head_dim,rot", [(64, 64), (128, 128), (128, 64), (128, 96), (256, 256), (80, 48)])
def test_forward(interleaved, dtype, head_dim, rot):
    torch.manual_seed(0)
    B, H, HK, N = 2, 4, 2, 300  # N: not a multiple of the row block; GQA head counts
    q = torch.randn(B, H, N, head_dim, device="cuda", dtype=dtype)
    k = torch.randn(B, HK, N, head_dim, device="cuda", dtype=dtype)
    cos, sin = _tables(N + 17, rot // 2)  # more positions than N, as a model's tables have
    oq, ok = apply_rope(q, k, cos, sin, interleaved=interleaved)
    assert oq.shape == q.shape and ok.shape == k.shape and oq.dtype == dtype and oq.is_contiguous()
    rq, rk = rope_reference(q, k, cos, sin, interleaved)
    _check(oq, rq, q, rot)
    _check(ok, rk, k, rot)


@pytest.mark.parametrize("interleaved", [False, True], ids=["neox", "gptj"])
@pytest.mark.parametrize("cos_dtype", [torch.bfloat16, torch.float16])
def test_16bit_tables(interleaved, cos_dtype):
    torch.manual_seed(1)
    q = torch.randn(1, 3, 257, 128, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(1, 1, 257, 128, device="cuda", dtype=torch.bfloat16)
    cos, sin = _tables(257, 64, cos_dtype)
    oq, ok = apply_rope(q, k, cos, sin, interleaved=interleaved)
    rq, rk = rope_reference(q, k, cos, sin, interleaved)  # the same (rounded) table values, in float32
    _check(oq, rq, q, 128)
    _check(ok, rk, k, 128)


@pytest.mark.parametrize("interleaved", [False, True], ids=["neox", "gptj"])
def test_strided_and_unaligned_inputs(interleaved):
    torch.manual_seed(2)
    B, N, H, D = 2, 130, 4, 128
    # q, k as views of a (B, N, 3, H, D) qkv projection: no copy, strides of the packed layout.
    qkv = torch.randn(B, N, 3, H, D, device="cuda", dtype=torch.float16)
    q, k = qkv[:, :, 0].transpose(1, 2), qkv[:, :, 1].transpose(1, 2)
    cos, sin = _tables(N, 48)
    oq, ok = apply_rope(q, k, cos, sin, interleaved=interleaved)
    rq, rk = rope_reference(q, k, cos, sin, interleaved)
    _check(oq, rq, q, 96)
    _check(ok, rk, k, 96)
    # A base address 4 bytes past 16-byte alignment and a non-contiguous cos table: scalar accesses, same result.
    flat = torch.randn(B * H * N * D + 2, device="cuda", dtype=torch.float16)
    qu = flat[2:].view(B, H, N, D)
    wide = torch.randn(N, 128, device="cuda")
    cu_, su_ = wide[:, :64:2], wide[:, 64::2]  # column stride 2: copied to a contiguous head dim first
    oq, ok = apply_rope(qu, k, cu_, su_, interleaved=interleaved)
    rq, rk = rope_reference(qu, k, cu_, su_, interleaved)
    _check(oq, rq, qu, 64)
    _check(ok, rk, k, 64)


@pytest.mark.parametrize("interleaved", [False, True], ids=["neox", "gptj"])
@pytest.mark.parametrize("given_max", [False, True])
def test_packed_sequences(interleaved, given_max):
    torch.manual_seed(3)
    lens = [5, 0, 128, 200, 1]
    cu = torch.tensor([0] + list(torch.tensor(lens).cumsum(0)), dtype=torch.int32, device="cuda")
    total, H, HK, D = sum(lens), 8, 2, 128
    q = torch.randn(total, H, D, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(total, HK, D, device="cuda", dtype=torch.bfloat16)
    cos, sin = _tables(256, 64)
    oq, ok = apply_rope(q, k, cos, sin, interleaved=interleaved, cu_seqlens=cu,
                        max_seqlen=max(lens) if given_max else None)
    rq, rk = rope_reference(q, k, cos, sin, interleaved, cu_seqlens=cu)
    _check(oq, rq, q, D)
    _check(ok, rk, k, D)
    # Packed equals dense for one sequence of each length.
    start = 5 + 0
    dq, _ = apply_rope(q[start:start + 128].transpose(0, 1)[None], k[start:start + 128].transpose(0, 1)[None],
                       cos, sin, interleaved=interleaved)
    torch.testing.assert_close(dq[0].transpose(0, 1), oq[start:start + 128], rtol=0, atol=0)


@pytest.mark.parametrize("interleaved", [False, True], ids=["neox", "gptj"])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("head_dim,rot", [(64, 64), (128, 128), (128, 96)])
def test_backward(interleaved, dtype, head_dim, rot):
    torch.manual_seed(4)
    B, H, HK, N = 2, 4, 1, 200
    q = torch.randn(B, H, N, head_dim, device="cuda", dtype=dtype, requires_grad=True)
    k = torch.randn(B, HK, N, head_dim, device="cuda", dtype=dtype, requires_grad=True)
    cos, sin = _tables(N, rot // 2)
    gq, gk = torch.randn_like(q), torch.randn_like(k)
    oq, ok = apply_rope(q, k, cos, sin, interleaved=interleaved)
    torch.autograd.backward((oq, ok), (gq, gk))
    q32, k32 = q.detach().float().requires_grad_(), k.detach().float().requires_grad_()
    rq, rk = rope_reference(q32, k32, cos, sin, interleaved)
    torch.autograd.backward((rq, rk), (gq.float(), gk.float()))
    _check(q.grad, q32.grad, gq, rot)
    _check(k.grad, k32.grad, gk, rot)


def test_backward_of_one_output_and_packed():
    # Only q_rot used: k gets a zero gradient; packed sequences rotate their gradient by position too.
    torch.manual_seed(5)
    cu = torch.tensor([0, 70, 250], dtype=torch.int32, device="cuda")
    q = torch.randn(250, 4, 64, device="cuda", dtype=torch.float16, requires_grad=True)
    k = torch.randn(250, 4, 64, device="cuda", dtype=torch.float16, requires_grad=True)
    cos, sin = _tables(180, 32)
    oq, _ = apply_rope(q, k, cos, sin, interleaved=True, cu_seqlens=cu, max_seqlen=180)
    gq = torch.randn_like(oq)
    oq.backward(gq)
    q32 = q.detach().float().requires_grad_()
    rq, _ = rope_reference(q32, k.detach().float(), cos, sin, True, cu_seqlens=cu)
    rq.backward(gq.float())
    _check(q.grad, q32.grad, gq, 64)
    assert k.grad is None or not k.grad.any()


def test_inverse_rotation_round_trip():
    torch.manual_seed(6)
    q = torch.randn(1, 2, 64, 128, device="cuda", dtype=torch.float32).to(torch.bfloat16)
    cos, sin = _tables(64, 64)
    oq, _ = apply_rope(q, q, cos, sin)
    back, _ = apply_rope(oq, oq, cos, -sin)
    torch.testing.assert_close(back.float(), q.float(), rtol=2 ** -6, atol=2e-2)


def test_custom_op_registration():
    from txl.ops import rope as R

    op = R._custom_op()
    q = torch.randn(1, 2, 64, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    k = torch.randn(1, 1, 64, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    cos, sin = _tables(64, 32)
    torch.library.opcheck(op, (q, k, cos, sin, False, False, None, -1),
                          test_utils=("test_schema", "test_autograd_registration", "test_faketensor"))


def test_torch_compile_fullgraph():
    from txl.ops import rope as R

    R._custom_op()  # registered before tracing (as any earlier call does)
    torch.manual_seed(7)
    q = torch.randn(2, 4, 96, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    k = torch.randn(2, 2, 96, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    cos, sin = _tables(96, 64)

    def f(q, k):
        oq, ok = apply_rope(q, k, cos, sin, interleaved=False)
        return (oq.float() * 2).sum() + ok.float().square().sum()

    loss = torch.compile(f, fullgraph=True, backend="aot_eager")(q, k)
    loss.backward()
    q32, k32 = q.detach().float().requires_grad_(), k.detach().float().requires_grad_()
    rq, rk = rope_reference(q32, k32, cos, sin, False)
    ((rq * 2).sum() + rk.square().sum()).backward()
    torch.testing.assert_close(loss.float(), ((rq * 2).sum() + rk.square().sum()).detach(), rtol=1e-2, atol=1.0)
    _check(q.grad, q32.grad, q, 128)
    torch.testing.assert_close(k.grad.float(), k32.grad, rtol=2 ** -6, atol=2e-2)
