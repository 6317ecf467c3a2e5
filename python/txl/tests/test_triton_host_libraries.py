"""Triton's host API as libraries built on Triton use it (flash-linear-attention 0.6, Liger-Kernel 0.8), without a
GPU: a subclass of ``triton.runtime.autotuner.Autotuner`` written the way flash-linear-attention's CachedAutotuner
is (Triton's constructor, None-safe hooks over ``user_defined_pre_hook``, a ``run`` that fills ``self.cache`` with
Triton's tuning key before calling ``super().run``), ``triton.Config``'s fields and equality, ``@triton.jit``'s
keyword arguments, ``triton.heuristics`` stacked with ``autotune`` in Triton's orders, ``triton.runtime.driver``
under both spellings, ``triton.testing``'s names, and ``triton.__version__`` compared the ways libraries compare it.
Launches are recorded by a stand-in for JITFunction.run; timings come from a fake ``do_bench``."""

import pickle
import sys

import pytest

import txl
import txl as triton  # as an import-swapped library spells it
import txl.language as tl
from txl.language.triton_api import TRITON_VERSION
from txl.runtime import active_driver
from txl.runtime import driver as drv_mod
from txl.runtime.autotuner import Autotuner
from txl.tests.test_triton_host_cpu import FakeCuda, fake_torch
from txl.tests.txl_fakes import FakeTensor

TIMES = {32: 3.0, 64: 1.0, 128: 2.0}  # ms per BT for the fake timer


def make_kernel():
    @triton.jit(do_not_specialize=["T"])
    def chunk_kernel(x, o, T, BT: tl.constexpr, USE_G: tl.constexpr = False):
        pass

    return chunk_kernel


class Buf(FakeTensor):
    """A fake tensor with the in-place ops the reset/restore hooks use."""

    def __init__(self, value=0.0):
        super().__init__((64,))
        self.value = value
        self.log = []

    def zero_(self):
        self.value = 0.0
        self.log.append("zero")

    def clone(self):
        self.log.append("clone")
        return Buf(self.value)

    def copy_(self, other):
        self.value = other.value
        self.log.append("restore")


class Recorder:
    """Stands in for JITFunction.run: records each launch by name; each launch adds 1 to ``o`` (an accumulating
    kernel, so that tuning runs would pile up without restore_value)."""

    def __init__(self, jf):
        self.jf = jf
        self.launches = []

    def __call__(self, *args, grid, _launch=True, **kw):
        if not _launch:  # the autotuner's concurrent pre-compile: nothing runs
            return None
        kw.update(zip(self.jf.arg_names, args))
        self.launches.append(dict(kw, grid=grid))
        if isinstance(kw.get("o"), Buf):
            kw["o"].value += 1.0

    def do_bench(self, kernel_call, quantiles=None):
        """Triton's do_bench(kernel_call, quantiles) -> [median, p20, p80]."""
        kernel_call()
        ms = TIMES[self.launches[-1]["BT"]]
        return [ms, ms, ms]


CONFIGS = [triton.Config({"BT": bt}, num_warps=4, num_stages=2) for bt in (32, 64, 128)]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TXL_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


# ---------------------------------------------------------------------------------------------------------------
# a subclass of Autotuner in flash-linear-attention's style (fla/ops/utils/cache.py: CachedAutotuner)
# ---------------------------------------------------------------------------------------------------------------
STORED = {}  # kernel name -> {tuning key: config dict}: the library's own config files


class CachedAutotuner(Autotuner):
    def __init__(self, fn, arg_names, configs, key, reset_to_zero, restore_value, **kwargs):
        super().__init__(fn, arg_names, configs, key, reset_to_zero, restore_value, **kwargs)
        self.kernel_name = fn.fn.__name__ if hasattr(fn, "fn") else fn.__name__
        self.loaded = []
        # None-safe hooks, installed only where the user gave none (the library reads Triton's flags)
        if not self.user_defined_pre_hook and (self.reset_to_zero or self.restore_value):
            def _pre_hook(kw, reset_only=False):
                for n in self.reset_to_zero:
                    if kw[n] is not None:
                        kw[n].zero_()
                if not reset_only:
                    self.restore_copies = {n: kw[n].clone() for n in self.restore_value if kw[n] is not None}
            self.pre_hook = _pre_hook
        if not self.user_defined_post_hook and self.restore_value:
            def _post_hook(kw, exception):
                for n, copy in self.restore_copies.items():
                    kw[n].copy_(copy)
                self.restore_copies = {}
            self.post_hook = _post_hook

    @staticmethod
    def tuning_key(arg_names, key_names, args, kwargs):
        # The library builds Triton's key itself, to look it up in its files and to fill self.cache.
        tracked = {k: v for k, v in {**dict(zip(arg_names, args)), **kwargs}.items() if k in arg_names}
        key = [tracked[name] for name in key_names if name in tracked]
        key += [str(v.dtype) for v in tracked.values() if hasattr(v, "dtype")]
        return tuple(key)

    def run(self, *args, **kwargs):
        key = self.tuning_key(self.arg_names, self.keys, args, kwargs)
        best = STORED.get(self.kernel_name, {}).get(key)
        if best is not None:
            cfg = triton.Config(best["kwargs"], num_warps=best["num_warps"], num_stages=best["num_stages"],
                                num_ctas=best["num_ctas"], maxnreg=best.get("maxnreg"), pre_hook=None,
                                ir_override=best.get("ir_override"))
            if self.early_config_prune is not None:
                kept = self.early_config_prune([*self.configs, cfg], dict(zip(self.arg_names, args)), **kwargs)
                if cfg not in kept:  # Config equality: a config equal to the stored one may come back
                    self.cache.pop(key, None)
                    return super().run(*args, **kwargs)
            self.cache[key] = cfg
            self.loaded.append(key)
        return super().run(*args, **kwargs)


def cache_autotune(configs, key=None, prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None,
                   post_hook=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None, cache_results=False):
    def decorator(fn):
        return CachedAutotuner(fn, fn.arg_names, configs, key or [], reset_to_zero, restore_value,
                               pre_hook=pre_hook, post_hook=post_hook, prune_configs_by=prune_configs_by,
                               warmup=warmup, rep=rep, use_cuda_graph=use_cuda_graph, do_bench=do_bench,
                               cache_results=cache_results)

    return decorator


def test_subclass_tunes_through_txl_with_tritons_state(cache, capsys):
    jf = make_kernel()
    rec = jf.run = Recorder(jf)
    seen = []

    def prune(configs, named_args, **kwargs):
        seen.append((sorted(named_args), sorted(kwargs)))
        return configs

    k = cache_autotune(CONFIGS, key=["T"], restore_value=["o"], do_bench=rec.do_bench,
                       prune_configs_by={"early_config_prune": prune})(jf)
    assert isinstance(k, Autotuner) and isinstance(k, txl.autotune.__globals__["Autotuner"])
    assert k.keys == ["T"] and k.arg_names == jf.arg_names and k.configs == CONFIGS and k.nargs is None
    assert not k.user_defined_pre_hook and k.cache_results is False  # Triton's default for the class
    x, o = FakeTensor((64,)), Buf(5.0)
    k[(4,)](x, o, 1000, USE_G=True)
    key = (1000, "torch.float32", "torch.float32")  # Triton's key: T, then every argument's dtype
    assert k.cache == {key: CONFIGS[1]} and k.best_config is CONFIGS[1] and k.nargs is None
    assert seen == [(["T", "o", "x"], ["USE_G"])]  # positional arguments by name, keyword ones apart
    # three tuning runs, each undone by the library's own restore hooks; the real launch stays
    assert o.log == ["clone", "restore"] * 3 and o.value == 6.0
    assert [r["BT"] for r in rec.launches] == [32, 64, 128, 64]
    assert rec.launches[-1]["num_stages"] == 2 and rec.launches[-1]["USE_G"] is True
    assert set(k.configs_timings) == set(CONFIGS) and k.configs_timings[CONFIGS[1]] == 1.0
    assert "best Config(BT=64" in capsys.readouterr().out
    # tuned: one launch, no tuning
    k[(4,)](x, o, 1000, USE_G=True)
    assert len(rec.launches) == 5 and o.log == ["clone", "restore"] * 3


def test_subclass_fills_the_cache_before_run(cache):
    jf = make_kernel()
    rec = jf.run = Recorder(jf)
    k = cache_autotune(CONFIGS, key=["T"], do_bench=rec.do_bench)(jf)
    key = (2048, "torch.bfloat16", "torch.bfloat16")
    STORED["chunk_kernel"] = {key: {"kwargs": {"BT": 128}, "num_warps": 8, "num_stages": 3, "num_ctas": 1}}
    try:
        x = FakeTensor((64,), "bfloat16")
        k[(1,)](x, x, 2048)
        assert k.loaded == [key] and len(rec.launches) == 1  # the stored config: nothing benchmarked
        assert rec.launches[0]["BT"] == 128 and rec.launches[0]["num_warps"] == 8
        # the library replaces the entry between launches (its "always re-read" mode): the fast path of the
        # repeated launch must not keep the earlier choice
        STORED["chunk_kernel"][key] = {"kwargs": {"BT": 32}, "num_warps": 4, "num_stages": 1, "num_ctas": 1}
        k[(1,)](x, x, 2048)
        assert rec.launches[1]["BT"] == 32 and rec.launches[1]["num_stages"] == 1
    finally:
        STORED.clear()


def test_subclass_cached_config_rejected_by_pruning_falls_back_to_tuning(cache):
    jf = make_kernel()
    rec = jf.run = Recorder(jf)
    k = cache_autotune(CONFIGS, key=["T"], do_bench=rec.do_bench,
                       prune_configs_by={"early_config_prune": lambda cs, nargs, **kw: [c for c in cs
                                                                                        if c.num_stages == 2]})(jf)
    key = (64, "torch.float32", "torch.float32")
    STORED["chunk_kernel"] = {key: {"kwargs": {"BT": 128}, "num_warps": 8, "num_stages": 3, "num_ctas": 1}}
    try:
        x = FakeTensor((64,))
        k[(1,)](x, x, 64)
        assert k.loaded == [] and k.cache[key] is CONFIGS[1]  # tuned over the pruned configs instead
    finally:
        STORED.clear()


def test_autotuner_constructor_and_run_are_tritons(cache):
    jf = make_kernel()
    rec = jf.run = Recorder(jf)
    # all of Triton's positional parameters, in Triton's order
    k = Autotuner(jf, jf.arg_names, CONFIGS, ["T"], ["o"], None, None, None, None, None, None, False, rec.do_bench,
                  False, verbose=False)
    assert k.reset_to_zero == ["o"] and k.restore_value == [] and k.cache_results is False
    o = Buf(3.0)
    # Triton's KernelInterface launches as run(*args, grid=grid, warmup=False, **kwargs)
    k.run(FakeTensor((64,)), o, 10, grid=(2,), warmup=False)
    assert o.log == ["zero"] * 4 and rec.launches[-1]["grid"] == (2,) and "warmup" not in rec.launches[-1]
    with pytest.raises(ValueError, match="txl takes the parameter names from the function"):
        Autotuner(jf, ["a", "b"], CONFIGS, ["T"], None, None)
    # one config (or none: Triton's default one) is launched as it is, never benchmarked
    one = Autotuner(jf, jf.arg_names, [], ["T"], None, None, do_bench=lambda *a, **k: pytest.fail("benchmarked"))
    one[(1,)](FakeTensor((64,)), FakeTensor((64,)), 10, BT=16)
    assert one.configs == [triton.Config({})] and rec.launches[-1]["BT"] == 16
    # ... so it never enters the tuning cache (``best``): callers read the launch's config from best_config
    # (txl.ops.flash_attention's one-config head dims once read best[key] and raised KeyError at D = 256)
    assert one.cache == {} and one.best_config is one.configs[0]


def test_prune_configs_tritons_form_reads_nargs(cache):
    jf = make_kernel()
    k = Autotuner(jf, jf.arg_names, CONFIGS, ["T"], None, None,
                  prune_configs_by={"perf_model": lambda **kw: kw["BT"] * (1 if kw["T"] > 100 else -1),
                                    "top_k": 1})
    k.nargs = {"x": None, "o": None, "T": 1000}
    assert k.prune_configs({}) == [CONFIGS[0]]
    assert k.prune_configs({"x": None, "o": None, "T": 5}, {}) == [CONFIGS[2]]  # txl's (nargs, kwargs) form


# ---------------------------------------------------------------------------------------------------------------
# triton.heuristics stacked with autotune and jit
# ---------------------------------------------------------------------------------------------------------------
def test_heuristics_in_every_order_triton_allows(cache):
    from txl.runtime.autotuner import Heuristics

    use_g = {"USE_G": lambda args: args["T"] > 100}
    # heuristics over autotune over jit (fla's usual order)
    jf = make_kernel()
    rec = jf.run = Recorder(jf)
    k = triton.heuristics(use_g)(triton.autotune(CONFIGS, key=["T"], do_bench=rec.do_bench)(jf))
    assert isinstance(k, Heuristics) and isinstance(k.fn, Autotuner)
    k[(1,)](FakeTensor((64,)), FakeTensor((64,)), 1000, warmup=False)
    assert {r["USE_G"] for r in rec.launches} == {True} and rec.launches[-1]["BT"] == 64
    # autotune over heuristics over jit: the heuristic sees the config's values
    jf = make_kernel()
    rec = jf.run = Recorder(jf)
    k = triton.autotune(CONFIGS, key=["T"], do_bench=rec.do_bench)(
        triton.heuristics({"USE_G": lambda args: args["BT"] >= 64})(jf))
    k[(1,)](FakeTensor((64,)), FakeTensor((64,)), 10)
    assert [(r["BT"], r["USE_G"]) for r in rec.launches] == [(32, False), (64, True), (128, True), (64, True)]
    # heuristics over heuristics over jit: the outer runs first, the inner sees its value
    jf = make_kernel()
    rec = jf.run = Recorder(jf)
    k = triton.heuristics({"BT": lambda args: triton.next_power_of_2(args["T"])})(
        triton.heuristics({"USE_G": lambda args: args["BT"] > 32})(jf))
    k[(1,)](FakeTensor((64,)), FakeTensor((64,)), 33)
    assert (rec.launches[-1]["BT"], rec.launches[-1]["USE_G"]) == (64, True)
    # Triton's constructor
    h = Heuristics(jf, jf.arg_names, {"BT": lambda args: 16})
    h[(1,)](FakeTensor((64,)), FakeTensor((64,)), 3)
    assert rec.launches[-1]["BT"] == 16


# ---------------------------------------------------------------------------------------------------------------
# triton.Config, @triton.jit's arguments, next_power_of_2 / cdiv
# ---------------------------------------------------------------------------------------------------------------
def test_config_fields_are_tritons():
    c = triton.Config({"BT": 64})
    assert (c.kwargs, c.num_warps, c.num_stages, c.num_ctas, c.maxnreg, c.pre_hook, c.ir_override) == \
        ({"BT": 64}, 4, 3, 1, None, None, None)
    assert c.all_kwargs() == {"BT": 64, "num_warps": 4, "num_warpgroups": 1, "num_ctas": 1, "num_stages": 3}
    assert c.options == {"num_warps": 4, "num_warpgroups": 1}  # the default depth launches as a plain launch
    assert triton.Config({"BT": 64}, num_stages=None).num_stages == 3  # txl's earlier spelling of the default
    d = triton.Config({"BT": 64}, num_warps=8, num_stages=2, num_ctas=1, maxnreg=128, pre_hook=None)
    assert d.all_kwargs()["maxnreg"] == 128 and d.options["num_stages"] == 2
    # Triton's equality and hash: by all_kwargs and pre_hook
    assert triton.Config({"BT": 64}) == c and hash(triton.Config({"BT": 64})) == hash(c)
    assert d != c and c in [d, triton.Config({"BT": 64})] and c != "BT=64"
    assert triton.Config({"BT": 64}, pre_hook=print) != c
    assert str(d) == "BT: 64, num_warps: 8, num_ctas: 1, num_stages: 2, maxnreg: 128, ir_override: None"
    # pickles (Triton's __setstate__ fills the fields an older pickle lacks)
    again = pickle.loads(pickle.dumps(d))
    assert again == d and again.maxnreg == 128
    old = triton.Config.__new__(triton.Config)
    old.__setstate__({"kwargs": {"BT": 16}, "num_warps": 2})
    assert (old.num_stages, old.num_ctas, old.num_warpgroups, old.pre_hook) == (3, 1, 1, None)


def test_config_default_depth_is_the_frontends():
    from txl.autotune import DEFAULT_NUM_STAGES
    from txl.compiler import code_generator

    assert DEFAULT_NUM_STAGES == code_generator.DEFAULT_NUM_STAGES


def test_jit_keyword_arguments():
    @triton.jit(do_not_specialize=["T", 3], do_not_specialize_on_alignment=["x"], debug=True, noinline=True)
    def k(x, o, T, N, BT: tl.constexpr):
        pass

    assert k.do_not_specialize == ("T", "N") and k.do_not_specialize_on_alignment == ("x",)
    assert k.debug is True and k.noinline is True and k.fn.__name__ == "k" and k.arg_names == ["x", "o", "T", "N",
                                                                                               "BT"]
    sig, consts = k.specialize({"x": FakeTensor((4,)), "o": FakeTensor((4,)), "T": 1, "N": 32, "BT": 16})
    # T == 1 and N == 32 stay run-time ints; x loses its alignment specialisation, o keeps it
    assert sig == {"x": "*fp32", "o": "*fp32:16", "T": "i32", "N": "i32"} and consts == {"BT": 16}
    with pytest.raises(ValueError, match="names Q, which is not a parameter"):
        triton.jit(do_not_specialize=["Q"])(k.fn)


def test_jit_run_takes_tritons_warmup_flag(monkeypatch):
    jf = make_kernel()
    compiled = []
    monkeypatch.setattr(type(jf), "_compile_once", lambda self, key, sig, consts, options: compiled.append(consts)
                        or "compiled")
    x = FakeTensor((64,))
    assert jf.run(x, x, 10, grid=(1,), warmup=True, BT=32) == "compiled"  # compiled, not launched
    assert compiled == [{"BT": 32, "USE_G": False}]


def test_next_power_of_2_and_cdiv():
    assert [triton.next_power_of_2(n) for n in (1, 3, 64, 100)] == [1, 4, 64, 128]
    assert triton.cdiv(100, 32) == 4


# ---------------------------------------------------------------------------------------------------------------
# triton.runtime.driver
# ---------------------------------------------------------------------------------------------------------------
@pytest.fixture
def fake_cuda(monkeypatch):
    fake = FakeCuda()
    monkeypatch.setattr(drv_mod, "get_driver", lambda: fake)
    return fake


def test_driver_under_both_spellings_and_tritons_queries(fake_cuda, monkeypatch):
    from txl.runtime.driver import driver

    assert driver is triton.runtime.driver and driver.active is drv_mod.active  # `from ...driver import driver`
    monkeypatch.setitem(sys.modules, "torch", fake_torch(device=1, stream=0x5000))
    d = active_driver.CudaDriver()
    assert d.get_current_device() == 1 and d.get_current_stream() == 0x5001
    props = d.utils.get_device_properties(d.get_current_device())
    assert {"multiprocessor_count", "max_shared_mem", "max_num_regs", "warpSize", "sm_clock_rate",
            "mem_clock_rate", "mem_bus_width"} == set(props)
    assert props["multiprocessor_count"] == 133  # device 1 of the fake answers one more
    assert d.get_current_target().backend == "cuda" and d.get_current_target().arch == 90
    assert d.get_benchmarker() is txl.testing.do_bench
    dev = d.get_active_torch_device()
    assert (dev.type, dev.index) == ("cuda", 1)
    assert d.get_device_interface() is sys.modules["torch"].cuda


def test_runtime_has_tritons_autotuner_names():
    import txl.runtime.autotuner as at

    assert triton.runtime.Autotuner is at.Autotuner and triton.runtime.Heuristics is at.Heuristics
    assert triton.runtime.Config is triton.Config and triton.runtime.autotune is triton.autotune
    assert at.autotune is triton.autotune and at.heuristics is triton.heuristics and at.Config is triton.Config
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        triton.runtime.nope


# ---------------------------------------------------------------------------------------------------------------
# triton.testing
# ---------------------------------------------------------------------------------------------------------------
def test_perf_report_runs_the_benchmark(tmp_path, capsys, monkeypatch):
    calls = []

    @triton.testing.perf_report(triton.testing.Benchmark(
        x_names=["N"], x_vals=[128, 256], line_arg="provider", line_vals=["txl", "torch"],
        line_names=["txl", "Torch"], plot_name="softmax", args={"M": 4}, ylabel="GB/s"))
    def bench(N, provider, M):
        calls.append((N, provider, M))
        return (float(N), float(N) - 1, float(N) + 1) if provider == "txl" else float(N) / 2

    assert isinstance(bench, triton.testing.Mark)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # without matplotlib: the CSV, no PNG, a warning
    with pytest.warns(UserWarning, match="softmax.png is not drawn; softmax.csv is saved"):
        bench.run(print_data=True, save_path=str(tmp_path))
    assert calls == [(128, "txl", 4), (128, "torch", 4), (256, "txl", 4), (256, "torch", 4)]
    out = capsys.readouterr().out
    assert out.startswith("softmax:\n") and "txl" in out and "Torch" in out and "128" in out
    assert (tmp_path / "softmax.csv").read_text() == "N,txl,Torch\n128,128.0,64.0\n256,256.0,128.0\n"
    assert "softmax.png" in (tmp_path / "results.html").read_text()
    monkeypatch.setitem(sys.modules, "pandas", None)  # a machine without pandas: return_df says what it needs
    with pytest.raises(RuntimeError, match="pip install pandas"):
        bench.run(return_df=True)
    with pytest.raises(RuntimeError, match=r"show_plots=True \(plot 'softmax'\) needs matplotlib"):
        bench.run(show_plots=True)


# ---------------------------------------------------------------------------------------------------------------
# triton.__version__
# ---------------------------------------------------------------------------------------------------------------
def test_version_is_the_triton_version_txl_implements():
    assert txl.__version__ == TRITON_VERSION == "3.6.0"
    assert txl.txl_version.count(".") == 2 and txl.txl_version != txl.__version__
    # the comparisons libraries make (flash-linear-attention's TRITON_ABOVE_* flags, string compares)
    from packaging import version

    v = version.parse(triton.__version__)
    assert v >= version.parse("3.4.0") and v >= version.parse("3.5.1") and v >= version.parse("3.6.0")
    assert not v >= version.parse("3.7.1")
    assert triton.__version__ >= "3.4" and triton.__version__ < "3.7"
    assert tuple(int(p) for p in triton.__version__.split(".")[:2]) >= (3, 6)


def test_fla_style_signature_probe():
    # libraries probe triton.autotune's signature for cache_results (fla: SUPPORTS_AUTOTUNE_CACHE)
    import inspect

    assert "cache_results" in inspect.signature(triton.autotune).parameters
    assert list(inspect.signature(Autotuner.__init__).parameters)[:7] == [
        "self", "fn", "arg_names", "configs", "key", "reset_to_zero", "restore_value"]


def test_gluon_is_there():
    # txl compiles Gluon (txl.experimental.gluon, docs/gluon.md): the swapped `from triton.experimental import
    # gluon` imports, with the names fla's Gluon modules use.
    from txl.experimental import gluon
    from txl.experimental.gluon import language as gl
    from txl.experimental.gluon.language import extra
    from txl.experimental.gluon.language.nvidia.ampere import async_copy as cp
    assert callable(gluon.jit) and callable(gluon.constexpr_function) and gl.BlockedLayout and extra.libdevice
    assert callable(cp.async_copy_global_to_shared)
