//===- CrashGuard.h - a crash of a tool becomes a diagnostic ----*- C++ -*-===//
//
// txl-opt and txlc run their work (parsing, the pass pipeline, the back end)
// under llvm::CrashRecoveryContext. A signal or abort inside that work -- a
// bug in txl or in upstream MLIR/LLVM, e.g. MLIR 22's parser segfaulting on
// `array<index: 1>` -- is then reported as one located error line and exit
// code 1 instead of a stack dump and a signal:
//
//   txl-opt: error: internal error in the MLIR parser at k.mlir:3:19; please
//   report it ...
//   txlc: error: internal error in pass 'txl-assign-layouts' (AssignLayouts)
//   on k.mlir:2:3; please report it ...
//
// What is known about the place comes from two sources: a pass
// instrumentation records the pass that is running (and the operation it runs
// on), and a crash outside any pass is located by re-parsing ever shorter
// prefixes of the input in fresh contexts until the shortest one that still
// crashes is found (the parser reads left to right, so its end is where the
// parser was). Crash recovery only sees the thread it runs on, so the tools
// run single-threaded.
//
//===----------------------------------------------------------------------===//

#ifndef TXL_SUPPORT_CRASHGUARD_H
#define TXL_SUPPORT_CRASHGUARD_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::txl {

class CrashGuard {
public:
  struct Options {
    /// The tool's name, the prefix of the report ("txl-opt").
    std::string tool;
    /// The input file, named in the report ("-" is stdin).
    std::string inputFilename;
    /// The input as the tool read it, re-parsed to locate a parser crash
    /// (empty: no location).
    std::string inputText;
    /// Files the crashed run may have opened for writing; removed, so a crash
    /// never leaves a truncated output behind ("-" and empty are skipped).
    std::vector<std::string> removeOnCrash;
    /// How the tool parses: the dialects, unregistered ones allowed, and the
    /// --split-input-file marker (empty: the file is one module).
    const DialectRegistry *registry = nullptr;
    bool allowUnregisteredDialects = false;
    std::string splitMarker;
  };

  explicit CrashGuard(Options options);

  /// Runs `body` and returns its exit code. If it crashes, prints the report
  /// and ends the process with exit code 1 at once: the crashed work left its
  /// objects (contexts, streams, locks) in an unknown state, so no destructor
  /// may run after it.
  int run(llvm::function_ref<int()> body);

  /// Names what the tool does next outside a pass manager ("the LLVM back
  /// end"), for a crash there.
  void setStage(llvm::StringRef stage) { this->stage = stage.str(); }

  /// The input as read, when the tool reads it inside run().
  void setInputText(llvm::StringRef text) { options.inputText = text.str(); }

  /// Adds the instrumentation that records the running pass to `pm`.
  void instrument(PassManager &pm);

private:
  friend class CrashGuardInstrumentation;
  [[noreturn]] void reportCrash();

  Options options;
  /// What ran when the crash happened: the stage outside passes ("" = the
  /// parser), or the pass and the location of the operation it ran on.
  std::string stage;
  std::string pass;
  std::string passLoc;
};

} // namespace mlir::txl

#endif // TXL_SUPPORT_CRASHGUARD_H
