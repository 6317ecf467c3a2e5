// RUN: txl-opt %txl_src/examples/gemm_sm90.mlir --verify-roundtrip | FileCheck %s

// examples/gemm_sm90.mlir parses, verifies and round-trips. Spot-check the
// shape of its pipeline: 2-load prologue, wait / async wgmma / dot_wait 1 /
// refill in the K loop, then the TMA-store epilogue.

// CHECK: module attributes {txl.target = "sm_90a"}
// CHECK-LABEL: func.func @gemm_sm90(
// CHECK-SAME: attributes {txl.kernel, txl.num_warps = 4 : i32}
// CHECK: txl.program_id 0
// CHECK: txl.program_id 1
// CHECK: txl.smem_alloc : !txl.smem<128x64xbf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
// CHECK: txl.mbar_alloc count 1 : !txl.mbar<3>
// CHECK: txl.mbar_expect %{{.*}}, 32768
// CHECK-NEXT: txl.tma_load
// CHECK-NEXT: txl.tma_load
// CHECK: txl.mbar_expect %{{.*}}, 32768
// CHECK: scf.for
// CHECK: txl.mbar_wait
// CHECK: txl.smem_trans %{{.*}} [1, 0]
// CHECK: txl.dot %{{.*}} {async}
// CHECK-NEXT: txl.dot_wait 1
// CHECK: scf.if
// CHECK: txl.mbar_expect %{{.*}}, 32768
// CHECK: txl.tma_load
// CHECK: scf.yield
// CHECK: txl.dot_wait 0, %{{.*}} : tensor<128x128xf32>
// CHECK-NEXT: arith.truncf
// CHECK: txl.smem_store
// CHECK-NEXT: txl.fence_proxy_async
// CHECK-NEXT: txl.tma_store
// CHECK-NEXT: txl.tma_store_wait 0
