#!/usr/bin/env python3
"""Masked attention variants on the GPU: txl.ops' sliding window + sink tokens and varlen next to torch FlexAttention
(``torch.compile(flex_attention)`` with the equivalent ``create_block_mask`` mask_mod) and SDPA with an explicit
boolean mask, measured in the same run on the same inputs, with the dense causal txl.ops.flash_attention of the same
shape for scale.

    python3 bench/variants.py [--quick] [--only NAME[,NAME...]]

Variants, (B, H, N, D) = (4, 32, 8192, 128) bf16 (--quick: (2, 16, 4096, 128)):
  swa         causal sliding window, window=(1024, 0), with 4 sink tokens
  causal      plain causal
  varlen      4 sequences packed, lengths (1/16, 1/4, 3/8, 5/16) x B*N ([2048, 8192, 12288, 10240] for B=4, N=8192),
              causal; FlexAttention with a document mask (sequence ids from cu_seqlens)
  varlen-swa  (only when named in --only) varlen with window=(1024, 0) and 4 sink tokens
  sinks       (only when named) learnable attention sinks (gpt-oss): txl.ops.flash_attention(..., sinks=) next to the
              same call without sinks, same inputs, same run; target >= 0.95x (the "x" columns: no-sinks ms / sinks
              ms). Cases: causal hd128 (H heads), gpt-oss's full causal layer and its sliding-window (128, 0) layer
              (64 query heads, 8 kv heads, hd64), and packed causal sequences
  asym        (only when named) asymmetric head dims q/k 192, v 128 (DeepSeek-V3 prefill), causal and not: txl next
              to torch SDPA's cuDNN, flash and efficient backends (each "n/a" where it refuses the shape) and txl's
              own hd128 (192/128 costs (192 + 128) / 256 = 1.25x hd128's FLOPs); TFLOP/s count 2 * pairs * (192 +
              128); targets: >= 1.0x cuDNN where cuDNN takes the shape, else >= 0.9x hd128's TFLOP/s
Implementations (rows):
  flex        torch.compile(flex_attention) + create_block_mask (the speedup base)
  txl         txl.ops.flash_attention(..., window=, num_sink_tokens=) / txl.ops.flash_attention_varlen
  sdpa-mask   F.scaled_dot_product_attention with an explicit bool mask (efficient/cuDNN backends); "skip" when the
              mask would be over 2 GiB
  sdpa        F.scaled_dot_product_attention(is_causal=True) (causal only)
  sdpa-loop   SDPA once per packed sequence (varlen only; is_causal, or a per-sequence mask with a window)
  txl-causal  the dense causal txl.ops.flash_attention on (B, H, N, D) (different work: the unmasked cost for scale)
--only takes variant names and/or implementation names (comma-separated): "--only varlen", "--only swa,txl,flex".

Before timing, every output is checked against a float32 reference on a slice (64 or 32 rows at the start, middle
and end of each sequence, first and last head): max abs error in the "err" column ("!" past 2e-2); then txl's output
and gradients are compared with FlexAttention's (max abs error, relative Frobenius errors). TFLOP/s count the
visible (i, j) pairs only: 4 * D per pair and head forward, 2.5x that backward (so masked implementations that
compute more are not credited for it). Timings: median of triton.testing.do_bench (L2 flushed between runs) when
triton is importable, else the median of CUDA-event timings. "xflex": FlexAttention's time over this row's (above 1:
faster than FlexAttention), forward and fwd+bwd. A failing implementation prints its error in its row; the run goes on.
"""

import argparse
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import txl  # noqa: E402,F401
import txl.ops  # noqa: E402
from txl.tests.attention_sinks_ref import sink_attention  # noqa: E402
from txl.tests.attention_variants_ref import effective_window, masked_attention, visible_mask  # noqa: E402
from txl.tests.attention_variants_ref import visible_pairs  # noqa: E402

try:
    from triton.testing import do_bench as _triton_bench
except Exception:  # pragma: no cover - the GPU host has triton
    _triton_bench = None

SHAPE, QUICK_SHAPE = (4, 32, 8192, 128), (2, 16, 4096, 128)
WINDOW, SINKS = (1024, 0), 4
DEVICE = "cuda"
MASK_LIMIT = 2 << 30  # bytes of an explicit bool mask SDPA gets at most
ERR_FLAG = 2e-2
DEFAULT_VARIANTS = ("swa", "causal", "varlen")
TABLES = ("sinks", "asym")  # variants with tables of their own (run_sinks, run_asym), only when named
IMPLS = ("flex", "txl", "sdpa-mask", "sdpa", "sdpa-loop", "txl-causal")


# ---------------------------------------------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------------------------------------------
def bench(fn, warmup, rep):
    """Median ms of fn: triton.testing.do_bench when there is triton, else CUDA events around each call."""
    if _triton_bench is not None:
        return _triton_bench(fn, warmup=warmup, rep=rep, return_mode="median")
    fn()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(3):
        fn()
    b.record()
    torch.cuda.synchronize()
    est = max(a.elapsed_time(b) / 3, 1e-3)
    for _ in range(max(1, int(warmup / est))):
        fn()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(max(5, min(1000, int(rep / est))))]
    for s, e in events:
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in events)


# ---------------------------------------------------------------------------------------------------------------
# Variants and their inputs
# ---------------------------------------------------------------------------------------------------------------
class Variant:
    def __init__(self, name, B, H, N, D, causal, window=(-1, -1), sinks=0, varlen=False):
        self.name, self.B, self.H, self.N, self.D = name, B, H, N, D
        self.causal, self.window, self.sinks = causal, tuple(window), sinks
        # 4 sequences of (2, 8, 12, 10) / 32 of the B * N tokens: [2048, 8192, 12288, 10240] for B=4, N=8192.
        self.lens = [B * N * f // 32 for f in (2, 8, 12, 10)] if varlen else None
        self.masked = self.window != (-1, -1) or sinks > 0

    @property
    def seqs(self):
        """[(start, length), ...] of the sequences (the dense variants: B of them, each N long, start per batch)."""
        if self.lens is None:
            return [(b, self.N) for b in range(self.B)]
        out, s = [], 0
        for n in self.lens:
            out.append((s, n))
            s += n
        return out

    def pairs(self):
        """Visible (i, j) pairs summed over the sequences (one head)."""
        return sum(visible_pairs(n, n, self.window, self.sinks, self.causal) for _, n in self.seqs)

    def describe(self):
        shape = "(%d,%d,%d,%d) bf16" % (self.B, self.H, self.N, self.D)
        lens = (" lengths %s" % self.lens) if self.lens else ""
        full = sum(n * n for _, n in self.seqs)
        return "%s %s%s causal=%s window=%s sinks=%d: %.3g visible pairs per head (%.1f%% of the unmasked)" % (
            self.name, shape, lens, self.causal, self.window, self.sinks, self.pairs(), 100.0 * self.pairs() / full)


def _kw(v):
    kw = dict(causal=v.causal)
    if v.masked:  # so that the plain rows also run on a txl without the new arguments
        kw.update(window=v.window, num_sink_tokens=v.sinks)
    return kw


def _mask_mod_dense(v):
    left, right = effective_window(v.window, v.causal)
    sinks = v.sinks

    def mask_mod(b, h, q_idx, kv_idx):
        ok = kv_idx >= 0
        if right >= 0:
            ok = ok & (kv_idx <= q_idx + right)
        if left >= 0:
            ok = ok & ((kv_idx >= q_idx - left) | (kv_idx < sinks))
        return ok

    return mask_mod


def _mask_mod_doc(v, doc, start):
    """Document mask: same sequence, positions counted within it (query and key lengths are equal here)."""
    left, right = effective_window(v.window, v.causal)
    sinks = v.sinks

    def mask_mod(b, h, q_idx, kv_idx):
        dq, dk = doc[q_idx], doc[kv_idx]
        qi, kj = q_idx - start[dq], kv_idx - start[dk]
        ok = dq == dk
        if right >= 0:
            ok = ok & (kj <= qi + right)
        if left >= 0:
            ok = ok & ((kj >= qi - left) | (kj < sinks))
        return ok

    return mask_mod


_flex = None


def _flex_fn():
    global _flex
    if _flex is None:
        from torch.nn.attention.flex_attention import flex_attention

        for name in ("recompile_limit", "cache_size_limit"):  # one compile per mask_mod, grad and no-grad
            if hasattr(torch._dynamo.config, name):
                setattr(torch._dynamo.config, name, 64)
        _flex = torch.compile(flex_attention)
    return _flex


def _block_mask(mask_mod, n):
    from torch.nn.attention.flex_attention import create_block_mask

    try:
        return create_block_mask(mask_mod, None, None, n, n, device=DEVICE, _compile=True)
    except TypeError:  # a torch without _compile
        return create_block_mask(mask_mod, None, None, n, n, device=DEVICE)


def _sdpa_masked(q, k, v, mask):
    from torch.nn.attention import SDPBackend, sdpa_kernel

    with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION]):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def _doc_ids(v):
    lens = torch.tensor(v.lens, device=DEVICE)
    doc = torch.repeat_interleave(torch.arange(len(v.lens), device=DEVICE), lens)
    start = torch.cumsum(lens, 0) - lens
    return doc, start


def _dense_mask(v, n):
    return visible_mask(n, n, v.window, v.sinks, v.causal, device=DEVICE)


def _varlen_mask(v):
    """(T, T) bool: the block-diagonal mask of the packed sequences."""
    t = sum(v.lens)
    mask = torch.zeros(t, t, dtype=torch.bool, device=DEVICE)
    for s, n in v.seqs:
        mask[s:s + n, s:s + n] = _dense_mask(v, n)
    return mask


class Row:
    """One implementation of a variant: fwd(q, k, v) on its own inputs, canon(x) mapping its output (or a gradient)
    to the variant's layout ((B, H, N, D) dense, (T, H, D) packed), check(o) the slice error, pairs for the FLOPs."""

    def __init__(self, fwd, inputs, do, canon, check, pairs):
        self.fwd, self.inputs, self.do, self.canon, self.check, self.pairs = fwd, inputs, do, canon, check, pairs


def _slice_rows(n, k):
    rows = sorted(set(list(range(min(k, n))) + list(range(max(n // 2 - k // 2, 0), min(n // 2 + k // 2, n)))
                      + list(range(max(n - k, 0), n))))
    return torch.tensor(rows, device=DEVICE)


def _check_dense(v, q, k, v_, causal_only=False):
    """check(o): max abs error of o (B, H, N, D) against float32 on batch 0, first and last head, 192 rows."""
    B, H, N, D = q.shape
    g = H // k.shape[1]
    rows = _slice_rows(N, 64)
    if causal_only:
        mask = visible_mask(N, N, (-1, -1), 0, True, device=DEVICE)[rows]
    else:
        mask = _dense_mask(v, N)[rows]

    def check(o):
        err = 0.0
        for h in (0, H - 1):
            ref, _ = masked_attention(q[0, h:h + 1, rows].float(), k[0, h // g:h // g + 1].float(),
                                      v_[0, h // g:h // g + 1].float(), mask, 1.0 / math.sqrt(D))
            err = max(err, (o[0, h, rows].float() - ref[0]).abs().max().item())
        return err

    return check


def _check_varlen(v, q, k, v_):
    """check(o): max abs error of packed o (T, H, D) against float32 on 64 rows per sequence, first and last head."""
    T, H, D = q.shape
    g = H // k.shape[1]
    pieces = []
    for s, n in v.seqs:
        rows = _slice_rows(n, 32)
        pieces.append((s, n, rows, _dense_mask(v, n)[rows]))

    def check(o):
        err = 0.0
        for s, n, rows, mask in pieces:
            for h in (0, H - 1):
                qs = q[s + rows, h].float()[None]
                ks, vs = (t[s:s + n, h // g].float()[None] for t in (k, v_))
                ref, _ = masked_attention(qs, ks, vs, mask, 1.0 / math.sqrt(D))
                err = max(err, (o[s + rows, h].float() - ref[0]).abs().max().item())
        return err

    return check


def build_rows(v, impls):
    """{impl: Row or an Exception or "skip ..."} for one variant; inputs made once per layout, same data for all."""
    B, H, N, D = v.B, v.H, v.N, v.D
    rows = {}
    if v.lens is None:
        q = torch.randn(B, H, N, D, device=DEVICE, dtype=torch.bfloat16)
        k, vv = (torch.randn(B, H, N, D, device=DEVICE, dtype=torch.bfloat16) for _ in range(2))
        do = torch.randn_like(q)
        ident = lambda x: x  # noqa: E731
        check = _check_dense(v, q, k, vv)
        pairs = v.pairs()
        for name in impls:
            try:
                if name == "txl":
                    kw = _kw(v)
                    rows[name] = Row(lambda a, b, c, kw=kw: txl.ops.flash_attention(a, b, c, **kw), (q, k, vv), do,
                                     ident, check, pairs)
                elif name == "flex":
                    bm = _block_mask(_mask_mod_dense(v), N)
                    rows[name] = Row(lambda a, b, c, bm=bm: _flex_fn()(a, b, c, block_mask=bm), (q, k, vv), do, ident,
                                     check, pairs)
                elif name == "sdpa-mask":
                    if N * N > MASK_LIMIT:
                        rows[name] = "skip (a %.1f GiB mask)" % (N * N / 2 ** 30)
                        continue
                    mask = _dense_mask(v, N)
                    rows[name] = Row(lambda a, b, c, m=mask: _sdpa_masked(a, b, c, m), (q, k, vv), do, ident, check,
                                     pairs)
                elif name == "sdpa" and v.causal and not v.masked:
                    rows[name] = Row(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True),
                                     (q, k, vv), do, ident, check, pairs)
                elif name == "txl-causal" and v.masked:
                    rows[name] = Row(lambda a, b, c: txl.ops.flash_attention(a, b, c, causal=True), (q, k, vv), do,
                                     ident, _check_dense(v, q, k, vv, causal_only=True),
                                     B * visible_pairs(N, N, causal=True))
            except Exception as e:  # reported in the row
                rows[name] = e
        return rows

    T = sum(v.lens)
    q = torch.randn(T, H, D, device=DEVICE, dtype=torch.bfloat16)
    k, vv = (torch.randn(T, H, D, device=DEVICE, dtype=torch.bfloat16) for _ in range(2))
    do = torch.randn_like(q)
    cu = torch.tensor([0] + [s + n for s, n in v.seqs], dtype=torch.int32, device=DEVICE)
    maxlen = max(v.lens)
    check = _check_varlen(v, q, k, vv)
    pairs = v.pairs()
    to_bhtd = lambda x: x.transpose(0, 1).unsqueeze(0).contiguous()  # noqa: E731 - (T, H, D) -> (1, H, T, D)
    from_bhtd = lambda x: x[0].transpose(0, 1)  # noqa: E731
    bhtd = None
    for name in impls:
        try:
            if name in ("flex", "sdpa-mask", "sdpa-loop") and bhtd is None:
                bhtd = tuple(to_bhtd(t) for t in (q, k, vv, do))
            if name == "txl":
                kw = _kw(v)
                rows[name] = Row(lambda a, b, c, kw=kw: txl.ops.flash_attention_varlen(a, b, c, cu, cu, maxlen, maxlen,
                                                                                     **kw),
                                 (q, k, vv), do, lambda x: x, check, pairs)
            elif name == "flex":
                doc, start = _doc_ids(v)
                bm = _block_mask(_mask_mod_doc(v, doc, start), T)
                rows[name] = Row(lambda a, b, c, bm=bm: _flex_fn()(a, b, c, block_mask=bm), bhtd[:3], bhtd[3],
                                 from_bhtd, check, pairs)
            elif name == "sdpa-mask":
                if T * T > MASK_LIMIT:
                    rows[name] = "skip (a %.1f GiB mask)" % (T * T / 2 ** 30)
                    continue
                mask = _varlen_mask(v)
                rows[name] = Row(lambda a, b, c, m=mask: _sdpa_masked(a, b, c, m), bhtd[:3], bhtd[3], from_bhtd,
                                 check, pairs)
            elif name == "sdpa-loop":
                masks = None if not v.masked else [_dense_mask(v, n) for _, n in v.seqs]

                def loop(a, b, c, seqs=v.seqs, masks=masks):
                    outs = []
                    for i, (s, n) in enumerate(seqs):
                        qs, ks, vs = (t[:, :, s:s + n] for t in (a, b, c))
                        if masks is None:
                            outs.append(F.scaled_dot_product_attention(qs, ks, vs, is_causal=v.causal))
                        else:
                            outs.append(_sdpa_masked(qs, ks, vs, masks[i]))
                    return torch.cat(outs, 2)

                rows[name] = Row(loop, bhtd[:3], bhtd[3], from_bhtd, check, pairs)
            elif name == "txl-causal":
                qd, kd, vd, dod = (torch.randn(B, H, N, D, device=DEVICE, dtype=torch.bfloat16) for _ in range(4))
                rows[name] = Row(lambda a, b, c: txl.ops.flash_attention(a, b, c, causal=True), (qd, kd, vd), dod,
                                 lambda x: x, _check_dense(v, qd, kd, vd, causal_only=True),
                                 B * visible_pairs(N, N, causal=True))
        except Exception as e:  # reported in the row
            rows[name] = e
    return rows


# ---------------------------------------------------------------------------------------------------------------
# Running a row
# ---------------------------------------------------------------------------------------------------------------
def run_row(row, warmup, rep, keep):
    """{err, fwd, bwd, step: ms, kept: (o[, dq, dk, dv]) in the variant's layout when keep, bwd_error: an
    exception of the backward (then without bwd/step)}; an exception of the forward propagates."""
    q, k, v = row.inputs
    res = {}
    with torch.no_grad():
        o = row.fwd(q, k, v)
        torch.cuda.synchronize()
        res["err"] = row.check(row.canon(o))
        if keep:
            res["kept"] = (row.canon(o),)
        del o
        res["fwd"] = bench(lambda: row.fwd(q, k, v), warmup, rep)
    try:
        qs, ks, vs = (t.detach().clone().requires_grad_() for t in (q, k, v))
        out = row.fwd(qs, ks, vs)
        grads = torch.autograd.grad(out, (qs, ks, vs), row.do)
        if keep:
            res["kept"] += tuple(row.canon(g) for g in grads)
        del grads, out

        def step():
            o2 = row.fwd(qs, ks, vs)
            torch.autograd.grad(o2, (qs, ks, vs), row.do)

        # The backward is timed as (forward + backward) - forward: repeating a backward over one retained graph
        # fails for torch.compile'd FlexAttention ("non-empty donated buffers"), and every implementation is
        # timed the same way.
        res["step"] = bench(step, warmup, rep)
        res["bwd"] = res["step"] - res["fwd"]
    except Exception as e:  # the forward's numbers still print
        res["bwd_error"] = e
    return res


def _short(e):
    lines = str(e).strip().splitlines() or [""]
    return "%s: %s" % (type(e).__name__, lines[0][:110])


HEADER = "%-10s %-10s %8s %8s %8s %8s %8s %7s %7s %9s" % (
    "variant", "impl", "fwd ms", "fwd TF/s", "f+b ms", "bwd ms", "bwd TF/s", "xflex f", "xflex fb", "err")


def run_variant(v, impls, warmup, rep):
    print("\n== " + v.describe(), flush=True)
    rows = build_rows(v, impls)
    base = None
    kept = {}
    for name in impls:
        r = rows.get(name)
        if r is None:
            continue
        if isinstance(r, str):
            print("%-10s %-10s %s" % (v.name, name, r), flush=True)
            continue
        if isinstance(r, Exception):
            print("%-10s %-10s error: %s" % (v.name, name, _short(r)), flush=True)
            continue
        try:
            res = run_row(r, warmup, rep, keep=name in ("txl", "flex"))
        except Exception as e:  # reported in the row
            print("%-10s %-10s error: %s" % (v.name, name, _short(e)), flush=True)
            torch.cuda.empty_cache()
            continue
        if "kept" in res:
            kept[name] = res["kept"]
        if name == "flex":
            base = (res["fwd"], res.get("step"))
        f_flops = 4.0 * v.D * v.H * r.pairs
        err, ms_f = res["err"], res["fwd"]
        xf = "%7.2f" % (base[0] / ms_f) if base else "%7s" % "-"
        flag = "!" if not err <= ERR_FLAG else ""
        if "bwd_error" in res:
            print("%-10s %-10s %8.3f %8.1f %s %s %s %8.1e%s  bwd error: %s" % (
                v.name, name, ms_f, f_flops / (ms_f * 1e-3) / 1e12, "%8s %8s %8s" % ("-", "-", "-"), xf, "%7s" % "-", err, flag,
                _short(res["bwd_error"])), flush=True)
            torch.cuda.empty_cache()
            continue
        ms_b, ms_s = res["bwd"], res["step"]
        xs = "%7.2f" % (base[1] / ms_s) if base and base[1] else "%7s" % "-"
        print("%-10s %-10s %8.3f %8.1f %8.3f %8.3f %8.1f %s %s %8.1e%s" % (
            v.name, name, ms_f, f_flops / (ms_f * 1e-3) / 1e12, ms_s, ms_b, 2.5 * f_flops / (ms_b * 1e-3) / 1e12, xf,
            xs, err, flag), flush=True)
    if "txl" in kept and "flex" in kept:
        a, b = kept.pop("txl"), kept.pop("flex")
        o_err = (a[0].float() - b[0].float()).abs().max().item()
        g_err = ["%.2e" % ((x.float() - y.float()).norm() / y.float().norm().clamp_min(1e-30)).item()
                 for x, y in zip(a[1:], b[1:])]
        print("  txl vs flex: o max abs err %.2e; dq, dk, dv relative errors %s" % (
            o_err, " ".join(g_err) if g_err else "- (a backward failed)"))
    del rows, kept
    torch.cuda.empty_cache()


# ---------------------------------------------------------------------------------------------------------------
# Learnable sinks: the same call with and without them
# ---------------------------------------------------------------------------------------------------------------
def _timed(fn, args, do, grad_of, warmup, rep):
    """(fwd ms, fwd+bwd ms) of fn(*args): the forward without grad, then forward + autograd.grad over grad_of."""
    with torch.no_grad():
        fwd = bench(lambda: fn(*args), warmup, rep)

    def step():
        torch.autograd.grad(fn(*args), grad_of, do)

    return fwd, bench(step, warmup, rep)


def run_sinks(B, H, N, warmup, rep):
    """Table: txl with learnable sinks vs the same call without, per case (see the module docstring)."""
    print("\n== learnable sinks (gpt-oss): txl.ops.flash_attention(..., sinks=) vs the same call without sinks")
    print("%-34s %9s %9s %6s %9s %9s %6s %9s" % ("case", "fwd ms", "+sinks", "x", "f+b ms", "+sinks", "x", "err"))
    cases = [("causal (%d,%d,%d,128)" % (B, H, N), B, H, H, N, 128, (-1, -1), False),
             ("gpt-oss full (%d,64/8kv,%d,64)" % (B, N), B, 64, 8, N, 64, (-1, -1), False),
             ("gpt-oss window128 (%d,64/8kv,%d,64)" % (B, N), B, 64, 8, N, 64, (128, 0), False),
             ("varlen causal (%d seqs,%d,128)" % (4, H), B, H, H, N, 128, (-1, -1), True)]
    for name, b, h, hk, n, d, window, packed in cases:
        try:
            q = torch.randn(b, h, n, d, device=DEVICE, dtype=torch.bfloat16)
            k, v = (torch.randn(b, hk, n, d, device=DEVICE, dtype=torch.bfloat16) for _ in range(2))
            sinks = (torch.randn(h, device=DEVICE) * 2).requires_grad_()
            kw = dict(causal=True, window=window) if window != (-1, -1) else dict(causal=True)
            if packed:  # 4 sequences of (2, 8, 12, 10) / 32 of the tokens, as the varlen variant
                lens = [b * n * f // 32 for f in (2, 8, 12, 10)]
                cu = torch.tensor([0] + [sum(lens[:i + 1]) for i in range(4)], dtype=torch.int32, device=DEVICE)
                q, k, v = (t.transpose(1, 2).reshape(b * n, t.shape[1], d).contiguous() for t in (q, k, v))

                def call(a, bb, c, s=None, lens=lens, cu=cu, kw=kw):
                    return txl.ops.flash_attention_varlen(a, bb, c, cu, cu, max(lens), max(lens), sinks=s, **kw)
            else:
                def call(a, bb, c, s=None, kw=kw):
                    return txl.ops.flash_attention(a, bb, c, sinks=s, **kw)
            qs, ks, vs = (t.clone().requires_grad_() for t in (q, k, v))
            do = torch.randn(q.shape, device=DEVICE, dtype=torch.bfloat16)
            base = _timed(call, (qs, ks, vs), do, (qs, ks, vs), warmup, rep)
            with_s = _timed(lambda a, bb, c: call(a, bb, c, sinks), (qs, ks, vs), do, (qs, ks, vs, sinks), warmup, rep)
            with torch.no_grad():  # first and last head of batch 0 (of sequence 0 packed), 192 rows, vs float32
                o = call(q, k, v, sinks.detach())
                nn = n if not packed else lens[0]
                rows = _slice_rows(nn, 64)
                mask = visible_mask(nn, nn, window, 0, True, device=DEVICE)[rows]
                err = 0.0
                for hh in (0, h - 1):
                    kh = hh // (h // hk)
                    if packed:
                        qq, kk, vv = q[rows, hh][None], k[:nn, kh][None], v[:nn, kh][None]
                        got = o[rows, hh]
                    else:
                        qq, kk, vv = q[0, hh:hh + 1, rows], k[0, kh:kh + 1], v[0, kh:kh + 1]
                        got = o[0, hh, rows]
                    ref, _ = sink_attention(qq.float(), kk.float(), vv.float(), mask, 1.0 / math.sqrt(d),
                                            sinks.detach()[hh:hh + 1])
                    err = max(err, (got.float() - ref[0]).abs().max().item())
            print("%-34s %9.3f %9.3f %6.3f %9.3f %9.3f %6.3f %8.1e%s" % (
                name, base[0], with_s[0], base[0] / with_s[0], base[1], with_s[1], base[1] / with_s[1], err,
                "!" if not err <= ERR_FLAG else ""), flush=True)
        except Exception as e:  # reported in the row
            print("%-34s error: %s" % (name, _short(e)), flush=True)
        torch.cuda.empty_cache()


# ---------------------------------------------------------------------------------------------------------------
# Asymmetric head dims: q/k 192, v 128 against SDPA's backends and txl's hd128
# ---------------------------------------------------------------------------------------------------------------
def _sdpa_backend(name):
    from torch.nn.attention import SDPBackend, sdpa_kernel

    backend = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
               "efficient": SDPBackend.EFFICIENT_ATTENTION}[name]

    def fn(a, b, c, causal):
        with sdpa_kernel([backend]):
            return F.scaled_dot_product_attention(a, b, c, is_causal=causal)

    return fn


def run_asym(B, H, N, warmup, rep):
    """Table: forward of q/k 192, v 128 (DeepSeek-V3 prefill) by txl and SDPA's backends, txl's hd128 for scale."""
    D, DV = 192, 128
    print("\n== asymmetric head dims: q/k %d, v %d, (%d, %d, %d) bf16, forward" % (D, DV, B, H, N))
    print("%-8s %-16s %9s %9s %9s %9s" % ("mask", "impl", "fwd ms", "TF/s", "x txl", "err"))
    q = torch.randn(B, H, N, D, device=DEVICE, dtype=torch.bfloat16)
    k = torch.randn(B, H, N, D, device=DEVICE, dtype=torch.bfloat16)
    v = torch.randn(B, H, N, DV, device=DEVICE, dtype=torch.bfloat16)
    q128, k128 = q[..., :128].contiguous(), k[..., :128].contiguous()
    rows = _slice_rows(N, 64)
    for causal in (False, True):
        label = "causal" if causal else "full"
        pairs = B * H * visible_pairs(N, N, causal=causal)
        mask = visible_mask(N, N, causal=causal, device=DEVICE)[rows]

        def err_of(o, qq, kk, vv):
            e = 0.0
            for h in (0, H - 1):
                ref, _ = masked_attention(qq[0, h:h + 1, rows].float(), kk[0, h:h + 1].float(), vv[0, h:h + 1].float(),
                                          mask, 1.0 / math.sqrt(qq.shape[-1]))
                e = max(e, (o[0, h, rows].float() - ref[0]).abs().max().item())
            return e

        impls = [("txl 192/128", lambda a, b, c, cz=causal: txl.ops.flash_attention(a, b, c, causal=cz),
                  (q, k, v), D + DV)]
        impls += [("sdpa-" + n, lambda a, b, c, f=_sdpa_backend(n), cz=causal: f(a, b, c, cz), (q, k, v), D + DV)
                  for n in ("cudnn", "flash", "efficient")]
        impls.append(("txl hd128", lambda a, b, c, cz=causal: txl.ops.flash_attention(a, b, c, causal=cz),
                      (q128, k128, v), 256))
        txl_ms = None
        tflops = {}
        for name, fn, args, dims in impls:
            try:
                with torch.no_grad():
                    o = fn(*args)
                    torch.cuda.synchronize()
                    err = err_of(o, *args)
                    ms = bench(lambda: fn(*args), warmup, rep)
            except Exception as e:  # a backend that refuses the shape
                print("%-8s %-16s n/a: %s" % (label, name, _short(e)), flush=True)
                continue
            if txl_ms is None:
                txl_ms = ms
            tfs = tflops[name] = 2.0 * pairs * dims / (ms * 1e-3) / 1e12
            print("%-8s %-16s %9.3f %9.1f %9.2f %8.1e%s" % (label, name, ms, tfs, ms / txl_ms, err,
                                                        "!" if not err <= ERR_FLAG else ""), flush=True)
        if "txl 192/128" in tflops:
            mine = tflops["txl 192/128"]
            print("%-8s targets: x cuDNN %s (>= 1.0 where cuDNN takes the shape); TF/s / txl hd128's %s (>= 0.9)" % (
                label, "%.2f" % (mine / tflops["sdpa-cudnn"]) if "sdpa-cudnn" in tflops else "n/a",
                "%.2f" % (mine / tflops["txl hd128"]) if "txl hd128" in tflops else "n/a"), flush=True)
    print("(x txl: this row's ms over txl 192/128's, above 1 where txl is faster; TF/s per row's own FLOPs)")
    del q, k, v, q128, k128
    torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="(2, 16, 4096, 128) instead of (4, 32, 8192, 128)")
    ap.add_argument("--only", help="comma-separated variant and/or implementation names")
    args = ap.parse_args()
    B, H, N, D = QUICK_SHAPE if args.quick else SHAPE
    variants = {
        "swa": Variant("swa", B, H, N, D, True, WINDOW, SINKS),
        "causal": Variant("causal", B, H, N, D, True),
        "varlen": Variant("varlen", B, H, N, D, True, varlen=True),
        "varlen-swa": Variant("varlen-swa", B, H, N, D, True, WINDOW, SINKS, varlen=True),
    }
    names = [s.strip() for s in (args.only or "").split(",") if s.strip()]
    unknown = [s for s in names if s not in variants and s not in IMPLS and s not in TABLES]
    if unknown:
        ap.error("--only: unknown %s; variants %s, implementations %s, tables %s" % (
            ", ".join(unknown), ", ".join(variants), ", ".join(IMPLS), ", ".join(TABLES)))
    tables = [s for s in TABLES if s in names]
    chosen = [s for s in variants if s in names] or ([] if tables else list(DEFAULT_VARIANTS))
    impls = [s for s in IMPLS if s in names] or list(IMPLS)
    if DEVICE == "cuda" and not torch.cuda.is_available():
        sys.exit("bench/variants.py: needs a CUDA GPU")
    torch.manual_seed(0)
    warmup, rep = (5, 25) if args.quick else (10, 60)
    print("%s; timer: %s; torch %s" % (torch.cuda.get_device_name() if DEVICE == "cuda" else DEVICE,
                                      "triton do_bench" if _triton_bench else "CUDA events", torch.__version__))
    if chosen:
        print(HEADER)
    for name in chosen:
        try:
            run_variant(variants[name], impls, warmup, rep)
        except Exception as e:  # a variant that cannot even build its inputs
            print("%-10s error: %s" % (name, _short(e)), flush=True)
            torch.cuda.empty_cache()
    if "sinks" in tables:
        run_sinks(B, H, N, warmup, rep)
    if "asym" in tables:
        run_asym(B, H, N, warmup, rep)


if __name__ == "__main__":
    main()
