// Register tiles: ranges, splats, broadcasts, reductions, pointers, load/store.
func.func @tiles(%base: !txl.ptr<f32>, %n: i32) attributes {txl.kernel} {
  %pid = txl.program_id 0
  %np = txl.num_programs 1
  %tid = txl.tid
  %w = txl.warp_id
  %wg = txl.warpgroup_id
  %l = txl.lane_id
  %r = txl.cta_rank
  %offs = txl.make_range 0, 128 : tensor<128xi32>
  %ns = txl.splat %n : i32 -> tensor<128xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<128xi32>
  %bases = txl.splat %base : !txl.ptr<f32> -> tensor<128x!txl.ptr<f32>>
  %ptrs = txl.addptr %bases, %offs : tensor<128x!txl.ptr<f32>>, tensor<128xi32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %x = txl.load %ptrs mask %mask other %zero : tensor<128x!txl.ptr<f32>> -> tensor<128xf32>
  %e = txl.expand_dims %x, 1 : tensor<128xf32> -> tensor<128x1xf32>
  %b = txl.broadcast %e : tensor<128x1xf32> -> tensor<128x64xf32>
  %s = txl.reduce %b axis 1 : (tensor<128x64xf32>) -> tensor<128xf32> {
  ^bb0(%a0: f32, %a1: f32):
    %mx = arith.maxnumf %a0, %a1 : f32
    txl.reduce_return %mx : f32
  }
  txl.store %ptrs, %s mask %mask : tensor<128x!txl.ptr<f32>>, tensor<128xf32>
  %t0 = arith.constant dense<1.0> : tensor<64x64xf32>
  %t1 = txl.relayout %t0 : tensor<64x64xf32> -> tensor<64x64xf32>
  %rm = txl.reduce %t0 axis 1 : (tensor<64x64xf32>) -> tensor<64xf32> {
  ^bb0(%c0: f32, %c1: f32):
    %sum = arith.addf %c0, %c1 : f32
    txl.reduce_return %sum : f32
  }
  txl.print "m_i = " %s : tensor<128xf32>
  txl.print "hi"
  return
}
