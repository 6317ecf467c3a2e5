// RUN: txl-opt %txl_src/examples/gemm_tcgen05_sm100.mlir --verify-roundtrip | FileCheck %s

// examples/gemm_tcgen05_sm100.mlir parses, verifies and round-trips.
// Spot-check the Blackwell warp roles (epilogue, MMA issuer, TMA producer),
// the TMEM accumulator and the completion barriers of txl.dotx.

// CHECK: module attributes {txl.target = "sm_100a"}
// CHECK-LABEL: func.func @gemm_tcgen05_sm100(
// CHECK-SAME: attributes {txl.kernel, txl.num_warps = 12 : i32}
// CHECK: txl.tmem_alloc : !txl.tmem<128x256xf32, stages = 2>
// CHECK: txl.mbar_alloc count 256 : !txl.mbar<2>

// Epilogue warps.
// CHECK: txl.is_warp [0, 1, 2, 3, 4, 5, 6, 7]
// CHECK: txl.mbar_wait
// CHECK: txl.tmem_load %{{.*}} : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
// CHECK-NEXT: txl.get_buffer
// CHECK-NEXT: txl.mbar_arrive
// CHECK: txl.smem_store
// CHECK-NEXT: txl.fence_proxy_async
// CHECK-NEXT: txl.tma_store

// MMA warp.
// CHECK: txl.is_warp [8]
// CHECK: txl.mbar_wait
// CHECK: scf.for
// CHECK: txl.mbar_wait
// CHECK: txl.dotx %{{.*}}, %{{.*}}, %{{.*}} use_d %{{.*}} mbars(%{{.*}}, %{{.*}}) preds(%{{.*}}, %{{.*}})

// TMA warp.
// CHECK: txl.is_warp [9]
// CHECK: txl.mbar_expect %{{.*}}, 49152
// CHECK-NEXT: txl.tma_load
// CHECK-NEXT: txl.tma_load
