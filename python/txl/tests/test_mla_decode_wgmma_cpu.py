"""MLA decoding's compute-bound kernel (txl.kernels.mla_decode_wgmma) and the op's routing, without a GPU:

* every configuration the op launches (page sizes 64/128/256, one split (O and LSE written directly) or several
  (partials for the combine), causal or not, bf16/fp16) compiles through txlc and ptxas to SASS without spills
  and without serialized wgmma (ptxas C7512/C7513 warnings), with the GEMMs of FlashMLA's split: 36 m64n64k16
  steps of S = Q K^T over the 576 latent columns and 4 m64n256k16 steps of P V per consumer, TMA copies,
  setmaxnreg, and shared memory within the H100's 227 KB;
* the mma.sync kernel's causal variant (several query tokens) compiles without spills;
* which kernel the op picks (uses_wgmma) and the wgmma kernel's split counts (wgmma_splits);
* the float32 reference's causal rule against the mask written out (CPU tensors).
GPU checks: tests/gpu/test_mla_decode_gpu.py."""

import json
import math
import os
import re
import subprocess
import tempfile

import pytest

from txl.kernels import mla_decode as km
from txl.kernels import mla_decode_wgmma as kw
from txl.ops import mla_decode as _mla_fn  # noqa: F401  (txl.ops.mla_decode is also the function)

from .dsl_helpers import TXLC, compile_ptx, ir_of
from .test_nsa_mla_cpu import _compile as _compile_split

mop = __import__("importlib").import_module("txl.ops.mla_decode")

H100_SMEM = 227 * 1024


def _sidecar(text):
    """txlc's JSON sidecar of the module (threads, shared bytes, TMA boxes)."""
    if not os.access(TXLC, os.X_OK):
        pytest.skip("txlc not built")
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "k.mlir")
        with open(src, "w") as f:
            f.write(text)
        out = os.path.join(d, "k.json")
        r = subprocess.run([TXLC, src, "--emit=json", "-o", out], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        with open(out) as f:
            return json.load(f)


@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
@pytest.mark.parametrize("page,splits,causal", [(64, 1, False), (64, 5, False), (64, 1, True), (64, 3, True),
                                                (128, 2, False), (256, 1, False)])
def test_wgmma_kernel_compiles(page, splits, causal, dtype):
    text = ir_of(kw.mla_decode_wgmma, kw.signature(dtype), kw.constexprs(page, splits, causal), **kw.OPTIONS)
    ptx, err = compile_ptx(text, emit="cubin")
    assert "spill" not in err.lower(), err
    assert not re.search(r"C751[23]", err), err  # wgmma serialized by ptxas
    shapes = re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m\d+n\d+k\d+)", ptx)
    # S = Q K^T: 576 / 16 K steps, in WG1's peeled first tile and in its loop; P V: 64 / 16 K steps each in WG1's
    # loop, WG1's last tile and WG2's loop.
    assert shapes.count("m64n64k16") == 2 * 36, shapes
    assert shapes.count("m64n256k16") == 3 * 4, shapes
    assert len(shapes) == 84, shapes
    assert "cp.async.bulk.tensor" in ptx and "setmaxnreg.inc" in ptx and "setmaxnreg.dec" in ptx
    side = _sidecar(text)
    assert side["threads"][0] == 384
    assert side["shared_bytes"] <= H100_SMEM, side["shared_bytes"]
    # Q and the cache tiles move as 64 x 64 boxes (128-byte swizzle) of the 576-column rows.
    assert [p["block_shape"] for p in side["params"][:2]] == [[64, 64], [64, 64]]


@pytest.mark.parametrize("page,splits,causal,dtype", [(64, 1, False, "bf16"), (64, 4, False, "bf16"),
                                                      (64, 1, True, "bf16"), (64, 3, True, "fp16"),
                                                      (256, 2, False, "bf16")])
def test_seesaw_kernel_compiles(page, splits, causal, dtype):
    """The seesaw variant (mla_decode.SCHEDULE = "seesaw"): no spills (its stage and Q indices vary per pair, so
    LLVM cannot hoist the wgmma descriptors), each consumer's S (36 m64n64k16) and two P V halves (4 m64n256k16
    each), shared memory within the H100's."""
    from txl.kernels import mla_decode_seesaw as ks

    text = ir_of(ks.mla_decode_seesaw, kw.signature(dtype), kw.constexprs(page, splits, causal), **kw.OPTIONS)
    ptx, err = compile_ptx(text, emit="cubin")
    assert "spill" not in err.lower(), err
    assert not re.search(r"C751[23]", err), err
    shapes = re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m\d+n\d+k\d+)", ptx)
    assert shapes.count("m64n64k16") == 2 * 36 and shapes.count("m64n256k16") == 4 * 4, shapes
    side = _sidecar(text)
    assert side["threads"][0] == 384 and side["shared_bytes"] <= H100_SMEM, side


def test_wgmma_one_split_writes_o_directly():
    """With one split the kernel stores O in q's dtype and LSE itself (no partials, no combine)."""
    one = compile_ptx(ir_of(kw.mla_decode_wgmma, kw.signature(), kw.constexprs(64, 1), **kw.OPTIONS))[0]
    many = compile_ptx(ir_of(kw.mla_decode_wgmma, kw.signature(), kw.constexprs(64, 4), **kw.OPTIONS))[0]
    assert "st.global.b16" in one or "st.global.v2.b16" in one or re.search(r"st\.global(\.v\d)?\.b32", one)
    assert one != many


@pytest.mark.parametrize("page", [16, 64])
def test_split_kernel_causal(page):
    ptx, regs, spill = _compile_split(km.mla_decode_split, km.split_constexprs(page, 4, causal=True), num_warps=4)
    assert "mma.sync.aligned.m16n8k16" in ptx
    assert spill in (None, 0), spill


def test_routing():
    assert mop.uses_wgmma(128, 64, 1000) and mop.uses_wgmma(64, 128, 10)
    assert mop.uses_wgmma(17, 64, 1000)  # from 17 rows on: the padded wgmma tile reads the cache once
    assert not mop.uses_wgmma(16, 64, 1000)  # one mma.sync program's 16 rows: mma.sync
    assert not mop.uses_wgmma(128, 16, 1000) and not mop.uses_wgmma(128, 32, 1000)  # tiles span pages
    assert not mop.uses_wgmma(128, 64, 2 ** 31 // 64)  # past TMA's int32 coordinates
    # 2 tokens x 16 heads = 32 rows: wgmma (padded); 1 x 16: mma.sync.
    assert mop.uses_wgmma(2 * 16, 64, 100) and not mop.uses_wgmma(1 * 16, 64, 100)


def test_wgmma_splits():
    # 132 sequences x 2 head blocks = 264 CTAs: two full waves on 132 SMs without splitting.
    assert mop.wgmma_splits(264, 4096, 132) == 1
    # 32 x 2 = 64 CTAs over 8192 keys: two splits make one wave of 128.
    assert mop.wgmma_splits(64, 8192, 132) == 2
    # One sequence: spread over the SMs, never more splits than tiles or MAX_SPLITS.
    assert mop.wgmma_splits(1, 64 * 3, 132) == 3
    assert mop.wgmma_splits(1, 1 << 20, 132) <= mop.MAX_SPLITS
    assert mop.wgmma_splits(2, 1, 132) == 1


def test_reference_causal_rule():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    B, S_Q, H, page = 3, 3, 2, 16
    lens = [1, 2, 40]
    kv = torch.randn(10, page, 576)
    bt = torch.randperm(10)[:9].view(3, 3).to(torch.int32)
    seqlens = torch.tensor(lens, dtype=torch.int32)
    q = torch.randn(B, S_Q, H, 576)
    o, lse = mop.mla_reference(q, kv, bt, seqlens, sm_scale=0.1, causal=True)
    for b in range(B):
        rows = kv[bt[b].long()].reshape(-1, 576)[:lens[b]]
        for t in range(S_Q):
            last = lens[b] - S_Q + t  # the last key token t sees
            s = q[b, t] @ rows.T * 0.1
            s[:, torch.arange(lens[b]) > last] = -math.inf
            if last < 0:
                assert torch.equal(o[b, t], torch.zeros_like(o[b, t])) and (lse[b, t] == math.inf).all()
                continue
            torch.testing.assert_close(o[b, t], torch.softmax(s, -1) @ rows[:, :512], rtol=1e-5, atol=1e-5)
            torch.testing.assert_close(lse[b, t], torch.logsumexp(s, -1), rtol=1e-5, atol=1e-5)
    # Not causal: every token sees the whole cache; a 3-D q is one token.
    o3, lse3 = mop.mla_reference(q[:, 0], kv, bt, seqlens, sm_scale=0.1)
    o4, lse4 = mop.mla_reference(q, kv, bt, seqlens, sm_scale=0.1)
    assert o3.shape == (B, H, 512) and lse3.shape == (B, H)
    torch.testing.assert_close(o3, o4[:, 0])
    torch.testing.assert_close(lse3, lse4[:, 0])


def _model(q, kv, bt, seqlens, scale, splits, causal):
    """float64 model of mla_decode_wgmma + mla_decode_combine, tile by tile as the kernels compute (split ranges,
    the 64-key tiles a page lookup each, the masks and their conditions, the tail zeroing, WG1's alpha carried to
    WG2's columns, the partials and their base-2 LSE): o (B, S_Q, H, 512), lse2 (B, S_Q, H)."""
    import torch

    B, S_Q, H, _ = q.shape
    rows = S_Q * H
    page = kv.shape[1]
    q2 = q.reshape(B, rows, 576).double()
    qk_scale = scale * 1.44269504
    part_o = torch.zeros(B, rows, splits, 512, dtype=torch.float64)
    part_lse = torch.zeros(B, rows, splits, dtype=torch.float64)
    for b in range(B):
        seqlen = int(seqlens[b])
        per_split = -(-(-(-seqlen // splits)) // 64) * 64
        for split in range(splits):
            start = split * per_split
            end = min(start + per_split, seqlen)
            n_tiles = -(-max(end - start, 0) // 64)
            for mb in range(-(-rows // 64)):
                r = torch.arange(mb * 64, mb * 64 + 64)
                qb = torch.zeros(64, 576, dtype=torch.float64)
                qb[:min(64, rows - mb * 64)] = q2[b, mb * 64:(mb + 1) * 64]
                m = torch.full((64,), -math.inf, dtype=torch.float64)
                ll = torch.zeros(64, dtype=torch.float64)
                acc = torch.zeros(64, 512, dtype=torch.float64)
                for j in range(n_tiles):
                    n0 = start + j * 64
                    pg = int(bt[b, n0 // page])
                    kt = kv[pg, n0 % page:n0 % page + 64].double().clone()
                    if n0 + 64 > seqlen:  # WG2's _zero_tail: V columns of keys past the end
                        kt[seqlen - n0:, :512] = 0
                    qk = qb @ kt.T
                    need = n0 + 64 > end or (causal and n0 + 64 + S_Q - 1 > seqlen)
                    if need:
                        keys = n0 + torch.arange(64)
                        if causal:
                            last = seqlen - S_Q + r // H
                            keep = (keys[None, :] < end) & (keys[None, :] <= last[:, None])
                        else:
                            keep = (keys < end)[None, :].expand(64, 64)
                        qk = torch.where(keep, qk, torch.tensor(-math.inf, dtype=torch.float64))
                    m_new = torch.maximum(m, qk.max(1).values * qk_scale)
                    m_sub = torch.where(m_new == -math.inf, 0.0, m_new) if causal else m_new
                    p = torch.exp2(qk * qk_scale - m_sub[:, None])
                    alpha = torch.exp2(m - m_sub)
                    ll = ll * alpha + p.sum(1)
                    m = m_new
                    acc = acc * alpha[:, None] + p @ kt[:, :512]
                seen = ll > 0
                out = acc * torch.where(seen, 1 / torch.where(seen, ll, 1.0), 0.0)[:, None]
                lse = torch.where(seen, m + torch.log2(torch.where(seen, ll, 1.0)), -math.inf)
                n = min(64, rows - mb * 64)
                part_o[b, mb * 64:mb * 64 + n, split] = out[:n]
                part_lse[b, mb * 64:mb * 64 + n, split] = lse[:n]
    # mla_decode_combine
    mx = part_lse.max(-1).values
    m_use = torch.where(mx == -math.inf, 0.0, mx)
    w = torch.exp2(part_lse - m_use[..., None])
    total = w.sum(-1)
    o = (part_o * w[..., None]).sum(-2) / torch.where(total > 0, total, 1.0)[..., None]
    lse2 = torch.where(total > 0, m_use + torch.log2(torch.where(total > 0, total, 1.0)), math.inf)
    return o.view(B, S_Q, H, 512), lse2.view(B, S_Q, H)


@pytest.mark.parametrize("s_q,heads,page,splits,causal", [(1, 64, 64, 1, False), (1, 128, 64, 3, False),
                                                          (2, 64, 128, 2, True), (2, 40, 64, 4, True),
                                                          (1, 96, 64, 2, False)])
def test_kernel_model_matches_reference(s_q, heads, page, splits, causal):
    """The wgmma kernel's algorithm (as _model computes it) against the float32 reference on caches whose slots
    past each sequence's end hold NaN: lengths 0 / 1 / 777 / 3001-like (kept short for the CPU), shuffled pages."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(s_q * 1000 + heads + page + splits)
    lens = [0, 1, 130, 777, 64]
    per = max(-(-n // page) for n in lens)
    pages = len(lens) * per + 2
    kv = torch.randn(pages, page, 576)
    bt = torch.randperm(pages)[:len(lens) * per].view(len(lens), per).to(torch.int32)
    for b, n in enumerate(lens):  # every cache slot past the sequence's end is NaN (never written)
        flat = kv[bt[b].long()].reshape(-1, 576)
        flat[n:] = float("nan")
        kv[bt[b].long()] = flat.view(per, page, 576)
    seqlens = torch.tensor(lens, dtype=torch.int32)
    q = torch.randn(len(lens), s_q, heads, 576)
    scale = 576 ** -0.5
    o, lse2 = _model(q, kv, bt, seqlens, scale, splits, causal)
    ro, rlse = mop.mla_reference(q, kv, bt, seqlens, sm_scale=scale, causal=causal)
    assert torch.isfinite(o).all()
    torch.testing.assert_close(o.float(), ro, rtol=1e-4, atol=1e-4)
    live = torch.isfinite(rlse)
    assert torch.equal(torch.isinf(lse2), ~live)
    torch.testing.assert_close((lse2 * math.log(2.0)).float()[live], rlse[live], rtol=1e-4, atol=1e-4)


def test_op_wiring_on_cpu(monkeypatch):
    """mla_decode's host side on CPU tensors with the kernels replaced by _model (the device check and the SM
    count bypassed): 3-D and 4-D q, the lse's shapes and natural-log units, causal passed through."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(1)
    monkeypatch.setattr(mop, "_check", lambda *a: None)

    def fake_op(q, kv, bt, seqlens, sm_scale, num_splits, causal, kv_scale=None):
        assert q.dim() == 4 and kv.dim() == 3 and isinstance(causal, bool) and kv_scale is None
        o, lse2 = _model(q.float(), kv.float(), bt, seqlens, sm_scale, num_splits, causal)
        return o.to(q.dtype), lse2.float()

    monkeypatch.setattr(mop, "_custom_op", lambda: fake_op)
    lens = [5, 70, 0]
    kv = torch.randn(6, 64, 576)
    bt = torch.tensor([[0, 1], [2, 3], [4, 5]], dtype=torch.int32)
    seqlens = torch.tensor(lens, dtype=torch.int32)
    q3 = torch.randn(3, 64, 576)
    o, lse = mop.mla_decode(q3, kv, bt, seqlens, num_splits=2, return_lse=True)
    ro, rlse = mop.mla_reference(q3, kv, bt, seqlens)
    assert o.shape == (3, 64, 512) and lse.shape == (3, 64)
    torch.testing.assert_close(o, ro, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(lse, rlse)
    q4 = torch.randn(3, 2, 32, 576)
    o, lse = mop.mla_decode(q4, kv.unsqueeze(2), bt, seqlens, num_splits=1, return_lse=True, causal=True)
    ro, rlse = mop.mla_reference(q4, kv, bt, seqlens, causal=True)
    assert o.shape == (3, 2, 32, 512) and lse.shape == (3, 2, 32)
    torch.testing.assert_close(o, ro, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(lse, rlse)
    o1, lse1 = mop.mla_decode(q4[:, :1], kv, bt, seqlens, num_splits=3, return_lse=True)
    assert o1.shape == (3, 1, 32, 512) and lse1.shape == (3, 32)  # one token: (B, H), as before S_Q existed


def _model_seesaw(q, kv, bt, seqlens, scale, splits, causal):
    """float64 model of mla_decode_seesaw's pairs (the max chain through bM, P_e rescaled to WG2's max, each
    warpgroup's own l, an odd last tile's wholly masked stand-in) + the combine, as _model."""
    import torch

    B, S_Q, H, _ = q.shape
    rows = S_Q * H
    page = kv.shape[1]
    q2 = q.reshape(B, rows, 576).double()
    qk_scale = scale * 1.44269504
    ninf = torch.tensor(-math.inf, dtype=torch.float64)
    part_o = torch.zeros(B, rows, splits, 512, dtype=torch.float64)
    part_lse = torch.zeros(B, rows, splits, dtype=torch.float64)

    def fin(m):
        return torch.where(m == -math.inf, 0.0, m) if causal else m

    for b in range(B):
        seqlen = int(seqlens[b])
        per_split = -(-(-(-seqlen // splits)) // 64) * 64
        for split in range(splits):
            start = split * per_split
            end = min(start + per_split, seqlen)
            n_tiles = -(-max(end - start, 0) // 64)
            for mb in range(-(-rows // 64)):
                r = torch.arange(mb * 64, mb * 64 + 64)
                qb = torch.zeros(64, 576, dtype=torch.float64)
                qb[:min(64, rows - mb * 64)] = q2[b, mb * 64:(mb + 1) * 64]

                def tile(n0):
                    if n0 >= end:  # the stand-in for a missing o: finite, wholly masked
                        return torch.zeros(64, 576, dtype=torch.float64)
                    t = kv[int(bt[b, n0 // page]), n0 % page:n0 % page + 64].double().clone()
                    if n0 + 64 > seqlen:
                        t[seqlen - n0:, :512] = 0
                    return t

                def scores(kt, n0):
                    qk = qb @ kt.T
                    if n0 + 64 > end or (causal and n0 + 64 + S_Q - 1 > seqlen):
                        keys = n0 + torch.arange(64)
                        keep = (keys < end)[None, :].expand(64, 64)
                        if causal:
                            keep = keep & (keys[None, :] <= (seqlen - S_Q + r // H)[:, None])
                        qk = torch.where(keep, qk, ninf)
                    return qk, qk.max(1).values * qk_scale

                m_run = torch.full((64,), -math.inf, dtype=torch.float64)
                l1 = torch.zeros(64, dtype=torch.float64)
                l2 = torch.zeros(64, dtype=torch.float64)
                acc_l = torch.zeros(64, 256, dtype=torch.float64)
                acc_r = torch.zeros(64, 256, dtype=torch.float64)
                for i in range(-(-n_tiles // 2)):
                    e0 = start + 2 * i * 64
                    ke, ko = tile(e0), tile(e0 + 64)
                    qk_e, mx_e = scores(ke, e0)  # WG1
                    m_e = torch.maximum(m_run, mx_e)
                    p_e = torch.exp2(qk_e * qk_scale - fin(m_e)[:, None])
                    alpha = torch.exp2(m_run - fin(m_e))
                    l1 = l1 * alpha + p_e.sum(1)
                    acc_l = acc_l * alpha[:, None] + p_e @ ke[:, :256]
                    qk_o, mx_o = scores(ko, e0 + 64)  # WG2
                    m_o = torch.maximum(m_e, mx_o)
                    alpha2 = torch.exp2(m_run - fin(m_o))
                    p_o = torch.exp2(qk_o * qk_scale - fin(m_o)[:, None])
                    l2 = l2 * alpha2 + p_o.sum(1)
                    beta = torch.exp2(m_e - fin(m_o))
                    acc_r = acc_r * alpha2[:, None] + p_o @ ko[:, 256:512] + (p_e * beta[:, None]) @ ke[:, 256:512]
                    acc_l = acc_l * beta[:, None] + p_o @ ko[:, :256]
                    l1 = l1 * beta
                    m_run = m_o
                ll = l1 + l2
                acc = torch.cat([acc_l, acc_r], 1)
                seen = ll > 0
                out = acc * torch.where(seen, 1 / torch.where(seen, ll, 1.0), 0.0)[:, None]
                lse = torch.where(seen, m_run + torch.log2(torch.where(seen, ll, 1.0)), -math.inf)
                n = min(64, rows - mb * 64)
                part_o[b, mb * 64:mb * 64 + n, split] = out[:n]
                part_lse[b, mb * 64:mb * 64 + n, split] = lse[:n]
    mx = part_lse.max(-1).values
    m_use = torch.where(mx == -math.inf, 0.0, mx)
    w = torch.exp2(part_lse - m_use[..., None])
    total = w.sum(-1)
    o = (part_o * w[..., None]).sum(-2) / torch.where(total > 0, total, 1.0)[..., None]
    lse2 = torch.where(total > 0, m_use + torch.log2(torch.where(total > 0, total, 1.0)), math.inf)
    return o.view(B, S_Q, H, 512), lse2.view(B, S_Q, H)


@pytest.mark.parametrize("s_q,heads,page,splits,causal", [(1, 64, 64, 1, False), (1, 128, 64, 3, False),
                                                          (2, 64, 128, 2, True), (2, 40, 64, 4, True)])
def test_seesaw_model_matches_reference(s_q, heads, page, splits, causal):
    """mla_decode_seesaw's algorithm (_model_seesaw) against the float32 reference, as
    test_kernel_model_matches_reference (odd and even tile counts per split, NaN past every end)."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(s_q * 1000 + heads + page + splits + 7)
    lens = [0, 1, 130, 777, 64, 200]
    per = max(-(-n // page) for n in lens)
    pages = len(lens) * per + 2
    kv = torch.randn(pages, page, 576)
    bt = torch.randperm(pages)[:len(lens) * per].view(len(lens), per).to(torch.int32)
    for b, n in enumerate(lens):
        flat = kv[bt[b].long()].reshape(-1, 576)
        flat[n:] = float("nan")
        kv[bt[b].long()] = flat.view(per, page, 576)
    seqlens = torch.tensor(lens, dtype=torch.int32)
    q = torch.randn(len(lens), s_q, heads, 576)
    o, lse2 = _model_seesaw(q, kv, bt, seqlens, 576 ** -0.5, splits, causal)
    ro, rlse = mop.mla_reference(q, kv, bt, seqlens, sm_scale=576 ** -0.5, causal=causal)
    assert torch.isfinite(o).all()
    torch.testing.assert_close(o.float(), ro, rtol=1e-4, atol=1e-4)
    live = torch.isfinite(rlse)
    assert torch.equal(torch.isinf(lse2), ~live)
    torch.testing.assert_close((lse2 * math.log(2.0)).float()[live], rlse[live], rtol=1e-4, atol=1e-4)
