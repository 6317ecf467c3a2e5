//===- LoweringUtils.cpp - shared helpers of the lowering stages ----------===//

#include "txl/Analysis/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::txl;

Type mlir::txl::getTileStructType(RankedTensorType tile, const TypeConverter &converter,
                                  std::string *why) {
  auto layout = LinearLayout::get(tile.getShape(), tile.getEncoding(), why);
  if (failed(layout))
    return {};
  Type elt = converter.convertType(tile.getElementType());
  if (!elt)
    return {};
  SmallVector<Type> fields(layout->getNumRegs(), elt);
  return LLVM::LLVMStructType::getLiteral(tile.getContext(), fields);
}

TXLTypeConverter::TXLTypeConverter(MLIRContext *ctx) : LLVMTypeConverter(ctx) {
  auto shared = LLVM::LLVMPointerType::get(ctx, 3);
  addConversion([shared](SmemType) -> Type { return shared; });
  addConversion([shared](MbarType) -> Type { return shared; });
  addConversion([ctx](TmemType) -> Type { return IntegerType::get(ctx, 32); });
  addConversion([ctx](TensorDescType) -> Type { return LLVM::LLVMPointerType::get(ctx); });
  addConversion(
      [ctx](PtrType p) -> Type { return LLVM::LLVMPointerType::get(ctx, p.getAddressSpace()); });
  addConversion([this](RankedTensorType t) -> std::optional<Type> {
    if (Type s = getTileStructType(t, *this))
      return s;
    return std::nullopt;
  });
}

Value mlir::txl::i32Const(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(v));
}

Value mlir::txl::i64Const(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI64Type(), b.getI64IntegerAttr(v));
}

Value mlir::txl::getSharedAddress(OpBuilder &b, Location loc, Operation *anchor, int64_t offset) {
  auto module = anchor->getParentOfType<ModuleOp>();
  MLIRContext *ctx = b.getContext();
  auto arrayType = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 0);
  if (!module.lookupSymbol(kSharedArrayName)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto global =
        LLVM::GlobalOp::create(b, loc, arrayType, /*isConstant=*/false, LLVM::Linkage::External,
                               kSharedArrayName, Attribute(), /*alignment=*/1024, /*addrSpace=*/3);
    (void)global;
  }
  Value base =
      LLVM::AddressOfOp::create(b, loc, LLVM::LLVMPointerType::get(ctx, 3), kSharedArrayName);
  return offset ? addBytes(b, loc, base, offset) : base;
}

Value mlir::txl::addBytes(OpBuilder &b, Location loc, Value base, Value offset) {
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base, ValueRange{offset});
}

Value mlir::txl::addBytes(OpBuilder &b, Location loc, Value base, int64_t offset) {
  if (offset == 0)
    return base;
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{LLVM::GEPArg(offset)});
}

Value mlir::txl::addScaledIndex(OpBuilder &b, Location loc, Value base, Value index,
                                int64_t stride) {
  Value wide = LLVM::SExtOp::create(b, loc, b.getI64Type(), index);
  Value bytes = LLVM::MulOp::create(b, loc, wide, i64Const(b, loc, stride));
  return addBytes(b, loc, base, bytes);
}

Value mlir::txl::getThreadId(OpBuilder &b, Location loc) {
  return NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
}

int64_t mlir::txl::getRoleWarps(Operation *op) {
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func)
    func = op->getParentOfType<FunctionOpInterface>();
  if (auto n = func ? func->getAttrOfType<IntegerAttr>(kRoleWarpsAttrName) : IntegerAttr())
    return n.getInt(); // verified: 1, 2, 4, 8, 16 or 32
  // A warpgroup, or the whole CTA of a kernel of 1 or 2 warps.
  if (auto n = func ? func->getAttrOfType<IntegerAttr>(kNumWarpsAttrName) : IntegerAttr())
    return std::min<int64_t>(4, n.getInt()); // verified: 1, 2 or a multiple of 4
  return 4;
}

bool mlir::txl::isWarpSpecialized(func::FuncOp func) {
  return func
      .walk([](Operation *op) {
        return isa<IsWarpgroupOp, IsWarpOp>(op) ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

bool mlir::txl::usesMmaSync(int64_t m, int64_t roleWarps) {
  // wgmma needs a whole warpgroup; a role of 1 or 2 warps (num_warps = 1, 2)
  // runs its dots on mma.sync, as Triton does.
  return roleWarps < 4 || m % (16 * roleWarps) != 0;
}

int64_t mlir::txl::getMmaSyncWarpsAlongM(int64_t m, int64_t roleWarps) {
  return static_cast<int64_t>(
      llvm::bit_floor(static_cast<uint64_t>(std::max<int64_t>(1, std::min(roleWarps, m / 16)))));
}

bool mlir::txl::usesMmaSync(DotOp dot) {
  return usesMmaSync(cast<ShapedType>(dot.getAcc().getType()).getDimSize(0), getRoleWarps(dot));
}

Value mlir::txl::isRoleLeader(OpBuilder &b, Location loc, int64_t roleWarps) {
  Value tid = getThreadId(b, loc);
  Value lane = LLVM::URemOp::create(b, loc, tid, i32Const(b, loc, 32 * roleWarps));
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, lane, i32Const(b, loc, 0));
}

void mlir::txl::syncRole(OpBuilder &b, Location loc, int64_t roleWarps) {
  Value role = LLVM::UDivOp::create(b, loc, getThreadId(b, loc), i32Const(b, loc, 32 * roleWarps));
  Value id = LLVM::AddOp::create(b, loc, role, i32Const(b, loc, 1));
  NVVM::BarrierOp::create(b, loc, Type(), id, i32Const(b, loc, 32 * roleWarps), nullptr, Value());
}

TmaBox mlir::txl::getTmaBox(TensorDescType desc) {
  TmaBox result;
  result.box.assign(desc.getBlockShape().begin(), desc.getBlockShape().end());
  int64_t elemBytes = getElementBitWidth(desc.getElementType()) / 8;
  if (auto enc = dyn_cast_or_null<NVMMASharedAttr>(desc.getEncoding()))
    result.swizzle = enc.getSwizzle();
  int64_t innerBytes = result.box.back() * elemBytes;
  if (result.swizzle > 0 && innerBytes > result.swizzle) {
    result.pieces = innerBytes / result.swizzle;
    result.box.back() = result.swizzle / elemBytes;
  }
  int64_t elems = 1;
  for (int64_t d : result.box)
    elems *= d;
  result.pieceBytes = elems * elemBytes;
  return result;
}

bool mlir::txl::isInsideSwizzleAtom(SmemType view) {
  auto enc = dyn_cast_or_null<NVMMASharedAttr>(view.getEncoding());
  return enc && enc.getSwizzle() && !view.getShape().empty() &&
         getContiguousRowBytes(view.getShape(), view.getElementType(), enc.getTransposed()) <
             enc.getSwizzle();
}

LogicalResult mlir::txl::refuseInsideSwizzleAtom(Operation *op, SmemType view) {
  return op->emitOpError() << "accesses " << view
                           << " element by element, but it is a slice inside a swizzle span (a K "
                              "step of a wider swizzled tile), which only wgmma reads; pass it "
                              "to tl.dot, or slice whole swizzle column blocks";
}

TmaBox mlir::txl::getTmaBox(TensorDescType desc, SmemType buffer) {
  TmaBox result = getTmaBox(desc);
  if (isTmaColumnSlice(desc, buffer))
    result.pieces = buffer.getShape().back() / result.box.back();
  return result;
}

ThreadCoords::ThreadCoords(OpBuilder &b, Location loc, const LinearLayout &layout, bool pinned)
    : layout(layout) {
  Value tid = getThreadId(b, loc);
  if (pinned)
    tid = createInlinePtx(b, loc, b.getI32Type(), ValueRange{tid}, "mov.b32 $0, $1;", "=r,r")
              .getResult(0);
  Value lane = LLVM::AndOp::create(b, loc, tid, i32Const(b, loc, 31));
  Value warp = warpIndex(b, loc, tid, layout);
  for (unsigned d = 0; d < layout.getShape().size(); ++d) {
    Value acc = ofBits(b, loc, layout.getLaneBases(), lane, d);
    laneWarp.push_back(ofBits(b, loc, layout.getWarpBases(), warp, d, acc));
  }
}

Value ThreadCoords::ofBits(OpBuilder &b, Location loc, ArrayRef<LinearLayout::Coord> bases,
                           Value index, unsigned dim, Value acc) {
  if (!acc)
    acc = i32Const(b, loc, 0);
  for (auto [k, basis] : llvm::enumerate(bases)) {
    if (basis[dim] == 0)
      continue;
    // bit k of index, times the basis (a power of two or a sum of them).
    Value bit = LLVM::LShrOp::create(b, loc, index, i32Const(b, loc, k));
    bit = LLVM::AndOp::create(b, loc, bit, i32Const(b, loc, 1));
    Value term = LLVM::MulOp::create(b, loc, bit, i32Const(b, loc, basis[dim]));
    acc = LLVM::XOrOp::create(b, loc, acc, term);
  }
  return acc;
}

Value ThreadCoords::warpIndex(OpBuilder &b, Location loc, Value tid, const LinearLayout &layout) {
  Value warp = LLVM::LShrOp::create(b, loc, tid, i32Const(b, loc, 5));
  int64_t numWarps = int64_t(1) << layout.getWarpBases().size();
  return LLVM::AndOp::create(b, loc, warp, i32Const(b, loc, numWarps - 1));
}

Value ThreadCoords::get(OpBuilder &b, Location loc, int64_t reg, unsigned dim) const {
  int64_t fixed = layout.applyReg(reg)[dim];
  if (fixed == 0)
    return laneWarp[dim];
  return LLVM::XOrOp::create(b, loc, laneWarp[dim], i32Const(b, loc, fixed));
}

Value mlir::txl::toClusterWindow(OpBuilder &b, Location loc, Value smem) {
  Value addr = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), smem);
  return LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 7), addr);
}

Value mlir::txl::mapToCta(OpBuilder &b, Location loc, Value smem, Value cta) {
  return NVVM::MapaOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 7), smem, cta);
}

namespace {
/// The integer arithmetic of sharedOffset on constants...
struct ConstArith {
  using T = int64_t;
  T lit(int64_t v) const { return v; }
  T add(T x, T y) const { return x + y; }
  T mul(T x, int64_t k) const { return x * k; }
  T udiv(T x, int64_t k) const { return x / k; }
  T urem(T x, int64_t k) const { return x % k; }
  T lshr(T x, int64_t k) const { return x >> k; }
  T andc(T x, int64_t k) const { return x & k; }
  T shl(T x, int64_t k) const { return x << k; }
  T xorv(T x, T y) const { return x ^ y; }
};
/// ... and as i32 LLVM ops.
struct IRArith {
  using T = Value;
  OpBuilder &b;
  Location loc;
  T lit(int64_t v) const { return i32Const(b, loc, v); }
  T add(T x, T y) const { return LLVM::AddOp::create(b, loc, x, y); }
  T mul(T x, int64_t k) const { return k == 1 ? x : T(LLVM::MulOp::create(b, loc, x, lit(k))); }
  T udiv(T x, int64_t k) const { return LLVM::UDivOp::create(b, loc, x, lit(k)); }
  T urem(T x, int64_t k) const { return LLVM::URemOp::create(b, loc, x, lit(k)); }
  T lshr(T x, int64_t k) const { return LLVM::LShrOp::create(b, loc, x, lit(k)); }
  T andc(T x, int64_t k) const { return LLVM::AndOp::create(b, loc, x, lit(k)); }
  T shl(T x, int64_t k) const { return LLVM::ShlOp::create(b, loc, x, lit(k)); }
  T xorv(T x, T y) const { return LLVM::XOrOp::create(b, loc, x, y); }
};

/// Byte offset of element `coords` in `view` (see getSharedElementAddress),
/// written once for constant and for run-time coordinates.
template <typename Arith>
typename Arith::T sharedOffset(const Arith &a, SmemType view, ArrayRef<typename Arith::T> coords) {
  using T = typename Arith::T;
  auto enc = dyn_cast_or_null<NVMMASharedAttr>(view.getEncoding());
  int64_t elemBytes = std::max<int64_t>(1, getElementBitWidth(view.getElementType()) / 8);
  SmallVector<int64_t> shape(view.getShape());
  SmallVector<T> c(coords);
  if (enc && enc.getTransposed() && shape.size() == 2) {
    std::swap(shape[0], shape[1]);
    std::swap(c[0], c[1]);
  }
  // Rows: every dimension but the last, flattened.
  T row = a.lit(0);
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < shape.size(); ++d) {
    row = a.add(a.mul(row, shape[d]), c[d]);
    rows *= shape[d];
  }
  T col = c.back();
  unsigned swizzle = enc ? enc.getSwizzle() : 0;
  if (swizzle == 0)
    return a.mul(a.add(a.mul(row, shape.back()), col), elemBytes);
  int64_t perBlock = swizzle / elemBytes;
  T block = a.udiv(col, perBlock);
  T within = a.urem(col, perBlock);
  T lin = a.add(a.add(a.mul(block, rows * swizzle), a.mul(row, swizzle)), a.mul(within, elemBytes));
  T sel = a.shl(a.andc(a.lshr(lin, 7), swizzle / 16 - 1), 4);
  return a.xorv(lin, sel);
}
} // namespace

int64_t mlir::txl::getSharedElementOffset(SmemType view, ArrayRef<int64_t> coords) {
  return sharedOffset(ConstArith(), view, coords);
}

SharedAddresses::SharedAddresses(OpBuilder &b, Location loc, Value base, SmemType view,
                                 const LinearLayout &layout, int64_t step, bool pinned)
    : base(base), view(view), coords(b, loc, layout, pinned), step(step) {
  if (layout.getShape() != view.getShape())
    return;
  auto offset = [&](int64_t reg, int64_t lane, int64_t warp) {
    return getSharedElementOffset(view, layout.apply(reg, lane, warp));
  };
  for (int64_t r = 0; r < layout.getNumRegs(); r += step)
    delta.push_back(offset(r, 0, 0) - offset(0, 0, 0));
  for (int64_t warp = 0; warp < layout.getNumWarps(); ++warp)
    for (int64_t lane = 0; lane < layout.getNumLanes(); ++lane) {
      int64_t at0 = offset(0, lane, warp);
      for (auto [i, d] : llvm::enumerate(delta))
        if (offset(int64_t(i) * step, lane, warp) != at0 + d) {
          delta.clear();
          return;
        }
    }
  SmallVector<Value> c;
  for (unsigned d = 0; d < layout.getShape().size(); ++d)
    c.push_back(coords.get(b, loc, 0, d));
  first = getSharedElementAddress(b, loc, base, view, c);
}

Value SharedAddresses::get(OpBuilder &b, Location loc, int64_t reg) {
  if (first) {
    int64_t d = delta[reg / step];
    return d == 0 ? first : addBytes(b, loc, first, d);
  }
  SmallVector<Value> c;
  for (unsigned d = 0; d < coords.layout.getShape().size(); ++d)
    c.push_back(coords.get(b, loc, reg, d));
  return getSharedElementAddress(b, loc, base, view, c);
}

void SharedAddresses::pinBase(OpBuilder &b, Location loc) {
  if (!first)
    return;
  // A 32-bit mov (shared pointers are 32-bit, nvptx-short-ptr), which
  // ptxas removes; side-effecting, so LLVM neither looks through it nor
  // hoists it (and the addresses built on it) out of the loop.
  Value addr = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), first);
  addr = createInlinePtx(b, loc, b.getI32Type(), ValueRange{addr}, "mov.b32 $0, $1;", "=r,r")
             .getResult(0);
  first = LLVM::IntToPtrOp::create(b, loc, first.getType(), addr);
}

Value mlir::txl::getSharedElementAddress(OpBuilder &b, Location loc, Value base, SmemType view,
                                         ArrayRef<Value> coords) {
  return addBytes(b, loc, base, sharedOffset(IRArith{b, loc}, view, coords));
}

int64_t mlir::txl::getReduceScratchOffset(ArrayRef<int64_t> elementBytes, size_t index,
                                          int64_t partials, int64_t outputs) {
  int64_t offset = 0;
  for (size_t i = 0; i < index; ++i)
    offset += llvm::alignTo(partials * outputs * elementBytes[i], 16);
  return offset;
}

/// The first log2(k) register bases are 1, 2, 4, ... along `dim`, and no
/// other basis moves `dim` by less than k.
int64_t mlir::txl::registerRun(const LinearLayout &layout, unsigned dim) {
  auto unitAlong = [&](const LinearLayout::Coord &basis, int64_t step) {
    for (auto [d, v] : llvm::enumerate(basis))
      if (v != (d == dim ? step : 0))
        return false;
    return true;
  };
  ArrayRef<LinearLayout::Coord> regs = layout.getRegBases();
  size_t bits = 0;
  while (bits < regs.size() && unitAlong(regs[bits], int64_t(1) << bits))
    ++bits;
  auto aligned = [&](size_t bits) {
    int64_t k = int64_t(1) << bits;
    auto ok = [&](ArrayRef<LinearLayout::Coord> bases) {
      return llvm::all_of(bases, [&](const LinearLayout::Coord &b) { return b[dim] % k == 0; });
    };
    return ok(regs.drop_front(bits)) && ok(layout.getLaneBases()) && ok(layout.getWarpBases());
  };
  while (bits > 0 && !aligned(bits))
    --bits;
  return int64_t(1) << bits;
}

LLVM::InlineAsmOp mlir::txl::createInlinePtx(OpBuilder &b, Location loc, Type resultType,
                                             ValueRange operands, StringRef ptx,
                                             StringRef constraints) {
  return LLVM::InlineAsmOp::create(
      b, loc, resultType, operands, ptx, constraints, /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT), ArrayAttr());
}
