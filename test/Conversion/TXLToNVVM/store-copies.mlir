// RUN: txl-opt %s -convert-scf-to-cf -convert-txl-to-nvvm -reconcile-unrealized-casts | FileCheck %s --implicit-check-not=txl. --implicit-check-not=st.global
//
// convert-txl-to-nvvm writes each element of a txl.store once: where the
// layout holds an element in several lanes, warps or registers (a tile
// smaller than the threads), the holder whose copy bits are all clear
// (LinearLayout::getCopies) stores it, the others skip it, as Triton's
// redundant-data mask does. A copy that stored could overwrite a location a
// slower copy has still to load: the in-place update below, `store(p,
// f(load(p)))` on a 2 x 64 tile over 4 warps, applied f twice where a late
// warp loaded what an early one had stored (Liger-Kernel's qwen2vl_mrope).

// 2 x 64 with rows over 2 lanes and 4 warps: one warp covers the tile, warps
// 1 to 3 hold copies of warp 0's elements (thread index bits 5 and 6).
#rows = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// 2 elements on 4 registers of 128 threads: registers 2 and 3 copy 0 and 1,
// every lane and warp copies thread 0.
#b4 = #txl.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// 128 elements, one per thread: no copies, a plain store.
#b1 = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

module {
  // CHECK-LABEL: llvm.func @in_place_rows(
  func.func @in_place_rows(%p: tensor<2x64x!txl.ptr<f32>, #rows>, %m: tensor<2x64xi1, #rows>)
      attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %x = txl.load %p mask %m {txl.vector = 4 : i32} : tensor<2x64x!txl.ptr<f32>, #rows> -> tensor<2x64xf32, #rows>
    %y = arith.addf %x, %x : tensor<2x64xf32, #rows>
    // The warp bits that only copy (tid bits 5 and 6) must be clear.
    // CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
    // CHECK: %[[M:.*]] = llvm.mlir.constant(96 : i32) : i32
    // CHECK: %[[BITS:.*]] = llvm.and %[[TID]], %[[M]] : i32
    // CHECK: %[[OWNER:.*]] = llvm.icmp "eq" %[[BITS]], %{{.*}} : i32
    // CHECK: %[[PRED:.*]] = llvm.and %{{.*}}, %[[OWNER]] : i1
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$5 st.global.v4.b32 [$0], {$1, $2, $3, $4};", "l,r,r,r,r,b" {{.*}}, %[[PRED]]
    txl.store %p, %y mask %m {txl.vector = 4 : i32} : tensor<2x64x!txl.ptr<f32>, #rows>, tensor<2x64xf32, #rows>
    // CHECK: llvm.return
    return
  }

  // Registers 2 and 3 are skipped, and one thread of the 128 stores.
  // CHECK-LABEL: llvm.func @broadcast_pair(
  func.func @broadcast_pair(%p: tensor<2x!txl.ptr<f32>, #b4>, %v: tensor<2xf32, #b4>)
      attributes {txl.kernel, txl.num_warps = 4 : i32} {
    // CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
    // CHECK: %[[M:.*]] = llvm.mlir.constant(127 : i32) : i32
    // CHECK: %[[BITS:.*]] = llvm.and %[[TID]], %[[M]] : i32
    // CHECK: %[[OWNER:.*]] = llvm.icmp "eq" %[[BITS]], %{{.*}} : i32
    // CHECK-COUNT-2: llvm.inline_asm has_side_effects asm_dialect = att "@$2 st.global.b32 [$0], $1;", "l,r,b" %{{.*}}, %{{.*}}, %[[OWNER]]
    txl.store %p, %v : tensor<2x!txl.ptr<f32>, #b4>, tensor<2xf32, #b4>
    // CHECK: llvm.return
    return
  }

  // A scalar is held by every thread. In a kernel without thread identities
  // (Triton's model: scalars are uniform), thread 0 of the role stores it, as
  // Triton does; `store(p, load(p) + 1)` added twice where a late thread
  // loaded what an early one had stored.
  // CHECK-LABEL: llvm.func @scalar_in_place(
  func.func @scalar_in_place(%p: !txl.ptr<f32>) attributes {txl.kernel, txl.num_warps = 8 : i32, txl.role_warps = 8 : i32} {
    %x = txl.load %p : !txl.ptr<f32> -> f32
    %one = arith.constant 1.0 : f32
    %y = arith.addf %x, %one : f32
    // CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
    // CHECK: %[[N:.*]] = llvm.mlir.constant(256 : i32) : i32
    // CHECK: %[[R:.*]] = llvm.urem %[[TID]], %[[N]] : i32
    // CHECK: %[[LEAD:.*]] = llvm.icmp "eq" %[[R]], %{{.*}} : i32
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 st.global.b32 [$0], $1;", "l,r,b" %{{.*}}, %{{.*}}, %[[LEAD]]
    txl.store %p, %y : !txl.ptr<f32>, f32
    // CHECK: llvm.return
    return
  }

  // Where the author gives threads identities, a scalar may differ between
  // threads (here: each stores its own thread index): every thread stores.
  // CHECK-LABEL: llvm.func @scalar_per_thread(
  func.func @scalar_per_thread(%p: !txl.ptr<i32>) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %t = txl.tid
    %q = txl.addptr %p, %t : !txl.ptr<i32>, i32
    // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<1>
    txl.store %q, %t : !txl.ptr<i32>, i32
    // CHECK: llvm.return
    return
  }

  // CHECK-LABEL: llvm.func @no_copies(
  func.func @no_copies(%p: tensor<128x!txl.ptr<f32>, #b1>, %v: tensor<128xf32, #b1>)
      attributes {txl.kernel, txl.num_warps = 4 : i32} {
    // CHECK-NOT: nvvm.read.ptx.sreg.tid.x
    // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
    txl.store %p, %v : tensor<128x!txl.ptr<f32>, #b1>, tensor<128xf32, #b1>
    // CHECK: llvm.return
    return
  }
}
