//===- Passes.td - txl passes ------------------------------*- tablegen -*-===//
//
// The stages of the software pipeliner (TXL's txlgpu-pipeline, one pass per
// stage) and the passes around it. The order lives in one place:
// buildTXLPipeline() in lib/Dialect/TXL/Transforms/Pipeline.cpp.
//
// Stages lower their txl ops to NVVM/LLVM ops directly. Buffers cross stage
// boundaries as `builtin.unrealized_conversion_cast`s between the txl type
// and its LLVM form (!txl.smem / !txl.mbar -> !llvm.ptr<3>, register tiles
// -> !llvm.struct of the thread's registers); convert-txl-to-nvvm removes
// the last of them.
//
//===----------------------------------------------------------------------===//
#ifndef TXL_TRANSFORMS_PASSES_TD
#define TXL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TXLSmemAllocs : Pass<"txl-smem-allocs", "mlir::ModuleOp"> {
  let summary = "Pipeliner stage 1: plan shared memory and lower smem_alloc/get_buffer";
  let description = [{
    Chooses the encoding of each txl.smem_alloc without one from its users (a
    TMA descriptor's swizzle wins, then the widest swizzle a wgmma operand
    allows), plans one shared-memory layout for the kernel (1024-byte
    alignment for swizzled buffers; buffers at the kernel's top level whose
    live ranges do not overlap share bytes; mbarriers and TMEM address slots
    get their offsets here too) and lowers smem_alloc to an address in the
    kernel's single `external` shared array `@txl_smem`, get_buffer of a
    shared buffer to a stage offset. Records `txl.shared_bytes` on the kernel.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numBuffers", "buffers", "Shared-memory buffers planned">,
    Statistic<"numShared", "shared", "Buffers that share bytes with another">,
  ];
}

def TXLMbars : Pass<"txl-mbars", "mlir::ModuleOp"> {
  let summary = "Pipeliner stage 4: lower mbarriers (init, expect, arrive, wait)";
  let description = [{
    mbar_alloc becomes mbarriers at their planned offsets, initialised by
    thread 0 with their arrive counts, then `fence.mbarrier_init` and a block
    barrier; mbar_expect becomes `mbarrier.arrive.expect_tx` by the
    warpgroup's first thread; mbar_arrive an arrive (or cp.async arrive, or a
    remote arrive through `mapa`); mbar_wait a `try_wait.parity` loop.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect"];
}

def TXLLowerLoads : Pass<"txl-lower-loads", "mlir::ModuleOp"> {
  let summary = "Pipeliner stage 5: lower TMA loads/stores and their waits";
  let description = [{
    tma_load becomes `cp.async.bulk.tensor` (one hardware box per swizzle
    span of the inner dimension) issued by the warpgroup's first thread and
    completing on the mbarrier; tma_store a `fence.proxy.async`, the bulk
    store and a commit group; tma_store_wait `cp.async.bulk.wait_group.read`;
    fence_proxy_async `fence.proxy.async.shared::cta`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"];
}

#endif // TXL_TRANSFORMS_PASSES_TD
