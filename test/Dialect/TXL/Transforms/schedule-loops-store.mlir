// RUN: txl-opt %s -txl-schedule-loops | FileCheck %s
// XFAIL: *
// Known bug: txl-schedule-loops issues a scalar txl.load ahead (stage 0) even
// when the loop body writes memory before it (here the very address), so the
// pipelined loop reads the coordinate of iteration i + S - 1 before
// iterations i + 1 .. i + S - 1 stored it. Remove the XFAIL line when fixed.

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// The coordinate is read back from memory the same iteration wrote: it
// cannot be loaded iterations ahead. The loop is not pipelined.
// CHECK-LABEL: func.func @coordinate_from_a_store
// CHECK-NOT: txl.ring
// CHECK-NOT: txl.stage
// CHECK: scf.for
// CHECK: txl.store
// CHECK: txl.load
// CHECK: txl.desc_load
module attributes {txl.target = "sm_90a"} {
  func.func @coordinate_from_a_store(%a: !desc, %p: !txl.ptr<i32>, %k: i32, %o: !txl.ptr<bf16>) attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_stages = 3 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %k step %c1 : i32 {
      txl.store %p, %i : !txl.ptr<i32>, i32
      %j = txl.load %p : !txl.ptr<i32> -> i32
      %t = txl.desc_load %a[%c0, %j] : !desc -> tensor<64x64xbf16>
      %ps = txl.splat %o : !txl.ptr<bf16> -> tensor<64x64x!txl.ptr<bf16>>
      txl.store %ps, %t : tensor<64x64x!txl.ptr<bf16>>, tensor<64x64xbf16>
    }
    return
  }
}
