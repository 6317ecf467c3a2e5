"""CPU-only tests of the txl host runtime: sidecar parsing, argument and TMA-descriptor validation, and the errors
raised when there is no driver. None of these needs a GPU, torch or libcuda; torch CPU tensors are used when
torch is importable."""

import json
import os
import subprocess
import sys

import pytest

from txl.runtime import driver as drv_mod
from txl.runtime import launcher as launcher_mod
from txl.runtime import (
    CudaError,
    Kernel,
    TensorDescriptor,
    TxlDriverNotFoundError,
    TxlNoDeviceError,
    TxlSidecarError,
    load_kernel,
    normalize_grid,
    parse_sidecar,
    plan_tensor_map,
)
from txl.runtime.dtypes import canonical_dtype, tensor_info

KERNELS = os.path.join(os.path.dirname(__file__), "gpu", "kernels")

try:
    import torch  # noqa: F401

    HAVE_TORCH = True
except Exception:  # pragma: no cover - depends on the machine
    HAVE_TORCH = False


# ---------------------------------------------------------------------------------------------------------------
# fakes
# ---------------------------------------------------------------------------------------------------------------
class FakeDevice:
    def __init__(self, type_, index=None):
        self.type = type_
        self.index = index


def _contig(shape):
    out, acc = [], 1
    for s in reversed(shape):
        out.append(acc)
        acc *= s
    return tuple(reversed(out))


class FakeTensor:
    """Looks like a torch.Tensor to the runtime (data_ptr, shape, stride, dtype, device, element_size)."""

    SIZES = {"bfloat16": 2, "float16": 2, "float32": 4, "float64": 8, "int8": 1, "uint8": 1, "int32": 4,
             "int64": 8, "bool": 1, "float8_e4m3fn": 1, "complex64": 8, "int16": 2, "uint16": 2, "uint32": 4, "uint64": 8}

    def __init__(self, shape, dtype="bfloat16", device="cuda", strides=None, ptr=0x7F0000000000):
        self.shape = tuple(shape)
        self.dtype = "torch." + dtype
        self._strides = tuple(strides) if strides is not None else _contig(self.shape)
        self._ptr = ptr
        self.device = FakeDevice(device, 0 if device == "cuda" else None)
        self._isz = self.SIZES[dtype]

    def data_ptr(self):
        return self._ptr

    def stride(self):
        return self._strides

    def element_size(self):
        return self._isz


class FakeCAI:
    def __init__(self, shape, typestr="<f4", strides=None, ptr=0x7F0000001000):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr, "data": (ptr, False),
                                         "strides": strides, "version": 3}


BRIEF_SIDECAR = {
    "kernel": "gemm_sm90", "arch": "sm_90a", "ptx": "k.ptx", "threads": [384, 1, 1], "shared_bytes": 197632,
    "cluster": [1, 1, 1],
    "params": [
        {"name": "a", "kind": "tensordesc", "dtype": "bf16", "block_shape": [128, 64], "swizzle": 128},
        {"name": "c_ptr", "kind": "ptr", "dtype": "f32"},
        {"name": "M", "kind": "scalar", "dtype": "i32"},
        {"name": "scale", "kind": "scalar", "dtype": "f32"},
    ],
}


def _meta(**over):
    m = json.loads(json.dumps(BRIEF_SIDECAR))
    m.update(over)
    return m


@pytest.fixture
def no_driver(monkeypatch):
    """Make every driver access fail loudly, to prove that checks happen before anything touches the GPU."""

    def boom():
        raise AssertionError("the driver was touched although a check should have failed first")

    monkeypatch.setattr(launcher_mod, "get_driver", boom)
    monkeypatch.setattr(drv_mod, "get_driver", boom)


@pytest.fixture
def missing_libcuda(monkeypatch):
    monkeypatch.setattr(drv_mod, "LIBCUDA_NAMES", ["libtxl-no-such-cuda.so.1"])
    drv_mod.reset_driver()
    yield
    drv_mod.reset_driver()


# ---------------------------------------------------------------------------------------------------------------
# package hygiene
# ---------------------------------------------------------------------------------------------------------------
def test_import_does_not_import_torch():
    code = "import sys, txl, txl.runtime; print(txl.__version__); print('torch' in sys.modules)"
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    version, torch_loaded = out.split()
    assert version.count(".") == 2
    assert torch_loaded == "False"


def test_dtype_names():
    assert canonical_dtype("torch.bfloat16") == "bf16"
    assert canonical_dtype("torch.float8_e4m3fn") == "f8e4m3"
    assert canonical_dtype("<f4") == "f32"
    assert canonical_dtype("torch.bool") == "i1"
    assert canonical_dtype("torch.complex64") is None


def test_struct_layouts_match_cuda_h():
    import ctypes

    assert ctypes.sizeof(drv_mod.CUlaunchAttribute) == 72
    assert drv_mod.CUlaunchAttribute.value.offset == 8
    assert ctypes.sizeof(drv_mod.CUlaunchConfig) == 56
    assert drv_mod.CUlaunchConfig.hStream.offset == 32
    assert drv_mod.CUlaunchConfig.numAttrs.offset == 48


# ---------------------------------------------------------------------------------------------------------------
# sidecar
# ---------------------------------------------------------------------------------------------------------------
def test_parse_brief_sidecar():
    m = parse_sidecar(_meta())
    assert m.kernel == "gemm_sm90" and m.arch == "sm_90a"
    assert m.threads == (384, 1, 1) and m.shared_bytes == 197632 and m.cluster == (1, 1, 1)
    assert [p.kind for p in m.params] == ["tensordesc", "ptr", "scalar", "scalar"]
    a = m.params[0]
    assert a.block_shape == (128, 64) and a.swizzle == 128 and a.l2_promotion == 128 and a.dtype == "bf16"
    assert "gemm_sm90(a: tensordesc<bf16, [128, 64], swizzle=128>, c_ptr: *f32, M: i32, scale: f32)" == m.signature()


def test_parse_defaults_and_short_dims():
    m = parse_sidecar({"kernel": "k", "threads": 128, "params": []})
    assert m.threads == (128, 1, 1) and m.cluster == (1, 1, 1) and m.shared_bytes == 0 and m.arch == "sm_90a"


@pytest.mark.parametrize(
    "over, needle",
    [
        ({"kernel": None}, "'kernel'"),
        ({"threads": [2048, 1, 1]}, "at most 1024 threads"),
        ({"threads": [0, 1, 1]}, ">= 1"),
        ({"shared_bytes": -1}, "non-negative"),
        ({"shared_bytes": 300000}, "227 KB"),
        ({"cluster": [4, 4, 2]}, "maximum is 16"),
        ({"params": {"a": 1}}, "must be a list"),
        ({"params": [{"name": "x", "kind": "buffer", "dtype": "f32"}]}, "'kind' must be one of"),
        ({"params": [{"name": "x", "kind": "ptr", "dtype": "float"}]}, "unknown dtype 'float'"),
        ({"params": [{"name": "x", "kind": "ptr", "dtype": "f32"}, {"name": "x", "kind": "ptr", "dtype": "f32"}]},
         "duplicate parameter name 'x'"),
        ({"params": [{"name": "a", "kind": "tensordesc", "dtype": "bf16", "block_shape": [128, 64]}]}, "'swizzle'"),
        ({"params": [{"name": "a", "kind": "tensordesc", "dtype": "bf16", "block_shape": [64, 128], "swizzle": 128}]},
         "at most the 128-byte swizzle"),
        ({"params": [{"name": "a", "kind": "tensordesc", "dtype": "bf16", "block_shape": [64, 300], "swizzle": 0}]},
         "1..256"),
        ({"params": [{"name": "a", "kind": "tensordesc", "dtype": "f32", "block_shape": [8, 2], "swizzle": 0}]},
         "multiple of 16 bytes"),
    ],
)
def test_parse_errors(over, needle):
    with pytest.raises(TxlSidecarError) as e:
        parse_sidecar(_meta(**over), "k.json")
    assert needle in str(e.value)
    assert "k.json" in str(e.value)
    assert isinstance(e.value, ValueError)


def test_load_kernel_from_files(tmp_path):
    (tmp_path / "k.ptx").write_text(".version 8.0\n.target sm_90a\n.visible .entry gemm_sm90(\n)\n{\nret;\n}\n")
    (tmp_path / "k.json").write_text(json.dumps(_meta()))
    k = load_kernel(str(tmp_path / "k.json"))
    assert k.name == "gemm_sm90" and ".entry gemm_sm90(" in k.ptx and k.cubin is None
    assert "gemm_sm90" in repr(k)


def test_load_kernel_errors(tmp_path):
    with pytest.raises(TxlSidecarError, match="no such sidecar"):
        load_kernel(str(tmp_path / "nope.json"))
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(TxlSidecarError, match="not valid JSON"):
        load_kernel(str(tmp_path / "bad.json"))
    (tmp_path / "k.json").write_text(json.dumps(_meta()))
    with pytest.raises(TxlSidecarError, match="neither the PTX"):
        load_kernel(str(tmp_path / "k.json"))
    (tmp_path / "k.ptx").write_text(".visible .entry other_kernel(\n)\n{\nret;\n}\n")
    with pytest.raises(TxlSidecarError, match="has no '.entry gemm_sm90'"):
        load_kernel(str(tmp_path / "k.json"))


def test_all_gpu_test_sidecars_parse():
    names = sorted(f for f in os.listdir(KERNELS) if f.endswith(".json"))
    assert len(names) >= 6
    for n in names:
        k = load_kernel(os.path.join(KERNELS, n))
        assert k.ptx and ".target sm_90a" in k.ptx


def test_from_ptx():
    k = Kernel.from_ptx(".visible .entry gemm_sm90(){ret;}", _meta())
    assert k.ptx.startswith(".visible") and len(k.params) == 4
    with pytest.raises(TypeError):
        Kernel.from_ptx(b"bytes", _meta())


# ---------------------------------------------------------------------------------------------------------------
# grid
# ---------------------------------------------------------------------------------------------------------------
def test_grid_normalisation():
    m = parse_sidecar(_meta())
    assert normalize_grid(5, m) == (5, 1, 1)
    assert normalize_grid((4, 3), m) == (4, 3, 1)
    assert normalize_grid(lambda meta: (meta.threads[0] // 128,), m) == (3, 1, 1)
    assert normalize_grid((2**31 - 1, 65535, 65535), m) == (2**31 - 1, 65535, 65535)


@pytest.mark.parametrize(
    "grid, exc, needle",
    [
        ((0,), ValueError, "is empty"),
        ((4, 0, 1), ValueError, "is empty"),
        ((-1,), ValueError, "is empty"),
        ((2**31,), ValueError, "exceeds the CUDA limit"),
        ((1, 65536), ValueError, "put the large dimension on x"),
        ((1, 1, 70000), ValueError, "dimension z"),
        ((1, 2, 3, 4), TypeError, "1 to 3"),
        ((1.5,), TypeError, "must be ints"),
        ("8", TypeError, "grid must be"),
    ],
)
def test_grid_errors(grid, exc, needle, no_driver):
    k = Kernel(_meta())
    with pytest.raises(exc, match=needle):
        k[grid](FakeTensor((256, 128)), FakeTensor((4,), "float32"), 1, 1.0)


def test_grid_must_be_multiple_of_cluster():
    m = parse_sidecar(_meta(cluster=[2, 1, 1]))
    assert normalize_grid((4,), m) == (4, 1, 1)
    with pytest.raises(ValueError, match="multiple of the cluster"):
        normalize_grid((3,), m)


# ---------------------------------------------------------------------------------------------------------------
# arguments
# ---------------------------------------------------------------------------------------------------------------
def _args(**over):
    a = dict(a=FakeTensor((256, 128)), c=FakeTensor((256, 256), "float32"), M=256, scale=0.5)
    a.update(over)
    return [a["a"], a["c"], a["M"], a["scale"]]


def test_check_args_ok(no_driver):
    k = Kernel(_meta())
    packed = k.check_args(*_args())
    kinds = [v[0] for v in packed.values]
    assert kinds == ["plan", "ctype", "ctype", "ctype"]
    plan = packed.values[0][1]
    assert plan.global_dim == (128, 256) and plan.global_strides == (256,) and plan.box_dim == (64, 128)
    assert plan.swizzle_enum == 3 and plan.l2_enum == 2 and plan.data_type == 9
    assert packed.values[1][1].value == 0x7F0000000000
    assert packed.values[2][1].value == 256
    assert abs(packed.values[3][1].value - 0.5) < 1e-9
    assert packed.device_index == 0
    # keywords by param name
    a = _args()
    packed = k.check_args(a[0], a[1], scale=2.0, M=7)
    assert packed.values[2][1].value == 7


@pytest.mark.parametrize(
    "over, exc, needle",
    [
        ({"c": FakeTensor((4,), "float32", device="cpu")}, ValueError, "on cpu.*\\.cuda\\(\\)"),
        ({"c": FakeTensor((4,), "bfloat16")}, TypeError, "got a bf16 tensor: convert it with .to\\(torch.float32\\)"),
        ({"c": 12345}, TypeError, "param 'c_ptr'.*needs a CUDA tensor"),
        ({"M": 2**31}, ValueError, "param 'M' \\(i32\\) = 2147483648 does not fit in i32"),
        ({"M": -(2**31) - 1}, ValueError, "does not fit in i32"),
        ({"M": 3.0}, TypeError, "param 'M' \\(i32\\) needs an int, got float"),
        ({"M": True}, TypeError, "needs an int, got bool"),
        ({"scale": "0.5"}, TypeError, "param 'scale' \\(f32\\) needs a float"),
        ({"scale": 1e39}, ValueError, "overflows f32"),
        ({"a": FakeTensor((256, 128), "float16")}, TypeError, "param 'a'.*expects a bf16 tensor"),
        ({"a": FakeTensor((256, 128), device="cpu")}, ValueError, "param 'a'.*on cpu"),
        ({"a": [1, 2, 3]}, TypeError, "param 'a'.*needs a CUDA tensor or a TensorDescriptor"),
        ({"a": FakeTensor((256, 100))}, ValueError, "stride\\[0\\] of 100 bf16 = 200 bytes.*pad the row to 104"),
    ],
)
def test_arg_errors(over, exc, needle, no_driver):
    k = Kernel(_meta())
    with pytest.raises(exc, match=needle):
        k[(1,)](*_args(**over))


@pytest.mark.parametrize("param, tensor, ok", [("i8", "uint8", True), ("i8", "int8", True), ("i32", "uint32", True),
                                               ("i64", "uint64", True), ("i16", "uint16", True),
                                               ("i8", "int16", False), ("i32", "float32", False)])
def test_integer_pointer_params_take_either_signedness(param, tensor, ok, no_driver):
    # A kernel the JIT compiled for a uint8 tensor names its param i8 (MLIR's signless width); its code already
    # treats the bytes as unsigned, so the launcher checks the width, not the sign.
    meta = _meta()
    meta["params"][1]["dtype"] = param
    k = Kernel(meta)
    a = _args(c=FakeTensor((4,), tensor))
    if ok:
        assert k.check_args(*a).values[1][1].value == 0x7F0000000000
    else:
        with pytest.raises(TypeError, match="param 'c_ptr'.*convert it with"):
            k.check_args(*a)


def test_pointer_params_take_strided_views(no_driver):
    # the kernel indexes through the strides it is given (Triton's matmul(a, b.T) passes a transposed view)
    k = Kernel(_meta())
    packed = k.check_args(*_args(c=FakeTensor((256, 256), "float32", strides=(1, 256))))
    assert packed.values[1][1].value == 0x7F0000000000


def test_arg_count_and_names(no_driver):
    k = Kernel(_meta())
    with pytest.raises(TypeError, match="takes 4 arguments \\(a, c_ptr, M, scale\\) but 3 were given; missing: scale"):
        k[1](*_args()[:3])
    with pytest.raises(TypeError, match="but 5 were given"):
        k[1](*_args(), 1)
    with pytest.raises(TypeError, match="unexpected argument 'N'"):
        k[1](*_args()[:3], N=1)
    with pytest.raises(TypeError, match="multiple values for argument 'M'"):
        k[1](*_args(), M=3)


def test_device_mismatch(no_driver):
    c = FakeTensor((4,), "float32")
    c.device = FakeDevice("cuda", 1)
    with pytest.raises(ValueError, match="cuda:1 but earlier arguments are on cuda:0"):
        Kernel(_meta())[1](*_args(c=c))


def test_scalar_packing():
    from txl.runtime.launcher import Param, _pack_scalar

    assert _pack_scalar(Param(0, "x", "scalar", "bf16"), 1.0, "k").value == 0x3F80
    assert _pack_scalar(Param(0, "x", "scalar", "bf16"), -2.5, "k").value == 0xC020
    assert _pack_scalar(Param(0, "x", "scalar", "f16"), 1.5, "k").value == 0x3E00
    assert _pack_scalar(Param(0, "x", "scalar", "i1"), True, "k").value == 1
    assert _pack_scalar(Param(0, "x", "scalar", "i8"), -1, "k").value == 0xFF
    assert _pack_scalar(Param(0, "x", "scalar", "i64"), -(2**63), "k").value == -(2**63)
    with pytest.raises(ValueError, match="does not fit in i1"):
        _pack_scalar(Param(0, "x", "scalar", "i1"), 2, "k")
    with pytest.raises(ValueError, match="overflows f16"):
        _pack_scalar(Param(0, "x", "scalar", "f16"), 70000.0, "k")


def test_descriptor_mismatch_is_rejected(no_driver):
    plan = plan_tensor_map(FakeTensor((256, 128)), [64, 64], 128)
    d = TensorDescriptor.__new__(TensorDescriptor)  # a descriptor without encoding (no driver here)
    d.plan, d.tensor, d.address = plan, None, 0
    with pytest.raises(ValueError, match="block_shape \\[64, 64\\] \\(the kernel expects \\[128, 64\\]\\).*hang"):
        Kernel(_meta())[1](d, *_args()[1:])
    ptrk = Kernel(_meta(params=[{"name": "p", "kind": "ptr", "dtype": "bf16"}]))
    with pytest.raises(TypeError, match="got a TensorDescriptor: pass the tensor itself"):
        ptrk[1](d)


# ---------------------------------------------------------------------------------------------------------------
# TensorDescriptor / plan_tensor_map validation
# ---------------------------------------------------------------------------------------------------------------
def test_plan_3d():
    t = FakeTensor((3, 200, 136), "bfloat16")
    p = plan_tensor_map(t, [1, 64, 64], 128)
    assert p.rank == 3
    assert p.global_dim == (136, 200, 3)
    assert p.global_strides == (272, 272 * 200)
    assert p.box_dim == (64, 64, 1) and p.element_strides == (1, 1, 1)
    assert p.oob_fill == 0 and p.interleave == 0


def test_plan_cuda_array_interface():
    p = plan_tensor_map(FakeCAI((64, 32), "<f4"), [16, 16], 64)
    assert p.dtype == "f32" and p.global_dim == (32, 64) and p.global_strides == (128,)
    p = plan_tensor_map(FakeCAI((64, 32), "<f4", strides=(256, 4)), [16, 16], 0)
    assert p.global_strides == (256,)
    info = tensor_info(FakeCAI((8, 8), "<f2"))
    assert info.dtype == "f16" and info.strides == (8, 1) and info.is_cuda


@pytest.mark.parametrize(
    "tensor, block, swizzle, exc, needle",
    [
        (FakeTensor((64, 64), device="cpu"), [64, 64], 128, ValueError, "on cpu.*tensor.cuda\\(\\)"),
        (FakeTensor((100, 100)), [64, 64], 0, ValueError,
         "stride\\[0\\] of 100 bf16 = 200 bytes is not a multiple of 16.*pad the row to 104 elements"),
        (FakeTensor((4, 10, 64), strides=(644, 64, 1)), [1, 8, 64], 0, ValueError,
         "stride\\[0\\] of 644 bf16 = 1288 bytes.*pad dimension 1 so that its stride is a multiple of 8 elements"),
        (FakeTensor((64, 64), strides=(1, 64)), [64, 64], 0, ValueError, "innermost dimension must be contiguous"),
        (FakeTensor((64, 64), ptr=0x7F0000000008), [64, 64], 0, ValueError, "not 16-byte aligned.*\\.clone\\(\\)"),
        (FakeTensor((64, 64)), [64, 0], 0, ValueError, "block_shape\\[1\\] = 0 is out of range.*1..256"),
        (FakeTensor((512, 64)), [257, 64], 0, ValueError, "block_shape\\[0\\] = 257"),
        (FakeTensor((64, 64)), [64, 4], 0, ValueError, "4 bf16 = 8 bytes is not a multiple of 16.*e.g. 8"),
        (FakeTensor((64, 128)), [64, 128], 128, ValueError, "256 bytes exceeds the 128-byte swizzle.*<= 64"),
        (FakeTensor((64, 64), "float32"), [64, 32], 64, ValueError, "128 bytes exceeds the 64-byte swizzle"),
        (FakeTensor((64, 64)), [64, 64], 96, ValueError, "swizzle must be 0, 32, 64 or 128"),
        (FakeTensor((2, 2, 2, 2, 2, 16)), [1, 1, 1, 1, 1, 16], 0, ValueError, "1-D to 5-D"),
        (FakeTensor((64, 64), "complex64"), [8, 8], 0, ValueError, "cannot be described by a TMA descriptor"),
        (FakeTensor((64, 64)), [64], 0, ValueError, "has 1 dimensions but the tensor.*has 2"),
        (FakeTensor((0, 64)), [8, 64], 0, ValueError, "size 0"),
        (FakeTensor((64, 64), strides=(0, 1)), [8, 64], 0, ValueError, "positive strides.*contiguous"),
        (FakeTensor((64, 64)), (64.0, 64), 0, TypeError, "list of ints"),
        ("not a tensor", [64, 64], 0, TypeError, "needs a CUDA tensor"),
    ],
)
def test_descriptor_validation(tensor, block, swizzle, exc, needle, no_driver):
    with pytest.raises(exc, match=needle):
        TensorDescriptor(tensor, block, swizzle=swizzle)


def test_descriptor_accepts_valid_shapes():
    # 2-D to 5-D, every TMA dtype the sidecar names, swizzle limits at their edges
    for dtype, isz in [("bfloat16", 2), ("float16", 2), ("float32", 4), ("int8", 1), ("int32", 4), ("int64", 8),
                       ("float8_e4m3fn", 1), ("bool", 1)]:
        inner = 128 // isz
        p = plan_tensor_map(FakeTensor((256, inner), dtype), [64, inner], 128)
        assert p.box_dim == (inner, 64)
    p = plan_tensor_map(FakeTensor((2, 3, 4, 8, 64)), [1, 1, 2, 8, 16], 32)
    assert p.global_dim == (64, 8, 4, 3, 2) and p.box_dim == (16, 8, 2, 1, 1)
    # boxes larger than the tensor are fine (TMA fills out-of-bounds with zeros)
    assert plan_tensor_map(FakeTensor((8, 8)), [64, 64], 0).box_dim == (64, 64)


# ---------------------------------------------------------------------------------------------------------------
# no driver / no GPU
# ---------------------------------------------------------------------------------------------------------------
def test_missing_libcuda_is_a_clear_error(missing_libcuda):
    with pytest.raises(TxlDriverNotFoundError) as e:
        drv_mod.get_driver()
    msg = str(e.value)
    assert "libtxl-no-such-cuda.so.1" in msg and "no NVIDIA driver" in msg and "LD_LIBRARY_PATH" in msg


def test_missing_libcuda_on_descriptor_after_validation(missing_libcuda):
    # the tensor is valid, so validation passes and the encoder's need for the driver is what fails
    with pytest.raises(TxlDriverNotFoundError):
        TensorDescriptor(FakeTensor((256, 128)), [128, 64], swizzle=128)
    # an invalid tensor is reported as such, not as a missing driver
    with pytest.raises(ValueError):
        TensorDescriptor(FakeTensor((256, 100)), [128, 64], swizzle=128)


def test_missing_libcuda_on_launch(missing_libcuda):
    k = Kernel(_meta())
    with pytest.raises(TxlDriverNotFoundError):
        k[(2, 2)](*_args())


STUB = "/usr/local/cuda/lib64/stubs/libcuda.so"


@pytest.mark.skipif(not os.path.exists(STUB), reason="no CUDA toolkit stub libcuda.so here")
def test_stub_libcuda_reports_no_device():
    import ctypes.util  # noqa: F401

    try:
        import ctypes

        ctypes.CDLL("libcuda.so.1")
        pytest.skip("a real driver is present; the stub test is for machines without one")
    except OSError:
        pass
    with pytest.raises(TxlNoDeviceError) as e:
        drv_mod.CudaDriver(lib_path=STUB)
    msg = str(e.value)
    assert "cuInit failed while initialising the CUDA driver" in msg
    assert "CUDA_ERROR_STUB_LIBRARY (34)" in msg and "stub" in msg
    assert isinstance(e.value, CudaError) and e.value.code == 34


def test_cuda_error_message():
    e = CudaError(1, "CUDA_ERROR_INVALID_VALUE", "invalid argument", "cuTensorMapEncodeTiled", "encoding a descriptor")
    assert str(e).startswith("cuTensorMapEncodeTiled failed while encoding a descriptor: CUDA_ERROR_INVALID_VALUE (1): "
                             "invalid argument")
    e = CudaError(500, "CUDA_ERROR_NOT_FOUND", "named symbol not found", "cuModuleGetFunction", "looking up 'k'")
    assert "hint:" in str(e) and "'kernel' field" in str(e)


# ---------------------------------------------------------------------------------------------------------------
# torch CPU tensors (when torch is importable)
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.skipif(not HAVE_TORCH, reason="torch is not installed")
def test_torch_cpu_tensors_are_rejected(no_driver):
    import torch

    k = Kernel(_meta())
    a = torch.zeros(256, 128, dtype=torch.bfloat16)
    c = torch.zeros(256, 256, dtype=torch.float32)
    with pytest.raises(ValueError, match="param 'a'.*on cpu"):
        k[1](a, c, 1, 1.0)
    with pytest.raises(ValueError, match="on cpu"):
        TensorDescriptor(a, [128, 64])
    info = tensor_info(a[:, 1:])
    assert info.dtype == "bf16" and info.strides == (128, 1) and not info.is_contiguous() and not info.is_cuda
    assert tensor_info(c.t()).strides == (1, 256)


# ---------------------------------------------------------------------------------------------------------------
# the launch path against a recording fake driver (no GPU): what reaches cuLaunchKernel(Ex)
# ---------------------------------------------------------------------------------------------------------------
class RecordingDriver:
    def __init__(self, param_sizes=None, optin=232448, static_smem=0):
        self.calls = []
        self.param_sizes = param_sizes
        self.optin = optin
        self.static_smem = static_smem

    def set_device(self, dev):
        self.calls.append(("set_device", dev))

    def load_module(self, image, what=""):
        self.calls.append(("load_module", type(image).__name__))
        return 0x1000

    def unload_module(self, mod):
        self.calls.append(("unload_module", mod))

    def get_function(self, mod, name):
        self.calls.append(("get_function", name))
        return 0x2000

    def param_info(self, func, expected=None):
        return self.param_sizes

    def func_attribute(self, func, attr):
        return self.static_smem

    def max_shared_optin(self, dev):
        return self.optin

    def device_name(self, dev):
        return "FakeGPU"

    def set_func_attribute(self, func, attr, value, what):
        self.calls.append(("set_func_attribute", attr, value))

    def encode_tiled(self, addr, plan, what):
        import ctypes

        assert addr % 64 == 0
        ctypes.memmove(addr, b"\xab" * 128, 128)
        self.calls.append(("encode_tiled", plan.global_dim, plan.box_dim, plan.swizzle_enum))

    def launch(self, func, grid, block, shared, stream, params, cluster, what):
        import ctypes

        raw = [params[i] for i in range(len(params))]
        self.calls.append(("launch", grid, block, shared, stream, cluster, raw, what))
        # read back what each kernel-param pointer points at, while the launch call is "in flight"
        self.param_bytes = [ctypes.string_at(raw[0], 128), ctypes.string_at(raw[1], 8), ctypes.string_at(raw[2], 4),
                            ctypes.string_at(raw[3], 4)]

    def stream_synchronize(self, stream, what):
        self.calls.append(("sync", stream))


def test_launch_path_with_recording_driver(monkeypatch):
    import struct

    fake = RecordingDriver(param_sizes=[(0, 128), (128, 8), (136, 4), (140, 4)])
    monkeypatch.setattr(launcher_mod, "get_driver", lambda: fake)
    monkeypatch.setenv("TXL_LAUNCH_BLOCKING", "1")
    k = Kernel.from_ptx(".visible .entry gemm_sm90(){ret;}", _meta(cluster=[2, 1, 1]))
    k[(4, 3)](*_args(M=77, scale=0.25))
    names = [c[0] for c in fake.calls]
    assert names == ["set_device", "set_device", "load_module", "get_function", "set_func_attribute",
                     "encode_tiled", "launch", "sync"]
    assert fake.calls[4][1:] == (drv_mod.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 197632)
    assert fake.calls[5][1:] == ((128, 256), (64, 128), 3)
    _, grid, block, shared, stream, cluster, raw, what = fake.calls[6]
    assert grid == (4, 3, 1) and block == (384, 1, 1) and shared == 197632 and cluster == (2, 1, 1)
    assert stream == 0 and "cluster [2, 1, 1]" in what
    assert raw[0] % 64 == 0
    assert fake.param_bytes[0] == b"\xab" * 128
    assert struct.unpack("<Q", fake.param_bytes[1])[0] == 0x7F0000000000
    assert struct.unpack("<i", fake.param_bytes[2])[0] == 77
    assert struct.unpack("<f", fake.param_bytes[3])[0] == 0.25
    # second launch: module and descriptor are cached
    fake.calls.clear()
    k[(4, 3)](*_args(M=78, scale=0.25))
    assert [c[0] for c in fake.calls] == ["set_device", "launch", "sync"]


def test_launch_rejects_sidecar_ptx_mismatch(monkeypatch):
    fake = RecordingDriver(param_sizes=[(0, 8), (8, 8), (16, 4), (20, 4)])  # param 0 passed by pointer
    monkeypatch.setattr(launcher_mod, "get_driver", lambda: fake)
    k = Kernel.from_ptx(".visible .entry gemm_sm90(){ret;}", _meta())
    with pytest.raises(TxlSidecarError, match="was the descriptor passed by pointer"):
        k[1](*_args())
    assert "launch" not in [c[0] for c in fake.calls] and ("unload_module", 0x1000) in fake.calls
    fake = RecordingDriver(param_sizes=[(0, 128), (128, 8), (136, 4)])
    monkeypatch.setattr(launcher_mod, "get_driver", lambda: fake)
    with pytest.raises(TxlSidecarError, match="lists 4 params .* takes 3"):
        Kernel.from_ptx(".visible .entry gemm_sm90(){ret;}", _meta())[1](*_args())
    fake = RecordingDriver(param_sizes=None, optin=232448, static_smem=40000)
    monkeypatch.setattr(launcher_mod, "get_driver", lambda: fake)
    with pytest.raises(TxlSidecarError, match="more than the 232448 bytes"):
        Kernel.from_ptx(".visible .entry gemm_sm90(){ret;}", _meta())[1](*_args())
