"""Register-tile reshaping (tl.trans / .T / permute, tl.reshape / view, tl.split, tl.join, tl.interleave) and tl.dot
with B in registers. The reshaping builtins emit txl.trans / txl.reshape / txl.split / txl.join, which move no
data (layout assignment renames the source layout's coordinates). tl.dot with a register B is one txl.dot on the
register tiles; txl-lower-tile-copies stages B through a shared-memory buffer of its own (sync, smem_store,
fence.proxy.async, sync) and keeps that dot synchronous, unless the loop pipeliner (num_stages >= 2) already put the
tiles in cp.async rings. The GPU side is python/txl/tests/gpu/tile_ops_cases.py."""

import pytest

import txl
import txl.language as tl
from txl.errors import CompilationError

from .dsl_helpers import check, check_not, compile_ptx, ir_of, lower_copies, lower_tiles, run_opt, verify
from .gpu import tile_ops_cases


def _ok(text):
    verify(text)
    ptx, _ = compile_ptx(text)
    return ptx


def test_renames_ir_and_ptx():
    text = ir_of(tile_ops_cases.tile_renames, {"x_ptr": "*fp32", "y_ptr": "*fp32", "z_ptr": "*fp32",
                                               "w_ptr": "*fp32", "v_ptr": "*fp32"}, {"M": 64, "N": 32})
    check(text,
          r"txl.trans %x, \[1, 0\] : tensor<64x32xf32> -> tensor<32x64xf32>",
          r"txl.reshape %x : tensor<64x32xf32> -> tensor<64x16x2xf32>",
          r"%a, %b = txl.split %\w+ : tensor<64x16x2xf32> -> tensor<64x16xf32>",
          r"txl.join %b, %\w+ : tensor<64x16xf32> -> tensor<64x16x2xf32>",
          r"txl.reshape %\w+ : tensor<64x16x2xf32> -> tensor<64x32xf32>",
          r"txl.reshape %x : tensor<64x32xf32> -> tensor<4x16x32xf32>",
          r"txl.trans %\w+, \[2, 0, 1\] : tensor<4x16x32xf32> -> tensor<32x4x16xf32>",
          r"txl.reshape %\w+ : tensor<32x4x16xf32> -> tensor<2048xf32>",
          r"txl.join %\w+, %x : tensor<64x32xf32> -> tensor<64x32x2xf32>",
          r"txl.trans %\w+, \[2, 0, 1\] : tensor<64x32x2xf32> -> tensor<2x64x32xf32>",
          r"txl.reshape %\w+ : tensor<2x64x32xf32> -> tensor<128x32xf32>")
    ptx = _ok(text)
    assert ".entry tile_renames" in ptx


def test_method_forms_and_identity():
    @txl.jit
    def k(x_ptr):
        x = tl.load(x_ptr + tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :])
        y = x.reshape(4096).reshape([64, 64]).permute(1, 0).trans()  # back to x's shape and order
        a, b = x.reshape(64, 32, 2).split()
        z = x.trans(0, 1) + tl.view(y, (64, 64)) + tl.join(a, b).reshape(64, 64)
        tl.store(x_ptr + tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :], z)

    text = ir_of(k, {"x_ptr": "*bf16"})
    check(text, r"txl.reshape %x : tensor<64x64xbf16> -> tensor<4096xbf16>",
          r"txl.trans %\w+, \[1, 0\]", r"txl.trans %\w+, \[1, 0\]", r"txl.split", r"txl.join")
    # x.trans(0, 1) is the identity: no op.
    assert text.count("txl.trans") == 2, text
    _ok(text)


DOT_REGS_SIG = {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32", "K": "i32"}
DOT_REGS = {"BM": 64, "BN": 64, "BK": 64, "B_KN": False}
SMEM = r"!txl.smem<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>"


def test_dot_with_b_in_registers():
    text = ir_of(tile_ops_cases.dot_regs, DOT_REGS_SIG, DOT_REGS, num_stages=1)
    # the frontend: the dot on the register tiles, as written
    check(text, r"%a = txl.load", r"%bt = txl.load", r"%(?P<t>\w+) = txl.trans %bt, \[1, 0\]",
          r"txl.dot %a, %[[t]], %acc\w* : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>", r"scf.yield")
    check_not(text, r"txl.smem_alloc", r"txl.smem_store", r"txl.bar_wait", r"txl.fence_proxy_async")
    # txl-lower-tile-copies: B through a staging buffer allocated at the top (A stays in registers: RS wgmma)
    low = lower_copies(text)
    head = low.split("scf.for")[0]
    check(head, r"%(?P<buf>\d+) = txl.smem_alloc \{txl.staging\} : !txl.smem<64x64xbf16, stages = 1, "
                r"#txl.nvmma_shared<swizzle = 128>>")
    check(low, r"%(?P<a>\d+) = txl.load", r"%(?P<bt>\d+) = txl.load", r"%(?P<t>\d+) = txl.trans %[[bt]], \[1, 0\]",
          r"%(?P<v>\d+) = txl.get_buffer %(?P<buf>\d+)\[", r"txl.bar_wait 0, 128",
          r"txl.smem_store %[[t]], %[[v]] : tensor<64x64xbf16>, " + SMEM,
          r"txl.fence_proxy_async", r"txl.bar_wait 0, 128",
          r"txl.dot %[[a]], %[[v]], %arg\d+ : tensor<64x64xbf16>, " + SMEM + r", tensor<64x64xf32>",
          r"scf.yield")
    check_not(low, r"\{async\}", r"txl.dot_wait")  # the staged dot stays synchronous
    ptx = _ok(text)
    assert "wgmma.mma_async" in ptx and "fence.proxy.async" in ptx


def test_dot_with_register_operands_in_a_pipelined_loop():
    """Triton's default num_stages=3: the pointer loads that feed the dot become cp.async copies into rings of 3
    slots issued 2 iterations ahead; the dot reads both rings (SS wgmma, B through a transposed view) and stays
    async; nothing is staged. With txl-schedule-loops pointer-loads=false they stay register loads and B is
    staged for the dot every iteration, as with num_stages=1. The operands are 16-byte aligned rows (what the jit
    specialises for aligned tensors and K % 16 == 0): a cp.async copy needs a proven alignment."""
    sig = dict(DOT_REGS_SIG, a_ptr="*bf16:16", b_ptr="*bf16:16", K="i32:16")
    text = ir_of(tile_ops_cases.dot_regs, sig, DOT_REGS)
    check(text, r"txl.dot %a, %\w+, %acc\w* : tensor<64x64xbf16>, tensor<64x64xbf16>", r"txl.num_stages = 3 : i32")
    ring = lower_tiles(text)
    assert ring.count("txl.smem_alloc {txl.ring} : !txl.smem<64x64xbf16, stages = 3, ") == 2, ring
    check_not(ring, r"txl.staging", r"txl.smem_store", r"txl.trans ")
    check(ring, r"txl.async_load ", r"txl.async_load ", r"scf.for", r"txl.async_load_wait 2", r"txl.fence_proxy_async",
          r"txl.bar_wait 0, 128", r"%(?P<v>\d+) = txl.smem_trans %\d+ \[1, 0\]",
          r"txl.dot %\d+, %[[v]], %arg\d+ \{async\} : " + SMEM, r"txl.dot_wait 1", r"txl.bar_wait 0, 128",
          r"txl.async_load .* mask", r"txl.async_load .* mask", r"scf.yield", r"txl.dot_wait 0, %\d+")
    ptx = _ok(text)
    assert "wgmma.mma_async" in ptx and "cp.async" in ptx
    low = run_opt(text, "--txl-fold-dot-add", "--txl-schedule-loops=pointer-loads=false", "--txl-expand-loops",
                  "--txl-lower-tile-copies")
    check_not(low, r"txl.ring", r"txl.async_load", r"\{async\}")
    check(low, r"txl.smem_alloc \{txl.staging\} : !txl.smem<64x64xbf16, stages = 1", r"scf.for", r"txl.smem_store",
          r"txl.fence_proxy_async", r"txl.dot %\d+, %\d+, %arg\d+ : tensor<64x64xbf16>, " + SMEM)


def test_dot_with_b_in_registers_per_warpgroup_stage():
    @txl.jit
    def k(a_ptr, b_ptr, c_ptr):
        if txl.is_warpgroup([0]):
            txl.reg_dealloc(40)
        if txl.is_warpgroup([1, 2]):
            r = tl.arange(0, 64)
            offs = r[:, None] * 64 + r[None, :]
            a = tl.load(a_ptr + offs)
            b = tl.load(b_ptr + offs)
            tl.store(c_ptr + offs + (txl.warpgroup_id() - 1) * 4096, tl.dot(a, b))

    text = ir_of(k, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32"}, num_warps=4, num_warpgroups=3)
    check(text, r"txl.is_warpgroup \[1, 2\]", r"%b = txl.load",
          r"txl.dot %a, %b, %\w+ : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>")
    check_not(text, r"txl.smem_alloc", r"txl.smem_store")
    low = lower_tiles(text)
    check(low.split("scf.if")[0], r"txl.smem_alloc \{txl.staging\} : !txl.smem<64x64xf16, stages = 2")
    # the stage of this warpgroup (warpgroup_id - 1) right before the staging store
    check(low, r"txl.is_warpgroup \[1, 2\]", r"%(?P<a>\d+) = txl.load %\d+ : tensor<64x64x!txl.ptr<f16>>",
          r"%(?P<b>\d+) = txl.load %\d+ : tensor<64x64x!txl.ptr<f16>>",
          r"%(?P<wg>\d+) = txl.warpgroup_id\n\s*(?P<one>%c1_i32\w*) = arith.constant 1 : i32\n"
          r"\s*%(?P<st>\d+) = arith.subi %[[wg]], [[one]] : i32\n"
          r"\s*%(?P<v>\d+) = txl.get_buffer %\d+\[%[[st]]\] : !txl.smem<64x64xf16, stages = 2",
          r"txl.tma_store_wait 0", r"txl.smem_store %[[b]], %[[v]]",
          r"txl.fence_proxy_async", r"txl.tma_store_wait 0", r"txl.dot %[[a]], %[[v]], ")
    check_not(low, r"txl.bar_wait 0")  # barrier 0 would wait for warpgroup 0, which never comes
    _ok(text)


@txl.jit
def _bad_perm(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :])
    y = tl.permute(x, (0, 0))


@txl.jit
def _bad_reshape(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 64))
    y = tl.reshape(x, [8, 16])


@txl.jit
def _bad_split(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 64))
    a, b = tl.split(x)


@txl.jit
def _bad_dot_b(a_ptr, b_ptr):
    r = tl.arange(0, 64)
    a = tl.load(a_ptr + r[:, None] * 64 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 64 + r[None, :])
    c = tl.dot(a, b)


@pytest.mark.parametrize("fn,sig,message,fix", [
    (_bad_perm, {"x_ptr": "*fp32"}, "needs a permutation of [0, 1], got [0, 0]", None),
    (_bad_reshape, {"x_ptr": "*fp32"}, "cannot reshape a [64] tile (64 elements) to [8, 16]", None),
    (_bad_split, {"x_ptr": "*fp32"}, "tl.split needs a tile whose last dimension has size 2", "tl.reshape"),
    (_bad_dot_b, {"a_ptr": "*i32", "b_ptr": "*i32"}, "wgmma takes 16-bit or fp8 operands", ".to(tl.bfloat16)"),
])
def test_errors(fn, sig, message, fix):
    with pytest.raises(CompilationError) as info:
        ir_of(fn, sig)
    e = info.value
    assert message in e.message, e.message
    assert e.line is not None and e.file.endswith("test_dsl_tile_ops.py")
    if fix:
        assert fix in (e.fix or ""), e.fix


ARG_SIG = {"x_ptr": "*fp32", "q_ptr": "*i32", "amax_ptr": "*i32", "amin_ptr": "*i32", "cmax_ptr": "*fp32",
           "cidx_ptr": "*i32", "lmax_ptr": "*i32"}


def test_arg_reductions_ir_and_ptx():
    text = ir_of(tile_ops_cases.arg_reductions, ARG_SIG, {"M": 64, "N": 64})
    # argmax: (values, column indices) reduced together; ties keep the smaller index.
    check(text, r"txl.reduce %x, %\w+ axis 1 : \(tensor<64x64xf32>, tensor<64x64xi32>\) -> "
                r"\(tensor<64xf32>, tensor<64xi32>\)",
          r"arith.cmpf ogt", r"arith.cmpf oeq", r"arith.cmpi slt", r"arith.ori", r"txl.reduce_return",
          r"arith.cmpf olt",  # argmin
          r"%cm, %ci = txl.reduce %x, %\w+ axis 0",  # tl.max(axis=0, return_indices=True)
          r"arith.cmpi sgt, %x1\w*, %x0", r"arith.cmpi sgt, %i1\w*, %i0")  # integer argmax, last index on ties
    _ok(text)


@txl.jit
def _argmax_2d_no_axis(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :])
    i = tl.argmax(x, None)


def test_argmax_of_a_2d_tile_needs_an_axis():
    with pytest.raises(CompilationError) as info:
        ir_of(_argmax_2d_no_axis, {"x_ptr": "*fp32"})
    assert "tl.argmax of a 2-D tile needs an axis" in info.value.message


@txl.jit
def _warp_argmax(x_ptr, o_ptr):
    x = tl.load(x_ptr + tl.arange(0, 64)[:, None] * 32 + tl.arange(0, 32)[None, :])
    m, i = txl.warp_max(x, axis=1, return_indices=True)
    tl.store(o_ptr + tl.arange(0, 64), i)


def test_warp_max_with_indices():
    text = ir_of(_warp_argmax, {"x_ptr": "*fp32", "o_ptr": "*i32"})
    check(text, r"%m, %i = txl.reduce %x, %\w+ axis 1 : \(tensor<64x32xf32>, tensor<64x32xi32>\)")
    _ok(text)
