// A deliberately wrong kernel for the hang diagnosis (issue 7): it waits on
// parity 0 of an mbarrier with arrival count 1 that nobody arrives on, so the
// wait never completes. Compiled with `txlc --debug-hangs` the wait gives up
// after 2 s, prints where it hung and traps; bench/hang_check.py runs it on a
// GPU. Here lit only checks that the bounded wait is emitted and assembles.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: txlc %s --debug-hangs --emit=cubin -o %t/hang.ptx
// RUN: FileCheck %s < %t/hang.ptx
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK: %globaltimer
// CHECK: vprintf
// CHECK: trap;
// RUN: txlc %s -o %t/plain.ptx --emit=ptx
// RUN: FileCheck %s --check-prefix=PLAIN < %t/plain.ptx
// PLAIN-NOT: vprintf

module attributes {txl.target = "sm_90a"} {
  func.func @hang(%out: !txl.ptr<f32>) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %bars = txl.mbar_alloc count 1 : !txl.mbar<1>
    %bar = txl.get_buffer %bars[%c0] : !txl.mbar<1>
    txl.mbar_wait %bar, %c0 : i32
    return
  }
}
