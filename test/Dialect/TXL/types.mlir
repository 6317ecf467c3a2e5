// RUN: txl-opt %s | txl-opt | FileCheck %s
// RUN: txl-opt %s --mlir-print-op-generic | txl-opt | FileCheck %s

// Round-trip of the txl types, the layout attributes on register tiles and
// the discardable attributes txl.target, txl.kernel and txl.num_warps.

// CHECK: module attributes {txl.target = "sm_90a"}
module attributes {txl.target = "sm_90a"} {

// CHECK-LABEL: func.func @smem_types(
// CHECK-SAME: !txl.smem<128x64xbf16>,
// CHECK-SAME: !txl.smem<128x64xbf16, stages = 3>,
// CHECK-SAME: !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>>,
// CHECK-SAME: !txl.smem<128x64xbf16, stages = 2, #txl.nvmma_shared<swizzle = 64, transposed = true>>,
// CHECK-SAME: !txl.smem<64xf32>,
// CHECK-SAME: !txl.smem<2x64x64xf8E4M3FN, #txl.nvmma_shared<swizzle = 0>>,
// CHECK-SAME: !txl.smem<64x32xi8, stages = 4, #txl.nvmma_shared<swizzle = 32>>,
// The stage count and the encoding may be written in either order; an
// explicit `stages = 0` is a view and transposed = false is the default.
// CHECK-SAME: !txl.smem<128x64xbf16, stages = 2, #txl.nvmma_shared<swizzle = 128>>,
// CHECK-SAME: !txl.smem<32xf32>,
// CHECK-SAME: !txl.smem<64x64xf16, #txl.nvmma_shared<swizzle = 128>>)
func.func @smem_types(%a: !txl.smem<128x64xbf16>,
                      %b: !txl.smem<128x64xbf16, stages = 3>,
                      %c: !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>>,
                      %d: !txl.smem<128x64xbf16, stages = 2, #txl.nvmma_shared<swizzle = 64, transposed = true>>,
                      %e: !txl.smem<64xf32>,
                      %f: !txl.smem<2x64x64xf8E4M3FN, #txl.nvmma_shared<swizzle = 0>>,
                      %g: !txl.smem<64x32xi8, stages = 4, #txl.nvmma_shared<swizzle = 32>>,
                      %h: !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>, stages = 2>,
                      %i: !txl.smem<32xf32, stages = 0>,
                      %j: !txl.smem<64x64xf16, #txl.nvmma_shared<swizzle = 128, transposed = false>>) {
  return
}

// CHECK-LABEL: func.func @handle_types(
// CHECK-SAME: !txl.tmem<128x256xf32>,
// CHECK-SAME: !txl.tmem<128x128xf32, stages = 2>,
// CHECK-SAME: !txl.tmem<64x64xbf16, stages = 1>,
// CHECK-SAME: !txl.mbar,
// CHECK-SAME: !txl.mbar<3>,
// CHECK-SAME: !txl.mbar,
// CHECK-SAME: !txl.tensordesc<128x64xbf16>,
// CHECK-SAME: !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>,
// CHECK-SAME: !txl.tensordesc<2x8x32xf32, #txl.nvmma_shared<swizzle = 128>>,
// CHECK-SAME: !txl.tensordesc<64x128xf8E5M2>,
// CHECK-SAME: !txl.tensordesc<64x512xbf16, #txl.nvmma_shared<swizzle = 128>>,
// CHECK-SAME: !txl.ptr<f32>,
// CHECK-SAME: !txl.ptr<f32, 3>,
// CHECK-SAME: !txl.ptr<bf16>,
// CHECK-SAME: !txl.ptr<i8, 0>,
// CHECK-SAME: tensor<128x!txl.ptr<f16>>,
// CHECK-SAME: tensor<64x64x!txl.ptr<bf16, 3>>)
func.func @handle_types(%t0: !txl.tmem<128x256xf32>,
                        %t1: !txl.tmem<128x128xf32, stages = 2>,
                        %t2: !txl.tmem<64x64xbf16, stages = 1>,
                        %m0: !txl.mbar,
                        %m1: !txl.mbar<3>,
                        %m2: !txl.mbar<0>,
                        %d0: !txl.tensordesc<128x64xbf16>,
                        %d1: !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>,
                        %d2: !txl.tensordesc<2x8x32xf32, #txl.nvmma_shared<swizzle = 128>>,
                        %d3: !txl.tensordesc<64x128xf8E5M2>,
                        %d4: !txl.tensordesc<64x512xbf16, #txl.nvmma_shared<swizzle = 128>>,
                        %p0: !txl.ptr<f32>,
                        %p1: !txl.ptr<f32, 3>,
                        %p2: !txl.ptr<bf16, 1>,
                        %p3: !txl.ptr<i8, 0>,
                        %p4: tensor<128x!txl.ptr<f16>>,
                        %p5: tensor<64x64x!txl.ptr<bf16, 3>>) {
  return
}

// CHECK-LABEL: func.func @layouts(
// CHECK-SAME: tensor<128x64xf32, #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>,
// CHECK-SAME: tensor<128xi32, #txl.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>>,
// CHECK-SAME: tensor<64x128xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]>>,
// CHECK-SAME: tensor<128x128xf32, #txl.nvmma<version = 3, warpsPerCTA = [8, 1], instrShape = [16, 128, 8]>>,
// CHECK-SAME: tensor<64x128xbf16, #txl.dot_operand<opIdx = 0, parent = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]>, kWidth = 2>>,
// CHECK-SAME: tensor<64x64xi8, #txl.dot_operand<opIdx = 1, parent = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>, kWidth = 4>>,
// CHECK-SAME: tensor<64xf32, #txl.slice<dim = 1, parent = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]>>>,
// CHECK-SAME: tensor<64xf32, #txl.slice<dim = 0, parent = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>>,
// CHECK-SAME: tensor<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>)
func.func @layouts(
    %b2: tensor<128x64xf32, #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>,
    %b1: tensor<128xi32, #txl.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>>,
    %acc: tensor<64x128xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]>>,
    %acc8: tensor<128x128xf32, #txl.nvmma<version = 3, warpsPerCTA = [8, 1], instrShape = [16, 128, 8]>>,
    %opA: tensor<64x128xbf16, #txl.dot_operand<opIdx = 0, parent = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]>, kWidth = 2>>,
    %opB: tensor<64x64xi8, #txl.dot_operand<opIdx = 1, parent = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>, kWidth = 4>>,
    %row: tensor<64xf32, #txl.slice<dim = 1, parent = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]>>>,
    %col: tensor<64xf32, #txl.slice<dim = 0, parent = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>>,
    %shared: tensor<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>) {
  return
}

// A slice of a slice: a rank-0 layout.
// CHECK-LABEL: func.func @nested_slice(
// CHECK-SAME: tensor<f32, #txl.slice<dim = 0, parent = #txl.slice<dim = 1, parent = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [0, 1]>>>>)
func.func @nested_slice(%s: tensor<f32, #txl.slice<dim = 0, parent = #txl.slice<dim = 1, parent = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [0, 1]>>>>) {
  return
}

// CHECK-LABEL: func.func @kernel(
// CHECK-SAME: attributes {txl.kernel, txl.num_warps = 8 : i32}
func.func @kernel(%desc: !txl.tensordesc<128x64xbf16>) attributes {txl.kernel, txl.num_warps = 8 : i32} {
  return
}

// CHECK-LABEL: func.func @kernel_defaults()
// CHECK-SAME: attributes {txl.kernel, txl.num_warps = 4 : i64}
func.func @kernel_defaults() attributes {txl.kernel, txl.num_warps = 4} {
  return
}

}

// A nested module may target Blackwell.
// CHECK: module @blackwell attributes {txl.target = "sm_100a"}
module @blackwell attributes {txl.target = "sm_100a"} {
  // CHECK-LABEL: func.func @kernel()
  // CHECK-SAME: attributes {txl.kernel, txl.num_warps = 32 : i32}
  func.func @kernel() attributes {txl.kernel, txl.num_warps = 32 : i32} {
    return
  }
}
