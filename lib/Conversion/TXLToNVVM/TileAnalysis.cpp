//===- TileAnalysis.cpp - what register-tile ops can be lowered, and how ----===//
//
// The layout analysis of the tile lowering (TileLowering.h): which register
// holds an element after a broadcast, reshape, join or split; how a reduce,
// scan, sort or flip moves along its axis; which copy of an element an
// atomic updates; and checkTileOp, which reports what cannot be lowered.
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

//===----------------------------------------------------------------------===//
// Layout analysis (shared by checkTileOp and the patterns)
//===----------------------------------------------------------------------===//

namespace mlir::txl::tile {

FailureOr<LinearLayout> layoutOf(Type type, std::string *why) {
  auto tile = dyn_cast<RankedTensorType>(type);
  if (!tile)
    return failure();
  return LinearLayout::get(tile.getShape(), tile.getEncoding(), why);
}

std::string layoutName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  auto tile = cast<RankedTensorType>(type);
  if (tile.getEncoding())
    os << tile.getEncoding();
  else
    os << "<no layout>";
  return s;
}

/// `bases` mapped through `f`, padded with zero bases to `n` entries. A
/// layout with fewer warp bases than another repeats over the extra warps,
/// which is what zero bases express.
SmallVector<Coord> mapBases(ArrayRef<Coord> bases, size_t n, size_t rank,
                            function_ref<Coord(const Coord &)> f) {
  SmallVector<Coord> out;
  for (const Coord &c : bases)
    out.push_back(f(c));
  while (out.size() < n)
    out.push_back(Coord(rank, 0));
  return out;
}

Coord identity(const Coord &c) { return c; }

/// For every register of `dst`, the register of `src` in the same thread
/// that holds the element at `toSrc(coordinate)`. `toSrc` must be linear
/// over GF(2) (zeroing, dropping, appending zero or permuting coordinates, or
/// a row-major reshape of power-of-two shapes, which moves bits): the element
/// dst holds in register r of thread t sits at toSrc(reg(r)) ^ toSrc(thr(t)),
/// so it is in thread t of src for every t exactly when the thread bases
/// agree, and then in the src register whose register part is toSrc(reg(r)).
/// Fails when some element lives in another thread.
FailureOr<SmallVector<int64_t>> mapRegisters(const LinearLayout &src, const LinearLayout &dst,
                                             function_ref<Coord(const Coord &)> toSrc) {
  size_t rank = src.getShape().size();
  auto sameThreads = [&](ArrayRef<Coord> s, ArrayRef<Coord> d) {
    size_t n = std::max(s.size(), d.size());
    return mapBases(s, n, rank, identity) == mapBases(d, n, rank, toSrc);
  };
  if (!sameThreads(src.getLaneBases(), dst.getLaneBases()) ||
      !sameThreads(src.getWarpBases(), dst.getWarpBases()))
    return failure();
  SmallVector<int64_t> map;
  for (int64_t r = 0; r < dst.getNumRegs(); ++r) {
    Coord want = toSrc(dst.applyReg(r));
    int64_t found = -1;
    for (int64_t s = 0; s < src.getNumRegs() && found < 0; ++s)
      if (src.applyReg(s) == want)
        found = s;
    if (found < 0)
      return failure();
    map.push_back(found);
  }
  return map;
}

/// txl.broadcast: the source coordinate has 0 in every size-1 dimension.
FailureOr<SmallVector<int64_t>> mapBroadcast(BroadcastOp op) {
  auto srcType = op.getSrc().getType();
  auto src = layoutOf(srcType), dst = layoutOf(op.getType());
  if (failed(src) || failed(dst))
    return failure();
  ArrayRef<int64_t> shape = srcType.getShape();
  return mapRegisters(*src, *dst, [&](const Coord &c) {
    Coord out(c);
    for (size_t d = 0; d < out.size(); ++d)
      if (shape[d] == 1)
        out[d] = 0;
    return out;
  });
}

/// txl.expand_dims: the source coordinate drops the new dimension.
FailureOr<SmallVector<int64_t>> mapExpandDims(ExpandDimsOp op) {
  auto src = layoutOf(op.getSrc().getType()), dst = layoutOf(op.getType());
  if (failed(src) || failed(dst))
    return failure();
  unsigned axis = op.getAxis();
  return mapRegisters(*src, *dst, [&](const Coord &c) {
    Coord out(c);
    out.erase(out.begin() + axis);
    return out;
  });
}

FailureOr<ReducePlan> planReduce(ReduceOp op, std::string &why) {
  auto srcType = cast<RankedTensorType>(op.getSrcs()[0].getType());
  auto src = layoutOf(srcType, &why);
  if (failed(src))
    return failure();
  for (Value other : op.getSrcs().drop_front()) {
    auto l = layoutOf(other.getType(), &why);
    if (failed(l))
      return failure();
    if (!(*l == *src)) {
      why = "operands have different register layouts (" + layoutName(srcType) + " and " +
            layoutName(other.getType()) + ")";
      return failure();
    }
  }
  unsigned axis = op.getAxis();
  size_t rank = srcType.getRank();
  auto onlyAxis = [&](const Coord &c) {
    for (size_t d = 0; d < rank; ++d)
      if (d != axis && c[d] != 0)
        return false;
    return true;
  };

  ReducePlan plan;
  for (auto [k, basis] : llvm::enumerate(src->getLaneBases())) {
    if (basis[axis] == 0)
      continue; // another row (or a copy): not combined
    if (!onlyAxis(basis)) {
      why = "lane bit " + std::to_string(k) + " of " + layoutName(srcType) +
            " moves along the reduced axis and another dimension at once; not supported yet";
      return failure();
    }
    plan.laneMasks.push_back(int64_t(1) << k);
  }
  for (auto [k, basis] : llvm::enumerate(src->getWarpBases())) {
    if (basis[axis] == 0)
      continue;
    if (!onlyAxis(basis)) {
      why = "warp bit " + std::to_string(k) + " of " + layoutName(srcType) +
            " moves along the reduced axis and another dimension at once; not supported yet";
      return failure();
    }
    plan.warpBits.push_back(k);
  }
  if (!plan.warpBits.empty() && !op.getScratch()) {
    why = "the warps of " + layoutName(srcType) +
          " split the reduced axis, so their partial results meet in shared memory, but the "
          "op has no scratch (run --txl-allocate-scratch first)";
    return failure();
  }

  // Group the registers by their coordinate outside the axis.
  SmallVector<Coord> keys;
  for (int64_t r = 0; r < src->getNumRegs(); ++r) {
    Coord key = src->applyReg(r);
    key[axis] = 0;
    auto it = llvm::find(keys, key);
    if (it == keys.end()) {
      keys.push_back(key);
      plan.groups.push_back({r});
    } else {
      plan.groups[it - keys.begin()].push_back(r);
    }
  }
  if (rank == 1)
    return plan;

  // The result holds, in each thread, the rows the thread reduced: its layout
  // must be the source layout with the axis dropped (#txl.slice).
  Type resultType = op.getResult(0).getType();
  auto res = layoutOf(resultType, &why);
  if (failed(res))
    return failure();
  for (Value r : op.getResults().drop_front()) {
    auto l = layoutOf(r.getType(), &why);
    if (failed(l))
      return failure();
    if (!(*l == *res)) {
      why = "results have different register layouts";
      return failure();
    }
  }
  auto drop = [&](const Coord &c) {
    Coord out(c);
    out.erase(out.begin() + axis);
    return out;
  };
  std::string mismatch = "the result layout " + layoutName(resultType) +
                         " is not the slice of the source layout " + layoutName(srcType) +
                         " along axis " + std::to_string(axis) +
                         "; needs a layout conversion; not supported yet";
  auto sameThreads = [&](ArrayRef<Coord> s, ArrayRef<Coord> d) {
    size_t n = std::max(s.size(), d.size());
    return mapBases(s, n, rank - 1, drop) == mapBases(d, n, rank - 1, identity);
  };
  if (!sameThreads(src->getLaneBases(), res->getLaneBases()) ||
      !sameThreads(src->getWarpBases(), res->getWarpBases())) {
    why = mismatch;
    return failure();
  }
  for (int64_t r = 0; r < res->getNumRegs(); ++r) {
    Coord want = res->applyReg(r);
    auto it = llvm::find_if(keys, [&](const Coord &k) { return drop(k) == want; });
    if (it == keys.end()) {
      why = mismatch;
      return failure();
    }
    plan.resultGroups.push_back(it - keys.begin());
  }
  return plan;
}

/// The steps of a txl.scan, sort or flip over `axis` of `srcs` (one layout):
/// the layout bit behind each bit of the axis coordinate, lowest first.
FailureOr<SmallVector<ScanStep>> planAxisSteps(ValueRange srcs, unsigned axis, Value scratch,
                                               std::string &why) {
  auto srcType = cast<RankedTensorType>(srcs[0].getType());
  auto src = layoutOf(srcType, &why);
  if (failed(src))
    return failure();
  for (Value other : srcs.drop_front())
    if (failed(layoutOf(other.getType(), &why)) || !(*layoutOf(other.getType()) == *src)) {
      why = "operands have different register layouts";
      return failure();
    }
  int64_t size = srcType.getShape()[axis];
  if (!llvm::isPowerOf2_64(size)) {
    why = "the axis has " + std::to_string(size) + " elements; scans need a power of two";
    return failure();
  }
  SmallVector<std::optional<ScanStep>> steps(llvm::Log2_64(size));
  auto add = [&](ArrayRef<Coord> bases, ScanStep::Kind kind, StringRef name) {
    for (auto [k, basis] : llvm::enumerate(bases)) {
      int64_t along = basis[axis];
      if (along == 0)
        continue; // another dimension, or a copy: handled independently
      bool pure = llvm::isPowerOf2_64(along);
      for (auto [d, c] : llvm::enumerate(basis))
        pure &= d == axis || c == 0;
      if (!pure || steps[llvm::Log2_64(along)]) {
        why = (name + " bit " + Twine(k) + " of " + layoutName(srcType) +
               " does not move along the axis alone by a distinct power of two; not "
               "supported yet")
                  .str();
        return false;
      }
      steps[llvm::Log2_64(along)] = ScanStep{kind, int64_t(k)};
    }
    return true;
  };
  if (!add(src->getRegBases(), ScanStep::Register, "register") ||
      !add(src->getLaneBases(), ScanStep::Lane, "lane") ||
      !add(src->getWarpBases(), ScanStep::Warp, "warp"))
    return failure();
  SmallVector<ScanStep> plan;
  for (auto &step : steps) {
    if (!step) {
      why = "the layout " + layoutName(srcType) + " does not cover the axis";
      return failure();
    }
    plan.push_back(*step);
  }
  if (!scratch && llvm::any_of(plan, [](ScanStep s) { return s.kind == ScanStep::Warp; })) {
    why = "the warps of " + layoutName(srcType) +
          " split the axis, so values cross warps through shared memory, but the op has no "
          "scratch (run --txl-allocate-scratch first)";
    return failure();
  }
  return plan;
}

/// Bits an element occupies in memory (i1 is stored as a byte), 0 for
/// element types loads and stores do not support.
unsigned memoryBits(Type type) {
  if (isa<LLVM::LLVMPointerType, PtrType>(type))
    return 64;
  if (type.isInteger(1))
    return 8;
  if (type.isIntOrFloat()) {
    unsigned bits = type.getIntOrFloatBitWidth();
    if (bits == 8 || bits == 16 || bits == 32 || bits == 64)
      return bits;
  }
  return 0;
}

bool isElementwiseTileOp(Operation *op) {
  if (!op->hasTrait<mlir::OpTrait::Elementwise>() ||
      !(isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        isa<ExternElementwiseOp, IntToPtrOp, PtrToIntOp>(op)))
    return false;
  auto isTile = [](Type t) { return isa<RankedTensorType>(t); };
  return llvm::any_of(op->getOperandTypes(), isTile) || llvm::any_of(op->getResultTypes(), isTile);
}

/// All tile-typed values among `values` have the layout of the first one.
LogicalResult checkSameLayouts(Operation *op, ArrayRef<Value> values, StringRef what) {
  std::optional<LinearLayout> first;
  Type firstType;
  for (Value v : values) {
    if (!v || !isa<RankedTensorType>(v.getType()))
      continue;
    std::string why;
    auto l = layoutOf(v.getType(), &why);
    if (failed(l))
      return op->emitError() << "'" << op->getName() << "' uses a register tile without a usable "
                             << "layout (" << v.getType() << "): " << why;
    if (!first) {
      first = *l;
      firstType = v.getType();
      continue;
    }
    if (!(*l == *first))
      return op->emitError() << "'" << op->getName() << "' mixes register layouts "
                             << layoutName(firstType) << " and " << layoutName(v.getType())
                             << " in its " << what
                             << "; needs a layout conversion (txl.relayout); not supported yet";
  }
  return success();
}

/// txl.trans: result coordinate c is source coordinate c permuted back.
FailureOr<SmallVector<int64_t>> mapTrans(TransOp op) {
  auto src = layoutOf(op.getSrc().getType()), dst = layoutOf(op.getType());
  if (failed(src) || failed(dst))
    return failure();
  SmallVector<int32_t> inverse(op.getOrder().size());
  for (auto [i, d] : llvm::enumerate(op.getOrder()))
    inverse[d] = i;
  return mapRegisters(*src, *dst,
                      [&](const Coord &c) { return LinearLayout::transposeCoord(c, inverse); });
}

/// txl.reshape: the same row-major index in the source shape.
FailureOr<SmallVector<int64_t>> mapReshape(ReshapeOp op) {
  auto srcType = op.getSrc().getType();
  auto src = layoutOf(srcType), dst = layoutOf(op.getType());
  if (failed(src) || failed(dst))
    return failure();
  ArrayRef<int64_t> from = op.getType().getShape(), to = srcType.getShape();
  return mapRegisters(*src, *dst,
                      [&](const Coord &c) { return LinearLayout::reshapeCoord(c, from, to); });
}

/// txl.join: result register r holds register map[r].first of operand
/// map[r].second (the result's last coordinate, which must come from the
/// register bits alone).
FailureOr<SmallVector<std::pair<int64_t, int64_t>>> mapJoin(JoinOp op) {
  auto src = layoutOf(op.getLhs().getType()), dst = layoutOf(op.getType());
  if (failed(src) || failed(dst))
    return failure();
  auto lastIsZero = [](ArrayRef<Coord> bases) {
    return llvm::all_of(bases, [](const Coord &c) { return c.back() == 0; });
  };
  if (!lastIsZero(dst->getLaneBases()) || !lastIsZero(dst->getWarpBases()))
    return failure();
  auto regs = mapRegisters(*src, *dst,
                           [](const Coord &c) { return Coord(ArrayRef<int64_t>(c).drop_back()); });
  if (failed(regs))
    return failure();
  SmallVector<std::pair<int64_t, int64_t>> map;
  for (auto [r, s] : llvm::enumerate(*regs))
    map.push_back({s, dst->applyReg(r).back()});
  return map;
}

/// txl.split: map[k][r] is the source register holding register r of
/// result k (coordinate c of result k is (c, k) of the source).
FailureOr<std::array<SmallVector<int64_t>, 2>> mapSplit(SplitOp op) {
  auto src = layoutOf(op.getSrc().getType()), dst = layoutOf(op.getOutLHS().getType());
  if (failed(src) || failed(dst))
    return failure();
  auto half = mapRegisters(*src, *dst, [](const Coord &c) {
    Coord out(c);
    out.push_back(0);
    return out;
  });
  if (failed(half))
    return failure();
  // (c, 1) = (c, 0) ^ (0, .., 1): XOR with the register holding (0, .., 1).
  Coord unit(src->getShape().size(), 0);
  unit.back() = 1;
  int64_t unitReg = -1;
  for (int64_t s = 0; s < src->getNumRegs() && unitReg < 0; ++s)
    if (src->applyReg(s) == unit)
      unitReg = s;
  if (unitReg < 0)
    return failure();
  std::array<SmallVector<int64_t>, 2> map;
  for (int64_t s : *half) {
    map[0].push_back(s);
    map[1].push_back(s ^ unitReg);
  }
  return map;
}

/// Fails when the layout holds elements in several places in a way other
/// than zero bases (its non-zero bases are linearly dependent), which the
/// owner rule above cannot deduplicate.
FailureOr<AtomicOwners> atomicOwners(const LinearLayout &ll) {
  LinearLayout::Copies copies = ll.getCopies();
  if (!copies.onlyZeroBases)
    return failure();
  AtomicOwners owners;
  owners.dupThreadMask = uint32_t(copies.lanes | copies.warps << 5);
  for (int64_t r = 0; r < ll.getNumRegs(); ++r)
    owners.canonical.push_back(r & ~int64_t(copies.regs));
  return owners;
}

/// Checks shared by txl.atomic_rmw and txl.atomic_cas.
LogicalResult checkAtomic(Operation *op, Value ptr, ArrayRef<Value> values, Value result,
                          Value scratch) {
  Type elt = getElementTypeOrSelf(result.getType());
  if (!memoryBits(elt))
    return op->emitError() << "'" << op->getName() << "' of " << elt
                           << " elements is not supported";
  SmallVector<Value> all{ptr, result};
  all.append(values.begin(), values.end());
  if (failed(checkSameLayouts(op, all, "pointers, values, mask and result")))
    return failure();
  bool needsExchange = false;
  if (auto tile = dyn_cast<RankedTensorType>(ptr.getType())) {
    auto ll = layoutOf(tile);
    if (failed(ll))
      return success(); // reported as a tile without layout
    auto owners = atomicOwners(*ll);
    if (failed(owners))
      return op->emitError() << "'" << op->getName() << "' on a tile whose layout "
                             << layoutName(tile)
                             << " holds elements in several places other than by broadcast "
                                "(zero bases): each element must be updated once; txl.relayout "
                                "the pointers to a blocked layout first";
    needsExchange = owners->dupThreadMask != 0;
  } else {
    needsExchange = true; // one thread of the group updates a scalar
  }
  if (needsExchange && !result.use_empty() && !scratch)
    return op->emitError() << "'" << op->getName()
                           << "': the old values are used, and the threads that update the "
                              "elements must hand them to the other threads holding them, "
                              "which needs a scratch (run --txl-allocate-scratch first)";
  return success();
}

} // namespace mlir::txl::tile

bool mlir::txl::isFp8TileConversion(Operation *op) {
  if (!isa<arith::TruncFOp, arith::ExtFOp>(op) ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return false;
  Type src = getElementTypeOrSelf(op->getOperand(0).getType());
  Type dst = getElementTypeOrSelf(op->getResult(0).getType());
  auto fp8 = [](Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); };
  return isa<arith::TruncFOp>(op) ? src.isF32() && fp8(dst)
                                  : fp8(src) && (dst.isF16() || dst.isF32());
}

bool mlir::txl::isLowerableTileOp(Operation *op) {
  if (isElementwiseTileOp(op))
    return true;
  if (auto cst = dyn_cast<arith::ConstantOp>(op))
    return isa<RankedTensorType>(cst.getType());
  return isa<SplatOp, MakeRangeOp, BroadcastOp, ExpandDimsOp, RelayoutOp, AddPtrOp, LoadOp, StoreOp,
             ReduceOp, WarpReduceOp, ScanOp, SortOp, FlipOp, TransOp, ReshapeOp, JoinOp, SplitOp,
             AtomicRMWOp, AtomicCASOp, PrintOp, AssertOp, ElementwiseInlineAsmOp, GatherOp,
             HistogramOp>(op);
}

LogicalResult mlir::txl::checkTileOp(Operation *op) {
  if (isElementwiseTileOp(op)) {
    if (op->getNumResults() != 1)
      return op->emitError() << "'" << op->getName()
                             << "' on register tiles has several results; not supported yet";
    SmallVector<Value> values(op->getOperands());
    llvm::append_range(values, op->getResults());
    return checkSameLayouts(op, values, "operands and results");
  }
  if (isa<ElementwiseInlineAsmOp>(op)) {
    SmallVector<Value> values(op->getOperands());
    llvm::append_range(values, op->getResults());
    return checkSameLayouts(op, values, "operands and results");
  }
  if (auto gather = dyn_cast<GatherOp>(op)) {
    for (Value v : {gather.getSrc(), gather.getIndex()})
      if (failed(layoutOf(v.getType())))
        return op->emitError() << "'txl.gather' uses a register tile without a usable layout ("
                               << v.getType() << ")";
    if (!gather.getScratch())
      return op->emitError() << "'txl.gather' has no scratch; run --txl-allocate-scratch first";
    return checkSameLayouts(op, {gather.getIndex(), gather.getResult()}, "index and result");
  }
  if (auto hist = dyn_cast<HistogramOp>(op)) {
    for (Value v : {hist.getSrc(), hist.getResult()}) {
      auto l = layoutOf(v.getType());
      if (failed(l))
        return op->emitError() << "'txl.histogram' uses a register tile without a usable layout ("
                               << v.getType() << ")";
      if (v == hist.getSrc() && failed(atomicOwners(*l)))
        return op->emitError() << "'txl.histogram' counts a tile whose layout "
                               << layoutName(v.getType())
                               << " holds elements in several places other than by zero bases; "
                                  "relayout it to a blocked layout first";
    }
    if (!hist.getScratch())
      return op->emitError() << "'txl.histogram' has no scratch; run --txl-allocate-scratch first";
    return checkSameLayouts(op, {hist.getSrc(), hist.getMask()}, "source and mask");
  }
  if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
    auto type = dyn_cast<RankedTensorType>(cst.getType());
    if (type && !isa<DenseElementsAttr>(cst.getValue()))
      return op->emitError() << "'arith.constant' of a register tile must be dense";
    if (type && !isa<SplatElementsAttr>(cst.getValue()) &&
        !isa<IntegerType, FloatType, IndexType>(type.getElementType()))
      return op->emitError() << "'arith.constant' tiles of " << type.getElementType()
                             << " elements must be splats";
    return success();
  }
  if (auto bc = dyn_cast<BroadcastOp>(op)) {
    if (failed(mapBroadcast(bc)))
      return op->emitError() << "'txl.broadcast' from " << bc.getSrc().getType() << " to "
                             << bc.getType() << ": some result elements live in other threads "
                             << "than their source; needs a layout conversion; not supported yet";
    return success();
  }
  if (auto ed = dyn_cast<ExpandDimsOp>(op)) {
    if (failed(mapExpandDims(ed)))
      return op->emitError() << "'txl.expand_dims' from " << ed.getSrc().getType() << " to "
                             << ed.getType() << ": some result elements live in other threads "
                             << "than their source (the result layout should be the parent of "
                             << "the source's #txl.slice); needs a layout conversion; not "
                             << "supported yet";
    return success();
  }
  // The renaming ops move no data: layout assignment gives their results
  // the source layout moved through the op. Any other layout pair would need
  // a conversion.
  auto renameError = [&](Type from, Type to) {
    return op->emitError() << "'" << op->getName() << "' from " << from << " to " << to
                           << ": some result elements live in other threads than their "
                           << "source; run --txl-assign-layouts on layout-free IR or insert a "
                           << "txl.relayout";
  };
  if (auto t = dyn_cast<TransOp>(op))
    return failed(mapTrans(t)) ? renameError(t.getSrc().getType(), t.getType()) : success();
  if (auto r = dyn_cast<ReshapeOp>(op))
    return failed(mapReshape(r)) ? renameError(r.getSrc().getType(), r.getType()) : success();
  if (auto j = dyn_cast<JoinOp>(op))
    return failed(mapJoin(j)) ? renameError(j.getLhs().getType(), j.getType()) : success();
  if (auto sp = dyn_cast<SplitOp>(op))
    return failed(mapSplit(sp)) ? renameError(sp.getSrc().getType(), sp.getOutLHS().getType())
                                : success();
  if (auto rl = dyn_cast<RelayoutOp>(op)) {
    auto src = layoutOf(rl.getSrc().getType()), dst = layoutOf(rl.getType());
    if (failed(src) || failed(dst))
      return success(); // reported as a tile without layout
    Type elt = rl.getType().getElementType();
    switch (src->classifyConversionTo(*dst)) {
    case LinearLayout::Conversion::NoOp:
    case LinearLayout::Conversion::RegPermutation:
      return success();
    case LinearLayout::Conversion::WarpShuffle:
      if (!memoryBits(elt))
        return op->emitError() << "'txl.relayout' by warp shuffles of " << elt
                               << " elements is not supported (8-, 16-, 32- and 64-bit "
                               << "elements, i1 and pointers are)";
      return success();
    case LinearLayout::Conversion::SharedMemory:
      if (!rl.getScratch())
        return op->emitError() << "'txl.relayout' from " << layoutName(rl.getSrc().getType())
                               << " to " << layoutName(rl.getType())
                               << " needs a shared-memory round trip, but has no scratch "
                               << "(run --txl-allocate-scratch first)";
      if (!memoryBits(elt))
        return op->emitError() << "'txl.relayout' through shared memory of " << elt
                               << " elements is not supported";
      return success();
    }
    return success();
  }
  if (auto ap = dyn_cast<AddPtrOp>(op))
    return checkSameLayouts(op, {ap.getPtr(), ap.getOffset(), ap.getResult()},
                            "pointers and offsets");
  if (auto ld = dyn_cast<LoadOp>(op)) {
    if (!memoryBits(getElementTypeOrSelf(ld.getType())))
      return op->emitError() << "'txl.load' of " << getElementTypeOrSelf(ld.getType())
                             << " elements is not supported (8-, 16-, 32- and 64-bit "
                             << "elements, i1 and pointers are)";
    return checkSameLayouts(op, {ld.getPtr(), ld.getMask(), ld.getOther(), ld.getResult()},
                            "pointers, mask, other and result");
  }
  if (auto st = dyn_cast<StoreOp>(op)) {
    if (!memoryBits(getElementTypeOrSelf(st.getValue().getType())))
      return op->emitError() << "'txl.store' of " << getElementTypeOrSelf(st.getValue().getType())
                             << " elements is not supported (8-, 16-, 32- and 64-bit "
                             << "elements, i1 and pointers are)";
    return checkSameLayouts(op, {st.getPtr(), st.getValue(), st.getMask()},
                            "pointers, values and mask");
  }
  if (auto rmw = dyn_cast<AtomicRMWOp>(op))
    return checkAtomic(op, rmw.getPtr(), {rmw.getValue(), rmw.getMask()}, rmw.getResult(),
                       rmw.getScratch());
  if (auto cas = dyn_cast<AtomicCASOp>(op))
    return checkAtomic(op, cas.getPtr(), {cas.getCmp(), cas.getValue()}, cas.getResult(),
                       cas.getScratch());
  if (auto wr = dyn_cast<WarpReduceOp>(op)) {
    SmallVector<Value> srcs(wr.getSrcs());
    if (isa<RankedTensorType>(srcs[0].getType()) && failed(checkSameLayouts(op, srcs, "operands")))
      return failure();
    for (Value src : srcs) {
      Type elt = getElementTypeOrSelf(src.getType());
      if (!elt.isIntOrFloat() || elt.getIntOrFloatBitWidth() > 64)
        return op->emitError() << "'txl.warp_reduce' across lanes of " << elt
                               << " values is not supported (integers and floats up to 64 bits "
                               << "are)";
    }
    return success();
  }
  if (auto red = dyn_cast<ReduceOp>(op)) {
    std::string why;
    auto plan = planReduce(red, why);
    if (failed(plan))
      return op->emitError() << "'txl.reduce' along axis " << red.getAxis() << ": " << why;
    if (!plan->laneMasks.empty() || !plan->warpBits.empty())
      for (Value src : red.getSrcs()) {
        Type elt = getElementTypeOrSelf(src.getType());
        if (!elt.isIntOrFloat() || elt.getIntOrFloatBitWidth() > 64)
          return op->emitError() << "'txl.reduce' across lanes of " << elt
                                 << " elements is not supported (integers and floats up to "
                                 << "64 bits are)";
      }
    return success();
  }
  // Scans, sorts and flips: each axis bit's register, lane or warp partner.
  auto checkAxisSteps = [&](StringRef name, ValueRange srcs, unsigned axis,
                            Value scratch) -> LogicalResult {
    std::string why;
    auto plan = planAxisSteps(srcs, axis, scratch, why);
    if (failed(plan))
      return op->emitError() << "'" << name << "' along axis " << axis << ": " << why;
    if (llvm::any_of(*plan, [](ScanStep s) { return s.kind != ScanStep::Register; }))
      for (Value src : srcs) {
        Type elt = getElementTypeOrSelf(src.getType());
        if (!elt.isIntOrFloat() || elt.getIntOrFloatBitWidth() < 8 ||
            elt.getIntOrFloatBitWidth() > 64)
          return op->emitError() << "'" << name << "' across lanes of " << elt
                                 << " elements is not supported (integers and floats of 8 to "
                                 << "64 bits are)";
      }
    return success();
  };
  if (auto scan = dyn_cast<ScanOp>(op))
    return checkAxisSteps("txl.scan", scan.getSrcs(), scan.getAxis(), scan.getScratch());
  if (auto sort = dyn_cast<SortOp>(op))
    return checkAxisSteps("txl.sort", sort.getSrc(), sort.getAxis(), sort.getScratch());
  if (auto flip = dyn_cast<FlipOp>(op))
    return checkAxisSteps("txl.flip", flip.getSrc(), flip.getAxis(), flip.getScratch());
  return success();
}
