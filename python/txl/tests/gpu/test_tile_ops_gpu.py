"""GPU test of register-tile reshaping and tl.dot with B in registers: the kernels of ``tile_ops_cases.py`` on fresh
random data against torch (skipped without CUDA). Precompile where txlc exists (``python3
python/txl/tools/precompile.py DIR`` collects these cases too) and run with ``TXL_CACHE_DIR=DIR`` on a GPU host
without the compiler."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.tests.gpu import dsl_cases, tile_ops_cases  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("case", tile_ops_cases.CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("seed", [0, 1])
def test_tile_ops(case, seed):
    try:
        b, _ = dsl_cases.run_case(case, dsl_cases.TorchFactory(seed))
    except dsl_cases.Skip as e:
        pytest.skip(str(e))
    torch.cuda.synchronize()
    for name, out, ref, tol in [("out", b["out"], b["ref"], case.tol)] + list(b.get("extra", [])):
        assert not torch.isnan(out).any(), "%s: the kernel left elements unwritten (NaN-filled output)" % name
        torch.testing.assert_close(out, ref(), **tol, msg=lambda m: "%s: %s" % (name, m))
