#!/usr/bin/env python3
"""MLA decoding on the GPU: txl.ops.mla_decode over a paged latent cache next to, in the same run: the HBM bandwidth
of a device-to-device copy (torch, 1 GiB); the mma.sync kernel (txl/kernels/mla_decode.py, the op's kernel for
16 query rows or fewer, launched directly with its old split rule) on every row, so the other rows show the wgmma
kernel (the seesaw schedule, txl/kernels/mla_decode_seesaw.py) against the kernel it replaces there; the mma.sync source
compiled by Triton 3.6 (its imports swapped). (SDPA is no peer here: at head dim 576 it takes the math path, which
materialises the GQA-expanded keys: 37 GiB at (64, 16, 4096).)

    python3 bench/mla_decode.py              # every row
    python3 bench/mla_decode.py --compute    # the compute-bound rows (64+ query rows per sequence) only
    python3 bench/mla_decode.py --compute --fa3      # also the wgmma kernel's other schedule (FA3's overlap)
    python3 bench/mla_decode.py --fp8        # also an "fp8" row under each: the same cache in e4m3 + per-tensor scale

On the rows with 16 query rows or fewer per sequence (where the op runs the mma.sync kernel) the "wgmma pad"
columns time the wgmma kernel too, its 64-row tile padded (mla_decode.WGMMA_ROWS lowered to 1 for that call),
with its share of the copy bandwidth: the measurement for moving the op's threshold. The wgmma rows run the default
schedule (mla_decode.SCHEDULE = "seesaw"); with --fa3 their last columns are the other schedule's time and TFLOP/s
(mla_decode.SCHEDULE = "fa3", txl/kernels/mla_decode_wgmma.py).

Rows: (B, H, S_Q, cache length, page size); bf16, not causal. "kernel" says which kernel the op ran. Each output is
checked against the float32 reference on the first two sequences before timing (ERR after the row otherwise;
"!" after a peer's time). GB/s counts the bytes the kernel must read (the cached rows of every sequence, q) and
write (o): "%copy" is that over the copy's bandwidth, the issue's measure for the memory-bound shapes (H <= 32);
TFLOP/s counts 2 * S_Q * H * len * (576 + 512) per sequence (the issue's target: >= 550 at 128 heads).
Timings: median of triton.testing.do_bench.

--fp8: under each row, the op on the same cache quantized to float8_e4m3fn with a per-tensor scale (amax / 448,
kv_scale=), which runs txl/kernels/mla_decode_fp8.py on every shape; checked against the float32 reference of the
dequantized cache; its GB/s counts the e4m3 bytes (1 per cache element), "x bf16" is the bf16 op's time over its.
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
from txl.ops.attention import fast_launch  # noqa: E402
mop = importlib.import_module("txl.ops.mla_decode")  # the module (txl.ops.mla_decode is also the function)

SHAPES = [  # B, H, S_Q, lengths (one value: all equal), page
    (64, 16, 1, 4096, 64), (132, 16, 1, 8192, 64), (64, 32, 1, 8192, 64), (32, 16, 1, "mixed", 64),
    (132, 128, 1, 4096, 64), (32, 128, 1, 8192, 64), (132, 64, 1, 4096, 64), (64, 128, 2, 4096, 64),
    (132, 32, 2, 4096, 64), (32, 128, 1, "mixed", 64), (1, 128, 1, 65536, 64),
]


def triton_kernels():
    """txl/kernels/mla_decode.py compiled by Triton 3.6: the same source (bench/same_source.py)."""
    return load_with_triton(km.__file__, "mla_triton")


def copy_bandwidth():
    src = torch.empty(1 << 29, dtype=torch.bfloat16, device="cuda")
    dst = torch.empty_like(src)
    t = do_bench(lambda: dst.copy_(src), return_mode="median")
    return 2 * src.numel() * 2 / (t * 1e-3) / 1e9


def make(B, H, S_Q, lens, page):
    if lens == "mixed":
        lens = torch.randint(1, 16384, (B,)).tolist()
    else:
        lens = [lens] * B
    per = -(-max(lens) // page)
    kv = torch.randn(B * per + 1, page, 576, device="cuda", dtype=torch.bfloat16)
    bt = torch.randperm(B * per, device="cuda").view(B, per).to(torch.int32)
    seqlens = torch.tensor(lens, device="cuda", dtype=torch.int32)
    q = torch.randn(B, S_Q, H, 576, device="cuda", dtype=torch.bfloat16)
    return q, kv, bt, seqlens, lens


def old_splits(B, rows, capacity):
    """The mma.sync kernel's split rule (about four 16-row programs per SM, at most one split per 256 slots)."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    return max(1, min(-(-4 * sms // (B * -(-rows // 16))), capacity // 256, mop.MAX_SPLITS))


class Old:
    """The mma.sync kernel + combine on q (B, S_Q, H, 576) as S_Q * H heads, buffers allocated once."""

    def __init__(self, q, kv, bt, splits, launch):
        B, S_Q, H, _ = q.shape
        self.rows = S_Q * H
        self.splits, self.launch = splits, launch
        self.part_o = torch.empty(B, self.rows, splits, 512, device="cuda")
        self.part_lse = torch.empty(B, self.rows, splits, device="cuda")
        self.o = torch.empty(B, self.rows, 512, device="cuda", dtype=q.dtype)
        self.lse = torch.empty(B, self.rows, device="cuda")

    def __call__(self, q, kv, bt, seqlens):
        self.launch(q, kv, bt, seqlens, self.rows, self.splits, self.part_o, self.part_lse, self.o, self.lse)
        return self.o


class Scheduled:
    """The op with mla_decode.SCHEDULE set to ``schedule`` during the call ("fa3": mla_decode_wgmma.py)."""

    def __init__(self, schedule):
        self.schedule = schedule

    def __call__(self, q, kv, bt, seqlens):
        saved = mop.SCHEDULE
        mop.SCHEDULE = self.schedule
        try:
            return txl.ops.mla_decode(q, kv, bt, seqlens)
        finally:
            mop.SCHEDULE = saved


class Padded:
    """The op with the wgmma kernel for any row count (mla_decode.WGMMA_ROWS lowered to 1 during the call)."""

    def __call__(self, q, kv, bt, seqlens):
        saved = mop.WGMMA_ROWS
        mop.WGMMA_ROWS = 1
        try:
            return txl.ops.mla_decode(q, kv, bt, seqlens)
        finally:
            mop.WGMMA_ROWS = saved


def txl_old_launch(q, kv, bt, seqlens, rows, splits, part_o, part_lse, o, lse):
    B = q.shape[0]
    cx = km.split_constexprs(kv.shape[1], splits)
    fast_launch(km.mla_decode_split, (B, -(-rows // 16), splits),
                (q, kv, bt, seqlens, part_o, part_lse, 576 ** -0.5, rows, bt.stride(0), rows, 1),
                dict(cx, num_warps=4))
    fast_launch(km.mla_decode_combine, (B, rows), (part_o, part_lse, o, lse, rows),
                dict(D_V=512, NUM_SPLITS=splits, SPLITS_P=km.next_power_of_2(splits), num_warps=4))


def triton_launch(tk, q, kv, bt, seqlens, rows, splits, part_o, part_lse, o, lse):
    B = q.shape[0]
    cx = km.split_constexprs(kv.shape[1], splits)
    tk.mla_decode_split[(B, -(-rows // 16), splits)](q, kv, bt, seqlens, part_o, part_lse, 576 ** -0.5, rows,
                                                    bt.stride(0), rows, 1, **cx, num_warps=4)
    tk.mla_decode_combine[(B, rows)](part_o, part_lse, o, lse, rows, D_V=512, NUM_SPLITS=splits,
                                     SPLITS_P=km.next_power_of_2(splits), num_warps=4)


def peer(fn, q, kv, bt, seqlens, ro):
    """(ms, '' or '!' when its output is off the reference) of a peer, or ('fail', message)."""
    try:
        o = fn(q, kv, bt, seqlens).view(q.shape[0], -1, 512)
        err = ((o[:2].float().view(ro.shape) - ro).norm() / ro.norm()).item()
        t = do_bench(lambda: fn(q, kv, bt, seqlens), return_mode="median")
        return t, "" if err < 1e-2 else "!"
    except Exception as e:  # noqa: BLE001 - a peer failing is a note, not the end of the run
        return "fail", str(e).splitlines()[0][:160]


def fp8_row(q, kv, bt, seqlens, total, flops, t_bf16, bw, shape):
    """The op on ``kv`` quantized to e4m3 with a per-tensor scale: one row (GB/s of e4m3 bytes)."""
    scale = (kv.abs().amax().float() / 448.0).reshape(1)
    kv8 = (kv.float() / scale).to(torch.float8_e4m3fn)
    B, S_Q, H, _ = q.shape
    rows = S_Q * H
    try:
        o = txl.ops.mla_decode(q, kv8, bt, seqlens, kv_scale=scale)
        ro, _ = mop.mla_reference(q[:2], kv8, bt[:2], seqlens[:2], kv_scale=scale)
        err = ((o[:2].float() - ro).norm() / ro.norm()).item()
        t = do_bench(lambda: txl.ops.mla_decode(q, kv8, bt, seqlens, kv_scale=scale), return_mode="median")
    except Exception as e:  # noqa: BLE001 - a failing row is a note, not the end of the run
        print("%-30s %6s  fail: %s" % ("  fp8", "mma8", str(e).splitlines()[0][:160]))
        return
    nbytes = total * 576 + q.numel() * 2 + B * rows * 512 * 2
    splits = mop.default_splits(B, H, bt.shape[1] * kv.shape[1], q.device, S_Q, kv.shape[1], kv.shape[0], fp8=True)
    print("%-30s %6s %6d %8.3f %7.0f %6.0f%% %8.1f | x bf16 %5.2f%s" % (
        "  fp8 " + str(shape), "mma8", splits, t, nbytes / (t * 1e-3) / 1e9, 100 * nbytes / (t * 1e-3) / 1e9 / bw,
        flops / (t * 1e-3) / 1e12, t_bf16 / t, "" if err < 1e-2 else "  ERR %.2e" % err))


def main():
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--compute", action="store_true", help="only the rows with 64+ query rows per sequence")
    ap.add_argument("--no-triton", action="store_true", help="skip the Triton 3.6 column")
    ap.add_argument("--fa3", action="store_true",
                    help="on the wgmma rows also time FA3's schedule (mla_decode.SCHEDULE = 'fa3'; the default is "
                         "'seesaw')")
    ap.add_argument("--fp8", action="store_true",
                    help="under each row, the op on the cache in float8_e4m3fn with a per-tensor scale")
    args = ap.parse_args()
    torch.manual_seed(0)
    bw = copy_bandwidth()
    print("device-to-device copy: %.0f GB/s; %s" % (bw, torch.cuda.get_device_name()))
    tk = None
    if not args.no_triton:
        try:
            tk = triton_kernels()
        except Exception as e:  # noqa: BLE001
            print("triton: %s" % str(e).splitlines()[0][:200])
    print("%-30s %6s %6s %8s %7s %7s %8s | %8s %7s %6s | %9s %7s | %9s %6s" % (
        "shape (B,H,S_Q,len,page)", "kernel", "splits", "txl ms", "GB/s", "%copy", "TFLOP/s", "mma ms", "TFLOP/s",
        "x mma", "triton ms", "x trit", "fa3 ms" if args.fa3 else "wgmma pad", "TF/s" if args.fa3 else "%copy"))
    for B, H, S_Q, lens, page in SHAPES:
        rows = S_Q * H
        if args.compute and rows < 64:
            continue
        q, kv, bt, seqlens, ls = make(B, H, S_Q, lens, page)
        capacity = bt.shape[1] * page
        splits = mop.default_splits(B, H, capacity, q.device, S_Q, page, kv.shape[0])
        kernel = "wgmma" if mop.uses_wgmma(rows, page, kv.shape[0]) else "mma"
        o = txl.ops.mla_decode(q, kv, bt, seqlens)
        ro, _ = mop.mla_reference(q[:2], kv, bt[:2], seqlens[:2])
        err = ((o[:2].float() - ro).norm() / ro.norm()).item()
        t = do_bench(lambda: txl.ops.mla_decode(q, kv, bt, seqlens), return_mode="median")
        total = sum(ls)
        nbytes = total * 576 * 2 + q.numel() * 2 + B * rows * 512 * 2
        flops = 2.0 * rows * total * (576 + 512)
        ro2 = ro.reshape(ro.shape[0], rows, 512)
        s_old = old_splits(B, rows, capacity)
        q3 = q.view(B, rows, 576)
        tm, note = peer(Old(q3.view(B, 1, rows, 576), kv, bt, s_old, txl_old_launch), q3, kv, bt, seqlens, ro2)
        mma = ("%8.3f%s %7.1f %6.2f" % (tm, note, flops / (tm * 1e-3) / 1e12, tm / t)) if tm != "fail" else \
            "%8s %7s %6s" % ("fail", "-", "-")
        if tm == "fail":
            print("mma.sync %s: %s" % ((B, H, S_Q, lens, page), note))
        trit = "%9s %7s" % ("-", "-")
        if tk is not None:
            tt, tnote = peer(Old(q3.view(B, 1, rows, 576), kv, bt, s_old,
                                 lambda *a: triton_launch(tk, *a)), q3, kv, bt, seqlens, ro2)
            if tt == "fail":
                print("triton %s: %s" % ((B, H, S_Q, lens, page), tnote))
                trit = "%9s %7s" % ("fail", "-")
            else:
                trit = "%8.3f%s %7.2f" % (tt, tnote or " ", tt / t)
        pad = "%9s %6s" % ("-", "-")
        if kernel == "wgmma" and args.fa3:  # the column shows the fa3 schedule's time and TFLOP/s instead
            ts, snote = peer(Scheduled("fa3"), q, kv, bt, seqlens, ro.reshape(ro.shape[0], rows, 512))
            if ts == "fail":
                print("fa3 schedule %s: %s" % ((B, H, S_Q, lens, page), snote))
                pad = "%9s %6s" % ("fail", "-")
            else:
                pad = "%8.3f%s %6.0f" % (ts, snote or " ", flops / (ts * 1e-3) / 1e12)
        if kernel == "mma" and page % 64 == 0:
            tp, pnote = peer(Padded(), q3.view(B, 1, rows, 576), kv, bt, seqlens, ro2)
            if tp == "fail":
                print("wgmma pad %s: %s" % ((B, H, S_Q, lens, page), pnote))
                pad = "%9s %6s" % ("fail", "-")
            else:
                pad = "%8.3f%s %5.0f%%" % (tp, pnote or " ", 100 * nbytes / (tp * 1e-3) / 1e9 / bw)
        print("%-30s %6s %6d %8.3f %7.0f %6.0f%% %8.1f | %s | %s | %s%s" % (
            str((B, H, S_Q, lens, page)), kernel, splits, t, nbytes / (t * 1e-3) / 1e9,
            100 * nbytes / (t * 1e-3) / 1e9 / bw, flops / (t * 1e-3) / 1e12, mma, trit, pad,
            "" if err < 1e-2 else "  ERR %.2e" % err))
        if args.fp8:
            fp8_row(q, kv, bt, seqlens, total, flops, t, bw, (B, H, S_Q, lens, page))


if __name__ == "__main__":
    main()
