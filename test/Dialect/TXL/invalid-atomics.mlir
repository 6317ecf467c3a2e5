// RUN: txl-opt %s -split-input-file -verify-diagnostics

// Verifier rules of the txl dialect: txl.atomic_rmw and txl.atomic_cas.
// (One file per op group; invalid types and attributes are in invalid-types.mlir.)

// Atomics: the value has the pointee type in the pointers' shape.
func.func @f(%p: tensor<128x!txl.ptr<f32>>, %v: tensor<64xf32>) {
  // expected-error @+1 {{'txl.atomic_rmw' op value 'tensor<64xf32>' must be 'tensor<128xf32>', what the pointers 'tensor<128x!txl.ptr<f32>>' point to}}
  %a = txl.atomic_rmw add acq_rel gpu %p, %v : tensor<128x!txl.ptr<f32>>, tensor<64xf32>
  return
}

// -----

func.func @f(%p: !txl.ptr<f32>, %v: i32) {
  // expected-error @+1 {{'txl.atomic_rmw' op value 'i32' must be 'f32', what the pointers '!txl.ptr<f32>' point to}}
  %a = txl.atomic_rmw add acq_rel gpu %p, %v : !txl.ptr<f32>, i32
  return
}

// -----

// Element types PTX atom takes for each kind.
func.func @f(%p: !txl.ptr<f16>, %v: f16) {
  // expected-error @+1 {{'txl.atomic_rmw' op atomic max does not take 'f16' elements (it takes i32 and i64 (signed), f32 and f64)}}
  %a = txl.atomic_rmw max acq_rel gpu %p, %v : !txl.ptr<f16>, f16
  return
}

// -----

func.func @f(%p: !txl.ptr<f32>, %v: f32) {
  // expected-error @+1 {{'txl.atomic_rmw' op atomic and does not take 'f32' elements (it takes i32 and i64)}}
  %a = txl.atomic_rmw and acq_rel gpu %p, %v : !txl.ptr<f32>, f32
  return
}

// -----

func.func @f(%p: !txl.ptr<f32>, %v: f32) {
  // expected-error @+1 {{'txl.atomic_rmw' op atomic umin does not take 'f32' elements (it takes i32 and i64 (unsigned))}}
  %a = txl.atomic_rmw umin acq_rel gpu %p, %v : !txl.ptr<f32>, f32
  return
}

// -----

func.func @f(%p: !txl.ptr<i8>, %v: i8) {
  // expected-error @+1 {{'txl.atomic_rmw' op atomic add does not take 'i8' elements (it takes i32, i64, f16, bf16, f32 and f64)}}
  %a = txl.atomic_rmw add acq_rel gpu %p, %v : !txl.ptr<i8>, i8
  return
}

// -----

func.func @f(%p: !txl.ptr<i16>, %v: i16) {
  // expected-error @+1 {{'txl.atomic_rmw' op atomic xchg does not take 'i16' elements (it takes 32- and 64-bit integers and floats)}}
  %a = txl.atomic_rmw xchg acq_rel gpu %p, %v : !txl.ptr<i16>, i16
  return
}

// -----

// The mask has the pointers' shape.
func.func @f(%p: tensor<128x!txl.ptr<f32>>, %v: tensor<128xf32>, %m: i1) {
  // expected-error @+1 {{'txl.atomic_rmw' op failed to verify that mask is i1 in the pointers' shape}}
  %a = "txl.atomic_rmw"(%p, %v, %m) <{kind = #txl<atomic_kind add>, sem = #txl<sem acq_rel>, scope = #txl<scope gpu>, operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (tensor<128x!txl.ptr<f32>>, tensor<128xf32>, i1) -> tensor<128xf32>
  return
}

// -----

func.func @f(%p: !txl.ptr<i8>, %v: i8) {
  // expected-error @+1 {{'txl.atomic_cas' op atomic compare-and-swap does not take 'i8' elements (it takes 16-, 32- and 64-bit integers and floats)}}
  %a = txl.atomic_cas acq_rel gpu %p, %v, %v : !txl.ptr<i8>, i8
  return
}

// -----

func.func @f(%p: tensor<128x!txl.ptr<i32>>, %v: tensor<128xi32>, %c: tensor<128xi64>) {
  // expected-error @+1 {{'txl.atomic_cas' op failed to verify that all of {cmp, value, result} have same type}}
  %a = "txl.atomic_cas"(%p, %c, %v) <{sem = #txl<sem acq_rel>, scope = #txl<scope gpu>}> : (tensor<128x!txl.ptr<i32>>, tensor<128xi64>, tensor<128xi32>) -> tensor<128xi32>
  return
}
