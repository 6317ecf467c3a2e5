//===- AxisInfo.cpp - contiguity and alignment of integer and pointer tiles ===//
//
// A small abstract interpretation of the values that build pointer tiles and
// masks (see AxisInfo.h for the three facts). Function arguments carry
// `txl.divisibility` (the frontend's ":16" specialisation of integers and of
// 16-byte aligned pointers); constants, make_range, splat, expand_dims,
// broadcast, addptr, add, mul, rem, the integer casts, comparisons and
// and/or are interpreted; anything else (loads, scf.while and scf.if
// results) is unknown, which means one element per instruction. What is
// recorded is only ever a proof (a wrong guess would be a misaligned
// access), with one assumption that Triton's AxisInfo makes too: the
// dividend of a signed remainder is not negative (offsets are indices).
//
// Loop-carried values (`ptrs += BLOCK * stride` in a K loop, a block
// pointer's offset) are solved as a fixpoint: an scf.for iter_arg is first
// assumed to be what its initial value is, the yielded value is computed
// under that assumption, and the assumption is weakened to what holds of
// both (and everything derived from it recomputed) until the yielded value
// agrees. Facts only ever shrink (gcds of powers of two), so this ends.
//
//===----------------------------------------------------------------------===//

#include "txl/Analysis/AxisInfo.h"
#include "txl/Analysis/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;
using namespace mlir::txl;

namespace {

/// "Divisible by every power of two we care about" (the value 0, or the
/// first element of make_range(0, ...)).
constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

int64_t pow2Divisor(int64_t v) {
  if (v == 0)
    return kMaxDivisibility;
  return std::min<int64_t>(int64_t(1) << llvm::countr_zero(uint64_t(v)), kMaxDivisibility);
}

int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }

int64_t rankOf(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t ? t.getRank() : 0;
}

/// The integer 1, as a scalar or in every element (x * 1 is x: the
/// frontend multiplies by a stride that the jit specialised to 1).
bool isOne(Value v) {
  if (auto splat = v.getDefiningOp<SplatOp>())
    v = splat.getSrc();
  return matchPattern(v, m_One());
}

} // namespace

AxisInfo AxisInfo::unknown(int64_t rank) {
  AxisInfo a;
  a.contiguity.assign(rank, 1);
  a.divisibility.assign(rank, 1);
  a.constancy.assign(rank, 1);
  return a;
}

bool AxisInfo::operator==(const AxisInfo &other) const {
  return contiguity == other.contiguity && divisibility == other.divisibility &&
         constancy == other.constancy && scalarDivisibility == other.scalarDivisibility;
}

AxisInfo AxisInfo::join(const AxisInfo &a, const AxisInfo &b) {
  AxisInfo j = unknown(a.rank());
  j.scalarDivisibility = gcd(a.scalarDivisibility, b.scalarDivisibility);
  for (int64_t i = 0; i < a.rank(); ++i) {
    j.contiguity[i] = gcd(a.contiguity[i], b.contiguity[i]);
    j.divisibility[i] = gcd(a.divisibility[i], b.divisibility[i]);
    j.constancy[i] = gcd(a.constancy[i], b.constancy[i]);
  }
  return j;
}

AxisInfo AxisAnalysis::get(Value v) {
  auto it = cache.find(v);
  if (it != cache.end())
    return it->second;
  AxisInfo info = compute(v);
  // An iter_arg records its fixpoint itself (see iterArg).
  auto [entry, inserted] = cache.try_emplace(v, info);
  if (inserted)
    computed.push_back(v);
  else
    entry->second = info;
  return info;
}

/// The fixpoint of a loop-carried value: true of the initial value and of
/// every value the body yields, given that it is true of the iter_arg.
AxisInfo AxisAnalysis::iterArg(Value arg, Value init, Value yielded) {
  AxisInfo assumed = get(init);
  while (true) {
    size_t mark = computed.size();
    cache[arg] = assumed;
    computed.push_back(arg);
    AxisInfo next = AxisInfo::join(assumed, get(yielded));
    if (next == assumed)
      return assumed;
    // The guess was too strong: forget what was derived from it.
    for (size_t i = mark; i < computed.size(); ++i)
      cache.erase(computed[i]);
    computed.resize(mark);
    assumed = next;
  }
}

AxisInfo AxisAnalysis::compute(Value v) {
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
    Operation *parent = arg.getOwner()->getParentOp();
    auto func = dyn_cast<func::FuncOp>(parent);
    if (func && arg.getOwner() == &func.getBody().front() && rank == 0) {
      if (auto d = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), "txl.divisibility"))
        none.scalarDivisibility = std::max<int64_t>(1, d.getInt());
    }
    if (auto loop = dyn_cast<scf::ForOp>(parent)) {
      // The induction variable: lb + i * step.
      if (arg == loop.getInductionVar()) {
        if (rank == 0)
          none.scalarDivisibility = gcd(scalarDiv(loop.getLowerBound()), scalarDiv(loop.getStep()));
        return none;
      }
      unsigned i = arg.getArgNumber() - 1;
      return iterArg(arg, loop.getInitArgs()[i], loop.getBody()->getTerminator()->getOperand(i));
    }
    return none; // other block arguments: unknown
  }
  Operation *op = v.getDefiningOp();
  if (!op)
    return none;
  // A loop's result is one of the values its iter_arg stands for.
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return get(loop.getRegionIterArgs()[cast<OpResult>(v).getResultNumber()]);
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
    // Along the new dimension every element starts a run: what divides all
    // of them. A run of +1 steps has odd elements, whatever its first one.
    int64_t every = src.rank() ? kMaxDivisibility : src.scalarDivisibility;
    for (int64_t i = 0; i < src.rank(); ++i)
      every = gcd(every, src.contiguity[i] > 1 ? 1 : src.divisibility[i]);
    a.contiguity.insert(a.contiguity.begin() + axis, 1);
    a.divisibility.insert(a.divisibility.begin() + axis, every);
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
  // (A relayout moves the same values between threads.)
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp, RelayoutOp>(op)) {
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
  if (isa<arith::SubIOp>(op)) {
    // x - y: as x + y where y has no runs of +1 steps (a run minus a run is
    // constant, which the gcd of the constancies does not say: left out).
    AxisInfo r = get(op->getOperand(1));
    r.contiguity.assign(rank, 1);
    return add(get(op->getOperand(0)), r, 1, rank);
  }
  if (isa<arith::MulIOp>(op)) {
    if (isOne(op->getOperand(1)))
      return get(op->getOperand(0));
    if (isOne(op->getOperand(0)))
      return get(op->getOperand(1));
    AxisInfo l = get(op->getOperand(0)), r = get(op->getOperand(1));
    AxisInfo a = none;
    if (rank == 0) {
      a.scalarDivisibility =
          std::min(kMaxDivisibility, l.scalarDivisibility * r.scalarDivisibility);
      return a;
    }
    // The product has no runs of +1 steps, so its divisibility must divide
    // every element: a factor that runs by +1 contributes none.
    auto every = [](const AxisInfo &x, int64_t i) {
      return x.contiguity[i] > 1 ? 1 : x.divisibility[i];
    };
    for (int64_t i = 0; i < rank; ++i) {
      a.divisibility[i] = std::min(kMaxDivisibility, every(l, i) * every(r, i));
      a.constancy[i] = gcd(l.constancy[i], r.constancy[i]);
    }
    return a;
  }
  if (isa<arith::RemSIOp, arith::RemUIOp>(op)) {
    // x % n = x - q * n. A run of x that starts at a multiple of g and an n
    // that is one multiple of g over it never wraps within g elements
    // (Triton's `(pid * BLOCK + arange(0, BLOCK)) % N` wraps rows past the
    // end): runs of g, where g divides x's run and alignment and n's
    // constancy and alignment.
    AxisInfo l = get(op->getOperand(0)), r = get(op->getOperand(1));
    AxisInfo a = none;
    if (rank == 0) {
      a.scalarDivisibility = gcd(l.scalarDivisibility, r.scalarDivisibility);
      return a;
    }
    for (int64_t i = 0; i < rank; ++i) {
      int64_t g =
          gcd(gcd(l.contiguity[i], l.divisibility[i]), gcd(r.constancy[i], r.divisibility[i]));
      a.contiguity[i] = g;
      // A shorter run than x's starts inside one of x's: aligned to g only.
      int64_t start = g < l.contiguity[i] ? gcd(l.divisibility[i], g) : l.divisibility[i];
      a.divisibility[i] = gcd(start, r.divisibility[i]);
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
AxisInfo AxisAnalysis::add(const AxisInfo &l, const AxisInfo &r, int64_t scale, int64_t rank) {
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

int64_t mlir::txl::pow2Gcd(int64_t a, int64_t b) { return pow2Divisor(gcd(a, b)); }

int64_t mlir::txl::getAlignedRun(AxisAnalysis &axes, Value ptrs, int64_t dim) {
  auto tile = dyn_cast<RankedTensorType>(ptrs.getType());
  if (!tile || tile.getRank() == 0)
    return 1;
  auto ptrType = dyn_cast<PtrType>(tile.getElementType());
  if (!ptrType)
    return 1;
  unsigned bits = getElementBitWidth(ptrType.getPointeeType());
  if (bits % 8 != 0 || bits > 128)
    return 1;
  int64_t elemBytes = bits / 8;
  int64_t last = dim < 0 ? tile.getRank() - 1 : dim;
  AxisInfo p = axes.get(ptrs);
  int64_t run = pow2Gcd(p.contiguity[last], std::max<int64_t>(1, p.divisibility[last] / elemBytes));
  run = std::min<int64_t>(run, std::max<int64_t>(1, 16 / elemBytes));
  return std::max<int64_t>(run, 1);
}
