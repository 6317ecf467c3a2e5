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

// -----

#blocked = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma2 = #txl.nvmma<version = 2, warpsPerCTA = [1, 4], instrShape = [16, 8, 16]>
#opB = #txl.dot_operand<opIdx = 1, parent = #mma2, kWidth = 2>
#sw = #txl.nvmma_shared<swizzle = 128>
// A tile read from shared memory only to be converted is read in the layout
// needed, where the read was (an mma.sync operand from a pipeline ring):
// directly, or through a transpose of the read (smem_trans of the view). A
// read with another use is read once more in the layout needed; the original
// read stays for that use (the dQ loop's K: one read feeds two dots, once
// transposed).
// CHECK-LABEL: func.func @read_in_layout(
// CHECK-SAME: %[[V:.*]]: !txl.smem<64x128xbf16, #txl.nvmma_shared<swizzle = 128>>
// CHECK-NEXT: %[[B:.*]] = txl.smem_load %[[V]] : !txl.smem<64x128xbf16, #txl.nvmma_shared<swizzle = 128>> -> tensor<64x128xbf16, #txl.dot_operand<opIdx = 1, {{.*}}>>
// CHECK-NEXT: %[[T:.*]] = txl.smem_trans %[[V]] [1, 0] : !txl.smem<64x128xbf16, #txl.nvmma_shared<swizzle = 128>> -> !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>
// CHECK-NEXT: %[[BT:.*]] = txl.smem_load %[[T]] : !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>> -> tensor<128x64xbf16, #txl.dot_operand<opIdx = 1, {{.*}}>>
// CHECK-NEXT: %[[C:.*]] = txl.smem_load %[[V]] : {{.*}} -> tensor<64x128xbf16, #txl.dot_operand<opIdx = 1, {{.*}}>>
// CHECK-NEXT: %[[R:.*]] = txl.smem_load %[[V]] : {{.*}} -> tensor<64x128xbf16, #txl.blocked<{{.*}}>>
// CHECK-NEXT: return %[[B]], %[[BT]], %[[C]], %[[R]]
// CHECK-NOT: txl.relayout
func.func @read_in_layout(%v: !txl.smem<64x128xbf16, #sw>) -> (tensor<64x128xbf16, #opB>, tensor<128x64xbf16, #opB>, tensor<64x128xbf16, #opB>, tensor<64x128xbf16, #blocked>) {
  %r = txl.smem_load %v : !txl.smem<64x128xbf16, #sw> -> tensor<64x128xbf16, #blocked>
  %b = txl.relayout %r : tensor<64x128xbf16, #blocked> -> tensor<64x128xbf16, #opB>
  %r2 = txl.smem_load %v : !txl.smem<64x128xbf16, #sw> -> tensor<64x128xbf16, #blocked>
  %t = txl.trans %r2, [1, 0] : tensor<64x128xbf16, #blocked> -> tensor<128x64xbf16, #txl.linear<register = [[1, 0], [2, 0], [4, 0], [0, 8], [0, 16], [0, 32]], lane = [[8, 0], [16, 0], [32, 0], [64, 0], [0, 1]], warp = [[0, 2], [0, 4]]>>
  %bt = txl.relayout %t : tensor<128x64xbf16, #txl.linear<register = [[1, 0], [2, 0], [4, 0], [0, 8], [0, 16], [0, 32]], lane = [[8, 0], [16, 0], [32, 0], [64, 0], [0, 1]], warp = [[0, 2], [0, 4]]>> -> tensor<128x64xbf16, #opB>
  %r3 = txl.smem_load %v : !txl.smem<64x128xbf16, #sw> -> tensor<64x128xbf16, #blocked>
  %c = txl.relayout %r3 : tensor<64x128xbf16, #blocked> -> tensor<64x128xbf16, #opB>
  return %b, %bt, %c, %r3 : tensor<64x128xbf16, #opB>, tensor<128x64xbf16, #opB>, tensor<64x128xbf16, #opB>, tensor<64x128xbf16, #blocked>
}
