//===- txl-opt.cpp - the txl optimizer driver -----------------------------===//
//
// Like mlir-opt: parses txl and the upstream dialects kernels use, runs txl
// passes and the upstream passes that matter for kernels, prints the result.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "txl/Conversion/Passes.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"
#include "txl/InitAllDialects.h"
#include "llvm/Support/PrettyStackTrace.h"

int main(int argc, char **argv) {
  llvm::setBugReportMsg("txl-opt crashed: this is a bug in txl, not in your input. Please file "
                        "an issue with the input file and the command line above.\n");
  mlir::DialectRegistry registry;
  mlir::txl::registerTXLDialects(registry);
  // Upstream canonicalize, cse, licm, inline, symbol-dce, ... for tests and pipelines.
  mlir::registerTransformsPasses();
  mlir::txl::registerTXLPasses();
  mlir::txl::registerTXLConversionPasses();
  mlir::txl::registerTXLPipeline();
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "txl optimizer driver\n", registry));
}
