// RUN: txl-opt %s -convert-txl-to-nvvm -reconcile-unrealized-casts | FileCheck %s --implicit-check-not=txl.warp_reduce

// txl.warp_reduce (TXL's warp_max / warp_sum): the thread's registers, then
// one butterfly shuffle per lane bit that moves along the tile; never a
// barrier or shared memory (the warps keep their own partials).

#bl = #txl.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// 1024 elements: 8 registers a thread (7 combines), 5 lane bits.
// CHECK-LABEL: llvm.func @tile
// CHECK-COUNT-7: llvm.intr.maxnum
// CHECK-COUNT-5: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: nvvm.barrier
// CHECK-NOT: llvm.store
// CHECK: llvm.return
func.func @tile(%x: tensor<1024xf32, #bl>) -> f32 attributes {txl.kernel, txl.num_warps = 4 : i32} {
  %m = txl.warp_reduce %x : (tensor<1024xf32, #bl>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %c = arith.maxnumf %a, %b : f32
    txl.reduce_return %c : f32
  }
  return %m : f32
}

// 64 elements over 32 lanes of 4: lane bit 4 holds copies (each element
// once: 4 shuffles), the registers are distinct.
// CHECK-LABEL: llvm.func @copies
// CHECK-COUNT-3: llvm.fadd
// CHECK-COUNT-4: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.return
func.func @copies(%x: tensor<64xf32, #bl>) -> f32 attributes {txl.kernel, txl.num_warps = 4 : i32} {
  %s = txl.warp_reduce %x : (tensor<64xf32, #bl>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    txl.reduce_return %c : f32
  }
  return %s : f32
}

// A per-thread scalar: the warp's 32 lanes.
// CHECK-LABEL: llvm.func @lanes
// CHECK-COUNT-5: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.return
func.func @lanes(%v: i32) -> i32 attributes {txl.kernel, txl.num_warps = 4 : i32} {
  %s = txl.warp_reduce %v : (i32) -> i32 {
  ^bb0(%a: i32, %b: i32):
    %c = arith.maxsi %a, %b : i32
    txl.reduce_return %c : i32
  }
  return %s : i32
}
