"""``txl.ops.rope.apply_rope``: rotary position embeddings of q and k in one launch (``txl.kernels.rope``).

    q_rot, k_rot = apply_rope(q, k, cos, sin)                          # q (B, H, N, D), k (B, H_KV, N, D)
    q_rot, k_rot = apply_rope(q, k, cos, sin, interleaved=True)        # GPT-J pairs (x[2i], x[2i+1])
    q_rot, k_rot = apply_rope(q, k, cos, sin, cu_seqlens=cu)           # packed q (total, H, D), k (total, H_KV, D)

* q, k: bf16 or fp16 CUDA tensors of one dtype, head dim D even (at most 512) and the same for both; k may have
  fewer (or more) heads than q. Contiguous inputs are read in place, strided views are copied first (the kernel
  takes strides, but txl's launcher passes only contiguous tensors); the outputs are new contiguous tensors of
  the inputs' shapes and dtype.
* cos, sin: (seqlen_ro, ROT / 2) tensors of one dtype (float32, bf16 or fp16; float32 is what flash-attn's rotary
  tables usually are), seqlen_ro >= the sequence length, rotary dim ROT = 2 * cos.shape[1] <= D. A row of q or k
  at position p has its first ROT columns rotated by the angles of row p; columns ROT .. D - 1 are copied
  unchanged (flash-attn's ``apply_rotary_emb``). Position p is the index within the sequence: 0 .. N - 1 (dense)
  or 0 .. len - 1 of each packed sequence.
* ``interleaved=False``: GPT-NeoX pairs (x[i], x[i + ROT / 2]); ``True``: GPT-J pairs (x[2 i], x[2 i + 1]).
* Packed sequences: ``cu_seqlens`` (num_seqs + 1 int32 offsets, from 0 to total) and optionally ``max_seqlen`` (the
  longest sequence; computed from cu_seqlens when None, which synchronises with the GPU and checks the offsets:
  pass it under torch.compile or CUDA graph capture).
* Computed in float32, written in the input dtype. A torch custom op (``torch.ops.txl.rope``) with a fake
  implementation and an autograd formula: the gradient of a rotation is the inverse rotation (sin negated), run by
  the same kernel; cos and sin get no gradient. Eager calls without gradients skip the dispatcher.
"""

from txl.compiler.meta import MetaTensor
from txl.ops._launch import _dummy_i32

DTYPES = ("bfloat16", "float16")
COS_DTYPES = ("float32", "bfloat16", "float16")
MAX_HEAD_DIM = 512
MAX_GRID_YZ = 65535
NUM_WARPS = 4

_WHERE = "txl.ops.apply_rope"


# ---------------------------------------------------------------------------------------------------------------
# Validation (before anything is allocated or launched)
# ---------------------------------------------------------------------------------------------------------------
def _check_inputs(torch, q, k, cos, sin, interleaved, cu_seqlens, max_seqlen):
    for name, t in (("q", q), ("k", k), ("cos", cos), ("sin", sin)):
        if not isinstance(t, torch.Tensor):
            raise TypeError("%s: %s must be a torch.Tensor, got %s" % (_WHERE, name, type(t).__name__))
    if not isinstance(interleaved, bool):
        raise TypeError("%s: interleaved must be a bool, got %r" % (_WHERE, interleaved))
    varlen = cu_seqlens is not None
    if varlen and not isinstance(cu_seqlens, torch.Tensor):
        raise TypeError("%s: cu_seqlens must be a torch.Tensor or None, got %s" % (_WHERE, type(cu_seqlens).__name__))
    if max_seqlen is not None:
        if not varlen:
            raise ValueError("%s: max_seqlen is only used with cu_seqlens (packed sequences)" % _WHERE)
        if isinstance(max_seqlen, bool) or not isinstance(max_seqlen, int):
            raise TypeError("%s: max_seqlen must be an int or None, got %r" % (_WHERE, max_seqlen))
        if max_seqlen < 0:
            raise ValueError("%s: max_seqlen must be >= 0, got %d" % (_WHERE, max_seqlen))
    rank, layout = (3, "(total, heads, head_dim) with cu_seqlens") if varlen else (4, "(batch, heads, seq, head_dim)")
    for name, t in (("q", q), ("k", k)):
        if t.dim() != rank:
            hint = "" if varlen or t.dim() != 3 else "; packed sequences (total, heads, head_dim) need cu_seqlens"
            raise ValueError("%s: %s must be %d-D %s, got shape %s%s" % (_WHERE, name, rank, layout, tuple(t.shape),
                                                                         hint))
    if q.dtype not in (torch.bfloat16, torch.float16):
        raise TypeError("%s: q is %s; supported: torch.bfloat16, torch.float16" % (_WHERE, q.dtype))
    if k.dtype != q.dtype:
        raise TypeError("%s: k is %s but q is %s: q and k must have one dtype" % (_WHERE, k.dtype, q.dtype))
    if cos.dtype not in (torch.float32, torch.bfloat16, torch.float16):
        raise TypeError("%s: cos is %s; supported: torch.float32, torch.bfloat16, torch.float16" % (_WHERE, cos.dtype))
    if sin.dtype != cos.dtype:
        raise TypeError("%s: sin is %s but cos is %s: cos and sin must have one dtype" % (_WHERE, sin.dtype,
                                                                                          cos.dtype))
    if varlen and cu_seqlens.dtype != torch.int32:
        raise TypeError("%s: cu_seqlens is %s; it must be torch.int32" % (_WHERE, cu_seqlens.dtype))
    D = q.shape[-1]
    if k.shape[-1] != D:
        raise ValueError("%s: q has head dim %d and k %d: they must be equal" % (_WHERE, D, k.shape[-1]))
    if varlen:
        if k.shape[0] != q.shape[0]:
            raise ValueError("%s: q has %d tokens and k %d: packed q and k must have the same total length"
                             % (_WHERE, q.shape[0], k.shape[0]))
    elif k.shape[0] != q.shape[0] or k.shape[2] != q.shape[2]:
        raise ValueError("%s: k shape %s does not match q %s: batch and sequence length must be equal (only the "
                         "head count may differ)" % (_WHERE, tuple(k.shape), tuple(q.shape)))
    if D % 2 or D < 2 or D > MAX_HEAD_DIM:
        raise ValueError("%s: head dim %d is not supported: it must be even and at most %d"
                         % (_WHERE, D, MAX_HEAD_DIM))
    if q.shape[1] + k.shape[1] > MAX_GRID_YZ:
        raise ValueError("%s: q and k have %d heads together; at most %d" % (_WHERE, q.shape[1] + k.shape[1],
                                                                             MAX_GRID_YZ))
    for name, t in (("cos", cos), ("sin", sin)):
        if t.dim() != 2:
            raise ValueError("%s: %s must be 2-D (seqlen, rotary_dim / 2), got shape %s"
                             % (_WHERE, name, tuple(t.shape)))
    if sin.shape != cos.shape:
        raise ValueError("%s: cos %s and sin %s must have the same shape" % (_WHERE, tuple(cos.shape),
                                                                             tuple(sin.shape)))
    half = cos.shape[1]
    if half < 1 or 2 * half > D:
        raise ValueError("%s: cos/sin have %d columns: the rotary dim 2 * %d = %d must be between 2 and the head "
                         "dim %d (cos/sin are (seqlen, rotary_dim / 2))" % (_WHERE, half, half, 2 * half, D))
    if varlen:
        if cu_seqlens.dim() != 1 or cu_seqlens.shape[0] < 2:
            raise ValueError("%s: cu_seqlens must be 1-D with num_seqs + 1 >= 2 offsets, got shape %s"
                             % (_WHERE, tuple(cu_seqlens.shape)))
        if cu_seqlens.shape[0] - 1 > MAX_GRID_YZ:
            raise ValueError("%s: %d sequences; at most %d" % (_WHERE, cu_seqlens.shape[0] - 1, MAX_GRID_YZ))
    else:
        if q.shape[0] > MAX_GRID_YZ:
            raise ValueError("%s: batch %d; at most %d" % (_WHERE, q.shape[0], MAX_GRID_YZ))
        _check_positions(cos, q.shape[2], varlen)
    named = [("q", q), ("k", k), ("cos", cos), ("sin", sin)] + ([("cu_seqlens", cu_seqlens)] if varlen else [])
    for name, t in named:
        if t.device.type != "cuda":
            raise ValueError("%s: %s is on %s: the kernel runs on a CUDA GPU; move it with .cuda()"
                             % (_WHERE, name, t.device))
    if any(t.device != q.device for _, t in named):
        raise ValueError("%s: the tensors are on different devices (%s)"
                         % (_WHERE, ", ".join("%s %s" % (n, t.device) for n, t in named)))
    if varlen:
        if max_seqlen is None:
            max_seqlen = _max_seqlen(cu_seqlens, q.shape[0])
        _check_positions(cos, max_seqlen, varlen)
    return max_seqlen


def _check_positions(cos, longest, varlen):
    if cos.shape[0] < longest:
        raise ValueError("%s: cos/sin have %d rows (positions) but the %s is %d long"
                         % (_WHERE, cos.shape[0], "longest sequence" if varlen else "sequence", longest))


def _max_seqlen(cu_seqlens, total):
    """The longest sequence of cu_seqlens (copied to the host: a synchronisation), checking the offsets."""
    offs = cu_seqlens.tolist()
    if offs[0] != 0 or offs[-1] != total:
        raise ValueError("%s: cu_seqlens must run from 0 to the total length %d, got %d .. %d"
                         % (_WHERE, total, offs[0], offs[-1]))
    lens = [b - a for a, b in zip(offs, offs[1:])]
    if min(lens) < 0:
        raise ValueError("%s: cu_seqlens must be non-decreasing, got %s" % (_WHERE, offs))
    return max(lens)


# ---------------------------------------------------------------------------------------------------------------
# Launch
# ---------------------------------------------------------------------------------------------------------------
def _launch_args(q, k, oq, ok, cos, sin, cu, interleaved, conjugate, max_seqlen):
    """(grid, args, constexprs) of rope_kernel; works on torch tensors and on MetaTensors (precompiling). ``cu``:
    cu_seqlens (packed) or None (dense); ``max_seqlen``: the longest packed sequence."""
    from txl.kernels import rope as kr

    varlen = max_seqlen is not None
    D = q.shape[-1]
    rot = 2 * cos.shape[1]
    cx = kr.constexprs(D, rot, interleaved, conjugate, varlen)
    block = cx["BLOCK"]
    sq, sk, soq, sok = q.stride(), k.stride(), oq.stride(), ok.stride()
    hq, hk = q.shape[1], k.shape[1]  # heads: dim 1 of (B, H, N, D) and of packed (total, H, D)
    if varlen:  # (total, H, D): no batch stride, the position stride is the token stride
        strides = (0, sq[1], sq[0], 0, sk[1], sk[0], 0, soq[1], soq[0], 0, sok[1], sok[0])
        seqlen, n, z = 0, max_seqlen, cu.shape[0] - 1
    else:  # (B, H, N, D)
        strides = sq[:3] + sk[:3] + soq[:3] + sok[:3]
        seqlen = n = q.shape[2]
        z = q.shape[0]
        cu = _dummy_i32(q)
    grid = (max(1, -(-n // block)), hq + hk, z)
    args = (q, k, oq, ok, cos, sin, cu, int(seqlen), int(hq)) + tuple(int(s) for s in strides)
    args += (int(cos.stride()[0]), int(sin.stride()[0]))
    return grid, args, cx


def _head_dim_contiguous(t):
    # The kernel takes strides, but txl's launcher passes only contiguous tensors (it refuses a strided view,
    # unlike Triton, which passes any tensor's data pointer): strided inputs are copied first.
    return t if t.is_contiguous() else t.contiguous()


def _forward(q, k, cos, sin, interleaved, conjugate, cu_seqlens, max_seqlen):
    """(q_rot, k_rot) of validated inputs; ``conjugate`` rotates by -theta (the backward). ``max_seqlen`` is
    None for dense inputs."""
    import torch

    from txl.kernels import rope as kr

    q, k, cos, sin = (_head_dim_contiguous(t) for t in (q, k, cos, sin))
    if cu_seqlens is not None:
        cu_seqlens = cu_seqlens.contiguous()
    oq = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    ok = torch.empty(k.shape, dtype=k.dtype, device=k.device)
    if oq.numel() + ok.numel() == 0 or (max_seqlen is not None and max_seqlen == 0):
        return oq, ok
    grid, args, cx = _launch_args(q, k, oq, ok, cos, sin, cu_seqlens, interleaved, conjugate, max_seqlen)
    if q.get_device() != torch.cuda.current_device():
        with torch.cuda.device(q.device):
            kr.rope_kernel[grid](*args, **cx, num_warps=NUM_WARPS)
    else:
        kr.rope_kernel[grid](*args, **cx, num_warps=NUM_WARPS)
    return oq, ok


_op = None


def _custom_op():
    """torch.ops.txl.rope: (q, k, cos, sin, interleaved, conjugate, cu_seqlens, max_seqlen) -> (q_rot, k_rot),
    registered once. max_seqlen < 0: dense inputs."""
    global _op
    if _op is None:
        from typing import Optional

        import torch

        @torch.library.custom_op("txl::rope", mutates_args=(), device_types="cuda")
        def rope_op(q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, interleaved: bool,
                    conjugate: bool, cu_seqlens: Optional[torch.Tensor],
                    max_seqlen: int) -> tuple[torch.Tensor, torch.Tensor]:
            return _forward(q, k, cos, sin, interleaved, conjugate, cu_seqlens, None if max_seqlen < 0 else max_seqlen)

        @rope_op.register_fake
        def _(q, k, cos, sin, interleaved, conjugate, cu_seqlens, max_seqlen):
            return q.new_empty(q.shape), k.new_empty(k.shape)

        def setup_context(ctx, inputs, output):
            q, k, cos, sin, interleaved, conjugate, cu_seqlens, max_seqlen = inputs
            ctx.save_for_backward(cos, sin, cu_seqlens)
            ctx.interleaved, ctx.conjugate, ctx.max_seqlen = interleaved, conjugate, max_seqlen
            ctx.shapes, ctx.dtype = (tuple(q.shape), tuple(k.shape)), q.dtype

        def backward(ctx, dq_rot, dk_rot):
            # out = R(theta) x, so dx = R(theta)^T dout = R(-theta) dout: the same op, conjugated.
            cos, sin, cu_seqlens = ctx.saved_tensors
            q_shape, k_shape = ctx.shapes
            # Unused outputs may come as None; the kernel reads any strides.
            dq_rot = torch.zeros(q_shape, dtype=ctx.dtype, device=cos.device) if dq_rot is None else dq_rot
            dk_rot = torch.zeros(k_shape, dtype=ctx.dtype, device=cos.device) if dk_rot is None else dk_rot
            dq, dk = rope_op(dq_rot, dk_rot, cos, sin, ctx.interleaved, not ctx.conjugate, cu_seqlens,
                             ctx.max_seqlen)
            return dq, dk, None, None, None, None, None, None

        rope_op.register_autograd(backward, setup_context=setup_context)
        _op = rope_op
    return _op


def apply_rope(q, k, cos, sin, interleaved=False, cu_seqlens=None, max_seqlen=None):
    """(q_rot, k_rot): q and k with rotary embeddings applied; see the module docstring."""
    import torch

    max_seqlen = _check_inputs(torch, q, k, cos, sin, interleaved, cu_seqlens, max_seqlen)
    if torch.compiler.is_compiling() or (torch.is_grad_enabled() and (q.requires_grad or k.requires_grad)):
        return _custom_op()(q, k, cos, sin, interleaved, False, cu_seqlens, -1 if max_seqlen is None else max_seqlen)
    return _forward(q, k, cos, sin, interleaved, False, cu_seqlens, max_seqlen)


# ---------------------------------------------------------------------------------------------------------------
# Precompiling (no torch, no GPU)
# ---------------------------------------------------------------------------------------------------------------
def precompile(head_dim, rot=None, interleaved=False, dtype="bfloat16", cos_dtype="float32", varlen=False,
               backward=True, heads=2, kv_heads=None, n=4096):
    """Compile the rope kernel(s) of one call shape (through the cache) without launching, for contiguous inputs:
    the forward and, with ``backward``, the inverse rotation. Returns the CompiledKernels."""
    if dtype not in DTYPES:
        raise ValueError("dtype %r: supported %s" % (dtype, DTYPES))
    if cos_dtype not in COS_DTYPES:
        raise ValueError("cos_dtype %r: supported %s" % (cos_dtype, COS_DTYPES))
    from txl.kernels import rope as kr

    rot = head_dim if rot is None else rot
    kv_heads = kv_heads or heads
    if varlen:
        q, k = MetaTensor((2 * n, heads, head_dim), dtype), MetaTensor((2 * n, kv_heads, head_dim), dtype)
        cu = MetaTensor((3,), "int32")
    else:
        q, k = MetaTensor((2, heads, n, head_dim), dtype), MetaTensor((2, kv_heads, n, head_dim), dtype)
        cu = None
    cos, sin = MetaTensor((n, rot // 2), cos_dtype), MetaTensor((n, rot // 2), cos_dtype)
    out = []
    for conj in (False, True) if backward else (False,):
        oq, ok = MetaTensor(q.shape, dtype), MetaTensor(k.shape, dtype)
        grid, args, cx = _launch_args(q, k, oq, ok, cos, sin, cu, interleaved, conj, n if varlen else None)
        out.append(kr.rope_kernel.warmup(*args, grid=grid, **cx, num_warps=NUM_WARPS))
    return out


def rope_reference(q, k, cos, sin, interleaved=False, cu_seqlens=None):
    """The same rotation in float32 torch ops, differentiable (tests): (q_rot, k_rot) in float32."""
    import torch

    def one(x):
        x = x.float()
        half = cos.shape[1]
        rot = 2 * half
        if cu_seqlens is None:  # (B, H, N, D): positions 0 .. N - 1
            n = x.shape[2]
            c, s = cos[:n].float()[None, None], sin[:n].float()[None, None]
        else:  # (total, H, D): position within the sequence
            offs = cu_seqlens.long()
            lens = offs[1:] - offs[:-1]
            pos = torch.arange(x.shape[0], device=x.device) - torch.repeat_interleave(offs[:-1], lens)
            c, s = cos.float()[pos][:, None], sin.float()[pos][:, None]
        xr, rest = x[..., :rot], x[..., rot:]
        if interleaved:
            x1, x2 = xr[..., 0::2], xr[..., 1::2]
            out = torch.stack((x1 * c - x2 * s, x1 * s + x2 * c), dim=-1).flatten(-2)
        else:
            x1, x2 = xr[..., :half], xr[..., half:]
            out = torch.cat((x1 * c - x2 * s, x1 * s + x2 * c), dim=-1)
        return torch.cat((out, rest), dim=-1)

    return one(q), one(k)

