// Regression: A tensor-memory access between the load and the store blocks the in-place rewrite.
// RUN: txl-opt %s -txl-remove-redundant-tmem-allocs -split-input-file | FileCheck %s
// CHECK-COUNT-3: txl.tmem_store

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
module attributes {txl.target = "sm_100a"} {
  func.func @store_between(%a: !txl.smem<128x64xbf16, #sw128>, %b: !txl.smem<64x256xbf16, #sw128T>, %acc: !txl.tmem<128x256xf32>, %z: tensor<128x256xf32>) attributes {txl.kernel} {
    %c = txl.tmem_load %acc : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
    txl.tmem_store %z, %acc : tensor<128x256xf32>, !txl.tmem<128x256xf32>
    %d = txl.dotx %a, %b, %c : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x256xbf16, #sw128T>, tensor<128x256xf32> -> tensor<128x256xf32>
    txl.tmem_store %d, %acc : tensor<128x256xf32>, !txl.tmem<128x256xf32>
    return
  }
}
// -----
#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
module attributes {txl.target = "sm_100a"} {
  func.func @load_between(%a: !txl.smem<128x64xbf16, #sw128>, %b: !txl.smem<64x256xbf16, #sw128T>, %acc: !txl.tmem<128x256xf32>) -> tensor<128x256xf32> attributes {txl.kernel} {
    %c = txl.tmem_load %acc : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
    %d = txl.dotx %a, %b, %c : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x256xbf16, #sw128T>, tensor<128x256xf32> -> tensor<128x256xf32>
    %old = txl.tmem_load %acc : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
    txl.tmem_store %d, %acc : tensor<128x256xf32>, !txl.tmem<128x256xf32>
    return %old : tensor<128x256xf32>
  }
}
