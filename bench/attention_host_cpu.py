"""The host (Python + torch) cost of a txl.ops attention call, without a GPU: CPU tensors, every kernel launch
replaced by a stand-in with the runtime.FastLaunch hot path's work (a ctypes slot per parameter, the TMA
descriptor cache lookup per descriptor, two ctypes calls in place of cuCtxGetCurrent and cuLaunchKernel), so what
is timed is everything the eager paths do around the kernels: argument checks, plan lookup, allocations, the
autograd machinery (custom op or autograd.Function), the backward's plan.

    PYTHONPATH=python python3 bench/attention_host_cpu.py [--calls N] [--profile ROW] [--count]

Prints microseconds per call (min over repeats; wall clock and this thread's CPU time, the latter steadier on a
loaded machine) for: the backward alone (torch.autograd.grad of the output, retain_graph, back to back, as
bench/attention_bwd.py --profile times it), the forward with gradients, the forward without, dense and packed
(varlen), with learnable sinks, and a plain torch.autograd.Function / SDPA call of the same tensors as the
floor of torch's own machinery on this host. --count: torch ops (by name), kernel launches and Python function
calls per call instead, which do not depend on the machine's load. CPU-harness numbers: a GPU host's Python is slower or faster; the
ratios between rows are what carries over. --profile NAME: cProfile of that row, top functions."""

import argparse
import contextlib
import ctypes
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402

import txl  # noqa: E402
from txl.ops import _attention_bwd as AB  # noqa: E402
from txl.runtime.driver import env_flag  # noqa: E402
from txl.ops import _launch  # noqa: E402
from txl.ops import attention as A  # noqa: E402
from txl.ops import attention_varlen as V  # noqa: E402

_libc = ctypes.CDLL(None)


class FakeDescriptor:
    """An "encoded" descriptor: 128 host bytes at ``address``, as runtime.driver.TensorDescriptor."""

    def __init__(self, t):
        self.buf = (ctypes.c_uint8 * 128)()
        self.address = ctypes.addressof(self.buf)
        self.key = (t.data_ptr(), tuple(t.shape), t.stride())


class FakeFast:
    """runtime.FastLaunch's __call__ without a driver: the same per-parameter setters (ctypes slots; descriptor
    params look their (address, shape, strides) up in a cache, as FastLaunch does), the lock, a ctypes call for
    cuCtxGetCurrent, one for the raw stream, one for cuLaunchKernel (libc's labs, which ignores extra args), and
    the TXL_LAUNCH_BLOCKING check. ``kinds``: per param "desc", "ptr", "i32", "f32"."""

    total = 0  # launches by every instance (--count)

    def __init__(self, kinds):
        self.lock = threading.Lock()
        self.params = (ctypes.c_void_p * max(len(kinds), 1))()
        self.slots = []
        self.setters = [self._setter(k, i) for i, k in enumerate(kinds)]
        self.cu_launch = _libc.labs
        self.cu_ctx_get = _libc.labs
        self.raw_stream = _libc.labs
        self.cur = ctypes.c_void_p()
        self.cur_ref = ctypes.byref(self.cur)
        self.func_p = ctypes.c_void_p(0)
        self.block = (384, 1, 1, 200000)
        self.launches = 0

    def _setter(self, kind, idx):
        params = self.params
        if kind == "desc":
            cache = {}

            def set_desc(v):
                if type(v) is FakeDescriptor:  # encoded by the caller, as FastLaunch takes a TensorDescriptor
                    params[idx] = v.address
                    return v
                key = (v.data_ptr(), v.shape, v.stride())
                d = cache.get(key)
                if d is None:
                    d = cache[key] = FakeDescriptor(v)
                params[idx] = d.address
                return d
            return set_desc
        ctype = {"ptr": ctypes.c_uint64, "i32": ctypes.c_uint32, "f32": ctypes.c_float}[kind]
        slot = ctype()
        self.slots.append(slot)
        params[idx] = ctypes.addressof(slot)
        if kind == "ptr":
            def set_ptr(v):
                slot.value = v.data_ptr()
            return set_ptr
        if kind == "i32":
            def set_i32(v):
                slot.value = v & 0xFFFFFFFF
            return set_i32

        def set_f32(v):
            slot.value = v
        return set_f32

    def __call__(self, grid, values, stream=None):
        gx, gy, gz = grid
        with self.lock:
            keep = [f(v) for f, v in zip(self.setters, values)]  # noqa: F841
            self.cu_ctx_get(self.cur_ref)
            s = self.raw_stream(0)
            bx, by, bz, shared = self.block
            self.cu_launch(self.func_p, gx, gy, gz, bx, by, bz, shared, s, self.params, None)
        self.launches += 1
        FakeFast.total += 1
        env_flag(b"TXL_LAUNCH_BLOCKING")


def _kind(v):
    if isinstance(v, txl.TensorDescriptor):
        return "desc"
    if isinstance(v, torch.Tensor):
        return "ptr"
    return "f32" if isinstance(v, float) else "i32"


def _fake_bwd_launcher(fn, args, kwargs, dev):
    """_attention_bwd._Plan._launcher without compiling: a step's params are its positional runtime arguments."""
    return FakeFast([_kind(v) for v in args]), fn.arg_names[:len(args)]


def install():
    """Patch the launch boundary: kernels never compile or run; plans are built on CPU tensors."""
    torch.cuda.current_device = lambda: -1  # a CPU tensor's get_device()
    torch.cuda.is_current_stream_capturing = lambda: False
    torch.cuda.device = lambda device: contextlib.nullcontext()
    AB._Plan._launcher = staticmethod(_fake_bwd_launcher)
    _launch.DEVICE_TYPES = ("cuda", "cpu")
    if True:  # the dense forward's plan: a _Plan whose constructor skips tuning and compiling
        def init(self, torch_, kernel, q, k, v, causal, sm_scale, local=None, sinks=None):
            B, H, N, D = q.shape
            Hk, Dv = k.shape[1], v.shape[-1]
            self.torch, self.shape, self.dtype, self.device = torch_, (B, H, N, Dv), q.dtype, q.device
            self.n, self.n_pad, self.bh = N, A.padded_len(N), B * H
            self.grid = (self.n_pad // 128, B * H, 1)
            self.tail = (N, self.n_pad, B * H, A._dummy_i32(q), A._dummy_i32(q), H) + \
                ((A.BIG, A.BIG, 0) if local is None else tuple(local))
            self.launch = FakeFast(["desc"] * 4 + ["ptr", "ptr", "f32"] + ["i32"] * 2 + ["i32", "ptr", "ptr"]
                                   + ["i32"] * 4 + (["ptr"] if sinks is not None else []))
            self.in_place = all(t.is_contiguous() for t in (q, k, v))
            self.ready((B * H * N, D), (B * Hk * N, D), (B * Hk * N, Dv), (B * H * N, Dv), sinks is not None)
        A._Plan.__init__ = init
    # the custom ops run their (cuda) implementation on CPU tensors too
    from torch._library.custom_ops import OPDEFS

    A._custom_op()
    V._custom_op()
    for name in ("txl::flash_attention", "txl::flash_attention_backward", "txl::flash_attention_varlen",
                 "txl::flash_attention_varlen_backward"):
        op = OPDEFS[name]
        op.register_kernel("cpu")(op._init_fn)
    # launches through _launch.fast_launch (the backward's first call of a key, the packed backward, the packed
    # forward before its plan) keep their fingerprint work, with a stand-in launcher; the tuner's config is known
    # (as after a first call)
    from txl.autotune import Autotuner

    _fast = {}

    def fast_launch(fn, grid, args, kwargs):
        key, tensors = _launch.launch_key(fn, torch.cuda.current_device(), args, kwargs)  # the real fingerprint
        entry = _fast.get(key)
        if entry is None:
            names = fn.arg_names[:len(args)] + list(tensors)
            entry = _fast[key] = (FakeFast([_kind(a) for a in args] + ["ptr"] * len(tensors)), names)
        fast, names = entry
        by_name = dict(zip(fn.arg_names, args), **tensors)
        vals = [by_name[n].base if isinstance(by_name[n], txl.TensorDescriptor) else by_name[n] for n in names]
        fast(tuple(grid) + (1,) * (3 - len(grid)), vals)
        return entry

    _launch.fast_launch = A.fast_launch = V.fast_launch = fast_launch

    def getitem(self, grid):
        def run(*args, **kwargs):
            key = self._key_of(self._bind_partial(args, kwargs))
            self.best[key] = self.configs[0]
        return run
    Autotuner.__getitem__ = getitem


def _count(fn, calls=20):
    """Per call of ``fn``: (torch ops by name, as a TorchDispatchMode sees them below autograd: allocations,
    views, arithmetic; kernel launches; Python-level function calls). Counts, unlike times, do not depend on the
    machine's load, and each torch op and launch costs a GPU host several microseconds."""
    import collections

    from torch.utils._python_dispatch import TorchDispatchMode

    class Ops(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.ops = collections.Counter()

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops[func.overloadpacket.__name__] += 1
            return func(*args, **(kwargs or {}))

    for _ in range(3):
        fn()
    FakeFast.total = 0
    with Ops() as mode:
        for _ in range(calls):
            fn()
    launches = FakeFast.total
    py = [0]

    def prof(frame, event, arg):
        if event == "call":
            py[0] += 1
    sys.setprofile(prof)
    try:
        for _ in range(calls):
            fn()
    finally:
        sys.setprofile(None)
    ops = {k: v / calls for k, v in sorted(mode.ops.items())}
    return ops, launches / calls, py[0] / calls


def _time(fn, calls, repeats=7):
    for _ in range(3):
        fn()
    best_wall = best_cpu = float("inf")
    for _ in range(repeats):
        w, c = time.perf_counter(), time.thread_time()
        for _ in range(calls):
            fn()
        best_wall = min(best_wall, (time.perf_counter() - w) / calls * 1e6)
        best_cpu = min(best_cpu, (time.thread_time() - c) / calls * 1e6)
    return best_wall, best_cpu


class _Plain(torch.autograd.Function):
    """The floor: an autograd.Function that does nothing but allocate its outputs (o; dq, dk, dv)."""

    @staticmethod
    def forward(ctx, q, k, v):
        ctx.save_for_backward(q, k, v)
        return torch.empty_like(q)

    @staticmethod
    def backward(ctx, do):
        q, k, v = ctx.saved_tensors
        return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)


def rows():
    """(name, make) pairs; make() -> dict of timed callables."""
    dt16, dt = torch.float16, torch.bfloat16
    out = []

    def dense(B, H, HK, N, D, dtype, causal=False, sinks=False, window=(-1, -1), lse=False, det=False):
        def make():
            torch.manual_seed(0)
            q = torch.randn(B, H, N, D, dtype=dtype, requires_grad=True)
            k, v = (torch.randn(B, HK, N, D, dtype=dtype, requires_grad=True) for _ in range(2))
            s = torch.randn(H, requires_grad=True) if sinks else None
            kw = dict(causal=causal, window=window, sinks=s, return_lse=lse, deterministic=det)
            o = A.flash_attention(q, k, v, **kw)
            o = o[0] if lse else o
            do = torch.randn_like(o)
            ins = (q, k, v) + ((s,) if sinks else ())
            qd, kd, vd = q.detach(), k.detach(), v.detach()
            return {"bwd": lambda: torch.autograd.grad(o, ins, do, retain_graph=True),
                    "fwd+grad": lambda: A.flash_attention(q, k, v, **kw),
                    "fwd no grad": lambda: A.flash_attention(qd, kd, vd, **dict(kw, sinks=None if s is None
                                                                                 else s.detach())),
                    "step": lambda: torch.autograd.grad(
                        (lambda r: r[0] if lse else r)(A.flash_attention(q, k, v, **kw)), ins, do)}
        return make

    def varlen(lens, H, HK, D, dtype, causal=True, sinks=False):
        def make():
            torch.manual_seed(0)
            tq = sum(lens)
            cu = torch.tensor([0] + [sum(lens[:i + 1]) for i in range(len(lens))], dtype=torch.int32)
            q = torch.randn(tq, H, D, dtype=dtype, requires_grad=True)
            k, v = (torch.randn(tq, HK, D, dtype=dtype, requires_grad=True) for _ in range(2))
            s = torch.randn(H, requires_grad=True) if sinks else None
            mx = max(lens)
            o = V.flash_attention_varlen(q, k, v, cu, cu, mx, mx, causal=causal, sinks=s)
            do = torch.randn_like(o)
            ins = (q, k, v) + ((s,) if sinks else ())
            qd, kd, vd = q.detach(), k.detach(), v.detach()
            sd = None if s is None else s.detach()
            return {"bwd": lambda: torch.autograd.grad(o, ins, do, retain_graph=True),
                    "fwd+grad": lambda: V.flash_attention_varlen(q, k, v, cu, cu, mx, mx, causal=causal, sinks=s),
                    "fwd no grad": lambda: V.flash_attention_varlen(qd, kd, vd, cu, cu, mx, mx, causal=causal,
                                                                    sinks=sd),
                    "step": lambda: torch.autograd.grad(
                        V.flash_attention_varlen(q, k, v, cu, cu, mx, mx, causal=causal, sinks=s), ins, do)}
        return make

    def floor(B, H, N, D, dtype):
        def make():
            q, k, v = (torch.randn(B, H, N, D, dtype=dtype, requires_grad=True) for _ in range(3))
            o = _Plain.apply(q, k, v)
            do = torch.randn_like(o)
            return {"bwd": lambda: torch.autograd.grad(o, (q, k, v), do, retain_graph=True),
                    "fwd+grad": lambda: _Plain.apply(q, k, v)}
        return make

    out.append(("dense MQA 2,8,1,1000,64 fp16", dense(2, 8, 1, 1000, 64, dt16)))  # issue 34's row (split 8)
    out.append(("dense GQA 2,8,2,1000,128 bf16", dense(2, 8, 2, 1000, 128, dt)))
    out.append(("dense 2,16,1,128,64 fp16", dense(2, 16, 1, 128, 64, dt16)))
    out.append(("dense 2,8,8,1000,128 bf16", dense(2, 8, 8, 1000, 128, dt)))
    out.append(("dense 4,16,2,1000,64 bf16 causal", dense(4, 16, 2, 1000, 64, dt, causal=True)))
    out.append(("dense sinks win128 2,8,8,1000,64", dense(2, 8, 8, 1000, 64, dt, causal=True, sinks=True,
                                                          window=(128, 0))))
    out.append(("dense lse 2,8,2,1000,128 determ.", dense(2, 8, 2, 1000, 128, dt, lse=True, det=True)))
    out.append(("varlen 4 seqs 8,2,128 causal", varlen([300, 700, 128, 900], 8, 2, 128, dt)))
    out.append(("varlen sinks 4 seqs 8,8,64", varlen([300, 700, 128, 900], 8, 8, 64, dt, sinks=True)))
    out.append(("floor autograd.Function", floor(2, 8, 1000, 128, dt)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--profile", default=None, help="cProfile this row (a prefix of its name) and kind")
    ap.add_argument("--kind", default="bwd")
    ap.add_argument("--count", action="store_true", help="count torch ops, launches and Python calls per call "
                    "instead of timing")
    args = ap.parse_args()
    install()
    for name, make in rows():
        fns = make()
        if args.profile:
            if not name.startswith(args.profile):
                continue
            import cProfile
            import pstats

            fn = fns[args.kind]
            for _ in range(5):
                fn()
            pr = cProfile.Profile()
            pr.enable()
            for _ in range(args.calls):
                fn()
            pr.disable()
            pstats.Stats(pr).sort_stats("tottime").print_stats(30)
            return
        cells = []
        if args.count:
            for kind in ("bwd", "fwd+grad", "fwd no grad", "step"):
                if kind in fns:
                    ops, launches, py = _count(fns[kind])
                    print("%-34s %-11s torch ops %5.1f (%s), launches %.0f, Python calls %.0f" % (
                        name, kind, sum(ops.values()), ", ".join("%s %g" % kv for kv in ops.items()), launches, py),
                        flush=True)
            continue
        for kind in ("bwd", "fwd+grad", "fwd no grad", "step"):
            if kind in fns:
                w, c = _time(fns[kind], args.calls)
                cells.append("%s %6.1f / %6.1f" % (kind, w, c))
        print("%-34s %s" % (name, " | ".join(cells)), flush=True)


if __name__ == "__main__":
    main()
