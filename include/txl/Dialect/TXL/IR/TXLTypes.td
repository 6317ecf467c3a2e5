//===- TXLTypes.td - txl hardware handle types -------------*- tablegen -*-===//
//
// Shared memory, tensor memory, mbarriers, TMA descriptors and global
// pointers are types of their own (not plain tensors as in TXL), so verifiers
// and passes can tell a buffer from a register tile.
//
//===----------------------------------------------------------------------===//
#ifndef TXL_TYPES_TD
#define TXL_TYPES_TD

include "txl/Dialect/TXL/IR/TXLDialect.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "mlir/IR/CommonTypeConstraints.td"

class TXL_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<TXL_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

// A buffer is either a multi-stage allocation (`stages = N`, N >= 1, the
// result of an alloc op) or a view of one stage / a part of a stage (no
// stages, the result of get_buffer, smem_index, smem_subslice, ...).
class TXL_BufferType<string name, string typeMnemonic>
    : TXL_Type<name, typeMnemonic, [ShapedTypeInterface]> {
  let parameters = (ins
    ArrayRefParameter<"int64_t">:$shape,
    "::mlir::Type":$elementType,
    DefaultValuedParameter<"int64_t", "0">:$numStages,
    OptionalParameter<"::mlir::Attribute">:$encoding
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    TypeBuilderWithInferredContext<(ins "::llvm::ArrayRef<int64_t>":$shape,
        "::mlir::Type":$elementType, CArg<"int64_t", "0">:$numStages,
        CArg<"::mlir::Attribute", "{}">:$encoding), [{
      return $_get(elementType.getContext(), shape, elementType, numStages, encoding);
    }]>
  ];
  code extraBufferDecls = [{
    /// True for an allocation with a stage dimension, false for a view.
    bool isMultiStage() const { return getNumStages() > 0; }
    /// The stages of an allocation, 1 for a view.
    int64_t getStageCount() const { return isMultiStage() ? getNumStages() : 1; }
    /// Bytes of one stage (elements are rounded up to whole bytes per tile).
    int64_t getStageBytes() const;
    /// Bytes of all stages.
    int64_t getTotalBytes() const { return getStageBytes() * getStageCount(); }
    // ShapedTypeInterface.
    bool hasRank() const { return true; }
    ::mlir::ShapedType cloneWith(std::optional<::llvm::ArrayRef<int64_t>> shape,
                                 ::mlir::Type elementType) const;
  }];
}

def TXL_SmemType : TXL_BufferType<"Smem", "smem"> {
  let summary = "shared-memory buffer (multi-stage allocation or view)";
  let description = [{
    `!txl.smem<128x64xbf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>` is
    a 3-stage allocation of 128x64 bf16 tiles with a 128-byte NVMMA swizzle;
    `!txl.smem<128x64xbf16>` is a view of one tile. The encoding is optional:
    the SmemAllocs stage picks one from the buffer's users when absent.
  }];
  let extraClassDeclaration = extraBufferDecls # [{
    /// The same tile without the stage dimension (what get_buffer returns).
    SmemType getView() const {
      return SmemType::get(getContext(), getShape(), getElementType(), 0, getEncoding());
    }
  }];
}

def TXL_TmemType : TXL_BufferType<"Tmem", "tmem"> {
  let summary = "tensor-memory buffer (Blackwell, sm_100a)";
  let description = [{
    `!txl.tmem<128x256xf32, stages = 2>`: two 128-lane x 256-column f32
    accumulators. Rows map to TMEM lanes (at most 128), columns to 32-bit TMEM
    columns (at most 512 in all).
  }];
  let extraClassDeclaration = extraBufferDecls # [{
    TmemType getView() const {
      return TmemType::get(getContext(), getShape(), getElementType(), 0, getEncoding());
    }
    /// 32-bit TMEM columns of one stage.
    int64_t getStageColumns() const;
  }];
}

def TXL_MbarType : TXL_Type<"Mbar", "mbar"> {
  let summary = "mbarrier array (`!txl.mbar<N>`) or one mbarrier (`!txl.mbar`)";
  let description = [{
    `!txl.mbar<3>` is an array of three 64-bit mbarriers in shared memory (the
    result of `txl.mbar_alloc`); `!txl.mbar` is one of them (get_buffer).
  }];
  let parameters = (ins DefaultValuedParameter<"int64_t", "0">:$numStages);
  let assemblyFormat = "(`<` $numStages^ `>`)?";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isMultiStage() const { return getNumStages() > 0; }
    int64_t getStageCount() const { return isMultiStage() ? getNumStages() : 1; }
    MbarType getView() const { return MbarType::get(getContext(), 0); }
  }];
}

def TXL_TensorDescType : TXL_Type<"TensorDesc", "tensordesc"> {
  let summary = "TMA tensor descriptor (a CUtensorMap) with its box shape";
  let description = [{
    `!txl.tensordesc<128x64xbf16>` describes a global tensor read or written
    by TMA in 128x64 boxes. An optional shared encoding states the swizzle the
    descriptor was encoded with: `!txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>`.
    The host passes it by value (128 bytes, grid constant).
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t">:$blockShape,
    "::mlir::Type":$elementType,
    OptionalParameter<"::mlir::Attribute">:$encoding
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getBoxBytes() const;
  }];
}

def TXL_PtrType : TXL_Type<"Ptr", "ptr"> {
  let summary = "pointer to an element in global (1) or shared (3) memory";
  let description = [{ `!txl.ptr<bf16>` (global), `!txl.ptr<f32, 3>` (shared). }];
  let parameters = (ins "::mlir::Type":$pointeeType,
                        DefaultValuedParameter<"unsigned", "1">:$addressSpace);
  let assemblyFormat = "`<` $pointeeType (`,` $addressSpace^)? `>`";
  let genVerifyDecl = 1;
}

def TXL_BlockPtrType : TXL_Type<"BlockPtr", "block_ptr"> {
  let summary = "pointer to a block of a parent tensor in global memory (tl.make_block_ptr)";
  let description = [{
    `!txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>` points to a 64 x 32
    block of f16 elements of a parent tensor in global memory (Triton's
    `pointer_type(block_type)`); `order` lists the dimensions from the
    fastest-varying in memory. The parent's base, shape, strides and the
    block's offsets are run-time values of the txl.make_block_ptr that
    built it (txl.advance moves the offsets). txl-expand-block-pointers
    replaces every value of this type by those fields before any other
    stage runs.
  }];
  let parameters = (ins "::mlir::RankedTensorType":$blockType, ArrayRefParameter<"int64_t">:$order);
  let assemblyFormat = "`<` $blockType `,` `order` `=` `[` $order `]` `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getBlockType().getRank(); }
    ::mlir::Type getElementType() const { return getBlockType().getElementType(); }
    ::llvm::ArrayRef<int64_t> getBlockShape() const { return getBlockType().getShape(); }
  }];
}

// Type constraints used by the ops.
def TXL_AnySmem : Type<CPred<"::llvm::isa<::mlir::txl::SmemType>($_self)">,
    "shared-memory buffer", "::mlir::txl::SmemType">;
def TXL_SmemView : Type<And<[TXL_AnySmem.predicate,
    CPred<"!::llvm::cast<::mlir::txl::SmemType>($_self).isMultiStage()">]>,
    "shared-memory view (one stage)", "::mlir::txl::SmemType">;
def TXL_SmemAlloc : Type<And<[TXL_AnySmem.predicate,
    CPred<"::llvm::cast<::mlir::txl::SmemType>($_self).isMultiStage()">]>,
    "multi-stage shared-memory allocation", "::mlir::txl::SmemType">;
def TXL_AnyTmem : Type<CPred<"::llvm::isa<::mlir::txl::TmemType>($_self)">,
    "tensor-memory buffer", "::mlir::txl::TmemType">;
def TXL_TmemView : Type<And<[TXL_AnyTmem.predicate,
    CPred<"!::llvm::cast<::mlir::txl::TmemType>($_self).isMultiStage()">]>,
    "tensor-memory view (one stage)", "::mlir::txl::TmemType">;
def TXL_TmemAlloc : Type<And<[TXL_AnyTmem.predicate,
    CPred<"::llvm::cast<::mlir::txl::TmemType>($_self).isMultiStage()">]>,
    "multi-stage tensor-memory allocation", "::mlir::txl::TmemType">;
def TXL_AnyMbar : Type<CPred<"::llvm::isa<::mlir::txl::MbarType>($_self)">,
    "mbarrier", "::mlir::txl::MbarType">;
def TXL_MbarView : Type<And<[TXL_AnyMbar.predicate,
    CPred<"!::llvm::cast<::mlir::txl::MbarType>($_self).isMultiStage()">]>,
    "one mbarrier (!txl.mbar)", "::mlir::txl::MbarType">,
    BuildableType<"::mlir::txl::MbarType::get($_builder.getContext(), 0)">;
def TXL_MbarAlloc : Type<And<[TXL_AnyMbar.predicate,
    CPred<"::llvm::cast<::mlir::txl::MbarType>($_self).isMultiStage()">]>,
    "mbarrier array (!txl.mbar<N>)", "::mlir::txl::MbarType">;
def TXL_Buffer : AnyTypeOf<[TXL_AnySmem, TXL_AnyTmem, TXL_AnyMbar]>;
def TXL_TensorDesc : Type<CPred<"::llvm::isa<::mlir::txl::TensorDescType>($_self)">,
    "TMA descriptor", "::mlir::txl::TensorDescType">;
def TXL_Ptr : Type<CPred<"::llvm::isa<::mlir::txl::PtrType>($_self)">,
    "txl pointer", "::mlir::txl::PtrType">;
def TXL_BlockPtr : Type<CPred<"::llvm::isa<::mlir::txl::BlockPtrType>($_self)">,
    "block pointer", "::mlir::txl::BlockPtrType">;
def TXL_PtrTensor : RankedTensorOf<[TXL_Ptr]>;
def TXL_PtrLike : AnyTypeOf<[TXL_Ptr, TXL_PtrTensor]>;
def TXL_Tile : RankedTensorOf<[AnyType]>;
def TXL_BoolLike : AnyTypeOf<[I1, RankedTensorOf<[I1]>]>;
def TXL_IntLike : AnyTypeOf<[AnySignlessInteger, RankedTensorOf<[AnySignlessInteger]>]>;

#endif // TXL_TYPES_TD
