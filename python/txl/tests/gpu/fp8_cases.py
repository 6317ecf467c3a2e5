"""Tiles converted to and from fp8 (float8e4nv = torch.float8_e4m3fn, float8e5 = torch.float8_e5m2): f32 -> fp8
with cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 (round to nearest even, saturated to the largest finite value, as
Triton), fp8 -> f16 / f32 with cvt.rn.f16x2.{e4m3x2,e5m2x2} (exact). Shared by test_fp8_gpu.py (bytes and values
against torch's own conversions) and the CPU test test_fp8.py (the PTX)."""

import txl
import txl.language as tl


@txl.jit
def fp8_roundtrip(x_ptr, y_ptr, z_ptr, n, E4: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    f8 = x.to(tl.float8e4nv) if E4 else x.to(tl.float8e5)
    tl.store(y_ptr + offs, f8, mask=m)
    tl.store(z_ptr + offs, f8.to(tl.float32), mask=m)


SIG = {True: {"x_ptr": "*fp32", "y_ptr": "*fp8e4nv", "z_ptr": "*fp32", "n": "i32"},
       False: {"x_ptr": "*fp32", "y_ptr": "*fp8e5", "z_ptr": "*fp32", "n": "i32"}}
