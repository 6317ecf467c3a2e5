//===- SmemAllocs.cpp - plan shared memory ----------------------------------===//
//
// 1. Encodings. A txl.smem_alloc without an encoding takes one from its users,
//    found through its views (get_buffer, smem_index, smem_subslice,
//    smem_trans, smem_reshape) and through structured control flow (a buffer
//    yielded by scf.if / scf.for / scf.while: the values it is joined with
//    must have one type, so every allocation that reaches one of them gets
//    one encoding): the swizzle of a TMA descriptor that reads or writes it
//    wins; otherwise, if a wgmma reads it, the widest NVMMA swizzle its rows
//    allow; otherwise none. A kernel-argument descriptor without an encoding
//    is given the buffer's, so the host encodes the same swizzle.
//    Conflicting requirements are an error. The frontend prints no swizzle
//    unless the user named one (Gluon's shared layouts).
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

#include "txl/Analysis/CopyPlanning.h"
#include "txl/Analysis/LoweringUtils.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/EquivalenceClasses.h"

#include <numeric>

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

/// Shared-memory values that structured control flow joins (an scf.if or
/// scf.for/scf.while result, the region arguments and the values yielded to
/// them, a loop's initial value): the verifiers require one type for all of
/// them, so they get one encoding.
class FlowClasses {
public:
  explicit FlowClasses(func::FuncOp func) {
    func.walk([&](Operation *op) {
      if (auto yield = dyn_cast<scf::YieldOp>(op)) {
        Operation *parent = yield->getParentOp();
        if (auto ifOp = dyn_cast<scf::IfOp>(parent)) {
          joinRange(yield.getOperands(), ifOp.getResults());
        } else if (auto forOp = dyn_cast<scf::ForOp>(parent)) {
          joinRange(yield.getOperands(), forOp.getRegionIterArgs());
          joinRange(yield.getOperands(), forOp.getResults());
          joinRange(forOp.getInitArgs(), forOp.getResults());
        } else if (auto whileOp = dyn_cast<scf::WhileOp>(parent)) {
          joinRange(yield.getOperands(), whileOp.getBeforeArguments());
          joinRange(whileOp.getInits(), whileOp.getBeforeArguments());
        }
      } else if (auto cond = dyn_cast<scf::ConditionOp>(op)) {
        auto whileOp = cast<scf::WhileOp>(cond->getParentOp());
        joinRange(cond.getArgs(), whileOp.getAfterArguments());
        joinRange(cond.getArgs(), whileOp.getResults());
      }
    });
  }

  /// The values joined with `v` (`v` itself included).
  SmallVector<Value> members(Value v) const {
    if (!classes.contains(v))
      return {v};
    return llvm::to_vector(classes.members(v));
  }

private:
  template <typename A, typename B> void joinRange(A a, B b) {
    for (auto [x, y] : llvm::zip(a, b))
      if (isa<SmemType>(x.getType()) && isa<SmemType>(y.getType()))
        classes.unionSets(Value(x), Value(y));
  }
  llvm::EquivalenceClasses<Value> classes;
};

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

/// The type of the view `user` makes of `v` once `v` has its type.
Type viewType(Value v, Operation *user) {
  auto src = cast<SmemType>(v.getType());
  auto old = cast<SmemType>(user->getResult(0).getType());
  Attribute enc = src.getEncoding();
  if (auto trans = dyn_cast<SmemTransOp>(user); trans && enc) {
    auto nv = cast<NVMMASharedAttr>(enc);
    enc = NVMMASharedAttr::get(v.getContext(), nv.getSwizzle(), !nv.getTransposed());
  }
  return SmemType::get(v.getContext(), old.getShape(), old.getElementType(), 0, enc);
}

/// After the types of `starts` changed: recomputes the types of the views
/// derived from them and gives the values control flow joins with any of
/// them the same type.
void propagateTypes(ArrayRef<Value> starts, const FlowClasses &flow) {
  SmallVector<Value> work(starts);
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Value m : flow.members(v)) {
      if (m.getType() != v.getType()) {
        m.setType(v.getType());
        work.push_back(m);
      }
    }
    for (Operation *user : v.getUsers()) {
      if (!isViewOp(user) || user->getOperand(0) != v)
        continue;
      Type t = viewType(v, user);
      if (user->getResult(0).getType() != t) {
        user->getResult(0).setType(t);
        work.push_back(user->getResult(0));
      }
    }
  }
}

/// Every value the buffer `root` reaches: its views and the values control
/// flow joins with any of them (`root` first).
SmallVector<Value> reachedValues(Value root, const FlowClasses &flow) {
  SmallVector<Value> out, work{root};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    out.push_back(v);
    for (Value m : flow.members(v))
      work.push_back(m);
    for (OpOperand &use : v.getUses())
      if (isViewOp(use.getOwner()))
        work.push_back(use.getOwner()->getResult(0));
  }
  return out;
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

/// Chooses one encoding for `allocs`, the allocations whose buffers reach
/// the values `reached` (views, and the values control flow joins them
/// with), and gives it to all of them.
LogicalResult chooseEncoding(ArrayRef<SmemAllocOp> allocs, ArrayRef<Value> reached,
                             const FlowClasses &flow) {
  SmemAllocOp first = allocs.front();
  MLIRContext *ctx = first.getContext();
  Attribute fromTma;
  Operation *tmaUser = nullptr;
  SmallVector<BlockArgument> unencodedDescs;
  bool readByMma = false;
  LogicalResult result = success();
  for (Value v : reached) {
    for (OpOperand &use : v.getUses()) {
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
      if (!desc || failed(result))
        continue;
      Attribute enc = cast<TensorDescType>(desc.getType()).getEncoding();
      if (!enc) {
        if (auto arg = dyn_cast<BlockArgument>(desc))
          unencodedDescs.push_back(arg);
        continue;
      }
      if (fromTma && fromTma != enc) {
        result = user->emitOpError()
                 << "uses descriptor encoding " << enc << " but " << *tmaUser << " uses " << fromTma
                 << " on the same buffer; give both descriptors one swizzle";
        continue;
      }
      fromTma = enc;
      tmaUser = user;
    }
  }
  if (failed(result))
    return failure();
  // A buffer with an encoding (one the user named) keeps it; descriptors
  // without one take it, so the host encodes the swizzle the kernel reads.
  // Buffers that control flow joins have one type (the scf verifiers), so
  // they name one encoding or none.
  Attribute own;
  for (SmemAllocOp alloc : allocs)
    if (!own)
      own = alloc.getType().getEncoding();
  if (own && fromTma && fromTma != own)
    return tmaUser->emitOpError() << "uses descriptor encoding " << fromTma
                                  << " on a buffer encoded " << own;
  SmemType type = first.getType();
  Attribute enc = own ? own : fromTma;
  if (!enc && readByMma)
    enc =
        NVMMASharedAttr::get(ctx, getWidestSwizzle(type.getShape(), type.getElementType()), false);
  if (!enc && !unencodedDescs.empty())
    enc = NVMMASharedAttr::get(ctx, 0, false);
  if (!enc)
    return success();
  SmallVector<Value> changed;
  for (SmemAllocOp alloc : allocs) {
    SmemType t = alloc.getType();
    if (t.getEncoding() == enc)
      continue;
    auto diag = [&] { return alloc.emitOpError(); };
    if (failed(SmemType::verify(diag, t.getShape(), t.getElementType(), t.getNumStages(), enc)))
      return failure();
    alloc.getResult().setType(
        SmemType::get(ctx, t.getShape(), t.getElementType(), t.getNumStages(), enc));
    changed.push_back(alloc.getResult());
  }
  propagateTypes(changed, flow);
  for (BlockArgument arg : unencodedDescs)
    setDescriptorEncoding(arg, enc);
  return success();
}

/// Gives every allocation of `func` its encoding: allocations whose buffers
/// control flow joins are chosen for together.
LogicalResult chooseEncodings(func::FuncOp func) {
  FlowClasses flow(func);
  SmallVector<SmemAllocOp> allocs;
  func.walk([&](SmemAllocOp alloc) { allocs.push_back(alloc); });
  // Group the allocations that reach a common value (first-come order, so the
  // diagnostics are deterministic).
  SmallVector<SmallVector<Value>> reached;
  SmallVector<unsigned> group(allocs.size());
  DenseMap<Value, unsigned> owner;
  std::iota(group.begin(), group.end(), 0u);
  auto find = [&](unsigned i) {
    while (group[i] != i)
      i = group[i] = group[group[i]];
    return i;
  };
  for (auto [i, alloc] : llvm::enumerate(allocs)) {
    reached.push_back(reachedValues(alloc.getResult(), flow));
    for (Value v : reached.back()) {
      auto [it, inserted] = owner.try_emplace(v, i);
      if (!inserted)
        group[find(i)] = find(it->second);
    }
  }
  for (unsigned i = 0; i < allocs.size(); ++i) {
    if (find(i) != i)
      continue;
    SmallVector<SmemAllocOp> members;
    SmallVector<Value> values;
    DenseSet<Value> seen;
    for (unsigned j = 0; j < allocs.size(); ++j) {
      if (find(j) != i)
        continue;
      members.push_back(allocs[j]);
      for (Value v : reached[j])
        if (seen.insert(v).second)
          values.push_back(v);
    }
    if (failed(chooseEncoding(members, values, flow)))
      return failure();
  }
  return success();
}

/// One thing that needs shared memory.
struct Slot {
  Operation *op;
  int64_t bytes;
  int64_t align;
  int64_t begin, end; // live range in top-level op indices
  int64_t offset = -1;
  int64_t firstAccess = -1; // the first top-level op that reads or writes it (not a view)
};

/// True if `op` syncs the threads that share its scratch before writing it
/// (relayoutThroughShared, the reductions' and gather's scratch, histogram's
/// zeroing all begin with a barrier): a buffer first used by one needs no
/// sync of its own when it takes the bytes of a dead one.
bool syncsBeforeWriting(Operation *op) {
  return isa<RelayoutOp, ReduceOp, GatherOp, HistogramOp>(op);
}

/// Two top-level buffers whose live ranges do not overlap may share bytes,
/// but live ranges are program order, and warps are not in step: a warp that
/// starts writing the later buffer (a pipeliner ring's first cp.async or TMA,
/// a plain smem_store) can overwrite bytes that a slower warp is still reading
/// as the earlier buffer (the last loads of a relayout's scratch). So the
/// first top-level user of a buffer that took bytes of an earlier, dead one
/// is preceded by a sync of the CTA, unless one already sits between the two
/// (the pipeliner's drain after its loop) or that user syncs first itself.
/// Found by fla's GLA backward under num_warps=2 (chunk_gla_bwd_kernel_dv:
/// row 0 of dv sometimes wrong, the ring of its gate vector placed on the
/// scratch of the relayout just before its loop).
void syncReusedBytes(Block &entry, ArrayRef<Slot> slots) {
  SmallVector<Operation *> ops = llvm::to_vector(llvm::make_pointer_range(entry));
  const int64_t whole = ops.size();
  auto isSync = [](Operation *op) {
    auto wait = dyn_cast<BarWaitOp>(op);
    return wait && wait.getBar() == 0;
  };
  DenseSet<Operation *> done;
  for (const Slot &s : slots) {
    // Buffers only: an mbarrier array is initialized by one thread behind its
    // own fence, a TMEM address slot is written by tcgen05.alloc at the start.
    if (!isa<SmemAllocOp>(s.op) || s.op->getBlock() != &entry || s.firstAccess < 0 ||
        s.firstAccess >= whole)
      continue;
    int64_t lastDead = -1;
    for (const Slot &p : slots) {
      bool bytesOverlap = s.offset < p.offset + p.bytes && p.offset < s.offset + s.bytes;
      if (&p != &s && bytesOverlap && p.end < s.begin)
        lastDead = std::max(lastDead, p.end);
    }
    if (lastDead < 0)
      continue;
    // Views (get_buffer, subslices) only compute addresses: the sync goes
    // before the first op that touches the bytes.
    Operation *first = ops[s.firstAccess];
    if (syncsBeforeWriting(first) ||
        llvm::any_of(ArrayRef(ops).slice(lastDead + 1, s.firstAccess - lastDead - 1), isSync) ||
        !done.insert(first).second)
      continue;
    OpBuilder b(first);
    emitGroupSync(b, first->getLoc(), first, getWarpgroupGroup(first));
  }
}

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
      int64_t first = whole, access = whole;
      forEachUse(op->getResult(0), [&](OpOperand &use) {
        Operation *user = use.getOwner();
        first = std::min(first, topLevelIndex(user));
        if (!isViewOp(user))
          access = std::min(access, topLevelIndex(user));
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
      slot.firstAccess = access;
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
  syncReusedBytes(entry, slots);
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
      int64_t total = 0, shared = 0;
      if (failed(chooseEncodings(func)) || failed(plan(func, total, shared)))
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
