// Hopper TMA producer/consumer pipeline pieces: smem, mbarriers, TMA, wgmma.
module attributes {txl.target = "sm_90a"} {
  func.func @tma_pipeline(%desc: !txl.tensordesc<128x64xbf16, #txl.nvmma_shared<swizzle = 128>>,
                          %descB: !txl.tensordesc<64x128xbf16>,
                          %descO: !txl.tensordesc<128x128xbf16>,
                          %m: i32, %k: i32, %phase: i32) attributes {txl.kernel, txl.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %bA = txl.smem_alloc : !txl.smem<128x64xbf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
    %bB = txl.smem_alloc : !txl.smem<64x128xbf16, stages = 3>
    %bO = txl.smem_alloc mutable : !txl.smem<128x128xbf16, stages = 1>
    %full = txl.mbar_alloc count 1 : !txl.mbar<3>
    %empty = txl.mbar_alloc count 128 : !txl.mbar<3>
    %a = txl.get_buffer %bA[%c1] : !txl.smem<128x64xbf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
    %b = txl.get_buffer %bB[%c1] : !txl.smem<64x128xbf16, stages = 3>
    %o = txl.get_buffer %bO[%c0] : !txl.smem<128x128xbf16, stages = 1>
    %bar = txl.get_buffer %full[%c1] : !txl.mbar<3>
    %ebar = txl.get_buffer %empty[%c1] : !txl.mbar<3>
    %producer = txl.is_warpgroup [0]
    scf.if %producer {
      txl.reg_dealloc 24
      txl.mbar_wait %ebar, %phase : i32
      txl.mbar_expect %bar, 32768
      txl.tma_load %desc[%m, %k], %a, %bar : !txl.tensordesc<128x64xbf16, #txl.nvmma_shared<swizzle = 128>>, !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>>
      txl.tma_load %descB[%k, %m], %b, %bar : !txl.tensordesc<64x128xbf16>, !txl.smem<64x128xbf16>
    } else {
      txl.reg_alloc 240
      txl.mbar_wait %bar, %phase : i32
      %zero = arith.constant 0.0 : f32
      %acc0 = txl.splat %zero : f32 -> tensor<128x128xf32>
      %acc = txl.dot %a, %b, %acc0 {async} : !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>>, !txl.smem<64x128xbf16>, tensor<128x128xf32>
      %acc1 = txl.dot_wait 0, %acc : tensor<128x128xf32>
      txl.mbar_arrive %ebar
      %h = arith.truncf %acc1 : tensor<128x128xf32> to tensor<128x128xbf16>
      txl.smem_store %h, %o : tensor<128x128xbf16>, !txl.smem<128x128xbf16>
      txl.fence_proxy_async
      txl.bar_wait 8, 256
      txl.tma_store %o, %descO[%m, %c0] : !txl.smem<128x128xbf16>, !txl.tensordesc<128x128xbf16>
      txl.tma_store_wait 0
    }
    return
  }
}
