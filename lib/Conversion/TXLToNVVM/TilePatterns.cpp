//===- TilePatterns.cpp - register tiles to per-thread registers ----------===//
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
//===----------------------------------------------------------------------===//

#include "TilePatterns.h"

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
using Coord = LinearLayout::Coord;

/// On a txl.atomic_rmw / txl.atomic_cas of a scalar pointer: the warps of the
/// group one thread of which updates it (txl-allocate-scratch sets it; 4
/// without).
static constexpr StringLiteral kAtomicGroupWarpsAttr = "txl.group_warps";

//===----------------------------------------------------------------------===//
// Layout analysis (shared by checkTileOp and the patterns)
//===----------------------------------------------------------------------===//

namespace {

FailureOr<LinearLayout> layoutOf(Type type, std::string *why = nullptr) {
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

/// How a txl.reduce is carried out by one thread.
struct ReducePlan {
  /// Source registers combined in the thread: one group per distinct
  /// coordinate outside the axis, in register order.
  SmallVector<SmallVector<int64_t>> groups;
  /// XOR lane masks of the butterfly steps (lane bits moving along the axis).
  SmallVector<int64_t> laneMasks;
  /// For each result register, the group holding its value (empty when the
  /// result is a scalar: then there is one group).
  SmallVector<int64_t> resultGroups;
  /// Warp bits that move along the axis: their warps' partial results are
  /// combined through shared memory (the op's scratch).
  SmallVector<int64_t> warpBits;
};

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

/// One step of a txl.scan: the layout bit that moves the axis coordinate by
/// 2^k, for k = 0, 1, ... (see ScanLowering).
struct ScanStep {
  enum Kind { Register, Lane, Warp } kind;
  int64_t bit;
};

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

/// Which copies of a tile's elements an atomic updates: each element once.
/// A layout may hold an element in several registers of a thread (a zero
/// register basis) or in several threads (a zero lane or warp basis); the
/// copy whose duplicating bits are all zero does the update.
struct AtomicOwners {
  /// Per register: the register of this thread that updates its element.
  SmallVector<int64_t> canonical;
  /// threadIdx.x bits (lane bits 0-4, warp bits 5..) that only move to a
  /// copy of the same elements: a thread updates iff (tid & mask) == 0.
  uint32_t dupThreadMask = 0;
};

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

} // namespace

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
             ReduceOp, ScanOp, SortOp, FlipOp, TransOp, ReshapeOp, JoinOp, SplitOp, AtomicRMWOp,
             AtomicCASOp, PrintOp, AssertOp>(op);
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

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

namespace {

SmallVector<Value> unpack(OpBuilder &b, Location loc, Value tile) {
  auto type = cast<LLVM::LLVMStructType>(tile.getType());
  SmallVector<Value> regs;
  for (int64_t i = 0, e = type.getBody().size(); i < e; ++i)
    regs.push_back(LLVM::ExtractValueOp::create(b, loc, tile, ArrayRef<int64_t>{i}));
  return regs;
}

Value pack(OpBuilder &b, Location loc, Type structType, ArrayRef<Value> regs) {
  Value tile = LLVM::PoisonOp::create(b, loc, structType);
  for (auto [i, r] : llvm::enumerate(regs))
    tile = LLVM::InsertValueOp::create(b, loc, tile, r, ArrayRef<int64_t>{int64_t(i)});
  return tile;
}

Value intConst(OpBuilder &b, Location loc, Type type, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, v));
}

/// The part of coordinate `dim` that comes from the thread's lane and warp
/// bits. Bit k of the lane (tid % 32) is bit k of tid; bit k of the warp
/// within the layout ((tid / 32) % 2^#warp-bases) is bit 5 + k of tid. Each
/// set bit XORs its basis in; bases are compile-time constants. Runs of tid
/// bits whose bases double from one bit to the next (the common case: lanes
/// then warps walking one dimension) are extracted together as
/// `((tid >> first) & mask) * basis`, since their terms occupy distinct bits.
Value threadCoordinate(OpBuilder &b, Location loc, const LinearLayout &layout, unsigned dim) {
  Type i32 = b.getI32Type();
  // Basis value of each tid bit along `dim`.
  SmallVector<int64_t> bitValue(5, 0);
  for (auto [k, basis] : llvm::enumerate(layout.getLaneBases()))
    if (k < 5)
      bitValue[k] = basis[dim];
  for (const Coord &basis : layout.getWarpBases())
    bitValue.push_back(basis[dim]);

  Value tid = getThreadId(b, loc);
  Value acc;
  for (size_t bit = 0; bit < bitValue.size();) {
    int64_t value = bitValue[bit];
    if (value == 0) {
      ++bit;
      continue;
    }
    size_t len = 1;
    if (llvm::isPowerOf2_64(value))
      while (bit + len < bitValue.size() && bitValue[bit + len] == value << len)
        ++len;
    Value field = bit ? Value(LLVM::LShrOp::create(b, loc, tid, intConst(b, loc, i32, bit))) : tid;
    field = LLVM::AndOp::create(b, loc, field, intConst(b, loc, i32, (int64_t(1) << len) - 1));
    if (value != 1)
      field = LLVM::MulOp::create(b, loc, field, intConst(b, loc, i32, value));
    acc = acc ? Value(LLVM::XOrOp::create(b, loc, acc, field)) : field;
    bit += len;
  }
  return acc ? acc : intConst(b, loc, i32, 0);
}

/// `v` moved into the integer register inline PTX passes it in: floats and
/// pointers by their bits, i1 and bytes widened to 16 bits (PTX has no 8-bit
/// registers).
Value toAsmInt(OpBuilder &b, Location loc, Value v, unsigned memBits, unsigned regBits) {
  Type memInt = b.getIntegerType(memBits);
  Type type = v.getType();
  if (isa<LLVM::LLVMPointerType>(type))
    v = LLVM::PtrToIntOp::create(b, loc, memInt, v);
  else if (isa<FloatType>(type))
    v = LLVM::BitcastOp::create(b, loc, memInt, v);
  else if (type.getIntOrFloatBitWidth() < memBits)
    v = LLVM::ZExtOp::create(b, loc, memInt, v);
  if (memBits < regBits)
    v = LLVM::ZExtOp::create(b, loc, b.getIntegerType(regBits), v);
  return v;
}

Value fromAsmInt(OpBuilder &b, Location loc, Value v, Type eltType, unsigned memBits) {
  if (isa<LLVM::LLVMPointerType>(eltType))
    return LLVM::IntToPtrOp::create(b, loc, eltType, v);
  if (auto f = dyn_cast<FloatType>(eltType)) {
    if (v.getType().getIntOrFloatBitWidth() > memBits)
      v = LLVM::TruncOp::create(b, loc, b.getIntegerType(memBits), v);
    return LLVM::BitcastOp::create(b, loc, f, v);
  }
  if (v.getType().getIntOrFloatBitWidth() > eltType.getIntOrFloatBitWidth())
    v = LLVM::TruncOp::create(b, loc, eltType, v);
  return v;
}

/// The address operand of an inline ld/st and its state space: global
/// pointers as `.global`, everything else through a generic address.
std::pair<Value, StringRef> asmAddress(OpBuilder &b, Location loc, Value ptr) {
  auto type = cast<LLVM::LLVMPointerType>(ptr.getType());
  if (type.getAddressSpace() == 1)
    return {ptr, ".global"};
  if (type.getAddressSpace() != 0)
    ptr = LLVM::AddrSpaceCastOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()), ptr);
  return {ptr, ""};
}

StringRef loadCacheSuffix(CacheModifier c) {
  switch (c) {
  case CacheModifier::ca:
    return ".ca";
  case CacheModifier::cg:
    return ".cg";
  case CacheModifier::cs:
    return ".cs";
  case CacheModifier::cv:
    return ".cv";
  default: // none; wb and wt are store-only hints
    return "";
  }
}

StringRef storeCacheSuffix(CacheModifier c) {
  switch (c) {
  case CacheModifier::wb:
    return ".wb";
  case CacheModifier::cg:
    return ".cg";
  case CacheModifier::cs:
    return ".cs";
  case CacheModifier::wt:
    return ".wt";
  default: // none; ca and cv are load-only hints
    return "";
  }
}

/// PTX register constraint for a value of `regBits`.
char constraintFor(unsigned regBits) { return regBits == 16 ? 'h' : regBits == 32 ? 'r' : 'l'; }

/// One element load. Unmasked loads without a cache hint are plain
/// llvm.loads; otherwise inline PTX `@p ld` with the result tied to `other`,
/// so a masked-off element never reads memory (it may be out of bounds) and
/// keeps `other`. The asm is marked as having side effects: it has no memory
/// operands, so LLVM would otherwise move it across stores.
Value emitLoad(OpBuilder &b, Location loc, LoadOp op, Value ptr, Value mask, Value other,
               Type eltType) {
  unsigned memBits = memoryBits(eltType);
  StringRef cache = op.getIsVolatile() ? "" : loadCacheSuffix(op.getCache());
  if (!mask && cache.empty())
    return LLVM::LoadOp::create(b, loc, eltType, ptr, memBits / 8, op.getIsVolatile());
  unsigned regBits = std::max(memBits, 16u);
  Type regType = b.getIntegerType(regBits);
  Value init = other ? toAsmInt(b, loc, other, memBits, regBits) : intConst(b, loc, regType, 0);
  Value pred = mask ? mask : intConst(b, loc, b.getI1Type(), 1);
  auto [addr, space] = asmAddress(b, loc, ptr);
  std::string asmText;
  llvm::raw_string_ostream(asmText) << "@$2 ld" << (op.getIsVolatile() ? ".volatile" : "") << space
                                    << cache << ".b" << memBits << " $0, [$1];";
  std::string constraints = std::string("=") + constraintFor(regBits) + ",l,b,0";
  auto asmOp = createInlinePtx(b, loc, regType, ValueRange{addr, pred, init}, asmText, constraints);
  return fromAsmInt(b, loc, asmOp.getResult(0), eltType, memBits);
}

/// The type a 32-bit word of narrow elements is viewed as: <2 x bf16>,
/// <2 x f16>, <2 x i16>, <4 x i8> (i1 travels as i8). Words are built and
/// taken apart through this vector (insertelement / extractelement + one
/// bitcast), as Triton does: LLVM's SLP vectorizer then sees each word's
/// elements as one vector, packs the elementwise math on them into bf16x2 /
/// f16x2 instructions and keeps each word's chain together, instead of the
/// shift/or/trunc bit surgery it cannot see through (which left every op of a
/// tile in its own block of N scalar instructions, all N values live: 87
/// registers against Triton's 32 in a bf16 row kernel).
VectorType wordVectorType(Type eltType, unsigned memBits) {
  Type lane = isa<BFloat16Type, Float16Type>(eltType) && memBits == 16
                  ? eltType
                  : Type(IntegerType::get(eltType.getContext(), memBits));
  return VectorType::get({int64_t(32 / memBits)}, lane);
}

/// The raw bits of `values` (memBits each, 8 to 64, together 2 to 16 bytes)
/// as PTX operand words: b32 words, or one b16 word for 2 bytes.
SmallVector<Value> packWords(OpBuilder &b, Location loc, ArrayRef<Value> values, unsigned memBits) {
  unsigned totalBits = memBits * values.size();
  unsigned wordBits = totalBits < 32 ? 16 : 32;
  Type word = b.getIntegerType(wordBits);
  SmallVector<Value> words;
  if (wordBits == 32 && memBits < 32) {
    // Narrow elements: each word a vector of them, bitcast to i32.
    VectorType vecType = wordVectorType(values.front().getType(), memBits);
    unsigned perWord = 32 / memBits;
    for (unsigned w = 0; w * perWord < values.size(); ++w) {
      Value vec = LLVM::PoisonOp::create(b, loc, vecType);
      for (unsigned k = 0; k < perWord; ++k) {
        Value v = values[w * perWord + k];
        if (v.getType() != vecType.getElementType())
          v = toAsmInt(b, loc, v, memBits, memBits);
        vec = LLVM::InsertElementOp::create(b, loc, vec, v, intConst(b, loc, b.getI32Type(), k));
      }
      words.push_back(LLVM::BitcastOp::create(b, loc, word, vec));
    }
    return words;
  }
  for (auto [i, v] : llvm::enumerate(values)) {
    Value bits = toAsmInt(b, loc, v, memBits, memBits);
    if (memBits == 64) { // two words, low first
      words.push_back(LLVM::TruncOp::create(b, loc, word, bits));
      Value hi = LLVM::LShrOp::create(b, loc, bits, intConst(b, loc, bits.getType(), 32));
      words.push_back(LLVM::TruncOp::create(b, loc, word, hi));
      continue;
    }
    unsigned perWord = wordBits / memBits, slot = i % perWord;
    Value w = memBits == wordBits ? bits : Value(LLVM::ZExtOp::create(b, loc, word, bits));
    if (slot)
      w = LLVM::ShlOp::create(b, loc, w, intConst(b, loc, word, slot * memBits));
    if (slot == 0)
      words.push_back(w);
    else
      words.back() = LLVM::OrOp::create(b, loc, words.back(), w);
  }
  return words;
}

/// The `count` elements of `eltType` that packWords packed into `words`.
SmallVector<Value> unpackWords(OpBuilder &b, Location loc, ArrayRef<Value> words, int64_t count,
                               Type eltType, unsigned memBits) {
  SmallVector<Value> out;
  Type memInt = b.getIntegerType(memBits);
  if (memBits < 32 && words[0].getType().getIntOrFloatBitWidth() == 32) {
    // Narrow elements: each word viewed as a vector of them (see packWords).
    VectorType vecType = wordVectorType(eltType, memBits);
    unsigned perWord = 32 / memBits;
    SmallVector<Value> vecs;
    for (Value w : words)
      vecs.push_back(LLVM::BitcastOp::create(b, loc, vecType, w));
    for (int64_t i = 0; i < count; ++i) {
      Value v = LLVM::ExtractElementOp::create(b, loc, vecs[i / perWord],
                                               intConst(b, loc, b.getI32Type(), i % perWord));
      out.push_back(v.getType() == eltType ? v : fromAsmInt(b, loc, v, eltType, memBits));
    }
    return out;
  }
  for (int64_t i = 0; i < count; ++i) {
    Value bits;
    if (memBits == 64) {
      Value lo = LLVM::ZExtOp::create(b, loc, memInt, words[2 * i]);
      Value hi = LLVM::ZExtOp::create(b, loc, memInt, words[2 * i + 1]);
      hi = LLVM::ShlOp::create(b, loc, hi, intConst(b, loc, memInt, 32));
      bits = LLVM::OrOp::create(b, loc, hi, lo);
    } else {
      unsigned wordBits = words[0].getType().getIntOrFloatBitWidth();
      unsigned perWord = wordBits / memBits, slot = i % perWord;
      bits = words[i / perWord];
      if (slot)
        bits = LLVM::LShrOp::create(b, loc, bits, intConst(b, loc, bits.getType(), slot * memBits));
      if (memBits < wordBits)
        bits = LLVM::TruncOp::create(b, loc, memInt, bits);
    }
    out.push_back(fromAsmInt(b, loc, bits, eltType, memBits));
  }
  return out;
}

/// `count` consecutive elements from `ptr` (aligned to their size) in one
/// access: an llvm vector load, or under a mask (one predicate for all) or a
/// cache hint inline PTX `@p ld.v<n>.b32` whose outputs start as `others`,
/// so masked-off lanes keep them.
SmallVector<Value> emitVectorLoad(OpBuilder &b, Location loc, LoadOp op, Value ptr, Value mask,
                                  ArrayRef<Value> others, Type eltType, int64_t count) {
  unsigned memBits = memoryBits(eltType);
  StringRef cache = loadCacheSuffix(op.getCache());
  if (!mask && cache.empty()) {
    Type lane = memBits < 32 ? wordVectorType(eltType, memBits).getElementType()
                             : Type(b.getIntegerType(memBits));
    auto vecType = VectorType::get({count}, lane);
    Value vec = LLVM::LoadOp::create(b, loc, vecType, ptr, memBits / 8 * count);
    SmallVector<Value> out;
    for (int64_t i = 0; i < count; ++i) {
      Value v = LLVM::ExtractElementOp::create(b, loc, vec, intConst(b, loc, b.getI32Type(), i));
      out.push_back(v.getType() == eltType ? v : fromAsmInt(b, loc, v, eltType, memBits));
    }
    return out;
  }
  SmallVector<Value> init;
  if (!others.empty() && others.front()) {
    init = packWords(b, loc, others, memBits);
  } else {
    unsigned wordBits = memBits * count < 32 ? 16 : 32;
    init.assign(std::max<int64_t>(1, memBits * count / wordBits),
                intConst(b, loc, b.getIntegerType(wordBits), 0));
  }
  int64_t n = init.size();
  unsigned wordBits = init.front().getType().getIntOrFloatBitWidth();
  Value pred = mask ? mask : intConst(b, loc, b.getI1Type(), 1);
  auto [addr, space] = asmAddress(b, loc, ptr);
  std::string asmText, constraints;
  llvm::raw_string_ostream os(asmText), cs(constraints);
  os << "@$" << n + 1 << " ld" << space << cache << (n > 1 ? ".v" + std::to_string(n) : "") << ".b"
     << wordBits << " ";
  os << (n > 1 ? "{" : "");
  for (int64_t i = 0; i < n; ++i) {
    os << (i ? ", " : "") << "$" << i;
    cs << (i ? "," : "") << "=" << constraintFor(wordBits);
  }
  os << (n > 1 ? "}" : "") << ", [$" << n << "];";
  cs << ",l,b";
  for (int64_t i = 0; i < n; ++i)
    cs << "," << i;
  SmallVector<Value> operands{addr, pred};
  operands.append(init.begin(), init.end());
  Type resultType = init.front().getType();
  if (n > 1)
    resultType = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                  SmallVector<Type>(n, init.front().getType()));
  auto asmOp = createInlinePtx(b, loc, resultType, operands, asmText, constraints);
  SmallVector<Value> words;
  if (n == 1)
    words.push_back(asmOp.getResult(0));
  else
    for (int64_t i = 0; i < n; ++i)
      words.push_back(LLVM::ExtractValueOp::create(b, loc, asmOp.getResult(0), i));
  return unpackWords(b, loc, words, count, eltType, memBits);
}

/// `values` (consecutive elements, aligned to their size) to `ptr` in one
/// access: an llvm vector store, or inline PTX `@p st.v<n>.b32`.
void emitVectorStore(OpBuilder &b, Location loc, StoreOp op, Value ptr, ArrayRef<Value> values,
                     Value mask) {
  unsigned memBits = memoryBits(values.front().getType());
  StringRef cache = storeCacheSuffix(op.getCache());
  if (!mask && cache.empty()) {
    Type lane = memBits < 32 ? wordVectorType(values.front().getType(), memBits).getElementType()
                             : Type(b.getIntegerType(memBits));
    auto vecType = VectorType::get({int64_t(values.size())}, lane);
    Value vec = LLVM::PoisonOp::create(b, loc, vecType);
    for (auto [i, v] : llvm::enumerate(values))
      vec = LLVM::InsertElementOp::create(
          b, loc, vec, v.getType() == lane ? v : toAsmInt(b, loc, v, memBits, memBits),
          intConst(b, loc, b.getI32Type(), i));
    LLVM::StoreOp::create(b, loc, vec, ptr, memBits / 8 * values.size());
    return;
  }
  SmallVector<Value> words = packWords(b, loc, values, memBits);
  int64_t n = words.size();
  unsigned wordBits = words.front().getType().getIntOrFloatBitWidth();
  Value pred = mask ? mask : intConst(b, loc, b.getI1Type(), 1);
  auto [addr, space] = asmAddress(b, loc, ptr);
  std::string asmText, constraints;
  llvm::raw_string_ostream os(asmText), cs(constraints);
  os << "@$" << n + 1 << " st" << space << cache << (n > 1 ? ".v" + std::to_string(n) : "") << ".b"
     << wordBits << " [$0], " << (n > 1 ? "{" : "");
  cs << "l";
  for (int64_t i = 0; i < n; ++i) {
    os << (i ? ", " : "") << "$" << i + 1;
    cs << "," << constraintFor(wordBits);
  }
  os << (n > 1 ? "}" : "") << ";";
  cs << ",b";
  SmallVector<Value> operands{addr};
  operands.append(words.begin(), words.end());
  operands.push_back(pred);
  createInlinePtx(b, loc, Type(), operands, asmText, constraints);
}

/// The vector width txl-vectorize-accesses proved for a load or store
/// through `ptrs` (1 without the attribute). The alignment proof is the
/// pass's; what the lowering relies on itself, that registers come in runs
/// of that many consecutive elements, is checked against the layout, so a
/// hand-written width the layout does not have falls back to one element.
int64_t vectorWidthOf(Operation *op, Value ptrs) {
  auto attr = op->getAttrOfType<IntegerAttr>(kVectorAttr);
  auto tile = dyn_cast<RankedTensorType>(ptrs.getType());
  if (!attr || attr.getInt() <= 1 || !tile || tile.getRank() == 0)
    return 1;
  auto layout = LinearLayout::get(tile.getShape(), tile.getEncoding());
  if (failed(layout) || registerRun(*layout, tile.getRank() - 1) % attr.getInt() != 0)
    return 1;
  return attr.getInt();
}

/// One element store: llvm.store, or inline PTX `@p st` under a mask.
void emitStore(OpBuilder &b, Location loc, StoreOp op, Value ptr, Value value, Value mask) {
  unsigned memBits = memoryBits(value.getType());
  StringRef cache = storeCacheSuffix(op.getCache());
  if (!mask && cache.empty()) {
    LLVM::StoreOp::create(b, loc, value, ptr, memBits / 8);
    return;
  }
  unsigned regBits = std::max(memBits, 16u);
  Value bits = toAsmInt(b, loc, value, memBits, regBits);
  Value pred = mask ? mask : intConst(b, loc, b.getI1Type(), 1);
  auto [addr, space] = asmAddress(b, loc, ptr);
  std::string asmText;
  llvm::raw_string_ostream(asmText)
      << "@$2 st" << space << cache << ".b" << memBits << " [$0], $1;";
  std::string constraints = std::string("l,") + constraintFor(regBits) + ",b";
  createInlinePtx(b, loc, Type(), ValueRange{addr, bits, pred}, asmText, constraints);
}

/// `v` from another lane of the warp: shfl.sync `kind` with `laneArg` (the
/// XOR mask for bfly, the source lane for idx). shfl moves 32 bits: narrower
/// values travel widened, 64-bit ones (and pointers) in halves.
Value shuffle(OpBuilder &b, Location loc, Value v, Value laneArg, NVVM::ShflKind kind) {
  Type i32 = b.getI32Type();
  auto shfl = [&](Value x) -> Value {
    return NVVM::ShflOp::create(b, loc, x.getType(), intConst(b, loc, i32, -1), x, laneArg,
                                intConst(b, loc, i32, 0x1f), kind, UnitAttr());
  };
  Type type = v.getType();
  if (type.isF32() || type.isInteger(32))
    return shfl(v);
  bool isPtr = isa<LLVM::LLVMPointerType>(type);
  unsigned bits = isPtr ? 64 : type.getIntOrFloatBitWidth();
  Type intType = b.getIntegerType(bits);
  Value x = v;
  if (isPtr)
    x = LLVM::PtrToIntOp::create(b, loc, intType, v);
  else if (isa<FloatType>(type))
    x = LLVM::BitcastOp::create(b, loc, intType, v);
  if (bits < 32) {
    x = LLVM::TruncOp::create(b, loc, intType, shfl(LLVM::ZExtOp::create(b, loc, i32, x)));
  } else {
    Value lo = shfl(LLVM::TruncOp::create(b, loc, i32, x));
    Value hi = shfl(LLVM::TruncOp::create(
        b, loc, i32, LLVM::LShrOp::create(b, loc, x, intConst(b, loc, intType, 32))));
    Value wideHi = LLVM::ShlOp::create(b, loc, LLVM::ZExtOp::create(b, loc, intType, hi),
                                       intConst(b, loc, intType, 32));
    x = LLVM::OrOp::create(b, loc, wideHi, LLVM::ZExtOp::create(b, loc, intType, lo));
  }
  if (isPtr)
    return LLVM::IntToPtrOp::create(b, loc, type, x);
  return isa<FloatType>(type) ? Value(LLVM::BitcastOp::create(b, loc, type, x)) : x;
}

/// `v` from the lane `lane ^ mask` (shfl.sync.bfly).
Value shuffleXor(OpBuilder &b, Location loc, Value v, int64_t mask) {
  return shuffle(b, loc, v, intConst(b, loc, b.getI32Type(), mask), NVVM::ShflKind::bfly);
}

/// The lane of this thread (threadIdx.x % 32).
Value laneId(OpBuilder &b, Location loc) {
  return LLVM::AndOp::create(b, loc, getThreadId(b, loc), intConst(b, loc, b.getI32Type(), 31));
}

/// values[table[lane]] for this thread's lane, where `table` gives a value
/// index per lane (-1: any). A select per extra candidate, on the bit of a
/// 32-bit lane mask: ((mask >> lane) & 1).
Value selectByLane(OpBuilder &b, Location loc, ArrayRef<int64_t> table, ArrayRef<Value> values,
                   Value lane) {
  SmallVector<int64_t> candidates;
  for (int64_t t : table)
    if (t >= 0 && !llvm::is_contained(candidates, t))
      candidates.push_back(t);
  Type i32 = b.getI32Type();
  Value result = values[candidates.front()];
  for (int64_t c : ArrayRef<int64_t>(candidates).drop_front()) {
    uint32_t mask = 0;
    for (auto [l, t] : llvm::enumerate(table))
      if (t == c)
        mask |= uint32_t(1) << l;
    Value bit = LLVM::LShrOp::create(b, loc, intConst(b, loc, i32, int32_t(mask)), lane);
    bit = LLVM::AndOp::create(b, loc, bit, intConst(b, loc, i32, 1));
    Value pred =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, bit, intConst(b, loc, i32, 0));
    result = LLVM::SelectOp::create(b, loc, pred, values[c], result);
  }
  return result;
}

/// Synchronizes the `warps` warps of one layout group (the warps a layout
/// spans; --txl-allocate-scratch checked that one of these fits): one warp
/// with bar.warp.sync; a group no wider than the executing role (a
/// warpgroup, or the CTA of a num_warps = 8 kernel) with the role's named
/// barrier (other warpgroups may run other code, and a group narrower than
/// its role runs replicated in each of its warpgroups); a wider one with
/// barrier 0. All three order the group's shared-memory accesses.
void groupBarrier(OpBuilder &b, Location loc, int64_t warps) {
  if (warps == 1) {
    NVVM::SyncWarpOp::create(b, loc, intConst(b, loc, b.getI32Type(), -1));
    return;
  }
  int64_t roleWarps = getRoleWarps(b.getInsertionBlock()->getParentOp());
  if (warps <= roleWarps)
    syncRole(b, loc, roleWarps);
  else
    NVVM::Barrier0Op::create(b, loc);
}

/// Stores `values` (1, 2, 4, ... elements) at `addr` as one access of
/// their raw bits (`memBits` each).
void storeBits(OpBuilder &b, Location loc, Value addr, ArrayRef<Value> values, unsigned memBits) {
  SmallVector<Value> bits;
  for (Value v : values)
    bits.push_back(toAsmInt(b, loc, v, memBits, memBits));
  unsigned bytes = memBits / 8 * values.size();
  if (bits.size() == 1) {
    LLVM::StoreOp::create(b, loc, bits.front(), addr, bytes);
    return;
  }
  auto vecType = VectorType::get({int64_t(bits.size())}, b.getIntegerType(memBits));
  Value vec = LLVM::PoisonOp::create(b, loc, vecType);
  for (auto [i, v] : llvm::enumerate(bits))
    vec = LLVM::InsertElementOp::create(b, loc, vec, v, intConst(b, loc, b.getI32Type(), i));
  LLVM::StoreOp::create(b, loc, vec, addr, bytes);
}

/// Loads `count` elements of `eltType` stored as raw bits by storeBits.
SmallVector<Value> loadBits(OpBuilder &b, Location loc, Value addr, int64_t count, Type eltType,
                            unsigned memBits) {
  Type intType = b.getIntegerType(memBits);
  unsigned bytes = memBits / 8 * count;
  SmallVector<Value> out;
  if (count == 1) {
    Value v = LLVM::LoadOp::create(b, loc, intType, addr, bytes);
    out.push_back(fromAsmInt(b, loc, v, eltType, memBits));
    return out;
  }
  auto vecType = VectorType::get({count}, intType);
  Value vec = LLVM::LoadOp::create(b, loc, vecType, addr, bytes);
  for (int64_t i = 0; i < count; ++i) {
    Value v = LLVM::ExtractElementOp::create(b, loc, vec, intConst(b, loc, b.getI32Type(), i));
    out.push_back(fromAsmInt(b, loc, v, eltType, memBits));
  }
  return out;
}

/// Element offset (i32) of `coords` in a row-major buffer of `shape` whose
/// rows (last dimension) hold `rowElems` elements, padding included.
Value rowMajorOffset(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, int64_t rowElems,
                     ArrayRef<Value> coords) {
  Type i32 = b.getI32Type();
  Value row;
  for (size_t d = 0; d + 1 < shape.size(); ++d) {
    row = row ? Value(LLVM::MulOp::create(b, loc, row, intConst(b, loc, i32, shape[d]))) : row;
    row = row ? Value(LLVM::AddOp::create(b, loc, row, coords[d])) : coords[d];
  }
  if (!row)
    return coords.back();
  Value base = LLVM::MulOp::create(b, loc, row, intConst(b, loc, i32, rowElems));
  return LLVM::AddOp::create(b, loc, base, coords.back());
}

/// The elements of a register run that one access moves: the layout's
/// contiguous registers, at most 16 bytes, and no more than keeps every
/// access aligned in a buffer of `rowElems`-element rows and `stageBytes`.
int64_t accessWidth(const LinearLayout &layout, unsigned memBits, int64_t rowElems,
                    int64_t stageBytes) {
  int64_t bytes = memBits / 8;
  int64_t vec = std::min<int64_t>(layout.getContiguousRegs(layout.getShape().size() - 1),
                                  std::max<int64_t>(1, 16 / bytes));
  while (vec > 1 && (rowElems % vec != 0 || stageBytes % (vec * bytes) != 0))
    vec /= 2;
  return vec;
}

/// Moves this thread's registers `regs` of layout `src` to layout `dst`
/// through the scratch view `base` (row-major, rows of `rowElems`): every
/// thread stores its registers, the group syncs, every thread loads its new
/// ones. A first barrier makes sure the group finished reading the scratch
/// before it is written again (a loop, or another buffer sharing bytes).
SmallVector<Value> relayoutThroughShared(OpBuilder &b, Location loc, const LinearLayout &src,
                                         const LinearLayout &dst, ArrayRef<Value> regs, Value base,
                                         SmemType view, Type eltType) {
  unsigned memBits = memoryBits(eltType);
  int64_t bytes = memBits / 8;
  ArrayRef<int64_t> shape = src.getShape();
  int64_t rowElems = view.getShape().back();
  int64_t stageBytes = view.getStageBytes();
  unsigned rank = shape.size();
  int64_t warps = std::max(src.getNumWarps(), dst.getNumWarps());
  auto address = [&](const ThreadCoords &tc, int64_t reg) {
    SmallVector<Value> coords;
    for (unsigned d = 0; d < rank; ++d)
      coords.push_back(tc.get(b, loc, reg, d));
    Value offset = rowMajorOffset(b, loc, shape, rowElems, coords);
    Value byteOffset = LLVM::MulOp::create(b, loc, offset, intConst(b, loc, b.getI32Type(), bytes));
    return addBytes(b, loc, base, byteOffset);
  };

  groupBarrier(b, loc, warps);
  ThreadCoords from(b, loc, src);
  int64_t inVec = accessWidth(src, memBits, rowElems, stageBytes);
  for (int64_t r = 0; r < src.getNumRegs(); r += inVec)
    storeBits(b, loc, address(from, r), regs.slice(r, inVec), memBits);
  groupBarrier(b, loc, warps);
  ThreadCoords to(b, loc, dst);
  int64_t outVec = accessWidth(dst, memBits, rowElems, stageBytes);
  SmallVector<Value> out;
  for (int64_t r = 0; r < dst.getNumRegs(); r += outVec)
    llvm::append_range(out, loadBits(b, loc, address(to, r), outVec, eltType, memBits));
  return out;
}

/// Moves this thread's registers `regs` of layout `src` to `dst` with warp
/// shuffles (src.getWarpShuffleTo(dst) succeeded). For destination register
/// r, lane l needs register s(r, l) of lane t(r, l) (WarpShuffle::source).
/// One shfl.sync.idx per register: every lane reads lane t(r, l), and every
/// lane sends the register its readers want (the same for all of them, as
/// getWarpShuffleTo checked), chosen by its own lane (selectByLane) when
/// that depends on the lane. A register every lane finds in itself needs no
/// shuffle.
SmallVector<Value> relayoutByShuffles(OpBuilder &b, Location loc, const LinearLayout &src,
                                      const LinearLayout &dst, ArrayRef<Value> regs) {
  LinearLayout::WarpShuffle plan = *src.getWarpShuffleTo(dst);
  int64_t numLanes = dst.getNumLanes();
  Type i32 = b.getI32Type();
  Value lane = laneId(b, loc);
  // The source lane is linear in the destination lane: t(r, l) = t(r, 0) ^ T(l).
  Value laneTerm;
  bool identity = true;
  for (auto [k, t] : llvm::enumerate(plan.laneToLane))
    identity &= t == (int64_t(1) << k);
  if (identity) {
    laneTerm = lane;
  } else {
    laneTerm = intConst(b, loc, i32, 0);
    for (auto [k, t] : llvm::enumerate(plan.laneToLane)) {
      if (t == 0)
        continue;
      Value bit = LLVM::LShrOp::create(b, loc, lane, intConst(b, loc, i32, k));
      bit = LLVM::AndOp::create(b, loc, bit, intConst(b, loc, i32, 1));
      laneTerm = LLVM::XOrOp::create(b, loc, laneTerm,
                                     LLVM::MulOp::create(b, loc, bit, intConst(b, loc, i32, t)));
    }
  }

  SmallVector<Value> out;
  for (int64_t r = 0; r < dst.getNumRegs(); ++r) {
    // send[t]: the register lane t sends (-1: nobody reads lane t).
    SmallVector<int64_t> send(numLanes, -1), own(numLanes);
    bool local = true;
    for (int64_t l = 0; l < numLanes; ++l) {
      auto [sr, sl] = plan.source(r, l);
      send[sl] = sr;
      own[l] = sr;
      local &= sl == l;
    }
    if (local) { // in this thread, in a register that may depend on the lane
      out.push_back(selectByLane(b, loc, own, regs, lane));
      continue;
    }
    Value from = laneTerm;
    if (int64_t base = plan.source(r, 0).second)
      from = LLVM::XOrOp::create(b, loc, laneTerm, intConst(b, loc, i32, base));
    Value value = selectByLane(b, loc, send, regs, lane);
    out.push_back(shuffle(b, loc, value, from, NVVM::ShflKind::idx));
  }
  return out;
}

/// Adds `v` (i32) times `stride` to `acc` (null: zero).
Value addScaled(OpBuilder &b, Location loc, Value acc, Value v, int64_t stride) {
  Type i32 = b.getI32Type();
  Value term =
      stride == 1 ? v : Value(LLVM::MulOp::create(b, loc, v, intConst(b, loc, i32, stride)));
  return acc ? Value(LLVM::AddOp::create(b, loc, acc, term)) : term;
}

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
  using OpConversionPattern::OpConversionPattern;
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

/// The partial results of the warps that split a reduction's axis, combined
/// through the op's scratch: each warp's threads store their groups'
/// partials at [partial index of the warp][output element], the layout
/// group syncs, and every thread combines, in partial order (so every copy
/// of an output agrees), the partials of the groups it returns. Operands
/// have their own regions (getReduceScratchOffset); a first barrier keeps a
/// previous use of the scratch from being overwritten early.
template <typename Combine>
void combineAcrossWarps(OpBuilder &b, Location loc, ReduceOp op, const ReducePlan &plan, Value base,
                        SmallVector<SmallVector<Value>> &groupValues, Combine &&combine) {
  auto srcType = cast<RankedTensorType>(op.getSrcs()[0].getType());
  LinearLayout src = *layoutOf(srcType);
  unsigned axis = op.getAxis();
  ArrayRef<int64_t> shape = srcType.getShape();
  Type i32 = b.getI32Type();
  size_t n = op.getSrcs().size();
  int64_t partials = int64_t(1) << plan.warpBits.size();
  int64_t outputs = 1;
  for (auto [d, size] : llvm::enumerate(shape))
    if (d != axis)
      outputs *= size;
  SmallVector<int64_t> bytes;
  SmallVector<unsigned> bits;
  for (Value s : op.getSrcs()) {
    bits.push_back(memoryBits(getElementTypeOrSelf(s.getType())));
    bytes.push_back(bits.back() / 8);
  }

  // This warp's partial index: its warp bits along the axis, packed.
  Value warp = LLVM::LShrOp::create(b, loc, getThreadId(b, loc), intConst(b, loc, i32, 5));
  Value part = intConst(b, loc, i32, 0);
  for (auto [j, k] : llvm::enumerate(plan.warpBits)) {
    Value bit = LLVM::LShrOp::create(b, loc, warp, intConst(b, loc, i32, k));
    bit = LLVM::AndOp::create(b, loc, bit, intConst(b, loc, i32, 1));
    part = LLVM::OrOp::create(b, loc, part,
                              LLVM::ShlOp::create(b, loc, bit, intConst(b, loc, i32, j)));
  }
  // Output element (row-major over the other dimensions) of each group.
  ThreadCoords tc(b, loc, src);
  auto outputIndex = [&](int64_t g) {
    Value index;
    int64_t stride = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      if (d == axis)
        continue;
      Value c = tc.get(b, loc, plan.groups[g].front(), d);
      index =
          index ? Value(LLVM::AddOp::create(
                      b, loc, index, LLVM::MulOp::create(b, loc, c, intConst(b, loc, i32, stride))))
                : Value(LLVM::MulOp::create(b, loc, c, intConst(b, loc, i32, stride)));
      stride *= shape[d];
    }
    return index ? index : intConst(b, loc, i32, 0);
  };
  auto address = [&](size_t i, Value partIndex, Value output) {
    Value elem = addScaled(b, loc, output, partIndex, outputs);
    Value offset = LLVM::MulOp::create(b, loc, elem, intConst(b, loc, i32, bytes[i]));
    Value region = addBytes(b, loc, base, getReduceScratchOffset(bytes, i, partials, outputs));
    return addBytes(b, loc, region, offset);
  };

  int64_t warps = src.getNumWarps();
  groupBarrier(b, loc, warps);
  SmallVector<Value> outputOf(plan.groups.size());
  for (size_t g = 0; g < plan.groups.size(); ++g) {
    outputOf[g] = outputIndex(g);
    for (size_t i = 0; i < n; ++i)
      storeBits(b, loc, address(i, part, outputOf[g]), groupValues[g][i], bits[i]);
  }
  groupBarrier(b, loc, warps);
  // The groups the results use (a scalar result uses the one group).
  SmallVector<int64_t> used(plan.resultGroups);
  if (used.empty())
    used.push_back(0);
  llvm::sort(used);
  used.erase(llvm::unique(used), used.end());
  for (int64_t g : used) {
    SmallVector<Value> acc;
    for (int64_t p = 0; p < partials; ++p) {
      SmallVector<Value> cur;
      for (size_t i = 0; i < n; ++i) {
        Type elt = groupValues[g][i].getType();
        cur.push_back(
            loadBits(b, loc, address(i, intConst(b, loc, i32, p), outputOf[g]), 1, elt, bits[i])
                .front());
      }
      acc = p == 0 ? cur : combine(acc, cur);
    }
    groupValues[g] = acc;
  }
}

/// reduce: combine in the thread, then across lanes (see planReduce). The
/// combiner region is cloned for every combine step, its block arguments
/// mapped to the running and the new values.
/// One application of a reduce/scan combiner region: its body cloned at the
/// insertion point with the block arguments bound to `acc` (the earlier
/// values) and `cur` (the later ones); returns the yielded values.
SmallVector<Value> applyCombiner(OpBuilder &b, Region &region, ArrayRef<Value> acc,
                                 ArrayRef<Value> cur) {
  Block &body = region.front();
  size_t n = acc.size();
  IRMapping map;
  for (size_t i = 0; i < n; ++i) {
    map.map(body.getArgument(i), acc[i]);
    map.map(body.getArgument(n + i), cur[i]);
  }
  for (Operation &o : body.without_terminator())
    b.clone(o, map);
  SmallVector<Value> out;
  for (Value v : cast<ReduceReturnOp>(body.getTerminator()).getResults())
    out.push_back(map.lookupOrDefault(v));
  return out;
}

struct ReduceLowering : OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    std::string why;
    auto plan = planReduce(op, why);
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, why);
    Location loc = op.getLoc();
    size_t n = op.getSrcs().size();
    auto combine = [&](ArrayRef<Value> acc, ArrayRef<Value> cur) {
      return applyCombiner(rewriter, op.getCombineOp(), acc, cur);
    };

    SmallVector<SmallVector<Value>> regs;
    for (Value src : adaptor.getSrcs())
      regs.push_back(unpack(rewriter, loc, src));
    // groupValues[g][i]: the reduced value of group g for operand i.
    SmallVector<SmallVector<Value>> groupValues;
    for (ArrayRef<int64_t> group : plan->groups) {
      auto at = [&](int64_t reg) {
        SmallVector<Value> vals;
        for (size_t i = 0; i < n; ++i)
          vals.push_back(regs[i][reg]);
        return vals;
      };
      SmallVector<Value> acc = at(group.front());
      for (int64_t reg : group.drop_front())
        acc = combine(acc, at(reg));
      for (int64_t mask : plan->laneMasks) {
        SmallVector<Value> other;
        for (Value v : acc)
          other.push_back(shuffleXor(rewriter, loc, v, mask));
        acc = combine(acc, other);
      }
      groupValues.push_back(acc);
    }
    if (!plan->warpBits.empty())
      combineAcrossWarps(rewriter, loc, op, *plan, adaptor.getScratch(), groupValues, combine);

    SmallVector<Value> results;
    for (size_t i = 0; i < n; ++i) {
      if (plan->resultGroups.empty()) { // rank-1 source: a scalar
        results.push_back(groupValues.front()[i]);
        continue;
      }
      SmallVector<Value> resRegs;
      for (int64_t g : plan->resultGroups)
        resRegs.push_back(groupValues[g][i]);
      Type structType = getTypeConverter()->convertType(op.getResult(i).getType());
      if (!structType)
        return rewriter.notifyMatchFailure(op, "result type does not convert");
      results.push_back(pack(rewriter, loc, structType, resRegs));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// The partners of a scan, sort or flip's registers at each axis step: a
/// register's partner along bit k of the axis coordinate is another
/// register of the thread, the lane `lane ^ 2^bit` (shfl.sync.bfly), or the
/// element 2^k away in another warp (stored to and read back from the op's
/// scratch between barriers of the layout's warps). `upper(k, r)` says
/// whether register r's element has bit k set (known for register bits,
/// read off the thread index otherwise).
struct AxisExchange {
  ConversionPatternRewriter &rewriter;
  Location loc;
  RankedTensorType type;
  LinearLayout layout;
  ArrayRef<ScanStep> plan;
  Value scratch;
  unsigned axis;

  Value threadBit(int64_t k) {
    const ScanStep &step = plan[k];
    Type i32 = rewriter.getI32Type();
    Value index = getThreadId(rewriter, loc);
    index = LLVM::LShrOp::create(rewriter, loc, index,
                                 intConst(rewriter, loc, i32, step.kind == ScanStep::Lane ? 0 : 5));
    Value bit = LLVM::LShrOp::create(rewriter, loc, index, intConst(rewriter, loc, i32, step.bit));
    bit = LLVM::AndOp::create(rewriter, loc, bit, intConst(rewriter, loc, i32, 1));
    return LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ne, bit,
                                intConst(rewriter, loc, i32, 0));
  }

  /// Whether register r's element has bit k of the axis coordinate set: a
  /// constant i1 for register bits.
  Value upper(int64_t k, int64_t r) {
    if (plan[k].kind == ScanStep::Register)
      return LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                      rewriter.getBoolAttr((r >> plan[k].bit) & 1));
    return threadBit(k);
  }

  /// The partner values along bit k of registers `regs`, each register
  /// holding one value per operand (values[r][i]); operand i's warp
  /// exchanges use the i-th tile-sized region of the scratch.
  SmallVector<SmallVector<Value>> partners(int64_t k, ArrayRef<SmallVector<Value>> values,
                                           ArrayRef<int64_t> regs) {
    const ScanStep &step = plan[k];
    SmallVector<SmallVector<Value>> out(values.size());
    if (step.kind == ScanStep::Register) {
      for (int64_t r : regs)
        out[r] = values[r ^ (int64_t(1) << step.bit)];
      return out;
    }
    if (step.kind == ScanStep::Lane) {
      for (int64_t r : regs)
        for (Value v : values[r])
          out[r].push_back(shuffleXor(rewriter, loc, v, int64_t(1) << step.bit));
      return out;
    }
    // Warps: each register's element index (row-major; every dimension is a
    // power of two, so the partner's index differs in one bit).
    Type i32 = rewriter.getI32Type();
    SmallVector<int64_t> bytes, bits;
    for (Value v : values[regs.front()]) {
      bits.push_back(memoryBits(v.getType()));
      bytes.push_back(bits.back() / 8);
    }
    auto address = [&](size_t i, Value index) {
      Value region = addBytes(rewriter, loc, scratch,
                              getReduceScratchOffset(bytes, i, 1, type.getNumElements()));
      Value offset =
          LLVM::MulOp::create(rewriter, loc, index, intConst(rewriter, loc, i32, bytes[i]));
      return addBytes(rewriter, loc, region, offset);
    };
    ThreadCoords coords(rewriter, loc, layout);
    int64_t axisStride = 1;
    for (int64_t d = type.getRank() - 1; d > int64_t(axis); --d)
      axisStride *= type.getShape()[d];
    DenseMap<int64_t, Value> index;
    for (int64_t r : regs) {
      Value idx;
      int64_t stride = 1;
      for (size_t d = type.getRank(); d-- > 0;) {
        idx = addScaled(rewriter, loc, idx, coords.get(rewriter, loc, r, d), stride);
        stride *= type.getShape()[d];
      }
      index[r] = idx;
    }
    int64_t warps = layout.getNumWarps();
    groupBarrier(rewriter, loc, warps); // the previous step's reads are done
    for (int64_t r : regs)
      for (auto [i, v] : llvm::enumerate(values[r]))
        storeBits(rewriter, loc, address(i, index[r]), v, bits[i]);
    groupBarrier(rewriter, loc, warps);
    Value flip = intConst(rewriter, loc, i32, axisStride << k);
    for (int64_t r : regs) {
      Value partner = LLVM::XOrOp::create(rewriter, loc, index[r], flip);
      for (auto [i, v] : llvm::enumerate(values[r]))
        out[r].push_back(
            loadBits(rewriter, loc, address(i, partner), 1, v.getType(), bits[i]).front());
    }
    return out;
  }

  /// One operand, every register.
  SmallVector<Value> partners(int64_t k, ArrayRef<Value> values) {
    SmallVector<SmallVector<Value>> wrapped;
    for (Value v : values)
      wrapped.push_back({v});
    SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, values.size()));
    SmallVector<Value> out;
    for (auto &v : partners(k, wrapped, all))
      out.push_back(v.front());
    return out;
  }
};

/// scan: an inclusive scan over the axis coordinate's bits, lowest first
/// (planAxisSteps says which register, lane or warp bit moves each). Before step
/// k every element holds S, the combination of its aligned run of 2^k
/// elements up to itself, and T, that of the whole run; the element 2^k
/// away (its partner: another register, the lane `lane ^ 2^bit` through
/// shfl.sync.bfly, or another warp through the scratch) holds the
/// neighbouring run's T. Of the two runs, the element in the second one in
/// scan order (the upper one; the lower one for a reverse scan, which is
/// the scan of the reversed tile, as in Triton) prepends the first run's T
/// to its S, and both join the runs, first then second, into T. So the
/// combiner need not be commutative. Register partners are known at compile
/// time; lane and warp ones select on the thread's bit.
struct ScanLowering : OpConversionPattern<ScanOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ScanOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    std::string why;
    auto plan = planAxisSteps(op.getSrcs(), op.getAxis(), op.getScratch(), why);
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, why);
    Location loc = op.getLoc();
    size_t n = op.getSrcs().size();
    bool reverse = op.getReverse();
    auto srcType = cast<RankedTensorType>(op.getSrcs()[0].getType());
    LinearLayout layout = *layoutOf(srcType);
    int64_t numRegs = layout.getNumRegs();
    auto combine = [&](ArrayRef<Value> a, ArrayRef<Value> b) {
      return applyCombiner(rewriter, op.getCombineOp(), a, b);
    };
    auto select = [&](Value pred, ArrayRef<Value> a, ArrayRef<Value> b) {
      SmallVector<Value> out;
      for (auto [x, y] : llvm::zip(a, b))
        out.push_back(LLVM::SelectOp::create(rewriter, loc, pred, x, y));
      return out;
    };
    // S[r], T[r]: the running and run values of register r, per operand.
    SmallVector<SmallVector<Value>> S(numRegs), T;
    for (Value src : adaptor.getSrcs())
      for (auto [r, v] : llvm::enumerate(unpack(rewriter, loc, src)))
        S[r].push_back(v);
    T = S;

    AxisExchange ex{rewriter, loc, srcType, layout, *plan, adaptor.getScratch(), op.getAxis()};

    // Register bits already stepped over: registers that differ only in them
    // hold one run, so its T is computed (shuffled, stored) once, by the
    // run's leader (those bits clear), and copied to the others.
    int64_t merged = 0;
    auto leader = [&](int64_t r) { return r & ~merged; };
    for (auto [k, step] : llvm::enumerate(*plan)) {
      if (step.kind == ScanStep::Register) {
        int64_t bit = int64_t(1) << step.bit;
        for (int64_t lo = 0; lo < numRegs; ++lo) {
          if (lo & bit)
            continue;
          int64_t first = reverse ? lo | bit : lo, second = reverse ? lo : lo | bit;
          S[second] = combine(T[first], S[second]);
          if (leader(lo) == lo)
            T[lo] = combine(T[first], T[second]);
        }
        merged |= bit;
        for (int64_t r = 0; r < numRegs; ++r)
          T[r] = T[leader(r)];
        continue;
      }
      // The partner runs' values (leaders only: every thread has the same
      // ones, so a leader's partner stored its run too), and whether this
      // thread's element is in the second run of its pair (bit set; clear
      // for a reverse scan).
      SmallVector<int64_t> leaders;
      for (int64_t r = 0; r < numRegs; ++r)
        if (leader(r) == r)
          leaders.push_back(r);
      SmallVector<SmallVector<Value>> other = ex.partners(k, T, leaders);
      Value second = ex.threadBit(k);
      if (reverse)
        second = LLVM::XOrOp::create(rewriter, loc, second,
                                     LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                                              rewriter.getBoolAttr(true)));
      for (int64_t r = 0; r < numRegs; ++r) {
        S[r] = select(second, combine(other[leader(r)], S[r]), S[r]);
        if (leader(r) == r)
          T[r] = select(second, combine(other[r], T[r]), combine(T[r], other[r]));
      }
      for (int64_t r = 0; r < numRegs; ++r)
        T[r] = T[leader(r)];
    }

    SmallVector<Value> results;
    for (size_t i = 0; i < n; ++i) {
      SmallVector<Value> regs;
      for (int64_t r = 0; r < numRegs; ++r)
        regs.push_back(S[r][i]);
      Type structType = getTypeConverter()->convertType(op.getResult(i).getType());
      if (!structType)
        return rewriter.notifyMatchFailure(op, "result type does not convert");
      results.push_back(pack(rewriter, loc, structType, regs));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// flip: every bit of the axis coordinate flips, so each element takes its
/// partner's value along each bit in turn.
SmallVector<Value> permuteAxis(FlipOp, AxisExchange &ex, SmallVector<Value> values) {
  for (int64_t k = 0, e = ex.plan.size(); k < e; ++k)
    values = ex.partners(k, values);
  return values;
}

/// sort: Batcher's bitonic network over the axis coordinate. Stage s merges
/// runs of 2^s elements, ascending where bit s of the coordinate is clear
/// (descending where set; the whole axis in the requested order at the last
/// stage); its step along bit j pairs elements 2^j apart, the lower one
/// keeping the smaller value in an ascending run.
SmallVector<Value> permuteAxis(SortOp op, AxisExchange &ex, SmallVector<Value> values) {
  ConversionPatternRewriter &rewriter = ex.rewriter;
  Location loc = ex.loc;
  bool isFloat = isa<FloatType>(op.getType().getElementType());
  auto less = [&](Value a, Value b) -> Value {
    if (isFloat)
      return LLVM::FCmpOp::create(rewriter, loc, LLVM::FCmpPredicate::olt, a, b);
    return LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::slt, a, b);
  };
  Value one =
      LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(), rewriter.getBoolAttr(true));
  int64_t stages = ex.plan.size();
  for (int64_t s = 1; s <= stages; ++s) {
    for (int64_t j = s - 1; j >= 0; --j) {
      SmallVector<Value> other = ex.partners(j, values);
      for (size_t r = 0; r < values.size(); ++r) {
        // Keep the smaller value where (element is the lower of its pair)
        // == (its run ascends); the run's direction at the last stage is
        // the requested order.
        Value descendingRun = s < stages
                                  ? ex.upper(s, r)
                                  : LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                                             rewriter.getBoolAttr(false));
        if (op.getDescending())
          descendingRun = LLVM::XOrOp::create(rewriter, loc, descendingRun, one);
        Value keepMax = LLVM::XOrOp::create(rewriter, loc, ex.upper(j, r), descendingRun);
        Value swap = less(other[r], values[r]); // the partner is smaller
        Value wantOther = LLVM::XOrOp::create(rewriter, loc, swap, keepMax);
        // keepMax: take the partner when it is larger (swap false).
        values[r] = LLVM::SelectOp::create(rewriter, loc, wantOther, other[r], values[r]);
      }
    }
  }
  return values;
}

/// txl.flip / txl.sort: the source registers permuted along the axis by
/// permuteAxis, through the partners planAxisSteps found.
template <typename OpTy> struct AxisPermuteLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    std::string why;
    auto plan = planAxisSteps(op.getSrc(), op.getAxis(), op.getScratch(), why);
    Type structType = this->getTypeConverter()->convertType(op.getType());
    if (failed(plan) || !structType)
      return rewriter.notifyMatchFailure(op, why);
    Location loc = op.getLoc();
    AxisExchange ex{
        rewriter,    loc, op.getType(), *layoutOf(op.getType()), *plan, adaptor.getScratch(),
        op.getAxis()};
    SmallVector<Value> values = permuteAxis(op, ex, unpack(rewriter, loc, adaptor.getSrc()));
    rewriter.replaceOp(op, pack(rewriter, loc, structType, values));
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Device printf
//===----------------------------------------------------------------------===//

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

void mlir::txl::populateTileToLLVMPatterns(const TXLTypeConverter &converter,
                                           RewritePatternSet &patterns, PatternBenefit benefit) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ElementwiseTileLowering>(converter, ctx, benefit);
  patterns.add<ConstantTileLowering, SplatLowering, MakeRangeLowering,
               RegisterSelectLowering<BroadcastOp, mapBroadcast>,
               RegisterSelectLowering<ExpandDimsOp, mapExpandDims>,
               RegisterSelectLowering<TransOp, mapTrans>,
               RegisterSelectLowering<ReshapeOp, mapReshape>, JoinLowering, SplitLowering,
               RelayoutLowering, AddPtrLowering, LoadLowering, StoreLowering, ReduceLowering,
               ScanLowering, AxisPermuteLowering<SortOp>, AxisPermuteLowering<FlipOp>,
               AtomicRMWLowering, AtomicCASLowering, PrintLowering, AssertLowering>(converter, ctx,
                                                                                    benefit);
}
