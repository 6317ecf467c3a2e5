//===- AllocateScratch.cpp - shared memory for conversions and reductions -===//
//
// Register-tile ops that exchange data between warps through shared memory:
// a txl.relayout whose LinearLayouts disagree on the warp bases (or that no
// warp shuffle can do), a txl.reduce, scan, sort or flip whose warps split
// the axis, and an atomic whose old values are used by threads that did not update them
// (a tile its layout copies across threads, a scalar: see visitAtomic).
// The tile lowering (convert-txl-to-nvvm) does the exchange; this pass gives
// it the memory, as a txl.smem_alloc that SmemAllocs then plans like any
// other buffer, and checks that the exchange can be synchronized.
//
// Groups. A layout spans W warps (its warp index is taken modulo W), so the
// warps of the CTA form groups of W that each hold a copy of the tile and
// run the op independently, possibly at different times (warp
// specialization). Each group gets its own stage of the allocation:
//
//   %s = txl.smem_alloc : !txl.smem<shape x T, stages = G>
//   %g = (txl.warp_id / W) - first        // the group of this warp
//   %v = txl.get_buffer %s[%g]
//   %r = txl.relayout %x scratch(%v : ...) : ...
//
// G counts the groups that can run the op: all of the CTA's, or only those
// of the warpgroups (warps) of an enclosing `scf.if txl.is_warpgroup`
// (`txl.is_warp`) region. The allocation is placed just before the op, so
// inside a loop or a warp-specialized region it is live for the whole kernel
// in the shared-memory plan (SmemAllocs' rule for nested buffers) and never
// shares bytes with a buffer another warpgroup may be using meanwhile.
//
// Barriers. The lowering synchronizes exactly the W warps of a group: one
// warp with bar.warp.sync, a warpgroup with named barrier 1 + warpgroup id
// (128 threads; tma_store_wait uses the same id), a layout spanning the
// whole CTA with barrier 0. Other group sizes have no reserved barrier, and
// barrier 0 inside a warp-specialized region would wait for warps that never
// come: both are reported here.
//
// Padding. A relayout's scratch holds the tile row-major with each row
// padded by P elements. P is chosen by simulating the shared-memory bank
// conflicts of one warp's stores (source layout) and loads (destination
// layout), with the vector width the lowering will use, for P in
// {0, v, 2v, 4v, 8v} (v: the wider of the two vector widths, so padded rows
// keep vectors aligned) and picking the cheapest, then the smallest. Example:
// a 64x128 f32 wgmma accumulator (8-byte stores, lanes 4 apart in a row, 8
// rows) to a blocked layout (16-byte loads along rows) pads rows by 8
// elements: rows then start 8 banks apart and the stores are conflict-free.
//
//===----------------------------------------------------------------------===//

#include "txl/Analysis/LoweringUtils.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLALLOCATESCRATCH
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;
using Coord = LinearLayout::Coord;

namespace {

/// The integer or float type a tile element is kept as in shared memory
/// (i1 as a byte, pointers as i64), or null.
Type storageType(Type elt) {
  MLIRContext *ctx = elt.getContext();
  if (isa<PtrType>(elt) || elt.isIndex())
    return IntegerType::get(ctx, 64);
  if (elt.isInteger(1))
    return IntegerType::get(ctx, 8);
  if (elt.isIntOrFloat()) {
    unsigned bits = elt.getIntOrFloatBitWidth();
    if (bits == 8 || bits == 16 || bits == 32 || bits == 64)
      return elt;
  }
  return {};
}

int64_t storageBytes(Type elt) { return storageType(elt).getIntOrFloatBitWidth() / 8; }

/// Elements one thread moves per shared-memory access along the last
/// dimension (at most 16 bytes).
int64_t vectorWidth(const LinearLayout &layout, int64_t elemBytes) {
  unsigned last = layout.getShape().size() - 1;
  return std::min<int64_t>(layout.getContiguousRegs(last), std::max<int64_t>(1, 16 / elemBytes));
}

/// Shared-memory wavefronts one warp of `layout` needs to access every
/// register of its tile stored row-major with rows of `rowElems` elements,
/// `vec` elements per access. A warp's access is served in phases (all 32
/// lanes for 4-byte accesses, 16 for 8-byte, 8 for 16-byte); a phase takes
/// as many wavefronts as the most distinct 4-byte words any bank holds.
int64_t wavefronts(const LinearLayout &layout, int64_t rowElems, int64_t elemBytes, int64_t vec) {
  ArrayRef<int64_t> shape = layout.getShape();
  size_t rank = shape.size();
  auto byteOffset = [&](const Coord &c) {
    int64_t row = 0;
    for (size_t d = 0; d + 1 < rank; ++d)
      row = row * shape[d] + c[d];
    return (row * rowElems + c[rank - 1]) * elemBytes;
  };
  int64_t accessBytes = vec * elemBytes;
  int64_t lanesPerPhase = 32 / std::max<int64_t>(1, accessBytes / 4);
  int64_t total = 0;
  for (int64_t r = 0; r < layout.getNumRegs(); r += vec) {
    for (int64_t first = 0; first < layout.getNumLanes(); first += lanesPerPhase) {
      DenseMap<int64_t, llvm::DenseSet<int64_t>> words; // bank -> words
      for (int64_t l = first; l < std::min(first + lanesPerPhase, layout.getNumLanes()); ++l) {
        int64_t addr = byteOffset(layout.apply(r, l, 0));
        for (int64_t w = addr / 4; w <= (addr + accessBytes - 1) / 4; ++w)
          words[w % 32].insert(w);
      }
      int64_t worst = 1;
      for (auto &[bank, set] : words)
        worst = std::max<int64_t>(worst, set.size());
      total += worst;
    }
  }
  return total;
}

/// Elements added to each row of a relayout's scratch (see the file comment).
int64_t choosePadding(const LinearLayout &src, const LinearLayout &dst, int64_t elemBytes) {
  ArrayRef<int64_t> shape = src.getShape();
  if (shape.size() < 2)
    return 0; // one row: nothing to stagger
  int64_t inVec = vectorWidth(src, elemBytes), outVec = vectorWidth(dst, elemBytes);
  int64_t unit = std::max(inVec, outVec);
  int64_t best = 0, bestCost = INT64_MAX;
  for (int64_t k : {0, 1, 2, 4, 8}) {
    int64_t pad = k * unit;
    int64_t row = shape.back() + pad;
    int64_t cost = wavefronts(src, row, elemBytes, inVec) + wavefronts(dst, row, elemBytes, outVec);
    if (cost < bestCost) {
      best = pad;
      bestCost = cost;
    }
  }
  return best;
}

/// The groups of W warps that can run `op`: [first, first + count).
struct GroupRange {
  int64_t first = 0, count = 0;
  bool inRoleRegion = false;
};

GroupRange groupsRunning(Operation *op, int64_t groupWarps, int64_t kernelWarps) {
  GroupRange range{0, kernelWarps / groupWarps, false};
  // The innermost role region that holds `op` in its then-branch.
  for (Operation *parent = op->getParentOp(); parent; parent = parent->getParentOp()) {
    auto ifOp = dyn_cast<scf::IfOp>(parent);
    if (!ifOp)
      continue;
    Operation *cond = ifOp.getCondition().getDefiningOp();
    if (!isa_and_present<IsWarpgroupOp, IsWarpOp>(cond))
      continue;
    range.inRoleRegion = true;
    if (!ifOp.getThenRegion().isAncestor(op->getParentRegion()))
      return range; // the else branch: the other roles, any group
    ArrayRef<int32_t> ids = isa<IsWarpgroupOp>(cond) ? cast<IsWarpgroupOp>(cond).getIds()
                                                     : cast<IsWarpOp>(cond).getIds();
    int64_t warpsPerId = isa<IsWarpgroupOp>(cond) ? 4 : 1;
    if (ids.empty() || groupWarps > warpsPerId)
      return range;
    auto [lo, hi] = std::minmax_element(ids.begin(), ids.end());
    range.first = int64_t(*lo) * warpsPerId / groupWarps;
    range.count = (int64_t(*hi) + 1) * warpsPerId / groupWarps - range.first;
    return range;
  }
  return range;
}

class ScratchAllocator {
public:
  ScratchAllocator(func::FuncOp func) : func(func) {
    if (auto n = func->getAttrOfType<IntegerAttr>(kNumWarpsAttrName))
      kernelWarps = n.getInt();
  }

  /// Gives `op` a view of a new scratch of `viewType` for groups of
  /// `groupWarps` warps, through `setScratch`.
  LogicalResult allocate(Operation *op, SmemType viewType, int64_t groupWarps,
                         function_ref<void(Value)> setScratch) {
    if (groupWarps > kernelWarps || kernelWarps % groupWarps != 0)
      return op->emitOpError() << "uses a layout spanning " << groupWarps
                               << " warps in a kernel of " << kernelWarps << " warps";
    GroupRange groups = groupsRunning(op, groupWarps, kernelWarps);
    bool wholeCta = groupWarps == kernelWarps;
    if (groupWarps != 1 && groupWarps != 4 && !wholeCta)
      return op->emitOpError()
             << "exchanges data between the " << groupWarps
             << " warps of its layout through shared memory, but only one warp, one warpgroup "
                "(4 warps) or the whole CTA has a barrier to synchronize them; use a layout "
                "over 1 or 4 warps";
    if (wholeCta && groupWarps != 4 && groupWarps != 1 && groups.inRoleRegion)
      return op->emitOpError()
             << "exchanges data over all " << groupWarps
             << " warps of the CTA (barrier 0) inside a warp-specialized region, where the "
                "other warps never arrive; use a layout over one warpgroup (4 warps)";

    OpBuilder b(op);
    Location loc = op->getLoc();
    auto allocType = SmemType::get(func.getContext(), viewType.getShape(),
                                   viewType.getElementType(), groups.count, Attribute());
    Value alloc = SmemAllocOp::create(b, loc, allocType, /*mutable_=*/false);
    Value index;
    if (groups.count == 1) {
      index = arith::ConstantIntOp::create(b, loc, 0, 32);
    } else {
      Value warp = WarpIdOp::create(b, loc, b.getI32Type());
      index = arith::DivUIOp::create(b, loc, warp,
                                     arith::ConstantIntOp::create(b, loc, groupWarps, 32));
      if (groups.first)
        index = arith::SubIOp::create(b, loc, index,
                                      arith::ConstantIntOp::create(b, loc, groups.first, 32));
    }
    setScratch(GetBufferOp::create(b, loc, alloc, index));
    return success();
  }

  LogicalResult run(Pass::Statistic &numScratch) {
    WalkResult result = func.walk([&](Operation *op) {
      LogicalResult done = success();
      if (auto rl = dyn_cast<RelayoutOp>(op))
        done = visitRelayout(rl, numScratch);
      else if (auto red = dyn_cast<ReduceOp>(op))
        done = visitReduce(red, numScratch);
      else if (auto scan = dyn_cast<ScanOp>(op))
        done = visitAxisExchange(
            op, scan.getSrcs(), scan.getAxis(), scan.getScratch(),
            [&](Value v) { scan.getScratchMutable().assign(v); }, numScratch);
      else if (auto sort = dyn_cast<SortOp>(op))
        done = visitAxisExchange(
            op, sort.getSrc(), sort.getAxis(), sort.getScratch(),
            [&](Value v) { sort.getScratchMutable().assign(v); }, numScratch);
      else if (auto flip = dyn_cast<FlipOp>(op))
        done = visitAxisExchange(
            op, flip.getSrc(), flip.getAxis(), flip.getScratch(),
            [&](Value v) { flip.getScratchMutable().assign(v); }, numScratch);
      else if (isa<AtomicRMWOp, AtomicCASOp>(op))
        done = visitAtomic(op, numScratch);
      else if (auto gather = dyn_cast<GatherOp>(op))
        done = visitGather(gather, numScratch);
      else if (auto hist = dyn_cast<HistogramOp>(op))
        done = visitHistogram(hist, numScratch);
      return failed(done) ? WalkResult::interrupt() : WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

private:
  func::FuncOp func;
  int64_t kernelWarps = 4;

  /// A gather reads elements other threads hold: its source goes through a
  /// scratch of the source's shape (unpadded), synchronized over the warps
  /// of the source and index layouts.
  /// The warps a scratch buffer shared by two tiles is synchronized over
  /// (the more of the two layouts'); none while either has no layout.
  static std::optional<int64_t> warpsOfBoth(RankedTensorType a, RankedTensorType b) {
    auto la = LinearLayout::get(a.getShape(), a.getEncoding());
    auto lb = LinearLayout::get(b.getShape(), b.getEncoding());
    if (failed(la) || failed(lb))
      return std::nullopt;
    return std::max<int64_t>(la->getNumWarps(), lb->getNumWarps());
  }

  LogicalResult visitGather(GatherOp op, Pass::Statistic &numScratch) {
    if (op.getScratch())
      return success();
    auto srcType = op.getSrc().getType();
    std::optional<int64_t> warps = warpsOfBoth(srcType, op.getIndex().getType());
    if (!warps)
      return success(); // convert-txl-to-nvvm reports tiles without layouts
    Type storage = storageType(srcType.getElementType());
    if (!storage)
      return op.emitOpError() << "cannot move " << srcType.getElementType()
                              << " elements through shared memory";
    auto view = SmemType::get(op.getContext(), srcType.getShape(), storage, 0, Attribute());
    ++numScratch;
    return allocate(op, view, *warps, [&](Value v) { op.getScratchMutable().assign(v); });
  }

  /// A histogram counts in shared memory: num_bins i32, synchronized over
  /// the warps of the source and result layouts.
  LogicalResult visitHistogram(HistogramOp op, Pass::Statistic &numScratch) {
    if (op.getScratch())
      return success();
    auto dstType = op.getType();
    std::optional<int64_t> warps = warpsOfBoth(op.getSrc().getType(), dstType);
    if (!warps)
      return success(); // convert-txl-to-nvvm reports tiles without layouts
    auto view = SmemType::get(op.getContext(), dstType.getShape(), dstType.getElementType(), 0,
                              Attribute());
    ++numScratch;
    return allocate(op, view, *warps, [&](Value v) { op.getScratchMutable().assign(v); });
  }

  LogicalResult visitRelayout(RelayoutOp op, Pass::Statistic &numScratch) {
    if (op.getScratch())
      return success();
    auto srcType = op.getSrc().getType(), dstType = op.getType();
    auto src = LinearLayout::get(srcType.getShape(), srcType.getEncoding());
    auto dst = LinearLayout::get(dstType.getShape(), dstType.getEncoding());
    if (failed(src) || failed(dst))
      return success(); // convert-txl-to-nvvm reports tiles without layouts
    if (src->classifyConversionTo(*dst) != LinearLayout::Conversion::SharedMemory)
      return success();
    Type storage = storageType(srcType.getElementType());
    if (!storage)
      return op.emitOpError() << "cannot move " << srcType.getElementType()
                              << " elements through shared memory";
    SmallVector<int64_t> shape(srcType.getShape());
    shape.back() += choosePadding(*src, *dst, storageBytes(srcType.getElementType()));
    auto view = SmemType::get(op.getContext(), shape, storage, 0, Attribute());
    int64_t warps = std::max(src->getNumWarps(), dst->getNumWarps());
    ++numScratch;
    return allocate(op, view, warps, [&](Value v) { op.getScratchMutable().assign(v); });
  }

  /// An atomic updates each element once: a scalar in the first thread of
  /// each group of warps that runs it (recorded as txl.group_warps), a tile
  /// element in one of the threads its layout holds it in. When the old
  /// values are used and other threads hold them too, the updating thread
  /// hands them over through a scratch (tile-shaped, or one element).
  LogicalResult visitAtomic(Operation *op, Pass::Statistic &numScratch) {
    Value ptr = op->getOperand(0), result = op->getResult(0);
    Value scratch = isa<AtomicRMWOp>(op) ? cast<AtomicRMWOp>(op).getScratch()
                                         : cast<AtomicCASOp>(op).getScratch();
    auto setScratch = [&](Value v) {
      if (auto rmw = dyn_cast<AtomicRMWOp>(op))
        rmw.getScratchMutable().assign(v);
      else
        cast<AtomicCASOp>(op).getScratchMutable().assign(v);
    };
    Type elt = getElementTypeOrSelf(result.getType());
    int64_t groupWarps;
    SmallVector<int64_t> shape{1};
    if (auto tile = dyn_cast<RankedTensorType>(ptr.getType())) {
      auto layout = LinearLayout::get(tile.getShape(), tile.getEncoding());
      if (failed(layout))
        return success(); // convert-txl-to-nvvm reports tiles without layouts
      bool duplicated = false;
      for (const Coord &basis :
           llvm::concat<const Coord>(layout->getLaneBases(), layout->getWarpBases()))
        duplicated |= llvm::all_of(basis, [](int64_t c) { return c == 0; });
      if (!duplicated)
        return success();
      groupWarps = layout->getNumWarps();
      shape.assign(tile.getShape().begin(), tile.getShape().end());
    } else {
      // The role that runs one copy of the body (a warpgroup; all 8 warps of
      // a num_warps = 8 kernel, txl.role_warps: one owner per warpgroup
      // there would take a spin lock twice and hang), or the warp of a
      // txl.is_warp region, or the whole CTA of a kernel of fewer than 4 warps.
      groupWarps = std::min<int64_t>(getRoleWarps(op), kernelWarps);
      for (Operation *p = op->getParentOp(); p; p = p->getParentOp()) {
        auto ifOp = dyn_cast<scf::IfOp>(p);
        if (!ifOp)
          continue;
        Operation *cond = ifOp.getCondition().getDefiningOp();
        if (isa_and_present<IsWarpOp>(cond) &&
            ifOp.getThenRegion().isAncestor(op->getParentRegion()))
          groupWarps = 1;
        if (isa_and_present<IsWarpOp, IsWarpgroupOp>(cond))
          break;
      }
      op->setAttr("txl.group_warps",
                  IntegerAttr::get(IntegerType::get(op->getContext(), 32), groupWarps));
    }
    if (scratch || result.use_empty())
      return success();
    Type storage = storageType(elt);
    if (!storage)
      return op->emitOpError() << "cannot hand " << elt << " values to other threads";
    auto view = SmemType::get(op->getContext(), shape, storage, 0, Attribute());
    ++numScratch;
    return allocate(op, view, groupWarps, setScratch);
  }

  LogicalResult visitReduce(ReduceOp op, Pass::Statistic &numScratch) {
    if (op.getScratch())
      return success();
    auto srcType = cast<RankedTensorType>(op.getSrcs()[0].getType());
    auto src = LinearLayout::get(srcType.getShape(), srcType.getEncoding());
    if (failed(src))
      return success();
    unsigned axis = op.getAxis();
    int64_t partials = 1;
    for (const Coord &basis : src->getWarpBases())
      if (basis[axis] != 0)
        partials *= 2;
    if (partials == 1)
      return success(); // combined within each warp
    int64_t outputs = 1;
    for (auto [d, size] : llvm::enumerate(srcType.getShape()))
      if (d != axis)
        outputs *= size;
    SmallVector<int64_t> bytes;
    for (Value s : op.getSrcs()) {
      Type elt = cast<RankedTensorType>(s.getType()).getElementType();
      if (!storageType(elt))
        return op.emitOpError() << "cannot combine " << elt << " partial results across warps";
      bytes.push_back(storageBytes(elt));
    }
    int64_t total = getReduceScratchOffset(bytes, bytes.size(), partials, outputs);
    auto view = SmemType::get(op.getContext(), {total}, IntegerType::get(op.getContext(), 8), 0,
                              Attribute());
    ++numScratch;
    return allocate(op, view, src->getNumWarps(),
                    [&](Value v) { op.getScratchMutable().assign(v); });
  }

  /// A scan, sort or flip whose warps split the axis exchanges values between
  /// warps: one tile-shaped region per operand (getReduceScratchOffset with a
  /// single partial over every element), written and read whole at each
  /// warp step.
  LogicalResult visitAxisExchange(Operation *op, ValueRange srcs, unsigned axis, Value scratch,
                                  function_ref<void(Value)> setScratch,
                                  Pass::Statistic &numScratch) {
    if (scratch)
      return success();
    auto srcType = cast<RankedTensorType>(srcs[0].getType());
    auto src = LinearLayout::get(srcType.getShape(), srcType.getEncoding());
    if (failed(src))
      return success();
    if (llvm::none_of(src->getWarpBases(), [&](const Coord &b) { return b[axis] != 0; }))
      return success(); // exchanged within each warp
    SmallVector<int64_t> bytes;
    for (Value s : srcs) {
      Type elt = cast<RankedTensorType>(s.getType()).getElementType();
      if (!storageType(elt))
        return op->emitOpError() << "cannot pass " << elt << " values across warps";
      bytes.push_back(storageBytes(elt));
    }
    int64_t total = getReduceScratchOffset(bytes, bytes.size(), 1, srcType.getNumElements());
    auto view = SmemType::get(op->getContext(), {total}, IntegerType::get(op->getContext(), 8), 0,
                              Attribute());
    ++numScratch;
    return allocate(op, view, src->getNumWarps(), setScratch);
  }
};

struct AllocateScratchPass : txl::impl::TXLAllocateScratchBase<AllocateScratchPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(ScratchAllocator(func).run(numScratch)))
        return signalPassFailure();
  }
};

} // namespace
