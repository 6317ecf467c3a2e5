// RUN: txl-opt %s -split-input-file -verify-diagnostics

// Verifier rules of the txl dialect: warp-specialization roles, register reallocation and ids.
// (One file per op group; invalid types and attributes are in invalid-types.mlir.)

// setmaxnreg takes at least 24 registers.
func.func @f() {
  // expected-error @+1 {{'txl.reg_dealloc' op register count must be in 24..256 in steps of 8 (setmaxnreg), got 16}}
  txl.reg_dealloc 16
  return
}

// -----

// setmaxnreg takes at most 256 registers.
func.func @f() {
  // expected-error @+1 {{'txl.reg_alloc' op register count must be in 24..256 in steps of 8 (setmaxnreg), got 264}}
  txl.reg_alloc 264
  return
}

// -----

// setmaxnreg counts go in steps of 8.
func.func @f() {
  // expected-error @+1 {{'txl.reg_alloc' op register count must be in 24..256 in steps of 8 (setmaxnreg), got 100}}
  txl.reg_alloc 100
  return
}

// -----

// is_warpgroup lists at least one warpgroup.
func.func @f() {
  // expected-error @+1 {{'txl.is_warpgroup' op needs at least one warpgroup id}}
  %p = txl.is_warpgroup []
  return
}

// -----

// A block has at most 8 warpgroups.
func.func @f() {
  // expected-error @+1 {{'txl.is_warpgroup' op warpgroup id 8 is out of range [0, 8)}}
  %p = txl.is_warpgroup [0, 8]
  return
}

// -----

// Warpgroup ids are listed once.
func.func @f() {
  // expected-error @+1 {{'txl.is_warpgroup' op warpgroup id 1 is listed twice}}
  %p = txl.is_warpgroup [1, 2, 1]
  return
}

// -----

// is_warp lists at least one warp.
func.func @f() {
  // expected-error @+1 {{'txl.is_warp' op needs at least one warp id}}
  %p = txl.is_warp []
  return
}

// -----

// Warp ids are not negative.
func.func @f() {
  // expected-error @+1 {{'txl.is_warp' op warp id -1 is out of range [0, 32)}}
  %p = txl.is_warp [-1, 4]
  return
}

// -----

// A block has at most 32 warps.
func.func @f() {
  // expected-error @+1 {{'txl.is_warp' op warp id 32 is out of range [0, 32)}}
  %p = txl.is_warp [32]
  return
}

// -----

// Warp ids are listed once.
func.func @f() {
  // expected-error @+1 {{'txl.is_warp' op warp id 5 is listed twice}}
  %p = txl.is_warp [5, 5]
  return
}

// -----

// program_id axis is 0..2.
func.func @f() {
  // expected-error @+1 {{'txl.program_id' op attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %p = txl.program_id 3
  return
}

// -----

// num_programs axis is 0..2.
func.func @f() {
  // expected-error @+1 {{'txl.num_programs' op attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %n = txl.num_programs -1
  return
}

//===----------------------------------------------------------------------===//
// Register tiles
//===----------------------------------------------------------------------===//
