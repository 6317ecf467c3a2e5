// RUN: txl-opt %s -txl-mbars -split-input-file -verify-diagnostics | FileCheck %s --implicit-check-not=txl.mbar_ --implicit-check-not=txl.get_buffer

// Error cases are checked by -verify-diagnostics in the same run (their
// chunks print nothing); the other chunks are checked by FileCheck. The
// mbar_allocs carry the txl.offset that --txl-smem-allocs would plan.

// mbar_alloc at its planned offset: thread 0 initialises each of the 3
// barriers (8 bytes apart) with the arrive count, fences the inits for the
// async proxy, then the whole block syncs. get_buffer is index * 8 bytes.
// CHECK: llvm.mlir.global external @txl_smem()
// CHECK-LABEL: func.func @init_and_get_buffer
// CHECK-SAME: (%[[I:.*]]: i32)
// CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @txl_smem : !llvm.ptr<3>
// CHECK: %[[BASE:.*]] = llvm.getelementptr %[[SMEM]][1024] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: %[[FIRST:.*]] = llvm.icmp "eq" %[[TID]], %[[ZERO]] : i32
// CHECK: scf.if %[[FIRST]] {
// CHECK:   %[[COUNT:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK:   nvvm.mbarrier.init %[[BASE]], %[[COUNT]] : !llvm.ptr<3>, i32
// CHECK:   %[[B1:.*]] = llvm.getelementptr %[[BASE]][8] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK:   nvvm.mbarrier.init %[[B1]], %[[COUNT]] : !llvm.ptr<3>, i32
// CHECK:   %[[B2:.*]] = llvm.getelementptr %[[BASE]][16] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK:   nvvm.mbarrier.init %[[B2]], %[[COUNT]] : !llvm.ptr<3>, i32
// CHECK-NOT: nvvm.mbarrier.init
// CHECK:   nvvm.fence.mbarrier.init
// CHECK: }
// CHECK-NEXT: nvvm.barrier0
// CHECK: %[[IDX:.*]] = llvm.sext %[[I]] : i32 to i64
// CHECK: %[[EIGHT:.*]] = llvm.mlir.constant(8 : i64) : i64
// CHECK: %[[OFF:.*]] = llvm.mul %[[IDX]], %[[EIGHT]] : i64
// CHECK: %[[BAR:.*]] = llvm.getelementptr %[[BASE]][%[[OFF]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK: nvvm.mbarrier.arrive %[[BAR]] : !llvm.ptr<3>
module attributes {txl.target = "sm_90a"} {
  func.func @init_and_get_buffer(%i: i32) attributes {txl.kernel} {
    %bars = txl.mbar_alloc count 128 {txl.offset = 1024 : i64} : !txl.mbar<3>
    %b = txl.get_buffer %bars[%i] : !txl.mbar<3>
    txl.mbar_arrive %b
    return
  }
}

// -----

// mbar_expect: arrive.expect_tx with the byte count, by the first thread of
// the warpgroup (tid % 128 == 0), and-ed with the op's own predicate.
// CHECK-LABEL: func.func @expect
// CHECK-SAME: (%[[ARG:.*]]: !txl.mbar, %[[P:.*]]: i1)
// CHECK: %[[BAR:.*]] = builtin.unrealized_conversion_cast %[[ARG]] : !txl.mbar to !llvm.ptr<3>
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK: %[[LANE:.*]] = llvm.urem %[[TID]], %[[C128]] : i32
// CHECK: %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: %[[LEADER:.*]] = llvm.icmp "eq" %[[LANE]], %[[C0]] : i32
// CHECK: %[[BYTES:.*]] = llvm.mlir.constant(16384 : i32) : i32
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[BAR]], %[[BYTES]], predicate = %[[LEADER]] : !llvm.ptr<3>, i32, i1
// CHECK: %[[LEADER2:.*]] = llvm.icmp "eq"
// CHECK: %[[BOTH:.*]] = llvm.and %[[LEADER2]], %[[P]] : i1
// CHECK: %[[BYTES2:.*]] = llvm.mlir.constant(8192 : i32) : i32
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[BAR]], %[[BYTES2]], predicate = %[[BOTH]] : !llvm.ptr<3>, i32, i1
module attributes {txl.target = "sm_90a"} {
  func.func @expect(%bar: !txl.mbar, %p: i1) attributes {txl.kernel} {
    txl.mbar_expect %bar, 16384
    txl.mbar_expect %bar, 8192 pred %p
    return
  }
}

// -----

// mbar_arrive: plain; predicated (an scf.if around the arrive); tracking
// this thread's cp.async copies (noinc); with tx bytes (arrive.expect_tx by
// every thread that executes it, no leader predicate).
// CHECK-LABEL: func.func @arrive
// CHECK-SAME: (%[[ARG:.*]]: !txl.mbar, %[[P:.*]]: i1)
// CHECK: %[[BAR:.*]] = builtin.unrealized_conversion_cast %[[ARG]] : !txl.mbar to !llvm.ptr<3>
// CHECK-NEXT: nvvm.mbarrier.arrive %[[BAR]] : !llvm.ptr<3>
// CHECK-NEXT: scf.if %[[P]] {
// CHECK-NEXT:   nvvm.mbarrier.arrive %[[BAR]] : !llvm.ptr<3>
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.cp.async.mbarrier.arrive %[[BAR]] {noinc = true} : !llvm.ptr<3>
// CHECK-NEXT: %[[TX:.*]] = llvm.mlir.constant(4096 : i32) : i32
// CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx %[[BAR]], %[[TX]] : !llvm.ptr<3>, i32
// CHECK-NEXT: return
module attributes {txl.target = "sm_90a"} {
  func.func @arrive(%bar: !txl.mbar, %p: i1) attributes {txl.kernel} {
    txl.mbar_arrive %bar
    txl.mbar_arrive %bar pred %p
    txl.mbar_arrive %bar {track_async_op}
    txl.mbar_arrive %bar {tx_count = 4096 : i32}
    return
  }
}

// -----

// mbar_wait: a try_wait.parity loop on the phase, with the 10 ms suspend hint.
// CHECK-LABEL: func.func @wait
// CHECK-SAME: (%[[ARG:.*]]: !txl.mbar, %[[PHASE:.*]]: i32)
// CHECK: %[[BAR:.*]] = builtin.unrealized_conversion_cast %[[ARG]] : !txl.mbar to !llvm.ptr<3>
// CHECK: %[[HINT:.*]] = llvm.mlir.constant(10000000 : i32) : i32
// CHECK: nvvm.mbarrier.try_wait.parity %[[BAR]], %[[PHASE]], %[[HINT]] : !llvm.ptr<3>, i32, i32
module attributes {txl.target = "sm_90a"} {
  func.func @wait(%bar: !txl.mbar, %phase: i32) attributes {txl.kernel} {
    txl.mbar_wait %bar, %phase : i32
    return
  }
}

// -----

// The initialisation ends in a block-wide barrier, so an mbar_alloc inside a
// (possibly divergent or warp-specialized) region is rejected.
module attributes {txl.target = "sm_90a"} {
  func.func @alloc_in_region(%p: i1) attributes {txl.kernel} {
    scf.if %p {
      // expected-error @+2 {{failed to legalize operation 'txl.mbar_alloc'}}
      // expected-error @+1 {{must be at the kernel's top level: its initialisation ends in a barrier of all threads}}
      %bars = txl.mbar_alloc count 1 {txl.offset = 0 : i64} : !txl.mbar<2>
    }
    return
  }
}

// -----

// An mbar_alloc that SmemAllocs has not planned.
module attributes {txl.target = "sm_90a"} {
  func.func @unplanned() attributes {txl.kernel} {
    // expected-error @+2 {{failed to legalize operation 'txl.mbar_alloc'}}
    // expected-error @+1 {{has no planned offset; run --txl-smem-allocs first}}
    %bars = txl.mbar_alloc count 1 : !txl.mbar<2>
    return
  }
}

// -----

// Regression test: a remote arrive cast the barrier to ptr<7> before
// nvvm.mapa, which then failed to verify.
// A remote arrive maps the CTA-local mbarrier (ptr<3>) into the cluster
// window with nvvm.mapa and arrives on the cluster address.
// CHECK-LABEL: func.func @remote_arrive(
// CHECK: %[[P:.*]] = nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.mbarrier.arrive %[[P]] : !llvm.ptr<7>
module attributes {txl.target = "sm_90a"} {
  func.func @remote_arrive(%bar: !txl.mbar, %cta: i32) attributes {txl.kernel} {
    txl.mbar_arrive %bar remote %cta
    return
  }
}
