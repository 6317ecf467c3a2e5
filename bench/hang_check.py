#!/usr/bin/env python3
"""Prove the hang diagnosis on a GPU: run test/gpu/hang.mlir (compiled with `txlc --debug-hangs`), a kernel
whose mbarrier wait can never complete, in a child process with a time limit.

    python3 bench/hang_check.py --kernels DIR

PASS when the child prints txl's timeout message (barrier offset, phase, block, thread, source location)
and the launch fails with a CUDA error instead of freezing; FAIL otherwise (the child is killed after 60 s).
"""
import argparse
import os
import subprocess
import sys

CHILD = r"""
import os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "python"))
import torch
from txl.runtime.launcher import load_kernel
k = load_kernel(os.path.join(sys.argv[2], "hang.json"))
out = torch.zeros(1, device="cuda")
try:
    k[(2, 1, 1)](out)
    torch.cuda.synchronize()
    print("CHILD: kernel returned normally")
except Exception as ex:
    print("CHILD: launch failed:", type(ex).__name__, str(ex).splitlines()[0])
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", required=True)
    args = ap.parse_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    env = dict(os.environ, TXL_LAUNCH_BLOCKING="1", PYTHONUNBUFFERED="1")
    try:
        p = subprocess.run([sys.executable, "-c", CHILD, root, args.kernels], env=env, capture_output=True,
                           text=True, timeout=60)
        out = p.stdout + p.stderr
    except subprocess.TimeoutExpired as ex:
        print("FAIL: the kernel froze (killed after 60 s)")
        print((ex.stdout or b"").decode(errors="replace")[-2000:])
        return 1
    print(out[-3000:])
    diagnosed = "txl: mbarrier wait timed out" in out and "hang.mlir" in out
    failed = "CHILD: launch failed" in out
    print("PASS: hang diagnosed" if diagnosed and failed else "FAIL: no diagnosis")
    return 0 if diagnosed and failed else 1


if __name__ == "__main__":
    sys.exit(main())
