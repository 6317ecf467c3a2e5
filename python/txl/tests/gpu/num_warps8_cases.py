"""Triton-style kernels launched with num_warps=8: one copy of the body on two warpgroups that split each dot's M.

With ``num_warps=8`` (and one warpgroup role, the default) the frontend marks the kernel ``txl.role_warps = 8``.
txl-assign-layouts then gives dot accumulators ``#txl.nvmma<warpsPerCTA = [8, 1]>`` (warpgroup w owns the 64-row
blocks w, w + 2, ...), txl-wgmma issues each warpgroup's blocks with its A descriptor offset by w blocks, and the
role (not the warpgroup) is the unit of TMA issue, of the sync before a TMA store and of the copy rings (one
leader thread, named barrier 1 over 256 threads).

- ``nw8_ptr_gemm*``: the pointer-load GEMM of cp_async_alignment_cases (cp.async ring, async wgmma) at BM = 128;
- ``nw8_bp_gemm``: Triton's block-pointer GEMM;
- ``nw8_device_desc_gemm*``: descriptors built in the kernel (one per role in the global scratch), TMA ring, TMA
  store of the fp32 result;
- ``nw8_attn*``: a Triton-style attention forward (pointer loads, online softmax in the accumulator layout of two
  warpgroups, P from registers into the second dot), causal and not, ragged N.

``ROLE_CASES``: num_warps=8 on a kernel whose two warpgroups each own their rows (two roles of one warpgroup).

Shared by test_num_warps8_gpu.py (runs each case against torch in float32) and the CPU test test_num_warps.py
(compiles them and checks the PTX); precompile.py collects CASES.
"""

import txl
import txl.language as tl

from txl.tests.gpu.block_ptr_cases import GEMM_TOL, _gemm as _bp_gemm
from txl.tests.gpu.cp_async_alignment_cases import _ptr_gemm
from txl.tests.gpu.device_desc_cases import _gemm as _dd_gemm
from txl.tests.gpu.dsl_cases import Case, cdiv

MODULE = __name__


@txl.jit
def nw8_attn(q_ptr, k_ptr, v_ptr, o_ptr, N, sm_scale, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
             BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    """o = softmax(q k^T * sm_scale [causal]) v for one (batch * head) of contiguous (BH, N, D) fp16 tensors."""
    pid_m = tl.program_id(0)
    base = tl.program_id(1).to(tl.int64) * N * HEAD_DIM
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], mask=offs_m[:, None] < N, other=0.0)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    hi = tl.minimum((pid_m + 1) * BLOCK_M, N) if CAUSAL else N
    for start in range(0, hi, BLOCK_N):
        cols = start + offs_n
        k = tl.load(k_ptr + base + cols[None, :] * HEAD_DIM + offs_d[:, None], mask=cols[None, :] < N, other=0.0)
        s = tl.dot(q, k) * qk_scale
        valid = cols[None, :] < N
        if CAUSAL:
            valid = valid & (cols[None, :] <= offs_m[:, None])
        s = tl.where(valid, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        alpha = tl.math.exp2(m_i - m_new)
        p = tl.math.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + base + cols[:, None] * HEAD_DIM + offs_d[None, :], mask=cols[:, None] < N, other=0.0)
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_new
    o = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], o.to(tl.float16),
             mask=offs_m[:, None] < N)


def _attn(BH, N, D, causal, BM=128, BN=64, **options):
    def build(T):
        q, k, v = (T.randn((BH, N, D), "float16") for _ in range(3))
        o = T.empty((BH, N, D), "float16")
        scale = D ** -0.5

        def ref():
            torch = T.torch
            s = (q.float() @ k.float().transpose(1, 2)) * scale
            if causal:
                s = s.masked_fill(torch.ones(N, N, dtype=torch.bool, device="cuda").triu(1), float("-inf"))
            return (s.softmax(-1) @ v.float()).half()

        return dict(grid=(cdiv(N, BM), BH), args=(q, k, v, o, N, scale),
                    kwargs=dict(HEAD_DIM=D, BLOCK_M=BM, BLOCK_N=BN, CAUSAL=causal, num_warps=8, **options),
                    out=o, ref=ref)

    return build


def _with(build, **options):
    """A case builder with launch options added to its kwargs."""
    def with_options(T):
        d = build(T)
        d["kwargs"] = dict(d["kwargs"], **options)
        return d

    return with_options


@txl.jit
def nw8_warpgroup_rows(x_ptr, y_ptr, ROWS: tl.constexpr):
    """Each warpgroup owns its ROWS elements (TXL's roles): y = x + 1 on warpgroup w's slice w * ROWS ..."""
    offs = txl.warpgroup_id() * ROWS + tl.arange(0, ROWS)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) + 1.0)


def _warpgroup_rows(rows, **options):
    def build(T):
        x = T.randn((2 * rows,), "float32")
        y = T.empty((2 * rows,), "float32")
        return dict(grid=(1,), args=(x, y), kwargs=dict(ROWS=rows, **options), out=y, ref=lambda: x + 1.0)

    return build


W8 = dict(num_warps=8)
ATTN_TOL = dict(atol=1e-2, rtol=1e-2)
CASES = [
    Case("nw8_ptr_gemm", _ptr_gemm(256, 256, 192, 128, 128, 64, num_stages=3, **W8),
         "txl.tests.gpu.cp_async_alignment_cases", "ptr_gemm", tol=GEMM_TOL),
    # N = 256 per CTA: each warpgroup holds a 64 x 256 accumulator (128 registers)
    Case("nw8_ptr_gemm_bn256_ragged", _ptr_gemm(200, 300, 136, 128, 256, 64, num_stages=3, **W8),
         "txl.tests.gpu.cp_async_alignment_cases", "ptr_gemm", tol=GEMM_TOL),
    Case("nw8_bp_gemm", _bp_gemm(200, 184, 216, 128, 128, 64, **W8), "txl.tests.gpu.block_ptr_cases", "bp_gemm",
         tol=GEMM_TOL),
    Case("nw8_device_desc_gemm", _with(_dd_gemm(256, 256, 512, BM=128, BN=128, BK=64), **W8),
         "txl.tests.gpu.device_desc_cases", "device_desc_gemm", tol=dict(atol=2e-2, rtol=1e-2)),
    Case("nw8_device_desc_gemm_ragged", _with(_dd_gemm(200, 136, 328, BM=128, BN=64, BK=64), **W8),
         "txl.tests.gpu.device_desc_cases", "device_desc_gemm", tol=dict(atol=2e-2, rtol=1e-2)),
    Case("nw8_attn", _attn(4, 512, 64, False), MODULE, "nw8_attn", tol=ATTN_TOL),
    Case("nw8_attn_causal_ragged", _attn(3, 333, 64, True), MODULE, "nw8_attn", tol=ATTN_TOL),
    Case("nw8_attn_d128", _attn(2, 384, 128, False, num_stages=2), MODULE, "nw8_attn", tol=ATTN_TOL),
]

# num_warps=8 on a kernel whose warpgroups own their rows (txl.warpgroup_id()): two roles of 4 warps, the layouts
# of each role span its own warpgroup. They once spanned all 8 warps (txlc's --num-warps-per-layout=8 beside the
# module's attributes), so each thread stored 4 of its 8 values and half of every warpgroup's rows stayed unwritten.
ROLE_CASES = [
    Case("nw8_warpgroup_rows", _warpgroup_rows(1024, **W8), MODULE, "nw8_warpgroup_rows"),
    Case("nw4x2_warpgroup_rows", _warpgroup_rows(1024, num_warps=4, num_warpgroups=2), MODULE,
         "nw8_warpgroup_rows"),
]
