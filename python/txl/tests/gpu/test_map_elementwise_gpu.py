"""GPU test of tl.map_elementwise (txl maps the function over whole tiles): the kernel of test_map_elementwise.py on
fresh random data against torch (skipped without CUDA)."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.tests import test_map_elementwise as K  # noqa: E402

pytestmark = pytest.mark.gpu
DEV = "cuda"


def test_map_elementwise_broadcast_and_tuple():
    m, n = 32, 64
    x = torch.randn(m, n, device=DEV)
    s = torch.randn(n, device=DEV)
    y, z, w = (torch.empty_like(x) for _ in range(3))
    K.map_kernel[(1,)](x, s, y, z, w, M=m, N=n)
    torch.testing.assert_close(y, torch.clamp(x, -0.5, 1.0) * s[None, :], rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(z, x + s[None, :], rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(w, x - s[None, :], rtol=1e-6, atol=1e-6)
