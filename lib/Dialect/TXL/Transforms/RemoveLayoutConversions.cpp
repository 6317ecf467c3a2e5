//===- RemoveLayoutConversions.cpp - fold redundant txl.relayout ops -------===//
//
// Layout assignment leaves a txl.relayout wherever two anchors meet (the
// register A operand of a wgmma, layouts the author wrote). Some of them
// move nothing, or move a tile that costs less to recompute than to move.
// This pass, Triton's remove-layout-conversions in its simplest form, applies
// three rewrites until none applies:
//
//  1. relayout(x : L) -> L         ==>  x
//  2. relayout(relayout(x))        ==>  relayout(x)   (one conversion)
//  3. relayout(cheap(...)) -> L    ==>  cheap(...) built in layout L
//  4. relayout(smem_load(v)) -> L  ==>  smem_load(v) -> L, and through a
//     transpose: relayout(trans(smem_load(v))) ==> smem_load(smem_trans(v));
//     the tile is read from shared memory straight into the layout its user
//     needs (an mma.sync operand from a pipeline ring) instead of a round
//     trip through a scratch. The new load sits where the old one was (so
//     it reads the same bytes); the old one stays for its other users (a
//     tile read by two dots, once transposed: K in the attention backward's
//     dQ loop) and goes when it has none.
//
// "Cheap" tiles are those every thread can compute for its own elements in
// any layout: txl.splat, txl.make_range, dense arith.constant, and
// txl.broadcast / txl.expand_dims whose operand is cheap (recursively; the
// operand is rebuilt in the layout the op needs: the same layout for a
// broadcast, the #txl.slice of it for expand_dims). The original op stays
// for its other users and is erased when it has none.
//
// Relayouts that already carry a shared-memory scratch are left alone: this
// pass runs before --txl-allocate-scratch.
//
//===----------------------------------------------------------------------===//

#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "txl/Dialect/TXL/IR/TXLOps.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLREMOVELAYOUTCONVERSIONS
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

RankedTensorType withLayout(Type type, Attribute layout) {
  auto t = cast<RankedTensorType>(type);
  return RankedTensorType::get(t.getShape(), t.getElementType(), layout);
}

/// True when `v` can be recomputed in any layout (see the file comment).
bool isCheap(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (auto cst = dyn_cast<arith::ConstantOp>(def))
    return isa<DenseElementsAttr>(cst.getValue());
  if (isa<SplatOp, MakeRangeOp>(def))
    return true;
  if (auto bc = dyn_cast<BroadcastOp>(def))
    return isCheap(bc.getSrc());
  if (auto ed = dyn_cast<ExpandDimsOp>(def))
    return isCheap(ed.getSrc());
  return false;
}

/// Builds the cheap value `v` again with layout `layout` (isCheap(v) holds).
Value rematerialize(PatternRewriter &rewriter, Value v, Attribute layout) {
  Operation *def = v.getDefiningOp();
  Location loc = def->getLoc();
  RankedTensorType type = withLayout(v.getType(), layout);
  if (type == v.getType())
    return v;
  if (auto cst = dyn_cast<arith::ConstantOp>(def)) {
    auto dense = cast<DenseElementsAttr>(cst.getValue());
    return arith::ConstantOp::create(rewriter, loc, type, dense.reshape(type));
  }
  if (auto splat = dyn_cast<SplatOp>(def))
    return SplatOp::create(rewriter, loc, type, splat.getSrc());
  if (auto range = dyn_cast<MakeRangeOp>(def))
    return MakeRangeOp::create(rewriter, loc, type, range.getStart(), range.getEnd());
  if (auto bc = dyn_cast<BroadcastOp>(def)) {
    // A broadcast keeps its operand's layout (size-1 dimensions repeat).
    Value src = rematerialize(rewriter, bc.getSrc(), layout);
    return BroadcastOp::create(rewriter, loc, type, src);
  }
  auto ed = cast<ExpandDimsOp>(def);
  // expand_dims' operand is the slice of its result's layout.
  Attribute slice = SliceAttr::get(rewriter.getContext(), ed.getAxis(), layout);
  Value src = rematerialize(rewriter, ed.getSrc(), slice);
  return ExpandDimsOp::create(rewriter, loc, type, src, ed.getAxis());
}

/// smem_load of the view that `tile` was read from (directly, or through a 2-D
/// txl.trans of the read: then of the transposed view), built where that read
/// is, with type `type`; null if `tile` is no such read.
Value loadInLayout(PatternRewriter &rewriter, Value tile, RankedTensorType type) {
  Value read = tile;
  auto trans = tile.getDefiningOp<TransOp>();
  if (trans) {
    if (trans.getOrder() != ArrayRef<int32_t>{1, 0})
      return {};
    read = trans.getSrc();
  }
  auto load = read.getDefiningOp<SmemLoadOp>();
  if (!load)
    return {};
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(load);
  Value view = load.getSrc();
  if (trans) {
    auto vt = cast<SmemType>(view.getType());
    auto enc = dyn_cast_or_null<NVMMASharedAttr>(vt.getEncoding());
    if (!enc)
      return {};
    auto tt = SmemType::get(
        rewriter.getContext(), {vt.getShape()[1], vt.getShape()[0]}, vt.getElementType(), 0,
        NVMMASharedAttr::get(rewriter.getContext(), enc.getSwizzle(), !enc.getTransposed()));
    view = SmemTransOp::create(rewriter, load.getLoc(), tt, view,
                               rewriter.getDenseI32ArrayAttr({1, 0}));
  }
  return SmemLoadOp::create(rewriter, load.getLoc(), type, view);
}

struct FoldRelayout : OpRewritePattern<RelayoutOp> {
  FoldRelayout(MLIRContext *ctx, Pass::Statistic &folded, Pass::Statistic &remat)
      : OpRewritePattern(ctx), folded(folded), remat(remat) {}

  LogicalResult matchAndRewrite(RelayoutOp op, PatternRewriter &rewriter) const override {
    if (op.getScratch())
      return rewriter.notifyMatchFailure(op, "already has its scratch");
    Value src = op.getSrc();
    // 1. Nothing to move.
    if (src.getType() == op.getType()) {
      rewriter.replaceOp(op, src);
      ++folded;
      return success();
    }
    // 2. Convert once, from the first layout.
    if (auto inner = src.getDefiningOp<RelayoutOp>(); inner && !inner.getScratch()) {
      rewriter.modifyOpInPlace(op, [&] { op.getSrcMutable().assign(inner.getSrc()); });
      ++folded;
      return success();
    }
    // 3. Recompute instead of moving.
    Attribute layout = op.getType().getEncoding();
    if (layout && isCheap(src)) {
      rewriter.replaceOp(op, rematerialize(rewriter, src, layout));
      ++remat;
      return success();
    }
    // 4. Read it in the layout needed.
    if (layout)
      if (Value load = loadInLayout(rewriter, src, op.getType())) {
        rewriter.replaceOp(op, load);
        ++folded;
        return success();
      }
    return rewriter.notifyMatchFailure(op, "a real conversion");
  }

  Pass::Statistic &folded, &remat;
};

struct RemoveLayoutConversionsPass
    : txl::impl::TXLRemoveLayoutConversionsBase<RemoveLayoutConversionsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> relayouts;
    getOperation().walk([&](RelayoutOp op) { relayouts.push_back(op); });
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldRelayout>(&getContext(), numFolded, numRematerialized);
    // Only the relayouts (and the ones the rewrites create) are visited, and
    // nothing is folded: the rest of the kernel is left exactly as it was.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps)
        .enableFolding(false)
        .enableConstantCSE(false)
        .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(applyOpPatternsGreedily(relayouts, std::move(patterns), config)))
      return signalPassFailure();
    // Cheap tiles and relayouts whose users all went (the rewrites bypass
    // them), operands before their definitions.
    SmallVector<Operation *> dead;
    getOperation().walk([&](Operation *op) {
      if (isa<RelayoutOp, SmemLoadOp, TransOp>(op) ||
          (op->getNumResults() == 1 && isCheap(op->getResult(0))))
        dead.push_back(op);
    });
    for (Operation *op : llvm::reverse(dead))
      if (op->use_empty() && isOpTriviallyDead(op))
        op->erase();
  }
};

} // namespace
