// REQUIRES: ptxas
// RUN: rm -rf %t && split-file --no-leading-lines %s %t && cd %t
// RUN: txlc wide.mlir -o wide.ptx
// RUN: FileCheck %s < wide.json
// RUN: FileCheck %s --check-prefix=PTX < wide.ptx
// RUN: %ptxas -arch=sm_90a wide.ptx -o wide.cubin
// RUN: txlc half.mlir -o half.ptx
// RUN: FileCheck %s --check-prefix=HALF < half.ptx
// RUN: %ptxas -arch=sm_90a half.ptx -o half.cubin
// RUN: not txlc plain.mlir -o plain.ptx 2>&1 | FileCheck %s --check-prefix=PLAIN
// RUN: not test -e plain.ptx

// A TMA tile wider than 256 in its inner dimension (MLA's 64 x 512 latent
// rows): with a 128-byte swizzle it moves as 8 boxes of 64 columns, so the
// host encodes a [64, 64] box and each load or store is 8 bulk copies.
// CHECK: "block_shape": [64, 64]
// CHECK-SAME: "swizzle": 128
// PTX-COUNT-8: cp.async.bulk.tensor.2d.shared::cluster.global
// PTX-COUNT-8: cp.async.bulk.tensor.2d.global.shared::cta

// A buffer narrower than the block by whole boxes (TXL's NSA prefill stores
// each 64 x 256 half of its output through the 64 x 512 descriptor, one per
// warpgroup): each store moves its 4 boxes, the second at column 256 + 64 k.
// HALF-COUNT-4: cp.async.bulk.tensor.2d.global.shared::cta
// HALF: cp.async.bulk.commit_group
// HALF-COUNT-4: cp.async.bulk.tensor.2d.global.shared::cta
// HALF: cp.async.bulk.commit_group
// HALF-NOT: cp.async.bulk.tensor

// Without a swizzle (a buffer no wgmma reads, no encoding given) there is no
// split: refused, naming the parameter.
// PLAIN: plain.mlir:2:20: error: kernel 'plain' parameter 0 ('arg0') has type '!txl.tensordesc<64x512xbf16>', whose inner dimension needs a swizzled layout to move as TMA boxes of at most 256 elements

//--- wide.mlir
#sw = #txl.nvmma_shared<swizzle = 128>
module attributes {txl.target = "sm_90a"} {
  func.func @wide(%d: !txl.tensordesc<64x512xbf16, #sw>, %m: i32) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %ring = txl.smem_alloc : !txl.smem<64x512xbf16, stages = 1, #sw>
    %bars = txl.mbar_alloc count 1 : !txl.mbar<1>
    %c0 = arith.constant 0 : i32
    %buf = txl.get_buffer %ring[%c0] : !txl.smem<64x512xbf16, stages = 1, #sw>
    %bar = txl.get_buffer %bars[%c0] : !txl.mbar<1>
    txl.mbar_expect %bar, 65536
    txl.tma_load %d[%m, %c0], %buf, %bar : !txl.tensordesc<64x512xbf16, #sw>, !txl.smem<64x512xbf16, #sw>
    txl.mbar_wait %bar, %c0 : i32
    txl.tma_store %buf, %d[%m, %c0] : !txl.smem<64x512xbf16, #sw>, !txl.tensordesc<64x512xbf16, #sw>
    txl.tma_store_wait 0
    return
  }
}

//--- half.mlir
#sw = #txl.nvmma_shared<swizzle = 128>
module attributes {txl.target = "sm_90a"} {
  func.func @half(%d: !txl.tensordesc<64x512xbf16, #sw>, %m: i32) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %ring = txl.smem_alloc : !txl.smem<64x512xbf16, stages = 1, #sw>
    %c0 = arith.constant 0 : i32
    %c256 = arith.constant 256 : i32
    %buf = txl.get_buffer %ring[%c0] : !txl.smem<64x512xbf16, stages = 1, #sw>
    %lo = txl.smem_subslice %buf [0, 0] : !txl.smem<64x512xbf16, #sw> -> !txl.smem<64x256xbf16, #sw>
    %hi = txl.smem_subslice %buf [0, 256] : !txl.smem<64x512xbf16, #sw> -> !txl.smem<64x256xbf16, #sw>
    txl.tma_store %lo, %d[%m, %c0] : !txl.smem<64x256xbf16, #sw>, !txl.tensordesc<64x512xbf16, #sw>
    txl.tma_store %hi, %d[%m, %c256] : !txl.smem<64x256xbf16, #sw>, !txl.tensordesc<64x512xbf16, #sw>
    txl.tma_store_wait 0
    return
  }
}

//--- plain.mlir
module attributes {txl.target = "sm_90a"} {
  func.func @plain(%d: !txl.tensordesc<64x512xbf16>, %m: i32) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %ring = txl.smem_alloc : !txl.smem<64x512xbf16, stages = 1>
    %bars = txl.mbar_alloc count 1 : !txl.mbar<1>
    %c0 = arith.constant 0 : i32
    %buf = txl.get_buffer %ring[%c0] : !txl.smem<64x512xbf16, stages = 1>
    %bar = txl.get_buffer %bars[%c0] : !txl.mbar<1>
    txl.mbar_expect %bar, 65536
    txl.tma_load %d[%m, %c0], %buf, %bar : !txl.tensordesc<64x512xbf16>, !txl.smem<64x512xbf16>
    txl.mbar_wait %bar, %c0 : i32
    txl.tma_store %buf, %d[%m, %c0] : !txl.smem<64x512xbf16>, !txl.tensordesc<64x512xbf16>
    txl.tma_store_wait 0
    return
  }
}
