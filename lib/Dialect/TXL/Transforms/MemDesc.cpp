//===- MemDesc.cpp - views to address arithmetic ----------------------------===//
//
// Views of shared memory carry their meaning in their types (shape,
// transposition, swizzle); their address is the parent's plus an offset:
//   - smem_trans, smem_reshape: the same bytes (the type changes, the
//     address does not; wgmma reads the transposition from the type);
//   - smem_index i: i times the bytes of one sub-tile;
//   - smem_subslice: a row offset, whole swizzle column blocks, or a K step
//     inside one swizzle atom (for wgmma only).
// A swizzled tile is stored as column blocks of (swizzle bytes x rows), so
// only slices that keep that structure are views: a row range at a multiple
// of 8 rows (the swizzle pattern's period) of a one-block-wide tile, or whole
// column blocks over all rows. Other slices are reported, never
// miscompiled.
//
//===----------------------------------------------------------------------===//

#include "txl/Analysis/LoweringUtils.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLMEMDESC
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

unsigned swizzleOf(SmemType t) {
  auto enc = dyn_cast_or_null<NVMMASharedAttr>(t.getEncoding());
  return enc ? enc.getSwizzle() : 0;
}

int64_t elemBytes(SmemType t) {
  return std::max<int64_t>(1, getElementBitWidth(t.getElementType()) / 8);
}

/// Whether `order` reorders dimensions of `src` of size > 1 (a transposition
/// that only moves unit dimensions leaves every element where it was).
bool movesData(ArrayRef<int32_t> order, SmemType src) {
  SmallVector<int32_t> big;
  for (int32_t d : order)
    if (src.getDimSize(d) > 1)
      big.push_back(d);
  return !llvm::is_sorted(big);
}

/// Views whose address is their source's.
template <typename OpTy> struct SameAddress : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if constexpr (std::is_same_v<OpTy, SmemTransOp>) {
      // Only an nvmma_shared encoding records a transposition (its `transposed`
      // flag, set by txl-smem-allocs); a view of a buffer without one would be
      // read and written as if untransposed.
      SmemType src = op.getSrc().getType();
      if (!isa_and_nonnull<NVMMASharedAttr>(src.getEncoding()) && movesData(op.getOrder(), src))
        return op.emitOpError()
               << "transposes a view of a shared-memory buffer that has no swizzled layout (no "
                  "wgmma or TMA user gave it one), so nothing would record the order and loads "
                  "and stores would see the buffer untransposed; store the tile transposed "
                  "instead (smem_store(buf, tl.trans(x)))";
    }
    if constexpr (std::is_same_v<OpTy, SmemReshapeOp>) {
      SmemType src = op.getSrc().getType(), dst = op.getType();
      // A swizzled tile keeps its layout only if the contiguous dimension stays.
      if (swizzleOf(src) && src.getShape().back() != dst.getShape().back())
        return op.emitOpError() << "cannot reshape a swizzled tile across its contiguous "
                                   "dimension (the swizzle pattern would change); keep the last "
                                   "dimension";
    }
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

struct LowerSmemIndex : OpConversionPattern<SmemIndexOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SmemIndexOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    SmemType src = op.getSrc().getType();
    unsigned swizzle = swizzleOf(src);
    if (swizzle && src.getShape().back() * elemBytes(src) > swizzle)
      return op.emitOpError() << "cannot index a swizzled tile wider than one swizzle block ("
                              << swizzle << " bytes): its sub-tiles are not contiguous";
    // The swizzle pattern repeats every 1024 bytes: a sub-tile must start on it.
    if (swizzle && op.getType().getStageBytes() % 1024 != 0)
      return op.emitOpError() << "sub-tiles of " << op.getType().getStageBytes()
                              << " bytes would start inside the 1024-byte swizzle pattern; "
                                 "index tiles of a multiple of 8 rows";
    Location loc = op.getLoc();
    rewriter.replaceOp(op, addScaledIndex(rewriter, loc, adaptor.getSrc(), adaptor.getIndex(),
                                          op.getType().getStageBytes()));
    return success();
  }
};

struct LowerSmemSubslice : OpConversionPattern<SmemSubsliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SmemSubsliceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    SmemType src = op.getSrc().getType(), dst = op.getType();
    ArrayRef<int64_t> offsets = op.getOffsets();
    ArrayRef<int64_t> shape = src.getShape();
    int64_t e = elemBytes(src);
    unsigned swizzle = swizzleOf(src);
    auto enc = dyn_cast_or_null<NVMMASharedAttr>(src.getEncoding());
    if (enc && enc.getTransposed())
      return op.emitOpError() << "slicing a transposed view is not supported; slice the "
                                 "buffer, then transpose";
    int64_t rank = shape.size();
    // Rows: the flattened leading dimensions.
    int64_t rowLen = shape.back();
    int64_t rows = src.getNumElements() / rowLen;
    bool sameLeading = true;
    for (int64_t d = 1; d + 1 < rank; ++d)
      sameLeading &= offsets[d] == 0 && dst.getDimSize(d) == shape[d];
    int64_t rowOffset = rank > 1 ? offsets[0] * (rows / shape[0]) : 0;
    int64_t colOffset = offsets.back();
    int64_t offset = -1;
    if (rank == 1) {
      offset = colOffset * e;
    } else if (!sameLeading) {
      offset = -1;
    } else if (!swizzle) {
      // Whole rows of a row-major tile.
      if (colOffset == 0 && dst.getShape().back() == rowLen)
        offset = rowOffset * rowLen * e;
    } else {
      int64_t perBlock = swizzle / e;
      bool oneBlock = rowLen <= perBlock;
      if (oneBlock && colOffset == 0 && dst.getShape().back() == rowLen && rowOffset % 8 == 0)
        offset = rowOffset * swizzle;
      else if (rowOffset == 0 && dst.getNumElements() / dst.getShape().back() == rows &&
               rows % 8 == 0 && colOffset % perBlock == 0 && dst.getShape().back() % perBlock == 0)
        offset = (colOffset / perBlock) * rows * swizzle;
      else if (rowOffset == 0 && dst.getNumElements() / dst.getShape().back() == rows &&
               rows % 8 == 0 && isInsideSwizzleAtom(dst) &&
               colOffset % dst.getShape().back() == 0 &&
               colOffset % perBlock + dst.getShape().back() <= perBlock)
        // A K step inside one swizzle atom (TXL slices a 64-column tile into
        // 32-column steps): the start address moves inside the atom's rows,
        // which wgmma's descriptor takes as is (it swizzles absolute address
        // bits); element-wise accesses refuse such views.
        offset = (colOffset / perBlock) * rows * swizzle + (colOffset % perBlock) * e;
    }
    if (offset < 0)
      return op.emitOpError()
             << "this slice is not a view of the buffer's layout: slice whole rows (at a "
                "multiple of 8 rows when swizzled) or, for a swizzled tile, whole "
             << (swizzle ? swizzle : 0) << "-byte column blocks over all rows";
    rewriter.replaceOp(op, addBytes(rewriter, op.getLoc(), adaptor.getSrc(), offset));
    return success();
  }
};

struct MemDescPass : txl::impl::TXLMemDescBase<MemDescPass> {
  void runOnOperation() override {
    TXLTypeConverter converter(&getContext());
    ConversionTarget target(getContext());
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addIllegalOp<SmemIndexOp, SmemSubsliceOp, SmemTransOp, SmemReshapeOp>();
    RewritePatternSet patterns(&getContext());
    patterns.add<SameAddress<SmemTransOp>, SameAddress<SmemReshapeOp>, LowerSmemIndex,
                 LowerSmemSubslice>(converter, &getContext());
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
