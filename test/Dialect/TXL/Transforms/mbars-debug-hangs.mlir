// RUN: txl-opt %s -txl-mbars=debug-hangs=1 | FileCheck %s --implicit-check-not=txl.mbar_wait
// RUN: txl-opt %s -txl-mbars | FileCheck %s --check-prefix=PLAIN

// With debug-hangs the wait is a bounded loop: try_wait.parity until done or
// 2 s of %globaltimer have passed, then vprintf where it hung and trap.
// CHECK: llvm.mlir.global internal constant @txl_hang_msg_0("txl: mbarrier wait timed out after 2 s: barrier at shared offset %u, phase %u, block (%u, %u, %u), thread %u, at loc(
// CHECK-LABEL: func.func @wait
// CHECK: %[[START:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
// CHECK: scf.while
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK: scf.condition
// CHECK: nvvm.read.ptx.sreg.globaltimer
// CHECK: llvm.icmp "ugt" %{{.*}}, %{{.*}} : i64
// CHECK: scf.if
// CHECK: llvm.call @vprintf
// CHECK: llvm.intr.trap
// PLAIN-LABEL: func.func @wait
// PLAIN: nvvm.mbarrier.try_wait.parity
// PLAIN-NOT: vprintf
module attributes {txl.target = "sm_90a"} {
  func.func @wait(%bar: !txl.mbar, %phase: i32) attributes {txl.kernel} {
    txl.mbar_wait %bar, %phase : i32
    return
  }
}
