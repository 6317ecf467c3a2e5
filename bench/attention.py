#!/usr/bin/env python3
"""Forward attention benchmark: txl's four DSL kernels (through txl.ops.flash_attention) against torch SDPA's cuDNN
and flash backends, in one process, on one GPU.

    python3 bench/attention.py --precompile DIR     # where txlc is (no GPU, no torch): fill the kernel cache DIR
                                                    # with every kernel/config the run uses; cold compile times
                                                    # go to DIR/compile_times.json
    python3 bench/attention.py --cache DIR          # on the GPU host (no txlc needed): check, time, print

Rows: (B, H, N, D) = (2, 32, 16384, 128), (16, 32, 4096, 128), (4, 32, 8192, 64), (4, 16, 8192, 256), causal and
not, bf16, plus (16, 32, 4096, 128) in fp16. Before it is timed, every cell is checked on fresh random inputs of
the row's shape: no NaN anywhere in O, and the relative (Frobenius) error of O against a float32 reference over
the first and the last (batch, head) < 1e-2; a wrong kernel prints FAIL, an unsupported combination n/a.
TFLOP/s = 4 B H N^2 D / time (half for causal); time = median of CUDA-event timings after warm-up; the ratio is
to cuDNN in the same run. Our kernels are autotuned (txl.autotune) on their first call per row; the autotuning is
not part of the timing. Compile times (DSL -> PTX + cubin, all autotuning configs of a kernel for one row's
specialisation): cold = into an empty cache with txlc (measured by --precompile), cached = the same from the cache.
"""
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from _common import precompile_or_run, reference_rows, time_ms  # noqa: E402 (bench/_common.py: this script's folder is on sys.path)

KERNELS = ("fa3", "pingpong", "ws", "1wg")
# (dtype, B, H, N, D, causal)
ROWS = [(dt, B, H, N, D, c) for (dt, B, H, N, D) in [
    ("bfloat16", 2, 32, 16384, 128), ("bfloat16", 16, 32, 4096, 128), ("bfloat16", 4, 32, 8192, 64),
    ("bfloat16", 4, 16, 8192, 256), ("float16", 16, 32, 4096, 128)] for c in (False, True)]


def specs():
    """The distinct specialisations (dtype, D, causal) the rows use (every N is a multiple of 128, no GQA)."""
    out = []
    for dt, B, H, N, D, c in ROWS:
        if (dt, D, c) not in out:
            out.append((dt, D, c))
    return out


def spec_name(dt, D, c):
    return "%s,D=%d,%s" % (dt, D, "causal" if c else "full")


def precompile(cache_dir):
    if os.path.isdir(cache_dir) and os.listdir(cache_dir):
        print("error: %s is not empty: cold compile times need an empty cache directory" % cache_dir, file=sys.stderr)
        return 1
    os.makedirs(cache_dir, exist_ok=True)
    os.environ["TXL_CACHE_DIR"] = os.path.abspath(cache_dir)
    from txl.compiler.compiler import find_txlc
    from txl.ops import attention as A

    if find_txlc() is None:
        print("error: no txlc (build/bin/txlc or TXL_TXLC)", file=sys.stderr)
        return 1
    times = {}
    failed = 0
    for kern in KERNELS:
        for dt, D, c in specs():
            if D not in A.KERNELS[kern][4]:
                continue
            t = time.time()
            try:
                ks = A.precompile(kern, D, c, dt, n=4096)
            except Exception as e:
                failed += 1
                print("  %-9s %-28s FAILED: %s: %s" % (kern, spec_name(dt, D, c), type(e).__name__, e))
                continue
            dt_s = time.time() - t
            times.setdefault(kern, {})[spec_name(dt, D, c)] = {"cold_s": round(dt_s, 3), "configs": len(ks)}
            print("  %-9s %-28s %d configs, cold %.2f s (shared bytes %s)"
                  % (kern, spec_name(dt, D, c), len(ks), dt_s, [k.metadata.get("shared_bytes") for k in ks]))
    with open(os.path.join(cache_dir, "compile_times.json"), "w") as f:
        json.dump(times, f, indent=1, sort_keys=True)
    return 1 if failed else 0


# ---------------------------------------------------------------------------------------------------------------
# GPU run
# ---------------------------------------------------------------------------------------------------------------
def reference_error(torch, q, k, v, o, causal, scale):
    """Relative Frobenius error of o over the first and the last (batch, head), float32, in query chunks."""
    B, H, N, D = q.shape
    num = den = 0.0
    for b, h in {(0, 0), (B - 1, H - 1)}:
        for r0, r1, ref in reference_rows(torch, q, k, v, b, h, causal, scale):
            num += (o[b, h, r0:r1].float() - ref).pow(2).sum().item()
            den += ref.pow(2).sum().item()
    return math.sqrt(num / den)


def run(args):
    global KERNELS
    KERNELS = tuple(k for k in args.kernels.split(",") if k)
    if args.cache:
        os.environ["TXL_CACHE_DIR"] = os.path.abspath(args.cache)
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    import txl.ops
    from txl.compiler.compiler import find_txlc
    from txl.ops import attention as A

    print("GPU %s, torch %s; txlc %s; cache %s" % (torch.cuda.get_device_name(), torch.__version__,
                                                  find_txlc() or "not found", os.environ.get("TXL_CACHE_DIR")))
    impls = [(k, lambda q, k_, v, c, kern=k: txl.ops.flash_attention(q, k_, v, causal=c, kernel=kern))
             for k in KERNELS]
    for name, be in (("cuDNN", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)):
        def sdpa(q, k_, v, c, be=be):
            with sdpa_kernel(be):
                return F.scaled_dot_product_attention(q, k_, v, is_causal=c)
        impls.append((name, sdpa))
    rows = ROWS[: args.rows] if args.rows else ROWS
    hdr = "%-9s %-17s %-6s" % ("dtype", "B,H,N,D", "causal") + "".join("%10s" % n for n, _ in impls) + \
        "   " + " ".join("%8s" % ("%s/cuDNN" % n) for n in KERNELS)
    print("TFLOP/s (causal counts half the FLOPs); ratio = ours / cuDNN, same run")
    print(hdr)
    ok_all = True
    t_start = time.time()
    for dt, B, H, N, D, causal in rows:
        torch.manual_seed(N + D + B + causal)
        dtype = getattr(torch, dt)
        q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=dtype) for _ in range(3))
        flops = 4.0 * B * H * N * N * D / (2 if causal else 1)
        scale = 1.0 / math.sqrt(D)
        cells = []
        for name, fn in impls:
            try:
                o = fn(q, k, v, causal)
                torch.cuda.synchronize()
            except (ValueError, NotImplementedError, RuntimeError) as e:
                msg = str(e).splitlines()[0] if str(e) else type(e).__name__
                unsupported = isinstance(e, (ValueError, NotImplementedError)) or "No available kernel" in msg \
                    or "not supported" in msg.lower()
                if not unsupported:
                    ok_all = False
                    print("  %s %s: FAIL %s: %s" % (name, (B, H, N, D, causal), type(e).__name__, msg))
                cells.append("n/a" if unsupported else "FAIL")
                continue
            bad = bool(torch.isnan(o).any().item())
            err = float("nan") if bad else reference_error(torch, q, k, v, o, causal, scale)
            del o
            if bad or not err < 1e-2:
                if name in KERNELS:
                    ok_all = False
                print("  %s %s: FAIL (NaN: %s, rel err %.3g)" % (name, (B, H, N, D, causal), bad, err))
                cells.append("FAIL")
                continue
            ms = time_ms(torch, lambda fn=fn, q=q, k=k, v=v: fn(q, k, v, causal))
            cells.append(flops / ms / 1e9)
        cud = cells[len(KERNELS)]
        line = "%-9s %-17s %-6s" % (dt, "%d,%d,%d,%d" % (B, H, N, D), "yes" if causal else "no")
        line += "".join("%10s" % ("%.1f" % c if isinstance(c, float) else c) for c in cells)
        line += "   " + " ".join("%8s" % ("%.2f" % (c / cud) if isinstance(c, float) and isinstance(cud, float)
                                          else "-") for c in cells[:len(KERNELS)])
        print(line, flush=True)
        del q, k, v
        torch.cuda.empty_cache()
    print("(rows took %.0f s)" % (time.time() - t_start))

    # Compile times: cold from --precompile, cached measured now (frontend + cache lookup, no txlc needed).
    cold = {}
    path = os.path.join(os.environ.get("TXL_CACHE_DIR", ""), "compile_times.json")
    if os.path.exists(path):
        with open(path) as f:
            cold = json.load(f)
    print("compile time DSL -> PTX/cubin, all autotuning configs of one specialisation (cold: empty cache, txlc; "
          "cached: from the kernel cache)")
    used = {(dt, D, c) for dt, B, H, N, D, c in rows}
    for kern in KERNELS:
        for dt, D, c in specs():
            if (dt, D, c) not in used:
                continue
            fn = A.get_tuner(kern, D, c).fn
            fn.cache.clear()  # drop the in-memory specialisations: measure the disk cache
            t = time.time()
            try:
                A.precompile(kern, D, c, dt, n=4096)
                warm = "%.3f s" % (time.time() - t)
            except Exception as e:
                warm = "error: %s" % (str(e).splitlines()[0][:80],)
            cs = cold.get(kern, {}).get(spec_name(dt, D, c))
            print("  %-9s %-28s cold %-10s cached %s" % (kern, spec_name(dt, D, c),
                                                          "%.2f s" % cs["cold_s"] if cs else "?", warm))
    print("ALL PASS" if ok_all else "FAIL")
    return 0 if ok_all else 1


def main():
    return precompile_or_run(__doc__, precompile, run, lambda ap: ap.add_argument(
        "--kernels", default=",".join(KERNELS), help="comma-separated subset of %s" % ",".join(KERNELS)))


if __name__ == "__main__":
    sys.exit(main())
