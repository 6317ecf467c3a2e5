// RUN: txl-opt %s -txl-lower-loads -split-input-file -verify-diagnostics

// What lowerLoads rejects (lower-loads.mlir holds what it lowers).

#blocked = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// cp.async zero-fills masked-off elements; it cannot fill with another value.
module attributes {txl.target = "sm_90a"} {
  func.func @async_load_other(%p: tensor<64x64x!txl.ptr<bf16>, #blocked>, %m: tensor<64x64xi1, #blocked>, %buf: !txl.smem<64x64xbf16>) attributes {txl.kernel} {
    %one = arith.constant dense<1.0> : tensor<64x64xbf16, #blocked>
    // expected-error @+2 {{failed to legalize operation 'txl.async_load'}}
    // expected-error @+1 {{async_load with a non-zero 'other' is not supported}}
    txl.async_load %p, %buf mask %m : tensor<64x64xi1, #blocked> other %one : tensor<64x64xbf16, #blocked> : tensor<64x64x!txl.ptr<bf16>, #blocked>, !txl.smem<64x64xbf16>
    return
  }
}

// -----

#scalar = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// One bf16 per copy is 2 bytes: below cp.async's smallest copy.
module attributes {txl.target = "sm_90a"} {
  func.func @async_load_2b(%p: tensor<64x64x!txl.ptr<bf16>, #scalar>, %buf: !txl.smem<64x64xbf16>) attributes {txl.kernel} {
    // expected-error @+2 {{failed to legalize operation 'txl.async_load'}}
    // expected-error @+1 {{cp.async copies 4, 8 or 16 bytes, but only 1 contiguous 'bf16' element(s) per copy are known here}}
    txl.async_load %p, %buf : tensor<64x64x!txl.ptr<bf16>, #scalar>, !txl.smem<64x64xbf16>
    return
  }
}

// -----

#spread = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// The issuing thread holds one row offset of eight.
module attributes {txl.target = "sm_100a"} {
  func.func @tma_gather_spread(%d: !txl.tensordesc<1x64xbf16>, %rows: tensor<8xi32, #spread>, %col: i32, %buf: !txl.smem<8x64xbf16>, %bar: !txl.mbar) attributes {txl.kernel} {
    // expected-error @+2 {{failed to legalize operation 'txl.tma_gather'}}
    // expected-error @+1 {{tma_gather is issued by one thread, which needs every row offset}}
    txl.tma_gather %d[%rows, %col], %buf, %bar : !txl.tensordesc<1x64xbf16>, tensor<8xi32, #spread>, !txl.smem<8x64xbf16>
    return
  }
}

// -----

// A descriptor built on the device needs the global-scratch slot that
// txl-global-scratch (first in txlc's pipeline) gives it; run alone, this
// pass says so instead of failing inside.
module attributes {txl.target = "sm_90a"} {
  func.func @descriptor_without_slot(%a: !txl.ptr<bf16>, %m: i64, %k: i64) attributes {txl.kernel} {
    %c1 = arith.constant 1 : i64
    // expected-error @+2 {{failed to legalize operation 'txl.make_tensor_descriptor'}}
    // expected-error @+1 {{has no global-scratch slot to build its descriptor in: run txl-global-scratch before txl-lower-loads}}
    %d = txl.make_tensor_descriptor %a, [%m, %k], [%k, %c1] : !txl.ptr<bf16> -> !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
    return
  }
}
