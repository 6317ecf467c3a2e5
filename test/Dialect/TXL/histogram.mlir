// RUN: txl-opt %s | txl-opt | FileCheck %s
// RUN: txl-opt %s --mlir-print-op-generic | txl-opt | FileCheck %s

// Round-trip of txl.histogram (tl.histogram): plain, masked, with scratch.

// CHECK-LABEL: func.func @hist
// CHECK: txl.histogram %{{.*}} : tensor<1024xi32> -> tensor<64xi32>
// CHECK: txl.histogram %{{.*}} mask %{{.*}} : tensor<1024xi1> : tensor<1024xi64> -> tensor<64xi32>
// CHECK: txl.histogram %{{.*}} scratch(%{{.*}} : !txl.smem<64xi32>) : tensor<1024xi32> -> tensor<64xi32>
func.func @hist(%x: tensor<1024xi32>, %y: tensor<1024xi64>, %m: tensor<1024xi1>, %s: !txl.smem<64xi32>) {
  %a = txl.histogram %x : tensor<1024xi32> -> tensor<64xi32>
  %b = txl.histogram %y mask %m : tensor<1024xi1> : tensor<1024xi64> -> tensor<64xi32>
  %c = txl.histogram %x scratch(%s : !txl.smem<64xi32>) : tensor<1024xi32> -> tensor<64xi32>
  return
}
