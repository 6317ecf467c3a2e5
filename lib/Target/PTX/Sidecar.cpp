//===- Sidecar.cpp - the JSON launch description of a kernel --------------===//
//
// Builds `k.json` for python/txl/runtime/launcher.py (parse_sidecar). The
// field names and dtype spellings are that file's; keep them in step.
//
// A wrong sidecar does not fail loudly: a TMA box that differs from the one
// the kernel expects makes the kernel wait for bytes that never arrive (a
// hang), a wrong shared-memory size makes the launch fail or the kernel
// overrun its allocation. So everything written here is cross-checked
// against the lowered kernel (reqntid, cluster shape, parameter count and
// by-value descriptors) rather than trusted from one side.
//
//===----------------------------------------------------------------------===//

#include "txl/Target/Sidecar.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "txl/Analysis/LoweringUtils.h"
#include "txl/Dialect/TXL/IR/TXLDialect.h"
#include "txl/Dialect/TXL/Transforms/GlobalScratch.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::txl;

/// Argument attribute naming a kernel parameter in the sidecar.
static constexpr StringLiteral kParamNameAttr = "txl.name";
static constexpr StringLiteral kGlobalScratchAttrName = "txl.global_scratch";

/// The sidecar's spelling of an element type (python/txl/runtime/dtypes.py,
/// SIDECAR_DTYPES), or "" when the launcher has none.
static std::string sidecarDtype(Type type) {
  if (type.isBF16())
    return "bf16";
  if (type.isF16())
    return "f16";
  if (type.isF32())
    return "f32";
  if (type.isF64())
    return "f64";
  if (isa<Float8E4M3FNType>(type))
    return "f8e4m3";
  if (isa<Float8E5M2Type>(type))
    return "f8e5m2";
  if (auto integer = dyn_cast<IntegerType>(type)) {
    unsigned width = integer.getWidth();
    if (integer.isUnsigned())
      return width == 8 ? "u8" : "";
    if (width == 1 || width == 8 || width == 16 || width == 32 || width == 64)
      return "i" + std::to_string(width);
  }
  return "";
}

static std::string typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

FailureOr<SmallVector<KernelSignature>> mlir::txl::collectKernelSignatures(ModuleOp module) {
  SmallVector<KernelSignature> kernels;
  for (auto fn : module.getOps<FunctionOpInterface>()) {
    if (!fn->hasAttr(kKernelAttrName))
      continue;
    KernelSignature sig{fn.getName().str(), fn.getLoc(), /*numWarps=*/4, /*params=*/{}};
    if (auto warps = fn->getAttrOfType<IntegerAttr>(kNumWarpsAttrName))
      sig.numWarps = warps.getInt();
    if (sig.numWarps < 1 || sig.numWarps > 32)
      return fn.emitError() << "'" << kNumWarpsAttrName << "' = " << sig.numWarps << " gives "
                            << 32 * sig.numWarps
                            << " threads; a CTA has 32 to 1024 threads (1 to 32 warps)";

    ArrayRef<Type> argTypes = fn.getArgumentTypes();
    llvm::StringSet<> seen;
    for (unsigned i = 0, e = argTypes.size(); i < e; ++i) {
      Type type = argTypes[i];
      Location argLoc = fn.isExternal() ? fn.getLoc() : fn.getArgument(i).getLoc();
      SidecarParam param;
      param.name = "arg" + std::to_string(i);
      if (Attribute nameAttr = fn.getArgAttr(i, kParamNameAttr)) {
        auto str = dyn_cast<StringAttr>(nameAttr);
        if (!str || str.getValue().empty())
          return emitError(argLoc)
                 << "kernel '" << sig.name << "' parameter " << i << ": '" << kParamNameAttr
                 << "' must be a non-empty string, got " << nameAttr;
        param.name = str.getValue().str();
      }
      if (!seen.insert(param.name).second)
        return emitError(argLoc) << "kernel '" << sig.name << "' has two parameters named '"
                                 << param.name << "'; the launcher passes arguments by name, "
                                 << "so give each a distinct '" << kParamNameAttr << "'";

      auto unsupported = [&](StringRef why) {
        return emitError(argLoc) << "kernel '" << sig.name << "' parameter " << i << " ('"
                                 << param.name << "') has type " << type << ", " << why;
      };
      if (auto desc = dyn_cast<TensorDescType>(type)) {
        param.kind = "tensordesc";
        param.dtype = sidecarDtype(desc.getElementType());
        // The host encodes the CUtensorMap with the box the hardware moves,
        // which for a tile wider than the swizzle span is one column block.
        TmaBox box = getTmaBox(desc);
        if (llvm::any_of(box.box, [](int64_t d) { return d > 256; }))
          return unsupported("whose inner dimension needs a swizzled layout to move as TMA boxes "
                             "of at most 256 elements (a buffer read only by registers gets none: "
                             "use a tile of at most 256 columns)");
        param.blockShape.assign(box.box.begin(), box.box.end());
        param.swizzle = box.swizzle;
      } else if (Attribute scratch = fn.getArgAttr(i, kGlobalScratchAttrName)) {
        auto bytes = dyn_cast<IntegerAttr>(scratch);
        auto ptr = dyn_cast<PtrType>(type);
        if (!bytes || bytes.getInt() <= 0 || bytes.getInt() % 128 != 0 || !ptr ||
            ptr.getAddressSpace() != 1 || !ptr.getPointeeType().isInteger(8))
          return unsupported("with '" + kGlobalScratchAttrName.str() +
                             "', which needs a !txl.ptr<i8> and a positive multiple of 128 "
                             "bytes per CTA");
        param.kind = "global_scratch";
        param.dtype = "i8";
        param.scratchBytes = bytes.getInt();
      } else if (auto ptr = dyn_cast<PtrType>(type)) {
        if (ptr.getAddressSpace() != 1)
          return unsupported("a pointer into address space " +
                             std::to_string(ptr.getAddressSpace()) +
                             ", but the host can only pass global memory (address space 1) "
                             "pointers; use !txl.ptr<" +
                             typeString(ptr.getPointeeType()) + ">");
        param.kind = "ptr";
        param.dtype = sidecarDtype(ptr.getPointeeType());
      } else if (isa<IntegerType, FloatType>(type)) {
        param.kind = "scalar";
        param.dtype = sidecarDtype(type);
        if (param.dtype == "f8e4m3" || param.dtype == "f8e5m2")
          return unsupported("but fp8 scalars cannot be passed to a kernel; pass an f32 and "
                             "convert it in the kernel");
      } else {
        return unsupported("which the launcher cannot pass: kernel parameters are "
                           "!txl.tensordesc, !txl.ptr<T> or scalars (i1, i8, i16, i32, i64, "
                           "f16, bf16, f32, f64)");
      }
      if (param.dtype.empty())
        return unsupported("whose element type has no launcher dtype; supported: bf16, f16, "
                           "f32, f64, f8E4M3FN, f8E5M2, i1, i8, ui8, i16, i32, i64");
      sig.params.push_back(std::move(param));
    }
    // The parameter txl-global-scratch appends (the signature is read before
    // the pipeline runs): the scratch of descriptors built on the device.
    if (int64_t bytes = getGlobalScratchBytes(fn)) {
      SidecarParam param;
      param.name = "arg" + std::to_string(argTypes.size());
      if (!seen.insert(param.name).second)
        return fn.emitError() << "kernel '" << sig.name << "' has a parameter named '" << param.name
                              << "', the name of the global scratch parameter "
                              << "that txl-global-scratch appends; rename it";
      param.kind = "global_scratch";
      param.dtype = "i8";
      param.scratchBytes = bytes;
      sig.params.push_back(std::move(param));
    }
    kernels.push_back(std::move(sig));
  }
  return kernels;
}

/// Pads an nvvm.reqntid / nvvm.cluster_dim array to three dimensions.
static std::array<int64_t, 3> dims3(ArrayRef<int32_t> dims) {
  std::array<int64_t, 3> r = {1, 1, 1};
  for (size_t i = 0; i < dims.size() && i < 3; ++i)
    r[i] = dims[i];
  return r;
}

/// True if `fn` takes the address of the kernel's dynamic shared memory.
static bool usesSharedArray(Operation *fn) {
  bool uses = false;
  fn->walk([&](LLVM::AddressOfOp op) {
    if (op.getGlobalName() == kSharedArrayName)
      uses = true;
  });
  return uses;
}

FailureOr<std::string> mlir::txl::buildSidecarJSON(const KernelSignature &kernel, ModuleOp lowered,
                                                   StringRef arch, const SidecarFiles &files) {
  Operation *fn = SymbolTable::lookupSymbolIn(lowered, kernel.name);
  if (!fn)
    return emitError(kernel.loc) << "kernel '" << kernel.name
                                 << "' is missing from the module after the txl pipeline (a "
                                    "stage renamed or dropped it), so no sidecar can describe "
                                    "it; this is a bug in the pipeline";
  Location loc = fn->getLoc();

  int64_t sharedBytes = 0;
  if (Attribute attr = fn->getAttr(kSharedBytesAttrName)) {
    auto bytes = dyn_cast<IntegerAttr>(attr);
    if (!bytes || bytes.getInt() < 0)
      return emitError(loc) << "'" << kSharedBytesAttrName
                            << "' must be a non-negative integer, got " << attr;
    sharedBytes = bytes.getInt();
  } else if (usesSharedArray(fn)) {
    return emitError(loc) << "kernel '" << kernel.name << "' uses the dynamic shared memory @"
                          << kSharedArrayName << " but has no '" << kSharedBytesAttrName
                          << "', so the launcher would allocate none; the lowering must record "
                             "the planned size";
  }

  std::array<int64_t, 3> threads = {32 * kernel.numWarps, 1, 1};
  if (auto reqntid = fn->getAttrOfType<DenseI32ArrayAttr>("nvvm.reqntid")) {
    std::array<int64_t, 3> lowered = dims3(reqntid.asArrayRef());
    if (lowered != threads)
      return emitError(loc) << "kernel '" << kernel.name << "' requires "
                            << lowered[0] * lowered[1] * lowered[2]
                            << " threads (nvvm.reqntid) but its txl.num_warps = " << kernel.numWarps
                            << " asks for " << threads[0]
                            << "; the sidecar would launch it with the wrong block size";
  }
  std::array<int64_t, 3> cluster = {1, 1, 1};
  if (auto dims = fn->getAttrOfType<DenseI32ArrayAttr>("nvvm.cluster_dim"))
    cluster = dims3(dims.asArrayRef());

  if (auto llvmFn = dyn_cast<LLVM::LLVMFuncOp>(fn)) {
    if (llvmFn.getNumArguments() != kernel.params.size())
      return emitError(loc) << "kernel '" << kernel.name << "' has " << llvmFn.getNumArguments()
                            << " parameters after lowering but " << kernel.params.size()
                            << " in txl; the sidecar would not match the PTX";
    for (auto [i, param] : llvm::enumerate(kernel.params))
      if (param.kind == "tensordesc" &&
          !llvmFn.getArgAttr(i, LLVM::LLVMDialect::getByValAttrName()))
        return emitError(loc) << "kernel '" << kernel.name << "' parameter " << i << " ('"
                              << param.name
                              << "') is a TMA descriptor, which the launcher passes by value "
                                 "(128 bytes), but the lowered parameter has no llvm.byval";
  }

  // Written by hand (not json::Value, whose objects print with sorted keys)
  // to keep the documented field order and one parameter per line.
  std::string text;
  llvm::raw_string_ostream os(text);
  auto str = [&](StringRef s) { os << llvm::json::Value(s); };
  auto ints = [&](ArrayRef<int64_t> values) {
    os << "[";
    llvm::interleaveComma(values, os);
    os << "]";
  };
  os << "{\n  \"kernel\": ";
  str(kernel.name);
  os << ",\n  \"arch\": ";
  str(arch);
  os << ",\n  \"ptx\": ";
  str(files.ptx);
  if (files.cubin) {
    os << ",\n  \"cubin\": ";
    str(*files.cubin);
  }
  os << ",\n  \"threads\": ";
  ints(threads);
  os << ",\n  \"shared_bytes\": " << sharedBytes;
  os << ",\n  \"cluster\": ";
  ints(cluster);
  os << ",\n  \"params\": [";
  for (auto [i, param] : llvm::enumerate(kernel.params)) {
    os << (i ? ",\n    " : "\n    ") << "{\"name\": ";
    str(param.name);
    os << ", \"kind\": ";
    str(param.kind);
    os << ", \"dtype\": ";
    str(param.dtype);
    if (param.kind == "tensordesc") {
      os << ", \"block_shape\": ";
      ints(param.blockShape);
      os << ", \"swizzle\": " << param.swizzle;
    }
    if (param.kind == "global_scratch")
      os << ", \"bytes\": " << param.scratchBytes;
    os << "}";
  }
  os << (kernel.params.empty() ? "]\n}\n" : "\n  ]\n}\n");

  // Cheap insurance that the hand-written text is JSON.
  if (llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text); !parsed) {
    std::string why = llvm::toString(parsed.takeError());
    return emitError(loc) << "internal error: the sidecar for '" << kernel.name
                          << "' is not valid JSON (" << why << "); this is a bug in txlc";
  }
  return text;
}
