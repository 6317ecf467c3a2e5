#!/usr/bin/env python3
"""RoPE on the GPU: txl.ops.rope.apply_rope (q and k in one launch) in GB/s next to its memory-bound peer, a torch
``x.clone()`` of the same bytes (one tensor as large as q and k together: the same reads and writes).

    python3 bench/rope.py                         # (4, 32, 8192, 128) bf16 q and k
    python3 bench/rope.py --shape 4,32,8,8192,128 --dtype fp16

Bytes counted: q and k read and written, plus the cos/sin rows read (once). Each time is the median of
txl.autotune.do_bench (CUDA events, L2 flushed between runs). Rows: both pairings (neox: x[i], x[i + ROT/2]; gptj:
x[2i], x[2i+1]) with float32 and with 16-bit cos/sin tables, the backward's inverse rotation, and a rotary dim of
half the head dim. Every variant is checked against the float32 reference before it is timed.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402

from txl.autotune import do_bench  # noqa: E402
from txl.ops import rope as R  # noqa: E402


def tables(n, half, dtype):
    inv = 1.0 / 10000.0 ** (torch.arange(0, half, device="cuda", dtype=torch.float32) / half)
    theta = torch.arange(n, device="cuda", dtype=torch.float32)[:, None] * inv[None, :]
    return theta.cos().to(dtype), theta.sin().to(dtype)


def check(q, k, cos, sin, interleaved):
    # On the first rows of every head (the reference in float32 on the whole tensors would need 4x their memory).
    qs, ks = q[:, :, :256], k[:, :, :256]
    oq, ok = R.apply_rope(qs, ks, cos, sin, interleaved=interleaved)
    rq, rk = R.rope_reference(qs, ks, cos, sin, interleaved)
    err = max((oq.float() - rq).abs().max().item(), (ok.float() - rk).abs().max().item())
    if err > 0.05:
        raise SystemExit("apply_rope differs from the reference by %g (interleaved=%s, cos %s)"
                         % (err, interleaved, cos.dtype))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shape", default="4,32,32,8192,128", help="B,H,H_KV,N,D (default 4,32,32,8192,128)")
    p.add_argument("--dtype", default="bf16", choices=["bf16", "fp16"])
    args = p.parse_args()
    B, H, HK, N, D = (int(x) for x in args.shape.split(","))
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    torch.manual_seed(0)
    q = torch.randn(B, H, N, D, device="cuda", dtype=dtype)
    k = torch.randn(B, HK, N, D, device="cuda", dtype=dtype)
    qk_bytes = (q.numel() + k.numel()) * q.element_size()
    peer = torch.empty(q.numel() + k.numel(), device="cuda", dtype=dtype)
    ms = do_bench(lambda: peer.clone())
    print("%s q %s, k %s; %.1f MB of q+k (read and written)" % (torch.cuda.get_device_name(), tuple(q.shape),
                                                              tuple(k.shape), qk_bytes / 1e6))
    print("%-42s %9s %9s %8s" % ("", "ms", "GB/s", "vs copy"))
    copy_gbs = 2 * qk_bytes / ms / 1e6
    print("%-42s %9.3f %9.0f %7.0f%%" % ("torch clone of the same bytes", ms, copy_gbs, 100.0))
    for interleaved in (False, True):
        for cos_dtype in (torch.float32, dtype):
            for rot, conj in ((D, False), (D, True), (D // 2, False)):
                if (conj or rot != D) and cos_dtype != torch.float32:
                    continue
                cos, sin = tables(N, rot // 2, cos_dtype)
                check(q, k, cos, sin, interleaved)
                fn = lambda: R._forward(q, k, cos, sin, interleaved, conj, None, None)  # noqa: E731
                ms = do_bench(fn)
                nbytes = 2 * qk_bytes + 2 * cos.numel() * cos.element_size()
                gbs = nbytes / ms / 1e6
                name = "%s, cos %s%s%s" % ("gptj" if interleaved else "neox", str(cos_dtype).replace("torch.", ""),
                                           ", backward" if conj else "", ", rot %d" % rot if rot != D else "")
                print("%-42s %9.3f %9.0f %7.0f%%" % (name, ms, gbs, 100.0 * gbs / copy_gbs))


if __name__ == "__main__":
    main()
