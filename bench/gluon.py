#!/usr/bin/env python3
"""Gluon kernels under txl (txl.experimental.gluon) and under Triton, in one process: Triton's Gluon tutorials for
Hopper and flash-linear-attention's Gluon kernels, the same source with only its import lines swapped, each result
checked against a float32 torch reference and timed, one table.

    python3 bench/gluon.py --list                     # the cases, the sources and their swapped lines; no GPU
    python3 bench/gluon.py --run [--only PAT] [--tests N] [--reps R]     # GPU host (H100)

Sources (git-ignored, never committed; the lead's GPU host gets them with .ext):
  .ext/gluon/01-intro.py ... 05-wgmma.py   Triton's python/tutorials/gluon (SOURCE.txt there: repository, commits)
  .ext/fla/fla/...                          fla 0.6.0 (bench/libraries.py's layout): the four files with Gluon kernels

The swap (``swap_source``): a line that imports triton is rewritten by bench/triton_tutorials.py's REWRITES where it
names one of their forms, else ``triton.experimental`` -> ``txl.experimental`` (Gluon lives at the same path under
txl); any other import of triton is an error, so the table grows on purpose. Each changed line is printed.

Backends, in this process: "triton" loads the original files (real Triton 3.6 and its Gluon), "txl" the swapped
copies. The tutorials are imported whole (they import one another by file name: 04 imports 03, which imports 02),
each backend from its own folder. fla's kernels are read out of the library files (``kernel_module``: the
@gluon.jit / @gluon.constexpr_function definitions and the module-level names they read) so that the host code
below launches them exactly as fla's own launchers do (same arguments, grids and configurations), without
importing fla's torch-side package twice.

Each case (CASES): fresh random inputs (seeded), the backend's launch, a float32 torch reference; "err" is
max|out - ref| / max|ref| over the outputs, compared with the case's tolerance; time is
triton.testing.do_bench's median (ms) of the launch, the same timer for both backends. A backend's exception is
reported as its first line (txl's located errors name the kernel's file:line). The table ends with the geometric
mean of triton_ms / txl_ms over the cases both backends pass (> 1: txl faster). --tests N also runs the
tutorials' own pytest functions (at most N parametrizations each) under both backends.

Output: the table on stdout; with $OUT set also $OUT/gluon.md and $OUT/gluon.json.
"""

import argparse
import ast
import importlib
import importlib.util
import json
import math
import os
import re
import shutil
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TUTORIALS = os.path.join(ROOT, ".ext", "gluon")
FLA = os.path.join(ROOT, ".ext", "fla", "fla")
TUTORIAL_FILES = ("01-intro", "02-layouts", "03-async-copy", "04-tma", "05-wgmma")
FLA_FILES = {"sinkhorn": "ops/utils/sinkhorn/gluon.py", "cross_entropy": "modules/fused_cross_entropy/gluon.py",
             "conv1d": "modules/causal_conv1d/backends/gluon.py", "attnres": "ops/attnres/backends/gluon.py"}
BACKENDS = ("txl", "triton")


# ================================================================================================================
# The import swap
# ================================================================================================================
_IMPORT = re.compile(r"^(\s*)((?:import|from)\s+triton\b[^#\r\n]*?)(\s*#[^\r\n]*)?(\r?\n)?$")


class SwapError(ValueError):
    pass


def _rewrites():
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    import triton_tutorials
    return triton_tutorials.REWRITES


def swap_line(line, name="?", no=0):
    """``line`` with its import of triton rewritten (unchanged if it imports no triton)."""
    m = _IMPORT.match(line)
    if not m:
        return line
    indent, body, comment, eol = m.groups()
    body = body.strip()
    rules = _rewrites()
    if body in rules:
        new = rules[body]
    elif re.match(r"(from|import)\s+triton\.experimental\b", body):
        new = body.replace("triton.experimental", "txl.experimental", 1)
    else:
        raise SwapError("%s:%d: no swap rule for %r: add one to bench/triton_tutorials.py's REWRITES" % (name, no,
                                                                                                       body))
    return indent + new + (comment or "") + (eol or "")


def swap_source(src, name):
    """(src with its triton imports swapped, [(line, old, new)])."""
    out, changes = [], []
    for no, line in enumerate(src.splitlines(keepends=True), 1):
        new = swap_line(line, name, no)
        if new != line:
            changes.append((no, line.strip(), new.strip()))
        out.append(new)
    return "".join(out), changes


# ================================================================================================================
# fla's kernels as a module of their own
# ================================================================================================================
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


def kernel_module(path, name, dest, swap):
    """The Gluon kernels of the file at ``path`` (with the module-level names they read) as a new module written to
    folder ``dest``; ``swap``: its imports swapped to txl. Other decorators (fla's autotune cache) are dropped."""
    with open(path) as f:
        src = f.read()
    lines = src.splitlines()
    parts = []
    for node in ast.parse(src).body:
        if not _keep(node, src):
            continue
        if isinstance(node, ast.FunctionDef):
            decorators = [d for d in node.decorator_list if _gluon_decorator(d)]
            start = decorators[0].lineno if decorators else node.lineno
            body = [ln for ln in lines[start - 1:node.end_lineno]
                    if not ln.lstrip().startswith("@") or _GLUON_DECORATOR.search(ln)]
            parts.append("\n".join(body))
        else:
            seg = ast.get_source_segment(src, node)
            parts.append("\n".join(swap_line(ln, name) if swap else ln for ln in seg.splitlines()))
    modname = "gluon_kernels_%s_%s" % (re.sub(r"\W", "_", name), "txl" if swap else "triton")
    out = os.path.join(str(dest), modname + ".py")
    with open(out, "w") as f:
        f.write("\n\n\n".join(parts) + "\n")
    spec = importlib.util.spec_from_file_location(modname, out)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[modname] = mod
    spec.loader.exec_module(mod)
    return mod


# ================================================================================================================
# Loading the tutorials for one backend
# ================================================================================================================
def load_tutorials(backend, workdir):
    """{tutorial name: module} of one backend: the files copied (txl: swapped) into a folder of their own, imported
    by their names (as they import one another), then taken out of sys.modules so that the other backend's
    copies import theirs."""
    folder = os.path.join(workdir, backend)
    os.makedirs(folder, exist_ok=True)
    for t in TUTORIAL_FILES:
        src_path = os.path.join(TUTORIALS, t + ".py")
        if not os.path.exists(src_path):
            continue
        with open(src_path) as f:
            src = f.read()
        if backend == "txl":
            src, changes = swap_source(src, t)
            for no, old, new in changes:
                print("   %s.py:%d  %s  ->  %s" % (t, no, old, new))
        with open(os.path.join(folder, t + ".py"), "w") as f:
            f.write(src)
    sys.path.insert(0, folder)
    mods = {}
    try:
        for t in TUTORIAL_FILES:
            sys.modules.pop(t, None)
        for t in TUTORIAL_FILES:
            if not os.path.exists(os.path.join(folder, t + ".py")):
                continue
            try:
                mods[t] = importlib.import_module(t)
            except Exception as e:
                mods[t] = e
                print("   %s: %s does not import: %s" % (backend, t, first_line(e)))
    finally:
        sys.path.remove(folder)
        for t in TUTORIAL_FILES:
            sys.modules.pop(t, None)
    return mods


def first_line(e, limit=300):
    text = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")
    return text if len(text) <= limit else text[:limit] + "..."


# ================================================================================================================
# The cases
# ================================================================================================================
class Case:
    """``run(env) -> outputs`` launches the backend's kernel on ``inputs(torch)``; ``ref(inputs)`` is the float32
    reference of the same outputs."""

    def __init__(self, name, source, inputs, run, ref, tol):
        self.name, self.source, self.inputs, self.run, self.ref, self.tol = name, source, inputs, run, ref, tol


def _t(name):
    """The backend's tutorial module ``name`` (its import error, raised, when it did not import)."""
    def get(env):
        mod = env["tutorials"].get(name)
        if mod is None:
            raise FileNotFoundError("%s.py is not in %s" % (name, TUTORIALS))
        if isinstance(mod, Exception):
            raise mod
        return mod
    return get


def _tutorial_cases(torch):
    dev = "cuda"
    cases = []

    def vec(n):
        return lambda: (torch.randn(n, device=dev), torch.empty(n, device=dev))

    def mat(x, y):
        return lambda: tuple(torch.randn(x, y, device=dev) for _ in range(2)) + (torch.empty(x, y, device=dev),)

    cases.append(Case("01 copy_scalar", "01-intro", lambda: (torch.randn(1, device=dev), torch.empty(1, device=dev)),
                      lambda env, i: (_t("01-intro")(env).copy_scalar(*i), i[1])[1], lambda i: i[0], 0))
    cases.append(Case("01 memcpy XBLOCK=64 (scalar loop)", "01-intro", vec(1 << 20),
                      lambda env, i: (_t("01-intro")(env).memcpy(*i, 64), i[1])[1], lambda i: i[0], 0))
    for r in (1, 4):
        cases.append(Case("02 memcpy_1d R=%d" % r, "02-layouts", vec(1 << 26),
                          lambda env, i, r=r: (_t("02-layouts")(env).memcpy_1d_impl(
                              *i, 2048, env["gl"].BlockedLayout([r], [32], [4], [0]), 4), i[1])[1],
                          lambda i: i[0], 0))
    cases.append(Case("03 memcpy_1d_cpasync", "03-async-copy", vec(1 << 26),
                      lambda env, i: (_t("03-async-copy")(env).memcpy_1d_cpasync(*i, 8192), i[1])[1],
                      lambda i: i[0], 0))
    add = lambda i: i[0] + i[1]  # noqa: E731
    shape = (8192, 8192)
    cases.append(Case("03 elementwise_add", "03-async-copy", mat(*shape),
                      lambda env, i: (_t("03-async-copy")(env).elementwise_add(*i), i[2])[1], add, 0))
    cases.append(Case("03 elementwise_add_cpasync", "03-async-copy", mat(*shape),
                      lambda env, i: (_t("03-async-copy")(env).elementwise_add_cpasync(
                          *i, env["gl"].SwizzledSharedLayout(1, 1, 1, [1, 0])), i[2])[1], add, 0))
    for nb in (2, 3):
        cases.append(Case("03 elementwise_add_pipelined nb=%d" % nb, "03-async-copy", mat(*shape),
                          lambda env, i, nb=nb: (_t("03-async-copy")(env).elementwise_add_pipelined(
                              *i, 32, 64, nb), i[2])[1], add, 0))
    cases.append(Case("04 memcpy_1d_tma XBLOCK=256", "04-tma", vec(1 << 26),
                      lambda env, i: (_t("04-tma")(env).memcpy_1d_tma(*i, 256), i[1])[1], lambda i: i[0], 0))
    for xb, yb, nb in ((32, 64, 2), (64, 128, 3)):
        cases.append(Case("04 elementwise_add_tma %dx%d nb=%d" % (xb, yb, nb), "04-tma", mat(*shape),
                          lambda env, i, c=(xb, yb, nb): (_t("04-tma")(env).elementwise_add_tma(*i, *c), i[2])[1],
                          add, 0))

    def small(m, n, k):
        def make():
            return (torch.randn(m, k, device=dev, dtype=torch.float16),
                    torch.randn(k, n, device=dev, dtype=torch.float16), torch.randn(m, n, device=dev),
                    torch.empty(m, n, device=dev))
        return make

    for lhs in (False, True):
        cases.append(Case("05 small_mma 64x128x128 n=64 lhs_in_reg=%s" % lhs, "05-wgmma", small(64, 128, 128),
                          lambda env, i, lhs=lhs: (_t("05-wgmma")(env).small_mma(*i, 64, lhs, 4), i[3])[1],
                          lambda i: i[0].float() @ i[1].float() + i[2], 2e-3))

    def blocked(m, n, k, tb):
        def make():
            a = torch.randn(m, k, device=dev, dtype=torch.float16)
            b = torch.randn((n, k) if tb else (k, n), device=dev, dtype=torch.float16)
            return a, b, torch.empty(m, n, device=dev)
        return make

    for tb in (False, True):
        for overlap in (False, True):
            cases.append(Case("05 blocked_mma 4096^3 128x128x64 transpose_b=%s overlap=%s" % (tb, overlap),
                              "05-wgmma", blocked(4096, 4096, 4096, tb),
                              lambda env, i, tb=tb, ov=overlap: (_t("05-wgmma")(env).blocked_mma(
                                  *i, 128, 128, 64, tb, ov, 4), i[2])[1],
                              lambda i, tb=tb: i[0].float() @ (i[1].float().T if tb else i[1].float()), 2e-3))
    return cases


RCP_LN2 = 1.0 / math.log(2.0)


def _sinkhorn_ref(torch, x, iters):
    """fla's Sinkhorn (its gluon.py kernels): x shifted by its max over rows, then rows and columns normalised in
    turn in log space, NUM_ITERS times (dim 1 then dim 2 of [T, N, N]), exp at the end; float32."""
    b = x.float() - x.float().amax(dim=1, keepdim=True)
    for _ in range(iters):
        b = b - torch.logsumexp(b, dim=1, keepdim=True)
        b = b - torch.logsumexp(b, dim=2, keepdim=True)
    return b.exp()


def _fla_cases(torch):
    """fla's Gluon kernels, launched as fla's launchers launch them (arguments, grid, configuration)."""
    import triton as real_triton
    dev = "cuda"
    cdiv, p2 = real_triton.cdiv, real_triton.next_power_of_2
    cases = []
    T, N, ITERS = 65536, 4, 20
    bt = 1 if T < 128 else max(4, 128 // min(32, p2(N) ** 2))

    def sk_inputs():
        return torch.randn(T, N, N, device=dev), torch.randn(T, N, N, device=dev)

    def fla(env, name):
        mod = env["fla"].get(name)
        if mod is None:
            raise FileNotFoundError("fla's %s is not in %s" % (FLA_FILES[name], FLA))
        if isinstance(mod, Exception):
            raise mod
        return mod

    def sk_fwd(env, i):
        k = fla(env, "sinkhorn").sinkhorn_fwd_kernel
        o = torch.empty_like(i[0])
        k[(cdiv(T, bt),)](x=i[0], o=o, T=T, scale=RCP_LN2, N=N, BN=p2(N), BT=bt, NUM_ITERS=ITERS, num_warps=4,
                           enable_fp_fusion=False)
        return o

    def sk_bwd(env, i):
        k = fla(env, "sinkhorn").sinkhorn_bwd_kernel
        dx = torch.empty_like(i[0])
        k[(cdiv(T, bt),)](x=i[0], do=i[1], dx=dx, T=T, scale=RCP_LN2, N=N, BN=p2(N), BT=bt, NUM_ITERS=ITERS,
                           num_warps=4, enable_fp_fusion=False)
        return dx

    def sk_bwd_ref(i):
        x = i[0].float().detach().requires_grad_(True)
        out = _sinkhorn_ref(torch, x, ITERS)
        (dx,) = torch.autograd.grad(out, x, i[1].float())
        return dx

    cases.append(Case("fla sinkhorn_fwd T=65536 N=4", "sinkhorn", sk_inputs, sk_fwd,
                      lambda i: _sinkhorn_ref(torch, i[0], ITERS), 1e-4))
    cases.append(Case("fla sinkhorn_bwd T=65536 N=4", "sinkhorn", sk_inputs, sk_bwd, sk_bwd_ref, 1e-3))

    n_rows, vocab = 4096, 8000  # one vocabulary block (BV = 8192): no split, loss/lse/z_loss in one launch

    def ce_inputs():
        logits = torch.randn(n_rows, vocab, device=dev, dtype=torch.bfloat16)
        target = torch.randint(0, vocab, (n_rows,), device=dev)
        target[::17] = -100
        return logits, target

    def ce_fwd(env, i):
        k = fla(env, "cross_entropy").cross_entropy_fwd_kernel_gluon
        logits, target = i
        loss = torch.empty(n_rows, device=dev)
        lse, z_loss = torch.empty_like(loss), torch.empty_like(loss)
        k[(n_rows, 1)](logits=logits, target=target, loss=loss, z_loss=z_loss, lse=lse, s_logits=logits.stride(0),
                       label_smoothing=0.0, logit_scale=1.0, lse_square_scale=0.0, logit_softcapping=None,
                       ignore_index=-100, N=n_rows, V=vocab, V_TOTAL=vocab, V_START=0, BV=p2(vocab), SPLIT=False,
                       num_warps=4)
        return torch.stack([loss, lse])

    def ce_ref(i):
        logits, target = i[0].float(), i[1]
        lse = torch.logsumexp(logits, dim=-1)
        valid = target != -100
        picked = logits.gather(1, target.clamp(min=0)[:, None])[:, 0]
        return torch.stack([torch.where(valid, lse - picked, torch.zeros_like(lse)), lse])

    cases.append(Case("fla cross_entropy_fwd 4096x8000 bf16", "cross_entropy", ce_inputs, ce_fwd, ce_ref, 1e-5))

    B, L, D, W = 4, 2048, 2048, 4

    def cv_inputs():
        return (torch.randn(B, L, D, device=dev, dtype=torch.bfloat16),
                torch.randn(D, W, device=dev, dtype=torch.bfloat16), torch.randn(D, device=dev, dtype=torch.bfloat16))

    def cv_fwd(env, i):
        k = fla(env, "conv1d").causal_conv1d_fwd_kernel
        x, w, b = i
        y = torch.empty_like(x)
        bt, (bd, splits) = 64, ((32, 2) if B * L * D <= 1048576 else (64, 1))
        k[(cdiv(D, bd), cdiv(L, bt) * splits, B)](
            x=x, y=y, weight=w, bias=b, residual=None, cu_seqlens=None, initial_state=None, chunk_indices=None, T=L,
            SXN=x.stride(0), SXT=x.stride(1), D=D, W=W, BT=bt // splits, BD=bd, BC=8, ACTIVATION="silu",
            NUM_SPLITS=splits, num_warps=4)
        return y

    def cv_ref(i):
        x, w, b = (t.float() for t in i)
        y = torch.nn.functional.conv1d(x.transpose(1, 2), w[:, None, :], b, padding=W - 1, groups=D)[..., :L]
        return torch.nn.functional.silu(y).transpose(1, 2)

    cases.append(Case("fla causal_conv1d_fwd 4x2048x2048 W=4 silu", "conv1d", cv_inputs, cv_fwd, cv_ref, 1e-2))
    return cases


def all_cases(torch):
    return _tutorial_cases(torch) + _fla_cases(torch)


# ================================================================================================================
# Running
# ================================================================================================================
def _err(out, ref):
    out, ref = out.float(), ref.float()
    scale = ref.abs().max().item() or 1.0
    bad = (~torch_isfinite(out)) & torch_isfinite(ref)
    if bool(bad.any()):
        return float("inf")
    return ((out - ref).abs().nan_to_num(0.0).max().item()) / scale


def torch_isfinite(t):
    import torch
    return torch.isfinite(t)


def last_frames(e, frames=8, limit=4000):
    """The last ``frames`` frames of ``e``'s traceback and its message (chained causes' last frames first), as text:
    kept in the JSON and the log so that a failure on the GPU host can be diagnosed from the results alone."""
    text = "".join(traceback.format_exception(type(e), e, e.__traceback__, limit=-frames))
    return text if len(text) <= limit else "..." + text[-limit:]


def run_case(case, env, reps, seed=0):
    import torch
    import triton as real_triton
    torch.manual_seed(seed)
    inputs = case.inputs()
    try:
        out = case.run(env, inputs)
        torch.cuda.synchronize()
    except Exception as e:
        if os.environ.get("GLUON_BENCH_TRACEBACK"):
            traceback.print_exc()
        return {"ok": False, "error": first_line(e), "traceback": last_frames(e)}
    ref = case.ref(inputs)
    err = _err(out, ref)
    res = {"ok": err <= case.tol, "err": err}
    if not res["ok"]:
        res["error"] = "wrong result: err %.3g > tol %.3g" % (err, case.tol)
    try:
        res["ms"] = real_triton.testing.do_bench(lambda: case.run(env, inputs), rep=reps)
    except Exception as e:
        res["timing_error"] = first_line(e)
        res["timing_traceback"] = last_frames(e)
    return res


def build_envs(workdir):
    """{backend: what the cases read}: the tutorials (modules), gl, fla's kernel modules."""
    from triton.experimental.gluon import language as triton_gl

    from txl.experimental.gluon import language as txl_gl
    envs = {}
    for backend in BACKENDS:
        print("== loading the %s backend" % backend)
        env = {"gl": txl_gl if backend == "txl" else triton_gl, "tutorials": load_tutorials(backend, workdir),
               "fla": {}}
        for name, rel in FLA_FILES.items():
            path = os.path.join(FLA, rel)
            if not os.path.exists(path):
                continue
            dest = os.path.join(workdir, backend)
            try:
                env["fla"][name] = kernel_module(path, name, dest, swap=backend == "txl")
            except Exception as e:
                env["fla"][name] = e
                print("   %s: fla %s does not load: %s" % (backend, name, first_line(e)))
        envs[backend] = env
    return envs


def run_tests(envs, max_cases):
    """The tutorials' own pytest functions under each backend: {tutorial: {backend: (passed, failed, skipped,
    first failure)}}."""
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    import triton_tutorials
    out = {}
    for t in TUTORIAL_FILES:
        for backend in BACKENDS:
            mod = envs[backend]["tutorials"].get(t)
            if mod is None:
                continue
            if isinstance(mod, Exception):
                out.setdefault(t, {})[backend] = (0, 1, 0, "import: " + first_line(mod))
                continue
            print("== %s tests under %s" % (t, backend))
            out.setdefault(t, {})[backend] = triton_tutorials.run_pytest_functions(vars(mod), mod.__file__,
                                                                                   max_cases)
    return out


def fmt_ms(r):
    return "%.4f" % r["ms"] if "ms" in r else "-"


def table(results):
    lines = ["| case | txl | triton | txl ms | triton ms | triton/txl |", "|---|---|---|---:|---:|---:|"]
    ratios = []
    for name, r in results:
        a, b = r["txl"], r["triton"]
        ratio = ""
        if a.get("ok") and b.get("ok") and a.get("ms") and b.get("ms"):
            ratios.append(b["ms"] / a["ms"])
            ratio = "%.2fx" % ratios[-1]

        def cell(x):
            if x.get("ok"):
                return "ok (err %.2g)" % x["err"] + ("; timing failed: " + x["timing_error"].replace("|", "/")
                                                     if x.get("timing_error") else "")
            return "FAIL: " + x.get("error", "?").replace("|", "/")
        lines.append("| %s | %s | %s | %s | %s | %s |" % (name, cell(a), cell(b), fmt_ms(a), fmt_ms(b), ratio))
    gm = math.exp(sum(math.log(x) for x in ratios) / len(ratios)) if ratios else float("nan")
    passed = sum(1 for _, r in results if r["txl"].get("ok"))
    lines.append("")
    lines.append("txl passes %d of %d cases (triton %d); geometric mean of triton_ms / txl_ms over the %d both pass: "
                 "%.3f" % (passed, len(results), sum(1 for _, r in results if r["triton"].get("ok")), len(ratios), gm))
    return "\n".join(lines)


def _swaps_of(path, name, label, missing_hint=""):
    """--list: print how many import lines of the file at ``path`` swap_source rewrites (or that it is missing);
    returns the (line, old, new) changes."""
    if not os.path.exists(path):
        print("missing: %s%s" % (path, missing_hint))
        return []
    with open(path) as f:
        _, changes = swap_source(f.read(), name)
    print("== %s: %d import line(s) swapped" % (label, len(changes)))
    return changes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="store_true", help="the sources, their swapped lines and the cases")
    ap.add_argument("--run", action="store_true", help="check and time every case under both backends (GPU)")
    ap.add_argument("--only", default="", help="a regex: the cases whose name matches")
    ap.add_argument("--tests", type=int, default=0, help="also run the tutorials' pytest functions (N cases each)")
    ap.add_argument("--reps", type=int, default=200, help="do_bench's rep (ms of timed runs)")
    args = ap.parse_args()
    if args.list or not args.run:
        for t in TUTORIAL_FILES:
            changes = _swaps_of(os.path.join(TUTORIALS, t + ".py"), t, t, " (see the docstring)")
            for no, old, new in changes:
                print("   %s.py:%d  %s  ->  %s" % (t, no, old, new))
        for name, rel in FLA_FILES.items():
            _swaps_of(os.path.join(FLA, rel), rel, "fla " + rel)
        if not args.run:
            return 0
    import torch
    if not torch.cuda.is_available():
        print("no CUDA device: --run needs the GPU host", file=sys.stderr)
        return 2
    workdir = tempfile.mkdtemp(prefix="gluon-bench-")
    try:
        envs = build_envs(workdir)
        results = []
        for case in all_cases(torch):
            if args.only and not re.search(args.only, case.name):
                continue
            r = {b: run_case(case, envs[b], args.reps) for b in BACKENDS}
            print("%-60s txl %s %s | triton %s %s" % (case.name, "ok" if r["txl"].get("ok") else "FAIL",
                                                       fmt_ms(r["txl"]), "ok" if r["triton"].get("ok") else "FAIL",
                                                       fmt_ms(r["triton"])))
            for b in BACKENDS:
                if not r[b].get("ok"):
                    print("    %s: %s" % (b, r[b].get("error")))
                for key in ("traceback", "timing_traceback"):
                    if r[b].get(key):
                        print("    %s %s:\n%s" % (b, key.replace("_", " "), "\n".join(
                            "      " + ln for ln in r[b][key].rstrip().splitlines())))
            results.append((case.name, r))
        tests = run_tests(envs, args.tests) if args.tests else {}
        text = "device: %s\n\n%s" % (torch.cuda.get_device_name(), table(results))
        if tests:
            text += "\n\n| tutorial tests | txl passed/failed/skipped | triton passed/failed/skipped | txl first " \
                    "failure |\n|---|---|---|---|\n"
            for t, r in tests.items():
                a, b = r.get("txl", (0, 0, 0, None)), r.get("triton", (0, 0, 0, None))
                text += "| %s | %d/%d/%d | %d/%d/%d | %s |\n" % (t, *a[:3], *b[:3], (a[3] or "").replace("|", "/"))
        print()
        print(text)
        out = os.environ.get("OUT")
        if out:
            with open(os.path.join(out, "gluon.md"), "w") as f:
                f.write(text + "\n")
            with open(os.path.join(out, "gluon.json"), "w") as f:
                json.dump({"device": torch.cuda.get_device_name(), "results": results, "tests": tests}, f,
                          indent=1, default=str)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
