"""txl.autotune without a GPU: a fake timer picks the best config per key; results are remembered in memory and
on disk; configs that fail (to compile) are skipped with a one-line reason; pre_hook sees and may replace the
arguments. One test goes through the real compiler (fake frontend) with a config txlc rejects."""

import json
import os
import tempfile

import pytest

import txl
import txl.language as tl
from txl.compiler import compiler as C
from txl.runtime import Kernel
from txl.tests.txl_fakes import FakeTensor, install_fake_frontend


def make_kernel():
    @txl.jit
    def vector_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        pass

    return vector_add_kernel


CONFIGS = [txl.Config({"BLOCK": 256}), txl.Config({"BLOCK": 1024}, num_warps=8), txl.Config({"BLOCK": 512})]
TIMES = {256: 3.0, 1024: 1.0, 512: 2.0}  # ms per config (BLOCK) for the fake timer


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # work dirs (kept ones too) go away with tmp_path
    monkeypatch.setenv("TXL_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


class Recorder:
    """Stands in for JITFunction.run: records each launch; the fake timer reads the last one."""

    def __init__(self, fail=()):
        self.launches = []
        self.fail = fail

    def __call__(self, *args, grid, **kw):
        kw.update(zip(("x_ptr", "y_ptr", "out_ptr", "n", "BLOCK"), args))  # the tuner passes arguments as given
        if kw["BLOCK"] in self.fail:
            raise C.TxlCompileError("txlc failed to compile kernel k:\nk.py:3:5: error: too big\nmore")
        self.launches.append(dict(kw, grid=grid))

    def bench(self, call):
        call()
        return TIMES[self.launches[-1]["BLOCK"]]


def tuned(rec, configs=CONFIGS, key=("n",), **kw):
    jf = make_kernel()
    jf.run = rec
    return txl.autotune(configs, key=list(key), bench=rec.bench, **kw)(jf)


def test_picks_the_fastest_config_per_key(cache, capsys):
    rec = Recorder()
    k = tuned(rec)
    x = FakeTensor((4096,))
    k[(4,)](x, x, x, 4096)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 4  # one line per config, then the choice
    assert out[0].startswith("txl.autotune vector_add_kernel key=(4096, 'torch.float32', 'torch.float32', "
                             "'torch.float32') [1/3] Config(BLOCK=256, num_warps=4, num_warpgroups=1): 3.0000 ms")
    assert "[2/3] Config(BLOCK=1024, num_warps=8, num_warpgroups=1): 1.0000 ms" in out[1]
    assert "best Config(BLOCK=1024, num_warps=8, num_warpgroups=1) (1.0000 ms)" in out[3]
    last = rec.launches[-1]
    assert last["BLOCK"] == 1024 and last["num_warps"] == 8 and last["num_warpgroups"] == 1
    assert last["grid"] == (4,) and last["x_ptr"] is x and last["n"] == 4096
    # the same key: no benchmarking, one launch
    n = len(rec.launches)
    k[(4,)](x, x, x, 4096)
    assert len(rec.launches) == n + 1 and capsys.readouterr().out == ""
    # a new key value benchmarks again
    k[(4,)](x, x, x, 8192)
    assert len(capsys.readouterr().out.splitlines()) == 4
    assert set(k.best) == {(4096,) + ("torch.float32",) * 3, (8192,) + ("torch.float32",) * 3}


def test_results_persist_in_the_cache_dir(cache, capsys):
    rec = Recorder()
    x = FakeTensor((64,))
    tuned(rec)[(1,)](x, x, x, 64)
    (path,) = os.listdir(cache / "autotune")
    assert path.startswith("vector_add_kernel-") and path.endswith(".json")
    stored = json.load(open(cache / "autotune" / path))
    (entry,) = stored.values()
    assert entry["config"] == {"kwargs": {"BLOCK": 1024}, "num_warps": 8, "num_warpgroups": 1, "num_stages": None}
    capsys.readouterr()
    # a new process (a new Autotuner) finds it and does not benchmark
    rec2 = Recorder()
    tuned(rec2)[(1,)](x, x, x, 64)
    assert capsys.readouterr().out == "" and len(rec2.launches) == 1 and rec2.launches[0]["BLOCK"] == 1024
    # other configs: other file, benchmarked again
    rec3 = Recorder()
    tuned(rec3, configs=CONFIGS[:2])[(1,)](x, x, x, 64)
    assert len(rec3.launches) == 3 and len(os.listdir(cache / "autotune")) == 2
    # cache_results=False neither reads nor writes
    rec4 = Recorder()
    tuned(rec4, cache_results=False)[(1,)](x, x, x, 64)
    assert len(rec4.launches) == 4


def test_failing_configs_are_skipped_with_a_reason(cache, capsys):
    rec = Recorder(fail=(1024,))
    x = FakeTensor((64,))
    tuned(rec)[(1,)](x, x, x, 64)
    out = capsys.readouterr().out.splitlines()
    assert out[1].endswith("[2/3] Config(BLOCK=1024, num_warps=8, num_warpgroups=1): skipped: TxlCompileError: "
                           "txlc failed to compile kernel k:")
    assert "best Config(BLOCK=512" in out[3] and rec.launches[-1]["BLOCK"] == 512
    rec = Recorder(fail=(256, 512, 1024))
    with pytest.raises(RuntimeError, match=r"every config failed for key \(65,.*\n  Config\(BLOCK=256.*"
                                           r"TxlCompileError"):
        tuned(rec)[(1,)](x, x, x, 65)


def test_pre_hook_sees_and_replaces_arguments(cache):
    seen = []
    y2 = FakeTensor((64,), ptr=0x7F0000100000)

    def hook(nargs):
        seen.append(dict(nargs))
        nargs["y_ptr"] = y2  # e.g. a TensorDescriptor with the config's block shape

    rec = Recorder()
    x = FakeTensor((64,))
    tuned(rec, configs=[txl.Config({"BLOCK": 256}, pre_hook=hook)])[(1,)](x, x, x, 64)
    assert seen[0]["BLOCK"] == 256 and seen[0]["x_ptr"] is x and seen[0]["n"] == 64
    assert all(launch["y_ptr"] is y2 for launch in rec.launches)


def test_usage_errors(cache):
    jf = make_kernel()
    with pytest.warns(UserWarning, match=r"key=\['m'\]\) of vector_add_kernel: m is not a parameter and is ignored"):
        assert txl.autotune(CONFIGS, key=["m"])(jf).key == []  # as Triton (test_triton_host_cpu.py)
    with pytest.raises(ValueError, match="at least one txl.Config"):
        txl.autotune([], key=["n"])(jf)
    rec = Recorder()
    x = FakeTensor((64,))
    with pytest.raises(TypeError, match="BLOCK is given both at the launch and by the autotuner's configs"):
        tuned(rec)[(1,)](x, x, x, 64, BLOCK=3)


def test_config_repr_and_kwargs():
    c = txl.Config({"BLOCK_M": 128}, num_warps=4, num_warpgroups=3, num_stages=2)
    assert repr(c) == "Config(BLOCK_M=128, num_warps=4, num_warpgroups=3, num_stages=2)"
    assert c.launch_kwargs() == {"BLOCK_M": 128, "num_warps": 4, "num_warpgroups": 3, "num_stages": 2}


def test_autotune_through_the_compiler(cache, monkeypatch, capsys):
    """Real txlc: a config it rejects (num_warps=0 is out of range) is skipped; the others launch."""
    if C.find_txlc() is None:  # pragma: no cover
        pytest.skip("txlc is not built")
    install_fake_frontend(monkeypatch)
    monkeypatch.delenv("TXL_TXLC", raising=False)
    calls = []
    monkeypatch.setattr(Kernel, "launch", lambda self, grid, *a, stream=None, **kw: calls.append(kw))
    jf = make_kernel()
    times = iter([2.0, 1.0])
    configs = [txl.Config({"BLOCK": 256}), txl.Config({"BLOCK": 512}, num_warps=0), txl.Config({"BLOCK": 1024})]
    k = txl.autotune(configs, key=["n"], bench=lambda call: (call(), next(times))[1])(jf)
    x = FakeTensor((4096,))
    k[lambda m: (-(-m["n"] // m["BLOCK"]),)](x, x, x, 4096)
    out = capsys.readouterr().out
    assert "[2/3] Config(BLOCK=512, num_warps=0, num_warpgroups=1): skipped: TxlCompileError: txlc failed" in out
    assert "best Config(BLOCK=1024" in out and len(calls) == 3
    # the two compiled configs are in the cache: warmup compiles without launching
    assert len(os.listdir(cache / "kernels")) == 2
    with pytest.raises(C.TxlCompileError):
        k.warmup(x, x, x, 4096)


def test_unwritable_cache_does_not_fail_the_launch(cache, monkeypatch, capsys):
    from txl.compiler.cache import KernelCache

    def fail(*a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(KernelCache, "write_json", fail)
    rec = Recorder()
    x = FakeTensor((64,))
    tuned(rec)[(1,)](x, x, x, 64)
    assert rec.launches[-1]["BLOCK"] == 1024
    assert "could not save the result" in capsys.readouterr().out


def test_deadlocked_config_is_recorded_and_skipped_by_the_next_process(cache, capsys):
    from txl.autotune import ConfigHang

    class Hangs(Recorder):
        def bench(self, call):
            call()
            if self.launches[-1]["BLOCK"] == 256:  # the first config never finishes its first run
                raise ConfigHang("the first run of the config did not finish within 20 s")
            return TIMES[self.launches[-1]["BLOCK"]]

    x = FakeTensor((64,))
    with pytest.raises(RuntimeError, match=r"Config\(BLOCK=256.*deadlocked for key .*restart the process"):
        tuned(Hangs())[(1,)](x, x, x, 64)
    capsys.readouterr()
    rec = Hangs()  # a new process: the recorded config is not run again
    tuned(rec)[(1,)](x, x, x, 64)
    out = capsys.readouterr().out
    assert "[1/3] Config(BLOCK=256, num_warps=4, num_warpgroups=1): skipped: faulted in an earlier process: " \
           "ConfigHang" in out
    assert 256 not in [launch["BLOCK"] for launch in rec.launches] and rec.launches[-1]["BLOCK"] == 1024
