//===- Passes.h - txl conversion passes -------------------------*- C++ -*-===//
//
// The conversion from what the pipeliner stages leave to the LLVM and NVVM
// dialects (convert-txl-to-nvvm), and the registration of the upstream
// passes that run around it.
//
//===----------------------------------------------------------------------===//
#ifndef TXL_CONVERSION_PASSES_H
#define TXL_CONVERSION_PASSES_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::txl {

#define GEN_PASS_DECL
#include "txl/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "txl/Conversion/Passes.h.inc"

/// Registers convert-txl-to-nvvm and the upstream passes the conversion
/// pipeline runs around it (convert-scf-to-cf before it,
/// convert-nvvm-to-llvm and reconcile-unrealized-casts after it), so that
/// txl-opt can run the whole lowering.
void registerTXLConversionPasses();

} // namespace mlir::txl

#endif // TXL_CONVERSION_PASSES_H
