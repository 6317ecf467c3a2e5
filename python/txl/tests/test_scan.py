"""Scans: tl.cumsum / tl.cumprod / tl.associative_scan (and the tensor methods) emit one txl.scan each, with an
add / mul combiner or the user's @txl.jit combine function inlined as its region; the C++ lowering
(convert-txl-to-nvvm, ScanLowering) does the rest. Triton's dtype rules are checked here; the GPU side (values
against torch, a non-commutative combine function, axes split by registers, lanes and warps) is in
python/txl/tests/gpu/tile_ops_cases.py (scans_*)."""

import pytest

import txl
import txl.language as tl
from txl.errors import CompilationError

from .dsl_helpers import check, check_not, compile_ptx, ir_of, verify
from .gpu import tile_ops_cases


def test_cumsum_cumprod_ir_and_ptx():
    text = ir_of(tile_ops_cases.scans_1d, {n: "*fp32" for n in ("x_ptr", "sum_ptr", "rsum_ptr", "prod_ptr")}
                 | {"i_ptr": "*i32", "isum_ptr": "*i32"}, {"N": 1024})
    check(text,
          r"txl.scan %\w+ axis 0 : \(tensor<1024xf32>\) -> tensor<1024xf32> \{",
          r"arith.addf",
          r"txl.reduce_return",
          r"txl.scan %\w+ axis 0 reverse : \(tensor<1024xf32>\) -> tensor<1024xf32>",
          r"txl.scan %\w+ axis 0 : \(tensor<1024xf32>\) -> tensor<1024xf32> \{",
          r"arith.mulf",
          r"txl.scan %\w+ axis 0 : \(tensor<1024xi32>\) -> tensor<1024xi32> \{",
          r"arith.addi")
    verify(text)
    ptx, _ = compile_ptx(text)
    # 1024 elements over 4 warps: the last two axis bits cross warps through shared memory.
    assert "bar.sync" in ptx or "barrier.sync" in ptx, ptx[-2000:]
    assert "shfl.sync.bfly" in ptx


def test_user_combine_tuple_reverse_ir_and_ptx():
    text = ir_of(tile_ops_cases.scans_2d, {n: "*fp32" for n in ("x_ptr", "a_ptr", "rows_ptr", "cols_ptr", "h_ptr",
                                                                  "hr_ptr")}, {"M": 64, "N": 64})
    check(text,
          r"txl.scan %\w+ axis 1 :", r"txl.scan %\w+ axis 0 :",
          # the recurrence: two operands, the user's function inlined on (a1, x1, a2, x2)
          r"txl.scan %\w+, %\w+ axis 1 : \(tensor<64x64xf32>, tensor<64x64xf32>\) -> "
          r"\(tensor<64x64xf32>, tensor<64x64xf32>\) \{",
          r"\^bb0\(%a0: f32, %a1: f32, %b0: f32, %b1: f32\):",
          r"arith.mulf %a0, %b0", r"arith.mulf %a1, %b0", r"arith.addf",
          r"txl.reduce_return",
          r"txl.scan %\w+, %\w+ axis 1 reverse :")
    verify(text)
    compile_ptx(text)


@pytest.mark.parametrize("dtype, scanned", [("*i8", "i32"), ("*u16", "i32"), ("*bf16", "f32"), ("*fp16", "f16"),
                                            ("*i64", "i64")])
def test_cumsum_dtypes_follow_triton(dtype, scanned):
    @txl.jit
    def k(x_ptr, y_ptr):
        offs = tl.arange(0, 128)
        tl.store(y_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), 0))

    text = ir_of(k, {"x_ptr": dtype, "y_ptr": dtype})
    check(text, r"txl.scan %\w+ axis 0 : \(tensor<128x" + scanned + r">\)")


def test_cumsum_dtype_argument_and_cumprod_bf16():
    @txl.jit
    def k(x_ptr, y_ptr, z_ptr):
        offs = tl.arange(0, 128)
        x = tl.load(x_ptr + offs)
        tl.store(y_ptr + offs, tl.cumsum(x, 0, dtype=tl.float32))
        tl.store(z_ptr + offs, x.cumprod(0, reverse=True))

    text = ir_of(k, {"x_ptr": "*fp16", "y_ptr": "*fp32", "z_ptr": "*fp16"})
    check(text, r"txl.scan %\w+ axis 0 : \(tensor<128xf32>\)", r"arith.addf",
          r"txl.scan %\w+ axis 0 reverse : \(tensor<128xf16>\)", r"arith.mulf")
    text = ir_of(k, {"x_ptr": "*bf16", "y_ptr": "*fp32", "z_ptr": "*bf16"})
    check(text, r"txl.scan %\w+ axis 0 reverse : \(tensor<128xf32>\)", r"arith.mulf")


@txl.jit
def _or(a, b):
    return a | b


def _not_jit(a, b):
    return a + b


@txl.jit
def _two(a, b):
    return a + b, a


def test_scan_of_booleans_compares_with_zero():
    @txl.jit
    def k(x_ptr, y_ptr):
        offs = tl.arange(0, 128)
        seen = tl.associative_scan(tl.load(x_ptr + offs) > 0, 0, _or)
        tl.store(y_ptr + offs, seen.to(tl.int32))

    text = ir_of(k, {"x_ptr": "*fp32", "y_ptr": "*i32"})
    check(text, r"txl.scan %\w+ axis 0 : \(tensor<128xi8>\)", r"arith.ori", r"arith.cmpi ne")
    compile_ptx(text)


def _error(fn, sig):
    with pytest.raises(CompilationError) as info:
        ir_of(fn, sig)
    e = info.value
    assert e.line is not None and e.file.endswith("test_scan.py"), (e.file, e.line)
    return e


def test_scan_errors_are_located():
    @txl.jit
    def plain_fn(x_ptr):
        tl.associative_scan(tl.load(x_ptr + tl.arange(0, 32)), 0, _not_jit)

    e = _error(plain_fn, {"x_ptr": "*fp32"})
    assert "needs a @txl.jit combine function" in e.message

    @txl.jit
    def wrong_count(x_ptr):
        tl.associative_scan(tl.load(x_ptr + tl.arange(0, 32)), 0, _two)

    assert "returns 2 values for 1 tile" in _error(wrong_count, {"x_ptr": "*fp32"}).message

    @txl.jit
    def scalar(x_ptr):
        tl.cumsum(tl.load(x_ptr), 0)

    assert "tl.cumsum scans a tile, got the scalar f32" in _error(scalar, {"x_ptr": "*fp32"}).message

    @txl.jit
    def no_axis(x_ptr):
        tl.associative_scan(tl.load(x_ptr + tl.arange(0, 32)), None, _two)

    assert "needs an axis" in _error(no_axis, {"x_ptr": "*fp32"}).message

    @txl.jit
    def bad_axis(x_ptr):
        tl.cumsum(tl.load(x_ptr + tl.arange(0, 32)), 1)

    _error(bad_axis, {"x_ptr": "*fp32"})

    @txl.jit
    def bools(x_ptr, y_ptr):
        tl.store(y_ptr + tl.arange(0, 32), tl.cumsum(tl.load(x_ptr + tl.arange(0, 32)) > 0, 0))

    e = _error(bools, {"x_ptr": "*fp32", "y_ptr": "*i32"})
    assert "tl.cumsum of booleans" in e.message and "x.to(tl.int32)" in str(e)


def test_scan_ptx_has_no_local_memory():
    """A 4096-element scan over 8 warps (register bits above the warps' ones) stays in registers and shared
    memory."""
    text = ir_of(tile_ops_cases.scans_1d, {n: "*fp32" for n in ("x_ptr", "sum_ptr", "rsum_ptr", "prod_ptr")}
                 | {"i_ptr": "*i32", "isum_ptr": "*i32"}, {"N": 4096}, num_warps=8)
    ptx, _ = compile_ptx(text)
    check_not(ptx, r"\.local")
