#!/usr/bin/env python3
"""Real Triton libraries (Liger-Kernel 0.8.5, flash-linear-attention 0.6.0) under txl and under Triton: their own
tests, a check against a float32 torch reference and timings, one table.

    python3 bench/libraries.py --make-copies          # import-swapped copies of the libraries into .ext/swapped/
    python3 bench/libraries.py --list                 # the selection (ops, tests, -k, caps, shapes); runs nothing
    python3 bench/libraries.py --run [--ops a,b] [--timeout S] [--jobs N] [--budget S]   # GPU host

The libraries' code is not part of this repository. It lives in the git-ignored folder .ext/ (see EXT_LAYOUT):
.ext/liger (the liger_kernel package of the PyPI wheel), .ext/fla (fla of the fla-core and flash-linear-attention
wheels), .ext/liger_tests and .ext/fla_tests (the test files of the public repositories; SOURCE.txt in each says
from which commit). On the GPU host carry .ext and install txl from its wheel.

The rewrite. --make-copies copies each folder into .ext/swapped/<name> with only the lines that import triton
changed, by the rewrite table of bench/triton_tutorials.py (REWRITES, imported) plus LIBRARY_REWRITES below for the
forms these libraries use beyond the tutorials. Every rewritten line is printed as ``file:line: old -> new``. An
import of triton that no rule covers is an error (the table grows on purpose), and so is one that does not start a
line (``if x: import triton``, ``importlib.import_module("triton...")``). A few forms are kept unchanged on purpose
(KEPT): the Ascend NPU modules, which txl does not replace, in the files of that backend only (by path); they are
printed as ``kept``. Gluon imports go to txl.experimental.gluon like every other triton import. --run makes the
copies again when they are missing or older than their sources.

--run. For each op, in one subprocess per op and backend (a hang or a fault poisons only that op):
  (a) tests: the op's library tests with pytest, a selection written below as data (OPS: files, -k, at most
      `cap` cases per test function, evenly spaced over its parametrizations, at most 20 per op): passed / failed
      (failed + errors) and the first failure line;
  (b) check: forward and backward of the op at the library's benchmark shape (OPS: shape) on fresh random data,
      against a float32 torch reference (written here for Liger, the library's own naive reference for fla): the
      largest error over outputs and gradients, max|lib - ref| / max|ref|;
  (c) timing: forward and forward+backward, triton.testing.do_bench (median) at the same shape.
The txl backend is the swapped copy (its folder is the first entry of sys.path), the triton backend the original.
Phase 1 runs (b)+(c) for every op, phase 2 (a). Subprocesses run --jobs at a time; each takes a lock for its
timed section, so timings never overlap one another (others may compile or check meanwhile). --budget bounds the
whole run: a subprocess not started in time is reported as not run, and timeouts are cut to the time left; phase
1 starts no subprocess after --bench-share of the budget, so phase 2 keeps the rest.

In the txl subprocesses, what txl lacks of Triton's host API would get a stand-in (HOST_SHIMS, as in
bench/triton_tutorials.py: installed only while txl lacks it, reported in the "txl host gaps" line; --strict
installs none); there is none at present (fla's Autotuner subclass uses txl.runtime.autotuner, which has Triton's
constructor and state). A launch of a library kernel through the real Triton in a txl subprocess (an
import left unswapped) is reported as a leak. When the GPU host lacks `transformers` / `tokenizers`, a stand-in
that provides only the names Liger's test/utils.py imports at its top is installed (test files that need real
transformers models then fail to collect, under both backends alike).

Output: the table (and the card's name) on stdout; with $OUT set also $OUT/libraries.md (table and first
failures) and $OUT/libraries.json (every result), and $OUT/libraries-logs.txt (the tails of failed subprocesses).
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EXT = os.path.join(ROOT, ".ext")
SWAPPED = os.path.join(EXT, "swapped")

# name -> folder under .ext: what gets an import-swapped copy, and what sys.path gets for each library
EXT_LAYOUT = {"liger": "liger", "fla": "fla", "liger_tests": "liger_tests", "fla_tests": "fla_tests"}
LIB_TESTS = {"liger": "liger_tests", "fla": "fla_tests"}
BACKENDS = ("txl", "triton")


# ================================================================================================================
# The rewrite: triton_tutorials.REWRITES plus the forms the libraries use beyond the tutorials
# ================================================================================================================
LIBRARY_REWRITES = {
    "from triton import language as tl": "from txl import language as tl",
    "from triton.language.math import rsqrt": "from txl.language.math import rsqrt",
    "from triton.language.math import tanh": "from txl.language.math import tanh",
    "from triton.language.extra.libdevice import rsqrt": "from txl.language.extra.libdevice import rsqrt",
    "from triton.language.extra.libdevice import tanh": "from txl.language.extra.libdevice import tanh",
    "from triton.language.extra.cuda.libdevice import rsqrt": "from txl.language.extra.cuda.libdevice import rsqrt",
    "from triton.language.extra.cuda.libdevice import tanh": "from txl.language.extra.cuda.libdevice import tanh",
    "import triton.language.extra.libdevice as tldevice": "import txl.language.extra.libdevice as tldevice",
    # fla/ops/utils/cache.py subclasses Triton's Autotuner (txl's, with Triton's constructor, is in txl.runtime)
    "from triton.runtime.autotuner import Autotuner": "from txl.runtime.autotuner import Autotuner",
    "from triton.runtime.autotuner import autotune as original_autotune":
        "from txl.runtime.autotuner import autotune as original_autotune",
    # fla's Gluon kernels (fused cross-entropy, causal conv1d, sinkhorn, attention residuals): txl.experimental.gluon
    "from triton.experimental import gluon": "from txl.experimental import gluon",
    "from triton.experimental.gluon import language as gl": "from txl.experimental.gluon import language as gl",
    "from triton.experimental.gluon.language import extra": "from txl.experimental.gluon.language import extra",
    "from triton.experimental.gluon.language.nvidia.ampere import async_copy as cp":
        "from txl.experimental.gluon.language.nvidia.ampere import async_copy as cp",
}

# Forms kept unchanged on purpose: (files they may appear in, why). Anywhere else they are refused.
_OTHER_BACKENDS = r"(ascend|_npu|npu_|gluon|cann)"
KEPT = {
    "from triton.language.extra.cann.extension import extract_slice": (_OTHER_BACKENDS, "Ascend NPU"),
    "from triton.language.extra.cann.extension import insert_slice": (_OTHER_BACKENDS, "Ascend NPU"),
    "from triton.language.extra.cann.extension import extract_slice, insert_slice": (_OTHER_BACKENDS, "Ascend NPU"),
    "from triton.backends.ascend.compiler import NPUOptions": (r"hardware\.py$", "Ascend NPU (probed in a try)"),
    "import triton.runtime.driver as driver": (_OTHER_BACKENDS, "Ascend NPU"),
    "from triton.runtime.cache import FileCacheManager": (
        r"liger_kernel[/\\]triton[/\\]monkey_patch\.py$",
        "patches Triton's own cache manager; imported only by apply_liger_triton_cache_manager()"),
}

_IMPORT_LINE = re.compile(r"^(\s*)(.*?)(\s*#.*)?(\r?\n)?$", re.S)
# an import of triton anywhere in a line (those at the start of a line are matched first)
_HIDDEN_IMPORT = re.compile(r"(\bimport\s+triton\b|\bfrom\s+triton(\.[\w.]+)?\s+import\b|"
                            r"import_module\(\s*['\"]triton|__import__\(\s*['\"]triton)")


class RewriteError(ValueError):
    pass


def rewrite_rules():
    """The rewrite table: bench/triton_tutorials.py's REWRITES (less the rule for its own host module) and
    LIBRARY_REWRITES; and the regex of a line that imports triton."""
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    import triton_tutorials

    rules = {k: v for k, v in triton_tutorials.REWRITES.items() if triton_tutorials.HOST_MODULE not in v}
    rules.update(LIBRARY_REWRITES)
    return rules, triton_tutorials._TRITON_IMPORT


def rewrite_source(src, name, rules=None):
    """(src with its triton imports rewritten, [(line, old, new)], [(line, kept form, why)]). Only lines that
    import triton change (indentation, a trailing comment and the line ending are kept); an uncovered form
    raises RewriteError."""
    if rules is None:
        rules, starts = rewrite_rules()
    else:
        starts = re.compile(r"^\s*(import|from)\s+triton\b")
    out, changes, kept = [], [], []
    for no, line in enumerate(src.splitlines(keepends=True), 1):
        if starts.match(line):
            indent, body, comment, eol = _IMPORT_LINE.match(line).groups()
            if body in rules:
                new = indent + rules[body] + (comment or "") + (eol or "")
                changes.append((no, body, rules[body]))
                line = new
            elif body in KEPT and re.search(KEPT[body][0], name.replace("\\", "/")):
                kept.append((no, body, KEPT[body][1]))
            else:
                raise RewriteError("%s:%d: no rewrite rule for %r: add one to LIBRARY_REWRITES (or KEPT)"
                                   % (name, no, body))
        elif not line.lstrip().startswith("#") and _HIDDEN_IMPORT.search(line):
            raise RewriteError("%s:%d: an import of triton that does not start the line, which the rewrite does "
                               "not cover: %r" % (name, no, line.strip()))
        out.append(line)
    return "".join(out), changes, kept


def _newest_mtime(folder):
    t = 0.0
    for dirpath, _, files in os.walk(folder):
        for f in files:
            t = max(t, os.path.getmtime(os.path.join(dirpath, f)))
    return t


def make_copies(names=None, quiet=False):
    """Writes .ext/swapped/<name> for each folder of EXT_LAYOUT: .py files rewritten, others copied. Returns
    {name: (files, changes, kept)}; raises RewriteError (nothing of that copy is left) on an uncovered form."""
    rules, _ = rewrite_rules()
    summary = {}
    used = set()
    for name in names or EXT_LAYOUT:
        src_root = os.path.join(EXT, EXT_LAYOUT[name])
        if not os.path.isdir(src_root):
            print("make-copies: %s is missing (skipped)" % os.path.relpath(src_root, ROOT))
            continue
        dst_root = os.path.join(SWAPPED, name)
        tmp = dst_root + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        nfiles, nchanges, nkept = 0, 0, 0
        try:
            for dirpath, dirnames, files in os.walk(src_root):
                dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
                rel_dir = os.path.relpath(dirpath, src_root)
                os.makedirs(os.path.join(tmp, rel_dir), exist_ok=True)
                for f in sorted(files):
                    src, dst = os.path.join(dirpath, f), os.path.join(tmp, rel_dir, f)
                    rel = os.path.normpath(os.path.join(EXT_LAYOUT[name], rel_dir, f))
                    if not f.endswith(".py"):
                        if not f.endswith((".pyc", ".whl")):
                            shutil.copy2(src, dst)
                        continue
                    with open(src, encoding="utf-8") as fh:
                        text = fh.read()
                    new, changes, kept = rewrite_source(text, rel, rules)
                    with open(dst, "w", encoding="utf-8", newline="") as fh:
                        fh.write(new)
                    nfiles += 1
                    nchanges += len(changes)
                    nkept += len(kept)
                    for no, old, repl in changes:
                        used.add(repl)
                        if not quiet:
                            print("%s:%d: %s -> %s" % (rel, no, old, repl))
                    for no, old, why in kept:
                        if not quiet:
                            print("%s:%d: kept: %s (%s)" % (rel, no, old, why))
        except Exception:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        shutil.rmtree(dst_root, ignore_errors=True)
        os.rename(tmp, dst_root)
        summary[name] = (nfiles, nchanges, nkept)
        print("== %s -> %s: %d .py files, %d import lines rewritten, %d kept"
              % (os.path.relpath(src_root, ROOT), os.path.relpath(dst_root, ROOT), nfiles, nchanges, nkept))
    check_rewritten_imports(sorted(used))
    return summary


def check_rewritten_imports(lines):
    """Runs each distinct rewritten import once under the txl that a plain `import txl` finds (else the
    checkout's python/), in a subprocess: every target of the table must exist in txl."""
    if not lines:
        return True
    code = ("import sys\nbad = []\nfor line in %r:\n    try:\n        exec(line, {})\n    except Exception as e:\n"
            "        bad.append('%%s: %%s: %%s' %% (line, type(e).__name__, e))\nimport txl\n"
            "print('txl from', txl.__file__)\nprint('\\n'.join(bad))\nsys.exit(1 if bad else 0)\n" % (lines,))
    env = dict(os.environ)
    probe = subprocess.run([sys.executable, "-c", "import txl"], env=env, capture_output=True,
                           cwd=tempfile.gettempdir())
    if probe.returncode != 0:
        env["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "python")] + [p for p in [env.get("PYTHONPATH")] if p])
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       cwd=tempfile.gettempdir(), timeout=120)
    out = (r.stdout + r.stderr).strip().splitlines()
    where = out[0] if out else "?"
    if r.returncode == 0:
        print("import check: the %d rewritten import forms all import under txl (%s)" % (len(lines), where))
        return True
    print("import check (a warning: a form may be reached only on another path, e.g. Triton < 3 or an NPU, and be "
          "missing in Triton too) under txl (%s):\n  %s" % (where, "\n  ".join(out[1:] or out)))
    return False


def copies_stale():
    for name, folder in EXT_LAYOUT.items():
        src, dst = os.path.join(EXT, folder), os.path.join(SWAPPED, name)
        if os.path.isdir(src) and (not os.path.isdir(dst) or _newest_mtime(src) > _newest_mtime(dst)):
            return True
    return False


# ================================================================================================================
# The selection: ops, their tests, the benchmark shape of the check and the timing
# ================================================================================================================
class Op:
    def __init__(self, name, lib, tests, k=None, cap=3, shape="", timeout_tests=None, timeout_bench=None,
                 note=""):
        self.name, self.lib, self.tests, self.k, self.cap = name, lib, list(tests), k, cap
        self.shape = shape  # what the check and timing run at (the bench function builds it)
        self.timeout_tests, self.timeout_bench = timeout_tests, timeout_bench
        self.note = note


MAX_CASES_PER_OP = 20
_LT = "test/transformers/test_%s.py"
_LLAMA = "after Liger's benchmark scripts, llama-2-7b config (hidden 4096, intermediate 11008, vocab 32000)"
OPS = [
    # Liger-Kernel: tests under .ext/liger_tests (test/transformers/test_<op>.py); shapes: BT = 4096 tokens
    Op("layer_norm", "liger", [_LT % "layer_norm"], cap=5, shape="x[4096,4096] bf16"),
    Op("rms_norm", "liger", [_LT % "rms_norm"], k="not dtensor", cap=5, shape="x[4096,4096] bf16, llama casting"),
    Op("fused_add_rms_norm", "liger", [_LT % "fused_add_rms_norm"], cap=5, shape="x,r[4096,4096] bf16"),
    Op("group_norm", "liger", [_LT % "group_norm"], cap=8, shape="x[32,512,512] fp32, 128 groups"),
    Op("dyt", "liger", [_LT % "dyt"], cap=5, shape="x[4096,4096] bf16"),
    Op("kl_div", "liger", [_LT % "kl_div"], cap=6, shape="[2048,32000] fp32, batchmean"),
    Op("jsd", "liger", [_LT % "jsd"], k="not all_indices_ignored", cap=3, shape="[2048,32000] fp32, beta 0.5"),
    Op("tvd", "liger", [_LT % "tvd"], cap=5, shape="[2048,32000] fp32, batchmean"),
    Op("rope", "liger", [_LT % "rope"], k="not vision", cap=5, shape="q[4,32,1024,128] k[4,8,1024,128] bf16"),
    Op("qwen2vl_mrope", "liger", [_LT % "qwen2vl_mrope"], cap=6,
       shape="q[4,28,1024,128] k[4,4,1024,128] bf16, sections 16/24/24"),
    Op("swiglu", "liger", [_LT % "swiglu"], k="llamamlp or functional or silumul_with_multipliers", cap=4,
       shape="a,b[4096,11008] bf16"),
    Op("geglu", "liger", [_LT % "geglu"], k="test_correctness", cap=5, shape="a,b[4096,11008] bf16"),
    Op("cross_entropy", "liger", [_LT % "cross_entropy"], k="test_correctness and not once", cap=2,
       shape="logits[4096,32000] bf16"),
    Op("fused_linear_cross_entropy", "liger", [_LT % "fused_linear_cross_entropy"],
       k="test_correctness and not token_scaling", cap=2, shape="x[4096,4096] W[32000,4096] bf16"),
    Op("softmax", "liger", [_LT % "softmax"], cap=5, shape="x[4096,4096] bf16"),
    Op("multi_token_attention", "liger", [_LT % "multi_token_attention"], cap=4,
       shape="scores[2,8,1024,1024] bf16, conv 8->8 k3"),
    Op("sparsemax", "liger", [_LT % "sparsemax"], cap=6, shape="x[4096,1024] fp32"),
    # flash-linear-attention: tests under .ext/fla_tests (tests/...); shapes after fla's benchmarks/ops
    Op("cumsum", "fla", ["tests/ops/utils/test_cumsum.py"], k="not scalar_reversed", cap=3,
       shape="g[4,2048,16] / [4,2048,16,128] fp32, chunk 64 (forward only)"),
    Op("l2norm", "fla", ["tests/modules/test_l2norm.py"], cap=10, shape="x[4,2048,16,128] bf16"),
    Op("rmsnorm", "fla", ["tests/modules/test_layernorm.py"], k="rmsnorm and not linear", cap=5,
       shape="x[8192,4096] bf16 (fla.modules.layernorm.rms_norm)"),
    Op("layernorm", "fla", ["tests/modules/test_layernorm.py"],
       k="layernorm and not linear and not rmsnorm and not groupnorm", cap=6,
       shape="x[8192,4096] bf16 (fla.modules.layernorm.layer_norm)"),
    Op("parallel_attn", "fla", ["tests/ops/test_attn.py"],
       k="test_parallel and not parallel_swa and not parallel_sink and not full_value", cap=4, shape="q,k,v[2,2048,16,128] bf16, causal"),
    Op("nsa", "fla", ["tests/ops/test_nsa.py"], k="test_parallel and not decode and not varlen", cap=4,
       shape="q[2,2048,32,64] k,v[2,2048,2,64] bf16, 16 blocks of 32 selected"),
    Op("simple_gla", "fla", ["tests/ops/test_simple_gla.py"], k="(test_chunk or test_fused_recurrent or "
       "test_parallel) and not varlen and not state_v_first and not with_chunk_size", cap=4,
       shape="q,k,v[2,2048,8,128] bf16, g[2,2048,8] (chunk)"),
    Op("gla", "fla", ["tests/ops/test_gla.py"], k="(test_chunk or test_fused_recurrent) and not varlen and not "
       "state_v_first", cap=4, shape="q,k,v,g[2,2048,8,128] bf16 (chunk)"),
    Op("delta_rule", "fla", ["tests/ops/test_delta.py"], k="test_chunk and not varlen", cap=4,
       shape="q,k,v[2,2048,8,128] bf16, beta (chunk)"),
    Op("gated_delta_rule", "fla", ["tests/ops/test_gdn.py"], k="(test_chunk or test_fused_recurrent) and not "
       "varlen and not flash_qla and not gqa", cap=2, shape="q,k,v[2,2048,8,128] bf16, g, beta (chunk)"),
]
OPS_BY_NAME = {op.name: op for op in OPS}


def select_ops(spec):
    if not spec:
        return list(OPS)
    names = [s.strip() for s in spec.split(",") if s.strip()]
    unknown = [n for n in names if n not in OPS_BY_NAME and n not in ("liger", "fla")]
    if unknown:
        sys.exit("--ops: unknown %s (known: %s, or liger / fla)" % (", ".join(unknown), ", ".join(OPS_BY_NAME)))
    return [op for op in OPS if op.name in names or op.lib in names]


def print_list(ops, args):
    print("%-27s %-6s %-42s %-44s %4s  %s" % ("op", "lib", "tests", "-k", "cap", "check/timing shape"))
    for op in ops:
        print("%-27s %-6s %-42s %-44s %4d  %s" % (op.name, op.lib, ",".join(op.tests), op.k or "-", op.cap, op.shape))
    print("\nat most %d test cases per op (at most `cap` per test function, evenly spaced over its parametrizations);"
          " timeouts: tests %ds, check+timing %ds per subprocess (--timeout); jobs %d; budget %ds"
          % (MAX_CASES_PER_OP, args.timeout_tests or args.timeout, args.timeout, args.jobs, args.budget))
    print("Liger shapes: %s; fla shapes: B, T, H, D as its benchmarks/ops scripts use (T 2048, D 128)" % _LLAMA)


# ================================================================================================================
# Child side: environment, txl host shims, the real-Triton leak detector, the transformers stand-in
# ================================================================================================================
SHIMS_USED = set()
LEAKS = []


# name shown in the "txl host gaps" line -> (txl lacks it?, install the stand-in). Empty now: fla's CachedAutotuner
# needed Triton's Autotuner(fn, arg_names, configs, key, ...) and its attributes (keys, user_defined_pre_hook, ...),
# which txl has had since 3225297 as txl.runtime.autotuner (the rewrite's target). A new gap gets an entry here.
HOST_SHIMS = {}


def install_host_shims(strict):
    if strict:
        return []
    installed = []
    for name, (lacking, install) in HOST_SHIMS.items():
        try:
            if lacking():
                install()
                installed.append(name)
        except Exception as e:  # a probe that fails must not stop the run: the op's own errors will show
            installed.append("%s (stand-in failed: %s)" % (name, e))
    return installed


def install_leak_detector(lib_modules):
    """txl backend: records a launch of one of the library's kernels through the real Triton."""
    try:
        import triton.runtime.jit as tj
    except Exception:
        return
    run = tj.JITFunction.run

    def run_recording(self, *args, **kwargs):
        mod = getattr(getattr(self, "fn", None), "__module__", "") or ""
        if mod.split(".")[0] in lib_modules or mod.startswith("test"):
            name = "%s.%s" % (mod, getattr(self.fn, "__name__", "?"))
            if name not in LEAKS:
                LEAKS.append(name)
        return run(self, *args, **kwargs)

    tj.JITFunction.run = run_recording


def _standin_module(name, **attrs):
    import types

    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    m.__txl_standin__ = True
    sys.modules[name] = m
    return m


def install_transformers_standin():
    """Only when the host lacks them: `transformers` / `tokenizers` with the names Liger's test/utils.py imports
    at its top, nothing more (a test that needs a real model fails to import it)."""
    added = []
    try:
        import transformers  # noqa: F401
    except ImportError:
        cls = lambda n: type(n, (), {"__init__": lambda self, *a, **k: None})  # noqa: E731
        tf = _standin_module("transformers", __version__="4.57.0", PretrainedConfig=cls("PretrainedConfig"),
                             PreTrainedModel=cls("PreTrainedModel"))
        tf.__path__ = []
        _standin_module("transformers.tokenization_utils_base", BatchEncoding=cls("BatchEncoding"))
        added.append("transformers")
    try:
        import tokenizers  # noqa: F401
    except ImportError:
        cls = lambda n: type(n, (), {"__init__": lambda self, *a, **k: None})  # noqa: E731
        tk = _standin_module("tokenizers", AddedToken=cls("AddedToken"), Tokenizer=cls("Tokenizer"))
        tk.__path__ = []
        _standin_module("tokenizers.models", BPE=cls("BPE"))
        _standin_module("tokenizers.pre_tokenizers", Whitespace=cls("Whitespace"))
        _standin_module("tokenizers.trainers", BpeTrainer=cls("BpeTrainer"))
        added.append("tokenizers")
    return added


def lib_paths(lib, backend):
    base = SWAPPED if backend == "txl" else EXT
    if backend == "txl":
        return os.path.join(base, lib), os.path.join(base, LIB_TESTS[lib])
    return os.path.join(base, EXT_LAYOUT[lib]), os.path.join(base, EXT_LAYOUT[LIB_TESTS[lib]])


AUTOTUNE_ENV = "TXL_BENCH_AUTOTUNE_CONFIGS"


def limit_autotune_configs(backend, limit):
    """--autotune-configs N: every autotuner of the backend keeps the first N of its configs (the same ones under
    both backends, since both read the library's lists). fla autotunes 12-48 configs per kernel on its first call,
    so its chunk ops' tests did not finish in any budget; with one config, an autotuner launches it untuned (both
    Triton and txl), which tests correctness, not the best config's speed. Patched on the base class, so
    subclasses (fla's CachedAutotuner) are limited too."""
    import importlib

    # the module, not txl.autotune the decorator that shadows it as an attribute of the package
    mod = importlib.import_module("txl.autotune" if backend == "txl" else "triton.runtime.autotuner")
    cls, pos = mod.Autotuner, (1 if backend == "txl" else 2)  # txl: (fn, configs, ...); Triton: (fn, arg_names, configs, ...)
    init = cls.__init__

    def limited(self, *args, **kwargs):
        if "configs" in kwargs:
            kwargs["configs"] = list(kwargs["configs"])[:limit]
        elif len(args) > pos:
            args = args[:pos] + (list(args[pos])[:limit],) + args[pos + 1:]
        init(self, *args, **kwargs)

    cls.__init__ = limited
    return "%s.Autotuner keeps the first %d configs" % (mod.__name__, limit)


def child_setup(op, backend, strict):
    """sys.path: the library's folder first, then its tests; bench/ and the checkout's python/ removed (txl is
    the installed one). Returns notes for the result."""
    lib_root, tests_root = lib_paths(op.lib, backend)
    drop = {os.path.abspath(p) for p in (HERE, os.path.join(ROOT, "python"), "")}
    sys.path[:] = [lib_root, tests_root] + [p for p in sys.path if os.path.abspath(p or ".") not in drop
                                            and p not in (lib_root, tests_root)]
    os.environ.pop("LIGER_KERNEL_IMPL", None)
    # fla: the model zoo (fla.layers / fla.models, which need transformers >= 5.6) is not imported; ops only
    sys.modules.setdefault("fla.layers", None)
    sys.modules.setdefault("fla.models", None)
    notes = {"backend": backend, "lib_root": lib_root}
    limit = int(os.environ.get(AUTOTUNE_ENV, "0") or 0)
    if limit:
        notes["autotune_configs"] = limit_autotune_configs(backend, limit)
    if backend == "txl":
        import txl

        notes["txl"] = getattr(txl, "__file__", "?")
        notes["shims"] = install_host_shims(strict)
        install_leak_detector({"liger_kernel", "fla"})
    else:
        try:
            import triton

            notes["triton"] = "%s %s" % (triton.__version__, triton.__file__)
        except Exception as e:
            notes["triton"] = "import failed: %s" % e
    return notes


def _first_line(text, limit=300):
    for line in str(text).splitlines():
        if line.strip():
            return line.strip()[:limit]
    return str(text).strip()[:limit]


def error_line(e):
    msg = "%s: %s" % (type(e).__name__, e)
    return _first_line(msg)


# ---------------------------------------------------------------------------------------------------------------
# (a) tests: pytest in the child, with a plugin that caps the cases and records outcomes as they come
# ---------------------------------------------------------------------------------------------------------------
class CapPlugin:
    def __init__(self, cap, max_total, result_path, base):
        self.cap, self.max_total, self.result_path = cap, max_total, result_path
        self.res = dict(base, passed=0, failed=0, errors=0, skipped=0, selected=[], first_failure=None,
                        collect_errors=[], done=False)

    def _write(self):
        self.res["leaks"] = list(LEAKS)
        self.res["shims_used"] = sorted(SHIMS_USED)
        tmp = self.result_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.res, f)
        os.replace(tmp, self.result_path)

    def pytest_collection_modifyitems(self, session, config, items):
        groups = {}
        for it in items:
            key = (str(getattr(it, "fspath", "")), getattr(it, "originalname", None) or it.name.split("[")[0])
            groups.setdefault(key, []).append(it)
        picked = []
        for group in groups.values():
            n, c = len(group), max(1, self.cap)
            idx = sorted({round(i * (n - 1) / (c - 1)) for i in range(c)}) if c > 1 and n > 1 else [0]
            picked.append([group[i] for i in idx if i < n])
        chosen = []
        while len(chosen) < self.max_total and any(picked):  # round robin over the test functions
            for g in picked:
                if g and len(chosen) < self.max_total:
                    chosen.append(g.pop(0))
        keep = set(id(it) for it in chosen)
        deselected = [it for it in items if id(it) not in keep]
        items[:] = [it for it in items if id(it) in keep]
        if deselected:
            config.hook.pytest_deselected(items=deselected)
        self.res["selected"] = [it.nodeid for it in items]
        self._write()

    def pytest_collectreport(self, report):
        if report.failed:
            msg = _first_line(getattr(report.longrepr, "longrepr", None) or report.longreprtext or "", 400)
            text = report.longreprtext or ""
            m = re.findall(r"^E\s+(.*)$", text, re.M)
            if m:
                msg = m[-1].strip()[:400]
            self.res["collect_errors"].append("%s: %s" % (report.nodeid, msg))
            if not self.res["first_failure"]:
                self.res["first_failure"] = "collection error %s: %s" % (report.nodeid, msg)
            self._write()

    def pytest_runtest_logreport(self, report):
        r = self.res
        if report.when == "call":
            if report.passed:
                r["passed"] += 1
            elif report.failed:
                r["failed"] += 1
            elif report.skipped:
                r["skipped"] += 1
        elif report.failed:  # setup / teardown
            r["errors"] += 1
        elif report.skipped and report.when == "setup":
            r["skipped"] += 1
        if report.failed and not r["first_failure"]:
            crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
            msg = crash.message if crash is not None else _first_line(report.longreprtext or "")
            r["first_failure"] = "%s (%s): %s" % (report.nodeid.split("::")[-1], report.when, _first_line(msg))
        if report.when == "teardown" or report.failed:
            self._write()

    def pytest_sessionfinish(self, session, exitstatus):
        self.res["done"] = True
        self.res["exitstatus"] = int(exitstatus)
        self._write()


def child_tests(op, backend, result_path, strict, cap_scale=1.0):
    base = {"op": op.name, "backend": backend, "phase": "tests"}
    try:
        base.update(child_setup(op, backend, strict))
        base["standins"] = install_transformers_standin()
    except Exception as e:
        with open(result_path, "w") as f:
            json.dump(dict(base, error="setup: " + error_line(e)), f)
        return
    import pytest

    _, tests_root = lib_paths(op.lib, backend)
    files = [os.path.join(tests_root, t) for t in op.tests]
    args = files + ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", tests_root, "-rN",
                    "--no-header", "-W", "ignore::DeprecationWarning", "--continue-on-collection-errors"]
    if op.k:
        # (-k also matches the names of the folders above a test: the txl copy lives under .ext/swapped, so a word
        # such as "swa" deselected every case there and none under Triton; the selections name tests precisely)
        args += ["-k", op.k]
    cap = max(1, int(round(op.cap * cap_scale)))
    plugin = CapPlugin(cap, MAX_CASES_PER_OP, result_path, base)
    os.chdir(tests_root)
    plugin._write()
    try:
        plugin.res["pytest_rc"] = int(pytest.main(args, plugins=[plugin]))
    except BaseException as e:  # pytest.main catches most; anything past it is reported
        plugin.res["error"] = error_line(e)
    plugin.res["done"] = True
    plugin._write()


# ---------------------------------------------------------------------------------------------------------------
# (b) + (c) check and timing: each bench_<op> returns (inputs, needs_grad flags, lib fn, reference fn)
# ---------------------------------------------------------------------------------------------------------------
def _rotate_half(x):
    import torch

    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def _rms(x, w, eps):
    import torch

    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def bench_layer_norm(torch, F, dev):
    from liger_kernel.transformers.functional import liger_layer_norm

    x = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
    w = torch.rand(4096, device=dev, dtype=torch.bfloat16) + 0.5
    b = torch.randn(4096, device=dev, dtype=torch.bfloat16)
    return [x, w, b], [True] * 3, lambda x, w, b: liger_layer_norm(x, w, b, 1e-6), \
        lambda x, w, b: F.layer_norm(x, (x.shape[-1],), w, b, 1e-6)


def bench_rms_norm(torch, F, dev):
    from liger_kernel.transformers.functional import liger_rms_norm

    x = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
    w = torch.rand(4096, device=dev, dtype=torch.bfloat16) + 0.5
    return [x, w], [True, True], lambda x, w: liger_rms_norm(x, w, 1e-6), lambda x, w: _rms(x, w, 1e-6)


def bench_fused_add_rms_norm(torch, F, dev):
    from liger_kernel.transformers.functional import liger_fused_add_rms_norm

    x = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
    r = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
    w = torch.rand(4096, device=dev, dtype=torch.bfloat16) + 0.5

    def ref(x, r, w):
        s = x + r
        return _rms(s, w, 1e-6), s

    return [x, r, w], [True] * 3, lambda x, r, w: liger_fused_add_rms_norm(x, r, w, 1e-6), ref


def bench_group_norm(torch, F, dev):
    from liger_kernel.transformers.functional import liger_group_norm

    C, G = 512, 128
    x = torch.randn(32, C, 512, device=dev, dtype=torch.float32)
    w = torch.rand(C, device=dev) + 0.5
    b = torch.randn(C, device=dev)
    return [x, w, b], [True] * 3, lambda x, w, b: liger_group_norm(x, w, b, C, G, 1e-6), \
        lambda x, w, b: F.group_norm(x, G, w, b, 1e-6)


def bench_dyt(torch, F, dev):
    from liger_kernel.transformers.functional import liger_dyt

    x = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
    alpha = torch.full((1,), 0.5, device=dev, dtype=torch.bfloat16)
    gamma = torch.rand(4096, device=dev, dtype=torch.bfloat16) + 0.5
    beta = torch.randn(4096, device=dev, dtype=torch.bfloat16)
    return [x, alpha, gamma, beta], [True] * 4, liger_dyt, lambda x, a, g, b: g * torch.tanh(a * x) + b


def _log_probs(torch, shape, dev, dtype=None):
    return torch.randn(*shape, device=dev).log_softmax(-1).to(dtype or torch.float32)


def bench_kl_div(torch, F, dev):
    from liger_kernel.transformers.functional import liger_kl_div

    inp = _log_probs(torch, (2048, 32000), dev)
    tgt = _log_probs(torch, (2048, 32000), dev).exp()
    return [inp, tgt], [True, False], lambda i, t: liger_kl_div(i, t, reduction="batchmean"), \
        lambda i, t: F.kl_div(i, t, reduction="batchmean")


def bench_jsd(torch, F, dev):
    from liger_kernel.transformers.functional import liger_jsd

    log_q = _log_probs(torch, (2048, 32000), dev)  # student (input)
    log_p = _log_probs(torch, (2048, 32000), dev)  # teacher (target)

    def ref(log_q, log_p, beta=0.5):
        p, q = log_p.exp(), log_q.exp()
        log_m = torch.log(beta * p + (1 - beta) * q)
        loss = beta * (p * (log_p - log_m)).sum(-1) + (1 - beta) * (q * (log_q - log_m)).sum(-1)
        return loss.sum() / log_q.shape[0]

    return [log_q, log_p], [True, False], lambda i, t: liger_jsd(i, t, beta=0.5), ref


def bench_tvd(torch, F, dev):
    from liger_kernel.transformers.functional import liger_tvd

    p = torch.randn(2048, 32000, device=dev).softmax(-1)
    q = torch.randn(2048, 32000, device=dev).softmax(-1)
    return [p, q], [True, False], lambda p, q: liger_tvd(p, q, reduction="batchmean"), \
        lambda p, q: (p - q).abs().sum() / 2.0 / p.shape[0]


def bench_rope(torch, F, dev):
    from liger_kernel.transformers.functional import liger_rope

    B, T, D = 4, 1024, 128
    q = torch.randn(B, 32, T, D, device=dev, dtype=torch.bfloat16)
    k = torch.randn(B, 8, T, D, device=dev, dtype=torch.bfloat16)
    inv = 1.0 / (10000 ** (torch.arange(0, D, 2, device=dev, dtype=torch.float32) / D))
    emb = torch.cat([torch.outer(torch.arange(T, device=dev, dtype=torch.float32), inv)] * 2, dim=-1)
    cos, sin = emb.cos()[None].to(torch.bfloat16), emb.sin()[None].to(torch.bfloat16)

    def ref(q, k, cos, sin):
        c, s = cos.unsqueeze(1), sin.unsqueeze(1)
        return q * c + _rotate_half(q) * s, k * c + _rotate_half(k) * s

    return [q, k, cos, sin], [True, True, False, False], lambda q, k, c, s: liger_rope(q, k, c, s), ref


def bench_qwen2vl_mrope(torch, F, dev):
    from liger_kernel.transformers.functional import liger_qwen2vl_mrope

    B, T, D, section = 4, 1024, 128, [16, 24, 24]
    q = torch.randn(B, 28, T, D, device=dev, dtype=torch.bfloat16)
    k = torch.randn(B, 4, T, D, device=dev, dtype=torch.bfloat16)
    inv = 1.0 / (1000000 ** (torch.arange(0, D, 2, device=dev, dtype=torch.float32) / D))
    pos = torch.randint(0, 4 * T, (3, B, T), device=dev).float()
    emb = torch.cat([pos[..., None] * inv] * 2, dim=-1)  # [3, B, T, D]
    cos, sin = emb.cos().to(torch.bfloat16), emb.sin().to(torch.bfloat16)

    def ref(q, k, cos, sin):
        sec = section * 2
        c = torch.cat([m[i % 3] for i, m in enumerate(cos.split(sec, dim=-1))], dim=-1).unsqueeze(1)
        s = torch.cat([m[i % 3] for i, m in enumerate(sin.split(sec, dim=-1))], dim=-1).unsqueeze(1)
        return q * c + _rotate_half(q) * s, k * c + _rotate_half(k) * s

    return [q, k, cos, sin], [True, True, False, False], \
        lambda q, k, c, s: liger_qwen2vl_mrope(q, k, c, s, section), ref


def bench_swiglu(torch, F, dev):
    from liger_kernel.transformers.functional import liger_swiglu

    a = torch.randn(4096, 11008, device=dev, dtype=torch.bfloat16)
    b = torch.randn(4096, 11008, device=dev, dtype=torch.bfloat16)
    return [a, b], [True, True], liger_swiglu, lambda a, b: F.silu(a) * b


def bench_geglu(torch, F, dev):
    from liger_kernel.transformers.functional import liger_geglu

    a = torch.randn(4096, 11008, device=dev, dtype=torch.bfloat16)
    b = torch.randn(4096, 11008, device=dev, dtype=torch.bfloat16)
    return [a, b], [True, True], liger_geglu, lambda a, b: F.gelu(a, approximate="tanh") * b


def bench_cross_entropy(torch, F, dev):
    from liger_kernel.transformers.functional import liger_cross_entropy

    x = torch.randn(4096, 32000, device=dev, dtype=torch.bfloat16)
    y = torch.randint(0, 32000, (4096,), device=dev)
    return [x, y], [True, False], liger_cross_entropy, lambda x, y: F.cross_entropy(x, y)


def bench_fused_linear_cross_entropy(torch, F, dev):
    from liger_kernel.transformers.functional import liger_fused_linear_cross_entropy

    x = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
    w = torch.randn(32000, 4096, device=dev, dtype=torch.bfloat16) * 0.02
    y = torch.randint(0, 32000, (4096,), device=dev)
    return [x, w, y], [True, True, False], liger_fused_linear_cross_entropy, \
        lambda x, w, y: F.cross_entropy(x @ w.T, y)


def bench_softmax(torch, F, dev):
    from liger_kernel.transformers.functional import liger_softmax

    x = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
    return [x], [True], liger_softmax, lambda x: x.softmax(-1)


def bench_multi_token_attention(torch, F, dev):
    from liger_kernel.transformers.functional import liger_multi_token_attention

    B, C, L, K = 2, 8, 1024, 3
    scores = torch.randn(B, C, L, L, device=dev, dtype=torch.bfloat16)
    w = torch.randn(C, C, K, K, device=dev, dtype=torch.bfloat16) * 0.2
    b = torch.randn(C, device=dev, dtype=torch.bfloat16) * 0.1

    def ref(s, w, b):  # Liger's test reference (TorchMultiTokenAttention)
        mask = torch.tril(torch.ones(L, L, dtype=torch.bool, device=s.device)).view(1, 1, L, L)
        probs = s.masked_fill(~mask, -1e9).softmax(-1)
        return F.conv2d(probs, w, b, stride=1, padding=K // 2).masked_fill(~mask, 0.0)

    return [scores, w, b], [True] * 3, lambda s, w, b: liger_multi_token_attention(s, w, b, padding=K // 2), ref


def bench_sparsemax(torch, F, dev):
    from liger_kernel.transformers.functional import liger_sparsemax

    x = torch.randn(4096, 1024, device=dev, dtype=torch.float32)

    def ref(z):
        zs, _ = z.sort(-1, descending=True)
        r = torch.arange(1, z.shape[-1] + 1, device=z.device, dtype=z.dtype)
        cs = zs.cumsum(-1)
        k = ((1 + r * zs) > cs).sum(-1, keepdim=True)
        tau = (cs.gather(-1, k - 1) - 1) / k
        return (z - tau).clamp(min=0)

    return [x], [True], lambda x: liger_sparsemax(x, dim=-1), ref


# fla ---------------------------------------------------------------------------------------------------------
def bench_cumsum(torch, F, dev):
    from fla.ops.utils import chunk_global_cumsum, chunk_local_cumsum

    g = torch.randn(4, 2048, 16, device=dev)
    g4 = torch.randn(4, 2048, 16, 128, device=dev)

    def ref(g, g4):
        loc = g.view(4, 32, 64, 16).cumsum(2).view_as(g)
        return loc, g4.cumsum(1)

    return [g, g4], [False, False], \
        lambda g, g4: (chunk_local_cumsum(g, chunk_size=64), chunk_global_cumsum(g4)), ref


def bench_l2norm(torch, F, dev):
    from fla.modules.l2norm import l2norm

    x = torch.randn(4, 2048, 16, 128, device=dev, dtype=torch.bfloat16)
    return [x], [True], lambda x: l2norm(x, eps=1e-6), \
        lambda x: x * torch.rsqrt(x.pow(2).sum(-1, keepdim=True) + 1e-6)


def bench_rmsnorm(torch, F, dev):
    from fla.modules.layernorm import rms_norm, rms_norm_ref

    x = torch.randn(8192, 4096, device=dev, dtype=torch.bfloat16)
    w = torch.rand(4096, device=dev, dtype=torch.bfloat16) + 0.5
    return [x, w], [True, True], lambda x, w: rms_norm(x, w, None, eps=1e-6), \
        lambda x, w: rms_norm_ref(x, w, None, eps=1e-6, upcast=True)


def bench_layernorm(torch, F, dev):
    from fla.modules.layernorm import layer_norm, layer_norm_ref

    x = torch.randn(8192, 4096, device=dev, dtype=torch.bfloat16)
    w = torch.rand(4096, device=dev, dtype=torch.bfloat16) + 0.5
    b = torch.randn(4096, device=dev, dtype=torch.bfloat16)
    return [x, w, b], [True] * 3, lambda x, w, b: layer_norm(x, w, b, eps=1e-6), \
        lambda x, w, b: layer_norm_ref(x, w, b, eps=1e-6, upcast=True)


def bench_parallel_attn(torch, F, dev):
    from fla.ops.attn.naive import naive_parallel_attn
    from fla.ops.attn.parallel import parallel_attn

    q, k, v = (torch.randn(2, 2048, 16, 128, device=dev, dtype=torch.bfloat16) for _ in range(3))
    return [q, k, v], [True] * 3, lambda q, k, v: parallel_attn(q=q, k=k, v=v), \
        lambda q, k, v: naive_parallel_attn(q=q, k=k, v=v)[0]


def bench_nsa(torch, F, dev):
    from fla.ops.nsa.naive import naive_nsa_selection
    from fla.ops.nsa.parallel import parallel_nsa

    B, T, H, HQ, D, S, bs = 2, 2048, 2, 32, 64, 16, 32
    q = torch.randn(B, T, HQ, D, device=dev, dtype=torch.bfloat16)
    k = torch.randn(B, T, H, D, device=dev, dtype=torch.bfloat16)
    v = torch.randn(B, T, H, D, device=dev, dtype=torch.bfloat16)
    # as the library's test builds them: per (b, t, h) S distinct causal blocks (-1 where fewer exist), sorted
    nblk = T // bs
    avail = (torch.arange(T, device=dev) // bs + 1)[None, :, None, None]
    score = torch.rand(B, T, H, nblk, device=dev).masked_fill(torch.arange(nblk, device=dev) >= avail, -1.0)
    top = score.topk(S, dim=-1)
    idx = torch.where(top.values >= 0, top.indices, torch.full_like(top.indices, -1))
    idx = idx.sort(-1)[0]
    return [q, k, v], [True] * 3, \
        lambda q, k, v: parallel_nsa(q=q, k=k, v=v, block_indices=idx, block_counts=S, block_size=bs), \
        lambda q, k, v: naive_nsa_selection(q=q, k=k, v=v, block_indices=idx, block_size=bs)


def _qkv(torch, dev, B=2, T=2048, H=8, D=128, n=3):
    return [torch.randn(B, T, H, D, device=dev, dtype=torch.bfloat16) for _ in range(n)]


def bench_simple_gla(torch, F, dev):
    from fla.ops.simple_gla import chunk_simple_gla
    from fla.ops.simple_gla.naive import naive_recurrent_simple_gla

    q, k, v = _qkv(torch, dev)
    g = F.logsigmoid(torch.randn(2, 2048, 8, device=dev))
    return [q, k, v, g], [True] * 4, lambda q, k, v, g: chunk_simple_gla(q, k, v, g, scale=0.088)[0], \
        lambda q, k, v, g: naive_recurrent_simple_gla(q, k, v, g, scale=0.088)[0]


def bench_gla(torch, F, dev):
    from fla.ops.gla import chunk_gla
    from fla.ops.gla.naive import naive_recurrent_gla

    q, k, v = _qkv(torch, dev)
    g = F.logsigmoid(torch.rand(2, 2048, 8, 128, device=dev)).to(torch.bfloat16)
    return [q, k, v, g], [True] * 4, lambda q, k, v, g: chunk_gla(q, k, v, g)[0], \
        lambda q, k, v, g: naive_recurrent_gla(q, k, v, g)[0]  # both scale q by K ** -0.5


def bench_delta_rule(torch, F, dev):
    from fla.ops.delta_rule import chunk_delta_rule
    from fla.ops.delta_rule.naive import delta_rule_recurrence

    q, k, v = _qkv(torch, dev)
    q, k = F.normalize(q.float(), dim=-1).to(torch.bfloat16), F.normalize(k.float(), dim=-1).to(torch.bfloat16)
    beta = torch.rand(2, 2048, 8, device=dev, dtype=torch.bfloat16).sigmoid()
    tr = lambda x: x.transpose(1, 2)  # noqa: E731  [B, T, H, ...] <-> [B, H, T, ...]
    return [q, k, v, beta], [True] * 4, lambda q, k, v, b: chunk_delta_rule(q, k, v, b)[0], \
        lambda q, k, v, b: tr(delta_rule_recurrence(tr(q), tr(k), tr(v), tr(b))[0])


def bench_gated_delta_rule(torch, F, dev):
    from fla.ops.gated_delta_rule import chunk_gated_delta_rule
    from fla.ops.gated_delta_rule.naive import naive_recurrent_gated_delta_rule

    q, k, v = _qkv(torch, dev)
    q, k = F.normalize(q.float(), dim=-1).to(torch.bfloat16), F.normalize(k.float(), dim=-1).to(torch.bfloat16)
    g = F.logsigmoid(torch.rand(2, 2048, 8, device=dev))
    beta = torch.rand(2, 2048, 8, device=dev).sigmoid()
    return [q, k, v, g, beta], [True] * 5, \
        lambda q, k, v, g, b: chunk_gated_delta_rule(q, k, v, g, b)[0], \
        lambda q, k, v, g, b: naive_recurrent_gated_delta_rule(q, k, v, b, g)[0]


class GpuLock:
    """The timed section of one subprocess at a time (an flock on a file the parent names)."""

    def __init__(self, path):
        self.path, self.f = path, None

    def __enter__(self):
        if self.path:
            import fcntl

            self.f = open(self.path, "a")
            fcntl.flock(self.f, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        if self.f:
            import fcntl

            fcntl.flock(self.f, fcntl.LOCK_UN)
            self.f.close()


def child_bench(op, backend, result_path, strict, rep_ms=100):
    res = {"op": op.name, "backend": backend, "phase": "bench", "shape": op.shape}

    def write(**kw):
        res.update(kw)
        res["leaks"], res["shims_used"] = list(LEAKS), sorted(SHIMS_USED)
        with open(result_path + ".tmp", "w") as f:
            json.dump(res, f)
        os.replace(result_path + ".tmp", result_path)

    stage = "setup"
    try:
        res.update(child_setup(op, backend, strict))
        write(stage=stage)
        import torch
        import torch.nn.functional as F
        from triton.testing import do_bench  # the same timer for both backends (Triton's)

        dev = "cuda"
        res["device"] = torch.cuda.get_device_name()
        torch.manual_seed(0)
        stage = "import"
        write(stage=stage)
        inputs, grads, lib_fn, ref_fn = globals()["bench_" + op.name](torch, F, dev)
        as_tuple = lambda o: tuple(o) if isinstance(o, (tuple, list)) else (o,)  # noqa: E731

        def leaves(dtype=None):
            out = []
            for x, g in zip(inputs, grads):
                y = x.detach().clone()
                if dtype is not None and y.is_floating_point():
                    y = y.to(dtype)
                out.append(y.requires_grad_(g))
            return out

        stage = "first call (compile)"
        write(stage=stage)
        t0 = time.time()
        lib_in = leaves()
        lib_out = as_tuple(lib_fn(*lib_in))
        torch.cuda.synchronize()
        res["first_fwd_s"] = round(time.time() - t0, 2)
        cot = [torch.randn_like(o, dtype=torch.float32) if o.is_floating_point() else None for o in lib_out]
        has_bwd = any(grads) and any(o.requires_grad for o in lib_out)
        if has_bwd:
            pairs = [(o, c.to(o.dtype)) for o, c in zip(lib_out, cot) if c is not None and o.requires_grad]
            torch.autograd.backward([p[0] for p in pairs], [p[1] for p in pairs])
            torch.cuda.synchronize()
        res["first_fwd_bwd_s"] = round(time.time() - t0, 2)
        stage = "check vs fp32"
        write(stage=stage)
        ref_in = leaves(torch.float32)
        ref_out = as_tuple(ref_fn(*ref_in))
        if has_bwd:
            pairs = [(o, c) for o, c in zip(ref_out, cot) if c is not None and o.requires_grad]
            torch.autograd.backward([p[0] for p in pairs], [p[1] for p in pairs])
        errs = {}

        def err(name, a, b):
            a, b = a.detach().float(), b.detach().float()
            if a.shape != b.shape:
                a = a.reshape(b.shape)
            scale = b.abs().max().item()
            e = (a - b).abs().max().item() / (scale if scale > 0 else 1.0)
            errs[name] = float("nan") if e != e else e

        for i, (a, b) in enumerate(zip(lib_out, ref_out)):
            err("out%d" % i, a, b)
        if has_bwd:
            for i, (a, b) in enumerate(zip(lib_in, ref_in)):
                if a.grad is not None and b.grad is not None:
                    err("d%d" % i, a.grad, b.grad)
                elif b.grad is not None:
                    errs["d%d" % i] = float("nan")
        res["errors"] = errs
        res["max_err"] = max(errs.values()) if errs else None
        del ref_in, ref_out
        stage = "timing"
        write(stage=stage)
        lib_in = leaves()
        grad_to_none = [x for x in lib_in if x.requires_grad]
        fwd = lambda: lib_fn(*lib_in)  # noqa: E731
        tcot = [c.to(o.dtype) if c is not None else None for o, c in zip(lib_out, cot)]  # cast once, not timed

        def fwd_bwd():
            out = as_tuple(lib_fn(*lib_in))
            ps = [(o, c) for o, c in zip(out, tcot) if c is not None and o.requires_grad]
            torch.autograd.backward([p[0] for p in ps], [p[1] for p in ps])

        fwd()
        if has_bwd:
            fwd_bwd()
        torch.cuda.synchronize()
        if backend == "txl":
            res["slow_launches"] = _count_slow_launches(fwd_bwd if has_bwd else fwd)
        with GpuLock(os.environ.get("TXL_LIBRARIES_GPU_LOCK")):
            res["fwd_ms"] = do_bench(fwd, rep=rep_ms, grad_to_none=grad_to_none, return_mode="median")
            if has_bwd:
                res["fwd_bwd_ms"] = do_bench(fwd_bwd, rep=rep_ms, grad_to_none=grad_to_none, return_mode="median")
        stage = "done"
        write(stage=stage)
    except BaseException as e:
        import traceback

        tb = traceback.format_exc()
        where = [ln.strip() for ln in tb.splitlines() if ln.strip().startswith("File ")]
        write(stage=stage, error="%s: %s" % (stage, error_line(e)), where=where[-1] if where else "",
              traceback=tb[-4000:])


def _count_slow_launches(step, iters=5):
    """Launches per call of ``step`` that miss txl's fast path (after a warm-up call), and why: each such launch
    binds and specialises its arguments in Python again (tens to hundreds of microseconds), which do_bench times
    as if it were kernel time. Returns {"per_call": n, "reasons": {...}} with the argument types that stopped the
    fingerprint."""
    import importlib

    jit = importlib.import_module("txl.jit")  # the module (txl.jit, the attribute, is the decorator)

    misses, reasons = [0], {}
    specialize, fingerprint = jit.JITFunction.specialize, jit._arg_fingerprint

    def counting_specialize(self, *a, **kw):
        misses[0] += 1
        return specialize(self, *a, **kw)

    def noting_fingerprint(v, kind):
        try:
            return fingerprint(v, kind)
        except jit._NoFastPath:
            key = "%s (%s)" % (type(v).__name__, kind)
            reasons[key] = reasons.get(key, 0) + 1
            raise

    jit.JITFunction.specialize, jit._arg_fingerprint = counting_specialize, noting_fingerprint
    try:
        for _ in range(iters):
            step()
    finally:
        jit.JITFunction.specialize, jit._arg_fingerprint = specialize, fingerprint
    return {"per_call": misses[0] / iters, "reasons": reasons}


def child_fake(op, backend, result_path, seconds):
    """For checking the plumbing without a GPU: sleeps (past its timeout, if asked to)."""
    with open(result_path, "w") as f:
        json.dump({"op": op, "backend": backend, "phase": "fake", "stage": "sleeping"}, f)
    print("fake child %s/%s: sleeping %.1f s" % (op, backend, seconds), flush=True)
    time.sleep(seconds)
    with open(result_path, "w") as f:
        json.dump({"op": op, "backend": backend, "phase": "fake", "stage": "done", "slept": seconds}, f)


# ================================================================================================================
# Parent side: subprocesses with timeouts, a budget, the table
# ================================================================================================================
class Runner:
    def __init__(self, args, workdir):
        self.args, self.workdir = args, workdir
        self.deadline = time.time() + args.budget
        self.lock_path = os.path.join(workdir, "gpu.lock")
        self.print_lock = threading.Lock()

    def run_child(self, tag, argv, timeout, start_deadline=None):
        """Runs `python3 bench/libraries.py <argv> --result FILE` in its own process group; kills the group at
        the timeout. Returns the child's result dict with status: ok / timeout / crashed (rc) / not run."""
        left = self.deadline - time.time()
        if left < 5 or (start_deadline is not None and time.time() > start_deadline):
            return {"status": "not run (budget)", "wall_s": 0.0}
        timeout = min(timeout, left)
        result = os.path.join(self.workdir, tag + ".json")
        log = os.path.join(self.workdir, tag + ".log")
        env = dict(os.environ, TXL_LIBRARIES_GPU_LOCK=self.lock_path, PYTHONUNBUFFERED="1")
        cmd = [sys.executable, os.path.abspath(__file__)] + argv + ["--result", result]
        t0 = time.time()
        with open(log, "w") as lf:
            p = subprocess.Popen(cmd, stdout=lf, stderr=subprocess.STDOUT, env=env, cwd=ROOT,
                                 start_new_session=True)
            try:
                rc = p.wait(timeout=timeout)
                status = "ok" if rc == 0 else "crashed (rc %d)" % rc
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()
                status = "timeout (%ds)" % round(timeout)
        res = {}
        if os.path.exists(result):
            try:
                with open(result) as f:
                    res = json.load(f)
            except ValueError:
                res = {}
        res["status"], res["wall_s"], res["log"] = status, round(time.time() - t0, 1), log
        if status != "ok" or res.get("error") or res.get("failed") or res.get("errors") or res.get("pytest_rc"):
            with open(log, errors="replace") as f:
                text = f.read()
            res["log_tail"] = text[-3000:]
            if res.get("phase") == "tests" and not res.get("first_failure") and not res.get("error"):
                e_lines = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ")]
                res["first_failure"] = "pytest exit %s: %s" % (res.get("pytest_rc", "?"), e_lines[-1][:300]
                                                               if e_lines else _first_line(text[-400:]))
        with self.print_lock:
            print("  %-40s %-22s %6.1fs  %s" % (tag, status, res["wall_s"], _summary(res)), flush=True)
        return res

    def run_many(self, jobs, start_deadline=None):
        """jobs: [(key, tag, argv, timeout)] run --jobs at a time, none started after start_deadline; {key:
        result}."""
        out = {}
        lock = threading.Lock()
        queue = list(jobs)

        def worker():
            while True:
                with lock:
                    if not queue:
                        return
                    key, tag, argv, timeout = queue.pop(0)
                r = self.run_child(tag, argv, timeout, start_deadline)
                with lock:
                    out[key] = r

        threads = [threading.Thread(target=worker, daemon=True) for _ in range(max(1, self.args.jobs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return out


def _summary(r):
    if r.get("phase") == "tests":
        s = "%d passed, %d failed, %d errors, %d skipped" % (r.get("passed", 0), r.get("failed", 0),
                                                            r.get("errors", 0), r.get("skipped", 0))
        return s + ("; " + r["first_failure"] if r.get("first_failure") else "")
    if r.get("phase") == "bench":
        if r.get("error"):
            return r["error"]
        slow = r.get("slow_launches")
        return "err %s, fwd %s ms, fwd+bwd %s ms%s" % (
            _fmt_e(r.get("max_err")), _fmt_ms(r.get("fwd_ms")), _fmt_ms(r.get("fwd_bwd_ms")),
            ", %.1f slow-path launches a call %s" % (slow["per_call"], slow["reasons"] or "")
            if slow and slow["per_call"] else "")
    return r.get("stage", "") or r.get("error", "")


def _fmt_ms(v):
    return "-" if v is None else ("%.3f" % v if v < 10 else "%.1f" % v)


def _fmt_e(v):
    return "-" if v is None else ("nan" if v != v else "%.1e" % v)


def _tests_cell(r):
    if not r:
        return "-"
    if r.get("status", "ok") != "ok" and not r.get("done"):
        base = "%d/%d" % (r.get("passed", 0), r.get("failed", 0) + r.get("errors", 0)) if "passed" in r else ""
        return (base + " " if base else "") + r["status"].split(" (")[0].upper()
    if r.get("error"):
        return "ERROR"
    if not (r.get("passed") or r.get("failed") or r.get("errors") or r.get("collect_errors")):
        return "NONE RAN" + (" (%d skipped)" % r["skipped"] if r.get("skipped") else "")
    cell = "%d/%d" % (r.get("passed", 0), r.get("failed", 0) + r.get("errors", 0))
    if r.get("collect_errors"):
        cell = "COLLECT ERR" if cell == "0/0" else cell + " +%dcoll" % len(r["collect_errors"])
    return cell


def _bench_cell(r, key, fmt):
    if not r:
        return "-"
    if r.get("status", "ok") != "ok" and r.get(key) is None:
        return r["status"].split(" (")[0].upper()
    if r.get(key) is None:
        return "ERR" if r.get("error") else "-"
    return fmt(r[key])


def make_table(ops, results, device):
    lines = ["Card: %s" % device, "",
             "| op | lib | tests txl (p/f) | tests triton (p/f) | max err vs fp32 txl / triton | fwd ms txl / triton "
             "| fwd+bwd ms txl / triton | ratio |",
             "|---|---|---|---|---|---|---|---|"]
    for op in ops:
        tb = {b: results.get(("bench", op.name, b), {}) for b in BACKENDS}
        tt = {b: results.get(("tests", op.name, b), {}) for b in BACKENDS}
        ratio = "-"
        key = "fwd_bwd_ms" if tb["txl"].get("fwd_bwd_ms") and tb["triton"].get("fwd_bwd_ms") else "fwd_ms"
        if tb["txl"].get(key) and tb["triton"].get(key):
            ratio = "%.2fx" % (tb["triton"][key] / tb["txl"][key]) + ("" if key == "fwd_bwd_ms" else " (fwd)")
        lines.append("| %s | %s | %s | %s | %s / %s | %s / %s | %s / %s | %s |" % (
            op.name, op.lib, _tests_cell(tt["txl"]), _tests_cell(tt["triton"]),
            _bench_cell(tb["txl"], "max_err", _fmt_e), _bench_cell(tb["triton"], "max_err", _fmt_e),
            _bench_cell(tb["txl"], "fwd_ms", _fmt_ms), _bench_cell(tb["triton"], "fwd_ms", _fmt_ms),
            _bench_cell(tb["txl"], "fwd_bwd_ms", _fmt_ms), _bench_cell(tb["triton"], "fwd_bwd_ms", _fmt_ms), ratio))
    lines += ["", "ratio: Triton's time / txl's (above 1: txl faster), fwd+bwd where both have it. p/f: passed / "
              "failed+errors of the selected test cases; +Ncoll: test files that failed to collect. max err: "
              "max|lib - ref| / max|ref| over outputs and input gradients, ref in float32."]
    notes = []
    for op in ops:
        for phase in ("tests", "bench"):
            for b in BACKENDS:
                r = results.get((phase, op.name, b))
                if not r:
                    continue
                msg = r.get("first_failure") if phase == "tests" else r.get("error")
                if r.get("error") and phase == "tests":
                    msg = r["error"]
                if r.get("status", "ok") != "ok":
                    msg = "%s%s" % (r["status"], (" at " + r.get("stage", "")) if phase == "bench" and
                                    r.get("stage") else "") + ("; " + msg if msg else "")
                if r.get("leaks"):
                    msg = (msg + "; " if msg else "") + "LEAK: ran through the real Triton: " + \
                        ", ".join(r["leaks"][:4])
                if msg:
                    notes.append("- %s / %s / %s: %s" % (op.name, phase, b, msg.replace("\n", " ")[:400]))
    if notes:
        lines += ["", "First failures:", ""] + notes
    gaps = sorted({g for r in results.values() for g in (r.get("shims_used") or [])})
    stand = sorted({g for r in results.values() for g in (r.get("standins") or [])})
    lines += ["", "txl host gaps shimmed (used): %s" % (", ".join(gaps) or "none")]
    if stand:
        lines.append("stand-ins for packages the host lacks (tests): %s" % ", ".join(stand))
    return "\n".join(lines)


def probe_host():
    """The card and the packages the tests need, in a subprocess (the parent imports neither torch nor txl)."""
    code = ("import importlib, json\nout = {}\ntry:\n    import torch\n    out['device'] = torch.cuda.get_device_name()"
            " if torch.cuda.is_available() else 'no CUDA device'\n    out['torch'] = torch.__version__\n"
            "except Exception as e:\n    out['device'] = 'torch: %s' % e\n"
            "for m in ('triton', 'txl', 'transformers', 'tokenizers', 'einops', 'packaging', 'pytest', 'numpy'):\n"
            "    try:\n        mod = importlib.import_module(m)\n        out[m] = getattr(mod, '__version__', '?')\n"
            "    except Exception as e:\n        out[m] = 'MISSING (%s)' % type(e).__name__\nprint(json.dumps(out))\n")
    try:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                           cwd=tempfile.gettempdir())
        return json.loads(r.stdout.strip().splitlines()[-1])
    except Exception as e:
        return {"device": "probe failed: %s" % e}


def run_all(args):
    t_start = time.time()
    ops = select_ops(args.ops)
    if args.fake_sleep is not None:
        return run_fake(args, ops)
    if not args.no_make_copies and copies_stale():
        print("== making the import-swapped copies (sources newer than .ext/swapped)")
        make_copies(quiet=True)
    for name in EXT_LAYOUT:
        if not os.path.isdir(os.path.join(EXT, EXT_LAYOUT[name])):
            print("warning: .ext/%s is missing" % EXT_LAYOUT[name])
    host = probe_host()
    if args.autotune_configs:
        host["autotune"] = "first %d config(s) of every autotuner, both backends" % args.autotune_configs
    print("host: %s" % ", ".join("%s %s" % kv for kv in host.items()), flush=True)
    workdir = tempfile.mkdtemp(prefix="txl-libraries-")
    runner = Runner(args, workdir)
    flags = ["--strict"] if args.strict else []
    results = {}
    phases = [p for p in ("bench", "tests") if p not in (args.skip or "").split(",")]
    for phase in phases:
        print("== phase %s: %d subprocesses, %d at a time (%.0f s of budget left)" % (
            phase, 2 * len(ops), args.jobs, runner.deadline - time.time()), flush=True)
        jobs = []
        for op in ops:
            for b in BACKENDS:
                if phase == "tests":
                    t = op.timeout_tests or args.timeout_tests or args.timeout
                    argv = ["--child", "tests", "--op", op.name, "--backend", b]
                else:
                    t = op.timeout_bench or args.timeout
                    argv = ["--child", "bench", "--op", op.name, "--backend", b, "--rep", str(args.rep)]
                jobs.append(((phase, op.name, b), "%s-%s-%s" % (phase, op.name, b), argv + flags, t))
        # the check+timing phase starts no subprocess past its share of the budget, so the tests get the rest
        share = runner.deadline if phase == "tests" or len(phases) == 1 else t_start + args.bench_share * args.budget
        results.update(runner.run_many(jobs, share))
    table = make_table(ops, results, host.get("device", "?"))
    print("\n" + table)
    print("\nhost: %s" % json.dumps(host))
    print("wall: %.0f s (budget %d s); logs in %s" % (time.time() - t_start, args.budget, workdir))
    write_outputs(table, results, host, workdir)
    return 0


def write_outputs(table, results, host, workdir):
    out = os.environ.get("OUT")
    if not out:
        return
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "libraries.md"), "w") as f:
        f.write("# Liger-Kernel and flash-linear-attention under txl and Triton\n\n" + table + "\n\nhost: `%s`\n"
                % json.dumps(host))
    serial = {"%s/%s/%s" % k: {kk: vv for kk, vv in v.items() if kk != "log_tail"} for k, v in results.items()}
    with open(os.path.join(out, "libraries.json"), "w") as f:
        json.dump({"host": host, "results": serial}, f, indent=1, default=str)
    with open(os.path.join(out, "libraries-logs.txt"), "w") as f:
        for k, v in sorted(results.items()):
            if v.get("log_tail") or v.get("traceback"):
                f.write("===== %s/%s/%s: %s\n%s\n%s\n" % (k + (v.get("status"), v.get("traceback", ""),
                                                            v.get("log_tail", ""))))
    print("wrote %s/libraries.md, libraries.json, libraries-logs.txt" % out)


def run_fake(args, ops):
    """--fake-sleep S: the subprocess plumbing without a GPU; each child sleeps S seconds (the first op's txl
    child sleeps 3x as long, past its timeout when S is close to it)."""
    workdir = tempfile.mkdtemp(prefix="txl-libraries-fake-")
    runner = Runner(args, workdir)
    jobs = []
    for i, op in enumerate(ops):
        for b in BACKENDS:
            s = args.fake_sleep * (3 if i == 0 and b == "txl" else 1)
            jobs.append((("fake", op.name, b), "fake-%s-%s" % (op.name, b),
                         ["--child", "fake", "--op", op.name, "--backend", b, "--sleep", str(s)], args.timeout))
    t0 = time.time()
    res = runner.run_many(jobs)
    for (phase, name, b), r in sorted(res.items()):
        print("%-28s %-7s %-22s wall %5.1fs stage %s" % (name, b, r["status"], r["wall_s"], r.get("stage")))
    print("total %.1f s" % (time.time() - t0))
    return 0 if all(r["status"] in ("ok", "not run (budget)") or r["status"].startswith("timeout")
                    for r in res.values()) else 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--make-copies", action="store_true", help="write the import-swapped copies into .ext/swapped")
    ap.add_argument("--list", action="store_true", help="print the selection; run nothing")
    ap.add_argument("--run", action="store_true", help="GPU host: tests, checks and timings, one table")
    ap.add_argument("--ops", help="comma-separated op names (or liger / fla)")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per check+timing subprocess (default 60)")
    ap.add_argument("--timeout-tests", type=int, default=60, help="seconds per tests subprocess (default 60)")
    ap.add_argument("--jobs", type=int, default=8, help="subprocesses at a time (default 8)")
    ap.add_argument("--budget", type=int, default=430, help="seconds for the whole --run (default 430)")
    ap.add_argument("--bench-share", type=float, default=0.5, help="share of the budget in which check+timing "
                    "subprocesses may start (default 0.5; the tests get the rest)")
    ap.add_argument("--rep", type=int, default=100, help="do_bench rep in ms (default 100)")
    ap.add_argument("--skip", help="phases to skip: bench, tests")
    ap.add_argument("--strict", action="store_true", help="txl: install no host shims")
    ap.add_argument("--autotune-configs", type=int, default=0, help="every autotuner (both backends) keeps its "
                    "first N configs: correctness runs of libraries that autotune dozens of configs (default: all)")
    ap.add_argument("--no-make-copies", action="store_true", help="--run: use .ext/swapped as it is")
    ap.add_argument("--fake-sleep", type=float, help="--run: fake children that sleep S seconds (no GPU needed)")
    ap.add_argument("--child", choices=("tests", "bench", "fake"), help=argparse.SUPPRESS)
    ap.add_argument("--op", help=argparse.SUPPRESS)
    ap.add_argument("--backend", choices=BACKENDS, help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)
    ap.add_argument("--sleep", type=float, default=0.0, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.autotune_configs:
        os.environ[AUTOTUNE_ENV] = str(args.autotune_configs)  # the children inherit it
    if args.child:
        if args.child == "fake":
            child_fake(args.op, args.backend, args.result, args.sleep)
        elif args.child == "tests":
            child_tests(OPS_BY_NAME[args.op], args.backend, args.result, args.strict)
        else:
            child_bench(OPS_BY_NAME[args.op], args.backend, args.result, args.strict, args.rep)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)  # skip torch / CUDA teardown of a possibly poisoned context
    if not (args.make_copies or args.list or args.run):
        ap.error("one of --make-copies, --list, --run")
    if args.make_copies:
        try:
            make_copies()
        except RewriteError as e:
            print("make-copies: refused: %s" % e)
            return 2
    if args.list:
        print_list(select_ops(args.ops), args)
    if args.run:
        return run_all(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
