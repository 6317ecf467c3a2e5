#!/usr/bin/env python3
"""Triton's own tutorials (python/tutorials 01..09 of triton-lang/triton, release 3.6) under txl: only the import
lines changed, the tutorial's own correctness checks, one table.

    python3 bench/triton_tutorials.py --tutorials DIR                  # GPU host: run every tutorial, print a table
    python3 bench/triton_tutorials.py --tutorials DIR --only 03,06     # some of them
    python3 bench/triton_tutorials.py --tutorials DIR --compile-only   # no GPU, no torch: compile each tutorial's
                                                                       # kernels for sm_90a with txl

DIR holds the tutorial files as Triton names them (01-vector-add.py, 02-fused-softmax.py, ...,
09-persistent-matmul.py). They are Triton's code and are not part of this repository: copy them from a Triton
checkout (python/tutorials at the v3.6.0 release) into a git-ignored folder such as .device/tutorials, which
travels to the GPU host with the working tree.

The rewrite. Each tutorial is copied into a temporary folder with only its import lines changed, by the table
REWRITES below (an import of triton that no rule covers is an error, so the table grows on purpose); the lines
rewritten are printed. Triton's host API the tutorials use is txl's own (``txl.runtime.driver.active``,
``txl.set_allocator``, ``txl.tools.tensor_descriptor``, CompiledKernel's ``_init_handles`` / ``n_regs`` /
``metadata.shared``: docs/triton-tutorials.md); what txl still lacks of it gets a stand-in from the harness
(HOST_SHIMS), installed only while txl lacks it and listed in the "txl host gaps" column of the runs that used it
(they are txl gaps to close; ``--strict`` installs none): the ``extern_libs=`` launch keyword of 07, dropped (txl
links CUDA's libdevice itself). Benchmarks are cut: ``triton.testing.perf_report`` returns an object whose
``run()`` does nothing, and 09's ``bench()`` (proton + 20000 launches per kernel) ends the run. 09's cuBLAS
reference (``from triton._C.libtriton import nvidia``, Triton's C++ binding) is replaced by cuBLAS through torch
(torch.matmul; torch._scaled_mm for fp8) in the
small module this script writes next to the copy; a missing ``tabulate`` (04 prints with it) gets a plain stand-in.

GPU mode runs each tutorial (and each of its argument variants: 09 runs with the default fp16 and with ``--prec
fp8``) in its own process, as ``__main__``, top-level statement by statement, so that the run can stop at a named
function (the first error ends it, as in a plain run). Pass means: no exception, and the tutorial's own check
passed: its asserts (02, 05, 08), no "❌" printed (03, 09), every printed "maximum difference between torch and
triton" at most 1e-5 (01, 07), 04's dropout outputs as its tables show them (the harness compares: 04 only
prints), and every parametrization of 06's pytest function test_op (run by the harness, with PYTEST_VERSION set
so that 06 takes the single autotune config it uses under pytest; pytest.skip cases count as skipped). A fault
poisons only that tutorial's process. FAIL shows the first error line and where in the tutorial it happened.

Compile-only mode needs neither torch nor a GPU: it runs the tutorial's top-level imports, definitions and
assignments (not its calls, loops or ``__main__`` block) with a stand-in ``torch`` (capability (9, 0), 132 SMs:
enough for the autotune config lists) and a stand-in H100 as ``txl.runtime.driver.active`` (H100Driver, installed
with txl's ``driver.set_active``), then compiles every kernel of the tutorial with the arguments its checks
launch it with, written down per tutorial in COMPILE_CASES (shape-only fake tensors, the real ints and
constexprs): through the kernel's JITFunction.warmup (txl's own specialisation of the arguments), and for an
autotuned kernel once per config the autotuner would try (after its early_config_prune, with its pre_hook
applied). Limits: only the listed argument sets are compiled (a kernel launched elsewhere with other
constexprs is not), run-time checks on the host (non-contiguous tensors, unknown launch keywords) show up as
rejections at that argument set, and a decorator that fails at definition is reported and the kernel compiled
with its @triton.jit alone, over the config list named in its case. 02's use of the warmed-up kernel is checked
too: the attributes it reads and the arguments of its launch ``kernel[grid](all arguments)``.

Compile-only results (txl of 2026-11-23 at 5377612, Triton v3.6.0's tutorials; the table and every error are in
docs/triton-tutorials.md, which also has the rows changed since): compiled: 01 add_kernel, 02 softmax_kernel, 04 _dropout and _seeded_dropout, 05
_layer_norm_fwd_fused and _layer_norm_bwd_dwdb, 06 _attn_bwd_preprocess, 07 asin_kernel, 09's fp16 TMA,
TMA-persistent and descriptor-persistent kernels (the configs that fit in 227 KB of shared memory), 09's fp16
matmul_kernel / matmul_kernel_persistent when B is passed contiguous, 03 fp16 matmul_kernel (9 of 16 configs).
Rejected: 02's host use of warmup() (CompiledKernel has no _init_handles / n_regs / metadata.shared), 03 and 09
non-contiguous B (refused on the host), 03 fp8 dot with an N-major B (wgmma verifier), 05 tl.debug_barrier, 06
_attn_fwd (a run-time value for a tl.constexpr parameter of _attn_fwd_inner) and _attn_bwd (dot layout conflict),
07 extern_libs=, 08 int64-to-pointer casts (and its autotune key 'gropup_c_ptrs', which Triton ignores), 09 fp8
(fp32 -> fp8e4nv conversion).
"""

import argparse
import ast
import itertools
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

HOST_MODULE = "triton_tutorials_host"  # written next to each rewritten copy (the cuBLAS stand-in)

# ================================================================================================================
# The import rewrite: (line as the tutorial writes it, stripped) -> the line under txl
# ================================================================================================================
REWRITES = {
    "import triton": "import txl as triton",
    "import triton.language as tl": "import txl.language as tl",
    "from triton.runtime import driver": "from txl.runtime import driver",
    "from triton.language.extra import libdevice": "from txl.language.extra import libdevice",
    "from triton.tools.tensor_descriptor import TensorDescriptor":
        "from txl.tools.tensor_descriptor import TensorDescriptor",
    "import triton.profiler as proton": "import txl.profiler as proton",
    "import triton.profiler.viewer as proton_viewer": "import txl.profiler.viewer as proton_viewer",  # after bench()
    # Triton's C++ cuBLAS binding, the reference 09 compares with: torch.matmul (HOST_MODULE_SRC below).
    "from triton._C.libtriton import nvidia": "from %s import nvidia" % HOST_MODULE,
}
_TRITON_IMPORT = re.compile(r"^\s*(import|from)\s+triton\b")


def rewrite_imports(src, name):
    """(src with its triton import lines rewritten by REWRITES, [(line number, old, new)])."""
    out, changes = [], []
    for no, line in enumerate(src.splitlines(keepends=True), 1):
        if _TRITON_IMPORT.match(line):
            body = line.strip()
            if body not in REWRITES:
                raise ValueError("%s:%d: no rewrite rule for %r: add one to REWRITES" % (name, no, body))
            indent = line[:len(line) - len(line.lstrip())]
            new = indent + REWRITES[body] + "\n"
            changes.append((no, body, REWRITES[body]))
            line = new
        out.append(line)
    return "".join(out), changes


HOST_MODULE_SRC = '''"""Stand-ins the tutorial harness provides for what the tutorials take from outside Triton's language."""
import types


class CublasLt:
    """Triton's nvidia.cublas.CublasLt(workspace): matmul(a, b, c) writes c = a @ b.T (b is N x K)."""

    def __init__(self, workspace):
        self.workspace = workspace

    def matmul(self, a, b, c):
        import torch
        if a.element_size() == 1:
            # fp8: cuBLASLt through torch._scaled_mm (unit scales; b.T is column-major as cuBLASLt wants) with
            # fast accumulation, as Triton's binding sets CUBLASLT_MATMUL_DESC_FAST_ACCUM for fp8. A reference
            # that accumulates more precisely (or exactly, in float32) lands one fp8 step (8 at |c| ~ 64) away
            # from the wgmma result wherever the sum lies near a rounding midpoint, for Triton's kernels as for ours.
            one = torch.ones((), device=a.device, dtype=torch.float32)
            c.copy_(torch._scaled_mm(a, b.T, scale_a=one, scale_b=one, out_dtype=c.dtype, use_fast_accum=True))
        else:
            c.copy_(torch.matmul(a, b.T).to(c.dtype))


nvidia = types.SimpleNamespace(cublas=types.SimpleNamespace(CublasLt=CublasLt))
'''


def write_copy(path, tmpdir):
    """The rewritten copy of a tutorial (and HOST_MODULE beside it): (copy path, changes)."""
    name = os.path.basename(path)
    with open(path) as f:
        src, changes = rewrite_imports(f.read(), name)
    copy = os.path.join(tmpdir, name)
    with open(copy, "w") as f:
        f.write(src)
    with open(os.path.join(tmpdir, HOST_MODULE + ".py"), "w") as f:
        f.write(HOST_MODULE_SRC)
    if tmpdir not in sys.path:
        sys.path.insert(0, tmpdir)
    return copy, changes


def print_changes(name, changes):
    print("== %s: %d import line(s) rewritten" % (name, len(changes)))
    for no, old, new in changes:
        print("   %s:%d  %s  ->  %s" % (name, no, old, new))


# ================================================================================================================
# Host-side features txl lacks (a stand-in installed only while txl lacks it; each one is a txl gap), the benchmark
# cut, and the H100 that compile-only mode describes
# ================================================================================================================
def _txl_has_extern_libs():
    """Whether txl's @jit launches take Triton's ``extern_libs=`` keyword (jit.py names it)."""
    import inspect

    import txl  # noqa: F401

    return "extern_libs" in inspect.getsource(sys.modules["txl.jit"])


def _drop_extern_libs():
    """``kernel[grid](..., extern_libs={'libdevice': path})`` (07): txl links CUDA's libdevice by itself, so the
    stand-in drops the keyword (when the kernel has no parameter of that name)."""
    import txl

    run = txl.JITFunction.run
    if getattr(run, "_drops_extern_libs", False):
        return

    def run_without_extern_libs(self, *args, **kwargs):
        if "extern_libs" in kwargs and "extern_libs" not in self.arg_names:
            kwargs.pop("extern_libs")
            SHIMS_USED.add("extern_libs= launch keyword")
        return run(self, *args, **kwargs)

    run_without_extern_libs._drops_extern_libs = True
    txl.JITFunction.run = run_without_extern_libs


# name shown in the "txl host gaps" column -> (txl lacks it?, install the stand-in)
HOST_SHIMS = {"extern_libs= launch keyword": (lambda: not _txl_has_extern_libs(), _drop_extern_libs)}
SHIMS_USED = set()  # the names of the stand-ins that took effect (each stand-in adds its name when it does)


def install_host_shims(strict):
    """Installs stand-ins for what txl lacks of Triton's host API (nothing with strict); returns their names (a
    run reports those that took effect: SHIMS_USED). Always cuts the benchmarks (txl.testing.perf_report /
    Benchmark)."""
    import txl.testing

    class Benchmark:
        def __init__(self, *args, **kwargs):
            self.kwargs = kwargs

    def perf_report(benchmarks):
        return lambda fn: types.SimpleNamespace(run=lambda *a, **k: None, fn=fn, benchmarks=benchmarks)

    txl.testing.perf_report, txl.testing.Benchmark = perf_report, Benchmark
    if strict:
        return []
    installed = []
    for name, (lacking, install) in HOST_SHIMS.items():
        if lacking():
            install()
            installed.append(name)
    return installed


class H100Driver:
    """compile-only: what ``txl.runtime.driver.active`` answers on an H100 (SXM), installed with txl's
    ``driver.set_active`` on a machine without a GPU, as the torch stand-in below describes one."""

    PROPERTIES = {"max_shared_mem": 232448, "max_num_regs": 65536, "multiprocessor_count": 132, "warpSize": 32,
                  "sm_clock_rate": 1980000, "mem_clock_rate": 2619000, "mem_bus_width": 5120}

    def __init__(self):
        self.utils = types.SimpleNamespace(get_device_properties=lambda device=None: dict(self.PROPERTIES))

    def get_current_device(self):
        return 0

    def get_current_stream(self, device=None):
        return 0

    def get_active_torch_device(self):
        return types.SimpleNamespace(type="cuda", index=0)

    def get_current_target(self):
        from txl.runtime import GPUTarget

        return GPUTarget("cuda", 90, 32)


def tutorial_dependency_standins(src):
    """Plain stand-ins for the tutorial's own dependencies that are missing here (not txl's business)."""
    added = []
    try:
        import tabulate  # noqa: F401
    except ImportError:
        if "import tabulate" not in src:
            return added
        mod = types.ModuleType("tabulate")
        mod.tabulate = lambda rows, *a, **k: "\n".join("  ".join(str(v) for v in row) for row in rows)
        sys.modules["tabulate"] = mod
        added.append("tabulate")
    return added


# ================================================================================================================
# What each tutorial needs beyond "run it": argument variants, where to stop, extra checks, notes for Hopper
# ================================================================================================================
class Tutorial:
    def __init__(self, variants=((),), stop_at=None, env=None, check=None, hopper=""):
        self.variants = [list(v) for v in variants]  # sys.argv[1:] of each run
        self.stop_at = stop_at  # a tutorial function whose call ends the run (what follows is benchmarking)
        self.env = dict(env or {})
        self.check = check  # check(namespace, stdout text) -> error message or None
        self.hopper = hopper  # what of the tutorial does not apply on Hopper, and why


def _printed_differences(ns, out, tol=1e-5):
    """01 / 07 print 'The maximum difference between torch and triton is tensor(X, ...)': every X <= tol."""
    found = re.findall(r"maximum difference between torch and triton is\s*(?:tensor\()?([-+0-9.einfa]+)", out)
    if not found:
        return "the tutorial printed no 'maximum difference' line"
    bad = [float(x) for x in found if not float(x) <= tol]
    return "printed maximum difference %s > %g" % (bad[0], tol) if bad else None


def _dropout_outputs(ns, out):
    """04 only prints tables: the first dropout is where(x_keep, x / (1 - p), 0), the seeded one keeps each
    element as x / (1 - p) or 0 and gives the same output for the same seed."""
    torch = ns["torch"]
    x, p = ns["x"], ns["p"]
    want = torch.where(ns["x_keep"].bool(), x / (1 - p), torch.zeros_like(x))
    if not torch.allclose(ns["dropout"](x, x_keep=ns["x_keep"], p=p), want):
        return "dropout(x, x_keep, p) differs from where(x_keep, x / (1 - p), 0)"
    o1, o2 = ns["output"], ns["output2"]
    if not torch.equal(o1, o2):
        return "seeded_dropout with the same seed gave different outputs"
    kept = torch.isclose(o1, x / (1 - p)) | (o1 == 0)
    return None if bool(kept.all()) else "seeded_dropout output is neither x / (1 - p) nor 0"


def _no_cross(ns, out):
    bad = [line.strip() for line in out.splitlines() if "❌" in line]
    return "the tutorial printed: %s" % bad[0] if bad else None


TUTORIALS = {
    "01-vector-add.py": Tutorial(check=_printed_differences),
    "02-fused-softmax.py": Tutorial(),
    "03-matrix-multiplication.py": Tutorial(check=_no_cross, hopper="its fp8 part (e5m2 A, transposed B) runs on "
                                            "sm_90 too"),
    "04-low-memory-dropout.py": Tutorial(check=_dropout_outputs),
    "05-layer-norm.py": Tutorial(),
    "06-fused-attention.py": Tutorial(
        env={"PYTEST_VERSION": "txl-tutorials"},
        hopper="test_op parametrizes warp_specialize=True only on Blackwell; the acc split under `not IS_HOPPER "
               "and warp_specialize` and maxnreg are Blackwell-only; fp8 forward takes V transposed (wgmma)"),
    "07-extern-functions.py": Tutorial(check=_printed_differences),
    "08-grouped-gemm.py": Tutorial(),
    "09-persistent-matmul.py": Tutorial(
        variants=((), ("--prec", "fp8")), stop_at="bench", check=_no_cross,
        hopper="on Hopper the tutorial itself skips TMA and TMA-persistent with warp_specialize=True (it prints ⭕) "
               "and runs descriptor-persistent with warp_specialize=True and FLATTEN=False"),
}


# ================================================================================================================
# Running one tutorial (GPU mode; in a child process of its own)
# ================================================================================================================
class EndOfChecks(Exception):
    """Raised by the function named in Tutorial.stop_at: the rest of the tutorial is benchmarking."""


class CheckFailed(Exception):
    """A check the harness runs after the tutorial (its printed results, its pytest cases) failed."""


class Tee:
    def __init__(self, stream):
        self.stream, self.parts = stream, []

    def write(self, s):
        self.parts.append(s)
        return self.stream.write(s)

    def flush(self):
        self.stream.flush()

    def text(self):
        return "".join(self.parts)


def top_level_statements(path):
    with open(path) as f:
        return ast.parse(f.read(), path).body


def exec_statement(node, path, ns):
    exec(compile(ast.Module(body=[node], type_ignores=[]), path, "exec"), ns)


def error_line(e):
    """The first useful line of an error: txlc's first diagnostic, the frontend's located message, else the
    exception's first line (paths into the temporary copy shortened to the tutorial's name)."""
    diag = getattr(e, "diagnostics", "") or ""
    lines = [ln.strip() for ln in diag.splitlines() if ln.strip()]
    if lines:
        line = next((ln for ln in lines if "error" in ln), lines[0])
    else:
        text = str(e).strip()
        first = text.splitlines()[0] if text else ""
        line = first if ": error: " in first else "%s: %s" % (type(e).__name__, first) if first else type(e).__name__
    return re.sub(r"/\S*/txl-tutorial-[^/\s]+/", "", line)


def tutorial_location(tb, path):
    """'name.py:line' of the deepest traceback frame in the tutorial, else of the deepest frame."""
    frames = traceback.extract_tb(tb)
    inside = [f for f in frames if f.filename == path]
    f = (inside or frames or [None])[-1]
    return "%s:%d" % (os.path.basename(f.filename), f.lineno) if f else "?"


def run_pytest_functions(ns, path, max_cases):
    """Runs every parametrization of the tutorial's test_* functions: (passed, failed, skipped, first failure)."""
    import pytest

    passed = failed = skipped = 0
    first = None
    for name, fn in list(ns.items()):
        if not (name.startswith("test_") and callable(fn)):
            continue
        axes = []
        for mark in reversed(getattr(fn, "pytestmark", [])):
            if mark.name == "parametrize":
                names = [n.strip() for n in mark.args[0].split(",")] if isinstance(mark.args[0], str) else \
                    list(mark.args[0])
                axes.append([dict(zip(names, v if len(names) > 1 else (v,))) for v in mark.args[1]])
        if not axes:
            continue  # a plain function the tutorial calls itself (05's test_layer_norm(1151, 8192, ...))
        cases = [dict(kv for d in combo for kv in d.items()) for combo in itertools.product(*axes)]
        for kwargs in cases[:max_cases] if max_cases else cases:
            label = "%s[%s]" % (name, "-".join(str(v) for v in kwargs.values()))
            try:
                fn(**kwargs)
                passed += 1
                print("   %s: passed" % label)
            except pytest.skip.Exception:
                skipped += 1
            except Exception as e:
                failed += 1
                print("   %s: FAILED %s" % (label, error_line(e)))
                if first is None:
                    first = "%s: %s (%s)" % (label, error_line(e), tutorial_location(e.__traceback__, path))
    return passed, failed, skipped, first


def run_one(src_path, variant, strict, max_cases):
    """Runs one tutorial in this process; returns the result dict."""
    name = os.path.basename(src_path)
    spec = TUTORIALS.get(name, Tutorial())
    os.environ.update(spec.env)
    tmpdir = tempfile.mkdtemp(prefix="txl-tutorial-")
    res = {"tutorial": name, "args": spec.variants[variant], "status": "FAIL", "error": "", "gaps": [],
           "standins": []}
    tee = Tee(sys.stdout)
    try:
        path, changes = write_copy(src_path, tmpdir)
        print_changes(name, changes)
        import torch

        install_host_shims(strict)
        with open(path) as f:
            res["standins"] = tutorial_dependency_standins(f.read())
        sys.argv = [path] + spec.variants[variant]
        ns = {"__name__": "__main__", "__file__": path, "__builtins__": __builtins__}
        sys.stdout = tee
        try:
            for node in top_level_statements(path):
                exec_statement(node, path, ns)
                if spec.stop_at and callable(ns.get(spec.stop_at)) and not getattr(ns[spec.stop_at], "stop", 0):
                    def stop(*a, **k):
                        raise EndOfChecks()
                    stop.stop = True
                    ns[spec.stop_at] = stop
        except EndOfChecks:
            pass
        torch.cuda.synchronize()
        notes = []
        if any(k.startswith("test_") for k in ns):
            p, f, s, first = run_pytest_functions(ns, path, max_cases)
            if p + f + s:
                notes.append("test cases: %d passed, %d failed, %d skipped" % (p, f, s))
            if f:
                raise CheckFailed("%d of %d test cases failed; first: %s" % (f, p + f, first))
        if spec.check:
            msg = spec.check(ns, tee.text())
            if msg:
                raise CheckFailed(msg)
        res["status"], res["error"] = "PASS", "; ".join(notes)
    except CheckFailed as e:
        res["error"] = str(e)
    except BaseException as e:  # noqa: BLE001 (SystemExit from argparse included)
        res["error"] = "%s (%s)" % (error_line(e), tutorial_location(e.__traceback__, os.path.join(tmpdir, name)))
        sys.stdout = tee.stream
        traceback.print_exc()
    finally:
        sys.stdout = tee.stream
        shutil.rmtree(tmpdir, ignore_errors=True)
        res["gaps"] = sorted(SHIMS_USED)  # the stand-ins for txl gaps that the run used
    return res


def run_all(files, args):
    """GPU mode: each tutorial and variant in a child process; returns the result rows."""
    rows = []
    for path in files:
        spec = TUTORIALS.get(os.path.basename(path), Tutorial())
        for i, argv in enumerate(spec.variants):
            with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
                out = f.name
            cmd = [sys.executable, os.path.abspath(__file__), "--child", path, "--variant", str(i), "--result", out,
                   "--max-test-cases", str(args.max_test_cases)] + (["--strict"] if args.strict else [])
            print("\n######## %s %s" % (os.path.basename(path), " ".join(argv)), flush=True)
            try:
                r = subprocess.run(cmd, timeout=args.timeout)
                with open(out) as f:
                    row = json.load(f) if os.path.getsize(out) else None
                if row is None:
                    row = {"status": "FAIL", "error": "the run exited with code %d without a result (see its output "
                           "above)" % r.returncode}
            except subprocess.TimeoutExpired:
                row = {"status": "FAIL", "error": "timed out after %d s" % args.timeout}
            finally:
                os.unlink(out)
            row.update(tutorial=os.path.basename(path), args=argv, kernels=jit_kernels(path), hopper=spec.hopper)
            rows.append(row)
    return rows


def jit_kernels(path):
    """Names of the @triton.jit functions of a tutorial (helpers included), in source order."""
    names = []
    for node in top_level_statements(path):
        if isinstance(node, ast.FunctionDef) and any("jit" in ast.unparse(d) for d in node.decorator_list):
            names.append(node.name)
    return names


def md(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def print_run_table(rows):
    print("\n| tutorial | kernels | status | first error / notes | txl host gaps shimmed | on Hopper |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        name = r["tutorial"] + (" " + " ".join(r["args"]) if r["args"] else "")
        gaps = ", ".join(r.get("gaps", [])) + ("; stand-ins: " + ", ".join(r["standins"]) if r.get("standins")
                                               else "")
        print("| %s | %s | %s | %s | %s | %s |" % (md(name), md(", ".join(r["kernels"])), r["status"],
                                                   md(r.get("error", "")), md(gaps or "-"), md(r["hopper"] or "-")))
    n = sum(r["status"] == "PASS" for r in rows)
    print("\n%d passed, %d failed" % (n, len(rows) - n))


# ================================================================================================================
# Compile-only: fake tensors, the argument sets each tutorial launches its kernels with, and the compile loop
# ================================================================================================================
class FakeTensor:
    """What txl reads from a tensor to specialise a kernel: shape, strides, dtype, device, a data pointer."""
    SIZES = {"float16": 2, "bfloat16": 2, "float32": 4, "int32": 4, "int64": 8, "float8_e5m2": 1,
             "float8_e4m3fn": 1}

    def __init__(self, dt, shape, strides=None):
        self.dt, self.shape = dt, tuple(shape)
        self.dtype = "torch." + dt
        self.device = types.SimpleNamespace(type="cuda", index=0)
        self._strides = tuple(strides) if strides else tuple(math.prod(self.shape[i + 1:])
                                                             for i in range(len(self.shape)))

    def stride(self, dim=None):
        return self._strides if dim is None else self._strides[dim]

    def data_ptr(self):
        return 1 << 40

    def element_size(self):
        return self.SIZES[self.dt]

    def as_strided(self, shape, strides):
        return FakeTensor(self.dt, shape, strides)

    def __repr__(self):
        return "%s%s" % (self.dt, list(self.shape))


def T(dt, *shape, strides=None):
    return FakeTensor(dt, shape, strides)


class Desc:
    """A host TensorDescriptor argument, made when the case is compiled (block [1, 1]: the pre_hook sets it)."""

    def __init__(self, t, shape=None, strides=None):
        self.t, self.shape, self.strides = t, shape, strides

    def make(self):
        import txl
        return txl.TensorDescriptor(self.t, shape=self.shape, strides=self.strides, block_shape=[1, 1])


class Case:
    """One launch of a kernel: its positional and keyword arguments (launch options included). ``configs`` names
    the tutorial's config list to use when the kernel's autotune decorator failed; ``host`` lists attributes the
    tutorial reads from the compiled kernel (checked after compiling, and then the arguments of the tutorial's launch
    of that compiled kernel, all of the kernel's arguments in order, are checked as it would check them)."""

    def __init__(self, kernel, args, kwargs=None, label="", configs=None, host=()):
        self.kernel, self.args, self.kwargs, self.label = kernel, args, dict(kwargs or {}), label
        self.configs, self.host = configs, host


F16, F32, I32, I64, E5, E4 = "float16", "float32", "int32", "int64", "float8_e5m2", "float8_e4m3fn"
# The same launch with B's tensor contiguous (its strides still passed as B^T's): txl refuses non-contiguous tensor
# arguments before compiling, so this case shows whether the kernel itself compiles.
CONTIG = "%s, B contiguous stand-in"


def _cases_06():
    cases = []
    Z, H, N = 1, 2, 1024
    for hd in (64, 128):
        q, k, v, o = (T(F16, Z, H, N, hd) for _ in range(4))
        d = [Desc(t, [Z * H * N, hd], [hd, 1]) for t in (q, k, v, o)]
        cases.append(Case("_attn_fwd", (0.5, T(F32, Z, H, N), Z, H, *d),
                          dict(N_CTX=N, HEAD_DIM=hd, FP8_OUTPUT=False, STAGE=3, warp_specialize=False,
                               IS_HOPPER=True), "fp16 causal d%d" % hd))
        q8, k8, o8 = T(E5, Z, H, N, hd), T(E5, Z, H, N, hd), T(E5, Z, H, N, hd)
        v8 = T(E5, Z, H, N, hd, strides=(H * hd * N, hd * N, 1, N))  # V transposed, as test_op makes it
        d8 = [Desc(q8, [Z * H * N, hd], [hd, 1]), Desc(k8, [Z * H * N, hd], [hd, 1]),
              Desc(v8, [hd, Z * H * N], [N, 1]), Desc(o8, [Z * H * N, hd], [hd, 1])]
        cases.append(Case("_attn_fwd", (0.5, T(F32, Z, H, N), Z, H, *d8),
                          dict(N_CTX=N, HEAD_DIM=hd, FP8_OUTPUT=True, STAGE=3, warp_specialize=False,
                               IS_HOPPER=True), "fp8 causal d%d" % hd))
        cases.append(Case("_attn_bwd_preprocess", (o, T(F16, Z, H, N, hd), T(F32, Z, H, N), Z, H, N),
                          dict(BLOCK_M=128, HEAD_DIM=hd), "d%d" % hd))
        cases.append(Case("_attn_bwd", (q, k, v, 0.5, T(F16, Z, H, N, hd), T(F16, Z, H, N, hd), T(F16, Z, H, N, hd),
                                        T(F16, Z, H, N, hd), T(F32, Z, H, N), T(F32, Z, H, N),
                                        H * N * hd, N * hd, hd, 1, H, N),
                          dict(BLOCK_M1=32, BLOCK_N1=128, BLOCK_M2=128, BLOCK_N2=32, BLK_SLICE_FACTOR=2, HEAD_DIM=hd,
                               num_warps=4, num_stages=5), "d%d" % hd))
    return cases


def _cases_09():
    cases = []
    M = N = 8192
    K = 512
    for dt, tag in ((F16, "fp16"), (E4, "fp8")):
        a, b, c = T(dt, M, K), T(dt, N, K), T(dt, M, N)
        bT = T(dt, K, N, strides=(1, K))  # matmul(a, b.T): B as a transposed view
        for kernel, kw in (("matmul_kernel", {}), ("matmul_kernel_persistent", dict(NUM_SMS=132))):
            cases.append(Case(kernel, (a, bT, c, M, N, K, K, 1, 1, K, N, 1), kw, tag))
            cases.append(Case(kernel, (a, T(dt, K, N), c, M, N, K, K, 1, 1, K, N, 1), kw, CONTIG % tag))
        descs = (Desc(a), Desc(b), Desc(c), M, N, K)
        fp8 = dt == E4
        cases.append(Case("matmul_kernel_tma", descs, dict(FP8_OUTPUT=fp8, WARP_SPECIALIZE=False), tag))
        cases.append(Case("matmul_kernel_tma_persistent", descs,
                          dict(FP8_OUTPUT=fp8, NUM_SMS=132, WARP_SPECIALIZE=False), tag))
        for ws in (False, True):  # on Hopper: FLATTEN = not warp_specialize
            cases.append(Case("matmul_kernel_descriptor_persistent", (a, b, c, M, N, K),
                              dict(NUM_SMS=132, WARP_SPECIALIZE=ws, FLATTEN=not ws), "%s ws=%s" % (tag, ws)))
    return cases


def _grouped(fp8=False):
    ptrs = (T(I64, 4), T(I64, 4), T(I64, 4), T(I32, 12), T(I32, 12), 4)
    return [Case("grouped_matmul_kernel", ptrs, {}),
            Case("grouped_matmul_tma_kernel", ptrs, dict(FP8=fp8, NUM_SM=132), configs="tma_configs")]


_V = 98432  # 01 / 07: size of the vectors
COMPILE_CASES = {
    "01-vector-add.py": [Case("add_kernel", (T(F32, _V), T(F32, _V), T(F32, _V), _V), dict(BLOCK_SIZE=1024))],
    "02-fused-softmax.py": [
        Case("softmax_kernel", (T(F32, 1823, 781), T(F32, 1823, 781), 781, 781, 1823, 781),
             dict(BLOCK_SIZE=1024, num_stages=4, num_warps=8)),
        Case("softmax_kernel", (T(F32, 1823, 781), T(F32, 1823, 781), 781, 781, 1823, 781),
             dict(BLOCK_SIZE=1024, num_stages=4, num_warps=8), "host API of warmup()",
             host=("_init_handles", "n_regs", "metadata.shared")),
    ],
    "03-matrix-multiplication.py": [
        Case("matmul_kernel", (T(F16, 512, 512), T(F16, 512, 512), T(F16, 512, 512), 512, 512, 512, 512, 1, 512, 1,
                               512, 1), dict(ACTIVATION=""), "fp16"),
        Case("matmul_kernel", (T(E5, 512, 512), T(E5, 512, 512, strides=(1, 512)), T(F16, 512, 512), 512, 512, 512,
                               512, 1, 1, 512, 512, 1), dict(ACTIVATION=""), "fp8e5, B transposed"),
        Case("matmul_kernel", (T(E5, 512, 512), T(E5, 512, 512), T(F16, 512, 512), 512, 512, 512,
                               512, 1, 1, 512, 512, 1), dict(ACTIVATION=""), CONTIG % "fp8e5"),
    ],
    "04-low-memory-dropout.py": [
        Case("_dropout", (T(F32, 10), T(I32, 10), T(F32, 10), 10, 0.5), dict(BLOCK_SIZE=1024)),
        Case("_seeded_dropout", (T(F32, 10), T(F32, 10), 10, 0.5, 123), dict(BLOCK_SIZE=1024)),
    ],
    "05-layer-norm.py": [
        Case("_layer_norm_fwd_fused", (T(F16, 1151, 8192), T(F16, 1151, 8192), T(F16, 8192), T(F16, 8192),
                                       T(F32, 1151), T(F32, 1151), 8192, 8192, 1e-5),
             dict(BLOCK_SIZE=8192, num_warps=8, num_ctas=1)),
        Case("_layer_norm_bwd_dx_fused", (T(F16, 1151, 8192), T(F16, 1151, 8192), T(F16, 96, 8192), T(F16, 96, 8192),
                                          T(F16, 1151, 8192), T(F16, 8192), T(F32, 1151), T(F32, 1151), T(I32, 192),
                                          8192, 8192), dict(BLOCK_SIZE_N=8192, GROUP_SIZE_M=96, num_warps=8)),
        Case("_layer_norm_bwd_dwdb", (T(F16, 96, 8192), T(F16, 96, 8192), T(F16, 8192), T(F16, 8192), 96, 8192),
             dict(BLOCK_SIZE_M=32, BLOCK_SIZE_N=128, num_ctas=1)),
    ],
    "06-fused-attention.py": _cases_06(),
    "07-extern-functions.py": [
        Case("asin_kernel", (T(F32, _V), T(F32, _V), _V), dict(BLOCK_SIZE=1024)),
        Case("asin_kernel", (T(F32, _V), T(F32, _V), _V),
             dict(BLOCK_SIZE=1024, extern_libs={"libdevice": "third_party/nvidia/backend/lib/libdevice.10.bc"}),
             "extern_libs="),
    ],
    "08-grouped-gemm.py": _grouped(),
    "09-persistent-matmul.py": _cases_09(),
}


class _TorchStandIn(types.ModuleType):
    """What the tutorials' top level reads from torch to build their autotune configs, without torch: an H100."""

    def __init__(self):
        super().__init__("torch")
        self.cuda = types.SimpleNamespace(
            is_available=lambda: False, get_device_capability=lambda *a: (9, 0),
            get_device_properties=lambda *a: types.SimpleNamespace(multi_processor_count=132))
        self.version = types.SimpleNamespace(hip=None, cuda="12.8")
        self.Tensor = type("Tensor", (), {})
        self.autograd = types.SimpleNamespace(Function=type("Function", (), {}))
        for dt in ("float16", "bfloat16", "float32", "int8", "int32", "int64", "uint8", "float8_e5m2",
                   "float8_e4m3fn"):
            setattr(self, dt, "torch." + dt)


_COMPILE_STATEMENTS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Assign, ast.AnnAssign,
                       ast.AugAssign, ast.If, ast.Try)


def _is_main_guard(node):
    return isinstance(node, ast.If) and "__name__" in ast.unparse(node.test)


def load_definitions(path):
    """compile-only: the namespace of a tutorial's top-level definitions (see the module docstring) and notes on
    the kernels whose decorators failed."""
    ns = {"__name__": "triton_tutorial", "__file__": path, "__builtins__": __builtins__, "torch": _TorchStandIn()}
    notes = {}
    for node in top_level_statements(path):
        if not isinstance(node, _COMPILE_STATEMENTS) or _is_main_guard(node):
            continue
        if isinstance(node, ast.Import) and any(a.name == "torch" for a in node.names):
            continue  # keep the stand-in
        try:
            exec_statement(node, path, ns)
        except Exception as e:
            if isinstance(node, ast.FunctionDef) and any("jit" in ast.unparse(d) for d in node.decorator_list):
                notes[node.name] = "decorator failed: %s; compiled with @triton.jit alone" % error_line(e)
                node.decorator_list = [d for d in node.decorator_list
                                       if re.match(r"triton\.jit\b", ast.unparse(d))]
                exec_statement(node, path, ns)
    return ns, notes


def _has_path(obj, path):
    for part in path.split("."):
        if isinstance(obj, dict) and part in obj:
            obj = obj[part]
        elif hasattr(obj, part):
            obj = getattr(obj, part)
        else:
            return False
    return True


def _resolve(v):
    return v.make() if isinstance(v, Desc) else v


def _config_label(cfg):
    if cfg is None:
        return ""
    kw = ",".join("%s=%s" % (k.replace("BLOCK_SIZE_", "B").replace("BLOCK_", "B"), v) for k, v in cfg.kwargs.items())
    return "%s w%s s%s" % (kw, cfg.num_warps, cfg.num_stages)


def compile_case(ns, case):
    """Compiles one case, once per config for an autotuned kernel: (compiled count, [(config label, error)])."""
    import txl

    obj = ns.get(case.kernel)
    if obj is None:
        return 0, [("", "not defined (its definition failed at the tutorial's top level)")]
    if type(obj).__name__ == "Autotuner":
        jf, configs = obj.fn, obj.prune_configs(dict(zip(obj.arg_names, case.args)), case.kwargs)
    elif case.configs:
        jf, configs = obj, [txl.Config.from_config(c) for c in ns[case.configs]]
    else:
        jf, configs = obj, [None]
    ok, errors = 0, []
    for cfg in configs:
        try:
            # Fresh descriptors for every config: the config's pre_hook sets their block shapes.
            args = tuple(_resolve(a) for a in case.args)
            kwargs = {k: _resolve(v) for k, v in case.kwargs.items()}
            if cfg is None:
                ck = jf.warmup(*args, grid=(1,), **kwargs)
                missing = [a for a in case.host if not _has_path(ck, a)]
                if missing:
                    raise AttributeError("the compiled kernel (%s) has no %s, which the tutorial reads"
                                         % (type(ck).__name__, ", ".join(missing)))
                if case.host:  # the tutorial launches it with all its arguments, constexprs included
                    nargs = jf.bind(args, {k: v for k, v in kwargs.items() if k in jf.arg_names})
                    ck.check_args(*[nargs[n] for n in jf.arg_names])
            else:
                nargs = jf.bind(args, dict(kwargs, **cfg.kwargs))
                if cfg.pre_hook is not None:
                    cfg.pre_hook(nargs)
                jf.warmup(grid=(1,), **dict(nargs, **cfg.options))
            ok += 1
        except Exception as e:
            errors.append((_config_label(cfg), error_line(e)))
    return ok, errors


def compile_all(files, args):
    import txl.runtime.driver

    rows = []
    for path in files:
        name = os.path.basename(path)
        tmpdir = tempfile.mkdtemp(prefix="txl-tutorial-")
        spec_env = TUTORIALS.get(name, Tutorial()).env  # the same autotune configs as the GPU run
        os.environ.update(spec_env)
        try:
            copy, changes = write_copy(path, tmpdir)
            print_changes(name, changes)
            install_host_shims(args.strict)
            txl.runtime.driver.set_active(H100Driver())  # no GPU here: the tutorials' top level queries an H100
            ns, notes = load_definitions(copy)
            cases = COMPILE_CASES.get(name, [])
            listed = {c.kernel for c in cases}
            for kname in jit_kernels(copy):
                if kname not in listed and type(ns.get(kname)).__name__ in ("Autotuner", "JITFunction") and \
                        not _is_helper(ns[kname], ns):
                    rows.append(dict(tutorial=name, kernel=kname, case="", result="not compiled",
                                     error="no argument set in COMPILE_CASES", gaps=[]))
            for case in cases:
                SHIMS_USED.clear()
                ok, errors = compile_case(ns, case)
                gaps = sorted(SHIMS_USED)
                note = "; ".join(([notes[case.kernel]] if case.kernel in notes else []) +
                                 ["txl host gap shimmed: %s" % g for g in gaps])
                row = summarize_case(ok, errors, note)
                rows.append(dict(row, tutorial=name, kernel=case.kernel, case=case.label, gaps=gaps))
                print("   %-38s %-22s %s" % (case.kernel, case.label, row["result"]), flush=True)
                for msg, cfgs in row["kinds"]:
                    shown = "; ".join(cfgs[:3]) + (" (+%d more)" % (len(cfgs) - 3) if len(cfgs) > 3 else "")
                    print("      %s%s" % (msg, "\n        configs: " + shown if any(cfgs) else ""))
        finally:
            txl.runtime.driver.reset_active()
            for k in spec_env:
                os.environ.pop(k, None)
            shutil.rmtree(tmpdir, ignore_errors=True)
            if tmpdir in sys.path:
                sys.path.remove(tmpdir)
    return rows


_SMEM = re.compile(r"(needs|allocates) \d+ bytes(?: of shared memory)?, more than the 232448")


def summarize_case(ok, errors, note):
    """result ('compiled', 'rejected', 'compiled k/n configs'), the table's error cell and the error kinds
    [(message, [config labels])]. Configs that need more than a block's 227 KB of shared memory are counted
    apart: an autotuner skips them (Triton's raises OutOfResources at their launch)."""
    n = ok + len(errors)
    result = "rejected" if not ok else "compiled" if n == 1 else \
        "compiled (%d configs)" % n if not errors else "compiled %d/%d configs" % (ok, n)
    kinds = {}
    for cfg, msg in errors:
        kinds.setdefault(msg, []).append(cfg)
    smem = sum(len(c) for m, c in kinds.items() if _SMEM.search(m))
    other = [(m, c) for m, c in kinds.items() if not _SMEM.search(m)]
    cell = []
    if note:
        cell.append(note)
    if other:
        m, c = other[0]
        cell.append(("[%s] " % c[0] if n > 1 and c[0] else "") + m + (" (%d configs)" % len(c) if len(c) > 1 else ""))
        if len(other) > 1:
            cell.append("+%d other errors" % (len(other) - 1))
    if smem:
        cell.append("%d config(s) need more than 227 KB of shared memory" % smem)
    return dict(result=result, error="; ".join(cell), kinds=sorted(kinds.items()))


def _is_helper(jf, ns):
    """A @jit function that another one calls (a device function), not launched on its own."""
    name = getattr(jf, "__name__", "")
    for other in ns.values():
        src = getattr(other, "src", None) or getattr(getattr(other, "fn", None), "src", None)
        if src and other is not jf and re.search(r"\b%s\s*\(" % re.escape(name), src):
            return True
    return False


def print_compile_table(rows):
    print("\n| tutorial | kernel | case | result | first error |")
    print("|---|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %s | %s | %s |" % (md(r["tutorial"]), md(r["kernel"]), md(r["case"] or "-"),
                                             md(r["result"]), md(r["error"] or "-")))
    gaps = sorted({g for r in rows for g in r["gaps"]})
    if gaps:
        print("\ntxl host gaps shimmed: %s" % ", ".join(gaps))
    n = sum(r["result"].startswith("compiled") for r in rows)
    print("\n%d compiled, %d rejected" % (n, len(rows) - n))


# ================================================================================================================
def tutorial_files(folder, only):
    if not os.path.isdir(folder):
        sys.exit("--tutorials %s: no such folder (copy Triton's python/tutorials/0[1-9]-*.py there)" % folder)
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if re.match(r"0[1-9]-.*\.py$", f))
    if only:
        want = only.split(",")
        files = [f for f in files if any(os.path.basename(f).startswith(w) for w in want)]
    if not files:
        sys.exit("--tutorials %s: no tutorial files (0[1-9]-*.py) there%s" % (folder, " for --only" if only else ""))
    missing = sorted(set(TUTORIALS) - {os.path.basename(f) for f in files})
    if missing and not only:
        print("note: %s not in %s" % (", ".join(missing), folder))
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tutorials", help="folder with Triton's tutorial files 01-*.py .. 09-*.py")
    ap.add_argument("--only", help="comma-separated prefixes, e.g. 01,06")
    ap.add_argument("--compile-only", action="store_true", help="no GPU: compile the kernels for sm_90a")
    ap.add_argument("--strict", action="store_true", help="install no host shims for what txl lacks")
    ap.add_argument("--timeout", type=int, default=540, help="seconds per tutorial run (GPU mode)")
    ap.add_argument("--max-test-cases", type=int, default=0, help="run at most this many cases of each pytest "
                    "function (0: all)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--variant", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        res = run_one(args.child, args.variant, args.strict, args.max_test_cases)
        with open(args.result, "w") as f:
            json.dump(res, f)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)  # skip torch / CUDA teardown of a possibly poisoned context
    if not args.tutorials:
        ap.error("--tutorials DIR is required")
    files = tutorial_files(args.tutorials, args.only)
    if args.compile_only:
        print_compile_table(compile_all(files, args))
    else:
        rows = run_all(files, args)
        print_run_table(rows)
        sys.exit(0 if all(r["status"] == "PASS" for r in rows) else 1)


if __name__ == "__main__":
    main()
