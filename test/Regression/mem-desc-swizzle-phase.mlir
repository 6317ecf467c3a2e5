// Regression: views of a swizzled tile must start on the 1024-byte swizzle
// pattern; smem_index / column-block slices of tiles with fewer than 8 rows
// used to be accepted and read the wrong bytes.
// RUN: txl-opt %s -txl-mem-desc -split-input-file -verify-diagnostics

module attributes {txl.target = "sm_90a"} {
  func.func @index_4_rows(%v: !txl.smem<2x4x64xbf16, #txl.nvmma_shared<swizzle = 128>>, %i: i32) attributes {txl.kernel} {
    // expected-error @+2 {{would start inside the 1024-byte swizzle pattern}}
    // expected-error @+1 {{failed to legalize}}
    %r = txl.smem_index %v[%i] : !txl.smem<2x4x64xbf16, #txl.nvmma_shared<swizzle = 128>>
    return
  }
}

// -----

module attributes {txl.target = "sm_90a"} {
  func.func @column_block_4_rows(%v: !txl.smem<4x128xbf16, #txl.nvmma_shared<swizzle = 128>>) attributes {txl.kernel} {
    // expected-error @+2 {{this slice is not a view of the buffer's layout}}
    // expected-error @+1 {{failed to legalize}}
    %r = txl.smem_subslice %v [0, 64] : !txl.smem<4x128xbf16, #txl.nvmma_shared<swizzle = 128>> -> !txl.smem<4x64xbf16, #txl.nvmma_shared<swizzle = 128>>
    return
  }
}
