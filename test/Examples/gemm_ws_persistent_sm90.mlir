// RUN: txl-opt %txl_src/examples/gemm_ws_persistent_sm90.mlir --verify-roundtrip | FileCheck %s

// examples/gemm_ws_persistent_sm90.mlir parses, verifies and round-trips.
// Spot-check the warp specialization: a TMA producer warpgroup and two wgmma
// consumer warpgroups over a persistent tile loop.

// CHECK: module attributes {txl.target = "sm_90a"}
// CHECK-LABEL: func.func @gemm_ws_persistent_sm90(
// CHECK-SAME: attributes {txl.kernel, txl.num_warps = 12 : i32}
// CHECK: txl.num_programs 0
// CHECK: txl.mbar_alloc count 1 : !txl.mbar<3>
// CHECK: txl.mbar_alloc count 256 : !txl.mbar<3>

// Producer.
// CHECK: txl.is_warpgroup [0]
// CHECK: txl.reg_dealloc 40
// CHECK: scf.for
// CHECK: scf.for
// CHECK: txl.mbar_wait
// CHECK: txl.mbar_expect %{{.*}}, 49152
// CHECK-NEXT: txl.tma_load
// CHECK-NEXT: txl.tma_load
// CHECK-NEXT: txl.tma_load

// Consumers.
// CHECK: txl.is_warpgroup [1, 2]
// CHECK: txl.reg_alloc 232
// CHECK: txl.is_warpgroup [1]
// CHECK: scf.for
// CHECK: scf.for
// CHECK: txl.mbar_wait
// CHECK: txl.dot %{{.*}} {async} : !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, !txl.smem<64x256xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>, tensor<64x256xf32>
// CHECK-NEXT: txl.dot_wait 0
// CHECK: txl.mbar_arrive
// CHECK: txl.tma_store_wait 0
// CHECK-NEXT: txl.smem_store
// CHECK-NEXT: txl.fence_proxy_async
// CHECK: txl.tma_store
// CHECK: txl.tma_store_wait 0
