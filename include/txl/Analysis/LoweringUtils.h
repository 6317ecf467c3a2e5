//===- LoweringUtils.h - shared helpers of the lowering stages --*- C++ -*-===//
//
// The type converter every stage uses, and small builders for the values
// lowerings need again and again (the shared-memory base, thread ids, the
// warpgroup's leader predicate).
//
//===----------------------------------------------------------------------===//
#ifndef TXL_ANALYSIS_LOWERINGUTILS_H
#define TXL_ANALYSIS_LOWERINGUTILS_H

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"
#include "txl/Dialect/TXL/IR/LinearLayout.h"
#include "txl/Dialect/TXL/IR/TXLOps.h"

namespace mlir::txl {

/// Maps txl types to their LLVM form:
///   !txl.smem, !txl.mbar     -> !llvm.ptr<3> (address of the view)
///   !txl.tmem                -> i32 (TMEM address)
///   !txl.tensordesc          -> !llvm.ptr (the byval CUtensorMap parameter)
///   !txl.ptr<T, as>          -> !llvm.ptr<as>
///   tensor<..., #layout>     -> !llvm.struct<(elt x registers per thread)>
class TXLTypeConverter : public LLVMTypeConverter {
public:
  explicit TXLTypeConverter(MLIRContext *ctx);
};

/// The LLVM struct holding one thread's registers of `tile`, or null (with
/// the reason in `why`) when the tile has no usable layout.
Type getTileStructType(RankedTensorType tile, const TypeConverter &converter,
                       std::string *why = nullptr);

/// Name of the kernel's one dynamic shared-memory array.
constexpr StringLiteral kSharedArrayName = "txl_smem";
/// Address (ptr<3>) of byte `offset` of the kernel's shared memory; declares
/// `@txl_smem` (external, [0 x i8], aligned 1024) on first use. An external
/// declaration, never gpu.dynamic_shared_memory: that one aliases static
/// shared memory in LLVM 22 (docs/mlir22-nvptx-facts.md §4.1).
Value getSharedAddress(OpBuilder &b, Location loc, Operation *anchor, int64_t offset);
/// `base + offset` bytes.
Value addBytes(OpBuilder &b, Location loc, Value base, Value offset);
Value addBytes(OpBuilder &b, Location loc, Value base, int64_t offset);
/// `base + index * stride` bytes for a run-time i32 index (a stage or a
/// sub-tile of a buffer).
Value addScaledIndex(OpBuilder &b, Location loc, Value base, Value index, int64_t stride);

Value i32Const(OpBuilder &b, Location loc, int64_t v);
Value i64Const(OpBuilder &b, Location loc, int64_t v);
/// threadIdx.x as i32.
Value getThreadId(OpBuilder &b, Location loc);

/// Warps that run one copy of the kernel body together (a "role"): one
/// warpgroup (4) in TXL-style and warp-specialized kernels; all the CTA's
/// warps in a Triton-style kernel launched with num_warps = 8 or 16 (the
/// kernel function's txl.role_warps), or with num_warps = 1 or 2 (its
/// txl.num_warps: no warpgroup there). The one place that decides who issues
/// a role's TMA copies and which threads a role's barrier waits for.
int64_t getRoleWarps(Operation *op);
/// Whether `func` is warp-specialized (has txl.is_warpgroup / txl.is_warp
/// regions): its roles run concurrently, so no buffer's live range may be
/// shortened by program order.
bool isWarpSpecialized(func::FuncOp func);
/// A txl.dot runs on mma.sync (m16n8k16, one 16 x 8 tile per warp and
/// instruction) instead of wgmma when its M is not a whole number of the
/// role's wgmma steps (64 rows per warpgroup): M = 16 or 32 (the 16 query
/// heads of one KV group in NSA), or M = 64 on a role of 8 warps. Its
/// operands are then register tiles in the mma.sync operand layouts. The
/// first form is the rule, for M rows on a role of `roleWarps` warps; the
/// second applies it to a dot in its kernel's role (getRoleWarps).
bool usesMmaSync(int64_t m, int64_t roleWarps);
bool usesMmaSync(DotOp dot);
/// The warps of an mma.sync layout along M for M rows on `roleWarps` warps:
/// 16-row blocks first (a power of two, at most one block a warp); the other
/// warps split N (#txl.nvmma version 2, warpsPerCTA = [this, roleWarps / this]).
int64_t getMmaSyncWarpsAlongM(int64_t m, int64_t roleWarps);
/// True in the first thread of each role (who issues TMA and expect_tx).
Value isRoleLeader(OpBuilder &b, Location loc, int64_t roleWarps);
/// bar.sync over the executing role: named barrier 1 + role index, 32 *
/// roleWarps threads (ids 1..7 are reserved for the compiler; a role of the
/// whole CTA uses id 1 as well, so that tma_store_wait's id is the same).
void syncRole(OpBuilder &b, Location loc, int64_t roleWarps);

/// Where this thread's registers of a tile live: coordinates are the XOR of
/// a compile-time part (the register bits) and a run-time part (the lane and
/// warp bits), computed once here. The warp index is taken modulo the
/// layout's warps, so a layout spans one warpgroup wherever it runs.
struct ThreadCoords {
  const LinearLayout &layout;
  SmallVector<Value> laneWarp; // one i32 per dimension

  /// `pinned`: read the thread index through an opaque instruction at this
  /// point, so that LLVM cannot hoist the (loop-invariant) per-register
  /// addresses computed from it out of enclosing loops: a persistent
  /// kernel's epilogue storing a 64x256 tile would otherwise keep 128
  /// addresses live across the whole tile loop and spill (ptxas recomputes
  /// them cheaply next to the stores instead).
  ThreadCoords(OpBuilder &b, Location loc, const LinearLayout &layout, bool pinned = false);
  /// Coordinate `dim` (i32) of register `reg`.
  Value get(OpBuilder &b, Location loc, int64_t reg, unsigned dim) const;

  /// The part of coordinate `dim` that the set bits of `index` (a lane or a
  /// warp index) contribute through `bases` (the layout's lane or warp
  /// bases): the XOR of their bases, XOR-ed into `acc` (null: zero).
  static Value ofBits(OpBuilder &b, Location loc, ArrayRef<LinearLayout::Coord> bases, Value index,
                      unsigned dim, Value acc = {});
  /// This thread's warp index, modulo the layout's warps.
  static Value warpIndex(OpBuilder &b, Location loc, Value tid, const LinearLayout &layout);
};

/// How one txl TMA box is moved by the hardware: a box's inner dimension may
/// not exceed the swizzle span, so a wider tile moves as `pieces` boxes of
/// `box` side by side (each a column block of rows x swizzle bytes in shared
/// memory). The host encodes the descriptor with `box`.
struct TmaBox {
  SmallVector<int64_t> box; // outermost first, like the tile
  int64_t pieces = 1;
  int64_t pieceBytes = 0; // shared-memory bytes of one piece
  unsigned swizzle = 0;
};
TmaBox getTmaBox(TensorDescType desc);
/// The boxes a copy of `buffer` through `desc` moves: all of the block's, or,
/// for a column slice of it (isTmaColumnSlice), the slice's.
TmaBox getTmaBox(TensorDescType desc, SmemType buffer);

/// A view narrower than its swizzle span (a K step of a wider swizzled tile,
/// at an offset inside the swizzle atom that its type does not record): wgmma
/// reads it through a descriptor (the hardware swizzles absolute address
/// bits), but element-wise addressing (getSharedElementAddress) would swizzle
/// relative to the view's start, so such views are refused there.
bool isInsideSwizzleAtom(SmemType view);
/// The error for element-wise access to such a view.
LogicalResult refuseInsideSwizzleAtom(Operation *op, SmemType view);

/// Byte address (ptr<3>) of element `coords` (i32, one per dimension) of the
/// shared view `view` at `base`, for any of its encodings:
///   - no swizzle: row-major;
///   - NVMMA swizzle S: column blocks of S bytes x rows (as TMA writes them),
///     the 16-byte chunk index XOR-ed with the row within the 8-row group;
///     a transposed (MN-major) view is the same storage, dimensions swapped.
/// Every lowering that addresses shared memory element by element (smem
/// loads/stores, cp.async) uses this one definition, so they agree with TMA.
Value getSharedElementAddress(OpBuilder &b, Location loc, Value base, SmemType view,
                              ArrayRef<Value> coords);

/// `smem` (ptr<3>) as a shared::cluster pointer (ptr<7>) to the executing
/// CTA's own window: the same 32-bit address, reinterpreted (an
/// addrspacecast would go through a generic address, two cvta).
Value toClusterWindow(OpBuilder &b, Location loc, Value smem);
/// `smem` (ptr<3>) in CTA `cta` (i32) of the cluster: `mapa` to the same
/// offset in that CTA's window of the shared::cluster space (ptr<7>), for
/// ld/st.shared::cluster, st.async and remote mbarrier arrives.
Value mapToCta(OpBuilder &b, Location loc, Value smem, Value cta);

/// getSharedElementAddress's offset from the view's base, for constant
/// coordinates.
int64_t getSharedElementOffset(SmemType view, ArrayRef<int64_t> coords);

/// The shared addresses of registers 0, step, 2 * step, ... (one access
/// each) of a tile in layout `layout` stored in `view` (the tile's shape):
/// when, for every thread of the layout, the offset of register r is the
/// offset of register 0 plus a
/// constant (checked exhaustively: the NVMMA swizzle XORs row bits into the
/// column chunk, which the register bits of a coalesced layout do not
/// touch), register r's address is register 0's plus that constant, folded
/// into the instruction's immediate ([%r + 2048]), as Triton and CUTLASS
/// address their cp.async and ld/st.shared: a GEMM's cp.async ring slot
/// costs one address register instead of one per copy (16 on 128x64 A and
/// 64x128 B tiles). Otherwise each register's address is computed from its
/// coordinates.
class SharedAddresses {
public:
  SharedAddresses(OpBuilder &b, Location loc, Value base, SmemType view, const LinearLayout &layout,
                  int64_t step, bool pinned = false);
  /// The address of register `reg` (a multiple of the step).
  Value get(OpBuilder &b, Location loc, int64_t reg);
  /// When the addresses are register 0's plus constants: read register 0's
  /// address through an opaque instruction here, so that LLVM keeps them in
  /// that form inside a loop. Without it, loop strength reduction rewrites
  /// the addresses of a ring slot picked by a run-time `i % S` (SCEV sees
  /// `i - S * (i / S)`) as one loop-invariant register per access plus a
  /// shared induction term: tutorial 03's pipelined add with 3 buffers kept
  /// 64 such registers live across its loop and spilled 168 bytes.
  void pinBase(OpBuilder &b, Location loc);
  /// The thread's coordinates in the layout.
  const ThreadCoords &getCoords() const { return coords; }
  Value getBase() const { return base; }

private:
  Value base;
  SmemType view;
  ThreadCoords coords;
  int64_t step;
  Value first;                // register 0's address, when separable
  SmallVector<int64_t> delta; // per access: bytes past register 0
};

/// Byte offset, in a cross-warp txl.reduce's scratch, of the partial results
/// of operand `index` whose elements have `elementBytes[i]` bytes: each
/// operand holds `partials` x `outputs` elements, 16-byte aligned. With
/// index == elementBytes.size(), the scratch's total size.
int64_t getReduceScratchOffset(ArrayRef<int64_t> elementBytes, size_t index, int64_t partials,
                               int64_t outputs);

/// Inline PTX for what upstream NVVM has no op for (predicated or vector
/// accesses with explicit cache/sem/scope, wgmma with register operands,
/// try_wait loops): `ptx` with $N operands bound, per LLVM's inline-asm
/// `constraints`, to `operands`; result `resultType` (null: none; several
/// results: an LLVM struct). Always marked as having side effects: the asm
/// has no memory operands, so LLVM would otherwise move or delete it. Every
/// lowering emits raw PTX through this one builder.
LLVM::InlineAsmOp createInlinePtx(OpBuilder &b, Location loc, Type resultType, ValueRange operands,
                                  StringRef ptx, StringRef constraints);

/// Largest k such that registers r..r+k-1 (r a multiple of k) of every
/// thread of `layout` hold k consecutive elements of dimension `dim`,
/// starting at a multiple of k (cp.async and vectorized global accesses move
/// such a run in one instruction).
int64_t registerRun(const LinearLayout &layout, unsigned dim);

/// Elements per instruction of a txl.load / txl.store, proven by
/// txl-vectorize-accesses (absent: one).
constexpr StringLiteral kVectorAttr = "txl.vector";

/// Planned shared-memory byte offset of an allocation op (set by SmemAllocs).
constexpr StringLiteral kOffsetAttrName = "txl.offset";
/// Total planned shared-memory bytes of a kernel.
constexpr StringLiteral kSharedBytesAttrName = "txl.shared_bytes";

} // namespace mlir::txl

#endif // TXL_ANALYSIS_LOWERINGUTILS_H
