//===- AssignLayouts.cpp - give every register tile a layout --------------===//
//
// Register tiles are written without layouts; this pass picks one for each.
//
// 1. Classes. Tiles that must share a layout are put in one class (union-
//    find): the operands and results of elementwise ops, broadcasts,
//    addptr/load/store, and the values tied together by scf.for and scf.if
//    (init, region argument, yield, result).
// 2. Anchors. A txl.dot's result and accumulator take the wgmma accumulator
//    layout; a register A operand is routed through a new txl.relayout whose
//    result takes the wgmma operand layout (the softmax output P is in the
//    accumulator layout; for 16-bit A the two are the same linear map, so the
//    relayout lowers to nothing). Layouts written by the kernel author anchor
//    their class too.
//    An epilogue's pointer-tile store of a tile in an accumulator layout
//    (2 consecutive elements per thread) is cut from its class by a
//    txl.relayout when its pointers are contiguous for 16 bytes, so the
//    store takes a coalesced default layout (cutAccumulatorStores).
// 3. Slices. A reduction's result is #txl.slice of its operand's layout and
//    expand_dims' operand a slice of its result's; these relations carry
//    layouts both ways until nothing changes. Where the two ends need
//    layouts that disagree (one offsets vector expanded along rows for a
//    load and along columns against a dot), a txl.relayout cuts the
//    relation and the classes are formed again.
// 4. Renames. txl.trans, txl.reshape, txl.join and txl.split only rename
//    coordinates: each result takes its source's layout moved through the
//    op's coordinate map (a #txl.linear), so the op moves no data. Their
//    operands and results are cut from their classes by new txl.relayouts,
//    so a renamed layout never clashes with the layout the rest of the class
//    needs; a relayout whose class has no layout of its own takes its
//    source's (and then disappears). txl.split's operand needs the split
//    dimension in registers: when its source's layout does not have it
//    there, the operand gets the default layout (a real conversion).
// 5. Defaults. Any class still without a layout gets a blocked layout for
//    its largest tile that reads 16 bytes (of its pointer tiles' pointee)
//    per thread along the contiguous dimension (coalesced global access: the
//    last, or the first where AxisInfo proves the pointers more contiguous
//    there),
//    with the warps of one warpgroup stacked along rows.
//
//===----------------------------------------------------------------------===//

#include "txl/Analysis/AxisInfo.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "txl/Analysis/LoweringUtils.h"
#include "txl/Dialect/TXL/IR/LinearLayout.h"
#include "txl/Dialect/TXL/IR/TXLOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/EquivalenceClasses.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLASSIGNLAYOUTS
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

bool isTile(Value v) { return isa<RankedTensorType>(v.getType()); }

/// A txl.relayout's attribute naming the layout the author gave its result.
constexpr StringLiteral kGivenLayout = "txl.layout";

/// child's layout = #txl.slice<dim, parent's layout>.
struct SliceRelation {
  Value child, parent;
  unsigned dim;
};

class LayoutAssigner {
public:
  LayoutAssigner(func::FuncOp func, unsigned numWarps) : func(func), numWarps(numWarps) {}

  /// Contiguity of pointer tiles (the default layouts' order).
  AxisAnalysis axes;

  LogicalResult run() {
    insertOperandRelayouts();
    insertRenameRelayouts();
    collect();
    if (failed(anchor()))
      return failure();
    if (cutAccumulatorStores() && failed(regroup()))
      return failure();
    // Each slice conflict cuts one relation (cutSlice) and starts over.
    while (true) {
      FailureOr<bool> cut = propagateAndDefault();
      if (failed(cut))
        return failure();
      if (!*cut)
        return apply();
      if (failed(regroup()))
        return failure();
    }
  }

  /// Groups and anchors again after the IR gained relayouts (cut values
  /// start classes of their own).
  LogicalResult regroup() {
    classes = {};
    tiles.clear();
    slices.clear();
    layoutOf.clear();
    anchoredBy.clear();
    collect();
    return anchor();
  }

private:
  func::FuncOp func;
  unsigned numWarps;
  llvm::EquivalenceClasses<Value> classes;
  SmallVector<Value> tiles;
  SmallVector<SliceRelation> slices;
  /// Layout of each class, keyed by its leader.
  DenseMap<Value, Attribute> layoutOf;
  /// Anchors found, with the op that set them (for diagnostics).
  DenseMap<Value, Operation *> anchoredBy;
  /// txl.trans / reshape / join / split, and the operands of the splits.
  SmallVector<Operation *> renames;
  DenseSet<Value> splitOperands;

  void addTile(Value v) {
    if (!isTile(v))
      return;
    classes.insert(v);
    tiles.push_back(v);
  }
  void unite(Value a, Value b) {
    if (isTile(a) && isTile(b))
      classes.unionSets(a, b);
  }
  Value leader(Value v) { return classes.getLeaderValue(v); }

  /// The dots that run on mma.sync (usesMmaSync, for the warps the layouts
  /// span here).
  bool isMmaSync(DotOp dot) const {
    return usesMmaSync(cast<ShapedType>(dot.getAcc().getType()).getDimSize(0), numWarps);
  }

  /// Register operands of txl.dot get their own value (and layout): A of
  /// wgmma; A and B of mma.sync, which reads both from registers (a shared
  /// view is loaded into them).
  void insertOperandRelayouts() {
    func.walk([&](DotOp dot) {
      bool sync = isMmaSync(dot);
      for (OpOperand *operand : {&dot.getAMutable(), &dot.getBMutable()}) {
        if (operand->getOperandNumber() == 1 && !sync)
          continue;
        Value v = operand->get();
        OpBuilder b(dot);
        if (auto view = dyn_cast<SmemType>(v.getType())) {
          if (sync)
            operand->set(SmemLoadOp::create(
                b, dot.getLoc(), RankedTensorType::get(view.getShape(), view.getElementType()), v));
          continue;
        }
        if (!v.getDefiningOp<RelayoutOp>())
          operand->set(RelayoutOp::create(b, dot.getLoc(), v.getType(), v));
      }
    });
  }

  /// A pointer-tile store of a tile in an mma accumulator layout writes 2
  /// consecutive elements per thread (4 bytes of f16: a warp's store covers
  /// 8 rows x 16 bytes); in the store's own class, a default layout writes
  /// 16 bytes per thread along the pointers' contiguous dimension. As in
  /// Triton, the value goes through a txl.relayout (a shared-memory round
  /// trip) to that layout: the GEMM epilogue's C tile, attention's output.
  /// Only stores after every loop (an epilogue, whose scratch then reuses
  /// the bytes of the loops' rings) of kernels without warp roles (whose
  /// buffers all stay live, txl-smem-allocs), and only while the kernel's
  /// buffers and the scratch would fit side by side: elsewhere the scratch
  /// could push shared memory past 227 KB (TXL-style attention kernels).
  /// Returns whether it cut any store.
  bool cutAccumulatorStores() {
    if (isWarpSpecialized(func))
      return false;
    int64_t smemBytes = 0;
    func.walk([&](SmemAllocOp alloc) { smemBytes += alloc.getType().getTotalBytes(); });
    bool cut = false;
    func.walk([&](StoreOp store) {
      auto tile = dyn_cast<RankedTensorType>(store.getValue().getType());
      if (!tile || tile.getRank() != 2 || store.getValue().getDefiningOp<RelayoutOp>() ||
          store->getParentOfType<LoopLikeOpInterface>())
        return;
      if (!isa_and_nonnull<NVMMAAttr>(layoutOf.lookup(leader(store.getValue()))))
        return;
      // Worth it only where the pointers allow 16-byte stores (contiguous
      // and aligned) along either dimension.
      auto ptrs = cast<RankedTensorType>(store.getPtr().getType());
      int64_t eltBytes = getElementBitWidth(tile.getElementType()) / 8;
      int64_t run =
          std::max(getAlignedRun(axes, store.getPtr()), getAlignedRun(axes, store.getPtr(), 0));
      if (eltBytes == 0 || run * eltBytes < 16 || ptrs.getShape() != tile.getShape() ||
          smemBytes + tile.getNumElements() * eltBytes > kMaxSharedBytes)
        return;
      smemBytes += tile.getNumElements() * eltBytes;
      OpBuilder b(store);
      Value v = store.getValue();
      auto relayout = RelayoutOp::create(b, store.getLoc(), v.getType(), v);
      store.getValueMutable().assign(relayout);
      storeCuts.insert(relayout);
      cut = true;
    });
    return cut;
  }

  /// The relayouts cutAccumulatorStores made: their classes take the
  /// default layout, not their source's.
  DenseSet<Operation *> storeCuts;

  /// Cuts the operands and results of the renaming ops from their classes
  /// (see 4. in the header).
  void insertRenameRelayouts() {
    auto relayoutBefore = [](Operation *op, OpOperand &operand) {
      OpBuilder b(op);
      Value v = operand.get();
      operand.set(RelayoutOp::create(b, op->getLoc(), v.getType(), v));
    };
    func.walk([&](Operation *op) {
      if (!isa<TransOp, ReshapeOp, JoinOp, SplitOp>(op))
        return;
      renames.push_back(op);
      if (isa<JoinOp, SplitOp>(op))
        for (OpOperand &operand : op->getOpOperands())
          if (!operand.get().getDefiningOp<RelayoutOp>())
            relayoutBefore(op, operand);
      if (auto split = dyn_cast<SplitOp>(op))
        splitOperands.insert(split.getSrc());
      OpBuilder b(op->getContext());
      b.setInsertionPointAfter(op);
      for (Value r : op->getResults()) {
        if (r.hasOneUse() && isa<RelayoutOp>(*r.user_begin()))
          continue;
        auto cut = RelayoutOp::create(b, op->getLoc(), r.getType(), r);
        r.replaceAllUsesExcept(cut.getResult(), cut);
      }
    });
  }

  /// The layout a renaming op's results get from its source's `layout`.
  FailureOr<Attribute> renamedLayout(Operation *op, Attribute layout) {
    auto src = cast<RankedTensorType>(op->getOperand(0).getType());
    auto dst = cast<RankedTensorType>(op->getResult(0).getType());
    std::string why;
    auto ll = LinearLayout::get(src.getShape(), layout, &why);
    if (failed(ll))
      return op->emitOpError() << "cannot lay out its source " << src << ": " << why;
    std::optional<LinearLayout> out;
    if (auto trans = dyn_cast<TransOp>(op))
      out = ll->transposed(trans.getOrder());
    else if (isa<ReshapeOp>(op))
      out = ll->reshaped(dst.getShape());
    else if (isa<JoinOp>(op))
      out = ll->joined();
    else
      out = ll->splitLast();
    if (!out)
      return op->emitOpError() << "source layout " << layout
                               << " does not hold the split dimension in registers";
    return out->toAttr(op->getContext());
  }

  /// Whether `layout` holds the last dimension of `v`'s tile in registers.
  static bool splittable(Value v, Attribute layout) {
    auto ll = LinearLayout::get(cast<RankedTensorType>(v.getType()).getShape(), layout);
    return succeeded(ll) && ll->splitLast().has_value();
  }

  void collect() {
    func.walk([&](Operation *op) {
      for (Value r : op->getResults())
        addTile(r);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            addTile(arg);
      // Same layout for all tile operands and results.
      // (a scan, sort or flip exchanges elements in place; an atomic's
      // pointers, values, mask and old values are element for element.)
      bool sameLayout = op->hasTrait<mlir::OpTrait::Elementwise>() ||
                        isa<BroadcastOp, AddPtrOp, LoadOp, StoreOp, AsyncLoadOp, ScanOp, SortOp,
                            FlipOp, AtomicRMWOp, AtomicCASOp>(op);
      if (sameLayout) {
        Value first;
        for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults())) {
          if (!isTile(v))
            continue;
          if (first)
            unite(first, v);
          else
            first = v;
        }
      }
      // A gather's result is element for element its index (its source is
      // read through shared memory, in any layout).
      if (auto gather = dyn_cast<GatherOp>(op))
        unite(gather.getIndex(), gather.getResult());
      // A histogram's mask is element for element its source.
      if (auto hist = dyn_cast<HistogramOp>(op); hist && hist.getMask())
        unite(hist.getSrc(), hist.getMask());
      if (auto dot = dyn_cast<DotOp>(op))
        unite(dot.getAcc(), dot.getResult());
      if (auto wait = dyn_cast<DotWaitOp>(op))
        for (auto [in, out] : llvm::zip(wait.getInputs(), wait.getOutputs()))
          unite(in, out);
      if (auto forOp = dyn_cast<scf::ForOp>(op)) {
        auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
        for (auto [i, init] : llvm::enumerate(forOp.getInitArgs())) {
          unite(init, forOp.getRegionIterArgs()[i]);
          unite(init, yield.getOperand(i));
          unite(init, forOp.getResult(i));
        }
      }
      if (auto whileOp = dyn_cast<scf::WhileOp>(op)) {
        auto cond = whileOp.getConditionOp();
        auto yield = whileOp.getYieldOp();
        for (auto [i, init] : llvm::enumerate(whileOp.getInits())) {
          unite(init, whileOp.getBeforeArguments()[i]);
          unite(init, yield.getOperand(i));
        }
        for (auto [i, r] : llvm::enumerate(whileOp.getResults())) {
          unite(r, cond.getArgs()[i]);
          unite(r, whileOp.getAfterArguments()[i]);
        }
      }
      if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
        for (auto [i, r] : llvm::enumerate(ifOp.getResults())) {
          unite(r, ifOp.thenYield().getOperand(i));
          if (!ifOp.getElseRegion().empty())
            unite(r, ifOp.elseYield().getOperand(i));
        }
      }
      if (auto reduce = dyn_cast<ReduceOp>(op)) {
        // The operands of one reduction (values and indices of an argmax) are
        // combined register by register: one layout.
        for (auto [src, res] : llvm::zip(reduce.getSrcs(), reduce.getResults())) {
          unite(reduce.getSrcs().front(), src);
          if (isTile(res))
            slices.push_back({res, src, static_cast<unsigned>(reduce.getAxis())});
        }
      }
      if (auto join = dyn_cast<JoinOp>(op))
        unite(join.getLhs(), join.getRhs());
      if (auto expand = dyn_cast<ExpandDimsOp>(op))
        slices.push_back(
            {expand.getSrc(), expand.getResult(), static_cast<unsigned>(expand.getAxis())});
    });
  }

  /// Whether two layouts distribute tiles alike. A #txl.nvmma's instrShape
  /// only records the instruction of the dot that placed it (the lowering
  /// reads the dot's own shapes): two dots of different N, e.g. the masked
  /// and the full blocks of Triton's attention backward, whose row
  /// statistics meet in one class, agree.
  static bool sameDistribution(Attribute a, Attribute b) {
    if (a == b)
      return true;
    if (auto ma = dyn_cast<NVMMAAttr>(a))
      if (auto mb = dyn_cast<NVMMAAttr>(b))
        return ma.getVersion() == mb.getVersion() && ma.getWarpsPerCTA() == mb.getWarpsPerCTA();
    if (auto oa = dyn_cast<DotOperandAttr>(a))
      if (auto ob = dyn_cast<DotOperandAttr>(b))
        return oa.getOpIdx() == ob.getOpIdx() && oa.getKWidth() == ob.getKWidth() &&
               sameDistribution(oa.getParent(), ob.getParent());
    if (auto sa = dyn_cast<SliceAttr>(a))
      if (auto sb = dyn_cast<SliceAttr>(b))
        return sa.getDim() == sb.getDim() && sameDistribution(sa.getParent(), sb.getParent());
    return false;
  }

  LogicalResult setAnchor(Value v, Attribute layout, Operation *by) {
    Value l = leader(v);
    auto it = layoutOf.find(l);
    if (it != layoutOf.end() && sameDistribution(it->second, layout))
      return success(); // the first anchor's attribute stays
    if (it != layoutOf.end()) {
      InFlightDiagnostic diag = by->emitOpError()
                                << "needs layout " << layout << " for a tile that "
                                << *anchoredBy[l] << " already placed in " << it->second
                                << "; insert a txl.relayout between them";
      return failure();
    }
    layoutOf[l] = layout;
    anchoredBy[l] = by;
    return success();
  }

  /// mma.sync (m16n8k16): warps split M in 16-row blocks first, then N in
  /// 8-column blocks (#txl.nvmma version 2); A and B in its register
  /// operand layouts.
  LogicalResult anchorMmaSync(DotOp dot) {
    MLIRContext *ctx = func.getContext();
    auto acc = cast<RankedTensorType>(dot.getAcc().getType());
    Type in = getElementTypeOrSelf(dot.getA().getType());
    if (!in.isF16() && !in.isBF16())
      return dot.emitOpError() << "M = " << acc.getDimSize(0)
                               << " runs on mma.sync (wgmma needs M a multiple of " << 16 * numWarps
                               << " with " << numWarps
                               << " warps), which txl supports for fp16 and bf16 operands; got "
                               << in << ": use a BLOCK_M that is a multiple of " << 16 * numWarps
                               << ", or convert the operands to fp16/bf16";
    if (!acc.getElementType().isF32())
      return dot.emitOpError() << "mma.sync accumulates in f32 here, got " << acc.getElementType();
    // (A power of two: a 48-row tile is refused where it is distributed.)
    auto wm = static_cast<unsigned>(getMmaSyncWarpsAlongM(acc.getDimSize(0), numWarps));
    auto mma = NVMMAAttr::get(ctx, 2, {wm, numWarps / wm}, {16, 8, 16});
    if (failed(setAnchor(dot.getResult(), mma, dot)) ||
        failed(setAnchor(dot.getA(), DotOperandAttr::get(ctx, 0, mma, 2), dot)) ||
        failed(setAnchor(dot.getB(), DotOperandAttr::get(ctx, 1, mma, 2), dot)))
      return failure();
    return success();
  }

  LogicalResult anchor() {
    // Layouts the author wrote.
    for (Value v : tiles)
      if (Attribute enc = cast<RankedTensorType>(v.getType()).getEncoding())
        if (failed(setAnchor(
                v, enc, v.getDefiningOp() ? v.getDefiningOp() : v.getParentBlock()->getParentOp())))
          return failure();
    // ... and those it gave a tile by a txl.relayout {txl.layout = L} (Gluon's
    // layout= and convert_layout): the relayout's result class is L.
    WalkResult given = func.walk([&](RelayoutOp op) {
      if (Attribute layout = op->getAttr(kGivenLayout))
        if (failed(setAnchor(op.getResult(), layout, op)))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (given.wasInterrupted())
      return failure();
    MLIRContext *ctx = func.getContext();
    WalkResult result = func.walk([&](DotOp dot) {
      auto acc = cast<RankedTensorType>(dot.getAcc().getType());
      if (isMmaSync(dot))
        return failed(anchorMmaSync(dot)) ? WalkResult::interrupt() : WalkResult::advance();
      auto bType = dyn_cast<SmemType>(dot.getB().getType());
      if (!bType) {
        dot.emitOpError() << "B is a register tile; wgmma reads B from shared memory, so "
                             "txl-lower-tile-copies must stage it first (run "
                             "--txl-lower-tile-copies before --txl-assign-layouts)";
        return WalkResult::interrupt();
      }
      // numWarps / 4 warpgroups split M in 64-row wgmma blocks (Triton's
      // num_warps = 8: two warpgroups, each with half the accumulator).
      int64_t rowsPerStep = 16 * int64_t(numWarps);
      if (numWarps % 4 != 0 || acc.getDimSize(0) % rowsPerStep != 0) {
        dot.emitOpError() << "M = " << acc.getDimSize(0) << " with " << numWarps
                          << " warps: wgmma runs on whole warpgroups that split M in 64-row "
                             "blocks, so M must be a multiple of "
                          << rowsPerStep << " (launch with num_warps="
                          << std::max<int64_t>(4, acc.getDimSize(0) / 16)
                          << ", or a larger BLOCK_M)";
        return WalkResult::interrupt();
      }
      auto kInstr = static_cast<unsigned>(getMmaInstrK(bType.getElementType()));
      auto mma = NVMMAAttr::get(ctx, 3, {numWarps, 1},
                                {16, static_cast<unsigned>(acc.getDimSize(1)), kInstr});
      if (failed(setAnchor(dot.getResult(), mma, dot)))
        return WalkResult::interrupt();
      if (isTile(dot.getA())) {
        unsigned bits = getElementBitWidth(getElementTypeOrSelf(dot.getA().getType()));
        auto operand = DotOperandAttr::get(ctx, 0, mma, std::max(1u, 32 / bits));
        if (failed(setAnchor(dot.getA(), operand, dot)))
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return failure();
    // Tensor-memory tiles: row = 32 * warp + lane, one column per register
    // (the 32x32b shape of tcgen05.ld/st).
    auto tmemLayout = [&](Value v) {
      auto t = cast<RankedTensorType>(v.getType());
      unsigned cols = t.getRank() == 2 ? t.getDimSize(1) : 1;
      return BlockedAttr::get(ctx, {1, cols}, {32, 1}, {numWarps, 1}, {0, 1});
    };
    result = func.walk([&](Operation *op) {
      Value tile;
      if (auto load = dyn_cast<TmemLoadOp>(op))
        tile = load.getResult();
      else if (auto store = dyn_cast<TmemStoreOp>(op))
        tile = store.getValue();
      if (tile && failed(setAnchor(tile, tmemLayout(tile), op)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

  /// A blocked layout reading 16 bytes per thread along the contiguous
  /// dimension: the last, or the first of a 2-D class whose pointers are
  /// contiguous there (B^T of an N x K tensor loaded as K x N), as Triton's
  /// coalescing orders its layouts by the pointers' contiguity.
  Attribute defaultLayout(Value anyMember) {
    // The class's largest tile sets the shape (a broadcast's 64x1 source must
    // not give the 64x64 tiles of its class a one-column layout). The vector
    // width is 16 bytes of what the class moves through memory: the narrowest
    // pointee of its pointer tiles (an i32 offset tile must not halve the
    // width of bf16 loads, nor an f32 store of the class's result: that store
    // then writes two 16-byte vectors per thread, where Triton's per-op
    // coalescing gives the loads 16 bytes too and relayouts the value for the
    // store), else its widest element.
    auto type = cast<RankedTensorType>(anyMember.getType());
    unsigned memBits = ~0u, eltBits = 8;
    SmallVector<Value> ptrs; // the pointer tiles
    for (auto it = classes.findLeader(anyMember); it != classes.member_end(); ++it) {
      auto t = cast<RankedTensorType>((*it).getType());
      if (t.getNumElements() > type.getNumElements())
        type = t;
      Type elt = t.getElementType();
      if (auto ptr = dyn_cast<PtrType>(elt)) {
        memBits = std::min(memBits, getElementBitWidth(ptr.getPointeeType()));
        ptrs.push_back(*it);
      } else {
        eltBits = std::max(eltBits, getElementBitWidth(elt));
      }
    }
    unsigned bits = std::max(8u, ptrs.empty() ? eltBits : memBits);
    ArrayRef<int64_t> shape = type.getShape();
    unsigned rank = shape.size();
    SmallVector<unsigned> spt(rank, 1), tpw(rank, 1), wpc(rank, 1), order;
    for (unsigned d = rank; d-- > 0;)
      order.push_back(d);
    if (rank == 2) {
      // The longest runs of consecutive addresses any full-size pointer tile
      // of the class has, per dimension (a splat base has none).
      int64_t run[2] = {1, 1};
      for (Value p : ptrs) {
        if (cast<RankedTensorType>(p.getType()).getShape() != shape)
          continue;
        AxisInfo info = axes.get(p);
        run[0] = std::max(run[0], info.contiguity[0]);
        run[1] = std::max(run[1], info.contiguity[1]);
      }
      if (run[0] > run[1])
        order = {0, 1};
    }
    unsigned fast = order.front();
    spt[fast] = std::max<int64_t>(1, std::min<int64_t>(shape[fast], 128 / bits));
    unsigned threads = 32;
    for (unsigned d : order) {
      int64_t want = std::max<int64_t>(1, shape[d] / spt[d]);
      unsigned t = std::min<int64_t>(threads, llvm::PowerOf2Ceil(want));
      tpw[d] = t;
      threads /= t;
    }
    tpw[order.back()] *= threads; // leftover threads broadcast along rows
    wpc[order.back()] = numWarps;
    return BlockedAttr::get(func.getContext(), spt, tpw, wpc, order);
  }

  /// A slice relation whose ends need layouts that disagree: one 1-D value
  /// expanded along both dimensions (`offs[:, None]` for the rows of a
  /// load, `offs[None, :]` against a dot's columns), or a reduction whose
  /// result meets tiles of another layout. As Triton's convert_layout, a
  /// txl.relayout between them gives the child a class of its own: before
  /// the expand_dims (its source), or after the reduction (its result's
  /// uses). Returns false where the child already is such a cut.
  bool cutSlice(const SliceRelation &rel) {
    if (rel.child.getDefiningOp<RelayoutOp>())
      return false;
    if (auto expand = rel.parent.getDefiningOp<ExpandDimsOp>();
        expand && expand.getSrc() == rel.child) {
      OpBuilder b(expand);
      expand.getSrcMutable().assign(
          RelayoutOp::create(b, expand.getLoc(), rel.child.getType(), rel.child));
      return true;
    }
    // (Not again once its users are all relayouts: the reduction's own
    // layout is what disagrees, e.g. one the author wrote.)
    if (llvm::all_of(rel.child.getUsers(), [](Operation *u) { return isa<RelayoutOp>(u); }))
      return false;
    OpBuilder b(func.getContext());
    b.setInsertionPointAfterValue(rel.child);
    auto cut = RelayoutOp::create(b, rel.child.getLoc(), rel.child.getType(), rel.child);
    Value child = rel.child;
    child.replaceAllUsesExcept(cut.getResult(), cut);
    return true;
  }

  /// Propagates slices and gives every class a layout. Returns true when it
  /// cut a conflicting slice relation instead (the caller groups again).
  FailureOr<bool> propagateAndDefault() {
    while (true) {
      bool changed = true;
      while (changed) {
        changed = false;
        for (SliceRelation &rel : slices) {
          Value child = leader(rel.child), parent = leader(rel.parent);
          auto c = layoutOf.find(child), p = layoutOf.find(parent);
          if (p != layoutOf.end() && c == layoutOf.end()) {
            layoutOf[child] = SliceAttr::get(func.getContext(), rel.dim, p->second);
            changed = true;
            continue;
          }
          if (c == layoutOf.end())
            continue;
          auto slice = dyn_cast<SliceAttr>(c->second);
          bool agrees = slice && slice.getDim() == rel.dim &&
                        (p == layoutOf.end() || sameDistribution(slice.getParent(), p->second));
          if (!agrees) {
            if (cutSlice(rel))
              return true;
            return rel.child.getDefiningOp() ? rel.child.getDefiningOp()->emitOpError()
                                                   << "result layout " << c->second
                                                   << " is not a slice along " << rel.dim
                                                   << "; insert a txl.relayout"
                                             : func.emitOpError() << "inconsistent slice layouts";
          }
          if (p == layoutOf.end()) {
            layoutOf[parent] = slice.getParent();
            changed = true;
          }
        }
      }
      // Renamed results follow their source.
      for (Operation *op : renames) {
        auto p = layoutOf.find(leader(op->getOperand(0)));
        if (p == layoutOf.end() || layoutOf.count(leader(op->getResult(0))))
          continue;
        FailureOr<Attribute> layout = renamedLayout(op, p->second);
        if (failed(layout))
          return failure();
        for (Value r : op->getResults())
          layoutOf[leader(r)] = *layout;
        changed = true;
      }
      if (changed)
        continue;
      // Default the first class without a layout whose value is not derived
      // from an unassigned parent (parents first, so children get slices and
      // renamed layouts); then one that only prefers an unassigned relayout
      // source (a loop through a rename: break it there); then any (a cycle
      // of slices).
      Value pick, soft, any;
      for (Value v : tiles) {
        Value l = leader(v);
        if (layoutOf.count(l))
          continue;
        bool derived =
            llvm::any_of(slices,
                         [&](SliceRelation &rel) {
                           return leader(rel.child) == l && !layoutOf.count(leader(rel.parent));
                         }) ||
            llvm::any_of(renames, [&](Operation *op) {
              return leader(op->getResult(0)) == l && !layoutOf.count(leader(op->getOperand(0)));
            });
        bool prefers = !relayoutSources(l).empty();
        if (!derived && !prefers) {
          pick = v;
          break;
        }
        if (!derived && !soft)
          soft = v;
        if (!any)
          any = v;
      }
      pick = pick ? pick : soft ? soft : any;
      if (!pick)
        return false;
      layoutOf[leader(pick)] = preferredLayout(pick);
    }
  }

  /// Sources of the relayouts whose results are in class `l`, while they have
  /// no layout.
  SmallVector<Value> relayoutSources(Value l, bool assigned = false) {
    SmallVector<Value> out;
    for (auto it = classes.findLeader(l); it != classes.member_end(); ++it)
      if (auto rl = (*it).getDefiningOp<RelayoutOp>())
        if (!storeCuts.contains(rl) && layoutOf.count(leader(rl.getSrc())) == assigned)
          out.push_back(rl.getSrc());
    return out;
  }

  /// A class that is the result of relayouts takes a source's layout (the
  /// relayout then disappears), as long as a split it feeds can use it.
  Attribute preferredLayout(Value v) {
    Value l = leader(v);
    bool feedsSplit = false;
    for (auto it = classes.findLeader(l); it != classes.member_end(); ++it)
      feedsSplit |= splitOperands.contains(*it);
    for (Value src : relayoutSources(l, /*assigned=*/true)) {
      Attribute layout = layoutOf.lookup(leader(src));
      if (cast<RankedTensorType>(src.getType()).getShape() ==
              cast<RankedTensorType>(v.getType()).getShape() &&
          (!feedsSplit || splittable(v, layout)))
        return layout;
    }
    return defaultLayout(v);
  }

  LogicalResult apply() {
    for (Value v : tiles) {
      auto type = cast<RankedTensorType>(v.getType());
      Attribute layout = layoutOf.lookup(leader(v));
      auto newType = RankedTensorType::get(type.getShape(), type.getElementType(), layout);
      v.setType(newType);
      if (auto cst = v.getDefiningOp<arith::ConstantOp>()) {
        auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
        if (!dense)
          return cst.emitOpError() << "tile constants must be dense";
        cst.setValueAttr(dense.isSplat()
                             ? DenseElementsAttr::get(newType, dense.getSplatValue<Attribute>())
                             : dense.reshape(newType));
      }
    }
    // Relayouts between equal layouts do nothing.
    func.walk([](RelayoutOp op) {
      op->removeAttr(kGivenLayout);
      if (op.getSrc().getType() == op.getType()) {
        op.replaceAllUsesWith(op.getSrc());
        op.erase();
      }
    });
    return success();
  }
};

struct AssignLayoutsPass : txl::impl::TXLAssignLayoutsBase<AssignLayoutsPass> {
  using TXLAssignLayoutsBase::TXLAssignLayoutsBase;
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      for (Type t : func.getArgumentTypes())
        if (isa<RankedTensorType>(t)) {
          func.emitOpError() << "takes a tile argument " << t
                             << "; kernels take pointers, descriptors and scalars (inline "
                                "helper functions first)";
          return signalPassFailure();
        }
      // Layouts span one copy of the body: a warpgroup, or the kernel's
      // txl.role_warps when wider (num_warps = 8 without warpgroup roles).
      auto warps = static_cast<unsigned>(getRoleWarps(func));
      if (failed(checkRanks(func)) || failed(LayoutAssigner(func, warps).run()) ||
          failed(checkDistributable(func)))
        return signalPassFailure();
    }
  }

  /// Register tiles have rank 1 or more: a rank-0 tensor (`tensor<f32>`) has
  /// no dimension to distribute (found by the fuzzer: it crashed the layout
  /// builder).
  static LogicalResult checkRanks(func::FuncOp func) {
    WalkResult result = func.walk([](Operation *op) {
      for (Value v : op->getResults())
        if (auto type = dyn_cast<RankedTensorType>(v.getType()); type && type.getRank() == 0) {
          op->emitOpError() << "produces " << type
                            << ", a rank-0 tensor, which is not a register tile; use a scalar "
                            << type.getElementType() << " instead";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

  /// Every register tile must map onto registers, lanes and warps (a
  /// LinearLayout). Otherwise the lowering stages could only fail without
  /// saying why (e.g. a 64 x 192 tile: dimensions must be powers of two), so
  /// report the first op that produces such a tile, at its source location.
  static LogicalResult checkDistributable(func::FuncOp func) {
    WalkResult result = func.walk([](Operation *op) {
      for (Value v : op->getResults()) {
        auto type = dyn_cast<RankedTensorType>(v.getType());
        if (!type || !type.getEncoding())
          continue;
        std::string why;
        if (succeeded(LinearLayout::get(type.getShape(), type.getEncoding(), &why)))
          continue;
        op->emitOpError() << "produces the register tile " << type
                          << ", which cannot be distributed over the threads: " << why;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }
};

} // namespace
