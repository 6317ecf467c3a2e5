"""Child process of test_spin_lock_gpu.py: every program adds its partial sum to one total under a spin lock taken
with tl.atomic_cas (the pattern of Triton's tutorial 05, layer-norm backward), with num_warps 4 and 8. A scalar
atomic must run once per copy of the body: with num_warps=8 the two warpgroups are one copy, and an atomic per
warpgroup takes the lock twice and hangs, so this runs in a child process the test can time out.

    python3 -m txl.tests.gpu.spin_lock_child     # prints "CHILD num_warps=N: total correct" per N
"""

import txl
import txl.language as tl


@txl.jit
def locked_sum(x_ptr, lock_ptr, total_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    part = tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), 0)
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    tl.store(total_ptr, tl.load(total_ptr) + part)  # a plain read-modify-write: only the lock makes it exact
    tl.debug_barrier()
    tl.atomic_xchg(lock_ptr, 0)


def main():
    import torch  # here: the CPU test test_num_warps.py compiles locked_sum without torch

    torch.manual_seed(0)
    n, block = 300_000, 1024
    x = torch.randint(-8, 9, (n,), device="cuda").float()  # small integers: every order of the sums is exact
    for warps in (4, 8):
        lock = torch.zeros(1, dtype=torch.int32, device="cuda")
        total = torch.zeros(1, device="cuda")
        locked_sum[((n + block - 1) // block,)](x, lock, total, n, BLOCK=block, num_warps=warps)
        torch.cuda.synchronize()
        want = x.double().sum().item()
        ok = total.item() == want and lock.item() == 0
        print("CHILD num_warps=%d: total %s (want %s)" % (warps, "correct" if ok else total.item(), want), flush=True)


if __name__ == "__main__":
    main()
