// RUN: txl-opt %s -split-input-file -convert-txl-to-nvvm -verify-diagnostics
//
// What convert-txl-to-nvvm refuses, with the reason it gives.

// A register tile without a layout (layout assignment did not run).
func.func @no_layout() {
  // expected-error @+1 {{'arith.constant' produces a register tile without a usable layout ('tensor<16x16xf32>'): the tile has no register layout (run --txl-assign-layouts)}}
  %c = arith.constant dense<0.0> : tensor<16x16xf32>
  return
}

// -----

// A txl.dot the wgmma stage should have lowered.
#mma = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>
func.func @leftover_dot(%a: !txl.smem<64x16xbf16>, %b: !txl.smem<16x64xbf16>,
                        %acc: tensor<64x64xf32, #mma>) {
  // expected-error @+1 {{'txl.dot' must be lowered by --txl-wgmma before convert-txl-to-nvvm}}
  %d = txl.dot %a, %b, %acc : !txl.smem<64x16xbf16>, !txl.smem<16x64xbf16>, tensor<64x64xf32, #mma>
  return
}

// -----

// An mbarrier wait the Mbars stage should have lowered.
func.func @leftover_mbar(%bar: !txl.mbar, %phase: i32) {
  // expected-error @+1 {{'txl.mbar_wait' must be lowered by --txl-mbars before convert-txl-to-nvvm}}
  txl.mbar_wait %bar, %phase : i32
  return
}

// -----

// Elements that change warps: a shared-memory round trip, which needs the
// scratch --txl-allocate-scratch gives the op.
#rows = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>
#cols = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [1, 0]>
func.func @relayout_smem(%t: tensor<32x4xf32, #rows>) -> tensor<32x4xf32, #cols> {
  // expected-error @+1 {{needs a shared-memory round trip, but has no scratch (run --txl-allocate-scratch first)}}
  %r = txl.relayout %t : tensor<32x4xf32, #rows> -> tensor<32x4xf32, #cols>
  return %r : tensor<32x4xf32, #cols>
}

// -----

// A broadcast whose result rows live in other lanes than the source rows.
#src = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>
#dst = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @broadcast(%t: tensor<128x1xf32, #src>) -> tensor<128x32xf32, #dst> {
  // expected-error @+1 {{'txl.broadcast' from 'tensor<128x1xf32, #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>' to 'tensor<128x32xf32, #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>': some result elements live in other threads than their source; needs a layout conversion; not supported yet}}
  %b = txl.broadcast %t : tensor<128x1xf32, #src> -> tensor<128x32xf32, #dst>
  return %b : tensor<128x32xf32, #dst>
}

// -----

// A reduction whose axis is split over warps, without its scratch.
#bw = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
#bws = #txl.slice<dim = 1, parent = #bw>
func.func @cross_warp(%t: tensor<1x128xf32, #bw>) -> tensor<1xf32, #bws> {
  // expected-error @+1 {{'txl.reduce' along axis 1: the warps of #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]> split the reduced axis, so their partial results meet in shared memory, but the op has no scratch (run --txl-allocate-scratch first)}}
  %s = txl.reduce %t axis 1 : (tensor<1x128xf32, #bw>) -> tensor<1xf32, #bws> {
  ^bb0(%a: f32, %b: f32):
    %x = arith.addf %a, %b : f32
    txl.reduce_return %x : f32
  }
  return %s : tensor<1xf32, #bws>
}

// -----

// Pointers and offsets in different layouts (the verifier checks shapes only).
#a = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b = #txl.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]>
func.func @mixed(%p: tensor<128x!txl.ptr<f32>, #a>, %o: tensor<128xi32, #b>) {
  // expected-error @+1 {{'txl.addptr' mixes register layouts #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]> and #txl.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]> in its pointers and offsets; needs a layout conversion (txl.relayout); not supported yet}}
  %q = txl.addptr %p, %o : tensor<128x!txl.ptr<f32>, #a>, tensor<128xi32, #b>
  return
}

// -----

// Structured control flow must be lowered first.
func.func @scf(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'scf.for' must be lowered by convert-scf-to-cf before convert-txl-to-nvvm}}
  scf.for %i = %c0 to %n step %c1 {
  }
  return
}

// -----

// fp8 registers are raw bytes: converting or computing with them is refused
// (it once became llvm.fpext on i8, then a crash of this pass).
func.func @fp8_extf(%x: f8E4M3FN) -> f32 {
  // expected-error @+1 {{'arith.extf' on 'f8E4M3FN' values is not supported: fp8 registers are raw bytes}}
  %y = arith.extf %x : f8E4M3FN to f32
  return %y : f32
}

// -----

// Tiles convert between f32 and fp8 (cvt.*.e4m3x2/e5m2x2, see
// fp8-conversions.mlir); from f16 they go through f32 first.
#bl = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @fp8_tile_truncf_f16(%x: tensor<128xf16, #bl>) -> tensor<128xf8E5M2, #bl> {
  // expected-error @+1 {{'arith.truncf' on 'f8E5M2' values is not supported}}
  %y = arith.truncf %x : tensor<128xf16, #bl> to tensor<128xf8E5M2, #bl>
  return %y : tensor<128xf8E5M2, #bl>
}

// -----

// Math the GPU has no instruction for is refused here, at the op, not in
// LLVM's instruction selection ("no libcall available for fexp", "Cannot
// select: fsin").
func.func @exp_f16(%x: f16) -> f16 {
  // expected-error @+1 {{'math.exp' on 'f16' has no GPU lowering: it exists in f32 only; convert the operand to f32 first}}
  %y = math.exp %x : f16
  return %y : f16
}

// -----

func.func @exp2_f64(%x: f64) -> f64 {
  // expected-error @+1 {{'math.exp2' on 'f64' has no GPU lowering: it exists in f32, f16 and bf16}}
  %y = math.exp2 %x : f64
  return %y : f64
}

// -----

func.func @sin_precise(%x: f32) -> f32 {
  // expected-error @+1 {{'math.sin' on 'f32' has no GPU lowering: it exists as the approximate instruction only: f32, f16 or bf16 with fastmath<afn>}}
  %y = math.sin %x : f32
  return %y : f32
}

// -----

func.func @erf(%x: f32) -> f32 {
  // expected-error @+1 {{'math.erf' on 'f32' has no GPU lowering: it exists in no type yet}}
  %y = math.erf %x : f32
  return %y : f32
}

// -----

// A scan whose axis is split over warps, without its scratch.
#bw = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
func.func @scan_cross_warp(%t: tensor<1x128xf32, #bw>) -> tensor<1x128xf32, #bw> {
  // expected-error @+1 {{'txl.scan' along axis 1: the warps of #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]> split the axis, so values cross warps through shared memory, but the op has no scratch (run --txl-allocate-scratch first)}}
  %s = txl.scan %t axis 1 : (tensor<1x128xf32, #bw>) -> tensor<1x128xf32, #bw> {
  ^bb0(%a: f32, %b: f32):
    %x = arith.addf %a, %b : f32
    txl.reduce_return %x : f32
  }
  return %s : tensor<1x128xf32, #bw>
}

// -----

// A scan of i1 across lanes (shuffles move 8 to 64 bits; the frontend scans
// booleans as i8).
#b1 = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @scan_i1(%t: tensor<32xi1, #b1>) -> tensor<32xi1, #b1> {
  // expected-error @+1 {{'txl.scan' across lanes of 'i1' elements is not supported (integers and floats of 8 to 64 bits are)}}
  %s = txl.scan %t axis 0 : (tensor<32xi1, #b1>) -> tensor<32xi1, #b1> {
  ^bb0(%a: i1, %b: i1):
    %x = arith.ori %a, %b : i1
    txl.reduce_return %x : i1
  }
  return %s : tensor<32xi1, #b1>
}

// -----

// Atomics: old values held by threads that did not update need a scratch.
#b1 = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @atomic_copies_no_scratch(%p: tensor<64x!txl.ptr<i32>, #b1>, %v: tensor<64xi32, #b1>) -> tensor<64xi32, #b1> {
  // expected-error @+1 {{'txl.atomic_rmw': the old values are used, and the threads that update the elements must hand them to the other threads holding them, which needs a scratch (run --txl-allocate-scratch first)}}
  %a = txl.atomic_rmw add acq_rel gpu %p, %v : tensor<64x!txl.ptr<i32>, #b1>, tensor<64xi32, #b1>
  return %a : tensor<64xi32, #b1>
}

// -----

func.func @atomic_scalar_no_scratch(%p: !txl.ptr<i32>, %v: i32) -> i32 {
  // expected-error @+1 {{'txl.atomic_cas': the old values are used, and the threads that update the elements must hand them to the other threads holding them, which needs a scratch (run --txl-allocate-scratch first)}}
  %a = txl.atomic_cas acq_rel gpu %p, %v, %v : !txl.ptr<i32>, i32
  return %a : i32
}

// -----

// A layout whose lane 0 bit moves to the element register 1 holds: element
// copies that are not broadcasts (zero bases), so "update once" has no owner rule.
#odd = #txl.linear<register = [[1]], lane = [[1], [2], [4], [8], [16]], warp = [[32], [0]]>
func.func @atomic_dependent_layout(%p: tensor<64x!txl.ptr<i32>, #odd>, %v: tensor<64xi32, #odd>) {
  // expected-error @+1 {{'txl.atomic_rmw' on a tile whose layout #txl.linear<register = [[1]], lane = [[1], [2], [4], [8], [16]], warp = [[32], [0]]> holds elements in several places other than by broadcast (zero bases): each element must be updated once; txl.relayout the pointers to a blocked layout first}}
  %a = txl.atomic_rmw add relaxed gpu %p, %v : tensor<64x!txl.ptr<i32>, #odd>, tensor<64xi32, #odd>
  return
}

// -----

// Pointers, values and result of an atomic share one layout.
#b1 = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b2 = #txl.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @atomic_mixed_layouts(%p: tensor<128x!txl.ptr<i32>, #b1>, %v: tensor<128xi32, #b2>) {
  // expected-error @+1 {{mixes register layouts}}
  %a = "txl.atomic_rmw"(%p, %v) <{kind = #txl<atomic_kind add>, sem = #txl<sem relaxed>, scope = #txl<scope gpu>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (tensor<128x!txl.ptr<i32>, #b1>, tensor<128xi32, #b2>) -> tensor<128xi32, #b2>
  return
}
