"""Sliding-window / sink-token / varlen attention without a GPU: the API surface of ``txl.ops.flash_attention(...,
window=, num_sink_tokens=)`` and ``txl.ops.flash_attention_varlen``, their argument errors (torch CPU tensors,
raised before anything is launched; the varlen op checks the device first, so most of its cases run in the GPU
file), and self-tests of the float32 reference that the GPU tests and ``bench/variants.py`` check against
(``attention_variants_ref.py``: the masking rule, counted pairs, rows with no visible key). The API tests skip
until ``txl.ops.flash_attention_varlen`` exists; the reference tests need only torch."""

import inspect
import itertools
import math
import re

import pytest

import txl.ops

from .attention_variants_ref import (dense_reference, effective_window, masked_attention, varlen_dead_rows,
                                     varlen_reference, visible_mask, visible_pairs)

needs_varlen = pytest.mark.skipif(not hasattr(txl.ops, "flash_attention_varlen"),
                                  reason="txl.ops.flash_attention_varlen is not there yet")


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


# -----------------------------------------------------------------------------------------------------------------
# Argument errors. A case: (id, {argument: value or fn(torch, device) -> value}, [regexes the message must contain]).
# Shared with tests/gpu/test_attention_variants_gpu.py (which runs them on CUDA tensors). Loose on purpose.
# -----------------------------------------------------------------------------------------------------------------
def _cu64(T, dev):
    return T.tensor([0, 2, 6], dtype=T.int64, device=dev)


BAD_DENSE = [
    ("window-int", {"window": 128}, ["window"]),
    ("window-triple", {"window": (1, 2, 3)}, ["window"]),
    ("window-float", {"window": (1.5, 0)}, ["window"]),
    ("window-str", {"window": "local"}, ["window"]),
    ("window-below-minus-1", {"window": (-2, 0)}, ["window"]),
    ("sinks-negative", {"num_sink_tokens": -1}, ["num_sink_tokens"]),
    ("sinks-float", {"num_sink_tokens": 2.5}, ["num_sink_tokens"]),
]

BAD_VARLEN = [
    ("window-int", {"window": 128}, ["window"]),
    ("window-float", {"window": (64.0, 0)}, ["window"]),
    ("sinks-negative", {"num_sink_tokens": -3}, ["num_sink_tokens"]),
    ("cu_q-int64", {"cu_seqlens_q": _cu64}, ["cu_seqlens_q", "int32"]),
    ("cu_k-int64", {"cu_seqlens_k": _cu64}, ["cu_seqlens_k", "int32"]),
    ("cu_q-2d", {"cu_seqlens_q": lambda T, dev: T.tensor([[0], [2], [6]], dtype=T.int32, device=dev)},
     ["cu_seqlens_q"]),
    ("cu_q-list", {"cu_seqlens_q": [0, 2, 6]}, ["cu_seqlens_q"]),
    ("cu_batch-mismatch", {"cu_seqlens_k": lambda T, dev: T.tensor([0, 1, 3, 6], dtype=T.int32, device=dev)},
     ["cu_seqlens"]),
]

# On CPU tensors the varlen op may report "q is on cpu" before looking at the other arguments (it does), so the CPU
# file runs only the cases rejected by type alone; the GPU file runs them all on CUDA tensors.
BAD_VARLEN_CPU = [c for c in BAD_VARLEN if c[0] in ("cu_q-list",)]

_VARLEN_ARGS = ("cu_seqlens_q", "cu_seqlens_k", "max_seqlen_q", "max_seqlen_k")


def call_bad(torch, device, case, varlen):
    """Call the op with one bad argument on small zero tensors; it must raise ValueError or TypeError whose message
    matches every regex of the case (case-insensitive)."""
    name, kwargs, patterns = case
    kwargs = {k: (v(torch, device) if callable(v) else v) for k, v in kwargs.items()}
    if varlen:
        q = torch.zeros(6, 2, 64, dtype=torch.bfloat16, device=device)
        kv = torch.zeros(6, 1, 64, dtype=torch.bfloat16, device=device)
        cu = torch.tensor([0, 2, 6], dtype=torch.int32, device=device)
        pos = dict(cu_seqlens_q=cu, cu_seqlens_k=cu, max_seqlen_q=4, max_seqlen_k=4)
        pos.update({k: kwargs.pop(k) for k in _VARLEN_ARGS if k in kwargs})
        args = (q, kv, kv) + tuple(pos[k] for k in _VARLEN_ARGS)
        fn = txl.ops.flash_attention_varlen
    else:
        x = torch.zeros(1, 2, 128, 64, dtype=torch.bfloat16, device=device)
        args = (x, x, x)
        fn = txl.ops.flash_attention
    with pytest.raises((ValueError, TypeError)) as info:
        fn(*args, **kwargs)
    msg = str(info.value)
    for p in patterns:
        assert re.search(p, msg, re.IGNORECASE), "%s: %r does not mention %r" % (name, msg, p)


@needs_varlen
@pytest.mark.parametrize("case", BAD_DENSE, ids=[c[0] for c in BAD_DENSE])
def test_dense_bad_arguments_raise(torch, case):
    call_bad(torch, "cpu", case, varlen=False)


@needs_varlen
@pytest.mark.parametrize("case", BAD_VARLEN_CPU, ids=[c[0] for c in BAD_VARLEN_CPU])
def test_varlen_bad_arguments_raise(torch, case):
    call_bad(torch, "cpu", case, varlen=True)


@needs_varlen
def test_api_signatures():
    dense = inspect.signature(txl.ops.flash_attention).parameters
    assert dense["window"].default == (-1, -1) and dense["num_sink_tokens"].default == 0
    for name in ("causal", "sm_scale", "return_lse", "kernel", "deterministic"):
        assert name in dense, name
    var = inspect.signature(txl.ops.flash_attention_varlen).parameters
    assert list(var)[:7] == ["q", "k", "v", "cu_seqlens_q", "cu_seqlens_k", "max_seqlen_q", "max_seqlen_k"]
    expect = dict(causal=False, sm_scale=None, window=(-1, -1), num_sink_tokens=0, return_lse=False,
                  deterministic=False)
    for name, default in expect.items():
        assert var[name].default == default, (name, var[name].default)


# -----------------------------------------------------------------------------------------------------------------
# The reference itself (CPU, float64 where it matters)
# -----------------------------------------------------------------------------------------------------------------
def _rule(i, j, len_q, len_k, window, sinks, causal):
    # The spec's sentence, literally.
    left, right = window
    if causal:
        right = 0 if right == -1 else min(right, 0)
    off = len_k - len_q
    return (j < len_k and (right == -1 or j <= i + off + right)
            and (left == -1 or j >= i + off - left or j < sinks))


def test_effective_window():
    assert effective_window((-1, -1), True) == (-1, 0)
    assert effective_window((128, 64), True) == (128, 0)
    assert effective_window((128, 64), False) == (128, 64)
    assert effective_window((-1, -1), False) == (-1, -1)


def test_visible_mask_and_pairs_follow_the_rule(torch):
    windows = [(-1, -1), (2, 0), (0, 0), (3, 1), (-1, 2), (1, -1), (0, -1), (20, 20)]
    for lq, lk, w, s, c in itertools.product([1, 5, 9], [0, 1, 6, 9], windows, [0, 2, 12], [False, True]):
        m = visible_mask(lq, lk, w, s, c)
        assert m.shape == (lq, lk) and m.dtype == torch.bool
        want = torch.tensor([[_rule(i, j, lq, lk, w, s, c) for j in range(lk)] for i in range(lq)],
                            dtype=torch.bool).view(lq, lk)
        assert torch.equal(m, want), (lq, lk, w, s, c)
        assert visible_pairs(lq, lk, w, s, c) == int(m.sum()), (lq, lk, w, s, c)
    assert visible_pairs(0, 5) == 0 and visible_pairs(8192, 8192, (1024, 0), 4, True) == int(
        visible_mask(8192, 8192, (1024, 0), 4, True).sum())


def test_dense_reference_matches_sdpa_and_its_gradients(torch):
    F = pytest.importorskip("torch.nn.functional")
    torch.manual_seed(0)
    B, H, HK, N, D = 2, 4, 2, 70, 16
    for causal, window, sinks in ((True, (9, 0), 3), (False, (5, 7), 0), (False, (-1, -1), 0), (True, (-1, 4), 2)):
        q = torch.randn(B, H, N, D, dtype=torch.float64, requires_grad=True)
        k, v = (torch.randn(B, HK, N, D, dtype=torch.float64, requires_grad=True) for _ in range(2))
        o, lse = dense_reference(q, k, v, causal, 0.3, window, sinks, dtype=torch.float64)
        mask = visible_mask(N, N, window, sinks, causal)
        kk, vv = (t.repeat_interleave(H // HK, 1) for t in (k, v))
        want = F.scaled_dot_product_attention(q, kk, vv, attn_mask=mask, scale=0.3)
        assert torch.allclose(o, want, atol=1e-10)
        s = (q @ kk.transpose(-1, -2) * 0.3).masked_fill(~mask, -math.inf)
        assert torch.allclose(lse, torch.logsumexp(s, -1), atol=1e-10)
        do = torch.randn_like(o)
        g = torch.autograd.grad(o, (q, k, v), do)
        g_want = torch.autograd.grad(want, (q, k, v), do)
        for a, b in zip(g, g_want):
            assert torch.allclose(a, b, atol=1e-10)


def test_reference_rows_without_keys(torch):
    # Causal with len_q > len_k (rows with no visible key), a sequence without keys, one without queries: o = 0,
    # lse = +inf on exactly those rows, gradients finite, zero for dead rows and for keys that no query sees.
    torch.manual_seed(0)
    lens_q, lens_k = [30, 6, 7, 0], [10, 6, 0, 5]
    cu_q = torch.tensor([0] + list(itertools.accumulate(lens_q)), dtype=torch.int32)
    cu_k = torch.tensor([0] + list(itertools.accumulate(lens_k)), dtype=torch.int32)
    q = torch.randn(sum(lens_q), 4, 16, requires_grad=True)
    k, v = (torch.randn(sum(lens_k), 2, 16, requires_grad=True) for _ in range(2))
    o, lse = varlen_reference(q, k, v, cu_q, cu_k, True, None, (4, 0), 2)
    assert o.shape == q.shape and lse.shape == (4, q.shape[0]) and lse.dtype == torch.float32
    o.backward(torch.randn_like(o))
    dead_q, dead_k = varlen_dead_rows(cu_q, cu_k, True, (4, 0), 2)
    assert int(dead_q.sum()) == 20 + 7 and int(dead_k.sum()) == 5
    assert (o[dead_q] == 0).all() and (lse[:, dead_q] == math.inf).all() and torch.isfinite(lse[:, ~dead_q]).all()
    for g in (q.grad, k.grad, v.grad):
        assert torch.isfinite(g).all()
    assert (q.grad[dead_q] == 0).all() and (k.grad[dead_k] == 0).all() and (v.grad[dead_k] == 0).all()


def test_varlen_reference_is_dense_per_sequence(torch):
    torch.manual_seed(1)
    N, H, D = 50, 2, 8
    q, k, v = (torch.randn(2 * N, H, D) for _ in range(3))
    cu = torch.tensor([0, N, 2 * N], dtype=torch.int32)
    o, lse = varlen_reference(q, k, v, cu, cu, True, None, (7, 0), 3)
    dense = [t.view(2, N, H, D).transpose(1, 2) for t in (q, k, v)]
    od, lsed = dense_reference(*dense, True, None, (7, 0), 3)
    assert torch.allclose(o, od.transpose(1, 2).reshape(2 * N, H, D), atol=1e-6)
    assert torch.allclose(lse, lsed.transpose(0, 1).reshape(H, 2 * N), atol=1e-6)


def test_masked_attention_broadcasts_mask(torch):
    q, k, v = (torch.randn(3, 2, 5, 4) for _ in range(3))
    mask = torch.ones(5, 5, dtype=torch.bool).tril()
    o, _ = masked_attention(q, k, v, mask, 0.5)
    s = (q @ k.transpose(-1, -2) * 0.5).masked_fill(~mask, -math.inf)
    assert torch.allclose(o, s.softmax(-1) @ v, atol=1e-6)
