//===- TileLowering.h - shared pieces of the register-tile lowering -*- C++ -*-===//
//
// What the files of the register-tile lowering (TilePatterns.cpp and the
// Tile*.cpp beside it) share: the layout analysis (TileAnalysis.cpp), the
// LLVM/PTX builders (TileBuilders.cpp) and each file's patterns. Internal to
// lib/Conversion/TXLToNVVM; the pass sees TilePatterns.h only.
//
//===----------------------------------------------------------------------===//
#ifndef TXL_LIB_CONVERSION_TXLTONVVM_TILELOWERING_H
#define TXL_LIB_CONVERSION_TXLTONVVM_TILELOWERING_H

#include "TilePatterns.h"

#include "txl/Dialect/TXL/IR/LinearLayout.h"
#include "txl/Dialect/TXL/IR/TXLDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

#include <array>
#include <string>

namespace mlir::txl::tile {
using Coord = LinearLayout::Coord;

//===----------------------------------------------------------------------===//
// Layout analysis (TileAnalysis.cpp)
//===----------------------------------------------------------------------===//

/// How a txl.reduce is carried out by one thread.
struct ReducePlan {
  /// Source registers combined in the thread: one group per distinct
  /// coordinate outside the axis, in register order.
  SmallVector<SmallVector<int64_t>> groups;
  /// XOR lane masks of the butterfly steps (lane bits moving along the axis).
  SmallVector<int64_t> laneMasks;
  /// For each result register, the group holding its value (empty when the
  /// result is a scalar: then there is one group).
  SmallVector<int64_t> resultGroups;
  /// Warp bits that move along the axis: their warps' partial results are
  /// combined through shared memory (the op's scratch).
  SmallVector<int64_t> warpBits;
};

/// One step of a txl.scan: the layout bit that moves the axis coordinate by
/// 2^k, for k = 0, 1, ... (see ScanLowering).
struct ScanStep {
  enum Kind { Register, Lane, Warp } kind;
  int64_t bit;
};

/// Which copies of a tile's elements an atomic updates: each element once.
/// A layout may hold an element in several registers of a thread (a zero
/// register basis) or in several threads (a zero lane or warp basis); the
/// copy whose duplicating bits are all zero does the update.
struct AtomicOwners {
  /// Per register: the register of this thread that updates its element.
  SmallVector<int64_t> canonical;
  /// threadIdx.x bits (lane bits 0-4, warp bits 5..) that only move to a
  /// copy of the same elements: a thread updates iff (tid & mask) == 0.
  uint32_t dupThreadMask = 0;
};

FailureOr<LinearLayout> layoutOf(Type type, std::string *why = nullptr);

Coord identity(const Coord &c);

std::string layoutName(Type type);

/// Bits an element occupies in memory (i1 is stored as a byte), 0 for
/// element types loads and stores do not support.
unsigned memoryBits(Type type);

bool isElementwiseTileOp(Operation *op);

/// txl.broadcast: the source coordinate has 0 in every size-1 dimension.
FailureOr<SmallVector<int64_t>> mapBroadcast(BroadcastOp op);

/// txl.expand_dims: the source coordinate drops the new dimension.
FailureOr<SmallVector<int64_t>> mapExpandDims(ExpandDimsOp op);

/// txl.trans: result coordinate c is source coordinate c permuted back.
FailureOr<SmallVector<int64_t>> mapTrans(TransOp op);

/// txl.reshape: the same row-major index in the source shape.
FailureOr<SmallVector<int64_t>> mapReshape(ReshapeOp op);

/// txl.join: result register r holds register map[r].first of operand
/// map[r].second (the result's last coordinate, which must come from the
/// register bits alone).
FailureOr<SmallVector<std::pair<int64_t, int64_t>>> mapJoin(JoinOp op);

/// txl.split: map[k][r] is the source register holding register r of
/// result k (coordinate c of result k is (c, k) of the source).
FailureOr<std::array<SmallVector<int64_t>, 2>> mapSplit(SplitOp op);

FailureOr<ReducePlan> planReduce(ReduceOp op, std::string &why);

/// The steps of a txl.scan, sort or flip over `axis` of `srcs` (one layout):
/// the layout bit behind each bit of the axis coordinate, lowest first.
FailureOr<SmallVector<ScanStep>> planAxisSteps(ValueRange srcs, unsigned axis, Value scratch,
                                               std::string &why);

/// Fails when the layout holds elements in several places in a way other
/// than zero bases (its non-zero bases are linearly dependent), which the
/// owner rule above cannot deduplicate.
FailureOr<AtomicOwners> atomicOwners(const LinearLayout &ll);

//===----------------------------------------------------------------------===//
// Builders (TileBuilders.cpp)
//===----------------------------------------------------------------------===//

SmallVector<Value> unpack(OpBuilder &b, Location loc, Value tile);

Value pack(OpBuilder &b, Location loc, Type structType, ArrayRef<Value> regs);

Value intConst(OpBuilder &b, Location loc, Type type, int64_t v);

/// The part of coordinate `dim` that comes from the thread's lane and warp
/// bits. Bit k of the lane (tid % 32) is bit k of tid; bit k of the warp
/// within the layout ((tid / 32) % 2^#warp-bases) is bit 5 + k of tid. Each
/// set bit XORs its basis in; bases are compile-time constants. Runs of tid
/// bits whose bases double from one bit to the next (the common case: lanes
/// then warps walking one dimension) are extracted together as
/// `((tid >> first) & mask) * basis`, since their terms occupy distinct bits.
Value threadCoordinate(OpBuilder &b, Location loc, const LinearLayout &layout, unsigned dim);

/// `v` moved into the integer register inline PTX passes it in: floats and
/// pointers by their bits, i1 and bytes widened to 16 bits (PTX has no 8-bit
/// registers).
Value toAsmInt(OpBuilder &b, Location loc, Value v, unsigned memBits, unsigned regBits);

Value fromAsmInt(OpBuilder &b, Location loc, Value v, Type eltType, unsigned memBits);

/// The address operand of an inline ld/st and its state space: global
/// pointers as `.global`, everything else through a generic address.
std::pair<Value, StringRef> asmAddress(OpBuilder &b, Location loc, Value ptr);

/// PTX register constraint for a value of `regBits`.
char constraintFor(unsigned regBits);

/// One element load. Unmasked loads without a cache hint are plain
/// llvm.loads; otherwise inline PTX `@p ld` with the result tied to `other`,
/// so a masked-off element never reads memory (it may be out of bounds) and
/// keeps `other`. The asm is marked as having side effects: it has no memory
/// operands, so LLVM would otherwise move it across stores.
Value emitLoad(OpBuilder &b, Location loc, LoadOp op, Value ptr, Value mask, Value other,
               Type eltType);

/// `count` consecutive elements from `ptr` (aligned to their size) in one
/// access: an llvm vector load, or under a mask (one predicate for all) or a
/// cache hint inline PTX `@p ld.v<n>.b32` whose outputs start as `others`,
/// so masked-off lanes keep them.
SmallVector<Value> emitVectorLoad(OpBuilder &b, Location loc, LoadOp op, Value ptr, Value mask,
                                  ArrayRef<Value> others, Type eltType, int64_t count);

/// `values` (consecutive elements, aligned to their size) to `ptr` in one
/// access: an llvm vector store, or inline PTX `@p st.v<n>.b32`.
void emitVectorStore(OpBuilder &b, Location loc, StoreOp op, Value ptr, ArrayRef<Value> values,
                     Value mask);

/// The vector width txl-vectorize-accesses proved for a load or store
/// through `ptrs` (1 without the attribute). The alignment proof is the
/// pass's; what the lowering relies on itself, that registers come in runs
/// of that many consecutive elements, is checked against the layout, so a
/// hand-written width the layout does not have falls back to one element.
int64_t vectorWidthOf(Operation *op, Value ptrs);

/// One element store: llvm.store, or inline PTX `@p st` under a mask.
void emitStore(OpBuilder &b, Location loc, StoreOp op, Value ptr, Value value, Value mask);

/// `v` from the lane `lane ^ mask` (shfl.sync.bfly).
Value shuffleXor(OpBuilder &b, Location loc, Value v, int64_t mask);

/// Synchronizes the `warps` warps of one layout group (the warps a layout
/// spans; --txl-allocate-scratch checked that one of these fits): one warp
/// with bar.warp.sync; a group no wider than the executing role (a
/// warpgroup, or the CTA of a num_warps = 8 kernel) with the role's named
/// barrier (other warpgroups may run other code, and a group narrower than
/// its role runs replicated in each of its warpgroups); a wider one with
/// barrier 0. All three order the group's shared-memory accesses.
void groupBarrier(OpBuilder &b, Location loc, int64_t warps);

/// Stores `values` (1, 2, 4, ... elements) at `addr` as one access of
/// their raw bits (`memBits` each).
void storeBits(OpBuilder &b, Location loc, Value addr, ArrayRef<Value> values, unsigned memBits);

/// Loads `count` elements of `eltType` stored as raw bits by storeBits.
SmallVector<Value> loadBits(OpBuilder &b, Location loc, Value addr, int64_t count, Type eltType,
                            unsigned memBits);

/// Element offset (i32) of `coords` in a row-major buffer of `shape` whose
/// rows (last dimension) hold `rowElems` elements, padding included.
Value rowMajorOffset(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, int64_t rowElems,
                     ArrayRef<Value> coords);

/// Moves this thread's registers `regs` of layout `src` to layout `dst`
/// through the scratch view `base` (row-major, rows of `rowElems`): every
/// thread stores its registers, the group syncs, every thread loads its new
/// ones. A first barrier makes sure the group finished reading the scratch
/// before it is written again (a loop, or another buffer sharing bytes).
SmallVector<Value> relayoutThroughShared(OpBuilder &b, Location loc, const LinearLayout &src,
                                         const LinearLayout &dst, ArrayRef<Value> regs, Value base,
                                         SmemType view, Type eltType);

/// Moves this thread's registers `regs` of layout `src` to `dst` with warp
/// shuffles (src.getWarpShuffleTo(dst) succeeded). For destination register
/// r, lane l needs register s(r, l) of lane t(r, l) (WarpShuffle::source).
/// One shfl.sync.idx per register: every lane reads lane t(r, l), and every
/// lane sends the register its readers want (the same for all of them, as
/// getWarpShuffleTo checked), chosen by its own lane (selectByLane) when
/// that depends on the lane. A register every lane finds in itself needs no
/// shuffle.
SmallVector<Value> relayoutByShuffles(OpBuilder &b, Location loc, const LinearLayout &src,
                                      const LinearLayout &dst, ArrayRef<Value> regs);

/// Adds `v` (i32) times `stride` to `acc` (null: zero).
Value addScaled(OpBuilder &b, Location loc, Value acc, Value v, int64_t stride);

//===----------------------------------------------------------------------===//
// Patterns of the other files
//===----------------------------------------------------------------------===//

/// txl.reduce, txl.scan, txl.sort, txl.flip (TileReductions.cpp).
void populateReductionPatterns(const TXLTypeConverter &converter, RewritePatternSet &patterns,
                               PatternBenefit benefit);
/// txl.print, txl.assert (TilePrint.cpp).
void populatePrintPatterns(const TXLTypeConverter &converter, RewritePatternSet &patterns,
                           PatternBenefit benefit);
/// txl.elementwise_inline_asm, tiles and scalars (TileInlineAsm.cpp).
void populateInlineAsmPatterns(const TXLTypeConverter &converter, RewritePatternSet &patterns,
                               PatternBenefit benefit);
/// txl.gather (TileGather.cpp).
void populateGatherPatterns(const TXLTypeConverter &converter, RewritePatternSet &patterns,
                            PatternBenefit benefit);
/// txl.histogram (TileHistogram.cpp).
void populateHistogramPatterns(const TXLTypeConverter &converter, RewritePatternSet &patterns,
                               PatternBenefit benefit);

} // namespace mlir::txl::tile

#endif // TXL_LIB_CONVERSION_TXLTONVVM_TILELOWERING_H
