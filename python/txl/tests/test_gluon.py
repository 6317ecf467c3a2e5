"""txl.experimental.gluon on the CPU: Gluon kernels (gpu/gluon_cases.py, every configuration the GPU test runs)
compile to PTX, the layouts they name reach the IR (txl.relayout {txl.layout = L} in the frontend IR, L on the tiles
after txl-assign-layouts), and what txl refuses is a located error."""

import importlib
import re

import pytest

from txl.errors import CompilationError
from txl.experimental import gluon  # noqa: F401
from txl.experimental.gluon import language as gl
from txl.experimental.gluon.language.nvidia import blackwell
from txl.experimental.gluon.language.nvidia.ampere import async_copy as cp
from txl.experimental.gluon.language.nvidia.hopper import mbarrier
from txl.tests.dsl_helpers import check, compile_ptx, ir_of, run_opt
from txl.tests.gpu import gluon_cases as G

BLOCKED_1D = gl.BlockedLayout([4], [32], [4], [0])
ROWS = gl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
COLS = gl.BlockedLayout([4, 1], [8, 4], [1, 4], [0, 1])

# name -> (kernel, signature, constexprs, options): the configurations gpu/test_gluon_gpu.py launches.
CASES = {
    "copy": (G.copy_kernel, {"in_ptr": "*fp32", "out_ptr": "*fp32", "xnumel": "i32"},
             {"XBLOCK": 1024, "layout": BLOCKED_1D}, {}),
    "softmax": (G.row_softmax_kernel, {"x_ptr": "*fp16", "y_ptr": "*fp32", "n_rows": "i32", "n_cols": "i32"},
                {"BM": 16, "BN": 128, "layout": ROWS}, {}),
    "transpose": (G.transpose_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "M": "i32", "N": "i32"},
                  {"BM": 64, "BN": 64, "load_layout": ROWS, "store_layout": COLS}, {}),
    "smem_roundtrip": (G.smem_roundtrip_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32"},
                       {"BM": 32, "BN": 64, "layout": ROWS, "other_layout": COLS}, {}),
    "cp_async": (G.cp_async_add_kernel, {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "xnumel": "i32"},
                 {"XBLOCK": 512, "NBUF": 3, "layout": BLOCKED_1D}, {}),
    "tma_add": (G.tma_add_kernel, {"a_desc": "tensordesc<fp32[32, 64], swizzle=128>",
                                   "b_desc": "tensordesc<fp32[32, 64], swizzle=128>",
                                   "c_desc": "tensordesc<fp32[32, 64], swizzle=128>", "ynumel": "i32"},
                {"XBLOCK": 32, "YBLOCK": 64, "NBUF": 2}, {}),
    "wgmma": (G.wgmma_matmul_kernel, {"a_desc": "tensordesc<fp16[128, 64], swizzle=128>",
                                      "b_desc": "tensordesc<fp16[64, 128], swizzle=128>",
                                      "c_desc": "tensordesc<fp16[128, 128], swizzle=128>", "K": "i32"},
              {"num_warps": 4, "OVERLAP": False}, {}),
    "wgmma_async": (G.wgmma_matmul_kernel, {"a_desc": "tensordesc<fp16[64, 64], swizzle=128>",
                                            "b_desc": "tensordesc<fp16[64, 64], swizzle=128>",
                                            "c_desc": "tensordesc<fp16[64, 64], swizzle=128>", "K": "i32"},
                    {"num_warps": 4, "OVERLAP": True}, {}),
    "wgmma_reg_a": (G.wgmma_reg_a_kernel, {"a_ptr": "*fp16", "b_desc": "tensordesc<fp16[64, 64], swizzle=128>",
                                           "c_ptr": "*fp32"},
                    {"M": 64, "N": 64, "K": 64, "num_warps": 4}, {}),
    "linear": (G.linear_layout_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32"}, {"layout": G.LINEAR_16x16},
               {"num_warps": 1}),
    "ws_add": (G.ws_add_kernel, {"a_desc": "tensordesc<fp32[32, 64], swizzle=128>",
                                 "b_desc": "tensordesc<fp32[32, 64], swizzle=128>", "c_ptr": "*fp32", "ynumel": "i32"},
               {"XBLOCK": 32, "YBLOCK": 64, "NBUF": 3}, {"num_warpgroups": 2}),
}


def _ir(name):
    fn, sig, consts, opts = CASES[name]
    return ir_of(fn, sig, consts, **opts)


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiles_to_cubin(name):
    """Every configuration the GPU test launches compiles through txlc and ptxas, without spills."""
    ptx, err = compile_ptx(_ir(name), emit="cubin")
    assert ".entry" in ptx
    assert "spill" not in err, err


def test_layout_given_in_frontend_ir():
    text = _ir("copy")
    check(text, r"txl\.make_range 0, 1024",
          r"txl\.relayout %\d+ \{txl\.layout = #txl\.blocked<sizePerThread = \[4\], threadsPerWarp = \[32\], "
          r"warpsPerCTA = \[4\], order = \[0\]>\}")


def test_layout_reaches_every_tile():
    """After txl-assign-layouts the load and the store are in the BlockedLayout the kernel named (no other)."""
    out = run_opt(_ir("copy"), "--txl-assign-layouts")
    blocked = "#txl.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>"
    check(out, r"txl\.load .*" + re.escape(blocked), r"txl\.store .*" + re.escape(blocked))
    assert "txl.layout" not in out
    layouts = set(re.findall(r"#txl\.\w+<[^>]*>", out))
    assert layouts == {blocked}, layouts


def test_slice_layouts_and_reductions():
    out = run_opt(_ir("softmax"), "--txl-assign-layouts")
    rows = "#txl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>"
    check(out, re.escape("tensor<16xi32, #txl.slice<dim = 1, parent = %s>>" % rows),
          re.escape("tensor<128xi32, #txl.slice<dim = 0, parent = %s>>" % rows),
          r"txl\.load .*" + re.escape(rows), r"txl\.reduce")
    assert "#txl.blocked<sizePerThread = [1, 1]" not in out  # no default layout anywhere


def test_convert_layout_is_the_one_relayout():
    out = run_opt(_ir("transpose"), "--txl-assign-layouts", "--txl-remove-layout-conversions")
    relayouts = re.findall(r"txl\.relayout .*", out)
    assert len(relayouts) == 1, relayouts
    assert "order = [1, 0]" in relayouts[0] and "order = [0, 1]" in relayouts[0]


def test_wgmma_accumulator_layout():
    out = run_opt(_ir("wgmma"), "--txl-lower-tile-copies", "--txl-assign-layouts")
    check(out, r"txl\.dot .*#txl\.nvmma<version = 3, warpsPerCTA = \[4, 1\]")


def test_register_a_operand_layout():
    out = run_opt(_ir("wgmma_reg_a"), "--txl-lower-tile-copies", "--txl-assign-layouts")
    check(out, r"#txl\.dot_operand<opIdx = 0, parent = #txl\.nvmma<version = 3, warpsPerCTA = \[4, 1\].*kWidth = 2>")


def test_linear_layout():
    out = run_opt(_ir("linear"), "--txl-assign-layouts")
    check(out, re.escape("#txl.linear<register = [[0, 1], [0, 2], [8, 0]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], "
                         "[4, 0]], warp = []>"))


def test_tma_and_mbarriers():
    text = _ir("tma_add")
    check(text, r"txl\.mbar_alloc count 1 : !txl\.mbar<2>")
    check(text, r"txl\.smem_alloc : !txl\.smem<32x64xf32, stages = 2, #txl\.nvmma_shared<swizzle = 128>",
          r"txl\.mbar_expect .*, 16384", r"txl\.tma_load", r"txl\.mbar_wait", r"txl\.smem_load",
          r"txl\.tma_store_wait 0", r"txl\.fence_proxy_async", r"txl\.tma_store")


def test_cp_async_wait_counts():
    """wait_group(NBUF - 1) (NBUF = 3) right after the loop's copy + commit leaves the copies of the 2 groups committed
    last in flight: this iteration's and the previous one's (or the prologue's last, in the first iteration):
    txl.async_load_wait 2 in the loop; the final wait_group(0) waits for all."""
    text = _ir("cp_async")
    check(text, r"scf\.for", r"txl\.async_load", r"txl\.async_load_wait 2", r"txl\.smem_load")
    check(text, r"txl\.async_load_wait 0")


@gluon.jit
def _wait_group_kernel(x_ptr, N: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
    offs = gl.arange(0, 128, layout=layout)
    smem = gl.allocate_shared_memory(gl.float32, [3, 128], gl.SwizzledSharedLayout(1, 1, 1, [0]))
    cp.async_copy_global_to_shared(smem.index(0), x_ptr + offs)
    cp.async_copy_global_to_shared(smem.index(1), x_ptr + offs)
    cp.commit_group()
    cp.async_copy_global_to_shared(smem.index(2), x_ptr + offs)
    cp.commit_group()
    cp.wait_group(N)
    gl.store(x_ptr + offs, smem.index(0).load(layout))


@gluon.jit
def _wait_after_loop_kernel(x_ptr, n_iter):
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
    offs = gl.arange(0, 128, layout=layout)
    smem = gl.allocate_shared_memory(gl.float32, [3, 128], gl.SwizzledSharedLayout(1, 1, 1, [0]))
    cp.async_copy_global_to_shared(smem.index(0), x_ptr + offs)
    cp.commit_group()
    for i in range(n_iter):
        if i % 2 == 0:
            cp.async_copy_global_to_shared(smem.index(1), x_ptr + offs)
        cp.commit_group()
    cp.async_copy_global_to_shared(smem.index(2), x_ptr + offs)
    cp.commit_group()
    cp.wait_group(1)
    gl.store(x_ptr + offs, smem.index(0).load(layout))


def test_wait_group_after_a_loop_of_copies():
    """The copy after the loop (the group committed last) may stay in flight; the loop's groups (a copy or none
    each) and the first one must be complete: async_load_wait 1, not 2 (counting the first copy too would leave
    it in flight when the loop's last group was empty)."""
    check(ir_of(_wait_after_loop_kernel, {"x_ptr": "*fp32", "n_iter": "i32"}), r"txl\.async_load_wait 1\b")


@pytest.mark.parametrize("n,k", [(0, 0), (1, 1), (2, 3), (5, 3)])
def test_wait_group_in_straight_line_code(n, k):
    """Two groups (2 copies, then 1): wait_group(n) leaves the copies of the n groups committed last in flight,
    as txl.async_load_wait k (each txl copy is a group of its own)."""
    text = ir_of(_wait_group_kernel, {"x_ptr": "*fp32"}, {"N": n})
    check(text, r"txl\.async_load_wait %d\b" % k)


def test_mixed_layouts_refused():
    with pytest.raises(Exception) as e:
        compile_ptx(ir_of(G.mixed_layouts_kernel, {"x_ptr": "*i32"}, {"BLOCK": 128}))
    assert "needs layout" in str(e.value) and "gluon_cases.py" in str(e.value)


def test_descriptor_shape_refused():
    @gluon.jit
    def k(a_desc, out):
        gl.store(out, a_desc.shape[0])

    with pytest.raises(CompilationError) as e:
        ir_of(k, {"a_desc": "tensordesc<fp16[64, 64]>", "out": "*i32"})
    msg = str(e.value)
    assert "desc.shape" in msg and "pass the size" in msg and "test_gluon.py" in msg


def test_warp_specialize_partitions_are_warpgroup_roles():
    """Each partition is an `if txl.is_warpgroup([k])` role; the consumer's arrive comes after a barrier of its
    warpgroup (named barrier 8 + 0, 128 threads: every thread is done reading the slot) and is predicated on the
    warpgroup's first thread (Gluon's one arrival per call); no CTA barrier inside a partition."""
    text = _ir("ws_add")
    check(text, r"txl\.is_warpgroup \[0\]", r"scf\.if", r"txl\.mbar_wait", r"txl\.smem_load",
          r"txl\.bar_wait 8, 128", r"txl\.tid",
          r"arith\.remsi .*, %c128", r"txl\.mbar_arrive %\w+ pred", r"txl\.store",
          r"txl\.is_warpgroup \[1\]", r"scf\.if", r"txl\.mbar_wait", r"txl\.mbar_expect", r"txl\.tma_load")
    assert not re.search(r"txl\.bar_wait 0,", text)


def test_warp_specialize_compiles_itself_with_a_warpgroup_per_partition():
    """Compiled with one warpgroup, gl.warp_specialize asks for two (GluonJITFunction compiles again so)."""
    from txl.experimental.gluon.language._core import NeedsWarpgroups
    fn, sig, consts, _ = CASES["ws_add"]
    with pytest.raises(NeedsWarpgroups) as e:
        ir_of(fn, sig, consts)
    assert e.value.n == 2


def test_warp_specialize_code_outside_partitions_refused():
    from txl.experimental.gluon._runtime import check_outside_partitions
    text = ir_of(G.ws_store_outside_kernel, {"x_ptr": "*fp32"}, num_warpgroups=2)
    with pytest.raises(CompilationError) as e:
        check_outside_partitions(text, "ws_store_outside_kernel")
    assert "txl.store outside gl.warp_specialize" in str(e.value) and "gluon_cases.py" in str(e.value)
    check_outside_partitions(_ir("ws_add"), "ws_add_kernel")  # nothing outside its partitions


def test_swizzled_layout_refused():
    @gluon.jit
    def k(x):
        gl.allocate_shared_memory(gl.float32, [64, 64], gl.SwizzledSharedLayout(4, 2, 4, [1, 0]))

    with pytest.raises(CompilationError) as e:
        ir_of(k, {"x": "*fp32"})
    assert "SwizzledSharedLayout(1, 1, 1" in str(e.value)


def test_blackwell_tcgen05_compiles_for_sm100():
    """Blackwell (compile-checked): tensor memory, tcgen05_mma completing on an mbarrier, the accumulator read in
    get_tmem_reg_layout's layout (tcgen05.ld 32x32b), to an sm_100a cubin."""
    text = ir_of(G.tcgen05_matmul_kernel, {"a_desc": "tensordesc<fp16[128, 64], swizzle=128>",
                                           "b_desc": "tensordesc<fp16[64, 128], swizzle=128>", "c_ptr": "*fp32",
                                           "K": "i32"}, {"num_warps": 4}, target="sm_100a")
    check(text, r"txl\.tmem_alloc : !txl\.tmem<128x128xf32", r"txl\.dotx .* use_d %\w+ mbars\(",
          r"txl\.tmem_load", r"txl\.layout = #txl\.blocked<sizePerThread = \[1, 128\], threadsPerWarp = \[32, 1\], "
          r"warpsPerCTA = \[4, 1\], order = \[0, 1\]>")
    ptx, _ = compile_ptx(text, emit="cubin")
    assert "tcgen05.mma" in ptx and "tcgen05.ld" in ptx


def test_blackwell_refusals():
    @gluon.jit
    def k(x):
        bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
        mbarrier.init(bar, count=1)
        blackwell.tcgen05_commit(bar)

    with pytest.raises(CompilationError) as e:
        ir_of(k, {"x": "*fp32"}, target="sm_100a")
    assert "mbarriers=[barrier]" in str(e.value)
    with pytest.raises(CompilationError) as e:
        ir_of(_no_tmem_layout, {"x": "*fp32"}, target="sm_100a")
    assert "TensorMemoryLayout" in str(e.value)
    with pytest.raises(ValueError):
        blackwell.get_tmem_reg_layout(gl.float32, [64, 64], blackwell.TensorMemoryLayout([64, 64]), 4)


@gluon.jit
def _no_tmem_layout(x):
    blackwell.allocate_tensor_memory(gl.float32, [128, 128], None)


def test_layout_rank_checked():
    @gluon.jit
    def k(x):
        gl.arange(0, 64, layout=gl.BlockedLayout([1, 1], [4, 8], [4, 1], [1, 0]))

    with pytest.raises(CompilationError) as e:
        ir_of(k, {"x": "*fp32"})
    assert "rank 2" in str(e.value)


@pytest.mark.parametrize("module,names", [
    ("txl.experimental.gluon", ["jit", "constexpr_function", "language", "must_use_result"]),
    ("txl.experimental.gluon.language", ["BlockedLayout", "SliceLayout", "SwizzledSharedLayout", "NVMMASharedLayout",
                                         "DistributedLinearLayout", "NVMMADistributedLayout", "DotOperandLayout",
                                         "allocate_shared_memory", "arange", "full", "zeros", "zeros_like", "load",
                                         "store", "convert_layout", "reduce", "sum", "max", "where", "exp", "exp2",
                                         "log", "log2", "rsqrt", "maximum", "minimum", "static_range", "program_id",
                                         "num_programs", "constexpr", "float32", "int64", "extra",
                                         "warp_specialize", "thread_barrier"]),
    ("txl.experimental.gluon.language.nvidia.hopper", ["tma", "mbarrier", "fence_async_shared", "warpgroup_mma",
                                                       "warpgroup_mma_wait"]),
    ("txl.experimental.gluon.language.nvidia.ampere.async_copy", ["async_copy_global_to_shared", "commit_group",
                                                                  "wait_group"]),
    ("txl.experimental.gluon.nvidia.hopper", ["TensorDescriptor"]),
])
def test_names(module, names):
    m = importlib.import_module(module)
    for n in names:
        assert getattr(m, n) is not None, n
    assert m.__name__ == module


def test_extra_libdevice():
    from txl.experimental.gluon.language import extra
    assert callable(extra.libdevice.fast_expf) and callable(extra.libdevice.tanh)


def _ops(text, *names):
    """The kernel's ops among ``names``, in order (bar_wait 0 = a CTA barrier)."""
    pat = re.compile(r"\b(%s)\b" % "|".join(re.escape(n) for n in names))
    return [m.group(1) for line in text.splitlines() for m in [pat.search(line.split(" loc(")[0])] if m]


def test_barrier_between_store_and_load_of_other_threads():
    """smem.store then smem.load in another layout: other threads read what one wrote, so a CTA barrier sits
    between them (Gluon's compiler puts one there; the kernel writes none)."""
    assert _ops(_ir("smem_roundtrip"), "txl.smem_store", "txl.bar_wait", "txl.smem_load") == \
        ["txl.smem_store", "txl.bar_wait", "txl.smem_load", "txl.smem_load"]


def test_no_barrier_without_shared_memory():
    assert "txl.bar_wait" not in _ir("copy") and "txl.bar_wait" not in _ir("softmax")


def test_barriers_of_the_tma_pipeline():
    """In the loop: a barrier before the TMA refill of a slot other threads read in the previous iteration, none
    between the mbarrier wait and the reads of TMA-written data (the wait makes them visible), one before the
    store into the output buffer (the previous iteration's TMA store read it) and one before the TMA store of
    what all threads wrote."""
    ops = _ops(_ir("tma_add"), "scf.for", "txl.tma_load", "txl.mbar_wait", "txl.smem_load", "txl.smem_store",
               "txl.tma_store", "txl.bar_wait")
    loop = ops[ops.index("scf.for"):]
    assert loop == ["scf.for", "txl.bar_wait", "txl.tma_load", "txl.tma_load", "txl.mbar_wait", "txl.smem_load",
                    "txl.smem_load", "txl.bar_wait", "txl.smem_store", "txl.bar_wait", "txl.tma_store"], loop


def test_nvmma_default_swizzle_is_tritons():
    """gl.NVMMASharedLayout.get_default_for picks Triton's swizzle: none for a rank-1 tile or fewer than 8 rows
    (tutorial 04's 1-D TMA memcpy: one 1 KiB copy, not eight 128-byte boxes), else the largest of 128/64/32 bytes
    that the inner dimension fills."""
    d = gl.NVMMASharedLayout.get_default_for
    assert d([256], gl.float32).swizzle_byte_width == 0
    assert d([4, 64], gl.float32).swizzle_byte_width == 0
    assert d([8, 64], gl.float32).swizzle_byte_width == 128
    assert d([64, 32], gl.float16).swizzle_byte_width == 64
    assert d([64, 16], gl.float16).swizzle_byte_width == 32
    assert d([64, 8], gl.float16).swizzle_byte_width == 0
    assert d([64, 128], gl.float16, transposed=True).swizzle_byte_width == 128


@gluon.jit
def _pipelined_cp_kernel(x_ptr, y_ptr, n_iter, NBUF: gl.constexpr, PRO: gl.constexpr):
    """Tutorial 03's elementwise_add_pipelined shape: PRO prologue groups, then per iteration two copies, a commit
    and wait_group(NBUF - 1), then NBUF - 1 epilogue waits."""
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
    offs = gl.arange(0, 128, layout=layout)
    a = gl.allocate_shared_memory(gl.float32, [NBUF, 128], gl.SwizzledSharedLayout(1, 1, 1, [0]))
    b = gl.allocate_shared_memory(gl.float32, [NBUF, 128], gl.SwizzledSharedLayout(1, 1, 1, [0]))
    for i in gl.static_range(PRO):
        cp.async_copy_global_to_shared(a.index(i % NBUF), x_ptr + offs)
        cp.async_copy_global_to_shared(b.index(i % NBUF), x_ptr + offs)
        cp.commit_group()
    for i in range(n_iter):
        cp.async_copy_global_to_shared(a.index((i + PRO) % NBUF), x_ptr + offs)
        cp.async_copy_global_to_shared(b.index((i + PRO) % NBUF), x_ptr + offs)
        cp.commit_group()
        cp.wait_group(NBUF - 1)
        gl.store(y_ptr + offs, a.index(i % NBUF).load(layout) + b.index(i % NBUF).load(layout))
    for i in gl.static_range(NBUF - 1):
        cp.wait_group(NBUF - 2 - i)
        gl.store(y_ptr + offs, a.index(i).load(layout))


@pytest.mark.parametrize("nbuf,pro,loop_k,epilogue", [(2, 1, 2, [0]), (3, 2, 4, [2, 0]), (4, 3, 6, [4, 2, 0]),
                                                      (3, 1, 4, [2, 0]), (3, 0, 2, [0, 0])])
def test_wait_group_through_loop_iterations(nbuf, pro, loop_k, epilogue):
    """wait_group in a loop body counts the groups of the previous iterations and, for the first iteration, of the
    code before the loop (the fewest copies over both paths); a wait after the loop walks its last iteration (or,
    with no iteration, the code before it). Tutorial 03's 3-buffer pipeline keeps 2 groups (4 copies) in flight
    in the loop, as in Triton (it waited as a 2-buffer one: async_load_wait 2). With fewer prologue groups than
    NBUF - 1 the first iteration bounds it: 1 prologue group + this iteration's = 4 copies; none: 2 (and after
    the loop 0: with no iteration, nothing was copied)."""
    text = ir_of(_pipelined_cp_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "n_iter": "i32"},
                 {"NBUF": nbuf, "PRO": pro})
    check(text, r"scf\.for", r"txl\.async_load_wait %d\b" % loop_k, *[r"txl\.async_load_wait %d\b" % k
                                                                      for k in epilogue])
    waits = [int(w) for w in re.findall(r"txl\.async_load_wait (\d+)", text)]
    assert waits == [loop_k] + epilogue, waits
