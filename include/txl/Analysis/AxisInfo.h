//===- AxisInfo.h - contiguity and alignment of integer and pointer tiles -*- C++ -*-===//
//
// What is known, per dimension, of the values that build pointer tiles and
// masks, in the manner of Triton's AxisInfo: contiguity (length of runs of
// +1 steps), divisibility (the largest power of two that divides the first
// element of every run; for pointers in bytes) and constancy (length of runs
// of equal values). Every access to global memory that moves several
// elements per instruction rests on these facts: txl-vectorize-accesses
// (ld/st.global.v4) and the cp.async rings of txl-schedule-loops (the bytes
// per cp.async). Both use this one analysis, so they never disagree about
// what is aligned.
//
//===----------------------------------------------------------------------===//
#ifndef TXL_ANALYSIS_AXISINFO_H
#define TXL_ANALYSIS_AXISINFO_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::txl {

/// What is known of a scalar (rank 0) or of a tile, per dimension.
struct AxisInfo {
  SmallVector<int64_t> contiguity, divisibility, constancy;
  int64_t scalarDivisibility = 1; // rank 0

  static AxisInfo unknown(int64_t rank);
  int64_t rank() const { return contiguity.size(); }
  bool operator==(const AxisInfo &other) const;
  /// What holds of both (a value that is either): the gcd of every fact.
  static AxisInfo join(const AxisInfo &a, const AxisInfo &b);
};

/// The facts of values, computed on demand and cached. The cache holds
/// Values: build a new analysis after the IR it looked at changes.
class AxisAnalysis {
public:
  /// What is known of `v`. Returned by value: computing an operand's facts
  /// inserts into the cache, which would invalidate references to entries.
  AxisInfo get(Value v);

private:
  llvm::DenseMap<Value, AxisInfo> cache;
  /// The cached values in the order they were computed: the facts derived
  /// from an optimistic guess about a loop-carried value are dropped when the
  /// guess turns out too strong.
  SmallVector<Value> computed;

  AxisInfo compute(Value v);
  AxisInfo iterArg(Value arg, Value init, Value yielded);
  int64_t scalarDiv(Value v) { return get(v).scalarDivisibility; }
  AxisInfo add(const AxisInfo &l, const AxisInfo &r, int64_t scale, int64_t rank);
};

/// Largest power of two dividing both.
int64_t pow2Gcd(int64_t a, int64_t b);

/// The number of elements N (a power of two, at least 1) such that, along
/// dimension `dim` (-1: the last) of the pointer tile `ptrs`, every run of N elements
/// starting at a multiple of N holds consecutive addresses and starts at an
/// address aligned to N elements, capped at 16 bytes. From the pointers
/// alone: the register layout and any mask still bound what one instruction
/// may move.
int64_t getAlignedRun(AxisAnalysis &axes, Value ptrs, int64_t dim = -1);

} // namespace mlir::txl

#endif // TXL_ANALYSIS_AXISINFO_H
