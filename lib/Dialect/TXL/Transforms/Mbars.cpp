//===- Mbars.cpp - lower mbarriers ------------------------------------------===//
//
// mbar_alloc (at its planned offset) is initialised once: thread 0 runs
// `mbarrier.init` for every stage with the arrive count, then
// `fence.mbarrier_init` makes the inits visible to the async proxy (TMA) and
// a block barrier makes them visible to every thread before first use (in a
// cluster kernel a cluster barrier: other CTAs signal them too). That
// barrier needs every thread, so mbar_alloc must sit at the kernel's top
// level, outside warp-specialized regions.
//
// mbar_expect is `mbarrier.arrive.expect_tx` by the first thread of the
// warpgroup (the thread that issues the TMA), mbar_arrive an arrive by every
// thread that executes it, mbar_wait a `try_wait.parity` spin loop (with
// debug-hangs: a bounded loop that prints where it hung and traps).
//
//===----------------------------------------------------------------------===//

#include "txl/Analysis/LoweringUtils.h"
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
    if (getClusterSize(op) > 1) {
      // Other CTAs of the cluster arrive on (or st.async into) this CTA's
      // barriers: the inits must be visible cluster-wide before anyone
      // starts (fence.mbarrier_init is .release.cluster).
      NVVM::ClusterArriveOp::create(rewriter, loc, rewriter.getUnitAttr());
      NVVM::ClusterWaitOp::create(rewriter, loc, rewriter.getUnitAttr());
    } else {
      NVVM::Barrier0Op::create(rewriter, loc);
    }
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
    // mbarriers are 8 bytes each.
    rewriter.replaceOp(op, addScaledIndex(rewriter, loc, adaptor.getSrc(), adaptor.getIndex(), 8));
    return success();
  }
};

struct LowerMbarExpect : OpConversionPattern<MbarExpectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MbarExpectOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value pred = isRoleLeader(rewriter, loc, getRoleWarps(op));
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
        mbar = mapToCta(rewriter, loc, mbar, cta);
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

/// `vprintf(format, args)` with a format string global and an i32 argument
/// buffer on the stack (the CUDA device printf ABI).
void emitPrintf(OpBuilder &b, Location loc, Operation *anchor, StringRef format,
                ArrayRef<Value> args) {
  auto module = anchor->getParentOfType<ModuleOp>();
  MLIRContext *ctx = b.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  if (!module.lookupSymbol("vprintf")) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::LLVMFuncOp::create(b, loc, "vprintf",
                             LLVM::LLVMFunctionType::get(b.getI32Type(), {ptr, ptr}));
  }
  std::string name;
  for (int i = 0;; ++i) {
    name = "txl_hang_msg_" + std::to_string(i);
    if (!module.lookupSymbol(name))
      break;
  }
  std::string text = format.str();
  text.push_back('\0');
  auto strType = LLVM::LLVMArrayType::get(b.getI8Type(), text.size());
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc, strType, /*isConstant=*/true, LLVM::Linkage::Internal, name,
                           b.getStringAttr(text));
  }
  Value fmt = LLVM::AddressOfOp::create(b, loc, ptr, name);
  auto argsType =
      LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(args.size(), b.getI32Type()));
  Value buffer = LLVM::AllocaOp::create(b, loc, ptr, argsType, i64Const(b, loc, 1));
  for (auto [i, v] : llvm::enumerate(args)) {
    Value field = LLVM::GEPOp::create(b, loc, ptr, argsType, buffer,
                                      ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
    LLVM::StoreOp::create(b, loc, v, field);
  }
  LLVM::CallOp::create(b, loc, TypeRange{b.getI32Type()}, "vprintf", ValueRange{fmt, buffer});
}

/// A wait that gives up after 2 s: try_wait.parity in a loop (each try
/// returns after a hardware time limit), checking %globaltimer; on timeout
/// print where and trap.
void emitBoundedWait(OpBuilder &b, Location loc, Operation *op, Value mbar, Value phase) {
  auto i64 = b.getI64Type();
  Value start = NVVM::GlobalTimerOp::create(b, loc, i64);
  Value addr = LLVM::PtrToIntOp::create(b, loc, i64, mbar);
  auto loop = scf::WhileOp::create(b, loc, TypeRange{}, ValueRange{});
  {
    OpBuilder::InsertionGuard guard(b);
    Block *before = b.createBlock(&loop.getBefore());
    auto tryWait =
        createInlinePtx(b, loc, b.getI32Type(), ValueRange{addr, phase},
                        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2;\n"
                        "selp.u32 $0, 1, 0, p;\n}",
                        "=r,l,r");
    Value waiting = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, tryWait.getResult(0),
                                         i32Const(b, loc, 0));
    scf::ConditionOp::create(b, loc, waiting, ValueRange{});
    (void)before;
    b.createBlock(&loop.getAfter());
    Value now = NVVM::GlobalTimerOp::create(b, loc, i64);
    Value elapsed = LLVM::SubOp::create(b, loc, now, start);
    Value late = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ugt, elapsed,
                                      i64Const(b, loc, 2000000000));
    auto ifLate = scf::IfOp::create(b, loc, late, false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(ifLate.thenBlock());
      std::string where;
      llvm::raw_string_ostream os(where);
      os << loc;
      std::string format = "txl: mbarrier wait timed out after 2 s: barrier at shared offset %u, "
                           "phase %u, block (%u, %u, %u), thread %u, at ";
      for (char c : where)
        format += c == '%' ? std::string("%%") : std::string(1, c);
      format += "\n";
      Value base = getSharedAddress(b, loc, op, 0);
      Value offset = LLVM::SubOp::create(b, loc, addr, LLVM::PtrToIntOp::create(b, loc, i64, base));
      auto i32 = b.getI32Type();
      emitPrintf(b, loc, op, format,
                 {LLVM::TruncOp::create(b, loc, i32, offset), phase,
                  NVVM::BlockIdXOp::create(b, loc, i32), NVVM::BlockIdYOp::create(b, loc, i32),
                  NVVM::BlockIdZOp::create(b, loc, i32), getThreadId(b, loc)});
      LLVM::Trap::create(b, loc);
    }
    scf::YieldOp::create(b, loc, ValueRange{});
  }
}

struct LowerMbarWait : OpConversionPattern<MbarWaitOp> {
  LowerMbarWait(const TypeConverter &converter, MLIRContext *ctx, bool bounded)
      : OpConversionPattern(converter, ctx), bounded(bounded) {}
  bool bounded;

  LogicalResult matchAndRewrite(MbarWaitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (bounded) {
      emitBoundedWait(rewriter, loc, op, adaptor.getMbar(), adaptor.getPhase());
      rewriter.eraseOp(op);
      return success();
    }
    // A suspend-time hint of 0x989680 (10 ms) as CUTLASS uses.
    NVVM::MBarrierTryWaitParityOp::create(rewriter, loc, adaptor.getMbar(), adaptor.getPhase(),
                                          i32Const(rewriter, loc, 0x989680));
    rewriter.eraseOp(op);
    return success();
  }
};

struct MbarsPass : txl::impl::TXLMbarsBase<MbarsPass> {
  using TXLMbarsBase::TXLMbarsBase;
  void runOnOperation() override {
    TXLTypeConverter converter(&getContext());
    ConversionTarget target(getContext());
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addIllegalOp<MbarAllocOp, MbarExpectOp, MbarArriveOp, MbarWaitOp>();
    target.addDynamicallyLegalOp<GetBufferOp>(
        [](GetBufferOp op) { return !isa<MbarType>(op.getSrc().getType()); });
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerMbarAlloc, LowerMbarGetBuffer, LowerMbarExpect, LowerMbarArrive>(
        converter, &getContext());
    patterns.add<LowerMbarWait>(converter, &getContext(), debugHangs);
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
