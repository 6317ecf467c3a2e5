"""Smoke test of an installed txl wheel on a GPU host: run it outside any checkout, with only the wheel installed
(no TXL_TXLC, no build/). A DSL kernel and txl.ops.flash_attention (forward + backward) JIT-compile with the
wheel's own txlc and match float32 torch on fresh random inputs.

    pip install --no-deps dist/txl-*.whl && cd /tmp && python3 /path/to/scripts/wheel-smoke.py
    (on the lent GPU: `bash scripts/gpu-run.sh wheel`, carrying ["dist"])

Last run on the H100 (2026-11-23, session 10): "WHEEL OK"; relative errors against float32 SDPA of o, dq, dk, dv
2.0e-3, 2.4e-3, 2.4e-3, 2.3e-3.
"""
import os

import torch

import txl
import txl.language as tl
from txl.compiler.compiler import find_txlc

txlc = find_txlc() or ""
print("txl", txl.__version__, "from", os.path.dirname(txl.__file__), "txlc", txlc)
assert "TXL_TXLC" not in os.environ, "run without TXL_TXLC: the wheel's txlc must be found"
assert txlc.startswith(os.path.dirname(txl.__file__)) and txlc.endswith("/_bin/txlc"), txlc


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
assert torch.equal(z, x + y), "vector add differs from torch"
print("vector add: equal to torch")

q, k, v = (torch.randn(1, 4, 1000, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
o = txl.ops.flash_attention(q, k, v, causal=True)
do = torch.randn_like(o)
o.backward(do)
q32, k32, v32 = (t.detach().float().requires_grad_() for t in (q, k, v))
ref = torch.nn.functional.scaled_dot_product_attention(q32, k32, v32, is_causal=True)
ref.backward(do.float())


def rel(a, b):
    return ((a.float() - b).norm() / b.norm()).item()


errs = {"o": rel(o, ref), "dq": rel(q.grad, q32.grad), "dk": rel(k.grad, k32.grad), "dv": rel(v.grad, v32.grad)}
print("flash_attention causal (1, 4, 1000, 128) bf16, relative errors vs float32:",
      ", ".join("%s %.2e" % kv for kv in errs.items()))
assert all(e < 2e-2 for e in errs.values()), errs
print("WHEEL OK")
