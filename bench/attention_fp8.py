#!/usr/bin/env python3
"""FP8 (e4m3) attention forward benchmark: txl.ops.flash_attention_fp8 next to txl's bf16 forward
(txl.ops.flash_attention, kernel fa3) and torch SDPA's cuDNN backend in bf16, plus torch's own FP8 SDPA where
torch exposes one, in one process, on one GPU.

    python3 bench/attention_fp8.py --precompile DIR    # where txlc is (no GPU, no torch): fill the kernel cache
                                                      # DIR with every kernel/config the run and
                                                      # python/txl/tests/gpu/test_attention_fp8_gpu.py use
    python3 bench/attention_fp8.py --cache DIR         # on the GPU host (no txlc needed): check, time, print

Rows (B, H, N, D): (16, 16, 4096, 128), (4, 16, 16384, 128), (8, 16, 4096, 64), (4, 16, 8192, 256), causal and
not. Columns (TFLOP/s = 4 B H N^2 D / time, half for causal; time = median of CUDA-event timings of back-to-back
calls after warm-up, autotuning excluded):
  fp8       txl.ops.flash_attention_fp8 as a user calls it: V transposed into a K-major copy, then the kernel;
  fp8 kern  the kernel alone on a V transposed beforehand (what an in-kernel transpose could reach);
  vT ms     the transpose alone (ms);
  bf16 txl  txl.ops.flash_attention (fa3) on the same values in bf16;
  cuDNN     torch SDPA, cuDNN backend, bf16;
  fp8 SDPA  torch's FP8 attention where this torch has one that runs (torch_fp8_sdpa: the experimental
            _scaled_dot_product_attention_quantized, per-tensor / cuDNN or per-head / FA3, then plain SDPA on fp8
            tensors); "n/a" otherwise, with the reasons printed once.
Before timing, every fp8 cell is checked against a float32 reference of the dequantized inputs over the first and
last (batch, head): relative RMSE < 4e-2 (FAIL otherwise); bf16 cells < 1e-2.
"""
import math
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from _common import precompile_or_run, reference_rows, time_ms  # noqa: E402 (bench/_common.py: this script's folder is on sys.path)

ROWS = [(B, H, N, D, c) for (B, H, N, D) in [(16, 16, 4096, 128), (4, 16, 16384, 128), (8, 16, 4096, 64),
                                             (4, 16, 8192, 256)] for c in (False, True)]


def precompile(cache_dir):
    os.makedirs(cache_dir, exist_ok=True)
    os.environ["TXL_CACHE_DIR"] = os.path.abspath(cache_dir)
    from txl.compiler.compiler import find_txlc
    from txl.ops import attention as A
    from txl.ops import attention_fp8 as F8

    if find_txlc() is None:
        print("error: no txlc (build/bin/txlc or TXL_TXLC)", file=sys.stderr)
        return 1
    t0 = time.time()
    n = 0
    # The fp8 kernel: every head dim, causal or not, N a multiple of 128 or not, GQA groups 1/2/4/8 (the GPU
    # test's shapes and the bench rows); the bf16 fa3 kernel for the bench rows.
    for d in F8.HEAD_DIMS:
        for causal in (False, True):
            for even in (True, False):
                for group in (1, 2, 4, 8):
                    n += len(F8.precompile(d, causal, n=4096 if even else 1000, heads=8, kv_heads=8 // group))
    # P in its natural order (RENAME_P = False): the GPU test's test_fp8_both_p_orders shapes
    for d in F8.HEAD_DIMS:
        for causal in (False, True):
            for even, group in ((True, 1), (False, 4)):
                n += len(F8.precompile(d, causal, n=4096 if even else 1000, heads=8, kv_heads=8 // group,
                                       rename_p=False))
    for d, causal in sorted({(D, c) for _, _, _, D, c in ROWS}):
        n += len(A.precompile("fa3", d, causal, "bfloat16", n=4096))
    print("compiled %d kernels in %.0f s into %s" % (n, time.time() - t0, cache_dir))
    return 0


def rel_rmse(torch, o, ref):
    return ((o.float() - ref).norm() / ref.norm()).item()


def reference(torch, q, k, v, causal, scale, heads):
    """float32 attention of the (batch, head) pairs ``heads`` of dequantized (float32) q, k, v: stacked outputs."""
    return torch.stack([torch.cat([rows for _, _, rows in reference_rows(torch, q, k, v, b, h, causal, scale)])
                        for b, h in heads])


def run(args):
    if args.cache:
        os.environ["TXL_CACHE_DIR"] = os.path.abspath(args.cache)
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    import txl.ops
    from txl.compiler.compiler import find_txlc
    from txl.ops import attention_fp8 as F8

    print("GPU %s, torch %s; txlc %s; cache %s" % (torch.cuda.get_device_name(), torch.__version__,
                                                  find_txlc() or "not found", os.environ.get("TXL_CACHE_DIR")))
    fp8 = torch.float8_e4m3fn
    rows = ROWS[: args.rows] if args.rows else ROWS
    names = ["fp8", "fp8 kern", "vT ms", "bf16 txl", "cuDNN", "fp8 SDPA"]
    print("TFLOP/s (causal counts half the FLOPs); fp8/...: ratios of the fp8 column to the others, same run")
    print("%-18s %-6s" % ("B,H,N,D", "causal") + "".join("%10s" % n for n in names) + "%12s%13s%13s%10s"
          % ("fp8/cuDNN", "fp8/bf16txl", "fp8/fp8SDPA", "fp8 rmse"))
    ok_all = True
    sdpa_fp8_reason = None
    for B, H, N, D, causal in rows:
        torch.manual_seed(N + D + B + causal)
        xs = [torch.randn(B, H, N, D, device="cuda") for _ in range(3)]
        descales = [(x.abs().amax() / 448.0).reshape(1) for x in xs]
        q8, k8, v8 = ((x / d).to(fp8) for x, d in zip(xs, descales))
        dq, dk, dv = descales
        del xs
        qb, kb, vb = (x.to(torch.bfloat16) for x in (q8.float() * dq, k8.float() * dk, v8.float() * dv))
        flops = 4.0 * B * H * N * N * D / (2 if causal else 1)
        scale = 1.0 / math.sqrt(D)
        heads = sorted({(0, 0), (B - 1, H - 1)})
        ref = reference(torch, qb.float(), kb.float(), vb.float(), causal, scale, heads)
        cells = {}

        def fp8_call():
            return txl.ops.flash_attention_fp8(q8, k8, v8, causal=causal, descale_q=dq, descale_k=dk, descale_v=dv)

        o = fp8_call()
        err = rel_rmse(torch, torch.stack([o[b, h] for b, h in heads]), ref)
        if not (err < 4e-2) or bool(torch.isnan(o).any().item()):
            ok_all = False
            print("  fp8 %s: FAIL (rel rmse %.3g)" % ((B, H, N, D, causal), err))
            cells["fp8"] = cells["fp8 kern"] = "FAIL"
        else:
            cells["fp8"] = flops / time_ms(torch, fp8_call) / 1e9
            vt = F8.transpose_v(v8)
            sc = [F8._check_descale(torch, "d", d, B, H, q8.device) for d in (dq, dk, dv)]
            cells["fp8 kern"] = flops / time_ms(torch, lambda: F8._forward(q8, k8, v8, causal, scale, sc, vt)) / 1e9
            cells["vT ms"] = "%.3f" % time_ms(torch, lambda: F8.transpose_v(v8))
            del vt
        del o
        for name, fn in (("bf16 txl", lambda: txl.ops.flash_attention(qb, kb, vb, causal=causal)),
                         ("cuDNN", lambda: _sdpa(F, sdpa_kernel, SDPBackend, qb, kb, vb, causal))):
            o = fn()
            e = rel_rmse(torch, torch.stack([o[b, h] for b, h in heads]), ref)
            del o
            if not e < 1e-2:
                print("  %s %s: FAIL (rel err %.3g)" % (name, (B, H, N, D, causal), e))
                cells[name] = "FAIL"
                if name == "bf16 txl":
                    ok_all = False
                continue
            cells[name] = flops / time_ms(torch, fn) / 1e9
        # torch's FP8 attention, where this torch has one that runs (torch_fp8_sdpa: the experimental quantized
        # SDPA, per-tensor (cuDNN) or per-head (FA3) descales, then plain SDPA on fp8 tensors); checked like ours.
        fn, why, scaled = torch_fp8_sdpa(torch, F, sdpa_kernel, SDPBackend, q8, k8, v8, causal, dq, dk, dv)
        if fn is None:
            sdpa_fp8_reason = sdpa_fp8_reason or why
            cells["fp8 SDPA"] = "n/a"
        else:
            o = fn()
            want = ref if scaled else reference(torch, q8.float(), k8.float(), v8.float(), causal, scale, heads)
            e = rel_rmse(torch, torch.stack([o[b, h].float() for b, h in heads]), want)
            del o
            cells["fp8 SDPA"] = flops / time_ms(torch, fn) / 1e9 if e < 4e-2 else "FAIL"
        line = "%-18s %-6s" % ("%d,%d,%d,%d" % (B, H, N, D), "yes" if causal else "no")
        line += "".join("%10s" % ("%.1f" % cells[n] if isinstance(cells.get(n), float) else cells.get(n, "-"))
                        for n in names)
        f8 = cells.get("fp8")
        for other, width in (("cuDNN", 12), ("bf16 txl", 13), ("fp8 SDPA", 13)):
            c = cells.get(other)
            line += "%*s" % (width, "%.2f" % (f8 / c) if isinstance(f8, float) and isinstance(c, float) else "-")
        line += "%10.2e" % err
        print(line, flush=True)
        q8 = k8 = v8 = qb = kb = vb = ref = None  # (free before the next row's tensors)
        torch.cuda.empty_cache()
    if sdpa_fp8_reason:
        print("torch FP8 SDPA: n/a in torch %s: %s" % (torch.__version__, sdpa_fp8_reason))
    print("ALL PASS" if ok_all else "FAIL")
    return 0 if ok_all else 1


def torch_fp8_sdpa(torch, F, sdpa_kernel, SDPBackend, q8, k8, v8, causal, dq, dk, dv):
    """(a call of torch's FP8 attention on these inputs, None, whether it applies the descales) or (None, why torch
    has none that runs, None). Tried in
    order: torch.nn.attention.experimental._scaled_dot_product_attention_quantized with per-tensor descales (cuDNN,
    where its DescaleType has PER_TENSOR) and with per-head (B, H_KV) descales (FA3, after
    activate_flash_attention_impl("FA3") where that exists), then F.scaled_dot_product_attention on the fp8
    tensors under the cuDNN backend (no descales: checked against a reference of the raw fp8 values)."""
    reasons = []
    try:
        from torch.nn.attention.experimental import _scaled_dot_product_attention_quantized as mod
        quantized, kinds = mod._scaled_dot_product_attention_quantized, mod.DescaleType
    except (ImportError, AttributeError) as e:
        quantized, kinds = None, None
        reasons.append("no torch.nn.attention.experimental._scaled_dot_product_attention_quantized (%s)"
                       % type(e).__name__)
    B, Hk = k8.shape[:2]
    attempts = []
    if quantized is not None:
        if hasattr(kinds, "PER_TENSOR"):
            t = [d.reshape(1, 1, 1, 1) for d in (dq, dk, dv)]
            attempts.append(("quantized SDPA, per-tensor", True, lambda: quantized(
                q8, k8, v8, is_causal=causal, q_descale=t[0], k_descale=t[1], v_descale=t[2],
                q_descale_type=kinds.PER_TENSOR, k_descale_type=kinds.PER_TENSOR, v_descale_type=kinds.PER_TENSOR)))
        ph = [d.reshape(1, 1).expand(B, Hk).contiguous() for d in (dq, dk, dv)]
        attempts.append(("quantized SDPA, per-head (FA3)", True, lambda: quantized(
            q8, k8, v8, is_causal=causal, q_descale=ph[0], k_descale=ph[1], v_descale=ph[2])))
    attempts.append(("SDPA cuDNN on fp8 tensors", False,
                     lambda: _sdpa(F, sdpa_kernel, SDPBackend, q8, k8, v8, causal)))
    for name, scaled, fn in attempts:
        try:
            if "FA3" in name and hasattr(torch.nn.attention, "activate_flash_attention_impl"):
                torch.nn.attention.activate_flash_attention_impl("FA3")
            fn()
            torch.cuda.synchronize()
            return fn, None, scaled
        except Exception as e:  # torch's refusal: RuntimeError, NotImplementedError, ValueError, ModuleNotFoundError
            reasons.append("%s: %s: %s" % (name, type(e).__name__, (str(e).splitlines() or [""])[0][:160]))
    return None, "; ".join(reasons), None


def _sdpa(F, sdpa_kernel, SDPBackend, q, k, v, causal):
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


def main():
    return precompile_or_run(__doc__, precompile, run)


if __name__ == "__main__":
    sys.exit(main())
