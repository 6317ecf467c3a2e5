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
// The facts come from the AxisInfo analysis (AxisInfo.h), which the cp.async
// rings of txl-schedule-loops use too: per dimension, contiguity,
// divisibility and constancy of the values that build the pointers and
// masks, from the `txl.divisibility` of the kernel's arguments. Values it
// cannot follow are unknown, which keeps one element per instruction.
//
//===----------------------------------------------------------------------===//

#include "txl/Analysis/AxisInfo.h"
#include "txl/Analysis/LoweringUtils.h"
#include "txl/Dialect/TXL/IR/LinearLayout.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLVECTORIZEACCESSES
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

/// The vector width of one access, 1 when nothing better is proven.
int64_t vectorWidth(AxisAnalysis &axes, Value ptrs, Value mask) {
  // getAlignedRun is 1 unless ptrs is a ranked tile of pointers to byte-sized
  // elements (and at most 16 bytes long), so the layout is only read then.
  int64_t run = getAlignedRun(axes, ptrs);
  if (run == 1)
    return 1;
  auto tile = cast<RankedTensorType>(ptrs.getType());
  auto layout = LinearLayout::get(tile.getShape(), tile.getEncoding());
  if (failed(layout))
    return 1;
  int64_t last = tile.getRank() - 1;
  int64_t width = pow2Gcd(registerRun(*layout, last), run);
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
