// RUN: txl-opt %s -txl-expand-loops -split-input-file -verify-diagnostics | FileCheck %s
// RUN: txl-opt %s -txl-schedule-loops -txl-expand-loops -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=BOTH

// txl-expand-loops (loop pipeliner, step 2): upstream scf::pipelineForLoop
// with the schedule recorded by txl-schedule-loops (txl.stage / txl.order).
// The prologue issues stage 0 of the first S - 1 iterations, the loop runs
// stage 0 of iteration i + S - 1 after stage S - 1 of iteration i. The
// epilogue is not peeled: stage-0 ops of iterations past the end are
// predicated off (TMA and expect under scf.if, a scalar load masked). The
// annotations are removed.

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
!ring = !txl.smem<64x64xbf16, stages = 1, #txl.nvmma_shared<swizzle = 128>>
!view = !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// A 2-stage schedule written by hand: the block index (a scalar load whose
// own mask is kept and and-ed with the predicate), the expect and the TMA in
// stage 0; wait, read and the barrier in stage 1.
// CHECK-LABEL: func.func @annotated
// CHECK-SAME: (%[[A:.*]]: !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, %[[IDX:.*]]: !txl.ptr<i32>, %[[N:.*]]: i32)
// Prologue: iteration 0's stage 0, predicated on 0 < n.
// CHECK:      %[[P0:.*]] = arith.cmpi slt, %{{.*}}, %[[N]] : i32
// CHECK:      %[[PTR0:.*]] = txl.addptr %[[IDX]], %{{.*}} : !txl.ptr<i32>, i32
// CHECK:      %[[OK0:.*]] = arith.cmpi sge
// CHECK:      %[[MASK0:.*]] = arith.andi %[[OK0]], %[[P0]] : i1
// CHECK:      %[[BLK0:.*]] = txl.load %[[PTR0]] mask %[[MASK0]] : !txl.ptr<i32> -> i32
// CHECK:      %[[COL0:.*]] = arith.muli %[[BLK0]], %{{.*}} : i32
// CHECK:      scf.if %[[P0]] {
// CHECK-NEXT:   txl.mbar_expect %{{.*}}, 8192
// CHECK-NEXT: }
// CHECK:      scf.if %[[P0]] {
// CHECK-NEXT:   txl.tma_load %[[A]][%{{.*}}, %[[COL0]]]
// CHECK-NEXT: }
// The kernel loop: stage 1 of iteration i, then stage 0 of iteration i + 1,
// predicated on i < n - 1.
// CHECK:      scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %[[STEP:[^ ]*]] iter_args
// CHECK:        %[[LAST:.*]] = arith.subi %[[N]], %{{.*}} : i32
// CHECK:        %[[P:.*]] = arith.cmpi slt, %[[I]], %[[LAST]] : i32
// CHECK:        txl.mbar_wait
// CHECK:        txl.smem_load
// CHECK:        arith.addf
// CHECK:        txl.bar_wait 0, 128
// CHECK:        %[[NEXT:.*]] = arith.addi %[[I]], %{{.*}} : i32
// CHECK:        %[[PTR:.*]] = txl.addptr %[[IDX]], %[[NEXT]] : !txl.ptr<i32>, i32
// CHECK:        %[[MASK:.*]] = arith.andi %{{.*}}, %[[P]] : i1
// CHECK:        %[[BLK:.*]] = txl.load %[[PTR]] mask %[[MASK]] : !txl.ptr<i32> -> i32
// CHECK:        %[[COL:.*]] = arith.muli %[[BLK]], %{{.*}} : i32
// CHECK:        scf.if %[[P]] {
// CHECK-NEXT:     txl.mbar_expect %{{.*}}, 8192
// CHECK-NEXT:   }
// CHECK:        scf.if %[[P]] {
// CHECK-NEXT:     txl.tma_load %[[A]][%{{.*}}, %[[COL]]]
// CHECK-NEXT:   }
// CHECK-NEXT:   scf.yield
// CHECK-NOT: txl.stage
// CHECK-NOT: txl.order
// The same input passes txl-schedule-loops untouched (no txl.num_stages).
// BOTH-LABEL: func.func @annotated
// BOTH: scf.if
// BOTH: txl.tma_load
// BOTH: scf.for
// BOTH-NOT: txl.stage
module attributes {txl.target = "sm_90a"} {
  func.func @annotated(%a: !desc, %idx: !txl.ptr<i32>, %n: i32) -> tensor<64x64xf32> attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %ring = txl.smem_alloc {txl.ring} : !ring
    %bars = txl.mbar_alloc count 1 : !txl.mbar<1>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %ph = arith.andi %i, %c1 {txl.stage = 1 : i32, txl.order = 0 : i32} : i32
      %v1 = txl.get_buffer %ring[%c0] {txl.stage = 1 : i32, txl.order = 1 : i32} : !ring
      %b1 = txl.get_buffer %bars[%c0] {txl.stage = 1 : i32, txl.order = 2 : i32} : !txl.mbar<1>
      txl.mbar_wait %b1, %ph {txl.stage = 1 : i32, txl.order = 3 : i32} : i32
      %t = txl.smem_load %v1 {txl.stage = 1 : i32, txl.order = 4 : i32} : !view -> tensor<64x64xbf16>
      %e = arith.extf %t {txl.stage = 1 : i32, txl.order = 5 : i32} : tensor<64x64xbf16> to tensor<64x64xf32>
      %s = arith.addf %acc, %e {txl.stage = 1 : i32, txl.order = 6 : i32} : tensor<64x64xf32>
      txl.bar_wait 0, 128 {txl.stage = 1 : i32, txl.order = 7 : i32}
      %p = txl.addptr %idx, %i {txl.stage = 0 : i32, txl.order = 8 : i32} : !txl.ptr<i32>, i32
      %ok = arith.cmpi sge, %i, %c0 {txl.stage = 0 : i32, txl.order = 9 : i32} : i32
      %blk = txl.load %p mask %ok {txl.stage = 0 : i32, txl.order = 10 : i32} : !txl.ptr<i32> -> i32
      %col = arith.muli %blk, %c64 {txl.stage = 0 : i32, txl.order = 11 : i32} : i32
      %v0 = txl.get_buffer %ring[%c0] {txl.stage = 0 : i32, txl.order = 12 : i32} : !ring
      %b0 = txl.get_buffer %bars[%c0] {txl.stage = 0 : i32, txl.order = 13 : i32} : !txl.mbar<1>
      txl.mbar_expect %b0, 8192 {txl.stage = 0 : i32, txl.order = 14 : i32}
      txl.tma_load %a[%c0, %col], %v0, %b0 {txl.stage = 0 : i32, txl.order = 15 : i32} : !desc, !view
      scf.yield %s : tensor<64x64xf32>
    }
    return %r : tensor<64x64xf32>
  }
}

// -----

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// Both steps on what the frontend emits (num_stages = 3): a 2-slot ring
// (allocated before the loop), a prologue issuing iterations 0 and 1 under
// scf.if, the pipelined loop waiting for iteration i and issuing i + 2.
// Without txl-schedule-loops, txl-expand-loops leaves the loop alone.
// CHECK-LABEL: func.func @from_the_frontend
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK: txl.desc_load
// BOTH-LABEL: func.func @from_the_frontend
// BOTH-SAME: (%[[A:[^:]*]]: !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, %[[K:.*]]: i32)
// BOTH:      %[[BARS:.*]] = txl.mbar_alloc count 1 : !txl.mbar<2>
// BOTH:      %[[RING:.*]] = txl.smem_alloc {txl.ring} : !txl.smem<64x64xbf16, stages = 2, #txl.nvmma_shared<swizzle = 128>>
// BOTH:      %[[P0:.*]] = arith.cmpi slt, %{{.*}}, %[[K]] : i32
// BOTH:      scf.if %[[P0]] {
// BOTH-NEXT:   txl.mbar_expect %{{.*}}, 8192
// BOTH:      scf.if %[[P0]] {
// BOTH-NEXT:   txl.tma_load %[[A]]
// BOTH:      %[[P1:.*]] = arith.cmpi slt, %{{.*}}, %[[K]] : i32
// BOTH:      scf.if %[[P1]] {
// BOTH-NEXT:   txl.mbar_expect %{{.*}}, 8192
// BOTH:      scf.if %[[P1]] {
// BOTH-NEXT:   txl.tma_load %[[A]]
// BOTH:      scf.for %[[I:.*]] = %{{.*}} to %[[K]] step %{{.*}} iter_args
// BOTH:        %[[P:.*]] = arith.cmpi slt, %[[I]], %{{.*}} : i32
// BOTH:        txl.mbar_wait
// BOTH:        %[[T:.*]] = txl.smem_load
// BOTH:        txl.bar_wait 0, 128
// BOTH:        scf.if %[[P]] {
// BOTH-NEXT:     txl.mbar_expect %{{.*}}, 8192
// BOTH:        scf.if %[[P]] {
// BOTH-NEXT:     txl.tma_load %[[A]]
// BOTH:        scf.yield
// BOTH-NOT: txl.stage
// BOTH-NOT: txl.order
// BOTH-NOT: txl.desc_load
module attributes {txl.target = "sm_90a"} {
  func.func @from_the_frontend(%a: !desc, %k: i32) -> tensor<64x64xf32> attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_stages = 3 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %i = %c0 to %k step %c64 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %t = txl.desc_load %a[%c0, %i] : !desc -> tensor<64x64xbf16>
      %e = arith.extf %t : tensor<64x64xbf16> to tensor<64x64xf32>
      %s = arith.addf %acc, %e : tensor<64x64xf32>
      scf.yield %s : tensor<64x64xf32>
    }
    return %r : tensor<64x64xf32>
  }
}

// -----

// Every op of a scheduled loop needs a stage (the schedule is the body's).
module attributes {txl.target = "sm_90a"} {
  func.func @missing_stage(%n: i32, %p: !txl.ptr<i32>) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      %j = arith.addi %i, %c1 {txl.stage = 0 : i32, txl.order = 1 : i32} : i32
      // expected-error @+1 {{'txl.store' op has no pipeline stage; txl-schedule-loops gives every op of a scheduled loop `txl.stage` and `txl.order`}}
      txl.store %p, %j : !txl.ptr<i32>, i32
    }
    return
  }
}
