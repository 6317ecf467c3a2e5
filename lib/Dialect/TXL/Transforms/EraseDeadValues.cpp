//===- EraseDeadValues.cpp - what nothing reads goes, before any stage ----===//
//
// The frontend writes what the user wrote, and a little more: the dry runs
// that find a loop's carried variables leave constants and allocations
// behind, a variable the body assigns is carried through scf.for / scf.if /
// scf.while even when nothing reads it afterwards, and values the user
// computed and never read stay. Every later stage would otherwise see them:
// a tile carried through a loop gets a layout, a relayout and registers
// until LLVM removes it, an unused allocation takes a place in the
// shared-memory plan. So this pass, before every other stage (only
// txl-global-scratch, which reads no such value, runs earlier), erases
//
//   - ops whose results nothing reads and that have no memory effect other
//     than allocating those results (arith, math, txl's pure tile ops, an
//     unused smem_alloc / tmem_alloc / mbar_alloc); ops that read memory
//     stay (a volatile txl.load means its access; LLVM drops plain loads);
//   - results of scf.for / scf.if / scf.while that nothing reads, with the
//     yielded values and, for loops, the iter_args, where the body reads
//     the carried value only to yield it again in the same place;
//
// to a fixed point. Nothing else moves: no folding, no deduplication, no
// reordering (upstream canonicalize hoists and folds tile constants and
// inlines one-trip loops, which the stages do not expect; see
// docs/ARCHITECTURE.md). Control flow itself stays even when it ends up
// with no results.
//
//===----------------------------------------------------------------------===//

#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/IR/Iterators.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/BitVector.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLERASEDEADVALUES
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

/// True when `op` has results, none read, and no effect but allocating them.
bool isDead(Operation *op) {
  if (op->getNumResults() == 0 || !op->use_empty() || op->hasTrait<OpTrait::IsTerminator>() ||
      isa<RegionBranchOpInterface>(op))
    return false;
  if (isMemoryEffectFree(op))
    return true;
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface || op->getNumRegions() != 0)
    return false;
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  return llvm::all_of(effects, [&](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Allocate>(e.getEffect()) && e.getValue() &&
           e.getValue().getDefiningOp() == op;
  });
}

/// `op` again with `operands`, the results in `kept` (in order) and its
/// attributes and regions (taken, as they are); `op` is erased.
void rebuild(Operation *op, ValueRange operands, ArrayRef<unsigned> kept) {
  OpBuilder b(op);
  OperationState state(op->getLoc(), op->getName());
  state.addOperands(operands);
  for (unsigned i : kept)
    state.addTypes(op->getResult(i).getType());
  state.addAttributes(llvm::to_vector(op->getDiscardableAttrs()));
  state.propertiesAttr = op->getPropertiesAsAttribute();
  for (unsigned i = 0, e = op->getNumRegions(); i < e; ++i)
    state.addRegion();
  Operation *replacement = b.create(state);
  for (unsigned i = 0, e = op->getNumRegions(); i < e; ++i)
    replacement->getRegion(i).takeBody(op->getRegion(i));
  for (auto [to, from] : llvm::enumerate(kept))
    op->getResult(from).replaceAllUsesWith(replacement->getResult(to));
  op->erase();
}

/// The results of `op` that stay: all but those in `dead`.
SmallVector<unsigned> keptResults(Operation *op, const llvm::BitVector &dead) {
  SmallVector<unsigned> kept;
  for (unsigned i = 0, e = op->getNumResults(); i < e; ++i)
    if (!dead.test(i))
      kept.push_back(i);
  return kept;
}

/// Drops the unread results of an scf.for, scf.if or scf.while (and, for a
/// while, the carried values its `before` region never reads). Returns true
/// if it changed `op`.
bool pruneResults(Operation *op) {
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    // Result i goes when nothing reads it and the body reads iter_arg i at
    // most as the yield's own operand i (a variable carried for nothing).
    auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
    llvm::BitVector dead(op->getNumResults());
    for (unsigned i = 0, e = op->getNumResults(); i < e; ++i) {
      BlockArgument arg = forOp.getRegionIterArg(i);
      dead[i] = op->getResult(i).use_empty() && llvm::all_of(arg.getUses(), [&](OpOperand &use) {
                  return use.getOwner() == yield && use.getOperandNumber() == i;
                });
    }
    if (dead.none())
      return false;
    yield->eraseOperands(dead);
    llvm::BitVector deadArgs(forOp.getBody()->getNumArguments());
    for (unsigned i : dead.set_bits())
      deadArgs.set(i + forOp.getNumInductionVars());
    forOp.getBody()->eraseArguments(deadArgs);
    SmallVector<Value> operands = {forOp.getLowerBound(), forOp.getUpperBound(), forOp.getStep()};
    for (auto [i, init] : llvm::enumerate(forOp.getInitArgs()))
      if (!dead.test(i))
        operands.push_back(init);
    rebuild(op, operands, keptResults(op, dead));
    return true;
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    llvm::BitVector dead(op->getNumResults());
    for (unsigned i = 0, e = op->getNumResults(); i < e; ++i)
      dead[i] = op->getResult(i).use_empty();
    if (dead.none())
      return false;
    for (Region &region : op->getRegions())
      if (!region.empty())
        region.front().getTerminator()->eraseOperands(dead);
    rebuild(op, op->getOperands(), keptResults(op, dead));
    return true;
  }
  if (auto whileOp = dyn_cast<scf::WhileOp>(op)) {
    Block *before = whileOp.getBeforeBody(), *after = whileOp.getAfterBody();
    // A result goes when neither it nor the `after` region's copy of it is
    // read: scf.condition stops forwarding it.
    llvm::BitVector dead(op->getNumResults());
    for (unsigned i = 0, e = op->getNumResults(); i < e; ++i)
      dead[i] = op->getResult(i).use_empty() && after->getArgument(i).use_empty();
    // A carried value goes when the `before` region does not read it: its
    // init and the yield that feeds it go.
    llvm::BitVector unread(before->getNumArguments());
    for (unsigned i = 0, e = before->getNumArguments(); i < e; ++i)
      unread[i] = before->getArgument(i).use_empty();
    if (dead.none() && unread.none())
      return false;
    llvm::BitVector forwarded(whileOp.getConditionOp()->getNumOperands());
    for (unsigned i : dead.set_bits())
      forwarded.set(i + 1); // (operand 0 is the condition)
    whileOp.getConditionOp()->eraseOperands(forwarded);
    after->eraseArguments(dead);
    whileOp.getYieldOp()->eraseOperands(unread);
    before->eraseArguments(unread);
    SmallVector<Value> operands;
    for (auto [i, init] : llvm::enumerate(whileOp.getInits()))
      if (!unread.test(i))
        operands.push_back(init);
    rebuild(op, operands, keptResults(op, dead));
    return true;
  }
  return false;
}

struct EraseDeadValuesPass : txl::impl::TXLEraseDeadValuesBase<EraseDeadValuesPass> {
  void runOnOperation() override {
    // Users before the values they read (post-order, each block backwards),
    // so a dead chain goes in one walk; what a pruned yield stops reading is
    // found by the next walk.
    bool changed = true;
    while (changed) {
      changed = false;
      getOperation()->walk<WalkOrder::PostOrder, ReverseIterator>([&](Operation *op) {
        if (isDead(op)) {
          op->erase();
          changed = true;
        } else if (pruneResults(op)) {
          changed = true;
        }
      });
    }
  }
};

} // namespace
