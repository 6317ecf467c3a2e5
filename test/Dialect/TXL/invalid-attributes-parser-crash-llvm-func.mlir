// Regression test (fuzz): the same upstream parser crash, reached through
// llvm.func's custom parser (LLVMFuncOp::parse -> parseAttributeDict ->
// parseDenseArrayAttr -> FloatType::getWidth, a segfault in stock mlir-opt):
// an error at the attribute and exit code 1 from both tools, inside
// --split-input-file too.
// A file of its own next to invalid-attributes.mlir: it checks exit codes and
// txlc, not -verify-diagnostics.
// RUN: rm -f %t.ptx %t.json
// RUN: txlc %s -o %t.ptx 2>&1; test $? -eq 1
// RUN: not txlc %s -o %t.ptx 2>&1 | FileCheck %s
// RUN: not test -e %t.ptx
// RUN: txl-opt %s 2>&1; test $? -eq 1
// RUN: not txl-opt %s 2>&1 | FileCheck %s
// RUN: not txl-opt --split-input-file %s 2>&1 | FileCheck %s --check-prefix=SPLIT

// CHECK: invalid-attributes-parser-crash-llvm-func.mlir:[[@LINE+3]]:{{[0-9]+}}: error: internal error in the MLIR parser at {{.*}}invalid-attributes-parser-crash-llvm-func.mlir:[[@LINE+3]]:{{[0-9]+}}
// CHECK-NOT: Stack dump
// SPLIT: invalid-attributes-parser-crash-llvm-func.mlir:[[@LINE+1]]:{{[0-9]+}}: error: internal error in the MLIR parser at {{.*}}invalid-attributes-parser-crash-llvm-func.mlir:[[@LINE+1]]
llvm.func @k() attributes {reqd_work_group_size = array<index: 1>}
