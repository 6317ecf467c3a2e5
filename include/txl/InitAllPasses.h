//===- InitAllPasses.h - every pass txl tools register ---------*- C++ -*-===//
//
// As upstream's mlir/InitAllPasses.h: one call for a tool that runs txl's
// passes by name (txl-opt), instead of one registration per library.
//
//===----------------------------------------------------------------------===//
#ifndef TXL_INITALLPASSES_H
#define TXL_INITALLPASSES_H

#include "txl/Conversion/Passes.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"
#include "txl/Pipeline.h"

namespace mlir::txl {

/// The txl dialect's passes, the conversion to NVVM and the
/// --txl-software-pipeliner pipeline.
inline void registerAllTXLPasses() {
  registerTXLPasses();
  registerTXLConversionPasses();
  registerTXLPipeline();
}

} // namespace mlir::txl

#endif // TXL_INITALLPASSES_H
