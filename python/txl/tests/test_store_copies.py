"""Each element of a tl.store is written once, by one of the threads that hold it (no GPU needed; the GPU test
gpu/test_inplace_gpu.py runs the same cases). A tile smaller than the CTA is held by several warps; when each
stored, Liger-Kernel's in-place qwen2vl_mrope came out wrong (a late warp rotated what an early one had stored)."""

import re

import pytest

from txl.tests.gpu import dsl_cases, inplace_cases

from .dsl_helpers import TXLC, _need


def _ptx(name):
    _need(TXLC)
    case = next(c for c in inplace_cases.CASES if c.name == name)
    _, compiled = dsl_cases.run_case(case, dsl_cases.MetaFactory(), launch=False)
    return compiled.asm["ptx"]


def _stores(ptx):
    return re.findall(r"(@!?%p\d+ )?st\.global(?:\.v\d)?\.b32", ptx)


@pytest.mark.parametrize("name", ["inplace_rotate_2x64", "inplace_rotate_4x32_w8"])
def test_a_tile_held_by_several_warps_is_stored_by_one(name):
    ptx = _ptx(name)
    tid = re.search(r"mov\.u32\s+(%r\d+), %tid\.x;", ptx).group(1)
    # warp 0 holds the whole tile, the other warps only copies: the stores' predicate is tid & ~31 == 0, which
    # LLVM writes as tid < 32 once it knows the block size
    owner = re.search(r"setp\.lt\.u32\s+(%p\d+), " + re.escape(tid) + ", 32;", ptx)
    assert owner, ptx
    stores = _stores(ptx)
    assert stores and all(pred == "@%s " % owner.group(1) for pred in stores), stores


def test_a_tile_without_copies_stores_unpredicated():
    ptx = _ptx("inplace_rotate_16x64")
    stores = _stores(ptx)
    assert stores and not any(pred for pred in stores), stores


@pytest.mark.parametrize("name,threads", [("inplace_increment", 128), ("inplace_increment_w8", 256)])
def test_a_scalar_is_stored_by_one_thread_of_the_role(name, threads):
    # a Triton-style kernel (no thread identities): its scalars are uniform, and thread 0 of the role stores,
    # as Triton does
    ptx = _ptx(name)
    assert ".reqntid %d, 1, 1" % threads in ptx
    tid = re.search(r"mov\.u32\s+(%r\d+), %tid\.x;", ptx).group(1)
    leader = re.search(r"setp\.eq\.b32\s+(%p\d+), " + re.escape(tid) + ", 0;", ptx)
    assert leader, ptx
    stores = _stores(ptx)
    assert stores == ["@%s " % leader.group(1)], stores
