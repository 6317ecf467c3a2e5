// RUN: txl-opt %txl_src/examples/flash_attention_fwd_causal_sm90.mlir --verify-roundtrip | FileCheck %s
// RUN: txlc %txl_src/examples/flash_attention_fwd_causal_sm90.mlir --stop-after=txl-assign-layouts --emit=mlir -o - | FileCheck %s --check-prefix=LAYOUT

// examples/flash_attention_fwd_causal_sm90.mlir parses, verifies and
// round-trips. Spot-check what differs from the non-causal kernel: blocks in
// reverse order, n_tiles = start_m + 1, and the diagonal-tile mask (peeled
// tile 0 when start_m == 0, else the last loop iteration).

// CHECK-LABEL: func.func @flash_attention_fwd_causal_sm90(
// CHECK: %[[PID:.*]] = txl.program_id 0
// CHECK: %[[NUM:.*]] = txl.num_programs 0
// CHECK: %[[LAST:.*]] = arith.subi %[[NUM]], %{{.*}} : i32
// CHECK: %[[START:.*]] = arith.subi %[[LAST]], %[[PID]] : i32
// CHECK: %[[NT:.*]] = arith.addi %[[START]], %{{.*}} : i32
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[NT]]
// CHECK: %[[NEGINF:.*]] = arith.constant dense<0xFF800000> : tensor<64x128xf32>
// Peeled tile 0.
// CHECK: %[[D0:.*]] = arith.cmpi eq, %[[START]], %{{.*}} : i32
// CHECK: scf.if %[[D0]] -> (tensor<64x128xf32>)
// CHECK: txl.make_range 0, 64 : tensor<64xi32>
// CHECK: txl.make_range 0, 128 : tensor<128xi32>
// CHECK: %[[FUT:.*]] = arith.cmpi sgt, %{{.*}}, %{{.*}} : tensor<64x128xi32>
// CHECK: arith.select %[[FUT]], %[[NEGINF]], %{{.*}} : tensor<64x128xi1>, tensor<64x128xf32>
// Loop: the diagonal is the iteration j == start_m.
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[NT]]
// CHECK: %[[D:.*]] = arith.cmpi eq, %[[J]], %[[START]] : i32
// CHECK: scf.if %[[D]] -> (tensor<64x128xf32>)
// CHECK: arith.select

// After layout assignment the mask's index tiles live in slices of the
// accumulator layout, so the compare and select need no conversion.
// LAYOUT: txl.make_range 0, 64 : tensor<64xi32, #txl.slice<dim = 1, parent = #txl.nvmma
// LAYOUT-NOT: txl.relayout
// LAYOUT: txl.make_range 0, 128 : tensor<128xi32, #txl.slice<dim = 0, parent = #txl.nvmma
// LAYOUT-NOT: txl.relayout
// LAYOUT: arith.select {{.*}} : tensor<64x128xi1, #txl.nvmma{{.*}}>, tensor<64x128xf32, #txl.nvmma
