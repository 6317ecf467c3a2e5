//===- InitAllDialects.h - every dialect txl tools parse --------*- C++ -*-===//
#ifndef TXL_INITALLDIALECTS_H
#define TXL_INITALLDIALECTS_H

namespace mlir {
class DialectRegistry;
namespace txl {
/// The txl dialect plus the upstream dialects kernels and lowerings use:
/// arith, math, scf, cf, func, gpu, nvvm, llvm, memref, vector, ub.
void registerTXLDialects(DialectRegistry &registry);
} // namespace txl
} // namespace mlir

#endif // TXL_INITALLDIALECTS_H
