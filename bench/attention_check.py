#!/usr/bin/env python3
"""Check (and roughly time) the flash-attention examples on the GPU against torch.

    python3 bench/attention_check.py --kernels DIR [--check-only] [--small] [--only NAME]

Kernels (txlc output in DIR, NAME.json + NAME.ptx/cubin): examples/flash_attention_fwd_sm90.mlir (head dim 128),
flash_attention_fwd_hd64_sm90.mlir (head dim 64), flash_attention_fwd_causal_sm90.mlir (head dim 128, causal);
bf16, N a multiple of 128, O and the base-2 log-sum-exp M. Each shape is checked against a float32 reference on
fresh random inputs (relative error of O < 1e-2, relative error of M < 1e-2, no NaN), one of them with
large-magnitude inputs (q, k scaled by 8: logits with a standard deviation near 64, where exp without the running
max overflows) and N = 640, not a power of two; a wrong kernel prints FAIL and is not timed. Timings are medians of CUDA events, next to torch SDPA's cuDNN and flash backends measured in the same
process.
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

from _common import median_ms  # noqa: E402 (bench/_common.py: this script's folder is on sys.path)
from txl.runtime.launcher import load_kernel  # noqa: E402

# name -> (head dim, causal)
KERNELS = {
    "flash_attention_fwd_sm90": (128, False),
    "flash_attention_fwd_hd64_sm90": (64, False),
    "flash_attention_fwd_causal_sm90": (128, True),
}


def launch(kernel, D, q, k, v, o, m, scale):
    B, H, N, _ = q.shape
    flat = lambda t: t.reshape(B * H * N, D)  # noqa: E731
    kernel[(N // 128, B * H, 1)](flat(q), flat(k), flat(v), flat(o), m, scale, N)


def reference(q, k, v, scale, causal):
    s = (q.float() @ k.float().transpose(-1, -2)) * scale
    if causal:
        n = s.shape[-1]
        s = s.masked_fill(torch.ones(n, n, device=s.device, dtype=torch.bool).triu(1), float("-inf"))
    return torch.softmax(s, dim=-1) @ v.float(), torch.logsumexp(s, dim=-1).reshape(-1) / math.log(2.0)


def check(kernel, D, causal, B, H, N, magnitude=1.0):
    torch.manual_seed(B * 100 + H * 10 + N + D)
    q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    if magnitude != 1.0:
        q, k = (q.float() * magnitude).to(torch.bfloat16), (k.float() * magnitude).to(torch.bfloat16)
    o = torch.full_like(q, float("nan"))
    m = torch.full((B * H * N,), float("nan"), device="cuda", dtype=torch.float32)
    scale = 1.0 / math.sqrt(D)
    launch(kernel, D, q, k, v, o, m, scale)
    torch.cuda.synchronize()
    ref, lse2 = reference(q, k, v, scale, causal)
    if torch.isnan(o).any() or torch.isnan(m).any():
        return False, float("nan"), float("nan")
    rel = ((o.float() - ref).norm() / ref.norm()).item()
    merr = ((m - lse2).abs() / lse2.abs().clamp(min=1.0)).max().item()
    return rel < 1e-2 and merr < 1e-2, rel, merr


def time_ms(fn, iters=20):
    """Median GPU time of one call (_common.median_ms: calls queued back to back), after 3 warm-up calls."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    return median_ms(torch, fn, iters)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", required=True)
    ap.add_argument("--check-only", action="store_true", help="no timing (e.g. under compute-sanitizer)")
    ap.add_argument("--small", action="store_true", help="only the small shapes")
    ap.add_argument("--only", action="append", help="only this kernel (repeatable)")
    args = ap.parse_args()
    ok_all = True
    loaded = {}
    for name, (D, causal) in KERNELS.items():
        if args.only and name not in args.only:
            continue
        path = os.path.join(args.kernels, name + ".json")
        if not os.path.exists(path):
            print(f"{name}: SKIP (no {path})")
            continue
        kernel = loaded[name] = load_kernel(path)
        shapes = [(1, 1, 128, 1.0), (1, 2, 256, 1.0), (2, 4, 1024, 1.0), (1, 2, 4096, 1.0), (1, 2, 640, 8.0)]
        for B, H, N, mag in shapes[:2] if args.small else shapes:
            try:
                ok, rel, merr = check(kernel, D, causal, B, H, N, mag)
            except Exception as ex:
                ok, rel, merr = False, float("nan"), float("nan")
                print(f"  ERROR {type(ex).__name__}: {ex}")
            ok_all &= ok
            print(f"{name} B={B} H={H} N={N:5d} |x|~{mag:g}: {'PASS' if ok else 'FAIL'} "
                  f"(O rel err {rel:.2e}, M rel err {merr:.2e})")
    if not ok_all:
        print("FAIL")
        return 1
    if args.check_only:
        print("ALL PASS")
        return 0
    print(f"{'kernel':>34} {'B,H,N,D':>14} {'txl':>8} {'cuDNN':>8} {'flash':>8}  TFLOP/s   ratio to cuDNN")
    for name, kernel in loaded.items():
        D, causal = KERNELS[name]
        for B, H, N in [(16, 32, 4096), (1, 32, 16384)] if D == 128 else [(4, 32, 8192)]:
            q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
            o = torch.empty_like(q)
            m = torch.empty(B * H * N, device="cuda", dtype=torch.float32)
            flops = 4 * B * H * N * N * D / (2 if causal else 1)
            ours = time_ms(lambda: launch(kernel, D, q, k, v, o, m, 1.0 / math.sqrt(D)))
            peers = []
            for be in (SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION):
                with sdpa_kernel(be):
                    peers.append(time_ms(lambda: torch.nn.functional.scaled_dot_product_attention(
                        q, k, v, is_causal=causal)))
            t = [flops / x / 1e9 for x in (ours, *peers)]
            print(f"{name:>34} {f'{B},{H},{N},{D}':>14} {t[0]:8.1f} {t[1]:8.1f} {t[2]:8.1f}   {t[0] / t[1]:.2f}")
    print("ALL PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
