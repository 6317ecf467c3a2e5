//===- TileReductions.cpp - txl.reduce, txl.scan, txl.sort and txl.flip -----===//
//
// Reductions, scans and the axis permutations (sort, flip) over register
// tiles: in the thread, across lanes by shuffles, across warps through the
// op's shared-memory scratch.
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

namespace mlir::txl::tile {

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

/// warp_reduce: TXL's per-warp partial reduction. A rank-1 tile combines its
/// registers (each element once: registers that copy another's element are
/// skipped), then its lanes along the tile (lane bits whose basis is not 0;
/// lanes holding copies are not combined, so each element counts once);
/// the warps are never combined, so the result is one value per warp,
/// replicated across its lanes. A scalar (a per-thread value) combines all
/// 32 lanes.
struct WarpReduceLowering : OpConversionPattern<WarpReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(WarpReduceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    size_t n = op.getSrcs().size();
    auto combine = [&](ArrayRef<Value> acc, ArrayRef<Value> cur) {
      return applyCombiner(rewriter, op.getCombineOp(), acc, cur);
    };
    SmallVector<Value> acc;
    SmallVector<int64_t> laneMasks;
    if (auto tile = dyn_cast<RankedTensorType>(op.getSrcs()[0].getType())) {
      std::string why;
      auto layout = layoutOf(tile, &why);
      if (failed(layout))
        return rewriter.notifyMatchFailure(op, why);
      SmallVector<SmallVector<Value>> regs;
      for (Value src : adaptor.getSrcs())
        regs.push_back(unpack(rewriter, loc, src));
      SmallVector<Coord> seen;
      for (int64_t r = 0; r < layout->getNumRegs(); ++r) {
        Coord c = layout->applyReg(r);
        if (llvm::is_contained(seen, c))
          continue;
        seen.push_back(c);
        SmallVector<Value> cur;
        for (size_t i = 0; i < n; ++i)
          cur.push_back(regs[i][r]);
        acc = acc.empty() ? cur : combine(acc, cur);
      }
      for (auto [k, basis] : llvm::enumerate(layout->getLaneBases()))
        if (basis[0] != 0)
          laneMasks.push_back(int64_t(1) << k);
    } else {
      llvm::append_range(acc, adaptor.getSrcs());
      for (int64_t k = 0; k < 5; ++k)
        laneMasks.push_back(int64_t(1) << k);
    }
    for (int64_t mask : laneMasks) {
      SmallVector<Value> other;
      for (Value v : acc)
        other.push_back(shuffleXor(rewriter, loc, v, mask));
      acc = combine(acc, other);
    }
    rewriter.replaceOp(op, acc);
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

void populateReductionPatterns(const TXLTypeConverter &converter, RewritePatternSet &patterns,
                               PatternBenefit benefit) {
  patterns.add<ReduceLowering, WarpReduceLowering, ScanLowering, AxisPermuteLowering<SortOp>,
               AxisPermuteLowering<FlipOp>>(converter, patterns.getContext(), benefit);
}

} // namespace mlir::txl::tile
