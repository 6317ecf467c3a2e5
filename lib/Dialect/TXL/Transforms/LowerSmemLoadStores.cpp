//===- LowerSmemLoadStores.cpp - tiles <-> smem -----------------------------===//
//
// smem_load / smem_store move a register tile between the thread's registers
// and a shared-memory view, in whatever layout the tile has: for each
// register the layout gives the element's coordinates (LinearLayout), the
// view's encoding gives its byte address:
//   - no swizzle: row-major (column-major when `transposed`);
//   - NVMMA swizzle S: the tile is stored as column blocks of S bytes x rows
//     (as TMA writes it); inside the 1024-byte-aligned pattern the 16-byte
//     chunk index is XOR-ed with the row within the 8-row group:
//       addr ^= ((addr >> 7) & (S/16 - 1)) << 4.
//     A transposed (MN-major) view is the same storage with its two
//     dimensions swapped.
// A run of registers holding consecutive elements along the view's
// contiguous dimension (up to 16 bytes) is one vector ld/st.shared (a 16-byte
// chunk stays whole under the swizzle); everything else is one access per
// element. frag_smem_load/store are the predicated and partial
// forms; tmem_load/store (Blackwell) move tiles to and from tensor memory
// with tcgen05.ld/st.
//
//===----------------------------------------------------------------------===//

#include "txl/Dialect/TXL/Transforms/LoweringUtils.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLLOWERSMEMLOADSTORES
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

FailureOr<LinearLayout> tileLayout(Operation *op, RankedTensorType tile) {
  std::string why;
  auto layout = LinearLayout::get(tile.getShape(), tile.getEncoding(), &why);
  if (failed(layout))
    return op->emitOpError() << "cannot distribute " << tile << ": " << why;
  return layout;
}

/// Coordinates in the shared view of register `r` of `tile`: the tile's own,
/// or, for a 1-D view under a 2-D tile (frag_smem_*), the one dimension that
/// matches the view.
SmallVector<Value> viewCoords(OpBuilder &b, Location loc, const ThreadCoords &coords,
                              RankedTensorType tile, SmemType view, int64_t r) {
  SmallVector<Value> c;
  if (tile.getShape() == view.getShape() || view.getRank() != 1) {
    for (unsigned d = 0; d < tile.getRank(); ++d)
      c.push_back(coords.get(b, loc, r, d));
    return c;
  }
  unsigned dim = tile.getDimSize(0) == view.getDimSize(0) ? 0 : 1;
  c.push_back(coords.get(b, loc, r, dim));
  return c;
}

/// Registers per access: the longest run of consecutive registers that hold
/// consecutive elements along the view's contiguous dimension (the last; the
/// first of a transposed view), at most 16 bytes. Such a run starts at a
/// multiple of its length (getContiguousRegs), so it stays inside one 16-byte
/// chunk, which the NVMMA swizzle moves whole. Views that may be cut at an
/// arbitrary offset (an smem_subslice, also through scf values) and 1-D views
/// under a 2-D tile stay scalar.
/// Whether `view` may be (a view of) an smem_subslice: followed through the
/// view ops and the values scf.if / scf.for / scf.while carry.
bool mayBeSubslice(Value view, DenseSet<Value> &seen) {
  if (!seen.insert(view).second)
    return false;
  if (auto arg = dyn_cast<BlockArgument>(view)) {
    Operation *parent = arg.getOwner()->getParentOp();
    if (auto forOp = dyn_cast<scf::ForOp>(parent)) {
      if (arg.getArgNumber() == 0)
        return false; // the induction variable
      unsigned i = arg.getArgNumber() - 1;
      return mayBeSubslice(forOp.getInitArgs()[i], seen) ||
             mayBeSubslice(forOp.getBody()->getTerminator()->getOperand(i), seen);
    }
    if (auto whileOp = dyn_cast<scf::WhileOp>(parent)) {
      unsigned i = arg.getArgNumber();
      if (arg.getOwner() == whileOp.getBeforeBody())
        return mayBeSubslice(whileOp.getInits()[i], seen) ||
               mayBeSubslice(whileOp.getYieldOp().getOperand(i), seen);
      return mayBeSubslice(whileOp.getConditionOp().getArgs()[i], seen);
    }
    return false; // a function argument: a whole buffer
  }
  Operation *def = view.getDefiningOp();
  if (isa<SmemSubsliceOp>(def))
    return true;
  if (isa<GetBufferOp, SmemIndexOp, SmemTransOp, SmemReshapeOp>(def))
    return mayBeSubslice(def->getOperand(0), seen);
  unsigned i = cast<OpResult>(view).getResultNumber();
  if (auto ifOp = dyn_cast<scf::IfOp>(def))
    return mayBeSubslice(ifOp.thenYield().getOperand(i), seen) ||
           (!ifOp.getElseRegion().empty() && mayBeSubslice(ifOp.elseYield().getOperand(i), seen));
  if (auto forOp = dyn_cast<scf::ForOp>(def))
    return mayBeSubslice(forOp.getInitArgs()[i], seen) ||
           mayBeSubslice(forOp.getBody()->getTerminator()->getOperand(i), seen);
  if (auto whileOp = dyn_cast<scf::WhileOp>(def))
    return mayBeSubslice(whileOp.getConditionOp().getArgs()[i], seen);
  return false; // an allocation (or its lowered address)
}

int64_t vectorWidth(const LinearLayout &layout, RankedTensorType tile, SmemType view,
                    Value viewValue) {
  if (tile.getShape() != view.getShape())
    return 1;
  DenseSet<Value> seen;
  if (mayBeSubslice(viewValue, seen))
    return 1;
  int64_t bits = getElementBitWidth(view.getElementType());
  if (bits < 8 || bits != getElementBitWidth(tile.getElementType()))
    return 1;
  auto enc = dyn_cast_or_null<NVMMASharedAttr>(view.getEncoding());
  unsigned dim = enc && enc.getTransposed() && tile.getRank() == 2 ? 0 : tile.getRank() - 1;
  return std::max<int64_t>(1, std::min<int64_t>(layout.getContiguousRegs(dim), 128 / bits));
}

/// One ld.shared per register of `tile` from `view` at `base` (a vector
/// per run, see vectorWidth); where `pred` is false the register takes
/// `other` (reading a view in bounds is always safe, so the predicate only
/// selects).
FailureOr<Value> loadTile(ConversionPatternRewriter &rewriter, Location loc, Operation *op,
                          const TypeConverter &converter, RankedTensorType tile, SmemType view,
                          Value viewValue, Value base, Value pred = {}, Value other = {}) {
  auto layout = tileLayout(op, tile);
  Type structType = converter.convertType(tile);
  if (failed(layout) || !structType)
    return failure();
  ThreadCoords coords(rewriter, loc, *layout, /*pinned=*/true);
  Type elt = converter.convertType(tile.getElementType());
  int64_t vec = vectorWidth(*layout, tile, view, viewValue);
  auto vecType = VectorType::get({vec}, elt);
  unsigned align = vec * getElementBitWidth(tile.getElementType()) / 8;
  Value result = LLVM::UndefOp::create(rewriter, loc, structType);
  for (int64_t r = 0; r < layout->getNumRegs(); r += vec) {
    Value addr = getSharedElementAddress(rewriter, loc, base, view,
                                         viewCoords(rewriter, loc, coords, tile, view, r));
    Value loaded = vec == 1 ? Value(LLVM::LoadOp::create(rewriter, loc, elt, addr))
                            : Value(LLVM::LoadOp::create(rewriter, loc, vecType, addr, align));
    for (int64_t i = 0; i < vec; ++i) {
      Value v = vec == 1 ? loaded
                         : Value(LLVM::ExtractElementOp::create(rewriter, loc, loaded,
                                                                i32Const(rewriter, loc, i)));
      if (pred && other)
        v = LLVM::SelectOp::create(rewriter, loc, pred, v,
                                   LLVM::ExtractValueOp::create(rewriter, loc, other, r + i));
      result = LLVM::InsertValueOp::create(rewriter, loc, result, v, r + i);
    }
  }
  return result;
}

/// One st.shared per register of `tile`. Threads holding copies of an
/// element (broadcast lanes or warps, or a 2-D tile into a 1-D row) all
/// store the same value, which is harmless.
LogicalResult storeTile(ConversionPatternRewriter &rewriter, Location loc, Operation *op,
                        RankedTensorType tile, SmemType view, Value viewValue, Value base,
                        Value value) {
  auto layout = tileLayout(op, tile);
  if (failed(layout))
    return failure();
  ThreadCoords coords(rewriter, loc, *layout, /*pinned=*/true);
  int64_t vec = vectorWidth(*layout, tile, view, viewValue);
  unsigned align = vec * getElementBitWidth(tile.getElementType()) / 8;
  for (int64_t r = 0; r < layout->getNumRegs(); r += vec) {
    Value addr = getSharedElementAddress(rewriter, loc, base, view,
                                         viewCoords(rewriter, loc, coords, tile, view, r));
    Value first = LLVM::ExtractValueOp::create(rewriter, loc, value, r);
    if (vec == 1) {
      LLVM::StoreOp::create(rewriter, loc, first, addr);
      continue;
    }
    Value v = LLVM::UndefOp::create(rewriter, loc, VectorType::get({vec}, first.getType()));
    for (int64_t i = 0; i < vec; ++i)
      v = LLVM::InsertElementOp::create(
          rewriter, loc, v,
          i ? Value(LLVM::ExtractValueOp::create(rewriter, loc, value, r + i)) : first,
          i32Const(rewriter, loc, i));
    LLVM::StoreOp::create(rewriter, loc, v, addr, align);
  }
  return success();
}

struct LowerSmemLoad : OpConversionPattern<SmemLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SmemLoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (static_cast<int32_t>(op.getCtaId()) != -1)
      return op.emitOpError() << "loads from another CTA of the cluster are not supported yet";
    FailureOr<Value> tile = loadTile(rewriter, op.getLoc(), op, *getTypeConverter(), op.getType(),
                                     op.getSrc().getType(), op.getSrc(), adaptor.getSrc());
    if (failed(tile))
      return failure();
    rewriter.replaceOp(op, *tile);
    return success();
  }
};

struct LowerSmemStore : OpConversionPattern<SmemStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SmemStoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (static_cast<int32_t>(op.getCtaId()) != -1)
      return op.emitOpError() << "stores to another CTA of the cluster are not supported yet";
    if (failed(storeTile(rewriter, op.getLoc(), op, op.getValue().getType(), op.getDst().getType(),
                         op.getDst(), adaptor.getDst(), adaptor.getValue())))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Fragments: predicated, partial shared-memory access
//===----------------------------------------------------------------------===//

namespace {

struct LowerFragSmemLoad : OpConversionPattern<FragSmemLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(FragSmemLoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (static_cast<int32_t>(op.getCtaId()) != -1)
      return op.emitOpError() << "loads from another CTA of the cluster are not supported yet";
    FailureOr<Value> tile = loadTile(rewriter, op.getLoc(), op, *getTypeConverter(), op.getType(),
                                     op.getSrc().getType(), op.getSrc(), adaptor.getSrc(),
                                     adaptor.getPred(), adaptor.getOther());
    if (failed(tile))
      return failure();
    rewriter.replaceOp(op, *tile);
    return success();
  }
};

struct LowerFragSmemStore : OpConversionPattern<FragSmemStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(FragSmemStoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (static_cast<int32_t>(op.getCtaId()) != -1 || op.getMbar())
      return op.emitOpError() << "remote stores and stores that signal an mbarrier are not "
                                 "supported yet";
    OpBuilder::InsertionGuard guard(rewriter);
    if (Value pred = adaptor.getPred()) {
      auto ifOp = scf::IfOp::create(rewriter, op.getLoc(), pred, false);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
    }
    if (failed(storeTile(rewriter, op.getLoc(), op, op.getValue().getType(), op.getDst().getType(),
                         op.getDst(), adaptor.getDst(), adaptor.getValue())))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Tensor memory (Blackwell): tcgen05.ld / tcgen05.st, shape 32x32b
//===----------------------------------------------------------------------===//

/// In the 32x32b shape each warp reaches its own 32 TMEM lanes (warp % 4)
/// and thread t of the warp holds lane 32*(warp%4)+t, one column per
/// register: the layout the layout pass gives tmem tiles. Checked here.
LogicalResult checkTmemLayout(Operation *op, RankedTensorType tile, const LinearLayout &layout) {
  if (tile.getRank() != 2 || tile.getDimSize(0) != 128 ||
      getElementBitWidth(tile.getElementType()) != 32)
    return op->emitOpError() << "tensor-memory tiles must be 128 x N of 32-bit elements, got "
                             << tile;
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t warp = 0; warp < 4; ++warp)
      for (int64_t r = 0; r < layout.getNumRegs(); ++r)
        if (layout.apply(r, lane, warp) != LinearLayout::Coord{32 * warp + lane, r})
          return op->emitOpError() << "tile " << tile
                                   << " is not in the tensor-memory lane layout (row = 32 * warp "
                                      "+ lane, column = register); run --txl-assign-layouts";
  return success();
}

/// TMEM address of this warp's lanes at column `col`.
Value tmemAddress(OpBuilder &b, Location loc, Value base, int64_t col) {
  Value warp = LLVM::LShrOp::create(b, loc, getThreadId(b, loc), i32Const(b, loc, 5));
  warp = LLVM::AndOp::create(b, loc, warp, i32Const(b, loc, 3));
  Value lanes = LLVM::ShlOp::create(b, loc, warp, i32Const(b, loc, 16 + 5)); // (32*warp) << 16
  Value addr = LLVM::AddOp::create(b, loc, base, lanes);
  if (col)
    addr = LLVM::AddOp::create(b, loc, addr, i32Const(b, loc, col));
  return LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 6), addr);
}

struct LowerTmemLoad : OpConversionPattern<TmemLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TmemLoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto tile = op.getType();
    auto layout = tileLayout(op, tile);
    Type structType = getTypeConverter()->convertType(tile);
    if (failed(layout) || !structType || failed(checkTmemLayout(op, tile, *layout)))
      return failure();
    Type elt = getTypeConverter()->convertType(tile.getElementType());
    MLIRContext *ctx = getContext();
    auto shape = NVVM::Tcgen05LdStShapeAttr::get(ctx, NVVM::Tcgen05LdStShape::SHAPE_32X32B);
    Value result = LLVM::UndefOp::create(rewriter, loc, structType);
    int64_t cols = tile.getDimSize(1);
    for (int64_t c0 = 0; c0 < cols; c0 += 128) {
      int64_t n = std::min<int64_t>(128, cols - c0);
      auto vec = VectorType::get({n}, rewriter.getI32Type());
      Value v =
          NVVM::Tcgen05LdOp::create(rewriter, loc, vec, UnitAttr(), shape,
                                    tmemAddress(rewriter, loc, adaptor.getSrc(), c0), Value());
      for (int64_t i = 0; i < n; ++i) {
        Value e = LLVM::ExtractElementOp::create(rewriter, loc, v, i32Const(rewriter, loc, i));
        e = LLVM::BitcastOp::create(rewriter, loc, elt, e);
        result = LLVM::InsertValueOp::create(rewriter, loc, result, e, c0 + i);
      }
    }
    NVVM::Tcgen05WaitOp::create(rewriter, loc,
                                NVVM::Tcgen05WaitKindAttr::get(ctx, NVVM::Tcgen05WaitKind::LOAD));
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LowerTmemStore : OpConversionPattern<TmemStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TmemStoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto tile = op.getValue().getType();
    auto layout = tileLayout(op, tile);
    if (failed(layout) || failed(checkTmemLayout(op, tile, *layout)))
      return failure();
    MLIRContext *ctx = getContext();
    auto shape = NVVM::Tcgen05LdStShapeAttr::get(ctx, NVVM::Tcgen05LdStShape::SHAPE_32X32B);
    int64_t cols = tile.getDimSize(1);
    for (int64_t c0 = 0; c0 < cols; c0 += 128) {
      int64_t n = std::min<int64_t>(128, cols - c0);
      auto vecType = VectorType::get({n}, rewriter.getI32Type());
      Value vec = LLVM::UndefOp::create(rewriter, loc, vecType);
      for (int64_t i = 0; i < n; ++i) {
        Value e = LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getValue(), c0 + i);
        e = LLVM::BitcastOp::create(rewriter, loc, rewriter.getI32Type(), e);
        vec = LLVM::InsertElementOp::create(rewriter, loc, vec, e, i32Const(rewriter, loc, i));
      }
      NVVM::Tcgen05StOp::create(rewriter, loc, UnitAttr(), shape,
                                tmemAddress(rewriter, loc, adaptor.getDst(), c0), vec, Value());
    }
    NVVM::Tcgen05WaitOp::create(rewriter, loc,
                                NVVM::Tcgen05WaitKindAttr::get(ctx, NVVM::Tcgen05WaitKind::STORE));
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerSmemLoadStoresPass : txl::impl::TXLLowerSmemLoadStoresBase<LowerSmemLoadStoresPass> {
  void runOnOperation() override {
    TXLTypeConverter converter(&getContext());
    ConversionTarget target(getContext());
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addIllegalOp<SmemLoadOp, SmemStoreOp, FragSmemLoadOp, FragSmemStoreOp, TmemLoadOp,
                        TmemStoreOp>();
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerSmemLoad, LowerSmemStore, LowerFragSmemLoad, LowerFragSmemStore,
                 LowerTmemLoad, LowerTmemStore>(converter, &getContext());
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
