// RUN: txl-opt %s -split-input-file --txl-expand-block-pointers -verify-diagnostics

// What txl-expand-block-pointers cannot replace by fields is a located error,
// not a crash: a block pointer that is not made in the function, and one
// that flows through an op other than txl.advance, txl.block_load,
// txl.block_store, scf.for, scf.if and scf.while.

!bq = !txl.block_ptr<tensor<128xf32>, order = [0]>
module attributes {txl.target = "sm_90a"} {
  // expected-error @+1 {{'func.func' op has a block pointer block argument, which txl-expand-block-pointers cannot replace by its fields}}
  func.func @argument(%p: !bq) -> tensor<128xf32> {
    %x = txl.block_load %p : !bq -> tensor<128xf32>
    return %x : tensor<128xf32>
  }
}

// -----

!bq = !txl.block_ptr<tensor<128xf32>, order = [0]>
module attributes {txl.target = "sm_90a"} {
  func.func @returned(%x: !txl.ptr<f32>, %n: i64) -> !bq {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i64
    %p = txl.make_block_ptr %x, [%n], [%c1], [%c0] : !txl.ptr<f32> -> !bq
    // expected-error @+1 {{'func.return' op takes or returns a block pointer, which txl-expand-block-pointers replaces by its fields only in txl.advance, txl.block_load, txl.block_store, scf.for, scf.if and scf.while}}
    return %p : !bq
  }
}
