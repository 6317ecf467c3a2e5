// RUN: txl-opt %s -split-input-file -verify-diagnostics

// Verifier rules of the txl dialect: txl.dot, txl.dotx and txl.dot_wait.
// (One file per op group; invalid types and attributes are in invalid-types.mlir.)

// Without txl.target the target is sm_90a: no tcgen05.
func.func @f(%a: !txl.smem<128x64xbf16>, %b: !txl.smem<64x128xbf16>, %c: !txl.tmem<128x128xf32>) {
  // expected-error @+1 {{'txl.dotx' op needs an sm_100a (Blackwell) target: tensor memory and tcgen05 do not exist on sm_90a}}
  txl.dotx %a, %b, %c : !txl.smem<128x64xbf16>, !txl.smem<64x128xbf16>, !txl.tmem<128x128xf32>
  return
}

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

// M is a multiple of 16 (mma.sync; wgmma for multiples of 64).
func.func @f(%a: !txl.smem<24x16xbf16>, %b: !txl.smem<16x64xbf16>, %c: tensor<24x64xf32>) {
  // expected-error @+1 {{'txl.dot' op M must be a multiple of 16 (mma.sync m16n8k16; wgmma takes multiples of 64), got 24}}
  %d = txl.dot %a, %b, %c : !txl.smem<24x16xbf16>, !txl.smem<16x64xbf16>, tensor<24x64xf32>
  return
}

// -----

// N is a multiple of 8 (wgmma's N <= 256 is checked by txl-wgmma: mma.sync
// dots take any N).
func.func @f(%a: tensor<64x16xbf16>, %b: !txl.smem<16x60xbf16>, %c: tensor<64x60xf32>) {
  // expected-error @+1 {{'txl.dot' op N must be a multiple of 8 (mma.sync n8, wgmma steps of 8), got 60}}
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
