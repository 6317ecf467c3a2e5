"""GPU test of in-place tile updates whose layouts hold elements in several threads (``inplace_cases.py``: the
construct that made Liger-Kernel's qwen2vl_mrope wrong), against torch in float32 (skipped without CUDA)."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.tests.gpu import dsl_cases, inplace_cases  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("case", inplace_cases.CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_inplace(case, seed):
    dsl_cases.check_case(case, seed)
