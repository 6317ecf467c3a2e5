// RUN: txl-opt %s -split-input-file -verify-diagnostics

// Verifier rules of txl.warp_reduce, txl.slot_store and txl.slot_load.

func.func @rank2(%x: tensor<16x64xf32>) {
  // expected-error @+1 {{'txl.warp_reduce' op operand 0 must be a rank-1 tile (the elements the warp holds are combined) or an integer or float scalar (the warp's lanes are combined), got 'tensor<16x64xf32>'}}
  %m = txl.warp_reduce %x : (tensor<16x64xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %c = arith.maxnumf %a, %b : f32
    txl.reduce_return %c : f32
  }
  return
}

// -----

func.func @tile_result(%x: tensor<64xf32>) {
  // expected-error @+1 {{'txl.warp_reduce' op result 0 must be 'f32' (one value per warp), got 'tensor<64xf32>'}}
  %m = txl.warp_reduce %x : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32):
    %c = arith.maxnumf %a, %b : f32
    txl.reduce_return %c : f32
  }
  return
}

// -----

func.func @mixed_shapes(%x: tensor<64xf32>, %y: f32) {
  // expected-error @+1 {{'txl.warp_reduce' op operands must have the same shape}}
  %m, %n = txl.warp_reduce %x, %y : (tensor<64xf32>, f32) -> (f32, f32) {
  ^bb0(%a: f32, %a2: f32, %b: f32, %b2: f32):
    txl.reduce_return %a, %a2 : f32, f32
  }
  return
}

// -----

func.func @combiner_types(%x: tensor<64xf32>) {
  // expected-error @+1 {{'txl.warp_reduce' op combiner arguments for operand 0 must be 'f32'}}
  %m = txl.warp_reduce %x : (tensor<64xf32>) -> f32 {
  ^bb0(%a: f16, %b: f16):
    txl.reduce_return %a : f16
  }
  return
}

// -----

func.func @combiner_return(%x: tensor<64xf32>) {
  // expected-error @+1 {{'txl.warp_reduce' op combiner returns 'i32' for operand 0, expected 'f32'}}
  %m = txl.warp_reduce %x : (tensor<64xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %c = arith.constant 0 : i32
    txl.reduce_return %c : i32
  }
  return
}

// -----

func.func @store_type(%v: f16, %buf: !txl.smem<4xf32>) {
  // expected-error @+1 {{'txl.slot_store' op value 'f16' must be the view's element type 'f32'}}
  txl.slot_store %v, %buf {laneBases = array<i64>, warpBases = array<i64: 1, 2>} : f16, !txl.smem<4xf32>
  return
}

// -----

func.func @store_base_out_of_view(%v: f32, %buf: !txl.smem<4xf32>) {
  // expected-error @+1 {{'txl.slot_store' op warpBases entries are element indices of the view (0..3), got 4}}
  txl.slot_store %v, %buf {laneBases = array<i64>, warpBases = array<i64: 1, 2, 4>} : f32, !txl.smem<4xf32>
  return
}

// -----

func.func @store_too_many_bases(%v: f32, %buf: !txl.smem<64xf32>) {
  // expected-error @+1 {{'txl.slot_store' op laneBases has at most 5 entries (32 lanes), got 6}}
  txl.slot_store %v, %buf {laneBases = array<i64: 1, 2, 4, 8, 16, 32>, warpBases = array<i64>} : f32, !txl.smem<64xf32>
  return
}

// -----

func.func @store_not_power_of_two(%v: f32, %buf: !txl.smem<6xf32>) {
  // expected-error @+1 {{'txl.slot_store' op needs a view with a power-of-two number of elements (the bases are XOR-ed), got 6}}
  txl.slot_store %v, %buf {laneBases = array<i64>, warpBases = array<i64: 1, 2>} : f32, !txl.smem<6xf32>
  return
}

// -----

func.func @store_async_16bit(%v: f16, %buf: !txl.smem<4xf16>, %bar: !txl.mbar) {
  // expected-error @+1 {{'txl.slot_store' op with an mbarrier is st.async, which stores 32- or 64-bit elements; got 'f16'}}
  txl.slot_store %v, %buf mbar %bar {ctaId = 1 : i32, laneBases = array<i64>, warpBases = array<i64: 1, 2>} : f16, !txl.smem<4xf16>
  return
}

// -----

func.func @store_cta_outside_cluster(%v: f32, %buf: !txl.smem<4xf32>) attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_ctas = 2 : i32} {
  // expected-error @+1 {{'txl.slot_store' op ctaId 2 is not a CTA of this kernel's cluster of 2 (txl.num_ctas); launch with num_ctas > 2}}
  txl.slot_store %v, %buf {ctaId = 2 : i32, laneBases = array<i64>, warpBases = array<i64: 1, 2>} : f32, !txl.smem<4xf32>
  return
}

// -----

func.func @load_pred_without_other(%buf: !txl.smem<4xf32>, %p: i1) {
  // expected-error @+1 {{'txl.slot_load' op with 'pred' needs 'other' (the value where 'pred' is false)}}
  %v = txl.slot_load %buf pred %p {laneBases = array<i64: 1, 2>, warpBases = array<i64>} : !txl.smem<4xf32> -> f32
  return
}

// -----

func.func @load_type(%buf: !txl.smem<4xbf16>, %o: f32) {
  // expected-error @+1 {{'txl.slot_load' op result 'f32' must be the view's element type 'bf16'}}
  %v = txl.slot_load %buf {laneBases = array<i64: 1, 2>, warpBases = array<i64>} : !txl.smem<4xbf16> -> f32
  return
}
