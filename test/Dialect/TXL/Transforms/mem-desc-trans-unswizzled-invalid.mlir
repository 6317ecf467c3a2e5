// RUN: txl-opt %s -txl-mem-desc -split-input-file -verify-diagnostics | FileCheck %s

// A transposed view of a buffer without a swizzled (nvmma_shared) layout: its
// type cannot record the order, so loads and stores through it would read the
// buffer untransposed (they did: 16-byte rows of the wrong dimension). Refused.
module attributes {txl.target = "sm_90a"} {
  func.func @trans_unswizzled(%v: !txl.smem<64x128xi8>) attributes {txl.kernel} {
    // expected-error @+2 {{failed to legalize operation 'txl.smem_trans'}}
    // expected-error @+1 {{transposes a view of a shared-memory buffer that has no swizzled layout}}
    %t = txl.smem_trans %v [1, 0] : !txl.smem<64x128xi8> -> !txl.smem<128x64xi8>
    %a = txl.smem_load %t : !txl.smem<128x64xi8> -> tensor<128x64xi8>
    return
  }
}

// -----

// Moving only a unit dimension moves no element: accepted.
// CHECK-LABEL: func.func @trans_unit_dim
// CHECK-NOT: txl.smem_trans
module attributes {txl.target = "sm_90a"} {
  func.func @trans_unit_dim(%v: !txl.smem<1x128xf16>) attributes {txl.kernel} {
    %t = txl.smem_trans %v [1, 0] : !txl.smem<1x128xf16> -> !txl.smem<128x1xf16>
    %a = txl.smem_load %t : !txl.smem<128x1xf16> -> tensor<128x1xf16>
    return
  }
}
