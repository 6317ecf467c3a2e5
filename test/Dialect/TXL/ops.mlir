// RUN: txl-opt %s | txl-opt | FileCheck %s
// RUN: txl-opt %s --mlir-print-op-generic | txl-opt | FileCheck %s

// Round-trip of every txl op that exists on Hopper (the default target), in
// every optional operand and attribute form. Blackwell-only ops are in
// ops-sm100.mlir.

// CHECK-LABEL: func.func @smem_ops(
// CHECK-SAME: %[[I:[^:]+]]: i32, %[[P:[^:]+]]: i1, %[[T:[^:]+]]: tensor<128x64xbf16>, %[[ROW:[^:]+]]: tensor<128x1xf32>, %[[BIG:[^:]+]]: tensor<128x64xf32>
func.func @smem_ops(%i: i32, %p: i1, %t: tensor<128x64xbf16>, %rowv: tensor<128x1xf32>,
                    %big: tensor<128x64xf32>) {
  // CHECK: %[[ALLOC:.*]] = txl.smem_alloc : !txl.smem<128x64xbf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
  %alloc = txl.smem_alloc : !txl.smem<128x64xbf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
  // CHECK: %[[MALLOC:.*]] = txl.smem_alloc mutable : !txl.smem<128xf32, stages = 1>
  %malloc = txl.smem_alloc mutable : !txl.smem<128xf32, stages = 1>
  // CHECK: %[[PLAIN:.*]] = txl.smem_alloc : !txl.smem<2x64x64xbf16, stages = 2>
  %plain = txl.smem_alloc : !txl.smem<2x64x64xbf16, stages = 2>
  // CHECK: %[[V:.*]] = txl.get_buffer %[[ALLOC]][%[[I]]] : !txl.smem<128x64xbf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
  %v = txl.get_buffer %alloc[%i] : !txl.smem<128x64xbf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
  // CHECK: %[[LD:.*]] = txl.smem_load %[[V]] : !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>> -> tensor<128x64xbf16>
  %ld = txl.smem_load %v : !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>> -> tensor<128x64xbf16>
  // CHECK: txl.smem_load %[[V]] {ctaId = 1 : i32} : !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>> -> tensor<128x64xbf16>
  %ld1 = txl.smem_load %v {ctaId = 1 : i32} : !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>> -> tensor<128x64xbf16>
  // CHECK: txl.smem_store %[[T]], %[[V]] : tensor<128x64xbf16>, !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>>
  txl.smem_store %t, %v : tensor<128x64xbf16>, !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>>
  // CHECK: txl.smem_store %[[LD]], %[[V]] {ctaId = 0 : i32} : tensor<128x64xbf16>, !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>>
  txl.smem_store %ld, %v {ctaId = 0 : i32} : tensor<128x64xbf16>, !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>>

  // CHECK: %[[RV:.*]] = txl.get_buffer %[[MALLOC]][%[[I]]] : !txl.smem<128xf32, stages = 1>
  %rv = txl.get_buffer %malloc[%i] : !txl.smem<128xf32, stages = 1>
  // CHECK: txl.frag_smem_load %[[RV]] : !txl.smem<128xf32> -> tensor<128xf32>
  %f0 = txl.frag_smem_load %rv : !txl.smem<128xf32> -> tensor<128xf32>
  // CHECK: txl.frag_smem_load %[[RV]] other %[[BIG]] : !txl.smem<128xf32> -> tensor<128x64xf32>
  %f1 = txl.frag_smem_load %rv other %big : !txl.smem<128xf32> -> tensor<128x64xf32>
  // CHECK: txl.frag_smem_load %[[RV]] pred %[[P]] : !txl.smem<128xf32> -> tensor<64x128xf32>
  %f2 = txl.frag_smem_load %rv pred %p : !txl.smem<128xf32> -> tensor<64x128xf32>
  // CHECK: txl.frag_smem_load %[[RV]] other %[[BIG]] pred %[[P]] {ctaId = 1 : i32} : !txl.smem<128xf32> -> tensor<128x64xf32>
  %f3 = txl.frag_smem_load %rv other %big pred %p {ctaId = 1 : i32} : !txl.smem<128xf32> -> tensor<128x64xf32>

  // CHECK: %[[BARS:.*]] = txl.mbar_alloc count 1 : !txl.mbar<2>
  %bars = txl.mbar_alloc count 1 : !txl.mbar<2>
  // CHECK: %[[BAR:.*]] = txl.get_buffer %[[BARS]][%[[I]]] : !txl.mbar<2>
  %bar = txl.get_buffer %bars[%i] : !txl.mbar<2>
  // CHECK: txl.frag_smem_store %[[ROW]], %[[RV]] : tensor<128x1xf32>, !txl.smem<128xf32>
  txl.frag_smem_store %rowv, %rv : tensor<128x1xf32>, !txl.smem<128xf32>
  // CHECK: txl.frag_smem_store %[[ROW]], %[[RV]] pred %[[P]] : tensor<128x1xf32>, !txl.smem<128xf32>
  txl.frag_smem_store %rowv, %rv pred %p : tensor<128x1xf32>, !txl.smem<128xf32>
  // CHECK: txl.frag_smem_store %[[F0:.*]], %[[RV]] mbar %[[BAR]] : tensor<128xf32>, !txl.smem<128xf32>
  txl.frag_smem_store %f0, %rv mbar %bar : tensor<128xf32>, !txl.smem<128xf32>
  // CHECK: txl.frag_smem_store %[[BIG]], %[[RV]] mbar %[[BAR]] pred %[[P]] {ctaId = 1 : i32} : tensor<128x64xf32>, !txl.smem<128xf32>
  txl.frag_smem_store %big, %rv mbar %bar pred %p {ctaId = 1 : i32} : tensor<128x64xf32>, !txl.smem<128xf32>

  // CHECK: %[[PV:.*]] = txl.get_buffer %[[PLAIN]][%[[I]]] : !txl.smem<2x64x64xbf16, stages = 2>
  %pv = txl.get_buffer %plain[%i] : !txl.smem<2x64x64xbf16, stages = 2>
  // CHECK: txl.smem_index %[[PV]][%[[I]]] : !txl.smem<2x64x64xbf16>
  %row = txl.smem_index %pv[%i] : !txl.smem<2x64x64xbf16>
  // CHECK: txl.smem_subslice %[[V]] [64, 0] : !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>> -> !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
  %half = txl.smem_subslice %v [64, 0] : !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>> -> !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
  // CHECK: txl.smem_trans %[[V]] [1, 0] : !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>> -> !txl.smem<64x128xbf16>
  %tr = txl.smem_trans %v [1, 0] : !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>> -> !txl.smem<64x128xbf16>
  // CHECK: txl.smem_reshape %[[PV]] : !txl.smem<2x64x64xbf16> -> !txl.smem<128x64xbf16>
  %rs = txl.smem_reshape %pv : !txl.smem<2x64x64xbf16> -> !txl.smem<128x64xbf16>
  return
}

// CHECK-LABEL: func.func @mbar_ops(
// CHECK-SAME: %[[I:[^:]+]]: i32, %[[P:[^:]+]]: i1, %[[PH:[^:]+]]: i32, %[[CTA:[^:]+]]: i32
func.func @mbar_ops(%i: i32, %p: i1, %phase: i32, %cta: i32) {
  // CHECK: %[[BARS:.*]] = txl.mbar_alloc count 128 : !txl.mbar<3>
  %bars = txl.mbar_alloc count 128 : !txl.mbar<3>
  // CHECK: %[[BAR:.*]] = txl.get_buffer %[[BARS]][%[[I]]] : !txl.mbar<3>
  %bar = txl.get_buffer %bars[%i] : !txl.mbar<3>
  // CHECK: txl.mbar_expect %[[BAR]], 16384{{$}}
  txl.mbar_expect %bar, 16384
  // CHECK: txl.mbar_expect %[[BAR]], 32768 pred %[[P]]{{$}}
  txl.mbar_expect %bar, 32768 pred %p
  // CHECK: txl.mbar_wait %[[BAR]], %[[PH]] : i32
  txl.mbar_wait %bar, %phase : i32
  // CHECK: txl.mbar_arrive %[[BAR]]{{$}}
  txl.mbar_arrive %bar
  // CHECK: txl.mbar_arrive %[[BAR]] pred %[[P]]{{$}}
  txl.mbar_arrive %bar pred %p
  // CHECK: txl.mbar_arrive %[[BAR]] remote %[[CTA]]{{$}}
  txl.mbar_arrive %bar remote %cta
  // CHECK: txl.mbar_arrive %[[BAR]] pred %[[P]] remote %[[CTA]]{{$}}
  txl.mbar_arrive %bar pred %p remote %cta
  // The default tx_count (0) is elided.
  // CHECK: txl.mbar_arrive %[[BAR]] pred %[[P]] remote %[[CTA]]{{$}}
  txl.mbar_arrive %bar pred %p remote %cta {tx_count = 0 : i32}
  // CHECK: txl.mbar_arrive %[[BAR]] {track_async_op}
  txl.mbar_arrive %bar {track_async_op}
  // CHECK: txl.mbar_arrive %[[BAR]] {tx_count = 256 : i32}
  txl.mbar_arrive %bar {tx_count = 256 : i32}
  // CHECK: txl.mbar_arrive %[[BAR]] pred %[[P]] {tx_count = 1024 : i32}
  txl.mbar_arrive %bar pred %p {tx_count = 1024 : i32}
  return
}

// CHECK-LABEL: func.func @tma_ops(
// CHECK-SAME: %[[D:[^:]+]]: !txl.tensordesc<128x64xbf16>, %[[DS:[^:]+]]: !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, %[[X:[^:]+]]: i32, %[[Y:[^:]+]]: i32
func.func @tma_ops(%desc: !txl.tensordesc<128x64xbf16>,
                   %sdesc: !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>,
                   %x: i32, %y: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = txl.smem_alloc : !txl.smem<128x64xbf16, stages = 2>
  %sbuf = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1, #txl.nvmma_shared<swizzle = 128>>
  %bars = txl.mbar_alloc count 1 : !txl.mbar<2>
  // CHECK: %[[V0:.*]] = txl.get_buffer
  %v0 = txl.get_buffer %buf[%c0] : !txl.smem<128x64xbf16, stages = 2>
  // CHECK: %[[V1:.*]] = txl.get_buffer
  %v1 = txl.get_buffer %buf[%c1] : !txl.smem<128x64xbf16, stages = 2>
  // CHECK: %[[SV:.*]] = txl.get_buffer
  %sv = txl.get_buffer %sbuf[%c0] : !txl.smem<64x64xbf16, stages = 1, #txl.nvmma_shared<swizzle = 128>>
  // CHECK: %[[B0:.*]] = txl.get_buffer
  %b0 = txl.get_buffer %bars[%c0] : !txl.mbar<2>
  // CHECK: %[[B1:.*]] = txl.get_buffer
  %b1 = txl.get_buffer %bars[%c1] : !txl.mbar<2>
  // Two 16 KiB loads complete on one barrier: 32 KiB expected.
  // CHECK: txl.mbar_expect %[[B0]], 32768
  txl.mbar_expect %b0, 32768
  // CHECK: txl.tma_load %[[D]][%[[X]], %[[Y]]], %[[V0]], %[[B0]] : !txl.tensordesc<128x64xbf16>, !txl.smem<128x64xbf16>
  txl.tma_load %desc[%x, %y], %v0, %b0 : !txl.tensordesc<128x64xbf16>, !txl.smem<128x64xbf16>
  // CHECK: txl.tma_load %[[D]][%[[Y]], %[[X]]], %[[V1]], %[[B0]] {cache = #txl<cache cg>, evict = #txl<evict evict_last>} : !txl.tensordesc<128x64xbf16>, !txl.smem<128x64xbf16>
  txl.tma_load %desc[%y, %x], %v1, %b0 {cache = #txl<cache cg>, evict = #txl<evict evict_last>} : !txl.tensordesc<128x64xbf16>, !txl.smem<128x64xbf16>
  // CHECK: txl.mbar_expect %[[B1]], 8192
  txl.mbar_expect %b1, 8192
  // CHECK: txl.tma_load %[[DS]][%[[X]], %[[Y]]], %[[SV]], %[[B1]] : !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
  txl.tma_load %sdesc[%x, %y], %sv, %b1 : !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
  // CHECK: txl.fence_proxy_async{{$}}
  txl.fence_proxy_async
  // CHECK: txl.tma_store %[[V0]], %[[D]][%[[X]], %[[Y]]] : !txl.smem<128x64xbf16>, !txl.tensordesc<128x64xbf16>
  txl.tma_store %v0, %desc[%x, %y] : !txl.smem<128x64xbf16>, !txl.tensordesc<128x64xbf16>
  // CHECK: txl.tma_store %[[V0]], %[[D]][%[[X]], %[[Y]]] reduce add : !txl.smem<128x64xbf16>, !txl.tensordesc<128x64xbf16>
  txl.tma_store %v0, %desc[%x, %y] reduce add : !txl.smem<128x64xbf16>, !txl.tensordesc<128x64xbf16>
  // CHECK: txl.tma_store %[[V0]], %[[D]][%[[X]], %[[Y]]] reduce max : !txl.smem<128x64xbf16>, !txl.tensordesc<128x64xbf16>
  txl.tma_store %v0, %desc[%x, %y] reduce max : !txl.smem<128x64xbf16>, !txl.tensordesc<128x64xbf16>
  // CHECK: txl.tma_store_wait 0{{$}}
  txl.tma_store_wait 0
  // CHECK: txl.tma_store_wait 1{{$}}
  txl.tma_store_wait 1
  return
}

// Triton-style tiles (the frontend's boundary): desc_load / desc_store move a
// register tile of the descriptor's block; txl.dot may take a register B.
// CHECK-LABEL: func.func @desc_tile_ops(
// CHECK-SAME: %[[D:[^:]+]]: !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, %[[O:[^:]+]]: !txl.tensordesc<64x64xf32, #txl.nvmma_shared<swizzle = 64>>, %[[D3:[^:]+]]: !txl.tensordesc<2x64x64xbf16>, %[[X:[^:]+]]: i32, %[[Y:[^:]+]]: i32
func.func @desc_tile_ops(%d: !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>,
                         %o: !txl.tensordesc<64x64xf32, #txl.nvmma_shared<swizzle = 64>>,
                         %d3: !txl.tensordesc<2x64x64xbf16>, %x: i32, %y: i32) {
  %acc = arith.constant dense<0.0> : tensor<64x64xf32>
  // CHECK: %[[A:.*]] = txl.desc_load %[[D]][%[[X]], %[[Y]]] : !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>> -> tensor<64x64xbf16>
  %a = txl.desc_load %d[%x, %y] : !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>> -> tensor<64x64xbf16>
  // CHECK: %[[B:.*]] = txl.desc_load %[[D]][%[[Y]], %[[X]]] {note = "kept"} : !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>> -> tensor<64x64xbf16>
  %b = txl.desc_load %d[%y, %x] {note = "kept"} : !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>> -> tensor<64x64xbf16>
  // CHECK: %{{.*}} = txl.desc_load %[[D3]][%[[X]], %[[Y]], %[[X]]] : !txl.tensordesc<2x64x64xbf16> -> tensor<2x64x64xbf16>
  %t3 = txl.desc_load %d3[%x, %y, %x] : !txl.tensordesc<2x64x64xbf16> -> tensor<2x64x64xbf16>
  // CHECK: %[[C:.*]] = txl.dot %[[A]], %[[B]], %{{.*}} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  %c = txl.dot %a, %b, %acc : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  // CHECK: %[[CA:.*]] = txl.dot %[[A]], %[[B]], %[[C]] {async} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  %ca = txl.dot %a, %b, %c {async} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  // CHECK: %[[W:.*]] = txl.dot_wait 0, %[[CA]] : tensor<64x64xf32>
  %w = txl.dot_wait 0, %ca : tensor<64x64xf32>
  // CHECK: txl.desc_store %[[O]][%[[X]], %[[Y]]], %[[W]] : !txl.tensordesc<64x64xf32, #txl.nvmma_shared<swizzle = 64>>, tensor<64x64xf32>
  txl.desc_store %o[%x, %y], %w : !txl.tensordesc<64x64xf32, #txl.nvmma_shared<swizzle = 64>>, tensor<64x64xf32>
  // CHECK: txl.desc_store %[[D3]][%[[Y]], %[[X]], %[[X]]], %{{.*}} : !txl.tensordesc<2x64x64xbf16>, tensor<2x64x64xbf16>
  txl.desc_store %d3[%y, %x, %x], %t3 : !txl.tensordesc<2x64x64xbf16>, tensor<2x64x64xbf16>
  return
}

// Loop and allocation annotations of the tile passes (txl.num_stages on a
// kernel and an scf.for; txl.ring / txl.staging / txl.stage / txl.order).
// CHECK-LABEL: func.func @pipeline_annotations(
// CHECK-SAME: attributes {txl.kernel, txl.num_stages = 3 : i32, txl.num_warps = 4 : i32}
func.func @pipeline_annotations(%n: i32) attributes {txl.kernel, txl.num_stages = 3 : i32, txl.num_warps = 4 : i32} {
  // CHECK: txl.smem_alloc {txl.ring} : !txl.smem<64x64xbf16, stages = 2>
  %r = txl.smem_alloc {txl.ring} : !txl.smem<64x64xbf16, stages = 2>
  // CHECK: txl.smem_alloc {txl.staging} : !txl.smem<64x64xbf16, stages = 1>
  %s = txl.smem_alloc {txl.staging} : !txl.smem<64x64xbf16, stages = 1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // CHECK: scf.for
  scf.for %i = %c0 to %n step %c1 : i32 {
    // CHECK: arith.addi %{{.*}}, %{{.*}} {txl.order = 0 : i32, txl.stage = 1 : i32} : i32
    %j = arith.addi %i, %c1 {txl.order = 0 : i32, txl.stage = 1 : i32} : i32
  // CHECK: } {txl.num_stages = 2 : i32}
  } {txl.num_stages = 2 : i32}
  return
}

// CHECK-LABEL: func.func @async_load_ops(
// CHECK-SAME: %[[PTRS:[^:]+]]: tensor<64x64x!txl.ptr<bf16>>, %[[M:[^:]+]]: tensor<64x64xi1>, %[[O:[^:]+]]: tensor<64x64xbf16>, %[[I:[^:]+]]: i32
func.func @async_load_ops(%ptrs: tensor<64x64x!txl.ptr<bf16>>, %mask: tensor<64x64xi1>,
                          %other: tensor<64x64xbf16>, %i: i32) {
  %buf = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 2>
  // CHECK: %[[V:.*]] = txl.get_buffer
  %v = txl.get_buffer %buf[%i] : !txl.smem<64x64xbf16, stages = 2>
  // CHECK: txl.async_load %[[PTRS]], %[[V]] : tensor<64x64x!txl.ptr<bf16>>, !txl.smem<64x64xbf16>
  txl.async_load %ptrs, %v : tensor<64x64x!txl.ptr<bf16>>, !txl.smem<64x64xbf16>
  // CHECK: txl.async_load %[[PTRS]], %[[V]] mask %[[M]] : tensor<64x64xi1> {contiguity = 8 : i32} : tensor<64x64x!txl.ptr<bf16>>, !txl.smem<64x64xbf16>
  txl.async_load %ptrs, %v mask %mask : tensor<64x64xi1> {contiguity = 8 : i32} : tensor<64x64x!txl.ptr<bf16>>, !txl.smem<64x64xbf16>
  // CHECK: txl.async_load %[[PTRS]], %[[V]] mask %[[M]] : tensor<64x64xi1> other %[[O]] : tensor<64x64xbf16> {cache = #txl<cache cg>, evict = #txl<evict evict_first>} : tensor<64x64x!txl.ptr<bf16>>, !txl.smem<64x64xbf16>
  txl.async_load %ptrs, %v mask %mask : tensor<64x64xi1> other %other : tensor<64x64xbf16> {cache = #txl<cache cg>, evict = #txl<evict evict_first>} : tensor<64x64x!txl.ptr<bf16>>, !txl.smem<64x64xbf16>
  // CHECK: txl.async_load_wait 0{{$}}
  txl.async_load_wait 0
  // CHECK: txl.async_load_wait 2{{$}}
  txl.async_load_wait 2
  return
}

// CHECK-LABEL: func.func @dot_ops(
// CHECK-SAME: %[[RA:[^:]+]]: tensor<64x128xbf16>, %[[ACC:[^:]+]]: tensor<64x128xf32>, %[[U:[^:]+]]: i1
func.func @dot_ops(%ra: tensor<64x128xbf16>, %acc: tensor<64x128xf32>, %useAcc: i1) {
  %c0 = arith.constant 0 : i32
  %qa = txl.smem_alloc : !txl.smem<64x128xbf16, stages = 1>
  %ka = txl.smem_alloc : !txl.smem<128x128xbf16, stages = 1>
  // CHECK: %[[Q:.*]] = txl.get_buffer
  %q = txl.get_buffer %qa[%c0] : !txl.smem<64x128xbf16, stages = 1>
  // CHECK: %[[K:.*]] = txl.get_buffer
  %k = txl.get_buffer %ka[%c0] : !txl.smem<128x128xbf16, stages = 1>
  // CHECK: %[[KT:.*]] = txl.smem_trans %[[K]]
  %kT = txl.smem_trans %k [1, 0] : !txl.smem<128x128xbf16> -> !txl.smem<128x128xbf16>
  // CHECK: %[[S:.*]] = txl.dot %[[Q]], %[[KT]], %[[ACC]] : !txl.smem<64x128xbf16>, !txl.smem<128x128xbf16>, tensor<64x128xf32>
  %s = txl.dot %q, %kT, %acc : !txl.smem<64x128xbf16>, !txl.smem<128x128xbf16>, tensor<64x128xf32>
  // CHECK: %[[SA:.*]] = txl.dot %[[Q]], %[[KT]], %[[S]] {async} : !txl.smem<64x128xbf16>, !txl.smem<128x128xbf16>, tensor<64x128xf32>
  %sa = txl.dot %q, %kT, %s {async} : !txl.smem<64x128xbf16>, !txl.smem<128x128xbf16>, tensor<64x128xf32>
  // CHECK: %[[O:.*]] = txl.dot %[[RA]], %[[K]], %[[SA]] use_acc %[[U]] : tensor<64x128xbf16>, !txl.smem<128x128xbf16>, tensor<64x128xf32>
  %o = txl.dot %ra, %k, %sa use_acc %useAcc : tensor<64x128xbf16>, !txl.smem<128x128xbf16>, tensor<64x128xf32>
  // CHECK: %[[OA:.*]] = txl.dot %[[RA]], %[[K]], %[[O]] use_acc %[[U]] {async} : tensor<64x128xbf16>, !txl.smem<128x128xbf16>, tensor<64x128xf32>
  %oa = txl.dot %ra, %k, %o use_acc %useAcc {async} : tensor<64x128xbf16>, !txl.smem<128x128xbf16>, tensor<64x128xf32>
  // CHECK: txl.dot_wait 1{{$}}
  txl.dot_wait 1
  // CHECK: %[[W:.*]] = txl.dot_wait 0, %[[OA]] : tensor<64x128xf32>
  %w = txl.dot_wait 0, %oa : tensor<64x128xf32>
  // CHECK: %{{.*}}:2 = txl.dot_wait 0, %[[W]], %[[SA]] : tensor<64x128xf32>, tensor<64x128xf32>
  %w2:2 = txl.dot_wait 0, %w, %sa : tensor<64x128xf32>, tensor<64x128xf32>
  return
}

// CHECK-LABEL: func.func @sync_and_roles()
func.func @sync_and_roles() {
  // CHECK: txl.bar_arrive 8, 256{{$}}
  txl.bar_arrive 8, 256
  // CHECK: txl.bar_wait 15, 128{{$}}
  txl.bar_wait 15, 128
  // CHECK: txl.reg_alloc 240{{$}}
  txl.reg_alloc 240
  // CHECK: txl.reg_dealloc 24{{$}}
  txl.reg_dealloc 24
  // CHECK: %[[WG:.*]] = txl.is_warpgroup [0]{{$}}
  %producer = txl.is_warpgroup [0]
  // CHECK: txl.is_warpgroup [1, 2]{{$}}
  %consumers = txl.is_warpgroup [1, 2]
  // CHECK: txl.is_warp [8]{{$}}
  %mma = txl.is_warp [8]
  // CHECK: txl.is_warp [0, 1, 2, 3]{{$}}
  %epi = txl.is_warp [0, 1, 2, 3]
  // CHECK: scf.if %[[WG]] {
  scf.if %producer {
    // CHECK: txl.reg_dealloc 40
    txl.reg_dealloc 40
  }
  return
}

// CHECK-LABEL: func.func @ids_and_print(
// CHECK-SAME: %[[M:[^:]+]]: tensor<64xf32>
func.func @ids_and_print(%m: tensor<64xf32>) {
  // CHECK: %[[TID:.*]] = txl.tid{{$}}
  %tid = txl.tid
  // CHECK: %[[WID:.*]] = txl.warp_id{{$}}
  %wid = txl.warp_id
  // CHECK: txl.warpgroup_id{{$}}
  %wg = txl.warpgroup_id
  // CHECK: txl.lane_id{{$}}
  %lane = txl.lane_id
  // CHECK: txl.cta_rank{{$}}
  %rank = txl.cta_rank
  // CHECK: txl.program_id 0{{$}}
  %pid0 = txl.program_id 0
  // CHECK: txl.program_id 2{{$}}
  %pid2 = txl.program_id 2
  // CHECK: txl.num_programs 1{{$}}
  %n1 = txl.num_programs 1
  // CHECK: txl.print "hello"{{$}}
  txl.print "hello"
  // CHECK: txl.print "m_i = " %[[M]] : tensor<64xf32>{{$}}
  txl.print "m_i = " %m : tensor<64xf32>
  // CHECK: txl.print "ids " %[[TID]], %[[WID]] : i32, i32 {hex}
  txl.print "ids " %tid, %wid : i32, i32 {hex}
  // CHECK: %[[POS:.*]] = arith.cmpf
  // CHECK: txl.assert %[[POS]], "m_i is positive" : tensor<64xi1>{{$}}
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %pos = arith.cmpf ogt, %m, %zero : tensor<64xf32>
  txl.assert %pos, "m_i is positive" : tensor<64xi1>
  // CHECK: txl.assert %{{.*}}, "" : i1{{$}}
  %t = arith.constant true
  txl.assert %t, "" : i1
  return
}

#blocked = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>

// CHECK-LABEL: func.func @tile_ops(
// CHECK-SAME: %[[A:[^:]+]]: tensor<64x64xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>>, %[[F:[^:]+]]: f32, %[[S:[^:]+]]: tensor<64x128xf32>, %[[IDX:[^:]+]]: tensor<64x128xi32>
func.func @tile_ops(%a: tensor<64x64xf32, #mma>, %f: f32, %s: tensor<64x128xf32>,
                    %idx: tensor<64x128xi32>) {
  // CHECK: txl.relayout %[[A]] : tensor<64x64xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>> -> tensor<64x64xf32, #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>
  %b = txl.relayout %a : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
  // CHECK: txl.make_range 0, 128 : tensor<128xi32>
  %r = txl.make_range 0, 128 : tensor<128xi32>
  // CHECK: txl.make_range 64, 128 : tensor<64xi32>
  %r2 = txl.make_range 64, 128 : tensor<64xi32>
  // CHECK: %[[Z:.*]] = txl.splat %[[F]] : f32 -> tensor<64x128xf32>
  %z = txl.splat %f : f32 -> tensor<64x128xf32>
  // CHECK: %[[M:.*]]:2 = txl.reduce %[[S]], %[[IDX]] axis 1 : (tensor<64x128xf32>, tensor<64x128xi32>) -> (tensor<64xf32>, tensor<64xi32>) {
  // CHECK-NEXT: ^bb0(%[[X0:.*]]: f32, %[[I0:.*]]: i32, %[[X1:.*]]: f32, %[[I1:.*]]: i32):
  // CHECK-NEXT:   %[[GT:.*]] = arith.cmpf ogt, %[[X0]], %[[X1]] : f32
  // CHECK-NEXT:   %[[XM:.*]] = arith.select %[[GT]], %[[X0]], %[[X1]] : f32
  // CHECK-NEXT:   %[[IM:.*]] = arith.select %[[GT]], %[[I0]], %[[I1]] : i32
  // CHECK-NEXT:   txl.reduce_return %[[XM]], %[[IM]] : f32, i32
  // CHECK-NEXT: }
  %m:2 = txl.reduce %s, %idx axis 1 : (tensor<64x128xf32>, tensor<64x128xi32>) -> (tensor<64xf32>, tensor<64xi32>) {
  ^bb0(%x0: f32, %i0: i32, %x1: f32, %i1: i32):
    %gt = arith.cmpf ogt, %x0, %x1 : f32
    %xm = arith.select %gt, %x0, %x1 : f32
    %im = arith.select %gt, %i0, %i1 : i32
    txl.reduce_return %xm, %im : f32, i32
  }
  // CHECK: %[[E:.*]] = txl.expand_dims %[[M]]#0, 1 : tensor<64xf32> -> tensor<64x1xf32>
  %e = txl.expand_dims %m#0, 1 : tensor<64xf32> -> tensor<64x1xf32>
  // CHECK: txl.expand_dims %[[M]]#0, 0 : tensor<64xf32> -> tensor<1x64xf32>
  %e0 = txl.expand_dims %m#0, 0 : tensor<64xf32> -> tensor<1x64xf32>
  // CHECK: txl.broadcast %[[E]] : tensor<64x1xf32> -> tensor<64x128xf32>
  %bc = txl.broadcast %e : tensor<64x1xf32> -> tensor<64x128xf32>
  // A rank-1 tile reduces to a scalar.
  // CHECK: txl.reduce %[[M]]#0 axis 0 : (tensor<64xf32>) -> f32 {
  // CHECK-NEXT: ^bb0(%[[P:.*]]: f32, %[[Q:.*]]: f32):
  // CHECK-NEXT:   %[[SUM:.*]] = arith.addf %[[P]], %[[Q]] : f32
  // CHECK-NEXT:   txl.reduce_return %[[SUM]] : f32
  %sum = txl.reduce %m#0 axis 0 : (tensor<64xf32>) -> f32 {
  ^bb0(%p: f32, %q: f32):
    %add = arith.addf %p, %q : f32
    txl.reduce_return %add : f32
  }
  // A scan keeps the shape; `reverse` scans from the end.
  // CHECK: txl.scan %[[IDX]] axis 1 : (tensor<64x128xi32>) -> tensor<64x128xi32> {
  // CHECK-NEXT: ^bb0(%[[U:.*]]: i32, %[[V:.*]]: i32):
  // CHECK-NEXT:   %[[UV:.*]] = arith.addi %[[U]], %[[V]] : i32
  // CHECK-NEXT:   txl.reduce_return %[[UV]] : i32
  %cs = txl.scan %idx axis 1 : (tensor<64x128xi32>) -> tensor<64x128xi32> {
  ^bb0(%u: i32, %v: i32):
    %uv = arith.addi %u, %v : i32
    txl.reduce_return %uv : i32
  }
  // CHECK: txl.sort %[[S]] axis 1 : tensor<64x128xf32>{{$}}
  %so = txl.sort %s axis 1 : tensor<64x128xf32>
  // CHECK: txl.sort %[[IDX]] axis 0 descending : tensor<64x128xi32>{{$}}
  %sd = txl.sort %idx axis 0 descending : tensor<64x128xi32>
  // CHECK: txl.flip %[[S]] axis 0 : tensor<64x128xf32>{{$}}
  %fl = txl.flip %s axis 0 : tensor<64x128xf32>
  // CHECK: txl.scan %[[S]], %[[IDX]] axis 0 reverse : (tensor<64x128xf32>, tensor<64x128xi32>) -> (tensor<64x128xf32>, tensor<64x128xi32>) {
  %cm:2 = txl.scan %s, %idx axis 0 reverse : (tensor<64x128xf32>, tensor<64x128xi32>) -> (tensor<64x128xf32>, tensor<64x128xi32>) {
  ^bb0(%x0: f32, %i0: i32, %x1: f32, %i1: i32):
    %gt = arith.cmpf ogt, %x0, %x1 : f32
    %xm = arith.select %gt, %x0, %x1 : f32
    %im = arith.select %gt, %i0, %i1 : i32
    txl.reduce_return %xm, %im : f32, i32
  }
  return
}

// CHECK-LABEL: func.func @pointer_ops(
// CHECK-SAME: %[[BASE:[^:]+]]: !txl.ptr<f32>, %[[BASES:[^:]+]]: tensor<128x!txl.ptr<f32>>, %[[OFF:[^:]+]]: tensor<128xi32>, %[[MASK:[^:]+]]: tensor<128xi1>, %[[ZERO:[^:]+]]: tensor<128xf32>, %[[C:[^:]+]]: i32, %[[SP:[^:]+]]: !txl.ptr<f32, 3>, %[[X:[^:]+]]: f32, %[[B:[^:]+]]: i1
func.func @pointer_ops(%base: !txl.ptr<f32>, %bases: tensor<128x!txl.ptr<f32>>, %offs: tensor<128xi32>,
                       %mask: tensor<128xi1>, %zero: tensor<128xf32>, %c: i32,
                       %sp: !txl.ptr<f32, 3>, %x: f32, %b: i1) {
  // CHECK: %[[P1:.*]] = txl.addptr %[[BASE]], %[[C]] : !txl.ptr<f32>, i32
  %p1 = txl.addptr %base, %c : !txl.ptr<f32>, i32
  // CHECK: %[[PS:.*]] = txl.addptr %[[BASES]], %[[OFF]] : tensor<128x!txl.ptr<f32>>, tensor<128xi32>
  %ps = txl.addptr %bases, %offs : tensor<128x!txl.ptr<f32>>, tensor<128xi32>
  // CHECK: %[[SP1:.*]] = txl.addptr %[[SP]], %[[C]] : !txl.ptr<f32, 3>, i32
  %sp1 = txl.addptr %sp, %c : !txl.ptr<f32, 3>, i32
  // CHECK: txl.load %[[P1]] : !txl.ptr<f32> -> f32
  %l0 = txl.load %p1 : !txl.ptr<f32> -> f32
  // CHECK: txl.load %[[PS]] : tensor<128x!txl.ptr<f32>> -> tensor<128xf32>
  %l1 = txl.load %ps : tensor<128x!txl.ptr<f32>> -> tensor<128xf32>
  // CHECK: txl.load %[[PS]] mask %[[MASK]] : tensor<128x!txl.ptr<f32>> -> tensor<128xf32>
  %l2 = txl.load %ps mask %mask : tensor<128x!txl.ptr<f32>> -> tensor<128xf32>
  // CHECK: %[[L3:.*]] = txl.load %[[PS]] mask %[[MASK]] other %[[ZERO]] {cache = #txl<cache ca>, evict = #txl<evict evict_first>, isVolatile} : tensor<128x!txl.ptr<f32>> -> tensor<128xf32>
  %l3 = txl.load %ps mask %mask other %zero {cache = #txl<cache ca>, evict = #txl<evict evict_first>, isVolatile} : tensor<128x!txl.ptr<f32>> -> tensor<128xf32>
  // CHECK: txl.load %[[SP1]] mask %[[B]] other %[[X]] : !txl.ptr<f32, 3> -> f32
  %l4 = txl.load %sp1 mask %b other %x : !txl.ptr<f32, 3> -> f32
  // CHECK: txl.store %[[PS]], %[[L3]] : tensor<128x!txl.ptr<f32>>, tensor<128xf32>
  txl.store %ps, %l3 : tensor<128x!txl.ptr<f32>>, tensor<128xf32>
  // CHECK: txl.store %[[PS]], %[[L3]] mask %[[MASK]] {cache = #txl<cache cs>, evict = #txl<evict evict_last>} : tensor<128x!txl.ptr<f32>>, tensor<128xf32>
  txl.store %ps, %l3 mask %mask {cache = #txl<cache cs>, evict = #txl<evict evict_last>} : tensor<128x!txl.ptr<f32>>, tensor<128xf32>
  // CHECK: txl.store %[[P1]], %[[X]] mask %[[B]] : !txl.ptr<f32>, f32
  txl.store %p1, %x mask %b : !txl.ptr<f32>, f32
  return
}

// The coordinate-renaming tile ops, without layouts and with the layouts
// --txl-assign-layouts gives them (#txl.linear: the source layout moved
// through the op).
#rows = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#rowsT = #txl.linear<register = [[1, 0], [2, 0]], lane = [[4, 0], [8, 0], [16, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8]]>
// CHECK-LABEL: func.func @rename_ops(
// CHECK-SAME: %[[X:[^:]+]]: tensor<64x32xf32>, %[[L:[^:]+]]: tensor<16x32xf32, #txl.blocked
func.func @rename_ops(%x: tensor<64x32xf32>, %l: tensor<16x32xf32, #rows>) {
  // CHECK: %[[T:.*]] = txl.trans %[[X]], [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
  %t = txl.trans %x, [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
  // CHECK: %[[R:.*]] = txl.reshape %[[T]] : tensor<32x64xf32> -> tensor<32x32x2xf32>
  %r = txl.reshape %t : tensor<32x64xf32> -> tensor<32x32x2xf32>
  // CHECK: %[[A:.*]], %[[B:.*]] = txl.split %[[R]] : tensor<32x32x2xf32> -> tensor<32x32xf32>
  %a, %b = txl.split %r : tensor<32x32x2xf32> -> tensor<32x32xf32>
  // CHECK: txl.join %[[A]], %[[B]] : tensor<32x32xf32> -> tensor<32x32x2xf32>
  %j = txl.join %a, %b : tensor<32x32xf32> -> tensor<32x32x2xf32>
  // CHECK: txl.trans %[[L]], [1, 0] : tensor<16x32xf32, #txl.blocked<{{.*}}>> -> tensor<32x16xf32, #txl.linear<register = {{\[}}[1, 0], [2, 0]], lane = {{\[}}[4, 0], [8, 0], [16, 0], [0, 1], [0, 2]], warp = {{\[}}[0, 4], [0, 8]]>>
  %lt = txl.trans %l, [1, 0] : tensor<16x32xf32, #rows> -> tensor<32x16xf32, #rowsT>
  return
}

// A TMA descriptor built on the device in a 128-byte global slot.
// CHECK-LABEL: func.func @make_tensor_descriptor(
// CHECK-SAME: %[[A:[^:]+]]: !txl.ptr<bf16>, %[[S:[^:]+]]: !txl.ptr<i8>, %[[M:[^:]+]]: i64, %[[K:[^:]+]]: i64
func.func @make_tensor_descriptor(%a: !txl.ptr<bf16>, %slot: !txl.ptr<i8>, %m: i64, %k: i64) {
  %c1 = arith.constant 1 : i64
  // CHECK: txl.make_tensor_descriptor %[[A]], [%[[M]], %[[K]]], [%[[K]], %{{.*}}], %[[S]] : !txl.ptr<bf16>, !txl.ptr<i8> -> !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
  %d = txl.make_tensor_descriptor %a, [%m, %k], [%k, %c1], %slot : !txl.ptr<bf16>, !txl.ptr<i8> -> !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
  // CHECK: txl.make_tensor_descriptor %[[A]], [%[[M]], %[[K]]], [%[[K]], %{{.*}}], %[[S]] {nan_fill} : !txl.ptr<bf16>
  %n = txl.make_tensor_descriptor %a, [%m, %k], [%k, %c1], %slot {nan_fill} : !txl.ptr<bf16>, !txl.ptr<i8> -> !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
  // Without its slot (as the frontend writes it; txl-global-scratch gives it one).
  // CHECK: txl.make_tensor_descriptor %[[A]], [%[[M]], %[[K]]], [%[[K]], %{{.*}}] {nan_fill} : !txl.ptr<bf16> -> !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
  %u = txl.make_tensor_descriptor %a, [%m, %k], [%k, %c1] {nan_fill} : !txl.ptr<bf16> -> !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
  return
}

// Atomics: every kind, sem, scope, mask and scratch form.
// CHECK-LABEL: func.func @atomic_ops(
// CHECK-SAME: %[[P:[^:]+]]: !txl.ptr<i32>, %[[PS:[^:]+]]: tensor<128x!txl.ptr<f32>>, %[[V:[^:]+]]: tensor<128xf32>, %[[M:[^:]+]]: tensor<128xi1>, %[[X:[^:]+]]: i32, %[[S:[^:]+]]: !txl.smem<1xi32>, %[[Q:[^:]+]]: !txl.ptr<i64, 3>, %[[Y:[^:]+]]: i64, %[[H:[^:]+]]: !txl.ptr<bf16>, %[[HV:[^:]+]]: bf16
func.func @atomic_ops(%p: !txl.ptr<i32>, %ps: tensor<128x!txl.ptr<f32>>, %v: tensor<128xf32>,
                      %m: tensor<128xi1>, %x: i32, %s: !txl.smem<1xi32>, %q: !txl.ptr<i64, 3>,
                      %y: i64, %h: !txl.ptr<bf16>, %hv: bf16) {
  // CHECK: txl.atomic_rmw add acq_rel gpu %[[PS]], %[[V]] mask %[[M]] : tensor<128x!txl.ptr<f32>>, tensor<128xf32>
  %a0 = txl.atomic_rmw add acq_rel gpu %ps, %v mask %m : tensor<128x!txl.ptr<f32>>, tensor<128xf32>
  // CHECK: txl.atomic_rmw max relaxed cta %[[PS]], %[[V]] : tensor<128x!txl.ptr<f32>>, tensor<128xf32>
  %a1 = txl.atomic_rmw max relaxed cta %ps, %v : tensor<128x!txl.ptr<f32>>, tensor<128xf32>
  // CHECK: txl.atomic_rmw min acquire sys %[[P]], %[[X]] : !txl.ptr<i32>, i32
  %a2 = txl.atomic_rmw min acquire sys %p, %x : !txl.ptr<i32>, i32
  // CHECK: txl.atomic_rmw umax release cluster %[[P]], %[[X]] scratch(%[[S]] : !txl.smem<1xi32>) {txl.group_warps = 1 : i32} : !txl.ptr<i32>, i32
  %a3 = txl.atomic_rmw umax release cluster %p, %x scratch(%s : !txl.smem<1xi32>) {txl.group_warps = 1 : i32} : !txl.ptr<i32>, i32
  // CHECK: txl.atomic_rmw umin acq_rel gpu %[[Q]], %[[Y]] : !txl.ptr<i64, 3>, i64
  %a4 = txl.atomic_rmw umin acq_rel gpu %q, %y : !txl.ptr<i64, 3>, i64
  // CHECK: txl.atomic_rmw and acq_rel gpu %[[P]], %[[X]] : !txl.ptr<i32>, i32
  %a5 = txl.atomic_rmw and acq_rel gpu %p, %x : !txl.ptr<i32>, i32
  // CHECK: txl.atomic_rmw or acq_rel gpu %[[P]], %[[X]] : !txl.ptr<i32>, i32
  %a6 = txl.atomic_rmw or acq_rel gpu %p, %x : !txl.ptr<i32>, i32
  // CHECK: txl.atomic_rmw xor acq_rel gpu %[[P]], %[[X]] : !txl.ptr<i32>, i32
  %a7 = txl.atomic_rmw xor acq_rel gpu %p, %x : !txl.ptr<i32>, i32
  // CHECK: txl.atomic_rmw xchg acq_rel gpu %[[PS]], %[[V]] : tensor<128x!txl.ptr<f32>>, tensor<128xf32>
  %a8 = txl.atomic_rmw xchg acq_rel gpu %ps, %v : tensor<128x!txl.ptr<f32>>, tensor<128xf32>
  // CHECK: txl.atomic_rmw add relaxed gpu %[[H]], %[[HV]] : !txl.ptr<bf16>, bf16
  %a9 = txl.atomic_rmw add relaxed gpu %h, %hv : !txl.ptr<bf16>, bf16
  // CHECK: txl.atomic_cas acq_rel gpu %[[P]], %[[X]], %[[X]] : !txl.ptr<i32>, i32
  %c0 = txl.atomic_cas acq_rel gpu %p, %x, %x : !txl.ptr<i32>, i32
  // CHECK: txl.atomic_cas relaxed cta %[[PS]], %[[V]], %[[V]] : tensor<128x!txl.ptr<f32>>, tensor<128xf32>
  %c1 = txl.atomic_cas relaxed cta %ps, %v, %v : tensor<128x!txl.ptr<f32>>, tensor<128xf32>
  // CHECK: txl.atomic_cas acquire sys %[[P]], %[[X]], %[[X]] scratch(%[[S]] : !txl.smem<1xi32>) : !txl.ptr<i32>, i32
  %c2 = txl.atomic_cas acquire sys %p, %x, %x scratch(%s : !txl.smem<1xi32>) : !txl.ptr<i32>, i32
  return
}

// libdevice calls (tl.extra.cuda.libdevice): tiles, scalars, several operands.
// CHECK-LABEL: func.func @extern_elementwise
func.func @extern_elementwise(%t: tensor<64xf32>, %x: f64, %i: i32) {
  // CHECK: txl.extern_elementwise "__nv_asinf"(%{{.*}}) : (tensor<64xf32>) -> tensor<64xf32>
  %a = txl.extern_elementwise "__nv_asinf"(%t) : (tensor<64xf32>) -> tensor<64xf32>
  // CHECK: txl.extern_elementwise "__nv_atan2f"(%{{.*}}, %{{.*}}) : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %b = txl.extern_elementwise "__nv_atan2f"(%a, %t) : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  // CHECK: txl.extern_elementwise "__nv_jn"(%{{.*}}, %{{.*}}) : (i32, f64) -> f64
  %c = txl.extern_elementwise "__nv_jn"(%i, %x) : (i32, f64) -> f64
  return
}

// Address casts (tl.cast between int64 and pointers).
// CHECK-LABEL: func.func @address_casts
func.func @address_casts(%a: tensor<16xi64>, %s: i64) {
  // CHECK: txl.int_to_ptr %{{.*}} : tensor<16xi64> -> tensor<16x!txl.ptr<f16>>
  %p = txl.int_to_ptr %a : tensor<16xi64> -> tensor<16x!txl.ptr<f16>>
  // CHECK: txl.ptr_to_int %{{.*}} : tensor<16x!txl.ptr<f16>> -> tensor<16xi64>
  %b = txl.ptr_to_int %p : tensor<16x!txl.ptr<f16>> -> tensor<16xi64>
  // CHECK: txl.int_to_ptr %{{.*}} : i64 -> !txl.ptr<f32>
  %q = txl.int_to_ptr %s : i64 -> !txl.ptr<f32>
  return
}

// A kernel launched with clusters: its barrier of the whole cluster.
// CHECK-LABEL: func.func @cluster_ops()
// CHECK-SAME: txl.num_ctas = 2 : i32
func.func @cluster_ops() attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_ctas = 2 : i32} {
  // CHECK: txl.cluster_barrier{{$}}
  txl.cluster_barrier
  return
}
