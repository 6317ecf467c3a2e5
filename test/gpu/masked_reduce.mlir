// Masked sum and max across warps (issue 4): each program reduces 8 rows of
// an (M, W) f32 matrix, W not a power of two (the tile is 8 x 512, masked to
// W columns and M rows). The 4 warps split the columns, so each row's
// partial results meet in shared memory (one scratch per reduction, synced
// on the warpgroup's named barrier). bench/tile_check.py runs it with W = 300.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: txlc %s --emit=cubin -o %t/masked_reduce.ptx 2>&1 | count 0
// RUN: FileCheck %s < %t/masked_reduce.ptx
// CHECK: .entry masked_reduce(
// CHECK: shfl.sync.bfly
// CHECK: bar.sync {{.*}}128;
// CHECK: st.shared
// CHECK: bar.sync {{.*}}128;
// CHECK: ld.shared

#blk = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
#row = #txl.slice<dim = 1, parent = #blk>
#col = #txl.slice<dim = 0, parent = #blk>
module attributes {txl.target = "sm_90a"} {
  func.func @masked_reduce(%x: !txl.ptr<f32>, %sum: !txl.ptr<f32>, %max: !txl.ptr<f32>, %M: i32, %W: i32)
      attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %pid = txl.program_id 0
    %c8 = arith.constant 8 : i32
    %row0 = arith.muli %pid, %c8 : i32
    %r = txl.make_range 0, 8 : tensor<8xi32, #row>
    %rbase = txl.splat %row0 : i32 -> tensor<8xi32, #row>
    %rows = arith.addi %r, %rbase : tensor<8xi32, #row>
    %re = txl.expand_dims %rows, 1 : tensor<8xi32, #row> -> tensor<8x1xi32, #blk>
    %rb = txl.broadcast %re : tensor<8x1xi32, #blk> -> tensor<8x512xi32, #blk>
    %c = txl.make_range 0, 512 : tensor<512xi32, #col>
    %ce = txl.expand_dims %c, 0 : tensor<512xi32, #col> -> tensor<1x512xi32, #blk>
    %cb = txl.broadcast %ce : tensor<1x512xi32, #blk> -> tensor<8x512xi32, #blk>
    %Mt = txl.splat %M : i32 -> tensor<8x512xi32, #blk>
    %Wt = txl.splat %W : i32 -> tensor<8x512xi32, #blk>
    %rin = arith.cmpi slt, %rb, %Mt : tensor<8x512xi32, #blk>
    %cin = arith.cmpi slt, %cb, %Wt : tensor<8x512xi32, #blk>
    %mask = arith.andi %rin, %cin : tensor<8x512xi1, #blk>
    %rw = arith.muli %rb, %Wt : tensor<8x512xi32, #blk>
    %offs = arith.addi %rw, %cb : tensor<8x512xi32, #blk>
    %xs = txl.splat %x : !txl.ptr<f32> -> tensor<8x512x!txl.ptr<f32>, #blk>
    %xp = txl.addptr %xs, %offs : tensor<8x512x!txl.ptr<f32>, #blk>, tensor<8x512xi32, #blk>
    %zero = arith.constant dense<0.0> : tensor<8x512xf32, #blk>
    %v = txl.load %xp mask %mask other %zero : tensor<8x512x!txl.ptr<f32>, #blk> -> tensor<8x512xf32, #blk>
    %ninf = arith.constant dense<0xFF800000> : tensor<8x512xf32, #blk>
    %vm = arith.select %mask, %v, %ninf : tensor<8x512xi1, #blk>, tensor<8x512xf32, #blk>

    %s = txl.reduce %v axis 1 : (tensor<8x512xf32, #blk>) -> tensor<8xf32, #row> {
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      txl.reduce_return %t : f32
    }
    %m = txl.reduce %vm axis 1 : (tensor<8x512xf32, #blk>) -> tensor<8xf32, #row> {
    ^bb0(%a: f32, %b: f32):
      %t = arith.maxnumf %a, %b : f32
      txl.reduce_return %t : f32
    }

    %Mr = txl.splat %M : i32 -> tensor<8xi32, #row>
    %rmask = arith.cmpi slt, %rows, %Mr : tensor<8xi32, #row>
    %ss = txl.splat %sum : !txl.ptr<f32> -> tensor<8x!txl.ptr<f32>, #row>
    %sp = txl.addptr %ss, %rows : tensor<8x!txl.ptr<f32>, #row>, tensor<8xi32, #row>
    txl.store %sp, %s mask %rmask : tensor<8x!txl.ptr<f32>, #row>, tensor<8xf32, #row>
    %ms = txl.splat %max : !txl.ptr<f32> -> tensor<8x!txl.ptr<f32>, #row>
    %mp = txl.addptr %ms, %rows : tensor<8x!txl.ptr<f32>, #row>, tensor<8xi32, #row>
    txl.store %mp, %m mask %rmask : tensor<8x!txl.ptr<f32>, #row>, tensor<8xf32, #row>
    return
  }
}
