// RUN: txl-opt %s -split-input-file -verify-diagnostics

// Every verifier rule of the txl types and attributes. A type or attribute
// that fails to verify is a parse error, so each case is its own chunk.

// !txl.smem holds integers or floats.
// expected-error @+1 {{!txl.smem element type must be an integer or float type, got 'index'}}
func.func private @f(!txl.smem<4xindex>)

// -----

// !txl.smem dimensions are positive.
// expected-error @+1 {{!txl.smem dimensions must be positive, got 0}}
func.func private @f(!txl.smem<0x64xf32>)

// -----

// Rank 0 (a fuzzer find: smem_index's verifier read dimension 0 of it).
// expected-error @+1 {{!txl.smem needs at least one dimension (a single element is !txl.smem<1xbf16>)}}
func.func private @f(!txl.smem<bf16>)

// -----

// expected-error @+1 {{!txl.tmem needs at least one dimension}}
func.func private @f(!txl.tmem<f32>)

// -----

// !txl.smem stages are >= 1 (or absent for a view).
// expected-error @+1 {{!txl.smem stages must be >= 1 (or absent for a view), got -1}}
func.func private @f(!txl.smem<64xf32, stages = -1>)

// -----

// !txl.smem encodings are shared-memory encodings.
// expected-error @+1 {{!txl.smem encoding must be #txl.nvmma_shared<...>, got #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>}}
func.func private @f(!txl.smem<128xf32, #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>)

// -----

// A swizzled !txl.smem has rows of whole swizzle atoms, or is a view inside
// one atom's rows whose width divides it (a K step: 32 or 64 bytes of a
// 128-byte swizzle); 48 bytes is neither.
// expected-error @+1 {{!txl.smem with a 128-byte swizzle needs rows of a multiple of 128 bytes, but 24 x 'f16' is 48 bytes; use a smaller swizzle or a wider tile}}
func.func private @f(!txl.smem<64x24xf16, #txl.nvmma_shared<swizzle = 128>>)

// -----

// !txl.tmem holds integers or floats.
// expected-error @+1 {{!txl.tmem element type must be an integer or float type, got 'complex<f32>'}}
func.func private @f(!txl.tmem<128x64xcomplex<f32>>)

// -----

// !txl.tmem dimensions are positive.
// expected-error @+1 {{!txl.tmem dimensions must be positive, got 0}}
func.func private @f(!txl.tmem<128x0xf32>)

// -----

// !txl.tmem stages are >= 1 (or absent for a view).
// expected-error @+1 {{!txl.tmem stages must be >= 1 (or absent for a view), got -2}}
func.func private @f(!txl.tmem<128x64xf32, stages = -2>)

// -----

// !txl.tmem is 2-D.
// expected-error @+1 {{!txl.tmem must be 2-D (lanes x columns), got rank 3}}
func.func private @f(!txl.tmem<2x128x64xf32>)

// -----

// !txl.tmem has at most 128 lanes.
// expected-error @+1 {{!txl.tmem has at most 128 rows (TMEM lanes), got 256}}
func.func private @f(!txl.tmem<256x64xf32>)

// -----

// !txl.tmem takes no encoding.
// expected-error @+1 {{!txl.tmem takes no encoding}}
func.func private @f(!txl.tmem<128x64xf32, #txl.nvmma_shared<swizzle = 0>>)

// -----

// !txl.mbar<N> needs N >= 1.
// expected-error @+1 {{!txl.mbar<N> needs N >= 1, got -3}}
func.func private @f(!txl.mbar<-3>)

// -----

// !txl.tensordesc holds integers or floats.
// expected-error @+1 {{!txl.tensordesc element type must be an integer or float type, got 'index'}}
func.func private @f(!txl.tensordesc<64x64xindex>)

// -----

// TMA moves 8-, 16-, 32- or 64-bit elements.
// expected-error @+1 {{TMA moves 8-, 16-, 32- or 64-bit elements, got 'i1'}}
func.func private @f(!txl.tensordesc<64x128xi1>)

// -----

// A TMA box has at least one dimension.
// expected-error @+1 {{TMA boxes have 1 to 5 dimensions, got 0}}
func.func private @f(!txl.tensordesc<f32>)

// -----

// A TMA box has at most five dimensions.
// expected-error @+1 {{TMA boxes have 1 to 5 dimensions, got 6}}
func.func private @f(!txl.tensordesc<1x1x1x1x1x16xf32>)

// -----

// TMA box dimensions are at most 256 (the innermost may be wider, below).
// expected-error @+1 {{TMA box dimensions must be in 1..256 (the innermost may be wider when a swizzle splits it), got 512; split the tile into several loads}}
func.func private @f(!txl.tensordesc<512x64xbf16>)

// -----

// A wider inner dimension moves as several boxes of one swizzle span: without
// a swizzle it cannot.
// expected-error @+1 {{a TMA box of 512 elements in its inner dimension needs a swizzled layout (which moves it as several boxes); without a swizzle the box has at most 256}}
func.func private @f(!txl.tensordesc<64x512xbf16, #txl.nvmma_shared<swizzle = 0>>)

// -----

// TMA box dimensions are positive.
// expected-error @+1 {{TMA box dimensions must be in 1..256 (the innermost may be wider when a swizzle splits it), got 0}}
func.func private @f(!txl.tensordesc<0x64xbf16>)

// -----

// The TMA box's inner dimension is a multiple of 16 bytes.
// expected-error @+1 {{the TMA box's inner dimension must be a multiple of 16 bytes, got 4 x 'bf16' = 8 bytes}}
func.func private @f(!txl.tensordesc<64x4xbf16>)

// -----

// !txl.tensordesc encodings are shared-memory encodings.
// expected-error @+1 {{!txl.tensordesc encoding must be #txl.nvmma_shared<...>, got "swizzle128"}}
func.func private @f(!txl.tensordesc<64x64xbf16, "swizzle128">)

// -----

// A swizzled TMA box row is at most the swizzle span, or a whole number of spans.
// expected-error @+1 {{a TMA box with a 64-byte swizzle moves rows of at most 64 bytes (or a multiple, as several boxes), got 96 bytes}}
func.func private @f(!txl.tensordesc<64x48xbf16, #txl.nvmma_shared<swizzle = 64>>)

// -----

// !txl.ptr points to an integer or float.
// expected-error @+1 {{!txl.ptr points to an integer or float type, got 'index'}}
func.func private @f(!txl.ptr<index>)

// -----

// !txl.ptr address spaces are 0, 1 and 3.
// expected-error @+1 {{!txl.ptr address space must be 0 (generic), 1 (global) or 3 (shared), got 2}}
func.func private @f(!txl.ptr<f32, 2>)

// -----

// NVMMA swizzles are 0, 32, 64 or 128 bytes.
// expected-error @+1 {{#txl.nvmma_shared swizzle must be 0, 32, 64 or 128 bytes, got 16}}
func.func private @f(!txl.smem<64x64xf16, #txl.nvmma_shared<swizzle = 16>>)

// -----

// #txl.blocked arrays have one rank.
// expected-error @+1 {{#txl.blocked needs sizePerThread, threadsPerWarp, warpsPerCTA and order of one rank (>= 1)}}
func.func private @f(tensor<64x64xf32, #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4], order = [1, 0]>>)

// -----

// #txl.blocked has rank >= 1.
// expected-error @+1 {{#txl.blocked needs sizePerThread, threadsPerWarp, warpsPerCTA and order of one rank (>= 1)}}
func.func private @f(tensor<f32, #txl.blocked<sizePerThread = [], threadsPerWarp = [], warpsPerCTA = [], order = []>>)

// -----

// #txl.blocked entries are positive.
// expected-error @+1 {{#txl.blocked entries must be positive}}
func.func private @f(tensor<64x64xf32, #txl.blocked<sizePerThread = [0, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>)

// -----

// A warp has 32 threads.
// expected-error @+1 {{#txl.blocked threadsPerWarp must multiply to 32, got 64}}
func.func private @f(tensor<64x64xf32, #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]>>)

// -----

// The thread count does not wrap around: 2 x 2147483664 is not 32.
// expected-error @+1 {{#txl.blocked threadsPerWarp must multiply to 32, got 4294967328}}
func.func private @f(tensor<64x64xf32, #txl.blocked<sizePerThread = [1, 1], threadsPerWarp = [2, 2147483664], warpsPerCTA = [4, 1], order = [1, 0]>>)

// -----

// #txl.blocked order is a permutation.
// expected-error @+1 {{#txl.blocked order must be a permutation of 0..1}}
func.func private @f(tensor<64x64xf32, #txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 1]>>)

// -----

// #txl.nvmma describes mma.sync (version 2) or Hopper wgmma (version 3).
// expected-error @+1 {{#txl.nvmma version must be 2 (mma.sync) or 3 (Hopper wgmma), got 1}}
func.func private @f(tensor<64x64xf32, #txl.nvmma<version = 1, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>>)

// -----

// mma.sync computes 16 x 8 tiles per warp and instruction.
// expected-error @+1 {{#txl.nvmma version 2 (mma.sync) instrShape must be [16, 8, K] with K in {8, 16, 32}}}
func.func private @f(tensor<64x64xf32, #txl.nvmma<version = 2, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>>)

// -----

// #txl.nvmma warpsPerCTA has two positive entries.
// expected-error @+1 {{#txl.nvmma warpsPerCTA must be two positive counts}}
func.func private @f(tensor<64x64xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 0], instrShape = [16, 64, 16]>>)

// -----

// #txl.nvmma warpsPerCTA is 2-D.
// expected-error @+1 {{#txl.nvmma warpsPerCTA must be two positive counts}}
func.func private @f(tensor<64x64xf32, #txl.nvmma<version = 3, warpsPerCTA = [4], instrShape = [16, 64, 16]>>)

// -----

// #txl.nvmma uses whole warpgroups.
// expected-error @+1 {{#txl.nvmma needs whole warpgroups (warps a multiple of 4)}}
func.func private @f(tensor<64x64xf32, #txl.nvmma<version = 3, warpsPerCTA = [2, 1], instrShape = [16, 64, 16]>>)


// -----

// #txl.nvmma instrShape N is 8..256 in steps of 8.
// expected-error @+1 {{#txl.nvmma instrShape must be [16, N, K] with N in 8..256 step 8 and K in {8, 16, 32}}}
func.func private @f(tensor<64x64xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 60, 16]>>)

// -----

// #txl.nvmma instrShape K is 8, 16 or 32.
// expected-error @+1 {{#txl.nvmma instrShape must be [16, N, K] with N in 8..256 step 8 and K in {8, 16, 32}}}
func.func private @f(tensor<64x64xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 64]>>)

// -----

// #txl.nvmma instrShape M is 16.
// expected-error @+1 {{#txl.nvmma instrShape must be [16, N, K]}}
func.func private @f(tensor<64x64xf32, #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>)

// -----

// #txl.dot_operand is operand 0 (A) or 1 (B).
// expected-error @+1 {{#txl.dot_operand opIdx must be 0 (A) or 1 (B), got 2}}
func.func private @f(tensor<64x64xbf16, #txl.dot_operand<opIdx = 2, parent = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>, kWidth = 2>>)

// -----

// #txl.dot_operand's parent is an MMA or blocked layout.
// expected-error @+1 {{#txl.dot_operand parent must be an MMA or blocked layout, got #txl.nvmma_shared<swizzle = 128>}}
func.func private @f(tensor<64x64xbf16, #txl.dot_operand<opIdx = 0, parent = #txl.nvmma_shared<swizzle = 128>, kWidth = 2>>)

// -----

// #txl.dot_operand kWidth is 1, 2, 4 or 8.
// expected-error @+1 {{#txl.dot_operand kWidth must be 1, 2, 4 or 8, got 3}}
func.func private @f(tensor<64x64xbf16, #txl.dot_operand<opIdx = 0, parent = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>, kWidth = 3>>)

// -----

// #txl.slice's parent is a register layout.
// expected-error @+1 {{#txl.slice parent must be a register layout, got #txl.nvmma_shared<swizzle = 0>}}
func.func private @f(tensor<64xf32, #txl.slice<dim = 0, parent = #txl.nvmma_shared<swizzle = 0>>>)

// -----

// #txl.slice's dim is a dimension of the parent.
// expected-error @+1 {{#txl.slice dim 2 is out of range for a rank-2 parent}}
func.func private @f(tensor<64xf32, #txl.slice<dim = 2, parent = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>>>)

// -----

// A slice of a rank-1 layout has no dimension left to remove.
// expected-error @+1 {{#txl.slice parent must be a register layout, got #txl.slice<dim = 0, parent = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>}}
func.func private @f(tensor<f32, #txl.slice<dim = 0, parent = #txl.slice<dim = 0, parent = #txl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>>>)

// -----

// #txl.linear bases all have the layout's rank.
// expected-error @+1 {{#txl.linear bases must all have 2 coordinates, got 1}}
func.func private @f(tensor<64x64xf32, #txl.linear<register = [[0, 1], [1]], lane = [[0, 2], [0, 4], [0, 8], [1, 0], [2, 0]], warp = []>>)

// -----

// #txl.linear has 32 lanes.
// expected-error @+1 {{#txl.linear needs 5 lane bases (32 lanes; [0, ...] for lanes that hold copies), got 4}}
func.func private @f(tensor<64x64xf32, #txl.linear<register = [[0, 1]], lane = [[0, 2], [0, 4], [0, 8], [1, 0]], warp = []>>)

// -----

// #txl.linear coordinates are not negative.
// expected-error @+1 {{#txl.linear coordinates must be >= 0}}
func.func private @f(tensor<64x64xf32, #txl.linear<register = [[0, -1]], lane = [[0, 2], [0, 4], [0, 8], [1, 0], [2, 0]], warp = []>>)

// -----

// #txl.linear needs a basis to know its rank.
// expected-error @+1 {{#txl.linear needs at least one basis}}
func.func private @f(tensor<64x64xf32, #txl.linear<register = [], lane = [], warp = []>>)
