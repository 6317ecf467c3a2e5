"""GPU test of fp8 conversions in kernels (gpu/fp8_cases.py): the bytes a kernel writes for f32 -> fp8 equal
torch's .to(torch.float8_e4m3fn / float8_e5m2) of the same values (round to nearest even; torch saturates e4m3
too, and e5m2 values beyond the range are compared as the largest finite value, which cvt.satfinite gives), and
fp8 -> f32 is exact (skipped without CUDA)."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.tests.gpu.fp8_cases import fp8_roundtrip  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("e4", [True, False], ids=["e4m3", "e5m2"])
def test_fp8_conversions_match_torch(e4):
    torch.manual_seed(0)
    dt = torch.float8_e4m3fn if e4 else torch.float8_e5m2
    n = 5000  # not a multiple of the block: masked tail; odd per-thread pairs are exercised by the mask
    x = torch.randn(n, device="cuda") * 40
    big = torch.finfo(dt).max
    x[:4] = torch.tensor([0.0, -0.0, big * 2, -big * 2])  # saturates (satfinite)
    y = torch.empty(n, device="cuda", dtype=dt)
    z = torch.empty(n, device="cuda", dtype=torch.float32)
    fp8_roundtrip[(triton_cdiv(n, 1024),)](x, y, z, n, E4=e4, BLOCK=1024)
    want = x.clamp(-big, big).to(dt)
    assert torch.equal(y.view(torch.uint8), want.view(torch.uint8))
    assert torch.equal(z, want.to(torch.float32))


def triton_cdiv(a, b):
    return (a + b - 1) // b
