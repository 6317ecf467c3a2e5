// A module without a kernel is an error, not PTX with only .func's that
// nothing can launch (txlc used to write it with exit code 0 and no sidecar;
// a function returning a value then failed in ptxas on func_retval0).
// RUN: rm -rf %t && split-file --no-leading-lines %s %t && cd %t
// RUN: not txlc plain.mlir -o out.ptx 2>&1 | FileCheck %s
// RUN: not test -e out.ptx
// RUN: not test -e out.json
// RUN: not txlc llvm.mlir -o out.ptx 2>&1 | FileCheck %s
// CHECK: error: no kernel in the module: mark the entry function with `attributes {txl.kernel, txl.num_warps = 4 : i32}` (func.func), or `nvvm.kernel` on an llvm.func
// Printing the IR needs no kernel.
// RUN: txlc plain.mlir --emit=mlir | FileCheck %s --check-prefix=MLIR
// MLIR: llvm.func @f

//--- plain.mlir
func.func @f(%x: i32) -> i32 {
  return %x : i32
}

//--- llvm.mlir
llvm.func @f(%x: i32) -> i32 {
  llvm.return %x : i32
}
