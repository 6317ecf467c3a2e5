// REQUIRES: ptxas
// RUN: rm -f %t.ptx
// RUN: txlc %s --arch=sm_90a --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// A 64x64 bf16 tile through cp.async: every thread copies its 16-byte runs
// of the pointer tile (the default blocked layout: 8 bf16 per thread along
// a row) into a 128B-swizzled buffer, arrives on an mbarrier when its copies
// land (cp.async.mbarrier.arrive.noinc), waits for its own group, waits on
// the mbarrier (all 128 threads' copies), reads the tile back in the same
// layout and stores it to `out`.

// CHECK: .target sm_90a
// CHECK: .entry async_load_kernel(
// CHECK: cp.async.cg.shared.global [{{%r[0-9]+|%rd[0-9]+}}], [{{%rd[0-9]+}}], 16;
// CHECK: cp.async.commit_group;
// CHECK: cp.async.mbarrier.arrive.noinc.shared{{(::cta)?}}.b64
// CHECK: cp.async.wait_group 0;
// CHECK: mbarrier.try_wait.parity
// CHECK: ld.shared

#sw128 = #txl.nvmma_shared<swizzle = 128>
module attributes {txl.target = "sm_90a"} {
  func.func @async_load_kernel(%in: !txl.ptr<bf16>, %out: !txl.ptr<bf16>)
      attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %r = txl.make_range 0, 64 : tensor<64xi32>
    %c = txl.make_range 0, 64 : tensor<64xi32>
    %r1 = txl.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %c1 = txl.expand_dims %c, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %stride = txl.splat %c64 : i32 -> tensor<64x1xi32>
    %rs = arith.muli %r1, %stride : tensor<64x1xi32>
    %rb = txl.broadcast %rs : tensor<64x1xi32> -> tensor<64x64xi32>
    %cb = txl.broadcast %c1 : tensor<1x64xi32> -> tensor<64x64xi32>
    %offs = arith.addi %rb, %cb : tensor<64x64xi32>
    %inb = txl.splat %in : !txl.ptr<bf16> -> tensor<64x64x!txl.ptr<bf16>>
    %inp = txl.addptr %inb, %offs : tensor<64x64x!txl.ptr<bf16>>, tensor<64x64xi32>
    %outb = txl.splat %out : !txl.ptr<bf16> -> tensor<64x64x!txl.ptr<bf16>>
    %outp = txl.addptr %outb, %offs : tensor<64x64x!txl.ptr<bf16>>, tensor<64x64xi32>
    %buf = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1, #sw128>
    %bars = txl.mbar_alloc count 128 : !txl.mbar<1>
    %tile = txl.get_buffer %buf[%c0] : !txl.smem<64x64xbf16, stages = 1, #sw128>
    %bar = txl.get_buffer %bars[%c0] : !txl.mbar<1>
    txl.async_load %inp, %tile {contiguity = 8 : i32} : tensor<64x64x!txl.ptr<bf16>>, !txl.smem<64x64xbf16, #sw128>
    txl.mbar_arrive %bar {track_async_op}
    txl.async_load_wait 0
    txl.mbar_wait %bar, %c0 : i32
    %v = txl.smem_load %tile : !txl.smem<64x64xbf16, #sw128> -> tensor<64x64xbf16>
    txl.store %outp, %v : tensor<64x64x!txl.ptr<bf16>>, tensor<64x64xbf16>
    return
  }
}
