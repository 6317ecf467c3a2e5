// Regression: An encoded buffer gives its swizzle to an unencoded descriptor (else the host encodes it unswizzled).
// RUN: txl-opt %s -txl-smem-allocs | FileCheck %s
// CHECK: func.func {{.*}}!txl.tensordesc<128x64xbf16, #txl.nvmma_shared<swizzle = 128>>

module attributes {txl.target = "sm_90a"} {
  func.func @desc_arg_encoded_buffer(%d: !txl.tensordesc<128x64xbf16>) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %bars = txl.mbar_alloc count 1 : !txl.mbar<1>
    %bar = txl.get_buffer %bars[%c0] : !txl.mbar<1>
    %a = txl.smem_alloc : !txl.smem<128x64xbf16, stages = 2, #txl.nvmma_shared<swizzle = 128>>
    %ab = txl.get_buffer %a[%c0] : !txl.smem<128x64xbf16, stages = 2, #txl.nvmma_shared<swizzle = 128>>
    txl.mbar_expect %bar, 16384
    txl.tma_load %d[%c0, %c0], %ab, %bar : !txl.tensordesc<128x64xbf16>, !txl.smem<128x64xbf16, #txl.nvmma_shared<swizzle = 128>>
    txl.mbar_wait %bar, %c0 : i32
    return
  }
}
