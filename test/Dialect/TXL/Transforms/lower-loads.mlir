// RUN: txl-opt %s -txl-lower-loads -split-input-file | FileCheck %s --implicit-check-not=txl.tma_ --implicit-check-not=txl.fence_proxy_async --implicit-check-not=txl.async_load --implicit-check-not=txl.make_tensor_descriptor

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
// The destination as the CTA's shared::cluster window: the same 32-bit address.
// CHECK: %[[I:.*]] = llvm.ptrtoint %[[DST]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[CDST:.*]] = llvm.inttoptr %[[I]] : i32 to !llvm.ptr<7>
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
// CHECK: %[[I0:.*]] = llvm.ptrtoint %[[DST]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[CDST0:.*]] = llvm.inttoptr %[[I0]] : i32 to !llvm.ptr<7>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[CDST0]], %[[MAP]], %[[BAR]], box[%[[K]], %[[M]]] predicate = %[[LEADER]]
// CHECK: %[[DST1:.*]] = llvm.getelementptr %[[DST]][16384] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: %[[I1:.*]] = llvm.ptrtoint %[[DST1]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[CDST1:.*]] = llvm.inttoptr %[[I1]] : i32 to !llvm.ptr<7>
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

// tma_store: a generic->async proxy fence in every thread, a sync of the
// warpgroup (named barrier 1 + tid / 128, 128 threads: every warp has written
// its part of the tile), then one bulk store per hardware box (here two) by
// the warpgroup's first thread, then one commit group. Without the barrier
// the copy raced the other warps' smem_store (wrong rows of O on the H100).
// CHECK-LABEL: func.func @tma_store
// CHECK-SAME: %[[M:[^ ]*]]: i32, %[[N:[^ ]*]]: i32)
// CHECK-DAG: %[[MAP:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.tensordesc<{{.*}}> to !llvm.ptr
// CHECK-DAG: %[[SRC:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.smem<{{.*}}> to !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[WG:.*]] = llvm.udiv %[[TID]], %{{.*}} : i32
// CHECK: %[[ID:.*]] = llvm.add %[[WG]], %{{.*}} : i32
// CHECK: nvvm.barrier id = %[[ID]] number_of_threads = %{{.*}}
// CHECK-NOT: nvvm.cp.async.bulk.tensor
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

#sw128 = #txl.nvmma_shared<swizzle = 128>

// A kernel whose role is 8 warps (num_warps = 8, txl.role_warps): the role
// is the unit of TMA issue and of the sync before it. The barrier waits for
// 256 threads (named barrier 1 + tid / 256) and only thread 0 of the 256
// issues the copies: one leader per warpgroup would load the tile twice and
// arrive twice on its mbarrier.
// CHECK-LABEL: func.func @role_of_eight_warps
// CHECK: %[[T0:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[R256:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK: %[[LANE:.*]] = llvm.urem %[[T0]], %[[R256]] : i32
// CHECK: %[[L0:.*]] = llvm.icmp "eq" %[[LANE]], %{{.*}} : i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} predicate = %[[L0]]
// CHECK: nvvm.fence.proxy
// CHECK: %[[T1:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[D256:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK: %[[ROLE:.*]] = llvm.udiv %[[T1]], %[[D256]] : i32
// CHECK: %[[ID:.*]] = llvm.add %[[ROLE]], %{{.*}} : i32
// CHECK: %[[N256:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK: nvvm.barrier id = %[[ID]] number_of_threads = %[[N256]]
// CHECK: %[[T2:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[LANE2:.*]] = llvm.urem %[[T2]], %{{.*}} : i32
// CHECK: %[[L1:.*]] = llvm.icmp "eq" %[[LANE2]], %{{.*}} : i32
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta {{.*}} predicate = %[[L1]]
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @role_of_eight_warps(%d: !txl.tensordesc<128x128xbf16, #sw128>, %buf: !txl.smem<128x128xbf16, #sw128>, %bar: !txl.mbar, %m: i32, %n: i32) attributes {txl.kernel, txl.num_warps = 8 : i32, txl.role_warps = 8 : i32} {
    txl.tma_load %d[%m, %n], %buf, %bar : !txl.tensordesc<128x128xbf16, #sw128>, !txl.smem<128x128xbf16, #sw128>
    txl.tma_store %buf, %d[%m, %n] : !txl.smem<128x128xbf16, #sw128>, !txl.tensordesc<128x128xbf16, #sw128>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>

// A reducing tma_store (fp32 accumulation into global memory, e.g. dQ): the
// same fence and warpgroup sync, then per hardware box (64 f32 = 256 bytes is
// two 128-byte boxes) one cp.reduce.async.bulk.tensor add in an scf.if on the
// warpgroup's first thread (the NVVM op has no predicate), then one commit
// group.
// CHECK-LABEL: func.func @tma_store_reduce
// CHECK-SAME: %[[M:[^ ]*]]: i32, %[[N:[^ ]*]]: i32)
// CHECK-DAG: %[[MAP:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.tensordesc<{{.*}}> to !llvm.ptr
// CHECK-DAG: %[[SRC:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.smem<{{.*}}> to !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.barrier id
// CHECK: %[[LEADER:.*]] = llvm.icmp "eq"
// CHECK: scf.if %[[LEADER]] {
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.reduce %[[MAP]], %[[SRC]], box[%[[N]], %[[M]]] {redKind = #nvvm.tma_redux_kind<add>} : !llvm.ptr, <3>
// CHECK-NEXT: }
// CHECK: %[[SRC1:.*]] = llvm.getelementptr %[[SRC]][8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: %[[N1:.*]] = llvm.add %[[N]], %{{.*}} : i32
// CHECK: scf.if %[[LEADER]] {
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.reduce %[[MAP]], %[[SRC1]], box[%[[N1]], %[[M]]] {redKind = #nvvm.tma_redux_kind<add>} : !llvm.ptr, <3>
// CHECK-NEXT: }
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK-NOT: nvvm.cp.async.bulk
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @tma_store_reduce(%d: !txl.tensordesc<64x64xf32, #sw128>, %buf: !txl.smem<64x64xf32, #sw128>, %m: i32, %n: i32) attributes {txl.kernel} {
    txl.tma_store %buf, %d[%m, %n] reduce add : !txl.smem<64x64xf32, #sw128>, !txl.tensordesc<64x64xf32, #sw128>
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

// -----

#blocked = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// async_load of a 64x64 bf16 tile, 8 consecutive elements per thread in a
// row: each thread holds 32 registers (4 rows of 8), moved as 4 16-byte
// cp.async (.cg: L2 only) into the unswizzled (row-major) buffer, then one
// commit group.
// CHECK-LABEL: func.func @async_load_16b
// CHECK-DAG: %[[PTRS:.*]] = builtin.unrealized_conversion_cast %{{.*}} : tensor<64x64x!txl.ptr<bf16>, {{.*}}> to !llvm.struct<(ptr<1>
// CHECK-DAG: %[[DST:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.smem<64x64xbf16> to !llvm.ptr<3>
// CHECK: %[[SRC0:.*]] = llvm.extractvalue %[[PTRS]][0]
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %[[SRC0]], 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK: %[[SRC8:.*]] = llvm.extractvalue %[[PTRS]][8]
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %[[SRC8]], 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK: %[[SRC16:.*]] = llvm.extractvalue %[[PTRS]][16]
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %[[SRC16]], 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK: %[[SRC24:.*]] = llvm.extractvalue %[[PTRS]][24]
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %[[SRC24]], 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: nvvm.cp.async
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @async_load_16b(%p: tensor<64x64x!txl.ptr<bf16>, #blocked>, %buf: !txl.smem<64x64xbf16>) attributes {txl.kernel} {
    txl.async_load %p, %buf : tensor<64x64x!txl.ptr<bf16>, #blocked>, !txl.smem<64x64xbf16>
    return
  }
}

// -----

#blocked = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sw128 = #txl.nvmma_shared<swizzle = 128>

// The same tile into a 128B-swizzled buffer: a 16-byte run is one swizzle
// chunk, so still 4 copies; the address XORs the chunk with the row
// ((offset >> 7) & 7) << 4, once: the other copies are 16, 32 and 48 rows
// below for every thread (the same row within the 8-row swizzle group), so
// they are the first address plus 2048, 4096 and 6144 bytes.
// CHECK-LABEL: func.func @async_load_16b_swizzled
// CHECK: %[[C7:.*]] = llvm.mlir.constant(7 : i32) : i32
// CHECK: %[[SEL:.*]] = llvm.lshr %[[LIN:.*]], %[[C7]] : i32
// CHECK: %[[CHUNK:.*]] = llvm.and %[[SEL]], %{{.*}} : i32
// CHECK: %[[SHL:.*]] = llvm.shl %[[CHUNK]], %{{.*}} : i32
// CHECK: %[[OFF:.*]] = llvm.xor %[[LIN]], %[[SHL]] : i32
// CHECK: %[[ADDR:.*]] = llvm.getelementptr %{{.*}}[%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: nvvm.cp.async.shared.global %[[ADDR]], %{{.*}}, 16, cache = cg
// CHECK: %[[A1:.*]] = llvm.getelementptr %[[ADDR]][2048] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: nvvm.cp.async.shared.global %[[A1]], %{{.*}}, 16, cache = cg
// CHECK: %[[A2:.*]] = llvm.getelementptr %[[ADDR]][4096] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: nvvm.cp.async.shared.global %[[A2]], %{{.*}}, 16, cache = cg
// CHECK: %[[A3:.*]] = llvm.getelementptr %[[ADDR]][6144] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: nvvm.cp.async.shared.global %[[A3]], %{{.*}}, 16, cache = cg
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK-NOT: llvm.shl
// CHECK: nvvm.cp.async.commit.group
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @async_load_16b_swizzled(%p: tensor<64x64x!txl.ptr<bf16>, #blocked>, %buf: !txl.smem<64x64xbf16, #sw128>) attributes {txl.kernel} {
    txl.async_load %p, %buf {contiguity = 8 : i32} : tensor<64x64x!txl.ptr<bf16>, #blocked>, !txl.smem<64x64xbf16, #sw128>
    return
  }
}

// -----

#blocked = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#row = #txl.slice<dim = 0, parent = #blocked>

// A K bound check `k_offs < K - k0` with K and k0 multiples of 16 is one
// value over each 8-element run (AxisInfo constancy 16): one select of the
// run's first mask element per copy, 16 or 0 bytes, instead of eight.
// CHECK-LABEL: func.func @async_load_mask_constant_per_run
// CHECK-DAG: %[[MASK:.*]] = builtin.unrealized_conversion_cast %{{.*}} : tensor<64x64xi1, {{.*}}> to !llvm.struct<(i1
// CHECK: %[[M0:.*]] = llvm.extractvalue %[[MASK]][0]
// CHECK-NEXT: %[[S0:.*]] = llvm.select %[[M0]], %{{.*}}, %{{.*}} : i1, i32
// CHECK-NEXT: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %[[S0]]
// CHECK: %[[M8:.*]] = llvm.extractvalue %[[MASK]][8]
// CHECK-NEXT: %[[S8:.*]] = llvm.select %[[M8]], %{{.*}}, %{{.*}} : i1, i32
// CHECK-NEXT: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %[[S8]]
// CHECK-COUNT-2: nvvm.cp.async.shared.global
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK-NOT: llvm.add
// CHECK: nvvm.cp.async.commit.group
module attributes {txl.target = "sm_90a"} {
  func.func @async_load_mask_constant_per_run(%p: tensor<64x64x!txl.ptr<bf16>, #blocked>, %K: i32 {txl.divisibility = 16 : i32}, %buf: !txl.smem<64x64xbf16>) attributes {txl.kernel} {
    %c64 = arith.constant 64 : i32
    %k0 = arith.muli %K, %c64 : i32
    %bound = arith.subi %K, %k0 : i32
    %r = txl.make_range 0, 64 : tensor<64xi32, #row>
    %r2 = txl.expand_dims %r, 0 : tensor<64xi32, #row> -> tensor<1x64xi32, #blocked>
    %rb = txl.broadcast %r2 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %bs = txl.splat %bound : i32 -> tensor<64x64xi32, #blocked>
    %m = arith.cmpi slt, %rb, %bs : tensor<64x64xi32, #blocked>
    txl.async_load %p, %buf mask %m : tensor<64x64xi1, #blocked> {contiguity = 8 : i32} : tensor<64x64x!txl.ptr<bf16>, #blocked>, !txl.smem<64x64xbf16>
    return
  }
}

// -----

#blocked = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// Masked with an element mask and a zero `other`: each copy's src-size is
// the sum of its enabled elements' bytes (a select of 2 or 0 each), so
// masked-off elements are zero-filled.
// CHECK-LABEL: func.func @async_load_masked
// CHECK-DAG: %[[MASK:.*]] = builtin.unrealized_conversion_cast %{{.*}} : tensor<64x64xi1, {{.*}}> to !llvm.struct<(i1
// CHECK: %[[M0:.*]] = llvm.extractvalue %[[MASK]][0]
// CHECK: %[[S0:.*]] = llvm.select %[[M0]], %[[TWO:.*]], %[[ZERO:.*]] : i1, i32
// CHECK: %[[M1:.*]] = llvm.extractvalue %[[MASK]][1]
// CHECK: %[[S1:.*]] = llvm.select %[[M1]], %[[TWO]], %[[ZERO]] : i1, i32
// CHECK: %[[SUM:.*]] = llvm.add %[[S0]], %[[S1]] : i32
// CHECK: %[[M7:.*]] = llvm.extractvalue %[[MASK]][7]
// CHECK: %[[S7:.*]] = llvm.select %[[M7]], %[[TWO]], %[[ZERO]] : i1, i32
// CHECK: %[[SIZE:.*]] = llvm.add %{{.*}}, %[[S7]] : i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %[[SIZE]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-COUNT-3: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
module attributes {txl.target = "sm_90a"} {
  func.func @async_load_masked(%p: tensor<64x64x!txl.ptr<bf16>, #blocked>, %m: tensor<64x64xi1, #blocked>, %buf: !txl.smem<64x64xbf16>) attributes {txl.kernel} {
    %zero = arith.constant dense<0.0> : tensor<64x64xbf16, #blocked>
    txl.async_load %p, %buf mask %m : tensor<64x64xi1, #blocked> other %zero : tensor<64x64xbf16, #blocked> : tensor<64x64x!txl.ptr<bf16>, #blocked>, !txl.smem<64x64xbf16>
    return
  }
}

// -----

#blocked = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// `contiguity = 2` narrows the runs to 2 bf16 = 4 bytes (.ca: .cg exists
// for 16-byte copies only); a scalar mask selects the whole copy.
// CHECK-LABEL: func.func @async_load_4b_scalar_mask
// CHECK-SAME: %[[M:[^ ]*]]: i1
// CHECK: %[[SIZE:.*]] = llvm.select %[[M]], %{{.*}}, %{{.*}} : i1, i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 4, cache = ca, %[[SIZE]]
// CHECK-COUNT-15: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 4, cache = ca, %{{.*}}
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
module attributes {txl.target = "sm_90a"} {
  func.func @async_load_4b_scalar_mask(%p: tensor<64x64x!txl.ptr<bf16>, #blocked>, %m: i1, %buf: !txl.smem<64x64xbf16>) attributes {txl.kernel} {
    txl.async_load %p, %buf mask %m : i1 {contiguity = 2 : i32} : tensor<64x64x!txl.ptr<bf16>, #blocked>, !txl.smem<64x64xbf16>
    return
  }
}

// -----

#rows = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>

// Gluon tutorial 03's pipelined copy: a 32x64 f32 tile into slot `i % 3` of
// a 3-buffer ring in a loop. The 32 copies of a thread are one base register
// (the slot's address plus this thread's offset, read through an opaque mov
// so that LLVM's loop strength reduction cannot turn them into 32
// loop-invariant registers) plus a constant each (rows are 256 bytes apart).
// CHECK-LABEL: func.func @async_load_ring_slot_in_loop
// CHECK: scf.for
// CHECK: %[[VIEW:.*]] = txl.get_buffer
// CHECK: %[[DST:.*]] = builtin.unrealized_conversion_cast %[[VIEW]] : !txl.smem<32x64xf32> to !llvm.ptr<3>
// CHECK: %[[FIRST:.*]] = llvm.getelementptr %[[DST]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: %[[INT:.*]] = llvm.ptrtoint %[[FIRST]] : !llvm.ptr<3> to i32
// CHECK: %[[PIN:.*]] = llvm.inline_asm has_side_effects {{.*}}"mov.b32 $0, $1;", "=r,r" %[[INT]] : (i32) -> i32
// CHECK: %[[BASE:.*]] = llvm.inttoptr %[[PIN]] : i32 to !llvm.ptr<3>
// CHECK-NOT: llvm.getelementptr
// CHECK: nvvm.cp.async.shared.global %[[BASE]], %{{.*}}, 4, cache = ca
// CHECK-NEXT: %[[A1:.*]] = llvm.getelementptr %[[BASE]][256] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: llvm.extractvalue
// CHECK-NEXT: nvvm.cp.async.shared.global %[[A1]], %{{.*}}, 4, cache = ca
// CHECK-COUNT-29: llvm.getelementptr %[[BASE]][{{[0-9]+}}] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: %[[A31:.*]] = llvm.getelementptr %[[BASE]][7936] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: llvm.extractvalue
// CHECK-NEXT: nvvm.cp.async.shared.global %[[A31]], %{{.*}}, 4, cache = ca
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @async_load_ring_slot_in_loop(%p: tensor<32x64x!txl.ptr<f32>, #rows>, %ring: !txl.smem<32x64xf32, stages = 3>, %n: i32) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c3 = arith.constant 3 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      %slot = arith.remui %i, %c3 : i32
      %buf = txl.get_buffer %ring[%slot] : !txl.smem<32x64xf32, stages = 3>
      txl.async_load %p, %buf : tensor<32x64x!txl.ptr<f32>, #rows>, !txl.smem<32x64xf32>
    }
    return
  }
}

// -----

// async_load_wait N is cp.async.wait_group N.
// CHECK-LABEL: func.func @async_load_wait
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: return
module attributes {txl.target = "sm_90a"} {
  func.func @async_load_wait() attributes {txl.kernel} {
    txl.async_load_wait 1
    return
  }
}

// -----

#rows = #txl.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// tma_gather of 8 rows: two gather4 copies by the warpgroup's first thread,
// each the column then 4 row offsets (registers 0-3, then 4-7), the second
// 4 rows x 128 bytes further in shared memory. nvvm.inline_ptx carries the
// .tile::gather4 mode through the predicate.
// CHECK-LABEL: func.func @tma_gather
// CHECK-SAME: %[[COL:[^ ]*]]: i32
// CHECK-DAG: %[[ROWS:.*]] = builtin.unrealized_conversion_cast %{{.*}} : tensor<8xi32, {{.*}}> to !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)>
// CHECK-DAG: %[[BAR:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.mbar to !llvm.ptr<3>
// CHECK-DAG: %[[DST:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.smem<8x64xbf16> to !llvm.ptr<3>
// CHECK-DAG: %[[MAP:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.tensordesc<1x64xbf16> to !llvm.ptr
// CHECK: %[[LEADER:.*]] = llvm.icmp "eq"
// CHECK: %[[R0:.*]] = llvm.extractvalue %[[ROWS]][0]
// CHECK: %[[R1:.*]] = llvm.extractvalue %[[ROWS]][1]
// CHECK: %[[R2:.*]] = llvm.extractvalue %[[ROWS]][2]
// CHECK: %[[R3:.*]] = llvm.extractvalue %[[ROWS]][3]
// CHECK: nvvm.inline_ptx "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes [$0], [$1, {$2, $3, $4, $5, $6}], [$7];" ro(%[[DST]], %[[MAP]], %[[COL]], %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[BAR]] : {{.*}}), predicate = %[[LEADER]]
// CHECK: %[[DST1:.*]] = llvm.getelementptr %[[DST]][512] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: %[[R4:.*]] = llvm.extractvalue %[[ROWS]][4]
// CHECK: nvvm.inline_ptx "{{.*}}gather4{{.*}}" ro(%[[DST1]], %[[MAP]], %[[COL]], %[[R4]], %{{.*}}, %{{.*}}, %{{.*}}, %[[BAR]] : {{.*}}), predicate = %[[LEADER]]
// CHECK-NOT: nvvm.inline_ptx
// CHECK: return
module attributes {txl.target = "sm_100a"} {
  func.func @tma_gather(%d: !txl.tensordesc<1x64xbf16>, %rows: tensor<8xi32, #rows>, %col: i32, %buf: !txl.smem<8x64xbf16>, %bar: !txl.mbar) attributes {txl.kernel} {
    txl.tma_gather %d[%rows, %col], %buf, %bar : !txl.tensordesc<1x64xbf16>, tensor<8xi32, #rows>, !txl.smem<8x64xbf16>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>

// make_tensor_descriptor: the warpgroup's first thread zeroes the 128-byte
// slot and sets every field (a 64x128 f32 tile with a 128-byte swizzle moves
// as 32-column boxes: box_dim 0 = 32; sizes innermost first; the byte stride
// of dimension 0 = K * 4; rank - 1 = 1; f32 = elemtype 7; swizzle mode 3),
// then fences the slot for the tensormap proxy. The tma_load reads the
// descriptor at the slot's generic address.
// CHECK-LABEL: func.func @make_tensor_descriptor
// CHECK-SAME: %[[A:[^:]*]]: !txl.ptr<f32>, %[[S:[^:]*]]: !txl.ptr<i8>, %[[M:[^:]*]]: i64, %[[K:[^:]*]]: i64
// CHECK-DAG: %[[SP:.*]] = builtin.unrealized_conversion_cast %[[S]] : !txl.ptr<i8> to !llvm.ptr<1>
// CHECK-DAG: %[[AP:.*]] = builtin.unrealized_conversion_cast %[[A]] : !txl.ptr<f32> to !llvm.ptr<1>
// CHECK: %[[LEADER:.*]] = llvm.icmp "eq"
// CHECK: %[[SLOT:.*]] = llvm.ptrtoint %[[SP]] : !llvm.ptr<1> to i64
// CHECK: %[[BASE:.*]] = llvm.ptrtoint %[[AP]] : !llvm.ptr<1> to i64
// CHECK: %[[KK:.*]] = llvm.trunc %[[K]] : i64 to i32
// CHECK: %[[MM:.*]] = llvm.trunc %[[M]] : i64 to i32
// CHECK: %[[STRIDE:.*]] = llvm.mul %[[K]], %{{.*}} : i64
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att
// CHECK-SAME: st.global.v4.b32 [$1+112], {z, z, z, z};
// CHECK-SAME: tensormap.replace.tile.global_address.global.b1024.b64 [$1], $2;
// CHECK-SAME: tensormap.replace.tile.rank.global.b1024.b32 [$1], 1;
// CHECK-SAME: tensormap.replace.tile.box_dim.global.b1024.b32 [$1], 0, 32;
// CHECK-SAME: tensormap.replace.tile.global_dim.global.b1024.b32 [$1], 0, $3;
// CHECK-SAME: tensormap.replace.tile.box_dim.global.b1024.b32 [$1], 1, 64;
// CHECK-SAME: tensormap.replace.tile.global_dim.global.b1024.b32 [$1], 1, $4;
// CHECK-SAME: tensormap.replace.tile.global_stride.global.b1024.b64 [$1], 0, $5;
// CHECK-SAME: tensormap.replace.tile.elemtype.global.b1024.b32 [$1], 7;
// CHECK-SAME: tensormap.replace.tile.swizzle_mode.global.b1024.b32 [$1], 3;
// CHECK-SAME: tensormap.replace.tile.fill_mode.global.b1024.b32 [$1], 0;
// CHECK-SAME: fence.proxy.tensormap::generic.release.gpu;
// CHECK-SAME: fence.proxy.tensormap::generic.acquire.gpu [$1], 128;
// CHECK-SAME: "b,l,l,r,r,l,~{memory}" %[[LEADER]], %[[SLOT]], %[[BASE]], %[[KK]], %[[MM]], %[[STRIDE]]
// CHECK: %[[DESC:.*]] = llvm.addrspacecast %[[SP]] : !llvm.ptr<1> to !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[DESC]],
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @make_tensor_descriptor(%a: !txl.ptr<f32>, %s: !txl.ptr<i8>, %m: i64, %k: i64, %buf: !txl.smem<64x128xf32, #sw128>, %bar: !txl.mbar, %x: i32) attributes {txl.kernel} {
    %c1 = arith.constant 1 : i64
    %d = txl.make_tensor_descriptor %a, [%m, %k], [%k, %c1], %s : !txl.ptr<f32>, !txl.ptr<i8> -> !txl.tensordesc<64x128xf32, #sw128>
    txl.tma_load %d[%x, %x], %buf, %bar : !txl.tensordesc<64x128xf32, #sw128>, !txl.smem<64x128xf32, #sw128>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>

// make_tensor_descriptor {nan_fill} (padding_option="nan"): fill mode 1.
// CHECK-LABEL: func.func @make_tensor_descriptor_nan
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att
// CHECK-SAME: tensormap.replace.tile.fill_mode.global.b1024.b32 [$1], 1;
module attributes {txl.target = "sm_90a"} {
  func.func @make_tensor_descriptor_nan(%a: !txl.ptr<f32>, %s: !txl.ptr<i8>, %m: i64, %k: i64, %buf: !txl.smem<64x128xf32, #sw128>, %bar: !txl.mbar, %x: i32) attributes {txl.kernel} {
    %c1 = arith.constant 1 : i64
    %d = txl.make_tensor_descriptor %a, [%m, %k], [%k, %c1], %s {nan_fill} : !txl.ptr<f32>, !txl.ptr<i8> -> !txl.tensordesc<64x128xf32, #sw128>
    txl.tma_load %d[%x, %x], %buf, %bar : !txl.tensordesc<64x128xf32, #sw128>, !txl.smem<64x128xf32, #sw128>
    return
  }
}
