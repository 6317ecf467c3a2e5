"""Child process of test_device_assert_gpu.py: a failed device assertion stops the kernel and leaves the CUDA
context unusable, so each scenario runs in its own process. ``python -m txl.tests.gpu.device_assert_child
pass|fail|off``."""

import sys

import txl
import txl.language as tl


@txl.jit(debug=True)
def checked_copy(x_ptr, y_ptr, n, limit, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.device_assert(x < limit, "x below the limit", mask=mask)
    assert x >= 0, "x is non-negative"
    tl.store(y_ptr + offs, x + 1, mask=mask)


@txl.jit
def unchecked_copy(x_ptr, y_ptr, n, limit, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.device_assert(x < limit, "x below the limit", mask=mask)  # no debug: compiled out, as in Triton
    tl.store(y_ptr + offs, x + 1, mask=mask)


def main(mode):
    import torch

    n = 1000
    x = torch.randint(0, 100, (n,), device="cuda", dtype=torch.int32)
    y = torch.zeros_like(x)
    if mode in ("fail", "off"):
        x[777] = 500  # one element of one program breaks the assertion
    kernel = unchecked_copy if mode == "off" else checked_copy
    kernel[(triton_cdiv(n, 256),)](x, y, n, 200, BLOCK=256)
    torch.cuda.synchronize()
    print("CHILD %s: finished, y %s" % (mode, "correct" if torch.equal(y, x + 1) else "WRONG"), flush=True)


def triton_cdiv(a, b):
    return (a + b - 1) // b


if __name__ == "__main__":
    main(sys.argv[1])
