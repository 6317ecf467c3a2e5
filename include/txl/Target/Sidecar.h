//===- Sidecar.h - the JSON launch description of a kernel ------*- C++ -*-===//
//
// txlc writes `k.json` next to `k.ptx`: everything the Python launcher
// (python/txl/runtime/launcher.py, parse_sidecar) needs to call the kernel
// that the PTX alone does not say: the CTA shape, the dynamic shared-memory
// bytes, and per parameter its kind, element type and, for TMA descriptors,
// the box the host must encode the CUtensorMap with.
//
// The parameters are only known at the txl level (a TMA descriptor is a
// plain `!llvm.ptr` after lowering), while the shared-memory size is only
// known after the pipeline planned it. So the description is built in two
// steps: collectKernelSignatures() on the module before lowering, then
// buildSidecarJSON() with the lowered module.
//
//===----------------------------------------------------------------------===//
#ifndef TXL_TARGET_SIDECAR_H
#define TXL_TARGET_SIDECAR_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>

namespace mlir::txl {

/// One kernel parameter as the launcher sees it.
struct SidecarParam {
  std::string name;  // the `txl.name` argument attribute, or "argN"
  std::string kind;  // "tensordesc" | "ptr" | "scalar" | "global_scratch"
  std::string dtype; // "bf16", "f16", "f32", "f8e4m3", "i32", ...
  /// For "tensordesc": the hardware box (outermost first) and swizzle bytes.
  SmallVector<int64_t> blockShape;
  unsigned swizzle = 0;
  /// For "global_scratch" (a !txl.ptr<i8> argument with `txl.global_scratch
  /// = N`): the launcher allocates N bytes per CTA of the grid and passes
  /// them; the kernel's device-built TMA descriptors live there.
  int64_t scratchBytes = 0;
};

/// What the module before lowering says about one `txl.kernel` function.
struct KernelSignature {
  std::string name;
  Location loc;
  int64_t numWarps = 4;
  SmallVector<SidecarParam> params;
};

/// Describes every `txl.kernel` function of `module` (before lowering).
/// Fails, with a diagnostic at the argument, on a parameter the launcher
/// cannot pass (a memref, a tensor, a shared-memory pointer, ...).
FailureOr<SmallVector<KernelSignature>> collectKernelSignatures(ModuleOp module);

/// Names of the files the sidecar points at (base names, relative to it).
struct SidecarFiles {
  std::string ptx;
  std::optional<std::string> cubin;
};

/// The sidecar JSON of `kernel`, completed from `lowered` (the module after
/// the pipeline): `txl.shared_bytes` of the kernel's function, and the
/// `nvvm.reqntid` / `nvvm.cluster_dim` / parameter count checked against
/// the signature, so that a sidecar never disagrees with its PTX.
FailureOr<std::string> buildSidecarJSON(const KernelSignature &kernel, ModuleOp lowered,
                                        StringRef arch, const SidecarFiles &files);

} // namespace mlir::txl

#endif // TXL_TARGET_SIDECAR_H
