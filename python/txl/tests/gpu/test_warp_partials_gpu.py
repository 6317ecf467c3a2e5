"""TXL's per-warp partial reductions on the GPU (kernels in warp_partials_cases.py), against torch on fresh random
data: txl.warp_sum / warp_max of per-thread values combine exactly each warp's 32 lanes; of a tile, each warp's
partial covers the elements that warp holds (one warp's partial changes when one element does, the partials
combine to the whole tile's max and sum); TXL's 04-softmax exchanges of those partials through shared memory
(per-warp slots, every warp or warp 0 then thread 0 combining them, and across a cluster of 2 CTAs by st.async)
give torch.softmax."""

import math

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from .warp_partials_cases import (broadcast_softmax, cluster_softmax, lane_partials, online_softmax,  # noqa: E402
                                  tile_partials)

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("num_warps", [4, 8])
def test_lane_partials_are_exact_per_warp(num_warps):
    out = torch.full((2 * num_warps,), float("nan"), device="cuda")
    lane_partials[(1,)](out, num_warps=num_warps)
    torch.cuda.synchronize()
    t = torch.arange(32 * num_warps, dtype=torch.int64).view(num_warps, 32)
    sums = (t * 3 + 1).sum(dim=1).float()
    maxs = ((t * 37) % 101).max(dim=1).values.float()
    assert torch.equal(out[:num_warps].cpu(), sums), (out, sums)
    assert torch.equal(out[num_warps:].cpu(), maxs), (out, maxs)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tile_partials_cover_each_warps_elements(seed):
    # 4096 f32 elements over 4 warps: no element is held twice, so the partials split the tile.
    g = torch.Generator(device="cuda").manual_seed(seed)
    nw, block, programs = 4, 4096, 64
    x = torch.randn(programs, block, device="cuda", generator=g)
    out = torch.empty(programs, 2 * nw, device="cuda")
    tile_partials[(programs,)](x, out, BLOCK=block, num_warps=nw)
    torch.cuda.synchronize()
    maxs, sums = out[:, :nw], out[:, nw:]
    # every partial max is an element of its row, and the largest is the row's max
    assert torch.equal(maxs.max(dim=1).values, x.max(dim=1).values)
    assert bool(torch.isin(maxs[0], x[0]).all())
    assert torch.allclose(sums.sum(dim=1), x.sum(dim=1), rtol=1e-4, atol=1e-3)
    # the partials are per warp: not all equal to the row's max / sum (a complete reduction would be)
    assert bool((maxs != x.max(dim=1, keepdim=True).values).any(dim=1).all())

    # One large element: exactly one warp's partial sees it.
    y = torch.zeros(programs, block, device="cuda")
    hot = torch.randint(0, block, (programs,), device="cuda", generator=g)
    y[torch.arange(programs, device="cuda"), hot] = 5.0
    tile_partials[(programs,)](y, out, BLOCK=block, num_warps=nw)
    torch.cuda.synchronize()
    assert torch.equal((out[:, :nw] == 5.0).sum(dim=1), torch.ones(programs, device="cuda", dtype=torch.int64))
    assert torch.equal((out[:, :nw] == 0.0).sum(dim=1), torch.full((programs,), nw - 1, device="cuda",
                                                                     dtype=torch.int64))
    assert torch.equal((out[:, nw:] == 5.0).sum(dim=1), torch.ones(programs, device="cuda", dtype=torch.int64))


def _rows(rows, cols, dtype, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return (2.0 * torch.randn(rows, cols, device="cuda", generator=g)).to(dtype)


def _check_softmax(y, x):
    ref = torch.softmax(x.float(), dim=-1)
    # fp32 output: exp and the division are the approximate PTX forms (a few ulp); bf16 output: its rounding
    rtol, atol, sum_tol = (1e-4, 1e-6, 1e-4) if y.dtype == torch.float32 else (2e-2, 2e-4, 1e-2)
    assert torch.allclose(y.float(), ref, rtol=rtol, atol=atol), (y.float() - ref).abs().max()
    assert torch.allclose(y.float().sum(dim=-1), torch.ones(x.shape[0], device="cuda"), atol=sum_tol)


@pytest.mark.parametrize("kernel", [online_softmax, broadcast_softmax], ids=["online", "broadcast"])
@pytest.mark.parametrize("rows, cols, num_warps, programs", [(257, 1000, 4, 64), (64, 4096, 4, 64),
                                                           (33, 3000, 8, 16)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_exchange_softmax(kernel, rows, cols, num_warps, programs, dtype):
    x = _rows(rows, cols, dtype, seed=rows + cols)
    y = torch.full_like(x, float("nan"))
    block = 1 << (cols - 1).bit_length()
    kernel[(programs,)](y, x, x.stride(0), y.stride(0), rows, cols, BLOCK_SIZE=block, num_warps=num_warps)
    torch.cuda.synchronize()
    _check_softmax(y, x)


@pytest.mark.parametrize("rows, cols", [(128, 4096), (37, 3500)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_cluster_softmax(rows, cols, dtype):
    # TXL's cluster softmax: each CTA's warps reduce the CTA's half of the row (TXL splits the tile over the
    # cluster), the partials cross by st.async. 4096-wide tiles: every warp holds elements of both halves.
    x = _rows(rows, cols, dtype, seed=7 * rows + cols)
    y = torch.full_like(x, float("nan"))
    block = 1 << (cols - 1).bit_length()
    cluster_softmax[(rows,)](y, x, x.stride(0), y.stride(0), rows, cols, BLOCK_SIZE=block, num_warps=4,
                             num_ctas=2)
    torch.cuda.synchronize()
    _check_softmax(y, x)


def test_cluster_softmax_persistent_rows():
    # Fewer clusters than rows: each cluster loops over rows, the mbarrier phase alternating.
    rows, cols = 200, 4096
    x = _rows(rows, cols, torch.float32, seed=11)
    y = torch.full_like(x, float("nan"))
    cluster_softmax[(24,)](y, x, x.stride(0), y.stride(0), rows, cols, BLOCK_SIZE=4096, num_warps=4, num_ctas=2)
    torch.cuda.synchronize()
    _check_softmax(y, x)
    assert math.isfinite(float(y.sum()))
