//===- TXLAttrs.td - txl layouts, encodings and enums ------*- tablegen -*-===//
//
// Register layouts (where element (i, j) of a tile lives: register, lane,
// warp) and shared-memory encodings. These attributes describe the layouts;
// the register-tile work makes them compute (layout assignment, conversion).
//
//===----------------------------------------------------------------------===//
#ifndef TXL_ATTRS_TD
#define TXL_ATTRS_TD

include "txl/Dialect/TXL/IR/TXLDialect.td"
include "mlir/IR/EnumAttr.td"

class TXL_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<TXL_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// Shared-memory encodings
//===----------------------------------------------------------------------===//

def TXL_NVMMASharedAttr : TXL_Attr<"NVMMAShared", "nvmma_shared"> {
  let summary = "NVMMA shared-memory swizzle (what TMA writes and wgmma reads)";
  let description = [{
    `#txl.nvmma_shared<swizzle = 128>`: rows of the tile are stored in
    128-byte swizzle atoms (8 rows x 128 B, 16-byte chunks XOR-ed with the row
    index), as TMA's `CU_TENSOR_MAP_SWIZZLE_128B` writes them and wgmma's
    shared-memory descriptors read them. `swizzle` is 0 (none), 32, 64 or 128;
    `transposed` marks an MN-major (rather than K-major) operand.
  }];
  let parameters = (ins "unsigned":$swizzle,
                        DefaultValuedParameter<"bool", "false">:$transposed);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Register (distributed) layouts
//===----------------------------------------------------------------------===//

// A list of unsigned integers in brackets, `[1, 8]`. The default
// ArrayRefParameter syntax (a bare `1, 8`) cannot be parsed back inside
// struct(params): the comma before the next key looks like another element.
def TXL_UnsignedArrayParameter : ArrayRefParameter<"unsigned"> {
  let parser = [{
    [&]() -> ::mlir::FailureOr<::llvm::SmallVector<unsigned>> {
      ::llvm::SmallVector<unsigned> values;
      if ($_parser.parseCommaSeparatedList(::mlir::AsmParser::Delimiter::Square, [&] {
            return $_parser.parseInteger(values.emplace_back());
          }))
        return ::mlir::failure();
      return values;
    }()
  }];
  let printer = [{
    $_printer << '[';
    ::llvm::interleaveComma($_self, $_printer);
    $_printer << ']';
  }];
}

def TXL_BlockedAttr : TXL_Attr<"Blocked", "blocked"> {
  let summary = "blocked register layout (coalesced global access)";
  let description = [{
    Each thread holds `sizePerThread` contiguous elements, a warp's 32 threads
    are laid out `threadsPerWarp`, the CTA's warps `warpsPerCTA`; `order` lists
    the dimensions from fastest to slowest varying.
    `#txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>`
  }];
  let parameters = (ins TXL_UnsignedArrayParameter:$sizePerThread,
                        TXL_UnsignedArrayParameter:$threadsPerWarp,
                        TXL_UnsignedArrayParameter:$warpsPerCTA,
                        TXL_UnsignedArrayParameter:$order);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def TXL_NVMMAAttr : TXL_Attr<"NVMMA", "nvmma"> {
  let summary = "MMA accumulator register layout (wgmma m64nNk16 or mma.sync m16n8k16 fragments)";
  let description = [{
    Version 3, the accumulator of Hopper warpgroup MMA: for m64nN each warp
    owns 16 rows; thread `t` holds register `r` at row
    `16*warp + lane/4 + 8*((r/2)%2)`, column `8*(r/4) + 2*(lane%4) + r%2`.
    `#txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>`

    Version 2, the accumulator of mma.sync m16n8k16 (a dot whose M is not a
    whole number of 64-row wgmma steps): the same fragment per warp; warps
    split M in 16-row blocks, then N in 8-column blocks.
    `#txl.nvmma<version = 2, warpsPerCTA = [1, 4], instrShape = [16, 8, 16]>`
  }];
  let parameters = (ins "unsigned":$version,
                        TXL_UnsignedArrayParameter:$warpsPerCTA,
                        TXL_UnsignedArrayParameter:$instrShape);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def TXL_DotOperandAttr : TXL_Attr<"DotOperand", "dot_operand"> {
  let summary = "MMA operand held in registers (A of an RS wgmma; A or B of mma.sync)";
  let description = [{
    Operand `opIdx` (0 = A, 1 = B: mma.sync only) of the MMA whose accumulator
    layout is `parent`,
    with `kWidth` consecutive K elements per 32-bit register pair (2 for
    16-bit types: k16 chunks, 4 for 8-bit types: k32 chunks).
    `#txl.dot_operand<opIdx = 0, parent = #txl.nvmma<...>, kWidth = 2>`
  }];
  let parameters = (ins "unsigned":$opIdx, "::mlir::Attribute":$parent,
                        "unsigned":$kWidth);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def TXL_SliceAttr : TXL_Attr<"Slice", "slice"> {
  let summary = "a parent layout with one dimension removed (row statistics)";
  let description = [{
    The layout of a reduction's result: `parent` with dimension `dim` removed,
    e.g. the row max of a wgmma accumulator is
    `#txl.slice<dim = 1, parent = #txl.nvmma<...>>`.
  }];
  let parameters = (ins "unsigned":$dim, "::mlir::Attribute":$parent);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def TXL_LinearAttr : TXL_Attr<"Linear", "linear"> {
  let summary = "a register layout given by its linear map (any layout)";
  let description = [{
    The LinearLayout itself (see LinearLayout.h): bit k of the register
    index moves to coordinate `register[k]`, bit k of the lane to `lane[k]`,
    bit k of the warp to `warp[k]`, and the coordinates of the set bits are
    XOR-ed. There are always 5 lane bases (32 lanes). Layout assignment gives
    this layout to the results of txl.trans, txl.reshape, txl.join and
    txl.split: their source layout with every basis moved through the op's
    coordinate map, so those ops move no data.
    `#txl.linear<register = [[0, 1]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]]>`
  }];
  let parameters = (ins "unsigned":$rank, ArrayRefParameter<"int64_t">:$registerBases,
                        ArrayRefParameter<"int64_t">:$laneBases,
                        ArrayRefParameter<"int64_t">:$warpBases);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Basis `k` of a flattened list, as a coordinate vector.
    ::llvm::SmallVector<int64_t, 4> getBasis(::llvm::ArrayRef<int64_t> flat, unsigned k) const {
      return ::llvm::SmallVector<int64_t, 4>(flat.slice(k * getRank(), getRank()));
    }
  }];
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def TXL_CacheModifier : I32EnumAttr<"CacheModifier", "load/store cache modifier", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"ca", 1>, I32EnumAttrCase<"cg", 2>,
    I32EnumAttrCase<"wb", 3>, I32EnumAttrCase<"cs", 4>, I32EnumAttrCase<"wt", 5>,
    I32EnumAttrCase<"cv", 6>]> {
  let cppNamespace = "::mlir::txl";
  let genSpecializedAttr = 0;
}
def TXL_CacheModifierAttr : EnumAttr<TXL_Dialect, TXL_CacheModifier, "cache">;

def TXL_EvictionPolicy : I32EnumAttr<"EvictionPolicy", "L2 eviction policy", [
    I32EnumAttrCase<"evict_normal", 0>, I32EnumAttrCase<"evict_first", 1>,
    I32EnumAttrCase<"evict_last", 2>]> {
  let cppNamespace = "::mlir::txl";
  let genSpecializedAttr = 0;
}
def TXL_EvictionPolicyAttr : EnumAttr<TXL_Dialect, TXL_EvictionPolicy, "evict">;

// What a reducing TMA store (cp.reduce.async.bulk.tensor) does with the
// global elements it lands on.
def TXL_TmaReduceKind : I32EnumAttr<"TmaReduceKind", "TMA store reduction", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"min", 1>, I32EnumAttrCase<"max", 2>]> {
  let cppNamespace = "::mlir::txl";
  let genSpecializedAttr = 0;
}
def TXL_TmaReduceKindAttr : EnumAttr<TXL_Dialect, TXL_TmaReduceKind, "tma_reduce">;

// Atomics (txl.atomic_rmw, txl.atomic_cas): the operation, the memory
// ordering and the set of threads it orders against (PTX atom/red).
def TXL_AtomicRMWKind : I32EnumAttr<"AtomicRMWKind", "atomic read-modify-write operation", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"max", 1>, I32EnumAttrCase<"min", 2>,
    I32EnumAttrCase<"umax", 3>, I32EnumAttrCase<"umin", 4>, I32EnumAttrCase<"band", 5, "and">,
    I32EnumAttrCase<"bor", 6, "or">, I32EnumAttrCase<"bxor", 7, "xor">,
    I32EnumAttrCase<"xchg", 8>]> {
  let cppNamespace = "::mlir::txl";
  let genSpecializedAttr = 0;
}
def TXL_AtomicRMWKindAttr : EnumAttr<TXL_Dialect, TXL_AtomicRMWKind, "atomic_kind">;

def TXL_MemSemantic : I32EnumAttr<"MemSemantic", "memory ordering of an atomic", [
    I32EnumAttrCase<"relaxed", 0>, I32EnumAttrCase<"acquire", 1>, I32EnumAttrCase<"release", 2>,
    I32EnumAttrCase<"acq_rel", 3>]> {
  let cppNamespace = "::mlir::txl";
  let genSpecializedAttr = 0;
}
def TXL_MemSemanticAttr : EnumAttr<TXL_Dialect, TXL_MemSemantic, "sem">;

def TXL_MemScope : I32EnumAttr<"MemScope", "threads an atomic is ordered against", [
    I32EnumAttrCase<"cta", 0>, I32EnumAttrCase<"cluster", 1>, I32EnumAttrCase<"gpu", 2>,
    I32EnumAttrCase<"sys", 3>]> {
  let cppNamespace = "::mlir::txl";
  let genSpecializedAttr = 0;
}
def TXL_MemScopeAttr : EnumAttr<TXL_Dialect, TXL_MemScope, "scope">;

// What a txl.block_load reads for the elements of its block outside the
// parent tensor on its boundary_check dimensions (Triton's padding_option).
def TXL_PaddingOption : I32EnumAttr<"PaddingOption", "padding of a block pointer load", [
    I32EnumAttrCase<"zero", 0>, I32EnumAttrCase<"nan", 1>]> {
  let cppNamespace = "::mlir::txl";
  let genSpecializedAttr = 0;
}
def TXL_PaddingOptionAttr : EnumAttr<TXL_Dialect, TXL_PaddingOption, "padding">;

#endif // TXL_ATTRS_TD
