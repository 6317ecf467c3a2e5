"""Vector addition: the smallest txl kernel (z = x + y), one BLOCK-element tile per program."""

import txl
import txl.language as tl


@txl.jit
def vector_add(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    tl.store(z_ptr + offs, x + y, mask=mask)


SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "z_ptr": "*fp32", "n": "i32"}
CONSTEXPRS = {"BLOCK": 1024}
