// RUN: txl-opt %s --txl-allocate-scratch | FileCheck %s --check-prefix=SCRATCH
// RUN: txl-opt %s --txl-allocate-scratch --txl-smem-allocs -convert-txl-to-nvvm -reconcile-unrealized-casts | FileCheck %s --implicit-check-not=txl.histogram

// txl.histogram: a num_bins x i32 scratch; zeroed where the result's
// registers are, then one shared atomic add per owned source element (a
// masked-off or out-of-range one adds 0 to bin 0), then read back.

#src = #txl.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#dst = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// SCRATCH-LABEL: func.func @hist
// SCRATCH: %[[S:.*]] = txl.smem_alloc : !txl.smem<64xi32, stages = 1>
// SCRATCH: %[[V:.*]] = txl.get_buffer %[[S]]
// SCRATCH: txl.histogram %{{.*}} mask %{{.*}} scratch(%[[V]] : !txl.smem<64xi32>)

// 512 values, 4 a thread: 4 atomics. 64 bins over 128 threads: one zeroing
// store and one load a thread.
// CHECK-LABEL: llvm.func @hist
// CHECK: nvvm.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier
// CHECK: llvm.icmp "ult" %{{.*}}, %{{.*}} : i32
// CHECK: llvm.select
// CHECK-COUNT-4: llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr<3>, i32
// CHECK: nvvm.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK-NOT: llvm.atomicrmw
// CHECK: llvm.return
func.func @hist(%x: tensor<512xi32, #src>, %m: tensor<512xi1, #src>) -> tensor<64xi32, #dst>
    attributes {txl.kernel, txl.num_warps = 4 : i32} {
  %h = txl.histogram %x mask %m : tensor<512xi1, #src> : tensor<512xi32, #src> -> tensor<64xi32, #dst>
  return %h : tensor<64xi32, #dst>
}
