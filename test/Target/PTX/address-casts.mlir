// REQUIRES: ptxas
// RUN: rm -f %t.ptx
// RUN: txlc %s --arch=sm_90a --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// Pointers loaded as int64 (Triton's grouped GEMM keeps a table of matrix
// addresses), cast per register and dereferenced; a scalar cast back.
// CHECK: .entry address_casts(
// CHECK: ld.global.b64
// CHECK: ld.global.b16
// CHECK: ret;
module attributes {txl.target = "sm_90a"} {
  func.func @address_casts(%table: !txl.ptr<i64>, %out: !txl.ptr<f32>) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %r = txl.make_range 0, 128 : tensor<128xi32>
    %tp = txl.splat %table : !txl.ptr<i64> -> tensor<128x!txl.ptr<i64>>
    %tps = txl.addptr %tp, %r : tensor<128x!txl.ptr<i64>>, tensor<128xi32>
    %addr = txl.load %tps : tensor<128x!txl.ptr<i64>> -> tensor<128xi64>
    %src = txl.int_to_ptr %addr : tensor<128xi64> -> tensor<128x!txl.ptr<f16>>
    %v = txl.load %src : tensor<128x!txl.ptr<f16>> -> tensor<128xf16>
    %f = arith.extf %v : tensor<128xf16> to tensor<128xf32>
    %op = txl.splat %out : !txl.ptr<f32> -> tensor<128x!txl.ptr<f32>>
    %ops = txl.addptr %op, %r : tensor<128x!txl.ptr<f32>>, tensor<128xi32>
    txl.store %ops, %f : tensor<128x!txl.ptr<f32>>, tensor<128xf32>
    %o = txl.ptr_to_int %out : !txl.ptr<f32> -> i64
    %o2 = txl.int_to_ptr %o : i64 -> !txl.ptr<i64>
    txl.store %o2, %o : !txl.ptr<i64>, i64
    return
  }
}
