// RUN: txl-opt %s | txl-opt | FileCheck %s
// RUN: txl-opt %s --mlir-print-op-generic | txl-opt | FileCheck %s

// Round-trip of the block-pointer type and ops (tl.make_block_ptr /
// tl.advance / tl.load and tl.store through a block pointer), in every
// optional attribute form; a block pointer carried through scf like any value.

// CHECK-LABEL: func.func @block_pointers
// CHECK: %[[P:.*]] = txl.make_block_ptr %arg0, [%arg1, %arg2], [%arg3, %{{.*}}], [%arg4, %{{.*}}] : !txl.ptr<f16> -> !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>
// CHECK: %[[Q:.*]] = txl.advance %[[P]], [%{{.*}}, %arg4] : !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>
// CHECK: txl.block_load %[[Q]] boundary_check = [0, 1] padding zero : !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]> -> tensor<64x32xf16>
// CHECK: txl.block_load %[[Q]] boundary_check = [1] padding nan {cache = #txl<cache cg>, isVolatile} : !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]> -> tensor<64x32xf16>
// CHECK: %[[X:.*]] = txl.block_load %[[P]] : !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]> -> tensor<64x32xf16>
// CHECK: txl.block_store %[[P]], %[[X]] boundary_check = [0] : !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>, tensor<64x32xf16>
// CHECK: txl.block_store %[[Q]], %{{.*}} {evict = #txl<evict evict_first>} : !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>, f16
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[P]]) -> (!txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>)
// CHECK: txl.make_block_ptr {{.*}} -> !txl.block_ptr<tensor<128xi32>, order = [0]>
func.func @block_pointers(%base: !txl.ptr<f16>, %m: i64, %n: i64, %sm: i64, %om: i32, %ib: !txl.ptr<i32>) {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %h = arith.constant 1.0 : f16
  %p = txl.make_block_ptr %base, [%m, %n], [%sm, %c1], [%om, %c0] : !txl.ptr<f16> -> !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>
  %q = txl.advance %p, [%c0, %om] : !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>
  %a = txl.block_load %q boundary_check = [0, 1] padding zero : !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]> -> tensor<64x32xf16>
  %b = txl.block_load %q boundary_check = [1] padding nan {cache = #txl<cache cg>, isVolatile} : !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]> -> tensor<64x32xf16>
  %x = txl.block_load %p : !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]> -> tensor<64x32xf16>
  txl.block_store %p, %x boundary_check = [0] : !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>, tensor<64x32xf16>
  txl.block_store %q, %h {evict = #txl<evict evict_first>} : !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>, f16
  %r = scf.for %i = %c0 to %c4 step %c4 iter_args(%it = %p) -> (!txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>) : i32 {
    %next = txl.advance %it, [%c4, %c0] : !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>
    scf.yield %next : !txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>
  }
  %one = txl.make_block_ptr %ib, [%m], [%c1], [%c0] : !txl.ptr<i32> -> !txl.block_ptr<tensor<128xi32>, order = [0]>
  return
}
