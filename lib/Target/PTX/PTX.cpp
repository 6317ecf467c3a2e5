//===- PTX.cpp - NVVM + LLVM dialect to PTX, in-process -------------------===//
//
// Route B of docs/mlir22-nvptx-facts.md §3a: convert-nvvm-to-llvm and
// reconcile-unrealized-casts, translateModuleToLLVMIR, the NVPTX triple and
// data layout, LLVM's O3 pipeline (makeOptimizingTransformer), then the
// NVPTX AsmPrinter. CUDA's libdevice.10.bc is linked (only the functions
// used, then internalized so that O3 inlines them) when a kernel calls a
// `__nv_*` function (txl.extern_elementwise, tl.extra.cuda.libdevice), as
// upstream's NVVM target links its bitcode libraries; any other external
// call is reported as an error here instead of as ptxas's "Unresolved extern
// function" later.
//
// LLVM reports some user-reachable problems by aborting the process
// (`LLVM ERROR: PTX version 6.0 does not support target 'sm_90a'`). The
// architecture and PTX version are therefore validated against LLVM's own
// tables before anything reaches the back end; a fatal error that gets past
// the checks (e.g. "Cannot select" for an instruction the chosen PTX version
// lacks) is caught by a scoped handler and becomes a diagnostic.
//
//===----------------------------------------------------------------------===//

#include "txl/Target/PTX.h"

#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Target/LLVMIR/LLVMTranslationInterface.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace mlir;
using namespace mlir::txl;

extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTarget();
extern "C" void LLVMInitializeNVPTXTargetMC();
extern "C" void LLVMInitializeNVPTXAsmPrinter();

static constexpr llvm::StringLiteral kTriple = "nvptx64-nvidia-cuda";

/// Registers the NVPTX back end with LLVM's TargetRegistry, once.
static void initializeNVPTX() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    // 32-bit shared-memory pointers (the data layout's p3:32:32), as Triton
    // and upstream MLIR's PTX builder (which passes shared pointers with the
    // "r" constraint) assume: shared memory is at most 228 KB, so 64-bit
    // addresses only cost registers and 64-bit arithmetic (a ring slot's
    // index `i % 3` became a 64-bit multiply-high in the cp.async GEMM).
    auto &options = llvm::cl::getRegisteredOptions();
    auto it = options.find("nvptx-short-ptr");
    if (it != options.end())
      static_cast<llvm::cl::opt<bool> *>(it->second)->setValue(true);
  });
}

static const llvm::Target *lookupNVPTX(std::string &error) {
  initializeNVPTX();
  return llvm::TargetRegistry::lookupTarget(llvm::Triple(kTriple), error);
}

//===----------------------------------------------------------------------===//
// Target checks
//===----------------------------------------------------------------------===//

std::string PTXTarget::versionDirective() const {
  // "ptx86" -> "8.6": PTX versions have a one-digit minor number.
  StringRef digits = StringRef(ptxVersion).drop_front(3);
  return (digits.drop_back(1) + "." + digits.take_back(1)).str();
}

/// The numeric PTX version of "ptxNN" (86 for ptx86), or -1.
static int ptxNumber(StringRef v) {
  unsigned n;
  if (!v.consume_front("ptx") || v.size() < 2 || v.getAsInteger(10, n))
    return -1;
  return static_cast<int>(n);
}

SmallVector<std::string> mlir::txl::getKnownPTXVersions() {
  SmallVector<std::string> versions;
  std::string error;
  const llvm::Target *target = lookupNVPTX(error);
  if (!target)
    return versions;
  // The subtarget's feature table is the list of PTX versions this LLVM can
  // emit; reading it (instead of hard-coding one) keeps the check in step
  // with whichever LLVM txl is linked against.
  std::unique_ptr<llvm::MCSubtargetInfo> sti(
      target->createMCSubtargetInfo(llvm::Triple(kTriple), "sm_90a", ""));
  if (!sti)
    return versions;
  for (const llvm::SubtargetFeatureKV &kv : sti->getAllProcessorFeatures())
    if (ptxNumber(kv.Key) > 0)
      versions.push_back(kv.Key);
  llvm::sort(versions, [](const std::string &a, const std::string &b) {
    return ptxNumber(a) < ptxNumber(b);
  });
  return versions;
}

/// The oldest PTX version that supports `arch`, as NVPTX.td states it
/// (`Proc<"sm_90a", [SM90a, PTX80]>`, `Proc<"sm_100a", [SM100a, PTX86]>`).
/// LLVM aborts when given an older one.
static int minPTXVersion(StringRef arch) { return arch == "sm_100a" ? 86 : 80; }

FailureOr<PTXTarget> mlir::txl::checkPTXTarget(Location loc, StringRef arch, StringRef ptxVersion) {
  if (!llvm::is_contained(kSupportedArchs, arch)) {
    InFlightDiagnostic diag = emitError(loc)
                              << "unsupported architecture '" << arch << "'; expected one of: ";
    llvm::interleaveComma(kSupportedArchs, diag);
    if (arch == "sm_90" || arch == "sm_100")
      diag << " (txl needs the architecture-specific features of '" << arch
           << "a': wgmma, setmaxnreg, tcgen05; use --arch=" << arch << "a)";
    return failure();
  }

  // Accept "ptx86", "+ptx86" and "8.6"; normalise to "ptx86".
  std::string version = ptxVersion.str();
  StringRef v = ptxVersion;
  v.consume_front("+");
  if (v.contains('.')) {
    auto [major, minor] = v.split('.');
    unsigned ma, mi;
    if (!major.getAsInteger(10, ma) && !minor.getAsInteger(10, mi) && mi < 10)
      version = "ptx" + std::to_string(ma) + std::to_string(mi);
  } else {
    version = v.str();
  }

  std::string error;
  const llvm::Target *target = lookupNVPTX(error);
  if (!target)
    return emitError(loc) << "this build of LLVM has no NVPTX back end (" << error
                          << "); txl needs an LLVM built with the NVPTX target";
  std::unique_ptr<llvm::MCSubtargetInfo> sti(
      target->createMCSubtargetInfo(llvm::Triple(kTriple), arch, ""));
  if (!sti || !sti->isCPUStringValid(arch))
    return emitError(loc) << "LLVM's NVPTX back end does not know '" << arch
                          << "'; this LLVM is too old for txl (LLVM 22 or newer is needed)";

  SmallVector<std::string> known = getKnownPTXVersions();
  if (ptxNumber(version) < 0 || !llvm::is_contained(known, version)) {
    InFlightDiagnostic diag = emitError(loc)
                              << "unknown PTX version '" << ptxVersion << "'; expected one of: ";
    llvm::interleaveComma(known, diag);
    diag << " (e.g. --ptx-version=" << kDefaultPTXVersion << ")";
    return failure();
  }
  int minimum = minPTXVersion(arch);
  if (ptxNumber(version) < minimum) {
    PTXTarget t{arch.str(), version, "+" + version};
    std::string need = "ptx" + std::to_string(minimum);
    return emitError(loc) << "PTX version " << t.versionDirective() << " (" << version
                          << ") does not support " << arch << ": " << arch << " needs PTX "
                          << minimum / 10 << "." << minimum % 10
                          << " or newer; use --ptx-version=" << need << " or later (default "
                          << kDefaultPTXVersion << ")";
  }
  return PTXTarget{arch.str(), version, "+" + version};
}

//===----------------------------------------------------------------------===//
// MLIR side: lower what is left and check that everything translates
//===----------------------------------------------------------------------===//

void mlir::txl::registerPTXTargetInterfaces(DialectRegistry &registry) {
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerConvertNVVMToLLVMInterface(registry);
}

/// The 16-bit value whose low (`high` false) or high byte `byte` is:
/// trunc(x), or trunc(lshr(x, 8)); null otherwise.
static Value byteOf(Value byte, bool high) {
  auto trunc = byte ? byte.getDefiningOp<LLVM::TruncOp>() : LLVM::TruncOp();
  if (!trunc || !trunc.getArg().getType().isInteger(16))
    return {};
  Value x = trunc.getArg();
  if (!high)
    return x;
  auto shift = x.getDefiningOp<LLVM::LShrOp>();
  APInt amount;
  if (!shift || !matchPattern(shift.getRhs(), m_ConstantInt(&amount)) || amount != 8)
    return {};
  return shift.getLhs();
}

/// The 16-bit values x, y, ... when `bytes` are lo(x), hi(x), lo(y), hi(y),
/// ... (byteOf); empty otherwise.
static SmallVector<Value> bytePairs(ArrayRef<Value> bytes) {
  SmallVector<Value> halves;
  for (size_t i = 0; i + 1 < bytes.size(); i += 2) {
    Value lo = byteOf(bytes[i], false);
    if (!lo || byteOf(bytes[i + 1], true) != lo)
      return {};
    halves.push_back(lo);
  }
  return halves;
}

/// The value an insertvalue chain ending in `v` put at `pos`; null if none.
static Value insertedAt(Value v, int64_t pos) {
  while (auto insert = v.getDefiningOp<LLVM::InsertValueOp>()) {
    if (insert.getPosition().size() == 1 && insert.getPosition()[0] == pos)
      return insert.getValue();
    v = insert.getContainer();
  }
  return {};
}

/// Erases `op` and, transitively, the operands' producers it leaves unused
/// (the byte extractions and insertions a packing replaced).
static void eraseDeadChain(Operation *op) {
  SmallVector<Operation *> worklist{op};
  while (!worklist.empty()) {
    Operation *dead = worklist.pop_back_val();
    if (!isOpTriviallyDead(dead))
      continue;
    SmallVector<Operation *> producers;
    for (Value operand : dead->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        producers.push_back(producer);
    dead->erase();
    for (Operation *producer : producers)
      if (!llvm::is_contained(worklist, producer))
        worklist.push_back(producer);
  }
}

/// bitcast <n x i16> {halves...} to `type`, built at `b`.
static Value packHalves(OpBuilder &b, Location loc, ArrayRef<Value> halves, Type type) {
  auto vec = VectorType::get({int64_t(halves.size())}, b.getI16Type());
  Value packed = LLVM::UndefOp::create(b, loc, vec);
  for (auto [i, half] : llvm::enumerate(halves))
    packed = LLVM::InsertElementOp::create(
        b, loc, packed, half,
        LLVM::ConstantOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(i)));
  return LLVM::BitcastOp::create(b, loc, type, packed);
}

/// fp8 registers are one byte per element (truncToFp8 splits each 16-bit
/// cvt.rn.satfinite.{e4m3x2,e5m2x2} result into its two bytes), and an MMA
/// operand register is four of them packed again: bitcast <4 x i8> {lo(x),
/// hi(x), lo(y), hi(y)} to i32. When the bytes come in such pairs the
/// register is the two cvt results side by side, bitcast <2 x i16> {x, y}:
/// one register move. LLVM does not see through the split (it re-extracts
/// and re-inserts every byte: shr, cvt, mov and two bfi per register in the
/// PTX, about 1.2 instructions per element of the FP8 attention's P, whose
/// softmax is issue-bound). The bytes often reach the packing through a
/// block argument (P is carried to the next loop iteration, where its P @ V
/// is issued): then every predecessor passes the packed register instead, as
/// a new block argument, when each passes such pairs.
static void packFp8BytePairs(ModuleOp module) {
  SmallVector<LLVM::BitcastOp> casts;
  module.walk([&](LLVM::BitcastOp cast) {
    auto vec = dyn_cast<VectorType>(cast.getArg().getType());
    if (vec && vec.getRank() == 1 && vec.getElementType().isInteger(8) &&
        vec.getNumElements() % 2 == 0 && cast.getType().isInteger(8 * vec.getNumElements()))
      casts.push_back(cast);
  });
  for (LLVM::BitcastOp bitcast : casts) {
    int64_t n = cast<VectorType>(bitcast.getArg().getType()).getNumElements();
    SmallVector<Value> bytes(n);
    for (Value v = bitcast.getArg(); auto insert = v.getDefiningOp<LLVM::InsertElementOp>();
         v = insert.getVector()) {
      APInt pos;
      if (!matchPattern(insert.getPosition(), m_ConstantInt(&pos)) ||
          pos.getZExtValue() >= uint64_t(n))
        break;
      if (!bytes[pos.getZExtValue()])
        bytes[pos.getZExtValue()] = insert.getValue();
    }
    if (llvm::is_contained(bytes, Value()))
      continue;
    Location loc = bitcast.getLoc();
    if (SmallVector<Value> halves = bytePairs(bytes); !halves.empty()) {
      OpBuilder b(bitcast);
      bitcast.replaceAllUsesWith(packHalves(b, loc, halves, bitcast.getType()));
      eraseDeadChain(bitcast);
      continue;
    }
    // Bytes extracted from one struct block argument: look at what each
    // predecessor passes for it.
    auto first = bytes[0].getDefiningOp<LLVM::ExtractValueOp>();
    auto arg = first ? dyn_cast<BlockArgument>(first.getContainer()) : BlockArgument();
    if (!arg || arg.getOwner()->isEntryBlock())
      continue;
    SmallVector<int64_t> positions;
    for (Value byte : bytes) {
      auto extract = byte.getDefiningOp<LLVM::ExtractValueOp>();
      if (!extract || extract.getContainer() != arg || extract.getPosition().size() != 1)
        break;
      positions.push_back(extract.getPosition()[0]);
    }
    if (int64_t(positions.size()) != n)
      continue;
    Block *block = arg.getOwner();
    SmallVector<std::pair<BranchOpInterface, unsigned>> edges;
    SmallVector<SmallVector<Value>> incoming;
    bool ok = true;
    for (Block *pred : block->getPredecessors()) {
      auto branch = dyn_cast<BranchOpInterface>(pred->getTerminator());
      if (!branch) {
        ok = false;
        break;
      }
      for (unsigned s = 0, e = branch->getNumSuccessors(); s < e && ok; ++s) {
        if (branch->getSuccessor(s) != block || llvm::any_of(edges, [&](auto &edge) {
              return edge.first == branch && edge.second == s;
            }))
          continue;
        SuccessorOperands operands = branch.getSuccessorOperands(s);
        Value passed = operands[arg.getArgNumber()];
        SmallVector<Value> passedBytes;
        for (int64_t pos : positions)
          passedBytes.push_back(passed ? insertedAt(passed, pos) : Value());
        SmallVector<Value> halves = bytePairs(passedBytes);
        ok = !halves.empty();
        edges.push_back({branch, s});
        incoming.push_back(halves);
      }
      if (!ok)
        break;
    }
    if (!ok || edges.empty())
      continue;
    BlockArgument packedArg = block->addArgument(bitcast.getType(), loc);
    for (auto [edge, halves] : llvm::zip_equal(edges, incoming)) {
      OpBuilder b(edge.first);
      edge.first.getSuccessorOperands(edge.second)
          .append(packHalves(b, loc, halves, bitcast.getType()));
    }
    bitcast.replaceAllUsesWith(packedArg);
    eraseDeadChain(bitcast);
  }
}

LogicalResult mlir::txl::prepareForLLVMTranslation(ModuleOp module) {
  PassManager pm(module->getContext(), ModuleOp::getOperationName());
  // No verification after each of these upstream passes: the module was
  // verified when the txl pipeline ended, the translation below checks what
  // it needs (and LLVM's verifier checks the result), and verifying the
  // whole LLVM-dialect module four more times cost ~5 % of a compile.
  pm.enableVerifier(false);
  // NVVM ops without an LLVM intrinsic (wgmma.mma_async, mbarrier waits,
  // ...) implement BasicPtxBuilderInterface and become inline asm here.
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // Register tiles travel through the conversion as LLVM structs built by
  // insertvalue chains and read by extractvalue. Folding them here (as
  // Triton does after its conversion to LLVM) leaves LLVM plain values:
  // LLVM's IPSCCP revisits a struct's every field on each insertvalue of a
  // chain, so a kernel holding 256 elements per thread (a 32768-wide row
  // tile) spent 25 s of its 26 s compile there, 0.1 s after this.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (failed(pm.run(module)))
    return failure();
  packFp8BytePairs(module);

  // Parameter annotations of dialects LLVM knows nothing about (txl.name,
  // which only the sidecar reads) would each draw an "Unhandled parameter
  // attribute" warning from the translator; they have no meaning in LLVM IR.
  module.walk([&](LLVM::LLVMFuncOp llvmFn) {
    auto fn = cast<FunctionOpInterface>(llvmFn.getOperation());
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
      SmallVector<NamedAttribute> attrs(fn.getArgAttrs(i));
      for (NamedAttribute attr : attrs) {
        Dialect *dialect = attr.getNameDialect();
        if (isa_and_nonnull<LLVM::LLVMDialect>(dialect) ||
            (dialect && dialect->getRegisteredInterface<LLVMTranslationDialectInterface>()))
          continue;
        fn.removeArgAttr(i, attr.getName());
      }
    }
  });

  // Type-valued parameter attributes (llvm.byval = !llvm.array<...>) are not
  // verified upstream, and the translator crashes on a type without an LLVM
  // IR equivalent (the fuzzer found !llvm.array<-16 x f6E2M3FN>).
  WalkResult badType = module.walk([&](LLVM::LLVMFuncOp fn) {
    auto fnIface = cast<FunctionOpInterface>(fn.getOperation());
    for (unsigned i = 0, e = fnIface.getNumArguments(); i < e; ++i)
      for (NamedAttribute attr : fnIface.getArgAttrs(i))
        if (auto type = dyn_cast<TypeAttr>(attr.getValue()))
          if (!LLVM::isCompatibleType(type.getValue())) {
            fn.emitError() << "parameter " << i << " of '" << fn.getName() << "': '"
                           << attr.getName().getValue() << "' names " << type.getValue()
                           << ", which has no LLVM IR equivalent";
            return WalkResult::interrupt();
          }
    return WalkResult::advance();
  });
  if (badType.wasInterrupted())
    return failure();

  // Anything without an LLVM IR translation would make translateModuleToLLVMIR
  // fail with a terse message; say which op it is and why it is still there.
  Operation *first = nullptr;
  llvm::SetVector<StringRef> leftover;
  // Pre-order, so the outermost unlowered op (a func.func rather than the
  // func.return in it) is the one reported.
  module->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == module.getOperation())
      return;
    Dialect *dialect = op->getDialect();
    bool translatable = !isa<UnrealizedConversionCastOp>(op) && dialect &&
                        dialect->getRegisteredInterface<LLVMTranslationDialectInterface>();
    if (translatable)
      return;
    if (!first)
      first = op;
    leftover.insert(op->getName().getStringRef());
  });
  if (!first)
    return success();
  InFlightDiagnostic diag = emitError(first->getLoc());
  if (auto cast = dyn_cast<UnrealizedConversionCastOp>(first)) {
    diag << "'builtin.unrealized_conversion_cast' from " << cast->getOperandTypes() << " to "
         << cast->getResultTypes()
         << " is left after reconcile-unrealized-casts: a lowering stage converted a value's "
            "producer but not its users (or the reverse); this is a bug in the txl pipeline";
  } else {
    diag << "'" << first->getName()
         << "' has no LLVM IR translation: PTX can only be emitted from the LLVM and NVVM "
            "dialects, so the txl pipeline must lower this op first (is its lowering "
            "missing? --emit=mlir shows the IR after the pipeline)";
  }
  if (leftover.size() > 1) {
    Diagnostic &note = diag.attachNote();
    note << "other ops that are not lowered: ";
    llvm::interleaveComma(ArrayRef(leftover.getArrayRef()).drop_front(), note);
  }
  return failure();
}

//===----------------------------------------------------------------------===//
// LLVM side
//===----------------------------------------------------------------------===//

namespace {
/// Forwards LLVM's diagnostics (inline-asm errors, unsupported features, ...)
/// to MLIR. Without a handler LLVMContext::diagnose calls exit(1) on an error.
struct LLVMDiagnosticForwarder {
  Location loc;
  bool hadError = false;

  static void handle(const llvm::DiagnosticInfo *diagInfo, void *context) {
    const llvm::DiagnosticInfo &info = *diagInfo;
    auto *self = static_cast<LLVMDiagnosticForwarder *>(context);
    std::string message;
    {
      llvm::raw_string_ostream os(message);
      llvm::DiagnosticPrinterRawOStream printer(os);
      info.print(printer);
    }
    switch (info.getSeverity()) {
    case llvm::DS_Error:
      self->hadError = true;
      emitError(self->loc) << "LLVM: " << message;
      break;
    case llvm::DS_Warning:
      emitWarning(self->loc) << "LLVM: " << message;
      break;
    case llvm::DS_Remark:
    case llvm::DS_Note:
      break;
    }
  }
};

/// Everything that lives in LLVM for one translation. After a fatal error
/// was caught mid-pass it is in an unknown state and is deliberately leaked
/// (see release()).
struct LLVMState {
  std::unique_ptr<llvm::LLVMContext> context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<llvm::Module> module;
  LLVMDiagnosticForwarder diagnostics;

  explicit LLVMState(Location loc) : diagnostics{loc} {
    context->setDiagnosticHandlerCallBack(&LLVMDiagnosticForwarder::handle, &diagnostics,
                                          /*RespectFilters=*/true);
  }
  void release() {
    (void)module.release();
    (void)machine.release();
    (void)context.release();
  }
};
} // namespace

/// Runs `fn` (an LLVM pass pipeline) so that an LLVM fatal error inside it
/// becomes a diagnostic instead of an abort. A last resort: the checks in
/// checkPTXTarget catch the known causes before LLVM runs.
static LogicalResult runGuarded(LLVMState &state, Location loc, StringRef what,
                                llvm::function_ref<void()> fn) {
  struct Caught {
    std::string reason;
  } caught;
  bool ok;
  {
    llvm::CrashRecoveryContext::Enable();
    llvm::ScopedFatalErrorHandler handler(
        [](void *data, const char *reason, bool) {
          static_cast<Caught *>(data)->reason = reason;
          // Leave through the recovery context's longjmp instead of letting
          // report_fatal_error abort() the process.
          if (llvm::CrashRecoveryContext *crc = llvm::CrashRecoveryContext::GetCurrent())
            crc->HandleExit(1);
        },
        &caught);
    llvm::CrashRecoveryContext crc;
    ok = crc.RunSafely(fn);
  }
  llvm::CrashRecoveryContext::Disable();
  if (ok)
    return success();
  state.release();
  if (!caught.reason.empty())
    return emitError(loc) << "LLVM's NVPTX back end failed while " << what << ": " << caught.reason
                          << ". The PTX version or an operation of the kernel is not supported "
                             "by the target (an older --ptx-version lacks some instructions, "
                             "e.g. the shared::cta TMA destination needs ptx86); if it persists, "
                             "this is a bug in txl";
  return emitError(loc) << "LLVM's NVPTX back end crashed while " << what
                        << "; this is a bug in txl or LLVM, not in your input. Please file an "
                           "issue with the input file and the command line";
}

static llvm::CodeGenOptLevel codeGenOptLevel(int optLevel) {
  switch (optLevel) {
  case 0:
    return llvm::CodeGenOptLevel::None;
  case 1:
    return llvm::CodeGenOptLevel::Less;
  case 2:
    return llvm::CodeGenOptLevel::Default;
  default:
    return llvm::CodeGenOptLevel::Aggressive;
  }
}

/// The MLIR location of the symbol `name` in `module`, or the module's.
static Location symbolLoc(ModuleOp module, StringRef name) {
  if (Operation *op = SymbolTable::lookupSymbolIn(module, name))
    return op->getLoc();
  return module.getLoc();
}

std::string mlir::txl::findLibdevice(SmallVectorImpl<std::string> &tried) {
  auto exists = [&](const std::string &path) {
    tried.push_back(path);
    return llvm::sys::fs::exists(path);
  };
  if (std::optional<std::string> env = llvm::sys::Process::GetEnv("TXL_LIBDEVICE"))
    return exists(*env) ? *env : std::string();
  SmallVector<std::string> roots;
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (std::optional<std::string> root = llvm::sys::Process::GetEnv(var))
      roots.push_back(*root);
  roots.push_back("/usr/local/cuda");
  for (const std::string &root : roots) {
    llvm::SmallString<256> path(root);
    llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
    if (exists(std::string(path)))
      return std::string(path);
  }
  std::string debian = "/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc";
  return exists(debian) ? debian : std::string();
}

/// Links the libdevice functions the module calls (declared `__nv_*`) into
/// it, internalized so that the O3 pipeline inlines them and drops the rest.
/// libdevice asks __nvvm_reflect("__CUDA_FTZ") whether to flush subnormals:
/// no, as in Triton's default (NVPTX's NVVMReflect pass folds the answer).
static LogicalResult linkLibdevice(LLVMState &state, ModuleOp module, StringRef explicitPath) {
  StringRef first;
  for (llvm::Function &fn : *state.module)
    if (fn.isDeclaration() && !fn.use_empty() && fn.getName().starts_with("__nv_")) {
      first = fn.getName();
      break;
    }
  if (first.empty())
    return success();
  SmallVector<std::string> tried;
  std::string path = explicitPath.empty() ? findLibdevice(tried) : explicitPath.str();
  if (!explicitPath.empty() && !llvm::sys::fs::exists(path))
    return emitError(symbolLoc(module, first))
           << "the kernel calls libdevice's '" << first << "' but the libdevice given ('" << path
           << "') does not exist";
  if (path.empty()) {
    InFlightDiagnostic diag = emitError(symbolLoc(module, first))
                              << "the kernel calls libdevice's '" << first
                              << "' but CUDA's libdevice.10.bc was not found (looked in: ";
    llvm::interleaveComma(tried, diag);
    diag << "); install the CUDA toolkit, or set TXL_LIBDEVICE (txlc --libdevice) to the path of "
            "libdevice.10.bc";
    return failure();
  }
  llvm::SMDiagnostic parseError;
  std::unique_ptr<llvm::Module> lib = llvm::parseIRFile(path, parseError, *state.context);
  if (!lib)
    return emitError(module.getLoc())
           << "cannot read libdevice '" << path << "': " << parseError.getMessage();
  lib->setTargetTriple(state.module->getTargetTriple());
  lib->setDataLayout(state.module->getDataLayout());
  if (llvm::Linker::linkModules(*state.module, std::move(lib), llvm::Linker::LinkOnlyNeeded))
    return emitError(module.getLoc()) << "linking libdevice '" << path << "' failed";
  for (llvm::Function &fn : *state.module)
    if (!fn.isDeclaration() && fn.getName().starts_with("__nv_"))
      fn.setLinkage(llvm::GlobalValue::InternalLinkage);
  state.module->addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t(0));
  return success();
}

/// Translates, sets the target and runs the LLVM pipeline; `state.module`
/// holds the optimized module on success.
static LogicalResult translateAndOptimize(LLVMState &state, ModuleOp module, StringRef arch,
                                          StringRef ptxVersion, int optLevel, StringRef libdevice) {
  Location loc = module.getLoc();
  FailureOr<PTXTarget> target = checkPTXTarget(loc, arch, ptxVersion);
  if (failed(target))
    return failure();
  if (optLevel < 0 || optLevel > 3)
    return emitError(loc) << "optimization level " << optLevel
                          << " is out of range; expected 0, 1, 2 or 3";
  if (failed(prepareForLLVMTranslation(module)))
    return failure();

  std::string error;
  const llvm::Target *nvptx = lookupNVPTX(error);
  if (!nvptx)
    return emitError(loc) << "no NVPTX back end: " << error;
  llvm::Triple triple(kTriple);
  state.machine.reset(nvptx->createTargetMachine(triple, target->arch, target->features,
                                                 llvm::TargetOptions(), std::nullopt, std::nullopt,
                                                 codeGenOptLevel(optLevel)));
  if (!state.machine)
    return emitError(loc) << "could not create the NVPTX target machine for " << target->arch
                          << " with " << target->features;

  // Translate without the translator's own verification (it prints LLVM's
  // verifier message to stderr with no diagnostic), then verify here so the
  // message becomes an error at the module (the fuzzer found IR with a
  // negative-size byval array that only LLVM's verifier rejects).
  state.module = translateModuleToLLVMIR(module, *state.context, "txl",
                                         /*disableVerification=*/true);
  if (!state.module)
    return failure(); // The translator has reported why.
  std::string verifierMessage;
  llvm::raw_string_ostream verifierOS(verifierMessage);
  if (llvm::verifyModule(*state.module, &verifierOS))
    return emitError(loc) << "the module translates to invalid LLVM IR: "
                          << StringRef(verifierMessage).trim();
  state.module->setTargetTriple(triple);
  state.module->setDataLayout(state.machine->createDataLayout());
  if (failed(linkLibdevice(state, module, libdevice)))
    return failure();

  llvm::Error optError = llvm::Error::success();
  if (failed(runGuarded(state, loc, "optimizing the LLVM IR", [&] {
        optError = makeOptimizingTransformer(optLevel, /*sizeLevel=*/0,
                                             state.machine.get())(state.module.get());
      }))) {
    llvm::consumeError(std::move(optError));
    return failure();
  }
  if (optError)
    return emitError(loc) << "the LLVM O" << optLevel
                          << " pipeline failed: " << llvm::toString(std::move(optError));
  if (state.diagnostics.hadError)
    return failure();

  // Any call that is still external after optimization (libdevice's are
  // defined by now) would only fail later, in ptxas ("Unresolved extern
  // function").
  for (llvm::Function &fn : *state.module) {
    if (!fn.isDeclaration() || fn.isIntrinsic() || fn.use_empty() ||
        fn.getName() == "__nvvm_reflect" || // folded by NVPTX's NVVMReflect pass
        fn.getName() == "vprintf" ||        // device printf and assert: the CUDA driver
        fn.getName() == "__assertfail")     // provides them
      continue;
    llvm::SetVector<StringRef> names;
    for (llvm::User *user : fn.users())
      if (auto *inst = dyn_cast<llvm::Instruction>(user))
        names.insert(inst->getFunction()->getName());
    InFlightDiagnostic diag = emitError(symbolLoc(module, fn.getName()))
                              << "the kernel calls '" << fn.getName()
                              << "', which is only declared: txl links no device library but "
                                 "libdevice (__nv_*), so this call cannot be resolved (ptxas would "
                                 "fail with 'Unresolved extern "
                                 "function'); use an op that lowers to an instruction instead "
                                 "(e.g. math.exp2, which becomes ex2.approx, rather than "
                                 "math.exp), or libdevice's function";
    if (!names.empty()) {
      Diagnostic &note = diag.attachNote();
      note << "called from: ";
      llvm::interleaveComma(names, note);
    }
    return failure();
  }
  return success();
}

FailureOr<std::string> mlir::txl::translateToOptimizedLLVMIR(ModuleOp module, StringRef arch,
                                                             StringRef ptxVersion, int optLevel,
                                                             StringRef libdevice) {
  LLVMState state(module.getLoc());
  if (failed(translateAndOptimize(state, module, arch, ptxVersion, optLevel, libdevice)))
    return failure();
  std::string ir;
  llvm::raw_string_ostream os(ir);
  state.module->print(os, nullptr);
  return ir;
}

FailureOr<std::string> mlir::txl::translateToPTX(ModuleOp module, StringRef arch,
                                                 StringRef ptxVersion, int optLevel,
                                                 StringRef libdevice,
                                                 std::string *optimizedLLVMIR) {
  Location loc = module.getLoc();
  LLVMState state(loc);
  if (failed(translateAndOptimize(state, module, arch, ptxVersion, optLevel, libdevice)))
    return failure();
  if (optimizedLLVMIR) {
    optimizedLLVMIR->clear();
    llvm::raw_string_ostream os(*optimizedLLVMIR);
    state.module->print(os, nullptr);
  }

  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream os(ptx);
  auto codegen = std::make_unique<llvm::legacy::PassManager>();
  if (state.machine->addPassesToEmitFile(*codegen, os, nullptr,
                                         llvm::CodeGenFileType::AssemblyFile))
    return emitError(loc) << "the NVPTX target machine cannot emit PTX assembly";
  if (failed(runGuarded(state, loc, "emitting PTX", [&] { codegen->run(*state.module); }))) {
    // The passes may hold state from the interrupted run: leak them too.
    (void)codegen.release();
    return failure();
  }
  if (state.diagnostics.hadError)
    return failure();
  return std::string(ptx.str());
}
