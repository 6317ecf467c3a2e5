// RUN: txl-opt %s -txl-assign-layouts -split-input-file -verify-diagnostics | FileCheck %s

// A kernel whose role is 8 warps (Triton's num_warps = 8, txl.role_warps):
// the dot's accumulator stacks the two warpgroups along M and the other
// tiles' default layouts span the 8 warps. Error chunks print nothing.

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
// CHECK-LABEL: func.func @dot_on_two_warpgroups
// CHECK: arith.constant dense<0.000000e+00> : tensor<128x128xf32, #txl.nvmma<version = 3, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]>>
// CHECK: txl.dot {{.*}} tensor<128x128xf32, #txl.nvmma<version = 3, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]>>
// CHECK: txl.make_range 0, 256 : tensor<256xi32, #txl.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>>
module attributes {txl.target = "sm_90a"} {
  func.func @dot_on_two_warpgroups(%a: !txl.smem<128x64xbf16, #sw128>, %b: !txl.smem<64x128xbf16, #sw128T>, %p: !txl.ptr<f32>) attributes {txl.kernel, txl.num_warps = 8 : i32, txl.role_warps = 8 : i32} {
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %d = txl.dot %a, %b, %z : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x128xbf16, #sw128T>, tensor<128x128xf32>
    %r = txl.make_range 0, 256 : tensor<256xi32>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
module attributes {txl.target = "sm_90a"} {
  func.func @m64_on_two_warpgroups(%a: !txl.smem<64x64xbf16, #sw128>, %b: !txl.smem<64x128xbf16, #sw128T>) attributes {txl.kernel, txl.num_warps = 8 : i32, txl.role_warps = 8 : i32} {
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    // expected-error @+1 {{M = 64 with 8 warps: wgmma runs on whole warpgroups that split M in 64-row blocks, so M must be a multiple of 128 (launch with num_warps=4, or a larger BLOCK_M)}}
    %d = txl.dot %a, %b, %z : !txl.smem<64x64xbf16, #sw128>, !txl.smem<64x128xbf16, #sw128T>, tensor<64x128xf32>
    return
  }
}
