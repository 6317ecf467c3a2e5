// Layout round trip (issue 4): a 64x128 f32 tile loaded in a blocked layout
// goes to the wgmma accumulator layout (shared memory), is reduced along
// rows there (in-warp shuffles), the row sums come back through
// expand_dims/broadcast, and the tile returns to the blocked layout
// (shared memory again) to be stored. out = in + rowsum(in)[:, None];
// rowsum = in.sum(1). bench/tile_check.py runs it on a GPU and checks every
// element against torch.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: txlc %s --emit=cubin -o %t/layout_roundtrip.ptx 2>&1 | count 0
// RUN: FileCheck %s < %t/layout_roundtrip.ptx
// CHECK: .entry layout_roundtrip(
// CHECK-COUNT-4: bar.sync {{.*}}128;
// CHECK-NOT: bar.sync

#blk = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#acc = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]>
#brow = #txl.slice<dim = 1, parent = #blk>
#bcol = #txl.slice<dim = 0, parent = #blk>
#arow = #txl.slice<dim = 1, parent = #acc>
module attributes {txl.target = "sm_90a"} {
  func.func @layout_roundtrip(%in: !txl.ptr<f32>, %out: !txl.ptr<f32>, %rowsum: !txl.ptr<f32>)
      attributes {txl.kernel, txl.num_warps = 4 : i32} {
    // Row-major offsets row * 128 + col in the blocked layout.
    %r = txl.make_range 0, 64 : tensor<64xi32, #brow>
    %re = txl.expand_dims %r, 1 : tensor<64xi32, #brow> -> tensor<64x1xi32, #blk>
    %rb = txl.broadcast %re : tensor<64x1xi32, #blk> -> tensor<64x128xi32, #blk>
    %c = txl.make_range 0, 128 : tensor<128xi32, #bcol>
    %ce = txl.expand_dims %c, 0 : tensor<128xi32, #bcol> -> tensor<1x128xi32, #blk>
    %cb = txl.broadcast %ce : tensor<1x128xi32, #blk> -> tensor<64x128xi32, #blk>
    %w = arith.constant dense<128> : tensor<64x128xi32, #blk>
    %rw = arith.muli %rb, %w : tensor<64x128xi32, #blk>
    %offs = arith.addi %rw, %cb : tensor<64x128xi32, #blk>
    %ins = txl.splat %in : !txl.ptr<f32> -> tensor<64x128x!txl.ptr<f32>, #blk>
    %inp = txl.addptr %ins, %offs : tensor<64x128x!txl.ptr<f32>, #blk>, tensor<64x128xi32, #blk>
    %x = txl.load %inp : tensor<64x128x!txl.ptr<f32>, #blk> -> tensor<64x128xf32, #blk>

    // blocked -> accumulator, row sums there, broadcast back.
    %a = txl.relayout %x : tensor<64x128xf32, #blk> -> tensor<64x128xf32, #acc>
    %s = txl.reduce %a axis 1 : (tensor<64x128xf32, #acc>) -> tensor<64xf32, #arow> {
    ^bb0(%p: f32, %q: f32):
      %t = arith.addf %p, %q : f32
      txl.reduce_return %t : f32
    }
    %se = txl.expand_dims %s, 1 : tensor<64xf32, #arow> -> tensor<64x1xf32, #acc>
    %sb = txl.broadcast %se : tensor<64x1xf32, #acc> -> tensor<64x128xf32, #acc>
    %y = arith.addf %a, %sb : tensor<64x128xf32, #acc>
    %yb = txl.relayout %y : tensor<64x128xf32, #acc> -> tensor<64x128xf32, #blk>

    %outs = txl.splat %out : !txl.ptr<f32> -> tensor<64x128x!txl.ptr<f32>, #blk>
    %outp = txl.addptr %outs, %offs : tensor<64x128x!txl.ptr<f32>, #blk>, tensor<64x128xi32, #blk>
    txl.store %outp, %yb : tensor<64x128x!txl.ptr<f32>, #blk>, tensor<64x128xf32, #blk>

    // The row sums, stored from the accumulator's row slice (threads holding
    // the same row store the same value).
    %ar = txl.make_range 0, 64 : tensor<64xi32, #arow>
    %rs = txl.splat %rowsum : !txl.ptr<f32> -> tensor<64x!txl.ptr<f32>, #arow>
    %rp = txl.addptr %rs, %ar : tensor<64x!txl.ptr<f32>, #arow>, tensor<64xi32, #arow>
    txl.store %rp, %s : tensor<64x!txl.ptr<f32>, #arow>, tensor<64xf32, #arow>
    return
  }
}
