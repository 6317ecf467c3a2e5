// ldmatrix / stmatrix on the GPU (txl-lower-smem-load-stores): every tile
// goes through shared memory once, written in one layout and read in another,
// so that one side is ldmatrix or stmatrix and the other the per-register
// path (an error in the matrix path cannot cancel itself out). out32 holds 4
// blocks of the 32 x 64 f32 input, out16 4 blocks of the 64 x 64 bf16 input;
// bench/tile_check.py runs the kernel and checks every element of every
// block against the input (exact).
//   f32, Gluon tutorial 03's layout (lanes along a row, registers down the
//   rows; 32-bit elements are one b16 pair), plain view then 128-byte swizzle:
//     0: stmatrix -> 16-byte ld.shared    1: 16-byte st.shared -> ldmatrix
//     2: as 0, swizzled                  3: as 1, swizzled
//   bf16, wgmma accumulator layout (the attention / GEMM epilogue):
//     0: stmatrix -> 16-byte ld.shared (128-byte swizzle)
//     1: 16-byte st.shared -> ldmatrix
//     2: stmatrix.trans into a transposed (MN-major) view -> ld.shared per element
//     3: st.shared per element -> ldmatrix.trans
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: txlc %s --emit=cubin -o %t/smem_matrix.ptx 2>&1 | count 0
// RUN: FileCheck %s --implicit-check-not=ld.shared.b32 --implicit-check-not=st.shared.b32 --implicit-check-not=matrix.sync < %t/smem_matrix.ptx
// RUN: test -s %t/smem_matrix.cubin
// Per thread: f32 32 words = 8 x4 per block, bf16 16 words = 4 x4; the bf16
// transposed blocks keep 32 b16 accesses on their blocked side.
// CHECK: .entry smem_matrix(
// CHECK-COUNT-40: {{(ld|st)matrix.sync.aligned.m8n8.x4.shared.b16}}
// CHECK-COUNT-4: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK-COUNT-32: ld.shared.b16
// CHECK-COUNT-32: st.shared.b16
// CHECK-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16

#b03 = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
#b4 = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#acc = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>
#b8 = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128t = #txl.nvmma_shared<swizzle = 128, transposed = true>
module attributes {txl.target = "sm_90a"} {
  func.func @smem_matrix(%in32: !txl.ptr<f32>, %out32: !txl.ptr<f32>, %in16: !txl.ptr<bf16>, %out16: !txl.ptr<bf16>)
      attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %r_b03 = txl.make_range 0, 32 : tensor<32xi32, #txl.slice<dim = 1, parent = #b03>>
    %re_b03 = txl.expand_dims %r_b03, 1 : tensor<32xi32, #txl.slice<dim = 1, parent = #b03>> -> tensor<32x1xi32, #b03>
    %rb_b03 = txl.broadcast %re_b03 : tensor<32x1xi32, #b03> -> tensor<32x64xi32, #b03>
    %c_b03 = txl.make_range 0, 64 : tensor<64xi32, #txl.slice<dim = 0, parent = #b03>>
    %ce_b03 = txl.expand_dims %c_b03, 0 : tensor<64xi32, #txl.slice<dim = 0, parent = #b03>> -> tensor<1x64xi32, #b03>
    %cb_b03 = txl.broadcast %ce_b03 : tensor<1x64xi32, #b03> -> tensor<32x64xi32, #b03>
    %w_b03 = arith.constant dense<64> : tensor<32x64xi32, #b03>
    %rw_b03 = arith.muli %rb_b03, %w_b03 : tensor<32x64xi32, #b03>
    %off_b03 = arith.addi %rw_b03, %cb_b03 : tensor<32x64xi32, #b03>
    %r_b4 = txl.make_range 0, 32 : tensor<32xi32, #txl.slice<dim = 1, parent = #b4>>
    %re_b4 = txl.expand_dims %r_b4, 1 : tensor<32xi32, #txl.slice<dim = 1, parent = #b4>> -> tensor<32x1xi32, #b4>
    %rb_b4 = txl.broadcast %re_b4 : tensor<32x1xi32, #b4> -> tensor<32x64xi32, #b4>
    %c_b4 = txl.make_range 0, 64 : tensor<64xi32, #txl.slice<dim = 0, parent = #b4>>
    %ce_b4 = txl.expand_dims %c_b4, 0 : tensor<64xi32, #txl.slice<dim = 0, parent = #b4>> -> tensor<1x64xi32, #b4>
    %cb_b4 = txl.broadcast %ce_b4 : tensor<1x64xi32, #b4> -> tensor<32x64xi32, #b4>
    %w_b4 = arith.constant dense<64> : tensor<32x64xi32, #b4>
    %rw_b4 = arith.muli %rb_b4, %w_b4 : tensor<32x64xi32, #b4>
    %off_b4 = arith.addi %rw_b4, %cb_b4 : tensor<32x64xi32, #b4>
    %r_acc = txl.make_range 0, 64 : tensor<64xi32, #txl.slice<dim = 1, parent = #acc>>
    %re_acc = txl.expand_dims %r_acc, 1 : tensor<64xi32, #txl.slice<dim = 1, parent = #acc>> -> tensor<64x1xi32, #acc>
    %rb_acc = txl.broadcast %re_acc : tensor<64x1xi32, #acc> -> tensor<64x64xi32, #acc>
    %c_acc = txl.make_range 0, 64 : tensor<64xi32, #txl.slice<dim = 0, parent = #acc>>
    %ce_acc = txl.expand_dims %c_acc, 0 : tensor<64xi32, #txl.slice<dim = 0, parent = #acc>> -> tensor<1x64xi32, #acc>
    %cb_acc = txl.broadcast %ce_acc : tensor<1x64xi32, #acc> -> tensor<64x64xi32, #acc>
    %w_acc = arith.constant dense<64> : tensor<64x64xi32, #acc>
    %rw_acc = arith.muli %rb_acc, %w_acc : tensor<64x64xi32, #acc>
    %off_acc = arith.addi %rw_acc, %cb_acc : tensor<64x64xi32, #acc>
    %r_b8 = txl.make_range 0, 64 : tensor<64xi32, #txl.slice<dim = 1, parent = #b8>>
    %re_b8 = txl.expand_dims %r_b8, 1 : tensor<64xi32, #txl.slice<dim = 1, parent = #b8>> -> tensor<64x1xi32, #b8>
    %rb_b8 = txl.broadcast %re_b8 : tensor<64x1xi32, #b8> -> tensor<64x64xi32, #b8>
    %c_b8 = txl.make_range 0, 64 : tensor<64xi32, #txl.slice<dim = 0, parent = #b8>>
    %ce_b8 = txl.expand_dims %c_b8, 0 : tensor<64xi32, #txl.slice<dim = 0, parent = #b8>> -> tensor<1x64xi32, #b8>
    %cb_b8 = txl.broadcast %ce_b8 : tensor<1x64xi32, #b8> -> tensor<64x64xi32, #b8>
    %w_b8 = arith.constant dense<64> : tensor<64x64xi32, #b8>
    %rw_b8 = arith.muli %rb_b8, %w_b8 : tensor<64x64xi32, #b8>
    %off_b8 = arith.addi %rw_b8, %cb_b8 : tensor<64x64xi32, #b8>
    // block 0: stmatrix (f32 words, tutorial 03's layout) -> 16-byte ld.shared
    %k2 = arith.constant 0 : i32
    %b2 = txl.addptr %in32, %k2 : !txl.ptr<f32>, i32
    %s2 = txl.splat %b2 : !txl.ptr<f32> -> tensor<32x64x!txl.ptr<f32>, #b03>
    %p2 = txl.addptr %s2, %off_b03 : tensor<32x64x!txl.ptr<f32>, #b03>, tensor<32x64xi32, #b03>
    %x1 = txl.load %p2 : tensor<32x64x!txl.ptr<f32>, #b03> -> tensor<32x64xf32, #b03>
    %a1 = txl.smem_alloc : !txl.smem<32x64xf32, stages = 1>
    %v1 = txl.get_buffer %a1[%c0] : !txl.smem<32x64xf32, stages = 1>
    txl.smem_store %x1, %v1 : tensor<32x64xf32, #b03>, !txl.smem<32x64xf32>
    txl.bar_wait 0, 128
    %y1 = txl.smem_load %v1 : !txl.smem<32x64xf32> -> tensor<32x64xf32, #b4>
    %k3 = arith.constant 0 : i32
    %b3 = txl.addptr %out32, %k3 : !txl.ptr<f32>, i32
    %s3 = txl.splat %b3 : !txl.ptr<f32> -> tensor<32x64x!txl.ptr<f32>, #b4>
    %p3 = txl.addptr %s3, %off_b4 : tensor<32x64x!txl.ptr<f32>, #b4>, tensor<32x64xi32, #b4>
    txl.store %p3, %y1 : tensor<32x64x!txl.ptr<f32>, #b4>, tensor<32x64xf32, #b4>
    // block 1: 16-byte st.shared -> ldmatrix
    %k5 = arith.constant 0 : i32
    %b5 = txl.addptr %in32, %k5 : !txl.ptr<f32>, i32
    %s5 = txl.splat %b5 : !txl.ptr<f32> -> tensor<32x64x!txl.ptr<f32>, #b4>
    %p5 = txl.addptr %s5, %off_b4 : tensor<32x64x!txl.ptr<f32>, #b4>, tensor<32x64xi32, #b4>
    %x4 = txl.load %p5 : tensor<32x64x!txl.ptr<f32>, #b4> -> tensor<32x64xf32, #b4>
    %a4 = txl.smem_alloc : !txl.smem<32x64xf32, stages = 1>
    %v4 = txl.get_buffer %a4[%c0] : !txl.smem<32x64xf32, stages = 1>
    txl.smem_store %x4, %v4 : tensor<32x64xf32, #b4>, !txl.smem<32x64xf32>
    txl.bar_wait 0, 128
    %y4 = txl.smem_load %v4 : !txl.smem<32x64xf32> -> tensor<32x64xf32, #b03>
    %k6 = arith.constant 2048 : i32
    %b6 = txl.addptr %out32, %k6 : !txl.ptr<f32>, i32
    %s6 = txl.splat %b6 : !txl.ptr<f32> -> tensor<32x64x!txl.ptr<f32>, #b03>
    %p6 = txl.addptr %s6, %off_b03 : tensor<32x64x!txl.ptr<f32>, #b03>, tensor<32x64xi32, #b03>
    txl.store %p6, %y4 : tensor<32x64x!txl.ptr<f32>, #b03>, tensor<32x64xf32, #b03>
    // block 2: the same through a 128-byte swizzle: stmatrix -> ld.shared
    %k8 = arith.constant 0 : i32
    %b8 = txl.addptr %in32, %k8 : !txl.ptr<f32>, i32
    %s8 = txl.splat %b8 : !txl.ptr<f32> -> tensor<32x64x!txl.ptr<f32>, #b03>
    %p8 = txl.addptr %s8, %off_b03 : tensor<32x64x!txl.ptr<f32>, #b03>, tensor<32x64xi32, #b03>
    %x7 = txl.load %p8 : tensor<32x64x!txl.ptr<f32>, #b03> -> tensor<32x64xf32, #b03>
    %a7 = txl.smem_alloc : !txl.smem<32x64xf32, stages = 1, #sw128>
    %v7 = txl.get_buffer %a7[%c0] : !txl.smem<32x64xf32, stages = 1, #sw128>
    txl.smem_store %x7, %v7 : tensor<32x64xf32, #b03>, !txl.smem<32x64xf32, #sw128>
    txl.bar_wait 0, 128
    %y7 = txl.smem_load %v7 : !txl.smem<32x64xf32, #sw128> -> tensor<32x64xf32, #b4>
    %k9 = arith.constant 4096 : i32
    %b9 = txl.addptr %out32, %k9 : !txl.ptr<f32>, i32
    %s9 = txl.splat %b9 : !txl.ptr<f32> -> tensor<32x64x!txl.ptr<f32>, #b4>
    %p9 = txl.addptr %s9, %off_b4 : tensor<32x64x!txl.ptr<f32>, #b4>, tensor<32x64xi32, #b4>
    txl.store %p9, %y7 : tensor<32x64x!txl.ptr<f32>, #b4>, tensor<32x64xf32, #b4>
    // block 3: st.shared -> ldmatrix
    %k11 = arith.constant 0 : i32
    %b11 = txl.addptr %in32, %k11 : !txl.ptr<f32>, i32
    %s11 = txl.splat %b11 : !txl.ptr<f32> -> tensor<32x64x!txl.ptr<f32>, #b4>
    %p11 = txl.addptr %s11, %off_b4 : tensor<32x64x!txl.ptr<f32>, #b4>, tensor<32x64xi32, #b4>
    %x10 = txl.load %p11 : tensor<32x64x!txl.ptr<f32>, #b4> -> tensor<32x64xf32, #b4>
    %a10 = txl.smem_alloc : !txl.smem<32x64xf32, stages = 1, #sw128>
    %v10 = txl.get_buffer %a10[%c0] : !txl.smem<32x64xf32, stages = 1, #sw128>
    txl.smem_store %x10, %v10 : tensor<32x64xf32, #b4>, !txl.smem<32x64xf32, #sw128>
    txl.bar_wait 0, 128
    %y10 = txl.smem_load %v10 : !txl.smem<32x64xf32, #sw128> -> tensor<32x64xf32, #b03>
    %k12 = arith.constant 6144 : i32
    %b12 = txl.addptr %out32, %k12 : !txl.ptr<f32>, i32
    %s12 = txl.splat %b12 : !txl.ptr<f32> -> tensor<32x64x!txl.ptr<f32>, #b03>
    %p12 = txl.addptr %s12, %off_b03 : tensor<32x64x!txl.ptr<f32>, #b03>, tensor<32x64xi32, #b03>
    txl.store %p12, %y10 : tensor<32x64x!txl.ptr<f32>, #b03>, tensor<32x64xf32, #b03>
    // block 0: bf16 accumulator layout: stmatrix -> 16-byte ld.shared
    %k14 = arith.constant 0 : i32
    %b14 = txl.addptr %in16, %k14 : !txl.ptr<bf16>, i32
    %s14 = txl.splat %b14 : !txl.ptr<bf16> -> tensor<64x64x!txl.ptr<bf16>, #acc>
    %p14 = txl.addptr %s14, %off_acc : tensor<64x64x!txl.ptr<bf16>, #acc>, tensor<64x64xi32, #acc>
    %x13 = txl.load %p14 : tensor<64x64x!txl.ptr<bf16>, #acc> -> tensor<64x64xbf16, #acc>
    %a13 = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1, #sw128>
    %v13 = txl.get_buffer %a13[%c0] : !txl.smem<64x64xbf16, stages = 1, #sw128>
    txl.smem_store %x13, %v13 : tensor<64x64xbf16, #acc>, !txl.smem<64x64xbf16, #sw128>
    txl.bar_wait 0, 128
    %y13 = txl.smem_load %v13 : !txl.smem<64x64xbf16, #sw128> -> tensor<64x64xbf16, #b8>
    %k15 = arith.constant 0 : i32
    %b15 = txl.addptr %out16, %k15 : !txl.ptr<bf16>, i32
    %s15 = txl.splat %b15 : !txl.ptr<bf16> -> tensor<64x64x!txl.ptr<bf16>, #b8>
    %p15 = txl.addptr %s15, %off_b8 : tensor<64x64x!txl.ptr<bf16>, #b8>, tensor<64x64xi32, #b8>
    txl.store %p15, %y13 : tensor<64x64x!txl.ptr<bf16>, #b8>, tensor<64x64xbf16, #b8>
    // block 1: 16-byte st.shared -> ldmatrix
    %k17 = arith.constant 0 : i32
    %b17 = txl.addptr %in16, %k17 : !txl.ptr<bf16>, i32
    %s17 = txl.splat %b17 : !txl.ptr<bf16> -> tensor<64x64x!txl.ptr<bf16>, #b8>
    %p17 = txl.addptr %s17, %off_b8 : tensor<64x64x!txl.ptr<bf16>, #b8>, tensor<64x64xi32, #b8>
    %x16 = txl.load %p17 : tensor<64x64x!txl.ptr<bf16>, #b8> -> tensor<64x64xbf16, #b8>
    %a16 = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1, #sw128>
    %v16 = txl.get_buffer %a16[%c0] : !txl.smem<64x64xbf16, stages = 1, #sw128>
    txl.smem_store %x16, %v16 : tensor<64x64xbf16, #b8>, !txl.smem<64x64xbf16, #sw128>
    txl.bar_wait 0, 128
    %y16 = txl.smem_load %v16 : !txl.smem<64x64xbf16, #sw128> -> tensor<64x64xbf16, #acc>
    %k18 = arith.constant 4096 : i32
    %b18 = txl.addptr %out16, %k18 : !txl.ptr<bf16>, i32
    %s18 = txl.splat %b18 : !txl.ptr<bf16> -> tensor<64x64x!txl.ptr<bf16>, #acc>
    %p18 = txl.addptr %s18, %off_acc : tensor<64x64x!txl.ptr<bf16>, #acc>, tensor<64x64xi32, #acc>
    txl.store %p18, %y16 : tensor<64x64x!txl.ptr<bf16>, #acc>, tensor<64x64xbf16, #acc>
    // block 2: transposed view: stmatrix.trans -> ld.shared per element
    %k20 = arith.constant 0 : i32
    %b20 = txl.addptr %in16, %k20 : !txl.ptr<bf16>, i32
    %s20 = txl.splat %b20 : !txl.ptr<bf16> -> tensor<64x64x!txl.ptr<bf16>, #acc>
    %p20 = txl.addptr %s20, %off_acc : tensor<64x64x!txl.ptr<bf16>, #acc>, tensor<64x64xi32, #acc>
    %x19 = txl.load %p20 : tensor<64x64x!txl.ptr<bf16>, #acc> -> tensor<64x64xbf16, #acc>
    %a19 = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1, #sw128t>
    %v19 = txl.get_buffer %a19[%c0] : !txl.smem<64x64xbf16, stages = 1, #sw128t>
    txl.smem_store %x19, %v19 : tensor<64x64xbf16, #acc>, !txl.smem<64x64xbf16, #sw128t>
    txl.bar_wait 0, 128
    %y19 = txl.smem_load %v19 : !txl.smem<64x64xbf16, #sw128t> -> tensor<64x64xbf16, #b8>
    %k21 = arith.constant 8192 : i32
    %b21 = txl.addptr %out16, %k21 : !txl.ptr<bf16>, i32
    %s21 = txl.splat %b21 : !txl.ptr<bf16> -> tensor<64x64x!txl.ptr<bf16>, #b8>
    %p21 = txl.addptr %s21, %off_b8 : tensor<64x64x!txl.ptr<bf16>, #b8>, tensor<64x64xi32, #b8>
    txl.store %p21, %y19 : tensor<64x64x!txl.ptr<bf16>, #b8>, tensor<64x64xbf16, #b8>
    // block 3: st.shared per element -> ldmatrix.trans
    %k23 = arith.constant 0 : i32
    %b23 = txl.addptr %in16, %k23 : !txl.ptr<bf16>, i32
    %s23 = txl.splat %b23 : !txl.ptr<bf16> -> tensor<64x64x!txl.ptr<bf16>, #b8>
    %p23 = txl.addptr %s23, %off_b8 : tensor<64x64x!txl.ptr<bf16>, #b8>, tensor<64x64xi32, #b8>
    %x22 = txl.load %p23 : tensor<64x64x!txl.ptr<bf16>, #b8> -> tensor<64x64xbf16, #b8>
    %a22 = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1, #sw128t>
    %v22 = txl.get_buffer %a22[%c0] : !txl.smem<64x64xbf16, stages = 1, #sw128t>
    txl.smem_store %x22, %v22 : tensor<64x64xbf16, #b8>, !txl.smem<64x64xbf16, #sw128t>
    txl.bar_wait 0, 128
    %y22 = txl.smem_load %v22 : !txl.smem<64x64xbf16, #sw128t> -> tensor<64x64xbf16, #acc>
    %k24 = arith.constant 12288 : i32
    %b24 = txl.addptr %out16, %k24 : !txl.ptr<bf16>, i32
    %s24 = txl.splat %b24 : !txl.ptr<bf16> -> tensor<64x64x!txl.ptr<bf16>, #acc>
    %p24 = txl.addptr %s24, %off_acc : tensor<64x64x!txl.ptr<bf16>, #acc>, tensor<64x64xi32, #acc>
    txl.store %p24, %y22 : tensor<64x64x!txl.ptr<bf16>, #acc>, tensor<64x64xbf16, #acc>
    return
  }
}
