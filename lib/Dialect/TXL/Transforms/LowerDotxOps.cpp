//===- LowerDotxOps.cpp - tcgen05 MMA ---------------------------------------===//
//
// txl.dotx (Blackwell) becomes one `tcgen05.mma` per K step, issued by one
// thread (lane 0 of the issuing warp), accumulating into tensor memory, and
// a `tcgen05.commit` per completion mbarrier whose predicate holds. The MMA
// is described by:
//   - the instruction descriptor (32 bits): accumulator format (bits 4-5),
//     A and B formats (7-9, 10-12), A/B major-ness (15, 16), N >> 3 (17-22),
//     M >> 4 (24-28);
//   - shared-memory descriptors (nvvm.tcgen05.mma_smem_desc): start address,
//     leading/stride byte offsets (>> 4) and the swizzle mode (128 B: 2,
//     64 B: 4, 32 B: 6), addressed per K step like the Hopper wgmma operands.
// The accumulator's first use of each tile clears it through use_d.
//
//===----------------------------------------------------------------------===//

#include "txl/Analysis/LoweringUtils.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLLOWERDOTXOPS
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

struct Operand {
  Value base; // address >> 4, i32
  bool kMajor;
  int64_t swizzle, rows, elemBytes;
  int64_t offset(int64_t ks, int64_t kInstr) const {
    int64_t kBytes = kInstr * elemBytes;
    if (kMajor) {
      int64_t col = ks * kBytes;
      return (col / swizzle) * rows * swizzle + col % swizzle;
    }
    return ks * kInstr * swizzle;
  }
};

FailureOr<Operand> operand(OpBuilder &b, Location loc, DotXOp op, Value view, SmemType type,
                           bool isA) {
  auto enc = dyn_cast_or_null<NVMMASharedAttr>(type.getEncoding());
  if (!enc || enc.getSwizzle() == 0)
    return op.emitOpError() << (isA ? "A" : "B")
                            << " operand needs a swizzled shared layout; run --txl-smem-allocs";
  Operand o;
  o.swizzle = enc.getSwizzle();
  o.elemBytes = getElementBitWidth(type.getElementType()) / 8;
  o.kMajor = isA ? !enc.getTransposed() : enc.getTransposed();
  int64_t kDim = isA ? 1 : 0, mnDim = isA ? 0 : 1;
  o.rows = o.kMajor ? type.getDimSize(mnDim) : type.getDimSize(kDim);
  Value addr = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), view);
  addr = LLVM::AndOp::create(b, loc, addr, i32Const(b, loc, 0x3FFFF));
  o.base = LLVM::LShrOp::create(b, loc, addr, i32Const(b, loc, 4));
  return o;
}

Value descriptor(OpBuilder &b, Location loc, const Operand &o, int64_t ks, int64_t kInstr) {
  int64_t off = o.offset(ks, kInstr) >> 4;
  Value start = off ? Value(LLVM::AddOp::create(b, loc, o.base, i32Const(b, loc, off))) : o.base;
  int64_t lbo = o.kMajor ? 1 : (o.rows * o.swizzle) >> 4;
  int64_t sbo = (8 * o.swizzle) >> 4;
  int64_t mode = o.swizzle == 128 ? 2 : o.swizzle == 64 ? 4 : 6;
  auto i8 = b.getI8Type();
  return NVVM::Tcgen05MmaSmemDescOp::create(
      b, loc, b.getI64Type(), start, i32Const(b, loc, lbo), i32Const(b, loc, sbo),
      LLVM::ConstantOp::create(b, loc, i8, b.getI8IntegerAttr(0)),
      LLVM::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(false)),
      LLVM::ConstantOp::create(b, loc, i8, b.getI8IntegerAttr(mode)));
}

struct LowerDotX : OpConversionPattern<DotXOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(DotXOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (op.getTwoCtas())
      return op.emitOpError() << "two-CTA MMA is not supported yet";
    if (!isa<SmemType>(op.getA().getType()))
      return op.emitOpError() << "A from tensor memory is not supported yet";
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto aType = cast<SmemType>(op.getA().getType());
    SmemType bType = op.getB().getType();
    auto cType = cast<TmemType>(op.getC().getType());
    Type elt = aType.getElementType();
    if (!elt.isBF16() && !elt.isF16())
      return op.emitOpError() << "tcgen05 lowering supports f16 and bf16 inputs, got " << elt;
    if (!cType.getElementType().isF32())
      return op.emitOpError() << "tcgen05 lowering supports f32 accumulators, got "
                              << cType.getElementType();
    int64_t m = aType.getDimSize(0), k = aType.getDimSize(1), n = bType.getDimSize(1);
    const int64_t kInstr = 16;
    auto a = operand(rewriter, loc, op, adaptor.getA(), aType, true);
    auto b = operand(rewriter, loc, op, adaptor.getB(), bType, false);
    if (failed(a) || failed(b))
      return failure();
    uint32_t fmt = elt.isBF16() ? 1 : 0;
    uint32_t idesc = (1u << 4) | (fmt << 7) | (fmt << 10) | (uint32_t(!a->kMajor) << 15) |
                     (uint32_t(!b->kMajor) << 16) | (uint32_t(n >> 3) << 17) |
                     (uint32_t(m >> 4) << 24);

    // One thread issues: lane 0 of the executing warp, where pred holds.
    Value lane =
        LLVM::AndOp::create(rewriter, loc, getThreadId(rewriter, loc), i32Const(rewriter, loc, 31));
    Value issue = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, lane,
                                       i32Const(rewriter, loc, 0));
    if (adaptor.getPred())
      issue = LLVM::AndOp::create(rewriter, loc, issue, adaptor.getPred());
    auto ifOp = scf::IfOp::create(rewriter, loc, issue, false);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
    Value tmem =
        LLVM::IntToPtrOp::create(rewriter, loc, LLVM::LLVMPointerType::get(ctx, 6), adaptor.getC());
    Value idescV = i32Const(rewriter, loc, idesc);
    Value one =
        LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(), rewriter.getBoolAttr(true));
    auto kind = NVVM::Tcgen05MMAKindAttr::get(ctx, NVVM::Tcgen05MMAKind::F16);
    auto group = NVVM::CTAGroupKindAttr::get(ctx, NVVM::CTAGroupKind::CTA_1);
    auto collector =
        NVVM::Tcgen05MMACollectorOpAttr::get(ctx, NVVM::Tcgen05MMACollectorOp::DISCARD);
    for (int64_t ks = 0; ks < k / kInstr; ++ks) {
      Value enableD = ks == 0 && adaptor.getUseD() ? adaptor.getUseD() : one;
      NVVM::Tcgen05MMAOp::create(rewriter, loc, kind, group, collector, UnitAttr(), tmem,
                                 descriptor(rewriter, loc, *a, ks, kInstr),
                                 descriptor(rewriter, loc, *b, ks, kInstr), idescV, enableD,
                                 Value(), Value());
    }
    for (auto [i, mbar] : llvm::enumerate(adaptor.getMbars())) {
      Value pred = adaptor.getMbarPreds().empty() ? Value() : adaptor.getMbarPreds()[i];
      if (!pred) {
        NVVM::Tcgen05CommitOp::create(rewriter, loc, mbar, Value(), group);
        continue;
      }
      auto commitIf = scf::IfOp::create(rewriter, loc, pred, false);
      OpBuilder::InsertionGuard inner(rewriter);
      rewriter.setInsertionPointToStart(commitIf.thenBlock());
      NVVM::Tcgen05CommitOp::create(rewriter, loc, mbar, Value(), group);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerDotXOpsPass : txl::impl::TXLLowerDotXOpsBase<LowerDotXOpsPass> {
  void runOnOperation() override {
    // Checked before the conversion: a register accumulator may have no
    // converted type at all, and the driver would then fail without a reason.
    WalkResult walk = getOperation().walk([](DotXOp op) {
      if (!op.getResult())
        return WalkResult::advance();
      op.emitOpError() << "register accumulators are not supported: keep the accumulator in "
                          "tensor memory (txl.tmem_alloc) or run "
                          "--txl-fold-tmem-round-trips";
      return WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    TXLTypeConverter converter(&getContext());
    ConversionTarget target(getContext());
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addIllegalOp<DotXOp>();
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerDotX>(converter, &getContext());
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
