"""GPU test of tl.gather: the kernels of test_gather.py on fresh random data against torch.gather (exact: a gather
moves values), including out-of-order, repeated and (for the modulo rule) every index in range (skipped without
CUDA)."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.tests import test_gather as K  # noqa: E402

pytestmark = pytest.mark.gpu
DEV = "cuda"


def test_gather_1d():
    n, m = 64, 128
    x = torch.randn(n, device=DEV)
    i = torch.randint(0, n, (m,), device=DEV, dtype=torch.int32)
    y = torch.empty(m, device=DEV)
    K.gather_1d[(1,)](x, i, y, N=n, M=m)
    torch.testing.assert_close(y, x[i.long()], rtol=0, atol=0)


@pytest.mark.parametrize("r,c,ir,ic,axis,dt,it", [
    (64, 32, 16, 32, 0, torch.float32, torch.int32),
    (32, 64, 32, 128, 1, torch.bfloat16, torch.int64),
    (16, 16, 64, 16, 0, torch.float16, torch.int16),
])
def test_gather_2d(r, c, ir, ic, axis, dt, it):
    x = torch.randn(r, c, device=DEV).to(dt)
    i = torch.randint(0, (r, c)[axis], (ir, ic), device=DEV).to(it)
    y = torch.empty(ir, ic, device=DEV, dtype=dt)
    K.gather_2d[(1,)](x, i, y, R=r, C=c, IR=ir, IC=ic, AXIS=axis)
    torch.testing.assert_close(y, torch.gather(x, axis, i.long()), rtol=0, atol=0)


def test_gather_row_broadcast_method():
    bv, bk = 64, 128
    x = torch.randn(bv, bk, device=DEV, dtype=torch.float16)
    p = torch.randperm(bk, device=DEV).to(torch.int32)
    y = torch.empty_like(x)
    K.gather_row_broadcast[(1,)](x, p, y, BV=bv, BK=bk)
    torch.testing.assert_close(y, x[:, p.long()], rtol=0, atol=0)


def test_gather_previous_row_after_scan():
    bt, bs = 64, 64
    x = torch.randn(bt, bs, device=DEV)
    y = torch.empty_like(x)
    K.gather_prev_row[(1,)](x, y, BT=bt, BS=bs)
    z = torch.cumsum(x.double(), 0)
    prev = torch.clamp(torch.arange(bt, device=DEV) - 1, min=0)
    torch.testing.assert_close(y.double(), z[prev], rtol=1e-5, atol=1e-5)
