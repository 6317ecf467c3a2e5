// RUN: txl-opt %s -split-input-file -verify-diagnostics

// Verifier rules of txl.elementwise_inline_asm (tl.inline_asm_elementwise).

// Without operands the results are scalars (Triton takes the shape from the
// arguments).
func.func @no_operands_tile_result() {
  // expected-error @+1 {{'txl.elementwise_inline_asm' op if a result is non-scalar, then at least one operand must be non-scalar}}
  %y = txl.elementwise_inline_asm "mov.b32 $0, 0;", "=r" () {packed_element = 1 : i32, pure = true} : () -> tensor<64xi32>
  return
}

// -----

func.func @no_results(%x: f32) {
  // expected-error @+1 {{'txl.elementwise_inline_asm' op needs at least one result}}
  txl.elementwise_inline_asm "", "f" (%x) {packed_element = 1 : i32, pure = false} : (f32) -> ()
  return
}

// -----

func.func @zero_pack(%x: f32) {
  // expected-error @+1 {{packed_element must be at least 1, got 0}}
  %y = txl.elementwise_inline_asm "mov.b32 $0, $1;", "=f,f" (%x) {packed_element = 0 : i32, pure = true} : (f32) -> f32
  return
}

// -----

// The Elementwise trait: one shape.
func.func @shape_mismatch(%x: tensor<64xf32>, %u: tensor<32xf32>) {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape and base type}}
  %y = txl.elementwise_inline_asm "add.f32 $0, $1, $2;", "=f,f,f" (%x, %u) {packed_element = 1 : i32, pure = true} : (tensor<64xf32>, tensor<32xf32>) -> tensor<64xf32>
  return
}

// -----

// A scalar beside tiles: the frontend splats it first.
func.func @scalar_with_tile(%x: tensor<64xf32>, %s: f32) {
  // expected-error @+1 {{operand 1 is 'f32' but operand 0 is a tile: operands and results are all tiles of one shape or all scalars (splat a scalar to the tiles' shape)}}
  %y = txl.elementwise_inline_asm "add.f32 $0, $1, $2;", "=f,f,f" (%x, %s) {packed_element = 1 : i32, pure = true} : (tensor<64xf32>, f32) -> tensor<64xf32>
  return
}

// -----

func.func @bool_result(%x: tensor<64xf32>) {
  // expected-error @+1 {{result 0 has elements of type 'i1'; inline asm takes integers and floats of 8 to 64 bits (cast booleans to int8 or int32)}}
  %y = txl.elementwise_inline_asm "setp.gt.f32 $0, $1, 0.0;", "=r,f" (%x) {packed_element = 1 : i32, pure = true} : (tensor<64xf32>) -> tensor<64xi1>
  return
}

// -----

// Two f16 share a register, so a pack of 3 cannot be split into registers.
func.func @pack_not_multiple(%x: tensor<64xf16>) {
  // expected-error @+1 {{operand 0 ('f16') packs 2 elements in a 32-bit register, which does not divide packed_element = 3; use a multiple of 2}}
  %y = txl.elementwise_inline_asm "", "=f,=f,=f,r,r" (%x) {packed_element = 3 : i32, pure = true} : (tensor<64xf16>) -> tensor<64xf32>
  return
}

// -----

// Four i8 per call are one register: "=r,r,r,r,r" names three inputs too many.
func.func @constraint_count(%x: tensor<64xi8>) {
  // expected-error @+1 {{constraints "=r,r,r,r,r" name 1 output and 4 input registers, but the asm has 1 output and 1 input registers per call (packed_element = 4; elements narrower than 32 bits share a register)}}
  %y = txl.elementwise_inline_asm "mov.b32 $0, $1;", "=r,r,r,r,r" (%x) {packed_element = 4 : i32, pure = true} : (tensor<64xi8>) -> tensor<64xi8>
  return
}

// -----

func.func @pointer_result(%x: tensor<64xi64>) {
  // expected-error @+1 {{result 0 has elements of type '!txl.ptr<f32>'; inline asm takes integers and floats of 8 to 64 bits}}
  %y = txl.elementwise_inline_asm "mov.b64 $0, $1;", "=l,l" (%x) {packed_element = 1 : i32, pure = true} : (tensor<64xi64>) -> tensor<64x!txl.ptr<f32>>
  return
}
