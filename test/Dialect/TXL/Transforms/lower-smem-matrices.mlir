// RUN: txl-opt %s -txl-lower-smem-load-stores -split-input-file | FileCheck %s --implicit-check-not=nvvm.ldmatrix --implicit-check-not=nvvm.stmatrix --implicit-check-not=llvm.load --implicit-check-not=llvm.store

// smem_load / smem_store of tiles whose layout and view decompose into 8 x 8
// matrices of b16 with 16-byte rows: ldmatrix / stmatrix (.x4; .x2 when a
// thread has 2 words; .trans for 16-bit tiles whose pairs run across rows),
// one instruction per 4 words of each lane. Every other tile keeps the
// per-register ld/st.shared (the last two cases); the implicit checks make
// every other load, store, ldmatrix and stmatrix an error.

#rows = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>

// Gluon tutorial 03's tile: 32 x 64 f32, lanes along a row (one column
// each), warps 0-1 at columns 0 / 32 (warps 2-3 copies), registers along the
// rows. A 32-bit element is one word of the ldmatrix fragment: lane l holds
// bytes 4 * (l % 4) of row l / 4 of each matrix, so a matrix is one tile row
// (its 8 rows = 8 consecutive 16-byte chunks of it), and register bits 0-1
// (rows 1, 2) pick the matrix: 8 x4 per thread for 32 registers. Lane L gives
// the address of row L % 8 of matrix L / 8: column 4 * (L % 8) (lane bits
// 0-2 -> 4, 8, 16) + 32 * warp bit 0, tile row (L / 8) (lane bits 3-4 -> 1, 2);
// the other register bits (rows 4, 8, 16) are immediates of 1024 bytes.
// CHECK-LABEL: func.func @rows_f32
// CHECK: %[[TID:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "mov.b32 $0, $1;", "=r,r"
// CHECK: %[[LANE:.*]] = llvm.and %[[TID]], %{{.*}} : i32
// CHECK: llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[C3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT: llvm.lshr %[[LANE]], %[[C3]] : i32
// CHECK: %[[C4:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: llvm.lshr %[[LANE]], %[[C4]] : i32
// CHECK-NEXT: llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: llvm.and
// CHECK-NEXT: %[[ROW2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: llvm.mul %{{.*}}, %[[ROW2]] : i32
// CHECK: %[[COL16:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT: llvm.mul %{{.*}}, %[[COL16]] : i32
// CHECK: %[[COL32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT: llvm.mul %{{.*}}, %[[COL32]] : i32
// CHECK: %[[P:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: %[[R0:.*]] = llvm.extractvalue %{{.*}}[0]
// CHECK-NEXT: %[[W0:.*]] = llvm.bitcast %[[R0]] : f32 to i32
// CHECK: %[[R3:.*]] = llvm.extractvalue %{{.*}}[3]
// CHECK-NEXT: %[[W3:.*]] = llvm.bitcast %[[R3]] : f32 to i32
// CHECK-NEXT: nvvm.stmatrix %[[P]], %[[W0]], %{{.*}}, %{{.*}}, %[[W3]] {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK: %[[P1:.*]] = llvm.getelementptr %[[P]][1024] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: nvvm.stmatrix %[[P1]]
// CHECK-COUNT-6: nvvm.stmatrix
// The load: the same addresses, words 0-3 of instruction s into registers
// 4s .. 4s + 3.
// CHECK: %[[Q:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: %[[M0:.*]] = nvvm.ldmatrix %[[Q]] {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: %[[X3:.*]] = llvm.extractvalue %[[M0]][3] : !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NEXT: %[[F3:.*]] = llvm.bitcast %[[X3]] : i32 to f32
// CHECK-NEXT: llvm.insertvalue %[[F3]], %{{.*}}[3]
// CHECK-NEXT: %[[Q1:.*]] = llvm.getelementptr %[[Q]][1024] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: %[[M1:.*]] = nvvm.ldmatrix %[[Q1]]
// CHECK-NEXT: %[[X4:.*]] = llvm.extractvalue %[[M1]][0] : !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NEXT: %[[F4:.*]] = llvm.bitcast %[[X4]] : i32 to f32
// CHECK-NEXT: llvm.insertvalue %[[F4]], %{{.*}}[4]
// CHECK-COUNT-6: nvvm.ldmatrix
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @rows_f32(%v: !txl.smem<32x64xf32>, %t: tensor<32x64xf32, #rows>) -> tensor<32x64xf32, #rows> attributes {txl.kernel} {
    txl.smem_store %t, %v : tensor<32x64xf32, #rows>, !txl.smem<32x64xf32>
    %u = txl.smem_load %v : !txl.smem<32x64xf32> -> tensor<32x64xf32, #rows>
    return %u : tensor<32x64xf32, #rows>
  }
}

// -----

#acc = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>

// The attention / GEMM epilogue: a 64 x 64 bf16 tile in the wgmma
// accumulator layout into a 128-byte swizzled view. Register bit 0 (the
// next column, 2 bytes) packs two registers into a word (low half first);
// lane bits 0-1 step 4 and 8 bytes, lane bits 2-4 pick rows, register bits 1-2
// (row 8, column 8) the matrix: 4 x4 for 32 registers. Under the swizzle the
// instructions' offsets (columns 16, 32: bytes 32, 64) do not add to the
// first one's, but they XOR into it (the byte offset is linear over GF(2)):
// one xor per instruction.
// CHECK-LABEL: func.func @acc_bf16_sw128
// CHECK: %[[Z:.*]] = llvm.mlir.zero : !llvm.ptr<3>
// CHECK: %[[ZP:.*]] = llvm.getelementptr %[[Z]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: %[[OFF:.*]] = llvm.ptrtoint %[[ZP]] : !llvm.ptr<3> to i32
// CHECK-NEXT: llvm.mlir.undef : vector<2xbf16>
// CHECK-NEXT: %[[A0:.*]] = llvm.extractvalue %{{.*}}[0]
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[V0:.*]] = llvm.insertelement %[[A0]]
// CHECK-NEXT: %[[A1:.*]] = llvm.extractvalue %{{.*}}[1]
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK-NEXT: %[[V1:.*]] = llvm.insertelement %[[A1]], %[[V0]]
// CHECK-NEXT: %[[W0:.*]] = llvm.bitcast %[[V1]] : vector<2xbf16> to i32
// CHECK: %[[P:.*]] = llvm.getelementptr %{{.*}}[%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: nvvm.stmatrix %[[P]], %[[W0]], %{{.*}}, %{{.*}}, %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK: %[[C32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT: %[[X1:.*]] = llvm.xor %[[OFF]], %[[C32]] : i32
// CHECK-NEXT: %[[P1:.*]] = llvm.getelementptr %{{.*}}[%[[X1]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: nvvm.stmatrix %[[P1]]
// CHECK-COUNT-2: nvvm.stmatrix
// CHECK-COUNT-4: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @acc_bf16_sw128(%v: !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, %t: tensor<64x64xbf16, #acc>) -> tensor<64x64xbf16, #acc> attributes {txl.kernel} {
    txl.smem_store %t, %v : tensor<64x64xbf16, #acc>, !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
    %u = txl.smem_load %v : !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>> -> tensor<64x64xbf16, #acc>
    return %u : tensor<64x64xbf16, #acc>
  }
}

// -----

#acc = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>

// The same tile in a transposed (MN-major) view: a register pair's two
// columns are two stored rows, and lane bits 2-4 step 2, 4 and 8 bytes
// along one: .trans, which gives lane l the b16 at bytes 2 * (l / 4) of rows
// 2 * (l % 4) and + 1.
// CHECK-LABEL: func.func @acc_bf16_transposed
// CHECK-COUNT-4: nvvm.stmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-COUNT-4: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @acc_bf16_transposed(%v: !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>, %t: tensor<64x64xbf16, #acc>) -> tensor<64x64xbf16, #acc> attributes {txl.kernel} {
    txl.smem_store %t, %v : tensor<64x64xbf16, #acc>, !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>
    %u = txl.smem_load %v : !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>> -> tensor<64x64xbf16, #acc>
    return %u : tensor<64x64xbf16, #acc>
  }
}

// -----

#rows = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>

// Two words per thread: one .x2.
// CHECK-LABEL: func.func @rows_x2
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 2 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @rows_x2(%v: !txl.smem<2x128xf32>) -> tensor<2x128xf32, #rows> attributes {txl.kernel} {
    %u = txl.smem_load %v : !txl.smem<2x128xf32> -> tensor<2x128xf32, #rows>
    return %u : tensor<2x128xf32, #rows>
  }
}

// -----

#acc = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>

// An f32 accumulator: a register pair is 8 bytes and lane bits 0-1 step 8
// and 16, not 4 and 8: no matrix fits; 8-byte vector stores as before.
// CHECK-LABEL: func.func @acc_f32
// CHECK-COUNT-16: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @acc_f32(%v: !txl.smem<64x64xf32>, %t: tensor<64x64xf32, #acc>) attributes {txl.kernel} {
    txl.smem_store %t, %v : tensor<64x64xf32, #acc>, !txl.smem<64x64xf32>
    return
  }
}

// -----

#rows = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>

// Tutorial 03's tile again, but from a subslice (its rows may not start on
// 16 bytes) and into another CTA's copy (ldmatrix / stmatrix address the
// CTA's own shared memory only): one access per register.
// CHECK-LABEL: func.func @rows_subslice_remote
// CHECK-COUNT-32: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.mapa
// CHECK-COUNT-32: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<7>
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @rows_subslice_remote(%v: !txl.smem<32x128xf32>, %w: !txl.smem<32x64xf32>) -> tensor<32x64xf32, #rows> attributes {txl.kernel, txl.num_ctas = 2 : i32} {
    %s = txl.smem_subslice %v [0, 4] : !txl.smem<32x128xf32> -> !txl.smem<32x64xf32>
    %u = txl.smem_load %s : !txl.smem<32x64xf32> -> tensor<32x64xf32, #rows>
    txl.smem_store %u, %w {ctaId = 1 : i32} : tensor<32x64xf32, #rows>, !txl.smem<32x64xf32>
    return %u : tensor<32x64xf32, #rows>
  }
}
