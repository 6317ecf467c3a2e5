"""RoPE (txl.kernels.rope, txl.ops.rope) without a GPU: the kernel compiles to SASS through the real txlc for both
pairings, both directions, dense and packed, fp16 and bf16, a rotary dim below the head dim, with vectorized global
accesses and no spills; apply_rope's argument validation on CPU torch tensors; the float32 reference against an
independent complex-number formulation; the op's fake implementation (shapes without running anything)."""

import re

import pytest

from txl.kernels import rope as kr

from .dsl_helpers import compile_ptx, ir_of


def _sig(dtype, cos_dtype, aligned=True):
    """rope_kernel's signature as a launch specialises it: ``aligned``: 16-byte aligned pointers and strides
    divisible by 16 (':16'), as contiguous (B, H, N, D) inputs with D a multiple of 8 give."""
    sig = kr.signature(dtype, cos_dtype)
    if aligned:
        for name, s in sig.items():
            if name not in ("seqlen", "HQ", "CU_SEQLENS"):
                sig[name] = s + ":16"
    return sig


# ---- the kernel compiles ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("interleaved", [False, True])
@pytest.mark.parametrize("head_dim,rot,dtype,cos_dtype,backward,varlen", [
    (128, 128, "bf16", "fp32", False, False),
    (64, 64, "fp16", "fp32", True, False),
    (128, 64, "bf16", "bf16", False, True),
    (128, 96, "fp16", "fp16", True, False),   # ROT / 2 = 48 and D - ROT = 32: padded, masked columns
    (256, 256, "bf16", "fp32", False, True),
    (80, 80, "bf16", "fp32", True, False),    # D not a power of two
])
def test_kernel_compiles(interleaved, head_dim, rot, dtype, cos_dtype, backward, varlen):
    cx = kr.constexprs(head_dim, rot, interleaved, backward, varlen)
    text = ir_of(kr.rope_kernel, _sig(dtype, cos_dtype), cx, num_warps=4)
    ptx, err = compile_ptx(text, emit="cubin")
    assert "spill" not in err.lower(), err
    assert "st.global" in ptx
    # One kernel for q and k: both tensors' stores are there (two branches of the head axis).
    if head_dim % 8 == 0 and rot % 16 == 0:
        assert re.search(r"ld\.global(\.\w+)*\.v[24]\.", ptx), "rows of x should be loaded as vectors"
        assert re.search(r"st\.global(\.\w+)*\.v[24]\.", ptx), "rows of x should be stored as vectors"
    if varlen:
        assert re.search(r"ld\.global(\.\w+)*\.b32", ptx)  # the sequence's offsets


def test_backward_negates_sin_only():
    # The inverse rotation differs from the forward by one negation of sin (no second table, no other change).
    sig = _sig("bf16", "fp32")
    fwd = ir_of(kr.rope_kernel, sig, kr.constexprs(128, 128, False, False))
    bwd = ir_of(kr.rope_kernel, sig, kr.constexprs(128, 128, False, True))
    assert fwd.count("txl.load") == bwd.count("txl.load") and fwd.count("txl.store") == bwd.count("txl.store")
    assert bwd.count("arith.negf") == fwd.count("arith.negf") + 2  # once in each of the q and k branches


def test_unaligned_inputs_still_compile():
    # Strides or pointers without the ':16' promise (e.g. a head dim of 2 or an offset view): scalar accesses.
    text = ir_of(kr.rope_kernel, _sig("fp16", "fp16", aligned=False), kr.constexprs(2, 2, True), num_warps=4)
    ptx, err = compile_ptx(text)
    assert "st.global" in ptx


def test_constexprs_and_block_rows():
    cx = kr.constexprs(128, 96, interleaved=True, backward=True, varlen=True)
    assert cx == dict(HEAD_DIM=128, ROT=96, HALF_P=64, REST_P=32, INTERLEAVED=True, BACKWARD=True, VARLEN=True,
                      BLOCK=64)
    assert kr.constexprs(64)["ROT"] == 64 and kr.constexprs(64)["BLOCK"] == 128
    assert [kr.block_rows(d) for d in (2, 64, 80, 128, 256, 512)] == [128, 128, 64, 64, 32, 16]


def test_precompile_without_torch_or_gpu(tmp_path, monkeypatch):
    from txl.ops import rope as R

    from .dsl_helpers import TXLC, _need

    _need(TXLC)
    monkeypatch.setenv("TXL_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TXL_TXLC", TXLC)
    ks = R.precompile(128, interleaved=True, varlen=True)
    assert len(ks) == 2 and all("st.global" in k.asm["ptx"] for k in ks)


# ---- validation (CPU torch tensors; skipped without torch) ------------------------------------------------------
@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _t(torch, shape, dtype=None):
    return torch.zeros(shape, dtype=dtype or torch.bfloat16)


def _tables(torch, n=128, half=32, dtype=None):
    return _t(torch, (n, half), dtype or torch.float32), _t(torch, (n, half), dtype or torch.float32)


def _err(exc, match, *args, **kwargs):
    from txl.ops.rope import apply_rope

    with pytest.raises(exc, match=match):
        apply_rope(*args, **kwargs)


def test_rejects_non_tensors(torch):
    x = _t(torch, (1, 2, 128, 64))
    c, s = _tables(torch)
    _err(TypeError, "q must be a torch.Tensor", [1.0], x, c, s)
    _err(TypeError, "sin must be a torch.Tensor", x, x, c, 0.5)
    _err(TypeError, "interleaved must be a bool", x, x, c, s, interleaved=1)
    _err(TypeError, "cu_seqlens must be a torch.Tensor or None", x[0], x[0], c, s, cu_seqlens=[0, 128])


def test_rejects_cpu_tensors(torch):
    x = _t(torch, (1, 2, 128, 64))
    c, s = _tables(torch)
    _err(ValueError, "q is on cpu.*CUDA", x, x, c, s)


def test_rejects_bad_dtypes(torch):
    x = _t(torch, (1, 2, 128, 64))
    c, s = _tables(torch)
    _err(TypeError, "q is torch.float32; supported: torch.bfloat16, torch.float16", x.float(), x, c, s)
    _err(TypeError, "k is torch.float16 but q is torch.bfloat16", x, x.half(), c, s)
    _err(TypeError, "cos is torch.float64; supported", x, x, c.double(), s.double())
    _err(TypeError, "sin is torch.bfloat16 but cos is torch.float32", x, x, c, s.bfloat16())
    _err(TypeError, "cu_seqlens is torch.int64; it must be torch.int32", x[0], x[0], c, s,
         cu_seqlens=torch.tensor([0, 2], dtype=torch.int64))


def test_rejects_bad_shapes(torch):
    x = _t(torch, (1, 2, 128, 64))
    c, s = _tables(torch)
    _err(ValueError, r"q must be 4-D \(batch, heads, seq, head_dim\).*need cu_seqlens", x[0], x[0], c, s)
    _err(ValueError, "k must be 4-D", x, x[0], c, s)
    _err(ValueError, "q has head dim 64 and k 32", x, _t(torch, (1, 2, 128, 32)), c, s)
    _err(ValueError, "does not match q.*only the head count may differ", x, _t(torch, (1, 2, 64, 64)), c, s)
    _err(ValueError, "does not match q", x, _t(torch, (2, 2, 128, 64)), c, s)
    _err(ValueError, "head dim 63 is not supported: it must be even", *[_t(torch, (1, 2, 128, 63))] * 2, c, s)
    _err(ValueError, "head dim 1024 is not supported", *[_t(torch, (1, 1, 4, 1024))] * 2, c, s)
    _err(ValueError, "cos must be 2-D", x, x, c[None], s)
    _err(ValueError, "must have the same shape", x, x, c, s[:, :16])
    _err(ValueError, "rotary dim 2 \\* 40 = 80 must be between 2 and the head dim 64", x, x, *_tables(torch, 128, 40))
    _err(ValueError, "cos/sin have 64 rows \\(positions\\) but the sequence is 128 long", x, x, *_tables(torch, 64))


def test_accepts_gqa_and_partial_rotary_shapes(torch):
    # Everything but the device is valid: the error is the CPU one, not a shape one.
    q, k = _t(torch, (2, 8, 128, 128)), _t(torch, (2, 2, 128, 128))
    _err(ValueError, "q is on cpu", q, k, *_tables(torch, 256, 32))
    _err(ValueError, "q is on cpu", q, k, *_tables(torch, 128, 64, torch.bfloat16))


def test_rejects_bad_packed_inputs(torch):
    q, k = _t(torch, (10, 4, 64)), _t(torch, (10, 2, 64))
    c, s = _tables(torch)
    cu = torch.tensor([0, 4, 10], dtype=torch.int32)
    _err(ValueError, r"q must be 3-D \(total, heads, head_dim\) with cu_seqlens", q[None], k[None], c, s,
         cu_seqlens=cu)
    _err(ValueError, "q has 10 tokens and k 9", q, k[:9], c, s, cu_seqlens=cu)
    _err(ValueError, "max_seqlen is only used with cu_seqlens", _t(torch, (1, 2, 8, 64)), _t(torch, (1, 2, 8, 64)),
         c, s, max_seqlen=8)
    _err(TypeError, "max_seqlen must be an int or None", q, k, c, s, cu_seqlens=cu, max_seqlen=6.0)
    _err(ValueError, "q is on cpu", q, k, c, s, cu_seqlens=cu)  # shapes and dtypes were all right


def test_packed_offsets_are_checked(torch):
    from txl.ops import rope as R

    assert R._max_seqlen(torch.tensor([0, 4, 10, 10], dtype=torch.int32), 10) == 6
    with pytest.raises(ValueError, match="from 0 to the total length 10, got 0 .. 9"):
        R._max_seqlen(torch.tensor([0, 4, 9], dtype=torch.int32), 10)
    with pytest.raises(ValueError, match="non-decreasing"):
        R._max_seqlen(torch.tensor([0, 6, 4, 10], dtype=torch.int32), 10)


def test_import_does_not_import_torch():
    import os
    import subprocess
    import sys

    code = "import sys, txl.ops.rope, txl.kernels.rope; assert 'torch' not in sys.modules"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.dirname(__file__)))))
    assert r.returncode == 0, r.stderr


# ---- the float32 reference (what the GPU tests compare against) -------------------------------------------------
def _complex_rope(x, cos, sin, interleaved):
    # Pairs as complex numbers times exp(i theta): an independent formulation of the rotation.
    import torch

    half = cos.shape[-1]
    xr = x[..., :2 * half].double()
    if interleaved:
        z = torch.complex(xr[..., 0::2], xr[..., 1::2])
    else:
        z = torch.complex(xr[..., :half], xr[..., half:])
    z = z * torch.complex(cos.double(), sin.double())
    out = torch.stack((z.real, z.imag), -1).flatten(-2) if interleaved else torch.cat((z.real, z.imag), -1)
    return torch.cat((out, x[..., 2 * half:].double()), -1)


@pytest.mark.parametrize("interleaved", [False, True])
def test_reference_matches_complex_rotation(torch, interleaved):
    from txl.ops.rope import rope_reference

    g = torch.Generator().manual_seed(0)
    B, H, N, D, half = 2, 3, 16, 32, 12
    q, k = torch.randn(B, H, N, D, generator=g), torch.randn(B, 1, N, D, generator=g)
    theta = torch.randn(N + 5, half, generator=g)
    cos, sin = theta.cos(), theta.sin()
    rq, rk = rope_reference(q, k, cos, sin, interleaved)
    assert torch.allclose(rq.double(), _complex_rope(q, cos[:N], sin[:N], interleaved), atol=1e-5)
    assert torch.allclose(rk.double(), _complex_rope(k, cos[:N], sin[:N], interleaved), atol=1e-5)
    # Packed: sequences of 5, 0 and 11 tokens, positions restart at 0 in each.
    cu = torch.tensor([0, 5, 5, 16], dtype=torch.int32)
    qp = q[0].transpose(0, 1).contiguous()  # (16, H, D)
    pq, _ = rope_reference(qp, qp, cos, sin, interleaved, cu_seqlens=cu)
    pos = torch.tensor(list(range(5)) + list(range(11)))
    want = _complex_rope(qp, cos[pos][:, None], sin[pos][:, None], interleaved)
    assert torch.allclose(pq.double(), want, atol=1e-5)
    # The inverse rotation (the backward) undoes it.
    back, _ = rope_reference(rq, rk, cos, -sin, interleaved)
    assert torch.allclose(back, q, atol=1e-5)


def test_fake_implementation_gives_shapes(torch):
    from torch._subclasses.fake_tensor import FakeTensorMode

    from txl.ops import rope as R

    op = R._custom_op()
    with FakeTensorMode():
        q = torch.empty(2, 8, 64, 128, dtype=torch.bfloat16, device="cuda")
        k = torch.empty(2, 2, 64, 128, dtype=torch.bfloat16, device="cuda")
        c = torch.empty(64, 32, device="cuda")
        oq, ok = op(q, k, c, c, True, False, None, -1)
        assert oq.shape == q.shape and ok.shape == k.shape and oq.dtype == torch.bfloat16
