//===- TmemAllocs.cpp - tensor-memory allocation ----------------------------===//
//
// Tensor memory (Blackwell) is allocated in 32-bit columns, a power of two
// >= 32 and <= 512 per block, by one warp with `tcgen05.alloc`, which writes
// the TMEM address to shared memory (the slot SmemAllocs reserved). This
// stage gives all txl.tmem_alloc ops of a kernel one allocation: each buffer
// gets a column range, warp 0 allocates the total and relinquishes the
// permit (no later allocations), a fenced block barrier publishes the
// address, and before the kernel returns the warp deallocates it after a
// block barrier (no thread may still use tensor memory).
//
//===----------------------------------------------------------------------===//

#include "txl/Analysis/LoweringUtils.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLTMEMALLOCS
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

Value inWarp0(OpBuilder &b, Location loc) {
  Value warp = LLVM::UDivOp::create(b, loc, getThreadId(b, loc), i32Const(b, loc, 32));
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, warp, i32Const(b, loc, 0));
}

LogicalResult allocateKernel(func::FuncOp func) {
  SmallVector<TmemAllocOp> allocs;
  func.walk([&](TmemAllocOp op) { allocs.push_back(op); });
  if (allocs.empty())
    return success();
  Block &entry = func.getBody().front();
  int64_t total = 0;
  SmallVector<int64_t> firstColumn;
  for (TmemAllocOp op : allocs) {
    if (op->getBlock() != &entry)
      return op.emitOpError() << "must be at the kernel's top level: tensor memory is allocated "
                                 "once, by warp 0, before any warp-specialized region";
    if (!op->hasAttr(kOffsetAttrName))
      return op.emitOpError() << "has no address slot; run --txl-smem-allocs first";
    firstColumn.push_back(total);
    total += op.getType().getStageColumns() * op.getType().getStageCount();
  }
  if (total > 512)
    return allocs.front().emitOpError()
           << "the kernel's tensor-memory buffers need " << total
           << " columns; a block has 512. Use fewer stages or narrower accumulators";
  int64_t columns = std::max<int64_t>(32, llvm::PowerOf2Ceil(total));

  MLIRContext *ctx = func.getContext();
  auto group = NVVM::CTAGroupKindAttr::get(ctx, NVVM::CTAGroupKind::CTA_1);
  Location loc = allocs.front().getLoc();
  OpBuilder b(allocs.front());
  int64_t slotOffset = allocs.front()->getAttrOfType<IntegerAttr>(kOffsetAttrName).getInt();
  Value slot = getSharedAddress(b, loc, allocs.front(), slotOffset);
  auto ifOp = scf::IfOp::create(b, loc, inWarp0(b, loc), false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    NVVM::Tcgen05AllocOp::create(b, loc, slot, i32Const(b, loc, columns), group);
    NVVM::Tcgen05RelinquishAllocPermitOp::create(b, loc, group);
  }
  NVVM::Tcgen05FenceOp::create(
      b, loc, NVVM::Tcgen05FenceKindAttr::get(ctx, NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC));
  NVVM::Barrier0Op::create(b, loc);
  NVVM::Tcgen05FenceOp::create(
      b, loc, NVVM::Tcgen05FenceKindAttr::get(ctx, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC));
  Value base = LLVM::LoadOp::create(b, loc, b.getI32Type(), slot);
  for (auto [op, col] : llvm::zip(allocs, firstColumn)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(op);
    Value addr = col ? Value(LLVM::AddOp::create(b, loc, base, i32Const(b, loc, col))) : base;
    auto cast = UnrealizedConversionCastOp::create(b, op.getLoc(), op.getType(), addr);
    op.replaceAllUsesWith(cast.getResult(0));
    op.erase();
  }
  // Free it when the kernel ends.
  func.walk([&](func::ReturnOp ret) {
    OpBuilder rb(ret);
    NVVM::Tcgen05FenceOp::create(
        rb, loc, NVVM::Tcgen05FenceKindAttr::get(ctx, NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC));
    NVVM::Barrier0Op::create(rb, loc);
    auto freeIf = scf::IfOp::create(rb, loc, inWarp0(rb, loc), false);
    rb.setInsertionPointToStart(freeIf.thenBlock());
    NVVM::Tcgen05FenceOp::create(
        rb, loc, NVVM::Tcgen05FenceKindAttr::get(ctx, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC));
    auto tmemPtr = LLVM::LLVMPointerType::get(ctx, 6);
    Value ptr = LLVM::IntToPtrOp::create(rb, loc, tmemPtr, base);
    NVVM::Tcgen05DeallocOp::create(rb, loc, ptr, i32Const(rb, loc, columns), group);
  });
  return success();
}

/// get_buffer of a tensor-memory buffer: the stage's first column.
struct LowerTmemGetBuffer : OpConversionPattern<GetBufferOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(GetBufferOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto src = dyn_cast<TmemType>(op.getSrc().getType());
    if (!src)
      return failure();
    Location loc = op.getLoc();
    Value cols = LLVM::MulOp::create(rewriter, loc, adaptor.getIndex(),
                                     i32Const(rewriter, loc, src.getStageColumns()));
    rewriter.replaceOp(op, LLVM::AddOp::create(rewriter, loc, adaptor.getSrc(), cols));
    return success();
  }
};

struct TmemAllocsPass : txl::impl::TXLTmemAllocsBase<TmemAllocsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (failed(allocateKernel(func)))
        return signalPassFailure();
    TXLTypeConverter converter(&getContext());
    ConversionTarget target(getContext());
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addDynamicallyLegalOp<GetBufferOp>(
        [](GetBufferOp op) { return !isa<TmemType>(op.getSrc().getType()); });
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerTmemGetBuffer>(converter, &getContext());
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
