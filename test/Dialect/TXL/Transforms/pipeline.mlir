// RUN: txl-opt %s --txl-software-pipeliner=dump-intermediate-steps=1 2>&1 | FileCheck %s --check-prefix=DUMP
// RUN: txl-opt %s --txl-software-pipeliner | FileCheck %s --implicit-check-not='{{txl\.(smem_alloc|get_buffer|mbar_alloc|mbar_expect|mbar_wait|mbar_arrive|tma_load|tma_store|tma_store_wait|fence_proxy_async|smem_load|smem_store|smem_index|smem_subslice|smem_trans|smem_reshape|dot|dot_wait)[^_a-z]}}'
// RUN: txl-opt %s --txl-software-pipeliner --convert-scf-to-cf --convert-txl-to-nvvm | FileCheck %s --check-prefix=LLVM

// A small pipelined GEMM (64x64x64 tiles, one stage: TMA loads into buffers
// without encodings, mbarrier, async wgmma on a transposed view, dot_wait 0,
// epilogue through shared memory and a TMA store).
//
// The DUMP run: the stages run in order, each printing the IR after it, and
// each removes its ops. The default run: the full pipeline leaves no txl op
// that a stage should have lowered; only ops convert-txl-to-nvvm handles
// (txl.program_id here) stay. The LLVM run: that conversion then succeeds.

// DUMP: // -----// After txl-assign-layouts //----- //
// DUMP: txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1>
// DUMP: arith.constant dense<0.000000e+00> : tensor<64x64xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>>
// DUMP: // -----// After txl-smem-allocs //----- //
// DUMP-NOT: txl.smem_alloc
// DUMP: txl.mbar_alloc count 1 {txl.offset = {{[0-9]+}} : i64} : !txl.mbar<1>
// DUMP-NOT: txl.smem_alloc
// DUMP: // -----// After txl-mbars //----- //
// DUMP-NOT: txl.mbar_
// DUMP: nvvm.mbarrier.init
// DUMP-NOT: txl.mbar_
// DUMP: txl.tma_load
// DUMP-NOT: txl.mbar_
// DUMP: // -----// After txl-lower-loads //----- //
// DUMP-NOT: txl.tma_
// DUMP: nvvm.cp.async.bulk.tensor.shared.cluster.global
// DUMP-NOT: txl.tma_
// DUMP: txl.smem_store
// DUMP-NOT: txl.tma_
// DUMP: // -----// After txl-lower-smem-load-stores //----- //
// DUMP-NOT: txl.smem_store
// DUMP: txl.smem_trans
// DUMP-NOT: txl.smem_store
// DUMP: nvvm.stmatrix
// DUMP-NOT: txl.smem_store
// DUMP: // -----// After txl-mem-desc //----- //
// DUMP-NOT: txl.smem_trans
// DUMP: txl.dot
// DUMP-NOT: txl.smem_trans
// DUMP: // -----// After txl-wgmma //----- //
// DUMP-NOT: {{txl\.dot[^_]}}
// DUMP: nvvm.wgmma.mma_async
// DUMP-NOT: {{txl\.dot[^_]}}
// DUMP: "wgmma.wait_group.sync.aligned 0;"
// DUMP: // -----// After txl-vectorize-accesses //----- //
// DUMP-NOT: After

// CHECK: llvm.mlir.global external @txl_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: func.func @small_gemm
// CHECK-SAME: txl.shared_bytes =
// CHECK: txl.program_id 0
// CHECK: txl.program_id 1
// CHECK: nvvm.mbarrier.init
// CHECK: nvvm.barrier0
// CHECK: scf.for
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: "wgmma.wait_group.sync.aligned 0;"
// CHECK: scf.yield
// CHECK: arith.truncf
// CHECK: nvvm.stmatrix
// CHECK: nvvm.fence.proxy
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: return

// LLVM: llvm.func @small_gemm(
// LLVM-SAME: nvvm.grid_constant
// LLVM-SAME: nvvm.kernel
// LLVM-NOT: {{(= |^ *)txl\.}}
// LLVM: llvm.return

#sw128 = #txl.nvmma_shared<swizzle = 128>
module attributes {txl.target = "sm_90a"} {
  func.func @small_gemm(%desc_a: !txl.tensordesc<64x64xbf16, #sw128>, %desc_b: !txl.tensordesc<64x64xbf16, #sw128>,
                        %desc_c: !txl.tensordesc<64x64xbf16, #sw128>, %K: i32)
      attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %pid_m = txl.program_id 0
    %pid_n = txl.program_id 1
    %off_m = arith.muli %pid_m, %c64 : i32
    %off_n = arith.muli %pid_n, %c64 : i32
    %k_tiles = arith.ceildivsi %K, %c64 : i32
    %a_buf = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1>
    %b_buf = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1>
    %full = txl.mbar_alloc count 1 : !txl.mbar<1>
    %c_buf = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %loop:2 = scf.for %kt = %c0 to %k_tiles step %c1 iter_args(%acc = %zero, %phase = %c0) -> (tensor<64x64xf32>, i32) : i32 {
      %bar = txl.get_buffer %full[%c0] : !txl.mbar<1>
      %a = txl.get_buffer %a_buf[%c0] : !txl.smem<64x64xbf16, stages = 1>
      %b = txl.get_buffer %b_buf[%c0] : !txl.smem<64x64xbf16, stages = 1>
      %k_off = arith.muli %kt, %c64 : i32
      txl.mbar_expect %bar, 16384
      txl.tma_load %desc_a[%off_m, %k_off], %a, %bar : !txl.tensordesc<64x64xbf16, #sw128>, !txl.smem<64x64xbf16>
      txl.tma_load %desc_b[%off_n, %k_off], %b, %bar : !txl.tensordesc<64x64xbf16, #sw128>, !txl.smem<64x64xbf16>
      txl.mbar_wait %bar, %phase : i32
      %bT = txl.smem_trans %b [1, 0] : !txl.smem<64x64xbf16> -> !txl.smem<64x64xbf16>
      %acc_next = txl.dot %a, %bT, %acc {async} : !txl.smem<64x64xbf16>, !txl.smem<64x64xbf16>, tensor<64x64xf32>
      txl.dot_wait 0
      %phase_next = arith.xori %phase, %c1 : i32
      scf.yield %acc_next, %phase_next : tensor<64x64xf32>, i32
    }
    %c_val = arith.truncf %loop#0 : tensor<64x64xf32> to tensor<64x64xbf16>
    %c_tile = txl.get_buffer %c_buf[%c0] : !txl.smem<64x64xbf16, stages = 1>
    txl.smem_store %c_val, %c_tile : tensor<64x64xbf16>, !txl.smem<64x64xbf16>
    txl.fence_proxy_async
    txl.tma_store %c_tile, %desc_c[%off_m, %off_n] : !txl.smem<64x64xbf16>, !txl.tensordesc<64x64xbf16, #sw128>
    txl.tma_store_wait 0
    return
  }
}
