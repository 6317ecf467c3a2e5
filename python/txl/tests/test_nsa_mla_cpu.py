"""NSA selection attention (txl.kernels.nsa) and MLA decoding (txl.kernels.mla_decode) without a GPU: every kernel
compiles to PTX through the real txlc and ptxas for the configurations the ops launch, with the properties their
speed rests on: the dK/dV loop's gathered Q/dO rows and MLA's paged cache tiles are cp.async rings (the loop
pipeliner took them), the MLA scores read the 16 x 512 q from shared memory (ldmatrix, no spills), and the dQ loop
reads K for both of its dots with ldmatrix (no scratch round trip). GPU checks: tests/gpu/test_nsa_gpu.py,
test_mla_decode_gpu.py."""

import inspect
import os
import re
import shutil
import subprocess
import tempfile

import pytest

from txl.kernels import mla_decode as km
from txl.kernels import nsa as kn

from .dsl_helpers import compile_ptx, ir_of

PTRS = {"Q": "*bf16:16", "K": "*bf16:16", "V": "*bf16:16", "O": "*bf16:16", "DO": "*bf16:16", "DQ": "*bf16:16",
        "DK": "*bf16:16", "DV": "*bf16:16", "KV": "*bf16:16", "IDX": "*i32:16", "BOS": "*i32:16", "BT": "*i32:16",
        "SEQLENS": "*i32:16", "ROWS": "*i32:16", "TOKENS": "*i32:16", "OFFS": "*i32:16", "COUNTS": "*i32:16",
        "LSE": "*fp32:16", "DELTA": "*fp32:16", "PART_O": "*fp32:16", "PART_LSE": "*fp32:16"}
PTXAS = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"


def _sig(fn, cx):
    """The signature a launch on contiguous tensors specialises: strides and N divisible by 16."""
    sig = {}
    for name in inspect.signature(fn.fn).parameters:
        if name in cx:
            continue
        if name in PTRS:
            sig[name] = PTRS[name]
        elif name == "sm_scale":
            sig[name] = "fp32"
        else:
            sig[name] = "i32:16" if name in ("N", "bt_stride") or re.fullmatch(r"s[a-z]{2}", name) else "i32"
    return sig


def _compile(fn, cx, **opts):
    """(ptx, registers, spill bytes); ptxas statistics only where ptxas is installed (else None)."""
    ptx, _ = compile_ptx(ir_of(fn, _sig(fn, cx), cx, **opts))
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


@pytest.mark.parametrize("varlen", [False, True], ids=["dense", "varlen"])
@pytest.mark.parametrize("group,head_dim,block", [(16, 128, 64), (16, 64, 32), (4, 128, 128)])
def test_nsa_kernels_compile(varlen, group, head_dim, block):
    cx = dict(kn.tile_constexprs(group, head_dim, 16, block), VARLEN=varlen)
    for fn in (kn.nsa_fwd, kn.nsa_bwd_dq):
        ptx, regs, spill = _compile(fn, cx, num_warps=4)
        assert "mma.sync.aligned.m16n8k16" in ptx and "cp.async.cg.shared.global" in ptx
        assert spill in (None, 0), (fn, spill)
    dkv = dict(kn.dkv_constexprs(group, head_dim, block), VARLEN=varlen)
    ptx, _, _ = _compile(kn.nsa_bwd_dkv, dkv, num_warps=8 if block == 128 else 4,
                         num_stages=2 if block == 128 else 3)
    # The steps' tokens are scalar loads, so the gathered Q / dO rows are issued ahead as cp.async copies.
    assert "cp.async.cg.shared.global" in ptx
    # 64- and 128-key blocks are wgmma's M; 32 keys run on mma.sync.
    assert ("wgmma.mma_async" if block >= 64 else "mma.sync.aligned.m16n8k16") in ptx


def test_nsa_dq_reads_k_for_both_dots_with_ldmatrix():
    ptx, _, _ = _compile(kn.nsa_bwd_dq, dict(kn.tile_constexprs(16, 128, 16, 64), VARLEN=False), num_warps=4)
    assert "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in ptx  # K as is (dS @ K)
    assert "ld.shared.b16" not in ptx  # no element-wise scratch reads of K


@pytest.mark.parametrize("page", [16, 64])
def test_mla_split_kernel(page):
    cx = km.split_constexprs(page, 8)
    ptx, regs, spill = _compile(km.mla_decode_split, cx, num_warps=4)
    assert "cp.async.cg.shared.global" in ptx  # the cache tiles: a ring
    assert ptx.count("ldmatrix") >= 48  # q, the cache tile (both ways) and P from shared memory
    assert spill in (None, 0), spill


def test_mla_combine_kernel():
    cx = dict(D_V=512, NUM_SPLITS=5, SPLITS_P=8)
    ptx, _, spill = _compile(km.mla_decode_combine, cx, num_warps=4)
    assert "ex2.approx" in ptx and spill in (None, 0)
