"""GPU test of desc.load inside run-time loops: the kernels of ``desc_loop_cases.py`` on fresh random data against
torch (skipped without CUDA). Precompile where txlc exists (``python3 python/txl/tools/precompile.py DIR`` collects
these cases too) and run with ``TXL_CACHE_DIR=DIR`` on a GPU host without the compiler."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.tests.gpu import desc_loop_cases, dsl_cases  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("case", desc_loop_cases.CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("seed", [0, 1])
def test_desc_load_in_loops(case, seed):
    dsl_cases.check_case(case, seed)
