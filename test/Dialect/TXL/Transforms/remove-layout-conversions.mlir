// RUN: txl-opt %s -split-input-file --txl-remove-layout-conversions | FileCheck %s
//
// txl-remove-layout-conversions: relayouts that move nothing disappear,
// chains convert once, cheap tiles are rebuilt in the destination layout.

#blocked = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]>
#cols = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]>

// A relayout to the layout the tile already has.
// CHECK-LABEL: func.func @same_layout(
// CHECK-SAME: %[[X:.*]]: tensor<64x32xf32, #txl.blocked<{{.*}}>>)
// CHECK-NOT: txl.relayout
// CHECK: return %[[X]]
func.func @same_layout(%x: tensor<64x32xf32, #blocked>) -> tensor<64x32xf32, #blocked> {
  %y = txl.relayout %x : tensor<64x32xf32, #blocked> -> tensor<64x32xf32, #blocked>
  return %y : tensor<64x32xf32, #blocked>
}

// -----

#blocked = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]>
#cols = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]>

// blocked -> cols -> mma converts once, from blocked; back to the source
// layout is nothing at all.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[X:.*]]: tensor<64x32xf32, #txl.blocked<{{.*}}>>)
// CHECK-NEXT: %[[M:.*]] = txl.relayout %[[X]] : tensor<64x32xf32, #txl.blocked<{{.*}}>> -> tensor<64x32xf32, #txl.nvmma<{{.*}}>>
// CHECK-NEXT: return %[[M]], %[[X]]
func.func @chain(%x: tensor<64x32xf32, #blocked>) -> (tensor<64x32xf32, #mma>, tensor<64x32xf32, #blocked>) {
  %c = txl.relayout %x : tensor<64x32xf32, #blocked> -> tensor<64x32xf32, #cols>
  %m = txl.relayout %c : tensor<64x32xf32, #cols> -> tensor<64x32xf32, #mma>
  %back = txl.relayout %c : tensor<64x32xf32, #cols> -> tensor<64x32xf32, #blocked>
  return %m, %back : tensor<64x32xf32, #mma>, tensor<64x32xf32, #blocked>
}

// -----

#blocked = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]>

// Cheap tiles are rebuilt in the destination layout: splat, constants
// (splat and dense), make_range, and expand_dims + broadcast of them. The
// original stays for its other user.
// CHECK-LABEL: func.func @rematerialize(
// CHECK-SAME: %[[S:.*]]: f32
func.func @rematerialize(%s: f32) -> (tensor<64x32xf32, #mma>, tensor<64x32xf32, #blocked>,
                                      tensor<4xi32, #txl.slice<dim = 0, parent = #mma>>,
                                      tensor<64x32xi32, #mma>) {
  // CHECK-DAG: %[[SB:.*]] = txl.splat %[[S]] : f32 -> tensor<64x32xf32, #txl.blocked<{{.*}}>>
  // CHECK-DAG: %[[SM:.*]] = txl.splat %[[S]] : f32 -> tensor<64x32xf32, #txl.nvmma<{{.*}}>>
  %z = txl.splat %s : f32 -> tensor<64x32xf32, #blocked>
  %zm = txl.relayout %z : tensor<64x32xf32, #blocked> -> tensor<64x32xf32, #mma>
  // CHECK-DAG: arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32, #txl.slice<dim = 0, parent = #txl.nvmma<{{.*}}>>>
  %c = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32, #txl.slice<dim = 0, parent = #blocked>>
  %cm = txl.relayout %c : tensor<4xi32, #txl.slice<dim = 0, parent = #blocked>> -> tensor<4xi32, #txl.slice<dim = 0, parent = #mma>>
  // make_range in the slice of mma, expand_dims to mma, broadcast in mma.
  // CHECK-DAG: %[[R:.*]] = txl.make_range 0, 64 : tensor<64xi32, #txl.slice<dim = 1, parent = #txl.nvmma<{{.*}}>>>
  // CHECK-DAG: %[[E:.*]] = txl.expand_dims %[[R]], 1 : {{.*}} -> tensor<64x1xi32, #txl.nvmma<{{.*}}>>
  // CHECK-DAG: %[[BC:.*]] = txl.broadcast %[[E]] : tensor<64x1xi32, #txl.nvmma<{{.*}}>> -> tensor<64x32xi32, #txl.nvmma<{{.*}}>>
  %r = txl.make_range 0, 64 : tensor<64xi32, #txl.slice<dim = 1, parent = #blocked>>
  %e = txl.expand_dims %r, 1 : tensor<64xi32, #txl.slice<dim = 1, parent = #blocked>> -> tensor<64x1xi32, #blocked>
  %b = txl.broadcast %e : tensor<64x1xi32, #blocked> -> tensor<64x32xi32, #blocked>
  %bm = txl.relayout %b : tensor<64x32xi32, #blocked> -> tensor<64x32xi32, #mma>
  // CHECK-NOT: txl.relayout
  // CHECK: return %[[SM]], %[[SB]], %{{.*}}, %[[BC]]
  return %zm, %z, %cm, %bm : tensor<64x32xf32, #mma>, tensor<64x32xf32, #blocked>,
                              tensor<4xi32, #txl.slice<dim = 0, parent = #mma>>, tensor<64x32xi32, #mma>
}

// -----

#blocked = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]>

// A loaded tile moves: the relayout stays.
// CHECK-LABEL: func.func @real(
// CHECK: txl.load
// CHECK-NEXT: txl.relayout
func.func @real(%p: tensor<64x32x!txl.ptr<f32>, #blocked>) -> tensor<64x32xf32, #mma> {
  %x = txl.load %p : tensor<64x32x!txl.ptr<f32>, #blocked> -> tensor<64x32xf32, #blocked>
  %y = txl.relayout %x : tensor<64x32xf32, #blocked> -> tensor<64x32xf32, #mma>
  return %y : tensor<64x32xf32, #mma>
}
