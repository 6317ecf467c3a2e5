// Every user error is a diagnostic and exit code 1, never an LLVM abort, and
// leaves no output behind.
// RUN: rm -rf %t && split-file --no-leading-lines %s %t && cd %t

// An unsupported or non-"a" architecture.
// RUN: not txlc ok.mlir --arch=sm_80 -o out.ptx 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: not test -e out.ptx
// RUN: not test -e out.json
// ARCH: txlc: error: unsupported architecture 'sm_80'; expected one of: sm_90a, sm_100a
// RUN: not txlc ok.mlir --arch=sm_90 -o out.ptx 2>&1 | FileCheck %s --check-prefix=ARCH90
// ARCH90: error: unsupported architecture 'sm_90'; {{.*}}use --arch=sm_90a

// A PTX version too old for the target: LLVM would abort with
// "LLVM ERROR: PTX version 6.0 does not support target 'sm_90a'".
// RUN: not txlc ok.mlir --arch=sm_90a --ptx-version=ptx60 -o out.ptx 2>&1 | FileCheck %s --check-prefix=PTX60
// RUN: not test -e out.ptx
// PTX60: txlc: error: PTX version 6.0 (ptx60) does not support sm_90a: sm_90a needs PTX 8.0 or newer; use --ptx-version=ptx80 or later
// PTX60-NOT: LLVM ERROR
// RUN: not txlc ok.mlir --arch=sm_100a --ptx-version=ptx80 -o out.ptx 2>&1 | FileCheck %s --check-prefix=PTX80
// PTX80: error: PTX version 8.0 (ptx80) does not support sm_100a: sm_100a needs PTX 8.6 or newer
// A version LLVM does not know; the list comes from LLVM's NVPTX feature table.
// RUN: not txlc ok.mlir --ptx-version=ptx99 -o out.ptx 2>&1 | FileCheck %s --check-prefix=PTX99
// PTX99: error: unknown PTX version 'ptx99'; expected one of: {{.*}}ptx80, {{.*}}ptx86
// The architecture from the module's txl.target is checked the same way, at the module.
// RUN: not txlc target100.mlir --ptx-version=ptx85 -o out.ptx 2>&1 | FileCheck %s --check-prefix=MODPTX
// MODPTX: target100.mlir:1:1: error: PTX version 8.5 (ptx85) does not support sm_100a
// RUN: not txlc target100.mlir --arch=sm_90a -o out.ptx 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: target100.mlir:1:1: error: the module targets sm_100a (txl.target) but --arch=sm_90a was given

// An operation at module level (a fuzzer find: it crashed LLVM translation,
// which had no function to emit it into), txl or already-lowered NVVM.
// RUN: not txlc toplevel.mlir -o out.ptx 2>&1 | FileCheck %s --check-prefix=TOPLEVEL
// RUN: not test -e out.ptx
// TOPLEVEL: toplevel.mlir:2:3: error: 'txl.async_load_wait' at module level: operations belong inside a kernel function
// TOPLEVEL-NOT: Stack dump
// RUN: not txlc toplevel_nvvm.mlir -o out.ptx 2>&1 | FileCheck %s --check-prefix=TOPNVVM
// TOPNVVM: toplevel_nvvm.mlir:2:3: error: 'nvvm.barrier0' at module level

// Driver options.
// RUN: not txlc ok.mlir --stop-after=NoSuchStage -o out.ptx 2>&1 | FileCheck %s --check-prefix=STAGE
// STAGE: txlc: error: unknown pipeline stage 'NoSuchStage' for --stop-after; the stages are: {{.*}}txl-smem-allocs
// RUN: not txlc ok.mlir --emit=sass -o out.ptx 2>&1 | FileCheck %s --check-prefix=EMIT
// EMIT: txlc: error: unknown --emit kind 'sass'; expected one of: ptx, cubin, llvm, mlir, json
// RUN: not txlc ok.mlir -O7 -o out.ptx 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: txlc: error: -O7 is out of range; expected -O0, -O1, -O2 or -O3
// RUN: not txlc ok.mlir --emit=cubin -o - 2>&1 | FileCheck %s --check-prefix=CUBINSTDOUT
// CUBINSTDOUT: txlc: error: --emit=cubin writes three files
// RUN: not txlc no-such-file.mlir -o out.ptx 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: txlc: error: cannot open input file 'no-such-file.mlir': No such file or directory
// RUN: not test -e out.ptx

// A parse error points into the input.
// RUN: not txlc bad.mlir -o out.ptx 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: bad.mlir:2:3: error:

// A call to a function no library defines (libdevice's __nv_* are linked):
// reported by name, not left to ptxas.
// RUN: not txlc extern.mlir -o out.ptx 2>&1 | FileCheck %s --check-prefix=EXTERN
// RUN: not test -e out.ptx
// EXTERN: extern.mlir:1:1: error: the kernel calls 'expf', which is only declared: txl links no device library but libdevice (__nv_*)
// EXTERN: note: called from: k

// An instruction the chosen PTX version lacks (the shared::cta TMA destination
// needs ptx86) makes NVPTX's instruction selection fail with a fatal error;
// the last-resort guard turns it into a diagnostic.
// RUN: not txlc ctaonly.mlir --ptx-version=ptx80 -o out.ptx 2>&1 | FileCheck %s --check-prefix=SELECT
// RUN: not test -e out.ptx
// SELECT: error: LLVM's NVPTX back end failed while emitting PTX: Cannot select: {{.*}}g2s.cta.tile.2d
// SELECT-NOT: PLEASE submit a bug report
// RUN: txlc ctaonly.mlir -o out.ptx
// RUN: FileCheck %s --check-prefix=CTA < out.ptx
// CTA: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes

// A cast no lowering resolved: named, at its location, instead of the
// translator's terse failure.
// RUN: not txlc cast.mlir -o out.ptx 2>&1 | FileCheck %s --check-prefix=CAST
// CAST: cast.mlir:2:8: error: 'builtin.unrealized_conversion_cast' from 'i32' to 'f32' is left after reconcile-unrealized-casts

// A parameter named (txl.name) as the global scratch parameter that
// txl-global-scratch appends to a kernel that builds a TMA descriptor: the
// launcher passes arguments by name, so the sidecar refuses it.
// RUN: not txlc scratchname.mlir --emit=json -o out.json 2>&1 | FileCheck %s --check-prefix=SCRATCHNAME
// RUN: not test -e out.json
// SCRATCHNAME: scratchname.mlir:2:3: error: kernel 'k' has a parameter named 'arg2', the name of the global scratch parameter that txl-global-scratch appends; rename it

//--- ok.mlir
llvm.func @k(%p: !llvm.ptr<1>) attributes {nvvm.kernel} {
  llvm.return
}

//--- target100.mlir
module attributes {txl.target = "sm_100a"} {
  llvm.func @k(%p: !llvm.ptr<1>) attributes {nvvm.kernel} {
    llvm.return
  }
}

//--- bad.mlir
llvm.func @k() attributes {nvvm.kernel} {
  llvm.no_such_op
}

//--- extern.mlir
llvm.func @expf(f32) -> f32
llvm.func @k(%p: !llvm.ptr<1>, %x: f32) attributes {nvvm.kernel} {
  %y = llvm.call @expf(%x) : (f32) -> f32
  llvm.store %y, %p : f32, !llvm.ptr<1>
  llvm.return
}

//--- ctaonly.mlir
llvm.func @k(%tmap: !llvm.ptr {llvm.byval = !llvm.array<16 x i64>, llvm.align = 64 : i64, nvvm.grid_constant},
             %smem: !llvm.ptr<3>, %mbar: !llvm.ptr<3>, %x: i32) attributes {nvvm.kernel} {
  nvvm.cp.async.bulk.tensor.shared.cluster.global %smem, %tmap, %mbar, box[%x, %x] {isCTAOnly = true} : !llvm.ptr<3>, !llvm.ptr
  llvm.return
}

//--- cast.mlir
llvm.func @k(%p: !llvm.ptr<1>, %x: i32) attributes {nvvm.kernel} {
  %f = builtin.unrealized_conversion_cast %x : i32 to f32
  llvm.store %f, %p : f32, !llvm.ptr<1>
  llvm.return
}

//--- toplevel.mlir
module attributes {txl.target = "sm_90a"} {
  txl.async_load_wait 1
  func.func @f() attributes {txl.kernel} {
    return
  }
}
//--- toplevel_nvvm.mlir
module {
  nvvm.barrier0
  llvm.func @f() {
    llvm.return
  }
}
//--- scratchname.mlir
module attributes {txl.target = "sm_90a"} {
  func.func @k(%a: !txl.ptr<bf16> {txl.name = "arg2"}, %m: i64) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %c1 = arith.constant 1 : i64
    %d = txl.make_tensor_descriptor %a, [%m, %m], [%m, %c1] : !txl.ptr<bf16> -> !txl.tensordesc<64x64xbf16>
    return
  }
}
