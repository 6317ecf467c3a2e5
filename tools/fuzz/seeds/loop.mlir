// A software-pipelined loop with iter_args, RS wgmma and multi-operand reduce.
// -----
module attributes {txl.target = "sm_90a"} {
  func.func @attn(%descK: !txl.tensordesc<128x64xbf16>, %n: i32) -> tensor<64x128xf32> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c3 = arith.constant 3 : i32
    %zero = arith.constant 0.0 : f32
    %q = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1>
    %k = txl.smem_alloc : !txl.smem<128x64xbf16, stages = 3>
    %v = txl.smem_alloc : !txl.smem<128x128xbf16, stages = 3>
    %bars = txl.mbar_alloc count 1 : !txl.mbar<3>
    %qv = txl.get_buffer %q[%c0] : !txl.smem<64x64xbf16, stages = 1>
    %acc0 = txl.splat %zero : f32 -> tensor<64x128xf32>
    %res:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0, %ph = %c0) -> (tensor<64x128xf32>, i32) : i32 {
      %s = arith.remsi %i, %c3 : i32
      %kb = txl.get_buffer %k[%s] : !txl.smem<128x64xbf16, stages = 3>
      %vb = txl.get_buffer %v[%s] : !txl.smem<128x128xbf16, stages = 3>
      %bar = txl.get_buffer %bars[%s] : !txl.mbar<3>
      txl.mbar_expect %bar, 16384
      txl.tma_load %descK[%i, %c0], %kb, %bar : !txl.tensordesc<128x64xbf16>, !txl.smem<128x64xbf16>
      txl.mbar_wait %bar, %ph : i32
      %kT = txl.smem_trans %kb [1, 0] : !txl.smem<128x64xbf16> -> !txl.smem<64x128xbf16>
      %z = txl.splat %zero : f32 -> tensor<64x128xf32>
      %sc = txl.dot %qv, %kT, %z {async} : !txl.smem<64x64xbf16>, !txl.smem<64x128xbf16>, tensor<64x128xf32>
      txl.dot_wait 1
      %sc1 = txl.dot_wait 0, %sc : tensor<64x128xf32>
      %mx, %sm = txl.reduce %sc1, %sc1 axis 1 : (tensor<64x128xf32>, tensor<64x128xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
      ^bb0(%a0: f32, %b0: f32, %a1: f32, %b1: f32):
        %m = arith.maximumf %a0, %a1 : f32
        %t = arith.addf %b0, %b1 : f32
        txl.reduce_return %m, %t : f32, f32
      }
      %p = arith.truncf %sc1 : tensor<64x128xf32> to tensor<64x128xbf16>
      %o = txl.dot %p, %vb, %acc : tensor<64x128xbf16>, !txl.smem<128x128xbf16>, tensor<64x128xf32>
      %nph = arith.xori %ph, %c1 : i32
      scf.yield %o, %nph : tensor<64x128xf32>, i32
    }
    return %res#0 : tensor<64x128xf32>
  }
}
// -----
func.func @scalar(%p: !txl.ptr<f16, 3>, %x: f16, %v2: tensor<16xf16>) {
  %v = txl.load %p : !txl.ptr<f16, 3> -> f16
  txl.store %p, %x : !txl.ptr<f16, 3>, f16
  %r = txl.reduce %v2 axis 0 : (tensor<16xf16>) -> f16 {
  ^bb0(%a: f16, %b: f16):
    %s = arith.addf %a, %b : f16
    txl.reduce_return %s : f16
  }
  return
}
