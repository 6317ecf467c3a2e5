//===- Passes.td - txl conversion passes -------------------*- tablegen -*-===//
//
// The final conversion of a kernel to the LLVM and NVVM dialects. It runs
// after every pipeliner stage (which lowered shared memory, mbarriers, TMA
// and wgmma) and after upstream convert-scf-to-cf, and lowers what is left:
// kernels and helpers, scalar arith/math/cf/index/ub code, thread ids, named
// barriers, setmaxnreg, and the register tiles (one struct of registers per
// thread, computed from the tile's LinearLayout).
//
//===----------------------------------------------------------------------===//
#ifndef TXL_CONVERSION_PASSES_TD
#define TXL_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTXLToNVVM : Pass<"convert-txl-to-nvvm", "mlir::ModuleOp"> {
  let summary = "Lower what the pipeliner stages leave to the LLVM and NVVM dialects";
  let description = [{
    Kernels (`func.func` with `txl.kernel`) become `llvm.func`s with
    `nvvm.kernel`, `nvvm.reqntid = [32 * txl.num_warps, 1, 1]` and
    `nvvm.minctasm = 1` when it uses setmaxnreg (which needs a known entry
    register count; elsewhere it would let ptxas spend registers as if one
    CTA per SM were enough); a
    `!txl.tensordesc` argument becomes a 128-byte by-value grid constant
    (`llvm.byval = !llvm.array<16 x i64>`, `llvm.align = 64`,
    `nvvm.grid_constant`), a `!txl.ptr` a global `!llvm.ptr<1>`.
    `txl.shared_bytes` is kept for the launcher. Scalar arith, math, cf,
    index and ub code goes through the upstream patterns.

    Register tiles (`tensor<..., #layout>`) become an `!llvm.struct` of the
    thread's registers. Elementwise arith/math ops, splat constants,
    `txl.splat`, `txl.make_range`, `txl.broadcast`, `txl.expand_dims`,
    `txl.relayout` (no-op or in-thread permutation), `txl.addptr`,
    `txl.load`/`txl.store` (masked accesses are predicated PTX) and
    `txl.reduce` (in-thread, then `shfl.sync.bfly` across lanes) are
    lowered register by register.

    Every txl op a pipeliner stage should have lowered, every tile without
    a layout and every conversion that would need data from another thread
    is reported with an error naming the op; the pass then fails.

    With `element-major` (off by default: on the row kernels of
    docs/libraries-perf.md it saved 0-8 registers once `.minnctapersm` was
    gone, but it lengthened operand live ranges in the MLA decoding kernel, 8
    -> 48 spilled bytes), each block is then reordered so that
    every memory-effect-free op comes right before its first user (its
    operands first): a tile op is lowered for all of a thread's registers at
    once, which leaves all N intermediates of every op live; element-major
    order keeps one element's chain together, as Triton's PTX has it.
    Loads, stores, barriers, inline asm and calls keep their order. The
    extracts of a tile's struct read the inserted registers directly first.

    Before (after convert-scf-to-cf), with
    `#blocked = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>`:
    ```mlir
    func.func @k(%d: !txl.tensordesc<64x64xbf16>, %out: !txl.ptr<f32>)
        attributes {txl.kernel, txl.num_warps = 4 : i32} {
      %r = txl.make_range 0, 128 : tensor<128xi32, #blocked>
      return
    }
    ```
    After:
    ```mlir
    llvm.func @k(%d: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<16 x i64>,
                               nvvm.grid_constant}, %out: !llvm.ptr<1>)
        attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
      %0 = nvvm.read.ptx.sreg.tid.x : i32
      %1 = llvm.mlir.constant(127 : i32) : i32   // lane bits, then warp bits: element tid % 128
      %2 = llvm.and %0, %1 : i32
      %3 = llvm.mlir.poison : !llvm.struct<(i32)>
      %4 = llvm.insertvalue %2, %3[0] : !llvm.struct<(i32)>
      llvm.return
    }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"];
  let options = [
    Option<"elementMajor", "element-major", "bool", /*default=*/"false",
           "Place every memory-effect-free op right before its first user (one element's chain "
           "together instead of one op over all registers)">,
  ];
  let statistics = [
    Statistic<"numKernels", "kernels", "Kernels lowered to nvvm.kernel functions">,
  ];
}

#endif // TXL_CONVERSION_PASSES_TD
