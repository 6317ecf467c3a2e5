// RUN: txl-opt %s -split-input-file -verify-diagnostics

// Verifier rules of the txl dialect: register-tile ops (ranges, splats, shape ops, reduce, pointer loads/stores, relayout, print).
// (One file per op group; invalid types and attributes are in invalid-types.mlir.)

// make_range needs start < end.
func.func @f() {
  // expected-error @+1 {{'txl.make_range' op needs 0 <= start < end, got [8, 8)}}
  %r = txl.make_range 8, 8 : tensor<0xi32>
  return
}

// -----

// make_range needs start >= 0.
func.func @f() {
  // expected-error @+1 {{'txl.make_range' op needs 0 <= start < end, got [-4, 4)}}
  %r = txl.make_range -4, 4 : tensor<8xi32>
  return
}

// -----

// make_range returns end - start elements.
func.func @f() {
  // expected-error @+1 {{'txl.make_range' op result must be tensor<128xi32>, got 'tensor<64xi32>'}}
  %r = txl.make_range 0, 128 : tensor<64xi32>
  return
}

// -----

// make_range returns a 1-D tile.
func.func @f() {
  // expected-error @+1 {{'txl.make_range' op result must be tensor<128xi32>, got 'tensor<1x128xi32>'}}
  %r = txl.make_range 0, 128 : tensor<1x128xi32>
  return
}

// -----

// splat keeps the element type.
func.func @f(%x: f16) {
  // expected-error @+1 {{'txl.splat' op splats a 'f16' into a tile of 'f32'; the element types must match}}
  %t = txl.splat %x : f16 -> tensor<64x64xf32>
  return
}

// -----

// broadcast keeps the rank.
func.func @f(%x: tensor<64xf32>) {
  // expected-error @+1 {{'txl.broadcast' op keeps the rank; use txl.expand_dims first (got rank 1 -> 2)}}
  %t = txl.broadcast %x : tensor<64xf32> -> tensor<64x64xf32>
  return
}

// -----

// broadcast only repeats size-1 dimensions.
func.func @f(%x: tensor<64x2xf32>) {
  // expected-error @+1 {{'txl.broadcast' op cannot broadcast [64, 2] to [64, 64]: dimension 1 is 2, not 1}}
  %t = txl.broadcast %x : tensor<64x2xf32> -> tensor<64x64xf32>
  return
}

// -----

// expand_dims axis is in [0, rank].
func.func @f(%x: tensor<64xf32>) {
  // expected-error @+1 {{'txl.expand_dims' op axis 2 is out of range [0, 1]}}
  %t = txl.expand_dims %x, 2 : tensor<64xf32> -> tensor<64x1xf32>
  return
}

// -----

// A negative expand_dims axis is out of range.
func.func @f(%x: tensor<64xf32>) {
  // expected-error @+1 {{'txl.expand_dims' op axis -1 is out of range [0, 1]}}
  %t = txl.expand_dims %x, -1 : tensor<64xf32> -> tensor<64x1xf32>
  return
}

// -----

// expand_dims inserts a 1 at axis.
func.func @f(%x: tensor<64xf32>) {
  // expected-error @+1 {{'txl.expand_dims' op result shape must be [1, 64], got [64, 1]}}
  %t = txl.expand_dims %x, 0 : tensor<64xf32> -> tensor<64x1xf32>
  return
}

// -----

// relayout keeps the shape.
func.func @f(%x: tensor<64x64xf32>) {
  // expected-error @+1 {{'txl.relayout' op moves a tile to another layout: source and result must have the same shape and element type, got 'tensor<64x64xf32>' and 'tensor<64x32xf32>'}}
  %t = txl.relayout %x : tensor<64x64xf32> -> tensor<64x32xf32>
  return
}

// -----

// reduce needs an operand.
func.func @f() {
  // expected-error @+1 {{'txl.reduce' op needs at least one operand}}
  "txl.reduce"() <{axis = 0 : i32}> ({
    "txl.reduce_return"() : () -> ()
  }) : () -> ()
  return
}

// -----

// A scan's results have its operands' types.
func.func @f(%s: tensor<64x128xf32>) {
  // expected-error @+1 {{'txl.scan' op result 0 must have its operand's type 'tensor<64x128xf32>', got 'tensor<64xf32>'}}
  %r = txl.scan %s axis 1 : (tensor<64x128xf32>) -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32):
    txl.reduce_return %a : f32
  }
  return
}

// -----

// A scan's combiner is checked as a reduce's.
func.func @f(%s: tensor<64x128xf32>) {
  // expected-error @+1 {{'txl.scan' op combiner returns 'i32' for operand 0, expected 'f32'}}
  %r = txl.scan %s axis 1 : (tensor<64x128xf32>) -> tensor<64x128xf32> {
  ^bb0(%a: f32, %b: f32):
    %c = arith.constant 0 : i32
    txl.reduce_return %c : i32
  }
  return
}

// -----

// A scan axis is a dimension of the operands.
func.func @f(%s: tensor<64x128xf32>) {
  // expected-error @+1 {{'txl.scan' op axis 2 is out of range for a rank-2 tile}}
  %r = txl.scan %s axis 2 reverse : (tensor<64x128xf32>) -> tensor<64x128xf32> {
  ^bb0(%a: f32, %b: f32):
    txl.reduce_return %a : f32
  }
  return
}


// -----

// reduce axis is a dimension of the operands.
func.func @f(%s: tensor<64x128xf32>) {
  // expected-error @+1 {{'txl.reduce' op axis 2 is out of range for a rank-2 tile}}
  %r = txl.reduce %s axis 2 : (tensor<64x128xf32>) -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32):
    txl.reduce_return %a : f32
  }
  return
}

// -----

// A negative reduce axis is out of range.
func.func @f(%s: tensor<64x128xf32>) {
  // expected-error @+1 {{'txl.reduce' op axis -1 is out of range for a rank-2 tile}}
  %r = txl.reduce %s axis -1 : (tensor<64x128xf32>) -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32):
    txl.reduce_return %a : f32
  }
  return
}

// -----

// reduce returns one result per operand.
func.func @f(%s: tensor<64x128xf32>) {
  // expected-error @+1 {{'txl.reduce' op needs one result per operand}}
  %r:2 = txl.reduce %s axis 1 : (tensor<64x128xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  ^bb0(%a: f32, %b: f32):
    txl.reduce_return %a : f32
  }
  return
}

// -----

// The combiner takes two arguments per operand.
func.func @f(%s: tensor<64x128xf32>) {
  // expected-error @+1 {{'txl.reduce' op combiner takes 2 arguments (two per operand), got 3}}
  %r = txl.reduce %s axis 1 : (tensor<64x128xf32>) -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32, %c: f32):
    txl.reduce_return %a : f32
  }
  return
}

// -----

// The operands of a reduce have one shape.
func.func @f(%s: tensor<64x128xf32>, %i: tensor<64x64xi32>) {
  // expected-error @+1 {{'txl.reduce' op operands must have the same shape}}
  %r:2 = txl.reduce %s, %i axis 1 : (tensor<64x128xf32>, tensor<64x64xi32>) -> (tensor<64xf32>, tensor<64xi32>) {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    txl.reduce_return %a, %ai : f32, i32
  }
  return
}

// -----

// The combiner arguments have the operands' element types.
func.func @f(%s: tensor<64x128xf32>) {
  // expected-error @+1 {{'txl.reduce' op combiner arguments for operand 0 must be 'f32'}}
  %r = txl.reduce %s axis 1 : (tensor<64x128xf32>) -> tensor<64xf32> {
  ^bb0(%a: f16, %b: f16):
    txl.reduce_return %a : f16
  }
  return
}

// -----

// A reduce drops the axis from the shape.
func.func @f(%s: tensor<64x128xf32>) {
  // expected-error @+1 {{'txl.reduce' op result 0 must be 'tensor<64xf32>', got 'tensor<128xf32>'}}
  %r = txl.reduce %s axis 1 : (tensor<64x128xf32>) -> tensor<128xf32> {
  ^bb0(%a: f32, %b: f32):
    txl.reduce_return %a : f32
  }
  return
}

// -----

// A rank-1 reduce returns a scalar.
func.func @f(%s: tensor<64xf32>) {
  // expected-error @+1 {{'txl.reduce' op result 0 must be 'f32', got 'tensor<1xf32>'}}
  %r = txl.reduce %s axis 0 : (tensor<64xf32>) -> tensor<1xf32> {
  ^bb0(%a: f32, %b: f32):
    txl.reduce_return %a : f32
  }
  return
}

// -----

// The combiner ends in txl.reduce_return.
func.func @f(%s: tensor<64x128xf32>) {
  // expected-error @+1 {{'txl.reduce' op combiner must end in txl.reduce_return of 1 values}}
  %r = "txl.reduce"(%s) <{axis = 1 : i32, operandSegmentSizes = array<i32: 1, 0>}> ({
  ^bb0(%a: f32, %b: f32):
    "llvm.unreachable"() : () -> ()
  }) : (tensor<64x128xf32>) -> tensor<64xf32>
  return
}

// -----

// The combiner returns one value per operand.
func.func @f(%s: tensor<64x128xf32>) {
  // expected-error @+1 {{'txl.reduce' op combiner must end in txl.reduce_return of 1 values}}
  %r = txl.reduce %s axis 1 : (tensor<64x128xf32>) -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32):
    txl.reduce_return %a, %b : f32, f32
  }
  return
}

// -----

// The combiner returns values of the operands' element types.
func.func @f(%s: tensor<64x128xf32>) {
  // expected-error @+1 {{'txl.reduce' op combiner returns 'f16' for operand 0, expected 'f32'}}
  %r = txl.reduce %s axis 1 : (tensor<64x128xf32>) -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32):
    %h = arith.truncf %a : f32 to f16
    txl.reduce_return %h : f16
  }
  return
}

// -----

// sort and flip: the axis is a dimension of the tile.
func.func @f(%x: tensor<64xf32>) {
  // expected-error @+1 {{'txl.flip' op axis 1 is out of range for a rank-1 tile}}
  %r = txl.flip %x axis 1 : tensor<64xf32>
  return
}

// -----

// sort orders integers and floats.
func.func @f(%x: tensor<64xi1>) {
  // expected-error @+1 {{'txl.sort' op sorts integers and floats, got 'i1'}}
  %r = txl.sort %x axis 0 : tensor<64xi1>
  return
}

// -----

// An assertion's condition is boolean.
func.func @f(%x: tensor<64xf32>) {
  // expected-error @+1 {{'txl.assert' op condition must be i1 or a tile of i1, got 'tensor<64xf32>'}}
  txl.assert %x, "x" : tensor<64xf32>
  return
}

// -----

// reduce_return only terminates a txl.reduce or txl.scan.
func.func @f(%x: f32) {
  // expected-error @+1 {{'txl.reduce_return' op expects parent op to be one of 'txl.reduce, txl.scan, txl.warp_reduce'}}
  txl.reduce_return %x : f32
}

// -----

// addptr offsets have the pointers' shape.
func.func @f(%p: tensor<128x!txl.ptr<f32>>, %o: tensor<64xi32>) {
  // expected-error @+1 {{'txl.addptr' op offsets 'tensor<64xi32>' must have the shape of the pointers 'tensor<128x!txl.ptr<f32>>'}}
  %q = txl.addptr %p, %o : tensor<128x!txl.ptr<f32>>, tensor<64xi32>
  return
}

// -----

// addptr of a scalar pointer takes a scalar offset.
func.func @f(%p: !txl.ptr<f32>, %o: tensor<1xi32>) {
  // expected-error @+1 {{'txl.addptr' op offsets 'tensor<1xi32>' must have the shape of the pointers '!txl.ptr<f32>'}}
  %q = txl.addptr %p, %o : !txl.ptr<f32>, tensor<1xi32>
  return
}

// -----

// load returns the pointee type in the pointers' shape.
func.func @f(%p: tensor<128x!txl.ptr<f32>>) {
  // expected-error @+1 {{'txl.load' op loads 'tensor<128xf32>' through 'tensor<128x!txl.ptr<f32>>', but the result is 'tensor<128xf16>'}}
  %x = txl.load %p : tensor<128x!txl.ptr<f32>> -> tensor<128xf16>
  return
}

// -----

// A scalar load returns a scalar.
func.func @f(%p: !txl.ptr<bf16>) {
  // expected-error @+1 {{'txl.load' op loads 'bf16' through '!txl.ptr<bf16>', but the result is 'tensor<1xbf16>'}}
  %x = txl.load %p : !txl.ptr<bf16> -> tensor<1xbf16>
  return
}

// -----

// load: 'other' needs a mask.
func.func @f(%p: tensor<128x!txl.ptr<f32>>, %z: tensor<128xf32>) {
  // expected-error @+1 {{'txl.load' op 'other' is only used with a mask}}
  %x = txl.load %p other %z : tensor<128x!txl.ptr<f32>> -> tensor<128xf32>
  return
}

// -----

// load: 'other' has the result type (checked by the op's type constraint).
func.func @f(%p: tensor<128x!txl.ptr<f32>>, %m: tensor<128xi1>, %z: tensor<128xf16>) {
  // expected-error @+1 {{'txl.load' op failed to verify that other has the result type}}
  %x = "txl.load"(%p, %m, %z) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<128x!txl.ptr<f32>>, tensor<128xi1>, tensor<128xf16>) -> tensor<128xf32>
  return
}

// -----

// load: the mask has the pointers' shape (checked by the op's type constraint).
func.func @f(%p: tensor<128x!txl.ptr<f32>>, %m: tensor<64xi1>) {
  // expected-error @+1 {{'txl.load' op failed to verify that mask is i1 in the pointers' shape}}
  %x = "txl.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<128x!txl.ptr<f32>>, tensor<64xi1>) -> tensor<128xf32>
  return
}

// -----

// store writes the pointee type in the pointers' shape.
func.func @f(%p: tensor<128x!txl.ptr<f32>>, %x: tensor<128xf16>) {
  // expected-error @+1 {{'txl.store' op stores 'tensor<128xf16>' through 'tensor<128x!txl.ptr<f32>>', which needs 'tensor<128xf32>'}}
  txl.store %p, %x : tensor<128x!txl.ptr<f32>>, tensor<128xf16>
  return
}

// -----

// store: the mask has the pointers' shape (checked by the op's type constraint).
func.func @f(%p: !txl.ptr<f32>, %x: f32, %m: tensor<1xi1>) {
  // expected-error @+1 {{'txl.store' op failed to verify that mask is i1 in the pointers' shape}}
  "txl.store"(%p, %x, %m) : (!txl.ptr<f32>, f32, tensor<1xi1>) -> ()
  return
}

// -----

// trans: the order is a permutation of the dimensions.
func.func @f(%x: tensor<64x32xf32>) {
  // expected-error @+1 {{'txl.trans' op order must be a permutation of 0..1, got [0, 0]}}
  %t = txl.trans %x, [0, 0] : tensor<64x32xf32> -> tensor<64x64xf32>
  return
}

// -----

// trans: result dimension i is source dimension order[i].
func.func @f(%x: tensor<64x32xf32>) {
  // expected-error @+1 {{'txl.trans' op result shape must be [32, 64], got [64, 32]}}
  %t = txl.trans %x, [1, 0] : tensor<64x32xf32> -> tensor<64x32xf32>
  return
}

// -----

// trans: a result layout that is not the source layout transposed would move
// data between threads.
#rows = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @f(%x: tensor<16x32xf32, #rows>) {
  // expected-error @+1 {{'txl.trans' op result layout #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]> is not the source layout moved through the op (#txl.linear<register = [[1, 0], [2, 0]], lane = [[4, 0], [8, 0], [16, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8]]>); insert a txl.relayout after it}}
  %t = txl.trans %x, [1, 0] : tensor<16x32xf32, #rows> -> tensor<32x16xf32, #rows>
  return
}

// -----

// reshape keeps the number of elements.
func.func @f(%x: tensor<64x32xf32>) {
  // expected-error @+1 {{'txl.reshape' op cannot reshape [64, 32] (2048 elements) to [64, 64] (4096 elements)}}
  %r = txl.reshape %x : tensor<64x32xf32> -> tensor<64x64xf32>
  return
}

// -----

// reshape keeps the element type.
func.func @f(%x: tensor<64x32xf32>) {
  // expected-error @+1 {{'txl.reshape' op requires the same element type for all operands and results}}
  %r = txl.reshape %x : tensor<64x32xf32> -> tensor<2048xf16>
  return
}

// -----

// join: the result adds a last dimension of size 2.
func.func @f(%a: tensor<64x32xf32>) {
  // expected-error @+1 {{'txl.join' op result must be [64, 32, 2] of 'f32', got 'tensor<64x64xf32>'}}
  %j = txl.join %a, %a : tensor<64x32xf32> -> tensor<64x64xf32>
  return
}

// -----

// join: both operands have one type.
func.func @f(%a: tensor<64x32xf32>, %b: tensor<64x32xf16>) {
  // expected-error @+1 {{'txl.join' op failed to verify that all of {lhs, rhs} have same type}}
  %j = "txl.join"(%a, %b) : (tensor<64x32xf32>, tensor<64x32xf16>) -> tensor<64x32x2xf32>
  return
}

// -----

// split: the last dimension has size 2.
func.func @f(%x: tensor<64x32xf32>) {
  // expected-error @+1 {{'txl.split' op splits a last dimension of size 2 (rank >= 2), got [64, 32]}}
  %a, %b = txl.split %x : tensor<64x32xf32> -> tensor<64xf32>
  return
}

// -----

// split: the results drop the last dimension.
func.func @f(%x: tensor<64x2xf32>) {
  // expected-error @+1 {{'txl.split' op results must be [64] of 'f32', got 'tensor<32xf32>'}}
  %a, %b = txl.split %x : tensor<64x2xf32> -> tensor<32xf32>
  return
}

// -----

// split: with layouts, the split dimension must be in registers.
#lanes = #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#any = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @f(%x: tensor<64x2xf32, #lanes>) {
  // expected-error @+1 {{'txl.split' op needs the last dimension of its source held in one register basis of each thread; insert a txl.relayout before it}}
  %a, %b = txl.split %x : tensor<64x2xf32, #lanes> -> tensor<64xf32, #any>
  return
}

// -----

// Only libdevice functions can be called.
func.func @extern_not_libdevice(%t: tensor<64xf32>) {
  // expected-error @+1 {{'txl.extern_elementwise' op calls 'sinf': only CUDA libdevice functions (named __nv_*) can be called}}
  %a = txl.extern_elementwise "sinf"(%t) : (tensor<64xf32>) -> tensor<64xf32>
  return
}

// -----

// Tile operands have the result's shape (the frontend broadcasts first).
func.func @extern_shape_mismatch(%t: tensor<64xf32>, %u: tensor<32xf32>) {
  // expected-error @+1 {{'txl.extern_elementwise' op all non-scalar operands/results must have the same shape and base type}}
  %a = "txl.extern_elementwise"(%t, %u) {symbol = "__nv_atan2f"} : (tensor<64xf32>, tensor<32xf32>) -> tensor<64xf32>
  return
}

// -----

// Elements are ints or floats.
func.func @extern_pointer(%p: !txl.ptr<f32>) {
  // expected-error @+1 {{'txl.extern_elementwise' op operand 0 must be an integer or float scalar or tile, got '!txl.ptr<f32>'}}
  %a = txl.extern_elementwise "__nv_sinf"(%p) : (!txl.ptr<f32>) -> f32
  return
}

// -----

func.func @extern_no_operands() {
  // expected-error @+1 {{'txl.extern_elementwise' op needs at least one operand}}
  %a = txl.extern_elementwise "__nv_sinf"() : () -> f32
  return
}

// -----

// Addresses are 64-bit.
func.func @int_to_ptr_i32(%a: tensor<16xi32>) {
  // expected-error @+1 {{'txl.int_to_ptr' op addresses are i64 (scalars or tiles), got 'tensor<16xi32>'}}
  %p = txl.int_to_ptr %a : tensor<16xi32> -> tensor<16x!txl.ptr<f16>>
  return
}

// -----

func.func @ptr_to_int_of_an_int(%a: tensor<16xi64>) {
  // expected-error @+1 {{'txl.ptr_to_int' op expects !txl.ptr elements, got 'tensor<16xi64>'}}
  %p = txl.ptr_to_int %a : tensor<16xi64> -> tensor<16xi64>
  return
}
