//===- LowerLoads.cpp - pipeliner stage 5: TMA copies and their waits -----===//
//
// TMA is issued by one thread: the first of the warpgroup that executes the
// op (TXL kernels call tma_load from a whole producer warpgroup). A box whose
// inner dimension is wider than the swizzle span is moved as several
// hardware boxes (see getTmaBox). Coordinates are given outermost first, as
// the tile's shape; TMA wants them innermost first.
//
// A TMA store reads shared memory through the async proxy, so the generic
// writes that filled the tile are fenced first (fence.proxy.async); its
// completion is tracked per issuing thread by bulk groups. tma_store_wait
// waits for the group in the issuing thread and then syncs the warpgroup on
// a compiler-reserved named barrier (1 + warpgroup id) so no thread reuses
// the tile while TMA still reads it.
//
//===----------------------------------------------------------------------===//

#include "txl/Dialect/TXL/Transforms/LoweringUtils.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLLOWERLOADS
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

/// TMA coordinates of piece `k`: innermost first, the inner one advanced by
/// k hardware boxes.
SmallVector<Value> tmaCoords(OpBuilder &b, Location loc, ValueRange indices, const TmaBox &box,
                             int64_t k) {
  SmallVector<Value> coords(llvm::reverse(indices));
  if (k > 0)
    coords[0] = LLVM::AddOp::create(b, loc, coords[0], i32Const(b, loc, k * box.box.back()));
  return coords;
}

void fenceAsyncShared(OpBuilder &b, Location loc) {
  NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKind::async_shared,
                             NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
}

struct LowerTmaLoad : OpConversionPattern<TmaLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TmaLoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TmaBox box = getTmaBox(op.getDesc().getType());
    Value leader = isWarpgroupLeader(rewriter, loc);
    // The destination is in shared::cluster space (the CTA's own window).
    auto clusterPtr = LLVM::LLVMPointerType::get(rewriter.getContext(), 7);
    for (int64_t k = 0; k < box.pieces; ++k) {
      Value dst = addBytes(rewriter, loc, adaptor.getDst(), k * box.pieceBytes);
      dst = LLVM::AddrSpaceCastOp::create(rewriter, loc, clusterPtr, dst);
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          rewriter, loc, dst, adaptor.getDesc(),
          tmaCoords(rewriter, loc, adaptor.getIndices(), box, k), adaptor.getMbar(),
          ValueRange{}, Value(), Value(), NVVM::TMALoadMode::TILE, /*isCTAOnly=*/false,
          NVVM::CTAGroupKindAttr(), leader);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerTmaStore : OpConversionPattern<TmaStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TmaStoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TmaBox box = getTmaBox(op.getDesc().getType());
    fenceAsyncShared(rewriter, loc);
    Value leader = isWarpgroupLeader(rewriter, loc);
    for (int64_t k = 0; k < box.pieces; ++k)
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
          rewriter, loc, adaptor.getDesc(), addBytes(rewriter, loc, adaptor.getSrc(), k * box.pieceBytes),
          tmaCoords(rewriter, loc, adaptor.getIndices(), box, k), Value(),
          NVVM::TMAStoreMode::TILE, leader);
    NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerTmaStoreWait : OpConversionPattern<TmaStoreWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TmaStoreWaitOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVVM::CpAsyncBulkWaitGroupOp::create(rewriter, loc, op.getPendings(), rewriter.getUnitAttr());
    // Sync the warpgroup: barrier 1 + warpgroup id, 128 threads.
    Value wg = LLVM::UDivOp::create(rewriter, loc, getThreadId(rewriter, loc),
                                    i32Const(rewriter, loc, 128));
    Value id = LLVM::AddOp::create(rewriter, loc, wg, i32Const(rewriter, loc, 1));
    NVVM::BarrierOp::create(rewriter, loc, Type(), id, i32Const(rewriter, loc, 128), nullptr,
                            Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerFenceProxyAsync : OpConversionPattern<FenceProxyAsyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(FenceProxyAsyncOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    fenceAsyncShared(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerLoadsPass : txl::impl::TXLLowerLoadsBase<LowerLoadsPass> {
  void runOnOperation() override {
    TXLTypeConverter converter(&getContext());
    ConversionTarget target(getContext());
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addIllegalOp<TmaLoadOp, TmaStoreOp, TmaStoreWaitOp, FenceProxyAsyncOp>();
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerTmaLoad, LowerTmaStore, LowerTmaStoreWait, LowerFenceProxyAsync>(
        converter, &getContext());
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
