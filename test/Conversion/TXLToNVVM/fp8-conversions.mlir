// RUN: txl-opt %s -convert-txl-to-nvvm -reconcile-unrealized-casts | FileCheck %s --implicit-check-not=arith.truncf --implicit-check-not=arith.extf

// fp8 tiles are raw bytes (i8 registers); conversions to and from f32 take
// two registers per PTX cvt: f32 -> e4m3/e5m2 with
// cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 (its first operand lands in the high
// byte, so the pair is passed (r + 1, r)), e4m3/e5m2 -> f16 with
// cvt.rn.f16x2.{e4m3x2,e5m2x2} (then fpext to f32).

#bl = #txl.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: llvm.func @to_e4m3
// CHECK: %[[R0:.*]] = llvm.extractvalue %arg0[0]
// CHECK: %[[R1:.*]] = llvm.extractvalue %arg0[1]
// CHECK: %[[P:.*]] = llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"(%[[R1]], %[[R0]]) : (f32, f32) -> i16
// CHECK: llvm.trunc %[[P]] : i16 to i8
// CHECK: %[[HI:.*]] = llvm.lshr %[[P]], %{{.*}} : i16
// CHECK: llvm.trunc %[[HI]] : i16 to i8
func.func @to_e4m3(%x: tensor<256xf32, #bl>) -> tensor<256xf8E4M3FN, #bl> {
  %y = arith.truncf %x : tensor<256xf32, #bl> to tensor<256xf8E4M3FN, #bl>
  return %y : tensor<256xf8E4M3FN, #bl>
}

// CHECK-LABEL: llvm.func @from_e5m2
// CHECK: llvm.zext %{{.*}} : i8 to i16
// CHECK: llvm.zext %{{.*}} : i8 to i16
// CHECK: llvm.shl
// CHECK: llvm.or
// CHECK: %[[H:.*]] = llvm.call_intrinsic "llvm.nvvm.e5m2x2.to.f16x2.rn"(%{{.*}}) : (i16) -> vector<2xf16>
// CHECK: llvm.extractelement %[[H]]
// CHECK: llvm.fpext %{{.*}} : f16 to f32
// CHECK: llvm.extractelement %[[H]]
// CHECK: llvm.fpext %{{.*}} : f16 to f32
func.func @from_e5m2(%x: tensor<256xf8E5M2, #bl>) -> tensor<256xf32, #bl> {
  %y = arith.extf %x : tensor<256xf8E5M2, #bl> to tensor<256xf32, #bl>
  return %y : tensor<256xf32, #bl>
}
