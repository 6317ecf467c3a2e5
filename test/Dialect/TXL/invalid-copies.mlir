// RUN: txl-opt %s -split-input-file -verify-diagnostics

// Verifier rules of the txl dialect: TMA, descriptor loads/stores, cp.async and device-built descriptors.
// (One file per op group; invalid types and attributes are in invalid-types.mlir.)

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

// make_tensor_descriptor: the base points at the descriptor's element type.
func.func @f(%a: !txl.ptr<f16>, %s: !txl.ptr<i8>, %m: i64) {
  // expected-error @+1 {{'txl.make_tensor_descriptor' op base must be a global pointer to 'bf16' (the descriptor's element type), got '!txl.ptr<f16>'}}
  %d = txl.make_tensor_descriptor %a, [%m, %m], [%m, %m], %s : !txl.ptr<f16>, !txl.ptr<i8> -> !txl.tensordesc<64x64xbf16>
  return
}

// -----

// make_tensor_descriptor: TMA fills with NaN only floating-point elements.
func.func @f(%a: !txl.ptr<i32>, %s: !txl.ptr<i8>, %m: i64) {
  // expected-error @+1 {{'txl.make_tensor_descriptor' op fills out-of-bounds elements with NaN, which TMA does for f16, bf16, f32 and f64 only, got 'i32'}}
  %d = txl.make_tensor_descriptor %a, [%m, %m], [%m, %m], %s {nan_fill} : !txl.ptr<i32>, !txl.ptr<i8> -> !txl.tensordesc<64x64xi32>
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

// A buffer narrower than the block moves whole boxes: 96 columns of bf16 are
// not a whole number of 128-byte swizzle spans (64 columns).
#sw = #txl.nvmma_shared<swizzle = 128>
func.func @f(%d: !txl.tensordesc<64x512xbf16, #sw>, %x: i32, %v: !txl.smem<64x96xbf16>) {
  // expected-error @+1 {{'txl.tma_store' op descriptor box [64, 512] does not match the buffer shape [64, 96] (a buffer may be narrower only in the last dimension, by whole swizzle spans)}}
  txl.tma_store %v, %d[%x, %x] : !txl.smem<64x96xbf16>, !txl.tensordesc<64x512xbf16, #sw>
  return
}

// -----

// A column slice of the block by whole swizzle spans is a partial copy.
#sw = #txl.nvmma_shared<swizzle = 128>
func.func @f(%d: !txl.tensordesc<64x512xbf16, #sw>, %x: i32, %v: !txl.smem<64x128xbf16, #sw>, %b: !txl.mbar) {
  txl.tma_load %d[%x, %x], %v, %b : !txl.tensordesc<64x512xbf16, #sw>, !txl.smem<64x128xbf16, #sw>
  txl.tma_store %v, %d[%x, %x] : !txl.smem<64x128xbf16, #sw>, !txl.tensordesc<64x512xbf16, #sw>
  return
}
