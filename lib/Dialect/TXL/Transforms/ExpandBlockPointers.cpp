//===- ExpandBlockPointers.cpp - block pointers as masked pointer tiles ---===//
//
// tl.make_block_ptr / tl.advance / tl.load and tl.store through a block
// pointer reach the compiler as txl.make_block_ptr, txl.advance,
// txl.block_load and txl.block_store: what the user wrote. How the block
// travels is a lowering decision, and this pass takes the one Triton's
// RewriteTensorPointer takes: a load or store through a block pointer is ONE
// txl.load / txl.store (the op `tl.load(ptrs, mask=, other=)` gives) of the
// pointer tile base + sum_d (offsets[d] + arange(block[d])) * strides[d],
// computed in 64 bits, masked by 0 <= index < shape[d] on the
// boundary_check dimensions. Every later stage treats it as any pointer load
// (txl-vectorize-accesses, the cp.async ring of txl-schedule-loops), so the
// pass runs first, before anything reads the IR. (A later pass may instead
// choose TMA for a block pointer whose strides allow it.)
//
// A block pointer value is replaced by its run-time fields, in this order:
// base, shape (i64 per dimension), strides (i64 per dimension), offsets (i32
// per dimension). Through scf.for / scf.if / scf.while a block pointer is
// carried as those fields; the fields the region leaves unchanged (the base,
// shape and strides of a block pointer that a loop advances) are then not
// carried at all but read from outside, so a GEMM loop that advances two
// block pointers along K carries two i32 offsets, and the analyses see the
// loop-invariant values where they are defined. This is done by hand rather
// than by the dialect-conversion driver's 1:N structural patterns so that
// the scf ops keep every attribute (the loop pipeliner reads them) and the
// unchanged fields can be dropped in the same walk.
//
// The ops built for a load or store are exactly, in order, those the
// frontend built when it expanded block pointers itself (the PTX of every
// kernel stayed byte-identical when the expansion moved here): the same
// choices on constants (a constant zero offset adds nothing and needs no
// lower bound, a unit stride is not multiplied, a constant operand of a tile
// op is a dense constant rather than a splat) and the same broadcasts.
//
//===----------------------------------------------------------------------===//

#include "txl/Dialect/TXL/Transforms/Passes.h"

#include "txl/Dialect/TXL/IR/TXLOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::txl {
#define GEN_PASS_DEF_TXLEXPANDBLOCKPOINTERS
#include "txl/Dialect/TXL/Transforms/Passes.h.inc"
} // namespace mlir::txl

using namespace mlir;
using namespace mlir::txl;

namespace {

bool isBlockPtr(Type t) { return isa<BlockPtrType>(t); }

bool hasBlockPtr(TypeRange types) { return llvm::any_of(types, isBlockPtr); }

/// The types of a block pointer's fields, in field order.
SmallVector<Type> fieldTypes(BlockPtrType type) {
  MLIRContext *ctx = type.getContext();
  int64_t rank = type.getRank();
  SmallVector<Type> types{PtrType::get(ctx, type.getElementType(), 1)};
  types.append(2 * rank, IntegerType::get(ctx, 64));
  types.append(rank, IntegerType::get(ctx, 32));
  return types;
}

/// `types` with each block pointer replaced by its field types, and per
/// expanded slot whether it is a block pointer's field.
void expandTypes(TypeRange types, SmallVectorImpl<Type> &out, SmallVectorImpl<bool> &isField) {
  for (Type t : types) {
    if (auto bp = dyn_cast<BlockPtrType>(t)) {
      SmallVector<Type> f = fieldTypes(bp);
      out.append(f.begin(), f.end());
      isField.append(f.size(), true);
    } else {
      out.push_back(t);
      isField.push_back(false);
    }
  }
}

/// The value of a scalar arith.constant (the frontend's const_value).
TypedAttr scalarConstant(Value v) {
  auto c = v.getDefiningOp<arith::ConstantOp>();
  if (!c || isa<ShapedType>(c.getType()))
    return {};
  return c.getValue();
}

std::optional<int64_t> intConstant(Value v) {
  if (auto attr = dyn_cast_or_null<IntegerAttr>(scalarConstant(v)))
    return attr.getValue().getSExtValue();
  return std::nullopt;
}

/// Builds the ops of one load or store at its position, as the frontend's
/// semantic helpers (arith.py, broadcast.py) built them.
class TileBuilder {
public:
  TileBuilder(Operation *at) : b(at), loc(at->getLoc()) {}

  /// `arith.constant dense<attr>` of `type`.
  Value dense(TypedAttr attr, RankedTensorType type) {
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(type, attr));
  }

  Value denseInt(int64_t v, RankedTensorType type) {
    return dense(b.getIntegerAttr(type.getElementType(), v), type);
  }

  /// A scalar as a tile of `type`: a dense constant when it is a constant
  /// (not a pointer), else txl.splat.
  Value splat(Value scalar, RankedTensorType type) {
    if (TypedAttr c = scalarConstant(scalar))
      return dense(c, type);
    return SplatOp::create(b, loc, type, scalar);
  }

  /// A tile broadcast to `shape` (same rank): itself when it has that shape.
  Value broadcast(Value tile, ArrayRef<int64_t> shape) {
    auto type = cast<RankedTensorType>(tile.getType());
    if (type.getShape() == shape)
      return tile;
    return BroadcastOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()), tile);
  }

  /// The common shape of two tiles of one rank (each dimension equal or 1).
  static SmallVector<int64_t> commonShape(Value x, Value y) {
    ArrayRef<int64_t> a = cast<RankedTensorType>(x.getType()).getShape();
    ArrayRef<int64_t> c = cast<RankedTensorType>(y.getType()).getShape();
    SmallVector<int64_t> shape;
    for (auto [p, q] : llvm::zip_equal(a, c))
      shape.push_back(p == 1 ? q : p);
    return shape;
  }

  /// `x op y` of two tiles broadcast to their common shape (x first).
  template <typename OpT> Value combine(Value x, Value y) {
    SmallVector<int64_t> shape = commonShape(x, y);
    x = broadcast(x, shape);
    y = broadcast(y, shape);
    return OpT::create(b, loc, x, y);
  }

  /// The pointer tile of a block pointer and the mask of its `check`
  /// dimensions (null without any): the frontend's _bp_tile.
  std::pair<Value, Value> tile(BlockPtrType type, ArrayRef<Value> fields, ArrayRef<int32_t> check) {
    int64_t rank = type.getRank();
    Value base = fields[0];
    ArrayRef<Value> shape = fields.slice(1, rank), strides = fields.slice(1 + rank, rank),
                    offsets = fields.slice(1 + 2 * rank, rank);
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    Value offs, mask;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t n = type.getBlockShape()[d];
      Value range =
          MakeRangeOp::create(b, loc, RankedTensorType::get({n}, i32), 0, static_cast<int32_t>(n));
      auto idxType = RankedTensorType::get({n}, i64);
      Value idx = arith::ExtSIOp::create(b, loc, idxType, range);
      std::optional<int64_t> constOff = intConstant(offsets[d]);
      if (constOff != 0) {
        // offsets[d] in 64 bits: a constant is a dense i64 constant, else
        // the sign-extended scalar splatted.
        Value off = constOff ? denseInt(*constOff, idxType)
                             : SplatOp::create(b, loc, idxType,
                                               arith::ExtSIOp::create(b, loc, i64, offsets[d]));
        idx = arith::AddIOp::create(b, loc, idx, off);
      }
      // The index vector as dimension d of a rank-`rank` tile.
      for (int64_t i = 0; i < d; ++i)
        idx = expandDims(idx, 0);
      for (int64_t i = d + 1; i < rank; ++i)
        idx = expandDims(idx, cast<RankedTensorType>(idx.getType()).getRank());
      auto shapedIdx = cast<RankedTensorType>(idx.getType());
      Value term = idx;
      if (intConstant(strides[d]) != 1)
        term = arith::MulIOp::create(b, loc, idx, splat(strides[d], shapedIdx));
      offs = offs ? combine<arith::AddIOp>(offs, term) : term;
      if (!llvm::is_contained(check, d))
        continue;
      Value inside =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, idx, splat(shape[d], shapedIdx));
      // A constant offset >= 0 needs no lower bound.
      if (!constOff || *constOff < 0) {
        Value nonNegative =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, idx, denseInt(0, shapedIdx));
        inside = arith::AndIOp::create(b, loc, nonNegative, inside);
      }
      mask = mask ? combine<arith::AndIOp>(mask, inside) : inside;
    }
    auto offsType = cast<RankedTensorType>(offs.getType());
    Value bases =
        SplatOp::create(b, loc, RankedTensorType::get(offsType.getShape(), base.getType()), base);
    Value ptrs = AddPtrOp::create(b, loc, bases.getType(), bases, offs);
    return {ptrs, mask};
  }

  OpBuilder b;
  Location loc;

private:
  Value expandDims(Value t, int64_t axis) {
    auto type = cast<RankedTensorType>(t.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape.insert(shape.begin() + axis, 1);
    return ExpandDimsOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()), t,
                                static_cast<int32_t>(axis));
  }
};

class Expander {
public:
  LogicalResult expandBlock(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block))
      if (failed(expandOp(&op)))
        return failure();
    return success();
  }

  /// Erases what the walk replaced (none of it has operands left).
  void finish() {
    for (Operation *op : llvm::reverse(dead))
      op->erase();
  }

private:
  /// The fields of each block pointer value met so far.
  DenseMap<Value, SmallVector<Value>> fields;
  /// Replaced ops, erased when the walk ends: their block pointer results
  /// are the keys of `fields` until then.
  SmallVector<Operation *> dead;

  /// Marks `op` replaced. Its operands are dropped now, so that a block
  /// pointer block argument it reads has no user left once its block is
  /// expanded.
  void retire(Operation *op) {
    op->dropAllReferences();
    dead.push_back(op);
  }

  FailureOr<ArrayRef<Value>> fieldsOf(Operation *user, Value bp) {
    auto it = fields.find(bp);
    if (it == fields.end())
      return user->emitOpError()
             << "uses a block pointer that txl-expand-block-pointers cannot trace to its "
                "txl.make_block_ptr (block pointers are made in the kernel, not passed to it)";
    return ArrayRef<Value>(it->second);
  }

  /// `values` with each block pointer replaced by its fields.
  FailureOr<SmallVector<Value>> expandValues(Operation *user, ValueRange values) {
    SmallVector<Value> out;
    for (Value v : values) {
      if (!isBlockPtr(v.getType())) {
        out.push_back(v);
        continue;
      }
      FailureOr<ArrayRef<Value>> f = fieldsOf(user, v);
      if (failed(f))
        return failure();
      out.append(f->begin(), f->end());
    }
    return out;
  }

  /// The same op with other operands and result types, its regions moved
  /// into it and every attribute kept; inserted before `op`.
  static Operation *recreate(Operation *op, ValueRange operands, TypeRange results) {
    OpBuilder b(op);
    Operation *n = Operation::create(op->getLoc(), op->getName(), results, operands,
                                     op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
                                     op->getSuccessors(), op->getNumRegions());
    b.insert(n);
    for (auto [from, to] : llvm::zip_equal(op->getRegions(), n->getRegions()))
      to.takeBody(from);
    return n;
  }

  /// Gives each block pointer argument of `block` (from `firstArg` on, one
  /// slot per field, numbered as `inits`) its fields: a new argument
  /// (inserted before it), or, for a slot `drop` says the loop leaves
  /// unchanged, the value before the loop (`inits`). The block pointer
  /// arguments stay until the block is expanded (eraseBlockPtrArgs).
  void addFieldArgs(Block &block, unsigned firstArg, ArrayRef<Value> inits,
                    const llvm::BitVector *drop) {
    unsigned slot = 0;
    for (unsigned i = firstArg; i < block.getNumArguments(); ++i) {
      BlockArgument arg = block.getArgument(i);
      auto bp = dyn_cast<BlockPtrType>(arg.getType());
      if (!bp) {
        ++slot;
        continue;
      }
      SmallVector<Value> f;
      for (Type t : fieldTypes(bp)) {
        if (drop && drop->test(slot))
          f.push_back(inits[slot]);
        else
          f.push_back(block.insertArgument(i++, t, arg.getLoc()));
        ++slot;
      }
      fields[block.getArgument(i)] = f;
    }
  }

  /// Erases the operands of `term` (from `first` on) in the slots `drop` says.
  static void eraseSlots(Operation *term, unsigned first, const llvm::BitVector &drop) {
    for (int i = static_cast<int>(drop.size()) - 1; i >= 0; --i)
      if (drop.test(i))
        term->eraseOperand(first + i);
  }

  /// The expanded slots of a loop (scf.for / scf.while) that are fields the
  /// loop leaves unchanged. What the body builds for a load depends on
  /// whether a field is a known value (a constant offset or unit stride), so
  /// the unchanged fields must be known before the body is expanded: they
  /// are those a copy of the loop, expanded with every field carried,
  /// yields back unchanged (what the body does to a field does not depend
  /// on whether it is carried).
  FailureOr<llvm::BitVector> unchangedFields(Operation *loop) {
    Expander trial;
    trial.fields = fields;
    OpBuilder b(loop);
    Operation *copy = b.clone(*loop);
    FailureOr<llvm::BitVector> drop = isa<scf::ForOp>(copy)
                                          ? trial.expandFor(cast<scf::ForOp>(copy), nullptr)
                                          : trial.expandWhile(cast<scf::WhileOp>(copy), nullptr);
    copy->erase();
    return drop;
  }

  static void eraseBlockPtrArgs(Block &block) {
    llvm::BitVector erase(block.getNumArguments());
    for (BlockArgument arg : block.getArguments())
      if (isBlockPtr(arg.getType()))
        erase.set(arg.getArgNumber());
    block.eraseArguments(erase);
  }

  /// Records the results of `from` (the op before expansion) as the values
  /// `to` (one per expanded slot): block pointers get their fields, the
  /// others are replaced.
  void mapResults(Operation *from, ArrayRef<Value> to) {
    size_t k = 0;
    for (OpResult r : from->getResults()) {
      if (auto bp = dyn_cast<BlockPtrType>(r.getType())) {
        size_t n = fieldTypes(bp).size();
        fields[r] = SmallVector<Value>(to.slice(k, n));
        k += n;
      } else {
        r.replaceAllUsesWith(to[k++]);
      }
    }
    retire(from);
  }

  LogicalResult expandOp(Operation *op) {
    if (auto make = dyn_cast<MakeBlockPtrOp>(op)) {
      SmallVector<Value> f{make.getBase()};
      llvm::append_range(f, make.getShape());
      llvm::append_range(f, make.getStrides());
      llvm::append_range(f, make.getOffsets());
      fields[make.getResult()] = f;
      retire(op);
      return success();
    }
    if (auto advance = dyn_cast<AdvanceOp>(op))
      return expandAdvance(advance);
    if (auto load = dyn_cast<BlockLoadOp>(op))
      return expandLoad(load);
    if (auto store = dyn_cast<BlockStoreOp>(op))
      return expandStore(store);
    if (isa<scf::YieldOp, scf::ConditionOp>(op)) {
      // The parent op was expanded first: its terminators carry the fields.
      FailureOr<SmallVector<Value>> operands = expandValues(op, op->getOperands());
      if (failed(operands))
        return failure();
      op->setOperands(*operands);
      return success();
    }
    bool carries = hasBlockPtr(op->getOperandTypes()) || hasBlockPtr(op->getResultTypes());
    if (carries) {
      if (isa<scf::ForOp, scf::WhileOp>(op)) {
        FailureOr<llvm::BitVector> drop = unchangedFields(op);
        if (failed(drop))
          return failure();
        if (auto forOp = dyn_cast<scf::ForOp>(op))
          return expandFor(forOp, &*drop);
        return expandWhile(cast<scf::WhileOp>(op), &*drop);
      }
      if (auto ifOp = dyn_cast<scf::IfOp>(op))
        return expandIf(ifOp);
      return op->emitOpError()
             << "takes or returns a block pointer, which txl-expand-block-pointers replaces by "
                "its fields only in txl.advance, txl.block_load, txl.block_store, scf.for, "
                "scf.if and scf.while";
    }
    for (Region &region : op->getRegions())
      for (Block &block : region) {
        if (hasBlockPtr(block.getArgumentTypes()))
          return op->emitOpError() << "has a block pointer block argument, which "
                                      "txl-expand-block-pointers cannot replace by its fields";
        if (failed(expandBlock(block)))
          return failure();
      }
    return success();
  }

  /// The offsets moved; the other fields are the same values (an unchanged
  /// field stays one value, so loops do not carry it).
  LogicalResult expandAdvance(AdvanceOp op) {
    FailureOr<ArrayRef<Value>> in = fieldsOf(op, op.getPtr());
    if (failed(in))
      return failure();
    SmallVector<Value> f(*in);
    int64_t rank = op.getPtr().getType().getRank();
    OpBuilder b(op);
    for (int64_t d = 0; d < rank; ++d) {
      Value &off = f[1 + 2 * rank + d];
      Value delta = op.getOffsets()[d];
      std::optional<int64_t> c = intConstant(delta);
      if (c == 0)
        continue;
      // Two constants fold (the frontend folded scalar constant arithmetic
      // that stays in 32 bits), so the sum still counts as a constant offset.
      std::optional<int64_t> base = intConstant(off);
      if (c && base && *c + *base >= INT32_MIN && *c + *base <= INT32_MAX) {
        off = arith::ConstantOp::create(b, op.getLoc(), b.getI32IntegerAttr(*c + *base));
        continue;
      }
      off = arith::AddIOp::create(b, op.getLoc(), off, delta);
    }
    fields[op.getResult()] = f;
    retire(op);
    return success();
  }

  /// The pointer tile and the (not yet broadcast) mask of a load or store
  /// through `ptr` with `check`, built at `op`.
  struct Access {
    TileBuilder tb;
    RankedTensorType block;
    Value ptrs, mask;
  };
  FailureOr<Access> access(Operation *op, TypedValue<BlockPtrType> ptr,
                           std::optional<ArrayRef<int32_t>> check) {
    FailureOr<ArrayRef<Value>> f = fieldsOf(op, ptr);
    if (failed(f))
      return failure();
    Access a{TileBuilder(op), ptr.getType().getBlockType(), {}, {}};
    std::tie(a.ptrs, a.mask) = a.tb.tile(ptr.getType(), *f, check.value_or(ArrayRef<int32_t>()));
    return a;
  }

  LogicalResult expandLoad(BlockLoadOp op) {
    FailureOr<Access> a = access(op, op.getPtr(), op.getBoundaryCheck());
    if (failed(a))
      return failure();
    auto &[tb, block, ptrs, mask] = *a;
    Value other;
    if (mask) {
      mask = tb.broadcast(mask, block.getShape());
      if (std::optional<PaddingOption> padding = op.getPadding()) {
        Type elt = block.getElementType();
        TypedAttr fill;
        if (*padding == PaddingOption::nan)
          fill = tb.b.getFloatAttr(elt, APFloat::getQNaN(cast<FloatType>(elt).getFloatSemantics()));
        else
          fill = isa<FloatType>(elt) ? TypedAttr(tb.b.getFloatAttr(elt, 0.0))
                                     : TypedAttr(tb.b.getIntegerAttr(elt, 0));
        other = tb.dense(fill, block);
      }
    }
    auto load = LoadOp::create(tb.b, op.getLoc(), block, ptrs, mask, other, op.getCacheAttr(),
                               op.getEvictAttr(), op.getIsVolatileAttr());
    op.getResult().replaceAllUsesWith(load.getResult());
    op->erase();
    return success();
  }

  LogicalResult expandStore(BlockStoreOp op) {
    FailureOr<Access> a = access(op, op.getPtr(), op.getBoundaryCheck());
    if (failed(a))
      return failure();
    auto &[tb, block, ptrs, mask] = *a;
    Value value = op.getValue();
    if (value.getType() != block)
      value = tb.splat(value, block);
    if (mask)
      mask = tb.broadcast(mask, block.getShape());
    StoreOp::create(tb.b, op.getLoc(), ptrs, value, mask, op.getCacheAttr(), op.getEvictAttr());
    op->erase();
    return success();
  }

  /// Copies `from` without the slots `drop` says (operands from
  /// `firstSlotOperand` on, results, and the same slots of the regions'
  /// arguments from `firstSlotArg` on and of their terminators' operands from
  /// `firstSlotTerminatorOperand` on). Returns the copy.
  static Operation *dropSlots(Operation *from, const llvm::BitVector &drop,
                              unsigned firstSlotOperand, unsigned firstSlotArg,
                              unsigned firstSlotTerminatorOperand) {
    SmallVector<Value> operands(from->getOperands().take_front(firstSlotOperand));
    for (auto [i, v] : llvm::enumerate(from->getOperands().drop_front(firstSlotOperand)))
      if (!drop.test(i))
        operands.push_back(v);
    SmallVector<Type> results;
    for (auto [i, t] : llvm::enumerate(from->getResultTypes()))
      if (!drop.test(i))
        results.push_back(t);
    Operation *to = recreate(from, operands, results);
    for (Region &region : to->getRegions())
      for (Block &block : region) {
        llvm::BitVector args(block.getNumArguments());
        for (unsigned i = 0; i < drop.size() && firstSlotArg + i < args.size(); ++i)
          if (drop.test(i))
            args.set(firstSlotArg + i);
        block.eraseArguments(args);
        Operation *term = block.getTerminator();
        for (int i = static_cast<int>(drop.size()) - 1; i >= 0; --i)
          if (drop.test(i))
            term->eraseOperand(firstSlotTerminatorOperand + i);
      }
    return to;
  }

  /// With `drop` (the slots unchangedFields found), the loop carries the
  /// other slots and the op is replaced; without, every slot is carried, the
  /// unchanged ones are returned and the expanded loop is erased again.
  FailureOr<llvm::BitVector> expandFor(scf::ForOp op, const llvm::BitVector *drop) {
    FailureOr<SmallVector<Value>> inits = expandValues(op, op.getInitArgs());
    if (failed(inits))
      return failure();
    SmallVector<Type> types;
    SmallVector<bool> isField;
    expandTypes(op.getResultTypes(), types, isField);
    SmallVector<Value> operands{op.getLowerBound(), op.getUpperBound(), op.getStep()};
    SmallVector<Type> kept;
    for (size_t i = 0; i < types.size(); ++i)
      if (!drop || !drop->test(i)) {
        operands.push_back((*inits)[i]);
        kept.push_back(types[i]);
      }
    Operation *n = recreate(op, operands, kept);
    Block &body = n->getRegion(0).front();
    addFieldArgs(body, 1, *inits, drop);
    if (failed(expandBlock(body)))
      return failure();
    eraseBlockPtrArgs(body);
    Operation *yield = body.getTerminator();
    if (!drop) {
      // A field the body yields as it came, or as the value it had before
      // the loop (a block pointer made again from the same values), keeps
      // that value.
      llvm::BitVector unchanged(types.size());
      for (size_t i = 0; i < types.size(); ++i) {
        Value yielded = yield->getOperand(i);
        if (isField[i] && (yielded == body.getArgument(1 + i) || yielded == (*inits)[i]))
          unchanged.set(i);
      }
      n->erase();
      return unchanged;
    }
    eraseSlots(yield, 0, *drop);
    SmallVector<Value> results;
    for (size_t i = 0, k = 0; i < types.size(); ++i)
      results.push_back(drop->test(i) ? (*inits)[i] : n->getResult(k++));
    mapResults(op, results);
    return *drop;
  }

  LogicalResult expandIf(scf::IfOp op) {
    SmallVector<Type> types;
    SmallVector<bool> isField;
    expandTypes(op.getResultTypes(), types, isField);
    Operation *n = recreate(op, op->getOperands(), types);
    for (Region &region : n->getRegions())
      for (Block &block : region)
        if (failed(expandBlock(block)))
          return failure();
    SmallVector<Value> results(n->getResults());
    auto newIf = cast<scf::IfOp>(n);
    if (!types.empty()) {
      // A field both branches yield as one value is that value.
      Operation *thenYield = newIf.thenBlock()->getTerminator();
      Operation *elseYield = newIf.elseBlock()->getTerminator();
      llvm::BitVector drop(types.size());
      for (size_t i = 0; i < types.size(); ++i)
        if (isField[i] && thenYield->getOperand(i) == elseYield->getOperand(i)) {
          drop.set(i);
          results[i] = thenYield->getOperand(i);
        }
      if (drop.any()) {
        Operation *pruned = dropSlots(n, drop, 1, 0, 0);
        for (size_t i = 0, k = 0; i < types.size(); ++i)
          if (!drop.test(i))
            results[i] = pruned->getResult(k++);
        n->erase();
      }
    }
    mapResults(op, results);
    return success();
  }

  /// As expandFor. A field is unchanged when the condition forwards it as
  /// it came and the body yields it as it came; only where the loop carries
  /// the same values through both regions (as the frontend writes loops).
  FailureOr<llvm::BitVector> expandWhile(scf::WhileOp op, const llvm::BitVector *drop) {
    FailureOr<SmallVector<Value>> inits = expandValues(op, op.getInits());
    if (failed(inits))
      return failure();
    SmallVector<Type> types, initTypes;
    SmallVector<bool> isField, initIsField;
    expandTypes(op.getResultTypes(), types, isField);
    expandTypes(op.getInits().getTypes(), initTypes, initIsField);
    bool aligned = initTypes == types && isField == initIsField;
    SmallVector<Value> operands;
    SmallVector<Type> kept;
    for (size_t i = 0; i < initTypes.size(); ++i)
      if (!drop || !drop->test(i))
        operands.push_back((*inits)[i]);
    for (size_t i = 0; i < types.size(); ++i)
      if (!drop || !drop->test(i))
        kept.push_back(types[i]);
    Operation *n = recreate(op, operands, kept);
    auto loop = cast<scf::WhileOp>(n);
    Block &before = loop.getBefore().front(), &after = loop.getAfter().front();
    addFieldArgs(before, 0, *inits, drop);
    addFieldArgs(after, 0, *inits, drop);
    if (failed(expandBlock(before)) || failed(expandBlock(after)))
      return failure();
    eraseBlockPtrArgs(before);
    eraseBlockPtrArgs(after);
    Operation *condition = before.getTerminator(), *yield = after.getTerminator();
    if (!drop) {
      llvm::BitVector unchanged(types.size());
      for (size_t i = 0; aligned && i < types.size(); ++i) {
        Value forwarded = condition->getOperand(1 + i), yielded = yield->getOperand(i);
        if (isField[i] && (forwarded == before.getArgument(i) || forwarded == (*inits)[i]) &&
            (yielded == after.getArgument(i) || yielded == (*inits)[i]))
          unchanged.set(i);
      }
      n->erase();
      return unchanged;
    }
    // scf.condition's first operand is the condition.
    eraseSlots(condition, 1, *drop);
    eraseSlots(yield, 0, *drop);
    SmallVector<Value> results;
    for (size_t i = 0, k = 0; i < types.size(); ++i)
      results.push_back(drop->test(i) ? (*inits)[i] : n->getResult(k++));
    mapResults(op, results);
    return *drop;
  }
};

struct TXLExpandBlockPointersPass
    : public txl::impl::TXLExpandBlockPointersBase<TXLExpandBlockPointersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool any = false;
    module.walk([&](Operation *op) {
      if (isa<MakeBlockPtrOp>(op) || hasBlockPtr(op->getOperandTypes()))
        any = true;
      return any ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (!any)
      return;
    Expander expander;
    for (Region &region : module->getRegions())
      for (Block &block : region)
        if (failed(expander.expandBlock(block)))
          return signalPassFailure();
    expander.finish();
  }
};

} // namespace
