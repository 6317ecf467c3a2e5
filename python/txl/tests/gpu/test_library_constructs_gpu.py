"""GPU test of the library constructs of ``library_constructs_cases.py`` (fp32 FMA dots, count-down loops, atomics
over i64 offsets) against float32 torch (skipped without CUDA)."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.tests.gpu import dsl_cases, library_constructs_cases  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("case", library_constructs_cases.CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("seed", [0, 1])
def test_library_constructs(case, seed):
    dsl_cases.check_case(case, seed)
