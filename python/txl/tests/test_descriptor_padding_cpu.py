"""``txl.TensorDescriptor(..., padding="nan")`` (Triton 3.6's host descriptor option) and the device-side
``tl.make_tensor_descriptor(..., padding_option="nan")``: out-of-bounds elements of a TMA load read as NaN. On the
host, a NaN-padded descriptor is encoded at launch with the compiled kernel's box, swizzle and L2 promotion plus the
NaN fill (the zero-padded one goes as its tensor, encoded by the runtime); it never takes the fast path's
tensor-only encoding. The GPU side is gpu/test_descriptor_padding_gpu.py."""

import pytest

import txl
from txl.compiler import compiler as C
from txl.runtime import Kernel, driver as drv_mod
from txl.tests.txl_fakes import FakeTensor

from .dsl_helpers import check, compile_ptx, ir_of
from .gpu.descriptor_padding_kernels import device_desc_copy, tile_copy


class _EncodingDriver:
    """Records the plans encoded (a CPU stand-in for the CUDA driver's cuTensorMapEncodeTiled)."""

    def __init__(self):
        self.plans = []

    def set_device(self, dev):
        pass

    def encode_tiled(self, addr, plan, what):
        import ctypes

        ctypes.memmove(addr, b"\xcd" * 128, 128)
        self.plans.append(plan)


@pytest.fixture
def recorded(tmp_path, monkeypatch):
    if C.find_txlc() is None:  # pragma: no cover
        pytest.skip("txlc is not built")
    monkeypatch.setenv("TXL_CACHE_DIR", str(tmp_path / "cache"))
    fake = _EncodingDriver()
    monkeypatch.setattr(drv_mod, "get_driver", lambda: fake)
    calls = []

    def fake_launch(self, grid, *args, stream=None, **kwargs):
        self.check_args(*args, **kwargs)  # the runtime's checks of the encoded box against the sidecar
        calls.append(kwargs)

    monkeypatch.setattr(Kernel, "launch", fake_launch)
    tile_copy.cache.clear()
    return fake, calls


def test_nan_padding_is_encoded_with_the_kernels_box(recorded):
    fake, calls = recorded
    t, out = FakeTensor((100, 64), "bfloat16"), FakeTensor((128 * 64,), "bfloat16")
    d = txl.TensorDescriptor(t, [100, 64], [64, 1], [64, 64], padding="nan")
    assert d.padding == "nan"
    for _ in range(3):  # the slow path every time; the descriptor is encoded once
        tile_copy[(2,)](d, out, BM=64, BN=64)
    assert len(calls) == 3 and len(fake.plans) == 1
    plan = fake.plans[0]
    assert plan.oob_fill == drv_mod.CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
    enc = list(calls[-1].values())[0]  # the descriptor parameter (the sidecar names them arg0, arg1)
    assert isinstance(enc, drv_mod.TensorDescriptor) and enc.tensor is t
    zero = drv_mod.plan_tensor_map(t, enc.block_shape, enc.swizzle, plan.l2_promotion)
    assert zero.oob_fill == drv_mod.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE
    for field in ("global_dim", "global_strides", "box_dim", "swizzle_enum", "l2_promotion", "dtype"):
        assert getattr(plan, field) == getattr(zero, field), field

    # zero padding: the tensor goes to the runtime, which encodes it there
    tile_copy[(2,)](txl.TensorDescriptor(t, [100, 64], [64, 1], [64, 64]), out, BM=64, BN=64)
    assert list(calls[-1].values())[0] is t


def test_padding_errors():
    t = FakeTensor((100, 64), "bfloat16")
    with pytest.raises(ValueError, match="NaN padding is only supported for floating-point tensors, got i32"):
        txl.TensorDescriptor(FakeTensor((100, 64), "int32"), [64, 64], padding="nan")
    with pytest.raises(ValueError, match=r"padding='inf'\): out-of-bounds elements read as 'zero'"):
        txl.TensorDescriptor(t, [64, 64], padding="inf")
    d = txl.TensorDescriptor.from_tensor(t, [64, 64], padding="nan")
    assert d.padding == "nan"


def test_device_descriptor_nan_fill_mode():
    sig = {"in_ptr": "*fp32", "out_ptr": "*fp32", "M": "i32"}
    text = ir_of(device_desc_copy, sig, {"BM": 64, "BN": 32, "NAN": True})
    check(text, r"txl.make_tensor_descriptor .* \{nan_fill\}|txl.make_tensor_descriptor .* nan_fill")
    ptx, _ = compile_ptx(text)
    assert "tensormap.replace.tile.fill_mode.global.b1024.b32 [%rd" in ptx or "fill_mode" in ptx
    assert any("fill_mode" in line and line.rstrip().endswith("1;") for line in ptx.splitlines()), ptx
    text = ir_of(device_desc_copy, sig, {"BM": 64, "BN": 32, "NAN": False})
    assert "nan_fill" not in text
    ptx, _ = compile_ptx(text)
    assert any("fill_mode" in line and line.rstrip().endswith("0;") for line in ptx.splitlines()), ptx
