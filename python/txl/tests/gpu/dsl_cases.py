"""The kernels the DSL GPU tests run, as data: which kernel, its arguments and grid, and the torch reference.

Shared by ``test_dsl_gpu.py`` (runs each case on the GPU and compares with torch) and ``txl/tools/precompile.py``
(compiles the very same specialisations where txlc exists, without torch or a GPU, into a cache directory that
is carried to the GPU host). Both go through ``run_case``, with a tensor factory: real CUDA tensors on the GPU,
shape/dtype-only stand-ins for precompiling. The specialisation depends only on dtypes, int values and
descriptor boxes, so both produce the same frontend IR and hence the same cache keys.

Cases whose module (``python/txl/kernels/<name>.py``) or kernel is missing, or whose parameters differ from the
ones listed here, are skipped with the reason: when a kernel lands with other parameters, update its Case.
Two cases need no DSL frontend: ``fake_vector_add*`` (the test frontend of ``txl_fakes`` writes real txl IR, so
the whole jit -> cache -> launch path runs today) and ``gemm_sm90_ir`` (``txl.compile`` of examples/gemm_sm90.mlir).
"""

import contextlib
import importlib
import math
import os
import sys
import types

import txl
import txl.language as tl

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))


def cdiv(a, b):
    return (a + b - 1) // b


class Case:
    """One launch of one kernel. ``build(T)`` returns a dict: grid, args, kwargs (constexprs and launch options),
    out (the tensor the kernel writes), ref (a callable computing the expected value, only called on a GPU) and
    optionally extra: [(name, tensor, ref callable, tolerances)] for further outputs."""

    def __init__(self, name, build, module=None, kernel=None, ir_file=None, fake_frontend=False, tol=None,
                 options=None):
        self.name = name
        self.build = build
        self.module = module
        self.kernel = kernel  # a name, or candidate names
        self.ir_file = ir_file
        self.fake_frontend = fake_frontend
        self.tol = tol or {}
        self.options = options or {}

    def __repr__(self):
        return "Case(%s)" % self.name


class Skip(Exception):
    """The case cannot run here (missing kernel module, different parameters)."""


def load_kernel(case):
    """The @txl.jit (or txl.autotune) object of a case; raises Skip with the reason."""
    try:
        mod = importlib.import_module(case.module)
    except ImportError as e:
        if case.module.startswith("txl.kernels") and (getattr(e, "name", "") or "").startswith("txl.kernels"):
            raise Skip("%s is not written yet (python/%s.py)" % (case.module, case.module.replace(".", "/")))
        raise
    names = (case.kernel,) if isinstance(case.kernel, str) else tuple(case.kernel)
    for n in names:
        k = getattr(mod, n, None)
        if k is not None:
            return k
    raise Skip("%s has no kernel named %s" % (case.module, " or ".join(names)))


def check_fits(case, kernel, args, kwargs):
    """Skip (saying what to fix) when the kernel's parameters do not take the case's arguments."""
    autotuned = not isinstance(kernel, txl.JITFunction)
    jf = kernel.fn if autotuned else kernel  # an Autotuner wraps a JITFunction; its configs add constexprs
    bind = jf.signature.bind_partial if autotuned else jf.signature.bind
    try:
        bind(*args, **{k: v for k, v in kwargs.items() if k not in _OPTIONS})
    except TypeError as e:
        raise Skip("%s.%s(%s) does not take the arguments the test passes (%s): update its Case in %s"
                   % (case.module, jf.__name__, ", ".join(jf.arg_names), e, __file__))


_OPTIONS = ("num_warps", "num_warpgroups", "num_stages", "debug_hangs")


@contextlib.contextmanager
def fake_frontend():
    """Use txl_fakes.fake_ast_to_ir as the frontend for the duration."""
    from txl.tests.txl_fakes import fake_ast_to_ir

    name = "txl.compiler.code_generator"
    old = sys.modules.get(name)
    mod = types.ModuleType(name)
    mod.ast_to_ir = fake_ast_to_ir
    sys.modules[name] = mod
    try:
        yield
    finally:
        if old is None:
            del sys.modules[name]
        else:
            sys.modules[name] = old


def run_case(case, T, launch=True):
    """Compile (and when ``launch``, launch) a case with tensors from factory ``T``. Returns (built dict,
    CompiledKernel(s))."""
    b = case.build(T)
    if case.ir_file:
        compiled = txl.compile(os.path.join(REPO, case.ir_file), **case.options)
        if launch:
            compiled[b["grid"]](*b["args"], **b["kwargs"])
        return b, compiled
    kernel = load_kernel(case)
    kwargs = dict(b["kwargs"])
    for c in getattr(kernel, "configs", ()):  # autotuned: the configs supply these
        for k in c.kwargs:
            kwargs.pop(k, None)
    check_fits(case, kernel, b["args"], kwargs)
    with fake_frontend() if case.fake_frontend else contextlib.nullcontext():
        if launch:
            return b, kernel[b["grid"]](*b["args"], **kwargs)
        return b, kernel.warmup(*b["args"], grid=b["grid"], **kwargs)


def check_case(case, seed):
    """Runs ``case`` on fresh random data from ``seed`` (on a GPU) and compares every output with its torch
    reference; outputs start as NaN, so one the kernel leaves unwritten fails. Raises pytest's Skip for a case
    that cannot run here."""
    import pytest
    import torch

    try:
        b, _ = run_case(case, TorchFactory(seed))
    except Skip as e:
        pytest.skip(str(e))
    torch.cuda.synchronize()
    for name, out, ref, tol in [("out", b["out"], b["ref"], case.tol)] + list(b.get("extra", [])):
        if out.is_floating_point():
            assert not torch.isnan(out).any(), "%s: the kernel left elements unwritten (NaN-filled)" % name
        torch.testing.assert_close(out, ref(), **tol, msg=lambda m: "%s: %s" % (name, m))


# ---------------------------------------------------------------------------------------------------------------
# Tensor factories
# ---------------------------------------------------------------------------------------------------------------
class TorchFactory:
    """CUDA tensors (on a GPU host)."""

    def __init__(self, seed=0):
        import torch

        self.torch = torch
        torch.manual_seed(seed)

    def _dt(self, dtype):
        return getattr(self.torch, dtype)

    def randn(self, shape, dtype="float32", scale=1.0):
        return (self.torch.randn(shape, device="cuda") * scale).to(self._dt(dtype))

    def randint(self, shape, low, high, dtype="int32"):
        return self.torch.randint(low, high, shape, device="cuda").to(self._dt(dtype))

    def full(self, shape, value, dtype="float32"):
        return self.torch.full(shape, value, device="cuda", dtype=self._dt(dtype))

    def empty(self, shape, dtype="float32"):
        t = self.torch.empty(shape, device="cuda", dtype=self._dt(dtype))
        if t.is_floating_point():
            t.fill_(float("nan"))  # a kernel that writes nothing fails the comparison
        return t

    def desc(self, t, block_shape, swizzle=None):
        return txl.TensorDescriptor.from_tensor(t, block_shape, swizzle)  # encoded by the launcher

    def num_sms(self):
        return self.torch.cuda.get_device_properties(0).multi_processor_count


from txl.compiler.meta import MetaTensor  # noqa: E402


class MetaFactory:
    """Stand-ins for precompiling on a machine without torch or a GPU."""

    def randn(self, shape, dtype="float32", scale=1.0):
        return MetaTensor(shape, dtype)

    empty = randn

    def randint(self, shape, low, high, dtype="int32"):
        return MetaTensor(shape, dtype)

    def full(self, shape, value, dtype="float32"):
        return MetaTensor(shape, dtype)

    def desc(self, t, block_shape, swizzle=None):
        return txl.TensorDescriptor.from_tensor(t, block_shape, swizzle)

    def num_sms(self):
        return 132  # the grid is not part of the specialisation


# ---------------------------------------------------------------------------------------------------------------
# The cases
# ---------------------------------------------------------------------------------------------------------------
@txl.jit
def fake_vector_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """Compiled with the test frontend (txl_fakes.fake_ast_to_ir), which ignores this body."""


# The same kernel autotuned over BLOCK and num_warps (the benchmark runs on the GPU; the configs precompile here).
fake_vector_add_tuned = txl.autotune(
    [txl.Config({"BLOCK": 256}), txl.Config({"BLOCK": 1024}), txl.Config({"BLOCK": 2048}, num_warps=8)],
    key=["n"], warmup=5, rep=20)(fake_vector_add_kernel)


def _vector_add(n, block):
    def build(T):
        x, y, out = T.randn((n,)), T.randn((n,)), T.empty((n,))
        return dict(grid=lambda meta: (cdiv(n, meta["BLOCK"]),), args=(x, y, out, n), kwargs=dict(BLOCK=block),
                    out=out, ref=lambda: x + y)

    return build


def _softmax(rows, cols, ROWS=4):
    def build(T):
        x, out = T.randn((rows, cols)), T.empty((rows, cols))
        block = 1 << (cols - 1).bit_length()
        return dict(grid=(cdiv(rows, ROWS),), args=(out, x, cols, cols, rows, cols),
                    kwargs=dict(BLOCK=block, ROWS=ROWS), out=out, ref=lambda: T.torch.softmax(x, dim=-1))

    return build


def _gemm_ir(M, N, K):
    """examples/gemm_sm90.mlir: tensors go straight to the runtime, which encodes them with the sidecar's boxes."""

    def build(T):
        a = T.randn((M, K), "bfloat16", scale=0.1)
        b = T.randn((N, K), "bfloat16", scale=0.1)
        c = T.empty((M, N), "bfloat16")
        return dict(grid=(cdiv(M, 128), cdiv(N, 128)), args=(a, b, c, M, N, K), kwargs={}, out=c,
                    ref=lambda: (a.float() @ b.float().T).to(c.dtype))

    return build


def _gemm_ws(M, N, K):
    """python/txl/kernels/gemm_ws.py: persistent, 3 warpgroups, descriptors with the logical tiles."""

    def build(T):
        a = T.randn((M, K), "bfloat16", scale=0.1)
        b = T.randn((N, K), "bfloat16", scale=0.1)
        c = T.empty((M, N), "bfloat16")
        BM, BN, BK = 128, 256, 64
        args = (T.desc(a, [BM // 2, BK]), T.desc(b, [BN, BK]), T.desc(c, [BM // 2, BN]), M, N, K)
        kw = dict(BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, NUM_STAGES=3, GROUP_SIZE_M=8, num_warps=4, num_warpgroups=3)
        tiles = cdiv(M, BM) * cdiv(N, BN)
        return dict(grid=(min(T.num_sms(), tiles),), args=args, kwargs=kw, out=c,
                    ref=lambda: (a.float() @ b.float().T).to(c.dtype))

    return build


def attention_reference(q, k, v, causal, sm_scale=None):
    """softmax(q k^T * sm_scale [causal]) v in float32 for (B, H, N, D) torch tensors; k, v may have fewer heads
    (GQA: query head h reads kv head h // (H // H_KV))."""
    import torch

    g = q.shape[1] // k.shape[1]
    kf, vf = (t.float().repeat_interleave(g, dim=1) for t in (k, v))
    s = q.float() @ kf.transpose(-1, -2) * (sm_scale or 1.0 / math.sqrt(q.shape[-1]))
    if causal:
        n = q.shape[2]
        s = s.masked_fill(torch.ones(n, n, device=q.device, dtype=torch.bool).triu(1), float("-inf"))
    return s.softmax(-1) @ vf


def _attention(B, H, N, D, causal, kernel="fa3", dtype="bfloat16", H_KV=None, config=None, sms=None):
    """One launch of a flash-attention kernel of txl/kernels (fa3, pingpong, ws, 1wg), as txl.ops lays it out:
    (B * H * N, D) rows read in place (EVEN_N=False: a head's last key block masks the keys past N, its last
    query block stores only its real rows), M with N_PAD = N rounded up to 128 rows per head, K/V with H_KV heads
    (GQA), the config's tiles (default: the first autotuning config of txl.ops)."""
    from txl.ops import attention as A

    H_KV = H_KV or H
    _, _, BM, n_wg, cfgs = A.KERNELS[kernel]
    cfg = config or cfgs[D][0]
    BN, NS = cfg[:2]
    persistent = len(cfg) > 2 and cfg[2]

    def build(T):
        NP = A.padded_len(N)
        q = T.randn((B * H * N, D), dtype)
        k, v = (T.randn((B * H_KV * N, D), dtype) for _ in range(2))
        o = T.empty((B * H * N, D), dtype)
        m = T.empty((B * H, NP), "float32")
        sm_scale = 1.0 / math.sqrt(D)
        qbox = [BM // 2 if BM == 128 else BM, D]
        args = (T.desc(q, qbox), T.desc(k, [BN, D]), T.desc(v, [BN, D]), T.desc(o, qbox), m, o, sm_scale, N, NP)
        kw = dict(HEAD_DIM=D, BLOCK_M=BM, BLOCK_N=BN, NUM_STAGES=NS, CAUSAL=causal, EVEN_N=(N == NP),
                  H_Q_PER_KV=H // H_KV, num_warps=4, num_warpgroups=n_wg)
        grid = (NP // BM, B * H)
        kw.update(A.KERNEL_CONSTEXPRS.get(kernel, {}))
        if kernel == "fa3":  # takes BH; persistent: fewer CTAs than tiles, each walks over several
            cu = T.full((2,), 0, "int32")  # no packed sequences, no window: unbounded sides, no sinks
            args += (B * H, cu, cu, H, A.BIG, A.BIG, 0)
            kw["PERSISTENT"] = persistent
            if len(cfg) > 3:
                kw["CONSUMER_REGS"] = cfg[3]
            if persistent:
                grid = (min(sms or T.num_sms(), NP // BM * B * H), 1)

        def heads(t, h):  # (B, H, N, D) float32
            return t.float().view(B, h, N, D)

        def scores():
            qf, kf = heads(q, H), heads(k, H_KV).repeat_interleave(H // H_KV, dim=1)
            sc = qf @ kf.transpose(-1, -2) * sm_scale
            if causal:
                sc = sc.masked_fill(T.torch.ones(N, N, device=sc.device, dtype=T.torch.bool).triu(1), float("-inf"))
            return sc

        def ref():
            vf = heads(v, H_KV).repeat_interleave(H // H_KV, dim=1)
            return (scores().softmax(-1) @ vf).to(o.dtype)

        def ref_m():  # M = m + log2(l): the row log-sum-exp in base 2
            return scores().logsumexp(-1) / math.log(2)

        return dict(grid=grid, args=args, kwargs=kw, out=o.view(B, H, N, D) if hasattr(o, "view") else o, ref=ref,
                    extra=[("M", m.view(B, H, NP)[:, :, :N] if hasattr(m, "view") else m, ref_m,
                            dict(atol=1e-3, rtol=1e-4))])

    return build


_ATTN_MODULES = {"fa3": ("txl.kernels.flash_attention", "flash_attention"),
                 "pingpong": ("txl.kernels.flash_attention_ws", "flash_attention_ws"),
                 "ws": ("txl.kernels.flash_attention_ws", "flash_attention_ws"),
                 "1wg": ("txl.kernels.flash_attention_1wg", "flash_attention_1wg")}


def _attention_cases():
    """Every variant: causal and not, hd 64/128 (and 256), bf16/fp16, GQA, N = 1000 (padded, masked)."""
    out = []
    tol = dict(atol=2e-2, rtol=2e-2)
    for kern, (mod, fn) in _ATTN_MODULES.items():
        pre = "flash_attention" if kern == "fa3" else "attn_" + kern
        shapes = [("", (2, 4, 1024, 128, False), {}), ("_causal", (2, 4, 1024, 128, True), {}),
                  ("_hd64", (2, 4, 1024, 64, False), {}), ("_hd64_causal", (2, 4, 1024, 64, True), {}),
                  ("_fp16", (1, 4, 512, 128, False), dict(dtype="float16")),
                  ("_fp16_causal", (1, 4, 512, 128, True), dict(dtype="float16")),
                  ("_gqa", (2, 8, 512, 128, False), dict(H_KV=2)), ("_gqa_causal", (2, 8, 512, 128, True),
                                                                    dict(H_KV=2)),
                  ("_n1000", (1, 2, 1000, 128, False), {}), ("_n1000_causal", (1, 2, 1000, 128, True), {}),
                  ("_n1000_hd64", (1, 2, 1000, 64, False), {}),
                  ("_hd256", (1, 2, 640, 256, False), {}), ("_hd256_causal", (1, 2, 1000, 256, True), {})]
        if kern != "1wg":
            shapes += [("_hd64_bn64_causal", (1, 2, 1000, 64, True), dict(config=(64, 2))),
                       ("_hd128_3stages", (1, 2, 1024, 128, False), dict(config=(128, 3)))]
        if kern == "fa3":  # persistent: 3 CTAs over 16 tiles, padded hd64, GQA on all SMs, causal
            shapes += [("_persistent", (2, 4, 256, 128, False), dict(config=(128, 2, True), sms=3)),
                       ("_persistent_causal", (2, 4, 384, 128, True), dict(config=(128, 2, True), sms=3)),
                       ("_persistent_causal_n1000_hd64", (1, 2, 1000, 64, True), dict(config=(128, 3, True),
                                                                                       sms=5)),
                       ("_persistent_n1000_hd64", (1, 2, 1000, 64, False), dict(config=(128, 3, True), sms=3)),
                       ("_persistent_gqa", (2, 8, 512, 128, False), dict(config=(128, 2, True), H_KV=2)),
                       ("_regs232", (2, 4, 1024, 128, True), dict(config=(128, 2, False, 232)))]
        for suffix, (B, H, N, D, causal), kw in shapes:
            out.append(Case(pre + suffix, _attention(B, H, N, D, causal, kern, **kw), mod, fn, tol=tol))
    return out


VECTOR_ADD = ("vector_add_kernel", "vector_add")
CASES = [
    # No DSL frontend needed: the test frontend's IR through txlc, the cache and the launcher.
    Case("fake_vector_add", _vector_add(98432, 1024), module=__name__, kernel="fake_vector_add_kernel",
         fake_frontend=True),
    Case("fake_vector_add_masked", _vector_add(1000, 256), module=__name__, kernel="fake_vector_add_kernel",
         fake_frontend=True),
    Case("fake_vector_add_autotuned", _vector_add(98432, 1024), module=__name__, kernel="fake_vector_add_tuned",
         fake_frontend=True),
    Case("gemm_sm90_ir", _gemm_ir(512, 384, 512), ir_file="examples/gemm_sm90.mlir", tol=dict(atol=2e-2, rtol=2e-2)),
    # DSL kernels (python/txl/kernels/).
    Case("vector_add", _vector_add(98432, 1024), "txl.kernels.vector_add", VECTOR_ADD),
    Case("vector_add_masked", _vector_add(1000, 256), "txl.kernels.vector_add", VECTOR_ADD),
    Case("softmax", _softmax(1823, 781), "txl.kernels.softmax", ("softmax", "softmax_kernel"),
         tol=dict(atol=1e-5, rtol=1e-4)),
    Case("gemm_ws", _gemm_ws(1024, 768, 512), "txl.kernels.gemm_ws", "gemm_ws", tol=dict(atol=2e-2, rtol=2e-2)),
]
CASES += _attention_cases()
