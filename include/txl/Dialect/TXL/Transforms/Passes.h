//===- Passes.h - txl passes and the pipeline ------------------*- C++ -*-===//
#ifndef TXL_DIALECT_TXL_TRANSFORMS_PASSES_H
#define TXL_DIALECT_TXL_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "txl/Dialect/TXL/IR/TXLDialect.h"

namespace mlir::txl {

#define GEN_PASS_DECL
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"

/// Options of the whole compile pipeline.
struct PipelineOptions {
  /// Warps per warpgroup that register layouts span (TXL computes layouts
  /// per warpgroup, num_warps = 4).
  unsigned numWarps = 4;
  /// Bound mbarrier waits (2 s) and trap with where they hung.
  bool debugHangs = false;
};

/// One stage of the pipeline: its name (as printed in "After <name>") and
/// the pass that implements it.
struct PipelineStage {
  std::string name;
  std::function<std::unique_ptr<Pass>()> create;
  /// A software-pipeliner stage (run by --txl-software-pipeliner); false for
  /// the conversion that follows the stages.
  bool pipeliner = true;
};

/// The ordered stages from txl IR to NVVM + LLVM (the pipeliner stages, then
/// the conversion): the one place that knows the order.
SmallVector<PipelineStage> getTXLPipelineStages(const PipelineOptions &options);
/// Adds every stage to `pm`, in order.
void buildTXLPipeline(OpPassManager &pm, const PipelineOptions &options);
/// Registers `--txl-software-pipeliner` (the pipeliner stages, optionally
/// printing the IR after each).
void registerTXLPipeline();

} // namespace mlir::txl

#endif // TXL_DIALECT_TXL_TRANSFORMS_PASSES_H
