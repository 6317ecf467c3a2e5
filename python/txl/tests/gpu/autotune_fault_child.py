"""Child process of test_autotune_fault_gpu.py: autotunes a kernel whose first config faults (an out-of-bounds store:
a sticky CUDA error), over a cache directory shared between two runs.

    python3 -m txl.tests.gpu.autotune_fault_child first    # expects the clear "context is lost" error
    python3 -m txl.tests.gpu.autotune_fault_child second   # a new process: skips the recorded config, runs
"""

import sys

import torch

import txl
import txl.language as tl


@txl.autotune(configs=[txl.Config({"STRIDE": 1 << 20}), txl.Config({"STRIDE": 1})], key=["n"], warmup=1, rep=2)
@txl.jit
def strided_fill(out_ptr, n, STRIDE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs * STRIDE, offs.to(tl.float32), mask=offs < n)  # STRIDE 2^20: far out of bounds


def main(which):
    n = 4096
    out = torch.zeros(n, device="cuda")
    try:
        strided_fill[(n // 1024,)](out, n, BLOCK=1024)
        torch.cuda.synchronize()
    except RuntimeError as e:
        print("CHILD %s: RuntimeError: %s" % (which, str(e).replace("\n", " ")))
        return 0
    ok = torch.equal(out, torch.arange(n, device="cuda", dtype=torch.float32))
    print("CHILD %s: ran, result %s" % (which, "correct" if ok else "WRONG"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
