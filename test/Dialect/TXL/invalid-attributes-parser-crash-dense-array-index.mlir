// Regression test (fuzz): MLIR 22's parser segfaulted the tools on a dense
// array of `index` (Parser::parseDenseArrayAttr -> Type::getIntOrFloatBitWidth
// -> FloatType::getWidth; stock mlir-opt crashes the same way). A file of its
// own next to invalid-attributes.mlir: it checks exit codes, output files and
// txlc, not -verify-diagnostics. txl-opt and txlc run under a crash guard:
// an error at the construct, exit code 1 (not a signal), and no output file,
// not even a stale one.
// RUN: rm -f %t.mlir %t.ptx %t.json
// RUN: echo stale > %t.mlir
// RUN: txl-opt %s -o %t.mlir 2>&1; test $? -eq 1
// RUN: not txl-opt %s -o %t.mlir 2>&1 | FileCheck %s
// RUN: not test -e %t.mlir
// RUN: txlc %s -o %t.ptx 2>&1; test $? -eq 1
// RUN: not txlc %s -o %t.ptx 2>&1 | FileCheck %s
// RUN: not test -e %t.ptx
// RUN: not test -e %t.json
// Stdin is located too.
// RUN: not txl-opt < %s 2>&1 | FileCheck %s --check-prefix=STDIN

// CHECK: invalid-attributes-parser-crash-dense-array-index.mlir:[[@LINE+5]]:{{[0-9]+}}: error: internal error in the MLIR parser at {{.*}}invalid-attributes-parser-crash-dense-array-index.mlir:[[@LINE+5]]:{{[0-9]+}} (upstream MLIR crashed on the construct that ends here
// CHECK-SAME: please report it
// CHECK-NOT: Stack dump
// STDIN: <stdin>:[[@LINE+2]]:{{[0-9]+}}: error: internal error in the MLIR parser at <stdin>:[[@LINE+2]]
func.func @k() {
  %0 = "txl.is_warp"() <{ids = array<index: 1>}> : () -> i1
  return
}
