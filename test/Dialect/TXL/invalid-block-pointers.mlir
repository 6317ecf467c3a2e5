// RUN: txl-opt %s -split-input-file -verify-diagnostics

// Verifier rules of the block-pointer type and ops (txl.make_block_ptr,
// txl.advance, txl.block_load, txl.block_store).

// The order is a permutation of the block's dimensions.
// expected-error @+1 {{!txl.block_ptr order must be a permutation of the 2 dimensions of its block (0..1), got [1, 1]}}
func.func private @f(!txl.block_ptr<tensor<64x32xf16>, order = [1, 1]>)

// -----

// expected-error @+1 {{!txl.block_ptr order must be a permutation of the 2 dimensions of its block (0..1), got [0]}}
func.func private @f(!txl.block_ptr<tensor<64x32xf16>, order = [0]>)

// -----

// expected-error @+1 {{!txl.block_ptr points to integer or float elements, got 'index'}}
func.func private @f(!txl.block_ptr<tensor<64xindex>, order = [0]>)

// -----

// One shape, stride and offset per dimension.
func.func @f(%p: !txl.ptr<f16>, %m: i64, %o: i32) {
  // expected-error @+1 {{'txl.make_block_ptr' op needs one strides value per dimension of the 2-D block, got 1}}
  %b = txl.make_block_ptr %p, [%m, %m], [%m], [%o, %o] : !txl.ptr<f16> -> !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>
  return
}

// -----

func.func @f(%p: !txl.ptr<f16>, %m: i64, %o: i32) {
  // expected-error @+1 {{'txl.make_block_ptr' op needs one offsets value per dimension of the 2-D block, got 3}}
  %b = txl.make_block_ptr %p, [%m, %m], [%m, %m], [%o, %o, %o] : !txl.ptr<f16> -> !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>
  return
}

// -----

// The base points to the block's element type, in global memory.
func.func @f(%p: !txl.ptr<f32>, %m: i64, %o: i32) {
  // expected-error @+1 {{'txl.make_block_ptr' op base points to 'f32' but the block pointer's elements are 'f16'}}
  %b = txl.make_block_ptr %p, [%m], [%m], [%o] : !txl.ptr<f32> -> !txl.block_ptr<tensor<64xf16>, order = [0]>
  return
}

// -----

func.func @f(%p: !txl.ptr<f16, 3>, %m: i64, %o: i32) {
  // expected-error @+1 {{'txl.make_block_ptr' op base must be a global-memory pointer (address space 1), got '!txl.ptr<f16, 3>'}}
  %b = txl.make_block_ptr %p, [%m], [%m], [%o] : !txl.ptr<f16, 3> -> !txl.block_ptr<tensor<64xf16>, order = [0]>
  return
}

// -----

// Offsets are i32 (Triton's width).
// expected-note @+1 {{prior use here}}
func.func @f(%p: !txl.ptr<f16>, %m: i64) {
  // expected-error @+1 {{use of value '%m' expects different type than prior uses: 'i32' vs 'i64'}}
  %b = txl.make_block_ptr %p, [%m], [%m], [%m] : !txl.ptr<f16> -> !txl.block_ptr<tensor<64xf16>, order = [0]>
  return
}

// -----

// One delta per dimension.
func.func @f(%b: !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>, %o: i32) {
  // expected-error @+1 {{'txl.advance' op needs one offset per dimension of the 2-D block, got 1}}
  %c = txl.advance %b, [%o] : !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>
  return
}

// -----

// boundary_check: dimensions of the block, each once.
func.func @f(%b: !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>) {
  // expected-error @+1 {{'txl.block_load' op boundary_check dimension 2 is out of range for a 2-D block (0..1)}}
  %x = txl.block_load %b boundary_check = [0, 2] : !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]> -> tensor<64x32xf16>
  return
}

// -----

func.func @f(%b: !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>) {
  // expected-error @+1 {{'txl.block_load' op boundary_check lists dimension 1 twice}}
  %x = txl.block_load %b boundary_check = [1, 1] : !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]> -> tensor<64x32xf16>
  return
}

// -----

func.func @f(%b: !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>, %x: tensor<64x32xf16>) {
  // expected-error @+1 {{'txl.block_store' op boundary_check dimension -1 is out of range for a 2-D block (0..1)}}
  txl.block_store %b, %x boundary_check = [-1] : !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>, tensor<64x32xf16>
  return
}

// -----

// A padding needs a boundary_check (it is what the checked dimensions read
// outside the parent tensor).
func.func @f(%b: !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>) {
  // expected-error @+1 {{'txl.block_load' op padding only applies to the boundary_check dimensions; add a boundary_check or drop the padding}}
  %x = txl.block_load %b padding zero : !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]> -> tensor<64x32xf16>
  return
}

// -----

func.func @f(%b: !txl.block_ptr<tensor<64xi32>, order = [0]>) {
  // expected-error @+1 {{'txl.block_load' op padding nan needs a floating-point block, got 'i32'}}
  %x = txl.block_load %b boundary_check = [0] padding nan : !txl.block_ptr<tensor<64xi32>, order = [0]> -> tensor<64xi32>
  return
}

// -----

// The loaded tile and the stored value are the block's.
func.func @f(%b: !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>) {
  // expected-error @+1 {{'txl.block_load' op result must be the block 'tensor<64x32xf16>', got 'tensor<64x32xf32>'}}
  %x = txl.block_load %b : !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]> -> tensor<64x32xf32>
  return
}

// -----

func.func @f(%b: !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>, %x: tensor<32x64xf16>) {
  // expected-error @+1 {{'txl.block_store' op value must be the block 'tensor<64x32xf16>' or a scalar of its element type, got 'tensor<32x64xf16>'}}
  txl.block_store %b, %x : !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>, tensor<32x64xf16>
  return
}

// -----

func.func @f(%b: !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>, %x: f32) {
  // expected-error @+1 {{'txl.block_store' op value must be the block 'tensor<64x32xf16>' or a scalar of its element type, got 'f32'}}
  txl.block_store %b, %x : !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>, f32
  return
}
