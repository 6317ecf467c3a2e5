//===- Pipeline.h - the compile pipeline, in one place ---------*- C++ -*-===//
//
// The ordered stages from txl IR to NVVM + LLVM (lib/Pipeline.cpp is the one
// place that knows the order): txlc runs them all (and --stop-after any
// stage), txl-opt registers --txl-software-pipeliner.
//
//===----------------------------------------------------------------------===//
#ifndef TXL_PIPELINE_H
#define TXL_PIPELINE_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <functional>
#include <memory>
#include <string>

namespace mlir::txl {

/// Options of the whole compile pipeline.
struct PipelineOptions {
  /// Bound mbarrier waits (2 s) and trap with where they hung.
  bool debugHangs = false;
  /// txl-schedule-loops' rescaled-async: attention's P @ V retired by the
  /// next iteration (txlc compiles the kernel without it too and keeps the
  /// one ptxas gives more CTAs per SM and fewer spills).
  bool rescaledAsync = true;
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

#endif // TXL_PIPELINE_H
