//===- txl-opt.cpp - the txl optimizer driver -----------------------------===//
//
// Like mlir-opt: parses txl and the upstream dialects kernels use, runs txl
// passes and the upstream passes that matter for kernels, prints the result.
//
// It is MlirOptMain's driver spelled out (options, input, output file) so
// the work can run under the CrashGuard: a crash in the parser or a pass is
// an "internal error" diagnostic and exit code 1, never a signal.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "txl/InitAllDialects.h"
#include "txl/InitAllPasses.h"
#include "txl/Support/CrashGuard.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/ToolOutputFile.h"

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::setBugReportMsg("txl-opt crashed: this is a bug in txl, not in your input. Please file "
                        "an issue with the input file and the command line above.\n");
  mlir::DialectRegistry registry;
  mlir::txl::registerTXLDialects(registry);
  // Upstream canonicalize, cse, licm, inline, symbol-dce, ... for tests and pipelines.
  mlir::registerTransformsPasses();
  mlir::txl::registerAllTXLPasses();

  // Crash recovery only covers the thread it runs on, and the verifier and
  // pass manager would otherwise fan out to a thread pool.
  llvm::SmallVector<char *> args(argv, argv + argc);
  static char disableThreading[] = "--mlir-disable-threading";
  if (llvm::none_of(args, [](llvm::StringRef arg) {
        return arg.ltrim('-').starts_with("mlir-disable-threading");
      }))
    args.push_back(disableThreading);
  // Plain strings: C++17 lambdas cannot capture structured bindings.
  std::string inputFilename, outputFilename;
  std::tie(inputFilename, outputFilename) = mlir::registerAndParseCLIOptions(
      static_cast<int>(args.size()), args.data(), "txl optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();

  // Informational modes read no input (MlirOptMain answers them first).
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(llvm::outs(), llvm::MemoryBuffer::getMemBuffer(""), registry, config));

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input = mlir::openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  mlir::txl::CrashGuard::Options guardOptions;
  guardOptions.tool = "txl-opt";
  guardOptions.inputFilename = inputFilename;
  guardOptions.inputText = input->getBuffer().str();
  guardOptions.removeOnCrash = {outputFilename};
  guardOptions.registry = &registry;
  guardOptions.allowUnregisteredDialects = config.shouldAllowUnregisteredDialects();
  guardOptions.splitMarker = config.inputSplitMarker().str();
  mlir::txl::CrashGuard guard(std::move(guardOptions));

  // The pipeline from the command line, with the guard's instrumentation so
  // a crash names the pass.
  mlir::MlirOptMainConfig fromCommandLine = config;
  config.setPassPipelineSetupFn([&](mlir::PassManager &pm) {
    // Called once the input is parsed: a crash outside a pass from here on
    // (the verifier between passes, the printer) is not the parser's.
    guard.setStage("the pass pipeline or the output printer");
    guard.instrument(pm);
    return fromCommandLine.setupPassPipeline(pm);
  });

  return guard.run([&] {
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> output = mlir::openOutputFile(outputFilename, &error);
    if (!output) {
      llvm::errs() << error << "\n";
      return 1;
    }
    if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
      return 1;
    output->keep();
    return 0;
  });
}
