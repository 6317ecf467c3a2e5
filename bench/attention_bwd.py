"""Attention backward on the GPU: txl.ops.flash_attention's backward next to torch SDPA's cuDNN and flash backends,
measured in the same run on the same inputs, plus a whole training step (forward + backward).

    python3 bench/attention_bwd.py [--quick | --small] [--check] [--no-split] [--profile]

Backward TFLOP/s count 2.5x the forward's 4 * B * H * N^2 * D (half for causal), as FlashAttention-3 reports them.
Each timing is the median of triton.testing.do_bench (L2 flushed between runs). --check compares every txl gradient
with the cuDNN one first (relative Frobenius error, printed). The small MQA/GQA rows (SMALL) end every run; "split" is
how many CTAs share a kv head's query heads in txl's dK/dV kernel (--no-split: 1, the kernel before the split).
Small rows run for tens of microseconds, so host time (the launches from Python) is part of what is measured, for
both sides."""

import argparse
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import txl

try:
    from triton.testing import do_bench
except ImportError:  # pragma: no cover - the GPU host has triton
    do_bench = None

BF16, FP16 = torch.bfloat16, torch.float16
SHAPES = [  # B, H, H_KV, N, D, dtype
    (2, 32, 32, 16384, 128, BF16),
    (16, 32, 32, 4096, 128, BF16),
    (4, 32, 32, 8192, 64, BF16),
    (4, 16, 16, 8192, 256, BF16),
    (16, 32, 8, 4096, 128, BF16),  # GQA 4:1
]
QUICK = [(16, 32, 32, 4096, 128, BF16), (4, 32, 32, 8192, 64, BF16), (4, 16, 16, 8192, 256, BF16),
         (16, 32, 8, 4096, 128, BF16)]
# Small rows, MQA/GQA and one MHA (issue 34: (2, 8, 1000, 64) fp16 MQA ran 0.16x cuDNN when one CTA per key block
# walked all 8 query heads): the dK/dV kernel splits each key block's walk over CTAs here (the split column).
SMALL = [(2, 8, 1, 1000, 64, FP16), (2, 8, 1, 1000, 64, BF16), (2, 8, 2, 1000, 128, BF16), (1, 8, 1, 777, 128, FP16),
         (4, 16, 2, 1000, 64, BF16), (2, 16, 1, 128, 64, FP16), (2, 8, 2, 1000, 256, BF16), (2, 8, 8, 1000, 128, BF16)]


def _sdpa(backend, q, k, v, causal):
    group = q.shape[1] // k.shape[1]
    if group > 1:
        k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
    with sdpa_kernel([backend]):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


def _runner(name, q, k, v, causal):
    if name == "txl":
        return lambda q, k, v: txl.ops.flash_attention(q, k, v, causal=causal)
    backend = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}[name]
    return lambda q, k, v: _sdpa(backend, q, k, v, causal)


def _time_bwd(fwd, q, k, v, do):
    qs, ks, vs = (t.detach().clone().requires_grad_() for t in (q, k, v))
    out = fwd(qs, ks, vs)
    bwd = lambda: torch.autograd.grad(out, (qs, ks, vs), do, retain_graph=True)  # noqa: E731
    bwd()
    ms_bwd = do_bench(bwd, warmup=10, rep=60, return_mode="median")

    def step():
        o = fwd(qs, ks, vs)
        torch.autograd.grad(o, (qs, ks, vs), do)

    ms_step = do_bench(step, warmup=5, rep=60, return_mode="median")
    return ms_bwd, ms_step


def _profile(fwd, q, k, v, do, calls=20):
    """(GPU microseconds per backward call by kernel name, wall microseconds per call) over ``calls`` back-to-back
    backward calls under torch.profiler: where a small row's time goes (kernels vs launching them)."""
    import time

    from torch.profiler import ProfilerActivity, profile

    qs, ks, vs = (t.detach().clone().requires_grad_() for t in (q, k, v))
    out = fwd(qs, ks, vs)
    for _ in range(3):
        torch.autograd.grad(out, (qs, ks, vs), do, retain_graph=True)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        torch.autograd.grad(out, (qs, ks, vs), do, retain_graph=True)
    torch.cuda.synchronize()
    wall = (time.perf_counter() - t0) / calls * 1e6
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            torch.autograd.grad(out, (qs, ks, vs), do, retain_graph=True)
        torch.cuda.synchronize()
    per = {}
    for e in prof.key_averages():
        us = getattr(e, "device_time_total", None) or getattr(e, "cuda_time_total", 0)
        if us and e.count:
            per[e.key] = us / calls
    return per, wall


def _grads(fwd, q, k, v, do):
    qs, ks, vs = (t.detach().clone().requires_grad_() for t in (q, k, v))
    return torch.autograd.grad(fwd(qs, ks, vs), (qs, ks, vs), do)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--stages", type=int, help="Q/dO ring depth of the txl backward (default: its table)")
    ap.add_argument("--small", action="store_true", help="only the small MQA/GQA rows (the quick and full runs "
                    "include them)")
    ap.add_argument("--no-split", action="store_true", help="txl without the split of the dK/dV walk (split_walk = 1)")
    ap.add_argument("--profile", action="store_true", help="also print each row's GPU time per kernel (torch "
                    "profiler) and wall time per backward call, txl and cuDNN")
    args = ap.parse_args()
    from txl.ops import _attention_bwd

    if args.no_split:
        _attention_bwd.split_walk = lambda *a: 1
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    if args.stages:
        _attention_bwd.NUM_STAGES.update({d: args.stages for d in _attention_bwd.NUM_STAGES})
    torch.manual_seed(0)
    print("%-26s %-6s %5s %9s %9s %9s %8s %8s | %9s %9s %9s" % (
        "B,H,Hkv,N,D dtype", "causal", "split", "txl TF/s", "cudnn", "flash", "txl/cud", "txl/fla", "step txl",
        "cudnn", "flash"))
    ratios = []
    shapes = SMALL if args.small else (QUICK if args.quick else SHAPES) + SMALL
    for (B, H, HK, N, D, dtype) in shapes:
        n_pad = -(-N // 128) * 128
        split = _attention_bwd.split_walk(n_pad // (64 if D == 256 else 128), B * HK, H // HK, n_pad // 64, sms)
        for causal in (False, True):
            q = torch.randn(B, H, N, D, device="cuda", dtype=dtype)
            k, v = (torch.randn(B, HK, N, D, device="cuda", dtype=dtype) for _ in range(2))
            do = torch.randn_like(q)
            flops = 2.5 * 4 * B * H * N * N * D * (0.5 if causal else 1.0)
            res = {}
            for name in ("txl", "cudnn", "flash"):
                try:
                    fwd = _runner(name, q, k, v, causal)
                    res[name] = _time_bwd(fwd, q, k, v, do)
                except Exception as e:  # a backend without this shape (flash has no GQA here, txl no D=256)
                    res[name] = None
                    print("  %s: %s: %s" % (name, type(e).__name__, str(e).splitlines()[0][:120]), file=sys.stderr)
            if args.check and res.get("txl") and res.get("cudnn"):
                g1 = _grads(_runner("txl", q, k, v, causal), q, k, v, do)
                g2 = _grads(_runner("cudnn", q, k, v, causal), q, k, v, do)
                errs = [((a.float() - b.float()).norm() / b.float().norm()).item() for a, b in zip(g1, g2)]
                print("  check vs cudnn: dq %.2e dk %.2e dv %.2e" % tuple(errs))
            tf = {n: (flops / (r[0] * 1e-3) / 1e12 if r else float("nan")) for n, r in res.items()}
            st = {n: (r[1] if r else float("nan")) for n, r in res.items()}
            r_c = tf["txl"] / tf["cudnn"] if res["txl"] and res["cudnn"] else float("nan")
            r_f = tf["txl"] / tf["flash"] if res["txl"] and res["flash"] else float("nan")
            if r_c == r_c:
                ratios.append(r_c)
            print("%-26s %-6s %5d %9.1f %9.1f %9.1f %8.2f %8.2f | %7.3fms %7.3fms %7.3fms" % (
                "%d,%d,%d,%d,%d %s" % (B, H, HK, N, D, "fp16" if dtype == FP16 else "bf16"), causal, split,
                tf["txl"], tf["cudnn"], tf["flash"], r_c, r_f, st["txl"], st["cudnn"], st["flash"]), flush=True)
            if args.profile:  # under the row it explains
                gpu = {}
                for name in ("txl", "cudnn"):
                    if res.get(name):
                        per, wall = _profile(_runner(name, q, k, v, causal), q, k, v, do)
                        gpu[name] = sum(per.values())
                        top = sorted(per.items(), key=lambda kv: -kv[1])[:6]
                        print("  %s: wall %.1f us/call, GPU %.1f us: %s" % (
                            name, wall, gpu[name], "; ".join("%s %.1f" % (n[:48], us) for n, us in top)))
                if len(gpu) == 2:
                    print("  GPU time txl/cudnn speed: %.2fx" % (gpu["cudnn"] / gpu["txl"]))
            del q, k, v, do
            torch.cuda.empty_cache()
    if ratios:
        g = 1.0
        for r in ratios:
            g *= r
        print("geomean txl/cudnn backward: %.2fx over %d rows" % (g ** (1.0 / len(ratios)), len(ratios)))


if __name__ == "__main__":
    main()
