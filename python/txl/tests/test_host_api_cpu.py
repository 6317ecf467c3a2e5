"""Triton's host API without a GPU: txl.cdiv / txl.next_power_of_2, txl.Config and txl.autotune with Triton's
arguments (key, prune_configs_by, reset_to_zero, restore_value, pre_hook/post_hook, warmup/rep/use_cuda_graph,
do_bench), txl.heuristics (alone, under and over an autotuner) and txl.testing.do_bench (its statistics, and a
clear error without a GPU). Launches are recorded by a stand-in for JITFunction.run, timings come from a fake
timer."""

import sys
import types

import pytest

import txl
import txl.language as tl
from txl.tests.txl_fakes import FakeTensor


def make_kernel():
    @txl.jit
    def kern(x_ptr, out_ptr, n, BLOCK: tl.constexpr, SPLIT: tl.constexpr = 1):
        pass

    return kern


class Buf(FakeTensor):
    """A fake tensor with the in-place ops the reset/restore hooks use; ``value`` stands for its contents."""

    def __init__(self, value=0.0, **kw):
        super().__init__((64,), **kw)
        self.value = value
        self.log = []

    def zero_(self):
        self.value = 0.0
        self.log.append("zero")
        return self

    def clone(self):
        c = Buf(self.value)
        self.log.append("clone")
        return c

    def copy_(self, other):
        self.value = other.value
        self.log.append("restore")
        return self


class Recorder:
    """Stands in for JITFunction.run: records each launch (arguments by name) and accumulates into out_ptr."""

    def __init__(self, jf):
        self.jf = jf
        self.launches = []

    def __call__(self, *args, grid, _launch=True, **kw):
        if not _launch:  # the autotuner's pre-compile (JITFunction.warmup): nothing runs
            return None
        kw.update(zip(self.jf.arg_names, args))
        self.launches.append(dict(kw, grid=grid))
        out = kw.get("out_ptr")
        if isinstance(out, Buf):
            out.value += 1.0  # a kernel that accumulates (atomics / split-K): tuning runs would pile up

    def bench(self, call):
        call()
        return {64: 3.0, 128: 1.0, 256: 2.0, 512: 0.5}[self.launches[-1]["BLOCK"]]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TXL_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _tuned(configs, key=("n",), **kw):
    jf = make_kernel()
    rec = jf.run = Recorder(jf)
    kw.setdefault("verbose", False)
    return txl.autotune(configs, key=list(key), bench=rec.bench, **kw)(jf), rec


CONFIGS = [txl.Config({"BLOCK": b}) for b in (64, 128, 256)]


# -- small helpers ------------------------------------------------------------------------------------------------
def test_cdiv_and_next_power_of_2():
    assert [txl.cdiv(n, 64) for n in (0, 1, 64, 65, 128)] == [0, 1, 1, 2, 2]
    assert [txl.next_power_of_2(n) for n in (0, 1, 2, 3, 64, 65, 1000)] == [1, 1, 2, 4, 64, 128, 1024]


def test_config_accepts_tritons_arguments():
    c = txl.Config({"BLOCK": 128}, num_warps=8, num_stages=4, num_ctas=1, maxnreg=128, pre_hook=None)
    assert c.all_kwargs() == {"BLOCK": 128, "num_warps": 8, "num_warpgroups": 1, "num_stages": 4, "num_ctas": 1,
                              "maxnreg": 128}
    assert c.options == {"num_warps": 8, "num_warpgroups": 1, "num_stages": 4}  # what the launch gets
    assert "maxnreg=128" in repr(c)
    c2 = txl.Config({}, num_ctas=2)  # a thread-block cluster of 2 CTAs per program
    assert c2.options["num_ctas"] == 2 and "num_ctas=2" in repr(c2) and c2.to_dict()["num_ctas"] == 2
    with pytest.raises(ValueError, match="num_ctas=16.*1..8"):
        txl.Config({}, num_ctas=16)


# -- autotune -------------------------------------------------------------------------------------------------------
def test_autotune_positional_arguments_follow_triton(cache):
    seen = []

    def early(configs, nargs, **kw):
        seen.append(sorted(nargs))
        return configs[:2]

    jf = make_kernel()
    rec = jf.run = Recorder(jf)
    # triton.autotune(configs, key, prune_configs_by, reset_to_zero, restore_value, ...)
    t = txl.autotune(CONFIGS, ["n"], {"early_config_prune": early}, ["out_ptr"], None, bench=rec.bench,
                     verbose=False)(jf)
    x, out = FakeTensor((64,)), Buf()
    t[(1,)](x, out, 64)
    assert seen == [["n", "out_ptr", "x_ptr"]]
    assert t.reset_to_zero == ["out_ptr"] and t.best_config is CONFIGS[1]


def test_early_config_prune_and_perf_model_top_k(cache):
    calls = []

    def early(configs, nargs, **kw):
        assert nargs["n"] == 1000 and kw == {"SPLIT": 2}
        return [c for c in configs if c.kwargs["BLOCK"] <= 256]

    def perf_model(**kw):
        calls.append(kw)
        return {64: 5.0, 128: 9.0, 256: 1.0}[kw["BLOCK"]]  # predicts 256 best, then 64

    configs = CONFIGS + [txl.Config({"BLOCK": 512})]
    t, rec = _tuned(configs, prune_configs_by={"early_config_prune": early, "perf_model": perf_model, "top_k": 2})
    t[(1,)](FakeTensor((64,)), FakeTensor((64,)), 1000, SPLIT=2)
    (timings,) = t.timings.values()
    tuned = [c for c, ms, err in timings]
    assert [c.kwargs["BLOCK"] for c in tuned] == [256, 64]  # 512 pruned early, 128 by the model
    assert calls[0]["n"] == 1000 and calls[0]["SPLIT"] == 2 and calls[0]["num_warps"] == 4
    assert t.best_config.kwargs == {"BLOCK": 256}


def test_top_k_fraction_and_errors(cache):
    t, rec = _tuned(CONFIGS, prune_configs_by={"perf_model": lambda **kw: kw["BLOCK"], "top_k": 0.34})
    t[(1,)](FakeTensor((64,)), FakeTensor((64,)), 10)
    (timings,) = t.timings.values()
    assert [c.kwargs["BLOCK"] for c, _, _ in timings] == [64]
    with pytest.raises(ValueError, match="unknown key"):
        _tuned(CONFIGS, prune_configs_by={"perf_modle": None})
    t, rec = _tuned(CONFIGS, prune_configs_by={"early_config_prune": lambda c, n, **kw: []}, cache_results=False)
    with pytest.raises(RuntimeError, match="early_config_prune returned no config"):
        t[(1,)](FakeTensor((64,)), FakeTensor((64,)), 10)


def test_reset_to_zero_and_restore_value(cache):
    t, rec = _tuned(CONFIGS, reset_to_zero=["out_ptr"])
    out = Buf(7.0)
    t[(1,)](FakeTensor((64,)), out, 64)
    # zeroed before each of the 3 benchmarked launches and once more before the real launch, which adds 1
    assert out.log == ["zero"] * 4 and out.value == 1.0
    t[(1,)](FakeTensor((64,)), out, 64)  # tuned already: nothing is reset
    assert out.log == ["zero"] * 4 and out.value == 2.0

    t, rec = _tuned(CONFIGS, restore_value=["out_ptr"], cache_results=False)
    out = Buf(7.0)
    t[(1,)](FakeTensor((64,)), out, 64)
    assert out.log == ["clone", "restore"] * 3 and out.value == 8.0  # each tuning run undone; the launch stays


def test_user_hooks_replace_the_defaults(cache):
    events = []
    t, rec = _tuned(CONFIGS[:2], reset_to_zero=["out_ptr"],
                    pre_hook=lambda nargs, reset_only=False: events.append(("pre", nargs["BLOCK"], reset_only)),
                    post_hook=lambda nargs, exception: events.append(("post", nargs["BLOCK"], exception)))
    out = Buf(7.0)
    t[(1,)](FakeTensor((64,)), out, 64)
    assert events == [("pre", 64, False), ("post", 64, None), ("pre", 128, False), ("post", 128, None),
                      ("pre", 128, True)]
    assert out.log == []  # the user's pre_hook replaced reset_to_zero's


def test_autotune_validates_names(cache):
    jf = make_kernel()
    with pytest.raises(ValueError, match=r"reset_to_zero=\['y'\]\) of kern: y is not a parameter"):
        txl.autotune(CONFIGS, key=["n"], reset_to_zero=["y"])(jf)
    with pytest.raises(TypeError, match="takes a list of parameter names"):
        txl.autotune(CONFIGS, key="n")(jf)


def test_warmup_rep_use_cuda_graph_and_do_bench_are_accepted(cache):
    jf = make_kernel()
    rec = jf.run = Recorder(jf)
    quantiles_seen = []

    def do_bench(kernel_call, quantiles=None):
        quantiles_seen.append(quantiles)
        return [rec.bench(kernel_call), 0.0, 0.0]

    t = txl.autotune(CONFIGS, key=["n"], warmup=5, rep=20, use_cuda_graph=True, do_bench=do_bench,
                     verbose=False)(jf)
    assert (t.warmup_ms, t.rep_ms, t.use_cuda_graph) == (5, 20, True)
    t[(1,)](FakeTensor((64,)), FakeTensor((64,)), 64)
    assert t.best_config.kwargs == {"BLOCK": 128}
    assert quantiles_seen == [(0.5, 0.2, 0.8)] * 3


# -- heuristics -----------------------------------------------------------------------------------------------------
def test_heuristics_compute_constexprs_from_the_arguments():
    jf = make_kernel()
    rec = jf.run = Recorder(jf)
    h = txl.heuristics({"BLOCK": lambda a: txl.next_power_of_2(a["n"]),
                        "SPLIT": lambda a: 2 if a["BLOCK"] > 64 else 1})(jf)  # sees the earlier values
    h[(1,)](FakeTensor((64,)), FakeTensor((64,)), 100)
    h[(2,)](FakeTensor((64,)), FakeTensor((64,)), n=33)
    assert [(r["BLOCK"], r["SPLIT"], r["grid"]) for r in rec.launches] == [(128, 2, (1,)), (64, 1, (2,))]
    assert h.arg_names == jf.arg_names and h.__name__ == "kern"


def test_heuristics_under_and_over_autotune(cache):
    # @txl.autotune over @txl.heuristics: the heuristic sees the config's values.
    jf = make_kernel()
    rec = jf.run = Recorder(jf)
    inner = txl.heuristics({"SPLIT": lambda a: a["BLOCK"] // 64})(jf)
    t = txl.autotune(CONFIGS, key=["n"], bench=rec.bench, verbose=False)(inner)
    t[(1,)](FakeTensor((64,)), FakeTensor((64,)), 64)
    assert [(r["BLOCK"], r["SPLIT"]) for r in rec.launches] == [(64, 1), (128, 2), (256, 4), (128, 2)]
    # @txl.heuristics over @txl.autotune: the heuristic runs first and its value reaches every config.
    jf = make_kernel()
    rec = jf.run = Recorder(jf)
    outer = txl.heuristics({"SPLIT": lambda a: 3 if a["n"] > 100 else 1})(
        txl.autotune(CONFIGS, key=["n"], bench=rec.bench, verbose=False)(jf))
    outer[(1,)](FakeTensor((64,)), FakeTensor((64,)), 1000)
    assert {r["SPLIT"] for r in rec.launches} == {3} and len(rec.launches) == 4


def test_heuristics_usage_errors():
    jf = make_kernel()
    with pytest.raises(ValueError, match="BLOKC is not a parameter"):
        txl.heuristics({"BLOKC": lambda a: 1})(jf)
    with pytest.raises(TypeError, match="takes a dict"):
        txl.heuristics({"BLOCK": 64})(jf)
    with pytest.raises(TypeError, match="decorates a @txl.jit"):
        txl.heuristics({"BLOCK": lambda a: 1})(lambda x: x)


# -- txl.testing ------------------------------------------------------------------------------------------------
def test_testing_imports_without_torch_and_fails_clearly_without_a_gpu(monkeypatch):
    import txl.testing

    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` raises ImportError
    with pytest.raises(RuntimeError, match="txl.testing.do_bench needs torch with a CUDA GPU: torch is not "
                                           "installed"):
        txl.testing.do_bench(lambda: None)
    fake = types.SimpleNamespace(cuda=types.SimpleNamespace(is_available=lambda: False))
    monkeypatch.setitem(sys.modules, "torch", fake)
    with pytest.raises(RuntimeError, match=r"needs a CUDA GPU: torch.cuda.is_available\(\) is False"):
        txl.testing.do_bench(lambda: None)
    with pytest.raises(RuntimeError, match="do_bench_cudagraph needs a CUDA GPU"):
        txl.testing.do_bench_cudagraph(lambda: None)
    with pytest.raises(ValueError, match="return_mode"):
        txl.testing.do_bench(lambda: None, return_mode="avg")


def test_summarize_matches_tritons_statistics():
    from txl.testing import summarize

    times = [4.0, 1.0, 3.0, 2.0]
    assert summarize(times) == 2.5
    assert summarize(times, return_mode="median") == 2.0  # torch.median: the lower middle value
    assert summarize(times, return_mode="min") == 1.0 and summarize(times, return_mode="max") == 4.0
    assert summarize(times, return_mode="all") == times
    assert summarize(times, quantiles=[0.5, 0.2, 0.8]) == pytest.approx([2.5, 1.6, 3.4])  # torch.quantile
    assert summarize(times, quantiles=[0.5]) == 2.5


class _FakeCuda:
    """torch.cuda for do_bench: each event records a fake clock that fn() advances by 2 ms."""

    def __init__(self):
        self.clock = 0.0
        self.syncs = 0
        outer = self

        class Event:
            def __init__(self, enable_timing=False):
                self.t = None

            def record(self):
                self.t = outer.clock

            def elapsed_time(self, other):
                return other.t - self.t

        self.Event = Event

    def is_available(self):
        return True

    def synchronize(self):
        self.syncs += 1


def test_do_bench_with_a_fake_gpu(monkeypatch):
    import txl.testing

    cuda = _FakeCuda()
    flushes = []

    class Cache:
        def zero_(self):
            flushes.append(1)

    fake = types.SimpleNamespace(cuda=cuda, int32="int32", empty=lambda n, dtype, device: Cache())
    monkeypatch.setitem(sys.modules, "torch", fake)
    runs = []

    def fn():
        runs.append(1)
        cuda.clock += 2.0

    t = txl.testing.do_bench(fn, warmup=10, rep=20, quantiles=[0.5, 0.2, 0.8])
    assert t == [2.0, 2.0, 2.0]
    # 1 first run + 5 to estimate + warmup 10 ms / 2 ms + rep 20 ms / 2 ms timed runs, each timed one flushed
    assert len(runs) == 1 + 5 + 5 + 10 and len(flushes) == 5 + 10
    assert txl.testing.do_bench(fn, rep=8, return_mode="all") == [2.0] * 4
