"""GPU test of libdevice calls (tl.extra.cuda.libdevice linked from libdevice.10.bc): fp32 and fp64 results
against torch in float64, within a few ulp (skipped without CUDA)."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

import txl  # noqa: E402
import txl.language as tl  # noqa: E402
from txl.language.extra import libdevice  # noqa: E402

pytestmark = pytest.mark.gpu


@txl.jit
def _unary(x_ptr, y_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.5)
    if FN == "asin":
        y = libdevice.asin(x)
    elif FN == "erf":
        y = libdevice.erf(x)
    elif FN == "lgamma":
        y = libdevice.lgamma(x)
    elif FN == "expm1":
        y = libdevice.expm1(x)
    elif FN == "log1p":
        y = libdevice.log1p(x)
    elif FN == "atan2":
        y = libdevice.atan2(x, x * 0.5 + 1.0)
    else:
        y = libdevice.pow(x, 2.5)
    tl.store(y_ptr + offs, y, mask=m)


REF = {"asin": torch.asin, "erf": torch.erf, "lgamma": torch.lgamma, "expm1": torch.expm1, "log1p": torch.log1p,
       "atan2": lambda x: torch.atan2(x, x * 0.5 + 1.0), "pow": lambda x: torch.pow(x, 2.5)}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["fp32", "fp64"])
@pytest.mark.parametrize("fn", sorted(REF))
def test_libdevice_matches_torch_in_float64(fn, dtype):
    torch.manual_seed(0)
    n = 3000
    x = torch.rand(n, device="cuda", dtype=torch.float64) * 0.98 + 0.01  # (0, 1): in every function's domain
    xd = x.to(dtype)
    y = torch.empty_like(xd)
    _unary[(triton_cdiv(n, 512),)](xd, y, n, FN=fn, BLOCK=512)
    ref = REF[fn](xd.double())
    eps = torch.finfo(dtype).eps
    torch.testing.assert_close(y.double(), ref, atol=4 * eps, rtol=4 * eps)


def triton_cdiv(a, b):
    return (a + b - 1) // b
