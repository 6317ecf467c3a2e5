"""GPU test of the cp.async ring's copy widths: the pointer and block-pointer GEMMs of ``cp_async_alignment_cases.py``
with rows that are not 16-byte aligned (K = 197: a 16-byte cp.async there faults with "misaligned address"), rows
8- and 4-byte aligned (narrower copies) and aligned rows, all at num_stages=3, against torch in float32 (skipped
without CUDA). Precompile where txlc exists (``python3 python/txl/tools/precompile.py DIR`` collects these cases)
and run with ``TXL_CACHE_DIR=DIR`` on a GPU host without the compiler."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.tests.gpu import cp_async_alignment_cases, dsl_cases  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("case", cp_async_alignment_cases.CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("seed", [0, 1])
def test_cp_async_alignment(case, seed):
    dsl_cases.check_case(case, seed)
