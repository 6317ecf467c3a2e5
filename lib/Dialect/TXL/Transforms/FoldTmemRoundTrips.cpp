//===- FoldTmemRoundTrips.cpp - accumulate in place in tensor memory ------===//
//
// A tcgen05 MMA accumulates in tensor memory. When a kernel writes
//
//   %c = txl.tmem_load %acc      // copy the accumulator to registers
//   %d = txl.dotx %a, %b, %c     // MMA on a register accumulator
//   txl.tmem_store %d, %acc      // and back
//
// the lowering would have to stage %c in a second tensor-memory buffer. The
// accumulator already lives in %acc, so the MMA runs on it in place:
//
//   txl.dotx %a, %b, %acc
//
// provided %c and %d have no other users (otherwise the register copies are
// needed and nothing changes), the three ops are in one block (a load
// outside a loop would otherwise accumulate across iterations) and nothing
// between the load and the store touches tensor memory.
//
//===----------------------------------------------------------------------===//

#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "txl/Dialect/TXL/IR/TXLOps.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLFOLDTMEMROUNDTRIPS
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

struct AccumulateInPlace : OpRewritePattern<DotXOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DotXOp op, PatternRewriter &rewriter) const override {
    Value result = op.getResult();
    auto load = op.getC().getDefiningOp<TmemLoadOp>();
    if (!result || !load || !result.hasOneUse() || !load.getResult().hasOneUse())
      return failure();
    auto store = dyn_cast<TmemStoreOp>(*result.getUsers().begin());
    if (!store || store.getDst() != load.getSrc() || store->getBlock() != op->getBlock() ||
        load->getBlock() != op->getBlock())
      return failure();
    // Nothing else may touch tensor memory between the load and the store
    // (it would see the accumulator at a different time once merged).
    for (Operation *o = load->getNextNode(); o != store.getOperation(); o = o->getNextNode()) {
      if (o == op.getOperation())
        continue;
      bool touches = false;
      o->walk([&](Operation *inner) {
        touches |= isa<TmemLoadOp, TmemStoreOp, DotXOp, TmemAllocOp>(inner);
      });
      if (touches)
        return failure();
    }
    // The same MMA with the tensor-memory accumulator, which has no result.
    rewriter.setInsertionPoint(op);
    DotXOp::create(rewriter, op.getLoc(), Type(), op.getA(), op.getB(), load.getSrc(), op.getUseD(),
                   op.getPred(), op.getMbars(), op.getMbarPreds(), op.getTwoCtasAttr());
    rewriter.eraseOp(store);
    rewriter.eraseOp(op);
    rewriter.eraseOp(load);
    return success();
  }
};

struct FoldTmemRoundTripsPass : txl::impl::TXLFoldTmemRoundTripsBase<FoldTmemRoundTripsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<AccumulateInPlace>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
