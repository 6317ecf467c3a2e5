"""Shared-memory reuse is synced (regression test for a race found by fla's GLA backward).

txl-smem-allocs lets two top-level buffers share bytes when their live ranges do not overlap in program order.
Warps are not in step, though: in fla's `chunk_gla_bwd_kernel_dv` at num_warps=2, num_stages=2, the cp.async ring
of a vector loaded in the loop was placed on the bytes of the relayout scratch that the fp32 `tl.dot` before the
loop reads its result through. A fast warp's prologue cp.async overwrote row 0 of that scratch while the other warp
was still reading it, so row 0 of the output was sometimes wrong (H200: 128 of 4.2 M elements in one run of four).
The pass now syncs the CTA before the first access of a buffer that took the bytes of a dead one (unless a sync
already sits between, or the first access syncs itself, as a relayout does).

The kernel below has the same shape, written for this test: a full-precision dot whose result is relayouted just
before a pipelined loop that loads a vector per iteration. The check reads the PTX: every cp.async that follows
shared-memory loads has a bar.sync between them. The GPU test (gpu/test_smem_reuse_sync_gpu.py) runs it.
"""
import re

import pytest

import txl
import txl.language as tl

from .dsl_helpers import TXLC, _need


@txl.jit
def reuse_kernel(A, X, Kt, G, H, Out, BT: tl.constexpr, BK: tl.constexpr, D: tl.constexpr):
    c = tl.program_id(0)
    r = tl.arange(0, BT)
    d = tl.arange(0, D)
    a = tl.load(A + c * BT * BT + r[:, None] * BT + r[None, :])
    x = tl.load(X + c * BT * D + r[:, None] * D + d[None, :])
    acc = tl.dot(a, x.to(tl.float32), allow_tf32=False)
    for i in range(D // BK):
        kk = i * BK + tl.arange(0, BK)
        g = tl.load(G + c * D + kk)
        kt = tl.load(Kt + c * BT * D + r[:, None] * D + kk[None, :])
        h = tl.load(H + c * D * D + kk[:, None] * D + d[None, :])
        kt = (kt * tl.exp2(g)[None, :]).to(tl.bfloat16)
        acc = tl.dot(kt, h.to(tl.bfloat16), acc)
    tl.store(Out + c * BT * D + r[:, None] * D + d[None, :], acc)


SIG = {"A": "*fp32", "X": "*bf16", "Kt": "*bf16", "G": "*fp32", "H": "*fp32", "Out": "*fp32"}


def unsynced_async_copies(ptx):
    """cp.async instructions reached from a shared-memory read (ld.shared, ldmatrix) with no bar.sync in between
    (straight-line PTX order)."""
    bad, pending = [], False
    for n, line in enumerate(ptx.splitlines(), 1):
        s = line.strip()
        if s.startswith("ld.shared") or s.startswith("ldmatrix"):
            pending = True
        elif s.startswith("bar.sync") or s.startswith("barrier.sync"):
            pending = False
        elif s.startswith("cp.async.ca") or s.startswith("cp.async.cg"):
            if pending:
                bad.append(n)
            pending = False
        elif re.match(r"^\$L__\w+:", s):
            pending = False  # a loop head: the pipeliner's own barriers order the ring inside the loop
    return bad


@pytest.mark.parametrize("num_warps", [2, 4])
def test_ring_after_relayout_is_synced(num_warps):
    _need(TXLC)
    k = txl.compile(reuse_kernel, signature=SIG, constexprs={"BT": 64, "BK": 32, "D": 64}, num_warps=num_warps,
                    num_stages=2, use_cache=False)
    ptx = k.asm["ptx"]
    assert "cp.async" in ptx, "the loop's loads are expected to be a cp.async ring"
    assert unsynced_async_copies(ptx) == [], "cp.async after shared loads with no bar.sync between"
