// RUN: txl-opt %s -convert-scf-to-cf -convert-txl-to-nvvm=element-major=1 -reconcile-unrealized-casts | FileCheck %s --implicit-check-not=txl. --implicit-check-not=insertvalue --implicit-check-not=extractvalue --implicit-check-not=minctasm
// RUN: txl-opt %s -convert-scf-to-cf -convert-txl-to-nvvm -reconcile-unrealized-casts | FileCheck %s --check-prefix=OPMAJOR --implicit-check-not=minctasm
//
// convert-txl-to-nvvm lowers a tile op for all of a thread's registers at
// once (op-major: every intermediate of every element live together; the
// default). With element-major=1 each memory-effect-free op is then placed right
// before its first user: one element's chain (bf16 -> extf -> mul -> div ->
// truncf) is computed where the store consumes it, as in
// Triton's PTX. It is off by default: after .minnctapersm went (kernels
// without setmaxnreg have none, implicit-check-not) it saved 0-8 registers on
// Liger's row kernels but lengthened operand live ranges in the MLA decoding
// kernel (more spills). The tile structs between ops are gone: the extracts read the inserted
// registers directly (implicit-check-not insertvalue / extractvalue). The
// load and the store, which have side effects, stay in their order; nothing
// moves out of the loop body block.

#b4 = #txl.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

module {
  // CHECK-LABEL: llvm.func @chain(
  // CHECK-SAME: attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>}
  func.func @chain(%src: !txl.ptr<bf16>, %dst: !txl.ptr<bf16>, %s: f32) attributes {txl.kernel} {
    %offs = txl.make_range 0, 512 : tensor<512xi32, #b4>
    %sp = txl.splat %src : !txl.ptr<bf16> -> tensor<512x!txl.ptr<bf16>, #b4>
    %p = txl.addptr %sp, %offs : tensor<512x!txl.ptr<bf16>, #b4>, tensor<512xi32, #b4>
    // CHECK: %[[V:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<4xbf16>
    %x = txl.load %p {txl.vector = 4 : i32} : tensor<512x!txl.ptr<bf16>, #b4> -> tensor<512xbf16, #b4>
    // Element 0 all the way to its division, then element 1, then their
    // packed truncation (cvt.rn.bf16x2.f32), then elements 2 and 3:
    // CHECK: %[[X0:.*]] = llvm.extractelement %[[V]][%{{.*}} : i32] : vector<4xbf16>
    // CHECK-NEXT: %[[F0:.*]] = llvm.fpext %[[X0]] : bf16 to f32
    // CHECK-NEXT: %[[M0:.*]] = llvm.fmul %[[F0]], %{{.*}} : f32
    // CHECK-NEXT: %[[D0:.*]] = llvm.fdiv %{{.*}}, %[[M0]] : f32
    // CHECK: %[[X1:.*]] = llvm.extractelement %[[V]][%{{.*}} : i32] : vector<4xbf16>
    // CHECK-NEXT: %[[F1:.*]] = llvm.fpext %[[X1]] : bf16 to f32
    // CHECK-NEXT: %[[M1:.*]] = llvm.fmul %[[F1]], %{{.*}} : f32
    // CHECK-NEXT: %[[D1:.*]] = llvm.fdiv %{{.*}}, %[[M1]] : f32
    // CHECK: llvm.fptrunc %{{.*}} : vector<2xf32> to vector<2xbf16>
    // CHECK: llvm.fpext
    // CHECK: llvm.fpext
    // CHECK: llvm.fptrunc %{{.*}} : vector<2xf32> to vector<2xbf16>
    // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<4xbf16>, !llvm.ptr<1>
    // OPMAJOR: llvm.fpext
    // OPMAJOR-NEXT: llvm.fpext
    // OPMAJOR-NEXT: llvm.fpext
    // OPMAJOR-NEXT: llvm.fpext
    %xf = arith.extf %x : tensor<512xbf16, #b4> to tensor<512xf32, #b4>
    %st = txl.splat %s : f32 -> tensor<512xf32, #b4>
    %m = arith.mulf %xf, %st : tensor<512xf32, #b4>
    %one = arith.constant dense<1.0> : tensor<512xf32, #b4>
    %d = arith.divf %one, %m : tensor<512xf32, #b4>
    %t = arith.truncf %d : tensor<512xf32, #b4> to tensor<512xbf16, #b4>
    %dp = txl.splat %dst : !txl.ptr<bf16> -> tensor<512x!txl.ptr<bf16>, #b4>
    %q = txl.addptr %dp, %offs : tensor<512x!txl.ptr<bf16>, #b4>, tensor<512xi32, #b4>
    txl.store %q, %t {txl.vector = 4 : i32} : tensor<512x!txl.ptr<bf16>, #b4>, tensor<512xbf16, #b4>
    // CHECK: llvm.return
    return
  }
}
