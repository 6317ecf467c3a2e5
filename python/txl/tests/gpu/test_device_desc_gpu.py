"""GPU test of tl.make_tensor_descriptor: the kernels of ``device_desc_cases.py`` on fresh random data against torch
(skipped without CUDA). Precompile where txlc exists (``python3 python/txl/tools/precompile.py DIR`` collects these
cases too) and run with ``TXL_CACHE_DIR=DIR`` on a GPU host without the compiler."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.tests.gpu import device_desc_cases, dsl_cases  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("case", device_desc_cases.CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("seed", [0, 1])
def test_device_descriptors(case, seed):
    dsl_cases.check_case(case, seed)
