// RUN: txl-opt %s -split-input-file --txl-rematerialize-expanded-ranges | FileCheck %s

// `offs[:, None]` and `offs[None, :]` of one `offs = start + arange`: each
// expand_dims gets its own splat, make_range and addi, built right before it;
// the original, read by nothing else, goes.
// CHECK-LABEL: func.func @both_ways
// CHECK-NEXT: %[[S1:.*]] = txl.splat %arg0 : i32 -> tensor<64xi32>
// CHECK-NEXT: %[[R1:.*]] = txl.make_range 0, 64 : tensor<64xi32>
// CHECK-NEXT: %[[O1:.*]] = arith.addi %[[S1]], %[[R1]] : tensor<64xi32>
// CHECK-NEXT: txl.expand_dims %[[O1]], 1 : tensor<64xi32> -> tensor<64x1xi32>
// CHECK-NEXT: %[[S2:.*]] = txl.splat %arg0 : i32 -> tensor<64xi32>
// CHECK-NEXT: %[[R2:.*]] = txl.make_range 0, 64 : tensor<64xi32>
// CHECK-NEXT: %[[O2:.*]] = arith.addi %[[S2]], %[[R2]] : tensor<64xi32>
// CHECK-NEXT: txl.expand_dims %[[O2]], 0 : tensor<64xi32> -> tensor<1x64xi32>
// CHECK-NEXT: return
module attributes {txl.target = "sm_90a"} {
  func.func @both_ways(%start: i32) -> (tensor<64x1xi32>, tensor<1x64xi32>) {
    %s = txl.splat %start : i32 -> tensor<64xi32>
    %r = txl.make_range 0, 64 : tensor<64xi32>
    %offs = arith.addi %s, %r : tensor<64xi32>
    %rows = txl.expand_dims %offs, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %cols = txl.expand_dims %offs, 0 : tensor<64xi32> -> tensor<1x64xi32>
    return %rows, %cols : tensor<64x1xi32>, tensor<1x64xi32>
  }
}

// -----

// The vector is also read as it is (a 1-D mask): the original stays for that
// use, the expand_dims reads a copy.
// CHECK-LABEL: func.func @kept_for_other_uses
// CHECK: %[[R:.*]] = txl.make_range 0, 64 : tensor<64xi32>
// CHECK: %[[M:.*]] = arith.cmpi slt, %[[R]], %{{.*}} : tensor<64xi32>
// CHECK: %[[C:.*]] = txl.make_range 0, 64 : tensor<64xi32>
// CHECK-NEXT: txl.expand_dims %[[C]], 1
// CHECK: return %[[M]],
module attributes {txl.target = "sm_90a"} {
  func.func @kept_for_other_uses(%n: i32) -> (tensor<64xi1>, tensor<64x1xi32>) {
    %r = txl.make_range 0, 64 : tensor<64xi32>
    %ns = txl.splat %n : i32 -> tensor<64xi32>
    %m = arith.cmpi slt, %r, %ns : tensor<64xi32>
    %rows = txl.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
    return %m, %rows : tensor<64xi1>, tensor<64x1xi32>
  }
}

// -----

// A loaded vector is data, not an index computation: it is not copied.
// CHECK-LABEL: func.func @loaded_not_copied
// CHECK-COUNT-1: txl.load
// CHECK: %[[A:.*]] = arith.addi
// CHECK-NEXT: txl.expand_dims %[[A]], 1
// CHECK-NEXT: txl.expand_dims %[[A]], 0
module attributes {txl.target = "sm_90a"} {
  func.func @loaded_not_copied(%p: tensor<64x!txl.ptr<i32>>) -> (tensor<64x1xi32>, tensor<1x64xi32>) {
    %v = txl.load %p : tensor<64x!txl.ptr<i32>> -> tensor<64xi32>
    %r = txl.make_range 0, 64 : tensor<64xi32>
    %a = arith.addi %v, %r : tensor<64xi32>
    %rows = txl.expand_dims %a, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %cols = txl.expand_dims %a, 0 : tensor<64xi32> -> tensor<1x64xi32>
    return %rows, %cols : tensor<64x1xi32>, tensor<1x64xi32>
  }
}
