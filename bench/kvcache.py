#!/usr/bin/env python3
"""Decoding over a paged KV cache on the GPU: txl.ops.flash_attention_with_kvcache next to, in the same run, a torch
device-to-device copy of the same bytes (the bandwidth the kernel can reach) and torch SDPA / FlexAttention on the
gathered, unpaged cache (their best case: the gather is not timed; they have no paged interface).

    python3 bench/kvcache.py [--quick] [--no-flex]

Rows: (B, H, H_KV, S_Q, cache length, page size, head dim); bf16; causal when S_Q > 1. Each output is checked
against the float32 reference (txl.ops.kvcache.kvcache_reference) on the first two sequences before timing (ERR
marks a miss). GB/s counts the bytes the kernel must move: every sequence's cached K and V rows, q and o. "copy
GB/s" is torch's dst.copy_(src) of a buffer of that many bytes (read + written), "%copy" our GB/s over it: the
issue's target is >= 85%. Timed calls pass check_lengths=False (the default check reads the lengths back to the
host, a sync a decoding loop avoids). Timings: median of triton.testing.do_bench; peers "-" where they do not take
the shape (mixed lengths: no per-sequence lengths), "fail" with the reason printed.
"""

import argparse
import importlib
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from triton.testing import do_bench  # noqa: E402

import txl.ops  # noqa: E402
from txl.kernels.kvcache_decode import row_block  # noqa: E402

kv_mod = importlib.import_module("txl.ops.kvcache")

SHAPES = [  # B, H, H_KV, S_Q, lengths (one value: all equal; "mixed": 1 .. 16K), page, D
    (64, 32, 8, 1, 4096, 64, 128),    # Llama-3-8B decoding
    (64, 32, 8, 1, 4096, 16, 128),    # the same with 16-key pages (a tile spans 4 pages)
    (32, 64, 8, 1, 8192, 256, 128),   # Llama-3-70B
    (64, 32, 8, 4, 4096, 64, 128),    # speculative, 4 tokens
    (16, 128, 8, 8, 8192, 64, 128),   # GQA 16 x 8 tokens: two 64-row blocks
    (32, 32, 32, 1, 4096, 64, 128),   # MHA
    (64, 16, 1, 1, 8192, 64, 128),    # MQA
    (64, 32, 8, 1, 4096, 64, 64),
    (8, 32, 8, 1, 32768, 64, 128),    # few long sequences: the splits fill the GPU
    (32, 32, 8, 1, "mixed", 64, 128),
    (128, 32, 8, 1, 1024, 16, 128),   # short sequences
]
QUICK = [0, 1, 3, 4, 9]


def make(B, H, h_kv, s_q, lens, page, d):
    if lens == "mixed":
        lens = torch.randint(1, 16384, (B,)).tolist()
    else:
        lens = [lens] * B
    per = -(-max(lens) // page)
    kc = torch.randn(B * per + 1, page, h_kv, d, device="cuda", dtype=torch.bfloat16)
    vc = torch.randn_like(kc)
    bt = torch.randperm(B * per, device="cuda").view(B, per).to(torch.int32)
    seqlens = torch.tensor(lens, device="cuda", dtype=torch.int32)
    q = torch.randn(B, s_q, H, d, device="cuda", dtype=torch.bfloat16)
    return q, kc, vc, bt, seqlens, lens


def copy_gbs(nbytes):
    src = torch.empty(nbytes // 2, dtype=torch.bfloat16, device="cuda")
    dst = torch.empty_like(src)
    t = do_bench(lambda: dst.copy_(src), return_mode="median")
    return 2 * src.numel() * 2 / (t * 1e-3) / 1e9


def gathered(kc, vc, bt, n):
    """(B, H_KV, n, D) K and V of equal-length sequences, unpaged (the peers' input)."""
    B = bt.shape[0]
    page, h_kv, d = kc.shape[1], kc.shape[2], kc.shape[3]
    pages = bt[:, :-(-n // page)].long()
    k = kc[pages].reshape(B, -1, h_kv, d)[:, :n].transpose(1, 2).contiguous()
    v = vc[pages].reshape(B, -1, h_kv, d)[:, :n].transpose(1, 2).contiguous()
    return k, v


def causal_mask(s_q, n):
    """SDPA's bool mask for bottom-right causal decoding (token i sees keys <= n - s_q + i)."""
    return torch.arange(n, device="cuda")[None, :] <= (n - s_q + torch.arange(s_q, device="cuda"))[:, None]


def flex_fn(s_q, n):
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    compiled = torch.compile(flex_attention, dynamic=False)
    block_mask = None
    if s_q > 1:
        def mod(b, h, qi, kj):
            return kj <= n - s_q + qi
        block_mask = create_block_mask(mod, None, None, s_q, n, device="cuda")
    return lambda q, k, v: compiled(q, k, v, block_mask=block_mask, enable_gqa=True)


def peer_time(fn, ref):
    try:
        out = fn()
        ok = ((out.float() - ref).norm() / ref.norm()).item() < 1e-2
        return "%.3f%s" % (do_bench(fn, return_mode="median"), "" if ok else "!")
    except Exception as e:  # noqa: BLE001 - a peer failing is a note, not the end of the run
        print("    peer: %s" % str(e).strip().splitlines()[-1][:200] if str(e).strip() else type(e).__name__)
        return "fail"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="rows %s only" % QUICK)
    ap.add_argument("--no-flex", action="store_true", help="skip FlexAttention (it compiles per shape)")
    args = ap.parse_args()
    torch.manual_seed(0)
    print("device: %s; 1 GiB device-to-device copy: %.0f GB/s" % (torch.cuda.get_device_name(),
                                                                    copy_gbs(1 << 30)))
    print("%-38s %6s %8s %7s %9s %6s %9s %9s" % ("shape (B,H,H_KV,S_Q,len,page,D)", "splits", "txl ms", "GB/s",
                                                 "copy GB/s", "%copy", "SDPA ms", "flex ms"))
    for i, (B, H, h_kv, s_q, lens, page, d) in enumerate(SHAPES):
        if args.quick and i not in QUICK:
            continue
        q, kc, vc, bt, seqlens, ls = make(B, H, h_kv, s_q, lens, page, d)
        causal = s_q > 1
        group = H // h_kv
        splits = kv_mod.default_splits(B * h_kv * row_block(group, s_q)[1], bt.shape[1] * page, q.device)

        def ours():
            return txl.ops.flash_attention_with_kvcache(q, kc, vc, block_table=bt, cache_seqlens=seqlens,
                                                        causal=causal, check_lengths=False)

        o = ours()
        ro, _ = kv_mod.kvcache_reference(q[:2], kc, vc, bt[:2], seqlens[:2], causal=causal)
        err = ((o[:2].float() - ro).norm() / ro.norm()).item()
        t = do_bench(ours, return_mode="median")
        nbytes = sum(ls) * h_kv * d * 2 * 2 + 2 * q.numel() * 2
        gbs = nbytes / (t * 1e-3) / 1e9
        cbw = copy_gbs(nbytes)
        sdpa = flex = "-"
        if lens != "mixed":
            k, v = gathered(kc, vc, bt, lens)
            qt = q.transpose(1, 2).contiguous()  # (B, H, S_Q, D)
            full = F.scaled_dot_product_attention(qt.float(), k.float(), v.float(),
                                                  attn_mask=causal_mask(s_q, lens) if causal else None,
                                                  enable_gqa=True)
            mask = causal_mask(s_q, lens) if causal else None
            sdpa = peer_time(lambda: F.scaled_dot_product_attention(qt, k, v, attn_mask=mask, enable_gqa=True), full)
            if not args.no_flex:
                try:
                    fx = flex_fn(s_q, lens)
                    flex = peer_time(lambda: fx(qt, k, v), full)
                except Exception as e:  # noqa: BLE001
                    print("    flex: %s" % str(e).strip().splitlines()[-1][:200])
                    flex = "fail"
            del k, v
        print("%-38s %6d %8.3f %7.0f %9.0f %5.0f%% %9s %9s%s" % (
            str((B, H, h_kv, s_q, lens, page, d)), splits, t, gbs, cbw, 100 * gbs / cbw, sdpa, flex,
            "" if err < 1e-2 else "  ERR %.2e" % err), flush=True)
        q = kc = vc = bt = None  # free the cache before the next shape
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
