//===- FoldDotAdd.cpp - x + dot(a, b) accumulates in the dot -------------===//
//
// `acc += tl.dot(a, b)` is written as a product and an add; Triton's combine
// pass makes it one dot that accumulates into acc, and so does this pass:
// the wgmma chain then starts from acc (no zeroed accumulator, no add per
// element), and in a loop the dot's accumulator is the loop-carried value,
// which txl-schedule-loops keeps in flight across iterations. TXL's
// asynchronous kernels need it too: `acc += tl.dot(q, k.T)` followed by
// `txl.dot_wait 0` is only well-formed once the add is the dot's own
// accumulation (the verifier counts such an add, getAccumulatedDot, as part
// of the dot until this pass folds it).
//
// Legal when the dot has a zero accumulator and no use_acc, the add is its
// result's only reader, in the dot's block, and the other operand is
// computed before the dot: the dot then reads it where it stands. (Adding
// into the accumulator rounds once per K step instead of once at the end,
// as Triton's fold does.)
//
//===----------------------------------------------------------------------===//

#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "txl/Dialect/TXL/IR/TXLOps.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLFOLDDOTADD
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

struct FoldDotAddPass : txl::impl::TXLFoldDotAddBase<FoldDotAddPass> {
  void runOnOperation() override {
    // Program order: in `acc = acc + dot1; acc = acc + dot2` the second add's
    // earlier operand is the first add, which then becomes dot1's result.
    SmallVector<Operation *> adds;
    getOperation().walk([&](Operation *op) {
      if (getAccumulatedDot(op))
        adds.push_back(op);
    });
    for (Operation *add : adds) {
      DotOp dot = getAccumulatedDot(add);
      if (!dot)
        continue;
      Value x = add->getOperand(0) == dot.getResult() ? add->getOperand(1) : add->getOperand(0);
      Operation *zero = dot.getAcc().getDefiningOp();
      dot.getAccMutable().assign(x);
      add->getResult(0).replaceAllUsesWith(dot.getResult());
      add->erase();
      if (zero && zero->use_empty())
        zero->erase();
    }
  }
};

} // namespace
