"""GPU tests of DSL kernels: compile (or find in the cache), launch, compare with torch (skipped without CUDA).

The cases are in ``dsl_cases.py``. On a GPU host without txlc, fill a cache where txlc exists and carry it::

    python3 python/txl/tools/precompile.py /tmp/txl-cache          # on the build machine
    TXL_CACHE_DIR=/tmp/txl-cache python3 -m pytest -q -s python/txl/tests/gpu   # on the GPU host

A case whose kernel module is not written yet is skipped (``-rs`` shows why). With ``-s`` a table of the
results is printed at the end.
"""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.compiler.compiler import find_txlc  # noqa: E402
from txl.compiler.cache import default_cache_dir  # noqa: E402
from txl.tests.gpu import dsl_cases  # noqa: E402

pytestmark = pytest.mark.gpu
ROWS = []


@pytest.fixture(scope="module", autouse=True)
def _report():
    print("\ntxlc: %s; kernel cache: %s" % (find_txlc() or "not found (kernels must come from the cache)",
                                           default_cache_dir()))
    yield
    print("\n%-24s %-8s %s" % ("case", "result", "detail"))
    for row in ROWS:
        print("%-24s %-8s %s" % row)


@pytest.mark.parametrize("case", dsl_cases.CASES, ids=lambda c: c.name)
def test_dsl_kernel(case):
    try:
        b, _ = dsl_cases.run_case(case, dsl_cases.TorchFactory())
    except dsl_cases.Skip as e:
        ROWS.append((case.name, "skipped", str(e)))
        pytest.skip(str(e))
    torch.cuda.synchronize()
    checks = [("out", b["out"], b["ref"], case.tol)] + list(b.get("extra", []))
    details, failure = [], None
    for name, out, ref_fn, tol in checks:
        ref = ref_fn()
        err = (out.float() - ref.float()).abs().max().item()
        details.append("%s: max abs error %.3g" % (name, err))
        try:
            torch.testing.assert_close(out, ref, **tol)
        except AssertionError as e:
            failure = failure or e
    ROWS.append((case.name, "FAILED" if failure else "ok", "; ".join(details)))
    if failure:
        raise failure


def test_specialisations_are_cached_in_memory():
    """The second launch of the same specialisation neither runs the frontend nor reads the disk cache."""
    case = dsl_cases.CASES[0]
    kernel = dsl_cases.load_kernel(case)
    T = dsl_cases.TorchFactory()
    dsl_cases.run_case(case, T)
    n = len(kernel.cache)
    b, _ = dsl_cases.run_case(case, T)
    torch.cuda.synchronize()
    assert len(kernel.cache) == n
    torch.testing.assert_close(b["out"], b["ref"]())


def test_launch_on_a_side_stream():
    case = dsl_cases.CASES[0]
    kernel = dsl_cases.load_kernel(case)
    T = dsl_cases.TorchFactory()
    b = case.build(T)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s), dsl_cases.fake_frontend():
        kernel[b["grid"]](*b["args"], **b["kwargs"])  # torch's current stream: s
    s.synchronize()
    torch.testing.assert_close(b["out"], b["ref"]())


def test_errors_before_launch():
    case = dsl_cases.CASES[0]
    kernel = dsl_cases.load_kernel(case)
    x = torch.randn(64, device="cuda")
    with dsl_cases.fake_frontend():
        with pytest.raises(ValueError, match="argument 'y_ptr' is a tensor on cpu"):
            kernel[(1,)](x, x.cpu(), x, 64, BLOCK=1024)
        with pytest.raises(ValueError, match=r"grid \[0, 1, 1\] is empty"):
            kernel[(0,)](x, x, x, 64, BLOCK=1024)
    # A pointer argument is its data_ptr, whatever its strides (Triton's rule): the kernel indexes y_ptr + i, so
    # a strided view reads the first 32 elements of its storage.
    add = dsl_cases.load_kernel(next(c for c in dsl_cases.CASES if c.name == "vector_add"))
    out = torch.empty(32, device="cuda")
    add[(1,)](x, x[::2], out, 32, BLOCK=1024)
    torch.testing.assert_close(out, 2 * x[:32])


def test_autotuner_remembers_its_choice(capsys):
    case = next(c for c in dsl_cases.CASES if c.name == "fake_vector_add_autotuned")
    tuner = dsl_cases.load_kernel(case)
    dsl_cases.run_case(case, dsl_cases.TorchFactory())
    torch.cuda.synchronize()
    assert len(tuner.best) == 1
    (key, results), = tuner.timings.items() if tuner.timings else [(None, [])]
    assert all(ms is not None and ms > 0 for _, ms, _ in results), results
