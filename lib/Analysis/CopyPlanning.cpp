//===- CopyPlanning.cpp - shared helpers of the tile-copy passes ----------===//
//
// See CopyPlanning.h.
//
//===----------------------------------------------------------------------===//

#include "txl/Analysis/CopyPlanning.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "txl/Analysis/LoweringUtils.h"
#include "txl/Dialect/TXL/IR/TXLOps.h"

using namespace mlir;
using namespace mlir::txl;

int64_t mlir::txl::getKernelWarpgroups(Operation *op) {
  // Copies of the body that run independently: one per warpgroup, or one for
  // a kernel whose role spans the CTA (txl.role_warps, num_warps = 8).
  auto func = op->getParentOfType<func::FuncOp>();
  auto warps = func ? func->getAttrOfType<IntegerAttr>("txl.num_warps") : IntegerAttr();
  int64_t role = getRoleWarps(op);
  return warps ? std::max<int64_t>(1, (warps.getInt() + role - 1) / role) : 1;
}

static int64_t getKernelThreads(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  auto warps = func ? func->getAttrOfType<IntegerAttr>("txl.num_warps") : IntegerAttr();
  return (warps ? warps.getInt() : 4) * 32;
}

std::optional<int64_t> mlir::txl::matchWarpgroupEquals(Value cond) {
  auto cmp = cond.getDefiningOp<arith::CmpIOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq)
    return std::nullopt;
  for (auto [id, other] :
       {std::pair(cmp.getLhs(), cmp.getRhs()), std::pair(cmp.getRhs(), cmp.getLhs())}) {
    APInt c;
    if (id.getDefiningOp<WarpgroupIdOp>() && matchPattern(other, m_ConstantInt(&c)))
      return c.getSExtValue();
  }
  return std::nullopt;
}

WarpgroupGroup mlir::txl::getWarpgroupGroup(Operation *op) {
  WarpgroupGroup group;
  group.count = getKernelWarpgroups(op);
  int64_t warpgroups = group.count;
  // Innermost role first: an is_warp inside an is_warpgroup region is seen
  // before the is_warpgroup that gives the group.
  for (Operation *p = op->getParentOp(); p && !isa<func::FuncOp>(p); p = p->getParentOp()) {
    auto ifOp = dyn_cast<scf::IfOp>(p);
    if (!ifOp)
      continue;
    // TXL's role split written as `if txl.warpgroup_id() == c: ... else: ...`:
    // warpgroup c runs the then region, the others the else region (a
    // staging buffer per warpgroup that can run the op, so a store only one
    // role makes takes one stage, not one per warpgroup; the else region of
    // `== 0` of 3 warpgroups, two). A c between others leaves an else region
    // that is not one range of warpgroups: all of them.
    if (std::optional<int64_t> c = matchWarpgroupEquals(ifOp.getCondition())) {
      bool inThen = ifOp.getThenRegion().isAncestor(op->getParentRegion());
      if (*c < 0 || *c >= warpgroups)
        continue;
      if (inThen) {
        group.first = *c;
        group.count = 1;
      } else if (*c == 0 || *c == warpgroups - 1) {
        group.first = *c == 0 ? 1 : 0;
        group.count = warpgroups - 1;
      }
      group.inRole = true;
      break;
    }
    if (!ifOp.getThenRegion().isAncestor(op->getParentRegion()))
      continue;
    Operation *cond = ifOp.getCondition().getDefiningOp();
    if (isa_and_nonnull<IsWarpOp>(cond)) {
      group.inRole = true;
      if (!group.isWarp)
        group.isWarp = cond;
    }
    if (auto wg = dyn_cast_or_null<IsWarpgroupOp>(cond); wg && !wg.getIds().empty()) {
      auto [lo, hi] = std::minmax_element(wg.getIds().begin(), wg.getIds().end());
      group.first = *lo;
      group.count = *hi - *lo + 1;
      group.inRole = true;
      break;
    }
  }
  return group;
}

Value mlir::txl::getGroupStage(OpBuilder &b, Location loc, const WarpgroupGroup &group) {
  if (group.count == 1)
    return arith::ConstantIntOp::create(b, loc, 0, 32);
  Value wg = WarpgroupIdOp::create(b, loc, b.getI32Type());
  if (group.first == 0)
    return wg;
  return arith::SubIOp::create(b, loc, wg, arith::ConstantIntOp::create(b, loc, group.first, 32));
}

void mlir::txl::emitGroupSync(OpBuilder &b, Location loc, Operation *anchor,
                              const WarpgroupGroup &group) {
  if (group.inRole)
    TmaStoreWaitOp::create(b, loc, 0);
  else
    BarWaitOp::create(b, loc, 0, getKernelThreads(anchor));
}

unsigned mlir::txl::getWidestSwizzle(ArrayRef<int64_t> shape, Type elt) {
  int64_t rowBytes = shape.back() * getElementBitWidth(elt) / 8;
  for (unsigned s : {128u, 64u, 32u})
    if (rowBytes % s == 0)
      return s;
  return 0;
}

bool mlir::txl::isScalarLoad(Operation *op) {
  auto load = dyn_cast<LoadOp>(op);
  return load && !isa<ShapedType>(load.getType());
}

bool mlir::txl::isInLoop(Operation *op) {
  for (Operation *p = op->getParentOp(); p && !isa<func::FuncOp>(p); p = p->getParentOp())
    if (isa<scf::ForOp, scf::WhileOp>(p))
      return true;
  return false;
}

/// Adds one i32 carried value to `op` (scf.for / scf.if / scf.while) whose
/// value on entry is `in`. Every new yield operand starts as a pass-through;
/// the one in the region holding the carrying path is patched afterwards.
/// Returns the rebuilt op and the value inside the region that holds `child`.
static std::pair<Operation *, Value> addCarriedValue(RewriterBase &rw, Operation *op, Value in,
                                                     Operation *child) {
  Location loc = op->getLoc();
  rw.setInsertionPoint(op);
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    auto rebuilt =
        forOp.replaceWithAdditionalYields(rw, in, /*replaceInitOperandUsesInLoop=*/false,
                                          [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
                                            return SmallVector<Value>{args[0]};
                                          });
    auto newFor = cast<scf::ForOp>(rebuilt->getOperation());
    return {newFor, newFor.getRegionIterArgs().back()};
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    SmallVector<Type> types(ifOp.getResultTypes());
    types.push_back(in.getType());
    auto newIf = scf::IfOp::create(rw, loc, types, ifOp.getCondition(), /*addThenBlock=*/false,
                                   /*addElseBlock=*/false);
    rw.inlineRegionBefore(ifOp.getThenRegion(), newIf.getThenRegion(), newIf.getThenRegion().end());
    if (!ifOp.getElseRegion().empty()) {
      rw.inlineRegionBefore(ifOp.getElseRegion(), newIf.getElseRegion(),
                            newIf.getElseRegion().end());
    } else {
      Block *elseBlock = rw.createBlock(&newIf.getElseRegion());
      rw.setInsertionPointToEnd(elseBlock);
      scf::YieldOp::create(rw, loc);
    }
    for (Region *r : {&newIf.getThenRegion(), &newIf.getElseRegion()}) {
      Operation *yield = r->front().getTerminator();
      yield->insertOperands(yield->getNumOperands(), in);
    }
    rw.replaceOp(ifOp, newIf.getResults().drop_back());
    return {newIf, in};
  }
  auto whileOp = cast<scf::WhileOp>(op);
  SmallVector<Value> inits(whileOp.getInits());
  inits.push_back(in);
  SmallVector<Type> types(whileOp.getResultTypes());
  types.push_back(in.getType());
  auto newWhile = scf::WhileOp::create(rw, loc, types, inits, nullptr, nullptr);
  // The builder makes empty blocks; the old ones move in instead.
  for (Region *r : {&newWhile.getBefore(), &newWhile.getAfter()})
    while (!r->empty())
      rw.eraseBlock(&r->front());
  rw.inlineRegionBefore(whileOp.getBefore(), newWhile.getBefore(), newWhile.getBefore().end());
  rw.inlineRegionBefore(whileOp.getAfter(), newWhile.getAfter(), newWhile.getAfter().end());
  Value beforeArg = newWhile.getBeforeBody()->addArgument(in.getType(), loc);
  Value afterArg = newWhile.getAfterBody()->addArgument(in.getType(), loc);
  Operation *cond = newWhile.getBeforeBody()->getTerminator();
  cond->insertOperands(cond->getNumOperands(), beforeArg);
  Operation *yield = newWhile.getAfterBody()->getTerminator();
  yield->insertOperands(yield->getNumOperands(), afterArg);
  rw.replaceOp(whileOp, newWhile.getResults().drop_back());
  bool inBefore = newWhile.getBefore().isAncestor(child->getParentRegion());
  return {newWhile, inBefore ? beforeArg : afterArg};
}

FailureOr<Value> mlir::txl::carryCounter(RewriterBase &rw, Operation *site, Value init,
                                         function_ref<Value(OpBuilder &, Location, Value)> next) {
  SmallVector<Operation *> chain; // outermost first
  for (Operation *p = site->getParentOp(); p && !isa<func::FuncOp>(p); p = p->getParentOp()) {
    if (!isa<scf::ForOp, scf::IfOp, scf::WhileOp>(p))
      return site->emitOpError() << "cannot carry its state (an mbarrier phase or a ring slot) "
                                    "through the enclosing '"
                                 << p->getName() << "'; only scf.for, scf.while and scf.if "
                                 << "may enclose it";
    chain.insert(chain.begin(), p);
  }
  Value in = init;
  for (size_t i = 0; i < chain.size(); ++i) {
    Operation *child = i + 1 < chain.size() ? chain[i + 1] : site;
    auto [rebuilt, inner] = addCarriedValue(rw, chain[i], in, child);
    chain[i] = rebuilt;
    in = inner;
  }
  Value current = in;
  rw.setInsertionPointAfter(site);
  Value after = next(rw, site->getLoc(), current);
  // Innermost first: the region holding the path yields the value after its
  // child (the site, or the rebuilt op one level down).
  for (size_t i = chain.size(); i-- > 0;) {
    Operation *child = i + 1 < chain.size() ? chain[i + 1] : site;
    Operation *term = child->getBlock()->getTerminator();
    term->setOperand(term->getNumOperands() - 1, after);
    after = chain[i]->getResults().back();
  }
  return current;
}
