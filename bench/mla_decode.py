#!/usr/bin/env python3
"""MLA decoding on the GPU: txl.ops.mla_decode over a paged latent cache next to, in the same run: the HBM bandwidth
of a device-to-device copy (torch, 1 GiB), the same kernel source compiled by Triton 3.6 (txl/kernels/mla_decode.py
with its imports swapped). (SDPA is no peer here: at head dim 576 it takes the math path, which materialises the
GQA-expanded keys: 37 GiB at (64, 16, 4096).)

    python3 bench/mla_decode.py

Rows: (B, H, cache length, page size); bf16. Each output is checked against the float32 reference on the first two
sequences before timing. GB/s counts the bytes the kernel must read (the cached rows of every sequence, q) and
write (o): "%copy" is that over the copy's bandwidth, the issue's measure for the memory-bound shapes (H <= 32);
TFLOP/s counts 2 * H * len * (576 + 512) per sequence. Timings: median of triton.testing.do_bench.
"""

import importlib
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402
from same_source import load_with_triton  # noqa: E402
from triton.testing import do_bench  # noqa: E402

import txl.ops  # noqa: E402
from txl.kernels import mla_decode as km  # noqa: E402
mop = importlib.import_module("txl.ops.mla_decode")  # the module (txl.ops.mla_decode is also the function)

SHAPES = [  # B, H, lengths (one value: all equal), page
    (64, 16, 4096, 64), (132, 16, 8192, 64), (64, 32, 8192, 64), (32, 16, "mixed", 64), (132, 128, 4096, 64),
    (32, 128, 8192, 64),
]


def triton_kernels():
    """txl/kernels/mla_decode.py compiled by Triton 3.6: the same source (bench/same_source.py)."""
    return load_with_triton(km.__file__, "mla_triton")


def copy_bandwidth():
    src = torch.empty(1 << 29, dtype=torch.bfloat16, device="cuda")
    dst = torch.empty_like(src)
    t = do_bench(lambda: dst.copy_(src), return_mode="median")
    return 2 * src.numel() * 2 / (t * 1e-3) / 1e9


def make(B, H, lens, page):
    if lens == "mixed":
        lens = torch.randint(1, 16384, (B,)).tolist()
    else:
        lens = [lens] * B
    per = -(-max(lens) // page)
    kv = torch.randn(B * per + 1, page, 576, device="cuda", dtype=torch.bfloat16)
    bt = torch.randperm(B * per, device="cuda").view(B, per).to(torch.int32)
    seqlens = torch.tensor(lens, device="cuda", dtype=torch.int32)
    q = torch.randn(B, H, 576, device="cuda", dtype=torch.bfloat16)
    return q, kv, bt, seqlens, lens


def triton_launch(tk, q, kv, bt, seqlens, splits, part_o, part_lse, o, lse):
    B, H, _ = q.shape
    cx = km.split_constexprs(kv.shape[1], splits)
    tk.mla_decode_split[(B, -(-H // 16), splits)](q, kv, bt, seqlens, part_o, part_lse, 576 ** -0.5, H, bt.stride(0),
                                                 **cx, num_warps=4)
    tk.mla_decode_combine[(B, H)](part_o, part_lse, o, lse, H, D_V=512, NUM_SPLITS=splits,
                                  SPLITS_P=km.next_power_of_2(splits), num_warps=4)


def main():
    torch.manual_seed(0)
    bw = copy_bandwidth()
    print("device-to-device copy: %.0f GB/s" % bw)
    try:
        tk = triton_kernels()
    except Exception as e:  # noqa: BLE001 - a peer failing is a note, not the end of the run
        tk = None
        print("triton: %s" % str(e).splitlines()[0][:200])
    print("%-28s %6s %9s %8s %7s %8s %10s %9s" % ("shape (B,H,len,page)", "splits", "txl ms", "GB/s", "%copy",
                                                "TFLOP/s", "triton ms", "x triton"))
    for B, H, lens, page in SHAPES:
        q, kv, bt, seqlens, ls = make(B, H, lens, page)
        splits = mop.default_splits(B, H, bt.shape[1] * page, q.device)
        o = txl.ops.mla_decode(q, kv, bt, seqlens)
        ro, _ = mop.mla_reference(q[:2], kv, bt[:2], seqlens[:2])
        err = ((o[:2].float() - ro).norm() / ro.norm()).item()
        t = do_bench(lambda: txl.ops.mla_decode(q, kv, bt, seqlens), return_mode="median")
        total = sum(ls)
        nbytes = total * 576 * 2 + q.numel() * 2 + B * H * 512 * 2
        flops = 2.0 * H * total * (576 + 512)
        tt = "-"
        if tk is not None:
            part_o = torch.empty(B, H, splits, 512, device="cuda")
            part_lse = torch.empty(B, H, splits, device="cuda")
            ot = torch.empty(B, H, 512, device="cuda", dtype=torch.bfloat16)
            lt = torch.empty(B, H, device="cuda")
            try:
                triton_launch(tk, q, kv, bt, seqlens, splits, part_o, part_lse, ot, lt)
                terr = ((ot[:2].float() - ro).norm() / ro.norm()).item()
                tt = "%.3f%s" % (do_bench(lambda: triton_launch(tk, q, kv, bt, seqlens, splits, part_o, part_lse,
                                                                ot, lt), return_mode="median"),
                                 "" if terr < 1e-2 else "!")
            except Exception as e:  # noqa: BLE001
                tt = "fail"
                print("triton %s: %s" % ((B, H, lens, page), str(e).splitlines()[0][:160]))
        x = "-" if tt in ("-", "fail") else "%.2f" % (float(tt.rstrip("!")) / t)
        print("%-28s %6d %9.3f %8.0f %6.0f%% %8.1f %10s %9s%s" % (
            str((B, H, lens, page)), splits, t, nbytes / (t * 1e-3) / 1e9, 100 * nbytes / (t * 1e-3) / 1e9 / bw,
            flops / (t * 1e-3) / 1e12, tt, x, "" if err < 1e-2 else "  ERR %.2e" % err))


if __name__ == "__main__":
    main()
