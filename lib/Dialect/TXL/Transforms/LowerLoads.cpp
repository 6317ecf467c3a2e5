//===- LowerLoads.cpp - TMA copies and their waits --------------------------===//
//
// TMA is issued by one thread: the first of the warpgroup that executes the
// op (TXL kernels call tma_load from a whole producer warpgroup). A box whose
// inner dimension is wider than the swizzle span is moved as several
// hardware boxes (see getTmaBox). Coordinates are given outermost first, as
// the tile's shape; TMA wants them innermost first.
//
// A TMA store reads shared memory through the async proxy, so the generic
// writes that filled the tile are fenced first (fence.proxy.async); its
// completion is tracked per issuing thread by bulk groups. tma_store_wait
// waits for the group in the issuing thread and then syncs the warpgroup on
// a compiler-reserved named barrier (1 + warpgroup id) so no thread reuses
// the tile while TMA still reads it. A reducing store (reduce = add/min/max)
// is the same with cp.reduce.async.bulk.tensor, which combines the box into
// global memory; its NVVM op has no predicate, so it sits in an scf.if on
// the leader.
//
// tma_gather (sm_100a) is TMA's gather4 mode: one instruction moves 4 rows,
// named by their row indices, at one column. The warpgroup's first thread
// issues one per 4 rows (and per hardware box of a wide row), so it must
// hold every row offset itself: x_offsets must be replicated in each
// thread's registers (reading them from other threads would need shuffles
// from other warps, i.e. shared memory; the layouts TXL gives tiny index
// tiles replicate them anyway). It is emitted as nvvm.inline_ptx: the
// upstream op builds predicated PTX without the load mode, so a predicated
// gather4 through it would be a 5-D tile load.
//
// make_tensor_descriptor builds a tensor map in global memory: the first
// thread of the executing warpgroup (the TMA issuer) zeroes the 128-byte
// slot, sets every field with tensormap.replace (sizes, boxes and element
// strides innermost first, byte strides of the outer dimensions, rank - 1,
// the PTX element-type code, swizzle mode, zero or NaN fill), then
// fence.proxy.tensormap::generic.release and .acquire on the slot, so its own
// later TMA copies (tensormap proxy) see the generic-proxy writes. Other
// threads never touch it: each warpgroup builds its own copy.
//
// async_load is cp.async, issued by every thread for the elements its
// registers of the pointer tile hold (the tile's LinearLayout gives their
// coordinates, getSharedElementAddress their shared address, so any view
// encoding works). A run of k registers that are k consecutive elements of
// the last dimension, aligned to k, is one copy of k * elemBytes bytes (4, 8
// or 16): in shared memory such a run stays contiguous under the NVMMA
// swizzle, which permutes whole 16-byte chunks. In global memory the run is
// trusted to be contiguous and aligned: `contiguity` bounds it when given
// (the cp.async rings of txl-schedule-loops set it to what the AxisInfo
// analysis proves of the pointers), otherwise the layout's run is used (the
// producer of the pointers chose that layout for coalesced access). A copy
// from an address not aligned to its size faults ("misaligned address").
// Masked-off elements are zero-filled through the src-size operand; a run's
// src-size is the sum of its enabled elements' bytes, exact for masks that
// are a prefix of each run (bounds checks along either dimension), or one
// select when the AxisInfo analysis proves the mask constant over each run.
// cp.async cannot fill with anything but zero, so a non-zero `other` is
// rejected. The copies of one op form one commit group.
//
// async_load_wait N is cp.async.wait_group N: afterwards this thread's
// copies of all but the last N groups are visible to this thread only.
// Other threads read them after a barrier: TXL kernels arrive on an
// mbarrier with `mbar_arrive {track_async_op}` (cp.async.mbarrier.arrive,
// which needs no wait_group at all) or sync the warpgroup on a named
// barrier.
//
//===----------------------------------------------------------------------===//

#include "txl/Analysis/AxisInfo.h"
#include "txl/Analysis/LoweringUtils.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLLOWERLOADS
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

/// TMA coordinates of piece `k`: innermost first, the inner one advanced by
/// k hardware boxes.
SmallVector<Value> tmaCoords(OpBuilder &b, Location loc, ValueRange indices, const TmaBox &box,
                             int64_t k) {
  SmallVector<Value> coords(llvm::reverse(indices));
  if (k > 0)
    coords[0] = LLVM::AddOp::create(b, loc, coords[0], i32Const(b, loc, k * box.box.back()));
  return coords;
}

void fenceAsyncShared(OpBuilder &b, Location loc) {
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
}

struct LowerTmaLoad : OpConversionPattern<TmaLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TmaLoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TmaBox box = getTmaBox(op.getDesc().getType(), op.getDst().getType());
    Value leader = isRoleLeader(rewriter, loc, getRoleWarps(op));
    // The destination is in shared::cluster space (the CTA's own window).
    for (int64_t k = 0; k < box.pieces; ++k) {
      Value dst = toClusterWindow(rewriter, loc,
                                  addBytes(rewriter, loc, adaptor.getDst(), k * box.pieceBytes));
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          rewriter, loc, dst, adaptor.getDesc(),
          tmaCoords(rewriter, loc, adaptor.getIndices(), box, k), adaptor.getMbar(), ValueRange{},
          Value(), Value(), NVVM::TMALoadMode::TILE, /*isCTAOnly=*/false, NVVM::CTAGroupKindAttr(),
          leader);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

NVVM::TMAReduxKind tmaReduxKind(TmaReduceKind kind) {
  switch (kind) {
  case TmaReduceKind::add:
    return NVVM::TMAReduxKind::ADD;
  case TmaReduceKind::min:
    return NVVM::TMAReduxKind::MIN;
  case TmaReduceKind::max:
    return NVVM::TMAReduxKind::MAX;
  }
  llvm_unreachable("unknown TMA reduce kind");
}

struct LowerTmaStore : OpConversionPattern<TmaStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TmaStoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TmaBox box = getTmaBox(op.getDesc().getType(), op.getSrc().getType());
    // Every thread of the warpgroup wrote part of the tile (smem_store): each
    // makes its writes visible to the async proxy, and the warpgroup syncs
    // before its leader issues the copy. Without the barrier the leader could
    // copy rows other warps have not written yet (seen on the H100 as wrong
    // rows of O whenever warps drift apart: several CTAs per SM, or under
    // compute-sanitizer).
    fenceAsyncShared(rewriter, loc);
    syncRole(rewriter, loc, getRoleWarps(op));
    Value leader = isRoleLeader(rewriter, loc, getRoleWarps(op));
    std::optional<TmaReduceKind> reduce = op.getReduce();
    for (int64_t k = 0; k < box.pieces; ++k) {
      Value src = addBytes(rewriter, loc, adaptor.getSrc(), k * box.pieceBytes);
      SmallVector<Value> coords = tmaCoords(rewriter, loc, adaptor.getIndices(), box, k);
      if (!reduce) {
        NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(rewriter, loc, adaptor.getDesc(), src,
                                                           coords, Value(),
                                                           NVVM::TMAStoreMode::TILE, leader);
        continue;
      }
      // The reduce op has no predicate operand: only the leader issues it.
      auto ifOp = scf::IfOp::create(rewriter, loc, leader, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      NVVM::CpAsyncBulkTensorReduceOp::create(rewriter, loc, adaptor.getDesc(), src,
                                              tmaReduxKind(*reduce), NVVM::TMAStoreMode::TILE,
                                              coords, Value());
    }
    NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerTmaStoreWait : OpConversionPattern<TmaStoreWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TmaStoreWaitOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVVM::CpAsyncBulkWaitGroupOp::create(rewriter, loc, op.getPendings(), rewriter.getUnitAttr());
    // Only the leader waited: the warpgroup syncs so no thread overwrites
    // the tile before the copy has read it.
    syncRole(rewriter, loc, getRoleWarps(op));
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerFenceProxyAsync : OpConversionPattern<FenceProxyAsyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(FenceProxyAsyncOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    fenceAsyncShared(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

/// True when `other` is a zero splat (what cp.async's zero fill gives).
bool isZeroSplat(Value other) {
  if (auto splat = other.getDefiningOp<SplatOp>())
    other = splat.getSrc();
  Attribute attr;
  if (!matchPattern(other, m_Constant(&attr)))
    return false;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (!dense.isSplat())
      return false;
    attr = dense.getSplatValue<Attribute>();
  }
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValue().isPosZero();
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return i.getValue().isZero();
  return false;
}

/// Per async_load with a mask tile: the length of the runs of equal mask
/// values along each dimension (AxisInfo constancy), computed before the
/// conversion starts rewriting the IR the analysis reads.
using MaskConstancy = DenseMap<Operation *, SmallVector<int64_t>>;

struct LowerAsyncLoad : OpConversionPattern<AsyncLoadOp> {
  LowerAsyncLoad(const TypeConverter &converter, MLIRContext *ctx, const MaskConstancy &constancy)
      : OpConversionPattern<AsyncLoadOp>(converter, ctx), maskConstancy(constancy) {}
  const MaskConstancy &maskConstancy;

  LogicalResult matchAndRewrite(AsyncLoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (isInsideSwizzleAtom(op.getDst().getType()))
      return refuseInsideSwizzleAtom(op, op.getDst().getType());
    if (op.getOther() && !isZeroSplat(op.getOther()))
      return op.emitOpError() << "async_load with a non-zero 'other' is not supported "
                                 "(cp.async can only zero-fill masked-off elements)";
    NVVM::LoadCacheModifierKind modifier;
    switch (op.getCache()) {
    case CacheModifier::none:
    case CacheModifier::cg:
      modifier = NVVM::LoadCacheModifierKind::CG;
      break;
    case CacheModifier::ca:
      modifier = NVVM::LoadCacheModifierKind::CA;
      break;
    default:
      return op.emitOpError() << "cache modifier '" << stringifyCacheModifier(op.getCache())
                              << "' is not supported by cp.async (only ca and cg)";
    }
    auto ptrs = op.getPtrs().getType();
    SmemType view = op.getDst().getType();
    std::string why;
    auto layout = LinearLayout::get(ptrs.getShape(), ptrs.getEncoding(), &why);
    if (failed(layout))
      return op.emitOpError() << "cannot distribute " << ptrs << ": " << why;
    Value mask = adaptor.getMask();
    auto maskTile = dyn_cast_or_null<RankedTensorType>(mask ? op.getMask().getType() : Type());
    if (maskTile) {
      auto maskLayout = LinearLayout::get(maskTile.getShape(), maskTile.getEncoding(), &why);
      if (failed(maskLayout) || !(*maskLayout == *layout))
        return op.emitOpError() << "the mask's layout must be the pointers' layout, got "
                                << maskTile;
    }
    unsigned bits = getElementBitWidth(view.getElementType());
    int64_t elemBytes = bits / 8;
    unsigned rank = ptrs.getRank();
    // Runs along the last dimension are contiguous in shared memory, along
    // the first in a transposed 2-D view (a K-major B tile of a K x N load).
    auto enc = dyn_cast_or_null<NVMMASharedAttr>(view.getEncoding());
    unsigned contig = enc && enc.getTransposed() && rank == 2 ? 0 : rank - 1;
    int64_t run = bits % 8 == 0 ? registerRun(*layout, contig) : 1;
    if (int64_t c = static_cast<int32_t>(op.getContiguity()); c > 0)
      run = std::min(run, c);
    run = std::min<int64_t>(run, 16 / std::max<int64_t>(elemBytes, 1));
    // A mask that is one value over each run (a bounds check on the other
    // dimension, or on this one against a bound the run length divides:
    // `offs_k < K - k * BLOCK_K` with K a multiple of 16) needs one select
    // per copy instead of one per element.
    bool uniformRuns = false;
    if (maskTile) {
      auto it = maskConstancy.find(op);
      uniformRuns = it != maskConstancy.end() && it->second[contig] % run == 0;
    }
    int64_t bytes = run * elemBytes;
    if (bits % 8 != 0 || bytes < 4)
      return op.emitOpError()
             << "cp.async copies 4, 8 or 16 bytes, but only " << run << " contiguous "
             << view.getElementType()
             << " element(s) per copy are known here; use a layout with more contiguous "
                "elements per thread along the view's contiguous dimension (and contiguity >= "
             << std::max<int64_t>(1, 4 / std::max<int64_t>(elemBytes, 1)) << ")";
    // .cg (L2 only) exists for 16-byte copies alone.
    if (bytes != 16)
      modifier = NVVM::LoadCacheModifierKind::CA;

    SharedAddresses dsts(rewriter, loc, adaptor.getDst(), view, *layout, run);
    // Inside a loop, the destinations of many copies stay one base register
    // plus immediates ([%r+256]), as Triton's (SharedAddresses::pinBase):
    // LLVM's loop strength reduction may give each copy a loop-invariant
    // register of its own. From 16 copies a thread on: tutorial 03's 32 per
    // tile (4-byte copies) spilled at 3 buffers; with 2 to 8 copies (16-byte
    // copies of GEMM and attention tiles) its form measured within a few
    // registers of the pinned one, better in some kernels and worse in
    // others, so those are left to LLVM.
    if (layout->getNumRegs() / run >= 16 && op->getParentOfType<LoopLikeOpInterface>())
      dsts.pinBase(rewriter, loc);
    auto globalPtr = LLVM::LLVMPointerType::get(rewriter.getContext(), 1);
    Value zero, size;
    if (mask) {
      zero = i32Const(rewriter, loc, 0);
      size = i32Const(rewriter, loc, maskTile && !uniformRuns ? elemBytes : bytes);
    }
    for (int64_t r = 0; r < layout->getNumRegs(); r += run) {
      Value dst = dsts.get(rewriter, loc, r);
      Value src = LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getPtrs(), r);
      if (src.getType() != globalPtr)
        src = LLVM::AddrSpaceCastOp::create(rewriter, loc, globalPtr, src);
      Value srcSize;
      if (mask && !maskTile) {
        srcSize = LLVM::SelectOp::create(rewriter, loc, mask, size, zero);
      } else if (mask && uniformRuns) {
        Value m = LLVM::ExtractValueOp::create(rewriter, loc, mask, r);
        srcSize = LLVM::SelectOp::create(rewriter, loc, m, size, zero);
      } else if (mask) {
        for (int64_t i = 0; i < run; ++i) {
          Value m = LLVM::ExtractValueOp::create(rewriter, loc, mask, r + i);
          Value part = LLVM::SelectOp::create(rewriter, loc, m, size, zero);
          srcSize = srcSize ? Value(LLVM::AddOp::create(rewriter, loc, srcSize, part)) : part;
        }
      }
      NVVM::CpAsyncOp::create(rewriter, loc, dst, src, bytes, modifier, srcSize);
    }
    NVVM::CpAsyncCommitGroupOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerAsyncLoadWait : OpConversionPattern<AsyncLoadWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AsyncLoadWaitOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncWaitGroupOp::create(rewriter, op.getLoc(), op.getPendings());
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerTmaGather : OpConversionPattern<TmaGatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TmaGatherOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto rowsTile = op.getXOffsets().getType();
    int64_t numRows = rowsTile.getDimSize(0);
    std::string why;
    auto layout = LinearLayout::get(rowsTile.getShape(), rowsTile.getEncoding(), &why);
    if (failed(layout))
      return op.emitOpError() << "cannot distribute " << rowsTile << ": " << why;
    // Register of each row in the issuing thread; every thread holds the
    // same registers when no lane or warp basis moves the row.
    SmallVector<int64_t> regOfRow(numRows, -1);
    for (int64_t r = 0; r < layout->getNumRegs(); ++r) {
      int64_t row = layout->applyReg(r)[0];
      if (regOfRow[row] < 0)
        regOfRow[row] = r;
    }
    auto moves = [](ArrayRef<LinearLayout::Coord> bases) {
      return llvm::any_of(bases, [](const LinearLayout::Coord &b) { return b[0] != 0; });
    };
    if (llvm::is_contained(regOfRow, -1) || moves(layout->getLaneBases()) ||
        moves(layout->getWarpBases()))
      return op.emitOpError()
             << "tma_gather is issued by one thread, which needs every row offset: x_offsets "
                "must be replicated in each thread (a layout whose registers hold all "
             << numRows << " rows, e.g. sizePerThread = [" << numRows << "]), got " << rowsTile;

    TmaBox box = getTmaBox(op.getDesc().getType());
    Value leader = isRoleLeader(rewriter, loc, getRoleWarps(op));
    // One gather4 per 4 rows and hardware box: box k of a wide row is column
    // block k (numRows x pieceBytes) of the buffer; rows are pieceBytes apart.
    // The shared::cluster operand is the CTA's own 32-bit shared address.
    const char *ptx = "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4."
                      "mbarrier::complete_tx::bytes [$0], [$1, {$2, $3, $4, $5, $6}], [$7];";
    for (int64_t k = 0; k < box.pieces; ++k) {
      Value col = adaptor.getYOffset();
      if (k > 0)
        col = LLVM::AddOp::create(rewriter, loc, col, i32Const(rewriter, loc, k * box.box.back()));
      for (int64_t g = 0; g < numRows / 4; ++g) {
        Value dst =
            addBytes(rewriter, loc, adaptor.getDst(), (k * numRows + 4 * g) * box.pieceBytes);
        SmallVector<Value> args{dst, adaptor.getDesc(), col};
        for (int64_t i = 0; i < 4; ++i)
          args.push_back(LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getXOffsets(),
                                                      regOfRow[4 * g + i]));
        args.push_back(adaptor.getMbar());
        NVVM::InlinePtxOp::create(rewriter, loc, TypeRange{}, args, ValueRange{}, ptx, leader);
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// The PTX tensormap element-type code (PTX ISA, tensormap.replace .elemtype:
/// u8 0, u16 1, u32 2, s32 3, u64 4, s64 5, f16 6, f32 7, f32.ftz 8, f64 9,
/// bf16 10; other 8-bit types move as u8).
unsigned tensormapElemType(Type elt) {
  if (elt.isBF16())
    return 10;
  if (elt.isF16())
    return 6;
  if (elt.isF32())
    return 7;
  if (elt.isF64())
    return 9;
  switch (getElementBitWidth(elt)) {
  case 8:
    return 0;
  case 16:
    return 1;
  case 32:
    return elt.isUnsignedInteger() ? 2 : 3;
  default:
    return elt.isUnsignedInteger() ? 4 : 5;
  }
}

struct LowerMakeTensorDesc : OpConversionPattern<MakeTensorDescOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MakeTensorDescOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // The slot comes from txl-global-scratch (first in txlc's pipeline); a
    // module run through this pass alone may not have one.
    if (!adaptor.getScratch())
      return op.emitOpError() << "has no global-scratch slot to build its descriptor in: run "
                                 "txl-global-scratch before txl-lower-loads (txlc's pipeline does)";
    TensorDescType desc = op.getType();
    TmaBox box = getTmaBox(desc);
    if (llvm::any_of(box.box, [](int64_t d) { return d > 256; }))
      return op.emitOpError() << "builds a descriptor whose inner dimension ("
                              << desc.getBlockShape().back()
                              << " elements) needs a swizzled layout to move as TMA boxes of at "
                                 "most 256 (its buffer gets none: use a tile of at most 256 "
                                 "columns)";
    int64_t rank = box.box.size();
    int64_t elemBytes = getElementBitWidth(desc.getElementType()) / 8;
    unsigned swizzleMode = box.swizzle == 128  ? 3
                           : box.swizzle == 64 ? 2
                           : box.swizzle == 32 ? 1
                                               : 0;
    auto i64 = rewriter.getI64Type();
    auto i32 = rewriter.getI32Type();

    // Operands: $0 leader predicate, $1 slot, $2 base, then sizes (b32,
    // innermost first), byte strides (b64, dimension rank-2 down to 0).
    SmallVector<Value> args{isRoleLeader(rewriter, loc, getRoleWarps(op)),
                            LLVM::PtrToIntOp::create(rewriter, loc, i64, adaptor.getScratch()),
                            LLVM::PtrToIntOp::create(rewriter, loc, i64, adaptor.getBase())};
    std::string constraints = "b,l,l";
    std::string ptx;
    llvm::raw_string_ostream os(ptx);
    os << "{\n.reg .b32 z;\nmov.b32 z, 0;\n";
    for (int i = 0; i < 8; ++i)
      os << "@$0 st.global.v4.b32 [$1+" << 16 * i << "], {z, z, z, z};\n";
    os << "@$0 tensormap.replace.tile.global_address.global.b1024.b64 [$1], $2;\n";
    os << "@$0 tensormap.replace.tile.rank.global.b1024.b32 [$1], " << rank - 1 << ";\n";
    for (int64_t i = 0; i < rank; ++i) {
      os << "@$0 tensormap.replace.tile.box_dim.global.b1024.b32 [$1], " << i << ", "
         << box.box[rank - 1 - i] << ";\n";
      Value size = LLVM::TruncOp::create(rewriter, loc, i32, adaptor.getShape()[rank - 1 - i]);
      os << "@$0 tensormap.replace.tile.global_dim.global.b1024.b32 [$1], " << i << ", $"
         << args.size() << ";\n";
      args.push_back(size);
      constraints += ",r";
      os << "@$0 tensormap.replace.tile.element_stride.global.b1024.b32 [$1], " << i << ", 1;\n";
    }
    for (int64_t i = 0; i + 1 < rank; ++i) {
      Value stride = LLVM::MulOp::create(rewriter, loc, adaptor.getStrides()[rank - 2 - i],
                                         LLVM::ConstantOp::create(rewriter, loc, i64, elemBytes));
      os << "@$0 tensormap.replace.tile.global_stride.global.b1024.b64 [$1], " << i << ", $"
         << args.size() << ";\n";
      args.push_back(stride);
      constraints += ",l";
    }
    os << "@$0 tensormap.replace.tile.elemtype.global.b1024.b32 [$1], "
       << tensormapElemType(desc.getElementType()) << ";\n";
    os << "@$0 tensormap.replace.tile.interleave_layout.global.b1024.b32 [$1], 0;\n";
    os << "@$0 tensormap.replace.tile.swizzle_mode.global.b1024.b32 [$1], " << swizzleMode << ";\n";
    // fill_mode 1: out-of-bounds elements read as NaN (OOB_NAN_REQUEST_ZERO_FMA).
    os << "@$0 tensormap.replace.tile.fill_mode.global.b1024.b32 [$1], "
       << (op.getNanFill() ? 1 : 0) << ";\n";
    os << "@$0 fence.proxy.tensormap::generic.release.gpu;\n";
    os << "@$0 fence.proxy.tensormap::generic.acquire.gpu [$1], 128;\n}";
    constraints += ",~{memory}";
    createInlinePtx(rewriter, loc, Type(), args, ptx, constraints);
    // TMA takes the descriptor's generic address.
    Value generic = LLVM::AddrSpaceCastOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext()), adaptor.getScratch());
    rewriter.replaceOp(op, generic);
    return success();
  }
};

struct LowerLoadsPass : txl::impl::TXLLowerLoadsBase<LowerLoadsPass> {
  void runOnOperation() override {
    TXLTypeConverter converter(&getContext());
    ConversionTarget target(getContext());
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addIllegalOp<TmaLoadOp, TmaStoreOp, TmaStoreWaitOp, FenceProxyAsyncOp, AsyncLoadOp,
                        AsyncLoadWaitOp, TmaGatherOp, MakeTensorDescOp>();
    MaskConstancy maskConstancy;
    AxisAnalysis axes;
    getOperation().walk([&](AsyncLoadOp op) {
      if (op.getMask() && isa<RankedTensorType>(op.getMask().getType()))
        maskConstancy[op] = axes.get(op.getMask()).constancy;
    });
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerTmaLoad, LowerTmaStore, LowerTmaStoreWait, LowerFenceProxyAsync,
                 LowerAsyncLoadWait, LowerTmaGather, LowerMakeTensorDesc>(converter, &getContext());
    patterns.add<LowerAsyncLoad>(converter, &getContext(), maskConstancy);
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
