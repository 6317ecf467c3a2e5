// RUN: txlc %s --print-pipeline | FileCheck %s --check-prefix=ORDER
// RUN: txlc %s --stop-after=txl-fold-dot-add | FileCheck %s --implicit-check-not=arith.mulf --implicit-check-not=arith.addf
// RUN: txl-opt %s --txl-fold-dot-add | FileCheck %s --check-prefix=ALONE

// txl-erase-dead-values in txlc's pipeline: before the stages that read the
// frontend's IR, so none of them sees what nothing reads.
// ORDER: txl-erase-dead-values
// ORDER-NEXT: txl-rematerialize-expanded-ranges
// ORDER-NEXT: txl-fold-dot-add

// `acc + tl.dot(a, b)` whose product an unread multiply also reads (the
// frontend prints it): txl-fold-dot-add folds the add into the dot only when
// the add is the product's one reader, so the multiply must be gone first;
// and a tile carried through a loop for nothing never reaches a stage (the
// loop, left empty, is control flow: LLVM's to remove). (The ALONE run:
// without the stage, the fold does not happen.)
// CHECK-LABEL: func.func @k
// CHECK: %[[D:.*]] = txl.dot %arg0, %arg1, %arg2 :
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %arg4 step %{{.*}} : i32 {
// CHECK-NEXT: }
// CHECK-NEXT: txl.store %arg3, %[[D]] :
// CHECK-NEXT: return
// ALONE: arith.addf
module attributes {txl.target = "sm_90a"} {
  func.func @k(%a: !txl.smem<64x64xbf16>, %b: !txl.smem<64x64xbf16>, %acc: tensor<64x64xf32>, %out: tensor<64x64x!txl.ptr<f32>>, %n: i32) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %d = txl.dot %a, %b, %zero : !txl.smem<64x64xbf16>, !txl.smem<64x64xbf16>, tensor<64x64xf32>
    %s = arith.addf %acc, %d : tensor<64x64xf32>
    %unread = arith.mulf %d, %d : tensor<64x64xf32>
    %t = scf.for %i = %c0 to %n step %c1 iter_args(%x = %zero) -> (tensor<64x64xf32>) : i32 {
      %y = arith.mulf %acc, %acc : tensor<64x64xf32>
      scf.yield %y : tensor<64x64xf32>
    }
    txl.store %out, %s : tensor<64x64x!txl.ptr<f32>>, tensor<64x64xf32>
    return
  }
}
