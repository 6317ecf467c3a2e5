// RUN: txl-opt %s -txl-schedule-loops -split-input-file | FileCheck %s --implicit-check-not=txl.async_load --implicit-check-not=txl.load --implicit-check-not=txl.ring

// txl-schedule-loops: the cp.async ring of a pointer-tile load moves, per
// copy, only as many consecutive elements as are proven aligned (cp.async
// moves 4, 8 or 16 bytes and faults on a source address not aligned to its
// size). The AxisInfo analysis that txl-vectorize-accesses uses proves it
// from the kernel's `txl.divisibility` arguments, through the loop-carried
// pointers (`ptrs += 64`, `ptrs += 64 * stride`); the proof becomes the
// copy's `contiguity` (elements), which txl-lower-loads turns into the copy
// size. Below 4 bytes (an f16 row stride that is odd or unknown) the load
// gets no ring and stays a plain masked load, read in the consume stage; the
// loop still pipelines the other one (one ring: async_load_wait 1).
//
// Every kernel: acc += A[64 x 64 f16] @ B[64 x 64 f16] over K, A at
// a + m * sa + k, B at b + k * sb + n, both pointer tiles advanced in the
// loop, K tails masked with zero fill (cp.async's src-size form).

// Rows 16-byte aligned (the jit's ":16" on the base pointers and strides):
// 8 f16 = 16 bytes per copy.
// CHECK-LABEL: func.func @aligned
// CHECK: txl.smem_alloc {txl.ring} : !txl.smem<64x64xf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
// CHECK: txl.smem_alloc {txl.ring} : !txl.smem<64x64xf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[PA:.*]] = %{{.*}}, %[[PB:.*]] = %{{.*}}) -> (tensor<64x64xf32>, tensor<64x64x!txl.ptr<f16>>, tensor<64x64x!txl.ptr<f16>>)
// CHECK:   txl.async_load %[[PA]], %{{.*}} mask %{{.*}} : tensor<64x64xi1> other %{{.*}} : tensor<64x64xf16> {contiguity = 8 : i32, txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32}
// CHECK:   txl.async_load_wait 2 {txl.order = {{[0-9]+}} : i32, txl.stage = 2 : i32}
// CHECK:   txl.async_load %[[PB]], %{{.*}} mask %{{.*}} : tensor<64x64xi1> other %{{.*}} : tensor<64x64xf16> {contiguity = 8 : i32, txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32}
// CHECK:   txl.dot %{{.*}}, %{{.*}}, %{{.*}} {async, txl.order = {{[0-9]+}} : i32, txl.stage = 2 : i32}
// CHECK: } {txl.num_stages = 3 : i32}
// The drain after the loop: the copies issued past the end still zero-fill
// their slots; wait for them, then the CTA barrier (the rings are idle).
// CHECK-NEXT: txl.dot_wait 0
// CHECK-NEXT: txl.async_load_wait 0{{$}}
// CHECK-NEXT: txl.bar_wait 0, 128{{$}}
module attributes {txl.target = "sm_90a"} {
  func.func @aligned(%a: !txl.ptr<f16> {txl.divisibility = 16 : i32}, %b: !txl.ptr<f16> {txl.divisibility = 16 : i32}, %k: i32 {txl.divisibility = 16 : i32},
      %sa: i32 {txl.divisibility = 16 : i32}, %sb: i32 {txl.divisibility = 16 : i32}) -> tensor<64x64xf32>
      attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_stages = 3 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %ara = txl.make_range 0, 64 : tensor<64xi32>
    %arows = txl.expand_dims %ara, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %arb = txl.make_range 0, 64 : tensor<64xi32>
    %acols = txl.expand_dims %arb, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %sas = txl.splat %sa : i32 -> tensor<64x1xi32>
    %am = arith.muli %arows, %sas : tensor<64x1xi32>
    %amb = txl.broadcast %am : tensor<64x1xi32> -> tensor<64x64xi32>
    %acb = txl.broadcast %acols : tensor<1x64xi32> -> tensor<64x64xi32>
    %ao = arith.addi %amb, %acb : tensor<64x64xi32>
    %as = txl.splat %a : !txl.ptr<f16> -> tensor<64x64x!txl.ptr<f16>>
    %pa0 = txl.addptr %as, %ao : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
    %bra = txl.make_range 0, 64 : tensor<64xi32>
    %brows = txl.expand_dims %bra, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %brb = txl.make_range 0, 64 : tensor<64xi32>
    %bcols = txl.expand_dims %brb, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %bcb = txl.broadcast %bcols : tensor<1x64xi32> -> tensor<64x64xi32>
    %sbs = txl.splat %sb : i32 -> tensor<64x1xi32>
    %bk = arith.muli %brows, %sbs : tensor<64x1xi32>
    %bkb = txl.broadcast %bk : tensor<64x1xi32> -> tensor<64x64xi32>
    %bo = arith.addi %bkb, %bcb : tensor<64x64xi32>
    %bs = txl.splat %b : !txl.ptr<f16> -> tensor<64x64x!txl.ptr<f16>>
    %pb0 = txl.addptr %bs, %bo : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
    %sb64 = arith.muli %sb, %c64 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %res:3 = scf.for %i = %c0 to %k step %c64 iter_args(%acc = %zero, %pa = %pa0, %pb = %pb0)
        -> (tensor<64x64xf32>, tensor<64x64x!txl.ptr<f16>>, tensor<64x64x!txl.ptr<f16>>) : i32 {
      %left = arith.subi %k, %i : i32
      %kr = txl.make_range 0, 64 : tensor<64xi32>
      %kc = txl.expand_dims %kr, 0 : tensor<64xi32> -> tensor<1x64xi32>
      %lr = txl.splat %left : i32 -> tensor<1x64xi32>
      %mr = arith.cmpi slt, %kc, %lr : tensor<1x64xi32>
      %ma = txl.broadcast %mr : tensor<1x64xi1> -> tensor<64x64xi1>
      %zfa = arith.constant dense<0.0> : tensor<64x64xf16>
      %ta = txl.load %pa mask %ma other %zfa : tensor<64x64x!txl.ptr<f16>> -> tensor<64x64xf16>
      %kr2 = txl.make_range 0, 64 : tensor<64xi32>
      %kc2 = txl.expand_dims %kr2, 1 : tensor<64xi32> -> tensor<64x1xi32>
      %lc = txl.splat %left : i32 -> tensor<64x1xi32>
      %mc = arith.cmpi slt, %kc2, %lc : tensor<64x1xi32>
      %mb = txl.broadcast %mc : tensor<64x1xi1> -> tensor<64x64xi1>
      %zfb = arith.constant dense<0.0> : tensor<64x64xf16>
      %tb = txl.load %pb mask %mb other %zfb : tensor<64x64x!txl.ptr<f16>> -> tensor<64x64xf16>
      %d = txl.dot %ta, %tb, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
      %da = arith.constant dense<64> : tensor<64x64xi32>
      %pa1 = txl.addptr %pa, %da : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
      %db = txl.splat %sb64 : i32 -> tensor<64x64xi32>
      %pb1 = txl.addptr %pb, %db : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
      scf.yield %d, %pa1, %pb1 : tensor<64x64xf32>, tensor<64x64x!txl.ptr<f16>>, tensor<64x64x!txl.ptr<f16>>
    }
    return %res#0 : tensor<64x64xf32>
  }
}

// -----

// B read K-major (B^T of an N x K tensor, K contiguous: Triton's fp8 GEMM
// loads b.T): its pointers are contiguous along dim 0, so its ring is stored
// transposed (K-major, what wgmma needs for 8-bit B) and each cp.async moves
// 8 elements down a column. A stays row-major.
// CHECK-LABEL: func.func @k_major_b
// CHECK: txl.smem_alloc {txl.ring} : !txl.smem<64x64xf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
// CHECK: txl.smem_alloc {txl.ring} : !txl.smem<64x64xf16, stages = 3, #txl.nvmma_shared<swizzle = 128, transposed = true>>
// CHECK: scf.for
// CHECK:   txl.async_load {{.*}}{contiguity = 8 : i32, {{.*}} : tensor<64x64x!txl.ptr<f16>>, !txl.smem<64x64xf16, #txl.nvmma_shared<swizzle = 128>>
// CHECK:   txl.async_load_wait 2
// CHECK:   txl.async_load {{.*}}{contiguity = 8 : i32, {{.*}} : tensor<64x64x!txl.ptr<f16>>, !txl.smem<64x64xf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>
// CHECK: } {txl.num_stages = 3 : i32}
// CHECK: txl.async_load_wait 0
// CHECK: txl.bar_wait 0, 128
module attributes {txl.target = "sm_90a"} {
  func.func @k_major_b(%a: !txl.ptr<f16> {txl.divisibility = 16 : i32}, %b: !txl.ptr<f16> {txl.divisibility = 16 : i32}, %k: i32 {txl.divisibility = 16 : i32},
      %sa: i32 {txl.divisibility = 16 : i32}, %sb: i32 {txl.divisibility = 16 : i32}) -> tensor<64x64xf32>
      attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_stages = 3 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %ara = txl.make_range 0, 64 : tensor<64xi32>
    %arows = txl.expand_dims %ara, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %arb = txl.make_range 0, 64 : tensor<64xi32>
    %acols = txl.expand_dims %arb, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %sas = txl.splat %sa : i32 -> tensor<64x1xi32>
    %am = arith.muli %arows, %sas : tensor<64x1xi32>
    %amb = txl.broadcast %am : tensor<64x1xi32> -> tensor<64x64xi32>
    %acb = txl.broadcast %acols : tensor<1x64xi32> -> tensor<64x64xi32>
    %ao = arith.addi %amb, %acb : tensor<64x64xi32>
    %as = txl.splat %a : !txl.ptr<f16> -> tensor<64x64x!txl.ptr<f16>>
    %pa0 = txl.addptr %as, %ao : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
    %bra = txl.make_range 0, 64 : tensor<64xi32>
    %brows = txl.expand_dims %bra, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %brb = txl.make_range 0, 64 : tensor<64xi32>
    %bcols = txl.expand_dims %brb, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %sbs = txl.splat %sb : i32 -> tensor<1x64xi32>
    %bn = arith.muli %bcols, %sbs : tensor<1x64xi32>
    %bcb = txl.broadcast %bn : tensor<1x64xi32> -> tensor<64x64xi32>
    %bkb = txl.broadcast %brows : tensor<64x1xi32> -> tensor<64x64xi32>
    %bo = arith.addi %bkb, %bcb : tensor<64x64xi32>
    %bs = txl.splat %b : !txl.ptr<f16> -> tensor<64x64x!txl.ptr<f16>>
    %pb0 = txl.addptr %bs, %bo : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %res:3 = scf.for %i = %c0 to %k step %c64 iter_args(%acc = %zero, %pa = %pa0, %pb = %pb0)
        -> (tensor<64x64xf32>, tensor<64x64x!txl.ptr<f16>>, tensor<64x64x!txl.ptr<f16>>) : i32 {
      %left = arith.subi %k, %i : i32
      %kr = txl.make_range 0, 64 : tensor<64xi32>
      %kc = txl.expand_dims %kr, 0 : tensor<64xi32> -> tensor<1x64xi32>
      %lr = txl.splat %left : i32 -> tensor<1x64xi32>
      %mr = arith.cmpi slt, %kc, %lr : tensor<1x64xi32>
      %ma = txl.broadcast %mr : tensor<1x64xi1> -> tensor<64x64xi1>
      %zfa = arith.constant dense<0.0> : tensor<64x64xf16>
      %ta = txl.load %pa mask %ma other %zfa : tensor<64x64x!txl.ptr<f16>> -> tensor<64x64xf16>
      %kr2 = txl.make_range 0, 64 : tensor<64xi32>
      %kc2 = txl.expand_dims %kr2, 1 : tensor<64xi32> -> tensor<64x1xi32>
      %lc = txl.splat %left : i32 -> tensor<64x1xi32>
      %mc = arith.cmpi slt, %kc2, %lc : tensor<64x1xi32>
      %mb = txl.broadcast %mc : tensor<64x1xi1> -> tensor<64x64xi1>
      %zfb = arith.constant dense<0.0> : tensor<64x64xf16>
      %tb = txl.load %pb mask %mb other %zfb : tensor<64x64x!txl.ptr<f16>> -> tensor<64x64xf16>
      %d = txl.dot %ta, %tb, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
      %da = arith.constant dense<64> : tensor<64x64xi32>
      %pa1 = txl.addptr %pa, %da : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
      %db = arith.constant dense<64> : tensor<64x64xi32>
      %pb1 = txl.addptr %pb, %db : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
      scf.yield %d, %pa1, %pb1 : tensor<64x64xf32>, tensor<64x64x!txl.ptr<f16>>, tensor<64x64x!txl.ptr<f16>>
    }
    return %res#0 : tensor<64x64xf32>
  }
}

// -----

// Strides divisible by 4 elements (8 bytes): 4 f16 per copy.
// CHECK-LABEL: func.func @stride_div4
// CHECK: txl.smem_alloc {txl.ring} : !txl.smem<64x64xf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
// CHECK: txl.smem_alloc {txl.ring} : !txl.smem<64x64xf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[PA:.*]] = %{{.*}}, %[[PB:.*]] = %{{.*}}) -> (tensor<64x64xf32>, tensor<64x64x!txl.ptr<f16>>, tensor<64x64x!txl.ptr<f16>>)
// CHECK:   txl.async_load %[[PA]], %{{.*}} mask %{{.*}} : tensor<64x64xi1> other %{{.*}} : tensor<64x64xf16> {contiguity = 4 : i32, txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32}
// CHECK:   txl.async_load_wait 2 {txl.order = {{[0-9]+}} : i32, txl.stage = 2 : i32}
// CHECK:   txl.async_load %[[PB]], %{{.*}} mask %{{.*}} : tensor<64x64xi1> other %{{.*}} : tensor<64x64xf16> {contiguity = 4 : i32, txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32}
// CHECK:   txl.dot %{{.*}}, %{{.*}}, %{{.*}} {async, txl.order = {{[0-9]+}} : i32, txl.stage = 2 : i32}
// CHECK: } {txl.num_stages = 3 : i32}
// CHECK-NEXT: txl.dot_wait 0
// CHECK-NEXT: txl.async_load_wait 0{{$}}
// CHECK-NEXT: txl.bar_wait 0, 128{{$}}
module attributes {txl.target = "sm_90a"} {
  func.func @stride_div4(%a: !txl.ptr<f16> {txl.divisibility = 16 : i32}, %b: !txl.ptr<f16> {txl.divisibility = 16 : i32}, %k: i32 {txl.divisibility = 16 : i32},
      %sa: i32 {txl.divisibility = 4 : i32}, %sb: i32 {txl.divisibility = 4 : i32}) -> tensor<64x64xf32>
      attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_stages = 3 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %ara = txl.make_range 0, 64 : tensor<64xi32>
    %arows = txl.expand_dims %ara, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %arb = txl.make_range 0, 64 : tensor<64xi32>
    %acols = txl.expand_dims %arb, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %sas = txl.splat %sa : i32 -> tensor<64x1xi32>
    %am = arith.muli %arows, %sas : tensor<64x1xi32>
    %amb = txl.broadcast %am : tensor<64x1xi32> -> tensor<64x64xi32>
    %acb = txl.broadcast %acols : tensor<1x64xi32> -> tensor<64x64xi32>
    %ao = arith.addi %amb, %acb : tensor<64x64xi32>
    %as = txl.splat %a : !txl.ptr<f16> -> tensor<64x64x!txl.ptr<f16>>
    %pa0 = txl.addptr %as, %ao : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
    %bra = txl.make_range 0, 64 : tensor<64xi32>
    %brows = txl.expand_dims %bra, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %brb = txl.make_range 0, 64 : tensor<64xi32>
    %bcols = txl.expand_dims %brb, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %bcb = txl.broadcast %bcols : tensor<1x64xi32> -> tensor<64x64xi32>
    %sbs = txl.splat %sb : i32 -> tensor<64x1xi32>
    %bk = arith.muli %brows, %sbs : tensor<64x1xi32>
    %bkb = txl.broadcast %bk : tensor<64x1xi32> -> tensor<64x64xi32>
    %bo = arith.addi %bkb, %bcb : tensor<64x64xi32>
    %bs = txl.splat %b : !txl.ptr<f16> -> tensor<64x64x!txl.ptr<f16>>
    %pb0 = txl.addptr %bs, %bo : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
    %sb64 = arith.muli %sb, %c64 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %res:3 = scf.for %i = %c0 to %k step %c64 iter_args(%acc = %zero, %pa = %pa0, %pb = %pb0)
        -> (tensor<64x64xf32>, tensor<64x64x!txl.ptr<f16>>, tensor<64x64x!txl.ptr<f16>>) : i32 {
      %left = arith.subi %k, %i : i32
      %kr = txl.make_range 0, 64 : tensor<64xi32>
      %kc = txl.expand_dims %kr, 0 : tensor<64xi32> -> tensor<1x64xi32>
      %lr = txl.splat %left : i32 -> tensor<1x64xi32>
      %mr = arith.cmpi slt, %kc, %lr : tensor<1x64xi32>
      %ma = txl.broadcast %mr : tensor<1x64xi1> -> tensor<64x64xi1>
      %zfa = arith.constant dense<0.0> : tensor<64x64xf16>
      %ta = txl.load %pa mask %ma other %zfa : tensor<64x64x!txl.ptr<f16>> -> tensor<64x64xf16>
      %kr2 = txl.make_range 0, 64 : tensor<64xi32>
      %kc2 = txl.expand_dims %kr2, 1 : tensor<64xi32> -> tensor<64x1xi32>
      %lc = txl.splat %left : i32 -> tensor<64x1xi32>
      %mc = arith.cmpi slt, %kc2, %lc : tensor<64x1xi32>
      %mb = txl.broadcast %mc : tensor<64x1xi1> -> tensor<64x64xi1>
      %zfb = arith.constant dense<0.0> : tensor<64x64xf16>
      %tb = txl.load %pb mask %mb other %zfb : tensor<64x64x!txl.ptr<f16>> -> tensor<64x64xf16>
      %d = txl.dot %ta, %tb, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
      %da = arith.constant dense<64> : tensor<64x64xi32>
      %pa1 = txl.addptr %pa, %da : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
      %db = txl.splat %sb64 : i32 -> tensor<64x64xi32>
      %pb1 = txl.addptr %pb, %db : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
      scf.yield %d, %pa1, %pb1 : tensor<64x64xf32>, tensor<64x64x!txl.ptr<f16>>, tensor<64x64x!txl.ptr<f16>>
    }
    return %res#0 : tensor<64x64xf32>
  }
}

// -----

// Strides divisible by 2 elements (4 bytes): 2 f16 per copy, cp.async's
// narrowest.
// CHECK-LABEL: func.func @stride_div2
// CHECK: txl.smem_alloc {txl.ring} : !txl.smem<64x64xf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
// CHECK: txl.smem_alloc {txl.ring} : !txl.smem<64x64xf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[PA:.*]] = %{{.*}}, %[[PB:.*]] = %{{.*}}) -> (tensor<64x64xf32>, tensor<64x64x!txl.ptr<f16>>, tensor<64x64x!txl.ptr<f16>>)
// CHECK:   txl.async_load %[[PA]], %{{.*}} mask %{{.*}} : tensor<64x64xi1> other %{{.*}} : tensor<64x64xf16> {contiguity = 2 : i32, txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32}
// CHECK:   txl.async_load_wait 2 {txl.order = {{[0-9]+}} : i32, txl.stage = 2 : i32}
// CHECK:   txl.async_load %[[PB]], %{{.*}} mask %{{.*}} : tensor<64x64xi1> other %{{.*}} : tensor<64x64xf16> {contiguity = 2 : i32, txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32}
// CHECK:   txl.dot %{{.*}}, %{{.*}}, %{{.*}} {async, txl.order = {{[0-9]+}} : i32, txl.stage = 2 : i32}
// CHECK: } {txl.num_stages = 3 : i32}
// CHECK-NEXT: txl.dot_wait 0
// CHECK-NEXT: txl.async_load_wait 0{{$}}
// CHECK-NEXT: txl.bar_wait 0, 128{{$}}
module attributes {txl.target = "sm_90a"} {
  func.func @stride_div2(%a: !txl.ptr<f16> {txl.divisibility = 16 : i32}, %b: !txl.ptr<f16> {txl.divisibility = 16 : i32}, %k: i32 {txl.divisibility = 16 : i32},
      %sa: i32 {txl.divisibility = 2 : i32}, %sb: i32 {txl.divisibility = 2 : i32}) -> tensor<64x64xf32>
      attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_stages = 3 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %ara = txl.make_range 0, 64 : tensor<64xi32>
    %arows = txl.expand_dims %ara, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %arb = txl.make_range 0, 64 : tensor<64xi32>
    %acols = txl.expand_dims %arb, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %sas = txl.splat %sa : i32 -> tensor<64x1xi32>
    %am = arith.muli %arows, %sas : tensor<64x1xi32>
    %amb = txl.broadcast %am : tensor<64x1xi32> -> tensor<64x64xi32>
    %acb = txl.broadcast %acols : tensor<1x64xi32> -> tensor<64x64xi32>
    %ao = arith.addi %amb, %acb : tensor<64x64xi32>
    %as = txl.splat %a : !txl.ptr<f16> -> tensor<64x64x!txl.ptr<f16>>
    %pa0 = txl.addptr %as, %ao : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
    %bra = txl.make_range 0, 64 : tensor<64xi32>
    %brows = txl.expand_dims %bra, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %brb = txl.make_range 0, 64 : tensor<64xi32>
    %bcols = txl.expand_dims %brb, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %bcb = txl.broadcast %bcols : tensor<1x64xi32> -> tensor<64x64xi32>
    %sbs = txl.splat %sb : i32 -> tensor<64x1xi32>
    %bk = arith.muli %brows, %sbs : tensor<64x1xi32>
    %bkb = txl.broadcast %bk : tensor<64x1xi32> -> tensor<64x64xi32>
    %bo = arith.addi %bkb, %bcb : tensor<64x64xi32>
    %bs = txl.splat %b : !txl.ptr<f16> -> tensor<64x64x!txl.ptr<f16>>
    %pb0 = txl.addptr %bs, %bo : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
    %sb64 = arith.muli %sb, %c64 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %res:3 = scf.for %i = %c0 to %k step %c64 iter_args(%acc = %zero, %pa = %pa0, %pb = %pb0)
        -> (tensor<64x64xf32>, tensor<64x64x!txl.ptr<f16>>, tensor<64x64x!txl.ptr<f16>>) : i32 {
      %left = arith.subi %k, %i : i32
      %kr = txl.make_range 0, 64 : tensor<64xi32>
      %kc = txl.expand_dims %kr, 0 : tensor<64xi32> -> tensor<1x64xi32>
      %lr = txl.splat %left : i32 -> tensor<1x64xi32>
      %mr = arith.cmpi slt, %kc, %lr : tensor<1x64xi32>
      %ma = txl.broadcast %mr : tensor<1x64xi1> -> tensor<64x64xi1>
      %zfa = arith.constant dense<0.0> : tensor<64x64xf16>
      %ta = txl.load %pa mask %ma other %zfa : tensor<64x64x!txl.ptr<f16>> -> tensor<64x64xf16>
      %kr2 = txl.make_range 0, 64 : tensor<64xi32>
      %kc2 = txl.expand_dims %kr2, 1 : tensor<64xi32> -> tensor<64x1xi32>
      %lc = txl.splat %left : i32 -> tensor<64x1xi32>
      %mc = arith.cmpi slt, %kc2, %lc : tensor<64x1xi32>
      %mb = txl.broadcast %mc : tensor<64x1xi1> -> tensor<64x64xi1>
      %zfb = arith.constant dense<0.0> : tensor<64x64xf16>
      %tb = txl.load %pb mask %mb other %zfb : tensor<64x64x!txl.ptr<f16>> -> tensor<64x64xf16>
      %d = txl.dot %ta, %tb, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
      %da = arith.constant dense<64> : tensor<64x64xi32>
      %pa1 = txl.addptr %pa, %da : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
      %db = txl.splat %sb64 : i32 -> tensor<64x64xi32>
      %pb1 = txl.addptr %pb, %db : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
      scf.yield %d, %pa1, %pb1 : tensor<64x64xf32>, tensor<64x64x!txl.ptr<f16>>, tensor<64x64x!txl.ptr<f16>>
    }
    return %res#0 : tensor<64x64xf32>
  }
}

// -----

// A's row stride of unknown divisibility (K = 197: rows 394 bytes apart):
// A stays a plain masked load; B keeps its ring and the dot stays async.
// CHECK-LABEL: func.func @stride_unknown
// CHECK: txl.smem_alloc {txl.ring} : !txl.smem<64x64xf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[PA:.*]] = %{{.*}}, %[[PB:.*]] = %{{.*}}) -> (tensor<64x64xf32>, tensor<64x64x!txl.ptr<f16>>, tensor<64x64x!txl.ptr<f16>>)
// CHECK:   txl.load %[[PA]] mask %{{.*}} other %{{.*}} {txl.order = {{[0-9]+}} : i32, txl.stage = 2 : i32} : tensor<64x64x!txl.ptr<f16>> -> tensor<64x64xf16>
// CHECK:   txl.async_load %[[PB]], %{{.*}} mask %{{.*}} : tensor<64x64xi1> other %{{.*}} : tensor<64x64xf16> {contiguity = 8 : i32, txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32}
// CHECK:   txl.async_load_wait 1 {txl.order = {{[0-9]+}} : i32, txl.stage = 2 : i32}
// CHECK:   txl.dot %{{.*}}, %{{.*}}, %{{.*}} {async, txl.order = {{[0-9]+}} : i32, txl.stage = 2 : i32}
// CHECK: } {txl.num_stages = 3 : i32}
// CHECK-NEXT: txl.dot_wait 0
// CHECK-NEXT: txl.async_load_wait 0{{$}}
// CHECK-NEXT: txl.bar_wait 0, 128{{$}}
module attributes {txl.target = "sm_90a"} {
  func.func @stride_unknown(%a: !txl.ptr<f16> {txl.divisibility = 16 : i32}, %b: !txl.ptr<f16> {txl.divisibility = 16 : i32}, %k: i32 {txl.divisibility = 16 : i32},
      %sa: i32, %sb: i32 {txl.divisibility = 16 : i32}) -> tensor<64x64xf32>
      attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_stages = 3 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %ara = txl.make_range 0, 64 : tensor<64xi32>
    %arows = txl.expand_dims %ara, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %arb = txl.make_range 0, 64 : tensor<64xi32>
    %acols = txl.expand_dims %arb, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %sas = txl.splat %sa : i32 -> tensor<64x1xi32>
    %am = arith.muli %arows, %sas : tensor<64x1xi32>
    %amb = txl.broadcast %am : tensor<64x1xi32> -> tensor<64x64xi32>
    %acb = txl.broadcast %acols : tensor<1x64xi32> -> tensor<64x64xi32>
    %ao = arith.addi %amb, %acb : tensor<64x64xi32>
    %as = txl.splat %a : !txl.ptr<f16> -> tensor<64x64x!txl.ptr<f16>>
    %pa0 = txl.addptr %as, %ao : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
    %bra = txl.make_range 0, 64 : tensor<64xi32>
    %brows = txl.expand_dims %bra, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %brb = txl.make_range 0, 64 : tensor<64xi32>
    %bcols = txl.expand_dims %brb, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %bcb = txl.broadcast %bcols : tensor<1x64xi32> -> tensor<64x64xi32>
    %sbs = txl.splat %sb : i32 -> tensor<64x1xi32>
    %bk = arith.muli %brows, %sbs : tensor<64x1xi32>
    %bkb = txl.broadcast %bk : tensor<64x1xi32> -> tensor<64x64xi32>
    %bo = arith.addi %bkb, %bcb : tensor<64x64xi32>
    %bs = txl.splat %b : !txl.ptr<f16> -> tensor<64x64x!txl.ptr<f16>>
    %pb0 = txl.addptr %bs, %bo : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
    %sb64 = arith.muli %sb, %c64 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %res:3 = scf.for %i = %c0 to %k step %c64 iter_args(%acc = %zero, %pa = %pa0, %pb = %pb0)
        -> (tensor<64x64xf32>, tensor<64x64x!txl.ptr<f16>>, tensor<64x64x!txl.ptr<f16>>) : i32 {
      %left = arith.subi %k, %i : i32
      %kr = txl.make_range 0, 64 : tensor<64xi32>
      %kc = txl.expand_dims %kr, 0 : tensor<64xi32> -> tensor<1x64xi32>
      %lr = txl.splat %left : i32 -> tensor<1x64xi32>
      %mr = arith.cmpi slt, %kc, %lr : tensor<1x64xi32>
      %ma = txl.broadcast %mr : tensor<1x64xi1> -> tensor<64x64xi1>
      %zfa = arith.constant dense<0.0> : tensor<64x64xf16>
      %ta = txl.load %pa mask %ma other %zfa : tensor<64x64x!txl.ptr<f16>> -> tensor<64x64xf16>
      %kr2 = txl.make_range 0, 64 : tensor<64xi32>
      %kc2 = txl.expand_dims %kr2, 1 : tensor<64xi32> -> tensor<64x1xi32>
      %lc = txl.splat %left : i32 -> tensor<64x1xi32>
      %mc = arith.cmpi slt, %kc2, %lc : tensor<64x1xi32>
      %mb = txl.broadcast %mc : tensor<64x1xi1> -> tensor<64x64xi1>
      %zfb = arith.constant dense<0.0> : tensor<64x64xf16>
      %tb = txl.load %pb mask %mb other %zfb : tensor<64x64x!txl.ptr<f16>> -> tensor<64x64xf16>
      %d = txl.dot %ta, %tb, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
      %da = arith.constant dense<64> : tensor<64x64xi32>
      %pa1 = txl.addptr %pa, %da : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
      %db = txl.splat %sb64 : i32 -> tensor<64x64xi32>
      %pb1 = txl.addptr %pb, %db : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
      scf.yield %d, %pa1, %pb1 : tensor<64x64xf32>, tensor<64x64x!txl.ptr<f16>>, tensor<64x64x!txl.ptr<f16>>
    }
    return %res#0 : tensor<64x64xf32>
  }
}

// -----

// B's columns wrap as in Triton's GEMM, (pid * 64 + arange(0, 64)) % N:
// with N divisible by 16 no run of 8 wraps, so still 16 bytes per copy.
// CHECK-LABEL: func.func @wrapped_cols
// CHECK: txl.smem_alloc {txl.ring} : !txl.smem<64x64xf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
// CHECK: txl.smem_alloc {txl.ring} : !txl.smem<64x64xf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[PA:.*]] = %{{.*}}, %[[PB:.*]] = %{{.*}}) -> (tensor<64x64xf32>, tensor<64x64x!txl.ptr<f16>>, tensor<64x64x!txl.ptr<f16>>)
// CHECK:   txl.async_load %[[PA]], %{{.*}} mask %{{.*}} : tensor<64x64xi1> other %{{.*}} : tensor<64x64xf16> {contiguity = 8 : i32, txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32}
// CHECK:   txl.async_load_wait 2 {txl.order = {{[0-9]+}} : i32, txl.stage = 2 : i32}
// CHECK:   txl.async_load %[[PB]], %{{.*}} mask %{{.*}} : tensor<64x64xi1> other %{{.*}} : tensor<64x64xf16> {contiguity = 8 : i32, txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32}
// CHECK:   txl.dot %{{.*}}, %{{.*}}, %{{.*}} {async, txl.order = {{[0-9]+}} : i32, txl.stage = 2 : i32}
// CHECK: } {txl.num_stages = 3 : i32}
// CHECK-NEXT: txl.dot_wait 0
// CHECK-NEXT: txl.async_load_wait 0{{$}}
// CHECK-NEXT: txl.bar_wait 0, 128{{$}}
module attributes {txl.target = "sm_90a"} {
  func.func @wrapped_cols(%a: !txl.ptr<f16> {txl.divisibility = 16 : i32}, %b: !txl.ptr<f16> {txl.divisibility = 16 : i32}, %k: i32 {txl.divisibility = 16 : i32},
      %sa: i32 {txl.divisibility = 16 : i32}, %sb: i32 {txl.divisibility = 16 : i32}, %n: i32 {txl.divisibility = 16 : i32}) -> tensor<64x64xf32>
      attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_stages = 3 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %ara = txl.make_range 0, 64 : tensor<64xi32>
    %arows = txl.expand_dims %ara, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %arb = txl.make_range 0, 64 : tensor<64xi32>
    %acols = txl.expand_dims %arb, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %sas = txl.splat %sa : i32 -> tensor<64x1xi32>
    %am = arith.muli %arows, %sas : tensor<64x1xi32>
    %amb = txl.broadcast %am : tensor<64x1xi32> -> tensor<64x64xi32>
    %acb = txl.broadcast %acols : tensor<1x64xi32> -> tensor<64x64xi32>
    %ao = arith.addi %amb, %acb : tensor<64x64xi32>
    %as = txl.splat %a : !txl.ptr<f16> -> tensor<64x64x!txl.ptr<f16>>
    %pa0 = txl.addptr %as, %ao : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
    %bra = txl.make_range 0, 64 : tensor<64xi32>
    %brows = txl.expand_dims %bra, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %brb = txl.make_range 0, 64 : tensor<64xi32>
    %bcols = txl.expand_dims %brb, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %pid = txl.program_id 0
    %n0 = arith.muli %pid, %c64 : i32
    %n0s = txl.splat %n0 : i32 -> tensor<64xi32>
    %bn = txl.make_range 0, 64 : tensor<64xi32>
    %bn1 = arith.addi %n0s, %bn : tensor<64xi32>
    %ns = txl.splat %n : i32 -> tensor<64xi32>
    %bn2 = arith.remsi %bn1, %ns : tensor<64xi32>
    %bn3 = txl.expand_dims %bn2, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %bcb = txl.broadcast %bn3 : tensor<1x64xi32> -> tensor<64x64xi32>
    %sbs = txl.splat %sb : i32 -> tensor<64x1xi32>
    %bk = arith.muli %brows, %sbs : tensor<64x1xi32>
    %bkb = txl.broadcast %bk : tensor<64x1xi32> -> tensor<64x64xi32>
    %bo = arith.addi %bkb, %bcb : tensor<64x64xi32>
    %bs = txl.splat %b : !txl.ptr<f16> -> tensor<64x64x!txl.ptr<f16>>
    %pb0 = txl.addptr %bs, %bo : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
    %sb64 = arith.muli %sb, %c64 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %res:3 = scf.for %i = %c0 to %k step %c64 iter_args(%acc = %zero, %pa = %pa0, %pb = %pb0)
        -> (tensor<64x64xf32>, tensor<64x64x!txl.ptr<f16>>, tensor<64x64x!txl.ptr<f16>>) : i32 {
      %left = arith.subi %k, %i : i32
      %kr = txl.make_range 0, 64 : tensor<64xi32>
      %kc = txl.expand_dims %kr, 0 : tensor<64xi32> -> tensor<1x64xi32>
      %lr = txl.splat %left : i32 -> tensor<1x64xi32>
      %mr = arith.cmpi slt, %kc, %lr : tensor<1x64xi32>
      %ma = txl.broadcast %mr : tensor<1x64xi1> -> tensor<64x64xi1>
      %zfa = arith.constant dense<0.0> : tensor<64x64xf16>
      %ta = txl.load %pa mask %ma other %zfa : tensor<64x64x!txl.ptr<f16>> -> tensor<64x64xf16>
      %kr2 = txl.make_range 0, 64 : tensor<64xi32>
      %kc2 = txl.expand_dims %kr2, 1 : tensor<64xi32> -> tensor<64x1xi32>
      %lc = txl.splat %left : i32 -> tensor<64x1xi32>
      %mc = arith.cmpi slt, %kc2, %lc : tensor<64x1xi32>
      %mb = txl.broadcast %mc : tensor<64x1xi1> -> tensor<64x64xi1>
      %zfb = arith.constant dense<0.0> : tensor<64x64xf16>
      %tb = txl.load %pb mask %mb other %zfb : tensor<64x64x!txl.ptr<f16>> -> tensor<64x64xf16>
      %d = txl.dot %ta, %tb, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
      %da = arith.constant dense<64> : tensor<64x64xi32>
      %pa1 = txl.addptr %pa, %da : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
      %db = txl.splat %sb64 : i32 -> tensor<64x64xi32>
      %pb1 = txl.addptr %pb, %db : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
      scf.yield %d, %pa1, %pb1 : tensor<64x64xf32>, tensor<64x64x!txl.ptr<f16>>, tensor<64x64x!txl.ptr<f16>>
    }
    return %res#0 : tensor<64x64xf32>
  }
}

// -----

// N of unknown divisibility: a row of B may wrap anywhere; B stays a
// plain load.
// CHECK-LABEL: func.func @wrapped_cols_unknown
// CHECK: txl.smem_alloc {txl.ring} : !txl.smem<64x64xf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[PA:.*]] = %{{.*}}, %[[PB:.*]] = %{{.*}}) -> (tensor<64x64xf32>, tensor<64x64x!txl.ptr<f16>>, tensor<64x64x!txl.ptr<f16>>)
// CHECK:   txl.async_load %[[PA]], %{{.*}} mask %{{.*}} : tensor<64x64xi1> other %{{.*}} : tensor<64x64xf16> {contiguity = 8 : i32, txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32}
// CHECK:   txl.async_load_wait 1 {txl.order = {{[0-9]+}} : i32, txl.stage = 2 : i32}
// CHECK:   txl.load %[[PB]] mask %{{.*}} other %{{.*}} {txl.order = {{[0-9]+}} : i32, txl.stage = 2 : i32} : tensor<64x64x!txl.ptr<f16>> -> tensor<64x64xf16>
// CHECK:   txl.dot %{{.*}}, %{{.*}}, %{{.*}} {async, txl.order = {{[0-9]+}} : i32, txl.stage = 2 : i32}
// CHECK: } {txl.num_stages = 3 : i32}
// CHECK-NEXT: txl.dot_wait 0
// CHECK-NEXT: txl.async_load_wait 0{{$}}
// CHECK-NEXT: txl.bar_wait 0, 128{{$}}
module attributes {txl.target = "sm_90a"} {
  func.func @wrapped_cols_unknown(%a: !txl.ptr<f16> {txl.divisibility = 16 : i32}, %b: !txl.ptr<f16> {txl.divisibility = 16 : i32}, %k: i32 {txl.divisibility = 16 : i32},
      %sa: i32 {txl.divisibility = 16 : i32}, %sb: i32 {txl.divisibility = 16 : i32}, %n: i32) -> tensor<64x64xf32>
      attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_stages = 3 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %ara = txl.make_range 0, 64 : tensor<64xi32>
    %arows = txl.expand_dims %ara, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %arb = txl.make_range 0, 64 : tensor<64xi32>
    %acols = txl.expand_dims %arb, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %sas = txl.splat %sa : i32 -> tensor<64x1xi32>
    %am = arith.muli %arows, %sas : tensor<64x1xi32>
    %amb = txl.broadcast %am : tensor<64x1xi32> -> tensor<64x64xi32>
    %acb = txl.broadcast %acols : tensor<1x64xi32> -> tensor<64x64xi32>
    %ao = arith.addi %amb, %acb : tensor<64x64xi32>
    %as = txl.splat %a : !txl.ptr<f16> -> tensor<64x64x!txl.ptr<f16>>
    %pa0 = txl.addptr %as, %ao : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
    %bra = txl.make_range 0, 64 : tensor<64xi32>
    %brows = txl.expand_dims %bra, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %brb = txl.make_range 0, 64 : tensor<64xi32>
    %bcols = txl.expand_dims %brb, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %pid = txl.program_id 0
    %n0 = arith.muli %pid, %c64 : i32
    %n0s = txl.splat %n0 : i32 -> tensor<64xi32>
    %bn = txl.make_range 0, 64 : tensor<64xi32>
    %bn1 = arith.addi %n0s, %bn : tensor<64xi32>
    %ns = txl.splat %n : i32 -> tensor<64xi32>
    %bn2 = arith.remsi %bn1, %ns : tensor<64xi32>
    %bn3 = txl.expand_dims %bn2, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %bcb = txl.broadcast %bn3 : tensor<1x64xi32> -> tensor<64x64xi32>
    %sbs = txl.splat %sb : i32 -> tensor<64x1xi32>
    %bk = arith.muli %brows, %sbs : tensor<64x1xi32>
    %bkb = txl.broadcast %bk : tensor<64x1xi32> -> tensor<64x64xi32>
    %bo = arith.addi %bkb, %bcb : tensor<64x64xi32>
    %bs = txl.splat %b : !txl.ptr<f16> -> tensor<64x64x!txl.ptr<f16>>
    %pb0 = txl.addptr %bs, %bo : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
    %sb64 = arith.muli %sb, %c64 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %res:3 = scf.for %i = %c0 to %k step %c64 iter_args(%acc = %zero, %pa = %pa0, %pb = %pb0)
        -> (tensor<64x64xf32>, tensor<64x64x!txl.ptr<f16>>, tensor<64x64x!txl.ptr<f16>>) : i32 {
      %left = arith.subi %k, %i : i32
      %kr = txl.make_range 0, 64 : tensor<64xi32>
      %kc = txl.expand_dims %kr, 0 : tensor<64xi32> -> tensor<1x64xi32>
      %lr = txl.splat %left : i32 -> tensor<1x64xi32>
      %mr = arith.cmpi slt, %kc, %lr : tensor<1x64xi32>
      %ma = txl.broadcast %mr : tensor<1x64xi1> -> tensor<64x64xi1>
      %zfa = arith.constant dense<0.0> : tensor<64x64xf16>
      %ta = txl.load %pa mask %ma other %zfa : tensor<64x64x!txl.ptr<f16>> -> tensor<64x64xf16>
      %kr2 = txl.make_range 0, 64 : tensor<64xi32>
      %kc2 = txl.expand_dims %kr2, 1 : tensor<64xi32> -> tensor<64x1xi32>
      %lc = txl.splat %left : i32 -> tensor<64x1xi32>
      %mc = arith.cmpi slt, %kc2, %lc : tensor<64x1xi32>
      %mb = txl.broadcast %mc : tensor<64x1xi1> -> tensor<64x64xi1>
      %zfb = arith.constant dense<0.0> : tensor<64x64xf16>
      %tb = txl.load %pb mask %mb other %zfb : tensor<64x64x!txl.ptr<f16>> -> tensor<64x64xf16>
      %d = txl.dot %ta, %tb, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
      %da = arith.constant dense<64> : tensor<64x64xi32>
      %pa1 = txl.addptr %pa, %da : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
      %db = txl.splat %sb64 : i32 -> tensor<64x64xi32>
      %pb1 = txl.addptr %pb, %db : tensor<64x64x!txl.ptr<f16>>, tensor<64x64xi32>
      scf.yield %d, %pa1, %pb1 : tensor<64x64xf32>, tensor<64x64x!txl.ptr<f16>>, tensor<64x64x!txl.ptr<f16>>
    }
    return %res#0 : tensor<64x64xf32>
  }
}

// -----

// A vector load in a loop of dots (the attention backward's row statistics m
// and Delta per block) gets a cp.async ring too: loaded in the iteration that
// reads it, its latency would stall the dot's consumer. No dot reads its
// slot, so num_stages - 1 slots, a plain (unswizzled) buffer; 64-byte-aligned
// f32: 4 per copy.
// CHECK-LABEL: func.func @vector_in_dot_loop
// CHECK: %[[RING:.*]] = txl.smem_alloc {txl.ring} : !txl.smem<64xf32, stages = 2>
// CHECK: scf.for
// CHECK:   txl.async_load %{{.*}}, %{{.*}} {contiguity = 4 : i32, txl.order = {{[0-9]+}} : i32, txl.stage = 0 : i32} : tensor<64x!txl.ptr<f32>>, !txl.smem<64xf32>
// CHECK:   txl.async_load_wait 1 {txl.order = {{[0-9]+}} : i32, txl.stage = 2 : i32}
// CHECK:   txl.smem_load %{{.*}} {txl.order = {{[0-9]+}} : i32, txl.stage = 2 : i32} : !txl.smem<64xf32> -> tensor<64xf32>
// CHECK: } {txl.num_stages = 3 : i32}
// CHECK: txl.async_load_wait 0
module attributes {txl.target = "sm_90a"} {
  func.func @vector_in_dot_loop(%q: tensor<64x64xf16>, %k: tensor<64x64xf16>, %m: !txl.ptr<f32> {txl.divisibility = 16 : i32}, %n: i32 {txl.divisibility = 16 : i32}) -> tensor<64x64xf32>
      attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_stages = 3 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
      %offs = txl.make_range 0, 64 : tensor<64xi32>
      %is = txl.splat %i : i32 -> tensor<64xi32>
      %o = arith.addi %is, %offs : tensor<64xi32>
      %ms = txl.splat %m : !txl.ptr<f32> -> tensor<64x!txl.ptr<f32>>
      %ptrs = txl.addptr %ms, %o : tensor<64x!txl.ptr<f32>>, tensor<64xi32>
      %mv = txl.load %ptrs : tensor<64x!txl.ptr<f32>> -> tensor<64xf32>
      %s = txl.dot %q, %k, %zero : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
      %me = txl.expand_dims %mv, 0 : tensor<64xf32> -> tensor<1x64xf32>
      %mb = txl.broadcast %me : tensor<1x64xf32> -> tensor<64x64xf32>
      %t = arith.subf %s, %mb : tensor<64x64xf32>
      %acc2 = arith.addf %acc, %t : tensor<64x64xf32>
      scf.yield %acc2 : tensor<64x64xf32>
    }
    return %r : tensor<64x64xf32>
  }
}

// -----

// Without a dot in the loop (a reduction over rows, layer norm's backward)
// a vector load stays a plain load: staging it would only add shared-memory
// traffic.
// CHECK-LABEL: func.func @vector_without_dot
// CHECK: scf.for
// CHECK:   txl.load %{{.*}} : tensor<64x!txl.ptr<f32>> -> tensor<64xf32>
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @vector_without_dot(%m: !txl.ptr<f32> {txl.divisibility = 16 : i32}, %n: i32 {txl.divisibility = 16 : i32}) -> tensor<64xf32>
      attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_stages = 3 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %zero = arith.constant dense<0.0> : tensor<64xf32>
    %r = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<64xf32>) : i32 {
      %offs = txl.make_range 0, 64 : tensor<64xi32>
      %is = txl.splat %i : i32 -> tensor<64xi32>
      %o = arith.addi %is, %offs : tensor<64xi32>
      %ms = txl.splat %m : !txl.ptr<f32> -> tensor<64x!txl.ptr<f32>>
      %ptrs = txl.addptr %ms, %o : tensor<64x!txl.ptr<f32>>, tensor<64xi32>
      %mv = txl.load %ptrs : tensor<64x!txl.ptr<f32>> -> tensor<64xf32>
      %acc2 = arith.addf %acc, %mv : tensor<64xf32>
      scf.yield %acc2 : tensor<64xf32>
    }
    return %r : tensor<64xf32>
  }
}

// -----

// A vector larger than 2 KB (here 1024 f32) stays a plain load even in a loop
// of dots: its ring would take the tiles' shared memory.
// CHECK-LABEL: func.func @large_vector_in_dot_loop
// CHECK: scf.for
// CHECK:   txl.load %{{.*}} : tensor<1024x!txl.ptr<f32>> -> tensor<1024xf32>
// CHECK: return
module attributes {txl.target = "sm_90a"} {
  func.func @large_vector_in_dot_loop(%q: tensor<64x64xf16>, %k: tensor<64x64xf16>, %m: !txl.ptr<f32> {txl.divisibility = 16 : i32}, %n: i32 {txl.divisibility = 16 : i32}) -> (tensor<64x64xf32>, tensor<1024xf32>)
      attributes {txl.kernel, txl.num_warps = 4 : i32, txl.num_stages = 3 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %zv = arith.constant dense<0.0> : tensor<1024xf32>
    %r:2 = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %zero, %vs = %zv) -> (tensor<64x64xf32>, tensor<1024xf32>) : i32 {
      %offs = txl.make_range 0, 1024 : tensor<1024xi32>
      %is = txl.splat %i : i32 -> tensor<1024xi32>
      %o = arith.addi %is, %offs : tensor<1024xi32>
      %ms = txl.splat %m : !txl.ptr<f32> -> tensor<1024x!txl.ptr<f32>>
      %ptrs = txl.addptr %ms, %o : tensor<1024x!txl.ptr<f32>>, tensor<1024xi32>
      %mv = txl.load %ptrs : tensor<1024x!txl.ptr<f32>> -> tensor<1024xf32>
      %s = txl.dot %q, %k, %zero : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
      %acc2 = arith.addf %acc, %s : tensor<64x64xf32>
      %vs2 = arith.addf %vs, %mv : tensor<1024xf32>
      scf.yield %acc2, %vs2 : tensor<64x64xf32>, tensor<1024xf32>
    }
    return %r#0, %r#1 : tensor<64x64xf32>, tensor<1024xf32>
  }
}
