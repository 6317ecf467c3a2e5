// RUN: txlc %s --emit=llvm -O0 | FileCheck %s --implicit-check-not=insertvalue --implicit-check-not=extractvalue
//
// Register tiles cross the conversion to LLVM as structs (insertvalue chains
// read back by extractvalue). txlc folds them before translating to LLVM IR,
// as Triton does: LLVM's IPSCCP revisits every field of a struct on each
// insertvalue of its chain, so a kernel of 256 elements a thread (a
// 32768-wide row tile) spent 25 of its 26 s of compile there. At -O0 (no LLVM
// optimization) the IR shows what the translation got: plain values only.

#b = #txl.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

module attributes {txl.target = "sm_90a"} {
  // CHECK-LABEL: define ptx_kernel void @scale(
  func.func @scale(%x: !txl.ptr<f32>, %y: !txl.ptr<f32>) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %offs = txl.make_range 0, 1024 : tensor<1024xi32, #b>
    %xs = txl.splat %x : !txl.ptr<f32> -> tensor<1024x!txl.ptr<f32>, #b>
    %xp = txl.addptr %xs, %offs : tensor<1024x!txl.ptr<f32>, #b>, tensor<1024xi32, #b>
    %v = txl.load %xp : tensor<1024x!txl.ptr<f32>, #b> -> tensor<1024xf32, #b>
    %w = arith.mulf %v, %v : tensor<1024xf32, #b>
    %ys = txl.splat %y : !txl.ptr<f32> -> tensor<1024x!txl.ptr<f32>, #b>
    %yp = txl.addptr %ys, %offs : tensor<1024x!txl.ptr<f32>, #b>, tensor<1024xi32, #b>
    // CHECK: fmul float
    // CHECK: store float
    txl.store %yp, %w : tensor<1024x!txl.ptr<f32>, #b>, tensor<1024xf32, #b>
    // CHECK: ret void
    return
  }
}
