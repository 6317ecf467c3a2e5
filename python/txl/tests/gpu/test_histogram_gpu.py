"""GPU test of tl.histogram: the kernels of test_histogram.py on fresh random data against torch.bincount (exact
counts), with values outside [0, num_bins) (not counted) and a mask (skipped without CUDA)."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.tests import test_histogram as K  # noqa: E402

pytestmark = pytest.mark.gpu
DEV = "cuda"


def _ref(x, bins):
    x = x.long()
    keep = (x >= 0) & (x < bins)
    return torch.bincount(x[keep], minlength=bins).to(torch.int32)


@pytest.mark.parametrize("n,bins,dt", [(1024, 64, torch.int32), (256, 256, torch.int64), (64, 16, torch.int8)])
def test_histogram(n, bins, dt):
    x = torch.randint(-4, bins + 4, (n,), device=DEV).to(dt)  # some values outside [0, bins)
    h = torch.empty(bins, device=DEV, dtype=torch.int32)
    K.hist_kernel[(1,)](x, h, N=n, BINS=bins)
    torch.testing.assert_close(h, _ref(x, bins), rtol=0, atol=0)


def test_histogram_masked_method():
    n, bins, valid = 2048, 128, 1500
    x = torch.randint(0, bins, (n,), device=DEV, dtype=torch.int32)
    h = torch.empty(bins, device=DEV, dtype=torch.int32)
    K.hist_masked_kernel[(1,)](x, h, valid, N=n, BINS=bins)
    torch.testing.assert_close(h, _ref(x[:valid], bins), rtol=0, atol=0)
