//===- InitAllDialects.cpp - every dialect txl tools parse ----------------===//

#include "txl/InitAllDialects.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "txl/Dialect/TXL/IR/TXLDialect.h"

void mlir::txl::registerTXLDialects(DialectRegistry &registry) {
  registry.insert<txl::TXLDialect, arith::ArithDialect, cf::ControlFlowDialect, func::FuncDialect,
                  gpu::GPUDialect, LLVM::LLVMDialect, NVVM::NVVMDialect, math::MathDialect,
                  memref::MemRefDialect, scf::SCFDialect, ub::UBDialect, vector::VectorDialect>();
}
