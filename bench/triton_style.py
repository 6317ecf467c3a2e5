#!/usr/bin/env python3
"""Triton-style kernels under Triton and under txl: one kernel source, two imports, one table.

    python3 bench/triton_style.py                   # GPU host: check and time every kernel, print a markdown table
    python3 bench/triton_style.py --quick           # one shape and one config per kernel, shorter timings
    python3 bench/triton_style.py --only gemm_ptr,attn_fwd
    python3 bench/triton_style.py --num-warps 8      # only the configs with 8 warps (two warpgroups split M)
    python3 bench/triton_style.py --compile-only    # no GPU, no torch: compile every kernel for sm_90a with txl
                                                    # (and Triton when installed); report rejections and spills
    ncu -k regex:gemm_ptr -c 1 python3 bench/triton_style.py --quick --only gemm_ptr --backend txl
                                                    # one backend only (both name their kernels alike)

The kernels live once in bench/triton_style_kernels.py, which imports ``triton as jitlib`` and ``triton.language as
tl``. This script writes two copies of it into a temporary directory, the second with ``txl``/``txl.language``
instead, and imports both: the kernel text is identical, only the import changes (both JITs read the source with
inspect, so the copies are real files). Host-side, the only difference is the TMA descriptor class that wraps a
tensor for a descriptor argument (triton.tools.tensor_descriptor.TensorDescriptor vs txl.TensorDescriptor, the same
``from_tensor(t, block_shape)`` call).

For each kernel, shape and config: fresh random inputs (torch.manual_seed), a float32 torch reference, both
backends launched with the same constexprs, num_warps and num_stages (num_stages is dropped for txl while its
frontend has no such option: txl kernels pipeline by hand), outputs first filled with NaN and checked against the
reference (max abs error; pass when |out - ref| <= atol + rtol |ref| everywhere), then timed with
triton.testing.do_bench (median). Spills: ``ptxas -v`` (Triton's bundled ptxas) on each backend's PTX, bytes of
spill stores summed over the kernels a case launches, with the most registers in parentheses; Triton's
``n_spills`` when ptxas is unavailable. txl/Triton = triton_ms / txl_ms (> 1: txl is faster); the geometric mean
is over the rows where both backends passed. "torch ms" is cuBLAS (torch.matmul) for GEMM, torch.softmax,
F.layer_norm and SDPA where there is an obvious torch counterpart.

Every (kernel, backend) runs in its own try/except: a kernel that a backend rejects (compile error) or gets wrong
prints that in the row, and the run goes on. Known txl limits today: one warpgroup (num_warps=8 configs may be
rejected) and tl.dot with M a multiple of 64 (nsa_select's 16-row tiles may be rejected). A GPU fault (illegal
address) poisons the CUDA context, so every later launch in the process fails: rerun with --only to isolate.
TXL_DEBUG_HANGS=1 bounds txl's mbarrier waits if a kernel hangs.
"""

import argparse
import contextlib
import importlib.util
import inspect
import io
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

KERNELS_FILE = os.path.join(HERE, "triton_style_kernels.py")
TRITON_HEADER = "import triton as jitlib\nimport triton.language as tl\n"
HEADERS = {"triton": TRITON_HEADER, "txl": "import txl as jitlib\nimport txl.language as tl\n"}
LOG2E = 1.4426950408889634
DEVICE = "cuda"  # where the inputs and references live


def cdiv(a, b):
    return (a + b - 1) // b


def next_pow2(n):
    return 1 << (int(n) - 1).bit_length()


# ================================================================================================================
# The kernel module of each backend
# ================================================================================================================
def load_kernels(backend, tmpdir):
    """Imports a copy of triton_style_kernels.py whose two import lines are ``backend``'s."""
    with open(KERNELS_FILE) as f:
        src = f.read()
    if src.count(TRITON_HEADER) != 1:
        raise RuntimeError("%s must contain the import lines %r exactly once" % (KERNELS_FILE, TRITON_HEADER))
    name = "triton_style_kernels_%s" % backend
    path = os.path.join(tmpdir, name + ".py")
    with open(path, "w") as f:
        f.write(src.replace(TRITON_HEADER, HEADERS[backend]))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


class Backend:
    """A backend's kernels. ``be.k.<kernel>[grid](...)`` launches (or, with compile_only, compiles) a kernel and,
    while ``recording`` is a list, appends the compiled kernel to it (for the spill count)."""

    def __init__(self, name, mod, compile_only):
        self.name = name
        self.mod = mod
        self.compile_only = compile_only
        self.recording = None
        self.drops_num_stages = name == "txl" and not _txl_takes_num_stages()
        jit_types = ("JITFunction", "InterpretedFunction")  # the latter: Triton's TRITON_INTERPRET=1
        self.k = types.SimpleNamespace(**{n: _Kernel(self, f) for n, f in vars(mod).items()
                                          if not n.startswith("_") and type(f).__name__ in jit_types})
        if compile_only:
            self._desc = FakeDesc
        elif name == "triton":
            from triton.tools.tensor_descriptor import TensorDescriptor
            self._desc = TensorDescriptor
        else:
            import txl
            self._desc = txl.TensorDescriptor

    def desc(self, t, block_shape):
        if self.compile_only and self.name == "txl":
            import txl
            return txl.TensorDescriptor.from_tensor(t, block_shape)
        return self._desc.from_tensor(t, block_shape)

    def opts(self, cfg):
        """The launch options of a config (num_warps, num_stages), as this backend takes them."""
        o = {k: cfg[k] for k in ("num_warps", "num_stages") if k in cfg}
        if self.drops_num_stages:
            o.pop("num_stages", None)
        return o

    def constexprs(self, cfg, **extra):
        """cfg's constexprs (everything but launch options) plus ``extra``, and the launch options."""
        kw = {k: v for k, v in cfg.items() if k not in ("num_warps", "num_stages")}
        kw.update(extra)
        kw.update(self.opts(cfg))
        return kw


def _txl_takes_num_stages():
    try:
        from txl.compiler.code_generator import ast_to_ir
        return "num_stages" in inspect.signature(ast_to_ir).parameters
    except Exception:
        return False


class _Kernel:
    def __init__(self, be, jf):
        self.be, self.jf = be, jf

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            be, jf = self.be, self.jf
            if be.compile_only:
                ck = jf.warmup(*args, grid=grid, **kwargs) if be.name == "txl" else _triton_compile(jf, args, kwargs)
                be.recording.append(ck)
                return ck
            ret = jf[grid](*args, **kwargs)
            if be.recording is not None:
                # Triton's launch returns its CompiledKernel; txl's warmup finds the one it just launched.
                be.recording.append(ret if be.name == "triton" else jf.warmup(*args, grid=grid, **kwargs))
            return ret
        return launch


# ================================================================================================================
# Tensors: torch on the GPU, or shape-only stand-ins for --compile-only
# ================================================================================================================
class TorchTensors:
    real = True

    def __init__(self):
        import torch
        self.torch = torch
        self.num_sms = torch.cuda.get_device_properties(0).multi_processor_count

    def randn(self, shape, dtype="float16", std=1.0):
        t = self.torch
        return (t.randn(shape, device=DEVICE) * std).to(getattr(t, dtype))

    def rand(self, shape, dtype="float16"):
        t = self.torch
        return t.rand(shape, device=DEVICE).to(getattr(t, dtype))

    def empty(self, shape, dtype="float16"):
        t = self.torch
        return t.empty(shape, device=DEVICE, dtype=getattr(t, dtype))


class FakeTensor:
    """What both JITs read from a tensor to specialise a kernel: shape, strides, dtype, device, a data pointer."""
    SIZES = {"float16": 2, "bfloat16": 2, "float32": 4, "int32": 4, "int64": 8}

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = "torch." + dtype
        self.dt = dtype
        self.device = types.SimpleNamespace(type="cuda", index=0)

    def stride(self, dim=None):
        s, acc = [], 1
        for n in reversed(self.shape):
            s.insert(0, acc)
            acc *= n
        return tuple(s) if dim is None else s[dim]

    def data_ptr(self):
        return 1 << 40

    def element_size(self):
        return self.SIZES[self.dt]

    def view(self, *shape):
        n = math.prod(self.shape)
        shape = [n // -math.prod(shape) if s == -1 else s for s in shape]
        return FakeTensor(shape, self.dt)


class FakeTensors:
    real = False
    num_sms = 132

    def randn(self, shape, dtype="float16", std=1.0):
        return FakeTensor(shape, dtype)

    def rand(self, shape, dtype="float16"):
        return FakeTensor(shape, dtype)

    def empty(self, shape, dtype="float16"):
        return FakeTensor(shape, dtype)


class FakeDesc:
    def __init__(self, base, block_shape):
        self.base, self.block_shape = base, list(block_shape)

    @classmethod
    def from_tensor(cls, t, block_shape):
        return cls(t, block_shape)


_TRITON_DT = {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "int32": "i32", "int64": "i64"}


def _triton_compile(jf, args, kwargs):
    """triton.compile of one specialisation for sm_90a without a GPU (the signature read from fake tensors)."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    kwargs = dict(kwargs)
    options = {k: kwargs.pop(k) for k in ("num_warps", "num_stages") if k in kwargs}
    bound = inspect.signature(jf.fn).bind(*args, **kwargs)
    bound.apply_defaults()
    sig, consts, attrs = {}, {}, {}
    for i, p in enumerate(jf.params):
        v = bound.arguments[p.name]
        if p.is_constexpr or v is None:
            sig[p.name], consts[p.name] = "constexpr", v
        elif isinstance(v, FakeTensor):
            sig[p.name] = "*" + _TRITON_DT[v.dt]
            attrs[(i,)] = [["tt.divisibility", 16]]
        elif isinstance(v, FakeDesc):
            sig[p.name] = "tensordesc<%s[%s]>" % (_TRITON_DT[v.base.dt], ", ".join(map(str, v.block_shape)))
        elif isinstance(v, bool):
            sig[p.name] = "i1"
        elif isinstance(v, int):
            if v == 1:
                sig[p.name], consts[p.name] = "constexpr", 1
                continue
            sig[p.name] = "i32" if -2**31 <= v < 2**31 else "i64"
            if v % 16 == 0:
                attrs[(i,)] = [["tt.divisibility", 16]]
        elif isinstance(v, float):
            sig[p.name] = "fp32"
        else:
            raise TypeError("cannot specialise argument %s = %r" % (p.name, v))
    return triton.compile(ASTSource(jf, sig, consts, attrs), target=GPUTarget("cuda", 90, 32), options=options)


# ================================================================================================================
# Spills: ptxas -v on the PTX of every kernel a case launched
# ================================================================================================================
_PTXAS = []
_PTXAS_INFO = {}


def find_ptxas():
    if not _PTXAS:
        cands = []
        try:
            import triton
            cands.append(os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "ptxas"))
        except Exception:
            pass
        try:
            from txl.compiler.compiler import find_ptxas as txl_find_ptxas
            cands.append(txl_find_ptxas())
        except Exception:
            pass
        cands += [shutil.which("ptxas"), "/usr/local/cuda/bin/ptxas"]
        _PTXAS.append(next((c for c in cands if c and os.access(c, os.X_OK)), None))
    return _PTXAS[0]


def ptxas_info(ptx):
    """(spill store bytes, registers) of a PTX module, or None."""
    if ptx in _PTXAS_INFO:
        return _PTXAS_INFO[ptx]
    ptxas, info = find_ptxas(), None
    m = re.search(r"^\s*\.target\s+(sm_\w+)", ptx, re.M)
    if ptxas and m:
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "k.ptx")
            with open(src, "w") as f:
                f.write(ptx)
            r = subprocess.run([ptxas, "-v", "-arch=" + m.group(1), src, "-o", os.path.join(d, "k.cubin")],
                               capture_output=True, text=True)
        if r.returncode == 0:
            out = r.stdout + r.stderr
            spills = sum(int(s) for s in re.findall(r"(\d+) bytes spill stores", out))
            regs = max([int(s) for s in re.findall(r"Used (\d+) registers", out)] or [0])
            info = (spills, regs)
    _PTXAS_INFO[ptx] = info
    return info


def spill_cell(compiled):
    """'spill bytes (registers)' summed over the compiled kernels of a case, '-' when unknown."""
    spills, regs = 0, 0
    for ck in compiled:
        asm = getattr(ck, "asm", None) or {}
        info = ptxas_info(asm["ptx"]) if isinstance(asm.get("ptx"), str) else None
        if info is None:
            n = getattr(ck, "n_spills", None)
            if n is None:
                return "-"
            info = (int(n), int(getattr(ck, "n_regs", 0) or 0))
        spills += info[0]
        regs = max(regs, info[1])
    return "%d (%d)" % (spills, regs) if compiled else "-"


# ================================================================================================================
# The cases: inputs(T, s) -> dict; ref(x, s) -> {output: float32 tensor} (may fill derived inputs first);
# launch(be, x, s, cfg) runs the backend's kernels; torch(x, s) -> a callable to time, or None.
# ================================================================================================================
class Case:
    def __init__(self, name, shapes, configs, inputs, ref, launch, outputs, tol, torch=None, desc=None):
        self.name, self.shapes, self.configs = name, shapes, configs
        self.inputs, self.ref, self.launch, self.outputs = inputs, ref, launch, outputs
        self.tol, self.torch, self.desc = tol, torch, desc or (lambda s: " ".join("%s%s" % kv for kv in s.items()))


def W4(**kw):
    return dict(kw, num_warps=4, num_stages=3)


def W8(**kw):
    return dict(kw, num_warps=8, num_stages=3)


# ---- GEMM ------------------------------------------------------------------------------------------------------
def gemm_inputs(T, s, transposed_b=False):
    M, N, K = s["M"], s["N"], s["K"]
    x = dict(a=T.randn((M, K)), c=T.empty((M, N)))
    x["bt" if transposed_b else "b"] = T.randn((N, K) if transposed_b else (K, N))
    return x


def gemm_ref(x, s):
    b = x["bt"].float().T if "bt" in x else x["b"].float()
    return dict(c=x["a"].float() @ b)


def gemm_torch(x, s):
    import torch
    return (lambda: torch.matmul(x["a"], x["bt"].T)) if "bt" in x else (lambda: torch.matmul(x["a"], x["b"]))


def gemm_grid(s, cfg):
    return (cdiv(s["M"], cfg["BLOCK_M"]) * cdiv(s["N"], cfg["BLOCK_N"]),)


def gemm_ptr_launch(be, x, s, cfg):
    a, b, c = x["a"], x["b"], x["c"]
    be.k.gemm_ptr[gemm_grid(s, cfg)](a, b, c, s["M"], s["N"], s["K"], a.stride(0), a.stride(1), b.stride(0),
                                     b.stride(1), c.stride(0), c.stride(1), **be.constexprs(cfg))


def gemm_desc_launch(be, x, s, cfg):
    BM, BN, BK = cfg["BLOCK_M"], cfg["BLOCK_N"], cfg["BLOCK_K"]
    be.k.gemm_desc[gemm_grid(s, cfg)](be.desc(x["a"], [BM, BK]), be.desc(x["bt"], [BN, BK]),
                                      be.desc(x["c"], [BM, BN]), s["M"], s["N"], s["K"], **be.constexprs(cfg))


def gemm_devdesc_launch(be, x, s, cfg):
    be.k.gemm_devdesc[gemm_grid(s, cfg)](x["a"], x["bt"], x["c"], s["M"], s["N"], s["K"], **be.constexprs(cfg))


GEMM_SHAPES = [dict(M=4096, N=4096, K=4096), dict(M=8192, N=8192, K=8192)]
GEMM_CONFIGS = lambda s: [W4(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8),  # noqa: E731
                          W8(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_M=8)]
GEMM_TOL = dict(atol=0.1, rtol=1e-2)


# ---- softmax ---------------------------------------------------------------------------------------------------
def softmax_inputs(T, s):
    return dict(x=T.randn((s["M"], s["N"])), y=T.empty((s["M"], s["N"])))


def softmax_launch(be, x, s, cfg):
    inp, out = x["x"], x["y"]
    grid = (min(s["M"], 4 * T_NUM_SMS[0]),)
    be.k.softmax[grid](out, inp, inp.stride(0), out.stride(0), s["M"], s["N"],
                       **be.constexprs(cfg, BLOCK_N=next_pow2(s["N"])))


def softmax_torch(x, s):
    import torch
    return lambda: torch.softmax(x["x"], dim=-1)


# ---- layernorm -------------------------------------------------------------------------------------------------
EPS = 1e-5


def ln_inputs(T, s, bwd=False):
    M, N = s["M"], s["N"]
    x = dict(x=T.randn((M, N)), w=T.rand((N,)), b=T.rand((N,)),
             mean=T.empty((M,), "float32"), rstd=T.empty((M,), "float32"))
    if bwd:
        P = 4 * T_NUM_SMS[0]
        x.update(dy=T.randn((M, N), std=0.1), dx=T.empty((M, N)), pdw=T.empty((P, N), "float32"),
                 pdb=T.empty((P, N), "float32"), dw=T.empty((N,), "float32"), db=T.empty((N,), "float32"))
    else:
        x.update(y=T.empty((M, N)))
    return x


def ln_fwd_ref(x, s):
    import torch.nn.functional as F
    xf = x["x"].float()
    return dict(y=F.layer_norm(xf, (s["N"],), x["w"].float(), x["b"].float(), EPS), mean=xf.mean(-1),
                rstd=1.0 / (xf.var(-1, unbiased=False) + EPS).sqrt())


def ln_bwd_ref(x, s):
    import torch
    import torch.nn.functional as F
    xf = x["x"].float()
    x["mean"].copy_(xf.mean(-1))
    x["rstd"].copy_(1.0 / (xf.var(-1, unbiased=False) + EPS).sqrt())
    xr, w, b = xf.clone().requires_grad_(), x["w"].float().requires_grad_(), x["b"].float().requires_grad_()
    with torch.enable_grad():
        F.layer_norm(xr, (s["N"],), w, b, EPS).backward(x["dy"].float())
    return dict(dx=xr.grad, dw=w.grad, db=b.grad)


def ln_fwd_launch(be, x, s, cfg):
    xx = x["x"]
    be.k.layernorm_fwd[(s["M"],)](xx, x["y"], x["w"], x["b"], x["mean"], x["rstd"], xx.stride(0), s["N"], EPS,
                                  **be.constexprs(cfg))


def ln_bwd_launch(be, x, s, cfg):
    M, N = s["M"], s["N"]
    P = x["pdw"].shape[0]
    be.k.layernorm_bwd_dx[(P,)](x["dx"], x["dy"], x["pdw"], x["pdb"], x["x"], x["w"], x["mean"], x["rstd"],
                                x["x"].stride(0), M, N, BLOCK_N=next_pow2(N), **be.opts(cfg))
    be.k.layernorm_bwd_dwdb[(cdiv(N, 128),)](x["pdw"], x["pdb"], x["dw"], x["db"], P, N, BLOCK_M=32, BLOCK_N=128,
                                             **be.opts(cfg))


def ln_torch(x, s):
    import torch.nn.functional as F
    return lambda: F.layer_norm(x["x"], (s["N"],), x["w"], x["b"], EPS)


ROWS_SHAPES = [dict(M=4096, N=8192), dict(M=16384, N=2048)]


# ---- attention -------------------------------------------------------------------------------------------------
def attn_desc(s):
    return "B%d H%d N%d D%d%s" % (s["B"], s["H"], s["N"], s["D"], " causal" if s.get("causal") else "") + (
        " W%d" % s["W"] if "W" in s else "")


def attn_inputs(T, s, bwd=False):
    B, H, N, D = s["B"], s["H"], s["N"], s["D"]
    x = dict(q=T.randn((B, H, N, D), std=0.5), k=T.randn((B, H, N, D), std=0.5), v=T.randn((B, H, N, D), std=0.5),
             o=T.empty((B, H, N, D)), m=T.empty((B * H, N), "float32"))
    if bwd:
        x.update(do=T.randn((B, H, N, D), std=0.5), delta=T.empty((B * H, N), "float32"), dq=T.empty((B, H, N, D)),
                 dk=T.empty((B, H, N, D)), dv=T.empty((B, H, N, D)))
    return x


def sm_scale(s):
    return 1.0 / math.sqrt(s["D"])


def _mask(N, causal=False, window=None):
    """[N, N] bool, True where query i may see key j (None: all)."""
    import torch
    if not causal and window is None:
        return None
    m = torch.ones(N, N, dtype=torch.bool, device=DEVICE).tril()
    return m.triu(-(window - 1)) if window is not None else m


def attn_ref_core(q, k, v, scale, mask=None, sinks=None, do=None):
    """Per batch (bounded memory), float32: O, the log2-domain row statistic M and, given dO, dQ/dK/dV."""
    import torch
    B, H, N, D = q.shape
    o, lse = torch.empty(B, H, N, D, device=q.device), torch.empty(B, H, N, device=q.device)
    grads = [torch.empty(B, H, N, D, device=q.device) for _ in range(3)] if do is not None else None
    for b in range(B):
        qb, kb, vb = (t[b].float().requires_grad_(do is not None) for t in (q, k, v))
        with torch.enable_grad():
            sc = (qb @ kb.transpose(-1, -2)) * scale
            if mask is not None:
                sc = sc.masked_fill(~mask, float("-inf"))
            if sinks is not None:
                sc = torch.cat([sc, sinks.float()[:, None, None].expand(H, N, 1)], dim=-1)
            p = torch.softmax(sc, dim=-1)
            if sinks is not None:
                p = p[..., :-1]
            ob = p @ vb
            if do is not None:
                ob.backward(do[b].float())
                for g, t in zip(grads, (qb, kb, vb)):
                    g[b] = t.grad
        o[b] = ob.detach()
        lse[b] = torch.logsumexp(sc.detach(), dim=-1)
        del sc, p, ob
    return o, lse * LOG2E, grads


def attn_fwd_ref(x, s):
    o, m, _ = attn_ref_core(x["q"], x["k"], x["v"], sm_scale(s), _mask(s["N"], s["causal"]))
    out = dict(o=o)
    if "m" in x:
        out["m"] = m.reshape(-1, s["N"])
    return out


def attn_bwd_ref(x, s):
    o, m, (dq, dk, dv) = attn_ref_core(x["q"], x["k"], x["v"], sm_scale(s), _mask(s["N"], s["causal"]),
                                       do=x["do"])
    x["o"].copy_(o)  # the forward's outputs, the backward's inputs
    x["m"].copy_(m.reshape(-1, s["N"]))
    return dict(dq=dq, dk=dk, dv=dv)


def attn_grid(s, block_m):
    return (s["N"] // block_m, s["B"] * s["H"])


def attn_fwd_launch(be, x, s, cfg):
    be.k.attn_fwd[attn_grid(s, cfg["BLOCK_M"])](x["q"], x["k"], x["v"], x["o"], x["m"], sm_scale(s), s["N"],
                                                **be.constexprs(cfg, HEAD_DIM=s["D"], CAUSAL=s["causal"]))


def attn_fwd_desc_launch(be, x, s, cfg):
    D, BM, BN = s["D"], cfg["BLOCK_M"], cfg["BLOCK_N"]
    q, k, v, o = (x[n].view(-1, D) for n in "qkvo")
    be.k.attn_fwd_desc[attn_grid(s, BM)](be.desc(q, [BM, D]), be.desc(k, [BN, D]), be.desc(v, [BN, D]),
                                         be.desc(o, [BM, D]), sm_scale(s), s["N"],
                                         **be.constexprs(cfg, HEAD_DIM=D, CAUSAL=s["causal"]))


def attn_bwd_launch(be, x, s, cfg):
    D, N, causal, sc = s["D"], s["N"], s["causal"], sm_scale(s)
    o = be.opts(cfg)
    be.k.attn_bwd_preprocess[attn_grid(s, 128)](x["o"], x["do"], x["delta"], N, BLOCK_M=128, HEAD_DIM=D, **o)
    be.k.attn_bwd_dkdv[attn_grid(s, cfg["BLOCK_N1"])](
        x["q"], x["k"], x["v"], x["do"], x["dk"], x["dv"], x["m"], x["delta"], sc, N,
        HEAD_DIM=D, BLOCK_M=cfg["BLOCK_M1"], BLOCK_N=cfg["BLOCK_N1"], CAUSAL=causal, **o)
    be.k.attn_bwd_dq[attn_grid(s, cfg["BLOCK_M2"])](
        x["q"], x["k"], x["v"], x["do"], x["dq"], x["m"], x["delta"], sc, N,
        HEAD_DIM=D, BLOCK_M=cfg["BLOCK_M2"], BLOCK_N=cfg["BLOCK_N2"], CAUSAL=causal, **o)


def sdpa_torch(x, s):
    import torch.nn.functional as F
    return lambda: F.scaled_dot_product_attention(x["q"], x["k"], x["v"], is_causal=s["causal"])


ATTN_SHAPES = [dict(B=4, H=16, N=4096, D=D, causal=c) for D in (64, 128) for c in (False, True)]
ATTN_CONFIGS = lambda s: [W4(BLOCK_M=128, BLOCK_N=64), W8(BLOCK_M=128, BLOCK_N=128)]  # noqa: E731
ATTN_TOL = dict(atol=1e-2, rtol=1e-2)


# ---- RoPE attention --------------------------------------------------------------------------------------------
def rope_inputs(T, s):
    x = attn_inputs(T, s)
    del x["m"]
    N, half = s["N"], s["D"] // 2
    if T.real:
        torch = T.torch
        inv_freq = 1.0 / (10000.0 ** (torch.arange(0, half, device=DEVICE, dtype=torch.float32) / half))
        ang = torch.arange(N, device=DEVICE, dtype=torch.float32)[:, None] * inv_freq[None, :]
        x.update(cos=ang.cos().contiguous(), sin=ang.sin().contiguous())
    else:
        x.update(cos=T.empty((N, half), "float32"), sin=T.empty((N, half), "float32"))
    return x


def rope_ref(x, s):
    import torch

    def rot(t):  # [B, H, N, D] float32, rotate-half
        t1, t2 = t.float().chunk(2, dim=-1)
        c, sn = x["cos"][None, None], x["sin"][None, None]
        return torch.cat([t1 * c - t2 * sn, t2 * c + t1 * sn], dim=-1)

    o, _, _ = attn_ref_core(rot(x["q"]), rot(x["k"]), x["v"], sm_scale(s), _mask(s["N"], s["causal"]))
    return dict(o=o)


def rope_launch(be, x, s, cfg):
    be.k.rope_attn[attn_grid(s, cfg["BLOCK_M"])](x["q"], x["k"], x["v"], x["cos"], x["sin"], x["o"], sm_scale(s),
                                                 s["N"], **be.constexprs(cfg, HEAD_DIM=s["D"], CAUSAL=s["causal"]))


# ---- sliding window + sinks ------------------------------------------------------------------------------------
def swa_inputs(T, s):
    x = attn_inputs(T, s)
    del x["m"]
    x["sinks"] = T.randn((s["H"],), "float32")
    return x


def swa_ref(x, s):
    o, _, _ = attn_ref_core(x["q"], x["k"], x["v"], sm_scale(s), _mask(s["N"], window=s["W"]), sinks=x["sinks"])
    return dict(o=o)


def swa_launch(be, x, s, cfg):
    be.k.swa_sink[attn_grid(s, cfg["BLOCK_M"])](x["q"], x["k"], x["v"], x["sinks"], x["o"], sm_scale(s), s["N"],
                                                s["H"], **be.constexprs(cfg, HEAD_DIM=s["D"], WINDOW=s["W"]))


# ---- NSA selection attention -----------------------------------------------------------------------------------
def nsa_desc(s):
    return "B%d T%d Hkv%d G%d D%d S%d BS%d" % (s["B"], s["T"], s["H_KV"], s["G"], s["D"], s["S"], s["BS"])


def nsa_inputs(T, s):
    B, N, HK, G, D, S, BS = s["B"], s["T"], s["H_KV"], s["G"], s["D"], s["S"], s["BS"]
    x = dict(q=T.randn((B, N, HK * G, D), "bfloat16", std=0.5), k=T.randn((B, N, HK, D), "bfloat16", std=0.5),
             v=T.randn((B, N, HK, D), "bfloat16", std=0.5), o=T.empty((B, N, HK * G, D), "bfloat16"))
    if not T.real:
        x["idx"] = T.empty((B, N, HK, S), "int32")
        return x
    # Each token's S blocks: its own block first, then random earlier ones (distinct), -1 where there are fewer.
    torch = T.torch
    nblk = N // BS
    cur = (torch.arange(N, device=DEVICE) // BS)[None, :, None, None]
    blk = torch.arange(nblk, device=DEVICE)[None, None, None, :]
    score = torch.rand(B, N, HK, nblk, device=DEVICE)
    score = torch.where(blk == cur, 2.0, torch.where(blk < cur, score, -1.0))
    top, idx = score.topk(S, dim=-1)
    x["idx"] = torch.where(top >= 0, idx, -1).to(torch.int32).contiguous()
    return x


def nsa_ref(x, s):
    import torch
    B, N, HK, G, D, BS = s["B"], s["T"], s["H_KV"], s["G"], s["D"], s["BS"]
    out = torch.empty(B, N, HK * G, D, device=DEVICE)
    causal = torch.ones(N, N, dtype=torch.bool, device=DEVICE).tril()
    for b in range(B):
        for h in range(HK):
            sel = torch.zeros(N, N // BS + 1, dtype=torch.bool, device=DEVICE)  # the last column takes the -1s
            sel.scatter_(1, x["idx"][b, :, h].long() % (N // BS + 1), True)
            keys = sel[:, :-1].repeat_interleave(BS, dim=1) & causal  # [N queries, N keys]
            q = x["q"][b, :, h * G:(h + 1) * G].float().transpose(0, 1)  # [G, N, D]
            sc = (q @ x["k"][b, :, h].float().T) * sm_scale(s)
            p = torch.softmax(sc.masked_fill(~keys, float("-inf")), dim=-1)
            out[b, :, h * G:(h + 1) * G] = (p @ x["v"][b, :, h].float()).transpose(0, 1)
    return dict(o=out)


def nsa_launch(be, x, s, cfg):
    be.k.nsa_select[(s["T"], s["B"] * s["H_KV"])](
        x["q"], x["k"], x["v"], x["idx"], x["o"], s["T"], sm_scale(s),
        **be.constexprs(cfg, H_KV=s["H_KV"], G=s["G"], HEAD_DIM=s["D"], S=s["S"], BLOCK_N=s["BS"]))


# Varlen: the B sequences of lengths s["lens"] (multiples of BS, so no block reads past the packed tensor) packed
# along one token axis; Bos[t] = the first token of t's sequence (what cu_seqlens gives).
def nsa_varlen_desc(s):
    return "lens %s Hkv%d G%d D%d S%d BS%d" % ("+".join(map(str, s["lens"])), s["H_KV"], s["G"], s["D"], s["S"],
                                                 s["BS"])


def nsa_varlen_inputs(T, s):
    N, HK, G, D, S, BS = sum(s["lens"]), s["H_KV"], s["G"], s["D"], s["S"], s["BS"]
    x = dict(q=T.randn((N, HK * G, D), "bfloat16", std=0.5), k=T.randn((N, HK, D), "bfloat16", std=0.5),
             v=T.randn((N, HK, D), "bfloat16", std=0.5), o=T.empty((N, HK * G, D), "bfloat16"))
    if not T.real:
        x["idx"] = T.empty((N, HK, S), "int32")
        x["bos"] = T.empty((N,), "int32")
        return x
    torch = T.torch
    idx, bos, start = [], [], 0
    for n in s["lens"]:
        nblk = n // BS
        cur = (torch.arange(n, device=DEVICE) // BS)[:, None, None]
        blk = torch.arange(nblk, device=DEVICE)[None, None, :]
        score = torch.rand(n, HK, nblk, device=DEVICE)
        score = torch.where(blk == cur, 2.0, torch.where(blk < cur, score, -1.0))
        if nblk < S:  # fewer blocks than S: pad with -1 columns
            score = torch.cat([score, torch.full((n, HK, S - nblk), -1.0, device=DEVICE)], dim=-1)
        top, i = score.topk(S, dim=-1)
        idx.append(torch.where(top >= 0, i, -1).to(torch.int32))
        bos.append(torch.full((n,), start, dtype=torch.int32, device=DEVICE))
        start += n
    x["idx"], x["bos"] = torch.cat(idx).contiguous(), torch.cat(bos)
    return x


def nsa_varlen_ref(x, s):
    import torch
    out, start = [], 0
    for n in s["lens"]:
        one = dict(s, B=1, T=n)
        xs = {k: x[k][start:start + n][None] for k in ("q", "k", "v", "idx")}
        out.append(nsa_ref(xs, one)["o"][0])
        start += n
    return dict(o=torch.cat(out))


def nsa_varlen_launch(be, x, s, cfg):
    be.k.nsa_select_varlen[(sum(s["lens"]), s["H_KV"])](
        x["q"], x["k"], x["v"], x["idx"], x["bos"], x["o"], sm_scale(s),
        **be.constexprs(cfg, H_KV=s["H_KV"], G=s["G"], HEAD_DIM=s["D"], S=s["S"], BLOCK_N=s["BS"]))


# ---- the table of cases ----------------------------------------------------------------------------------------
T_NUM_SMS = [132]  # set from the device (the fakes' value for --compile-only)

CASES = [
    Case("gemm_ptr", GEMM_SHAPES, GEMM_CONFIGS, gemm_inputs, gemm_ref, gemm_ptr_launch, ["c"], GEMM_TOL, gemm_torch),
    Case("gemm_desc", GEMM_SHAPES, GEMM_CONFIGS, lambda T, s: gemm_inputs(T, s, True), gemm_ref, gemm_desc_launch,
         ["c"], GEMM_TOL, gemm_torch),
    Case("gemm_devdesc", GEMM_SHAPES, GEMM_CONFIGS, lambda T, s: gemm_inputs(T, s, True), gemm_ref,
         gemm_devdesc_launch, ["c"], GEMM_TOL, gemm_torch),
    Case("softmax", ROWS_SHAPES, lambda s: [W4()], softmax_inputs,
         lambda x, s: dict(y=x["x"].float().softmax(-1)), softmax_launch, ["y"], dict(atol=2e-3, rtol=1e-2),
         softmax_torch),
    Case("layernorm_fwd", ROWS_SHAPES, lambda s: [W4(BLOCK_N=min(2048, next_pow2(s["N"])))], ln_inputs,
         ln_fwd_ref, ln_fwd_launch, ["y", "mean", "rstd"], dict(atol=1e-2, rtol=1e-2), ln_torch),
    Case("layernorm_bwd", ROWS_SHAPES, lambda s: [W4(), W8()], lambda T, s: ln_inputs(T, s, bwd=True), ln_bwd_ref,
         ln_bwd_launch, ["dx", "dw", "db"], dict(atol=5e-2, rtol=1e-2)),
    Case("attn_fwd", ATTN_SHAPES, ATTN_CONFIGS, attn_inputs, attn_fwd_ref, attn_fwd_launch, ["o", "m"], ATTN_TOL,
         sdpa_torch, attn_desc),
    Case("attn_fwd_desc", ATTN_SHAPES, ATTN_CONFIGS, attn_inputs, attn_fwd_ref, attn_fwd_desc_launch, ["o"],
         ATTN_TOL, sdpa_torch, attn_desc),
    Case("attn_bwd", ATTN_SHAPES, lambda s: [W4(BLOCK_M1=32, BLOCK_N1=128, BLOCK_M2=128, BLOCK_N2=32)],
         lambda T, s: attn_inputs(T, s, bwd=True), attn_bwd_ref, attn_bwd_launch, ["dq", "dk", "dv"],
         dict(atol=5e-2, rtol=5e-2), None, attn_desc),
    Case("nsa_select", [dict(B=4, T=4096, H_KV=4, G=16, D=128, S=16, BS=64),
                        dict(B=4, T=4096, H_KV=4, G=16, D=64, S=16, BS=64)],
         lambda s: [W4()], nsa_inputs, nsa_ref, nsa_launch, ["o"], dict(atol=2e-2, rtol=2e-2), None, nsa_desc),
    Case("nsa_select_varlen", [dict(lens=[1024, 3072, 2048, 4096, 6144], H_KV=4, G=16, D=128, S=16, BS=64)],
         lambda s: [W4()], nsa_varlen_inputs, nsa_varlen_ref, nsa_varlen_launch, ["o"], dict(atol=2e-2, rtol=2e-2),
         None, nsa_varlen_desc),
    Case("rope_attn", [dict(B=4, H=16, N=4096, D=128, causal=True), dict(B=4, H=16, N=4096, D=64, causal=False)],
         lambda s: [W4(BLOCK_M=128, BLOCK_N=64)], rope_inputs, rope_ref, rope_launch, ["o"], ATTN_TOL, None,
         attn_desc),
    Case("swa_sink", [dict(B=4, H=16, N=4096, D=64, W=128), dict(B=4, H=16, N=4096, D=128, W=1024)],
         lambda s: [W4(BLOCK_M=128, BLOCK_N=64)], swa_inputs, swa_ref, swa_launch, ["o"], ATTN_TOL, None, attn_desc),
]


# ================================================================================================================
# Running, checking, timing
# ================================================================================================================
_TMP_COPY = re.compile(r"[^\s(]*triton_style_kernels_(?:triton|txl)\.py")
NOTES = []  # "where: compiler warning" lines, printed after the table
ERRORS = {}  # table status -> (a few lines of the message from its error line on, [where]), printed after the table


def error_text(e):
    """'rejected: <line>' for a compile error, 'failed: <Type>: <line>' otherwise; <line> is the first line that
    says 'error', else the first line (paths into the temporary copies name bench/triton_style_kernels.py, whose
    line numbers they share)."""
    lines = [ln.strip() for ln in _TMP_COPY.sub("triton_style_kernels.py", str(e)).splitlines() if ln.strip()]
    line = next((ln for ln in lines if "error" in ln.lower()), lines[0] if lines else type(e).__name__)
    if "Compil" in type(e).__name__:
        return "rejected: " + line
    return "failed: %s: %s" % (type(e).__name__, line)


def failure(where, e):
    """error_text(e); the message's context (source line and caret) and where it happened go to ERRORS."""
    text = error_text(e)
    lines = [ln.rstrip() for ln in _TMP_COPY.sub("triton_style_kernels.py", str(e)).splitlines() if ln.strip()]
    at = next((i for i, ln in enumerate(lines) if "error" in ln.lower()), 0)
    ERRORS.setdefault(text, (lines[at + 1:at + 3], []))[1].append(where)
    return text


def recorded_launch(case, be, x, s, cfg, where):
    """The case's launch with ``be`` recording its compiled kernels; compiler warnings on stderr (txlc forwards
    ptxas's) go to NOTES, the spill ones excepted (the table has them). Returns the spill cell."""
    be.recording, buf = [], io.StringIO()
    try:
        with contextlib.redirect_stderr(buf):
            case.launch(be, x, s, cfg)
        return spill_cell(be.recording)
    finally:
        be.recording = None
        for ln in buf.getvalue().splitlines():
            if "warning" in ln.lower() and "spilled" not in ln:
                note = "%s: %s" % (where, _TMP_COPY.sub("triton_style_kernels.py", ln[ln.lower().index("warning"):]))
                if note not in NOTES:
                    NOTES.append(note)


def check(x, ref, outputs, tol):
    """(ok, max abs error over the outputs)."""
    ok, worst = True, 0.0
    for name in outputs:
        r = ref[name].float()
        err = (x[name].float().reshape(r.shape) - r).abs()
        e = err.max().item()
        if math.isnan(e) or not bool((err <= tol["atol"] + tol["rtol"] * r.abs()).all()):
            ok = False
        worst = e if math.isnan(e) or math.isnan(worst) else max(worst, e)
    return ok, worst


def bench_ms(fn, quick):
    import triton.testing
    return triton.testing.do_bench(fn, warmup=5 if quick else 25, rep=20 if quick else 100, return_mode="median")


def run_backend(case, be, x, s, cfg, ref, quick, where):
    """dict(status, ms, err, spill) of one backend on one row: launch (outputs NaN first), check, time."""
    import torch
    res = dict(ms=None, err=None, spill="-", status="ok")
    try:
        for name in case.outputs:
            x[name].fill_(float("nan"))
        res["spill"] = recorded_launch(case, be, x, s, cfg, where)
        torch.cuda.synchronize()
        ok, res["err"] = check(x, ref, case.outputs, case.tol)
        if not ok:
            res["status"] = "wrong (max err %.3g)" % res["err"]
            return res
        res["ms"] = bench_ms(lambda: case.launch(be, x, s, cfg), quick)
    except Exception as e:
        res["status"] = failure(where, e)
    return res


def fmt_ms(ms):
    return "-" if ms is None else "%.3f" % ms


def cell(text, n=110):
    text = text.replace("|", "\\|")
    return text if len(text) <= n else text[:n - 3] + "..."


def cfg_text(cfg):
    return " ".join("%s=%s" % (k.replace("BLOCK_", "B").replace("num_", ""), v) for k, v in cfg.items())


NUM_WARPS = None  # --num-warps: only the configs with this many warps


def rows(cases, quick):
    """(case, shape, configs) in table order (--quick: the first shape and config of each kernel)."""
    for case in cases:
        for s in case.shapes[:1] if quick else case.shapes:
            configs = [c for c in case.configs(s) if NUM_WARPS is None or c.get("num_warps") == NUM_WARPS]
            if configs:
                yield case, s, configs[:1] if quick else configs


def load_backends(tmpdir, compile_only):
    backends = []
    for name in ("triton", "txl"):
        try:
            backends.append(Backend(name, load_kernels(name, tmpdir), compile_only))
        except Exception as e:
            print("# %s is unavailable: %s" % (name, error_text(e)))
    return backends


def print_notes():
    if NOTES:
        print("\n## Compiler warnings (other than spills)\n")
        for n in NOTES:
            print("- " + n)
    if ERRORS:
        print("\n## Errors\n")
        for text, (context, wheres) in ERRORS.items():
            print("- %s\n  in: %s" % (text, "; ".join(wheres)))
            if context:
                print("\n      " + "\n      ".join(context) + "\n")


def main_gpu(cases, quick, tmpdir, only_backend=None):
    import torch
    torch.set_float32_matmul_precision("highest")
    T = TorchTensors()
    T_NUM_SMS[0] = T.num_sms
    backends = load_backends(tmpdir, compile_only=False)
    if not any(b.name == "triton" for b in backends):
        print("# Triton is needed (the reference backend, and triton.testing.do_bench for the timings)")
        return 1
    import triton
    if only_backend:
        backends = [b for b in backends if b.name == only_backend]
    # tl.make_tensor_descriptor (gemm_devdesc) needs Triton's global scratch allocator; txl allocates its own.
    triton.set_allocator(lambda size, align, stream: torch.empty(size, device="cuda", dtype=torch.int8))
    print("# Triton-style kernels: Triton %s vs txl on %s (torch %s)\n"
          % (triton.__version__, torch.cuda.get_device_name(0), torch.__version__))
    if any(b.drops_num_stages for b in backends):
        print("num_stages goes to Triton only: txl's frontend has no num_stages option (it pipelines by hand).\n")
    print("| kernel | shape | config | torch ms | triton ms | txl ms | txl/Triton | Triton spill B (regs) "
          "| txl spill B (regs) | max err T / txl | status |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    ratios = []
    none = dict(ms=None, err=None, spill="-", status="unavailable")
    for case, s, configs in rows(cases, quick):
        torch.manual_seed(0)
        try:
            x = case.inputs(T, s)
            ref = case.ref(x, s)
            torch_ms = bench_ms(case.torch(x, s), quick) if case.torch else None
        except Exception as e:
            status = failure("%s %s (inputs/reference)" % (case.name, case.desc(s)), e)
            print("| %s | %s | - | - | - | - | - | - | - | - | setup %s |" % (case.name, case.desc(s), cell(status)))
            continue
        for cfg in configs:
            where = "%s %s %s" % (case.name, case.desc(s), cfg_text(cfg))
            res = {be.name: run_backend(case, be, x, s, cfg, ref, quick, "%s [%s]" % (where, be.name))
                   for be in backends}
            tr, xr = res.get("triton", none), res.get("txl", none)
            ratio = tr["ms"] / xr["ms"] if tr["ms"] and xr["ms"] else None
            if ratio:
                ratios.append(ratio)
            status = "; ".join("%s: %s" % (n, r["status"]) for n, r in (("triton", tr), ("txl", xr))
                               if r["status"] != "ok") or "ok"
            errs = " / ".join("-" if r["err"] is None else "%.2g" % r["err"] for r in (tr, xr))
            print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                case.name, case.desc(s), cfg_text(cfg), fmt_ms(torch_ms), fmt_ms(tr["ms"]), fmt_ms(xr["ms"]),
                "-" if ratio is None else "%.2f" % ratio, tr["spill"], xr["spill"], errs, cell(status)))
            sys.stdout.flush()
        del x, ref
        torch.cuda.empty_cache()
    if ratios:
        gm = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print("\ngeometric mean of txl/Triton (triton_ms / txl_ms; > 1: txl faster) over the %d rows where both "
              "passed: %.3f" % (len(ratios), gm))
    else:
        print("\nno row where both backends passed")
    print_notes()
    return 0


def main_compile_only(cases, quick, tmpdir):
    """Compile every kernel for sm_90a without a GPU (txl; Triton when installed); spills from ptxas."""
    T = FakeTensors()
    backends = load_backends(tmpdir, compile_only=True)
    print("| kernel | shape | config | triton: spill B (regs) | txl: spill B (regs) |")
    print("|---|---|---|---|---|")
    for case, s, configs in rows(cases, quick):
        x = case.inputs(T, s)
        for cfg in configs:
            where = "%s %s %s" % (case.name, case.desc(s), cfg_text(cfg))
            cells = {}
            for be in backends:
                try:
                    cells[be.name] = "ok " + recorded_launch(case, be, x, s, cfg, "%s [%s]" % (where, be.name))
                except Exception as e:
                    cells[be.name] = failure("%s [%s]" % (where, be.name), e)
            print("| %s | %s | %s | %s | %s |" % (case.name, case.desc(s), cfg_text(cfg),
                                                  cell(cells.get("triton", "unavailable"), 160),
                                                  cell(cells.get("txl", "unavailable"), 160)))
            sys.stdout.flush()
    print_notes()
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", help="comma-separated kernels (%s)" % ", ".join(c.name for c in CASES))
    ap.add_argument("--quick", action="store_true", help="one shape and one config per kernel, shorter timings")
    ap.add_argument("--compile-only", action="store_true",
                    help="no GPU: compile each kernel for sm_90a under both backends and report")
    ap.add_argument("--num-warps", type=int, help="only the configs with this many warps (e.g. 8)")
    ap.add_argument("--backend", choices=("triton", "txl"),
                    help="run only this backend's kernels (for a profiler: both name their kernels alike)")
    args = ap.parse_args()
    global NUM_WARPS
    NUM_WARPS = args.num_warps
    cases = CASES
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in {c.name for c in CASES}]
        if unknown:
            ap.error("unknown kernel(s) %s; known: %s" % (", ".join(unknown), ", ".join(c.name for c in CASES)))
        cases = [c for c in CASES if c.name in names]
    with tempfile.TemporaryDirectory(prefix="triton_style-") as tmpdir:
        if args.compile_only:
            return main_compile_only(cases, args.quick, tmpdir)
        return main_gpu(cases, args.quick, tmpdir, args.backend)


if __name__ == "__main__":
    sys.exit(main())
