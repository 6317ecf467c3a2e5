// RUN: txl-opt %s -split-input-file -verify-diagnostics

// Verifier rules of the txl dialect: shared- and tensor-memory buffers and views (smem_*, get_buffer, tmem_*, frag_smem_*).
// (One file per op group; invalid types and attributes are in invalid-types.mlir.)

// txl.ring / txl.staging (set by the tile-copy passes) mark a txl.smem_alloc.
func.func @f() {
  // expected-error @+1 {{'txl.ring' is a unit attribute on txl.smem_alloc}}
  %a = txl.smem_alloc {txl.ring = 1 : i32} : !txl.smem<64x64xbf16, stages = 2>
  return
}

// -----

// Tensor memory does not exist on Hopper.
module attributes {txl.target = "sm_90a"} {
  func.func @f() {
    // expected-error @+1 {{'txl.tmem_alloc' op needs an sm_100a (Blackwell) target: tensor memory and tcgen05 do not exist on sm_90a; set txl.target = "sm_100a" on the module}}
    %a = txl.tmem_alloc : !txl.tmem<128x128xf32, stages = 1>
    return
  }
}

// -----

// tmem_load needs sm_100a (no target: sm_90a).
func.func @f(%a: !txl.tmem<128x128xf32>) {
  // expected-error @+1 {{'txl.tmem_load' op needs an sm_100a (Blackwell) target}}
  %t = txl.tmem_load %a : !txl.tmem<128x128xf32> -> tensor<128x128xf32>
  return
}

// -----

// tmem_store needs sm_100a.
module attributes {txl.target = "sm_90a"} {
  func.func @f(%t: tensor<128x128xf32>, %a: !txl.tmem<128x128xf32>) {
    // expected-error @+1 {{'txl.tmem_store' op needs an sm_100a (Blackwell) target}}
    txl.tmem_store %t, %a : tensor<128x128xf32>, !txl.tmem<128x128xf32>
    return
  }
}

// -----

// A block has at most 227 KB of shared memory: 4 x 128x128xf32 is 256 KB.
func.func @f() {
  // expected-error @+1 {{'txl.smem_alloc' op allocates 262144 bytes, more than the 232448 bytes (227 KB) of shared memory a block can have; use fewer stages or smaller tiles}}
  %a = txl.smem_alloc : !txl.smem<128x128xf32, stages = 4>
  return
}

// -----

// The shared-memory size saturates: 2^60 stages do not wrap around to 0 bytes.
func.func @f() {
  // expected-error @+1 {{'txl.smem_alloc' op allocates 9223372036854775807 bytes, more than the 232448 bytes (227 KB)}}
  %a = txl.smem_alloc : !txl.smem<64xf32, stages = 1152921504606846976>
  return
}

// -----

// So does a tile of 2^64 elements.
func.func @f() {
  // expected-error @+1 {{'txl.smem_alloc' op allocates 2305843009213693952 bytes, more than the 232448 bytes (227 KB)}}
  %a = txl.smem_alloc : !txl.smem<4294967296x4294967296xf32, stages = 1>
  return
}

// -----

// smem_alloc returns an allocation with stages, not a view.
func.func @f() {
  // expected-error @+1 {{'txl.smem_alloc' op result #0 must be multi-stage shared-memory allocation, but got '!txl.smem<128x64xbf16>'}}
  %a = txl.smem_alloc : !txl.smem<128x64xbf16>
  return
}

// -----

// A constant stage index is checked against the stages.
func.func @f() {
  %c3 = arith.constant 3 : i32
  %a = txl.smem_alloc : !txl.smem<128x64xbf16, stages = 3>
  // expected-error @+1 {{'txl.get_buffer' op stage index 3 is out of range [0, 3)}}
  %v = txl.get_buffer %a[%c3] : !txl.smem<128x64xbf16, stages = 3>
  return
}

// -----

// A negative constant stage index is out of range.
func.func @f(%bars: !txl.mbar<2>) {
  %c = arith.constant -1 : i32
  // expected-error @+1 {{'txl.get_buffer' op stage index -1 is out of range [0, 2)}}
  %b = txl.get_buffer %bars[%c] : !txl.mbar<2>
  return
}

// -----

// get_buffer selects a stage of an allocation, not of a view.
func.func @f(%v: !txl.smem<128x64xbf16>, %i: i32) {
  // expected-error @+1 {{'txl.get_buffer' op source is already a single buffer ('!txl.smem<128x64xbf16>'); get_buffer selects a stage of an allocation with stages}}
  %w = txl.get_buffer %v[%i] : !txl.smem<128x64xbf16>
  return
}

// -----

// get_buffer of a single mbarrier.
func.func @f(%b: !txl.mbar, %i: i32) {
  // expected-error @+1 {{'txl.get_buffer' op source is already a single buffer ('!txl.mbar')}}
  %w = txl.get_buffer %b[%i] : !txl.mbar
  return
}

// -----

// get_buffer takes a txl buffer.
func.func @f(%t: tensor<4x64xf32>, %i: i32) {
  // expected-error @+1 {{txl.get_buffer takes a !txl.smem, !txl.tmem or !txl.mbar, got 'tensor<4x64xf32>'}}
  %w = txl.get_buffer %t[%i] : tensor<4x64xf32>
  return
}

// -----

// The result of get_buffer is the stage's view (generic form with a wrong result).
func.func @f(%a: !txl.smem<128x64xbf16, stages = 2>, %i: i32) {
  // expected-error @+2 {{'txl.get_buffer' op inferred type(s) '!txl.smem<128x64xbf16>' are incompatible with return type(s) of operation '!txl.smem<64x64xbf16>'}}
  // expected-error @+1 {{'txl.get_buffer' op failed to infer returned types}}
  %w = "txl.get_buffer"(%a, %i) : (!txl.smem<128x64xbf16, stages = 2>, i32) -> !txl.smem<64x64xbf16>
  return
}

// -----

// smem_load reads a view, not a multi-stage allocation.
func.func @f(%a: !txl.smem<64x64xf32, stages = 2>) {
  // expected-error @+1 {{'txl.smem_load' op operand #0 must be shared-memory view (one stage), but got '!txl.smem<64x64xf32, stages = 2>'}}
  %t = txl.smem_load %a : !txl.smem<64x64xf32, stages = 2> -> tensor<64x64xf32>
  return
}

// -----

// smem_load: the tile has the view's element type.
func.func @f(%v: !txl.smem<64x64xf32>) {
  // expected-error @+1 {{'txl.smem_load' op result element type 'f16' does not match the shared-memory element type 'f32'}}
  %t = txl.smem_load %v : !txl.smem<64x64xf32> -> tensor<64x64xf16>
  return
}

// -----

// smem_load: the tile has the view's shape.
func.func @f(%v: !txl.smem<64x64xf32>) {
  // expected-error @+1 {{'txl.smem_load' op result shape [64, 32] does not match the shared-memory shape [64, 64]}}
  %t = txl.smem_load %v : !txl.smem<64x64xf32> -> tensor<64x32xf32>
  return
}

// -----

// smem_store: the value has the view's element type.
func.func @f(%t: tensor<64x64xbf16>, %v: !txl.smem<64x64xf16>) {
  // expected-error @+1 {{'txl.smem_store' op value element type 'bf16' does not match the shared-memory element type 'f16'}}
  txl.smem_store %t, %v : tensor<64x64xbf16>, !txl.smem<64x64xf16>
  return
}

// -----

// smem_store: the value has the view's shape.
func.func @f(%t: tensor<64xf16>, %v: !txl.smem<64x64xf16>) {
  // expected-error @+1 {{'txl.smem_store' op value shape [64] does not match the shared-memory shape [64, 64]}}
  txl.smem_store %t, %v : tensor<64xf16>, !txl.smem<64x64xf16>
  return
}

// -----

// frag_smem_load: element types agree.
func.func @f(%v: !txl.smem<128xf32>) {
  // expected-error @+1 {{'txl.frag_smem_load' op tile element type 'f16' does not match the shared-memory element type 'f32'}}
  %t = txl.frag_smem_load %v : !txl.smem<128xf32> -> tensor<128xf16>
  return
}

// -----

// frag_smem_load: a 2-D tile broadcasts a 1-D view along a dimension of the view's size.
func.func @f(%v: !txl.smem<128xf32>) {
  // expected-error @+1 {{'txl.frag_smem_load' op tile shape [64, 64] must equal the shared-memory shape [128], or be 2-D with one dimension equal to a 1-D view}}
  %t = txl.frag_smem_load %v : !txl.smem<128xf32> -> tensor<64x64xf32>
  return
}

// -----

// frag_smem_load: 'other' has the result type (checked by the op's type constraint).
func.func @f(%v: !txl.smem<128xf32>, %o: tensor<128x2xf32>) {
  // expected-error @+1 {{'txl.frag_smem_load' op failed to verify that other has the result type}}
  %t = "txl.frag_smem_load"(%v, %o) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (!txl.smem<128xf32>, tensor<128x2xf32>) -> tensor<128x4xf32>
  return
}

// -----

// frag_smem_store: element types agree.
func.func @f(%t: tensor<128x1xf16>, %v: !txl.smem<128xf32>) {
  // expected-error @+1 {{'txl.frag_smem_store' op tile element type 'f16' does not match the shared-memory element type 'f32'}}
  txl.frag_smem_store %t, %v : tensor<128x1xf16>, !txl.smem<128xf32>
  return
}

// -----

// frag_smem_store: only a 2-D value may go into a 1-D view.
func.func @f(%t: tensor<2x4x128xf32>, %v: !txl.smem<128xf32>) {
  // expected-error @+1 {{'txl.frag_smem_store' op tile shape [2, 4, 128] must equal the shared-memory shape [128], or be 2-D with one dimension equal to a 1-D view}}
  txl.frag_smem_store %t, %v : tensor<2x4x128xf32>, !txl.smem<128xf32>
  return
}

// -----

// frag_smem_store signals one mbarrier, not an array.
func.func @f(%t: tensor<128xf32>, %v: !txl.smem<128xf32>, %bars: !txl.mbar<2>) {
  // expected-error @+1 {{'txl.frag_smem_store' op operand #2 must be one mbarrier (!txl.mbar), but got '!txl.mbar<2>'}}
  "txl.frag_smem_store"(%t, %v, %bars) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (tensor<128xf32>, !txl.smem<128xf32>, !txl.mbar<2>) -> ()
  return
}

// -----

// A constant smem_index row is checked against the leading dimension.
func.func @f(%v: !txl.smem<2x64x64xbf16>) {
  %c2 = arith.constant 2 : i32
  // expected-error @+1 {{'txl.smem_index' op row index 2 is out of range [0, 2)}}
  %r = txl.smem_index %v[%c2] : !txl.smem<2x64x64xbf16>
  return
}

// -----

// smem_subslice keeps the element type.
func.func @f(%v: !txl.smem<128x128xbf16>) {
  // expected-error @+1 {{'txl.smem_subslice' op result element type must be 'bf16'}}
  %s = txl.smem_subslice %v [64, 0] : !txl.smem<128x128xbf16> -> !txl.smem<64x128xf16>
  return
}

// -----

// smem_subslice takes one offset per dimension.
func.func @f(%v: !txl.smem<128x128xbf16>) {
  // expected-error @+1 {{'txl.smem_subslice' op needs one offset per dimension and a result of rank 2}}
  %s = txl.smem_subslice %v [64] : !txl.smem<128x128xbf16> -> !txl.smem<64x128xbf16>
  return
}

// -----

// smem_subslice keeps the rank.
func.func @f(%v: !txl.smem<128x128xbf16>) {
  // expected-error @+1 {{'txl.smem_subslice' op needs one offset per dimension and a result of rank 2}}
  %s = txl.smem_subslice %v [64, 0] : !txl.smem<128x128xbf16> -> !txl.smem<128xbf16>
  return
}

// -----

// smem_subslice stays inside the source.
func.func @f(%v: !txl.smem<128x128xbf16>) {
  // expected-error @+1 {{'txl.smem_subslice' op slice [64, 128] at [96, 0] is out of bounds of [128, 128] in dimension 0}}
  %s = txl.smem_subslice %v [96, 0] : !txl.smem<128x128xbf16> -> !txl.smem<64x128xbf16>
  return
}

// -----

// smem_subslice offsets are not negative.
func.func @f(%v: !txl.smem<128x128xbf16>) {
  // expected-error @+1 {{'txl.smem_subslice' op slice [64, 64] at [0, -8] is out of bounds of [128, 128] in dimension 1}}
  %s = txl.smem_subslice %v [0, -8] : !txl.smem<128x128xbf16> -> !txl.smem<64x64xbf16>
  return
}

// -----

// A huge smem_subslice offset does not overflow past the bounds check.
func.func @f(%v: !txl.smem<128x128xbf16>) {
  // expected-error @+1 {{'txl.smem_subslice' op slice [64, 128] at [9223372036854775807, 0] is out of bounds of [128, 128] in dimension 0}}
  %s = txl.smem_subslice %v [9223372036854775807, 0] : !txl.smem<128x128xbf16> -> !txl.smem<64x128xbf16>
  return
}

// -----

// A result larger than the source is out of bounds.
func.func @f(%v: !txl.smem<64x64xbf16>) {
  // expected-error @+1 {{'txl.smem_subslice' op slice [128, 64] at [0, 0] is out of bounds of [64, 64] in dimension 0}}
  %s = txl.smem_subslice %v [0, 0] : !txl.smem<64x64xbf16> -> !txl.smem<128x64xbf16>
  return
}

// -----

// smem_trans keeps the element type.
func.func @f(%v: !txl.smem<128x64xbf16>) {
  // expected-error @+1 {{'txl.smem_trans' op result element type must be 'bf16'}}
  %t = txl.smem_trans %v [1, 0] : !txl.smem<128x64xbf16> -> !txl.smem<64x128xf16>
  return
}

// -----

// smem_trans lists every dimension.
func.func @f(%v: !txl.smem<128x64xbf16>) {
  // expected-error @+1 {{'txl.smem_trans' op order must list all 2 dimensions}}
  %t = txl.smem_trans %v [1] : !txl.smem<128x64xbf16> -> !txl.smem<64x128xbf16>
  return
}

// -----

// smem_trans order is a permutation (no repeats).
func.func @f(%v: !txl.smem<128x64xbf16>) {
  // expected-error @+1 {{'txl.smem_trans' op order must be a permutation of 0..1}}
  %t = txl.smem_trans %v [1, 1] : !txl.smem<128x64xbf16> -> !txl.smem<64x64xbf16>
  return
}

// -----

// smem_trans order is a permutation (in range).
func.func @f(%v: !txl.smem<128x64xbf16>) {
  // expected-error @+1 {{'txl.smem_trans' op order must be a permutation of 0..1}}
  %t = txl.smem_trans %v [0, 2] : !txl.smem<128x64xbf16> -> !txl.smem<128x64xbf16>
  return
}

// -----

// smem_trans result shape is the permuted source shape.
func.func @f(%v: !txl.smem<128x64xbf16>) {
  // expected-error @+1 {{'txl.smem_trans' op result shape must be [64, 128], got [128, 64]}}
  %t = txl.smem_trans %v [1, 0] : !txl.smem<128x64xbf16> -> !txl.smem<128x64xbf16>
  return
}

// -----

// smem_reshape keeps the element count.
func.func @f(%v: !txl.smem<128x64xbf16>) {
  // expected-error @+1 {{'txl.smem_reshape' op must keep the element type and the element count (8192 x 'bf16')}}
  %r = txl.smem_reshape %v : !txl.smem<128x64xbf16> -> !txl.smem<2x64x32xbf16>
  return
}

// -----

// smem_reshape keeps the element type.
func.func @f(%v: !txl.smem<128x64xbf16>) {
  // expected-error @+1 {{'txl.smem_reshape' op must keep the element type and the element count (8192 x 'bf16')}}
  %r = txl.smem_reshape %v : !txl.smem<128x64xbf16> -> !txl.smem<2x64x64xf16>
  return
}

//===----------------------------------------------------------------------===//
// Tensor memory
//===----------------------------------------------------------------------===//

// -----

// A block has 512 TMEM columns: 3 x 256 f32 columns is too many.
module attributes {txl.target = "sm_100a"} {
  func.func @f() {
    // expected-error @+1 {{'txl.tmem_alloc' op needs 768 TMEM columns, more than the 512 a block has; use fewer stages or narrower tiles}}
    %a = txl.tmem_alloc : !txl.tmem<128x256xf32, stages = 3>
    return
  }
}

// -----

// The TMEM column count saturates: 2^62 stages do not wrap around to 0 columns.
module attributes {txl.target = "sm_100a"} {
  func.func @f() {
    // expected-error @+1 {{'txl.tmem_alloc' op needs 9223372036854775807 TMEM columns, more than the 512 a block has}}
    %a = txl.tmem_alloc : !txl.tmem<128x32xf32, stages = 4611686018427387904>
    return
  }
}

// -----

// tmem_load: the tile has the buffer's element type.
module attributes {txl.target = "sm_100a"} {
  func.func @f(%a: !txl.tmem<128x128xf32>) {
    // expected-error @+1 {{'txl.tmem_load' op result element type 'f16' does not match the tensor-memory element type 'f32'}}
    %t = txl.tmem_load %a : !txl.tmem<128x128xf32> -> tensor<128x128xf16>
    return
  }
}

// -----

// tmem_load: the tile has the buffer's shape.
module attributes {txl.target = "sm_100a"} {
  func.func @f(%a: !txl.tmem<128x128xf32>) {
    // expected-error @+1 {{'txl.tmem_load' op result shape [64, 128] does not match the tensor-memory shape [128, 128]}}
    %t = txl.tmem_load %a : !txl.tmem<128x128xf32> -> tensor<64x128xf32>
    return
  }
}

// -----

// tmem_store: the value has the buffer's element type.
module attributes {txl.target = "sm_100a"} {
  func.func @f(%t: tensor<128x128xbf16>, %a: !txl.tmem<128x128xf32>) {
    // expected-error @+1 {{'txl.tmem_store' op value element type 'bf16' does not match the tensor-memory element type 'f32'}}
    txl.tmem_store %t, %a : tensor<128x128xbf16>, !txl.tmem<128x128xf32>
    return
  }
}

// -----

// tmem_store: the value has the buffer's shape.
module attributes {txl.target = "sm_100a"} {
  func.func @f(%t: tensor<128x64xf32>, %a: !txl.tmem<128x128xf32>) {
    // expected-error @+1 {{'txl.tmem_store' op value shape [128, 64] does not match the tensor-memory shape [128, 128]}}
    txl.tmem_store %t, %a : tensor<128x64xf32>, !txl.tmem<128x128xf32>
    return
  }
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

// -----

// ctaId names a CTA of the kernel's cluster.
func.func @cta_outside_cluster(%v: !txl.smem<128xf32>) attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_ctas = 2 : i32} {
  // expected-error @+1 {{'txl.smem_load' op ctaId 2 is not a CTA of this kernel's cluster of 2 (txl.num_ctas); launch with num_ctas > 2}}
  %t = txl.smem_load %v {ctaId = 2 : i32} : !txl.smem<128xf32> -> tensor<128xf32>
  return
}

// -----

func.func @negative_cta(%v: !txl.smem<128xf32>, %t: tensor<128xf32>) {
  // expected-error @+1 {{'txl.smem_store' op ctaId must be -1 (this CTA) or a CTA rank >= 0, got -2}}
  txl.smem_store %t, %v {ctaId = -2 : i32} : tensor<128xf32>, !txl.smem<128xf32>
  return
}

// -----

// slicedDim drops one dimension of a 2-D value stored into a 1-D view.
func.func @f(%t: tensor<64x32xi8>, %v: !txl.smem<64xi8>) {
  // expected-error @+1 {{'txl.frag_smem_store' op slicedDim = 0 drops a dimension of a 2-D value stored into a 1-D view, keeping one of the view's size; got value [64, 32] and view [64]}}
  txl.frag_smem_store %t, %v {slicedDim = 0 : i32} : tensor<64x32xi8>, !txl.smem<64xi8>
  return
}

// -----

// A view may be a K step inside a swizzle atom, an allocation may not: its
// storage is whole atoms.
func.func @f() {
  // expected-error @+1 {{'txl.smem_alloc' op a buffer with a 128-byte swizzle needs rows of a multiple of 128 bytes, but 32 x 'f16' is 64 bytes; use a smaller swizzle or a wider tile}}
  %a = txl.smem_alloc : !txl.smem<128x32xf16, stages = 1, #txl.nvmma_shared<swizzle = 128>>
  return
}
