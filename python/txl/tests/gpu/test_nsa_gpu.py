"""Block-sparse selection attention (``txl.ops.nsa_selection_attention``) on the GPU against the float32 torch
reference (``txl.ops.nsa.nsa_reference``: a dense mask per sequence built from the selected blocks) on fresh random
data: o, lse and dq/dk/dv; dense and packed (varlen lengths 1, 777 and 3001), GQA groups of 16, 4 and 1 query heads,
block sizes 32/64/128, head dims 64/128, fp16 and bf16, -1 padding, rows that select nothing (O = 0, lse = +inf,
zero gradients), bit-identical gradients from two runs (no atomics), the custom op's registration (opcheck).

    PYTHONPATH=python TXL_TXLC=... python3 -m pytest -q python/txl/tests/gpu/test_nsa_gpu.py
"""

import math
import zlib

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.ops.nsa import nsa_reference, nsa_selection_attention  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _seed(request):
    torch.manual_seed(zlib.crc32(request.node.name.encode()))


def selection(n, hk, s, bs, lead=()):
    """(*lead, hk, n, s) int32: each token's own block first, then distinct random earlier blocks, -1 padded."""
    nb = -(-n // bs)
    cur = (torch.arange(n, device="cuda") // bs)[:, None]
    blk = torch.arange(nb, device="cuda")[None, :]
    score = torch.rand(*lead, hk, n, nb, device="cuda")
    score = torch.where(blk == cur, 2.0, torch.where(blk < cur, score, -1.0))
    top, idx = score.topk(min(s, nb), dim=-1)
    idx = torch.where(top >= 0, idx, -1)
    if s > nb:
        idx = torch.cat([idx, idx.new_full(idx.shape[:-1] + (s - nb,), -1)], -1)
    return idx.to(torch.int32)


def _rel(a, b):
    return ((a.float() - b).norm() / b.norm().clamp_min(1e-3 * max(b.numel(), 1) ** 0.5)).item()


def _run(q, k, v, idx, bs, cu=None):
    """(o, lse, grads) of the op and of the reference for one random dO."""
    leaves = [t.detach().clone().requires_grad_(True) for t in (q, k, v)]
    o, lse = nsa_selection_attention(*leaves, idx, block_size=bs, cu_seqlens=cu, return_lse=True)
    do = torch.randn_like(o)
    o.backward(do)
    refs = [t.detach().float().requires_grad_(True) for t in (q, k, v)]
    ro = nsa_reference(*refs, idx, block_size=bs, cu_seqlens=cu)
    ro.backward(do.float())
    return o, lse, [t.grad for t in leaves], ro, [t.grad for t in refs]


def _check(o, grads, ro, rgrads, tol=2e-2):
    assert torch.isfinite(o).all()
    assert _rel(o, ro) < tol, ("o", _rel(o, ro))
    for name, g, r in zip("qkv", grads, rgrads):
        assert g is not None and torch.isfinite(g).all(), name
        assert _rel(g, r) < 2 * tol, ("d" + name, _rel(g, r))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("hq,hk,d,s,bs", [(32, 2, 128, 8, 64), (16, 1, 64, 6, 32), (8, 2, 128, 4, 128),
                                          (4, 4, 64, 5, 64)], ids=["g16-d128-bs64", "g16-d64-bs32", "g4-bs128",
                                                                   "g1"])
def test_dense(dtype, hq, hk, d, s, bs):
    B, N = 2, 300  # N: not a multiple of any block size
    q = torch.randn(B, hq, N, d, device="cuda", dtype=dtype)
    k = torch.randn(B, hk, N, d, device="cuda", dtype=dtype)
    v = torch.randn(B, hk, N, d, device="cuda", dtype=dtype)
    idx = selection(N, hk, s, bs, lead=(B,))
    o, lse, grads, ro, rgrads = _run(q, k, v, idx, bs)
    assert o.shape == q.shape and o.dtype == dtype and lse.shape == (B, hq, N)
    _check(o, grads, ro, rgrads)
    # lse: the reference's, in natural log
    sc = 1.0 / math.sqrt(d)
    assert torch.isfinite(lse).all()
    ref_lse = _reference_lse(q, k, idx, bs, sc)
    assert (lse - ref_lse).abs().max().item() < 2e-2


def _reference_lse(q, k, idx, bs, sc):
    B, hq, N, _ = q.shape
    hk = k.shape[1]
    nb = -(-N // bs)
    sel = torch.where(idx >= 0, idx.long(), nb)
    hit = torch.zeros(B, hk, N, nb + 1, device="cuda").scatter_add_(3, sel, torch.ones_like(sel, dtype=torch.float))
    mult = hit[..., :nb].repeat_interleave(bs, dim=3)[..., :N].tril().repeat_interleave(hq // hk, dim=1)
    s = q.float() @ k.float().repeat_interleave(hq // hk, dim=1).transpose(2, 3) * sc
    return torch.logsumexp(torch.where(mult > 0, s + mult.log(), float("-inf")), -1)


def test_varlen_lengths_1_777_3001():
    lens = [1, 777, 3001]
    hq, hk, d, s, bs = 16, 1, 64, 8, 64
    cu = torch.tensor([0] + lens, device="cuda").cumsum(0).to(torch.int32)
    total = sum(lens)
    q = torch.randn(total, hq, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(total, hk, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(total, hk, d, device="cuda", dtype=torch.bfloat16)
    idx = torch.cat([selection(n, hk, s, bs).transpose(0, 1) for n in lens]).contiguous()  # (total, hk, s)
    o, lse, grads, ro, rgrads = _run(q, k, v, idx, bs, cu)
    assert o.shape == q.shape and lse.shape == (hq, total)
    _check(o, grads, ro, rgrads)


def test_rows_that_select_nothing():
    # Tokens whose list is all -1 (or only blocks after them) see no key: O = 0, lse = +inf, no gradient from them.
    B, hq, hk, N, d, bs = 1, 16, 1, 200, 64, 32
    q = torch.randn(B, hq, N, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(B, hk, N, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(B, hk, N, d, device="cuda", dtype=torch.bfloat16)
    idx = selection(N, hk, 4, bs, lead=(B,))
    dead = torch.tensor([0, 5, 77, 150], device="cuda")
    idx[:, :, dead] = -1
    idx[:, :, 77, 0] = 6  # block 6 starts at key 192 > 77: masked by causality
    o, lse, grads, ro, rgrads = _run(q, k, v, idx, bs)
    assert torch.equal(o[:, :, dead], torch.zeros_like(o[:, :, dead]))
    assert (lse[:, :, dead] == math.inf).all() and torch.isfinite(lse[:, :, 1:5]).all()
    assert torch.equal(grads[0][:, :, dead], torch.zeros_like(grads[0][:, :, dead]))
    _check(o, grads, ro, rgrads)


def test_gradients_are_deterministic():
    B, hq, hk, N, d, bs = 2, 32, 2, 512, 128, 64
    q = torch.randn(B, hq, N, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    k = torch.randn(B, hk, N, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    v = torch.randn(B, hk, N, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    idx = selection(N, hk, 8, bs, lead=(B,))
    do = torch.randn_like(q)
    runs = []
    for _ in range(2):
        out = nsa_selection_attention(q, k, v, idx, block_size=bs)
        runs.append(torch.autograd.grad(out, (q, k, v), do))
    for a, b in zip(*runs):
        assert torch.equal(a, b)


def test_custom_op_registration():
    B, hq, hk, N, d, bs = 1, 16, 1, 128, 64, 32
    q = torch.randn(B, hq, N, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(B, hk, N, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(B, hk, N, d, device="cuda", dtype=torch.bfloat16)
    idx = selection(N, hk, 3, bs, lead=(B,))
    torch.library.opcheck(torch.ops.txl.nsa_selection_attention, (q, k, v, idx, bs, 0.125, None),
                          test_utils=("test_schema", "test_faketensor"))


def test_bad_arguments_on_cuda():
    q = torch.randn(1, 16, 64, 64, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(1, 1, 64, 64, device="cuda", dtype=torch.bfloat16)
    idx = selection(64, 1, 2, 32, lead=(1,))
    with pytest.raises(ValueError, match="block_size must be one of"):
        nsa_selection_attention(q, k, k, idx, block_size=48)
    with pytest.raises(ValueError, match="block_indices has shape"):
        nsa_selection_attention(q, k, k, idx[:, :, :10], block_size=32)
    with pytest.raises(TypeError, match="share one dtype"):
        nsa_selection_attention(q, k.half(), k, idx, block_size=32)
