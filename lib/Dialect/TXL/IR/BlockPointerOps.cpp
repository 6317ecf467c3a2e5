//===- BlockPointerOps.cpp - !txl.block_ptr and the ops that use it -------===//
//
// Verifiers of the block-pointer type and of txl.make_block_ptr,
// txl.advance, txl.block_load and txl.block_store (Triton's
// tl.make_block_ptr / tl.advance / tl.load and tl.store through them). The
// frontend checks the same rules at the user's line with Triton's wording;
// these catch IR written or transformed by hand, so that
// txl-expand-block-pointers can read every operand list by dimension.
//
//===----------------------------------------------------------------------===//

#include "txl/Dialect/TXL/IR/TXLOps.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::txl;

static std::string listStr(ArrayRef<int64_t> values) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(values, os);
  return s;
}

LogicalResult BlockPtrType::verify(function_ref<InFlightDiagnostic()> emitError,
                                   RankedTensorType blockType, ArrayRef<int64_t> order) {
  if (blockType.getRank() == 0 || !blockType.hasStaticShape())
    return emitError() << "!txl.block_ptr needs a block of static shape with at least one "
                          "dimension, got "
                       << blockType;
  if (blockType.getEncoding())
    return emitError() << "!txl.block_ptr's block has no layout (the register tile a "
                          "txl.block_load returns gets one), got "
                       << blockType;
  if (!blockType.getElementType().isIntOrFloat())
    return emitError() << "!txl.block_ptr points to integer or float elements, got "
                       << blockType.getElementType();
  int64_t rank = blockType.getRank();
  llvm::SmallBitVector seen(rank);
  bool permutation = static_cast<int64_t>(order.size()) == rank;
  for (int64_t d : order) {
    if (!permutation || d < 0 || d >= rank || seen.test(d)) {
      permutation = false;
      break;
    }
    seen.set(d);
  }
  if (!permutation)
    return emitError() << "!txl.block_ptr order must be a permutation of the " << rank
                       << " dimensions of its block (0.." << rank - 1 << "), got ["
                       << listStr(order) << "]";
  return success();
}

LogicalResult MakeBlockPtrOp::verify() {
  BlockPtrType type = getType();
  auto base = cast<PtrType>(getBase().getType());
  if (base.getPointeeType() != type.getElementType())
    return emitOpError() << "base points to " << base.getPointeeType()
                         << " but the block pointer's elements are " << type.getElementType();
  if (base.getAddressSpace() != 1)
    return emitOpError() << "base must be a global-memory pointer (address space 1), got " << base;
  int64_t rank = type.getRank();
  for (auto [name, n] : {std::pair<StringRef, size_t>{"shape", getShape().size()},
                         std::pair<StringRef, size_t>{"strides", getStrides().size()},
                         std::pair<StringRef, size_t>{"offsets", getOffsets().size()}})
    if (static_cast<int64_t>(n) != rank)
      return emitOpError() << "needs one " << name << " value per dimension of the " << rank
                           << "-D block, got " << n;
  return success();
}

LogicalResult AdvanceOp::verify() {
  int64_t rank = getPtr().getType().getRank();
  if (static_cast<int64_t>(getOffsets().size()) != rank)
    return emitOpError() << "needs one offset per dimension of the " << rank << "-D block, got "
                         << getOffsets().size();
  return success();
}

/// boundary_check: dimensions of the block, each at most once.
static LogicalResult verifyBoundaryCheck(Operation *op, std::optional<ArrayRef<int32_t>> dims,
                                         int64_t rank) {
  if (!dims)
    return success();
  llvm::SmallBitVector seen(rank);
  for (int32_t d : *dims) {
    if (d < 0 || d >= rank)
      return op->emitOpError() << "boundary_check dimension " << d << " is out of range for a "
                               << rank << "-D block (0.." << rank - 1 << ")";
    if (seen.test(d))
      return op->emitOpError() << "boundary_check lists dimension " << d << " twice";
    seen.set(d);
  }
  return success();
}

LogicalResult BlockLoadOp::verify() {
  BlockPtrType type = getPtr().getType();
  if (failed(verifyBoundaryCheck(*this, getBoundaryCheck(), type.getRank())))
    return failure();
  if (getType() != type.getBlockType())
    return emitOpError() << "result must be the block " << type.getBlockType() << ", got "
                         << getType();
  if (std::optional<PaddingOption> padding = getPadding()) {
    if (!getBoundaryCheck() || getBoundaryCheck()->empty())
      return emitOpError() << "padding only applies to the boundary_check dimensions; add a "
                              "boundary_check or drop the padding";
    if (*padding == PaddingOption::nan && !isa<FloatType>(type.getElementType()))
      return emitOpError() << "padding nan needs a floating-point block, got "
                           << type.getElementType();
  }
  return success();
}

LogicalResult BlockStoreOp::verify() {
  BlockPtrType type = getPtr().getType();
  if (failed(verifyBoundaryCheck(*this, getBoundaryCheck(), type.getRank())))
    return failure();
  Type value = getValue().getType();
  if (value != type.getBlockType() && value != type.getElementType())
    return emitOpError() << "value must be the block " << type.getBlockType()
                         << " or a scalar of its element type, got " << value;
  return success();
}
