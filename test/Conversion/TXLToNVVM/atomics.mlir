// RUN: txl-opt %s -convert-scf-to-cf -convert-txl-to-nvvm -reconcile-unrealized-casts | FileCheck %s --implicit-check-not=txl. --implicit-check-not=inline_asm
//
// convert-txl-to-nvvm: txl.atomic_rmw / txl.atomic_cas become one predicated
// PTX atom per element a thread updates (red when the result is unused and
// the ordering is relaxed or release), with the op's sem and scope. Float
// max/min are a signed max (min) for values with the sign bit clear and an
// unsigned min (max) for the others. Elements a layout holds in several
// threads are updated by one of them, which hands the old value to the others
// through the scratch; a scalar is updated by the first thread of its group.

// 128 elements, one per thread: no copies.
#b1 = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// On a 2-element tile: every thread holds both (lanes and warps copy).
#b4 = #txl.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

module {
  // CHECK-LABEL: llvm.func @tile(
  func.func @tile(%p: tensor<128x!txl.ptr<f32>, #b1>, %v: tensor<128xf32, #b1>, %m: tensor<128xi1, #b1>,
                  %q: tensor<128x!txl.ptr<i32>, #b1>, %w: tensor<128xi32, #b1>,
                  %out: tensor<128x!txl.ptr<f32>, #b1>)
      attributes {txl.kernel, txl.num_warps = 4 : i32} {
    // Result used, masked: the old value starts as 0 (kept where masked off).
    // CHECK: %[[BITS:.*]] = llvm.bitcast %{{.*}} : f32 to i32
    // CHECK: %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
    // CHECK: %[[OLD:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "@$3 atom.acq_rel.gpu.global.add.f32 $0, [$1], $2;", "=r,l,r,b,0" %{{.*}}, %[[BITS]], %{{.*}}, %[[Z]] : (!llvm.ptr<1>, i32, i1, i32) -> i32
    // CHECK: llvm.bitcast %[[OLD]] : i32 to f32
    %a = txl.atomic_rmw add acq_rel gpu %p, %v mask %m : tensor<128x!txl.ptr<f32>, #b1>, tensor<128xf32, #b1>
    // CHECK: llvm.store
    txl.store %out, %a : tensor<128x!txl.ptr<f32>, #b1>, tensor<128xf32, #b1>
    // Unused, relaxed: red.
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 red.relaxed.cta.global.add.u32 [$0], $1;", "l,r,b"
    %b = txl.atomic_rmw add relaxed cta %q, %w : tensor<128x!txl.ptr<i32>, #b1>, tensor<128xi32, #b1>
    // Unused, acq_rel: red cannot acquire, so atom (its result unused).
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$3 atom.acq_rel.sys.global.max.u32 $0, [$1], $2;", "=r,l,r,b,0"
    %c = txl.atomic_rmw umax acq_rel sys %q, %w : tensor<128x!txl.ptr<i32>, #b1>, tensor<128xi32, #b1>
    // Float max: non-negative values (sign bit clear) by max.s32, negative ones by min.u32.
    // CHECK: %[[FB:.*]] = llvm.bitcast %{{.*}} : f32 to i32
    // CHECK: %[[NEG:.*]] = llvm.icmp "slt" %[[FB]], %{{.*}} : i32
    // CHECK: %[[POS:.*]] = llvm.xor %[[NEG]], %{{.*}} : i1
    // CHECK: %[[PP:.*]] = llvm.and %{{.*}}, %[[POS]] : i1
    // CHECK: %[[PN:.*]] = llvm.and %{{.*}}, %[[NEG]] : i1
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 red.release.gpu.global.max.s32 [$0], $1;", "l,r,b" %{{.*}}, %[[FB]], %[[PP]]
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 red.release.gpu.global.min.u32 [$0], $1;", "l,r,b" %{{.*}}, %[[FB]], %[[PN]]
    %d = txl.atomic_rmw max release gpu %p, %v mask %m : tensor<128x!txl.ptr<f32>, #b1>, tensor<128xf32, #b1>
    // Float min, result used: the second atom starts from the first's result.
    // CHECK: %[[M1:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "@$3 atom.acquire.cluster.global.min.s32 $0, [$1], $2;", "=r,l,r,b,0"
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$3 atom.acquire.cluster.global.max.u32 $0, [$1], $2;", "=r,l,r,b,0" %{{.*}}, %{{.*}}, %{{.*}}, %[[M1]]
    %e = txl.atomic_rmw min acquire cluster %p, %v : tensor<128x!txl.ptr<f32>, #b1>, tensor<128xf32, #b1>
    txl.store %out, %e : tensor<128x!txl.ptr<f32>, #b1>, tensor<128xf32, #b1>
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$4 atom.acq_rel.gpu.global.cas.b32 $0, [$1], $2, $3;", "=r,l,r,r,b,0"
    %f = txl.atomic_cas acq_rel gpu %q, %w, %w : tensor<128x!txl.ptr<i32>, #b1>, tensor<128xi32, #b1>
    txl.store %q, %f : tensor<128x!txl.ptr<i32>, #b1>, tensor<128xi32, #b1>
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 red.relaxed.gpu.global.and.b32 [$0], $1;"
    %g = txl.atomic_rmw and relaxed gpu %q, %w : tensor<128x!txl.ptr<i32>, #b1>, tensor<128xi32, #b1>
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 red.relaxed.gpu.global.or.b32 [$0], $1;"
    %h = txl.atomic_rmw or relaxed gpu %q, %w : tensor<128x!txl.ptr<i32>, #b1>, tensor<128xi32, #b1>
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 red.relaxed.gpu.global.xor.b32 [$0], $1;"
    %i = txl.atomic_rmw xor relaxed gpu %q, %w : tensor<128x!txl.ptr<i32>, #b1>, tensor<128xi32, #b1>
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 red.relaxed.gpu.global.min.s32 [$0], $1;"
    %j = txl.atomic_rmw min relaxed gpu %q, %w : tensor<128x!txl.ptr<i32>, #b1>, tensor<128xi32, #b1>
    // red has no exch: an unused xchg stays atom.
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$3 atom.relaxed.gpu.global.exch.b32 $0, [$1], $2;", "=r,l,r,b,0"
    %k = txl.atomic_rmw xchg relaxed gpu %q, %w : tensor<128x!txl.ptr<i32>, #b1>, tensor<128xi32, #b1>
    // CHECK: llvm.return
    return
  }

  // A 64-element tile over 128 threads: warps 2 and 3 hold copies of warps
  // 0 and 1 (tid bit 6). Threads with that bit clear update; the old values
  // reach the copies through the scratch between two warpgroup barriers.
  // CHECK-LABEL: llvm.func @copies(
  func.func @copies(%p: tensor<64x!txl.ptr<i32>, #b1>, %v: tensor<64xi32, #b1>,
                    %out: tensor<64x!txl.ptr<i32>, #b1>, %s: !txl.smem<64xi32>,
                    %r: tensor<2x!txl.ptr<i32>, #b4>, %rv: tensor<2xi32, #b4>)
      attributes {txl.kernel, txl.num_warps = 4 : i32} {
    // CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
    // CHECK: %[[B6:.*]] = llvm.mlir.constant(64 : i32) : i32
    // CHECK: %[[AND:.*]] = llvm.and %[[TID]], %[[B6]] : i32
    // CHECK: %[[OWNER:.*]] = llvm.icmp "eq" %[[AND]], %{{.*}} : i32
    // CHECK: %[[OLD:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "@$3 atom.relaxed.gpu.global.exch.b32 $0, [$1], $2;", "=r,l,r,b,0" %{{.*}}, %{{.*}}, %[[OWNER]], %{{.*}}
    // CHECK: %[[SLOT:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    // CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
    // CHECK: %[[GEN:.*]] = llvm.addrspacecast %[[SLOT]] : !llvm.ptr<3> to !llvm.ptr
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 st.b32 [$0], $1;", "l,r,b" %[[GEN]], %[[OLD]], %[[OWNER]]
    // CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
    // CHECK: llvm.load %[[SLOT]] {alignment = 4 : i64} : !llvm.ptr<3> -> i32
    %a = txl.atomic_rmw xchg relaxed gpu %p, %v scratch(%s : !txl.smem<64xi32>) : tensor<64x!txl.ptr<i32>, #b1>, tensor<64xi32, #b1>
    // The result's store is written once too, by the same owners (store-copies.mlir).
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 st.global.b32 [$0], $1;", "l,r,b"
    txl.store %out, %a : tensor<64x!txl.ptr<i32>, #b1>, tensor<64xi32, #b1>
    // Every thread holds both elements: thread 0 updates each once.
    // CHECK: %[[T2:.*]] = nvvm.read.ptx.sreg.tid.x : i32
    // CHECK: %[[M127:.*]] = llvm.mlir.constant(127 : i32) : i32
    // CHECK: %[[A2:.*]] = llvm.and %[[T2]], %[[M127]] : i32
    // CHECK: %[[T0:.*]] = llvm.icmp "eq" %[[A2]], %{{.*}} : i32
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 red.relaxed.gpu.global.add.u32 [$0], $1;", "l,r,b" %{{.*}}, %{{.*}}, %[[T0]]
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 red.relaxed.gpu.global.add.u32 [$0], $1;", "l,r,b" %{{.*}}, %{{.*}}, %[[T0]]
    %b = txl.atomic_rmw add relaxed gpu %r, %rv : tensor<2x!txl.ptr<i32>, #b4>, tensor<2xi32, #b4>
    return
  }

  // Scalars: the first thread of the group (txl.group_warps) updates.
  // CHECK-LABEL: llvm.func @scalar(
  func.func @scalar(%p: !txl.ptr<i64>, %x: i64, %s: !txl.smem<1xi64>, %h: !txl.ptr<bf16>, %hv: bf16,
                    %o: !txl.ptr<i64>, %f: !txl.ptr<f16, 3>, %fv: f16)
      attributes {txl.kernel, txl.num_warps = 4 : i32} {
    // CHECK: %[[M:.*]] = llvm.mlir.constant(127 : i32) : i32
    // CHECK: %[[LEAD:.*]] = llvm.icmp "eq"
    // CHECK: %[[OLD:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "@$4 atom.acquire.gpu.global.cas.b64 $0, [$1], $2, $3;", "=l,l,l,l,b,0" %{{.*}}, %{{.*}}, %{{.*}}, %[[LEAD]], %{{.*}} : (!llvm.ptr<1>, i64, i64, i1, i64) -> i64
    // CHECK: nvvm.barrier
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 st.b64 [$0], $1;", "l,l,b" %{{.*}}, %[[OLD]], %[[LEAD]]
    // CHECK: nvvm.barrier
    // CHECK: %[[V:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> i64
    // The scalar's store: one thread of the warpgroup (scalars are uniform in
    // a kernel without thread identities; store-copies.mlir).
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 st.global.b64 [$0], $1;", "l,l,b" %{{.*}}, %[[V]], %{{.*}}
    %a = txl.atomic_cas acquire gpu %p, %x, %x scratch(%s : !txl.smem<1xi64>) {txl.group_warps = 4 : i32} : !txl.ptr<i64>, i64
    txl.store %o, %a : !txl.ptr<i64>, i64
    // One warp: lane 0.
    // CHECK: llvm.mlir.constant(31 : i32) : i32
    // CHECK: %[[H:.*]] = llvm.bitcast %{{.*}} : bf16 to i16
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 red.relaxed.gpu.global.add.noftz.bf16 [$0], $1;", "l,h,b" %{{.*}}, %[[H]]
    %b = txl.atomic_rmw add relaxed gpu %h, %hv {txl.group_warps = 1 : i32} : !txl.ptr<bf16>, bf16
    // Shared memory through a generic address.
    // CHECK: llvm.addrspacecast %{{.*}} : !llvm.ptr<3> to !llvm.ptr
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 red.release.sys.add.noftz.f16 [$0], $1;", "l,h,b"
    %c = txl.atomic_rmw add release sys %f, %fv : !txl.ptr<f16, 3>, f16
    return
  }
}
