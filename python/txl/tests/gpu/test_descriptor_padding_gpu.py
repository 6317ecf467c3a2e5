"""TMA loads that hang past a tensor's edge read NaN with padding="nan" (host txl.TensorDescriptor, and device
tl.make_tensor_descriptor(padding_option="nan")) and 0 with "zero", and the data elsewhere; the host descriptor
also across repeated launches (the NaN-filling descriptor is encoded once, then reused)."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

import txl  # noqa: E402
from txl.tests.gpu.descriptor_padding_kernels import device_desc_copy, tile_copy  # noqa: E402

pytestmark = pytest.mark.gpu

ROWS, BM, BN = 100, 64, 64  # the second program's tile covers rows 64..127: 28 rows past the edge


def _expected(x, fill):
    full = torch.full((2 * BM, BN), fill, device="cuda", dtype=x.dtype)
    full[:ROWS] = x
    return full


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("padding", ["nan", "zero"])
def test_host_descriptor_padding(padding, dtype):
    x = torch.randn(ROWS, BN, device="cuda", dtype=dtype)
    d = txl.TensorDescriptor(x, [ROWS, BN], [BN, 1], [BM, BN], padding=padding)
    for _ in range(3):  # repeated launches reuse the encoded descriptor
        out = torch.zeros(2 * BM * BN, device="cuda", dtype=dtype)
        tile_copy[(2,)](d, out, BM=BM, BN=BN)
        torch.testing.assert_close(out.view(2 * BM, BN), _expected(x, float("nan") if padding == "nan" else 0.0),
                                   rtol=0, atol=0, equal_nan=True)
    assert torch.isnan(out.view(2 * BM, BN)[ROWS:]).all() == (padding == "nan")


@pytest.mark.parametrize("nan", [True, False])
def test_device_descriptor_padding(nan):
    x = torch.randn(ROWS, 32, device="cuda", dtype=torch.float32)
    out = torch.zeros(2 * BM * 32, device="cuda", dtype=torch.float32)
    device_desc_copy[(2,)](x, out, ROWS, BM=BM, BN=32, NAN=nan)
    full = torch.full((2 * BM, 32), float("nan") if nan else 0.0, device="cuda")
    full[:ROWS] = x
    torch.testing.assert_close(out.view(2 * BM, 32), full, rtol=0, atol=0, equal_nan=True)
