// RUN: txl-opt %s -split-input-file -verify-diagnostics

// Verifier rules of txl.gather (Triton's tt.gather shape rules).

func.func @axis_out_of_range(%src: tensor<64xf32>, %idx: tensor<64xi32>) {
  // expected-error @+1 {{'txl.gather' op axis 1 is out of range for a rank-1 tile}}
  %g = txl.gather %src[%idx] axis 1 : tensor<64xf32>, tensor<64xi32> -> tensor<64xf32>
  return
}

// -----

func.func @rank_mismatch(%src: tensor<64x4xf32>, %idx: tensor<64xi32>) {
  // expected-error @+1 {{'txl.gather' op index must have the source's rank (2), got 'tensor<64xi32>'}}
  %g = txl.gather %src[%idx] axis 0 : tensor<64x4xf32>, tensor<64xi32> -> tensor<64xf32>
  return
}

// -----

func.func @float_index(%src: tensor<64xf32>, %idx: tensor<64xf32>) {
  // expected-error @+1 {{'txl.gather' op index must hold integers, got 'f32'}}
  %g = txl.gather %src[%idx] axis 0 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  return
}

// -----

func.func @other_dim_differs(%src: tensor<64x4xf32>, %idx: tensor<16x8xi32>) {
  // expected-error @+1 {{'txl.gather' op index dimension 1 (8) must match the source's (4): only the gather axis 0 may differ}}
  %g = txl.gather %src[%idx] axis 0 : tensor<64x4xf32>, tensor<16x8xi32> -> tensor<16x8xf32>
  return
}

// -----

func.func @result_type(%src: tensor<64xf32>, %idx: tensor<32xi32>) {
  // expected-error @+1 {{'txl.gather' op result must have the index's shape and the source's element type ('tensor<32xf32>'), got 'tensor<32xf16>'}}
  %g = txl.gather %src[%idx] axis 0 : tensor<64xf32>, tensor<32xi32> -> tensor<32xf16>
  return
}

// -----

func.func @scratch_shape(%src: tensor<64xf32>, %idx: tensor<32xi32>, %s: !txl.smem<32xf32>) {
  // expected-error @+1 {{'txl.gather' op scratch must have the source's shape, got '!txl.smem<32xf32>'}}
  %g = txl.gather %src[%idx] axis 0 scratch(%s : !txl.smem<32xf32>) : tensor<64xf32>, tensor<32xi32> -> tensor<32xf32>
  return
}
