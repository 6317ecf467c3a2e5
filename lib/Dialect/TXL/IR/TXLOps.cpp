//===- TXLOps.cpp - txl operation verifiers and type inference ------------===//
//
// The verifiers check everything a kernel author can get wrong statically:
// stage indices, shapes and element types of views and tiles, wgmma and
// tcgen05 shapes, TMA boxes, mbarrier byte counts, named-barrier ids and
// register budgets. Messages say what was found, what was expected and, where
// it helps, how to fix it.
//
//===----------------------------------------------------------------------===//

#include "txl/Dialect/TXL/IR/TXLOps.h"
#include "txl/Dialect/TXL/IR/LinearLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::txl;

#define GET_OP_CLASSES
#include "txl/Dialect/TXL/IR/TXLOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

LogicalResult mlir::txl::trait::verifyRequiresSM100(Operation *op) {
  StringRef arch = getTargetArch(op);
  if (arch == "sm_100a")
    return success();
  return op->emitOpError() << "needs an sm_100a (Blackwell) target: tensor memory and tcgen05 "
                              "do not exist on "
                           << arch << "; set txl.target = \"sm_100a\" on the module";
}

static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(shape, os);
  os << "]";
  return s;
}

/// A constant i32 stage index must lie in [0, count).
static LogicalResult verifyConstantIndex(Operation *op, Value index, int64_t count,
                                         StringRef what) {
  APInt value;
  if (!matchPattern(index, m_ConstantInt(&value)))
    return success();
  int64_t i = value.getSExtValue();
  if (i < 0 || i >= count)
    return op->emitOpError() << what << " index " << i << " is out of range [0, " << count << ")";
  return success();
}

/// Tiles and views agree on shape and element type.
static LogicalResult verifySameTile(Operation *op, ShapedType tile, ShapedType buffer,
                                    StringRef tileName, StringRef bufferName) {
  if (tile.getElementType() != buffer.getElementType())
    return op->emitOpError() << tileName << " element type " << tile.getElementType()
                             << " does not match the " << bufferName << " element type "
                             << buffer.getElementType();
  if (tile.getShape() != buffer.getShape())
    return op->emitOpError() << tileName << " shape " << shapeStr(tile.getShape())
                             << " does not match the " << bufferName << " shape "
                             << shapeStr(buffer.getShape());
  return success();
}

static int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

// I32Attr getters return uint32_t: the verifiers cast them back to int32_t so
// that a negative attribute is reported as such rather than as 2^32 - n.

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

LogicalResult SmemAllocOp::verify() {
  SmemType type = getType();
  // A view may be narrower than its swizzle span (a K step inside an atom);
  // the storage itself is whole atoms.
  if (auto enc = dyn_cast_or_null<NVMMASharedAttr>(type.getEncoding()); enc && enc.getSwizzle()) {
    int64_t rowBytes =
        getContiguousRowBytes(type.getShape(), type.getElementType(), enc.getTransposed());
    if (rowBytes % enc.getSwizzle() != 0)
      return emitOpError() << "a buffer with a " << enc.getSwizzle()
                           << "-byte swizzle needs rows of a multiple of " << enc.getSwizzle()
                           << " bytes, but "
                           << rowBytes * 8 / getElementBitWidth(type.getElementType()) << " x "
                           << type.getElementType() << " is " << rowBytes
                           << " bytes; use a smaller swizzle or a wider tile";
  }
  // Saturating (not getTotalBytes()): huge stage counts must not wrap around.
  int64_t bytes = std::min<uint64_t>(
      llvm::SaturatingMultiply<uint64_t>(type.getStageBytes(), type.getStageCount()), INT64_MAX);
  if (bytes > kMaxSharedBytes)
    return emitOpError() << "allocates " << bytes
                         << " bytes, more than the 232448 bytes (227 KB) of shared memory a "
                            "block can have; use fewer stages or smaller tiles";
  return success();
}

LogicalResult GetBufferOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            ValueRange operands, DictionaryAttr, OpaqueProperties,
                                            RegionRange, SmallVectorImpl<Type> &inferred) {
  Type src = operands[0].getType();
  Type view = TypeSwitch<Type, Type>(src)
                  .Case<SmemType, TmemType, MbarType>([](auto t) -> Type { return t.getView(); })
                  .Default([](Type) { return Type(); });
  if (!view)
    return emitOptionalError(loc, "txl.get_buffer takes a !txl.smem, !txl.tmem or !txl.mbar, got ",
                             src);
  inferred.push_back(view);
  return success();
}

LogicalResult GetBufferOp::verify() {
  int64_t stages = TypeSwitch<Type, int64_t>(getSrc().getType())
                       .Case<SmemType, TmemType, MbarType>([](auto t) { return t.getNumStages(); })
                       .Default([](Type) { return 0; });
  if (stages == 0)
    return emitOpError() << "source is already a single buffer (" << getSrc().getType()
                         << "); get_buffer selects a stage of an allocation with stages";
  return verifyConstantIndex(*this, getIndex(), stages, "stage");
}

/// getClusterSize of the kernel that holds `op`; -1 outside a kernel (a
/// fragment under test: not checked).
static int64_t getKernelNumCtas(Operation *op) {
  auto fn = op->getParentOfType<FunctionOpInterface>();
  return fn && fn->hasAttr(kKernelAttrName) ? getClusterSize(op) : -1;
}

/// ctaId of smem_load / smem_store: -1 (this CTA) or a rank of the kernel's
/// cluster.
static LogicalResult verifyCtaId(Operation *op, int32_t cta) {
  if (cta < -1)
    return op->emitOpError() << "ctaId must be -1 (this CTA) or a CTA rank >= 0, got " << cta;
  int64_t ctas = getKernelNumCtas(op);
  if (cta >= 0 && ctas >= 0 && cta >= ctas)
    return op->emitOpError() << "ctaId " << cta << " is not a CTA of this kernel's cluster of "
                             << ctas << " (txl.num_ctas); launch with num_ctas > " << cta;
  return success();
}

LogicalResult SmemLoadOp::verify() {
  if (failed(verifyCtaId(*this, static_cast<int32_t>(getCtaId()))))
    return failure();
  return verifySameTile(*this, getType(), getSrc().getType(), "result", "shared-memory");
}

LogicalResult SmemStoreOp::verify() {
  if (failed(verifyCtaId(*this, static_cast<int32_t>(getCtaId()))))
    return failure();
  return verifySameTile(*this, getValue().getType(), getDst().getType(), "value", "shared-memory");
}

LogicalResult ClusterBarrierOp::verify() {
  int64_t ctas = getKernelNumCtas(*this);
  if (ctas == 1)
    return emitOpError() << "in a kernel launched without clusters (txl.num_ctas absent or 1): "
                            "launch with num_ctas=2..8, or use a CTA barrier";
  return success();
}

/// frag_smem_load/store: the register tile has the view's shape, or is a 2-D
/// tile whose rows (or columns) broadcast a 1-D view.
static LogicalResult verifyFragment(Operation *op, RankedTensorType tile, SmemType view) {
  if (tile.getElementType() != view.getElementType())
    return op->emitOpError() << "tile element type " << tile.getElementType()
                             << " does not match the shared-memory element type "
                             << view.getElementType();
  if (tile.getShape() == view.getShape())
    return success();
  if (view.getRank() == 1 && tile.getRank() == 2 &&
      (tile.getDimSize(0) == view.getDimSize(0) || tile.getDimSize(1) == view.getDimSize(0)))
    return success();
  return op->emitOpError() << "tile shape " << shapeStr(tile.getShape())
                           << " must equal the shared-memory shape " << shapeStr(view.getShape())
                           << ", or be 2-D with one dimension equal to a 1-D view";
}

LogicalResult FragSmemLoadOp::verify() {
  if (failed(verifyCtaId(*this, static_cast<int32_t>(getCtaId()))))
    return failure();
  if (getOther() && getOther().getType() != getType())
    return emitOpError() << "'other' must have the result type " << getType() << ", got "
                         << getOther().getType();
  return verifyFragment(*this, getType(), getSrc().getType());
}

LogicalResult FragSmemStoreOp::verify() {
  if (failed(verifyCtaId(*this, static_cast<int32_t>(getCtaId()))))
    return failure();
  if (failed(verifyFragment(*this, getValue().getType(), getDst().getType())))
    return failure();
  int32_t sliced = static_cast<int32_t>(getSlicedDim());
  if (sliced == -1)
    return success();
  RankedTensorType tile = getValue().getType();
  SmemType view = getDst().getType();
  if (tile.getRank() != 2 || view.getRank() != 1 || (sliced != 0 && sliced != 1) ||
      tile.getDimSize(1 - sliced) != view.getDimSize(0))
    return emitOpError() << "slicedDim = " << sliced << " drops a dimension of a 2-D value stored "
                         << "into a 1-D view, keeping one of the view's size; got value "
                         << shapeStr(tile.getShape()) << " and view " << shapeStr(view.getShape());
  return success();
}

LogicalResult SmemIndexOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                            ValueRange operands, DictionaryAttr, OpaqueProperties,
                                            RegionRange, SmallVectorImpl<Type> &inferred) {
  auto src = dyn_cast<SmemType>(operands[0].getType());
  if (!src || src.getRank() < 2)
    return emitOptionalError(loc, "txl.smem_index needs a shared-memory view of rank >= 2");
  inferred.push_back(
      SmemType::get(ctx, src.getShape().drop_front(), src.getElementType(), 0, src.getEncoding()));
  return success();
}

LogicalResult SmemIndexOp::verify() {
  return verifyConstantIndex(*this, getIndex(), getSrc().getType().getDimSize(0), "row");
}

LogicalResult SmemSubsliceOp::verify() {
  SmemType src = getSrc().getType(), dst = getType();
  ArrayRef<int64_t> offsets = getOffsets();
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "result element type must be " << src.getElementType();
  if (offsets.size() != (size_t)src.getRank() || dst.getRank() != src.getRank())
    return emitOpError() << "needs one offset per dimension and a result of rank " << src.getRank();
  for (int64_t i = 0; i < src.getRank(); ++i)
    // Written so that a huge offset cannot overflow past the check.
    if (offsets[i] < 0 || offsets[i] > src.getDimSize(i) - dst.getDimSize(i))
      return emitOpError() << "slice " << shapeStr(dst.getShape()) << " at " << shapeStr(offsets)
                           << " is out of bounds of " << shapeStr(src.getShape())
                           << " in dimension " << i;
  return success();
}

LogicalResult SmemTransOp::verify() {
  SmemType src = getSrc().getType(), dst = getType();
  ArrayRef<int32_t> order = getOrder();
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "result element type must be " << src.getElementType();
  if (order.size() != (size_t)src.getRank())
    return emitOpError() << "order must list all " << src.getRank() << " dimensions";
  SmallVector<bool> seen(order.size(), false);
  SmallVector<int64_t> expected;
  for (int32_t o : order) {
    if (o < 0 || o >= (int32_t)order.size() || seen[o])
      return emitOpError() << "order must be a permutation of 0.." << order.size() - 1;
    seen[o] = true;
    expected.push_back(src.getDimSize(o));
  }
  if (ArrayRef<int64_t>(expected) != dst.getShape())
    return emitOpError() << "result shape must be " << shapeStr(expected) << ", got "
                         << shapeStr(dst.getShape());
  return success();
}

LogicalResult SmemReshapeOp::verify() {
  SmemType src = getSrc().getType(), dst = getType();
  if (src.getElementType() != dst.getElementType() ||
      product(src.getShape()) != product(dst.getShape()))
    return emitOpError() << "must keep the element type and the element count ("
                         << product(src.getShape()) << " x " << src.getElementType() << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// Tensor memory
//===----------------------------------------------------------------------===//

LogicalResult TmemAllocOp::verify() {
  TmemType type = getType();
  int64_t columns = std::min<uint64_t>(
      llvm::SaturatingMultiply<uint64_t>(type.getStageColumns(), type.getStageCount()), INT64_MAX);
  if (columns > 512)
    return emitOpError() << "needs " << columns
                         << " TMEM columns, more than the 512 a block has; use fewer stages "
                            "or narrower tiles";
  return success();
}

LogicalResult TmemLoadOp::verify() {
  return verifySameTile(*this, getType(), getSrc().getType(), "result", "tensor-memory");
}

LogicalResult TmemStoreOp::verify() {
  return verifySameTile(*this, getValue().getType(), getDst().getType(), "value", "tensor-memory");
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

/// The hardware arrival count and tx-count are 20-bit.
static constexpr int64_t kMaxMbarCount = (1 << 20) - 1;

LogicalResult MbarAllocOp::verify() {
  int64_t count = static_cast<int32_t>(getArriveCount());
  if (count <= 0 || count > kMaxMbarCount)
    return emitOpError() << "arrive count must be in 1.." << kMaxMbarCount << ", got " << count;
  return success();
}

LogicalResult MbarExpectOp::verify() {
  int64_t bytes = static_cast<int32_t>(getBytes());
  if (bytes <= 0 || bytes > kMaxMbarCount)
    return emitOpError() << "expects " << bytes << " bytes; the count must be in 1.."
                         << kMaxMbarCount;
  // Cross-check with the TMA loads that complete on this barrier after it in
  // this block: a mismatch either hangs the consumer or lets it read a
  // half-filled buffer.
  // tma_load and tma_gather end in (dst, mbar). They are verified after this
  // op, so their operands are read without assuming their types or number.
  // The DSL takes a fresh get_buffer per use, so "the same barrier" is the
  // same value or the same stage (same source, same index) of one allocation.
  auto stageOf = [](Value v) -> std::pair<Value, std::optional<int64_t>> {
    auto get = v.getDefiningOp<GetBufferOp>();
    if (!get)
      return {v, std::nullopt};
    APInt index;
    if (matchPattern(get.getIndex(), m_ConstantInt(&index)))
      return {get.getSrc(), index.getSExtValue()};
    return {v, std::nullopt};
  };
  auto mbar = stageOf(getMbar());
  auto sameBarrier = [&](Value other) {
    if (other == getMbar())
      return true;
    auto stage = stageOf(other);
    return mbar.second && stage.second && stage == mbar;
  };
  // The loads of this phase follow the expect, up to the wait on the barrier
  // (or the next expect on it: a loop unrolled by the DSL reuses the stage).
  int64_t loaded = 0;
  for (Operation *user = (*this)->getNextNode(); user; user = user->getNextNode()) {
    if (auto wait = dyn_cast<MbarWaitOp>(user); wait && sameBarrier(wait.getMbar()))
      break;
    if (auto next = dyn_cast<MbarExpectOp>(user); next && sameBarrier(next.getMbar()))
      break;
    if (!isa<TmaLoadOp, TmaGatherOp>(user) || user->getNumOperands() < 2 ||
        !sameBarrier(user->getOperands().back()))
      continue;
    if (auto dst = dyn_cast<SmemType>(user->getOperand(user->getNumOperands() - 2).getType()))
      loaded += dst.getStageBytes();
  }
  if (loaded != 0 && loaded != bytes)
    return emitOpError() << "expects " << bytes
                         << " bytes, but the TMA loads signalling this barrier in the same block "
                            "deliver "
                         << loaded << " bytes";
  return success();
}

LogicalResult MbarArriveOp::verify() {
  int64_t tx = static_cast<int32_t>(getTxCount());
  if (tx < 0 || tx > kMaxMbarCount)
    return emitOpError() << "tx_count must be in 0.." << kMaxMbarCount << ", got " << tx;
  if (getTrackAsyncOp() && (tx != 0 || getRemoteCtaId()))
    return emitOpError() << "track_async_op arrives when this thread's cp.async copies finish; "
                            "it cannot also carry tx_count or a remote CTA";
  return success();
}

//===----------------------------------------------------------------------===//
// TMA and cp.async
//===----------------------------------------------------------------------===//

bool mlir::txl::isTmaColumnSlice(TensorDescType desc, SmemType buffer) {
  ArrayRef<int64_t> block = desc.getBlockShape(), shape = buffer.getShape();
  auto enc = dyn_cast_or_null<NVMMASharedAttr>(desc.getEncoding());
  if (block.size() != shape.size() || block.empty() || !enc || enc.getSwizzle() == 0 ||
      block.drop_back() != shape.drop_back())
    return false;
  int64_t span = enc.getSwizzle() * 8 / getElementBitWidth(desc.getElementType());
  return shape.back() < block.back() && shape.back() % span == 0;
}

static LogicalResult verifyTmaBox(Operation *op, TensorDescType desc, size_t numIndices,
                                  SmemType buffer) {
  if (numIndices != desc.getBlockShape().size())
    return op->emitOpError() << "needs " << desc.getBlockShape().size()
                             << " coordinates (one per descriptor dimension), got " << numIndices;
  if (desc.getElementType() != buffer.getElementType())
    return op->emitOpError() << "descriptor element type " << desc.getElementType()
                             << " does not match the buffer element type "
                             << buffer.getElementType();
  auto descEnc = dyn_cast_or_null<NVMMASharedAttr>(desc.getEncoding());
  auto bufEnc = dyn_cast_or_null<NVMMASharedAttr>(buffer.getEncoding());
  if (desc.getBlockShape() != buffer.getShape() && !isTmaColumnSlice(desc, buffer))
    return op->emitOpError() << "descriptor box " << shapeStr(desc.getBlockShape())
                             << " does not match the buffer shape " << shapeStr(buffer.getShape())
                             << " (a buffer may be narrower only in the last dimension, by whole "
                                "swizzle spans)";
  if (descEnc && bufEnc && descEnc.getSwizzle() != bufEnc.getSwizzle())
    return op->emitOpError() << "descriptor swizzle " << descEnc.getSwizzle()
                             << " bytes differs from the buffer's " << bufEnc.getSwizzle();
  return success();
}

LogicalResult TmaLoadOp::verify() {
  return verifyTmaBox(*this, getDesc().getType(), getIndices().size(), getDst().getType());
}

LogicalResult TmaStoreOp::verify() {
  if (failed(verifyTmaBox(*this, getDesc().getType(), getIndices().size(), getSrc().getType())))
    return failure();
  if (!getReduce())
    return success();
  // The element types cp.reduce.async.bulk.tensor takes for each reduction.
  Type elt = getSrc().getType().getElementType();
  bool isInt = elt.isInteger(32) || elt.isInteger(64);
  bool ok = *getReduce() == TmaReduceKind::add ? elt.isF32() || elt.isF16() || elt.isBF16() || isInt
                                               : elt.isF16() || elt.isBF16() || isInt;
  if (!ok)
    return emitOpError() << "a TMA reduce-" << stringifyTmaReduceKind(*getReduce())
                         << " store does not take " << elt
                         << " elements (add: f32, f16, bf16, i32, i64; min/max: f16, bf16, i32, "
                            "i64)";
  return success();
}

/// desc_load / desc_store: a tile of the descriptor's box and element type.
static LogicalResult verifyDescTile(Operation *op, TensorDescType desc, size_t numIndices,
                                    Type tile, StringRef what) {
  if (numIndices != desc.getBlockShape().size())
    return op->emitOpError() << "needs " << desc.getBlockShape().size()
                             << " coordinates (one per descriptor dimension), got " << numIndices;
  auto t = cast<RankedTensorType>(tile);
  if (t.getShape() != desc.getBlockShape() || t.getElementType() != desc.getElementType())
    return op->emitOpError() << what << " must be the descriptor's block, "
                             << shapeStr(desc.getBlockShape()) << " of " << desc.getElementType()
                             << ", got " << tile;
  return success();
}

LogicalResult DescLoadOp::verify() {
  return verifyDescTile(*this, getDesc().getType(), getIndices().size(), getType(), "the result");
}

LogicalResult DescStoreOp::verify() {
  return verifyDescTile(*this, getDesc().getType(), getIndices().size(), getValue().getType(),
                        "the stored value");
}

LogicalResult MakeTensorDescOp::verify() {
  TensorDescType desc = getType();
  auto base = cast<PtrType>(getBase().getType());
  if (base.getAddressSpace() != 1 || base.getPointeeType() != desc.getElementType())
    return emitOpError() << "base must be a global pointer to " << desc.getElementType()
                         << " (the descriptor's element type), got " << base;
  // Without a slot, txl-global-scratch gives it one.
  if (Value slot = getScratch()) {
    auto scratch = cast<PtrType>(slot.getType());
    if (scratch.getAddressSpace() != 1 || !scratch.getPointeeType().isInteger(8))
      return emitOpError() << "scratch must be a global !txl.ptr<i8> (a 128-byte slot), got "
                           << scratch;
  }
  size_t rank = desc.getBlockShape().size();
  if (getShape().size() != rank || getStrides().size() != rank)
    return emitOpError() << "needs " << rank << " sizes and " << rank
                         << " strides (the descriptor's rank), got " << getShape().size() << " and "
                         << getStrides().size();
  if (Type elt = desc.getElementType(); isa<FloatType>(elt) && !elt.isF16() && !elt.isBF16() &&
                                        !elt.isF32() && !elt.isF64() &&
                                        getElementBitWidth(elt) != 8)
    return emitOpError() << "cannot describe " << elt << " elements for TMA";
  if (Type elt = desc.getElementType();
      getNanFill() && !(elt.isF16() || elt.isBF16() || elt.isF32() || elt.isF64()))
    return emitOpError() << "fills out-of-bounds elements with NaN, which TMA does for f16, bf16, "
                            "f32 and f64 only, got "
                         << elt;
  return success();
}

/// A write of its slot, as ODS's `Arg<..., [MemWrite]>` would declare it. An
/// op without its slot yet (before txl-global-scratch) still writes a tensor
/// map somewhere: an unnamed write, so that nothing erases it or merges two.
void MakeTensorDescOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  if (getScratch())
    effects.emplace_back(MemoryEffects::Write::get(), &getScratchMutable()[0], 0, false,
                         SideEffects::DefaultResource::get());
  else
    effects.emplace_back(MemoryEffects::Write::get(), SideEffects::DefaultResource::get());
}

LogicalResult TmaGatherOp::verify() {
  TensorDescType desc = getDesc().getType();
  SmemType dst = getDst().getType();
  auto rows = getXOffsets().getType();
  if (desc.getBlockShape().size() != 2 || dst.getRank() != 2 || rows.getRank() != 1)
    return emitOpError() << "gathers rows of a 2-D descriptor into a 2-D buffer with a 1-D "
                            "tile of row offsets";
  if (rows.getDimSize(0) % 4 != 0)
    return emitOpError() << "gathers rows in groups of 4 (gather4), got " << rows.getDimSize(0);
  if (dst.getDimSize(0) != rows.getDimSize(0) || dst.getDimSize(1) != desc.getBlockShape()[1])
    return emitOpError() << "buffer shape must be [" << rows.getDimSize(0) << ", "
                         << desc.getBlockShape()[1] << "] (rows x box width), got "
                         << shapeStr(dst.getShape());
  if (desc.getElementType() != dst.getElementType())
    return emitOpError() << "descriptor and buffer element types differ";
  return success();
}

LogicalResult AsyncLoadOp::verify() {
  auto ptrs = getPtrs().getType();
  SmemType dst = getDst().getType();
  auto pointee = cast<PtrType>(ptrs.getElementType()).getPointeeType();
  if (pointee != dst.getElementType() || ptrs.getShape() != dst.getShape())
    return emitOpError() << "pointers " << ptrs << " must point to " << dst.getElementType()
                         << " in the buffer's shape " << shapeStr(dst.getShape());
  if (auto mask = dyn_cast_or_null<RankedTensorType>(getMask() ? getMask().getType() : Type());
      mask && mask.getShape() != ptrs.getShape())
    return emitOpError() << "mask shape " << shapeStr(mask.getShape())
                         << " must match the pointers' " << shapeStr(ptrs.getShape());
  if (getOther()) {
    auto other = cast<RankedTensorType>(getOther().getType());
    if (other.getShape() != ptrs.getShape() || other.getElementType() != pointee)
      return emitOpError() << "'other' must be a " << shapeStr(ptrs.getShape()) << " tile of "
                           << pointee;
  }
  int64_t c = static_cast<int32_t>(getContiguity());
  if (c != -1 && (c <= 0 || !llvm::isPowerOf2_64(c)))
    return emitOpError() << "contiguity must be a positive power of two (or -1), got " << c;
  return success();
}

//===----------------------------------------------------------------------===//
// Matrix multiply
//===----------------------------------------------------------------------===//

static bool isMmaInput(Type t) {
  return t.isF16() || t.isBF16() || t.isF32() || isa<Float8E4M3FNType, Float8E5M2Type>(t) ||
         t.isSignlessInteger(8);
}

/// Accumulator types allowed for an input type.
static bool isValidAccumulator(Type in, Type acc) {
  if (in.isSignlessInteger(8))
    return acc.isSignlessInteger(32);
  if (in.isF16() || isa<Float8E4M3FNType, Float8E5M2Type>(in))
    return acc.isF32() || acc.isF16();
  return acc.isF32();
}

/// Shapes and types common to wgmma and tcgen05: A is MxK, B is KxN, C is MxN.
static LogicalResult verifyMmaOperands(Operation *op, ShapedType a, ShapedType b, ShapedType c,
                                       int64_t &m, int64_t &n, int64_t &k) {
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return op->emitOpError() << "operands must be 2-D (A: MxK, B: KxN, acc: MxN)";
  m = a.getDimSize(0);
  k = a.getDimSize(1);
  n = b.getDimSize(1);
  if (b.getDimSize(0) != k)
    return op->emitOpError() << "A is " << shapeStr(a.getShape()) << " but B is "
                             << shapeStr(b.getShape()) << ": K must agree (use a transposed view "
                             << "of B, e.g. txl.smem_trans, for A * B^T)";
  if (c.getDimSize(0) != m || c.getDimSize(1) != n)
    return op->emitOpError() << "accumulator must be " << shapeStr({m, n}) << ", got "
                             << shapeStr(c.getShape());
  Type ta = a.getElementType(), tb = b.getElementType();
  if (!isMmaInput(ta) || !isMmaInput(tb))
    return op->emitOpError() << "inputs must be f16, bf16, f32 (tf32), f8E4M3FN, f8E5M2 or i8, "
                                "got "
                             << ta << " and " << tb;
  bool bothFp8 =
      isa<Float8E4M3FNType, Float8E5M2Type>(ta) && isa<Float8E4M3FNType, Float8E5M2Type>(tb);
  if (ta != tb && !bothFp8)
    return op->emitOpError() << "A and B must have the same element type, got " << ta << " and "
                             << tb;
  if (!isValidAccumulator(ta, c.getElementType()))
    return op->emitOpError() << "cannot accumulate " << ta << " products in " << c.getElementType()
                             << " (f32 always works; f16 for f16/fp8 "
                             << "inputs; i32 for i8)";
  if (k % getMmaInstrK(ta) != 0)
    return op->emitOpError() << "K = " << k << " must be a multiple of " << getMmaInstrK(ta)
                             << " for " << ta << " inputs";
  return success();
}

static LogicalResult verifyAsyncDotResultUses(DotOp dot);

LogicalResult DotOp::verify() {
  auto a = cast<ShapedType>(getA().getType());
  auto b = cast<ShapedType>(getB().getType());
  auto c = cast<ShapedType>(getAcc().getType());
  int64_t m, n, k;
  if (failed(verifyMmaOperands(*this, a, b, c, m, n, k)))
    return failure();
  // M a multiple of 64: wgmma (a warpgroup per 64 rows); else mma.sync, 16
  // rows per warp and instruction (txl-assign-layouts decides).
  if (m % 16 != 0)
    return emitOpError() << "M must be a multiple of 16 (mma.sync m16n8k16; wgmma takes "
                            "multiples of 64), got "
                         << m;
  // (wgmma takes N <= 256, mma.sync any multiple of 8: txl-wgmma checks.)
  if (n < 8 || n % 8 != 0)
    return emitOpError() << "N must be a multiple of 8 (mma.sync n8, wgmma steps of 8), got " << n;
  return verifyAsyncDotResultUses(*this);
}

/// True when `v` is available before `op` runs: a block argument of a block
/// enclosing `op`, or the result of an op of an enclosing block placed before
/// `op`'s ancestor there. (An op's results do not reach into its regions.)
static bool definedBefore(Value v, Operation *op) {
  Block *block = v.getParentBlock();
  Operation *ancestor = block ? block->findAncestorOpInBlock(*op) : nullptr;
  if (!ancestor)
    return false;
  Operation *def = v.getDefiningOp();
  return !def || (def != ancestor && def->isBeforeInBlock(ancestor));
}

DotOp mlir::txl::getAccumulatedDot(Operation *add) {
  if (!isa<arith::AddFOp, arith::AddIOp>(add))
    return nullptr;
  // (The same block: the add is the statement `acc += tl.dot(a, b)`, not a
  // conditional use of a product computed outside the branch.)
  for (unsigned i = 0; i < 2; ++i) {
    Value product = add->getOperand(i), x = add->getOperand(1 - i);
    auto dot = product.getDefiningOp<DotOp>();
    if (!dot || dot->getBlock() != add->getBlock() || dot.getUseAcc() || !product.hasOneUse() ||
        x == product)
      continue;
    Value acc = dot.getAcc();
    if (!matchPattern(acc, m_AnyZeroFloat()) && !matchPattern(acc, m_Zero()))
      continue;
    if (definedBefore(x, dot))
      return dot;
  }
  return nullptr;
}

/// An async dot's result is being written by the tensor cores until a
/// txl.dot_wait retires its group: `txl.dot_wait N` retires it once at least
/// N wgmma groups (txl.dot ops) were issued after it. Until then the result
/// may only feed another dot's accumulator (chained groups), be passed
/// through the wait, be carried out of the block (scf.yield; the wait is
/// then the loop's business), or be added to an earlier value (the dot's
/// accumulation, getAccumulatedDot, which txl-fold-dot-add folds into the
/// dot: the sum is then in flight in its place). Any other read gets a
/// half-written tile. Checked in the dot's block, in program order.
static LogicalResult verifyAsyncDotResultUses(DotOp dot) {
  if (!dot.getAsync())
    return success();
  Value result = dot.getResult();
  int64_t issuedAfter = 0;
  for (Operation *op = dot->getNextNode(); op; op = op->getNextNode()) {
    if (auto wait = dyn_cast<DotWaitOp>(op))
      if (issuedAfter >= static_cast<int32_t>(wait.getPendings()))
        return success();
    if (isa<DotOp>(op))
      ++issuedAfter;
    Operation *reader = nullptr;
    Value sum;
    op->walk([&](Operation *nested) {
      if (!llvm::is_contained(nested->getOperands(), result))
        return WalkResult::advance();
      auto chained = dyn_cast<DotOp>(nested);
      bool allowed = isa<DotWaitOp, RegionBranchTerminatorOpInterface>(nested) ||
                     (chained && chained.getAcc() == result && chained.getA() != result);
      if (DotOp accumulated = nested == op ? getAccumulatedDot(nested) : nullptr) {
        if (accumulated == dot)
          sum = nested->getResult(0); // this dot's accumulation: the sum is in flight now
        // (else `result` is the earlier value a later dot accumulates into:
        // a chained group, as when the dot reads it as its accumulator)
        allowed = accumulated == dot || accumulated.getA() != result;
      }
      if (allowed)
        return WalkResult::advance();
      reader = nested;
      return WalkResult::interrupt();
    });
    if (reader) {
      InFlightDiagnostic diag =
          reader->emitOpError()
          << "reads the result of an async txl.dot before a txl.dot_wait retires it (the tensor "
             "cores may still be writing it); read it after `txl.dot_wait 0` (passing the "
             "result through the wait), or drop `async` from the dot";
      diag.attachNote(dot.getLoc()) << "the async txl.dot";
      return diag;
    }
    if (sum)
      result = sum;
  }
  return success();
}

LogicalResult DotXOp::verify() {
  auto a = cast<ShapedType>(getA().getType());
  SmemType b = getB().getType();
  auto c = cast<ShapedType>(getC().getType());
  int64_t m, n, k;
  if (failed(verifyMmaOperands(*this, a, b, c, m, n, k)))
    return failure();
  int64_t maxM = getTwoCtas() ? 256 : 128;
  if (m != 64 && m != 128 && !(getTwoCtas() && m == 256))
    return emitOpError() << "tcgen05 M must be 64 or 128 (or 256 with two_ctas), got " << m
                         << " (max " << maxM << ")";
  int64_t step = m == 64 ? 8 : 16;
  if (n < step || n > 256 || n % step != 0)
    return emitOpError() << "tcgen05 N must be in " << step << "..256 in steps of " << step
                         << " for M = " << m << ", got " << n;
  bool tensorAcc = isa<RankedTensorType>(c);
  if (tensorAcc != (getResult() != nullptr))
    return emitOpError() << (tensorAcc ? "a register accumulator needs a result"
                                       : "a tensor-memory accumulator is updated in place; "
                                         "remove the result");
  if (tensorAcc && getResult().getType() != c)
    return emitOpError() << "result type must equal the accumulator type " << c;
  if (!getMbarPreds().empty() && getMbarPreds().size() != getMbars().size())
    return emitOpError() << "needs one predicate per mbarrier (" << getMbars().size() << "), got "
                         << getMbarPreds().size();
  return success();
}

LogicalResult DotWaitOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                          ValueRange operands, DictionaryAttr, OpaqueProperties,
                                          RegionRange, SmallVectorImpl<Type> &inferred) {
  for (Value v : operands)
    inferred.push_back(v.getType());
  return success();
}

//===----------------------------------------------------------------------===//
// Synchronization and warp specialization
//===----------------------------------------------------------------------===//

static LogicalResult verifyNamedBarrier(Operation *op, int64_t bar, int64_t threads) {
  if (bar < 0 || bar > 15)
    return op->emitOpError() << "named barrier id must be in 0..15, got " << bar
                             << " (kernels use 8..15; 1..7 are reserved for the compiler)";
  if (threads <= 0 || threads % 32 != 0 || threads > 1024)
    return op->emitOpError() << "thread count must be a positive multiple of 32 up to 1024 "
                                "(whole warps), got "
                             << threads;
  return success();
}

/// A named barrier waits for `threads` arrivals: more than the block has
/// (txl.num_warps of the enclosing kernel) can never complete.
static LogicalResult verifyBarrierFitsBlock(Operation *op, int64_t threads) {
  auto func = op->getParentOfType<FunctionOpInterface>();
  auto warps = func ? func->getAttrOfType<IntegerAttr>(kNumWarpsAttrName) : nullptr;
  if (!warps || warps.getValue().getSignificantBits() > 32)
    return success();
  int64_t blockThreads = warps.getValue().getSExtValue() * 32;
  if (threads > blockThreads)
    return op->emitOpError() << "waits for " << threads << " threads but the block has "
                             << blockThreads << " (" << kNumWarpsAttrName << " = "
                             << warps.getValue().getSExtValue()
                             << "); the barrier would never complete: count only the threads "
                                "that arrive (128 per warpgroup)";
  return success();
}

LogicalResult BarArriveOp::verify() {
  int64_t threads = static_cast<int32_t>(getNumThreads());
  if (failed(verifyNamedBarrier(*this, static_cast<int32_t>(getBar()), threads)))
    return failure();
  return verifyBarrierFitsBlock(*this, threads);
}
LogicalResult BarWaitOp::verify() {
  int64_t threads = static_cast<int32_t>(getNumThreads());
  if (failed(verifyNamedBarrier(*this, static_cast<int32_t>(getBar()), threads)))
    return failure();
  return verifyBarrierFitsBlock(*this, threads);
}

static LogicalResult verifyRegCount(Operation *op, int64_t count) {
  if (count < 24 || count > 256 || count % 8 != 0)
    return op->emitOpError() << "register count must be in 24..256 in steps of 8 (setmaxnreg), "
                                "got "
                             << count;
  return success();
}

LogicalResult RegAllocOp::verify() {
  return verifyRegCount(*this, static_cast<int32_t>(getRegCount()));
}
LogicalResult RegDeallocOp::verify() {
  return verifyRegCount(*this, static_cast<int32_t>(getRegCount()));
}

static LogicalResult verifyRoleIds(Operation *op, ArrayRef<int32_t> ids, StringRef unit,
                                   int32_t limit) {
  if (ids.empty())
    return op->emitOpError() << "needs at least one " << unit << " id";
  SmallVector<int32_t> sorted(ids);
  llvm::sort(sorted);
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] < 0 || sorted[i] >= limit)
      return op->emitOpError() << unit << " id " << sorted[i] << " is out of range [0, " << limit
                               << ")";
    if (i > 0 && sorted[i] == sorted[i - 1])
      return op->emitOpError() << unit << " id " << sorted[i] << " is listed twice";
  }
  return success();
}

// A block has at most 1024 threads: 8 warpgroups, 32 warps.
LogicalResult IsWarpgroupOp::verify() { return verifyRoleIds(*this, getIds(), "warpgroup", 8); }
LogicalResult IsWarpOp::verify() { return verifyRoleIds(*this, getIds(), "warp", 32); }

//===----------------------------------------------------------------------===//
// Register tiles
//===----------------------------------------------------------------------===//

LogicalResult MakeRangeOp::verify() {
  int64_t start = static_cast<int32_t>(getStart()), end = static_cast<int32_t>(getEnd());
  auto type = getType();
  if (start < 0 || end <= start)
    return emitOpError() << "needs 0 <= start < end, got [" << start << ", " << end << ")";
  if (end - start > kMaxTileElements)
    return emitOpError() << "makes a tile of " << end - start << " elements, more than the "
                         << kMaxTileElements
                         << " (2^20) a register tile may have (Triton's limit too); use a "
                            "smaller range and loop over blocks";
  if (type.getRank() != 1 || type.getDimSize(0) != end - start)
    return emitOpError() << "result must be tensor<" << end - start << "xi32>, got " << type;
  return success();
}

LogicalResult SplatOp::verify() {
  auto type = getType();
  if (getSrc().getType() != type.getElementType())
    return emitOpError() << "splats a " << getSrc().getType() << " into a tile of "
                         << type.getElementType() << "; the element types must match";
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  if (src.getRank() != dst.getRank())
    return emitOpError() << "keeps the rank; use txl.expand_dims first (got rank " << src.getRank()
                         << " -> " << dst.getRank() << ")";
  for (int64_t i = 0; i < src.getRank(); ++i)
    if (src.getDimSize(i) != dst.getDimSize(i) && src.getDimSize(i) != 1)
      return emitOpError() << "cannot broadcast " << shapeStr(src.getShape()) << " to "
                           << shapeStr(dst.getShape()) << ": dimension " << i << " is "
                           << src.getDimSize(i) << ", not 1";
  return success();
}

LogicalResult ExpandDimsOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  int64_t axis = static_cast<int32_t>(getAxis());
  if (axis < 0 || axis > src.getRank())
    return emitOpError() << "axis " << axis << " is out of range [0, " << src.getRank() << "]";
  SmallVector<int64_t> expected(src.getShape());
  expected.insert(expected.begin() + axis, 1);
  if (ArrayRef<int64_t>(expected) != dst.getShape())
    return emitOpError() << "result shape must be " << shapeStr(expected) << ", got "
                         << shapeStr(dst.getShape());
  return success();
}

/// For the coordinate-renaming ops: when the source and the result both
/// carry a layout, the result's must be the source's moved through the op
/// (up to the order of registers); otherwise the op would have to move data.
static LogicalResult
verifyRenamedLayout(Operation *op, RankedTensorType src, RankedTensorType dst,
                    function_ref<std::optional<LinearLayout>(const LinearLayout &)> rename) {
  if (!src.getEncoding() || !dst.getEncoding())
    return success();
  auto from = LinearLayout::get(src.getShape(), src.getEncoding());
  auto to = LinearLayout::get(dst.getShape(), dst.getEncoding());
  if (failed(from) || failed(to))
    return success(); // not a distributable tile: reported by layout assignment
  std::optional<LinearLayout> want = rename(*from);
  if (!want)
    return op->emitOpError() << "needs the last dimension of its source held in one register "
                                "basis of each thread; insert a txl.relayout before it";
  auto kind = want->classifyConversionTo(*to);
  if (kind != LinearLayout::Conversion::NoOp && kind != LinearLayout::Conversion::RegPermutation)
    return op->emitOpError() << "result layout " << dst.getEncoding()
                             << " is not the source layout moved through the op ("
                             << want->toAttr(op->getContext())
                             << "); insert a txl.relayout after it";
  return success();
}

LogicalResult TransOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  ArrayRef<int32_t> order = getOrder();
  SmallVector<bool> seen(src.getRank(), false);
  bool isPerm = int64_t(order.size()) == src.getRank();
  for (int32_t d : order) {
    if (!isPerm || d < 0 || d >= src.getRank() || seen[d]) {
      isPerm = false;
      break;
    }
    seen[d] = true;
  }
  if (!isPerm)
    return emitOpError() << "order must be a permutation of 0.." << src.getRank() - 1 << ", got "
                         << shapeStr(SmallVector<int64_t>(order.begin(), order.end()));
  SmallVector<int64_t> expected;
  for (int32_t d : order)
    expected.push_back(src.getDimSize(d));
  if (ArrayRef<int64_t>(expected) != dst.getShape())
    return emitOpError() << "result shape must be " << shapeStr(expected) << ", got "
                         << shapeStr(dst.getShape());
  return verifyRenamedLayout(*this, src, dst, [&](const LinearLayout &l) {
    return std::optional<LinearLayout>(l.transposed(order));
  });
}

LogicalResult ReshapeOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  if (src.getNumElements() != dst.getNumElements())
    return emitOpError() << "cannot reshape " << shapeStr(src.getShape()) << " ("
                         << src.getNumElements() << " elements) to " << shapeStr(dst.getShape())
                         << " (" << dst.getNumElements() << " elements)";
  return verifyRenamedLayout(*this, src, dst, [&](const LinearLayout &l) {
    return std::optional<LinearLayout>(l.reshaped(dst.getShape()));
  });
}

LogicalResult JoinOp::verify() {
  auto lhs = getLhs().getType(), dst = getType();
  SmallVector<int64_t> expected(lhs.getShape());
  expected.push_back(2);
  if (ArrayRef<int64_t>(expected) != dst.getShape() || dst.getElementType() != lhs.getElementType())
    return emitOpError() << "result must be " << shapeStr(expected) << " of "
                         << lhs.getElementType() << ", got " << dst;
  return verifyRenamedLayout(*this, lhs, dst, [](const LinearLayout &l) {
    return std::optional<LinearLayout>(l.joined());
  });
}

LogicalResult SplitOp::verify() {
  auto src = getSrc().getType();
  if (src.getRank() < 2 || src.getShape().back() != 2)
    return emitOpError() << "splits a last dimension of size 2 (rank >= 2), got "
                         << shapeStr(src.getShape());
  SmallVector<int64_t> expected(src.getShape().drop_back());
  for (Value out : {getOutLHS(), getOutRHS()}) {
    auto t = cast<RankedTensorType>(out.getType());
    if (ArrayRef<int64_t>(expected) != t.getShape() || t.getElementType() != src.getElementType())
      return emitOpError() << "results must be " << shapeStr(expected) << " of "
                           << src.getElementType() << ", got " << t;
  }
  return verifyRenamedLayout(*this, src, getOutLHS().getType(),
                             [](const LinearLayout &l) { return l.splitLast(); });
}

/// The combiner region shared by txl.reduce and txl.scan: two scalar
/// arguments per operand (the running values, then the new ones) and a
/// txl.reduce_return of one value per operand, all of the operands' element
/// types; the operands are tiles of one shape and `axis` is in range.
static LogicalResult verifyCombiner(Operation *op, ValueRange srcs, int64_t axis, Region &region) {
  if (srcs.empty())
    return op->emitOpError() << "needs at least one operand";
  auto first = cast<RankedTensorType>(srcs[0].getType());
  if (axis < 0 || axis >= first.getRank())
    return op->emitOpError() << "axis " << axis << " is out of range for a rank-" << first.getRank()
                             << " tile";
  if (op->getNumResults() != srcs.size())
    return op->emitOpError() << "needs one result per operand";
  Block &body = region.front();
  if (body.getNumArguments() != 2 * srcs.size())
    return op->emitOpError() << "combiner takes " << 2 * srcs.size()
                             << " arguments (two per operand), got " << body.getNumArguments();
  for (auto [i, src] : llvm::enumerate(srcs)) {
    auto t = cast<RankedTensorType>(src.getType());
    if (t.getShape() != first.getShape())
      return op->emitOpError() << "operands must have the same shape";
    Type elt = t.getElementType();
    if (body.getArgument(i).getType() != elt || body.getArgument(i + srcs.size()).getType() != elt)
      return op->emitOpError() << "combiner arguments for operand " << i << " must be " << elt;
  }
  auto ret = dyn_cast<ReduceReturnOp>(body.getTerminator());
  if (!ret || ret.getResults().size() != srcs.size())
    return op->emitOpError() << "combiner must end in txl.reduce_return of " << srcs.size()
                             << " values";
  for (auto [i, v] : llvm::enumerate(ret.getResults()))
    if (v.getType() != body.getArgument(i).getType())
      return op->emitOpError() << "combiner returns " << v.getType() << " for operand " << i
                               << ", expected " << body.getArgument(i).getType();
  return success();
}

LogicalResult ReduceOp::verifyRegions() {
  int64_t axis = static_cast<int32_t>(getAxis());
  if (failed(verifyCombiner(*this, getSrcs(), axis, getCombineOp())))
    return failure();
  SmallVector<int64_t> reduced(cast<RankedTensorType>(getSrcs()[0].getType()).getShape());
  reduced.erase(reduced.begin() + axis);
  for (auto [i, src] : llvm::enumerate(getSrcs())) {
    Type elt = cast<RankedTensorType>(src.getType()).getElementType();
    Type result = getResult(i).getType();
    Type expected = reduced.empty() ? elt : Type(RankedTensorType::get(reduced, elt));
    auto resultTensor = dyn_cast<RankedTensorType>(result);
    bool ok = reduced.empty() ? result == elt
                              : resultTensor && resultTensor.getShape() == ArrayRef(reduced) &&
                                    resultTensor.getElementType() == elt;
    if (!ok)
      return emitOpError() << "result " << i << " must be " << expected << ", got " << result;
  }
  return success();
}

LogicalResult AssertOp::verify() {
  if (!getElementTypeOrSelf(getCondition().getType()).isInteger(1))
    return emitOpError() << "condition must be i1 or a tile of i1, got "
                         << getCondition().getType();
  return success();
}

LogicalResult ScanOp::verifyRegions() {
  if (failed(verifyCombiner(*this, getSrcs(), static_cast<int32_t>(getAxis()), getCombineOp())))
    return failure();
  for (auto [i, src, result] : llvm::enumerate(getSrcs(), getResults()))
    if (result.getType() != src.getType())
      return emitOpError() << "result " << i << " must have its operand's type " << src.getType()
                           << ", got " << result.getType();
  return success();
}

/// Shape of a scalar-or-tile value (empty for a scalar).
static ArrayRef<int64_t> shapeOf(Type t) {
  if (auto r = dyn_cast<RankedTensorType>(t))
    return r.getShape();
  return {};
}

LogicalResult AddPtrOp::verify() {
  if (shapeOf(getPtr().getType()) != shapeOf(getOffset().getType()) ||
      isa<RankedTensorType>(getPtr().getType()) != isa<RankedTensorType>(getOffset().getType()))
    return emitOpError() << "offsets " << getOffset().getType() << " must have the shape of the "
                         << "pointers " << getPtr().getType();
  return success();
}

/// The value type a pointer (tile) loads: its pointee in the same shape.
static Type loadedType(Type ptrType) {
  if (auto ptr = dyn_cast<PtrType>(ptrType))
    return ptr.getPointeeType();
  auto tile = cast<RankedTensorType>(ptrType);
  return RankedTensorType::get(
      tile.getShape(), cast<PtrType>(tile.getElementType()).getPointeeType(), tile.getEncoding());
}

static LogicalResult verifyMask(Operation *op, Value mask, Type ptrType) {
  if (!mask)
    return success();
  if (shapeOf(mask.getType()) != shapeOf(ptrType) ||
      isa<RankedTensorType>(mask.getType()) != isa<RankedTensorType>(ptrType))
    return op->emitOpError() << "mask " << mask.getType() << " must have the shape of the "
                             << "pointers " << ptrType;
  return success();
}

LogicalResult LoadOp::verify() {
  Type expected = loadedType(getPtr().getType());
  auto sameShapeAndElt = [&](Type t) {
    return shapeOf(t) == shapeOf(expected) &&
           getElementTypeOrSelf(t) == getElementTypeOrSelf(expected);
  };
  if (!sameShapeAndElt(getType()))
    return emitOpError() << "loads " << expected << " through " << getPtr().getType()
                         << ", but the result is " << getType();
  if (getOther() && getOther().getType() != getType())
    return emitOpError() << "'other' must have the result type " << getType() << ", got "
                         << getOther().getType();
  if (getOther() && !getMask())
    return emitOpError() << "'other' is only used with a mask";
  return verifyMask(*this, getMask(), getPtr().getType());
}

LogicalResult StoreOp::verify() {
  Type expected = loadedType(getPtr().getType());
  Type value = getValue().getType();
  if (shapeOf(value) != shapeOf(expected) ||
      getElementTypeOrSelf(value) != getElementTypeOrSelf(expected))
    return emitOpError() << "stores " << value << " through " << getPtr().getType()
                         << ", which needs " << expected;
  return verifyMask(*this, getMask(), getPtr().getType());
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

/// The value operand(s) of an atomic have the pointee type in the pointers'
/// shape.
static LogicalResult verifyAtomicValue(Operation *op, Type ptrType, Type value, StringRef what) {
  Type expected = loadedType(ptrType);
  if (shapeOf(value) != shapeOf(expected) ||
      isa<RankedTensorType>(value) != isa<RankedTensorType>(expected) ||
      getElementTypeOrSelf(value) != getElementTypeOrSelf(expected))
    return op->emitOpError() << what << " " << value << " must be " << expected
                             << ", what the pointers " << ptrType << " point to";
  return success();
}

LogicalResult AtomicRMWOp::verify() {
  if (failed(verifyAtomicValue(*this, getPtr().getType(), getValue().getType(), "value")))
    return failure();
  Type elt = getElementTypeOrSelf(getValue().getType());
  bool isInt = elt.isInteger(32) || elt.isInteger(64);
  bool isF32F64 = elt.isF32() || elt.isF64();
  bool ok = false;
  StringRef takes;
  switch (getKind()) {
  case AtomicRMWKind::add:
    ok = isInt || isF32F64 || elt.isF16() || elt.isBF16();
    takes = "i32, i64, f16, bf16, f32 and f64";
    break;
  case AtomicRMWKind::max:
  case AtomicRMWKind::min:
    ok = isInt || isF32F64;
    takes = "i32 and i64 (signed), f32 and f64";
    break;
  case AtomicRMWKind::umax:
  case AtomicRMWKind::umin:
    ok = isInt;
    takes = "i32 and i64 (unsigned)";
    break;
  case AtomicRMWKind::band:
  case AtomicRMWKind::bor:
  case AtomicRMWKind::bxor:
    ok = isInt;
    takes = "i32 and i64";
    break;
  case AtomicRMWKind::xchg:
    ok = isInt || isF32F64;
    takes = "32- and 64-bit integers and floats";
    break;
  }
  if (!ok)
    return emitOpError() << "atomic " << stringifyAtomicRMWKind(getKind()) << " does not take "
                         << elt << " elements (it takes " << takes << ")";
  return verifyMask(*this, getMask(), getPtr().getType());
}

LogicalResult AtomicCASOp::verify() {
  if (failed(verifyAtomicValue(*this, getPtr().getType(), getValue().getType(), "value")))
    return failure();
  Type elt = getElementTypeOrSelf(getValue().getType());
  if (!elt.isIntOrFloat() ||
      (elt.getIntOrFloatBitWidth() != 16 && elt.getIntOrFloatBitWidth() != 32 &&
       elt.getIntOrFloatBitWidth() != 64))
    return emitOpError() << "atomic compare-and-swap does not take " << elt
                         << " elements (it takes 16-, 32- and 64-bit integers and floats)";
  return success();
}

//===----------------------------------------------------------------------===//
// Tile ops with an optional shared-memory scratch
//===----------------------------------------------------------------------===//

/// A relayout or reduce with a scratch writes, then reads, its shared-memory
/// view (between barriers); without one it touches no memory.
static void
addScratchEffects(Value scratch,
                  SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  if (!scratch)
    return;
  auto *resource = SharedMemoryResource::get();
  effects.emplace_back(MemoryEffects::Write::get(), resource);
  effects.emplace_back(MemoryEffects::Read::get(), resource);
}

LogicalResult RelayoutOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  if (src.getShape() != dst.getShape() || src.getElementType() != dst.getElementType())
    return emitOpError() << "moves a tile to another layout: source and result must have the "
                            "same shape and element type, got "
                         << src << " and " << dst;
  return success();
}

void RelayoutOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  addScratchEffects(getScratch(), effects);
}

/// The barriers of a scratch round trip must stay where the warps meet them.
Speculation::Speculatability RelayoutOp::getSpeculatability() {
  return getScratch() ? Speculation::NotSpeculatable : Speculation::Speculatable;
}

/// A reduce or scan: its scratch's effects, and the combiner's own (none for
/// the usual arith bodies; an op that does not describe them is assumed to
/// read and write anything).
static void
addCombinerEffects(Value scratch, Region &region,
                   SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  addScratchEffects(scratch, effects);
  for (Operation &op : region.front().without_terminator()) {
    std::optional<SmallVector<MemoryEffects::EffectInstance>> inner = getEffectsRecursively(&op);
    if (!inner) {
      effects.emplace_back(MemoryEffects::Read::get());
      effects.emplace_back(MemoryEffects::Write::get());
      continue;
    }
    for (const MemoryEffects::EffectInstance &e : *inner)
      effects.emplace_back(e.getEffect(), e.getResource());
  }
}

void ReduceOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  addCombinerEffects(getScratch(), getCombineOp(), effects);
}

Speculation::Speculatability ReduceOp::getSpeculatability() {
  return getScratch() ? Speculation::NotSpeculatable : Speculation::RecursivelySpeculatable;
}

void ScanOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  addCombinerEffects(getScratch(), getCombineOp(), effects);
}

Speculation::Speculatability ScanOp::getSpeculatability() {
  return getScratch() ? Speculation::NotSpeculatable : Speculation::RecursivelySpeculatable;
}

/// txl.sort / txl.flip: the axis is a dimension of the tile.
template <typename Op> static LogicalResult verifyAxisPermute(Op op) {
  int64_t axis = static_cast<int32_t>(op.getAxis());
  int64_t rank = op.getSrc().getType().getRank();
  if (axis < 0 || axis >= rank)
    return op.emitOpError() << "axis " << axis << " is out of range for a rank-" << rank << " tile";
  return success();
}

LogicalResult SortOp::verify() {
  if (failed(verifyAxisPermute(*this)))
    return failure();
  Type elt = getSrc().getType().getElementType();
  if (!elt.isIntOrFloat() || elt.isInteger(1))
    return emitOpError() << "sorts integers and floats, got " << elt;
  return success();
}

void SortOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  addScratchEffects(getScratch(), effects);
}

Speculation::Speculatability SortOp::getSpeculatability() {
  return getScratch() ? Speculation::NotSpeculatable : Speculation::Speculatable;
}

LogicalResult FlipOp::verify() { return verifyAxisPermute(*this); }

void FlipOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  addScratchEffects(getScratch(), effects);
}

Speculation::Speculatability FlipOp::getSpeculatability() {
  return getScratch() ? Speculation::NotSpeculatable : Speculation::Speculatable;
}

//===----------------------------------------------------------------------===//
// ExternElementwiseOp
//===----------------------------------------------------------------------===//

LogicalResult ExternElementwiseOp::verify() {
  if (!getSymbol().starts_with("__nv_") || getSymbol().size() <= 5)
    return emitOpError() << "calls '" << getSymbol()
                         << "': only CUDA libdevice functions (named __nv_*) can be called";
  if (getSrcs().empty())
    return emitOpError() << "needs at least one operand";
  auto scalarOk = [](Type t) { return t.isIntOrFloat(); };
  auto resultTile = dyn_cast<RankedTensorType>(getType());
  if (!scalarOk(getElementTypeOrSelf(getType())) || (!resultTile && !scalarOk(getType())))
    return emitOpError() << "result must be an integer or float scalar or tile, got " << getType();
  // (The Elementwise trait has checked that tiles have the result's shape.)
  for (auto [i, v] : llvm::enumerate(getSrcs())) {
    Type t = v.getType();
    if (!scalarOk(getElementTypeOrSelf(t)) || (!isa<RankedTensorType>(t) && !scalarOk(t)))
      return emitOpError() << "operand " << i << " must be an integer or float scalar or tile, got "
                           << t;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// IntToPtrOp, PtrToIntOp
//===----------------------------------------------------------------------===//

/// `from` elements are i64 and `to` elements pointers (or the reverse), with
/// one shape (the Elementwise trait has checked the shapes).
static LogicalResult verifyAddressCast(Operation *op, Type intType, Type ptrType) {
  if (!getElementTypeOrSelf(intType).isInteger(64))
    return op->emitOpError() << "addresses are i64 (scalars or tiles), got " << intType;
  if (!isa<PtrType>(getElementTypeOrSelf(ptrType)))
    return op->emitOpError() << "expects !txl.ptr elements, got " << ptrType;
  if (isa<RankedTensorType>(intType) != isa<RankedTensorType>(ptrType))
    return op->emitOpError() << "converts a scalar to a tile (or the reverse): " << intType
                             << " and " << ptrType;
  return success();
}

LogicalResult IntToPtrOp::verify() {
  return verifyAddressCast(*this, getSrc().getType(), getType());
}
LogicalResult PtrToIntOp::verify() {
  return verifyAddressCast(*this, getType(), getSrc().getType());
}

//===----------------------------------------------------------------------===//
// ElementwiseInlineAsmOp
//===----------------------------------------------------------------------===//

int64_t ElementwiseInlineAsmOp::elementsPerRegister(Type elt, int64_t packed) {
  unsigned bits = elt.isIntOrFloat() ? elt.getIntOrFloatBitWidth() : 64;
  return bits < 32 ? std::min<int64_t>(32 / bits, packed) : 1;
}

LogicalResult ElementwiseInlineAsmOp::verify() {
  int64_t packed = getPackedElement();
  if (packed < 1)
    return emitOpError() << "packed_element must be at least 1, got " << packed;
  if (getResults().empty())
    return emitOpError() << "needs at least one result";
  // Without operands (fla's `griddepcontrol` asm) the results are scalars:
  // Triton takes the shape from the arguments (the Elementwise trait has
  // refused tile results then).
  bool tiles = !getSrcs().empty() && isa<RankedTensorType>(getSrcs().front().getType());
  // The asm's registers per call: each value passes `packed` elements in
  // packed / elementsPerRegister registers.
  auto registers = [&](Type type, StringRef what, size_t i, int64_t &count) -> LogicalResult {
    if (isa<RankedTensorType>(type) != tiles)
      return emitOpError() << what << " " << i << " is " << type << " but "
                           << (tiles ? "operand 0 is a tile" : "operand 0 is a scalar")
                           << ": operands and results are all tiles of one shape or all scalars "
                              "(splat a scalar to the tiles' shape)";
    Type elt = getElementTypeOrSelf(type);
    bool ok = (elt.isIntOrFloat() && !elt.isInteger(1)) || (what == "operand" && isa<PtrType>(elt));
    if (!ok)
      return emitOpError() << what << " " << i << " has elements of type " << elt
                           << "; inline asm takes integers and floats of 8 to 64 bits"
                           << (what == "operand" ? " and pointers" : "")
                           << (elt.isInteger(1) ? " (cast booleans to int8 or int32)" : "");
    int64_t perReg = elementsPerRegister(elt, packed);
    if (packed % perReg)
      return emitOpError() << what << " " << i << " (" << elt << ") packs " << perReg
                           << " elements in a 32-bit register, which does not divide "
                              "packed_element = "
                           << packed << "; use a multiple of " << perReg;
    count += packed / perReg;
    return success();
  };
  int64_t outputs = 0, inputs = 0;
  for (auto [i, t] : llvm::enumerate(getResultTypes()))
    if (failed(registers(t, "result", i, outputs)))
      return failure();
  for (auto [i, t] : llvm::enumerate(getSrcs().getTypes()))
    if (failed(registers(t, "operand", i, inputs)))
      return failure();
  // LLVM checks the constraint string only when the module is translated,
  // with a message that does not point here: count its entries now.
  int64_t outs = 0, ins = 0;
  SmallVector<StringRef> entries;
  StringRef constraints = getConstraints();
  if (!constraints.trim().empty())
    constraints.split(entries, ',');
  for (StringRef e : entries) {
    e = e.trim();
    if (e.starts_with("="))
      ++outs;
    else if (!e.starts_with("~"))
      ++ins;
  }
  if (outs != outputs || ins != inputs)
    return emitOpError() << "constraints \"" << getConstraints() << "\" name " << outs
                         << " output and " << ins << " input registers, but the asm has " << outputs
                         << " output and " << inputs
                         << " input registers per call (packed_element = " << packed
                         << "; elements narrower than 32 bits share a register): list one '=' "
                            "constraint per result register, then one per operand register";
  return success();
}

void ElementwiseInlineAsmOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  if (getPure())
    return;
  // Impure asm may read and write anything: keep it, in order.
  effects.emplace_back(MemoryEffects::Read::get());
  effects.emplace_back(MemoryEffects::Write::get());
  effects.emplace_back(MemoryEffects::Read::get(), SharedMemoryResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), SharedMemoryResource::get());
}

//===----------------------------------------------------------------------===//
// GatherOp
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::verify() {
  auto src = getSrc().getType(), index = getIndex().getType(), result = getType();
  int64_t rank = src.getRank();
  int64_t axis = static_cast<int32_t>(getAxis());
  if (axis < 0 || axis >= rank)
    return emitOpError() << "axis " << axis << " is out of range for a rank-" << rank << " tile";
  if (index.getRank() != rank)
    return emitOpError() << "index must have the source's rank (" << rank << "), got " << index;
  if (!index.getElementType().isInteger() || index.getElementType().isInteger(1))
    return emitOpError() << "index must hold integers, got " << index.getElementType();
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && index.getDimSize(d) != src.getDimSize(d))
      return emitOpError() << "index dimension " << d << " (" << index.getDimSize(d)
                           << ") must match the source's (" << src.getDimSize(d)
                           << "): only the gather axis " << axis << " may differ";
  if (result.getShape() != index.getShape() || result.getElementType() != src.getElementType())
    return emitOpError() << "result must have the index's shape and the source's element type ("
                         << RankedTensorType::get(index.getShape(), src.getElementType())
                         << "), got " << result;
  if (auto scratch = getScratch()) {
    auto view = cast<SmemType>(scratch.getType());
    if (view.getShape() != src.getShape())
      return emitOpError() << "scratch must have the source's shape, got " << view;
  }
  return success();
}

void GatherOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  addScratchEffects(getScratch(), effects);
}

Speculation::Speculatability GatherOp::getSpeculatability() {
  return getScratch() ? Speculation::NotSpeculatable : Speculation::Speculatable;
}

//===----------------------------------------------------------------------===//
// HistogramOp
//===----------------------------------------------------------------------===//

LogicalResult HistogramOp::verify() {
  auto src = getSrc().getType(), result = getType();
  if (src.getRank() != 1 || !src.getElementType().isInteger() || src.getElementType().isInteger(1))
    return emitOpError() << "counts a 1-D tile of integers, got " << src;
  if (result.getRank() != 1 || !result.getElementType().isInteger(32))
    return emitOpError() << "result must be a 1-D tile of i32 counts (num_bins), got " << result;
  if (auto mask = getMask()) {
    auto m = cast<RankedTensorType>(mask.getType());
    if (m.getShape() != src.getShape() || !m.getElementType().isInteger(1))
      return emitOpError() << "mask must be an i1 tile of the source's shape, got " << m;
  }
  if (auto scratch = getScratch()) {
    auto view = cast<SmemType>(scratch.getType());
    if (view.getShape() != result.getShape() || !view.getElementType().isInteger(32))
      return emitOpError() << "scratch must hold the " << result.getDimSize(0)
                           << " i32 counts, got " << view;
  }
  return success();
}

void HistogramOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  addScratchEffects(getScratch(), effects);
}

Speculation::Speculatability HistogramOp::getSpeculatability() {
  return getScratch() ? Speculation::NotSpeculatable : Speculation::Speculatable;
}
