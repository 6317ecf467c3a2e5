//===- GlobalScratch.h - what txl-global-scratch adds to a kernel -*- C++ -*-===//
//
// The sidecar describes a kernel's parameters from its txl IR, read before
// the pipeline runs, so it asks here for the one parameter the pipeline adds
// (lib/Dialect/TXL/Transforms/GlobalScratch.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef TXL_DIALECT_TXL_TRANSFORMS_GLOBALSCRATCH_H
#define TXL_DIALECT_TXL_TRANSFORMS_GLOBALSCRATCH_H

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::txl {

/// Bytes per CTA of the global scratch parameter txl-global-scratch appends
/// to `func` (its txl.make_tensor_descriptor ops without a slot x the
/// kernel's warpgroups x 128); 0 when it appends none.
int64_t getGlobalScratchBytes(FunctionOpInterface func);

} // namespace mlir::txl

#endif // TXL_DIALECT_TXL_TRANSFORMS_GLOBALSCRATCH_H
