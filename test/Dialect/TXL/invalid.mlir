// RUN: txl-opt %s -split-input-file -verify-diagnostics

// Every op verifier rule of the txl dialect, and the discardable attributes
// txl.target / txl.kernel / txl.num_warps. Invalid types and attributes are
// in invalid-types.mlir.

//===----------------------------------------------------------------------===//
// Discardable attributes and the sm_100a requirement
//===----------------------------------------------------------------------===//

// txl.target names a known architecture.
// expected-error @+1 {{'txl.target' must be the string "sm_90a" (Hopper) or "sm_100a" (Blackwell), got "sm_80"}}
module attributes {txl.target = "sm_80"} {}

// -----

// txl.target is a string, not any attribute.
// expected-error @+1 {{'txl.target' must be the string "sm_90a" (Hopper) or "sm_100a" (Blackwell), got 90 : i64}}
module attributes {txl.target = 90} {}

// -----

// txl.target belongs on a module, not on a function.
// expected-error @+1 {{'txl.target' belongs on a module}}
func.func @f() attributes {txl.target = "sm_90a"} {
  return
}

// -----

// txl.kernel is a unit attribute.
// expected-error @+1 {{'txl.kernel' is a unit attribute on a function}}
func.func @f() attributes {txl.kernel = true} {
  return
}

// -----

// txl.kernel belongs on a function.
// expected-error @+1 {{'txl.kernel' is a unit attribute on a function}}
module attributes {txl.kernel} {}

// -----

// txl.num_warps counts whole warpgroups: a multiple of 4.
// expected-error @+1 {{'txl.num_warps' must be an integer multiple of 4 in 4..32 (whole warpgroups, at most 1024 threads)}}
func.func @f() attributes {txl.kernel, txl.num_warps = 6 : i32} {
  return
}

// -----

// txl.num_warps is at most 32 (1024 threads).
// expected-error @+1 {{'txl.num_warps' must be an integer multiple of 4 in 4..32}}
func.func @f() attributes {txl.kernel, txl.num_warps = 36 : i32} {
  return
}

// -----

// txl.num_warps is at least 4.
// expected-error @+1 {{'txl.num_warps' must be an integer multiple of 4 in 4..32}}
func.func @f() attributes {txl.kernel, txl.num_warps = 0 : i32} {
  return
}

// -----

// txl.num_warps is an integer.
// expected-error @+1 {{'txl.num_warps' must be an integer multiple of 4 in 4..32}}
func.func @f() attributes {txl.kernel, txl.num_warps = "8"} {
  return
}

// -----

// txl.num_warps wider than 64 bits is rejected, not truncated.
// expected-error @+1 {{'txl.num_warps' must be an integer multiple of 4 in 4..32}}
func.func @f() attributes {txl.kernel, txl.num_warps = 18446744073709551624 : i128} {
  return
}

// -----

// txl.offset and txl.shared_bytes (set by the pipeline) are integers.
// expected-error @+1 {{'txl.shared_bytes' must be an integer}}
func.func @f() attributes {txl.shared_bytes = "1024"} {
  return
}

// -----

// Other txl.* attributes are unknown.
// expected-error @+1 {{unknown txl attribute 'txl.stages'}}
func.func @f() attributes {txl.stages = 3 : i32} {
  return
}

// -----

// txl.num_stages (Triton's pipeline depth, on a kernel or a loop) is 1..16.
// expected-error @+1 {{'txl.num_stages' must be an integer in 1..16 (1: no pipelining)}}
func.func @f() attributes {txl.num_stages = 0 : i32} {
  return
}

// -----

// expected-error @+1 {{'txl.num_stages' must be an integer in 1..16 (1: no pipelining)}}
func.func @f() attributes {txl.num_stages = 17 : i32} {
  return
}

// -----

// expected-error @+1 {{'txl.num_stages' must be an integer in 1..16 (1: no pipelining)}}
func.func @f() attributes {txl.num_stages = "3"} {
  return
}

// -----

// txl.num_stages belongs on a kernel function or an scf.for.
func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{'txl.num_stages' belongs on a kernel function or an scf.for}}
    %x = arith.addi %i, %c1 {txl.num_stages = 2 : i32} : index
  }
  return
}

// -----

// txl.ring / txl.staging (set by the tile-copy passes) mark a txl.smem_alloc.
func.func @f() {
  // expected-error @+1 {{'txl.ring' is a unit attribute on txl.smem_alloc}}
  %a = txl.smem_alloc {txl.ring = 1 : i32} : !txl.smem<64x64xbf16, stages = 2>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'txl.staging' is a unit attribute on txl.smem_alloc}}
  %b = txl.mbar_alloc count 1 {txl.staging} : !txl.mbar<2>
  return
}

// -----

// txl.stage / txl.order (a loop schedule) are integers.
func.func @f() {
  // expected-error @+1 {{'txl.stage' must be an integer}}
  %b = txl.mbar_alloc count 1 {txl.stage = "0"} : !txl.mbar<2>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'txl.order' must be an integer}}
  %b = txl.mbar_alloc count 1 {txl.order = 1.0 : f32} : !txl.mbar<2>
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

// Without txl.target the target is sm_90a: no tcgen05.
func.func @f(%a: !txl.smem<128x64xbf16>, %b: !txl.smem<64x128xbf16>, %c: !txl.tmem<128x128xf32>) {
  // expected-error @+1 {{'txl.dotx' op needs an sm_100a (Blackwell) target: tensor memory and tcgen05 do not exist on sm_90a}}
  txl.dotx %a, %b, %c : !txl.smem<128x64xbf16>, !txl.smem<64x128xbf16>, !txl.tmem<128x128xf32>
  return
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

// TMA gather4 needs sm_100a.
func.func @f(%d: !txl.tensordesc<1x64xbf16>, %rows: tensor<8xi32>, %col: i32,
             %buf: !txl.smem<8x64xbf16>, %bar: !txl.mbar) {
  // expected-error @+1 {{'txl.tma_gather' op needs an sm_100a (Blackwell) target}}
  txl.tma_gather %d[%rows, %col], %buf, %bar : !txl.tensordesc<1x64xbf16>, tensor<8xi32>, !txl.smem<8x64xbf16>
  return
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

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

// smem_index needs a view of rank >= 2.
func.func @f(%v: !txl.smem<128xf32>, %i: i32) {
  // expected-error @+1 {{txl.smem_index needs a shared-memory view of rank >= 2}}
  %r = txl.smem_index %v[%i] : !txl.smem<128xf32>
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

// An mbarrier needs at least one arrival.
func.func @f() {
  // expected-error @+1 {{'txl.mbar_alloc' op arrive count must be in 1..1048575, got 0}}
  %b = txl.mbar_alloc count 0 : !txl.mbar<2>
  return
}

// -----

// A negative arrival count is reported as negative.
func.func @f() {
  // expected-error @+1 {{'txl.mbar_alloc' op arrive count must be in 1..1048575, got -1}}
  %b = txl.mbar_alloc count -1 : !txl.mbar<2>
  return
}

// -----

// The arrival count is 20-bit.
func.func @f() {
  // expected-error @+1 {{'txl.mbar_alloc' op arrive count must be in 1..1048575, got 1048576}}
  %b = txl.mbar_alloc count 1048576 : !txl.mbar<2>
  return
}

// -----

// mbar_expect announces a positive byte count.
func.func @f(%b: !txl.mbar) {
  // expected-error @+1 {{'txl.mbar_expect' op expects 0 bytes; the count must be in 1..1048575}}
  txl.mbar_expect %b, 0
  return
}

// -----

// The tx-count of mbar_expect is 20-bit.
func.func @f(%b: !txl.mbar) {
  // expected-error @+1 {{'txl.mbar_expect' op expects 2097152 bytes; the count must be in 1..1048575}}
  txl.mbar_expect %b, 2097152
  return
}

// -----

// mbar_expect's bytes equal what the TMA loads on the barrier in the block deliver.
func.func @f(%d: !txl.tensordesc<128x64xbf16>, %x: i32, %v0: !txl.smem<128x64xbf16>,
             %v1: !txl.smem<128x64xbf16>, %b: !txl.mbar) {
  // expected-error @+1 {{'txl.mbar_expect' op expects 16384 bytes, but the TMA loads signalling this barrier in the same block deliver 32768 bytes}}
  txl.mbar_expect %b, 16384
  txl.tma_load %d[%x, %x], %v0, %b : !txl.tensordesc<128x64xbf16>, !txl.smem<128x64xbf16>
  txl.tma_load %d[%x, %x], %v1, %b : !txl.tensordesc<128x64xbf16>, !txl.smem<128x64xbf16>
  return
}

// -----

// The cross-check counts TMA gathers too (8 x 64 bf16 = 1024 bytes).
module attributes {txl.target = "sm_100a"} {
  func.func @f(%d: !txl.tensordesc<1x64xbf16>, %rows: tensor<8xi32>, %col: i32,
               %buf: !txl.smem<8x64xbf16>, %b: !txl.mbar) {
    // expected-error @+1 {{'txl.mbar_expect' op expects 2048 bytes, but the TMA loads signalling this barrier in the same block deliver 1024 bytes}}
    txl.mbar_expect %b, 2048
    txl.tma_gather %d[%rows, %col], %buf, %b : !txl.tensordesc<1x64xbf16>, tensor<8xi32>, !txl.smem<8x64xbf16>
    return
  }
}

// -----

// A malformed TMA load after mbar_expect gets its own error (the cross-check must not crash).
func.func @f(%d: !txl.tensordesc<128x64xbf16>, %x: i32, %t: tensor<128x64xbf16>, %b: !txl.mbar) {
  txl.mbar_expect %b, 16384
  // expected-error @+1 {{'txl.tma_load' op operand #3 must be shared-memory view (one stage), but got 'tensor<128x64xbf16>'}}
  "txl.tma_load"(%d, %x, %x, %t, %b) : (!txl.tensordesc<128x64xbf16>, i32, i32, tensor<128x64xbf16>, !txl.mbar) -> ()
  return
}

// -----

// A TMA load with too few operands after mbar_expect reports its own error.
func.func @f(%b: !txl.mbar) {
  txl.mbar_expect %b, 16384
  // expected-error @+1 {{'txl.tma_load' op expected 3 or more operands, but found 1}}
  "txl.tma_load"(%b) : (!txl.mbar) -> ()
  return
}

// -----

// mbar_wait waits on one mbarrier, not on an array.
func.func @f(%bars: !txl.mbar<3>, %phase: i32) {
  // expected-error @+1 {{'txl.mbar_wait' op operand #0 must be one mbarrier (!txl.mbar), but got '!txl.mbar<3>'}}
  "txl.mbar_wait"(%bars, %phase) : (!txl.mbar<3>, i32) -> ()
  return
}

// -----

// mbar_arrive's tx_count is not negative.
func.func @f(%b: !txl.mbar) {
  // expected-error @+1 {{'txl.mbar_arrive' op tx_count must be in 0..1048575, got -16}}
  txl.mbar_arrive %b {tx_count = -16 : i32}
  return
}

// -----

// mbar_arrive's tx_count is 20-bit.
func.func @f(%b: !txl.mbar) {
  // expected-error @+1 {{'txl.mbar_arrive' op tx_count must be in 0..1048575, got 1048576}}
  txl.mbar_arrive %b {tx_count = 1048576 : i32}
  return
}

// -----

// track_async_op cannot carry transaction bytes.
func.func @f(%b: !txl.mbar) {
  // expected-error @+1 {{'txl.mbar_arrive' op track_async_op arrives when this thread's cp.async copies finish; it cannot also carry tx_count or a remote CTA}}
  txl.mbar_arrive %b {track_async_op, tx_count = 128 : i32}
  return
}

// -----

// track_async_op cannot arrive on a remote CTA.
func.func @f(%b: !txl.mbar, %cta: i32) {
  // expected-error @+1 {{'txl.mbar_arrive' op track_async_op arrives when this thread's cp.async copies finish; it cannot also carry tx_count or a remote CTA}}
  txl.mbar_arrive %b remote %cta {track_async_op}
  return
}

//===----------------------------------------------------------------------===//
// TMA and cp.async
//===----------------------------------------------------------------------===//

// -----

// tma_load takes one coordinate per descriptor dimension.
func.func @f(%d: !txl.tensordesc<128x64xbf16>, %x: i32, %v: !txl.smem<128x64xbf16>, %b: !txl.mbar) {
  // expected-error @+1 {{'txl.tma_load' op needs 2 coordinates (one per descriptor dimension), got 1}}
  txl.tma_load %d[%x], %v, %b : !txl.tensordesc<128x64xbf16>, !txl.smem<128x64xbf16>
  return
}

// -----

// tma_load: descriptor and buffer element types agree.
func.func @f(%d: !txl.tensordesc<128x64xbf16>, %x: i32, %v: !txl.smem<128x64xf16>, %b: !txl.mbar) {
  // expected-error @+1 {{'txl.tma_load' op descriptor element type 'bf16' does not match the buffer element type 'f16'}}
  txl.tma_load %d[%x, %x], %v, %b : !txl.tensordesc<128x64xbf16>, !txl.smem<128x64xf16>
  return
}

// -----

// tma_load: the box is the buffer's shape.
func.func @f(%d: !txl.tensordesc<64x64xbf16>, %x: i32, %v: !txl.smem<128x64xbf16>, %b: !txl.mbar) {
  // expected-error @+1 {{'txl.tma_load' op descriptor box [64, 64] does not match the buffer shape [128, 64]}}
  txl.tma_load %d[%x, %x], %v, %b : !txl.tensordesc<64x64xbf16>, !txl.smem<128x64xbf16>
  return
}

// -----

// tma_load: descriptor and buffer agree on the swizzle.
func.func @f(%d: !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, %x: i32,
             %v: !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 64>>, %b: !txl.mbar) {
  // expected-error @+1 {{'txl.tma_load' op descriptor swizzle 128 bytes differs from the buffer's 64}}
  txl.tma_load %d[%x, %x], %v, %b : !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 64>>
  return
}

// -----

// desc_load takes one coordinate per descriptor dimension.
func.func @f(%d: !txl.tensordesc<128x64xbf16>, %x: i32) {
  // expected-error @+1 {{'txl.desc_load' op needs 2 coordinates (one per descriptor dimension), got 1}}
  %t = txl.desc_load %d[%x] : !txl.tensordesc<128x64xbf16> -> tensor<128x64xbf16>
  return
}

// -----

// desc_load: the tile is the descriptor's block (shape).
func.func @f(%d: !txl.tensordesc<128x64xbf16>, %x: i32) {
  // expected-error @+1 {{'txl.desc_load' op the result must be the descriptor's block, [128, 64] of 'bf16', got 'tensor<64x64xbf16>'}}
  %t = txl.desc_load %d[%x, %x] : !txl.tensordesc<128x64xbf16> -> tensor<64x64xbf16>
  return
}

// -----

// desc_load: the tile is the descriptor's block (element type).
func.func @f(%d: !txl.tensordesc<128x64xbf16>, %x: i32) {
  // expected-error @+1 {{'txl.desc_load' op the result must be the descriptor's block, [128, 64] of 'bf16', got 'tensor<128x64xf16>'}}
  %t = txl.desc_load %d[%x, %x] : !txl.tensordesc<128x64xbf16> -> tensor<128x64xf16>
  return
}

// -----

// desc_load: the result is a register tile.
func.func @f(%d: !txl.tensordesc<128x64xbf16>, %x: i32) {
  // expected-error @+1 {{'txl.desc_load' op result #0 must be ranked tensor of any type values, but got '!txl.smem<128x64xbf16>'}}
  %t = txl.desc_load %d[%x, %x] : !txl.tensordesc<128x64xbf16> -> !txl.smem<128x64xbf16>
  return
}

// -----

// desc_load: coordinates are i32.
func.func @f(%d: !txl.tensordesc<128x64xbf16>, %x: i64) {
  // expected-error @+1 {{'txl.desc_load' op operand #1 must be variadic of 32-bit signless integer, but got 'i64'}}
  %t = "txl.desc_load"(%d, %x, %x) : (!txl.tensordesc<128x64xbf16>, i64, i64) -> tensor<128x64xbf16>
  return
}

// -----

// desc_store takes one coordinate per descriptor dimension.
func.func @f(%d: !txl.tensordesc<128x64xbf16>, %x: i32, %v: tensor<128x64xbf16>) {
  // expected-error @+1 {{'txl.desc_store' op needs 2 coordinates (one per descriptor dimension), got 3}}
  txl.desc_store %d[%x, %x, %x], %v : !txl.tensordesc<128x64xbf16>, tensor<128x64xbf16>
  return
}

// -----

// desc_store: the value is the descriptor's block (element type).
func.func @f(%d: !txl.tensordesc<128x64xbf16>, %x: i32, %v: tensor<128x64xf32>) {
  // expected-error @+1 {{'txl.desc_store' op the stored value must be the descriptor's block, [128, 64] of 'bf16', got 'tensor<128x64xf32>'}}
  txl.desc_store %d[%x, %x], %v : !txl.tensordesc<128x64xbf16>, tensor<128x64xf32>
  return
}

// -----

// desc_store: the value is the descriptor's block (shape).
func.func @f(%d: !txl.tensordesc<128x64xbf16>, %x: i32, %v: tensor<64x128xbf16>) {
  // expected-error @+1 {{'txl.desc_store' op the stored value must be the descriptor's block, [128, 64] of 'bf16', got 'tensor<64x128xbf16>'}}
  txl.desc_store %d[%x, %x], %v : !txl.tensordesc<128x64xbf16>, tensor<64x128xbf16>
  return
}

// -----

// tma_store takes one coordinate per descriptor dimension.
func.func @f(%d: !txl.tensordesc<128x64xbf16>, %x: i32, %v: !txl.smem<128x64xbf16>) {
  // expected-error @+1 {{'txl.tma_store' op needs 2 coordinates (one per descriptor dimension), got 3}}
  txl.tma_store %v, %d[%x, %x, %x] : !txl.smem<128x64xbf16>, !txl.tensordesc<128x64xbf16>
  return
}

// -----

// tma_store: descriptor and buffer element types agree.
func.func @f(%d: !txl.tensordesc<128x64xf16>, %x: i32, %v: !txl.smem<128x64xbf16>) {
  // expected-error @+1 {{'txl.tma_store' op descriptor element type 'f16' does not match the buffer element type 'bf16'}}
  txl.tma_store %v, %d[%x, %x] : !txl.smem<128x64xbf16>, !txl.tensordesc<128x64xf16>
  return
}

// -----

// A reducing TMA store: min/max have no f32 form in cp.reduce.async.bulk.tensor.
func.func @f(%d: !txl.tensordesc<64x32xf32>, %x: i32, %v: !txl.smem<64x32xf32>) {
  // expected-error @+1 {{'txl.tma_store' op a TMA reduce-max store does not take 'f32' elements (add: f32, f16, bf16, i32, i64; min/max: f16, bf16, i32, i64)}}
  txl.tma_store %v, %d[%x, %x] reduce max : !txl.smem<64x32xf32>, !txl.tensordesc<64x32xf32>
  return
}

// -----

// A reducing TMA store: no reduction of 8-bit floats.
func.func @f(%d: !txl.tensordesc<64x64xf8E4M3FN>, %x: i32, %v: !txl.smem<64x64xf8E4M3FN>) {
  // expected-error @+1 {{'txl.tma_store' op a TMA reduce-add store does not take 'f8E4M3FN' elements}}
  txl.tma_store %v, %d[%x, %x] reduce add : !txl.smem<64x64xf8E4M3FN>, !txl.tensordesc<64x64xf8E4M3FN>
  return
}

// -----

// The reduction is one of add, min, max.
func.func @f(%d: !txl.tensordesc<64x32xf32>, %x: i32, %v: !txl.smem<64x32xf32>) {
  // expected-error @+2 {{expected ::mlir::txl::TmaReduceKind to be one of: add, min, max}}
  // expected-error @+1 {{failed to parse TXL_TmaReduceKindAttr parameter 'value'}}
  txl.tma_store %v, %d[%x, %x] reduce mul : !txl.smem<64x32xf32>, !txl.tensordesc<64x32xf32>
  return
}

// -----

// tma_store: the box is the buffer's shape.
func.func @f(%d: !txl.tensordesc<128x32xbf16>, %x: i32, %v: !txl.smem<128x64xbf16>) {
  // expected-error @+1 {{'txl.tma_store' op descriptor box [128, 32] does not match the buffer shape [128, 64]}}
  txl.tma_store %v, %d[%x, %x] : !txl.smem<128x64xbf16>, !txl.tensordesc<128x32xbf16>
  return
}

// -----

// tma_store: descriptor and buffer agree on the swizzle.
func.func @f(%d: !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 0>>, %x: i32,
             %v: !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>) {
  // expected-error @+1 {{'txl.tma_store' op descriptor swizzle 0 bytes differs from the buffer's 128}}
  txl.tma_store %v, %d[%x, %x] : !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 0>>
  return
}

// -----

// tma_store_wait counts are not negative.
func.func @f() {
  // expected-error @+1 {{'txl.tma_store_wait' op attribute 'pendings' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  txl.tma_store_wait -1
  return
}

// -----

// tma_gather gathers into a 2-D buffer.
module attributes {txl.target = "sm_100a"} {
  func.func @f(%d: !txl.tensordesc<1x64xbf16>, %rows: tensor<8xi32>, %col: i32,
               %buf: !txl.smem<8x64x1xbf16>, %b: !txl.mbar) {
    // expected-error @+1 {{'txl.tma_gather' op gathers rows of a 2-D descriptor into a 2-D buffer with a 1-D tile of row offsets}}
    txl.tma_gather %d[%rows, %col], %buf, %b : !txl.tensordesc<1x64xbf16>, tensor<8xi32>, !txl.smem<8x64x1xbf16>
    return
  }
}

// -----

// tma_gather takes a 1-D tile of row offsets.
module attributes {txl.target = "sm_100a"} {
  func.func @f(%d: !txl.tensordesc<1x64xbf16>, %rows: tensor<8x1xi32>, %col: i32,
               %buf: !txl.smem<8x64xbf16>, %b: !txl.mbar) {
    // expected-error @+1 {{'txl.tma_gather' op gathers rows of a 2-D descriptor into a 2-D buffer with a 1-D tile of row offsets}}
    txl.tma_gather %d[%rows, %col], %buf, %b : !txl.tensordesc<1x64xbf16>, tensor<8x1xi32>, !txl.smem<8x64xbf16>
    return
  }
}

// -----

// tma_gather moves rows in groups of 4.
module attributes {txl.target = "sm_100a"} {
  func.func @f(%d: !txl.tensordesc<1x64xbf16>, %rows: tensor<6xi32>, %col: i32,
               %buf: !txl.smem<6x64xbf16>, %b: !txl.mbar) {
    // expected-error @+1 {{'txl.tma_gather' op gathers rows in groups of 4 (gather4), got 6}}
    txl.tma_gather %d[%rows, %col], %buf, %b : !txl.tensordesc<1x64xbf16>, tensor<6xi32>, !txl.smem<6x64xbf16>
    return
  }
}

// -----

// tma_gather: the buffer is rows x box width.
module attributes {txl.target = "sm_100a"} {
  func.func @f(%d: !txl.tensordesc<1x64xbf16>, %rows: tensor<8xi32>, %col: i32,
               %buf: !txl.smem<8x128xbf16>, %b: !txl.mbar) {
    // expected-error @+1 {{'txl.tma_gather' op buffer shape must be [8, 64] (rows x box width), got [8, 128]}}
    txl.tma_gather %d[%rows, %col], %buf, %b : !txl.tensordesc<1x64xbf16>, tensor<8xi32>, !txl.smem<8x128xbf16>
    return
  }
}

// -----

// tma_gather: descriptor and buffer element types agree.
module attributes {txl.target = "sm_100a"} {
  func.func @f(%d: !txl.tensordesc<1x64xbf16>, %rows: tensor<8xi32>, %col: i32,
               %buf: !txl.smem<8x64xf16>, %b: !txl.mbar) {
    // expected-error @+1 {{'txl.tma_gather' op descriptor and buffer element types differ}}
    txl.tma_gather %d[%rows, %col], %buf, %b : !txl.tensordesc<1x64xbf16>, tensor<8xi32>, !txl.smem<8x64xf16>
    return
  }
}

// -----

// async_load: the pointers point to the buffer's element type.
func.func @f(%p: tensor<64x64x!txl.ptr<f16>>, %v: !txl.smem<64x64xbf16>) {
  // expected-error @+1 {{'txl.async_load' op pointers 'tensor<64x64x!txl.ptr<f16>>' must point to 'bf16' in the buffer's shape [64, 64]}}
  txl.async_load %p, %v : tensor<64x64x!txl.ptr<f16>>, !txl.smem<64x64xbf16>
  return
}

// -----

// async_load: the pointers have the buffer's shape.
func.func @f(%p: tensor<64x32x!txl.ptr<bf16>>, %v: !txl.smem<64x64xbf16>) {
  // expected-error @+1 {{'txl.async_load' op pointers 'tensor<64x32x!txl.ptr<bf16>>' must point to 'bf16' in the buffer's shape [64, 64]}}
  txl.async_load %p, %v : tensor<64x32x!txl.ptr<bf16>>, !txl.smem<64x64xbf16>
  return
}

// -----

// async_load: the mask has the pointers' shape.
func.func @f(%p: tensor<64x64x!txl.ptr<bf16>>, %v: !txl.smem<64x64xbf16>, %m: tensor<64xi1>) {
  // expected-error @+1 {{'txl.async_load' op mask shape [64] must match the pointers' [64, 64]}}
  txl.async_load %p, %v mask %m : tensor<64xi1> : tensor<64x64x!txl.ptr<bf16>>, !txl.smem<64x64xbf16>
  return
}

// -----

// async_load: 'other' is a tile of the pointee type in the pointers' shape.
func.func @f(%p: tensor<64x64x!txl.ptr<bf16>>, %v: !txl.smem<64x64xbf16>, %m: tensor<64x64xi1>,
             %o: tensor<64x64xf32>) {
  // expected-error @+1 {{'txl.async_load' op 'other' must be a [64, 64] tile of 'bf16'}}
  txl.async_load %p, %v mask %m : tensor<64x64xi1> other %o : tensor<64x64xf32> : tensor<64x64x!txl.ptr<bf16>>, !txl.smem<64x64xbf16>
  return
}

// -----

// async_load: contiguity is a power of two.
func.func @f(%p: tensor<64x64x!txl.ptr<bf16>>, %v: !txl.smem<64x64xbf16>) {
  // expected-error @+1 {{'txl.async_load' op contiguity must be a positive power of two (or -1), got 6}}
  txl.async_load %p, %v {contiguity = 6 : i32} : tensor<64x64x!txl.ptr<bf16>>, !txl.smem<64x64xbf16>
  return
}

// -----

// async_load: contiguity is positive (or -1, unknown).
func.func @f(%p: tensor<64x64x!txl.ptr<bf16>>, %v: !txl.smem<64x64xbf16>) {
  // expected-error @+1 {{'txl.async_load' op contiguity must be a positive power of two (or -1), got -2}}
  txl.async_load %p, %v {contiguity = -2 : i32} : tensor<64x64x!txl.ptr<bf16>>, !txl.smem<64x64xbf16>
  return
}

// -----

// async_load_wait counts are not negative.
func.func @f() {
  // expected-error @+1 {{'txl.async_load_wait' op attribute 'pendings' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  txl.async_load_wait -1
  return
}

//===----------------------------------------------------------------------===//
// wgmma (txl.dot)
//===----------------------------------------------------------------------===//

// -----

// dot operands are 2-D.
func.func @f(%a: !txl.smem<64x16xbf16>, %b: !txl.smem<16x64xbf16>, %c: tensor<4096xf32>) {
  // expected-error @+1 {{'txl.dot' op operands must be 2-D (A: MxK, B: KxN, acc: MxN)}}
  %d = txl.dot %a, %b, %c : !txl.smem<64x16xbf16>, !txl.smem<16x64xbf16>, tensor<4096xf32>
  return
}

// -----

// dot: K of A and B agree.
func.func @f(%a: !txl.smem<64x128xbf16>, %b: !txl.smem<64x128xbf16>, %c: tensor<64x128xf32>) {
  // expected-error @+1 {{'txl.dot' op A is [64, 128] but B is [64, 128]: K must agree (use a transposed view of B, e.g. txl.smem_trans, for A * B^T)}}
  %d = txl.dot %a, %b, %c : !txl.smem<64x128xbf16>, !txl.smem<64x128xbf16>, tensor<64x128xf32>
  return
}

// -----

// dot: the accumulator is MxN.
func.func @f(%a: !txl.smem<64x64xbf16>, %b: !txl.smem<64x128xbf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'txl.dot' op accumulator must be [64, 128], got [64, 64]}}
  %d = txl.dot %a, %b, %c : !txl.smem<64x64xbf16>, !txl.smem<64x128xbf16>, tensor<64x64xf32>
  return
}

// -----

// dot: the inputs are MMA types.
func.func @f(%a: !txl.smem<64x16xf64>, %b: !txl.smem<16x64xf64>, %c: tensor<64x64xf64>) {
  // expected-error @+1 {{'txl.dot' op inputs must be f16, bf16, f32 (tf32), f8E4M3FN, f8E5M2 or i8, got 'f64' and 'f64'}}
  %d = txl.dot %a, %b, %c : !txl.smem<64x16xf64>, !txl.smem<16x64xf64>, tensor<64x64xf64>
  return
}

// -----

// dot: A and B have one element type (fp8 kinds aside).
func.func @f(%a: !txl.smem<64x16xf16>, %b: !txl.smem<16x64xbf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'txl.dot' op A and B must have the same element type, got 'f16' and 'bf16'}}
  %d = txl.dot %a, %b, %c : !txl.smem<64x16xf16>, !txl.smem<16x64xbf16>, tensor<64x64xf32>
  return
}

// -----

// dot: bf16 products accumulate in f32 only.
func.func @f(%a: !txl.smem<64x16xbf16>, %b: !txl.smem<16x64xbf16>, %c: tensor<64x64xbf16>) {
  // expected-error @+1 {{'txl.dot' op cannot accumulate 'bf16' products in 'bf16' (f32 always works; f16 for f16/fp8 inputs; i32 for i8)}}
  %d = txl.dot %a, %b, %c : !txl.smem<64x16xbf16>, !txl.smem<16x64xbf16>, tensor<64x64xbf16>
  return
}

// -----

// dot: i8 products accumulate in i32.
func.func @f(%a: !txl.smem<64x32xi8>, %b: !txl.smem<32x64xi8>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'txl.dot' op cannot accumulate 'i8' products in 'f32'}}
  %d = txl.dot %a, %b, %c : !txl.smem<64x32xi8>, !txl.smem<32x64xi8>, tensor<64x64xf32>
  return
}

// -----

// dot: K is a multiple of the instruction K (16 for 16-bit inputs).
func.func @f(%a: !txl.smem<64x8xf16>, %b: !txl.smem<8x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'txl.dot' op K = 8 must be a multiple of 16 for 'f16' inputs}}
  %d = txl.dot %a, %b, %c : !txl.smem<64x8xf16>, !txl.smem<8x64xf16>, tensor<64x64xf32>
  return
}

// -----

// dot: K is a multiple of 32 for 8-bit inputs.
func.func @f(%a: !txl.smem<64x16xf8E4M3FN>, %b: !txl.smem<16x64xf8E5M2>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'txl.dot' op K = 16 must be a multiple of 32 for 'f8E4M3FN' inputs}}
  %d = txl.dot %a, %b, %c : !txl.smem<64x16xf8E4M3FN>, !txl.smem<16x64xf8E5M2>, tensor<64x64xf32>
  return
}

// -----

// wgmma M is a multiple of 64.
func.func @f(%a: !txl.smem<32x16xbf16>, %b: !txl.smem<16x64xbf16>, %c: tensor<32x64xf32>) {
  // expected-error @+1 {{'txl.dot' op wgmma M must be a multiple of 64 (one warpgroup per 64 rows), got 32}}
  %d = txl.dot %a, %b, %c : !txl.smem<32x16xbf16>, !txl.smem<16x64xbf16>, tensor<32x64xf32>
  return
}

// -----

// wgmma N is at most 256.
func.func @f(%a: !txl.smem<64x16xbf16>, %b: !txl.smem<16x512xbf16>, %c: tensor<64x512xf32>) {
  // expected-error @+1 {{'txl.dot' op wgmma N must be in 8..256 in steps of 8, got 512}}
  %d = txl.dot %a, %b, %c : !txl.smem<64x16xbf16>, !txl.smem<16x512xbf16>, tensor<64x512xf32>
  return
}

// -----

// wgmma N is a multiple of 8.
func.func @f(%a: tensor<64x16xbf16>, %b: !txl.smem<16x60xbf16>, %c: tensor<64x60xf32>) {
  // expected-error @+1 {{'txl.dot' op wgmma N must be in 8..256 in steps of 8, got 60}}
  %d = txl.dot %a, %b, %c : tensor<64x16xbf16>, !txl.smem<16x60xbf16>, tensor<64x60xf32>
  return
}

// -----

// dot: B is a one-stage shared-memory view or a register tile (staged by
// txl-lower-tile-copies), not a whole multi-stage allocation.
func.func @f(%a: !txl.smem<64x16xbf16>, %b: !txl.smem<16x64xbf16, stages = 2>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'txl.dot' op operand #1 must be shared-memory view (one stage) or ranked tensor of any type values, but got '!txl.smem<16x64xbf16, stages = 2>'}}
  %d = "txl.dot"(%a, %b, %c) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (!txl.smem<64x16xbf16>, !txl.smem<16x64xbf16, stages = 2>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return
}

// -----

// dot with a register B: the same rules as a shared-memory B (one element type).
func.func @f(%a: tensor<64x16xbf16>, %b: tensor<16x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'txl.dot' op A and B must have the same element type, got 'bf16' and 'f16'}}
  %d = txl.dot %a, %b, %c : tensor<64x16xbf16>, tensor<16x64xf16>, tensor<64x64xf32>
  return
}

// -----

// dot with a register B: K agrees.
func.func @f(%a: tensor<64x16xbf16>, %b: tensor<32x64xbf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'txl.dot' op A is [64, 16] but B is [32, 64]: K must agree (use a transposed view of B, e.g. txl.smem_trans, for A * B^T)}}
  %d = txl.dot %a, %b, %c : tensor<64x16xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>
  return
}

// -----

// dot: the result has the accumulator's type.
func.func @f(%a: !txl.smem<64x16xbf16>, %b: !txl.smem<16x64xbf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'txl.dot' op failed to verify that all of {acc, result} have same type}}
  %d = "txl.dot"(%a, %b, %c) : (!txl.smem<64x16xbf16>, !txl.smem<16x64xbf16>, tensor<64x64xf32>) -> tensor<64x64xf16>
  return
}

// -----

// dot_wait pendings are not negative.
func.func @f() {
  // expected-error @+1 {{'txl.dot_wait' op attribute 'pendings' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  txl.dot_wait -1
  return
}

// -----

// dot_wait passes its inputs through unchanged.
func.func @f(%acc: tensor<64x64xf32>) {
  // expected-error @+2 {{'txl.dot_wait' op inferred type(s) 'tensor<64x64xf32>' are incompatible with return type(s) of operation 'tensor<64x64xf16>'}}
  // expected-error @+1 {{'txl.dot_wait' op failed to infer returned types}}
  %w = "txl.dot_wait"(%acc) <{pendings = 0 : i32}> : (tensor<64x64xf32>) -> tensor<64x64xf16>
  return
}

//===----------------------------------------------------------------------===//
// tcgen05 (txl.dotx)
//===----------------------------------------------------------------------===//

// -----

// dotx shares the MMA operand rules: K must agree.
module attributes {txl.target = "sm_100a"} {
  func.func @f(%a: !txl.smem<128x64xbf16>, %b: !txl.smem<32x128xbf16>, %c: !txl.tmem<128x128xf32>) {
    // expected-error @+1 {{'txl.dotx' op A is [128, 64] but B is [32, 128]: K must agree}}
    txl.dotx %a, %b, %c : !txl.smem<128x64xbf16>, !txl.smem<32x128xbf16>, !txl.tmem<128x128xf32>
    return
  }
}

// -----

// tcgen05 M is 64 or 128.
module attributes {txl.target = "sm_100a"} {
  func.func @f(%a: !txl.smem<96x64xbf16>, %b: !txl.smem<64x128xbf16>, %c: !txl.tmem<96x128xf32>) {
    // expected-error @+1 {{'txl.dotx' op tcgen05 M must be 64 or 128 (or 256 with two_ctas), got 96 (max 128)}}
    txl.dotx %a, %b, %c : !txl.smem<96x64xbf16>, !txl.smem<64x128xbf16>, !txl.tmem<96x128xf32>
    return
  }
}

// -----

// tcgen05 M = 256 needs two_ctas.
module attributes {txl.target = "sm_100a"} {
  func.func @f(%a: !txl.smem<256x64xbf16>, %b: !txl.smem<64x128xbf16>, %c: tensor<256x128xf32>) {
    // expected-error @+1 {{'txl.dotx' op tcgen05 M must be 64 or 128 (or 256 with two_ctas), got 256 (max 128)}}
    %d = txl.dotx %a, %b, %c : !txl.smem<256x64xbf16>, !txl.smem<64x128xbf16>, tensor<256x128xf32> -> tensor<256x128xf32>
    return
  }
}

// -----

// tcgen05 M is at most 256 with two_ctas.
module attributes {txl.target = "sm_100a"} {
  func.func @f(%a: !txl.smem<512x64xbf16>, %b: !txl.smem<64x128xbf16>, %c: tensor<512x128xf32>) {
    // expected-error @+1 {{'txl.dotx' op tcgen05 M must be 64 or 128 (or 256 with two_ctas), got 512 (max 256)}}
    %d = txl.dotx %a, %b, %c {two_ctas} : !txl.smem<512x64xbf16>, !txl.smem<64x128xbf16>, tensor<512x128xf32> -> tensor<512x128xf32>
    return
  }
}

// -----

// tcgen05 N is a multiple of 16 for M = 128.
module attributes {txl.target = "sm_100a"} {
  func.func @f(%a: !txl.smem<128x64xbf16>, %b: !txl.smem<64x24xbf16>, %c: !txl.tmem<128x24xf32>) {
    // expected-error @+1 {{'txl.dotx' op tcgen05 N must be in 16..256 in steps of 16 for M = 128, got 24}}
    txl.dotx %a, %b, %c : !txl.smem<128x64xbf16>, !txl.smem<64x24xbf16>, !txl.tmem<128x24xf32>
    return
  }
}

// -----

// tcgen05 N is at most 256 for M = 64.
module attributes {txl.target = "sm_100a"} {
  func.func @f(%a: !txl.smem<64x64xbf16>, %b: !txl.smem<64x264xbf16>, %c: !txl.tmem<64x264xf32>) {
    // expected-error @+1 {{'txl.dotx' op tcgen05 N must be in 8..256 in steps of 8 for M = 64, got 264}}
    txl.dotx %a, %b, %c : !txl.smem<64x64xbf16>, !txl.smem<64x264xbf16>, !txl.tmem<64x264xf32>
    return
  }
}

// -----

// A register accumulator is returned as the result.
module attributes {txl.target = "sm_100a"} {
  func.func @f(%a: !txl.smem<128x64xbf16>, %b: !txl.smem<64x128xbf16>, %c: tensor<128x128xf32>) {
    // expected-error @+1 {{'txl.dotx' op a register accumulator needs a result}}
    txl.dotx %a, %b, %c : !txl.smem<128x64xbf16>, !txl.smem<64x128xbf16>, tensor<128x128xf32>
    return
  }
}

// -----

// A tensor-memory accumulator is updated in place.
module attributes {txl.target = "sm_100a"} {
  func.func @f(%a: !txl.smem<128x64xbf16>, %b: !txl.smem<64x128xbf16>, %c: !txl.tmem<128x128xf32>) {
    // expected-error @+1 {{'txl.dotx' op a tensor-memory accumulator is updated in place; remove the result}}
    %d = txl.dotx %a, %b, %c : !txl.smem<128x64xbf16>, !txl.smem<64x128xbf16>, !txl.tmem<128x128xf32> -> tensor<128x128xf32>
    return
  }
}

// -----

// The result of a register-accumulator dotx has the accumulator's type.
module attributes {txl.target = "sm_100a"} {
  func.func @f(%a: !txl.smem<128x64xbf16>, %b: !txl.smem<64x128xbf16>, %c: tensor<128x128xf32>) {
    // expected-error @+1 {{'txl.dotx' op result type must equal the accumulator type 'tensor<128x128xf32>'}}
    %d = txl.dotx %a, %b, %c : !txl.smem<128x64xbf16>, !txl.smem<64x128xbf16>, tensor<128x128xf32> -> tensor<128x128xf16>
    return
  }
}

// -----

// dotx: one predicate per mbarrier.
module attributes {txl.target = "sm_100a"} {
  func.func @f(%a: !txl.smem<128x64xbf16>, %b: !txl.smem<64x128xbf16>, %c: !txl.tmem<128x128xf32>,
               %e: !txl.mbar, %r: !txl.mbar, %p: i1) {
    // expected-error @+1 {{'txl.dotx' op needs one predicate per mbarrier (2), got 1}}
    txl.dotx %a, %b, %c mbars(%e, %r) preds(%p) : !txl.smem<128x64xbf16>, !txl.smem<64x128xbf16>, !txl.tmem<128x128xf32>
    return
  }
}

// -----

// dotx: B is in shared memory, not tensor memory.
module attributes {txl.target = "sm_100a"} {
  func.func @f(%a: !txl.smem<128x64xbf16>, %b: !txl.tmem<64x128xbf16>, %c: !txl.tmem<128x128xf32>) {
    // expected-error @+1 {{'txl.dotx' op operand #1 must be shared-memory view (one stage), but got '!txl.tmem<64x128xbf16>'}}
    "txl.dotx"(%a, %b, %c) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>}> : (!txl.smem<128x64xbf16>, !txl.tmem<64x128xbf16>, !txl.tmem<128x128xf32>) -> ()
    return
  }
}

//===----------------------------------------------------------------------===//
// Synchronization and warp specialization
//===----------------------------------------------------------------------===//

// -----

// Named barrier ids are 0..15.
func.func @f() {
  // expected-error @+1 {{'txl.bar_arrive' op named barrier id must be in 0..15, got 16 (kernels use 8..15; 1..7 are reserved for the compiler)}}
  txl.bar_arrive 16, 256
  return
}

// -----

// Named barrier ids are not negative.
func.func @f() {
  // expected-error @+1 {{'txl.bar_wait' op named barrier id must be in 0..15, got -1}}
  txl.bar_wait -1, 256
  return
}

// -----

// Named barriers count whole warps.
func.func @f() {
  // expected-error @+1 {{'txl.bar_arrive' op thread count must be a positive multiple of 32 up to 1024 (whole warps), got 100}}
  txl.bar_arrive 8, 100
  return
}

// -----

// Named barriers count at most 1024 threads.
func.func @f() {
  // expected-error @+1 {{'txl.bar_wait' op thread count must be a positive multiple of 32 up to 1024 (whole warps), got 2048}}
  txl.bar_wait 9, 2048
  return
}

// -----

// Named barriers count at least one warp.
func.func @f() {
  // expected-error @+1 {{'txl.bar_wait' op thread count must be a positive multiple of 32 up to 1024 (whole warps), got 0}}
  txl.bar_wait 9, 0
  return
}

// -----

// setmaxnreg takes at least 24 registers.
func.func @f() {
  // expected-error @+1 {{'txl.reg_dealloc' op register count must be in 24..256 in steps of 8 (setmaxnreg), got 16}}
  txl.reg_dealloc 16
  return
}

// -----

// setmaxnreg takes at most 256 registers.
func.func @f() {
  // expected-error @+1 {{'txl.reg_alloc' op register count must be in 24..256 in steps of 8 (setmaxnreg), got 264}}
  txl.reg_alloc 264
  return
}

// -----

// setmaxnreg counts go in steps of 8.
func.func @f() {
  // expected-error @+1 {{'txl.reg_alloc' op register count must be in 24..256 in steps of 8 (setmaxnreg), got 100}}
  txl.reg_alloc 100
  return
}

// -----

// is_warpgroup lists at least one warpgroup.
func.func @f() {
  // expected-error @+1 {{'txl.is_warpgroup' op needs at least one warpgroup id}}
  %p = txl.is_warpgroup []
  return
}

// -----

// A block has at most 8 warpgroups.
func.func @f() {
  // expected-error @+1 {{'txl.is_warpgroup' op warpgroup id 8 is out of range [0, 8)}}
  %p = txl.is_warpgroup [0, 8]
  return
}

// -----

// Warpgroup ids are listed once.
func.func @f() {
  // expected-error @+1 {{'txl.is_warpgroup' op warpgroup id 1 is listed twice}}
  %p = txl.is_warpgroup [1, 2, 1]
  return
}

// -----

// is_warp lists at least one warp.
func.func @f() {
  // expected-error @+1 {{'txl.is_warp' op needs at least one warp id}}
  %p = txl.is_warp []
  return
}

// -----

// Warp ids are not negative.
func.func @f() {
  // expected-error @+1 {{'txl.is_warp' op warp id -1 is out of range [0, 32)}}
  %p = txl.is_warp [-1, 4]
  return
}

// -----

// A block has at most 32 warps.
func.func @f() {
  // expected-error @+1 {{'txl.is_warp' op warp id 32 is out of range [0, 32)}}
  %p = txl.is_warp [32]
  return
}

// -----

// Warp ids are listed once.
func.func @f() {
  // expected-error @+1 {{'txl.is_warp' op warp id 5 is listed twice}}
  %p = txl.is_warp [5, 5]
  return
}

// -----

// program_id axis is 0..2.
func.func @f() {
  // expected-error @+1 {{'txl.program_id' op attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %p = txl.program_id 3
  return
}

// -----

// num_programs axis is 0..2.
func.func @f() {
  // expected-error @+1 {{'txl.num_programs' op attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %n = txl.num_programs -1
  return
}

//===----------------------------------------------------------------------===//
// Register tiles
//===----------------------------------------------------------------------===//

// -----

// make_range needs start < end.
func.func @f() {
  // expected-error @+1 {{'txl.make_range' op needs 0 <= start < end, got [8, 8)}}
  %r = txl.make_range 8, 8 : tensor<0xi32>
  return
}

// -----

// make_range needs start >= 0.
func.func @f() {
  // expected-error @+1 {{'txl.make_range' op needs 0 <= start < end, got [-4, 4)}}
  %r = txl.make_range -4, 4 : tensor<8xi32>
  return
}

// -----

// make_range returns end - start elements.
func.func @f() {
  // expected-error @+1 {{'txl.make_range' op result must be tensor<128xi32>, got 'tensor<64xi32>'}}
  %r = txl.make_range 0, 128 : tensor<64xi32>
  return
}

// -----

// make_range returns a 1-D tile.
func.func @f() {
  // expected-error @+1 {{'txl.make_range' op result must be tensor<128xi32>, got 'tensor<1x128xi32>'}}
  %r = txl.make_range 0, 128 : tensor<1x128xi32>
  return
}

// -----

// splat keeps the element type.
func.func @f(%x: f16) {
  // expected-error @+1 {{'txl.splat' op splats a 'f16' into a tile of 'f32'; the element types must match}}
  %t = txl.splat %x : f16 -> tensor<64x64xf32>
  return
}

// -----

// broadcast keeps the rank.
func.func @f(%x: tensor<64xf32>) {
  // expected-error @+1 {{'txl.broadcast' op keeps the rank; use txl.expand_dims first (got rank 1 -> 2)}}
  %t = txl.broadcast %x : tensor<64xf32> -> tensor<64x64xf32>
  return
}

// -----

// broadcast only repeats size-1 dimensions.
func.func @f(%x: tensor<64x2xf32>) {
  // expected-error @+1 {{'txl.broadcast' op cannot broadcast [64, 2] to [64, 64]: dimension 1 is 2, not 1}}
  %t = txl.broadcast %x : tensor<64x2xf32> -> tensor<64x64xf32>
  return
}

// -----

// expand_dims axis is in [0, rank].
func.func @f(%x: tensor<64xf32>) {
  // expected-error @+1 {{'txl.expand_dims' op axis 2 is out of range [0, 1]}}
  %t = txl.expand_dims %x, 2 : tensor<64xf32> -> tensor<64x1xf32>
  return
}

// -----

// A negative expand_dims axis is out of range.
func.func @f(%x: tensor<64xf32>) {
  // expected-error @+1 {{'txl.expand_dims' op axis -1 is out of range [0, 1]}}
  %t = txl.expand_dims %x, -1 : tensor<64xf32> -> tensor<64x1xf32>
  return
}

// -----

// expand_dims inserts a 1 at axis.
func.func @f(%x: tensor<64xf32>) {
  // expected-error @+1 {{'txl.expand_dims' op result shape must be [1, 64], got [64, 1]}}
  %t = txl.expand_dims %x, 0 : tensor<64xf32> -> tensor<64x1xf32>
  return
}

// -----

// relayout keeps the shape.
func.func @f(%x: tensor<64x64xf32>) {
  // expected-error @+1 {{'txl.relayout' op moves a tile to another layout: source and result must have the same shape and element type, got 'tensor<64x64xf32>' and 'tensor<64x32xf32>'}}
  %t = txl.relayout %x : tensor<64x64xf32> -> tensor<64x32xf32>
  return
}

// -----

// reduce needs an operand.
func.func @f() {
  // expected-error @+1 {{'txl.reduce' op needs at least one operand}}
  "txl.reduce"() <{axis = 0 : i32}> ({
    "txl.reduce_return"() : () -> ()
  }) : () -> ()
  return
}

// -----

// reduce axis is a dimension of the operands.
func.func @f(%s: tensor<64x128xf32>) {
  // expected-error @+1 {{'txl.reduce' op axis 2 is out of range for a rank-2 tile}}
  %r = txl.reduce %s axis 2 : (tensor<64x128xf32>) -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32):
    txl.reduce_return %a : f32
  }
  return
}

// -----

// A negative reduce axis is out of range.
func.func @f(%s: tensor<64x128xf32>) {
  // expected-error @+1 {{'txl.reduce' op axis -1 is out of range for a rank-2 tile}}
  %r = txl.reduce %s axis -1 : (tensor<64x128xf32>) -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32):
    txl.reduce_return %a : f32
  }
  return
}

// -----

// reduce returns one result per operand.
func.func @f(%s: tensor<64x128xf32>) {
  // expected-error @+1 {{'txl.reduce' op needs one result per operand}}
  %r:2 = txl.reduce %s axis 1 : (tensor<64x128xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  ^bb0(%a: f32, %b: f32):
    txl.reduce_return %a : f32
  }
  return
}

// -----

// The combiner takes two arguments per operand.
func.func @f(%s: tensor<64x128xf32>) {
  // expected-error @+1 {{'txl.reduce' op combiner takes 2 arguments (two per operand), got 3}}
  %r = txl.reduce %s axis 1 : (tensor<64x128xf32>) -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32, %c: f32):
    txl.reduce_return %a : f32
  }
  return
}

// -----

// The operands of a reduce have one shape.
func.func @f(%s: tensor<64x128xf32>, %i: tensor<64x64xi32>) {
  // expected-error @+1 {{'txl.reduce' op operands must have the same shape}}
  %r:2 = txl.reduce %s, %i axis 1 : (tensor<64x128xf32>, tensor<64x64xi32>) -> (tensor<64xf32>, tensor<64xi32>) {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    txl.reduce_return %a, %ai : f32, i32
  }
  return
}

// -----

// The combiner arguments have the operands' element types.
func.func @f(%s: tensor<64x128xf32>) {
  // expected-error @+1 {{'txl.reduce' op combiner arguments for operand 0 must be 'f32'}}
  %r = txl.reduce %s axis 1 : (tensor<64x128xf32>) -> tensor<64xf32> {
  ^bb0(%a: f16, %b: f16):
    txl.reduce_return %a : f16
  }
  return
}

// -----

// A reduce drops the axis from the shape.
func.func @f(%s: tensor<64x128xf32>) {
  // expected-error @+1 {{'txl.reduce' op result 0 must be 'tensor<64xf32>', got 'tensor<128xf32>'}}
  %r = txl.reduce %s axis 1 : (tensor<64x128xf32>) -> tensor<128xf32> {
  ^bb0(%a: f32, %b: f32):
    txl.reduce_return %a : f32
  }
  return
}

// -----

// A rank-1 reduce returns a scalar.
func.func @f(%s: tensor<64xf32>) {
  // expected-error @+1 {{'txl.reduce' op result 0 must be 'f32', got 'tensor<1xf32>'}}
  %r = txl.reduce %s axis 0 : (tensor<64xf32>) -> tensor<1xf32> {
  ^bb0(%a: f32, %b: f32):
    txl.reduce_return %a : f32
  }
  return
}

// -----

// The combiner ends in txl.reduce_return.
func.func @f(%s: tensor<64x128xf32>) {
  // expected-error @+1 {{'txl.reduce' op combiner must end in txl.reduce_return of 1 values}}
  %r = "txl.reduce"(%s) <{axis = 1 : i32, operandSegmentSizes = array<i32: 1, 0>}> ({
  ^bb0(%a: f32, %b: f32):
    "llvm.unreachable"() : () -> ()
  }) : (tensor<64x128xf32>) -> tensor<64xf32>
  return
}

// -----

// The combiner returns one value per operand.
func.func @f(%s: tensor<64x128xf32>) {
  // expected-error @+1 {{'txl.reduce' op combiner must end in txl.reduce_return of 1 values}}
  %r = txl.reduce %s axis 1 : (tensor<64x128xf32>) -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32):
    txl.reduce_return %a, %b : f32, f32
  }
  return
}

// -----

// The combiner returns values of the operands' element types.
func.func @f(%s: tensor<64x128xf32>) {
  // expected-error @+1 {{'txl.reduce' op combiner returns 'f16' for operand 0, expected 'f32'}}
  %r = txl.reduce %s axis 1 : (tensor<64x128xf32>) -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32):
    %h = arith.truncf %a : f32 to f16
    txl.reduce_return %h : f16
  }
  return
}

// -----

// reduce_return only terminates a txl.reduce.
func.func @f(%x: f32) {
  // expected-error @+1 {{'txl.reduce_return' op expects parent op 'txl.reduce'}}
  txl.reduce_return %x : f32
}

// -----

// addptr offsets have the pointers' shape.
func.func @f(%p: tensor<128x!txl.ptr<f32>>, %o: tensor<64xi32>) {
  // expected-error @+1 {{'txl.addptr' op offsets 'tensor<64xi32>' must have the shape of the pointers 'tensor<128x!txl.ptr<f32>>'}}
  %q = txl.addptr %p, %o : tensor<128x!txl.ptr<f32>>, tensor<64xi32>
  return
}

// -----

// addptr of a scalar pointer takes a scalar offset.
func.func @f(%p: !txl.ptr<f32>, %o: tensor<1xi32>) {
  // expected-error @+1 {{'txl.addptr' op offsets 'tensor<1xi32>' must have the shape of the pointers '!txl.ptr<f32>'}}
  %q = txl.addptr %p, %o : !txl.ptr<f32>, tensor<1xi32>
  return
}

// -----

// load returns the pointee type in the pointers' shape.
func.func @f(%p: tensor<128x!txl.ptr<f32>>) {
  // expected-error @+1 {{'txl.load' op loads 'tensor<128xf32>' through 'tensor<128x!txl.ptr<f32>>', but the result is 'tensor<128xf16>'}}
  %x = txl.load %p : tensor<128x!txl.ptr<f32>> -> tensor<128xf16>
  return
}

// -----

// A scalar load returns a scalar.
func.func @f(%p: !txl.ptr<bf16>) {
  // expected-error @+1 {{'txl.load' op loads 'bf16' through '!txl.ptr<bf16>', but the result is 'tensor<1xbf16>'}}
  %x = txl.load %p : !txl.ptr<bf16> -> tensor<1xbf16>
  return
}

// -----

// load: 'other' needs a mask.
func.func @f(%p: tensor<128x!txl.ptr<f32>>, %z: tensor<128xf32>) {
  // expected-error @+1 {{'txl.load' op 'other' is only used with a mask}}
  %x = txl.load %p other %z : tensor<128x!txl.ptr<f32>> -> tensor<128xf32>
  return
}

// -----

// load: 'other' has the result type (checked by the op's type constraint).
func.func @f(%p: tensor<128x!txl.ptr<f32>>, %m: tensor<128xi1>, %z: tensor<128xf16>) {
  // expected-error @+1 {{'txl.load' op failed to verify that other has the result type}}
  %x = "txl.load"(%p, %m, %z) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<128x!txl.ptr<f32>>, tensor<128xi1>, tensor<128xf16>) -> tensor<128xf32>
  return
}

// -----

// load: the mask has the pointers' shape (checked by the op's type constraint).
func.func @f(%p: tensor<128x!txl.ptr<f32>>, %m: tensor<64xi1>) {
  // expected-error @+1 {{'txl.load' op failed to verify that mask is i1 in the pointers' shape}}
  %x = "txl.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<128x!txl.ptr<f32>>, tensor<64xi1>) -> tensor<128xf32>
  return
}

// -----

// store writes the pointee type in the pointers' shape.
func.func @f(%p: tensor<128x!txl.ptr<f32>>, %x: tensor<128xf16>) {
  // expected-error @+1 {{'txl.store' op stores 'tensor<128xf16>' through 'tensor<128x!txl.ptr<f32>>', which needs 'tensor<128xf32>'}}
  txl.store %p, %x : tensor<128x!txl.ptr<f32>>, tensor<128xf16>
  return
}

// -----

// store: the mask has the pointers' shape (checked by the op's type constraint).
func.func @f(%p: !txl.ptr<f32>, %x: f32, %m: tensor<1xi1>) {
  // expected-error @+1 {{'txl.store' op failed to verify that mask is i1 in the pointers' shape}}
  "txl.store"(%p, %x, %m) : (!txl.ptr<f32>, f32, tensor<1xi1>) -> ()
  return
}

// -----

// trans: the order is a permutation of the dimensions.
func.func @f(%x: tensor<64x32xf32>) {
  // expected-error @+1 {{'txl.trans' op order must be a permutation of 0..1, got [0, 0]}}
  %t = txl.trans %x, [0, 0] : tensor<64x32xf32> -> tensor<64x64xf32>
  return
}

// -----

// trans: result dimension i is source dimension order[i].
func.func @f(%x: tensor<64x32xf32>) {
  // expected-error @+1 {{'txl.trans' op result shape must be [32, 64], got [64, 32]}}
  %t = txl.trans %x, [1, 0] : tensor<64x32xf32> -> tensor<64x32xf32>
  return
}

// -----

// trans: a result layout that is not the source layout transposed would move
// data between threads.
#rows = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @f(%x: tensor<16x32xf32, #rows>) {
  // expected-error @+1 {{'txl.trans' op result layout #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]> is not the source layout moved through the op (#txl.linear<register = [[1, 0], [2, 0]], lane = [[4, 0], [8, 0], [16, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8]]>); insert a txl.relayout after it}}
  %t = txl.trans %x, [1, 0] : tensor<16x32xf32, #rows> -> tensor<32x16xf32, #rows>
  return
}

// -----

// reshape keeps the number of elements.
func.func @f(%x: tensor<64x32xf32>) {
  // expected-error @+1 {{'txl.reshape' op cannot reshape [64, 32] (2048 elements) to [64, 64] (4096 elements)}}
  %r = txl.reshape %x : tensor<64x32xf32> -> tensor<64x64xf32>
  return
}

// -----

// reshape keeps the element type.
func.func @f(%x: tensor<64x32xf32>) {
  // expected-error @+1 {{'txl.reshape' op requires the same element type for all operands and results}}
  %r = txl.reshape %x : tensor<64x32xf32> -> tensor<2048xf16>
  return
}

// -----

// join: the result adds a last dimension of size 2.
func.func @f(%a: tensor<64x32xf32>) {
  // expected-error @+1 {{'txl.join' op result must be [64, 32, 2] of 'f32', got 'tensor<64x64xf32>'}}
  %j = txl.join %a, %a : tensor<64x32xf32> -> tensor<64x64xf32>
  return
}

// -----

// join: both operands have one type.
func.func @f(%a: tensor<64x32xf32>, %b: tensor<64x32xf16>) {
  // expected-error @+1 {{'txl.join' op failed to verify that all of {lhs, rhs} have same type}}
  %j = "txl.join"(%a, %b) : (tensor<64x32xf32>, tensor<64x32xf16>) -> tensor<64x32x2xf32>
  return
}

// -----

// split: the last dimension has size 2.
func.func @f(%x: tensor<64x32xf32>) {
  // expected-error @+1 {{'txl.split' op splits a last dimension of size 2 (rank >= 2), got [64, 32]}}
  %a, %b = txl.split %x : tensor<64x32xf32> -> tensor<64xf32>
  return
}

// -----

// split: the results drop the last dimension.
func.func @f(%x: tensor<64x2xf32>) {
  // expected-error @+1 {{'txl.split' op results must be [64] of 'f32', got 'tensor<32xf32>'}}
  %a, %b = txl.split %x : tensor<64x2xf32> -> tensor<32xf32>
  return
}

// -----

// split: with layouts, the split dimension must be in registers.
#lanes = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#any = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @f(%x: tensor<64x2xf32, #lanes>) {
  // expected-error @+1 {{'txl.split' op needs the last dimension of its source held in one register basis of each thread; insert a txl.relayout before it}}
  %a, %b = txl.split %x : tensor<64x2xf32, #lanes> -> tensor<64xf32, #any>
  return
}

// -----

// make_tensor_descriptor: the base points at the descriptor's element type.
func.func @f(%a: !txl.ptr<f16>, %s: !txl.ptr<i8>, %m: i64) {
  // expected-error @+1 {{'txl.make_tensor_descriptor' op base must be a global pointer to 'bf16' (the descriptor's element type), got '!txl.ptr<f16>'}}
  %d = txl.make_tensor_descriptor %a, [%m, %m], [%m, %m], %s : !txl.ptr<f16>, !txl.ptr<i8> -> !txl.tensordesc<64x64xbf16>
  return
}

// -----

// make_tensor_descriptor: one size and one stride per dimension.
func.func @f(%a: !txl.ptr<bf16>, %s: !txl.ptr<i8>, %m: i64) {
  // expected-error @+1 {{'txl.make_tensor_descriptor' op needs 2 sizes and 2 strides (the descriptor's rank), got 1 and 2}}
  %d = txl.make_tensor_descriptor %a, [%m], [%m, %m], %s : !txl.ptr<bf16>, !txl.ptr<i8> -> !txl.tensordesc<64x64xbf16>
  return
}

// -----

// make_tensor_descriptor: the slot is global memory.
func.func @f(%a: !txl.ptr<bf16>, %s: !txl.ptr<i8, 3>, %m: i64) {
  // expected-error @+1 {{'txl.make_tensor_descriptor' op scratch must be a global !txl.ptr<i8> (a 128-byte slot), got '!txl.ptr<i8, 3>'}}
  %d = txl.make_tensor_descriptor %a, [%m, %m], [%m, %m], %s : !txl.ptr<bf16>, !txl.ptr<i8, 3> -> !txl.tensordesc<64x64xbf16>
  return
}

// -----

// txl.vector (set by txl-vectorize-accesses) is a power of two on a load or store.
func.func @f(%p: tensor<128x!txl.ptr<f32>>) {
  // expected-error @+1 {{'txl.vector' is a power of two in 1..16 on txl.load or txl.store}}
  %v = txl.load %p {txl.vector = 3 : i32} : tensor<128x!txl.ptr<f32>> -> tensor<128xf32>
  return
}

// -----

func.func @f(%a: i32) -> i32 {
  // expected-error @+1 {{'txl.vector' is a power of two in 1..16 on txl.load or txl.store}}
  %b = arith.addi %a, %a {txl.vector = 4 : i32} : i32
  return %b : i32
}

// -----

// Atomics: the value has the pointee type in the pointers' shape.
func.func @f(%p: tensor<128x!txl.ptr<f32>>, %v: tensor<64xf32>) {
  // expected-error @+1 {{'txl.atomic_rmw' op value 'tensor<64xf32>' must be 'tensor<128xf32>', what the pointers 'tensor<128x!txl.ptr<f32>>' point to}}
  %a = txl.atomic_rmw add acq_rel gpu %p, %v : tensor<128x!txl.ptr<f32>>, tensor<64xf32>
  return
}

// -----

func.func @f(%p: !txl.ptr<f32>, %v: i32) {
  // expected-error @+1 {{'txl.atomic_rmw' op value 'i32' must be 'f32', what the pointers '!txl.ptr<f32>' point to}}
  %a = txl.atomic_rmw add acq_rel gpu %p, %v : !txl.ptr<f32>, i32
  return
}

// -----

// Element types PTX atom takes for each kind.
func.func @f(%p: !txl.ptr<f16>, %v: f16) {
  // expected-error @+1 {{'txl.atomic_rmw' op atomic max does not take 'f16' elements (it takes i32 and i64 (signed), f32 and f64)}}
  %a = txl.atomic_rmw max acq_rel gpu %p, %v : !txl.ptr<f16>, f16
  return
}

// -----

func.func @f(%p: !txl.ptr<f32>, %v: f32) {
  // expected-error @+1 {{'txl.atomic_rmw' op atomic and does not take 'f32' elements (it takes i32 and i64)}}
  %a = txl.atomic_rmw and acq_rel gpu %p, %v : !txl.ptr<f32>, f32
  return
}

// -----

func.func @f(%p: !txl.ptr<f32>, %v: f32) {
  // expected-error @+1 {{'txl.atomic_rmw' op atomic umin does not take 'f32' elements (it takes i32 and i64 (unsigned))}}
  %a = txl.atomic_rmw umin acq_rel gpu %p, %v : !txl.ptr<f32>, f32
  return
}

// -----

func.func @f(%p: !txl.ptr<i8>, %v: i8) {
  // expected-error @+1 {{'txl.atomic_rmw' op atomic add does not take 'i8' elements (it takes i32, i64, f16, bf16, f32 and f64)}}
  %a = txl.atomic_rmw add acq_rel gpu %p, %v : !txl.ptr<i8>, i8
  return
}

// -----

func.func @f(%p: !txl.ptr<i16>, %v: i16) {
  // expected-error @+1 {{'txl.atomic_rmw' op atomic xchg does not take 'i16' elements (it takes 32- and 64-bit integers and floats)}}
  %a = txl.atomic_rmw xchg acq_rel gpu %p, %v : !txl.ptr<i16>, i16
  return
}

// -----

// The mask has the pointers' shape.
func.func @f(%p: tensor<128x!txl.ptr<f32>>, %v: tensor<128xf32>, %m: i1) {
  // expected-error @+1 {{'txl.atomic_rmw' op failed to verify that mask is i1 in the pointers' shape}}
  %a = "txl.atomic_rmw"(%p, %v, %m) <{kind = #txl<atomic_kind add>, sem = #txl<sem acq_rel>, scope = #txl<scope gpu>, operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (tensor<128x!txl.ptr<f32>>, tensor<128xf32>, i1) -> tensor<128xf32>
  return
}

// -----

func.func @f(%p: !txl.ptr<i32>, %v: i32) {
  // expected-error @+2 {{failed to parse TXL_AtomicRMWKindAttr parameter 'value'}}
  // expected-error @+1 {{expected ::mlir::txl::AtomicRMWKind to be one of: add, max, min, umax, umin, and, or, xor, xchg}}
  %a = txl.atomic_rmw nand acq_rel gpu %p, %v : !txl.ptr<i32>, i32
  return
}

// -----

func.func @f(%p: !txl.ptr<i32>, %v: i32) {
  // expected-error @+2 {{failed to parse TXL_MemSemanticAttr parameter 'value'}}
  // expected-error @+1 {{expected ::mlir::txl::MemSemantic to be one of: relaxed, acquire, release, acq_rel}}
  %a = txl.atomic_rmw add seq_cst gpu %p, %v : !txl.ptr<i32>, i32
  return
}

// -----

func.func @f(%p: !txl.ptr<i32>, %v: i32) {
  // expected-error @+2 {{failed to parse TXL_MemScopeAttr parameter 'value'}}
  // expected-error @+1 {{expected ::mlir::txl::MemScope to be one of: cta, cluster, gpu, sys}}
  %a = txl.atomic_rmw add relaxed device %p, %v : !txl.ptr<i32>, i32
  return
}

// -----

func.func @f(%p: !txl.ptr<i8>, %v: i8) {
  // expected-error @+1 {{'txl.atomic_cas' op atomic compare-and-swap does not take 'i8' elements (it takes 16-, 32- and 64-bit integers and floats)}}
  %a = txl.atomic_cas acq_rel gpu %p, %v, %v : !txl.ptr<i8>, i8
  return
}

// -----

func.func @f(%p: tensor<128x!txl.ptr<i32>>, %v: tensor<128xi32>, %c: tensor<128xi64>) {
  // expected-error @+1 {{'txl.atomic_cas' op failed to verify that all of {cmp, value, result} have same type}}
  %a = "txl.atomic_cas"(%p, %c, %v) <{sem = #txl<sem acq_rel>, scope = #txl<scope gpu>}> : (tensor<128x!txl.ptr<i32>>, tensor<128xi64>, tensor<128xi32>) -> tensor<128xi32>
  return
}

// -----

// txl.group_warps (set by txl-allocate-scratch) belongs on an atomic.
func.func @f(%p: !txl.ptr<i32>, %v: i32) {
  // expected-error @+1 {{'txl.group_warps' is a power of two in 1..32 on txl.atomic_rmw or txl.atomic_cas}}
  %a = txl.atomic_rmw add acq_rel gpu %p, %v {txl.group_warps = 3 : i32} : !txl.ptr<i32>, i32
  return
}
