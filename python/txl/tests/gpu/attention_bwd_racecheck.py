"""compute-sanitizer target for the attention backward kernels: one backward per head dim (64, 128, 256) at a tiny
causal GQA shape with N not a multiple of the block, so every kernel path (masks, masked epilogue, dQ reduce-adds,
the hd256 hand-over) runs once.

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


if __name__ == "__main__":
    main()
