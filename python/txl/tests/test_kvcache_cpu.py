"""KV-cache decoding (txl.kernels.kvcache_decode, txl.ops.flash_attention_with_kvcache) without a GPU: every kernel
configuration the GPU tests and bench/kvcache.py launch compiles to PTX through the real txlc and ptxas, with the
properties the speed rests on (the cache tiles are cp.async rings, no spills); the row-block and split rules; the
op's argument errors that need no CUDA tensor. GPU checks: tests/gpu/test_kvcache_gpu.py."""

import inspect
import os
import re
import shutil
import subprocess
import tempfile

import pytest

from txl.kernels import kvcache_decode as kk

from .dsl_helpers import compile_ptx, ir_of

PTXAS = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
PTR = {"Q": "*bf16:16", "K": "*bf16:16", "V": "*bf16:16", "O": "*bf16:16", "BT": "*i32:16", "SEQLENS": "*i32:16",
       "LSE": "*fp32:16", "PART_O": "*fp32:16", "PART_LSE": "*fp32:16"}


def _sig(fn, cx, elt="bf16"):
    """The signature a launch specialises: pointers 16-byte aligned, the caches' strides divisible by 16 (any
    head dim >= 16 of contiguous or sliced caches), other ints unknown."""
    sig = {}
    for name in inspect.signature(fn.fn).parameters:
        if name in cx:
            continue
        if name in PTR:
            sig[name] = PTR[name].replace("bf16", elt)
        elif name == "sm_scale":
            sig[name] = "fp32"
        else:
            sig[name] = "i32:16" if re.fullmatch(r"s[kv]_(page|tok|head)", name) else "i32"
    return sig


def _compile(fn, cx, elt="bf16"):
    """(ptx, registers, spill bytes); ptxas statistics only where ptxas is installed (else None)."""
    ptx, _ = compile_ptx(ir_of(fn, _sig(fn, cx, elt), cx, num_warps=4))
    if not os.access(PTXAS, os.X_OK):
        return ptx, None, None
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "k.ptx")
        with open(path, "w") as f:
            f.write(ptx)
        r = subprocess.run([PTXAS, "-arch=sm_90a", "-v", "-o", os.devnull, path], capture_output=True, text=True,
                           timeout=120)
    assert r.returncode == 0, r.stderr
    regs = int(re.search(r"Used (\d+) registers", r.stderr).group(1))
    spill = int(re.search(r"(\d+) bytes spill stores", r.stderr).group(1))
    return ptx, regs, spill


# (head dim, GQA group, S_Q, page, splits, causal): the configurations of test_kvcache_gpu.py and bench/kvcache.py
# (splits: 1 writes O itself, > 1 the partials; the value itself only changes a constant).
GPU_TEST = [(128, 1, 1, 16, 2, False), (128, 4, 1, 64, 2, False), (128, 8, 1, 256, 2, False),
            (128, 16, 1, 64, 7, False), (128, 1, 4, 64, 2, True), (128, 4, 2, 16, 3, True),
            (128, 8, 4, 64, 2, True), (128, 16, 8, 256, 2, True), (128, 8, 8, 16, 1, True),
            (128, 16, 2, 64, 2, False), (128, 4, 8, 256, 5, True), (128, 1, 8, 16, 2, True),
            (128, 8, 3, 64, 2, True), (128, 8, 5, 64, 2, True), (128, 8, 6, 64, 2, True), (128, 8, 7, 64, 2, True),
            (64, 4, 1, 64, 2, False), (64, 16, 8, 64, 2, True), (256, 8, 1, 64, 2, False), (256, 4, 4, 64, 2, True),
            (64, 4, 2, 16, 2, True), (128, 8, 3, 1024, 2, True), (128, 8, 3, 1024, 2, False), (128, 4, 1, 16, 2, False),
            (64, 4, 1, 16, 2, False), (128, 8, 2, 64, 1, False), (128, 8, 2, 64, 13, False)]
BENCH = [(128, 4, 1, 64, 2, False), (128, 4, 1, 16, 2, False), (128, 8, 1, 256, 2, False),
         (128, 4, 4, 64, 2, True), (128, 16, 8, 64, 2, True), (128, 1, 1, 64, 2, False),
         (128, 16, 1, 64, 2, False), (64, 4, 1, 64, 2, False)]
CONFIGS = sorted(set(GPU_TEST + BENCH))


@pytest.mark.parametrize("d,group,s_q,page,splits,causal", CONFIGS,
                         ids=["d%d-g%d-sq%d-p%d-s%d%s" % (d, g, s, p, n, "-causal" if c else "")
                              for d, g, s, p, n, c in CONFIGS])
def test_split_kernel_compiles(d, group, s_q, page, splits, causal):
    cx = kk.split_constexprs(d, group, s_q, page, splits, causal)
    ptx, regs, spill = _compile(kk.kvcache_decode_split, cx)
    assert "cp.async.cg.shared.global" in ptx  # K and V tiles: rings filled ahead
    # 64-row blocks are one wgmma M step; 16 rows run on mma.sync.
    assert ("wgmma.mma_async" if cx["BLOCK_M"] == 64 else "mma.sync.aligned.m16n8k16") in ptx
    assert spill in (None, 0), spill


@pytest.mark.parametrize("d,group,s_q,page", [(128, 4, 1, 16), (128, 8, 8, 64), (64, 16, 8, 64)])
def test_fp16_split_kernel_compiles(d, group, s_q, page):
    for splits in (1, 3):
        ptx, _, spill = _compile(kk.kvcache_decode_split, kk.split_constexprs(d, group, s_q, page, splits, True),
                                 "fp16")
        assert "cp.async.cg.shared.global" in ptx and ".f16" in ptx and spill in (None, 0)


@pytest.mark.parametrize("d,splits", [(64, 2), (128, 7), (128, 64), (256, 13)])
def test_combine_kernel_compiles(d, splits):
    ptx, _, spill = _compile(kk.kvcache_decode_combine, dict(D=d, NUM_SPLITS=splits,
                                                             SPLITS_P=kk.next_power_of_2(splits)))
    assert "ex2.approx" in ptx and spill in (None, 0)


def test_row_blocks():
    assert kk.row_block(1, 1) == (16, 1)  # MHA decoding: one row padded to mma.sync's 16
    assert kk.row_block(8, 1) == (16, 1)
    assert kk.row_block(8, 3) == (64, 1)
    assert kk.row_block(8, 8) == (64, 1)  # one wgmma M step
    assert kk.row_block(16, 8) == (64, 2)
    assert kk.row_block(16, 5) == (64, 2)
    cx = kk.split_constexprs(256, 8, 1, 16, 3, True)
    assert cx["BLOCK_N"] == 32 and not cx["CAUSAL"]  # one token: causal changes nothing
    assert kk.split_constexprs(128, 8, 1, 16, 3, False)["BLOCK_N"] == 64


@pytest.mark.parametrize("d", [64, 128])
def test_small_pages_take_whole_tiles(d):
    """A 16-key page's tile spans four pages and is still one ring of 64-key copies issued ahead: as many 16-byte
    cp.async as the 64-key page's (the table's four scalar loads are pipelined with it)."""
    counts = []
    for page in (16, 64):
        ptx, _, spill = _compile(kk.kvcache_decode_split, kk.split_constexprs(d, 4, 1, page, 2, False))
        counts.append(ptx.count("cp.async.cg.shared.global"))
        assert spill in (None, 0)
    assert counts[0] == counts[1] > 0, counts


def test_argument_errors_without_cuda():
    torch = pytest.importorskip("torch")
    from txl.ops import flash_attention_with_kvcache as f

    q = torch.zeros(1, 1, 8, 64, dtype=torch.bfloat16)
    kc = torch.zeros(4, 16, 2, 64, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="one CUDA device"):
        f(q, kc, kc, block_table=torch.zeros(1, 4, dtype=torch.int32))
    with pytest.raises(TypeError, match="k_cache must be a torch.Tensor"):
        f(q, None, kc)
