//===- TileInlineAsm.cpp - txl.elementwise_inline_asm to llvm.inline_asm ----===//
//
// tl.inline_asm_elementwise: the user's PTX once per `packed_element`
// registers of the thread, as Triton lowers tt.elementwise_inline_asm.
// Elements narrower than 32 bits travel packed in vectors of up to
// 32 / bits (so four i8 or two f16 fill one `r` register); a call with
// several output registers returns a struct. Operands and results share one
// layout (layout assignment unites them), so register r of every operand
// and result is the same element and the calls simply walk the registers.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::txl;
using namespace mlir::txl::tile;

namespace {

struct ElementwiseInlineAsmLowering : OpConversionPattern<ElementwiseInlineAsmOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(ElementwiseInlineAsmOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const TypeConverter &tc = *getTypeConverter();
    int64_t packed = op.getPackedElement();
    bool tiles = isa<RankedTensorType>(op.getResult(0).getType());
    Type i32 = rewriter.getI32Type();

    // Each operand's registers (a scalar is one register).
    SmallVector<SmallVector<Value>> regs;
    for (Value v : adaptor.getSrcs())
      regs.push_back(tiles ? unpack(rewriter, loc, v) : SmallVector<Value>{v});
    int64_t numRegs = regs.empty() ? 1 : regs.front().size(); // no operands: scalars
    for (auto &r : regs)
      if (int64_t(r.size()) != numRegs)
        return rewriter.notifyMatchFailure(op, "operand tiles differ in registers");

    // The asm's result registers per call.
    SmallVector<Type> resultElts, asmTypes;
    SmallVector<int64_t> resultPerReg;
    for (Type t : op.getResultTypes()) {
      Type elt = tc.convertType(getElementTypeOrSelf(t));
      if (!elt)
        return rewriter.notifyMatchFailure(op, "result element type does not convert");
      int64_t perReg = ElementwiseInlineAsmOp::elementsPerRegister(getElementTypeOrSelf(t), packed);
      Type regType = perReg > 1 ? Type(VectorType::get({perReg}, elt)) : elt;
      resultElts.push_back(elt);
      resultPerReg.push_back(perReg);
      asmTypes.append(packed / perReg, regType);
    }
    Type asmResult = asmTypes.size() == 1
                         ? asmTypes.front()
                         : Type(LLVM::LLVMStructType::getLiteral(rewriter.getContext(), asmTypes));

    SmallVector<SmallVector<Value>> results(op.getNumResults());
    for (int64_t base = 0; base < numRegs; base += packed) {
      // Element k of this call: register base + k, or the chunk's first one
      // past the thread's last register (its results are dropped).
      auto reg = [&](int64_t operand, int64_t k) {
        return regs[operand][base + k < numRegs ? base + k : base];
      };
      SmallVector<Value> asmOperands;
      for (auto [i, src] : llvm::enumerate(op.getSrcs())) {
        Type elt = regs[i].front().getType();
        int64_t perReg = ElementwiseInlineAsmOp::elementsPerRegister(
            getElementTypeOrSelf(src.getType()), packed);
        for (int64_t k = 0; k < packed; k += perReg) {
          if (perReg == 1) {
            asmOperands.push_back(reg(i, k));
            continue;
          }
          Value vec = LLVM::UndefOp::create(rewriter, loc, VectorType::get({perReg}, elt));
          for (int64_t e = 0; e < perReg; ++e)
            vec = LLVM::InsertElementOp::create(rewriter, loc, vec, reg(i, k + e),
                                                intConst(rewriter, loc, i32, e));
          asmOperands.push_back(vec);
        }
      }
      // The one inline-PTX builder marks asm as having side effects; a pure
      // one may be merged or dropped when unused, as in Triton.
      auto call = createInlinePtx(rewriter, loc, asmResult, asmOperands, op.getAsmString(),
                                  op.getConstraints());
      call.setHasSideEffects(!op.getPure());
      Value all = call.getResult(0);
      int64_t field = 0;
      for (auto [r, perReg] : llvm::enumerate(resultPerReg)) {
        for (int64_t k = 0; k < packed; k += perReg) {
          Value v = asmTypes.size() == 1
                        ? all
                        : Value(LLVM::ExtractValueOp::create(rewriter, loc, all, field));
          ++field;
          for (int64_t e = 0; e < perReg; ++e) {
            if (base + k + e >= numRegs)
              break;
            results[r].push_back(perReg == 1
                                     ? v
                                     : Value(LLVM::ExtractElementOp::create(
                                           rewriter, loc, v, intConst(rewriter, loc, i32, e))));
          }
        }
      }
    }

    SmallVector<Value> replacements;
    for (auto [r, t] : llvm::enumerate(op.getResultTypes())) {
      if (!tiles) {
        replacements.push_back(results[r].front());
        continue;
      }
      Type structType = tc.convertType(t);
      if (!structType)
        return rewriter.notifyMatchFailure(op, "result tile type does not convert");
      replacements.push_back(pack(rewriter, loc, structType, results[r]));
    }
    rewriter.replaceOp(op, replacements);
    return success();
  }
};

} // namespace

void mlir::txl::tile::populateInlineAsmPatterns(const TXLTypeConverter &converter,
                                                RewritePatternSet &patterns,
                                                PatternBenefit benefit) {
  patterns.add<ElementwiseInlineAsmLowering>(converter, patterns.getContext(), benefit);
}
