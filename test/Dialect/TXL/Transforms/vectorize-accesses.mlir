// RUN: txl-opt %s -txl-vectorize-accesses -split-input-file | FileCheck %s

#b8 = #txl.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// A row of f16 at X + row * stride: the layout gives runs of 8 registers, the
// range makes the addresses consecutive, the 16-byte aligned base and a stride
// divisible by 16 keep every run 16-byte aligned: 8 elements (16 bytes) per
// access. The mask `cols < n` with n divisible by 16 is constant over runs.
// CHECK-LABEL: func.func @row_f16
// CHECK: txl.load {{.*}} {txl.vector = 8 : i32}
// CHECK: txl.store {{.*}} {txl.vector = 8 : i32}
func.func @row_f16(%x: !txl.ptr<f16> {txl.divisibility = 16 : i32}, %y: !txl.ptr<f16> {txl.divisibility = 16 : i32},
                   %row: i32, %stride: i32 {txl.divisibility = 16 : i32}, %n: i32 {txl.divisibility = 16 : i32}) {
  %off = arith.muli %row, %stride : i32
  %r = txl.make_range 0, 1024 : tensor<1024xi32, #b8>
  %o = txl.splat %off : i32 -> tensor<1024xi32, #b8>
  %cols = arith.addi %o, %r : tensor<1024xi32, #b8>
  %xs = txl.splat %x : !txl.ptr<f16> -> tensor<1024x!txl.ptr<f16>, #b8>
  %p = txl.addptr %xs, %cols : tensor<1024x!txl.ptr<f16>, #b8>, tensor<1024xi32, #b8>
  %ns = txl.splat %n : i32 -> tensor<1024xi32, #b8>
  %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #b8>
  %v = txl.load %p mask %m : tensor<1024x!txl.ptr<f16>, #b8> -> tensor<1024xf16, #b8>
  %ys = txl.splat %y : !txl.ptr<f16> -> tensor<1024x!txl.ptr<f16>, #b8>
  %q = txl.addptr %ys, %cols : tensor<1024x!txl.ptr<f16>, #b8>, tensor<1024xi32, #b8>
  txl.store %q, %v mask %m : tensor<1024x!txl.ptr<f16>, #b8>, tensor<1024xf16, #b8>
  return
}

// -----

#b8 = #txl.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// Nothing proven, nothing recorded: a base of unknown alignment, a stride of
// unknown divisibility, a mask bound of unknown divisibility.
// CHECK-LABEL: func.func @unproven
// CHECK: txl.load
// CHECK-NOT: txl.vector
// CHECK: return
func.func @unproven(%x: !txl.ptr<f16>, %xa: !txl.ptr<f16> {txl.divisibility = 16 : i32}, %row: i32, %stride: i32,
                    %n: i32) {
  %r = txl.make_range 0, 1024 : tensor<1024xi32, #b8>
  %xs = txl.splat %x : !txl.ptr<f16> -> tensor<1024x!txl.ptr<f16>, #b8>
  %p = txl.addptr %xs, %r : tensor<1024x!txl.ptr<f16>, #b8>, tensor<1024xi32, #b8>
  %v = txl.load %p : tensor<1024x!txl.ptr<f16>, #b8> -> tensor<1024xf16, #b8>
  %off = arith.muli %row, %stride : i32
  %o = txl.splat %off : i32 -> tensor<1024xi32, #b8>
  %cols = arith.addi %o, %r : tensor<1024xi32, #b8>
  %xas = txl.splat %xa : !txl.ptr<f16> -> tensor<1024x!txl.ptr<f16>, #b8>
  %pa = txl.addptr %xas, %cols : tensor<1024x!txl.ptr<f16>, #b8>, tensor<1024xi32, #b8>
  %w = txl.load %pa : tensor<1024x!txl.ptr<f16>, #b8> -> tensor<1024xf16, #b8>
  %ra = txl.addptr %xas, %r : tensor<1024x!txl.ptr<f16>, #b8>, tensor<1024xi32, #b8>
  %ns = txl.splat %n : i32 -> tensor<1024xi32, #b8>
  %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #b8>
  %u = txl.load %ra mask %m : tensor<1024x!txl.ptr<f16>, #b8> -> tensor<1024xf16, #b8>
  return
}

// -----

#b4 = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#r4 = #txl.slice<dim = 1, parent = #b4>
#c4 = #txl.slice<dim = 0, parent = #b4>

// A 2-D f32 tile X[rows, cols] in a loop over column blocks: the induction
// variable (0 + i * 128) keeps the runs aligned; f32 runs of 4 registers are
// 16 bytes. The row mask is constant along the rows (broadcast), the column
// bound n (divisible by 16) is constant over runs of 4.
// CHECK-LABEL: func.func @tile_loop_f32
// CHECK: scf.for
// CHECK: txl.load {{.*}} {txl.vector = 4 : i32}
func.func @tile_loop_f32(%x: !txl.ptr<f32> {txl.divisibility = 16 : i32}, %stride: i32 {txl.divisibility = 16 : i32},
                         %n: i32 {txl.divisibility = 16 : i32}, %m: i32) {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %rows = txl.make_range 0, 32 : tensor<32xi32, #r4>
  %re = txl.expand_dims %rows, 1 : tensor<32xi32, #r4> -> tensor<32x1xi32, #b4>
  %ss = txl.splat %stride : i32 -> tensor<32x1xi32, #b4>
  %roff = arith.muli %re, %ss : tensor<32x1xi32, #b4>
  %rb = txl.broadcast %roff : tensor<32x1xi32, #b4> -> tensor<32x128xi32, #b4>
  %ms = txl.splat %m : i32 -> tensor<32x1xi32, #b4>
  %rmask1 = arith.cmpi slt, %re, %ms : tensor<32x1xi32, #b4>
  %rmask = txl.broadcast %rmask1 : tensor<32x1xi1, #b4> -> tensor<32x128xi1, #b4>
  %xs = txl.splat %x : !txl.ptr<f32> -> tensor<32x128x!txl.ptr<f32>, #b4>
  scf.for %iv = %c0 to %n step %c128 : i32 {
    %cr = txl.make_range 0, 128 : tensor<128xi32, #c4>
    %ivs = txl.splat %iv : i32 -> tensor<128xi32, #c4>
    %cols1 = arith.addi %ivs, %cr : tensor<128xi32, #c4>
    %ce = txl.expand_dims %cols1, 0 : tensor<128xi32, #c4> -> tensor<1x128xi32, #b4>
    %cb = txl.broadcast %ce : tensor<1x128xi32, #b4> -> tensor<32x128xi32, #b4>
    %offs = arith.addi %rb, %cb : tensor<32x128xi32, #b4>
    %p = txl.addptr %xs, %offs : tensor<32x128x!txl.ptr<f32>, #b4>, tensor<32x128xi32, #b4>
    %ns = txl.splat %n : i32 -> tensor<32x128xi32, #b4>
    %cmask = arith.cmpi slt, %cb, %ns : tensor<32x128xi32, #b4>
    %mask = arith.andi %rmask, %cmask : tensor<32x128xi1, #b4>
    %v = txl.load %p mask %mask : tensor<32x128x!txl.ptr<f32>, #b4> -> tensor<32x128xf32, #b4>
  }
  return
}
