// txlc's driver behaviour: --print-pipeline, --stop-after, --emit=cubin and
// its files, ptxas warnings, and that a failing step leaves no files.
// REQUIRES: ptxas
// RUN: rm -rf %t && split-file --no-leading-lines %s %t && cd %t

// The stages, in order (the list grows; these three are in it, in this order).
// RUN: txlc --print-pipeline | FileCheck %s --check-prefix=STAGES
// STAGES: txl-smem-allocs
// STAGES: txl-mbars
// STAGES: txl-lower-loads

// --stop-after prints the IR after that stage: txl-smem-allocs records the
// planned shared-memory size on the kernel.
// RUN: txlc txl.mlir --stop-after=txl-smem-allocs | FileCheck %s --check-prefix=STOP
// STOP: func.func @k(
// STOP-SAME: txl.shared_bytes = 0 : i64
// RUN: not txlc txl.mlir --stop-after=txl-smem-allocs --emit=ptx 2>&1 | FileCheck %s --check-prefix=STOPEMIT
// STOPEMIT: txlc: error: --stop-after prints MLIR, but --emit=ptx was also given

// --dump-stages writes the IR after each stage that runs, from the same run
// (here up to --stop-after): NN-<stage>.mlir, the last one equal to what
// --stop-after prints.
// RUN: txlc txl.mlir --stop-after=txl-smem-allocs --dump-stages=stages > stop.mlir
// RUN: ls stages | FileCheck %s --check-prefix=DUMP
// DUMP: 00-txl-expand-block-pointers.mlir
// DUMP: 01-txl-global-scratch.mlir
// DUMP: {{[0-9][0-9]}}-txl-smem-allocs.mlir
// DUMP-NOT: txl-mbars
// RUN: cmp stop.mlir stages/*-txl-smem-allocs.mlir
// A failing run writes none of them.
// RUN: not txlc badasm.mlir --emit=cubin -o bad2.ptx --dump-stages=failed 2>/dev/null
// RUN: not ls failed/*.mlir

// --emit=cubin writes the PTX and the cubin (and, for a txl kernel, the
// sidecar) with one stem; -o may name either file.
// RUN: txlc kernel.mlir --emit=cubin -o k.ptx 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: test -s k.ptx
// RUN: test -s k.cubin
// RUN: txlc kernel.mlir --emit=cubin -o k2.cubin 2>/dev/null
// RUN: test -s k2.ptx
// RUN: test -s k2.cubin
// setmaxnreg without a known register count at entry (no nvvm.minctasm /
// nvvm.maxnreg) is ignored by ptxas; its note becomes a warning.
// WARN: kernel.mlir:{{[0-9]+}}:{{[0-9]+}}: warning: ptxas: (C7508) Potential Performance Loss: 'setmaxnreg' ignored

// A ptxas failure carries ptxas's messages and leaves no files behind.
// RUN: not env TXL_PTXAS=%S/no-such-ptxas txlc kernel.mlir --emit=cubin -o bad.ptx 2>&1 | FileCheck %s --check-prefix=NOPTXAS
// NOPTXAS: error: TXL_PTXAS is set to '{{.*}}no-such-ptxas', which is not an executable file
// RUN: not env TXL_PTXAS=%ptxas txlc badasm.mlir --emit=cubin -o bad.ptx 2>&1 | FileCheck %s --check-prefix=PTXASFAIL
// RUN: not test -e bad.ptx
// RUN: not test -e bad.cubin
// PTXASFAIL: error: ptxas failed with exit code {{[0-9]+}} assembling the PTX for sm_90a
// PTXASFAIL: line {{[0-9]+}}; error : Unknown modifier '.such'
// PTXASFAIL: re-run with --emit=ptx to get the PTX that ptxas rejected

//--- txl.mlir
module {
  func.func @k(%n: i32) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    return
  }
}

//--- kernel.mlir
llvm.func @k(%p: !llvm.ptr<1>, %x: i32) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 256, 1, 1>} {
  nvvm.setmaxregister increase 232
  llvm.store %x, %p : i32, !llvm.ptr<1>
  llvm.return
}

//--- badasm.mlir
// LLVM passes inline asm through verbatim; only ptxas can reject it.
llvm.func @k() attributes {nvvm.kernel} {
  llvm.inline_asm has_side_effects "no.such.instruction;", "" : () -> ()
  llvm.return
}
