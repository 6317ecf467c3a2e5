// RUN: txl-opt %s -txl-schedule-loops -split-input-file | FileCheck %s
// RUN: txl-opt %s -txl-schedule-loops=rescaled-async=false -split-input-file | FileCheck %s --check-prefix=OFF

// txl-schedule-loops (loop pipeliner, step 1): each txl.desc_load of an
// scf.for with num_stages S >= 2 gets a ring of buffers and mbarriers before
// the loop; the TMA of iteration i + S - 1 is issued in stage 0, iteration i's
// slot is waited for and read in stage S - 1; every op gets txl.stage and
// txl.order (txl-expand-loops builds the loop from them). Loops it does not
// take are left exactly as written (txl-lower-tile-copies lowers them).

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// A K loop of Triton's GEMM: two loads feed a loop-carried dot. With
// num_stages = 3 the loads get rings of 3 slots (the async dot still reads
// slot i during iteration i + 1), the dot becomes async, retired one iteration
// later (dot_wait 1), and after the loop (dot_wait 0 on the result). The
// consume stage ends with a CTA barrier (the slot refilled next was read by
// the previous iteration), then the issue stage follows (txl.order).
// CHECK-LABEL: func.func @gemm_loop
// CHECK-SAME: (%[[A:.*]]: !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, %[[B:.*]]: !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, %[[K:.*]]: i32)
// The mbarriers are allocated first in the kernel, each ring right before
// its loop (its live range starts there).
// CHECK: %[[BB:.*]] = txl.mbar_alloc count 1 : !txl.mbar<3>
// CHECK: %[[BA:.*]] = txl.mbar_alloc count 1 : !txl.mbar<3>
// CHECK: %[[BASE:.*]] = arith.constant 0 : i32
// CHECK: %[[RA:.*]] = txl.smem_alloc {txl.ring} : !txl.smem<64x64xbf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
// CHECK: %[[C3:.*]] = arith.constant 3 : i32
// CHECK: %[[C1:.*]] = arith.constant 1 : i32
// CHECK: %[[RB:.*]] = txl.smem_alloc {txl.ring} : !txl.smem<64x64xbf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
// CHECK: %[[R:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[K]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<64x64xf32>)
// Issue of A (stage 0): slot = (base + iteration) % 3.
// CHECK:   %[[G0:.*]] = arith.addi %[[BASE]], %{{.*}} {txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32} : i32
// CHECK:   %[[S0:.*]] = arith.remui %[[G0]], %[[C3]] {txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32} : i32
// CHECK:   %[[V0:.*]] = txl.get_buffer %[[RA]][%[[S0]]] {txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32}
// CHECK:   %[[M0:.*]] = txl.get_buffer %[[BA]][%[[S0]]] {txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32}
// CHECK:   txl.mbar_expect %[[M0]], 8192 {txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32}
// CHECK:   txl.tma_load %[[A]][%{{.*}}, %[[I]]], %[[V0]], %[[M0]] {txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32}
// Consume of A (stage 2): the same slot, phase (count / 3) & 1.
// CHECK:   %[[G1:.*]] = arith.addi %[[BASE]], %{{.*}} {txl.order = 2 : i32, txl.stage = 2 : i32} : i32
// CHECK:   %[[S1:.*]] = arith.remui %[[G1]], %[[C3]] {txl.order = 3 : i32, txl.stage = 2 : i32} : i32
// CHECK:   %[[Q1:.*]] = arith.divui %[[G1]], %[[C3]] {txl.order = 4 : i32, txl.stage = 2 : i32} : i32
// CHECK:   %[[P1:.*]] = arith.andi %[[Q1]], %[[C1]] {txl.order = 5 : i32, txl.stage = 2 : i32} : i32
// CHECK:   %[[V1:.*]] = txl.get_buffer %[[RA]][%[[S1]]] {txl.order = 6 : i32, txl.stage = 2 : i32}
// CHECK:   %[[M1:.*]] = txl.get_buffer %[[BA]][%[[S1]]] {txl.order = 7 : i32, txl.stage = 2 : i32}
// CHECK:   txl.mbar_wait %[[M1]], %[[P1]] {txl.order = 8 : i32, txl.stage = 2 : i32} : i32
// CHECK:   %[[TA:.*]] = txl.smem_load %[[V1]] {txl.order = 9 : i32, txl.stage = 2 : i32}
// Issue and consume of B.
// CHECK:   txl.mbar_expect %{{.*}}, 8192 {txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32}
// CHECK:   txl.tma_load %[[B]][%[[I]], %{{.*}}], %{{.*}}, %{{.*}} {txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32}
// CHECK:   txl.mbar_wait %{{.*}}, %{{.*}} {txl.order = 18 : i32, txl.stage = 2 : i32} : i32
// CHECK:   %[[TB:.*]] = txl.smem_load %{{.*}} {txl.order = 19 : i32, txl.stage = 2 : i32}
// CHECK:   %[[D:.*]] = txl.dot %[[TA]], %[[TB]], %[[ACC]] {async, txl.order = 20 : i32, txl.stage = 2 : i32} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
// CHECK:   txl.dot_wait 1 {txl.order = 21 : i32, txl.stage = 2 : i32}
// CHECK:   txl.bar_wait 0, 128 {txl.order = 22 : i32, txl.stage = 2 : i32}
// CHECK:   scf.yield %[[D]] : tensor<64x64xf32>
// CHECK: } {txl.num_stages = 3 : i32}
// After the loop: the last async dot is retired, then the drain's CTA barrier
// (no thread reads a ring any more: txl-smem-allocs may reuse its bytes).
// CHECK: %[[W:.*]] = txl.dot_wait 0, %[[R]] : tensor<64x64xf32>
// CHECK-NEXT: txl.bar_wait 0, 128{{$}}
// CHECK-NEXT: return %[[W]]
// CHECK-NOT: txl.desc_load
module attributes {txl.target = "sm_90a"} {
  func.func @gemm_loop(%a: !desc, %b: !desc, %k: i32) -> tensor<64x64xf32> attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_stages = 3 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %i = %c0 to %k step %c64 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %ta = txl.desc_load %a[%c0, %i] : !desc -> tensor<64x64xbf16>
      %tb = txl.desc_load %b[%i, %c0] : !desc -> tensor<64x64xbf16>
      %d = txl.dot %ta, %tb, %acc : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    return %r : tensor<64x64xf32>
  }
}

// -----

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// No dot reads the slot after its iteration: S - 1 buffers suffice. The
// loop's own txl.num_stages (tl.range(..., num_stages=4)) wins over the
// kernel's (none here): rings of 3, consumed in stage 3.
// CHECK-LABEL: func.func @sum_loop
// CHECK: txl.mbar_alloc count 1 : !txl.mbar<3>
// CHECK: txl.smem_alloc {txl.ring} : !txl.smem<64x64xbf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
// CHECK: scf.for
// CHECK:   txl.mbar_expect %{{.*}}, 8192 {txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32}
// CHECK:   txl.tma_load {{.*}}txl.stage = 0 : i32}
// CHECK:   txl.mbar_wait {{.*}}txl.stage = 3 : i32}
// CHECK:   txl.smem_load {{.*}}txl.stage = 3 : i32}
// CHECK:   arith.extf {{.*}}txl.stage = 3 : i32}
// CHECK:   arith.addf {{.*}}txl.stage = 3 : i32}
// CHECK:   txl.bar_wait 0, 128 {{.*}}txl.stage = 3 : i32}
// CHECK-NEXT: scf.yield
// CHECK: } {txl.num_stages = 4 : i32}
// CHECK-NEXT: txl.bar_wait 0, 128{{$}}
// CHECK-NOT: txl.dot_wait
module attributes {txl.target = "sm_90a"} {
  func.func @sum_loop(%a: !desc, %k: i32) -> tensor<64x64xf32> attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %i = %c0 to %k step %c64 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %t = txl.desc_load %a[%c0, %i] : !desc -> tensor<64x64xbf16>
      %e = arith.extf %t : tensor<64x64xbf16> to tensor<64x64xf32>
      %s = arith.addf %acc, %e : tensor<64x64xf32>
      scf.yield %s : tensor<64x64xf32>
    } {txl.num_stages = 4 : i32}
    return %r : tensor<64x64xf32>
  }
}

// -----

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// A pipelined loop inside another loop: the count of loads issued by earlier
// executions is carried as an i32 iter_arg of the outer loop (0 on entry,
// plus the inner trip count after each execution), so slots and phases
// continue where the previous execution stopped; a CTA barrier before the
// inner loop keeps its prologue from refilling slots still being read.
// CHECK-LABEL: func.func @nested
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: %[[RING:.*]] = txl.smem_alloc {txl.ring} : !txl.smem<64x64xbf16, stages = 2
// CHECK: %{{.*}}:2 = scf.for %[[M:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[BASE:.*]] = %[[ZERO]]) -> (tensor<64x64xf32>, i32)
// CHECK-NEXT: txl.bar_wait 0, 128{{$}}
// CHECK:   %[[IN:.*]] = scf.for %[[J:.*]] = %{{.*}} to %[[KK:.*]] step %{{.*}} iter_args
// CHECK:     %[[G:.*]] = arith.addi %[[BASE]], %{{.*}} {txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32} : i32
// CHECK:     txl.tma_load %{{.*}}[%[[M]], %[[J]]], {{.*}}txl.stage = 0 : i32}
// CHECK:     arith.addi %[[BASE]], %{{.*}} {txl.order = 2 : i32, txl.stage = 2 : i32} : i32
// CHECK:     txl.mbar_wait {{.*}}txl.stage = 2 : i32}
// CHECK:   } {txl.num_stages = 3 : i32}
// CHECK-NEXT: txl.bar_wait 0, 128{{$}}
// CHECK:   %[[TRIPS:.*]] = arith.maxsi
// CHECK:   %[[NEXT:.*]] = arith.addi %[[BASE]], %[[TRIPS]] : i32
// CHECK:   scf.yield %[[IN]], %[[NEXT]] : tensor<64x64xf32>, i32
module attributes {txl.target = "sm_90a"} {
  func.func @nested(%a: !desc, %m: i32, %k: i32) -> tensor<64x64xf32> attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %i = %c0 to %m step %c64 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %r2 = scf.for %j = %c0 to %k step %c64 iter_args(%acc2 = %acc) -> (tensor<64x64xf32>) : i32 {
        %t = txl.desc_load %a[%i, %j] : !desc -> tensor<64x64xbf16>
        %e = arith.extf %t : tensor<64x64xbf16> to tensor<64x64xf32>
        %s = arith.addf %acc2, %e : tensor<64x64xf32>
        scf.yield %s : tensor<64x64xf32>
      } {txl.num_stages = 3 : i32}
      scf.yield %r2 : tensor<64x64xf32>
    }
    return %r : tensor<64x64xf32>
  }
}

// -----

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// The same nest with the kernel's num_stages = 3 for both loops (Triton's
// default): the outer loop has no load of its own and is not scheduled; it
// only carries the inner loop's count (scheduling the inner loop rebuilds it).
// CHECK-LABEL: func.func @nested_kernel_stages
// CHECK: txl.smem_alloc {txl.ring} : !txl.smem<64x64xbf16, stages = 2
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[BASE:.*]] = %{{.*}}) -> (tensor<64x64xf32>, i32)
// CHECK-NEXT: txl.bar_wait 0, 128{{$}}
// CHECK:   scf.for
// CHECK:     arith.addi %[[BASE]], %{{.*}} {txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32} : i32
// CHECK:     txl.mbar_wait {{.*}}txl.stage = 2 : i32}
// CHECK:   } {txl.num_stages = 3 : i32}
// CHECK-NOT: txl.stage
// CHECK:   scf.yield
// CHECK-NEXT: }{{$}}
module attributes {txl.target = "sm_90a"} {
  func.func @nested_kernel_stages(%a: !desc, %m: i32, %k: i32) -> tensor<64x64xf32> attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_stages = 3 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %i = %c0 to %m step %c64 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %r2 = scf.for %j = %c0 to %k step %c64 iter_args(%acc2 = %acc) -> (tensor<64x64xf32>) : i32 {
        %t = txl.desc_load %a[%i, %j] : !desc -> tensor<64x64xbf16>
        %e = arith.extf %t : tensor<64x64xbf16> to tensor<64x64xf32>
        %s = arith.addf %acc2, %e : tensor<64x64xf32>
        scf.yield %s : tensor<64x64xf32>
      }
      scf.yield %r2 : tensor<64x64xf32>
    }
    return %r : tensor<64x64xf32>
  }
}

// -----

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// num_stages = 1 (the kernel's, or no attribute at all): not pipelined.
// CHECK-LABEL: func.func @one_stage
// CHECK-NOT: txl.ring
// CHECK-NOT: txl.stage
// CHECK: scf.for
// CHECK: txl.desc_load
// CHECK: txl.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor
// CHECK-NOT: txl.dot_wait
// CHECK-LABEL: func.func @no_attribute
// CHECK-NOT: txl.stage
// CHECK: txl.desc_load
module attributes {txl.target = "sm_90a"} {
  func.func @one_stage(%a: !desc, %b: !desc, %k: i32) -> tensor<64x64xf32> attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_stages = 1 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %i = %c0 to %k step %c64 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %ta = txl.desc_load %a[%c0, %i] : !desc -> tensor<64x64xbf16>
      %tb = txl.desc_load %b[%i, %c0] : !desc -> tensor<64x64xbf16>
      %d = txl.dot %ta, %tb, %acc : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    return %r : tensor<64x64xf32>
  }
  func.func @no_attribute(%a: !desc, %k: i32) -> tensor<64x64xbf16> attributes {txl.kernel, txl.num_warps = 4 : i32} {
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

// The coordinate depends on the loaded tile (through the iter_arg it
// updates): it cannot be computed iterations ahead. The loop is left alone.
// CHECK-LABEL: func.func @coordinate_from_the_tile
// CHECK-NOT: txl.ring
// CHECK-NOT: txl.stage
// CHECK: scf.for
// CHECK: txl.desc_load %{{.*}}[%{{.*}}, %[[J:.*]]] :
// CHECK: txl.reduce
// CHECK: arith.fptosi
// CHECK: scf.yield
// CHECK-NOT: txl.num_stages = 3 : i32}
module attributes {txl.target = "sm_90a"} {
  func.func @coordinate_from_the_tile(%a: !desc, %k: i32) -> i32 attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_stages = 3 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %k step %c1 iter_args(%j = %c0) -> (i32) : i32 {
      %t = txl.desc_load %a[%c0, %j] : !desc -> tensor<64x64xbf16>
      %e = arith.extf %t : tensor<64x64xbf16> to tensor<64x64xf32>
      %row = txl.reduce %e axis 1 : (tensor<64x64xf32>) -> tensor<64xf32> {
      ^bb0(%x: f32, %y: f32):
        %s = arith.addf %x, %y : f32
        txl.reduce_return %s : f32
      }
      %tot = txl.reduce %row axis 0 : (tensor<64xf32>) -> f32 {
      ^bb0(%x: f32, %y: f32):
        %s = arith.addf %x, %y : f32
        txl.reduce_return %s : f32
      }
      %jn = arith.fptosi %tot : f32 to i32
      scf.yield %jn : i32
    }
    return %r : i32
  }
}

// -----

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// A loop in a warp-specialized region (here: an scf.if on txl.is_warpgroup):
// the kernel stages its own loads; not pipelined.
// CHECK-LABEL: func.func @in_a_warpgroup_region
// CHECK-NOT: txl.ring
// CHECK-NOT: txl.stage
// CHECK: txl.is_warpgroup [1]
// CHECK: scf.if
// CHECK: scf.for
// CHECK: txl.desc_load
// CHECK: txl.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor
// CHECK-NOT: txl.dot_wait
module attributes {txl.target = "sm_90a"} {
  func.func @in_a_warpgroup_region(%a: !desc, %b: !desc, %k: i32, %o: !txl.tensordesc<64x64xf32>) attributes {txl.kernel, txl.num_warps = 8 : i32, txl.num_stages = 3 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %wg = txl.is_warpgroup [1]
    scf.if %wg {
      %z = arith.constant dense<0.0> : tensor<64x64xf32>
      %r = scf.for %i = %c0 to %k step %c64 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
        %ta = txl.desc_load %a[%c0, %i] : !desc -> tensor<64x64xbf16>
        %tb = txl.desc_load %b[%i, %c0] : !desc -> tensor<64x64xbf16>
        %d = txl.dot %ta, %tb, %acc : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
      txl.desc_store %o[%c0, %c0], %r : !txl.tensordesc<64x64xf32>, tensor<64x64xf32>
    }
    return
  }
}

// -----

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// A block-sparse pattern: the column comes from a scalar txl.load of a block
// index. The index load and its arithmetic run ahead in stage 0 with the TMA
// (txl-expand-loops masks the load past the end of the loop).
// CHECK-LABEL: func.func @block_list
// CHECK: txl.smem_alloc {txl.ring} : !txl.smem<64x64xbf16, stages = 1
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:   %[[P:.*]] = txl.addptr %{{.*}}, %[[I]] {txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32} : !txl.ptr<i32>, i32
// CHECK:   %[[BLK:.*]] = txl.load %[[P]] {txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32} : !txl.ptr<i32> -> i32
// CHECK:   %[[COL:.*]] = arith.muli %[[BLK]], %{{.*}} {txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32} : i32
// CHECK:   txl.tma_load %{{.*}}[%{{.*}}, %[[COL]]], {{.*}}txl.stage = 0 : i32}
// CHECK:   txl.mbar_wait {{.*}}txl.stage = 1 : i32}
// CHECK:   txl.smem_load {{.*}}txl.stage = 1 : i32}
// CHECK: } {txl.num_stages = 2 : i32}
module attributes {txl.target = "sm_90a"} {
  func.func @block_list(%a: !desc, %idx: !txl.ptr<i32>, %n: i32) -> tensor<64x64xf32> attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_stages = 2 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %p = txl.addptr %idx, %i : !txl.ptr<i32>, i32
      %blk = txl.load %p : !txl.ptr<i32> -> i32
      %col = arith.muli %blk, %c64 : i32
      %t = txl.desc_load %a[%c0, %col] : !desc -> tensor<64x64xbf16>
      %e = arith.extf %t : tensor<64x64xbf16> to tensor<64x64xf32>
      %s = arith.addf %acc, %e : tensor<64x64xf32>
      scf.yield %s : tensor<64x64xf32>
    }
    return %r : tensor<64x64xf32>
  }
}

// -----

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// Attention's loop: S = Q K^T (its result feeds the softmax, so it waits
// in its own iteration), then acc = P V + acc * alpha. The rescaled P @ V is
// async with no wait in its own iteration: the next iteration retires it
// right before the rescale (dot_wait 0 on the carried accumulator, after that
// iteration's S), the loop's result is retired after the loop. V's ring has
// num_stages slots (P @ V still reads slot i during iteration i + 1), K's one
// fewer; the module is marked for txlc, which compares with rescaled-async off.
// CHECK-LABEL: module attributes {txl.rescaled_async, txl.target = "sm_90a"}
// CHECK-LABEL: func.func @attention_loop
// CHECK: %[[RK:.*]] = txl.smem_alloc {txl.ring} : !txl.smem<64x64xbf16, stages = 2,
// CHECK: %[[RV:.*]] = txl.smem_alloc {txl.ring} : !txl.smem<64x64xbf16, stages = 3,
// CHECK: %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<64x64xf32>)
// CHECK:   %[[S:.*]] = txl.dot %{{.*}}, %{{.*}}, %{{.*}} {txl.order
// CHECK:   %[[W:.*]] = txl.dot_wait 0, %[[ACC]] : tensor<64x64xf32> {txl.order = {{[0-9]+}} : i32, txl.stage = 2 : i32}
// CHECK:   %[[SC:.*]] = arith.mulf %[[W]], %[[S]]
// CHECK:   %[[PV:.*]] = txl.dot %{{.*}}, %{{.*}}, %[[SC]] {async, txl.order
// CHECK-NOT: txl.dot_wait
// CHECK:   scf.yield %[[PV]] : tensor<64x64xf32>
// CHECK: } {txl.num_stages = 3 : i32}
// CHECK: %[[F:.*]] = txl.dot_wait 0, %[[R]] : tensor<64x64xf32>
// CHECK: return %[[F]]
// With rescaled-async=false the dot waits in its own iteration (no async, no
// dot_wait: txl-wgmma's synchronous form) and both rings have 2 slots.
// OFF-NOT: txl.rescaled_async
// OFF-LABEL: func.func @attention_loop
// OFF: txl.smem_alloc {txl.ring} : !txl.smem<64x64xbf16, stages = 2,
// OFF: txl.smem_alloc {txl.ring} : !txl.smem<64x64xbf16, stages = 2,
// OFF-NOT: async
// OFF-NOT: txl.dot_wait
// OFF: return
module attributes {txl.target = "sm_90a"} {
  func.func @attention_loop(%q: tensor<64x64xbf16>, %k: !desc, %v: !desc, %n: i32) -> tensor<64x64xf32> attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_stages = 3 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %kt = txl.desc_load %k[%c0, %i] : !desc -> tensor<64x64xbf16>
      %s = txl.dot %q, %kt, %z : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      %p = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xbf16>
      %scaled = arith.mulf %acc, %s : tensor<64x64xf32>
      %vt = txl.desc_load %v[%i, %c0] : !desc -> tensor<64x64xbf16>
      %o = txl.dot %p, %vt, %scaled : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %o : tensor<64x64xf32>
    }
    return %r : tensor<64x64xf32>
  }
}

// -----

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// The carried accumulator is also read elsewhere (here: the running sum):
// the dot stays synchronous, no ring slot is held longer.
// CHECK-LABEL: module attributes {txl.target = "sm_90a"}
// CHECK-LABEL: func.func @rescaled_acc_read_twice
// CHECK: txl.smem_alloc {txl.ring} : !txl.smem<64x64xbf16, stages = 2,
// CHECK-NOT: async
// CHECK-NOT: txl.dot_wait
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @rescaled_acc_read_twice(%q: tensor<64x64xbf16>, %k: tensor<64x64xbf16>, %v: !desc, %n: i32) -> (tensor<64x64xf32>, tensor<64x64xf32>) attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_stages = 3 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r:2 = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %z, %sum = %z) -> (tensor<64x64xf32>, tensor<64x64xf32>) : i32 {
      %s = txl.dot %q, %k, %z : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      %p = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xbf16>
      %scaled = arith.mulf %acc, %s : tensor<64x64xf32>
      %sum2 = arith.addf %sum, %acc : tensor<64x64xf32>
      %vt = txl.desc_load %v[%i, %c0] : !desc -> tensor<64x64xbf16>
      %o = txl.dot %p, %vt, %scaled : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %o, %sum2 : tensor<64x64xf32>, tensor<64x64xf32>
    }
    return %r#0, %r#1 : tensor<64x64xf32>, tensor<64x64xf32>
  }
}

// -----

!desc = !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>

// A register A that no other dot of the body produces (here: an argument;
// in general, a tile the next iteration could compute while this dot still
// reads the current one) keeps the dot synchronous: only a synchronous dot's
// wgmma.wait_group 0 orders the next A after this dot's reads.
// CHECK-LABEL: module attributes {txl.target = "sm_90a"}
// CHECK-LABEL: func.func @rescaled_a_not_from_a_dot
// CHECK: txl.smem_alloc {txl.ring} : !txl.smem<64x64xbf16, stages = 2,
// CHECK-NOT: async
// CHECK-NOT: txl.dot_wait
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @rescaled_a_not_from_a_dot(%p: tensor<64x64xbf16>, %v: !desc, %n: i32) -> tensor<64x64xf32> attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_stages = 3 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %scaled = arith.mulf %acc, %acc : tensor<64x64xf32>
      %vt = txl.desc_load %v[%i, %c0] : !desc -> tensor<64x64xbf16>
      %o = txl.dot %p, %vt, %scaled : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %o : tensor<64x64xf32>
    }
    return %r : tensor<64x64xf32>
  }
}
