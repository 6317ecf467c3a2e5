//===- GlobalScratch.cpp - slots of device-built TMA descriptors ----------===//
//
// TMA reads a tensor map from kernel parameters, constant or global memory;
// one built in the kernel (tl.make_tensor_descriptor) has to live in global
// memory. The frontend writes `txl.make_tensor_descriptor` without a slot;
// this pass gives the kernel one hidden parameter, a !txl.ptr<i8> marked
// `txl.global_scratch = bytes per CTA` (the sidecar describes it and the
// launcher allocates bytes per CTA x CTAs per launch), and each such op its
// 128-byte slot of it.
//
// The first thread of each warpgroup that runs the op writes the tensor map
// (it issues that warpgroup's TMA), so each op has one slot per warpgroup
// and per CTA: slot = ((site * warpgroups + warpgroup) * CTAs + CTA) * 128,
// with sites numbered in program order. The warpgroup is txl.warpgroup_id,
// or 0 in a kernel whose role spans its warpgroups (getRoleWarps > 4: one
// leader for the whole CTA, one slot used). CTAs and CTA come from
// num_programs / program_id (times the cluster size, plus cta_rank, in a
// cluster kernel, whose programs are clusters), so the per-CTA size
// (sites x warpgroups x 128) is the only thing the launcher needs. It runs first, before any stage
// moves or copies the op (the pipeliner's prologue, loop expansion), so each
// op the user wrote is one site.
//
//===----------------------------------------------------------------------===//

#include "txl/Dialect/TXL/Transforms/GlobalScratch.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "txl/Analysis/LoweringUtils.h"
#include "txl/Dialect/TXL/IR/TXLOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLGLOBALSCRATCH
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

/// The argument attribute the sidecar (lib/Target/PTX/Sidecar.cpp) reads.
constexpr StringLiteral kGlobalScratchAttrName = "txl.global_scratch";
/// Bytes of one tensor map (CUtensorMap), and the alignment TMA needs.
constexpr int64_t kSlotBytes = 128;

/// The ops that get a slot, in program order (their site numbers).
SmallVector<MakeTensorDescOp> getSites(Operation *func) {
  SmallVector<MakeTensorDescOp> sites;
  func->walk([&](MakeTensorDescOp op) {
    if (!op.getScratch())
      sites.push_back(op);
  });
  return sites;
}

/// Warpgroups of the CTA: each may build its own copy of a descriptor.
int64_t getWarpgroups(Operation *func) {
  int64_t warps = 4;
  if (auto n = func->getAttrOfType<IntegerAttr>(kNumWarpsAttrName))
    warps = n.getInt();
  return std::max<int64_t>(1, (warps + 3) / 4);
}

/// Sign-extends `v` (i32) to i64, as the slot arithmetic is done in i64.
Value i64Of(OpBuilder &b, Location loc, Value v) {
  return arith::ExtSIOp::create(b, loc, b.getI64Type(), v);
}

/// The kernel's constant `v` (i64), at the start of its body: where the
/// frontend keeps its constants, outside every loop.
Value entryConst(func::FuncOp func, int64_t v) {
  OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
  return arith::ConstantOp::create(b, func.getLoc(), b.getI64IntegerAttr(v));
}

struct GlobalScratchPass : txl::impl::TXLGlobalScratchBase<GlobalScratchPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (failed(runOnFunction(func)))
        return signalPassFailure();
  }

  LogicalResult runOnFunction(func::FuncOp func) {
    SmallVector<MakeTensorDescOp> sites = getSites(func);
    if (sites.empty())
      return success();
    if (func.isExternal() || !func->hasAttr(kKernelAttrName))
      return sites.front().emitOpError()
             << "needs a slot of its kernel's global scratch memory, which only a function "
                "marked '"
             << kKernelAttrName << "' gets (the launcher allocates it); build the descriptor in "
             << "the kernel, or pass it a 128-byte !txl.ptr<i8> slot";
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (func.getArgAttr(i, kGlobalScratchAttrName))
        return sites.front().emitOpError()
               << "has no slot, but kernel '" << func.getSymName() << "' already has a '"
               << kGlobalScratchAttrName << "' parameter (" << i
               << "): give every txl.make_tensor_descriptor of it a slot of that parameter, or "
                  "none (txl-global-scratch then adds the parameter)";

    int64_t warpgroups = getWarpgroups(func);
    int64_t bytes = getGlobalScratchBytes(func);

    MLIRContext *ctx = &getContext();
    Type slotType = PtrType::get(ctx, IntegerType::get(ctx, 8), 1);
    unsigned index = func.getNumArguments();
    NamedAttribute attr(StringAttr::get(ctx, kGlobalScratchAttrName),
                        IntegerAttr::get(IntegerType::get(ctx, 64), bytes));
    if (failed(func.insertArgument(index, slotType, DictionaryAttr::get(ctx, attr), func.getLoc())))
      return func.emitOpError() << "cannot take the global scratch parameter";
    Value scratch = func.getArgument(index);

    Value slotBytes = entryConst(func, kSlotBytes);
    for (auto [site, op] : llvm::enumerate(sites)) {
      Value first = entryConst(func, static_cast<int64_t>(site) * warpgroups);
      OpBuilder b(op);
      Location loc = op.getLoc();
      Type i32 = b.getI32Type();
      auto grid = [&](bool id, uint32_t axis) {
        Value v = id ? ProgramIdOp::create(b, loc, i32, axis).getResult()
                     : NumProgramsOp::create(b, loc, i32, axis).getResult();
        return i64Of(b, loc, v);
      };
      // CTAs = nx * ny * nz; CTA = x + nx * (y + ny * z); both in the
      // frontend's former order, so the PTX of its kernels did not change.
      Value nx = grid(false, 0), ny = grid(false, 1);
      Value ctas = arith::MulIOp::create(b, loc, nx, ny);
      ctas = arith::MulIOp::create(b, loc, ctas, grid(false, 2));
      Value x = grid(true, 0), nx2 = grid(false, 0), y = grid(true, 1), ny2 = grid(false, 1);
      Value z = grid(true, 2);
      Value cta = arith::AddIOp::create(b, loc, y, arith::MulIOp::create(b, loc, ny2, z));
      cta = arith::AddIOp::create(b, loc, x, arith::MulIOp::create(b, loc, nx2, cta));
      // In a cluster kernel a program is a cluster (program_id and
      // num_programs count clusters), so each CTA of it takes its own slot:
      // CTA * cluster size + cta_rank, of CTAs * cluster size (the launcher
      // allocates the bytes per CTA of the hardware grid). Sharing one slot,
      // the CTAs of a cluster would rewrite each other's tensor map while
      // their TMA reads it.
      if (int64_t clusterSize = getClusterSize(op); clusterSize > 1) {
        Value n = entryConst(func, clusterSize);
        ctas = arith::MulIOp::create(b, loc, ctas, n);
        Value rank = i64Of(b, loc, CtaRankOp::create(b, loc, i32).getResult());
        cta = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, cta, n), rank);
      }
      // The role's leader builds the descriptor: one per warpgroup, or the
      // first warpgroup's alone when the role is the whole CTA.
      Value wg = getRoleWarps(op) > 4
                     ? arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)).getResult()
                     : WarpgroupIdOp::create(b, loc, i32).getResult();
      Value slot = arith::AddIOp::create(b, loc, first, i64Of(b, loc, wg));
      slot = arith::MulIOp::create(b, loc, slot, ctas);
      slot = arith::AddIOp::create(b, loc, slot, cta);
      slot = arith::MulIOp::create(b, loc, slot, slotBytes);
      Value ptr = AddPtrOp::create(b, loc, slotType, scratch, slot);
      op.getScratchMutable().assign(ptr);
    }
    return success();
  }
};

} // namespace

int64_t mlir::txl::getGlobalScratchBytes(FunctionOpInterface func) {
  return static_cast<int64_t>(getSites(func).size()) * getWarpgroups(func) * kSlotBytes;
}
