// REQUIRES: ptxas, libdevice
// RUN: rm -f %t.ptx
// RUN: txlc %s --arch=sm_90a --emit=ptx --libdevice=%libdevice -o %t.ptx
// RUN: FileCheck %s --implicit-check-not=__nv_ --implicit-check-not=.extern < %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: not txlc %s --arch=sm_90a --emit=ptx --libdevice=%t.missing.bc -o %t.bad.ptx 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not test -e %t.bad.ptx

// libdevice calls on a tile (split per register), a scalar, and two
// operands: txlc links libdevice.10.bc, internalizes what was used and the
// O3 pipeline inlines it, so no __nv_ function is left, nothing is declared
// .extern, and ptxas resolves every call (lgamma keeps libdevice's internal
// helper as a .func of its own).
// CHECK: .entry libdevice_calls(
// CHECK: ret;

// MISSING: error: the kernel calls libdevice's '__nv_{{.*}}' but the libdevice given ('{{.*}}.missing.bc') does not exist

module attributes {txl.target = "sm_90a"} {
  func.func @libdevice_calls(%x: !txl.ptr<f32>, %out: !txl.ptr<f32>, %d: !txl.ptr<f64>, %s: f32)
      attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %r = txl.make_range 0, 128 : tensor<128xi32>
    %xp = txl.splat %x : !txl.ptr<f32> -> tensor<128x!txl.ptr<f32>>
    %xps = txl.addptr %xp, %r : tensor<128x!txl.ptr<f32>>, tensor<128xi32>
    %v = txl.load %xps : tensor<128x!txl.ptr<f32>> -> tensor<128xf32>
    %a = txl.extern_elementwise "__nv_asinf"(%v) : (tensor<128xf32>) -> tensor<128xf32>
    %b = txl.extern_elementwise "__nv_atan2f"(%a, %v) : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
    %c = txl.extern_elementwise "__nv_j0f"(%s) : (f32) -> f32
    %cs = txl.splat %c : f32 -> tensor<128xf32>
    %e = arith.addf %b, %cs : tensor<128xf32>
    %op = txl.splat %out : !txl.ptr<f32> -> tensor<128x!txl.ptr<f32>>
    %ops = txl.addptr %op, %r : tensor<128x!txl.ptr<f32>>, tensor<128xi32>
    txl.store %ops, %e : tensor<128x!txl.ptr<f32>>, tensor<128xf32>
    %dv = txl.load %d : !txl.ptr<f64> -> f64
    %dl = txl.extern_elementwise "__nv_lgamma"(%dv) : (f64) -> f64
    txl.store %d, %dl : !txl.ptr<f64>, f64
    return
  }
}
