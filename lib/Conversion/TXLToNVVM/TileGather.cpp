//===- TileGather.cpp - txl.gather through shared memory -------------------===//
//
// tl.gather: result[i][j] = src[index[i][j]][j] (axis 0). The source tile is
// stored to the op's scratch (row-major, the source's shape, added by
// --txl-allocate-scratch) by every thread from its registers; after a
// barrier over the warps of both layouts each thread reads, for each of its
// result registers (the index's layout), the element at its own coordinates
// with the axis coordinate replaced by the index it holds. A barrier before
// the stores keeps a loop's next gather from overwriting a scratch other
// warps still read.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::txl;
using namespace mlir::txl::tile;

namespace {

struct GatherLowering : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto src = layoutOf(op.getSrc().getType()), index = layoutOf(op.getIndex().getType());
    Type structType = getTypeConverter()->convertType(op.getType());
    Type eltType = getTypeConverter()->convertType(op.getType().getElementType());
    if (failed(src) || failed(index) || !structType || !eltType)
      return rewriter.notifyMatchFailure(op, "tile without a usable layout");
    if (!op.getScratch())
      return rewriter.notifyMatchFailure(op, "no scratch");
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    unsigned memBits = memoryBits(eltType);
    int64_t bytes = memBits / 8;
    ArrayRef<int64_t> shape = src->getShape();
    unsigned rank = shape.size(), axis = op.getAxis();
    int64_t axisSize = shape[axis];
    Value base = adaptor.getScratch();
    auto address = [&](ArrayRef<Value> coords) {
      Value offset = rowMajorOffset(rewriter, loc, shape, shape.back(), coords);
      return addBytes(
          rewriter, loc, base,
          LLVM::MulOp::create(rewriter, loc, offset, intConst(rewriter, loc, i32, bytes)));
    };

    SmallVector<Value> regs = unpack(rewriter, loc, adaptor.getSrc());
    SmallVector<Value> indices = unpack(rewriter, loc, adaptor.getIndex());
    int64_t warps = std::max(src->getNumWarps(), index->getNumWarps());
    groupBarrier(rewriter, loc, warps);
    ThreadCoords from(rewriter, loc, *src);
    for (int64_t r = 0; r < src->getNumRegs(); ++r) {
      SmallVector<Value> coords;
      for (unsigned d = 0; d < rank; ++d)
        coords.push_back(from.get(rewriter, loc, r, d));
      storeBits(rewriter, loc, address(coords), regs[r], memBits);
    }
    groupBarrier(rewriter, loc, warps);

    ThreadCoords to(rewriter, loc, *index);
    SmallVector<Value> out;
    for (int64_t r = 0; r < index->getNumRegs(); ++r) {
      // The index as an i32 in [0, axisSize): Triton leaves other values
      // undefined; taking them modulo the axis keeps every read inside the
      // scratch.
      Value idx = indices[r];
      unsigned bits = idx.getType().getIntOrFloatBitWidth();
      if (bits > 32)
        idx = LLVM::TruncOp::create(rewriter, loc, i32, idx);
      else if (bits < 32)
        idx = LLVM::SExtOp::create(rewriter, loc, i32, idx);
      idx = llvm::isPowerOf2_64(axisSize)
                ? Value(LLVM::AndOp::create(rewriter, loc, idx,
                                            intConst(rewriter, loc, i32, axisSize - 1)))
                : Value(LLVM::URemOp::create(rewriter, loc, idx,
                                             intConst(rewriter, loc, i32, axisSize)));
      SmallVector<Value> coords;
      for (unsigned d = 0; d < rank; ++d)
        coords.push_back(d == axis ? idx : to.get(rewriter, loc, r, d));
      out.push_back(loadBits(rewriter, loc, address(coords), 1, eltType, memBits).front());
    }
    rewriter.replaceOp(op, pack(rewriter, loc, structType, out));
    return success();
  }
};

} // namespace

void mlir::txl::tile::populateGatherPatterns(const TXLTypeConverter &converter,
                                             RewritePatternSet &patterns, PatternBenefit benefit) {
  patterns.add<GatherLowering>(converter, patterns.getContext(), benefit);
}
