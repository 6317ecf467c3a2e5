// RUN: txl-opt %s -split-input-file --txl-erase-dead-values | FileCheck %s --implicit-check-not=erase_me

// Every value named %dead* (and each op that computes one) goes: CHECK-NOT
// lines cannot see a name that is gone, so the ops that must go carry an
// `erase_me` attribute, which --implicit-check-not refuses anywhere in the
// output (discardable attributes are printed, and this one is on nothing
// that must stay).

// Unread pure ops go, a chain of them in one walk, and so do unread
// allocations (the frontend's dry runs leave copies of a loop body's
// allocations behind); what is read stays, and so do ops that read or write
// memory (a volatile load is its access; LLVM decides about plain loads),
// whether or not their results are read.
// CHECK-LABEL: func.func @ops
// CHECK: %[[C:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[BUF:.*]] = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1>
// CHECK-NEXT: %[[A:.*]] = arith.addi %arg1, %[[C]] : i32
// CHECK-NEXT: txl.load %arg0 : tensor<128x!txl.ptr<f32>> -> tensor<128xf32>
// CHECK-NEXT: txl.load %arg0 {isVolatile} : tensor<128x!txl.ptr<f32>> -> tensor<128xf32>
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: txl.get_buffer %[[BUF]]
// CHECK-NEXT: txl.smem_load
// CHECK-NEXT: txl.elementwise_inline_asm "mov.b32 $0, $1;", "=r,r"(%[[A]]) {packed_element = 1 : i32, pure = false}
// CHECK-NEXT: return %[[A]] : i32
module attributes {txl.target = "sm_90a"} {
  func.func @ops(%p: tensor<128x!txl.ptr<f32>>, %x: i32) -> i32 attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c1 = arith.constant 1 : i32
    %dead_c2 = arith.constant {erase_me} 2 : i32
    %buf = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1>
    %dead_buf = txl.smem_alloc {erase_me} : !txl.smem<64x64xbf16, stages = 1>
    %dead_bar = txl.mbar_alloc count 1 {erase_me} : !txl.mbar<1>
    %a = arith.addi %x, %c1 : i32
    %dead_b = arith.muli %a, %dead_c2 {erase_me} : i32
    %dead_s = txl.splat %dead_b {erase_me} : i32 -> tensor<128xi32>
    %dead_r = txl.reduce %dead_s axis 0 {erase_me} : (tensor<128xi32>) -> i32 {
    ^bb0(%l: i32, %r: i32):
      %dead_sum = arith.addi %l, %r {erase_me} : i32
      txl.reduce_return %dead_sum : i32
    }
    %dead_pure_asm = txl.elementwise_inline_asm "mov.b32 $0, $1;", "=r,r" (%a) {packed_element = 1 : i32, pure = true, erase_me} : (i32) -> i32
    %l = txl.load %p : tensor<128x!txl.ptr<f32>> -> tensor<128xf32>
    %v = txl.load %p {isVolatile} : tensor<128x!txl.ptr<f32>> -> tensor<128xf32>
    %c0 = arith.constant 0 : i32
    %view = txl.get_buffer %buf[%c0] : !txl.smem<64x64xbf16, stages = 1>
    %t = txl.smem_load %view : !txl.smem<64x64xbf16> -> tensor<64x64xbf16>
    %asm = txl.elementwise_inline_asm "mov.b32 $0, $1;", "=r,r" (%a) {packed_element = 1 : i32, pure = false} : (i32) -> i32
    return %a : i32
  }
}

// -----

// scf.for: a variable carried for nothing (its result unread, its iter_arg
// read at most to be yielded again in place) goes with its init and what the
// body computed for it (%dead_next, found by the next walk once the yield
// stops reading it). A result read after the loop stays, and so does one
// whose iter_arg the body reads (`s = s + 1` carried and never read after
// the loop: what the frontend kept too); the loop keeps its attributes.
// CHECK-LABEL: func.func @for_results
// CHECK: %[[R:.*]]:2 = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[S:.*]] = %{{.*}}) -> (f32, i32) {
// CHECK-NEXT: %[[ACC2:.*]] = arith.addf %[[ACC]], %arg1 : f32
// CHECK-NEXT: %[[S2:.*]] = arith.addi %[[S]], %{{.*}} : i32
// CHECK-NEXT: scf.yield %[[ACC2]], %[[S2]] : f32, i32
// CHECK-NEXT: } {txl.num_stages = 3 : i32}
// CHECK-NEXT: return %[[R]]#0 : f32
module attributes {txl.target = "sm_90a"} {
  func.func @for_results(%n: index, %x: f32) -> f32 attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0.0 : f32
    %dead_init = arith.constant {erase_me} 7 : i32
    %r:4 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %dead_t = %dead_init, %dead_same = %one, %s = %one) -> (f32, i32, i32, i32) {
      %acc2 = arith.addf %acc, %x : f32
      %dead_next = arith.index_cast %i {erase_me} : index to i32
      %s2 = arith.addi %s, %one : i32
      scf.yield %acc2, %dead_next, %dead_same, %s2 : f32, i32, i32, i32
    } {txl.num_stages = 3 : i32}
    return %r#0 : f32
  }
}

// -----

// scf.if: unread results go, with what each branch computed for them; an if
// left with no result stays (control flow is not this pass's to remove).
// CHECK-LABEL: func.func @if_results
// CHECK: %[[R:.*]] = scf.if %arg0 -> (i32) {
// CHECK-NEXT: scf.yield %arg1 : i32
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[N:.*]] = arith.subi %{{.*}}, %arg1 : i32
// CHECK-NEXT: scf.yield %[[N]] : i32
// CHECK-NEXT: }
// CHECK-NEXT: scf.if %arg0 {
// CHECK-NEXT: } else {
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : i32
module attributes {txl.target = "sm_90a"} {
  func.func @if_results(%c: i1, %x: i32) -> i32 attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %zero = arith.constant 0 : i32
    %r:2 = scf.if %c -> (i32, i32) {
      %dead_a = arith.muli %x, %x {erase_me} : i32
      scf.yield %x, %dead_a : i32, i32
    } else {
      %neg = arith.subi %zero, %x : i32
      scf.yield %neg, %x : i32, i32
    }
    %dead_only = scf.if %c -> (i32) {
      %dead_b = arith.addi %x, %x {erase_me} : i32
      scf.yield %dead_b : i32
    } else {
      scf.yield %x : i32
    }
    return %r#0 : i32
  }
}

// -----

// scf.while: a result goes when neither it nor the `after` region's copy is
// read (scf.condition stops forwarding it); a carried value goes when the
// `before` region does not read it (its init and the yield that feeds it
// go). What the condition reads stays.
// CHECK-LABEL: func.func @while_results
// CHECK: %[[R:.*]] = scf.while (%[[K:.*]] = %arg0) : (i32) -> i32 {
// CHECK-NEXT: %[[LT:.*]] = arith.cmpi slt, %[[K]], %arg1 : i32
// CHECK-NEXT: scf.condition(%[[LT]]) %[[K]] : i32
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0(%[[K2:.*]]: i32):
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[K2]], %{{.*}} : i32
// CHECK-NEXT: scf.yield %[[NEXT]] : i32
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : i32
module attributes {txl.target = "sm_90a"} {
  func.func @while_results(%k0: i32, %n: i32) -> i32 attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %one = arith.constant 1 : i32
    %dead_init = arith.constant {erase_me} 5 : i32
    %r:2 = scf.while (%k = %k0, %dead_v = %dead_init) : (i32, i32) -> (i32, i32) {
      %lt = arith.cmpi slt, %k, %n : i32
      %dead_w = arith.muli %k, %k {erase_me} : i32
      scf.condition(%lt) %k, %dead_w : i32, i32
    } do {
    ^bb0(%k2: i32, %dead_w2: i32):
      %next = arith.addi %k2, %one : i32
      %dead_v2 = arith.addi %dead_w2, %one {erase_me} : i32
      scf.yield %next, %dead_v2 : i32, i32
    }
    return %r#0 : i32
  }
}
