"""MLA decoding (``txl.ops.mla_decode``) on the GPU against the float32 torch reference
(``txl.ops.mla_decode.mla_reference``) on fresh random data: o and lse for head counts 16, 20 (a partial head
block), 64 and 128, page sizes 16 and 64, cache lengths 0, 1, 777 and 3001 in one batch, shuffled block tables,
explicit and default split counts (1 split, 7, the default), fp16 and bf16, the 4-D (B, 1, H, 576) layout; argument
errors on CUDA tensors; the custom op's registration (opcheck).

    PYTHONPATH=python TXL_TXLC=... python3 -m pytest -q python/txl/tests/gpu/test_mla_decode_gpu.py
"""

import math
import zlib

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.ops.mla_decode import mla_decode, mla_reference  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _seed(request):
    torch.manual_seed(zlib.crc32(request.node.name.encode()))


def cache(lens, page, dtype=torch.bfloat16, spare=3):
    """(kv_cache, block_table, cache_seqlens): each sequence's pages at random places of a shared pool."""
    B = len(lens)
    per = max(1, max(-(-n // page) for n in lens))
    pages = B * per + spare
    kv = torch.randn(pages, page, 576, device="cuda", dtype=dtype)
    bt = torch.randperm(pages, device="cuda")[:B * per].view(B, per).to(torch.int32).contiguous()
    return kv, bt, torch.tensor(lens, device="cuda", dtype=torch.int32)


def _check(o, lse, ro, rlse):
    live = torch.isfinite(rlse)
    assert torch.isfinite(o).all()
    err = ((o.float() - ro).norm() / ro.norm().clamp_min(1e-6)).item()
    assert err < 1e-2, ("o", err)
    assert torch.equal(lse == math.inf, ~live)
    if live.any():
        assert (lse[live] - rlse[live]).abs().max().item() < 1e-2


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("heads,page,splits", [(16, 64, None), (20, 16, 7), (64, 64, 1), (128, 64, None)])
def test_mla_decode(dtype, heads, page, splits):
    lens = [1, 777, 3001, 256, 64]
    kv, bt, seqlens = cache(lens, page, dtype)
    q = torch.randn(len(lens), heads, 576, device="cuda", dtype=dtype)
    o, lse = mla_decode(q, kv, bt, seqlens, num_splits=splits, return_lse=True)
    assert o.shape == (len(lens), heads, 512) and o.dtype == dtype and lse.shape == (len(lens), heads)
    ro, rlse = mla_reference(q, kv, bt, seqlens)
    _check(o, lse, ro, rlse)


def test_empty_sequence_and_4d_layout():
    lens = [0, 300, 0, 1]
    kv, bt, seqlens = cache(lens, 64)
    q = torch.randn(4, 1, 16, 576, device="cuda", dtype=torch.bfloat16)
    scale = 192 ** -0.5
    o, lse = mla_decode(q, kv.unsqueeze(2), bt, seqlens, sm_scale=scale, num_splits=3, return_lse=True)
    assert o.shape == (4, 1, 16, 512)
    assert torch.equal(o[0], torch.zeros_like(o[0])) and (lse[0] == math.inf).all()
    ro, rlse = mla_reference(q[:, 0], kv, bt, seqlens, sm_scale=scale)
    _check(o[:, 0], lse, ro, rlse)


def test_custom_op_registration():
    kv, bt, seqlens = cache([100, 37], 16)
    q = torch.randn(2, 16, 576, device="cuda", dtype=torch.bfloat16)
    torch.library.opcheck(torch.ops.txl.mla_decode, (q, kv, bt, seqlens, 0.05, 2),
                          test_utils=("test_schema", "test_faketensor"))


def test_bad_arguments_on_cuda():
    kv, bt, seqlens = cache([10], 16)
    q = torch.randn(1, 16, 576, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="q must be"):
        mla_decode(q[..., :512], kv, bt, seqlens)
    with pytest.raises(ValueError, match="page_size"):
        mla_decode(q, torch.randn(4, 24, 576, device="cuda", dtype=torch.bfloat16), bt, seqlens)
    with pytest.raises(ValueError, match="block_table"):
        mla_decode(q, kv, bt.long(), seqlens)
    with pytest.raises(ValueError, match="num_splits"):
        mla_decode(q, kv, bt, seqlens, num_splits=0)
