"""tl.sort / tl.flip (and the tensor methods) emit one txl.sort / txl.flip each; the C++ lowering
(convert-txl-to-nvvm SortLowering, FlipLowering) builds the bitonic network / the bit flips over registers, lanes
and warps. Dtype handling and errors are checked here; the values against torch on the GPU are
python/txl/tests/gpu/tile_ops_cases.py (sort_flip_*)."""

import pytest

import txl
import txl.language as tl
from txl.errors import CompilationError

from .dsl_helpers import check, check_not, compile_ptx, ir_of, verify
from .gpu import tile_ops_cases


def test_sort_flip_2d_ir_and_ptx():
    sig = {n: "*fp32" for n in ("x_ptr", "asc_ptr", "desc_ptr", "flip_ptr", "cols_ptr")}
    sig.update(i_ptr="*i32", isort_ptr="*i32")
    text = ir_of(tile_ops_cases.sort_flip_2d, sig, {"M": 32, "N": 64})
    check(text,
          r"txl.sort %x axis 1 : tensor<32x64xf32>",
          r"txl.sort %x axis 1 descending : tensor<32x64xf32>",
          r"txl.flip %x axis 1 : tensor<32x64xf32>",
          r"txl.sort %\w+ axis 1 : tensor<32x64xi32>",
          r"txl.sort %x axis 0 : tensor<32x64xf32>")
    verify(text)
    ptx, _ = compile_ptx(text)
    assert "shfl.sync.bfly" in ptx and "setp.lt.f32" in ptx and "setp.lt.s32" in ptx


def test_topk_is_a_descending_sort_and_a_max_over_the_split():
    text = ir_of(tile_ops_cases.topk_2d, {"x_ptr": "*fp32", "rows_ptr": "*fp32", "cols_ptr": "*fp32"},
                 {"M": 32, "N": 128, "K": 8})
    check(text,
          r"txl.sort %x axis 1 descending : tensor<32x128xf32>",
          r"txl.reshape %\w+ : tensor<32x128xf32> -> tensor<32x16x8xf32>",
          r"txl.reduce %\w+ axis 1 : \(tensor<32x16x8xf32>\) -> tensor<32x8xf32>",
          r"arith.maxnumf",
          r"txl.sort %x axis 0 descending : tensor<32x128xf32>",
          r"txl.reshape %\w+ : tensor<32x128xf32> -> tensor<4x8x128xf32>",
          r"txl.reduce %\w+ axis 0 : \(tensor<4x8x128xf32>\) -> tensor<8x128xf32>")
    compile_ptx(text)


def test_sort_1d_across_warps_has_no_local_memory():
    text = ir_of(tile_ops_cases.sort_flip_1d, {n: "*fp32" for n in ("x_ptr", "asc_ptr", "desc_ptr", "flip_ptr")},
                 {"N": 4096}, num_warps=8)
    ptx, _ = compile_ptx(text)
    assert "bar.sync" in ptx or "barrier.sync" in ptx  # warps split the dimension: shared-memory partners
    check_not(ptx, r"\.local")


@pytest.mark.parametrize("dtype, work", [("*u8", "i32"), ("*u32", "i64"), ("*i16", "i16"), ("*bf16", "bf16")])
def test_sort_dtypes(dtype, work):
    @txl.jit
    def k(x_ptr, y_ptr):
        offs = tl.arange(0, 128)
        tl.store(y_ptr + offs, tl.sort(tl.load(x_ptr + offs)))

    text = ir_of(k, {"x_ptr": dtype, "y_ptr": dtype})
    check(text, r"txl.sort %\w+ axis 0 : tensor<128x" + work + ">")
    compile_ptx(text)


def test_flip_of_booleans_travels_as_int8():
    @txl.jit
    def k(x_ptr, y_ptr):
        offs = tl.arange(0, 128)
        tl.store(y_ptr + offs, tl.flip(tl.load(x_ptr + offs) > 0).to(tl.int32))

    text = ir_of(k, {"x_ptr": "*fp32", "y_ptr": "*i32"})
    check(text, r"txl.flip %\w+ axis 0 : tensor<128xi8>")
    compile_ptx(text)


@txl.jit
def _sort_bools(x_ptr):
    tl.sort(tl.load(x_ptr + tl.arange(0, 32)) > 0)


@txl.jit
def _sort_scalar(x_ptr):
    tl.sort(tl.load(x_ptr))


@txl.jit
def _flip_bad_dim(x_ptr):
    tl.flip(tl.load(x_ptr + tl.arange(0, 32)), 1)


@txl.jit
def _topk_not_power_of_two(x_ptr):
    tl.topk(tl.load(x_ptr + tl.arange(0, 32)), 3)


@pytest.mark.parametrize("fn, message", [
    (_topk_not_power_of_two, "tl.topk: k must be a power of two from 1 to the dimension's 32 elements, got 3"),
    (_sort_bools, "tl.sort of booleans is not supported"),
    (_sort_scalar, "tl.sort works on a tile, got the scalar f32"),
    (_flip_bad_dim, "axis"),
])
def test_errors_are_located(fn, message):
    with pytest.raises(CompilationError) as info:
        ir_of(fn, {"x_ptr": "*fp32"})
    assert message in info.value.message, info.value.message
    assert info.value.line is not None and info.value.file.endswith("test_sort.py")
