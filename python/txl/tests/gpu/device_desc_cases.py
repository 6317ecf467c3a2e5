"""GPU cases for tl.make_tensor_descriptor (TMA descriptors built on the device; see test_dsl_device_desc.py for the
IR side). Each kernel sums the K tiles of a bf16 matrix A (M x K) in float32: out[m, j] = sum over tiles t of
A[m, t*BK + j] (out is M x BK), reading A and writing out through descriptors it builds itself:

- ``device_desc_for``: both descriptors built once at the top, desc.load in a loop (ragged sizes: TMA zero fill and
  clipped stores work as with host descriptors);
- ``device_desc_ws``: built at the top of a warp-specialized kernel (each warpgroup builds its own copy), the two
  consumer warpgroups stream their own row blocks;
- ``device_desc_batched``: a persistent loop over batches that rebuilds both descriptors from pointer arithmetic
  (``a_ptr + b * M * K``) on every iteration (the call site's slot is rewritten).

The launcher allocates the global scratch the descriptors live in. Cases use ``dsl_cases.Case``/``run_case``, so
``python/txl/tools/precompile.py`` (which collects every ``*_cases.py`` here) precompiles them.
"""

import txl
import txl.language as tl

from txl.tests.gpu.dsl_cases import Case, cdiv

MODULE = __name__


@txl.jit
def device_desc_for(a_ptr, out_ptr, M, K, BM: tl.constexpr, BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])
    o_desc = tl.make_tensor_descriptor(out_ptr, [M, BK], [BK, 1], [BM, BK])
    off_m = tl.program_id(0) * BM
    acc = tl.zeros([BM, BK], tl.float32)
    for k in range(0, K, BK):
        acc += a_desc.load([off_m, k]).to(tl.float32)
    o_desc.store([off_m, 0], acc)


@txl.jit
def device_desc_ws(a_ptr, out_ptr, M, K, BM: tl.constexpr, BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])
    o_desc = tl.make_tensor_descriptor(out_ptr, [M, BK], [BK, 1], [BM, BK])
    if txl.is_warpgroup([0]):
        txl.reg_dealloc(40)
    if txl.is_warpgroup([1, 2]):
        off_m = (tl.program_id(0) * 2 + txl.warpgroup_id() - 1) * BM
        acc = tl.zeros([BM, BK], tl.float32)
        for k in range(0, K, BK):
            acc += a_desc.load([off_m, k]).to(tl.float32)
        o_desc.store([off_m, 0], acc)


@txl.jit
def device_desc_batched(a_ptr, out_ptr, B, M, K, BM: tl.constexpr, BK: tl.constexpr):
    for b in range(tl.program_id(0), B, tl.num_programs(0)):
        a_desc = tl.make_tensor_descriptor(a_ptr + b * M * K, [M, K], [K, 1], [BM, BK])
        o_desc = tl.make_tensor_descriptor(out_ptr + b * M * BK, [M, BK], [BK, 1], [BM, BK])
        for mb in range(0, tl.cdiv(M, BM)):
            acc = tl.zeros([BM, BK], tl.float32)
            for k in range(0, K, BK):
                acc += a_desc.load([mb * BM, k]).to(tl.float32)
            o_desc.store([mb * BM, 0], acc)


def _ref(T, a, BK):
    torch = T.torch
    *lead, M, K = a.shape
    KP = cdiv(K, BK) * BK
    p = torch.zeros(*lead, M, KP, device=a.device, dtype=torch.float32)
    p[..., :K] = a.float()
    return p.view(*lead, M, KP // BK, BK).sum(-2)


def _build(kernel, M, K, B=None, BM=64, BK=64, ctas=None):
    def build(T):
        a = T.randn((B, M, K) if B else (M, K), "bfloat16")
        out = T.empty((B, M, BK) if B else (M, BK), "float32")
        kw = dict(BM=BM, BK=BK)
        if kernel == "device_desc_batched":
            args, grid = (a, out, B, M, K), (ctas,)
        elif kernel == "device_desc_ws":
            args, grid = (a, out, M, K), (cdiv(cdiv(M, BM), 2),)
            kw.update(num_warps=4, num_warpgroups=3)
        else:
            args, grid = (a, out, M, K), (cdiv(M, BM),)
        return dict(grid=grid, args=args, kwargs=kw, out=out, ref=lambda: _ref(T, a, BK))

    return build


TOL = dict(atol=1e-3, rtol=1e-4)
CASES = [
    Case("device_desc_for", _build("device_desc_for", 256, 512), MODULE, "device_desc_for", tol=TOL),
    Case("device_desc_for_ragged", _build("device_desc_for", 200, 328), MODULE, "device_desc_for", tol=TOL),
    Case("device_desc_ws", _build("device_desc_ws", 512, 384), MODULE, "device_desc_ws", tol=TOL),
    Case("device_desc_batched", _build("device_desc_batched", 192, 256, B=5, ctas=2), MODULE,
         "device_desc_batched", tol=TOL),
]


@txl.jit
def device_desc_gemm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """The Triton tutorial's TMA GEMM shape: C = A @ B^T with A (M x K) and B (N x K) read through device-built
    descriptors; tl.dot reads both staging buffers directly (an SS wgmma, B through a transposed view)."""
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, [N, K], [K, 1], [BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BM, BN])
    off_m = tl.program_id(0) * BM
    off_n = tl.program_id(1) * BN
    acc = tl.zeros([BM, BN], tl.float32)
    for k in range(0, K, BK):
        a = a_desc.load([off_m, k])
        b = b_desc.load([off_n, k])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([off_m, off_n], acc)


def _gemm(M, N, K, BM=64, BN=64, BK=64):
    def build(T):
        a = T.randn((M, K), "bfloat16")
        b = T.randn((N, K), "bfloat16")
        c = T.empty((M, N), "float32")
        return dict(grid=(cdiv(M, BM), cdiv(N, BN)), args=(a, b, c, M, N, K), kwargs=dict(BM=BM, BN=BN, BK=BK),
                    out=c, ref=lambda: a.float() @ b.float().T)

    return build


CASES += [
    Case("device_desc_gemm", _gemm(256, 192, 512), MODULE, "device_desc_gemm", tol=dict(atol=2e-2, rtol=1e-2)),
    Case("device_desc_gemm_ragged", _gemm(200, 136, 328), MODULE, "device_desc_gemm",
         tol=dict(atol=2e-2, rtol=1e-2)),
]
