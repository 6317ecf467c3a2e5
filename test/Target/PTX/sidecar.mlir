// The JSON sidecar of a txl-level kernel: parameters from the txl signature
// (descriptors as the hardware box the host must encode, pointers, scalars),
// the block size from txl.num_warps, the shared memory the pipeline planned.
// txlc writes it beside the PTX (k.ptx -> k.json); --emit=json writes only it.
//
// REQUIRES: ptxas
// RUN: rm -rf %t && split-file --no-leading-lines %s %t && cd %t
// RUN: txlc tiny.mlir -o tiny.ptx 2>&1 | count 0
// RUN: FileCheck %s --check-prefix=PTX < tiny.ptx
// RUN: FileCheck %s < tiny.json
// The Python launcher accepts it as it is.
// RUN: %python -c "import json, sys; sys.path.insert(0, r'%txl_src/python'); from txl.runtime.launcher import parse_sidecar; m = parse_sidecar(json.load(open('tiny.json')), 'tiny.json'); print(m.signature(), list(m.threads), m.shared_bytes, list(m.cluster))" | FileCheck %s --check-prefix=PARSED

// CHECK:      {
// CHECK-NEXT:   "kernel": "tiny",
// CHECK-NEXT:   "arch": "sm_90a",
// CHECK-NEXT:   "ptx": "tiny.ptx",
// CHECK-NEXT:   "threads": [256, 1, 1],
// CHECK-NEXT:   "shared_bytes": 0,
// CHECK-NEXT:   "cluster": [1, 1, 1],
// CHECK-NEXT:   "params": [
// A 128-column bf16 tile with a 128-byte swizzle moves as 64-column boxes.
// CHECK-NEXT:     {"name": "arg0", "kind": "tensordesc", "dtype": "bf16", "block_shape": [128, 64], "swizzle": 128},
// CHECK-NEXT:     {"name": "b", "kind": "tensordesc", "dtype": "f8e4m3", "block_shape": [64, 128], "swizzle": 128},
// CHECK-NEXT:     {"name": "c_ptr", "kind": "ptr", "dtype": "f32"},
// CHECK-NEXT:     {"name": "M", "kind": "scalar", "dtype": "i32"},
// CHECK-NEXT:     {"name": "scale", "kind": "scalar", "dtype": "f32"},
// CHECK-NEXT:     {"name": "arg5", "kind": "scalar", "dtype": "i64"}
// CHECK-NEXT:   ]
// CHECK-NEXT: }

// The txl.name annotations are for the sidecar only: they are dropped before
// LLVM translation (which would warn about them), so txlc printed nothing.
// PTX: .entry tiny(
// PTX-NEXT: .param .align 64 .b8 tiny_param_0[128],
// PTX-NEXT: .param .align 64 .b8 tiny_param_1[128],
// PTX-NEXT: .param .u64 .ptr .global .align 1 tiny_param_2,
// PTX: .reqntid 256, 1, 1

// PARSED: tiny(arg0: tensordesc<bf16, [128, 64], swizzle=128>, b: tensordesc<f8e4m3, [64, 128], swizzle=128>, c_ptr: *f32, M: i32, scale: f32, arg5: i64) [256, 1, 1] 0 [1, 1, 1]

// --emit=json writes the same sidecar alone; default file names follow the
// input.
// RUN: rm tiny.json tiny.ptx
// RUN: txlc tiny.mlir --emit=json
// RUN: FileCheck %s < tiny.json
// RUN: not test -e tiny.ptx

// With --emit=cubin the sidecar also names the cubin (-o may name either file).
// RUN: txlc tiny.mlir --emit=cubin -o cub.cubin
// RUN: FileCheck %s --check-prefix=CUBIN < cub.json
// RUN: test -s cub.ptx
// CUBIN: "ptx": "cub.ptx",
// CUBIN-NEXT: "cubin": "cub.cubin",
// CUBIN-NEXT: "threads": [256, 1, 1],

// A Blackwell kernel: arch from the module's txl.target; the shared-memory
// size is what the pipeline planned (an mbarrier here, which the kernel
// arrives on: an allocation nothing reads is erased by txl-erase-dead-values).
// RUN: txlc mbar100.mlir -o mbar100.ptx
// RUN: FileCheck %s --check-prefix=SM100 < mbar100.json
// SM100: "kernel": "k100",
// SM100-NEXT: "arch": "sm_100a",
// SM100: "threads": [128, 1, 1],
// SM100-NEXT: "shared_bytes": {{[1-9][0-9]*}},

// Parameters the launcher cannot pass, and other sidecar errors.
// RUN: not txlc memref.mlir --emit=json -o out.json 2>&1 | FileCheck %s --check-prefix=MEMREF
// RUN: not test -e out.json
// MEMREF: memref.mlir:2:16: error: kernel 'k' parameter 0 ('arg0') has type 'memref<4xf32>', which the launcher cannot pass
// RUN: not txlc shared.mlir --emit=json -o out.json 2>&1 | FileCheck %s --check-prefix=SHARED
// SHARED: error: kernel 'k' parameter 0 ('arg0') has type '!txl.ptr<f32, 3>', a pointer into address space 3
// RUN: not txlc scratch.mlir --emit=json -o out.json 2>&1 | FileCheck %s --check-prefix=SCRATCH
// SCRATCH: scratch.mlir:2:16: error: kernel 'k' parameter 0 ('arg0') has type '!txl.ptr<f32>', with 'txl.global_scratch', which needs a !txl.ptr<i8> and a positive multiple of 128 bytes per CTA
// RUN: not txlc dup.mlir --emit=json -o out.json 2>&1 | FileCheck %s --check-prefix=DUP
// DUP: error: kernel 'k' has two parameters named 'x'
// RUN: not txlc two.mlir --emit=json -o out.json 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: two.mlir:1:1: error: the module has 2 kernels (a, b) but a sidecar describes one
// RUN: not txlc none.mlir --emit=json -o out.json 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: error: no function has 'txl.kernel'
// RUN: not test -e out.json

//--- tiny.mlir
module attributes {txl.target = "sm_90a"} {
  func.func @tiny(%a: !txl.tensordesc<128x128xbf16, #txl.nvmma_shared<swizzle = 128>>,
                  %b: !txl.tensordesc<64x128xf8E4M3FN, #txl.nvmma_shared<swizzle = 128>> {txl.name = "b"},
                  %c: !txl.ptr<f32> {txl.name = "c_ptr"}, %m: i32 {txl.name = "M"},
                  %s: f32 {txl.name = "scale"}, %n: i64)
      attributes {txl.kernel, txl.num_warps = 8 : i32} {
    return
  }
}

//--- mbar100.mlir
module attributes {txl.target = "sm_100a"} {
  func.func @k100(%p: !txl.ptr<f32>) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %bars = txl.mbar_alloc count 1 : !txl.mbar<2>
    %c0 = arith.constant 0 : i32
    %b = txl.get_buffer %bars[%c0] : !txl.mbar<2>
    txl.mbar_arrive %b
    return
  }
}

//--- memref.mlir
module {
  func.func @k(%a: memref<4xf32>) attributes {txl.kernel} {
    return
  }
}

//--- scratch.mlir
module {
  func.func @k(%a: !txl.ptr<f32> {txl.global_scratch = 128 : i64}) attributes {txl.kernel} {
    return
  }
}

//--- shared.mlir
module {
  func.func @k(%a: !txl.ptr<f32, 3>) attributes {txl.kernel} {
    return
  }
}

//--- dup.mlir
module {
  func.func @k(%a: i32 {txl.name = "x"}, %b: i32 {txl.name = "x"}) attributes {txl.kernel} {
    return
  }
}

//--- two.mlir
module {
  func.func @a() attributes {txl.kernel} {
    return
  }
  func.func @b() attributes {txl.kernel} {
    return
  }
}

//--- none.mlir
module {
  func.func @f() {
    return
  }
}
