#!/usr/bin/env python3
"""Check (and roughly time) examples/flash_attention_fwd_sm90.mlir on the GPU against torch.

    python3 bench/attention_check.py --kernels DIR

The kernel: non-causal, head dim 128, bf16, N a multiple of 128, O and the base-2 log-sum-exp M.
Each shape is checked against a float32 reference on fresh random inputs (relative error of O < 1e-2,
|M - ref| < 1e-2, no NaN); a wrong kernel prints FAIL and is not timed. Timings are medians of CUDA
events, next to torch SDPA's cuDNN and flash backends measured in the same process.
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

from txl.runtime.launcher import load_kernel  # noqa: E402

D = 128


def launch(kernel, q, k, v, o, m, scale):
    B, H, N, _ = q.shape
    flat = lambda t: t.reshape(B * H * N, D)  # noqa: E731
    kernel[(N // 128, B * H, 1)](flat(q), flat(k), flat(v), flat(o), m, scale, N)


def check(kernel, B, H, N):
    torch.manual_seed(B * 100 + H * 10 + N)
    q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    o = torch.full_like(q, float("nan"))
    m = torch.full((B * H * N,), float("nan"), device="cuda", dtype=torch.float32)
    scale = 1.0 / math.sqrt(D)
    launch(kernel, q, k, v, o, m, scale)
    torch.cuda.synchronize()
    s = (q.float() @ k.float().transpose(-1, -2)) * scale
    ref = torch.softmax(s, dim=-1) @ v.float()
    lse2 = torch.logsumexp(s, dim=-1).reshape(-1) / math.log(2.0)
    if torch.isnan(o).any() or torch.isnan(m).any():
        return False, float("nan"), float("nan")
    rel = ((o.float() - ref).norm() / ref.norm()).item()
    merr = (m - lse2).abs().max().item()
    return rel < 1e-2 and merr < 1e-2, rel, merr


def time_ms(fn, iters=20):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(iters):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    return sorted(ts)[len(ts) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", required=True)
    ap.add_argument("--check-only", action="store_true", help="no timing (e.g. under compute-sanitizer)")
    ap.add_argument("--small", action="store_true", help="only the small shapes")
    args = ap.parse_args()
    kernel = load_kernel(os.path.join(args.kernels, "flash_attention_fwd_sm90.json"))
    ok_all = True
    shapes = [(1, 1, 128), (1, 2, 256), (2, 4, 1024), (1, 2, 4096)]
    for B, H, N in shapes[:2] if args.small else shapes:
        try:
            ok, rel, merr = check(kernel, B, H, N)
        except Exception as ex:
            ok, rel, merr = False, float("nan"), float("nan")
            print(f"  ERROR {type(ex).__name__}: {ex}")
        ok_all &= ok
        print(f"check B={B} H={H} N={N:5d} D={D}: {'PASS' if ok else 'FAIL'} (O rel err {rel:.2e}, M max err {merr:.2e})")
    if not ok_all:
        print("FAIL")
        return 1
    if args.check_only:
        print("ALL PASS")
        return 0
    print(f"{'B,H,N,D':>18} {'txl':>8} {'cuDNN':>8} {'flash':>8}  TFLOP/s   ratio to cuDNN")
    for B, H, N in [(16, 32, 4096), (1, 32, 16384)]:
        q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        o = torch.empty_like(q)
        m = torch.empty(B * H * N, device="cuda", dtype=torch.float32)
        flops = 4 * B * H * N * N * D
        ours = time_ms(lambda: launch(kernel, q, k, v, o, m, 1.0 / math.sqrt(D)))
        peers = []
        for be in (SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION):
            with sdpa_kernel(be):
                peers.append(time_ms(lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v)))
        t = [flops / x / 1e9 for x in (ours, *peers)]
        print(f"{f'{B},{H},{N},{D}':>18} {t[0]:8.1f} {t[1]:8.1f} {t[2]:8.1f}   {t[0] / t[1]:.2f}")
    print("ALL PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
