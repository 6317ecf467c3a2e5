// Regression: scf.while values share one layout (they failed to verify before).
// RUN: txl-opt %s -txl-assign-layouts | txl-opt | FileCheck %s
// CHECK: scf.while

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
module attributes {txl.target = "sm_90a"} {
  func.func @wh(%a: !txl.smem<64x64xbf16, #sw128>, %b: !txl.smem<64x64xbf16, #sw128T>, %n: i32) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %r:2 = scf.while (%i = %c0, %acc = %zero) : (i32, tensor<64x64xf32>) -> (i32, tensor<64x64xf32>) {
      %c = arith.cmpi slt, %i, %n : i32
      scf.condition(%c) %i, %acc : i32, tensor<64x64xf32>
    } do {
    ^bb0(%i2: i32, %acc2: tensor<64x64xf32>):
      %d = txl.dot %a, %b, %acc2 : !txl.smem<64x64xbf16, #sw128>, !txl.smem<64x64xbf16, #sw128T>, tensor<64x64xf32>
      %i3 = arith.addi %i2, %c1 : i32
      scf.yield %i3, %d : i32, tensor<64x64xf32>
    }
    return
  }
}
