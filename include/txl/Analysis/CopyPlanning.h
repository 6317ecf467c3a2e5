//===- CopyPlanning.h - shared helpers of the tile-copy passes -*- C++ -*-===//
//
// What txl-lower-tile-copies and the loop pipeliner (txl-schedule-loops)
// both need to decide how a tile travels:
//   - which warpgroups run an op (each gets its own stage of a staging
//     buffer: TMA is issued per warpgroup and each holds its own registers);
//   - the one sync that protects a shared buffer before it is reused;
//   - an i32 counter carried through every loop and `if` around an op (the
//     number of times it ran: mbarrier phases and ring slots derive from it).
//
//===----------------------------------------------------------------------===//
#ifndef TXL_ANALYSIS_COPYPLANNING_H
#define TXL_ANALYSIS_COPYPLANNING_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/PatternMatch.h"
#include "txl/Dialect/TXL/IR/TXLOps.h"

namespace mlir::txl {

/// The loop schedule txl-schedule-loops records and txl-expand-loops reads:
/// each body op's pipeline stage and its position in the pipelined body.
constexpr StringLiteral kStageAttr = "txl.stage";
constexpr StringLiteral kOrderAttr = "txl.order";

/// The warpgroups that can execute an op: all of the kernel's at the top
/// level, the listed ones inside an `scf.if` on `txl.is_warpgroup [ids]`,
/// warpgroup c in the then region of an `scf.if` on `warpgroup_id == c` (the
/// other of two in its else region).
struct WarpgroupGroup {
  int64_t first = 0;
  int64_t count = 1;
  /// Inside a warp-specialized region (is_warpgroup or is_warp): barrier 0
  /// over the whole CTA would wait for warps that never come.
  bool inRole = false;
  /// The enclosing `txl.is_warp` condition, if any (only some warps of a
  /// warpgroup run there, so no warpgroup-wide sync is possible).
  Operation *isWarp = nullptr;
};
WarpgroupGroup getWarpgroupGroup(Operation *op);

/// c when `cond` is `txl.warpgroup_id == c` (either side of the compare):
/// TXL's role split written without txl.is_warpgroup.
std::optional<int64_t> matchWarpgroupEquals(Value cond);

/// Independent copies of the body (roles) in the kernel around `op`: its
/// `txl.num_warps` / 4 warpgroups, or 1 when its role spans the CTA
/// (`txl.role_warps`).
int64_t getKernelWarpgroups(Operation *op);

/// The stage of the executing warpgroup in a per-warpgroup allocation:
/// 0 when one warpgroup runs the op, else txl.warpgroup_id - first.
Value getGroupStage(OpBuilder &b, Location loc, const WarpgroupGroup &group);

/// Syncs the threads that share a buffer before one of them reuses it: the
/// whole CTA (bar.sync 0) at the top level; inside a warp-specialized region
/// the warpgroup's compiler-reserved named barrier (what txl.tma_store_wait
/// lowers to, after the leader's bulk-store wait). Named barriers 1..7 are
/// the compiler's, so this is the only place that picks one.
void emitGroupSync(OpBuilder &b, Location loc, Operation *anchor, const WarpgroupGroup &group);

/// The widest NVMMA swizzle (128, 64, 32 bytes, else 0) that a row of
/// a tile of `shape` x `elt` is a whole number of: what wgmma reads fastest.
unsigned getWidestSwizzle(ArrayRef<int64_t> shape, Type elt);

/// A txl.load of one scalar (a block index of a sparse pattern): it may be
/// issued ahead of its iteration, masked off past the end of the loop.
bool isScalarLoad(Operation *op);

/// True if `op` is inside an scf.for or scf.while (below its function).
bool isInLoop(Operation *op);

/// Carries an i32 through every scf.for / scf.while / scf.if between the
/// function body and `site`, starting from `init` (defined in the function's
/// entry block). Returns the value seen by `site` before it runs; the value
/// built by `next` (inserted right after `site`) is the one the next
/// execution of `site` sees. Fails (with an error on `site`) under any other
/// region op.
FailureOr<Value> carryCounter(RewriterBase &rewriter, Operation *site, Value init,
                              function_ref<Value(OpBuilder &, Location, Value)> next);

} // namespace mlir::txl

#endif // TXL_ANALYSIS_COPYPLANNING_H
