// RUN: txl-opt %txl_src/examples/flash_attention_fwd_hd64_sm90.mlir --verify-roundtrip | FileCheck %s

// examples/flash_attention_fwd_hd64_sm90.mlir parses, verifies and
// round-trips. Spot-check what head dim 64 changes: one 128-byte swizzle
// atom per row (64-column boxes), half the TMA bytes, S = Q K^T still
// 64 x 128 but O a 64 x 64 accumulator (PV with B = V tile 128 x 64).

// CHECK-LABEL: func.func @flash_attention_fwd_hd64_sm90(
// CHECK-SAME: !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
// CHECK-SAME: !txl.tensordesc<128x64xbf16, #txl.nvmma_shared<swizzle = 128>>
// CHECK: txl.mbar_expect %{{.*}}, 8192
// CHECK: txl.mbar_expect %{{.*}}, 16384
// CHECK: txl.mbar_expect %{{.*}}, 16384
// CHECK: txl.smem_trans %{{.*}} [1, 0] : !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>> -> !txl.smem<64x128xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>
// CHECK: txl.dot %{{.*}} {async} : !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, !txl.smem<64x128xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>, tensor<64x128xf32>
// CHECK: txl.dot %{{.*}} {async} : tensor<64x128xbf16>, !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>>, tensor<64x64xf32>
// CHECK: txl.smem_store %{{.*}} : tensor<64x64xbf16>, !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
