// RUN: txl-opt %s -txl-lower-loads -split-input-file | FileCheck %s --implicit-check-not=txl.tma_ --implicit-check-not=txl.fence_proxy_async

#sw128 = #txl.nvmma_shared<swizzle = 128>

// A box whose inner dimension fits the swizzle span (64 bf16 = 128 bytes) is
// one cp.async.bulk.tensor into the shared::cluster window, coordinates
// innermost first, issued by the warpgroup's first thread, completing on the
// mbarrier.
// CHECK-LABEL: func.func @tma_load_one_box
// CHECK-SAME: (%[[DESC:.*]]: !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, %[[BUF:.*]]: !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, %[[BARARG:.*]]: !txl.mbar, %[[M:.*]]: i32, %[[K:.*]]: i32)
// CHECK-DAG: %[[BAR:.*]] = builtin.unrealized_conversion_cast %[[BARARG]] : !txl.mbar to !llvm.ptr<3>
// CHECK-DAG: %[[DST:.*]] = builtin.unrealized_conversion_cast %[[BUF]] : {{.*}} to !llvm.ptr<3>
// CHECK-DAG: %[[MAP:.*]] = builtin.unrealized_conversion_cast %[[DESC]] : {{.*}} to !llvm.ptr
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK: %[[LANE:.*]] = llvm.urem %[[TID]], %[[C128]] : i32
// CHECK: %[[LEADER:.*]] = llvm.icmp "eq" %[[LANE]], %{{.*}} : i32
// CHECK: %[[CDST:.*]] = llvm.addrspacecast %[[DST]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[CDST]], %[[MAP]], %[[BAR]], box[%[[K]], %[[M]]] predicate = %[[LEADER]] : !llvm.ptr<7>, !llvm.ptr
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @tma_load_one_box(%d: !txl.tensordesc<64x64xbf16, #sw128>, %buf: !txl.smem<64x64xbf16, #sw128>, %bar: !txl.mbar, %m: i32, %k: i32) attributes {txl.kernel} {
    txl.tma_load %d[%m, %k], %buf, %bar : !txl.tensordesc<64x64xbf16, #sw128>, !txl.smem<64x64xbf16, #sw128>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>

// A 128x128 bf16 box with a 128-byte swizzle (256-byte rows) moves as two
// 128x64 hardware boxes: the second one 64 columns further in global memory
// and one 128 x 128-byte column block (16384 bytes) further in shared memory.
// CHECK-LABEL: func.func @tma_load_two_boxes
// CHECK-SAME: (%{{.*}}: !txl.tensordesc<128x128xbf16, {{.*}}>, %{{.*}}: !txl.smem<128x128xbf16, {{.*}}>, %{{.*}}: !txl.mbar, %[[M:.*]]: i32, %[[K:.*]]: i32)
// CHECK-DAG: %[[BAR:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.mbar to !llvm.ptr<3>
// CHECK-DAG: %[[DST:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.smem<{{.*}}> to !llvm.ptr<3>
// CHECK-DAG: %[[MAP:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.tensordesc<{{.*}}> to !llvm.ptr
// CHECK: %[[LEADER:.*]] = llvm.icmp "eq"
// CHECK: %[[CDST0:.*]] = llvm.addrspacecast %[[DST]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[CDST0]], %[[MAP]], %[[BAR]], box[%[[K]], %[[M]]] predicate = %[[LEADER]]
// CHECK: %[[DST1:.*]] = llvm.getelementptr %[[DST]][16384] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: %[[CDST1:.*]] = llvm.addrspacecast %[[DST1]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK: %[[C64:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK: %[[K1:.*]] = llvm.add %[[K]], %[[C64]] : i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[CDST1]], %[[MAP]], %[[BAR]], box[%[[K1]], %[[M]]] predicate = %[[LEADER]]
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @tma_load_two_boxes(%d: !txl.tensordesc<128x128xbf16, #sw128>, %buf: !txl.smem<128x128xbf16, #sw128>, %bar: !txl.mbar, %m: i32, %k: i32) attributes {txl.kernel} {
    txl.tma_load %d[%m, %k], %buf, %bar : !txl.tensordesc<128x128xbf16, #sw128>, !txl.smem<128x128xbf16, #sw128>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>

// 128 f32 = 512-byte rows with a 128-byte swizzle: four 64x32 boxes,
// 32 columns and 64 x 128 = 8192 bytes apart.
// CHECK-LABEL: func.func @tma_load_four_boxes
// CHECK-SAME: %[[K:[^ ]*]]: i32)
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, box[%[[K]], %{{.*}}]
// CHECK: llvm.getelementptr %[[DST:.*]][8192]
// CHECK: llvm.mlir.constant(32 : i32)
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: llvm.getelementptr %[[DST]][16384]
// CHECK: llvm.mlir.constant(64 : i32)
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: llvm.getelementptr %[[DST]][24576]
// CHECK: llvm.mlir.constant(96 : i32)
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @tma_load_four_boxes(%d: !txl.tensordesc<64x128xf32, #sw128>, %buf: !txl.smem<64x128xf32, #sw128>, %bar: !txl.mbar, %m: i32, %k: i32) attributes {txl.kernel} {
    txl.tma_load %d[%m, %k], %buf, %bar : !txl.tensordesc<64x128xf32, #sw128>, !txl.smem<64x128xf32, #sw128>
    return
  }
}

// -----

// An unswizzled 3-D box: one copy, all three coordinates reversed.
// CHECK-LABEL: func.func @tma_load_3d
// CHECK-SAME: %[[A:[^ ]*]]: i32, %[[B:[^ ]*]]: i32, %[[C:[^ ]*]]: i32)
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%[[C]], %[[B]], %[[A]]] predicate = %{{.*}} : !llvm.ptr<7>, !llvm.ptr
// CHECK-NOT: nvvm.cp.async.bulk.tensor
module attributes {txl.target = "sm_90a"} {
  func.func @tma_load_3d(%d: !txl.tensordesc<2x64x32xf32>, %buf: !txl.smem<2x64x32xf32>, %bar: !txl.mbar, %a: i32, %b: i32, %c: i32) attributes {txl.kernel} {
    txl.tma_load %d[%a, %b, %c], %buf, %bar : !txl.tensordesc<2x64x32xf32>, !txl.smem<2x64x32xf32>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>

// tma_store: a generic->async proxy fence first, then one bulk store per
// hardware box (here two) by the warpgroup's first thread, then one commit
// group.
// CHECK-LABEL: func.func @tma_store
// CHECK-SAME: %[[M:[^ ]*]]: i32, %[[N:[^ ]*]]: i32)
// CHECK-DAG: %[[MAP:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.tensordesc<{{.*}}> to !llvm.ptr
// CHECK-DAG: %[[SRC:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.smem<{{.*}}> to !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: %[[LEADER:.*]] = llvm.icmp "eq"
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]], %[[SRC]], box[%[[N]], %[[M]]], predicate = %[[LEADER]] : !llvm.ptr, <3>
// CHECK: %[[SRC1:.*]] = llvm.getelementptr %[[SRC]][16384] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: %[[N1:.*]] = llvm.add %[[N]], %{{.*}} : i32
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]], %[[SRC1]], box[%[[N1]], %[[M]]], predicate = %[[LEADER]] : !llvm.ptr, <3>
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NOT: nvvm.cp.async.bulk
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @tma_store(%d: !txl.tensordesc<128x128xbf16, #sw128>, %buf: !txl.smem<128x128xbf16, #sw128>, %m: i32, %n: i32) attributes {txl.kernel} {
    txl.tma_store %buf, %d[%m, %n] : !txl.smem<128x128xbf16, #sw128>, !txl.tensordesc<128x128xbf16, #sw128>
    return
  }
}

// -----

// tma_store_wait N: the issuing thread waits until at most N bulk groups
// still read shared memory, then the warpgroup syncs on named barrier
// 1 + tid / 128 with 128 threads.
// CHECK-LABEL: func.func @tma_store_wait
// CHECK: nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK: %[[WG:.*]] = llvm.udiv %[[TID]], %[[C128]] : i32
// CHECK: %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: %[[ID:.*]] = llvm.add %[[WG]], %[[C1]] : i32
// CHECK: %[[NUM:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK: nvvm.barrier id = %[[ID]] number_of_threads = %[[NUM]]
module attributes {txl.target = "sm_90a"} {
  func.func @tma_store_wait() attributes {txl.kernel} {
    txl.tma_store_wait 1
    return
  }
}

// -----

// fence_proxy_async is fence.proxy.async.shared::cta.
// CHECK-LABEL: func.func @fence_proxy_async
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: return
module attributes {txl.target = "sm_90a"} {
  func.func @fence_proxy_async() attributes {txl.kernel} {
    txl.fence_proxy_async
    return
  }
}
