"""bench/libraries.py's import rewrite on synthetic lines (no .ext, no network, no GPU): the covered forms are
rewritten, an uncovered form is refused, everything else is left as it is; and the selection data is sane."""

import importlib.util
import os

import pytest

_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench", "libraries.py")


@pytest.fixture(scope="module")
def lib():
    spec = importlib.util.spec_from_file_location("bench_libraries", _PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_covered_forms_are_rewritten(lib):
    src = ("import torch\n"
           "import triton\n"
           "import triton.language as tl\n"
           "from triton import language as tl\n"
           "    from triton.language.extra.libdevice import tanh  # noqa: F401\n"
           "from triton.language.extra.cuda.libdevice import rsqrt\r\n"
           "from triton.runtime.autotuner import Autotuner\n"
           "from triton.tools.tensor_descriptor import TensorDescriptor\n")
    new, changes, kept = lib.rewrite_source(src, "pkg/mod.py")
    assert new.splitlines(keepends=True) == [
        "import torch\n",
        "import txl as triton\n",
        "import txl.language as tl\n",
        "from txl import language as tl\n",
        "    from txl.language.extra.libdevice import tanh  # noqa: F401\n",
        "from txl.language.extra.cuda.libdevice import rsqrt\r\n",
        "from txl.runtime.autotuner import Autotuner\n",
        "from txl.tools.tensor_descriptor import TensorDescriptor\n",
    ]
    assert [c[0] for c in changes] == [2, 3, 4, 5, 6, 7, 8]
    assert changes[0] == (2, "import triton", "import txl as triton")
    assert kept == []


def test_tutorial_table_is_reused(lib):
    import sys

    sys.path.insert(0, os.path.dirname(_PATH))
    import triton_tutorials

    rules, _ = lib.rewrite_rules()
    for old, new in triton_tutorials.REWRITES.items():
        if triton_tutorials.HOST_MODULE not in new:
            assert rules[old] == new
    # the tutorials' cuBLAS stand-in module is theirs alone: refused in a library
    with pytest.raises(lib.RewriteError):
        lib.rewrite_source("from triton._C.libtriton import nvidia\n", "pkg/mod.py")


@pytest.mark.parametrize("line", [
    "from triton.compiler import compile\n",
    "import triton.language as language\n",
    "import triton, torch\n",
    "from triton.language import (\n",
    "if HAS_TRITON: import triton\n",
    "mod = importlib.import_module('triton.language')\n",
])
def test_uncovered_forms_are_refused(lib, line):
    with pytest.raises(lib.RewriteError) as e:
        lib.rewrite_source("x = 1\n" + line, "pkg/mod.py")
    assert "pkg/mod.py:2" in str(e.value)


def test_other_lines_untouched(lib):
    src = ("# import triton (a comment)\n"
           "x = triton.cdiv(7, 2)\n"
           "import tritonclient\n"
           "from tritonx import y\n"
           "s = 'triton.language'\n"
           "    \n"
           "import torch.nn.functional as F")
    new, changes, kept = lib.rewrite_source(src, "pkg/mod.py")
    assert new == src and changes == [] and kept == []


def test_kept_forms_only_in_their_backends_files(lib):
    line = "from triton.language.extra.cann.extension import extract_slice\n"
    new, changes, kept = lib.rewrite_source(line, "fla/ops/utils/npu_ops.py")
    assert new == line and changes == [] and kept and kept[0][0] == 1
    with pytest.raises(lib.RewriteError):
        lib.rewrite_source(line, "fla/ops/gla/chunk.py")


def test_gluon_imports_go_to_txl(lib):
    # txl.experimental.gluon exists: Gluon is swapped like the rest of triton, in any file
    line = "from triton.experimental.gluon import language as gl\n"
    new, changes, kept = lib.rewrite_source(line, "fla/modules/fused_cross_entropy/gluon.py")
    assert new == "from txl.experimental.gluon import language as gl\n" and kept == [] and len(changes) == 1


def test_selection_data(lib):
    names = [op.name for op in lib.OPS]
    assert len(names) == len(set(names))
    assert sum(op.lib == "liger" for op in lib.OPS) == 17
    for op in lib.OPS:
        assert op.lib in lib.LIB_TESTS and op.tests and 1 <= op.cap <= lib.MAX_CASES_PER_OP
        assert callable(getattr(lib, "bench_" + op.name)), op.name
    assert [op.name for op in lib.select_ops("fla")] == [op.name for op in lib.OPS if op.lib == "fla"]
