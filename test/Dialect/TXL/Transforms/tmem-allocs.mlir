// RUN: txl-opt %s -txl-smem-allocs -txl-tmem-allocs -split-input-file -verify-diagnostics | FileCheck %s --implicit-check-not=txl.tmem_alloc --implicit-check-not=txl.get_buffer --implicit-check-not=nvvm.tcgen05.alloc --implicit-check-not=nvvm.tcgen05.dealloc

// Error cases are checked by -verify-diagnostics in the same run (their
// chunks print nothing); the other chunks are checked by FileCheck.
// --txl-smem-allocs runs first: it gives each tmem_alloc the 4-byte
// shared-memory slot that tcgen05.alloc writes the TMEM address to.

// One 128x96xf32 buffer: 96 columns, allocated as the next power of two
// (128). Warp 0 (tid / 32 == 0) allocates into the slot and relinquishes the
// permit; a fenced block barrier publishes the address, which every thread
// loads from shared memory. get_buffer is the address + index * 96 columns.
// Before the return: fence, barrier, and warp 0 deallocates the 128 columns.
// CHECK-LABEL: func.func @one_buffer
// CHECK-SAME: (%[[I:.*]]: i32)
// CHECK: %[[SLOT:.*]] = llvm.mlir.addressof @txl_smem : !llvm.ptr<3>
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[C32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK: %[[WARP:.*]] = llvm.udiv %[[TID]], %[[C32]] : i32
// CHECK: %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: %[[W0:.*]] = llvm.icmp "eq" %[[WARP]], %[[C0]] : i32
// CHECK: scf.if %[[W0]] {
// CHECK-NEXT:   %[[COLS:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:   nvvm.tcgen05.alloc %[[SLOT]], %[[COLS]] : !llvm.ptr<3>, i32
// CHECK-NEXT:   nvvm.tcgen05.relinquish_alloc_permit
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.tcgen05.fence <before>
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: nvvm.tcgen05.fence <after>
// CHECK-NEXT: %[[BASE:.*]] = llvm.load %[[SLOT]] : !llvm.ptr<3> -> i32
// CHECK-NEXT: builtin.unrealized_conversion_cast %[[BASE]] : i32 to !txl.tmem<128x96xf32, stages = 1>
// CHECK-NEXT: %[[STRIDE:.*]] = llvm.mlir.constant(96 : i32) : i32
// CHECK-NEXT: %[[OFF:.*]] = llvm.mul %[[I]], %[[STRIDE]] : i32
// CHECK-NEXT: %[[ADDR:.*]] = llvm.add %[[BASE]], %[[OFF]] : i32
// CHECK-NEXT: %[[VIEW:.*]] = builtin.unrealized_conversion_cast %[[ADDR]] : i32 to !txl.tmem<128x96xf32>
// CHECK-NEXT: txl.tmem_load %[[VIEW]] : !txl.tmem<128x96xf32> -> tensor<128x96xf32>
// CHECK-NEXT: nvvm.tcgen05.fence <before>
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: %[[TID2:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %[[C32B:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT: %[[WARP2:.*]] = llvm.udiv %[[TID2]], %[[C32B]] : i32
// CHECK-NEXT: %[[C0B:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[W02:.*]] = llvm.icmp "eq" %[[WARP2]], %[[C0B]] : i32
// CHECK-NEXT: scf.if %[[W02]] {
// CHECK-NEXT:   nvvm.tcgen05.fence <after>
// CHECK-NEXT:   %[[PTR:.*]] = llvm.inttoptr %[[BASE]] : i32 to !llvm.ptr<6>
// CHECK-NEXT:   %[[COLS2:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:   nvvm.tcgen05.dealloc %[[PTR]], %[[COLS2]] : !llvm.ptr<6>, i32
// CHECK-NEXT: }
// CHECK-NEXT: return
module attributes {txl.target = "sm_100a"} {
  func.func @one_buffer(%i: i32) attributes {txl.kernel} {
    %acc = txl.tmem_alloc : !txl.tmem<128x96xf32, stages = 1>
    %v = txl.get_buffer %acc[%i] : !txl.tmem<128x96xf32, stages = 1>
    %t = txl.tmem_load %v : !txl.tmem<128x96xf32> -> tensor<128x96xf32>
    return
  }
}

// -----

// Two buffers share one allocation: 64 + 128 = 192 columns, allocated as
// 256. The first starts at the allocation's column 0, the second at column
// 64 (address + 64); its get_buffer adds index * 128 to that.
// CHECK-LABEL: func.func @two_buffers
// CHECK-SAME: (%[[I:.*]]: i32)
// CHECK: scf.if
// CHECK-NEXT:   %[[COLS:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT:   nvvm.tcgen05.alloc %{{.*}}, %[[COLS]] : !llvm.ptr<3>, i32
// CHECK: %[[BASE:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK-NEXT: builtin.unrealized_conversion_cast %[[BASE]] : i32 to !txl.tmem<128x64xf32, stages = 1>
// CHECK-NEXT: %[[C64:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-NEXT: %[[B:.*]] = llvm.add %[[BASE]], %[[C64]] : i32
// CHECK-NEXT: builtin.unrealized_conversion_cast %[[B]] : i32 to !txl.tmem<128x128xf32, stages = 1>
// CHECK-NEXT: %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: %[[OFF:.*]] = llvm.mul %[[I]], %[[C128]] : i32
// CHECK-NEXT: %[[ADDR:.*]] = llvm.add %[[B]], %[[OFF]] : i32
// CHECK-NEXT: %[[VIEW:.*]] = builtin.unrealized_conversion_cast %[[ADDR]] : i32 to !txl.tmem<128x128xf32>
// CHECK-NEXT: txl.tmem_load %[[VIEW]]
// CHECK: scf.if
// CHECK: %[[DCOLS:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT: nvvm.tcgen05.dealloc %{{.*}}, %[[DCOLS]] : !llvm.ptr<6>, i32
module attributes {txl.target = "sm_100a"} {
  func.func @two_buffers(%i: i32) attributes {txl.kernel} {
    %a = txl.tmem_alloc : !txl.tmem<128x64xf32, stages = 1>
    %b = txl.tmem_alloc : !txl.tmem<128x128xf32, stages = 1>
    %v = txl.get_buffer %b[%i] : !txl.tmem<128x128xf32, stages = 1>
    %t = txl.tmem_load %v : !txl.tmem<128x128xf32> -> tensor<128x128xf32>
    return
  }
}

// -----

// A double-buffered 128x256xf32 accumulator fills all 512 columns;
// get_buffer of stage %i is the address + %i * 256.
// CHECK-LABEL: func.func @multi_stage
// CHECK-SAME: (%[[I:.*]]: i32)
// CHECK: %[[COLS:.*]] = llvm.mlir.constant(512 : i32) : i32
// CHECK-NEXT: nvvm.tcgen05.alloc %{{.*}}, %[[COLS]] : !llvm.ptr<3>, i32
// CHECK: %[[BASE:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: %[[C256:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT: %[[OFF:.*]] = llvm.mul %[[I]], %[[C256]] : i32
// CHECK-NEXT: %[[ADDR:.*]] = llvm.add %[[BASE]], %[[OFF]] : i32
// CHECK-NEXT: %[[VIEW:.*]] = builtin.unrealized_conversion_cast %[[ADDR]] : i32 to !txl.tmem<128x256xf32>
// CHECK-NEXT: txl.tmem_load %[[VIEW]]
// CHECK: %[[DCOLS:.*]] = llvm.mlir.constant(512 : i32) : i32
// CHECK-NEXT: nvvm.tcgen05.dealloc %{{.*}}, %[[DCOLS]] : !llvm.ptr<6>, i32
module attributes {txl.target = "sm_100a"} {
  func.func @multi_stage(%i: i32) attributes {txl.kernel} {
    %acc = txl.tmem_alloc : !txl.tmem<128x256xf32, stages = 2>
    %v = txl.get_buffer %acc[%i] : !txl.tmem<128x256xf32, stages = 2>
    %t = txl.tmem_load %v : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
    return
  }
}

// -----

// 16-bit elements pack two to a 32-bit column: 128x32xbf16 is 16 columns,
// and an allocation is at least 32. Each return of the kernel deallocates.
// CHECK-LABEL: func.func @minimum_and_two_returns
// CHECK: scf.if
// CHECK-NEXT: %[[COLS:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT: nvvm.tcgen05.alloc %{{.*}}, %[[COLS]] : !llvm.ptr<3>, i32
// CHECK: %[[BASE:.*]] = llvm.load
// CHECK: cf.cond_br
// CHECK: ^bb1:
// CHECK: nvvm.barrier0
// CHECK: scf.if
// CHECK:   %[[P1:.*]] = llvm.inttoptr %[[BASE]] : i32 to !llvm.ptr<6>
// CHECK-NEXT:   %[[D1:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT:   nvvm.tcgen05.dealloc %[[P1]], %[[D1]] : !llvm.ptr<6>, i32
// CHECK: return
// CHECK: ^bb2:
// CHECK: nvvm.barrier0
// CHECK: scf.if
// CHECK:   %[[P2:.*]] = llvm.inttoptr %[[BASE]] : i32 to !llvm.ptr<6>
// CHECK-NEXT:   %[[D2:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT:   nvvm.tcgen05.dealloc %[[P2]], %[[D2]] : !llvm.ptr<6>, i32
// CHECK: return
module attributes {txl.target = "sm_100a"} {
  func.func @minimum_and_two_returns(%p: i1) attributes {txl.kernel} {
    %acc = txl.tmem_alloc : !txl.tmem<128x32xbf16, stages = 1>
    cf.cond_br %p, ^a, ^b
  ^a:
    return
  ^b:
    return
  }
}

// -----

// A kernel without tensor memory is left alone.
// CHECK-LABEL: func.func @no_tmem
// CHECK-NEXT: return
module attributes {txl.target = "sm_100a"} {
  func.func @no_tmem() attributes {txl.kernel} {
    return
  }
}

// -----

// Each buffer fits (512 and 32 columns), but together they need 544.
module attributes {txl.target = "sm_100a"} {
  func.func @too_many_columns() attributes {txl.kernel} {
    // expected-error @+1 {{the kernel's tensor-memory buffers need 544 columns; a block has 512. Use fewer stages or narrower accumulators}}
    %a = txl.tmem_alloc : !txl.tmem<128x256xf32, stages = 2>
    %b = txl.tmem_alloc : !txl.tmem<128x32xf32, stages = 1>
    return
  }
}

// -----

// Tensor memory is allocated once, by warp 0, before any divergent region.
module attributes {txl.target = "sm_100a"} {
  func.func @not_top_level(%p: i1) attributes {txl.kernel} {
    scf.if %p {
      // expected-error @+1 {{must be at the kernel's top level: tensor memory is allocated once, by warp 0, before any warp-specialized region}}
      %a = txl.tmem_alloc : !txl.tmem<128x256xf32, stages = 1>
    }
    return
  }
}
