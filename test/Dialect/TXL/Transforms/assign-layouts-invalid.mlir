// RUN: txl-opt %s -txl-assign-layouts -split-input-file -verify-diagnostics

// A tile the register layouts cannot distribute (dimensions must be powers
// of two) is reported where it is produced, with the reason, instead of the
// lowering stages failing later without one.
#sw128 = #txl.nvmma_shared<swizzle = 128>
module attributes {txl.target = "sm_90a"} {
  func.func @non_power_of_two_tile(%a: !txl.smem<64x64xbf16, #sw128>, %b: !txl.smem<64x192xbf16, #sw128>) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    // expected-error @+1 {{'arith.constant' op produces the register tile 'tensor<64x192xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 192, 16]>>', which cannot be distributed over the threads: register layouts need power-of-two tile dimensions, got 192}}
    %z = arith.constant dense<0.0> : tensor<64x192xf32>
    %d = txl.dot %a, %b, %z : !txl.smem<64x64xbf16, #sw128>, !txl.smem<64x192xbf16, #sw128>, tensor<64x192xf32>
    return
  }
}

// -----

// A blocked tile of 100 columns (a row softmax over N = 100 must use a
// 128-wide tile and a mask).
module attributes {txl.target = "sm_90a"} {
  func.func @non_power_of_two_range(%p: !txl.ptr<f32>) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    // expected-error @+1 {{produces the register tile 'tensor<100xi32, #txl.blocked<}}
    %r = txl.make_range 0, 100 : tensor<100xi32>
    %ps = txl.splat %p : !txl.ptr<f32> -> tensor<100x!txl.ptr<f32>>
    %q = txl.addptr %ps, %r : tensor<100x!txl.ptr<f32>>, tensor<100xi32>
    %v = txl.load %q : tensor<100x!txl.ptr<f32>> -> tensor<100xf32>
    txl.store %q, %v : tensor<100x!txl.ptr<f32>>, tensor<100xf32>
    return
  }
}

// -----

// A rank-0 tensor is not a register tile (a fuzzer find: it crashed the
// default-layout builder).
module attributes {txl.target = "sm_90a"} {
  func.func @rank_zero() attributes {txl.kernel, txl.num_warps = 4 : i32} {
    // expected-error @+1 {{'arith.constant' op produces 'tensor<f32>', a rank-0 tensor, which is not a register tile; use a scalar 'f32' instead}}
    %c = arith.constant dense<0.0> : tensor<f32>
    return
  }
}

// -----

// A #txl.linear written by the author must reach every element of its tile
// (here lanes 16..31 repeat lanes 0..15 and nothing covers rows 16..31).
module attributes {txl.target = "sm_90a"} {
  func.func @linear_misses_elements(%s: !txl.smem<32xf32>) attributes {txl.kernel} {
    // expected-error @+1 {{'txl.smem_load' op produces the register tile 'tensor<32xf32, #txl.linear<register = [], lane = [[1], [2], [4], [8], [0]], warp = []>>', which cannot be distributed over the threads: #txl.linear does not reach every element of the tile (its bases span 16 of 32 elements)}}
    %x = txl.smem_load %s : !txl.smem<32xf32> -> tensor<32xf32, #txl.linear<register = [], lane = [[1], [2], [4], [8], [0]], warp = []>>
    return
  }
}
