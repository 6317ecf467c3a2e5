// Regression: A tmem_load outside the loop is not merged with a dotx + tmem_store inside it (that would accumulate across iterations).
// RUN: txl-opt %s -txl-remove-redundant-tmem-allocs | FileCheck %s
// CHECK: txl.tmem_load

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
module attributes {txl.target = "sm_100a"} {
  func.func @loop(%a: !txl.smem<128x64xbf16, #sw128>, %b: !txl.smem<64x256xbf16, #sw128T>, %acc: !txl.tmem<128x256xf32>, %n: index) attributes {txl.kernel} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c = txl.tmem_load %acc : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
    scf.for %i = %c0 to %n step %c1 {
      %d = txl.dotx %a, %b, %c : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x256xbf16, #sw128T>, tensor<128x256xf32> -> tensor<128x256xf32>
      txl.tmem_store %d, %acc : tensor<128x256xf32>, !txl.tmem<128x256xf32>
    }
    return
  }
}
