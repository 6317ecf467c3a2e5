// RUN: txl-opt %s -txl-partition-warpgroups -split-input-file -verify-diagnostics | FileCheck %s --implicit-check-not=txl.reg_alloc --implicit-check-not=txl.reg_dealloc
// RUN: txl-opt %s -txl-partition-warpgroups='producer-regs=24 consumer-regs=160' -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=OPT --implicit-check-not=txl.reg_alloc --implicit-check-not=txl.reg_dealloc

// Error cases are checked by -verify-diagnostics in both runs (their chunks
// print nothing); the other chunks are checked by FileCheck. Every
// reg_alloc/reg_dealloc in the output must be matched (implicit-check-not).
// The second run sets both budgets through the pass options (OPT prefix).

// NOT TESTED HERE (stage bug, fuzz-out/stage-bugs/partition-warpgroups-unchecked-options.mlir):
// out-of-range producer-regs/consumer-regs are inserted unchecked and only
// the op verifier rejects the result.

// 3 warpgroups: the producer region (is_warpgroup [0]) gives registers back
// (reg_dealloc 40), the consumer region ([1, 2]) takes them (reg_alloc 232),
// each as the first op of its region.
// CHECK-LABEL: func.func @three_warpgroups
// CHECK: %[[P:.*]] = txl.is_warpgroup [0]
// CHECK-NEXT: scf.if %[[P]] {
// CHECK-NEXT:   txl.reg_dealloc 40
// CHECK-NEXT:   txl.bar_arrive 8, 384
// CHECK-NEXT: }
// CHECK-NEXT: %[[C:.*]] = txl.is_warpgroup [1, 2]
// CHECK-NEXT: scf.if %[[C]] {
// CHECK-NEXT:   txl.reg_alloc 232
// CHECK-NEXT:   txl.bar_wait 8, 384
// CHECK-NEXT: }
// OPT-LABEL: func.func @three_warpgroups
// OPT: txl.is_warpgroup [0]
// OPT-NEXT: scf.if
// OPT-NEXT:   txl.reg_dealloc 24
// OPT: txl.is_warpgroup [1, 2]
// OPT-NEXT: scf.if
// OPT-NEXT:   txl.reg_alloc 160
module {
  func.func @three_warpgroups() attributes {txl.kernel, txl.num_warps = 12 : i32} {
    %p = txl.is_warpgroup [0]
    scf.if %p {
      txl.bar_arrive 8, 384
    }
    %c = txl.is_warpgroup [1, 2]
    scf.if %c {
      txl.bar_wait 8, 384
    }
    return
  }
}

// -----

// 2 warpgroups (56/256); the else branch of a consumer region runs in the
// other warpgroup (the producer), so it gets the producer's reg_dealloc.
// CHECK-LABEL: func.func @two_warpgroups_else
// CHECK: %[[C:.*]] = txl.is_warpgroup [1]
// CHECK-NEXT: scf.if %[[C]] {
// CHECK-NEXT:   txl.reg_alloc 256
// CHECK-NEXT:   txl.bar_wait 8, 256
// CHECK-NEXT: } else {
// CHECK-NEXT:   txl.reg_dealloc 56
// CHECK-NEXT:   txl.bar_arrive 8, 256
// CHECK-NEXT: }
// OPT-LABEL: func.func @two_warpgroups_else
// OPT: scf.if
// OPT-NEXT:   txl.reg_alloc 160
// OPT: } else {
// OPT-NEXT:   txl.reg_dealloc 24
module {
  func.func @two_warpgroups_else() attributes {txl.kernel, txl.num_warps = 8 : i32} {
    %c = txl.is_warpgroup [1]
    scf.if %c {
      txl.bar_wait 8, 256
    } else {
      txl.bar_arrive 8, 256
    }
    return
  }
}

// -----

// 4 warpgroups (32/160); the else branch of a producer region gets the
// consumers' reg_alloc. The options replace the budget at any count (160:
// 24 + 3 x 160 registers x 128 threads fit the file; 240 would not).
// CHECK-LABEL: func.func @four_warpgroups_else
// CHECK: %[[P:.*]] = txl.is_warpgroup [0]
// CHECK-NEXT: scf.if %[[P]] {
// CHECK-NEXT:   txl.reg_dealloc 32
// CHECK-NEXT:   txl.bar_arrive 8, 512
// CHECK-NEXT: } else {
// CHECK-NEXT:   txl.reg_alloc 160
// CHECK-NEXT:   txl.bar_wait 8, 512
// CHECK-NEXT: }
// OPT-LABEL: func.func @four_warpgroups_else
// OPT: scf.if
// OPT-NEXT:   txl.reg_dealloc 24
// OPT: } else {
// OPT-NEXT:   txl.reg_alloc 160
module {
  func.func @four_warpgroups_else() attributes {txl.kernel, txl.num_warps = 16 : i32} {
    %p = txl.is_warpgroup [0]
    scf.if %p {
      txl.bar_arrive 8, 512
    } else {
      txl.bar_wait 8, 512
    }
    return
  }
}

// -----

// Regions that already start with the kernel's own reg_dealloc/reg_alloc are
// left alone, whatever the default or the pass options say.
// CHECK-LABEL: func.func @own_budget
// CHECK: scf.if
// CHECK-NEXT:   txl.reg_dealloc 24
// CHECK-NEXT:   txl.bar_arrive 8, 384
// CHECK: scf.if
// CHECK-NEXT:   txl.reg_alloc 240
// CHECK-NEXT:   txl.bar_wait 8, 384
// OPT-LABEL: func.func @own_budget
// OPT: scf.if
// OPT-NEXT:   txl.reg_dealloc 24
// OPT-NEXT:   txl.bar_arrive 8, 384
// OPT: scf.if
// OPT-NEXT:   txl.reg_alloc 240
// OPT-NEXT:   txl.bar_wait 8, 384
module {
  func.func @own_budget() attributes {txl.kernel, txl.num_warps = 12 : i32} {
    %p = txl.is_warpgroup [0]
    scf.if %p {
      txl.reg_dealloc 24
      txl.bar_arrive 8, 384
    }
    %c = txl.is_warpgroup [1, 2]
    scf.if %c {
      txl.reg_alloc 240
      txl.bar_wait 8, 384
    }
    return
  }
}

// -----

// A 1-warpgroup kernel (txl.num_warps defaults to 4) has nobody to trade
// registers with: unchanged.
// CHECK-LABEL: func.func @one_warpgroup
// CHECK-NEXT: %[[P:.*]] = txl.is_warpgroup [0]
// CHECK-NEXT: scf.if %[[P]] {
// CHECK-NEXT:   txl.bar_arrive 8, 128
// CHECK-NEXT: }
// CHECK-NEXT: return
// OPT-LABEL: func.func @one_warpgroup
// OPT-NEXT: txl.is_warpgroup [0]
// OPT-NEXT: scf.if
// OPT-NEXT:   txl.bar_arrive 8, 128
module {
  func.func @one_warpgroup() attributes {txl.kernel} {
    %p = txl.is_warpgroup [0]
    scf.if %p {
      txl.bar_arrive 8, 128
    }
    return
  }
}

// -----

// Only scf.ifs at the kernel's top level are warpgroup regions: one nested
// in a loop gets no budget.
// CHECK-LABEL: func.func @nested_if
// CHECK: scf.for
// CHECK-NEXT: scf.if
// CHECK-NEXT:   txl.bar_arrive 8, 256
// CHECK-NEXT: }
module {
  func.func @nested_if(%n: index) attributes {txl.kernel, txl.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %p = txl.is_warpgroup [0]
    scf.for %i = %c0 to %n step %c1 {
      scf.if %p {
        txl.bar_arrive 8, 256
      }
    }
    return
  }
}

// -----

// Named barriers 1..7 are reserved for the compiler.
module {
  func.func @reserved_barrier() attributes {txl.kernel, txl.num_warps = 8 : i32} {
    %p = txl.is_warpgroup [0]
    scf.if %p {
      // expected-error @+1 {{uses named barrier 3, which is reserved for the compiler (1..7); use 8..15}}
      txl.bar_arrive 3, 256
    }
    return
  }
}

// -----

// 12 warps are warpgroups 0..2: warpgroup 3 does not exist.
module {
  func.func @missing_warpgroup() attributes {txl.kernel, txl.num_warps = 12 : i32} {
    // expected-error @+1 {{names warpgroup 3 but the kernel has 3 (txl.num_warps = 12); raise txl.num_warps}}
    %p = txl.is_warpgroup [3]
    scf.if %p {
      txl.bar_wait 8, 128
    }
    return
  }
}

// -----

// Budgets over the 64K-register file: 40 x 128 + 256 x 256 = 70656 > 65536.
// setmaxnreg.inc would wait for registers nobody gives back.
module {
  func.func @over_register_file() attributes {txl.kernel, txl.num_warps = 12 : i32} {
    %p = txl.is_warpgroup [0]
    scf.if %p {
      txl.reg_dealloc 40
    }
    %c = txl.is_warpgroup [1, 2]
    scf.if %c {
      // expected-error @+1 {{register budgets need 70656 registers but the register file has 65536 (per warpgroup: 40 256 256 x 128 threads)}}
      txl.reg_alloc 256
    }
    return
  }
}

// -----

// A warpgroup without a budget keeps the launch allotment (65536 / 384
// threads, in steps of 8: 168): 168 + 240 + 168 registers x 128 threads.
module {
  func.func @launch_allotment_counts() attributes {txl.kernel, txl.num_warps = 12 : i32} {
    %p = txl.is_warpgroup [1]
    scf.if %p {
      // expected-error @+1 {{register budgets need 73728 registers but the register file has 65536 (per warpgroup: 168 240 168 x 128 threads)}}
      txl.reg_alloc 240
    }
    return
  }
}

// -----

// A reg_alloc outside every is_warpgroup branch runs in all 384 threads:
// 240 x 384 registers is more than the register file (it was not counted).
module {
  func.func @top_level_budget() attributes {txl.kernel, txl.num_warps = 12 : i32} {
    // expected-error @+1 {{'txl.reg_alloc' op asks for 240 registers in every thread of the block (384 threads, 92160 registers) but the register file has 65536; setmaxnreg.inc would wait forever. Put it first in the branch of the warpgroups that need it (`scf.if` on txl.is_warpgroup; `if txl.is_warpgroup([...]):` in the DSL), or ask for at most 168}}
    txl.reg_alloc 240
    return
  }
}

// -----

// TXL's split written as `if txl.warpgroup_id() == 0: ... else: ...` (its
// tawa attention kernels) is the role split is_warpgroup [0]: the kernel's
// own budgets (40 for the producer, 232 in the else branch: warpgroups 1, 2)
// are checked as per-warpgroup budgets, not as a reg_alloc every thread runs.
// A compare with a warpgroup the kernel does not have stays a compare.
// CHECK-LABEL: func.func @warpgroup_id_split
// CHECK: %[[P:.*]] = txl.is_warpgroup [0]
// CHECK-NEXT: scf.if %[[P]] {
// CHECK-NEXT:   txl.reg_dealloc 40
// CHECK: } else {
// CHECK-NEXT:   txl.reg_alloc 232
// CHECK: arith.cmpi eq, %c5{{.*}}, %
// OPT-LABEL: func.func @warpgroup_id_split
// OPT: txl.reg_dealloc 40
// OPT: txl.reg_alloc 232
module {
  func.func @warpgroup_id_split() attributes {txl.kernel, txl.num_warps = 12 : i32} {
    %w = txl.warpgroup_id
    %c0 = arith.constant 0 : i32
    %c5 = arith.constant 5 : i32
    %p = arith.cmpi eq, %w, %c0 : i32
    scf.if %p {
      txl.reg_dealloc 40
      txl.bar_arrive 8, 384
    } else {
      txl.reg_alloc 232
      txl.bar_wait 8, 384
    }
    %q = arith.cmpi eq, %c5, %w : i32
    scf.if %q {
      txl.bar_arrive 9, 384
    }
    return
  }
}

// -----

// Budgets in role branches nested in a region (FlashMLA's split: warpgroup 1
// takes 240, warpgroup 2 224): the region gets no default before them (a
// default 232 would make the nested setmaxnreg.inc 224 lower the count), and
// the register file check counts each warpgroup's nested budget:
// 40 + 240 + 224 registers x 128 threads = 64512.
// CHECK-LABEL: func.func @nested_budgets
// CHECK: scf.if
// CHECK-NEXT: txl.reg_dealloc 40
// CHECK: scf.if
// CHECK-NEXT: %{{.*}} = txl.is_warpgroup [1]
// CHECK-NEXT: scf.if
// CHECK-NEXT: txl.reg_alloc 240
// CHECK: else
// CHECK-NEXT: txl.reg_alloc 224
// OPT-LABEL: func.func @nested_budgets
// OPT: txl.reg_dealloc 40
// OPT: txl.reg_alloc 240
// OPT: txl.reg_alloc 224
module {
  func.func @nested_budgets() attributes {txl.kernel, txl.num_warps = 12 : i32} {
    %p = txl.is_warpgroup [0]
    scf.if %p {
      txl.reg_dealloc 40
    }
    %c = txl.is_warpgroup [1, 2]
    scf.if %c {
      %w1 = txl.is_warpgroup [1]
      scf.if %w1 {
        txl.reg_alloc 240
      } else {
        txl.reg_alloc 224
      }
    }
    return
  }
}

// -----

// A reg_alloc after a larger budget on the same path would lower the count
// with setmaxnreg.inc, which PTX leaves undefined.
module {
  func.func @alloc_lowers_budget() attributes {txl.kernel, txl.num_warps = 12 : i32} {
    %c = txl.is_warpgroup [1, 2]
    scf.if %c {
      // expected-note @+1 {{the budget in effect is set here}}
      txl.reg_alloc 232
      %w1 = txl.is_warpgroup [1]
      scf.if %w1 {
        // expected-error @+1 {{'txl.reg_alloc' op asks for 224 registers after txl.reg_alloc 232 set them: setmaxnreg.inc cannot lower the count (undefined in PTX); use txl.reg_dealloc 224, or set each warpgroup's budget once, first in its branch}}
        txl.reg_alloc 224
      }
    }
    return
  }
}

// -----

// ... and a reg_dealloc after a smaller budget would raise it with .dec.
module {
  func.func @dealloc_raises_budget() attributes {txl.kernel, txl.num_warps = 8 : i32} {
    %p = txl.is_warpgroup [0]
    scf.if %p {
      // expected-note @+1 {{the budget in effect is set here}}
      txl.reg_dealloc 40
      // expected-error @+1 {{'txl.reg_dealloc' op gives back down to 56 registers after txl.reg_dealloc 40 set them: setmaxnreg.dec cannot raise the count (undefined in PTX); use txl.reg_alloc 56, or set each warpgroup's budget once, first in its branch}}
      txl.reg_dealloc 56
    }
    return
  }
}
