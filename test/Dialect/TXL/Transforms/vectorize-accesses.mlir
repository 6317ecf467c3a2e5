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

// -----

#b8 = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#rows = #txl.slice<dim = 1, parent = #b8>
#cols = #txl.slice<dim = 0, parent = #b8>

// Rows of a 2-D f16 tile at x + row * stride + col. With a stride of
// unknown divisibility only the first row is known to be aligned: one
// element per access. (Row r starts at r * stride: the rows of a range are
// 0, 1, 2, ..., so a product with a range is divisible by the other factor
// only.) With the stride divisible by 16: 8 elements.
// CHECK-LABEL: func.func @rows_of_unknown_stride
// CHECK: txl.load
// CHECK-NOT: txl.vector
// CHECK-LABEL: func.func @rows_of_aligned_stride
// CHECK: txl.load {{.*}} {txl.vector = 8 : i32}
func.func @rows_of_unknown_stride(%x: !txl.ptr<f16> {txl.divisibility = 16 : i32}, %stride: i32) {
  %r = txl.make_range 0, 64 : tensor<64xi32, #rows>
  %re = txl.expand_dims %r, 1 : tensor<64xi32, #rows> -> tensor<64x1xi32, #b8>
  %ss = txl.splat %stride : i32 -> tensor<64x1xi32, #b8>
  %ro = arith.muli %re, %ss : tensor<64x1xi32, #b8>
  %rb = txl.broadcast %ro : tensor<64x1xi32, #b8> -> tensor<64x64xi32, #b8>
  %c = txl.make_range 0, 64 : tensor<64xi32, #cols>
  %ce = txl.expand_dims %c, 0 : tensor<64xi32, #cols> -> tensor<1x64xi32, #b8>
  %cb = txl.broadcast %ce : tensor<1x64xi32, #b8> -> tensor<64x64xi32, #b8>
  %o = arith.addi %rb, %cb : tensor<64x64xi32, #b8>
  %xs = txl.splat %x : !txl.ptr<f16> -> tensor<64x64x!txl.ptr<f16>, #b8>
  %p = txl.addptr %xs, %o : tensor<64x64x!txl.ptr<f16>, #b8>, tensor<64x64xi32, #b8>
  %v = txl.load %p : tensor<64x64x!txl.ptr<f16>, #b8> -> tensor<64x64xf16, #b8>
  return
}
func.func @rows_of_aligned_stride(%x: !txl.ptr<f16> {txl.divisibility = 16 : i32},
                                  %stride: i32 {txl.divisibility = 16 : i32}) {
  %r = txl.make_range 0, 64 : tensor<64xi32, #rows>
  %re = txl.expand_dims %r, 1 : tensor<64xi32, #rows> -> tensor<64x1xi32, #b8>
  %ss = txl.splat %stride : i32 -> tensor<64x1xi32, #b8>
  %ro = arith.muli %re, %ss : tensor<64x1xi32, #b8>
  %rb = txl.broadcast %ro : tensor<64x1xi32, #b8> -> tensor<64x64xi32, #b8>
  %c = txl.make_range 0, 64 : tensor<64xi32, #cols>
  %ce = txl.expand_dims %c, 0 : tensor<64xi32, #cols> -> tensor<1x64xi32, #b8>
  %cb = txl.broadcast %ce : tensor<1x64xi32, #b8> -> tensor<64x64xi32, #b8>
  %o = arith.addi %rb, %cb : tensor<64x64xi32, #b8>
  %xs = txl.splat %x : !txl.ptr<f16> -> tensor<64x64x!txl.ptr<f16>, #b8>
  %p = txl.addptr %xs, %o : tensor<64x64x!txl.ptr<f16>, #b8>, tensor<64x64xi32, #b8>
  %v = txl.load %p : tensor<64x64x!txl.ptr<f16>, #b8> -> tensor<64x64xf16, #b8>
  return
}

// -----

#b8 = #txl.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// Loop-carried pointers (`ptrs += step` in the loop): the iter_arg is what
// both its initial value and the yielded one are. A step of 1024 keeps the
// runs 16-byte aligned (8 f16); a step of 4 elements keeps 8 bytes (4 f16);
// a step of unknown divisibility leaves one element per access. A wrapped
// range, (off + arange) % n with n divisible by 16, still runs by +1 over
// groups of 16.
// CHECK-LABEL: func.func @carried
// CHECK: scf.for
// CHECK: txl.load {{.*}} {txl.vector = 8 : i32}
// CHECK: txl.load {{.*}} {txl.vector = 4 : i32}
// CHECK: txl.load %{{[^{]*}} : tensor<1024x!txl.ptr<f16>
// CHECK: scf.yield
// CHECK: txl.load {{.*}} {txl.vector = 8 : i32}
func.func @carried(%x: !txl.ptr<f16> {txl.divisibility = 16 : i32}, %n: i32 {txl.divisibility = 16 : i32},
                   %k: i32, %step: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = txl.make_range 0, 1024 : tensor<1024xi32, #b8>
  %xs = txl.splat %x : !txl.ptr<f16> -> tensor<1024x!txl.ptr<f16>, #b8>
  %p0 = txl.addptr %xs, %r : tensor<1024x!txl.ptr<f16>, #b8>, tensor<1024xi32, #b8>
  %big = arith.constant dense<1024> : tensor<1024xi32, #b8>
  %four = arith.constant dense<4> : tensor<1024xi32, #b8>
  %steps = txl.splat %step : i32 -> tensor<1024xi32, #b8>
  %res:3 = scf.for %i = %c0 to %k step %c1 iter_args(%p = %p0, %q = %p0, %s = %p0)
      -> (tensor<1024x!txl.ptr<f16>, #b8>, tensor<1024x!txl.ptr<f16>, #b8>, tensor<1024x!txl.ptr<f16>, #b8>) : i32 {
    %vp = txl.load %p : tensor<1024x!txl.ptr<f16>, #b8> -> tensor<1024xf16, #b8>
    %vq = txl.load %q : tensor<1024x!txl.ptr<f16>, #b8> -> tensor<1024xf16, #b8>
    %vs = txl.load %s : tensor<1024x!txl.ptr<f16>, #b8> -> tensor<1024xf16, #b8>
    %p1 = txl.addptr %p, %big : tensor<1024x!txl.ptr<f16>, #b8>, tensor<1024xi32, #b8>
    %q1 = txl.addptr %q, %four : tensor<1024x!txl.ptr<f16>, #b8>, tensor<1024xi32, #b8>
    %s1 = txl.addptr %s, %steps : tensor<1024x!txl.ptr<f16>, #b8>, tensor<1024xi32, #b8>
    scf.yield %p1, %q1, %s1 : tensor<1024x!txl.ptr<f16>, #b8>, tensor<1024x!txl.ptr<f16>, #b8>, tensor<1024x!txl.ptr<f16>, #b8>
  }
  %ns = txl.splat %n : i32 -> tensor<1024xi32, #b8>
  %w = arith.remsi %r, %ns : tensor<1024xi32, #b8>
  %pw = txl.addptr %xs, %w : tensor<1024x!txl.ptr<f16>, #b8>, tensor<1024xi32, #b8>
  %vw = txl.load %pw : tensor<1024x!txl.ptr<f16>, #b8> -> tensor<1024xf16, #b8>
  return
}

// -----

#b8 = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#s4 = #txl.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// Row offsets that arrive through a txl.relayout (txl-assign-layouts cuts a
// vector used along both dimensions so): a relayout moves the same values
// between threads, so the rows keep their divisibility (gathered rows of an
// unknown index times a stride divisible by 16) and the row loads stay 8-wide.
// CHECK-LABEL: func.func @rows_through_relayout
// CHECK: txl.load {{.*}} {txl.vector = 8 : i32}
func.func @rows_through_relayout(%x: !txl.ptr<bf16> {txl.divisibility = 16 : i32}, %idx: tensor<64xi32, #s4>,
                                 %stride: i32 {txl.divisibility = 16 : i32}) {
  %st = txl.splat %stride : i32 -> tensor<64xi32, #s4>
  %rows = arith.muli %idx, %st : tensor<64xi32, #s4>
  %moved = txl.relayout %rows : tensor<64xi32, #s4> -> tensor<64xi32, #txl.slice<dim = 1, parent = #b8>>
  %e = txl.expand_dims %moved, 1 : tensor<64xi32, #txl.slice<dim = 1, parent = #b8>> -> tensor<64x1xi32, #b8>
  %eb = txl.broadcast %e : tensor<64x1xi32, #b8> -> tensor<64x128xi32, #b8>
  %c = txl.make_range 0, 128 : tensor<128xi32, #txl.slice<dim = 0, parent = #b8>>
  %ce = txl.expand_dims %c, 0 : tensor<128xi32, #txl.slice<dim = 0, parent = #b8>> -> tensor<1x128xi32, #b8>
  %cb = txl.broadcast %ce : tensor<1x128xi32, #b8> -> tensor<64x128xi32, #b8>
  %off = arith.addi %eb, %cb : tensor<64x128xi32, #b8>
  %xs = txl.splat %x : !txl.ptr<bf16> -> tensor<64x128x!txl.ptr<bf16>, #b8>
  %p = txl.addptr %xs, %off : tensor<64x128x!txl.ptr<bf16>, #b8>, tensor<64x128xi32, #b8>
  %v = txl.load %p : tensor<64x128x!txl.ptr<bf16>, #b8> -> tensor<64x128xbf16, #b8>
  return
}
