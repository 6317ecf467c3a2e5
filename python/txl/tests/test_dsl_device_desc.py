"""tl.make_tensor_descriptor: TMA descriptors built on the device. The kernel gets a hidden parameter
`txl_global_scratch` (a !txl.ptr<i8> marked txl.global_scratch = bytes per CTA) that the launcher allocates; each
call site has a 128-byte slot per warpgroup and CTA. The GPU side is python/txl/tests/gpu/device_desc_cases.py."""


import pytest

import txl
import txl.language as tl
from txl.compiler.errors import CompilationError
from txl.runtime.launcher import parse_sidecar

from .dsl_helpers import check, compile_ptx, ir_of, verify
from .gpu import device_desc_cases

SIG = {"a_ptr": "*bf16", "out_ptr": "*fp32", "M": "i32", "K": "i32"}


def test_descriptor_ir_and_ptx():
    text = ir_of(device_desc_cases.device_desc_for, SIG, {"BM": 64, "BK": 64})
    # Two call sites x 1 warpgroup x 128 bytes per CTA.
    check(text, r"%txl_global_scratch: !txl.ptr<i8> \{txl.global_scratch = 256 : i64\}\) attributes \{txl.kernel",
          r"txl.warpgroup_id", r"txl.addptr %txl_global_scratch, %\w+ : !txl.ptr<i8>, i64",
          r"%a_desc = txl.make_tensor_descriptor %a_ptr, \[%\w+, %\w+\], \[%\w+, %c1_i64\], %\w+ : !txl.ptr<bf16>, "
          r"!txl.ptr<i8> -> !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>",
          r"%o_desc = txl.make_tensor_descriptor %out_ptr, .* -> !txl.tensordesc<64x64xf32, "
          r"#txl.nvmma_shared<swizzle = 128>>",
          r"scf.for", r"txl.tma_load %a_desc\[", r"txl.tma_store %\w+, %o_desc\[")
    verify(text)
    ptx, _ = compile_ptx(text)
    assert ptx.count("tensormap.replace.tile.global_address") == 2
    assert "fence.proxy.tensormap::generic.acquire.gpu" in ptx


def test_slots_per_warpgroup_and_call_site():
    text = ir_of(device_desc_cases.device_desc_ws, SIG, {"BM": 64, "BK": 64}, num_warps=4, num_warpgroups=3)
    # 2 call sites x 3 warpgroups x 128 bytes.
    check(text, r"\{txl.global_scratch = 768 : i64\}")
    verify(text)


def test_rebuilt_in_a_loop_from_pointer_arithmetic():
    text = ir_of(device_desc_cases.device_desc_batched, dict(SIG, B="i32"), {"BM": 64, "BK": 64})
    check(text, r"\{txl.global_scratch = 256 : i64\}", r"scf.for", r"txl.addptr %a_ptr",
          r"txl.make_tensor_descriptor", r"txl.make_tensor_descriptor", r"scf.for")
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
def _nan_padding(a_ptr, M, K):
    d = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [64, 64], padding_option="nan")


@txl.jit
def _ranks_differ(a_ptr, M, K):
    d = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [64])


@txl.jit
def _not_a_pointer(a_ptr, M, K):
    d = tl.make_tensor_descriptor(M, [M, K], [K, 1], [64, 64])


@pytest.mark.parametrize("fn,message", [
    (_stride_not_one, "the last stride must be the constant 1"),
    (_nan_padding, "padding_option='nan'"),
    (_ranks_differ, "as many sizes, strides and block sizes; got 2, 2 and 1"),
    (_not_a_pointer, "needs a global pointer as base"),
])
def test_errors(fn, message):
    with pytest.raises(CompilationError) as info:
        ir_of(fn, {"a_ptr": "*bf16", "M": "i32", "K": "i32"})
    assert message in info.value.message, info.value.message
    assert info.value.line is not None and info.value.file.endswith("test_dsl_device_desc.py")
