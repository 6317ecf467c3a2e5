// REQUIRES: ptxas
// RUN: rm -f %t.*.ptx
// RUN: txlc %s --arch=sm_90a --emit=ptx -o %t.16.ptx
// RUN: FileCheck %s --check-prefix=B16 --implicit-check-not=cp.async.ca --implicit-check-not=cp.async.cg --implicit-check-not=ld.global < %t.16.ptx
// RUN: %ptxas -arch=sm_90a %t.16.ptx -o %t.16.cubin
// RUN: sed -e 's/sa: i32 {txl.divisibility = 16 : i32}/sa: i32 {txl.divisibility = 4 : i32}/' -e 's/sb: i32 {txl.divisibility = 16 : i32}/sb: i32 {txl.divisibility = 4 : i32}/' %s > %t.8.mlir
// RUN: txlc %t.8.mlir --arch=sm_90a --emit=ptx -o %t.8.ptx
// RUN: FileCheck %s --check-prefix=B8 --implicit-check-not=cp.async.ca --implicit-check-not=cp.async.cg --implicit-check-not=ld.global < %t.8.ptx
// RUN: %ptxas -arch=sm_90a %t.8.ptx -o %t.8.cubin
// RUN: sed -e 's/sa: i32 {txl.divisibility = 16 : i32}/sa: i32 {txl.divisibility = 2 : i32}/' -e 's/sb: i32 {txl.divisibility = 16 : i32}/sb: i32 {txl.divisibility = 2 : i32}/' %s > %t.4.mlir
// RUN: txlc %t.4.mlir --arch=sm_90a --emit=ptx -o %t.4.ptx
// RUN: FileCheck %s --check-prefix=B4 --implicit-check-not=cp.async.ca --implicit-check-not=cp.async.cg --implicit-check-not=ld.global < %t.4.ptx
// RUN: %ptxas -arch=sm_90a %t.4.ptx -o %t.4.cubin
// RUN: sed -e 's/sa: i32 {txl.divisibility = 16 : i32}/sa: i32/' %s > %t.odd.mlir
// RUN: txlc %t.odd.mlir --arch=sm_90a --emit=ptx -o %t.odd.ptx
// RUN: FileCheck %s --check-prefix=ODD --implicit-check-not=cp.async.ca --implicit-check-not=cp.async.cg < %t.odd.ptx
// RUN: FileCheck %s --check-prefix=ODD-LD --implicit-check-not=ld.global < %t.odd.ptx
// RUN: %ptxas -arch=sm_90a %t.odd.ptx -o %t.odd.cubin

// The width of each cp.async of a pipelined pointer-tile load is what is
// proven aligned (txl-schedule-loops records it, txl-lower-loads emits it):
// a cp.async whose global address is not aligned to its size faults on the
// GPU ("misaligned address"). One f16 GEMM loop (acc += A[64 x 64] @ B[64 x
// 64], A at a + m * sa + k, B at b + k * sb + n, K tails masked: each copy
// carries its src-size, 0 for masked-off elements, which zero-fills), with
// the row strides' divisibility varied by sed:
//   - 16 elements (the jit's ":16"): 16-byte copies, .cg (L2 only);
//   - 4 elements: 8-byte copies, .ca (.cg exists for 16 bytes only);
//   - 2 elements: 4-byte copies;
//   - A's stride unknown (an odd K): A is a plain masked load of one element
//     per instruction, B keeps 16-byte copies.
// Each thread copies 32 elements of each tile per iteration; the pipelined
// loop issues them from 3 places (2 prologue iterations and the kernel
// loop), so every count below is 3 x 2 tiles x (64 bytes / copy size), or
// 3 x (64 / 16) for B alone.

// B16-LABEL: .entry gemm_loop(
// B16-COUNT-24: cp.async.cg.shared.global [{{%r[0-9]+(\+[0-9]+)?}}], [{{%rd[0-9]+(\+[0-9]+)?}}], 16, {{%r[0-9]+}};

// B8-LABEL: .entry gemm_loop(
// B8-COUNT-48: cp.async.ca.shared.global [{{%r[0-9]+(\+[0-9]+)?}}], [{{%rd[0-9]+(\+[0-9]+)?}}], 8, {{%r[0-9]+}};

// B4-LABEL: .entry gemm_loop(
// B4-COUNT-96: cp.async.ca.shared.global [{{%r[0-9]+(\+[0-9]+)?}}], [{{%rd[0-9]+(\+[0-9]+)?}}], 4, {{%r[0-9]+}};

// ODD-LABEL: .entry gemm_loop(
// ODD-COUNT-12: cp.async.cg.shared.global [{{%r[0-9]+(\+[0-9]+)?}}], [{{%rd[0-9]+(\+[0-9]+)?}}], 16, {{%r[0-9]+}};
// ODD-LD-LABEL: .entry gemm_loop(
// ODD-LD-COUNT-32: ld.global.b16

module attributes {txl.target = "sm_90a"} {
  func.func @gemm_loop(%a: !txl.ptr<f16> {txl.divisibility = 16 : i32}, %b: !txl.ptr<f16> {txl.divisibility = 16 : i32}, %c: !txl.ptr<f32> {txl.divisibility = 16 : i32}, %k: i32 {txl.divisibility = 16 : i32},
      %sa: i32 {txl.divisibility = 16 : i32}, %sb: i32 {txl.divisibility = 16 : i32})
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
    %cra = txl.make_range 0, 64 : tensor<64xi32>
    %crows = txl.expand_dims %cra, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %crb = txl.make_range 0, 64 : tensor<64xi32>
    %ccols = txl.expand_dims %crb, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %c64t = arith.constant dense<64> : tensor<64x1xi32>
    %cm = arith.muli %crows, %c64t : tensor<64x1xi32>
    %cmb = txl.broadcast %cm : tensor<64x1xi32> -> tensor<64x64xi32>
    %ccb = txl.broadcast %ccols : tensor<1x64xi32> -> tensor<64x64xi32>
    %co = arith.addi %cmb, %ccb : tensor<64x64xi32>
    %cs = txl.splat %c : !txl.ptr<f32> -> tensor<64x64x!txl.ptr<f32>>
    %pc = txl.addptr %cs, %co : tensor<64x64x!txl.ptr<f32>>, tensor<64x64xi32>
    txl.store %pc, %res#0 : tensor<64x64x!txl.ptr<f32>>, tensor<64x64xf32>
    return
  }
}
