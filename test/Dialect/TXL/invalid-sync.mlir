// RUN: txl-opt %s -split-input-file -verify-diagnostics

// Verifier rules of the txl dialect: mbarriers, named barriers and fences.
// (One file per op group; invalid types and attributes are in invalid-types.mlir.)

func.func @f() {
  // expected-error @+1 {{'txl.staging' is a unit attribute on txl.smem_alloc}}
  %b = txl.mbar_alloc count 1 {txl.staging} : !txl.mbar<2>
  return
}

// -----

// txl.stage / txl.order (a loop schedule) are integers.
func.func @f() {
  // expected-error @+1 {{'txl.stage' must be an integer}}
  %b = txl.mbar_alloc count 1 {txl.stage = "0"} : !txl.mbar<2>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'txl.order' must be an integer}}
  %b = txl.mbar_alloc count 1 {txl.order = 1.0 : f32} : !txl.mbar<2>
  return
}

// -----

// An mbarrier needs at least one arrival.
func.func @f() {
  // expected-error @+1 {{'txl.mbar_alloc' op arrive count must be in 1..1048575, got 0}}
  %b = txl.mbar_alloc count 0 : !txl.mbar<2>
  return
}

// -----

// A negative arrival count is reported as negative.
func.func @f() {
  // expected-error @+1 {{'txl.mbar_alloc' op arrive count must be in 1..1048575, got -1}}
  %b = txl.mbar_alloc count -1 : !txl.mbar<2>
  return
}

// -----

// The arrival count is 20-bit.
func.func @f() {
  // expected-error @+1 {{'txl.mbar_alloc' op arrive count must be in 1..1048575, got 1048576}}
  %b = txl.mbar_alloc count 1048576 : !txl.mbar<2>
  return
}

// -----

// mbar_expect announces a positive byte count.
func.func @f(%b: !txl.mbar) {
  // expected-error @+1 {{'txl.mbar_expect' op expects 0 bytes; the count must be in 1..1048575}}
  txl.mbar_expect %b, 0
  return
}

// -----

// The tx-count of mbar_expect is 20-bit.
func.func @f(%b: !txl.mbar) {
  // expected-error @+1 {{'txl.mbar_expect' op expects 2097152 bytes; the count must be in 1..1048575}}
  txl.mbar_expect %b, 2097152
  return
}

// -----

// mbar_expect's bytes equal what the TMA loads on the barrier in the block deliver.
func.func @f(%d: !txl.tensordesc<128x64xbf16>, %x: i32, %v0: !txl.smem<128x64xbf16>,
             %v1: !txl.smem<128x64xbf16>, %b: !txl.mbar) {
  // expected-error @+1 {{'txl.mbar_expect' op expects 16384 bytes, but the TMA loads signalling this barrier in the same block deliver 32768 bytes}}
  txl.mbar_expect %b, 16384
  txl.tma_load %d[%x, %x], %v0, %b : !txl.tensordesc<128x64xbf16>, !txl.smem<128x64xbf16>
  txl.tma_load %d[%x, %x], %v1, %b : !txl.tensordesc<128x64xbf16>, !txl.smem<128x64xbf16>
  return
}

// -----

// The cross-check counts TMA gathers too (8 x 64 bf16 = 1024 bytes).
module attributes {txl.target = "sm_100a"} {
  func.func @f(%d: !txl.tensordesc<1x64xbf16>, %rows: tensor<8xi32>, %col: i32,
               %buf: !txl.smem<8x64xbf16>, %b: !txl.mbar) {
    // expected-error @+1 {{'txl.mbar_expect' op expects 2048 bytes, but the TMA loads signalling this barrier in the same block deliver 1024 bytes}}
    txl.mbar_expect %b, 2048
    txl.tma_gather %d[%rows, %col], %buf, %b : !txl.tensordesc<1x64xbf16>, tensor<8xi32>, !txl.smem<8x64xbf16>
    return
  }
}

// -----

// mbar_wait waits on one mbarrier, not on an array.
func.func @f(%bars: !txl.mbar<3>, %phase: i32) {
  // expected-error @+1 {{'txl.mbar_wait' op operand #0 must be one mbarrier (!txl.mbar), but got '!txl.mbar<3>'}}
  "txl.mbar_wait"(%bars, %phase) : (!txl.mbar<3>, i32) -> ()
  return
}

// -----

// mbar_arrive's tx_count is not negative.
func.func @f(%b: !txl.mbar) {
  // expected-error @+1 {{'txl.mbar_arrive' op tx_count must be in 0..1048575, got -16}}
  txl.mbar_arrive %b {tx_count = -16 : i32}
  return
}

// -----

// mbar_arrive's tx_count is 20-bit.
func.func @f(%b: !txl.mbar) {
  // expected-error @+1 {{'txl.mbar_arrive' op tx_count must be in 0..1048575, got 1048576}}
  txl.mbar_arrive %b {tx_count = 1048576 : i32}
  return
}

// -----

// track_async_op cannot carry transaction bytes.
func.func @f(%b: !txl.mbar) {
  // expected-error @+1 {{'txl.mbar_arrive' op track_async_op arrives when this thread's cp.async copies finish; it cannot also carry tx_count or a remote CTA}}
  txl.mbar_arrive %b {track_async_op, tx_count = 128 : i32}
  return
}

// -----

// track_async_op cannot arrive on a remote CTA.
func.func @f(%b: !txl.mbar, %cta: i32) {
  // expected-error @+1 {{'txl.mbar_arrive' op track_async_op arrives when this thread's cp.async copies finish; it cannot also carry tx_count or a remote CTA}}
  txl.mbar_arrive %b remote %cta {track_async_op}
  return
}

//===----------------------------------------------------------------------===//
// TMA and cp.async
//===----------------------------------------------------------------------===//

// -----

// Named barrier ids are 0..15.
func.func @f() {
  // expected-error @+1 {{'txl.bar_arrive' op named barrier id must be in 0..15, got 16 (kernels use 8..15; 1..7 are reserved for the compiler)}}
  txl.bar_arrive 16, 256
  return
}

// -----

// Named barrier ids are not negative.
func.func @f() {
  // expected-error @+1 {{'txl.bar_wait' op named barrier id must be in 0..15, got -1}}
  txl.bar_wait -1, 256
  return
}

// -----

// Named barriers count whole warps.
func.func @f() {
  // expected-error @+1 {{'txl.bar_arrive' op thread count must be a positive multiple of 32 up to 1024 (whole warps), got 100}}
  txl.bar_arrive 8, 100
  return
}

// -----

// Named barriers count at most 1024 threads.
func.func @f() {
  // expected-error @+1 {{'txl.bar_wait' op thread count must be a positive multiple of 32 up to 1024 (whole warps), got 2048}}
  txl.bar_wait 9, 2048
  return
}

// -----

// Named barriers count at least one warp.
func.func @f() {
  // expected-error @+1 {{'txl.bar_wait' op thread count must be a positive multiple of 32 up to 1024 (whole warps), got 0}}
  txl.bar_wait 9, 0
  return
}

// -----

// A cluster barrier needs a kernel launched with clusters.
func.func @cluster_barrier_without_cluster() attributes {txl.kernel, txl.num_warps = 4 : i32} {
  // expected-error @+1 {{'txl.cluster_barrier' op in a kernel launched without clusters (txl.num_ctas absent or 1): launch with num_ctas=2..8, or use a CTA barrier}}
  txl.cluster_barrier
  return
}

// -----

// At most 8 CTAs per cluster (the portable size).
// expected-error @+1 {{'txl.num_ctas' is an integer in 1..8 (CTAs per cluster, at most the portable 8) on a kernel function}}
func.func @too_many_ctas() attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_ctas = 16 : i32} {
  return
}
