// RUN: txl-opt %s -split-input-file --txl-allocate-scratch -verify-diagnostics
//
// Exchanges through shared memory that no barrier can synchronize.

// Two warps have no reserved barrier (only one warp, a warpgroup or the CTA).
#a = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [2, 1], order = [1, 0]>
#b = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 2], order = [0, 1]>
func.func @two_warps(%x: tensor<32x64xf32, #a>) -> tensor<32x64xf32, #b> attributes {txl.kernel} {
  // expected-error @+1 {{'txl.relayout' op exchanges data between the 2 warps of its layout through shared memory, but only one warp, one warpgroup (4 warps) or the whole CTA has a barrier to synchronize them; use a layout over 1 or 4 warps}}
  %y = txl.relayout %x : tensor<32x64xf32, #a> -> tensor<32x64xf32, #b>
  return %y : tensor<32x64xf32, #b>
}

// -----

// A layout over all 8 warps inside a warp-specialized region: barrier 0
// would wait for warps that run the other branch.
#a = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]>
#b = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 8], order = [0, 1]>
func.func @whole_cta_in_role(%x: tensor<64x64xf32, #a>, %p: tensor<64x64x!txl.ptr<f32>, #b>)
    attributes {txl.kernel, txl.num_warps = 8 : i32} {
  %c = txl.is_warpgroup [1]
  scf.if %c {
    // expected-error @+1 {{'txl.relayout' op exchanges data over all 8 warps of the CTA (barrier 0) inside a warp-specialized region, where the other warps never arrive; use a layout over one warpgroup (4 warps)}}
    %y = txl.relayout %x : tensor<64x64xf32, #a> -> tensor<64x64xf32, #b>
    txl.store %p, %y : tensor<64x64x!txl.ptr<f32>, #b>, tensor<64x64xf32, #b>
  }
  return
}

// -----

// A layout over more warps than the kernel has: refused by the txl.kernel
// verifier already (test/Dialect/TXL/invalid-kernels.mlir), before this pass.
#a = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]>
#b = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 8], order = [0, 1]>
func.func @too_many_warps(%x: tensor<64x64xf32, #a>) -> tensor<64x64xf32, #b> attributes {txl.kernel} {
  // expected-error @+1 {{'txl.relayout' op register layout #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 8], order = [0, 1]> spans 8 warps but the kernel has 4}}
  %y = txl.relayout %x : tensor<64x64xf32, #a> -> tensor<64x64xf32, #b>
  return %y : tensor<64x64xf32, #b>
}
