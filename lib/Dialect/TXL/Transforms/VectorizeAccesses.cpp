//===- VectorizeAccesses.cpp - vector widths of global loads and stores ---===//
//
// A tile load or store through pointers moves one element per register
// unless it is known that a thread's consecutive registers address
// consecutive, aligned memory. This pass proves that and records it as
// `txl.vector = N` on txl.load / txl.store, and convert-txl-to-nvvm then moves
// N elements per instruction (up to 16 bytes: ld.global.v4.b32).
//
// N is the largest power of two that divides all of:
//   - the register run of the layout along the last dimension (registers
//     r..r+N-1 of a thread hold N consecutive elements, r a multiple of N);
//   - the pointers' contiguity along the last dimension (runs of N addresses
//     one element apart, starting at multiples of N);
//   - the pointers' alignment: divisibility in bytes, over the element size;
//   - the mask's constancy along the last dimension (one predicate per run);
//   - 16 bytes over the element size.
//
// The facts come from a small abstract interpretation of the values that
// build the pointers and masks, in the manner of Triton's AxisInfo: per
// dimension, contiguity (length of runs of +1 steps), divisibility (the
// largest power of two that divides the first element of every run, for
// pointers in bytes) and constancy (length of runs of equal values).
// Function arguments carry `txl.divisibility` (the frontend's ":16"
// specialisation of integers and of 16-byte aligned pointers); constants,
// make_range, splat, expand_dims, broadcast, addptr, add, mul, the integer
// casts, comparisons and and/or are interpreted; anything else (loop-carried
// values, loads) is unknown, which keeps one element per instruction. What
// is recorded is only ever a proof; a wrong guess would be a misaligned
// access.
//
//===----------------------------------------------------------------------===//

#include "txl/Dialect/TXL/IR/LinearLayout.h"
#include "txl/Dialect/TXL/Transforms/LoweringUtils.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

namespace mlir::txl {
#define GEN_PASS_DEF_TXLVECTORIZEACCESSES
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

/// "Divisible by every power of two we care about" (the value 0, or the
/// first element of make_range(0, ...)).
constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

/// What is known of a scalar (rank 0) or of a tile, per dimension.
struct AxisInfo {
  SmallVector<int64_t> contiguity, divisibility, constancy;
  int64_t scalarDivisibility = 1; // rank 0

  static AxisInfo unknown(int64_t rank) {
    AxisInfo a;
    a.contiguity.assign(rank, 1);
    a.divisibility.assign(rank, 1);
    a.constancy.assign(rank, 1);
    return a;
  }
  int64_t rank() const { return contiguity.size(); }
};

int64_t pow2Divisor(int64_t v) {
  if (v == 0)
    return kMaxDivisibility;
  return std::min<int64_t>(int64_t(1) << llvm::countr_zero(uint64_t(v)), kMaxDivisibility);
}

int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }

class AxisAnalysis {
public:
  /// What is known of `v`. Returned by value: computing an operand's facts
  /// inserts into the cache, which would invalidate references to entries.
  AxisInfo get(Value v) {
    auto it = cache.find(v);
    if (it != cache.end())
      return it->second;
    AxisInfo info = compute(v);
    cache[v] = info;
    return info;
  }

private:
  llvm::DenseMap<Value, AxisInfo> cache;

  static int64_t rankOf(Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t ? t.getRank() : 0;
  }

  /// The divisibility of a scalar.
  int64_t scalarDiv(Value v) { return get(v).scalarDivisibility; }

  AxisInfo compute(Value v) {
    int64_t rank = rankOf(v);
    AxisInfo none = AxisInfo::unknown(rank);
    // Integer constants (scalar or splat).
    APInt cst;
    if (matchPattern(v, m_ConstantInt(&cst))) {
      int64_t d = pow2Divisor(cst.getSExtValue());
      AxisInfo a = none;
      a.scalarDivisibility = d;
      auto t = dyn_cast<RankedTensorType>(v.getType());
      for (int64_t i = 0; i < rank; ++i) {
        a.divisibility[i] = d;
        a.constancy[i] = t.getDimSize(i);
      }
      return a;
    }
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
      if (func && arg.getOwner() == &func.getBody().front() && rank == 0) {
        if (auto d = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), "txl.divisibility"))
          none.scalarDivisibility = std::max<int64_t>(1, d.getInt());
      }
      // An scf.for induction variable: lb + i * step.
      if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()))
        if (arg == loop.getInductionVar() && rank == 0)
          none.scalarDivisibility = gcd(scalarDiv(loop.getLowerBound()), scalarDiv(loop.getStep()));
      return none; // loop-carried and other block arguments: unknown
    }
    Operation *op = v.getDefiningOp();
    if (!op)
      return none;
    if (auto r = dyn_cast<MakeRangeOp>(op)) {
      AxisInfo a = none;
      a.contiguity[0] = r.getEnd() - r.getStart();
      a.divisibility[0] = pow2Divisor(r.getStart());
      return a;
    }
    if (auto s = dyn_cast<SplatOp>(op)) {
      AxisInfo a = none;
      auto t = cast<RankedTensorType>(v.getType());
      int64_t d = scalarDiv(s.getSrc());
      for (int64_t i = 0; i < rank; ++i) {
        a.divisibility[i] = d;
        a.constancy[i] = t.getDimSize(i);
      }
      return a;
    }
    if (auto e = dyn_cast<ExpandDimsOp>(op)) {
      AxisInfo src = get(e.getSrc());
      AxisInfo a = src;
      int64_t axis = e.getAxis();
      a.contiguity.insert(a.contiguity.begin() + axis, 1);
      a.divisibility.insert(a.divisibility.begin() + axis,
                            src.rank() ? src.divisibility[0] : src.scalarDivisibility);
      a.constancy.insert(a.constancy.begin() + axis, 1);
      return a;
    }
    if (auto b = dyn_cast<BroadcastOp>(op)) {
      AxisInfo src = get(b.getSrc());
      auto from = cast<RankedTensorType>(b.getSrc().getType());
      auto to = cast<RankedTensorType>(v.getType());
      AxisInfo a = src;
      for (int64_t i = 0; i < rank; ++i)
        if (from.getDimSize(i) == 1 && to.getDimSize(i) != 1) {
          a.contiguity[i] = 1;
          a.constancy[i] = to.getDimSize(i);
        }
      return a;
    }
    if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp>(op)) {
      return get(op->getOperand(0));
    }
    if (auto addp = dyn_cast<AddPtrOp>(op)) {
      // Pointers: divisibility in bytes.
      int64_t elemBytes = 1;
      Type ptrType = getElementTypeOrSelf(addp.getPtr().getType());
      if (auto p = dyn_cast<PtrType>(ptrType))
        elemBytes = std::max<int64_t>(1, getElementBitWidth(p.getPointeeType()) / 8);
      return add(get(addp.getPtr()), get(addp.getOffset()), elemBytes, rank);
    }
    if (isa<arith::AddIOp>(op))
      return add(get(op->getOperand(0)), get(op->getOperand(1)), 1, rank);
    if (isa<arith::MulIOp>(op)) {
      AxisInfo l = get(op->getOperand(0)), r = get(op->getOperand(1));
      AxisInfo a = none;
      if (rank == 0) {
        a.scalarDivisibility =
            std::min(kMaxDivisibility, l.scalarDivisibility * r.scalarDivisibility);
        return a;
      }
      for (int64_t i = 0; i < rank; ++i) {
        a.divisibility[i] = std::min(kMaxDivisibility, l.divisibility[i] * r.divisibility[i]);
        a.constancy[i] = gcd(l.constancy[i], r.constancy[i]);
      }
      return a;
    }
    if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
      if (rank == 0)
        return none;
      // x < T (and the other orders) is constant over groups of g elements
      // when x runs by +1 from a multiple of g through the group and T is one
      // multiple of g over it: g divides x's run and alignment and T's
      // constancy and alignment (per side).
      AxisInfo l = get(cmp.getLhs()), r = get(cmp.getRhs());
      AxisInfo a = none;
      auto runVsConstant = [](const AxisInfo &x, const AxisInfo &t, int64_t i) {
        return gcd(gcd(x.contiguity[i], x.divisibility[i]), gcd(t.constancy[i], t.divisibility[i]));
      };
      for (int64_t i = 0; i < rank; ++i) {
        int64_t c = gcd(l.constancy[i], r.constancy[i]);
        if (r.constancy[i] > 1)
          c = std::max(c, runVsConstant(l, r, i));
        if (l.constancy[i] > 1)
          c = std::max(c, runVsConstant(r, l, i));
        a.constancy[i] = std::max<int64_t>(c, 1);
      }
      return a;
    }
    if (isa<arith::AndIOp, arith::OrIOp>(op) && rank > 0) {
      AxisInfo l = get(op->getOperand(0)), r = get(op->getOperand(1));
      AxisInfo a = none;
      for (int64_t i = 0; i < rank; ++i)
        a.constancy[i] = gcd(l.constancy[i], r.constancy[i]);
      return a;
    }
    return none;
  }

  /// l + r (r scaled by `scale`: addptr's element size).
  AxisInfo add(const AxisInfo &l, const AxisInfo &r, int64_t scale, int64_t rank) {
    AxisInfo a = AxisInfo::unknown(rank);
    if (rank == 0) {
      a.scalarDivisibility =
          gcd(l.scalarDivisibility, std::min(kMaxDivisibility, r.scalarDivisibility * scale));
      return a;
    }
    for (int64_t i = 0; i < rank; ++i) {
      // A run of +1 steps plus a constant stays a run (over the shorter of the
      // two lengths, each aligned to the other's constancy).
      a.contiguity[i] =
          std::max(gcd(l.contiguity[i], r.constancy[i]), gcd(l.constancy[i], r.contiguity[i]));
      a.divisibility[i] =
          gcd(l.divisibility[i], std::min(kMaxDivisibility, r.divisibility[i] * scale));
      a.constancy[i] = gcd(l.constancy[i], r.constancy[i]);
    }
    return a;
  }
};

/// Largest power of two dividing both.
int64_t pow2Gcd(int64_t a, int64_t b) { return pow2Divisor(gcd(a, b)); }

/// The vector width of one access, 1 when nothing better is proven.
int64_t vectorWidth(AxisAnalysis &axes, Value ptrs, Value mask) {
  auto tile = dyn_cast<RankedTensorType>(ptrs.getType());
  if (!tile || tile.getRank() == 0)
    return 1;
  auto ptrType = dyn_cast<PtrType>(tile.getElementType());
  if (!ptrType)
    return 1;
  unsigned bits = getElementBitWidth(ptrType.getPointeeType());
  if (bits % 8 != 0 || bits > 64)
    return 1;
  int64_t elemBytes = bits / 8;
  auto layout = LinearLayout::get(tile.getShape(), tile.getEncoding());
  if (failed(layout))
    return 1;
  int64_t last = tile.getRank() - 1;
  AxisInfo p = axes.get(ptrs);
  int64_t width = registerRun(*layout, last);
  width = pow2Gcd(width, p.contiguity[last]);
  width = pow2Gcd(width, std::max<int64_t>(1, p.divisibility[last] / elemBytes));
  width = std::min<int64_t>(width, 16 / elemBytes);
  if (mask)
    width = pow2Gcd(width, axes.get(mask).constancy[last]);
  return std::max<int64_t>(width, 1);
}

struct VectorizeAccessesPass : txl::impl::TXLVectorizeAccessesBase<VectorizeAccessesPass> {
  void runOnOperation() override {
    AxisAnalysis axes;
    Builder b(&getContext());
    getOperation()->walk([&](Operation *op) {
      int64_t width = 1;
      if (auto ld = dyn_cast<LoadOp>(op)) {
        if (!ld.getIsVolatile())
          width = vectorWidth(axes, ld.getPtr(), ld.getMask());
      } else if (auto st = dyn_cast<StoreOp>(op)) {
        width = vectorWidth(axes, st.getPtr(), st.getMask());
      } else {
        return;
      }
      if (width > 1)
        op->setAttr(kVectorAttr, b.getI32IntegerAttr(width));
      else
        op->removeAttr(kVectorAttr);
    });
  }
};

} // namespace
