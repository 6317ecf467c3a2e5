//===- TileHistogram.cpp - txl.histogram with shared-memory atomics --------===//
//
// tl.histogram: the op's scratch (num_bins i32, added by
// --txl-allocate-scratch) is zeroed by the threads holding the result's
// registers; after a barrier every element of the source is added once
// (the copy atomicOwners picks, as the global atomics do) with
// atom.shared.add, at bin 0 with 0 when it is masked off or out of range
// (no branch); after a second barrier each thread reads its result
// registers. A barrier before the zeroing keeps a loop's next histogram
// from clearing counts other warps still read.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::txl;
using namespace mlir::txl::tile;

namespace {

struct HistogramLowering : OpConversionPattern<HistogramOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(HistogramOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto src = layoutOf(op.getSrc().getType()), dst = layoutOf(op.getType());
    Type structType = getTypeConverter()->convertType(op.getType());
    if (failed(src) || failed(dst) || !structType)
      return rewriter.notifyMatchFailure(op, "tile without a usable layout");
    if (!op.getScratch())
      return rewriter.notifyMatchFailure(op, "no scratch");
    auto owners = atomicOwners(*src);
    if (failed(owners))
      return rewriter.notifyMatchFailure(op, "layout duplicates elements");
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    int64_t bins = op.getType().getDimSize(0);
    Value base = adaptor.getScratch();
    auto binAddress = [&](Value bin) {
      return addBytes(rewriter, loc, base,
                      LLVM::MulOp::create(rewriter, loc, bin, intConst(rewriter, loc, i32, 4)));
    };
    int64_t warps = std::max(src->getNumWarps(), dst->getNumWarps());

    groupBarrier(rewriter, loc, warps);
    ThreadCoords to(rewriter, loc, *dst);
    Value zero = intConst(rewriter, loc, i32, 0);
    for (int64_t r = 0; r < dst->getNumRegs(); ++r)
      LLVM::StoreOp::create(rewriter, loc, zero, binAddress(to.get(rewriter, loc, r, 0)));
    groupBarrier(rewriter, loc, warps);

    SmallVector<Value> values = unpack(rewriter, loc, adaptor.getSrc());
    SmallVector<Value> mask;
    if (adaptor.getMask())
      mask = unpack(rewriter, loc, adaptor.getMask());
    Value owner;
    if (owners->dupThreadMask) {
      Value bits =
          LLVM::AndOp::create(rewriter, loc, getThreadId(rewriter, loc),
                              intConst(rewriter, loc, i32, int32_t(owners->dupThreadMask)));
      owner = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, bits, zero);
    }
    for (int64_t r = 0; r < int64_t(values.size()); ++r) {
      if (owners->canonical[r] != r)
        continue; // a copy of another register's element
      Value v = values[r];
      unsigned bits = v.getType().getIntOrFloatBitWidth();
      // In range: 0 <= v < bins, compared unsigned in the value's width (a
      // negative value is a large unsigned one).
      Value inRange = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult, v,
                                           intConst(rewriter, loc, v.getType(), bins));
      if (bits > 32)
        v = LLVM::TruncOp::create(rewriter, loc, i32, v);
      else if (bits < 32)
        v = LLVM::ZExtOp::create(rewriter, loc, i32, v);
      Value count = inRange;
      if (!mask.empty())
        count = LLVM::AndOp::create(rewriter, loc, count, mask[r]);
      if (owner)
        count = LLVM::AndOp::create(rewriter, loc, count, owner);
      Value bin = LLVM::SelectOp::create(rewriter, loc, count, v, zero);
      Value add = LLVM::ZExtOp::create(rewriter, loc, i32, count);
      LLVM::AtomicRMWOp::create(rewriter, loc, LLVM::AtomicBinOp::add, binAddress(bin), add,
                                LLVM::AtomicOrdering::monotonic);
    }
    groupBarrier(rewriter, loc, warps);

    SmallVector<Value> out;
    for (int64_t r = 0; r < dst->getNumRegs(); ++r)
      out.push_back(
          LLVM::LoadOp::create(rewriter, loc, i32, binAddress(to.get(rewriter, loc, r, 0))));
    rewriter.replaceOp(op, pack(rewriter, loc, structType, out));
    return success();
  }
};

} // namespace

void mlir::txl::tile::populateHistogramPatterns(const TXLTypeConverter &converter,
                                                RewritePatternSet &patterns,
                                                PatternBenefit benefit) {
  patterns.add<HistogramLowering>(converter, patterns.getContext(), benefit);
}
