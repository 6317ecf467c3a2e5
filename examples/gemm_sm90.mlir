//===- gemm_sm90.mlir - pipelined TMA + wgmma GEMM, one warpgroup ---------===//
//
// WHAT: C[M, N] = A[M, K] * B[N, K]^T. A and B are bf16 and row-major (B is
//   stored N x K, as in TXL's matmul tutorial), products accumulate in f32
//   registers, C is written back as bf16.
//
// GRID: (cdiv(M, 128), cdiv(N, 128), 1). program_id 0 picks the 128-row block
//   of C, program_id 1 the 128-column block. M and N are not needed in the
//   body: TMA clips the boxes that hang over the edge of A, B and C (loads
//   fill zeros, stores drop the outside part).
//
// LAUNCH: 128 threads = 4 warps = 1 warpgroup (txl.num_warps = 4), no warp
//   specialization: the same threads issue the TMA loads and the wgmmas.
//   Shared memory: 3 x (16 KB A + 16 KB B) + 32 KB C staging = 128 KB.
//
// TILING: BLOCK_M x BLOCK_N x BLOCK_K = 128 x 128 x 64, NUM_STAGES = 3.
//   One 64-element K slice of a bf16 row is 128 bytes, exactly one
//   128-byte swizzle atom, so TMA writes and wgmma reads the tiles in
//   #txl.nvmma_shared<swizzle = 128>. wgmma works on 64 rows per
//   instruction; txl.dot with M = 128 lets the compiler issue two
//   m64n128k16 rows of instructions per k16 step from the same warpgroup.
//   The accumulator is 128 x 128 f32 = 128 registers per thread.
//
// PIPELINE (the non-warp-specialized TXL kernels, e.g. _attn_fwd_tma_txl):
//   prologue   load K tiles 0 and 1 (NUM_STAGES - 1) into stages 0 and 1.
//   iteration kt:
//     wait full[kt % 3]                      tile kt has landed
//     acc = dot(A[kt % 3], B[kt % 3]^T, acc)  async wgmma
//     dot_wait 1                             only dot(kt) may still run, so
//                                            dot(kt - 1) has finished reading
//                                            stage (kt - 1) % 3 == (kt + 2) % 3
//     load tile kt + 2 into stage (kt + 2) % 3 (if it exists)
//   epilogue   dot_wait 0, truncf, smem_store, fence, tma_store.
//
// SYNCHRONISATION:
//   full[s] (mbarrier, arrival count 1), s = 0..2: "stage s holds its K
//     tile". One thread arms it with mbar_expect (32768 bytes = A tile +
//     B tile, which is also its single arrival); the two TMA loads complete
//     the transaction bytes. It completes once per use of the stage, so the
//     consumer waits with a parity bit that starts at 0 and flips each time
//     the stage index wraps from 2 back to 0.
//   There is no "empty" barrier: the producer and the consumer are the same
//   threads, and dot_wait 1 proves that the wgmma that read the stage about
//   to be refilled has retired. The same wait also proves that every warp
//   has passed its mbar_wait on that stage (each warp issued the retired
//   wgmma after its wait), so re-arming full[s] cannot race a late waiter.
//
//===----------------------------------------------------------------------===//

#sw128 = #txl.nvmma_shared<swizzle = 128>
// The transposed view of a K-major tile (how wgmma sees B^T).
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>

!descAB = !txl.tensordesc<128x64xbf16, #sw128>    // A and B boxes: 128 rows x 64 K
!descC = !txl.tensordesc<128x128xbf16, #sw128>    // C box (moved as two 64-column boxes)
!ringAB = !txl.smem<128x64xbf16, stages = 3, #sw128>
!tileAB = !txl.smem<128x64xbf16, #sw128>
!tileBT = !txl.smem<64x128xbf16, #sw128T>
!bufC = !txl.smem<128x128xbf16, stages = 1, #sw128>
!tileC = !txl.smem<128x128xbf16, #sw128>
!acc = tensor<128x128xf32>

module attributes {txl.target = "sm_90a"} {
  func.func @gemm_sm90(%desc_a: !descAB, %desc_b: !descAB, %desc_c: !descC,
                       %M: i32, %N: i32, %K: i32)
      attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32       // NUM_STAGES
    %c64 = arith.constant 64 : i32     // BLOCK_K
    %c128 = arith.constant 128 : i32   // BLOCK_M = BLOCK_N

    // Tile coordinates.
    %pid_m = txl.program_id 0
    %pid_n = txl.program_id 1
    %off_m = arith.muli %pid_m, %c128 : i32
    %off_n = arith.muli %pid_n, %c128 : i32
    %k_tiles = arith.ceildivsi %K, %c64 : i32

    // Shared memory: the 3-stage A/B ring, its "full" barriers, the C tile.
    %a_ring = txl.smem_alloc : !ringAB
    %b_ring = txl.smem_alloc : !ringAB
    %full = txl.mbar_alloc count 1 : !txl.mbar<3>
    %c_buf = txl.smem_alloc : !bufC

    // ---- Prologue: NUM_STAGES - 1 = 2 loads in flight before the first MMA.
    // Guarded so that a K of one tile does not leave a TMA load running
    // into shared memory when the block exits.
    %has_t0 = arith.cmpi sgt, %k_tiles, %c0 : i32
    scf.if %has_t0 {
      %bar = txl.get_buffer %full[%c0] : !txl.mbar<3>
      %a = txl.get_buffer %a_ring[%c0] : !ringAB
      %b = txl.get_buffer %b_ring[%c0] : !ringAB
      txl.mbar_expect %bar, 32768
      txl.tma_load %desc_a[%off_m, %c0], %a, %bar : !descAB, !tileAB
      txl.tma_load %desc_b[%off_n, %c0], %b, %bar : !descAB, !tileAB
    }
    %has_t1 = arith.cmpi sgt, %k_tiles, %c1 : i32
    scf.if %has_t1 {
      %bar = txl.get_buffer %full[%c1] : !txl.mbar<3>
      %a = txl.get_buffer %a_ring[%c1] : !ringAB
      %b = txl.get_buffer %b_ring[%c1] : !ringAB
      txl.mbar_expect %bar, 32768
      txl.tma_load %desc_a[%off_m, %c64], %a, %bar : !descAB, !tileAB
      txl.tma_load %desc_b[%off_n, %c64], %b, %bar : !descAB, !tileAB
    }

    // ---- Main loop over K tiles.
    // Carried: the accumulator, the stage to consume and its parity, the
    // stage to refill next (always (kt + 2) % 3).
    %zero = arith.constant dense<0.000000e+00> : !acc
    %loop:4 = scf.for %kt = %c0 to %k_tiles step %c1
        iter_args(%acc = %zero, %cs = %c0, %cphase = %c0, %ps = %c2)
        -> (!acc, i32, i32, i32) : i32 {
      // Consume tile kt from stage cs.
      %bar = txl.get_buffer %full[%cs] : !txl.mbar<3>
      txl.mbar_wait %bar, %cphase : i32
      %a = txl.get_buffer %a_ring[%cs] : !ringAB
      %b = txl.get_buffer %b_ring[%cs] : !ringAB
      %bT = txl.smem_trans %b [1, 0] : !tileAB -> !tileBT
      %acc_next = txl.dot %a, %bT, %acc {async} : !tileAB, !tileBT, !acc
      // Keep one wgmma group in flight: dot(kt - 1) is done after this, so
      // its stage (== ps) may be overwritten. The accumulator of dot(kt) is
      // still being written; it only feeds the next dot, which is allowed.
      txl.dot_wait 1

      // Refill stage ps with tile kt + 2.
      %kn = arith.addi %kt, %c2 : i32
      %has_next = arith.cmpi slt, %kn, %k_tiles : i32
      scf.if %has_next {
        %pbar = txl.get_buffer %full[%ps] : !txl.mbar<3>
        %pa = txl.get_buffer %a_ring[%ps] : !ringAB
        %pb = txl.get_buffer %b_ring[%ps] : !ringAB
        %k_off = arith.muli %kn, %c64 : i32
        txl.mbar_expect %pbar, 32768
        txl.tma_load %desc_a[%off_m, %k_off], %pa, %pbar : !descAB, !tileAB
        txl.tma_load %desc_b[%off_n, %k_off], %pb, %pbar : !descAB, !tileAB
      }

      // Advance the consumer: next stage, parity flips on wrap-around.
      %cs_inc = arith.addi %cs, %c1 : i32
      %c_wrap = arith.cmpi eq, %cs_inc, %c3 : i32
      %cs_next = arith.select %c_wrap, %c0, %cs_inc : i32
      %cphase_flip = arith.xori %cphase, %c1 : i32
      %cphase_next = arith.select %c_wrap, %cphase_flip, %cphase : i32
      // Advance the producer stage.
      %ps_inc = arith.addi %ps, %c1 : i32
      %p_wrap = arith.cmpi eq, %ps_inc, %c3 : i32
      %ps_next = arith.select %p_wrap, %c0, %ps_inc : i32
      scf.yield %acc_next, %cs_next, %cphase_next, %ps_next : !acc, i32, i32, i32
    }

    // ---- Epilogue: retire the last wgmma, convert, stage in shared memory,
    // TMA-store the 128 x 128 tile.
    %acc_done = txl.dot_wait 0, %loop#0 : !acc
    %c_val = arith.truncf %acc_done : !acc to tensor<128x128xbf16>
    %c_tile = txl.get_buffer %c_buf[%c0] : !bufC
    txl.smem_store %c_val, %c_tile : tensor<128x128xbf16>, !tileC
    // Generic-proxy writes (st.shared) must be visible to the TMA engine
    // (async proxy). The lowering also makes every thread's store land
    // before the one elected thread issues the bulk copy.
    txl.fence_proxy_async
    txl.tma_store %c_tile, %desc_c[%off_m, %off_n] : !tileC, !descC
    // Shared memory must stay valid until TMA has read it.
    txl.tma_store_wait 0
    return
  }
}
