// RUN: txl-opt %s -convert-scf-to-cf -convert-txl-to-nvvm -reconcile-unrealized-casts | FileCheck %s --implicit-check-not=txl. --implicit-check-not=ld.global.b32 --implicit-check-not=st.global.b32
//
// How convert-txl-to-nvvm lowers a load/store that txl-vectorize-accesses gave
// `txl.vector = N` (a proof it does not redo): each run of N registers of a
// thread is one access. Unmasked: an llvm vector load/store with N-element
// alignment. Masked (one predicate per run) or with a cache hint: inline PTX
// `@p ld.global.v4.b32` whose outputs start as `other`, and `@p
// st.global.v4.b32`. No scalar access is left (implicit-check-not).

#b4 = #txl.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b1 = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b8 = #txl.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

module {
  // CHECK-LABEL: llvm.func @vector_copy(
  func.func @vector_copy(%src: !txl.ptr<f32>, %dst: !txl.ptr<f32>, %n: i32) attributes {txl.kernel} {
    %offs = txl.make_range 0, 512 : tensor<512xi32, #b4>
    %nt = txl.splat %n : i32 -> tensor<512xi32, #b4>
    %mask = arith.cmpi slt, %offs, %nt : tensor<512xi32, #b4>
    %sp = txl.splat %src : !txl.ptr<f32> -> tensor<512x!txl.ptr<f32>, #b4>
    %p = txl.addptr %sp, %offs : tensor<512x!txl.ptr<f32>, #b4>, tensor<512xi32, #b4>
    %zero = arith.constant dense<0.0> : tensor<512xf32, #b4>
    // Four f32 under one predicate, each output tied to its `other` word.
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$5 ld.global.v4.b32 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,l,b,0,1,2,3"
    // CHECK-NOT: ld.global
    %x = txl.load %p mask %mask other %zero {txl.vector = 4 : i32} : tensor<512x!txl.ptr<f32>, #b4> -> tensor<512xf32, #b4>
    // Unmasked: one 16-byte aligned vector load.
    // CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
    %y = txl.load %p {txl.vector = 4 : i32} : tensor<512x!txl.ptr<f32>, #b4> -> tensor<512xf32, #b4>
    %s = arith.addf %x, %y : tensor<512xf32, #b4>
    %dp = txl.splat %dst : !txl.ptr<f32> -> tensor<512x!txl.ptr<f32>, #b4>
    %q = txl.addptr %dp, %offs : tensor<512x!txl.ptr<f32>, #b4>, tensor<512xi32, #b4>
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$5 st.global.v4.b32 [$0], {$1, $2, $3, $4};", "l,r,r,r,r,b"
    txl.store %q, %s mask %mask {txl.vector = 4 : i32} : tensor<512x!txl.ptr<f32>, #b4>, tensor<512xf32, #b4>
    // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
    txl.store %q, %s {txl.vector = 4 : i32} : tensor<512x!txl.ptr<f32>, #b4>, tensor<512xf32, #b4>
    // CHECK: llvm.return
    return
  }

  // Eight bf16 (16 bytes) are packed two per b32 word.
  // CHECK-LABEL: llvm.func @vector_bf16(
  func.func @vector_bf16(%src: !txl.ptr<bf16>, %n: i32) attributes {txl.kernel} {
    %offs = txl.make_range 0, 1024 : tensor<1024xi32, #b8>
    %nt = txl.splat %n : i32 -> tensor<1024xi32, #b8>
    %mask = arith.cmpi slt, %offs, %nt : tensor<1024xi32, #b8>
    %sp = txl.splat %src : !txl.ptr<bf16> -> tensor<1024x!txl.ptr<bf16>, #b8>
    %p = txl.addptr %sp, %offs : tensor<1024x!txl.ptr<bf16>, #b8>, tensor<1024xi32, #b8>
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$5 ld.global.v4.b32 {$0, $1, $2, $3}, [$4];"
    %x = txl.load %p mask %mask {txl.vector = 8 : i32} : tensor<1024x!txl.ptr<bf16>, #b8> -> tensor<1024xbf16, #b8>
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$5 st.global.v4.b32 [$0], {$1, $2, $3, $4};"
    txl.store %p, %x mask %mask {txl.vector = 8 : i32} : tensor<1024x!txl.ptr<bf16>, #b8>, tensor<1024xbf16, #b8>
    // CHECK: llvm.return
    return
  }

  // A width the layout's register runs do not have is not used: with one
  // element per thread per 128-element block, a thread's 4 registers are 128
  // elements apart, so `txl.vector = 4` (hand-written; the pass would not set
  // it) still gives one access per element.
  // CHECK-LABEL: llvm.func @width_beyond_the_run(
  func.func @width_beyond_the_run(%src: !txl.ptr<f32>) attributes {txl.kernel} {
    %offs = txl.make_range 0, 512 : tensor<512xi32, #b1>
    %sp = txl.splat %src : !txl.ptr<f32> -> tensor<512x!txl.ptr<f32>, #b1>
    %p = txl.addptr %sp, %offs : tensor<512x!txl.ptr<f32>, #b1>, tensor<512xi32, #b1>
    // CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
    %x = txl.load %p {txl.vector = 4 : i32} : tensor<512x!txl.ptr<f32>, #b1> -> tensor<512xf32, #b1>
    // CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
    txl.store %p, %x {txl.vector = 4 : i32} : tensor<512x!txl.ptr<f32>, #b1>, tensor<512xf32, #b1>
    // CHECK: llvm.return
    return
  }
}
