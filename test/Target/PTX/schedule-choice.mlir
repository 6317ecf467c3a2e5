// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: txlc %s --arch=sm_90a --emit=cubin -o %t/d64.ptx
// RUN: FileCheck %s --check-prefix=D64 < %t/d64.ptx
// RUN: %ptxas -arch=sm_90a -v %t/d64.ptx -o %t/d64.cubin 2>&1 | FileCheck %s --check-prefix=D64-REGS
// RUN: sed -e 's/128x64x/128x128x/g; s/64x128xf16/128x128xf16/g' %s > %t/d128.mlir
// RUN: txlc %t/d128.mlir --arch=sm_90a --emit=cubin -o %t/d128.ptx
// RUN: FileCheck %s --check-prefix=D128 < %t/d128.ptx

// txlc's choice between the two schedules of attention's P @ V
// (txl-schedule-loops' rescaled-async): the async one (retired by the next
// iteration) keeps P's registers one iteration longer. Triton-style attention
// through descriptors, num_warps = 8, BLOCK_M = BLOCK_N = 128 (the frontend's
// IR of bench/triton_style_kernels.py's attn_fwd_desc):
//
// D = 64: synchronous fits in 128 registers (two CTAs of 256 threads per SM),
// async needs about 154 (one CTA): txlc keeps the synchronous P @ V, whose
// commit group is waited for at once, and ptxas allocates at most 128.
// D64: wgmma.commit_group.sync.aligned;
// D64-NEXT: // begin inline asm
// D64-NEXT: wgmma.wait_group.sync.aligned 0;
// D64: wgmma.commit_group.sync.aligned;
// D64-NEXT: // begin inline asm
// D64-NEXT: wgmma.wait_group.sync.aligned 0;
// D64-REGS: Used {{([0-9]|[1-9][0-9]|1[01][0-9]|12[0-8])}} registers
//
// D = 128 (sed above): one CTA per SM either way, so the async schedule
// stays: after P @ V's commit group the loop goes on (its CTA barrier and
// back edge) without waiting; the next iteration retires it.
// D128: wgmma.commit_group.sync.aligned;
// D128-NEXT: // begin inline asm
// D128-NEXT: wgmma.wait_group.sync.aligned 0;
// D128: wgmma.commit_group.sync.aligned;
// D128-NEXT: bar.sync
// D128-NEXT: bra
module attributes {txl.target = "sm_90a"} {
  func.func @attn_fwd_desc(%q_desc: !txl.tensordesc<128x64xf16, #txl.nvmma_shared<swizzle = 128>>, %k_desc: !txl.tensordesc<128x64xf16, #txl.nvmma_shared<swizzle = 128>>, %v_desc: !txl.tensordesc<128x64xf16, #txl.nvmma_shared<swizzle = 128>>, %o_desc: !txl.tensordesc<128x64xf16, #txl.nvmma_shared<swizzle = 128>>, %sm_scale: f32, %N_CTX: i32 {txl.divisibility = 16 : i32}) attributes {txl.kernel, txl.num_stages = 3 : i32, txl.num_warps = 8 : i32, txl.role_warps = 8 : i32} {
    %c128 = arith.constant 128 : i32
    %cst = arith.constant 1.442695022e+00 : f32
    %c0 = arith.constant 0 : i32
    %start_m = txl.program_id 0
    %off_hz = txl.program_id 1
    %row0 = arith.muli %off_hz, %N_CTX : i32
    %0 = arith.constant dense<0.000000000e+00> : tensor<128xf32>
    %1 = arith.constant dense<0x7F800000> : tensor<128xf32>
    %m_i = arith.subf %0, %1 fastmath<contract> : tensor<128xf32>
    %2 = arith.constant dense<0.000000000e+00> : tensor<128xf32>
    %3 = arith.constant dense<1.000000000e+00> : tensor<128xf32>
    %l_i = arith.addf %2, %3 fastmath<contract> : tensor<128xf32>
    %4 = arith.constant dense<0.000000000e+00> : tensor<128x64xf32>
    %qk_scale = arith.mulf %sm_scale, %cst fastmath<contract> : f32
    %5 = arith.muli %start_m, %c128 : i32
    %6 = arith.addi %row0, %5 : i32
    %q = txl.desc_load %q_desc[%6, %c0] : !txl.tensordesc<128x64xf16, #txl.nvmma_shared<swizzle = 128>> -> tensor<128x64xf16>
    %l_i_1, %acc, %m_i_1 = scf.for %start_n = %c0 to %N_CTX step %c128 iter_args(%l_i_2 = %l_i, %acc_1 = %4, %m_i_2 = %m_i) -> (tensor<128xf32>, tensor<128x64xf32>, tensor<128xf32>) : i32 {
      %7 = arith.addi %row0, %start_n : i32
      %k = txl.desc_load %k_desc[%7, %c0] : !txl.tensordesc<128x64xf16, #txl.nvmma_shared<swizzle = 128>> -> tensor<128x64xf16>
      %8 = txl.trans %k, [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
      %9 = arith.constant dense<0.000000000e+00> : tensor<128x128xf32>
      %10 = txl.dot %q, %8, %9 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32>
      %11 = txl.splat %qk_scale : f32 -> tensor<128x128xf32>
      %qk = arith.mulf %10, %11 fastmath<contract> : tensor<128x128xf32>
      %12 = txl.reduce %qk axis 1 : (tensor<128x128xf32>) -> tensor<128xf32> {
      ^bb0(%x: f32, %y: f32):
        %13 = arith.maxnumf %x, %y : f32
        txl.reduce_return %13 : f32
      }
      %m_ij = arith.maxnumf %m_i_2, %12 : tensor<128xf32>
      %14 = txl.expand_dims %m_ij, 1 : tensor<128xf32> -> tensor<128x1xf32>
      %15 = txl.broadcast %14 : tensor<128x1xf32> -> tensor<128x128xf32>
      %16 = arith.subf %qk, %15 fastmath<contract> : tensor<128x128xf32>
      %p = math.exp2 %16 fastmath<afn> : tensor<128x128xf32>
      %17 = arith.subf %m_i_2, %m_ij fastmath<contract> : tensor<128xf32>
      %alpha = math.exp2 %17 fastmath<afn> : tensor<128xf32>
      %18 = arith.mulf %l_i_2, %alpha fastmath<contract> : tensor<128xf32>
      %19 = txl.reduce %p axis 1 : (tensor<128x128xf32>) -> tensor<128xf32> {
      ^bb0(%x_1: f32, %y_1: f32):
        %20 = arith.addf %x_1, %y_1 : f32
        txl.reduce_return %20 : f32
      }
      %l_i_3 = arith.addf %18, %19 fastmath<contract> : tensor<128xf32>
      %21 = txl.expand_dims %alpha, 1 : tensor<128xf32> -> tensor<128x1xf32>
      %22 = txl.broadcast %21 : tensor<128x1xf32> -> tensor<128x64xf32>
      %acc_2 = arith.mulf %acc_1, %22 fastmath<contract> : tensor<128x64xf32>
      %23 = arith.addi %row0, %start_n : i32
      %v = txl.desc_load %v_desc[%23, %c0] : !txl.tensordesc<128x64xf16, #txl.nvmma_shared<swizzle = 128>> -> tensor<128x64xf16>
      %24 = arith.truncf %p : tensor<128x128xf32> to tensor<128x128xf16>
      %acc_3 = txl.dot %24, %v, %acc_2 : tensor<128x128xf16>, tensor<128x64xf16>, tensor<128x64xf32>
      scf.yield %l_i_3, %acc_3, %m_ij : tensor<128xf32>, tensor<128x64xf32>, tensor<128xf32>
    }
    %25 = txl.expand_dims %l_i_1, 1 : tensor<128xf32> -> tensor<128x1xf32>
    %26 = txl.broadcast %25 : tensor<128x1xf32> -> tensor<128x64xf32>
    %acc_4 = arith.divf %acc, %26 fastmath<afn> : tensor<128x64xf32>
    %27 = arith.muli %start_m, %c128 : i32
    %28 = arith.addi %row0, %27 : i32
    %29 = arith.truncf %acc_4 : tensor<128x64xf32> to tensor<128x64xf16>
    txl.desc_store %o_desc[%28, %c0], %29 : !txl.tensordesc<128x64xf16, #txl.nvmma_shared<swizzle = 128>>, tensor<128x64xf16>
    return
  }
}
