// RUN: txl-opt %s --txl-allocate-scratch --txl-smem-allocs -convert-scf-to-cf -convert-txl-to-nvvm -reconcile-unrealized-casts | FileCheck %s --implicit-check-not=txl.
// RUN: txl-opt %s --txl-allocate-scratch --txl-smem-allocs -convert-scf-to-cf -convert-txl-to-nvvm -reconcile-unrealized-casts -canonicalize | FileCheck %s --check-prefix=RENAME
//
// convert-txl-to-nvvm, layout conversions and the tile ops around them:
// txl.relayout by warp shuffles and through shared memory (with the
// scratch --txl-allocate-scratch gives it, planned by --txl-smem-allocs),
// cross-warp txl.reduce, non-splat tile constants.

// CHECK: llvm.mlir.global private constant @txl_tile_constant_0(dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : tensor<16xi32>) {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<16 x i32>
#a = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#b = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [0, 1]>
#rows = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 16, 16]>
#bw = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]>
#w1 = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [0, 1]>
#w1t = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]>
#r8 = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]>
#c8 = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 8], order = [0, 1]>
#v4 = #txl.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#v2 = #txl.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#pairs = #txl.linear<register = [[0, 1]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>
#half = #txl.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = [[32], [64]]>
#pairsT = #txl.linear<register = [[1, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = [[0, 32], [0, 64]]>
module {
  // Lanes permuted within each warp (row-major -> column-major lanes): one
  // shfl.sync.idx per register, from lane (lane % 4) * 8 + lane / 4.
  // CHECK-LABEL: llvm.func @shuffle(
  // CHECK-SAME: txl.shared_bytes = 0 : i64}
  // CHECK-COUNT-2: nvvm.shfl.sync idx
  // CHECK-NOT: nvvm.shfl.sync
  // CHECK-NOT: nvvm.barrier
  // CHECK: llvm.return
  func.func @shuffle(%x: tensor<32x8xf32, #a>) -> tensor<32x8xf32, #b> attributes {txl.kernel} {
    %y = txl.relayout %x : tensor<32x8xf32, #a> -> tensor<32x8xf32, #b>
    return %y : tensor<32x8xf32, #b>
  }
  // Accumulator -> blocked rows through the scratch: barrier 1 + warpgroup
  // (WAR), 8-byte stores (the accumulator's column pairs), barrier, 16-byte
  // loads (4 columns per thread).
  // CHECK-LABEL: llvm.func @acc_to_rows(
  // CHECK-SAME: txl.shared_bytes = {{[1-9][0-9]*}} : i64}
  // CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @txl_smem : !llvm.ptr<3>
  // CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
  // CHECK: %[[C128:.*]] = llvm.mlir.constant(128 : i32)
  // CHECK: %[[WG:.*]] = llvm.udiv %[[TID]], %[[C128]]
  // CHECK: %[[C1:.*]] = llvm.mlir.constant(1 : i32)
  // CHECK: %[[ID:.*]] = llvm.add %[[WG]], %[[C1]]
  // CHECK: %[[N:.*]] = llvm.mlir.constant(128 : i32)
  // CHECK: nvvm.barrier id = %[[ID]] number_of_threads = %[[N]]
  // CHECK-COUNT-4: llvm.store {{.*}} {alignment = 8 : i64} : vector<2xi32>, !llvm.ptr<3>
  // CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
  // CHECK-COUNT-2: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
  // CHECK-NOT: llvm.load
  // CHECK: llvm.return
  func.func @acc_to_rows(%x: tensor<64x16xf32, #mma>) -> tensor<64x16xf32, #rows> attributes {txl.kernel} {
    %y = txl.relayout %x : tensor<64x16xf32, #mma> -> tensor<64x16xf32, #rows>
    return %y : tensor<64x16xf32, #rows>
  }
  // One-warp layouts sync with bar.warp.sync; i1 travels as bytes (16 per
  // store along a row, one per load down a column).
  // CHECK-LABEL: llvm.func @one_warp(
  // CHECK-SAME: txl.shared_bytes = {{[1-9][0-9]*}} : i64}
  // CHECK: nvvm.bar.warp.sync
  // CHECK-COUNT-2: llvm.store {{.*}} : vector<16xi8>, !llvm.ptr<3>
  // CHECK: nvvm.bar.warp.sync
  // CHECK-COUNT-32: llvm.load {{.*}} : !llvm.ptr<3> -> i8
  // CHECK: llvm.return
  func.func @one_warp(%x: tensor<32x32xi1, #w1>) -> tensor<32x32xi1, #w1t> attributes {txl.kernel} {
    %y = txl.relayout %x : tensor<32x32xi1, #w1> -> tensor<32x32xi1, #w1t>
    return %y : tensor<32x32xi1, #w1t>
  }
  // A layout over all 8 warps of the CTA: barrier 0.
  // CHECK-LABEL: llvm.func @whole_cta(
  // CHECK-SAME: txl.shared_bytes = {{[1-9][0-9]*}} : i64}
  // CHECK: nvvm.barrier0
  // CHECK: nvvm.barrier0
  // CHECK: llvm.return
  func.func @whole_cta(%x: tensor<64x64xf32, #r8>) -> tensor<64x64xf32, #c8> attributes {txl.kernel, txl.num_warps = 8 : i32} {
    %y = txl.relayout %x : tensor<64x64xf32, #r8> -> tensor<64x64xf32, #c8>
    return %y : tensor<64x64xf32, #c8>
  }
  // Row max over a 4x64 tile whose two column warps split the rows: 5
  // butterflies per row (2 rows per thread), then each warp's partial to the
  // scratch and both partials back, combined in order.
  // CHECK-LABEL: llvm.func @cross_warp(
  // CHECK-SAME: txl.shared_bytes = {{[1-9][0-9]*}} : i64}
  // CHECK-COUNT-10: nvvm.shfl.sync bfly
  // CHECK: nvvm.barrier id
  // CHECK-COUNT-2: llvm.store {{.*}} : i32, !llvm.ptr<3>
  // CHECK: nvvm.barrier id
  // CHECK: %[[P0:.*]] = llvm.load {{.*}} : !llvm.ptr<3> -> i32
  // CHECK: %[[F0:.*]] = llvm.bitcast %[[P0]] : i32 to f32
  // CHECK: %[[P1:.*]] = llvm.load {{.*}} : !llvm.ptr<3> -> i32
  // CHECK: %[[F1:.*]] = llvm.bitcast %[[P1]] : i32 to f32
  // CHECK: llvm.intr.maxnum(%[[F0]], %[[F1]])
  // CHECK-COUNT-2: llvm.load {{.*}} : !llvm.ptr<3> -> i32
  // CHECK: llvm.intr.maxnum
  // CHECK: llvm.return
  func.func @cross_warp(%x: tensor<4x64xf32, #bw>) -> tensor<4xf32, #txl.slice<dim = 1, parent = #bw>> attributes {txl.kernel} {
    %m = txl.reduce %x axis 1 : (tensor<4x64xf32, #bw>) -> tensor<4xf32, #txl.slice<dim = 1, parent = #bw>> {
    ^bb0(%a: f32, %b: f32):
      %v = arith.maxnumf %a, %b : f32
      txl.reduce_return %v : f32
    }
    return %m : tensor<4xf32, #txl.slice<dim = 1, parent = #bw>>
  }
  // Non-splat constants: a row vector broadcast over an accumulator depends
  // on the lane (columns), so its values come from a constant table; a tile
  // every thread holds whole is one constant per register.
  // CHECK-LABEL: llvm.func @constants(
  // CHECK-SAME: txl.shared_bytes = 0 : i64}
  // CHECK: %[[T:.*]] = llvm.mlir.addressof @txl_tile_constant_0 : !llvm.ptr<1>
  // CHECK-COUNT-4: llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> i32
  // CHECK-DAG: llvm.mlir.constant(1.000000e+00 : f32)
  // CHECK-DAG: llvm.mlir.constant(2.000000e+00 : f32)
  // CHECK-DAG: llvm.mlir.constant(3.000000e+00 : f32)
  // CHECK-DAG: llvm.mlir.constant(4.000000e+00 : f32)
  // CHECK: llvm.return
  func.func @constants() -> (tensor<64x16xi32, #mma>, tensor<4xf32, #v4>) attributes {txl.kernel} {
    %c = arith.constant dense<[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]> : tensor<1x16xi32, #mma>
    %cb = txl.broadcast %c : tensor<1x16xi32, #mma> -> tensor<64x16xi32, #mma>
    %d = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32, #v4>
    return %cb, %d : tensor<64x16xi32, #mma>, tensor<4xf32, #v4>
  }
  // The renaming ops move no data: a thread's two elements (2t, 2t+1) are
  // reshaped into a pair, split, joined back in swapped order and reshaped
  // to a row; the transpose of the pairs keeps the registers. Only the
  // struct fields move: register 0 of the result is register 1 of the
  // source and vice versa.
  // CHECK-LABEL: llvm.func @renames(
  // CHECK-SAME: txl.shared_bytes = 0 : i64}
  // CHECK-NOT: nvvm.shfl
  // CHECK-NOT: nvvm.barrier
  // CHECK: llvm.return
  // RENAME-LABEL: llvm.func @renames(
  // RENAME-SAME: %[[X:[^:]*]]: !llvm.struct<(f32, f32)>
  // RENAME-NEXT: %[[OUT:.*]] = llvm.mlir.poison : !llvm.struct<(struct
  // RENAME-NEXT: %[[P:.*]] = llvm.mlir.poison : !llvm.struct<(f32, f32)>
  // RENAME-NEXT: %[[R0:.*]] = llvm.extractvalue %[[X]][0]
  // RENAME-NEXT: %[[R1:.*]] = llvm.extractvalue %[[X]][1]
  // RENAME-NEXT: %[[Y0:.*]] = llvm.insertvalue %[[R1]], %[[P]][0]
  // RENAME-NEXT: %[[Y:.*]] = llvm.insertvalue %[[R0]], %[[Y0]][1]
  // RENAME-NEXT: %[[T0:.*]] = llvm.insertvalue %[[R0]], %[[P]][0]
  // RENAME-NEXT: %[[T:.*]] = llvm.insertvalue %[[R1]], %[[T0]][1]
  // RENAME-NEXT: %[[O0:.*]] = llvm.insertvalue %[[Y]], %[[OUT]][0]
  // RENAME-NEXT: %[[O:.*]] = llvm.insertvalue %[[T]], %[[O0]][1]
  // RENAME-NEXT: llvm.return %[[O]]
  func.func @renames(%x: tensor<256xf32, #v2>) -> (tensor<256xf32, #v2>, tensor<2x128xf32, #pairsT>) attributes {txl.kernel} {
    %p = txl.reshape %x : tensor<256xf32, #v2> -> tensor<128x2xf32, #pairs>
    %a, %b = txl.split %p : tensor<128x2xf32, #pairs> -> tensor<128xf32, #half>
    %j = txl.join %b, %a : tensor<128xf32, #half> -> tensor<128x2xf32, #pairs>
    %y = txl.reshape %j : tensor<128x2xf32, #pairs> -> tensor<256xf32, #v2>
    %t = txl.trans %p, [1, 0] : tensor<128x2xf32, #pairs> -> tensor<2x128xf32, #pairsT>
    return %y, %t : tensor<256xf32, #v2>, tensor<2x128xf32, #pairsT>
  }
}
