// RUN: txl-opt %s -txl-mem-desc -split-input-file -verify-diagnostics | FileCheck %s --implicit-check-not=txl.smem_index --implicit-check-not=txl.smem_subslice --implicit-check-not=txl.smem_trans --implicit-check-not=txl.smem_reshape

// Error cases are checked by -verify-diagnostics in the same run (their
// chunks print nothing); the other chunks are checked by FileCheck. Each view
// feeds a txl.smem_load, which this stage leaves alone, so the view's new
// address shows up as an unrealized cast back to the view type.

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>

// smem_trans and smem_reshape keep the address: only the type changes.
// CHECK-LABEL: func.func @trans_keeps_address
// CHECK: %[[ADDR:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>> to !llvm.ptr<3>
// CHECK-NEXT: %[[T:.*]] = builtin.unrealized_conversion_cast %[[ADDR]] : !llvm.ptr<3> to !txl.smem<64x128xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>
// CHECK-NEXT: txl.smem_load %[[T]]
// CHECK-NEXT: return
// CHECK-LABEL: func.func @reshape_keeps_address
// CHECK: %[[ADDR:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>> to !llvm.ptr<3>
// CHECK-NEXT: %[[R:.*]] = builtin.unrealized_conversion_cast %[[ADDR]] : !llvm.ptr<3> to !txl.smem<2x64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
// CHECK-NEXT: txl.smem_load %[[R]]
// CHECK-NEXT: return
module attributes {txl.target = "sm_90a"} {
  func.func @trans_keeps_address(%v: !txl.smem<128x64xbf16, #sw128>) attributes {txl.kernel} {
    %t = txl.smem_trans %v [1, 0] : !txl.smem<128x64xbf16, #sw128> -> !txl.smem<64x128xbf16, #sw128T>
    %a = txl.smem_load %t : !txl.smem<64x128xbf16, #sw128T> -> tensor<64x128xbf16>
    return
  }
  func.func @reshape_keeps_address(%v: !txl.smem<128x64xbf16, #sw128>) attributes {txl.kernel} {
    %r = txl.smem_reshape %v : !txl.smem<128x64xbf16, #sw128> -> !txl.smem<2x64x64xbf16, #sw128>
    %b = txl.smem_load %r : !txl.smem<2x64x64xbf16, #sw128> -> tensor<2x64x64xbf16>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>

// smem_index i: i times the bytes of one sub-tile (64x64 bf16 = 8192).
// CHECK-LABEL: func.func @index_multiplies_sub_tile_bytes
// CHECK-SAME: %[[I:[^ ]*]]: i32)
// CHECK: %[[ADDR:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.smem<2x64x64xbf16, #txl.nvmma_shared<swizzle = 128>> to !llvm.ptr<3>
// CHECK: %[[IDX:.*]] = llvm.sext %[[I]] : i32 to i64
// CHECK: %[[BYTES:.*]] = llvm.mlir.constant(8192 : i64) : i64
// CHECK: %[[OFF:.*]] = llvm.mul %[[IDX]], %[[BYTES]] : i64
// CHECK: %[[P:.*]] = llvm.getelementptr %[[ADDR]][%[[OFF]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK: %[[V:.*]] = builtin.unrealized_conversion_cast %[[P]] : !llvm.ptr<3> to !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
// CHECK: txl.smem_load %[[V]]
module attributes {txl.target = "sm_90a"} {
  func.func @index_multiplies_sub_tile_bytes(%v: !txl.smem<2x64x64xbf16, #sw128>, %i: i32) attributes {txl.kernel} {
    %s = txl.smem_index %v[%i] : !txl.smem<2x64x64xbf16, #sw128>
    %a = txl.smem_load %s : !txl.smem<64x64xbf16, #sw128> -> tensor<64x64xbf16>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>

// A row slice of a one-block-wide swizzled tile: 64 rows x 128 bytes = 8192.
// CHECK-LABEL: func.func @subslice_rows_swizzled
// CHECK: %[[ADDR:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>> to !llvm.ptr<3>
// CHECK: %[[P:.*]] = llvm.getelementptr %[[ADDR]][8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: %[[V:.*]] = builtin.unrealized_conversion_cast %[[P]] : !llvm.ptr<3> to !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
// CHECK: txl.smem_load %[[V]]
module attributes {txl.target = "sm_90a"} {
  func.func @subslice_rows_swizzled(%v: !txl.smem<128x64xbf16, #sw128>) attributes {txl.kernel} {
    %s = txl.smem_subslice %v [64, 0] : !txl.smem<128x64xbf16, #sw128> -> !txl.smem<64x64xbf16, #sw128>
    %a = txl.smem_load %s : !txl.smem<64x64xbf16, #sw128> -> tensor<64x64xbf16>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>

// A column block of a two-block-wide swizzled tile: block 1 starts after
// 128 rows x 128 bytes = 16384.
// CHECK-LABEL: func.func @subslice_column_block
// CHECK: %[[ADDR:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.smem<128x128xbf16, #txl.nvmma_shared<swizzle = 128>> to !llvm.ptr<3>
// CHECK: %[[P:.*]] = llvm.getelementptr %[[ADDR]][16384] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: %[[V:.*]] = builtin.unrealized_conversion_cast %[[P]] : !llvm.ptr<3> to !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>>
// CHECK: txl.smem_load %[[V]]
module attributes {txl.target = "sm_90a"} {
  func.func @subslice_column_block(%v: !txl.smem<128x128xbf16, #sw128>) attributes {txl.kernel} {
    %s = txl.smem_subslice %v [0, 64] : !txl.smem<128x128xbf16, #sw128> -> !txl.smem<128x64xbf16, #sw128>
    %a = txl.smem_load %s : !txl.smem<128x64xbf16, #sw128> -> tensor<128x64xbf16>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>

// K steps inside a swizzle atom (TXL's 01-matmul slices a 128 x 64 f16 tile
// into two 32-column steps for wgmma): columns 32..63 start 64 bytes into the
// atom's rows; a step in the second column block of a 128 x 128 tile starts
// after the first block (128 rows x 128 bytes) plus its offset in the atom.
// CHECK-LABEL: func.func @subslice_k_step
// CHECK: llvm.getelementptr %{{.*}}[64] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.getelementptr %{{.*}}[16448] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
module attributes {txl.target = "sm_90a"} {
  func.func @subslice_k_step(%v: !txl.smem<128x64xf16, #sw128>, %w: !txl.smem<128x128xf16, #sw128>) -> (!txl.smem<128x32xf16, #sw128>, !txl.smem<128x32xf16, #sw128>) attributes {txl.kernel} {
    %s = txl.smem_subslice %v [0, 32] : !txl.smem<128x64xf16, #sw128> -> !txl.smem<128x32xf16, #sw128>
    %t = txl.smem_subslice %w [0, 96] : !txl.smem<128x128xf16, #sw128> -> !txl.smem<128x32xf16, #sw128>
    return %s, %t : !txl.smem<128x32xf16, #sw128>, !txl.smem<128x32xf16, #sw128>
  }
}

// -----

// Unswizzled row-major tiles: whole rows (16 rows x 32 f32 = 2048 bytes),
// and a 1-D range (32 f32 = 128 bytes).
// CHECK-LABEL: func.func @subslice_unswizzled
// CHECK-DAG: %[[ADDR2:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.smem<64x32xf32> to !llvm.ptr<3>
// CHECK-DAG: %[[ADDR1:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.smem<128xf32> to !llvm.ptr<3>
// CHECK: llvm.getelementptr %[[ADDR2]][2048] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.getelementptr %[[ADDR1]][128] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
module attributes {txl.target = "sm_90a"} {
  func.func @subslice_unswizzled(%v: !txl.smem<64x32xf32>, %w: !txl.smem<128xf32>) attributes {txl.kernel} {
    %s = txl.smem_subslice %v [16, 0] : !txl.smem<64x32xf32> -> !txl.smem<16x32xf32>
    %r = txl.smem_subslice %w [32] : !txl.smem<128xf32> -> !txl.smem<64xf32>
    %a = txl.smem_load %s : !txl.smem<16x32xf32> -> tensor<16x32xf32>
    %b = txl.smem_load %r : !txl.smem<64xf32> -> tensor<64xf32>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>

// Row 4 is inside the 8-row swizzle period: not a view.
module attributes {txl.target = "sm_90a"} {
  func.func @slice_inside_swizzle_period(%v: !txl.smem<64x64xbf16, #sw128>) attributes {txl.kernel} {
    // expected-error @+2 {{failed to legalize operation 'txl.smem_subslice'}}
    // expected-error @+1 {{this slice is not a view of the buffer's layout: slice whole rows (at a multiple of 8 rows when swizzled)}}
    %s = txl.smem_subslice %v [4, 0] : !txl.smem<64x64xbf16, #sw128> -> !txl.smem<8x64xbf16, #sw128>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>

// A swizzled tile wider than one 128-byte block (128 bf16 = 256 bytes) is
// stored in column blocks: its sub-tiles are not contiguous.
module attributes {txl.target = "sm_90a"} {
  func.func @index_wide_swizzled(%v: !txl.smem<2x64x128xbf16, #sw128>, %i: i32) attributes {txl.kernel} {
    // expected-error @+2 {{failed to legalize operation 'txl.smem_index'}}
    // expected-error @+1 {{cannot index a swizzled tile wider than one swizzle block (128 bytes): its sub-tiles are not contiguous}}
    %s = txl.smem_index %v[%i] : !txl.smem<2x64x128xbf16, #sw128>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>

// Reshaping a swizzled tile across its contiguous dimension.
module attributes {txl.target = "sm_90a"} {
  func.func @reshape_contiguous_dim(%v: !txl.smem<64x128xbf16, #sw128>) attributes {txl.kernel} {
    // expected-error @+2 {{failed to legalize operation 'txl.smem_reshape'}}
    // expected-error @+1 {{cannot reshape a swizzled tile across its contiguous dimension}}
    %r = txl.smem_reshape %v : !txl.smem<64x128xbf16, #sw128> -> !txl.smem<128x64xbf16, #sw128>
    return
  }
}

// -----

#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>

// Slicing a transposed view.
module attributes {txl.target = "sm_90a"} {
  func.func @slice_transposed(%v: !txl.smem<64x128xbf16, #sw128T>) attributes {txl.kernel} {
    // expected-error @+2 {{failed to legalize operation 'txl.smem_subslice'}}
    // expected-error @+1 {{slicing a transposed view is not supported; slice the buffer, then transpose}}
    %s = txl.smem_subslice %v [0, 64] : !txl.smem<64x128xbf16, #sw128T> -> !txl.smem<64x64xbf16, #sw128T>
    return
  }
}

// -----

// Regression test: smem_index and column-block slices of swizzled tiles with
// fewer than 8 rows were accepted and read the wrong bytes.
// Views of a swizzled tile must start on the 1024-byte swizzle pattern: a
// 4-row sub-tile of an smem_index does not.
module attributes {txl.target = "sm_90a"} {
  func.func @index_4_rows(%v: !txl.smem<2x4x64xbf16, #txl.nvmma_shared<swizzle = 128>>, %i: i32) attributes {txl.kernel} {
    // expected-error @+2 {{would start inside the 1024-byte swizzle pattern}}
    // expected-error @+1 {{failed to legalize}}
    %r = txl.smem_index %v[%i] : !txl.smem<2x4x64xbf16, #txl.nvmma_shared<swizzle = 128>>
    return
  }
}

// -----

// The same regression: the second 128-byte column block of a 4-row tile.
module attributes {txl.target = "sm_90a"} {
  func.func @column_block_4_rows(%v: !txl.smem<4x128xbf16, #txl.nvmma_shared<swizzle = 128>>) attributes {txl.kernel} {
    // expected-error @+2 {{this slice is not a view of the buffer's layout}}
    // expected-error @+1 {{failed to legalize}}
    %r = txl.smem_subslice %v [0, 64] : !txl.smem<4x128xbf16, #txl.nvmma_shared<swizzle = 128>> -> !txl.smem<4x64xbf16, #txl.nvmma_shared<swizzle = 128>>
    return
  }
}
