"""GPU test of num_warps=8 (two warpgroups split each dot's M): the GEMMs and the attention forward of
``num_warps8_cases.py`` against torch in float32 (skipped without CUDA). Precompile where txlc exists
(``python3 python/txl/tools/precompile.py DIR`` collects these cases) and run with ``TXL_CACHE_DIR=DIR`` on a GPU
host without the compiler."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.tests.gpu import dsl_cases, num_warps8_cases  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("case", num_warps8_cases.CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("seed", [0, 1])
def test_num_warps8(case, seed):
    dsl_cases.check_case(case, seed)


@pytest.mark.parametrize("case", num_warps8_cases.ROLE_CASES, ids=lambda c: c.name)
def test_num_warps8_with_warpgroup_roles(case):
    dsl_cases.check_case(case, 0)
