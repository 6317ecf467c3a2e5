// REQUIRES: ptxas
// RUN: txlc %s --arch=sm_100a -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
// The default PTX version is the same for both targets; a newer one is taken.
// RUN: txlc %s --arch=sm_100a --ptx-version=ptx88 -o - | FileCheck %s --check-prefix=PTX88
// RUN: txlc %s --arch=sm_100a --ptx-version=8.8 -o - | FileCheck %s --check-prefix=PTX88

// Blackwell (sm_100a): tensor-memory allocation, a tcgen05 MMA, commit to an
// mbarrier, a TMEM load and the deallocation, through the same back end.

// CHECK: .version 8.6
// CHECK: .target sm_100a
// CHECK: .entry sm100_kernel(
// CHECK: .reqntid 128, 1, 1
// CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32
// CHECK: tcgen05.mma.cta_group::1.kind::f16
// CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK: tcgen05.wait::ld.sync.aligned
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32

// PTX88: .version 8.8
// PTX88: .target sm_100a

module {
  llvm.mlir.global external @txl_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>

  llvm.func @sm100_kernel(%g: !llvm.ptr<1>, %descA: i64, %descB: i64, %idesc: i32)
      attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>, nvvm.minctasm = 1 : i32} {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c8 = llvm.mlir.constant(8 : i64) : i64
    %ncols = llvm.mlir.constant(128 : i32) : i32
    %true = llvm.mlir.constant(true) : i1
    %smem = llvm.mlir.addressof @txl_smem : !llvm.ptr<3>
    %mbar = llvm.getelementptr %smem[%c8] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
    nvvm.tcgen05.alloc %smem, %ncols : !llvm.ptr<3>, i32
    nvvm.tcgen05.relinquish_alloc_permit
    nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>
    nvvm.barrier0
    nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>
    %ta = llvm.load %smem : !llvm.ptr<3> -> i32
    %tmem = llvm.inttoptr %ta : i32 to !llvm.ptr<6>
    nvvm.tcgen05.mma %tmem, %descA, %descB, %idesc, %true {kind = #nvvm.tcgen05_mma_kind<f16>, ctaGroup = #nvvm.cta_group<cta_1>} : (!llvm.ptr<6>, i64, i64, i32, i1)
    nvvm.tcgen05.commit %mbar : !llvm.ptr<3>
    nvvm.mbarrier.try_wait.parity %mbar, %c0, %c0 : !llvm.ptr<3>, i32, i32
    %v = nvvm.tcgen05.ld %tmem {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
    nvvm.tcgen05.wait #nvvm.tcgen05_wait<load>
    %e0 = llvm.extractelement %v[%c0 : i32] : vector<32xi32>
    llvm.store %e0, %g : i32, !llvm.ptr<1>
    nvvm.tcgen05.dealloc %tmem, %ncols : !llvm.ptr<6>, i32
    llvm.return
  }
}
