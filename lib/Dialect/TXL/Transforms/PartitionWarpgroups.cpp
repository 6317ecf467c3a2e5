//===- PartitionWarpgroups.cpp - warp-specialized regions -----------------===//
//
// TXL kernels specialize warpgroups at the source level:
//
//   %p = txl.is_warpgroup [0]
//   scf.if %p { txl.reg_dealloc 24 ... producer ... }
//   %c = txl.is_warpgroup [1, 2]
//   scf.if %c { txl.reg_alloc 240 ... consumers ... }
//
// TXL also writes the split as `if txl.warpgroup_id() == c: ... else: ...`;
// this pass first turns such a compare into `txl.is_warpgroup [c]` (the same
// value), so that every later stage sees the roles. Then it checks and
// completes the structure:
//   - every region guarded by a top-level is_warpgroup starts with a register
//     budget: the kernel's own reg_alloc/reg_dealloc if it wrote one (first
//     in the region, or in role branches nested in it), otherwise the default
//     (TXL's heuristic): the producer warpgroup 0 gives registers back, the
//     others take them, within the 64K-register file (2 warpgroups: 56/256,
//     3: 40/232, 4 or more: 32/160);
//   - on one path a reg_alloc only raises the count and a reg_dealloc only
//     lowers it (setmaxnreg.inc/.dec the other way is undefined in PTX);
//   - named barriers 1..7 are reserved for the compiler (warpgroup syncs
//     after TMA stores use 1 + warpgroup id), so kernel barriers must use
//     0 or 8..15, as in TXL;
//   - the kernel's warps must cover every warpgroup it names;
//   - the budgets fit the 64K-register file: a setmaxnreg.inc that asks for
//     registers nobody gave back waits forever, so sum(budget x 128) over the
//     warpgroups (those without one keep the launch allotment) must be at
//     most 65536.
// Thread ids inside the regions stay block-relative (txl.tid); register
// layouts use the warp index modulo their warps, so one layout serves every
// warpgroup, and wgmma/TMA issue per warpgroup.
//
//===----------------------------------------------------------------------===//

#include "txl/Analysis/CopyPlanning.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "txl/Dialect/TXL/IR/TXLOps.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLPARTITIONWARPGROUPS
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"

namespace {
// 32-bit registers of one SM's register file: what setmaxnreg budgets share.
constexpr int64_t kRegisterFile = 65536;
} // namespace
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

/// Default (producer, consumer) setmaxnreg budgets by warpgroup count.
std::pair<int32_t, int32_t> defaultBudget(int64_t warpgroups) {
  switch (warpgroups) {
  case 2:
    return {56, 256};
  case 3:
    return {40, 232};
  default:
    return {32, 160};
  }
}

struct PartitionWarpgroupsPass : txl::impl::TXLPartitionWarpgroupsBase<PartitionWarpgroupsPass> {
  using TXLPartitionWarpgroupsBase::TXLPartitionWarpgroupsBase;

  void runOnOperation() override {
    for (int32_t regs : {int32_t(producerRegs), int32_t(consumerRegs)})
      if (regs != 0 && (regs < 24 || regs > 256 || regs % 8 != 0)) {
        getOperation().emitError() << "--txl-partition-warpgroups register budgets must be in "
                                      "24..256 in steps of 8 (setmaxnreg), got "
                                   << regs;
        return signalPassFailure();
      }
    for (auto func : getOperation().getOps<func::FuncOp>())
      // A kernel declaration is a verifier error; never reach into its body.
      if (func->hasAttr(kKernelAttrName) && !func.isExternal() && failed(runOnKernel(func)))
        return signalPassFailure();
  }

  LogicalResult runOnKernel(func::FuncOp func) {
    int64_t warps = 4;
    if (auto n = func->getAttrOfType<IntegerAttr>(kNumWarpsAttrName))
      warps = n.getInt();
    int64_t warpgroups = warps / 4; // none in a kernel of 1 or 2 warps

    // `warpgroup_id == c` is `is_warpgroup [c]`.
    SmallVector<std::pair<arith::CmpIOp, int32_t>> splits;
    func.walk([&](arith::CmpIOp cmp) {
      if (std::optional<int64_t> c = matchWarpgroupEquals(cmp.getResult());
          c && *c >= 0 && *c < warpgroups)
        splits.push_back({cmp, static_cast<int32_t>(*c)});
    });
    for (auto [cmp, c] : splits) {
      OpBuilder b(cmp);
      Value role = IsWarpgroupOp::create(b, cmp.getLoc(), b.getDenseI32ArrayAttr({c}));
      cmp.getResult().replaceAllUsesWith(role);
      cmp.erase();
    }

    // Named barriers 1..7 belong to the compiler.
    WalkResult barriers = func.walk([&](Operation *op) {
      int64_t bar = -1;
      if (auto w = dyn_cast<BarWaitOp>(op))
        bar = w.getBar();
      if (auto a = dyn_cast<BarArriveOp>(op))
        bar = a.getBar();
      if (bar >= 1 && bar <= 7) {
        op->emitOpError() << "uses named barrier " << bar
                          << ", which is reserved for the compiler (1..7); use 8..15";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (barriers.wasInterrupted())
      return failure();

    for (Operation &op : func.getBody().front()) {
      auto ifOp = dyn_cast<scf::IfOp>(op);
      if (!ifOp)
        continue;
      auto role = ifOp.getCondition().getDefiningOp<IsWarpgroupOp>();
      if (!role)
        continue;
      for (int32_t id : role.getIds())
        if (id >= warpgroups)
          return role.emitOpError()
                 << "names warpgroup " << id << " but the kernel has " << warpgroups
                 << " (txl.num_warps = " << warps << "); raise txl.num_warps";
      if (warpgroups < 2)
        continue;
      bool producer = llvm::is_contained(role.getIds(), 0);
      insertBudget(ifOp.thenBlock(), producer, warpgroups, ifOp.getLoc());
      // The else branch runs in the other warpgroups.
      if (Block *elseBlock = ifOp.elseBlock())
        insertBudget(elseBlock, !producer, warpgroups, ifOp.getLoc());
    }
    if (failed(checkUnpartitionedBudgets(func, warps)) || failed(checkBudgetOrder(func)))
      return failure();
    // A kernel of 1 or 2 warps has the whole register file per thread.
    return warpgroups ? checkRegisterFile(func, warpgroups) : success();
  }

  /// A reg_alloc outside every `is_warpgroup` branch runs in all the block's
  /// threads: asking each for more than the register file divided among
  /// them makes setmaxnreg.inc wait forever.
  LogicalResult checkUnpartitionedBudgets(func::FuncOp func, int64_t warps) {
    int64_t threads = warps * 32;
    WalkResult result = func.walk([&](RegAllocOp alloc) {
      for (Operation *p = alloc->getParentOp(); p && p != func; p = p->getParentOp())
        if (auto ifOp = dyn_cast<scf::IfOp>(p))
          if (ifOp.getCondition().getDefiningOp<IsWarpgroupOp>())
            return WalkResult::advance();
      int64_t regs = alloc.getRegCount();
      if (regs * threads <= kRegisterFile)
        return WalkResult::advance();
      alloc.emitOpError() << "asks for " << regs << " registers in every thread of the block ("
                          << threads << " threads, " << regs * threads
                          << " registers) but the register file has " << kRegisterFile
                          << "; setmaxnreg.inc would wait forever. Put it first in the "
                             "branch of the warpgroups that need it (`scf.if` on "
                             "txl.is_warpgroup; `if txl.is_warpgroup([...]):` in the DSL), or "
                             "ask for at most "
                          << kRegisterFile / threads / 8 * 8;
      return WalkResult::interrupt();
    });
    return failure(result.wasInterrupted());
  }

  /// The register budget (setmaxnreg op) warpgroup `wg` gets in a region:
  /// the one the region starts with, else the one of the nested role branch
  /// `wg` runs (`if is_warpgroup([1]): ... else: ...` inside a region of
  /// warpgroups 1 and 2).
  static Operation *budgetOf(Block *block, int64_t wg) {
    if (!block || block->empty())
      return nullptr;
    if (isa<RegAllocOp, RegDeallocOp>(block->front()))
      return &block->front();
    for (Operation &op : *block) {
      auto ifOp = dyn_cast<scf::IfOp>(op);
      auto role = ifOp ? ifOp.getCondition().getDefiningOp<IsWarpgroupOp>() : nullptr;
      if (!role)
        continue;
      bool named = llvm::is_contained(role.getIds(), int32_t(wg));
      if (Operation *budget = budgetOf(named ? ifOp.thenBlock() : ifOp.elseBlock(), wg))
        return budget;
    }
    return nullptr;
  }

  /// The budget in effect where `op` runs: the nearest reg_alloc /
  /// reg_dealloc before it in its block or an enclosing one.
  static Operation *budgetBefore(Operation *op) {
    for (Operation *at = op; at && !isa<func::FuncOp>(at); at = at->getParentOp())
      for (Operation *prev = at->getPrevNode(); prev; prev = prev->getPrevNode())
        if (isa<RegAllocOp, RegDeallocOp>(prev))
          return prev;
    return nullptr;
  }

  /// setmaxnreg.inc must not lower the count and .dec must not raise it (PTX
  /// leaves both undefined): a reg_alloc after a larger budget, or a
  /// reg_dealloc after a smaller one, on the same path is an error.
  LogicalResult checkBudgetOrder(func::FuncOp func) {
    WalkResult result = func.walk([&](Operation *op) {
      if (!isa<RegAllocOp, RegDeallocOp>(op))
        return WalkResult::advance();
      Operation *prev = budgetBefore(op);
      if (!prev)
        return WalkResult::advance();
      int64_t now = budgetRegs(op), before = budgetRegs(prev);
      bool inc = isa<RegAllocOp>(op);
      if (inc ? now >= before : now <= before)
        return WalkResult::advance();
      InFlightDiagnostic diag = op->emitOpError();
      diag << (inc ? "asks for " : "gives back down to ") << now << " registers after "
           << prev->getName() << " " << before << " set them: setmaxnreg."
           << (inc ? "inc cannot lower" : "dec cannot raise")
           << " the count (undefined in PTX); use " << (inc ? "txl.reg_dealloc " : "txl.reg_alloc ")
           << now << ", or set each warpgroup's budget once, first in its branch";
      diag.attachNote(prev->getLoc()) << "the budget in effect is set here";
      return WalkResult::interrupt();
    });
    return failure(result.wasInterrupted());
  }

  static int64_t budgetRegs(Operation *op) {
    if (auto a = dyn_cast<RegAllocOp>(op))
      return a.getRegCount();
    return cast<RegDeallocOp>(op).getRegCount();
  }

  LogicalResult checkRegisterFile(func::FuncOp func, int64_t warpgroups) {
    constexpr int64_t kThreadsPerWarpgroup = 128;
    // At launch every thread gets the file divided evenly, in steps of 8.
    int64_t launchRegs = kRegisterFile / (warpgroups * kThreadsPerWarpgroup) / 8 * 8;
    SmallVector<int64_t> regs(warpgroups, launchRegs);
    SmallVector<Operation *> setBy(warpgroups, nullptr);
    for (Operation &op : func.getBody().front()) {
      auto ifOp = dyn_cast<scf::IfOp>(op);
      auto role = ifOp ? ifOp.getCondition().getDefiningOp<IsWarpgroupOp>() : nullptr;
      if (!role)
        continue;
      for (int64_t wg = 0; wg < warpgroups; ++wg) {
        bool named = llvm::is_contained(role.getIds(), int32_t(wg));
        if (Operation *budget = budgetOf(named ? ifOp.thenBlock() : ifOp.elseBlock(), wg)) {
          regs[wg] = budgetRegs(budget);
          setBy[wg] = budget;
        }
      }
    }
    int64_t total = 0;
    for (int64_t r : regs)
      total += r * kThreadsPerWarpgroup;
    if (total <= kRegisterFile)
      return success();
    // Report at the largest budget the kernel set: the one to lower.
    Operation *culprit = nullptr;
    for (int64_t wg = 0; wg < warpgroups; ++wg)
      if (setBy[wg] && (!culprit || budgetRegs(setBy[wg]) > budgetRegs(culprit)))
        culprit = setBy[wg];
    InFlightDiagnostic diag = (culprit ? culprit->emitOpError() : func.emitOpError())
                              << "register budgets need " << total
                              << " registers but the register file has " << kRegisterFile
                              << " (per warpgroup:";
    for (int64_t r : regs)
      diag << " " << r;
    diag << " x 128 threads); setmaxnreg.inc would wait forever: lower the reg_alloc counts "
            "or give more back with reg_dealloc";
    return failure();
  }

  void insertBudget(Block *block, bool producer, int64_t warpgroups, Location loc) {
    // The kernel chose its own budget: first in the region, or in nested
    // role branches (`if is_warpgroup([1]): reg_alloc 256 else: reg_alloc
    // 224` inside `if is_warpgroup([1, 2])`), where a default before them
    // would make their setmaxnreg.inc lower the count (undefined in PTX).
    bool own = false;
    for (Operation &op : *block)
      own |= op.walk([](Operation *o) {
                 return isa<RegAllocOp, RegDeallocOp>(o) ? WalkResult::interrupt()
                                                         : WalkResult::advance();
               }).wasInterrupted();
    if (own)
      return;
    auto [low, high] = defaultBudget(warpgroups);
    OpBuilder b = OpBuilder::atBlockBegin(block);
    if (producer)
      RegDeallocOp::create(b, loc, producerRegs ? producerRegs : low);
    else
      RegAllocOp::create(b, loc, consumerRegs ? consumerRegs : high);
  }
};

} // namespace
