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

#endif // TXL_DIALECT_TXL_IR_TXLOPS_H
