// Register-tile code in PTX: f32 -> bf16 truncations pack pairs into
// cvt.rn.bf16x2.f32 (the elementwise lowering emits <2 x float> fptruncs,
// which NVPTX selects to the packed instruction when the pair stays packed,
// as flash attention's P feeding the PV wgmma does); warp shuffles by lane
// index; a thread-dependent tile constant read from a global table with
// non-coherent (read-only) loads.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: txlc %txl_src/examples/flash_attention_fwd_sm90.mlir --emit=ptx -o %t/fa.ptx
// RUN: FileCheck %s --check-prefix=FA < %t/fa.ptx
// FA: cvt.rn.bf16x2.f32
// RUN: txlc %s --emit=cubin -o %t/tile.ptx 2>&1 | count 0
// RUN: FileCheck %s < %t/tile.ptx
// CHECK: .global .align 16 .b8 txl_tile_constant_0[32]
// CHECK: .entry tile_ops(
// CHECK: ld.global.nc.b32
// CHECK: shfl.sync.idx.b32
// CHECK-NOT: bar.sync

#a = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#b = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [0, 1]>
#col = #txl.slice<dim = 0, parent = #a>
module attributes {txl.target = "sm_90a"} {
  func.func @tile_ops(%out: !txl.ptr<f32>) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    // Column index + a per-column constant, in the row-major lane layout.
    %k = arith.constant dense<[[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0]]> : tensor<1x8xf32, #a>
    %kb = txl.broadcast %k : tensor<1x8xf32, #a> -> tensor<16x8xf32, #a>
    // Squared (not a constant any more, so the relayout cannot be folded
    // into it), then moved to column-major lanes (a lane permutation:
    // shuffles) ...
    %sq = arith.mulf %kb, %kb : tensor<16x8xf32, #a>
    %t = txl.relayout %sq : tensor<16x8xf32, #a> -> tensor<16x8xf32, #b>
    // ... and store it row-major from there.
    %r = txl.make_range 0, 16 : tensor<16xi32, #txl.slice<dim = 1, parent = #b>>
    %re = txl.expand_dims %r, 1 : tensor<16xi32, #txl.slice<dim = 1, parent = #b>> -> tensor<16x1xi32, #b>
    %rb = txl.broadcast %re : tensor<16x1xi32, #b> -> tensor<16x8xi32, #b>
    %c = txl.make_range 0, 8 : tensor<8xi32, #txl.slice<dim = 0, parent = #b>>
    %ce = txl.expand_dims %c, 0 : tensor<8xi32, #txl.slice<dim = 0, parent = #b>> -> tensor<1x8xi32, #b>
    %cb = txl.broadcast %ce : tensor<1x8xi32, #b> -> tensor<16x8xi32, #b>
    %w = arith.constant dense<8> : tensor<16x8xi32, #b>
    %rw = arith.muli %rb, %w : tensor<16x8xi32, #b>
    %offs = arith.addi %rw, %cb : tensor<16x8xi32, #b>
    %ps = txl.splat %out : !txl.ptr<f32> -> tensor<16x8x!txl.ptr<f32>, #b>
    %p = txl.addptr %ps, %offs : tensor<16x8x!txl.ptr<f32>, #b>, tensor<16x8xi32, #b>
    txl.store %p, %t : tensor<16x8x!txl.ptr<f32>, #b>, tensor<16x8xf32, #b>
    return
  }
}
