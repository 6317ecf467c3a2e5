"""Cold-compile time of every attention kernel configuration txl.ops launches (CPU only: no GPU needed).

    PYTHONPATH=python python3 bench/compile_time.py            # the table
    PYTHONPATH=python python3 bench/compile_time.py --repeat 3 # the best of 3 per kernel

Each kernel is compiled as a first launch with an empty cache compiles it: the frontend turns the Python function
into txl IR (``frontend``), then one ``txlc --emit=cubin`` run makes the PTX and the cubin. txlc's ``--time-phases``
splits its wall time into the txl passes (``passes``, parse included), the passes of the schedule trial (a second
compile of attention kernels without the async P @ V, ``trial``), the LLVM translation, O3 and NVPTX back end of
every version it assembles (``llvm``) and the time txlc waits for ptxas (``ptxas``: what is not hidden behind a
translation; ptxas runs as its own process). ``total`` is the frontend plus txlc's wall time. ``cpu`` is the CPU
seconds (user + system) of txlc and the ptxas processes it ran: on a shared machine wall time grows with the load
of other processes, CPU time much less, so compare ``cpu`` between runs made at different times. The cache is not
involved (no directory is read or written), so every row is a cold compile.

The kernels are the ones txl.ops launches by default: fa3 forward (head dims 64, 128, 256; causal or not; its
first tuning config), its backward, varlen (packed sequences), MLA decode (the wgmma kernel, seesaw schedule), paged KV-cache decode
and FP8 forward. Needs txlc (TXL_TXLC or build/bin/txlc) and ptxas (TXL_PTXAS, PATH or /usr/local/cuda/bin).
"""

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

from txl.compiler.code_generator import ast_to_ir  # noqa: E402
from txl.compiler.compiler import find_ptxas, find_txlc  # noqa: E402

# The paged KV-cache kernel's runtime parameters as a launch on contiguous bf16 tensors specialises them: pointers
# 16-byte aligned, the caches' strides divisible by 16 (test_kvcache_cpu.py builds the same from the parameter names).
_KVCACHE_SIGNATURE = dict(
    {p: "*bf16:16" for p in ("Q", "K", "V", "O")}, BT="*i32:16", SEQLENS="*i32:16", LSE="*fp32:16",
    PART_O="*fp32:16", PART_LSE="*fp32:16", sm_scale="fp32", H="i32", cap="i32", n_pages="i32", bt_stride="i32",
    **{s: "i32:16" for s in ("sk_page", "sk_tok", "sk_head", "sv_page", "sv_tok", "sv_head")})


def kernels():
    """(name, function, signature, constexprs, options) of each configuration."""
    from txl.kernels import flash_attention as fa
    from txl.kernels import flash_attention_bwd as kb
    from txl.kernels import flash_attention_fp8 as f8
    from txl.kernels import kvcache_decode as kk
    from txl.kernels import mla_decode_seesaw as ms
    from txl.kernels import mla_decode_wgmma as mw
    from txl.ops import _attention_bwd
    from txl.ops import attention as A
    from txl.ops import attention_fp8 as F8

    out = []
    _, _, bm, _, cfgs = A.KERNELS["fa3"]
    for d in A.HEAD_DIMS:
        bn, ns, persistent = cfgs[d][0][:3]
        for causal in (False, True):
            cx = fa.constexprs(d, causal, bm, bn, ns, True, 1, persistent=persistent)
            out.append(("fa3 fwd hd%d%s" % (d, " causal" if causal else ""), fa.flash_attention,
                        fa.signature(d, bm, bn), cx, fa.OPTIONS))
    bn, ns, _ = cfgs[128][0][:3]
    out.append(("fa3 fwd hd128 varlen", fa.flash_attention, fa.signature(128, bm, bn),
                fa.constexprs(128, False, bm, bn, ns, False, 1, varlen=True), fa.OPTIONS))
    for causal in (False, True):
        cx = kb.constexprs(128, causal, num_stages=_attention_bwd.NUM_STAGES[128])
        out.append(("fa3 bwd hd128%s" % (" causal" if causal else ""), kb.flash_attention_bwd, kb.signature(128),
                    cx, kb.OPTIONS))
    bn, ns = F8.CONFIGS[128][0][:2]
    out.append(("fp8 fwd hd128", f8.flash_attention_fp8, f8.signature(128, bn),
                f8.constexprs(128, False, bn, ns, True, 1), f8.OPTIONS))
    out.append(("mla decode (seesaw)", ms.mla_decode_seesaw, mw.signature(), mw.constexprs(64, 2), mw.OPTIONS))
    cx = kk.split_constexprs(128, 4, 1, 64, 2, False)
    out.append(("kvcache decode hd128", kk.kvcache_decode_split, _KVCACHE_SIGNATURE, cx, {"num_warps": 4}))
    return out


_PHASES = re.compile(r"txlc-phases: parse ([\d.]+) passes ([\d.]+) trial-passes ([\d.]+) llvm ([\d.]+) "
                     r"ptxas ([\d.]+)")


def compile_once(txlc, fn, sig, cx, opts):
    """{"frontend", "passes", "trial", "llvm", "ptxas", "txlc", "total", "cpu"} seconds of one cold compile."""
    t0 = time.perf_counter()
    text = ast_to_ir(fn, sig, cx, **opts)
    frontend = time.perf_counter() - t0
    with tempfile.TemporaryDirectory(prefix="txl-compile-time-") as d:
        src = os.path.join(d, "k.mlir")
        with open(src, "w") as f:
            f.write(text)
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t1 = time.perf_counter()
        r = subprocess.run([txlc, src, "--emit=cubin", "--time-phases", "-o", os.path.join(d, "k.ptx")],
                           capture_output=True, text=True)
        wall = time.perf_counter() - t1
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    m = _PHASES.search(r.stderr)
    if r.returncode != 0 or not m:
        raise RuntimeError("txlc failed (exit %d):\n%s" % (r.returncode, r.stderr[-4000:]))
    parse, passes, trial, llvm, ptxas = (float(x) for x in m.groups())
    return {"frontend": frontend, "passes": parse + passes, "trial": trial, "llvm": llvm, "ptxas": ptxas,
            "txlc": wall, "total": frontend + wall, "cpu": cpu}


COLUMNS = ("frontend", "passes", "trial", "llvm", "ptxas", "txlc", "total", "cpu")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=1, help="compile each kernel N times and keep the fastest")
    ap.add_argument("--filter", default="", help="only the kernels whose name contains this text")
    args = ap.parse_args(argv)
    txlc = find_txlc()
    if txlc is None:
        print("error: no txlc (build it, or set TXL_TXLC)", file=sys.stderr)
        return 1
    if find_ptxas() is None:
        print("error: no ptxas (set TXL_PTXAS, or put CUDA's bin on PATH): the cubin is part of a cold compile",
              file=sys.stderr)
        return 1
    print("txlc %s, %d CPU cores; seconds per kernel (best of %d)" % (txlc, os.cpu_count() or 0, args.repeat))
    print("| kernel | " + " | ".join(COLUMNS) + " |")
    print("|---|" + "---:|" * len(COLUMNS))
    sums = dict.fromkeys(COLUMNS, 0.0)
    n = 0
    for name, fn, sig, cx, opts in kernels():
        if args.filter not in name:
            continue
        best = min((compile_once(txlc, fn, sig, cx, opts) for _ in range(max(args.repeat, 1))),
                   key=lambda t: t["total"])
        print("| %s | " % name + " | ".join("%.2f" % best[c] for c in COLUMNS) + " |", flush=True)
        for c in COLUMNS:
            sums[c] += best[c]
        n += 1
    print("| **total (%d kernels)** | " % n + " | ".join("%.2f" % sums[c] for c in COLUMNS) + " |")
    print("| mean per kernel | " + " | ".join("%.2f" % (sums[c] / max(n, 1)) for c in COLUMNS) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
