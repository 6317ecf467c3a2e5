"""Thread-block clusters on the GPU (kernels in cluster_cases.py): a launch with num_ctas runs each program as a
cluster (program_id / num_programs count clusters, cta_rank the CTA in it); distributed shared memory reads
(smem_load cta_id, a ring over 2 and 4 CTAs) and writes (smem_store cta_id) between cluster barriers move the rows
exactly; st.async stores counted on the other CTA's mbarrier (frag_smem_store with mbar, TXL's cluster softmax)
deliver every element once, phase after phase; the compiled kernel records its cluster shape."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from .cluster_cases import async_exchange, cluster_device_desc, push_write, ring_read  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("ctas", [2, 4])
def test_ring_read(ctas):
    programs, n = 33, 256
    x = torch.randn(programs * ctas, n, device="cuda")
    y = torch.empty_like(x)
    ids = torch.full((programs * ctas, 4), -1, dtype=torch.int32, device="cuda")
    ring_read[(programs,)](x, y, ids, N=n, CTAS=ctas, num_ctas=ctas)
    torch.cuda.synchronize()
    src = torch.arange(programs * ctas, device="cuda")
    src = (src // ctas) * ctas + (src % ctas + 1) % ctas  # the next CTA of the same cluster
    assert torch.equal(y, x[src])
    expect = torch.stack([torch.arange(programs * ctas, device="cuda") // ctas,
                          torch.arange(programs * ctas, device="cuda") % ctas,
                          torch.full((programs * ctas,), programs, device="cuda"),
                          torch.zeros(programs * ctas, device="cuda", dtype=torch.int64)], 1).to(torch.int32)
    assert torch.equal(ids, expect)
    # A second launch (the fast path) multiplies the grid by the cluster size the same way.
    y2 = torch.empty_like(x)
    ring_read[(programs,)](x, y2, ids, N=n, CTAS=ctas, num_ctas=ctas)
    assert torch.equal(y2, y)


def test_push_write():
    programs, n = 20, 512
    x = torch.randn(programs * 2, n, device="cuda")
    y = torch.empty_like(x)
    push_write[(programs,)](x, y, N=n, num_ctas=2)
    torch.cuda.synchronize()
    assert torch.equal(y, x.view(programs, 2, n).flip(1).reshape(programs * 2, n))


def test_compiled_cluster_shape():
    x = torch.randn(8, 256, device="cuda")
    k = ring_read.warmup(x, torch.empty_like(x), torch.empty(8, 4, dtype=torch.int32, device="cuda"), N=256, CTAS=4,
                         num_ctas=4, grid=(2,))
    assert tuple(k.launcher().meta.cluster) == (4, 1, 1)


@pytest.mark.parametrize("n", [256, 1024])
def test_async_exchange(n):
    programs, rows = 17, 5
    x = torch.randn(programs * 2 * rows, n, device="cuda")
    y = torch.full((programs * 2 * rows, n + 4), float("nan"), device="cuda")
    async_exchange[(programs,)](x, y, ROWS=rows, N=n, num_ctas=2)
    torch.cuda.synchronize()
    peer = x.view(programs, 2, rows, n).flip(1).reshape(programs * 2 * rows, n)
    assert torch.equal(y[:, :n], peer)
    assert torch.equal(y[:, n:], peer[:, :4] * 2)


@pytest.mark.parametrize("ctas", [2, 4])
def test_device_descriptors_per_cta(ctas):
    # Every CTA of a cluster builds its own descriptor (its own batch): each needs its own global-scratch slot.
    programs, M, K, BM, BK = 66, 64, 512, 64, 64
    a = torch.randn(programs * ctas, M, K, device="cuda").bfloat16()
    ref = a.float().view(programs * ctas, M, K // BK, BK).sum(2)
    for _ in range(10):
        out = torch.full((programs * ctas, BM, BK), float("nan"), device="cuda")
        cluster_device_desc[(programs,)](a, out, M, K, BM=BM, BK=BK, CTAS=ctas, num_ctas=ctas)
        torch.cuda.synchronize()
        torch.testing.assert_close(out, ref, rtol=1e-4, atol=1e-3)
