// RUN: txl-opt %s -split-input-file --txl-expand-block-pointers | FileCheck %s --implicit-check-not=txl.block --implicit-check-not=txl.advance --implicit-check-not=txl.make_block_ptr

// A 2-D load with boundary_check = [0, 1] and zero padding: the pointer tile
// base + (om + arange(64))[:, None] * sm + (on + arange(32))[None, :] in i64
// (the unit stride is not multiplied), masked by 0 <= index < shape on both
// dimensions, the padding as `other`: exactly the ops the frontend built.
// CHECK-LABEL: func.func @load_2d
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-NEXT: %[[R0:.*]] = txl.make_range 0, 64 : tensor<64xi32>
// CHECK-NEXT: %[[R0W:.*]] = arith.extsi %[[R0]] : tensor<64xi32> to tensor<64xi64>
// CHECK-NEXT: %[[OM:.*]] = arith.extsi %arg4 : i32 to i64
// CHECK-NEXT: %[[OMS:.*]] = txl.splat %[[OM]] : i64 -> tensor<64xi64>
// CHECK-NEXT: %[[I0:.*]] = arith.addi %[[R0W]], %[[OMS]] : tensor<64xi64>
// CHECK-NEXT: %[[ROWS:.*]] = txl.expand_dims %[[I0]], 1 : tensor<64xi64> -> tensor<64x1xi64>
// CHECK-NEXT: %[[SM:.*]] = txl.splat %arg3 : i64 -> tensor<64x1xi64>
// CHECK-NEXT: %[[T0:.*]] = arith.muli %[[ROWS]], %[[SM]] : tensor<64x1xi64>
// CHECK-NEXT: %[[M:.*]] = txl.splat %arg1 : i64 -> tensor<64x1xi64>
// CHECK-NEXT: %[[LT0:.*]] = arith.cmpi slt, %[[ROWS]], %[[M]] : tensor<64x1xi64>
// CHECK-NEXT: %[[Z0:.*]] = arith.constant dense<0> : tensor<64x1xi64>
// CHECK-NEXT: %[[GE0:.*]] = arith.cmpi sge, %[[ROWS]], %[[Z0]] : tensor<64x1xi64>
// CHECK-NEXT: %[[IN0:.*]] = arith.andi %[[GE0]], %[[LT0]] : tensor<64x1xi1>
// CHECK-NEXT: %[[R1:.*]] = txl.make_range 0, 32 : tensor<32xi32>
// CHECK-NEXT: %[[R1W:.*]] = arith.extsi %[[R1]] : tensor<32xi32> to tensor<32xi64>
// CHECK-NEXT: %[[ON:.*]] = arith.extsi %arg5 : i32 to i64
// CHECK-NEXT: %[[ONS:.*]] = txl.splat %[[ON]] : i64 -> tensor<32xi64>
// CHECK-NEXT: %[[I1:.*]] = arith.addi %[[R1W]], %[[ONS]] : tensor<32xi64>
// CHECK-NEXT: %[[COLS:.*]] = txl.expand_dims %[[I1]], 0 : tensor<32xi64> -> tensor<1x32xi64>
// CHECK-NEXT: %[[B0:.*]] = txl.broadcast %[[T0]] : tensor<64x1xi64> -> tensor<64x32xi64>
// CHECK-NEXT: %[[B1:.*]] = txl.broadcast %[[COLS]] : tensor<1x32xi64> -> tensor<64x32xi64>
// CHECK-NEXT: %[[OFFS:.*]] = arith.addi %[[B0]], %[[B1]] : tensor<64x32xi64>
// CHECK-NEXT: %[[N:.*]] = txl.splat %arg2 : i64 -> tensor<1x32xi64>
// CHECK-NEXT: %[[LT1:.*]] = arith.cmpi slt, %[[COLS]], %[[N]] : tensor<1x32xi64>
// CHECK-NEXT: %[[Z1:.*]] = arith.constant dense<0> : tensor<1x32xi64>
// CHECK-NEXT: %[[GE1:.*]] = arith.cmpi sge, %[[COLS]], %[[Z1]] : tensor<1x32xi64>
// CHECK-NEXT: %[[IN1:.*]] = arith.andi %[[GE1]], %[[LT1]] : tensor<1x32xi1>
// CHECK-NEXT: %[[MB0:.*]] = txl.broadcast %[[IN0]] : tensor<64x1xi1> -> tensor<64x32xi1>
// CHECK-NEXT: %[[MB1:.*]] = txl.broadcast %[[IN1]] : tensor<1x32xi1> -> tensor<64x32xi1>
// CHECK-NEXT: %[[MASK:.*]] = arith.andi %[[MB0]], %[[MB1]] : tensor<64x32xi1>
// CHECK-NEXT: %[[BASES:.*]] = txl.splat %arg0 : !txl.ptr<f16> -> tensor<64x32x!txl.ptr<f16>>
// CHECK-NEXT: %[[PTRS:.*]] = txl.addptr %[[BASES]], %[[OFFS]] : tensor<64x32x!txl.ptr<f16>>, tensor<64x32xi64>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x32xf16>
// CHECK-NEXT: %[[X:.*]] = txl.load %[[PTRS]] mask %[[MASK]] other %[[ZERO]] {cache = #txl<cache cg>} : tensor<64x32x!txl.ptr<f16>> -> tensor<64x32xf16>
// CHECK-NEXT: return %[[X]]
!bp = !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>
module attributes {txl.target = "sm_90a"} {
  func.func @load_2d(%a: !txl.ptr<f16>, %m: i64, %n: i64, %sm: i64, %om: i32, %on: i32) -> tensor<64x32xf16> {
    %c1 = arith.constant 1 : i64
    %p = txl.make_block_ptr %a, [%m, %n], [%sm, %c1], [%om, %on] : !txl.ptr<f16> -> !bp
    %x = txl.block_load %p boundary_check = [0, 1] padding zero {cache = #txl<cache cg>} : !bp -> tensor<64x32xf16>
    return %x : tensor<64x32xf16>
  }
}

// -----

// A store checked on dimension 1 only, through a block pointer advanced from
// constant offsets (0, 0): dimension 0's offset is a run-time value (no
// bound checked there), dimension 1's stays the constant 0 (no add, and no
// lower bound where it is checked); the 1-D mask is broadcast to the block.
// CHECK-LABEL: func.func @store_advanced
// CHECK: %[[OFF:.*]] = arith.addi %{{.*}}, %arg4 : i32
// CHECK: txl.make_range 0, 64
// CHECK: arith.extsi %[[OFF]] : i32 to i64
// CHECK: txl.make_range 0, 32
// CHECK-NEXT: %[[W:.*]] = arith.extsi %{{.*}} : tensor<32xi32> to tensor<32xi64>
// CHECK-NEXT: %[[COLS:.*]] = txl.expand_dims %[[W]], 0 : tensor<32xi64> -> tensor<1x32xi64>
// CHECK: %[[LT:.*]] = arith.cmpi slt, %[[COLS]], %{{.*}} : tensor<1x32xi64>
// CHECK-NEXT: txl.splat %arg0
// CHECK-NEXT: %[[PTRS:.*]] = txl.addptr
// CHECK-NEXT: %[[MASK:.*]] = txl.broadcast %[[LT]] : tensor<1x32xi1> -> tensor<64x32xi1>
// CHECK-NEXT: txl.store %[[PTRS]], %arg5 mask %[[MASK]] : tensor<64x32x!txl.ptr<f16>>, tensor<64x32xf16>
// A scalar constant stored through a block pointer is a dense constant.
// CHECK: %[[ONES:.*]] = arith.constant dense<1.000000e+00> : tensor<64x32xf16>
// CHECK-NEXT: txl.store %{{.*}}, %[[ONES]] : tensor<64x32x!txl.ptr<f16>>, tensor<64x32xf16>
// CHECK-NOT: arith.cmpi sge
!bp = !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>
module attributes {txl.target = "sm_90a"} {
  func.func @store_advanced(%a: !txl.ptr<f16>, %m: i64, %n: i64, %sm: i64, %om: i32, %x: tensor<64x32xf16>) {
    %c1 = arith.constant 1 : i64
    %c0 = arith.constant 0 : i32
    %h = arith.constant 1.0 : f16
    %p = txl.make_block_ptr %a, [%m, %n], [%sm, %c1], [%c0, %c0] : !txl.ptr<f16> -> !bp
    %q = txl.advance %p, [%om, %c0] : !bp
    txl.block_store %q, %x boundary_check = [1] : !bp, tensor<64x32xf16>
    txl.block_store %p, %h : !bp, f16
    return
  }
}

// -----

// A loop that advances a block pointer along K carries its K offset alone:
// base, shape, strides and the other offset are the values before the loop
// (so the unit stride is known inside and not multiplied), and the loop
// keeps its attributes.
// CHECK-LABEL: func.func @loop
// CHECK: %[[C0:.*]] = arith.constant 0 : i32
// CHECK: %[[C32:.*]] = arith.constant 32 : i32
// CHECK: %[[R:.*]]:2 = scf.for %{{.*}} = %[[C0]] to %arg5 step %[[C32]] iter_args(%[[ACC:.*]] = %{{.*}}, %[[K:.*]] = %[[C0]]) -> (tensor<64x32xf16>, i32)
// CHECK: arith.extsi %arg4 : i32 to i64
// CHECK: arith.muli %{{.*}}, %{{.*}} : tensor<64x1xi64>
// CHECK: arith.extsi %[[K]] : i32 to i64
// CHECK-NOT: arith.muli
// CHECK: txl.load
// CHECK: %[[NEXT:.*]] = arith.addi %[[K]], %[[C32]] : i32
// CHECK-NEXT: scf.yield %{{.*}}, %[[NEXT]] : tensor<64x32xf16>, i32
// CHECK-NEXT: } {txl.num_stages = 2 : i32}
// CHECK: arith.extsi %[[R]]#1 : i32 to i64
// CHECK: txl.store %{{.*}}, %[[R]]#0 : tensor<64x32x!txl.ptr<f16>>, tensor<64x32xf16>
!bp = !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>
module attributes {txl.target = "sm_90a"} {
  func.func @loop(%a: !txl.ptr<f16>, %m: i64, %k: i64, %sm: i64, %om: i32, %kend: i32) {
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %c1 = arith.constant 1 : i64
    %zero = arith.constant dense<0.0> : tensor<64x32xf16>
    %p = txl.make_block_ptr %a, [%m, %k], [%sm, %c1], [%om, %c0] : !txl.ptr<f16> -> !bp
    %r:2 = scf.for %i = %c0 to %kend step %c32 iter_args(%acc = %zero, %it = %p) -> (tensor<64x32xf16>, !bp) : i32 {
      %x = txl.block_load %it boundary_check = [1] padding zero : !bp -> tensor<64x32xf16>
      %s = arith.addf %acc, %x : tensor<64x32xf16>
      %next = txl.advance %it, [%c0, %c32] : !bp
      scf.yield %s, %next : tensor<64x32xf16>, !bp
    } {txl.num_stages = 2 : i32}
    txl.block_store %r#1, %r#0 : !bp, tensor<64x32xf16>
    return
  }
}

// -----

// scf.if: the branches advance the offset differently, so it is the one
// result; NaN padding is the f32 quiet NaN.
// CHECK-LABEL: func.func @branches
// CHECK: %[[OFF:.*]] = scf.if %arg2 -> (i32) {
// CHECK: } else {
// CHECK: }
// CHECK: arith.extsi %[[OFF]] : i32 to i64
// CHECK: %[[NAN:.*]] = arith.constant dense<0x7FC00000> : tensor<128xf32>
// CHECK-NEXT: txl.load %{{.*}} mask %{{.*}} other %[[NAN]]
!bq = !txl.block_ptr<tensor<128xf32>, order = [0]>
module attributes {txl.target = "sm_90a"} {
  func.func @branches(%x: !txl.ptr<f32>, %n: i64, %flag: i1, %d: i32) -> tensor<128xf32> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i64
    %p = txl.make_block_ptr %x, [%n], [%c1], [%c0] : !txl.ptr<f32> -> !bq
    %q = scf.if %flag -> (!bq) {
      %a = txl.advance %p, [%d] : !bq
      scf.yield %a : !bq
    } else {
      scf.yield %p : !bq
    }
    %y = txl.block_load %q boundary_check = [0] padding nan : !bq -> tensor<128xf32>
    return %y : tensor<128xf32>
  }
}

// -----

// scf.while: the offset the body advances is carried through both regions;
// the other fields are not.
// CHECK-LABEL: func.func @while_loop
// CHECK: %[[OFF:.*]] = scf.while (%[[B:.*]] = %{{.*}}) : (i32) -> i32 {
// CHECK: arith.extsi %[[B]] : i32 to i64
// CHECK: txl.load
// CHECK: scf.condition(%arg2) %[[B]] : i32
// CHECK: ^bb0(%[[A:.*]]: i32):
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[A]], %{{.*}} : i32
// CHECK-NEXT: scf.yield %[[NEXT]] : i32
// CHECK: arith.extsi %[[OFF]] : i32 to i64
// CHECK: txl.store
!bq = !txl.block_ptr<tensor<128xf32>, order = [0]>
module attributes {txl.target = "sm_90a"} {
  func.func @while_loop(%x: !txl.ptr<f32>, %n: i64, %flag: i1, %v: tensor<128xf32>) {
    %c0 = arith.constant 0 : i32
    %c128 = arith.constant 128 : i32
    %c1 = arith.constant 1 : i64
    %p = txl.make_block_ptr %x, [%n], [%c1], [%c0] : !txl.ptr<f32> -> !bq
    %f = scf.while (%it = %p) : (!bq) -> (!bq) {
      %t = txl.block_load %it : !bq -> tensor<128xf32>
      scf.condition(%flag) %it : !bq
    } do {
    ^bb0(%it2: !bq):
      %nx = txl.advance %it2, [%c128] : !bq
      scf.yield %nx : !bq
    }
    txl.block_store %f, %v : !bq, tensor<128xf32>
    return
  }
}
