//===- RematerializeExpandedRanges.cpp - one index vector per expand_dims -===//
//
// `offs[:, None]` and `offs[None, :]` of one 1-D index vector (`offs = start
// + tl.arange(0, N)`) need it in two register layouts: the rows of one tile
// and the columns of another. Moving it between them is a cross-thread
// relayout; computing it again is a few integer ops per thread. So, as
// Triton's layout rematerialization does, every txl.expand_dims of a 1-D
// tile that is computed only from txl.make_range, txl.splat and arith / math
// ops (at most kMaxDepth ops deep, none with side effects or regions) gets
// its own copy of that computation, built right before it; the original
// goes when nothing else reads it.
//
// This runs first in the pipeline, before the loop pipeliner: a copy next to
// each use keeps txl-schedule-loops from carrying one shared vector between
// a loop's stages (a load's address issued ahead and the mask of the scores
// computed later), and gives layout assignment one class per use.
//
//===----------------------------------------------------------------------===//

#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "txl/Dialect/TXL/IR/TXLOps.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLREMATERIALIZEEXPANDEDRANGES
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

/// How many ops deep a copied computation may be.
constexpr int kMaxDepth = 6;

/// An op whose 1-D tile result can be computed again anywhere its operands
/// are available.
bool isRecomputable(Operation *op) {
  if (op->getNumResults() != 1 || op->getNumRegions() != 0 || !isMemoryEffectFree(op) ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return false;
  if (isa<MakeRangeOp, SplatOp>(op))
    return true;
  StringRef dialect = op->getName().getDialectNamespace();
  return dialect == "arith" || dialect == "math";
}

/// True when the tile `v` is computed by recomputable ops only (scalar
/// operands are read as they are).
bool canCopy(Value v, int depth) {
  Operation *def = v.getDefiningOp();
  if (!def || depth == 0 || !isRecomputable(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value operand) {
    return !isa<RankedTensorType>(operand.getType()) || canCopy(operand, depth - 1);
  });
}

/// A copy of the computation of `v` at the builder's insertion point: tile
/// operands first, in operand order (canCopy(v) holds).
Value copy(OpBuilder &b, Value v) {
  Operation *def = v.getDefiningOp();
  IRMapping map;
  for (Value operand : def->getOperands())
    if (isa<RankedTensorType>(operand.getType()))
      map.map(operand, copy(b, operand));
  return b.clone(*def, map)->getResult(0);
}

/// Erases `op` and the ops computing its operands that nothing else reads.
void eraseIfDead(Operation *op) {
  if (!op || !op->use_empty() || !isRecomputable(op))
    return;
  SmallVector<Operation *> operands;
  for (Value operand : op->getOperands())
    operands.push_back(operand.getDefiningOp());
  op->erase();
  for (Operation *def : operands)
    eraseIfDead(def);
}

struct RematerializeExpandedRangesPass
    : txl::impl::TXLRematerializeExpandedRangesBase<RematerializeExpandedRangesPass> {
  void runOnOperation() override {
    SmallVector<ExpandDimsOp> expands;
    getOperation().walk([&](ExpandDimsOp op) {
      auto type = cast<RankedTensorType>(op.getSrc().getType());
      if (type.getRank() == 1 && canCopy(op.getSrc(), kMaxDepth))
        expands.push_back(op);
    });
    for (ExpandDimsOp op : expands) {
      Operation *original = op.getSrc().getDefiningOp();
      OpBuilder b(op);
      op.getSrcMutable().assign(copy(b, op.getSrc()));
      eraseIfDead(original);
    }
  }
};

} // namespace
