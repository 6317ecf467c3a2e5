//===- Ptxas.cpp - PTX to cubin with NVIDIA's ptxas -----------------------===//
//
// ptxas is the only PTX assembler; it runs as a subprocess on temporary
// files. Its messages matter even when it succeeds: "Potential Performance
// Loss" notes (wgmma serialized, setmaxnreg ignored: C7508, C7515, ...) and
// spill warnings point at kernels that assemble but run far slower than
// intended, so they are forwarded as MLIR warnings.
//
//===----------------------------------------------------------------------===//

#include "txl/Target/PTX.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::txl;

static constexpr llvm::StringLiteral kCudaPtxas = "/usr/local/cuda/bin/ptxas";

FailureOr<std::string> mlir::txl::findPtxas(Location loc) {
  if (std::optional<std::string> env = llvm::sys::Process::GetEnv("TXL_PTXAS")) {
    if (!env->empty()) {
      if (llvm::sys::fs::can_execute(*env))
        return *env;
      return emitError(loc) << "TXL_PTXAS is set to '" << *env
                            << "', which is not an executable file; point it at ptxas (e.g. "
                            << kCudaPtxas << ") or unset it to search PATH";
    }
  }
  if (llvm::ErrorOr<std::string> onPath = llvm::sys::findProgramByName("ptxas"))
    return *onPath;
  if (llvm::sys::fs::can_execute(kCudaPtxas))
    return kCudaPtxas.str();
  return emitError(loc) << "ptxas not found (looked at $TXL_PTXAS, PATH and " << kCudaPtxas
                        << "); set TXL_PTXAS to its path or add the CUDA toolkit's bin "
                           "directory to PATH. --emit=ptx needs no ptxas";
}

static LogicalResult makeTemp(Location loc, StringRef suffix, PtxasRun::Temp &temp) {
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("txl-ptxas", suffix, temp.path))
    return emitError(loc) << "cannot create a temporary ." << suffix
                          << " file for ptxas: " << ec.message();
  temp.remover.emplace(temp.path);
  return success();
}

FailureOr<std::unique_ptr<PtxasRun>> mlir::txl::startPtxas(StringRef ptx, StringRef arch,
                                                           Location loc) {
  FailureOr<std::string> ptxas = findPtxas(loc);
  if (failed(ptxas))
    return failure();
  auto run = std::make_unique<PtxasRun>(*ptxas, arch.str(), loc);
  if (failed(makeTemp(loc, "ptx", run->input)) || failed(makeTemp(loc, "cubin", run->output)) ||
      failed(makeTemp(loc, "log", run->log)))
    return failure();
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(run->input.path, ec, llvm::sys::fs::OF_Text);
    if (!ec) {
      os << ptx;
      os.close();
      ec = os.error();
    }
    if (ec)
      return emitError(loc) << "cannot write the PTX to " << run->input.path << ": "
                            << ec.message();
  }
  // -v: registers and spills, for PtxasInfo.
  std::string archFlag = "-arch=" + run->arch;
  SmallVector<StringRef> args = {run->ptxas,      archFlag, "--warn-on-spills", "-v",
                                 run->input.path, "-o",     run->output.path};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(run->log.path),
                                          StringRef(run->log.path)};
  bool execFailed = false;
  run->process = llvm::sys::ExecuteNoWait(run->ptxas, args, /*Env=*/std::nullopt, redirects,
                                          /*MemoryLimit=*/0, &run->execError, &execFailed);
  if (execFailed)
    return emitError(loc) << "cannot run " << run->ptxas << ": " << run->execError;
  return run;
}

FailureOr<std::vector<char>> mlir::txl::finishPtxas(PtxasRun &run, PtxasInfo *info) {
  Location loc = run.loc;
  StringRef arch = run.arch;
  llvm::sys::ProcessInfo done =
      llvm::sys::Wait(run.process, /*SecondsToWait=*/std::nullopt, &run.execError);
  int rc = done.ReturnCode;

  std::string messages;
  if (llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buf =
          llvm::MemoryBuffer::getFile(run.log.path))
    messages = (*buf)->getBuffer().rtrim().str();

  if (rc != 0) {
    InFlightDiagnostic diag = emitError(loc) << "ptxas failed";
    if (rc < 0)
      diag << " (" << run.execError << ")";
    else
      diag << " with exit code " << rc;
    diag << " assembling the PTX for " << arch << " (" << run.ptxas << ")";
    diag << (messages.empty() ? ": it printed nothing" : ":\n" + messages);
    diag << "\nre-run with --emit=ptx to get the PTX that ptxas rejected";
    return failure();
  }

  // Success, but ptxas may still have found something worth knowing.
  SmallVector<StringRef> lines;
  StringRef(messages).split(lines, '\n', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef line : lines) {
    line = line.trim();
    // -v: "ptxas info : Used 198 registers, used 2 barriers" and
    // "0 bytes stack frame, 128 bytes spill stores, 112 bytes spill loads".
    if (info && line.contains("Used ") && line.contains(" registers")) {
      StringRef rest = line.substr(line.find("Used ") + 5);
      (void)rest.consumeInteger(10, info->registers);
    }
    if (size_t at = line.find(" bytes spill stores"); info && at != StringRef::npos) {
      StringRef before = line.take_front(at);
      (void)before.substr(before.find_last_of(' ') + 1).getAsInteger(10, info->spillBytes);
    }
    if (!line.contains("warning") && !line.contains("Potential Performance Loss"))
      continue;
    // "ptxas info    : (C7508) ..." -> "ptxas: (C7508) ..."
    StringRef text = line;
    if (size_t colon = line.find(" : "); line.starts_with("ptxas") && colon != StringRef::npos)
      text = line.drop_front(colon + 3).trim();
    emitWarning(loc) << "ptxas: " << text;
  }

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> cubin =
      llvm::MemoryBuffer::getFile(run.output.path, /*IsText=*/false);
  if (!cubin)
    return emitError(loc) << "ptxas succeeded but its output " << run.output.path
                          << " cannot be read: " << cubin.getError().message();
  if ((*cubin)->getBufferSize() == 0)
    return emitError(loc) << "ptxas succeeded but wrote an empty cubin";
  return std::vector<char>((*cubin)->getBufferStart(), (*cubin)->getBufferEnd());
}

FailureOr<std::vector<char>> mlir::txl::runPtxas(StringRef ptx, StringRef arch, Location loc,
                                                 PtxasInfo *info) {
  FailureOr<std::unique_ptr<PtxasRun>> run = startPtxas(ptx, arch, loc);
  if (failed(run))
    return failure();
  return finishPtxas(**run, info);
}
