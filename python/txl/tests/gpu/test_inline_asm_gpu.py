"""GPU test of tl.inline_asm_elementwise: the kernels of test_inline_asm.py (Triton's test_inline_asm* forms, a
broadcast 2-D case, fp16 packed two per register, fla's safe_dot and softplus helpers with only their imports
swapped) run on fresh random data and are checked against torch (skipped without CUDA)."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.tests import test_inline_asm as K  # noqa: E402

pytestmark = pytest.mark.gpu
DEV = "cuda"


def _u32(n):
    """Random uint32 values as an int64 tensor (the reference's type) and as the uint32 tensor the kernel reads."""
    v = torch.randint(0, 2 ** 32, (n,), dtype=torch.int64, device=DEV)
    return v, v.to(torch.int32).view(torch.uint32) if hasattr(torch, "uint32") else None


def test_funnel_shift():
    if not hasattr(torch, "uint32"):
        pytest.skip("torch has no uint32")
    n = 1024
    x, xu = _u32(n)
    y, yu = _u32(n)
    s = torch.randint(0, 64, (n,), dtype=torch.int64, device=DEV)  # shf.l.wrap takes the amount mod 32
    su = s.to(torch.int32).view(torch.uint32)
    z = torch.empty(n, dtype=torch.uint32, device=DEV)
    K.shf_kernel[(1,)](xu, yu, su, z, BLOCK=n)
    k = s % 32
    ref = ((y << k) | (x >> (32 - k))) & 0xFFFFFFFF
    got = z.view(torch.int32).to(torch.int64) & 0xFFFFFFFF
    torch.testing.assert_close(got, ref, rtol=0, atol=0)


def test_packed_bytes():
    n = 1024
    x = torch.randint(0, 256, (n,), dtype=torch.uint8, device=DEV)
    z = torch.empty_like(x)
    K.packed_kernel[(1,)](x, z, BLOCK=n)
    torch.testing.assert_close(z, ((x.to(torch.int32) & 0x1F) << 3).to(torch.uint8), rtol=0, atol=0)


def test_two_outputs():
    n = 1024
    a = torch.randint(0, 256, (n,), dtype=torch.uint8, device=DEV)
    b = torch.randint(-2 ** 31, 2 ** 31 - 1, (n,), dtype=torch.int32, device=DEV)
    if not hasattr(torch, "uint32"):
        pytest.skip("torch has no uint32")
    c = torch.empty(n, dtype=torch.uint32, device=DEV)
    d = torch.empty(n, dtype=torch.int32, device=DEV)
    K.two_outputs_kernel[(1,)](a, b, c, d, BLOCK=n)
    torch.testing.assert_close(c.view(torch.int32).to(torch.int64), a.to(torch.int64), rtol=0, atol=0)
    torch.testing.assert_close(d.to(torch.int64), (-b.to(torch.int64) + 2 ** 31) % 2 ** 32 - 2 ** 31, rtol=0,
                               atol=0)


def test_pointer_operands():
    n = 512
    x = torch.randint(0, 256, (n,), dtype=torch.uint8, device=DEV)
    y = torch.empty_like(x)
    K.pointer_kernel[(1,)](x, y, BLOCK=n)
    torch.testing.assert_close(y, ((x.to(torch.int32) << 3) & 0xFF).to(torch.uint8), rtol=0, atol=0)


def test_broadcast_tile_row_scalar_impure():
    m, n = 32, 64
    x = torch.randn(m, n, device=DEV)
    z = torch.empty_like(x)
    K.broadcast_kernel[(1,)](x, z, 0.75, M=m, N=n)
    row = torch.arange(1, n + 1, device=DEV, dtype=torch.float64)[None, :]
    torch.testing.assert_close(z.double(), x.double() * row + 0.75, rtol=1e-6, atol=1e-6)


def test_fp16_two_per_register():
    n = 2048
    x = torch.randn(n, device=DEV, dtype=torch.float16)
    z = torch.empty_like(x)
    K.half_pack_kernel[(1,)](x, z, BLOCK=n)
    torch.testing.assert_close(z, -x, rtol=0, atol=0)


def test_asm_without_arguments():
    # fla's PDL hint (griddepcontrol.launch_dependents) before ordinary work: the kernel still computes y = x + 1.
    x = torch.randn(256, device=DEV)
    y = torch.empty_like(x)
    K.pdl_kernel[(1,)](x, y, BLOCK=256)
    torch.testing.assert_close(y, x + 1.0, rtol=0, atol=0)


def test_fla_safe_dot():
    m, n, k = 64, 64, 32
    a = torch.randn(m, k, device=DEV, dtype=torch.float16)
    b = torch.randn(k, n, device=DEV, dtype=torch.float16)
    c = torch.empty(m, n, device=DEV, dtype=torch.float32)
    K.safe_dot_kernel[(1,)](a, b, c, M=m, N=n, K=k)
    torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-3, atol=1e-3)


def test_fla_softplus(tmp_path):
    K._FLA["softplus"] = K._fla_softplus(tmp_path)
    n = 1024
    x = torch.randn(n, device=DEV) * 8
    y = torch.empty_like(x)
    z = torch.empty_like(x)
    K.fla_softplus_kernel[(1,)](x, y, z, BLOCK=n)
    xd = x.double()
    ref = torch.where(xd > 20.0, xd, torch.log1p(torch.exp(xd)))
    ref2 = torch.where(xd > 15.0, xd, torch.log2(1 + torch.exp2(xd)))
    # ex2 / lg2 .approx.ftz: lg2 has an absolute error up to ~2^-22.6 (and 1 + e^x rounds): atol 1e-6
    torch.testing.assert_close(y.double(), ref, rtol=2e-6, atol=1e-6)
    torch.testing.assert_close(z.double(), ref2, rtol=2e-6, atol=1e-6)
