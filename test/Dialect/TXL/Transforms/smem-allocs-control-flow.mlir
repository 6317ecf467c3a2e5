// RUN: txl-opt %s -txl-smem-allocs -split-input-file -verify-diagnostics | FileCheck %s

// Buffers that structured control flow joins get one encoding, chosen from
// the users of any of them: the frontend prints no swizzle (it says which
// buffer the kernel uses, not how it is laid out), and txl-smem-allocs finds
// the TMA load through the scf.if that selects one of two buffers. Both
// allocations, their views and the scf.if result get the descriptor's
// swizzle 64 (not the 128 the rows would allow).
// Both are swizzled, so 1024-aligned: the second starts at 8192.
// CHECK-LABEL: func.func @select_by_if
// CHECK-SAME: txl.shared_bytes = 16384 : i64
// CHECK: %[[S:.*]] = scf.if %{{.*}} -> (!txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 64>>)
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : !llvm.ptr<3> to !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 64>>
// CHECK: } else {
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : !llvm.ptr<3> to !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 64>>
// CHECK: txl.tma_load %{{.*}}, %[[S]], %{{.*}} : !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 64>>, !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 64>>
module attributes {txl.target = "sm_90a"} {
  func.func @select_by_if(%d: !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 64>>, %bar: !txl.mbar, %p: i1) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %a = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1>
    %b = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1>
    %s = scf.if %p -> (!txl.smem<64x64xbf16>) {
      %ab = txl.get_buffer %a[%c0] : !txl.smem<64x64xbf16, stages = 1>
      scf.yield %ab : !txl.smem<64x64xbf16>
    } else {
      %bb = txl.get_buffer %b[%c0] : !txl.smem<64x64xbf16, stages = 1>
      scf.yield %bb : !txl.smem<64x64xbf16>
    }
    txl.tma_load %d[%c0, %c0], %s, %bar : !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 64>>, !txl.smem<64x64xbf16>
    return
  }
}

// -----

// Two buffers swapped by a loop (double buffering written as iter_args): the
// wgmma reads the loop argument, so both get the widest swizzle of their
// 128-byte rows, and so do the loop's initial values, arguments and results.
// CHECK-LABEL: func.func @swap_in_for
// CHECK-COUNT-2: builtin.unrealized_conversion_cast %{{.*}} : !llvm.ptr<3> to !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
// CHECK: scf.for {{.*}} -> (!txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>)
// CHECK: txl.dot %{{.*}}, %{{.*}}, %{{.*}} : !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>,
module attributes {txl.target = "sm_90a"} {
  func.func @swap_in_for(%w: !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>, %n: index) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %i0 = arith.constant 0 : index
    %i1 = arith.constant 1 : index
    %a = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1>
    %b = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1>
    %ab = txl.get_buffer %a[%c0] : !txl.smem<64x64xbf16, stages = 1>
    %bb = txl.get_buffer %b[%c0] : !txl.smem<64x64xbf16, stages = 1>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %r:2 = scf.for %i = %i0 to %n step %i1 iter_args(%x = %ab, %y = %bb) -> (!txl.smem<64x64xbf16>, !txl.smem<64x64xbf16>) {
      %acc = txl.dot %x, %w, %zero : !txl.smem<64x64xbf16>, !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>, tensor<64x64xf32>
      scf.yield %y, %x : !txl.smem<64x64xbf16>, !txl.smem<64x64xbf16>
    }
    return
  }
}

// -----

// A buffer carried through scf.while (before and after regions): the TMA
// store in the after region gives it the descriptor's swizzle 32.
// CHECK-LABEL: func.func @carried_by_while
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : !llvm.ptr<3> to !txl.smem<64x16xbf16, #txl.nvmma_shared<swizzle = 32>>
// CHECK: scf.while (%{{.*}} = %{{.*}}) : (!txl.smem<64x16xbf16, #txl.nvmma_shared<swizzle = 32>>) -> !txl.smem<64x16xbf16, #txl.nvmma_shared<swizzle = 32>>
// CHECK: txl.tma_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : !txl.smem<64x16xbf16, #txl.nvmma_shared<swizzle = 32>>, !txl.tensordesc<64x16xbf16, #txl.nvmma_shared<swizzle = 32>>
module attributes {txl.target = "sm_90a"} {
  func.func @carried_by_while(%d: !txl.tensordesc<64x16xbf16, #txl.nvmma_shared<swizzle = 32>>, %p: i1) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %a = txl.smem_alloc : !txl.smem<64x16xbf16, stages = 1>
    %ab = txl.get_buffer %a[%c0] : !txl.smem<64x16xbf16, stages = 1>
    %r = scf.while (%x = %ab) : (!txl.smem<64x16xbf16>) -> !txl.smem<64x16xbf16> {
      scf.condition(%p) %x : !txl.smem<64x16xbf16>
    } do {
    ^bb0(%y: !txl.smem<64x16xbf16>):
      txl.tma_store %y, %d[%c0, %c0] : !txl.smem<64x16xbf16>, !txl.tensordesc<64x16xbf16, #txl.nvmma_shared<swizzle = 32>>
      scf.yield %y : !txl.smem<64x16xbf16>
    }
    return
  }
}
