"""The cp.async ring of a Triton-style pointer GEMM copies only what is proven aligned (no GPU needed).

txl-schedule-loops puts a pointer-tile load that feeds a dot into a ring of shared buffers filled by cp.async, which
moves 4, 8 or 16 bytes per instruction and faults ("misaligned address") on a global address not aligned to its
size. The width comes from the AxisInfo analysis that txl-vectorize-accesses also uses: from the jit's ":16"
specialisation (16-byte aligned tensors, ints divisible by 16), through the loop-carried pointers. An fp16 GEMM
with K = 197 has rows 394 bytes apart: its A load keeps no ring (one element per instruction, as Triton does when
fewer than 4 bytes are aligned); with every stride divisible by 16 the copies stay 16 bytes. The kernels are those
of the GPU test (gpu/cp_async_alignment_cases.py)."""

import re
from collections import Counter

from txl.tests.gpu.cp_async_alignment_cases import ptr_gemm, ptr_gemm_const_strides

from .dsl_helpers import compile_ptx, ir_of, run_opt

CONSTS = {"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32, "stride_ak": 1, "stride_bn": 1, "stride_cn": 1}
PTRS = {"a_ptr": "*fp16:16", "b_ptr": "*fp16:16", "c_ptr": "*fp16:16"}
# what the jit passes for A (M, K) @ B (K, N) with K = 197, N = 203: no ":16" on any dimension or row stride
ODD = dict(PTRS, M="i32", N="i32", K="i32", stride_am="i32", stride_bk="i32", stride_cm="i32")
# K = 197, N = 208: B's rows (N elements apart) are 16-byte aligned, A's are not
ODD_K = dict(ODD, N="i32:16", stride_bk="i32:16", stride_cm="i32:16")
ALIGNED = dict(PTRS, M="i32:16", N="i32:16", K="i32:16", stride_am="i32:16", stride_bk="i32:16",
               stride_cm="i32:16")
A_TILE = "tensor<128x32x!txl.ptr<f16>>"  # [BLOCK_M, BLOCK_K]
B_TILE = "tensor<32x64x!txl.ptr<f16>>"  # [BLOCK_K, BLOCK_N]


def _copies(ptx):
    """{(cache, bytes): count} of the cp.async copies in the PTX."""
    return Counter((m.group(1), int(m.group(2)))
                   for m in re.finditer(r"cp\.async\.(c[ag])\.shared\.global \[[^\]]*\], \[[^\]]*\], (\d+)", ptx))


def _scheduled(sig, kernel=ptr_gemm, consts=CONSTS):
    text = ir_of(kernel, sig, consts, num_stages=3)
    return text, run_opt(text, "--txl-fold-dot-add", "--txl-schedule-loops")


def _rings(scheduled):
    """{pointer tile type: contiguity} of every cp.async the pipeliner created, and the pointer tiles still loaded
    with txl.load."""
    rings = {m.group(2): int(m.group(1)) for m in re.finditer(
        r"txl\.async_load .*\{contiguity = (\d+) : i32.*\} : (tensor<[^>]*>>)", scheduled)}
    loads = re.findall(r"= txl\.load %\S+ mask .* : (tensor<[^>]*>>) ->", scheduled)
    return rings, loads


def test_unaligned_rows_get_no_cp_async():
    text, scheduled = _scheduled(ODD)
    assert _rings(scheduled) == ({}, [A_TILE, B_TILE]), scheduled
    ptx, _ = compile_ptx(text)
    assert not _copies(ptx), _copies(ptx)
    assert "ld.global.b16" in ptx and "wgmma.mma_async" in ptx


def test_only_the_unaligned_operand_leaves_the_ring():
    text, scheduled = _scheduled(ODD_K)
    assert _rings(scheduled) == ({B_TILE: 8}, [A_TILE]), scheduled
    assert "txl.async_load_wait 1" in scheduled  # one ring: this iteration's group, the next one's in flight
    ptx, _ = compile_ptx(text)
    # B's copies only: 32 x 64 f16 = 16 per thread, 2 copies, issued from 2 prologue iterations and the loop
    assert _copies(ptx) == {("cg", 16): 6}, _copies(ptx)


def test_aligned_rows_keep_16_byte_copies():
    text, scheduled = _scheduled(ALIGNED)
    assert _rings(scheduled) == ({A_TILE: 8, B_TILE: 8}, []), scheduled
    ptx, _ = compile_ptx(text)
    # A (4 copies per thread) and B (2), 3 times: nothing narrower, nothing plain
    assert _copies(ptx) == {("cg", 16): 18}, _copies(ptx)
    assert "ld.global" not in ptx


def test_narrower_copies_for_rows_aligned_to_8_and_4_bytes():
    sig = dict(PTRS, M="i32", N="i32", K="i32", stride_cm="i32")
    for stride, elems, nbytes in ((196, 4, 8), (198, 2, 4)):
        consts = {"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32, "STRIDE_AM": stride, "STRIDE_BK": 208}
        text, scheduled = _scheduled(sig, ptr_gemm_const_strides, consts)
        # B's columns wrap at N (% N, N of unknown divisibility): B stays a plain load
        assert _rings(scheduled) == ({A_TILE: elems}, [B_TILE]), (stride, scheduled)
        ptx, _ = compile_ptx(text)
        # .ca: .cg exists for 16-byte copies only; A's 32 elements per thread in runs of `elems`, 3 times
        assert _copies(ptx) == {("ca", nbytes): 3 * 32 // elems}, (stride, _copies(ptx))


def test_ptx_assembles():
    """ptxas accepts the narrow copies and the plain loads (skipped without ptxas)."""
    compile_ptx(_scheduled(ODD)[0], emit="cubin")
    consts = {"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32, "STRIDE_AM": 198, "STRIDE_BK": 208}
    sig = dict(PTRS, M="i32", N="i32", K="i32", stride_cm="i32")
    compile_ptx(_scheduled(sig, ptr_gemm_const_strides, consts)[0], emit="cubin")
