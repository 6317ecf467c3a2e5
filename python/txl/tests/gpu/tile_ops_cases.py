"""GPU cases for register-tile reshaping and tl.dot on register operands (see test_dsl_tile_ops.py for the IR side).

- ``tile_renames``: y = 2 * x.T (tl.trans), z = interleave(b, a + b) where a, b = split(reshape(x, [M, N/2, 2]))
  (tl.reshape, tl.split, tl.interleave = join + reshape), w = permute(reshape(x, [4, 16, 32]), (2, 0, 1)),
  v = cat(3 * x, x) (join, pair dimension moved to the front, merged with the rows).
- ``dot_regs``: C = A @ B^T with A and B loaded by tl.load into registers (B stored N x K, transposed in
  registers with .T, staged through shared memory by tl.dot), K looped; ``dot_regs_kn`` the same with B stored
  K x N (no transpose). Cases use ``dsl_cases.Case``/``run_case``, so ``python/txl/tools/precompile.py`` (which
  collects every ``*_cases.py`` here) precompiles them.
"""

import txl
import txl.language as tl

from txl.tests.gpu.dsl_cases import Case

MODULE = __name__


@txl.jit
def tile_renames(x_ptr, y_ptr, z_ptr, w_ptr, v_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    offs_t = tl.arange(0, N)[:, None] * M + tl.arange(0, M)[None, :]
    tl.store(y_ptr + offs_t, x.T * 2.0)
    a, b = tl.split(tl.reshape(x, [M, N // 2, 2]))
    tl.store(z_ptr + offs, tl.interleave(b, a + b))
    w = tl.permute(tl.reshape(x, [4, M // 4, N]), (2, 0, 1))  # [N, 4, M // 4]
    offs_w = tl.arange(0, M * N)
    tl.store(w_ptr + offs_w, tl.reshape(w, [M * N]))
    c = tl.cat(x * 3.0, x, can_reorder=True)  # [2M, N]: 3x, then x
    offs_c = tl.arange(0, 2 * M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(v_ptr + offs_c, c)


@txl.jit
def dot_regs(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
             B_KN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros([BM, BN], tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        if B_KN:
            b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
            acc = tl.dot(a, b, acc)
        else:
            bt = tl.load(b_ptr + rn[:, None] * K + (k + rk)[None, :])
            acc = tl.dot(a, bt.T, acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


def _renames(M, N):
    def build(T):
        x = T.randn((M, N))
        y, z, w, v = T.empty((N, M)), T.empty((M, N)), T.empty((M * N,)), T.empty((2 * M, N))

        def ref_z():
            a, b = x.view(M, N // 2, 2).unbind(-1)
            return T.torch.stack([b, a + b], dim=-1).reshape(M, N)

        return dict(grid=(1,), args=(x, y, z, w, v), kwargs=dict(M=M, N=N), out=y, ref=lambda: x.T * 2.0,
                    extra=[("z", z, ref_z, {}),
                           ("w", w, lambda: x.reshape(4, M // 4, N).permute(2, 0, 1).reshape(-1), {}),
                           ("v", v, lambda: T.torch.cat([x * 3.0, x]), {})])

    return build


def _dot(M, K, b_kn, BM=64, BN=64, BK=64):
    def build(T):
        a = T.randn((M, K), "bfloat16")
        b = T.randn((K, BN) if b_kn else (BN, K), "bfloat16")
        c = T.empty((M, BN))

        def ref():
            bf = b.float() if b_kn else b.float().T
            return a.float() @ bf

        return dict(grid=(M // BM,), args=(a, b, c, K), kwargs=dict(BM=BM, BN=BN, BK=BK, B_KN=b_kn), out=c,
                    ref=ref)

    return build


DOT_TOL = dict(atol=2e-2, rtol=1e-2)
CASES = [
    Case("tile_renames", _renames(64, 32), MODULE, "tile_renames", tol=dict(atol=0, rtol=0)),
    Case("tile_renames_128x64", _renames(128, 64), MODULE, "tile_renames", tol=dict(atol=0, rtol=0)),
    Case("dot_regs", _dot(256, 512, False), MODULE, "dot_regs", tol=DOT_TOL),
    Case("dot_regs_kn", _dot(128, 320, True), MODULE, "dot_regs", tol=DOT_TOL),
]


@txl.jit
def renames_around_dot(a_ptr, b_ptr, c_ptr, ct_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    """A loaded K x M and transposed in registers as the dot's A operand (a conversion to the wgmma operand
    layout), B loaded N x K and transposed (staged); the accumulator is transposed (the wgmma layout renamed) and
    stored as C^T, and also reshaped through pairs and back for C."""
    rk = tl.arange(0, K)
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    at = tl.load(a_ptr + rk[:, None] * M + rm[None, :])  # A^T stored K x M
    bt = tl.load(b_ptr + rn[:, None] * K + rk[None, :])  # B stored N x K
    acc = tl.dot(at.T, bt.T)
    tl.store(ct_ptr + rn[:, None] * M + rm[None, :], acc.T)
    lo, hi = tl.split(tl.reshape(acc, [M, N // 2, 2]))
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.interleave(lo, hi))


def _around_dot(M, N, K):
    def build(T):
        at = T.randn((K, M), "bfloat16")
        bt = T.randn((N, K), "bfloat16")
        c, ct = T.empty((M, N)), T.empty((N, M))
        ref = lambda: at.float().T @ bt.float().T  # noqa: E731
        return dict(grid=(1,), args=(at, bt, c, ct), kwargs=dict(M=M, N=N, K=K), out=c, ref=ref,
                    extra=[("ct", ct, lambda: ref().T, DOT_TOL)])

    return build


CASES += [Case("renames_around_dot", _around_dot(64, 64, 64), MODULE, "renames_around_dot", tol=DOT_TOL),
          Case("renames_around_dot_n128", _around_dot(64, 128, 32), MODULE, "renames_around_dot", tol=DOT_TOL)]


@txl.jit
def arg_reductions(x_ptr, q_ptr, amax_ptr, amin_ptr, cmax_ptr, cidx_ptr, lmax_ptr,
                   M: tl.constexpr, N: tl.constexpr):
    """Row argmax / argmin of a float tile, column max with its index (tl.max(return_indices=True)) and the
    last-index tie break of an integer tile full of ties."""
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    tl.store(amax_ptr + rm, tl.argmax(x, axis=1))
    tl.store(amin_ptr + rm, x.argmin(1))
    cm, ci = tl.max(x, axis=0, return_indices=True)
    tl.store(cmax_ptr + rn, cm)
    tl.store(cidx_ptr + rn, ci)
    q = tl.load(q_ptr + rm[:, None] * N + rn[None, :])
    tl.store(lmax_ptr + rm, tl.argmax(q, axis=1, tie_break_left=False))


def _arg_reductions(M, N):
    def build(T):
        x = T.randn((M, N))
        q = T.randint((M, N), 0, 4, "int32")  # many ties
        outs = [T.full((M,), -1, "int32") for _ in range(2)]
        cmax = T.empty((N,))
        cidx = T.full((N,), -1, "int32")
        lmax = T.full((M,), -1, "int32")

        def last_max():  # index of the last maximum of each row
            return (N - 1 - q.flip(1).argmax(1)).int()

        return dict(grid=(1,), args=(x, q, outs[0], outs[1], cmax, cidx, lmax), kwargs=dict(M=M, N=N),
                    out=cmax, ref=lambda: x.max(0).values,
                    extra=[("argmax", outs[0], lambda: x.argmax(1).int(), {}),
                           ("argmin", outs[1], lambda: x.argmin(1).int(), {}),
                           ("max index", cidx, lambda: x.max(0).indices.int(), {}),
                           ("last argmax", lmax, last_max, {})])

    return build


CASES += [Case("arg_reductions", _arg_reductions(64, 64), MODULE, "arg_reductions", tol=dict(atol=0, rtol=0)),
          Case("arg_reductions_32x8", _arg_reductions(32, 8), MODULE, "arg_reductions", tol=dict(atol=0, rtol=0))]


# ---------------------------------------------------------------------------------------------------------------
# Scans (txl.scan): tl.cumsum / tl.cumprod / tl.associative_scan, forward and reverse, along axes that registers,
# lanes and warps split; a non-commutative combine function (the linear recurrence h = a * h + x) checks the order.
# ---------------------------------------------------------------------------------------------------------------
@txl.jit
def _recurrence(a1, x1, a2, x2):
    """(a1, x1) then (a2, x2): h -> a2 * (a1 * h + x1) + x2 (not commutative)."""
    return a1 * a2, x1 * a2 + x2


@txl.jit
def scans_1d(x_ptr, i_ptr, sum_ptr, rsum_ptr, prod_ptr, isum_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(sum_ptr + offs, tl.cumsum(x, 0))
    tl.store(rsum_ptr + offs, tl.cumsum(x, 0, reverse=True))
    tl.store(prod_ptr + offs, tl.cumprod(1.0 + x * 0.01, 0))
    i = tl.load(i_ptr + offs)
    tl.store(isum_ptr + offs, i.cumsum(0))


def _scans_1d(N, num_warps=4):
    def build(T):
        x = T.randn((N,))
        i = T.randint((N,), -100, 100, "int32")
        s, rs, p = T.empty((N,)), T.empty((N,)), T.empty((N,))
        isum = T.full((N,), 0, "int32")
        return dict(grid=(1,), args=(x, i, s, rs, p, isum), kwargs=dict(N=N, num_warps=num_warps),
                    out=s, ref=lambda: x.double().cumsum(0).float(),
                    extra=[("reverse cumsum", rs, lambda: x.double().flip(0).cumsum(0).flip(0).float(), {}),
                           ("cumprod", p, lambda: (1.0 + x.double() * 0.01).cumprod(0).float(), {}),
                           ("int cumsum", isum, lambda: i.cumsum(0).int(), dict(atol=0, rtol=0))])

    return build


@txl.jit
def scans_2d(x_ptr, a_ptr, rows_ptr, cols_ptr, h_ptr, hr_ptr, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    offs = rm[:, None] * N + rn[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(rows_ptr + offs, tl.cumsum(x, axis=1))
    tl.store(cols_ptr + offs, tl.cumsum(x, axis=0))
    a = 0.5 + 0.25 * tl.abs(tl.load(a_ptr + offs))  # keeps the recurrence bounded
    _, h = tl.associative_scan((a, x), 1, _recurrence)
    tl.store(h_ptr + offs, h)
    _, hr = tl.associative_scan((a, x), 1, _recurrence, reverse=True)
    tl.store(hr_ptr + offs, hr)


def _recurrence_ref(a, x, reverse):
    """h_j = a_j * h_{j-1} + x_j along rows (from the last column when ``reverse``), in float64, with the kernel's
    a = 0.5 + |a_raw| / 4."""
    a, x = 0.5 + 0.25 * a.double().abs(), x.double()
    if reverse:
        a, x = a.flip(1), x.flip(1)
    h = x.clone()
    for j in range(1, x.shape[1]):
        h[:, j] = a[:, j] * h[:, j - 1] + x[:, j]
    return (h.flip(1) if reverse else h).float()


def _scans_2d(M, N, num_warps=4):
    def build(T):
        x = T.randn((M, N))
        a = T.randn((M, N))
        outs = [T.empty((M, N)) for _ in range(4)]
        tol = dict(atol=1e-4, rtol=1e-4)
        return dict(grid=(1,), args=(x, a, *outs), kwargs=dict(M=M, N=N, num_warps=num_warps),
                    out=outs[0], ref=lambda: x.double().cumsum(1).float(),
                    extra=[("column cumsum", outs[1], lambda: x.double().cumsum(0).float(), tol),
                           ("recurrence", outs[2], lambda: _recurrence_ref(a, x, False), tol),
                           ("reverse recurrence", outs[3], lambda: _recurrence_ref(a, x, True), tol)])

    return build


SCAN_TOL = dict(atol=1e-4, rtol=1e-4)
CASES += [Case("scans_1d_1024", _scans_1d(1024), MODULE, "scans_1d", tol=SCAN_TOL),
          Case("scans_1d_4096_w8", _scans_1d(4096, 8), MODULE, "scans_1d", tol=SCAN_TOL),
          Case("scans_1d_32", _scans_1d(32), MODULE, "scans_1d", tol=SCAN_TOL),
          Case("scans_2d_64x64", _scans_2d(64, 64), MODULE, "scans_2d", tol=SCAN_TOL),
          Case("scans_2d_16x128_w8", _scans_2d(16, 128, 8), MODULE, "scans_2d", tol=SCAN_TOL)]


# ---------------------------------------------------------------------------------------------------------------
# tl.sort / tl.flip (txl.sort, txl.flip): rows and columns of a 2-D tile, ascending and descending, integers; a 1-D
# tile split over registers, lanes and warps.
# ---------------------------------------------------------------------------------------------------------------
@txl.jit
def sort_flip_2d(x_ptr, i_ptr, asc_ptr, desc_ptr, flip_ptr, isort_ptr, cols_ptr, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    offs = rm[:, None] * N + rn[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(asc_ptr + offs, tl.sort(x))
    tl.store(desc_ptr + offs, tl.sort(x, 1, descending=True))
    tl.store(flip_ptr + offs, tl.flip(x, 1))
    tl.store(isort_ptr + offs, tl.load(i_ptr + offs).sort())
    tl.store(cols_ptr + offs, tl.sort(x, 0))


def _sort_flip_2d(M, N, num_warps=4):
    def build(T):
        x = T.randn((M, N))
        i = T.randint((M, N), -1000, 1000, "int32")
        outs = [T.empty((M, N)) for _ in range(3)]
        isort = T.full((M, N), 0, "int32")
        cols = T.empty((M, N))
        exact = dict(atol=0, rtol=0)
        return dict(grid=(1,), args=(x, i, *outs, isort, cols), kwargs=dict(M=M, N=N, num_warps=num_warps),
                    out=outs[0], ref=lambda: x.sort(1).values,
                    extra=[("descending", outs[1], lambda: x.sort(1, descending=True).values, exact),
                           ("flip", outs[2], lambda: x.flip(1), exact),
                           ("int sort", isort, lambda: i.sort(1).values, exact),
                           ("column sort", cols, lambda: x.sort(0).values, exact)])

    return build


@txl.jit
def sort_flip_1d(x_ptr, asc_ptr, desc_ptr, flip_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(asc_ptr + offs, tl.sort(x))
    tl.store(desc_ptr + offs, x.sort(descending=True))
    tl.store(flip_ptr + offs, x.flip())


def _sort_flip_1d(N, num_warps=4):
    def build(T):
        x = T.randn((N,))
        outs = [T.empty((N,)) for _ in range(3)]
        exact = dict(atol=0, rtol=0)
        return dict(grid=(1,), args=(x, *outs), kwargs=dict(N=N, num_warps=num_warps),
                    out=outs[0], ref=lambda: x.sort().values,
                    extra=[("descending", outs[1], lambda: x.sort(descending=True).values, exact),
                           ("flip", outs[2], lambda: x.flip(0), exact)])

    return build


EXACT = dict(atol=0, rtol=0)
CASES += [Case("sort_flip_2d_32x64", _sort_flip_2d(32, 64), MODULE, "sort_flip_2d", tol=EXACT),
          Case("sort_flip_2d_64x16_w8", _sort_flip_2d(64, 16, 8), MODULE, "sort_flip_2d", tol=EXACT),
          Case("sort_flip_1d_1024", _sort_flip_1d(1024), MODULE, "sort_flip_1d", tol=EXACT),
          Case("sort_flip_1d_4096_w8", _sort_flip_1d(4096, 8), MODULE, "sort_flip_1d", tol=EXACT),
          Case("sort_flip_1d_2", _sort_flip_1d(2), MODULE, "sort_flip_1d", tol=EXACT)]


@txl.jit
def topk_2d(x_ptr, rows_ptr, cols_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    """tl.topk along the rows (the last dimension) and along the columns."""
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    tl.store(rows_ptr + rm[:, None] * K + rk[None, :], tl.topk(x, K))
    tl.store(cols_ptr + rk[:, None] * N + rn[None, :], tl.topk(x, K, dim=0))


def _topk_2d(M, N, K, num_warps=4):
    def build(T):
        x = T.randn((M, N))
        rows, cols = T.empty((M, K)), T.empty((K, N))
        return dict(grid=(1,), args=(x, rows, cols), kwargs=dict(M=M, N=N, K=K, num_warps=num_warps),
                    out=rows, ref=lambda: x.topk(K, dim=1).values,
                    extra=[("column topk", cols, lambda: x.topk(K, dim=0).values, dict(atol=0, rtol=0))])

    return build


CASES += [Case("topk_2d_32x128_k8", _topk_2d(32, 128, 8), MODULE, "topk_2d", tol=EXACT),
          Case("topk_2d_64x64_k16_w8", _topk_2d(64, 64, 16, 8), MODULE, "topk_2d", tol=EXACT)]
