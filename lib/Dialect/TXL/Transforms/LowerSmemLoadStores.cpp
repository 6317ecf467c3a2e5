//===- LowerSmemLoadStores.cpp - pipeliner stage 6: tiles <-> smem --------===//
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
// Each element is one ld/st.shared; vectorising neighbouring elements is a
// later optimisation.
//
//===----------------------------------------------------------------------===//

#include "txl/Dialect/TXL/Transforms/LoweringUtils.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLLOWERSMEMLOADSTORES
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

/// Byte address of element `coords` of `view` (at `base`).
Value elementAddress(OpBuilder &b, Location loc, Value base, SmemType view,
                     ArrayRef<Value> coords) {
  auto enc = dyn_cast_or_null<NVMMASharedAttr>(view.getEncoding());
  int64_t elemBytes = std::max<int64_t>(1, getElementBitWidth(view.getElementType()) / 8);
  SmallVector<int64_t> shape(view.getShape());
  SmallVector<Value> c(coords);
  if (enc && enc.getTransposed() && shape.size() == 2) {
    std::swap(shape[0], shape[1]);
    std::swap(c[0], c[1]);
  }
  auto mul = [&](Value v, int64_t k) {
    return k == 1 ? v : Value(LLVM::MulOp::create(b, loc, v, i32Const(b, loc, k)));
  };
  auto add = [&](Value x, Value y) { return Value(LLVM::AddOp::create(b, loc, x, y)); };
  // Rows: every dimension but the last, flattened.
  Value row = i32Const(b, loc, 0);
  for (size_t d = 0; d + 1 < shape.size(); ++d)
    row = add(mul(row, shape[d]), c[d]);
  Value col = c.back();
  Value offset;
  unsigned swizzle = enc ? enc.getSwizzle() : 0;
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < shape.size(); ++d)
    rows *= shape[d];
  if (swizzle == 0) {
    offset = mul(add(mul(row, shape.back()), col), elemBytes);
  } else {
    int64_t perBlock = swizzle / elemBytes;
    Value block = LLVM::UDivOp::create(b, loc, col, i32Const(b, loc, perBlock));
    Value within = LLVM::URemOp::create(b, loc, col, i32Const(b, loc, perBlock));
    Value lin = add(add(mul(block, rows * swizzle), mul(row, swizzle)), mul(within, elemBytes));
    Value sel = LLVM::LShrOp::create(b, loc, lin, i32Const(b, loc, 7));
    sel = LLVM::AndOp::create(b, loc, sel, i32Const(b, loc, swizzle / 16 - 1));
    sel = LLVM::ShlOp::create(b, loc, sel, i32Const(b, loc, 4));
    offset = LLVM::XOrOp::create(b, loc, lin, sel);
  }
  return addBytes(b, loc, base, offset);
}

FailureOr<LinearLayout> tileLayout(Operation *op, RankedTensorType tile) {
  std::string why;
  auto layout = LinearLayout::get(tile.getShape(), tile.getEncoding(), &why);
  if (failed(layout))
    return op->emitOpError() << "cannot distribute " << tile << ": " << why;
  return layout;
}

struct LowerSmemLoad : OpConversionPattern<SmemLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SmemLoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (op.getCtaId() != -1)
      return op.emitOpError() << "loads from another CTA of the cluster are not supported yet";
    Location loc = op.getLoc();
    auto tile = op.getType();
    auto layout = tileLayout(op, tile);
    Type structType = getTypeConverter()->convertType(tile);
    if (failed(layout) || !structType)
      return failure();
    ThreadCoords coords(rewriter, loc, *layout);
    Type elt = getTypeConverter()->convertType(tile.getElementType());
    Value result = LLVM::UndefOp::create(rewriter, loc, structType);
    for (int64_t r = 0; r < layout->getNumRegs(); ++r) {
      SmallVector<Value> c;
      for (unsigned d = 0; d < tile.getRank(); ++d)
        c.push_back(coords.get(rewriter, loc, r, d));
      Value addr = elementAddress(rewriter, loc, adaptor.getSrc(), op.getSrc().getType(), c);
      Value v = LLVM::LoadOp::create(rewriter, loc, elt, addr);
      result = LLVM::InsertValueOp::create(rewriter, loc, result, v, r);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LowerSmemStore : OpConversionPattern<SmemStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SmemStoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (op.getCtaId() != -1)
      return op.emitOpError() << "stores to another CTA of the cluster are not supported yet";
    Location loc = op.getLoc();
    auto tile = op.getValue().getType();
    auto layout = tileLayout(op, tile);
    if (failed(layout))
      return failure();
    ThreadCoords coords(rewriter, loc, *layout);
    // Threads holding copies of an element (broadcast lanes/warps) all store
    // the same value; that is harmless.
    for (int64_t r = 0; r < layout->getNumRegs(); ++r) {
      SmallVector<Value> c;
      for (unsigned d = 0; d < tile.getRank(); ++d)
        c.push_back(coords.get(rewriter, loc, r, d));
      Value addr = elementAddress(rewriter, loc, adaptor.getDst(), op.getDst().getType(), c);
      Value v = LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getValue(), r);
      LLVM::StoreOp::create(rewriter, loc, v, addr);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerSmemLoadStoresPass
    : txl::impl::TXLLowerSmemLoadStoresBase<LowerSmemLoadStoresPass> {
  void runOnOperation() override {
    TXLTypeConverter converter(&getContext());
    ConversionTarget target(getContext());
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addIllegalOp<SmemLoadOp, SmemStoreOp>();
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerSmemLoad, LowerSmemStore>(converter, &getContext());
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
