// Register layouts on tiles: blocked, wgmma accumulator, dot operand, slice.
#blocked = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#acc = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>
#row = #txl.slice<dim = 1, parent = #acc>
#dotA = #txl.dot_operand<opIdx = 0, parent = #acc, kWidth = 2>
module attributes {txl.target = "sm_90a"} {
  func.func @layouts(%x: tensor<64x64xf32, #blocked>, %b: !txl.smem<64x64xbf16>) -> tensor<64xf32, #row> {
    %t0 = txl.relayout %x : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #acc>
    %rm = txl.reduce %t0 axis 1 : (tensor<64x64xf32, #acc>) -> tensor<64xf32, #row> {
    ^bb0(%c0: f32, %c1: f32):
      %sum = arith.addf %c0, %c1 : f32
      txl.reduce_return %sum : f32
    }
    %e = txl.expand_dims %rm, 1 : tensor<64xf32, #row> -> tensor<64x1xf32, #acc>
    %bc = txl.broadcast %e : tensor<64x1xf32, #acc> -> tensor<64x64xf32, #acc>
    %a = arith.truncf %bc : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
    %p = txl.relayout %a : tensor<64x64xbf16, #acc> -> tensor<64x64xbf16, #dotA>
    %o = txl.dot %p, %b, %t0 : tensor<64x64xbf16, #dotA>, !txl.smem<64x64xbf16>, tensor<64x64xf32, #acc>
    %c = arith.constant 0.0 : f32
    %z = txl.splat %c : f32 -> tensor<64x64xf32, #blocked>
    %r = txl.make_range 0, 64 : tensor<64xi32, #txl.slice<dim = 0, parent = #blocked>>
    return %rm : tensor<64xf32, #row>
  }
}
