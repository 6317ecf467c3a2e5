// Regression: a buffer read by an async op (TMA store, async wgmma) stays live
// until the kernel ends, so a later buffer never reuses its bytes while the
// hardware may still read them (both cases used to place both at offset 0).
// RUN: txl-opt %s -txl-smem-allocs -split-input-file | FileCheck %s
// CHECK-LABEL: func.func @async_store_reuse
// CHECK-SAME: txl.shared_bytes = 16384
// CHECK: llvm.getelementptr %{{.*}}[8192]
// CHECK-LABEL: func.func @async_dot_reuse
// CHECK-SAME: txl.shared_bytes = 16384
// CHECK: llvm.getelementptr %{{.*}}[8192]

#sw128 = #txl.nvmma_shared<swizzle = 128>
#bl = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {txl.target = "sm_90a"} {
  func.func @async_store_reuse(%desc: !txl.tensordesc<64x64xbf16, #sw128>, %v: tensor<64x64xbf16, #bl>, %w: tensor<64x64xbf16, #bl>) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %cb = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1>
    %c = txl.get_buffer %cb[%c0] : !txl.smem<64x64xbf16, stages = 1>
    txl.smem_store %v, %c : tensor<64x64xbf16, #bl>, !txl.smem<64x64xbf16>
    txl.fence_proxy_async
    txl.tma_store %c, %desc[%c0, %c0] : !txl.smem<64x64xbf16>, !txl.tensordesc<64x64xbf16, #sw128>
    %db = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1>
    %d = txl.get_buffer %db[%c0] : !txl.smem<64x64xbf16, stages = 1>
    txl.smem_store %w, %d : tensor<64x64xbf16, #bl>, !txl.smem<64x64xbf16>
    txl.fence_proxy_async
    txl.tma_store %d, %desc[%c0, %c64] : !txl.smem<64x64xbf16>, !txl.tensordesc<64x64xbf16, #sw128>
    txl.tma_store_wait 0
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
#nv = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>
#bl = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {txl.target = "sm_90a"} {
  func.func @async_dot_reuse(%b: !txl.smem<64x64xbf16, #sw128T>, %acc: tensor<64x64xf32, #nv>, %w: tensor<64x64xbf16, #bl>) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %ab = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1, #sw128>
    %a = txl.get_buffer %ab[%c0] : !txl.smem<64x64xbf16, stages = 1, #sw128>
    %r = txl.dot %a, %b, %acc {async} : !txl.smem<64x64xbf16, #sw128>, !txl.smem<64x64xbf16, #sw128T>, tensor<64x64xf32, #nv>
    %db = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1, #sw128>
    %d = txl.get_buffer %db[%c0] : !txl.smem<64x64xbf16, stages = 1, #sw128>
    txl.smem_store %w, %d : tensor<64x64xbf16, #bl>, !txl.smem<64x64xbf16, #sw128>
    %done = txl.dot_wait 0, %r : tensor<64x64xf32, #nv>
    return
  }
}
