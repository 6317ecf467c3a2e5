//===- TXLOps.td - txl operations --------------------------*- tablegen -*-===//
//
// Every TXL op and builtin (docs/txl-reference.md §1a, §1b, §3b) with TXL's names,
// plus the register-tile ops that upstream lacks. Shared memory, tensor
// memory and mbarriers are memory-effect resources: CSE, LICM and the
// canonicalizer cannot merge or move accesses to them past each other.
//
//===----------------------------------------------------------------------===//
#ifndef TXL_OPS_TD
#define TXL_OPS_TD

include "txl/Dialect/TXL/IR/TXLDialect.td"
include "txl/Dialect/TXL/IR/TXLTypes.td"
include "txl/Dialect/TXL/IR/TXLAttrs.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

//===----------------------------------------------------------------------===//
// Resources and traits
//===----------------------------------------------------------------------===//

def TXL_SharedMemory : Resource<"::mlir::txl::SharedMemoryResource">;
def TXL_TensorMemory : Resource<"::mlir::txl::TensorMemoryResource">;
def TXL_MBarrierMem : Resource<"::mlir::txl::MBarrierResource">;

// Ops that exist only on Blackwell (tensor memory, tcgen05, TMA gather4).
def TXL_RequiresSM100 : NativeOpTrait<"RequiresSM100"> {
  let cppNamespace = "::mlir::txl::trait";
}

// Waits and fences order every shared-memory and mbarrier access around them.
defvar SyncEffects = [MemRead<TXL_SharedMemory>, MemWrite<TXL_SharedMemory>,
                      MemRead<TXL_MBarrierMem>, MemWrite<TXL_MBarrierMem>];

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

def TXL_SmemAllocOp : TXL_Op<"smem_alloc"> {
  let summary = "allocate a multi-stage shared-memory buffer";
  let description = [{
    Allocates `stages` tiles of the given shape in shared memory (TXL's
    `smem_alloc(shape, dtype, num_stages)`). The SmemAllocs stage places it in
    the kernel's shared-memory plan and chooses its swizzle from its users when
    the type has no encoding.

    ```mlir
    %bK = txl.smem_alloc : !txl.smem<128x64xbf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
    ```
  }];
  let arguments = (ins UnitAttr:$mutable_);
  let results = (outs Res<TXL_SmemAlloc, "", [MemAlloc<TXL_SharedMemory>]>:$result);
  let assemblyFormat = "(`mutable` $mutable_^)? attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def TXL_GetBufferOp : TXL_Op<"get_buffer", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "one stage of a shared-memory, tensor-memory or mbarrier allocation";
  let description = [{
    Returns a view of stage `index` (i32) of a multi-stage allocation. A
    constant index is checked against the number of stages.

    ```mlir
    %k = txl.get_buffer %bK[%idx] : !txl.smem<128x64xbf16, stages = 3>
    %b = txl.get_buffer %bars[%idx] : !txl.mbar<3>
    ```
  }];
  let arguments = (ins TXL_Buffer:$src, I32:$index);
  let results = (outs TXL_Buffer:$result);
  let assemblyFormat = "$src `[` $index `]` attr-dict `:` qualified(type($src))";
  let hasVerifier = 1;
}

def TXL_SmemLoadOp : TXL_Op<"smem_load"> {
  let summary = "load a shared-memory tile into registers";
  let description = [{
    The result type's layout decides which thread reads what.

    ```mlir
    %t = txl.smem_load %v : !txl.smem<64x64xf32> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Arg<TXL_SmemView, "", [MemRead<TXL_SharedMemory>]>:$src,
                       DefaultValuedAttr<I32Attr, "-1">:$ctaId);
  let results = (outs TXL_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def TXL_SmemStoreOp : TXL_Op<"smem_store"> {
  let summary = "store a register tile into shared memory";
  let description = [{
    ```mlir
    txl.smem_store %t, %v : tensor<64x64xbf16>, !txl.smem<64x64xbf16>
    ```
  }];
  let arguments = (ins TXL_Tile:$value,
                       Arg<TXL_SmemView, "", [MemWrite<TXL_SharedMemory>]>:$dst,
                       DefaultValuedAttr<I32Attr, "-1">:$ctaId);
  let assemblyFormat = "$value `,` $dst attr-dict `:` qualified(type($value)) `,` qualified(type($dst))";
  let hasVerifier = 1;
}

def TXL_FragSmemLoadOp : TXL_Op<"frag_smem_load", [AttrSizedOperandSegments,
    OptionalTypesMatchWith<"other has the result type", "result", "other", "$_self">]> {
  let summary = "predicated, partial shared-memory load";
  let description = [{
    Only the threads that the result layout gives elements read shared memory;
    when `pred` is false the value `other` is returned instead. The shared
    tile may be a row (1-D) that the 2-D result broadcasts along one dimension.

    ```mlir
    %m = txl.frag_smem_load %row other %ninf pred %p : !txl.smem<128xf32> -> tensor<128x64xf32>
    ```
  }];
  let arguments = (ins Arg<TXL_SmemView, "", [MemRead<TXL_SharedMemory>]>:$src,
                       Optional<TXL_Tile>:$other, Optional<I1>:$pred,
                       DefaultValuedAttr<I32Attr, "-1">:$ctaId);
  let results = (outs TXL_Tile:$result);
  let assemblyFormat = [{
    $src (`other` $other^)? (`pred` $pred^)? attr-dict `:` qualified(type($src)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def TXL_FragSmemStoreOp : TXL_Op<"frag_smem_store", [AttrSizedOperandSegments]> {
  let summary = "predicated, partial shared-memory store (optionally signalling an mbarrier)";
  let description = [{
    Stores the elements of `value` that its layout owns into `dst`; a 2-D
    value may be stored into a 1-D row (each row written once): the view
    takes the value's dimension of its size, dimension 0 when both match, or
    the one `slicedDim` (TXL's predStr = "slice:D") does not drop; elements
    along the dropped dimension are taken to be equal. With `mbar`
    it is st.async (32- or 64-bit elements): each element is written once,
    into CTA `ctaId`'s copy of `dst` (this CTA's when -1), and completes its
    bytes on that CTA's copy of `mbar`, whose reader waits after an
    mbar_expect of the total (TXL's cluster softmax).

    ```mlir
    txl.frag_smem_store %v, %row pred %p : tensor<128x1xf32>, !txl.smem<128xf32>
    ```
  }];
  let arguments = (ins TXL_Tile:$value,
                       Arg<TXL_SmemView, "", [MemWrite<TXL_SharedMemory>]>:$dst,
                       Optional<TXL_MbarView>:$mbar, Optional<I1>:$pred,
                       DefaultValuedAttr<I32Attr, "-1">:$ctaId,
                       DefaultValuedAttr<I32Attr, "-1">:$slicedDim);
  let assemblyFormat = [{
    $value `,` $dst (`mbar` $mbar^)? (`pred` $pred^)? attr-dict `:` qualified(type($value)) `,` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def TXL_SlotStoreOp : TXL_Op<"slot_store", [AttrSizedOperandSegments]> {
  let summary = "store each thread's scalar into the element of a view its lane and warp pick";
  let description = [{
    TXL's `frag_smem_store` of a per-thread value (a `txl.warp_reduce`
    partial) under a register layout of the view's shape: thread (lane,
    warp), with warp = tid / 32 over the CTA, stores `value` at the
    row-major element index that is the XOR of `laneBases[b]` over the set
    bits b of its lane and of `warpBases[b]` over the set bits of its warp.
    Only threads with lane < 2^len(laneBases) and warp < 2^len(warpBases)
    take part (a layout of fewer threads than the CTA leaves the others
    out, as TXL does), and, where bases are 0 (threads that the layout maps
    to the same element), only the thread with those bits clear stores.
    `pred` further masks the store. With `ctaId` the element of that CTA's
    copy of `dst` is written; with `mbar` the store is st.async (32- or
    64-bit elements) completing its bytes on that CTA's copy of `mbar`
    (this CTA's when `ctaId` is -1).

    ```mlir
    txl.slot_store %partial, %buf {laneBases = array<i64>, warpBases = array<i64: 1, 2>} : f32, !txl.smem<4xf32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[AnySignlessInteger, AnyFloat]>:$value,
                       Arg<TXL_SmemView, "", [MemWrite<TXL_SharedMemory>]>:$dst,
                       Optional<TXL_MbarView>:$mbar, Optional<I1>:$pred,
                       DenseI64ArrayAttr:$laneBases, DenseI64ArrayAttr:$warpBases,
                       DefaultValuedAttr<I32Attr, "-1">:$ctaId);
  let assemblyFormat = [{
    $value `,` $dst (`mbar` $mbar^)? (`pred` $pred^)? attr-dict `:` type($value) `,` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def TXL_SlotLoadOp : TXL_Op<"slot_load", [AttrSizedOperandSegments,
    OptionalTypesMatchWith<"other has the result type", "result", "other", "$_self">]> {
  let summary = "load into each thread the element of a view its lane and warp pick";
  let description = [{
    TXL's `frag_smem_load` under a register layout that covers fewer threads
    than a warp or the CTA (TXL's cross-warp reduction idiom): thread
    (lane, warp) reads the element `txl.slot_store` with the same bases
    writes; threads that the bases do not cover (lane >= 2^len(laneBases)
    or warp >= 2^len(warpBases)) get `other` when it is given, and otherwise
    the element of the thread their low lane and warp bits name (TXL's
    broadcast); where `pred` is false they get `other`, which `pred` needs.
    The result is a per-thread scalar, which
    `txl.warp_reduce` combines across the warp's lanes. With `ctaId` the
    element is read from that CTA's copy of `src`.

    ```mlir
    %v = txl.slot_load %buf other %ninf {laneBases = array<i64: 1, 2>, warpBases = array<i64: 0, 0>} : !txl.smem<4xf32> -> f32
    ```
  }];
  let arguments = (ins Arg<TXL_SmemView, "", [MemRead<TXL_SharedMemory>]>:$src,
                       Optional<AnyTypeOf<[AnySignlessInteger, AnyFloat]>>:$other, Optional<I1>:$pred,
                       DenseI64ArrayAttr:$laneBases, DenseI64ArrayAttr:$warpBases,
                       DefaultValuedAttr<I32Attr, "-1">:$ctaId);
  let results = (outs AnyTypeOf<[AnySignlessInteger, AnyFloat]>:$result);
  let assemblyFormat = [{
    $src (`other` $other^)? (`pred` $pred^)? attr-dict `:` qualified(type($src)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TXL_SmemIndexOp : TXL_Op<"smem_index", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "index the leading dimension of a shared-memory view";
  let description = [{
    ```mlir
    %row = txl.smem_index %v[%i] : !txl.smem<2x64x64xbf16>   // -> !txl.smem<64x64xbf16>
    ```
  }];
  let arguments = (ins TXL_SmemView:$src, I32:$index);
  let results = (outs TXL_SmemView:$result);
  let assemblyFormat = "$src `[` $index `]` attr-dict `:` qualified(type($src))";
  let hasVerifier = 1;
}

def TXL_SmemSubsliceOp : TXL_Op<"smem_subslice", [Pure]> {
  let summary = "a rectangular part of a shared-memory view (TXL's smem_slice)";
  let description = [{
    ```mlir
    %half = txl.smem_subslice %q [64, 0] : !txl.smem<128x128xbf16> -> !txl.smem<64x128xbf16>
    ```
  }];
  let arguments = (ins TXL_SmemView:$src, DenseI64ArrayAttr:$offsets);
  let results = (outs TXL_SmemView:$result);
  let assemblyFormat = "$src $offsets attr-dict `:` qualified(type($src)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def TXL_SmemTransOp : TXL_Op<"smem_trans", [Pure]> {
  let summary = "a transposed view of a shared-memory tile (no data moves)";
  let description = [{
    `order` is the permutation: result dimension i is source dimension order[i].
    `tl.dot(q, k.T)` reads K through such a view.

    ```mlir
    %kT = txl.smem_trans %k [1, 0] : !txl.smem<128x64xbf16> -> !txl.smem<64x128xbf16>
    ```
  }];
  let arguments = (ins TXL_SmemView:$src, DenseI32ArrayAttr:$order);
  let results = (outs TXL_SmemView:$result);
  let assemblyFormat = "$src $order attr-dict `:` qualified(type($src)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def TXL_SmemReshapeOp : TXL_Op<"smem_reshape", [Pure]> {
  let summary = "a reshaped view of a shared-memory tile";
  let description = [{
    ```mlir
    %r = txl.smem_reshape %v : !txl.smem<128x64xbf16> -> !txl.smem<2x64x64xbf16>
    ```
  }];
  let arguments = (ins TXL_SmemView:$src);
  let results = (outs TXL_SmemView:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tensor memory (Blackwell)
//===----------------------------------------------------------------------===//

def TXL_TmemAllocOp : TXL_Op<"tmem_alloc", [TXL_RequiresSM100]> {
  let summary = "allocate a multi-stage tensor-memory buffer (sm_100a)";
  let description = [{
    ```mlir
    %acc = txl.tmem_alloc : !txl.tmem<128x256xf32, stages = 2>
    ```
    Rows are TMEM lanes (at most 128); a kernel has 512 32-bit columns.
  }];
  let arguments = (ins UnitAttr:$mutable_);
  let results = (outs Res<TXL_TmemAlloc, "", [MemAlloc<TXL_TensorMemory>]>:$result);
  let assemblyFormat = "(`mutable` $mutable_^)? attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def TXL_TmemLoadOp : TXL_Op<"tmem_load", [TXL_RequiresSM100]> {
  let summary = "load a tensor-memory tile into registers (tcgen05.ld)";
  let description = [{
    ```mlir
    %t = txl.tmem_load %a : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
    ```
  }];
  let arguments = (ins Arg<TXL_TmemView, "", [MemRead<TXL_TensorMemory>]>:$src,
                       DefaultValuedAttr<I32Attr, "-1">:$ctaId);
  let results = (outs TXL_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def TXL_TmemStoreOp : TXL_Op<"tmem_store", [TXL_RequiresSM100]> {
  let summary = "store a register tile into tensor memory (tcgen05.st)";
  let description = [{
    ```mlir
    txl.tmem_store %t, %a : tensor<128x256xf32>, !txl.tmem<128x256xf32>
    ```
  }];
  let arguments = (ins TXL_Tile:$value,
                       Arg<TXL_TmemView, "", [MemWrite<TXL_TensorMemory>]>:$dst,
                       DefaultValuedAttr<I32Attr, "-1">:$ctaId);
  let assemblyFormat = "$value `,` $dst attr-dict `:` qualified(type($value)) `,` qualified(type($dst))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

def TXL_MbarAllocOp : TXL_Op<"mbar_alloc"> {
  let summary = "allocate an array of mbarriers with an arrival count";
  let description = [{
    Each of the `N` mbarriers completes a phase after `count` arrivals (plus
    the transaction bytes announced by mbar_expect).

    ```mlir
    %full = txl.mbar_alloc count 1 : !txl.mbar<3>      // TMA producer -> consumer
    %empty = txl.mbar_alloc count 128 : !txl.mbar<3>   // every consumer thread arrives
    ```
  }];
  let arguments = (ins I32Attr:$arriveCount);
  let results = (outs Res<TXL_MbarAlloc, "", [MemAlloc<TXL_MBarrierMem>]>:$result);
  let assemblyFormat = "`count` $arriveCount attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def TXL_MbarExpectOp : TXL_Op<"mbar_expect"> {
  let summary = "arrive on an mbarrier and announce the bytes TMA will deliver";
  let description = [{
    One thread (or the threads where `pred` holds) performs
    `mbarrier.arrive.expect_tx` with `bytes`. The verifier checks `bytes`
    against the TMA loads that signal the same barrier in the same block.

    ```mlir
    txl.mbar_expect %bar, 16384
    txl.tma_load %desc[%x, %y], %buf, %bar : !txl.tensordesc<128x64xbf16>, !txl.smem<128x64xbf16>
    ```
  }];
  let arguments = (ins Arg<TXL_MbarView, "", [MemRead<TXL_MBarrierMem>, MemWrite<TXL_MBarrierMem>]>:$mbar,
                       I32Attr:$bytes, Optional<I1>:$pred);
  let assemblyFormat = "$mbar `,` $bytes (`pred` $pred^)? attr-dict";
  let hasVerifier = 1;
}

def TXL_MbarWaitOp : TXL_Op<"mbar_wait", [MemoryEffects<SyncEffects>]> {
  let summary = "wait until an mbarrier completes the phase with parity `phase`";
  let description = [{
    A `mbarrier.try_wait.parity` loop. `phase` is 0 or 1 (i32), flipped by
    the kernel each time it wraps around a ring of stages.

    ```mlir
    txl.mbar_wait %bar, %phase : i32
    ```
  }];
  let arguments = (ins TXL_MbarView:$mbar, I32:$phase);
  let assemblyFormat = "$mbar `,` $phase attr-dict `:` qualified(type($phase))";
}

def TXL_MbarArriveOp : TXL_Op<"mbar_arrive", [AttrSizedOperandSegments]> {
  let summary = "arrive on an mbarrier (plain, tracking cp.async, with tx bytes, or remote)";
  let description = [{
    - plain: `mbarrier.arrive`;
    - `track_async_op`: the arrival happens when this thread's prior cp.async
      copies complete (`cp.async.mbarrier.arrive.noinc`);
    - `tx_count = N`: `mbarrier.arrive.expect_tx` with N bytes;
    - `remote %cta`: arrive on the barrier at the same offset in CTA `%cta`
      of the cluster (`mapa` + `mbarrier.arrive.shared::cluster`).

    ```mlir
    txl.mbar_arrive %empty
    txl.mbar_arrive %bar pred %p remote %peer {tx_count = 0 : i32}
    txl.mbar_arrive %bar {track_async_op}
    ```
  }];
  let arguments = (ins Arg<TXL_MbarView, "", [MemRead<TXL_MBarrierMem>, MemWrite<TXL_MBarrierMem>]>:$mbar,
                       Optional<I1>:$pred, Optional<I32>:$remoteCtaId,
                       UnitAttr:$track_async_op,
                       DefaultValuedAttr<I32Attr, "0">:$tx_count);
  let assemblyFormat = "$mbar (`pred` $pred^)? (`remote` $remoteCtaId^)? attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// TMA and cp.async
//===----------------------------------------------------------------------===//

def TXL_TmaLoadOp : TXL_Op<"tma_load"> {
  let summary = "TMA tile load from global into shared memory, signalling an mbarrier";
  let description = [{
    Copies the box at `indices` (innermost last, as in the tensor's shape) of
    the descriptor into `dst`; the transferred bytes complete on `mbar`.

    ```mlir
    txl.tma_load %desc[%m, %k], %buf, %bar : !txl.tensordesc<128x64xbf16>, !txl.smem<128x64xbf16>
    ```
  }];
  let arguments = (ins TXL_TensorDesc:$desc, Variadic<I32>:$indices,
                       Arg<TXL_SmemView, "", [MemWrite<TXL_SharedMemory>]>:$dst,
                       Arg<TXL_MbarView, "", [MemWrite<TXL_MBarrierMem>]>:$mbar,
                       DefaultValuedAttr<TXL_CacheModifierAttr, "::mlir::txl::CacheModifier::none">:$cache,
                       DefaultValuedAttr<TXL_EvictionPolicyAttr, "::mlir::txl::EvictionPolicy::evict_normal">:$evict);
  let assemblyFormat = [{
    $desc `[` $indices `]` `,` $dst `,` $mbar attr-dict `:` qualified(type($desc)) `,` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def TXL_TmaStoreOp : TXL_Op<"tma_store"> {
  let summary = "TMA tile store from shared into global memory";
  let description = [{
    Lowered with a `fence.proxy.async` before it, so prior generic-proxy
    writes to `src` are visible to TMA, and a bulk commit group after it.
    With `reduce`, the box is combined into global memory element by element
    (cp.reduce.async.bulk.tensor: add for f32/f16/bf16/i32/i64, min/max for
    f16/bf16/i32/i64) instead of overwriting it: several CTAs may reduce
    into the same box (an fp32 dQ accumulator, split-K), in no fixed order.

    ```mlir
    txl.tma_store %buf, %desc[%m, %n] : !txl.smem<128x128xbf16>, !txl.tensordesc<128x128xbf16>
    txl.tma_store %acc, %dq[%m, %n] reduce add : !txl.smem<64x64xf32>, !txl.tensordesc<64x64xf32>
    ```
  }];
  let arguments = (ins Arg<TXL_SmemView, "", [MemRead<TXL_SharedMemory>]>:$src,
                       Arg<TXL_TensorDesc, "", [MemRead, MemWrite]>:$desc, Variadic<I32>:$indices,
                       OptionalAttr<TXL_TmaReduceKindAttr>:$reduce);
  let assemblyFormat = [{
    $src `,` $desc `[` $indices `]` (`reduce` $reduce^)? attr-dict `:` qualified(type($src)) `,`
    qualified(type($desc))
  }];
  let hasVerifier = 1;
}

def TXL_MakeTensorDescOp : TXL_Op<"make_tensor_descriptor", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "build a TMA descriptor on the device (tl.make_tensor_descriptor)";
  let description = [{
    Writes a 128-byte tensor map for the row-major tensor at `base` with
    `shape` and `strides` (in elements, outermost first; the innermost
    stride is 1) into `scratch`, a 128-byte-aligned slot of global memory,
    and returns it as a descriptor for txl.tma_load / txl.tma_store. The
    first thread of the executing warpgroup (the one that issues TMA)
    writes it and fences it for the tensormap proxy, so each warpgroup
    that runs the op needs its own slot; executing the op again rewrites
    the slot, so TMA copies through its previous value must be complete.
    The box and swizzle come from the result type. Out-of-bounds elements
    of a load read as zero, or as NaN with `nan_fill` (Triton's
    padding_option="nan"; floating-point elements only).

    The frontend writes the op without `scratch`; txl-global-scratch (first
    in the pipeline) gives each such op its slot of the kernel's hidden
    `txl.global_scratch` parameter, so every later stage sees a slot. Until
    then the op writes memory it does not name (so it is neither erased nor
    merged with another).

    ```mlir
    %d = txl.make_tensor_descriptor %a, [%m, %k], [%k, %c1], %slot
        : !txl.ptr<bf16>, !txl.ptr<i8> -> !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
    %e = txl.make_tensor_descriptor %a, [%m, %k], [%k, %c1]
        : !txl.ptr<bf16> -> !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
    ```
  }];
  let arguments = (ins TXL_Ptr:$base, Variadic<I64>:$shape, Variadic<I64>:$strides,
                       Optional<TXL_Ptr>:$scratch, UnitAttr:$nan_fill);
  let results = (outs TXL_TensorDesc:$result);
  let assemblyFormat = [{
    $base `,` `[` $shape `]` `,` `[` $strides `]` (`,` $scratch^)? attr-dict `:` qualified(type($base))
    (`,` qualified(type($scratch))^)? `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def TXL_DescLoadOp : TXL_Op<"desc_load", [MemoryEffects<[MemRead]>]> {
  let summary = "load a tile through a TMA descriptor into registers (Triton's desc.load)";
  let description = [{
    What the user wrote, nothing more: the box at `indices` (innermost last)
    of the descriptor, as a register tile of the descriptor's block shape.
    Out-of-bounds elements read as zero. How the tile travels (a staging
    buffer, an mbarrier and its phase, the syncs before a buffer is reused,
    or a ring of buffers filled iterations ahead) is decided by C++ passes:
    txl-schedule-loops / txl-expand-loops pipeline it in a loop,
    txl-lower-tile-copies lowers what is left.

    ```mlir
    %a = txl.desc_load %desc[%m, %k] : !txl.tensordesc<128x64xbf16> -> tensor<128x64xbf16>
    ```
  }];
  let arguments = (ins TXL_TensorDesc:$desc, Variadic<I32>:$indices);
  let results = (outs TXL_Tile:$result);
  let assemblyFormat = [{
    $desc `[` $indices `]` attr-dict `:` qualified(type($desc)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def TXL_DescStoreOp : TXL_Op<"desc_store"> {
  let summary = "store a register tile through a TMA descriptor (Triton's desc.store)";
  let description = [{
    Writes `value` (the descriptor's block shape and element type) to the box
    at `indices`; out-of-bounds elements are clipped. Complete when the op
    returns (txl-lower-tile-copies stages it through shared memory and waits
    for the bulk store).

    ```mlir
    txl.desc_store %desc[%m, %n], %c : !txl.tensordesc<128x128xbf16>, tensor<128x128xbf16>
    ```
  }];
  let arguments = (ins Arg<TXL_TensorDesc, "", [MemWrite]>:$desc, Variadic<I32>:$indices,
                       TXL_Tile:$value);
  let assemblyFormat = [{
    $desc `[` $indices `]` `,` $value attr-dict `:` qualified(type($desc)) `,` qualified(type($value))
  }];
  let hasVerifier = 1;
}

def TXL_TmaStoreWaitOp : TXL_Op<"tma_store_wait", [MemoryEffects<SyncEffects>]> {
  let summary = "wait until at most `pendings` TMA store groups still read shared memory";
  let description = [{
    ```mlir
    txl.tma_store_wait 0
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pendings);
  let assemblyFormat = "$pendings attr-dict";
}

def TXL_TmaGatherOp : TXL_Op<"tma_gather", [TXL_RequiresSM100]> {
  let summary = "TMA row gather (gather4, sm_100a)";
  let description = [{
    Loads the rows `x_offsets` (a multiple of 4 rows) starting at column
    `y_offset` of a 2-D descriptor into `dst`, signalling `mbar`.

    ```mlir
    txl.tma_gather %desc[%rows, %col], %buf, %bar : !txl.tensordesc<1x64xbf16>, tensor<8xi32>, !txl.smem<8x64xbf16>
    ```
  }];
  let arguments = (ins TXL_TensorDesc:$desc, RankedTensorOf<[I32]>:$x_offsets, I32:$y_offset,
                       Arg<TXL_SmemView, "", [MemWrite<TXL_SharedMemory>]>:$dst,
                       Arg<TXL_MbarView, "", [MemWrite<TXL_MBarrierMem>]>:$mbar);
  let assemblyFormat = [{
    $desc `[` $x_offsets `,` $y_offset `]` `,` $dst `,` $mbar attr-dict `:` qualified(type($desc)) `,` qualified(type($x_offsets)) `,` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def TXL_AsyncLoadOp : TXL_Op<"async_load", [AttrSizedOperandSegments]> {
  let summary = "cp.async gather from a tensor of global pointers into shared memory";
  let description = [{
    Each element of `ptrs` is copied into the same position of `dst`; masked
    off elements are filled with `other` (zero when absent). Completion is
    awaited with `txl.async_load_wait` or tracked by
    `txl.mbar_arrive {track_async_op}`.

    ```mlir
    txl.async_load %ptrs, %buf mask %m {contiguity = 8 : i32} : tensor<64x64x!txl.ptr<bf16>>, !txl.smem<64x64xbf16>
    ```
  }];
  let arguments = (ins Arg<TXL_PtrTensor, "", [MemRead]>:$ptrs,
                       Arg<TXL_SmemView, "", [MemWrite<TXL_SharedMemory>]>:$dst,
                       Optional<TXL_BoolLike>:$mask, Optional<TXL_Tile>:$other,
                       DefaultValuedAttr<I32Attr, "-1">:$contiguity,
                       DefaultValuedAttr<TXL_CacheModifierAttr, "::mlir::txl::CacheModifier::none">:$cache,
                       DefaultValuedAttr<TXL_EvictionPolicyAttr, "::mlir::txl::EvictionPolicy::evict_normal">:$evict);
  let assemblyFormat = [{
    $ptrs `,` $dst (`mask` $mask^ `:` qualified(type($mask)))? (`other` $other^ `:` qualified(type($other)))? attr-dict
    `:` qualified(type($ptrs)) `,` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def TXL_AsyncLoadWaitOp : TXL_Op<"async_load_wait", [MemoryEffects<SyncEffects>]> {
  let summary = "wait until at most `pendings` cp.async groups are in flight";
  let description = [{
    ```mlir
    txl.async_load_wait 0
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pendings);
  let assemblyFormat = "$pendings attr-dict";
}

def TXL_ClusterBarrierOp : TXL_Op<"cluster_barrier", [MemoryEffects<SyncEffects>]> {
  let summary = "barrier of every thread of every CTA of the cluster";
  let description = [{
    `barrier.cluster.arrive` + `barrier.cluster.wait` (release / acquire at
    cluster scope): shared-memory writes made before it by any CTA of the
    cluster are visible to reads after it through `smem_load ... ctaId`.
    Also needed before a CTA exits while others may still read its shared
    memory. Only in kernels launched with clusters (`txl.num_ctas` > 1).

    ```mlir
    txl.cluster_barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def TXL_FenceProxyAsyncOp : TXL_Op<"fence_proxy_async", [MemoryEffects<SyncEffects>]> {
  let summary = "make generic-proxy shared-memory writes visible to the async proxy";
  let description = [{
    `fence.proxy.async.shared::cta`: needed between `smem_store` and a TMA
    store or a wgmma that reads the same buffer.

    ```mlir
    txl.fence_proxy_async
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Matrix multiply
//===----------------------------------------------------------------------===//

def TXL_DotOp : TXL_Op<"dot", [AllTypesMatch<["acc", "result"]>]> {
  let summary = "warpgroup MMA (wgmma): d = a * b + acc";
  let description = [{
    `a` is a shared-memory view or a register tile (the RS form, as in P*V of
    flash attention); `b` is a shared-memory view, or a register tile as the
    user wrote it (Triton's `tl.dot(a, b)` on loaded tiles), which
    txl-lower-tile-copies reads from the shared memory it was loaded through
    or stages there before layouts are assigned; `acc` and the result are
    register tiles. M is a multiple of 64, N is 8..256 in steps of 8, K a
    multiple of the instruction's K (8 for tf32, 16 for 16-bit, 32 for 8-bit
    types). With `async` the result may be read only after a `txl.dot_wait`
    that covers it (TXL's `tl.dot` + `dot_wait`), except as another dot's
    accumulator or by an add of an earlier value (`acc += tl.dot(a, b)`:
    the dot's accumulation, which txl-fold-dot-add folds into `acc`).

    ```mlir
    %s = txl.dot %q, %kT, %zero {async} : !txl.smem<64x128xbf16>, !txl.smem<128x128xbf16>, tensor<64x128xf32>
    %o = txl.dot %p, %v, %acc : tensor<64x128xbf16>, !txl.smem<128x128xbf16>, tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Arg<AnyTypeOf<[TXL_SmemView, TXL_Tile]>, "", [MemRead<TXL_SharedMemory>]>:$a,
                       Arg<AnyTypeOf<[TXL_SmemView, TXL_Tile]>, "", [MemRead<TXL_SharedMemory>]>:$b,
                       TXL_Tile:$acc, Optional<I1>:$useAcc, UnitAttr:$async);
  let results = (outs TXL_Tile:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc (`use_acc` $useAcc^)? attr-dict `:` qualified(type($a)) `,` qualified(type($b)) `,` qualified(type($acc))
  }];
  let hasVerifier = 1;
}

def TXL_DotXOp : TXL_Op<"dotx", [TXL_RequiresSM100, AttrSizedOperandSegments]> {
  let summary = "tcgen05 MMA (sm_100a) with completion mbarriers";
  let description = [{
    `d = a * b + (use_d ? c : 0)` on the tensor cores of Blackwell. `a` is in
    shared or tensor memory, `b` in shared memory, `c` in tensor memory (no
    result) or registers (the result). Each mbarrier in `mbars` is signalled
    by `tcgen05.commit` when the MMA completes, if its predicate holds.

    ```mlir
    txl.dotx %a, %bT, %acc use_d %useD mbars(%empty, %accReady) preds(%true, %last)
      : !txl.smem<128x64xbf16>, !txl.smem<64x256xbf16>, !txl.tmem<128x256xf32>
    ```
  }];
  let arguments = (ins Arg<AnyTypeOf<[TXL_SmemView, TXL_TmemView]>, "", [MemRead<TXL_SharedMemory>]>:$a,
                       Arg<TXL_SmemView, "", [MemRead<TXL_SharedMemory>]>:$b,
                       Arg<AnyTypeOf<[TXL_TmemView, TXL_Tile]>, "", [MemRead<TXL_TensorMemory>, MemWrite<TXL_TensorMemory>]>:$c,
                       Optional<I1>:$useD, Optional<I1>:$pred,
                       Arg<Variadic<TXL_MbarView>, "", [MemWrite<TXL_MBarrierMem>]>:$mbars,
                       Variadic<I1>:$mbarPreds, UnitAttr:$two_ctas);
  let results = (outs Optional<TXL_Tile>:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`use_d` $useD^)? (`pred` $pred^)? (`mbars` `(` $mbars^ `)`)?
    (`preds` `(` $mbarPreds^ `)`)? attr-dict `:` qualified(type($a)) `,` qualified(type($b)) `,` qualified(type($c)) (`->` qualified(type($result))^)?
  }];
  let hasVerifier = 1;
}

def TXL_DotWaitOp : TXL_Op<"dot_wait", [MemoryEffects<SyncEffects>,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "wait until at most `pendings` wgmma groups are in flight";
  let description = [{
    `wgmma.wait_group pendings`. Accumulators may be passed through the wait
    (results equal operands): their uses then cannot be scheduled above it.
    The wgmma stage threads the accumulators of the covered dots through the
    wait when the kernel does not (TXL writes `dot_wait(1)` alone).

    ```mlir
    txl.dot_wait 1
    %acc2 = txl.dot_wait 0, %acc : tensor<64x128xf32>
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pendings,
                       Variadic<AnyType>:$inputs);
  let results = (outs Variadic<AnyType>:$outputs);
  let assemblyFormat = "$pendings (`,` $inputs^ `:` qualified(type($inputs)))? attr-dict";
}

//===----------------------------------------------------------------------===//
// Synchronization and warp specialization
//===----------------------------------------------------------------------===//

class TXL_NamedBarrierOp<string mnemonic> : TXL_Op<mnemonic, [MemoryEffects<SyncEffects>]> {
  let arguments = (ins I32Attr:$bar, I32Attr:$numThreads);
  let assemblyFormat = "$bar `,` $numThreads attr-dict";
  let hasVerifier = 1;
}

def TXL_BarArriveOp : TXL_NamedBarrierOp<"bar_arrive"> {
  let summary = "arrive at named barrier `bar` (bar.arrive) without waiting";
  let description = [{
    Barrier ids are 0..15; ids 1..7 are reserved for the compiler, so kernels
    use 8..15 (as TXL does). `numThreads` counts every thread that arrives or
    waits, a multiple of 32.

    ```mlir
    txl.bar_arrive 8, 256
    ```
  }];
}

def TXL_BarWaitOp : TXL_NamedBarrierOp<"bar_wait"> {
  let summary = "arrive at named barrier `bar` and wait for `numThreads` (bar.sync)";
  let description = [{
    ```mlir
    txl.bar_wait 9, 256
    ```
  }];
}

class TXL_RegOp<string mnemonic> : TXL_Op<mnemonic> {
  let arguments = (ins I32Attr:$regCount);
  let assemblyFormat = "$regCount attr-dict";
  let hasVerifier = 1;
}

def TXL_RegAllocOp : TXL_RegOp<"reg_alloc"> {
  let summary = "raise this warpgroup's register budget (setmaxnreg.inc)";
  let description = [{
    `regCount` is 24..256 in steps of 8. Consumer warpgroups of a
    warp-specialized kernel take registers the producer gave back.

    ```mlir
    txl.reg_alloc 240
    ```
  }];
}

def TXL_RegDeallocOp : TXL_RegOp<"reg_dealloc"> {
  let summary = "lower this warpgroup's register budget (setmaxnreg.dec)";
  let description = [{
    ```mlir
    txl.reg_dealloc 24
    ```
  }];
}

class TXL_RoleOp<string mnemonic> : TXL_Op<mnemonic, [Pure]> {
  let arguments = (ins DenseI32ArrayAttr:$ids);
  let results = (outs I1:$result);
  let assemblyFormat = "$ids attr-dict";
  let hasVerifier = 1;
}

def TXL_IsWarpgroupOp : TXL_RoleOp<"is_warpgroup"> {
  let summary = "true in the warpgroups listed (warp specialization)";
  let description = [{
    Used as the condition of an `scf.if`; warpgroup partitioning turns such
    regions into per-warpgroup code.

    ```mlir
    %producer = txl.is_warpgroup [0]
    scf.if %producer { txl.reg_dealloc 24 ... }
    ```
  }];
}

def TXL_IsWarpOp : TXL_RoleOp<"is_warp"> {
  let summary = "true in the warps listed (Blackwell-style warp roles)";
  let description = [{
    ```mlir
    %mma = txl.is_warp [8]
    ```
  }];
}

class TXL_IdOp<string mnemonic> : TXL_Op<mnemonic, [Pure]> {
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict";
}

def TXL_TidOp : TXL_IdOp<"tid"> {
  let summary = "thread index in the block (threadIdx.x)";
  let description = [{ `%t = txl.tid` }];
}
def TXL_WarpIdOp : TXL_IdOp<"warp_id"> {
  let summary = "warp index in the block (tid / 32, warp-uniform)";
  let description = [{ `%w = txl.warp_id` }];
}
def TXL_WarpgroupIdOp : TXL_IdOp<"warpgroup_id"> {
  let summary = "warpgroup index in the block (tid / 128, warp-uniform)";
  let description = [{ `%wg = txl.warpgroup_id` }];
}
def TXL_LaneIdOp : TXL_IdOp<"lane_id"> {
  let summary = "lane index in the warp (tid % 32)";
  let description = [{ `%l = txl.lane_id` }];
}
def TXL_CtaRankOp : TXL_IdOp<"cta_rank"> {
  let summary = "rank of this CTA in its cluster (%cluster_ctarank)";
  let description = [{ `%r = txl.cta_rank` }];
}

class TXL_GridOp<string mnemonic> : TXL_Op<mnemonic, [Pure]> {
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

def TXL_ProgramIdOp : TXL_GridOp<"program_id"> {
  let summary = "block index along `axis` (0..2) (tl.program_id)";
  let description = [{ `%pid = txl.program_id 0` }];
}
def TXL_NumProgramsOp : TXL_GridOp<"num_programs"> {
  let summary = "grid size along `axis` (0..2) (tl.num_programs)";
  let description = [{ `%n = txl.num_programs 0` }];
}

def TXL_PrintOp : TXL_Op<"print"> {
  let summary = "device printf of a prefix and values";
  let description = [{
    ```mlir
    txl.print "m_i = " %m : tensor<64xf32>
    ```
  }];
  let arguments = (ins StrAttr:$prefix, UnitAttr:$hex, Variadic<AnyType>:$args);
  let assemblyFormat = "$prefix ($args^ `:` qualified(type($args)))? attr-dict";
}

def TXL_AssertOp : TXL_Op<"assert", [MemoryEffects<[MemWrite]>]> {
  let summary = "stop the kernel with a message where a condition is false";
  let description = [{
    tl.device_assert: each thread checks the elements of `condition` it
    holds; one that finds a false element calls CUDA's `__assertfail` with
    `message` and the op's location (file, line) and function, which prints
    "file:line: function: block: [..], thread: [..] Assertion `message`
    failed." and stops the kernel (cudaErrorAssert on the host). The
    frontend emits it only for kernels compiled with debug, as Triton does.

    ```mlir
    txl.assert %in_range, "index out of range" : tensor<128xi1>
    ```
  }];
  let arguments = (ins AnyTypeOf<[I1, TXL_Tile]>:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict `:` qualified(type($condition))";
  let hasVerifier = 1;
}

def TXL_IntToPtrOp : TXL_Op<"int_to_ptr", [Pure, Elementwise]> {
  let summary = "int64 addresses as pointers (tl.cast of int64 to a pointer type)";
  let description = [{
    ```mlir
    %p = txl.int_to_ptr %a : tensor<16xi64> -> tensor<16x!txl.ptr<f16>>
    ```
  }];
  let arguments = (ins AnyType:$src);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def TXL_PtrToIntOp : TXL_Op<"ptr_to_int", [Pure, Elementwise]> {
  let summary = "pointers as int64 addresses (tl.cast of a pointer to int64)";
  let description = [{
    ```mlir
    %a = txl.ptr_to_int %p : !txl.ptr<f32> -> i64
    ```
  }];
  let arguments = (ins AnyType:$src);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def TXL_ExternElementwiseOp : TXL_Op<"extern_elementwise", [Pure, Elementwise]> {
  let summary = "a libdevice function applied to every element (tl.extra.cuda.libdevice)";
  let description = [{
    Calls `symbol`, a function of CUDA's libdevice (`__nv_*`), once per
    element: operands are scalars, or tiles of the result's shape (ints and
    floats). txlc links libdevice.10.bc when a kernel uses it (--libdevice,
    TXL_LIBDEVICE, or the CUDA toolkit's copy) and inlines the function.

    ```mlir
    %y = txl.extern_elementwise "__nv_asinf"(%x) : (tensor<128xf32>) -> tensor<128xf32>
    ```
  }];
  let arguments = (ins StrAttr:$symbol, Variadic<AnyType>:$srcs);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$symbol `(` $srcs `)` attr-dict `:` functional-type($srcs, $result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Register tiles
//===----------------------------------------------------------------------===//

def TXL_RelayoutOp : TXL_Op<"relayout", [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<ConditionallySpeculatable>]> {
  let summary = "move a tile to another register layout";
  let description = [{
    Free when the two layouts place every element in the same thread (at
    most a register permutation), warp shuffles when elements only change
    lanes, and a round trip through shared memory otherwise. The round trip
    uses `scratch`, a shared-memory view of this warp group's scratch buffer,
    which `--txl-allocate-scratch` adds; with a scratch the op reads and
    writes shared memory and synchronizes the warps the layouts span.

    ```mlir
    %b = txl.relayout %a : tensor<64x64xf32, #acc> -> tensor<64x64xf32, #blocked>
    %c = txl.relayout %a scratch(%s : !txl.smem<64x68xf32>)
        : tensor<64x64xf32, #acc> -> tensor<64x64xf32, #blocked>
    ```
  }];
  let arguments = (ins TXL_Tile:$src, Optional<TXL_SmemView>:$scratch);
  let results = (outs TXL_Tile:$result);
  let assemblyFormat = [{
    $src (`scratch` `(` $scratch^ `:` qualified(type($scratch)) `)`)? attr-dict `:`
    qualified(type($src)) `->` qualified(type($result))
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$src), [{
      build($_builder, $_state, result, src, ::mlir::Value());
    }]>
  ];
  let hasVerifier = 1;
}

def TXL_MakeRangeOp : TXL_Op<"make_range", [Pure]> {
  let summary = "the tile [start, start+1, ..., end-1] (tl.arange)";
  let description = [{
    ```mlir
    %offs = txl.make_range 0, 128 : tensor<128xi32>
    ```
  }];
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "$start `,` $end attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def TXL_SplatOp : TXL_Op<"splat", [Pure]> {
  let summary = "a tile with every element equal to a scalar (tl.full)";
  let description = [{
    ```mlir
    %z = txl.splat %c0 : f32 -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins AnyType:$src);
  let results = (outs TXL_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def TXL_BroadcastOp : TXL_Op<"broadcast", [Pure, SameOperandsAndResultElementType]> {
  let summary = "repeat size-1 dimensions of a tile";
  let description = [{
    ```mlir
    %b = txl.broadcast %row : tensor<64x1xf32> -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins TXL_Tile:$src);
  let results = (outs TXL_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def TXL_ExpandDimsOp : TXL_Op<"expand_dims", [Pure, SameOperandsAndResultElementType]> {
  let summary = "insert a size-1 dimension at `axis` (x[:, None])";
  let description = [{
    ```mlir
    %c = txl.expand_dims %m, 1 : tensor<64xf32> -> tensor<64x1xf32>
    ```
  }];
  let arguments = (ins TXL_Tile:$src, I32Attr:$axis);
  let results = (outs TXL_Tile:$result);
  let assemblyFormat = "$src `,` $axis attr-dict `:` qualified(type($src)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

// The ops below only rename coordinates. Layout assignment gives their
// results the source layout moved through the same map (#txl.linear), so they
// lower to no instructions; the verifiers check shapes, and layouts when both
// sides have one.

def TXL_TransOp : TXL_Op<"trans", [Pure, SameOperandsAndResultElementType]> {
  let summary = "permute the dimensions of a tile (tl.trans, tl.permute, x.T)";
  let description = [{
    Result dimension i is source dimension `order[i]`.
    ```mlir
    %t = txl.trans %x, [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
    ```
  }];
  let arguments = (ins TXL_Tile:$src, DenseI32ArrayAttr:$order);
  let results = (outs TXL_Tile:$result);
  let assemblyFormat = "$src `,` $order attr-dict `:` qualified(type($src)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def TXL_ReshapeOp : TXL_Op<"reshape", [Pure, SameOperandsAndResultElementType]> {
  let summary = "a tile with another shape, elements in the same row-major order (tl.reshape)";
  let description = [{
    ```mlir
    %r = txl.reshape %x : tensor<64x32xf32> -> tensor<2048xf32>
    ```
  }];
  let arguments = (ins TXL_Tile:$src);
  let results = (outs TXL_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def TXL_JoinOp : TXL_Op<"join", [Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "stack two tiles along a new last dimension of size 2 (tl.join)";
  let description = [{
    ```mlir
    %j = txl.join %a, %b : tensor<64x32xf32> -> tensor<64x32x2xf32>
    ```
  }];
  let arguments = (ins TXL_Tile:$lhs, TXL_Tile:$rhs);
  let results = (outs TXL_Tile:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` qualified(type($lhs)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def TXL_SplitOp : TXL_Op<"split", [Pure, AllTypesMatch<["outLHS", "outRHS"]>]> {
  let summary = "the two halves of a tile's last dimension of size 2 (tl.split)";
  let description = [{
    ```mlir
    %a, %b = txl.split %j : tensor<64x32x2xf32> -> tensor<64x32xf32>
    ```
  }];
  let arguments = (ins TXL_Tile:$src);
  let results = (outs TXL_Tile:$outLHS, TXL_Tile:$outRHS);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` qualified(type($outLHS))";
  let hasVerifier = 1;
}

def TXL_ReduceOp : TXL_Op<"reduce", [SingleBlock, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<ConditionallySpeculatable>]> {
  let summary = "reduce tiles along `axis` with a combiner region";
  let description = [{
    The region takes two accumulators per operand (the running values, then
    the new ones) and yields the combined values with `txl.reduce_return`. A
    rank-1 operand reduces to a scalar.

    When the warps of the layout split `axis`, the per-warp partial results
    meet in `scratch` (a shared-memory view added by `--txl-allocate-scratch`);
    the op then reads and writes shared memory and synchronizes those warps.

    ```mlir
    %m = txl.reduce %s axis 1 : (tensor<64x128xf32>) -> tensor<64xf32> {
    ^bb0(%a: f32, %b: f32):
      %x = arith.maxnumf %a, %b : f32
      txl.reduce_return %x : f32
    }
    ```
  }];
  let arguments = (ins Variadic<TXL_Tile>:$srcs, I32Attr:$axis,
                       Optional<TXL_SmemView>:$scratch);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$combineOp);
  let assemblyFormat = [{
    $srcs `axis` $axis (`scratch` `(` $scratch^ `:` qualified(type($scratch)) `)`)? attr-dict `:`
    functional-type($srcs, $results) $combineOp
  }];
  let hasRegionVerifier = 1;
}

def TXL_WarpReduceOp : TXL_Op<"warp_reduce", [SingleBlock, RecursiveMemoryEffects]> {
  let summary = "per-warp partial reduction (TXL's warp_max / warp_sum)";
  let description = [{
    Combines, in each thread, the values its warp holds, and stops there:
    the result is one value per warp, replicated across the warp's lanes,
    and differs between warps (TXL's `warp_max` / `warp_sum`, whose cross-
    warp step the kernel writes itself with `txl.slot_store` /
    `txl.slot_load`). A rank-1 tile operand combines the elements the
    warp's registers and lanes hold in the tile's register layout (each
    element once; lanes holding copies of an element count it once); a
    scalar operand (a per-thread value, e.g. a `txl.slot_load`) combines the
    32 lanes' values. The region is txl.reduce's combiner (two values per
    operand, yielded with `txl.reduce_return`); it must be associative and
    commutative. No shared memory, no barrier: shuffles only.

    ```mlir
    %m = txl.warp_reduce %row : (tensor<1024xf32>) -> f32 {
    ^bb0(%a: f32, %b: f32):
      %x = arith.maxnumf %a, %b : f32
      txl.reduce_return %x : f32
    }
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$srcs);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$combineOp);
  let assemblyFormat = [{
    $srcs attr-dict `:` functional-type($srcs, $results) $combineOp
  }];
  let hasRegionVerifier = 1;
}

def TXL_ScanOp : TXL_Op<"scan", [SingleBlock, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<ConditionallySpeculatable>]> {
  let summary = "inclusive prefix scan of tiles along `axis` with a combiner region";
  let description = [{
    Result element i along `axis` combines the source elements 0..i in order
    (with `reverse`, n-1 down to i: the scan of the reversed tile, as in
    Triton), for tl.associative_scan / tl.cumsum. The region is txl.reduce's:
    two values per operand (the earlier elements' combination in scan order,
    then the later ones'), yielded with `txl.reduce_return`; it must be
    associative (the lowering combines in a tree), not necessarily commutative.
    Results have the sources' types and layouts.

    When the warps of the layout split `axis`, partial results cross warps
    through `scratch` (a shared-memory view added by `--txl-allocate-scratch`).

    ```mlir
    %c = txl.scan %x axis 0 : (tensor<128xi32>) -> tensor<128xi32> {
    ^bb0(%a: i32, %b: i32):
      %s = arith.addi %a, %b : i32
      txl.reduce_return %s : i32
    }
    ```
  }];
  let arguments = (ins Variadic<TXL_Tile>:$srcs, I32Attr:$axis, UnitAttr:$reverse,
                       Optional<TXL_SmemView>:$scratch);
  let results = (outs Variadic<TXL_Tile>:$results);
  let regions = (region SizedRegion<1>:$combineOp);
  let assemblyFormat = [{
    $srcs `axis` $axis (`reverse` $reverse^)?
    (`scratch` `(` $scratch^ `:` qualified(type($scratch)) `)`)? attr-dict `:`
    functional-type($srcs, $results) $combineOp
  }];
  let hasRegionVerifier = 1;
}

class TXL_AxisPermuteOp<string mnemonic, string summaryText> : TXL_Op<mnemonic, [
    AllTypesMatch<["src", "result"]>, DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<ConditionallySpeculatable>]> {
  let summary = summaryText;
  let results = (outs TXL_Tile:$result);
  let hasVerifier = 1;
}

def TXL_SortOp : TXL_AxisPermuteOp<"sort", "sort a tile along `axis` (tl.sort)"> {
  let description = [{
    The elements along `axis` in ascending order (descending with
    `descending`): a bitonic network whose compare-exchange partners are
    registers, lanes (shfl.sync.bfly) or warps (through `scratch`, added by
    `--txl-allocate-scratch` when the warps split the axis), as txl.scan's.
    Integers compare signed, floats by `<` (NaNs are not ordered).

    ```mlir
    %s = txl.sort %x axis 1 descending : tensor<16x128xf32>
    ```
  }];
  let arguments = (ins TXL_Tile:$src, I32Attr:$axis, UnitAttr:$descending,
                       Optional<TXL_SmemView>:$scratch);
  let assemblyFormat = [{
    $src `axis` $axis (`descending` $descending^)?
    (`scratch` `(` $scratch^ `:` qualified(type($scratch)) `)`)? attr-dict `:` qualified(type($src))
  }];
}

def TXL_FlipOp : TXL_AxisPermuteOp<"flip", "reverse a tile along `axis` (tl.flip)"> {
  let description = [{
    Element i along `axis` takes element n-1-i: every bit of the axis
    coordinate flips, each through its register, lane or warp partner, as
    txl.sort's.

    ```mlir
    %r = txl.flip %x axis 0 : tensor<128xi32>
    ```
  }];
  let arguments = (ins TXL_Tile:$src, I32Attr:$axis, Optional<TXL_SmemView>:$scratch);
  let assemblyFormat = [{
    $src `axis` $axis (`scratch` `(` $scratch^ `:` qualified(type($scratch)) `)`)? attr-dict `:`
    qualified(type($src))
  }];
}

def TXL_ReduceReturnOp : TXL_Op<"reduce_return", [Pure, Terminator,
    ParentOneOf<["ReduceOp", "ScanOp", "WarpReduceOp"]>, ReturnLike]> {
  let summary = "yield the combined values of a txl.reduce or txl.scan region";
  let description = [{ `txl.reduce_return %x : f32` }];
  let arguments = (ins Variadic<AnyType>:$results);
  let assemblyFormat = "$results attr-dict `:` qualified(type($results))";
}

def TXL_AddPtrOp : TXL_Op<"addptr", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "advance pointers by element offsets";
  let description = [{
    ```mlir
    %p = txl.addptr %base, %offs : tensor<128x!txl.ptr<f32>>, tensor<128xi32>
    ```
  }];
  let arguments = (ins TXL_PtrLike:$ptr, TXL_IntLike:$offset);
  let results = (outs TXL_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` qualified(type($ptr)) `,` qualified(type($offset))";
  let hasVerifier = 1;
}

def TXL_LoadOp : TXL_Op<"load", [AttrSizedOperandSegments,
    OptionalTypesMatchWith<"other has the result type", "result", "other", "$_self">,
    OptionalTypesMatchWith<"mask is i1 in the pointers' shape", "ptr", "mask", "::mlir::txl::getI1SameShape($_self)">]> {
  let summary = "load through a pointer or a tile of pointers, with mask and other";
  let description = [{
    Masked-off elements read nothing and take `other` (undefined when absent).

    ```mlir
    %x = txl.load %ptrs mask %m other %zero : tensor<128x!txl.ptr<f32>> -> tensor<128xf32>
    ```
  }];
  let arguments = (ins Arg<TXL_PtrLike, "", [MemRead]>:$ptr, Optional<TXL_BoolLike>:$mask,
                       Optional<AnyType>:$other,
                       DefaultValuedAttr<TXL_CacheModifierAttr, "::mlir::txl::CacheModifier::none">:$cache,
                       DefaultValuedAttr<TXL_EvictionPolicyAttr, "::mlir::txl::EvictionPolicy::evict_normal">:$evict,
                       UnitAttr:$isVolatile);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $ptr (`mask` $mask^)? (`other` $other^)? attr-dict `:` qualified(type($ptr)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def TXL_StoreOp : TXL_Op<"store", [
    OptionalTypesMatchWith<"mask is i1 in the pointers' shape", "ptr", "mask", "::mlir::txl::getI1SameShape($_self)">]> {
  let summary = "store through a pointer or a tile of pointers, with a mask";
  let description = [{
    ```mlir
    txl.store %ptrs, %x mask %m : tensor<128x!txl.ptr<f32>>, tensor<128xf32>
    ```
  }];
  let arguments = (ins Arg<TXL_PtrLike, "", [MemWrite]>:$ptr, AnyType:$value,
                       Optional<TXL_BoolLike>:$mask,
                       DefaultValuedAttr<TXL_CacheModifierAttr, "::mlir::txl::CacheModifier::none">:$cache,
                       DefaultValuedAttr<TXL_EvictionPolicyAttr, "::mlir::txl::EvictionPolicy::evict_normal">:$evict);
  let assemblyFormat = [{
    $ptr `,` $value (`mask` $mask^)? attr-dict `:` qualified(type($ptr)) `,` qualified(type($value))
  }];
  let hasVerifier = 1;
}

// Block pointers: TXLBlockPointerOps.td.
include "txl/Dialect/TXL/IR/TXLBlockPointerOps.td"

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

def TXL_AtomicRMWOp : TXL_Op<"atomic_rmw", [AttrSizedOperandSegments,
    AllTypesMatch<["value", "result"]>,
    OptionalTypesMatchWith<"mask is i1 in the pointers' shape", "ptr", "mask", "::mlir::txl::getI1SameShape($_self)">,
    MemoryEffects<[MemRead<TXL_SharedMemory>, MemWrite<TXL_SharedMemory>]>]> {
  let summary = "atomic read-modify-write through a pointer or a tile of pointers";
  let description = [{
    Every element `*p = op(*p, v)` in one atomic step and returns the old
    value (PTX `atom`; `red` when the result is unused and `sem` allows it).
    `kind`: add (i32, i64, f16, bf16, f32, f64), max/min (signed i32/i64;
    f32/f64 through a signed max and an unsigned min on the bits, as Triton
    does), umax/umin (unsigned i32/i64), and/or/xor (i32, i64), xchg (32 and
    64-bit). `sem` is the memory ordering (relaxed, acquire, release,
    acq_rel) and `scope` the threads it orders against (cta, cluster, gpu,
    sys). Masked-off elements touch no memory and return 0.

    An element a layout holds in several threads (or registers) is updated
    once; a scalar pointer is updated once per group of warps that runs the
    op (a warpgroup; a warp inside a `txl.is_warp` region). When the old
    values of such an op are used, the updating thread hands them to the
    others through `scratch`, which `--txl-allocate-scratch` adds.

    ```mlir
    %old = txl.atomic_rmw add acq_rel gpu %ptrs, %v mask %m
        : tensor<128x!txl.ptr<f32>>, tensor<128xf32>
    ```
  }];
  let arguments = (ins TXL_AtomicRMWKindAttr:$kind, TXL_MemSemanticAttr:$sem,
                       TXL_MemScopeAttr:$scope,
                       Arg<TXL_PtrLike, "", [MemRead, MemWrite]>:$ptr, AnyType:$value,
                       Optional<TXL_BoolLike>:$mask, Optional<TXL_SmemView>:$scratch);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $kind $sem $scope $ptr `,` $value (`mask` $mask^)?
    (`scratch` `(` $scratch^ `:` qualified(type($scratch)) `)`)? attr-dict `:`
    qualified(type($ptr)) `,` qualified(type($value))
  }];
  let hasVerifier = 1;
}

def TXL_AtomicCASOp : TXL_Op<"atomic_cas", [AllTypesMatch<["cmp", "value", "result"]>,
    MemoryEffects<[MemRead<TXL_SharedMemory>, MemWrite<TXL_SharedMemory>]>]> {
  let summary = "atomic compare-and-swap through a pointer or a tile of pointers";
  let description = [{
    Every element: `old = *p; if (old == cmp) *p = value;` in one atomic
    step, returning `old` (PTX `atom.cas`, 16, 32 and 64-bit elements,
    compared bit for bit). `sem`, `scope` and `scratch` as for
    txl.atomic_rmw.

    ```mlir
    %old = txl.atomic_cas acq_rel gpu %lock, %zero, %one : !txl.ptr<i32>, i32
    ```
  }];
  let arguments = (ins TXL_MemSemanticAttr:$sem, TXL_MemScopeAttr:$scope,
                       Arg<TXL_PtrLike, "", [MemRead, MemWrite]>:$ptr, AnyType:$cmp,
                       AnyType:$value, Optional<TXL_SmemView>:$scratch);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $sem $scope $ptr `,` $cmp `,` $value
    (`scratch` `(` $scratch^ `:` qualified(type($scratch)) `)`)? attr-dict `:`
    qualified(type($ptr)) `,` qualified(type($value))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Inline assembly
//===----------------------------------------------------------------------===//

def TXL_ElementwiseInlineAsmOp : TXL_Op<"elementwise_inline_asm", [Elementwise,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "user PTX applied to the elements of tiles (tl.inline_asm_elementwise)";
  let description = [{
    Runs `asm_string` (PTX with LLVM's `$N` operand references) once per
    `packed_element` elements a thread holds, as Triton's
    `tt.elementwise_inline_asm`: operands and results are all tiles of one
    shape (one layout) or all scalars. Per call, an operand or result whose
    elements are narrower than 32 bits passes min(packed_element,
    32 / bits) of them in one 32-bit register (a vector), so `constraints`
    lists, in order, the results' registers (`=r`, ...) and then the
    operands' (`r`, `l`, `f`, ... or a tied `0`), then `~{...}` clobbers.
    Without `pure` the asm may have side effects (it is kept and not
    merged). A thread whose register count is not a multiple of
    `packed_element` runs its last call with the chunk's first element
    repeated in the missing places (the extra results are dropped).

    ```mlir
    %y = txl.elementwise_inline_asm "ex2.approx.f32 $0, $1;", "=f,f" (%x)
        {packed_element = 1 : i32, pure = true}
        : (tensor<128xf32>) -> tensor<128xf32>
    ```
  }];
  let arguments = (ins StrAttr:$asm_string, StrAttr:$constraints, BoolAttr:$pure,
                       I32Attr:$packed_element, Variadic<AnyType>:$srcs);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $asm_string `,` $constraints `(` $srcs `)` attr-dict `:` functional-type($srcs, $results)
  }];
  let extraClassDeclaration = [{
    /// Elements of type `elt` one asm register carries per call: 32 / bits
    /// for types narrower than 32 bits (at most `packed`), else 1.
    static int64_t elementsPerRegister(::mlir::Type elt, int64_t packed);
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Gather
//===----------------------------------------------------------------------===//

def TXL_GatherOp : TXL_Op<"gather", [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<ConditionallySpeculatable>]> {
  let summary = "elements of a tile picked along `axis` by a tile of indices (tl.gather)";
  let description = [{
    Triton's `tt.gather`: `result[i][j] = src[index[i][j]][j]` for axis 0
    (and likewise for any axis). `index` has `src`'s rank and its size in
    every dimension but `axis`; the result has `index`'s shape (and layout)
    and `src`'s element type. The lowering goes through `scratch`, a view of
    `src`'s shape that `--txl-allocate-scratch` adds: every thread stores
    its `src` registers, the warps of the layouts synchronize, every thread
    reads its elements at the indices it holds. Indices are taken modulo
    the axis size (out-of-range indices are undefined in Triton; here they
    cannot read outside the scratch).

    ```mlir
    %g = txl.gather %src[%idx] axis 0 : tensor<64x32xf32>, tensor<16x32xi32> -> tensor<16x32xf32>
    ```
  }];
  let arguments = (ins TXL_Tile:$src, TXL_Tile:$index, I32Attr:$axis,
                       Optional<TXL_SmemView>:$scratch);
  let results = (outs TXL_Tile:$result);
  let assemblyFormat = [{
    $src `[` $index `]` `axis` $axis
    (`scratch` `(` $scratch^ `:` qualified(type($scratch)) `)`)? attr-dict `:`
    qualified(type($src)) `,` qualified(type($index)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Histogram
//===----------------------------------------------------------------------===//

def TXL_HistogramOp : TXL_Op<"histogram", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<ConditionallySpeculatable>]> {
  let summary = "counts of the values 0 .. num_bins - 1 in a 1-D tile (tl.histogram)";
  let description = [{
    Triton's `tt.histogram`: `result[b]` is the number of elements of `src`
    (where `mask` is set) equal to `b`, for `b` in [0, num_bins); other
    values are not counted. The lowering counts in `scratch`, a
    `num_bins` x i32 view that `--txl-allocate-scratch` adds: zeroed, one
    shared-memory atomic add per element (each element once, however many
    threads its layout copies it to), then read back in the result's layout.

    ```mlir
    %h = txl.histogram %x : tensor<1024xi32> -> tensor<64xi32>
    %m = txl.histogram %x mask %keep : tensor<1024xi32> -> tensor<64xi32>
    ```
  }];
  let arguments = (ins TXL_Tile:$src, Optional<TXL_Tile>:$mask, Optional<TXL_SmemView>:$scratch);
  let results = (outs TXL_Tile:$result);
  let assemblyFormat = [{
    $src (`mask` $mask^ `:` qualified(type($mask)))?
    (`scratch` `(` $scratch^ `:` qualified(type($scratch)) `)`)? attr-dict `:`
    qualified(type($src)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

#endif // TXL_OPS_TD
