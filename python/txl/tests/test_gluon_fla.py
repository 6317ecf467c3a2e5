"""flash-linear-attention's Gluon kernels (fla 0.6.0, in the git-ignored .ext/fla) compiled by txl on the CPU, with
the import lines swapped (``triton`` -> ``txl``) and nothing else changed: each kernel, at the configurations its
launcher uses for the shapes bench/gluon.py times, compiles through txlc and ptxas without spills.

torch is not needed: the kernels' source is read from the library files (the @gluon.jit / @gluon.constexpr_function
definitions and the module-level names they read) into a module of their own."""

import ast
import importlib.util
import os
import re

import pytest

from txl.tests.dsl_helpers import compile_ptx, ir_of

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
FLA = os.path.join(REPO, ".ext", "fla", "fla")
FILES = {"sinkhorn": "ops/utils/sinkhorn/gluon.py", "cross_entropy": "modules/fused_cross_entropy/gluon.py",
         "conv1d": "modules/causal_conv1d/backends/gluon.py", "attnres": "ops/attnres/backends/gluon.py"}
_IMPORT = re.compile(r"^(\s*)(from|import)\s+triton\b(.*)$")


def swap_line(line):
    """The import swap of bench/gluon.py: ``triton`` -> ``txl`` in a line that imports from triton."""
    m = _IMPORT.match(line)
    if not m:
        return line
    indent, kw, rest = m.groups()
    if kw == "import" and rest.strip() == "":
        return indent + "import txl as triton"
    return indent + kw + " txl" + rest


_GLUON_DECORATOR = re.compile(r"\bgluon\.|\bgl\.constexpr_function\b")


def _gluon_decorator(d):
    """@gluon.jit(...), @gluon.constexpr_function or @gl.constexpr_function."""
    return bool(_GLUON_DECORATOR.search(ast.unparse(d)))


def _keep(node, src):
    """The module-level statements the kernels need (no torch, no fla imports, no host functions)."""
    text = ast.get_source_segment(src, node) or ""
    if isinstance(node, ast.FunctionDef):
        return any(_gluon_decorator(d) for d in node.decorator_list)
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return bool(re.match(r"(import|from)\s+(triton|os)\b", text))
    if isinstance(node, (ast.Assign, ast.If)):
        return not re.search(r"\b(torch|fla|register|importlib)\b", text)
    return False


def load_kernels(name, tmp_path):
    path = os.path.join(FLA, FILES[name])
    if not os.path.exists(path):
        pytest.skip("fla is not in .ext/fla (bench/libraries.py's layout)")
    return load_kernels_of(path, name, tmp_path)


def load_kernels_of(path, name, tmp_path):
    """The Gluon kernels of the file at ``path`` (and the module-level names they read), imports swapped, as a
    module of their own (written under ``tmp_path``)."""
    with open(path) as f:
        src = f.read()
    tree = ast.parse(src)
    parts = []
    for node in tree.body:
        if not _keep(node, src):
            continue
        if isinstance(node, ast.FunctionDef):  # only the gluon decorators (fla's autotune wrappers need torch)
            node.decorator_list = [d for d in node.decorator_list if _gluon_decorator(d)]
            start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            lines = src.splitlines()[start - 1:node.end_lineno]
            lines = [ln for ln in lines if not ln.lstrip().startswith("@") or _GLUON_DECORATOR.search(ln)]
            parts.append("\n".join(lines))
        else:
            parts.append("\n".join(swap_line(ln) for ln in ast.get_source_segment(src, node).splitlines()))
    name = re.sub(r"\W", "_", name)
    out = tmp_path / ("fla_gluon_%s.py" % name)
    out.write_text("\n\n\n".join(parts) + "\n")
    spec = importlib.util.spec_from_file_location("fla_gluon_%s" % name, str(out))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


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
    assert swap_line("from triton.experimental import gluon") == "from txl.experimental import gluon"
    assert swap_line("import triton") == "import txl as triton"
    assert swap_line("    from triton.experimental.gluon.language.nvidia.ampere import async_copy as cp") == \
        "    from txl.experimental.gluon.language.nvidia.ampere import async_copy as cp"
