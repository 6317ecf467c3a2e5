#!/usr/bin/env python3
"""Host cost of a call and small/ragged attention shapes, txl next to its peers in one process (GPU host).

    python3 bench/overhead.py            # txlc via TXL_TXLC (JIT on first call) or a filled TXL_CACHE_DIR

Part 1, the cost of a call (wall clock per call, median of 5 runs of 200 calls after warm-up):
  * "synced": each call followed by torch.cuda.synchronize(); "back to back": 200 calls, one sync at the end.
  * txl.ops.flash_attention vs torch SDPA on (1,1,128,64) bf16 and (2,8,1000,64) fp16 MQA;
  * a @txl.jit vector add launch vs the same source under Triton 3.6 (``import triton.language as tl``).
Part 2, small and ragged attention shapes: do_bench (CUDA events, median) of txl.ops.flash_attention vs SDPA's cuDNN
backend (flash where cuDNN refuses), each output checked against a float32 reference first.
"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import txl  # noqa: E402
from txl.autotune import do_bench  # noqa: E402
from txl.tests.gpu.dsl_cases import attention_reference  # noqa: E402

CALLS = 200


def per_call_us(fn, synced):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    runs = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(CALLS):
            fn()
            if synced:
                torch.cuda.synchronize()
        torch.cuda.synchronize()
        runs.append((time.perf_counter() - t) / CALLS * 1e6)
    return statistics.median(runs)


def same_source(package):
    """txl's vector add kernel (python/txl/kernels/vector_add.py) as a module of its own whose only difference is
    the import lines (txl or triton)."""
    import importlib.util
    import tempfile

    import txl.kernels.vector_add as src

    with open(src.__file__) as f:
        text = f.read()
    if package == "triton":
        text = text.replace("import txl\n", "import triton\n").replace("import txl.language as tl",
                                                                     "import triton.language as tl")
        text = text.replace("@txl.jit", "@triton.jit")
    d = tempfile.mkdtemp(prefix="txl-bench-")
    path = os.path.join(d, "vadd_%s.py" % package)
    with open(path, "w") as f:
        f.write(text)
    spec = importlib.util.spec_from_file_location("vadd_" + package, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.vector_add


def sdpa(q, k, v, causal, backend=None):
    from torch.nn.attention import SDPBackend, sdpa_kernel

    gqa = q.shape[1] != k.shape[1]
    backends = [backend] if backend else [SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION]
    with sdpa_kernel(backends):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)


def rel_err(o, ref):
    return ((o.float() - ref).norm() / ref.norm()).item()


def part1():
    import triton

    rows = []
    for (B, H, HK, N, D, dt) in [(1, 1, 1, 128, 64, torch.bfloat16), (2, 8, 1, 1000, 64, torch.float16)]:
        q = torch.randn(B, H, N, D, device="cuda", dtype=dt)
        k, v = (torch.randn(B, HK, N, D, device="cuda", dtype=dt) for _ in range(2))
        txl.ops.flash_attention(q, k, v)
        name = "flash_attention (%d,%d,%d,%d)%s" % (B, H, N, D, " MQA" if HK != H else "")
        ours = [per_call_us(lambda: txl.ops.flash_attention(q, k, v), s) for s in (True, False)]
        gqa = HK != H  # plain SDPA (its default backend choice), as a user calls it
        peer = [per_call_us(lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=gqa), s) for s in (True, False)]
        rows.append((name, ours, "SDPA", peer))

    n = 98432
    x, y = (torch.randn(n, device="cuda") for _ in range(2))
    z = torch.empty_like(x)
    ours_k = same_source("txl")
    tri_k = same_source("triton")
    grid = (triton.cdiv(n, 1024),)
    ours_k[grid](x, y, z, n, BLOCK=1024)
    torch.testing.assert_close(z, x + y)
    z.zero_()
    tri_k[grid](x, y, z, n, BLOCK=1024)
    torch.testing.assert_close(z, x + y)
    ours = [per_call_us(lambda: ours_k[grid](x, y, z, n, BLOCK=1024), s) for s in (True, False)]
    peer = [per_call_us(lambda: tri_k[grid](x, y, z, n, BLOCK=1024), s) for s in (True, False)]
    rows.append(("@txl.jit vector add launch", ours, "Triton 3.6", peer))
    print("\n== cost of a call (us per call: synced / back to back)")
    print("%-38s %18s   %-11s %18s" % ("call", "txl", "peer", "peer us"))
    for name, o, pn, p in rows:
        print("%-38s %8.1f / %7.1f   %-11s %8.1f / %7.1f" % (name, o[0], o[1], pn, p[0], p[1]))


def part2():
    rows = [(64, 16, 16, 512, 128, False, torch.bfloat16), (4, 32, 32, 3000, 128, True, torch.bfloat16),
            (2, 8, 1, 1000, 64, False, torch.float16), (16, 32, 32, 4096, 128, False, torch.bfloat16),
            (16, 32, 32, 4096, 128, True, torch.bfloat16), (2, 32, 32, 16384, 128, False, torch.bfloat16)]
    print("\n== small and ragged shapes (do_bench median, ms; ratio = cuDNN time / txl time)")
    print("%-34s %9s %9s %7s %9s" % ("(B,H,N,D) causal dtype", "txl", "cuDNN", "ratio", "rel err"))
    for B, H, HK, N, D, causal, dt in rows:
        q = torch.randn(B, H, N, D, device="cuda", dtype=dt)
        k, v = (torch.randn(B, HK, N, D, device="cuda", dtype=dt) for _ in range(2))
        o = txl.ops.flash_attention(q, k, v, causal=causal)
        hk = max(1, 2 * HK // H)  # the first two query heads and their kv heads of the first batch
        err = rel_err(o[:1, :2], attention_reference(q[:1, :2], k[:1, :hk], v[:1, :hk], causal))
        ok = err < 1e-2 and not torch.isnan(o).any()
        t_ours = do_bench(lambda: txl.ops.flash_attention(q, k, v, causal=causal))
        t_peer = do_bench(lambda: sdpa(q, k, v, causal))
        name = "(%d,%d,%d,%d)%s%s %s" % (B, H, N, D, " causal" if causal else "", " MQA" if HK == 1 and H > 1 else "",
                                        str(dt).replace("torch.", ""))
        print("%-34s %9.4f %9.4f %7.2f %9.1e%s" % (name, t_ours, t_peer, t_peer / t_ours, err,
                                                  "" if ok else "  FAIL"))


if __name__ == "__main__":
    print("device: %s; txl JIT: %s" % (torch.cuda.get_device_name(), os.environ.get("TXL_TXLC", "cache only")))
    part1()
    part2()
