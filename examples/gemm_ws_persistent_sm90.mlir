//===- gemm_ws_persistent_sm90.mlir - warp-specialized persistent GEMM ----===//
//
// WHAT: C[M, N] = A[M, K] * B[N, K]^T, bf16 inputs (row-major, B stored N x K),
//   f32 accumulation, bf16 output. The Hopper kernel of TXL's matmul tutorial
//   (matmul_persistent_ws_tma_txl_kernel, "hopper_txl_ws_persistent").
//
// GRID: (min(#SMs, #tiles), 1, 1), persistent. #tiles = cdiv(M, 128) *
//   cdiv(N, 256). Block b handles tiles b, b + num_programs, b + 2 *
//   num_programs, ... Tiles are numbered in GROUP_SIZE_M = 8 row groups
//   (Triton's grouped order), so blocks running at the same time share
//   A rows and B columns in L2.
//
// LAUNCH: 384 threads = 12 warps = 3 warpgroups (txl.num_warps = 12).
//   WG0       producer: gives registers back (setmaxnreg.dec 40), issues
//             all TMA loads from one elected thread.
//   WG1, WG2  consumers: take registers (setmaxnreg.inc 232; 40 * 128 +
//             232 * 256 = 64512 <= 65536 registers). WG1 computes rows
//             0..63 of the tile, WG2 rows 64..127, both with the full 256
//             columns: a 64 x 256 f32 accumulator = 128 registers/thread.
//
// TILING: BLOCK 128 x 256 x 64, NUM_STAGES = 3. Per stage the producer loads
//   A as two 64 x 64 halves (one per consumer) and B as one 256 x 64 tile:
//   8 KB + 8 KB + 32 KB = 48 KB. 64 bf16 of K = 128 bytes = one 128-byte
//   swizzle atom, so every tile is #txl.nvmma_shared<swizzle = 128>.
//   Shared memory: 3 x 48 KB ring + 2 x 32 KB C staging (one 64 x 256 bf16
//   tile per consumer) = 208 KB.
//
// SYNCHRONISATION (all rings are advanced across tiles, never reset):
//   full[s]  (count 1), s = 0..2: "stage s holds A0, A1 and B of the next K
//            step". The producer arms it with mbar_expect(49152 bytes); the
//            three TMA loads complete it. Consumers wait on it with a parity
//            that starts at 0 and flips each time s wraps to 0.
//   empty[s] (count 256): "both consumers are done reading stage s". Every
//            consumer thread (2 x 128) arrives after its wgmma on the stage
//            retired (dot_wait 0). The producer waits on it before
//            refilling the stage, with a parity that starts at 1: on the
//            first pass over the ring the barrier is still in its initial
//            phase, and a wait for parity 1 (the phase "before" it)
//            returns at once, so the producer can fill all 3 stages.
//   C staging: each consumer waits for its previous TMA store to finish
//            reading shared memory (tma_store_wait 0) before overwriting
//            its staging tile; the store itself overlaps the next tile's
//            mainloop.
//
//===----------------------------------------------------------------------===//

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>

!descA = !txl.tensordesc<64x64xbf16, #sw128>      // one A half: 64 rows x 64 K
!descB = !txl.tensordesc<256x64xbf16, #sw128>     // B: 256 rows (N) x 64 K
!descC = !txl.tensordesc<64x256xbf16, #sw128>     // one consumer's C half
!ringA = !txl.smem<64x64xbf16, stages = 3, #sw128>
!tileA = !txl.smem<64x64xbf16, #sw128>
!ringB = !txl.smem<256x64xbf16, stages = 3, #sw128>
!tileB = !txl.smem<256x64xbf16, #sw128>
!tileBT = !txl.smem<64x256xbf16, #sw128T>
!stageC = !txl.smem<64x256xbf16, stages = 2, #sw128>
!tileC = !txl.smem<64x256xbf16, #sw128>
!acc = tensor<64x256xf32>

module attributes {txl.target = "sm_90a"} {
  func.func @gemm_ws_persistent_sm90(%desc_a: !descA, %desc_b: !descB, %desc_c: !descC,
                                     %M: i32, %N: i32, %K: i32)
      attributes {txl.kernel, txl.num_warps = 12 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c3 = arith.constant 3 : i32       // NUM_STAGES
    %c8 = arith.constant 8 : i32       // GROUP_SIZE_M
    %c64 = arith.constant 64 : i32     // BLOCK_K, and BLOCK_M / 2
    %c128 = arith.constant 128 : i32   // BLOCK_M
    %c256 = arith.constant 256 : i32   // BLOCK_N

    %pid = txl.program_id 0
    %nprog = txl.num_programs 0
    %num_pid_m = arith.ceildivsi %M, %c128 : i32
    %num_pid_n = arith.ceildivsi %N, %c256 : i32
    %num_tiles = arith.muli %num_pid_m, %num_pid_n : i32
    %num_pid_in_group = arith.muli %num_pid_n, %c8 : i32
    %k_tiles = arith.ceildivsi %K, %c64 : i32

    // Shared memory and barriers, allocated by the whole block.
    %a0_ring = txl.smem_alloc : !ringA                 // rows 0..63 of the A tile
    %a1_ring = txl.smem_alloc : !ringA                 // rows 64..127
    %b_ring = txl.smem_alloc : !ringB
    %c_stage = txl.smem_alloc : !stageC                // [0]: WG1, [1]: WG2
    %full = txl.mbar_alloc count 1 : !txl.mbar<3>
    %empty = txl.mbar_alloc count 256 : !txl.mbar<3>

    //===------------------------------------------------------------------===//
    // WG0: TMA producer.
    //===------------------------------------------------------------------===//
    %is_producer = txl.is_warpgroup [0]
    scf.if %is_producer {
      txl.reg_dealloc 40
      %ring:2 = scf.for %tile = %pid to %num_tiles step %nprog
          iter_args(%s0 = %c0, %phase0 = %c1) -> (i32, i32) : i32 {
        // Grouped tile order -> (off_m, off_n).
        %group_id = arith.divsi %tile, %num_pid_in_group : i32
        %first_pid_m = arith.muli %group_id, %c8 : i32
        %rows_left = arith.subi %num_pid_m, %first_pid_m : i32
        %group_size_m = arith.minsi %rows_left, %c8 : i32
        %in_group = arith.remsi %tile, %num_pid_in_group : i32
        %pid_m_in = arith.remsi %in_group, %group_size_m : i32
        %pid_m = arith.addi %first_pid_m, %pid_m_in : i32
        %pid_n = arith.divsi %in_group, %group_size_m : i32
        %off_m = arith.muli %pid_m, %c128 : i32
        %off_m_hi = arith.addi %off_m, %c64 : i32
        %off_n = arith.muli %pid_n, %c256 : i32

        %kring:2 = scf.for %kt = %c0 to %k_tiles step %c1
            iter_args(%s = %s0, %phase = %phase0) -> (i32, i32) : i32 {
          // Wait until both consumers released stage s (trivially true on
          // the first pass over the ring: phase starts at 1).
          %e = txl.get_buffer %empty[%s] : !txl.mbar<3>
          txl.mbar_wait %e, %phase : i32
          %f = txl.get_buffer %full[%s] : !txl.mbar<3>
          %a0 = txl.get_buffer %a0_ring[%s] : !ringA
          %a1 = txl.get_buffer %a1_ring[%s] : !ringA
          %b = txl.get_buffer %b_ring[%s] : !ringB
          %k_off = arith.muli %kt, %c64 : i32
          // 8192 (A0) + 8192 (A1) + 32768 (B) bytes.
          txl.mbar_expect %f, 49152
          txl.tma_load %desc_a[%off_m, %k_off], %a0, %f : !descA, !tileA
          txl.tma_load %desc_a[%off_m_hi, %k_off], %a1, %f : !descA, !tileA
          txl.tma_load %desc_b[%off_n, %k_off], %b, %f : !descB, !tileB

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

    //===------------------------------------------------------------------===//
    // WG1, WG2: wgmma consumers, 64 rows each.
    //===------------------------------------------------------------------===//
    %is_consumer = txl.is_warpgroup [1, 2]
    scf.if %is_consumer {
      txl.reg_alloc 232
      // Per-consumer data: #0 the A half it multiplies, #1 the row offset of
      // its half inside the tile, #2 the index of its C staging tile.
      %is_wg1 = txl.is_warpgroup [1]
      %mine:3 = scf.if %is_wg1 -> (!ringA, i32, i32) {
        scf.yield %a0_ring, %c0, %c0 : !ringA, i32, i32
      } else {
        scf.yield %a1_ring, %c64, %c1 : !ringA, i32, i32
      }
      %c_tile = txl.get_buffer %c_stage[%mine#2] : !stageC
      %zero = arith.constant dense<0.000000e+00> : !acc

      %ring:2 = scf.for %tile = %pid to %num_tiles step %nprog
          iter_args(%s0 = %c0, %phase0 = %c0) -> (i32, i32) : i32 {
        // Same grouped tile order as the producer.
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

        %kloop:3 = scf.for %kt = %c0 to %k_tiles step %c1
            iter_args(%acc = %zero, %s = %s0, %phase = %phase0) -> (!acc, i32, i32) : i32 {
          %f = txl.get_buffer %full[%s] : !txl.mbar<3>
          txl.mbar_wait %f, %phase : i32
          %a = txl.get_buffer %mine#0[%s] : !ringA
          %b = txl.get_buffer %b_ring[%s] : !ringB
          %bT = txl.smem_trans %b [1, 0] : !tileB -> !tileBT
          // 64 x 256 x 64: four m64n256k16 wgmmas.
          %acc_issued = txl.dot %a, %bT, %acc {async} : !tileA, !tileBT, !acc
          %acc_next = txl.dot_wait 0, %acc_issued : !acc
          // The wgmma has read stage s: release it to the producer.
          %e = txl.get_buffer %empty[%s] : !txl.mbar<3>
          txl.mbar_arrive %e

          %s_inc = arith.addi %s, %c1 : i32
          %wrap = arith.cmpi eq, %s_inc, %c3 : i32
          %s_next = arith.select %wrap, %c0, %s_inc : i32
          %phase_flip = arith.xori %phase, %c1 : i32
          %phase_next = arith.select %wrap, %phase_flip, %phase : i32
          scf.yield %acc_next, %s_next, %phase_next : !acc, i32, i32
        }

        // Epilogue of this tile: this consumer's 64 x 256 half.
        %c_val = arith.truncf %kloop#0 : !acc to tensor<64x256xbf16>
        // The previous tile's TMA store must have finished reading the
        // staging tile before it is overwritten.
        txl.tma_store_wait 0
        txl.smem_store %c_val, %c_tile : tensor<64x256xbf16>, !tileC
        txl.fence_proxy_async
        %row = arith.addi %off_m, %mine#1 : i32
        txl.tma_store %c_tile, %desc_c[%row, %off_n] : !tileC, !descC
        scf.yield %kloop#1, %kloop#2 : i32, i32
      }
      // Drain the last store before the block (and its shared memory) exits.
      txl.tma_store_wait 0
    }
    return
  }
}
