"""Triton-style kernels, written once, run under both Triton and txl (bench/triton_style.py).

Only `triton.language` API that Triton 3.6 has is used (no TXL builtins). The two import lines right below are the
only backend-specific text: bench/triton_style.py copies this file twice into a temporary directory, once as it is
(Triton) and once with them replaced by ``import txl as jitlib`` / ``import txl.language as tl``, and imports both
copies (both JITs read a kernel's source with ``inspect``, so it must live in a real file).

Layouts: matrices are row-major; attention tensors are [B, H, N, D] contiguous; nsa_select takes [B, T, H, D]
queries and [B, T, H_kv, D] keys/values. Attention kernels keep the running row max in the log2 domain (scores
times sm_scale * log2(e), ``tl.exp2``) as Triton's tutorial 06 does.
"""

import triton as jitlib
import triton.language as tl


# ----------------------------------------------------------------------------------------------------------------
# GEMM (tutorials 03 and 09): C[M, N] = A[M, K] @ B, fp16 in, fp32 accumulation, fp16 out.
# ----------------------------------------------------------------------------------------------------------------
@jitlib.jit
def _grouped_pid(M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    """Tile (pid_m, pid_n) of this program, GROUP_M row tiles at a time for L2 reuse."""
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@jitlib.jit
def gemm_ptr(a_ptr, b_ptr, c_ptr, M, N, K,
             stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """B is [K, N]; pointer loads."""
    pid_m, pid_n = _grouped_pid(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(tl.float16)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@jitlib.jit
def gemm_desc(a_desc, b_desc, c_desc, M, N, K,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """Host TMA descriptors: A [M, K] (block [BLOCK_M, BLOCK_K]), B^T stored [N, K] (block [BLOCK_N, BLOCK_K]),
    C [M, N] (block [BLOCK_M, BLOCK_N])."""
    _gemm_desc_tile(a_desc, b_desc, c_desc, M, N, K, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M)


@jitlib.jit
def _gemm_desc_tile(a_desc, b_desc, c_desc, M, N, K,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """This program's C tile through descriptors of A, B^T and C (host-made or device-made)."""
    pid_m, pid_n = _grouped_pid(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    offs_am = pid_m * BLOCK_M
    offs_bn = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([offs_am, k * BLOCK_K])
        b = b_desc.load([offs_bn, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([offs_am, offs_bn], acc.to(tl.float16))


@jitlib.jit
def gemm_devdesc(a_ptr, bt_ptr, c_ptr, M, N, K,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """gemm_desc with descriptors built in the kernel (tl.make_tensor_descriptor); B^T stored [N, K]."""
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(bt_ptr, [N, K], [K, 1], [BLOCK_N, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BLOCK_M, BLOCK_N])
    _gemm_desc_tile(a_desc, b_desc, c_desc, M, N, K, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M)


# ----------------------------------------------------------------------------------------------------------------
# Row softmax (tutorial 02): one row per iteration of a persistent loop, the row in one BLOCK_N tile.
# ----------------------------------------------------------------------------------------------------------------
@jitlib.jit
def softmax(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols, BLOCK_N: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    col_offsets = tl.arange(0, BLOCK_N)
    mask = col_offsets < n_cols
    for row_idx in range(row_start, n_rows, row_step):
        row = tl.load(in_ptr + row_idx * in_row_stride + col_offsets, mask=mask, other=-float("inf"))
        row = row.to(tl.float32)
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        out = numerator / denominator
        tl.store(out_ptr + row_idx * out_row_stride + col_offsets, out.to(tl.float16), mask=mask)


# ----------------------------------------------------------------------------------------------------------------
# LayerNorm (tutorial 05). Forward: one row per program, loops over BLOCK_N columns; saves mean and 1/std.
# Backward: dX per row, per-program partial dW/dB (rows pid, pid + P, ...), then a column reduction of partials.
# ----------------------------------------------------------------------------------------------------------------
@jitlib.jit
def layernorm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    _mean = tl.zeros([BLOCK_N], dtype=tl.float32)
    for off in range(0, N, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_N], dtype=tl.float32)
    for off in range(0, N, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y.to(tl.float16), mask=mask)


@jitlib.jit
def layernorm_bwd_dx(DX, DY, PartialDW, PartialDB, X, W, Mean, Rstd, stride, M, N, BLOCK_N: tl.constexpr):
    """Rows pid, pid + P, ... (P programs); the row is one BLOCK_N tile (BLOCK_N >= N). Writes dX and this
    program's partial dW/dB row (PartialDW/PartialDB are [P, N] fp32)."""
    pid = tl.program_id(0)
    num_progs = tl.num_programs(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    w = tl.load(W + cols, mask=mask, other=0.).to(tl.float32)
    dw = tl.zeros([BLOCK_N], dtype=tl.float32)
    db = tl.zeros([BLOCK_N], dtype=tl.float32)
    for row in range(pid, M, num_progs):
        x = tl.load(X + row * stride + cols, mask=mask, other=0).to(tl.float32)
        dy = tl.load(DY + row * stride + cols, mask=mask, other=0).to(tl.float32)
        mean = tl.load(Mean + row)
        rstd = tl.load(Rstd + row)
        xhat = (x - mean) * rstd
        wdy = w * dy
        xhat = tl.where(mask, xhat, 0.)
        wdy = tl.where(mask, wdy, 0.)
        c1 = tl.sum(xhat * wdy, axis=0) / N
        c2 = tl.sum(wdy, axis=0) / N
        dx = (wdy - (xhat * c1 + c2)) * rstd
        tl.store(DX + row * stride + cols, dx.to(tl.float16), mask=mask)
        dw += dy * xhat
        db += dy
    tl.store(PartialDW + pid * N + cols, dw, mask=mask)
    tl.store(PartialDB + pid * N + cols, db, mask=mask)


@jitlib.jit
def layernorm_bwd_dwdb(PartialDW, PartialDB, FINAL_DW, FINAL_DB, M, N,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Sums the M partial rows of PartialDW/PartialDB ([M, N] fp32) into FINAL_DW/FINAL_DB ([N] fp32)."""
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    dw = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for i in range(0, M, BLOCK_M):
        rows = i + tl.arange(0, BLOCK_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(PartialDW + offs, mask=mask, other=0.)
        db += tl.load(PartialDB + offs, mask=mask, other=0.)
    sum_dw = tl.sum(dw, axis=0)
    sum_db = tl.sum(db, axis=0)
    tl.store(FINAL_DW + cols, sum_dw, mask=cols < N)
    tl.store(FINAL_DB + cols, sum_db, mask=cols < N)


# ----------------------------------------------------------------------------------------------------------------
# Flash attention forward (tutorial 06): grid (N / BLOCK_M, B * H); causal runs the off-diagonal key blocks
# without a mask (STAGE 1) and the diagonal block with one (STAGE 2). Writes O and M = rowmax + log2(rowsum)
# (log2 domain, for the backward).
# ----------------------------------------------------------------------------------------------------------------
@jitlib.jit
def _attn_fwd_inner(acc, l_i, m_i, q, k_base, v_base, start_m, qk_scale, N_CTX,
                    BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr):
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
    else:
        lo, hi = 0, N_CTX
    for start_n in range(lo, hi, BLOCK_N):
        kv_offs = (start_n + offs_n)[:, None] * HEAD_DIM + offs_d[None, :]
        k = tl.load(k_base + kv_offs)
        qk = tl.dot(q, tl.trans(k))
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(v_base + kv_offs)
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    return acc, l_i, m_i


@jitlib.jit
def attn_fwd(Q, K, V, Out, M, sm_scale, N_CTX,
             HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    base = off_hz.to(tl.int64) * N_CTX * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    if CAUSAL:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K + base, V + base, start_m, qk_scale, N_CTX,
                                        BLOCK_M, HEAD_DIM, BLOCK_N, 1)
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K + base, V + base, start_m, qk_scale, N_CTX,
                                        BLOCK_M, HEAD_DIM, BLOCK_N, 2)
    else:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K + base, V + base, start_m, qk_scale, N_CTX,
                                        BLOCK_M, HEAD_DIM, BLOCK_N, 3)
    m_i += tl.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(M + off_hz * N_CTX + offs_m, m_i)
    tl.store(Out + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc.to(tl.float16))


@jitlib.jit
def _fwd_block(sm_scale, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """The query block program (i, bh) of a forward kernel over [B, H, N, D] tensors owns: i, bh, the head's base
    offset, its rows, one key block's rows, the head dim's columns and the log2-domain scale."""
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    base = off_hz.to(tl.int64) * N_CTX * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n0 = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    qk_scale = sm_scale * 1.44269504
    return start_m, off_hz, base, offs_m, offs_n0, offs_d, qk_scale


@jitlib.jit
def _softmax_update(qk, m_i, l_i, acc):
    """One key block of an online softmax, scores qk in the log2 domain: P = exp2(qk - new row max), the row sum
    and the accumulator rescaled to the new max (the caller adds P V and then takes the new max as m_i)."""
    m_ij = tl.maximum(m_i, tl.max(qk, 1))
    p = tl.exp2(qk - m_ij[:, None])
    alpha = tl.exp2(m_i - m_ij)
    l_i = l_i * alpha + tl.sum(p, 1)
    acc = acc * alpha[:, None]
    return p, l_i, acc, m_ij


@jitlib.jit
def attn_fwd_desc(q_desc, k_desc, v_desc, o_desc, sm_scale, N_CTX,
                  HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    """attn_fwd through host TMA descriptors over the [B * H * N, D] views (blocks [BLOCK_M or BLOCK_N, D]);
    one loop with the causal mask applied on the diagonal block only."""
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    row0 = off_hz * N_CTX
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = q_desc.load([row0 + start_m * BLOCK_M, 0])
    hi = (start_m + 1) * BLOCK_M if CAUSAL else N_CTX
    for start_n in range(0, hi, BLOCK_N):
        k = k_desc.load([row0 + start_n, 0])
        qk = tl.dot(q, k.T) * qk_scale
        if CAUSAL:
            qk = tl.where(offs_m[:, None] >= (start_n + offs_n[None, :]), qk, -1.0e6)
        p, l_i, acc, m_ij = _softmax_update(qk, m_i, l_i, acc)
        v = v_desc.load([row0 + start_n, 0])
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    o_desc.store([row0 + start_m * BLOCK_M, 0], acc.to(tl.float16))


# ----------------------------------------------------------------------------------------------------------------
# Flash attention backward (FA2): Delta = rowsum(O * dO); dK/dV per key block looping over query blocks; dQ per
# query block looping over key blocks. M is the forward's log2-domain row statistic.
# ----------------------------------------------------------------------------------------------------------------
@jitlib.jit
def attn_bwd_preprocess(O, DO, Delta, N_CTX, BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    off_hz = tl.program_id(1)
    off_n = tl.arange(0, HEAD_DIM)
    offs = off_hz.to(tl.int64) * N_CTX * HEAD_DIM + off_m[:, None] * HEAD_DIM + off_n[None, :]
    o = tl.load(O + offs).to(tl.float32)
    do = tl.load(DO + offs).to(tl.float32)
    delta = tl.sum(o * do, axis=1)
    tl.store(Delta + off_hz * N_CTX + off_m, delta)


@jitlib.jit
def _bwd_block(sm_scale, N_CTX, HEAD_DIM: tl.constexpr, BLOCK: tl.constexpr, OTHER: tl.constexpr):
    """The block of BLOCK rows program (i, bh) of a backward kernel owns (keys of attn_bwd_dkdv, queries of
    attn_bwd_dq): its first row, bh, the head's base offset, its rows, the other side's rows of one step
    (OTHER), the head dim's columns, the log2-domain scale and the block's element offsets."""
    start = tl.program_id(0) * BLOCK
    off_hz = tl.program_id(1)
    base = off_hz.to(tl.int64) * N_CTX * HEAD_DIM
    offs = start + tl.arange(0, BLOCK)
    offs_other = tl.arange(0, OTHER)
    offs_d = tl.arange(0, HEAD_DIM)
    qk_scale = sm_scale * 1.44269504
    block_offs = base + offs[:, None] * HEAD_DIM + offs_d[None, :]
    return start, off_hz, base, offs, offs_other, offs_d, qk_scale, block_offs


@jitlib.jit
def attn_bwd_dkdv(Q, K, V, DO, DK, DV, M, Delta, sm_scale, N_CTX,
                  HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    start_n, off_hz, base, offs_n, offs_m0, offs_d, qk_scale, kv_offs = _bwd_block(sm_scale, N_CTX, HEAD_DIM, BLOCK_N,
                                                                                 BLOCK_M)
    k = tl.load(K + kv_offs)
    v = tl.load(V + kv_offs)
    dk = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    lo = (start_n // BLOCK_M) * BLOCK_M if CAUSAL else 0
    for start_m in range(lo, N_CTX, BLOCK_M):
        offs_m = start_m + offs_m0
        q_offs = base + offs_m[:, None] * HEAD_DIM + offs_d[None, :]
        q = tl.load(Q + q_offs)
        do = tl.load(DO + q_offs)
        m = tl.load(M + off_hz * N_CTX + offs_m)
        Di = tl.load(Delta + off_hz * N_CTX + offs_m)
        qkT = tl.dot(k, tl.trans(q))
        pT = tl.exp2(qkT * qk_scale - m[None, :])
        if CAUSAL:
            pT = tl.where(offs_m[None, :] >= offs_n[:, None], pT, 0.0)
        dv = tl.dot(pT.to(tl.float16), do, dv)
        dpT = tl.dot(v, tl.trans(do))
        dsT = pT * (dpT - Di[None, :])
        dk = tl.dot(dsT.to(tl.float16), q, dk)
    dk = dk * sm_scale
    tl.store(DK + kv_offs, dk.to(tl.float16))
    tl.store(DV + kv_offs, dv.to(tl.float16))


@jitlib.jit
def attn_bwd_dq(Q, K, V, DO, DQ, M, Delta, sm_scale, N_CTX,
                HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    start_m, off_hz, base, offs_m, offs_n0, offs_d, qk_scale, q_offs = _bwd_block(sm_scale, N_CTX, HEAD_DIM, BLOCK_M,
                                                                                BLOCK_N)
    q = tl.load(Q + q_offs)
    do = tl.load(DO + q_offs)
    m = tl.load(M + off_hz * N_CTX + offs_m)
    Di = tl.load(Delta + off_hz * N_CTX + offs_m)
    dq = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    hi = start_m + BLOCK_M if CAUSAL else N_CTX
    for start_n in range(0, hi, BLOCK_N):
        offs_n = start_n + offs_n0
        kv_offs = base + offs_n[:, None] * HEAD_DIM + offs_d[None, :]
        k = tl.load(K + kv_offs)
        v = tl.load(V + kv_offs)
        qk = tl.dot(q, tl.trans(k))
        p = tl.exp2(qk * qk_scale - m[:, None])
        if CAUSAL:
            p = tl.where(offs_m[:, None] >= offs_n[None, :], p, 0.0)
        dp = tl.dot(do, tl.trans(v))
        ds = p * (dp - Di[:, None])
        dq = tl.dot(ds.to(tl.float16), k, dq)
    dq = dq * sm_scale
    tl.store(DQ + q_offs, dq.to(tl.float16))


# ----------------------------------------------------------------------------------------------------------------
# NSA selection attention: GQA with G query heads per KV head. Program (t, b * H_KV + h) loads the G query rows of
# token t, walks the S selected key blocks of Idx[b, t, h, :] (block indices, -1 = none; the first one is the
# token's own block) and does an online softmax over each block of BLOCK_N keys (keys after t are masked).
# ----------------------------------------------------------------------------------------------------------------
@jitlib.jit
def _nsa_select_blocks(q, K, V, Idx, idx_base, kv_base, kv_stride, t, sm_scale,
                       G: tl.constexpr, HEAD_DIM: tl.constexpr, S: tl.constexpr, BLOCK_N: tl.constexpr):
    """Online softmax of the G query rows `q` of token t over its S selected key blocks (Idx[idx_base + s]; keys
    at row kv_base + pos * kv_stride of K and V, positions after t masked); the normalized output."""
    offs_d = tl.arange(0, HEAD_DIM)
    offs_n = tl.arange(0, BLOCK_N)
    qk_scale = sm_scale * 1.44269504
    m_i = tl.zeros([G], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([G], dtype=tl.float32)
    acc = tl.zeros([G, HEAD_DIM], dtype=tl.float32)
    for s in range(0, S):
        blk = tl.load(Idx + idx_base + s)
        pos = tl.maximum(blk, 0) * BLOCK_N + offs_n
        kv_offs = kv_base + pos[:, None] * kv_stride + offs_d[None, :]
        k = tl.load(K + kv_offs)
        qk = tl.dot(q, tl.trans(k)) * qk_scale
        valid = (pos <= t) & (blk >= 0)
        qk = tl.where(valid[None, :], qk, float("-inf"))
        p, l_i, acc, m_ij = _softmax_update(qk, m_i, l_i, acc)
        v = tl.load(V + kv_offs)
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    return acc / l_i[:, None]


@jitlib.jit
def nsa_select(Q, K, V, Idx, Out, T, sm_scale,
               H_KV: tl.constexpr, G: tl.constexpr, HEAD_DIM: tl.constexpr, S: tl.constexpr,
               BLOCK_N: tl.constexpr):
    t = tl.program_id(0)
    bh = tl.program_id(1)
    b = bh // H_KV
    h = bh % H_KV
    offs_g = tl.arange(0, G)
    offs_d = tl.arange(0, HEAD_DIM)
    q_base = ((b * T + t) * H_KV * G + h * G).to(tl.int64) * HEAD_DIM
    q = tl.load(Q + q_base + offs_g[:, None] * HEAD_DIM + offs_d[None, :])
    kv_base = (b * T * H_KV + h).to(tl.int64) * HEAD_DIM
    kv_stride = H_KV * HEAD_DIM
    idx_base = ((b * T + t) * H_KV + h) * S
    acc = _nsa_select_blocks(q, K, V, Idx, idx_base, kv_base, kv_stride, t, sm_scale, G, HEAD_DIM, S, BLOCK_N)
    tl.store(Out + q_base + offs_g[:, None] * HEAD_DIM + offs_d[None, :], acc.to(Out.dtype.element_ty))


@jitlib.jit
def nsa_select_varlen(Q, K, V, Idx, Bos, Out, sm_scale,
                      H_KV: tl.constexpr, G: tl.constexpr, HEAD_DIM: tl.constexpr, S: tl.constexpr,
                      BLOCK_N: tl.constexpr):
    """nsa_select over sequences packed along one token axis (cu_seqlens): program (t, h) for global token t;
    Bos[t] is the first token of t's sequence, Idx holds block indices local to the sequence."""
    t = tl.program_id(0)
    h = tl.program_id(1)
    bos = tl.load(Bos + t)
    t_local = t - bos
    offs_g = tl.arange(0, G)
    offs_d = tl.arange(0, HEAD_DIM)
    q_base = (t * H_KV * G + h * G).to(tl.int64) * HEAD_DIM
    q = tl.load(Q + q_base + offs_g[:, None] * HEAD_DIM + offs_d[None, :])
    kv_base = (bos * H_KV + h).to(tl.int64) * HEAD_DIM
    kv_stride = H_KV * HEAD_DIM
    idx_base = (t * H_KV + h) * S
    acc = _nsa_select_blocks(q, K, V, Idx, idx_base, kv_base, kv_stride, t_local, sm_scale, G, HEAD_DIM, S, BLOCK_N)
    tl.store(Out + q_base + offs_g[:, None] * HEAD_DIM + offs_d[None, :], acc.to(Out.dtype.element_ty))


# ----------------------------------------------------------------------------------------------------------------
# Attention with RoPE fused: q and k are rotated (rotate-half) in the kernel with Cos/Sin tables [N, D / 2] fp32.
# The rotation reads each row twice, the second time with its halves swapped: x * cos + swap(x) * sign * sin.
# ----------------------------------------------------------------------------------------------------------------
@jitlib.jit
def _rope(x_ptrs_base, rows, Cos, Sin, HEAD_DIM: tl.constexpr):
    """Rows `rows` of a [*, HEAD_DIM] fp16 matrix at x_ptrs_base, rotated; returned as fp16 [len(rows), HEAD_DIM]."""
    HALF: tl.constexpr = HEAD_DIM // 2
    offs_d = tl.arange(0, HEAD_DIM)
    swapped = (offs_d + HALF) % HEAD_DIM
    x = tl.load(x_ptrs_base + rows[:, None] * HEAD_DIM + offs_d[None, :]).to(tl.float32)
    xs = tl.load(x_ptrs_base + rows[:, None] * HEAD_DIM + swapped[None, :]).to(tl.float32)
    cs_offs = rows[:, None] * HALF + (offs_d % HALF)[None, :]
    cos = tl.load(Cos + cs_offs)
    sin = tl.load(Sin + cs_offs)
    sign = tl.where(offs_d < HALF, -1.0, 1.0)
    return (x * cos + xs * sin * sign[None, :]).to(tl.float16)


@jitlib.jit
def rope_attn(Q, K, V, Cos, Sin, Out, sm_scale, N_CTX,
              HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    start_m, off_hz, base, offs_m, offs_n0, offs_d, qk_scale = _fwd_block(sm_scale, N_CTX, HEAD_DIM, BLOCK_M, BLOCK_N)
    q = _rope(Q + base, offs_m, Cos, Sin, HEAD_DIM)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    hi = (start_m + 1) * BLOCK_M if CAUSAL else N_CTX
    for start_n in range(0, hi, BLOCK_N):
        offs_n = start_n + offs_n0
        k = _rope(K + base, offs_n, Cos, Sin, HEAD_DIM)
        qk = tl.dot(q, tl.trans(k)) * qk_scale
        if CAUSAL:
            qk = tl.where(offs_m[:, None] >= offs_n[None, :], qk, -1.0e6)
        p, l_i, acc, m_ij = _softmax_update(qk, m_i, l_i, acc)
        v = tl.load(V + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(Out + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc.to(tl.float16))


# ----------------------------------------------------------------------------------------------------------------
# Sliding-window attention with attention sinks: query i sees keys j with i - WINDOW < j <= i; head h's sink logit
# Sinks[h] joins the softmax denominator only. The running max starts at the sink (so fully masked blocks are safe)
# with l = 1 for the sink's own term.
# ----------------------------------------------------------------------------------------------------------------
@jitlib.jit
def swa_sink(Q, K, V, Sinks, Out, sm_scale, N_CTX, H,
             HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, WINDOW: tl.constexpr):
    start_m, off_hz, base, offs_m, offs_n0, offs_d, qk_scale = _fwd_block(sm_scale, N_CTX, HEAD_DIM, BLOCK_M, BLOCK_N)
    q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    sink = tl.load(Sinks + off_hz % H) * 1.44269504
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) + sink
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    lo = tl.maximum(start_m * BLOCK_M - WINDOW + 1, 0) // BLOCK_N * BLOCK_N
    hi = (start_m + 1) * BLOCK_M
    for start_n in range(lo, hi, BLOCK_N):
        offs_n = start_n + offs_n0
        kv_offs = base + offs_n[:, None] * HEAD_DIM + offs_d[None, :]
        k = tl.load(K + kv_offs)
        qk = tl.dot(q, tl.trans(k)) * qk_scale
        in_window = (offs_m[:, None] >= offs_n[None, :]) & (offs_m[:, None] - offs_n[None, :] < WINDOW)
        qk = tl.where(in_window, qk, float("-inf"))
        p, l_i, acc, m_ij = _softmax_update(qk, m_i, l_i, acc)
        v = tl.load(V + kv_offs)
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(Out + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc.to(tl.float16))
