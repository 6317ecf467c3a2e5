"""num_warps means warps per copy of the body (Triton's warps per CTA when num_warpgroups is 1): 8 gives two
warpgroups that split each dot's M (no GPU needed; the GPU test runs the same cases, gpu/num_warps8_cases.py).

The frontend marks such a kernel ``txl.role_warps = 8``. The compiler then treats the 256 threads as one role: one
TMA issuer (tid % 256 == 0), named barrier 1 over 256 threads before a TMA store and around the copy rings, one
descriptor slot per CTA, and wgmma accumulators whose two warpgroups each compute every other 64-row block."""

import re

import pytest

import txl
import txl.language as tl
from txl.tests.gpu import dsl_cases, num_warps8_cases, small_warps_cases
from txl.tests.gpu.cp_async_alignment_cases import ptr_gemm

from .dsl_helpers import TXLC, _need, compile_ptx, ir_of, run_opt


def _compiled(case):
    _need(TXLC)
    _, compiled = dsl_cases.run_case(case, dsl_cases.MetaFactory(), launch=False)
    return compiled


@pytest.mark.parametrize("case", num_warps8_cases.CASES, ids=lambda c: c.name)
def test_num_warps8_cases_compile_to_one_role_of_256_threads(case):
    ptx = _compiled(case).asm["ptx"]
    assert ".reqntid 256, 1, 1" in ptx
    # every named barrier waits for the 256 threads of the role; none for a single warpgroup
    named = re.findall(r"bar\.sync \t?(\S+), (\d+);", ptx)
    assert all(count == "256" for _, count in named), named
    # wgmma: each warpgroup issues m64 instructions for its own blocks only
    assert re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k16", ptx)
    assert "wgmma.wait_group" in ptx


def test_tma_issue_and_descriptor_slot_belong_to_the_role():
    case = next(c for c in num_warps8_cases.CASES if c.name == "nw8_device_desc_gemm")
    ptx = _compiled(case).asm["ptx"]
    # the leader predicate tid % 256 == 0 is tid == 0 once LLVM knows the block has 256 threads; a leader per
    # warpgroup (tid % 128 == 0) would write the descriptor and issue each copy twice
    tid = re.search(r"mov\.u32\s+(%r\d+), %tid\.x;", ptx).group(1)
    assert re.search(r"setp\.eq\.b32\s+%p\d+, " + re.escape(tid) + ", 0;", ptx)
    assert not re.search(r"(rem\.u32\s+%r\d+, %r\d+, 128;|and\.b32\s+%r\d+, %r\d+, 127;)", ptx)
    # the descriptors' scratch slot is the role's (warpgroup 0's), not txl.warpgroup_id()'s: txl-global-scratch
    # reads the role from txl.role_warps (getRoleWarps); the frontend names no slot
    from txl.tests.gpu.device_desc_cases import device_desc_gemm
    text = ir_of(device_desc_gemm, {"a_ptr": "*bf16:16", "b_ptr": "*bf16:16", "c_ptr": "*fp32:16", "M": "i32:16",
                                    "N": "i32:16", "K": "i32:16"}, {"BM": 128, "BN": 128, "BK": 64}, num_warps=8)
    assert "txl.role_warps = 8" in text and "txl.warpgroup_id" not in text and "txl.global_scratch" not in text
    slots = run_opt(text, "--txl-global-scratch")
    # 3 sites (a, b, c) x 2 warpgroups x 128 bytes; every slot at warpgroup 0
    assert "{txl.global_scratch = 768 : i64}" in slots and "txl.warpgroup_id" not in slots
    wg = re.findall(r"= arith.constant 0 : i32\n\s*%\S+ = arith.extsi %\S+ : i32 to i64\n\s*%\S+ = arith.addi %c", slots)
    assert len(wg) == slots.count("txl.make_tensor_descriptor") == 3, slots
    # with a role per warpgroup (num_warps=4, 2 warpgroups) each warpgroup has its own slot
    ws = run_opt(ir_of(device_desc_gemm, {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32", "M": "i32",
                                          "N": "i32", "K": "i32"}, {"BM": 64, "BN": 64, "BK": 64},
                       num_warpgroups=2), "--txl-global-scratch")
    assert "{txl.global_scratch = 768 : i64}" in ws and ws.count("txl.warpgroup_id") == 3, ws


def test_num_warps8_marks_the_role_in_the_ir():
    text = ir_of(ptr_gemm, {"a_ptr": "*fp16:16", "b_ptr": "*fp16:16", "c_ptr": "*fp16:16", "M": "i32:16",
                            "N": "i32:16", "K": "i32:16", "stride_am": "i32:16", "stride_bk": "i32:16",
                            "stride_cm": "i32:16"},
                 {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "stride_ak": 1, "stride_bn": 1, "stride_cn": 1},
                 num_warps=8, num_stages=3)
    assert "txl.num_warps = 8 : i32, txl.role_warps = 8 : i32" in text
    four = ir_of(ptr_gemm, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32",
                            "K": "i32", "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"},
                 {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "stride_ak": 1, "stride_bn": 1, "stride_cn": 1})
    assert "txl.role_warps" not in four


def _refused(kernel, match, **options):
    with pytest.raises(Exception, match=match) as e:
        ir_of(kernel, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
                       "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"},
              {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "stride_ak": 1, "stride_bn": 1, "stride_cn": 1},
              **options)
    assert "cp_async_alignment_cases.py" in str(e.value)  # at the kernel's own file
    return str(e.value)


def test_num_warps_that_are_neither_small_nor_whole_warpgroups_are_refused():
    _refused(ptr_gemm, r"num_warps=6: txl takes 1, 2 or whole warpgroups \(a multiple of 4 up to 32\)", num_warps=6)


@pytest.mark.parametrize("case", small_warps_cases.CASES, ids=lambda c: c.name)
def test_num_warps_1_and_2_run_on_32_or_64_threads(case):
    warps = case.build(dsl_cases.MetaFactory())["kwargs"]["num_warps"]
    ptx = _compiled(case).asm["ptx"]
    assert ".reqntid %d, 1, 1" % (32 * warps) in ptx
    assert "wgmma" not in ptx and "setmaxnreg" not in ptx
    if "dot" in case.name:  # a warpgroup MMA needs 4 warps: mma.sync
        assert re.search(r"mma\.sync\.aligned\.m16n8k16", ptx)
    # a barrier waits for the CTA's threads at most (bar.sync 0 is the whole CTA)
    assert all(int(count) <= 32 * warps for count in re.findall(r"bar\.sync \t?\S+, (\d+);", ptx))


def test_warpgroup_roles_need_a_warpgroup():
    with pytest.raises(Exception, match=r"num_warps=2: txl.warpgroup_id\(\) / is_warpgroup / is_warp give whole "
                                        r"warpgroups roles") as e:
        ir_of(_warpgroup_rows, {"x_ptr": "*fp32"}, {}, num_warps=2)
    assert "test_num_warps.py" in str(e.value)


@txl.jit
def _warpgroup_rows(x_ptr):
    wg = txl.warpgroup_id()
    offs = wg * 128 + tl.arange(0, 128)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1.0)


def test_kernels_with_warpgroup_roles_keep_one_role_per_warpgroup():
    # txl.warpgroup_id() gives each warpgroup its own work (TXL's meaning): no txl.role_warps
    text = ir_of(_warpgroup_rows, {"x_ptr": "*fp32"}, {}, num_warps=8)
    assert "txl.num_warps = 8 : i32" in text and "txl.role_warps" not in text


@pytest.mark.parametrize("case", num_warps8_cases.ROLE_CASES, ids=lambda c: c.name)
def test_num_warps8_with_roles_stores_every_row_of_each_warpgroup(case):
    # 1024 fp32 per warpgroup of 128 threads: 8 values per thread, as 2 v4 stores (or 8 scalar ones). With the
    # layouts spanning 8 warps, each thread stored 4 and half of every warpgroup's rows were never written.
    ptx = _compiled(case).asm["ptx"]
    assert ".reqntid 256, 1, 1" in ptx
    stores = re.findall(r"st\.global(?:\.v(\d))?\.(?:f32|b32)", ptx)
    assert sum(int(v or 1) for v in stores) == 8, stores
    loads = re.findall(r"ld\.global(?:\.nc)?(?:\.v(\d))?\.(?:f32|b32)", ptx)
    assert sum(int(v or 1) for v in loads) == 8, loads


def test_num_warps8_with_warp_specialization_is_refused():
    _refused(ptr_gemm, r"num_warps=8 with num_warpgroups=2: warp-specialized kernels run one warpgroup",
             num_warps=8, num_warpgroups=2)


def test_a_scalar_atomic_runs_once_per_role_of_8_warps():
    # Triton's tutorial 05 takes a spin lock with tl.atomic_cas; an owner per warpgroup took it twice per CTA and
    # hung at the next bar.sync (the GPU test, gpu/test_spin_lock_gpu.py, runs this kernel)
    from txl.tests.gpu.spin_lock_child import locked_sum
    text = ir_of(locked_sum, {"x_ptr": "*fp32", "lock_ptr": "*i32", "total_ptr": "*fp32", "n": "i32"},
                 {"BLOCK": 1024}, num_warps=8)
    ptx, _ = compile_ptx(text)
    assert ".reqntid 256, 1, 1" in ptx
    cas = re.search(r"@(%p\d+) atom\.acq_rel\.gpu\.global\.cas\.b32", ptx)
    assert cas and len(re.findall(r"atom\.[a-z_.]*\.cas", ptx)) == 1, ptx
    # its owner is thread 0 of the 256 (tid & 255 == 0 is tid == 0 once LLVM knows the block size), never one
    # thread per warpgroup (tid & 127)
    tid = re.search(r"mov\.u32\s+(%r\d+), %tid\.x;", ptx).group(1)
    assert re.search(r"setp\.eq\.b32\s+" + re.escape(cas.group(1)) + ", " + re.escape(tid) + ", 0;", ptx), ptx
    assert not re.search(r"and\.b32\s+%r\d+, %r\d+, 127;", ptx)
