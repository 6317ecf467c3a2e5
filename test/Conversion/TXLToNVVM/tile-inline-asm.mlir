// RUN: txl-opt %s -convert-txl-to-nvvm -reconcile-unrealized-casts | FileCheck %s --implicit-check-not=txl.elementwise_inline_asm

// txl.elementwise_inline_asm: one llvm.inline_asm per `packed_element`
// registers of the thread; elements narrower than 32 bits go packed in
// vectors of 32 / bits, several output registers come back as a struct.

#bl = #txl.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#bl4 = #txl.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// pack 1: one pure call per register.
// CHECK-LABEL: llvm.func @per_register
// CHECK: %[[R0:.*]] = llvm.extractvalue %arg0[0]
// CHECK: %[[R1:.*]] = llvm.extractvalue %arg0[1]
// CHECK: llvm.inline_asm asm_dialect = att "ex2.approx.f32 $0, $1;", "=f,f" %[[R0]] : (f32) -> f32
// CHECK: llvm.inline_asm asm_dialect = att "ex2.approx.f32 $0, $1;", "=f,f" %[[R1]] : (f32) -> f32
func.func @per_register(%x: tensor<256xf32, #bl>) -> tensor<256xf32, #bl> {
  %y = txl.elementwise_inline_asm "ex2.approx.f32 $0, $1;", "=f,f" (%x) {packed_element = 1 : i32, pure = true} : (tensor<256xf32, #bl>) -> tensor<256xf32, #bl>
  return %y : tensor<256xf32, #bl>
}

// pack 4 of i8 -> f16: the four bytes in one vector<4xi8> register, two
// vector<2xf16> results; impure asm keeps has_side_effects.
// CHECK-LABEL: llvm.func @packed_bytes
// CHECK-COUNT-4: llvm.insertelement {{.*}} : vector<4xi8>
// CHECK: %[[S:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "{{.*}}", "=r,=r,r" %{{.*}} : (vector<4xi8>) -> !llvm.struct<(vector<2xf16>, vector<2xf16>)>
// CHECK: %[[A:.*]] = llvm.extractvalue %[[S]][0]
// CHECK: llvm.extractelement %[[A]]
// CHECK: llvm.extractelement %[[A]]
// CHECK: %[[B:.*]] = llvm.extractvalue %[[S]][1]
// CHECK: llvm.extractelement %[[B]]
// CHECK: llvm.extractelement %[[B]]
// CHECK-NOT: llvm.inline_asm
// CHECK: llvm.return
func.func @packed_bytes(%x: tensor<512xi8, #bl4>) -> tensor<512xf16, #bl4> {
  %y = txl.elementwise_inline_asm "prmt.b32 $0, $2, 0, 0x5140; prmt.b32 $1, $2, 0, 0x7362;", "=r,=r,r" (%x) {packed_element = 4 : i32, pure = false} : (tensor<512xi8, #bl4>) -> tensor<512xf16, #bl4>
  return %y : tensor<512xf16, #bl4>
}

// Two results, two operands: a struct of two f32 per call.
// CHECK-LABEL: llvm.func @two_results
// CHECK-COUNT-2: llvm.inline_asm asm_dialect = att "{{.*}}", "=f,=f,f,f" %{{.*}}, %{{.*}} : (f32, f32) -> !llvm.struct<(f32, f32)>
// CHECK-NOT: llvm.inline_asm
func.func @two_results(%x: tensor<256xf32, #bl>, %z: tensor<256xf32, #bl>) -> (tensor<256xf32, #bl>, tensor<256xf32, #bl>) {
  %r:2 = txl.elementwise_inline_asm "add.f32 $0, $2, $3; sub.f32 $1, $2, $3;", "=f,=f,f,f" (%x, %z) {packed_element = 1 : i32, pure = true} : (tensor<256xf32, #bl>, tensor<256xf32, #bl>) -> (tensor<256xf32, #bl>, tensor<256xf32, #bl>)
  return %r#0, %r#1 : tensor<256xf32, #bl>, tensor<256xf32, #bl>
}

// A thread's 2 registers with pack 4: one call, its last two places the
// first register again, their results dropped.
// CHECK-LABEL: llvm.func @pack_past_registers
// CHECK: %[[R0:.*]] = llvm.extractvalue %arg0[0]
// CHECK: %[[R1:.*]] = llvm.extractvalue %arg0[1]
// CHECK: llvm.inline_asm asm_dialect = att "{{.*}}", "=f,=f,=f,=f,f,f,f,f" %[[R0]], %[[R1]], %[[R0]], %[[R0]] : (f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT: llvm.inline_asm
func.func @pack_past_registers(%x: tensor<256xf32, #bl>) -> tensor<256xf32, #bl> {
  %y = txl.elementwise_inline_asm "mov.b32 $0, $4; mov.b32 $1, $5; mov.b32 $2, $6; mov.b32 $3, $7;", "=f,=f,=f,=f,f,f,f,f" (%x) {packed_element = 4 : i32, pure = true} : (tensor<256xf32, #bl>) -> tensor<256xf32, #bl>
  return %y : tensor<256xf32, #bl>
}

// Scalars: one call.
// CHECK-LABEL: llvm.func @scalar
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "mul.lo.u32 $0, $1, 3;", "=r,r" %arg0 : (i32) -> i32
func.func @scalar(%a: i32) -> i32 {
  %y = txl.elementwise_inline_asm "mul.lo.u32 $0, $1, 3;", "=r,r" (%a) {packed_element = 1 : i32, pure = false} : (i32) -> i32
  return %y : i32
}

// No operands: one call.
// CHECK-LABEL: llvm.func @no_operands
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "griddepcontrol.launch_dependents; // dummy $0", "=r"  : () -> i32
func.func @no_operands() -> i32 {
  %y = txl.elementwise_inline_asm "griddepcontrol.launch_dependents; // dummy $0", "=r" () {packed_element = 1 : i32, pure = false} : () -> i32
  return %y : i32
}
