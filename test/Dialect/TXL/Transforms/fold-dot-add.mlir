// RUN: txl-opt %s -split-input-file --txl-fold-dot-add | FileCheck %s --implicit-check-not=arith.addf --implicit-check-not=arith.addi

// `acc + tl.dot(a, b)` with the accumulator an argument: the dot accumulates
// into it, the zero and the add go.
// CHECK-LABEL: func.func @fold_argument
// CHECK-SAME: (%[[A:[^:]*]]: !txl.smem<64x64xbf16>, %[[B:[^:]*]]: !txl.smem<64x64xbf16>, %[[ACC:[^:]*]]: tensor<64x64xf32>)
// CHECK-NOT: arith.constant
// CHECK-NEXT: %[[D:.*]] = txl.dot %[[A]], %[[B]], %[[ACC]] :
// CHECK-NEXT: return %[[D]]
module attributes {txl.target = "sm_90a"} {
  func.func @fold_argument(%a: !txl.smem<64x64xbf16>, %b: !txl.smem<64x64xbf16>, %acc: tensor<64x64xf32>) -> tensor<64x64xf32> {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %d = txl.dot %a, %b, %zero : !txl.smem<64x64xbf16>, !txl.smem<64x64xbf16>, tensor<64x64xf32>
    %s = arith.addf %acc, %d : tensor<64x64xf32>
    return %s : tensor<64x64xf32>
  }
}

// -----

// TXL's `acc += tl.dot(q, k.T)` in a loop, the dot async and retired by
// `txl.dot_wait 0`, which passes the sum through: after the fold the dot
// accumulates into the loop-carried value and the wait passes the dot's
// result. Two dots added in turn fold one after the other.
// CHECK-LABEL: func.func @fold_async_in_loop
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = {{.*}})
// CHECK-NEXT: %[[D1:.*]] = txl.dot %{{.*}}, %{{.*}}, %[[ACC]] {async}
// CHECK-NEXT: %[[D2:.*]] = txl.dot %{{.*}}, %{{.*}}, %[[D1]] {async}
// CHECK-NEXT: %[[W:.*]] = txl.dot_wait 0, %[[D2]]
// CHECK-NEXT: scf.yield %[[W]]
module attributes {txl.target = "sm_90a"} {
  func.func @fold_async_in_loop(%a: !txl.smem<64x64xbf16>, %b: !txl.smem<64x64xbf16>, %n: index) -> tensor<64x64xf32> attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) {
      %d1 = txl.dot %a, %b, %zero {async} : !txl.smem<64x64xbf16>, !txl.smem<64x64xbf16>, tensor<64x64xf32>
      %s1 = arith.addf %acc, %d1 : tensor<64x64xf32>
      %d2 = txl.dot %a, %b, %zero {async} : !txl.smem<64x64xbf16>, !txl.smem<64x64xbf16>, tensor<64x64xf32>
      %s2 = arith.addf %d2, %s1 : tensor<64x64xf32>
      %w = txl.dot_wait 0, %s2 : tensor<64x64xf32>
      scf.yield %w : tensor<64x64xf32>
    }
    return %r : tensor<64x64xf32>
  }
}

// -----

// An i8 dot's i32 product added with arith.addi folds the same way.
// CHECK-LABEL: func.func @fold_int
// CHECK-NEXT: %[[D:.*]] = txl.dot %{{.*}}, %{{.*}}, %arg2 :
// CHECK-NEXT: return %[[D]]
module attributes {txl.target = "sm_90a"} {
  func.func @fold_int(%a: !txl.smem<64x64xi8>, %b: !txl.smem<64x64xi8>, %acc: tensor<64x64xi32>) -> tensor<64x64xi32> {
    %zero = arith.constant dense<0> : tensor<64x64xi32>
    %d = txl.dot %a, %b, %zero : !txl.smem<64x64xi8>, !txl.smem<64x64xi8>, tensor<64x64xi32>
    %s = arith.addi %d, %acc : tensor<64x64xi32>
    return %s : tensor<64x64xi32>
  }
}

// -----

// Left alone: a product read twice, a non-zero accumulator, use_acc, and a
// value computed after the dot (the dot cannot read it where it stands).
// CHECK-LABEL: func.func @not_folded
// CHECK-COUNT-4: arith.addf
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @not_folded(%a: !txl.smem<64x64xbf16>, %b: !txl.smem<64x64xbf16>, %acc: tensor<64x64xf32>, %u: i1, %p: tensor<64x64x!txl.ptr<f32>>) -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %d1 = txl.dot %a, %b, %zero : !txl.smem<64x64xbf16>, !txl.smem<64x64xbf16>, tensor<64x64xf32>
    %s1 = arith.addf %acc, %d1 : tensor<64x64xf32>
    txl.store %p, %d1 : tensor<64x64x!txl.ptr<f32>>, tensor<64x64xf32>
    %d2 = txl.dot %a, %b, %acc : !txl.smem<64x64xbf16>, !txl.smem<64x64xbf16>, tensor<64x64xf32>
    %s2 = arith.addf %acc, %d2 : tensor<64x64xf32>
    %d3 = txl.dot %a, %b, %zero use_acc %u : !txl.smem<64x64xbf16>, !txl.smem<64x64xbf16>, tensor<64x64xf32>
    %s3 = arith.addf %acc, %d3 : tensor<64x64xf32>
    %d4 = txl.dot %a, %b, %zero : !txl.smem<64x64xbf16>, !txl.smem<64x64xbf16>, tensor<64x64xf32>
    %late = txl.load %p : tensor<64x64x!txl.ptr<f32>> -> tensor<64x64xf32>
    %s4 = arith.addf %late, %d4 : tensor<64x64xf32>
    return %s1, %s2, %s3, %s4 : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
  }
}
