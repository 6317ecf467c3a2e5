"""The host (Python + torch) cost of a txl.ops attention call, without a GPU: CPU tensors and the real
runtime.FastLaunch on a no-op driver (cuLaunchKernel and cuCtxGetCurrent are a compiled C function that returns 0,
called through ctypes as FastLaunch calls libcuda's; descriptor encoding writes nothing), so what is timed is
everything the eager paths do around the kernels: argument checks, plan lookup, allocations, the autograd
machinery (custom op or autograd.Function), the plans' launches down to the driver call. Kernels are never compiled:
a plan's FastLaunch gets a sidecar made from its launch's arguments, and the dense forward's tuning is skipped.

    PYTHONPATH=python python3 bench/attention_host_cpu.py [--calls N] [--profile ROW] [--count]

Prints microseconds per call (min over repeats; wall clock and this thread's CPU time, the latter steadier on a
loaded machine) for: the backward alone (torch.autograd.grad of the output, retain_graph, back to back, as
bench/attention_bwd.py --profile times it), the forward with gradients, the forward without, a forward + backward
step, dense (the issue-34 MQA/GQA rows of bench/attention_bwd.py among them) and packed (varlen), with learnable
sinks; MLA decoding (txl.ops.mla_decode, one decoding step: inference only), on its seesaw and mma.sync kernels; and a
plain torch.autograd.Function of the same tensors as the floor of torch's own machinery on this host.
--count: torch ops (by name), kernel launches and Python function calls per call instead, which do not depend on
the machine's load. CPU-harness numbers: a GPU host's Python is slower or faster and torch's CUDA allocator and
the driver cost more than their CPU stand-ins; the ratios between rows and the counts are what carries over.
--profile NAME: cProfile of that row, top functions."""

import argparse
import contextlib
import ctypes
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402

import txl  # noqa: E402
from txl.ops import _attention_bwd as AB  # noqa: E402
from txl.ops import _launch  # noqa: E402
from txl.ops import attention as A  # noqa: E402
from txl.ops import attention_varlen as V  # noqa: E402
from txl.ops import mla_decode as _mla_fn  # noqa: E402,F401  (the function; the module is below)

M = sys.modules["txl.ops.mla_decode"]  # the module (txl.ops.mla_decode is also the function)

class FakeDriver:
    """What runtime.FastLaunch and descriptor encoding ask of the driver: no-op C functions (compiled here) in
    place of cuLaunchKernel and cuCtxGetCurrent, called through ctypes as FastLaunch calls libcuda's, so the
    argument conversion is timed and the driver's own work is not; an encode_tiled that writes nothing."""

    def __init__(self):
        d = tempfile.mkdtemp(prefix="txl-attn-host-")
        src, lib = os.path.join(d, "noop.c"), os.path.join(d, "libnoop.so")
        with open(src, "w") as f:
            f.write("int txl_noop(void) { return 0; }\n")
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", src, "-o", lib], check=True)
        lib = ctypes.CDLL(lib)
        self._fns = {name: lib["txl_noop"] for name in ("cuLaunchKernel", "cuCtxGetCurrent")}

    def set_device(self, dev):
        pass

    def primary_context(self, dev):
        return None  # what the no-op cuCtxGetCurrent leaves in its out-parameter: "already current"

    def encode_tiled(self, out_addr, plan, what):
        pass


_SIDECAR_DTYPES = {torch.bfloat16: "bf16", torch.float16: "f16", torch.float32: "f32", torch.int32: "i32"}


def real_fast(args, dev=-1):
    """A runtime.FastLaunch (the real one: its generated pack, its descriptor setters and caches, its lock, the
    ctypes launch call) for a kernel whose params are ``args`` (TensorDescriptor or tensor -> tensordesc with a
    legal hardware box, tensor -> ptr, float -> f32, int -> i32), on the no-op driver of install()."""
    from txl.runtime import launcher

    params = []
    for i, v in enumerate(args):
        name = "arg%d" % i
        if isinstance(v, txl.TensorDescriptor):
            dt = _SIDECAR_DTYPES[v.base.dtype]
            cols = min(v.base.shape[-1], 128 // v.base.element_size())  # within the 128-byte swizzle span
            params.append(dict(name=name, kind="tensordesc", dtype=dt, block_shape=[64, cols], swizzle=128))
        elif isinstance(v, torch.Tensor):
            params.append(dict(name=name, kind="ptr", dtype=_SIDECAR_DTYPES[v.dtype]))
        else:
            params.append(dict(name=name, kind="scalar", dtype="f32" if isinstance(v, float) else "i32"))
    kernel = launcher.Kernel(dict(kernel="k%d" % len(args), threads=[384, 1, 1], shared_bytes=200000,
                                  params=params))
    return launcher.FastLaunch(kernel, dev)


def _fake_bwd_launcher(fn, args, kwargs, dev):
    """_attention_bwd._Plan._launcher without compiling: a step's params are its positional runtime arguments."""
    return real_fast(args, dev), fn.arg_names[:len(args)]


def install():
    """Patch the launch boundary: kernels never compile or run; plans are built on CPU tensors; launches go through
    the real runtime.FastLaunch on a no-op driver."""
    from txl.runtime import dtypes as _dt
    from txl.runtime import launcher

    drv = FakeDriver()
    launcher.get_driver = lambda: drv
    launcher.Kernel._function = lambda self, d, dev: 0x1000
    torch._C._cuda_getCurrentRawStream = abs  # (a C call, as torch's)
    info = _dt.tensor_info

    def cuda_info(obj):  # the launcher's CUDA checks see CPU tensors as CUDA tensors
        i = info(obj)
        if i is not None and i.device_type == "cpu":
            i.device_type = "cuda"
        return i
    _dt.tensor_info = cuda_info
    torch.cuda.current_device = lambda: -1  # a CPU tensor's get_device()
    torch.cuda.is_current_stream_capturing = lambda: False
    torch.cuda.device = lambda device: contextlib.nullcontext()
    AB._Plan._launcher = staticmethod(_fake_bwd_launcher)
    _launch.DEVICE_TYPES = ("cuda", "cpu")
    M._sms = lambda device: 132  # MLA's split rules read the SM count (an H100's / H200's)
    if True:  # the dense forward's plan: a _Plan whose constructor skips tuning and compiling
        def init(self, torch_, kernel, q, k, v, causal, sm_scale, local=None, sinks=None):
            B, H, N, D = q.shape
            Hk, Dv = k.shape[1], v.shape[-1]
            self.torch, self.shape, self.dtype, self.device = torch_, (B, H, N, Dv), q.dtype, q.device
            self.n, self.n_pad, self.bh = N, A.padded_len(N), B * H
            self.grid = (self.n_pad // 128, B * H, 1)
            self.tail = (N, self.n_pad, B * H, A._dummy_i32(q), A._dummy_i32(q), H) + \
                ((A.BIG, A.BIG, 0) if local is None else tuple(local))
            q2, k2, v2 = A._rows(q), A._rows(k), A._rows(v)
            o2 = torch.empty((B * H * N, Dv), dtype=q.dtype)
            m = torch.empty((B * H, self.n_pad), dtype=torch.float32)
            desc = [txl.TensorDescriptor(t, block_shape=[64, t.shape[-1]]) for t in (q2, k2, v2, o2)]
            self.launch = real_fast(desc + [m, o2, 0.125] + list(self.tail) + ([sinks] if sinks is not None else []))
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
            entry = _fast[key] = (real_fast(list(args) + list(tensors.values())), names)
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

    from txl.runtime import launcher

    for _ in range(3):
        fn()
    real_call, launches = launcher.FastLaunch.__call__, [0]

    def counted(self, *a, **k):
        launches[0] += 1
        return real_call(self, *a, **k)
    launcher.FastLaunch.__call__ = counted
    try:
        with Ops() as mode:
            for _ in range(calls):
                fn()
    finally:
        launcher.FastLaunch.__call__ = real_call
    launches = launches[0]
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

    def mla(B, H, length, page=64, fp8=False):
        # MLA decoding (inference: no autograd): one call as a decoding step makes it, on the op's default kernel
        # for the row count (the wgmma seesaw kernel from 17 rows, mma.sync below) and default splits
        def make():
            torch.manual_seed(0)
            per = -(-length // page)
            kv = torch.randn(B * per + 1, page, 576, dtype=dt)
            bt = torch.randperm(B * per).view(B, per).to(torch.int32)
            lens = torch.full((B,), length, dtype=torch.int32)
            q = torch.randn(B, 1, H, 576, dtype=dt)
            return {"fwd no grad": lambda: M.mla_decode(q, kv, bt, lens)}
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
    out.append(("mla decode 8,32,4096 (seesaw)", mla(8, 32, 4096)))
    out.append(("mla decode 64,16,4096 (mma.sync)", mla(64, 16, 4096)))
    out.append(("mla decode 132,128,4096 (seesaw)", mla(132, 128, 4096)))
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
