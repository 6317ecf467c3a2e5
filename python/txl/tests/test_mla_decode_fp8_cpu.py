"""MLA decoding over an FP8 (e4m3) latent cache (txl.kernels.mla_decode_fp8, ``txl.ops.mla_decode(...,
kv_scale=)``) without a GPU:

* every configuration the op launches (pages 16 to 256, one split or several, causal or not, q bf16 or fp16)
  compiles through txlc and ptxas without spills, with what its speed rests on: 16-byte cp.async copies of the e4m3
  rows (its own ring), the e4m3 -> 16-bit conversion (cvt.rn.f16x2.e4m3x2), ldmatrix reads of q and the converted
  tile, mma.sync m16n8k16, shared memory that lets two programs share an SM;
* the argument checks (dtypes, kv_scale's dtype / shape / device, a scale with a 16-bit cache, a misaligned cache);
* the routing (every FP8 shape on the FP8 kernel, the mma.sync kernel's split rule);
* a float64 model of the kernel's arithmetic (tiles within pages, splits, rows past the end zero-filled, kv_scale
  folded into the softmax scale and the epilogue) + the combine, against the float32 reference of the dequantized
  cache; the reference's FP8 path against the reference on the dequantized cache.
GPU checks: tests/gpu/test_mla_decode_gpu.py -k fp8."""

import importlib
import json
import math
import os
import re
import shutil
import subprocess
import tempfile

import pytest

from txl.kernels import mla_decode_fp8 as kf

from .dsl_helpers import TXLC, compile_ptx, ir_of

mop = importlib.import_module("txl.ops.mla_decode")
PTXAS = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
SM_SMEM = 228 * 1024  # an H100 SM's shared memory: two programs of <= 113 KB (+ 1 KB reserved each) fit


def _compile(cx, dtype="bf16", sig=None):
    """(ptx, ptxas -v output or None, txlc's JSON sidecar)."""
    text = ir_of(kf.mla_decode_split_fp8, sig or kf.signature(dtype), cx, num_warps=4)
    ptx, _ = compile_ptx(text)
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "k.mlir")
        with open(src, "w") as f:
            f.write(text)
        r = subprocess.run([TXLC, src, "--emit=json", "-o", os.path.join(d, "k.json")], capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        with open(os.path.join(d, "k.json")) as f:
            side = json.load(f)
        stats = None
        if os.access(PTXAS, os.X_OK):
            path = os.path.join(d, "k.ptx")
            with open(path, "w") as f:
                f.write(ptx)
            r = subprocess.run([PTXAS, "-arch=sm_90a", "-v", "-o", os.devnull, path], capture_output=True,
                               text=True, timeout=120)
            assert r.returncode == 0, r.stderr
            stats = r.stderr
    return ptx, stats, side


@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
@pytest.mark.parametrize("page,splits,causal", [(16, 1, False), (16, 7, True), (32, 3, False), (64, 1, False),
                                                (64, 9, False), (64, 4, True), (128, 2, False), (256, 1, True)])
def test_fp8_kernel_compiles(page, splits, causal, dtype):
    if not os.access(TXLC, os.X_OK):
        pytest.skip("txlc not built")
    ptx, stats, side = _compile(kf.split_constexprs(page, splits, causal=causal), dtype)
    if stats is not None:
        spill = int(re.search(r"(\d+) bytes spill stores", stats).group(1))
        assert spill == 0, stats
    block_n = min(32, page)
    # e4m3 rows: 16-byte cp.async copies, zero-filled past the end (src-size operand), c and k_pe per tile.
    copies = re.findall(r"cp\.async\.cg\.shared\.global \[[^\]]+\], \[[^\]]+\], (\d+), %r\d+;", ptx)
    assert copies and set(copies) == {"16"}, copies
    per_tile = block_n * 512 // 16 // 128 + max(1, block_n * 64 // 16 // 128)  # a thread's copies of c, of k_pe
    assert len(copies) == kf.NUM_STAGES * per_tile, (len(copies), per_tile)  # prologue (stages - 1) + the loop's
    assert ptx.count("cp.async.wait_group") == 2  # the loop's and the drain
    assert ptx.count("cvt.rn.f16x2.e4m3x2") == block_n * 576 // 128 // 2  # the tile, once, 2 values each
    # q (16 x 576) and the converted tile both ways through ldmatrix; mma.sync with M = 16.
    assert ptx.count("ldmatrix.sync.aligned") >= 36 + block_n * 576 // (16 * 16 * 4), ptx.count("ldmatrix")
    assert "mma.sync.aligned.m16n8k16.row.col.f32.%s.%s.f32" % ((dtype.replace("fp", "f"),) * 2) in ptx
    ring = kf.NUM_STAGES * block_n * 576
    assert side["shared_bytes"] >= ring + block_n * 576 * 2 + 16 * 576 * 2
    assert 2 * (side["shared_bytes"] + 1024) <= SM_SMEM, side["shared_bytes"]
    assert side["threads"][0] == 128


def _fp8(torch, x):
    return x.to(torch.float8_e4m3fn)


def _tensors(torch, lens, page, heads, s_q=1, scale=0.05, seed=0):
    torch.manual_seed(seed)
    per = max(1, max(-(-n // page) for n in lens))
    pages = len(lens) * per + 2
    kv = _fp8(torch, torch.randn(pages, page, 576) * 8)
    bt = torch.randperm(pages)[:len(lens) * per].view(len(lens), per).to(torch.int32)
    for b, n in enumerate(lens):  # slots past each end: NaN (e4m3's 0x7f), never read
        flat = kv.view(torch.uint8)[bt[b].long()].reshape(-1, 576)
        flat[n:] = 0x7F
        kv.view(torch.uint8)[bt[b].long()] = flat.view(per, page, 576)
    seqlens = torch.tensor(lens, dtype=torch.int32)
    q = torch.randn(len(lens), s_q, heads, 576).to(torch.bfloat16)
    return q, kv, bt, seqlens, torch.tensor(scale, dtype=torch.float32)


def test_argument_checks_on_cpu():
    torch = pytest.importorskip("torch")
    if not hasattr(torch, "float8_e4m3fn"):
        pytest.skip("torch without float8_e4m3fn")
    q = torch.randn(2, 16, 576, dtype=torch.bfloat16)
    kv8 = _fp8(torch, torch.randn(4, 16, 576))
    kv16 = torch.randn(4, 16, 576, dtype=torch.bfloat16)
    one = torch.ones((), dtype=torch.float32)
    mop._check_dtypes(torch, q, kv8, None)  # no scale: 1.0
    mop._check_dtypes(torch, q, kv8, one)
    mop._check_dtypes(torch, q.half(), kv8, one.view(1))
    mop._check_dtypes(torch, q, kv16, None)
    with pytest.raises(ValueError, match="kv_scale is the dequantization scale of a torch.float8_e4m3fn"):
        mop._check_dtypes(torch, q, kv16, one)
    with pytest.raises(TypeError, match="kv_scale must be a torch.Tensor"):
        mop._check_dtypes(torch, q, kv8, 0.5)
    with pytest.raises(ValueError, match="kv_scale must be one float32 value"):
        mop._check_dtypes(torch, q, kv8, one.double())
    with pytest.raises(ValueError, match="kv_scale must be one float32 value"):
        mop._check_dtypes(torch, q, kv8, torch.ones(2))
    with pytest.raises(ValueError, match="kv_scale must be one float32 value"):
        mop._check_dtypes(torch, q, kv8, torch.ones(1, 1))
    with pytest.raises(ValueError, match="kv_scale is on meta"):
        mop._check_dtypes(torch, q, kv8, torch.ones((), device="meta"))
    with pytest.raises(TypeError, match="float8_e4m3fn"):
        mop._check_dtypes(torch, q, kv8.to(torch.float8_e5m2), None)  # e5m2: not supported
    with pytest.raises(TypeError, match="q must be torch.bfloat16 or torch.float16"):
        mop._check_dtypes(torch, q.float(), kv8, one)
    with pytest.raises(TypeError, match="q must be"):
        mop._check_dtypes(torch, q, kv16.half(), None)
    pool = _fp8(torch, torch.zeros(4 * 16 * 576 + 1))
    with pytest.raises(ValueError, match="16-byte aligned"):
        mop._check_dtypes(torch, q, pool[1:].view(4, 16, 576), one)
    # The public entry still refuses CPU tensors first (the kernels run on CUDA).
    with pytest.raises(ValueError, match="CUDA device"):
        mop.mla_decode(q, kv8, torch.zeros(2, 1, dtype=torch.int32), torch.ones(2, dtype=torch.int32),
                       kv_scale=one)


def test_routing_and_splits(monkeypatch):
    """FP8 takes the mma.sync kernel's split rule even where a bf16 cache would run the wgmma kernel."""
    monkeypatch.setattr(mop, "_sms", lambda device: 132)
    assert mop.uses_wgmma(128, 64, 1000)
    bf16 = mop.default_splits(32, 128, 8192, None, 1, 64, 1000)
    fp8 = mop.default_splits(32, 128, 8192, None, 1, 64, 1000, fp8=True)
    assert bf16 == mop.wgmma_splits(32 * 2, 8192, 132)
    # mma.sync rule: at most two full waves of two 16-row programs per SM, at most one split per 256 slots.
    assert fp8 == max(1, min(4 * 132 // (32 * 8), 8192 // 256, mop.MAX_SPLITS)) == 2
    assert mop.default_splits(64, 16, 4096, None, fp8=True) == mop.default_splits(64, 16, 4096, None)


def _model(q, kv8, bt, seqlens, scale, kv_scale, splits, causal, block_n):
    """float64 model of mla_decode_split_fp8 + mla_decode_combine: tiles of block_n keys within one page, the
    split ranges, rows past a split's end zero-filled (never read), the raw e4m3 values in the dots, kv_scale in
    the softmax scale and in the epilogue."""
    import torch

    B, S_Q, H, _ = q.shape
    rows = S_Q * H
    page = kv8.shape[1]
    raw = kv8.view(torch.uint8)
    q2 = q.reshape(B, rows, 576).double()
    ks = float(kv_scale)
    qk_scale = scale * ks * 1.44269504
    part_o = torch.zeros(B, rows, splits, 512, dtype=torch.float64)
    part_lse = torch.zeros(B, rows, splits, dtype=torch.float64)
    r = torch.arange(rows)
    for b in range(B):
        seqlen = int(seqlens[b])
        per_split = -(-(-(-seqlen // splits)) // block_n) * block_n
        for split in range(splits):
            start = split * per_split
            end = min(start + per_split, seqlen)
            m = torch.full((rows,), -math.inf, dtype=torch.float64)
            ll = torch.zeros(rows, dtype=torch.float64)
            acc = torch.zeros(rows, 512, dtype=torch.float64)
            for n0 in range(start, end, block_n):
                pg = int(bt[b, n0 // page])
                t8 = raw[pg, n0 % page:n0 % page + block_n].clone()
                pos = n0 + torch.arange(block_n)
                t8[pos >= end] = 0  # cp.async's zero fill
                kt = t8.view(torch.float8_e4m3fn).double()  # the converted tile: raw e4m3 values
                s = q2[b] @ kt.T
                keep = (pos < end)[None, :].expand(rows, block_n)
                if causal:
                    keep = keep & (pos[None, :] <= (seqlen - S_Q + r // H)[:, None])
                s = torch.where(keep, s * qk_scale, torch.tensor(-math.inf, dtype=torch.float64))
                m_new = torch.maximum(m, s.max(1).values)
                m_sub = torch.where(m_new == -math.inf, 0.0, m_new) if causal else m_new
                p = torch.exp2(s - m_sub[:, None])
                alpha = torch.exp2(m - m_sub)
                ll = ll * alpha + p.sum(1)
                acc = acc * alpha[:, None] + p @ kt[:, :512]
                m = m_new
            seen = ll > 0
            part_o[b, :, split] = acc * (ks / torch.where(seen, ll, 1.0))[:, None]
            part_lse[b, :, split] = torch.where(seen, m + torch.log2(torch.where(seen, ll, 1.0)), -math.inf)
    mx = part_lse.max(-1).values
    m_use = torch.where(mx == -math.inf, 0.0, mx)
    w = torch.exp2(part_lse - m_use[..., None])
    total = w.sum(-1)
    o = (part_o * w[..., None]).sum(-2) / torch.where(total > 0, total, 1.0)[..., None]
    lse2 = torch.where(total > 0, m_use + torch.log2(torch.where(total > 0, total, 1.0)), math.inf)
    return o.view(B, S_Q, H, 512), lse2.view(B, S_Q, H)


@pytest.mark.parametrize("s_q,heads,page,splits,causal", [(1, 16, 16, 1, False), (1, 16, 64, 3, False),
                                                          (2, 16, 64, 2, True), (2, 8, 16, 4, True),
                                                          (1, 20, 128, 2, False)])
def test_fp8_model_matches_reference(s_q, heads, page, splits, causal):
    """The FP8 kernel's arithmetic (_model) against the float32 reference of the dequantized cache (NaN in every
    slot past each end: e4m3 0x7f), lengths 0 / 1 / 130 / 777 / 64, shuffled pages."""
    torch = pytest.importorskip("torch")
    if not hasattr(torch, "float8_e4m3fn"):
        pytest.skip("torch without float8_e4m3fn")
    lens = [0, 1, 130, 777, 64]
    q, kv8, bt, seqlens, ks = _tensors(torch, lens, page, heads, s_q, scale=0.037, seed=s_q * 100 + page + splits)
    scale = 192 ** -0.5
    o, lse2 = _model(q.float(), kv8, bt, seqlens, scale, ks, splits, causal, min(32, page))
    ro, rlse = mop.mla_reference(q.float(), kv8, bt, seqlens, sm_scale=scale, causal=causal, kv_scale=ks)
    assert torch.isfinite(o).all()
    torch.testing.assert_close(o.float(), ro, rtol=1e-4, atol=1e-4)
    live = torch.isfinite(rlse)
    assert torch.equal(torch.isinf(lse2), ~live)
    torch.testing.assert_close((lse2 * math.log(2.0)).float()[live], rlse[live], rtol=1e-4, atol=1e-4)


def test_reference_dequantizes():
    """mla_reference on an FP8 cache (kv_scale given, or 1.0) equals mla_reference on the dequantized float32
    cache."""
    torch = pytest.importorskip("torch")
    if not hasattr(torch, "float8_e4m3fn"):
        pytest.skip("torch without float8_e4m3fn")
    lens = [5, 70, 0]
    q, kv8, bt, seqlens, ks = _tensors(torch, lens, 16, 4, 2, scale=0.25)
    deq = kv8.float() * 0.25
    deq[torch.isnan(deq)] = 0  # the NaN slots lie past every end
    for causal in (False, True):
        a = mop.mla_reference(q.float(), kv8, bt, seqlens, causal=causal, kv_scale=ks)
        b = mop.mla_reference(q.float(), deq, bt, seqlens, causal=causal)
        torch.testing.assert_close(a[0], b[0])
        torch.testing.assert_close(a[1], b[1])
    a = mop.mla_reference(q.float(), kv8, bt, seqlens)
    b = mop.mla_reference(q.float(), deq / 0.25, bt, seqlens)
    torch.testing.assert_close(a[0], b[0])
