#!/usr/bin/env python3
"""Host cost of a repeated txl JIT launch, measured on a machine without a GPU (issue 32).

    python3 bench/launch_host_cpu.py            # needs torch (CPU is enough) and a built txlc
    python3 bench/launch_host_cpu.py --profile  # cProfile of each case's repeated launch
    python3 bench/launch_host_cpu.py --instructions  # instructions per launch under valgrind's callgrind

What runs is the real code of a launch from ``kernel[grid](...)`` down to the ``cuLaunchKernel`` call: the JIT's
option handling and argument fingerprint (jit.py), the fast entry's argument mapping, ``runtime.FastLaunch``'s
parameter slots, context check and stream lookup, the autotuner's and heuristics' wrappers (autotune.py) and the
Gluon wrapper (experimental/gluon). The first launch of each case compiles the kernel with the real frontend and
txlc and goes the checked way, with the runtime's ``Kernel.launch`` replaced by a no-op (its CUDA checks would
refuse CPU tensors); the measured launches are the repeated ones. What is faked:

* the arguments are torch CPU tensors, reported to the checked path as CUDA tensors;
* the driver: ``cuLaunchKernel`` and ``cuCtxGetCurrent`` are a C function that returns 0 (compiled here with cc),
  called through ctypes exactly as FastLaunch calls libcuda's, so ctypes' conversion of the arguments is measured
  and the driver's own work is not;
* ``torch._C._cuda_getCurrentRawStream`` (which needs a GPU) is the builtin ``abs``: a C call of one int.

Cases: (a) a @txl.jit kernel of 4 tensors and 2 ints, launched positionally as Liger launches (constexpr by
keyword, num_warps); (b) a @gluon.jit kernel with fla's cross_entropy_fwd signature launched with its 17 keyword
arguments as bench/gluon.py does; (c) the kernel of (a) under ``txl.heuristics`` over ``txl.autotune`` (two
configs, as fla stacks them). Each prints microseconds per launch of this thread's CPU time, the best and the
median of 9 runs of 2000 launches, and the median wall clock. On a shared machine the best run is the steadiest
figure (other processes only add to it). These are CPU numbers of this machine's Python, not GPU-host numbers;
read them as before/after on the same machine, run interleaved. ``--instructions`` runs the script again under
valgrind's callgrind, instrumenting only 500 launches of each case, and prints instructions per launch: a count
that the machine's load does not change (torch's import under valgrind takes about a minute)."""

import argparse
import cProfile
import ctypes
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402

import txl  # noqa: E402
import txl.language as tl  # noqa: E402
from txl.experimental import gluon  # noqa: E402
from txl.experimental.gluon import language as gl  # noqa: E402
from txl.runtime import Kernel, launcher  # noqa: E402
from txl.runtime import dtypes as _dt  # noqa: E402
from txl.runtime.driver import _SIGNATURES  # noqa: E402

RUNS, LAUNCHES = 9, 2000


# --------------------------------------------------------------------------------------------------------------
# kernels
# --------------------------------------------------------------------------------------------------------------
@txl.jit
def fma4(x_ptr, y_ptr, z_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs * stride, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    z = tl.load(z_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x * y + z, mask=m)


fma4_tuned = txl.heuristics({"BLOCK": lambda a: 1024 if a["n"] >= 1024 else 256})(
    txl.autotune([txl.Config({}, num_warps=4), txl.Config({}, num_warps=8)], key=["n"],
                 bench=lambda call: (call(), 1.0)[1], cache_results=False, verbose=False)(fma4))


@gluon.jit(do_not_specialize=["N"])
def ce_fwd(logits, target, loss, z_loss, lse, s_logits, label_smoothing: gl.constexpr, logit_scale: gl.constexpr,
           lse_square_scale: gl.constexpr, logit_softcapping: gl.constexpr, ignore_index: gl.constexpr, N,
           V: gl.constexpr, V_TOTAL: gl.constexpr, V_START: gl.constexpr, BV: gl.constexpr, SPLIT: gl.constexpr):
    # fla's cross_entropy_fwd_kernel_gluon signature; the body is smaller (the launch cost does not read it)
    layout: gl.constexpr = gl.BlockedLayout([8], [32], [4], [0])
    i_n = gl.program_id(0).to(gl.int64)
    o_v = gl.arange(0, BV, layout=layout)
    m_v = o_v < V
    b = gl.load(logits + i_n * s_logits + o_v, mask=m_v, other=-float("inf")).to(gl.float32) * logit_scale
    b_max = gl.max(b, 0)
    t = gl.load(target + i_n)
    gl.store(loss + i_n, b_max + t.to(gl.float32) * label_smoothing)
    gl.store(lse + i_n, b_max)
    gl.store(z_loss + i_n, b_max * lse_square_scale)


# --------------------------------------------------------------------------------------------------------------
# the fake driver
# --------------------------------------------------------------------------------------------------------------
_NOOP_C = """int txl_noop(void) { return 0; }
#ifdef TXL_CALLGRIND
#include <valgrind/callgrind.h>
void txl_count_start(void) { CALLGRIND_START_INSTRUMENTATION; CALLGRIND_ZERO_STATS; }
void txl_count_stop(const char *name) { CALLGRIND_DUMP_STATS_AT(name); CALLGRIND_STOP_INSTRUMENTATION; }
#endif
"""


def _noop_library(callgrind=False):
    d = tempfile.mkdtemp(prefix="txl-launch-host-")
    src, lib = os.path.join(d, "noop.c"), os.path.join(d, "libnoop.so")
    with open(src, "w") as f:
        f.write(_NOOP_C)
    subprocess.run(["cc", "-O2", "-shared", "-fPIC"] + (["-DTXL_CALLGRIND"] if callgrind else []) + [src, "-o", lib],
                   check=True)
    return ctypes.CDLL(lib)


class FakeDriver:
    """What FastLaunch asks of the driver, with no-op C functions in place of libcuda's."""

    def __init__(self):
        lib = _noop_library()
        self._fns = {}
        for name in ("cuLaunchKernel", "cuCtxGetCurrent"):
            fn = lib["txl_noop"]  # a new function object per name: each gets its own argtypes
            fn.argtypes = _SIGNATURES[name]
            fn.restype = ctypes.c_int
            self._fns[name] = fn
        self.noop = self._fns["cuLaunchKernel"]

    def set_device(self, dev):
        pass

    def primary_context(self, dev):
        return None  # what the no-op cuCtxGetCurrent leaves in its out-parameter: "already current"


def install_fakes():
    drv = FakeDriver()
    launcher.get_driver = lambda: drv
    Kernel._function = lambda self, d, dev: 0x1000
    Kernel.launch = lambda self, grid, *a, stream=None, **k: None  # the checked launch (first of a fingerprint)
    torch._C._cuda_getCurrentRawStream = abs
    info = _dt.tensor_info

    def cuda_info(obj):  # the checked path's CUDA checks see CPU tensors as CUDA tensors of device 0
        i = info(obj)
        if i is not None and i.device_type == "cpu":
            i.device_type, i.device_index = "cuda", 0
        return i
    _dt.tensor_info = cuda_info
    return drv


# --------------------------------------------------------------------------------------------------------------
# cases
# --------------------------------------------------------------------------------------------------------------
def cases():
    n = 4096
    x, y, z, o = (torch.empty(n) for _ in range(4))

    def plain():
        fma4[(4,)](x, y, z, o, n, 1, BLOCK=1024, num_warps=4)

    def plain_lambda_grid():
        fma4[lambda meta: (txl.cdiv(meta["n"], meta["BLOCK"]),)](x, y, z, o, n, 1, BLOCK=1024, num_warps=4)

    rows, vocab = 4096, 8000
    logits = torch.empty(rows, vocab, dtype=torch.bfloat16)
    target = torch.zeros(rows, dtype=torch.int64)
    loss, zl, lse = (torch.empty(rows) for _ in range(3))

    def gluon_ce():
        ce_fwd[(rows, 1)](logits=logits, target=target, loss=loss, z_loss=zl, lse=lse, s_logits=logits.stride(0),
                          label_smoothing=0.0, logit_scale=1.0, lse_square_scale=0.0, logit_softcapping=None,
                          ignore_index=-100, N=rows, V=vocab, V_TOTAL=vocab, V_START=0, BV=8192, SPLIT=False,
                          num_warps=4)

    def tuned():
        fma4_tuned[(4,)](x, y, z, o, n, 1)

    return [("(a) @txl.jit, 4 tensors + 2 ints, tuple grid", plain),
            ("(a') the same, grid a lambda of meta", plain_lambda_grid),
            ("(b) @gluon.jit, fla cross_entropy_fwd, 17 kwargs", gluon_ce),
            ("(c) heuristics(autotune(@txl.jit)), 2 configs", tuned)]


def per_launch_us(fn):
    cpu, wall = [], []
    for _ in range(RUNS):
        c0, w0 = time.thread_time(), time.perf_counter()
        for _ in range(LAUNCHES):
            fn()
        cpu.append((time.thread_time() - c0) / LAUNCHES * 1e6)
        wall.append((time.perf_counter() - w0) / LAUNCHES * 1e6)
    return min(cpu), statistics.median(cpu), statistics.median(wall)


def count_instructions(argv):
    """Run this script under valgrind's callgrind (instrumenting only the measured launches) and print the
    instructions per launch of each case: a count that other processes on the machine do not change."""
    out = tempfile.mkdtemp(prefix="txl-launch-host-cg-")
    cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=%s/cg.out" % out,
           sys.executable, os.path.abspath(__file__), "--under-callgrind"] + argv
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for f in sorted(os.listdir(out), key=lambda n: int(n.rsplit(".", 1)[-1]) if n[-1].isdigit() else 0):
        text = open(os.path.join(out, f)).read()
        trigger = [ln for ln in text.splitlines() if ln.startswith("desc: Trigger:")]
        total = [ln for ln in text.splitlines() if ln.startswith(("summary:", "totals:"))]
        if trigger and total and "Client Request: " in trigger[0]:
            name = trigger[0].split("Client Request: ", 1)[1]
            print("%-52s %8.0f instructions per launch" % (name, int(total[0].split()[1]) / COUNTED))


COUNTED = 500  # launches per case under callgrind


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", action="store_true", help="cProfile each case's repeated launches")
    ap.add_argument("--instructions", action="store_true",
                    help="count instructions per launch under valgrind (slow to start: torch under valgrind)")
    ap.add_argument("--under-callgrind", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--only", default="", help="run the cases whose name contains this")
    a = ap.parse_args()
    if a.instructions:
        return count_instructions(["--only", a.only] if a.only else [])
    os.environ.setdefault("TXL_TARGET", "sm_90a")
    drv = install_fakes()
    if a.under_callgrind:
        lib = _noop_library(callgrind=True)
        lib.txl_count_stop.argtypes = [ctypes.c_char_p]
    else:
        args = (ctypes.c_void_p(1), 1, 1, 1, 128, 1, 1, 0, 1, (ctypes.c_void_p * 7)(), None)
        print("floor: the no-op cuLaunchKernel through ctypes (with argtypes): %.2f us CPU"
              % per_launch_us(lambda: drv.noop(*args))[0])
    for name, fn in cases():
        if a.only not in name:
            continue
        fn()  # compiles, checks, remembers the fast path
        fn()
        if a.under_callgrind:
            lib.txl_count_start()
            for _ in range(COUNTED):
                fn()
            lib.txl_count_stop(name.encode())
            continue
        if a.profile:
            p = cProfile.Profile()
            p.enable()
            for _ in range(LAUNCHES):
                fn()
            p.disable()
            print("== %s" % name)
            pstats.Stats(p).sort_stats("tottime").print_stats(14)
            continue
        best, med, wall = per_launch_us(fn)
        print("%-52s CPU best %6.2f us, median %6.2f us; wall median %6.2f us" % (name, best, med, wall))


if __name__ == "__main__":
    main()
