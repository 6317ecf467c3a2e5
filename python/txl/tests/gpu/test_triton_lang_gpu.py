"""GPU test of issue 14's Triton names: the cases of ``triton_lang_cases.py`` (Philox, umulhi, libdevice on PTX
instructions) against exact references, and tl.randint / tl.rand against Triton's own where Triton is installed."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.tests.gpu import dsl_cases, triton_lang_cases  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("case", triton_lang_cases.CASES, ids=lambda c: c.name)
def test_triton_lang(case):
    dsl_cases.check_case(case, 0)


@pytest.mark.parametrize("seed", [42, -123456789])
def test_randint_bit_identical_to_triton(seed):
    triton = pytest.importorskip("triton")
    import triton.language as ttl

    @triton.jit
    def k(out_ptr, u_ptr, seed, BLOCK: ttl.constexpr):
        offs = ttl.program_id(0) * BLOCK + ttl.arange(0, BLOCK)
        a, b, c, d = ttl.randint4x(seed, offs)
        ttl.store(out_ptr + offs * 4 + 0, a.to(ttl.int32, bitcast=True))
        ttl.store(out_ptr + offs * 4 + 1, b.to(ttl.int32, bitcast=True))
        ttl.store(out_ptr + offs * 4 + 2, c.to(ttl.int32, bitcast=True))
        ttl.store(out_ptr + offs * 4 + 3, d.to(ttl.int32, bitcast=True))
        ttl.store(u_ptr + offs, ttl.rand(seed, offs))

    n = triton_lang_cases.N
    want, want_u = torch.empty(n * 4, dtype=torch.int32, device="cuda"), torch.empty(n, device="cuda")
    k[(n // 256,)](want, want_u, seed, BLOCK=256)
    got, got_u = torch.empty_like(want), torch.empty_like(want_u)
    triton_lang_cases.philox_kernel[(n // 256,)](got, got_u, seed, BLOCK=256)
    torch.cuda.synchronize()
    assert torch.equal(got, want)
    assert torch.equal(got_u, want_u)
