// Blackwell: tensor memory, tcgen05 MMA, gather4, warp roles, cp.async.
module attributes {txl.target = "sm_100a"} {
  func.func @bw(%desc: !txl.tensordesc<1x64xbf16>, %rows: tensor<8xi32>, %col: i32,
                %ptrs: tensor<64x64x!txl.ptr<bf16>>, %m: tensor<64x64xi1>, %peer: i32) {
    %c0 = arith.constant 0 : i32
    %true = arith.constant true
    %acc = txl.tmem_alloc : !txl.tmem<128x256xf32, stages = 2>
    %a = txl.get_buffer %acc[%c0] : !txl.tmem<128x256xf32, stages = 2>
    %t = txl.tmem_load %a : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
    txl.tmem_store %t, %a : tensor<128x256xf32>, !txl.tmem<128x256xf32>
    %sa = txl.smem_alloc : !txl.smem<128x64xbf16, stages = 2>
    %sb = txl.smem_alloc : !txl.smem<64x256xbf16, stages = 2>
    %g = txl.smem_alloc : !txl.smem<8x64xbf16, stages = 1>
    %ca = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1>
    %bars = txl.mbar_alloc count 1 : !txl.mbar<2>
    %av = txl.get_buffer %sa[%c0] : !txl.smem<128x64xbf16, stages = 2>
    %bv = txl.get_buffer %sb[%c0] : !txl.smem<64x256xbf16, stages = 2>
    %gv = txl.get_buffer %g[%c0] : !txl.smem<8x64xbf16, stages = 1>
    %cv = txl.get_buffer %ca[%c0] : !txl.smem<64x64xbf16, stages = 1>
    %bar = txl.get_buffer %bars[%c0] : !txl.mbar<2>
    %mma = txl.is_warp [8]
    scf.if %mma {
      txl.dotx %av, %bv, %a use_d %true mbars(%bar) preds(%true) : !txl.smem<128x64xbf16>, !txl.smem<64x256xbf16>, !txl.tmem<128x256xf32>
    }
    txl.tma_gather %desc[%rows, %col], %gv, %bar : !txl.tensordesc<1x64xbf16>, tensor<8xi32>, !txl.smem<8x64xbf16>
    txl.async_load %ptrs, %cv mask %m : tensor<64x64xi1> {contiguity = 8 : i32} : tensor<64x64x!txl.ptr<bf16>>, !txl.smem<64x64xbf16>
    txl.mbar_arrive %bar {track_async_op}
    txl.async_load_wait 0
    txl.mbar_arrive %bar pred %true remote %peer {tx_count = 0 : i32}
    txl.bar_arrive 9, 256
    return
  }
}
