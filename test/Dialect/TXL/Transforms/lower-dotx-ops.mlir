// RUN: txl-opt %s -txl-lower-dotx-ops -split-input-file -verify-diagnostics | FileCheck %s --implicit-check-not=txl.dotx

// Error cases are checked by -verify-diagnostics in the same run (their
// chunks print nothing); the other chunks are checked by FileCheck. Operands
// are written as --txl-smem-allocs leaves them: swizzled shared views (B
// transposed = K-major), the accumulator a tensor-memory view.

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>

// bf16 M=128 N=256 K=64, both operands K-major with a 128-byte swizzle: 4
// MMAs (K / 16) issued by lane 0 (tid & 31 == 0). Instruction descriptor
// (1 << 4) f32 D | (1 << 7) bf16 A | (1 << 10) bf16 B | (256 >> 3) << 17 |
// (128 >> 4) << 24 = 138413200. Shared-memory descriptors: start address
// (addr & 0x3FFFF) >> 4, LBO 1, SBO 1024 >> 4 = 64, swizzle mode 2; a K step
// advances 32 bytes (+2). use_d enables D on the first MMA only; each
// mbarrier gets a tcgen05.commit under its own predicate (inside the lane-0
// region).
// CHECK-LABEL: func.func @k_major_bf16
// CHECK-SAME: %[[U:[^:]*]]: i1, %[[E:[^:]*]]: !txl.mbar, %[[R:[^:]*]]: !txl.mbar, %[[P:[^:]*]]: i1, %[[Q:[^:]*]]: i1)
// CHECK-DAG: %[[RBAR:.*]] = builtin.unrealized_conversion_cast %[[R]] : !txl.mbar to !llvm.ptr<3>
// CHECK-DAG: %[[EBAR:.*]] = builtin.unrealized_conversion_cast %[[E]] : !txl.mbar to !llvm.ptr<3>
// CHECK-DAG: %[[ACC:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.tmem<128x256xf32> to i32
// CHECK-DAG: %[[BPTR:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.smem<64x256xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>> to !llvm.ptr<3>
// CHECK-DAG: %[[APTR:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>> to !llvm.ptr<3>
// CHECK: %[[AI:.*]] = llvm.ptrtoint %[[APTR]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[MASK:.*]] = llvm.mlir.constant(262143 : i32) : i32
// CHECK-NEXT: %[[AM:.*]] = llvm.and %[[AI]], %[[MASK]] : i32
// CHECK-NEXT: %[[FOUR:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: %[[ABASE:.*]] = llvm.lshr %[[AM]], %[[FOUR]] : i32
// CHECK-NEXT: %[[BI:.*]] = llvm.ptrtoint %[[BPTR]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[MASKB:.*]] = llvm.mlir.constant(262143 : i32) : i32
// CHECK-NEXT: %[[BM:.*]] = llvm.and %[[BI]], %[[MASKB]] : i32
// CHECK-NEXT: %[[FOURB:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: %[[BBASE:.*]] = llvm.lshr %[[BM]], %[[FOURB]] : i32
// CHECK-NEXT: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %[[C31:.*]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-NEXT: %[[LANE:.*]] = llvm.and %[[TID]], %[[C31]] : i32
// CHECK-NEXT: %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[ISSUE:.*]] = llvm.icmp "eq" %[[LANE]], %[[C0]] : i32
// CHECK-NEXT: scf.if %[[ISSUE]] {
// CHECK-NEXT:   %[[TMEM:.*]] = llvm.inttoptr %[[ACC]] : i32 to !llvm.ptr<6>
// CHECK-NEXT:   %[[IDESC:.*]] = llvm.mlir.constant(138413200 : i32) : i32
// CHECK-NEXT:   %[[TRUE:.*]] = llvm.mlir.constant(true) : i1
// CHECK-NEXT:   %[[LBO:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:   %[[SBO:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-NEXT:   %[[BOFF:.*]] = llvm.mlir.constant(0 : i8) : i8
// CHECK-NEXT:   %[[LMODE:.*]] = llvm.mlir.constant(false) : i1
// CHECK-NEXT:   %[[SWZ:.*]] = llvm.mlir.constant(2 : i8) : i8
// CHECK-NEXT:   %[[DA0:.*]] = nvvm.tcgen05.mma_smem_desc(%[[ABASE]], %[[LBO]], %[[SBO]], %[[BOFF]], %[[LMODE]], %[[SWZ]]) : (i32, i32, i32, i8, i1, i8) -> i64
// CHECK:        %[[DB0:.*]] = nvvm.tcgen05.mma_smem_desc(%[[BBASE]], %{{.*}}) : (i32, i32, i32, i8, i1, i8) -> i64
// CHECK-NEXT:   nvvm.tcgen05.mma %[[TMEM]], %[[DA0]], %[[DB0]], %[[IDESC]], %[[U]] {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>} : (!llvm.ptr<6>, i64, i64, i32, i1)
// CHECK-NEXT:   %[[K1:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:   %[[A1:.*]] = llvm.add %[[ABASE]], %[[K1]] : i32
// CHECK:        %[[DA1:.*]] = nvvm.tcgen05.mma_smem_desc(%[[A1]], %{{.*}})
// CHECK:        %[[K1B:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:   %[[B1:.*]] = llvm.add %[[BBASE]], %[[K1B]] : i32
// CHECK:        %[[DB1:.*]] = nvvm.tcgen05.mma_smem_desc(%[[B1]], %{{.*}})
// CHECK-NEXT:   nvvm.tcgen05.mma %[[TMEM]], %[[DA1]], %[[DB1]], %[[IDESC]], %[[TRUE]] {{{.*}}}
// CHECK-COUNT-2: nvvm.tcgen05.mma %[[TMEM]], %{{.*}}, %{{.*}}, %[[IDESC]], %[[TRUE]] {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>}
// CHECK-NOT:    nvvm.tcgen05.mma %
// CHECK:        scf.if %[[P]] {
// CHECK-NEXT:     nvvm.tcgen05.commit %[[EBAR]] : !llvm.ptr<3>
// CHECK-NEXT:   }
// CHECK-NEXT:   scf.if %[[Q]] {
// CHECK-NEXT:     nvvm.tcgen05.commit %[[RBAR]] : !llvm.ptr<3>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: return
module attributes {txl.target = "sm_100a"} {
  func.func @k_major_bf16(%a: !txl.smem<128x64xbf16, #sw128>, %b: !txl.smem<64x256xbf16, #sw128T>, %acc: !txl.tmem<128x256xf32>, %u: i1, %e: !txl.mbar, %r: !txl.mbar, %p: i1, %q: i1) attributes {txl.kernel} {
    txl.dotx %a, %b, %acc use_d %u mbars(%e, %r) preds(%p, %q) : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x256xbf16, #sw128T>, !txl.tmem<128x256xf32>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>

// f16 M=64 N=64 K=128, B MN-major (not transposed): 8 MMAs. Instruction
// descriptor (1 << 4) | (1 << 16) B MN-major | (64 >> 3) << 17 |
// (64 >> 4) << 24 = 68222992 (f16 A/B format 0). A's K steps cross its
// 64-element swizzle span after 4 steps: +2, +4, +6, then 64 rows x 128 B =
// 8192 bytes (+512). B (MN-major): LBO = 128 rows x 128 B >> 4 = 1024, a K
// step is 16 rows x 128 B (+128). Without use_d every MMA accumulates. The
// op's pred joins the lane-0 test; a commit without a predicate is
// unconditional.
// CHECK-LABEL: func.func @mn_major_b_f16_pred
// CHECK-SAME: %[[P:[^:]*]]: i1, %[[E:[^:]*]]: !txl.mbar)
// CHECK: %[[EBAR:.*]] = builtin.unrealized_conversion_cast %[[E]] : !txl.mbar to !llvm.ptr<3>
// CHECK: %[[ABASE:.*]] = llvm.lshr
// CHECK: %[[BBASE:.*]] = llvm.lshr
// CHECK: %[[LANE0:.*]] = llvm.icmp "eq"
// CHECK-NEXT: %[[ISSUE:.*]] = llvm.and %[[LANE0]], %[[P]] : i1
// CHECK-NEXT: scf.if %[[ISSUE]] {
// CHECK:        %[[IDESC:.*]] = llvm.mlir.constant(68222992 : i32) : i32
// CHECK-NEXT:   %[[TRUE:.*]] = llvm.mlir.constant(true) : i1
// CHECK:        %[[BLBO:.*]] = llvm.mlir.constant(1024 : i32) : i32
// CHECK-NEXT:   %[[BSBO:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK:        %[[DB0:.*]] = nvvm.tcgen05.mma_smem_desc(%[[BBASE]], %[[BLBO]], %[[BSBO]], %{{.*}})
// CHECK-NEXT:   nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %[[DB0]], %[[IDESC]], %[[TRUE]]
// CHECK:        llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:   llvm.add %[[BBASE]]
// CHECK-COUNT-3: nvvm.tcgen05.mma %{{.*}}, %[[IDESC]], %[[TRUE]]
// CHECK:        %[[KA4:.*]] = llvm.mlir.constant(512 : i32) : i32
// CHECK-NEXT:   llvm.add %[[ABASE]], %[[KA4]] : i32
// CHECK:        %[[KB4:.*]] = llvm.mlir.constant(512 : i32) : i32
// CHECK-NEXT:   llvm.add %[[BBASE]], %[[KB4]] : i32
// CHECK-COUNT-4: nvvm.tcgen05.mma %{{.*}}, %[[IDESC]], %[[TRUE]]
// CHECK-NOT:    nvvm.tcgen05.mma %
// CHECK-NOT:    scf.if
// CHECK:        nvvm.tcgen05.commit %[[EBAR]] : !llvm.ptr<3>
// CHECK-NEXT: }
// CHECK-NEXT: return
module attributes {txl.target = "sm_100a"} {
  func.func @mn_major_b_f16_pred(%a: !txl.smem<64x128xf16, #sw128>, %b: !txl.smem<128x64xf16, #sw128>, %acc: !txl.tmem<64x64xf32>, %p: i1, %e: !txl.mbar) attributes {txl.kernel} {
    txl.dotx %a, %b, %acc pred %p mbars(%e) : !txl.smem<64x128xf16, #sw128>, !txl.smem<128x64xf16, #sw128>, !txl.tmem<64x64xf32>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
#bl = #txl.blocked<sizePerThread = [1, 256], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>

// A register accumulator (tensor acc and a result) is not lowered: the MMA
// accumulates in tensor memory.
module attributes {txl.target = "sm_100a"} {
  func.func @register_accumulator(%a: !txl.smem<128x64xbf16, #sw128>, %b: !txl.smem<64x256xbf16, #sw128T>, %c: tensor<128x256xf32, #bl>) -> tensor<128x256xf32, #bl> attributes {txl.kernel} {
    // expected-error @+1 {{register accumulators are not supported: keep the accumulator in tensor memory (txl.tmem_alloc) or run --txl-fold-tmem-round-trips}}
    %d = txl.dotx %a, %b, %c : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x256xbf16, #sw128T>, tensor<128x256xf32, #bl> -> tensor<128x256xf32, #bl>
    return %d : tensor<128x256xf32, #bl>
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>

// f8 inputs (kind::f8f6f4) are valid tcgen05 but not supported here.
module attributes {txl.target = "sm_100a"} {
  func.func @f8_inputs(%a: !txl.smem<128x128xf8E4M3FN, #sw128>, %b: !txl.smem<128x256xf8E4M3FN, #sw128T>, %acc: !txl.tmem<128x256xf32>) attributes {txl.kernel} {
    // expected-error @+2 {{failed to legalize operation 'txl.dotx'}}
    // expected-error @+1 {{tcgen05 lowering supports f16 and bf16 inputs, got 'f8E4M3FN'}}
    txl.dotx %a, %b, %acc : !txl.smem<128x128xf8E4M3FN, #sw128>, !txl.smem<128x256xf8E4M3FN, #sw128T>, !txl.tmem<128x256xf32>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>

// Only f32 accumulators.
module attributes {txl.target = "sm_100a"} {
  func.func @f16_accumulator(%a: !txl.smem<128x64xf16, #sw128>, %b: !txl.smem<64x256xf16, #sw128T>, %acc: !txl.tmem<128x256xf16>) attributes {txl.kernel} {
    // expected-error @+2 {{failed to legalize operation 'txl.dotx'}}
    // expected-error @+1 {{tcgen05 lowering supports f32 accumulators, got 'f16'}}
    txl.dotx %a, %b, %acc : !txl.smem<128x64xf16, #sw128>, !txl.smem<64x256xf16, #sw128T>, !txl.tmem<128x256xf16>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>

// Shared-memory descriptors need a swizzled operand.
module attributes {txl.target = "sm_100a"} {
  func.func @unswizzled_b(%a: !txl.smem<128x64xbf16, #sw128>, %b: !txl.smem<64x256xbf16>, %acc: !txl.tmem<128x256xf32>) attributes {txl.kernel} {
    // expected-error @+2 {{failed to legalize operation 'txl.dotx'}}
    // expected-error @+1 {{B operand needs a swizzled shared layout; run --txl-smem-allocs}}
    txl.dotx %a, %b, %acc : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x256xbf16>, !txl.tmem<128x256xf32>
    return
  }
}

// -----

#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>

// A in tensor memory (the TS form) is not lowered yet.
module attributes {txl.target = "sm_100a"} {
  func.func @a_in_tmem(%a: !txl.tmem<128x64xbf16>, %b: !txl.smem<64x256xbf16, #sw128T>, %acc: !txl.tmem<128x256xf32>) attributes {txl.kernel} {
    // expected-error @+2 {{failed to legalize operation 'txl.dotx'}}
    // expected-error @+1 {{A from tensor memory is not supported yet}}
    txl.dotx %a, %b, %acc : !txl.tmem<128x64xbf16>, !txl.smem<64x256xbf16, #sw128T>, !txl.tmem<128x256xf32>
    return
  }
}

// -----

// Regression test: a register accumulator without a layout lost the reason
// it cannot be lowered (only "failed to legalize" was reported).
// The same register accumulator as @register_accumulator, with no layout:
// the error is reported before the conversion.
#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
module attributes {txl.target = "sm_100a"} {
  func.func @register_accumulator_no_layout(%a: !txl.smem<128x64xbf16, #sw128>, %b: !txl.smem<64x256xbf16, #sw128T>, %c: tensor<128x256xf32>) -> tensor<128x256xf32> attributes {txl.kernel} {
    // expected-error @+1 {{register accumulators are not supported}}
    %d = txl.dotx %a, %b, %c : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x256xbf16, #sw128T>, tensor<128x256xf32> -> tensor<128x256xf32>
    return %d : tensor<128x256xf32>
  }
}
