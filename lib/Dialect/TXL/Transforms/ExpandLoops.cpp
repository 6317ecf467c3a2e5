//===- ExpandLoops.cpp - loop pipeliner, step 2: prologue and kernel ------===//
//
// Builds the pipelined loop that txl-schedule-loops decided, with upstream
// MLIR's scf::pipelineForLoop: the schedule is read from the `txl.stage` /
// `txl.order` attributes of the body's ops. The epilogue is not peeled (trip
// counts are usually dynamic: causal masks, varlen, lists of selected
// blocks): the loop runs every iteration, and an op of an early stage that
// would belong to an iteration past the end is predicated off here:
//   - pure ops run anyway (their values are never used);
//   - a scalar txl.load is masked (it may read an index past the list);
//   - ops without results (mbar_expect, tma_load) go under `scf.if %pred`.
//   - cp.async (txl.async_load) is masked: its commit group must still
//     exist, as the waits count groups.
// The attributes are removed afterwards.
//
//===----------------------------------------------------------------------===//

#include "txl/Analysis/CopyPlanning.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "txl/Dialect/TXL/IR/TXLOps.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLEXPANDLOOPS
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

static int64_t attrOf(Operation *op, StringRef name) {
  return op->getAttrOfType<IntegerAttr>(name).getInt();
}

/// True if `predicate` can make `op` take effect only under a predicate.
static bool canPredicate(Operation *op) {
  return (isMemoryEffectFree(op) && op->getNumRegions() == 0) || isScalarLoad(op) ||
         isa<AsyncLoadOp>(op) || op->getNumResults() == 0;
}

/// The op (or its replacement) that only has an effect when `pred` holds.
static Operation *predicate(RewriterBase &rw, Operation *op, Value pred) {
  if (isMemoryEffectFree(op) && op->getNumRegions() == 0)
    return op;
  Location loc = op->getLoc();
  rw.setInsertionPoint(op);
  if (auto load = dyn_cast<LoadOp>(op); load && isScalarLoad(load)) {
    Value mask = pred;
    if (load.getMask())
      mask = arith::AndIOp::create(rw, loc, load.getMask(), pred);
    rw.modifyOpInPlace(load, [&] { load.getMaskMutable().assign(mask); });
    return load;
  }
  // cp.async still commits its (then empty) group: the waits count groups.
  if (auto copy = dyn_cast<AsyncLoadOp>(op)) {
    auto maskType = RankedTensorType::get(copy.getPtrs().getType().getShape(), rw.getI1Type(),
                                          copy.getPtrs().getType().getEncoding());
    Value mask = SplatOp::create(rw, loc, maskType, pred);
    if (copy.getMask())
      mask = arith::AndIOp::create(rw, loc, copy.getMask(), mask);
    rw.modifyOpInPlace(copy, [&] { copy.getMaskMutable().assign(mask); });
    return copy;
  }
  if (op->getNumResults() != 0)
    return nullptr;
  auto ifOp = scf::IfOp::create(rw, loc, TypeRange(), pred, /*withElseRegion=*/false);
  rw.moveOpBefore(op, ifOp.thenBlock()->getTerminator());
  return ifOp;
}

namespace {
struct ExpandLoops : mlir::txl::impl::TXLExpandLoopsBase<ExpandLoops> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      Block *body = loop.getBody();
      if (!body->without_terminator().empty() && body->front().hasAttr(kStageAttr))
        loops.push_back(loop);
    });
    IRRewriter rw(&getContext());
    for (scf::ForOp loop : loops) {
      for (Operation &op : loop.getBody()->without_terminator())
        if (!op.hasAttr(kStageAttr) || !op.hasAttr(kOrderAttr)) {
          op.emitOpError() << "has no pipeline stage; txl-schedule-loops gives every op of a "
                              "scheduled loop `txl.stage` and `txl.order`";
          return signalPassFailure();
        }
      scf::PipeliningOption options;
      options.getScheduleFn = [](scf::ForOp forOp,
                                 std::vector<std::pair<Operation *, unsigned>> &schedule) {
        for (Operation &op : forOp.getBody()->without_terminator())
          schedule.emplace_back(&op, attrOf(&op, kStageAttr));
        llvm::stable_sort(schedule, [](auto &a, auto &b) {
          return attrOf(a.first, kOrderAttr) < attrOf(b.first, kOrderAttr);
        });
      };
      options.peelEpilogue = false;
      options.supportDynamicLoops = true;
      options.predicateFn = predicate;
      // Upstream asserts when an op cannot be predicated: check first.
      int64_t lastStage = 0;
      for (Operation &op : loop.getBody()->without_terminator())
        lastStage = std::max(lastStage, attrOf(&op, kStageAttr));
      for (Operation &op : loop.getBody()->without_terminator())
        if (attrOf(&op, kStageAttr) != lastStage && !canPredicate(&op)) {
          op.emitOpError() << "is issued ahead by the loop pipeliner but cannot be predicated "
                              "off past the end of the loop";
          return signalPassFailure();
        }
      rw.setInsertionPoint(loop);
      bool modified = false;
      FailureOr<scf::ForOp> pipelined = scf::pipelineForLoop(rw, loop, options, &modified);
      if (failed(pipelined)) {
        if (modified) {
          loop.emitOpError() << "loop pipelining failed after changing the IR";
          return signalPassFailure();
        }
        continue; // left as written (each op still runs in order)
      }
    }
    getOperation().walk([](Operation *op) {
      op->removeAttr(kStageAttr);
      op->removeAttr(kOrderAttr);
    });
  }
};
} // namespace
