// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: txlc %s --arch=sm_90a --emit=ptx -o %t/k.ptx
// RUN: FileCheck %s < %t/k.ptx
// RUN: %ptxas -arch=sm_90a %t/k.ptx -o %t/k.cubin

// A dot on K steps inside a swizzle atom (TXL's 01-matmul matmul_separate_tma:
// a 128 x 64 f16 tile with a 128-byte swizzle read as two 32-column steps):
// each step is a wgmma pair (k16 each) whose descriptors start 0, 32, 64 and
// 96 bytes into the atom's rows (descriptor units of 16 bytes: +0, +2, +4, +6
// on the start-address field).
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK-NOT: wgmma.mma_async
#sw = #txl.nvmma_shared<swizzle = 128>
module attributes {txl.target = "sm_90a"} {
  func.func @k_steps(%a_desc: !txl.tensordesc<64x64xf16, #sw>, %b_desc: !txl.tensordesc<128x64xf16, #sw>, %out: !txl.ptr<f32>) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %a_ring = txl.smem_alloc : !txl.smem<64x64xf16, stages = 1, #sw>
    %b_ring = txl.smem_alloc : !txl.smem<128x64xf16, stages = 1, #sw>
    %bars = txl.mbar_alloc count 1 : !txl.mbar<1>
    %a = txl.get_buffer %a_ring[%c0] : !txl.smem<64x64xf16, stages = 1, #sw>
    %b = txl.get_buffer %b_ring[%c0] : !txl.smem<128x64xf16, stages = 1, #sw>
    %bar = txl.get_buffer %bars[%c0] : !txl.mbar<1>
    txl.mbar_expect %bar, 24576
    txl.tma_load %a_desc[%c0, %c0], %a, %bar : !txl.tensordesc<64x64xf16, #sw>, !txl.smem<64x64xf16, #sw>
    txl.tma_load %b_desc[%c0, %c0], %b, %bar : !txl.tensordesc<128x64xf16, #sw>, !txl.smem<128x64xf16, #sw>
    txl.mbar_wait %bar, %c0 : i32
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %a0 = txl.smem_subslice %a [0, 0] : !txl.smem<64x64xf16, #sw> -> !txl.smem<64x32xf16, #sw>
    %b0 = txl.smem_subslice %b [0, 0] : !txl.smem<128x64xf16, #sw> -> !txl.smem<128x32xf16, #sw>
    %b0t = txl.smem_trans %b0 [1, 0] : !txl.smem<128x32xf16, #sw> -> !txl.smem<32x128xf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>
    %d0 = txl.dot %a0, %b0t, %z : !txl.smem<64x32xf16, #sw>, !txl.smem<32x128xf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>, tensor<64x128xf32>
    %a1 = txl.smem_subslice %a [0, 32] : !txl.smem<64x64xf16, #sw> -> !txl.smem<64x32xf16, #sw>
    %b1 = txl.smem_subslice %b [0, 32] : !txl.smem<128x64xf16, #sw> -> !txl.smem<128x32xf16, #sw>
    %b1t = txl.smem_trans %b1 [1, 0] : !txl.smem<128x32xf16, #sw> -> !txl.smem<32x128xf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>
    %d1 = txl.dot %a1, %b1t, %d0 : !txl.smem<64x32xf16, #sw>, !txl.smem<32x128xf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>, tensor<64x128xf32>
    %r = txl.make_range 0, 64 : tensor<64xi32>
    %c = txl.make_range 0, 128 : tensor<128xi32>
    %re = txl.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %ce = txl.expand_dims %c, 0 : tensor<128xi32> -> tensor<1x128xi32>
    %c128 = arith.constant dense<128> : tensor<64x1xi32>
    %rs = arith.muli %re, %c128 : tensor<64x1xi32>
    %rb = txl.broadcast %rs : tensor<64x1xi32> -> tensor<64x128xi32>
    %cb = txl.broadcast %ce : tensor<1x128xi32> -> tensor<64x128xi32>
    %off = arith.addi %rb, %cb : tensor<64x128xi32>
    %ps = txl.splat %out : !txl.ptr<f32> -> tensor<64x128x!txl.ptr<f32>>
    %p = txl.addptr %ps, %off : tensor<64x128x!txl.ptr<f32>>, tensor<64x128xi32>
    txl.store %p, %d1 : tensor<64x128x!txl.ptr<f32>>, tensor<64x128xf32>
    return
  }
}
