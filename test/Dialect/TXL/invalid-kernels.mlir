// RUN: txl-opt %s -split-input-file -verify-diagnostics

// Wrong kernels the op verifiers alone cannot see, refused when the module is
// read (issue 18: each of these once crashed a pass, ran out of memory or
// compiled silently). The DSL's counterparts are in
// python/txl/tests/test_wrong_programs.py.

// A kernel needs a body (PartitionWarpgroups segfaulted on a declaration).
// expected-error @+1 {{'txl.kernel' function @k has no body; a kernel is the GPU entry point and needs one: define it, or drop 'txl.kernel' from the declaration}}
func.func private @k(%x: !txl.ptr<f32>) attributes {txl.kernel, txl.num_warps = 4 : i32}

// -----

// make_range of more than 2^20 elements (txlc ran out of memory); its own
// verifier, so a make_range outside a kernel is refused too.
func.func @f() {
  // expected-error @+1 {{'txl.make_range' op makes a tile of 16777216 elements, more than the 1048576 (2^20) a register tile may have (Triton's limit too); use a smaller range and loop over blocks}}
  %r = txl.make_range 0, 16777216 : tensor<16777216xi32>
  return
}

// -----

// Any op of a kernel, upstream ones included, keeps tiles within 2^20 elements.
func.func @k() attributes {txl.kernel, txl.num_warps = 4 : i32} {
  // expected-error @+1 {{'arith.constant' op register tile 'tensor<1048576x1024xf32>' has 1073741824 elements, more than the 1048576 (2^20) a tile may have (Triton's limit too); split the work into smaller tiles (a loop over blocks)}}
  %z = arith.constant dense<0.0> : tensor<1048576x1024xf32>
  return
}

// -----

// A layout of 8 warps in a 4-warp kernel leaves half the tile to warps that do not exist.
#w8 = #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
func.func @k(%p: !txl.ptr<f32>) attributes {txl.kernel, txl.num_warps = 4 : i32} {
  // expected-error @+1 {{'arith.constant' op register layout #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]> spans 8 warps but the kernel has 4 ('txl.num_warps'); the elements of the missing warps would never be computed: use a layout of at most 4 warps or raise 'txl.num_warps'}}
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #w8>
  return
}

// -----

// A named barrier cannot wait for more threads than the block has.
func.func @k() attributes {txl.kernel, txl.num_warps = 4 : i32} {
  // expected-error @+1 {{'txl.bar_wait' op waits for 256 threads but the block has 128 (txl.num_warps = 4); the barrier would never complete: count only the threads that arrive (128 per warpgroup)}}
  txl.bar_wait 8, 256
  return
}

// -----

func.func @k() attributes {txl.kernel, txl.num_warps = 8 : i32} {
  // expected-error @+1 {{'txl.bar_arrive' op waits for 512 threads but the block has 256}}
  txl.bar_arrive 9, 512
  return
}

// -----

// mbar_expect sees the TMA loads of its barrier through separate get_buffer
// ops of the same stage (the DSL takes one per use).
func.func @k(%d: !txl.tensordesc<64x64xbf16>, %x: i32) attributes {txl.kernel, txl.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %bars = txl.mbar_alloc count 1 : !txl.mbar<1>
  %bufs = txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1>
  %b0 = txl.get_buffer %bars[%c0] : !txl.mbar<1>
  // expected-error @+1 {{'txl.mbar_expect' op expects 16 bytes, but the TMA loads signalling this barrier in the same block deliver 8192 bytes}}
  txl.mbar_expect %b0, 16
  %v = txl.get_buffer %bufs[%c0] : !txl.smem<64x64xbf16, stages = 1>
  %b1 = txl.get_buffer %bars[%c0] : !txl.mbar<1>
  txl.tma_load %d[%x, %x], %v, %b1 : !txl.tensordesc<64x64xbf16>, !txl.smem<64x64xbf16>
  return
}

// -----

// An async dot's result is read only after a dot_wait retires it.
func.func @k(%a: !txl.smem<64x64xbf16>, %b: !txl.smem<64x64xbf16>, %p: tensor<64x64x!txl.ptr<f32>>) attributes {txl.kernel, txl.num_warps = 4 : i32} {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-note @+1 {{the async txl.dot}}
  %acc = txl.dot %a, %b, %zero {async} : !txl.smem<64x64xbf16>, !txl.smem<64x64xbf16>, tensor<64x64xf32>
  // expected-error @+1 {{'txl.store' op reads the result of an async txl.dot before a txl.dot_wait retires it (the tensor cores may still be writing it); read it after `txl.dot_wait 0` (passing the result through the wait), or drop `async` from the dot}}
  txl.store %p, %acc : tensor<64x64x!txl.ptr<f32>>, tensor<64x64xf32>
  txl.dot_wait 0
  return
}

// -----

// `dot_wait 1` with no group issued after the dot does not retire it yet.
func.func @k(%a: !txl.smem<64x64xbf16>, %b: !txl.smem<64x64xbf16>, %p: tensor<64x64x!txl.ptr<f32>>) attributes {txl.kernel, txl.num_warps = 4 : i32} {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-note @+1 {{the async txl.dot}}
  %acc = txl.dot %a, %b, %zero {async} : !txl.smem<64x64xbf16>, !txl.smem<64x64xbf16>, tensor<64x64xf32>
  txl.dot_wait 1
  // expected-error @+1 {{'arith.addf' op reads the result of an async txl.dot before a txl.dot_wait retires it}}
  %x = arith.addf %acc, %acc : tensor<64x64xf32>
  txl.store %p, %x : tensor<64x64x!txl.ptr<f32>>, tensor<64x64xf32>
  return
}

// -----

// `x + async dot` is the dot's accumulation (txl-fold-dot-add) only when x is
// computed before the dot; an add of a later value reads the product early.
func.func @k(%a: !txl.smem<64x64xbf16>, %b: !txl.smem<64x64xbf16>, %p: tensor<64x64x!txl.ptr<f32>>) attributes {txl.kernel, txl.num_warps = 4 : i32} {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-note @+1 {{the async txl.dot}}
  %d = txl.dot %a, %b, %zero {async} : !txl.smem<64x64xbf16>, !txl.smem<64x64xbf16>, tensor<64x64xf32>
  %late = txl.load %p : tensor<64x64x!txl.ptr<f32>> -> tensor<64x64xf32>
  // expected-error @+1 {{'arith.addf' op reads the result of an async txl.dot before a txl.dot_wait retires it}}
  %s = arith.addf %late, %d : tensor<64x64xf32>
  %w = txl.dot_wait 0, %s : tensor<64x64xf32>
  txl.store %p, %w : tensor<64x64x!txl.ptr<f32>>, tensor<64x64xf32>
  return
}

// -----

// The sum of an accumulation is in flight in the dot's place: reading it
// before the wait is refused too.
func.func @k(%a: !txl.smem<64x64xbf16>, %b: !txl.smem<64x64xbf16>, %acc: tensor<64x64xf32>, %p: tensor<64x64x!txl.ptr<f32>>) attributes {txl.kernel, txl.num_warps = 4 : i32} {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-note @+1 {{the async txl.dot}}
  %d = txl.dot %a, %b, %zero {async} : !txl.smem<64x64xbf16>, !txl.smem<64x64xbf16>, tensor<64x64xf32>
  %s = arith.addf %acc, %d : tensor<64x64xf32>
  // expected-error @+1 {{'txl.store' op reads the result of an async txl.dot before a txl.dot_wait retires it}}
  txl.store %p, %s : tensor<64x64x!txl.ptr<f32>>, tensor<64x64xf32>
  txl.dot_wait 0
  return
}
