"""GPU cases for the Triton names of issue 14's first tranche: Philox (tl.randint4x / tl.rand against a Python
reference written from Triton 3.6's random.py, exact), tl.umulhi, and libdevice functions computed with PTX
instructions (rounding, classification, conversions: exact against torch). ``test_triton_lang_gpu.py`` runs them
and, where Triton is installed on the GPU host, also compares tl.randint / tl.rand with Triton's own."""

import txl
import txl.language as tl
from txl.language.extra import libdevice

from txl.tests.gpu.dsl_cases import Case

MODULE = __name__
M32 = 0xFFFFFFFF
N = 1024


def philox_reference(seed, c0, c1, c2, c3, n_rounds=10):
    seed &= (1 << 64) - 1
    k0, k1 = seed & M32, (seed >> 32) & M32
    for _ in range(n_rounds):
        _c0, _c2 = c0, c2
        c0 = ((0xCD9E8D57 * _c2) >> 32) ^ c1 ^ k0
        c2 = ((0xD2511F53 * _c0) >> 32) ^ c3 ^ k1
        c1 = (0xCD9E8D57 * _c2) & M32
        c3 = (0xD2511F53 * _c0) & M32
        k0 = (k0 + 0x9E3779B9) & M32
        k1 = (k1 + 0xBB67AE85) & M32
    return c0, c1, c2, c3


def _signed(v):
    return v - (1 << 32) if v >> 31 else v


@txl.jit
def philox_kernel(out_ptr, u_ptr, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a, b, c, d = tl.randint4x(seed, offs)
    tl.store(out_ptr + offs * 4 + 0, a.to(tl.int32, bitcast=True))
    tl.store(out_ptr + offs * 4 + 1, b.to(tl.int32, bitcast=True))
    tl.store(out_ptr + offs * 4 + 2, c.to(tl.int32, bitcast=True))
    tl.store(out_ptr + offs * 4 + 3, d.to(tl.int32, bitcast=True))
    tl.store(u_ptr + offs, tl.rand(seed, offs))


def _philox(seed):
    def build(T):
        out, u = T.empty((N * 4,), "int32"), T.empty((N,))

        def ref():
            vals = [_signed(v) for o in range(N) for v in philox_reference(seed, o, 0, 0, 0)]
            return T.torch.tensor(vals, dtype=T.torch.int32, device="cuda")

        def ref_u():
            first = ref().view(N, 4)[:, 0]
            x = T.torch.where(first < 0, -first - 1, first)
            return x.to(T.torch.float32) * 4.6566127342e-10

        return dict(grid=(N // 256,), args=(out, u, seed), kwargs=dict(BLOCK=256), out=out, ref=ref,
                    extra=[("u", u, ref_u, dict(atol=0, rtol=0))])

    return build


@txl.jit
def bits_kernel(x_ptr, i_ptr, f_ptr, k_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    i = tl.load(i_ptr + offs)
    fo = offs * 8
    tl.store(f_ptr + fo + 0, libdevice.floor(x))
    tl.store(f_ptr + fo + 1, libdevice.ceil(x))
    tl.store(f_ptr + fo + 2, libdevice.trunc(x))
    tl.store(f_ptr + fo + 3, libdevice.rint(x))
    tl.store(f_ptr + fo + 4, libdevice.round(x))
    tl.store(f_ptr + fo + 5, libdevice.copysign(x + 1.0, i.to(tl.float32)))
    tl.store(f_ptr + fo + 6, libdevice.saturatef(x))
    tl.store(f_ptr + fo + 7, libdevice.int2float_rn(i))
    ko = offs * 6
    tl.store(k_ptr + ko + 0, libdevice.float2int_rn(x))
    tl.store(k_ptr + ko + 1, libdevice.float2int_rd(x))
    tl.store(k_ptr + ko + 2, libdevice.float2int_ru(x))
    tl.store(k_ptr + ko + 3, libdevice.signbit(x) + 2 * libdevice.isnan(x) + 4 * libdevice.isinf(x))
    tl.store(k_ptr + ko + 4, libdevice.popc(i) + 64 * libdevice.clz(i) + 4096 * libdevice.ffs(i))
    tl.store(k_ptr + ko + 5, tl.umulhi(i, 0x9E3779B9).to(tl.int32, bitcast=True))


def _bits(T):
    B = 256
    x = T.randn((B,), scale=8.0)
    i = T.randint((B,), -2**31, 2**31 - 1, "int32")
    f, k = T.empty((B * 8,)), T.empty((B * 6,), "int32")

    def ref_f():
        torch = T.torch
        xs = x.double()
        rnd = torch.where(xs >= 0, torch.floor(xs + 0.5), torch.ceil(xs - 0.5))  # C round: half away from 0
        cols = [torch.floor(x), torch.ceil(x), torch.trunc(x), torch.round(x), rnd.float(),
                torch.copysign(x + 1.0, i.float()), torch.clamp(x, 0.0, 1.0), i.float()]
        return torch.stack(cols, dim=1).reshape(-1)

    def ref_k():
        torch = T.torch
        iv = [v & M32 for v in i.tolist()]
        popc = [bin(v).count("1") for v in iv]
        clz = [32 - v.bit_length() for v in iv]
        ffs = [(v & -v).bit_length() for v in iv]
        hi = [_signed((v * 0x9E3779B9) >> 32) for v in iv]
        bits = [p + 64 * c + 4096 * s for p, c, s in zip(popc, clz, ffs)]
        cols = [torch.round(x).int(), torch.floor(x).int(), torch.ceil(x).int(), (x < 0).int(),
                torch.tensor(bits, dtype=torch.int32, device="cuda"),
                torch.tensor(hi, dtype=torch.int32, device="cuda")]
        return torch.stack(cols, dim=1).reshape(-1)

    return dict(grid=(1,), args=(x, i, f, k), kwargs=dict(BLOCK=B), out=f, ref=ref_f,
                extra=[("k", k, ref_k, dict(atol=0, rtol=0))])


CASES = [
    Case("philox_seed_42", _philox(42), MODULE, "philox_kernel", tol=dict(atol=0, rtol=0)),
    Case("philox_seed_neg", _philox(-123456789), MODULE, "philox_kernel", tol=dict(atol=0, rtol=0)),
    Case("libdevice_bits", _bits, MODULE, "bits_kernel", tol=dict(atol=0, rtol=0)),
]
