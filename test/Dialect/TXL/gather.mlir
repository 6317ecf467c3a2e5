// RUN: txl-opt %s | txl-opt | FileCheck %s
// RUN: txl-opt %s --mlir-print-op-generic | txl-opt | FileCheck %s

// Round-trip of txl.gather (tl.gather), with and without its scratch.

// CHECK-LABEL: func.func @gather
// CHECK: txl.gather %{{.*}}[%{{.*}}] axis 0 : tensor<64x32xf32>, tensor<16x32xi32> -> tensor<16x32xf32>
func.func @gather(%src: tensor<64x32xf32>, %idx: tensor<16x32xi32>) -> tensor<16x32xf32> {
  %g = txl.gather %src[%idx] axis 0 : tensor<64x32xf32>, tensor<16x32xi32> -> tensor<16x32xf32>
  return %g : tensor<16x32xf32>
}

// CHECK-LABEL: func.func @gather_scratch
// CHECK: txl.gather %{{.*}}[%{{.*}}] axis 1 scratch(%{{.*}} : !txl.smem<8x64xbf16>) : tensor<8x64xbf16>, tensor<8x128xi64> -> tensor<8x128xbf16>
func.func @gather_scratch(%src: tensor<8x64xbf16>, %idx: tensor<8x128xi64>, %s: !txl.smem<8x64xbf16>) -> tensor<8x128xbf16> {
  %g = txl.gather %src[%idx] axis 1 scratch(%s : !txl.smem<8x64xbf16>) : tensor<8x64xbf16>, tensor<8x128xi64> -> tensor<8x128xbf16>
  return %g : tensor<8x128xbf16>
}
