"""Triton-style desc.load / desc.store inside run-time loops (scf.for, nested, scf.while, under `if`).

The frontend emits exactly one op per call: `txl.desc_load` / `txl.desc_store` (no buffers, mbarriers, phases or
syncs). How the tiles travel is decided by C++ passes, checked here on the frontend's output:
  - txl-lower-tile-copies (kernels compiled with num_stages=1, so the loop pipeliner leaves the loops alone): each
    desc_load op gets one staging buffer and one mbarrier (a stage per warpgroup that can run it) at the top of the
    kernel, and inside loops an i32 phase carried through every enclosing loop and `if`: each execution syncs the
    group (the stage is reused), re-arms the mbarrier, waits with the current phase and flips it (arith.xori);
  - txl-schedule-loops (the default num_stages=3, or tl.range(..., num_stages=)): a ring of buffers filled
    iterations ahead.
The modules verify with txl-opt and compile to PTX with txlc (the whole pipeline)."""

import inspect
import re

import pytest

import txl
import txl.language as tl
from txl.compiler import compiler as C
from txl.errors import CompilationError

from .dsl_helpers import (TILE_PASSES, check, check_not, compile_ptx, ir_of, lower_copies, lower_tiles, opt_error,
                          run_opt, verify)

A = "tensordesc<bf16[64, 64]>"
O = "tensordesc<fp32[64, 64]>"
SIG = {"a_desc": A, "out_desc": O, "K": "i32"}
NVMMA = "#txl.nvmma_shared<swizzle = 128>"
ALLOC = r"txl.smem_alloc \{txl.staging\} : !txl.smem<64x64xbf16, stages = 1, #txl.nvmma_shared<swizzle = 128>>"
MBAR = r"txl.mbar_alloc count 1 : !txl.mbar<1>"
# One execution of a reused desc_load (after txl-lower-tile-copies; %arg0 is a_desc).
STEP = (r"txl.bar_wait 0, 128", r"txl.mbar_expect %\d+, 8192", r"txl.tma_load %arg0\[")
# What the frontend no longer emits for desc.load / desc.store.
LOWERED_OPS = (r"txl.smem_alloc", r"txl.mbar_alloc", r"txl.mbar_expect", r"txl.tma_load", r"txl.mbar_wait",
               r"txl.smem_load", r"txl.smem_store", r"txl.tma_store", r"txl.bar_wait", r"arith.xori", r"desc_phase")


def _count(text, pattern):
    return len(re.findall(pattern, text, re.M))


def _front(text, loads=1, stores=1):
    """The frontend's module: one txl.desc_load / txl.desc_store per op the kernel traces, nothing lowered."""
    assert _count(text, r"= txl.desc_load %\w+\[") == loads, text
    assert _count(text, r"^\s*txl.desc_store %\w+\[") == stores, text
    check_not(text, *LOWERED_OPS)


def _lowered(fn, sig, constexprs, **opts):
    """(frontend text with num_stages=1, the same after txl-lower-tile-copies)."""
    text = ir_of(fn, sig, constexprs, num_stages=1, **opts)
    check(text, r"\{txl.kernel, txl.num_stages = 1 : i32, txl.num_warps = \d+ : i32\}")
    low = lower_copies(text)
    check_not(low, r"txl.desc_load", r"txl.desc_store")
    return text, low


def _top_allocs(text, loads=1):
    """One staging buffer and one mbarrier per desc_load op, all before the first loop."""
    head = text.split("scf.")[0]
    assert _count(head, r"txl.smem_alloc \{txl.staging\} : !txl.smem<64x64xbf16") == loads, text
    assert _count(head, r"txl.mbar_alloc count 1 : !txl.mbar<1>") == loads, text
    assert _count(text, r"txl.smem_alloc \{txl.staging\} : !txl.smem<64x64xbf16") == loads, text
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
    text, low = _lowered(_sum_for, SIG, {"BLOCK_K": 64})
    _front(text)
    check(text, r'%acc = "scf.for"\(%c0, %K, %c64, %\d+\) \(\{\n\s*\^bb0\(%k: i32, %acc_\d+: tensor<64x64xf32>\):',
          r"%a = txl.desc_load %a_desc\[%c0, %k\] : !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>> "
          r"-> tensor<64x64xbf16>", r"scf.yield %acc_\d+ : tensor<64x64xf32>",
          r"\}\) : \(i32, i32, i32, tensor<64x64xf32>\) -> tensor<64x64xf32>",
          r"txl.desc_store %out_desc\[%c0, %c0\], %acc : !txl.tensordesc<64x64xf32, .*>, tensor<64x64xf32>")
    _top_allocs(low)
    check(low, r"(?P<c0>%c0_i32\w*) = arith.constant 0 : i32", ALLOC, MBAR,
          r"scf.for %(?P<k>arg\d+) = %\w+ to %arg2 step %c64_i32 iter_args\(%\w+ = %cst, %(?P<ph>arg\d+) = [[c0]]\) "
          r"-> \(tensor<64x64xf32>, i32\)", *STEP,
          r"txl.mbar_wait %\d+, %[[ph]] : i32", r"txl.smem_load",
          r"%(?P<next>\d+) = arith.xori %[[ph]], %c1_i32\w* : i32",
          r"scf.yield %\d+, %[[next]] : tensor<64x64xf32>, i32")
    _ok(text)


def test_for_compiles_to_ptx_through_txl_compile():
    k = txl.compile(_sum_for, SIG, {"BLOCK_K": 64}, target="sm_90a", use_cache=False, num_stages=1)
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
    text, low = _lowered(_two_loads, {"a_desc": A, "b_desc": A, "out_desc": O, "K": "i32"}, {"BLOCK_K": 64})
    _front(text, loads=2)
    check(text, r"scf.for", r"txl.desc_load %a_desc\[%c0, %k\]", r"txl.desc_load %b_desc\[%k, %c0\]")
    _top_allocs(low, loads=2)
    check(low, r"scf.for .* iter_args\(%\w+ = %cst, %(?P<p0>arg\d+) = %c0_i32\w*, %(?P<p1>arg\d+) = %c0_i32\w*\) "
               r"-> \(tensor<64x64xf32>, i32, i32\)",
          r"txl.bar_wait 0, 128", r"txl.tma_load %arg0", r"txl.mbar_wait %\d+, %[[p0]]",
          r"%(?P<n0>\d+) = arith.xori %[[p0]], %c1",
          r"txl.bar_wait 0, 128", r"txl.tma_load %arg1", r"txl.mbar_wait %\d+, %[[p1]]",
          r"%(?P<n1>\d+) = arith.xori %[[p1]], %c1", r"scf.yield %\d+, %[[n0]], %[[n1]] :")
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
    text, low = _lowered(_sum_nested, {"a_desc": A, "out_desc": O, "M": "i32", "K": "i32"}, {"BLOCK_K": 64})
    _front(text)
    check(text, r'"scf.for".*\n\s*\^bb0\(%m: i32', r'"scf.for".*\n\s*\^bb0\(%k: i32', r"txl.desc_load %a_desc\[%m, %k\]")
    _top_allocs(low)
    check(low, r"scf.for %(?P<m>arg\d+) = .* iter_args\(%\w+ = %cst, %(?P<p>arg\d+) = %c0_i32\w*\)",
          r"scf.for %(?P<k>arg\d+) = .* iter_args\(%\w+ = %arg\d+, %(?P<q>arg\d+) = %[[p]]\)", *STEP[:2],
          r"txl.tma_load %arg0\[%[[m]], %[[k]]\]", r"txl.mbar_wait %\d+, %[[q]]",
          r"%(?P<n>\d+) = arith.xori %[[q]]", r"scf.yield %\d+, %[[n]] :",
          r"}", r"scf.yield %(?P<inner>\d+)#0, %(?P=inner)#1 :")
    _ok(text)


@txl.jit
def _sum_while(a_desc, out_desc, K, BLOCK_K: tl.constexpr):
    acc = tl.zeros([64, 64], tl.float32)
    k = 0
    while k < K:
        acc += a_desc.load([0, k]).to(tl.float32)
        k += BLOCK_K
    out_desc.store([0, 0], acc)


def test_while_frontend_emits_one_desc_load():
    text = ir_of(_sum_while, SIG, {"BLOCK_K": 64}, num_stages=1)
    _front(text)
    check(text, r'"scf.while"\(%\d+, %c0\) \(\{\n\s*\^bb0\(%acc_\d+: tensor<64x64xf32>, %k_\d+: i32\):', r"scf.condition",
          r"\}, \{", r"\^bb0\(%acc_\d+: tensor<64x64xf32>, %(?P<k>k_\d+): i32\)",
          r"txl.desc_load %a_desc\[%c0, %[[k]]\]", r"scf.yield")
    verify(text)


def test_while_carries_the_phase():
    text, low = _lowered(_sum_while, SIG, {"BLOCK_K": 64})
    _top_allocs(low)
    check(low, r"scf.while \(%\w+ = %\w+, %\w+ = %\w+, %\w+ = %c0_i32\w*\) : \(tensor<64x64xf32>, i32, i32\)",
          r"scf.condition", r"\} do \{", r"\^bb0\(%\w+: tensor<64x64xf32>, %\w+: i32, %(?P<p>arg\d+): i32\)", *STEP,
          r"txl.mbar_wait %\d+, %[[p]]", r"%(?P<n>\d+) = arith.xori %[[p]], %c1", r"scf.yield %\d+, %\d+, %[[n]] :")
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
    text, low = _lowered(_load_in_while_condition, SIG, {"BLOCK_K": 64})
    _front(text)
    check(text, r"scf.while", r"txl.desc_load %a_desc", r"scf.condition", r"\}, \{")
    _top_allocs(low)
    # the condition flips the phase; scf.condition forwards the flipped value to the body and the results
    check(low, r"scf.while", r"txl.bar_wait 0, 128", r"txl.mbar_wait %\w+, %(?P<p>arg\d+) : i32",
          r"%(?P<n>\d+) = arith.xori %[[p]]", r"scf.condition\(%\w+\) .*%[[n]] :")
    _ok(text)


@txl.jit
def _sum_if_in_for(a_desc, out_desc, K, BLOCK_K: tl.constexpr):
    acc = tl.zeros([64, 64], tl.float32)
    for k in range(0, K, BLOCK_K):
        if (k // BLOCK_K) % 2 == 0:
            acc += a_desc.load([0, k]).to(tl.float32)
    out_desc.store([0, 0], acc)


def test_if_in_for_yields_the_phase_from_both_branches():
    text, low = _lowered(_sum_if_in_for, SIG, {"BLOCK_K": 64})
    _front(text)
    check(text, r'"scf.for".*\n\s*\^bb0\(%k: i32, %acc_\d+: tensor<64x64xf32>\)', r'= "scf.if"\(%\w+\)',
          r"txl.desc_load %a_desc\[%c0, %k\]", r"\}, \{", r"\}\) : \(i1\) -> tensor<64x64xf32>")
    _top_allocs(low)
    check(low, r"scf.for %\w+ = .* iter_args\(%\w+ = %cst, %(?P<p>arg\d+) = %c0_i32\w*\)",
          r"%(?P<r>\d+):2 = scf.if %\w+ -> \(tensor<64x64xf32>, i32\)", *STEP, r"txl.mbar_wait %\w+, %[[p]]",
          r"%(?P<n>\d+) = arith.xori %[[p]], %c1", r"scf.yield %\d+, %[[n]] : tensor<64x64xf32>, i32",
          r"\} else \{", r"scf.yield %arg\d+, %[[p]] : tensor<64x64xf32>, i32", r"\}",
          r"scf.yield %[[r]]#0, %[[r]]#1 : tensor<64x64xf32>, i32")
    _ok(text)


@txl.jit
def _if_only(a_desc, out_desc, K):
    acc = tl.zeros([64, 64], tl.float32)
    if K > 0:
        acc = a_desc.load([0, K]).to(tl.float32)
    out_desc.store([0, 0], acc)


def test_top_level_if_needs_no_barrier():
    """An op that runs at most once: phase 0, no barrier (the stage is fresh), nothing carried by the if."""
    text, low = _lowered(_if_only, SIG, {})
    _front(text)
    check(low, r"(?P<c0>%c0_i32\w*) = arith.constant 0 : i32", ALLOC, r"scf.if %\w+ -> \(tensor<64x64xf32>\)",
          r"txl.mbar_expect", r"txl.mbar_wait %\w+, [[c0]] : i32")
    check_not(low, r"txl.bar_wait", r"arith.xori", r"-> \(tensor<64x64xf32>, i32\)")
    _ok(text)


@txl.jit
def _load_helper(d, k):
    return d.load([0, k]).to(tl.float32)


@txl.jit
def _sum_helper(a_desc, out_desc, K, BLOCK_K: tl.constexpr):
    acc = tl.zeros([64, 64], tl.float32)
    for k in range(0, K, BLOCK_K):
        acc += _load_helper(a_desc, k)
    acc2 = _load_helper(a_desc, 0)  # a second inlining: its own op
    out_desc.store([0, 0], acc + acc2)


def test_phase_flows_through_inlined_calls():
    text, low = _lowered(_sum_helper, SIG, {"BLOCK_K": 64})
    _front(text, loads=2)
    _top_allocs(low, loads=2)
    check(low, r"(?P<c0>%c0_i32\w*) = arith.constant 0 : i32", ALLOC, MBAR,
          r"scf.for .* iter_args\(%\w+ = %cst, %(?P<p>arg\d+) = %c0_i32\w*\)", *STEP,
          r"txl.mbar_wait %\w+, %[[p]]", r"%(?P<n>\d+) = arith.xori %[[p]]", r"scf.yield %\d+, %[[n]]",
          r"txl.mbar_expect", r"txl.mbar_wait %\w+, [[c0]] : i32")
    assert _count(low, r"txl.bar_wait") == 1, low
    _ok(text)


@txl.jit
def _unrolled(a_desc, out_desc, K):
    acc = tl.zeros([64, 64], tl.float32)
    for i in tl.static_range(3):
        acc += a_desc.load([0, K + i * 64]).to(tl.float32)
    out_desc.store([0, 0], acc)


def test_static_range_gives_each_unrolled_load_its_own_buffer():
    """tl.static_range unrolls: three desc_load ops, each run once, each with a buffer and mbarrier of its own (no
    phase to flip, no barrier before a reuse)."""
    text, low = _lowered(_unrolled, SIG, {})
    _front(text, loads=3)
    _top_allocs(low, loads=3)
    check(low, r"txl.mbar_expect", r"txl.mbar_wait %\w+, %c0_i32\w* : i32", r"txl.mbar_expect",
          r"txl.mbar_wait %\w+, %c0_i32\w* : i32", r"txl.mbar_expect", r"txl.mbar_wait %\w+, %c0_i32\w* : i32")
    check_not(low, r"txl.bar_wait", r"arith.xori")
    # three distinct buffers
    bufs = re.findall(r"txl.get_buffer %(\d+)\[%c0_i32\w*\] : !txl.smem<64x64xbf16", low)
    assert len(bufs) == 3 and len(set(bufs)) == 3, low
    _ok(text)


# ---------------------------------------------------------------------------------------------------------------
# Warpgroups
# ---------------------------------------------------------------------------------------------------------------
def test_two_warpgroups_get_a_stage_each():
    text, low = _lowered(_sum_for, SIG, {"BLOCK_K": 64}, num_warpgroups=2)
    _front(text)
    check(low, r"txl.smem_alloc \{txl.staging\} : !txl.smem<64x64xbf16, stages = 2, ",
          r"txl.mbar_alloc count 1 : !txl.mbar<2>", r"scf.for", r"%(?P<wg>\d+) = txl.warpgroup_id",
          r"txl.get_buffer %\d+\[%[[wg]]\] : !txl.smem<64x64xbf16, stages = 2",
          r"txl.get_buffer %\d+\[%[[wg]]\] : !txl.mbar<2>", r"txl.bar_wait 0, 256", r"txl.mbar_expect")
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
    text, low = _lowered(_ws, {"a_desc": A, "out_desc": O, "K": "i32"}, {"BLOCK_K": 64}, num_warpgroups=3)
    _front(text)
    check(low, r"txl.smem_alloc \{txl.staging\} : !txl.smem<64x64xbf16, stages = 2, ",
          r"txl.mbar_alloc count 1 : !txl.mbar<2>", r"txl.is_warpgroup \[1, 2\]", r"scf.for",
          r"%(?P<wg>\d+) = txl.warpgroup_id", r"(?P<one>%c1_i32\w*) = arith.constant 1 : i32",
          r"%(?P<st>\d+) = arith.subi %[[wg]], [[one]] : i32", r"txl.get_buffer %\d+\[%[[st]]\]",
          r"txl.tma_store_wait 0", r"txl.mbar_expect", r"txl.tma_load", r"txl.mbar_wait")
    check_not(low, r"txl.bar_wait")
    _ok(text)


# the same kernel, no default pipelining: the loop is in a warp-specialized region (the pipeliner leaves it)
def test_warp_specialized_loop_is_not_pipelined():
    text = ir_of(_ws, {"a_desc": A, "out_desc": O, "K": "i32"}, {"BLOCK_K": 64}, num_warpgroups=3)
    check(text, r"txl.num_stages = 3 : i32")
    low = lower_tiles(text)
    check_not(low, r"txl.ring", r"txl.stage")
    check(low, r"txl.smem_alloc \{txl.staging\} : !txl.smem<64x64xbf16, stages = 2, ", r"txl.tma_store_wait 0",
          r"txl.mbar_expect")
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
    text, low = _lowered(_ws_one, {"a_desc": A, "out_desc": O, "K": "i32"}, {"BLOCK_K": 64}, num_warpgroups=2)
    _front(text)
    check(low, ALLOC, r"txl.is_warpgroup \[1\]", r"scf.while", r"txl.tma_store_wait 0", r"txl.mbar_expect")
    check_not(low, r"txl.bar_wait", r"txl.warpgroup_id")
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
    text, low = _lowered(_ws_outer_loop, {"a_desc": A, "out_desc": O, "T": "i32", "K": "i32"}, {"BLOCK_K": 64},
                         num_warpgroups=2)
    _front(text)
    check(low, r"scf.for %\w+ = .* iter_args\(%(?P<p>arg\d+) = %c0_i32\w*\) -> \(i32\)",
          r"%(?P<r>\d+) = scf.if %\w+ -> \(i32\)",
          r"scf.for %\w+ = .* iter_args\(%\w+ = %cst, %(?P<q>arg\d+) = %[[p]]\)", r"txl.tma_store_wait 0",
          r"txl.mbar_expect", r"txl.mbar_wait %\d+, %[[q]]", r"scf.yield %\d+#1 : i32", r"\} else \{",
          r"scf.yield %[[p]] : i32", r"\}", r"scf.yield %[[r]] : i32")
    check_not(low, r"txl.bar_wait")
    _ok(text)


# ---------------------------------------------------------------------------------------------------------------
# desc.store in loops
# ---------------------------------------------------------------------------------------------------------------
@txl.jit
def _copy_loop(a_desc, b_desc, K, BLOCK_K: tl.constexpr):
    for k in range(0, K, BLOCK_K):
        b_desc.store([0, k], a_desc.load([0, k]))


def test_store_in_loop_reuses_one_staging_buffer():
    text, low = _lowered(_copy_loop, {"a_desc": A, "b_desc": A, "K": "i32"}, {"BLOCK_K": 64})
    _front(text)
    check(text, r"\^bb0\(%k: i32", r"%(?P<t>\d+) = txl.desc_load %a_desc\[%c0, %k\]",
          r"txl.desc_store %b_desc\[%c0, %k\], %[[t]] : ")
    assert _count(low, r"txl.smem_alloc") == 2 and _count(low, r"txl.mbar_alloc") == 1
    check(low, r"scf.for", r"txl.bar_wait 0, 128", r"txl.mbar_wait", r"txl.smem_load", r"arith.xori",
          r"txl.tma_store_wait 0", r"txl.smem_store", r"txl.fence_proxy_async", r"txl.tma_store ",
          r"txl.tma_store_wait 0", r"scf.yield")
    _ok(text)


# ---------------------------------------------------------------------------------------------------------------
# num_stages: the loop pipeliner (txl-schedule-loops) takes the loops
# ---------------------------------------------------------------------------------------------------------------
@txl.jit
def _sum_range(a_desc, out_desc, K, BLOCK_K: tl.constexpr, NS: tl.constexpr):
    acc = tl.zeros([64, 64], tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=NS):
        acc += a_desc.load([0, k]).to(tl.float32)
    out_desc.store([0, 0], acc)


def test_default_num_stages_pipelines_the_loop():
    """Triton's default num_stages=3 on the kernel: the load is issued 2 iterations ahead into a ring (2 buffers:
    no async dot reads a slot after its iteration), consumed in stage 2; nothing left for txl-lower-tile-copies."""
    text = ir_of(_sum_for, SIG, {"BLOCK_K": 64})
    check(text, r"\{txl.kernel, txl.num_stages = 3 : i32, txl.num_warps = 4 : i32\}")
    _front(text)
    sched = run_opt(text, "--txl-fold-dot-add", "--txl-schedule-loops")
    # the mbarriers at the kernel's entry, the ring right before its loop
    check(sched, r"txl.mbar_alloc count 1 : !txl.mbar<2>",
          rf"txl.smem_alloc \{{txl.ring\}} : !txl.smem<64x64xbf16, stages = 2, {NVMMA}>", r"scf.for",
          r"txl.mbar_expect %\d+, 8192 \{txl.order = \d+ : i32, txl.stage = 0 : i32\}",
          r"txl.tma_load %arg0\[.*\{txl.order = \d+ : i32, txl.stage = 0 : i32\}",
          r"txl.mbar_wait %\d+, %\d+ \{txl.order = \d+ : i32, txl.stage = 2 : i32\}",
          r"txl.smem_load .*\{txl.order = \d+ : i32, txl.stage = 2 : i32\}",
          r"txl.bar_wait 0, 128 \{txl.order = \d+ : i32, txl.stage = 2 : i32\}", r"scf.yield",
          r"\} \{txl.num_stages = 3 : i32\}")
    check_not(sched, r"txl.desc_load")
    low = lower_tiles(text)
    check_not(low, r"txl.stage", r"txl.order", r"txl.desc_load", r"txl.desc_store",
               r"txl.smem_alloc \{txl.staging\} : !txl.smem<64x64xbf16")
    # the prologue issues the first two loads under `scf.if` (the trip count may be smaller)
    check(low, r"scf.if", r"txl.tma_load %arg0", r"scf.if", r"txl.tma_load %arg0", r"scf.for", r"txl.mbar_wait",
          r"scf.if", r"txl.tma_load %arg0")
    _ok(text)


@pytest.mark.parametrize("ns", [1, 2, 4])
def test_tl_range_num_stages_reaches_the_loop(ns):
    text = ir_of(_sum_range, SIG, {"BLOCK_K": 64, "NS": ns})
    check(text, r"\^bb0\(%k: i32", r"txl.desc_load", r"scf.yield",
          r"\}\) \{txl.num_stages = %d : i32\}" % ns, r"\{txl.kernel, txl.num_stages = 3 : i32")
    sched = run_opt(text, "--txl-fold-dot-add", "--txl-schedule-loops")
    if ns == 1:  # the loop's num_stages wins over the kernel's: not pipelined
        check_not(sched, r"txl.ring", r"txl.stage")
        check(sched, r"txl.desc_load")
    else:
        check(sched, r"txl.mbar_alloc count 1 : !txl.mbar<%d>" % (ns - 1),
              r"txl.smem_alloc \{txl.ring\} : !txl.smem<64x64xbf16, stages = %d, " % (ns - 1),
              r"txl.tma_load .*txl.stage = 0 : i32",
              r"txl.mbar_wait .*txl.stage = %d : i32" % (ns - 1))
        check_not(sched, r"txl.desc_load")
    _ok(text)


_DEFAULT_STAGES = [
    ("sum_for", _sum_for, SIG, {"BLOCK_K": 64}, {}),
    ("two_loads", _two_loads, {"a_desc": A, "b_desc": A, "out_desc": O, "K": "i32"}, {"BLOCK_K": 64}, {}),
    ("nested", _sum_nested, {"a_desc": A, "out_desc": O, "M": "i32", "K": "i32"}, {"BLOCK_K": 64}, {}),
    pytest.param("while", _sum_while, SIG, {"BLOCK_K": 64}, {}),
    ("if_in_for", _sum_if_in_for, SIG, {"BLOCK_K": 64}, {}),
    ("helper", _sum_helper, SIG, {"BLOCK_K": 64}, {}),
    ("two_warpgroups", _sum_for, SIG, {"BLOCK_K": 64}, {"num_warpgroups": 2}),
    ("ws_outer", _ws_outer_loop, {"a_desc": A, "out_desc": O, "T": "i32", "K": "i32"}, {"BLOCK_K": 64},
     {"num_warpgroups": 2}),
    ("copy", _copy_loop, {"a_desc": A, "b_desc": A, "K": "i32"}, {"BLOCK_K": 64}, {}),
]


@pytest.mark.parametrize("name,fn,sig,constexprs,opts", _DEFAULT_STAGES)
def test_default_num_stages_compiles(name, fn, sig, constexprs, opts):
    """The kernels above as Triton users launch them (num_stages=3): the whole pipeline (txlc) takes them."""
    _ok(ir_of(fn, sig, constexprs, **opts))


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


def _marked_line(fn, marker):
    lines, first = inspect.getsourcelines(fn.fn if hasattr(fn, "fn") else fn)
    return first + next(i for i, l in enumerate(lines) if marker in l)


@pytest.mark.parametrize("num_stages", [1, 3])
def test_loop_in_is_warp_region_is_an_error(num_stages):
    """The frontend emits the desc_load; txl-lower-tile-copies rejects it (the loop pipeliner leaves loops in
    warp-specialized regions to it), located at the Python line of the call."""
    text = ir_of(_in_warp_region, SIG, {"BLOCK_K": 64}, num_stages=num_stages)
    _front(text)
    check(text, r"txl.is_warp \[0\]", r"scf.for", r"txl.desc_load %a_desc")
    err = opt_error(text, *TILE_PASSES)
    line = _marked_line(_in_warp_region, "# line checked below")
    assert "%s:%d:" % (__file__.replace(".pyc", ".py"), line) in err, err
    assert "error: 'txl.desc_load' op inside a loop in a `txl.is_warp` region" in err, err
    assert "txl.is_warpgroup" in err and "txl.mbar_wait(bar, phase)" in err, err
    # txl.compile reports the same diagnostics (txlc runs these passes first)
    with pytest.raises(C.TxlCompileError) as info:
        txl.compile(_in_warp_region, SIG, {"BLOCK_K": 64}, num_stages=num_stages, use_cache=False)
    assert "inside a loop in a `txl.is_warp` region" in info.value.diagnostics
    assert ":%d:" % line in info.value.diagnostics


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


def test_frontend_has_no_hidden_phase_variables():
    """The mbarrier phases live in the C++ pass now: no hidden `@desc_phase` variable in any module above."""
    for fn, sig, ce in ((_sum_for, SIG, {"BLOCK_K": 64}), (_sum_if_in_for, SIG, {"BLOCK_K": 64}),
                        (_sum_while, SIG, {"BLOCK_K": 64}), (_sum_helper, SIG, {"BLOCK_K": 64})):
        text = ir_of(fn, sig, ce)
        # (the old frontend carried its phase as the first loop/if value: `-> (i32, tensor<64x64xf32>)`)
        check_not(text, r"desc_phase", r"\(i32, tensor<64x64xf32>\)", r"\(i32\)")
