// Row softmax (issue 4) over an (M, N) f32 matrix, N not a power of two (the
// tile is 16 x 128 and masks cut it to N columns, M rows): masked row max
// (masked elements read -inf), exp, masked row sum (masked elements count
// 0), divide, masked store. Each program handles 16 rows; the reductions
// stay within warps (shuffles). bench/tile_check.py runs it with N = 100.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: txlc %s --emit=cubin -o %t/row_softmax.ptx 2>&1 | count 0
// RUN: FileCheck %s < %t/row_softmax.ptx
// CHECK: .entry row_softmax(
// CHECK: shfl.sync.bfly
// CHECK: ex2.approx
// CHECK-NOT: bar.sync

#blk = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#row = #txl.slice<dim = 1, parent = #blk>
#col = #txl.slice<dim = 0, parent = #blk>
module attributes {txl.target = "sm_90a"} {
  func.func @row_softmax(%x: !txl.ptr<f32>, %y: !txl.ptr<f32>, %M: i32, %N: i32)
      attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %pid = txl.program_id 0
    %c16 = arith.constant 16 : i32
    %row0 = arith.muli %pid, %c16 : i32
    %r = txl.make_range 0, 16 : tensor<16xi32, #row>
    %rbase = txl.splat %row0 : i32 -> tensor<16xi32, #row>
    %rows = arith.addi %r, %rbase : tensor<16xi32, #row>
    %re = txl.expand_dims %rows, 1 : tensor<16xi32, #row> -> tensor<16x1xi32, #blk>
    %rb = txl.broadcast %re : tensor<16x1xi32, #blk> -> tensor<16x128xi32, #blk>
    %c = txl.make_range 0, 128 : tensor<128xi32, #col>
    %ce = txl.expand_dims %c, 0 : tensor<128xi32, #col> -> tensor<1x128xi32, #blk>
    %cb = txl.broadcast %ce : tensor<1x128xi32, #blk> -> tensor<16x128xi32, #blk>
    // In bounds: row < M and col < N.
    %Mt = txl.splat %M : i32 -> tensor<16x128xi32, #blk>
    %Nt = txl.splat %N : i32 -> tensor<16x128xi32, #blk>
    %rin = arith.cmpi slt, %rb, %Mt : tensor<16x128xi32, #blk>
    %cin = arith.cmpi slt, %cb, %Nt : tensor<16x128xi32, #blk>
    %mask = arith.andi %rin, %cin : tensor<16x128xi1, #blk>
    %rn = arith.muli %rb, %Nt : tensor<16x128xi32, #blk>
    %offs = arith.addi %rn, %cb : tensor<16x128xi32, #blk>
    %xs = txl.splat %x : !txl.ptr<f32> -> tensor<16x128x!txl.ptr<f32>, #blk>
    %xp = txl.addptr %xs, %offs : tensor<16x128x!txl.ptr<f32>, #blk>, tensor<16x128xi32, #blk>
    %ninf = arith.constant dense<0xFF800000> : tensor<16x128xf32, #blk>
    %v = txl.load %xp mask %mask other %ninf : tensor<16x128x!txl.ptr<f32>, #blk> -> tensor<16x128xf32, #blk>

    %m = txl.reduce %v axis 1 : (tensor<16x128xf32, #blk>) -> tensor<16xf32, #row> {
    ^bb0(%a: f32, %b: f32):
      %t = arith.maxnumf %a, %b : f32
      txl.reduce_return %t : f32
    }
    %me = txl.expand_dims %m, 1 : tensor<16xf32, #row> -> tensor<16x1xf32, #blk>
    %mb = txl.broadcast %me : tensor<16x1xf32, #blk> -> tensor<16x128xf32, #blk>
    // Rows past M are all -inf: subtract 0 there instead of -inf (no NaN).
    %zero = arith.constant dense<0.0> : tensor<16x128xf32, #blk>
    %ms = arith.select %rin, %mb, %zero : tensor<16x128xi1, #blk>, tensor<16x128xf32, #blk>
    %d = arith.subf %v, %ms : tensor<16x128xf32, #blk>
    %e = math.exp %d : tensor<16x128xf32, #blk>
    %em = arith.select %mask, %e, %zero : tensor<16x128xi1, #blk>, tensor<16x128xf32, #blk>
    %s = txl.reduce %em axis 1 : (tensor<16x128xf32, #blk>) -> tensor<16xf32, #row> {
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      txl.reduce_return %t : f32
    }
    %se = txl.expand_dims %s, 1 : tensor<16xf32, #row> -> tensor<16x1xf32, #blk>
    %sb = txl.broadcast %se : tensor<16x1xf32, #blk> -> tensor<16x128xf32, #blk>
    %p = arith.divf %em, %sb : tensor<16x128xf32, #blk>

    %ys = txl.splat %y : !txl.ptr<f32> -> tensor<16x128x!txl.ptr<f32>, #blk>
    %yp = txl.addptr %ys, %offs : tensor<16x128x!txl.ptr<f32>, #blk>, tensor<16x128xi32, #blk>
    txl.store %yp, %p mask %mask : tensor<16x128x!txl.ptr<f32>, #blk>, tensor<16x128xf32, #blk>
    return
  }
}
