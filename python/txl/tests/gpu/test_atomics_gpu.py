"""GPU tests of tl.atomic_* (skipped without torch + a CUDA GPU): exact results under contention against torch.

- histograms of 1M random ints into 256 bins (relaxed red and the default acq_rel atom) vs torch.bincount, also
  with a tile smaller than the CTA (64 elements over 128 threads: warps 2 and 3 hold copies of warps 0 and 1, and
  each element must still be counted once);
- atomic_max / atomic_min of int32, int64, float32 and float64 (negative values, -0.0) into 16 slots vs
  torch.scatter_reduce (unsigned max/min: the runtime has no uint32 tensors; test_atomics.py checks their PTX);
- the old values: a ticket counter on tiles (with and without copies in the layout) hands out a permutation of
  0..N-1, and a scalar ticket per program reaches every thread of the program;
- atomic_cas without spinning: programs race to claim slots, exactly one wins each;
- xchg, and/or/xor, f16/bf16/f64/i64 add.

The kernels JIT-compile through txlc (TXL_TXLC, the wheel's txlc or build/bin/txlc) or come from TXL_CACHE_DIR.
"""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

import txl  # noqa: E402
import txl.language as tl  # noqa: E402

pytestmark = pytest.mark.gpu
DEV = "cuda"


def cdiv(a, b):
    return (a + b - 1) // b


# -- histograms ---------------------------------------------------------------------------------------------------
@txl.jit
def histogram(x_ptr, hist_ptr, n, BLOCK: tl.constexpr, RELAXED: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    if RELAXED:
        tl.atomic_add(hist_ptr + x, 1, mask=mask, sem="relaxed")
    else:
        tl.atomic_add(hist_ptr + x, 1, mask=mask)


@pytest.mark.parametrize("block", [64, 256, 1024])
@pytest.mark.parametrize("relaxed", [True, False])
def test_histogram_matches_bincount(block, relaxed):
    torch.manual_seed(block)
    n = 1 << 20
    x = torch.randint(0, 256, (n,), device=DEV, dtype=torch.int32)
    hist = torch.zeros(256, device=DEV, dtype=torch.int32)
    histogram[(cdiv(n, block),)](x, hist, n, BLOCK=block, RELAXED=relaxed)
    torch.cuda.synchronize()
    ref = torch.bincount(x.long(), minlength=256).to(torch.int32)
    assert torch.equal(hist, ref), (hist - ref).abs().max()


def test_histogram_ragged_and_skewed():
    # a size that is not a multiple of the block (masked tail) and most values in one bin (heavy contention)
    torch.manual_seed(1)
    n = 1_000_003
    x = torch.randint(0, 256, (n,), device=DEV, dtype=torch.int32)
    x[torch.rand(n, device=DEV) < 0.9] = 7
    hist = torch.zeros(256, device=DEV, dtype=torch.int32)
    histogram[(cdiv(n, 512),)](x, hist, n, BLOCK=512, RELAXED=True)
    torch.cuda.synchronize()
    assert torch.equal(hist, torch.bincount(x.long(), minlength=256).to(torch.int32))


# -- max / min ----------------------------------------------------------------------------------------------------
@txl.jit
def reduce_slots(x_ptr, out_ptr, old_ptr, n, SLOTS: tl.constexpr, BLOCK: tl.constexpr, MAX: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if MAX:
        old = tl.atomic_max(out_ptr + offs % SLOTS, x, mask=mask)
    else:
        old = tl.atomic_min(out_ptr + offs % SLOTS, x, mask=mask)
    tl.store(old_ptr + offs, old, mask=mask)


def _slots_ref(x, slots, is_max, init):
    idx = torch.arange(x.numel(), device=DEV) % slots
    out = torch.full((slots,), init, device=DEV, dtype=x.dtype)
    return out.scatter_reduce(0, idx, x, "amax" if is_max else "amin", include_self=True)


@pytest.mark.parametrize("is_max", [True, False])
@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.float32, torch.float64])
@pytest.mark.parametrize("block", [64, 512])
def test_max_min_exact(is_max, dtype, block):
    torch.manual_seed(2)
    n, slots = 1 << 18, 16
    if dtype.is_floating_point:
        x = (torch.randn(n, device=DEV, dtype=torch.float64) * 1e3).to(dtype)
        x[::97] = -0.0
        x[::89] = 0.0
        init = float("-inf") if is_max else float("inf")
    else:
        x = torch.randint(-(1 << 30), 1 << 30, (n,), device=DEV, dtype=dtype)
        info = torch.iinfo(dtype)
        init = info.min if is_max else info.max
    out = torch.full((slots,), init, device=DEV, dtype=dtype)
    old = torch.empty_like(x)
    reduce_slots[(cdiv(n, block),)](x, out, old, n, SLOTS=slots, BLOCK=block, MAX=is_max)
    torch.cuda.synchronize()
    assert torch.equal(out, _slots_ref(x, slots, is_max, init))
    # every old value is one the slot held: never past the final value
    final = out[torch.arange(n, device=DEV) % slots]
    assert bool((old <= final).all()) if is_max else bool((old >= final).all())


def test_float_max_orders_signed_zeros_and_negatives():
    # all values negative: the unsigned-min half does the work; -0.0 is the largest
    x = torch.tensor([-5.0, -0.0, -1e-30, -3.0] * 64, device=DEV, dtype=torch.float32)
    out = torch.full((1,), float("-inf"), device=DEV, dtype=torch.float32)
    old = torch.empty_like(x)
    reduce_slots[(cdiv(x.numel(), 64),)](x, out, old, x.numel(), SLOTS=1, BLOCK=64, MAX=True)
    torch.cuda.synchronize()
    assert out.item() == 0.0 and str(out.item()) == "-0.0"
    out = torch.full((1,), float("inf"), device=DEV, dtype=torch.float32)
    reduce_slots[(cdiv(x.numel(), 64),)](x, out, old, x.numel(), SLOTS=1, BLOCK=64, MAX=False)
    torch.cuda.synchronize()
    assert out.item() == -5.0


# -- old values ---------------------------------------------------------------------------------------------------
@txl.jit
def tile_tickets(counter_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    one = tl.full([BLOCK], 1, tl.int32)
    t = tl.atomic_add(counter_ptr + offs * 0, one, mask=mask)
    tl.store(out_ptr + offs, t, mask=mask)


@pytest.mark.parametrize("block", [32, 64, 128, 1024])
def test_tile_tickets_are_a_permutation(block):
    n = 100_000
    counter = torch.zeros(1, device=DEV, dtype=torch.int32)
    out = torch.full((n,), -1, device=DEV, dtype=torch.int32)
    tile_tickets[(cdiv(n, block),)](counter, out, n, BLOCK=block)
    torch.cuda.synchronize()
    assert counter.item() == n
    assert torch.equal(torch.sort(out).values, torch.arange(n, device=DEV, dtype=torch.int32))


@txl.jit
def scalar_tickets(counter_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    t = tl.atomic_add(counter_ptr, 1)
    # every thread writes the ticket it received: all copies must agree
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + pid * BLOCK + offs, t + offs * 0)


def test_scalar_ticket_is_one_per_program_and_reaches_every_thread():
    grid, block = 4096, 128
    counter = torch.zeros(1, device=DEV, dtype=torch.int32)
    out = torch.full((grid, block), -1, device=DEV, dtype=torch.int32)
    scalar_tickets[(grid,)](counter, out, BLOCK=block)
    torch.cuda.synchronize()
    assert counter.item() == grid  # one update per program, not per thread
    assert bool((out == out[:, :1]).all())  # every thread of a program got the same old value
    assert torch.equal(torch.sort(out[:, 0]).values, torch.arange(grid, device=DEV, dtype=torch.int32))


# -- compare-and-swap without spinning -----------------------------------------------------------------------------
@txl.jit
def claim(slots_ptr, won_ptr, K: tl.constexpr):
    pid = tl.program_id(0)
    old = tl.atomic_cas(slots_ptr + pid % K, 0, pid + 1)
    tl.store(won_ptr + pid, (old == 0).to(tl.int32))


@txl.jit
def claim_tile(slots_ptr, won_ptr, K: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    old = tl.atomic_cas(slots_ptr + offs % K, tl.zeros([BLOCK], tl.int64), offs.to(tl.int64) + 1,
                        sem="relaxed")
    tl.store(won_ptr + offs, (old == 0).to(tl.int32))


def test_scalar_cas_one_winner_per_slot():
    grid, k = 8192, 37
    slots = torch.zeros(k, device=DEV, dtype=torch.int32)
    won = torch.full((grid,), -1, device=DEV, dtype=torch.int32)
    claim[(grid,)](slots, won, K=k)
    torch.cuda.synchronize()
    pid = torch.arange(grid, device=DEV)
    wins = torch.zeros(k, device=DEV, dtype=torch.int64).index_add_(0, pid % k, won.long())
    assert torch.equal(wins, torch.ones_like(wins))
    winners = pid[won == 1]
    assert torch.equal(slots[winners % k].long(), winners + 1)


@pytest.mark.parametrize("block", [64, 256])
def test_tile_cas_64bit_one_winner_per_slot(block):
    n, k = 1 << 16, 1000
    slots = torch.zeros(k, device=DEV, dtype=torch.int64)
    won = torch.full((n,), -1, device=DEV, dtype=torch.int32)
    claim_tile[(cdiv(n, block),)](slots, won, K=k, BLOCK=block)
    torch.cuda.synchronize()
    i = torch.arange(n, device=DEV)
    wins = torch.zeros(k, device=DEV, dtype=torch.int64).index_add_(0, i % k, won.long())
    assert torch.equal(wins, torch.ones_like(wins))
    winners = i[won == 1]
    assert torch.equal(slots[winners % k], winners + 1)


# -- xchg, bitwise, other types -----------------------------------------------------------------------------------
@txl.jit
def exchange(p, v_ptr, old_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    old = tl.atomic_xchg(p + offs, tl.load(v_ptr + offs, mask=mask), mask=mask)
    tl.store(old_ptr + offs, old, mask=mask)


@pytest.mark.parametrize("dtype", [torch.int32, torch.float32, torch.int64, torch.float64])
def test_xchg_returns_the_old_values(dtype):
    n = 10_000
    p = torch.arange(n, device=DEV).to(dtype)
    v = (torch.arange(n, device=DEV) * 3 + 1).to(dtype)
    old = torch.empty_like(p)
    exchange[(cdiv(n, 256),)](p, v, old, n, BLOCK=256)
    torch.cuda.synchronize()
    assert torch.equal(old, torch.arange(n, device=DEV).to(dtype)) and torch.equal(p, v)


@txl.jit
def bits(and_ptr, or_ptr, xor_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    bit = tl.full([BLOCK], 1, tl.int32) << (offs % 32)
    tl.atomic_or(or_ptr + offs // 1024, bit, mask=mask, sem="relaxed")
    tl.atomic_and(and_ptr + offs // 1024, ~bit, mask=mask & (offs % 2 == 0))
    tl.atomic_xor(xor_ptr + offs // 1024, bit, mask=mask & (offs % 3 == 0), scope="gpu")


def test_and_or_xor():
    n = 1 << 16
    words = n // 1024
    a = torch.full((words,), -1, device=DEV, dtype=torch.int32)
    o = torch.zeros(words, device=DEV, dtype=torch.int32)
    x = torch.zeros(words, device=DEV, dtype=torch.int32)
    bits[(cdiv(n, 256),)](a, o, x, n, BLOCK=256)
    torch.cuda.synchronize()
    # each word sees every bit 32 times: or sets all, and clears the even bits, xor toggles bit b once per
    # offset i with i % 32 == b and i % 3 == 0 within the word's 1024 offsets
    assert bool((o == -1).all())
    assert bool((a == int.from_bytes(b"\xaa\xaa\xaa\xaa", "little") - (1 << 32)).all())
    ref = torch.zeros(words, dtype=torch.int64)
    for w in range(words):
        v = 0
        for i in range(w * 1024, (w + 1) * 1024):
            if i % 3 == 0:
                v ^= 1 << (i % 32)
        ref[w] = v - (1 << 32) if v >= 1 << 31 else v
    assert torch.equal(x.cpu().long(), ref)


@txl.jit
def add_into(p, v_ptr, n, SLOTS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.atomic_add(p + offs % SLOTS, tl.load(v_ptr + offs, mask=mask), mask=mask, sem="relaxed", scope="gpu")


@pytest.mark.parametrize("dtype,slots,n", [
    (torch.float16, 64, 64 * 1024),   # 1024 adds of 1.0 per slot: exact in fp16 (< 2048)
    (torch.bfloat16, 64, 64 * 128),   # 128 per slot: exact in bf16 (< 256)
    (torch.float64, 64, 1 << 18), (torch.int64, 64, 1 << 18), (torch.float32, 64, 1 << 18),
])
def test_add_types(dtype, slots, n):
    v = torch.ones(n, device=DEV, dtype=dtype)
    if dtype == torch.int64:
        v *= 1 << 33  # needs 64-bit adds
    p = torch.zeros(slots, device=DEV, dtype=dtype)
    add_into[(cdiv(n, 256),)](p, v, n, SLOTS=slots, BLOCK=256)
    torch.cuda.synchronize()
    assert torch.equal(p, torch.full_like(p, n // slots) * v[0])
