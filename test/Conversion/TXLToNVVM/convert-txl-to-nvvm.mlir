// RUN: txl-opt %s -convert-scf-to-cf -convert-txl-to-nvvm -reconcile-unrealized-casts | FileCheck %s --implicit-check-not=txl.
//
// convert-txl-to-nvvm: kernels, helpers, ids, barriers, setmaxnreg and the
// register tiles. Nothing of the txl dialect may survive (implicit-check-not).

// 16x32 tile over 128 threads: 4 registers (columns c, c+1, c+2, c+3).
#blocked = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// 128 elements, one per thread.
#b1 = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// 256 elements, two consecutive ones per thread.
#b2 = #txl.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// wgmma accumulator, m64n16: 8 registers per thread.
#mma = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 16, 16]>
#row = #txl.slice<dim = 1, parent = #mma>
#brow = #txl.slice<dim = 1, parent = #blocked>

module {
  // Kernel signature: a TMA descriptor by value, a global pointer, a scalar.
  // CHECK-LABEL: llvm.func @signature(
  // CHECK-SAME: %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<16 x i64>, nvvm.grid_constant},
  // CHECK-SAME: %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32)
  // No setmaxnreg, so no .minnctapersm (it would let ptxas spend registers as
  // if one CTA per SM were enough).
  // CHECK-SAME: attributes {nvvm.kernel, nvvm.reqntid = array<i32: 256, 1, 1>, txl.shared_bytes = 1024 : i64}
  // CHECK-NOT: unrealized_conversion_cast
  // CHECK: llvm.return
  func.func @signature(%desc: !txl.tensordesc<64x64xbf16>, %out: !txl.ptr<f32>, %n: i32)
      attributes {txl.kernel, txl.num_warps = 8 : i32, txl.shared_bytes = 1024 : i64} {
    // What a stage leaves for a descriptor it consumed.
    %d = builtin.unrealized_conversion_cast %desc : !txl.tensordesc<64x64xbf16> to !llvm.ptr
    return
  }

  // A helper stays a plain function; num_warps defaults to 4.
  // CHECK-LABEL: llvm.func @helper(%{{.*}}: f32) -> f32 {
  // CHECK: llvm.fmul
  // CHECK: llvm.return
  func.func @helper(%x: f32) -> f32 {
    %y = arith.mulf %x, %x : f32
    return %y : f32
  }

  // CHECK-LABEL: llvm.func @ids(
  // CHECK-SAME: attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>}
  func.func @ids(%out: !txl.ptr<i32>) attributes {txl.kernel} {
    // CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
    %tid = txl.tid
    // CHECK: %[[T1:.*]] = nvvm.read.ptx.sreg.tid.x : i32
    // CHECK: %[[C32:.*]] = llvm.mlir.constant(32 : i32)
    // CHECK: llvm.udiv %[[T1]], %[[C32]]
    %w = txl.warp_id
    // CHECK: nvvm.read.ptx.sreg.tid.x
    // CHECK: llvm.mlir.constant(128 : i32)
    // CHECK: llvm.udiv
    %wg = txl.warpgroup_id
    // CHECK: nvvm.read.ptx.sreg.laneid : i32
    %l = txl.lane_id
    // CHECK: nvvm.read.ptx.sreg.ctaid.x
    // CHECK: nvvm.read.ptx.sreg.ctaid.y
    // CHECK: nvvm.read.ptx.sreg.ctaid.z
    %p0 = txl.program_id 0
    %p1 = txl.program_id 1
    %p2 = txl.program_id 2
    // CHECK: nvvm.read.ptx.sreg.nctaid.x
    // CHECK: nvvm.read.ptx.sreg.nctaid.y
    // CHECK: nvvm.read.ptx.sreg.nctaid.z
    %n0 = txl.num_programs 0
    %n1 = txl.num_programs 1
    %n2 = txl.num_programs 2
    // CHECK: nvvm.read.ptx.sreg.cluster.ctarank
    %r = txl.cta_rank
    // A scalar store of a sum of all of them keeps them alive.
    // CHECK: llvm.add
    %s0 = arith.addi %tid, %w : i32
    %s1 = arith.addi %s0, %wg : i32
    %s2 = arith.addi %s1, %l : i32
    %s3 = arith.addi %s2, %p0 : i32
    %s4 = arith.addi %s3, %p1 : i32
    %s5 = arith.addi %s4, %p2 : i32
    %s6 = arith.addi %s5, %n0 : i32
    %s7 = arith.addi %s6, %n1 : i32
    %s8 = arith.addi %s7, %n2 : i32
    %s9 = arith.addi %s8, %r : i32
    // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<1>
    txl.store %out, %s9 : !txl.ptr<i32>, i32
    return
  }

  // Warp specialization: roles, setmaxnreg, named barriers. setmaxnreg needs
  // a known entry register count: .minnctapersm 1.
  // CHECK-LABEL: llvm.func @roles(
  // CHECK-SAME: attributes {nvvm.kernel, nvvm.minctasm = 1 : i32, nvvm.reqntid = array<i32: 384, 1, 1>}
  func.func @roles() attributes {txl.kernel, txl.num_warps = 12 : i32} {
    // is_warpgroup [0, 2]: tid / 128 compared with each id, OR-ed.
    // CHECK: %[[T:.*]] = nvvm.read.ptx.sreg.tid.x
    // CHECK: %[[WG:.*]] = llvm.udiv %[[T]], %{{.*}}
    // CHECK: %[[E0:.*]] = llvm.icmp "eq" %[[WG]], %{{.*}}
    // CHECK: %[[E2:.*]] = llvm.icmp "eq" %[[WG]], %{{.*}}
    // CHECK: %[[P:.*]] = llvm.or %[[E0]], %[[E2]]
    // CHECK: llvm.cond_br %[[P]]
    %producer = txl.is_warpgroup [0, 2]
    scf.if %producer {
      // CHECK: nvvm.setmaxregister decrease 40
      txl.reg_dealloc 40
      // CHECK: %[[B:.*]] = llvm.mlir.constant(8 : i32)
      // CHECK: %[[N:.*]] = llvm.mlir.constant(256 : i32)
      // CHECK: nvvm.barrier.arrive id = %[[B]] number_of_threads = %[[N]]
      txl.bar_arrive 8, 256
    } else {
      // CHECK: nvvm.setmaxregister increase 232
      txl.reg_alloc 232
      // CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
      txl.bar_wait 8, 256
    }
    // is_warp [8]: tid / 32 == 8.
    // CHECK: nvvm.read.ptx.sreg.tid.x
    // CHECK: llvm.mlir.constant(32 : i32)
    // CHECK: llvm.udiv
    // CHECK: llvm.icmp "eq"
    %mma = txl.is_warp [8]
    scf.if %mma {
      txl.bar_wait 9, 128
    }
    return
  }

  // Elementwise ops on a blocked tile, a splat constant, a loop-carried
  // tile (block arguments of the converted loop), and a call.
  // CHECK-LABEL: llvm.func @elementwise_blocked(
  func.func @elementwise_blocked(%x: f32, %n: i32) attributes {txl.kernel} {
    // CHECK: %[[ONE:.*]] = llvm.mlir.constant(1.000000e+00 : f32) : f32
    // CHECK-COUNT-4: llvm.insertvalue %[[ONE]]
    %one = arith.constant dense<1.0> : tensor<16x32xf32, #blocked>
    // CHECK: %[[CALL:.*]] = llvm.call @helper(
    %h = func.call @helper(%x) : (f32) -> f32
    // CHECK-COUNT-4: llvm.insertvalue %[[CALL]]
    %t = txl.splat %h : f32 -> tensor<16x32xf32, #blocked>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    // CHECK: llvm.br ^[[HEAD:.*]](%{{.*}}, %{{.*}} : i32, !llvm.struct<(f32, f32, f32, f32)>)
    // CHECK: ^[[HEAD]](%{{.*}}: i32, %{{.*}}: !llvm.struct<(f32, f32, f32, f32)>)
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %one) -> (tensor<16x32xf32, #blocked>) : i32 {
      // CHECK-COUNT-4: llvm.fadd {{.*}} : f32
      %s = arith.addf %acc, %t : tensor<16x32xf32, #blocked>
      // CHECK-COUNT-4: llvm.fmul {{.*}} {fastmathFlags = #llvm.fastmath<fast>} : f32
      %m = arith.mulf %s, %t fastmath<fast> : tensor<16x32xf32, #blocked>
      scf.yield %m : tensor<16x32xf32, #blocked>
    }
    // cmpf and select with a tile condition.
    // CHECK-COUNT-4: llvm.fcmp "ogt"
    %gt = arith.cmpf ogt, %r, %one : tensor<16x32xf32, #blocked>
    // CHECK-COUNT-4: llvm.select {{.*}} : i1, f32
    %sel = arith.select %gt, %r, %one : tensor<16x32xi1, #blocked>, tensor<16x32xf32, #blocked>
    // Packed pairs: a <2 x f32> fptrunc per register pair (cvt.rn.bf16x2.f32).
    // CHECK-COUNT-2: llvm.fptrunc {{.*}} : vector<2xf32> to vector<2xbf16>
    %bf = arith.truncf %sel : tensor<16x32xf32, #blocked> to tensor<16x32xbf16, #blocked>
    // A no-op relayout (the same linear layout spelled twice) reuses the struct.
    // CHECK-NOT: llvm.extractvalue
    %same = txl.relayout %bf : tensor<16x32xbf16, #blocked> -> tensor<16x32xbf16, #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>
    // CHECK: llvm.return
    return
  }

  // Softmax-style row statistics on a wgmma accumulator: the row max needs
  // 4 in-thread steps per row pair and lanes 1 and 2 (2 butterflies per row,
  // 2 rows per thread), then expand_dims + broadcast back without moving data.
  // CHECK-LABEL: llvm.func @softmax_nvmma(
  func.func @softmax_nvmma(%acc: tensor<64x16xf32, #mma>) -> tensor<64x16xbf16, #mma> {
    // CHECK-COUNT-4: nvvm.shfl.sync bfly
    // CHECK-NOT: nvvm.shfl.sync
    %m = txl.reduce %acc axis 1 : (tensor<64x16xf32, #mma>) -> tensor<64xf32, #row> {
    ^bb0(%a: f32, %b: f32):
      %x = arith.maxnumf %a, %b : f32
      txl.reduce_return %x : f32
    }
    %m2 = txl.expand_dims %m, 1 : tensor<64xf32, #row> -> tensor<64x1xf32, #mma>
    %mb = txl.broadcast %m2 : tensor<64x1xf32, #mma> -> tensor<64x16xf32, #mma>
    // CHECK-COUNT-8: llvm.fsub {{.*}} : f32
    %d = arith.subf %acc, %mb : tensor<64x16xf32, #mma>
    // CHECK-COUNT-8: llvm.intr.exp2
    %e = math.exp2 %d : tensor<64x16xf32, #mma>
    // CHECK-COUNT-4: llvm.fptrunc {{.*}} : vector<2xf32> to vector<2xbf16>
    // CHECK-NOT: llvm.fptrunc
    %p = arith.truncf %e : tensor<64x16xf32, #mma> to tensor<64x16xbf16, #mma>
    // f32 log2 / log / exp go through lg2.approx and ex2.approx (no libdevice).
    // CHECK-COUNT-8: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%{{.*}}) : (f32) -> f32
    %lg = math.log2 %e : tensor<64x16xf32, #mma>
    // CHECK: %[[LN2:.*]] = llvm.mlir.constant(0.693147182 : f32)
    // CHECK: llvm.fmul %{{.*}}, %[[LN2]]
    %ln = math.log %lg : tensor<64x16xf32, #mma>
    // CHECK: %[[LOG2E:.*]] = llvm.mlir.constant(1.44269502 : f32)
    // CHECK: %[[X:.*]] = llvm.fmul %{{.*}}, %[[LOG2E]]
    // CHECK: llvm.intr.exp2(%[[X]])
    %ex = math.exp %ln : tensor<64x16xf32, #mma>
    // f32 division with `afn` (Triton's `/`) is div.full.f32; without it
    // (tl.div_rn) the IEEE llvm.fdiv; with `arcp` too (fast_dividef) an
    // llvm.fdiv that NVPTX makes div.approx.f32.
    // CHECK-COUNT-8: llvm.call_intrinsic "llvm.nvvm.div.full"(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
    %q = arith.divf %ex, %lg fastmath<afn> : tensor<64x16xf32, #mma>
    // CHECK-COUNT-8: llvm.fdiv %{{.*}}, %{{.*}} : f32
    %qrn = arith.divf %q, %lg : tensor<64x16xf32, #mma>
    // CHECK-COUNT-8: llvm.fdiv %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<arcp, afn>} : f32
    %qap = arith.divf %qrn, %lg fastmath<arcp,afn> : tensor<64x16xf32, #mma>
    // CHECK: llvm.return %{{.*}} : !llvm.struct<(bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16)>
    return %p : tensor<64x16xbf16, #mma>
  }

  // Row sum over a blocked tile: 4 registers per row in the thread, then 8
  // lanes along the row (3 butterflies: lanes 1, 2, 4).
  // CHECK-LABEL: llvm.func @reduce_blocked(
  // CHECK-SAME: -> !llvm.struct<(f32)>
  func.func @reduce_blocked(%t: tensor<16x32xf32, #blocked>) -> tensor<16xf32, #brow> {
    // CHECK-COUNT-3: llvm.fadd
    // CHECK: %[[C1:.*]] = llvm.mlir.constant(1 : i32)
    // CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %[[C1]], %{{.*}} : f32 -> f32
    // CHECK: llvm.fadd
    // CHECK: %[[C2:.*]] = llvm.mlir.constant(2 : i32)
    // CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %[[C2]], %{{.*}} : f32 -> f32
    // CHECK: llvm.fadd
    // CHECK: %[[C4:.*]] = llvm.mlir.constant(4 : i32)
    // CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %[[C4]], %{{.*}} : f32 -> f32
    // CHECK: llvm.fadd
    // CHECK-NOT: nvvm.shfl.sync
    %s = txl.reduce %t axis 1 : (tensor<16x32xf32, #blocked>) -> tensor<16xf32, #brow> {
    ^bb0(%a: f32, %b: f32):
      %x = arith.addf %a, %b : f32
      txl.reduce_return %x : f32
    }
    return %s : tensor<16xf32, #brow>
  }

  // scan along columns of the 16x32 blocked tile: register bits 0..1 (columns
  // 1, 2) in the thread, then lane bits 0..2 (columns 4, 8, 16), one
  // shfl.sync.bfly of the run total per step (the thread's four registers
  // share it), the upper lanes (bit set) prepending the partner's total.
  // CHECK-LABEL: llvm.func @scan_blocked(
  func.func @scan_blocked(%t: tensor<16x32xi32, #blocked>) -> tensor<16x32xi32, #blocked> {
    // CHECK-COUNT-7: llvm.add
    // CHECK-NOT: nvvm.shfl.sync
    // CHECK: %[[M1:.*]] = llvm.mlir.constant(1 : i32)
    // CHECK: %[[O1:.*]] = nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %[[M1]], %{{.*}} : i32 -> i32
    // CHECK: %[[UP1:.*]] = llvm.icmp "ne"
    // CHECK: %[[S1:.*]] = llvm.add %[[O1]], %{{.*}} : i32
    // CHECK: llvm.select %[[UP1]], %[[S1]], %{{.*}} : i1, i32
    // CHECK: %[[M2:.*]] = llvm.mlir.constant(2 : i32)
    // CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %[[M2]], %{{.*}} : i32 -> i32
    // CHECK: %[[M4:.*]] = llvm.mlir.constant(4 : i32)
    // CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %[[M4]], %{{.*}} : i32 -> i32
    // CHECK-NOT: nvvm.shfl.sync
    // CHECK-NOT: nvvm.barrier
    // CHECK: llvm.return
    %s = txl.scan %t axis 1 : (tensor<16x32xi32, #blocked>) -> tensor<16x32xi32, #blocked> {
    ^bb0(%a: i32, %b: i32):
      %x = arith.addi %a, %b : i32
      txl.reduce_return %x : i32
    }
    return %s : tensor<16x32xi32, #blocked>
  }

  // A reverse scan of 128 elements, one per thread: five lane steps (the
  // lower lanes, bit clear, take the partner's total: the bit, negated), then warp
  // bits 0 and 1 (elements 32 and 64 away) through the scratch: barrier,
  // store the run total at the element's byte offset, barrier, load the
  // partner's at offset ^ 32 (^ 64) elements. The combiner (a subtraction,
  // not commutative) keeps the earlier-in-scan-order operand first.
  // CHECK-LABEL: llvm.func @scan_warps(
  func.func @scan_warps(%t: tensor<128xf32, #b1>, %sc: !txl.smem<512xi8>) -> tensor<128xf32, #b1> {
    // CHECK-COUNT-5: nvvm.shfl.sync bfly
    // CHECK-NOT: nvvm.shfl.sync
    // CHECK: nvvm.barrier id
    // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
    // CHECK: nvvm.barrier id
    // CHECK: %[[X32:.*]] = llvm.mlir.constant(32 : i32)
    // CHECK: llvm.xor %{{.*}}, %[[X32]]
    // CHECK: %[[P1:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
    // CHECK: %[[O1:.*]] = llvm.bitcast %[[P1]] : i32 to f32
    // CHECK: %[[UP1:.*]] = llvm.icmp "ne"
    // CHECK: %[[LOW1:.*]] = llvm.xor %[[UP1]], %{{.*}} : i1
    // CHECK: %[[S1:.*]] = llvm.fsub %[[O1]], %{{.*}} : f32
    // CHECK: llvm.select %[[LOW1]], %[[S1]], %{{.*}} : i1, f32
    // CHECK: nvvm.barrier id
    // CHECK: llvm.store
    // CHECK: nvvm.barrier id
    // CHECK: %[[X64:.*]] = llvm.mlir.constant(64 : i32)
    // CHECK: llvm.xor %{{.*}}, %[[X64]]
    // CHECK: llvm.load
    // CHECK-NOT: nvvm.barrier
    // CHECK: llvm.return
    %s = txl.scan %t axis 0 reverse scratch(%sc : !txl.smem<512xi8>) : (tensor<128xf32, #b1>) -> tensor<128xf32, #b1> {
    ^bb0(%a: f32, %b: f32):
      %x = arith.subf %a, %b : f32
      txl.reduce_return %x : f32
    }
    return %s : tensor<128xf32, #b1>
  }

  // flip along the columns of the 16x32 blocked tile: register bits 0..1
  // reverse the thread's four registers (no instruction), lane bits 0..2
  // (columns 4, 8, 16) each take the partner lane's registers.
  // CHECK-LABEL: llvm.func @flip_blocked(
  func.func @flip_blocked(%t: tensor<16x32xi32, #blocked>) -> tensor<16x32xi32, #blocked> {
    // CHECK-DAG: %[[R0:.*]] = llvm.extractvalue %arg0[0]
    // CHECK-DAG: %[[R3:.*]] = llvm.extractvalue %arg0[3]
    // CHECK: %[[M1:.*]] = llvm.mlir.constant(1 : i32)
    // CHECK: nvvm.shfl.sync bfly %{{.*}}, %[[R3]], %[[M1]], %{{.*}} : i32 -> i32
    // CHECK-COUNT-3: nvvm.shfl.sync bfly
    // CHECK: %[[M2:.*]] = llvm.mlir.constant(2 : i32)
    // CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %[[M2]], %{{.*}} : i32 -> i32
    // CHECK-COUNT-3: nvvm.shfl.sync bfly
    // CHECK: %[[M4:.*]] = llvm.mlir.constant(4 : i32)
    // CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %[[M4]], %{{.*}} : i32 -> i32
    // CHECK-COUNT-3: nvvm.shfl.sync bfly
    // CHECK-NOT: nvvm.shfl.sync
    // CHECK: llvm.return
    %f = txl.flip %t axis 1 : tensor<16x32xi32, #blocked>
    return %f : tensor<16x32xi32, #blocked>
  }

  // sort of a 32-element tile in #b1 (lanes hold it; the other warps hold
  // copies): the 15 compare-exchange steps of a 32-element bitonic network,
  // each a shuffle, a signed compare and a select.
  // CHECK-LABEL: llvm.func @sort_lanes(
  func.func @sort_lanes(%t: tensor<32xi32, #b1>) -> tensor<32xi32, #b1> {
    // CHECK-COUNT-15: nvvm.shfl.sync bfly
    // CHECK-NOT: nvvm.shfl.sync
    // CHECK: llvm.icmp "slt"
    // CHECK: llvm.return
    %s = txl.sort %t axis 0 : tensor<32xi32, #b1>
    return %s : tensor<32xi32, #b1>
  }

  // assert: the thread's four condition registers, negated and or-ed, branch
  // to a call of __assertfail(message, file, line, function, 1) with the
  // op's file and line and the enclosing function's name.
  // CHECK-LABEL: llvm.func @assert_tile(
  func.func @assert_tile(%c: tensor<16x32xi1, #blocked>) {
    // CHECK: %[[TRUE:.*]] = llvm.mlir.constant(true) : i1
    // CHECK: %[[N0:.*]] = llvm.xor %{{.*}}, %[[TRUE]] : i1
    // CHECK: %[[N1:.*]] = llvm.xor %{{.*}}, %[[TRUE]] : i1
    // CHECK: %[[A1:.*]] = llvm.or %[[N0]], %[[N1]] : i1
    // CHECK: %[[N2:.*]] = llvm.xor %{{.*}}, %[[TRUE]] : i1
    // CHECK: %[[A2:.*]] = llvm.or %[[A1]], %[[N2]] : i1
    // CHECK: %[[N3:.*]] = llvm.xor %{{.*}}, %[[TRUE]] : i1
    // CHECK: %[[ANY:.*]] = llvm.or %[[A2]], %[[N3]] : i1
    // CHECK: llvm.cond_br %[[ANY]], ^[[FAIL:.*]], ^[[OK:bb[0-9]+]]
    // CHECK: ^[[FAIL]]:
    // CHECK-DAG: %[[MSG:.*]] = llvm.mlir.addressof @txl_assert_msg_{{[0-9]+}}
    // CHECK-DAG: %[[FILE:.*]] = llvm.mlir.addressof @txl_assert_file_{{[0-9]+}}
    // CHECK-DAG: %[[LINE:.*]] = llvm.mlir.constant(7 : i32)
    // CHECK-DAG: %[[FN:.*]] = llvm.mlir.addressof @txl_assert_func_{{[0-9]+}}
    // CHECK: llvm.call @__assertfail(%[[MSG]], %[[FILE]], %[[LINE]], %[[FN]], %{{.*}}) : (!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64) -> ()
    // CHECK: llvm.br ^[[OK]]
    // CHECK: ^[[OK]]:
    // CHECK: llvm.return
    txl.assert %c, "row in range" : tensor<16x32xi1, #blocked> loc("kernel.py":7:3)
    return
  }

  // make_range: each register's coordinate is the lane/warp part of
  // threadIdx.x XOR the register's constant part.
  // CHECK-LABEL: llvm.func @make_range(
  func.func @make_range() -> (tensor<256xi32, #b2>, tensor<16xi32, #brow>) {
    // Lanes then warps walk the range (tid bits 0..6 are coordinates 2..128):
    // ((tid & 127) * 2), and register 1 adds coordinate 1.
    // CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
    // CHECK: %[[M:.*]] = llvm.mlir.constant(127 : i32)
    // CHECK: %[[F:.*]] = llvm.and %[[TID]], %[[M]]
    // CHECK: %[[C2:.*]] = llvm.mlir.constant(2 : i32)
    // CHECK: %[[THR:.*]] = llvm.mul %[[F]], %[[C2]]
    // CHECK: %[[K:.*]] = llvm.mlir.constant(1 : i32)
    // CHECK: %[[R1:.*]] = llvm.xor %[[THR]], %[[K]]
    // CHECK: %[[S:.*]] = llvm.insertvalue %[[THR]], %{{.*}}[0]
    // CHECK: llvm.insertvalue %[[R1]], %[[S]][1]
    %r = txl.make_range 0, 256 : tensor<256xi32, #b2>
    // Rows of the 16x32 blocked tile: lane bits 3..4 and warp bits 0..1,
    // i.e. (tid >> 3) & 15, one register.
    // CHECK: %[[TID2:.*]] = nvvm.read.ptx.sreg.tid.x
    // CHECK: %[[C3:.*]] = llvm.mlir.constant(3 : i32)
    // CHECK: %[[SH:.*]] = llvm.lshr %[[TID2]], %[[C3]]
    // CHECK: %[[C15:.*]] = llvm.mlir.constant(15 : i32)
    // CHECK: %[[ROW:.*]] = llvm.and %[[SH]], %[[C15]]
    // CHECK: llvm.insertvalue %[[ROW]], %{{.*}}[0] : !llvm.struct<(i32)>
    %rows = txl.make_range 0, 16 : tensor<16xi32, #brow>
    return %r, %rows : tensor<256xi32, #b2>, tensor<16xi32, #brow>
  }

  // Masked copy through tiles of pointers: predicated PTX loads and stores.
  // CHECK-LABEL: llvm.func @masked_copy(
  func.func @masked_copy(%src: !txl.ptr<f32>, %dst: !txl.ptr<bf16>, %n: i32) attributes {txl.kernel} {
    // CHECK: nvvm.read.ptx.sreg.tid.x
    %offs = txl.make_range 0, 128 : tensor<128xi32, #b1>
    // CHECK: %[[START:.*]] = llvm.mlir.constant(16 : i32)
    // CHECK: llvm.add %{{.*}}, %[[START]]
    %offs2 = txl.make_range 16, 144 : tensor<128xi32, #b1>
    %nt = txl.splat %n : i32 -> tensor<128xi32, #b1>
    // CHECK: llvm.icmp "slt"
    %mask = arith.cmpi slt, %offs, %nt : tensor<128xi32, #b1>
    %sp = txl.splat %src : !txl.ptr<f32> -> tensor<128x!txl.ptr<f32>, #b1>
    // CHECK: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    %p = txl.addptr %sp, %offs : tensor<128x!txl.ptr<f32>, #b1>, tensor<128xi32, #b1>
    %zero = arith.constant dense<0.0> : tensor<128xf32, #b1>
    // CHECK: %[[OTHER:.*]] = llvm.bitcast %{{.*}} : f32 to i32
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 ld.global.b32 $0, [$1];", "=r,l,b,0" %{{.*}}, %{{.*}}, %[[OTHER]] : (!llvm.ptr<1>, i1, i32) -> i32
    // CHECK: llvm.bitcast %{{.*}} : i32 to f32
    %x = txl.load %p mask %mask other %zero : tensor<128x!txl.ptr<f32>, #b1> -> tensor<128xf32, #b1>
    // Unmasked, with a cache hint: predicated on true.
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 ld.global.cg.b32 $0, [$1];"
    %y = txl.load %p {cache = #txl<cache cg>} : tensor<128x!txl.ptr<f32>, #b1> -> tensor<128xf32, #b1>
    // Unmasked: a plain load.
    // CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
    %z = txl.load %p : tensor<128x!txl.ptr<f32>, #b1> -> tensor<128xf32, #b1>
    %xy = arith.addf %x, %y : tensor<128xf32, #b1>
    %xyz = arith.addf %xy, %z : tensor<128xf32, #b1>
    %v = arith.truncf %xyz : tensor<128xf32, #b1> to tensor<128xbf16, #b1>
    %dp = txl.splat %dst : !txl.ptr<bf16> -> tensor<128x!txl.ptr<bf16>, #b1>
    // CHECK: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, bf16
    %q = txl.addptr %dp, %offs2 : tensor<128x!txl.ptr<bf16>, #b1>, tensor<128xi32, #b1>
    // CHECK: %[[BITS:.*]] = llvm.bitcast %{{.*}} : bf16 to i16
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 st.global.b16 [$0], $1;", "l,h,b" %{{.*}}, %[[BITS]], %{{.*}} : (!llvm.ptr<1>, i16, i1) -> ()
    txl.store %q, %v mask %mask : tensor<128x!txl.ptr<bf16>, #b1>, tensor<128xbf16, #b1>
    // A scalar masked load through a txl.ptr.
    // CHECK: %[[SP:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 ld.global.b32 $0, [$1];", "=r,l,b,0" %[[SP]]
    %one = arith.constant 1 : i32
    %true = arith.constant true
    %c0 = arith.constant 0.0 : f32
    %s = txl.addptr %src, %one : !txl.ptr<f32>, i32
    %sv = txl.load %s mask %true other %c0 : !txl.ptr<f32> -> f32
    // A scalar store: one thread of the warpgroup stores (store-copies.mlir).
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 st.global.b32 [$0], $1;", "l,r,b"
    txl.store %src, %sv : !txl.ptr<f32>, f32
    return
  }

  // A cluster of 2 CTAs: the cluster shape is nvvm.cluster_dim (txl.num_ctas
  // goes), a program is a cluster (program_id(0) / num_programs(0) read
  // %clusterid.x / %nclusterid.x; the other axes stay per CTA), and the
  // cluster barrier is arrive + wait.
  // CHECK-LABEL: llvm.func @cluster(
  // CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
  // CHECK-NOT: txl.num_ctas
  func.func @cluster(%out: !txl.ptr<i32>) attributes {txl.kernel, txl.num_ctas = 2 : i32} {
    // CHECK: nvvm.read.ptx.sreg.clusterid.x
    %p0 = txl.program_id 0
    // CHECK: nvvm.read.ptx.sreg.ctaid.y
    %p1 = txl.program_id 1
    // CHECK: nvvm.read.ptx.sreg.nclusterid.x
    %n0 = txl.num_programs 0
    // CHECK: nvvm.cluster.arrive {aligned}
    // CHECK-NEXT: nvvm.cluster.wait {aligned}
    txl.cluster_barrier
    %s0 = arith.addi %p0, %p1 : i32
    %s1 = arith.addi %s0, %n0 : i32
    txl.store %out, %s1 : !txl.ptr<i32>, i32
    return
  }
}
