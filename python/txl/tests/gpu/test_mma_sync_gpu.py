"""GPU test of dots with M = 16 or 32 (and 64 on 8 warps), which txl runs on mma.sync: the GEMMs and attention of
``mma_sync_cases.py`` against torch in float32 (skipped without CUDA)."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.tests.gpu import dsl_cases, mma_sync_cases  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("case", mma_sync_cases.CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("seed", [0, 1])
def test_mma_sync(case, seed):
    dsl_cases.check_case(case, seed)
