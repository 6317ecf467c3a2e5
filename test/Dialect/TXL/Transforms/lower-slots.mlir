// RUN: txl-opt %s -txl-lower-smem-load-stores | FileCheck %s --implicit-check-not=txl.slot_store --implicit-check-not=txl.slot_load

// txl.slot_store / txl.slot_load (TXL's frag_smem_store / frag_smem_load of
// per-thread values): thread (lane, warp), warp = tid / 32, reaches the
// element XOR-ing the bases of its set lane and warp bits; threads past the
// bases do not store (load `other`), threads the bases map to one element
// (a 0 basis) store once.

// One element per warp (TXL's layout_warp_reduce: threads_per_warp [1],
// warps_per_cta [4]): lane 0 of each warp stores at its warp index.
// CHECK-LABEL: func.func @store_per_warp
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[LANE:.*]] = llvm.and %[[TID]], %{{.*}} : i32
// CHECK: %[[WARP:.*]] = llvm.lshr %[[TID]], %{{.*}} : i32
// CHECK: llvm.icmp "ult" %[[LANE]], %{{.*}} : i32
// CHECK: llvm.xor
// CHECK: llvm.xor
// CHECK: llvm.icmp "ult" %[[WARP]], %{{.*}} : i32
// CHECK: llvm.getelementptr
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: return
func.func @store_per_warp(%v: f32, %buf: !txl.smem<4xf32>) attributes {txl.kernel, txl.num_warps = 4 : i32} {
  txl.slot_store %v, %buf {laneBases = array<i64>, warpBases = array<i64: 1, 2>} : f32, !txl.smem<4xf32>
  return
}

// Lanes 0..3 read the 4 elements, every warp the same (0 warp bases: no
// predicate for them); the other lanes get `other`.
// CHECK-LABEL: func.func @load_lanes
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[LANE:.*]] = llvm.and %[[TID]], %{{.*}} : i32
// CHECK: %[[IN:.*]] = llvm.icmp "ult" %[[LANE]], %{{.*}} : i32
// CHECK: %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.select %{{.*}}, %[[V]], %{{.*}} : i1, f32
// CHECK: return
func.func @load_lanes(%buf: !txl.smem<4xf32>, %o: f32) -> f32 attributes {txl.kernel, txl.num_warps = 4 : i32} {
  %v = txl.slot_load %buf other %o {laneBases = array<i64: 1, 2>, warpBases = array<i64: 0, 0>} : !txl.smem<4xf32> -> f32
  return %v : f32
}

// With an mbarrier: st.async into CTA 1's copy, counted on its barrier.
// CHECK-LABEL: func.func @store_remote_async
// CHECK: nvvm.mapa
// CHECK: nvvm.mapa
// CHECK: scf.if
// CHECK: st.async.shared::cluster.mbarrier::complete_tx::bytes.b32
// CHECK: return
func.func @store_remote_async(%v: f32, %buf: !txl.smem<8xf32>, %bar: !txl.mbar) attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_ctas = 2 : i32} {
  txl.slot_store %v, %buf mbar %bar {ctaId = 1 : i32, laneBases = array<i64>, warpBases = array<i64: 1, 2>} : f32, !txl.smem<8xf32>
  return
}
