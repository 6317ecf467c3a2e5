// Shared-memory views: index, subslice, transpose, reshape, loads and stores.
func.func @views(%i: i32, %p: i1) {
  %c0 = arith.constant 0 : i32
  %buf = txl.smem_alloc : !txl.smem<2x64x64xbf16, stages = 2>
  %v = txl.get_buffer %buf[%c0] : !txl.smem<2x64x64xbf16, stages = 2>
  %row = txl.smem_index %v[%i] : !txl.smem<2x64x64xbf16>
  %half = txl.smem_subslice %row [32, 0] : !txl.smem<64x64xbf16> -> !txl.smem<32x64xbf16>
  %t = txl.smem_trans %half [1, 0] : !txl.smem<32x64xbf16> -> !txl.smem<64x32xbf16>
  %r = txl.smem_reshape %row : !txl.smem<64x64xbf16> -> !txl.smem<2x32x64xbf16>
  %x = txl.smem_load %row : !txl.smem<64x64xbf16> -> tensor<64x64xbf16>
  txl.smem_store %x, %row : tensor<64x64xbf16>, !txl.smem<64x64xbf16>
  %fb = txl.smem_alloc : !txl.smem<128xf32, stages = 1>
  %f = txl.get_buffer %fb[%c0] : !txl.smem<128xf32, stages = 1>
  %ninf = arith.constant dense<0xFF800000> : tensor<128x64xf32>
  %m = txl.frag_smem_load %f other %ninf pred %p : !txl.smem<128xf32> -> tensor<128x64xf32>
  %col = arith.constant dense<1.0> : tensor<128x1xf32>
  txl.frag_smem_store %col, %f pred %p : tensor<128x1xf32>, !txl.smem<128xf32>
  return
}
