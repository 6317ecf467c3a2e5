// RUN: txl-opt %s | txl-opt | FileCheck %s
// RUN: txl-opt %s --mlir-print-op-generic | txl-opt | FileCheck %s

// Round-trip of the Blackwell-only ops (tensor memory, tcgen05 MMA, TMA
// gather4): they verify only in a module that targets sm_100a.

// CHECK: module attributes {txl.target = "sm_100a"}
module attributes {txl.target = "sm_100a"} {

// CHECK-LABEL: func.func @tmem_ops(
// CHECK-SAME: %[[I:[^:]+]]: i32, %[[T:[^:]+]]: tensor<128x256xf32>
func.func @tmem_ops(%i: i32, %t: tensor<128x256xf32>) {
  // CHECK: %[[ACC:.*]] = txl.tmem_alloc : !txl.tmem<128x256xf32, stages = 2>
  %acc = txl.tmem_alloc : !txl.tmem<128x256xf32, stages = 2>
  // CHECK: %[[P:.*]] = txl.tmem_alloc mutable : !txl.tmem<64x64xbf16, stages = 1>
  %p = txl.tmem_alloc mutable : !txl.tmem<64x64xbf16, stages = 1>
  // CHECK: %[[A:.*]] = txl.get_buffer %[[ACC]][%[[I]]] : !txl.tmem<128x256xf32, stages = 2>
  %a = txl.get_buffer %acc[%i] : !txl.tmem<128x256xf32, stages = 2>
  // CHECK: %[[L:.*]] = txl.tmem_load %[[A]] : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
  %l = txl.tmem_load %a : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
  // CHECK: txl.tmem_load %[[A]] {ctaId = 1 : i32} : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
  %l1 = txl.tmem_load %a {ctaId = 1 : i32} : !txl.tmem<128x256xf32> -> tensor<128x256xf32>
  // CHECK: txl.tmem_store %[[T]], %[[A]] : tensor<128x256xf32>, !txl.tmem<128x256xf32>
  txl.tmem_store %t, %a : tensor<128x256xf32>, !txl.tmem<128x256xf32>
  // CHECK: txl.tmem_store %[[L]], %[[A]] {ctaId = 0 : i32} : tensor<128x256xf32>, !txl.tmem<128x256xf32>
  txl.tmem_store %l, %a {ctaId = 0 : i32} : tensor<128x256xf32>, !txl.tmem<128x256xf32>
  return
}

// CHECK-LABEL: func.func @dotx_ops(
// CHECK-SAME: %[[U:[^:]+]]: i1, %[[P:[^:]+]]: i1, %[[Q:[^:]+]]: i1, %[[RACC:[^:]+]]: tensor<128x256xf32>, %[[RACC2:[^:]+]]: tensor<256x128xf32>
func.func @dotx_ops(%useD: i1, %pred: i1, %last: i1, %racc: tensor<128x256xf32>,
                    %racc2: tensor<256x128xf32>) {
  %c0 = arith.constant 0 : i32
  %as = txl.smem_alloc : !txl.smem<128x64xbf16, stages = 1>
  %bs = txl.smem_alloc : !txl.smem<64x256xbf16, stages = 1>
  %a2s = txl.smem_alloc : !txl.smem<256x64xbf16, stages = 1>
  %b2s = txl.smem_alloc : !txl.smem<64x128xbf16, stages = 1>
  %accs = txl.tmem_alloc : !txl.tmem<128x256xf32, stages = 1>
  %ats = txl.tmem_alloc : !txl.tmem<128x64xbf16, stages = 1>
  %bars = txl.mbar_alloc count 1 : !txl.mbar<2>
  // CHECK: %[[A:.*]] = txl.get_buffer
  %a = txl.get_buffer %as[%c0] : !txl.smem<128x64xbf16, stages = 1>
  // CHECK: %[[B:.*]] = txl.get_buffer
  %b = txl.get_buffer %bs[%c0] : !txl.smem<64x256xbf16, stages = 1>
  // CHECK: %[[A2:.*]] = txl.get_buffer
  %a2 = txl.get_buffer %a2s[%c0] : !txl.smem<256x64xbf16, stages = 1>
  // CHECK: %[[B2:.*]] = txl.get_buffer
  %b2 = txl.get_buffer %b2s[%c0] : !txl.smem<64x128xbf16, stages = 1>
  // CHECK: %[[ACC:.*]] = txl.get_buffer
  %acc = txl.get_buffer %accs[%c0] : !txl.tmem<128x256xf32, stages = 1>
  // CHECK: %[[AT:.*]] = txl.get_buffer
  %at = txl.get_buffer %ats[%c0] : !txl.tmem<128x64xbf16, stages = 1>
  // CHECK: %[[E:.*]] = txl.get_buffer
  %empty = txl.get_buffer %bars[%c0] : !txl.mbar<2>
  %c1 = arith.constant 1 : i32
  // CHECK: %[[R:.*]] = txl.get_buffer
  %ready = txl.get_buffer %bars[%c1] : !txl.mbar<2>

  // Tensor-memory accumulator, updated in place: no result.
  // CHECK: txl.dotx %[[A]], %[[B]], %[[ACC]] : !txl.smem<128x64xbf16>, !txl.smem<64x256xbf16>, !txl.tmem<128x256xf32>{{$}}
  txl.dotx %a, %b, %acc : !txl.smem<128x64xbf16>, !txl.smem<64x256xbf16>, !txl.tmem<128x256xf32>
  // CHECK: txl.dotx %[[A]], %[[B]], %[[ACC]] use_d %[[U]] pred %[[P]] : !txl.smem<128x64xbf16>, !txl.smem<64x256xbf16>, !txl.tmem<128x256xf32>{{$}}
  txl.dotx %a, %b, %acc use_d %useD pred %pred : !txl.smem<128x64xbf16>, !txl.smem<64x256xbf16>, !txl.tmem<128x256xf32>
  // CHECK: txl.dotx %[[A]], %[[B]], %[[ACC]] use_d %[[U]] mbars(%[[E]], %[[R]]) preds(%[[P]], %[[Q]]) : !txl.smem<128x64xbf16>, !txl.smem<64x256xbf16>, !txl.tmem<128x256xf32>{{$}}
  txl.dotx %a, %b, %acc use_d %useD mbars(%empty, %ready) preds(%pred, %last)
    : !txl.smem<128x64xbf16>, !txl.smem<64x256xbf16>, !txl.tmem<128x256xf32>
  // Mbarriers without predicates: each is always signalled.
  // CHECK: txl.dotx %[[A]], %[[B]], %[[ACC]] mbars(%[[E]]) : !txl.smem<128x64xbf16>, !txl.smem<64x256xbf16>, !txl.tmem<128x256xf32>{{$}}
  txl.dotx %a, %b, %acc mbars(%empty) : !txl.smem<128x64xbf16>, !txl.smem<64x256xbf16>, !txl.tmem<128x256xf32>
  // A in tensor memory.
  // CHECK: txl.dotx %[[AT]], %[[B]], %[[ACC]] pred %[[P]] mbars(%[[R]]) preds(%[[Q]]) : !txl.tmem<128x64xbf16>, !txl.smem<64x256xbf16>, !txl.tmem<128x256xf32>{{$}}
  txl.dotx %at, %b, %acc pred %pred mbars(%ready) preds(%last) : !txl.tmem<128x64xbf16>, !txl.smem<64x256xbf16>, !txl.tmem<128x256xf32>
  // Register accumulator: the result is the new accumulator.
  // CHECK: %[[D:.*]] = txl.dotx %[[A]], %[[B]], %[[RACC]] : !txl.smem<128x64xbf16>, !txl.smem<64x256xbf16>, tensor<128x256xf32> -> tensor<128x256xf32>
  %d = txl.dotx %a, %b, %racc : !txl.smem<128x64xbf16>, !txl.smem<64x256xbf16>, tensor<128x256xf32> -> tensor<128x256xf32>
  // CHECK: txl.dotx %[[A]], %[[B]], %[[D]] use_d %[[U]] mbars(%[[E]]) preds(%[[P]]) : !txl.smem<128x64xbf16>, !txl.smem<64x256xbf16>, tensor<128x256xf32> -> tensor<128x256xf32>
  %d2 = txl.dotx %a, %b, %d use_d %useD mbars(%empty) preds(%pred) : !txl.smem<128x64xbf16>, !txl.smem<64x256xbf16>, tensor<128x256xf32> -> tensor<128x256xf32>
  // M = 256 across a CTA pair.
  // CHECK: txl.dotx %[[A2]], %[[B2]], %[[RACC2]] {two_ctas} : !txl.smem<256x64xbf16>, !txl.smem<64x128xbf16>, tensor<256x128xf32> -> tensor<256x128xf32>
  %d3 = txl.dotx %a2, %b2, %racc2 {two_ctas} : !txl.smem<256x64xbf16>, !txl.smem<64x128xbf16>, tensor<256x128xf32> -> tensor<256x128xf32>
  return
}

// CHECK-LABEL: func.func @tma_gather_ops(
// CHECK-SAME: %[[D:[^:]+]]: !txl.tensordesc<1x64xbf16>, %[[ROWS:[^:]+]]: tensor<8xi32>, %[[COL:[^:]+]]: i32
func.func @tma_gather_ops(%desc: !txl.tensordesc<1x64xbf16>, %rows: tensor<8xi32>, %col: i32) {
  %c0 = arith.constant 0 : i32
  %bufs = txl.smem_alloc : !txl.smem<8x64xbf16, stages = 2>
  %bars = txl.mbar_alloc count 1 : !txl.mbar<2>
  // CHECK: %[[BUF:.*]] = txl.get_buffer
  %buf = txl.get_buffer %bufs[%c0] : !txl.smem<8x64xbf16, stages = 2>
  // CHECK: %[[BAR:.*]] = txl.get_buffer
  %bar = txl.get_buffer %bars[%c0] : !txl.mbar<2>
  // 8 rows x 64 bf16 = 1024 bytes.
  // CHECK: txl.mbar_expect %[[BAR]], 1024
  txl.mbar_expect %bar, 1024
  // CHECK: txl.tma_gather %[[D]][%[[ROWS]], %[[COL]]], %[[BUF]], %[[BAR]] : !txl.tensordesc<1x64xbf16>, tensor<8xi32>, !txl.smem<8x64xbf16>
  txl.tma_gather %desc[%rows, %col], %buf, %bar : !txl.tensordesc<1x64xbf16>, tensor<8xi32>, !txl.smem<8x64xbf16>
  return
}

}
