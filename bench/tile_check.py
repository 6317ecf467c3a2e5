#!/usr/bin/env python3
"""Check txl's register-tile test kernels (layout conversions, reductions) on the GPU against torch.

    python3 bench/tile_check.py --kernels DIR

DIR holds what txlc wrote for each kernel (``txlc K.mlir --emit=cubin -o DIR/K.ptx`` writes K.ptx, K.cubin
and K.json). Kernels, from test/gpu/ and test/Target/PTX/layout-conversion-matrix.mlir:

  layout_roundtrip       (in, out, rowsum) on a 64x128 tile: out = in + in.sum(1)[:, None], rowsum = in.sum(1)
  row_softmax            (x, y, M, N): y = softmax(x, dim=1), N = 100 (masked), 16 rows per program
  masked_reduce          (x, sum, max, M, W): row sums and maxima, W = 300 (masked), 8 rows per program
  layout_matrix_<shape>  (in, out): block p of out (8192 floats) = the input tile, for every conversion p
  smem_matrix            (in32, out32, in16, out16): 4 blocks of each = the input, through ldmatrix / stmatrix

Each kernel runs on fresh random inputs; every output element is compared with a float32 torch reference
(outputs are pre-filled with NaN, so an element a kernel forgets to write fails). Prints PASS/FAIL per
kernel with the largest absolute error, and FAIL at the end if any kernel failed (exit status 1).
"""
import argparse
import glob
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402

from txl.runtime.launcher import load_kernel  # noqa: E402


def nan_like(shape):
    return torch.full(shape, float("nan"), device="cuda", dtype=torch.float32)


def max_err(out, ref):
    """Largest absolute error; inf when an element is NaN (not written) where the reference is finite."""
    if torch.isnan(out).any():
        return math.inf
    return (out - ref).abs().max().item()


def check_layout_roundtrip(kernel):
    x = torch.randn(64, 128, device="cuda")
    out, rowsum = nan_like((64, 128)), nan_like((64,))
    kernel[(1, 1, 1)](x, out, rowsum)
    torch.cuda.synchronize()
    ref_sum = x.sum(1)
    err = max(max_err(out, x + ref_sum[:, None]), max_err(rowsum, ref_sum))
    return err < 1e-3, err


def check_row_softmax(kernel):
    worst, ok = 0.0, True
    for M, N in ((16, 100), (37, 100), (200, 100), (5, 7)):
        x = torch.randn(M, N, device="cuda") * 4
        y = nan_like((M, N))
        kernel[(math.ceil(M / 16), 1, 1)](x, y, M, N)
        torch.cuda.synchronize()
        err = max_err(y, torch.softmax(x, dim=1))
        worst = max(worst, err)
        ok &= err < 1e-5
    return ok, worst


def check_masked_reduce(kernel):
    worst, ok = 0.0, True
    for M, W in ((8, 300), (29, 300), (64, 511), (3, 1)):
        x = torch.randn(M, W, device="cuda")
        s, m = nan_like((M,)), nan_like((M,))
        kernel[(math.ceil(M / 8), 1, 1)](x, s, m, M, W)
        torch.cuda.synchronize()
        err_s = max_err(s, x.sum(1))
        err_m = max_err(m, x.max(1).values)
        worst = max(worst, err_s, err_m)
        ok &= err_s < 1e-3 * max(1.0, math.sqrt(W)) and err_m == 0.0
    return ok, worst


# Input block of each layout-matrix kernel: the tile's shape (row-major, at the start of `in`).
MATRIX_SHAPES = {"64x128": (64, 128), "64x64": (64, 64), "32x8": (32, 8), "64": (64,)}


def check_layout_matrix(kernel, shape):
    elems = math.prod(shape)
    x = torch.randn(elems, device="cuda")
    pairs = 64  # more blocks than any family has conversions; unused ones stay NaN
    out = nan_like((pairs, 8192))
    kernel[(1, 1, 1)](x, out)
    torch.cuda.synchronize()
    written = [p for p in range(pairs) if not torch.isnan(out[p, :elems]).all()]
    if not written:
        return False, math.inf
    worst = max(max_err(out[p, :elems], x) for p in range(len(written)))
    # Blocks are written in order 0..n-1 and each must be complete.
    return worst == 0.0 and written == list(range(len(written))), worst


def check_smem_matrix(kernel):
    """test/gpu/smem_matrix.mlir: 4 blocks of each input through ldmatrix / stmatrix (one side of each trip)."""
    x32 = torch.randn(32 * 64, device="cuda")
    x16 = torch.randn(64 * 64, device="cuda").to(torch.bfloat16)
    out32 = nan_like((4, 32 * 64))
    out16 = nan_like((4, 64 * 64)).to(torch.bfloat16)
    kernel[(1, 1, 1)](x32, out32, x16, out16)
    torch.cuda.synchronize()
    worst = max(max(max_err(out32[b], x32) for b in range(4)),
                max(max_err(out16[b].float(), x16.float()) for b in range(4)))
    return worst == 0.0, worst


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", required=True, help="directory of txlc outputs (K.json next to K.ptx/K.cubin)")
    ap.add_argument("--only", action="append", help="only this kernel (repeatable)")
    args = ap.parse_args()
    checks = {
        "layout_roundtrip": check_layout_roundtrip,
        "row_softmax": check_row_softmax,
        "masked_reduce": check_masked_reduce,
        "smem_matrix": check_smem_matrix,
    }
    for shape in MATRIX_SHAPES:
        checks["layout_matrix_" + shape] = lambda k, s=MATRIX_SHAPES[shape]: check_layout_matrix(k, s)
    found = {os.path.splitext(os.path.basename(p))[0]: p for p in glob.glob(os.path.join(args.kernels, "*.json"))}
    ok_all, ran = True, 0
    for name, check in checks.items():
        if args.only and name not in args.only:
            continue
        # txlc names the sidecar after the output file; the kernel name is inside.
        path = found.get(name)
        if path is None:
            print(f"{name}: SKIP (no {name}.json in {args.kernels})")
            continue
        torch.manual_seed(0)
        try:
            ok, err = check(load_kernel(path))
        except Exception as ex:  # a launch error is a failure of this kernel, not of the run
            ok, err = False, math.nan
            print(f"  ERROR {type(ex).__name__}: {ex}")
        ran += 1
        ok_all &= ok
        print(f"{name}: {'PASS' if ok else 'FAIL'} (max abs err {err:.3g})")
    if not ran:
        print("no kernels found")
        return 1
    if not ok_all:
        print("FAIL")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
