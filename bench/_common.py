"""What the attention benchmarks share (bench/attention.py, attention_fp8.py, attention_check.py import it; they run
as scripts, so this folder is on sys.path): GPU timing by CUDA events, the float32 reference rows and the command
line of a benchmark that can also only precompile."""

import argparse


def median_ms(torch, fn, n):
    """Median GPU time of ``n`` calls queued back to back (no synchronisation between them, as in
    triton.testing.do_bench), so host launch overhead overlaps the previous call instead of being timed: the same
    rule for our kernels and for torch's."""
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(n)]
    for a, b in events:
        a.record()
        fn()
        b.record()
    torch.cuda.synchronize()
    ts = sorted(a.elapsed_time(b) for a, b in events)
    return ts[len(ts) // 2]


def time_ms(torch, fn, target_ms=300.0):
    """Median GPU time of one call (median_ms), over as many calls (5 to 50) as fill about ``target_ms``."""
    fn()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    fn()
    b.record()
    b.synchronize()
    est = max(a.elapsed_time(b), 1e-3)
    n = int(min(50, max(5, target_ms / est)))
    for _ in range(min(3, n)):
        fn()
    return median_ms(torch, fn, n)


def reference_rows(torch, q, k, v, b, h, causal, scale, chunk=2048):
    """float32 softmax(q k^T * scale) v (causal: key <= query) of batch b, head h of (B, H, N, D) tensors, a chunk
    of query rows at a time (a whole N x N score matrix of a long sequence would not fit): yields (r0, r1, rows)."""
    N = q.shape[2]
    kf, vf = k[b, h].float(), v[b, h].float()
    for r0 in range(0, N, chunk):
        r1 = min(N, r0 + chunk)
        s = (q[b, h, r0:r1].float() @ kf.T) * scale
        if causal:
            rows = torch.arange(r0, r1, device=s.device)[:, None]
            s = s.masked_fill(torch.arange(N, device=s.device)[None, :] > rows, float("-inf"))
        yield r0, r1, torch.softmax(s, dim=-1) @ vf


def precompile_or_run(doc, precompile, run, add_args=None):
    """The command line of a table benchmark: --precompile DIR (compile what the run would use into a cache, no GPU:
    ``precompile(DIR)``), else ``run(args)`` with --cache DIR and --rows ROWS (and what ``add_args(parser)`` adds).
    Returns their exit status."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--precompile", metavar="DIR", help="compile every kernel/config the run uses into cache DIR")
    ap.add_argument("--cache", metavar="DIR", help="the kernel cache to use (TXL_CACHE_DIR)")
    ap.add_argument("--rows", type=int, default=0, help="only the first ROWS rows")
    if add_args is not None:
        add_args(ap)
    args = ap.parse_args()
    if args.precompile:
        return precompile(args.precompile)
    return run(args)
