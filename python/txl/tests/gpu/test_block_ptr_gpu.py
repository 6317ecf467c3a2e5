"""GPU test of block pointers: the kernels of ``block_ptr_cases.py`` (masked 2-D copies with odd shapes, zero and
nan padding, a column-major parent, the block-pointer GEMM) on fresh random data against torch (skipped without
CUDA). Precompile where txlc exists (``python3 python/txl/tools/precompile.py DIR`` collects these cases too) and
run with ``TXL_CACHE_DIR=DIR`` on a GPU host without the compiler."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.tests.gpu import block_ptr_cases, dsl_cases  # noqa: E402

pytestmark = pytest.mark.gpu


def _check(case, seed):
    """As dsl_cases.check_case, except that an output whose tolerance has equal_nan may hold NaN where its
    reference does (the nan padding)."""
    try:
        b, _ = dsl_cases.run_case(case, dsl_cases.TorchFactory(seed))
    except dsl_cases.Skip as e:
        pytest.skip(str(e))
    torch.cuda.synchronize()
    for name, out, ref, tol in [("out", b["out"], b["ref"], case.tol)] + list(b.get("extra", [])):
        expect = ref()
        if out.is_floating_point() and not tol.get("equal_nan"):
            assert not torch.isnan(out).any(), "%s: the kernel left elements unwritten (NaN-filled)" % name
        if tol.get("equal_nan"):
            assert torch.equal(torch.isnan(out), torch.isnan(expect)), \
                "%s: NaN where the reference has none, or the other way round" % name
        torch.testing.assert_close(out, expect, **tol, msg=lambda m: "%s: %s" % (name, m))


@pytest.mark.parametrize("case", block_ptr_cases.CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("seed", [0, 1])
def test_block_ptr(case, seed):
    _check(case, seed)
