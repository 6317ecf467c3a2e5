// RUN: txl-opt %s -split-input-file -cse | FileCheck %s --check-prefix=CSE
// RUN: txl-opt %s -split-input-file -loop-invariant-code-motion | FileCheck %s --check-prefix=LICM
// RUN: txl-opt %s -split-input-file -canonicalize | FileCheck %s --check-prefix=CANON

// The memory effects of the txl ops: shared memory, tensor memory and
// mbarriers are resources, so CSE, LICM and the canonicalizer never merge,
// move or drop an access across a write, a wait or a fence; pure ops (ids,
// views, tiles) are merged and hoisted freely.

// Two allocations are two buffers, even with one type.
// CSE-LABEL: func.func @two_allocs(
// CSE-COUNT-2: txl.smem_alloc : !txl.smem<64x64xf32, stages = 2>
// CSE-NOT: txl.smem_alloc
// CSE-COUNT-2: txl.mbar_alloc count 1 : !txl.mbar<2>
// CSE-NOT: txl.mbar_alloc
// CSE: return
func.func @two_allocs() -> (!txl.smem<64x64xf32, stages = 2>, !txl.smem<64x64xf32, stages = 2>,
                            !txl.mbar<2>, !txl.mbar<2>) {
  %a = txl.smem_alloc : !txl.smem<64x64xf32, stages = 2>
  %b = txl.smem_alloc : !txl.smem<64x64xf32, stages = 2>
  %c = txl.mbar_alloc count 1 : !txl.mbar<2>
  %d = txl.mbar_alloc count 1 : !txl.mbar<2>
  return %a, %b, %c, %d : !txl.smem<64x64xf32, stages = 2>, !txl.smem<64x64xf32, stages = 2>, !txl.mbar<2>, !txl.mbar<2>
}

// -----

// Pure ops with equal operands are merged: views, ids and tiles.
// CSE-LABEL: func.func @pure_ops_merge(
// CSE-SAME: %[[A:[^:]+]]: !txl.smem<64x64xf32, stages = 2>, %[[I:[^:]+]]: i32
// CSE-NEXT: %[[V:.*]] = txl.get_buffer %[[A]][%[[I]]]
// CSE-NEXT: %[[T:.*]] = txl.tid
// CSE-NEXT: %[[R:.*]] = txl.make_range 0, 64
// CSE-NEXT: %[[W:.*]] = txl.warp_id
// CSE-NEXT: return %[[V]], %[[V]], %[[T]], %[[T]], %[[R]], %[[R]], %[[W]], %[[W]] :
func.func @pure_ops_merge(%a: !txl.smem<64x64xf32, stages = 2>, %i: i32)
    -> (!txl.smem<64x64xf32>, !txl.smem<64x64xf32>, i32, i32, tensor<64xi32>, tensor<64xi32>, i32, i32) {
  %v0 = txl.get_buffer %a[%i] : !txl.smem<64x64xf32, stages = 2>
  %t0 = txl.tid
  %r0 = txl.make_range 0, 64 : tensor<64xi32>
  %w0 = txl.warp_id
  %v1 = txl.get_buffer %a[%i] : !txl.smem<64x64xf32, stages = 2>
  %t1 = txl.tid
  %r1 = txl.make_range 0, 64 : tensor<64xi32>
  %w1 = txl.warp_id
  return %v0, %v1, %t0, %t1, %r0, %r1, %w0, %w1 : !txl.smem<64x64xf32>, !txl.smem<64x64xf32>, i32, i32, tensor<64xi32>, tensor<64xi32>, i32, i32
}

// -----

// Control: two loads of one view with nothing in between are one load.
// CSE-LABEL: func.func @loads_merge(
// CSE-SAME: %[[V:[^:]+]]: !txl.smem<64x64xf32>
// CSE-NEXT: %[[L:.*]] = txl.smem_load %[[V]]
// CSE-NEXT: return %[[L]], %[[L]] :
func.func @loads_merge(%v: !txl.smem<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %l0 = txl.smem_load %v : !txl.smem<64x64xf32> -> tensor<64x64xf32>
  %l1 = txl.smem_load %v : !txl.smem<64x64xf32> -> tensor<64x64xf32>
  return %l0, %l1 : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// A store to shared memory between two loads: both loads stay.
// CSE-LABEL: func.func @store_between(
// CSE-SAME: %[[V:[^:]+]]: !txl.smem<64x64xf32>, %[[T:[^:]+]]: tensor<64x64xf32>
// CSE-NEXT: %[[L0:.*]] = txl.smem_load %[[V]]
// CSE-NEXT: txl.smem_store %[[T]], %[[V]]
// CSE-NEXT: %[[L1:.*]] = txl.smem_load %[[V]]
// CSE-NEXT: return %[[L0]], %[[L1]] :
func.func @store_between(%v: !txl.smem<64x64xf32>, %t: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %l0 = txl.smem_load %v : !txl.smem<64x64xf32> -> tensor<64x64xf32>
  txl.smem_store %t, %v : tensor<64x64xf32>, !txl.smem<64x64xf32>
  %l1 = txl.smem_load %v : !txl.smem<64x64xf32> -> tensor<64x64xf32>
  return %l0, %l1 : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// An mbarrier wait between two loads (a TMA load may have landed): both stay.
// CSE-LABEL: func.func @mbar_wait_between(
// CSE-SAME: %[[V:[^:]+]]: !txl.smem<64x64xf32>, %[[B:[^:]+]]: !txl.mbar, %[[P:[^:]+]]: i32
// CSE-NEXT: %[[L0:.*]] = txl.smem_load %[[V]]
// CSE-NEXT: txl.mbar_wait %[[B]], %[[P]]
// CSE-NEXT: %[[L1:.*]] = txl.smem_load %[[V]]
// CSE-NEXT: return %[[L0]], %[[L1]] :
func.func @mbar_wait_between(%v: !txl.smem<64x64xf32>, %b: !txl.mbar, %p: i32) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %l0 = txl.smem_load %v : !txl.smem<64x64xf32> -> tensor<64x64xf32>
  txl.mbar_wait %b, %p : i32
  %l1 = txl.smem_load %v : !txl.smem<64x64xf32> -> tensor<64x64xf32>
  return %l0, %l1 : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// A named-barrier wait between two loads (another warp may have stored): both stay.
// CSE-LABEL: func.func @bar_wait_between(
// CSE-SAME: %[[V:[^:]+]]: !txl.smem<64x64xf32>
// CSE-NEXT: %[[L0:.*]] = txl.smem_load %[[V]]
// CSE-NEXT: txl.bar_wait 8, 256
// CSE-NEXT: %[[L1:.*]] = txl.smem_load %[[V]]
// CSE-NEXT: return %[[L0]], %[[L1]] :
func.func @bar_wait_between(%v: !txl.smem<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %l0 = txl.smem_load %v : !txl.smem<64x64xf32> -> tensor<64x64xf32>
  txl.bar_wait 8, 256
  %l1 = txl.smem_load %v : !txl.smem<64x64xf32> -> tensor<64x64xf32>
  return %l0, %l1 : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// A wgmma wait between two loads: both stay.
// CSE-LABEL: func.func @dot_wait_between(
// CSE-SAME: %[[V:[^:]+]]: !txl.smem<64x64xf32>
// CSE-NEXT: %[[L0:.*]] = txl.smem_load %[[V]]
// CSE-NEXT: txl.dot_wait 0
// CSE-NEXT: %[[L1:.*]] = txl.smem_load %[[V]]
// CSE-NEXT: return %[[L0]], %[[L1]] :
func.func @dot_wait_between(%v: !txl.smem<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %l0 = txl.smem_load %v : !txl.smem<64x64xf32> -> tensor<64x64xf32>
  txl.dot_wait 0
  %l1 = txl.smem_load %v : !txl.smem<64x64xf32> -> tensor<64x64xf32>
  return %l0, %l1 : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// A proxy fence between two loads: both stay.
// CSE-LABEL: func.func @fence_between(
// CSE-SAME: %[[V:[^:]+]]: !txl.smem<64x64xf32>
// CSE-NEXT: %[[L0:.*]] = txl.smem_load %[[V]]
// CSE-NEXT: txl.fence_proxy_async
// CSE-NEXT: %[[L1:.*]] = txl.smem_load %[[V]]
// CSE-NEXT: return %[[L0]], %[[L1]] :
func.func @fence_between(%v: !txl.smem<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %l0 = txl.smem_load %v : !txl.smem<64x64xf32> -> tensor<64x64xf32>
  txl.fence_proxy_async
  %l1 = txl.smem_load %v : !txl.smem<64x64xf32> -> tensor<64x64xf32>
  return %l0, %l1 : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// A tensor-memory store between two tensor-memory loads: both stay.
// CSE-LABEL: func.func @tmem_store_between(
// CSE-SAME: %[[A:[^:]+]]: !txl.tmem<128x64xf32>, %[[T:[^:]+]]: tensor<128x64xf32>
// CSE-NEXT: %[[L0:.*]] = txl.tmem_load %[[A]]
// CSE-NEXT: txl.tmem_store %[[T]], %[[A]]
// CSE-NEXT: %[[L1:.*]] = txl.tmem_load %[[A]]
// CSE-NEXT: return %[[L0]], %[[L1]] :
module attributes {txl.target = "sm_100a"} {
  func.func @tmem_store_between(%a: !txl.tmem<128x64xf32>, %t: tensor<128x64xf32>) -> (tensor<128x64xf32>, tensor<128x64xf32>) {
    %l0 = txl.tmem_load %a : !txl.tmem<128x64xf32> -> tensor<128x64xf32>
    txl.tmem_store %t, %a : tensor<128x64xf32>, !txl.tmem<128x64xf32>
    %l1 = txl.tmem_load %a : !txl.tmem<128x64xf32> -> tensor<128x64xf32>
    return %l0, %l1 : tensor<128x64xf32>, tensor<128x64xf32>
  }
}

// -----

// LICM hoists pure ops (tid, get_buffer of invariant operands) out of a loop,
// but not an mbarrier wait or a shared-memory load.
// LICM-LABEL: func.func @licm(
// LICM-SAME: %[[A:[^:]+]]: !txl.smem<64x64xf32, stages = 2>, %[[B:[^:]+]]: !txl.mbar, %[[I:[^:]+]]: i32, %[[N:[^:]+]]: index
// LICM: %[[TID:.*]] = txl.tid
// LICM-NEXT: %[[V:.*]] = txl.get_buffer %[[A]][%[[I]]]
// LICM-NEXT: scf.for
// LICM-NEXT: txl.mbar_wait %[[B]], %[[I]] : i32
// LICM-NEXT: txl.smem_load %[[V]]
// LICM-NEXT: txl.print "" %[[TID]]
// LICM-NEXT: }
// LICM-NEXT: return
func.func @licm(%a: !txl.smem<64x64xf32, stages = 2>, %b: !txl.mbar, %i: i32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %k = %c0 to %n step %c1 {
    %tid = txl.tid
    %v = txl.get_buffer %a[%i] : !txl.smem<64x64xf32, stages = 2>
    txl.mbar_wait %b, %i : i32
    %t = txl.smem_load %v : !txl.smem<64x64xf32> -> tensor<64x64xf32>
    txl.print "" %tid, %t : i32, tensor<64x64xf32>
  }
  return
}

// -----

// The canonicalizer keeps ops whose only effect is on memory or barriers,
// and drops unused pure ops and reads.
// CANON-LABEL: func.func @canon_keeps_side_effects(
// CANON-SAME: %[[V:[^:]+]]: !txl.smem<64x64xf32>, %[[T:[^:]+]]: tensor<64x64xf32>, %[[B:[^:]+]]: !txl.mbar, %[[P:[^:]+]]: !txl.ptr<f32>, %[[X:[^:]+]]: f32
// CANON-NOT: txl.tid
// CANON-NOT: txl.smem_load
// CANON-NOT: txl.make_range
// CANON: txl.smem_store %[[T]], %[[V]]
// CANON-NEXT: txl.mbar_arrive %[[B]]{{$}}
// CANON-NEXT: txl.mbar_expect %[[B]], 16384
// CANON-NEXT: txl.mbar_arrive %[[B]] {tx_count = 64 : i32}
// CANON-NEXT: txl.bar_arrive 8, 128
// CANON-NEXT: txl.fence_proxy_async
// CANON-NEXT: txl.store %[[P]], %[[X]]
// CANON-NEXT: txl.reg_alloc 240
// CANON-NEXT: return
func.func @canon_keeps_side_effects(%v: !txl.smem<64x64xf32>, %t: tensor<64x64xf32>, %b: !txl.mbar,
                                    %p: !txl.ptr<f32>, %x: f32) {
  %tid = txl.tid
  %l = txl.smem_load %v : !txl.smem<64x64xf32> -> tensor<64x64xf32>
  %r = txl.make_range 0, 64 : tensor<64xi32>
  txl.smem_store %t, %v : tensor<64x64xf32>, !txl.smem<64x64xf32>
  txl.mbar_arrive %b
  txl.mbar_expect %b, 16384
  txl.mbar_arrive %b {tx_count = 64 : i32}
  txl.bar_arrive 8, 128
  txl.fence_proxy_async
  txl.store %p, %x : !txl.ptr<f32>, f32
  txl.reg_alloc 240
  return
}
