#!/usr/bin/env python3
"""Block-sparse selection attention (NSA) on the GPU: txl.ops.nsa_selection_attention next to, in the same run on the
same inputs, the same kernel source compiled by Triton 3.6 (txl/kernels/nsa.py with its imports swapped), torch
FlexAttention (torch.compile(flex_attention) with a mask_mod reading the selection) and the dense causal
txl.ops.flash_attention of the same shape.

    python3 bench/nsa.py [--quick]

Shape: (B, HQ, HK, N, D) = (4, 32, 2, 8192, 128) bf16 (GQA groups of 16 query heads), each token selects S = 16
blocks of 64 keys (its own block and 15 random earlier ones); --quick: N = 4096. Before timing, every output (and
txl's gradients) is checked against a float32 reference on a slice (the reference of one batch and kv head); Triton's
and FlexAttention's outputs against txl's. Effective TFLOP/s count the selected keys only: 4 * D per (query head,
selected key) forward, 2.5x that backward. Timings: median of triton.testing.do_bench.
"""

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402
from same_source import load_with_triton  # noqa: E402
from triton.testing import do_bench  # noqa: E402

import txl.ops  # noqa: E402
from txl.kernels import nsa as kn  # noqa: E402
from txl.ops import nsa as nsa_op  # noqa: E402


def triton_kernels():
    """txl/kernels/nsa.py compiled by Triton 3.6: the same source (bench/same_source.py)."""
    return load_with_triton(kn.__file__, "nsa_triton")


def selection(B, hk, n, s, bs):
    nb = n // bs
    cur = (torch.arange(n, device="cuda") // bs)[:, None]
    blk = torch.arange(nb, device="cuda")[None, :]
    score = torch.rand(B, hk, n, nb, device="cuda")
    score = torch.where(blk == cur, 2.0, torch.where(blk < cur, score, -1.0))
    top, idx = score.topk(s, dim=-1)
    return torch.where(top >= 0, idx, -1).to(torch.int32).contiguous()


def run_triton(tk, q, k, v, idx, bs, o, lse):
    B, HQ, N, D = q.shape
    HK, S = k.shape[1], idx.shape[-1]
    cx = kn.tile_constexprs(HQ // HK, D, S, bs)
    bos = torch.zeros(1, dtype=torch.int32, device="cuda")
    tk.nsa_fwd[(B * N, HK)](q, k, v, idx, bos, o, lse, 1.0 / math.sqrt(D), N, HQ, *q.stride()[:3],
                            *k.stride()[:3], *idx.stride()[:3], **cx, VARLEN=False, num_warps=4)


def flex_fn(idx, B, HQ, HK, N, bs):
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    nb = N // bs
    sel = torch.zeros(B, HK, N, nb, dtype=torch.bool, device="cuda")
    sel.scatter_(3, torch.where(idx >= 0, idx, 0).long(), (idx >= 0))
    G = HQ // HK

    def mask_mod(b, h, q_idx, kv_idx):
        return sel[b, h // G, q_idx, kv_idx // bs] & (kv_idx <= q_idx)

    mask = create_block_mask(mask_mod, B, HQ, N, N, device="cuda", _compile=True)
    flex = torch.compile(flex_attention)
    return lambda q, k, v: flex(q, k, v, block_mask=mask, enable_gqa=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    B, HQ, HK, N, D, S, BS = 4, 32, 2, (4096 if a.quick else 8192), 128, 16, 64
    torch.manual_seed(0)
    q = torch.randn(B, HQ, N, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    k = torch.randn(B, HK, N, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    v = torch.randn(B, HK, N, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    idx = selection(B, HK, N, S, BS)
    do = torch.randn_like(q)
    sel_keys = B * HQ * N * S * BS  # (query head, selected key) pairs, approx. (the own block is partly causal)
    fwd_flops = 4.0 * D * sel_keys
    print("NSA selection attention  B%d HQ%d HK%d N%d D%d  S=%d blocks of %d  (%.1f%% of the causal keys)"
          % (B, HQ, HK, N, D, S, BS, 100.0 * S * BS / (N / 2)))

    # correctness: batch 0, kv head 0's query heads, against float32
    o = txl.ops.nsa_selection_attention(q, k, v, idx, block_size=BS)
    o.backward(do)
    G = HQ // HK
    qs = q[:1, :G].detach().float().requires_grad_(True)
    ks = k[:1, :1].detach().float().requires_grad_(True)
    vs = v[:1, :1].detach().float().requires_grad_(True)
    ro = nsa_op.nsa_reference(qs, ks, vs, idx[:1, :1], block_size=BS)
    ro.backward(do[:1, :G].float())

    def rel(x, r):
        return ((x.float() - r).norm() / r.norm()).item()
    print("check vs float32 (batch 0, kv head 0): o %.2e  dq %.2e  dk %.2e  dv %.2e (relative Frobenius)" % (
        rel(o[:1, :G], ro), rel(q.grad[:1, :G], qs.grad), rel(k.grad[:1, :1], ks.grad), rel(v.grad[:1, :1],
                                                                                           vs.grad)))
    rows = []

    def fwd():
        with torch.no_grad():
            txl.ops.nsa_selection_attention(q, k, v, idx, block_size=BS)

    def fwdbwd():
        out = txl.ops.nsa_selection_attention(q, k, v, idx, block_size=BS)
        torch.autograd.grad(out, (q, k, v), do)
    t_f, t_fb = do_bench(fwd, return_mode="median"), do_bench(fwdbwd, return_mode="median")
    rows.append(("txl nsa_selection_attention", t_f, t_fb))

    try:
        tk = triton_kernels()
        ot = torch.empty_like(q)
        lt = torch.empty(B * N, HQ, device="cuda")
        run_triton(tk, q.detach(), k.detach(), v.detach(), idx, BS, ot, lt)
        print("triton (same source) vs txl: max abs diff of o %.2e" % (ot.float() - o.float()).abs().max().item())
        t = do_bench(lambda: run_triton(tk, q.detach(), k.detach(), v.detach(), idx, BS, ot, lt),
                     return_mode="median")
        rows.append(("triton 3.6, nsa_fwd same source", t, None))
    except Exception as e:  # noqa: BLE001 - a peer failing is a row, not the end of the run
        print("triton: %s" % str(e).splitlines()[0][:200])
    try:
        fl = flex_fn(idx, B, HQ, HK, N, BS)
        of = fl(q, k, v)
        print("flex vs txl: max abs diff of o %.2e" % (of.float() - o.float()).abs().max().item())

        def ffwd():
            with torch.no_grad():
                fl(q, k, v)

        def ffb():
            torch.autograd.grad(fl(q, k, v), (q, k, v), do)
        rows.append(("flex_attention (selection mask_mod)", do_bench(ffwd, return_mode="median"),
                     do_bench(ffb, return_mode="median")))
    except Exception as e:  # noqa: BLE001
        print("flex: %s" % str(e).splitlines()[0][:200])

    def dfwd():
        with torch.no_grad():
            txl.ops.flash_attention(q, k, v, causal=True)

    def dfb():
        torch.autograd.grad(txl.ops.flash_attention(q, k, v, causal=True), (q, k, v), do)
    rows.append(("txl flash_attention dense causal", do_bench(dfwd, return_mode="median"),
                 do_bench(dfb, return_mode="median")))

    print("%-38s %10s %10s %12s %12s %8s %8s" % ("impl", "fwd ms", "f+b ms", "fwd TF/s*", "bwd TF/s*", "x fwd",
                                                 "x f+b"))
    for name, tf, tfb in rows:
        bwd = None if tfb is None else tfb - tf
        print("%-38s %10.3f %10s %12.1f %12s %8.2f %8s" % (
            name, tf, "-" if tfb is None else "%.3f" % tfb, fwd_flops / tf * 1e-9,
            "-" if bwd is None else "%.1f" % (2.5 * fwd_flops / bwd * 1e-9), tf / t_f,
            "-" if tfb is None else "%.2f" % (tfb / t_fb)))
    print("* effective: FLOPs over the selected keys only (dense causal: the same count, so its TF/s is what the "
          "sparse work would need to match it); x: time / txl's (above 1: txl faster)")


if __name__ == "__main__":
    main()
