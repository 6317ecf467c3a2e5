"""Every autotuning config of every attention kernel of txl.ops, launched over the grids that break persistent and
ring schedules, built with bounded mbarrier waits (``debug_hangs``): a deadlock is a reported failure naming the
barrier's source line, not a frozen run. Used by test_attention_sweep.py (one child process per kernel and head
dim, so a trap, which loses the CUDA context, costs only its own group).

    python3 -m txl.tests.gpu.attention_sweep --precompile          # compile every job, in parallel (no GPU)
    python3 -m txl.tests.gpu.attention_sweep --kernel fa3 --head-dim 128   # run one group on the GPU

Each job prints one line ``SWEEP ok|FAIL kernel hd config shape causal detail``; the run ends with ``SWEEP done``.
"""

import argparse
import math
import os
import sys
import time

# (name, B, H, N, H_KV): fewer tiles than SMs; exactly one wave of 132 tiles (BLOCK_M 128); many tiles per CTA on
# a grid that is no multiple of the SM count, with GQA and N not a multiple of the block; many tiles per CTA; MQA.
SHAPES = [("few", 1, 2, 1000, 2), ("wave", 1, 33, 512, 33), ("gqa", 3, 16, 3000, 4), ("many", 8, 16, 4096, 16),
          ("mqa", 2, 8, 1000, 1)]
# The shape that hung in issue 18 (fa3, hd128, causal, persistent: 124 tiles per CTA of varying length).
REPRO = ("repro", 16, 32, 4096, 32)
CHECK_HEADS = 3  # heads compared with the float32 reference per job (all of O is checked for unwritten rows)


def jobs(kernel=None, head_dim=None):
    """[(kernel, head_dim, config, shape, causal)] in a fixed order."""
    from txl.ops import attention as A

    out = []
    for kern, (_, _, _, _, cfgs) in A.KERNELS.items():
        if kernel not in (None, kern):
            continue
        for d, configs in sorted(cfgs.items()):
            if head_dim not in (None, d):
                continue
            for cfg in configs:
                for causal in (False, True):
                    shapes = list(SHAPES)
                    if kern == "fa3" and d == 128 and causal:
                        shapes.append(REPRO)
                    for shape in shapes:
                        out.append((kern, d, tuple(cfg), shape, causal))
    return out


def _build(job, factory):
    from txl.tests.gpu import dsl_cases

    kern, d, cfg, (_, B, H, N, H_KV), causal = job
    b = dsl_cases._attention(B, H, N, d, causal, kern, H_KV=H_KV, config=cfg)(factory)
    b["kwargs"]["debug_hangs"] = True
    return b


def _kernel(kern):
    import importlib

    from txl.tests.gpu import dsl_cases

    mod, fn = dsl_cases._ATTN_MODULES[kern]
    return getattr(importlib.import_module(mod), fn)


def _compile_one(job):
    from txl.tests.gpu import dsl_cases

    b = _build(job, dsl_cases.MetaFactory())
    t = time.time()
    try:
        _kernel(job[0]).warmup(*b["args"], grid=None, **b["kwargs"])
        return job, None, time.time() - t
    except Exception as e:  # reported by the caller
        return job, "%s: %s" % (type(e).__name__, e), time.time() - t


def precompile(selected, workers=None):
    """Compile every distinct specialisation of the jobs (one per config, causal, even/odd N and GQA group) in
    parallel processes into the kernel cache. Returns the failures."""
    from concurrent.futures import ProcessPoolExecutor

    seen, todo = set(), []
    for job in selected:
        kern, d, cfg, (_, B, H, N, H_KV), causal = job
        spec = (kern, d, cfg, causal, N % 128 == 0, H // H_KV)
        if spec not in seen:
            seen.add(spec)
            todo.append(job)
    failures = []
    with ProcessPoolExecutor(max_workers=workers or os.cpu_count()) as pool:
        for job, err, secs in pool.map(_compile_one, todo):
            if err:
                failures.append((job, err))
                print("SWEEP compile FAIL %s: %s" % (_name(job), err), flush=True)
    print("SWEEP compiled %d specialisations, %d failed" % (len(todo), len(failures)), flush=True)
    return failures


def _name(job):
    kern, d, cfg, shape, causal = job
    return "%s hd%d %s %s%s" % (kern, d, "x".join(str(int(c)) for c in cfg), shape[0], " causal" if causal else "")


def _reference_heads(job, b, torch, heads):
    """max |O - ref| over ``heads`` (b, h) pairs, in float32."""
    kern, d, cfg, (_, B, H, N, H_KV), causal = job
    q, k, v = (a.base for a in b["args"][:3])
    o = b["out"]
    qv, kv, vv = q.view(B, H, N, d), k.view(B, H_KV, N, d), v.view(B, H_KV, N, d)
    err = 0.0
    for bi, hi in heads:
        kh = hi // (H // H_KV)
        s = (qv[bi, hi].float() @ kv[bi, kh].float().T) / math.sqrt(d)
        if causal:
            s = s.masked_fill(torch.ones(N, N, device=s.device, dtype=torch.bool).triu(1), float("-inf"))
        ref = s.softmax(-1) @ vv[bi, kh].float()
        err = max(err, (o[bi, hi].float() - ref).abs().max().item())
    return err


def run(selected, seed=0):
    import torch

    from txl.tests.gpu import dsl_cases

    gen = torch.Generator().manual_seed(seed)
    for job in selected:
        b = _build(job, dsl_cases.TorchFactory(seed))
        B, H = job[3][1], job[3][2]
        t = time.time()
        _kernel(job[0])[b["grid"]](*b["args"], **b["kwargs"])
        torch.cuda.synchronize()  # a trapped hang raises here (and the context is gone: the parent reports it)
        o = b["out"]
        heads = {(0, 0), (B - 1, H - 1)} | {(int(torch.randint(B, (1,), generator=gen)),
                                              int(torch.randint(H, (1,), generator=gen))) for _ in range(CHECK_HEADS)}
        unwritten = int(torch.isnan(o).sum())
        err = _reference_heads(job, b, torch, sorted(heads))
        ok = unwritten == 0 and err < 2e-2
        print("SWEEP %s %s grid=%s err=%.2e unwritten=%d %.0f ms" % (
            "ok" if ok else "FAIL", _name(job), list(b["grid"]), err, unwritten, (time.time() - t) * 1e3), flush=True)
        del b
    print("SWEEP done", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel")
    ap.add_argument("--head-dim", type=int)
    ap.add_argument("--precompile", action="store_true")
    ap.add_argument("--workers", type=int)
    args = ap.parse_args(argv)
    selected = jobs(args.kernel, args.head_dim)
    if args.precompile:
        return 1 if precompile(selected, args.workers) else 0
    run(selected)
    return 0


if __name__ == "__main__":
    sys.exit(main())
