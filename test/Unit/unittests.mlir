// The C++ unit tests (GoogleTest, the .cpp files beside this one): the MMA register layouts hold,
// in every thread, the fragment elements PTX defines (MmaLayoutsTest.cpp).
// REQUIRES: txl-unittests
// RUN: txl-unittests --gtest_brief=1 | FileCheck %s
// CHECK: [  PASSED  ]
// CHECK-NOT: FAILED
