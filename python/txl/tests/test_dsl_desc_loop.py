"""Triton-style desc.load / desc.store inside run-time loops (scf.for, nested, scf.while, under `if`).

Each desc.load call site owns one staging buffer and one mbarrier (a stage per warpgroup that can run it),
allocated at the top of the kernel, and a hidden i32 phase carried through every enclosing loop and `if`: each
execution syncs the group when the stage is reused, re-arms the mbarrier, waits with the current phase and flips
it (arith.xori). The modules verify with txl-opt and compile to PTX with txlc."""

import pytest

import txl
import txl.language as tl
from txl.compiler.errors import CompilationError

from .dsl_helpers import check, check_not, compile_ptx, ir_of, verify

A = "tensordesc<bf16[64, 64]>"
O = "tensordesc<fp32[64, 64]>"
SIG = {"a_desc": A, "out_desc": O, "K": "i32"}
ALLOC = r"txl.smem_alloc : !txl.smem<64x64xbf16, stages = 1, #txl.nvmma_shared<swizzle = 128>>"
STEP = (r"txl.bar_wait 0, 128", r"txl.mbar_expect %\w+, 8192", r"txl.tma_load %a_desc\[")


def _count(text, pattern):
    import re
    return len(re.findall(pattern, text, re.M))


def _top_allocs(text, loads=1):
    """One staging buffer and one mbarrier per desc.load site, all before the first loop."""
    head = text.split("scf.")[0]
    assert _count(head, r"txl.smem_alloc : !txl.smem<64x64xbf16") == loads, text
    assert _count(head, r"txl.mbar_alloc count 1 : !txl.mbar<1>") == loads, text
    assert _count(text, r"txl.smem_alloc : !txl.smem<64x64xbf16") == loads, text
    assert _count(text, r"txl.mbar_alloc") == loads, text


def _ok(text):
    verify(text)
    compile_ptx(text)


# ---------------------------------------------------------------------------------------------------------------
# scf.for
# ---------------------------------------------------------------------------------------------------------------
@txl.jit
def _sum_for(a_desc, out_desc, K, BLOCK_K: tl.constexpr):
    acc = tl.zeros([64, 64], tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([0, k])
        acc += a.to(tl.float32)
    out_desc.store([0, 0], acc)


def test_for_carries_the_phase():
    text = ir_of(_sum_for, SIG, {"BLOCK_K": 64})
    _top_allocs(text)
    check(text, r"%c0 = arith.constant 0 : i32", ALLOC,
          r"txl.mbar_alloc count 1 : !txl.mbar<1>",
          r"scf.for %k = %c0 to %K step %c64 iter_args\(%(desc_phase0_\d+) = %c0, %acc_\d+ = %\d+\) "
          r"-> \(i32, tensor<64x64xf32>\)", *STEP,
          r"txl.mbar_wait %\w+, %desc_phase0_1 : i32", r"txl.smem_load",
          r"%(desc_phase0_2) = arith.xori %desc_phase0_1, %c1 : i32", r"scf.yield %desc_phase0_2, %acc_\d+")
    _ok(text)


def test_for_compiles_to_ptx_through_txl_compile():
    k = txl.compile(_sum_for, SIG, {"BLOCK_K": 64}, target="sm_90a", use_cache=False)
    ptx = k.asm["ptx"]
    assert "mbarrier.try_wait.parity" in ptx and "cp.async.bulk.tensor.2d.shared::cluster.global" in ptx
    # the WAR barrier before re-arming, inside the loop (the init barrier is `bar.sync 0;`)
    assert "bar.sync \t0, 128;" in ptx or "barrier.sync \t0, 128;" in ptx, ptx


@txl.jit
def _two_loads(a_desc, b_desc, out_desc, K, BLOCK_K: tl.constexpr):
    acc = tl.zeros([64, 64], tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([0, k])
        b = b_desc.load([k, 0])
        acc += a.to(tl.float32) * b.to(tl.float32)
    out_desc.store([0, 0], acc)


def test_two_sites_two_phases():
    text = ir_of(_two_loads, {"a_desc": A, "b_desc": A, "out_desc": O, "K": "i32"}, {"BLOCK_K": 64})
    _top_allocs(text, loads=2)
    check(text, r"scf.for .* iter_args\(%desc_phase0_\d+ = %c0, %desc_phase1_\d+ = %c0, ",
          r"txl.tma_load %a_desc", r"txl.mbar_wait %\w+, %desc_phase0_1", r"arith.xori %desc_phase0_1, %c1",
          r"txl.bar_wait 0, 128", r"txl.tma_load %b_desc", r"txl.mbar_wait %\w+, %desc_phase1_1",
          r"arith.xori %desc_phase1_1, %c1")
    _ok(text)


# ---------------------------------------------------------------------------------------------------------------
# Nested loops, while, if
# ---------------------------------------------------------------------------------------------------------------
@txl.jit
def _sum_nested(a_desc, out_desc, M, K, BLOCK_K: tl.constexpr):
    acc = tl.zeros([64, 64], tl.float32)
    for m in range(0, M, 64):
        for k in range(0, K, BLOCK_K):
            acc += a_desc.load([m, k]).to(tl.float32)
    out_desc.store([0, 0], acc)


def test_nested_for_carries_the_phase_through_both_loops():
    text = ir_of(_sum_nested, {"a_desc": A, "out_desc": O, "M": "i32", "K": "i32"}, {"BLOCK_K": 64})
    _top_allocs(text)
    check(text, r"scf.for %m = .* iter_args\(%(desc_phase0_\d+) = %c0, ",
          r"scf.for %k = .* iter_args\(%desc_phase0_\d+ = %desc_phase0_1, ", *STEP,
          r"txl.mbar_wait %\w+, %desc_phase0_\d+", r"arith.xori", r"scf.yield", r"scf.yield %desc_phase0")
    _ok(text)


@txl.jit
def _sum_while(a_desc, out_desc, K, BLOCK_K: tl.constexpr):
    acc = tl.zeros([64, 64], tl.float32)
    k = 0
    while k < K:
        acc += a_desc.load([0, k]).to(tl.float32)
        k += BLOCK_K
    out_desc.store([0, 0], acc)


def test_while_carries_the_phase():
    text = ir_of(_sum_while, SIG, {"BLOCK_K": 64})
    _top_allocs(text)
    check(text, r"scf.while \(%\w+ = %c0, %\w+ = %\d+, %\w+ = %c0\) : \(i32, tensor<64x64xf32>, i32\)",
          r"scf.condition", r"\^bb0\(%(desc_phase0_\d+): i32", *STEP, r"txl.mbar_wait %\w+, %desc_phase0_\d+",
          r"arith.xori %desc_phase0_\d+, %c1", r"scf.yield")
    _ok(text)


@txl.jit
def _load_in_while_condition(a_desc, out_desc, K, BLOCK_K: tl.constexpr):
    acc = tl.zeros([64, 64], tl.float32)
    k = 0
    while tl.max(tl.max(a_desc.load([0, k]).to(tl.float32), 1), 0) < 100.0:
        acc += 1.0
        k += BLOCK_K
    out_desc.store([0, 0], acc)


def test_load_in_while_condition_forwards_the_flipped_phase():
    text = ir_of(_load_in_while_condition, SIG, {"BLOCK_K": 64})
    _top_allocs(text)
    # the condition flips the phase; scf.condition forwards the flipped value to the body and the results
    check(text, r"scf.while", r"txl.bar_wait 0, 128", r"txl.mbar_wait %\w+, %(\w+) : i32",
          r"%(desc_phase0_\d+) = arith.xori", r"scf.condition\(%\w+\) .*%desc_phase0_\d+")
    _ok(text)


@txl.jit
def _sum_if_in_for(a_desc, out_desc, K, BLOCK_K: tl.constexpr):
    acc = tl.zeros([64, 64], tl.float32)
    for k in range(0, K, BLOCK_K):
        if (k // BLOCK_K) % 2 == 0:
            acc += a_desc.load([0, k]).to(tl.float32)
    out_desc.store([0, 0], acc)


def test_if_in_for_yields_the_phase_from_both_branches():
    text = ir_of(_sum_if_in_for, SIG, {"BLOCK_K": 64})
    _top_allocs(text)
    check(text, r"scf.for %k = .* iter_args\(%(desc_phase0_\d+) = %c0, ",
          r"scf.if %\w+ -> \(i32, tensor<64x64xf32>\)", *STEP, r"txl.mbar_wait %\w+, %desc_phase0_1",
          r"%(desc_phase0_\d+) = arith.xori %desc_phase0_1, %c1", r"scf.yield %desc_phase0_\d+, ",
          r"} else {", r"scf.yield %desc_phase0_1, ")
    _ok(text)


@txl.jit
def _if_only(a_desc, out_desc, K):
    acc = tl.zeros([64, 64], tl.float32)
    if K > 0:
        acc = a_desc.load([0, K]).to(tl.float32)
    out_desc.store([0, 0], acc)


def test_top_level_if_needs_no_barrier():
    """A call site that runs at most once: phase 0, no barrier (the stage is fresh)."""
    text = ir_of(_if_only, SIG, {})
    check(text, r"scf.if", r"txl.mbar_expect", r"txl.mbar_wait %\w+, %c0 : i32")
    check_not(text, r"txl.bar_wait")
    _ok(text)


@txl.jit
def _load_helper(d, k):
    return d.load([0, k]).to(tl.float32)


@txl.jit
def _sum_helper(a_desc, out_desc, K, BLOCK_K: tl.constexpr):
    acc = tl.zeros([64, 64], tl.float32)
    for k in range(0, K, BLOCK_K):
        acc += _load_helper(a_desc, k)
    acc2 = _load_helper(a_desc, 0)  # a second inlining: its own call site
    out_desc.store([0, 0], acc + acc2)


def test_phase_flows_through_inlined_calls():
    text = ir_of(_sum_helper, SIG, {"BLOCK_K": 64})
    _top_allocs(text, loads=2)
    check(text, r"scf.for .* iter_args\(%(desc_phase0_\d+) = %c0, ", *STEP,
          r"txl.mbar_wait %\w+, %desc_phase0_1", r"arith.xori %desc_phase0_1", r"scf.yield %desc_phase0",
          r"txl.mbar_expect", r"txl.mbar_wait %\w+, %c0 : i32")
    _ok(text)


@txl.jit
def _unrolled(a_desc, out_desc, K):
    acc = tl.zeros([64, 64], tl.float32)
    for i in tl.static_range(3):
        acc += a_desc.load([0, K + i * 64]).to(tl.float32)
    out_desc.store([0, 0], acc)


def test_static_range_reuses_one_stage_with_a_barrier():
    text = ir_of(_unrolled, SIG, {})
    _top_allocs(text)
    # the phases are constants here (0, 1, 0: the xori folds); the first execution needs no barrier
    check(text, r"txl.mbar_expect", r"txl.mbar_wait %\w+, %c0 : i32", r"txl.bar_wait 0, 128",
          r"txl.mbar_expect", r"txl.mbar_wait %\w+, %c1 : i32", r"txl.bar_wait 0, 128", r"txl.mbar_expect",
          r"txl.mbar_wait %\w+, %c0 : i32")
    assert _count(text, r"txl.bar_wait") == 2
    _ok(text)


# ---------------------------------------------------------------------------------------------------------------
# Warpgroups
# ---------------------------------------------------------------------------------------------------------------
def test_two_warpgroups_get_a_stage_each():
    text = ir_of(_sum_for, SIG, {"BLOCK_K": 64}, num_warpgroups=2)
    check(text, r"txl.smem_alloc : !txl.smem<64x64xbf16, stages = 2, ", r"txl.mbar_alloc count 1 : !txl.mbar<2>",
          r"scf.for", r"%(wg\w*|\d+) = txl.warpgroup_id", r"txl.get_buffer %\w+\[%(wg\w*|\d+)\]",
          r"txl.bar_wait 0, 256", r"txl.mbar_expect")
    _ok(text)


@txl.jit
def _ws(a_desc, out_desc, K, BLOCK_K: tl.constexpr):
    if txl.is_warpgroup([0]):
        txl.reg_dealloc(40)
    if txl.is_warpgroup([1, 2]):
        acc = tl.zeros([64, 64], tl.float32)
        for k in range(0, K, BLOCK_K):
            acc += a_desc.load([0, k]).to(tl.float32)
        out_desc.store([(txl.warpgroup_id() - 1) * 64, 0], acc)


def test_warp_specialized_region_stage_per_warpgroup_and_warpgroup_sync():
    text = ir_of(_ws, {"a_desc": A, "out_desc": O, "K": "i32"}, {"BLOCK_K": 64}, num_warpgroups=3)
    check(text, r"txl.smem_alloc : !txl.smem<64x64xbf16, stages = 2, ", r"txl.mbar_alloc count 1 : !txl.mbar<2>",
          r"txl.is_warpgroup \[1, 2\]", r"scf.for", r"%\w+ = txl.warpgroup_id",
          r"%\w+ = arith.subi %\w+, %c1", r"txl.get_buffer %\w+\[%\w+\]",
          r"txl.tma_store_wait 0", r"txl.mbar_expect", r"txl.tma_load", r"txl.mbar_wait")
    check_not(text, r"txl.bar_wait")
    _ok(text)


@txl.jit
def _ws_one(a_desc, out_desc, K, BLOCK_K: tl.constexpr):
    if txl.is_warpgroup([1]):
        acc = tl.zeros([64, 64], tl.float32)
        k = 0
        while k < K:
            acc += a_desc.load([0, k]).to(tl.float32)
            k += BLOCK_K
        out_desc.store([0, 0], acc)


def test_warp_specialized_single_warpgroup():
    text = ir_of(_ws_one, {"a_desc": A, "out_desc": O, "K": "i32"}, {"BLOCK_K": 64}, num_warpgroups=2)
    check(text, ALLOC, r"txl.is_warpgroup \[1\]", r"scf.while", r"txl.tma_store_wait 0", r"txl.mbar_expect")
    check_not(text, r"txl.bar_wait", r"txl.warpgroup_id")
    _ok(text)


@txl.jit
def _ws_outer_loop(a_desc, out_desc, T, K, BLOCK_K: tl.constexpr):
    for t in range(0, T):
        if txl.is_warpgroup([0]):
            acc = tl.zeros([64, 64], tl.float32)
            for k in range(0, K, BLOCK_K):
                acc += a_desc.load([t * 64, k]).to(tl.float32)
            out_desc.store([t * 64, 0], acc)


def test_phase_carried_out_of_a_warp_specialized_if():
    text = ir_of(_ws_outer_loop, {"a_desc": A, "out_desc": O, "T": "i32", "K": "i32"}, {"BLOCK_K": 64},
                 num_warpgroups=2)
    check(text, r"scf.for %t = .* iter_args\(%(desc_phase0_\d+) = %c0\)", r"scf.if %\w+ -> \(i32\)",
          r"scf.for %k = .* iter_args\(%desc_phase0_\d+ = %desc_phase0_1, ", r"txl.tma_store_wait 0",
          r"txl.mbar_expect", r"} else {", r"scf.yield %desc_phase0_1 : i32")
    _ok(text)


# ---------------------------------------------------------------------------------------------------------------
# desc.store in loops
# ---------------------------------------------------------------------------------------------------------------
@txl.jit
def _copy_loop(a_desc, b_desc, K, BLOCK_K: tl.constexpr):
    for k in range(0, K, BLOCK_K):
        b_desc.store([0, k], a_desc.load([0, k]))


def test_store_in_loop_reuses_one_staging_buffer():
    text = ir_of(_copy_loop, {"a_desc": A, "b_desc": A, "K": "i32"}, {"BLOCK_K": 64})
    assert _count(text, r"txl.smem_alloc") == 2 and _count(text, r"txl.mbar_alloc") == 1
    check(text, r"scf.for", r"txl.bar_wait 0, 128", r"txl.mbar_wait", r"txl.smem_load", r"arith.xori",
          r"txl.tma_store_wait 0", r"txl.smem_store", r"txl.fence_proxy_async", r"txl.tma_store ",
          r"txl.tma_store_wait 0", r"scf.yield")
    _ok(text)


# ---------------------------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------------------------
@txl.jit
def _in_warp_region(a_desc, out_desc, K, BLOCK_K: tl.constexpr):
    if txl.is_warp([0]):
        acc = tl.zeros([64, 64], tl.float32)
        for k in range(0, K, BLOCK_K):
            acc += a_desc.load([0, k]).to(tl.float32)  # line checked below
        out_desc.store([0, 0], acc)


def test_loop_in_is_warp_region_is_an_error():
    with pytest.raises(CompilationError) as info:
        ir_of(_in_warp_region, SIG, {"BLOCK_K": 64})
    e = info.value
    assert e.file == __file__.replace(".pyc", ".py") and "# line checked below" in (e.source_line or "")
    assert "txl.is_warp" in e.message and "inside a loop" in e.message
    assert "txl.is_warpgroup" in e.fix and "txl.mbar_wait(bar, phase)" in e.fix


@txl.jit
def _bad_offsets(a_desc, out_desc, K, BLOCK_K: tl.constexpr):
    acc = tl.zeros([64, 64], tl.float32)
    for k in range(0, K, BLOCK_K):
        acc += a_desc.load([k]).to(tl.float32)
    out_desc.store([0, 0], acc)


def test_bad_offsets_in_loop_point_at_the_call():
    with pytest.raises(CompilationError) as info:
        ir_of(_bad_offsets, SIG, {"BLOCK_K": 64})
    e = info.value
    assert "desc.load needs 2 offsets" in e.message and "a_desc.load([k])" in (e.source_line or "")


def test_hidden_names_cannot_be_user_names():
    """`@desc_phase:0` is not a Python identifier: no user variable can collide with it."""
    assert not "@desc_phase:0".isidentifier()
