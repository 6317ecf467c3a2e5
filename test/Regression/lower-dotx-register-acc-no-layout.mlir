// Regression: a dotx register accumulator without a layout reports why it
// cannot be lowered (it used to say only "failed to legalize").
// RUN: txl-opt %s -txl-lower-dotx-ops -verify-diagnostics
#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
module attributes {txl.target = "sm_100a"} {
  func.func @regacc(%a: !txl.smem<128x64xbf16, #sw128>, %b: !txl.smem<64x256xbf16, #sw128T>, %c: tensor<128x256xf32>) -> tensor<128x256xf32> attributes {txl.kernel} {
    // expected-error @+1 {{register accumulators are not supported}}
    %d = txl.dotx %a, %b, %c : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x256xbf16, #sw128T>, tensor<128x256xf32> -> tensor<128x256xf32>
    return %d : tensor<128x256xf32>
  }
}
