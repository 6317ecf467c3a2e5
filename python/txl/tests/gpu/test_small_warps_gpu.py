"""GPU test of num_warps=1 and 2 (``small_warps_cases.py``: reductions, mma.sync dots, a scan and an atomic on 32
or 64 threads) against torch in float32 (skipped without CUDA)."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.tests.gpu import dsl_cases, small_warps_cases  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("case", small_warps_cases.CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("seed", [0, 1])
def test_small_warps(case, seed):
    dsl_cases.check_case(case, seed)
