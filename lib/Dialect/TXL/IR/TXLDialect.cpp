//===- TXLDialect.cpp - txl dialect, types and attributes -----------------===//
//
// Registration, custom type syntax and the verifiers of types, attributes and
// the dialect's discardable attributes (txl.target, txl.kernel, txl.num_warps,
// txl.role_warps).
// Every verifier reports through the diagnostic engine: malformed input must
// never reach an assert.
//
//===----------------------------------------------------------------------===//

#include "txl/Dialect/TXL/IR/LinearLayout.h"
#include "txl/Dialect/TXL/IR/TXLOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::txl;

#include "txl/Dialect/TXL/IR/TXLDialect.cpp.inc"
#include "txl/Dialect/TXL/IR/TXLEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "txl/Dialect/TXL/IR/TXLTypes.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "txl/Dialect/TXL/IR/TXLAttrs.cpp.inc"

void TXLDialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "txl/Dialect/TXL/IR/TXLOps.cpp.inc"
      >();
}

void TXLDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "txl/Dialect/TXL/IR/TXLTypes.cpp.inc"
      >();
}

void TXLDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "txl/Dialect/TXL/IR/TXLAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

int64_t mlir::txl::getClusterSize(Operation *op) {
  Operation *fn = op;
  if (!isa<FunctionOpInterface>(op))
    fn = op->getParentOfType<FunctionOpInterface>();
  auto n = fn ? fn->getAttrOfType<IntegerAttr>(kNumCtasAttrName) : IntegerAttr();
  return n ? n.getInt() : 1;
}

StringRef mlir::txl::getTargetArch(Operation *op) {
  for (Operation *p = op; p; p = p->getParentOp())
    if (auto target = p->getAttrOfType<StringAttr>(kTargetAttrName))
      return target.getValue();
  return "sm_90a";
}

int64_t mlir::txl::getMmaInstrK(Type t) {
  if (t.isF32())
    return 8; // tf32
  return 256 / getElementBitWidth(t);
}

unsigned mlir::txl::getElementBitWidth(Type elementType) {
  if (isa<PtrType>(elementType))
    return 64;
  if (elementType.isIntOrFloat())
    return elementType.getIntOrFloatBitWidth();
  return 0;
}

Type mlir::txl::getI1SameShape(Type type) {
  auto i1 = IntegerType::get(type.getContext(), 1);
  if (auto tile = dyn_cast<RankedTensorType>(type))
    return RankedTensorType::get(tile.getShape(), i1, tile.getEncoding());
  return i1;
}

static bool isTileElementType(Type t) { return t.isIntOrFloat() && getElementBitWidth(t) > 0; }

/// Sizes saturate at INT64_MAX: an absurd shape must fail the size checks of
/// the alloc ops, not wrap around to a small size.
static int64_t saturate(uint64_t n) { return std::min<uint64_t>(n, INT64_MAX); }

static int64_t product(ArrayRef<int64_t> shape) {
  uint64_t n = 1;
  for (int64_t d : shape)
    n = llvm::SaturatingMultiply(n, static_cast<uint64_t>(d));
  return saturate(n);
}

//===----------------------------------------------------------------------===//
// Buffer types (!txl.smem, !txl.tmem)
//===----------------------------------------------------------------------===//

// Syntax shared by both: `<` dims `x` elt (`,` `stages` `=` N)? (`,` attr)? `>`.
static LogicalResult parseBuffer(AsmParser &parser, SmallVectorImpl<int64_t> &shape,
                                 Type &elementType, int64_t &stages, Attribute &encoding) {
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false, /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return failure();
  while (succeeded(parser.parseOptionalComma())) {
    if (succeeded(parser.parseOptionalKeyword("stages"))) {
      if (parser.parseEqual() || parser.parseInteger(stages))
        return failure();
      continue;
    }
    if (parser.parseAttribute(encoding))
      return failure();
  }
  return parser.parseGreater();
}

static void printBuffer(AsmPrinter &printer, ArrayRef<int64_t> shape, Type elementType,
                        int64_t stages, Attribute encoding) {
  printer << "<";
  for (int64_t d : shape)
    printer << d << "x";
  printer << elementType;
  if (stages > 0)
    printer << ", stages = " << stages;
  if (encoding)
    printer << ", " << encoding;
  printer << ">";
}

static LogicalResult verifyBuffer(function_ref<InFlightDiagnostic()> emitError, StringRef what,
                                  ArrayRef<int64_t> shape, Type elementType, int64_t stages) {
  if (!isTileElementType(elementType))
    return emitError() << what << " element type must be an integer or float type, got "
                       << elementType;
  // A buffer has at least one dimension (rank-0 buffers crashed the view
  // verifiers, which index dimension 0; found by the fuzzer).
  if (shape.empty()) {
    std::string one;
    llvm::raw_string_ostream os(one);
    os << what << "<1x" << elementType << ">";
    return emitError() << what << " needs at least one dimension (a single element is " << one
                       << ")";
  }
  for (int64_t d : shape)
    if (d <= 0)
      return emitError() << what << " dimensions must be positive, got " << d;
  if (stages < 0)
    return emitError() << what << " stages must be >= 1 (or absent for a view), got " << stages;
  return success();
}

static int64_t stageBytes(ArrayRef<int64_t> shape, Type elementType) {
  uint64_t bits =
      llvm::SaturatingMultiply<uint64_t>(product(shape), getElementBitWidth(elementType));
  return saturate(llvm::divideCeil(bits, 8));
}

Type SmemType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  int64_t stages = 0;
  Attribute encoding;
  if (failed(parseBuffer(parser, shape, elementType, stages, encoding)))
    return {};
  return SmemType::getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                              parser.getContext(), shape, elementType, stages, encoding);
}

void SmemType::print(AsmPrinter &printer) const {
  printBuffer(printer, getShape(), getElementType(), getNumStages(), getEncoding());
}

int64_t mlir::txl::getContiguousRowBytes(ArrayRef<int64_t> shape, Type elementType,
                                         bool transposed) {
  int64_t contiguous = transposed && shape.size() == 2 ? shape.front() : shape.back();
  return contiguous * getElementBitWidth(elementType) / 8;
}

LogicalResult SmemType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType, int64_t numStages,
                               Attribute encoding) {
  if (failed(verifyBuffer(emitError, "!txl.smem", shape, elementType, numStages)))
    return failure();
  if (!encoding)
    return success();
  auto nvmma = dyn_cast<NVMMASharedAttr>(encoding);
  if (!nvmma)
    return emitError() << "!txl.smem encoding must be #txl.nvmma_shared<...>, got " << encoding;
  // A swizzled tile is made of whole swizzle atoms along its contiguous
  // dimension, or is a view inside one atom's rows (a K step of a wider tile,
  // as wgmma reads it: rows of 16 bytes times a power of two, the row pitch
  // still the swizzle span). Allocations must be whole atoms (SmemAllocOp).
  if (nvmma.getSwizzle() > 0 && !shape.empty()) {
    int64_t rowBytes = getContiguousRowBytes(shape, elementType, nvmma.getTransposed());
    bool insideAtom = rowBytes > 0 && rowBytes < nvmma.getSwizzle() && rowBytes % 16 == 0 &&
                      nvmma.getSwizzle() % rowBytes == 0;
    if (rowBytes % nvmma.getSwizzle() != 0 && !insideAtom)
      return emitError() << "!txl.smem with a " << nvmma.getSwizzle()
                         << "-byte swizzle needs rows of a multiple of " << nvmma.getSwizzle()
                         << " bytes, but " << rowBytes * 8 / getElementBitWidth(elementType)
                         << " x " << elementType << " is " << rowBytes
                         << " bytes; use a smaller swizzle or a wider tile";
  }
  return success();
}

int64_t SmemType::getStageBytes() const { return stageBytes(getShape(), getElementType()); }

ShapedType SmemType::cloneWith(std::optional<ArrayRef<int64_t>> shape, Type elementType) const {
  return SmemType::get(getContext(), shape ? *shape : getShape(), elementType, getNumStages(),
                       getEncoding());
}

Type TmemType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  int64_t stages = 0;
  Attribute encoding;
  if (failed(parseBuffer(parser, shape, elementType, stages, encoding)))
    return {};
  return TmemType::getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                              parser.getContext(), shape, elementType, stages, encoding);
}

void TmemType::print(AsmPrinter &printer) const {
  printBuffer(printer, getShape(), getElementType(), getNumStages(), getEncoding());
}

LogicalResult TmemType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType, int64_t numStages,
                               Attribute encoding) {
  if (failed(verifyBuffer(emitError, "!txl.tmem", shape, elementType, numStages)))
    return failure();
  if (shape.size() != 2)
    return emitError() << "!txl.tmem must be 2-D (lanes x columns), got rank " << shape.size();
  if (shape[0] > 128)
    return emitError() << "!txl.tmem has at most 128 rows (TMEM lanes), got " << shape[0];
  if (encoding)
    return emitError() << "!txl.tmem takes no encoding";
  return success();
}

int64_t TmemType::getStageBytes() const { return stageBytes(getShape(), getElementType()); }

int64_t TmemType::getStageColumns() const {
  // Each TMEM column is 32 bits wide per lane; narrower types pack.
  uint64_t bits =
      llvm::SaturatingMultiply<uint64_t>(getShape()[1], getElementBitWidth(getElementType()));
  return saturate(llvm::divideCeil(bits, 32));
}

ShapedType TmemType::cloneWith(std::optional<ArrayRef<int64_t>> shape, Type elementType) const {
  return TmemType::get(getContext(), shape ? *shape : getShape(), elementType, getNumStages(),
                       getEncoding());
}

//===----------------------------------------------------------------------===//
// !txl.mbar, !txl.tensordesc, !txl.ptr
//===----------------------------------------------------------------------===//

LogicalResult MbarType::verify(function_ref<InFlightDiagnostic()> emitError, int64_t numStages) {
  if (numStages < 0)
    return emitError() << "!txl.mbar<N> needs N >= 1, got " << numStages;
  return success();
}

Type TensorDescType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  Attribute encoding;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false, /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return {};
  if (succeeded(parser.parseOptionalComma()) && parser.parseAttribute(encoding))
    return {};
  if (parser.parseGreater())
    return {};
  return TensorDescType::getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                                    parser.getContext(), shape, elementType, encoding);
}

void TensorDescType::print(AsmPrinter &printer) const {
  printBuffer(printer, getBlockShape(), getElementType(), 0, getEncoding());
}

LogicalResult TensorDescType::verify(function_ref<InFlightDiagnostic()> emitError,
                                     ArrayRef<int64_t> blockShape, Type elementType,
                                     Attribute encoding) {
  if (!isTileElementType(elementType))
    return emitError() << "!txl.tensordesc element type must be an integer or float type, got "
                       << elementType;
  unsigned bits = getElementBitWidth(elementType);
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
    return emitError() << "TMA moves 8-, 16-, 32- or 64-bit elements, got " << elementType;
  if (blockShape.empty() || blockShape.size() > 5)
    return emitError() << "TMA boxes have 1 to 5 dimensions, got " << blockShape.size();
  // The hardware box has at most 256 elements per dimension. The inner
  // dimension of a swizzled tile may be wider: it moves as several boxes of
  // one swizzle span each (getTmaBox); whether it is swizzled is known once
  // txl-smem-allocs has chosen the encoding (the sidecar and the device
  // descriptor lowering check the box then).
  for (auto [i, d] : llvm::enumerate(blockShape)) {
    bool inner = i + 1 == blockShape.size();
    if (d < 1 || (d > 256 && !inner))
      return emitError() << "TMA box dimensions must be in 1..256 (the innermost may be wider when "
                            "a swizzle splits it), got "
                         << d << "; split the tile into several loads";
  }
  int64_t innerBytes = blockShape.back() * bits / 8;
  if (innerBytes % 16 != 0)
    return emitError() << "the TMA box's inner dimension must be a multiple of 16 bytes, got "
                       << blockShape.back() << " x " << elementType << " = " << innerBytes
                       << " bytes";
  if (!encoding)
    return success();
  auto nvmma = dyn_cast<NVMMASharedAttr>(encoding);
  if (!nvmma)
    return emitError() << "!txl.tensordesc encoding must be #txl.nvmma_shared<...>, got "
                       << encoding;
  // The hardware box's inner dimension may not exceed the swizzle span; a
  // wider tile is moved as several boxes, so it must be a whole number of them.
  unsigned swizzle = nvmma.getSwizzle();
  if (swizzle == 0 && blockShape.back() > 256)
    return emitError() << "a TMA box of " << blockShape.back()
                       << " elements in its inner dimension needs a swizzled layout (which moves "
                          "it as several boxes); without a swizzle the box has at most 256";
  if (swizzle > 0 && innerBytes > swizzle && innerBytes % swizzle != 0)
    return emitError() << "a TMA box with a " << swizzle << "-byte swizzle moves rows of at most "
                       << swizzle << " bytes (or a multiple, as several boxes), got " << innerBytes
                       << " bytes";
  return success();
}

int64_t TensorDescType::getBoxBytes() const {
  return stageBytes(getBlockShape(), getElementType());
}

LogicalResult PtrType::verify(function_ref<InFlightDiagnostic()> emitError, Type pointeeType,
                              unsigned addressSpace) {
  if (!isTileElementType(pointeeType))
    return emitError() << "!txl.ptr points to an integer or float type, got " << pointeeType;
  if (addressSpace != 0 && addressSpace != 1 && addressSpace != 3)
    return emitError()
           << "!txl.ptr address space must be 0 (generic), 1 (global) or 3 (shared), got "
           << addressSpace;
  return success();
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

LogicalResult NVMMASharedAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                      unsigned swizzle, bool transposed) {
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "#txl.nvmma_shared swizzle must be 0, 32, 64 or 128 bytes, got "
                       << swizzle;
  return success();
}

static bool isPermutation(ArrayRef<unsigned> order) {
  SmallVector<bool> seen(order.size(), false);
  for (unsigned o : order) {
    if (o >= order.size() || seen[o])
      return false;
    seen[o] = true;
  }
  return true;
}

LogicalResult BlockedAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<unsigned> sizePerThread,
                                  ArrayRef<unsigned> threadsPerWarp, ArrayRef<unsigned> warpsPerCTA,
                                  ArrayRef<unsigned> order) {
  size_t rank = sizePerThread.size();
  if (rank == 0 || threadsPerWarp.size() != rank || warpsPerCTA.size() != rank ||
      order.size() != rank)
    return emitError() << "#txl.blocked needs sizePerThread, threadsPerWarp, warpsPerCTA and "
                          "order of one rank (>= 1)";
  uint64_t threads = 1; // Saturating: [2, 2147483664] must not wrap around to 32.
  for (size_t i = 0; i < rank; ++i) {
    if (sizePerThread[i] == 0 || threadsPerWarp[i] == 0 || warpsPerCTA[i] == 0)
      return emitError() << "#txl.blocked entries must be positive";
    threads = llvm::SaturatingMultiply(threads, uint64_t(threadsPerWarp[i]));
  }
  if (threads != 32)
    return emitError() << "#txl.blocked threadsPerWarp must multiply to 32, got " << threads;
  if (!isPermutation(order))
    return emitError() << "#txl.blocked order must be a permutation of 0.." << rank - 1;
  return success();
}

LogicalResult NVMMAAttr::verify(function_ref<InFlightDiagnostic()> emitError, unsigned version,
                                ArrayRef<unsigned> warpsPerCTA, ArrayRef<unsigned> instrShape) {
  if (version != 2 && version != 3)
    return emitError() << "#txl.nvmma version must be 2 (mma.sync) or 3 (Hopper wgmma), got "
                       << version;
  if (warpsPerCTA.size() != 2 || warpsPerCTA[0] == 0 || warpsPerCTA[1] == 0)
    return emitError() << "#txl.nvmma warpsPerCTA must be two positive counts";
  if (version == 2) {
    // mma.sync: each warp computes 16 x 8 tiles; warps split M, then N.
    if (!llvm::isPowerOf2_32(warpsPerCTA[0] * warpsPerCTA[1]))
      return emitError() << "#txl.nvmma version 2 needs a power-of-two number of warps";
    if (instrShape.size() != 3 || instrShape[0] != 16 || instrShape[1] != 8 ||
        !llvm::is_contained(ArrayRef<unsigned>{8, 16, 32}, instrShape[2]))
      return emitError() << "#txl.nvmma version 2 (mma.sync) instrShape must be [16, 8, K] with K "
                            "in {8, 16, 32}";
    return success();
  }
  if ((warpsPerCTA[0] * warpsPerCTA[1]) % 4 != 0)
    return emitError() << "#txl.nvmma needs whole warpgroups (warps a multiple of 4)";
  if (instrShape.size() != 3 || instrShape[0] != 16 || instrShape[1] < 8 || instrShape[1] > 256 ||
      instrShape[1] % 8 != 0 || !llvm::is_contained(ArrayRef<unsigned>{8, 16, 32}, instrShape[2]))
    return emitError() << "#txl.nvmma instrShape must be [16, N, K] with N in 8..256 step 8 and "
                          "K in {8, 16, 32}";
  return success();
}

/// Rank of a register layout, 0 when `layout` is not one.
static unsigned getLayoutRank(Attribute layout) {
  return TypeSwitch<Attribute, unsigned>(layout)
      .Case<BlockedAttr>([](auto a) { return a.getOrder().size(); })
      .Case<NVMMAAttr>([](auto) { return 2u; })
      .Case<DotOperandAttr>([](auto) { return 2u; })
      .Case<LinearAttr>([](auto a) { return a.getRank(); })
      .Case<SliceAttr>([](auto a) {
        unsigned r = getLayoutRank(a.getParent());
        return r > 0 ? r - 1 : 0u;
      })
      .Default([](auto) { return 0u; });
}

LogicalResult DotOperandAttr::verify(function_ref<InFlightDiagnostic()> emitError, unsigned opIdx,
                                     Attribute parent, unsigned kWidth) {
  if (opIdx > 1)
    return emitError() << "#txl.dot_operand opIdx must be 0 (A) or 1 (B), got " << opIdx;
  if (!isa<NVMMAAttr, BlockedAttr>(parent))
    return emitError() << "#txl.dot_operand parent must be an MMA or blocked layout, got "
                       << parent;
  if (!llvm::is_contained(ArrayRef<unsigned>{1, 2, 4, 8}, kWidth))
    return emitError() << "#txl.dot_operand kWidth must be 1, 2, 4 or 8, got " << kWidth;
  return success();
}

/// `[[0, 1], [2, 0]]`: a list of coordinate vectors, appended flattened to
/// `flat`; every vector must have `rank` entries (the first one sets it).
static ParseResult parseBases(AsmParser &parser, StringRef key, std::optional<unsigned> &rank,
                              SmallVector<int64_t> &flat) {
  if (parser.parseKeyword(key) || parser.parseEqual())
    return failure();
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() -> ParseResult {
    SmallVector<int64_t> coord;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                       [&] { return parser.parseInteger(coord.emplace_back()); }))
      return failure();
    if (!rank)
      rank = coord.size();
    if (coord.size() != *rank)
      return parser.emitError(loc)
             << "#txl.linear bases must all have " << *rank << " coordinates, got " << coord.size();
    llvm::append_range(flat, coord);
    return success();
  });
}

Attribute LinearAttr::parse(AsmParser &parser, Type) {
  std::optional<unsigned> rank;
  SmallVector<int64_t> reg, lane, warp;
  if (parser.parseLess() || parseBases(parser, "register", rank, reg) || parser.parseComma() ||
      parseBases(parser, "lane", rank, lane) || parser.parseComma() ||
      parseBases(parser, "warp", rank, warp) || parser.parseGreater())
    return {};
  if (!rank) {
    parser.emitError(parser.getNameLoc()) << "#txl.linear needs at least one basis (its 5 lane "
                                             "bases) to know its rank";
    return {};
  }
  return parser.getChecked<LinearAttr>(parser.getContext(), *rank, reg, lane, warp);
}

void LinearAttr::print(AsmPrinter &printer) const {
  auto print = [&](StringRef key, ArrayRef<int64_t> flat) {
    printer << key << " = [";
    for (unsigned k = 0; k < flat.size() / getRank(); ++k) {
      printer << (k ? ", [" : "[");
      llvm::interleaveComma(getBasis(flat, k), printer);
      printer << "]";
    }
    printer << "]";
  };
  printer << "<";
  print("register", getRegisterBases());
  printer << ", ";
  print("lane", getLaneBases());
  printer << ", ";
  print("warp", getWarpBases());
  printer << ">";
}

LogicalResult LinearAttr::verify(function_ref<InFlightDiagnostic()> emitError, unsigned rank,
                                 ArrayRef<int64_t> reg, ArrayRef<int64_t> lane,
                                 ArrayRef<int64_t> warp) {
  if (rank == 0)
    return emitError() << "#txl.linear needs rank >= 1";
  for (ArrayRef<int64_t> flat : {reg, lane, warp}) {
    if (flat.size() % rank != 0)
      return emitError() << "#txl.linear bases must all have " << rank << " coordinates";
    if (llvm::any_of(flat, [](int64_t v) { return v < 0; }))
      return emitError() << "#txl.linear coordinates must be >= 0";
  }
  if (lane.size() / rank != 5)
    return emitError() << "#txl.linear needs 5 lane bases (32 lanes; [0, ...] for lanes that "
                          "hold copies), got "
                       << lane.size() / rank;
  if (warp.size() / rank > 5)
    return emitError() << "#txl.linear has at most 5 warp bases (32 warps), got "
                       << warp.size() / rank;
  return success();
}

LogicalResult SliceAttr::verify(function_ref<InFlightDiagnostic()> emitError, unsigned dim,
                                Attribute parent) {
  unsigned rank = getLayoutRank(parent);
  if (rank == 0)
    return emitError() << "#txl.slice parent must be a register layout, got " << parent;
  if (dim >= rank)
    return emitError() << "#txl.slice dim " << dim << " is out of range for a rank-" << rank
                       << " parent";
  return success();
}

//===----------------------------------------------------------------------===//
// Discardable attributes
//===----------------------------------------------------------------------===//

/// What every op of a kernel must respect but no op verifier can see alone:
/// the kernel has a body (the passes and the launch need one), its register
/// tiles fit the 2^20-element limit (upstream arith/math ops make tiles too),
/// and their layouts span no more warps than the kernel has (the warp index
/// is taken modulo the layout's warps, so a wider layout leaves part of the
/// tile to warps that do not exist).
static LogicalResult verifyKernelBody(FunctionOpInterface func) {
  if (func.isExternal())
    return func->emitError() << "'" << kKernelAttrName << "' function @" << func.getName()
                             << " has no body; a kernel is the GPU entry point and needs "
                                "one: define it, or drop '"
                             << kKernelAttrName << "' from the declaration";
  int64_t warps = 4;
  if (auto n = func->getAttrOfType<IntegerAttr>(kNumWarpsAttrName))
    if (n.getValue().getSignificantBits() <= 32)
      warps = n.getValue().getSExtValue();
  if (auto role = func->getAttrOfType<IntegerAttr>(kRoleWarpsAttrName))
    if (role.getValue().getSignificantBits() <= 32 && role.getValue().getSExtValue() != warps)
      return func->emitError() << "'" << kRoleWarpsAttrName
                               << "' = " << role.getValue().getSExtValue()
                               << " differs from the kernel's " << warps << " warps ('"
                               << kNumWarpsAttrName
                               << "'): a role wider than one warpgroup is the whole CTA (roles of "
                                  "warp-specialized kernels are single warpgroups: drop '"
                               << kRoleWarpsAttrName << "' there)";
  llvm::SmallDenseSet<Type> checked;
  auto checkType = [&](Type type, function_ref<InFlightDiagnostic()> emitError) -> LogicalResult {
    auto tile = dyn_cast<RankedTensorType>(type);
    if (!tile || !checked.insert(type).second)
      return success();
    if (tile.hasStaticShape() && tile.getNumElements() > kMaxTileElements)
      return emitError() << "register tile " << type << " has " << tile.getNumElements()
                         << " elements, more than the " << kMaxTileElements
                         << " (2^20) a tile may have (Triton's limit too); split the work into "
                            "smaller tiles (a loop over blocks)";
    if (Attribute layout = tile.getEncoding()) {
      FailureOr<LinearLayout> ll = LinearLayout::get(tile.getShape(), layout);
      if (succeeded(ll) && ll->getNumWarps() > warps)
        return emitError() << "register layout " << layout << " spans " << ll->getNumWarps()
                           << " warps but the kernel has " << warps << " ('" << kNumWarpsAttrName
                           << "'); the elements of the missing warps would never be computed: "
                              "use a layout of at most "
                           << warps << " warps or raise '" << kNumWarpsAttrName << "'";
    }
    return success();
  };
  WalkResult result = func->walk([&](Operation *op) {
    if (op == func.getOperation())
      return WalkResult::advance();
    auto emit = [&] { return op->emitOpError(); };
    for (Type t : op->getResultTypes())
      if (failed(checkType(t, emit)))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(checkType(arg.getType(), emit)))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  for (Type t : func.getArgumentTypes())
    if (failed(checkType(t, [&] { return func->emitError(); })))
      return failure();
  return success();
}

LogicalResult TXLDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kTargetAttrName) {
    auto target = dyn_cast<StringAttr>(attr.getValue());
    if (!target || (target.getValue() != "sm_90a" && target.getValue() != "sm_100a"))
      return op->emitError() << "'" << name
                             << "' must be the string \"sm_90a\" (Hopper) or \"sm_100a\" "
                                "(Blackwell), got "
                             << attr.getValue();
    if (op->getNumRegions() == 0 || !op->hasTrait<mlir::OpTrait::SymbolTable>())
      return op->emitError() << "'" << name << "' belongs on a module";
    return success();
  }
  if (name == kKernelAttrName) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << name << "' is a unit attribute on a function";
    return verifyKernelBody(cast<FunctionOpInterface>(op));
  }
  if (name == kNumWarpsAttrName) {
    // Read the value through APInt: getInt() asserts on unsigned and on
    // wider-than-64-bit integer types.
    auto n = dyn_cast<IntegerAttr>(attr.getValue());
    int64_t warps = n && n.getValue().getSignificantBits() <= 32 ? n.getValue().getSExtValue() : 0;
    // 1 or 2 warps (Triton's small configs: no warpgroup MMA, dots on
    // mma.sync), else whole warpgroups; at most 1024 threads.
    if (warps != 1 && warps != 2 && (warps < 4 || warps > 32 || warps % 4 != 0))
      return op->emitError() << "'" << name
                             << "' must be 1, 2 or a multiple of 4 in 4..32 (whole "
                                "warpgroups, at most 1024 threads)";
    return success();
  }
  if (name == kRoleWarpsAttrName) {
    auto n = dyn_cast<IntegerAttr>(attr.getValue());
    int64_t warps = n && n.getValue().getSignificantBits() <= 32 ? n.getValue().getSExtValue() : 0;
    if (warps < 1 || warps > 32 || !llvm::isPowerOf2_64(warps) || !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << name
                             << "' is 1, 2, 4, 8, 16 or 32 (warps per copy of the body) on a "
                                "kernel function";
    return success();
  }
  // Triton's num_ctas: CTAs per cluster (num_ctas x 1 x 1), at most 8 (the
  // portable cluster size).
  if (name == kNumCtasAttrName) {
    auto n = dyn_cast<IntegerAttr>(attr.getValue());
    int64_t ctas = n && n.getValue().getSignificantBits() <= 32 ? n.getValue().getSExtValue() : 0;
    if (ctas < 1 || ctas > 8 || !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << name
                             << "' is an integer in 1..8 (CTAs per cluster, at most the portable "
                                "8) on a kernel function";
    return success();
  }
  // Triton's pipeline depth: on a kernel (the launch option) or a loop
  // (tl.range(..., num_stages=)).
  if (name == "txl.num_stages") {
    auto n = dyn_cast<IntegerAttr>(attr.getValue());
    int64_t stages = n && n.getValue().getSignificantBits() <= 32 ? n.getValue().getSExtValue() : 0;
    if (stages < 1 || stages > 16)
      return op->emitError() << "'" << name << "' must be an integer in 1..16 (1: no pipelining)";
    if (!isa<FunctionOpInterface>(op) && op->getName().getStringRef() != "scf.for")
      return op->emitError() << "'" << name << "' belongs on a kernel function or an scf.for";
    return success();
  }
  // Set by the tile-copy passes: who owns a shared buffer (a staging buffer
  // reused by each execution of one op, or a pipelined loop's ring).
  if (name == "txl.staging" || name == "txl.ring") {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<SmemAllocOp>(op))
      return op->emitError() << "'" << name << "' is a unit attribute on txl.smem_alloc";
    return success();
  }
  // Set by txl-vectorize-accesses: elements per instruction of a global
  // load/store (a power of two; at most 16 bytes, checked where it lowers).
  if (name == "txl.vector") {
    auto n = dyn_cast<IntegerAttr>(attr.getValue());
    int64_t w = n && n.getValue().getSignificantBits() <= 32 ? n.getValue().getSExtValue() : 0;
    if (w < 1 || w > 16 || !llvm::isPowerOf2_64(w) || !isa<LoadOp, StoreOp>(op))
      return op->emitError() << "'" << name
                             << "' is a power of two in 1..16 on txl.load or txl.store";
    return success();
  }
  // Set by txl-allocate-scratch on an atomic of a scalar pointer: the warps
  // of the group in which one thread updates it.
  if (name == "txl.group_warps") {
    auto n = dyn_cast<IntegerAttr>(attr.getValue());
    int64_t w = n && n.getValue().getSignificantBits() <= 32 ? n.getValue().getSExtValue() : 0;
    if (w < 1 || w > 32 || !llvm::isPowerOf2_64(w) || !isa<AtomicRMWOp, AtomicCASOp>(op))
      return op->emitError() << "'" << name
                             << "' is a power of two in 1..32 on txl.atomic_rmw or txl.atomic_cas";
    return success();
  }
  // The layout a kernel's author gave a tile (Gluon's convert_layout and
  // layout= arguments): a txl.relayout whose result has no layout yet;
  // txl-assign-layouts anchors the result's class to it and removes it.
  if (name == "txl.layout") {
    auto relayout = dyn_cast<RelayoutOp>(op);
    if (!relayout || relayout.getType().getEncoding())
      return op->emitError() << "'" << name
                             << "' belongs on a txl.relayout whose result has no layout";
    std::string why;
    if (failed(LinearLayout::get(relayout.getType().getShape(), attr.getValue(), &why)))
      return op->emitError() << "'" << name << "' " << attr.getValue()
                             << " cannot lay out the tile " << relayout.getType() << ": " << why;
    return success();
  }
  // Set by txl-schedule-loops when a second schedule (without its
  // rescaled-async) is worth comparing; txlc removes it.
  if (name == "txl.rescaled_async") {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<ModuleOp>(op))
      return op->emitError() << "'" << name << "' is a unit attribute on a module";
    return success();
  }
  // Set by the pipeline stages (planned offsets and sizes, a loop schedule).
  if (name == "txl.offset" || name == "txl.shared_bytes" || name == "txl.stage" ||
      name == "txl.order") {
    if (!isa<IntegerAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be an integer";
    return success();
  }
  return op->emitError() << "unknown txl attribute '" << name << "'";
}
