"""``txl.testing``: Triton's ``triton.testing.do_bench`` / ``do_bench_cudagraph`` with the same signatures, and
its ``Benchmark`` / ``perf_report`` tables.

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


class Benchmark:
    """Triton's ``triton.testing.Benchmark``: one table (and plot) of ``perf_report``: each value of ``x_vals`` for
    the ``x_names`` arguments (a scalar sets them all, a tuple one each) times each ``line_vals`` value of the
    ``line_arg`` argument, with ``args`` fixed."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names, plot_name, args, xlabel="", ylabel="",
                 x_log=False, y_log=False, color=None, styles=None):
        self.x_names = x_names
        self.x_vals = x_vals
        self.x_log = x_log
        self.line_arg = line_arg
        self.line_vals = line_vals
        self.line_names = line_names
        self.y_log = y_log
        self.styles = styles
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.plot_name = plot_name
        self.args = args


class Mark:
    """What ``perf_report`` returns: ``run(show_plots=False, print_data=False, save_path="", return_df=False,
    **kwargs)`` calls the function for every point of every benchmark. As Triton's, except that pandas and
    matplotlib are needed only for what uses them: ``return_df`` (pandas DataFrames), ``show_plots`` and the PNGs
    of ``save_path`` (matplotlib); printing and the CSV files need neither."""

    def __init__(self, fn, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def _rows(self, bench, kwargs):
        """[(x values, [(mean, min, max) per line])]: the function returns a number or (mean, min, max)."""
        x_names = list(bench.x_names)
        rows = []
        for x in bench.x_vals:
            xs = list(x) if isinstance(x, (list, tuple)) else [x] * len(x_names)
            if len(xs) != len(x_names):
                raise ValueError("Expected %d values, got %r" % (len(x_names), x))
            ys = []
            for y in bench.line_vals:
                ret = self.fn(**dict(zip(x_names, xs)), **{bench.line_arg: y}, **bench.args, **kwargs)
                try:
                    mean, lo, hi = ret
                except TypeError:
                    mean, lo, hi = ret, None, None
                ys.append((mean, lo, hi))
            rows.append((xs, ys))
        return rows

    def _run(self, bench, save_path, show_plots, print_data, diff_col=False, return_df=False, **kwargs):
        import os

        x_names = list(bench.x_names)
        columns = x_names + list(bench.line_names)
        rows = self._rows(bench, kwargs)
        table = [xs + [y[0] for y in ys] for xs, ys in rows]
        if diff_col and len(columns) == 2:  # Triton: a Diff column for a table of two columns
            columns.append("Diff")
            table = [r + [r[1] - r[0]] for r in table]
        plt = None
        if bench.plot_name and (show_plots or save_path):
            try:
                import matplotlib.pyplot as plt
            except ImportError:
                if show_plots:
                    raise RuntimeError("txl.testing perf_report: show_plots=True (plot %r) needs matplotlib, which "
                                       "is not installed; pip install matplotlib, or run with print_data=True"
                                       % bench.plot_name) from None
                # save_path without matplotlib: the table is still saved (CSV), the plot is not.
                import warnings

                warnings.warn("txl.testing perf_report: matplotlib is not installed, so %s.png is not drawn; "
                              "%s.csv is saved (pip install matplotlib for the plot)"
                              % (bench.plot_name, bench.plot_name), stacklevel=3)
        if plt is not None:
            plt.figure()
            ax = plt.subplot()
            xs = [xv[0] for xv, _ in rows]
            for i, name in enumerate(bench.line_names):
                col = bench.styles[i][0] if bench.styles else None
                sty = bench.styles[i][1] if bench.styles else None
                ax.plot(xs, [ys[i][0] for _, ys in rows], label=name, color=col, ls=sty)
                lo, hi = [ys[i][1] for _, ys in rows], [ys[i][2] for _, ys in rows]
                if None not in lo and None not in hi:
                    ax.fill_between(xs, lo, hi, alpha=0.15, color=col)
            ax.legend()
            ax.set_xlabel(bench.xlabel or x_names[0])
            ax.set_ylabel(bench.ylabel)
            ax.set_xscale("log" if bench.x_log else "linear")
            ax.set_yscale("log" if bench.y_log else "linear")
            if show_plots:
                plt.show()
            if save_path:
                plt.savefig(os.path.join(save_path, "%s.png" % bench.plot_name))
        if print_data:
            print(bench.plot_name + ":")
            print(_format_table(columns, table))
        if save_path:
            with open(os.path.join(save_path, "%s.csv" % bench.plot_name), "w") as f:
                f.write(",".join(columns) + "\n")
                for r in table:
                    f.write(",".join("%.1f" % v if isinstance(v, float) else str(v) for v in r) + "\n")
        if return_df:
            try:
                import pandas as pd
            except ImportError:
                raise RuntimeError("txl.testing perf_report: run(return_df=True) returns pandas DataFrames, and "
                                   "pandas is not installed; pip install pandas") from None
            return pd.DataFrame(table, columns=columns)
        return None

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        import os

        single = isinstance(self.benchmarks, Benchmark)
        benchmarks = [self.benchmarks] if single else self.benchmarks
        html = None
        if save_path:
            html = open(os.path.join(save_path, "results.html"), "w")
            html.write("<html><body>\n")
        try:
            dfs = []
            for bench in benchmarks:
                dfs.append(self._run(bench, save_path, show_plots, print_data, return_df=return_df, **kwargs))
                if html is not None:
                    html.write('<image src="%s.png"/>\n' % bench.plot_name)
        finally:
            if html is not None:
                html.write("</body></html>\n")
                html.close()
        if return_df:
            return dfs[0] if single else dfs
        return None


def _format_table(columns, table):
    """A right-aligned text table with an index column, as pandas prints a DataFrame."""
    cells = [[""] + [str(c) for c in columns]] + [[str(i)] + ["%g" % v if isinstance(v, float) else str(v) for v in r]
                                                   for i, r in enumerate(table)]
    widths = [max(len(row[j]) for row in cells) for j in range(len(cells[0]))]
    return "\n".join("  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in cells)


def perf_report(benchmarks):
    """Triton's decorator: ``@perf_report(Benchmark(...))`` (or a list of them) makes the function a ``Mark``, run
    with ``.run(print_data=True, ...)``."""
    return lambda fn: Mark(fn, benchmarks)
