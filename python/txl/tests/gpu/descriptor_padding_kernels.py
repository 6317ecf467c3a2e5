"""Kernels of the descriptor-padding tests (test_descriptor_padding_cpu.py, gpu/test_descriptor_padding_gpu.py):
a tile copy through a host descriptor argument and one through a device-built descriptor."""

import txl
import txl.language as tl


@txl.jit
def tile_copy(in_desc, out_ptr, BM: tl.constexpr, BN: tl.constexpr):
    """Copies the (BM, BN) tile at (program_id * BM, 0) of ``in_desc`` to out (row-major BM x BN per program)."""
    pid = tl.program_id(0)
    x = in_desc.load([pid * BM, 0])
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    tl.store(out_ptr + pid * BM * BN + rm[:, None] * BN + rn[None, :], x)


@txl.jit
def device_desc_copy(in_ptr, out_ptr, M, BM: tl.constexpr, BN: tl.constexpr, NAN: tl.constexpr):
    """The same through tl.make_tensor_descriptor over an (M, BN) row-major tensor, padded with NaN or zero."""
    desc = tl.make_tensor_descriptor(in_ptr, [M, BN], [BN, 1], [BM, BN], padding_option="nan" if NAN else "zero")
    pid = tl.program_id(0)
    x = desc.load([pid * BM, 0])
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    tl.store(out_ptr + pid * BM * BN + rm[:, None] * BN + rn[None, :], x)
