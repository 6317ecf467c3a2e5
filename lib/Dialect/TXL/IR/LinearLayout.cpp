//===- LinearLayout.cpp - register layouts as linear maps over GF(2) ------===//
//
// Construction of the linear map for each layout attribute. A layout may
// cover more than the tile (then the extra bases map to coordinate 0: those
// threads hold copies, a broadcast) or less (then extra register bases
// repeat the pattern). Register bases that map to 0 are dropped, so each
// register of a thread holds a distinct element.
//
// The wgmma accumulator and register-A layouts follow the fragment formulas
// confirmed on the H100 (docs/mlir22-nvptx-facts.md §1d):
//   acc m64nN: row = 16*warp + lane/4 + 8*((r/2)%2), col = 8*(r/4) + 2*(lane%4) + r%2
//   A k16:     a0=(row, c..c+1) a1=(row+8, c..) a2=(row, c+8..) a3=(row+8, c+8..)
// which are the same map for 16-bit A and f32 accumulators of equal shape:
// that is why P of flash attention needs no shuffles.
//
// mma.sync m16n8k16 (#txl.nvmma version 2) uses the same per-warp fragments
// for C and A (one 16-row block per warp); its B (K x N) fragment is
//   b0,b1 = (k = 2*(lane%4) .. +1, n = lane/4), b2,b3 = (k + 8 .., n)
// and its warps split M (16 rows each), then N (8 columns each): warps along
// N hold copies of A, warps along M copies of B.
//
//===----------------------------------------------------------------------===//

#include "txl/Dialect/TXL/IR/LinearLayout.h"
#include "txl/Dialect/TXL/IR/TXLDialect.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace mlir;
using namespace mlir::txl;
using Coord = LinearLayout::Coord;

namespace {
/// Accumulates bases dimension by dimension, tracking how much of each
/// dimension is already covered.
struct BasisBuilder {
  SmallVector<int64_t> shape;
  SmallVector<int64_t> covered;
  SmallVector<Coord> reg, lane, warp;

  explicit BasisBuilder(ArrayRef<int64_t> s) : shape(s), covered(s.size(), 1) {}

  /// A basis that advances dimension `dim` by the current coverage (0 once
  /// the tile is covered: a broadcast).
  Coord next(unsigned dim) {
    Coord c(shape.size(), 0);
    if (covered[dim] < shape[dim])
      c[dim] = covered[dim];
    covered[dim] *= 2;
    return c;
  }
  /// A basis at an explicit offset of dimension `dim` (0 beyond the tile).
  Coord at(unsigned dim, int64_t offset) {
    Coord c(shape.size(), 0);
    if (offset < shape[dim])
      c[dim] = offset;
    return c;
  }
  void add(SmallVector<Coord> &bases, unsigned dim, unsigned count) {
    for (unsigned i = 0; i < llvm::Log2_32(count); ++i)
      bases.push_back(next(dim));
  }
  /// Registers repeat the pattern until every dimension is covered.
  void repeatRegs(ArrayRef<unsigned> order) {
    for (unsigned d : order)
      while (covered[d] < shape[d])
        reg.push_back(next(d));
  }
};

bool isZero(const Coord &c) {
  return llvm::all_of(c, [](int64_t v) { return v == 0; });
}
} // namespace

static LogicalResult fail(std::string *why, const Twine &msg) {
  if (why)
    *why = msg.str();
  return failure();
}

static FailureOr<LinearLayout> build(ArrayRef<int64_t> shape, Attribute layout, std::string *why);

/// The part every MMA fragment shares: a thread holds `kWidth` consecutive
/// elements along `pairDim` (register bits), the 4 lanes of a quad step
/// along it by kWidth, and the 8 quads (lane / 4) cover 8 rows of `otherDim`.
static void addFragmentQuad(BasisBuilder &b, unsigned pairDim, unsigned otherDim, unsigned kWidth) {
  for (unsigned i = 0; i < llvm::Log2_32(kWidth); ++i)
    b.reg.push_back(b.at(pairDim, 1 << i));
  b.lane.push_back(b.at(pairDim, kWidth));
  b.lane.push_back(b.at(pairDim, 2 * kWidth));
  for (int64_t r : {1, 2, 4})
    b.lane.push_back(b.at(otherDim, r));
}

/// The B operand of mma.sync (K x N): the fragment quad along K (pairs of K,
/// lane / 4 along N), a second register group 4 * kWidth further along K;
/// warps along N (8 columns each), copies along M.
static FailureOr<LinearLayout> buildMmaSyncB(ArrayRef<int64_t> shape, ArrayRef<unsigned> warps,
                                             unsigned kWidth) {
  BasisBuilder b(shape);
  addFragmentQuad(b, /*pairDim=*/0, /*otherDim=*/1, kWidth);
  b.reg.push_back(b.at(0, 4 * kWidth));
  for (unsigned i = 0; i < llvm::Log2_32(warps[0]); ++i)
    b.warp.push_back(Coord(2, 0));
  for (unsigned i = 0; i < llvm::Log2_32(warps[1]); ++i)
    b.warp.push_back(b.at(1, 8 << i));
  for (int64_t k = 8 * kWidth; k < shape[0]; k *= 2)
    b.reg.push_back(b.at(0, k));
  for (int64_t c = 8 * int64_t(warps[1]); c < shape[1]; c *= 2)
    b.reg.push_back(b.at(1, c));
  return LinearLayout(SmallVector<int64_t>(shape), b.reg, b.lane, b.warp);
}

/// wgmma or mma.sync accumulator (and, with `kWidth`, register-A operand):
/// [rows, cols]. `kWidth` consecutive columns share one 32-bit register
/// pair slot. Warps along N (mma.sync only) split the accumulator's
/// columns in groups of 8 and hold copies of A.
static FailureOr<LinearLayout> buildMma(ArrayRef<int64_t> shape, ArrayRef<unsigned> warps,
                                        unsigned kWidth, bool isA, std::string *why) {
  if (shape.size() != 2)
    return fail(why, "MMA layouts are 2-D");
  BasisBuilder b(shape);
  // Within one 8-column group a thread owns kWidth consecutive columns, the
  // 4 lanes of a quad cover 4*kWidth columns, the 8 quads rows 0..7,
  addFragmentQuad(b, /*pairDim=*/1, /*otherDim=*/0, kWidth);
  // and each thread also holds row lane/4 + 8,
  b.reg.push_back(b.at(0, 8));
  // each warp owns 16 rows (then 8 columns, or a copy of A),
  for (unsigned i = 0; i < llvm::Log2_32(warps[0]); ++i)
    b.warp.push_back(b.at(0, 16 << i));
  for (unsigned i = 0; i < llvm::Log2_32(warps[1]); ++i)
    b.warp.push_back(isA ? Coord(2, 0) : b.at(1, 8 << i));
  // registers step across the columns in groups of 4*kWidth (of the warps'
  // columns for the accumulator),
  for (int64_t c = 4 * kWidth * (isA ? 1 : int64_t(warps[1])); c < shape[1]; c *= 2)
    b.reg.push_back(b.at(1, c));
  // and then across further 16*warps-row blocks (M = 128 on one warpgroup).
  for (int64_t r = 16 * warps[0]; r < shape[0]; r *= 2)
    b.reg.push_back(b.at(0, r));
  return LinearLayout(SmallVector<int64_t>(shape), b.reg, b.lane, b.warp);
}

static FailureOr<LinearLayout> build(ArrayRef<int64_t> shape, Attribute layout, std::string *why) {
  for (int64_t d : shape)
    if (d <= 0 || !llvm::isPowerOf2_64(d))
      return fail(why, "register layouts need power-of-two tile dimensions, got " + Twine(d));
  if (auto blocked = dyn_cast<BlockedAttr>(layout)) {
    ArrayRef<unsigned> order = blocked.getOrder();
    if (order.size() != shape.size())
      return fail(why, "layout rank " + Twine(order.size()) + " differs from tile rank " +
                           Twine(shape.size()));
    for (unsigned v : llvm::concat<const unsigned>(
             blocked.getSizePerThread(), blocked.getThreadsPerWarp(), blocked.getWarpsPerCTA()))
      if (!llvm::isPowerOf2_32(v))
        return fail(why, "#txl.blocked entries must be powers of two");
    BasisBuilder b(shape);
    for (unsigned d : order)
      b.add(b.reg, d, blocked.getSizePerThread()[d]);
    for (unsigned d : order)
      b.add(b.lane, d, blocked.getThreadsPerWarp()[d]);
    for (unsigned d : order)
      b.add(b.warp, d, blocked.getWarpsPerCTA()[d]);
    b.repeatRegs(order);
    return LinearLayout(SmallVector<int64_t>(shape), b.reg, b.lane, b.warp);
  }
  if (auto mma = dyn_cast<NVMMAAttr>(layout)) {
    ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
    if (!llvm::isPowerOf2_32(warps[0]) || !llvm::isPowerOf2_32(warps[1]))
      return fail(why, "#txl.nvmma warps must be powers of two");
    if (mma.getVersion() == 3 && warps[1] != 1)
      return fail(why, "wgmma layouts with warps along N are not supported");
    // The accumulator: two f32 (or packed f16) columns per register pair.
    return buildMma(shape, warps, 2, /*isA=*/false, why);
  }
  if (auto op = dyn_cast<DotOperandAttr>(layout)) {
    auto mma = dyn_cast<NVMMAAttr>(op.getParent());
    if (!mma || (op.getOpIdx() != 0 && mma.getVersion() != 2))
      return fail(why, "register operands are A of a wgmma or A and B of an mma.sync");
    if (shape.size() != 2)
      return fail(why, "MMA layouts are 2-D");
    ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
    if (!llvm::isPowerOf2_32(warps[0]) || !llvm::isPowerOf2_32(warps[1]) ||
        (mma.getVersion() == 3 && warps[1] != 1))
      return fail(why, "#txl.nvmma warps must be powers of two, along M for wgmma");
    if (op.getOpIdx() == 1)
      return buildMmaSyncB(shape, warps, op.getKWidth());
    return buildMma(shape, warps, op.getKWidth(), /*isA=*/true, why);
  }
  if (auto slice = dyn_cast<SliceAttr>(layout)) {
    // The parent on the tile with the sliced dimension of size 1: every basis
    // along it becomes a broadcast; then the dimension is dropped.
    SmallVector<int64_t> parentShape(shape);
    if (slice.getDim() > parentShape.size())
      return fail(why, "#txl.slice dim out of range");
    parentShape.insert(parentShape.begin() + slice.getDim(), 1);
    auto parent = build(parentShape, slice.getParent(), why);
    if (failed(parent))
      return failure();
    auto drop = [&](ArrayRef<Coord> bases) {
      SmallVector<Coord> out;
      for (Coord c : bases) {
        c.erase(c.begin() + slice.getDim());
        out.push_back(c);
      }
      return out;
    };
    return LinearLayout(SmallVector<int64_t>(shape), drop(parent->getRegBases()),
                        drop(parent->getLaneBases()), drop(parent->getWarpBases()));
  }
  if (auto linear = dyn_cast<LinearAttr>(layout)) {
    unsigned rank = linear.getRank();
    if (rank != shape.size())
      return fail(why,
                  "layout rank " + Twine(rank) + " differs from tile rank " + Twine(shape.size()));
    // As for the other layouts, a layout larger than the tile maps what
    // lies beyond it to 0 (a slice's parent is built on a size-1 dimension).
    auto bases = [&](ArrayRef<int64_t> flat) {
      SmallVector<Coord> out;
      for (unsigned k = 0; k < flat.size() / rank; ++k) {
        Coord c = linear.getBasis(flat, k);
        for (size_t d = 0; d < rank; ++d)
          c[d] &= shape[d] - 1;
        out.push_back(c);
      }
      return out;
    };
    LinearLayout ll(SmallVector<int64_t>(shape), bases(linear.getRegisterBases()),
                    bases(linear.getLaneBases()), bases(linear.getWarpBases()));
    // Together the bases reach every element (the flattened bases span all
    // log2(numel) bits).
    int64_t numel = 1;
    for (int64_t d : shape) {
      if (llvm::Log2_64(numel) + llvm::Log2_64(d) > 40)
        return fail(why, "#txl.linear tiles hold at most 2^40 elements");
      numel *= d;
    }
    SmallVector<int64_t> span; // a GF(2) basis in echelon form, by leading bit
    for (ArrayRef<Coord> group : {ll.getRegBases(), ll.getLaneBases(), ll.getWarpBases()})
      for (const Coord &c : group) {
        int64_t v = LinearLayout::reshapeCoord(c, shape, {numel})[0];
        for (int64_t b : span)
          v = std::min(v, v ^ b);
        if (v)
          span.push_back(v);
      }
    if ((int64_t(1) << span.size()) != numel)
      return fail(why, "#txl.linear does not reach every element of the tile (its bases span " +
                           Twine(int64_t(1) << span.size()) + " of " + Twine(numel) + " elements)");
    return ll;
  }
  return fail(why, "not a register layout");
}

FailureOr<LinearLayout> LinearLayout::get(ArrayRef<int64_t> shape, Attribute layout,
                                          std::string *why) {
  if (!layout)
    return fail(why, "the tile has no register layout (run --txl-assign-layouts)");
  auto ll = build(shape, layout, why);
  if (failed(ll))
    return failure();
  // Registers hold distinct elements: drop register bases that map to 0.
  SmallVector<Coord> regs;
  for (const Coord &c : ll->regBases)
    if (!isZero(c))
      regs.push_back(c);
  ll->regBases = std::move(regs);
  return ll;
}

LinearLayout::Copies LinearLayout::getCopies(ArrayRef<unsigned> dims) const {
  SmallVector<unsigned> used(dims);
  if (used.empty())
    used = llvm::to_vector(llvm::seq<unsigned>(0, shape.size()));
  // A basis as one integer: each dimension's coordinate in its own bit field
  // (tiles have at most 2^20 elements, so the fields fit).
  auto encode = [&](const Coord &c) {
    uint64_t v = 0;
    unsigned shift = 0;
    for (unsigned d : used) {
      v |= uint64_t(c[d]) << shift;
      shift += llvm::Log2_64_Ceil(std::max<int64_t>(2, shape[d]));
    }
    return v;
  };
  SmallVector<uint64_t> pivots; // reduced, distinct leading bits, descending
  Copies copies;
  auto scan = [&](ArrayRef<Coord> bases, uint64_t &mask) {
    for (auto [i, basis] : llvm::enumerate(bases)) {
      uint64_t v = encode(basis);
      bool zero = v == 0;
      for (uint64_t p : pivots)
        v = std::min(v, v ^ p);
      if (v) {
        pivots.push_back(v);
        llvm::sort(pivots, std::greater<uint64_t>());
        continue;
      }
      mask |= uint64_t(1) << i;
      copies.onlyZeroBases &= zero;
    }
  };
  scan(regBases, copies.regs);
  scan(laneBases, copies.lanes);
  scan(warpBases, copies.warps);
  return copies;
}

std::optional<int64_t> LinearLayout::getRegAt(ArrayRef<int64_t> coord) const {
  for (int64_t r = 0; r < getNumRegs(); ++r)
    if (ArrayRef<int64_t>(applyReg(r)) == coord)
      return r;
  return std::nullopt;
}

Coord LinearLayout::apply(int64_t reg, int64_t lane, int64_t warp) const {
  Coord out(shape.size(), 0);
  auto accumulate = [&](ArrayRef<Coord> bases, int64_t index) {
    for (auto [k, basis] : llvm::enumerate(bases))
      if (index >> k & 1)
        for (size_t d = 0; d < out.size(); ++d)
          out[d] ^= basis[d];
  };
  accumulate(regBases, reg);
  accumulate(laneBases, lane);
  accumulate(warpBases, warp);
  return out;
}

LinearLayout::Conversion LinearLayout::classifyConversionTo(const LinearLayout &o) const {
  if (*this == o)
    return Conversion::NoOp;
  if (warpBases != o.warpBases)
    return Conversion::SharedMemory;
  if (laneBases == o.laneBases) {
    // Same lanes and warps: the same elements per thread, possibly reordered.
    SmallVector<Coord> a(regBases), b(o.regBases);
    llvm::sort(a);
    llvm::sort(b);
    if (a == b)
      return Conversion::RegPermutation;
  }
  return getWarpShuffleTo(o) ? Conversion::WarpShuffle : Conversion::SharedMemory;
}

std::optional<LinearLayout::WarpShuffle>
LinearLayout::getWarpShuffleTo(const LinearLayout &o) const {
  if (warpBases != o.warpBases)
    return std::nullopt;
  // Every (register, lane) of one warp of `this`, by the coordinate it holds
  // (warp 0; the warp bases are equal, so other warps add the same offset to
  // both sides). The first pair found for a coordinate is kept.
  std::map<Coord, std::pair<int64_t, int64_t>> where;
  for (int64_t l = 0; l < getNumLanes(); ++l)
    for (int64_t r = 0; r < getNumRegs(); ++r)
      where.try_emplace(apply(r, l, 0), r, l);
  WarpShuffle plan;
  auto solve = [&](const Coord &c, SmallVector<int64_t> &reg, SmallVector<int64_t> &lane) {
    auto it = where.find(c);
    if (it == where.end())
      return false;
    reg.push_back(it->second.first);
    lane.push_back(it->second.second);
    return true;
  };
  for (const Coord &c : o.regBases)
    if (!solve(c, plan.regToReg, plan.regToLane))
      return std::nullopt;
  for (const Coord &c : o.laneBases)
    if (!solve(c, plan.laneToReg, plan.laneToLane))
      return std::nullopt;
  // One shfl.sync moves one value per lane, so two lanes that read the same
  // source lane for a register must want the same source register: for
  // every lane offset x that leaves the source lane unchanged, the source
  // register must not change either. Otherwise (a register bit traded for a
  // lane bit) a register would take several shuffles: shared memory is
  // cheaper.
  for (int64_t x = 1; x < o.getNumLanes(); ++x) {
    auto [reg, lane] = plan.source(0, x);
    if (lane == 0 && reg != 0)
      return std::nullopt;
  }
  return plan;
}

std::pair<int64_t, int64_t> LinearLayout::WarpShuffle::source(int64_t r, int64_t l) const {
  int64_t reg = 0, lane = 0;
  for (size_t k = 0; k < regToReg.size(); ++k)
    if (r >> k & 1) {
      reg ^= regToReg[k];
      lane ^= regToLane[k];
    }
  for (size_t k = 0; k < laneToReg.size(); ++k)
    if (l >> k & 1) {
      reg ^= laneToReg[k];
      lane ^= laneToLane[k];
    }
  return {reg, lane};
}

int64_t LinearLayout::getContiguousRegs(unsigned dim) const {
  auto unit = [&](const Coord &c, int64_t v) {
    for (size_t d = 0; d < c.size(); ++d)
      if (c[d] != (d == dim ? v : 0))
        return false;
    return true;
  };
  size_t k = 0;
  while (k < regBases.size() && unit(regBases[k], int64_t(1) << k))
    ++k;
  // Every other basis must keep the run aligned: no bit below 2^k along dim
  // (XOR with such a bit would reorder the run). Shorter runs may still be.
  for (; k > 0; --k) {
    int64_t mask = (int64_t(1) << k) - 1;
    auto aligned = [&](const Coord &c) { return (c[dim] & mask) == 0; };
    if (llvm::all_of(ArrayRef<Coord>(regBases).drop_front(k), aligned) &&
        llvm::all_of(laneBases, aligned) && llvm::all_of(warpBases, aligned))
      break;
  }
  return int64_t(1) << k;
}

SmallVector<int64_t> LinearLayout::getRegPermutationTo(const LinearLayout &o) const {
  SmallVector<int64_t> perm;
  for (int64_t r = 0; r < o.getNumRegs(); ++r) {
    Coord want = o.applyReg(r);
    int64_t found = -1;
    for (int64_t s = 0; s < getNumRegs() && found < 0; ++s)
      if (applyReg(s) == want)
        found = s;
    perm.push_back(found);
  }
  return perm;
}

std::string LinearLayout::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  auto print = [&](StringRef name, ArrayRef<Coord> bases) {
    os << name << "=[";
    llvm::interleaveComma(bases, os, [&](const Coord &c) {
      os << "(";
      llvm::interleaveComma(c, os);
      os << ")";
    });
    os << "]";
  };
  print("reg", regBases);
  os << " ";
  print("lane", laneBases);
  os << " ";
  print("warp", warpBases);
  return s;
}

//===----------------------------------------------------------------------===//
// Layouts of the ops that only rename coordinates
//===----------------------------------------------------------------------===//

Coord LinearLayout::transposeCoord(const Coord &c, ArrayRef<int32_t> order) {
  Coord out;
  for (int32_t d : order)
    out.push_back(c[d]);
  return out;
}

Coord LinearLayout::reshapeCoord(const Coord &c, ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  // Row-major: the linear index, then its digits in the new shape. For
  // power-of-two shapes this moves bits, so it maps XOR-ed coordinates to
  // XOR-ed coordinates (a linear map, as layouts need).
  int64_t index = 0;
  for (size_t d = 0; d < from.size(); ++d)
    index = index * from[d] + c[d];
  Coord out(to.size(), 0);
  for (size_t d = to.size(); d-- > 0;) {
    out[d] = index % to[d];
    index /= to[d];
  }
  return out;
}

static SmallVector<Coord> mapAll(ArrayRef<Coord> bases, function_ref<Coord(const Coord &)> f) {
  SmallVector<Coord> out;
  for (const Coord &c : bases)
    out.push_back(f(c));
  return out;
}

LinearLayout LinearLayout::transposed(ArrayRef<int32_t> order) const {
  auto f = [&](const Coord &c) { return transposeCoord(c, order); };
  SmallVector<int64_t> newShape;
  for (int32_t d : order)
    newShape.push_back(shape[d]);
  return LinearLayout(newShape, mapAll(regBases, f), mapAll(laneBases, f), mapAll(warpBases, f));
}

LinearLayout LinearLayout::reshaped(ArrayRef<int64_t> newShape) const {
  auto f = [&](const Coord &c) { return reshapeCoord(c, shape, newShape); };
  return LinearLayout(SmallVector<int64_t>(newShape), mapAll(regBases, f), mapAll(laneBases, f),
                      mapAll(warpBases, f));
}

LinearLayout LinearLayout::joined() const {
  auto f = [](const Coord &c) {
    Coord out(c);
    out.push_back(0);
    return out;
  };
  SmallVector<int64_t> newShape(shape);
  newShape.push_back(2);
  SmallVector<Coord> reg;
  reg.push_back(Coord(shape.size() + 1, 0));
  reg.back().back() = 1;
  llvm::append_range(reg, mapAll(regBases, f));
  return LinearLayout(newShape, reg, mapAll(laneBases, f), mapAll(warpBases, f));
}

std::optional<LinearLayout> LinearLayout::splitLast() const {
  if (shape.empty() || shape.back() != 2)
    return std::nullopt;
  size_t last = shape.size() - 1;
  auto touchesLast = [&](const Coord &c) { return c[last] != 0; };
  if (llvm::any_of(laneBases, touchesLast) || llvm::any_of(warpBases, touchesLast))
    return std::nullopt;
  Coord unit(shape.size(), 0);
  unit[last] = 1;
  SmallVector<Coord> reg;
  bool found = false;
  for (const Coord &c : regBases) {
    if (c == unit && !found) {
      found = true;
      continue;
    }
    if (touchesLast(c))
      return std::nullopt;
    reg.push_back(c);
  }
  if (!found)
    return std::nullopt;
  auto drop = [&](const Coord &c) { return Coord(ArrayRef<int64_t>(c).drop_back()); };
  return LinearLayout(SmallVector<int64_t>(ArrayRef<int64_t>(shape).drop_back()), mapAll(reg, drop),
                      mapAll(laneBases, drop), mapAll(warpBases, drop));
}

Attribute LinearLayout::toAttr(MLIRContext *ctx) const {
  auto flat = [](ArrayRef<Coord> bases) {
    SmallVector<int64_t> out;
    for (const Coord &c : bases)
      llvm::append_range(out, c);
    return out;
  };
  return LinearAttr::get(ctx, shape.size(), flat(regBases), flat(laneBases), flat(warpBases));
}
