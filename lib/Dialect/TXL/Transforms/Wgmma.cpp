//===- Wgmma.cpp - txl.dot to wgmma (or mma.sync) ---------------------------===//
//
// 1. Waits that carry the accumulators (TXL's asyncLaunchDots). A wgmma's
//    results are written asynchronously; LLVM sees only the values, so it
//    could schedule their uses (softmax) above the wait. Each txl.dot_wait
//    therefore passes the still-pending accumulators through itself: walking
//    each block in order, async txl.dot results join a pending set; a
//    dot_wait takes the set as operands and later uses read its results;
//    dot_wait 0 empties the set. So `dot_wait 1` overlaps the next GEMM with
//    softmax exactly as written.
// 2. Lowering. A dot of M rows issues, per 64-row block and per K step, one
//    `wgmma.mma_async.m64nNkK` between a `wgmma.fence` and a commit group.
//    Shared-memory operands are addressed by matrix descriptors:
//      bits  0-13  start address >> 4
//      bits 16-29  leading byte offset >> 4 (MN-major: next swizzle column block)
//      bits 32-45  stride byte offset >> 4 (next 8-row group: 8 x swizzle bytes)
//      bits 62-63  swizzle mode (1 = 128 B, 2 = 64 B, 3 = 32 B)
//    A tile stored with an S-byte swizzle is made of column blocks of S bytes
//    x rows (as TMA writes it). A K-major operand advances 32 bytes per K step
//    inside a block, then jumps to the next block; an MN-major operand
//    advances 16 (or 8, 4) rows of S bytes per step.
//    The SS form uses upstream nvvm.wgmma.mma_async. The RS form (A from
//    registers, e.g. P*V of flash attention) and a run-time use_acc have no
//    upstream op, so they are inline asm (docs/mlir22-nvptx-facts.md §1c).
// 3. A dot whose M is not a whole number of 64-row wgmma steps of its role
//    (usesMmaSync: M = 16 or 32) has the mma.sync layouts (#txl.nvmma
//    version 2) and becomes upstream nvvm.mma.sync m16n8k16 instructions, one
//    per warp, 16-row block, 8-column block and K step.
//
//===----------------------------------------------------------------------===//

#include "txl/Analysis/LoweringUtils.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLWGMMA
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

//===----------------------------------------------------------------------===//
// Step 1: thread pending accumulators through dot_wait
//===----------------------------------------------------------------------===//

void carryPendingThroughWaits(Block &block) {
  SmallVector<Value> pending;
  for (Operation &op : llvm::make_early_inc_range(block)) {
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        carryPendingThroughWaits(inner);
    if (auto dot = dyn_cast<DotOp>(op)) {
      if (dot.getAsync())
        pending.push_back(dot.getResult());
      continue;
    }
    auto wait = dyn_cast<DotWaitOp>(op);
    if (!wait)
      continue;
    if (!wait.getInputs().empty() || pending.empty()) {
      if (wait.getPendings() == 0)
        pending.clear();
      continue;
    }
    OpBuilder b(wait);
    auto carried = DotWaitOp::create(b, wait.getLoc(), wait.getPendings(), pending);
    for (auto [old, now] : llvm::zip(pending, carried.getResults()))
      old.replaceUsesWithIf(now, [&](OpOperand &use) {
        Operation *user = block.findAncestorOpInBlock(*use.getOwner());
        return user && carried->isBeforeInBlock(user);
      });
    wait.erase();
    if (carried.getPendings() == 0)
      pending.clear();
    else
      pending.assign(carried.getResults().begin(), carried.getResults().end());
  }
}

//===----------------------------------------------------------------------===//
// Step 2: lowering
//===----------------------------------------------------------------------===//

/// PTX type name of a wgmma input.
std::optional<StringRef> ptxType(Type t) {
  if (t.isBF16())
    return StringRef("bf16");
  if (t.isF16())
    return StringRef("f16");
  if (t.isF32())
    return StringRef("tf32");
  if (isa<Float8E4M3FNType>(t))
    return StringRef("e4m3");
  if (isa<Float8E5M2Type>(t))
    return StringRef("e5m2");
  return std::nullopt;
}

/// How to address one shared-memory operand of a wgmma.
struct SmemOperand {
  Value base;      // i64 descriptor with the run-time address
  bool kMajor;     // K is the contiguous dimension
  int64_t swizzle; // bytes
  int64_t rows;    // physical rows of the tile (its non-contiguous extent)
  int64_t elemBytes;

  /// Bytes from the tile's start to the (64-row MN block mn, K step ks) corner.
  int64_t offset(int64_t mn, int64_t ks, int64_t kInstr) const {
    int64_t kBytes = kInstr * elemBytes;
    if (kMajor) {
      int64_t col = ks * kBytes;
      return (col / swizzle) * rows * swizzle + col % swizzle + mn * 64 * swizzle;
    }
    int64_t col = mn * 64 * elemBytes;
    return (col / swizzle) * rows * swizzle + col % swizzle + ks * kInstr * swizzle;
  }
};

/// A shared-memory wgmma operand needs a swizzled NVMMA layout (checked
/// before makeDescriptor builds anything).
LogicalResult checkSwizzled(Operation *dot, SmemType type, bool isA) {
  auto enc = dyn_cast_or_null<NVMMASharedAttr>(type.getEncoding());
  if (!enc || enc.getSwizzle() == 0)
    return dot->emitOpError() << (isA ? "A" : "B")
                              << " operand needs a swizzled shared layout "
                                 "(#txl.nvmma_shared<swizzle = 32|64|128>); run --txl-smem-allocs "
                                 "or give the buffer an encoding";
  return success();
}

/// The descriptor of an operand that passed checkSwizzled.
SmemOperand makeDescriptor(OpBuilder &b, Location loc, Value view, SmemType type, bool isA) {
  auto enc = cast<NVMMASharedAttr>(type.getEncoding());
  SmemOperand op;
  op.swizzle = enc.getSwizzle();
  op.elemBytes = getElementBitWidth(type.getElementType()) / 8;
  // A is [M, K]: K-major unless transposed. B is [K, N]: K-major if transposed.
  op.kMajor = isA ? !enc.getTransposed() : enc.getTransposed();
  bool kContiguous = op.kMajor;
  int64_t kDim = isA ? 1 : 0;
  int64_t mnDim = isA ? 0 : 1;
  op.rows = kContiguous ? type.getDimSize(mnDim) : type.getDimSize(kDim);
  int64_t mode = op.swizzle == 128 ? 1 : op.swizzle == 64 ? 2 : 3;
  int64_t lbo = op.kMajor ? 16 : op.rows * op.swizzle;
  int64_t sbo = 8 * op.swizzle;
  uint64_t fields =
      (uint64_t(lbo >> 4) << 16) | (uint64_t(sbo >> 4) << 32) | (uint64_t(mode) << 62);
  Value addr = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), view);
  addr = LLVM::AndOp::create(b, loc, addr, i64Const(b, loc, 0x3FFFF));
  addr = LLVM::LShrOp::create(b, loc, addr, i64Const(b, loc, 4));
  op.base = LLVM::OrOp::create(b, loc, addr, i64Const(b, loc, int64_t(fields)));
  return op;
}

Value descAt(OpBuilder &b, Location loc, const SmemOperand &op, int64_t mn, int64_t ks,
             int64_t kInstr) {
  int64_t off = op.offset(mn, ks, kInstr);
  return off ? Value(LLVM::AddOp::create(b, loc, op.base, i64Const(b, loc, off >> 4))) : op.base;
}

/// Packs registers `first..first+count-1` of a tile struct into one i32.
Value packRegs(OpBuilder &b, Location loc, Value tile, Type elt, int64_t first, int64_t count) {
  auto vecType = VectorType::get({count}, elt);
  Value vec = LLVM::UndefOp::create(b, loc, vecType);
  for (int64_t i = 0; i < count; ++i) {
    Value e = LLVM::ExtractValueOp::create(b, loc, tile, first + i);
    vec = LLVM::InsertElementOp::create(b, loc, vec, e, i32Const(b, loc, i));
  }
  return LLVM::BitcastOp::create(b, loc, b.getI32Type(), vec);
}

struct LowerDot : OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(DotOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto accType = cast<RankedTensorType>(op.getAcc().getType());
    if (auto v2 = dyn_cast_or_null<NVMMAAttr>(accType.getEncoding()); v2 && v2.getVersion() == 2)
      return failure(); // LowerMmaSyncDot
    auto aShaped = cast<ShapedType>(op.getA().getType());
    auto bType = cast<SmemType>(op.getB().getType());
    Type inElt = bType.getElementType();
    if (!accType.getElementType().isF32())
      return op.emitOpError() << "the wgmma lowering supports f32 accumulators only (got "
                              << accType.getElementType() << ")";
    auto inName = ptxType(inElt);
    if (!inName)
      return op.emitOpError() << "the wgmma lowering does not support " << inElt << " inputs";
    auto accLayout = LinearLayout::get(accType.getShape(), accType.getEncoding());
    auto mma = dyn_cast_or_null<NVMMAAttr>(accType.getEncoding());
    if (failed(accLayout) || !mma || mma.getWarpsPerCTA()[0] % 4 != 0 ||
        mma.getWarpsPerCTA()[1] != 1)
      return op.emitOpError() << "accumulator must be in a wgmma layout of whole warpgroups "
                                 "stacked along M (#txl.nvmma<warpsPerCTA = [4 * g, 1]>); run "
                                 "--txl-assign-layouts";
    int64_t m = accType.getDimSize(0), n = accType.getDimSize(1), k = aShaped.getDimSize(1);
    if (n > 256)
      return op.emitOpError() << "N = " << n
                              << ": one wgmma computes at most 256 columns; split the dot along N "
                                 "(two dots into two accumulators), or give it fewer rows than 16 "
                                 "per warp (M < 64 on 4 warps runs on mma.sync, any N)";
    // The warpgroups of the layout split M: warpgroup w of g computes the
    // 64-row blocks w, w + g, w + 2g, ... (the layout's warp bits above the
    // first two are rows 64, 128, ...; its register bits above them further
    // rows).
    int64_t groups = mma.getWarpsPerCTA()[0] / 4;
    if (m % (64 * groups) != 0)
      return op.emitOpError() << "M = " << m << " on " << groups
                              << " warpgroups: each warpgroup computes whole 64-row wgmma blocks, "
                                 "so M must be a multiple of "
                              << 64 * groups;
    // The split needs the warpgroups to run one copy of the body: with a
    // role per warpgroup each would compute only its share of its own dot.
    if (groups > 1 && getRoleWarps(op) < 4 * groups)
      return op.emitOpError() << "splits M over " << groups
                              << " warpgroups, but this kernel gives each warpgroup a role of its "
                                 "own (no txl.role_warps = "
                              << 4 * groups
                              << "; it uses txl.warpgroup_id, is_warpgroup or is_warp): use "
                                 "num_warps=4 per warpgroup there";
    int64_t blocks = m / (64 * groups); // 64-row blocks per warpgroup
    int64_t kInstr = getMmaInstrK(inElt);
    int64_t regsPerBlock = n / 2; // f32 accumulator registers per 64-row block
    if (accLayout->getNumRegs() != blocks * regsPerBlock)
      return op.emitOpError() << "unexpected accumulator register count";

    // wgmma transposes (reads MN-major) 16-bit operands only: an 8-bit or
    // tf32 operand in shared memory must hold K contiguous.
    if (getElementBitWidth(inElt) != 16) {
      auto kMajor = [](SmemType t, bool isA) {
        auto enc = dyn_cast_or_null<NVMMASharedAttr>(t.getEncoding());
        bool transposed = enc && enc.getTransposed();
        return isA ? !transposed : transposed;
      };
      bool aOk = isa<RankedTensorType>(aShaped) || kMajor(cast<SmemType>(aShaped), true);
      if (!aOk || !kMajor(bType, false))
        return op.emitOpError()
               << "reads " << (aOk ? "B" : "A") << " (" << inElt
               << ") with its M/N dimension contiguous, but wgmma transposes only 16-bit "
                  "operands: give the "
               << (aOk ? "B operand K contiguous (load B^T, K x N from an N x K tensor, and "
                         "pass its .T as tl.dot does with a K-major descriptor)"
                       : "A operand K contiguous")
               << ", or convert the operands to fp16/bf16";
    }
    // Operands: every check first, so that a failing dot leaves no IR behind.
    bool registerA = isa<RankedTensorType>(op.getA().getType());
    if (failed(checkSwizzled(op, bType, /*isA=*/false)) ||
        (registerA ? failed(checkRegisterA(op, groups))
                   : failed(checkSwizzled(op, cast<SmemType>(aShaped), /*isA=*/true))))
      return failure();
    SmemOperand bDesc = makeDescriptor(rewriter, loc, adaptor.getB(), bType, /*isA=*/false);
    std::optional<SmemOperand> aDesc;
    if (!registerA) {
      aDesc = makeDescriptor(rewriter, loc, adaptor.getA(), cast<SmemType>(aShaped), /*isA=*/true);
      if (groups > 1) {
        // This warpgroup's first block: block offsets are linear in the block
        // index, so block w starts w times block 1's offset further.
        Value wg = LLVM::LShrOp::create(rewriter, loc, getThreadId(rewriter, loc),
                                        i32Const(rewriter, loc, 7));
        wg = LLVM::AndOp::create(rewriter, loc, wg, i32Const(rewriter, loc, groups - 1));
        wg = LLVM::ZExtOp::create(rewriter, loc, rewriter.getI64Type(), wg);
        Value step = LLVM::MulOp::create(rewriter, loc, wg,
                                         i64Const(rewriter, loc, aDesc->offset(1, 0, kInstr) >> 4));
        aDesc->base = LLVM::AddOp::create(rewriter, loc, aDesc->base, step);
      }
    }

    auto f32 = rewriter.getF32Type();
    auto blockType =
        LLVM::LLVMStructType::getLiteral(getContext(), SmallVector<Type>(regsPerBlock, f32));
    Value acc = adaptor.getAcc();
    // A zero accumulator (S = Q K^T of attention) is not loaded into the
    // registers: the first k step runs with scale-d = 0 on undefined inputs.
    // Zeroing them between wgmma.fence and the wgmma would be non-wgmma
    // instructions defining its inputs, which makes ptxas serialize the
    // wgmma pipeline (warning C7513).
    bool zeroAcc = !adaptor.getUseAcc() && matchPattern(op.getAcc(), m_AnyZeroFloat());
    // The same holds for the packed A operand (P of attention, converted
    // from f32 just before): LLVM would sink its definitions to their use,
    // past wgmma.fence; an empty side-effecting asm that ties the registers
    // (CUTLASS's warpgroup_fence_operand) pins them before it.
    int64_t kSteps = k / kInstr;
    SmallVector<Value> packedA;
    if (registerA) {
      // 4 x 32-bit registers per K step (see the layout in LinearLayout.cpp).
      int64_t perReg = 32 / getElementBitWidth(inElt);
      Type elt = getTypeConverter()->convertType(inElt);
      for (int64_t i = 0; i < blocks * kSteps * 4; ++i)
        packedA.push_back(packRegs(rewriter, loc, adaptor.getA(), elt, i * perReg, perReg));
      packedA = emitTie(rewriter, loc, "", packedA);
    }
    NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
    for (int64_t mi = 0; mi < blocks; ++mi) {
      // This block's accumulator registers.
      Value block = LLVM::UndefOp::create(rewriter, loc, blockType);
      for (int64_t r = 0; r < regsPerBlock && !zeroAcc; ++r)
        block = LLVM::InsertValueOp::create(
            rewriter, loc, block,
            LLVM::ExtractValueOp::create(rewriter, loc, acc, mi * regsPerBlock + r), r);
      for (int64_t ks = 0; ks < k / kInstr; ++ks) {
        Value useAcc = ks == 0 ? adaptor.getUseAcc() : Value();
        bool clear = zeroAcc && ks == 0;
        Value descB = descAt(rewriter, loc, bDesc, 0, ks, kInstr);
        if (!registerA && !useAcc) {
          block =
              emitSS(rewriter, loc, block, descAt(rewriter, loc, *aDesc, mi * groups, ks, kInstr),
                     descB, *aDesc, bDesc, n, kInstr, inElt, /*accumulate=*/!clear);
          continue;
        }
        if (clear)
          useAcc = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(), 0);
        SmallVector<Value> aRegs;
        if (registerA) {
          int64_t first = (mi * kSteps + ks) * 4;
          aRegs.append(packedA.begin() + first, packedA.begin() + first + 4);
        } else {
          aRegs.push_back(descAt(rewriter, loc, *aDesc, mi * groups, ks, kInstr));
        }
        block = emitAsm(rewriter, loc, block, aRegs, descB, useAcc, registerA ? nullptr : &*aDesc,
                        bDesc, n, kInstr, inElt, *inName);
      }
      for (int64_t r = 0; r < regsPerBlock; ++r)
        acc = LLVM::InsertValueOp::create(rewriter, loc, acc,
                                          LLVM::ExtractValueOp::create(rewriter, loc, block, r),
                                          mi * regsPerBlock + r);
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
    if (!op.getAsync())
      acc = emitWait(rewriter, loc, 0, ValueRange{acc})[0];
    rewriter.replaceOp(op, acc);
    return success();
  }

  /// The register A tile must be in the wgmma operand layout whose register
  /// order packRegs relies on (`groups` warpgroups stacked along M): checked
  /// against the layout itself.
  LogicalResult checkRegisterA(DotOp op, int64_t groups) const {
    auto type = cast<RankedTensorType>(op.getA().getType());
    auto layout = LinearLayout::get(type.getShape(), type.getEncoding());
    auto dotOp = dyn_cast_or_null<DotOperandAttr>(type.getEncoding());
    if (failed(layout) || !dotOp)
      return op.emitOpError() << "register A operand must be in the wgmma operand layout "
                                 "(#txl.dot_operand); run --txl-assign-layouts";
    int64_t perReg = 32 / getElementBitWidth(type.getElementType());
    int64_t kInstr = getMmaInstrK(type.getElementType());
    int64_t k = type.getDimSize(1);
    if (layout->getNumWarps() != 4 * groups)
      return op.emitOpError() << "register A operand spans " << layout->getNumWarps()
                              << " warps but the accumulator " << 4 * groups;
    for (int64_t mi = 0; mi < type.getDimSize(0) / (64 * groups); ++mi)
      for (int64_t ks = 0; ks < k / kInstr; ++ks)
        for (int64_t j = 0; j < 4; ++j)
          for (int64_t e = 0; e < perReg; ++e) {
            int64_t r = (mi * (k / kInstr) + ks) * 4 * perReg + j * perReg + e;
            LinearLayout::Coord want{mi * 64 * groups + 8 * (j % 2),
                                     ks * kInstr + (j / 2) * 4 * perReg + e};
            if (layout->applyReg(r) != want)
              return op.emitOpError() << "register A layout does not match the wgmma fragment";
          }
    return success();
  }

  Value emitSS(OpBuilder &b, Location loc, Value block, Value descA, Value descB,
               const SmemOperand &a, const SmemOperand &bOp, int64_t n, int64_t kInstr, Type inElt,
               bool accumulate) const {
    MLIRContext *ctx = b.getContext();
    auto wgType = [&](Type t) {
      NVVM::WGMMATypes kind = t.isBF16()                 ? NVVM::WGMMATypes::bf16
                              : t.isF16()                ? NVVM::WGMMATypes::f16
                              : t.isF32()                ? NVVM::WGMMATypes::tf32
                              : isa<Float8E4M3FNType>(t) ? NVVM::WGMMATypes::e4m3
                                                         : NVVM::WGMMATypes::e5m2;
      return NVVM::WGMMATypesAttr::get(ctx, kind);
    };
    return NVVM::WgmmaMmaAsyncOp::create(
        b, loc, block.getType(), block, descA, descB, NVVM::MMAShapeAttr::get(ctx, 64, n, kInstr),
        wgType(inElt), wgType(inElt), NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
        NVVM::WGMMAScaleOutAttr::get(ctx, accumulate ? NVVM::WGMMAScaleOut::one
                                                     : NVVM::WGMMAScaleOut::zero),
        NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
        NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
        NVVM::MMALayoutAttr::get(ctx, a.kMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col),
        NVVM::MMALayoutAttr::get(ctx, bOp.kMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row),
        NVVM::MMAIntOverflowAttr());
  }

  /// wgmma as inline asm: A in registers or a descriptor, run-time scale-d.
  Value emitAsm(OpBuilder &b, Location loc, Value block, ArrayRef<Value> aRegs, Value descB,
                Value useAcc, const SmemOperand *aDesc, const SmemOperand &bOp, int64_t n,
                int64_t kInstr, Type inElt, StringRef inName) const {
    int64_t regs = n / 2;
    std::string outs, cons;
    for (int64_t i = 0; i < regs; ++i) {
      outs += (i ? ",$" : "$") + std::to_string(i);
      cons += (i ? ",=f" : "=f");
    }
    SmallVector<Value> operands;
    std::string aText;
    int64_t next = regs;
    if (aDesc) {
      aText = "$" + std::to_string(next++);
      cons += ",l";
    } else {
      aText = "{";
      for (int j = 0; j < 4; ++j) {
        aText += (j ? ",$" : "$") + std::to_string(next++);
        cons += ",r";
      }
      aText += "}";
    }
    operands.append(aRegs.begin(), aRegs.end());
    std::string bText = "$" + std::to_string(next++);
    cons += ",l";
    operands.push_back(descB);
    for (int64_t i = 0; i < regs; ++i) {
      cons += "," + std::to_string(i);
      operands.push_back(LLVM::ExtractValueOp::create(b, loc, block, i));
    }
    // scale-d: an immediate when known (a register defined between
    // wgmma.fence and the wgmma would serialize the pipeline, see above).
    std::string scaleText = "1";
    IntegerAttr known;
    if (useAcc && matchPattern(useAcc, m_Constant(&known))) {
      scaleText = known.getValue().isZero() ? "0" : "1";
    } else if (useAcc) {
      scaleText = "$" + std::to_string(next + regs);
      cons += ",r";
      operands.push_back(LLVM::ZExtOp::create(b, loc, b.getI32Type(), useAcc));
    }
    // Transpose immediates exist for 16-bit inputs only (trans-a for SS only).
    std::string imms = "1, 1";
    bool sixteen = getElementBitWidth(inElt) == 16;
    if (sixteen) {
      if (aDesc)
        imms += aDesc->kMajor ? ", 0" : ", 1";
      imms += bOp.kMajor ? ", 0" : ", 1";
    }
    std::string text = llvm::formatv(
        "{{\n.reg .pred p;\nsetp.ne.b32 p, {0}, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n{1}k{2}.f32.{3}.{3} {{{4}}, {5}, {6}, p, {7};\n}\n",
        scaleText, n, kInstr, inName, outs, aText, bText, imms);
    auto asmOp = createInlinePtx(b, loc, block.getType(), operands, text, cons);
    return asmOp.getResult(0);
  }

  /// An inline asm `text` (side effects) through which every value of
  /// `values` is tied: later uses see the asm's results, so LLVM neither
  /// moves their definitions after it nor their uses before it.
  static SmallVector<Value> emitTie(OpBuilder &b, Location loc, StringRef text,
                                    ArrayRef<Value> values) {
    if (values.empty())
      return {};
    std::string cons;
    SmallVector<Type> types;
    auto letter = [](Type t) {
      unsigned bits = t.getIntOrFloatBitWidth();
      return t.isF32() ? "f" : bits == 64 ? "l" : bits == 16 ? "h" : "r";
    };
    for (auto [i, v] : llvm::enumerate(values)) {
      cons += std::string(i ? ",=" : "=") + letter(v.getType());
      types.push_back(v.getType());
    }
    for (size_t i = 0; i < values.size(); ++i)
      cons += "," + std::to_string(i);
    auto resultType = LLVM::LLVMStructType::getLiteral(b.getContext(), types);
    auto asmOp = createInlinePtx(b, loc, resultType, values, text, cons);
    SmallVector<Value> out;
    for (size_t i = 0; i < values.size(); ++i)
      out.push_back(LLVM::ExtractValueOp::create(b, loc, asmOp.getResult(0), i));
    return out;
  }

public:
  /// `wgmma.wait_group N` with every register of `tiles` tied through it
  /// (N < 0: no instruction, only the tie that orders the registers).
  static SmallVector<Value> emitWait(OpBuilder &b, Location loc, int64_t pendings,
                                     ValueRange tiles) {
    SmallVector<Value> scalars;
    for (Value t : tiles) {
      auto st = cast<LLVM::LLVMStructType>(t.getType());
      for (size_t i = 0; i < st.getBody().size(); ++i)
        scalars.push_back(LLVM::ExtractValueOp::create(b, loc, t, i));
    }
    if (scalars.empty()) {
      if (pendings >= 0)
        NVVM::WgmmaWaitGroupSyncOp::create(b, loc, pendings);
      return {};
    }
    std::string text =
        pendings >= 0 ? "wgmma.wait_group.sync.aligned " + std::to_string(pendings) + ";" : "";
    SmallVector<Value> tied = emitTie(b, loc, text, scalars);
    SmallVector<Value> out;
    int64_t field = 0;
    for (Value t : tiles) {
      auto st = cast<LLVM::LLVMStructType>(t.getType());
      Value rebuilt = LLVM::UndefOp::create(b, loc, st);
      for (size_t i = 0; i < st.getBody().size(); ++i)
        rebuilt = LLVM::InsertValueOp::create(b, loc, rebuilt, tied[field++], i);
      out.push_back(rebuilt);
    }
    return out;
  }
};

/// A dot in the mma.sync layouts (#txl.nvmma version 2): per warp, per
/// 16-row block and 8-column block of its accumulator, K / 16
/// `mma.sync.aligned.m16n8k16.row.col.f32` (upstream nvvm.mma.sync). The
/// registers of each instruction are found through the three layouts: the
/// coordinates a thread's register holds relative to lane 0 of warp 0 (its
/// register bits) name the fragment element, e.g. A's a2/a3 pair is (row + 8,
/// k .. k + 1) of the block (LinearLayout.cpp lists the fragments).
struct LowerMmaSyncDot : OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(DotOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto accType = cast<RankedTensorType>(op.getAcc().getType());
    auto mma = dyn_cast_or_null<NVMMAAttr>(accType.getEncoding());
    if (!mma || mma.getVersion() != 2)
      return failure(); // LowerDot
    auto aType = dyn_cast<RankedTensorType>(op.getA().getType());
    auto bType = dyn_cast<RankedTensorType>(op.getB().getType());
    auto isOperand = [&](RankedTensorType t, unsigned idx) {
      auto enc = t ? dyn_cast_or_null<DotOperandAttr>(t.getEncoding()) : DotOperandAttr();
      return enc && enc.getOpIdx() == idx && enc.getParent() == mma && enc.getKWidth() == 2;
    };
    if (!isOperand(aType, 0) || !isOperand(bType, 1))
      return op.emitOpError() << "mma.sync reads A and B from registers in its operand layouts "
                                 "(#txl.dot_operand<opIdx = 0 / 1, parent = the accumulator's "
                                 "#txl.nvmma version 2, kWidth = 2>); run --txl-assign-layouts";
    Type in = aType.getElementType();
    if ((!in.isF16() && !in.isBF16()) || bType.getElementType() != in ||
        !accType.getElementType().isF32())
      return op.emitOpError() << "mma.sync lowering takes fp16/bf16 operands and an f32 "
                                 "accumulator";
    if (op.getUseAcc())
      return op.emitOpError() << "a run-time use_acc is a wgmma form; mma.sync dots always add "
                                 "the accumulator";
    auto accLayout = LinearLayout::get(accType.getShape(), mma);
    auto aLayout = LinearLayout::get(aType.getShape(), aType.getEncoding());
    auto bLayout = LinearLayout::get(bType.getShape(), bType.getEncoding());
    if (failed(accLayout) || failed(aLayout) || failed(bLayout))
      return op.emitOpError() << "operand shapes do not distribute over the mma.sync layouts";
    int64_t m = accType.getDimSize(0), n = accType.getDimSize(1), k = aType.getDimSize(1);
    int64_t wm = mma.getWarpsPerCTA()[0], wn = mma.getWarpsPerCTA()[1];
    int64_t rowBlocks = std::max<int64_t>(1, m / (16 * wm));
    int64_t colBlocks = std::max<int64_t>(1, n / (8 * wn));
    if (k % 16 != 0)
      return op.emitOpError() << "mma.sync m16n8k16 needs K a multiple of 16, got " << k;

    // Every instruction's registers, found before any IR is built (a layout
    // that misses a fragment element is an error, not a half-built dot).
    struct Step {
      int64_t c[4], a[8], b[4];
    };
    SmallVector<Step> steps;
    // The register holding (row, col) relative to lane 0 of warp 0, -1 if none.
    auto at = [](const LinearLayout &ll, int64_t row, int64_t col) {
      return ll.getRegAt({row, col}).value_or(-1);
    };
    for (int64_t mi = 0; mi < rowBlocks; ++mi)
      for (int64_t ni = 0; ni < colBlocks; ++ni) {
        int64_t row = 16 * wm * mi, col = 8 * wn * ni;
        for (int64_t k0 = 0; k0 < k; k0 += 16) {
          // c0..c3 = (row, col), (row, col + 1), (row + 8, col), (row + 8, col + 1);
          // a0..a7 = (row, k0..k0+1), (row + 8, k0..), (row, k0 + 8..), (row + 8, k0 + 8..);
          // b0..b3 = (k0..k0+1, col), (k0 + 8.., col).
          Step s{{at(*accLayout, row, col), at(*accLayout, row, col + 1),
                  at(*accLayout, row + 8, col), at(*accLayout, row + 8, col + 1)},
                 {at(*aLayout, row, k0), at(*aLayout, row, k0 + 1), at(*aLayout, row + 8, k0),
                  at(*aLayout, row + 8, k0 + 1), at(*aLayout, row, k0 + 8),
                  at(*aLayout, row, k0 + 9), at(*aLayout, row + 8, k0 + 8),
                  at(*aLayout, row + 8, k0 + 9)},
                 {at(*bLayout, k0, col), at(*bLayout, k0 + 1, col), at(*bLayout, k0 + 8, col),
                  at(*bLayout, k0 + 9, col)}};
          if (llvm::is_contained(s.c, -1) || llvm::is_contained(s.a, -1) ||
              llvm::is_contained(s.b, -1))
            return op.emitOpError() << "the mma.sync layouts miss a fragment element of the "
                                       "16 x 8 block at ("
                                    << row << ", " << col << "), K step " << k0 / 16;
          steps.push_back(s);
        }
      }

    Type elt = getTypeConverter()->convertType(in);
    auto pairType = VectorType::get({2}, elt);
    Type operandType = in.isBF16() ? Type(rewriter.getI32Type()) : Type(pairType);
    // Two registers of a tile as one operand (a 32-bit pair).
    auto pack = [&](Value tile, int64_t first, int64_t second) {
      Value vec = LLVM::UndefOp::create(rewriter, loc, pairType);
      int64_t regs[2] = {first, second};
      for (auto [i, r] : llvm::enumerate(regs)) {
        Value e = LLVM::ExtractValueOp::create(rewriter, loc, tile, r);
        vec = LLVM::InsertElementOp::create(rewriter, loc, vec, e, i32Const(rewriter, loc, i));
      }
      return in.isBF16() ? Value(LLVM::BitcastOp::create(rewriter, loc, operandType, vec)) : vec;
    };
    auto f32 = rewriter.getF32Type();
    auto resultType = LLVM::LLVMStructType::getLiteral(getContext(), {f32, f32, f32, f32});
    auto ptx = in.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    Value acc = adaptor.getAcc();
    int64_t kSteps = k / 16;
    for (size_t first = 0; first < steps.size(); first += kSteps) {
      // One 16 x 8 block: its accumulator registers through the K steps.
      SmallVector<Value> c;
      for (int64_t r : steps[first].c)
        c.push_back(LLVM::ExtractValueOp::create(rewriter, loc, acc, r));
      for (int64_t ks = 0; ks < kSteps; ++ks) {
        const Step &s = steps[first + ks];
        Value a[4], b[2];
        for (int i = 0; i < 4; ++i)
          a[i] = pack(adaptor.getA(), s.a[2 * i], s.a[2 * i + 1]);
        for (int i = 0; i < 2; ++i)
          b[i] = pack(adaptor.getB(), s.b[2 * i], s.b[2 * i + 1]);
        Value d = NVVM::MmaOp::create(
            rewriter, loc, resultType, ValueRange(a), ValueRange(b), ValueRange(c),
            ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
            std::array<NVVM::MMATypes, 2>{ptx, ptx},
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
        for (int64_t i = 0; i < 4; ++i)
          c[i] = LLVM::ExtractValueOp::create(rewriter, loc, d, i);
      }
      for (auto [r, v] : llvm::zip(steps[first].c, c))
        acc = LLVM::InsertValueOp::create(rewriter, loc, acc, v, r);
    }
    rewriter.replaceOp(op, acc);
    return success();
  }
};

struct LowerDotWait : OpConversionPattern<DotWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(DotWaitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    for (Value v : adaptor.getInputs())
      if (!isa<LLVM::LLVMStructType>(v.getType()))
        return op.emitOpError() << "can carry register tiles only, got " << v.getType();
    // A wgmma reads its register A operand (P of attention) until it
    // retires: tie those registers through the wait that retires it too, so
    // that what the kernel computes meanwhile (the next P) cannot be
    // register-allocated onto them. Without this LLVM coalesces the next P
    // into the loop-carried registers while the wgmma still reads them, and
    // ptxas serializes every wgmma of the kernel (warning C7513).
    SmallVector<Value> tiles(adaptor.getInputs().begin(), adaptor.getInputs().end());
    for (Value in : op.getInputs())
      if (auto dot = in.getDefiningOp<DotOp>())
        if (isa<RankedTensorType>(dot.getA().getType()))
          if (Value a = rewriter.getRemappedValue(dot.getA());
              a && isa<LLVM::LLVMStructType>(a.getType()))
            tiles.push_back(a);
    SmallVector<Value> results = LowerDot::emitWait(rewriter, op.getLoc(), op.getPendings(), tiles);
    results.resize(op.getNumResults());
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct WgmmaPass : txl::impl::TXLWgmmaBase<WgmmaPass> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp func) {
      for (Block &block : func.getBody())
        carryPendingThroughWaits(block);
    });
    TXLTypeConverter converter(&getContext());
    ConversionTarget target(getContext());
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addIllegalOp<DotOp, DotWaitOp>();
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerDot, LowerMmaSyncDot, LowerDotWait>(converter, &getContext());
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
