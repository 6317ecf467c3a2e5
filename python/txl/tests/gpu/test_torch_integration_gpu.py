"""txl inside PyTorch programs, on a GPU: torch.compile(fullgraph=True) through txl.ops.flash_attention (a torch
custom op), CUDA-graph capture of it and of a @txl.jit launch, and the fast launch path (same fingerprint, new
addresses, sizes and descriptor shapes). Skipped without a GPU."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

import txl  # noqa: E402
from txl.tests.gpu.dsl_cases import attention_reference as _ref  # noqa: E402
from txl.kernels.vector_add import vector_add  # noqa: E402

pytestmark = pytest.mark.gpu


def _qkv(B=2, H=4, N=1000, D=128, HK=None, dtype=torch.bfloat16):
    q = torch.randn(B, H, N, D, device="cuda", dtype=dtype)
    k, v = (torch.randn(B, HK or H, N, D, device="cuda", dtype=dtype) for _ in range(2))
    return q, k, v


def _close(o, ref):
    assert not torch.isnan(o).any()
    err = ((o.float() - ref).norm() / ref.norm()).item()
    assert err < 1e-2, err


def test_custom_op_is_registered_and_checked():
    from txl.ops import attention as A

    op = A._custom_op()
    q, k, v = _qkv(1, 2, 256, 64)
    torch.library.opcheck(op, (q, k, v, True, 0.125, "fa3", False, A.BIG, A.BIG, 0),
                          test_utils=("test_schema", "test_faketensor"))
    # A sliding window with sink tokens goes through the same op.
    torch.library.opcheck(op, (q, k, v, False, 0.125, "fa3", False, 64, 0, 4), test_utils=("test_schema",
                                                                                         "test_faketensor"))
    assert hasattr(torch.ops.txl, "flash_attention")


def test_torch_compile_fullgraph():
    q, k, v = _qkv(2, 4, 1000, 128, HK=2)

    def block(q, k, v):
        return txl.ops.flash_attention(q * 1.0, k, v, causal=True).float() * 2.0

    compiled = torch.compile(block, fullgraph=True)
    out = compiled(q, k, v)
    _close(out / 2.0, _ref(q, k, v, True))
    q2, k2, v2 = _qkv(2, 4, 1000, 128, HK=2)  # fresh data, same shapes: no recompilation needed
    _close(compiled(q2, k2, v2) / 2.0, _ref(q2, k2, v2, True))


def test_cuda_graph_flash_attention():
    q, k, v = _qkv(1, 8, 777, 64)
    txl.ops.flash_attention(q, k, v, causal=True)  # first call of the shape: autotune + compile, before capture
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = txl.ops.flash_attention(q, k, v, causal=True)
    for _ in range(2):
        for t in (q, k, v):
            t.copy_(torch.randn_like(t))
        g.replay()
        torch.cuda.synchronize()
        _close(out, _ref(q, k, v, True))


def test_cuda_graph_refuses_first_call_with_a_clear_error():
    q, k, v = _qkv(1, 2, 333, 64)  # a shape not seen before
    g = torch.cuda.CUDAGraph()
    with pytest.raises(RuntimeError, match="call it once with this shape before capturing"):
        with torch.cuda.graph(g):
            txl.ops.flash_attention(q, k, v)


def test_cuda_graph_jit_launch():
    n = 5000
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    z = torch.empty_like(x)
    grid = (triton_cdiv(n, 1024),)
    vector_add[grid](x, y, z, n, BLOCK=1024)  # compiled and checked once before capture
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        vector_add[grid](x, y, z, n, BLOCK=1024)
    x.copy_(torch.randn_like(x))
    z.zero_()
    g.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(z, x + y)


def triton_cdiv(a, b):
    return (a + b - 1) // b


def test_fast_path_follows_new_addresses_and_sizes():
    # The second and later launches take the fast path: new tensors, new n (same int class), a grid callable.
    for n in (4096, 8192, 1000, 1000, 123457):
        x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
        z = torch.full_like(x, float("nan"))
        vector_add[lambda meta: (triton_cdiv(meta["n"], meta["BLOCK"]),)](x, y, z, n, BLOCK=1024)
        torch.testing.assert_close(z, x + y)
    # A CPU tensor with an otherwise cached fingerprint still gets the checked path's error.
    with pytest.raises(ValueError, match="cpu"):
        vector_add[(1,)](x.cpu(), y, z, n, BLOCK=1024)


def test_flash_attention_plans_follow_new_data_and_lse():
    for _ in range(3):
        q, k, v = _qkv(2, 4, 1000, 64, HK=1, dtype=torch.float16)
        o, lse = txl.ops.flash_attention(q, k, v, return_lse=True)
        _close(o, _ref(q, k, v, False))
        g = q.shape[1]
        s = q.float() @ k.float().repeat_interleave(g, dim=1).transpose(-1, -2) / 8.0
        torch.testing.assert_close(lse, s.logsumexp(-1), atol=1e-3, rtol=1e-4)
    # Non-contiguous inputs are copied (a view of a (B, N, H, D) tensor).
    base = torch.randn(2, 1000, 4, 64, device="cuda", dtype=torch.bfloat16)
    qt = base.transpose(1, 2)
    _close(txl.ops.flash_attention(qt, qt, qt, causal=True), _ref(qt, qt, qt, True))


def test_requires_grad_goes_through_the_op():
    q, k, v = _qkv(1, 2, 256, 64)
    q.requires_grad_(True)
    o = txl.ops.flash_attention(q, k, v)
    assert o.requires_grad
    o.sum().backward()  # the gradients themselves are checked in test_attention_bwd_gpu.py
    assert q.grad is not None and q.grad.shape == q.shape and not torch.isnan(q.grad).any()
    assert k.grad is None and v.grad is None
