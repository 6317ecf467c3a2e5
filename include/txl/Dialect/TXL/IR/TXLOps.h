//===- TXLOps.h - txl operations --------------------------------*- C++ -*-===//
#ifndef TXL_DIALECT_TXL_IR_TXLOPS_H
#define TXL_DIALECT_TXL_IR_TXLOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "txl/Dialect/TXL/IR/TXLDialect.h"

namespace mlir::txl::trait {
/// Verifies that the enclosing module targets sm_100a (Blackwell): tensor
/// memory, tcgen05 and TMA gather4 do not exist on Hopper.
LogicalResult verifyRequiresSM100(Operation *op);
template <typename ConcreteType>
class RequiresSM100 : public ::mlir::OpTrait::TraitBase<ConcreteType, RequiresSM100> {
public:
  static LogicalResult verifyTrait(Operation *op) { return verifyRequiresSM100(op); }
};
} // namespace mlir::txl::trait

#define GET_OP_CLASSES
#include "txl/Dialect/TXL/IR/TXLOps.h.inc"

namespace mlir::txl {
/// A TMA load/store buffer narrower than its descriptor's block in the last
/// dimension only, by whole swizzle spans (the hardware boxes the block moves
/// as): the copy moves just those boxes. TXL's NSA prefill stores each half of
/// a 64 x 512 output through its 64 x 512 descriptor, one per warpgroup.
bool isTmaColumnSlice(TensorDescType desc, SmemType buffer);

/// The txl.dot whose result `add` (an arith.addf / arith.addi) adds to a
/// value computed before that dot, when the add is the dot's accumulation:
/// `x + tl.dot(a, b)` is `tl.dot(a, b, x)`, as Triton's combine pass rules.
/// The dot has a zero accumulator and no `use_acc`, its result is read by the
/// add alone, and x dominates the dot (a value of an enclosing block defined
/// before it, or a block argument there). txl-fold-dot-add folds such an add
/// into the dot; the async-dot verifier reads it as part of the dot's
/// accumulator chain. Null when `add` is not such an add.
DotOp getAccumulatedDot(Operation *add);
} // namespace mlir::txl

#endif // TXL_DIALECT_TXL_IR_TXLOPS_H
