//===- TilePatterns.h - register-tile lowering of convert-txl-to-nvvm -*- C++ -*-===//
//
// Internal interface between the pass (ConvertTXLToNVVM.cpp) and the
// register-tile patterns (TilePatterns.cpp). A register tile is a ranked
// tensor with a register layout; after conversion it is an !llvm.struct of
// the registers one thread holds, in LinearLayout register order.
//
// The pass first asks checkTileOp() about every op that touches a tile, so
// that what cannot be lowered is reported once, with a reason, before any
// rewriting; the patterns then only meet ops they can lower.
//
//===----------------------------------------------------------------------===//
#ifndef TXL_LIB_CONVERSION_TXLTONVVM_TILEPATTERNS_H
#define TXL_LIB_CONVERSION_TXLTONVVM_TILEPATTERNS_H

#include "txl/Analysis/LoweringUtils.h"

#include "llvm/ADT/StringSet.h"

namespace mlir::txl {

/// True for the ops the tile patterns lower: elementwise arith/math ops on
/// tiles, tile constants and txl.{splat, make_range, broadcast, expand_dims,
/// relayout, addptr, load, store, reduce} (pointer ops also on scalars).
bool isLowerableTileOp(Operation *op);

/// A tile arith.truncf f32 -> e4m3/e5m2 or arith.extf e4m3/e5m2 -> f16/f32:
/// fp8 registers are raw bytes, these convert them with cvt.*.e4m3x2/e5m2x2.
bool isFp8TileConversion(Operation *op);

/// Emits an error on `op` and fails when the tile op `op` cannot be lowered
/// (mismatched layouts, data in another thread, unsupported element types).
/// Succeeds for every op that isLowerableTileOp() does not claim.
LogicalResult checkTileOp(Operation *op);

/// Adds the tile patterns. `benefit` must exceed that of the upstream
/// arith/math patterns: those would otherwise rewrite a tile op into one LLVM
/// op on the whole struct. `uniformScalars`: the kernels (by name) whose
/// scalars hold the same value in every thread, Triton's model (no txl.tid,
/// lane_id, warp_id, warpgroup_id, is_warp or is_warpgroup): a scalar
/// txl.store there is done by one thread of each role.
void populateTileToLLVMPatterns(const TXLTypeConverter &converter, RewritePatternSet &patterns,
                                PatternBenefit benefit,
                                const llvm::StringSet<> *uniformScalars = nullptr);

} // namespace mlir::txl

#endif // TXL_LIB_CONVERSION_TXLTONVVM_TILEPATTERNS_H
