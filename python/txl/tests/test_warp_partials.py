"""TXL's per-warp partial reductions on the CPU (issue 32 item 8): txl.warp_max / txl.warp_sum leave one value per
warp (txl.warp_reduce), txl.frag_smem_store / frag_smem_load under a layout of fewer threads than the CTA exchange
them (txl.slot_store / txl.slot_load), with TXL's barriers; the kernels of gpu/warp_partials_cases.py compile to
PTX; the user's mistakes are errors at their line; and TXL's own 04-softmax kernels compile when a copy of TXL's
tutorials is at hand (.ext/txl-tutorials, git-ignored; docs/txl-tutorials.md says how to get it; else skipped).
The results are checked against torch by gpu/test_warp_partials_gpu.py."""

import ast
import importlib.util
import inspect
import os
import re

import pytest

import txl
import txl.language as tl
from txl.compiler import compiler as C
from txl.errors import CompilationError
from txl.tests.gpu import warp_partials_cases as K

from .dsl_helpers import REPO, check, check_not, ir_of

THIS = __file__.replace(".pyc", ".py")
ROWS = {"output_ptr": "*fp32", "input_ptr": "*fp32", "input_row_stride": "i32", "output_row_stride": "i32",
        "n_rows": "i32", "n_cols": "i32"}


def _need_txlc():
    if C.find_txlc() is None:  # pragma: no cover
        pytest.skip("txlc is not built")


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TXL_CACHE_DIR", str(tmp_path / "cache"))
    for v in ("TXL_TXLC", "TXL_DUMP_IR", "TXL_KEEP_TEMPS", "TXL_DEBUG_HANGS"):
        monkeypatch.delenv(v, raising=False)


def _line_of(fn, text):
    with open(THIS) as f:
        lines = f.read().splitlines()
    for i in range(fn.starting_line_number - 1, len(lines)):
        if text in lines[i]:
            return i + 1
    raise AssertionError("%r not in %s" % (text, fn.__name__))


def _error(fn, sig=None, consts=None, **opts):
    with pytest.raises(CompilationError) as info:
        ir_of(fn, sig or {}, consts or {}, **opts)
    e = info.value
    assert e.file == THIS, str(e)
    assert "internal error" not in str(e), str(e)
    return e


# ---------------------------------------------------------------------------------------------------------------
# The IR the frontend writes
# ---------------------------------------------------------------------------------------------------------------
def test_tile_partial_is_a_warp_reduce_and_slots_take_the_layouts_bases():
    text = ir_of(K.online_softmax, ROWS, {"BLOCK_SIZE": 1024, "num_warps": 4})
    check(text,
          r"%cur_max = txl.warp_reduce %row : \(tensor<1024xf32>\) -> f32", r"arith.maxnumf",
          r"%cur_denom = txl.warp_reduce %numerator : \(tensor<1024xf32>\) -> f32", r"arith.addf",
          # a barrier before each slot store (the previous row's readers), one element per warp
          r"txl.bar_wait 0, 128",
          r"txl.slot_store %cur_max, %max_smem \{laneBases = array<i64>, warpBases = array<i64: 1, 2>\}",
          r"txl.bar_wait 0, 128",
          r"txl.slot_store %cur_denom, %sum_smem",
          # lanes 0..3 read the 4 slots, every warp the same ones (warp bases past the buffer are copies)
          r"%warp_max = txl.slot_load %max_smem other %\w+ \{laneBases = array<i64: 1, 2>, "
          r"warpBases = array<i64: 0, 0>\} : !txl.smem<4xf32> -> f32",
          # sum_smem was written after the last barrier: one more before its read
          r"txl.bar_wait 0, 128", r"%warp_denom = txl.slot_load %sum_smem",
          r"%all_max = txl.warp_reduce %warp_max : \(f32\) -> f32",
          r"txl.warp_reduce %\w+ : \(f32\) -> f32")
    check_not(text, r"txl.reduce ")


def test_no_barrier_inside_a_thread_dependent_if_and_one_before_the_read_after_it():
    text = ir_of(K.broadcast_softmax, ROWS, {"BLOCK_SIZE": 1024, "num_warps": 4})
    # layout_all_reduce has one warp: warps 1..3 get `other`; layout_sum is thread 0 only
    check(text, r"txl.slot_load %reduction_smem other %\w+ \{laneBases = array<i64: 1, 2>, warpBases = array<i64>\}")
    m = re.search(r'"scf.if".*?txl.slot_store %all_max, %scalar_smem \{laneBases = array<i64>, '
                  r'warpBases = array<i64>\}.*?\}\) : \(i1\) -> \(\)', text, re.S)
    assert m and "bar_wait" not in m.group(0), text
    check(text, r"txl.slot_store %all_max", r"txl.bar_wait 0, 128", r"txl.smem_load %scalar_smem")


def test_cluster_partials_cover_the_ctas_share_and_cross_by_st_async():
    text = ir_of(K.cluster_softmax, ROWS, {"BLOCK_SIZE": 1024, "num_warps": 4}, num_ctas=2)
    # CTA r reduces elements [512 r, 512 r + 512) (TXL splits the tile over the cluster), the others count as -inf / 0
    check(text, r"arith.constant dense<512> : tensor<1024xi32>", r"arith.divsi %\w+, %\w+ : tensor<1024xi32>",
          r"txl.cta_rank", r"arith.cmpi eq, .* : tensor<1024xi32>",
          r'"arith.select"\(%\w+, %row, %\w+\) : \(tensor<1024xi1>, tensor<1024xf32>', r"%cur_max = txl.warp_reduce")
    # the per-CTA shape of the buffer (cta_split_num=[2]) gives the bases; the remote stores carry the barrier
    check(text, r"txl.slot_store %cur_max, %max_smem \{laneBases = array<i64>, warpBases = array<i64: 1, 2>\} : "
                r"f32, !txl.smem<8xf32>",
          r"txl.slot_store %cur_max, %max_smem1 mbar %mbar \{laneBases = array<i64>, "
          r"warpBases = array<i64: 1, 2>, ctaId = 1 : i32\}")
    assert text.count("mbar %mbar") == 4


def test_a_rank2_tile_along_an_axis_stays_a_complete_reduction():
    @txl.jit
    def rows(X, Y):
        x = tl.load(X + tl.arange(0, 64)[:, None] * 128 + tl.arange(0, 128)[None, :])
        tl.store(Y + tl.arange(0, 64), txl.warp_max(x, axis=1))

    text = ir_of(rows, {"X": "*fp32", "Y": "*fp32"})
    check(text, r"txl.reduce %\w+ axis 1")
    check_not(text, r"txl.warp_reduce")


def test_axis_none_flattens_and_return_indices_is_a_partial_argmax():
    @txl.jit
    def flat(X, Y, I):
        x = tl.load(X + tl.arange(0, 16)[:, None] * 64 + tl.arange(0, 64)[None, :])
        m = txl.warp_max(x)
        v, i = txl.warp_max(tl.load(X + tl.arange(0, 256)), axis=0, return_indices=True)
        tl.store(Y, m + v)
        tl.store(I, i)

    text = ir_of(flat, {"X": "*fp32", "Y": "*fp32", "I": "*i32"})
    check(text, r"txl.reshape .* -> tensor<1024xf32>", r"txl.warp_reduce %\w+ : \(tensor<1024xf32>\) -> f32",
          r"txl.warp_reduce %\w+, %\w+ : \(tensor<256xf32>, tensor<256xi32>\) -> \(f32, i32\)")


# ---------------------------------------------------------------------------------------------------------------
# The cases compile to PTX
# ---------------------------------------------------------------------------------------------------------------
CASES = [
    ("lane_partials", K.lane_partials, {"OUT": "*fp32"}, {"num_warps": 4}, {}),
    ("tile_partials", K.tile_partials, {"X": "*fp32", "OUT": "*fp32"}, {"BLOCK": 4096, "num_warps": 4}, {}),
    ("online_softmax", K.online_softmax, ROWS, {"BLOCK_SIZE": 1024, "num_warps": 4}, {}),
    ("online_softmax_8warps", K.online_softmax, ROWS, {"BLOCK_SIZE": 2048, "num_warps": 8}, {"num_warps": 8}),
    ("broadcast_softmax", K.broadcast_softmax, ROWS, {"BLOCK_SIZE": 1024, "num_warps": 4}, {}),
    ("cluster_softmax", K.cluster_softmax, ROWS, {"BLOCK_SIZE": 4096, "num_warps": 4}, {"num_ctas": 2}),
]


@pytest.mark.parametrize("name, fn, sig, consts, opts", CASES, ids=[c[0] for c in CASES])
def test_cases_compile(private_cache, name, fn, sig, consts, opts):
    _need_txlc()
    k = txl.compile(fn, sig, consts, **opts)
    ptx = k.asm["ptx"]
    assert "shfl.sync.bfly" in ptx
    if name == "cluster_softmax":
        assert "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32" in ptx
        assert "mapa" in ptx


def test_tile_partial_shuffles_only_its_lanes_and_never_crosses_warps(private_cache):
    # A 1024-element f32 tile over 4 warps (4 per thread, 32 lanes): 5 lane steps per partial, no shared-memory
    # exchange and no barrier for the reductions themselves (the only barriers are the slots' own).
    _need_txlc()
    k = txl.compile(K.tile_partials, {"X": "*fp32", "OUT": "*fp32"}, {"BLOCK": 1024, "num_warps": 4})
    ptx = k.asm["ptx"]
    assert ptx.count("shfl.sync.bfly") == 10, ptx
    assert ptx.count("bar.sync") == 3, ptx  # before each slot store, before the reads of the last one's buffer


# ---------------------------------------------------------------------------------------------------------------
# Mistakes: errors at the user's line
# ---------------------------------------------------------------------------------------------------------------
@txl.jit
def _store_without_layout(X):
    buf = txl.get_buffer(txl.smem_alloc([4], dtype=tl.float32), 0)
    txl.frag_smem_store(buf, txl.warp_max(tl.load(X + tl.arange(0, 512)), axis=0))


@txl.jit
def _layout_of_two_per_thread(X):
    buf = txl.get_buffer(txl.smem_alloc([8], dtype=tl.float32), 0)
    two: tl.constexpr = txl.BlockedLayout(size_per_thread=[2], threads_per_warp=[1], warps_per_cta=[4], order=[0])
    txl.frag_smem_store(buf, txl.warp_max(tl.load(X + tl.arange(0, 512)), axis=0), two)


@txl.jit
def _store_wrong_dtype(X):
    buf = txl.get_buffer(txl.smem_alloc([4], dtype=tl.float16), 0)
    one: tl.constexpr = txl.BlockedLayout(size_per_thread=[1], threads_per_warp=[1], warps_per_cta=[4], order=[0])
    txl.frag_smem_store(buf, txl.warp_max(tl.load(X + tl.arange(0, 512)), axis=0), one)


@txl.jit
def _load_without_other(X):
    buf = txl.get_buffer(txl.smem_alloc([4], dtype=tl.float32), 0)
    lanes: tl.constexpr = txl.BlockedLayout(size_per_thread=[1], threads_per_warp=[4], warps_per_cta=[4], order=[0])
    v = txl.frag_smem_load(buf, [128], lanes)
    tl.store(X, txl.warp_max(v, axis=0))


@txl.jit
def _read_in_branch(X):
    buf = txl.get_buffer(txl.smem_alloc([4], dtype=tl.float32), 0)
    one: tl.constexpr = txl.BlockedLayout(size_per_thread=[1], threads_per_warp=[1], warps_per_cta=[4], order=[0])
    lanes: tl.constexpr = txl.BlockedLayout(size_per_thread=[1], threads_per_warp=[4], warps_per_cta=[4], order=[0])
    txl.frag_smem_store(buf, txl.warp_max(tl.load(X + tl.arange(0, 512)), axis=0), one)
    if txl.tid(0) < 32:
        v = txl.frag_smem_load(buf, [128], lanes, 0.0)
        tl.store(X, txl.warp_max(v, axis=0))


@txl.jit
def _bad_axis(X):
    tl.store(X, txl.warp_sum(tl.load(X + tl.arange(0, 512)), axis=1))


@pytest.mark.parametrize("fn, marker, expect", [
    (_store_without_layout, "txl.frag_smem_store(", "needs the `layout` that says which element each thread writes"),
    (_layout_of_two_per_thread, "txl.frag_smem_store(", "the layout gives each thread several elements"),
    (_store_wrong_dtype, "txl.frag_smem_store(", "the value is f32 but the buffer holds f16"),
    (_load_without_other, "txl.frag_smem_load(", "the layout covers 4 lanes and 4 warps, not every thread"),
    (_read_in_branch, "txl.frag_smem_load(", "with no barrier since, inside a run-time `if`"),
    (_bad_axis, "txl.warp_sum(", "axis 1 is out of range for a 1-D tile"),
])
def test_mistakes_are_located(fn, marker, expect):
    e = _error(fn, {"X": "*fp32"})
    assert e.line == _line_of(fn, marker), str(e)
    assert expect in e.message, str(e)


# ---------------------------------------------------------------------------------------------------------------
# TXL's own 04-softmax kernels (its source is not in this repository)
# ---------------------------------------------------------------------------------------------------------------
def _tutorial_04():
    root = os.environ.get("TXL_TUTORIALS", os.path.join(REPO, ".ext", "txl-tutorials"))
    path = os.path.join(root, "04-softmax.py")
    if not os.path.exists(path):
        pytest.skip("TXL's tutorials are not at %s (docs/txl-tutorials.md: Getting the files)" % root)
    return path


@pytest.fixture(scope="module")
def tutorial_04(tmp_path_factory):
    """TXL's 04-softmax kernels with TXL's import lines swapped for txl's (bench/txl_tutorials.py's table): the
    @txl.jit functions and the module constants they read, in a file of their own (the rest of the tutorial needs a
    GPU and CuTe-DSL at import)."""
    path = _tutorial_04()
    with open(path) as f:
        src = f.read()
    tree = ast.parse(src)
    keep = ["import math", "import txl", "import txl.language as tl"]
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(
                "jit" in ast.get_source_segment(src, d) for d in node.decorator_list):
            keep.append(ast.get_source_segment(src, node))
    out = tmp_path_factory.mktemp("txl04") / "txl_04_softmax.py"
    out.write_text("\n\n".join(keep) + "\n")
    spec = importlib.util.spec_from_file_location("txl_04_softmax", str(out))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


TUTORIAL_KERNELS = [  # the seven refused before (issue 32 item 8), then the two that passed already
    ("softmax_kernel_txl", 1), ("softmax_kernel_txl2", 1), ("online_softmax_kernel_txl", 1),
    ("cluster_softmax_kernel", 2), ("cluster_softmax_small_kernel", 2), ("frag_smem_store_test", 2),
    ("frag_smem_store_test2", 2), ("softmax_kernel", 1), ("reduce_test", 2),
]


@pytest.mark.parametrize("name, ctas", TUTORIAL_KERNELS, ids=[k for k, _ in TUTORIAL_KERNELS])
def test_txl_tutorial_04_kernels_compile(tutorial_04, private_cache, name, ctas):
    _need_txlc()
    k = getattr(tutorial_04, name)
    sig = dict(ROWS, output_ptr="*bf16", input_ptr="*bf16")
    params = list(inspect.signature(getattr(k, "fn", k)).parameters)
    consts = {"BLOCK_SIZE": 32768, "LOG2_E": 1.4426950408889634, "num_stages": 1, "num_warps": 4, "num_ctas": ctas}
    consts = {n: v for n, v in consts.items() if n in params}
    kw = {"num_ctas": ctas} if ctas > 1 else {}
    compiled = txl.compile(k, sig, consts, num_warps=4, **kw)
    assert ".entry" in compiled.asm["ptx"]
