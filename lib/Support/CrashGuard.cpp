//===- CrashGuard.cpp - a crash of a tool becomes a diagnostic ------------===//
//
// See CrashGuard.h. The report is printed with llvm::SourceMgr, not through
// an MLIRContext: the context of the crashed work may be half-updated (a
// uniquer mid-insertion), so nothing of it is touched after the crash.
//
//===----------------------------------------------------------------------===//

#include "txl/Support/CrashGuard.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"

#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace mlir;
using namespace mlir::txl;

namespace mlir::txl {
/// Keeps CrashGuard::pass / passLoc up to date. Adaptors (the pass managers
/// nested in a pipeline) are passes too, so this is a stack: the innermost
/// running pass is what crashed.
class CrashGuardInstrumentation : public PassInstrumentation {
public:
  explicit CrashGuardInstrumentation(CrashGuard &guard) : guard(guard) {}

  void runBeforePass(Pass *pass, Operation *op) override {
    // Adaptors have no command-line argument; name the passes they run.
    if (pass->getArgument().empty())
      return;
    std::string name = ("'" + pass->getArgument() + "' (" + pass->getName() + ")").str();
    // The location is printed now, while the context is sound.
    std::string loc;
    if (auto fileLoc = op->getLoc()->findInstanceOf<FileLineColLoc>())
      loc = (fileLoc.getFilename().getValue() + ":" + llvm::Twine(fileLoc.getLine()) + ":" +
             llvm::Twine(fileLoc.getColumn()))
                .str();
    stack.push_back({guard.pass, guard.passLoc});
    guard.pass = std::move(name);
    guard.passLoc = std::move(loc);
  }
  void runAfterPass(Pass *pass, Operation *op) override { pop(pass); }
  void runAfterPassFailed(Pass *pass, Operation *op) override { pop(pass); }

private:
  void pop(Pass *pass) {
    if (pass->getArgument().empty() || stack.empty())
      return;
    std::tie(guard.pass, guard.passLoc) = stack.pop_back_val();
  }

  CrashGuard &guard;
  SmallVector<std::pair<std::string, std::string>> stack;
};
} // namespace mlir::txl

CrashGuard::CrashGuard(Options options) : options(std::move(options)) {
  // Installs handlers for SIGSEGV, SIGABRT, ... that jump back into
  // RunSafely when it is active on the crashing thread (and otherwise pass
  // the signal on to LLVM's stack dumper).
  llvm::CrashRecoveryContext::Enable();
}

void CrashGuard::instrument(PassManager &pm) {
  pm.addInstrumentation(std::make_unique<CrashGuardInstrumentation>(*this));
}

int CrashGuard::run(llvm::function_ref<int()> body) {
  int exitCode = 1;
  llvm::CrashRecoveryContext crc;
  if (crc.RunSafely([&] { exitCode = body(); }))
    return exitCode;
  reportCrash();
}

/// Whether parsing `text` crashes, in a fresh context (the crashed one is
/// leaked: it cannot be destroyed safely), diagnostics discarded.
static bool parseCrashes(llvm::StringRef text, const CrashGuard::Options &options) {
  llvm::CrashRecoveryContext crc;
  return !crc.RunSafely([&] {
    MLIRContext ctx(*options.registry, MLIRContext::Threading::DISABLED);
    ctx.allowUnregisteredDialects(options.allowUnregisteredDialects);
    ScopedDiagnosticHandler discard(&ctx, [](Diagnostic &) { return success(); });
    llvm::SourceMgr sourceMgr;
    // A copy: the lexer relies on the buffer's terminating NUL.
    sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, options.inputFilename),
                                 llvm::SMLoc());
    Block block;
    (void)parseSourceFile(sourceMgr, &block, ParserConfig(&ctx));
  });
}

/// The offset in `text` where the parser crashes: the last character of the
/// shortest crashing prefix (the parser reads left to right, so every longer
/// prefix reaches the same construct). With a split marker every chunk is
/// parsed on its own, as --split-input-file does.
static std::optional<size_t> locateParserCrash(llvm::StringRef text,
                                               const CrashGuard::Options &options) {
  if (!options.registry || text.empty())
    return std::nullopt;
  SmallVector<std::pair<size_t, size_t>> chunks; // [begin, end)
  size_t begin = 0;
  if (!options.splitMarker.empty()) {
    size_t lineStart = 0;
    while (lineStart < text.size()) {
      size_t lineEnd = text.find('\n', lineStart);
      if (lineEnd == llvm::StringRef::npos)
        lineEnd = text.size();
      if (text.slice(lineStart, lineEnd).trim().starts_with(options.splitMarker)) {
        chunks.push_back({begin, lineStart});
        begin = lineEnd;
      }
      lineStart = lineEnd + 1;
    }
  }
  chunks.push_back({begin, text.size()});
  for (auto [chunkBegin, chunkEnd] : chunks) {
    llvm::StringRef chunk = text.slice(chunkBegin, chunkEnd);
    if (!parseCrashes(chunk, options))
      continue;
    // Invariant: the prefix of length `good` parses without a crash (maybe
    // with errors), the one of length `bad` crashes.
    size_t good = 0, bad = chunk.size();
    while (bad - good > 1) {
      size_t mid = good + (bad - good) / 2;
      (parseCrashes(chunk.take_front(mid), options) ? bad : good) = mid;
    }
    return chunkBegin + bad - 1;
  }
  return std::nullopt;
}

void CrashGuard::reportCrash() {
  // What the crashed run may have written is incomplete.
  for (const std::string &path : options.removeOnCrash)
    if (!path.empty() && path != "-")
      llvm::sys::fs::remove(path);

  constexpr llvm::StringLiteral kPlease =
      "; please report it with the input file and the command line";
  // MLIR names stdin "<stdin>" in its own diagnostics.
  std::string file = options.inputFilename == "-" ? "<stdin>" : options.inputFilename;
  llvm::raw_ostream &os = llvm::errs();
  if (!pass.empty()) {
    llvm::WithColor::error(os, options.tool)
        << "internal error in pass " << pass << (passLoc.empty() ? "" : " on " + passLoc) << kPlease
        << "\n";
  } else {
    // Outside a pass the parser is the usual suspect; if re-parsing does not
    // crash, the stage the tool named is reported.
    std::optional<size_t> offset = locateParserCrash(options.inputText, options);
    if (offset) {
      // file:line:col: error: ..., with the line and a caret, as MLIR's own
      // diagnostics are printed.
      llvm::SourceMgr sourceMgr;
      sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(options.inputText, file),
                                   llvm::SMLoc());
      const char *at = sourceMgr.getMemoryBuffer(1)->getBufferStart() + *offset;
      auto [line, col] = sourceMgr.getLineAndColumn(llvm::SMLoc::getFromPointer(at));
      sourceMgr.PrintMessage(os, llvm::SMLoc::getFromPointer(at), llvm::SourceMgr::DK_Error,
                             "internal error in the MLIR parser at " + file + ":" +
                                 llvm::Twine(line) + ":" + llvm::Twine(col) +
                                 " (upstream MLIR crashed on the construct that ends here, "
                                 "which is likely malformed: check its syntax)" +
                                 kPlease);
    } else if (stage.empty()) {
      llvm::WithColor::error(os, options.tool)
          << "internal error in the MLIR parser at " << file << kPlease << "\n";
    } else {
      llvm::WithColor::error(os, options.tool)
          << "internal error in " << stage << " for " << file << kPlease << "\n";
    }
  }
  os.flush();
  // No destructors: the crashed work's objects are in an unknown state.
  llvm::sys::Process::Exit(1, /*NoCleanup=*/true);
}
