"""The fast path of repeated @txl.jit launches, without a GPU: which launches share a fingerprint (and so skip the
checked path), how a fast launch maps positional, keyword, default and descriptor arguments to the kernel's params,
and the autotuner's per-fingerprint choice. The checked launch is the runtime's (its argument checks run, the
driver call is recorded); the fast launch is replaced by a recorder of (grid, values)."""

import sys
import tempfile

import pytest


import txl
import txl.language as tl
from txl.compiler import compiler as C
from txl.runtime import Kernel, launcher, normalize_grid
from txl.tests.txl_fakes import FakeTensor, install_fake_frontend

J = sys.modules["txl.jit"]  # the module (the attribute txl.jit is the decorator)


class TorchLike(FakeTensor):
    """A FakeTensor with the few torch.Tensor methods the fingerprint reads."""

    def get_device(self):
        return 0 if self.device.type == "cuda" else -1

    def is_contiguous(self):
        return self._strides == FakeTensor(self.shape)._strides


@txl.jit
def vadd(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr = 1024):
    pass


def X(n=1000, dtype="float32", **kw):
    return TorchLike((n,), dtype, **kw)


@pytest.fixture
def calls(tmp_path, monkeypatch):
    if C.find_txlc() is None:  # pragma: no cover
        pytest.skip("txlc is not built")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("TXL_CACHE_DIR", str(tmp_path / "cache"))
    for v in ("TXL_TXLC", "TXL_DEBUG_HANGS"):
        monkeypatch.delenv(v, raising=False)
    install_fake_frontend(monkeypatch)
    monkeypatch.setattr(J, "_TENSOR_TYPES", (TorchLike,))
    rec = {"checked": [], "fast": []}

    def checked(self, grid, *args, stream=None, **kwargs):
        rec["checked"].append((normalize_grid(grid, self.meta), self.check_args(*args, **kwargs)))

    class FastRecorder:
        def __init__(self, kernel, dev):
            self.kernel = kernel

        def __call__(self, grid, values, stream=None):
            rec["fast"].append((grid, values))

    monkeypatch.setattr(Kernel, "launch", checked)
    monkeypatch.setattr(launcher, "FastLaunch", FastRecorder)
    vadd.cache.clear()
    vadd._fast.clear()
    return rec


def test_fingerprints_separate_what_specialisation_or_checks_see(monkeypatch):
    monkeypatch.setattr(J, "_TENSOR_TYPES", (TorchLike,))
    fp = lambda *a, **k: vadd._fingerprint(a, k, ())  # noqa: E731
    x = X()
    assert fp(x, x, x, 1000) is not None
    assert fp(x, x, x, 1000) == fp(X(5), X(7), X(9), 3000)  # other tensors and values of the same class
    assert fp(x, x, x, 1000) != fp(x, x, x, 1024)  # divisible by 16
    assert fp(x, x, x, 1000) != fp(x, x, x, 1)  # == 1 is a constexpr
    assert fp(x, x, x, 1000) != fp(x, x, x, 2**33)  # i64
    assert fp(x, x, x, 1000) != fp(X(dtype="float16"), x, x, 1000)
    assert fp(x, x, x, 1000) != fp(X(device="cpu"), x, x, 1000)
    # strides are not specialised on (a pointer param takes any strides, as in Triton): a transposed view launches
    # with the same kernel and checks (its descriptor's innermost stride is, below: TMA needs 1 there)
    assert fp(x, x, x, 1000) == fp(TorchLike((8, 8), strides=(1, 8)), x, x, 1000)
    assert fp(x, x, x, 1000) != fp(X(ptr=0x7F0000000004), x, x, 1000)  # no longer 16-byte aligned
    assert fp(x, x, x, 1000, BLOCK=256) != fp(x, x, x, 1000, BLOCK=512)  # constexpr values
    assert fp(x, x, x, 1000, BLOCK=256) != fp(x, x, x, 1000, 256)  # keyword vs position
    assert fp(x, x, x, 1000, 256, 7) is None and fp(x, x, x, 1000, bogus=1) is None  # the checked path's errors
    assert fp(FakeTensor((4,)), x, x, 1000) is None  # not a torch tensor: always checked
    # a tl dtype or a tuple as a constexpr (Liger passes tl.float32 and the like): fingerprinted by value, so such
    # launches take the fast path too (each used to take the checked path, 0.3-0.6 ms a call in Liger's backward)
    assert fp(x, x, x, 1000, BLOCK=tl.float32) is not None
    assert fp(x, x, x, 1000, BLOCK=tl.float32) == fp(x, x, x, 1000, BLOCK=tl.float32)
    assert fp(x, x, x, 1000, BLOCK=tl.float32) != fp(x, x, x, 1000, BLOCK=tl.bfloat16)
    assert fp(x, x, x, 1000, BLOCK=(1, 2)) != fp(x, x, x, 1000, BLOCK=(1, 3))

    class Parameter(TorchLike):  # a tensor subclass (torch.nn.Parameter) is a tensor to the fingerprint
        pass

    assert fp(Parameter((1000,), "float32"), x, x, 1000) == fp(x, x, x, 1000)


def test_second_launch_takes_the_fast_path_with_the_right_values(calls):
    x, y, z = X(), X(), X()
    vadd[(4,)](x, y, z, 1000, BLOCK=256)
    assert len(calls["checked"]) == 1 and not calls["fast"]
    x2, y2, z2 = X(ptr=0x7F0000001000), X(), X()
    vadd[lambda meta: (meta["n"] // meta["BLOCK"] + 1,)](x2, y2, z2, 3000, BLOCK=256)
    assert len(calls["checked"]) == 1 and len(calls["fast"]) == 1
    grid, values = calls["fast"][0]
    assert grid == (12, 1, 1) and list(values[:4]) == [x2, y2, z2, 3000]
    vadd[(4,)](x, y, z, 1024, BLOCK=256)  # another int class: checked again
    assert len(calls["checked"]) == 2
    with pytest.raises(ValueError, match="is a tensor on cpu"):  # never fast: the checked path reports it
        vadd[(4,)](X(device="cpu"), y, z, 1000, BLOCK=256)
    assert len(calls["fast"]) == 1


def test_defaults_and_keywords_map_by_name(calls):
    x, y, z = X(), X(), X()
    vadd[(1,)](x, y, out_ptr=z, n=1000)
    vadd[(1,)](y, x, out_ptr=x, n=3000)
    assert len(calls["fast"]) == 1
    assert list(calls["fast"][0][1][:4]) == [y, x, x, 3000]


def test_autotuner_remembers_its_choice_per_fingerprint(calls):
    timed = []
    configs = [txl.Config({"BLOCK": b}) for b in (128, 256)]
    tuned = txl.autotune(configs, key=["n"], bench=lambda call: (call(), timed.append(1), 1.0)[2],
                         cache_results=False, verbose=False)(vadd)
    x = X()
    tuned[(1,)](x, x, x, 1000)  # each config checked once while timing; the chosen one then launches fast
    assert len(timed) == 2 and len(calls["checked"]) == 2 and len(calls["fast"]) == 1
    tuned[(1,)](x, x, x, 1000)  # same key value, same fingerprint: the remembered config, fast launch
    assert len(timed) == 2 and len(calls["checked"]) == 2 and len(calls["fast"]) == 2
    tuned[(1,)](x, x, x, 3000)  # a new key value tunes again
    assert len(timed) == 4


# -- the binder (JITFunction._make_binder): a launch's arguments bound by name and fingerprinted in one generated
# function; every change that specialisation or the runtime's checks see must take the checked path again
@txl.jit(do_not_specialize=["m"])
def vmix(x_ptr, y_ptr, out_ptr, n, m, BLOCK: tl.constexpr = 128, FLAG: tl.constexpr = None):
    pass


@pytest.fixture
def mixcalls(calls):
    vmix.cache.clear()
    vmix._fast.clear()
    return calls


def test_binder_rechecks_every_change_of_specialisation(mixcalls):
    x, y, h = X(), X(), X(dtype="float16")
    launches = [
        ((x, y, x, 1000, 7), {}),
        ((h, h, h, 1000, 7), {}),  # a new dtype
        ((X(ptr=0x7F0000000008), y, x, 1000, 7), {}),  # a pointer no longer 16-byte aligned
        ((x, y, x, 1024, 7), {}),  # an int now divisible by 16
        ((x, y, x, 1, 7), {}),  # == 1: a constexpr
        ((x, y, x, 1000, 2**33), {}),  # i64 (of a do_not_specialize parameter: the fake kernel's n is i32)
        ((x, y, x, 1000, 7), {"BLOCK": 256}),  # a constexpr's value
        ((x, y, x, 1000, 7), {"BLOCK": 256.0}),  # the same value as another type (1 == True == 1.0 in a dict)
        ((x, y, x, 1000, 7), {"FLAG": True}),
        ((x, y, x, 1000, 7), {"FLAG": 1}),
        ((x, y, x, 1000, 7), {"num_warps": 8}),  # a launch option
        ((x, y, x, 1000, 7), {"num_warpgroups": 2}),
        ((X(device="cpu"), y, x, 1000, 7), {}),  # the checked path's error, every time
    ]
    for i, (args, kwargs) in enumerate(launches):
        try:
            vmix[(1,)](*args, **kwargs)
        except ValueError:
            assert i == len(launches) - 1
        assert len(mixcalls["checked"]) == min(i + 1, len(launches) - 1) and not mixcalls["fast"], i
    # and each of them, repeated, takes the fast path (the cpu tensor excepted: it is never launched)
    for i, (args, kwargs) in enumerate(launches[:-1]):
        vmix[(1,)](*args, **kwargs)
        assert len(mixcalls["fast"]) == i + 1, i
    with pytest.raises(ValueError, match="is a tensor on cpu"):
        vmix[(1,)](X(device="cpu"), y, x, 1000, 7)
    assert len(mixcalls["checked"]) == len(launches) - 1


def test_binder_keys_by_name_and_passes_values_in_param_order(mixcalls):
    x, y = X(), X()
    vmix[(1,)](x, y, x, 1000, 7)
    x2, y2 = X(ptr=0x7F0000001000), X(ptr=0x7F0000002000)
    vmix[(1,)](n=3000, m=9, out_ptr=y2, y_ptr=y2, x_ptr=x2)
    vmix[(1,)](x2, y2, y2, 3000, m=9, BLOCK=128)  # the default given explicitly: the same specialisation
    assert len(mixcalls["checked"]) == 1
    assert [list(v) for _, v in mixcalls["fast"]] == [[x2, y2, y2, 3000]] * 2  # the kernel's params: m is unused


def test_binder_leaves_unusual_launches_to_the_checked_path(mixcalls, monkeypatch):
    x, y = X(), X()
    vmix[(1,)](x, y, x, 1000, 7)
    with pytest.raises(TypeError, match="missing a required argument: 'm'"):  # the checked path's message
        vmix[(1,)](x, y, x, 1000)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        vmix[(1,)](x, y, x, 1000, 7, bogus=1)
    with pytest.raises(TypeError, match="too many positional arguments"):
        vmix[(1,)](x, y, x, 1000, 7, 128, None, 5)
    with pytest.raises(TypeError, match="vmix\\(\\) got multiple values for argument 'x_ptr'"):  # Python's own
        vmix[(1,)](x, y, x, 1000, 7, x_ptr=x)
    vmix[(1,)](x, y, x, 1000, 7, warmup=True)  # compiles, does not launch
    assert len(mixcalls["checked"]) == 1 and not mixcalls["fast"]
    monkeypatch.setenv("TXL_DEBUG_HANGS", "1")  # read at every launch: another specialisation
    vmix[(1,)](x, y, x, 1000, 7)
    assert len(mixcalls["checked"]) == 2 and not mixcalls["fast"]
    for _ in range(2):  # a value the fingerprint does not take (a list constexpr): the checked path, every time
        vmix[(1,)](x, y, x, 1000, 7, FLAG=[1, 2])
    assert len(mixcalls["checked"]) == 4 and not mixcalls["fast"]


def test_binder_passes_the_stream_and_the_grid_meta(mixcalls, monkeypatch):
    streams = []
    real = launcher.FastLaunch

    class StreamRecorder(real):
        def __call__(self, grid, values, stream=None):
            streams.append(stream)
            return super().__call__(grid, values, stream)

    monkeypatch.setattr(launcher, "FastLaunch", StreamRecorder)
    x, y = X(), X()
    vmix[(1,)](x, y, x, 1000, 7, stream=5)
    vmix[lambda meta: (meta["n"] // meta["BLOCK"], meta["num_warps"])](x, y, x, 1000, 7, stream=6)
    assert streams == [6] and mixcalls["fast"][0][0] == (7, 4, 1)
    for grid, want in (((70000, 2), (70000, 2, 1)), ((3, 2, 5), (3, 2, 5)), ([4], (4, 1, 1)), (9, (9, 1, 1))):
        vmix[grid](x, y, x, 1000, 7)
        assert mixcalls["fast"][-1][0] == want
    with pytest.raises(ValueError):  # the checked path's grid errors: y beyond 65535
        vmix[(1, 70000)](x, y, x, 1000, 7)


def test_autotuner_key_is_the_binders(calls):
    x = X()
    assert vadd._launch_key((x, x, x, 1000), {}) == vadd._launch_key((x, x), {"out_ptr": x, "n": 1000})
    assert vadd._launch_key((x, x, x, 1000), {}) != vadd._launch_key((x, x, x, 1024), {})
    assert vadd._launch_key((x, x, x, 1000), {}) != vadd._launch_key((x, x, x, 1000), {"BLOCK": 128})
    assert vadd._launch_key((x, x, x, 1000), {}) != vadd._launch_key((x, x, x, 1000), {"num_ctas": 2})
    assert vadd._launch_key((x, x, x, 1000), {}) == vadd._launch_key((x, x, x, 1000), {"num_ctas": None})
    # True == 1 as a dict key: a bool num_ctas (the checked path's error) must not find num_ctas=1's entry
    assert vadd._launch_key((x, x, x, 1000), {"num_ctas": True}) is None

    @txl.jit
    def opt_param(x_ptr, y_ptr, out_ptr, n, num_warps: tl.constexpr):  # a launch option that is a parameter
        pass

    assert opt_param._make_binder() is False  # the positional fingerprint serves it

    @txl.jit
    def shadowing(x_ptr, y_ptr, out_ptr, type):  # a name the binder's code reads (type(v)): no binder either
        pass

    assert shadowing._make_binder() is False
    assert shadowing._launch_key((x, x, x, 1000), {}) == shadowing._fingerprint((x, x, x, 1000), {}, ())
    assert opt_param._launch_key((x, x, x, 1000), {"num_warps": 4}) == opt_param._fingerprint((x, x, x, 1000),
                                                                                            {"num_warps": 4}, ())


def test_autotuner_hit_launches_the_jit_entry_directly(calls):
    """After its first hit, the autotuner launches its fingerprint's JIT entry with the config's constexprs put in
    (no second binding); a cleared JIT cache or a config pre_hook go the way they went before."""
    configs = [txl.Config({"BLOCK": b}) for b in (128, 256)]
    tuned = txl.autotune(configs, key=["n"], bench=lambda call: (call(), 1.0)[1], cache_results=False,
                         verbose=False)(vadd)
    x = X()
    grid = lambda meta: (meta["BLOCK"],)  # noqa: E731  (the meta dict has the config's constexpr)
    tuned[grid](x, x, x, 1000)  # tunes (each config checked), launches the chosen one fast
    tuned[grid](x, x, x, 1000)  # a hit: through the JIT, which finds its entry; the direct launch is recorded
    (direct,) = [hit[2] for hit in tuned._chosen.values()]
    assert direct is not None and len(calls["checked"]) == 2 and len(calls["fast"]) == 2
    x2 = X(ptr=0x7F0000003000)
    binds, binder = [], vadd._binder
    vadd._binder = lambda *a, **k: (binds.append(1), binder(*a, **k))[1]
    try:
        tuned[grid](x2, x, out_ptr=x, n=1000)
    finally:
        vadd._binder = binder
    assert len(binds) == 1  # the autotuner's fingerprint only: the JIT did not bind the launch again
    block = tuned.best_config.kwargs["BLOCK"]
    assert calls["fast"][-1] == ((block, 1, 1), [x2, x, x, 1000]) or \
        (calls["fast"][-1][0] == (block, 1, 1) and list(calls["fast"][-1][1]) == [x2, x, x, 1000])
    # a launch option given at the call that the config sets too (the same fingerprint as not giving it): the
    # config's wins, as on the path through _call_args
    tuned[lambda meta: (meta["num_warps"] + meta["BLOCK"],)](x, x, x, 1000, num_warps=4)
    assert calls["fast"][-1][0] == (tuned.best_config.num_warps + block, 1, 1)
    vadd._fast.clear()  # the JIT forgot its entry: checked again, not launched through the stale one
    tuned[grid](x, x, x, 1000)
    assert len(calls["checked"]) == 3


def test_autotuner_with_a_config_pre_hook_never_launches_directly(calls):
    seen = []
    configs = [txl.Config({"BLOCK": b}, pre_hook=lambda nargs: seen.append(nargs["n"])) for b in (128, 256)]
    tuned = txl.autotune(configs, key=["n"], bench=lambda call: (call(), 1.0)[1], cache_results=False,
                         verbose=False)(vadd)
    x = X()
    tuned[(1,)](x, x, x, 1000)
    first = len(seen)
    tuned[(1,)](x, x, x, 1000)
    tuned[(1,)](x, x, x, 1000)
    assert [hit[2] for hit in tuned._chosen.values()] == [None]
    assert len(seen) == first + 2  # the hook runs at every later launch


# -- FastLaunch's driver calls, untyped (no ctypes argtypes), against a C stub with cuLaunchKernel's prototype
_STUB = r"""
#include <stdint.h>
#include <string.h>
typedef int CUresult;
void *got_func, *got_stream, **got_extra;
unsigned got_dims[7];
uint64_t got_params[8];
int got_calls, n_params;
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *stream, void **params, void **extra) {
  unsigned d[7] = {gx, gy, gz, bx, by, bz, shared};
  got_func = f; got_stream = stream; got_extra = extra; memcpy(got_dims, d, sizeof d);
  for (int i = 0; i < n_params; i++) got_params[i] = *(uint64_t *)params[i];  /* 8 bytes from each slot */
  got_calls++;
  return gx == 7 ? 700 : 0;  /* a grid of 7 fails, as a driver error would */
}
void *current_ctx = (void *)0x5000;
CUresult cuCtxGetCurrent(void **ctx) { *ctx = current_ctx; return 0; }
"""


@pytest.fixture
def stub_driver(tmp_path):
    import ctypes
    import shutil
    import subprocess

    from txl.runtime.driver import _SIGNATURES

    cc = shutil.which("cc")
    if cc is None:  # pragma: no cover
        pytest.skip("no C compiler")
    (tmp_path / "stub.c").write_text(_STUB)
    subprocess.run([cc, "-shared", "-fPIC", str(tmp_path / "stub.c"), "-o", str(tmp_path / "stub.so")], check=True)
    lib = ctypes.CDLL(str(tmp_path / "stub.so"))

    class StubDriver:
        _fns = {}
        set_devices = []

        def set_device(self, dev):
            self.set_devices.append(dev)

        def primary_context(self, dev):
            return 0x5000

        def make_error(self, rc, fn, what, cls=None):
            return RuntimeError("%s failed (%d): %s" % (fn, rc, what))

    drv = StubDriver()
    for name in ("cuLaunchKernel", "cuCtxGetCurrent"):  # typed, as CudaDriver sets them up
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = _SIGNATURES[name], ctypes.c_int
        drv._fns[name] = fn
    return drv, lib


def test_untyped_launch_passes_every_argument(stub_driver, monkeypatch):
    import ctypes

    drv, lib = stub_driver
    monkeypatch.setattr(launcher, "get_driver", lambda: drv)
    monkeypatch.setattr(Kernel, "_function", lambda self, d, dev: 0x7F00DEAD0000)
    k = Kernel({"kernel": "k", "threads": [128, 2, 1], "shared_bytes": 1536,
                "params": [{"name": "x", "kind": "ptr", "dtype": "f32"}, {"name": "n", "kind": "scalar", "dtype": "i32"},
                           {"name": "s", "kind": "scalar", "dtype": "f32"}, {"name": "m", "kind": "scalar",
                                                                             "dtype": "i64"}]}, ptx="")
    fast = launcher.FastLaunch(k, 0)
    ctypes.c_int.in_dll(lib, "n_params").value = 4
    x = X(ptr=0x7F1234567890)
    fast((2**31 - 1, 3, 4), [x, -5, 0.5, 2**40], stream=0x7FFF00001234)
    dims = list((ctypes.c_uint * 7).in_dll(lib, "got_dims"))
    params = list((ctypes.c_uint64 * 8).in_dll(lib, "got_params"))
    assert dims == [2**31 - 1, 3, 4, 128, 2, 1, 1536]
    assert ctypes.c_void_p.in_dll(lib, "got_func").value == 0x7F00DEAD0000
    assert ctypes.c_void_p.in_dll(lib, "got_stream").value == 0x7FFF00001234  # 64 bits, not truncated
    assert ctypes.c_void_p.in_dll(lib, "got_extra").value is None
    # (an i32 or f32 slot is 4 bytes: the stub's 8-byte read has the value in the low half)
    assert params[0] == 0x7F1234567890 and params[1] & 0xFFFFFFFF == 2**32 - 5
    assert ctypes.c_float.from_buffer(ctypes.c_uint32(params[2] & 0xFFFFFFFF)).value == 0.5 and params[3] == 2**40
    fast((1, 1, 1), [x, 1, 1.0, 1], stream=0x7FFF00005678)  # another stream: a new handle is passed
    assert ctypes.c_void_p.in_dll(lib, "got_stream").value == 0x7FFF00005678
    with pytest.raises(RuntimeError, match="cuLaunchKernel failed \\(700\\)"):  # the driver's error is reported
        fast((7, 1, 1), [x, 1, 1.0, 1], stream=0x7FFF00005678)
    with pytest.raises(ValueError, match="does not fit in i32"):  # the setter's checks still run
        fast((1, 1, 1), [x, 2**31, 1.0, 1], stream=0)
    with pytest.raises(TypeError, match="takes 4 values"):
        fast((1, 1, 1), [x, 1, 1.0], stream=0)
    assert ctypes.c_int.in_dll(lib, "got_calls").value == 3
    # cuCtxGetCurrent's answer is read through the untyped call: another context current makes the device current
    before = len(drv.set_devices)
    fast((1, 1, 1), [x, 1, 1.0, 1], stream=0)
    assert len(drv.set_devices) == before
    ctypes.c_void_p.in_dll(lib, "current_ctx").value = 0x6000
    fast((1, 1, 1), [x, 1, 1.0, 1], stream=0)
    assert drv.set_devices[before:] == [0]
