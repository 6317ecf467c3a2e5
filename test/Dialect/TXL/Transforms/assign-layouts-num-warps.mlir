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

// M = 64 on a role of 8 warps is not a whole number of wgmma steps (two
// warpgroups x 64 rows): the dot runs on mma.sync, 4 warps along M (16 rows
// each) x 2 along N; both operands are loaded from their views into the
// mma.sync operand layouts.
#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
// CHECK-LABEL: func.func @m64_on_two_warpgroups
// CHECK: %[[A:.*]] = txl.smem_load %{{.*}} -> tensor<64x64xbf16, #txl.dot_operand<opIdx = 0, parent = #txl.nvmma<version = 2, warpsPerCTA = [4, 2], instrShape = [16, 8, 16]>, kWidth = 2>>
// CHECK: %[[B:.*]] = txl.smem_load %{{.*}} -> tensor<64x128xbf16, #txl.dot_operand<opIdx = 1, parent = #txl.nvmma<version = 2, warpsPerCTA = [4, 2], instrShape = [16, 8, 16]>, kWidth = 2>>
// CHECK: txl.dot %[[A]], %[[B]], %{{.*}} : tensor<64x64xbf16, {{.*}}>, tensor<64x128xbf16, {{.*}}>, tensor<64x128xf32, #txl.nvmma<version = 2, warpsPerCTA = [4, 2], instrShape = [16, 8, 16]>>
module attributes {txl.target = "sm_90a"} {
  func.func @m64_on_two_warpgroups(%a: !txl.smem<64x64xbf16, #sw128>, %b: !txl.smem<64x128xbf16, #sw128T>) attributes {txl.kernel, txl.num_warps = 8 : i32, txl.role_warps = 8 : i32} {
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %d = txl.dot %a, %b, %z : !txl.smem<64x64xbf16, #sw128>, !txl.smem<64x128xbf16, #sw128T>, tensor<64x128xf32>
    return
  }
}

// -----

// M = 16 (NSA's 16 query heads of one KV group) on 4 warps: mma.sync with
// one warp along M and 4 along N; register operands get relayouts into the
// operand layouts. An 8-bit dot with such an M is refused.
// CHECK-LABEL: func.func @m16_mma_sync
// CHECK: txl.relayout %{{.*}} -> tensor<16x64xbf16, #txl.dot_operand<opIdx = 0, parent = #txl.nvmma<version = 2, warpsPerCTA = [1, 4], instrShape = [16, 8, 16]>, kWidth = 2>>
// CHECK: txl.relayout %{{.*}} -> tensor<64x64xbf16, #txl.dot_operand<opIdx = 1, parent = #txl.nvmma<version = 2, warpsPerCTA = [1, 4], instrShape = [16, 8, 16]>, kWidth = 2>>
// CHECK: txl.dot {{.*}}, tensor<16x64xf32, #txl.nvmma<version = 2, warpsPerCTA = [1, 4], instrShape = [16, 8, 16]>>
module attributes {txl.target = "sm_90a"} {
  func.func @m16_mma_sync(%va: !txl.smem<16x64xbf16>, %vb: !txl.smem<64x64xbf16>) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %a0 = txl.smem_load %va : !txl.smem<16x64xbf16> -> tensor<16x64xbf16>
    %b0 = txl.smem_load %vb : !txl.smem<64x64xbf16> -> tensor<64x64xbf16>
    %a = arith.addf %a0, %a0 : tensor<16x64xbf16>
    %b = arith.addf %b0, %b0 : tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<16x64xf32>
    %d = txl.dot %a, %b, %z : tensor<16x64xbf16>, tensor<64x64xbf16>, tensor<16x64xf32>
    return
  }
}

// -----

module attributes {txl.target = "sm_90a"} {
  func.func @m16_fp8(%va: !txl.smem<16x64xf8E4M3FN>, %vb: !txl.smem<64x64xf8E4M3FN>) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %a = txl.smem_load %va : !txl.smem<16x64xf8E4M3FN> -> tensor<16x64xf8E4M3FN>
    %b = txl.smem_load %vb : !txl.smem<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
    %z = arith.constant dense<0.0> : tensor<16x64xf32>
    // expected-error @+1 {{M = 16 runs on mma.sync (wgmma needs M a multiple of 64 with 4 warps), which txl supports for fp16 and bf16 operands; got 'f8E4M3FN': use a BLOCK_M that is a multiple of 64, or convert the operands to fp16/bf16}}
    %d = txl.dot %a, %b, %z : tensor<16x64xf8E4M3FN>, tensor<64x64xf8E4M3FN>, tensor<16x64xf32>
    return
  }
}
