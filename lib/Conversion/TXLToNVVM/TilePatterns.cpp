//===- TilePatterns.cpp - register tiles to per-thread registers ------------===//
//
// A register tile `tensor<shape x T, #layout>` is distributed over the
// threads of the CTA: its LinearLayout says which (register, lane, warp)
// holds element (i, j, ...). After conversion a thread holds its registers
// as an `!llvm.struct<(T, T, ...)>`, field r being register r of the layout.
// The patterns here rewrite every tile op register by register:
//
//  - elementwise arith/math ops and splat constants: the same scalar op per
//    register (the scalar op is then lowered by the upstream patterns of the
//    same conversion);
//  - txl.splat / txl.make_range: a copy per register / each register's
//    coordinate, computed from compile-time register bases XOR-ed with the
//    run-time contribution of the lane and warp bits of threadIdx.x;
//  - txl.broadcast / txl.expand_dims / txl.trans / txl.reshape /
//    txl.join / txl.split: a choice of source register per result register,
//    valid only when every element stays in its thread (the lane and warp
//    bases agree once moved through the op's coordinate map);
//  - txl.relayout: nothing, a register permutation, one shfl.sync.idx per
//    register when elements only change lanes, or a round trip through the
//    op's shared-memory scratch (vectorised stores, barrier, loads) when they
//    change warps (LinearLayout::classifyConversionTo decides);
//  - non-splat tile constants: per-register constants, or loads from a
//    constant table when a register's element depends on the thread;
//  - f32 -> bf16/f16 truncf: pairs of registers through <2 x float>
//    fptruncs (cvt.rn.bf16x2.f32);
//  - txl.addptr / txl.load / txl.store: a GEP, load or store per register;
//    masked accesses are predicated PTX so masked-off lanes never touch
//    memory;
//  - txl.reduce: registers that differ only along the axis are combined in
//    the thread, then lanes along the axis with shfl.sync.bfly, then (when
//    warps split the axis) the warps' partials through the op's scratch;
//  - txl.scan: a step per bit of the axis coordinate, each pairing runs of
//    2^k elements held by two registers, lanes or warps (ScanLowering).
//
// Because the layouts are linear maps over GF(2), "is every element in the
// same thread" is a comparison of the lane and warp bases, and "which
// register holds it" a search over the register bases alone.
//
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

/// On a txl.atomic_rmw / txl.atomic_cas of a scalar pointer: the warps of the
/// group one thread of which updates it (txl-allocate-scratch sets it; 4
/// without).
static constexpr StringLiteral kAtomicGroupWarpsAttr = "txl.group_warps";

namespace mlir::txl::tile {
//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// An f32 -> bf16/f16 truncation with the default rounding (to nearest
/// even), which cvt.rn.{bf16x2,f16x2}.f32 implements.
bool isPackedTrunc(arith::TruncFOp op, Type resultElt) {
  return !op.getRoundingmodeAttr() && getElementTypeOrSelf(op.getIn().getType()).isF32() &&
         (resultElt.isBF16() || resultElt.isF16());
}

/// f32 registers to e4m3 / e5m2 bytes (LLVM has no fp8 type: the bytes are
/// i8), two at a time: cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 packs a pair
/// into 16 bits, its first operand in the high byte (as Triton converts:
/// round to nearest, saturated to the largest finite value).
SmallVector<Value> truncToFp8(OpBuilder &b, Location loc, ArrayRef<Value> regs, bool e4m3) {
  Type i8 = b.getI8Type(), i16 = b.getI16Type();
  auto name = b.getStringAttr(e4m3 ? "llvm.nvvm.ff.to.e4m3x2.rn" : "llvm.nvvm.ff.to.e5m2x2.rn");
  Value zero = LLVM::ConstantOp::create(b, loc, b.getF32Type(), b.getF32FloatAttr(0.0));
  SmallVector<Value> out;
  for (size_t r = 0; r < regs.size(); r += 2) {
    Value hi = r + 1 < regs.size() ? regs[r + 1] : zero;
    Value pair =
        LLVM::CallIntrinsicOp::create(b, loc, i16, name, ValueRange{hi, regs[r]}).getResult(0);
    out.push_back(LLVM::TruncOp::create(b, loc, i8, pair));
    if (r + 1 < regs.size())
      out.push_back(LLVM::TruncOp::create(
          b, loc, i8, LLVM::LShrOp::create(b, loc, pair, intConst(b, loc, i16, 8))));
  }
  return out;
}

/// e4m3 / e5m2 bytes to f16 (then f32 if asked), two at a time:
/// cvt.rn.f16x2.{e4m3x2,e5m2x2} (exact: every fp8 value is an f16 value).
SmallVector<Value> extFromFp8(OpBuilder &b, Location loc, ArrayRef<Value> regs, bool e4m3,
                              Type dstElt) {
  Type i16 = b.getI16Type(), i32 = b.getI32Type(), f16 = b.getF16Type();
  auto name =
      b.getStringAttr(e4m3 ? "llvm.nvvm.e4m3x2.to.f16x2.rn" : "llvm.nvvm.e5m2x2.to.f16x2.rn");
  auto pairType = VectorType::get({2}, f16);
  SmallVector<Value> out;
  for (size_t r = 0; r < regs.size(); r += 2) {
    Value lo = LLVM::ZExtOp::create(b, loc, i16, regs[r]);
    Value bytes = lo;
    if (r + 1 < regs.size()) {
      Value hi = LLVM::ZExtOp::create(b, loc, i16, regs[r + 1]);
      hi = LLVM::ShlOp::create(b, loc, hi, intConst(b, loc, i16, 8));
      bytes = LLVM::OrOp::create(b, loc, lo, hi);
    }
    Value halves =
        LLVM::CallIntrinsicOp::create(b, loc, pairType, name, ValueRange{bytes}).getResult(0);
    for (size_t i = 0; i < 2 && r + i < regs.size(); ++i) {
      Value h = LLVM::ExtractElementOp::create(b, loc, halves, intConst(b, loc, i32, i));
      out.push_back(dstElt.isF16() ? h : Value(LLVM::FPExtOp::create(b, loc, dstElt, h)));
    }
  }
  return out;
}

/// Elementwise arith/math op (or libdevice call) on tiles: the same op on
/// each register.
struct ElementwiseTileLowering : ConversionPattern {
  ElementwiseTileLowering(const TypeConverter &converter, MLIRContext *ctx, PatternBenefit benefit)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), benefit, ctx) {}

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &rewriter) const override {
    if (!isElementwiseTileOp(op) || op->getNumResults() != 1)
      return failure();
    Location loc = op->getLoc();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Type structType = getTypeConverter()->convertType(resultType);
    Type eltType = getTypeConverter()->convertType(resultType.getElementType());
    if (!structType || !eltType)
      return rewriter.notifyMatchFailure(op, "result tile type does not convert");
    int64_t numRegs = cast<LLVM::LLVMStructType>(structType).getBody().size();

    // Registers of tile operands; scalar operands (arith.select's condition)
    // are used as they are.
    SmallVector<SmallVector<Value>> regs;
    for (auto [orig, conv] : llvm::zip(op->getOperands(), operands)) {
      if (isa<RankedTensorType>(orig.getType())) {
        regs.push_back(unpack(rewriter, loc, conv));
        if (int64_t(regs.back().size()) != numRegs)
          return rewriter.notifyMatchFailure(op, "operand and result tiles differ in registers");
      } else {
        regs.push_back(SmallVector<Value>(numRegs, conv));
      }
    }
    SmallVector<Value> results;
    Type srcElt = getElementTypeOrSelf(op->getOperand(0).getType());
    Type dstElt = resultType.getElementType();
    if (isFp8TileConversion(op) && isa<arith::TruncFOp>(op)) {
      rewriter.replaceOp(op,
                         pack(rewriter, loc, structType,
                              truncToFp8(rewriter, loc, regs[0], isa<Float8E4M3FNType>(dstElt))));
      return success();
    }
    if (isFp8TileConversion(op)) {
      rewriter.replaceOp(
          op, pack(rewriter, loc, structType,
                   extFromFp8(rewriter, loc, regs[0], isa<Float8E4M3FNType>(srcElt), dstElt)));
      return success();
    }
    if (auto trunc = dyn_cast<arith::TruncFOp>(op); trunc && isPackedTrunc(trunc, eltType)) {
      // f32 -> bf16/f16 two registers at a time: a <2 x float> fptrunc is
      // what NVPTX selects cvt.rn.{bf16x2,f16x2}.f32 from (one instruction
      // per pair, and the pair lands in the one 32-bit register a wgmma A
      // fragment or a packed store wants).
      Type i32 = rewriter.getI32Type();
      auto pairIn = VectorType::get({2}, rewriter.getF32Type());
      auto pairOut = VectorType::get({2}, eltType);
      for (int64_t r = 0; r + 1 < numRegs; r += 2) {
        Value vec = LLVM::PoisonOp::create(rewriter, loc, pairIn);
        for (int64_t i = 0; i < 2; ++i)
          vec = LLVM::InsertElementOp::create(rewriter, loc, vec, regs[0][r + i],
                                              intConst(rewriter, loc, i32, i));
        Value packed = LLVM::FPTruncOp::create(rewriter, loc, pairOut, vec);
        for (int64_t i = 0; i < 2; ++i)
          results.push_back(LLVM::ExtractElementOp::create(rewriter, loc, packed,
                                                           intConst(rewriter, loc, i32, i)));
      }
      if (numRegs % 2)
        results.push_back(LLVM::FPTruncOp::create(rewriter, loc, eltType, regs[0].back()));
      rewriter.replaceOp(op, pack(rewriter, loc, structType, results));
      return success();
    }
    for (int64_t r = 0; r < numRegs; ++r) {
      SmallVector<Value> scalarOperands;
      for (auto &operandRegs : regs)
        scalarOperands.push_back(operandRegs[r]);
      // The scalar op (same name and attributes) is legalized afterwards by
      // the upstream arith/math patterns of this conversion.
      Operation *scalar = rewriter.create(loc, op->getName().getIdentifier(), scalarOperands,
                                          TypeRange{eltType}, op->getAttrs());
      results.push_back(scalar->getResult(0));
    }
    rewriter.replaceOp(op, pack(rewriter, loc, structType, results));
    return success();
  }
};

/// Dense tile constants. A splat is the scalar constant in every register.
/// Otherwise each thread needs the elements its layout gives it: a register
/// whose element is the same in every thread (it depends on the register
/// bits only) is a constant; when some register's element depends on the
/// thread, the values go to a constant table in global memory, which each
/// thread reads at its elements' row-major indices (invariant loads).
struct ConstantTileLowering : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!type || !dense)
      return failure();
    Type structType = getTypeConverter()->convertType(type);
    auto layout = layoutOf(type);
    if (!structType || failed(layout))
      return rewriter.notifyMatchFailure(op, "tile type does not convert");
    Type eltType = getTypeConverter()->convertType(dense.getElementType());
    Location loc = op.getLoc();
    // index elements become i64: rebuild integer attributes in that type.
    auto scalarAttr = [&](Attribute a, Type t) -> TypedAttr {
      if (auto i = dyn_cast<IntegerAttr>(a); i && t != i.getType())
        return rewriter.getIntegerAttr(t, i.getValue().getSExtValue());
      return cast<TypedAttr>(a);
    };
    int64_t numRegs = layout->getNumRegs();
    if (dense.isSplat()) {
      Value scalar = LLVM::ConstantOp::create(
          rewriter, loc, eltType, scalarAttr(dense.getSplatValue<Attribute>(), eltType));
      rewriter.replaceOp(op, pack(rewriter, loc, structType, SmallVector<Value>(numRegs, scalar)));
      return success();
    }

    ArrayRef<int64_t> shape = type.getShape();
    SmallVector<Attribute> values(dense.getValues<Attribute>());
    auto flat = [&](const Coord &c) {
      int64_t index = 0;
      for (size_t d = 0; d < shape.size(); ++d)
        index = index * shape[d] + c[d];
      return index;
    };
    // Registers whose element does not depend on the thread.
    SmallVector<Value> regs(numRegs);
    bool needTable = false;
    for (int64_t r = 0; r < numRegs; ++r) {
      Attribute first = values[flat(layout->applyReg(r))];
      bool uniform = true;
      for (int64_t w = 0; w < layout->getNumWarps() && uniform; ++w)
        for (int64_t l = 0; l < layout->getNumLanes() && uniform; ++l)
          uniform = values[flat(layout->apply(r, l, w))] == first;
      if (uniform)
        regs[r] = LLVM::ConstantOp::create(rewriter, loc, eltType, scalarAttr(first, eltType));
      else
        needTable = true;
    }
    if (needTable) {
      Value table = getConstantTable(rewriter, op, values, eltType);
      Type storage = eltType.isInteger(1) ? rewriter.getI8Type() : eltType;
      unsigned bytes = std::max(1u, storage.getIntOrFloatBitWidth() / 8);
      ThreadCoords tc(rewriter, loc, *layout);
      for (int64_t r = 0; r < numRegs; ++r) {
        if (regs[r])
          continue;
        Value index;
        for (size_t d = 0; d < shape.size(); ++d) {
          int64_t stride = 1;
          for (size_t e = d + 1; e < shape.size(); ++e)
            stride *= shape[e];
          index = addScaled(rewriter, loc, index, tc.get(rewriter, loc, r, d), stride);
        }
        Value ptr =
            LLVM::GEPOp::create(rewriter, loc, table.getType(), storage, table, ValueRange{index});
        Value v = LLVM::LoadOp::create(rewriter, loc, storage, ptr, bytes, /*isVolatile=*/false,
                                       /*isNonTemporal=*/false, /*isInvariant=*/true);
        if (storage != eltType)
          v = LLVM::TruncOp::create(rewriter, loc, eltType, v);
        regs[r] = v;
      }
    }
    rewriter.replaceOp(op, pack(rewriter, loc, structType, regs));
    return success();
  }

  /// Address of a new private constant global (global memory) holding
  /// `values` in row-major order; i1 elements are stored as bytes.
  static Value getConstantTable(ConversionPatternRewriter &rewriter, Operation *op,
                                ArrayRef<Attribute> values, Type eltType) {
    auto module = op->getParentOfType<ModuleOp>();
    MLIRContext *ctx = rewriter.getContext();
    Type storage = eltType.isInteger(1) ? rewriter.getI8Type() : eltType;
    SmallVector<Attribute> stored;
    for (Attribute a : values) {
      if (auto i = dyn_cast<IntegerAttr>(a))
        stored.push_back(rewriter.getIntegerAttr(storage, eltType.isInteger(1)
                                                              ? i.getValue().getZExtValue()
                                                              : i.getValue().getSExtValue()));
      else
        stored.push_back(a);
    }
    auto tensor = RankedTensorType::get({int64_t(values.size())}, storage);
    auto arrayType = LLVM::LLVMArrayType::get(storage, values.size());
    std::string name;
    for (int i = 0; name.empty() || module.lookupSymbol(name); ++i)
      name = "txl_tile_constant_" + std::to_string(i);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      LLVM::GlobalOp::create(rewriter, op->getLoc(), arrayType, /*isConstant=*/true,
                             LLVM::Linkage::Private, name, DenseElementsAttr::get(tensor, stored),
                             /*alignment=*/16, /*addrSpace=*/1);
    }
    return LLVM::AddressOfOp::create(rewriter, op->getLoc(), LLVM::LLVMPointerType::get(ctx, 1),
                                     name);
  }
};

struct SplatLowering : OpConversionPattern<SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SplatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type structType = getTypeConverter()->convertType(op.getType());
    if (!structType)
      return rewriter.notifyMatchFailure(op, "tile type does not convert");
    int64_t numRegs = cast<LLVM::LLVMStructType>(structType).getBody().size();
    rewriter.replaceOp(
        op, pack(rewriter, op.getLoc(), structType, SmallVector<Value>(numRegs, adaptor.getSrc())));
    return success();
  }
};

/// make_range: register r of a thread holds start + coordinate(r, lane, warp).
struct MakeRangeLowering : OpConversionPattern<MakeRangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MakeRangeOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto layout = layoutOf(op.getType());
    Type structType = getTypeConverter()->convertType(op.getType());
    if (failed(layout) || !structType)
      return rewriter.notifyMatchFailure(op, "tile without a usable layout");
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    Value thread = threadCoordinate(rewriter, loc, *layout, 0);
    int64_t start = static_cast<int32_t>(op.getStart());
    SmallVector<Value> regs;
    for (int64_t r = 0; r < layout->getNumRegs(); ++r) {
      int64_t regPart = layout->applyReg(r)[0];
      Value v = thread;
      if (regPart)
        v = LLVM::XOrOp::create(rewriter, loc, v, intConst(rewriter, loc, i32, regPart));
      if (start)
        v = LLVM::AddOp::create(rewriter, loc, v, intConst(rewriter, loc, i32, start));
      regs.push_back(v);
    }
    rewriter.replaceOp(op, pack(rewriter, loc, structType, regs));
    return success();
  }
};

/// Broadcast and expand_dims: each result register copies a source register
/// of the same thread (mapBroadcast / mapExpandDims).
template <typename OpTy, FailureOr<SmallVector<int64_t>> (*MapFn)(OpTy)>
struct RegisterSelectLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto map = MapFn(op);
    Type structType = this->getTypeConverter()->convertType(op.getType());
    if (failed(map) || !structType)
      return rewriter.notifyMatchFailure(op, "needs a layout conversion");
    SmallVector<Value> src = unpack(rewriter, op.getLoc(), adaptor.getSrc());
    SmallVector<Value> regs;
    for (int64_t s : *map)
      regs.push_back(src[s]);
    rewriter.replaceOp(op, pack(rewriter, op.getLoc(), structType, regs));
    return success();
  }
};

/// join: each result register copies a register of one of the operands.
struct JoinLowering : OpConversionPattern<JoinOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(JoinOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto map = mapJoin(op);
    Type structType = getTypeConverter()->convertType(op.getType());
    if (failed(map) || !structType)
      return rewriter.notifyMatchFailure(op, "needs a layout conversion");
    Location loc = op.getLoc();
    SmallVector<Value> srcs[2] = {unpack(rewriter, loc, adaptor.getLhs()),
                                  unpack(rewriter, loc, adaptor.getRhs())};
    SmallVector<Value> regs;
    for (auto [reg, which] : *map)
      regs.push_back(srcs[which][reg]);
    rewriter.replaceOp(op, pack(rewriter, loc, structType, regs));
    return success();
  }
};

/// split: each result takes its half of the source registers.
struct SplitLowering : OpConversionPattern<SplitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SplitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto map = mapSplit(op);
    Type structType = getTypeConverter()->convertType(op.getOutLHS().getType());
    if (failed(map) || !structType)
      return rewriter.notifyMatchFailure(op, "needs a layout conversion");
    Location loc = op.getLoc();
    SmallVector<Value> src = unpack(rewriter, loc, adaptor.getSrc());
    SmallVector<Value> results;
    for (const SmallVector<int64_t> &half : *map) {
      SmallVector<Value> regs;
      for (int64_t s : half)
        regs.push_back(src[s]);
      results.push_back(pack(rewriter, loc, structType, regs));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// relayout: nothing, a register permutation, warp shuffles or a round trip
/// through the op's shared-memory scratch, as the layouts' classification
/// says (LinearLayout::classifyConversionTo).
struct RelayoutLowering : OpConversionPattern<RelayoutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(RelayoutOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto src = layoutOf(op.getSrc().getType()), dst = layoutOf(op.getType());
    Type structType = getTypeConverter()->convertType(op.getType());
    Type eltType = getTypeConverter()->convertType(op.getType().getElementType());
    if (failed(src) || failed(dst) || !structType || !eltType)
      return rewriter.notifyMatchFailure(op, "tile without a usable layout");
    Location loc = op.getLoc();
    LinearLayout::Conversion kind = src->classifyConversionTo(*dst);
    if (kind == LinearLayout::Conversion::NoOp) {
      rewriter.replaceOp(op, adaptor.getSrc());
      return success();
    }
    SmallVector<Value> regs = unpack(rewriter, loc, adaptor.getSrc()), out;
    switch (kind) {
    case LinearLayout::Conversion::NoOp:
      break;
    case LinearLayout::Conversion::RegPermutation:
      for (int64_t s : src->getRegPermutationTo(*dst)) {
        if (s < 0)
          return rewriter.notifyMatchFailure(op, "not a register permutation");
        out.push_back(regs[s]);
      }
      break;
    case LinearLayout::Conversion::WarpShuffle:
      out = relayoutByShuffles(rewriter, loc, *src, *dst, regs);
      break;
    case LinearLayout::Conversion::SharedMemory:
      if (!op.getScratch())
        return rewriter.notifyMatchFailure(op, "no scratch");
      out = relayoutThroughShared(rewriter, loc, *src, *dst, regs, adaptor.getScratch(),
                                  cast<SmemType>(op.getScratch().getType()), eltType);
      break;
    }
    rewriter.replaceOp(op, pack(rewriter, loc, structType, out));
    return success();
  }
};

/// Registers of an operand that is a tile or a scalar broadcast to `n`.
SmallVector<Value> registersOf(OpBuilder &b, Location loc, Value orig, Value converted, int64_t n) {
  if (!converted)
    return SmallVector<Value>(n, Value());
  if (isa<RankedTensorType>(orig.getType()))
    return unpack(b, loc, converted);
  return SmallVector<Value>(n, converted);
}

/// Number of registers of a tile-or-scalar value.
int64_t numRegisters(const TypeConverter &converter, Type type) {
  if (!isa<RankedTensorType>(type))
    return 1;
  Type s = converter.convertType(type);
  return s ? int64_t(cast<LLVM::LLVMStructType>(s).getBody().size()) : 0;
}

/// Packs `regs` as the converted `type` (a tile) or returns the one scalar.
Value packAs(OpBuilder &b, Location loc, const TypeConverter &converter, Type type,
             ArrayRef<Value> regs) {
  if (!isa<RankedTensorType>(type))
    return regs.front();
  return pack(b, loc, converter.convertType(type), regs);
}

struct AddPtrLowering : OpConversionPattern<AddPtrOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AddPtrOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const TypeConverter &tc = *getTypeConverter();
    int64_t n = numRegisters(tc, op.getType());
    auto ptrType = cast<PtrType>(getElementTypeOrSelf(op.getType()));
    Type llvmPtr = tc.convertType(ptrType);
    Type pointee = tc.convertType(ptrType.getPointeeType());
    if (!n || !llvmPtr || !pointee)
      return rewriter.notifyMatchFailure(op, "types do not convert");
    SmallVector<Value> ptrs = registersOf(rewriter, loc, op.getPtr(), adaptor.getPtr(), n);
    SmallVector<Value> offs = registersOf(rewriter, loc, op.getOffset(), adaptor.getOffset(), n);
    if (int64_t(ptrs.size()) != n || int64_t(offs.size()) != n)
      return rewriter.notifyMatchFailure(op, "operand tiles differ in registers");
    SmallVector<Value> regs;
    for (int64_t r = 0; r < n; ++r)
      regs.push_back(
          LLVM::GEPOp::create(rewriter, loc, llvmPtr, pointee, ptrs[r], ValueRange{offs[r]}));
    rewriter.replaceOp(op, packAs(rewriter, loc, tc, op.getType(), regs));
    return success();
  }
};

struct LoadLowering : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const TypeConverter &tc = *getTypeConverter();
    int64_t n = numRegisters(tc, op.getType());
    Type eltType = tc.convertType(getElementTypeOrSelf(op.getType()));
    if (!n || !eltType || !memoryBits(eltType))
      return rewriter.notifyMatchFailure(op, "types do not convert");
    SmallVector<Value> ptrs = registersOf(rewriter, loc, op.getPtr(), adaptor.getPtr(), n);
    SmallVector<Value> masks = registersOf(rewriter, loc, op.getMask(), adaptor.getMask(), n);
    SmallVector<Value> others = registersOf(rewriter, loc, op.getOther(), adaptor.getOther(), n);
    if (int64_t(ptrs.size()) != n || int64_t(masks.size()) != n || int64_t(others.size()) != n)
      return rewriter.notifyMatchFailure(op, "operand tiles differ in registers");
    SmallVector<Value> regs;
    int64_t width = op.getIsVolatile() ? 1 : vectorWidthOf(op, op.getPtr());
    for (int64_t r = 0; r < n; r += width) {
      if (width == 1) {
        regs.push_back(emitLoad(rewriter, loc, op, ptrs[r], masks[r], others[r], eltType));
        continue;
      }
      // Registers r .. r + width - 1: consecutive elements under one predicate
      // (txl-vectorize-accesses).
      SmallVector<Value> group = emitVectorLoad(
          rewriter, loc, op, ptrs[r], masks[r],
          others[r] ? ArrayRef<Value>(others).slice(r, width) : ArrayRef<Value>(), eltType, width);
      regs.append(group.begin(), group.end());
    }
    rewriter.replaceOp(op, packAs(rewriter, loc, tc, op.getType(), regs));
    return success();
  }
};

struct StoreLowering : OpConversionPattern<StoreOp> {
  StoreLowering(const TypeConverter &converter, MLIRContext *ctx, PatternBenefit benefit,
                const llvm::StringSet<> *uniformScalars)
      : OpConversionPattern(converter, ctx, benefit), uniformScalars(uniformScalars) {}
  /// The kernels whose scalars are the same in every thread (see
  /// populateTileToLLVMPatterns).
  const llvm::StringSet<> *uniformScalars;

  LogicalResult matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const TypeConverter &tc = *getTypeConverter();
    int64_t n = numRegisters(tc, op.getValue().getType());
    if (!n)
      return rewriter.notifyMatchFailure(op, "types do not convert");
    SmallVector<Value> ptrs = registersOf(rewriter, loc, op.getPtr(), adaptor.getPtr(), n);
    SmallVector<Value> vals = registersOf(rewriter, loc, op.getValue(), adaptor.getValue(), n);
    SmallVector<Value> masks = registersOf(rewriter, loc, op.getMask(), adaptor.getMask(), n);
    if (int64_t(ptrs.size()) != n || int64_t(vals.size()) != n || int64_t(masks.size()) != n)
      return rewriter.notifyMatchFailure(op, "operand tiles differ in registers");
    // Each element is written once (Triton's redundant-data mask), by its
    // holder whose copy bits are all clear (LinearLayout::getCopies): a tile
    // smaller than the threads is held by several lanes or warps, and a copy
    // that stores could overwrite a location that a slower copy has still to
    // load. An in-place update `store(p, f(load(p)))` then applied f twice to
    // some elements (Liger's qwen2vl_mrope rotated k twice where a late warp
    // loaded what an early one had already stored).
    LinearLayout::Copies copies;
    if (auto ll = layoutOf(op.getPtr().getType()); succeeded(ll))
      copies = ll->getCopies();
    Value owner;
    if (auto threadBits = uint32_t(copies.lanes | copies.warps << 5)) {
      Type i32 = rewriter.getI32Type();
      Value bits = LLVM::AndOp::create(rewriter, loc, getThreadId(rewriter, loc),
                                       intConst(rewriter, loc, i32, int32_t(threadBits)));
      owner = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, bits,
                                   intConst(rewriter, loc, i32, 0));
    }
    // A scalar is held by every thread. Where scalars are uniform (Triton's
    // model), one thread of the role stores it, as Triton stores a scalar
    // from thread 0: each thread storing made `store(p, load(p) + 1)` add
    // twice where a late thread loaded what an early one had stored.
    auto fn = op->getParentOfType<FunctionOpInterface>();
    if (!isa<RankedTensorType>(op.getPtr().getType()) && uniformScalars && fn &&
        uniformScalars->contains(fn.getName()))
      owner = isRoleLeader(rewriter, loc, getRoleWarps(op));
    int64_t width = vectorWidthOf(op, op.getPtr());
    for (int64_t r = 0; r < n; r += width) {
      if (r & int64_t(copies.regs))
        continue; // another register of this thread stores the element
      Value mask = masks[r];
      if (owner)
        mask = mask ? LLVM::AndOp::create(rewriter, loc, mask, owner).getResult() : owner;
      if (width == 1)
        emitStore(rewriter, loc, op, ptrs[r], vals[r], mask);
      else
        emitVectorStore(rewriter, loc, op, ptrs[r], ArrayRef<Value>(vals).slice(r, width), mask);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

StringRef semText(MemSemantic sem) {
  switch (sem) {
  case MemSemantic::relaxed:
    return ".relaxed";
  case MemSemantic::acquire:
    return ".acquire";
  case MemSemantic::release:
    return ".release";
  case MemSemantic::acq_rel:
    return ".acq_rel";
  }
  return "";
}

StringRef scopeText(MemScope scope) {
  switch (scope) {
  case MemScope::cta:
    return ".cta";
  case MemScope::cluster:
    return ".cluster";
  case MemScope::gpu:
    return ".gpu";
  case MemScope::sys:
    return ".sys";
  }
  return "";
}

/// The `op.type` part of one PTX atom/red for an integer or float kind that
/// PTX has (float max/min are emulated by the caller with integer ones).
std::string atomOpText(AtomicRMWKind kind, Type elt) {
  std::string w = std::to_string(memoryBits(elt));
  bool isFloat = isa<FloatType>(elt);
  switch (kind) {
  case AtomicRMWKind::add:
    if (elt.isF16())
      return "add.noftz.f16";
    if (elt.isBF16())
      return "add.noftz.bf16";
    return (isFloat ? "add.f" : "add.u") + w;
  case AtomicRMWKind::max:
    return "max.s" + w;
  case AtomicRMWKind::min:
    return "min.s" + w;
  case AtomicRMWKind::umax:
    return "max.u" + w;
  case AtomicRMWKind::umin:
    return "min.u" + w;
  case AtomicRMWKind::band:
    return "and.b" + w;
  case AtomicRMWKind::bor:
    return "or.b" + w;
  case AtomicRMWKind::bxor:
    return "xor.b" + w;
  case AtomicRMWKind::xchg:
    return "exch.b" + w;
  }
  return "";
}

/// One predicated PTX atomic on the element at `ptr`: with `init`,
/// `@pred atom<sem><scope><space>.<op> d, [ptr], operands...` whose result
/// starts as `init` (kept where `pred` is false); without, the same as `red`
/// (no result). `operands` are integer registers of `regBits`.
Value emitAtomAsm(OpBuilder &b, Location loc, StringRef instr, StringRef opText, Value ptr,
                  ArrayRef<Value> operands, Value pred, Value init, unsigned regBits) {
  auto [addr, space] = asmAddress(b, loc, ptr);
  std::string asmText, constraints;
  llvm::raw_string_ostream os(asmText), cs(constraints);
  char c = constraintFor(regBits);
  SmallVector<Value> args{addr};
  args.append(operands.begin(), operands.end());
  args.push_back(pred);
  int64_t first = init ? 1 : 0; // index of the address operand
  int64_t predIndex = first + 1 + operands.size();
  os << "@$" << predIndex << " " << instr << space << "." << opText << " ";
  if (init) {
    os << "$0, ";
    cs << "=" << c << ",";
  }
  os << "[$" << first << "]";
  cs << "l";
  for (size_t i = 0; i < operands.size(); ++i) {
    os << ", $" << first + 1 + i;
    cs << "," << c;
  }
  os << ";";
  cs << ",b";
  if (init) {
    cs << ",0";
    args.push_back(init);
  }
  auto asmOp = createInlinePtx(b, loc, init ? init.getType() : Type(), args, asmText, constraints);
  return init ? asmOp.getResult(0) : Value();
}

/// `v`'s bits as the integer register inline PTX passes it in.
Value atomBits(OpBuilder &b, Location loc, Value v, unsigned memBits) {
  return toAsmInt(b, loc, v, memBits, memBits);
}

/// The per-register work of an atomic, shared by rmw and cas: which
/// registers and threads update (each element once), the update itself
/// (`update`, given the register, the predicate and whether a result is
/// wanted), and handing the old values to the copies that did not update
/// through the scratch.
template <typename Update>
LogicalResult lowerAtomic(ConversionPatternRewriter &rewriter, Operation *op,
                          const TypeConverter &tc, Value origPtr, Value ptrs, Value scratch,
                          Value result, Update &&update) {
  Location loc = op->getLoc();
  Type resultType = result.getType();
  int64_t n = numRegisters(tc, resultType);
  Type eltType = tc.convertType(getElementTypeOrSelf(resultType));
  if (!n || !eltType || !memoryBits(eltType))
    return rewriter.notifyMatchFailure(op, "types do not convert");
  unsigned memBits = memoryBits(eltType);
  Type i32 = rewriter.getI32Type();
  bool wantResult = !result.use_empty();

  // Owners: registers and threads that update.
  SmallVector<int64_t> canonical;
  uint32_t dupThreadMask = 0;
  int64_t groupWarps = 1;
  if (auto tile = dyn_cast<RankedTensorType>(origPtr.getType())) {
    auto ll = layoutOf(tile);
    if (failed(ll))
      return rewriter.notifyMatchFailure(op, "tile without a layout");
    auto owners = atomicOwners(*ll);
    if (failed(owners))
      return rewriter.notifyMatchFailure(op, "layout duplicates elements");
    canonical = owners->canonical;
    dupThreadMask = owners->dupThreadMask;
    groupWarps = ll->getNumWarps();
  } else {
    // A scalar: the first thread of each group of warps that runs the op
    // (txl-allocate-scratch records the group; a warpgroup by default).
    groupWarps = 4;
    if (auto g = op->getAttrOfType<IntegerAttr>(kAtomicGroupWarpsAttr))
      groupWarps = std::max<int64_t>(1, g.getInt());
    canonical.push_back(0);
    dupThreadMask = uint32_t(32 * groupWarps - 1);
  }
  Value owner;
  if (dupThreadMask) {
    Value bits = LLVM::AndOp::create(rewriter, loc, getThreadId(rewriter, loc),
                                     intConst(rewriter, loc, i32, int32_t(dupThreadMask)));
    owner = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, bits,
                                 intConst(rewriter, loc, i32, 0));
  }
  SmallVector<Value> ptrRegs = registersOf(rewriter, loc, origPtr, ptrs, n);
  SmallVector<Value> regs(n);
  for (int64_t r = 0; r < n; ++r) {
    if (canonical[r] != r)
      continue;
    regs[r] = update(r, ptrRegs[r], owner, wantResult);
  }
  if (!wantResult) {
    rewriter.eraseOp(op);
    return success();
  }
  for (int64_t r = 0; r < n; ++r)
    if (!regs[r])
      regs[r] = regs[canonical[r]];
  if (dupThreadMask) {
    if (!scratch)
      return rewriter.notifyMatchFailure(op, "no scratch");
    // The owners store the old values, the group syncs, every thread reads
    // its elements (a first barrier: the previous use of the scratch is read).
    int64_t bytes = memBits / 8;
    SmallVector<Value> addrs;
    if (auto tile = dyn_cast<RankedTensorType>(resultType)) {
      LinearLayout ll = *layoutOf(tile);
      ThreadCoords coords(rewriter, loc, ll);
      for (int64_t r = 0; r < n; ++r) {
        SmallVector<Value> c;
        for (unsigned d = 0; d < tile.getRank(); ++d)
          c.push_back(coords.get(rewriter, loc, r, d));
        Value offset = rowMajorOffset(rewriter, loc, tile.getShape(), tile.getShape().back(), c);
        offset = LLVM::MulOp::create(rewriter, loc, offset, intConst(rewriter, loc, i32, bytes));
        addrs.push_back(addBytes(rewriter, loc, scratch, offset));
      }
    } else {
      addrs.push_back(scratch);
    }
    groupBarrier(rewriter, loc, groupWarps);
    unsigned regBits = std::max(memBits, 16u);
    for (int64_t r = 0; r < n; ++r) {
      if (canonical[r] != r)
        continue;
      auto [addr, space] = asmAddress(rewriter, loc, addrs[r]);
      std::string asmText;
      llvm::raw_string_ostream(asmText) << "@$2 st" << space << ".b" << memBits << " [$0], $1;";
      std::string constraints = std::string("l,") + constraintFor(regBits) + ",b";
      createInlinePtx(rewriter, loc, Type(),
                      ValueRange{addr, toAsmInt(rewriter, loc, regs[r], memBits, regBits), owner},
                      asmText, constraints);
    }
    groupBarrier(rewriter, loc, groupWarps);
    for (int64_t r = 0; r < n; ++r)
      regs[r] = loadBits(rewriter, loc, addrs[r], 1, eltType, memBits).front();
  }
  rewriter.replaceOp(op, packAs(rewriter, loc, tc, resultType, regs));
  return success();
}

/// The predicate of one register: the user's mask and the owner rule.
Value atomicPredicate(OpBuilder &b, Location loc, Value mask, Value owner) {
  if (mask && owner)
    return LLVM::AndOp::create(b, loc, mask, owner);
  if (mask)
    return mask;
  if (owner)
    return owner;
  return intConst(b, loc, b.getI1Type(), 1);
}

/// An unused result becomes `red` where PTX allows it (red takes relaxed
/// and release only, and has no exch: acquire, acq_rel and xchg stay `atom`).
bool useRed(AtomicRMWKind kind, MemSemantic sem, bool wantResult) {
  return !wantResult && kind != AtomicRMWKind::xchg &&
         (sem == MemSemantic::relaxed || sem == MemSemantic::release);
}

/// `atom` or `red` with the op's sem and scope.
std::string atomInstr(MemSemantic sem, MemScope scope, bool red) {
  return (Twine(red ? "red" : "atom") + semText(sem) + scopeText(scope)).str();
}

struct AtomicRMWLowering : OpConversionPattern<AtomicRMWOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AtomicRMWOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const TypeConverter &tc = *getTypeConverter();
    int64_t n = numRegisters(tc, op.getType());
    Type eltType = tc.convertType(getElementTypeOrSelf(op.getType()));
    if (!n || !eltType || !memoryBits(eltType))
      return rewriter.notifyMatchFailure(op, "types do not convert");
    unsigned memBits = memoryBits(eltType);
    unsigned regBits = std::max(memBits, 16u);
    SmallVector<Value> vals = registersOf(rewriter, loc, op.getValue(), adaptor.getValue(), n);
    SmallVector<Value> masks = registersOf(rewriter, loc, op.getMask(), adaptor.getMask(), n);
    AtomicRMWKind kind = op.getKind();
    MemSemantic sem = op.getSem();
    MemScope scope = op.getScope();
    bool floatMinMax =
        isa<FloatType>(eltType) && (kind == AtomicRMWKind::max || kind == AtomicRMWKind::min);
    Type intType = rewriter.getIntegerType(memBits);
    auto update = [&](int64_t r, Value ptr, Value owner, bool wantResult) -> Value {
      Value pred = atomicPredicate(rewriter, loc, masks[r], owner);
      Value bits = atomBits(rewriter, loc, vals[r], memBits);
      bool red = useRed(kind, sem, wantResult);
      // atom always has a destination register (0 where masked off).
      Value init = red ? Value() : intConst(rewriter, loc, intType, 0);
      std::string instr = atomInstr(sem, scope, red);
      auto result = [&](Value old) {
        return wantResult ? fromAsmInt(rewriter, loc, old, eltType, memBits) : Value();
      };
      if (!floatMinMax)
        return result(emitAtomAsm(rewriter, loc, instr, atomOpText(kind, eltType), ptr, {bits},
                                  pred, init, regBits));
      // Floats ordered as their bits: non-negative ones (sign bit clear) as
      // signed integers, negative ones reversed as unsigned integers. max:
      // a non-negative value by a signed max, a negative one by an unsigned
      // min; min the other way round. -0.0 has the sign bit set, so it is
      // ordered below +0.0 and above every negative value.
      bool isMax = kind == AtomicRMWKind::max;
      Value neg = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::slt, bits,
                                       intConst(rewriter, loc, intType, 0));
      Value pos =
          LLVM::XOrOp::create(rewriter, loc, neg, intConst(rewriter, loc, rewriter.getI1Type(), 1));
      Value predPos = LLVM::AndOp::create(rewriter, loc, pred, pos);
      Value predNeg = LLVM::AndOp::create(rewriter, loc, pred, neg);
      std::string w = std::to_string(memBits);
      Value old = emitAtomAsm(rewriter, loc, instr, (isMax ? "max.s" : "min.s") + w, ptr, {bits},
                              predPos, init, regBits);
      old = emitAtomAsm(rewriter, loc, instr, (isMax ? "min.u" : "max.u") + w, ptr, {bits}, predNeg,
                        old, regBits);
      return result(old);
    };
    return lowerAtomic(rewriter, op, tc, op.getPtr(), adaptor.getPtr(), adaptor.getScratch(),
                       op.getResult(), update);
  }
};

struct AtomicCASLowering : OpConversionPattern<AtomicCASOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AtomicCASOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const TypeConverter &tc = *getTypeConverter();
    int64_t n = numRegisters(tc, op.getType());
    Type eltType = tc.convertType(getElementTypeOrSelf(op.getType()));
    if (!n || !eltType || !memoryBits(eltType))
      return rewriter.notifyMatchFailure(op, "types do not convert");
    unsigned memBits = memoryBits(eltType);
    unsigned regBits = std::max(memBits, 16u);
    SmallVector<Value> cmps = registersOf(rewriter, loc, op.getCmp(), adaptor.getCmp(), n);
    SmallVector<Value> vals = registersOf(rewriter, loc, op.getValue(), adaptor.getValue(), n);
    Type intType = rewriter.getIntegerType(regBits);
    std::string instr = atomInstr(op.getSem(), op.getScope(), /*red=*/false);
    std::string opText = "cas.b" + std::to_string(memBits);
    auto update = [&](int64_t r, Value ptr, Value owner, bool wantResult) -> Value {
      Value pred = atomicPredicate(rewriter, loc, Value(), owner);
      Value c = toAsmInt(rewriter, loc, cmps[r], memBits, regBits);
      Value v = toAsmInt(rewriter, loc, vals[r], memBits, regBits);
      // cas has no red form: the old value is produced either way.
      Value old = emitAtomAsm(rewriter, loc, instr, opText, ptr, {c, v}, pred,
                              intConst(rewriter, loc, intType, 0), regBits);
      return wantResult ? fromAsmInt(rewriter, loc, old, eltType, memBits) : Value();
    };
    return lowerAtomic(rewriter, op, tc, op.getPtr(), adaptor.getPtr(), adaptor.getScratch(),
                       op.getResult(), update);
  }
};
} // namespace mlir::txl::tile

void mlir::txl::populateTileToLLVMPatterns(const TXLTypeConverter &converter,
                                           RewritePatternSet &patterns, PatternBenefit benefit,
                                           const llvm::StringSet<> *uniformScalars) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ElementwiseTileLowering>(converter, ctx, benefit);
  patterns
      .add<ConstantTileLowering, SplatLowering, MakeRangeLowering,
           RegisterSelectLowering<BroadcastOp, mapBroadcast>,
           RegisterSelectLowering<ExpandDimsOp, mapExpandDims>,
           RegisterSelectLowering<TransOp, mapTrans>, RegisterSelectLowering<ReshapeOp, mapReshape>,
           JoinLowering, SplitLowering, RelayoutLowering, AddPtrLowering, LoadLowering,
           AtomicRMWLowering, AtomicCASLowering>(converter, ctx, benefit);
  patterns.add<StoreLowering>(converter, ctx, benefit, uniformScalars);
  populateReductionPatterns(converter, patterns, benefit);
  populatePrintPatterns(converter, patterns, benefit);
  populateInlineAsmPatterns(converter, patterns, benefit);
  populateGatherPatterns(converter, patterns, benefit);
  populateHistogramPatterns(converter, patterns, benefit);
}
