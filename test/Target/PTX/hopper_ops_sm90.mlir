// REQUIRES: ptxas
// RUN: rm -f %t.ptx %t.json
// RUN: txlc %s --arch=sm_90a --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
// An LLVM-level input has no txl.kernel function, so no sidecar is written.
// RUN: not test -e %t.json
// RUN: txlc %s --arch=sm_90a --emit=llvm -o - | FileCheck %s --check-prefix=LLVM

// The back end alone: an llvm.func kernel in the LLVM + NVVM dialects (what
// the txl pipeline produces) through convert-nvvm-to-llvm, LLVM O3 and the
// NVPTX AsmPrinter. The ops are a cross-section of what txl kernels use:
// the dynamic shared memory array, mbarriers, a TMA load through a by-value
// descriptor, wgmma fence/commit/wait (the wgmma itself is a PTXBuilder op
// that becomes inline asm) and setmaxnreg.

// CHECK: .version 8.6
// CHECK: .target sm_90a
// CHECK: .extern .shared .align 1024 .b8 txl_smem[];
// CHECK: .entry sm90_kernel(
// CHECK-NEXT: .param .align 64 .b8 sm90_kernel_param_0[128],
// CHECK-NEXT: .param .u64 .ptr .global .align 1 sm90_kernel_param_1
// CHECK: .reqntid 384, 1, 1
// CHECK: .minnctapersm 1
// CHECK: setmaxnreg.inc.sync.aligned.u32 232
// CHECK: mbarrier.init.shared.b64 [txl_smem+16384]
// CHECK: mbarrier.arrive.expect_tx.shared.b64
// Shared pointers are 32-bit (nvptx-short-ptr), the TMA destination too: the
// CTA's shared address reinterpreted as its shared::cluster window, no cvta
// (here the array itself: the TMA writes at txl_smem + 0).
// CHECK-NOT: cvta.shared
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [txl_smem], [{{%rd[0-9]+}}, {{[{]}}{{%r[0-9]+}}, {{%r[0-9]+}}}], [txl_smem+16384];
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK: wgmma.fence.sync.aligned
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK: wgmma.commit_group.sync.aligned
// CHECK: wgmma.wait_group.sync.aligned 0

// LLVM: target triple = "nvptx64-nvidia-cuda"
// LLVM: define ptx_kernel void @sm90_kernel(ptr byval([16 x i64]) align 64 "nvvm.grid_constant" %0

!acc = !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>

module {
  llvm.mlir.global external @txl_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>

  llvm.func @sm90_kernel(%tmap: !llvm.ptr {llvm.byval = !llvm.array<16 x i64>, llvm.align = 64 : i64, nvvm.grid_constant},
                         %out: !llvm.ptr<1>, %x: i32)
      attributes {nvvm.kernel, nvvm.reqntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32,
                  txl.shared_bytes = 16392 : i64} {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %tx = llvm.mlir.constant(16384 : i32) : i32
    %ticks = llvm.mlir.constant(1000000 : i32) : i32
    %c16384 = llvm.mlir.constant(16384 : i64) : i64
    %smem = llvm.mlir.addressof @txl_smem : !llvm.ptr<3>
    %mbar = llvm.getelementptr %smem[%c16384] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
    nvvm.setmaxregister increase 232
    nvvm.mbarrier.init %mbar, %c1 : !llvm.ptr<3>, i32
    nvvm.fence.mbarrier.init
    nvvm.mbarrier.arrive.expect_tx %mbar, %tx : !llvm.ptr<3>, i32
    %smem32 = llvm.ptrtoint %smem : !llvm.ptr<3> to i32
    %dst = llvm.inttoptr %smem32 : i32 to !llvm.ptr<7>
    nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %tmap, %mbar, box[%c0, %x] : !llvm.ptr<7>, !llvm.ptr
    nvvm.mbarrier.try_wait.parity %mbar, %c0, %ticks : !llvm.ptr<3>, i32, i32
    %da = llvm.ptrtoint %smem : !llvm.ptr<3> to i64
    %u = llvm.mlir.undef : !acc
    nvvm.wgmma.fence.aligned
    %d = nvvm.wgmma.mma_async %da, %da, %u, #nvvm.shape<m = 64, n = 64, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !acc -> !acc
    nvvm.wgmma.commit.group.sync.aligned
    nvvm.wgmma.wait.group.sync.aligned 0
    %d0 = llvm.extractvalue %d[0] : !acc
    llvm.store %d0, %out : f32, !llvm.ptr<1>
    llvm.return
  }
}
