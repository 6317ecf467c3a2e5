"""tl.make_tensor_descriptor: TMA descriptors built on the device. The frontend emits txl.make_tensor_descriptor
without a slot; txl-global-scratch (txlc's first stage) gives the kernel a hidden parameter (a !txl.ptr<i8> marked
txl.global_scratch = bytes per CTA, described in the sidecar) that the launcher allocates, and each op a 128-byte
slot per warpgroup and CTA. The GPU side is python/txl/tests/gpu/device_desc_cases.py."""


import json
import os
import re
import subprocess
import tempfile

import pytest

import txl
import txl.language as tl
from txl.errors import CompilationError
from txl.runtime.launcher import parse_sidecar

from .dsl_helpers import TXLC, _need, check, check_not, compile_ptx, ir_of, lower_copies, lower_tiles, run_opt, verify
from .gpu import device_desc_cases

SIG = {"a_ptr": "*bf16", "out_ptr": "*fp32", "M": "i32", "K": "i32"}


def _sidecar(text):
    """The sidecar txlc writes for the frontend IR `text` (what the launcher reads)."""
    _need(TXLC)
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "k.mlir"), "w") as f:
            f.write(text)
        r = subprocess.run([TXLC, os.path.join(d, "k.mlir"), "--emit=json", "-o", os.path.join(d, "k.json")],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        with open(os.path.join(d, "k.json")) as f:
            return json.load(f)


def test_descriptor_ir_and_ptx():
    text = ir_of(device_desc_cases.device_desc_for, SIG, {"BM": 64, "BK": 64})
    # The frontend names no slot and adds no parameter: txl-global-scratch does.
    check(text, r"\^bb0\(%a_ptr: !txl.ptr<bf16>, %out_ptr: !txl.ptr<f32>, %M: i32, %K: i32\):",
          r"%a_desc = txl.make_tensor_descriptor %a_ptr, \[%\w+, %\w+\], \[%\w+, %c1_i64\] : !txl.ptr<bf16> -> "
          r"!txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>",
          r"%o_desc = txl.make_tensor_descriptor %out_ptr, .* -> !txl.tensordesc<64x64xf32, "
          r"#txl.nvmma_shared<swizzle = 128>>",
          r"scf.for", r"txl.desc_load %a_desc\[%off_m, %k\]", r"txl.desc_store %o_desc\[%off_m, %c0\], ")
    check_not(text, r"txl.global_scratch", r"txl.warpgroup_id", r"txl.addptr")
    # Two call sites x 1 warpgroup x 128 bytes per CTA, in the pass's output and in the sidecar.
    slots = run_opt(text, "--txl-global-scratch")
    check(slots, r"%arg4: !txl.ptr<i8> \{txl.global_scratch = 256 : i64\}",
          r"txl.warpgroup_id", r"%(?P<s>\d+) = txl.addptr %arg4, %\d+ : !txl.ptr<i8>, i64",
          r"txl.make_tensor_descriptor %arg0, .*, %[[s]] : !txl.ptr<bf16>, !txl.ptr<i8> -> ",
          r"txl.warpgroup_id", r"%(?P<o>\d+) = txl.addptr %arg4, ", r"txl.make_tensor_descriptor %arg1, .*, %[[o]] : ")
    assert _sidecar(text)["params"][4] == {"name": "arg4", "kind": "global_scratch", "dtype": "i8", "bytes": 256}
    # the device-built descriptors feed the TMA ops the C++ passes make (a ring in the pipelined loop)
    low = lower_tiles(text)
    check(low, r"%(?P<a>\d+) = txl.make_tensor_descriptor %arg0, ", r"%(?P<o>\d+) = txl.make_tensor_descriptor %arg1, ",
          r"scf.for", r"txl.tma_load %[[a]]\[", r"txl.tma_store %\d+, %[[o]]\[")
    verify(text)
    ptx, _ = compile_ptx(text)
    assert ptx.count("tensormap.replace.tile.global_address") == 2
    assert "fence.proxy.tensormap::generic.acquire.gpu" in ptx


def test_slots_per_warpgroup_and_call_site():
    text = ir_of(device_desc_cases.device_desc_ws, SIG, {"BM": 64, "BK": 64}, num_warps=4, num_warpgroups=3)
    # 2 call sites x 3 warpgroups x 128 bytes.
    check(run_opt(text, "--txl-global-scratch"), r"\{txl.global_scratch = 768 : i64\}")
    verify(text)


@pytest.mark.parametrize("num_stages", [1, 3])
def test_rebuilt_in_a_loop_from_pointer_arithmetic(num_stages):
    text = ir_of(device_desc_cases.device_desc_batched, dict(SIG, B="i32"), {"BM": 64, "BK": 64},
                 num_stages=num_stages)
    check(run_opt(text, "--txl-global-scratch"), r"\{txl.global_scratch = 256 : i64\}")
    check(text, r"scf.for", r"txl.addptr %a_ptr",
          r"%a_desc = txl.make_tensor_descriptor", r"%o_desc = txl.make_tensor_descriptor", r"scf.for",
          r"scf.for", r"txl.desc_load %a_desc\[")
    # the TMA reads the descriptor rebuilt in this iteration of the outer loop
    check(lower_tiles(text), r"scf.for", r"%(?P<a>\d+) = txl.make_tensor_descriptor", r"scf.for", r"scf.for",
          r"txl.tma_load %[[a]]\[")
    verify(text)
    compile_ptx(text)


def test_sidecar_global_scratch_is_not_a_user_argument():
    meta = parse_sidecar({"kernel": "k", "threads": [128, 1, 1], "params": [
        {"name": "a", "kind": "ptr", "dtype": "bf16"},
        {"name": "s", "kind": "global_scratch", "dtype": "i8", "bytes": 256},
        {"name": "M", "kind": "scalar", "dtype": "i32"}]})
    assert [p.name for p in meta.params] == ["a", "M"] and meta.global_scratch == (1, 256)
    with pytest.raises(Exception, match="positive multiple of 128"):
        parse_sidecar({"kernel": "k", "threads": [128, 1, 1],
                       "params": [{"name": "s", "kind": "global_scratch", "dtype": "i8", "bytes": 100}]})


@txl.jit
def _stride_not_one(a_ptr, M, K):
    d = tl.make_tensor_descriptor(a_ptr, [M, K], [1, K], [64, 64])


@txl.jit
def _unknown_padding(a_ptr, M, K):
    d = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [64, 64], padding_option="inf")


@txl.jit
def _ranks_differ(a_ptr, M, K):
    d = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [64])


@txl.jit
def _not_a_pointer(a_ptr, M, K):
    d = tl.make_tensor_descriptor(M, [M, K], [K, 1], [64, 64])


@pytest.mark.parametrize("fn,message", [
    (_stride_not_one, "the last stride must be the constant 1"),
    (_unknown_padding, "padding_option='inf'): out-of-bounds elements read as 'zero' or 'nan'"),
    (_ranks_differ, "as many sizes, strides and block sizes; got 2, 2 and 1"),
    (_not_a_pointer, "needs a global pointer as base"),
])
def test_errors(fn, message):
    with pytest.raises(CompilationError) as info:
        ir_of(fn, {"a_ptr": "*bf16", "M": "i32", "K": "i32"})
    assert message in info.value.message, info.value.message
    assert info.value.line is not None and info.value.file.endswith("test_dsl_device_desc.py")


GEMM_SIG = {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32"}


SS_DOT = (r"txl.dot %\w+, %(?P<bt>\w+), %\w+ : !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, "
          r"!txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>, tensor<64x64xf32>")


def test_dot_reads_desc_load_staging_buffers():
    """tl.dot(a_desc.load(..), b_desc.load(..).T): the frontend emits the dot on the register tiles; without
    pipelining (num_stages=1) txl-lower-tile-copies makes it an SS wgmma on the TMA staging buffers (B through a
    transposed view), synchronous; the register copies are never made."""
    text = ir_of(device_desc_cases.device_desc_gemm, GEMM_SIG, {"BM": 64, "BN": 64, "BK": 64}, num_stages=1)
    loop = text.split("scf.for")[1].split("scf.yield")[0]
    check(loop, r"%a = txl.desc_load %a_desc", r"%b = txl.desc_load %b_desc", r"%(?P<bt>\w+) = txl.trans %b, \[1, 0\]",
          r"txl.dot %a, %[[bt]], %acc\w* : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32> loc")
    low = lower_copies(text)
    loop = low.split("scf.for")[1].split("scf.yield")[0]
    check(loop, r"txl.tma_load %\d+\[", r"txl.tma_load %\d+\[",
          r"%(?P<v>\d+) = txl.smem_trans %\w+ \[1, 0\]", SS_DOT.replace("(?P<bt>\\w+)", "[[v]]"))
    assert "txl.smem_load" not in loop and "txl.smem_store" not in loop and "{async}" not in loop, loop
    check_not(low, r"txl.trans ", r"txl.dot_wait")
    verify(text)
    compile_ptx(text)


def test_pipelined_dot_reads_the_ring_asynchronously():
    """The same kernel with Triton's default num_stages=3: the loads fill rings of 3 slots (the async dot still
    reads slot i during iteration i + 1), the dot reads them as an SS wgmma, stays async and is retired one
    iteration later (`txl.dot_wait 1`, `txl.dot_wait 0` after the loop)."""
    text = ir_of(device_desc_cases.device_desc_gemm, GEMM_SIG, {"BM": 64, "BN": 64, "BK": 64})
    low = lower_tiles(text)
    assert low.count("txl.smem_alloc {txl.ring} : !txl.smem<64x64xbf16, stages = 3, ") == 2, low
    loop = low.split("scf.for")[1].split("scf.yield")[0]
    check(loop, r"txl.mbar_wait", r"txl.mbar_wait", r"%(?P<v>\d+) = txl.smem_trans %\w+ \[1, 0\]",
          SS_DOT.replace("(?P<bt>\\w+)", "[[v]]").replace(" : !txl.smem", " \\{async\\} : !txl.smem"),
          r"txl.dot_wait 1", r"txl.bar_wait 0, 128", r"scf.if", r"txl.tma_load", r"scf.if", r"txl.tma_load")
    assert "txl.smem_load" not in loop and "txl.smem_store" not in loop, loop
    check(low, r"scf.yield", r"txl.dot_wait 0, %\d+ : tensor<64x64xf32>")
    compile_ptx(text)


@txl.jit
def _unrolled_tiles(a_ptr, b_ptr, c_ptr, M, N, K):
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [64, 64])
    b_desc = tl.make_tensor_descriptor(b_ptr, [N, K], [K, 1], [64, 64])
    for i in tl.static_range(2):
        x = a_desc.load([0, i * 64])  # unrolled: two desc_load ops, each with its own staging buffer
        if i == 0:
            first = x
    acc = tl.dot(first, b_desc.load([0, 0]).T)
    acc = tl.dot(x, b_desc.load([0, 64]).T, acc)
    tl.store(c_ptr + tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :], acc)


def test_each_unrolled_load_keeps_its_tile_in_its_own_buffer():
    """The first tile of an unrolled loop is not overwritten by the second (one staging buffer per desc_load op),
    so both dots read their A from shared memory, from two different buffers. (A write to the buffer between the
    register copy and the dot makes the dot read the registers: lit test lower-tile-copies.mlir.)"""
    text = ir_of(_unrolled_tiles, GEMM_SIG)
    assert text.count("txl.desc_load") == 4, text
    low = lower_tiles(text)
    assert low.count("txl.smem_alloc {txl.staging} : !txl.smem<64x64xbf16") == 4, low
    dots = [l for l in low.splitlines() if "txl.dot " in l]
    assert len(dots) == 2, low
    a_views = []
    for d in dots:
        assert ": !txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>, !txl.smem" in d, d
        a_views.append(d.split("txl.dot ")[1].split(",")[0])
    allocs = []
    for v in a_views:  # %v = txl.get_buffer %alloc[...]
        allocs.append(re.search(r"%s = txl.get_buffer (%%\d+)\[" % re.escape(v), low).group(1))
    assert allocs[0] != allocs[1], low
    verify(text)
    compile_ptx(text)
