//===- TileBuilders.cpp - LLVM/PTX builders shared by the tile patterns -----===//
//
// Helpers that emit the per-register code (TileLowering.h): struct packing,
// thread coordinates, predicated global loads and stores, warp shuffles, group
// barriers and shared-memory round trips.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <array>

using namespace mlir;
using namespace mlir::txl;
using namespace mlir::txl::tile;
using Coord = LinearLayout::Coord;

namespace mlir::txl::tile {

SmallVector<Value> unpack(OpBuilder &b, Location loc, Value tile) {
  auto type = cast<LLVM::LLVMStructType>(tile.getType());
  SmallVector<Value> regs;
  for (int64_t i = 0, e = type.getBody().size(); i < e; ++i)
    regs.push_back(LLVM::ExtractValueOp::create(b, loc, tile, ArrayRef<int64_t>{i}));
  return regs;
}

Value pack(OpBuilder &b, Location loc, Type structType, ArrayRef<Value> regs) {
  Value tile = LLVM::PoisonOp::create(b, loc, structType);
  for (auto [i, r] : llvm::enumerate(regs))
    tile = LLVM::InsertValueOp::create(b, loc, tile, r, ArrayRef<int64_t>{int64_t(i)});
  return tile;
}

Value intConst(OpBuilder &b, Location loc, Type type, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, v));
}

/// The part of coordinate `dim` that comes from the thread's lane and warp
/// bits. Bit k of the lane (tid % 32) is bit k of tid; bit k of the warp
/// within the layout ((tid / 32) % 2^#warp-bases) is bit 5 + k of tid. Each
/// set bit XORs its basis in; bases are compile-time constants. Runs of tid
/// bits whose bases double from one bit to the next (the common case: lanes
/// then warps walking one dimension) are extracted together as
/// `((tid >> first) & mask) * basis`, since their terms occupy distinct bits.
Value threadCoordinate(OpBuilder &b, Location loc, const LinearLayout &layout, unsigned dim) {
  Type i32 = b.getI32Type();
  // Basis value of each tid bit along `dim`.
  SmallVector<int64_t> bitValue(5, 0);
  for (auto [k, basis] : llvm::enumerate(layout.getLaneBases()))
    if (k < 5)
      bitValue[k] = basis[dim];
  for (const Coord &basis : layout.getWarpBases())
    bitValue.push_back(basis[dim]);

  Value tid = getThreadId(b, loc);
  Value acc;
  for (size_t bit = 0; bit < bitValue.size();) {
    int64_t value = bitValue[bit];
    if (value == 0) {
      ++bit;
      continue;
    }
    size_t len = 1;
    if (llvm::isPowerOf2_64(value))
      while (bit + len < bitValue.size() && bitValue[bit + len] == value << len)
        ++len;
    Value field = bit ? Value(LLVM::LShrOp::create(b, loc, tid, intConst(b, loc, i32, bit))) : tid;
    field = LLVM::AndOp::create(b, loc, field, intConst(b, loc, i32, (int64_t(1) << len) - 1));
    if (value != 1)
      field = LLVM::MulOp::create(b, loc, field, intConst(b, loc, i32, value));
    acc = acc ? Value(LLVM::XOrOp::create(b, loc, acc, field)) : field;
    bit += len;
  }
  return acc ? acc : intConst(b, loc, i32, 0);
}

/// `v` moved into the integer register inline PTX passes it in: floats and
/// pointers by their bits, i1 and bytes widened to 16 bits (PTX has no 8-bit
/// registers).
Value toAsmInt(OpBuilder &b, Location loc, Value v, unsigned memBits, unsigned regBits) {
  Type memInt = b.getIntegerType(memBits);
  Type type = v.getType();
  if (isa<LLVM::LLVMPointerType>(type))
    v = LLVM::PtrToIntOp::create(b, loc, memInt, v);
  else if (isa<FloatType>(type))
    v = LLVM::BitcastOp::create(b, loc, memInt, v);
  else if (type.getIntOrFloatBitWidth() < memBits)
    v = LLVM::ZExtOp::create(b, loc, memInt, v);
  if (memBits < regBits)
    v = LLVM::ZExtOp::create(b, loc, b.getIntegerType(regBits), v);
  return v;
}

Value fromAsmInt(OpBuilder &b, Location loc, Value v, Type eltType, unsigned memBits) {
  if (isa<LLVM::LLVMPointerType>(eltType))
    return LLVM::IntToPtrOp::create(b, loc, eltType, v);
  if (auto f = dyn_cast<FloatType>(eltType)) {
    if (v.getType().getIntOrFloatBitWidth() > memBits)
      v = LLVM::TruncOp::create(b, loc, b.getIntegerType(memBits), v);
    return LLVM::BitcastOp::create(b, loc, f, v);
  }
  if (v.getType().getIntOrFloatBitWidth() > eltType.getIntOrFloatBitWidth())
    v = LLVM::TruncOp::create(b, loc, eltType, v);
  return v;
}

/// The address operand of an inline ld/st and its state space: global
/// pointers as `.global`, everything else through a generic address.
std::pair<Value, StringRef> asmAddress(OpBuilder &b, Location loc, Value ptr) {
  auto type = cast<LLVM::LLVMPointerType>(ptr.getType());
  if (type.getAddressSpace() == 1)
    return {ptr, ".global"};
  if (type.getAddressSpace() != 0)
    ptr = LLVM::AddrSpaceCastOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()), ptr);
  return {ptr, ""};
}

StringRef loadCacheSuffix(CacheModifier c) {
  switch (c) {
  case CacheModifier::ca:
    return ".ca";
  case CacheModifier::cg:
    return ".cg";
  case CacheModifier::cs:
    return ".cs";
  case CacheModifier::cv:
    return ".cv";
  default: // none; wb and wt are store-only hints
    return "";
  }
}

StringRef storeCacheSuffix(CacheModifier c) {
  switch (c) {
  case CacheModifier::wb:
    return ".wb";
  case CacheModifier::cg:
    return ".cg";
  case CacheModifier::cs:
    return ".cs";
  case CacheModifier::wt:
    return ".wt";
  default: // none; ca and cv are load-only hints
    return "";
  }
}

/// PTX register constraint for a value of `regBits`.
char constraintFor(unsigned regBits) { return regBits == 16 ? 'h' : regBits == 32 ? 'r' : 'l'; }

/// One element load. Unmasked loads without a cache hint are plain
/// llvm.loads; otherwise inline PTX `@p ld` with the result tied to `other`,
/// so a masked-off element never reads memory (it may be out of bounds) and
/// keeps `other`. The asm is marked as having side effects: it has no memory
/// operands, so LLVM would otherwise move it across stores.
Value emitLoad(OpBuilder &b, Location loc, LoadOp op, Value ptr, Value mask, Value other,
               Type eltType) {
  unsigned memBits = memoryBits(eltType);
  StringRef cache = op.getIsVolatile() ? "" : loadCacheSuffix(op.getCache());
  if (!mask && cache.empty())
    return LLVM::LoadOp::create(b, loc, eltType, ptr, memBits / 8, op.getIsVolatile());
  unsigned regBits = std::max(memBits, 16u);
  Type regType = b.getIntegerType(regBits);
  Value init = other ? toAsmInt(b, loc, other, memBits, regBits) : intConst(b, loc, regType, 0);
  Value pred = mask ? mask : intConst(b, loc, b.getI1Type(), 1);
  auto [addr, space] = asmAddress(b, loc, ptr);
  std::string asmText;
  llvm::raw_string_ostream(asmText) << "@$2 ld" << (op.getIsVolatile() ? ".volatile" : "") << space
                                    << cache << ".b" << memBits << " $0, [$1];";
  std::string constraints = std::string("=") + constraintFor(regBits) + ",l,b,0";
  auto asmOp = createInlinePtx(b, loc, regType, ValueRange{addr, pred, init}, asmText, constraints);
  return fromAsmInt(b, loc, asmOp.getResult(0), eltType, memBits);
}

/// The type a 32-bit word of narrow elements is viewed as: <2 x bf16>,
/// <2 x f16>, <2 x i16>, <4 x i8> (i1 travels as i8). Words are built and
/// taken apart through this vector (insertelement / extractelement + one
/// bitcast), as Triton does: LLVM's SLP vectorizer then sees each word's
/// elements as one vector, packs the elementwise math on them into bf16x2 /
/// f16x2 instructions and keeps each word's chain together, instead of the
/// shift/or/trunc bit surgery it cannot see through (which left every op of a
/// tile in its own block of N scalar instructions, all N values live: 87
/// registers against Triton's 32 in a bf16 row kernel).
VectorType wordVectorType(Type eltType, unsigned memBits) {
  Type lane = isa<BFloat16Type, Float16Type>(eltType) && memBits == 16
                  ? eltType
                  : Type(IntegerType::get(eltType.getContext(), memBits));
  return VectorType::get({int64_t(32 / memBits)}, lane);
}

/// The raw bits of `values` (memBits each, 8 to 64, together 2 to 16 bytes)
/// as PTX operand words: b32 words, or one b16 word for 2 bytes.
SmallVector<Value> packWords(OpBuilder &b, Location loc, ArrayRef<Value> values, unsigned memBits) {
  unsigned totalBits = memBits * values.size();
  unsigned wordBits = totalBits < 32 ? 16 : 32;
  Type word = b.getIntegerType(wordBits);
  SmallVector<Value> words;
  if (wordBits == 32 && memBits < 32) {
    // Narrow elements: each word a vector of them, bitcast to i32.
    VectorType vecType = wordVectorType(values.front().getType(), memBits);
    unsigned perWord = 32 / memBits;
    for (unsigned w = 0; w * perWord < values.size(); ++w) {
      Value vec = LLVM::PoisonOp::create(b, loc, vecType);
      for (unsigned k = 0; k < perWord; ++k) {
        Value v = values[w * perWord + k];
        if (v.getType() != vecType.getElementType())
          v = toAsmInt(b, loc, v, memBits, memBits);
        vec = LLVM::InsertElementOp::create(b, loc, vec, v, intConst(b, loc, b.getI32Type(), k));
      }
      words.push_back(LLVM::BitcastOp::create(b, loc, word, vec));
    }
    return words;
  }
  for (auto [i, v] : llvm::enumerate(values)) {
    Value bits = toAsmInt(b, loc, v, memBits, memBits);
    if (memBits == 64) { // two words, low first
      words.push_back(LLVM::TruncOp::create(b, loc, word, bits));
      Value hi = LLVM::LShrOp::create(b, loc, bits, intConst(b, loc, bits.getType(), 32));
      words.push_back(LLVM::TruncOp::create(b, loc, word, hi));
      continue;
    }
    unsigned perWord = wordBits / memBits, slot = i % perWord;
    Value w = memBits == wordBits ? bits : Value(LLVM::ZExtOp::create(b, loc, word, bits));
    if (slot)
      w = LLVM::ShlOp::create(b, loc, w, intConst(b, loc, word, slot * memBits));
    if (slot == 0)
      words.push_back(w);
    else
      words.back() = LLVM::OrOp::create(b, loc, words.back(), w);
  }
  return words;
}

/// The `count` elements of `eltType` that packWords packed into `words`.
SmallVector<Value> unpackWords(OpBuilder &b, Location loc, ArrayRef<Value> words, int64_t count,
                               Type eltType, unsigned memBits) {
  SmallVector<Value> out;
  Type memInt = b.getIntegerType(memBits);
  if (memBits < 32 && words[0].getType().getIntOrFloatBitWidth() == 32) {
    // Narrow elements: each word viewed as a vector of them (see packWords).
    VectorType vecType = wordVectorType(eltType, memBits);
    unsigned perWord = 32 / memBits;
    SmallVector<Value> vecs;
    for (Value w : words)
      vecs.push_back(LLVM::BitcastOp::create(b, loc, vecType, w));
    for (int64_t i = 0; i < count; ++i) {
      Value v = LLVM::ExtractElementOp::create(b, loc, vecs[i / perWord],
                                               intConst(b, loc, b.getI32Type(), i % perWord));
      out.push_back(v.getType() == eltType ? v : fromAsmInt(b, loc, v, eltType, memBits));
    }
    return out;
  }
  for (int64_t i = 0; i < count; ++i) {
    Value bits;
    if (memBits == 64) {
      Value lo = LLVM::ZExtOp::create(b, loc, memInt, words[2 * i]);
      Value hi = LLVM::ZExtOp::create(b, loc, memInt, words[2 * i + 1]);
      hi = LLVM::ShlOp::create(b, loc, hi, intConst(b, loc, memInt, 32));
      bits = LLVM::OrOp::create(b, loc, hi, lo);
    } else {
      unsigned wordBits = words[0].getType().getIntOrFloatBitWidth();
      unsigned perWord = wordBits / memBits, slot = i % perWord;
      bits = words[i / perWord];
      if (slot)
        bits = LLVM::LShrOp::create(b, loc, bits, intConst(b, loc, bits.getType(), slot * memBits));
      if (memBits < wordBits)
        bits = LLVM::TruncOp::create(b, loc, memInt, bits);
    }
    out.push_back(fromAsmInt(b, loc, bits, eltType, memBits));
  }
  return out;
}

/// `count` consecutive elements from `ptr` (aligned to their size) in one
/// access: an llvm vector load, or under a mask (one predicate for all) or a
/// cache hint inline PTX `@p ld.v<n>.b32` whose outputs start as `others`,
/// so masked-off lanes keep them.
SmallVector<Value> emitVectorLoad(OpBuilder &b, Location loc, LoadOp op, Value ptr, Value mask,
                                  ArrayRef<Value> others, Type eltType, int64_t count) {
  unsigned memBits = memoryBits(eltType);
  StringRef cache = loadCacheSuffix(op.getCache());
  if (!mask && cache.empty()) {
    Type lane = memBits < 32 ? wordVectorType(eltType, memBits).getElementType()
                             : Type(b.getIntegerType(memBits));
    auto vecType = VectorType::get({count}, lane);
    Value vec = LLVM::LoadOp::create(b, loc, vecType, ptr, memBits / 8 * count);
    SmallVector<Value> out;
    for (int64_t i = 0; i < count; ++i) {
      Value v = LLVM::ExtractElementOp::create(b, loc, vec, intConst(b, loc, b.getI32Type(), i));
      out.push_back(v.getType() == eltType ? v : fromAsmInt(b, loc, v, eltType, memBits));
    }
    return out;
  }
  SmallVector<Value> init;
  if (!others.empty() && others.front()) {
    init = packWords(b, loc, others, memBits);
  } else {
    unsigned wordBits = memBits * count < 32 ? 16 : 32;
    init.assign(std::max<int64_t>(1, memBits * count / wordBits),
                intConst(b, loc, b.getIntegerType(wordBits), 0));
  }
  int64_t n = init.size();
  unsigned wordBits = init.front().getType().getIntOrFloatBitWidth();
  Value pred = mask ? mask : intConst(b, loc, b.getI1Type(), 1);
  auto [addr, space] = asmAddress(b, loc, ptr);
  std::string asmText, constraints;
  llvm::raw_string_ostream os(asmText), cs(constraints);
  os << "@$" << n + 1 << " ld" << space << cache << (n > 1 ? ".v" + std::to_string(n) : "") << ".b"
     << wordBits << " ";
  os << (n > 1 ? "{" : "");
  for (int64_t i = 0; i < n; ++i) {
    os << (i ? ", " : "") << "$" << i;
    cs << (i ? "," : "") << "=" << constraintFor(wordBits);
  }
  os << (n > 1 ? "}" : "") << ", [$" << n << "];";
  cs << ",l,b";
  for (int64_t i = 0; i < n; ++i)
    cs << "," << i;
  SmallVector<Value> operands{addr, pred};
  operands.append(init.begin(), init.end());
  Type resultType = init.front().getType();
  if (n > 1)
    resultType = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                  SmallVector<Type>(n, init.front().getType()));
  auto asmOp = createInlinePtx(b, loc, resultType, operands, asmText, constraints);
  SmallVector<Value> words;
  if (n == 1)
    words.push_back(asmOp.getResult(0));
  else
    for (int64_t i = 0; i < n; ++i)
      words.push_back(LLVM::ExtractValueOp::create(b, loc, asmOp.getResult(0), i));
  return unpackWords(b, loc, words, count, eltType, memBits);
}

/// `values` (consecutive elements, aligned to their size) to `ptr` in one
/// access: an llvm vector store, or inline PTX `@p st.v<n>.b32`.
void emitVectorStore(OpBuilder &b, Location loc, StoreOp op, Value ptr, ArrayRef<Value> values,
                     Value mask) {
  unsigned memBits = memoryBits(values.front().getType());
  StringRef cache = storeCacheSuffix(op.getCache());
  if (!mask && cache.empty()) {
    Type lane = memBits < 32 ? wordVectorType(values.front().getType(), memBits).getElementType()
                             : Type(b.getIntegerType(memBits));
    auto vecType = VectorType::get({int64_t(values.size())}, lane);
    Value vec = LLVM::PoisonOp::create(b, loc, vecType);
    for (auto [i, v] : llvm::enumerate(values))
      vec = LLVM::InsertElementOp::create(
          b, loc, vec, v.getType() == lane ? v : toAsmInt(b, loc, v, memBits, memBits),
          intConst(b, loc, b.getI32Type(), i));
    LLVM::StoreOp::create(b, loc, vec, ptr, memBits / 8 * values.size());
    return;
  }
  SmallVector<Value> words = packWords(b, loc, values, memBits);
  int64_t n = words.size();
  unsigned wordBits = words.front().getType().getIntOrFloatBitWidth();
  Value pred = mask ? mask : intConst(b, loc, b.getI1Type(), 1);
  auto [addr, space] = asmAddress(b, loc, ptr);
  std::string asmText, constraints;
  llvm::raw_string_ostream os(asmText), cs(constraints);
  os << "@$" << n + 1 << " st" << space << cache << (n > 1 ? ".v" + std::to_string(n) : "") << ".b"
     << wordBits << " [$0], " << (n > 1 ? "{" : "");
  cs << "l";
  for (int64_t i = 0; i < n; ++i) {
    os << (i ? ", " : "") << "$" << i + 1;
    cs << "," << constraintFor(wordBits);
  }
  os << (n > 1 ? "}" : "") << ";";
  cs << ",b";
  SmallVector<Value> operands{addr};
  operands.append(words.begin(), words.end());
  operands.push_back(pred);
  createInlinePtx(b, loc, Type(), operands, asmText, constraints);
}

/// The vector width txl-vectorize-accesses proved for a load or store
/// through `ptrs` (1 without the attribute). The alignment proof is the
/// pass's; what the lowering relies on itself, that registers come in runs
/// of that many consecutive elements, is checked against the layout, so a
/// hand-written width the layout does not have falls back to one element.
int64_t vectorWidthOf(Operation *op, Value ptrs) {
  auto attr = op->getAttrOfType<IntegerAttr>(kVectorAttr);
  auto tile = dyn_cast<RankedTensorType>(ptrs.getType());
  if (!attr || attr.getInt() <= 1 || !tile || tile.getRank() == 0)
    return 1;
  auto layout = LinearLayout::get(tile.getShape(), tile.getEncoding());
  if (failed(layout) || registerRun(*layout, tile.getRank() - 1) % attr.getInt() != 0)
    return 1;
  return attr.getInt();
}

/// One element store: llvm.store, or inline PTX `@p st` under a mask.
void emitStore(OpBuilder &b, Location loc, StoreOp op, Value ptr, Value value, Value mask) {
  unsigned memBits = memoryBits(value.getType());
  StringRef cache = storeCacheSuffix(op.getCache());
  if (!mask && cache.empty()) {
    LLVM::StoreOp::create(b, loc, value, ptr, memBits / 8);
    return;
  }
  unsigned regBits = std::max(memBits, 16u);
  Value bits = toAsmInt(b, loc, value, memBits, regBits);
  Value pred = mask ? mask : intConst(b, loc, b.getI1Type(), 1);
  auto [addr, space] = asmAddress(b, loc, ptr);
  std::string asmText;
  llvm::raw_string_ostream(asmText)
      << "@$2 st" << space << cache << ".b" << memBits << " [$0], $1;";
  std::string constraints = std::string("l,") + constraintFor(regBits) + ",b";
  createInlinePtx(b, loc, Type(), ValueRange{addr, bits, pred}, asmText, constraints);
}

/// `v` from another lane of the warp: shfl.sync `kind` with `laneArg` (the
/// XOR mask for bfly, the source lane for idx). shfl moves 32 bits: narrower
/// values travel widened, 64-bit ones (and pointers) in halves.
Value shuffle(OpBuilder &b, Location loc, Value v, Value laneArg, NVVM::ShflKind kind) {
  Type i32 = b.getI32Type();
  auto shfl = [&](Value x) -> Value {
    return NVVM::ShflOp::create(b, loc, x.getType(), intConst(b, loc, i32, -1), x, laneArg,
                                intConst(b, loc, i32, 0x1f), kind, UnitAttr());
  };
  Type type = v.getType();
  if (type.isF32() || type.isInteger(32))
    return shfl(v);
  bool isPtr = isa<LLVM::LLVMPointerType>(type);
  unsigned bits = isPtr ? 64 : type.getIntOrFloatBitWidth();
  Type intType = b.getIntegerType(bits);
  Value x = v;
  if (isPtr)
    x = LLVM::PtrToIntOp::create(b, loc, intType, v);
  else if (isa<FloatType>(type))
    x = LLVM::BitcastOp::create(b, loc, intType, v);
  if (bits < 32) {
    x = LLVM::TruncOp::create(b, loc, intType, shfl(LLVM::ZExtOp::create(b, loc, i32, x)));
  } else {
    Value lo = shfl(LLVM::TruncOp::create(b, loc, i32, x));
    Value hi = shfl(LLVM::TruncOp::create(
        b, loc, i32, LLVM::LShrOp::create(b, loc, x, intConst(b, loc, intType, 32))));
    Value wideHi = LLVM::ShlOp::create(b, loc, LLVM::ZExtOp::create(b, loc, intType, hi),
                                       intConst(b, loc, intType, 32));
    x = LLVM::OrOp::create(b, loc, wideHi, LLVM::ZExtOp::create(b, loc, intType, lo));
  }
  if (isPtr)
    return LLVM::IntToPtrOp::create(b, loc, type, x);
  return isa<FloatType>(type) ? Value(LLVM::BitcastOp::create(b, loc, type, x)) : x;
}

/// `v` from the lane `lane ^ mask` (shfl.sync.bfly).
Value shuffleXor(OpBuilder &b, Location loc, Value v, int64_t mask) {
  return shuffle(b, loc, v, intConst(b, loc, b.getI32Type(), mask), NVVM::ShflKind::bfly);
}

/// The lane of this thread (threadIdx.x % 32).
Value laneId(OpBuilder &b, Location loc) {
  return LLVM::AndOp::create(b, loc, getThreadId(b, loc), intConst(b, loc, b.getI32Type(), 31));
}

/// values[table[lane]] for this thread's lane, where `table` gives a value
/// index per lane (-1: any). A select per extra candidate, on the bit of a
/// 32-bit lane mask: ((mask >> lane) & 1).
Value selectByLane(OpBuilder &b, Location loc, ArrayRef<int64_t> table, ArrayRef<Value> values,
                   Value lane) {
  SmallVector<int64_t> candidates;
  for (int64_t t : table)
    if (t >= 0 && !llvm::is_contained(candidates, t))
      candidates.push_back(t);
  Type i32 = b.getI32Type();
  Value result = values[candidates.front()];
  for (int64_t c : ArrayRef<int64_t>(candidates).drop_front()) {
    uint32_t mask = 0;
    for (auto [l, t] : llvm::enumerate(table))
      if (t == c)
        mask |= uint32_t(1) << l;
    Value bit = LLVM::LShrOp::create(b, loc, intConst(b, loc, i32, int32_t(mask)), lane);
    bit = LLVM::AndOp::create(b, loc, bit, intConst(b, loc, i32, 1));
    Value pred =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, bit, intConst(b, loc, i32, 0));
    result = LLVM::SelectOp::create(b, loc, pred, values[c], result);
  }
  return result;
}

/// Synchronizes the `warps` warps of one layout group (the warps a layout
/// spans; --txl-allocate-scratch checked that one of these fits): one warp
/// with bar.warp.sync; a group no wider than the executing role (a
/// warpgroup, or the CTA of a num_warps = 8 kernel) with the role's named
/// barrier (other warpgroups may run other code, and a group narrower than
/// its role runs replicated in each of its warpgroups); a wider one with
/// barrier 0. All three order the group's shared-memory accesses.
void groupBarrier(OpBuilder &b, Location loc, int64_t warps) {
  if (warps == 1) {
    NVVM::SyncWarpOp::create(b, loc, intConst(b, loc, b.getI32Type(), -1));
    return;
  }
  int64_t roleWarps = getRoleWarps(b.getInsertionBlock()->getParentOp());
  if (warps <= roleWarps)
    syncRole(b, loc, roleWarps);
  else
    NVVM::Barrier0Op::create(b, loc);
}

/// Stores `values` (1, 2, 4, ... elements) at `addr` as one access of
/// their raw bits (`memBits` each).
void storeBits(OpBuilder &b, Location loc, Value addr, ArrayRef<Value> values, unsigned memBits) {
  SmallVector<Value> bits;
  for (Value v : values)
    bits.push_back(toAsmInt(b, loc, v, memBits, memBits));
  unsigned bytes = memBits / 8 * values.size();
  if (bits.size() == 1) {
    LLVM::StoreOp::create(b, loc, bits.front(), addr, bytes);
    return;
  }
  auto vecType = VectorType::get({int64_t(bits.size())}, b.getIntegerType(memBits));
  Value vec = LLVM::PoisonOp::create(b, loc, vecType);
  for (auto [i, v] : llvm::enumerate(bits))
    vec = LLVM::InsertElementOp::create(b, loc, vec, v, intConst(b, loc, b.getI32Type(), i));
  LLVM::StoreOp::create(b, loc, vec, addr, bytes);
}

/// Loads `count` elements of `eltType` stored as raw bits by storeBits.
SmallVector<Value> loadBits(OpBuilder &b, Location loc, Value addr, int64_t count, Type eltType,
                            unsigned memBits) {
  Type intType = b.getIntegerType(memBits);
  unsigned bytes = memBits / 8 * count;
  SmallVector<Value> out;
  if (count == 1) {
    Value v = LLVM::LoadOp::create(b, loc, intType, addr, bytes);
    out.push_back(fromAsmInt(b, loc, v, eltType, memBits));
    return out;
  }
  auto vecType = VectorType::get({count}, intType);
  Value vec = LLVM::LoadOp::create(b, loc, vecType, addr, bytes);
  for (int64_t i = 0; i < count; ++i) {
    Value v = LLVM::ExtractElementOp::create(b, loc, vec, intConst(b, loc, b.getI32Type(), i));
    out.push_back(fromAsmInt(b, loc, v, eltType, memBits));
  }
  return out;
}

/// Element offset (i32) of `coords` in a row-major buffer of `shape` whose
/// rows (last dimension) hold `rowElems` elements, padding included.
Value rowMajorOffset(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, int64_t rowElems,
                     ArrayRef<Value> coords) {
  Type i32 = b.getI32Type();
  Value row;
  for (size_t d = 0; d + 1 < shape.size(); ++d) {
    row = row ? Value(LLVM::MulOp::create(b, loc, row, intConst(b, loc, i32, shape[d]))) : row;
    row = row ? Value(LLVM::AddOp::create(b, loc, row, coords[d])) : coords[d];
  }
  if (!row)
    return coords.back();
  Value base = LLVM::MulOp::create(b, loc, row, intConst(b, loc, i32, rowElems));
  return LLVM::AddOp::create(b, loc, base, coords.back());
}

/// The elements of a register run that one access moves: the layout's
/// contiguous registers, at most 16 bytes, and no more than keeps every
/// access aligned in a buffer of `rowElems`-element rows and `stageBytes`.
int64_t accessWidth(const LinearLayout &layout, unsigned memBits, int64_t rowElems,
                    int64_t stageBytes) {
  int64_t bytes = memBits / 8;
  int64_t vec = std::min<int64_t>(layout.getContiguousRegs(layout.getShape().size() - 1),
                                  std::max<int64_t>(1, 16 / bytes));
  while (vec > 1 && (rowElems % vec != 0 || stageBytes % (vec * bytes) != 0))
    vec /= 2;
  return vec;
}

/// Moves this thread's registers `regs` of layout `src` to layout `dst`
/// through the scratch view `base` (row-major, rows of `rowElems`): every
/// thread stores its registers, the group syncs, every thread loads its new
/// ones. A first barrier makes sure the group finished reading the scratch
/// before it is written again (a loop, or another buffer sharing bytes).
SmallVector<Value> relayoutThroughShared(OpBuilder &b, Location loc, const LinearLayout &src,
                                         const LinearLayout &dst, ArrayRef<Value> regs, Value base,
                                         SmemType view, Type eltType) {
  unsigned memBits = memoryBits(eltType);
  int64_t bytes = memBits / 8;
  ArrayRef<int64_t> shape = src.getShape();
  int64_t rowElems = view.getShape().back();
  int64_t stageBytes = view.getStageBytes();
  unsigned rank = shape.size();
  int64_t warps = std::max(src.getNumWarps(), dst.getNumWarps());
  auto address = [&](const ThreadCoords &tc, int64_t reg) {
    SmallVector<Value> coords;
    for (unsigned d = 0; d < rank; ++d)
      coords.push_back(tc.get(b, loc, reg, d));
    Value offset = rowMajorOffset(b, loc, shape, rowElems, coords);
    Value byteOffset = LLVM::MulOp::create(b, loc, offset, intConst(b, loc, b.getI32Type(), bytes));
    return addBytes(b, loc, base, byteOffset);
  };

  groupBarrier(b, loc, warps);
  ThreadCoords from(b, loc, src);
  int64_t inVec = accessWidth(src, memBits, rowElems, stageBytes);
  for (int64_t r = 0; r < src.getNumRegs(); r += inVec)
    storeBits(b, loc, address(from, r), regs.slice(r, inVec), memBits);
  groupBarrier(b, loc, warps);
  ThreadCoords to(b, loc, dst);
  int64_t outVec = accessWidth(dst, memBits, rowElems, stageBytes);
  SmallVector<Value> out;
  for (int64_t r = 0; r < dst.getNumRegs(); r += outVec)
    llvm::append_range(out, loadBits(b, loc, address(to, r), outVec, eltType, memBits));
  return out;
}

/// Moves this thread's registers `regs` of layout `src` to `dst` with warp
/// shuffles (src.getWarpShuffleTo(dst) succeeded). For destination register
/// r, lane l needs register s(r, l) of lane t(r, l) (WarpShuffle::source).
/// One shfl.sync.idx per register: every lane reads lane t(r, l), and every
/// lane sends the register its readers want (the same for all of them, as
/// getWarpShuffleTo checked), chosen by its own lane (selectByLane) when
/// that depends on the lane. A register every lane finds in itself needs no
/// shuffle.
SmallVector<Value> relayoutByShuffles(OpBuilder &b, Location loc, const LinearLayout &src,
                                      const LinearLayout &dst, ArrayRef<Value> regs) {
  LinearLayout::WarpShuffle plan = *src.getWarpShuffleTo(dst);
  int64_t numLanes = dst.getNumLanes();
  Type i32 = b.getI32Type();
  Value lane = laneId(b, loc);
  // The source lane is linear in the destination lane: t(r, l) = t(r, 0) ^ T(l).
  Value laneTerm;
  bool identity = true;
  for (auto [k, t] : llvm::enumerate(plan.laneToLane))
    identity &= t == (int64_t(1) << k);
  if (identity) {
    laneTerm = lane;
  } else {
    laneTerm = intConst(b, loc, i32, 0);
    for (auto [k, t] : llvm::enumerate(plan.laneToLane)) {
      if (t == 0)
        continue;
      Value bit = LLVM::LShrOp::create(b, loc, lane, intConst(b, loc, i32, k));
      bit = LLVM::AndOp::create(b, loc, bit, intConst(b, loc, i32, 1));
      laneTerm = LLVM::XOrOp::create(b, loc, laneTerm,
                                     LLVM::MulOp::create(b, loc, bit, intConst(b, loc, i32, t)));
    }
  }

  SmallVector<Value> out;
  for (int64_t r = 0; r < dst.getNumRegs(); ++r) {
    // send[t]: the register lane t sends (-1: nobody reads lane t).
    SmallVector<int64_t> send(numLanes, -1), own(numLanes);
    bool local = true;
    for (int64_t l = 0; l < numLanes; ++l) {
      auto [sr, sl] = plan.source(r, l);
      send[sl] = sr;
      own[l] = sr;
      local &= sl == l;
    }
    if (local) { // in this thread, in a register that may depend on the lane
      out.push_back(selectByLane(b, loc, own, regs, lane));
      continue;
    }
    Value from = laneTerm;
    if (int64_t base = plan.source(r, 0).second)
      from = LLVM::XOrOp::create(b, loc, laneTerm, intConst(b, loc, i32, base));
    Value value = selectByLane(b, loc, send, regs, lane);
    out.push_back(shuffle(b, loc, value, from, NVVM::ShflKind::idx));
  }
  return out;
}

/// Adds `v` (i32) times `stride` to `acc` (null: zero).
Value addScaled(OpBuilder &b, Location loc, Value acc, Value v, int64_t stride) {
  Type i32 = b.getI32Type();
  Value term =
      stride == 1 ? v : Value(LLVM::MulOp::create(b, loc, v, intConst(b, loc, i32, stride)));
  return acc ? Value(LLVM::AddOp::create(b, loc, acc, term)) : term;
}

} // namespace mlir::txl::tile
