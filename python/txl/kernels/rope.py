"""Rotary position embeddings (RoPE) of q and k in one launch: a Triton-style kernel (pointer loads and stores).

For each row x of q or k (one head at one position p) and each pair i < ROT / 2 of its first ROT columns:

    (x1, x2) = (x[i], x[i + ROT / 2])      non-interleaved (GPT-NeoX)
    (x1, x2) = (x[2 i], x[2 i + 1])        interleaved (GPT-J)
    out1 = x1 cos[p, i] - x2 sin[p, i]
    out2 = x1 sin[p, i] + x2 cos[p, i]

in float32, written in the input's dtype; columns ROT .. D - 1 are copied unchanged (flash-attn's apply_rotary_emb).
BACKWARD rotates by -theta (sin negated): the gradient of a rotation is the inverse rotation, dx = rope(dy, cos, -sin).

Layouts (element strides, head dim contiguous): dense (B, H, N, D) -- program (m, h, b) rotates positions
m * BLOCK .. of head h of batch b; packed (total, H, D) with VARLEN and CU_SEQLENS (num_seqs + 1 int32 offsets) --
program (m, h, s) rotates rows CU_SEQLENS[s] + m * BLOCK .. of sequence s, the position being the index within the
sequence. Grid axis 1 walks the HQ heads of q, then the heads of k, so both tensors are rotated by one launch; the
outputs may have other strides than the inputs (the op writes contiguous tensors). cos and sin are (>= seqlen,
ROT / 2) rows with their own row strides, in float32, bf16 or fp16.

Tile sizes are powers of two: ROT / 2 and D - ROT are padded up with masked columns (so any even ROT <= D works).
Global accesses are vectors when pointers and strides are 16-byte aligned (the ':16' specialisation). The register
layouts follow the loads: with float32 tables the (BLOCK, ROT / 2) tiles hold 4 columns per thread, so the
non-interleaved x halves move 8 bytes per access (16 with 16-bit tables); interleaved with 16-bit tables, the
split x pairs and the cos/sin tiles differ in layout and the compiler converts them through shared memory.
"""

import txl
import txl.language as tl


@txl.jit
def _rope_tile(X, O, COS, SIN, x_rows, o_rows, pos, rmask, cos_stride, sin_stride, HEAD_DIM: tl.constexpr,
               ROT: tl.constexpr, HALF_P: tl.constexpr, REST_P: tl.constexpr, INTERLEAVED: tl.constexpr,
               BACKWARD: tl.constexpr, BLOCK: tl.constexpr):
    # One tile of BLOCK rows: x_rows / o_rows are the int64 element offsets of the rows in X / O, pos their
    # positions (rows of cos/sin), rmask the rows that exist.
    HALF: tl.constexpr = ROT // 2
    hc = tl.arange(0, HALF_P)
    if HALF == HALF_P:
        hmask = rmask[:, None]
    else:
        hmask = rmask[:, None] & (hc[None, :] < HALF)
    c = tl.load(COS + pos[:, None] * cos_stride + hc[None, :], mask=hmask, other=0.0).to(tl.float32)
    s = tl.load(SIN + pos[:, None] * sin_stride + hc[None, :], mask=hmask, other=0.0).to(tl.float32)
    if BACKWARD:
        s = -s
    if INTERLEAVED:
        rc = tl.arange(0, 2 * HALF_P)
        if HALF == HALF_P:
            fmask = rmask[:, None]
        else:
            fmask = rmask[:, None] & (rc[None, :] < ROT)
        x = tl.load(X + x_rows[:, None] + rc[None, :], mask=fmask, other=0.0).to(tl.float32)
        x1, x2 = tl.split(tl.reshape(x, [BLOCK, HALF_P, 2]))
        out = tl.interleave(x1 * c - x2 * s, x1 * s + x2 * c)
        tl.store(O + o_rows[:, None] + rc[None, :], out.to(O.dtype.element_ty), mask=fmask)
    else:
        x1 = tl.load(X + x_rows[:, None] + hc[None, :], mask=hmask, other=0.0).to(tl.float32)
        x2 = tl.load(X + x_rows[:, None] + HALF + hc[None, :], mask=hmask, other=0.0).to(tl.float32)
        tl.store(O + o_rows[:, None] + hc[None, :], (x1 * c - x2 * s).to(O.dtype.element_ty), mask=hmask)
        tl.store(O + o_rows[:, None] + HALF + hc[None, :], (x1 * s + x2 * c).to(O.dtype.element_ty), mask=hmask)
    if ROT < HEAD_DIM:
        # The columns past the rotary dim, copied.
        pc = ROT + tl.arange(0, REST_P)
        if HEAD_DIM - ROT == REST_P:
            pmask = rmask[:, None]
        else:
            pmask = rmask[:, None] & (pc[None, :] < HEAD_DIM)
        tl.store(O + o_rows[:, None] + pc[None, :], tl.load(X + x_rows[:, None] + pc[None, :], mask=pmask),
                 mask=pmask)


@txl.jit
def rope_kernel(Q, K, OQ, OK, COS, SIN, CU_SEQLENS, seqlen, HQ,
                sq_b, sq_h, sq_n, sk_b, sk_h, sk_n, soq_b, soq_h, soq_n, sok_b, sok_h, sok_n, cos_stride, sin_stride,
                HEAD_DIM: tl.constexpr, ROT: tl.constexpr, HALF_P: tl.constexpr, REST_P: tl.constexpr,
                INTERLEAVED: tl.constexpr, BACKWARD: tl.constexpr, VARLEN: tl.constexpr, BLOCK: tl.constexpr):
    # Grid (cdiv(longest sequence, BLOCK), HQ + HK, B or num_seqs). s*_b, s*_h, s*_n: element strides of batch,
    # head and position (packed: s*_b = 0 and s*_n is the token stride); seqlen: N (dense; unused with VARLEN).
    pid_m = tl.program_id(0)
    head = tl.program_id(1)
    seq = tl.program_id(2)
    if VARLEN:
        start = tl.load(CU_SEQLENS + seq)
        n = tl.load(CU_SEQLENS + seq + 1) - start
    else:
        start = 0
        n = seqlen
    if pid_m * BLOCK >= n:
        return
    pos = pid_m * BLOCK + tl.arange(0, BLOCK)
    rmask = pos < n
    tok = (start + pos).to(tl.int64)  # row of the token within its tensor's position axis
    b = seq.to(tl.int64)
    if head < HQ:
        hq = head.to(tl.int64)
        _rope_tile(Q, OQ, COS, SIN, b * sq_b + hq * sq_h + tok * sq_n, b * soq_b + hq * soq_h + tok * soq_n,
                   pos, rmask, cos_stride, sin_stride, HEAD_DIM, ROT, HALF_P, REST_P, INTERLEAVED, BACKWARD, BLOCK)
    else:
        hk = (head - HQ).to(tl.int64)
        _rope_tile(K, OK, COS, SIN, b * sk_b + hk * sk_h + tok * sk_n, b * sok_b + hk * sok_h + tok * sok_n,
                   pos, rmask, cos_stride, sin_stride, HEAD_DIM, ROT, HALF_P, REST_P, INTERLEAVED, BACKWARD, BLOCK)


def next_power_of_2(n):
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def constexprs(head_dim, rot=None, interleaved=False, backward=False, varlen=False, block=None):
    """The constexprs of rope_kernel for one call; BLOCK (rows per program) defaults to block_rows(head_dim)."""
    rot = head_dim if rot is None else rot
    return dict(HEAD_DIM=head_dim, ROT=rot, HALF_P=next_power_of_2(rot // 2),
                REST_P=next_power_of_2(max(head_dim - rot, 1)), INTERLEAVED=bool(interleaved),
                BACKWARD=bool(backward), VARLEN=bool(varlen), BLOCK=block or block_rows(head_dim))


def block_rows(head_dim):
    """Rows per program: about 8192 elements of x (16 KB in, 16 KB out at 2 bytes) per CTA of 4 warps."""
    return max(1, min(128, 8192 // next_power_of_2(head_dim)))


def signature(dtype="bf16", cos_dtype="fp32"):
    """rope_kernel's signature for one dtype of q/k and of cos/sin (strides as plain i32, no divisibility)."""
    sig = {"Q": "*" + dtype, "K": "*" + dtype, "OQ": "*" + dtype, "OK": "*" + dtype, "COS": "*" + cos_dtype,
           "SIN": "*" + cos_dtype, "CU_SEQLENS": "*i32"}
    for name in ("seqlen", "HQ", "sq_b", "sq_h", "sq_n", "sk_b", "sk_h", "sk_n", "soq_b", "soq_h", "soq_n",
                 "sok_b", "sok_h", "sok_n", "cos_stride", "sin_stride"):
        sig[name] = "i32"
    return sig
