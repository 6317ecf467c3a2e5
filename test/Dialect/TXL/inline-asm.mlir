// RUN: txl-opt %s | txl-opt | FileCheck %s
// RUN: txl-opt %s --mlir-print-op-generic | txl-opt | FileCheck %s

// Round-trip of txl.elementwise_inline_asm (tl.inline_asm_elementwise):
// tiles, scalars, several results, packed narrow elements, impure asm.

// CHECK-LABEL: func.func @tiles
// CHECK: txl.elementwise_inline_asm "ex2.approx.f32 $0, $1;", "=f,f"(%{{.*}}) {packed_element = 1 : i32, pure = true} : (tensor<128xf32>) -> tensor<128xf32>
func.func @tiles(%x: tensor<128xf32>) -> tensor<128xf32> {
  %y = txl.elementwise_inline_asm "ex2.approx.f32 $0, $1;", "=f,f" (%x) {packed_element = 1 : i32, pure = true} : (tensor<128xf32>) -> tensor<128xf32>
  return %y : tensor<128xf32>
}

// CHECK-LABEL: func.func @scalars_two_results
// CHECK: %{{.*}}:2 = txl.elementwise_inline_asm "mov.b32 $0, $2; mov.b32 $1, $3;", "=r,=r,r,r"(%{{.*}}, %{{.*}}) {packed_element = 1 : i32, pure = false} : (i32, i32) -> (i32, i32)
func.func @scalars_two_results(%a: i32, %b: i32) -> (i32, i32) {
  %r:2 = txl.elementwise_inline_asm "mov.b32 $0, $2; mov.b32 $1, $3;", "=r,=r,r,r" (%a, %b) {packed_element = 1 : i32, pure = false} : (i32, i32) -> (i32, i32)
  return %r#0, %r#1 : i32, i32
}

// Four i8 in one register in, four f16 in two registers out.
// CHECK-LABEL: func.func @packed
// CHECK: txl.elementwise_inline_asm "{{.*}}", "=r,=r,r"(%{{.*}}) {packed_element = 4 : i32, pure = true} : (tensor<64x64xi8>) -> tensor<64x64xf16>
func.func @packed(%x: tensor<64x64xi8>) -> tensor<64x64xf16> {
  %y = txl.elementwise_inline_asm "prmt.b32 $0, $2, 0, 0x5140; prmt.b32 $1, $2, 0, 0x7362;", "=r,=r,r" (%x) {packed_element = 4 : i32, pure = true} : (tensor<64x64xi8>) -> tensor<64x64xf16>
  return %y : tensor<64x64xf16>
}

// No operands (fla's PDL hint): a scalar result, impure.
// CHECK-LABEL: func.func @no_operands
// CHECK: txl.elementwise_inline_asm "griddepcontrol.launch_dependents; // dummy $0", "=r"() {packed_element = 1 : i32, pure = false} : () -> i32
func.func @no_operands() -> i32 {
  %y = txl.elementwise_inline_asm "griddepcontrol.launch_dependents; // dummy $0", "=r" () {packed_element = 1 : i32, pure = false} : () -> i32
  return %y : i32
}
