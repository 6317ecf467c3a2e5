"""PTX properties behind the Liger/fla row kernels' speed (docs/libraries-perf.md), checked on small kernels of
this file's own, without a GPU:

* no `.minnctapersm` unless the kernel uses setmaxnreg: with it ptxas spends registers as if one CTA per SM were
  enough (a bf16 gated-activation row of 16384 elements on 16 warps took 80 registers against Triton's 32, i.e.
  one CTA per SM instead of four);
* bf16 pairs travel as <2 x bf16> words, so LLVM packs the bf16 math (mul.bf16x2, cvt.rn.bf16x2.f32).

Registers are counted with ptxas when it is installed (/usr/local/cuda/bin/ptxas or on PATH)."""

import os
import re
import shutil
import subprocess

import pytest

import txl
import txl.language as tl

from .dsl_helpers import TXLC

PTXAS = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)


@txl.jit
def _gated_row(a_ptr, b_ptr, c_ptr, stride, n_cols: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    a = tl.load(a_ptr + row * stride + offs, mask=mask, other=0).to(tl.float32)
    b = tl.load(b_ptr + row * stride + offs, mask=mask, other=0)
    c = (a * tl.sigmoid(a)).to(b.dtype) * b
    tl.store(c_ptr + row * stride + offs, c, mask=mask)


@txl.jit
def _scaled_row(x_ptr, w_ptr, y_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=0).to(tl.float32)
    w = tl.load(w_ptr + offs, mask=mask, other=0)
    r = tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + 1e-6)
    tl.store(y_ptr + row * stride + offs, (x * r).to(tl.bfloat16) * w, mask=mask)


def _compile(fn, sig, consts, num_warps):
    if not os.access(TXLC, os.X_OK):
        pytest.skip("txlc not built")
    return txl.compile(fn, sig, consts, num_warps=num_warps, use_cache=False).asm["ptx"]


def _registers(ptx, tmp_path):
    if PTXAS is None:
        pytest.skip("ptxas is not installed")
    src = tmp_path / "k.ptx"
    src.write_text(ptx)
    r = subprocess.run([PTXAS, "-arch=sm_90a", "-v", str(src), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = r.stdout + r.stderr
    assert "bytes spill stores" not in out or re.search(r"\b0 bytes spill stores", out), out
    return int(re.search(r"Used (\d+) registers", out).group(1))


GATED_SIG = {"a_ptr": "*bf16:16", "b_ptr": "*bf16:16", "c_ptr": "*bf16:16", "stride": "i32:16"}


def test_row_kernel_without_minnctapersm(tmp_path):
    # Liger's SwiGLU shape: 11008 columns in a 16384 block, 16 warps (32 bf16 elements a thread per operand).
    ptx = _compile(_gated_row, GATED_SIG, {"n_cols": 11008, "BLOCK": 16384}, 16)
    assert ".minnctapersm" not in ptx
    assert ".reqntid 512" in ptx
    # Four CTAs of 16 warps per SM need at most 32 registers (Triton 3.6: 32); with .minnctapersm 1 it was 80.
    assert _registers(ptx, tmp_path) <= 32


def test_row_kernel_packs_bf16_pairs():
    ptx = _compile(_gated_row, GATED_SIG, {"n_cols": 11008, "BLOCK": 16384}, 16)
    body = [ln.strip() for ln in ptx.splitlines()]
    # bf16 pairs travel as <2 x bf16> words (bitcast + insert/extractelement, not shifts and ors), which LLVM's
    # SLP vectorizer packs: the product with b is mul.bf16x2 and the truncation cvt.rn.bf16x2.f32, one per pair
    # (32 elements a thread), as in Triton's PTX; no scalar bf16 multiply and no 16-bit shift packing is left.
    assert sum(ln.startswith("mul.bf16x2") for ln in body) == 16
    assert sum(ln.startswith("cvt.rn.bf16x2.f32") for ln in body) == 16
    assert not any(re.match(r"mul(\.rn)?\.bf16\s", ln) for ln in body)
    assert not any(re.match(r"shl\.b32\s+%r\d+, %r\d+, 16;", ln) for ln in body)


@pytest.mark.parametrize("num_warps, most", [(4, 61), (8, 39)])
def test_normalizing_row_registers(tmp_path, num_warps, most):
    # An RMS-norm-like row of 4096 bf16 with a 16-byte load per operand and register run: Triton 3.6 compiles the
    # same source to 60 (4 warps) and 38 (8 warps) registers; txl stays within one of that.
    ptx = _compile(_scaled_row, {"x_ptr": "*bf16:16", "w_ptr": "*bf16:16", "y_ptr": "*bf16:16", "stride": "i32:16",
                                 "n_cols": "i32:16"}, {"BLOCK": 4096}, num_warps)
    assert ".minnctapersm" not in ptx
    assert len(re.findall(r"ld\.global(\.\w+)*\.v4\.b32", ptx)) == 2 * 4096 * 2 // 16 // (32 * num_warps)
    assert _registers(ptx, tmp_path) <= most
