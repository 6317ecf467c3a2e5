// RUN: txl-opt %s -txl-lower-tile-copies -split-input-file | FileCheck %s --implicit-check-not=txl.desc_load

// txl-lower-tile-copies carries the mbarrier phase through scf.while: an
// operand, a before-region argument forwarded by scf.condition, an
// after-region argument yielded back.

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// The load in the after region ("do" body): it waits with the after-region
// argument and yields the flipped phase.
// CHECK-LABEL: func.func @in_while_body
// CHECK:      %[[PHASE0:.*]] = arith.constant 0 : i32
// CHECK:      scf.while (%{{.*}} = %{{.*}}, %[[BP:.*]] = %[[PHASE0]]) : (i32, i32) -> (i32, i32) {
// CHECK:        scf.condition(%{{.*}}) %{{.*}}, %[[BP]] : i32, i32
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0(%[[K:.*]]: i32, %[[AP:.*]]: i32):
// CHECK:        txl.bar_wait 0, 128
// CHECK-NEXT:   txl.mbar_expect
// CHECK-NEXT:   txl.tma_load %{{.*}}[%{{.*}}, %[[K]]]
// CHECK-NEXT:   txl.mbar_wait %{{.*}}, %[[AP]] : i32
// CHECK:        %[[FLIP:.*]] = arith.xori %[[AP]], %{{.*}} : i32
// CHECK:        scf.yield %{{.*}}, %[[FLIP]] : i32, i32
module attributes {txl.target = "sm_90a"} {
  func.func @in_while_body(%d: !desc, %n: i32, %o: !txl.ptr<bf16>) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.while (%k = %c0) : (i32) -> i32 {
      %c = arith.cmpi slt, %k, %n : i32
      scf.condition(%c) %k : i32
    } do {
    ^bb0(%k2: i32):
      %t = txl.desc_load %d[%c0, %k2] : !desc -> tensor<64x64xbf16>
      %ps = txl.splat %o : !txl.ptr<bf16> -> tensor<64x64x!txl.ptr<bf16>>
      txl.store %ps, %t : tensor<64x64x!txl.ptr<bf16>>, tensor<64x64xbf16>
      %k3 = arith.addi %k2, %c64 : i32
      scf.yield %k3 : i32
    }
    return
  }
}

// -----

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// The load in the before region (the condition): scf.condition forwards the
// flipped phase to the body, which passes it back.
// CHECK-LABEL: func.func @in_while_condition
// CHECK:      scf.while (%{{.*}} = %{{.*}}, %[[BP:.*]] = %{{.*}}) : (i32, i32) -> (i32, i32) {
// CHECK:        txl.bar_wait 0, 128
// CHECK:        txl.mbar_wait %{{.*}}, %[[BP]] : i32
// CHECK:        %[[FLIP:.*]] = arith.xori %[[BP]], %{{.*}} : i32
// CHECK:        scf.condition(%{{.*}}) %{{.*}}, %[[FLIP]] : i32, i32
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0(%{{.*}}: i32, %[[AP:.*]]: i32):
// CHECK:        scf.yield %{{.*}}, %[[AP]] : i32, i32
module attributes {txl.target = "sm_90a"} {
  func.func @in_while_condition(%d: !desc, %n: i32) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.while (%k = %c0) : (i32) -> i32 {
      %t = txl.desc_load %d[%c0, %k] : !desc -> tensor<64x64xbf16>
      %e = arith.extf %t : tensor<64x64xbf16> to tensor<64x64xf32>
      %row = txl.reduce %e axis 1 : (tensor<64x64xf32>) -> tensor<64xf32> {
      ^bb0(%x: f32, %y: f32):
        %s = arith.maximumf %x, %y : f32
        txl.reduce_return %s : f32
      }
      %m = txl.reduce %row axis 0 : (tensor<64xf32>) -> f32 {
      ^bb0(%x: f32, %y: f32):
        %s = arith.maximumf %x, %y : f32
        txl.reduce_return %s : f32
      }
      %lim = arith.constant 1.0e+02 : f32
      %c = arith.cmpf olt, %m, %lim : f32
      scf.condition(%c) %k : i32
    } do {
    ^bb0(%k2: i32):
      %k3 = arith.addi %k2, %c64 : i32
      scf.yield %k3 : i32
    }
    return
  }
}
