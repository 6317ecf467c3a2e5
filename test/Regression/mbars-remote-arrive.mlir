// Regression: a remote arrive maps the CTA-local mbarrier (ptr<3>) into the
// cluster window with nvvm.mapa (it used to pass a ptr<7> and fail to verify).
// RUN: txl-opt %s -txl-mbars | FileCheck %s
// CHECK: %[[P:.*]] = nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.mbarrier.arrive %[[P]] : !llvm.ptr<7>

module attributes {txl.target = "sm_90a"} {
  func.func @remote(%bar: !txl.mbar, %cta: i32) attributes {txl.kernel} {
    txl.mbar_arrive %bar remote %cta
    return
  }
}
