// REQUIRES: ptxas
// RUN: rm -f %t.ptx
// RUN: txlc %s --arch=sm_90a --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// Atomics through the whole pipeline (layouts assigned, scratch allocated),
// and ptxas accepts every form: red for unused relaxed/release results, atom
// otherwise, float max as max.s32 + min.u32, f16/bf16 add, 64-bit cas, and
// a scalar counter whose old value every thread reads (thread 0 updates,
// hands it over through shared memory).

// CHECK: .entry atomics(
// CHECK-DAG: red.relaxed.gpu.global.add.u32
// CHECK-DAG: atom.acq_rel.gpu.global.add.f32
// CHECK-DAG: atom.acq_rel.gpu.global.max.s32
// CHECK-DAG: atom.acq_rel.gpu.global.min.u32
// CHECK-DAG: red.release.sys.global.add.noftz.bf16
// CHECK-DAG: red.relaxed.cta.global.add.noftz.f16
// CHECK-DAG: atom.acquire.gpu.global.cas.b64
// CHECK-DAG: atom.relaxed.cluster.global.exch.b32
// CHECK-DAG: red.relaxed.gpu.global.min.u64
// CHECK-DAG: red.relaxed.gpu.global.xor.b32
// CHECK-DAG: atom.relaxed.gpu.global.add.u32
// CHECK-DAG: bar.sync
// CHECK: ret;

module attributes {txl.target = "sm_90a"} {
  func.func @atomics(%hist: !txl.ptr<i32>, %x: !txl.ptr<f32>, %h: !txl.ptr<bf16>, %f: !txl.ptr<f16>,
                     %l: !txl.ptr<i64>, %out: !txl.ptr<f32>, %cnt: !txl.ptr<i32>, %n: i32)
      attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %r = txl.make_range 0, 256 : tensor<256xi32>
    %nn = txl.splat %n : i32 -> tensor<256xi32>
    %m = arith.cmpi slt, %r, %nn : tensor<256xi32>
    %hp = txl.splat %hist : !txl.ptr<i32> -> tensor<256x!txl.ptr<i32>>
    %hps = txl.addptr %hp, %r : tensor<256x!txl.ptr<i32>>, tensor<256xi32>
    %one = arith.constant dense<1> : tensor<256xi32>
    %a = txl.atomic_rmw add relaxed gpu %hps, %one mask %m : tensor<256x!txl.ptr<i32>>, tensor<256xi32>
    %xp = txl.splat %x : !txl.ptr<f32> -> tensor<256x!txl.ptr<f32>>
    %xps = txl.addptr %xp, %r : tensor<256x!txl.ptr<f32>>, tensor<256xi32>
    %v = txl.load %xps mask %m : tensor<256x!txl.ptr<f32>> -> tensor<256xf32>
    %b = txl.atomic_rmw add acq_rel gpu %xps, %v mask %m : tensor<256x!txl.ptr<f32>>, tensor<256xf32>
    %c = txl.atomic_rmw max acq_rel gpu %xps, %b mask %m : tensor<256x!txl.ptr<f32>>, tensor<256xf32>
    %op = txl.splat %out : !txl.ptr<f32> -> tensor<256x!txl.ptr<f32>>
    %ops = txl.addptr %op, %r : tensor<256x!txl.ptr<f32>>, tensor<256xi32>
    txl.store %ops, %c mask %m : tensor<256x!txl.ptr<f32>>, tensor<256xf32>
    %hv = arith.constant 1.0 : bf16
    %d = txl.atomic_rmw add release sys %h, %hv : !txl.ptr<bf16>, bf16
    %fv = arith.constant 1.0 : f16
    %e = txl.atomic_rmw add relaxed cta %f, %fv : !txl.ptr<f16>, f16
    %z = arith.constant 0 : i64
    %old = txl.atomic_cas acquire gpu %l, %z, %z : !txl.ptr<i64>, i64
    %lp = txl.addptr %l, %n : !txl.ptr<i64>, i32
    %g = txl.atomic_rmw umin relaxed gpu %lp, %old : !txl.ptr<i64>, i64
    %bits = arith.bitcast %v : tensor<256xf32> to tensor<256xi32>
    %hx = txl.atomic_rmw xor relaxed gpu %hps, %bits : tensor<256x!txl.ptr<i32>>, tensor<256xi32>
    %c1 = arith.constant 1 : i32
    %xc = txl.atomic_rmw xchg relaxed cluster %cnt, %c1 : !txl.ptr<i32>, i32
    %t = txl.atomic_rmw add relaxed gpu %cnt, %c1 : !txl.ptr<i32>, i32
    %tp = txl.addptr %hist, %t : !txl.ptr<i32>, i32
    txl.store %tp, %t : !txl.ptr<i32>, i32
    return
  }
}
