"""compute-sanitizer target for the attention backward kernels: one backward per head dim (64, 128, 256) at a tiny
causal GQA shape with N not a multiple of the block, so every kernel path (masks, masked epilogue, dQ reduce-adds,
the hd256 hand-over) runs once; then the same at an MQA group of 8 (the query-head split: partial dK/dV and the
combine), and the asymmetric-head-dim kernel (192 / 128, plain and split).

    compute-sanitizer --tool racecheck --racecheck-report hazard python3 python/txl/tests/gpu/attention_bwd_racecheck.py

Last run on the H100: "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)" (docs/attention-backward.md).
"""

import torch

import txl


def main():
    torch.manual_seed(0)
    for d in (64, 128, 256):
        q = torch.randn(1, 2, 200, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        k = torch.randn(1, 1, 200, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        v = torch.randn(1, 1, 200, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        txl.ops.flash_attention(q, k, v, causal=True).sum().backward()
        torch.cuda.synchronize()
        print("head dim %d: backward ran" % d, flush=True)
    for d in (64, 128, 256):
        q = torch.randn(1, 8, 200, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        k = torch.randn(1, 1, 200, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        v = torch.randn(1, 1, 200, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        txl.ops.flash_attention(q, k, v, causal=True).sum().backward()
        torch.cuda.synchronize()
        print("head dim %d, 8 query heads per kv head (split): backward ran" % d, flush=True)
    _asym()


def _asym():
    # flash_attention_bwd_asym through _attention_bwd.backward, with o and M from float32 torch (whatever the
    # forward supports): MHA (no split) and MQA 8 (split), causal, N = 200.
    import math

    from txl.ops import _attention_bwd as AB

    for h, hk in ((2, 2), (8, 1)):
        q = torch.randn(1, h, 200, 192, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(1, hk, 200, 192, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(1, hk, 200, 128, device="cuda", dtype=torch.bfloat16)
        s = (q.float() @ k.float().repeat_interleave(h // hk, 1).transpose(-1, -2)) * 192 ** -0.5
        s = s.masked_fill(torch.ones(200, 200, dtype=torch.bool, device="cuda").triu(1), float("-inf"))
        o = (torch.softmax(s, -1) @ v.float().repeat_interleave(h // hk, 1)).to(q.dtype)
        m = torch.zeros(h, 256, device="cuda")
        m[:, :200] = (torch.logsumexp(s, -1) / math.log(2)).reshape(h, 200)
        AB.backward(torch.randn_like(o), q, k, v, o, m, True, 192 ** -0.5)
        torch.cuda.synchronize()
        print("head dims 192 / 128, %d query heads per kv head: backward ran" % (h // hk), flush=True)


if __name__ == "__main__":
    main()
