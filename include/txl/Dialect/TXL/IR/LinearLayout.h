//===- LinearLayout.h - register layouts as linear maps over GF(2) -*- C++ -*-===//
//
// Every register layout (#txl.blocked, #txl.nvmma, #txl.dot_operand,
// #txl.slice) is turned into one representation: a linear map over GF(2)
// from the bits of (register, lane, warp) to tensor coordinates. Bit k of the
// register index contributes `regBases[k]` (a coordinate vector), and the
// contributions of all set bits are XOR-ed. This is Triton's LinearLayout in
// miniature; it answers, with one algorithm for every pair of layouts:
//   - where element (i, j) lives (register, lane, warp), and
//   - whether a conversion is free, an in-thread permutation, warp shuffles
//     or a shared-memory round trip.
// Shapes must be powers of two (as in Triton).
//
//===----------------------------------------------------------------------===//
#ifndef TXL_DIALECT_TXL_IR_LINEARLAYOUT_H
#define TXL_DIALECT_TXL_IR_LINEARLAYOUT_H

#include "mlir/IR/Attributes.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace mlir::txl {

class LinearLayout {
public:
  using Coord = SmallVector<int64_t, 4>;

  /// Build the layout of a tile of `shape` with register layout `layout`.
  /// Fails (with a reason in `why`) for non-power-of-two shapes or layouts
  /// that cannot describe the shape.
  static FailureOr<LinearLayout> get(ArrayRef<int64_t> shape, Attribute layout,
                                     std::string *why = nullptr);

  ArrayRef<int64_t> getShape() const { return shape; }
  ArrayRef<Coord> getRegBases() const { return regBases; }
  ArrayRef<Coord> getLaneBases() const { return laneBases; }
  ArrayRef<Coord> getWarpBases() const { return warpBases; }

  /// Registers each thread holds (distinct elements).
  int64_t getNumRegs() const { return int64_t(1) << regBases.size(); }
  /// Coordinates of register `reg` of thread (lane, warp).
  Coord apply(int64_t reg, int64_t lane, int64_t warp) const;
  /// Coordinates contributed by the register bits alone (lane = warp = 0).
  Coord applyReg(int64_t reg) const { return apply(reg, 0, 0); }
  /// The register whose register bits alone give `coord` (the register of
  /// every thread that holds `coord` relative to its lane-0, warp-0 part),
  /// if any: how an MMA lowering finds a fragment element.
  std::optional<int64_t> getRegAt(ArrayRef<int64_t> coord) const;

  /// Lanes per warp the layout spans (32 for every layout built here).
  int64_t getNumLanes() const { return int64_t(1) << laneBases.size(); }
  /// Warps the layout spans (its warp index is taken modulo this).
  int64_t getNumWarps() const { return int64_t(1) << warpBases.size(); }

  /// How a tile moves from layout `this` to `other` (same shape):
  ///  - NoOp: the same map;
  ///  - RegPermutation: every thread keeps its elements, in another order;
  ///  - WarpShuffle: every element stays in its warp (the warp bases agree
  ///    and getWarpShuffleTo() finds each one in the warp);
  ///  - SharedMemory: everything else.
  enum class Conversion { NoOp, RegPermutation, WarpShuffle, SharedMemory };
  Conversion classifyConversionTo(const LinearLayout &other) const;

  /// Where in the same warp `this` holds what `other` holds: for register
  /// `r` and lane `l` of `other`, the element sits in register
  /// `reg(r) ^ laneReg(l)` of lane `lane(r) ^ laneLane(l)` of `this` (the
  /// XOR of the solutions for the set bits of r and l: both maps are linear,
  /// so the solutions combine linearly too). Fails when some basis of
  /// `other` is not reachable through the register and lane bases of `this`
  /// (the warp bases of both must be equal for this to mean "same warp"),
  /// and when lanes reading the same source lane for one register would
  /// want different source registers (one shuffle cannot serve them).
  struct WarpShuffle {
    SmallVector<int64_t> regToReg, regToLane;   // per register basis of other
    SmallVector<int64_t> laneToReg, laneToLane; // per lane basis of other
    /// Register and lane of `this` holding register r of lane l of other.
    std::pair<int64_t, int64_t> source(int64_t r, int64_t l) const;
  };
  std::optional<WarpShuffle> getWarpShuffleTo(const LinearLayout &other) const;

  /// Where the layout holds an element more than once, seen through the
  /// dimensions `dims` (all when empty): the bits of the register, lane and
  /// warp indices whose bases, projected onto `dims`, lie in the span (over
  /// GF(2)) of the bases before them, registers first. Every element has
  /// exactly one holder with all these bits clear, so an op that must touch
  /// each element once (an atomic, an st.async counted on an mbarrier) runs
  /// in the holders with clear bits. `onlyZeroBases`: every copy bit has a
  /// zero basis (plain broadcast: the holder of register r's element with the
  /// bits cleared is register r & ~regs).
  struct Copies {
    uint64_t regs = 0, lanes = 0, warps = 0;
    bool onlyZeroBases = true;
  };
  Copies getCopies(ArrayRef<unsigned> dims = {}) const;

  /// Consecutive registers holding consecutive elements along `dim`,
  /// starting at a multiple of that count in every thread: the widest
  /// vector a thread can load or store in one access along `dim`.
  int64_t getContiguousRegs(unsigned dim) const;
  /// For RegPermutation: perm[r] = register of `this` that holds what
  /// register r of `other` holds.
  SmallVector<int64_t> getRegPermutationTo(const LinearLayout &other) const;

  /// The ops that only rename coordinates (txl.trans, txl.reshape,
  /// txl.join, txl.split) move no data: their result layout is the source
  /// layout with every basis sent through the op's coordinate map.
  ///   transposed: result dimension i is source dimension order[i];
  ///   reshaped: row-major, to `shape` (same number of elements);
  ///   joined: a new last dimension of size 2 held by register bit 0;
  ///   splitLast: the inverse of joined, when the last dimension (size 2)
  ///     is exactly one register basis (otherwise nullopt).
  LinearLayout transposed(ArrayRef<int32_t> order) const;
  LinearLayout reshaped(ArrayRef<int64_t> shape) const;
  LinearLayout joined() const;
  std::optional<LinearLayout> splitLast() const;
  static Coord transposeCoord(const Coord &c, ArrayRef<int32_t> order);
  static Coord reshapeCoord(const Coord &c, ArrayRef<int64_t> from, ArrayRef<int64_t> to);

  /// The layout as a #txl.linear attribute.
  Attribute toAttr(MLIRContext *ctx) const;

  bool operator==(const LinearLayout &o) const {
    return shape == o.shape && regBases == o.regBases && laneBases == o.laneBases &&
           warpBases == o.warpBases;
  }
  std::string str() const;

  LinearLayout(SmallVector<int64_t> shape, SmallVector<Coord> reg, SmallVector<Coord> lane,
               SmallVector<Coord> warp)
      : shape(std::move(shape)), regBases(std::move(reg)), laneBases(std::move(lane)),
        warpBases(std::move(warp)) {}

private:
  SmallVector<int64_t> shape;
  SmallVector<Coord> regBases, laneBases, warpBases;
};

} // namespace mlir::txl

#endif // TXL_DIALECT_TXL_IR_LINEARLAYOUT_H
