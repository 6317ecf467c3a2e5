"""Host time against GPU kernel time per call of the attention variants (torch.profiler over 20 calls), at
(2, 16, 4096, 128) bf16: shows which calls are bound by the host launch path. Run on a GPU host with
PYTHONPATH=python: ``python3 bench/attention_host_time.py``."""
import time

import torch
from torch.profiler import ProfilerActivity, profile

import txl.ops as ops
torch.manual_seed(0)
B, H, N, D = 2, 16, 4096, 128
q, k, v = (torch.randn(B, H, N, D, device='cuda', dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
lens = [512, 2048, 3072, 2560]
cu = torch.tensor([0] + list(torch.tensor(lens).cumsum(0)), dtype=torch.int32, device='cuda')
tq = sum(lens)
qv, kv, vv = (torch.randn(tq, H, D, device='cuda', dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
cases = {
  "swa fwd": lambda: ops.flash_attention(q.detach(), k.detach(), v.detach(), causal=True, window=(1024, 0), num_sink_tokens=4),
  "causal fwd": lambda: ops.flash_attention(q.detach(), k.detach(), v.detach(), causal=True),
  "varlen fwd": lambda: ops.flash_attention_varlen(qv.detach(), kv.detach(), vv.detach(), cu, cu, 3072, 3072, causal=True),
  "swa f+b": lambda: ops.flash_attention(q, k, v, causal=True, window=(1024, 0), num_sink_tokens=4).backward(do),
  "causal f+b": lambda: ops.flash_attention(q, k, v, causal=True).backward(do),
  "varlen f+b": lambda: ops.flash_attention_varlen(qv, kv, vv, cu, cu, 3072, 3072, causal=True).backward(dov),
}
do = torch.randn(B, H, N, D, device='cuda', dtype=torch.bfloat16)
dov = torch.randn(tq, H, D, device='cuda', dtype=torch.bfloat16)
for name, fn in cases.items():
    for _ in range(3): fn()
    torch.cuda.synchronize()
    n = 20
    t = time.perf_counter()
    for _ in range(n): fn()
    host = (time.perf_counter() - t) / n
    torch.cuda.synchronize()
    wall = (time.perf_counter() - t) / n
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        for _ in range(n): fn()
        torch.cuda.synchronize()
    ev = [e for e in p.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    gpu = sum(e.device_time for e in ev) / n / 1000.0
    kern = {}
    for e in ev:
        kern[e.name[:40]] = kern.get(e.name[:40], 0) + e.device_time / n / 1000.0
    top = sorted(kern.items(), key=lambda x: -x[1])[:5]
    print("%-12s host/call %.3f ms  wall/call %.3f ms  gpu kernels %.3f ms  | %s" % (name, host * 1e3, wall * 1e3, gpu, ", ".join("%s %.3f" % kv for kv in top)), flush=True)
