// RUN: txl-opt %s -txl-lower-tile-copies -split-input-file -verify-diagnostics | FileCheck %s --implicit-check-not=txl.desc_load --implicit-check-not=txl.desc_store

// txl-lower-tile-copies: how the Triton-style tiles that the loop pipeliner
// did not take travel. desc_load: a staging buffer and an mbarrier of its own
// at the kernel's entry (a stage per warpgroup that runs it), TMA, wait,
// smem_load; in loops a group sync before the reuse and the phase carried as
// an i32 through every enclosing scf.for / scf.while / scf.if. desc_store:
// registers -> staging buffer -> TMA store, waited. txl.dot: an operand that
// is a register copy of a staging buffer is read from it; another register B
// is staged; such dots run synchronously.

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// At the top level the op runs once: a fresh buffer, phase 0, no sync.
// CHECK-LABEL: func.func @top_level
// CHECK-SAME: (%[[A:.*]]: !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, %[[X:.*]]: i32)
// CHECK:      %[[PHASE:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[BUF:.*]] = txl.smem_alloc {txl.staging} : !txl.smem<64x64xbf16, stages = 1, #txl.nvmma_shared<swizzle = 128>>
// CHECK-NEXT: %[[BARS:.*]] = txl.mbar_alloc count 1 : !txl.mbar<1>
// CHECK-NEXT: %[[STAGE:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[V:.*]] = txl.get_buffer %[[BUF]][%[[STAGE]]] : !txl.smem<64x64xbf16, stages = 1, #txl.nvmma_shared<swizzle = 128>>
// CHECK-NEXT: %[[B:.*]] = txl.get_buffer %[[BARS]][%[[STAGE]]] : !txl.mbar<1>
// CHECK-NEXT: txl.mbar_expect %[[B]], 8192
// CHECK-NEXT: txl.tma_load %[[A]][%[[X]], %[[X]]], %[[V]], %[[B]] : !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
// CHECK-NEXT: txl.mbar_wait %[[B]], %[[PHASE]] : i32
// CHECK-NEXT: %[[T:.*]] = txl.smem_load %[[V]] : !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>> -> tensor<64x64xbf16>
// CHECK-NEXT: return %[[T]]
// CHECK-NOT: txl.bar_wait
module attributes {txl.target = "sm_90a"} {
  func.func @top_level(%a: !desc, %x: i32) -> tensor<64x64xbf16> attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %t = txl.desc_load %a[%x, %x] : !desc -> tensor<64x64xbf16>
    return %t : tensor<64x64xbf16>
  }
}

// -----

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// In a loop: the phase is an iter_arg (0 on entry), the CTA syncs before the
// leader re-arms the mbarrier (slow threads may still read the previous
// tile), the wait uses the carried phase, which is flipped and yielded.
// CHECK-LABEL: func.func @in_for
// CHECK:      %[[PHASE0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[BUF:.*]] = txl.smem_alloc {txl.staging} : !txl.smem<64x64xbf16, stages = 1
// CHECK-NEXT: %[[BARS:.*]] = txl.mbar_alloc count 1 : !txl.mbar<1>
// CHECK:      %[[R:.*]]:2 = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[PHASE:.*]] = %[[PHASE0]]) -> (tensor<64x64xbf16>, i32)
// CHECK:        %[[V:.*]] = txl.get_buffer %[[BUF]]
// CHECK-NEXT:   %[[B:.*]] = txl.get_buffer %[[BARS]]
// CHECK-NEXT:   txl.bar_wait 0, 128
// CHECK-NEXT:   txl.mbar_expect %[[B]], 8192
// CHECK-NEXT:   txl.tma_load %{{.*}}[%{{.*}}, %[[I]]], %[[V]], %[[B]]
// CHECK-NEXT:   txl.mbar_wait %[[B]], %[[PHASE]] : i32
// CHECK-NEXT:   %[[T:.*]] = txl.smem_load %[[V]]
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:   %[[FLIP:.*]] = arith.xori %[[PHASE]], %[[ONE]] : i32
// CHECK-NEXT:   %[[S:.*]] = arith.addf %[[ACC]], %[[T]]
// CHECK-NEXT:   scf.yield %[[S]], %[[FLIP]] : tensor<64x64xbf16>, i32
// CHECK:      return %[[R]]#0
module attributes {txl.target = "sm_90a"} {
  func.func @in_for(%a: !desc, %k: i32) -> tensor<64x64xbf16> attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xbf16>
    %r = scf.for %i = %c0 to %k step %c64 iter_args(%acc = %z) -> (tensor<64x64xbf16>) : i32 {
      %t = txl.desc_load %a[%c0, %i] : !desc -> tensor<64x64xbf16>
      %s = arith.addf %acc, %t : tensor<64x64xbf16>
      scf.yield %s : tensor<64x64xbf16>
    }
    return %r : tensor<64x64xbf16>
  }
}

// -----

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// Under an scf.if in a loop: the if carries the phase too; the branch that
// loads yields the flipped phase, the other one passes it through.
// CHECK-LABEL: func.func @in_if_in_for
// CHECK:      %[[PHASE0:.*]] = arith.constant 0 : i32
// CHECK:      %[[R:.*]]:2 = scf.for %[[I:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[PHASE:.*]] = %[[PHASE0]]) -> (tensor<64x64xbf16>, i32)
// CHECK:        %[[IF:.*]]:2 = scf.if %{{.*}} -> (tensor<64x64xbf16>, i32) {
// CHECK:          txl.bar_wait 0, 128
// CHECK-NEXT:     txl.mbar_expect
// CHECK-NEXT:     txl.tma_load
// CHECK-NEXT:     txl.mbar_wait %{{.*}}, %[[PHASE]] : i32
// CHECK-NEXT:     %[[T:.*]] = txl.smem_load
// CHECK:          %[[FLIP:.*]] = arith.xori %[[PHASE]], %{{.*}} : i32
// CHECK-NEXT:     scf.yield %[[T]], %[[FLIP]] : tensor<64x64xbf16>, i32
// CHECK-NEXT:   } else {
// CHECK-NEXT:     scf.yield %[[ACC]], %[[PHASE]] : tensor<64x64xbf16>, i32
// CHECK-NEXT:   }
// CHECK-NEXT:   scf.yield %[[IF]]#0, %[[IF]]#1 : tensor<64x64xbf16>, i32
module attributes {txl.target = "sm_90a"} {
  func.func @in_if_in_for(%a: !desc, %k: i32) -> tensor<64x64xbf16> attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xbf16>
    %r = scf.for %i = %c0 to %k step %c64 iter_args(%acc = %z) -> (tensor<64x64xbf16>) : i32 {
      %c = arith.cmpi sgt, %i, %c64 : i32
      %v = scf.if %c -> (tensor<64x64xbf16>) {
        %t = txl.desc_load %a[%c0, %i] : !desc -> tensor<64x64xbf16>
        scf.yield %t : tensor<64x64xbf16>
      } else {
        scf.yield %acc : tensor<64x64xbf16>
      }
      scf.yield %v : tensor<64x64xbf16>
    }
    return %r : tensor<64x64xbf16>
  }
}

// -----

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// Two loads in nested loops: one phase per op, each carried through both
// loops (the outer loop's iter_args feed the inner loop's).
// CHECK-LABEL: func.func @nested_two_loads
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[P0:.*]] = %{{.*}}, %[[P1:.*]] = %{{.*}}) -> (tensor<64x64xbf16>, i32, i32)
// CHECK:   scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[Q0:.*]] = %[[P0]], %[[Q1:.*]] = %[[P1]]) -> (tensor<64x64xbf16>, i32, i32)
// CHECK:     txl.mbar_wait %{{.*}}, %[[Q0]] : i32
// CHECK:     %[[F0:.*]] = arith.xori %[[Q0]]
// CHECK:     txl.mbar_wait %{{.*}}, %[[Q1]] : i32
// CHECK:     %[[F1:.*]] = arith.xori %[[Q1]]
// CHECK:     scf.yield %{{.*}}, %[[F0]], %[[F1]] : tensor<64x64xbf16>, i32, i32
// CHECK:   scf.yield %[[IN:.*]]#0, %[[IN]]#1, %[[IN]]#2 : tensor<64x64xbf16>, i32, i32
module attributes {txl.target = "sm_90a"} {
  func.func @nested_two_loads(%a: !desc, %b: !desc, %m: i32, %k: i32) -> tensor<64x64xbf16> attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xbf16>
    %r = scf.for %i = %c0 to %m step %c64 iter_args(%acc = %z) -> (tensor<64x64xbf16>) : i32 {
      %r2 = scf.for %j = %c0 to %k step %c64 iter_args(%acc2 = %acc) -> (tensor<64x64xbf16>) : i32 {
        %ta = txl.desc_load %a[%i, %j] : !desc -> tensor<64x64xbf16>
        %tb = txl.desc_load %b[%j, %i] : !desc -> tensor<64x64xbf16>
        %s = arith.addf %ta, %tb : tensor<64x64xbf16>
        %s2 = arith.addf %acc2, %s : tensor<64x64xbf16>
        scf.yield %s2 : tensor<64x64xbf16>
      }
      scf.yield %r2 : tensor<64x64xbf16>
    }
    return %r : tensor<64x64xbf16>
  }
}

// -----

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// Two warpgroups (num_warps = 8) run top-level code: each gets its own stage
// of the buffer and of the mbarrier (indexed by txl.warpgroup_id), and the
// sync before a reuse covers the 256 threads.
// CHECK-LABEL: func.func @two_warpgroups
// CHECK:      %[[BUF:.*]] = txl.smem_alloc {txl.staging} : !txl.smem<64x64xbf16, stages = 2, #txl.nvmma_shared<swizzle = 128>>
// CHECK-NEXT: %[[BARS:.*]] = txl.mbar_alloc count 1 : !txl.mbar<2>
// CHECK:      scf.for
// CHECK:        %[[WG:.*]] = txl.warpgroup_id
// CHECK-NEXT:   %[[V:.*]] = txl.get_buffer %[[BUF]][%[[WG]]] : !txl.smem<64x64xbf16, stages = 2, #txl.nvmma_shared<swizzle = 128>>
// CHECK-NEXT:   %[[B:.*]] = txl.get_buffer %[[BARS]][%[[WG]]] : !txl.mbar<2>
// CHECK-NEXT:   txl.bar_wait 0, 256
// CHECK-NEXT:   txl.mbar_expect %[[B]], 8192
module attributes {txl.target = "sm_90a"} {
  func.func @two_warpgroups(%a: !desc, %k: i32) -> tensor<64x64xbf16> attributes {txl.kernel, txl.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xbf16>
    %r = scf.for %i = %c0 to %k step %c64 iter_args(%acc = %z) -> (tensor<64x64xbf16>) : i32 {
      %t = txl.desc_load %a[%c0, %i] : !desc -> tensor<64x64xbf16>
      %s = arith.addf %acc, %t : tensor<64x64xbf16>
      scf.yield %s : tensor<64x64xbf16>
    }
    return %r : tensor<64x64xbf16>
  }
}

// -----

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// In an `if txl.is_warpgroup([1, 2])` region of a 3-warpgroup kernel: a stage
// for each of warpgroups 1 and 2 (stage = warpgroup_id - 1); barrier 0 would
// wait for warpgroup 0, which never comes, so the sync is the warpgroup's own
// (txl.tma_store_wait 0). The phase is carried out of the role's if.
// The desc_store in the region is staged per warpgroup too.
// CHECK-LABEL: func.func @warpgroup_region
// CHECK:      %[[SBUF:.*]] = txl.smem_alloc {txl.staging} : !txl.smem<64x64xbf16, stages = 2
// CHECK:      %[[BUF:.*]] = txl.smem_alloc {txl.staging} : !txl.smem<64x64xbf16, stages = 2
// CHECK-NEXT: %[[BARS:.*]] = txl.mbar_alloc count 1 : !txl.mbar<2>
// CHECK:      %[[ROLE:.*]] = txl.is_warpgroup [1, 2]
// CHECK-NEXT: %{{.*}} = scf.if %[[ROLE]] -> (i32) {
// CHECK:        %[[R:.*]]:2 = scf.for
// CHECK:          %[[WG:.*]] = txl.warpgroup_id
// CHECK-NEXT:     %[[FIRST:.*]] = arith.constant 1 : i32
// CHECK-NEXT:     %[[ST:.*]] = arith.subi %[[WG]], %[[FIRST]] : i32
// CHECK-NEXT:     %[[V:.*]] = txl.get_buffer %[[BUF]][%[[ST]]]
// CHECK-NEXT:     %[[B:.*]] = txl.get_buffer %[[BARS]][%[[ST]]]
// CHECK-NEXT:     txl.tma_store_wait 0
// CHECK-NEXT:     txl.mbar_expect %[[B]], 8192
// CHECK:        %[[WG2:.*]] = txl.warpgroup_id
// CHECK:        %[[ST2:.*]] = arith.subi %[[WG2]], %{{.*}} : i32
// CHECK-NEXT:   %[[SV:.*]] = txl.get_buffer %[[SBUF]][%[[ST2]]]
// CHECK-NEXT:   txl.tma_store_wait 0
// CHECK-NEXT:   txl.smem_store %[[R]]#0, %[[SV]]
// CHECK-NEXT:   txl.fence_proxy_async
// CHECK-NEXT:   txl.tma_store %[[SV]], %{{.*}}[%{{.*}}, %{{.*}}]
// CHECK-NEXT:   txl.tma_store_wait 0
// CHECK-NEXT:   scf.yield %[[R]]#1 : i32
// CHECK-NEXT: } else {
// CHECK-NEXT:   scf.yield %{{.*}} : i32
// CHECK-NOT: txl.bar_wait
module attributes {txl.target = "sm_90a"} {
  func.func @warpgroup_region(%a: !desc, %k: i32, %o: !desc) attributes {txl.kernel, txl.num_warps = 12 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xbf16>
    %wg = txl.is_warpgroup [1, 2]
    scf.if %wg {
      %r = scf.for %i = %c0 to %k step %c64 iter_args(%acc = %z) -> (tensor<64x64xbf16>) : i32 {
        %t = txl.desc_load %a[%c0, %i] : !desc -> tensor<64x64xbf16>
        %s = arith.addf %acc, %t : tensor<64x64xbf16>
        scf.yield %s : tensor<64x64xbf16>
      }
      txl.desc_store %o[%c0, %c0], %r : !desc, tensor<64x64xbf16>
    }
    return
  }
}

// -----

!desc = !txl.tensordesc<64x64xf32, #txl.nvmma_shared<swizzle = 128>>

// desc_store: wait for this warpgroup's previous bulk store (the buffer may
// still be read), registers to the staging buffer, fence.proxy.async, TMA
// store, wait (the op is complete when it returns).
// CHECK-LABEL: func.func @store
// CHECK-SAME: (%[[O:.*]]: !txl.tensordesc<64x64xf32, #txl.nvmma_shared<swizzle = 128>>, %[[X:.*]]: i32, %[[T:.*]]: tensor<64x64xf32>)
// CHECK:      %[[BUF:.*]] = txl.smem_alloc {txl.staging} : !txl.smem<64x64xf32, stages = 1, #txl.nvmma_shared<swizzle = 128>>
// CHECK:      %[[V:.*]] = txl.get_buffer %[[BUF]][%{{.*}}] : !txl.smem<64x64xf32, stages = 1, #txl.nvmma_shared<swizzle = 128>>
// CHECK-NEXT: txl.tma_store_wait 0
// CHECK-NEXT: txl.smem_store %[[T]], %[[V]] : tensor<64x64xf32>, !txl.smem<64x64xf32, #txl.nvmma_shared<swizzle = 128>>
// CHECK-NEXT: txl.fence_proxy_async
// CHECK-NEXT: txl.tma_store %[[V]], %[[O]][%[[X]], %[[X]]] : !txl.smem<64x64xf32, #txl.nvmma_shared<swizzle = 128>>, !txl.tensordesc<64x64xf32, #txl.nvmma_shared<swizzle = 128>>
// CHECK-NEXT: txl.tma_store_wait 0
// CHECK-NEXT: return
// CHECK-NOT: txl.mbar
module attributes {txl.target = "sm_90a"} {
  func.func @store(%o: !desc, %x: i32, %t: tensor<64x64xf32>) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    txl.desc_store %o[%x, %x], %t : !desc, tensor<64x64xf32>
    return
  }
}

// -----

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// A dot on desc_load tiles reads their staging buffers (SS wgmma): B through
// txl.trans becomes a transposed view (txl.smem_trans), the register copies
// are dropped, and the dot runs synchronously (the next execution of the
// loads overwrites the buffers). A register B that is no such copy is staged
// in a buffer of its own: sync, store, fence, sync.
// CHECK-LABEL: func.func @dot_operands
// CHECK-SAME: (%[[A:[^:]*]]: !txl.tensordesc{{.*}}, %[[B:[^:]*]]: !txl.tensordesc{{.*}}, %[[X:[^:]*]]: i32, %[[RB:[^:]*]]: tensor<64x64xbf16>)
// CHECK:      %[[BSTAGE:.*]] = txl.smem_alloc {txl.staging} : !txl.smem<64x64xbf16, stages = 1, #txl.nvmma_shared<swizzle = 128>>
// CHECK:      %[[BBUF:.*]] = txl.smem_alloc {txl.staging} : !txl.smem<64x64xbf16, stages = 1, #txl.nvmma_shared<swizzle = 128>>
// CHECK:      %[[ABUF:.*]] = txl.smem_alloc {txl.staging} : !txl.smem<64x64xbf16, stages = 1, #txl.nvmma_shared<swizzle = 128>>
// CHECK:      %[[AV:.*]] = txl.get_buffer %[[ABUF]]
// CHECK:      txl.tma_load %[[A]][%[[X]], %[[X]]], %[[AV]]
// CHECK:      %[[BV:.*]] = txl.get_buffer %[[BBUF]]
// CHECK:      txl.tma_load %[[B]][%[[X]], %[[X]]], %[[BV]]
// CHECK-NEXT: txl.mbar_wait
// CHECK-NEXT: %[[BT:.*]] = txl.smem_trans %[[BV]] [1, 0] : !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>> -> !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>
// CHECK-NEXT: %[[D:.*]] = txl.dot %[[AV]], %[[BT]], %{{.*}} : !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>, tensor<64x64xf32>
// CHECK-NEXT: %[[W:.*]] = txl.dot_wait 0, %[[D]]
// CHECK:      %[[SV:.*]] = txl.get_buffer %[[BSTAGE]]
// CHECK-NEXT: txl.bar_wait 0, 128
// CHECK-NEXT: txl.smem_store %[[RB]], %[[SV]] : tensor<64x64xbf16>, !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
// CHECK-NEXT: txl.fence_proxy_async
// CHECK-NEXT: txl.bar_wait 0, 128
// CHECK-NEXT: txl.dot %[[AV]], %[[SV]], %[[W]] : !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, tensor<64x64xf32>
// CHECK-NOT: txl.smem_load
// CHECK-NOT: txl.trans
// CHECK-NOT: {async}
module attributes {txl.target = "sm_90a"} {
  func.func @dot_operands(%a: !desc, %b: !desc, %x: i32, %rb: tensor<64x64xbf16>) -> tensor<64x64xf32> attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %ta = txl.desc_load %a[%x, %x] : !desc -> tensor<64x64xbf16>
    %tb = txl.desc_load %b[%x, %x] : !desc -> tensor<64x64xbf16>
    %tbt = txl.trans %tb, [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %d = txl.dot %ta, %tbt, %z {async} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    %w = txl.dot_wait 0, %d : tensor<64x64xf32>
    %e = txl.dot %ta, %rb, %w {async} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    %w2 = txl.dot_wait 0, %e : tensor<64x64xf32>
    return %w2 : tensor<64x64xf32>
  }
}

// -----

!view = !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
!buf = !txl.smem<64x64xbf16, stages = 1, #txl.nvmma_shared<swizzle = 128>>
!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// The register copy of a staging buffer is not read from the buffer when the
// buffer is written between the copy and the dot (the copy holds the old
// tile): A stays in registers, B is staged in a buffer of its own. A ring
// (txl.ring) read keeps the dot's async: the pipeliner retires it.
// CHECK-LABEL: func.func @overwritten_and_ring
// CHECK:      %[[BSTAGE:.*]] = txl.smem_alloc {txl.staging}
// CHECK:      %[[STAGING:.*]] = txl.smem_alloc {txl.staging}
// CHECK:      %[[RING:.*]] = txl.smem_alloc {txl.ring}
// CHECK:      %[[V:.*]] = txl.get_buffer %[[STAGING]]
// CHECK-NEXT: %[[OLD:.*]] = txl.smem_load %[[V]]
// CHECK-NEXT: txl.tma_load %{{.*}}, %[[V]], %{{.*}}
// CHECK:      %[[SV:.*]] = txl.get_buffer %[[BSTAGE]]
// CHECK:      txl.smem_store %[[OLD]], %[[SV]]
// CHECK:      %[[D:.*]] = txl.dot %[[OLD]], %[[SV]], %{{.*}} : tensor<64x64xbf16>, !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, tensor<64x64xf32>
// CHECK-NEXT: %[[RV:.*]] = txl.get_buffer %[[RING]]
// CHECK-NEXT: txl.dot %[[RV]], %[[RV]], %[[D]] {async} : !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, tensor<64x64xf32>
module attributes {txl.target = "sm_90a"} {
  func.func @overwritten_and_ring(%d: !desc, %x: i32) -> tensor<64x64xf32> attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %buf = txl.smem_alloc {txl.staging} : !buf
    %ring = txl.smem_alloc {txl.ring} : !buf
    %bars = txl.mbar_alloc count 1 : !txl.mbar<1>
    %bar = txl.get_buffer %bars[%c0] : !txl.mbar<1>
    %v = txl.get_buffer %buf[%c0] : !buf
    %old = txl.smem_load %v : !view -> tensor<64x64xbf16>
    txl.tma_load %d[%x, %x], %v, %bar : !desc, !view
    %e = txl.dot %old, %old, %z {async} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    %rv = txl.get_buffer %ring[%c0] : !buf
    %r = txl.smem_load %rv : !view -> tensor<64x64xbf16>
    %f = txl.dot %r, %r, %e {async} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    %w = txl.dot_wait 0, %f : tensor<64x64xf32>
    return %w : tensor<64x64xf32>
  }
}

// -----

!ring = !txl.smem<64x64xbf16, stages = 2, #txl.nvmma_shared<swizzle = 128>>
!view = !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// A register A computed before the loops that read it (attention's Q): stored
// once, right before the first loop (after the loop's prologue copies, which
// so overlap with A's own loads), to a buffer of its own (CTA sync, store,
// fence, sync) that the dots of both loops read; they stay async. A register
// A computed in the loop (P) stays in registers.
// CHECK-LABEL: func.func @invariant_a
// CHECK:      %[[QBUF:.*]] = txl.smem_alloc {txl.staging} : !txl.smem<64x64xbf16, stages = 1, #txl.nvmma_shared<swizzle = 128>>
// CHECK:      %[[Q:.*]] = arith.addf
// CHECK-NEXT: txl.get_buffer %{{.*}}[%c1_i32]
// CHECK-NEXT: txl.async_load
// CHECK-NEXT: %[[ST:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[QV:.*]] = txl.get_buffer %[[QBUF]][%[[ST]]]
// CHECK-NEXT: txl.bar_wait 0, 128
// CHECK-NEXT: txl.smem_store %[[Q]], %[[QV]]
// CHECK-NEXT: txl.fence_proxy_async
// CHECK-NEXT: txl.bar_wait 0, 128
// CHECK:      scf.for
// CHECK:        txl.dot %[[QV]], %{{.*}}, %{{.*}} {async} : !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, tensor<64x64xf32>
// CHECK:        %[[P:.*]] = arith.truncf
// CHECK:        txl.dot %[[P]], %{{.*}}, %{{.*}} {async} : tensor<64x64xbf16>, !txl.smem
// CHECK:      scf.for
// CHECK:        txl.dot %[[QV]], %{{.*}}, %{{.*}} {async} : !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>
// CHECK-NOT:  txl.smem_store
module attributes {txl.target = "sm_90a"} {
  func.func @invariant_a(%q0: tensor<64x64xbf16>, %n: i32, %kp: tensor<64x64x!txl.ptr<bf16>>) -> tensor<64x64xf32> attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %ring = txl.smem_alloc {txl.ring} : !ring
    %q = arith.addf %q0, %q0 : tensor<64x64xbf16>
    %slot1 = txl.get_buffer %ring[%c1] : !ring
    txl.async_load %kp, %slot1 : tensor<64x64x!txl.ptr<bf16>>, !view
    %r1 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %kv = txl.get_buffer %ring[%c0] : !ring
      %k = txl.smem_load %kv : !view -> tensor<64x64xbf16>
      %s = txl.dot %q, %k, %z {async} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      %sw = txl.dot_wait 0, %s : tensor<64x64xf32>
      %p = arith.truncf %sw : tensor<64x64xf32> to tensor<64x64xbf16>
      %o = txl.dot %p, %k, %acc {async} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %o : tensor<64x64xf32>
    }
    %r2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %r1) -> (tensor<64x64xf32>) : i32 {
      %kv = txl.get_buffer %ring[%c0] : !ring
      %k = txl.smem_load %kv : !view -> tensor<64x64xbf16>
      %s = txl.dot %q, %k, %acc {async} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %s : tensor<64x64xf32>
    }
    %w = txl.dot_wait 0, %r2 : tensor<64x64xf32>
    return %w : tensor<64x64xf32>
  }
}

// -----

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// In a loop of a txl.is_warp region only some warps of the warpgroup run:
// no warpgroup-wide sync can protect the reused buffer.
module attributes {txl.target = "sm_90a"} {
  func.func @in_is_warp_loop(%a: !desc, %k: i32) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %w = txl.is_warp [0]
    scf.if %w {
      scf.for %i = %c0 to %k step %c64 : i32 {
        // expected-error @+1 {{'txl.desc_load' op inside a loop in a `txl.is_warp` region: reusing its staging buffer needs a sync of the whole warpgroup that issues the TMA, which such a region does not run; load in an `if txl.is_warpgroup([...])` region, or write the copy with txl.smem_alloc, txl.mbar_alloc, txl.mbar_expect, txl.tma_load and txl.mbar_wait(bar, phase) with a phase you flip each iteration}}
        %t = txl.desc_load %a[%c0, %i] : !desc -> tensor<64x64xbf16>
        %p = txl.make_range 0, 64 : tensor<64xi32>
      }
    }
    return
  }
}

// -----

// A register B in a txl.is_warp region cannot be staged (no warpgroup sync).
module attributes {txl.target = "sm_90a"} {
  func.func @dot_in_is_warp(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %w = txl.is_warp [0]
    %r = scf.if %w -> (tensor<64x64xf32>) {
      // expected-error @+1 {{'txl.dot' op B is a register tile in a `txl.is_warp` region: staging it in shared memory needs a sync of the whole warpgroup; run the dot in an `if txl.is_warpgroup([...])` region, or store B to a txl.smem_alloc buffer yourself}}
      %d = txl.dot %a, %b, %z : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    } else {
      scf.yield %z : tensor<64x64xf32>
    }
    return %r : tensor<64x64xf32>
  }
}

// -----

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// The phase can only be carried through scf.for, scf.while and scf.if.
module attributes {txl.target = "sm_90a"} {
  func.func @in_execute_region(%a: !desc, %k: i32) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    scf.for %i = %c0 to %k step %c64 : i32 {
      scf.execute_region {
        // expected-error @+1 {{'txl.desc_load' op cannot carry its state (an mbarrier phase or a ring slot) through the enclosing 'scf.execute_region'; only scf.for, scf.while and scf.if may enclose it}}
        %t = txl.desc_load %a[%c0, %i] : !desc -> tensor<64x64xbf16>
        scf.yield
      }
    }
    return
  }
}

// -----

// mma.sync (M = 16 on 4 warps) keeps its register operands, but a
// loop-invariant A that every warp would hold whole for the loop (MLA
// decoding's 16 x 512 q: 128 registers a thread) is stored once before the
// loop and read from shared memory by the dot; a small one (16 x 64: 16
// registers) and the loop's own P stay in registers.
// CHECK-LABEL: func.func @invariant_a_mma_sync
// CHECK:      %[[QBUF:.*]] = txl.smem_alloc {txl.staging} : !txl.smem<16x512xbf16, stages = 1, #txl.nvmma_shared<swizzle = 128>>
// CHECK:      %[[QV:.*]] = txl.get_buffer %[[QBUF]]
// CHECK-NEXT: txl.bar_wait 0, 128
// CHECK-NEXT: txl.smem_store %{{.*}}, %[[QV]]
// CHECK:      scf.for
// CHECK:        txl.dot %[[QV]], %{{.*}}, %{{.*}} : !txl.smem<16x512xbf16, #txl.nvmma_shared<swizzle = 128>>, tensor<512x32xbf16>, tensor<16x32xf32>
// CHECK:        txl.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x64xbf16>, tensor<64x32xbf16>
// CHECK:        txl.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x32xbf16>, tensor<32x512xbf16>
module attributes {txl.target = "sm_90a"} {
  func.func @invariant_a_mma_sync(%q: tensor<16x512xbf16>, %qpe: tensor<16x64xbf16>, %n: i32, %c: tensor<512x32xbf16>, %kpe: tensor<64x32xbf16>, %v: tensor<32x512xbf16>) -> tensor<16x512xf32> attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zs = arith.constant dense<0.0> : tensor<16x32xf32>
    %z = arith.constant dense<0.0> : tensor<16x512xf32>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<16x512xf32>) : i32 {
      %s0 = txl.dot %q, %c, %zs : tensor<16x512xbf16>, tensor<512x32xbf16>, tensor<16x32xf32>
      %s = txl.dot %qpe, %kpe, %s0 : tensor<16x64xbf16>, tensor<64x32xbf16>, tensor<16x32xf32>
      %p = arith.truncf %s : tensor<16x32xf32> to tensor<16x32xbf16>
      %o = txl.dot %p, %v, %acc : tensor<16x32xbf16>, tensor<32x512xbf16>, tensor<16x512xf32>
      scf.yield %o : tensor<16x512xf32>
    }
    return %r : tensor<16x512xf32>
  }
}

// -----

!desc = !txl.tensordesc<64x64xf32, #txl.nvmma_shared<swizzle = 128>>

// TXL's role split `if txl.warpgroup_id() == 0: ... else: ...` in a kernel of
// two warpgroups (each its own role): the store in the then region runs on
// warpgroup 0 only, the one in the else region on warpgroup 1 only; each gets
// a one-stage buffer (not one stage per warpgroup) and syncs on its own bulk
// stores (a CTA barrier would wait for the other role).
// CHECK-LABEL: func.func @role_split
// CHECK:      %[[B1:.*]] = txl.smem_alloc {txl.staging} : !txl.smem<64x64xf32, stages = 1
// CHECK:      %[[B0:.*]] = txl.smem_alloc {txl.staging} : !txl.smem<64x64xf32, stages = 1
// CHECK:      scf.if
// CHECK:        txl.get_buffer %[[B0]]
// CHECK-NEXT:   txl.tma_store_wait 0
// CHECK:      } else {
// CHECK:        txl.get_buffer %[[B1]]
// CHECK-NEXT:   txl.tma_store_wait 0
// CHECK-NOT:  txl.bar_wait
module attributes {txl.target = "sm_90a"} {
  func.func @role_split(%o: !desc, %x: i32, %t: tensor<64x64xf32>) attributes {txl.kernel, txl.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %wg = txl.warpgroup_id
    %first = arith.cmpi eq, %wg, %c0 : i32
    scf.if %first {
      txl.desc_store %o[%x, %x], %t : !desc, tensor<64x64xf32>
    } else {
      txl.desc_store %o[%x, %c0], %t : !desc, tensor<64x64xf32>
    }
    return
  }
}

// -----

!view = !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// An A the kernel itself read from one of its buffers before the loop
// (TXL's MLA: rQpe = txl.smem_load(bQpe)) stays in registers, as TXL runs it
// (RS wgmma): no second buffer, no store.
// CHECK-LABEL: func.func @user_loaded_a
// CHECK-NOT:  txl.smem_alloc {txl.staging}
// CHECK:      %[[Q:.*]] = txl.smem_load
// CHECK:      scf.for
// CHECK:        txl.dot %[[Q]], %{{.*}}, %{{.*}} {async} : tensor<64x64xbf16>, !txl.smem
// CHECK-NOT:  txl.smem_store
module attributes {txl.target = "sm_90a"} {
  func.func @user_loaded_a(%qv: !view, %kv: !view, %n: i32) -> tensor<64x64xf32> attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %q = txl.smem_load %qv : !view -> tensor<64x64xbf16>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %s = txl.dot %q, %kv, %acc {async} : tensor<64x64xbf16>, !view, tensor<64x64xf32>
      scf.yield %s : tensor<64x64xf32>
    }
    %w = txl.dot_wait 0, %r : tensor<64x64xf32>
    return %w : tensor<64x64xf32>
  }
}

// -----

!desc = !txl.tensordesc<64x64xf32, #txl.nvmma_shared<swizzle = 128>>

// The same split in a kernel of three warpgroups (TXL's tawa attention: the
// producer is warpgroup 0, the consumers the else region): the else region's
// store runs on warpgroups 1 and 2, two stages (stage = warpgroup_id - 1),
// each syncing on its own bulk stores. Before, it took three stages and a CTA
// barrier, which waited for the producer forever.
// CHECK-LABEL: func.func @role_split_three
// CHECK:      %[[B:.*]] = txl.smem_alloc {txl.staging} : !txl.smem<64x64xf32, stages = 2
// CHECK:      } else {
// CHECK:        %[[WG:.*]] = txl.warpgroup_id
// CHECK:        %[[ST:.*]] = arith.subi %[[WG]], %c1
// CHECK:        txl.get_buffer %[[B]][%[[ST]]]
// CHECK-NEXT:   txl.tma_store_wait 0
// CHECK-NOT:  txl.bar_wait
module attributes {txl.target = "sm_90a"} {
  func.func @role_split_three(%o: !desc, %x: i32, %t: tensor<64x64xf32>) attributes {txl.kernel, txl.num_warps = 12 : i32} {
    %c0 = arith.constant 0 : i32
    %wg = txl.warpgroup_id
    %producer = arith.cmpi eq, %wg, %c0 : i32
    scf.if %producer {
      txl.reg_dealloc 40
    } else {
      txl.desc_store %o[%x, %c0], %t : !desc, tensor<64x64xf32>
    }
    return
  }
}
