//===- SmemAllocs.cpp - plan shared memory ----------------------------------===//
//
// 1. Encodings. A txl.smem_alloc without an encoding takes one from its users,
//    found through its views (get_buffer, smem_index, smem_subslice,
//    smem_trans, smem_reshape): the swizzle of a TMA descriptor that reads or
//    writes it wins; otherwise, if a wgmma reads it, the widest NVMMA swizzle
//    its rows allow; otherwise none. A kernel-argument descriptor without an
//    encoding is given the buffer's, so the host encodes the same swizzle.
//    Conflicting requirements are an error.
// 2. Planning. Every buffer (smem_alloc), mbarrier array (mbar_alloc) and
//    TMEM address slot (tmem_alloc) gets a byte offset in the kernel's one
//    shared array. Buffers at the kernel's top level have a live range (from
//    the first top-level op that uses them, or from the alloc in a
//    warp-specialized kernel, to the last); two buffers whose
//    ranges do not overlap may share bytes (async copies and MMAs keep a
//    buffer live to the end, except in a pipeliner ring: txl.ring, drained
//    after its loop by txl-schedule-loops). Buffers in nested regions are
//    live for the whole kernel: warp-specialized regions run concurrently, so
//    program order says nothing about them. Placement is first-fit by
//    decreasing size, aligned to 1024 bytes for swizzled tiles (the swizzle
//    pattern repeats every 1024 bytes and is computed from address bits).
// 3. Lowering. smem_alloc becomes the address of its offset in @txl_smem and
//    get_buffer of a shared buffer a stage offset from it.
//
//===----------------------------------------------------------------------===//

#include "txl/Dialect/TXL/Transforms/CopyPlanning.h"
#include "txl/Dialect/TXL/Transforms/LoweringUtils.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLSMEMALLOCS
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

/// Ops whose result is a view of their first operand.
bool isViewOp(Operation *op) {
  return isa<GetBufferOp, SmemIndexOp, SmemSubsliceOp, SmemTransOp, SmemReshapeOp>(op);
}

/// Calls `fn` on every (user, operand) of `root` and of the views derived from it.
void forEachUse(Value root, function_ref<void(OpOperand &)> fn) {
  SmallVector<Value> work{root};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      fn(use);
      if (isViewOp(use.getOwner()))
        work.push_back(use.getOwner()->getResult(0));
    }
  }
}

/// Recomputes the types of the views derived from `v` after its type changed.
void refreshViewTypes(Value v) {
  for (Operation *user : llvm::make_early_inc_range(v.getUsers())) {
    if (!isViewOp(user) || user->getOperand(0) != v)
      continue;
    auto src = cast<SmemType>(v.getType());
    auto old = cast<SmemType>(user->getResult(0).getType());
    Attribute enc = src.getEncoding();
    if (auto trans = dyn_cast<SmemTransOp>(user); trans && enc) {
      auto nv = cast<NVMMASharedAttr>(enc);
      enc = NVMMASharedAttr::get(v.getContext(), nv.getSwizzle(), !nv.getTransposed());
    }
    user->getResult(0).setType(
        SmemType::get(v.getContext(), old.getShape(), old.getElementType(), 0, enc));
    refreshViewTypes(user->getResult(0));
  }
}

/// Gives a kernel argument descriptor an encoding.
void setDescriptorEncoding(BlockArgument arg, Attribute enc) {
  auto desc = cast<TensorDescType>(arg.getType());
  arg.setType(
      TensorDescType::get(arg.getContext(), desc.getBlockShape(), desc.getElementType(), enc));
  if (auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp())) {
    SmallVector<Type> inputs(func.getBody().front().getArgumentTypes());
    func.setType(FunctionType::get(func.getContext(), inputs, func.getResultTypes()));
  }
}

LogicalResult chooseEncoding(SmemAllocOp alloc) {
  SmemType type = alloc.getType();
  MLIRContext *ctx = alloc.getContext();
  Attribute fromTma;
  Operation *tmaUser = nullptr;
  SmallVector<BlockArgument> unencodedDescs;
  bool readByMma = false;
  LogicalResult result = success();
  forEachUse(alloc.getResult(), [&](OpOperand &use) {
    Operation *user = use.getOwner();
    Value desc;
    if (auto l = dyn_cast<TmaLoadOp>(user))
      desc = l.getDesc();
    else if (auto s = dyn_cast<TmaStoreOp>(user))
      desc = s.getDesc();
    else if (auto g = dyn_cast<TmaGatherOp>(user))
      desc = g.getDesc();
    else if (isa<DotOp, DotXOp>(user))
      readByMma = true;
    if (!desc)
      return;
    Attribute enc = cast<TensorDescType>(desc.getType()).getEncoding();
    if (!enc) {
      if (auto arg = dyn_cast<BlockArgument>(desc))
        unencodedDescs.push_back(arg);
      return;
    }
    if (fromTma && fromTma != enc) {
      result = user->emitOpError()
               << "uses descriptor encoding " << enc << " but " << *tmaUser << " uses " << fromTma
               << " on the same buffer; give both descriptors one swizzle";
      return;
    }
    fromTma = enc;
    tmaUser = user;
  });
  if (failed(result))
    return failure();
  // A buffer with an encoding keeps it; descriptors without one take it, so
  // the host encodes the swizzle the kernel reads.
  if (Attribute own = type.getEncoding()) {
    if (fromTma && fromTma != own)
      return tmaUser->emitOpError()
             << "uses descriptor encoding " << fromTma << " on a buffer encoded " << own;
    for (BlockArgument arg : unencodedDescs)
      setDescriptorEncoding(arg, own);
    return success();
  }
  Attribute enc = fromTma;
  if (!enc && readByMma)
    enc =
        NVMMASharedAttr::get(ctx, getWidestSwizzle(type.getShape(), type.getElementType()), false);
  if (!enc && !unencodedDescs.empty())
    enc = NVMMASharedAttr::get(ctx, 0, false);
  if (!enc)
    return success();
  auto diag = [&] { return alloc.emitOpError(); };
  if (failed(
          SmemType::verify(diag, type.getShape(), type.getElementType(), type.getNumStages(), enc)))
    return failure();
  alloc.getResult().setType(
      SmemType::get(ctx, type.getShape(), type.getElementType(), type.getNumStages(), enc));
  refreshViewTypes(alloc.getResult());
  for (BlockArgument arg : unencodedDescs)
    setDescriptorEncoding(arg, enc);
  return success();
}

/// One thing that needs shared memory.
struct Slot {
  Operation *op;
  int64_t bytes;
  int64_t align;
  int64_t begin, end; // live range in top-level op indices
  int64_t offset = -1;
};

/// Plans the kernel's shared memory; sets txl.offset on each allocation.
LogicalResult plan(func::FuncOp func, int64_t &total, int64_t &numShared) {
  // Live ranges are measured in the indices of the kernel's top-level ops.
  Block &entry = func.getBody().front();
  DenseMap<Operation *, int64_t> index;
  for (auto [i, op] : llvm::enumerate(entry))
    index[&op] = i;
  const int64_t whole = entry.getOperations().size();
  auto topLevelIndex = [&](Operation *op) {
    Operation *top = entry.findAncestorOpInBlock(*op);
    return top ? index[top] : whole;
  };

  bool warpSpecialized = isWarpSpecialized(func);

  SmallVector<Slot> slots;
  func.walk([&](Operation *op) {
    Slot slot{op, 0, 16, 0, whole};
    if (auto a = dyn_cast<SmemAllocOp>(op)) {
      slot.bytes = a.getType().getTotalBytes();
      auto enc = dyn_cast_or_null<NVMMASharedAttr>(a.getType().getEncoding());
      if (enc && enc.getSwizzle() > 0)
        slot.align = 1024;
    } else if (auto m = dyn_cast<MbarAllocOp>(op)) {
      slot.bytes = 8 * m.getType().getStageCount();
      slot.align = 8;
    } else if (isa<TmemAllocOp>(op)) {
      slot.bytes = 4; // where tcgen05.alloc writes the TMEM address
    } else {
      return;
    }
    if (op->getBlock() == &entry) {
      slot.begin = slot.end = index[op];
      int64_t first = whole;
      forEachUse(op->getResult(0), [&](OpOperand &use) {
        Operation *user = use.getOwner();
        first = std::min(first, topLevelIndex(user));
        // The hardware may still read or write the buffer after an async
        // op's position (until a later wait): keep it live to the end;
        // except a loop pipeliner's ring, which is drained right after the
        // top-level op that holds its loop (txl-schedule-loops).
        bool async = isa<TmaLoadOp, TmaStoreOp, TmaGatherOp, AsyncLoadOp, DotXOp>(user) ||
                     (isa<DotOp>(user) && cast<DotOp>(user).getAsync());
        bool drained = op->hasAttr("txl.ring");
        slot.end = std::max(slot.end, async && !drained ? whole : topLevelIndex(user));
      });
      // A buffer holds nothing before its first use, so its bytes are free
      // until then (an epilogue's staging tile can reuse the main loop's
      // ring, which is what lets a 128x128 GEMM tile fit two CTAs per SM).
      // Not in a warp-specialized kernel: its roles run their regions
      // concurrently, so a later top-level op may run while another role is
      // still inside an earlier one.
      if (!warpSpecialized && first < whole)
        slot.begin = first;
    }
    slots.push_back(slot);
  });

  // First fit, largest first (stable, so the plan is deterministic).
  SmallVector<Slot *> order;
  for (Slot &s : slots)
    order.push_back(&s);
  llvm::stable_sort(order, [](Slot *a, Slot *b) { return a->bytes > b->bytes; });
  SmallVector<Slot *> placed;
  total = 0;
  for (Slot *s : order) {
    int64_t offset = 0;
    bool moved = true;
    while (moved) {
      moved = false;
      offset = llvm::alignTo(offset, s->align);
      for (Slot *p : placed) {
        bool liveTogether = s->begin <= p->end && p->begin <= s->end;
        bool bytesOverlap = offset < p->offset + p->bytes && p->offset < offset + s->bytes;
        if (liveTogether && bytesOverlap) {
          offset = p->offset + p->bytes;
          moved = true;
        }
      }
    }
    s->offset = offset;
    for (Slot *p : placed)
      if (offset < p->offset + p->bytes && p->offset < offset + s->bytes)
        ++numShared;
    placed.push_back(s);
    total = std::max(total, offset + s->bytes);
  }
  if (total > kMaxSharedBytes) {
    InFlightDiagnostic diag = func.emitError()
                              << "kernel needs " << total
                              << " bytes of shared memory, more than the " << kMaxSharedBytes
                              << " (227 KB) a block can have; use fewer stages or smaller tiles";
    for (Slot *s : order)
      diag.attachNote(s->op->getLoc()) << s->bytes << " bytes here";
    return failure();
  }
  Builder b(func.getContext());
  for (Slot &s : slots)
    s.op->setAttr(kOffsetAttrName, b.getI64IntegerAttr(s.offset));
  func->setAttr(kSharedBytesAttrName, b.getI64IntegerAttr(total));
  return success();
}

struct LowerSmemAlloc : OpConversionPattern<SmemAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SmemAllocOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto offset = op->getAttrOfType<IntegerAttr>(kOffsetAttrName);
    if (!offset)
      return rewriter.notifyMatchFailure(op, "not planned");
    rewriter.replaceOp(op, getSharedAddress(rewriter, op.getLoc(), op, offset.getInt()));
    return success();
  }
};

/// get_buffer of a shared buffer: base + index * bytes per stage.
struct LowerSmemGetBuffer : OpConversionPattern<GetBufferOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(GetBufferOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto src = dyn_cast<SmemType>(op.getSrc().getType());
    if (!src)
      return failure();
    Location loc = op.getLoc();
    rewriter.replaceOp(op, addScaledIndex(rewriter, loc, adaptor.getSrc(), adaptor.getIndex(),
                                          src.getStageBytes()));
    return success();
  }
};

struct SmemAllocsPass : txl::impl::TXLSmemAllocsBase<SmemAllocsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      bool failedEncoding = false;
      func.walk([&](SmemAllocOp alloc) {
        if (failed(chooseEncoding(alloc)))
          failedEncoding = true;
      });
      int64_t total = 0, shared = 0;
      if (failedEncoding || failed(plan(func, total, shared)))
        return signalPassFailure();
      numShared += shared;
    }
    module.walk([&](SmemAllocOp) { ++numBuffers; });

    TXLTypeConverter converter(&getContext());
    ConversionTarget target(getContext());
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addIllegalOp<SmemAllocOp>();
    target.addDynamicallyLegalOp<GetBufferOp>(
        [](GetBufferOp op) { return !isa<SmemType>(op.getSrc().getType()); });
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerSmemAlloc, LowerSmemGetBuffer>(converter, &getContext());
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
