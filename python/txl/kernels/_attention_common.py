"""Device helpers shared by the flash-attention kernels (flash_attention*.py): ring advance and the masks."""

import txl  # noqa: F401
import txl.language as tl


@txl.jit
def _advance(s, phase, NUM_STAGES: tl.constexpr):
    # Next stage of a ring; the mbarrier parity flips each time the index wraps to 0.
    s = s + 1
    wrap = s == NUM_STAGES
    return tl.where(wrap, 0, s), tl.where(wrap, phase ^ 1, phase)


@txl.jit
def _mask_causal(qk, diag, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    # Key column c of the tile is in the future of local query row r when c > r + diag, where
    # diag = (first query row of the tile) - (first key of the tile), both absolute.
    rows = diag + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    return tl.where(cols[None, :] > rows[:, None], float("-inf"), qk)


@txl.jit
def _mask_keys(qk, n_valid, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    # Keys at or past N_CTX (the zero rows the API padded K/V with) get no weight: columns >= n_valid.
    cols = tl.arange(0, BLOCK_N)
    return tl.where(cols[None, :] >= n_valid, float("-inf"), qk)


@txl.jit
def _mask_tile(qk, j, n_tiles, q_row, N_CTX, ROWS: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr,
               EVEN_N: tl.constexpr):
    # qk: ROWS query rows starting at absolute row q_row, against KV tile j. CAUSAL: only tiles that reach the
    # diagonal are masked (scf.if on a scalar). Not EVEN_N: the last tile masks the padded keys. (With CAUSAL the
    # causal mask already hides every padded key from a real query row; padded query rows are sliced away.)
    k_row = j * BLOCK_N
    if CAUSAL:
        if k_row + BLOCK_N > q_row + 1:
            qk = _mask_causal(qk, q_row - k_row, ROWS, BLOCK_N)
    else:
        if not EVEN_N:
            if j == n_tiles - 1:
                qk = _mask_keys(qk, N_CTX - k_row, ROWS, BLOCK_N)
    return qk
