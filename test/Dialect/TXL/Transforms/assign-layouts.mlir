// RUN: txl-opt %s -txl-assign-layouts -split-input-file -verify-diagnostics | FileCheck %s

// Error cases are checked by -verify-diagnostics in the same run (their
// chunks print nothing); the other chunks are checked by FileCheck.

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>

// An SS dot anchors its accumulator and result to the wgmma accumulator
// layout (instrShape [16, N, 16] for bf16); the zero constant feeding the
// accumulator gets that layout in its type and in its dense attribute.
// CHECK-LABEL: func.func @dot_acc_layout
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]>>
// CHECK: %[[D:.*]] = txl.dot %{{.*}}, %{{.*}}, %[[ZERO]] : !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, !txl.smem<64x128xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>, tensor<64x128xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]>>
// CHECK: arith.addf %[[D]], %[[D]] : tensor<64x128xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]>>
module attributes {txl.target = "sm_90a"} {
  func.func @dot_acc_layout(%a: !txl.smem<64x64xbf16, #sw128>, %b: !txl.smem<64x128xbf16, #sw128T>) attributes {txl.kernel} {
    %zero = arith.constant dense<0.0> : tensor<64x128xf32>
    %d = txl.dot %a, %b, %zero : !txl.smem<64x64xbf16, #sw128>, !txl.smem<64x128xbf16, #sw128T>, tensor<64x128xf32>
    %e = arith.addf %d, %d : tensor<64x128xf32>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>

// A register A operand (P = truncf(S), in the accumulator layout) is routed
// through a new txl.relayout to the wgmma operand layout (kWidth 2 for bf16).
// CHECK-LABEL: func.func @rs_operand_relayout
// CHECK: %[[S:.*]] = txl.dot %{{.*}}, %{{.*}}, %{{.*}} : {{.*}}, tensor<64x64xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>>
// CHECK: %[[P:.*]] = arith.truncf %[[S]] : tensor<64x64xf32, #txl.nvmma<{{.*}}>> to tensor<64x64xbf16, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>>
// CHECK: %[[PA:.*]] = txl.relayout %[[P]] : tensor<64x64xbf16, #txl.nvmma<{{.*}}>> -> tensor<64x64xbf16, #txl.dot_operand<opIdx = 0, parent = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>, kWidth = 2>>
// CHECK: txl.dot %[[PA]], %{{.*}}, %{{.*}} : tensor<64x64xbf16, #txl.dot_operand<opIdx = 0, parent = #txl.nvmma<{{.*}}>, kWidth = 2>>, !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>, tensor<64x64xf32, #txl.nvmma<{{.*}}>>
module attributes {txl.target = "sm_90a"} {
  func.func @rs_operand_relayout(%k: !txl.smem<64x64xbf16, #sw128>, %kT: !txl.smem<64x64xbf16, #sw128T>, %v: !txl.smem<64x64xbf16, #sw128T>) attributes {txl.kernel} {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %s = txl.dot %k, %kT, %zero : !txl.smem<64x64xbf16, #sw128>, !txl.smem<64x64xbf16, #sw128T>, tensor<64x64xf32>
    %p = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xbf16>
    %o = txl.dot %p, %v, %zero : tensor<64x64xbf16>, !txl.smem<64x64xbf16, #sw128T>, tensor<64x64xf32>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>

// The accumulator layout flows from the dot through scf.for (init, region
// argument, yield, result), an scf.if (both yields and the result) and the
// arith ops around them.
// CHECK-LABEL: func.func @flow_through_scf
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>>
// CHECK: %[[FOR:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[X:.*]] = %[[ZERO]], %[[ACC:.*]] = %[[ZERO]]) -> (tensor<64x64xf32, #txl.nvmma<{{.*}}>>, tensor<64x64xf32, #txl.nvmma<{{.*}}>>)
// CHECK: %[[D:.*]] = txl.dot %{{.*}}, %{{.*}}, %[[ACC]] : {{.*}}, tensor<64x64xf32, #txl.nvmma<{{.*}}>>
// CHECK: %[[IF:.*]] = scf.if %{{.*}} -> (tensor<64x64xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>>)
// CHECK: scf.yield %[[X]] : tensor<64x64xf32, #txl.nvmma<{{.*}}>>
// CHECK: } else {
// CHECK: %[[NEG:.*]] = arith.negf %[[X]] : tensor<64x64xf32, #txl.nvmma<{{.*}}>>
// CHECK: scf.yield %[[NEG]] : tensor<64x64xf32, #txl.nvmma<{{.*}}>>
// CHECK: scf.yield %[[IF]], %[[D]] : tensor<64x64xf32, #txl.nvmma<{{.*}}>>, tensor<64x64xf32, #txl.nvmma<{{.*}}>>
// CHECK: arith.mulf %[[FOR]]#0, %[[FOR]]#1 : tensor<64x64xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>>
module attributes {txl.target = "sm_90a"} {
  func.func @flow_through_scf(%a: !txl.smem<64x64xbf16, #sw128>, %b: !txl.smem<64x64xbf16, #sw128T>, %n: i32, %p: i1) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %zero, %acc = %zero) -> (tensor<64x64xf32>, tensor<64x64xf32>) : i32 {
      %d = txl.dot %a, %b, %acc : !txl.smem<64x64xbf16, #sw128>, !txl.smem<64x64xbf16, #sw128T>, tensor<64x64xf32>
      %y = scf.if %p -> tensor<64x64xf32> {
        scf.yield %x : tensor<64x64xf32>
      } else {
        %neg = arith.negf %x : tensor<64x64xf32>
        scf.yield %neg : tensor<64x64xf32>
      }
      scf.yield %y, %d : tensor<64x64xf32>, tensor<64x64xf32>
    }
    %w = arith.mulf %r#0, %r#1 : tensor<64x64xf32>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>

// A row reduction of the accumulator is #txl.slice<dim = 1> of its layout;
// expand_dims takes it back to the parent layout and broadcast keeps it.
// CHECK-LABEL: func.func @reduce_slice_expand_broadcast
// CHECK: %[[D:.*]] = txl.dot
// CHECK: %[[M:.*]] = txl.reduce %[[D]] axis 1 : (tensor<64x128xf32, #txl.nvmma<{{.*}}>>) -> tensor<64xf32, #txl.slice<dim = 1, parent = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]>>>
// CHECK: arith.maxnumf %{{.*}}, %{{.*}} : f32
// CHECK: txl.reduce_return %{{.*}} : f32
// CHECK: %[[E:.*]] = txl.expand_dims %[[M]], 1 : tensor<64xf32, #txl.slice<dim = 1, parent = #txl.nvmma<{{.*}}>>> -> tensor<64x1xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]>>
// CHECK: %[[B:.*]] = txl.broadcast %[[E]] : tensor<64x1xf32, #txl.nvmma<{{.*}}>> -> tensor<64x128xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]>>
// CHECK: arith.subf %[[D]], %[[B]] : tensor<64x128xf32, #txl.nvmma<{{.*}}>>
module attributes {txl.target = "sm_90a"} {
  func.func @reduce_slice_expand_broadcast(%a: !txl.smem<64x64xbf16, #sw128>, %b: !txl.smem<64x128xbf16, #sw128T>) attributes {txl.kernel} {
    %zero = arith.constant dense<0.0> : tensor<64x128xf32>
    %d = txl.dot %a, %b, %zero : !txl.smem<64x64xbf16, #sw128>, !txl.smem<64x128xbf16, #sw128T>, tensor<64x128xf32>
    %m = txl.reduce %d axis 1 : (tensor<64x128xf32>) -> tensor<64xf32> {
    ^bb0(%x: f32, %y: f32):
      %z = arith.maxnumf %x, %y : f32
      txl.reduce_return %z : f32
    }
    %e = txl.expand_dims %m, 1 : tensor<64xf32> -> tensor<64x1xf32>
    %bc = txl.broadcast %e : tensor<64x1xf32> -> tensor<64x128xf32>
    %s = arith.subf %d, %bc : tensor<64x128xf32>
    return
  }
}

// -----

// Tiles unrelated to a dot get the default blocked layout: 16 bytes per
// thread along the last dimension (8 x bf16), 4 warps stacked along rows.
// CHECK-LABEL: func.func @default_blocked_bf16
// CHECK: txl.smem_load %{{.*}} : !txl.smem<128x64xbf16> -> tensor<128x64xbf16, #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>
module attributes {txl.target = "sm_90a"} {
  func.func @default_blocked_bf16(%t: !txl.smem<128x64xbf16>) attributes {txl.kernel} {
    %a = txl.smem_load %t : !txl.smem<128x64xbf16> -> tensor<128x64xbf16>
    return
  }
}

// -----

// A class whose pointers are contiguous along dim 0 (B^T of an N x K tensor
// loaded as K x N: offsets k + n * stride) gets its default layout along dim
// 0: 8 x bf16 down a column per thread, order [0, 1] (AxisInfo's contiguity
// decides; the splat base alone has none). The row-major load beside it
// keeps order [1, 0].
// CHECK-LABEL: func.func @default_follows_contiguity
// CHECK: txl.load %{{.*}} : tensor<64x128x!txl.ptr<bf16>, #txl.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>> -> tensor<64x128xbf16, #txl.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>>
// CHECK: txl.load %{{.*}} : tensor<64x128x!txl.ptr<bf16>, #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
module attributes {txl.target = "sm_90a"} {
  func.func @default_follows_contiguity(%p: !txl.ptr<bf16> {txl.divisibility = 16 : i32}, %stride: i32 {txl.divisibility = 16 : i32}) attributes {txl.kernel} {
    %k = txl.make_range 0, 64 : tensor<64xi32>
    %k2 = txl.expand_dims %k, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %kb = txl.broadcast %k2 : tensor<64x1xi32> -> tensor<64x128xi32>
    %n = txl.make_range 0, 128 : tensor<128xi32>
    %n2 = txl.expand_dims %n, 0 : tensor<128xi32> -> tensor<1x128xi32>
    %s = txl.splat %stride : i32 -> tensor<1x128xi32>
    %ns = arith.muli %n2, %s : tensor<1x128xi32>
    %nb = txl.broadcast %ns : tensor<1x128xi32> -> tensor<64x128xi32>
    %off = arith.addi %kb, %nb : tensor<64x128xi32>
    %base = txl.splat %p : !txl.ptr<bf16> -> tensor<64x128x!txl.ptr<bf16>>
    %ptrs = txl.addptr %base, %off : tensor<64x128x!txl.ptr<bf16>>, tensor<64x128xi32>
    %t = txl.load %ptrs : tensor<64x128x!txl.ptr<bf16>> -> tensor<64x128xbf16>
    %r = txl.make_range 0, 64 : tensor<64xi32>
    %r2 = txl.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %rs = txl.splat %stride : i32 -> tensor<64x1xi32>
    %rm = arith.muli %r2, %rs : tensor<64x1xi32>
    %rb = txl.broadcast %rm : tensor<64x1xi32> -> tensor<64x128xi32>
    %c = txl.make_range 0, 128 : tensor<128xi32>
    %c2 = txl.expand_dims %c, 0 : tensor<128xi32> -> tensor<1x128xi32>
    %cb = txl.broadcast %c2 : tensor<1x128xi32> -> tensor<64x128xi32>
    %off2 = arith.addi %rb, %cb : tensor<64x128xi32>
    %base2 = txl.splat %p : !txl.ptr<bf16> -> tensor<64x128x!txl.ptr<bf16>>
    %ptrs2 = txl.addptr %base2, %off2 : tensor<64x128x!txl.ptr<bf16>>, tensor<64x128xi32>
    %u = txl.load %ptrs2 : tensor<64x128x!txl.ptr<bf16>> -> tensor<64x128xbf16>
    return
  }
}

// -----

// The widest element of a class decides the vector width: a bf16 tile
// extended to f32 reads 4 elements (16 bytes of f32) per thread.
// CHECK-LABEL: func.func @default_blocked_widest_element
// CHECK: %[[L:.*]] = txl.smem_load %{{.*}} -> tensor<128x64xbf16, #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK: arith.extf %[[L]] : tensor<128x64xbf16, #txl.blocked<{{.*}}>> to tensor<128x64xf32, #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
module attributes {txl.target = "sm_90a"} {
  func.func @default_blocked_widest_element(%t: !txl.smem<128x64xbf16>) attributes {txl.kernel} {
    %a = txl.smem_load %t : !txl.smem<128x64xbf16> -> tensor<128x64xbf16>
    %e = arith.extf %a : tensor<128x64xbf16> to tensor<128x64xf32>
    return
  }
}

// -----

// Without a dot, expand_dims' result class gets the default layout first and
// the 1-D range gets the slice of it.
// CHECK-LABEL: func.func @default_then_slice
// CHECK: %[[R:.*]] = txl.make_range 0, 128 : tensor<128xi32, #txl.slice<dim = 1, parent = #txl.blocked<[[BL:.*]]>>>
// CHECK: %[[E:.*]] = txl.expand_dims %[[R]], 1 : tensor<128xi32, #txl.slice<dim = 1, parent = #txl.blocked<[[BL]]>>> -> tensor<128x1xi32, #txl.blocked<[[BL]]>>
// CHECK: txl.broadcast %[[E]] : tensor<128x1xi32, #txl.blocked<[[BL]]>> -> tensor<128x64xi32, #txl.blocked<[[BL]]>>
module attributes {txl.target = "sm_90a"} {
  func.func @default_then_slice() attributes {txl.kernel} {
    %r = txl.make_range 0, 128 : tensor<128xi32>
    %x = txl.expand_dims %r, 1 : tensor<128xi32> -> tensor<128x1xi32>
    %y = txl.broadcast %x : tensor<128x1xi32> -> tensor<128x64xi32>
    return
  }
}

// -----

// A non-splat constant gets its layout in its dense attribute too.
// CHECK-LABEL: func.func @dense_constant
// CHECK: arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32, #txl.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
module attributes {txl.target = "sm_90a"} {
  func.func @dense_constant(%t: !txl.smem<4xi32>) attributes {txl.kernel} {
    %c = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32>
    txl.smem_store %c, %t : tensor<4xi32>, !txl.smem<4xi32>
    return
  }
}

// -----

#blocked = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>

// A layout written by the author anchors its class and is kept.
// CHECK-LABEL: func.func @author_layout_kept
// CHECK: %[[L:.*]] = txl.smem_load %{{.*}} -> tensor<128x64xbf16, #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK: arith.addf %[[L]], %[[L]] : tensor<128x64xbf16, #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
module attributes {txl.target = "sm_90a"} {
  func.func @author_layout_kept(%t: !txl.smem<128x64xbf16>) attributes {txl.kernel} {
    %a = txl.smem_load %t : !txl.smem<128x64xbf16> -> tensor<128x64xbf16, #blocked>
    %b = arith.addf %a, %a : tensor<128x64xbf16, #blocked>
    return
  }
}

// -----

// A kernel taking a register tile as an argument is rejected (tiles are
// made inside kernels; helpers taking tiles must be inlined first).
module attributes {txl.target = "sm_90a"} {
  // expected-error @+1 {{takes a tile argument 'tensor<64x64xf32>'; kernels take pointers, descriptors and scalars}}
  func.func @tile_argument(%t: tensor<64x64xf32>) attributes {txl.kernel} {
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
#blocked = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>

// An author layout that conflicts with the dot's accumulator layout needs an
// explicit relayout.
module attributes {txl.target = "sm_90a"} {
  func.func @conflicting_anchor(%a: !txl.smem<64x64xbf16, #sw128>, %b: !txl.smem<64x64xbf16, #sw128T>) attributes {txl.kernel} {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #blocked>
    // expected-error @+1 {{needs layout #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]> for a tile that}}
    %d = txl.dot %a, %b, %zero : !txl.smem<64x64xbf16, #sw128>, !txl.smem<64x64xbf16, #sw128T>, tensor<64x64xf32, #blocked>
    return
  }
}

// -----

#blocked1 = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// A reduction result written in a layout that is not a slice along the axis.
module attributes {txl.target = "sm_90a"} {
  func.func @reduce_not_slice(%t: !txl.smem<64x64xf32>) attributes {txl.kernel} {
    %a = txl.smem_load %t : !txl.smem<64x64xf32> -> tensor<64x64xf32>
    // expected-error @+1 {{is not a slice along 1; insert a txl.relayout}}
    %m = txl.reduce %a axis 1 : (tensor<64x64xf32>) -> tensor<64xf32, #blocked1> {
    ^bb0(%x: f32, %y: f32):
      %z = arith.maxnumf %x, %y : f32
      txl.reduce_return %z : f32
    }
    return
  }
}

// -----

// txl.trans only renames coordinates: its result takes the loaded tile's
// layout transposed (#txl.linear), and the tiles computed from it and the
// pointers it is stored through follow (the relayout cut after the trans
// takes its source's layout and disappears): no data moves.
// CHECK-LABEL: func.func @trans_follows_source
// CHECK: %[[X:.*]] = txl.smem_load {{.*}} -> tensor<64x32xf32, #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK: %[[T:.*]] = txl.trans %[[X]], [1, 0] : {{.*}} -> tensor<32x64xf32, #[[LIN:txl.linear<register = \[\[1, 0\], \[2, 0\], \[0, 16\], \[0, 32\]\], lane = \[\[4, 0\], \[8, 0\], \[16, 0\], \[0, 1\], \[0, 2\]\], warp = \[\[0, 4\], \[0, 8\]\]>]]>
// CHECK: %[[M:.*]] = arith.mulf %[[T]], %[[T]] : tensor<32x64xf32, #[[LIN]]>
// CHECK-NOT: txl.relayout
// CHECK: txl.smem_store %[[M]], {{.*}} : tensor<32x64xf32, #[[LIN]]>
module attributes {txl.target = "sm_90a"} {
  func.func @trans_follows_source(%in: !txl.smem<64x32xf32>, %out: !txl.smem<32x64xf32>) attributes {txl.kernel} {
    %x = txl.smem_load %in : !txl.smem<64x32xf32> -> tensor<64x32xf32>
    %t = txl.trans %x, [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
    %m = arith.mulf %t, %t : tensor<32x64xf32>
    txl.smem_store %m, %out : tensor<32x64xf32>, !txl.smem<32x64xf32>
    return
  }
}

// -----

// txl.split needs the split dimension in registers. Reshaping a row of the
// loaded tile into pairs keeps each pair in one thread (4 columns per
// thread), so the split reads its source's registers; the halves and their
// sum get the source layout with the pair basis removed. The join puts the
// pair dimension back as register bit 0, and the reshape back to rows gives
// the loaded layout again (as a #txl.linear): the store needs no conversion
// either.
// CHECK-LABEL: func.func @split_join_in_registers
// CHECK-NOT: txl.relayout
// CHECK: %[[R:.*]] = txl.reshape {{.*}} -> tensor<64x16x2xf32, #txl.linear<register = {{\[}}[0, 0, 1], [0, 1, 0], [16, 0, 0], [32, 0, 0]], lane = {{\[}}[0, 2, 0], [0, 4, 0], [0, 8, 0], [1, 0, 0], [2, 0, 0]], warp = {{\[}}[4, 0, 0], [8, 0, 0]]>>
// CHECK: %[[A:.*]], %[[B:.*]] = txl.split %[[R]] : {{.*}} -> tensor<64x16xf32, #[[H:txl.linear<register = \[\[0, 1\], \[16, 0\], \[32, 0\]\], lane = \[\[0, 2\], \[0, 4\], \[0, 8\], \[1, 0\], \[2, 0\]\], warp = \[\[4, 0\], \[8, 0\]\]>]]>
// CHECK: arith.addf %[[A]], %[[B]] : tensor<64x16xf32, #[[H]]>
// CHECK: txl.join
// CHECK: txl.reshape {{.*}} -> tensor<64x32xf32, #txl.linear<register = {{\[}}[0, 1], [0, 2], [16, 0], [32, 0]], lane = {{\[}}[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], warp = {{\[}}[4, 0], [8, 0]]>>
// CHECK-NOT: txl.relayout
module attributes {txl.target = "sm_90a"} {
  func.func @split_join_in_registers(%in: !txl.smem<64x32xf32>, %out: !txl.smem<64x32xf32>) attributes {txl.kernel} {
    %x = txl.smem_load %in : !txl.smem<64x32xf32> -> tensor<64x32xf32>
    %r = txl.reshape %x : tensor<64x32xf32> -> tensor<64x16x2xf32>
    %a, %b = txl.split %r : tensor<64x16x2xf32> -> tensor<64x16xf32>
    %s = arith.addf %a, %b : tensor<64x16xf32>
    %j = txl.join %s, %a : tensor<64x16xf32> -> tensor<64x16x2xf32>
    %y = txl.reshape %j : tensor<64x16x2xf32> -> tensor<64x32xf32>
    txl.smem_store %y, %out : tensor<64x32xf32>, !txl.smem<64x32xf32>
    return
  }
}

// -----

// When the split dimension is spread over lanes (one element per lane,
// reshaped into pairs), the split's operand gets the default layout through a
// relayout: a real conversion, which the lowering does with shuffles or
// shared memory.
// CHECK-LABEL: func.func @split_needs_registers
// CHECK: %[[R:.*]] = txl.reshape
// CHECK: %[[C:.*]] = txl.relayout %[[R]] : {{.*}} -> tensor<16x2xf32, #txl.blocked<sizePerThread = [1, 2], {{.*}}>>
// CHECK: txl.split %[[C]]
module attributes {txl.target = "sm_90a"} {
  func.func @split_needs_registers(%in: !txl.smem<32xf32>, %out: !txl.smem<16xf32>) attributes {txl.kernel} {
    %x = txl.smem_load %in : !txl.smem<32xf32> -> tensor<32xf32, #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
    %y = arith.addf %x, %x : tensor<32xf32, #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
    %r = txl.reshape %y : tensor<32xf32, #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>> -> tensor<16x2xf32>
    %a, %b = txl.split %r : tensor<16x2xf32> -> tensor<16xf32>
    %s = arith.addf %a, %b : tensor<16xf32>
    txl.smem_store %s, %out : tensor<16xf32>, !txl.smem<16xf32>
    return
  }
}

// -----

// The operands of one reduction (an argmax's values and indices) share a
// layout, and so do its results' slices.
// CHECK-LABEL: func.func @argmax_operands_share_layout
// CHECK: %{{.*}}:2 = txl.reduce %{{.*}}, %{{.*}} axis 1 : (tensor<64x64xf32, #[[L:txl.blocked<[^>]*>]]>, tensor<64x64xi32, #[[L]]>) -> (tensor<64xf32, #txl.slice<dim = 1, parent = #[[L]]>>, tensor<64xi32, #txl.slice<dim = 1, parent = #[[L]]>>)
module attributes {txl.target = "sm_90a"} {
  func.func @argmax_operands_share_layout(%s: !txl.smem<64x64xf32>, %o: !txl.smem<64xi32>) attributes {txl.kernel} {
    %x = txl.smem_load %s : !txl.smem<64x64xf32> -> tensor<64x64xf32>
    %r = txl.make_range 0, 64 : tensor<64xi32>
    %re = txl.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %idx = txl.broadcast %re : tensor<1x64xi32> -> tensor<64x64xi32>
    %m:2 = txl.reduce %x, %idx axis 1 : (tensor<64x64xf32>, tensor<64x64xi32>) -> (tensor<64xf32>, tensor<64xi32>) {
    ^bb0(%x0: f32, %i0: i32, %x1: f32, %i1: i32):
      %gt = arith.cmpf ogt, %x1, %x0 : f32
      %xm = arith.select %gt, %x1, %x0 : f32
      %im = arith.select %gt, %i1, %i0 : i32
      txl.reduce_return %xm, %im : f32, i32
    }
    txl.smem_store %m#1, %o : tensor<64xi32>, !txl.smem<64xi32>
    return
  }
}

// -----

// The default layout of a class comes from its largest tile (not the 64x1
// row offsets that start it) and reads 16 bytes of what the class moves
// through memory: 8 bf16 per thread, even though the i32 offsets are wider.
// CHECK-LABEL: func.func @default_from_largest_tile_and_pointee
// CHECK: txl.load {{.*}} -> tensor<64x64xbf16, #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>
module attributes {txl.target = "sm_90a"} {
  func.func @default_from_largest_tile_and_pointee(%p: !txl.ptr<bf16>, %o: !txl.smem<64x64xbf16>) attributes {txl.kernel} {
    %r = txl.make_range 0, 64 : tensor<64xi32>
    %r1 = txl.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %c64 = arith.constant dense<64> : tensor<64x1xi32>
    %rs = arith.muli %r1, %c64 : tensor<64x1xi32>
    %rb = txl.broadcast %rs : tensor<64x1xi32> -> tensor<64x64xi32>
    %c = txl.make_range 0, 64 : tensor<64xi32>
    %c1 = txl.expand_dims %c, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %cb = txl.broadcast %c1 : tensor<1x64xi32> -> tensor<64x64xi32>
    %offs = arith.addi %rb, %cb : tensor<64x64xi32>
    %ps = txl.splat %p : !txl.ptr<bf16> -> tensor<64x64x!txl.ptr<bf16>>
    %pp = txl.addptr %ps, %offs : tensor<64x64x!txl.ptr<bf16>>, tensor<64x64xi32>
    %x = txl.load %pp : tensor<64x64x!txl.ptr<bf16>> -> tensor<64x64xbf16>
    txl.smem_store %x, %o : tensor<64x64xbf16>, !txl.smem<64x64xbf16>
    return
  }
}

// -----

// Two dots of different N whose rows meet in one class (a row statistic
// broadcast into both, as in Triton's attention backward with a masked
// 16-key block and a full 32-key block): their #txl.nvmma differ only in the
// instrShape they record, which lowering does not read (txl-wgmma takes N
// from the tile), so the class keeps the first one instead of reporting a
// conflict.
#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw32 = #txl.nvmma_shared<swizzle = 32>
#sw64 = #txl.nvmma_shared<swizzle = 64>
// CHECK-LABEL: func.func @dots_of_two_widths
// CHECK: arith.constant dense<1.000000e+00> : tensor<128x1xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 16, 16]>>
// CHECK: txl.dot {{.*}}, tensor<128x16xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 16, 16]>>
// CHECK: txl.dot {{.*}}, tensor<128x32xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 16, 16]>>
// CHECK: arith.subf {{.*}} : tensor<128x32xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 16, 16]>>
module attributes {txl.target = "sm_90a"} {
  func.func @dots_of_two_widths(%a: !txl.smem<128x64xbf16, #sw128>, %b16: !txl.smem<64x16xbf16, #sw32>, %b32: !txl.smem<64x32xbf16, #sw64>, %p: !txl.ptr<f32>) attributes {txl.kernel, txl.num_warps = 4 : i32} {
    %m = arith.constant dense<1.0> : tensor<128x1xf32>
    %z16 = arith.constant dense<0.0> : tensor<128x16xf32>
    %z32 = arith.constant dense<0.0> : tensor<128x32xf32>
    %s16 = txl.dot %a, %b16, %z16 : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x16xbf16, #sw32>, tensor<128x16xf32>
    %m16 = txl.broadcast %m : tensor<128x1xf32> -> tensor<128x16xf32>
    %d16 = arith.subf %s16, %m16 : tensor<128x16xf32>
    %s32 = txl.dot %a, %b32, %z32 : !txl.smem<128x64xbf16, #sw128>, !txl.smem<64x32xbf16, #sw64>, tensor<128x32xf32>
    %m32 = txl.broadcast %m : tensor<128x1xf32> -> tensor<128x32xf32>
    %d32 = arith.subf %s32, %m32 : tensor<128x32xf32>
    return
  }
}

// -----

// Regression test: the values of an scf.while (inits, region arguments,
// condition and yield operands, results) got layouts independently and the
// result failed to verify.
// They share one layout.
// CHECK-LABEL: func.func @scf_while(
// CHECK: scf.while
#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>
module attributes {txl.target = "sm_90a"} {
  func.func @scf_while(%a: !txl.smem<64x64xbf16, #sw128>, %b: !txl.smem<64x64xbf16, #sw128T>, %n: i32) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %r:2 = scf.while (%i = %c0, %acc = %zero) : (i32, tensor<64x64xf32>) -> (i32, tensor<64x64xf32>) {
      %c = arith.cmpi slt, %i, %n : i32
      scf.condition(%c) %i, %acc : i32, tensor<64x64xf32>
    } do {
    ^bb0(%i2: i32, %acc2: tensor<64x64xf32>):
      %d = txl.dot %a, %b, %acc2 : !txl.smem<64x64xbf16, #sw128>, !txl.smem<64x64xbf16, #sw128T>, tensor<64x64xf32>
      %i3 = arith.addi %i2, %c1 : i32
      scf.yield %i3, %d : i32, tensor<64x64xf32>
    }
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>

// A GEMM epilogue: the accumulator (2 consecutive elements per thread in the
// wgmma layout) is stored through pointers contiguous along rows, after
// every loop: the value goes through a txl.relayout to the store's own
// class, which takes the coalesced default (8 x bf16 = 16 bytes per
// thread), as Triton converts its epilogue through shared memory.
// CHECK-LABEL: func.func @epilogue_store_coalesces
// CHECK: %[[D:.*]] = txl.dot {{.*}}, tensor<64x128xf32, #txl.nvmma<{{.*}}>>
// CHECK: %[[C:.*]] = arith.truncf %[[D]] : tensor<64x128xf32, #txl.nvmma<{{.*}}>> to tensor<64x128xbf16, #txl.nvmma<{{.*}}>>
// CHECK: %[[R:.*]] = txl.relayout %[[C]] : tensor<64x128xbf16, #txl.nvmma<{{.*}}>> -> tensor<64x128xbf16, #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK: txl.store %{{.*}}, %[[R]] : tensor<64x128x!txl.ptr<bf16>, #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>, tensor<64x128xbf16, #txl.blocked<{{.*}}>>
module attributes {txl.target = "sm_90a"} {
  func.func @epilogue_store_coalesces(%a: !txl.smem<64x64xbf16, #sw128>, %b: !txl.smem<64x128xbf16, #sw128T>, %p: !txl.ptr<bf16> {txl.divisibility = 16 : i32}, %stride: i32 {txl.divisibility = 16 : i32}) attributes {txl.kernel} {
    %zero = arith.constant dense<0.0> : tensor<64x128xf32>
    %d = txl.dot %a, %b, %zero : !txl.smem<64x64xbf16, #sw128>, !txl.smem<64x128xbf16, #sw128T>, tensor<64x128xf32>
    %c = arith.truncf %d : tensor<64x128xf32> to tensor<64x128xbf16>
    %r = txl.make_range 0, 64 : tensor<64xi32>
    %r2 = txl.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %rs = txl.splat %stride : i32 -> tensor<64x1xi32>
    %rm = arith.muli %r2, %rs : tensor<64x1xi32>
    %rb = txl.broadcast %rm : tensor<64x1xi32> -> tensor<64x128xi32>
    %n = txl.make_range 0, 128 : tensor<128xi32>
    %n2 = txl.expand_dims %n, 0 : tensor<128xi32> -> tensor<1x128xi32>
    %nb = txl.broadcast %n2 : tensor<1x128xi32> -> tensor<64x128xi32>
    %off = arith.addi %rb, %nb : tensor<64x128xi32>
    %base = txl.splat %p : !txl.ptr<bf16> -> tensor<64x128x!txl.ptr<bf16>>
    %ptrs = txl.addptr %base, %off : tensor<64x128x!txl.ptr<bf16>>, tensor<64x128xi32>
    txl.store %ptrs, %c : tensor<64x128x!txl.ptr<bf16>>, tensor<64x128xbf16>
    return
  }
}

// -----

#sw128 = #txl.nvmma_shared<swizzle = 128>
#sw128T = #txl.nvmma_shared<swizzle = 128, transposed = true>

// The same store inside a loop is left in the accumulator layout: a shared
// scratch live across the loop would add to the loop's shared memory.
// CHECK-LABEL: func.func @store_in_loop_keeps_acc_layout
// CHECK-NOT: txl.relayout
// CHECK: txl.store %{{.*}}, %{{.*}} : tensor<64x128x!txl.ptr<bf16>, #txl.nvmma<{{.*}}>>, tensor<64x128xbf16, #txl.nvmma<{{.*}}>>
module attributes {txl.target = "sm_90a"} {
  func.func @store_in_loop_keeps_acc_layout(%a: !txl.smem<64x64xbf16, #sw128>, %b: !txl.smem<64x128xbf16, #sw128T>, %p: !txl.ptr<bf16> {txl.divisibility = 16 : i32}, %n: i32) attributes {txl.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      %zero = arith.constant dense<0.0> : tensor<64x128xf32>
      %d = txl.dot %a, %b, %zero : !txl.smem<64x64xbf16, #sw128>, !txl.smem<64x128xbf16, #sw128T>, tensor<64x128xf32>
      %c = arith.truncf %d : tensor<64x128xf32> to tensor<64x128xbf16>
      %r = txl.make_range 0, 64 : tensor<64xi32>
      %r2 = txl.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
      %rs = txl.splat %n : i32 -> tensor<64x1xi32>
      %rm = arith.muli %r2, %rs : tensor<64x1xi32>
      %rb = txl.broadcast %rm : tensor<64x1xi32> -> tensor<64x128xi32>
      %m = txl.make_range 0, 128 : tensor<128xi32>
      %m2 = txl.expand_dims %m, 0 : tensor<128xi32> -> tensor<1x128xi32>
      %mb = txl.broadcast %m2 : tensor<1x128xi32> -> tensor<64x128xi32>
      %off = arith.addi %rb, %mb : tensor<64x128xi32>
      %base = txl.splat %p : !txl.ptr<bf16> -> tensor<64x128x!txl.ptr<bf16>>
      %ptrs = txl.addptr %base, %off : tensor<64x128x!txl.ptr<bf16>>, tensor<64x128xi32>
      txl.store %ptrs, %c : tensor<64x128x!txl.ptr<bf16>>, tensor<64x128xbf16>
    }
    return
  }
}

// -----

#b1 = #txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#b2 = #txl.blocked<sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
// One offsets vector expanded along both dimensions into tiles of two layouts
// (the rows of a gather load and the columns of a dot's result, in NSA's
// dK/dV loop): a txl.relayout cuts the second relation, the vector keeps the
// first slice.
// CHECK-LABEL: func.func @offsets_both_ways
// CHECK: %[[S:.*]] = arith.addi {{.*}} : tensor<64xi32, #txl.slice<dim = 1, parent = #txl.blocked<sizePerThread = [1, 4]
// CHECK: txl.expand_dims %[[S]], 1
// CHECK: %[[C:.*]] = txl.relayout %[[S]] : tensor<64xi32, #txl.slice<dim = 1, {{.*}}>> -> tensor<64xi32, #txl.slice<dim = 0, parent = #txl.blocked<sizePerThread = [4, 1]
// CHECK: txl.expand_dims %[[C]], 0
module attributes {txl.target = "sm_90a"} {
  func.func @offsets_both_ways(%t: !txl.smem<64x64xi32>) attributes {txl.kernel} {
    %r = txl.make_range 0, 64 : tensor<64xi32>
    %s = arith.addi %r, %r : tensor<64xi32>
    %rows = txl.expand_dims %s, 1 : tensor<64xi32> -> tensor<64x1xi32, #b1>
    %rb = txl.broadcast %rows : tensor<64x1xi32, #b1> -> tensor<64x64xi32, #b1>
    %cols = txl.expand_dims %s, 0 : tensor<64xi32> -> tensor<1x64xi32, #b2>
    %cb = txl.broadcast %cols : tensor<1x64xi32, #b2> -> tensor<64x64xi32, #b2>
    txl.smem_store %rb, %t : tensor<64x64xi32, #b1>, !txl.smem<64x64xi32>
    txl.smem_store %cb, %t : tensor<64x64xi32, #b2>, !txl.smem<64x64xi32>
    return
  }
}

// -----

// An atomic's pointers, value, mask and old values are element for element:
// one class. The pointers (i64 offsets: 2 per thread) and the constant value
// (i32: 4 per thread by itself) get one layout, and so does the old-value
// result that an i64 sum reads.
// CHECK-LABEL: func.func @atomic_operands_share_a_layout
// CHECK: %[[ONE:.*]] = arith.constant dense<1> : tensor<128x16xi32, #[[L:.*]]>
// CHECK: txl.atomic_rmw add acq_rel gpu %{{.*}}, %[[ONE]] mask %{{.*}} : tensor<128x16x!txl.ptr<i32>, #[[L]]>, tensor<128x16xi32, #[[L]]>
// CHECK: %[[OLD:.*]] = txl.atomic_rmw add acq_rel gpu %{{.*}}, %{{.*}} mask %{{.*}} : tensor<128x16x!txl.ptr<i32>, #[[L]]>, tensor<128x16xi32, #[[L]]>
// CHECK: arith.extsi %[[OLD]] : tensor<128x16xi32, #[[L]]> to tensor<128x16xi64, #[[L]]>
// CHECK: %[[C:.*]] = arith.constant dense<2> : tensor<128x16xi32, #[[L]]>
// CHECK: txl.atomic_cas acq_rel gpu %{{.*}}, %{{.*}}, %[[C]] : tensor<128x16x!txl.ptr<i32>, #[[L]]>, tensor<128x16xi32, #[[L]]>
module attributes {txl.target = "sm_90a"} {
  func.func @atomic_operands_share_a_layout(%p: !txl.ptr<i32>, %q: !txl.ptr<i64>) attributes {txl.kernel} {
    %qs = txl.splat %q : !txl.ptr<i64> -> tensor<128x16x!txl.ptr<i64>>
    %off = txl.load %qs : tensor<128x16x!txl.ptr<i64>> -> tensor<128x16xi64>
    %z = arith.constant dense<0> : tensor<128x16xi64>
    %m = arith.cmpi sge, %off, %z : tensor<128x16xi64>
    %ps = txl.splat %p : !txl.ptr<i32> -> tensor<128x16x!txl.ptr<i32>>
    %ptrs = txl.addptr %ps, %off : tensor<128x16x!txl.ptr<i32>>, tensor<128x16xi64>
    %one = arith.constant dense<1> : tensor<128x16xi32>
    %r = txl.atomic_rmw add acq_rel gpu %ptrs, %one mask %m : tensor<128x16x!txl.ptr<i32>>, tensor<128x16xi32>
    %one2 = arith.constant dense<1> : tensor<128x16xi32>
    %old = txl.atomic_rmw add acq_rel gpu %ptrs, %one2 mask %m : tensor<128x16x!txl.ptr<i32>>, tensor<128x16xi32>
    %w = arith.extsi %old : tensor<128x16xi32> to tensor<128x16xi64>
    %s = arith.addi %w, %off : tensor<128x16xi64>
    %zero = arith.constant dense<0> : tensor<128x16xi32>
    %two = arith.constant dense<2> : tensor<128x16xi32>
    %c = txl.atomic_cas acq_rel gpu %ptrs, %zero, %two : tensor<128x16x!txl.ptr<i32>>, tensor<128x16xi32>
    return
  }
}

// -----

// A class that loads bf16 and stores f32 (Liger's RMSNorm backward: bf16 rows
// in, an f32 dW partial out) reads 16 bytes of the narrowest pointee: 8 bf16
// per thread, so the loads are 16-byte vectors and the f32 store two.
// CHECK-LABEL: func.func @default_narrowest_pointee
// CHECK: txl.load {{.*}} -> tensor<1024xbf16, #txl.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
// CHECK: txl.store {{.*}} : tensor<1024x!txl.ptr<f32>, #txl.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
module attributes {txl.target = "sm_90a"} {
  func.func @default_narrowest_pointee(%p: !txl.ptr<bf16>, %q: !txl.ptr<f32>) attributes {txl.kernel} {
    %r = txl.make_range 0, 1024 : tensor<1024xi32>
    %ps = txl.splat %p : !txl.ptr<bf16> -> tensor<1024x!txl.ptr<bf16>>
    %pp = txl.addptr %ps, %r : tensor<1024x!txl.ptr<bf16>>, tensor<1024xi32>
    %x = txl.load %pp : tensor<1024x!txl.ptr<bf16>> -> tensor<1024xbf16>
    %f = arith.extf %x : tensor<1024xbf16> to tensor<1024xf32>
    %qs = txl.splat %q : !txl.ptr<f32> -> tensor<1024x!txl.ptr<f32>>
    %qp = txl.addptr %qs, %r : tensor<1024x!txl.ptr<f32>>, tensor<1024xi32>
    txl.store %qp, %f : tensor<1024x!txl.ptr<f32>>, tensor<1024xf32>
    return
  }
}
