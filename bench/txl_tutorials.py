#!/usr/bin/env python3
"""TXL's own tutorials under txl, ported by changing only their import lines (issue 17): every TXL kernel of
01-matmul.py, 02-flash-attention.py, 04-softmax.py and the MLA decoding / NSA prefill interfaces, checked against
a float32 torch reference on fresh random data and timed next to a peer measured in the same run.

    python3 bench/txl_tutorials.py --tutorials DIR               # GPU host: every case, one table
    python3 bench/txl_tutorials.py --tutorials DIR --only 02,04  # the cases of some tutorials
    python3 bench/txl_tutorials.py --tutorials DIR --case 02:0   # one case (its full output)

DIR holds TXL's tutorial folder as the public repository deciding/txl has it (python/teraxlang/tutorials):
01-matmul.py, 02-flash-attention.py, 04-softmax.py, mla/flash_mla/txl_mla_interface.py,
mla/flash_mla/txl_nsa_interface.py, mla/lib.py, utils/test_util.py, utils/padding.py. They are TXL's code and
not part of this repository: copy them into a git-ignored folder such as .device/txl-tutorials, which travels to
the GPU host with the working tree (docs/txl-tutorials.md).

The port. Each file is copied into a temporary folder with only its import lines changed, by the table
REWRITES (an import of teraxlang that no rule covers is an error, so the table grows on purpose); every line
rewritten is printed. ``import triton`` and Triton's host modules (triton.testing, triton.knobs,
triton.tools.tensor_descriptor) stay: the GPU host has Triton 3.6, and TXL's tutorials use it for @triton.jit
helpers, configs, do_bench and host TensorDescriptors (which txl kernels take as they take txl's). Two modules the
tutorials import that are neither TXL nor Triton get stand-ins written next to the copy (DEPENDENCY_STANDINS):
``cutlass`` / ``cutlass.torch`` (04 names its dtype through CuTe-DSL: BFloat16 -> torch.bfloat16) and the
tutorials' own ``teraxlang.tutorials.utils`` helpers, imported from the copied utils/ folder.

Each case runs in its own process (a fault or a hang poisons only that case; --timeout kills a hang) and prints
one JSON line; the parent prints the table: PASS when the output matches the float32 reference within the
tutorial's own tolerance, with txl's time, the peer's (cuBLAS through torch.matmul, cuDNN/flash through torch
SDPA, torch.softmax) and their ratio. Kernels that only run on Blackwell (01's *_bw* kernels) are listed as such.
"""

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..")

FILES = ["01-matmul.py", "02-flash-attention.py", "04-softmax.py", "mla/flash_mla/txl_mla_interface.py",
         "mla/flash_mla/txl_nsa_interface.py", "mla/lib.py", "utils/test_util.py", "utils/padding.py"]

# Whole import lines (stripped) -> what replaces them: TXL's names for txl's.
REWRITES = {
    "import teraxlang as txl": "import txl",
    "import teraxlang": "import txl",
    "import triton.language as tl": "import txl.language as tl",
    "import triton.profiler.language as pl": "import txl.profiler.language as pl",
    "import triton.profiler as proton": "import txl.profiler as proton",
    "from teraxlang.language.semantic import TXLSemantic": "from txl.language.semantic import TXLSemantic",
    # The tutorials' own test helpers (not TXL's compiler): the copied utils/ folder.
    "from teraxlang.tutorials.utils.test_util import attention_ref": "from utils.test_util import attention_ref",
    "from teraxlang.tutorials.utils.padding import pad_input, unpad_input":
        "from utils.padding import pad_input, unpad_input",
}
# Imports of TXL's other packages the tutorials guard with try/except (a flash-attn build shipped with TXL):
# left alone, their except branch runs as it does where the package is missing.
GUARDED_OK = ("from teraxlang.tests.",)

_TXL_IMPORT = re.compile(r"^\s*(import|from)\s+teraxlang\b")

DEPENDENCY_STANDINS = {
    "cutlass/__init__.py": '"""Stand-in for CuTe-DSL\'s dtype names (04-softmax.py names its dtype this way)."""\n'
                           "class BFloat16:\n    width = 16\n\n\nclass Float16:\n    width = 16\n\n\n"
                           "class Float32:\n    width = 32\n",
    "cutlass/torch.py": "import torch\n\n\ndef dtype(t):\n"
                        "    return {'BFloat16': torch.bfloat16, 'Float16': torch.float16,\n"
                        "            'Float32': torch.float32}[t.__name__]\n",
    "utils/__init__.py": "",
}


def rewrite_imports(src, name):
    out, changes = [], []
    for n, line in enumerate(src.splitlines(keepends=True), 1):
        key = line.strip()
        if key in REWRITES:
            indent = line[: len(line) - len(line.lstrip())]
            new = indent + REWRITES[key] + "\n"
            changes.append((n, key, REWRITES[key]))
            out.append(new)
            continue
        if _TXL_IMPORT.match(line) and not key.startswith(GUARDED_OK):
            raise SystemExit("%s:%d: no rewrite rule for %r (add one to REWRITES)" % (name, n, key))
        out.append(line)
    return "".join(out), changes


def write_port(src_dir, dst_dir, quiet=False):
    for rel in FILES:
        path = os.path.join(src_dir, rel)
        if not os.path.exists(path):
            raise SystemExit("missing %s (copy TXL's python/teraxlang/tutorials into %s)" % (path, src_dir))
        with open(path) as f:
            new, changes = rewrite_imports(f.read(), rel)
        os.makedirs(os.path.dirname(os.path.join(dst_dir, rel)), exist_ok=True)
        with open(os.path.join(dst_dir, rel), "w") as f:
            f.write(new)
        if not quiet:
            for n, old, repl in changes:
                print("  %s:%d  %s  ->  %s" % (rel, n, old, repl))
    for rel, text in DEPENDENCY_STANDINS.items():
        os.makedirs(os.path.dirname(os.path.join(dst_dir, rel)), exist_ok=True)
        with open(os.path.join(dst_dir, rel), "w") as f:
            f.write(text)


# ----------------------------------------------------------------------------------------------------- cases
# A case: (key, tutorial file, label, runner name, args). Runners run in the child process.

GEMM_HOPPER = [  # host function, B layout it takes ('nk': B^T contiguous, as validate() passes it; 'kn': B)
    ("matmul_async_load_txl", "kn"), ("matmul_naive_tma_txl", "nk"), ("matmul_tma_persistent_txl", "nk"),
    ("matmul_tma_ws_persistent_txl", "nk"), ("matmul_tma_ws_nn_persistent_txl", "kn"),
    ("matmul_tma_ws_persistent_txl2", "nk"), ("matmul_separate_tma_txl", "nk"),
    ("matmul_tma_ws_persistent_txl_newws", "nk"),
]
GEMM_BLACKWELL = ["matmul_bw2", "matmul_persistent_nows_tma_txl_bw3", "matmul_persistent_nows_tma_txl_bw4",
                  "matmul_persistent_nows_tma_txl_bw5", "matmul_persistent_tma_txl_bw6"]
ATTN_ALGOS = [0, "hopper_txl_ws_naive", "hopper_txl_ws_pingpong", "hopper_txl_ws_fa3", 4, 5, 6, 7, 8, 9, 10, 11]
SOFTMAX_KERNELS = [  # kernel, kind: 'softmax' (checked output), 'cluster' (checked, num_ctas=2), 'runs' (no output)
    ("fused_softmax", "tutorial"), ("softmax_kernel", "softmax"), ("softmax_kernel_txl", "softmax"),
    ("softmax_kernel_txl2", "softmax"), ("online_softmax_kernel_txl", "softmax"),
    ("cluster_softmax_kernel", "cluster"), ("cluster_softmax_small_kernel", "cluster"),
    ("reduce_test", "runs"), ("frag_smem_store_test", "runs"), ("frag_smem_store_test2", "runs"),
]


def all_cases():
    cases = []
    for fn, layout in GEMM_HOPPER:
        cases.append(("01:" + fn, "01-matmul.py", fn, "gemm", (fn, layout)))
    for fn in GEMM_BLACKWELL:
        cases.append(("01:" + fn, "01-matmul.py", fn, "blackwell", (fn,)))
    for algo in ATTN_ALGOS:
        cases.append(("02:%s" % algo, "02-flash-attention.py", "attention algo=%r" % (algo,), "attention", (algo,)))
    for k, kind in SOFTMAX_KERNELS:
        cases.append(("04:" + k, "04-softmax.py", k, "softmax", (k, kind)))
    cases.append(("mla:mla_txl", "mla/flash_mla/txl_mla_interface.py", "mla_txl", "mla", ()))
    cases.append(("nsa:txl_mla0", "mla/flash_mla/txl_nsa_interface.py", "txl_mla0 (nsa_test)", "nsa", ()))
    return cases


def _bench(fn):
    import triton.testing
    fn()
    return triton.testing.do_bench(fn, warmup=25, rep=200)


def run_gemm(m, fn_name, layout):
    import torch
    fn = getattr(m, fn_name)
    torch.manual_seed(0)
    M, N, K = 128 * 16, 256 * 16, 512  # validate()'s shape
    a = torch.randn((M, K), device="cuda", dtype=torch.float16)
    bn = torch.randn((K, N), device="cuda", dtype=torch.float16)
    b = bn.T.contiguous() if layout == "nk" else bn
    out = fn(a, b)
    torch.cuda.synchronize()
    ref = a.float() @ bn.float()
    err = (out.float() - ref).abs().max().item()
    res = {"ok": bool(err <= 1.0), "check": "max |err| %.3g (atol 1.0, the tutorial's)" % err}
    M = N = 8192
    K = 1024  # bench()'s shape
    a = torch.randn((M, K), device="cuda", dtype=torch.float16)
    bn = torch.randn((K, N), device="cuda", dtype=torch.float16)
    b = bn.T.contiguous() if layout == "nk" else bn
    ms = _bench(lambda: fn(a, b))
    peer = _bench(lambda: torch.matmul(a, bn))
    flops = 2.0 * M * N * K
    res.update(ms=ms, peer_ms=peer, peer="cuBLAS", perf="%.0f TF/s" % (flops / ms * 1e-9),
               shape="%dx%dx%d fp16" % (M, N, K))
    return res


def run_blackwell(m, fn_name):
    return {"ok": None, "check": "Blackwell only (tcgen05/TMEM): not run on Hopper"}


# Kernels TXL's own tutorial cannot launch as written (the same error under TXL): not txl's to fix.
TUTORIAL_BUGS = {
    ("attention", 7): "TXL's test_attention launches _attn_fwd_ws_tma_txl_test without the o_ptr, stride_om and "
                      "stride_on parameters it declares (a TypeError under TXL as well)",
}


def run_attention(m, algo):
    import torch
    if ("attention", algo) in TUTORIAL_BUGS:
        return {"ok": None, "check": TUTORIAL_BUGS[("attention", algo)]}
    torch.manual_seed(0)
    m.test_op(16, 32, 1024, 128, False, dtype=torch.float16, algo=algo)  # the tutorial's own check (asserts)
    res = {"ok": True, "check": "test_op(16, 32, 1024, 128): allclose(atol=0.01) vs attention_ref"}
    B, H, N, D = 1, 32, 16384, 128  # bench_flash_attention's shape
    q, k, v = (torch.randn((B, H, N, D), dtype=torch.float16, device="cuda") for _ in range(3))
    sm = 1 / math.sqrt(D)
    ms = _bench(lambda: m.attention(q, k, v, False, sm, algo))
    from torch.nn.attention import SDPBackend, sdpa_kernel
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
        peer = _bench(lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=sm))
    flops = 4.0 * B * H * N * N * D
    res.update(ms=ms, peer_ms=peer, peer="cuDNN (SDPA)", perf="%.0f TF/s" % (flops / ms * 1e-9),
               shape="%dx%dx%dx%d fp16" % (B, H, N, D))
    return res


def run_softmax(m, name, kind):
    import torch
    torch.manual_seed(0)
    M, N = 32 * 1024, 32 * 1024  # test_softmax's shape (bf16)
    x32 = 0.1 * torch.randn(M, N, device="cuda", dtype=torch.float32)
    x = x32.to(torch.bfloat16)
    LOG2_E = math.log2(math.e)
    BLOCK = 1 << (N - 1).bit_length()
    if kind == "tutorial":
        call = lambda bench: m.fused_softmax(x, 264, LOG2_E, bench)  # noqa: E731
    else:
        k = getattr(m, name)
        extra = {"num_warps": 4}  # fused_softmax's (a launch option, or the kernel's own num_warps parameter)
        if kind in ("cluster", "runs"):
            extra["num_ctas"] = 2

        def call(bench):
            y = torch.empty_like(x) if bench else torch.zeros_like(x)
            k[(M, 1, 1)](y, x, x.stride(0), y.stride(0), M, N, BLOCK, LOG2_E, 1, **extra)
            return y
    y = call(False)
    torch.cuda.synchronize()
    if kind == "runs":
        return {"ok": True, "check": "ran (a TXL test kernel with no output)"}
    ref = torch.softmax(x.float(), dim=-1)
    rel = ((y.float() - ref).abs() / (ref + 1e-20)).max().item()
    rows = (y.float().sum(dim=1) - 1).abs().max().item()
    res = {"ok": bool(rel < 2e-2 and rows < 1e-2),
           "check": "max rel err %.2g, |row sum - 1| %.2g (bf16 output)" % (rel, rows)}
    ms = _bench(lambda: call(True))
    peer = _bench(lambda: torch.softmax(x, dim=-1))
    gbs = 2 * x.numel() * 2 / (ms * 1e-3) * 1e-9
    res.update(ms=ms, peer_ms=peer, peer="torch.softmax", perf="%.0f GB/s" % gbs, shape="%dx%d bf16" % (M, N))
    return res


def run_mla(m):
    import torch
    torch.manual_seed(0)
    # The tutorial's __main__ shape, with B = the SM count: mla_txl gives each of NUM_SMS (the device's SM count)
    # programs B // NUM_SMS batches, so any B below it computes nothing (TXL's B = 114 is its GPU's SM count).
    B = torch.cuda.get_device_properties(0).multi_processor_count
    H, NQ, HKV, S, R, PE = 32, 64, 1, 256, 512, 64
    q = torch.randn((B, H, NQ, R), dtype=torch.float16, device="cuda")
    kv = torch.randn((B, HKV, S, R), dtype=torch.float16, device="cuda")
    qpe = torch.randn((B, H, NQ, PE), dtype=torch.float16, device="cuda")
    kpe = torch.randn((B, HKV, S, PE), dtype=torch.float16, device="cuda")
    sm = 1 / math.sqrt(R)
    out = m.mla_test(q, kv, qpe, kpe, sm)
    torch.cuda.synchronize()
    # float32 reference (ref_mla's math, batched): scores over [nope | pe], values = the latent kv
    qk = (q.float() @ kv.float().transpose(-1, -2) + qpe.float() @ kpe.float().transpose(-1, -2)) * sm
    ref = torch.softmax(qk, dim=-1) @ kv.float()
    err = (out.float() - ref).abs().max().item()
    res = {"ok": bool(err < 2e-2), "check": "max |err| %.2g vs float32 (tol 2e-2)" % err}
    ms = _bench(lambda: m.mla_test(q, kv, qpe, kpe, sm))
    qc, kc = torch.cat([q, qpe], -1), torch.cat([kv, kpe], -1).expand(B, H, S, R + PE)
    vv = kv.expand(B, H, S, R)
    peer = _bench(lambda: torch.nn.functional.scaled_dot_product_attention(qc, kc, vv, scale=sm))
    flops = 2.0 * B * H * NQ * S * (R + PE + R)
    res.update(ms=ms, peer_ms=peer, peer="torch SDPA", perf="%.0f TF/s" % (flops / ms * 1e-9),
               shape="B%d H%d NQ%d S%d" % (B, H, NQ, S))
    return res


def run_nsa(m):
    import torch
    torch.manual_seed(0)
    s_q, s_kv, topk, h_q, d_qk, d_v = 4096, 4096, 128, 128, 576, 512  # test_flash_nsa_prefill's topk=128 case
    q = (torch.randn((s_q, h_q, d_qk), dtype=torch.bfloat16, device="cuda") / 10).clamp_(-10, 10)
    kv = (torch.randn((s_kv, 1, d_qk), dtype=torch.bfloat16, device="cuda") / 10).clamp_(-10, 10)
    idx = torch.stack([torch.randperm(s_kv, device="cuda")[:topk] for _ in range(s_q)]).to(torch.int32)
    idx[:, -3:] = s_kv  # a few invalid indices per query, as the test's generator makes
    indices = idx.view(s_q, 1, topk)
    q_nope, q_pe = (t.contiguous() for t in torch.split(q, [512, 64], dim=-1))
    kv_nope, kv_pe = (t.contiguous() for t in torch.split(kv, [512, 64], dim=-1))
    sm = 1 / math.sqrt(d_qk)
    out, max_logits, lse = m.nsa_test(q_nope, q_pe, kv_nope, kv_pe, indices, sm)
    torch.cuda.synchronize()
    invalid = (idx < 0) | (idx >= s_kv)
    kvs = kv[:, 0].float().index_select(0, idx.masked_fill(invalid, 0).flatten().long()).view(s_q, topk, d_qk)
    score = (q.float() @ kvs.transpose(1, 2)).masked_fill_(invalid.unsqueeze(1), float("-inf")) * sm
    ref = torch.softmax(score, dim=-1) @ kvs[:, :, :d_v]
    ref_lse = torch.logsumexp(score, dim=-1) / math.log(2)
    err = (out.float() - ref).abs().max().item()
    cos = 1 - torch.nn.functional.cosine_similarity(out.float().flatten(), ref.flatten(), dim=0).item()
    lerr = (lse - ref_lse).abs().max().item()
    ok = err < 8e-4 + 2.01 / 128 * ref.abs().max().item() and cos < 7e-6 and lerr < 1e-3
    res = {"ok": bool(ok), "check": "out max |err| %.2g, cos diff %.1g, lse max |err| %.2g" % (err, cos, lerr)}
    ms = _bench(lambda: m.nsa_test(q_nope, q_pe, kv_nope, kv_pe, indices, sm))
    flops = 2.0 * h_q * (d_qk + d_v) * topk * s_q
    res.update(ms=ms, perf="%.0f TF/s" % (flops / ms * 1e-9), peer="(TXL reports 266 TF/s; no FlashMLA here)",
               shape="s_q %d s_kv %d topk %d" % (s_q, s_kv, topk))
    return res


RUNNERS = {"gemm": run_gemm, "blackwell": run_blackwell, "attention": run_attention, "softmax": run_softmax,
           "mla": run_mla, "nsa": run_nsa}


def load_module(port_dir, rel):
    import importlib.util
    for d in (port_dir, os.path.join(port_dir, "mla"), os.path.join(port_dir, "mla", "flash_mla")):
        sys.path.insert(0, d)
    name = "txl_tutorial_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(rel))[0])
    spec = importlib.util.spec_from_file_location(name, os.path.join(port_dir, rel))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def child(port_dir, key):
    sys.path.insert(0, os.path.join(REPO, "python"))
    case = {c[0]: c for c in all_cases()}[key]
    _, rel, _, runner, args = case
    t0 = time.time()
    try:
        mod = load_module(port_dir, rel)
        res = RUNNERS[runner](mod, *args)
    except BaseException as e:  # noqa: BLE001 - any failure is the case's result
        tb = traceback.extract_tb(e.__traceback__)
        where = next((("%s:%d" % (os.path.relpath(f.filename, port_dir), f.lineno)) for f in reversed(tb)
                      if f.filename.startswith(port_dir)), "")
        traceback.print_exc()
        msg = (str(e).strip().splitlines() or [type(e).__name__])[0]
        res = {"ok": False, "check": "%s: %s%s" % (type(e).__name__, msg[:300], " (at %s)" % where if where else "")}
    res["secs"] = round(time.time() - t0, 1)
    print("RESULT " + json.dumps(res), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tutorials", required=True, help="a copy of TXL's python/teraxlang/tutorials")
    ap.add_argument("--only", default="", help="comma-separated tutorial keys: 01,02,04,mla,nsa")
    ap.add_argument("--case", action="append", default=[], help="one case key (e.g. 02:0); full output")
    ap.add_argument("--timeout", type=int, default=180, help="seconds per case (a hang is killed)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--port-dir", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.port_dir, args.child)
    cases = all_cases()
    if args.only:
        keep = set(args.only.split(","))
        cases = [c for c in cases if c[0].split(":")[0] in keep]
    if args.case:
        cases = [c for c in cases if c[0] in args.case]
    port = tempfile.mkdtemp(prefix="txl-tutorials-")
    print("== the port (import lines rewritten):")
    write_port(os.path.abspath(args.tutorials), port)
    rows = []
    for key, rel, label, runner, _ in cases:
        t0 = time.time()
        cmd = [sys.executable, os.path.abspath(__file__), "--tutorials", args.tutorials, "--child", key,
               "--port-dir", port]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout, cwd=port)
            out = p.stdout + p.stderr
            line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
            res = json.loads(line[-1][7:]) if line else {
                "ok": False, "check": "process died (exit %d): %s" % (p.returncode, (out.strip().splitlines()
                                                                                  or [""])[-1][:200])}
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            res = {"ok": False, "check": "HANG: killed after %d s" % args.timeout}
        if len(cases) == 1 or not res.get("ok"):
            tail = out.strip().splitlines()[-25:]
            print("---- %s output (last lines):\n%s" % (key, "\n".join(tail)))
        status = "PASS" if res.get("ok") else ("n/a" if res.get("ok") is None else "FAIL")
        ratio = ("%.2f" % (res["peer_ms"] / res["ms"])) if res.get("peer_ms") and res.get("ms") else ""
        row = (key, status, "%.3f" % res["ms"] if res.get("ms") else "", res.get("perf", ""),
               res.get("peer", ""), "%.3f" % res["peer_ms"] if res.get("peer_ms") else "", ratio,
               res.get("shape", ""), res.get("check", ""))
        rows.append(row)
        print("%-40s %-5s %6.1fs  %s" % (key, status, time.time() - t0, res.get("check", "")), flush=True)
    print("\n| case | result | txl ms | txl | peer | peer ms | peer/txl | shape | check |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(str(x).replace("|", "/") for x in r) + " |")
    n_pass = sum(r[1] == "PASS" for r in rows)
    n_run = sum(r[1] != "n/a" for r in rows)
    print("\n%d of %d runnable cases pass (%d listed as not runnable here: Blackwell-only, or the tutorial's own "
          "launch is wrong)" % (n_pass, n_run, len(rows) - n_run))
    shutil.rmtree(port, ignore_errors=True)
    return 0 if n_pass == n_run else 1


if __name__ == "__main__":
    sys.exit(main())
