// REQUIRES: ptxas
// RUN: rm -f %t.ptx
// RUN: txlc %s --arch=sm_90a --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// txl.print (tl.device_print) becomes vprintf calls, as Triton prints: every
// thread prints "pid (x, y, z) idx (i) <prefix><value>" for each register of
// a tile, and the program id plus the value for a scalar (f32 widened to f64,
// as C varargs are; with hex, a float's own 32 bits as %x). The format
// strings are constant globals.
// CHECK-DAG: .global .align 1 .b8 txl_printf_{{[0-9]+}}[28] = {112, 105, 100, 32, 40, 37, 100, 44, 32, 37, 100, 44, 32, 37, 100, 41, 32, 98, 105, 116, 115, 32, 61, 32, 37, 120, 10}
// CHECK-DAG: .extern .func  (.param .b32 func_retval0) vprintf
// CHECK-DAG: .global .align 1 .b8 txl_printf_{{[0-9]+}}[{{[0-9]+}}] = {112, 105, 100, 32, 40, 37, 100
// CHECK: .entry print_values(
// CHECK: cvt.f64.f32
// CHECK: call.uni (retval0), vprintf
// CHECK: ret;
module attributes {txl.target = "sm_90a"} {
  func.func @print_values(%x: !txl.ptr<f32>, %s: i32) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %r = txl.make_range 0, 128 : tensor<128xi32>
    %xp = txl.splat %x : !txl.ptr<f32> -> tensor<128x!txl.ptr<f32>>
    %xps = txl.addptr %xp, %r : tensor<128x!txl.ptr<f32>>, tensor<128xi32>
    %v = txl.load %xps : tensor<128x!txl.ptr<f32>> -> tensor<128xf32>
    txl.print "x = " %v : tensor<128xf32>
    txl.print "s = " %s : i32
    %f = arith.sitofp %s : i32 to f32
    txl.print "bits = " %f : f32 {hex}
    txl.print "hello"
    return
  }
}
