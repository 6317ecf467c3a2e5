// Regression test: a transposed view checked the swizzle against its last
// dimension, so the transposed view type the pass printed failed to parse.
// A transposed view checks the swizzle against its contiguous (first) dimension.
// Not in smem-allocs.mlir: the printed IR must be parsed again (a Release
// build does not verify the types a pass builds), and it runs
// --txl-assign-layouts first.
// RUN: txl-opt %s -txl-assign-layouts -txl-smem-allocs | txl-opt | FileCheck %s
// CHECK: transposed = true

module attributes {txl.target = "sm_90a"} {
  func.func @f(%a: !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %k = txl.smem_alloc : !txl.smem<16x64xbf16, stages = 1>
    %kb = txl.get_buffer %k[%c0] : !txl.smem<16x64xbf16, stages = 1>
    %kT = txl.smem_trans %kb [1, 0] : !txl.smem<16x64xbf16> -> !txl.smem<64x16xbf16>
    %zero = arith.constant dense<0.0> : tensor<64x16xf32>
    %d = txl.dot %a, %kT, %zero : !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, !txl.smem<64x16xbf16>, tensor<64x16xf32>
    return
  }
}
