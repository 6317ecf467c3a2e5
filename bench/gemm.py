#!/usr/bin/env python3
"""Check and time txl's GEMM kernels on the GPU against torch (cuBLAS), in one run.

    python3 bench/gemm.py --kernels DIR

DIR holds what txlc wrote for each kernel (``<name>.ptx``/``.cubin`` + ``<name>.json``):
gemm_sm90 (one warpgroup, grid = output tiles) and gemm_ws_persistent_sm90 (3 warpgroups,
persistent grid). Both compute C[M, N] = A[M, K] @ B[N, K]^T in bf16 with f32 accumulation and take
(desc_a, desc_b, desc_c, M, N, K).

Every size is first checked against a float32 torch reference on fresh random inputs (relative
error < 1e-2, no NaN); a wrong kernel prints FAIL and is not timed. Timings are medians of CUDA-event
measurements in the same process as torch.matmul's (a benchmark, not a test).
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402

from txl.runtime.launcher import load_kernel  # noqa: E402


def grid_for(name, M, N, sms):
    if name == "gemm_sm90":
        return (math.ceil(M / 128), math.ceil(N / 128), 1)
    if name == "gemm_ws_persistent_sm90":
        return (min(sms, math.ceil(M / 128) * math.ceil(N / 256)), 1, 1)
    raise ValueError(f"no grid rule for kernel {name}")


def run(kernel, name, a, b, c, sms):
    M, K = a.shape
    N = b.shape[0]
    kernel[grid_for(name, M, N, sms)](a, b, c, M, N, K)


def check(kernel, name, M, N, K, sms, scale=1.0):
    torch.manual_seed(M * 7 + N * 3 + K)
    a = (torch.randn(M, K, device="cuda") * scale).to(torch.bfloat16)
    b = (torch.randn(N, K, device="cuda") * scale).to(torch.bfloat16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
    run(kernel, name, a, b, c, sms)
    torch.cuda.synchronize()
    ref = a.float() @ b.float().T
    out = c.float()
    if torch.isnan(out).any():
        return False, float("nan")
    rel = ((out - ref).norm() / ref.norm()).item()
    return rel < 1e-2, rel


def time_ms(fn, iters=50):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    times.sort()
    return times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", required=True)
    ap.add_argument("--names", default="gemm_sm90,gemm_ws_persistent_sm90")
    ap.add_argument("--check-only", action="store_true", help="no timing (e.g. under compute-sanitizer)")
    args = ap.parse_args()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print(f"device: {torch.cuda.get_device_name(0)} ({sms} SMs), torch {torch.__version__}")
    # (M, N, K, input scale): tile multiples and not, and one large-magnitude row (|a|, |b| ~ 100).
    check_sizes = [(128, 128, 64, 1.0), (128, 256, 256, 1.0), (256, 512, 192, 1.0), (1000, 1000, 1000, 1.0),
                   (257, 264, 72, 1.0), (1024, 768, 4096, 1.0), (333, 520, 1000, 100.0)]
    bench_sizes = [(4096, 4096, 4096), (8192, 8192, 1024), (8192, 8192, 8192)]
    failures = 0
    for name in args.names.split(","):
        path = os.path.join(args.kernels, name + ".json")
        if not os.path.exists(path):
            print(f"{name}: not compiled ({path} missing)")
            failures += 1
            continue
        kernel = load_kernel(path)
        print(f"\n== {name}")
        ok_all = True
        for M, N, K, scale in check_sizes:
            try:
                ok, rel = check(kernel, name, M, N, K, sms, scale)
            except Exception as ex:  # a launch error is a failure of this row, not of the run
                ok, rel = False, float("nan")
                print(f"  {M}x{N}x{K}: ERROR {type(ex).__name__}: {ex}")
            ok_all &= ok
            print(f"  check {M:5d}x{N:5d}x{K:5d}{'' if scale == 1 else f' |x|~{scale:g}'}: "
                  f"{'PASS' if ok else 'FAIL'} (rel err {rel:.2e})")
        if not ok_all:
            failures += 1
            continue
        if args.check_only:
            continue
        print(f"  {'M x N x K':>20} {'txl TFLOP/s':>12} {'cuBLAS':>10} {'ratio':>7}")
        for M, N, K in bench_sizes:
            a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
            b = torch.randn(N, K, device="cuda", dtype=torch.bfloat16)
            c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
            ours = time_ms(lambda: run(kernel, name, a, b, c, sms))
            ref = time_ms(lambda: torch.matmul(a, b.T))
            flops = 2 * M * N * K
            t1, t2 = flops / ours / 1e9, flops / ref / 1e9
            print(f"  {f'{M}x{N}x{K}':>20} {t1:12.1f} {t2:10.1f} {t1 / t2:7.2f}")
    print(f"\n{'ALL PASS' if failures == 0 else f'{failures} kernel(s) FAILED'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
