"""txl.autotune without a GPU: a fake timer picks the best config per key; results are remembered in memory and
on disk; configs that fail (to compile) are skipped with a one-line reason; pre_hook sees and may replace the
arguments. One test goes through the real compiler (fake frontend) with a config txlc rejects. The configs of a
new key compile concurrently before they are benchmarked (JITFunction._compile replaced by a recorder of threads
and concurrency); the real frontend is checked to give each thread its own IR."""

import concurrent.futures
import json
import os
import sys
import tempfile
import threading
import time
import types

import pytest

import txl
import txl.language as tl
from txl.compiler import compiler as C
from txl.jit import JITFunction
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
    """Stands in for JITFunction.run: records each launch; the fake timer reads the last one. BLOCK values in
    ``fail`` do not compile (raised by the autotuner's pre-compile, _launch=False, too)."""

    def __init__(self, fail=()):
        self.launches = []
        self.fail = fail

    def __call__(self, *args, grid, _launch=True, **kw):
        kw.update(zip(("x_ptr", "y_ptr", "out_ptr", "n", "BLOCK"), args))  # the tuner passes arguments as given
        if kw["BLOCK"] in self.fail:
            raise C.TxlCompileError("txlc failed to compile kernel k:\nk.py:3:5: error: too big\nmore")
        if _launch:
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
    assert entry["config"] == {"kwargs": {"BLOCK": 1024}, "num_warps": 8, "num_warpgroups": 1, "num_stages": 3}
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
                           "txlc failed to compile kernel k: k.py:3:5: error: too big")
    assert "best Config(BLOCK=512" in out[3] and rec.launches[-1]["BLOCK"] == 512
    rec = Recorder(fail=(256, 512, 1024))
    with pytest.raises(RuntimeError, match=r"every config failed for key \(65,.*\n  Config\(BLOCK=256.*"
                                           r"TxlCompileError: txlc failed to compile kernel k: k.py:3:5: error: too "
                                           r"big\n(.*\n)*the first failure, Config\(BLOCK=256.*, in full:\n"
                                           r"txlc failed to compile kernel k:\nk.py:3:5: error: too big\nmore$"):
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
    # As Triton: no configs is one default config, launched untuned
    empty = txl.autotune([], key=["n"])(jf)
    assert empty.configs == [txl.Config({})] and empty.configs[0].num_stages == 3
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


# ---------------------------------------------------------------------------------------------------------------
# configs compile concurrently before they are benchmarked
# ---------------------------------------------------------------------------------------------------------------
MORE_TIMES = {**TIMES, 128: 4.0}


class CompileLog:
    """Stands in for JITFunction._compile (the frontend + txlc): records, in order, each compile ("compile",
    BLOCK, thread) and each launch of the stub kernel it returns ("launch", BLOCK, thread), and the most compiles
    that ran at once. ``barrier``: every compile waits there (so it passes only if that many run at once);
    ``delay``: seconds per BLOCK; BLOCK values in ``fail`` do not compile."""

    def __init__(self, monkeypatch, fail=(), delay=None, barrier=None):
        self.lock = threading.Lock()
        self.events = []
        self.active = self.most = 0
        self.fail, self.delay, self.barrier = fail, delay or {}, barrier
        self.sigs = {}
        log = self

        def fake_compile(jf, sig, consts, options):
            block = consts["BLOCK"]
            with log.lock:
                log.events.append(("compile", block, threading.get_ident()))
                log.sigs[block] = dict(sig)
                log.active += 1
                log.most = max(log.most, log.active)
            try:
                if log.barrier is not None:
                    log.barrier.wait()
                time.sleep(log.delay.get(block, 0.0))
                if block in log.fail:
                    raise C.TxlCompileError("txlc failed to compile kernel k:\nk.py:3:5: error: BLOCK=%d" % block)
            finally:
                with log.lock:
                    log.active -= 1
            return _StubKernel(log, block, list(sig))

        monkeypatch.setattr(JITFunction, "_compile", fake_compile)

    def compiled(self):
        return [b for what, b, _ in self.events if what == "compile"]

    def launched(self):
        return [b for what, b, _ in self.events if what == "launch"]

    def bench(self, call):
        call()
        return MORE_TIMES[self.launched()[-1]]


class _StubKernel:
    """What JITFunction.run needs of a CompiledKernel: launcher() with params and launch()."""

    def __init__(self, log, block, params):
        self.log, self.block = log, block
        self.params = [types.SimpleNamespace(name=n) for n in params]

    def launcher(self):
        return self

    def launch(self, grid, stream=None, **kw):
        self.log.events.append(("launch", self.block, threading.get_ident()))


def blocks(*bs, **kw):
    return [txl.Config({"BLOCK": b}, **kw) for b in bs]


def test_configs_compile_concurrently_before_benchmarking(cache, monkeypatch, capsys):
    monkeypatch.setenv("TXL_AUTOTUNE_JOBS", "4")
    log = CompileLog(monkeypatch, barrier=threading.Barrier(4, timeout=20))  # passes only if 4 run at once
    jf = make_kernel()
    k = txl.autotune(blocks(128, 256, 512, 1024), key=["n"], bench=log.bench)(jf)
    x = FakeTensor((4096,))
    k[(4,)](x, x, x, 4096)
    out = capsys.readouterr().out.splitlines()
    assert [line.split(" [")[1][:3] for line in out[:4]] == ["1/4", "2/4", "3/4", "4/4"]  # config order
    assert all(line.endswith(" ms") for line in out[:4]) and "best Config(BLOCK=1024" in out[4]
    assert log.most == 4
    threads = {t for what, _, t in log.events if what == "compile"}
    assert len(threads) == 4 and threading.get_ident() not in threads
    # every compile came first; each benchmark launch (main thread, config order) reused its compiled kernel
    assert sorted(log.compiled()) == [128, 256, 512, 1024] and [e[0] for e in log.events[:4]] == ["compile"] * 4
    assert log.launched() == [128, 256, 512, 1024, 1024]
    assert {t for what, _, t in log.events if what == "launch"} == {threading.get_ident()}
    assert len(jf.cache) == 4


def test_configs_sharing_a_specialisation_compile_it_once(cache, monkeypatch, capsys):
    # maxnreg is not a compile option: both configs are one specialisation, compiled by one thread only
    log = CompileLog(monkeypatch, delay={256: 0.2})
    monkeypatch.setenv("TXL_AUTOTUNE_JOBS", "2")
    k = txl.autotune([txl.Config({"BLOCK": 256}), txl.Config({"BLOCK": 256}, maxnreg=128)], key=["n"],
                     bench=log.bench)(make_kernel())
    x = FakeTensor((64,))
    k[(1,)](x, x, x, 64)
    assert log.compiled() == [256] and log.launched() == [256, 256, 256]


def test_compile_errors_are_reported_per_config_in_config_order(cache, monkeypatch, capsys):
    monkeypatch.setenv("TXL_AUTOTUNE_JOBS", "4")
    # the later configs finish compiling first; the report still follows the configs' order
    log = CompileLog(monkeypatch, fail=(256, 1024), delay={128: 0.3, 256: 0.2, 512: 0.1})
    k = txl.autotune(blocks(128, 256, 512, 1024), key=["n"], bench=log.bench)(make_kernel())
    x = FakeTensor((64,))
    k[(1,)](x, x, x, 64)
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("[1/4] Config(BLOCK=128, num_warps=4, num_warpgroups=1): 4.0000 ms")
    assert out[1].endswith("[2/4] Config(BLOCK=256, num_warps=4, num_warpgroups=1): skipped: TxlCompileError: "
                           "txlc failed to compile kernel k: k.py:3:5: error: BLOCK=256")
    assert out[2].endswith("[3/4] Config(BLOCK=512, num_warps=4, num_warpgroups=1): 2.0000 ms")
    assert out[3].endswith("[4/4] Config(BLOCK=1024, num_warps=4, num_warpgroups=1): skipped: TxlCompileError: "
                           "txlc failed to compile kernel k: k.py:3:5: error: BLOCK=1024")
    assert "best Config(BLOCK=512" in out[4]
    # the configs that failed are neither compiled again nor launched; the others are benchmarked
    assert sorted(log.compiled()) == [128, 256, 512, 1024] and log.launched() == [128, 512, 512]
    (results,) = k.timings.values()
    assert [(c.kwargs["BLOCK"], ms, err) for c, ms, err in results] == [
        (128, 4.0, None), (256, None, "TxlCompileError: txlc failed to compile kernel k: k.py:3:5: error: BLOCK=256"),
        (512, 2.0, None), (1024, None, "TxlCompileError: txlc failed to compile kernel k: k.py:3:5: error: BLOCK=1024")]
    # every config fails: the error lists each one's reason, in config order
    log.fail = (128, 256, 512, 1024)
    with pytest.raises(RuntimeError, match=r"every config failed for key \(65,.*\n"
                                           r"  Config\(BLOCK=128.*: TxlCompileError: txlc failed.*\n"
                                           r"  Config\(BLOCK=256.*: TxlCompileError.*\n"
                                           r"  Config\(BLOCK=512.*: TxlCompileError.*\n"
                                           r"  Config\(BLOCK=1024.*: TxlCompileError"):
        k[(1,)](x, x, x, 65)


def test_one_compile_job_compiles_each_config_when_it_is_benchmarked(cache, monkeypatch, capsys):
    monkeypatch.setenv("TXL_AUTOTUNE_JOBS", "1")
    log = CompileLog(monkeypatch, fail=(256,))
    k = txl.autotune(blocks(128, 256, 512), key=["n"], bench=log.bench)(make_kernel())
    x = FakeTensor((64,))
    k[(1,)](x, x, x, 64)
    me = threading.get_ident()
    assert log.events == [("compile", 128, me), ("launch", 128, me), ("compile", 256, me), ("compile", 512, me),
                          ("launch", 512, me), ("launch", 512, me)]
    assert log.most == 1
    assert "[2/3] Config(BLOCK=256, num_warps=4, num_warpgroups=1): skipped: TxlCompileError: txlc failed to " \
           "compile kernel k:" in capsys.readouterr().out
    for bad in ("0", "many"):
        monkeypatch.setenv("TXL_AUTOTUNE_JOBS", bad)
        with pytest.raises(ValueError, match="TXL_AUTOTUNE_JOBS=%r: give the number of configs" % bad):
            k[(1,)](x, x, x, 128)


def test_compile_jobs_default(monkeypatch):
    from txl.autotune import compile_jobs

    monkeypatch.delenv("TXL_AUTOTUNE_JOBS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert (compile_jobs(24), compile_jobs(3)) == (16, 3)
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert compile_jobs(24) == 1
    monkeypatch.setenv("TXL_AUTOTUNE_JOBS", "5")
    assert (compile_jobs(24), compile_jobs(3)) == (5, 3)


def test_pre_hook_runs_in_the_main_thread_and_the_config_compiles_with_its_arguments(cache, monkeypatch, capsys):
    monkeypatch.setenv("TXL_AUTOTUNE_JOBS", "3")
    log = CompileLog(monkeypatch)
    hooked = []
    y16 = FakeTensor((64,), "bfloat16")

    def bf16_y(nargs):  # as TXL's hooks that build TensorDescriptors of the config's block shape
        hooked.append((nargs["BLOCK"], threading.get_ident()))
        nargs["y_ptr"] = y16

    def broken(nargs):
        raise ValueError("no descriptor for BLOCK=%d\nsecond line" % nargs["BLOCK"])

    configs = [txl.Config({"BLOCK": 128}), txl.Config({"BLOCK": 256}, pre_hook=bf16_y),
               txl.Config({"BLOCK": 512}, pre_hook=broken)]
    k = txl.autotune(configs, key=["n"], bench=log.bench)(make_kernel())
    x = FakeTensor((64,))
    k[(1,)](x, x, x, 64)
    assert log.sigs[256]["y_ptr"] == "*bf16:16" and log.sigs[128]["y_ptr"] == "*fp32:16"
    # the hook ran in this thread: before the compiles, then before the benchmark's and the final launch
    assert hooked == [(256, threading.get_ident())] * 3
    assert sorted(log.compiled()) == [128, 256]  # the 256 launches found the kernel compiled with the hook's y_ptr
    assert log.launched() == [128, 256, 256]
    out = capsys.readouterr().out
    assert "[3/3] Config(BLOCK=512, num_warps=4, num_warpgroups=1): skipped: ValueError: no descriptor for " \
           "BLOCK=512\n" in out



def test_a_hook_that_changes_a_shared_descriptor_in_place_compiles_each_config_with_its_block(cache, monkeypatch):
    """Triton's tutorials 06 and 09: the hook sets ``nargs["desc"].block_shape`` on the descriptor all configs
    share. Each config compiles with the block its own hook set, though the later hooks ran before it compiled."""

    @txl.jit
    def desc_kernel(a_desc, n, BLOCK: tl.constexpr):
        pass

    def set_block(nargs):
        nargs["a_desc"].block_shape = [nargs["BLOCK"], 32]

    monkeypatch.setenv("TXL_AUTOTUNE_JOBS", "3")
    log = CompileLog(monkeypatch, delay={128: 0.2, 256: 0.1})
    k = txl.autotune(blocks(128, 256, 512, pre_hook=set_block), key=["n"], bench=log.bench)(desc_kernel)
    desc = txl.TensorDescriptor(FakeTensor((1024, 64)), block_shape=[1, 1])
    k[(1,)](desc, 1000)
    assert {b: sig["a_desc"] for b, sig in log.sigs.items()} == {
        b: "tensordesc<fp32[%d, 32]>" % b for b in (128, 256, 512)}
    # each launch (the hook set the block again) found its config's kernel: nothing compiled twice
    assert sorted(log.compiled()) == [128, 256, 512] and log.launched() == [128, 256, 512, 512]


@txl.jit
def _scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, SCALE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * SCALE, mask=mask)


def test_compiles_in_threads_get_their_own_frontend_ir(monkeypatch):
    """The real frontend keeps the kernel it builds in module state: without txl.compile's lock, compiles in
    threads (the autotuner's) mixed up each other's IR ("value used before its definition was printed")."""
    monkeypatch.setattr(C._Job, "build", lambda job: {"txl": job.ir, "ptx": "", "json": "{}"})  # no txlc run
    sig = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
    cases = [(b, s) for b in (64, 128, 256, 512) for s in (2, 3)]

    def ir(case):
        return C.compile(_scale_kernel, sig, {"BLOCK": case[0], "SCALE": case[1]}, use_cache=False).asm["txl"]

    want = {c: ir(c) for c in cases}
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        for _ in range(3):
            with concurrent.futures.ThreadPoolExecutor(len(cases)) as pool:
                got = dict(zip(cases, pool.map(ir, cases)))
            assert got == want
    finally:
        sys.setswitchinterval(interval)
