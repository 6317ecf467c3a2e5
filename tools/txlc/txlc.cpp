//===- txlc.cpp - the txl compiler driver ---------------------------------===//
//
// txlc compiles a txl (or already lowered LLVM + NVVM dialect) module to PTX,
// and with --emit=cubin to a cubin via ptxas:
//
//   txlc k.mlir --arch=sm_90a -o k.ptx     writes k.ptx and k.json
//   txlc k.mlir --emit=cubin -o k.ptx      also k.cubin
//
// k.json (the "sidecar") tells python/txl/runtime/launcher.py how to launch
// the kernel. The driver is thin: the pipeline is mlir::txl::buildTXLPipeline
// (its stages come from getTXLPipelineStages, which --print-pipeline lists
// and --stop-after cuts), the back end is the TXLTargetPTX library.
//
// Outputs appear only when everything succeeded: all results are computed in
// memory first, then written to temporary files that are renamed into place,
// so a failed run never leaves a PTX without its sidecar or a stale mix.
// Every user error is a diagnostic (with the input location when there is
// one) and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "txl/Analysis/LoweringUtils.h"
#include "txl/Dialect/TXL/IR/TXLDialect.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"
#include "txl/InitAllDialects.h"
#include "txl/Pipeline.h"
#include "txl/Support/CrashGuard.h"
#include "txl/Target/PTX.h"
#include "txl/Target/Sidecar.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory txlcCategory("txlc options");

static cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<input .mlir>"), cl::init("-"),
                                          cl::cat(txlcCategory));
static cl::opt<std::string>
    outputFilename("o",
                   cl::desc("Output file (default: <input stem>.ptx/.json in the current "
                            "directory for ptx, cubin and json; stdout for mlir and llvm). "
                            "The sidecar <stem>.json and, with --emit=cubin, <stem>.cubin are "
                            "written beside the PTX"),
                   cl::value_desc("file"), cl::cat(txlcCategory));
static cl::opt<std::string>
    archOpt("arch",
            cl::desc("Target architecture: sm_90a or sm_100a (default: the module's "
                     "txl.target, else sm_90a)"),
            cl::value_desc("sm_XXa"), cl::cat(txlcCategory));
static cl::opt<std::string>
    ptxVersionOpt("ptx-version",
                  cl::desc("PTX ISA version of the output, e.g. ptx86 (sm_90a needs >= ptx80, "
                           "sm_100a >= ptx86)"),
                  cl::init(mlir::txl::kDefaultPTXVersion.str()), cl::cat(txlcCategory));
static cl::opt<std::string>
    emitOpt("emit",
            cl::desc("What to produce: ptx (default; + sidecar), cubin (ptx + sidecar + cubin "
                     "via ptxas), llvm (optimized LLVM IR), mlir (IR after the txl pipeline), "
                     "json (the sidecar only)"),
            cl::value_desc("ptx|cubin|llvm|mlir|json"), cl::init("ptx"), cl::cat(txlcCategory));
// --stop-after is also the name of LLVM's codegen option (TargetPassConfig),
// which libLLVM registers first; a second cl::opt of that name aborts at
// start-up. txlc takes that option over in setUpStopAfter() instead and
// clears it before codegen runs, so LLVM never sees a txl stage name.
static cl::opt<std::string> *stopAfterOpt = nullptr;
static constexpr StringLiteral kStopAfterDesc =
    "Run the pipeline up to and including this stage, print the IR and stop (see "
    "--print-pipeline)";

static void setUpStopAfter() {
  auto &options = cl::getRegisteredOptions();
  auto it = options.find("stop-after");
  if (it == options.end()) {
    stopAfterOpt = new cl::opt<std::string>("stop-after", cl::desc(kStopAfterDesc),
                                            cl::value_desc("stage"), cl::cat(txlcCategory));
    return;
  }
  // LLVM's is a cl::opt<std::string> ("-stop-after=<pass-name>").
  stopAfterOpt = static_cast<cl::opt<std::string> *>(it->second);
  stopAfterOpt->setDescription(kStopAfterDesc);
  stopAfterOpt->setValueStr("stage");
  stopAfterOpt->setHiddenFlag(cl::NotHidden);
  stopAfterOpt->addCategory(txlcCategory);
}

static cl::opt<bool> printPipeline("print-pipeline",
                                   cl::desc("Print the ordered pipeline stage names and exit"),
                                   cl::cat(txlcCategory));
static cl::opt<bool> debugHangs("debug-hangs",
                                cl::desc("Bound every mbarrier wait (2 s), then print the barrier, "
                                         "phase, block, thread and source location and trap"),
                                cl::cat(txlcCategory));
static cl::opt<std::string>
    libdeviceOpt("libdevice",
                 cl::desc("CUDA's libdevice.10.bc, linked when a kernel calls a __nv_* function "
                          "(default: $TXL_LIBDEVICE, then the CUDA toolkit's)"),
                 cl::value_desc("path"), cl::cat(txlcCategory));
static cl::opt<std::string> dumpStagesDir(
    "dump-stages",
    cl::desc("Also write the IR after each pipeline stage that runs, as <dir>/NN-<stage>.mlir "
             "(with the other outputs: only when the whole run succeeds)"),
    cl::value_desc("dir"), cl::cat(txlcCategory));
static cl::opt<unsigned> optLevel("O", cl::desc("LLVM optimization level (0-3, default 3)"),
                                  cl::Prefix, cl::init(3), cl::cat(txlcCategory));
static cl::opt<bool>
    timePhases("time-phases",
               cl::desc("Print to stderr the wall seconds of each phase: parse, the txl passes, "
                        "the schedule trial's passes, LLVM (translation, O3, NVPTX) and waiting "
                        "for ptxas (bench/compile_time.py reads this line)"),
               cl::cat(txlcCategory));

static cl::opt<bool> verifyEach(
    "verify-each",
    cl::desc("Verify the IR after every pipeline stage, as txl-opt does, instead of once after "
             "the last stage (finds the stage that broke the IR; costs 5-10 % of a compile)"),
    cl::Hidden, cl::cat(txlcCategory));

static cl::opt<bool> compareSchedules(
    "compare-schedules",
    cl::desc("Assemble both schedules of the async P @ V trial even where the async one "
             "cannot lose (checks the shortcut: the PTX must be the same; its old cost)"),
    cl::Hidden, cl::cat(txlcCategory));

namespace {
/// Wall seconds per phase for --time-phases. The phases do not overlap in
/// this thread; ptxas runs in its own process, so "ptxas" is only the time
/// txlc waits for it (not the part hidden behind a translation).
struct PhaseTimes {
  double parse = 0, passes = 0, trialPasses = 0, llvm = 0, ptxas = 0;
} phaseTimes;

/// Adds the wall time of its scope to one phase.
class PhaseTimer {
public:
  explicit PhaseTimer(double &phase) : phase(phase), start(std::chrono::steady_clock::now()) {}
  ~PhaseTimer() {
    phase += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

private:
  double &phase;
  std::chrono::steady_clock::time_point start;
};

void printPhaseTimes() {
  llvm::errs() << llvm::format("txlc-phases: parse %.3f passes %.3f trial-passes %.3f llvm %.3f "
                               "ptxas %.3f\n",
                               phaseTimes.parse, phaseTimes.passes, phaseTimes.trialPasses,
                               phaseTimes.llvm, phaseTimes.ptxas);
}
} // namespace

namespace {
/// One file to produce: written only once every output has been computed.
struct Output {
  std::string path; // "-" is stdout
  std::string data;
};

/// The kinds of --emit.
constexpr StringLiteral kEmitKinds[] = {"ptx", "cubin", "llvm", "mlir", "json"};
} // namespace

/// Writes every output through a temporary file renamed into place; on any
/// failure removes what it wrote, so a run either produces all its outputs
/// or none.
static LogicalResult writeOutputs(MLIRContext &ctx, ArrayRef<Output> outputs) {
  Location loc = UnknownLoc::get(&ctx);
  SmallVector<std::pair<llvm::sys::fs::TempFile, const Output *>> temps;
  auto discardAll = [&] {
    for (auto &entry : temps)
      llvm::consumeError(entry.first.discard());
  };
  for (const Output &out : outputs) {
    if (out.path == "-")
      continue;
    llvm::Expected<llvm::sys::fs::TempFile> temp =
        llvm::sys::fs::TempFile::create(out.path + "-%%%%%%.tmp");
    if (!temp) {
      std::string why = llvm::toString(temp.takeError());
      discardAll();
      return emitError(loc) << "cannot create output file '" << out.path << "': " << why;
    }
    {
      llvm::raw_fd_ostream os(temp->FD, /*shouldClose=*/false);
      os << out.data;
      os.flush();
      if (os.has_error()) {
        std::string why = os.error().message();
        os.clear_error();
        temps.emplace_back(std::move(*temp), &out);
        discardAll();
        return emitError(loc) << "cannot write output file '" << out.path << "': " << why;
      }
    }
    temps.emplace_back(std::move(*temp), &out);
  }
  for (size_t i = 0; i < temps.size(); ++i) {
    const Output *out = temps[i].second;
    if (llvm::Error err = temps[i].first.keep(out->path)) {
      std::string why = llvm::toString(std::move(err));
      // Roll back: the outputs belong together (a PTX and its sidecar). A
      // failed keep() has already removed its own temporary file.
      for (size_t j = 0; j < i; ++j)
        llvm::sys::fs::remove(temps[j].second->path);
      for (size_t j = i + 1; j < temps.size(); ++j)
        llvm::consumeError(temps[j].first.discard());
      return emitError(loc) << "cannot write output file '" << out->path << "': " << why;
    }
  }
  for (const Output &out : outputs)
    if (out.path == "-")
      llvm::outs() << out.data;
  llvm::outs().flush();
  return success();
}

static std::string printModule(ModuleOp module);

namespace {
/// Keeps the IR after one pipeline stage as an output (--dump-stages): every
/// stage's IR from the one run that compiles the kernel.
struct CaptureStage : PassWrapper<CaptureStage, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CaptureStage)
  CaptureStage(std::string path, SmallVectorImpl<Output> *outputs)
      : path(std::move(path)), outputs(outputs) {}
  StringRef getArgument() const override { return "txlc-capture-stage"; }
  void runOnOperation() override {
    outputs->push_back({path, printModule(getOperation())});
    markAllAnalysesPreserved();
  }
  std::string path;
  SmallVectorImpl<Output> *outputs;
};
} // namespace

static std::string withExtension(StringRef path, StringRef ext) {
  llvm::SmallString<256> p(path);
  llvm::sys::path::replace_extension(p, ext);
  return std::string(p.str());
}

static std::string printModule(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  os << "\n";
  return text;
}

namespace {
/// What the command line asks for, checked before the input is read: the
/// output kind, how many pipeline stages run, and the files written.
struct Request {
  StringRef emit;
  size_t numStages = 0;
  std::string out, ptxPath, cubinPath, jsonPath;
};
} // namespace

/// The options that need no input (--emit, --stop-after, -O, --arch) and
/// the output paths: the PTX, cubin and sidecar share a stem (-o k.ptx gives
/// k.json, k.cubin).
static LogicalResult readRequest(ArrayRef<mlir::txl::PipelineStage> stages, Location cliLoc,
                                 Request &req) {
  auto cliError = [&]() { return emitError(cliLoc); };
  auto listStages = [&](InFlightDiagnostic &diag) {
    llvm::interleaveComma(stages, diag, [&](const mlir::txl::PipelineStage &s) { diag << s.name; });
  };
  if (!llvm::is_contained(kEmitKinds, StringRef(emitOpt))) {
    InFlightDiagnostic diag = cliError()
                              << "unknown --emit kind '" << emitOpt << "'; expected one of: ";
    llvm::interleaveComma(kEmitKinds, diag);
    return failure();
  }
  req.emit = emitOpt;
  req.numStages = stages.size();
  std::string stopAfter = stopAfterOpt->getValue();
  // Not an LLVM pass name: keep it away from the NVPTX codegen pipeline.
  stopAfterOpt->setValue("");
  if (!stopAfter.empty()) {
    auto it = llvm::find_if(stages,
                            [&](const mlir::txl::PipelineStage &s) { return s.name == stopAfter; });
    if (it == stages.end()) {
      InFlightDiagnostic diag = cliError() << "unknown pipeline stage '" << stopAfter
                                           << "' for --stop-after; the stages are: ";
      listStages(diag);
      return failure();
    }
    if (emitOpt.getNumOccurrences() && req.emit != "mlir") {
      cliError() << "--stop-after prints MLIR, but --emit=" << req.emit
                 << " was also given; drop one of them";
      return failure();
    }
    req.numStages = std::distance(stages.begin(), it) + 1;
    req.emit = "mlir";
  }
  if (optLevel > 3) {
    cliError() << "-O" << optLevel.getValue() << " is out of range; expected -O0, -O1, -O2 or -O3";
    return failure();
  }
  if (!archOpt.empty() && failed(mlir::txl::checkPTXTarget(cliLoc, archOpt, ptxVersionOpt)))
    return failure();

  StringRef emit = req.emit;
  bool wantsFiles = emit == "ptx" || emit == "cubin" || emit == "json";
  std::string &out = req.out;
  out = outputFilename;
  if (out.empty()) {
    if (!wantsFiles) {
      out = "-";
    } else if (inputFilename == "-") {
      cliError() << "reading from stdin: give the output file with -o (--emit=" << req.emit
                 << " writes files named after it)";
      return failure();
    } else {
      StringRef stem = llvm::sys::path::stem(inputFilename);
      out = (stem + (emit == "json" ? ".json" : ".ptx")).str();
    }
  }
  std::string &ptxPath = req.ptxPath, &cubinPath = req.cubinPath, &jsonPath = req.jsonPath;
  if (emit == "ptx" || emit == "cubin") {
    if (out == "-" && emit == "cubin") {
      cliError() << "--emit=cubin writes three files (PTX, cubin, sidecar); give -o k.ptx";
      return failure();
    }
    bool namedCubin = emit == "cubin" && llvm::sys::path::extension(out) == ".cubin";
    ptxPath = namedCubin ? withExtension(out, "ptx") : out;
    if (emit == "cubin")
      cubinPath = namedCubin ? out : withExtension(out, "cubin");
    // PTX on stdout has nowhere to put a sidecar beside it.
    if (ptxPath != "-")
      jsonPath = withExtension(ptxPath, "json");
    if (!jsonPath.empty() && (jsonPath == ptxPath || jsonPath == cubinPath)) {
      cliError() << "output '" << out
                 << "' would be overwritten by the sidecar; name the output k.ptx";
      return failure();
    }
  } else if (emit == "json") {
    if (out == "-") {
      cliError() << "--emit=json needs an output file: the sidecar names the PTX beside it";
      return failure();
    }
    jsonPath = out;
    ptxPath = withExtension(out, "ptx");
    if (ptxPath == jsonPath) {
      cliError() << "--emit=json output '" << out << "' must not end in .ptx; use k.json";
      return failure();
    }
  }

  return success();
}

/// The input module, parsed (the crash guard keeps its text to locate a
/// parser crash).
static OwningOpRef<ModuleOp> parseInput(MLIRContext &ctx, llvm::SourceMgr &sourceMgr,
                                        mlir::txl::CrashGuard &guard) {
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(inputFilename, &errorMessage);
  if (!input) {
    emitError(UnknownLoc::get(&ctx)) << errorMessage; // "cannot open input file 'x': ..."
    return nullptr;
  }
  guard.setInputText(input->getBuffer());
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &ctx);
  return module; // null: the parser has reported why
}

/// The target: the module's txl.target (what its ops were verified against),
/// else --arch, else sm_90a.
static FailureOr<std::string> resolveArch(ModuleOp module, Location cliLoc) {
  // tcgen05 needs sm_100a: --arch may only repeat the module's target.
  std::string arch = archOpt;
  Location archLoc = cliLoc;
  if (auto target = module->getAttrOfType<StringAttr>(mlir::txl::kTargetAttrName)) {
    if (!arch.empty() && arch != target.getValue()) {
      emitError(module.getLoc()) << "the module targets " << target.getValue() << " ("
                                 << mlir::txl::kTargetAttrName << ") but --arch=" << arch
                                 << " was given; drop --arch or change the module's "
                                 << mlir::txl::kTargetAttrName;
      return failure();
    }
    arch = target.getValue().str();
    archLoc = module.getLoc();
  }
  if (arch.empty())
    arch = "sm_90a";
  if (archOpt.empty() && failed(mlir::txl::checkPTXTarget(archLoc, arch, ptxVersionOpt)))
    return failure();
  return arch;
}

/// The module's kernel (its txl-level signature, for the sidecar, read before
/// the pipeline turns descriptors into plain pointers) and what makes a
/// module impossible to compile: code outside functions, no kernel.
static LogicalResult checkKernels(ModuleOp module, const Request &req,
                                  SmallVectorImpl<mlir::txl::KernelSignature> &kernels) {
  if (!req.jsonPath.empty()) {
    FailureOr<SmallVector<mlir::txl::KernelSignature>> sigs =
        mlir::txl::collectKernelSignatures(module);
    if (failed(sigs))
      return failure();
    kernels.assign(sigs->begin(), sigs->end());
    if (kernels.size() > 1) {
      InFlightDiagnostic diag = emitError(module.getLoc())
                                << "the module has " << kernels.size() << " kernels (";
      llvm::interleaveComma(kernels, diag,
                            [&](const mlir::txl::KernelSignature &k) { diag << k.name; });
      diag << ") but a sidecar describes one; put each kernel in its own file";
      return failure();
    }
    if (kernels.empty() && req.emit == "json") {
      emitError(module.getLoc()) << "no function has '" << mlir::txl::kKernelAttrName
                                 << "', so there is no kernel for the sidecar to describe";
      return failure();
    }
  }

  // Code lives in functions: an operation at module level (a fuzzer find:
  // `txl.async_load_wait` there) would reach LLVM translation with no
  // function to emit into and crash it.
  for (Operation &op : module.getBody()->getOperations())
    if (!isa<SymbolOpInterface>(op)) {
      op.emitError() << "'" << op.getName()
                     << "' at module level: operations belong inside a kernel function";
      return failure();
    }

  // A module whose functions are all plain (no txl.kernel; for LLVM-dialect
  // input no nvvm.kernel) would compile to PTX .func's that nothing can
  // launch, without a sidecar.
  bool hasKernel = false;
  module->walk([&](FunctionOpInterface fn) {
    hasKernel |= fn->hasAttr(mlir::txl::kKernelAttrName) ||
                 fn->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName());
  });
  if (!hasKernel && req.emit != "mlir") {
    emitError(module.getLoc()) << "no kernel in the module: mark the entry function with "
                                  "`attributes {"
                               << mlir::txl::kKernelAttrName << ", " << mlir::txl::kNumWarpsAttrName
                               << " = 4 : i32}` (func.func), or `nvvm.kernel` on an llvm.func";
    return failure();
  }

  return success();
}

/// The first `numStages` txl pipeline stages (none for a module already in
/// the LLVM and NVVM dialects), keeping each stage's IR in `outputs` for
/// --dump-stages.
static LogicalResult runPipeline(MLIRContext &ctx, ModuleOp module,
                                 ArrayRef<mlir::txl::PipelineStage> stages, size_t numStages,
                                 mlir::txl::CrashGuard &guard, SmallVectorImpl<Output> &outputs) {
  PassManager pm(&ctx, ModuleOp::getOperationName());
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  guard.instrument(pm);
  // The input was verified by the parser and every stage is verified by its
  // lit tests (txl-opt verifies after each pass); here the IR is verified
  // once, after the last stage that runs, so invalid IR still never reaches
  // the printer or the LLVM translation. Verifying after each of the ~20
  // stages cost 5-10 % of a kernel's compile (the late, LLVM-dialect IR is
  // large). --verify-each restores it to find the stage that broke the IR.
  pm.enableVerifier(verifyEach);
  // A module already in the LLVM + NVVM dialects (hand-written or lowered
  // earlier) has nothing for the txl stages to do; only the back end runs.
  bool alreadyLowered = true;
  module->walk([&](Operation *op) {
    Dialect *dialect = op->getDialect();
    if (op == module.getOperation() ||
        (dialect && isa<LLVM::LLVMDialect, NVVM::NVVMDialect>(dialect)))
      return WalkResult::advance();
    alreadyLowered = false;
    return WalkResult::interrupt();
  });
  if (!dumpStagesDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(dumpStagesDir)) {
      emitError(UnknownLoc::get(&ctx)) << "cannot create the --dump-stages directory '"
                                       << dumpStagesDir << "': " << ec.message();
      return failure();
    }
  }
  for (size_t i = 0; i < numStages && !alreadyLowered; ++i) {
    pm.addPass(stages[i].create());
    if (!dumpStagesDir.empty()) {
      llvm::SmallString<256> path(dumpStagesDir.getValue());
      std::string name = (i < 10 ? "0" : "") + std::to_string(i) + "-" + stages[i].name + ".mlir";
      llvm::sys::path::append(path, name);
      pm.addPass(std::make_unique<CaptureStage>(std::string(path), &outputs));
    }
  }
  if (failed(pm.run(module)))
    return failure();
  return success(verifyEach || alreadyLowered || succeeded(verify(module)));
}

/// The PTX of a lowered module, its cubin and what ptxas warned about it.
struct MachineCode {
  std::string ptx;
  std::vector<char> cubin;
  SmallVector<std::string> warnings;
};

/// Where ptxas' findings about the module are reported: its kernel's own
/// location (the user's `def` line, from the frontend), not the module's
/// first line (whose text, the module header, means nothing to the user).
static Location kernelLocation(ModuleOp module) {
  for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
    if (fn->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
      return fn.getLoc();
  return module.getLoc();
}

/// Waits for ptxas `run`, its allocation in `info` and its warnings held
/// back in `warnings` (the caller reports those of the version it keeps).
static FailureOr<std::vector<char>> finish(mlir::txl::PtxasRun &run, mlir::txl::PtxasInfo &info,
                                           SmallVector<std::string> &warnings) {
  ScopedDiagnosticHandler held(run.loc.getContext(), [&](Diagnostic &diag) {
    if (diag.getSeverity() != DiagnosticSeverity::Warning)
      return failure(); // errors go on to the caller's handler
    warnings.push_back(diag.str());
    return success();
  });
  PhaseTimer timer(phaseTimes.ptxas);
  return mlir::txl::finishPtxas(run, &info);
}

/// `ptx` with `.minnctapersm 1` after its kernel's `.reqntid` directive, or
/// "" when it has no such line, already has the hint, or when ptxas used
/// `registers` already as many registers as a thread of that block can have
/// (the hint only lets ptxas spend more: assembling again would not help).
static std::string withOneCtaPerSM(StringRef ptx, int64_t registers) {
  size_t at = ptx.find("\n.reqntid ");
  if (at == StringRef::npos || ptx.contains(".minnctapersm"))
    return "";
  size_t eol = ptx.find('\n', at + 1);
  if (eol == StringRef::npos)
    return "";
  int64_t threads = 1;
  for (StringRef dim : llvm::split(ptx.slice(at + 9, eol).trim(), ',')) {
    int64_t n = 0;
    if (dim.trim().getAsInteger(10, n) || n <= 0)
      return "";
    threads *= n;
  }
  // 64K registers per SM, at most 255 a thread, allocated in steps of 8.
  int64_t cap = std::min<int64_t>(255, 65536 / threads / 8 * 8);
  if (registers >= cap)
    return "";
  return (ptx.take_front(eol + 1) + ".minnctapersm 1\n" + ptx.drop_front(eol + 1)).str();
}

/// The PTX of a lowered module, its kernel's location and, once assembled,
/// its cubin and ptxas' warnings.
struct Translated {
  MachineCode code;
  Location loc;
};

static FailureOr<Translated> translate(ModuleOp module, StringRef arch) {
  PhaseTimer timer(phaseTimes.llvm);
  FailureOr<std::string> ptx =
      mlir::txl::translateToPTX(module, arch, ptxVersionOpt, optLevel, libdeviceOpt);
  if (failed(ptx))
    return failure();
  Translated t{MachineCode(), kernelLocation(module)};
  t.code.ptx = std::move(*ptx);
  return t;
}

/// Finishes `run` (ptxas on `t.code.ptx`) into `t.code.cubin`, its warnings
/// into `t.code.warnings` and its allocation into `info`.
///
/// Kernels carry `.minnctapersm 1` only where setmaxnreg needs it: with the
/// hint ptxas spends registers as if one CTA per SM sufficed (a bf16 SwiGLU
/// row: 87 registers instead of Triton's 32). Without it ptxas may aim at
/// occupancy and spill instead (a layer-norm backward row of 8192: 32
/// registers and 3844 bytes of spill stores, against 255 registers and 588
/// bytes with the hint). So a kernel that spills with registers to spare is
/// assembled again with the hint, and the version that spills less is kept.
static LogicalResult finishKept(Translated &t, mlir::txl::PtxasRun &run, StringRef arch,
                                mlir::txl::PtxasInfo &info) {
  FailureOr<std::vector<char>> bin = finish(run, info, t.code.warnings);
  if (failed(bin))
    return failure();
  if (std::string hinted = info.spillBytes > 0 ? withOneCtaPerSM(t.code.ptx, info.registers) : "";
      !hinted.empty()) {
    mlir::txl::PtxasInfo hintedInfo;
    SmallVector<std::string> hintedWarnings;
    FailureOr<std::unique_ptr<mlir::txl::PtxasRun>> again =
        mlir::txl::startPtxas(hinted, arch, t.loc);
    FailureOr<std::vector<char>> hintedBin = succeeded(again)
                                                 ? finish(**again, hintedInfo, hintedWarnings)
                                                 : FailureOr<std::vector<char>>();
    if (succeeded(hintedBin) && hintedInfo.spillBytes < info.spillBytes) {
      t.code.ptx = std::move(hinted);
      bin = std::move(hintedBin);
      info = hintedInfo;
      t.code.warnings = std::move(hintedWarnings);
    }
  }
  t.code.cubin = std::move(*bin);
  return success();
}

/// The PTX of a lowered module and, with `cubin`, its cubin from ptxas
/// (whose warnings it reports, and its allocation in `info` when given).
static FailureOr<MachineCode> lowerToMachineCode(ModuleOp module, StringRef arch, bool cubin,
                                                 mlir::txl::PtxasInfo *info = nullptr) {
  FailureOr<Translated> t = translate(module, arch);
  if (failed(t) || !cubin)
    return failed(t) ? FailureOr<MachineCode>() : FailureOr<MachineCode>(std::move(t->code));
  FailureOr<std::unique_ptr<mlir::txl::PtxasRun>> run =
      mlir::txl::startPtxas(t->code.ptx, arch, t->loc);
  mlir::txl::PtxasInfo kept;
  if (failed(run) || failed(finishKept(*t, **run, arch, kept)))
    return failure();
  for (const std::string &warning : t->code.warnings)
    emitWarning(t->loc) << warning;
  t->code.warnings.clear();
  if (info)
    *info = kept;
  return std::move(t->code);
}

/// The requested outputs of the lowered module (MLIR, the sidecar, LLVM IR,
/// PTX, cubin), written together with the stage dumps; returns the exit code.
/// `compiled`: the module's PTX and cubin when they are already known.
static int emitResults(MLIRContext &ctx, ModuleOp module, const Request &req, StringRef arch,
                       ArrayRef<mlir::txl::KernelSignature> kernels, mlir::txl::CrashGuard &guard,
                       SmallVector<Output> &outputs, std::optional<MachineCode> compiled) {
  guard.setStage("the output");
  if (req.emit == "mlir") {
    outputs.push_back({req.out, printModule(module)});
    return failed(writeOutputs(ctx, outputs)) ? 1 : 0;
  }

  std::string sidecar;
  if (!req.jsonPath.empty() && !kernels.empty()) {
    mlir::txl::SidecarFiles files;
    files.ptx = llvm::sys::path::filename(req.ptxPath).str();
    if (!req.cubinPath.empty())
      files.cubin = llvm::sys::path::filename(req.cubinPath).str();
    FailureOr<std::string> json = mlir::txl::buildSidecarJSON(kernels.front(), module, arch, files);
    if (failed(json))
      return 1;
    sidecar = std::move(*json);
  }
  if (req.emit == "json") {
    outputs.push_back({req.jsonPath, sidecar});
    return failed(writeOutputs(ctx, outputs)) ? 1 : 0;
  }

  guard.setStage("the LLVM translation and NVPTX back end");
  if (req.emit == "llvm") {
    FailureOr<std::string> ir =
        mlir::txl::translateToOptimizedLLVMIR(module, arch, ptxVersionOpt, optLevel, libdeviceOpt);
    if (failed(ir))
      return 1;
    outputs.push_back({req.out, std::move(*ir)});
    return failed(writeOutputs(ctx, outputs)) ? 1 : 0;
  }

  if (compiled) {
    for (const std::string &warning : compiled->warnings)
      emitWarning(kernelLocation(module)) << warning;
  } else {
    FailureOr<MachineCode> code = lowerToMachineCode(module, arch, req.emit == "cubin");
    if (failed(code))
      return 1;
    compiled = std::move(*code);
  }
  guard.setStage("the output");
  if (req.emit == "cubin")
    outputs.push_back({req.cubinPath, std::string(compiled->cubin.begin(), compiled->cubin.end())});
  outputs.push_back({req.ptxPath, std::move(compiled->ptx)});
  if (!sidecar.empty())
    outputs.push_back({req.jsonPath, std::move(sidecar)});
  return failed(writeOutputs(ctx, outputs)) ? 1 : 0;
}

/// CTAs of `numWarps` warps that fit on one SM of sm_90 (sm_100 has the same
/// limits) with `registers` per thread (allocated per warp in units of 256,
/// 64K per SM), `sharedBytes` (plus the 1 KB the CTA reserves) of the SM's
/// 228 KB, at most 64 warps and 32 CTAs.
static int64_t ctasPerSM(int64_t registers, int64_t numWarps, int64_t sharedBytes) {
  int64_t perWarp = llvm::alignTo(std::max<int64_t>(registers, 1) * 32, 256);
  int64_t byRegisters = (65536 / perWarp) / numWarps;
  int64_t byShared = 233472 / (sharedBytes + 1024);
  int64_t byWarps = 64 / numWarps;
  return std::min({byRegisters, byShared, byWarps, int64_t(32)});
}

/// CTAs of kernel `name` in `m` (lowered) that fit on one SM whatever its
/// register count: the bound of ctasPerSM from its shared memory and warps.
static int64_t ctasPerSMBound(ModuleOp m, StringRef name, int64_t numWarps) {
  int64_t shared = 0;
  if (Operation *fn = SymbolTable::lookupSymbolIn(m, name))
    if (auto bytes = fn->getAttrOfType<IntegerAttr>(mlir::txl::kSharedBytesAttrName))
      shared = bytes.getInt();
  return ctasPerSM(/*registers=*/1, numWarps, shared);
}

/// txl-schedule-loops made attention's P @ V async (retired by the next
/// iteration, after the next QK^T): faster where the registers of P that it
/// holds one iteration longer are free, slower where they cost a CTA per SM
/// (attn_fwd_desc D64 on 8 warps: 128 -> 154 registers) or spills. So the
/// same input is compiled without it too and ptxas decides: more CTAs per SM,
/// then fewer spilled bytes; a tie keeps the async schedule. Returns the
/// chosen schedule's machine code (and makes `module` that schedule's), or
/// nothing when either schedule fails to compile: the caller then reports
/// the first one's errors as usual.
///
/// The synchronous schedule is only assembled when it could win: when the
/// async one spills nothing and already has as many CTAs per SM as the
/// synchronous one's shared memory and warps allow, no register count can
/// make the synchronous one better (more CTAs or fewer spills), so the choice
/// is the one comparing both would make, without the second ptxas run. (Its
/// LLVM back end runs anyway, while the first ptxas does: waiting for the
/// first ptxas before translating would cost more where both are needed.)
static std::optional<MachineCode> chooseSchedule(MLIRContext &ctx, OwningOpRef<ModuleOp> &module,
                                                 OwningOpRef<ModuleOp> withoutRescale,
                                                 mlir::txl::PipelineOptions options, StringRef arch,
                                                 const mlir::txl::KernelSignature &kernel,
                                                 mlir::txl::CrashGuard &guard) {
  SmallVector<std::string> warnings;
  ScopedDiagnosticHandler collect(&ctx, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Warning)
      warnings.push_back(diag.str());
    return success();
  });
  struct Compiled {
    MachineCode code;
    int64_t ctas, spillBytes;
  };
  auto translateOne = [&](ModuleOp m, std::optional<Translated> &t) {
    guard.setStage("the LLVM translation and NVPTX back end (comparing schedules)");
    warnings.clear();
    FailureOr<Translated> translated = translate(m, arch);
    if (failed(translated))
      return;
    t = std::move(*translated);
    t->code.warnings = warnings; // the translation's own (LLVM's) warnings
  };
  auto assemble = [&](std::optional<Translated> &t) -> std::unique_ptr<mlir::txl::PtxasRun> {
    if (!t)
      return nullptr;
    FailureOr<std::unique_ptr<mlir::txl::PtxasRun>> run =
        mlir::txl::startPtxas(t->code.ptx, arch, t->loc);
    return succeeded(run) ? std::move(*run) : nullptr;
  };
  auto finishOne = [&](ModuleOp m, std::optional<Translated> &t,
                       std::unique_ptr<mlir::txl::PtxasRun> &run) -> std::optional<Compiled> {
    mlir::txl::PtxasInfo info;
    if (!run || failed(finishKept(*t, *run, arch, info)) || info.registers == 0)
      return std::nullopt;
    int64_t shared = 0;
    if (Operation *fn = SymbolTable::lookupSymbolIn(m, kernel.name))
      if (auto bytes = fn->getAttrOfType<IntegerAttr>(mlir::txl::kSharedBytesAttrName))
        shared = bytes.getInt();
    return Compiled{std::move(t->code), ctasPerSM(info.registers, kernel.numWarps, shared),
                    info.spillBytes};
  };
  // The async schedule is assembled while the trial's passes and its LLVM
  // back end run; the synchronous one is assembled only if it could win.
  std::optional<Translated> asyncT, syncT;
  translateOne(*module, asyncT);
  std::unique_ptr<mlir::txl::PtxasRun> asyncRun = assemble(asyncT);
  options.rescaledAsync = false;
  SmallVector<mlir::txl::PipelineStage> stages = mlir::txl::getTXLPipelineStages(options);
  SmallVector<Output> unused;
  {
    PhaseTimer timer(phaseTimes.trialPasses);
    if (failed(runPipeline(ctx, *withoutRescale, stages, stages.size(), guard, unused)))
      return std::nullopt;
  }
  translateOne(*withoutRescale, syncT);
  std::optional<Compiled> async;
  if (!compareSchedules) {
    async = finishOne(*module, asyncT, asyncRun);
    if (!async)
      return std::nullopt;
    if (async->spillBytes == 0 &&
        async->ctas >= ctasPerSMBound(*withoutRescale, kernel.name, kernel.numWarps))
      return std::move(async->code);
  }
  // With --compare-schedules both ptxas run at once, as before the shortcut.
  std::unique_ptr<mlir::txl::PtxasRun> syncRun = assemble(syncT);
  if (!async)
    async = finishOne(*module, asyncT, asyncRun);
  std::optional<Compiled> sync = finishOne(*withoutRescale, syncT, syncRun);
  if (!async || !sync)
    return std::nullopt;
  if (sync->ctas > async->ctas ||
      (sync->ctas == async->ctas && sync->spillBytes < async->spillBytes)) {
    module = std::move(withoutRescale);
    return std::move(sync->code);
  }
  return std::move(async->code);
}

/// The txlc proper; returns the exit code.
static int compile(MLIRContext &ctx, llvm::SourceMgr &sourceMgr, mlir::txl::CrashGuard &guard) {
  Location cliLoc = UnknownLoc::get(&ctx);
  mlir::txl::PipelineOptions pipelineOptions;
  pipelineOptions.debugHangs = debugHangs;
  SmallVector<mlir::txl::PipelineStage> stages = mlir::txl::getTXLPipelineStages(pipelineOptions);
  if (printPipeline) {
    for (const mlir::txl::PipelineStage &stage : stages)
      llvm::outs() << stage.name << "\n";
    return 0;
  }
  Request req;
  if (failed(readRequest(stages, cliLoc, req)))
    return 1;
  OwningOpRef<ModuleOp> module;
  {
    PhaseTimer timer(phaseTimes.parse);
    module = parseInput(ctx, sourceMgr, guard);
  }
  if (!module)
    return 1;
  FailureOr<std::string> arch = resolveArch(*module, cliLoc);
  SmallVector<mlir::txl::KernelSignature> kernels;
  if (failed(arch) || failed(checkKernels(*module, req, kernels)))
    return 1;
  SmallVector<Output> outputs; // the stage dumps first, written with the rest
  bool machineCode = req.emit == "ptx" || req.emit == "cubin";
  OwningOpRef<ModuleOp> input = machineCode ? module->clone() : nullptr;
  {
    PhaseTimer timer(phaseTimes.passes);
    if (failed(runPipeline(ctx, *module, stages, req.numStages, guard, outputs)))
      return 1;
  }
  std::optional<MachineCode> compiled;
  if ((*module)->removeAttr(mlir::txl::kRescaledAsyncAttrName) && machineCode && !kernels.empty())
    compiled = chooseSchedule(ctx, module, std::move(input), pipelineOptions, *arch,
                              kernels.front(), guard);
  int rc = emitResults(ctx, *module, req, *arch, kernels, guard, outputs, std::move(compiled));
  if (timePhases)
    printPhaseTimes();
  return rc;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::setBugReportMsg("txlc crashed: this is a bug in txl, not in your input. Please file "
                        "an issue with the input file and the command line above.\n");

  // MLIR's own options (--mlir-print-ir-after-all, --mlir-timing, ...) work
  // but are hidden from --help, which lists txlc's.
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  setUpStopAfter();
  cl::HideUnrelatedOptions(txlcCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "txlc: the txl compiler (txl IR -> PTX / cubin + JSON sidecar)\n\n"
      "  txlc k.mlir --arch=sm_90a -o k.ptx        writes k.ptx and k.json\n"
      "  txlc k.mlir --emit=cubin -o k.ptx         also k.cubin (runs ptxas: $TXL_PTXAS,\n"
      "                                            PATH, /usr/local/cuda/bin/ptxas)\n");

  DialectRegistry registry;
  mlir::txl::registerTXLDialects(registry);
  mlir::txl::registerPTXTargetInterfaces(registry);
  MLIRContext ctx(registry);
  // Crash recovery (below) only covers its own thread: no thread pool.
  ctx.disableMultithreading();

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &ctx);
  // Command-line errors have no place in the input: print them the way LLVM
  // tools do ("txlc: error: ...") instead of as "<unknown>:0: error: ...".
  // Registered last, so it sees every diagnostic first and passes the rest on.
  ScopedDiagnosticHandler cliHandler(&ctx, [](Diagnostic &diag) -> LogicalResult {
    if (!isa<UnknownLoc>(diag.getLocation()))
      return failure();
    auto print = [](const Diagnostic &d) {
      llvm::raw_ostream &os = llvm::errs();
      switch (d.getSeverity()) {
      case DiagnosticSeverity::Error:
        llvm::WithColor::error(os, "txlc");
        break;
      case DiagnosticSeverity::Warning:
        llvm::WithColor::warning(os, "txlc");
        break;
      case DiagnosticSeverity::Note:
        llvm::WithColor::note(os, "txlc");
        break;
      case DiagnosticSeverity::Remark:
        llvm::WithColor::remark(os, "txlc");
        break;
      }
      os << d.str() << "\n";
    };
    print(diag);
    for (const Diagnostic &note : diag.getNotes())
      print(note);
    return success();
  });
  // A crash anywhere (upstream MLIR's parser crashes on a few malformed
  // constructs) is an "internal error" diagnostic and exit code 1. Outputs
  // are only written at the very end, through temporary files.
  mlir::txl::CrashGuard::Options guardOptions;
  guardOptions.tool = "txlc";
  guardOptions.inputFilename = inputFilename;
  guardOptions.registry = &registry;
  mlir::txl::CrashGuard guard(std::move(guardOptions));
  return guard.run([&] { return compile(ctx, sourceMgr, guard); });
}
