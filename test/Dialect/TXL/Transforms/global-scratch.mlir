// RUN: txl-opt %s -split-input-file --txl-global-scratch | FileCheck %s --implicit-check-not=txl.warpgroup_id --implicit-check-not=txl.global_scratch

// Two descriptors built by a kernel of one warpgroup: the kernel gets the
// hidden parameter (2 sites x 1 warpgroup x 128 bytes per CTA), and each op
// its slot ((site * warpgroups + warpgroup) * CTAs + CTA) * 128, computed
// right before it; sites are numbered in program order.
// CHECK-LABEL: func.func @two_sites
// CHECK-SAME: (%[[A:[^:]*]]: !txl.ptr<bf16>, %[[M:[^:]*]]: i64, %[[S:[^:]*]]: !txl.ptr<i8> {txl.global_scratch = 256 : i64})
// CHECK-DAG: %[[SITE1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[SITE0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : i64
// CHECK: %[[NX:.*]] = txl.num_programs 0
// CHECK-NEXT: %[[NX64:.*]] = arith.extsi %[[NX]] : i32 to i64
// CHECK-NEXT: %[[NY:.*]] = txl.num_programs 1
// CHECK-NEXT: %[[NY64:.*]] = arith.extsi %[[NY]] : i32 to i64
// CHECK-NEXT: %[[NXY:.*]] = arith.muli %[[NX64]], %[[NY64]] : i64
// CHECK-NEXT: %[[NZ:.*]] = txl.num_programs 2
// CHECK-NEXT: %[[NZ64:.*]] = arith.extsi %[[NZ]] : i32 to i64
// CHECK-NEXT: %[[CTAS:.*]] = arith.muli %[[NXY]], %[[NZ64]] : i64
// CHECK-NEXT: %[[X:.*]] = txl.program_id 0
// CHECK-NEXT: %[[X64:.*]] = arith.extsi %[[X]] : i32 to i64
// CHECK-NEXT: %[[NXB:.*]] = txl.num_programs 0
// CHECK-NEXT: %[[NXB64:.*]] = arith.extsi %[[NXB]] : i32 to i64
// CHECK-NEXT: %[[Y:.*]] = txl.program_id 1
// CHECK-NEXT: %[[Y64:.*]] = arith.extsi %[[Y]] : i32 to i64
// CHECK-NEXT: %[[NYB:.*]] = txl.num_programs 1
// CHECK-NEXT: %[[NYB64:.*]] = arith.extsi %[[NYB]] : i32 to i64
// CHECK-NEXT: %[[Z:.*]] = txl.program_id 2
// CHECK-NEXT: %[[Z64:.*]] = arith.extsi %[[Z]] : i32 to i64
// CHECK-NEXT: %[[T0:.*]] = arith.muli %[[NYB64]], %[[Z64]] : i64
// CHECK-NEXT: %[[T1:.*]] = arith.addi %[[Y64]], %[[T0]] : i64
// CHECK-NEXT: %[[T2:.*]] = arith.muli %[[NXB64]], %[[T1]] : i64
// CHECK-NEXT: %[[CTA:.*]] = arith.addi %[[X64]], %[[T2]] : i64
// CHECK-NEXT: %[[WG:.*]] = txl.warpgroup_id
// CHECK-NEXT: %[[WG64:.*]] = arith.extsi %[[WG]] : i32 to i64
// CHECK-NEXT: %[[U0:.*]] = arith.addi %[[SITE0]], %[[WG64]] : i64
// CHECK-NEXT: %[[U1:.*]] = arith.muli %[[U0]], %[[CTAS]] : i64
// CHECK-NEXT: %[[U2:.*]] = arith.addi %[[U1]], %[[CTA]] : i64
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %[[U2]], %[[C128]] : i64
// CHECK-NEXT: %[[SLOT:.*]] = txl.addptr %[[S]], %[[OFF]] : !txl.ptr<i8>, i64
// CHECK-NEXT: txl.make_tensor_descriptor %[[A]], [%[[M]], %{{.*}}], [%{{.*}}, %{{.*}}], %[[SLOT]] : !txl.ptr<bf16>, !txl.ptr<i8> -> !txl.tensordesc<64x64xbf16>
// CHECK: txl.warpgroup_id
// CHECK: %[[V0:.*]] = arith.addi %[[SITE1]], %{{.*}} : i64
// CHECK-NEXT: %[[V1:.*]] = arith.muli %[[V0]], %{{.*}} : i64
// CHECK-NEXT: %[[V2:.*]] = arith.addi %[[V1]], %{{.*}} : i64
// CHECK-NEXT: %[[OFF2:.*]] = arith.muli %[[V2]], %[[C128]] : i64
// CHECK-NEXT: %[[SLOT2:.*]] = txl.addptr %[[S]], %[[OFF2]] : !txl.ptr<i8>, i64
// CHECK-NEXT: txl.make_tensor_descriptor %[[A]], {{.*}}, %[[SLOT2]] {nan_fill} : !txl.ptr<bf16>, !txl.ptr<i8> ->
module attributes {txl.target = "sm_90a"} {
  func.func @two_sites(%a: !txl.ptr<bf16>, %m: i64) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c1 = arith.constant 1 : i64
    %c64 = arith.constant 64 : i64
    %d = txl.make_tensor_descriptor %a, [%m, %c64], [%c64, %c1] : !txl.ptr<bf16> -> !txl.tensordesc<64x64xbf16>
    %e = txl.make_tensor_descriptor %a, [%m, %c64], [%c64, %c1] {nan_fill} : !txl.ptr<bf16> -> !txl.tensordesc<64x64xbf16>
    return
  }
}

// -----

// num_warps = 8 with one role on both warpgroups (txl.role_warps = 8, the
// Triton-style kernel whose warpgroups split a dot's M): the role's leader
// alone builds the descriptor, in the slot of warpgroup 0. The size still
// counts both warpgroups (1 site x 2 x 128).
// CHECK-LABEL: func.func @role_of_two_warpgroups
// CHECK-SAME: %{{[^:]*}}: !txl.ptr<i8> {txl.global_scratch = 256 : i64})
// CHECK-DAG: %[[SITE0:.*]] = arith.constant 0 : i64
// CHECK: txl.program_id 2
// CHECK: %[[WG:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[WG64:.*]] = arith.extsi %[[WG]] : i32 to i64
// CHECK-NEXT: arith.addi %[[SITE0]], %[[WG64]] : i64
// CHECK: txl.make_tensor_descriptor
module attributes {txl.target = "sm_90a"} {
  func.func @role_of_two_warpgroups(%a: !txl.ptr<bf16>, %m: i64) attributes {txl.kernel, txl.num_warps = 8 : i32, txl.role_warps = 8 : i32} {
    %c1 = arith.constant 1 : i64
    %c64 = arith.constant 64 : i64
    %d = txl.make_tensor_descriptor %a, [%m, %c64], [%c64, %c1] : !txl.ptr<bf16> -> !txl.tensordesc<64x64xbf16>
    return
  }
}

// -----

// Two warpgroups with roles of their own (a producer and a consumer): each
// warpgroup that runs the op builds its own copy, in its own slot; site 1's
// slots follow both of site 0's (2 sites x 2 warpgroups x 128).
// CHECK-LABEL: func.func @warpgroup_roles
// CHECK-SAME: %{{[^:]*}}: !txl.ptr<i8> {txl.global_scratch = 512 : i64})
// CHECK-DAG: %[[SITE0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[SITE1:.*]] = arith.constant 2 : i64
// CHECK: txl.is_warpgroup [0]
// CHECK: %[[WG:.*]] = txl.warpgroup_id
// CHECK-NEXT: %[[WG64:.*]] = arith.extsi %[[WG]] : i32 to i64
// CHECK-NEXT: arith.addi %[[SITE0]], %[[WG64]] : i64
// CHECK: txl.make_tensor_descriptor
// CHECK: txl.is_warpgroup [1]
// CHECK: %[[WGB:.*]] = txl.warpgroup_id
// CHECK-NEXT: %[[WGB64:.*]] = arith.extsi %[[WGB]] : i32 to i64
// CHECK-NEXT: arith.addi %[[SITE1]], %[[WGB64]] : i64
// CHECK: txl.make_tensor_descriptor
module attributes {txl.target = "sm_90a"} {
  func.func @warpgroup_roles(%a: !txl.ptr<bf16>, %m: i64) attributes {txl.kernel, txl.num_warps = 8 : i32} {
    %c1 = arith.constant 1 : i64
    %c64 = arith.constant 64 : i64
    %p0 = txl.is_warpgroup [0]
    scf.if %p0 {
      %d = txl.make_tensor_descriptor %a, [%m, %c64], [%c64, %c1] : !txl.ptr<bf16> -> !txl.tensordesc<64x64xbf16>
    }
    %p1 = txl.is_warpgroup [1]
    scf.if %p1 {
      %e = txl.make_tensor_descriptor %a, [%m, %c64], [%c64, %c1] : !txl.ptr<bf16> -> !txl.tensordesc<64x64xbf16>
    }
    return
  }
}

// -----

// A descriptor rebuilt in each iteration of a loop is one site: its slot is
// computed in the loop, right before it, and rewritten every iteration.
// CHECK-LABEL: func.func @in_a_loop
// CHECK-SAME: %{{[^:]*}}: !txl.ptr<i8> {txl.global_scratch = 128 : i64})
// CHECK: scf.for
// CHECK: txl.warpgroup_id
// CHECK: %[[SLOT:.*]] = txl.addptr
// CHECK-NEXT: txl.make_tensor_descriptor {{.*}}, %[[SLOT]] :
// CHECK-NEXT: }
// CHECK-NEXT: return
module attributes {txl.target = "sm_90a"} {
  func.func @in_a_loop(%a: !txl.ptr<bf16>, %m: i64, %n: i32) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1i = arith.constant 1 : i32
    %c1 = arith.constant 1 : i64
    %c64 = arith.constant 64 : i64
    scf.for %i = %c0 to %n step %c1i : i32 {
      %d = txl.make_tensor_descriptor %a, [%m, %c64], [%c64, %c1] : !txl.ptr<bf16> -> !txl.tensordesc<64x64xbf16>
    }
    return
  }
}

// -----

// No descriptor: the kernel is unchanged (no hidden parameter).
// CHECK-LABEL: func.func @no_descriptor
// CHECK-SAME: (%[[P:[^:]*]]: !txl.ptr<f32>, %[[X:[^:]*]]: f32) attributes {txl.kernel, txl.num_warps = 4 : i32} {
// CHECK-NEXT: txl.store %[[P]], %[[X]] : !txl.ptr<f32>, f32
// CHECK-NEXT: return
module attributes {txl.target = "sm_90a"} {
  func.func @no_descriptor(%p: !txl.ptr<f32>, %x: f32) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    txl.store %p, %x : !txl.ptr<f32>, f32
    return
  }
}

// -----

// A descriptor that already has its slot (IR written by hand) keeps it, and
// the kernel gets no parameter.
// CHECK-LABEL: func.func @given_slot
// CHECK-SAME: (%[[A:[^:]*]]: !txl.ptr<bf16>, %[[S:[^:]*]]: !txl.ptr<i8>, %[[M:[^:]*]]: i64) attributes
// CHECK-NOT: txl.addptr
// CHECK: txl.make_tensor_descriptor %[[A]], [%[[M]], %{{.*}}], [%{{.*}}, %{{.*}}], %[[S]] :
// CHECK-NEXT: return
module attributes {txl.target = "sm_90a"} {
  func.func @given_slot(%a: !txl.ptr<bf16>, %s: !txl.ptr<i8>, %m: i64) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c1 = arith.constant 1 : i64
    %c64 = arith.constant 64 : i64
    %d = txl.make_tensor_descriptor %a, [%m, %c64], [%c64, %c1], %s : !txl.ptr<bf16>, !txl.ptr<i8> -> !txl.tensordesc<64x64xbf16>
    return
  }
}

// -----

// A cluster kernel (txl.num_ctas = 2): a program is a cluster, so the CTAs of
// one cluster would share the slot program_id gives; each takes its own,
// CTA * 2 + cta_rank of CTAs * 2 (the launcher allocates per CTA of the
// hardware grid).
// CHECK-LABEL: func.func @cluster_of_two
// CHECK-SAME: {txl.global_scratch = 128 : i64}
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK: %[[NZ:.*]] = txl.num_programs 2
// CHECK-NEXT: %[[NZ64:.*]] = arith.extsi %[[NZ]] : i32 to i64
// CHECK-NEXT: %[[CTAS:.*]] = arith.muli %{{.*}}, %[[NZ64]] : i64
// CHECK: txl.program_id 2
// CHECK-NEXT: arith.extsi
// CHECK-NEXT: arith.muli
// CHECK-NEXT: arith.addi
// CHECK-NEXT: arith.muli
// CHECK-NEXT: %[[CTA:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: %[[CTAS2:.*]] = arith.muli %[[CTAS]], %[[TWO]] : i64
// CHECK-NEXT: %[[RANK:.*]] = txl.cta_rank
// CHECK-NEXT: %[[RANK64:.*]] = arith.extsi %[[RANK]] : i32 to i64
// CHECK-NEXT: %[[CTA2:.*]] = arith.muli %[[CTA]], %[[TWO]] : i64
// CHECK-NEXT: %[[CTA3:.*]] = arith.addi %[[CTA2]], %[[RANK64]] : i64
// CHECK-NEXT: txl.warpgroup_id
// CHECK-NEXT: arith.extsi
// CHECK-NEXT: %[[U0:.*]] = arith.addi
// CHECK-NEXT: %[[U1:.*]] = arith.muli %[[U0]], %[[CTAS2]] : i64
// CHECK-NEXT: %[[U2:.*]] = arith.addi %[[U1]], %[[CTA3]] : i64
// CHECK: txl.make_tensor_descriptor
module attributes {txl.target = "sm_90a"} {
  func.func @cluster_of_two(%a: !txl.ptr<bf16>, %m: i64) attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_ctas = 2 : i32} {
    %c1 = arith.constant 1 : i64
    %c64 = arith.constant 64 : i64
    %d = txl.make_tensor_descriptor %a, [%m, %c64], [%c64, %c1] : !txl.ptr<bf16> -> !txl.tensordesc<64x64xbf16>
    return
  }
}
