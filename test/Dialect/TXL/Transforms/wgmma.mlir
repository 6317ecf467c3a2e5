// RUN: txl-opt %s -txl-wgmma -split-input-file -verify-diagnostics | FileCheck %s --implicit-check-not='{{txl\.dot[^_]}}' --implicit-check-not=txl.dot_wait

// Error cases are checked by -verify-diagnostics in the same run (their
// chunks print nothing); the other chunks are checked by FileCheck. Tiles
// are written in the layouts --txl-assign-layouts gives them.

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
#nv128 = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]>

// SS dot M=128 N=128 K=64 bf16: 2 rows of 64 x 4 k16 steps = 8 wgmmas
// between one fence and one commit group. Both operands are K-major with a
// 128-byte swizzle: descriptor = (addr >> 4) | LBO 16 | SBO 1024 | mode 1;
// a K step advances 32 bytes (+2), the second 64-row block of A 8192 (+512).
// Async: no wait.
// CHECK-LABEL: func.func @ss_dot
// CHECK: %[[B:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.smem<64x128xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>> to !llvm.ptr<3>
// CHECK: %[[A:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>> to !llvm.ptr<3>
// CHECK: llvm.ptrtoint %[[B]] : !llvm.ptr<3> to i64
// CHECK: %[[BF:.*]] = llvm.mlir.constant(4611686293305360384 : i64) : i64
// CHECK: %[[DB:.*]] = llvm.or %{{.*}}, %[[BF]] : i64
// CHECK: llvm.ptrtoint %[[A]] : !llvm.ptr<3> to i64
// CHECK: %[[AF:.*]] = llvm.mlir.constant(4611686293305360384 : i64) : i64
// CHECK: %[[DA:.*]] = llvm.or %{{.*}}, %[[AF]] : i64
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async %[[DA]], %[[DB]], %{{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: llvm.mlir.constant(2 : i64) : i64
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.mma_async
// CHECK: %[[M1:.*]] = llvm.mlir.constant(512 : i64) : i64
// CHECK-NEXT: %[[DA1:.*]] = llvm.add %[[DA]], %[[M1]] : i64
// CHECK-NEXT: nvvm.wgmma.mma_async %[[DA1]], %[[DB]], %{{.*}}, <m = 64, n = 128, k = 16>
// CHECK-COUNT-3: nvvm.wgmma.mma_async %{{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: wait_group
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @ss_dot(%a: !txl.smem<128x64xbf16, #sw128>, %b: !txl.smem<64x128xbf16, #sw128T>, %acc: tensor<128x128xf32, #nv128>) -> tensor<128x128xf32, #nv128> attributes {txl.kernel} {
    %d = txl.dot %a, %b, %acc {async} : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x128xbf16, #sw128T>, tensor<128x128xf32, #nv128>
    return %d : tensor<128x128xf32, #nv128>
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
#nv64 = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>

// A dot without {async} waits for its own group: wgmma.wait_group 0 as
// inline asm with the 32 accumulator registers tied through it, and the
// result is rebuilt from the wait's outputs.
// CHECK-LABEL: func.func @sync_dot_waits
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: %[[W:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 0;", "{{(=f,){32}0}},1,2,{{.*}},31"
// CHECK: llvm.extractvalue %[[W]][0]
// CHECK: llvm.extractvalue %[[W]][31]
// CHECK: %[[R:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<({{.*}})> to tensor<64x64xf32, #txl.nvmma<{{.*}}>>
// CHECK: return %[[R]]
module attributes {txl.target = "sm_90a"} {
  func.func @sync_dot_waits(%a: !txl.smem<64x64xbf16, #sw128>, %b: !txl.smem<64x64xbf16, #sw128T>, %acc: tensor<64x64xf32, #nv64>) -> tensor<64x64xf32, #nv64> attributes {txl.kernel} {
    %d = txl.dot %a, %b, %acc : !txl.smem<64x64xbf16, #sw128>, !txl.smem<64x64xbf16, #sw128T>, tensor<64x64xf32, #nv64>
    return %d : tensor<64x64xf32, #nv64>
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#nv128 = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]>
#opA = #txl.dot_operand<opIdx = 0, parent = #nv128, kWidth = 2>

// RS dot (P * V): A from registers in the wgmma operand layout, B an
// MN-major (not transposed) 32x128 tile. Inline asm per k16 step: 64 f32
// outputs, A as four 32-bit registers (pairs of bf16), the B descriptor
// (LBO = 32 rows x 128 B = 4096, +2048 bytes per K step), the 64 tied
// accumulators; scale-d an immediate 1; trans-b = 1. The packed A registers
// are tied through an empty asm before wgmma.fence, so LLVM cannot sink
// their definitions between the fence and the wgmma (ptxas would serialize
// the wgmma pipeline, C7513).
// CHECK-LABEL: func.func @rs_dot
// CHECK: %[[BF:.*]] = llvm.mlir.constant(4611686293322072064 : i64) : i64
// CHECK: %[[DB:.*]] = llvm.or %{{.*}}, %[[BF]] : i64
// CHECK: %[[A0:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: %[[TIE:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "", "=r,=r,=r,=r,=r,=r,=r,=r,0,1,2,3,4,5,6,7" %[[A0]],
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {$0,$1,{{.*}},$63}, {$64,$65,$66,$67}, $68, p, 1, 1, 1;\0A}\0A", "{{(=f,){64}r}},r,r,r,l,0,1,{{.*}},63" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[DB]], {{.*}} :
// CHECK: %[[KOFF:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK-NEXT: %[[DB1:.*]] = llvm.add %[[DB]], %[[KOFF]] : i64
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{{.*}}wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}", "{{.*}}" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[DB1]],
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: "wgmma.wait_group.sync.aligned 0;"
module attributes {txl.target = "sm_90a"} {
  func.func @rs_dot(%a: tensor<64x32xbf16, #opA>, %b: !txl.smem<32x128xbf16, #sw128>, %acc: tensor<64x128xf32, #nv128>) -> tensor<64x128xf32, #nv128> attributes {txl.kernel} {
    %d = txl.dot %a, %b, %acc : tensor<64x32xbf16, #opA>, !txl.smem<32x128xbf16, #sw128>, tensor<64x128xf32, #nv128>
    return %d : tensor<64x128xf32, #nv128>
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
#nv64 = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>

// A run-time use_acc: the first k16 step is inline asm whose scale-d is
// the zero-extended flag (setp.ne.b32), the other steps accumulate (upstream
// op). SS asm: A and B descriptors, trans-a = trans-b = 0 (both K-major).
// CHECK-LABEL: func.func @use_acc
// CHECK-SAME: %[[P:[^ ]*]]: i1)
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[S:.*]] = llvm.zext %[[P]] : i1 to i32
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, $66, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0,{{.*}},$31}, $32, $33, p, 1, 1, 0, 0;\0A}\0A", "{{(=f,){32}l}},l,0,{{.*}},31,r" {{.*}}, %[[S]] :
// CHECK-COUNT-3: nvvm.wgmma.mma_async
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
module attributes {txl.target = "sm_90a"} {
  func.func @use_acc(%a: !txl.smem<64x64xbf16, #sw128>, %b: !txl.smem<64x64xbf16, #sw128T>, %acc: tensor<64x64xf32, #nv64>, %p: i1) -> tensor<64x64xf32, #nv64> attributes {txl.kernel} {
    %d = txl.dot %a, %b, %acc use_acc %p {async} : !txl.smem<64x64xbf16, #sw128>, !txl.smem<64x64xbf16, #sw128T>, tensor<64x64xf32, #nv64>
    return %d : tensor<64x64xf32, #nv64>
  }
}

// -----

#sw32 = #txl.nvmma_shared<swizzle = 32>
#sw32T = #txl.nvmma_shared<swizzle = 32, transposed = true>
#nv16 = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 16, 16]>

// `txl.dot_wait 1` written alone after two async dots (TXL style) carries
// both pending accumulators (8 registers each): one wait_group 1 with 16
// tied operands, and the later use reads the wait's results, not the dots'.
// CHECK-LABEL: func.func @dot_wait_carries_pending
// CHECK: %[[D1:.*]] = nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: %[[D2:.*]] = nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: %[[W:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 1;", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15" {{(%[0-9]+, ){15}%}}{{[0-9]+}} : ({{(f32, ){15}f32}}) -> !llvm.struct<({{(f32, ){15}f32}})>
// CHECK: llvm.extractvalue %[[W]][0]
// CHECK: llvm.extractvalue %[[W]][8]
// CHECK: %[[T1:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<({{(f32, ){7}f32}})> to tensor<64x16xf32, #txl.nvmma<{{.*}}>>
// CHECK: %[[T2:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<({{(f32, ){7}f32}})> to tensor<64x16xf32, #txl.nvmma<{{.*}}>>
// CHECK: %[[SUM:.*]] = arith.addf %[[T1]], %[[T2]] : tensor<64x16xf32, #txl.nvmma<{{.*}}>>
// CHECK: return %[[SUM]]
module attributes {txl.target = "sm_90a"} {
  func.func @dot_wait_carries_pending(%a: !txl.smem<64x16xbf16, #sw32>, %b: !txl.smem<16x16xbf16, #sw32T>, %acc: tensor<64x16xf32, #nv16>) -> tensor<64x16xf32, #nv16> attributes {txl.kernel} {
    %d1 = txl.dot %a, %b, %acc {async} : !txl.smem<64x16xbf16, #sw32>, !txl.smem<16x16xbf16, #sw32T>, tensor<64x16xf32, #nv16>
    %d2 = txl.dot %a, %b, %acc {async} : !txl.smem<64x16xbf16, #sw32>, !txl.smem<16x16xbf16, #sw32T>, tensor<64x16xf32, #nv16>
    txl.dot_wait 1
    // d2 is still in flight after `dot_wait 1`: it is read after the next wait.
    txl.dot_wait 0
    %s = arith.addf %d1, %d2 : tensor<64x16xf32, #nv16>
    return %s : tensor<64x16xf32, #nv16>
  }
}

// -----

// A dot_wait with nothing to carry is the upstream wait op.
// CHECK-LABEL: func.func @bare_dot_wait
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: return
module attributes {txl.target = "sm_90a"} {
  func.func @bare_dot_wait() attributes {txl.kernel} {
    txl.dot_wait 0
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
#nv64 = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>

// An f16 accumulator is valid wgmma but not supported by this lowering.
module attributes {txl.target = "sm_90a"} {
  func.func @f16_accumulator(%a: !txl.smem<64x64xf16, #sw128>, %b: !txl.smem<64x64xf16, #sw128T>, %acc: tensor<64x64xf16, #nv64>) attributes {txl.kernel} {
    // expected-error @+2 {{failed to legalize operation 'txl.dot'}}
    // expected-error @+1 {{the wgmma lowering supports f32 accumulators only (got 'f16')}}
    %d = txl.dot %a, %b, %acc : !txl.smem<64x64xf16, #sw128>, !txl.smem<64x64xf16, #sw128T>, tensor<64x64xf16, #nv64>
    return
  }
}

// -----

#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
#nv64 = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>

// wgmma descriptors need a swizzled operand.
module attributes {txl.target = "sm_90a"} {
  func.func @unswizzled_operand(%a: !txl.smem<64x64xbf16>, %b: !txl.smem<64x64xbf16, #sw128T>, %acc: tensor<64x64xf32, #nv64>) attributes {txl.kernel} {
    // expected-error @+2 {{failed to legalize operation 'txl.dot'}}
    // expected-error @+1 {{A operand needs a swizzled shared layout (#txl.nvmma_shared<swizzle = 32|64|128>)}}
    %d = txl.dot %a, %b, %acc : !txl.smem<64x64xbf16>, !txl.smem<64x64xbf16, #sw128T>, tensor<64x64xf32, #nv64>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#nv128 = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]>
#opA = #txl.dot_operand<opIdx = 0, parent = #nv128, kWidth = 2>

// The wait that retires an RS wgmma also ties its A registers (8 bf16, "h"),
// after the 64 accumulators: they stay live until the wgmma stops reading
// them, so the next P is never allocated onto them.
// CHECK-LABEL: func.func @rs_wait_ties_a
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 0;", "{{(=f,){64}(=h,){7}=h}},0,
// CHECK-SAME: -> !llvm.struct<({{(f32, ){64}(bf16, ){7}bf16}})>
module attributes {txl.target = "sm_90a"} {
  func.func @rs_wait_ties_a(%a: tensor<64x16xbf16, #opA>, %b: !txl.smem<16x128xbf16, #sw128>, %acc: tensor<64x128xf32, #nv128>) -> tensor<64x128xf32, #nv128> attributes {txl.kernel} {
    %d = txl.dot %a, %b, %acc {async} : tensor<64x16xbf16, #opA>, !txl.smem<16x128xbf16, #sw128>, tensor<64x128xf32, #nv128>
    %w = txl.dot_wait 0, %d : tensor<64x128xf32, #nv128>
    return %w : tensor<64x128xf32, #nv128>
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#nv128 = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]>

// A zero accumulator is never loaded into registers: the first k step runs
// with scale-d = 0 on an undefined accumulator, the next ones accumulate.
// CHECK-LABEL: func.func @zero_acc
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: %[[U:.*]] = llvm.mlir.undef : !llvm.struct<({{(f32, ){63}f32}})>
// CHECK-NOT: llvm.extractvalue
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[U]], <m = 64, n = 128, k = 16>, D[<f32>, <zero>]
// CHECK: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK-NOT: nvvm.wgmma.mma_async
module attributes {txl.target = "sm_90a"} {
  func.func @zero_acc(%a: !txl.smem<64x64xbf16, #sw128>, %b: !txl.smem<64x128xbf16, #sw128>) -> tensor<64x128xf32, #nv128> attributes {txl.kernel} {
    %z = arith.constant dense<0.0> : tensor<64x128xf32, #nv128>
    %d = txl.dot %a, %b, %z : !txl.smem<64x64xbf16, #sw128>, !txl.smem<64x128xbf16, #sw128>, tensor<64x128xf32, #nv128>
    return %d : tensor<64x128xf32, #nv128>
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
#nv8w = #txl.nvmma<version = 3, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]>

// num_warps = 8: two warpgroups split M = 128, each runs the 4 k16 steps of
// its own 64-row block. A's descriptor starts (tid >> 7) & 1 blocks (512 in
// descriptor units, 8192 bytes) further; the accumulator holds one block.
// CHECK-LABEL: func.func @ss_dot_two_warpgroups
// CHECK: %[[A:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>> to !llvm.ptr<3>
// CHECK: llvm.ptrtoint %[[A]] : !llvm.ptr<3> to i64
// CHECK: %[[DA:.*]] = llvm.or %{{.*}}, %{{.*}} : i64
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[SH:.*]] = llvm.lshr %[[TID]], %{{.*}} : i32
// CHECK: %[[WG:.*]] = llvm.and %[[SH]], %{{.*}} : i32
// CHECK: %[[WG64:.*]] = llvm.zext %[[WG]] : i32 to i64
// CHECK: %[[BLK:.*]] = llvm.mlir.constant(512 : i64) : i64
// CHECK: %[[OFF:.*]] = llvm.mul %[[WG64]], %[[BLK]] : i64
// CHECK: %[[DAW:.*]] = llvm.add %[[DA]], %[[OFF]] : i64
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async %[[DAW]], %{{.*}}, <m = 64, n = 128, k = 16>
// CHECK-COUNT-3: nvvm.wgmma.mma_async %{{.*}}, <m = 64, n = 128, k = 16>
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @ss_dot_two_warpgroups(%a: !txl.smem<128x64xbf16, #sw128>, %b: !txl.smem<64x128xbf16, #sw128T>, %acc: tensor<128x128xf32, #nv8w>) -> tensor<128x128xf32, #nv8w> attributes {txl.kernel, txl.num_warps = 8 : i32, txl.role_warps = 8 : i32} {
    %d = txl.dot %a, %b, %acc {async} : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x128xbf16, #sw128T>, tensor<128x128xf32, #nv8w>
    return %d : tensor<128x128xf32, #nv8w>
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
#nv8w = #txl.nvmma<version = 3, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]>

// Two warpgroups cannot split a 64-row accumulator into whole wgmma blocks.
module attributes {txl.target = "sm_90a"} {
  func.func @two_warpgroups_m64(%a: !txl.smem<64x64xbf16, #sw128>, %b: !txl.smem<64x64xbf16, #sw128T>, %acc: tensor<64x64xf32, #nv8w>) -> tensor<64x64xf32, #nv8w> attributes {txl.kernel, txl.num_warps = 8 : i32, txl.role_warps = 8 : i32} {
    // expected-error @+2 {{failed to legalize operation 'txl.dot'}}
    // expected-error @+1 {{M = 64 on 2 warpgroups: each warpgroup computes whole 64-row wgmma blocks, so M must be a multiple of 128}}
    %d = txl.dot %a, %b, %acc {async} : !txl.smem<64x64xbf16, #sw128>, !txl.smem<64x64xbf16, #sw128T>, tensor<64x64xf32, #nv8w>
    return %d : tensor<64x64xf32, #nv8w>
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
#nv8w = #txl.nvmma<version = 3, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]>

// Two warpgroups that are roles of their own (no txl.role_warps) cannot
// split one dot between them.
module attributes {txl.target = "sm_90a"} {
  func.func @split_across_roles(%a: !txl.smem<128x64xbf16, #sw128>, %b: !txl.smem<64x128xbf16, #sw128T>, %acc: tensor<128x128xf32, #nv8w>) -> tensor<128x128xf32, #nv8w> attributes {txl.kernel, txl.num_warps = 8 : i32} {
    // expected-error @+2 {{failed to legalize operation 'txl.dot'}}
    // expected-error @+1 {{splits M over 2 warpgroups, but this kernel gives each warpgroup a role of its own (no txl.role_warps = 8; it uses txl.warpgroup_id, is_warpgroup or is_warp): use num_warps=4 per warpgroup there}}
    %d = txl.dot %a, %b, %acc {async} : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x128xbf16, #sw128T>, tensor<128x128xf32, #nv8w>
    return %d : tensor<128x128xf32, #nv8w>
  }
}

// -----

#sw64 = #txl.nvmma_shared<swizzle = 64>
#sw128 = #txl.nvmma_shared<swizzle = 128>
#nv = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 32]>

// wgmma reads 8-bit operands K-major only: an fp8 B stored N-contiguous
// (not transposed) is refused at the dot, before any IR is built, with what
// to do (Triton's fp8 GEMMs pass B^T).
module attributes {txl.target = "sm_90a"} {
  func.func @fp8_b_mn_major(%a: !txl.smem<64x64xf8E4M3FN, #sw64>, %b: !txl.smem<64x128xf8E4M3FN, #sw128>, %acc: tensor<64x128xf32, #nv>) -> tensor<64x128xf32, #nv> attributes {txl.kernel} {
    // expected-error @+2 {{failed to legalize operation 'txl.dot'}}
    // expected-error @+1 {{reads B ('f8E4M3FN') with its M/N dimension contiguous, but wgmma transposes only 16-bit operands}}
    %d = txl.dot %a, %b, %acc {async} : !txl.smem<64x64xf8E4M3FN, #sw64>, !txl.smem<64x128xf8E4M3FN, #sw128>, tensor<64x128xf32, #nv>
    return %d : tensor<64x128xf32, #nv>
  }
}

// -----

// mma.sync (#txl.nvmma version 2): M = 16 on 4 warps, one along M and 4
// along N (8 columns each). C = 16 x 64: each thread holds 2 column blocks
// (columns 0..7 and 32..39 of its warp's pattern) of 4 f32; K = 32 is two
// K steps: 2 x 2 = 4 nvvm.mma.sync m16n8k16 (bf16 in i32 pairs, f32
// accumulator), each reading 4 A and 2 B registers; no wgmma.
#mma2 = #txl.nvmma<version = 2, warpsPerCTA = [1, 4], instrShape = [16, 8, 16]>
#opA2 = #txl.dot_operand<opIdx = 0, parent = #mma2, kWidth = 2>
#opB2 = #txl.dot_operand<opIdx = 1, parent = #mma2, kWidth = 2>
// CHECK-LABEL: func.func @mma_sync_m16
// CHECK-COUNT-4: nvvm.mma.sync A[{{.*}}, {{.*}}, {{.*}}, {{.*}}] B[{{.*}}, {{.*}}] C[{{.*}}, {{.*}}, {{.*}}, {{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT: nvvm.mma.sync
// CHECK-NOT: wgmma
module attributes {txl.target = "sm_90a"} {
  func.func @mma_sync_m16(%a: tensor<16x32xbf16, #opA2>, %b: tensor<32x64xbf16, #opB2>, %acc: tensor<16x64xf32, #mma2>) -> tensor<16x64xf32, #mma2> attributes {txl.kernel} {
    %d = txl.dot %a, %b, %acc : tensor<16x32xbf16, #opA2>, tensor<32x64xbf16, #opB2>, tensor<16x64xf32, #mma2>
    return %d : tensor<16x64xf32, #mma2>
  }
}

// -----

// mma.sync takes its operands in its register layouts.
#mma2 = #txl.nvmma<version = 2, warpsPerCTA = [1, 4], instrShape = [16, 8, 16]>
#opA2 = #txl.dot_operand<opIdx = 0, parent = #mma2, kWidth = 2>
#bl = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {txl.target = "sm_90a"} {
  func.func @mma_sync_blocked_b(%a: tensor<16x32xbf16, #opA2>, %b: tensor<32x64xbf16, #bl>, %acc: tensor<16x64xf32, #mma2>) -> tensor<16x64xf32, #mma2> attributes {txl.kernel} {
    // expected-error @+2 {{failed to legalize operation 'txl.dot'}}
    // expected-error @+1 {{'txl.dot' op mma.sync reads A and B from registers in its operand layouts (#txl.dot_operand<opIdx = 0 / 1, parent = the accumulator's #txl.nvmma version 2, kWidth = 2>); run --txl-assign-layouts}}
    %d = txl.dot %a, %b, %acc : tensor<16x32xbf16, #opA2>, tensor<32x64xbf16, #bl>, tensor<16x64xf32, #mma2>
    return %d : tensor<16x64xf32, #mma2>
  }
}

// -----

// Regression test: fp8 register A operands were packed into f8 vectors, which
// are not LLVM types.
// They pack through i8 vectors.
// CHECK-LABEL: func.func @rs_fp8(
// CHECK: vector<4xi8>
#nv = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 32]>
#opA = #txl.dot_operand<opIdx = 0, parent = #nv, kWidth = 4>
module attributes {txl.target = "sm_90a"} {
  func.func @rs_fp8(%a: tensor<64x32xf8E4M3FN, #opA>, %b: !txl.smem<32x64xf8E4M3FN, #txl.nvmma_shared<swizzle = 32, transposed = true>>, %c: tensor<64x64xf32, #nv>) -> tensor<64x64xf32, #nv> attributes {txl.kernel} {
    %d = txl.dot %a, %b, %c : tensor<64x32xf8E4M3FN, #opA>, !txl.smem<32x64xf8E4M3FN, #txl.nvmma_shared<swizzle = 32, transposed = true>>, tensor<64x64xf32, #nv>
    return %d : tensor<64x64xf32, #nv>
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
#nv512 = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 256, 16]>

// One wgmma computes at most 256 columns (the dot op takes any N for mma.sync).
module attributes {txl.target = "sm_90a"} {
  func.func @n_512(%a: !txl.smem<64x64xbf16, #sw128>, %b: !txl.smem<64x512xbf16, #sw128T>, %acc: tensor<64x512xf32, #nv512>) attributes {txl.kernel} {
    // expected-error @+2 {{failed to legalize operation 'txl.dot'}}
    // expected-error @+1 {{N = 512: one wgmma computes at most 256 columns}}
    %d = txl.dot %a, %b, %acc : !txl.smem<64x64xbf16, #sw128>, !txl.smem<64x512xbf16, #sw128T>, tensor<64x512xf32, #nv512>
    return
  }
}
