//===- TXLBlockPointerOps.td - block pointer ops -----------*- tablegen -*-===//
//
// Included by TXLOps.td (the dialect's op list, kept under the size limit).
//
//===----------------------------------------------------------------------===//
#ifndef TXL_BLOCK_POINTER_OPS_TD
#define TXL_BLOCK_POINTER_OPS_TD

//===----------------------------------------------------------------------===//
// Block pointers (tl.make_block_ptr / tl.advance / tl.load and tl.store
// through them). What the user wrote, nothing more: how the block is read
// is a lowering decision, taken by txl-expand-block-pointers (first in the
// pipeline) as a masked pointer tile; a later pass may choose TMA instead.
// Verifiers: lib/Dialect/TXL/IR/BlockPointerOps.cpp.
//===----------------------------------------------------------------------===//

def TXL_MakeBlockPtrOp : TXL_Op<"make_block_ptr", [Pure, AttrSizedOperandSegments]> {
  let summary = "a pointer to a block of a parent tensor (tl.make_block_ptr)";
  let description = [{
    The parent tensor starts at `base` and has `shape` and `strides` (in
    elements, one i64 per dimension); the block starts at `offsets` (one i32
    per dimension, Triton's widths). The block shape, element type and order
    are the result type's.

    ```mlir
    %p = txl.make_block_ptr %a, [%m, %k], [%sm, %c1], [%om, %c0]
        : !txl.ptr<f16> -> !txl.block_ptr<tensor<128x64xf16>, order = [1, 0]>
    ```
  }];
  let arguments = (ins TXL_Ptr:$base, Variadic<I64>:$shape, Variadic<I64>:$strides,
                       Variadic<I32>:$offsets);
  let results = (outs TXL_BlockPtr:$result);
  let assemblyFormat = [{
    $base `,` `[` $shape `]` `,` `[` $strides `]` `,` `[` $offsets `]` attr-dict `:`
    qualified(type($base)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def TXL_AdvanceOp : TXL_Op<"advance", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "move a block pointer by whole elements (tl.advance)";
  let description = [{
    The block pointer with `offsets` (one i32 per dimension) added to its
    offsets; the parent tensor stays the same.

    ```mlir
    %q = txl.advance %p, [%c0, %c64] : !txl.block_ptr<tensor<128x64xf16>, order = [1, 0]>
    ```
  }];
  let arguments = (ins TXL_BlockPtr:$ptr, Variadic<I32>:$offsets);
  let results = (outs TXL_BlockPtr:$result);
  let assemblyFormat = "$ptr `,` `[` $offsets `]` attr-dict `:` qualified(type($ptr))";
  let hasVerifier = 1;
}

def TXL_BlockLoadOp : TXL_Op<"block_load"> {
  let summary = "load the block a block pointer points to (tl.load of a block pointer)";
  let description = [{
    The register tile of the block. On the `boundary_check` dimensions the
    elements outside the parent tensor (index < 0 or >= shape) read nothing
    and take `padding` (zero, or NaN for a floating-point block; undefined
    without it); on the other dimensions the block must lie inside the
    parent. `padding` needs a `boundary_check`.

    ```mlir
    %x = txl.block_load %p boundary_check = [0, 1] padding zero
        : !txl.block_ptr<tensor<128x64xf16>, order = [1, 0]> -> tensor<128x64xf16>
    ```
  }];
  let arguments = (ins Arg<TXL_BlockPtr, "", [MemRead]>:$ptr,
                       OptionalAttr<DenseI32ArrayAttr>:$boundary_check,
                       OptionalAttr<TXL_PaddingOptionAttr>:$padding,
                       DefaultValuedAttr<TXL_CacheModifierAttr, "::mlir::txl::CacheModifier::none">:$cache,
                       DefaultValuedAttr<TXL_EvictionPolicyAttr, "::mlir::txl::EvictionPolicy::evict_normal">:$evict,
                       UnitAttr:$isVolatile);
  let results = (outs TXL_Tile:$result);
  let assemblyFormat = [{
    $ptr (`boundary_check` `=` $boundary_check^)? (`padding` $padding^)? attr-dict `:` qualified(type($ptr))
    `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def TXL_BlockStoreOp : TXL_Op<"block_store"> {
  let summary = "store a tile into the block a block pointer points to (tl.store of a block pointer)";
  let description = [{
    `value` is a tile of the block's type, or a scalar of its element type
    (stored into every element). On the `boundary_check` dimensions the
    elements outside the parent tensor are not written; on the other
    dimensions the block must lie inside the parent.

    ```mlir
    txl.block_store %p, %x boundary_check = [0, 1]
        : !txl.block_ptr<tensor<128x64xf16>, order = [1, 0]>, tensor<128x64xf16>
    ```
  }];
  let arguments = (ins Arg<TXL_BlockPtr, "", [MemWrite]>:$ptr, AnyType:$value,
                       OptionalAttr<DenseI32ArrayAttr>:$boundary_check,
                       DefaultValuedAttr<TXL_CacheModifierAttr, "::mlir::txl::CacheModifier::none">:$cache,
                       DefaultValuedAttr<TXL_EvictionPolicyAttr, "::mlir::txl::EvictionPolicy::evict_normal">:$evict);
  let assemblyFormat = [{
    $ptr `,` $value (`boundary_check` `=` $boundary_check^)? attr-dict `:` qualified(type($ptr)) `,`
    type($value)
  }];
  let hasVerifier = 1;
}

#endif // TXL_BLOCK_POINTER_OPS_TD
