// RUN: txl-opt %s | txl-opt | FileCheck %s
// RUN: txl-opt %s --mlir-print-op-generic | txl-opt | FileCheck %s

// Round-trip of TXL's per-warp partial reductions (txl.warp_reduce) and the
// per-thread shared-memory slots a kernel exchanges them through
// (txl.slot_store / txl.slot_load: TXL's frag_smem_store / frag_smem_load
// under a layout of fewer threads than the CTA).

// CHECK-LABEL: func.func @warp_reduce_tile
// CHECK: txl.warp_reduce %{{.*}} : (tensor<1024xf32>) -> f32 {
// CHECK: arith.maxnumf
// CHECK: txl.reduce_return %{{.*}} : f32
func.func @warp_reduce_tile(%x: tensor<1024xf32>) -> f32 {
  %m = txl.warp_reduce %x : (tensor<1024xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %c = arith.maxnumf %a, %b : f32
    txl.reduce_return %c : f32
  }
  return %m : f32
}

// A per-thread scalar (the warp's 32 lanes) and two operands at once (argmax).
// CHECK-LABEL: func.func @warp_reduce_scalar_and_pair
// CHECK: txl.warp_reduce %{{.*}} : (f32) -> f32
// CHECK: txl.warp_reduce %{{.*}}, %{{.*}} : (tensor<64xf32>, tensor<64xi32>) -> (f32, i32)
func.func @warp_reduce_scalar_and_pair(%v: f32, %x: tensor<64xf32>, %i: tensor<64xi32>) -> (f32, f32, i32) {
  %s = txl.warp_reduce %v : (f32) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    txl.reduce_return %c : f32
  }
  %m, %j = txl.warp_reduce %x, %i : (tensor<64xf32>, tensor<64xi32>) -> (f32, i32) {
  ^bb0(%a: f32, %ia: i32, %b: f32, %ib: i32):
    %gt = arith.cmpf ogt, %b, %a : f32
    %c = arith.select %gt, %b, %a : f32
    %k = arith.select %gt, %ib, %ia : i32
    txl.reduce_return %c, %k : f32, i32
  }
  return %s, %m, %j : f32, f32, i32
}

// CHECK-LABEL: func.func @slots
// CHECK: txl.slot_store %{{.*}}, %{{.*}} {laneBases = array<i64>, warpBases = array<i64: 1, 2>} : f32, !txl.smem<4xf32>
// CHECK: txl.slot_store %{{.*}}, %{{.*}} pred %{{.*}} {ctaId = 1 : i32, laneBases = array<i64>, warpBases = array<i64: 1, 2>} : f32, !txl.smem<8xf32>
// CHECK: txl.slot_store %{{.*}}, %{{.*}} mbar %{{.*}} {ctaId = 0 : i32, laneBases = array<i64>, warpBases = array<i64: 1, 2>} : f32, !txl.smem<8xf32>
// CHECK: txl.slot_load %{{.*}} other %{{.*}} {laneBases = array<i64: 1, 2>, warpBases = array<i64: 0, 0>} : !txl.smem<4xf32> -> f32
// CHECK: txl.slot_load %{{.*}} other %{{.*}} pred %{{.*}} {laneBases = array<i64: 1, 2, 4>, warpBases = array<i64>} : !txl.smem<8xf32> -> f32
func.func @slots(%v: f32, %buf: !txl.smem<4xf32>, %buf8: !txl.smem<8xf32>, %bar: !txl.mbar, %p: i1) -> (f32, f32)
    attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_ctas = 2 : i32} {
  txl.slot_store %v, %buf {laneBases = array<i64>, warpBases = array<i64: 1, 2>} : f32, !txl.smem<4xf32>
  txl.slot_store %v, %buf8 pred %p {ctaId = 1 : i32, laneBases = array<i64>, warpBases = array<i64: 1, 2>} : f32, !txl.smem<8xf32>
  txl.slot_store %v, %buf8 mbar %bar {ctaId = 0 : i32, laneBases = array<i64>, warpBases = array<i64: 1, 2>} : f32, !txl.smem<8xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %a = txl.slot_load %buf other %ninf {laneBases = array<i64: 1, 2>, warpBases = array<i64: 0, 0>} : !txl.smem<4xf32> -> f32
  %b = txl.slot_load %buf8 other %ninf pred %p {laneBases = array<i64: 1, 2, 4>, warpBases = array<i64>} : !txl.smem<8xf32> -> f32
  return %a, %b : f32, f32
}
