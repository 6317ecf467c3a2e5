//===- LowerSmemLoadStores.cpp - tiles <-> smem -----------------------------===//
//
// smem_load / smem_store move a register tile between the thread's registers
// and a shared-memory view, in whatever layout the tile has: for each
// register the layout gives the element's coordinates (LinearLayout), the
// view's encoding gives its byte address:
//   - no swizzle: row-major (column-major when `transposed`);
//   - NVMMA swizzle S: the tile is stored as column blocks of S bytes x rows
//     (as TMA writes it); inside the 1024-byte-aligned pattern the 16-byte
//     chunk index is XOR-ed with the row within the 8-row group:
//       addr ^= ((addr >> 7) & (S/16 - 1)) << 4.
//     A transposed (MN-major) view is the same storage with its two
//     dimensions swapped.
// A run of registers holding consecutive elements along the view's
// contiguous dimension (up to 16 bytes) is one vector ld/st.shared (a 16-byte
// chunk stays whole under the swizzle); everything else is one access per
// element; mma.sync operands (16-bit) read from a whole NVMMA-encoded view
// use ldmatrix (.trans when the view's contiguous dimension is not K).
// Before either, a tile whose layout and view decompose into 8 x 8 matrices
// of b16 (16-byte rows; a 32-bit element is two b16) moves with ldmatrix /
// stmatrix (.x4, .x2; .trans for 16-bit elements), as Triton does: four
// words per lane per instruction instead of one ld/st.shared each
// (planMatrixAccess).
// A `ctaId` reads or writes that CTA's copy of the view (distributed shared
// memory: mapa, then ld/st.shared::cluster). frag_smem_load/store are the
// predicated and partial forms; a frag_smem_store with an mbarrier is
// st.async, each element written once and counted on that CTA's barrier; tmem_load/store
// (Blackwell) move tiles to and from tensor memory with tcgen05.ld/st.
//
//===----------------------------------------------------------------------===//

#include "txl/Analysis/LoweringUtils.h"
#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLLOWERSMEMLOADSTORES
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

FailureOr<LinearLayout> tileLayout(Operation *op, RankedTensorType tile) {
  std::string why;
  auto layout = LinearLayout::get(tile.getShape(), tile.getEncoding(), &why);
  if (failed(layout))
    return op->emitOpError() << "cannot distribute " << tile << ": " << why;
  return layout;
}

/// The tile's dimensions that address `view`: all, or, for a 1-D view under
/// a 2-D tile (frag_smem_*), the one not `slicedDim` (-1: the one of the
/// view's size, dimension 0 when both are).
SmallVector<unsigned> viewDims(RankedTensorType tile, SmemType view, int32_t slicedDim = -1) {
  if (tile.getShape() == view.getShape() || view.getRank() != 1)
    return llvm::to_vector(llvm::seq<unsigned>(0, tile.getRank()));
  if (slicedDim != -1)
    return {unsigned(1 - slicedDim)};
  return {tile.getDimSize(0) == view.getDimSize(0) ? 0u : 1u};
}

/// The shared address of register `r` of `tile` in `view`: through
/// SharedAddresses, or, for a 2-D tile read from or written to a 1-D view,
/// from the coordinate along the view's dimension.
Value address(OpBuilder &b, Location loc, SharedAddresses &addrs, RankedTensorType tile,
              SmemType view, int64_t r, int32_t slicedDim = -1) {
  if (tile.getShape() == view.getShape())
    return addrs.get(b, loc, r);
  SmallVector<Value> coords;
  for (unsigned d : viewDims(tile, view, slicedDim))
    coords.push_back(addrs.getCoords().get(b, loc, r, d));
  return getSharedElementAddress(b, loc, addrs.getBase(), view, coords);
}

/// Registers per access: the longest run of consecutive registers that hold
/// consecutive elements along the view's contiguous dimension (the last; the
/// first of a transposed view), at most 16 bytes. Such a run starts at a
/// multiple of its length (getContiguousRegs), so it stays inside one 16-byte
/// chunk, which the NVMMA swizzle moves whole. Views that may be cut at an
/// arbitrary offset (an smem_subslice, also through scf values) and 1-D views
/// under a 2-D tile stay scalar.
/// Whether `view` may be (a view of) an smem_subslice: followed through the
/// view ops and the values scf.if / scf.for / scf.while carry.
bool mayBeSubslice(Value view, DenseSet<Value> &seen) {
  if (!seen.insert(view).second)
    return false;
  if (auto arg = dyn_cast<BlockArgument>(view)) {
    Operation *parent = arg.getOwner()->getParentOp();
    if (auto forOp = dyn_cast<scf::ForOp>(parent)) {
      if (arg.getArgNumber() == 0)
        return false; // the induction variable
      unsigned i = arg.getArgNumber() - 1;
      return mayBeSubslice(forOp.getInitArgs()[i], seen) ||
             mayBeSubslice(forOp.getBody()->getTerminator()->getOperand(i), seen);
    }
    if (auto whileOp = dyn_cast<scf::WhileOp>(parent)) {
      unsigned i = arg.getArgNumber();
      if (arg.getOwner() == whileOp.getBeforeBody())
        return mayBeSubslice(whileOp.getInits()[i], seen) ||
               mayBeSubslice(whileOp.getYieldOp().getOperand(i), seen);
      return mayBeSubslice(whileOp.getConditionOp().getArgs()[i], seen);
    }
    return false; // a function argument: a whole buffer
  }
  Operation *def = view.getDefiningOp();
  if (isa<SmemSubsliceOp>(def))
    return true;
  if (isa<GetBufferOp, SmemIndexOp, SmemTransOp, SmemReshapeOp>(def))
    return mayBeSubslice(def->getOperand(0), seen);
  unsigned i = cast<OpResult>(view).getResultNumber();
  if (auto ifOp = dyn_cast<scf::IfOp>(def))
    return mayBeSubslice(ifOp.thenYield().getOperand(i), seen) ||
           (!ifOp.getElseRegion().empty() && mayBeSubslice(ifOp.elseYield().getOperand(i), seen));
  if (auto forOp = dyn_cast<scf::ForOp>(def))
    return mayBeSubslice(forOp.getInitArgs()[i], seen) ||
           mayBeSubslice(forOp.getBody()->getTerminator()->getOperand(i), seen);
  if (auto whileOp = dyn_cast<scf::WhileOp>(def))
    return mayBeSubslice(whileOp.getConditionOp().getArgs()[i], seen);
  return false; // an allocation (or its lowered address)
}

int64_t vectorWidth(const LinearLayout &layout, RankedTensorType tile, SmemType view,
                    Value viewValue) {
  if (tile.getShape() != view.getShape())
    return 1;
  DenseSet<Value> seen;
  if (mayBeSubslice(viewValue, seen))
    return 1;
  int64_t bits = getElementBitWidth(view.getElementType());
  if (bits < 8 || bits != getElementBitWidth(tile.getElementType()))
    return 1;
  auto enc = dyn_cast_or_null<NVMMASharedAttr>(view.getEncoding());
  unsigned dim = enc && enc.getTransposed() && tile.getRank() == 2 ? 0 : tile.getRank() - 1;
  return std::max<int64_t>(1, std::min<int64_t>(layout.getContiguousRegs(dim), 128 / bits));
}

/// One ld.shared per register of `tile` from `view` at `base` (a vector
/// per run, see vectorWidth); where `pred` is false the register takes
/// `other` (reading a view in bounds is always safe, so the predicate only
/// selects).
FailureOr<Value> loadTile(ConversionPatternRewriter &rewriter, Location loc, Operation *op,
                          const TypeConverter &converter, RankedTensorType tile, SmemType view,
                          Value viewValue, Value base, Value pred = {}, Value other = {}) {
  auto layout = tileLayout(op, tile);
  Type structType = converter.convertType(tile);
  if (failed(layout) || !structType)
    return failure();
  Type elt = converter.convertType(tile.getElementType());
  int64_t vec = vectorWidth(*layout, tile, view, viewValue);
  auto vecType = VectorType::get({vec}, elt);
  unsigned align = vec * getElementBitWidth(tile.getElementType()) / 8;
  SharedAddresses addrs(rewriter, loc, base, view, *layout, vec, /*pinned=*/true);
  Value result = LLVM::UndefOp::create(rewriter, loc, structType);
  for (int64_t r = 0; r < layout->getNumRegs(); r += vec) {
    Value addr = address(rewriter, loc, addrs, tile, view, r);
    Value loaded = vec == 1 ? Value(LLVM::LoadOp::create(rewriter, loc, elt, addr))
                            : Value(LLVM::LoadOp::create(rewriter, loc, vecType, addr, align));
    for (int64_t i = 0; i < vec; ++i) {
      Value v = vec == 1 ? loaded
                         : Value(LLVM::ExtractElementOp::create(rewriter, loc, loaded,
                                                                i32Const(rewriter, loc, i)));
      if (pred && other)
        v = LLVM::SelectOp::create(rewriter, loc, pred, v,
                                   LLVM::ExtractValueOp::create(rewriter, loc, other, r + i));
      result = LLVM::InsertValueOp::create(rewriter, loc, result, v, r + i);
    }
  }
  return result;
}

/// An mma.sync operand (16-bit #txl.dot_operand of a #txl.nvmma version 2)
/// read from a whole NVMMA-encoded view with ldmatrix: one instruction moves
/// up to four 8 x 8 matrices; each lane gives the address of one 16-byte row
/// (lanes 8j..8j+7 the rows of matrix j) and receives, per matrix, the pair
/// of elements its mma.sync fragment holds there:
///   A (M x K): per 16-row block and K step, the matrices (rows 0-7 | 8-15) x
///              (k 0-7 | 8-15), in fragment order a0a1, a2a3, a4a5, a6a7;
///   B (K x N): per 8-column block, its K chunks of 8, four at a time.
/// A view whose contiguous dimension is K (the pairs' dimension) is read as
/// is, the other with .trans. The registers each matrix fills are found by
/// their coordinates in the tile's layout, as txl-wgmma finds them. Returns
/// null (and builds nothing) when the tile or the view does not fit; then
/// the element-wise path reads it.
Value loadMmaSyncOperand(ConversionPatternRewriter &rewriter, Location loc,
                         const TypeConverter &converter, RankedTensorType tile, SmemType view,
                         Value viewValue, Value base) {
  auto operand = dyn_cast_or_null<DotOperandAttr>(tile.getEncoding());
  auto mma = operand ? dyn_cast<NVMMAAttr>(operand.getParent()) : NVMMAAttr();
  auto enc = dyn_cast_or_null<NVMMASharedAttr>(view.getEncoding());
  if (!mma || mma.getVersion() != 2 || operand.getKWidth() != 2 || !enc || tile.getRank() != 2 ||
      tile.getShape() != view.getShape() || getElementBitWidth(tile.getElementType()) != 16 ||
      getElementBitWidth(view.getElementType()) != 16)
    return {};
  DenseSet<Value> seen;
  if (mayBeSubslice(viewValue, seen))
    return {};
  auto layout = LinearLayout::get(tile.getShape(), tile.getEncoding());
  Type structType = converter.convertType(tile);
  if (failed(layout) || !structType)
    return {};
  bool isA = operand.getOpIdx() == 0;
  unsigned pairDim = isA ? 1 : 0; // K
  unsigned otherDim = 1 - pairDim;
  unsigned contig = enc.getTransposed() ? 0 : 1;
  bool trans = contig != pairDim;
  int64_t wm = mma.getWarpsPerCTA()[0], wn = mma.getWarpsPerCTA()[1];
  int64_t m = tile.getDimSize(0), n = tile.getDimSize(1);
  // Warps move the operand along the non-pair dimension only (A's warps
  // along N, B's along M hold copies): their offset is added to the rows a
  // lane addresses.
  for (const LinearLayout::Coord &basis : layout->getWarpBases())
    if (basis[pairDim] != 0)
      return {};
  // The matrices, by their origin (relative to lane 0 of warp 0), in
  // instruction groups; and the two registers each fills.
  struct Matrix {
    int64_t origin[2];
    int64_t regs[2];
  };
  SmallVector<SmallVector<Matrix, 4>> groups;
  DenseSet<int64_t> covered;
  auto matrixAt = [&](int64_t row, int64_t col) -> std::optional<Matrix> {
    int64_t next[2] = {row, col};
    next[pairDim] += 1;
    std::optional<int64_t> a = layout->getRegAt({row, col}), b = layout->getRegAt(next);
    if (!a || !b)
      return std::nullopt;
    return Matrix{{row, col}, {*a, *b}};
  };
  if (isA) {
    for (int64_t row = 0; row < m; row += 16 * wm)
      for (int64_t k0 = 0; k0 < n; k0 += 16) {
        SmallVector<Matrix, 4> group;
        for (int64_t j = 0; j < 4; ++j)
          if (auto mat = matrixAt(row + 8 * (j % 2), k0 + 8 * (j / 2)))
            group.push_back(*mat);
        if (group.size() != 4)
          return {};
        groups.push_back(group);
      }
  } else {
    // This thread's 8-column blocks lie 8 * wn apart (the warps' blocks in
    // between); one block when the warps cover N (copies past it).
    for (int64_t col = 0; col < n; col += 8 * wn) {
      for (int64_t k0 = 0; k0 < m; k0 += 32) {
        SmallVector<Matrix, 4> group;
        for (int64_t j = 0; j < 4 && k0 + 8 * j < m; ++j)
          if (auto mat = matrixAt(k0 + 8 * j, col))
            group.push_back(*mat);
        if (int64_t(group.size()) != std::min<int64_t>(4, (m - k0) / 8))
          return {};
        groups.push_back(group);
      }
    }
  }
  for (auto &group : groups)
    for (Matrix &mat : group)
      covered.insert(mat.regs, mat.regs + 2);
  if (int64_t(covered.size()) != layout->getNumRegs())
    return {};

  // This warp's offset along the non-pair dimension: the warp bits' part of
  // the coordinate (each basis a distinct power of two or 0, so the XOR is
  // their sum, and adding it to the matrix origin is exact).
  Value tid = getThreadId(rewriter, loc);
  Value lane = LLVM::URemOp::create(rewriter, loc, tid, i32Const(rewriter, loc, 32));
  Value warpOffset =
      ThreadCoords::ofBits(rewriter, loc, layout->getWarpBases(),
                           ThreadCoords::warpIndex(rewriter, loc, tid, *layout), otherDim);
  Value rowInMatrix = LLVM::URemOp::create(rewriter, loc, lane, i32Const(rewriter, loc, 8));
  Value matrixIdx = LLVM::UDivOp::create(rewriter, loc, lane, i32Const(rewriter, loc, 8));
  Type elt = converter.convertType(tile.getElementType());
  auto pairType = VectorType::get({2}, elt);
  auto i32 = rewriter.getI32Type();
  Value result = LLVM::UndefOp::create(rewriter, loc, structType);
  for (auto &group : groups) {
    int64_t num = group.size();
    // Lane l gives row l % 8 of matrix (l / 8) % num: the matrix's origin,
    // that row along the view's stored rows (K when .trans), this warp's
    // offset along the non-pair dimension.
    Value j = LLVM::URemOp::create(rewriter, loc, matrixIdx, i32Const(rewriter, loc, num));
    Value coord[2];
    for (unsigned d = 0; d < 2; ++d) {
      // origin[d] of matrix j: the group's origins are affine in j's bits
      // (A: +8 rows for bit 0, +8 k for bit 1; B: +8 k per matrix).
      Value origin = i32Const(rewriter, loc, group[0].origin[d]);
      for (int64_t bit = 1; bit < num; bit <<= 1) {
        int64_t step = group[bit].origin[d] - group[0].origin[d];
        if (!step)
          continue;
        Value set = LLVM::AndOp::create(rewriter, loc, j, i32Const(rewriter, loc, bit));
        Value isSet = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ne, set,
                                           i32Const(rewriter, loc, 0));
        origin = LLVM::AddOp::create(rewriter, loc, origin,
                                     LLVM::SelectOp::create(rewriter, loc, isSet,
                                                            i32Const(rewriter, loc, step),
                                                            i32Const(rewriter, loc, 0)));
      }
      if (d == otherDim)
        origin = LLVM::AddOp::create(rewriter, loc, origin, warpOffset);
      if (d == (trans ? pairDim : otherDim))
        origin = LLVM::AddOp::create(rewriter, loc, origin, rowInMatrix);
      coord[d] = origin;
    }
    Value addr = getSharedElementAddress(rewriter, loc, base, view, {coord[0], coord[1]});
    Type resType = num == 1 ? Type(i32)
                            : Type(LLVM::LLVMStructType::getLiteral(rewriter.getContext(),
                                                                    SmallVector<Type>(num, i32)));
    Value loaded = NVVM::LdMatrixOp::create(
        rewriter, loc, resType, addr, num, trans ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        NVVM::LdStMatrixShapeAttr::get(rewriter.getContext(), 8, 8), NVVM::LdStMatrixEltType::B16);
    for (auto [i, mat] : llvm::enumerate(group)) {
      Value word =
          num == 1 ? loaded : Value(LLVM::ExtractValueOp::create(rewriter, loc, loaded, i));
      Value pair = LLVM::BitcastOp::create(rewriter, loc, pairType, word);
      for (int64_t e = 0; e < 2; ++e)
        result = LLVM::InsertValueOp::create(
            rewriter, loc, result,
            LLVM::ExtractElementOp::create(rewriter, loc, pair, i32Const(rewriter, loc, e)),
            mat.regs[e]);
    }
  }
  return result;
}

//===----------------------------------------------------------------------===//
// ldmatrix / stmatrix: 8 x 8 matrices of 16-bit elements
//===----------------------------------------------------------------------===//

/// How a tile moves with ldmatrix / stmatrix (.x2 / .x4, b16). One
/// instruction moves `num` 8 x 8 matrices of b16 whose rows are 16
/// contiguous bytes of shared memory; lane L gives the address of row L % 8
/// of matrix L / 8, and each lane holds one 32-bit word per matrix:
///   - as is:  lane l holds bytes 4 * (l % 4) .. +3 of row l / 4;
///   - .trans: lane l holds the b16 at bytes 2 * (l / 4) of rows
///             2 * (l % 4) (low half) and 2 * (l % 4) + 1 (high half).
/// A word is one register of a 32-bit tile (as is only: .trans splits
/// words), or the registers r and r | pairBit of a 16-bit tile. So a tile
/// fits when, in the tile's layout composed with the view's byte offsets
/// (its swizzle included), lane bits 0-1 move 4 and 8 bytes (as is) or lane
/// bits 2-4 move 2, 4 and 8 bytes (.trans), the pair bit moves 2 bytes (as
/// is) or a whole row, and every other basis moves a multiple of 16 bytes,
/// which is Triton's condition (its LinearLayout divided by the ldmatrix
/// tile). Then the rows are a layout of their own (`rows`): the lane bits
/// that do not pick a word's bytes, the register bits that pick the matrix
/// (lane bits 3-4 of the addressing lane) and the warps; its registers are
/// the instructions.
struct MatrixAccess {
  bool trans = false;
  int64_t num = 0;                  // matrices per instruction: 2 or 4
  int64_t pairBit = -1;             // 16-bit tiles: the register bit of a word's second half
  SmallVector<unsigned> matrixBits; // register bits choosing the matrix (log2 num)
  SmallVector<unsigned> instrBits;  // the others: one instruction per combination
  std::optional<LinearLayout> rows; // (instruction, addressing lane, warp) -> row start

  /// Tile register of instruction `s`, matrix `k`, half `h`.
  int64_t reg(int64_t s, int64_t k, int64_t h) const {
    int64_t r = h && pairBit >= 0 ? int64_t(1) << pairBit : 0;
    for (auto [i, bit] : llvm::enumerate(matrixBits))
      if ((k >> i) & 1)
        r |= int64_t(1) << bit;
    for (auto [i, bit] : llvm::enumerate(instrBits))
      if ((s >> i) & 1)
        r |= int64_t(1) << bit;
    return r;
  }
  int64_t numInstrs() const { return int64_t(1) << instrBits.size(); }
};

/// The plan for moving `tile` (in `layout`) to or from `view` with
/// ldmatrix / stmatrix, or nullopt (then the per-register path does it).
/// Every (register, lane, warp) of the tile is checked against what the
/// instruction gives that lane, so a plan is only returned when each lane
/// gets exactly its elements.
std::optional<MatrixAccess> planMatrixAccess(const LinearLayout &layout, RankedTensorType tile,
                                             SmemType view, Value viewValue) {
  int64_t bits = getElementBitWidth(tile.getElementType());
  if ((bits != 16 && bits != 32) || bits != getElementBitWidth(view.getElementType()) ||
      !isa<IntegerType, FloatType>(tile.getElementType()) || tile.getShape() != view.getShape() ||
      layout.getLaneBases().size() != 5)
    return std::nullopt;
  // Row starts must be 16-byte aligned: the view's start is when it is a
  // whole buffer or a stage of one (buffers are 1024-byte aligned, stages of
  // a multiple of 16 bytes); a subslice may start anywhere.
  int64_t viewBytes = bits / 8;
  for (int64_t d : view.getShape())
    viewBytes *= d;
  DenseSet<Value> seen;
  if (viewBytes % 16 || mayBeSubslice(viewValue, seen))
    return std::nullopt;
  auto bytes = [&](const LinearLayout::Coord &c) { return getSharedElementOffset(view, c); };
  ArrayRef<LinearLayout::Coord> regs = layout.getRegBases(), lanes = layout.getLaneBases(),
                                warps = layout.getWarpBases();
  auto rowAligned = [&](ArrayRef<LinearLayout::Coord> bases) {
    return llvm::all_of(bases, [&](const LinearLayout::Coord &c) { return bytes(c) % 16 == 0; });
  };
  MatrixAccess plan;
  SmallVector<unsigned> spare; // register bits left for matrices and instructions
  SmallVector<LinearLayout::Coord> rowLanes;
  if (bytes(lanes[0]) == 4 && bytes(lanes[1]) == 8) {
    // As is: a word's 4 bytes come from lane bits 0-1; lane bits 2-4 pick
    // the row.
    for (unsigned b = 0; b < regs.size(); ++b) {
      if (bits == 16 && plan.pairBit < 0 && bytes(regs[b]) == 2)
        plan.pairBit = b;
      else
        spare.push_back(b);
    }
    if ((bits == 16 && plan.pairBit < 0) ||
        !rowAligned(ArrayRef<LinearLayout::Coord>(lanes).drop_front(2)))
      return std::nullopt;
    rowLanes.assign({lanes[2], lanes[3], lanes[4]});
  } else if (bits == 16 && bytes(lanes[2]) == 2 && bytes(lanes[3]) == 4 && bytes(lanes[4]) == 8) {
    // .trans: lane bits 2-4 pick the b16 in the row; the pair bit and lane
    // bits 0-1 the row. The pair bit is the register bit (a whole row away)
    // whose 8 rows fall in the most distinct 16-byte bank groups (fewest
    // conflicts).
    plan.trans = true;
    if (!rowAligned(ArrayRef<LinearLayout::Coord>(lanes).take_front(2)))
      return std::nullopt;
    int64_t bestGroups = -1;
    for (unsigned b = 0; b < regs.size(); ++b) {
      if (bytes(regs[b]) % 16)
        continue;
      DenseSet<int64_t> groups;
      for (int64_t i = 0; i < 8; ++i)
        groups.insert(((i & 1 ? bytes(regs[b]) : 0) ^ (i & 2 ? bytes(lanes[0]) : 0) ^
                       (i & 4 ? bytes(lanes[1]) : 0)) /
                      16 % 8);
      if (int64_t(groups.size()) > bestGroups) {
        bestGroups = groups.size();
        plan.pairBit = b;
      }
    }
    if (plan.pairBit < 0)
      return std::nullopt;
    for (unsigned b = 0; b < regs.size(); ++b)
      if (int64_t(b) != plan.pairBit)
        spare.push_back(b);
    rowLanes.assign({regs[plan.pairBit], lanes[0], lanes[1]});
  } else {
    return std::nullopt;
  }
  SmallVector<LinearLayout::Coord> spareRegs;
  for (unsigned b : spare)
    spareRegs.push_back(regs[b]);
  if (!rowAligned(spareRegs) || !rowAligned(warps) || spare.empty())
    return std::nullopt;
  // .x4 where the thread has 4 words, else .x2 (one word: the per-register
  // path moves it as well).
  unsigned matrixLog2 = std::min<unsigned>(2, spare.size());
  plan.num = int64_t(1) << matrixLog2;
  plan.matrixBits.assign(spare.begin(), spare.begin() + matrixLog2);
  plan.instrBits.assign(spare.begin() + matrixLog2, spare.end());
  SmallVector<LinearLayout::Coord> rowRegs;
  for (unsigned b : plan.instrBits)
    rowRegs.push_back(regs[b]);
  for (unsigned b : plan.matrixBits)
    rowLanes.push_back(regs[b]);
  plan.rows.emplace(SmallVector<int64_t>(tile.getShape()), rowRegs, rowLanes,
                    SmallVector<LinearLayout::Coord>(warps));

  // Every element, as the hardware moves it.
  for (int64_t w = 0; w < layout.getNumWarps(); ++w)
    for (int64_t s = 0; s < plan.numInstrs(); ++s) {
      for (int64_t lane = 0; lane < 8 * plan.num; ++lane)
        if (bytes(plan.rows->apply(s, lane, w)) % 16)
          return std::nullopt;
      for (int64_t k = 0; k < plan.num; ++k)
        for (int64_t h = 0; h < (bits == 16 ? 2 : 1); ++h)
          for (int64_t l = 0; l < 32; ++l) {
            int64_t want = bytes(layout.apply(plan.reg(s, k, h), l, w));
            int64_t got = plan.trans
                              ? bytes(plan.rows->apply(s, 8 * k + 2 * (l % 4) + h, w)) + 2 * (l / 4)
                              : bytes(plan.rows->apply(s, 8 * k + l / 4, w)) + 4 * (l % 4) + 2 * h;
            if (want != got)
              return std::nullopt;
          }
    }
  return plan;
}

/// The 32-bit words of instruction `s` (one per matrix) from the tile's
/// registers `value`, or (load) the registers from the words.
Value packWord(OpBuilder &b, Location loc, const MatrixAccess &plan, Value value, int64_t s,
               int64_t k, Type elt) {
  auto i32 = b.getI32Type();
  if (plan.pairBit < 0)
    return LLVM::BitcastOp::create(b, loc, i32,
                                   LLVM::ExtractValueOp::create(b, loc, value, plan.reg(s, k, 0)));
  Value pair = LLVM::UndefOp::create(b, loc, VectorType::get({2}, elt));
  for (int64_t h = 0; h < 2; ++h)
    pair = LLVM::InsertElementOp::create(
        b, loc, pair, LLVM::ExtractValueOp::create(b, loc, value, plan.reg(s, k, h)),
        i32Const(b, loc, h));
  return LLVM::BitcastOp::create(b, loc, i32, pair);
}

Value unpackWord(OpBuilder &b, Location loc, const MatrixAccess &plan, Value result, Value word,
                 int64_t s, int64_t k, Type elt) {
  if (plan.pairBit < 0)
    return LLVM::InsertValueOp::create(b, loc, result, LLVM::BitcastOp::create(b, loc, elt, word),
                                       plan.reg(s, k, 0));
  Value pair = LLVM::BitcastOp::create(b, loc, VectorType::get({2}, elt), word);
  for (int64_t h = 0; h < 2; ++h)
    result = LLVM::InsertValueOp::create(
        b, loc, result, LLVM::ExtractElementOp::create(b, loc, pair, i32Const(b, loc, h)),
        plan.reg(s, k, h));
  return result;
}

/// The row address each lane gives to instruction `s` of `plan`: register
/// 0's address plus a constant where SharedAddresses finds that form (no
/// swizzle, or instructions that keep the swizzle phase); else register 0's
/// byte offset XOR a constant. The view's byte offset is linear over GF(2) in
/// the coordinates (power-of-two dimensions; the swizzle XORs address
/// bits), so a swizzled epilogue tile costs one xor per instruction instead
/// of the swizzle arithmetic per address. Both forms are checked for every
/// thread; otherwise each address is computed from its coordinates.
class RowAddresses {
public:
  RowAddresses(OpBuilder &b, Location loc, Value base, SmemType view, const LinearLayout &rows,
               int64_t numInstrs)
      : addrs(b, loc, base, view, rows, 1, /*pinned=*/true), base(base) {
    auto offset = [&](int64_t s, int64_t lane, int64_t warp) {
      return getSharedElementOffset(view, rows.apply(s, lane, warp));
    };
    bool additive = true, linear = true;
    for (int64_t w = 0; w < rows.getNumWarps(); ++w)
      for (int64_t l = 0; l < rows.getNumLanes(); ++l)
        for (int64_t s = 0; s < numInstrs; ++s) {
          int64_t at = offset(s, l, w), at0 = offset(0, l, w), part = offset(s, 0, 0);
          additive &= at - at0 == part - offset(0, 0, 0);
          linear &= at == (at0 ^ part);
        }
    if (additive || !linear)
      return;
    for (int64_t s = 0; s < numInstrs; ++s)
      fixed.push_back(offset(s, 0, 0));
    SmallVector<Value> coords;
    for (unsigned d = 0; d < rows.getShape().size(); ++d)
      coords.push_back(addrs.getCoords().get(b, loc, 0, d));
    Value zero = LLVM::ZeroOp::create(b, loc, base.getType());
    first = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(),
                                     getSharedElementAddress(b, loc, zero, view, coords));
  }
  Value get(OpBuilder &b, Location loc, int64_t s) {
    if (!first)
      return addrs.get(b, loc, s);
    Value off =
        fixed[s] ? Value(LLVM::XOrOp::create(b, loc, first, i32Const(b, loc, fixed[s]))) : first;
    return addBytes(b, loc, base, off);
  }

private:
  SharedAddresses addrs;
  Value base;
  Value first;                // register 0's byte offset (the XOR form)
  SmallVector<int64_t> fixed; // per instruction: its offset's constant part
};

/// smem_load with ldmatrix when the tile fits (planMatrixAccess), else null
/// (nothing built).
Value loadTileMatrices(ConversionPatternRewriter &rewriter, Location loc,
                       const TypeConverter &converter, RankedTensorType tile, SmemType view,
                       Value viewValue, Value base) {
  auto layout = LinearLayout::get(tile.getShape(), tile.getEncoding());
  Type structType = converter.convertType(tile);
  if (failed(layout) || !structType)
    return {};
  std::optional<MatrixAccess> plan = planMatrixAccess(*layout, tile, view, viewValue);
  if (!plan)
    return {};
  Type elt = converter.convertType(tile.getElementType());
  auto i32 = rewriter.getI32Type();
  Type resType =
      LLVM::LLVMStructType::getLiteral(rewriter.getContext(), SmallVector<Type>(plan->num, i32));
  RowAddresses addrs(rewriter, loc, base, view, *plan->rows, plan->numInstrs());
  Value result = LLVM::UndefOp::create(rewriter, loc, structType);
  for (int64_t s = 0; s < plan->numInstrs(); ++s) {
    Value words = NVVM::LdMatrixOp::create(
        rewriter, loc, resType, addrs.get(rewriter, loc, s), plan->num,
        plan->trans ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        NVVM::LdStMatrixShapeAttr::get(rewriter.getContext(), 8, 8), NVVM::LdStMatrixEltType::B16);
    for (int64_t k = 0; k < plan->num; ++k)
      result = unpackWord(rewriter, loc, *plan, result,
                          LLVM::ExtractValueOp::create(rewriter, loc, words, k), s, k, elt);
  }
  return result;
}

/// True if `op`'s kernel sets its warpgroups' register budgets (setmaxnreg).
bool capsRegisters(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  if (!func)
    return false;
  return func
      .walk([](Operation *o) {
        return isa<RegAllocOp, RegDeallocOp>(o) ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

/// smem_store with stmatrix when the tile fits, else failure (nothing
/// built). Threads that hold copies of an element store the same value.
LogicalResult storeTileMatrices(ConversionPatternRewriter &rewriter, Location loc,
                                RankedTensorType tile, SmemType view, Value viewValue, Value base,
                                Value value) {
  auto layout = LinearLayout::get(tile.getShape(), tile.getEncoding());
  if (failed(layout))
    return failure();
  std::optional<MatrixAccess> plan = planMatrixAccess(*layout, tile, view, viewValue);
  if (!plan)
    return failure();
  Type elt = cast<LLVM::LLVMStructType>(value.getType()).getBody().front();
  RowAddresses addrs(rewriter, loc, base, view, *plan->rows, plan->numInstrs());
  for (int64_t s = 0; s < plan->numInstrs(); ++s) {
    SmallVector<Value> words;
    for (int64_t k = 0; k < plan->num; ++k)
      words.push_back(packWord(rewriter, loc, *plan, value, s, k, elt));
    NVVM::StMatrixOp::create(rewriter, loc, addrs.get(rewriter, loc, s), words,
                             plan->trans ? NVVM::MMALayout::col : NVVM::MMALayout::row,
                             NVVM::LdStMatrixShapeAttr::get(rewriter.getContext(), 8, 8),
                             NVVM::LdStMatrixEltType::B16);
  }
  return success();
}

/// One st.shared per register of `tile`. Threads holding copies of an
/// element (broadcast lanes or warps, or a 2-D tile into a 1-D row) all
/// store the same value, which is harmless.
LogicalResult storeTile(ConversionPatternRewriter &rewriter, Location loc, Operation *op,
                        RankedTensorType tile, SmemType view, Value viewValue, Value base,
                        Value value, int32_t slicedDim = -1) {
  auto layout = tileLayout(op, tile);
  if (failed(layout))
    return failure();
  int64_t vec = vectorWidth(*layout, tile, view, viewValue);
  unsigned align = vec * getElementBitWidth(tile.getElementType()) / 8;
  SharedAddresses addrs(rewriter, loc, base, view, *layout, vec, /*pinned=*/true);
  for (int64_t r = 0; r < layout->getNumRegs(); r += vec) {
    Value addr = address(rewriter, loc, addrs, tile, view, r, slicedDim);
    Value first = LLVM::ExtractValueOp::create(rewriter, loc, value, r);
    if (vec == 1) {
      LLVM::StoreOp::create(rewriter, loc, first, addr);
      continue;
    }
    Value v = LLVM::UndefOp::create(rewriter, loc, VectorType::get({vec}, first.getType()));
    for (int64_t i = 0; i < vec; ++i)
      v = LLVM::InsertElementOp::create(
          rewriter, loc, v,
          i ? Value(LLVM::ExtractValueOp::create(rewriter, loc, value, r + i)) : first,
          i32Const(rewriter, loc, i));
    LLVM::StoreOp::create(rewriter, loc, v, addr, align);
  }
  return success();
}

/// The view's base in CTA `cta` of the cluster (distributed shared memory):
/// `mapa` maps this CTA's address to the same offset in that CTA's window of
/// the shared::cluster space; loads and stores through it are
/// ld/st.shared::cluster. The element offsets (and the swizzle, which XORs
/// offsets within the view) are the same as in the CTA's own copy.
static Value remoteBase(ConversionPatternRewriter &rewriter, Location loc, Value base,
                        int32_t cta) {
  return mapToCta(rewriter, loc, base, i32Const(rewriter, loc, cta));
}

struct LowerSmemLoad : OpConversionPattern<SmemLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SmemLoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (isInsideSwizzleAtom(op.getSrc().getType()))
      return refuseInsideSwizzleAtom(op, op.getSrc().getType());
    if (int32_t cta = static_cast<int32_t>(op.getCtaId()); cta != -1) {
      // Another CTA's copy: element-wise / vector loads (ldmatrix reads the
      // CTA's own shared memory only).
      FailureOr<Value> tile = loadTile(rewriter, op.getLoc(), op, *getTypeConverter(), op.getType(),
                                       op.getSrc().getType(), op.getSrc(),
                                       remoteBase(rewriter, op.getLoc(), adaptor.getSrc(), cta));
      if (failed(tile))
        return failure();
      rewriter.replaceOp(op, *tile);
      return success();
    }
    if (Value tile = loadMmaSyncOperand(rewriter, op.getLoc(), *getTypeConverter(), op.getType(),
                                        op.getSrc().getType(), op.getSrc(), adaptor.getSrc())) {
      rewriter.replaceOp(op, tile);
      return success();
    }
    if (Value tile = loadTileMatrices(rewriter, op.getLoc(), *getTypeConverter(), op.getType(),
                                      op.getSrc().getType(), op.getSrc(), adaptor.getSrc())) {
      rewriter.replaceOp(op, tile);
      return success();
    }
    FailureOr<Value> tile = loadTile(rewriter, op.getLoc(), op, *getTypeConverter(), op.getType(),
                                     op.getSrc().getType(), op.getSrc(), adaptor.getSrc());
    if (failed(tile))
      return failure();
    rewriter.replaceOp(op, *tile);
    return success();
  }
};

struct LowerSmemStore : OpConversionPattern<SmemStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SmemStoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (isInsideSwizzleAtom(op.getDst().getType()))
      return refuseInsideSwizzleAtom(op, op.getDst().getType());
    Value base = adaptor.getDst();
    int32_t cta = static_cast<int32_t>(op.getCtaId());
    // Not in kernels that cap their warpgroups' registers (setmaxnreg: the
    // attention and MLA kernels): the stmatrix form's packed b16 words made
    // ptxas spill 12 bytes in 6 of the 12 mla_decode_wgmma variants
    // (test_mla_decode_wgmma_cpu), and its gain there is not measured on a
    // GPU yet. They keep the vector st.shared path.
    if (cta == -1 && !capsRegisters(op) &&
        succeeded(storeTileMatrices(rewriter, op.getLoc(), op.getValue().getType(),
                                    op.getDst().getType(), op.getDst(), base,
                                    adaptor.getValue()))) {
      rewriter.eraseOp(op);
      return success();
    }
    if (cta != -1)
      base = remoteBase(rewriter, op.getLoc(), base, cta);
    if (failed(storeTile(rewriter, op.getLoc(), op, op.getValue().getType(), op.getDst().getType(),
                         op.getDst(), base, adaptor.getValue())))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Fragments: predicated, partial shared-memory access
//===----------------------------------------------------------------------===//

namespace {

struct LowerFragSmemLoad : OpConversionPattern<FragSmemLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(FragSmemLoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (isInsideSwizzleAtom(op.getSrc().getType()))
      return refuseInsideSwizzleAtom(op, op.getSrc().getType());
    Value base = adaptor.getSrc();
    if (int32_t cta = static_cast<int32_t>(op.getCtaId()); cta != -1)
      base = remoteBase(rewriter, op.getLoc(), base, cta);
    FailureOr<Value> tile =
        loadTile(rewriter, op.getLoc(), op, *getTypeConverter(), op.getType(),
                 op.getSrc().getType(), op.getSrc(), base, adaptor.getPred(), adaptor.getOther());
    if (failed(tile))
      return failure();
    rewriter.replaceOp(op, *tile);
    return success();
  }
};

/// frag_smem_store with an mbarrier: one st.async per element into CTA
/// `cta`'s copy of the view (this CTA's when -1), each completing its bytes
/// on that CTA's copy of `mbar` (mbarrier::complete_tx), which the reader
/// waits on after an mbar_expect of the total. The count must come out
/// exact, so each element is stored by one thread and one register only
/// (LinearLayout::getCopies); for a 2-D tile into a 1-D view, the view's
/// dimension decides what is a copy. Upstream NVVM has no st.async: inline
/// PTX.
LogicalResult storeTileAsync(ConversionPatternRewriter &rewriter, Location loc, FragSmemStoreOp op,
                             Value dst, Value mbar, Value value, Value pred) {
  RankedTensorType tile = op.getValue().getType();
  SmemType view = op.getDst().getType();
  auto layout = tileLayout(op, tile);
  if (failed(layout))
    return failure();
  int64_t bits = getElementBitWidth(tile.getElementType());
  if (bits != 32 && bits != 64)
    return op.emitOpError() << "with an mbarrier is st.async, which stores 32- or 64-bit "
                               "elements; got "
                            << tile.getElementType();
  int32_t slicedDim = static_cast<int32_t>(op.getSlicedDim());
  LinearLayout::Copies copies = layout->getCopies(viewDims(tile, view, slicedDim));

  int32_t cta = static_cast<int32_t>(op.getCtaId());
  Value ctaIdx = cta == -1 ? Value(NVVM::ClusterId::create(rewriter, loc, rewriter.getI32Type()))
                           : i32Const(rewriter, loc, cta);
  Value remote = mapToCta(rewriter, loc, dst, ctaIdx);
  Value remoteBar = mapToCta(rewriter, loc, mbar, ctaIdx);
  auto i32 = rewriter.getI32Type();
  Value barAddr = LLVM::PtrToIntOp::create(rewriter, loc, i32, remoteBar);

  // Only the first holder of each element stores it.
  Value tid = getThreadId(rewriter, loc);
  auto isClear = [&](Value index, int64_t mask) -> Value {
    Value m = LLVM::AndOp::create(rewriter, loc, index, i32Const(rewriter, loc, mask));
    return LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, m,
                                i32Const(rewriter, loc, 0));
  };
  auto both = [&](Value a, Value b) {
    return a ? Value(LLVM::AndOp::create(rewriter, loc, a, b)) : b;
  };
  if (copies.lanes)
    pred = both(pred, isClear(LLVM::URemOp::create(rewriter, loc, tid, i32Const(rewriter, loc, 32)),
                              copies.lanes));
  if (copies.warps)
    pred = both(pred, isClear(ThreadCoords::warpIndex(rewriter, loc, tid, *layout), copies.warps));
  OpBuilder::InsertionGuard guard(rewriter);
  if (pred) {
    auto ifOp = scf::IfOp::create(rewriter, loc, pred, false);
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
  }
  SharedAddresses addrs(rewriter, loc, remote, view, *layout, 1, /*pinned=*/true);
  Type word = rewriter.getIntegerType(bits);
  std::string ptx = llvm::formatv("st.async.shared::cluster.mbarrier::complete_tx::bytes.b{0} "
                                  "[$0], $1, [$2];",
                                  bits);
  std::string constraints = bits == 32 ? "r,r,r" : "r,l,r";
  for (int64_t r = 0; r < layout->getNumRegs(); ++r) {
    if (uint64_t(r) & copies.regs)
      continue;
    Value addr = LLVM::PtrToIntOp::create(rewriter, loc, i32,
                                          address(rewriter, loc, addrs, tile, view, r, slicedDim));
    Value v = LLVM::ExtractValueOp::create(rewriter, loc, value, r);
    v = LLVM::BitcastOp::create(rewriter, loc, word, v);
    createInlinePtx(rewriter, loc, Type(), {addr, v, barAddr}, ptx, constraints);
  }
  return success();
}

struct LowerFragSmemStore : OpConversionPattern<FragSmemStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(FragSmemStoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (isInsideSwizzleAtom(op.getDst().getType()))
      return refuseInsideSwizzleAtom(op, op.getDst().getType());
    if (adaptor.getMbar()) {
      if (failed(storeTileAsync(rewriter, op.getLoc(), op, adaptor.getDst(), adaptor.getMbar(),
                                adaptor.getValue(), adaptor.getPred())))
        return failure();
      rewriter.eraseOp(op);
      return success();
    }
    Value base = adaptor.getDst();
    if (int32_t cta = static_cast<int32_t>(op.getCtaId()); cta != -1)
      base = remoteBase(rewriter, op.getLoc(), base, cta);
    OpBuilder::InsertionGuard guard(rewriter);
    if (Value pred = adaptor.getPred()) {
      auto ifOp = scf::IfOp::create(rewriter, op.getLoc(), pred, false);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
    }
    if (failed(storeTile(rewriter, op.getLoc(), op, op.getValue().getType(), op.getDst().getType(),
                         op.getDst(), base, adaptor.getValue(),
                         static_cast<int32_t>(op.getSlicedDim()))))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Slots: TXL's frag_smem_store / frag_smem_load of per-thread values
//===----------------------------------------------------------------------===//

/// Thread (lane, warp) of a slot op (warp = tid / 32 over the CTA): its
/// element's address in `view` at `base` (the XOR of the bases of its set
/// lane and warp bits, row-major, split into the view's power-of-two
/// dimensions), whether the bases cover it (lane < 2^len(laneBases), warp <
/// 2^len(warpBases)), and whether it is the first of the threads the bases
/// map to the same element (its bits with a 0 basis clear).
struct SlotThread {
  Value address, covered, first;
};

SlotThread slotThread(OpBuilder &b, Location loc, Value base, SmemType view,
                      ArrayRef<int64_t> laneBases, ArrayRef<int64_t> warpBases) {
  Value tid = getThreadId(b, loc);
  Value lane = LLVM::AndOp::create(b, loc, tid, i32Const(b, loc, 31));
  Value warp = LLVM::LShrOp::create(b, loc, tid, i32Const(b, loc, 5));
  Value index = i32Const(b, loc, 0);
  Value covered, first;
  auto both = [&](Value a, Value c) { return a ? Value(LLVM::AndOp::create(b, loc, a, c)) : c; };
  for (auto [id, bases] : {std::pair<Value, ArrayRef<int64_t>>{lane, laneBases},
                           std::pair<Value, ArrayRef<int64_t>>{warp, warpBases}}) {
    int64_t zeros = 0;
    for (auto [k, basis] : llvm::enumerate(bases)) {
      if (basis == 0) {
        zeros |= int64_t(1) << k;
        continue;
      }
      Value bit = LLVM::LShrOp::create(b, loc, id, i32Const(b, loc, k));
      bit = LLVM::AndOp::create(b, loc, bit, i32Const(b, loc, 1));
      index = LLVM::XOrOp::create(b, loc, index,
                                  LLVM::MulOp::create(b, loc, bit, i32Const(b, loc, basis)));
    }
    if (bases.size() < 5 || id == warp)
      covered = both(covered, LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, id,
                                                   i32Const(b, loc, int64_t(1) << bases.size())));
    if (zeros) {
      Value m = LLVM::AndOp::create(b, loc, id, i32Const(b, loc, zeros));
      first = both(first,
                   LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, m, i32Const(b, loc, 0)));
    }
  }
  // Row-major element index -> coordinates (every dimension a power of two).
  SmallVector<Value> coords(view.getRank());
  Value rest = index;
  for (int64_t d = view.getRank() - 1; d >= 0; --d) {
    int64_t size = view.getDimSize(d);
    coords[d] = LLVM::AndOp::create(b, loc, rest, i32Const(b, loc, size - 1));
    rest = LLVM::LShrOp::create(b, loc, rest, i32Const(b, loc, llvm::Log2_64(size)));
  }
  return {getSharedElementAddress(b, loc, base, view, coords), covered, first};
}

/// What a slot store or load can address: a view outside any swizzle atom
/// whose dimensions are powers of two (slotThread splits the element index
/// into coordinates with masks and shifts).
static LogicalResult checkSlotView(Operation *op, SmemType view) {
  if (isInsideSwizzleAtom(view))
    return refuseInsideSwizzleAtom(op, view);
  for (int64_t d : view.getShape())
    if (!llvm::isPowerOf2_64(d))
      return op->emitOpError() << "needs a view whose dimensions are powers of two, got " << view;
  return success();
}

struct LowerSlotStore : OpConversionPattern<SlotStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SlotStoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmemType view = op.getDst().getType();
    if (failed(checkSlotView(op, view)))
      return failure();
    int32_t cta = static_cast<int32_t>(op.getCtaId());
    Value base = adaptor.getDst();
    Value barAddr;
    if (Value mbar = adaptor.getMbar()) {
      Value ctaIdx = cta == -1
                         ? Value(NVVM::ClusterId::create(rewriter, loc, rewriter.getI32Type()))
                         : i32Const(rewriter, loc, cta);
      base = mapToCta(rewriter, loc, base, ctaIdx);
      barAddr = LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                         mapToCta(rewriter, loc, mbar, ctaIdx));
    } else if (cta != -1) {
      base = remoteBase(rewriter, loc, base, cta);
    }
    SlotThread t = slotThread(rewriter, loc, base, view, op.getLaneBases(), op.getWarpBases());
    Value pred = adaptor.getPred();
    for (Value p : {t.covered, t.first})
      if (p)
        pred = pred ? Value(LLVM::AndOp::create(rewriter, loc, pred, p)) : p;
    OpBuilder::InsertionGuard guard(rewriter);
    if (pred) {
      auto ifOp = scf::IfOp::create(rewriter, loc, pred, false);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
    }
    Value value = adaptor.getValue();
    if (barAddr) {
      unsigned bits = getElementBitWidth(op.getValue().getType());
      Value addr = LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI32Type(), t.address);
      Value v = LLVM::BitcastOp::create(rewriter, loc, rewriter.getIntegerType(bits), value);
      std::string ptx = llvm::formatv("st.async.shared::cluster.mbarrier::complete_tx::bytes.b{0} "
                                      "[$0], $1, [$2];",
                                      bits);
      createInlinePtx(rewriter, loc, Type(), {addr, v, barAddr}, ptx,
                      bits == 32 ? "r,r,r" : "r,l,r");
    } else {
      LLVM::StoreOp::create(rewriter, loc, value, t.address);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerSlotLoad : OpConversionPattern<SlotLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SlotLoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmemType view = op.getSrc().getType();
    if (failed(checkSlotView(op, view)))
      return failure();
    Value base = adaptor.getSrc();
    if (int32_t cta = static_cast<int32_t>(op.getCtaId()); cta != -1)
      base = remoteBase(rewriter, loc, base, cta);
    SlotThread t = slotThread(rewriter, loc, base, view, op.getLaneBases(), op.getWarpBases());
    Type elt = getTypeConverter()->convertType(op.getType());
    if (!elt)
      return rewriter.notifyMatchFailure(op, "result type does not convert");
    // The address of every thread is inside the view (its bits past the bases
    // are ignored), so the load needs no predicate; `other` is selected.
    Value v = LLVM::LoadOp::create(rewriter, loc, elt, t.address);
    if (Value other = adaptor.getOther()) {
      Value keep = adaptor.getPred();
      if (t.covered)
        keep = keep ? Value(LLVM::AndOp::create(rewriter, loc, keep, t.covered)) : t.covered;
      if (keep)
        v = LLVM::SelectOp::create(rewriter, loc, keep, v, other);
    }
    rewriter.replaceOp(op, v);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Tensor memory (Blackwell): tcgen05.ld / tcgen05.st, shape 32x32b
//===----------------------------------------------------------------------===//

/// In the 32x32b shape each warp reaches its own 32 TMEM lanes (warp % 4)
/// and thread t of the warp holds lane 32*(warp%4)+t, one column per
/// register: the layout the layout pass gives tmem tiles. Checked here.
LogicalResult checkTmemLayout(Operation *op, RankedTensorType tile, const LinearLayout &layout) {
  if (tile.getRank() != 2 || tile.getDimSize(0) != 128 ||
      getElementBitWidth(tile.getElementType()) != 32)
    return op->emitOpError() << "tensor-memory tiles must be 128 x N of 32-bit elements, got "
                             << tile;
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t warp = 0; warp < 4; ++warp)
      for (int64_t r = 0; r < layout.getNumRegs(); ++r)
        if (layout.apply(r, lane, warp) != LinearLayout::Coord{32 * warp + lane, r})
          return op->emitOpError() << "tile " << tile
                                   << " is not in the tensor-memory lane layout (row = 32 * warp "
                                      "+ lane, column = register); run --txl-assign-layouts";
  return success();
}

/// TMEM address of this warp's lanes at column `col`.
Value tmemAddress(OpBuilder &b, Location loc, Value base, int64_t col) {
  Value warp = LLVM::LShrOp::create(b, loc, getThreadId(b, loc), i32Const(b, loc, 5));
  warp = LLVM::AndOp::create(b, loc, warp, i32Const(b, loc, 3));
  Value lanes = LLVM::ShlOp::create(b, loc, warp, i32Const(b, loc, 16 + 5)); // (32*warp) << 16
  Value addr = LLVM::AddOp::create(b, loc, base, lanes);
  if (col)
    addr = LLVM::AddOp::create(b, loc, addr, i32Const(b, loc, col));
  return LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 6), addr);
}

struct LowerTmemLoad : OpConversionPattern<TmemLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TmemLoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto tile = op.getType();
    auto layout = tileLayout(op, tile);
    Type structType = getTypeConverter()->convertType(tile);
    if (failed(layout) || !structType || failed(checkTmemLayout(op, tile, *layout)))
      return failure();
    Type elt = getTypeConverter()->convertType(tile.getElementType());
    MLIRContext *ctx = getContext();
    auto shape = NVVM::Tcgen05LdStShapeAttr::get(ctx, NVVM::Tcgen05LdStShape::SHAPE_32X32B);
    Value result = LLVM::UndefOp::create(rewriter, loc, structType);
    int64_t cols = tile.getDimSize(1);
    for (int64_t c0 = 0; c0 < cols; c0 += 128) {
      int64_t n = std::min<int64_t>(128, cols - c0);
      auto vec = VectorType::get({n}, rewriter.getI32Type());
      Value v =
          NVVM::Tcgen05LdOp::create(rewriter, loc, vec, UnitAttr(), shape,
                                    tmemAddress(rewriter, loc, adaptor.getSrc(), c0), Value());
      for (int64_t i = 0; i < n; ++i) {
        Value e = LLVM::ExtractElementOp::create(rewriter, loc, v, i32Const(rewriter, loc, i));
        e = LLVM::BitcastOp::create(rewriter, loc, elt, e);
        result = LLVM::InsertValueOp::create(rewriter, loc, result, e, c0 + i);
      }
    }
    NVVM::Tcgen05WaitOp::create(rewriter, loc,
                                NVVM::Tcgen05WaitKindAttr::get(ctx, NVVM::Tcgen05WaitKind::LOAD));
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LowerTmemStore : OpConversionPattern<TmemStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TmemStoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto tile = op.getValue().getType();
    auto layout = tileLayout(op, tile);
    if (failed(layout) || failed(checkTmemLayout(op, tile, *layout)))
      return failure();
    MLIRContext *ctx = getContext();
    auto shape = NVVM::Tcgen05LdStShapeAttr::get(ctx, NVVM::Tcgen05LdStShape::SHAPE_32X32B);
    int64_t cols = tile.getDimSize(1);
    for (int64_t c0 = 0; c0 < cols; c0 += 128) {
      int64_t n = std::min<int64_t>(128, cols - c0);
      auto vecType = VectorType::get({n}, rewriter.getI32Type());
      Value vec = LLVM::UndefOp::create(rewriter, loc, vecType);
      for (int64_t i = 0; i < n; ++i) {
        Value e = LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getValue(), c0 + i);
        e = LLVM::BitcastOp::create(rewriter, loc, rewriter.getI32Type(), e);
        vec = LLVM::InsertElementOp::create(rewriter, loc, vec, e, i32Const(rewriter, loc, i));
      }
      NVVM::Tcgen05StOp::create(rewriter, loc, UnitAttr(), shape,
                                tmemAddress(rewriter, loc, adaptor.getDst(), c0), vec, Value());
    }
    NVVM::Tcgen05WaitOp::create(rewriter, loc,
                                NVVM::Tcgen05WaitKindAttr::get(ctx, NVVM::Tcgen05WaitKind::STORE));
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerSmemLoadStoresPass : txl::impl::TXLLowerSmemLoadStoresBase<LowerSmemLoadStoresPass> {
  void runOnOperation() override {
    TXLTypeConverter converter(&getContext());
    ConversionTarget target(getContext());
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addIllegalOp<SmemLoadOp, SmemStoreOp, FragSmemLoadOp, FragSmemStoreOp, SlotStoreOp,
                        SlotLoadOp, TmemLoadOp, TmemStoreOp>();
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerSmemLoad, LowerSmemStore, LowerFragSmemLoad, LowerFragSmemStore,
                 LowerSlotStore, LowerSlotLoad, LowerTmemLoad, LowerTmemStore>(converter,
                                                                               &getContext());
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
