// RUN: txl-opt %s -txl-assign-layouts -split-input-file -verify-diagnostics | FileCheck %s

// Layouts a kernel's author gave a tile through `txl.relayout {txl.layout = L}`
// (what txl.experimental.gluon emits for Gluon's layout= arguments and
// convert_layout): the relayout's result class is anchored to L, the
// attribute is gone after the pass, and the relayout from a class that has
// no layout of its own takes L (and disappears).

#blk = #txl.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// CHECK-LABEL: func.func @given_layout_reaches_the_class
// CHECK-NOT: txl.layout
// CHECK: txl.make_range 0, 1024 : tensor<1024xi32, #txl.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
// CHECK: txl.load %{{.*}} : tensor<1024x!txl.ptr<f32>, #txl.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>> -> tensor<1024xf32, #txl.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
// CHECK: txl.store
// CHECK-NOT: txl.layout
module attributes {txl.target = "sm_90a"} {
  func.func @given_layout_reaches_the_class(%p: !txl.ptr<f32>, %q: !txl.ptr<f32>) attributes {txl.kernel} {
    %r = txl.make_range 0, 1024 : tensor<1024xi32>
    %i = txl.relayout %r {txl.layout = #blk} : tensor<1024xi32> -> tensor<1024xi32>
    %ps = txl.splat %p : !txl.ptr<f32> -> tensor<1024x!txl.ptr<f32>>
    %pa = txl.addptr %ps, %i : tensor<1024x!txl.ptr<f32>>, tensor<1024xi32>
    %v = txl.load %pa : tensor<1024x!txl.ptr<f32>> -> tensor<1024xf32>
    %qs = txl.splat %q : !txl.ptr<f32> -> tensor<1024x!txl.ptr<f32>>
    %qa = txl.addptr %qs, %i : tensor<1024x!txl.ptr<f32>>, tensor<1024xi32>
    txl.store %qa, %v : tensor<1024x!txl.ptr<f32>>, tensor<1024xf32>
    return
  }
}

// -----

#b1 = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b2 = #txl.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// Two layouts given to one class (Gluon refuses a + b of two layouts too).
module attributes {txl.target = "sm_90a"} {
  func.func @two_given_layouts_meet() attributes {txl.kernel} {
    %r = txl.make_range 0, 128 : tensor<128xi32>
    %a = txl.relayout %r {txl.layout = #b1} : tensor<128xi32> -> tensor<128xi32>
    // expected-error @+1 {{'txl.relayout' op needs layout}}
    %b = txl.relayout %r {txl.layout = #b2} : tensor<128xi32> -> tensor<128xi32>
    %c = arith.addi %a, %b : tensor<128xi32>
    return
  }
}

// -----

#b1 = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// The attribute belongs on a relayout whose result has no layout yet.
module attributes {txl.target = "sm_90a"} {
  func.func @given_layout_on_another_op() attributes {txl.kernel} {
    // expected-error @+1 {{'txl.layout' belongs on a txl.relayout whose result has no layout}}
    %r = txl.make_range 0, 128 {txl.layout = #b1} : tensor<128xi32>
    return
  }
}

// -----

#b2d = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// ... and must be a layout of the tile.
module attributes {txl.target = "sm_90a"} {
  func.func @given_layout_of_another_rank() attributes {txl.kernel} {
    %r = txl.make_range 0, 128 : tensor<128xi32>
    // expected-error @+1 {{'txl.layout'}}
    %a = txl.relayout %r {txl.layout = #b2d} : tensor<128xi32> -> tensor<128xi32>
    return
  }
}
