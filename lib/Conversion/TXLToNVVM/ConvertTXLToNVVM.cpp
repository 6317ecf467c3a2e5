//===- ConvertTXLToNVVM.cpp - the final lowering to LLVM + NVVM -----------===//
//
// convert-txl-to-nvvm runs after every pipeliner stage and after upstream
// convert-scf-to-cf. What is left by then is lowered here in one dialect
// conversion with the TXLTypeConverter:
//
//  - kernels (func.func + txl.kernel) become llvm.funcs with nvvm.kernel,
//    nvvm.reqntid and nvvm.minctasm, their TMA descriptors by-value grid
//    constants (docs/mlir22-nvptx-facts.md §1b, §2, §4.5); helpers plain
//    llvm.funcs;
//  - scalar arith/math/cf/index/ub code through the upstream patterns;
//  - thread and grid ids, role predicates, named barriers and setmaxnreg;
//  - register tiles (TilePatterns.cpp, with TileAnalysis, TileBuilders,
//    TileReductions and TilePrint beside it: TileLowering.h);
//  - the unrealized casts the stages left between a txl type and its LLVM
//    form fold away.
//
// Before rewriting, the whole module is checked: a txl op that a stage
// should have lowered, a tile without a layout, an op on tiles that would
// need data from another thread, or an op of a dialect this pass does not
// lower is reported with an error naming the op and what is missing. Doing
// this up front gives one clear diagnostic per problem instead of the
// conversion driver's generic "failed to legalize".
//
//===----------------------------------------------------------------------===//

#include "txl/Conversion/Passes.h"

#include "TilePatterns.h"
#include "txl/Analysis/LoweringUtils.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::txl {
#define GEN_PASS_DEF_CONVERTTXLTONVVM
#include "txl/Conversion/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

//===----------------------------------------------------------------------===//
// The up-front check
//===----------------------------------------------------------------------===//

/// The pipeliner stage that lowers `op`, for a txl op this pass does not
/// lower itself; empty for ops this pass lowers.
std::string requiredStage(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::string>(op)
      .Case<SmemAllocOp>([](auto) { return "--txl-smem-allocs"; })
      .Case<GetBufferOp>([](GetBufferOp g) -> std::string {
        if (isa<SmemType>(g.getSrc().getType()))
          return "--txl-smem-allocs";
        if (isa<MbarType>(g.getSrc().getType()))
          return "--txl-mbars";
        return "--txl-tmem-allocs";
      })
      .Case<TmemAllocOp>([](auto) { return "--txl-tmem-allocs"; })
      .Case<MbarAllocOp, MbarExpectOp, MbarWaitOp, MbarArriveOp>([](auto) { return "--txl-mbars"; })
      .Case<TmaLoadOp, TmaStoreOp, TmaStoreWaitOp, TmaGatherOp, FenceProxyAsyncOp, AsyncLoadOp,
            AsyncLoadWaitOp>([](auto) { return "--txl-lower-loads"; })
      .Case<SmemLoadOp, SmemStoreOp, FragSmemLoadOp, FragSmemStoreOp, SlotStoreOp, SlotLoadOp>(
          [](auto) { return "--txl-lower-smem-load-stores"; })
      .Case<TmemLoadOp, TmemStoreOp>([](auto) { return "the tensor-memory load/store stage"; })
      .Case<SmemIndexOp, SmemSubsliceOp, SmemTransOp, SmemReshapeOp>(
          [](auto) { return "--txl-mem-desc"; })
      .Case<DotOp, DotWaitOp>([](auto) { return "--txl-wgmma"; })
      .Case<DotXOp>([](auto) { return "--txl-lower-dotx-ops"; })
      .Default([](Operation *) { return std::string(); });
}

/// Ops this pass lowers that carry no tiles.
bool isLoweredScalarTxlOp(Operation *op) {
  return isa<TidOp, WarpIdOp, WarpgroupIdOp, LaneIdOp, CtaRankOp, ProgramIdOp, NumProgramsOp,
             IsWarpgroupOp, IsWarpOp, BarWaitOp, BarArriveOp, ClusterBarrierOp, RegAllocOp,
             RegDeallocOp, ReduceReturnOp>(op) ||
         (isa<ExternElementwiseOp, IntToPtrOp, PtrToIntOp>(op) &&
          !isa<RankedTensorType>(op->getResult(0).getType()));
}

/// Ops that only pass tiles along (their operands/results convert with the
/// types): function plumbing, branches, poison and the stages' casts.
bool isTilePlumbing(Operation *op) {
  return isa<func::FuncOp, func::ReturnOp, func::CallOp, cf::BranchOp, cf::CondBranchOp,
             cf::SwitchOp, ub::PoisonOp, UnrealizedConversionCastOp>(op);
}

/// NVPTX has no libcalls: a math op on a type it has no instruction for fails
/// in LLVM's instruction selection ("Cannot select", "no libcall available")
/// with nothing that points at the op. The types that work (measured with
/// LLVM 22): exp/log/log2 in f32; exp2 in f32/f16/bf16; sin/cos/tanh in
/// f32/f16/bf16 and only approximate (fastmath<afn>: sin.approx.f32, ...);
/// sqrt, rsqrt, floor, ceil, abs, fma in every float type. The DSL checks the
/// same table (python/txl/language/semantic/arith.py, math_unary).
LogicalResult checkMathTypes(Operation *op) {
  if (op->getNumResults() != 1)
    return success();
  Type elt = getElementTypeOrSelf(op->getResult(0).getType());
  bool f32 = elt.isF32(), half = elt.isF16() || elt.isBF16();
  auto fastmath = op->getAttrOfType<arith::FastMathFlagsAttr>("fastmath");
  bool afn = fastmath && arith::bitEnumContainsAll(fastmath.getValue(), arith::FastMathFlags::afn);
  auto refuse = [&](StringRef which) {
    return op->emitError() << "'" << op->getName() << "' on " << elt
                           << " has no GPU lowering: it exists " << which;
  };
  if (isa<math::ExpOp, math::LogOp, math::Log2Op>(op) && !f32)
    return refuse("in f32 only; convert the operand to f32 first");
  if (isa<math::Exp2Op>(op) && !f32 && !half)
    return refuse("in f32, f16 and bf16; convert the operand to f32 first");
  if (isa<math::SinOp, math::CosOp, math::TanhOp>(op) && (!afn || (!f32 && !half)))
    return refuse("as the approximate instruction only: f32, f16 or bf16 with fastmath<afn>");
  if (isa<math::ErfOp, math::ErfcOp, math::TanOp, math::AtanOp, math::Atan2Op, math::AsinOp,
          math::AcosOp, math::SinhOp, math::CoshOp, math::PowFOp, math::ExpM1Op, math::Log1pOp,
          math::Log10Op, math::CbrtOp>(op))
    return refuse("in no type yet (NVPTX has no libcalls); compute it from exp2/log2 or a "
                  "polynomial");
  return success();
}

LogicalResult checkOp(Operation *op, const TypeConverter &converter) {
  // Every tile this op defines (results, block arguments) needs a layout.
  auto checkTile = [&](Value v, const Twine &what) -> LogicalResult {
    auto tile = dyn_cast<RankedTensorType>(v.getType());
    std::string why;
    if (!tile || getTileStructType(tile, converter, &why))
      return success();
    if (why.empty())
      why = "its element type has no LLVM form";
    return op->emitError() << "'" << op->getName() << "' " << what
                           << " a register tile without a usable layout (" << tile << "): " << why;
  };
  bool ok = true;
  for (Value r : op->getResults())
    ok &= succeeded(checkTile(r, "produces"));
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument arg : block.getArguments())
        ok &= succeeded(checkTile(arg, "has a block argument that is"));
  if (!ok)
    return failure();

  Dialect *dialect = op->getDialect();
  StringRef ns = op->getName().getDialectNamespace();
  if (isa_and_present<TXLDialect>(dialect)) {
    if (isLowerableTileOp(op))
      return checkTileOp(op);
    if (isLoweredScalarTxlOp(op))
      return success();
    std::string stage = requiredStage(op);
    if (!stage.empty())
      return op->emitError() << "'" << op->getName() << "' must be lowered by " << stage
                             << " before convert-txl-to-nvvm";
    return op->emitError() << "'" << op->getName()
                           << "' is not supported by convert-txl-to-nvvm yet";
  }
  // A gpu.module only holds kernels; its body is converted like the module's.
  if (op->getName().getStringRef() == "gpu.module")
    return success();
  if (ns == "scf")
    return op->emitError() << "'" << op->getName()
                           << "' must be lowered by convert-scf-to-cf before convert-txl-to-nvvm";
  if (!isa_and_present<LLVM::LLVMDialect, NVVM::NVVMDialect, arith::ArithDialect, math::MathDialect,
                       cf::ControlFlowDialect, func::FuncDialect, index::IndexDialect,
                       ub::UBDialect, BuiltinDialect>(dialect))
    return op->emitError() << "'" << op->getName()
                           << "' is not supported by convert-txl-to-nvvm (it lowers txl, arith, "
                              "math, cf, func, index and ub ops; LLVM and NVVM ops pass through)";
  // A float type whose registers are not floats (fp8: raw i8 bytes) has no
  // arith/math lowering: the LLVM op would be ill-typed (llvm.fpext on i8).
  // Moving the bytes (constants, bitcasts, selects) is fine, and so are the
  // tile conversions the tile patterns lower with PTX's cvt.
  if (isa_and_present<arith::ArithDialect, math::MathDialect>(dialect) &&
      !isa<arith::ConstantOp, arith::BitcastOp, arith::SelectOp>(op) && !isFp8TileConversion(op))
    for (Type t : llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes())) {
      Type elt = getElementTypeOrSelf(t);
      if (isa<FloatType>(elt) && !isa_and_present<FloatType>(converter.convertType(elt)))
        return op->emitError() << "'" << op->getName() << "' on " << elt
                               << " values is not supported: fp8 registers are raw bytes (they "
                                  "can be loaded, stored, selected and used by txl.dot, not "
                                  "converted or computed with); convert the data on the host";
    }
  if (isa_and_present<math::MathDialect>(dialect) && failed(checkMathTypes(op)))
    return failure();
  if (isLowerableTileOp(op))
    return checkTileOp(op);
  // A memref argument would expand to several LLVM parameters and shift the
  // descriptor arguments whose attributes FuncLowering sets by position.
  if (auto func = dyn_cast<func::FuncOp>(op))
    if (llvm::any_of(func.getArgumentTypes(), llvm::IsaPred<BaseMemRefType>))
      return op->emitError() << "'func.func' @" << func.getSymName()
                             << " takes a memref; kernels and helpers take !txl.ptr, "
                                "!txl.tensordesc, scalars and register tiles";
  auto isTile = [](Type t) { return isa<RankedTensorType>(t); };
  if ((llvm::any_of(op->getOperandTypes(), isTile) || llvm::any_of(op->getResultTypes(), isTile)) &&
      !isTilePlumbing(op))
    return op->emitError() << "'" << op->getName()
                           << "' on register tiles is not supported by convert-txl-to-nvvm";
  return success();
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

/// func.func -> llvm.func through the upstream helper; kernels then get
/// their NVVM attributes and descriptor arguments their by-value form. One
/// pattern for kernels and helpers, with a higher benefit than upstream's.
struct FuncLowering : OpConversionPattern<func::FuncOp> {
  FuncLowering(const TXLTypeConverter &converter, MLIRContext *ctx, Pass::Statistic &numKernels)
      : OpConversionPattern(converter, ctx, /*benefit=*/2), numKernels(numKernels) {}

  LogicalResult matchAndRewrite(func::FuncOp funcOp, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    bool isKernel = funcOp->hasAttr(kKernelAttrName);
    int64_t numWarps = 4;
    if (auto n = funcOp->getAttrOfType<IntegerAttr>(kNumWarpsAttrName))
      numWarps = n.getValue().getSExtValue();
    SmallVector<unsigned> descArgs;
    for (auto [i, type] : llvm::enumerate(funcOp.getArgumentTypes()))
      if (isa<TensorDescType>(type))
        descArgs.push_back(i);
    bool setsMaxnreg = funcOp
                           ->walk([](Operation *op) {
                             return isa<RegAllocOp, RegDeallocOp>(op) ? WalkResult::interrupt()
                                                                      : WalkResult::advance();
                           })
                           .wasInterrupted();

    FailureOr<LLVM::LLVMFuncOp> llvmFunc =
        convertFuncOpToLLVMFuncOp(cast<FunctionOpInterface>(funcOp.getOperation()), rewriter,
                                  *getTypeConverter<TXLTypeConverter>());
    if (failed(llvmFunc))
      return rewriter.notifyMatchFailure(funcOp, "signature does not convert");
    if (isKernel) {
      MLIRContext *ctx = rewriter.getContext();
      LLVM::LLVMFuncOp f = *llvmFunc;
      // The launch configuration is now in nvvm.* form; txl.shared_bytes
      // stays for the launcher (dynamic shared memory size).
      f->removeAttr(kKernelAttrName);
      f->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), rewriter.getUnitAttr());
      f->setAttr(NVVM::NVVMDialect::getReqntidAttrName(),
                 rewriter.getDenseI32ArrayAttr({int32_t(32 * numWarps), 1, 1}));
      // A cluster launch: .reqnctapercluster in the PTX, "cluster" in the
      // sidecar (the launcher passes it to cuLaunchKernelEx).
      if (int64_t ctas = getClusterSize(funcOp); ctas > 1)
        f->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                   rewriter.getDenseI32ArrayAttr({int32_t(ctas), 1, 1}));
      // setmaxnreg needs a known entry register count (FACTS §4.5). Only
      // there: elsewhere `.minnctapersm 1` tells ptxas that one CTA per SM
      // will do, and ptxas then spends registers on latency (a bf16 SwiGLU
      // row of 512 threads: 80 registers with it, 32 without, Triton 32, so
      // one CTA of 16 warps per SM instead of four). Triton emits it only
      // with maxnreg; txlc adds it back where it makes ptxas spill less.
      if (setsMaxnreg)
        f->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(), rewriter.getI32IntegerAttr(1));
      // A CUtensorMap is passed by value: a 128-byte, 64-aligned
      // __grid_constant__ parameter (FACTS §2).
      auto cuTensorMap = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 64), 16);
      for (unsigned i : descArgs) {
        f.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(), TypeAttr::get(cuTensorMap));
        f.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(), rewriter.getI64IntegerAttr(64));
        f.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(), rewriter.getUnitAttr());
      }
      ++numKernels;
    }
    rewriter.eraseOp(funcOp);
    return success();
  }

  Pass::Statistic &numKernels;
};

//===----------------------------------------------------------------------===//
// Ids, roles, barriers, registers
//===----------------------------------------------------------------------===//

Value udivConst(OpBuilder &b, Location loc, Value v, int64_t d) {
  return LLVM::UDivOp::create(b, loc, v, i32Const(b, loc, d));
}

/// An op replaced by the value `build` computes.
template <typename OpTy> struct ValueLowering : OpConversionPattern<OpTy> {
  using Build = Value (*)(OpBuilder &, Location, OpTy);
  ValueLowering(const TypeConverter &converter, MLIRContext *ctx, Build build)
      : OpConversionPattern<OpTy>(converter, ctx), build(build) {}
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, build(rewriter, op.getLoc(), op));
    return success();
  }
  Build build;
};

Value buildTid(OpBuilder &b, Location loc, TidOp) { return getThreadId(b, loc); }
Value buildWarpId(OpBuilder &b, Location loc, WarpIdOp) {
  return udivConst(b, loc, getThreadId(b, loc), 32);
}
Value buildWarpgroupId(OpBuilder &b, Location loc, WarpgroupIdOp) {
  return udivConst(b, loc, getThreadId(b, loc), 128);
}
Value buildLaneId(OpBuilder &b, Location loc, LaneIdOp) {
  return NVVM::LaneIdOp::create(b, loc, b.getI32Type());
}
Value buildCtaRank(OpBuilder &b, Location loc, CtaRankOp) {
  return NVVM::ClusterId::create(b, loc, b.getI32Type());
}
/// With clusters (num_ctas x 1 x 1), a program is a cluster, as in Triton:
/// program_id(0) / num_programs(0) are %clusterid.x / %nclusterid.x.
Value buildProgramId(OpBuilder &b, Location loc, ProgramIdOp op) {
  Type i32 = b.getI32Type();
  switch (op.getAxis()) {
  case 0:
    if (getClusterSize(op) > 1)
      return NVVM::ClusterIdXOp::create(b, loc, i32);
    return NVVM::BlockIdXOp::create(b, loc, i32);
  case 1:
    return NVVM::BlockIdYOp::create(b, loc, i32);
  default:
    return NVVM::BlockIdZOp::create(b, loc, i32);
  }
}
Value buildNumPrograms(OpBuilder &b, Location loc, NumProgramsOp op) {
  Type i32 = b.getI32Type();
  switch (op.getAxis()) {
  case 0:
    if (getClusterSize(op) > 1)
      return NVVM::ClusterDimXOp::create(b, loc, i32);
    return NVVM::GridDimXOp::create(b, loc, i32);
  case 1:
    return NVVM::GridDimYOp::create(b, loc, i32);
  default:
    return NVVM::GridDimZOp::create(b, loc, i32);
  }
}
/// barrier.cluster.arrive (release) + barrier.cluster.wait (acquire): every
/// thread of the cluster, its earlier shared-memory writes visible after.
struct ClusterBarrierLowering : OpConversionPattern<ClusterBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ClusterBarrierOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    NVVM::ClusterArriveOp::create(rewriter, op.getLoc(), rewriter.getUnitAttr());
    NVVM::ClusterWaitOp::create(rewriter, op.getLoc(), rewriter.getUnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

/// `id` is one of `ids` (an OR of compares; the lists are short).
Value isOneOf(OpBuilder &b, Location loc, Value id, ArrayRef<int32_t> ids) {
  Value any;
  for (int32_t i : ids) {
    Value eq = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, id, i32Const(b, loc, i));
    any = any ? Value(LLVM::OrOp::create(b, loc, any, eq)) : eq;
  }
  return any ? any : LLVM::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(false));
}
Value buildIsWarpgroup(OpBuilder &b, Location loc, IsWarpgroupOp op) {
  return isOneOf(b, loc, udivConst(b, loc, getThreadId(b, loc), 128), op.getIds());
}
Value buildIsWarp(OpBuilder &b, Location loc, IsWarpOp op) {
  return isOneOf(b, loc, udivConst(b, loc, getThreadId(b, loc), 32), op.getIds());
}

/// bar_wait -> bar.sync id, n; bar_arrive -> bar.arrive id, n.
template <typename OpTy> struct NamedBarrierLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value id = i32Const(rewriter, loc, op.getBar());
    Value n = i32Const(rewriter, loc, op.getNumThreads());
    if constexpr (std::is_same_v<OpTy, BarWaitOp>)
      NVVM::BarrierOp::create(rewriter, loc, Type(), id, n, nullptr, Value());
    else
      NVVM::BarrierArriveOp::create(rewriter, loc, id, n);
    rewriter.eraseOp(op);
    return success();
  }
};

/// reg_alloc / reg_dealloc -> setmaxnreg.inc / .dec.
template <typename OpTy, NVVM::SetMaxRegisterAction Action>
struct SetMaxRegisterLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    NVVM::SetMaxRegisterOp::create(rewriter, op.getLoc(), op.getRegCount(), Action);
    rewriter.eraseOp(op);
    return success();
  }
};

/// A stage's cast between a txl value and its LLVM form (either way): once
/// both sides are converted the cast is the identity.
struct FoldStageCast : OpConversionPattern<UnrealizedConversionCastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(UnrealizedConversionCastOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (op.getNumOperands() != 1 || op.getNumResults() != 1)
      return failure();
    Value input = adaptor.getInputs().front();
    if (getTypeConverter()->convertType(op.getResult(0).getType()) != input.getType())
      return rewriter.notifyMatchFailure(op, "not an identity once converted");
    rewriter.replaceOp(op, input);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// libdevice calls
//===----------------------------------------------------------------------===//

/// A scalar txl.extern_elementwise (a tile one was split per register by the
/// tile patterns) becomes an llvm.call of the libdevice function, declared
/// once in the module; txlc's LLVM stage links libdevice.10.bc and inlines it.
struct ExternElementwiseLowering : OpConversionPattern<ExternElementwiseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ExternElementwiseOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (isa<RankedTensorType>(op.getType()))
      return failure(); // the tile patterns split it per register first
    auto module = op->getParentOfType<ModuleOp>();
    SmallVector<Type> argTypes(adaptor.getSrcs().getTypes());
    auto fnType = LLVM::LLVMFunctionType::get(op.getType(), argTypes);
    auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(op.getSymbol());
    if (!fn) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      fn = LLVM::LLVMFuncOp::create(rewriter, module.getLoc(), op.getSymbol(), fnType);
    } else if (fn.getFunctionType() != fnType) {
      return op.emitOpError() << "calls '" << op.getSymbol() << "' as " << fnType
                              << " but it is already declared as " << fn.getFunctionType()
                              << " (libdevice has one signature per function)";
    }
    rewriter.replaceOpWithNewOp<LLVM::CallOp>(op, fn, adaptor.getSrcs());
    return success();
  }
};

/// Scalar address casts (tiles were split per register by the tile patterns).
template <typename OpTy, typename LLVMOpTy> struct AddressCastLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (isa<RankedTensorType>(op.getType()))
      return failure();
    Type type = this->getTypeConverter()->convertType(op.getType());
    if (!type)
      return failure();
    rewriter.replaceOpWithNewOp<LLVMOpTy>(op, type, adaptor.getSrc());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Scalar math without libdevice
//===----------------------------------------------------------------------===//

/// f32 math.log2 / math.log / math.exp through the PTX approximations
/// (lg2.approx.f32, ex2.approx.f32), as Triton's fast paths do. Upstream
/// would emit llvm.log2/log/exp, for which NVPTX has no instruction and, as we
/// link no libdevice (FACTS §3a), no libcall either: llc aborts. Plain exp2
/// needs no help (llvm.exp2.f32 selects ex2.approx.f32); exp2 with the `afn`
/// fast-math flag becomes ex2.approx.ftz.f32, one MUFU.EX2 instead of the
/// four instructions ptxas emits to keep subnormal inputs and results (the
/// softmax of attention wants the fast one: FA3 uses it).
template <typename OpTy> struct ApproxMathLowering : OpConversionPattern<OpTy> {
  ApproxMathLowering(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern<OpTy>(converter, ctx, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type f32 = rewriter.getF32Type();
    if (op.getType() != f32)
      return failure(); // other widths: the upstream lowering
    Location loc = op.getLoc();
    auto constant = [&](double v) -> Value {
      return LLVM::ConstantOp::create(rewriter, loc, f32, rewriter.getF32FloatAttr(v));
    };
    auto lg2 = [&](Value x) -> Value {
      return LLVM::CallIntrinsicOp::create(rewriter, loc, f32,
                                           rewriter.getStringAttr("llvm.nvvm.lg2.approx.f"),
                                           ValueRange{x})
          .getResult(0);
    };
    Value x = adaptor.getOperand();
    Value result;
    if constexpr (std::is_same_v<OpTy, math::Exp2Op>) {
      if (!bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn))
        return failure(); // llvm.exp2: ex2.approx.f32, subnormals kept
      result = LLVM::CallIntrinsicOp::create(rewriter, loc, f32,
                                             rewriter.getStringAttr("llvm.nvvm.ex2.approx.ftz.f"),
                                             ValueRange{x})
                   .getResult(0);
    } else if constexpr (std::is_same_v<OpTy, math::Log2Op>)
      result = lg2(x);
    else if constexpr (std::is_same_v<OpTy, math::LogOp>)
      result = LLVM::FMulOp::create(rewriter, loc, lg2(x), constant(0.69314718055994530942));
    else // math::ExpOp
      result = LLVM::Exp2Op::create(
          rewriter, loc, f32,
          LLVM::FMulOp::create(rewriter, loc, x, constant(1.44269504088896340736)));
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// f32 division with the `afn` fast-math flag (Triton's `/` and tl.fdiv:
/// the frontend leaves the flag off only for tl.div_rn and
/// fdiv(ieee_rounding=True)) is div.full.f32, as Triton lowers it: at most
/// 2 ulp over the full range, a few instructions instead of the IEEE
/// division's Newton iterations and slow path (a softmax row divides 64
/// values per thread). Upstream would emit `fdiv afn`, which NVPTX selects
/// as div.approx.f32, wrong for divisors beyond 2^126: that one is asked for
/// with `arcp` too (libdevice.fast_dividef) and left to upstream.
struct ApproxDivLowering : OpConversionPattern<arith::DivFOp> {
  ApproxDivLowering(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern<arith::DivFOp>(converter, ctx, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(arith::DivFOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type f32 = rewriter.getF32Type();
    arith::FastMathFlags flags = op.getFastmath();
    if (op.getType() != f32 || !bitEnumContainsAll(flags, arith::FastMathFlags::afn) ||
        bitEnumContainsAny(flags, arith::FastMathFlags::arcp))
      return failure();
    rewriter.replaceOp(op,
                       LLVM::CallIntrinsicOp::create(rewriter, op.getLoc(), f32,
                                                     rewriter.getStringAttr("llvm.nvvm.div.full"),
                                                     ValueRange{adaptor.getLhs(), adaptor.getRhs()})
                           .getResult(0));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Element-major order
//===----------------------------------------------------------------------===//

/// Whether `op` may move within its block: a memory-effect-free LLVM op, a
/// math intrinsic the lowering calls by name (div.full, ex2, lg2), a
/// special-register read or an unrealized cast, without regions, used, and
/// only in its block. Memory accesses, inline asm, calls, shuffles, wgmma and
/// every other NVVM op, ops without results and terminators stay where they
/// are and keep their order.
bool isSinkable(Operation *op) {
  if (op->getNumRegions() || op->hasTrait<OpTrait::IsTerminator>() || op->use_empty())
    return false;
  // The math intrinsics the lowering calls by name (values only).
  if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op))
    return llvm::is_contained({StringRef("llvm.nvvm.div.full"),
                               StringRef("llvm.nvvm.ex2.approx.ftz.f"),
                               StringRef("llvm.nvvm.lg2.approx.f")},
                              call.getIntrin()) &&
           llvm::all_of(op->getUsers(),
                        [&](Operation *u) { return u->getBlock() == op->getBlock(); });
  // Of NVVM, only the special-register reads (tid, ctaid, ...): an async
  // op such as wgmma must keep its place between its fence and its wait.
  Dialect *dialect = op->getDialect();
  if (!dialect)
    return false;
  bool sreg = isa<NVVM::NVVMDialect>(dialect) &&
              op->getName().getStringRef().starts_with("nvvm.read.ptx.sreg.");
  if (!(sreg || isa<LLVM::LLVMDialect, BuiltinDialect>(dialect)) ||
      isa<LLVM::InlineAsmOp, LLVM::CallOp, LLVM::CallIntrinsicOp>(op) || !isMemoryEffectFree(op))
    return false;
  for (Operation *user : op->getUsers())
    if (user->getBlock() != op->getBlock())
      return false;
  return true;
}

/// The value inserted at `pos` into the struct `agg` when `agg` is a chain
/// of llvm.insertvalue ops that sets it, else null.
Value insertedAt(Value agg, ArrayRef<int64_t> pos) {
  while (auto ins = agg.getDefiningOp<LLVM::InsertValueOp>()) {
    if (ins.getPosition() == pos)
      return ins.getValue();
    agg = ins.getContainer();
  }
  return {};
}

/// Tiles travel between lowered ops as structs of registers: each op's
/// lowering inserts its N results into a struct and the next extracts them.
/// The struct ties every element to all others (the insertvalue chain is one
/// sequence), so nothing could move until these extracts read the inserted
/// values directly; the chains then die.
void forwardStructElements(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(block)) {
    auto ext = dyn_cast<LLVM::ExtractValueOp>(&op);
    if (!ext)
      continue;
    if (Value v = insertedAt(ext.getContainer(), ext.getPosition())) {
      ext.getResult().replaceAllUsesWith(v);
      ext->erase();
    }
  }
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if (op.use_empty() &&
        isa<LLVM::InsertValueOp, LLVM::ExtractValueOp, LLVM::PoisonOp, LLVM::UndefOp>(&op))
      op.erase();
}

/// A tile op is lowered for all of a thread's registers at once, so the
/// converted code is op-major: N conversions, then N multiplies, then N
/// exponentials... and every intermediate of all N elements is live at
/// once. Triton's PTX is element-major (LLVM's SLP vectorizer groups each
/// element pair's chain there), and ptxas does not undo the difference: a
/// bf16 SwiGLU row (32 elements a thread) took 87-89 registers against
/// Triton's 32, so one CTA of 16 warps per SM instead of four. Here every
/// movable op (isSinkable) is placed right before its first user, operands
/// first in operand order: each element's chain is computed where it is
/// consumed. The ops that stay (loads, stores, barriers, shuffles, asm) keep
/// their order, so no memory access moves and loads are still issued as
/// early as the source has them.
void sinkToFirstUse(Block &block) {
  forwardStructElements(block);
  SmallVector<Operation *> order;
  order.reserve(block.getOperations().size());
  llvm::DenseSet<Operation *> placed, movable;
  for (Operation &op : block)
    if (isSinkable(&op))
      movable.insert(&op);
  if (movable.empty())
    return;
  // Places `root` after its not-yet-placed movable operands (depth first,
  // without recursion: chains can be thousands of ops long).
  auto place = [&](Operation *root) {
    SmallVector<std::pair<Operation *, unsigned>> stack{{root, 0}};
    while (!stack.empty()) {
      auto &[op, next] = stack.back();
      if (next < op->getNumOperands()) {
        Operation *def = op->getOperand(next++).getDefiningOp();
        if (def && def->getBlock() == &block && movable.contains(def) && placed.insert(def).second)
          stack.push_back({def, 0});
        continue;
      }
      order.push_back(op);
      stack.pop_back();
    }
  };
  for (Operation &op : block)
    if (!movable.contains(&op))
      place(&op);
  // Every movable op has a user in the block, so each is placed once; were
  // one left out, the block keeps its order rather than lose an op.
  if (order.size() != block.getOperations().size())
    return;
  for (Operation *op : order)
    op->moveBefore(&block, block.end());
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ConvertTXLToNVVMPass : txl::impl::ConvertTXLToNVVMBase<ConvertTXLToNVVMPass> {
  using ConvertTXLToNVVMBase::ConvertTXLToNVVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    TXLTypeConverter converter(ctx);

    // Outer ops first; once an op is reported, what it contains is not
    // (an scf.for is one error, not one per op in its body).
    bool ok = true;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (succeeded(checkOp(op, converter)))
        return WalkResult::advance();
      ok = false;
      return WalkResult::skip();
    });
    if (!ok)
      return signalPassFailure();

    // Kernels whose scalars are uniform: no op of the author's gives threads
    // identities (what the compiler adds later reads %tid itself).
    llvm::StringSet<> uniformScalars;
    for (auto func : module.getOps<FunctionOpInterface>()) {
      bool identities =
          func->walk([](Operation *op) {
                return isa<TidOp, LaneIdOp, WarpIdOp, WarpgroupIdOp, IsWarpOp, IsWarpgroupOp>(op)
                           ? WalkResult::interrupt()
                           : WalkResult::advance();
              })
              .wasInterrupted();
      if (!identities)
        uniformScalars.insert(func.getName());
    }

    RewritePatternSet patterns(ctx);
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    index::populateIndexToLLVMConversionPatterns(converter, patterns);
    ub::populateUBToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    patterns.add<FuncLowering>(converter, ctx, numKernels);
    // Tile ops must not reach the upstream arith/math patterns, which would
    // apply one LLVM op to the whole register struct.
    populateTileToLLVMPatterns(converter, patterns, /*benefit=*/10, &uniformScalars);
    patterns.add<ValueLowering<TidOp>>(converter, ctx, buildTid);
    patterns.add<ValueLowering<WarpIdOp>>(converter, ctx, buildWarpId);
    patterns.add<ValueLowering<WarpgroupIdOp>>(converter, ctx, buildWarpgroupId);
    patterns.add<ValueLowering<LaneIdOp>>(converter, ctx, buildLaneId);
    patterns.add<ValueLowering<CtaRankOp>>(converter, ctx, buildCtaRank);
    patterns.add<ValueLowering<ProgramIdOp>>(converter, ctx, buildProgramId);
    patterns.add<ValueLowering<NumProgramsOp>>(converter, ctx, buildNumPrograms);
    patterns.add<ValueLowering<IsWarpgroupOp>>(converter, ctx, buildIsWarpgroup);
    patterns.add<ValueLowering<IsWarpOp>>(converter, ctx, buildIsWarp);
    patterns.add<ClusterBarrierLowering>(converter, ctx);
    patterns.add<NamedBarrierLowering<BarWaitOp>, NamedBarrierLowering<BarArriveOp>,
                 SetMaxRegisterLowering<RegAllocOp, NVVM::SetMaxRegisterAction::increase>,
                 SetMaxRegisterLowering<RegDeallocOp, NVVM::SetMaxRegisterAction::decrease>,
                 FoldStageCast>(converter, ctx);
    patterns.add<ExternElementwiseLowering, AddressCastLowering<IntToPtrOp, LLVM::IntToPtrOp>,
                 AddressCastLowering<PtrToIntOp, LLVM::PtrToIntOp>>(converter, ctx);
    patterns
        .add<ApproxMathLowering<math::Log2Op>, ApproxMathLowering<math::LogOp>,
             ApproxMathLowering<math::ExpOp>, ApproxMathLowering<math::Exp2Op>, ApproxDivLowering>(
            converter, ctx);

    ConversionTarget target(*ctx);
    target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect>();
    target.addLegalOp<ModuleOp>();
    target.addIllegalDialect<TXLDialect, arith::ArithDialect, math::MathDialect,
                             cf::ControlFlowDialect, func::FuncDialect, index::IndexDialect,
                             ub::UBDialect>();
    // The stages' casts go; casts between LLVM types stay for
    // reconcile-unrealized-casts.
    target.addDynamicallyLegalOp<UnrealizedConversionCastOp>(
        [&](UnrealizedConversionCastOp op) { return converter.isLegal(op); });
    if (failed(applyPartialConversion(module, target, std::move(patterns)))) {
      signalPassFailure();
      return;
    }
    // The role width was read by the lowering of barriers (getRoleWarps, from
    // txl.role_warps or, in a kernel of 1 or 2 warps, txl.num_warps); the
    // launch size is in nvvm.reqntid now.
    module.walk([&](LLVM::LLVMFuncOp f) {
      if (elementMajor)
        for (Block &block : f.getBody())
          sinkToFirstUse(block);
      f->removeAttr(kRoleWarpsAttrName);
      f->removeAttr(kNumWarpsAttrName);
      f->removeAttr(kNumCtasAttrName); // read by program_id; nvvm.cluster_dim now
    });
  }
};

} // namespace

void mlir::txl::registerTXLConversionPasses() {
  registerTXLToNVVMPasses();
  // The upstream passes the conversion pipeline runs around it.
  registerPass([] { return createSCFToControlFlowPass(); });
  registerPass([] { return createConvertNVVMToLLVMPass(); });
  registerPass([] { return createReconcileUnrealizedCastsPass(); });
}
