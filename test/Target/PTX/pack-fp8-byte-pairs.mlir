// RUN: txlc %s --arch=sm_90a --emit=llvm -O0 | FileCheck %s
//
// fp8 registers are one byte per element: a cvt.rn.satfinite.e4m3x2 result
// (16 bits) is split into its two bytes (trunc, trunc of lshr 8), and an MMA
// operand register packs four bytes again. When the four bytes are the two
// bytes of each of two cvt results, in order, txlc packs the two results side
// by side instead (bitcast <2 x i16>): in the block that converts them, and
// through a block argument that carries the bytes around a loop (the FP8
// attention's P, packed for the next iteration's P @ V: each predecessor then
// passes the packed register). Bytes in another order stay bytes.

module {
  // CHECK-LABEL: define ptx_kernel void @same_block(
  // CHECK: %[[X:.*]] = call i16 @llvm.nvvm.ff.to.e4m3x2.rn(float %0, float %1)
  // CHECK: %[[Y:.*]] = call i16 @llvm.nvvm.ff.to.e4m3x2.rn(float %2, float %3)
  // CHECK: %[[V0:.*]] = insertelement <2 x i16> undef, i16 %[[X]], i32 0
  // CHECK: %[[V1:.*]] = insertelement <2 x i16> %[[V0]], i16 %[[Y]], i32 1
  // CHECK: %[[R:.*]] = bitcast <2 x i16> %[[V1]] to i32
  // CHECK-NOT: <4 x i8>
  // CHECK: store i32 %[[R]]
  llvm.func @same_block(%a: f32, %b: f32, %c: f32, %d: f32, %out: !llvm.ptr) attributes {nvvm.kernel} {
    %c8 = llvm.mlir.constant(8 : i16) : i16
    %i0 = llvm.mlir.constant(0 : i32) : i32
    %i1 = llvm.mlir.constant(1 : i32) : i32
    %i2 = llvm.mlir.constant(2 : i32) : i32
    %i3 = llvm.mlir.constant(3 : i32) : i32
    %x = llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"(%a, %b) : (f32, f32) -> i16
    %y = llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"(%c, %d) : (f32, f32) -> i16
    %xl = llvm.trunc %x : i16 to i8
    %xs = llvm.lshr %x, %c8 : i16
    %xh = llvm.trunc %xs : i16 to i8
    %yl = llvm.trunc %y : i16 to i8
    %ys = llvm.lshr %y, %c8 : i16
    %yh = llvm.trunc %ys : i16 to i8
    %u = llvm.mlir.undef : vector<4xi8>
    %v0 = llvm.insertelement %xl, %u[%i0 : i32] : vector<4xi8>
    %v1 = llvm.insertelement %xh, %v0[%i1 : i32] : vector<4xi8>
    %v2 = llvm.insertelement %yl, %v1[%i2 : i32] : vector<4xi8>
    %v3 = llvm.insertelement %yh, %v2[%i3 : i32] : vector<4xi8>
    %r = llvm.bitcast %v3 : vector<4xi8> to i32
    llvm.store %r, %out : i32, !llvm.ptr
    llvm.return
  }

  // CHECK-LABEL: define ptx_kernel void @carried(
  // CHECK: %[[P0:[0-9]+]] = bitcast <2 x i16> %{{[0-9]+}} to i32
  // CHECK: br label %[[LOOP:[0-9]+]]
  // CHECK: [[LOOP]]:
  // CHECK: %[[REG:[0-9]+]] = phi i32 [ %[[P1:[0-9]+]], %[[LOOP]] ], [ %[[P0]], %{{[0-9]+}} ]
  // CHECK-NOT: <4 x i8>
  // CHECK: store i32 %[[REG]]
  // CHECK: %[[P1]] = bitcast <2 x i16> %{{[0-9]+}} to i32
  // CHECK: br i1 %{{[0-9]+}}, label %[[LOOP]]
  llvm.func @carried(%a: f32, %b: f32, %n: i1, %out: !llvm.ptr) attributes {nvvm.kernel} {
    %c8 = llvm.mlir.constant(8 : i16) : i16
    %i0 = llvm.mlir.constant(0 : i32) : i32
    %i1 = llvm.mlir.constant(1 : i32) : i32
    %i2 = llvm.mlir.constant(2 : i32) : i32
    %i3 = llvm.mlir.constant(3 : i32) : i32
    %x = llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"(%a, %b) : (f32, f32) -> i16
    %xl = llvm.trunc %x : i16 to i8
    %xs = llvm.lshr %x, %c8 : i16
    %xh = llvm.trunc %xs : i16 to i8
    %e = llvm.mlir.undef : !llvm.struct<(i8, i8, i8, i8)>
    %e0 = llvm.insertvalue %xl, %e[0] : !llvm.struct<(i8, i8, i8, i8)>
    %e1 = llvm.insertvalue %xh, %e0[1] : !llvm.struct<(i8, i8, i8, i8)>
    %e2 = llvm.insertvalue %xl, %e1[2] : !llvm.struct<(i8, i8, i8, i8)>
    %e3 = llvm.insertvalue %xh, %e2[3] : !llvm.struct<(i8, i8, i8, i8)>
    llvm.br ^loop(%e3 : !llvm.struct<(i8, i8, i8, i8)>)
  ^loop(%s: !llvm.struct<(i8, i8, i8, i8)>):
    %s0 = llvm.extractvalue %s[0] : !llvm.struct<(i8, i8, i8, i8)>
    %s1 = llvm.extractvalue %s[1] : !llvm.struct<(i8, i8, i8, i8)>
    %s2 = llvm.extractvalue %s[2] : !llvm.struct<(i8, i8, i8, i8)>
    %s3 = llvm.extractvalue %s[3] : !llvm.struct<(i8, i8, i8, i8)>
    %u = llvm.mlir.undef : vector<4xi8>
    %v0 = llvm.insertelement %s0, %u[%i0 : i32] : vector<4xi8>
    %v1 = llvm.insertelement %s1, %v0[%i1 : i32] : vector<4xi8>
    %v2 = llvm.insertelement %s2, %v1[%i2 : i32] : vector<4xi8>
    %v3 = llvm.insertelement %s3, %v2[%i3 : i32] : vector<4xi8>
    %r = llvm.bitcast %v3 : vector<4xi8> to i32
    llvm.store %r, %out : i32, !llvm.ptr
    %z = llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"(%b, %a) : (f32, f32) -> i16
    %zl = llvm.trunc %z : i16 to i8
    %zs = llvm.lshr %z, %c8 : i16
    %zh = llvm.trunc %zs : i16 to i8
    %f0 = llvm.insertvalue %zl, %s[0] : !llvm.struct<(i8, i8, i8, i8)>
    %f1 = llvm.insertvalue %zh, %f0[1] : !llvm.struct<(i8, i8, i8, i8)>
    %f2 = llvm.insertvalue %xl, %f1[2] : !llvm.struct<(i8, i8, i8, i8)>
    %f3 = llvm.insertvalue %xh, %f2[3] : !llvm.struct<(i8, i8, i8, i8)>
    llvm.cond_br %n, ^loop(%f3 : !llvm.struct<(i8, i8, i8, i8)>), ^exit
  ^exit:
    llvm.return
  }

  // CHECK-LABEL: define ptx_kernel void @other_order(
  // CHECK: bitcast <4 x i8>
  llvm.func @other_order(%a: f32, %b: f32, %out: !llvm.ptr) attributes {nvvm.kernel} {
    %c8 = llvm.mlir.constant(8 : i16) : i16
    %i0 = llvm.mlir.constant(0 : i32) : i32
    %i1 = llvm.mlir.constant(1 : i32) : i32
    %i2 = llvm.mlir.constant(2 : i32) : i32
    %i3 = llvm.mlir.constant(3 : i32) : i32
    %x = llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"(%a, %b) : (f32, f32) -> i16
    %xs = llvm.lshr %x, %c8 : i16
    %xh = llvm.trunc %xs : i16 to i8
    %xl = llvm.trunc %x : i16 to i8
    %u = llvm.mlir.undef : vector<4xi8>
    %v0 = llvm.insertelement %xh, %u[%i0 : i32] : vector<4xi8>
    %v1 = llvm.insertelement %xl, %v0[%i1 : i32] : vector<4xi8>
    %v2 = llvm.insertelement %xh, %v1[%i2 : i32] : vector<4xi8>
    %v3 = llvm.insertelement %xl, %v2[%i3 : i32] : vector<4xi8>
    %r = llvm.bitcast %v3 : vector<4xi8> to i32
    llvm.store %r, %out : i32, !llvm.ptr
    llvm.return
  }
}
