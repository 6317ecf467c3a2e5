// RUN: txl-opt %s -split-input-file --txl-allocate-scratch | FileCheck %s
//
// txl-allocate-scratch: a shared-memory scratch (one stage per group of
// warps that may run the op) for relayouts between warps and cross-warp
// reductions; nothing for conversions within a warp.

#rows = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]>

// wgmma accumulator -> blocked rows in a 4-warp kernel: one group. Rows are
// padded by 8 elements, which the bank-conflict simulation prefers for the
// accumulator's 8-byte stores (lanes 4 apart along rows, 8 rows).
// CHECK-LABEL: func.func @acc_to_rows(
// CHECK: %[[S:.*]] = txl.smem_alloc : !txl.smem<64x136xf32, stages = 1>
// CHECK: %[[C0:.*]] = arith.constant 0 : i32
// CHECK: %[[V:.*]] = txl.get_buffer %[[S]][%[[C0]]] : !txl.smem<64x136xf32, stages = 1>
// CHECK: txl.relayout %{{.*}} scratch(%[[V]] : !txl.smem<64x136xf32>) : tensor<64x128xf32, #txl.nvmma<{{.*}}>> -> tensor<64x128xf32, #txl.blocked<{{.*}}>>
func.func @acc_to_rows(%x: tensor<64x128xf32, #mma>) -> tensor<64x128xf32, #rows>
    attributes {txl.kernel, txl.num_warps = 4 : i32} {
  %y = txl.relayout %x : tensor<64x128xf32, #mma> -> tensor<64x128xf32, #rows>
  return %y : tensor<64x128xf32, #rows>
}

// -----

#a = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#b = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [0, 1]>

// Lanes permuted within each warp: warp shuffles, no scratch.
// CHECK-LABEL: func.func @in_warp(
// CHECK-NOT: txl.smem_alloc
// CHECK: txl.relayout %{{.*}} : tensor
func.func @in_warp(%x: tensor<16x8xf32, #a>) -> tensor<16x8xf32, #b> attributes {txl.kernel} {
  %y = txl.relayout %x : tensor<16x8xf32, #a> -> tensor<16x8xf32, #b>
  return %y : tensor<16x8xf32, #b>
}

// -----

#rows = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#cols = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]>

// A 4-warp layout in an 8-warp kernel: each warpgroup holds its own copy and
// converts it in its own stage, warp_id / 4.
// CHECK-LABEL: func.func @two_groups(
// CHECK: %[[S:.*]] = txl.smem_alloc : !txl.smem<32x68xf32, stages = 2>
// CHECK: %[[W:.*]] = txl.warp_id
// CHECK: %[[C4:.*]] = arith.constant 4 : i32
// CHECK: %[[G:.*]] = arith.divui %[[W]], %[[C4]] : i32
// CHECK: %[[V:.*]] = txl.get_buffer %[[S]][%[[G]]]
// CHECK: txl.relayout %{{.*}} scratch(%[[V]] : !txl.smem<32x68xf32>)
func.func @two_groups(%x: tensor<32x64xf32, #rows>) -> tensor<32x64xf32, #cols>
    attributes {txl.kernel, txl.num_warps = 8 : i32} {
  %y = txl.relayout %x : tensor<32x64xf32, #rows> -> tensor<32x64xf32, #cols>
  return %y : tensor<32x64xf32, #cols>
}

// -----

#rows = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#cols = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]>

// Inside a warp-specialized region only warpgroups 1 and 2 convert: two
// stages, indexed warp_id / 4 - 1; the allocation sits in the region (live
// for the whole kernel in the shared-memory plan).
// CHECK-LABEL: func.func @consumers(
// CHECK: scf.if
// CHECK: %[[S:.*]] = txl.smem_alloc : !txl.smem<32x68xf32, stages = 2>
// CHECK: %[[W:.*]] = txl.warp_id
// CHECK: %[[G:.*]] = arith.divui %[[W]], %{{.*}} : i32
// CHECK: %[[C1:.*]] = arith.constant 1 : i32
// CHECK: %[[I:.*]] = arith.subi %[[G]], %[[C1]] : i32
// CHECK: txl.get_buffer %[[S]][%[[I]]]
func.func @consumers(%x: tensor<32x64xf32, #rows>, %out: tensor<32x64x!txl.ptr<f32>, #cols>)
    attributes {txl.kernel, txl.num_warps = 12 : i32} {
  %c = txl.is_warpgroup [1, 2]
  scf.if %c {
    %y = txl.relayout %x : tensor<32x64xf32, #rows> -> tensor<32x64xf32, #cols>
    txl.store %out, %y : tensor<32x64x!txl.ptr<f32>, #cols>, tensor<32x64xf32, #cols>
  }
  return
}

// -----

#w1 = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [0, 1]>
#w1t = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]>

// One-warp layouts: every warp converts its own copy (4 stages, warp_id / 1).
// CHECK-LABEL: func.func @one_warp(
// CHECK: txl.smem_alloc : !txl.smem<32x36xf32, stages = 4>
// CHECK: arith.divui
func.func @one_warp(%x: tensor<32x32xf32, #w1>) -> tensor<32x32xf32, #w1t> attributes {txl.kernel} {
  %y = txl.relayout %x : tensor<32x32xf32, #w1> -> tensor<32x32xf32, #w1t>
  return %y : tensor<32x32xf32, #w1t>
}

// -----

#bw = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]>

// Warps split the reduced axis in two: per operand 2 partials x 4 rows,
// 16-byte aligned (f32: 32 bytes, i32: 32 bytes).
// CHECK-LABEL: func.func @cross_warp(
// CHECK: %[[S:.*]] = txl.smem_alloc : !txl.smem<64xi8, stages = 1>
// CHECK: %[[V:.*]] = txl.get_buffer %[[S]]
// CHECK: txl.reduce %{{.*}}, %{{.*}} axis 1 scratch(%[[V]] : !txl.smem<64xi8>)
func.func @cross_warp(%x: tensor<4x64xf32, #bw>, %i: tensor<4x64xi32, #bw>)
    -> (tensor<4xf32, #txl.slice<dim = 1, parent = #bw>>, tensor<4xi32, #txl.slice<dim = 1, parent = #bw>>)
    attributes {txl.kernel} {
  %m:2 = txl.reduce %x, %i axis 1 : (tensor<4x64xf32, #bw>, tensor<4x64xi32, #bw>)
      -> (tensor<4xf32, #txl.slice<dim = 1, parent = #bw>>, tensor<4xi32, #txl.slice<dim = 1, parent = #bw>>) {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    %gt = arith.cmpf ogt, %b, %a : f32
    %v = arith.select %gt, %b, %a : f32
    %j = arith.select %gt, %bi, %ai : i32
    txl.reduce_return %v, %j : f32, i32
  }
  return %m#0, %m#1 : tensor<4xf32, #txl.slice<dim = 1, parent = #bw>>, tensor<4xi32, #txl.slice<dim = 1, parent = #bw>>
}

// -----

#bw = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]>

// A scan whose warps split the axis passes running values between warps:
// one whole tile per operand, 16-byte aligned (4x64 f32: 1024 bytes, then
// 4x64 i8: 256 bytes).
// CHECK-LABEL: func.func @cross_warp_scan(
// CHECK: %[[S:.*]] = txl.smem_alloc : !txl.smem<1280xi8, stages = 1>
// CHECK: %[[V:.*]] = txl.get_buffer %[[S]]
// CHECK: txl.scan %{{.*}}, %{{.*}} axis 1 scratch(%[[V]] : !txl.smem<1280xi8>)
func.func @cross_warp_scan(%x: tensor<4x64xf32, #bw>, %i: tensor<4x64xi8, #bw>)
    -> (tensor<4x64xf32, #bw>, tensor<4x64xi8, #bw>) attributes {txl.kernel} {
  %m:2 = txl.scan %x, %i axis 1 : (tensor<4x64xf32, #bw>, tensor<4x64xi8, #bw>)
      -> (tensor<4x64xf32, #bw>, tensor<4x64xi8, #bw>) {
  ^bb0(%a: f32, %ai: i8, %b: f32, %bi: i8):
    %v = arith.addf %a, %b : f32
    %j = arith.addi %ai, %bi : i8
    txl.reduce_return %v, %j : f32, i8
  }
  return %m#0, %m#1 : tensor<4x64xf32, #bw>, tensor<4x64xi8, #bw>
}

// -----

#b1 = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// Sort and flip across warps: one tile of scratch (128 f32 = 512 bytes).
// CHECK-LABEL: func.func @sort_flip_across_warps(
// CHECK: txl.smem_alloc : !txl.smem<512xi8, stages = 1>
// CHECK: txl.sort %{{.*}} axis 0 descending scratch(%{{.*}} : !txl.smem<512xi8>) : tensor<128xf32
// CHECK: txl.smem_alloc : !txl.smem<512xi8, stages = 1>
// CHECK: txl.flip %{{.*}} axis 0 scratch(%{{.*}} : !txl.smem<512xi8>) : tensor<128xf32
func.func @sort_flip_across_warps(%x: tensor<128xf32, #b1>) -> tensor<128xf32, #b1> attributes {txl.kernel} {
  %s = txl.sort %x axis 0 descending : tensor<128xf32, #b1>
  %f = txl.flip %s axis 0 : tensor<128xf32, #b1>
  return %f : tensor<128xf32, #b1>
}

// -----

#b = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// A scan along the axis that registers and lanes split needs nothing.
// CHECK-LABEL: func.func @in_warp_scan(
// CHECK-NOT: txl.smem_alloc
// CHECK: txl.scan %{{.*}} axis 1 :
func.func @in_warp_scan(%x: tensor<64x32xf32, #b>) -> tensor<64x32xf32, #b> attributes {txl.kernel} {
  %m = txl.scan %x axis 1 : (tensor<64x32xf32, #b>) -> tensor<64x32xf32, #b> {
  ^bb0(%a: f32, %c: f32):
    %v = arith.addf %a, %c : f32
    txl.reduce_return %v : f32
  }
  return %m : tensor<64x32xf32, #b>
}

// -----

#b = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// Reductions within a warp need nothing.
// CHECK-LABEL: func.func @in_warp_reduce(
// CHECK-NOT: txl.smem_alloc
func.func @in_warp_reduce(%x: tensor<64x32xf32, #b>) -> tensor<64xf32, #txl.slice<dim = 1, parent = #b>>
    attributes {txl.kernel} {
  %s = txl.reduce %x axis 1 : (tensor<64x32xf32, #b>) -> tensor<64xf32, #txl.slice<dim = 1, parent = #b>> {
  ^bb0(%a: f32, %c: f32):
    %v = arith.addf %a, %c : f32
    txl.reduce_return %v : f32
  }
  return %s : tensor<64xf32, #txl.slice<dim = 1, parent = #b>>
}

// -----

// Atomics. A tile whose warps 2 and 3 copy warps 0 and 1: used old values
// travel through a tile-shaped scratch; unused ones need none; a tile without
// copies needs none. A scalar records its group (a warpgroup; a warp inside
// txl.is_warp) and gets a one-element scratch when its result is used.
#b1 = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: func.func @atomics(
// CHECK: %[[S:.*]] = txl.smem_alloc : !txl.smem<64xi32, stages = 1>
// CHECK: %[[V:.*]] = txl.get_buffer %[[S]][%{{.*}}] : !txl.smem<64xi32, stages = 1>
// CHECK: txl.atomic_rmw add acq_rel gpu %{{.*}}, %{{.*}} scratch(%[[V]] : !txl.smem<64xi32>) : tensor<64x!txl.ptr<i32>, #txl.blocked
// CHECK: txl.atomic_rmw add relaxed gpu %{{.*}}, %{{.*}} : tensor<64x!txl.ptr<i32>, #txl.blocked
// CHECK: txl.atomic_cas acq_rel gpu %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x!txl.ptr<i32>, #txl.blocked
// CHECK: %[[S1:.*]] = txl.smem_alloc : !txl.smem<1xi64, stages = 1>
// CHECK: %[[V1:.*]] = txl.get_buffer %[[S1]][%{{.*}}] : !txl.smem<1xi64, stages = 1>
// CHECK: txl.atomic_cas acq_rel gpu %{{.*}}, %{{.*}}, %{{.*}} scratch(%[[V1]] : !txl.smem<1xi64>) {txl.group_warps = 4 : i32} : !txl.ptr<i64>, i64
// CHECK: txl.atomic_rmw xchg relaxed gpu %{{.*}}, %{{.*}} {txl.group_warps = 4 : i32} : !txl.ptr<i64>, i64
// CHECK: scf.if
// CHECK: txl.atomic_rmw add relaxed gpu %{{.*}}, %{{.*}} {txl.group_warps = 1 : i32} : !txl.ptr<i64>, i64
func.func @atomics(%p: tensor<64x!txl.ptr<i32>, #b1>, %v: tensor<64xi32, #b1>,
                   %q: tensor<128x!txl.ptr<i32>, #b1>, %w: tensor<128xi32, #b1>,
                   %s: !txl.ptr<i64>, %x: i64) -> (tensor<64xi32, #b1>, tensor<128xi32, #b1>, i64)
    attributes {txl.kernel, txl.num_warps = 4 : i32} {
  %a = txl.atomic_rmw add acq_rel gpu %p, %v : tensor<64x!txl.ptr<i32>, #b1>, tensor<64xi32, #b1>
  %b = txl.atomic_rmw add relaxed gpu %p, %v : tensor<64x!txl.ptr<i32>, #b1>, tensor<64xi32, #b1>
  %c = txl.atomic_cas acq_rel gpu %q, %w, %w : tensor<128x!txl.ptr<i32>, #b1>, tensor<128xi32, #b1>
  %d = txl.atomic_cas acq_rel gpu %s, %x, %x : !txl.ptr<i64>, i64
  %e = txl.atomic_rmw xchg relaxed gpu %s, %x : !txl.ptr<i64>, i64
  %w1 = txl.is_warp [1]
  scf.if %w1 {
    %f = txl.atomic_rmw add relaxed gpu %s, %x : !txl.ptr<i64>, i64
  }
  return %a, %c, %d : tensor<64xi32, #b1>, tensor<128xi32, #b1>, i64
}

// -----

// A num_warps = 8 kernel (txl.role_warps = 8) runs one copy of its body on
// 8 warps: a scalar atomic has one owner for all of them (Triton's tutorial
// 05 takes a spin lock with atomic_cas; an owner per warpgroup took it twice
// and hung).
// CHECK-LABEL: func.func @scalar_atomic_role_of_8(
// CHECK: %[[S:.*]] = txl.smem_alloc : !txl.smem<1xi32, stages = 1>
// CHECK: txl.atomic_cas acq_rel gpu %{{.*}}, %{{.*}}, %{{.*}} scratch(%{{.*}} : !txl.smem<1xi32>) {txl.group_warps = 8 : i32} : !txl.ptr<i32>, i32
func.func @scalar_atomic_role_of_8(%s: !txl.ptr<i32>, %x: i32) -> i32
    attributes {txl.kernel, txl.num_warps = 8 : i32, txl.role_warps = 8 : i32} {
  %d = txl.atomic_cas acq_rel gpu %s, %x, %x : !txl.ptr<i32>, i32
  return %d : i32
}
