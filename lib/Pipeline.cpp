//===- Pipeline.cpp - the ordered compile stages, in one place ------------===//
//
// The compile pipeline's order lives here and nowhere else: the software
// pipeliner's stages (TXL's txlgpu-pipeline, one pass per stage), then the
// conversion of what they leave to NVVM + LLVM. `--txl-software-pipeliner`
// runs the stages in order; with `dump-intermediate-steps` it prints the IR
// after each ("After SmemAllocs", ...) as TXL's pipeliner debug output does.
// txlc runs all of it (and --stop-after any stage).
//
//===----------------------------------------------------------------------===//

#include "txl/Pipeline.h"

#include "txl/Conversion/Passes.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::txl;

SmallVector<PipelineStage> mlir::txl::getTXLPipelineStages(const PipelineOptions &options) {
  TXLScheduleLoopsOptions schedule;
  schedule.rescaledAsync = options.rescaledAsync;
  TXLMbarsOptions mbars;
  mbars.debugHangs = options.debugHangs;
  return {
      // Block pointers become the pointer tiles and masks of Triton's
      // RewriteTensorPointer first, so every stage below (the AxisInfo of
      // txl-schedule-loops' cp.async ring, txl-vectorize-accesses) sees
      // plain pointer loads and stores.
      {"txl-expand-block-pointers", [] { return createTXLExpandBlockPointers(); }},
      // Slots of the device-built TMA descriptors, before any stage copies
      // an op (one site per op the user wrote).
      {"txl-global-scratch", [] { return createTXLGlobalScratch(); }},
      // What nothing reads goes before any stage sees it: the frontend's
      // dry-run leftovers, unread values, variables carried through scf
      // for nothing (they would get layouts and registers). Before the
      // stages below, so that a dead reader keeps no dot's product from
      // folding into its accumulator and no dead expand_dims gets a copy.
      {"txl-erase-dead-values", [] { return createTXLEraseDeadValues(); }},
      // One copy of a 1-D index vector per expand_dims, before the
      // pipeliner splits loops into stages and layouts are assigned.
      {"txl-rematerialize-expanded-ranges", [] { return createTXLRematerializeExpandedRanges(); }},
      // `acc += tl.dot(a, b)` accumulates in the dot before the pipeliner
      // decides which loop-carried dots run asynchronously.
      {"txl-fold-dot-add", [] { return createTXLFoldDotAdd(); }},
      // Triton-style loads and dots: the loop pipeliner first (rings of
      // buffers issued ahead), then how the remaining tiles travel.
      {"txl-schedule-loops", [schedule] { return createTXLScheduleLoops(schedule); }},
      {"txl-expand-loops", [] { return createTXLExpandLoops(); }},
      {"txl-lower-tile-copies", [] { return createTXLLowerTileCopies(); }},
      {"txl-partition-warpgroups", [] { return createTXLPartitionWarpgroups(); }},
      {"txl-assign-layouts", [] { return createTXLAssignLayouts(); }},
      {"txl-remove-layout-conversions", [] { return createTXLRemoveLayoutConversions(); }},
      // Upstream LICM: what the layouts made loop-invariant leaves the loop
      // (a loaded Q tile's relayout into the dot's operand layout ran in
      // every iteration of attention's loop, through a shared-memory round
      // trip) before txl-allocate-scratch gives relayouts their scratch.
      {"loop-invariant-code-motion", [] { return createLoopInvariantCodeMotionPass(); }},
      // Before txl-smem-allocs, which plans the scratch like any other buffer.
      {"txl-allocate-scratch", [] { return createTXLAllocateScratch(); }},
      {"txl-smem-allocs", [] { return createTXLSmemAllocs(); }},
      {"txl-tmem-allocs", [] { return createTXLTmemAllocs(); }},
      {"txl-fold-tmem-round-trips", [] { return createTXLFoldTmemRoundTrips(); }},
      {"txl-mbars", [mbars] { return createTXLMbars(mbars); }},
      {"txl-lower-loads", [] { return createTXLLowerLoads(); }},
      {"txl-lower-smem-load-stores", [] { return createTXLLowerSmemLoadStores(); }},
      {"txl-mem-desc", [] { return createTXLMemDesc(); }},
      {"txl-lower-dotx-ops", [] { return createTXLLowerDotXOps(); }},
      {"txl-wgmma", [] { return createTXLWgmma(); }},
      {"txl-vectorize-accesses", [] { return createTXLVectorizeAccesses(); }},
      // What the stages leave: scf to cf first (tile-carrying loops become
      // blocks), then kernels, tiles, ids and scalar code to NVVM + LLVM.
      {"convert-scf-to-cf", [] { return createSCFToControlFlowPass(); }, false},
      {"convert-txl-to-nvvm", [] { return createConvertTXLToNVVM(); }, false},
  };
}

void mlir::txl::buildTXLPipeline(OpPassManager &pm, const PipelineOptions &options) {
  for (PipelineStage &stage : getTXLPipelineStages(options))
    pm.addPass(stage.create());
}

namespace {
struct SoftwarePipelinerOptions : PassPipelineOptions<SoftwarePipelinerOptions> {
  Option<bool> dump{*this, "dump-intermediate-steps",
                    llvm::cl::desc("Print the IR after each stage (\"After <stage>\")"),
                    llvm::cl::init(false)};
};

/// Runs one stage and prints the IR after it.
struct PrintAfterStage : PassWrapper<PrintAfterStage, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PrintAfterStage)
  std::string stage;
  explicit PrintAfterStage(std::string stage) : stage(std::move(stage)) {}
  StringRef getArgument() const override { return "txl-print-after-stage"; }
  void runOnOperation() override {
    llvm::errs() << "// -----// After " << stage << " //----- //\n";
    getOperation()->print(llvm::errs());
    llvm::errs() << "\n";
    markAllAnalysesPreserved();
  }
};
} // namespace

void mlir::txl::registerTXLPipeline() {
  PassPipelineRegistration<SoftwarePipelinerOptions>(
      "txl-software-pipeliner",
      "Run every pipeliner stage in order (txl-schedule-loops ... txl-vectorize-accesses), from "
      "txl IR to "
      "NVVM + LLVM",
      [](OpPassManager &pm, const SoftwarePipelinerOptions &opts) {
        PipelineOptions options;
        for (PipelineStage &stage : getTXLPipelineStages(options)) {
          if (!stage.pipeliner)
            continue;
          pm.addPass(stage.create());
          if (opts.dump)
            pm.addPass(std::make_unique<PrintAfterStage>(stage.name));
        }
      });
}
