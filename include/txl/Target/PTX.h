//===- PTX.h - NVVM + LLVM dialect to PTX and cubin -------------*- C++ -*-===//
//
// The back end of txlc. After the txl pipeline a module holds `llvm.func`
// kernels in the LLVM and NVVM dialects; this library turns that into PTX
// in-process ("route B" of docs/mlir22-nvptx-facts.md §3a: translate to LLVM IR,
// run the LLVM O3 pipeline, emit PTX with the NVPTX TargetMachine) and PTX
// into a cubin by running ptxas.
//
// LLVM's NVPTX back end reports a bad PTX version or an unselectable
// instruction with report_fatal_error, which aborts the process. Everything
// a user can get wrong (the architecture, the PTX version) is therefore
// checked here first and reported as an MLIR diagnostic; only problems no
// pre-check can foresee reach the last-resort fatal-error guard.
//
//===----------------------------------------------------------------------===//
#ifndef TXL_TARGET_PTX_H
#define TXL_TARGET_PTX_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Program.h"

#include <memory>
#include <optional>

#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
namespace txl {

/// The architectures txl compiles for.
constexpr StringLiteral kSupportedArchs[] = {"sm_90a", "sm_100a"};
/// The PTX version used when none is given: the oldest one that supports
/// both architectures (sm_100a needs 8.6; on sm_90a 8.6 also unlocks the
/// shared::cta TMA destination).
constexpr StringLiteral kDefaultPTXVersion = "ptx86";

/// A validated target: the NVPTX CPU name and the feature string.
struct PTXTarget {
  std::string arch;       // "sm_90a"
  std::string ptxVersion; // "ptx86"
  std::string features;   // "+ptx86"
  /// "8.6", as PTX's .version directive spells it.
  std::string versionDirective() const;
};

/// Checks `arch` and `ptxVersion` against what txl supports and what LLVM's
/// NVPTX back end knows, before anything reaches LLVM (which aborts on a PTX
/// version too old for the architecture). `ptxVersion` may be spelled
/// "ptx86", "+ptx86" or "8.6". Errors are reported at `loc`.
FailureOr<PTXTarget> checkPTXTarget(Location loc, StringRef arch, StringRef ptxVersion);

/// The PTX versions LLVM's NVPTX back end knows ("ptx32" ... "ptx90").
SmallVector<std::string> getKnownPTXVersions();

/// Registers the dialect interfaces the back end needs: the LLVM IR
/// translations of the builtin, LLVM and NVVM dialects, and the
/// ConvertToLLVM interface of NVVM.
void registerPTXTargetInterfaces(DialectRegistry &registry);

/// Lowers what is left above plain LLVM + NVVM (NVVM "PTXBuilder" ops become
/// inline asm; unrealized casts are reconciled) and checks that every op has
/// an LLVM IR translation. Modifies `module` in place.
LogicalResult prepareForLLVMTranslation(ModuleOp module);

/// Translates `module` (in place: see prepareForLLVMTranslation) to LLVM IR
/// for `target`, runs the LLVM pipeline at `optLevel` (0-3) and returns the
/// optimized LLVM IR as text: what the NVPTX back end would get.
FailureOr<std::string> translateToOptimizedLLVMIR(ModuleOp module, StringRef arch,
                                                  StringRef ptxVersion, int optLevel,
                                                  StringRef libdevice = "");

/// Translates `module` (in place: see prepareForLLVMTranslation) to PTX for
/// `arch` ("sm_90a" or "sm_100a") and `ptxVersion` ("ptx86"): LLVM IR, the
/// LLVM O`optLevel` pipeline, then the NVPTX AsmPrinter. CUDA's libdevice
/// is linked when the kernel calls a `__nv_*` function: from `libdevice` when
/// given, else findLibdevice's places; any other call to a function that is
/// only declared is an error naming it. If `optimizedLLVMIR` is given it
/// receives the LLVM IR the back end saw.
/// While LLVM runs, an LLVM fatal error is caught (a scoped fatal-error
/// handler plus llvm::CrashRecoveryContext, both process-wide) and reported
/// as an error; so do not run two translations on different threads.
FailureOr<std::string> translateToPTX(ModuleOp module, StringRef arch, StringRef ptxVersion,
                                      int optLevel, StringRef libdevice = "",
                                      std::string *optimizedLLVMIR = nullptr);

/// Where CUDA's libdevice.10.bc is: $TXL_LIBDEVICE, then the CUDA toolkit's
/// nvvm/libdevice/ under $CUDA_HOME, $CUDA_PATH and /usr/local/cuda, then
/// Debian's nvidia-cuda-toolkit (/usr/lib/nvidia-cuda-toolkit/libdevice).
/// Returns "" when none exists; `tried` receives the places looked at.
std::string findLibdevice(SmallVectorImpl<std::string> &tried);

/// Where ptxas is: $TXL_PTXAS, then ptxas on PATH, then
/// /usr/local/cuda/bin/ptxas. Fails with a diagnostic at `loc`.
FailureOr<std::string> findPtxas(Location loc);

/// What ptxas allocated for the (last) kernel of a PTX module (ptxas -v).
struct PtxasInfo {
  int64_t registers = 0;  // per thread
  int64_t spillBytes = 0; // spill stores
};

/// Assembles `ptx` into a cubin for `arch` with ptxas. ptxas's warnings
/// (spills, serialized wgmma, an ignored setmaxnreg, ...) are reported as
/// MLIR warnings at `loc`; a failure carries ptxas's messages in the error.
/// With `info`, ptxas also reports its registers and spills there.
FailureOr<std::vector<char>> runPtxas(StringRef ptx, StringRef arch, Location loc,
                                      PtxasInfo *info = nullptr);

/// runPtxas in two halves, so that several ptxas processes can run at once
/// (txlc assembles the candidates of its schedule trial together): a ptxas
/// process started on `ptx` with its temporary files, then waited for.
struct PtxasRun {
  PtxasRun(std::string ptxas, std::string arch, Location loc)
      : ptxas(std::move(ptxas)), arch(std::move(arch)), loc(loc) {}
  /// A temporary file removed with the run.
  struct Temp {
    llvm::SmallString<128> path;
    std::optional<llvm::FileRemover> remover;
  };
  std::string ptxas, arch;
  Location loc;
  Temp input, output, log;
  llvm::sys::ProcessInfo process;
  std::string execError;
};
FailureOr<std::unique_ptr<PtxasRun>> startPtxas(StringRef ptx, StringRef arch, Location loc);
/// Waits for `run` and reads its cubin; reports as runPtxas does.
FailureOr<std::vector<char>> finishPtxas(PtxasRun &run, PtxasInfo *info = nullptr);

} // namespace txl
} // namespace mlir

#endif // TXL_TARGET_PTX_H
