"""GPU regression test of the shared-memory reuse race (test_smem_reuse_sync.py says what it was): the kernel whose
pipelined loop's ring took the bytes of a relayout scratch, launched repeatedly over many programs against a
float64 torch reference. Before the fix, row 0 of some programs' output was wrong in some launches (fla's GLA
backward at num_warps=2: 128 of 4.2 M elements in one launch of four, H200)."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.tests.test_smem_reuse_sync import reuse_kernel  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("num_warps", [2, 4])
def test_ring_after_relayout_gives_torch_result(num_warps):
    BT, BK, D, C = 64, 32, 64, 2048  # C programs, one chunk each
    gen = torch.Generator(device="cuda").manual_seed(num_warps)
    A = torch.randn(C, BT, BT, device="cuda", generator=gen)
    X = torch.randn(C, BT, D, device="cuda", generator=gen).bfloat16()
    Kt = torch.randn(C, BT, D, device="cuda", generator=gen).bfloat16()
    G = -torch.rand(C, D, device="cuda", generator=gen)
    H = torch.randn(C, D, D, device="cuda", generator=gen)
    k_scaled = (Kt.double() * torch.exp2(G.double())[:, None, :]).bfloat16().double()
    ref = A.double() @ X.double() + k_scaled @ H.bfloat16().double()
    tol = 2e-2 * ref.abs().max().item()
    for launch in range(20):
        out = torch.full((C, BT, D), float("nan"), device="cuda")
        reuse_kernel[(C,)](A, X, Kt, G, H, out, BT=BT, BK=BK, D=D, num_warps=num_warps, num_stages=2)
        torch.cuda.synchronize()
        bad = ((out.double() - ref).abs() > tol) | out.isnan()
        assert not bad.any(), "launch %d: %d wrong elements, rows %s" % (
            launch, bad.sum().item(), sorted(set(bad.nonzero()[:, 1].tolist()))[:8])
