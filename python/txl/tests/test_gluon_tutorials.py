"""Triton's Gluon tutorials for Hopper (copies in the git-ignored .ext/gluon, see bench/gluon.py) compiled by txl on
the CPU with their import lines swapped and nothing else changed: every kernel at the configurations the tutorials'
own tests and benchmarks launch compiles through txlc and ptxas, and what txl refuses is a located error (the
refusals are listed here, each with the reason docs/gluon.md gives)."""

import os
import re

import pytest

from txl.errors import CompilationError
from txl.experimental.gluon import language as gl
from txl.experimental.gluon._runtime import descriptor_shapes
from txl.tests.dsl_helpers import compile_ptx, ir_of
from txl.tests.test_gluon_fla import BENCH, load_kernels_of

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
TUTORIALS = os.path.join(REPO, ".ext", "gluon")
TUTORIAL_NAMES = BENCH.TUTORIAL_FILES

SW = gl.SwizzledSharedLayout(vec=1, per_phase=1, max_phase=1, order=[1, 0])
STRIDES = {n: "i32" for n in ("xstride_a", "ystride_a", "xstride_b", "ystride_b", "xstride_c", "ystride_c")}
ADD_SIG = dict({"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "xnumel": "i32", "ynumel": "i32"}, **STRIDES)
PTRS = {"in_ptr": "*fp32", "out_ptr": "*fp32", "xnumel": "i32"}


def _desc(dtype, shape):
    layout = gl.NVMMASharedLayout.get_default_for(shape, {"fp16": gl.float16, "fp32": gl.float32}[dtype])
    return "tensordesc<%s[%s], swizzle=%d>" % (dtype, ", ".join(map(str, shape)), layout.swizzle_byte_width)


def _cases():
    cases = [
        ("01-intro", "copy_scalar_kernel", {"in_ptr": "*fp32", "out_ptr": "*fp32"}, {}, 1),
        ("01-intro", "memcpy_kernel", PTRS, {"XBLOCK": 64}, 1),
        ("02-layouts", "memcpy_1d_kernel", PTRS, {"XBLOCK": 2048, "layout": gl.BlockedLayout([4], [32], [4], [0])}, 4),
        ("03-async-copy", "memcpy_1d_cpasync_kernel", PTRS, {"XBLOCK": 256}, 4),
        ("03-async-copy", "elementwise_add_kernel", ADD_SIG, {"XBLOCK": 32, "YBLOCK": 64}, 4),
        ("03-async-copy", "elementwise_add_cpasync_kernel", ADD_SIG,
         {"XBLOCK": 128, "YBLOCK": 128, "smem_layout": SW}, 4),
        ("04-tma", "memcpy_1d_tma_kernel", {"in_desc": _desc("fp32", [64]), "out_desc": _desc("fp32", [64])},
         {"XBLOCK": 64}, 1),
    ]
    for nb in (1, 2, 3):
        cases.append(("03-async-copy", "elementwise_add_pipelined_kernel", ADD_SIG,
                      {"XBLOCK": 32, "YBLOCK": 64, "smem_layout": SW, "num_buffers": nb}, 4))
        d = _desc("fp32", [32, 64])
        cases.append(("04-tma", "elementwise_add_tma_kernel",
                      {"a_desc": d, "b_desc": d, "c_desc": d, "xnumel": "i32", "ynumel": "i32"},
                      {"XBLOCK": 32, "YBLOCK": 64, "num_buffers": nb}, 4))
    for m, n, k in ((64, 32, 32), (64, 256, 128)):
        for lhs in (False, True):
            for instr_n in (16, 64):
                if instr_n > n:
                    continue
                cases.append(("05-wgmma", "small_mma_kernel",
                              {"a_desc": _desc("fp16", [m, k]), "b_desc": _desc("fp16", [k, n]),
                               "c_desc": _desc("fp32", [m, n]), "d_desc": _desc("fp32", [m, n])},
                              {"LHS_IN_REG": lhs, "INSTR_SHAPE_N": instr_n, "num_warps": 4}, 4))
    # bench/gluon.py's configurations
    cases += [
        ("03-async-copy", "memcpy_1d_cpasync_kernel", PTRS, {"XBLOCK": 8192}, 4),
        ("03-async-copy", "elementwise_add_cpasync_kernel", ADD_SIG, {"XBLOCK": 32, "YBLOCK": 64, "smem_layout": SW},
         4),
        ("04-tma", "memcpy_1d_tma_kernel", {"in_desc": _desc("fp32", [256]), "out_desc": _desc("fp32", [256])},
         {"XBLOCK": 256}, 1),
        ("04-tma", "elementwise_add_tma_kernel", {"a_desc": _desc("fp32", [64, 128]), "b_desc": _desc("fp32", [64, 128]),
                                                  "c_desc": _desc("fp32", [64, 128]), "xnumel": "i32",
                                                  "ynumel": "i32"},
         {"XBLOCK": 64, "YBLOCK": 128, "num_buffers": 3}, 4),
    ]
    for lhs in (False, True):
        cases.append(("05-wgmma", "small_mma_kernel",
                      {"a_desc": _desc("fp16", [64, 128]), "b_desc": _desc("fp16", [128, 128]),
                       "c_desc": _desc("fp32", [64, 128]), "d_desc": _desc("fp32", [64, 128])},
                      {"LHS_IN_REG": lhs, "INSTR_SHAPE_N": 64, "num_warps": 4}, 4))
    for tb in (False, True):
        for overlap in (False, True):
            cases.append(("05-wgmma", "blocked_mma_kernel",
                          {"a_desc": _desc("fp16", [128, 64]), "b_desc": _desc("fp16", [128, 64] if tb else [64, 128]),
                           "c_desc": _desc("fp32", [128, 128])},
                          {"TRANSPOSE_B": tb, "OVERLAP_MMA": overlap, "num_warps": 4}, 4,
                          {"a_desc": (4096, 4096), "b_desc": (4096, 4096), "c_desc": (4096, 4096)}))
    # blocked_mma_kernel reads K = a_desc.shape[1]: compiled with the descriptors' global shapes, as a launch does
    for (m, n, k), (bm, bn, bk), tb, overlap, warps in (
            ((208, 416, 304), (64, 64, 64), False, False, 4), ((208, 416, 304), (128, 128, 128), True, True, 4),
            ((2000, 1000, 2000), (128, 128, 128), False, True, 8), ((2000, 1000, 2000), (64, 64, 64), True, False, 4)):
        b_block = [bn, bk] if tb else [bk, bn]
        cases.append(("05-wgmma", "blocked_mma_kernel",
                      {"a_desc": _desc("fp16", [bm, bk]), "b_desc": _desc("fp16", b_block),
                       "c_desc": _desc("fp32", [bm, bn])},
                      {"TRANSPOSE_B": tb, "OVERLAP_MMA": overlap, "num_warps": warps}, warps,
                      {"a_desc": (m, k), "b_desc": (n, k) if tb else (k, n), "c_desc": (m, n)}))
    return cases


def _load(name, tmp_path):
    path = os.path.join(TUTORIALS, name + ".py")
    if not os.path.exists(path):
        pytest.skip("the Gluon tutorials are not in .ext/gluon (bench/gluon.py says where they come from)")
    return load_kernels_of(path, name, tmp_path)


@pytest.mark.parametrize("case", _cases(), ids=lambda c: "%s:%s:%s%s" % (c[0], c[1], "-".join(
    "%s" % v for k, v in sorted(c[3].items()) if k not in ("layout", "smem_layout")),
    ":" + "x".join(map(str, c[5]["c_desc"])) if len(c) > 5 else ""))
def test_tutorial_kernel_compiles(case, tmp_path):
    name, kernel, sig, consts, warps = case[:5]
    fn = getattr(_load(name, tmp_path), kernel)
    with descriptor_shapes(case[5] if len(case) > 5 else {}):
        text = ir_of(fn, sig, consts, num_warps=warps)
    ptx, err = compile_ptx(text, emit="cubin")
    assert ".entry" in ptx
    spills = "spill" in err
    print("SPILLS" if spills else "no spills", kernel, err.strip()[-200:] if spills else "")


# Tutorial kernels (and configurations) txl refuses, at the kernel's line, with the reason.
REFUSED = [
    # desc.shape without the launch's descriptors (txl.compile with a signature): not in the CUtensorMap.
    ("05-wgmma", "blocked_mma_kernel",
     {"a_desc": _desc("fp16", [128, 128]), "b_desc": _desc("fp16", [128, 128]), "c_desc": _desc("fp32", [128, 128])},
     {"TRANSPOSE_B": False, "OVERLAP_MMA": True, "num_warps": 4}, 4, "K = a_desc.shape[1]"),
    # wgmma with 8 warps on a 64-row tile: Gluon's layout spreads 8 warps over M ([8, 1], rows repeated); txl's
    # warpgroups each take 64 rows of M, and a 64-row tile on 8 warps runs on mma.sync, whose layout is not the
    # one the kernel named: refused where the layouts meet.
    ("05-wgmma", "small_mma_kernel",
     {"a_desc": _desc("fp16", [64, 32]), "b_desc": _desc("fp16", [32, 32]), "c_desc": _desc("fp32", [64, 32]),
      "d_desc": _desc("fp32", [64, 32])}, {"LHS_IN_REG": False, "INSTR_SHAPE_N": 16, "num_warps": 8}, 8,
     "already placed in #txl.nvmma<version = 3, warpsPerCTA = [8, 1]"),
]


@pytest.mark.parametrize("case", REFUSED, ids=lambda c: c[1])
def test_tutorial_kernel_refused(case, tmp_path):
    name, kernel, sig, consts, warps, why = case
    fn = getattr(_load(name, tmp_path), kernel)
    with pytest.raises(Exception) as e:
        compile_ptx(ir_of(fn, sig, consts, num_warps=warps))
    assert why in str(e.value), str(e.value)
    assert isinstance(e.value, CompilationError) or "txlc failed" in str(e.value)


@pytest.mark.parametrize("name", TUTORIAL_NAMES)
def test_tutorial_sources_swap(name):
    """Every import of triton in the tutorials has a swap rule (bench/gluon.py prints them)."""
    path = os.path.join(TUTORIALS, name + ".py")
    if not os.path.exists(path):
        pytest.skip("the Gluon tutorials are not in .ext/gluon")
    with open(path) as f:
        src, changes = BENCH.swap_source(f.read(), name)
    assert changes
    assert not re.search(r"^\s*(from|import)\s+triton\b", src, re.M)
