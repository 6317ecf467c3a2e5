"""MLA decoding (``txl.ops.mla_decode``) on the GPU against the float32 torch reference
(``txl.ops.mla_decode.mla_reference``) on fresh random data: o and lse for head counts 16, 20 (a partial head
block), 64 and 128, page sizes 16 and 64, cache lengths 0, 1, 777 and 3001 in one batch, shuffled block tables,
explicit and default split counts (1 split, 7, the default), fp16 and bf16, the 4-D (B, 1, H, 576) layout; argument
errors on CUDA tensors; the custom op's registration (opcheck).

The wgmma kernels (64+ query rows per sequence, pages of 64+ keys), each of the two schedules (mla_decode.SCHEDULE:
"seesaw", the default, txl/kernels/mla_decode_seesaw.py; "fa3", txl/kernels/mla_decode_wgmma.py): h_q 64 / 128,
s_q 1 / 2 (causal and not), lengths 0 / 1 / 64 / 130 / 777 / 3001 / 4096 with NaN in every cache slot past a
sequence's end, pages 64 / 128, one split (O written by the kernel) and several (the combine), bf16 and fp16, rows
that straddle a 64-row block (s_q 2 x 40 heads), checked to have run on that kernel; padded to fewer rows;
misaligned inputs; the mma.sync kernel with s_q 2, causal.

FP8 (e4m3) caches with a per-tensor scale (txl/kernels/mla_decode_fp8.py, every shape; -k fp8): against the float32
reference of the dequantized cache, within 1e-2 and under half of what the quantization itself moves the output:
lengths 0 / 1 / 777 / 3001 / 64 with NaN past each end, shuffled pages 16 / 64, 16 and 128 heads, s_q 1 / 2 (causal
and not), default / 1 / 5 splits; the scale as a 0-d or (1,) tensor or none (1.0), fp16 q, the 4-D cache layout,
the scale read on the device, opcheck, argument errors.

    PYTHONPATH=python TXL_TXLC=... python3 -m pytest -q python/txl/tests/gpu/test_mla_decode_gpu.py
"""

import importlib
import math
import zlib

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.ops.mla_decode import mla_decode, mla_reference  # noqa: E402

mop = importlib.import_module("txl.ops.mla_decode")  # the module (txl.ops.mla_decode is also the function)

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _seed(request):
    torch.manual_seed(zlib.crc32(request.node.name.encode()))


def cache(lens, page, dtype=torch.bfloat16, spare=3, nan_tail=False):
    """(kv_cache, block_table, cache_seqlens): each sequence's pages at random places of a shared pool; nan_tail:
    every slot of a sequence's pages past its length is NaN (never written), as in FlashMLA's test."""
    B = len(lens)
    per = max(1, max(-(-n // page) for n in lens))
    pages = B * per + spare
    kv = torch.randn(pages, page, 576, device="cuda", dtype=dtype)
    bt = torch.randperm(pages, device="cuda")[:B * per].view(B, per).to(torch.int32).contiguous()
    if nan_tail:
        for b, n in enumerate(lens):
            flat = kv[bt[b].long()].reshape(-1, 576)
            flat[n:] = float("nan")
            kv[bt[b].long()] = flat.view(per, page, 576)
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
@pytest.mark.parametrize("heads,page,splits", [(16, 64, None), (20, 16, 7), (20, 64, None), (32, 64, 2),
                                                (64, 64, 1), (128, 64, None), (128, 16, None)])
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


@pytest.mark.parametrize("heads,page", [(16, 16), (64, 64)], ids=["mma_sync", "wgmma"])
def test_custom_op_registration(heads, page):
    kv, bt, seqlens = cache([100, 37], page)
    q = torch.randn(2, 1, heads, 576, device="cuda", dtype=torch.bfloat16)
    torch.library.opcheck(torch.ops.txl.mla_decode, (q, kv, bt, seqlens, 0.05, 2, False),
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


@pytest.fixture
def launched(monkeypatch):
    """The kernels the op launches during the test: fast_launch recorded, with the op's plans emptied first (a call
    whose key ran before replays its launches without fast_launch)."""
    _launch = importlib.import_module("txl.ops._launch")
    real = _launch.fast_launch
    seen = []

    def record(fn, *args, **kwargs):
        seen.append(fn)
        return real(fn, *args, **kwargs)

    monkeypatch.setattr(_launch, "fast_launch", record)
    monkeypatch.setattr(mop, "_plans", {})
    return seen


@pytest.mark.parametrize("heads,page,splits", [(128, 64, 1), (128, 64, 3), (16, 64, None), (16, 16, 2)])
def test_replayed_calls(launched, heads, page, splits):
    """A call whose key ran before replays its launches (no fast_launch, descriptors looked up by address): new q
    values, a second cache of the same shape at another address (new TMA descriptors) with its own block table,
    shorter lengths (within each sequence's written slots: past them the caches hold NaN), and the first cache
    again; each result against the reference."""
    lens = [777, 3001, 64, 1]
    kv, bt, seqlens = cache(lens, page, nan_tail=True)
    kv2, bt2, _ = cache(lens, page, nan_tail=True)
    seqlens2 = torch.tensor([5, 2048, 60, 0], device="cuda", dtype=torch.int32)
    calls = [(kv, bt, seqlens), (kv2, bt2, seqlens2), (kv, bt, seqlens2), (kv, bt, seqlens)]
    for i, (c, t, n) in enumerate(calls):
        q = torch.randn(len(lens), 1, heads, 576, device="cuda", dtype=torch.bfloat16)
        before = len(launched)
        o, lse = mla_decode(q, c, t, n, num_splits=splits, return_lse=True)
        assert (len(launched) > before) == (i == 0), "only the first call of a key goes through fast_launch"
        ro, rlse = mla_reference(q, c, t, n)
        _check(o[:, 0], lse, ro[:, 0], rlse[:, 0])


def _wgmma_kernel(schedule):
    """The kernel of a wgmma schedule (mla_decode.SCHEDULE): "seesaw" (the default) or "fa3"."""
    from txl.kernels import mla_decode_seesaw as ks
    from txl.kernels import mla_decode_wgmma as kw

    return ks.mla_decode_seesaw if schedule == "seesaw" else kw.mla_decode_wgmma


def _ran_wgmma(launched, schedule=None):
    from txl.kernels import mla_decode as km

    kernels = [_wgmma_kernel(schedule or mop.SCHEDULE)]
    return all(k in launched for k in kernels) and km.mla_decode_split not in launched


@pytest.fixture(params=["seesaw", "fa3"])
def schedule(request, monkeypatch):
    """Each wgmma schedule in turn (mla_decode.SCHEDULE: the seesaw default, and FA3's intra-warpgroup overlap)."""
    monkeypatch.setattr(mop, "SCHEDULE", request.param)
    return request.param


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("heads,s_q,causal", [(64, 1, False), (128, 1, False), (64, 2, False), (64, 2, True),
                                              (128, 2, True), (40, 2, True)])
@pytest.mark.parametrize("page,splits", [(64, None), (64, 1), (64, 3), (128, 2)])
def test_mla_decode_wgmma(dtype, heads, s_q, causal, page, splits, launched, schedule):
    """Both wgmma schedules: odd and even tile counts per split (lengths 1 / 64 / 130 / 777 / 3001 / 4096 with NaN
    past each end, 0), causal and not, a partial 64-row block (40 heads x 2 tokens)."""
    if dtype == torch.float16 and (page, splits) != (64, None):
        pytest.skip("fp16: the default splits only")
    lens = [1, 777, 3001, 4096, 0, 64, 130]
    kv, bt, seqlens = cache(lens, page, dtype, nan_tail=True)
    q = torch.randn(len(lens), s_q, heads, 576, device="cuda", dtype=dtype)
    assert mop.uses_wgmma(s_q * heads, page, kv.shape[0])
    o, lse = mla_decode(q, kv, bt, seqlens, num_splits=splits, return_lse=True, causal=causal)
    assert _ran_wgmma(launched, schedule)
    assert o.shape == q.shape[:3] + (512,) and o.dtype == dtype
    assert lse.shape == ((len(lens), heads) if s_q == 1 else (len(lens), s_q, heads))
    ro, rlse = mla_reference(q, kv, bt, seqlens, causal=causal)
    if s_q == 1:
        ro, rlse = ro[:, 0], rlse[:, 0]
        o = o[:, 0]
    _check(o, lse, ro, rlse)
    # Per sequence too: a wrong short sequence hides in the batch's norm.
    for b in range(len(lens)):
        if lens[b]:
            _check(o[b], lse[b], ro[b], rlse[b])


def test_mla_decode_wgmma_3d_and_scale():
    """3-D q (one token) on the wgmma kernel with a DeepSeek-style scale, one split and the default."""
    lens = [4096, 33, 2000]
    kv, bt, seqlens = cache(lens, 64, nan_tail=True)
    q = torch.randn(3, 128, 576, device="cuda", dtype=torch.bfloat16)
    scale = 192 ** -0.5 * 1.3
    ro, rlse = mla_reference(q, kv, bt, seqlens, sm_scale=scale)
    for splits in (1, None):
        o, lse = mla_decode(q, kv, bt, seqlens, sm_scale=scale, num_splits=splits, return_lse=True)
        assert o.shape == (3, 128, 512) and lse.shape == (3, 128)
        _check(o, lse, ro, rlse)


@pytest.mark.parametrize("causal", [False, True])
def test_mla_decode_small_rows_several_tokens(causal, launched):
    """2 tokens x 16 heads = 32 rows: the mma.sync kernel, with the causal rule."""
    lens = [1, 2, 777, 3001]
    kv, bt, seqlens = cache(lens, 16)
    q = torch.randn(4, 2, 16, 576, device="cuda", dtype=torch.bfloat16)
    o, lse = mla_decode(q, kv, bt, seqlens, num_splits=3, return_lse=True, causal=causal)
    from txl.kernels import mla_decode as km

    assert km.mla_decode_split in launched
    ro, rlse = mla_reference(q, kv, bt, seqlens, causal=causal)
    _check(o, lse, ro, rlse)


@pytest.mark.parametrize("heads,s_q,causal,splits", [(16, 1, False, None), (20, 1, False, 2), (16, 2, True, 1)])
def test_mla_decode_wgmma_padded_rows(monkeypatch, launched, heads, s_q, causal, splits, schedule):
    """The wgmma kernel on fewer than 64 query rows (its tile padded; what bench/mla_decode.py's "wgmma pad" column
    times): the op's threshold lowered to 1."""
    monkeypatch.setattr(mop, "WGMMA_ROWS", 1)
    lens = [1, 777, 3001, 0, 130]
    kv, bt, seqlens = cache(lens, 64, nan_tail=True)
    q = torch.randn(len(lens), s_q, heads, 576, device="cuda", dtype=torch.bfloat16)
    o, lse = mla_decode(q, kv, bt, seqlens, num_splits=splits, return_lse=True, causal=causal)
    assert _ran_wgmma(launched, schedule)
    ro, rlse = mla_reference(q, kv, bt, seqlens, causal=causal)
    if s_q == 1:
        o, ro, rlse = o[:, 0], ro[:, 0], rlse[:, 0]
    _check(o, lse, ro, rlse)


def test_misaligned_inputs(launched):
    """Views into larger buffers whose first element is not 16-byte aligned: q is copied for the wgmma kernel's TMA;
    a misaligned cache takes the mma.sync kernel."""
    from txl.kernels import mla_decode as km

    lens = [300, 1000]
    kv, bt, seqlens = cache(lens, 64)
    flat = torch.randn(2 * 64 * 576 + 1, device="cuda", dtype=torch.bfloat16)
    q = flat[1:].view(2, 1, 64, 576)
    assert q.data_ptr() % 16 != 0 and q.is_contiguous()
    ro, rlse = mla_reference(q, kv, bt, seqlens)
    o, lse = mla_decode(q, kv, bt, seqlens, return_lse=True)
    assert _ran_wgmma(launched)
    _check(o[:, 0], lse, ro[:, 0], rlse[:, 0])
    pool = torch.empty(kv.numel() + 1, device="cuda", dtype=torch.bfloat16)
    kv_off = pool[1:].view(kv.shape)
    kv_off.copy_(kv)
    launched.clear()
    o, lse = mla_decode(q, kv_off, bt, seqlens, return_lse=True)
    assert km.mla_decode_split in launched and _wgmma_kernel(mop.SCHEDULE) not in launched
    _check(o[:, 0], lse, ro[:, 0], rlse[:, 0])


# ---- FP8 (e4m3) caches with a per-tensor scale: txl/kernels/mla_decode_fp8.py (every shape) ----------------------


def fp8_cache(lens, page, per_tensor=True, spare=3):
    """(kv float32, kv8 float8_e4m3fn, deq float32 = kv8 * scale, scale, bt, seqlens): a random float32 cache (NaN in
    every slot past a sequence's end) quantized per tensor: scale = amax / 448 (e4m3's largest), or 1.0 when
    ``per_tensor`` is False (the op's default scale)."""
    kv, bt, seqlens = cache(lens, page, torch.float32, spare, nan_tail=True)
    kv = kv * 3.0
    amax = kv.nan_to_num(0.0).abs().amax()
    scale = (amax / 448.0).float() if per_tensor else torch.ones((), device="cuda")
    kv8 = (kv / scale).to(torch.float8_e4m3fn)
    return kv, kv8, kv8.float() * scale, scale, bt, seqlens


def _rel(a, b):
    return ((a.float() - b).norm() / b.norm().clamp_min(1e-6)).item()


def _check_fp8(o, lse, ro_deq, rlse_deq, ro_orig):
    """o / lse of the FP8 cache against the float32 reference of the dequantized cache (what the kernel computes
    exactly but for its 16-bit P and output rounding): within 1e-2 and under half of what the e4m3 quantization
    itself moves the output (the reference on the unquantized cache vs on the dequantized one), so the check is
    about the kernel, not about fp8."""
    _check(o, lse, ro_deq, rlse_deq)
    quant = _rel(ro_orig, ro_deq)
    err = _rel(o, ro_deq)
    assert err < 0.5 * quant, ("kernel error %.2e vs the fp8 quantization's %.2e" % (err, quant))


def _ran_fp8(launched):
    from txl.kernels import mla_decode as km
    from txl.kernels import mla_decode_fp8 as kf
    return (kf.mla_decode_split_fp8 in launched and km.mla_decode_split not in launched
            and not any(_wgmma_kernel(s) in launched for s in ("seesaw", "fa3")))


@pytest.mark.parametrize("heads,s_q,causal", [(16, 1, False), (128, 1, False), (16, 2, False), (16, 2, True),
                                              (128, 2, True)])
@pytest.mark.parametrize("page,splits", [(16, None), (64, None), (64, 1), (64, 5)])
def test_mla_decode_fp8(heads, s_q, causal, page, splits, launched):
    """FP8 cache with a per-tensor scale (0-d tensor): lengths 0 / 1 / 777 / 3001 / 64 in one batch, NaN past each
    end, shuffled pages 16 / 64, 16 and 128 heads (128: the rows the wgmma kernel takes for bf16), 1 or 2 tokens
    (causal and not), default / 1 / 5 splits."""
    if heads == 128 and (page, splits) not in ((64, None), (16, None)):
        pytest.skip("128 heads: the default splits only")
    lens = [1, 777, 3001, 0, 64]
    kv, kv8, deq, scale, bt, seqlens = fp8_cache(lens, page)
    q = torch.randn(len(lens), s_q, heads, 576, device="cuda", dtype=torch.bfloat16)
    sm = 192 ** -0.5
    o, lse = mla_decode(q, kv8, bt, seqlens, sm_scale=sm, num_splits=splits, return_lse=True, causal=causal,
                        kv_scale=scale)
    assert _ran_fp8(launched)
    assert o.shape == q.shape[:3] + (512,) and o.dtype == torch.bfloat16
    assert lse.shape == ((len(lens), heads) if s_q == 1 else (len(lens), s_q, heads))
    ro, rlse = mla_reference(q, deq, bt, seqlens, sm_scale=sm, causal=causal)
    ro_orig, _ = mla_reference(q, kv, bt, seqlens, sm_scale=sm, causal=causal)
    if s_q == 1:
        o, ro, rlse, ro_orig = o[:, 0], ro[:, 0], rlse[:, 0], ro_orig[:, 0]
    _check_fp8(o, lse, ro, rlse, ro_orig)
    for b in range(len(lens)):  # a wrong short sequence hides in the batch's norm
        if lens[b]:
            _check_fp8(o[b], lse[b], ro[b], rlse[b], ro_orig[b])
    # The op's own reference path (mla_reference dequantizes an FP8 cache) agrees with the dequantized one.
    ro2, _ = mla_reference(q, kv8, bt, seqlens, sm_scale=sm, causal=causal, kv_scale=scale)
    torch.testing.assert_close(ro2 if s_q > 1 else ro2[:, 0], ro, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("form", ["default_one", "shape_1", "fp16_q", "3d"])
def test_mla_decode_fp8_forms(form, launched):
    """kv_scale None (1.0: a cache quantized without scaling), a (1,) scale, an fp16 q (o fp16), a 3-D q with the
    4-D (pages, page, 1, 576) cache layout."""
    lens = [3001, 1, 777, 0]
    kv, kv8, deq, scale, bt, seqlens = fp8_cache(lens, 64, per_tensor=form != "default_one")
    dtype = torch.float16 if form == "fp16_q" else torch.bfloat16
    q = torch.randn(len(lens), 16, 576, device="cuda", dtype=dtype)
    kw = {} if form == "default_one" else {"kv_scale": scale.reshape(1) if form == "shape_1" else scale}
    cache_arg = kv8.unsqueeze(2) if form == "3d" else kv8
    o, lse = mla_decode(q, cache_arg, bt, seqlens, return_lse=True, **kw)
    assert _ran_fp8(launched) and o.dtype == dtype and o.shape == (len(lens), 16, 512)
    ro, rlse = mla_reference(q, deq, bt, seqlens)
    ro_orig, _ = mla_reference(q, kv, bt, seqlens)
    _check_fp8(o, lse, ro, rlse, ro_orig)
    assert torch.equal(o[3], torch.zeros_like(o[3])) and (lse[3] == math.inf).all()


def test_mla_decode_fp8_scale_read_on_device():
    """The scale is read on the device: the same tensor rewritten in place (as a CUDA graph would reuse it) gives
    the result of its new value."""
    lens = [500, 130]
    _, kv8, _, scale, bt, seqlens = fp8_cache(lens, 16)
    q = torch.randn(2, 16, 576, device="cuda", dtype=torch.bfloat16)
    s = scale.clone()
    for factor in (1.0, 3.0):
        s.copy_(scale * factor)
        o, lse = mla_decode(q, kv8, bt, seqlens, kv_scale=s, return_lse=True)
        ro, rlse = mla_reference(q, kv8, bt, seqlens, kv_scale=s)
        _check(o, lse, ro, rlse)


def test_custom_op_registration_fp8():
    _, kv8, _, scale, bt, seqlens = fp8_cache([100, 37], 16)
    q = torch.randn(2, 1, 16, 576, device="cuda", dtype=torch.bfloat16)
    # test_faketensor only: opcheck's test_schema multiplies every input tensor to look for mutations, and torch
    # has no mul for float8_e4m3fn ("mul_cuda" not implemented, H200 run of session 19). The bf16 op's opcheck
    # covers the schema, which an fp8 cache does not change.
    torch.library.opcheck(torch.ops.txl.mla_decode, (q, kv8, bt, seqlens, 0.05, 2, False, scale.reshape(1)),
                          test_utils=("test_faketensor",))


def test_fp8_bad_arguments_on_cuda():
    kv, bt, seqlens = cache([10], 16)
    _, kv8, _, scale, bt8, seqlens8 = fp8_cache([10], 16)
    q = torch.randn(1, 16, 576, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="kv_scale is the dequantization scale"):
        mla_decode(q, kv, bt, seqlens, kv_scale=scale)
    with pytest.raises(ValueError, match="kv_scale is on cpu"):
        mla_decode(q, kv8, bt8, seqlens8, kv_scale=scale.cpu())
    with pytest.raises(ValueError, match="one float32 value"):
        mla_decode(q, kv8, bt8, seqlens8, kv_scale=scale.double())
    with pytest.raises(ValueError, match="one float32 value"):
        mla_decode(q, kv8, bt8, seqlens8, kv_scale=scale.expand(2))
    with pytest.raises(TypeError, match="kv_scale must be a torch.Tensor"):
        mla_decode(q, kv8, bt8, seqlens8, kv_scale=0.5)
    with pytest.raises(TypeError, match="float8_e4m3fn"):
        mla_decode(q, kv8.to(torch.float8_e5m2), bt8, seqlens8)
