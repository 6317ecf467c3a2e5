// RUN: txl-opt %s -txl-lower-smem-load-stores -split-input-file -verify-diagnostics | FileCheck %s --implicit-check-not=txl.smem_load --implicit-check-not=txl.smem_store --implicit-check-not=nvvm.ldmatrix --implicit-check-not=nvvm.stmatrix
// RUN: txl-opt %s -txl-lower-smem-load-stores -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=SWZ

// One ld/st.shared per run of registers that hold consecutive elements along
// the view's contiguous dimension (a vector of up to 16 bytes), else one per
// register. The swizzle part of the
// address (16-byte chunk ^= (address >> 7) & (S/16 - 1)) is the only place
// that uses llvm.shl (the thread coordinates use lshr/and/mul/xor), so the
// SWZ run counts llvm.shl to tell swizzled from unswizzled addressing.
// Error cases are checked by -verify-diagnostics (their chunks print nothing).

#bl = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// A 32x64 bf16 blocked tile (16 registers per thread, 8 consecutive columns
// each) from a row-major view: address = (row * 64 + col) * 2, no swizzle;
// two 16-byte loads. The thread's first address is computed once; the
// second run, 16 rows below for every thread, is 16 * 64 * 2 bytes past it.
// CHECK-LABEL: func.func @load_blocked_plain
// CHECK: %[[BASE:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.smem<32x64xbf16> to !llvm.ptr<3>
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[C64:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-NEXT: %[[ROWOFF:.*]] = llvm.mul %{{.*}}, %[[C64]] : i32
// CHECK-NEXT: %[[ELEM:.*]] = llvm.add %[[ROWOFF]], %{{.*}} : i32
// CHECK-NEXT: %[[C2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[OFF:.*]] = llvm.mul %[[ELEM]], %[[C2]] : i32
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %[[BASE]][%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: %[[UNDEF:.*]] = llvm.mlir.undef : !llvm.struct<(bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16)>
// CHECK-NEXT: %[[V:.*]] = llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xbf16>
// CHECK-NEXT: %[[I0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[E0:.*]] = llvm.extractelement %[[V]][%[[I0]] : i32] : vector<8xbf16>
// CHECK-NEXT: llvm.insertvalue %[[E0]], %[[UNDEF]][0]
// CHECK: %[[P2:.*]] = llvm.getelementptr %[[P]][2048] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: llvm.load %[[P2]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xbf16>
// CHECK-NOT: llvm.load
// CHECK: return
// SWZ-LABEL: func.func @load_blocked_plain
// SWZ-NOT: llvm.shl
// SWZ-NOT: llvm.udiv
// SWZ: return
module attributes {txl.target = "sm_90a"} {
  func.func @load_blocked_plain(%v: !txl.smem<32x64xbf16>) attributes {txl.kernel} {
    %t = txl.smem_load %v : !txl.smem<32x64xbf16> -> tensor<32x64xbf16, #bl>
    return
  }
}

// -----

#bl = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// The same tile stored into a 128-byte swizzled view: column block
// (col / 64) * 32 rows * 128 B + row * 128 B + (col % 64) * 2, then the
// 16-byte chunk XOR-ed with bits 7..9; two 16-byte stores (a thread's 8
// columns are one chunk), one swizzle each.
// CHECK-LABEL: func.func @store_blocked_sw128
// CHECK: %[[BASE:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.smem<32x64xbf16, #txl.nvmma_shared<swizzle = 128>> to !llvm.ptr<3>
// CHECK: %[[REGS:.*]] = builtin.unrealized_conversion_cast %{{.*}} : tensor<32x64xbf16, #txl.blocked<{{.*}}>> to !llvm.struct<(bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16)>
// CHECK: %[[PER:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-NEXT: %[[BLK:.*]] = llvm.udiv %[[COL:.*]], %[[PER]] : i32
// CHECK-NEXT: %[[PER2:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-NEXT: %[[WITHIN:.*]] = llvm.urem %[[COL]], %[[PER2]] : i32
// CHECK-NEXT: %[[BLKBYTES:.*]] = llvm.mlir.constant(4096 : i32) : i32
// CHECK-NEXT: %[[B:.*]] = llvm.mul %[[BLK]], %[[BLKBYTES]] : i32
// CHECK-NEXT: %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: %[[R:.*]] = llvm.mul %{{.*}}, %[[C128]] : i32
// CHECK-NEXT: %[[BR:.*]] = llvm.add %[[B]], %[[R]] : i32
// CHECK-NEXT: %[[C2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[W:.*]] = llvm.mul %[[WITHIN]], %[[C2]] : i32
// CHECK-NEXT: %[[LIN:.*]] = llvm.add %[[BR]], %[[W]] : i32
// CHECK-NEXT: %[[C7:.*]] = llvm.mlir.constant(7 : i32) : i32
// CHECK-NEXT: %[[HI:.*]] = llvm.lshr %[[LIN]], %[[C7]] : i32
// CHECK-NEXT: %[[MASK:.*]] = llvm.mlir.constant(7 : i32) : i32
// CHECK-NEXT: %[[SEL:.*]] = llvm.and %[[HI]], %[[MASK]] : i32
// CHECK-NEXT: %[[C4:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: %[[CHUNK:.*]] = llvm.shl %[[SEL]], %[[C4]] : i32
// CHECK-NEXT: %[[OFF:.*]] = llvm.xor %[[LIN]], %[[CHUNK]] : i32
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %[[BASE]][%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: %[[V:.*]] = llvm.extractvalue %[[REGS]][0]
// CHECK-COUNT-7: llvm.insertelement
// CHECK: %[[VEC:.*]] = llvm.insertelement %{{.*}}, %{{.*}}[%{{.*}} : i32] : vector<8xbf16>
// CHECK-NEXT: llvm.store %[[VEC]], %[[P]] {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK-COUNT-1: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: return
// The second store, 16 rows below (the same row within the 8-row swizzle
// group), is 2048 bytes past the first: one swizzle computation in all.
// SWZ-LABEL: func.func @store_blocked_sw128
// SWZ-COUNT-1: llvm.shl
// SWZ-NOT: llvm.shl
// SWZ: return
module attributes {txl.target = "sm_90a"} {
  func.func @store_blocked_sw128(%v: !txl.smem<32x64xbf16, #txl.nvmma_shared<swizzle = 128>>, %t: tensor<32x64xbf16, #bl>) attributes {txl.kernel} {
    txl.smem_store %t, %v : tensor<32x64xbf16, #bl>, !txl.smem<32x64xbf16, #txl.nvmma_shared<swizzle = 128>>
    return
  }
}

// -----

#nv = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>

// A 64x64 tile in the wgmma accumulator layout holds 32 registers per
// thread, in pairs of adjacent columns; from a row-major view: 16 words, read
// by 4 ldmatrix.x4 (lower-smem-matrices.mlir has the details), no swizzle.
// CHECK-LABEL: func.func @load_nvmma_plain
// CHECK: llvm.mlir.undef : !llvm.struct<(bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16)>
// CHECK-COUNT-4: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-NOT: llvm.load
// CHECK: return
// SWZ-LABEL: func.func @load_nvmma_plain
// SWZ-NOT: llvm.shl
// SWZ-NOT: llvm.udiv
// SWZ: return
module attributes {txl.target = "sm_90a"} {
  func.func @load_nvmma_plain(%v: !txl.smem<64x64xbf16>) attributes {txl.kernel} {
    %t = txl.smem_load %v : !txl.smem<64x64xbf16> -> tensor<64x64xbf16, #nv>
    return
  }
}

// -----

#nv = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]>

// The GEMM epilogue: a 128x128 accumulator-layout tile (128 registers) into
// a 128-byte swizzled staging tile (two 64-column blocks of 128 rows): 64
// words (pairs of adjacent columns), 16 stmatrix.x4. The swizzle is computed
// once, for the first instruction; the others XOR a constant into its offset.
// CHECK-LABEL: func.func @store_nvmma_sw128
// CHECK: llvm.udiv %{{.*}}, %{{.*}} : i32
// CHECK: %[[BLKBYTES:.*]] = llvm.mlir.constant(16384 : i32) : i32
// CHECK: %[[C7:.*]] = llvm.mlir.constant(7 : i32) : i32
// CHECK-NEXT: llvm.lshr %{{.*}}, %[[C7]] : i32
// CHECK-COUNT-16: nvvm.stmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-NOT: llvm.store
// CHECK: return
// SWZ-LABEL: func.func @store_nvmma_sw128
// SWZ-COUNT-1: llvm.shl
// SWZ-NOT: llvm.shl
// SWZ: return
module attributes {txl.target = "sm_90a"} {
  func.func @store_nvmma_sw128(%v: !txl.smem<128x128xbf16, #txl.nvmma_shared<swizzle = 128>>, %t: tensor<128x128xbf16, #nv>) attributes {txl.kernel} {
    txl.smem_store %t, %v : tensor<128x128xbf16, #nv>, !txl.smem<128x128xbf16, #txl.nvmma_shared<swizzle = 128>>
    return
  }
}

// -----

#bl = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>

// A 64x64 f32 blocked tile (32 registers, runs of 4 columns) from a 64-byte
// swizzled view: 16 f32 per 64-byte block, blocks of 64 rows x 64 B, chunk
// mask 3; eight 16-byte loads.
// CHECK-LABEL: func.func @load_blocked_f32_sw64
// CHECK: %[[BLK:.*]] = llvm.udiv %[[COL:.*]], %{{.*}} : i32
// CHECK-NEXT: %[[PER:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT: llvm.urem %[[COL]], %[[PER]] : i32
// CHECK-NEXT: %[[BLKBYTES:.*]] = llvm.mlir.constant(4096 : i32) : i32
// CHECK-NEXT: llvm.mul %[[BLK]], %[[BLKBYTES]] : i32
// CHECK: %[[C7:.*]] = llvm.mlir.constant(7 : i32) : i32
// CHECK-NEXT: %[[HI:.*]] = llvm.lshr %{{.*}}, %[[C7]] : i32
// CHECK-NEXT: %[[MASK:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT: llvm.and %[[HI]], %[[MASK]] : i32
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT: llvm.load
// CHECK: return
// The eight runs differ from the first by constants (their register bits
// move rows by multiples of 8, which keeps the swizzle phase): one swizzle.
// SWZ-LABEL: func.func @load_blocked_f32_sw64
// SWZ-COUNT-1: llvm.shl
// SWZ-NOT: llvm.shl
// SWZ: return
module attributes {txl.target = "sm_90a"} {
  func.func @load_blocked_f32_sw64(%v: !txl.smem<64x64xf32, #txl.nvmma_shared<swizzle = 64>>) attributes {txl.kernel} {
    %t = txl.smem_load %v : !txl.smem<64x64xf32, #txl.nvmma_shared<swizzle = 64>> -> tensor<64x64xf32, #bl>
    return
  }
}

// -----

#bl = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// A view cut at an arbitrary offset (smem_subslice) may not be 16-byte
// aligned: one access per register.
// CHECK-LABEL: func.func @store_subslice_scalar
// CHECK-COUNT-16: llvm.store %{{.*}}, %{{.*}} : bf16, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @store_subslice_scalar(%v: !txl.smem<32x128xbf16>, %t: tensor<32x64xbf16, #bl>) attributes {txl.kernel} {
    %s = txl.smem_subslice %v [0, 4] : !txl.smem<32x128xbf16> -> !txl.smem<32x64xbf16>
    txl.smem_store %t, %s : tensor<32x64xbf16, #bl>, !txl.smem<32x64xbf16>
    return
  }
}

// -----

#bl = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// The same through an scf.if that may yield the subslice: still scalar;
// the whole buffer alone would be two 16-byte loads.
// CHECK-LABEL: func.func @load_maybe_subslice
// CHECK-COUNT-16: llvm.load %{{.*}} : !llvm.ptr<3> -> bf16
// CHECK-NOT: llvm.load
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @load_maybe_subslice(%v: !txl.smem<32x128xbf16>, %w: !txl.smem<32x64xbf16>, %c: i1) attributes {txl.kernel} {
    %s = scf.if %c -> (!txl.smem<32x64xbf16>) {
      %cut = txl.smem_subslice %v [0, 4] : !txl.smem<32x128xbf16> -> !txl.smem<32x64xbf16>
      scf.yield %cut : !txl.smem<32x64xbf16>
    } else {
      scf.yield %w : !txl.smem<32x64xbf16>
    }
    %t = txl.smem_load %s : !txl.smem<32x64xbf16> -> tensor<32x64xbf16, #bl>
    return
  }
}

// -----

// A tile without a register layout cannot be distributed.
module attributes {txl.target = "sm_90a"} {
  func.func @no_layout(%v: !txl.smem<64x64xbf16>) attributes {txl.kernel} {
    // expected-error @+2 {{failed to legalize operation 'txl.smem_load'}}
    // expected-error @+1 {{cannot distribute 'tensor<64x64xbf16>': the tile has no register layout (run --txl-assign-layouts)}}
    %t = txl.smem_load %v : !txl.smem<64x64xbf16> -> tensor<64x64xbf16>
    return
  }
}

// -----

#bl = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// Another CTA's copy (ctaId, distributed shared memory): the view's base
// mapped into that CTA's window of the cluster (nvvm.mapa to a
// shared::cluster pointer), then the same 16-byte vector accesses.
// CHECK-LABEL: func.func @remote_cta
// CHECK: %[[R:.*]] = nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: llvm.getelementptr %[[R]]
// CHECK: llvm.load {{.*}} : !llvm.ptr<7> -> vector<8xbf16>
// CHECK: %[[W:.*]] = nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: llvm.store {{.*}} : vector<8xbf16>, !llvm.ptr<7>
module attributes {txl.target = "sm_90a"} {
  func.func @remote_cta(%v: !txl.smem<32x64xbf16>) attributes {txl.kernel, txl.num_ctas = 2 : i32} {
    %t = txl.smem_load %v {ctaId = 1 : i32} : !txl.smem<32x64xbf16> -> tensor<32x64xbf16, #bl>
    txl.smem_store %t, %v {ctaId = 0 : i32} : tensor<32x64xbf16, #bl>, !txl.smem<32x64xbf16>
    return
  }
}

// -----

// mma.sync operands read from a whole NVMMA-encoded view: ldmatrix. A
// (16 x 32, K contiguous) is one x4 per K step (2), read as is; B from a
// row-major [K, N] view (N contiguous) uses .trans: 32 x 64 on 4 warps along
// N is, per thread, 2 column blocks of one x4 (K = 32: four 8-row chunks).
#mma2 = #txl.nvmma<version = 2, warpsPerCTA = [1, 4], instrShape = [16, 8, 16]>
#opA2 = #txl.dot_operand<opIdx = 0, parent = #mma2, kWidth = 2>
#opB2 = #txl.dot_operand<opIdx = 1, parent = #mma2, kWidth = 2>
#sw64 = #txl.nvmma_shared<swizzle = 64>
#sw128 = #txl.nvmma_shared<swizzle = 128>
// CHECK-LABEL: func.func @mma_sync_operands
// CHECK-COUNT-2: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-COUNT-2: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NOT: nvvm.ldmatrix
// CHECK-NOT: llvm.load
func.func @mma_sync_operands(%a: !txl.smem<16x32xbf16, #sw64>, %b: !txl.smem<32x64xbf16, #sw128>) -> (tensor<16x32xbf16, #opA2>, tensor<32x64xbf16, #opB2>) attributes {txl.kernel, txl.num_warps = 4 : i32} {
  %ta = txl.smem_load %a : !txl.smem<16x32xbf16, #sw64> -> tensor<16x32xbf16, #opA2>
  %tb = txl.smem_load %b : !txl.smem<32x64xbf16, #sw128> -> tensor<32x64xbf16, #opB2>
  return %ta, %tb : tensor<16x32xbf16, #opA2>, tensor<32x64xbf16, #opB2>
}

// -----

#b1 = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// The fragment forms with a ctaId (TXL's cluster softmax exchanges row
// statistics so): the same mapa'd base, predicated.
// CHECK-LABEL: func.func @remote_fragments
// CHECK: nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: llvm.load {{.*}} : !llvm.ptr<7> -> f32
// CHECK: llvm.select
// CHECK: nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: scf.if
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<7>
module attributes {txl.target = "sm_90a"} {
  func.func @remote_fragments(%v: !txl.smem<128xf32>, %p: i1, %o: tensor<128xf32, #b1>) attributes {txl.kernel, txl.num_ctas = 4 : i32} {
    %t = txl.frag_smem_load %v other %o pred %p {ctaId = 3 : i32} : !txl.smem<128xf32> -> tensor<128xf32, #b1>
    txl.frag_smem_store %t, %v pred %p {ctaId = 2 : i32} : tensor<128xf32, #b1>, !txl.smem<128xf32>
    return
  }
}

// -----

#w4 = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// frag_smem_store with an mbarrier is st.async into CTA 1's copy of the
// view, completing its bytes on CTA 1's copy of the barrier. A 128-element
// tile on 128 threads holds each element once: one st.async per thread, no
// guard.
// CHECK-LABEL: func.func @st_async
// CHECK: nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NOT: scf.if
// CHECK: llvm.inline_asm has_side_effects {{.*}}"st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [$0], $1, [$2];", "r,r,r"
// CHECK-NOT: st.async
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @st_async(%v: !txl.smem<128xf32>, %bar: !txl.mbar, %t: tensor<128xf32, #w4>) attributes {txl.kernel, txl.num_ctas = 2 : i32} {
    txl.frag_smem_store %t, %v mbar %bar {ctaId = 1 : i32} : tensor<128xf32, #w4>, !txl.smem<128xf32>
    return
  }
}

// -----

#w4 = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// A 4-element tile on 4 warps of 32 lanes: element i lives in lane i of
// every warp (lanes 4..31 and warps 1..3 hold copies). The barrier must see
// each element's bytes once, so only lanes 0..3 of warp 0 store: the guard
// tests the copy bits of the lane and of the warp index.
// CHECK-LABEL: func.func @st_async_copies
// CHECK: llvm.and %{{.*}}, %{{.*}} : i32
// CHECK: llvm.icmp "eq"
// CHECK: scf.if
// CHECK: st.async.shared::cluster
// CHECK-NOT: st.async
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @st_async_copies(%v: !txl.smem<4xf32>, %bar: !txl.mbar, %t: tensor<4xf32, #w4>) attributes {txl.kernel, txl.num_ctas = 2 : i32} {
    txl.frag_smem_store %t, %v mbar %bar {ctaId = 0 : i32} : tensor<4xf32, #w4>, !txl.smem<4xf32>
    return
  }
}

// -----

#w4 = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module attributes {txl.target = "sm_90a"} {
  func.func @st_async_bytes(%v: !txl.smem<128xi8>, %bar: !txl.mbar, %t: tensor<128xi8, #w4>) attributes {txl.kernel, txl.num_ctas = 2 : i32} {
    // expected-error @+2 {{'txl.frag_smem_store' op with an mbarrier is st.async, which stores 32- or 64-bit elements; got 'i8'}}
    // expected-error @+1 {{failed to legalize operation 'txl.frag_smem_store'}}
    txl.frag_smem_store %t, %v mbar %bar {ctaId = 1 : i32} : tensor<128xi8, #w4>, !txl.smem<128xi8>
    return
  }
}

// -----

// TXL's NSA prefill: a 64 x 64 tile whose rows are equal along dimension 1
// (predStr = "slice:1") goes into a 64-element row: slicedDim = 1 keeps the
// row coordinate, even though both dimensions are 64; slicedDim = 0 the
// column coordinate.
#i2d = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-LABEL: func.func @sliced
// CHECK: scf.if
// CHECK: llvm.store {{.*}} : i8, !llvm.ptr<3>
module attributes {txl.target = "sm_90a"} {
  func.func @sliced(%v: !txl.smem<64xi8>, %p: i1, %t: tensor<64x64xi8, #i2d>) attributes {txl.kernel} {
    txl.frag_smem_store %t, %v pred %p {slicedDim = 1 : i32} : tensor<64x64xi8, #i2d>, !txl.smem<64xi8>
    txl.frag_smem_store %t, %v {slicedDim = 0 : i32} : tensor<64x64xi8, #i2d>, !txl.smem<64xi8>
    return
  }
}

// -----

// A K step inside a swizzle atom is read by wgmma only: its offset inside the
// atom is not in its type, so element-wise addressing would swizzle wrongly.
module attributes {txl.target = "sm_90a"} {
  func.func @inside_atom(%v: !txl.smem<128x32xf16, #txl.nvmma_shared<swizzle = 128>>) -> tensor<128x32xf16> attributes {txl.kernel} {
    // expected-error @+2 {{'txl.smem_load' op accesses '!txl.smem<128x32xf16, #txl.nvmma_shared<swizzle = 128>>' element by element, but it is a slice inside a swizzle span (a K step of a wider swizzled tile), which only wgmma reads; pass it to tl.dot, or slice whole swizzle column blocks}}
    // expected-error @+1 {{failed to legalize operation 'txl.smem_load'}}
    %t = txl.smem_load %v : !txl.smem<128x32xf16, #txl.nvmma_shared<swizzle = 128>> -> tensor<128x32xf16>
    return %t : tensor<128x32xf16>
  }
}
