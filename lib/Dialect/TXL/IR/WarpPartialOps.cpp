//===- WarpPartialOps.cpp - txl.warp_reduce, txl.slot_store/load ------------===//
//
// Verifiers of TXL's per-warp partial reductions and of the per-thread
// shared-memory slots through which a kernel exchanges them (TXL's
// warp_max / warp_sum and frag_smem_store / frag_smem_load under a layout of
// fewer threads than the CTA; docs/txl-tutorials.md, 04-softmax).
//
//===----------------------------------------------------------------------===//

#include "txl/Dialect/TXL/IR/TXLOps.h"

#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::txl;

/// ctaId: -1 (this CTA) or a rank of the kernel's cluster.
static LogicalResult verifySlotCta(Operation *op, int32_t cta) {
  if (cta < -1)
    return op->emitOpError() << "ctaId must be -1 (this CTA) or a CTA rank >= 0, got " << cta;
  auto fn = op->getParentOfType<FunctionOpInterface>();
  int64_t ctas = fn && fn->hasAttr(kKernelAttrName) ? getClusterSize(op) : -1;
  if (cta >= 0 && ctas >= 0 && cta >= ctas)
    return op->emitOpError() << "ctaId " << cta << " is not a CTA of this kernel's cluster of "
                             << ctas << " (txl.num_ctas); launch with num_ctas > " << cta;
  return success();
}

/// The lane and warp bases of a slot op: at most 5 of each (32 lanes, 32
/// warps), each 0 (threads holding the same element) or an element index of
/// the view, which has a power-of-two number of elements (so the XOR of
/// indices stays inside it). Its element type must be the value's.
static LogicalResult verifySlots(Operation *op, SmemType view, Type value, ArrayRef<int64_t> lanes,
                                 ArrayRef<int64_t> warps, StringRef what) {
  if (view.getElementType() != value)
    return op->emitOpError() << what << " " << value << " must be the view's element type "
                             << view.getElementType();
  int64_t n = 1;
  for (int64_t d : view.getShape())
    n *= d;
  if (!llvm::isPowerOf2_64(n))
    return op->emitOpError() << "needs a view with a power-of-two number of elements (the bases "
                                "are XOR-ed), got "
                             << n;
  for (auto [name, bases] : {std::pair<StringRef, ArrayRef<int64_t>>{"laneBases", lanes},
                             std::pair<StringRef, ArrayRef<int64_t>>{"warpBases", warps}}) {
    if (bases.size() > 5)
      return op->emitOpError() << name << " has at most 5 entries (32 " << name.drop_back(5)
                               << "s), got " << bases.size();
    for (int64_t b : bases)
      if (b < 0 || b >= n)
        return op->emitOpError() << name << " entries are element indices of the view (0.." << n - 1
                                 << "), got " << b;
  }
  return success();
}

LogicalResult SlotStoreOp::verify() {
  if (failed(verifySlotCta(*this, static_cast<int32_t>(getCtaId()))) ||
      failed(verifySlots(*this, getDst().getType(), getValue().getType(), getLaneBases(),
                         getWarpBases(), "value")))
    return failure();
  if (getMbar()) {
    unsigned bits = getElementBitWidth(getValue().getType());
    if (bits != 32 && bits != 64)
      return emitOpError() << "with an mbarrier is st.async, which stores 32- or 64-bit elements; "
                              "got "
                           << getValue().getType();
  }
  return success();
}

LogicalResult SlotLoadOp::verify() {
  if (failed(verifySlotCta(*this, static_cast<int32_t>(getCtaId()))) ||
      failed(verifySlots(*this, getSrc().getType(), getType(), getLaneBases(), getWarpBases(),
                         "result")))
    return failure();
  if (!getOther() && getPred())
    return emitOpError() << "with 'pred' needs 'other' (the value where 'pred' is false)";
  return success();
}

LogicalResult WarpReduceOp::verifyRegions() {
  if (getSrcs().empty())
    return emitOpError() << "needs at least one operand";
  if (getNumResults() != getSrcs().size())
    return emitOpError() << "needs one result per operand";
  Type first = getSrcs()[0].getType();
  auto shapeOf = [](Type t) -> ArrayRef<int64_t> {
    if (auto r = dyn_cast<RankedTensorType>(t))
      return r.getShape();
    return {};
  };
  Block &body = getCombineOp().front();
  size_t n = getSrcs().size();
  if (body.getNumArguments() != 2 * n)
    return emitOpError() << "combiner takes " << 2 * n << " arguments (two per operand), got "
                         << body.getNumArguments();
  for (auto [i, src] : llvm::enumerate(getSrcs())) {
    Type t = src.getType();
    auto tile = dyn_cast<RankedTensorType>(t);
    if (tile ? tile.getRank() != 1 : !t.isIntOrFloat())
      return emitOpError() << "operand " << i << " must be a rank-1 tile (the elements the warp "
                           << "holds are combined) or an integer or float scalar (the warp's lanes "
                           << "are combined), got " << t;
    if (isa<RankedTensorType>(t) != isa<RankedTensorType>(first) || shapeOf(t) != shapeOf(first))
      return emitOpError() << "operands must have the same shape";
    Type elt = getElementTypeOrSelf(t);
    if (getResult(i).getType() != elt)
      return emitOpError() << "result " << i << " must be " << elt << " (one value per warp), got "
                           << getResult(i).getType();
    if (body.getArgument(i).getType() != elt || body.getArgument(i + n).getType() != elt)
      return emitOpError() << "combiner arguments for operand " << i << " must be " << elt;
  }
  auto ret = dyn_cast<ReduceReturnOp>(body.getTerminator());
  if (!ret || ret.getResults().size() != n)
    return emitOpError() << "combiner must end in txl.reduce_return of " << n << " values";
  for (auto [i, v] : llvm::enumerate(ret.getResults()))
    if (v.getType() != body.getArgument(i).getType())
      return emitOpError() << "combiner returns " << v.getType() << " for operand " << i
                           << ", expected " << body.getArgument(i).getType();
  return success();
}
