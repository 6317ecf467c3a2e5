//===- LowerTileCopies.cpp - how Triton-style tiles travel ----------------===//
//
// The frontend says what the user wrote: `txl.desc_load`, `txl.desc_store`,
// and `txl.dot` on register tiles. This pass decides how those tiles travel,
// for every such op the loop pipeliner (txl-schedule-loops) did not take:
//
//   desc_load  -> a staging buffer and an mbarrier of its own (a stage per
//                 warpgroup that can run it: TMA is issued per warpgroup and
//                 each warpgroup holds its own copy of the tile), allocated
//                 at the kernel's entry; TMA into it, wait, smem_load. Inside
//                 a loop the buffer is reused, so the group syncs before the
//                 leader re-arms the mbarrier (slow threads may still read the
//                 previous tile or wait on the previous phase), and the phase
//                 is an i32 carried through every enclosing loop and `if`,
//                 flipped after each wait.
//   desc_store -> wait for this warpgroup's previous bulk store, registers to
//                 a staging buffer, fence.proxy.async, TMA store, wait again
//                 (the op is complete when it returns, as the user expects).
//   txl.dot    -> (an mma.sync dot, usesMmaSync, keeps its register
//                 operands, but a loop-invariant A of 64 or more registers
//                 a thread is staged as below and read per use; for wgmma:)
//                 an operand that is a plain register copy of a staging
//                 buffer (smem_load, maybe through a 2-D txl.trans) is read
//                 from that buffer instead: SS wgmma, no layout conversion.
//                 A register A computed before the dot's loop (a Q tile)
//                 is stored once, before the loop, to a buffer the dot then
//                 reads in every iteration (the dot stays async); one the
//                 kernel smem_load-ed from its own buffer stays in registers.
//                 A register B that is not gets a staging buffer of its own
//                 (wgmma reads B from shared memory): sync, store, fence,
//                 sync. Such dots run synchronously: the buffer is reused by
//                 the next execution. (Buffers of a pipelined ring, marked
//                 `txl.ring`, are the pipeliner's business: their dots keep
//                 `async`.)
//
//===----------------------------------------------------------------------===//

#include "txl/Analysis/CopyPlanning.h"
#include "txl/Analysis/LoweringUtils.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "txl/Dialect/TXL/IR/TXLOps.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLLOWERTILECOPIES
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

/// The allocation a shared-memory view is a stage of (through get_buffer).
static SmemAllocOp getRootAlloc(Value view) {
  while (Operation *def = view.getDefiningOp()) {
    if (auto alloc = dyn_cast<SmemAllocOp>(def))
      return alloc;
    if (auto get = dyn_cast<GetBufferOp>(def))
      view = get.getSrc();
    else if (auto trans = dyn_cast<SmemTransOp>(def))
      view = trans.getSrc();
    else
      return {};
  }
  return {};
}

/// True if `op` (or an op nested in it) may write the allocation `alloc`.
static bool mayWrite(Operation *op, SmemAllocOp alloc) {
  WalkResult r = op->walk([&](Operation *nested) {
    Value dst;
    if (auto o = dyn_cast<TmaLoadOp>(nested))
      dst = o.getDst();
    else if (auto o = dyn_cast<SmemStoreOp>(nested))
      dst = o.getDst();
    else if (auto o = dyn_cast<AsyncLoadOp>(nested))
      dst = o.getDst();
    else if (auto o = dyn_cast<FragSmemStoreOp>(nested))
      dst = o.getDst();
    else if (auto o = dyn_cast<SlotStoreOp>(nested))
      dst = o.getDst();
    else if (isa<TmaGatherOp, DescLoadOp>(nested))
      return WalkResult::interrupt();
    if (dst && getRootAlloc(dst) == alloc)
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return r.wasInterrupted();
}

static bool isStagingAlloc(SmemAllocOp alloc) {
  return alloc && (alloc->hasAttr("txl.staging") || alloc->hasAttr("txl.ring"));
}

/// The shared-memory view `tile` is a plain copy of, built before `user`:
/// `smem_load %view` of a staging buffer (or a 2-D txl.trans of one, read
/// through txl.smem_trans) in `user`'s block with no write to that buffer in
/// between. Null otherwise.
static Value getStagedView(RewriterBase &rw, Value tile, Operation *user) {
  Value t = tile;
  SmallVector<int32_t> order;
  if (auto trans = t.getDefiningOp<TransOp>()) {
    order.assign(trans.getOrder().begin(), trans.getOrder().end());
    t = trans.getSrc();
  }
  auto load = t.getDefiningOp<SmemLoadOp>();
  if (!load || load->getBlock() != user->getBlock() || !load->isBeforeInBlock(user))
    return {};
  Value view = load.getSrc();
  SmemAllocOp alloc = getRootAlloc(view);
  if (!isStagingAlloc(alloc))
    return {};
  for (Operation *o = load->getNextNode(); o && o != user; o = o->getNextNode())
    if (mayWrite(o, alloc))
      return {};
  if (order.empty())
    return view;
  auto src = cast<SmemType>(view.getType());
  SmallVector<int64_t> shape;
  for (int32_t d : order)
    shape.push_back(src.getDimSize(d));
  Attribute enc = src.getEncoding();
  if (auto nvmma = dyn_cast_or_null<NVMMASharedAttr>(enc))
    enc = NVMMASharedAttr::get(rw.getContext(), nvmma.getSwizzle(), !nvmma.getTransposed());
  rw.setInsertionPoint(user);
  auto type = SmemType::get(rw.getContext(), shape, src.getElementType(), 0, enc);
  return SmemTransOp::create(rw, user->getLoc(), type, view, rw.getDenseI32ArrayAttr(order));
}

namespace {
struct LowerTileCopies : mlir::txl::impl::TXLLowerTileCopiesBase<LowerTileCopies> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (failed(runOnFunction(func)))
        return signalPassFailure();
  }

  LogicalResult runOnFunction(func::FuncOp func) {
    SmallVector<DescLoadOp> loads;
    SmallVector<DescStoreOp> stores;
    SmallVector<DotOp> dots;
    func.walk([&](Operation *op) {
      if (auto l = dyn_cast<DescLoadOp>(op))
        loads.push_back(l);
      else if (auto s = dyn_cast<DescStoreOp>(op))
        stores.push_back(s);
      else if (auto d = dyn_cast<DotOp>(op))
        dots.push_back(d);
    });
    if (loads.empty() && stores.empty() && dots.empty())
      return success();
    IRRewriter rw(func.getContext());
    Block &entry = func.getBody().front();
    for (DescLoadOp op : loads)
      if (failed(lowerLoad(rw, entry, op)))
        return failure();
    for (DescStoreOp op : stores)
      lowerStore(rw, entry, op);
    for (DotOp op : dots)
      if (failed(lowerDotOperands(rw, entry, op)))
        return failure();
    return success();
  }

  /// An allocation at the kernel's entry (shared memory is planned per
  /// kernel; one staging buffer per op, reused by each execution).
  static SmemAllocOp allocAtEntry(RewriterBase &rw, Block &entry, Location loc, SmemType type) {
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPointToStart(&entry);
    auto alloc = SmemAllocOp::create(rw, loc, type, /*mutable_=*/false);
    alloc->setAttr("txl.staging", rw.getUnitAttr());
    return alloc;
  }

  static Value zeroAtEntry(RewriterBase &rw, Block &entry, Location loc) {
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPointToStart(&entry);
    return arith::ConstantIntOp::create(rw, loc, 0, 32);
  }

  LogicalResult lowerLoad(RewriterBase &rw, Block &entry, DescLoadOp op) {
    Location loc = op.getLoc();
    WarpgroupGroup group = getWarpgroupGroup(op);
    bool reused = isInLoop(op);
    if (reused && group.isWarp)
      return op.emitOpError()
             << "inside a loop in a `txl.is_warp` region: reusing its staging buffer needs a sync "
                "of the whole warpgroup that issues the TMA, which such a region does not run; "
                "load in an `if txl.is_warpgroup([...])` region, or write the copy with "
                "txl.smem_alloc, txl.mbar_alloc, txl.mbar_expect, txl.tma_load and "
                "txl.mbar_wait(bar, phase) with a phase you flip each iteration";
    TensorDescType desc = op.getDesc().getType();
    auto bufType = SmemType::get(rw.getContext(), desc.getBlockShape(), desc.getElementType(),
                                 group.count, desc.getEncoding());
    Value buf = allocAtEntry(rw, entry, loc, bufType);
    Value bars;
    {
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPointAfter(buf.getDefiningOp());
      bars = MbarAllocOp::create(rw, loc, MbarType::get(rw.getContext(), group.count), 1);
    }
    Value phase = zeroAtEntry(rw, entry, loc);
    if (reused) {
      FailureOr<Value> carried =
          carryCounter(rw, op, phase, [](OpBuilder &b, Location l, Value cur) -> Value {
            return arith::XOrIOp::create(b, l, cur, arith::ConstantIntOp::create(b, l, 1, 32));
          });
      if (failed(carried))
        return failure();
      phase = *carried;
    }
    rw.setInsertionPoint(op);
    Value stage = getGroupStage(rw, loc, group);
    Value view = GetBufferOp::create(rw, loc, buf, stage);
    Value bar = GetBufferOp::create(rw, loc, bars, stage);
    if (reused)
      emitGroupSync(rw, loc, op, group);
    int64_t bytes = bufType.getView().getNumElements() *
                    getElementTypeOrSelf(desc.getElementType()).getIntOrFloatBitWidth() / 8;
    MbarExpectOp::create(rw, loc, bar, bytes, Value());
    TmaLoadOp::create(rw, loc, op.getDesc(), op.getIndices(), view, bar);
    MbarWaitOp::create(rw, loc, bar, phase);
    rw.replaceOpWithNewOp<SmemLoadOp>(op, op.getType(), view);
    return success();
  }

  void lowerStore(RewriterBase &rw, Block &entry, DescStoreOp op) {
    Location loc = op.getLoc();
    WarpgroupGroup group = getWarpgroupGroup(op);
    TensorDescType desc = op.getDesc().getType();
    auto bufType = SmemType::get(rw.getContext(), desc.getBlockShape(), desc.getElementType(),
                                 group.count, desc.getEncoding());
    Value buf = allocAtEntry(rw, entry, loc, bufType);
    rw.setInsertionPoint(op);
    Value view = GetBufferOp::create(rw, loc, buf, getGroupStage(rw, loc, group));
    // The buffer may still be read by this warpgroup's previous bulk store (a
    // loop); tma_store_wait also syncs the warpgroup, so no thread overwrites
    // the tile before the copy read it.
    TmaStoreWaitOp::create(rw, loc, 0);
    SmemStoreOp::create(rw, loc, op.getValue(), view);
    FenceProxyAsyncOp::create(rw, loc);
    TmaStoreOp::create(rw, loc, view, op.getDesc(), op.getIndices(), TmaReduceKindAttr());
    TmaStoreWaitOp::create(rw, loc, 0);
    rw.eraseOp(op);
  }

  LogicalResult lowerDotOperands(RewriterBase &rw, Block &entry, DotOp dot) {
    // mma.sync reads both operands from registers: they stay as loaded,
    // except a large loop-invariant A (below).
    if (usesMmaSync(dot)) {
      if (isa<RankedTensorType>(dot.getA().getType()) && mmaSyncARegs(dot) >= kMmaSyncStageARegs)
        if (Value view = stageInvariantA(rw, entry, dot))
          dot.getAMutable().assign(view);
      return success();
    }
    bool folded = false;
    if (isa<RankedTensorType>(dot.getA().getType())) {
      if (Value view = getStagedView(rw, dot.getA(), dot)) {
        dropDeadCopy(rw, dot.getA(), [&] { dot.getAMutable().assign(view); });
        folded |= !getRootAlloc(view)->hasAttr("txl.ring");
      } else if (Value view = stageInvariantA(rw, entry, dot)) {
        dot.getAMutable().assign(view); // written before the loop: the dot stays async
      }
    }
    if (isa<RankedTensorType>(dot.getB().getType())) {
      if (Value view = getStagedView(rw, dot.getB(), dot)) {
        dropDeadCopy(rw, dot.getB(), [&] { dot.getBMutable().assign(view); });
        folded |= !getRootAlloc(view)->hasAttr("txl.ring");
      } else if (failed(stageB(rw, entry, dot))) {
        return failure();
      } else {
        folded = true;
      }
    }
    if (folded)
      dot.setAsync(false);
    return success();
  }

  /// Replaces a dot operand and erases the register copy (and its trans) if
  /// nothing else reads it.
  static void dropDeadCopy(RewriterBase &rw, Value tile, function_ref<void()> replace) {
    replace();
    Operation *def = tile.getDefiningOp();
    while (def && def->use_empty() && isa<SmemLoadOp, TransOp>(def)) {
      Operation *next = def->getNumOperands() ? def->getOperand(0).getDefiningOp() : nullptr;
      rw.eraseOp(def);
      def = isa_and_nonnull<SmemLoadOp, TransOp>(next) ? next : nullptr;
    }
  }

  /// Registers per thread an mma.sync A operand holds: its warps split M in
  /// 16-row blocks (at most one block each) and hold every K column, so a
  /// short, deep A is held whole by every warp (MLA decoding's 16 x 512 q:
  /// 128 registers).
  static int64_t mmaSyncARegs(DotOp dot) {
    auto a = cast<RankedTensorType>(dot.getA().getType());
    int64_t m = a.getDimSize(0), k = a.getDimSize(1);
    int64_t wm = getMmaSyncWarpsAlongM(m, getRoleWarps(dot));
    return (m / wm) * k * getElementBitWidth(a.getElementType()) / 8 / (4 * 32);
  }
  /// From this many registers on, a loop-invariant mma.sync A is kept in
  /// shared memory and read (ldmatrix) at each use instead.
  static constexpr int64_t kMmaSyncStageARegs = 64;

  /// A register A that a loop's dot reads in every iteration but that is
  /// computed before the loop (attention's Q tile, loaded once) is stored to
  /// a buffer of its own right before the loop, once, and the dot reads
  /// it from there (SS wgmma, as Triton does): it no longer holds registers
  /// through the loop (64 per thread for a 128 x 128 fp16 Q on one
  /// warpgroup) nor needs a relayout into the wgmma operand layout. Every
  /// dot of the value shares the buffer. Null when A is not such a tile, or
  /// when the kernel itself read it from one of its own buffers
  /// (txl.smem_load, TXL-style: MLA's Q_pe, whose buffer the kernel reuses for
  /// P): it loads straight into the operand layout and stays in registers
  /// (RS wgmma, as TXL runs it), with no second buffer. (A copy of a staging
  /// buffer, a Triton-style `q = desc.load(...)`, is still staged here.)
  Value stageInvariantA(RewriterBase &rw, Block &entry, DotOp dot) {
    Value a = dot.getA();
    auto loop = dot->getParentOfType<LoopLikeOpInterface>();
    if (!loop || loop->isAncestor(a.getParentRegion()->getParentOp()))
      return {};
    if (auto load = a.getDefiningOp<SmemLoadOp>();
        load && !usesMmaSync(dot) && !isStagingAlloc(getRootAlloc(load.getSrc())))
      return {};
    WarpgroupGroup group = getWarpgroupGroup(dot);
    if (group.isWarp)
      return {};
    if (Value view = stagedA.lookup(a))
      return view;
    Location loc = a.getLoc();
    auto tile = cast<RankedTensorType>(a.getType());
    auto enc = NVMMASharedAttr::get(
        rw.getContext(), getWidestSwizzle(tile.getShape(), tile.getElementType()), false);
    auto bufType =
        SmemType::get(rw.getContext(), tile.getShape(), tile.getElementType(), group.count, enc);
    Value buf = allocAtEntry(rw, entry, loc, bufType);
    OpBuilder::InsertionGuard guard(rw);
    // Right before the loop (or the op in A's block that holds it), so after
    // the loop's prologue: the ring's first copies are issued before the
    // store waits for A's global loads, and the three latencies overlap
    // (a short sliding-window loop is mostly that latency).
    if (Operation *holder = a.getParentBlock()->findAncestorOpInBlock(*loop.getOperation()))
      rw.setInsertionPoint(holder);
    else if (Operation *def = a.getDefiningOp())
      rw.setInsertionPointAfter(def);
    else
      rw.setInsertionPointToStart(cast<BlockArgument>(a).getOwner());
    Value view = GetBufferOp::create(rw, loc, buf, getGroupStage(rw, loc, group));
    // An enclosing loop stages the next value in its next iteration: the
    // dots of this one were retired after their loop (txl.dot_wait 0), and
    // the sync waits for every warp's; then every warp's part must be in
    // place and visible to wgmma's async proxy.
    emitGroupSync(rw, loc, dot, group);
    SmemStoreOp::create(rw, loc, a, view);
    FenceProxyAsyncOp::create(rw, loc);
    emitGroupSync(rw, loc, dot, group);
    stagedA[a] = view;
    return view;
  }

  /// The staged views of loop-invariant A operands (stageInvariantA).
  DenseMap<Value, Value> stagedA;

  LogicalResult stageB(RewriterBase &rw, Block &entry, DotOp dot) {
    Location loc = dot.getLoc();
    WarpgroupGroup group = getWarpgroupGroup(dot);
    if (group.isWarp)
      return dot.emitOpError() << "B is a register tile in a `txl.is_warp` region: staging it "
                                  "in shared memory needs a sync of the whole warpgroup; run the "
                                  "dot in an `if txl.is_warpgroup([...])` region, or store B to "
                                  "a txl.smem_alloc buffer yourself";
    auto b = cast<RankedTensorType>(dot.getB().getType());
    auto enc = NVMMASharedAttr::get(rw.getContext(),
                                    getWidestSwizzle(b.getShape(), b.getElementType()), false);
    auto bufType =
        SmemType::get(rw.getContext(), b.getShape(), b.getElementType(), group.count, enc);
    Value buf = allocAtEntry(rw, entry, loc, bufType);
    rw.setInsertionPoint(dot);
    Value view = GetBufferOp::create(rw, loc, buf, getGroupStage(rw, loc, group));
    // A previous dot of this op may still be read by slower warps; then every
    // warp's part must be in place (and visible to the async proxy) before
    // wgmma reads it.
    emitGroupSync(rw, loc, dot, group);
    SmemStoreOp::create(rw, loc, dot.getB(), view);
    FenceProxyAsyncOp::create(rw, loc);
    emitGroupSync(rw, loc, dot, group);
    dot.getBMutable().assign(view);
    return success();
  }
};
} // namespace
