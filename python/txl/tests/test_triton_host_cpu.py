"""Triton's host-side names under txl, without a GPU or torch (what Triton's tutorials call outside their kernels):
``txl.runtime.driver.active`` (device, stream, target, device properties; a fake libcuda answers the attribute
queries), ``txl.set_allocator`` (the launch's global scratch comes from it: checked against a recording driver),
``txl.tools.tensor_descriptor.TensorDescriptor`` (Triton's constructor), ``CompiledKernel`` as tutorial 02 uses
it (``metadata.shared``, ``n_regs``, ``_init_handles()`` against a fake driver, ``compiled[grid](all args)``) and an
autotune key that names no parameter (ignored, as Triton does)."""

import contextvars
import copy
import ctypes
import importlib.util
import json
import os
import pickle
import sys
import tempfile
import threading
import types
import warnings

import pytest

import txl
import txl.language as tl
from txl.compiler import compiler as C
from txl.compiler.compiler import CompiledKernel, KernelMetadata
from txl.runtime import GPUTarget, Kernel, OutOfResources, TxlDriverNotFoundError
from txl.runtime import _allocation
from txl.runtime import active_driver
from txl.runtime import driver as drv_mod
from txl.runtime import launcher as launcher_mod
from txl.tests.txl_fakes import FakeTensor, install_fake_frontend

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


# ---------------------------------------------------------------------------------------------------------------
# fakes
# ---------------------------------------------------------------------------------------------------------------
class FakeCuda:
    """What the host API asks of txl's libcuda wrapper (CudaDriver): device attributes, the capability, and for
    loads and launches the calls a RecordingDriver of test_runtime_cpu.py answers."""

    ATTRS = {drv_mod.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: 232448,
             drv_mod.CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: 65536,
             drv_mod.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: 132,
             drv_mod.CU_DEVICE_ATTRIBUTE_WARP_SIZE: 32,
             drv_mod.CU_DEVICE_ATTRIBUTE_CLOCK_RATE: 1980000,
             drv_mod.CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: 2619000,
             drv_mod.CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: 5120}

    def __init__(self, func_attrs=None, devices=2):
        self.calls = []
        self.devices = devices
        self.func_attrs = {drv_mod.CU_FUNC_ATTRIBUTE_NUM_REGS: 40, drv_mod.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: 16,
                           drv_mod.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: 1024,
                           drv_mod.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: 0}
        self.func_attrs.update(func_attrs or {})

    def _dev(self, ordinal):
        if not 0 <= ordinal < self.devices:
            raise ValueError("CUDA device %d does not exist" % ordinal)

    def device_attribute(self, ordinal, attr):
        self._dev(ordinal)
        self.calls.append(("device_attribute", ordinal, attr))
        return self.ATTRS[attr] + ordinal  # device 1 answers one more, to tell the devices apart

    def compute_capability(self, ordinal):
        self._dev(ordinal)
        return (9, 0)

    def set_device(self, ordinal):
        self._dev(ordinal)
        self.calls.append(("set_device", ordinal))

    def load_module(self, image, what=""):
        self.calls.append(("load_module",))
        return 0x1000

    def get_function(self, mod, name):
        self.calls.append(("get_function", name))
        return 0x2000

    def unload_module(self, mod):
        self.calls.append(("unload_module",))

    def param_info(self, func, expected=None):
        return None

    def func_attribute(self, func, attr):
        return self.func_attrs[attr]

    def max_shared_optin(self, dev):
        return 232448

    def device_name(self, dev):
        return "FakeH100"

    def set_func_attribute(self, func, attr, value, what):
        self.calls.append(("set_func_attribute", attr, value))

    def launch(self, func, grid, block, shared, stream, params, cluster, what):
        self.calls.append(("launch", grid, block, stream, [params[i] for i in range(len(params))]))
        # what each param points at while the launch is "in flight": every param here is 8 bytes
        self.param_values = [ctypes.c_uint64.from_address(params[i]).value for i in range(len(params))]

    def stream_synchronize(self, stream, what):
        pass


@pytest.fixture
def fake_cuda(monkeypatch):
    fake = FakeCuda()
    monkeypatch.setattr(drv_mod, "get_driver", lambda: fake)
    monkeypatch.setattr(launcher_mod, "get_driver", lambda: fake)
    return fake


@pytest.fixture
def missing_libcuda(monkeypatch):
    monkeypatch.setattr(drv_mod, "LIBCUDA_NAMES", ["libtxl-no-such-cuda.so.1"])
    drv_mod.reset_driver()
    yield
    drv_mod.reset_driver()


@pytest.fixture
def no_torch(monkeypatch):
    """A process without torch (as this test machine is): imports of torch fail."""
    monkeypatch.setitem(sys.modules, "torch", None)


def fake_torch(device=1, stream=0x5000):
    """The few torch names the host API uses: torch.device, torch.cuda's current device, the raw current stream."""
    t = types.ModuleType("torch")
    t.device = lambda kind, index=None: types.SimpleNamespace(type=kind, index=index)
    t.cuda = types.SimpleNamespace(current_device=lambda: device, set_device=lambda i: None)
    t._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda i: stream + i)
    return t


# ---------------------------------------------------------------------------------------------------------------
# txl.runtime.driver.active
# ---------------------------------------------------------------------------------------------------------------
def test_driver_active_is_there_without_torch_or_gpu():
    from txl.runtime import driver

    assert driver is drv_mod and txl.runtime.driver is drv_mod
    assert isinstance(driver.active, active_driver.CudaDriver) and driver.active is driver.default
    assert hasattr(driver.active, "utils") and callable(driver.active.utils.get_device_properties)


def test_target_and_device_properties(fake_cuda, no_torch):
    d = active_driver.CudaDriver()
    target = d.get_current_target()
    assert target == GPUTarget("cuda", 90, 32)
    assert (target.backend, target.arch, target.warp_size) == ("cuda", 90, 32)
    assert d.get_device_capability() == (9, 0) and d.get_current_device() == 0
    props = d.utils.get_device_properties(0)
    assert props == {"max_shared_mem": 232448, "max_num_regs": 65536, "multiprocessor_count": 132, "warpSize": 32,
                     "sm_clock_rate": 1980000, "mem_clock_rate": 2619000, "mem_bus_width": 5120}
    # each key is its own cuDeviceGetAttribute, read once per device
    assert sorted(c[2] for c in fake_cuda.calls if c[0] == "device_attribute") == sorted(FakeCuda.ATTRS)
    n = len(fake_cuda.calls)
    props["multiprocessor_count"] = 1  # a copy: the cached answer is not changed by the caller
    assert d.utils.get_device_properties(0)["multiprocessor_count"] == 132 and len(fake_cuda.calls) == n
    # the device as an int, a torch.device-like object, "cuda:N" or None (the current one)
    assert d.utils.get_device_properties(types.SimpleNamespace(type="cuda", index=1))["warpSize"] == 33
    assert d.utils.get_device_properties("cuda:1")["warpSize"] == 33
    assert d.utils.get_device_properties(None)["warpSize"] == 32
    with pytest.raises(ValueError, match="not a CUDA device"):
        d.utils.get_device_properties("cpu")
    with pytest.raises(ValueError, match="device 5 does not exist"):
        d.utils.get_device_properties(5)
    assert d.is_active()


def test_current_device_and_stream_follow_torch(fake_cuda, monkeypatch):
    d = active_driver.CudaDriver()
    monkeypatch.setitem(sys.modules, "torch", None)
    assert d.get_current_device() == 0 and d.get_current_stream() == 0  # no torch: device 0, the legacy stream
    d.set_current_device(1)
    assert d.get_current_device() == 1 and ("set_device", 1) in fake_cuda.calls
    monkeypatch.setitem(sys.modules, "torch", fake_torch(device=1, stream=0x5000))
    assert d.get_current_device() == 1
    assert d.get_current_stream() == 0x5001 and d.get_current_stream(0) == 0x5000
    dev = d.get_active_torch_device()
    assert (dev.type, dev.index) == ("cuda", 1)


def test_driver_errors_without_gpu_or_torch(missing_libcuda, no_torch):
    d = active_driver.CudaDriver()
    with pytest.raises(TxlDriverNotFoundError, match="no NVIDIA driver"):
        d.get_current_target()
    with pytest.raises(TxlDriverNotFoundError, match="no NVIDIA driver"):
        d.utils.get_device_properties(0)
    with pytest.raises(RuntimeError, match=r"get_active_torch_device\(\) needs torch"):
        d.get_active_torch_device()
    assert d.is_active() is False


def test_set_active_and_reset_active():
    stand_in = types.SimpleNamespace(get_current_target=lambda: GPUTarget("cuda", 100, 32))
    try:
        drv_mod.set_active(stand_in)
        assert txl.runtime.driver.active is stand_in
        assert txl.runtime.driver.active.get_current_target().arch == 100
    finally:
        drv_mod.reset_active()
    assert drv_mod.active is drv_mod.default


# ---------------------------------------------------------------------------------------------------------------
# txl.set_allocator: the global scratch of kernels that build TMA descriptors on the device
# ---------------------------------------------------------------------------------------------------------------
@pytest.fixture
def allocator():
    yield
    txl.set_allocator(None)


class Buffer:
    def __init__(self, size, ptr=0x7F0000200000, nbytes=None):
        self.size, self.ptr, self._nbytes = size, ptr, size if nbytes is None else nbytes

    def data_ptr(self):
        return self.ptr

    def numel(self):
        return self._nbytes

    def element_size(self):
        return 1


def scratch_kernel():
    """A kernel whose sidecar has a pointer param, a global-scratch param (256 bytes per CTA) and an int."""
    meta = {"kernel": "k", "threads": [128, 1, 1], "shared_bytes": 0,
            "params": [{"name": "a", "kind": "ptr", "dtype": "f32"},
                       {"name": "scratch", "kind": "global_scratch", "dtype": "i8", "bytes": 256},
                       {"name": "n", "kind": "scalar", "dtype": "i64"}]}
    return Kernel.from_ptx(".visible .entry k(){ret;}", meta)


def test_set_allocator_is_tritons(allocator):
    assert txl.set_allocator is _allocation.set_allocator and txl.runtime.set_allocator is txl.set_allocator
    assert _allocation.get_allocator() is None
    fn = lambda size, alignment, stream: Buffer(size)  # noqa: E731
    txl.set_allocator(fn)
    assert _allocation.get_allocator() is fn
    with pytest.raises(TypeError, match="needs a callable alloc_fn"):
        txl.set_allocator(42)
    assert _allocation.get_allocator() is fn  # a refused one changes nothing
    # a ContextVar, as Triton's: another thread (a fresh context) uses the default
    seen = []
    t = threading.Thread(target=lambda: seen.append(_allocation.get_allocator()))
    t.start()
    t.join()
    assert seen == [None]
    assert contextvars.copy_context().run(_allocation.get_allocator) is fn
    txl.set_allocator(None)
    assert _allocation.get_allocator() is None


def test_launch_takes_the_scratch_from_the_allocator(fake_cuda, allocator, monkeypatch):
    def no_torch_default(*a):
        raise AssertionError("the default (torch) allocator was used although an allocator is set")

    monkeypatch.setattr(launcher_mod, "_global_scratch", no_torch_default)
    asked = []

    def alloc_fn(size, alignment, stream):
        asked.append((size, alignment, stream))
        return Buffer(size)

    txl.set_allocator(alloc_fn)
    k = scratch_kernel()
    a = FakeTensor((64,))
    k[(4, 2)](a, 7, stream=0x77)
    assert asked == [(256 * 8, 128, 0x77)]  # bytes per CTA x CTAs, the alignment, the launch's CUstream
    launch = [c for c in fake_cuda.calls if c[0] == "launch"][0]
    assert launch[1] == (4, 2, 1) and launch[3] == 0x77
    # the params in PTX order: a, the scratch (the allocator's buffer), n
    assert fake_cuda.param_values == [0x7F0000000000, 0x7F0000200000, 7]


def test_launch_without_allocator_uses_the_default(fake_cuda, allocator, monkeypatch):
    made = []

    def default(nbytes, dev, stream):
        made.append((nbytes, dev))
        return Buffer(nbytes, ptr=0x7F0000300000)

    monkeypatch.setattr(launcher_mod, "_global_scratch", default)
    scratch_kernel()[(3,)](FakeTensor((64,)), 1)
    assert made == [(256 * 3, 0)] and fake_cuda.param_values[1] == 0x7F0000300000


@pytest.mark.parametrize("buf, err, match", [
    (object(), TypeError, "has no data_ptr"),
    (Buffer(1024, ptr=0x7F0000200040), ValueError, "not 128-byte aligned"),
    (Buffer(1024, ptr=0), ValueError, "null"),
    (Buffer(1024, nbytes=100), ValueError, "returned only 100 bytes: the kernel writes 1024"),
])
def test_allocator_results_are_checked(fake_cuda, allocator, buf, err, match):
    txl.set_allocator(lambda size, alignment, stream: buf)
    with pytest.raises(err, match=match):
        scratch_kernel()[(4,)](FakeTensor((64,)), 1)
    assert not [c for c in fake_cuda.calls if c[0] == "launch"]


# ---------------------------------------------------------------------------------------------------------------
# txl.tools.tensor_descriptor
# ---------------------------------------------------------------------------------------------------------------
class Strided(FakeTensor):
    def as_strided(self, shape, strides):
        return Strided(shape, self.dtype[len("torch."):], strides=strides, ptr=self._ptr)


def test_tools_tensor_descriptor_is_txl_tensor_descriptor():
    from txl.tools.tensor_descriptor import TensorDescriptor

    assert TensorDescriptor is txl.TensorDescriptor
    assert txl.tools.tensor_descriptor.TensorDescriptor is TensorDescriptor  # 09 reads it as an attribute
    # a regular package (setuptools' packages.find ships it in the wheel)
    assert os.path.exists(os.path.join(os.path.dirname(txl.tools.__file__), "__init__.py"))


def test_tensor_descriptor_triton_constructors():
    from txl.tools.tensor_descriptor import TensorDescriptor

    t = Strided((2, 4, 128, 64), "float16")
    d = TensorDescriptor(t, [1024, 64], [64, 1], [128, 64])  # Triton's positional form, a 2-D view
    assert d.shape == [1024, 64] and d.strides == [64, 1] and d.block_shape == [128, 64] and d.padding == "zero"
    d = TensorDescriptor(base=t, shape=[1024, 64], strides=[64, 1], block_shape=[1, 1])  # 06: keywords
    d.block_shape = [128, 64]  # 06's pre_hook sets the autotuned block
    assert d.block_shape == [128, 64]
    m = Strided((512, 256), "float16")
    d = TensorDescriptor.from_tensor(m, [64, 32])  # 09
    assert d.base is m and d.shape == [512, 256] and d.strides == [256, 1] and d.block_shape == [64, 32]
    assert TensorDescriptor(m, [512, 256], [256, 1], [64, 32], padding="nan").padding == "nan"


# ---------------------------------------------------------------------------------------------------------------
# CompiledKernel as tutorial 02 uses it
# ---------------------------------------------------------------------------------------------------------------
SIDECAR = {"kernel": "softmax_kernel", "arch": "sm_90a", "threads": [256, 1, 1], "shared_bytes": 64,
           "cluster": [1, 1, 1],
           "params": [{"name": "arg%d" % i, "kind": "ptr" if i < 2 else "scalar", "dtype": "f32" if i < 2 else "i32"}
                      for i in range(6)]}
ARG_NAMES = ["output_ptr", "input_ptr", "input_row_stride", "output_row_stride", "n_rows", "n_cols", "BLOCK_SIZE",
             "num_stages"]
SIGNATURE = {"output_ptr": "*fp32:16", "input_ptr": "*fp32:16", "input_row_stride": "i32",
             "output_row_stride": "i32", "n_rows": "i32", "n_cols": "i32"}
PTX = ".visible .entry softmax_kernel(){ret;}"


def softmax_like(**kw):
    """A CompiledKernel as txl.compile makes it for 02's softmax_kernel (its IR names no params: arg0..arg5)."""
    return CompiledKernel("softmax_kernel", {"ptx": PTX, "json": json.dumps(SIDECAR)}, json.loads(json.dumps(SIDECAR)),
                          {"target": "sm_90a", "num_warps": 8, "num_warpgroups": 1, "debug_hangs": False,
                           "num_stages": 4}, "k" * 64, arg_names=ARG_NAMES, signature=SIGNATURE,
                          constants={"BLOCK_SIZE": 1024, "num_stages": 4}, **kw)


def test_metadata_reads_as_tritons():
    ck = softmax_like()
    m = ck.metadata
    assert isinstance(m, KernelMetadata) and isinstance(m, dict)
    assert m.shared == 64 and m.num_warps == 8 and m.num_stages == 4 and m.num_ctas == 1 and m.name == "softmax_kernel"
    assert m.target == GPUTarget("cuda", 90, 32) and m.cluster_dims == (1, 1, 1) and m.hash == ck.hash == ck.key
    assert m.global_scratch_size == 0 and m.tmem_size is None and m.launch_pdl is False
    # the sidecar dict, unchanged, and its keys as attributes too
    assert m == SIDECAR and m["shared_bytes"] == 64 and m.threads == [256, 1, 1] and m.get("cluster") == [1, 1, 1]
    assert json.loads(json.dumps(m)) == SIDECAR
    assert copy.deepcopy(m).shared == 64 and pickle.loads(pickle.dumps(m)).num_warps == 8
    assert m._asdict()["shared"] == 64 and m._asdict()["kernel"] == "softmax_kernel"
    with pytest.raises(AttributeError, match="has no 'sharedd'.*Triton's names: name, hash, shared"):
        m.sharedd
    with pytest.raises(AttributeError, match="read-only"):
        m.shared = 1
    scratch = KernelMetadata(dict(SIDECAR, params=[{"name": "s", "kind": "global_scratch", "dtype": "i8",
                                                    "bytes": 256}], cluster=[2, 1, 1]), {}, "k")
    assert scratch.global_scratch_size == 256 and scratch.global_scratch_align == 128 and scratch.num_ctas == 2


def test_compiled_launch_with_all_arguments(monkeypatch):
    """02 launches the warmed-up kernel with every argument, its constexprs included:
    kernel[(num_programs, 1, 1)](y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE, num_stages)."""
    calls = []

    def fake_launch(self, grid, *args, stream=None, **kwargs):
        self.check_args(*args, **kwargs)
        calls.append((grid, args, kwargs, stream))

    monkeypatch.setattr(Kernel, "launch", fake_launch)
    ck = softmax_like()
    y, x = FakeTensor((1823, 781)), FakeTensor((1823, 781), ptr=0x7F0000100000)
    ck[(264, 1, 1)](y, x, 781, 781, 1823, 781, 1024, 4)
    assert calls[-1] == ((264, 1, 1), (y, x, 781, 781, 1823, 781), {}, None)
    ck[(2,)](y, x, 781, 781, 1823, 781, stream=5)  # the run-time arguments alone, as before
    assert calls[-1] == ((2,), (y, x, 781, 781, 1823, 781), {}, 5)
    packed = ck.check_args(y, x, 781, 781, 1823, 781, 1024, 4)  # no GPU: the runtime's checks
    assert len(packed.values) == 6
    with pytest.raises(ValueError, match="'BLOCK_SIZE' is 512, but this kernel was compiled with BLOCK_SIZE=1024"):
        ck[(1,)](y, x, 781, 781, 1823, 781, 512, 4)
    with pytest.raises(TypeError, match="takes 6 arguments"):
        ck[(1,)](y, x, 781)


def test_compiled_launch_by_param_name_and_descriptors(monkeypatch):
    """IR that names its params after the @jit parameters (txl.name): the all-arguments form maps by name, and a
    txl.TensorDescriptor goes as its tensor."""
    calls = []
    monkeypatch.setattr(Kernel, "launch", lambda self, grid, *a, stream=None, **k: calls.append((a, k)))
    sidecar = {"kernel": "k", "threads": [128, 1, 1], "shared_bytes": 0,
               "params": [{"name": "n", "kind": "scalar", "dtype": "i32"},
                          {"name": "x_ptr", "kind": "ptr", "dtype": "f32"}]}
    ck = CompiledKernel("k", {"ptx": ".visible .entry k(){ret;}"}, sidecar, {}, "h" * 64,
                        arg_names=["x_ptr", "BLOCK", "n"], signature={"x_ptr": "*fp32", "n": "i32"},
                        constants={"BLOCK": 64})
    x = Strided((64, 64))
    ck[(1,)](txl.TensorDescriptor(x, [64, 64]), 64, 100)
    assert calls[-1] == ((100, x), {})
    ck[(1,)](n=3, x_ptr=x)  # keywords name the kernel's params, as the runtime's Kernel takes them
    assert calls[-1] == ((), {"n": 3, "x_ptr": x})


def test_init_handles_reads_the_driver(fake_cuda):
    ck = softmax_like()
    assert ck.module is None and ck.function is None
    ck._init_handles()
    assert (ck.module, ck.function) == (0x1000, 0x2000)
    assert ck.n_regs == 40 and ck.n_spills == 4 and ck.n_max_threads == 1024  # spills: local bytes / 4
    assert ("set_device", 0) in fake_cuda.calls and ("get_function", "softmax_kernel") in fake_cuda.calls
    n = len(fake_cuda.calls)
    ck._init_handles()  # once
    assert len(fake_cuda.calls) == n


def test_init_handles_out_of_resources(monkeypatch):
    fake = FakeCuda(func_attrs={drv_mod.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: 128})
    monkeypatch.setattr(launcher_mod, "get_driver", lambda: fake)
    with pytest.raises(OutOfResources, match="out of resource: threads, Required: 256, Hardware limit: 128") as e:
        softmax_like()._init_handles()
    assert (e.value.required, e.value.limit, e.value.name) == (256, 128, "threads")
    assert txl.OutOfResources is OutOfResources


def test_init_handles_without_gpu(missing_libcuda, monkeypatch):
    monkeypatch.setattr(C, "find_ptxas", lambda: None)
    ck = softmax_like()
    with pytest.raises(TxlDriverNotFoundError, match="no NVIDIA driver"):
        ck._init_handles()
    assert ck.metadata.shared == 64  # needs no GPU
    with pytest.raises(AttributeError, match=r"n_regs is known after kernel._init_handles\(\)"):
        ck.n_regs
    assert not hasattr(ck, "n_spills")


@pytest.fixture
def compiled(tmp_path, monkeypatch):
    """02's softmax-like use through a real compile: the fake frontend's vector add, real txlc (and ptxas)."""
    txlc = os.environ.get("TXL_TXLC") or C.find_txlc()
    if not txlc or not os.path.exists(txlc):  # pragma: no cover
        pytest.skip("txlc is not built")
    monkeypatch.setenv("TXL_TXLC", os.path.abspath(txlc))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("TXL_CACHE_DIR", str(tmp_path / "cache"))
    install_fake_frontend(monkeypatch)

    @txl.jit
    def vadd(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        pass

    x = FakeTensor((1000,))
    return vadd.warmup(x, x, x, 1000, BLOCK=256, num_warps=4, grid=(1,))


def test_warmup_result_has_tritons_handles(compiled, monkeypatch):
    ck = compiled
    assert ck.metadata.shared == ck.metadata["shared_bytes"] and ck.metadata.num_warps == 4
    assert ck.metadata.name == ck.name == "vadd" and ck.metadata.num_stages is None
    assert ck.arg_names == ["x_ptr", "y_ptr", "out_ptr", "n", "BLOCK"] and ck.constants == {"BLOCK": 256}
    if C.find_ptxas() is not None:  # without a GPU: ptxas -v on the PTX
        assert isinstance(ck.n_regs, int) and ck.n_regs > 0 and ck.n_spills == 0
    x = FakeTensor((1000,))
    assert len(ck.check_args(x, x, x, 1000, 256).values) == 4  # the launch 02 makes, all arguments
    # from the cache: the same metadata object kind
    again = C.compile(ck.asm["txl"])
    assert isinstance(again.metadata, KernelMetadata) and again.metadata.shared == ck.metadata.shared


# ---------------------------------------------------------------------------------------------------------------
# txl.autotune: a key that names no parameter is ignored (Triton's tutorial 08: 'gropup_c_ptrs')
# ---------------------------------------------------------------------------------------------------------------
def test_autotune_ignores_unknown_key(tmp_path, monkeypatch):
    monkeypatch.setenv("TXL_CACHE_DIR", str(tmp_path / "cache"))

    @txl.jit
    def grouped(a_ptrs, c_ptrs, group_size, BLOCK: tl.constexpr):
        pass

    with pytest.warns(UserWarning, match="gropup_c_ptrs is not a parameter and is ignored, as Triton does"):
        tuned = txl.autotune([txl.Config({"BLOCK": 64}), txl.Config({"BLOCK": 128})],
                             key=["group_size", "gropup_c_ptrs"], bench=lambda call: (call(), 1.0)[1],
                             verbose=False)(grouped)
    assert tuned.key == ["group_size"]
    launches = []
    grouped.run = lambda *args, grid, **kw: launches.append(kw)
    a = FakeTensor((4,), "int64")
    tuned[(1,)](a, a, 4)
    assert {kw["BLOCK"] for kw in launches} == {64, 128} and tuned.best_config is not None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        txl.autotune([txl.Config({"BLOCK": 64})], key=["group_size"])(grouped)  # known keys: no warning
    with pytest.raises(ValueError, match="reset_to_zero=\\['nope'\\]\\) of grouped: nope is not a parameter"):
        txl.autotune([txl.Config({"BLOCK": 64})], key=[], reset_to_zero=["nope"])(grouped)


# ---------------------------------------------------------------------------------------------------------------
# the tutorial harness: its rewritten imports resolve to these names
# ---------------------------------------------------------------------------------------------------------------
def test_tutorial_harness_rewrites_import_txls_host_names():
    spec = importlib.util.spec_from_file_location("triton_tutorials_harness", os.path.join(ROOT, "bench",
                                                                                            "triton_tutorials.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for old in ("import triton", "from triton.runtime import driver",
                "from triton.tools.tensor_descriptor import TensorDescriptor"):
        ns = {}
        exec(mod.REWRITES[old], ns)
    assert ns["TensorDescriptor"] is txl.TensorDescriptor
    # compile-only mode describes an H100 with Triton's property keys
    assert set(mod.H100Driver().utils.get_device_properties(0)) == {
        "max_shared_mem", "max_num_regs", "multiprocessor_count", "warpSize", "sm_clock_rate", "mem_clock_rate",
        "mem_bus_width"}
    assert mod.H100Driver().get_current_target() == GPUTarget("cuda", 90, 32)
