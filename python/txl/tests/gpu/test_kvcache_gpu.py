"""Decoding over a KV cache (``txl.ops.flash_attention_with_kvcache``) on the GPU against the float32 torch reference
(``txl.ops.kvcache.kvcache_reference``, which gathers each sequence's pages through the block table) on fresh random
data: cache lengths 0, 1, 777 and 3001 in one batch, pages at shuffled places of a shared pool, GQA ratios 1, 4, 8
and 16 with two KV heads (so a wrong KV-head index shows), 1 .. 8 query tokens (causal and not), page sizes 16, 64
and 256, head dims 64, 128 and 256, fp16 and bf16, explicit and automatic split counts; o and lse; unpaged and
strided caches, int / absent cache_seqlens, causal rows that see no key; argument errors on CUDA tensors; the custom
op's registration (opcheck). The CPU test test_kvcache_cpu.py compiles every kernel configuration used here.

    PYTHONPATH=python TXL_TXLC=... python3 -m pytest -q python/txl/tests/gpu/test_kvcache_gpu.py
"""

import math
import zlib

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.ops import flash_attention_with_kvcache  # noqa: E402
from txl.ops.kvcache import kvcache_reference  # noqa: E402

pytestmark = pytest.mark.gpu
LENS = [0, 1, 777, 3001]


@pytest.fixture(autouse=True)
def _seed(request):
    torch.manual_seed(zlib.crc32(request.node.name.encode()))


def paged(lens, page, h_kv, d, dtype=torch.bfloat16, spare=5):
    """(k_cache, v_cache, block_table, cache_seqlens): each sequence's pages at random places of a shared pool; the
    table's unused tail entries point at random pages too (they must not be read)."""
    B = len(lens)
    per = max(1, max(-(-n // page) for n in lens))
    pages = B * per + spare
    kc = torch.randn(pages, page, h_kv, d, device="cuda", dtype=dtype)
    vc = torch.randn(pages, page, h_kv, d, device="cuda", dtype=dtype)
    bt = torch.randperm(pages, device="cuda")[:B * per].view(B, per).to(torch.int32).contiguous()
    return kc, vc, bt, torch.tensor(lens, device="cuda", dtype=torch.int32)


def _check(o, lse, ro, rlse):
    assert torch.isfinite(o).all(), "NaN or inf in o"
    err = ((o.float() - ro).norm() / ro.norm().clamp_min(1e-6)).item()
    assert err < 1e-2, ("o", err)
    live = torch.isfinite(rlse)
    assert torch.equal(lse == math.inf, ~live), "lse = +inf exactly where a row sees no key"
    assert not torch.isnan(lse).any()
    if live.any():
        assert (lse[live] - rlse[live]).abs().max().item() < 1e-2


def _run(group, s_q, page, causal, dtype=torch.bfloat16, d=128, splits=0, h_kv=2, lens=LENS):
    kc, vc, bt, seqlens = paged(lens, page, h_kv, d, dtype)
    q = torch.randn(len(lens), s_q, group * h_kv, d, device="cuda", dtype=dtype)
    o, lse = flash_attention_with_kvcache(q, kc, vc, block_table=bt, cache_seqlens=seqlens, causal=causal,
                                          num_splits=splits, return_softmax_lse=True)
    assert o.shape == q.shape and o.dtype == dtype and lse.shape == (len(lens), group * h_kv, s_q)
    ro, rlse = kvcache_reference(q, kc, vc, bt, seqlens, causal=causal)
    _check(o, lse, ro, rlse)
    # Empty sequences: zeros, not NaN.
    for b, n in enumerate(lens):
        if n == 0:
            assert torch.equal(o[b], torch.zeros_like(o[b]))


# (GQA ratio, query tokens, page size, causal, split count): every ratio, token count and page size at least once.
CASES = [(1, 1, 16, False, 0), (4, 1, 64, False, 0), (8, 1, 256, False, 0), (16, 1, 64, False, 7),
         (1, 4, 64, True, 0), (4, 2, 16, True, 3), (8, 4, 64, True, 0), (16, 8, 256, True, 0),
         (8, 8, 16, True, 1), (16, 2, 64, False, 0), (4, 8, 256, True, 5), (1, 8, 16, True, 0)]


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("group,s_q,page,causal,splits", CASES,
                         ids=["g%d-sq%d-p%d-%s-s%d" % (g, s, p, "causal" if c else "full", n)
                              for g, s, p, c, n in CASES])
def test_paged_decode(dtype, group, s_q, page, causal, splits):
    _run(group, s_q, page, causal, dtype, splits=splits)


@pytest.mark.parametrize("s_q", range(1, 9))
def test_speculative_tokens(s_q):
    """Every query-token count 1 .. 8 at GQA 8 (8 x s_q rows: one 16-, 32- or 64-row tile)."""
    _run(8, s_q, 64, True)


@pytest.mark.parametrize("d,group,s_q", [(64, 4, 1), (64, 16, 8), (256, 8, 1), (256, 4, 4)])
def test_head_dims(d, group, s_q):
    _run(group, s_q, 64, s_q > 1, d=d)


def test_mqa_many_query_heads():
    """MQA: one KV head for 16 query heads x 8 tokens = 128 rows, two row blocks reading one cache tile each."""
    _run(16, 8, 64, True, h_kv=1, lens=[3001, 5, 0, 1024])


def test_splits_agree():
    """One split (the split kernel writes O itself) and many (the combine kernel merges them) give the same O."""
    kc, vc, bt, seqlens = paged([3001, 777], 64, 2, 128)
    q = torch.randn(2, 2, 16, 128, device="cuda", dtype=torch.bfloat16)
    one = flash_attention_with_kvcache(q, kc, vc, block_table=bt, cache_seqlens=seqlens, num_splits=1)
    many = flash_attention_with_kvcache(q, kc, vc, block_table=bt, cache_seqlens=seqlens, num_splits=13)
    assert (one.float() - many.float()).abs().max().item() < 2e-2


def test_unpaged_and_strided_caches():
    """Without block_table (one cache row per sequence, 1000 rows: not a power of two), with an int and with no
    cache_seqlens, and caches that are slices of one (B, len, 2, H_KV, D) buffer (last dim contiguous only)."""
    B, L, h_kv, d = 3, 1000, 2, 128
    kv = torch.randn(B, L, 2, h_kv, d, device="cuda", dtype=torch.float16)
    kc, vc = kv[:, :, 0], kv[:, :, 1]
    assert not kc.is_contiguous()
    q = torch.randn(B, 3, 8 * h_kv, d, device="cuda", dtype=torch.float16)
    seqlens = torch.tensor([1000, 0, 513], device="cuda", dtype=torch.int32)
    o, lse = flash_attention_with_kvcache(q, kc, vc, cache_seqlens=seqlens, causal=True, return_softmax_lse=True)
    _check(o, lse, *kvcache_reference(q, kc, vc, None, seqlens, causal=True))
    o = flash_attention_with_kvcache(q, kc, vc, cache_seqlens=700, softmax_scale=0.05)
    ro, _ = kvcache_reference(q, kc, vc, None, torch.full((B,), 700), softmax_scale=0.05)
    assert ((o.float() - ro).norm() / ro.norm()).item() < 1e-2
    o = flash_attention_with_kvcache(q, kc, vc)
    ro, _ = kvcache_reference(q, kc, vc, None, torch.full((B,), L))
    assert ((o.float() - ro).norm() / ro.norm()).item() < 1e-2

    # Paged and strided: k and v pages interleaved in one pool.
    pool = torch.randn(40, 16, 2, h_kv, d, device="cuda", dtype=torch.bfloat16)
    bt = torch.randperm(40, device="cuda")[:36].view(3, 12).to(torch.int32)
    seqlens = torch.tensor([190, 17, 0], device="cuda", dtype=torch.int32)
    q = torch.randn(3, 1, 4 * h_kv, d, device="cuda", dtype=torch.bfloat16)
    o, lse = flash_attention_with_kvcache(q, pool[:, :, 0], pool[:, :, 1], block_table=bt, cache_seqlens=seqlens,
                                          return_softmax_lse=True)
    _check(o, lse, *kvcache_reference(q, pool[:, :, 0], pool[:, :, 1], bt, seqlens))


def test_causal_rows_that_see_no_key():
    """Causal with fewer cached keys than query tokens: token i sees keys up to len - S_Q + i, so the first tokens
    see none (O = 0, lse = +inf) and none is NaN."""
    _run(4, 8, 16, True, lens=[3, 0, 8, 1])


def test_custom_op_registration():
    kc, vc, bt, seqlens = paged([100, 37], 16, 2, 64)
    q = torch.randn(2, 2, 8, 64, device="cuda", dtype=torch.bfloat16)
    torch.library.opcheck(torch.ops.txl.flash_attention_with_kvcache,
                          (q, kc, vc, bt, seqlens, 0.125, True, 2, 16, bt.shape[1] * 16),
                          test_utils=("test_schema", "test_faketensor"))


def test_bad_arguments_on_cuda():
    kc, vc, bt, seqlens = paged([40, 10], 16, 2, 64)
    q = torch.randn(2, 1, 8, 64, device="cuda", dtype=torch.bfloat16)
    f = flash_attention_with_kvcache
    with pytest.raises(ValueError, match="q must be"):
        f(q[:, 0], kc, vc, block_table=bt, cache_seqlens=seqlens)
    with pytest.raises(TypeError, match="one dtype"):
        f(q.half(), kc, vc, block_table=bt, cache_seqlens=seqlens)
    with pytest.raises(ValueError, match="multiple of nheads_k"):
        f(q[:, :, :7], kc, vc, block_table=bt, cache_seqlens=seqlens)
    with pytest.raises(ValueError, match="head dim of q"):
        f(torch.randn(2, 1, 8, 128, device="cuda", dtype=torch.bfloat16), kc, vc, block_table=bt,
          cache_seqlens=seqlens)
    with pytest.raises(ValueError, match="seqlen_q"):
        f(torch.randn(2, 9, 8, 64, device="cuda", dtype=torch.bfloat16), kc, vc, block_table=bt,
          cache_seqlens=seqlens)
    with pytest.raises(ValueError, match="head dim 32 is not supported"):
        f(q[..., :32], kc[..., :32], vc[..., :32], block_table=bt, cache_seqlens=seqlens)
    with pytest.raises(ValueError, match="page_size"):
        f(q, kc[:, :12], vc[:, :12], block_table=bt, cache_seqlens=seqlens)
    with pytest.raises(ValueError, match="block_table must be"):
        f(q, kc, vc, block_table=bt.long(), cache_seqlens=seqlens)
    with pytest.raises(ValueError, match="cache_seqlens must be"):
        f(q, kc, vc, block_table=bt, cache_seqlens=seqlens.long())
    with pytest.raises(ValueError, match="num_splits"):
        f(q, kc, vc, block_table=bt, cache_seqlens=seqlens, num_splits=65)
    # block_table too short for a length: 3 columns of 16-key pages hold 48 keys.
    with pytest.raises(ValueError, match="block_table more columns"):
        f(q, kc, vc, block_table=bt, cache_seqlens=torch.tensor([49, 1], device="cuda", dtype=torch.int32))
    with pytest.raises(ValueError, match="negative"):
        f(q, kc, vc, block_table=bt, cache_seqlens=torch.tensor([-1, 1], device="cuda", dtype=torch.int32))
    bad = bt.clone()
    bad[1, 0] = kc.shape[0]
    with pytest.raises(ValueError, match="row 1 uses a page index outside"):
        f(q, kc, vc, block_table=bad, cache_seqlens=seqlens)
    with pytest.raises(ValueError, match="row 1 uses a page index outside"):
        f(q, kc, vc, block_table=bad, cache_seqlens=10)  # an int length: the pages are still checked
    with pytest.raises(ValueError, match="exceeds the 48 keys"):
        f(q, kc, vc, block_table=bt, cache_seqlens=49)
    # Unchecked, the kernel still stays inside the table and the cache: no fault, no NaN.
    o = f(q, kc, vc, block_table=bad, cache_seqlens=torch.tensor([1000, 10], device="cuda", dtype=torch.int32),
          check_lengths=False)
    assert torch.isfinite(o).all()


def test_empty_batch():
    kc, vc, _, _ = paged([16], 16, 2, 64)
    q = torch.randn(0, 1, 8, 64, device="cuda", dtype=torch.bfloat16)
    o, lse = flash_attention_with_kvcache(q, kc, vc, block_table=torch.zeros(0, 1, dtype=torch.int32, device="cuda"),
                                          cache_seqlens=torch.zeros(0, dtype=torch.int32, device="cuda"),
                                          return_softmax_lse=True)
    assert o.shape == (0, 1, 8, 64) and lse.shape == (0, 8, 1)
