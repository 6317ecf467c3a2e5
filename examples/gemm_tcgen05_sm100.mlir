//===- gemm_tcgen05_sm100.mlir - Blackwell tcgen05 GEMM, warp roles -------===//
//
// WHAT: C[M, N] = A[M, K] * B[N, K]^T, bf16 inputs (row-major, B stored N x K),
//   f32 accumulation in tensor memory (TMEM), bf16 output. Modelled on TXL's
//   matmul_persistent_tma_txl_bw_kernel6 ("blackwell_txl_ws_persistent").
//   Assumes K > 0 (the accumulator-ready barrier is signalled by the last
//   MMA of a tile).
//
// GRID: (min(#SMs, #tiles), 1, 1), persistent; #tiles = cdiv(M, 128) *
//   cdiv(N, 256), walked in GROUP_SIZE_M = 8 row groups (Triton's order).
//
// LAUNCH: 384 threads = 12 warps (txl.num_warps = 12; whole warpgroups).
//   warps 0..7  epilogue (two warpgroups). tcgen05.ld lets warp w reach
//               TMEM lanes 32 * (w % 4) .. + 31 only, so warps w and w + 4
//               share 32 rows and split the 256 columns: each thread holds
//               128 f32 of the 128 x 256 accumulator.
//   warp 8      MMA issuer: one thread issues tcgen05.mma (txl.dotx).
//   warp 9      TMA producer: one thread issues the loads.
//   warps 10,11 have no role (the warp count must be a multiple of 4).
//
// TILING: BLOCK 128 x 256 x 64 (one tcgen05.mma.cta_group::1 of M = 128,
//   N = 256 per k16 step), NUM_STAGES = 3 shared-memory stages of
//   A 128 x 64 (16 KB) + B 256 x 64 (32 KB), 128-byte swizzle.
//   TMEM: two 128 x 256 f32 accumulators = all 512 columns, so the epilogue
//   of tile t overlaps the mainloop of tile t + 1.
//   Shared memory: 3 x 48 KB + 64 KB C staging = 208 KB.
//
// SYNCHRONISATION (every ring runs across tiles; parity flips on wrap):
//   full[s]      (count 1)   TMA -> MMA: stage s loaded. Producer arms it
//                            with mbar_expect(49152 bytes); MMA warp waits,
//                            parity starting at 0.
//   empty[s]     (count 1)   MMA -> TMA: stage s consumed. Every dotx
//                            signals it through tcgen05.commit when the MMA
//                            (and so its shared-memory reads) completes.
//                            Producer waits, parity starting at 1 (the
//                            first pass over the ring does not block).
//   acc_full[a]  (count 1)   MMA -> epilogue: TMEM accumulator a holds a
//                            finished tile. Signalled by the commit of the
//                            tile's last dotx only (its predicate is
//                            kt == k_tiles - 1); a commit tracks every
//                            earlier tcgen05 op of the thread, so all the
//                            tile's MMAs are done. Epilogue waits, parity
//                            starting at 0.
//   acc_empty[a] (count 256) epilogue -> MMA: all 256 epilogue threads have
//                            copied accumulator a to registers. MMA warp
//                            waits before the first MMA of a tile into a,
//                            parity starting at 1.
//   The first dotx of a tile has use_d = false: TMEM is not zeroed, the
//   MMA overwrites it.
//
//===----------------------------------------------------------------------===//

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>

!descA = !txl.tensordesc<128x64xbf16, #sw128>
!descB = !txl.tensordesc<256x64xbf16, #sw128>
!descC = !txl.tensordesc<128x256xbf16, #sw128>    // moved as four 64-column boxes
!ringA = !txl.smem<128x64xbf16, stages = 3, #sw128>
!tileA = !txl.smem<128x64xbf16, #sw128>
!ringB = !txl.smem<256x64xbf16, stages = 3, #sw128>
!tileB = !txl.smem<256x64xbf16, #sw128>
!tileBT = !txl.smem<64x256xbf16, #sw128T>
!bufC = !txl.smem<128x256xbf16, stages = 1, #sw128>
!tileC = !txl.smem<128x256xbf16, #sw128>
!tmemAcc = !txl.tmem<128x256xf32, stages = 2>
!accView = !txl.tmem<128x256xf32>

module attributes {txl.target = "sm_100a"} {
  func.func @gemm_tcgen05_sm100(%desc_a: !descA, %desc_b: !descB, %desc_c: !descC,
                                %M: i32, %N: i32, %K: i32)
      attributes {txl.kernel, txl.num_warps = 12 : i32} {
    %true = arith.constant true
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32       // accumulator stages
    %c3 = arith.constant 3 : i32       // NUM_STAGES
    %c8 = arith.constant 8 : i32       // GROUP_SIZE_M
    %c64 = arith.constant 64 : i32     // BLOCK_K
    %c128 = arith.constant 128 : i32   // BLOCK_M
    %c256 = arith.constant 256 : i32   // BLOCK_N

    %pid = txl.program_id 0
    %nprog = txl.num_programs 0
    %num_pid_m = arith.ceildivsi %M, %c128 : i32
    %num_pid_n = arith.ceildivsi %N, %c256 : i32
    %num_tiles = arith.muli %num_pid_m, %num_pid_n : i32
    %num_pid_in_group = arith.muli %num_pid_n, %c8 : i32
    %k_tiles = arith.ceildivsi %K, %c64 : i32
    %k_last = arith.subi %k_tiles, %c1 : i32

    %a_ring = txl.smem_alloc : !ringA
    %b_ring = txl.smem_alloc : !ringB
    %c_buf = txl.smem_alloc : !bufC
    %tacc = txl.tmem_alloc : !tmemAcc
    %full = txl.mbar_alloc count 1 : !txl.mbar<3>
    %empty = txl.mbar_alloc count 1 : !txl.mbar<3>
    %acc_full = txl.mbar_alloc count 1 : !txl.mbar<2>
    %acc_empty = txl.mbar_alloc count 256 : !txl.mbar<2>

    //===------------------------------------------------------------------===//
    // Warps 0..7: epilogue. TMEM -> registers -> bf16 -> shared -> TMA store.
    //===------------------------------------------------------------------===//
    %is_epilogue = txl.is_warp [0, 1, 2, 3, 4, 5, 6, 7]
    scf.if %is_epilogue {
      %c_tile = txl.get_buffer %c_buf[%c0] : !bufC
      %ering:2 = scf.for %tile = %pid to %num_tiles step %nprog
          iter_args(%a = %c0, %aphase = %c0) -> (i32, i32) : i32 {
        %group_id = arith.divsi %tile, %num_pid_in_group : i32
        %first_pid_m = arith.muli %group_id, %c8 : i32
        %rows_left = arith.subi %num_pid_m, %first_pid_m : i32
        %group_size_m = arith.minsi %rows_left, %c8 : i32
        %in_group = arith.remsi %tile, %num_pid_in_group : i32
        %pid_m_in = arith.remsi %in_group, %group_size_m : i32
        %pid_m = arith.addi %first_pid_m, %pid_m_in : i32
        %pid_n = arith.divsi %in_group, %group_size_m : i32
        %off_m = arith.muli %pid_m, %c128 : i32
        %off_n = arith.muli %pid_n, %c256 : i32

        // Wait for the MMA warp to finish this tile's accumulator.
        %af = txl.get_buffer %acc_full[%a] : !txl.mbar<2>
        txl.mbar_wait %af, %aphase : i32
        %acc_tm = txl.get_buffer %tacc[%a] : !tmemAcc
        %acc = txl.tmem_load %acc_tm : !accView -> tensor<128x256xf32>
        // The values are in registers (the load waits for tcgen05.ld):
        // hand TMEM stage a back to the MMA warp for tile t + 2.
        %ae = txl.get_buffer %acc_empty[%a] : !txl.mbar<2>
        txl.mbar_arrive %ae

        %c_val = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xbf16>
        // The previous tile's store must have read the staging tile.
        txl.tma_store_wait 0
        txl.smem_store %c_val, %c_tile : tensor<128x256xbf16>, !tileC
        txl.fence_proxy_async
        txl.tma_store %c_tile, %desc_c[%off_m, %off_n] : !tileC, !descC

        %a_inc = arith.addi %a, %c1 : i32
        %a_wrap = arith.cmpi eq, %a_inc, %c2 : i32
        %a_next = arith.select %a_wrap, %c0, %a_inc : i32
        %aphase_flip = arith.xori %aphase, %c1 : i32
        %aphase_next = arith.select %a_wrap, %aphase_flip, %aphase : i32
        scf.yield %a_next, %aphase_next : i32, i32
      }
      txl.tma_store_wait 0
    }

    //===------------------------------------------------------------------===//
    // Warp 8: MMA issuer.
    //===------------------------------------------------------------------===//
    %is_mma = txl.is_warp [8]
    scf.if %is_mma {
      %mring:4 = scf.for %tile = %pid to %num_tiles step %nprog
          iter_args(%s0 = %c0, %phase0 = %c0, %a = %c0, %aphase = %c1)
          -> (i32, i32, i32, i32) : i32 {
        // Accumulator a must have been drained by the epilogue (tile t - 2).
        %ae = txl.get_buffer %acc_empty[%a] : !txl.mbar<2>
        txl.mbar_wait %ae, %aphase : i32
        %acc_tm = txl.get_buffer %tacc[%a] : !tmemAcc
        %af = txl.get_buffer %acc_full[%a] : !txl.mbar<2>

        %kring:2 = scf.for %kt = %c0 to %k_tiles step %c1
            iter_args(%s = %s0, %phase = %phase0) -> (i32, i32) : i32 {
          %f = txl.get_buffer %full[%s] : !txl.mbar<3>
          txl.mbar_wait %f, %phase : i32
          %a_t = txl.get_buffer %a_ring[%s] : !ringA
          %b_t = txl.get_buffer %b_ring[%s] : !ringB
          %bT = txl.smem_trans %b_t [1, 0] : !tileB -> !tileBT
          %e = txl.get_buffer %empty[%s] : !txl.mbar<3>
          // First K step overwrites the accumulator; the last one also
          // signals acc_full.
          %use_d = arith.cmpi ne, %kt, %c0 : i32
          %is_last = arith.cmpi eq, %kt, %k_last : i32
          txl.dotx %a_t, %bT, %acc_tm use_d %use_d mbars(%e, %af) preds(%true, %is_last)
              : !tileA, !tileBT, !accView

          %s_inc = arith.addi %s, %c1 : i32
          %wrap = arith.cmpi eq, %s_inc, %c3 : i32
          %s_next = arith.select %wrap, %c0, %s_inc : i32
          %phase_flip = arith.xori %phase, %c1 : i32
          %phase_next = arith.select %wrap, %phase_flip, %phase : i32
          scf.yield %s_next, %phase_next : i32, i32
        }

        %a_inc = arith.addi %a, %c1 : i32
        %a_wrap = arith.cmpi eq, %a_inc, %c2 : i32
        %a_next = arith.select %a_wrap, %c0, %a_inc : i32
        %aphase_flip = arith.xori %aphase, %c1 : i32
        %aphase_next = arith.select %a_wrap, %aphase_flip, %aphase : i32
        scf.yield %kring#0, %kring#1, %a_next, %aphase_next : i32, i32, i32, i32
      }
    }

    //===------------------------------------------------------------------===//
    // Warp 9: TMA producer.
    //===------------------------------------------------------------------===//
    %is_producer = txl.is_warp [9]
    scf.if %is_producer {
      %pring:2 = scf.for %tile = %pid to %num_tiles step %nprog
          iter_args(%s0 = %c0, %phase0 = %c1) -> (i32, i32) : i32 {
        %group_id = arith.divsi %tile, %num_pid_in_group : i32
        %first_pid_m = arith.muli %group_id, %c8 : i32
        %rows_left = arith.subi %num_pid_m, %first_pid_m : i32
        %group_size_m = arith.minsi %rows_left, %c8 : i32
        %in_group = arith.remsi %tile, %num_pid_in_group : i32
        %pid_m_in = arith.remsi %in_group, %group_size_m : i32
        %pid_m = arith.addi %first_pid_m, %pid_m_in : i32
        %pid_n = arith.divsi %in_group, %group_size_m : i32
        %off_m = arith.muli %pid_m, %c128 : i32
        %off_n = arith.muli %pid_n, %c256 : i32

        %kring:2 = scf.for %kt = %c0 to %k_tiles step %c1
            iter_args(%s = %s0, %phase = %phase0) -> (i32, i32) : i32 {
          %e = txl.get_buffer %empty[%s] : !txl.mbar<3>
          txl.mbar_wait %e, %phase : i32
          %f = txl.get_buffer %full[%s] : !txl.mbar<3>
          %a_t = txl.get_buffer %a_ring[%s] : !ringA
          %b_t = txl.get_buffer %b_ring[%s] : !ringB
          %k_off = arith.muli %kt, %c64 : i32
          // 16384 (A) + 32768 (B) bytes.
          txl.mbar_expect %f, 49152
          txl.tma_load %desc_a[%off_m, %k_off], %a_t, %f : !descA, !tileA
          txl.tma_load %desc_b[%off_n, %k_off], %b_t, %f : !descB, !tileB

          %s_inc = arith.addi %s, %c1 : i32
          %wrap = arith.cmpi eq, %s_inc, %c3 : i32
          %s_next = arith.select %wrap, %c0, %s_inc : i32
          %phase_flip = arith.xori %phase, %c1 : i32
          %phase_next = arith.select %wrap, %phase_flip, %phase : i32
          scf.yield %s_next, %phase_next : i32, i32
        }
        scf.yield %kring#0, %kring#1 : i32, i32
      }
    }
    return
  }
}
