"""Row softmax (Triton's fused-softmax tutorial, TXL's 04-softmax): out[r, :] = softmax(in[r, :]) for an
(n_rows, n_cols) row-major fp32 matrix.

Each program normalises ROWS rows at a time as a [ROWS, BLOCK] register tile (BLOCK a power of two >= n_cols) and
strides over the rows persistently. With ROWS equal to the number of warps, each warp owns whole rows, so the row
max and sum are warp shuffles (txl's reductions do not cross warps yet).
"""

import txl
import txl.language as tl


@txl.jit
def softmax(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols,
            BLOCK: tl.constexpr, ROWS: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    col_mask = cols[None, :] < n_cols
    for row0 in range(tl.program_id(0) * ROWS, n_rows, tl.num_programs(0) * ROWS):
        rows = row0 + tl.arange(0, ROWS)
        mask = (rows[:, None] < n_rows) & col_mask
        x = tl.load(in_ptr + rows[:, None] * in_row_stride + cols[None, :], mask=mask, other=-float("inf"))
        x = x - tl.max(x, axis=1)[:, None]  # subtract the row max for stability
        num = tl.exp(x)
        den = tl.sum(num, axis=1)
        tl.store(out_ptr + rows[:, None] * out_row_stride + cols[None, :], num / den[:, None], mask=mask)


SIGNATURE = {"out_ptr": "*fp32", "in_ptr": "*fp32", "in_row_stride": "i32", "out_row_stride": "i32",
             "n_rows": "i32", "n_cols": "i32"}
CONSTEXPRS = {"BLOCK": 1024, "ROWS": 4}
OPTIONS = {"num_warps": 4, "num_warpgroups": 1}
