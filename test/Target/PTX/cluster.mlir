// Thread-block clusters (a kernel with txl.num_ctas, Triton's num_ctas): the
// PTX requires the cluster shape, the sidecar carries it for the launcher
// (cuLaunchKernelEx), program_id(0) / num_programs(0) count clusters,
// smem_load / smem_store with ctaId read and write another CTA's copy of a
// buffer (mapa + ld/st.shared::cluster), cluster_barrier is
// barrier.cluster.arrive + wait.
// RUN: rm -rf %t && mkdir -p %t
// RUN: txlc %s --arch=sm_90a --emit=ptx -o %t/k.ptx
// RUN: FileCheck %s < %t/k.ptx --implicit-check-not=ld.shared::cta --implicit-check-not=%ctaid.x
// RUN: FileCheck %s --check-prefix=JSON < %t/k.json
// RUN: %ptxas -arch=sm_90a %t/k.ptx -o %t/k.cubin

// CHECK: .reqnctapercluster 2, 1, 1
// CHECK-DAG: %clusterid.x
// CHECK-DAG: %nclusterid.x
// CHECK-DAG: %cluster_ctarank
// CHECK: st.shared
// CHECK: barrier.cluster.arrive.aligned
// CHECK-NEXT: barrier.cluster.wait.aligned
// CHECK: mapa.shared::cluster
// CHECK: ld.shared::cluster
// CHECK: mapa.shared::cluster
// CHECK: st.shared::cluster
// CHECK: barrier.cluster.arrive.aligned
// JSON: "cluster": [2, 1, 1]

#bl = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module attributes {txl.target = "sm_90a"} {
  func.func @swap_halves(%out: !txl.ptr<f32>) attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_ctas = 2 : i32} {
    %c0 = arith.constant 0 : i32
    %alloc = txl.smem_alloc : !txl.smem<128xf32, stages = 1>
    %buf = txl.get_buffer %alloc[%c0] : !txl.smem<128xf32, stages = 1>
    %pid = txl.program_id 0
    %np = txl.num_programs 0
    %rank = txl.cta_rank
    %r = txl.make_range 0, 128 : tensor<128xi32, #bl>
    %rf = arith.sitofp %r : tensor<128xi32, #bl> to tensor<128xf32, #bl>
    %base = arith.muli %pid, %np : i32
    %b2 = arith.addi %base, %rank : i32
    %bf = arith.sitofp %b2 : i32 to f32
    %bs = txl.splat %bf : f32 -> tensor<128xf32, #bl>
    %v = arith.addf %rf, %bs : tensor<128xf32, #bl>
    txl.smem_store %v, %buf : tensor<128xf32, #bl>, !txl.smem<128xf32>
    txl.cluster_barrier
    %other = txl.smem_load %buf {ctaId = 1 : i32} : !txl.smem<128xf32> -> tensor<128xf32, #bl>
    txl.smem_store %other, %buf {ctaId = 0 : i32} : tensor<128xf32, #bl>, !txl.smem<128xf32>
    txl.cluster_barrier
    %ps = txl.splat %out : !txl.ptr<f32> -> tensor<128x!txl.ptr<f32>, #bl>
    %p = txl.addptr %ps, %r : tensor<128x!txl.ptr<f32>, #bl>, tensor<128xi32, #bl>
    txl.store %p, %other : tensor<128x!txl.ptr<f32>, #bl>, tensor<128xf32, #bl>
    return
  }
}
