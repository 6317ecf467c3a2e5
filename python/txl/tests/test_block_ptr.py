"""Block pointers (issue 14): ``tl.make_block_ptr``, ``tl.advance`` and ``tl.load`` / ``tl.store`` through them,
with Triton 3.6's semantics, through the real frontend and txlc (no GPU; the GPU side is gpu/test_block_ptr_gpu.py).

A block pointer is an IR value: the frontend emits ``txl.make_block_ptr`` / ``txl.advance`` / ``txl.block_load`` /
``txl.block_store`` and carries it through ``scf.for`` / ``scf.while`` / ``scf.if`` like any value. The C++ pass
txl-expand-block-pointers (first in txlc's pipeline) makes a load or store through it ONE ``txl.load`` /
``txl.store`` -- the op ``tl.load(ptrs, mask=, other=)`` emits -- of the pointer tile
``base + sum_d (offsets[d] + arange(block_shape[d])) * strides[d]`` (i64), masked by ``0 <= index < shape[d]`` on the
``boundary_check`` dimensions, and carries only the fields that change through loops (a GEMM loop that advances two
block pointers along K carries two i32 offsets), so the later passes (txl-vectorize-accesses, the cp.async ring of
txl-schedule-loops) see the loads as any pointer load. The tests below check the frontend's ops and, after the pass
(``_expand``: txl-opt prints generic SSA names, %argN for the kernel's parameters), the pointer tiles."""

import re

import pytest

import txl
import txl.language as tl
from txl.errors import CompilationError

from .dsl_helpers import check, check_not, compile_ptx, ir_of, run_opt
from .gpu.block_ptr_cases import bp_gemm

THIS = __file__.replace(".pyc", ".py")


def _count(text, pattern):
    return len(re.findall(pattern, text, re.M))


def _expand(text):
    """The module after txl-expand-block-pointers: no block pointer is left."""
    out = run_opt(text, "--txl-expand-block-pointers")
    check_not(out, r"txl\.block_|txl\.advance|txl\.make_block_ptr")
    return out


# -- a 2-D load with boundary_check=(0, 1) and zero padding --------------------------------------------------------
@txl.jit
def _copy2d(x_ptr, y_ptr, M, N, sxm, sxn, sym, syn, BM: tl.constexpr, BN: tl.constexpr, PAD: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    xb = tl.make_block_ptr(base=x_ptr, shape=(M, N), strides=(sxm, sxn), offsets=(pm * BM, pn * BN),
                           block_shape=(BM, BN), order=(1, 0))
    yb = tl.make_block_ptr(y_ptr, (M, N), (sym, syn), (pm * BM, pn * BN), (BM, BN), (1, 0))
    x = tl.load(xb, boundary_check=(0, 1), padding_option=PAD)
    tl.store(yb, x, boundary_check=(1, 0))


def _copy_ir(pad="zero", align=""):
    sig = {"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "M": "i32" + align, "N": "i32" + align, "sxm": "i32:16",
           "sym": "i32:16"}
    return ir_of(_copy2d, sig, {"BM": 64, "BN": 32, "PAD": pad, "sxn": 1, "syn": 1})


def test_2d_load_with_boundary_check_and_zero_padding():
    text = _copy_ir()
    # The frontend: the shapes and strides become i64 at make_block_ptr (Triton's widths), offsets stay i32; the
    # load and store are the block ops with their (sorted) boundary_check and padding.
    check(text,
          r"%(?P<m64>\d+) = arith.extsi %M : i32 to i64", r"%(?P<n64>\d+) = arith.extsi %N : i32 to i64",
          r"%(?P<s64>\d+) = arith.extsi %sxm : i32 to i64",
          r"%(?P<xb>\d+) = txl.make_block_ptr %x_ptr, \[%[[m64]], %[[n64]]\], \[%[[s64]], %c1_i64\], \[%\d+, %\d+\] "
          r": !txl.ptr<f32> -> !txl.block_ptr<tensor<64x32xf32>, order = \[1, 0\]>",
          r"%x = txl.block_load %[[xb]] boundary_check = \[0, 1\] padding zero : "
          r"!txl.block_ptr<tensor<64x32xf32>, order = \[1, 0\]> -> tensor<64x32xf32>",
          r"txl.block_store %\d+, %x boundary_check = \[0, 1\] : !txl.block_ptr<tensor<64x32xf32>, order = \[1, 0\]>, "
          r"tensor<64x32xf32>")
    text = _expand(text)
    env = check(text,
                r"%(?P<m64>\d+) = arith.extsi %arg2 : i32 to i64", r"%(?P<n64>\d+) = arith.extsi %arg3 : i32 to i64",
                r"%(?P<s64>\d+) = arith.extsi %arg4 : i32 to i64",
                # rows: (pm * BM + arange(64)) as a [64, 1] column, times the row stride, checked against M
                r"txl.make_range 0, 64 : tensor<64xi32>", r"arith.extsi %\d+ : tensor<64xi32> to tensor<64xi64>",
                r"arith.addi", r"%(?P<rows>\d+) = txl.expand_dims %\d+, 1 : tensor<64xi64> -> tensor<64x1xi64>",
                r"txl.splat %[[s64]] : i64 -> tensor<64x1xi64>", r"arith.muli %[[rows]], %\d+ : tensor<64x1xi64>",
                r"txl.splat %[[m64]] : i64 -> tensor<64x1xi64>", r"arith.cmpi slt, %[[rows]], %\d+",
                r"arith.cmpi sge, %[[rows]], %\w+",
                # columns: stride 1 (the specialisation of an int equal to 1): no multiply
                r"txl.make_range 0, 32 : tensor<32xi32>",
                r"%(?P<cols>\d+) = txl.expand_dims %\d+, 0 : tensor<32xi64> -> tensor<1x32xi64>",
                r"arith.addi %\d+, %\d+ : tensor<64x32xi64>",
                r"txl.splat %[[n64]] : i64 -> tensor<1x32xi64>", r"arith.cmpi slt, %[[cols]], %\d+",
                r"%(?P<mask>\d+) = arith.andi %\d+, %\d+ : tensor<64x32xi1>",
                r"txl.splat %arg0 : !txl.ptr<f32> -> tensor<64x32x!txl.ptr<f32>>",
                r"%(?P<ptrs>\d+) = txl.addptr %\d+, %\d+ : tensor<64x32x!txl.ptr<f32>>, tensor<64x32xi64>",
                r"%(?P<zero>\w+) = arith.constant dense<0.0+e\+00> : tensor<64x32xf32>",
                r"%(?P<x>\d+) = txl.load %[[ptrs]] mask %[[mask]] other %[[zero]] : tensor<64x32x!txl.ptr<f32>> -> "
                r"tensor<64x32xf32>",
                r"txl.store %\d+, %[[x]] mask %\d+ : tensor<64x32x!txl.ptr<f32>>, tensor<64x32xf32>")
    assert env
    # Exactly one load and one store, the ops of pointer tiles: nothing new reaches the later passes.
    assert _count(text, r"txl\.load ") == 1 and _count(text, r"txl\.store ") == 1
    check_not(text, r"arith.muli %\w+, %\w+ : tensor<1x32xi64>")  # the unit stride is not multiplied
    ptx, _ = compile_ptx(_copy_ir())
    assert "ld.global" in ptx and "st.global" in ptx


def test_block_pointer_loads_vectorize_like_pointer_loads():
    """With M, N divisible by 16 (the ':16' specialisation), txl-vectorize-accesses proves 4-element runs of the
    i64 pointer arithmetic and of the bounds mask: ld/st.global.v4, as for a hand-written pointer tile."""
    ptx, _ = compile_ptx(_copy_ir(align=":16"))
    assert "ld.global.v4.b32" in ptx and "st.global.v4.b32" in ptx


def test_padding_nan_and_no_padding():
    text = _copy_ir("nan")
    check(text, r"%x = txl.block_load %\d+ boundary_check = \[0, 1\] padding nan :")
    check(_expand(text), r"%(?P<nan>\w+) = arith.constant dense<0x7FC00000> : tensor<64x32xf32>",
          r"txl.load %\d+ mask %\d+ other %[[nan]]")
    # padding_option "" (Triton's default): masked, no fill value (what tl.load(ptrs, mask=m) emits).
    text = _copy_ir("")
    check(text, r"%x = txl.block_load %\d+ boundary_check = \[0, 1\] : ")
    check(_expand(text), r"txl.load %\d+ mask %\d+ : tensor<64x32x!txl.ptr<f32>> -> tensor<64x32xf32>")
    compile_ptx(text)


@txl.jit
def _unchecked(x_ptr, y_ptr, n, BN: tl.constexpr):
    xb = tl.make_block_ptr(x_ptr, (n,), (1,), (tl.program_id(0) * BN,), (BN,), (0,))
    x = tl.load(xb, padding_option="zero")  # no boundary_check: nothing is masked, the padding is unused
    yb = tl.make_block_ptr(y_ptr, shape=[n], strides=[1], offsets=[0], block_shape=[BN], order=[0])
    tl.store(yb, x + 1.0)
    tl.store(yb.advance((BN,)), 2.0, boundary_check=0)  # a scalar is broadcast; the method form of tl.advance


def test_without_boundary_check_nothing_is_masked():
    text = ir_of(_unchecked, {"x_ptr": "*fp16:16", "y_ptr": "*fp16:16", "n": "i32"}, {"BN": 128})
    # No boundary_check: the padding is dropped (it pads nothing).
    check(text, r"%x = txl.block_load %\d+ : !txl.block_ptr<tensor<128xf16>, order = \[0\]> -> tensor<128xf16>",
          r"txl.advance %\d+, \[%c128\]", r"txl.block_store %\d+, %\w+ boundary_check = \[0\] : "
          r"!txl.block_ptr<tensor<128xf16>, order = \[0\]>, f16")
    expanded = _expand(text)
    check(expanded, r"%(?P<x>\d+) = txl.load %\d+ : tensor<128x!txl.ptr<f16>> -> tensor<128xf16>",
          r"txl.store %\d+, %\d+ : tensor<128x!txl.ptr<f16>>, tensor<128xf16>",
          # offsets (0) + 128: a constant offset >= 0 needs no lower bound, only index < n
          r"arith.cmpi slt", r"txl.store %\d+, %\w+ mask %\d+ : tensor<128x!txl.ptr<f16>>, tensor<128xf16>")
    check_not(expanded, r"cmpi sge")
    compile_ptx(text)


# -- store with boundary check; order=(0, 1) (a column-major parent) ------------------------------------------------
@txl.jit
def _transpose_store(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    """x is row-major M x N; y is the same matrix stored column-major (strides (1, M), order (0, 1))."""
    xb = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (tl.program_id(0) * BM, 0), (BM, BN), (1, 0))
    yb = tl.make_block_ptr(y_ptr, (M, N), (1, M), (tl.program_id(0) * BM, 0), (BM, BN), (0, 1))
    tl.store(yb, tl.load(xb, boundary_check=(0, 1)), boundary_check=(0, 1))


def test_store_with_boundary_check_through_a_column_major_block_pointer():
    text = ir_of(_transpose_store, {"x_ptr": "*bf16", "y_ptr": "*bf16", "M": "i32", "N": "i32"},
                 {"BM": 64, "BN": 64})
    check(text, r"txl.make_block_ptr %y_ptr, .* -> !txl.block_ptr<tensor<64x64xbf16>, order = \[0, 1\]>")
    text = _expand(text)
    y_part = text[text.index("txl.load"):]
    env = check(y_part,
                # y: dimension 0 (rows) has stride 1 -- not multiplied; dimension 1 is multiplied by M
                r"%(?P<rows>\d+) = txl.expand_dims %\d+, 1 : tensor<64xi64> -> tensor<64x1xi64>",
                r"arith.cmpi slt, %[[rows]]", r"arith.cmpi sge, %[[rows]]",
                r"%(?P<cols>\d+) = txl.expand_dims %\d+, 0 : tensor<64xi64> -> tensor<1x64xi64>",
                r"arith.muli %[[cols]], %\d+ : tensor<1x64xi64>",
                r"txl.splat %arg1", r"txl.store %\d+, %\d+ mask %\d+ : tensor<64x64x!txl.ptr<bf16>>, "
                r"tensor<64x64xbf16>")
    check_not(y_part, r"arith.muli %%%s," % env["rows"])
    assert _count(text, r"txl\.store ") == 1
    ptx, _ = compile_ptx(text)
    assert "st.global" in ptx


# -- the GEMM of Triton's block-pointer tutorial: two block pointers advanced along K ------------------------------
# (the kernel the GPU test runs, gpu/block_ptr_cases.bp_gemm: one source for both)
_gemm = bp_gemm


GEMM_SIG = {"a_ptr": "*fp16:16", "b_ptr": "*fp16:16", "c_ptr": "*fp16:16", "M": "i32", "N": "i32", "K": "i32",
            "stride_am": "i32:16", "stride_bk": "i32:16", "stride_cm": "i32:16"}
GEMM_CONSTS = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "stride_ak": 1, "stride_bn": 1, "stride_cn": 1}


def test_gemm_loop_carries_only_the_advanced_offsets():
    text = ir_of(_gemm, GEMM_SIG, GEMM_CONSTS)
    # The frontend carries the accumulator and the two block pointers (values like any other).
    bp_a = r"!txl.block_ptr<tensor<128x64xf16>, order = \[1, 0\]>"
    bp_b = r"!txl.block_ptr<tensor<64x128xf16>, order = \[1, 0\]>"
    check(text,
          r'%accumulator, %a_block_ptr, %b_block_ptr = "scf.for"\(%c0, %K, %c64, %\d+, %\d+, %\d+\) \(\{\n\s*'
          r"\^bb0\(%k: i32, %accumulator_1: tensor<128x128xf32>, %a_block_ptr_1: " + bp_a + ", %b_block_ptr_1: "
          + bp_b + r"\):",
          r"%a = txl.block_load %a_block_ptr_1 boundary_check = \[0, 1\] padding zero",
          r"%b = txl.block_load %b_block_ptr_1 boundary_check = \[0, 1\] padding zero",
          r"txl.dot %a, %b, %accumulator_1", r"txl.advance %a_block_ptr_1, \[%c0, %c64\]",
          r"txl.advance %b_block_ptr_1, \[%c64, %c0\]")
    # After txl-expand-block-pointers the loop carries the accumulator and one i32 per block pointer (the K
    # offset); base, shape, strides and the other offset stay loop-invariant values defined before the loop.
    text = _expand(text)
    check(text,
          r"scf.for %arg\d+ = %c0_i32 to %arg5 step %c64_i32 iter_args\(%(?P<acc>arg\d+) = %\w+, "
          r"%(?P<ka>arg\d+) = %c0_i32, %(?P<kb>arg\d+) = %c0_i32\) -> \(tensor<128x128xf32>, i32, i32\)",
          r"arith.extsi %[[ka]] : i32 to i64", r"%(?P<a>\d+) = txl.load %\d+ mask %\d+ other %\w+ : "
          r"tensor<128x64x!txl.ptr<f16>> -> tensor<128x64xf16>",
          r"arith.extsi %[[kb]] : i32 to i64", r"%(?P<b>\d+) = txl.load %\d+ mask %\d+ other %\w+ : "
          r"tensor<64x128x!txl.ptr<f16>> -> tensor<64x128xf16>",
          r"%(?P<acc2>\d+) = txl.dot %[[a]], %[[b]], %[[acc]]",
          r"%(?P<na>\d+) = arith.addi %[[ka]], %c64_i32 : i32", r"%(?P<nb>\d+) = arith.addi %[[kb]], %c64_i32",
          r"scf.yield %[[acc2]], %[[na]], %[[nb]] : tensor<128x128xf32>, i32, i32",
          r"txl.store %\d+, %\d+ mask %\d+ : tensor<128x128x!txl.ptr<f16>>, tensor<128x128xf16>")
    assert _count(text, r"scf\.for") == 1 and _count(text, r"txl\.load ") == 2


def test_gemm_block_pointer_loads_get_the_cp_async_ring():
    """txl-schedule-loops takes both loads (they feed the dot; the padding is zero) into cp.async rings, as it does
    for the tutorial's pointer-tile GEMM; the dot becomes async."""
    text = ir_of(_gemm, GEMM_SIG, GEMM_CONSTS)
    scheduled = run_opt(text, "--txl-expand-block-pointers", "--txl-fold-dot-add", "--txl-schedule-loops")
    assert _count(scheduled, r"txl\.async_load ") == 2, scheduled
    check_not(scheduled, r"= txl\.load ")
    ptx, _ = compile_ptx(text)
    assert "cp.async" in ptx and "wgmma.mma_async" in ptx


# -- control flow: if/else and while carry block pointers as their changing fields ----------------------------------
@txl.jit
def _branchy(x_ptr, y_ptr, n, flag, BN: tl.constexpr):
    xb = tl.make_block_ptr(x_ptr, (n,), (1,), (tl.program_id(0) * BN,), (BN,), (0,))
    if flag > 0:
        xb = tl.advance(xb, (BN,))
    else:
        xb = tl.advance(xb, (-BN,))
    x = tl.load(xb, boundary_check=(0,), padding_option="nan")
    i = 0
    while i < flag:
        xb = tl.advance(xb, [2 * BN])
        i += 1
    yb = tl.make_block_ptr(y_ptr, (n,), (1,), (0,), (BN,), (0,))
    tl.store(yb, x + tl.load(xb, boundary_check=(0,), padding_option="zero"), boundary_check=(0,))


def test_block_pointers_through_if_and_while():
    text = ir_of(_branchy, {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "flag": "i32"}, {"BN": 256})
    bp = r"!txl.block_ptr<tensor<256xf32>, order = \[0\]>"
    check(text, r'%xb = "scf.if"\(%\d+\)', r"txl.advance %\d+, \[%c256\]", r"scf.yield %\d+ : " + bp,
          r"txl.advance %\d+, \[%c_m256\]", r"\}\) : \(i1\) -> " + bp,
          r"%x = txl.block_load %xb boundary_check = \[0\] padding nan",
          r'%xb_1, %i = "scf.while"\(%xb, %c0\) \(\{\n\s*\^bb0\(%xb_2: ' + bp + r", %i_1: i32\):",
          r"txl.advance %\w+, \[%c512\]", r"txl.block_load")
    # Expanded: the `if` and the `while` carry the changing i32 offset alone.
    check(_expand(text), r"%(?P<xb>\d+) = scf.if %\d+ -> \(i32\)", r"arith.addi %\d+, %c256_i32 : i32",
          r"scf.yield %\d+ : i32", r"arith.addi %\d+, %c-256_i32 : i32", r"scf.yield %\d+ : i32",
          r"arith.extsi %[[xb]] : i32 to i64", r"txl.load %\d+ mask %\d+ other %\w+",
          r"scf.while \(%arg\d+ = %[[xb]], %arg\d+ = %c0_i32\) : \(i32, i32\) -> \(i32, i32\)",
          r"arith.addi %\w+, %c512_i32 : i32", r"txl.load")
    compile_ptx(text)


@txl.jit
def _tuple_of_block_ptrs(x_ptr, y_ptr, n, BN: tl.constexpr):
    """A tuple holding two block pointers and a scalar, carried through a loop (the generic flattening: a tuple
    of aggregates is flattened leaf by leaf; the unchanged fields of the aggregates are not carried)."""
    bps = (tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (BN,), (0,)),
           tl.make_block_ptr(y_ptr, (n,), (1,), (0,), (BN,), (0,)), tl.zeros([BN], tl.float32))
    for i in range(0, n, BN):
        x = tl.load(bps[0], boundary_check=(0,), padding_option="zero")
        tl.store(bps[1], x * 2.0 + bps[2], boundary_check=(0,))
        bps = (tl.advance(bps[0], (BN,)), tl.advance(bps[1], (BN,)), bps[2] + 1.0)
    base = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (BN,), (0,))
    for j in range(4):
        base = tl.make_block_ptr(y_ptr + j, (n,), (1,), (0,), (BN,), (0,))  # a new base each iteration
    tl.store(base, 1.0)


def test_aggregates_in_tuples_are_flattened_generically():
    text = ir_of(_tuple_of_block_ptrs, {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32"}, {"BN": 128})
    bp = r"!txl.block_ptr<tensor<128xf32>, order = \[0\]>"
    # tuple leaves: the two block pointers and the tile
    check(text, r'"scf.for"\(%c0, %n, %c128, %\d+, %\d+, %\w+\) \(\{\n\s*\^bb0\(%i: i32, %\w+: ' + bp + r", %\w+: "
                + bp + r", %\w+: tensor<128xf32>\):")
    # expanded: x's offset, y's offset, the tile (the block pointers' bases, shapes and strides are not carried)
    check(_expand(text),
          r"scf.for %arg\d+ = %c0_i32 to %arg2 step %c128_i32 iter_args\(%arg\d+ = %c0_i32, %arg\d+ = %c0_i32, "
          r"%arg\d+ = %\w+\) -> \(i32, i32, tensor<128xf32>\)",
          r"scf.yield %\d+, %\d+, %\d+ : i32, i32, tensor<128xf32>")
    # The second loop makes a new block pointer each iteration: its base and its shape (an extsi of n, a new value
    # each time) are carried; nothing reads the shape after the loop (the store has no boundary_check), so after
    # txlc's cleanup stage (txl-erase-dead-values) only the base is.
    check(run_opt(text, "--txl-expand-block-pointers", "--txl-erase-dead-values"),
          r"scf.for %arg3 = %c0_i32 to %c4_i32 step %c1_i32 iter_args\(%arg4 = %arg0\) -> \(!txl.ptr<f32>\)  : i32 \{")
    compile_ptx(text)


@txl.jit
def _advance_rows(bp, rows):
    return tl.advance(bp, (rows, 0, 0))


@txl.jit
def _helper_and_3d(x_ptr, y_ptr, B, M, N, BB: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    """A 3-D block pointer, passed to and returned from a @txl.jit helper."""
    xb = tl.make_block_ptr(x_ptr, (B, M, N), (M * N, N, 1), (0, tl.program_id(0) * BM, 0), (BB, BM, BN), (2, 1, 0))
    yb = tl.make_block_ptr(y_ptr, (B, M, N), (M * N, N, 1), (0, tl.program_id(0) * BM, 0), (BB, BM, BN), (2, 1, 0))
    for b in range(0, B, BB):
        tl.store(yb, tl.load(xb, boundary_check=(0, 2)), boundary_check=(0, 2))
        xb = _advance_rows(xb, BB)
        yb = _advance_rows(yb, BB)


def test_3d_block_pointer_through_a_helper():
    text = ir_of(_helper_and_3d, {"x_ptr": "*fp32", "y_ptr": "*fp32", "B": "i32", "M": "i32", "N": "i32"},
                 {"BB": 2, "BM": 16, "BN": 32})
    bp = r"!txl.block_ptr<tensor<2x16x32xf32>, order = \[2, 1, 0\]>"
    check(text, r'"scf.for"\(%c0, %B, %c2, %\d+, %\d+\) \(\{\n\s*\^bb0\(%b: i32, %\w+: ' + bp + r", %\w+: " + bp)
    check(_expand(text),
          r"scf.for %arg\d+ = %c0_i32 to %arg2 step %c2_i32 iter_args\(%arg\d+ = %c0_i32, %arg\d+ = %c0_i32\) -> "
          r"\(i32, i32\)",
          r"txl.expand_dims %\d+, 2 : tensor<2x1xi64> -> tensor<2x1x1xi64>",
          r"txl.expand_dims %\d+, 2 : tensor<1x16xi64> -> tensor<1x16x1xi64>",
          r"txl.load %\d+ mask %\d+ : tensor<2x16x32x!txl.ptr<f32>> -> tensor<2x16x32xf32>",
          r"txl.store %\d+, %\d+ mask %\d+ : tensor<2x16x32x!txl.ptr<f32>>, tensor<2x16x32xf32>",
          r"scf.yield %\d+, %\d+ : i32, i32")
    compile_ptx(text)


# -- errors at the user's line -----------------------------------------------------------------------------------
def _error(fn, sig, consts=None):
    with pytest.raises(CompilationError) as info:
        ir_of(fn, sig, consts or {})
    e = info.value
    text = str(e)
    assert e.file == THIS and e.line is not None and e.col is not None, text
    assert text.startswith("%s:%d:%d: error: " % (THIS, e.line, e.col)), text
    assert "internal error" not in text and "Traceback" not in text, text
    with open(THIS) as f:
        line = f.read().splitlines()[e.line - 1]
    return e, line


@txl.jit
def _bad_boundary_dim(x_ptr, n):
    xb = tl.make_block_ptr(x_ptr, (n, n), (n, 1), (0, 0), (64, 64), (1, 0))
    x = tl.load(xb, boundary_check=(0, 2))  # ERROR-LINE
    tl.store(x_ptr, tl.sum(tl.sum(x, 1), 0))


@txl.jit
def _runtime_block_shape(x_ptr, n):
    xb = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (n,), (0,))  # ERROR-LINE
    tl.store(xb, 1.0)


@txl.jit
def _odd_block_shape(x_ptr, n, B: tl.constexpr):
    xb = tl.make_block_ptr(x_ptr, (n, n), (n, 1), (0, 0), (B, 48), (1, 0))  # ERROR-LINE
    tl.store(xb, 1.0)


@txl.jit
def _advance_wrong_rank(x_ptr, n):
    xb = tl.make_block_ptr(x_ptr, (n, n), (n, 1), (0, 0), (64, 64), (1, 0))
    xb = tl.advance(xb, (64,))  # ERROR-LINE
    tl.store(xb, 1.0)


@txl.jit
def _load_with_mask(x_ptr, n):
    xb = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (64,), (0,))
    x = tl.load(xb, mask=tl.arange(0, 64) < n)  # ERROR-LINE
    tl.store(x_ptr + tl.arange(0, 64), x)


@txl.jit
def _store_with_mask(x_ptr, n):
    xb = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (64,), (0,))
    tl.store(xb, 1.0, mask=tl.arange(0, 64) < n)  # ERROR-LINE


@txl.jit
def _nan_padding_of_ints(x_ptr, n):
    xb = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (64,), (0,))
    x = tl.load(xb, boundary_check=(0,), padding_option="nan")  # ERROR-LINE
    tl.store(xb, x)


@txl.jit
def _boundary_check_on_pointer_tile(x_ptr, n):
    x = tl.load(x_ptr + tl.arange(0, 64), boundary_check=(0,))  # ERROR-LINE
    tl.store(x_ptr + tl.arange(0, 64), x)


@txl.jit
def _bad_order(x_ptr, n):
    xb = tl.make_block_ptr(x_ptr, (n, n), (n, 1), (0, 0), (64, 64), (1, 1))  # ERROR-LINE
    tl.store(xb, 1.0)


@txl.jit
def _shape_count(x_ptr, n):
    xb = tl.make_block_ptr(x_ptr, (n, n), (n, 1), (0,), (64, 64), (1, 0))  # ERROR-LINE
    tl.store(xb, 1.0)


@txl.jit
def _i64_offset(x_ptr, n):
    xb = tl.make_block_ptr(x_ptr, (n,), (1,), (n.to(tl.int64),), (64,), (0,))  # ERROR-LINE
    tl.store(xb, 1.0)


@txl.jit
def _store_wrong_dtype(x_ptr, n):
    xb = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (64,), (0,))
    tl.store(xb, tl.zeros([64], tl.float32))  # ERROR-LINE


@txl.jit
def _store_wrong_shape(x_ptr, n):
    xb = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (64,), (0,))
    tl.store(xb, tl.zeros([128], tl.float16))  # ERROR-LINE


@txl.jit
def _advance_a_pointer(x_ptr, n):
    p = tl.advance(x_ptr, (64,))  # ERROR-LINE
    tl.store(p, 1.0)


@txl.jit
def _branches_disagree(x_ptr, n):
    xb = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (64,), (0,))
    if n > 0:  # ERROR-LINE
        xb = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (128,), (0,))
    tl.store(xb, 1.0)


@txl.jit
def _loop_changes_block(x_ptr, n):
    xb = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (64,), (0,))
    for i in range(n):  # ERROR-LINE
        xb = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (32,), (0,))
    tl.store(xb, 1.0)


@txl.jit
def _arithmetic_on_block_ptr(x_ptr, n):
    xb = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (64,), (0,))
    tl.store(xb + 1, 1.0)  # ERROR-LINE


SIG = {"x_ptr": "*fp32", "n": "i32"}


@pytest.mark.parametrize("fn,sig,consts,message,fix", [
    (_bad_boundary_dim, SIG, None,
     "tl.load: boundary_check dimension 2 is out of range for a 2-D block pointer (dimensions 0 to 1)",
     "boundary_check=(0, 1)"),
    (_runtime_block_shape, SIG, None, "tl.make_block_ptr: block_shape must be a tuple of compile-time integers "
     "(literals or tl.constexpr), got a run-time value", "tl.constexpr"),
    (_odd_block_shape, SIG, {"B": 64},
     "block_shape (64, 48): every block dimension must be a power of two (as every tile's), got 48",
     "power of two"),
    (_advance_wrong_rank, SIG, None, "tl.advance: the block pointer has 2 dimensions (block (64, 64)) but 1 offsets "
     "were given", "tl.advance(ptr, (0, BLOCK_K))"),
    (_load_with_mask, SIG, None, "tl.load: a block pointer takes no mask or other (Triton refuses them too)",
     "boundary_check=(0, 1), padding_option='zero'"),
    (_store_with_mask, SIG, None, "tl.store: a block pointer takes no mask (Triton refuses it too)",
     "boundary_check"),
    (_nan_padding_of_ints, {"x_ptr": "*i32", "n": "i32"}, None,
     "padding_option='nan' needs a floating-point block pointer, this one is int32", "padding_option='zero'"),
    (_boundary_check_on_pointer_tile, SIG, None, "tl.load: boundary_check/padding_option only apply to block "
     "pointers (tl.make_block_ptr)", "mask=offs < n, other=0.0"),
    (_bad_order, SIG, None, "tl.make_block_ptr: order must be a permutation of (0, ..., 1), got (1, 1)", "(1, 0)"),
    (_shape_count, SIG, None, "block_shape has 2 dimensions but offsets has 1", None),
    (_i64_offset, SIG, None, "tl.make_block_ptr offsets are 32-bit integers (Triton's rule for block pointers), got "
     "an int64 value", ".to(tl.int32)"),
    (_store_wrong_dtype, {"x_ptr": "*fp16", "n": "i32"}, None,
     "tl.store: the value has element type fp32 but the block pointer points to fp16", "value.to(tl.float16)"),
    (_store_wrong_shape, {"x_ptr": "*fp16", "n": "i32"}, None,
     "tl.store: the value is a [128] tile but the block pointer's block is [64]", None),
    (_advance_a_pointer, SIG, None, "tl.advance needs a block pointer (from tl.make_block_ptr), got !txl.ptr<f32>",
     "ptrs += k * stride"),
    (_branches_disagree, SIG, None, "`xb` is a block pointer (tl.make_block_ptr) to 128 blocks of fp32 with order "
     "(0,) in the `if` but a block pointer (tl.make_block_ptr) to 64 blocks", "same element type, block shape"),
    (_loop_changes_block, SIG, None, "loop-carried variable `xb` is a block pointer (tl.make_block_ptr) to 64 "
     "blocks of fp32 with order (0,) before the loop but a block pointer (tl.make_block_ptr) to 32 blocks",
     "tl.advance changes only its offsets"),
    (_arithmetic_on_block_ptr, SIG, None, "cannot be used as a run-time value", None),
], ids=lambda v: getattr(v, "__name__", None) if callable(v) else None)
def test_misuse_is_a_located_error(fn, sig, consts, message, fix):
    e, line = _error(fn, sig, consts)
    assert "ERROR-LINE" in line, (line, str(e))
    assert message in e.message, str(e)
    if fix is not None:
        assert e.fix and fix in e.fix, str(e)
