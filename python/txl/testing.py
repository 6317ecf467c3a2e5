"""``txl.testing``: Triton's ``triton.testing.do_bench`` / ``do_bench_cudagraph`` with the same signatures.

Importing it needs neither torch nor a GPU; calling a benchmark without a CUDA GPU (or without torch) raises a
``RuntimeError`` that says so. Times are in milliseconds, measured with CUDA events on torch's current stream;
``do_bench`` flushes the L2 cache (a 256 MB write) before every timed run, as Triton does.
"""

import math

_MODES = ("min", "max", "mean", "median", "all")


def _torch_cuda(what):
    try:
        import torch
    except ImportError:
        raise RuntimeError("txl.testing.%s needs torch with a CUDA GPU: torch is not installed" % what) from None
    if not torch.cuda.is_available():
        raise RuntimeError("txl.testing.%s needs a CUDA GPU: torch.cuda.is_available() is False on this machine"
                           % what)
    return torch


def _check_mode(return_mode):
    if return_mode not in _MODES:
        raise ValueError("return_mode must be one of %s, got %r" % (", ".join(_MODES), return_mode))


def _quantile(sorted_times, q):
    """torch.quantile's default ('linear' interpolation) on sorted values."""
    if not 0.0 <= q <= 1.0:
        raise ValueError("quantiles must be in [0, 1], got %r" % (q,))
    pos = q * (len(sorted_times) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(sorted_times) - 1)
    return sorted_times[lo] + (sorted_times[hi] - sorted_times[lo]) * (pos - lo)


def summarize(times, quantiles=None, return_mode="mean"):
    """What do_bench returns for the measured ``times`` (ms): the ``quantiles`` (a list, or one number for one
    quantile) when given, else all times (``"all"``) or their min / max / mean / median (torch's median: the
    lower middle value)."""
    _check_mode(return_mode)
    times = [float(t) for t in times]
    if not times:
        raise ValueError("no times to summarize")
    s = sorted(times)
    if quantiles is not None:
        ret = [_quantile(s, float(q)) for q in quantiles]
        return ret[0] if len(ret) == 1 else ret
    if return_mode == "all":
        return times
    if return_mode == "min":
        return s[0]
    if return_mode == "max":
        return s[-1]
    if return_mode == "median":
        return s[(len(s) - 1) // 2]
    return sum(times) / len(times)


def _reset_grads(grad_to_none):
    for x in grad_to_none or ():
        x.grad = None


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Time ``fn()`` (ms): estimate one run from 5, run ``warmup`` ms worth, then time ``rep`` ms worth of runs,
    each after an L2 flush (and with the ``grad_to_none`` tensors' ``.grad`` reset). Returns ``summarize(times,
    quantiles, return_mode)``."""
    _check_mode(return_mode)
    torch = _torch_cuda("do_bench")
    fn()
    torch.cuda.synchronize()
    cache = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        cache.zero_()
        fn()
    end.record()
    torch.cuda.synchronize()
    estimate = max(start.elapsed_time(end) / 5, 1e-6)
    n_warmup = max(1, int(warmup / estimate))
    n_repeat = max(1, int(rep / estimate))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    for _ in range(n_warmup):
        fn()
    for s, e in zip(starts, ends):
        _reset_grads(grad_to_none)
        cache.zero_()
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return summarize([s.elapsed_time(e) for s, e in zip(starts, ends)], quantiles, return_mode)


def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Time ``fn()`` (ms) replayed from a CUDA graph (Triton's do_bench_cudagraph): the graph holds enough calls
    for ``rep`` ms; each of 10 replays gives one time per call."""
    _check_mode(return_mode)
    torch = _torch_cuda("do_bench_cudagraph")
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        fn()  # compile / first launch outside the capture
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            fn()
        start.record()
        for _ in range(5):
            g.replay()
        end.record()
        torch.cuda.synchronize()
        estimate = max(start.elapsed_time(end) / 5, 1e-6)
        n_repeat = max(1, int(rep / estimate))
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(n_repeat):
                _reset_grads(grad_to_none)
                fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(10):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            g.replay()
            e.record()
            torch.cuda.synchronize()
            times.append(s.elapsed_time(e) / n_repeat)
    return summarize(times, quantiles, return_mode)
