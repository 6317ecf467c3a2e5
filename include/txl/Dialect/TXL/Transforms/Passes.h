//===- Passes.h - the txl dialect's passes ---------------------*- C++ -*-===//
//
// The pipeline that orders them is in txl/Pipeline.h.
//
#ifndef TXL_DIALECT_TXL_TRANSFORMS_PASSES_H
#define TXL_DIALECT_TXL_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "txl/Dialect/TXL/IR/TXLDialect.h"

namespace mlir::txl {

#define GEN_PASS_DECL
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"

/// Module attribute that txl-schedule-loops sets when its rescaled-async
/// changed a loop: the kernel has a second schedule (without it) that txlc
/// compares by what ptxas allocates.
inline constexpr llvm::StringLiteral kRescaledAsyncAttrName = "txl.rescaled_async";

} // namespace mlir::txl

#endif // TXL_DIALECT_TXL_TRANSFORMS_PASSES_H
