//===- TilePrint.cpp - txl.print and txl.assert -----------------------------===//
//
// Device printf (vprintf) and assertions (__assertfail) of register tiles and
// scalars.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <array>

using namespace mlir;
using namespace mlir::txl;
using namespace mlir::txl::tile;
using Coord = LinearLayout::Coord;

namespace mlir::txl::tile {

/// The address of a NUL-terminated constant global holding `text` (one
/// global per text, named `prefix` + a hash).
Value constantString(OpBuilder &b, Location loc, ModuleOp module, StringRef text,
                     StringRef prefix) {
  std::string bytes = text.str();
  bytes.push_back('\0');
  std::string name = prefix.str() + std::to_string(llvm::hash_value(bytes) & 0xffffffff);
  auto global = module.lookupSymbol<LLVM::GlobalOp>(name);
  if (!global) {
    OpBuilder top(module.getBodyRegion());
    auto type = LLVM::LLVMArrayType::get(b.getI8Type(), bytes.size());
    global = LLVM::GlobalOp::create(top, loc, type, /*isConstant=*/true, LLVM::Linkage::Internal,
                                    name, b.getStringAttr(bytes));
  }
  return LLVM::AddressOfOp::create(b, loc, global);
}

/// txl.print (tl.device_print, TXL's txl.print): one vprintf per value in
/// every thread, as Triton prints: "pid (x, y, z) [idx (i, j)] <prefix><v>"
/// with the element's coordinates for a tile (each register of each thread;
/// a replicated element prints once per copy). vprintf takes a format string
/// in global memory and its arguments packed in a local buffer, C-style:
/// floats as f64, 16-bit floats first widened, ints as i32/i64. The CUDA
/// driver provides vprintf (txlc's external-call check lets it through).
struct PrintLowering : OpConversionPattern<PrintOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(PrintOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    Type i32 = rewriter.getI32Type();
    SmallVector<Value> pid;
    // Every tile's layout first: nothing is built for an op that cannot lower.
    for (Value v : op.getArgs())
      if (auto tile = dyn_cast<RankedTensorType>(v.getType()); tile && failed(layoutOf(tile)))
        return op.emitOpError() << "prints a tile without a usable layout: " << tile;
    pid.push_back(NVVM::BlockIdXOp::create(rewriter, loc, i32));
    pid.push_back(NVVM::BlockIdYOp::create(rewriter, loc, i32));
    pid.push_back(NVVM::BlockIdZOp::create(rewriter, loc, i32));
    std::string head = "pid (%d, %d, %d) ";
    // The prefix is text: a '%' in it is not a conversion.
    std::string prefix;
    for (char c : op.getPrefix())
      prefix += c == '%' ? std::string("%%") : std::string(1, c);
    if (op.getArgs().empty()) {
      emitPrintf(rewriter, loc, module, head + prefix + "\n", pid);
      rewriter.eraseOp(op);
      return success();
    }
    for (auto [orig, conv] : llvm::zip(op.getArgs(), adaptor.getArgs())) {
      auto tile = dyn_cast<RankedTensorType>(orig.getType());
      if (!tile) {
        SmallVector<Value> args(pid);
        std::string spec = vararg(rewriter, loc, conv, op.getHex(), args);
        emitPrintf(rewriter, loc, module, head + prefix + spec + "\n", args);
        continue;
      }
      std::string idx = "idx (";
      for (unsigned d = 0; d < tile.getRank(); ++d)
        idx += d ? ", %d" : "%d";
      idx += ") ";
      FailureOr<LinearLayout> layout = layoutOf(tile);
      ThreadCoords tc(rewriter, loc, *layout);
      for (auto [r, reg] : llvm::enumerate(unpack(rewriter, loc, conv))) {
        SmallVector<Value> args(pid);
        for (unsigned d = 0; d < tile.getRank(); ++d)
          args.push_back(tc.get(rewriter, loc, r, d));
        std::string spec = vararg(rewriter, loc, reg, op.getHex(), args);
        emitPrintf(rewriter, loc, module, head + idx + prefix + spec + "\n", args);
      }
    }
    rewriter.eraseOp(op);
    return success();
  }

  /// Appends one register to `args` in its C varargs form and returns its
  /// conversion: a float as %f of an f64 (with hex, %x / %llx of its own
  /// bits), an integer as %d / %lld (%x / %llx), widened to 32 bits (fp8
  /// registers are raw bytes: printed as integers), a pointer as %llx.
  static std::string vararg(OpBuilder &b, Location loc, Value v, bool hex,
                            SmallVectorImpl<Value> &args) {
    Type t = v.getType();
    if (isa<LLVM::LLVMPointerType>(t)) {
      args.push_back(LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), v));
      return "%llx";
    }
    unsigned bits = t.getIntOrFloatBitWidth();
    if (isa<FloatType>(t) && !hex) {
      args.push_back(t.isF64() ? v : Value(LLVM::FPExtOp::create(b, loc, b.getF64Type(), v)));
      return "%f";
    }
    if (isa<FloatType>(t))
      v = LLVM::BitcastOp::create(b, loc, b.getIntegerType(bits), v);
    if (bits < 32) // the bits of a float or a narrow int, zero-extended for hex
      v = hex || bits == 1 ? Value(LLVM::ZExtOp::create(b, loc, b.getI32Type(), v))
                           : Value(LLVM::SExtOp::create(b, loc, b.getI32Type(), v));
    args.push_back(v);
    if (bits == 64)
      return hex ? "%llx" : "%lld";
    return hex ? "%x" : "%d";
  }

  /// vprintf(format, args): the format as a constant global (one per text),
  /// the arguments in a local buffer.
  static void emitPrintf(OpBuilder &b, Location loc, ModuleOp module, StringRef format,
                         ArrayRef<Value> args) {
    MLIRContext *ctx = b.getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto vprintfType = LLVM::LLVMFunctionType::get(b.getI32Type(), {ptr, ptr});
    auto vprintf = module.lookupSymbol<LLVM::LLVMFuncOp>("vprintf");
    OpBuilder top(module.getBodyRegion());
    if (!vprintf)
      vprintf = LLVM::LLVMFuncOp::create(top, loc, "vprintf", vprintfType);
    Value fmt = constantString(b, loc, module, format, "txl_printf_");
    Value buffer = LLVM::ZeroOp::create(b, loc, ptr);
    if (!args.empty()) {
      SmallVector<Type> types;
      for (Value a : args)
        types.push_back(a.getType());
      auto structType = LLVM::LLVMStructType::getLiteral(ctx, types);
      Value one = LLVM::ConstantOp::create(b, loc, b.getI64Type(), b.getI64IntegerAttr(1));
      buffer = LLVM::AllocaOp::create(b, loc, ptr, structType, one, /*alignment=*/8);
      for (auto [i, a] : llvm::enumerate(args)) {
        Value field = LLVM::GEPOp::create(b, loc, ptr, structType, buffer,
                                          ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
        LLVM::StoreOp::create(b, loc, a, field);
      }
    }
    LLVM::CallOp::create(b, loc, vprintf, ValueRange{fmt, buffer});
  }
};

/// txl.assert (tl.device_assert): the thread's registers of the condition
/// are or-ed (negated) into one "some element is false" bit that branches
/// to a call of CUDA's __assertfail(message, file, line, function, 1),
/// which the driver provides, as it does vprintf: it prints the message
/// with the failing block and thread, and stops the kernel. File and line
/// are the op's (the user's call site); the function is the enclosing one.
/// No barrier follows (Triton adds one): the op may sit under a condition
/// only some threads take.
struct AssertLowering : OpConversionPattern<AssertOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(AssertOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    Value cond = adaptor.getCondition();
    SmallVector<Value> regs;
    if (isa<LLVM::LLVMStructType>(cond.getType()))
      regs = unpack(rewriter, loc, cond);
    else
      regs.push_back(cond);
    Value one =
        LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(), rewriter.getBoolAttr(true));
    Value anyFalse;
    for (Value r : regs) {
      Value isFalse = LLVM::XOrOp::create(rewriter, loc, r, one);
      anyFalse = anyFalse ? Value(LLVM::OrOp::create(rewriter, loc, anyFalse, isFalse)) : isFalse;
    }

    std::string file = "<unknown>";
    unsigned line = 0;
    loc->walk([&](Location l) {
      if (auto flc = dyn_cast<FileLineColLoc>(l)) {
        file = flc.getFilename().str();
        line = flc.getLine();
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    std::string function = "<kernel>";
    if (auto fn = op->getParentOfType<FunctionOpInterface>())
      function = fn.getName().str();

    // before: ... cond_br anyFalse, fail, after;  fail: __assertfail; br after
    Block *before = rewriter.getInsertionBlock();
    Block *after = rewriter.splitBlock(before, rewriter.getInsertionPoint());
    Block *fail = rewriter.createBlock(after->getParent(), Region::iterator(after));
    rewriter.setInsertionPointToEnd(fail);
    MLIRContext *ctx = rewriter.getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    auto assertType =
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptr, ptr, i32, ptr, i64});
    auto assertFail = module.lookupSymbol<LLVM::LLVMFuncOp>("__assertfail");
    if (!assertFail) {
      OpBuilder top(module.getBodyRegion());
      assertFail = LLVM::LLVMFuncOp::create(top, loc, "__assertfail", assertType);
    }
    Value args[] = {constantString(rewriter, loc, module, op.getMessage(), "txl_assert_msg_"),
                    constantString(rewriter, loc, module, file, "txl_assert_file_"),
                    intConst(rewriter, loc, i32, line),
                    constantString(rewriter, loc, module, function, "txl_assert_func_"),
                    LLVM::ConstantOp::create(rewriter, loc, i64, rewriter.getI64IntegerAttr(1))};
    LLVM::CallOp::create(rewriter, loc, assertFail, args);
    LLVM::BrOp::create(rewriter, loc, after);
    rewriter.setInsertionPointToEnd(before);
    LLVM::CondBrOp::create(rewriter, loc, anyFalse, fail, after);
    rewriter.eraseOp(op);
    return success();
  }
};

void populatePrintPatterns(const TXLTypeConverter &converter, RewritePatternSet &patterns,
                           PatternBenefit benefit) {
  patterns.add<PrintLowering, AssertLowering>(converter, patterns.getContext(), benefit);
}

} // namespace mlir::txl::tile
