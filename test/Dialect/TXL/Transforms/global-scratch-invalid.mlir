// RUN: txl-opt %s -split-input-file --txl-global-scratch -verify-diagnostics
//
// Descriptors txl-global-scratch cannot give a slot.

// Only a kernel gets the launcher's scratch memory.
module attributes {txl.target = "sm_90a"} {
  func.func @not_a_kernel(%a: !txl.ptr<bf16>, %m: i64) {
    %c1 = arith.constant 1 : i64
    // expected-error @+1 {{'txl.make_tensor_descriptor' op needs a slot of its kernel's global scratch memory, which only a function marked 'txl.kernel' gets (the launcher allocates it); build the descriptor in the kernel, or pass it a 128-byte !txl.ptr<i8> slot}}
    %d = txl.make_tensor_descriptor %a, [%m, %m], [%m, %c1] : !txl.ptr<bf16> -> !txl.tensordesc<64x64xbf16>
    return
  }
}

// -----

// A kernel that has its scratch parameter already (hand-written slots) and a
// descriptor without one: the pass would need a second parameter, which the
// launcher does not pass.
module attributes {txl.target = "sm_90a"} {
  func.func @scratch_already(%a: !txl.ptr<bf16>, %m: i64, %s: !txl.ptr<i8> {txl.global_scratch = 128 : i64}) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c1 = arith.constant 1 : i64
    %d = txl.make_tensor_descriptor %a, [%m, %m], [%m, %c1], %s : !txl.ptr<bf16>, !txl.ptr<i8> -> !txl.tensordesc<64x64xbf16>
    // expected-error @+1 {{'txl.make_tensor_descriptor' op has no slot, but kernel 'scratch_already' already has a 'txl.global_scratch' parameter (2): give every txl.make_tensor_descriptor of it a slot of that parameter, or none (txl-global-scratch then adds the parameter)}}
    %e = txl.make_tensor_descriptor %a, [%m, %m], [%m, %c1] : !txl.ptr<bf16> -> !txl.tensordesc<64x64xbf16>
    return
  }
}
