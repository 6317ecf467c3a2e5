// RUN: txl-opt %s -split-input-file -verify-diagnostics

// Verifier rules of txl.histogram (Triton's tt.histogram).

func.func @two_d(%x: tensor<8x8xi32>) {
  // expected-error @+1 {{'txl.histogram' op counts a 1-D tile of integers, got 'tensor<8x8xi32>'}}
  %h = txl.histogram %x : tensor<8x8xi32> -> tensor<8xi32>
  return
}

// -----

func.func @float_src(%x: tensor<64xf32>) {
  // expected-error @+1 {{'txl.histogram' op counts a 1-D tile of integers, got 'tensor<64xf32>'}}
  %h = txl.histogram %x : tensor<64xf32> -> tensor<8xi32>
  return
}

// -----

func.func @i64_counts(%x: tensor<64xi32>) {
  // expected-error @+1 {{'txl.histogram' op result must be a 1-D tile of i32 counts (num_bins), got 'tensor<8xi64>'}}
  %h = txl.histogram %x : tensor<64xi32> -> tensor<8xi64>
  return
}

// -----

func.func @mask_shape(%x: tensor<64xi32>, %m: tensor<32xi1>) {
  // expected-error @+1 {{'txl.histogram' op mask must be an i1 tile of the source's shape, got 'tensor<32xi1>'}}
  %h = txl.histogram %x mask %m : tensor<32xi1> : tensor<64xi32> -> tensor<8xi32>
  return
}

// -----

func.func @scratch(%x: tensor<64xi32>, %s: !txl.smem<16xi32>) {
  // expected-error @+1 {{'txl.histogram' op scratch must hold the 8 i32 counts, got '!txl.smem<16xi32>'}}
  %h = txl.histogram %x scratch(%s : !txl.smem<16xi32>) : tensor<64xi32> -> tensor<8xi32>
  return
}
