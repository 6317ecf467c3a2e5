// RUN: txl-opt %s -txl-fold-tmem-round-trips -split-input-file -verify-diagnostics | FileCheck %s

// tmem_load %acc -> dotx on the register copy -> tmem_store back to %acc is
// one dotx on %acc itself (no result); anything else is left alone.

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>

// The chain becomes one in-place dotx that keeps use_d, pred, the mbarriers
// and their predicates.
// CHECK-LABEL: func.func @accumulate_in_place
// CHECK-SAME: (%[[A:[^:]*]]: !txl.smem<128x64xbf16, {{.*}}>, %[[B:[^:]*]]: !txl.smem<64x256xbf16, {{.*}}>, %[[ACC:[^:]*]]: !txl.tmem<128x256xf32>, %[[U:[^:]*]]: i1, %[[P:[^:]*]]: i1, %[[BAR:[^:]*]]: !txl.mbar, %[[Q:[^:]*]]: i1)
// CHECK-NOT: txl.tmem_load
// CHECK: txl.dotx %[[A]], %[[B]], %[[ACC]] use_d %[[U]] pred %[[P]] mbars(%[[BAR]]) preds(%[[Q]]) : !txl.smem<128x64xbf16, {{.*}}>, !txl.smem<64x256xbf16, {{.*}}>, !txl.tmem<128x256xf32>{{$}}
// CHECK-NOT: txl.tmem_store
// CHECK-NEXT: return
module attributes {txl.target = "sm_100a"} {
  func.func @accumulate_in_place(%a: !txl.smem<128x64xbf16, #sw128>, %b: !txl.smem<64x256xbf16, #sw128T>, %acc: !txl.tmem<128x256xf32>, %u: i1, %p: i1, %bar: !txl.mbar, %q: i1) attributes {txl.kernel} {
    %c = txl.tmem_load %acc : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
    %d = txl.dotx %a, %b, %c use_d %u pred %p mbars(%bar) preds(%q) : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x256xbf16, #sw128T>, tensor<128x256xf32> -> tensor<128x256xf32>
    txl.tmem_store %d, %acc : tensor<128x256xf32>, !txl.tmem<128x256xf32>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>

// A K loop whose body loads, multiplies and stores back one stage of a
// multi-stage accumulator (get_buffer view): the body becomes one dotx on
// the view.
// CHECK-LABEL: func.func @k_loop_stage_view
// CHECK: %[[V:.*]] = txl.get_buffer %{{.*}}[%{{.*}}] : !txl.tmem<128x128xf32, stages = 2>
// CHECK: scf.for
// CHECK-NOT: txl.tmem_load
// CHECK: txl.dotx %{{.*}}, %{{.*}}, %[[V]] use_d %{{.*}} : !txl.smem<128x64xbf16, {{.*}}>, !txl.smem<64x128xbf16, {{.*}}>, !txl.tmem<128x128xf32>{{$}}
// CHECK-NOT: txl.tmem_store
// CHECK-NEXT: }
// CHECK-NEXT: return
module attributes {txl.target = "sm_100a"} {
  func.func @k_loop_stage_view(%a: !txl.smem<128x64xbf16, #sw128>, %b: !txl.smem<64x128xbf16, #sw128T>, %accs: !txl.tmem<128x128xf32, stages = 2>, %s: i32, %n: index, %u: i1) attributes {txl.kernel} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %v = txl.get_buffer %accs[%s] : !txl.tmem<128x128xf32, stages = 2>
    scf.for %k = %c0 to %n step %c1 {
      %c = txl.tmem_load %v : !txl.tmem<128x128xf32> -> tensor<128x128xf32>
      %d = txl.dotx %a, %b, %c use_d %u : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x128xbf16, #sw128T>, tensor<128x128xf32> -> tensor<128x128xf32>
      txl.tmem_store %d, %v : tensor<128x128xf32>, !txl.tmem<128x128xf32>
    }
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>

// The loaded accumulator has another use (it is returned): the register copy
// is needed, nothing changes.
// CHECK-LABEL: func.func @loaded_value_reused
// CHECK: %[[C:.*]] = txl.tmem_load %[[ACC:.*]] : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
// CHECK-NEXT: %[[D:.*]] = txl.dotx %{{.*}}, %{{.*}}, %[[C]] : {{.*}}, tensor<128x256xf32> -> tensor<128x256xf32>
// CHECK-NEXT: txl.tmem_store %[[D]], %[[ACC]] : tensor<128x256xf32>, !txl.tmem<128x256xf32>
// CHECK-NEXT: return %[[C]]
module attributes {txl.target = "sm_100a"} {
  func.func @loaded_value_reused(%a: !txl.smem<128x64xbf16, #sw128>, %b: !txl.smem<64x256xbf16, #sw128T>, %acc: !txl.tmem<128x256xf32>) -> tensor<128x256xf32> attributes {txl.kernel} {
    %c = txl.tmem_load %acc : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
    %d = txl.dotx %a, %b, %c : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x256xbf16, #sw128T>, tensor<128x256xf32> -> tensor<128x256xf32>
    txl.tmem_store %d, %acc : tensor<128x256xf32>, !txl.tmem<128x256xf32>
    return %c : tensor<128x256xf32>
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>

// The MMA's result has another use besides the store: nothing changes.
// CHECK-LABEL: func.func @result_reused
// CHECK: %[[C:.*]] = txl.tmem_load %[[ACC:.*]] : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
// CHECK-NEXT: %[[D:.*]] = txl.dotx %{{.*}}, %{{.*}}, %[[C]] : {{.*}} -> tensor<128x256xf32>
// CHECK-NEXT: txl.tmem_store %[[D]], %[[ACC]]
// CHECK-NEXT: return %[[D]]
module attributes {txl.target = "sm_100a"} {
  func.func @result_reused(%a: !txl.smem<128x64xbf16, #sw128>, %b: !txl.smem<64x256xbf16, #sw128T>, %acc: !txl.tmem<128x256xf32>) -> tensor<128x256xf32> attributes {txl.kernel} {
    %c = txl.tmem_load %acc : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
    %d = txl.dotx %a, %b, %c : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x256xbf16, #sw128T>, tensor<128x256xf32> -> tensor<128x256xf32>
    txl.tmem_store %d, %acc : tensor<128x256xf32>, !txl.tmem<128x256xf32>
    return %d : tensor<128x256xf32>
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>

// The result is stored to a different buffer than the one loaded: the
// source must keep its value, nothing changes.
// CHECK-LABEL: func.func @stored_elsewhere
// CHECK-SAME: %[[ACC:[^:]*]]: !txl.tmem<128x256xf32>, %[[OTHER:[^:]*]]: !txl.tmem<128x256xf32>)
// CHECK: %[[C:.*]] = txl.tmem_load %[[ACC]] : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
// CHECK-NEXT: %[[D:.*]] = txl.dotx %{{.*}}, %{{.*}}, %[[C]] : {{.*}} -> tensor<128x256xf32>
// CHECK-NEXT: txl.tmem_store %[[D]], %[[OTHER]] : tensor<128x256xf32>, !txl.tmem<128x256xf32>
// CHECK-NEXT: return
module attributes {txl.target = "sm_100a"} {
  func.func @stored_elsewhere(%a: !txl.smem<128x64xbf16, #sw128>, %b: !txl.smem<64x256xbf16, #sw128T>, %acc: !txl.tmem<128x256xf32>, %other: !txl.tmem<128x256xf32>) attributes {txl.kernel} {
    %c = txl.tmem_load %acc : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
    %d = txl.dotx %a, %b, %c : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x256xbf16, #sw128T>, tensor<128x256xf32> -> tensor<128x256xf32>
    txl.tmem_store %d, %other : tensor<128x256xf32>, !txl.tmem<128x256xf32>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>

// The store is in another block (conditional): nothing changes.
// CHECK-LABEL: func.func @store_in_other_block
// CHECK: %[[C:.*]] = txl.tmem_load %[[ACC:.*]] : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
// CHECK-NEXT: %[[D:.*]] = txl.dotx %{{.*}}, %{{.*}}, %[[C]] : {{.*}} -> tensor<128x256xf32>
// CHECK-NEXT: scf.if
// CHECK-NEXT: txl.tmem_store %[[D]], %[[ACC]]
module attributes {txl.target = "sm_100a"} {
  func.func @store_in_other_block(%a: !txl.smem<128x64xbf16, #sw128>, %b: !txl.smem<64x256xbf16, #sw128T>, %acc: !txl.tmem<128x256xf32>, %p: i1) attributes {txl.kernel} {
    %c = txl.tmem_load %acc : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
    %d = txl.dotx %a, %b, %c : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x256xbf16, #sw128T>, tensor<128x256xf32> -> tensor<128x256xf32>
    scf.if %p {
      txl.tmem_store %d, %acc : tensor<128x256xf32>, !txl.tmem<128x256xf32>
    }
    return
  }
}

// -----

// Regression test: a tensor-memory access of %acc between the chain's ops was
// ignored and the chain rewritten in place.
// A tmem_store to %acc between the load and the dotx blocks the in-place
// rewrite: both stores stay.
// CHECK-LABEL: func.func @store_between(
// CHECK-COUNT-2: txl.tmem_store
#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
module attributes {txl.target = "sm_100a"} {
  func.func @store_between(%a: !txl.smem<128x64xbf16, #sw128>, %b: !txl.smem<64x256xbf16, #sw128T>, %acc: !txl.tmem<128x256xf32>, %z: tensor<128x256xf32>) attributes {txl.kernel} {
    %c = txl.tmem_load %acc : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
    txl.tmem_store %z, %acc : tensor<128x256xf32>, !txl.tmem<128x256xf32>
    %d = txl.dotx %a, %b, %c : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x256xbf16, #sw128T>, tensor<128x256xf32> -> tensor<128x256xf32>
    txl.tmem_store %d, %acc : tensor<128x256xf32>, !txl.tmem<128x256xf32>
    return
  }
}

// -----

// The same regression: a tmem_load of %acc between the dotx and the store
// blocks the rewrite too: the store stays.
// CHECK-LABEL: func.func @load_between(
// CHECK: txl.tmem_store
#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
module attributes {txl.target = "sm_100a"} {
  func.func @load_between(%a: !txl.smem<128x64xbf16, #sw128>, %b: !txl.smem<64x256xbf16, #sw128T>, %acc: !txl.tmem<128x256xf32>) -> tensor<128x256xf32> attributes {txl.kernel} {
    %c = txl.tmem_load %acc : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
    %d = txl.dotx %a, %b, %c : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x256xbf16, #sw128T>, tensor<128x256xf32> -> tensor<128x256xf32>
    %old = txl.tmem_load %acc : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
    txl.tmem_store %d, %acc : tensor<128x256xf32>, !txl.tmem<128x256xf32>
    return %old : tensor<128x256xf32>
  }
}

// -----

// Regression test: a tmem_load outside the loop was merged with the dotx +
// tmem_store inside it (the MMA then accumulated across iterations).
// The load stays.
// CHECK-LABEL: func.func @load_outside_loop(
// CHECK: txl.tmem_load
#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
module attributes {txl.target = "sm_100a"} {
  func.func @load_outside_loop(%a: !txl.smem<128x64xbf16, #sw128>, %b: !txl.smem<64x256xbf16, #sw128T>, %acc: !txl.tmem<128x256xf32>, %n: index) attributes {txl.kernel} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c = txl.tmem_load %acc : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
    scf.for %i = %c0 to %n step %c1 {
      %d = txl.dotx %a, %b, %c : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x256xbf16, #sw128T>, tensor<128x256xf32> -> tensor<128x256xf32>
      txl.tmem_store %d, %acc : tensor<128x256xf32>, !txl.tmem<128x256xf32>
    }
    return
  }
}
