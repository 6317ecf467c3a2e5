// Regression: A descriptor argument given the buffer's encoding also changes the function type.
// RUN: txl-opt %s -txl-smem-allocs | txl-opt | FileCheck %s
// CHECK: func.func {{.*}}!txl.tensordesc<{{.*}}#txl.nvmma_shared<swizzle = 128>>

module attributes {txl.target = "sm_90a"} {
  func.func @desc_arg(%d: !txl.tensordesc<128x64xbf16>, %bar: !txl.mbar, %b: !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %a = txl.smem_alloc : !txl.smem<128x64xbf16, stages = 2>
    %ab = txl.get_buffer %a[%c0] : !txl.smem<128x64xbf16, stages = 2>
    txl.tma_load %d[%c0, %c0], %ab, %bar : !txl.tensordesc<128x64xbf16>, !txl.smem<128x64xbf16>
    %zero = arith.constant dense<0.0> : tensor<128x64xf32>
    %r = txl.dot %ab, %b, %zero : !txl.smem<128x64xbf16>, !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>, tensor<128x64xf32>
    return
  }
}
