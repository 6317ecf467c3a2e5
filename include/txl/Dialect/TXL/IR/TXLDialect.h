//===- TXLDialect.h - the txl dialect, types and attributes -----*- C++ -*-===//
//
// Include this for the dialect, its types, attributes and enums; TXLOps.h
// adds the operations.
//
//===----------------------------------------------------------------------===//
#ifndef TXL_DIALECT_TXL_IR_TXLDIALECT_H
#define TXL_DIALECT_TXL_IR_TXLDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "txl/Dialect/TXL/IR/TXLDialect.h.inc"
#include "txl/Dialect/TXL/IR/TXLEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "txl/Dialect/TXL/IR/TXLTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "txl/Dialect/TXL/IR/TXLAttrs.h.inc"

namespace mlir::txl {

/// Memory-effect resources: accesses to different resources never alias, so
/// passes may reorder a shared-memory load around a global store, but never
/// around another shared-memory write, a wait or a fence.
struct SharedMemoryResource : SideEffects::Resource::Base<SharedMemoryResource> {
  StringRef getName() override { return "txl::SharedMemory"; }
};
struct TensorMemoryResource : SideEffects::Resource::Base<TensorMemoryResource> {
  StringRef getName() override { return "txl::TensorMemory"; }
};
struct MBarrierResource : SideEffects::Resource::Base<MBarrierResource> {
  StringRef getName() override { return "txl::MBarrier"; }
};

/// Module attribute naming the target ("sm_90a" or "sm_100a").
constexpr StringLiteral kTargetAttrName = "txl.target";
/// Unit attribute on func.func marking a kernel entry point.
constexpr StringLiteral kKernelAttrName = "txl.kernel";
/// Warps per block of a kernel (4 per warpgroup).
constexpr StringLiteral kNumWarpsAttrName = "txl.num_warps";
/// Warps that run one copy of the body together (a role) on a kernel whose
/// role is wider than one warpgroup: 8, 16 or 32, equal to txl.num_warps (a
/// Triton-style kernel launched with num_warps = 8: its two warpgroups split
/// each dot's M). Absent: roles of one warpgroup (4 warps).
constexpr StringLiteral kRoleWarpsAttrName = "txl.role_warps";
/// CTAs per cluster of a kernel launched with num_ctas > 1 (a cluster of
/// num_ctas x 1 x 1; one program of the grid is one cluster). Absent: 1.
constexpr StringLiteral kNumCtasAttrName = "txl.num_ctas";
/// The most elements a register tile may have: 2^20, Triton's limit
/// (TRITON_MAX_TENSOR_NUMEL). Larger tiles cannot fit in registers anyway,
/// and unrolling their per-register code exhausts the compiler's memory.
constexpr int64_t kMaxTileElements = int64_t(1) << 20;
/// Shared memory one block may use on the H100 (227 KB of its 228).
constexpr int64_t kMaxSharedBytes = 227 * 1024;
/// The target a module compiles for: its txl.target, sm_90a when absent.
StringRef getTargetArch(Operation *op);
/// CTAs per cluster of the function that holds `op`: its txl.num_ctas, 1 when
/// absent.
int64_t getClusterSize(Operation *op);

/// i1 in the shape (and register layout) of `type`: the type of a mask.
Type getI1SameShape(Type type);

/// Size in bits of a tile element (pointers count 64).
unsigned getElementBitWidth(Type elementType);

/// Bytes of a shared tile's row along its contiguous dimension (the last, or
/// the first of a transposed 2-D view): what an NVMMA swizzle is laid over.
int64_t getContiguousRowBytes(ArrayRef<int64_t> shape, Type elementType, bool transposed);

/// K of one wgmma (and tcgen05) instruction for an input element type: 32
/// bytes of K per row (k16 for 16-bit, k32 for 8-bit), k8 for tf32 (f32).
/// The one place this hardware convention lives.
int64_t getMmaInstrK(Type inputElementType);

} // namespace mlir::txl

#endif // TXL_DIALECT_TXL_IR_TXLDIALECT_H
