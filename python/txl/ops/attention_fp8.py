"""``txl.ops.flash_attention_fp8``: FP8 (e4m3) attention forward, FA3's interface.

    o = txl.ops.flash_attention_fp8(q, k, v, causal=True, descale_q=dq, descale_k=dk, descale_v=dv)
    o, lse = txl.ops.flash_attention_fp8(q, k, v, return_lse=True)      # lse (B, H, N) float32, natural log

* q (B, H, N, D), k / v (B, H_KV, N, D), all torch.float8_e4m3fn on one CUDA device; D in {64, 128, 256}; GQA/MQA
  (H a multiple of H_KV); any N >= 1; causal or not. The output is bfloat16 (B, H, N, D).
* ``descale_q`` / ``descale_k`` / ``descale_v`` (FA3's names and shapes): float32 tensors of shape (1,) (per
  tensor) or (B, H_KV) (per batch and kv head; for q with GQA, the query heads of one kv head share its entry, as
  in FA3); None means 1. The result is attention of the dequantized inputs q * descale_q, k * descale_k,
  v * descale_v: dq * dk is folded into the softmax scale and dv into the output.
* ``sm_scale`` defaults to 1 / sqrt(D).
* V is transposed once per call into a (B, H_KV, D, N_V) buffer (N_V = N rounded up to 32, zero columns after N,
  keys permuted inside each 32) by a small txl kernel: FP8 wgmma reads its B operand only K-major, and for P V
  the K dimension is the keys (docs/attention-fp8.md, also for what the transpose costs).
* A torch custom op, ``torch.ops.txl.flash_attention_fp8`` (forward only: there is no FP8 backward), so
  torch.compile traces through it.

``precompile(head_dim, causal, ...)`` compiles every autotuning config without a GPU.
"""

import math

from txl.compiler.meta import MetaTensor

BLOCK = 128  # query block (BLOCK_M); M's rows per head are padded to a multiple of it
HEAD_DIMS = (64, 128, 256)
# head dim -> [(BLOCK_N, NUM_STAGES), ...]. Shared memory (bytes): Q 2 x 64 x D (fp8) + O 2 x 64 x D (bf16) +
# NUM_STAGES x 2 x BLOCK_N x D (K and V^T, fp8): hd128 with BLOCK_N 128 and 4 stages is 180368 of the 232448 a
# CTA may use (217232 with RENAME_P = False, whose relayout of P adds a scratch). hd256 with BLOCK_N 128 and 2
# stages fits (229456) but spills 16 bytes in its causal / odd-N variants, so hd256 takes 64-key tiles. No config
# spills (test_attention_fp8_cpu.py).
CONFIGS = {64: [(128, 2), (128, 3), (128, 4)], 128: [(128, 2), (128, 3), (128, 4)], 256: [(64, 2), (64, 3)]}


WHERE = "txl.ops.flash_attention_fp8"
# P enters the P V wgmma with its columns renamed into the e4m3 A fragment (no data movement) and V^T's keys
# permuted to match (docs/attention-fp8.md). False: P in its natural order, which the compiler relayouts through
# shared memory, and a plain V^T (slower; the GPU tests run both).
RENAME_P = True

_tuners = {}


def n_bucket(n):
    return min(max(1 << max(int(n) - 1, 0).bit_length(), 128), 16384)


def _pre_hook(block_n, head_dim):
    import txl

    def hook(nargs):
        for name, box in (("desc_q", [BLOCK // 2, head_dim]), ("desc_k", [block_n, head_dim]),
                          ("desc_vt", [head_dim, block_n]), ("desc_o", [BLOCK // 2, head_dim])):
            nargs[name] = txl.TensorDescriptor(nargs[name].base, block_shape=box)

    return hook


def get_tuner(head_dim, causal, rename_p=True):
    """The txl.autotune wrapper of the FP8 kernel for one head dim and masking, keyed on (N bucket, D, causal)."""
    key = (head_dim, bool(causal), bool(rename_p))
    t = _tuners.get(key)
    if t is not None:
        return t
    import txl
    from txl.autotune import Autotuner
    from txl.kernels.flash_attention_fp8 import OPTIONS, flash_attention_fp8

    cfgs = [txl.Config({"BLOCK_M": BLOCK, "BLOCK_N": bn, "NUM_STAGES": ns, "RENAME_P": bool(rename_p)},
                       pre_hook=_pre_hook(bn, head_dim), **OPTIONS) for bn, ns in CONFIGS[head_dim]]

    class _Fp8Tuner(Autotuner):
        def _key_of(self, nargs):
            return (n_bucket(nargs["N_CTX"]), nargs["HEAD_DIM"], bool(nargs["CAUSAL"]), "fp8e4m3", bool(rename_p))

    t = _tuners[key] = _Fp8Tuner(flash_attention_fp8, cfgs, key=["N_CTX", "HEAD_DIM", "CAUSAL"], warmup=10,
                                 rep=50, verbose=False)
    return t


# ---------------------------------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------------------------------
def _check_descale(torch, name, d, B, Hk, device):
    """A descale argument as the kernel reads it: (float32 contiguous tensor, stride 0 per tensor / 1 per head)."""
    if d is None:
        return None, 0
    if not isinstance(d, torch.Tensor):
        raise TypeError("%s: %s must be a torch.Tensor of shape (1,) or (batch, kv heads) = (%d, %d), or None; got %s"
                        % (WHERE, name, B, Hk, type(d).__name__))
    if not d.is_floating_point():
        raise TypeError("%s: %s is %s; expected a float32 tensor" % (WHERE, name, d.dtype))
    if tuple(d.shape) in ((1,), ()):
        stride = 0
    elif tuple(d.shape) == (B, Hk):
        stride = 1
    else:
        raise ValueError("%s: %s has shape %s; expected (1,) (per tensor) or (batch, kv heads) = (%d, %d) (per head, "
                         "as FA3)" % (WHERE, name, tuple(d.shape), B, Hk))
    if d.device != device:
        raise ValueError("%s: %s is on %s but q on %s" % (WHERE, name, d.device, device))
    d = d.float().contiguous().reshape(-1)
    return (d if d.data_ptr() % 16 == 0 else d.clone()), stride


def _check_inputs(torch, q, k, v, causal, sm_scale, return_lse):
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError("%s: %s must be a torch.Tensor, got %s" % (WHERE, name, type(t).__name__))
    if not isinstance(causal, bool):
        raise TypeError("%s: causal must be a bool, got %r" % (WHERE, causal))
    if not isinstance(return_lse, bool):
        raise TypeError("%s: return_lse must be a bool, got %r" % (WHERE, return_lse))
    if sm_scale is not None and (isinstance(sm_scale, bool) or not isinstance(sm_scale, (int, float))
                                 or not (math.isfinite(sm_scale) and sm_scale > 0)):
        raise ValueError("%s: sm_scale must be a positive finite float or None, got %r" % (WHERE, sm_scale))
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.dim() != 4:
            raise ValueError("%s: %s must be 4-D (batch, heads, seq, head_dim), got shape %s"
                             % (WHERE, name, tuple(t.shape)))
        if t.dtype != torch.float8_e4m3fn:
            raise TypeError("%s: %s is %s; expected torch.float8_e4m3fn (quantize with x.to(torch.float8_e4m3fn) "
                            "and pass the scales as descale_*); for bf16/fp16 use txl.ops.flash_attention"
                            % (WHERE, name, t.dtype))
    B, H, N, D = q.shape
    if k.shape != v.shape:
        raise ValueError("%s: k %s and v %s must have the same shape" % (WHERE, tuple(k.shape), tuple(v.shape)))
    Bk, Hk, Nk, Dk = k.shape
    if Bk != B or Nk != N or Dk != D:
        raise ValueError("%s: k/v shape %s does not match q %s: batch, sequence length and head dim must be equal "
                         "(only the head count may differ, for GQA)" % (WHERE, tuple(k.shape), tuple(q.shape)))
    if D not in HEAD_DIMS:
        raise ValueError("%s: head dim %d is not supported; supported: %s" % (WHERE, D, ", ".join(map(str,
                                                                                                       HEAD_DIMS))))
    if B < 1 or H < 1 or N < 1 or Hk < 1:
        raise ValueError("%s: empty input, q shape %s, k shape %s" % (WHERE, tuple(q.shape), tuple(k.shape)))
    if H % Hk:
        raise ValueError("%s: q has %d heads and k/v %d: the query head count must be a multiple of the kv head "
                         "count (GQA)" % (WHERE, H, Hk))
    if B * H * (-(-N // BLOCK) * BLOCK) >= 1 << 31:
        raise ValueError("%s: q has %d rows (batch x heads x sequence, padded to %d) and the kernel addresses rows "
                         "with 32-bit indices; split the batch into calls of fewer than 2^31 rows"
                         % (WHERE, B * H * N, BLOCK))
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.device.type != "cuda":
            raise ValueError("%s: %s is on %s: the kernel runs on a CUDA GPU; move it with .cuda()"
                             % (WHERE, name, t.device))
    if not (q.device == k.device == v.device):
        raise ValueError("%s: q, k, v are on different devices (%s, %s, %s)" % (WHERE, q.device, k.device, v.device))


# ---------------------------------------------------------------------------------------------------------------
# Forward
# ---------------------------------------------------------------------------------------------------------------
def _rows(t):
    B, H, N, D = t.shape
    if not t.is_contiguous() or t.data_ptr() % 16:
        t = t.contiguous() if not t.is_contiguous() else t.clone()
    return t.view(B * H * N, D)


def transpose_v(v, permute=True):
    """V (B, H_KV, N, D) fp8 -> VT (B * H_KV * D, N_V) fp8, each kv head's V transposed (K-major for the P V
    wgmma) with its keys permuted inside every 32 (kernels.flash_attention_fp8.key_perm: P enters that wgmma with
    its columns renamed, not moved), N_V = N rounded up to 32; the columns of keys past N are zero (P is 0 there,
    and 0 * NaN would not be). One txl kernel (kernels.flash_attention_fp8.transpose_v), bytes in and out."""
    import torch
    from txl.kernels.flash_attention_fp8 import transpose_v as kernel

    B, Hk, N, D = v.shape
    nv = -(-N // 32) * 32
    vt = torch.empty((B * Hk * D, nv), dtype=torch.int8, device=v.device)
    v2 = _rows(v).view(torch.int8)
    kernel[(-(-nv // TRANSPOSE_BLOCK), B * Hk)](v2, vt, N, nv, HEAD_DIM=D, BLOCK=TRANSPOSE_BLOCK, PERMUTE=permute,
                                                num_warps=4)
    return vt.view(torch.float8_e4m3fn)


TRANSPOSE_BLOCK = 64  # keys per program of the transpose


_ones = {}


def _one(device):
    t = _ones.get(device)
    if t is None:
        import torch

        t = _ones[device] = torch.ones(4, dtype=torch.float32, device=device)
    return t


def _forward(q, k, v, causal, sm_scale, descales, vt=None, rename_p=None):
    """(o (B, H, N, D) bf16, m (B * H, N_PAD) float32 base-2 log-sum-exp) of validated inputs; ``descales``: three
    (tensor or None, stride) pairs; ``vt``: transpose_v(v) when the caller made it already (bench/attention_fp8.py
    times the kernel without the transpose); ``rename_p``: RENAME_P when None."""
    import torch
    import txl
    from txl.ops.attention import fast_launch

    B, H, N, D = q.shape
    Hk = k.shape[1]
    n_pad = -(-N // BLOCK) * BLOCK
    q2, k2 = _rows(q), _rows(k)
    rename_p = RENAME_P if rename_p is None else bool(rename_p)
    vt = transpose_v(v, rename_p) if vt is None else vt
    o2 = torch.empty((B * H * N, D), dtype=torch.bfloat16, device=q.device)
    m = torch.empty((B * H, n_pad), dtype=torch.float32, device=q.device)
    # One stride for the three: a per-tensor descale beside per-head ones is expanded to (B, H_KV).
    stride = 1 if any(s for _, s in descales) else 0
    scales = []
    for d, s in descales:
        if d is None:
            d = _one(q.device)
            if stride:
                d = d[:1].expand(B * Hk).contiguous()
        elif stride and s == 0:
            d = d.expand(B * Hk).contiguous()
        scales.append(d)

    def descs(bn):
        return (txl.TensorDescriptor(q2, block_shape=[BLOCK // 2, D]), txl.TensorDescriptor(k2, block_shape=[bn, D]),
                txl.TensorDescriptor(vt, block_shape=[D, bn]), txl.TensorDescriptor(o2, block_shape=[BLOCK // 2, D]))

    grid = (n_pad // BLOCK, B * H)
    from txl.kernels.flash_attention_fp8 import default_rescale_tau

    kwargs = dict(HEAD_DIM=D, CAUSAL=bool(causal), EVEN_N=(N == n_pad), H_Q_PER_KV=H // Hk,
                  RESCALE_TAU=default_rescale_tau(D))
    key = (D, bool(causal), n_bucket(N), q.device, rename_p)
    config = _configs.get(key)
    if config is None:
        if torch.cuda.is_current_stream_capturing():
            raise RuntimeError("%s: the first call for shape %s autotunes and compiles, which cannot run inside CUDA "
                               "graph capture: call it once with this shape before capturing" % (WHERE,
                                                                                                  tuple(q.shape)))
        tuner = get_tuner(D, causal, rename_p)
        tuner[lambda meta: grid](*descs(128), m, o2, *scales, float(sm_scale), N, n_pad, stride, **kwargs)
        config = _configs[key] = tuner.best_config
    bn = config.kwargs["BLOCK_N"]
    from txl.kernels.flash_attention_fp8 import flash_attention_fp8

    fast_launch(flash_attention_fp8, grid, descs(bn) + (m, o2) + tuple(scales) + (float(sm_scale), N, n_pad, stride),
                dict(kwargs, **config.kwargs, num_warps=config.num_warps, num_warpgroups=config.num_warpgroups))
    return o2.view(B, H, N, D), m


_configs = {}
_op = None


def _custom_op():
    """torch.ops.txl.flash_attention_fp8: (q, k, v, causal, sm_scale, descale_q, descale_k, descale_v) -> (o, lse)."""
    global _op
    if _op is None:
        import typing

        import torch

        @torch.library.custom_op("txl::flash_attention_fp8", mutates_args=(), device_types="cuda")
        def flash_attention_fp8_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool, sm_scale: float,
                                   descale_q: typing.Optional[torch.Tensor], descale_k: typing.Optional[torch.Tensor],
                                   descale_v: typing.Optional[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
            o, lse = _call(q, k, v, causal, sm_scale, descale_q, descale_k, descale_v)
            return o, lse

        @flash_attention_fp8_op.register_fake
        def _(q, k, v, causal, sm_scale, descale_q, descale_k, descale_v):
            B, H, N, D = q.shape
            return (q.new_empty((B, H, N, D), dtype=torch.bfloat16), q.new_empty((B, H, N), dtype=torch.float32))

        _op = flash_attention_fp8_op
    return _op


def _call(q, k, v, causal, sm_scale, descale_q, descale_k, descale_v, rename_p=None):
    import torch

    B, H, N, D = q.shape
    Hk = k.shape[1]
    descales = [_check_descale(torch, name, d, B, Hk, q.device)
                for name, d in (("descale_q", descale_q), ("descale_k", descale_k), ("descale_v", descale_v))]
    if q.get_device() != torch.cuda.current_device():  # launches (and the transpose) go to the current device
        with torch.cuda.device(q.device):
            o, m = _forward(q, k, v, causal, sm_scale, descales, rename_p=rename_p)
    else:
        o, m = _forward(q, k, v, causal, sm_scale, descales, rename_p=rename_p)
    lse = m.view(B, H, -1)[:, :, :N] * math.log(2.0)
    return o, lse.contiguous()


def flash_attention_fp8(q, k, v, causal=False, sm_scale=None, descale_q=None, descale_k=None, descale_v=None,
                        return_lse=False):
    """Attention of float8_e4m3fn q, k, v with FA3's descales; bf16 output. See the module docstring."""
    import torch

    _check_inputs(torch, q, k, v, causal, sm_scale, return_lse)
    sm_scale = float(1.0 / math.sqrt(q.shape[-1]) if sm_scale is None else sm_scale)
    if torch.compiler.is_compiling():
        o, lse = _custom_op()(q, k, v, causal, sm_scale, descale_q, descale_k, descale_v)
    else:
        o, lse = _call(q, k, v, causal, sm_scale, descale_q, descale_k, descale_v)
    return (o, lse) if return_lse else o


# ---------------------------------------------------------------------------------------------------------------
# Precompiling (no torch, no GPU)
# ---------------------------------------------------------------------------------------------------------------
class _Meta(MetaTensor):
    SIZES = dict(MetaTensor.SIZES, int8=1)  # the transpose kernel's byte tensors


def precompile(head_dim, causal, n=4096, heads=2, kv_heads=None, rename_p=True):
    """Compile every autotuning config of one call shape (through the cache) without launching: returns the
    CompiledKernels. Only the head dim, causal, whether n is a multiple of 128 and heads // kv_heads matter."""
    import txl
    from txl.kernels.flash_attention_fp8 import OPTIONS, flash_attention_fp8

    if head_dim not in HEAD_DIMS:
        raise ValueError("%s precompile: head dim %d is not supported; supported: %s" % (WHERE, head_dim, HEAD_DIMS))
    kv_heads = kv_heads or heads
    n_pad = -(-n // BLOCK) * BLOCK
    from txl.kernels.flash_attention_fp8 import transpose_v as tkernel

    nv = -(-n // 32) * 32
    out = [tkernel.warmup(_Meta((kv_heads * n, head_dim), "int8"), _Meta((kv_heads * head_dim, nv), "int8"), n, nv,
                          grid=None, HEAD_DIM=head_dim, BLOCK=TRANSPOSE_BLOCK, PERMUTE=bool(rename_p), num_warps=4)]
    for bn, ns in CONFIGS[head_dim]:
        q2 = MetaTensor((heads * n, head_dim), "float8_e4m3fn")
        k2 = MetaTensor((kv_heads * n, head_dim), "float8_e4m3fn")
        vt = MetaTensor((kv_heads * head_dim, nv), "float8_e4m3fn")
        o2 = MetaTensor((heads * n, head_dim), "bfloat16")
        m = MetaTensor((heads, n_pad), "float32")
        sc = MetaTensor((4,), "float32")
        descs = (txl.TensorDescriptor(q2, block_shape=[BLOCK // 2, head_dim]),
                 txl.TensorDescriptor(k2, block_shape=[bn, head_dim]),
                 txl.TensorDescriptor(vt, block_shape=[head_dim, bn]),
                 txl.TensorDescriptor(o2, block_shape=[BLOCK // 2, head_dim]))
        out.append(flash_attention_fp8.warmup(*descs, m, o2, sc, sc, sc, 1.0, n, n_pad, 0, grid=None,
                                              HEAD_DIM=head_dim, BLOCK_M=BLOCK, BLOCK_N=bn, NUM_STAGES=ns,
                                              CAUSAL=bool(causal), EVEN_N=(n == n_pad),
                                              H_Q_PER_KV=heads // kv_heads, RENAME_P=bool(rename_p), **OPTIONS))
    return out
