// RUN: txl-opt %txl_src/examples/flash_attention_fwd_sm90.mlir --verify-roundtrip | FileCheck %s

// examples/flash_attention_fwd_sm90.mlir parses, verifies and round-trips.
// Spot-check the FA3 structure: producer warpgroup, two consumers with
// ping-pong named barriers, S = Q K^T and O += P V (P from registers)
// overlapped through dot_wait 1 / dot_wait 0, online softmax, epilogue.

// CHECK: module attributes {txl.target = "sm_90a"}
// CHECK-LABEL: func.func @flash_attention_fwd_sm90(
// CHECK-SAME: !txl.ptr<f32>, %{{.*}}: f32, %{{.*}}: i32)
// CHECK-SAME: attributes {txl.kernel, txl.num_warps = 12 : i32}

// Producer.
// CHECK: txl.is_warpgroup [0]
// CHECK: txl.reg_dealloc 24
// CHECK: txl.mbar_expect %{{.*}}, 16384
// CHECK: scf.for
// CHECK: txl.mbar_expect %{{.*}}, 32768
// CHECK: txl.mbar_expect %{{.*}}, 32768

// Consumers.
// CHECK: txl.is_warpgroup [1, 2]
// CHECK: txl.reg_alloc 240
// CHECK: txl.bar_arrive 8, 256
// CHECK: txl.dot %{{.*}} {async}
// CHECK: txl.reduce %{{.*}} axis 1
// CHECK: arith.maxnumf
// CHECK: math.exp2
// CHECK: scf.for
// CHECK: txl.bar_wait 8, 256
// CHECK: txl.bar_wait 9, 256
// CHECK: txl.smem_trans
// CHECK: txl.dot %{{.*}} {async} : !txl.smem<64x128xbf16, #txl.nvmma_shared<swizzle = 128>>
// CHECK: txl.dot %{{.*}} {async} : tensor<64x128xbf16>, !txl.smem<128x128xbf16, #txl.nvmma_shared<swizzle = 128>>, tensor<64x128xf32>
// CHECK-NEXT: txl.dot_wait 1, %{{.*}} : tensor<64x128xf32>
// CHECK: txl.mbar_arrive
// CHECK: txl.bar_arrive 9, 256
// CHECK: txl.bar_arrive 8, 256
// CHECK: txl.expand_dims
// CHECK: txl.broadcast
// CHECK: math.exp2
// CHECK: txl.dot_wait 0, %{{.*}} : tensor<64x128xf32>
// CHECK: txl.mbar_arrive

// Epilogue.
// CHECK: math.log2
// CHECK: arith.divf
// CHECK: txl.make_range 0, 64 : tensor<64xi32>
// CHECK: txl.addptr %{{.*}}, %{{.*}} : tensor<64x!txl.ptr<f32>>, tensor<64xi32>
// CHECK: txl.store
// CHECK: txl.smem_store
// CHECK-NEXT: txl.fence_proxy_async
// CHECK: txl.tma_store
// CHECK-NEXT: txl.tma_store_wait 0
