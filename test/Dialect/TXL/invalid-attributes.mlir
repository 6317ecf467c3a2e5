// RUN: txl-opt %s -split-input-file -verify-diagnostics

// Verifier rules of the txl dialect: the discardable attributes (txl.target, txl.kernel, txl.num_warps, txl.role_warps, txl.num_stages, txl.vector, ...) and ops not grouped elsewhere.
// (One file per op group; invalid types and attributes are in invalid-types.mlir.)

//===----------------------------------------------------------------------===//
// Discardable attributes and the sm_100a requirement
//===----------------------------------------------------------------------===//

// txl.target names a known architecture.
// expected-error @+1 {{'txl.target' must be the string "sm_90a" (Hopper) or "sm_100a" (Blackwell), got "sm_80"}}
module attributes {txl.target = "sm_80"} {}

// -----

// txl.target is a string, not any attribute.
// expected-error @+1 {{'txl.target' must be the string "sm_90a" (Hopper) or "sm_100a" (Blackwell), got 90 : i64}}
module attributes {txl.target = 90} {}

// -----

// txl.target belongs on a module, not on a function.
// expected-error @+1 {{'txl.target' belongs on a module}}
func.func @f() attributes {txl.target = "sm_90a"} {
  return
}

// -----

// txl.kernel is a unit attribute.
// expected-error @+1 {{'txl.kernel' is a unit attribute on a function}}
func.func @f() attributes {txl.kernel = true} {
  return
}

// -----

// txl.kernel belongs on a function.
// expected-error @+1 {{'txl.kernel' is a unit attribute on a function}}
module attributes {txl.kernel} {}

// -----

// txl.num_warps is 1, 2 (Triton's small configs) or whole warpgroups: a multiple of 4.
// expected-error @+1 {{'txl.num_warps' must be 1, 2 or a multiple of 4 in 4..32 (whole warpgroups, at most 1024 threads)}}
func.func @f() attributes {txl.kernel, txl.num_warps = 6 : i32} {
  return
}

// -----

// Neither 1, 2 nor whole warpgroups.
// expected-error @+1 {{'txl.num_warps' must be 1, 2 or a multiple of 4 in 4..32}}
func.func @f() attributes {txl.kernel, txl.num_warps = 3 : i32} {
  return
}

// -----

// txl.num_warps is at most 32 (1024 threads).
// expected-error @+1 {{'txl.num_warps' must be 1, 2 or a multiple of 4 in 4..32}}
func.func @f() attributes {txl.kernel, txl.num_warps = 36 : i32} {
  return
}

// -----

// txl.role_warps (the warps of one copy of the body) is a power of two, 1..32.
// expected-error @+1 {{'txl.role_warps' is 1, 2, 4, 8, 16 or 32 (warps per copy of the body) on a kernel function}}
func.func @f() attributes {txl.kernel, txl.num_warps = 12 : i32, txl.role_warps = 12 : i32} {
  return
}

// -----

// A role wider than one warpgroup is the whole CTA.
// expected-error @+1 {{'txl.role_warps' = 8 differs from the kernel's 16 warps ('txl.num_warps'): a role wider than one warpgroup is the whole CTA (roles of warp-specialized kernels are single warpgroups: drop 'txl.role_warps' there)}}
func.func @f() attributes {txl.kernel, txl.num_warps = 16 : i32, txl.role_warps = 8 : i32} {
  return
}

// -----

// txl.num_warps is at least 1.
// expected-error @+1 {{'txl.num_warps' must be 1, 2 or a multiple of 4 in 4..32}}
func.func @f() attributes {txl.kernel, txl.num_warps = 0 : i32} {
  return
}

// -----

// txl.num_warps is an integer.
// expected-error @+1 {{'txl.num_warps' must be 1, 2 or a multiple of 4 in 4..32}}
func.func @f() attributes {txl.kernel, txl.num_warps = "8"} {
  return
}

// -----

// txl.num_warps wider than 64 bits is rejected, not truncated.
// expected-error @+1 {{'txl.num_warps' must be 1, 2 or a multiple of 4 in 4..32}}
func.func @f() attributes {txl.kernel, txl.num_warps = 18446744073709551624 : i128} {
  return
}

// -----

// txl.offset and txl.shared_bytes (set by the pipeline) are integers.
// expected-error @+1 {{'txl.shared_bytes' must be an integer}}
func.func @f() attributes {txl.shared_bytes = "1024"} {
  return
}

// -----

// Other txl.* attributes are unknown.
// expected-error @+1 {{unknown txl attribute 'txl.stages'}}
func.func @f() attributes {txl.stages = 3 : i32} {
  return
}

// -----

// txl.num_stages (Triton's pipeline depth, on a kernel or a loop) is 1..16.
// expected-error @+1 {{'txl.num_stages' must be an integer in 1..16 (1: no pipelining)}}
func.func @f() attributes {txl.num_stages = 0 : i32} {
  return
}

// -----

// expected-error @+1 {{'txl.num_stages' must be an integer in 1..16 (1: no pipelining)}}
func.func @f() attributes {txl.num_stages = 17 : i32} {
  return
}

// -----

// expected-error @+1 {{'txl.num_stages' must be an integer in 1..16 (1: no pipelining)}}
func.func @f() attributes {txl.num_stages = "3"} {
  return
}

// -----

// txl.num_stages belongs on a kernel function or an scf.for.
func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{'txl.num_stages' belongs on a kernel function or an scf.for}}
    %x = arith.addi %i, %c1 {txl.num_stages = 2 : i32} : index
  }
  return
}

// -----

// smem_index needs a view of rank >= 2.
func.func @f(%v: !txl.smem<128xf32>, %i: i32) {
  // expected-error @+1 {{txl.smem_index needs a shared-memory view of rank >= 2}}
  %r = txl.smem_index %v[%i] : !txl.smem<128xf32>
  return
}

// -----

// The reduction is one of add, min, max.
func.func @f(%d: !txl.tensordesc<64x32xf32>, %x: i32, %v: !txl.smem<64x32xf32>) {
  // expected-error @+2 {{expected ::mlir::txl::TmaReduceKind to be one of: add, min, max}}
  // expected-error @+1 {{failed to parse TXL_TmaReduceKindAttr parameter 'value'}}
  txl.tma_store %v, %d[%x, %x] reduce mul : !txl.smem<64x32xf32>, !txl.tensordesc<64x32xf32>
  return
}

// -----

// txl.vector (set by txl-vectorize-accesses) is a power of two on a load or store.
func.func @f(%p: tensor<128x!txl.ptr<f32>>) {
  // expected-error @+1 {{'txl.vector' is a power of two in 1..16 on txl.load or txl.store}}
  %v = txl.load %p {txl.vector = 3 : i32} : tensor<128x!txl.ptr<f32>> -> tensor<128xf32>
  return
}

// -----

func.func @f(%a: i32) -> i32 {
  // expected-error @+1 {{'txl.vector' is a power of two in 1..16 on txl.load or txl.store}}
  %b = arith.addi %a, %a {txl.vector = 4 : i32} : i32
  return %b : i32
}

// -----

func.func @f(%p: !txl.ptr<i32>, %v: i32) {
  // expected-error @+2 {{failed to parse TXL_AtomicRMWKindAttr parameter 'value'}}
  // expected-error @+1 {{expected ::mlir::txl::AtomicRMWKind to be one of: add, max, min, umax, umin, and, or, xor, xchg}}
  %a = txl.atomic_rmw nand acq_rel gpu %p, %v : !txl.ptr<i32>, i32
  return
}

// -----

func.func @f(%p: !txl.ptr<i32>, %v: i32) {
  // expected-error @+2 {{failed to parse TXL_MemSemanticAttr parameter 'value'}}
  // expected-error @+1 {{expected ::mlir::txl::MemSemantic to be one of: relaxed, acquire, release, acq_rel}}
  %a = txl.atomic_rmw add seq_cst gpu %p, %v : !txl.ptr<i32>, i32
  return
}

// -----

func.func @f(%p: !txl.ptr<i32>, %v: i32) {
  // expected-error @+2 {{failed to parse TXL_MemScopeAttr parameter 'value'}}
  // expected-error @+1 {{expected ::mlir::txl::MemScope to be one of: cta, cluster, gpu, sys}}
  %a = txl.atomic_rmw add relaxed device %p, %v : !txl.ptr<i32>, i32
  return
}

// -----

// txl.group_warps (set by txl-allocate-scratch) belongs on an atomic.
func.func @f(%p: !txl.ptr<i32>, %v: i32) {
  // expected-error @+1 {{'txl.group_warps' is a power of two in 1..32 on txl.atomic_rmw or txl.atomic_cas}}
  %a = txl.atomic_rmw add acq_rel gpu %p, %v {txl.group_warps = 3 : i32} : !txl.ptr<i32>, i32
  return
}
