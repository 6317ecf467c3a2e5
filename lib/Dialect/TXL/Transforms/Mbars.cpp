//===- Mbars.cpp - pipeliner stage 4: lower mbarriers ---------------------===//
//
// mbar_alloc (at its planned offset) is initialised once: thread 0 runs
// `mbarrier.init` for every stage with the arrive count, then
// `fence.mbarrier_init` makes the inits visible to the async proxy (TMA) and
// a block barrier makes them visible to every thread before first use. That
// barrier needs every thread, so mbar_alloc must sit at the kernel's top
// level, outside warp-specialized regions.
//
// mbar_expect is `mbarrier.arrive.expect_tx` by the first thread of the
// warpgroup (the thread that issues the TMA), mbar_arrive an arrive by every
// thread that executes it, mbar_wait a `try_wait.parity` spin loop.
//
//===----------------------------------------------------------------------===//

#include "txl/Dialect/TXL/Transforms/LoweringUtils.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLMBARS
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

/// Runs `body` only where `pred` holds (no-op when `pred` is null).
void ifThen(OpBuilder &b, Location loc, Value pred, function_ref<void()> body) {
  if (!pred)
    return body();
  auto ifOp = scf::IfOp::create(b, loc, pred, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  body();
}

struct LowerMbarAlloc : OpConversionPattern<MbarAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MbarAllocOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto offset = op->getAttrOfType<IntegerAttr>(kOffsetAttrName);
    if (!offset)
      return op.emitOpError() << "has no planned offset; run --txl-smem-allocs first";
    auto func = op->getParentOfType<FunctionOpInterface>();
    if (!func || op->getBlock() != &func.getFunctionBody().front())
      return op.emitOpError()
             << "must be at the kernel's top level: its initialisation ends in a barrier "
                "of all threads, which cannot run inside a warp-specialized or divergent region";
    Location loc = op.getLoc();
    Value base = getSharedAddress(rewriter, loc, op, offset.getInt());
    Value tid = getThreadId(rewriter, loc);
    Value first = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, tid,
                                       i32Const(rewriter, loc, 0));
    ifThen(rewriter, loc, first, [&] {
      Value count = i32Const(rewriter, loc, op.getArriveCount());
      for (int64_t s = 0; s < op.getType().getStageCount(); ++s)
        NVVM::MBarrierInitOp::create(rewriter, loc, addBytes(rewriter, loc, base, 8 * s), count,
                                     Value());
      NVVM::FenceMbarrierInitOp::create(rewriter, loc);
    });
    NVVM::Barrier0Op::create(rewriter, loc);
    rewriter.replaceOp(op, base);
    return success();
  }
};

struct LowerMbarGetBuffer : OpConversionPattern<GetBufferOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(GetBufferOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (!isa<MbarType>(op.getSrc().getType()))
      return failure();
    Location loc = op.getLoc();
    Value index = LLVM::SExtOp::create(rewriter, loc, rewriter.getI64Type(), adaptor.getIndex());
    Value bytes = LLVM::MulOp::create(rewriter, loc, index, i64Const(rewriter, loc, 8));
    rewriter.replaceOp(op, addBytes(rewriter, loc, adaptor.getSrc(), bytes));
    return success();
  }
};

struct LowerMbarExpect : OpConversionPattern<MbarExpectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MbarExpectOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value pred = isWarpgroupLeader(rewriter, loc);
    if (adaptor.getPred())
      pred = LLVM::AndOp::create(rewriter, loc, pred, adaptor.getPred());
    NVVM::MBarrierArriveExpectTxOp::create(rewriter, loc, Type(), adaptor.getMbar(),
                                           i32Const(rewriter, loc, op.getBytes()),
                                           NVVM::MemScopeKind::CTA, false, pred);
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerMbarArrive : OpConversionPattern<MbarArriveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MbarArriveOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (adaptor.getRemoteCtaId() && op.getTxCount() > 0)
      return op.emitOpError() << "a remote arrive with tx_count is not supported yet";
    Location loc = op.getLoc();
    Value mbar = adaptor.getMbar();
    ifThen(rewriter, loc, adaptor.getPred(), [&] {
      if (op.getTrackAsyncOp()) {
        // Arrives when this thread's earlier cp.async copies land.
        NVVM::CpAsyncMBarrierArriveOp::create(rewriter, loc, mbar, /*noinc=*/true);
        return;
      }
      if (Value cta = adaptor.getRemoteCtaId()) {
        // The barrier at the same offset in CTA `cta` of the cluster.
        auto clusterPtr = LLVM::LLVMPointerType::get(rewriter.getContext(), 7);
        mbar = NVVM::MapaOp::create(rewriter, loc, clusterPtr, mbar, cta);
      }
      if (op.getTxCount() > 0 && !adaptor.getRemoteCtaId()) {
        NVVM::MBarrierArriveExpectTxOp::create(rewriter, loc, Type(), mbar,
                                               i32Const(rewriter, loc, op.getTxCount()),
                                               NVVM::MemScopeKind::CTA, false, Value());
        return;
      }
      NVVM::MBarrierArriveOp::create(rewriter, loc, Type(), mbar, Value());
    });
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerMbarWait : OpConversionPattern<MbarWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MbarWaitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // A suspend-time hint of 0x989680 (10 ms) as CUTLASS uses.
    NVVM::MBarrierTryWaitParityOp::create(rewriter, loc, adaptor.getMbar(), adaptor.getPhase(),
                                          i32Const(rewriter, loc, 0x989680));
    rewriter.eraseOp(op);
    return success();
  }
};

struct MbarsPass : txl::impl::TXLMbarsBase<MbarsPass> {
  void runOnOperation() override {
    TXLTypeConverter converter(&getContext());
    ConversionTarget target(getContext());
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addIllegalOp<MbarAllocOp, MbarExpectOp, MbarArriveOp, MbarWaitOp>();
    target.addDynamicallyLegalOp<GetBufferOp>(
        [](GetBufferOp op) { return !isa<MbarType>(op.getSrc().getType()); });
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerMbarAlloc, LowerMbarGetBuffer, LowerMbarExpect, LowerMbarArrive,
                 LowerMbarWait>(converter, &getContext());
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
