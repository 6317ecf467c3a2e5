// RUN: txl-opt %s --txl-allocate-scratch | FileCheck %s --check-prefix=SCRATCH
// RUN: txl-opt %s --txl-allocate-scratch --txl-smem-allocs -convert-txl-to-nvvm -reconcile-unrealized-casts | FileCheck %s --implicit-check-not=txl.gather

// txl.gather: --txl-allocate-scratch gives it a scratch of the source's
// shape; the lowering stores the source's registers there between two
// barriers of the warpgroup, then loads each result register at its own
// coordinates with the axis one replaced by its index (modulo the axis).

#bl = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#bi = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>

// SCRATCH-LABEL: func.func @rows
// SCRATCH: %[[S:.*]] = txl.smem_alloc : !txl.smem<64x32xf32, stages = 1>
// SCRATCH: %[[V:.*]] = txl.get_buffer %[[S]]
// SCRATCH: txl.gather %{{.*}}[%{{.*}}] axis 0 scratch(%[[V]] : !txl.smem<64x32xf32>)

// The source's 16 registers stored as raw bits, the index's 8 registers
// (16 x 32 over 32 x 4 threads: rows held twice) each one load.
// CHECK-LABEL: llvm.func @rows
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK-COUNT-16: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: llvm.and %{{.*}}, %{{.*}} : i32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK-COUNT-7: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<3>
// CHECK: llvm.return
func.func @rows(%src: tensor<64x32xf32, #bl>, %idx: tensor<16x32xi32, #bi>) -> tensor<16x32xf32, #bi>
    attributes {txl.kernel, txl.num_warps = 4 : i32} {
  %g = txl.gather %src[%idx] axis 0 : tensor<64x32xf32, #bl>, tensor<16x32xi32, #bi> -> tensor<16x32xf32, #bi>
  return %g : tensor<16x32xf32, #bi>
}
