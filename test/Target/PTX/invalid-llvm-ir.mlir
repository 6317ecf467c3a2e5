// LLVM IR that only LLVM's own verifier rejects (found by the fuzzer: a
// negative-size byval array) is an error at the module, not a bare message
// on stderr with exit code 1 and no diagnostic.
// RUN: not txlc %s --arch=sm_90a -o %t.ptx 2>&1 | FileCheck %s
// RUN: not test -e %t.ptx
// CHECK: error: the module translates to invalid LLVM IR: huge 'byval' arguments are unsupported
module {
  llvm.func @k(%arg0: !llvm.ptr {llvm.byval = !llvm.array<-16 x i64>}) attributes {nvvm.kernel} {
    llvm.return
  }
}
