// RUN: txl-opt %s -txl-smem-allocs -split-input-file -verify-diagnostics | FileCheck %s --implicit-check-not=txl.smem_alloc

// Error cases are checked by -verify-diagnostics in the same run (their
// chunks print nothing); the other chunks are checked by FileCheck.

// Placement: largest first; a swizzled buffer is aligned to 1024 bytes (it
// goes to 9216, not right after the 8448-byte buffer), the 16-byte mbarrier
// array fills the gap. The kernel records the total and @txl_smem is the
// external, 1024-aligned shared array.
// CHECK: llvm.mlir.global external @txl_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: func.func @offsets_and_alignment
// CHECK-SAME: txl.shared_bytes = 17408 : i64
// CHECK: %[[U:.*]] = llvm.mlir.addressof @txl_smem : !llvm.ptr<3>
// CHECK: %[[SBASE:.*]] = llvm.mlir.addressof @txl_smem : !llvm.ptr<3>
// CHECK: %[[S:.*]] = llvm.getelementptr %[[SBASE]][9216] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: txl.mbar_alloc count 1 {txl.offset = 8448 : i64} : !txl.mbar<2>
// CHECK: llvm.getelementptr %[[U]][
// CHECK: llvm.getelementptr %[[S]][
module attributes {txl.target = "sm_90a"} {
  func.func @offsets_and_alignment() attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %u = txl.smem_alloc : !txl.smem<33x64xbf16, stages = 2>
    %s = txl.smem_alloc : !txl.smem<32x64xbf16, stages = 2, #txl.nvmma_shared<swizzle = 128>>
    %bars = txl.mbar_alloc count 1 : !txl.mbar<2>
    %ub = txl.get_buffer %u[%c0] : !txl.smem<33x64xbf16, stages = 2>
    %sb = txl.get_buffer %s[%c0] : !txl.smem<32x64xbf16, stages = 2, #txl.nvmma_shared<swizzle = 128>>
    %bar = txl.get_buffer %bars[%c0] : !txl.mbar<2>
    txl.mbar_wait %bar, %c0 : i32
    %x = txl.smem_load %ub : !txl.smem<33x64xbf16> -> tensor<33x64xbf16>
    %y = txl.smem_load %sb : !txl.smem<32x64xbf16, #txl.nvmma_shared<swizzle = 128>> -> tensor<32x64xbf16>
    return
  }
}

// -----

// get_buffer of a shared buffer: sign-extended index times the stage bytes
// (128x64 bf16 = 16384), a byte GEP from the buffer's address; the result is
// cast back to the view type for the ops that still use it.
// CHECK-LABEL: func.func @get_buffer_stage_offset
// CHECK-SAME: (%[[I:.*]]: i32)
// CHECK-SAME: txl.shared_bytes = 49152 : i64
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @txl_smem : !llvm.ptr<3>
// CHECK: %[[IDX:.*]] = llvm.sext %[[I]] : i32 to i64
// CHECK: %[[BYTES:.*]] = llvm.mlir.constant(16384 : i64) : i64
// CHECK: %[[OFF:.*]] = llvm.mul %[[IDX]], %[[BYTES]] : i64
// CHECK: %[[PTR:.*]] = llvm.getelementptr %[[BASE]][%[[OFF]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK: %[[VIEW:.*]] = builtin.unrealized_conversion_cast %[[PTR]] : !llvm.ptr<3> to !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>>
// CHECK: txl.smem_load %[[VIEW]]
// CHECK-NOT: txl.get_buffer
module attributes {txl.target = "sm_90a"} {
  func.func @get_buffer_stage_offset(%i: i32) attributes {txl.kernel} {
    %a = txl.smem_alloc : !txl.smem<128x64xbf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
    %ab = txl.get_buffer %a[%i] : !txl.smem<128x64xbf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
    %x = txl.smem_load %ab : !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>> -> tensor<128x64xbf16>
    return
  }
}

// -----

// Two top-level buffers whose live ranges (alloc .. last top-level use) do
// not overlap share offset 0: both GEPs start at @txl_smem itself. The first
// access of the second is preceded by a sync of the CTA (see
// @sync_before_reusing_dead_bytes below).
// CHECK-LABEL: func.func @liveness_sharing
// CHECK-SAME: txl.shared_bytes = 16384 : i64
// CHECK: %[[A:.*]] = llvm.mlir.addressof @txl_smem : !llvm.ptr<3>
// CHECK-NEXT: llvm.sext
// CHECK-NEXT: llvm.mlir.constant(16384 : i64)
// CHECK-NEXT: llvm.mul
// CHECK-NEXT: llvm.getelementptr %[[A]][%{{.*}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK: %[[B:.*]] = llvm.mlir.addressof @txl_smem : !llvm.ptr<3>
// CHECK-NEXT: llvm.sext
// CHECK-NEXT: llvm.mlir.constant(8192 : i64)
// CHECK-NEXT: llvm.mul
// CHECK-NEXT: llvm.getelementptr %[[B]][%{{.*}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK-NEXT: builtin.unrealized_conversion_cast
// CHECK-NEXT: txl.bar_wait 0, 128
// CHECK-NEXT: txl.smem_load
module attributes {txl.target = "sm_90a"} {
  func.func @liveness_sharing() attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %a = txl.smem_alloc : !txl.smem<64x64xf32, stages = 1>
    %ab = txl.get_buffer %a[%c0] : !txl.smem<64x64xf32, stages = 1>
    %x = txl.smem_load %ab : !txl.smem<64x64xf32> -> tensor<64x64xf32>
    %b = txl.smem_alloc : !txl.smem<32x64xf32, stages = 1>
    %bb = txl.get_buffer %b[%c0] : !txl.smem<32x64xf32, stages = 1>
    %y = txl.smem_load %bb : !txl.smem<32x64xf32> -> tensor<32x64xf32>
    return
  }
}

// -----

// The same buffers inside scf.if regions are live for the whole kernel
// (warp-specialized regions run concurrently): no sharing.
// CHECK-LABEL: func.func @no_sharing_in_regions
// CHECK-SAME: txl.shared_bytes = 24576 : i64
// CHECK: scf.if
// CHECK: %[[A:.*]] = llvm.mlir.addressof @txl_smem : !llvm.ptr<3>
// CHECK-NOT: llvm.getelementptr %[[A]][{{[0-9]+}}]
// CHECK: llvm.getelementptr %[[A]][%{{.*}}] : (!llvm.ptr<3>, i64)
// CHECK: scf.if
// CHECK: %[[BBASE:.*]] = llvm.mlir.addressof @txl_smem : !llvm.ptr<3>
// CHECK: %[[B:.*]] = llvm.getelementptr %[[BBASE]][16384] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.getelementptr %[[B]][%{{.*}}] : (!llvm.ptr<3>, i64)
module attributes {txl.target = "sm_90a"} {
  func.func @no_sharing_in_regions(%p: i1) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    scf.if %p {
      %a = txl.smem_alloc : !txl.smem<64x64xf32, stages = 1>
      %ab = txl.get_buffer %a[%c0] : !txl.smem<64x64xf32, stages = 1>
      %x = txl.smem_load %ab : !txl.smem<64x64xf32> -> tensor<64x64xf32>
    }
    scf.if %p {
      %b = txl.smem_alloc : !txl.smem<32x64xf32, stages = 1>
      %bb = txl.get_buffer %b[%c0] : !txl.smem<32x64xf32, stages = 1>
      %y = txl.smem_load %bb : !txl.smem<32x64xf32> -> tensor<32x64xf32>
    }
    return
  }
}

// -----

// A buffer without an encoding takes its TMA descriptor's swizzle.
// CHECK-LABEL: func.func @encoding_from_tma
// CHECK: %[[V:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.ptr<3> to !txl.smem<64x32xbf16, #txl.nvmma_shared<swizzle = 64>>
// CHECK: txl.tma_load %{{.*}}[%{{.*}}, %{{.*}}], %[[V]], %{{.*}} : !txl.tensordesc<64x32xbf16, #txl.nvmma_shared<swizzle = 64>>, !txl.smem<64x32xbf16, #txl.nvmma_shared<swizzle = 64>>
module attributes {txl.target = "sm_90a"} {
  func.func @encoding_from_tma(%d: !txl.tensordesc<64x32xbf16, #txl.nvmma_shared<swizzle = 64>>, %bar: !txl.mbar) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %a = txl.smem_alloc : !txl.smem<64x32xbf16, stages = 2>
    %ab = txl.get_buffer %a[%c0] : !txl.smem<64x32xbf16, stages = 2>
    txl.tma_load %d[%c0, %c0], %ab, %bar : !txl.tensordesc<64x32xbf16, #txl.nvmma_shared<swizzle = 64>>, !txl.smem<64x32xbf16>
    return
  }
}

// -----

// A buffer read only by a wgmma takes the widest swizzle its rows allow:
// 32 bf16 = 64-byte rows give swizzle 64; the swizzled buffer is 1024-aligned.
// CHECK-LABEL: func.func @encoding_from_dot
// CHECK-SAME: txl.shared_bytes = 8192 : i64
// CHECK: %[[V:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.ptr<3> to !txl.smem<64x32xbf16, #txl.nvmma_shared<swizzle = 64>>
// CHECK: txl.dot %[[V]], %{{.*}}, %{{.*}} : !txl.smem<64x32xbf16, #txl.nvmma_shared<swizzle = 64>>,
module attributes {txl.target = "sm_90a"} {
  func.func @encoding_from_dot(%b: !txl.smem<32x64xbf16, #txl.nvmma_shared<swizzle = 64, transposed = true>>) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %a = txl.smem_alloc : !txl.smem<64x32xbf16, stages = 2>
    %ab = txl.get_buffer %a[%c0] : !txl.smem<64x32xbf16, stages = 2>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %d = txl.dot %ab, %b, %zero : !txl.smem<64x32xbf16>, !txl.smem<32x64xbf16, #txl.nvmma_shared<swizzle = 64, transposed = true>>, tensor<64x64xf32>
    return
  }
}

// -----

// The wgmma is found through a transposed view: the buffer gets swizzle 128
// (64 bf16 = 128-byte rows) and its smem_trans view the transposed encoding.
// CHECK-LABEL: func.func @encoding_from_dot_through_trans
// CHECK: %[[V:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.ptr<3> to !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>>
// CHECK: %[[T:.*]] = txl.smem_trans %[[V]] [1, 0] : !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>> -> !txl.smem<64x128xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>
// CHECK: txl.dot %{{.*}}, %[[T]], %{{.*}} : !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, !txl.smem<64x128xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>,
module attributes {txl.target = "sm_90a"} {
  func.func @encoding_from_dot_through_trans(%a: !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %k = txl.smem_alloc : !txl.smem<128x64xbf16, stages = 2>
    %kb = txl.get_buffer %k[%c0] : !txl.smem<128x64xbf16, stages = 2>
    %kT = txl.smem_trans %kb [1, 0] : !txl.smem<128x64xbf16> -> !txl.smem<64x128xbf16>
    %zero = arith.constant dense<0.0> : tensor<64x128xf32>
    %d = txl.dot %a, %kT, %zero : !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, !txl.smem<64x128xbf16>, tensor<64x128xf32>
    return
  }
}

// -----

// The TMA descriptor's swizzle wins over the widest one a wgmma would allow.
// CHECK-LABEL: func.func @tma_encoding_wins_over_dot
// CHECK: %[[V:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.ptr<3> to !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 64>>
// CHECK: txl.tma_load %{{.*}}, %[[V]], %{{.*}} : !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 64>>, !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 64>>
// CHECK: txl.dot %[[V]], %{{.*}}, %{{.*}} : !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 64>>,
module attributes {txl.target = "sm_90a"} {
  func.func @tma_encoding_wins_over_dot(%d: !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 64>>, %bar: !txl.mbar, %b: !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %a = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1>
    %ab = txl.get_buffer %a[%c0] : !txl.smem<64x64xbf16, stages = 1>
    txl.tma_load %d[%c0, %c0], %ab, %bar : !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 64>>, !txl.smem<64x64xbf16>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = txl.dot %ab, %b, %zero : !txl.smem<64x64xbf16>, !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>, tensor<64x64xf32>
    return
  }
}

// -----

// A buffer neither TMA nor wgmma touches keeps no encoding (row-major) and
// 16-byte alignment: it packs right after the 1000-byte one.
// CHECK-LABEL: func.func @plain_buffers
// CHECK-SAME: txl.shared_bytes = 1512 : i64
// CHECK: llvm.mlir.addressof @txl_smem : !llvm.ptr<3>
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @txl_smem : !llvm.ptr<3>
// CHECK-NEXT: llvm.getelementptr %[[BASE]][1008] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : !llvm.ptr<3> to !txl.smem<250xf32>
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : !llvm.ptr<3> to !txl.smem<126xf32>
module attributes {txl.target = "sm_90a"} {
  func.func @plain_buffers() attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %a = txl.smem_alloc : !txl.smem<250xf32, stages = 1>
    %b = txl.smem_alloc : !txl.smem<126xf32, stages = 1>
    %ab = txl.get_buffer %a[%c0] : !txl.smem<250xf32, stages = 1>
    %bb = txl.get_buffer %b[%c0] : !txl.smem<126xf32, stages = 1>
    %x = txl.smem_load %ab : !txl.smem<250xf32> -> tensor<250xf32>
    %y = txl.smem_load %bb : !txl.smem<126xf32> -> tensor<126xf32>
    return
  }
}

// -----

// Two live 128 KB buffers (%a is used before and after %b) are more than a
// block's 227 KB.
module attributes {txl.target = "sm_90a"} {
  // expected-error @+1 {{kernel needs 262144 bytes of shared memory, more than the 232448 (227 KB) a block can have}}
  func.func @too_much_shared_memory() attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    // expected-note @+1 {{131072 bytes here}}
    %a = txl.smem_alloc : !txl.smem<128x128xbf16, stages = 4, #txl.nvmma_shared<swizzle = 128>>
    // expected-note @+1 {{131072 bytes here}}
    %b = txl.smem_alloc : !txl.smem<128x128xbf16, stages = 4, #txl.nvmma_shared<swizzle = 128>>
    %ab = txl.get_buffer %a[%c0] : !txl.smem<128x128xbf16, stages = 4, #txl.nvmma_shared<swizzle = 128>>
    %bb = txl.get_buffer %b[%c0] : !txl.smem<128x128xbf16, stages = 4, #txl.nvmma_shared<swizzle = 128>>
    %ab2 = txl.get_buffer %a[%c0] : !txl.smem<128x128xbf16, stages = 4, #txl.nvmma_shared<swizzle = 128>>
    return
  }
}

// -----

// Two TMA descriptors with different swizzles on one buffer.
module attributes {txl.target = "sm_90a"} {
  func.func @conflicting_descriptor_encodings(%d1: !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 64>>, %d2: !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, %bar: !txl.mbar) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %a = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1>
    %ab = txl.get_buffer %a[%c0] : !txl.smem<64x64xbf16, stages = 1>
    // expected-error @+1 {{uses descriptor encoding #txl.nvmma_shared<swizzle = 64> but "txl.tma_load"}}
    txl.tma_load %d1[%c0, %c0], %ab, %bar : !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 64>>, !txl.smem<64x64xbf16>
    txl.tma_load %d2[%c0, %c0], %ab, %bar : !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, !txl.smem<64x64xbf16>
    return
  }
}

// -----

// A copy or an async MMA may still use its buffer after the op's position,
// so such a buffer is live to the end of the kernel; a loop pipeliner's ring
// (txl.ring) is not: txl-schedule-loops drains it right after its loop. The
// rings of two loops in a row share offset 0 (causal attention's two loops);
// the same buffers without txl.ring take 2 x 16384 bytes.
// CHECK-LABEL: func.func @rings_of_two_loops_share
// CHECK-SAME: txl.shared_bytes = 16384 : i64
// CHECK-LABEL: func.func @copy_targets_do_not_share
// CHECK-SAME: txl.shared_bytes = 32768 : i64
module attributes {txl.target = "sm_90a"} {
  func.func @rings_of_two_loops_share(%p: tensor<64x64x!txl.ptr<bf16>>, %n: i32) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r1 = txl.smem_alloc {txl.ring} : !txl.smem<64x64xbf16, stages = 2>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %v = txl.get_buffer %r1[%c0] : !txl.smem<64x64xbf16, stages = 2>
      txl.async_load %p, %v : tensor<64x64x!txl.ptr<bf16>>, !txl.smem<64x64xbf16>
    }
    txl.async_load_wait 0
    txl.bar_wait 0, 128
    %r2 = txl.smem_alloc {txl.ring} : !txl.smem<64x64xbf16, stages = 2>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %v = txl.get_buffer %r2[%c0] : !txl.smem<64x64xbf16, stages = 2>
      txl.async_load %p, %v : tensor<64x64x!txl.ptr<bf16>>, !txl.smem<64x64xbf16>
    }
    txl.async_load_wait 0
    txl.bar_wait 0, 128
    return
  }
  func.func @copy_targets_do_not_share(%p: tensor<64x64x!txl.ptr<bf16>>, %n: i32) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r1 = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 2>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %v = txl.get_buffer %r1[%c0] : !txl.smem<64x64xbf16, stages = 2>
      txl.async_load %p, %v : tensor<64x64x!txl.ptr<bf16>>, !txl.smem<64x64xbf16>
    }
    txl.async_load_wait 0
    txl.bar_wait 0, 128
    %r2 = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 2>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %v = txl.get_buffer %r2[%c0] : !txl.smem<64x64xbf16, stages = 2>
      txl.async_load %p, %v : tensor<64x64x!txl.ptr<bf16>>, !txl.smem<64x64xbf16>
    }
    return
  }
}

// -----

// A buffer's live range starts at its first use, not at its alloc: the
// epilogue's staging tile, allocated at the top of the kernel, reuses the
// drained ring of the main loop (8192 bytes at offset 0 inside the ring's
// 16384). In a warp-specialized kernel the roles run their regions
// concurrently, so the range starts at the alloc and the tile gets its own
// bytes (16384 + 8192).
// CHECK-LABEL: func.func @staging_after_ring_shares
// CHECK-SAME: txl.shared_bytes = 16384 : i64
// CHECK-LABEL: func.func @warp_specialized_staging_does_not_share
// CHECK-SAME: txl.shared_bytes = 24576 : i64
#bl = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {txl.target = "sm_90a"} {
  func.func @staging_after_ring_shares(%p: tensor<64x64x!txl.ptr<bf16>>, %n: i32, %t: tensor<64x64xbf16, #bl>) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %st = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1>
    %r = txl.smem_alloc {txl.ring} : !txl.smem<64x64xbf16, stages = 2>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %v = txl.get_buffer %r[%c0] : !txl.smem<64x64xbf16, stages = 2>
      txl.async_load %p, %v : tensor<64x64x!txl.ptr<bf16>>, !txl.smem<64x64xbf16>
    }
    txl.async_load_wait 0
    txl.bar_wait 0, 128
    %s = txl.get_buffer %st[%c0] : !txl.smem<64x64xbf16, stages = 1>
    txl.smem_store %t, %s : tensor<64x64xbf16, #bl>, !txl.smem<64x64xbf16>
    return
  }
  func.func @warp_specialized_staging_does_not_share(%p: tensor<64x64x!txl.ptr<bf16>>, %n: i32, %t: tensor<64x64xbf16, #bl>) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %st = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1>
    %r = txl.smem_alloc {txl.ring} : !txl.smem<64x64xbf16, stages = 2>
    %wg0 = txl.is_warpgroup [0]
    scf.if %wg0 {
      scf.for %i = %c0 to %n step %c1 : i32 {
        %v = txl.get_buffer %r[%c0] : !txl.smem<64x64xbf16, stages = 2>
        txl.async_load %p, %v : tensor<64x64x!txl.ptr<bf16>>, !txl.smem<64x64xbf16>
      }
      txl.async_load_wait 0
    }
    %s = txl.get_buffer %st[%c0] : !txl.smem<64x64xbf16, stages = 1>
    txl.smem_store %t, %s : tensor<64x64xbf16, #bl>, !txl.smem<64x64xbf16>
    return
  }
}

// -----

// Regression test: the pass gave an unencoded descriptor argument the
// buffer's encoding in the block argument but not in the function type, and
// the result failed to verify.
// A descriptor argument given the buffer's encoding also changes the function type.
// CHECK-LABEL: func.func @desc_arg_signature(
// CHECK-SAME: !txl.tensordesc<128x64xbf16, #txl.nvmma_shared<swizzle = 128>>
module attributes {txl.target = "sm_90a"} {
  func.func @desc_arg_signature(%d: !txl.tensordesc<128x64xbf16>, %bar: !txl.mbar, %b: !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %a = txl.smem_alloc : !txl.smem<128x64xbf16, stages = 2>
    %ab = txl.get_buffer %a[%c0] : !txl.smem<128x64xbf16, stages = 2>
    txl.tma_load %d[%c0, %c0], %ab, %bar : !txl.tensordesc<128x64xbf16>, !txl.smem<128x64xbf16>
    %zero = arith.constant dense<0.0> : tensor<128x64xf32>
    %r = txl.dot %ab, %b, %zero : !txl.smem<128x64xbf16>, !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>, tensor<128x64xf32>
    return
  }
}

// -----

// Regression test: a buffer that already had an encoding left its unencoded
// descriptor unencoded, so the host encoded the TMA unswizzled.
// An encoded buffer gives its swizzle to an unencoded descriptor.
// CHECK-LABEL: func.func @desc_arg_encoded_buffer(
// CHECK-SAME: !txl.tensordesc<128x64xbf16, #txl.nvmma_shared<swizzle = 128>>
module attributes {txl.target = "sm_90a"} {
  func.func @desc_arg_encoded_buffer(%d: !txl.tensordesc<128x64xbf16>) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %bars = txl.mbar_alloc count 1 : !txl.mbar<1>
    %bar = txl.get_buffer %bars[%c0] : !txl.mbar<1>
    %a = txl.smem_alloc : !txl.smem<128x64xbf16, stages = 2, #txl.nvmma_shared<swizzle = 128>>
    %ab = txl.get_buffer %a[%c0] : !txl.smem<128x64xbf16, stages = 2, #txl.nvmma_shared<swizzle = 128>>
    txl.mbar_expect %bar, 16384
    txl.tma_load %d[%c0, %c0], %ab, %bar : !txl.tensordesc<128x64xbf16>, !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>>
    txl.mbar_wait %bar, %c0 : i32
    return
  }
}

// -----

// Regression test: a buffer read by an async op (TMA store, async wgmma) was
// live only to the op's position, so a later buffer reused its bytes (both
// cases placed both buffers at offset 0).
// Such a buffer stays live until the kernel ends, so a later buffer never
// reuses its bytes while the hardware may still read them.
// CHECK-LABEL: func.func @async_store_reuse(
// CHECK-SAME: txl.shared_bytes = 16384
// CHECK: llvm.getelementptr %{{.*}}[8192]
#sw128 = #txl.nvmma_shared<swizzle = 128>
#bl = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {txl.target = "sm_90a"} {
  func.func @async_store_reuse(%desc: !txl.tensordesc<64x64xbf16, #sw128>, %v: tensor<64x64xbf16, #bl>, %w: tensor<64x64xbf16, #bl>) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %cb = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1>
    %c = txl.get_buffer %cb[%c0] : !txl.smem<64x64xbf16, stages = 1>
    txl.smem_store %v, %c : tensor<64x64xbf16, #bl>, !txl.smem<64x64xbf16>
    txl.fence_proxy_async
    txl.tma_store %c, %desc[%c0, %c0] : !txl.smem<64x64xbf16>, !txl.tensordesc<64x64xbf16, #sw128>
    %db = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1>
    %d = txl.get_buffer %db[%c0] : !txl.smem<64x64xbf16, stages = 1>
    txl.smem_store %w, %d : tensor<64x64xbf16, #bl>, !txl.smem<64x64xbf16>
    txl.fence_proxy_async
    txl.tma_store %d, %desc[%c0, %c64] : !txl.smem<64x64xbf16>, !txl.tensordesc<64x64xbf16, #sw128>
    txl.tma_store_wait 0
    return
  }
}

// -----

// The same regression with an async wgmma reading the first buffer.
// CHECK-LABEL: func.func @async_dot_reuse(
// CHECK-SAME: txl.shared_bytes = 16384
// CHECK: llvm.getelementptr %{{.*}}[8192]
#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
#nv = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>
#bl = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {txl.target = "sm_90a"} {
  func.func @async_dot_reuse(%b: !txl.smem<64x64xbf16, #sw128T>, %acc: tensor<64x64xf32, #nv>, %w: tensor<64x64xbf16, #bl>) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %ab = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1, #sw128>
    %a = txl.get_buffer %ab[%c0] : !txl.smem<64x64xbf16, stages = 1, #sw128>
    %r = txl.dot %a, %b, %acc {async} : !txl.smem<64x64xbf16, #sw128>, !txl.smem<64x64xbf16, #sw128T>, tensor<64x64xf32, #nv>
    %db = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1, #sw128>
    %d = txl.get_buffer %db[%c0] : !txl.smem<64x64xbf16, stages = 1, #sw128>
    txl.smem_store %w, %d : tensor<64x64xbf16, #bl>, !txl.smem<64x64xbf16, #sw128>
    %done = txl.dot_wait 0, %r : tensor<64x64xf32, #nv>
    return
  }
}

// -----

// Bytes of a dead buffer are written only after a sync of the CTA: warps are
// not in step, so a fast warp's first cp.async into the ring could overwrite
// the relayout scratch (same offset 0) that a slower warp still reads (fla's
// GLA backward, num_warps=2: row 0 of dv sometimes wrong). The sync goes
// before the first access (after the get_buffer view). None is added before
// the second relayout, whose scratch reuses the ring's drained bytes: a sync
// already sits between (the drain), and a relayout syncs first anyway.
// CHECK-LABEL: func.func @sync_before_reusing_dead_bytes
// CHECK-SAME: txl.shared_bytes = 16384 : i64
// CHECK: txl.relayout
// CHECK: llvm.getelementptr
// CHECK-NEXT: builtin.unrealized_conversion_cast
// CHECK-NEXT: txl.bar_wait 0, 128
// CHECK-NEXT: txl.async_load
// CHECK: scf.for
// CHECK: txl.async_load_wait 0
// CHECK-NEXT: txl.bar_wait 0, 128
// CHECK-NOT: txl.bar_wait
// CHECK: txl.relayout
// CHECK-NOT: txl.bar_wait
// CHECK: return
#rows = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#cols = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]>
module attributes {txl.target = "sm_90a"} {
  func.func @sync_before_reusing_dead_bytes(%t: tensor<32x64xf32, #rows>, %p: tensor<64x64x!txl.ptr<bf16>>, %n: i32) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %s = txl.smem_alloc : !txl.smem<32x68xf32, stages = 1>
    %sv = txl.get_buffer %s[%c0] : !txl.smem<32x68xf32, stages = 1>
    %u = txl.relayout %t scratch(%sv : !txl.smem<32x68xf32>) : tensor<32x64xf32, #rows> -> tensor<32x64xf32, #cols>
    %r = txl.smem_alloc {txl.ring} : !txl.smem<64x64xbf16, stages = 2>
    %v0 = txl.get_buffer %r[%c0] : !txl.smem<64x64xbf16, stages = 2>
    txl.async_load %p, %v0 : tensor<64x64x!txl.ptr<bf16>>, !txl.smem<64x64xbf16>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %v = txl.get_buffer %r[%c1] : !txl.smem<64x64xbf16, stages = 2>
      txl.async_load %p, %v : tensor<64x64x!txl.ptr<bf16>>, !txl.smem<64x64xbf16>
    }
    txl.async_load_wait 0
    txl.bar_wait 0, 128
    %s2 = txl.smem_alloc : !txl.smem<32x68xf32, stages = 1>
    %sv2 = txl.get_buffer %s2[%c0] : !txl.smem<32x68xf32, stages = 1>
    %w = txl.relayout %t scratch(%sv2 : !txl.smem<32x68xf32>) : tensor<32x64xf32, #rows> -> tensor<32x64xf32, #cols>
    return
  }
}
