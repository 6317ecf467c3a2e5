// Regression: fp8 register A operands pack through i8 vectors (f8 vectors are not LLVM types).
// RUN: txl-opt %s -txl-wgmma | FileCheck %s
// CHECK: vector<4xi8>

#nv = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 32]>
#opA = #txl.dot_operand<opIdx = 0, parent = #nv, kWidth = 4>
module attributes {txl.target = "sm_90a"} {
  func.func @rs_fp8(%a: tensor<64x32xf8E4M3FN, #opA>, %b: !txl.smem<32x64xf8E4M3FN, #txl.nvmma_shared<swizzle = 32, transposed = true>>, %c: tensor<64x64xf32, #nv>) -> tensor<64x64xf32, #nv> attributes {txl.kernel} {
    %d = txl.dot %a, %b, %c : tensor<64x32xf8E4M3FN, #opA>, !txl.smem<32x64xf8E4M3FN, #txl.nvmma_shared<swizzle = 32, transposed = true>>, tensor<64x64xf32, #nv>
    return %d : tensor<64x64xf32, #nv>
  }
}
