//===- ScheduleLoops.cpp - loop pipeliner, step 1: rings and stages -------===//
//
// Triton's meaning of `num_stages`: a load in a loop is issued num_stages - 1
// iterations before the iteration that reads it, into a ring of num_stages
// shared buffers. This pass makes that decision for every scf.for (outside
// warp-specialized regions) and records it; txl-expand-loops builds the loop.
//
// For each txl.desc_load in the loop body whose coordinates can be computed
// ahead (their backward slice in the body is pure arithmetic, scalar loads
// and iter_args updated by such ops), with the loop's `num_stages` S >= 2:
//
//   before the loop:    ring = smem_alloc R stages {txl.ring}
//   before the kernel:  bars = mbar_alloc <R>
//   stage 0     (issue, iteration i + S - 1, predicated past the end):
//       g = base + (iv - lb) / step       the loads issued before this one
//       slot = g % R; expect bars[slot]; tma_load desc[...] -> ring[slot]
//   stage S - 1 (consume, iteration i):
//       mbar_wait bars[slot], (g / R) & 1; tile = smem_load ring[slot]
//
// R = S - 1 buffers suffice (iteration i's slot is free once the consume
// stage ends, before the issue of iteration i + S - 1), R = S when an async
// dot still reads slot i during iteration i + 1.
//
// `base` counts the loads of earlier executions of the loop (0, or carried
// through the enclosing loops when the loop is nested, with a CTA barrier
// before the loop so the previous execution's readers are done with the ring).
//
// Reuse of a slot: the TMA of iteration i + S - 1 refills the slot read by
// iteration i - 1. The consume stage ends with a CTA barrier, so every
// thread's reads of that slot are done; a dot that read it asynchronously was
// retired by the `txl.dot_wait 1` that follows iteration i's dot.
//
// Pointer-tile loads (tl.load) that feed a dot, and vectors loaded in a loop
// of dots (the attention backward's per-row m and Delta, read right after the
// first dot: loaded in their own iteration, their latency stalls it), get the
// same ring (a vector's is a plain buffer), filled by
// cp.async copies (option pointer-loads, on by default): stage 0 issues one
// commit group per load, the consume stage waits with
// `async_load_wait (S - 2) * loads` (this iteration's groups are done, the
// later iterations' may still fly), fences them for wgmma's async proxy and
// syncs the group before the first read. Masked elements must read as zero.
// Each cp.async moves 16, 8 or 4 bytes of consecutive elements and faults on
// a source address not aligned to that size, so the width is what the
// AxisInfo analysis (AxisInfo.h, shared with txl-vectorize-accesses) proves
// of the pointers: recorded as the copy's `contiguity` (elements), which
// bounds the layout's run when txl-lower-loads emits the copies. A load of
// which not even 4 bytes are proven (fp16 rows whose stride is odd or
// unknown) stays a plain load: the loop still pipelines the others.
//
// Loop-carried dots (the accumulator is an iter_arg, yielded straight back)
// become async with `txl.dot_wait 1` after them and `txl.dot_wait 0` after
// the loop (Triton's async wgmma: the tensor cores overlap the next
// iteration's loads and arithmetic).
//
// After the loop, a drain (`async_load_wait 0` where cp.async rings exist,
// then the CTA barrier): the rings are idle from there on, which is what
// txl-smem-allocs needs to give their bytes to later buffers. Each ring is
// allocated right before the loop's top-level op, so its live range starts
// there.
//
// Order in the pipelined body: the consume stage in program order, the
// barrier, then the issue stage (as Triton places its async copies after the
// dot), recorded as `txl.order`.
//
//===----------------------------------------------------------------------===//

#include "txl/Analysis/AxisInfo.h"
#include "txl/Analysis/CopyPlanning.h"
#include "txl/Analysis/LoweringUtils.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "txl/Dialect/TXL/IR/TXLOps.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLSCHEDULELOOPS
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

/// The largest vector (bytes) that gets a cp.async ring in a loop of dots.
static constexpr int64_t kMaxVectorBytes = 2048;

static int64_t getNumStages(scf::ForOp loop) {
  if (auto attr = loop->getAttrOfType<IntegerAttr>("txl.num_stages"))
    return attr.getInt();
  auto func = loop->getParentOfType<func::FuncOp>();
  if (auto attr = func ? func->getAttrOfType<IntegerAttr>("txl.num_stages") : IntegerAttr())
    return attr.getInt();
  return 1;
}

/// Adds to `slice` the body ops that `v` depends on in the same iteration or,
/// through iter_args, in earlier ones. False if one of them cannot run ahead
/// of the loop's other work (side effects, regions).
static bool collectIssueSlice(scf::ForOp loop, Value v, llvm::SetVector<Operation *> &slice) {
  Block *body = loop.getBody();
  SmallVector<Value> work{v};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      if (arg.getOwner() != body || arg == loop.getInductionVar())
        continue;
      work.push_back(body->getTerminator()->getOperand(arg.getArgNumber() - 1));
      continue;
    }
    Operation *def = x.getDefiningOp();
    if (!loop->isAncestor(def))
      continue; // loop invariant
    if (def->getBlock() != body || def->getNumRegions() ||
        !(isMemoryEffectFree(def) || isScalarLoad(def)))
      return false;
    if (slice.insert(def))
      llvm::append_range(work, def->getOperands());
  }
  return true;
}

/// (iv - lb) / step: the iteration number of the iteration `iv` belongs to.
static Value getIterationNumber(OpBuilder &b, Location loc, scf::ForOp loop, Value iv) {
  Value diff = arith::SubIOp::create(b, loc, iv, loop.getLowerBound());
  return arith::DivUIOp::create(b, loc, diff, loop.getStep());
}

/// max(0, ceil((ub - lb) / step)).
static Value getTripCount(OpBuilder &b, Location loc, scf::ForOp loop) {
  Type t = loop.getUpperBound().getType();
  Value diff = arith::SubIOp::create(b, loc, loop.getUpperBound(), loop.getLowerBound());
  Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, 1));
  Value stepM1 = arith::SubIOp::create(b, loc, loop.getStep(), one);
  Value trips =
      arith::DivSIOp::create(b, loc, arith::AddIOp::create(b, loc, diff, stepM1), loop.getStep());
  Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, 0));
  return arith::MaxSIOp::create(b, loc, trips, zero);
}

static Value castToI32(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isInteger(32))
    return v;
  if (v.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
  return arith::TruncIOp::create(b, loc, b.getI32Type(), v);
}

namespace {
struct ScheduleLoops : mlir::txl::impl::TXLScheduleLoopsBase<ScheduleLoops> {
  using TXLScheduleLoopsBase::TXLScheduleLoopsBase;

  void runOnOperation() override {
    // Upstream pipelining carries loop values at distance 1 only: drop the
    // iter_args the bodies pass through unchanged first (this may rebuild
    // the loops; they keep their attributes).
    SmallVector<Operation *> loops;
    getOperation().walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
      if (getNumStages(loop) >= 2)
        loops.push_back(loop);
    });
    if (loops.empty())
      return;
    RewritePatternSet patterns(&getContext());
    scf::ForOp::getCanonicalizationPatterns(patterns, &getContext());
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    (void)applyOpPatternsGreedily(loops, std::move(patterns), config);
    // Outer loops first: scheduling a nested loop rebuilds its enclosing
    // loops (the load counter becomes their iter_arg), never its inner ones.
    SmallVector<scf::ForOp> scheduled;
    getOperation().walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
      if (getNumStages(loop) >= 2)
        scheduled.push_back(loop);
    });
    for (scf::ForOp loop : scheduled)
      if (failed(schedule(loop)))
        return signalPassFailure();
  }

  /// The loads of `loop` that can be issued ahead, and their issue slices.
  SmallVector<DescLoadOp> findLoads(scf::ForOp loop, llvm::SetVector<Operation *> &slice) {
    SmallVector<DescLoadOp> loads;
    for (auto load : loop.getBody()->getOps<DescLoadOp>()) {
      llvm::SetVector<Operation *> mine;
      bool ok = llvm::all_of(load.getIndices(),
                             [&](Value v) { return collectIssueSlice(loop, v, mine); });
      if (!ok)
        continue;
      loads.push_back(load);
      slice.insert(mine.begin(), mine.end());
    }
    return loads;
  }

  /// A pointer-tile load (tl.load) that gets a cp.async ring, and the
  /// elements each of its copies may move (consecutive and aligned).
  struct PointerLoad {
    LoadOp load;
    int64_t contiguity;
    /// The dimension the copies run along: the last, or the first of a 2-D
    /// tile whose addresses are contiguous there (B^T of an N x K tensor
    /// loaded as K x N): its ring is stored transposed (K-major), which is
    /// also what wgmma needs for 8-bit B.
    unsigned dim;
  };

  /// Pointer-tile loads (tl.load) that feed a dot (directly or through
  /// tl.trans), as Triton pipelines them: cp.async copies into a ring. Masked
  /// elements must read as zero (cp.async can only zero-fill), and at least 4
  /// bytes of consecutive elements must be proven aligned (cp.async's
  /// narrowest copy), as Triton also requires before it uses cp.async.
  SmallVector<PointerLoad> findPointerLoads(scf::ForOp loop, llvm::SetVector<Operation *> &slice) {
    SmallVector<PointerLoad> loads;
    // Fresh for each loop: scheduling an earlier loop rebuilt the IR.
    AxisAnalysis axes;
    auto feedsDot = [](LoadOp load) {
      return llvm::any_of(load->getUsers(), [](Operation *user) {
        if (isa<TransOp>(user))
          return llvm::any_of(user->getUsers(), [](Operation *u) { return isa<DotOp>(u); });
        return isa<DotOp>(user);
      });
    };
    auto isZero = [](Value v) {
      if (auto splat = v.getDefiningOp<SplatOp>())
        v = splat.getSrc();
      return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero());
    };
    bool hasDot = !loop.getBody()->getOps<DotOp>().empty();
    for (auto load : loop.getBody()->getOps<LoadOp>()) {
      auto tile = dyn_cast<RankedTensorType>(load.getType());
      // A vector in a loop of dots (the backward's row statistics m and
      // Delta per key block) is prefetched too: loaded in the iteration
      // that reads it, its latency stalls the first dot's consumer.
      // (Small vectors only: a ring of large ones could cost the tiles'
      // rings their shared memory.)
      bool vector = tile && tile.getRank() == 1 && hasDot &&
                    tile.getNumElements() * tile.getElementTypeBitWidth() <= 8 * kMaxVectorBytes;
      if (!tile || load.getIsVolatile() || !((tile.getRank() == 2 && feedsDot(load)) || vector))
        continue;
      unsigned bits = getElementTypeOrSelf(tile).getIntOrFloatBitWidth();
      CacheModifier cache = load.getCache();
      if (bits < 8 || bits > 32 ||
          !(cache == CacheModifier::none || cache == CacheModifier::ca ||
            cache == CacheModifier::cg) ||
          (load.getOther() && !isZero(load.getOther())))
        continue;
      unsigned dim = tile.getRank() - 1;
      int64_t run = getAlignedRun(axes, load.getPtr());
      if (int64_t first = getAlignedRun(axes, load.getPtr(), 0); first > run) {
        run = first;
        dim = 0;
      }
      if (run * bits < 32)
        continue;
      llvm::SetVector<Operation *> mine;
      bool ok = collectIssueSlice(loop, load.getPtr(), mine) &&
                (!load.getMask() || collectIssueSlice(loop, load.getMask(), mine)) &&
                (!load.getOther() || collectIssueSlice(loop, load.getOther(), mine));
      if (!ok)
        continue;
      loads.push_back({load, run, dim});
      slice.insert(mine.begin(), mine.end());
    }
    return loads;
  }

  LogicalResult schedule(scf::ForOp loop) {
    WarpgroupGroup group = getWarpgroupGroup(loop);
    // Warp-specialized kernels stage their own loads; with several
    // warpgroups running the body each would need its own ring.
    if (group.inRole || group.count != 1)
      return success();
    Block *body = loop.getBody();
    for (Value y : body->getTerminator()->getOperands()) {
      Operation *def = y.getDefiningOp();
      if (!def || def->getBlock() != body)
        return success(); // a loop-carried value not computed by the body
    }
    llvm::SetVector<Operation *> slice;
    SmallVector<DescLoadOp> loads = findLoads(loop, slice);
    SmallVector<PointerLoad> ptrLoads;
    if (pointerLoads)
      ptrLoads = findPointerLoads(loop, slice);
    if (loads.empty() && ptrLoads.empty())
      return success();
    int64_t S = getNumStages(loop);
    IRRewriter rw(loop.getContext());
    auto func = loop->getParentOfType<func::FuncOp>();
    Block &entry = func.getBody().front();
    Location loc = loop.getLoc();

    // The loads issued by earlier executions of this loop.
    Value base;
    {
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPointToStart(&entry);
      base = arith::ConstantIntOp::create(rw, loc, 0, 32);
    }
    if (isInLoop(loop)) {
      FailureOr<Value> carried =
          carryCounter(rw, loop, base, [&](OpBuilder &b, Location l, Value cur) -> Value {
            Value trips = castToI32(b, l, getTripCount(b, l, loop));
            return arith::AddIOp::create(b, l, cur, trips);
          });
      if (failed(carried))
        return failure();
      base = *carried;
      rw.setInsertionPoint(loop);
      emitGroupSync(rw, loc, loop, group);
    }

    // A slot is free again once iteration i has read it (the barrier ends the
    // consume stage), so S - 1 buffers hold the loads in flight, unless an
    // async dot still reads slot i until iteration i + 1 retires it.
    DenseSet<Operation *> issue(slice.begin(), slice.end());
    auto buffersFor = [&](Operation *load) -> int64_t {
      auto readsAsync = [&](Operation *user) {
        return isCarriedDot(loop, user) || (rescaledAsync && getRescale(loop, user));
      };
      bool readAsync = llvm::any_of(load->getUsers(), [&](Operation *user) {
        if (auto trans = dyn_cast<TransOp>(user))
          return llvm::any_of(trans->getUsers(), readsAsync);
        return readsAsync(user);
      });
      return readAsync ? S : std::max<int64_t>(1, S - 1);
    };
    for (DescLoadOp load : loads)
      lowerLoad(rw, entry, loop, load, base, S, buffersFor(load), issue);
    SmallVector<Operation *> ringReads;
    for (PointerLoad &p : ptrLoads)
      ringReads.push_back(lowerPointerLoad(rw, entry, loop, p, base, buffersFor(p.load), issue));
    if (!ringReads.empty()) {
      // Before the first read of iteration i's copies: this thread's copies of
      // iteration i are done (the groups of the S - 2 later iterations may
      // still fly), made visible to wgmma's async proxy, then to every thread.
      Operation *first = *llvm::min_element(
          ringReads, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
      rw.setInsertionPoint(first);
      AsyncLoadWaitOp::create(rw, loc, (S - 2) * static_cast<int64_t>(ringReads.size()));
      FenceProxyAsyncOp::create(rw, loc);
      emitGroupSync(rw, loc, loop, group);
    }
    ++numLoops;

    // The drain: after the loop no copy writes a ring and no thread reads one
    // (the copies issued past the end still zero-fill their slots: wait for
    // them; the async dots are retired by the `txl.dot_wait 0` that
    // makeAsync puts right after the loop, before these). txl-smem-allocs
    // then lets the bytes of the rings serve the buffers of later code, e.g.
    // the rings of the next loop (causal attention's two loops).
    rw.setInsertionPointAfter(loop);
    if (!ringReads.empty())
      AsyncLoadWaitOp::create(rw, loc, 0);
    emitGroupSync(rw, loc, loop, group);

    // Loop-carried accumulators: async, retired one iteration later.
    for (auto dot : llvm::make_early_inc_range(body->getOps<DotOp>())) {
      makeAsync(rw, loop, dot);
      makeRescaledAsync(rw, loop, dot);
    }

    // The consume stage ends with a CTA barrier: the slot refilled next was
    // read by the previous iteration.
    rw.setInsertionPoint(body->getTerminator());
    emitGroupSync(rw, loc, loop, group);

    int64_t order = 0;
    for (Operation &op : body->without_terminator())
      if (!issue.contains(&op))
        stamp(op, S - 1, order++);
    for (Operation &op : body->without_terminator())
      if (issue.contains(&op))
        stamp(op, 0, order++);
    loop->setAttr("txl.num_stages", rw.getI32IntegerAttr(S));
    return success();
  }

  static void stamp(Operation &op, int64_t stage, int64_t order) {
    Builder b(op.getContext());
    op.setAttr(kStageAttr, b.getI32IntegerAttr(stage));
    op.setAttr(kOrderAttr, b.getI32IntegerAttr(order));
  }

  /// Replaces `load` by a ring read (stage S - 1) and adds the ops that fill
  /// the ring (stage 0) to `issue`.
  void lowerLoad(IRRewriter &rw, Block &entry, scf::ForOp loop, DescLoadOp load, Value base,
                 int64_t S, int64_t buffers, DenseSet<Operation *> &issue) {
    Location loc = load.getLoc();
    TensorDescType desc = load.getDesc().getType();
    auto ringType = SmemType::get(rw.getContext(), desc.getBlockShape(), desc.getElementType(),
                                  buffers, desc.getEncoding());
    Value ring, bars;
    {
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPoint(entry.findAncestorOpInBlock(*loop));
      auto alloc = SmemAllocOp::create(rw, loc, ringType, /*mutable_=*/false);
      alloc->setAttr("txl.ring", rw.getUnitAttr());
      ring = alloc;
      rw.setInsertionPointToStart(&entry);
      bars = MbarAllocOp::create(rw, loc, MbarType::get(rw.getContext(), buffers), 1);
    }
    rw.setInsertionPoint(loop);
    Value stages = arith::ConstantIntOp::create(rw, loc, buffers, 32);
    Value one = arith::ConstantIntOp::create(rw, loc, 1, 32);
    // The loads issued before this one: base + the iteration number.
    auto countAt = [&](Value iv) -> Value {
      return arith::AddIOp::create(rw, loc, base,
                                   castToI32(rw, loc, getIterationNumber(rw, loc, loop, iv)));
    };
    // Issue (stage 0): every op built here up to the TMA.
    rw.setInsertionPoint(load);
    Operation *before = load->getPrevNode();
    Value slot0 = arith::RemUIOp::create(rw, loc, countAt(loop.getInductionVar()), stages);
    Value view0 = GetBufferOp::create(rw, loc, ring, slot0);
    Value bar0 = GetBufferOp::create(rw, loc, bars, slot0);
    int64_t bytes = ringType.getView().getNumElements() *
                    getElementTypeOrSelf(desc.getElementType()).getIntOrFloatBitWidth() / 8;
    MbarExpectOp::create(rw, loc, bar0, bytes, Value());
    TmaLoadOp::create(rw, loc, load.getDesc(), load.getIndices(), view0, bar0);
    for (Operation *op = before ? before->getNextNode() : &loop.getBody()->front(); op != load;
         op = op->getNextNode())
      issue.insert(op);
    // Consume (stage S - 1): the same count, recomputed from this stage's iv.
    Value count = countAt(loop.getInductionVar());
    Value slot1 = arith::RemUIOp::create(rw, loc, count, stages);
    Value phase =
        arith::AndIOp::create(rw, loc, arith::DivUIOp::create(rw, loc, count, stages), one);
    Value view1 = GetBufferOp::create(rw, loc, ring, slot1);
    Value bar1 = GetBufferOp::create(rw, loc, bars, slot1);
    MbarWaitOp::create(rw, loc, bar1, phase);
    rw.replaceOpWithNewOp<SmemLoadOp>(load, load.getType(), view1);
    ++numLoads;
  }

  /// Replaces a pointer-tile `load` by a read of its ring slot (stage S - 1)
  /// and adds the cp.async that fills the slot (stage 0) to `issue`; each
  /// copy moves at most `contiguity` elements. Returns the read.
  Operation *lowerPointerLoad(IRRewriter &rw, Block &entry, scf::ForOp loop, const PointerLoad &p,
                              Value base, int64_t buffers, DenseSet<Operation *> &issue) {
    LoadOp load = p.load;
    int64_t contiguity = p.contiguity;
    Location loc = load.getLoc();
    auto tile = cast<RankedTensorType>(load.getType());
    // Rows of the ring run along the copies' dimension.
    bool transposed = p.dim == 0 && tile.getRank() == 2;
    SmallVector<int64_t> rows(tile.getShape());
    if (transposed)
      std::swap(rows[0], rows[1]);
    // (A vector's ring is plain: no dot reads it, the threads do.)
    Attribute enc;
    if (tile.getRank() == 2)
      enc = NVMMASharedAttr::get(rw.getContext(), getWidestSwizzle(rows, tile.getElementType()),
                                 transposed);
    auto ringType =
        SmemType::get(rw.getContext(), tile.getShape(), tile.getElementType(), buffers, enc);
    Value ring;
    {
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPoint(entry.findAncestorOpInBlock(*loop));
      auto alloc = SmemAllocOp::create(rw, loc, ringType, /*mutable_=*/false);
      alloc->setAttr("txl.ring", rw.getUnitAttr());
      ring = alloc;
    }
    rw.setInsertionPoint(loop);
    Value count = arith::ConstantIntOp::create(rw, loc, buffers, 32);
    auto slotAt = [&](Value iv) -> Value {
      Value g = arith::AddIOp::create(rw, loc, base,
                                      castToI32(rw, loc, getIterationNumber(rw, loc, loop, iv)));
      return arith::RemUIOp::create(rw, loc, g, count);
    };
    rw.setInsertionPoint(load);
    Operation *before = load->getPrevNode();
    Value view0 = GetBufferOp::create(rw, loc, ring, slotAt(loop.getInductionVar()));
    AsyncLoadOp::create(rw, loc, load.getPtr(), view0, load.getMask(), load.getOther(), contiguity,
                        load.getCache(), load.getEvict());
    for (Operation *op = before ? before->getNextNode() : &loop.getBody()->front(); op != load;
         op = op->getNextNode())
      issue.insert(op);
    Value view1 = GetBufferOp::create(rw, loc, ring, slotAt(loop.getInductionVar()));
    auto read = rw.replaceOpWithNewOp<SmemLoadOp>(load, load.getType(), view1);
    ++numLoads;
    return read;
  }

  /// `acc = dot(a, b, acc)` carried by the loop: the accumulator is an
  /// iter_arg that only this dot reads, and its result is only yielded back.
  static bool isCarriedDot(scf::ForOp loop, Operation *op) {
    DotOp dot = getSyncDot(loop, op);
    return dot && isYieldedBack(loop, dot.getAcc(), dot);
  }

  /// `op` as a synchronous wgmma dot of the loop body with one use, else null
  /// (mma.sync is synchronous: nothing to overlap or retire).
  static DotOp getSyncDot(scf::ForOp loop, Operation *op) {
    auto dot = dyn_cast<DotOp>(op);
    if (!dot || dot->getBlock() != loop.getBody() || dot.getAsync() || usesMmaSync(dot) ||
        !dot->hasOneUse())
      return {};
    return dot;
  }

  /// True if `v` is an iter_arg of `loop` that only one op reads and the
  /// loop yields `dot`'s result back to it.
  static bool isYieldedBack(scf::ForOp loop, Value v, DotOp dot) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == loop.getBody() && arg != loop.getInductionVar() &&
           arg.hasOneUse() &&
           loop.getBody()->getTerminator()->getOperand(arg.getArgNumber() - 1) == dot.getResult();
  }

  /// True if `dot`'s A operand is computed in the loop body from the result
  /// of another (synchronous) dot of the body.
  static bool dependsOnOtherDot(scf::ForOp loop, DotOp dot) {
    SmallVector<Value> work{dot.getA()};
    DenseSet<Operation *> seen;
    while (!work.empty()) {
      Operation *def = work.pop_back_val().getDefiningOp();
      if (!def || def->getBlock() != loop.getBody() || !seen.insert(def).second)
        continue;
      if (auto other = dyn_cast<DotOp>(def))
        if (other != dot && !other.getAsync())
          return true;
      llvm::append_range(work, def->getOperands());
    }
    return false;
  }

  /// `acc = dot(a, b, arg * s)` where the loop carries the dot's result back
  /// to `arg` and only the rescale reads `arg`: attention's P @ V, whose
  /// accumulator is scaled by exp2(m_old - m_new) before each dot. Returns
  /// the rescale's use of `arg` (an operand of an arith.mulf).
  static OpOperand *getRescale(scf::ForOp loop, Operation *op) {
    DotOp dot = getSyncDot(loop, op);
    if (!dot)
      return nullptr;
    auto mul = dot.getAcc().getDefiningOp<arith::MulFOp>();
    if (!mul || mul->getBlock() != loop.getBody() || !mul->hasOneUse())
      return nullptr;
    // A register A (P) is read until the next iteration's wait. It must come
    // from another dot of the body (S = Q K^T, synchronous: its
    // wgmma.wait_group 0 retires this dot too), so that the next P cannot be
    // computed while this dot still reads the registers of the current one.
    if (isa<RankedTensorType>(dot.getA().getType()) && !dependsOnOtherDot(loop, dot))
      return nullptr;
    for (OpOperand &use : mul->getOpOperands())
      if (isYieldedBack(loop, use.get(), dot))
        return &use;
    return nullptr;
  }

  /// A rescaled carried dot becomes async as Triton issues attention's P @ V:
  /// nothing waits for it in its own iteration; the next iteration retires it
  /// right before the rescale (`txl.dot_wait 0` on the carried value, after
  /// that iteration's QK^T has been issued and waited for), so the tensor
  /// cores run P @ V while the threads issue the next copies and QK^T. The
  /// ring slot it reads stays busy one iteration longer (buffersFor). Its
  /// register A (P) needs no tie across the iterations: the next P is
  /// computed from the next S, after S's wgmma.wait_group 0 has retired this
  /// dot (getRescale), and ptxas keeps the registers of an in-flight wgmma.
  void makeRescaledAsync(IRRewriter &rw, scf::ForOp loop, DotOp dot) {
    OpOperand *use = rescaledAsync ? getRescale(loop, dot) : nullptr;
    if (!use)
      return;
    auto arg = cast<BlockArgument>(use->get());
    Operation *mul = use->getOwner();
    dot.setAsync(true);
    rw.setInsertionPoint(mul);
    auto retire = DotWaitOp::create(rw, dot.getLoc(), 0, ValueRange{arg});
    rw.modifyOpInPlace(mul, [&] { use->set(retire.getResult(0)); });
    rw.setInsertionPointAfter(loop);
    Value result = loop.getResult(arg.getArgNumber() - 1);
    auto wait = DotWaitOp::create(rw, dot.getLoc(), 0, ValueRange{result});
    rw.replaceAllUsesExcept(result, wait.getResult(0), wait);
    getOperation()->setAttr(kRescaledAsyncAttrName, rw.getUnitAttr());
    ++numAsyncDots;
  }

  /// A carried dot becomes async: `txl.dot_wait 1` after it, `txl.dot_wait 0`
  /// on the loop's result.
  void makeAsync(IRRewriter &rw, scf::ForOp loop, DotOp dot) {
    if (!isCarriedDot(loop, dot))
      return;
    unsigned i = cast<BlockArgument>(dot.getAcc()).getArgNumber() - 1;
    dot.setAsync(true);
    rw.setInsertionPointAfter(dot);
    DotWaitOp::create(rw, dot.getLoc(), 1, ValueRange());
    rw.setInsertionPointAfter(loop);
    Value result = loop.getResult(i);
    auto wait = DotWaitOp::create(rw, dot.getLoc(), 0, ValueRange{result});
    rw.replaceAllUsesExcept(result, wait.getResult(0), wait);
    ++numAsyncDots;
  }
};
} // namespace
