"""Kernels for TXL's per-warp partial reductions (txl.warp_max / txl.warp_sum leave one value per warp) and the
exchange of those partials through shared memory (txl.frag_smem_store / frag_smem_load under a layout of fewer
threads than the CTA), written as TXL's 04-softmax tutorial writes its kernels. Compiled on the CPU by
python/txl/tests/test_warp_partials.py, run against torch by test_warp_partials_gpu.py."""

import txl
import txl.language as tl


@txl.jit
def lane_partials(OUT, num_warps: tl.constexpr):
    # Per-thread values (a function of the thread index): warp_sum / warp_max combine each warp's 32 lanes, and
    # frag_smem_store under one-element-per-warp puts warp w's result at element w.
    per_warp: tl.constexpr = txl.BlockedLayout(size_per_thread=[1], threads_per_warp=[1],
                                               warps_per_cta=[num_warps], order=[0])
    sums = txl.get_buffer(txl.smem_alloc([num_warps], dtype=tl.float32), 0)
    maxs = txl.get_buffer(txl.smem_alloc([num_warps], dtype=tl.int32), 0)
    t = txl.tid(0)
    v = (t * 3 + 1).to(tl.float32)
    s = txl.warp_sum(v, axis=0)
    m = txl.warp_max((t * 37) % 101, axis=0)
    txl.frag_smem_store(sums, s, per_warp)
    txl.frag_smem_store(maxs, m, per_warp)
    w = tl.arange(0, num_warps)
    tl.store(OUT + w, txl.smem_load(sums))
    tl.store(OUT + num_warps + w, txl.smem_load(maxs).to(tl.float32))


@txl.jit
def tile_partials(X, OUT, BLOCK: tl.constexpr, num_warps: tl.constexpr):
    # Per-warp partials of a tile: warp w's max and sum of the elements it holds, at element w of OUT's two halves.
    per_warp: tl.constexpr = txl.BlockedLayout(size_per_thread=[1], threads_per_warp=[1],
                                               warps_per_cta=[num_warps], order=[0])
    maxs = txl.get_buffer(txl.smem_alloc([num_warps], dtype=tl.float32), 0)
    sums = txl.get_buffer(txl.smem_alloc([num_warps], dtype=tl.float32), 0)
    x = tl.load(X + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK))
    txl.frag_smem_store(maxs, txl.warp_max(x, axis=0), per_warp)
    txl.frag_smem_store(sums, txl.warp_sum(x, axis=0), per_warp)
    w = tl.arange(0, num_warps)
    base = OUT + tl.program_id(0) * 2 * num_warps
    tl.store(base + w, txl.smem_load(maxs))
    tl.store(base + num_warps + w, txl.smem_load(sums))


@txl.jit
def online_softmax(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, num_warps: tl.constexpr):
    # TXL's online_softmax_kernel_txl: per-warp max and sum, exchanged through shared memory, combined by every warp.
    max_smem = txl.get_buffer(txl.smem_alloc([num_warps], dtype=tl.float32), 0)
    sum_smem = txl.get_buffer(txl.smem_alloc([num_warps], dtype=tl.float32), 0)
    layout_warp_reduce: tl.constexpr = txl.BlockedLayout(size_per_thread=[1], threads_per_warp=[1],
                                                         warps_per_cta=[num_warps], order=[0])
    layout_all_reduce: tl.constexpr = txl.BlockedLayout(size_per_thread=[1], threads_per_warp=[num_warps],
                                                        warps_per_cta=[num_warps], order=[0])
    for row_idx in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        col_offsets = tl.arange(0, BLOCK_SIZE)
        mask = col_offsets < n_cols
        row = tl.load(input_ptr + row_idx * input_row_stride + col_offsets, mask=mask, other=-float("inf"))
        row = tl.cast(row, tl.float32)
        cur_max = txl.warp_max(row, axis=0)
        numerator = tl.exp(row - cur_max)
        cur_denom = txl.warp_sum(numerator, axis=0)
        txl.frag_smem_store(max_smem, cur_max, layout_warp_reduce)
        txl.frag_smem_store(sum_smem, cur_denom, layout_warp_reduce)
        warp_max = txl.frag_smem_load(max_smem, [128], layout_all_reduce, -float("inf"))
        warp_denom = txl.frag_smem_load(sum_smem, [128], layout_all_reduce, 0.0)
        all_max = txl.warp_max(warp_max, axis=0)
        warp_denom *= tl.exp(warp_max - all_max)
        all_denom = txl.warp_sum(warp_denom, axis=0)
        numerator *= tl.exp(cur_max - all_max)
        tl.store(output_ptr + row_idx * output_row_stride + col_offsets, numerator / all_denom, mask=mask)


@txl.jit
def broadcast_softmax(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                      BLOCK_SIZE: tl.constexpr, num_warps: tl.constexpr):
    # TXL's softmax_kernel_txl: warp 0 combines the partials (the other warps read `other`), thread 0 stores the
    # result into a one-element buffer, every thread reads it back.
    tid = txl.tid(0)
    reduction_smem = txl.get_buffer(txl.smem_alloc([num_warps], dtype=tl.float32), 0)
    scalar_smem = txl.get_buffer(txl.smem_alloc([1], dtype=tl.float32), 0)
    layout_warp_reduce: tl.constexpr = txl.BlockedLayout(size_per_thread=[1], threads_per_warp=[1],
                                                         warps_per_cta=[num_warps], order=[0])
    layout_all_reduce: tl.constexpr = txl.BlockedLayout(size_per_thread=[1], threads_per_warp=[num_warps],
                                                        warps_per_cta=[1], order=[0])
    layout_sum: tl.constexpr = txl.BlockedLayout(size_per_thread=[1], threads_per_warp=[1], warps_per_cta=[1],
                                                 order=[0])
    for row_idx in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        col_offsets = tl.arange(0, BLOCK_SIZE)
        mask = col_offsets < n_cols
        row = tl.load(input_ptr + row_idx * input_row_stride + col_offsets, mask=mask, other=-float("inf"))
        row = tl.cast(row, tl.float32)
        cur_max = txl.warp_max(row, axis=0)
        txl.frag_smem_store(reduction_smem, cur_max, layout_warp_reduce)
        cur_max = txl.frag_smem_load(reduction_smem, [128], layout_all_reduce, -float("inf"))
        all_max = txl.warp_max(cur_max, axis=0)
        if tid == 0:
            txl.frag_smem_store(scalar_smem, all_max, layout_sum)
        cur_max = txl.smem_load(scalar_smem)
        numerator = tl.exp(row - cur_max)
        cur_denom = txl.warp_sum(numerator, axis=0)
        txl.frag_smem_store(reduction_smem, cur_denom, layout_warp_reduce)
        cur_denom = txl.frag_smem_load(reduction_smem, [BLOCK_SIZE], layout_all_reduce, 0.0)
        all_denom = txl.warp_sum(cur_denom, axis=0)
        if tid < num_warps:
            txl.frag_smem_store(scalar_smem, all_denom, layout_sum)
        denominator = txl.smem_load(scalar_smem)
        tl.store(output_ptr + row_idx * output_row_stride + col_offsets, numerator / denominator, mask=mask)


@txl.jit
def cluster_softmax(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                    BLOCK_SIZE: tl.constexpr, num_warps: tl.constexpr):
    # TXL's cluster_softmax_kernel (num_ctas=2): each CTA's warps reduce their share of the row; the partials go to
    # the local buffer and, by st.async counted on the other CTA's mbarrier, to the other CTA's second buffer.
    rid = txl.cta_rank()
    max_smem = txl.get_buffer(txl.smem_alloc([num_warps * 2], dtype=tl.float32), 0)
    sum_smem = txl.get_buffer(txl.smem_alloc([num_warps * 2], dtype=tl.float32), 0)
    max_smem1 = txl.get_buffer(txl.smem_alloc([num_warps * 2], dtype=tl.float32), 0)
    sum_smem1 = txl.get_buffer(txl.smem_alloc([num_warps * 2], dtype=tl.float32), 0)
    mbar = txl.get_buffer(txl.mbar_alloc(1), 0)
    layout_warp_reduce: tl.constexpr = txl.BlockedLayout(size_per_thread=[1], threads_per_warp=[1],
                                                         warps_per_cta=[num_warps], order=[0], ctas_per_cga=[2],
                                                         cta_split_num=[2], cta_order=[0])
    layout_all_reduce: tl.constexpr = txl.BlockedLayout(size_per_thread=[1], threads_per_warp=[num_warps],
                                                        warps_per_cta=[num_warps], order=[0], ctas_per_cga=[2],
                                                        cta_split_num=[2], cta_order=[0])
    phase = 0
    for row_idx in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        col_offsets = tl.arange(0, BLOCK_SIZE)
        mask = col_offsets < n_cols
        row = tl.load(input_ptr + row_idx * input_row_stride + col_offsets, mask=mask, other=-float("inf"))
        row = tl.cast(row, tl.float32)
        cur_max = txl.warp_max(row, axis=0)
        numerator = tl.exp(row - cur_max)
        cur_denom = txl.warp_sum(numerator, axis=0)
        txl.frag_smem_store(max_smem, cur_max, layout_warp_reduce)
        txl.frag_smem_store(sum_smem, cur_denom, layout_warp_reduce)
        txl.mbar_expect(mbar, num_warps * 4 * 2)
        if rid == 0:
            txl.frag_smem_store(max_smem1, cur_max, layout_warp_reduce, None, 1, mbar)
            txl.frag_smem_store(sum_smem1, cur_denom, layout_warp_reduce, None, 1, mbar)
        else:
            txl.frag_smem_store(max_smem1, cur_max, layout_warp_reduce, None, 0, mbar)
            txl.frag_smem_store(sum_smem1, cur_denom, layout_warp_reduce, None, 0, mbar)
        txl.mbar_wait(mbar, phase)
        phase ^= 1
        warp_max = txl.frag_smem_load(max_smem, [128], layout_all_reduce, -float("inf"))
        warp_denom = txl.frag_smem_load(sum_smem, [128], layout_all_reduce, 0.0)
        warp_max1 = txl.frag_smem_load(max_smem1, [128], layout_all_reduce, -float("inf"))
        warp_denom1 = txl.frag_smem_load(sum_smem1, [128], layout_all_reduce, 0.0)
        all_max = tl.maximum(txl.warp_max(warp_max, axis=0), txl.warp_max(warp_max1, axis=0))
        all_denom = txl.warp_sum(warp_denom * tl.exp(warp_max - all_max), axis=0)
        all_denom += txl.warp_sum(warp_denom1 * tl.exp(warp_max1 - all_max), axis=0)
        numerator *= tl.exp(cur_max - all_max)
        tl.store(output_ptr + row_idx * output_row_stride + col_offsets, numerator / all_denom, mask=mask)
        # the other CTA writes max_smem1 / sum_smem1 again for the next row
        txl.cluster_barrier()
