"""flash-linear-attention's Gluon kernels (fla 0.6.0, in the git-ignored .ext/fla) compiled by txl on the CPU, with
the import lines swapped (``triton`` -> ``txl``) and nothing else changed: each kernel, at the configurations its
launcher uses for the shapes bench/gluon.py times, compiles through txlc and ptxas without spills.

torch is not needed: the kernels' source is read from the library files (the @gluon.jit / @gluon.constexpr_function
definitions and the module-level names they read) into a module of their own."""

import importlib.util
import os

import pytest

from txl.tests.dsl_helpers import compile_ptx, ir_of

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
FLA = os.path.join(REPO, ".ext", "fla", "fla")
FILES = {"sinkhorn": "ops/utils/sinkhorn/gluon.py", "cross_entropy": "modules/fused_cross_entropy/gluon.py",
         "conv1d": "modules/causal_conv1d/backends/gluon.py", "attnres": "ops/attnres/backends/gluon.py"}


def _bench():
    """bench/gluon.py (its import swap and kernel loader), loaded from the repository."""
    spec = importlib.util.spec_from_file_location("bench_gluon", os.path.join(REPO, "bench", "gluon.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


BENCH = _bench()
swap_line = BENCH.swap_line


def load_kernels(name, tmp_path):
    path = os.path.join(FLA, FILES[name])
    if not os.path.exists(path):
        pytest.skip("fla is not in .ext/fla (bench/libraries.py's layout)")
    return load_kernels_of(path, name, tmp_path)


def load_kernels_of(path, name, tmp_path):
    """The Gluon kernels of the file at ``path`` (and the module-level names they read), imports swapped, as a
    module of their own (bench/gluon.py's kernel_module)."""
    return BENCH.kernel_module(path, name, tmp_path, swap=True)


def _cases():
    log2e = 1.4426950408889634
    return [
        # sinkhorn, N = 4 (mHC's 4 x 4 mixing matrices), fwd and bwd at NUM_ITERS = 20 (fla's tests)
        ("sinkhorn", "sinkhorn_fwd_kernel", {"x": "*fp32", "o": "*fp32", "T": "i32"},
         {"scale": log2e, "N": 4, "BN": 4, "BT": 8, "NUM_ITERS": 20}),
        ("sinkhorn", "sinkhorn_bwd_kernel", {"x": "*fp32", "do": "*fp32", "dx": "*fp32", "T": "i32"},
         {"scale": log2e, "N": 4, "BN": 4, "BT": 8, "NUM_ITERS": 20}),
        # fused cross entropy, V = 32000 (BV = 8192, split), bf16 logits
        ("cross_entropy", "cross_entropy_fwd_kernel_gluon",
         {"logits": "*bf16", "target": "*i64", "loss": "*fp32", "z_loss": "*fp32", "lse": "*fp32",
          "s_logits": "i32", "N": "i32"},
         {"label_smoothing": 0.0, "logit_scale": 1.0, "lse_square_scale": 0.0, "logit_softcapping": None,
          "ignore_index": -100, "V": 32000, "V_TOTAL": 32000, "V_START": 0, "BV": 8192, "SPLIT": True}),
        # ... and bench/gluon.py's: V = 8000 (one block of 8192, no split)
        ("cross_entropy", "cross_entropy_fwd_kernel_gluon",
         {"logits": "*bf16", "target": "*i64", "loss": "*fp32", "z_loss": "*fp32", "lse": "*fp32",
          "s_logits": "i32", "N": "i32"},
         {"label_smoothing": 0.0, "logit_scale": 1.0, "lse_square_scale": 0.0, "logit_softcapping": None,
          "ignore_index": -100, "V": 8000, "V_TOTAL": 8000, "V_START": 0, "BV": 8192, "SPLIT": False}),
        # causal conv1d forward, bench/gluon.py's 4 x 2048 x 2048 (BD 64, one split), silu, no varlen
        ("conv1d", "causal_conv1d_fwd_kernel",
         {"x": "*bf16", "y": "*bf16", "weight": "*bf16", "bias": "*bf16", "T": "i32"},
         {"residual": None, "cu_seqlens": None, "initial_state": None, "chunk_indices": None, "SXN": 2048 * 2048,
          "SXT": 2048, "D": 2048, "W": 4, "BT": 64, "BD": 64, "BC": 8, "ACTIVATION": "silu", "NUM_SPLITS": 1}),
        # causal conv1d forward, D = 2048, W = 4, small tiles (BD 32, 2 splits), silu, no varlen
        ("conv1d", "causal_conv1d_fwd_kernel",
         {"x": "*bf16", "y": "*bf16", "weight": "*bf16", "bias": "*bf16", "T": "i32"},
         {"residual": None, "cu_seqlens": None, "initial_state": None, "chunk_indices": None, "SXN": 2048 * 512,
          "SXT": 2048, "D": 2048, "W": 4, "BT": 32, "BD": 32, "BC": 8, "ACTIVATION": "silu", "NUM_SPLITS": 2}),
    ]


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c[1])
def test_fla_gluon_kernel_compiles(case, tmp_path):
    name, kernel, sig, consts = case
    mod = load_kernels(name, tmp_path)
    fn = getattr(mod, kernel)
    assert type(fn).__name__ == "GluonJITFunction"
    ptx, err = compile_ptx(ir_of(fn, sig, consts), emit="cubin")
    assert ".entry" in ptx
    assert "spill" not in err, err


@pytest.mark.parametrize("name", sorted(FILES))
def test_fla_gluon_module_loads(name, tmp_path):
    """Every @gluon.jit function of the file is a txl Gluon kernel after the swap."""
    mod = load_kernels(name, tmp_path)
    kernels = [v for v in vars(mod).values() if type(v).__name__ == "GluonJITFunction"]
    assert kernels


def test_swap_line():
    assert swap_line("from triton.experimental import gluon\n") == "from txl.experimental import gluon\n"
    assert swap_line("import triton") == "import txl as triton"
    assert swap_line("    from triton.experimental.gluon.language.nvidia.ampere import async_copy as cp  # x") == \
        "    from txl.experimental.gluon.language.nvidia.ampere import async_copy as cp  # x"
    assert swap_line("import torch") == "import torch"
    with pytest.raises(BENCH.SwapError):
        swap_line("from triton.compiler import foo")


@pytest.mark.parametrize("name", sorted(FILES))
def test_fla_sources_swap(name):
    """Every import of triton in fla's Gluon files has a swap rule."""
    path = os.path.join(FLA, FILES[name])
    if not os.path.exists(path):
        pytest.skip("fla is not in .ext/fla")
    with open(path) as f:
        src, changes = BENCH.swap_source(f.read(), path)
    assert changes and "import triton" not in src.replace("import txl as triton", "")
