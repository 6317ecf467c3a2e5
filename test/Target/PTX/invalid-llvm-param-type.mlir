// A type-valued parameter attribute without an LLVM IR equivalent (found by
// the fuzzer: a byval array of f6E2M3FN made the upstream translator crash)
// is an error at the function, before translation.
// RUN: not txlc %s --arch=sm_90a -o %t.ptx 2>&1 | FileCheck %s
// RUN: not test -e %t.ptx
// CHECK: error: parameter 0 of 'k': 'llvm.byval' names '!llvm.array<4 x f6E2M3FN>', which has no LLVM IR equivalent
module {
  llvm.func @k(%arg0: !llvm.ptr {llvm.byval = !llvm.array<4 x f6E2M3FN>}) attributes {nvvm.kernel} {
    llvm.return
  }
}
