"""Gluon kernels in the style of Triton's Gluon tutorials (written for txl's tests, not copied): compiled on the CPU by
test_gluon.py and run against torch by test_gluon_gpu.py, with the same configurations."""

from txl.experimental import gluon
from txl.experimental.gluon import language as gl
from txl.experimental.gluon.language.nvidia import blackwell
from txl.experimental.gluon.language.nvidia.ampere import async_copy as cp
from txl.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                                           warpgroup_mma_wait)


@gluon.jit
def copy_kernel(in_ptr, out_ptr, xnumel, XBLOCK: gl.constexpr, layout: gl.constexpr):
    pid = gl.program_id(0)
    offs = pid * XBLOCK + gl.arange(0, XBLOCK, layout=layout)
    mask = offs < xnumel
    gl.store(out_ptr + offs, gl.load(in_ptr + offs, mask=mask), mask=mask)


@gluon.jit
def copy_scalar_kernel(in_ptr, out_ptr):
    """Tutorial 01's first kernel: two parameters, launched with num_warps=1 (its fast-path fingerprint has 3 items,
    which the H200 run's IndexError came from)."""
    gl.store(out_ptr, gl.load(in_ptr))


@gluon.jit
def scalar_loop_copy_kernel(in_ptr, out_ptr, xnumel, XBLOCK: gl.constexpr):
    """Tutorial 01's memcpy: a scalar loop over the program's block."""
    pid = gl.program_id(0)
    start = pid * XBLOCK
    end = min(start + XBLOCK, xnumel)
    for i in range(start, end):
        gl.store(out_ptr + i, gl.load(in_ptr + i))


@gluon.jit
def add2d_kernel(a_ptr, b_ptr, c_ptr, xnumel, ynumel, xstride_a, ystride_a, xstride_b, ystride_b, xstride_c,
                 ystride_c, XBLOCK: gl.constexpr, YBLOCK: gl.constexpr):
    """Tutorial 03's elementwise_add shape: many runtime ints, a 1-D grid of row blocks, a loop over columns."""
    pid = gl.program_id(0)
    layout: gl.constexpr = gl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    xs = pid * XBLOCK + gl.arange(0, XBLOCK, gl.SliceLayout(1, layout))
    ys = gl.arange(0, YBLOCK, gl.SliceLayout(0, layout))
    for yoff in range(0, ynumel, YBLOCK):
        m = (xs < xnumel)[:, None] & ((yoff + ys) < ynumel)[None, :]
        a = gl.load(a_ptr + xstride_a * xs[:, None] + ystride_a * (yoff + ys)[None, :], mask=m)
        b = gl.load(b_ptr + xstride_b * xs[:, None] + ystride_b * (yoff + ys)[None, :], mask=m)
        gl.store(c_ptr + xstride_c * xs[:, None] + ystride_c * (yoff + ys)[None, :], a + b, mask=m)


@gluon.jit
def row_softmax_kernel(x_ptr, y_ptr, n_rows, n_cols, BM: gl.constexpr, BN: gl.constexpr, layout: gl.constexpr):
    """Rows of a matrix: offsets in SliceLayouts of a 2-D BlockedLayout, a max and a sum over axis 1 (their results
    are slices of it), broadcast back."""
    rows = gl.program_id(0) * BM + gl.arange(0, BM, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, BN, layout=gl.SliceLayout(0, layout))
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs = rows[:, None] * n_cols + cols[None, :]
    x = gl.load(x_ptr + offs, mask=mask, other=float("-inf")).to(gl.float32)
    m = gl.max(x, axis=1)
    p = gl.exp(x - m[:, None])
    s = gl.sum(p, axis=1)
    gl.store(y_ptr + offs, p / s[:, None], mask=mask)


@gluon.jit
def transpose_kernel(x_ptr, y_ptr, M, N, BM: gl.constexpr, BN: gl.constexpr, load_layout: gl.constexpr,
                     store_layout: gl.constexpr):
    """y = x.T: read rows coalesced in one layout, gl.convert_layout into the layout that writes y's rows
    coalesced (a relayout between the two: shared memory)."""
    pm = gl.program_id(0) * BM
    pn = gl.program_id(1) * BN
    r = pm + gl.arange(0, BM, layout=gl.SliceLayout(1, load_layout))
    c = pn + gl.arange(0, BN, layout=gl.SliceLayout(0, load_layout))
    x = gl.load(x_ptr + r[:, None] * N + c[None, :], mask=(r[:, None] < M) & (c[None, :] < N))
    x = gl.convert_layout(x, store_layout)
    r2 = pm + gl.arange(0, BM, layout=gl.SliceLayout(1, store_layout))
    c2 = pn + gl.arange(0, BN, layout=gl.SliceLayout(0, store_layout))
    gl.store(y_ptr + c2[None, :] * M + r2[:, None], x, mask=(r2[:, None] < M) & (c2[None, :] < N))


@gluon.jit
def smem_roundtrip_kernel(x_ptr, y_ptr, BM: gl.constexpr, BN: gl.constexpr, layout: gl.constexpr,
                          other_layout: gl.constexpr):
    """A tile through shared memory: allocate_shared_memory(value=), .index / .slice views, .load in another layout."""
    r = gl.arange(0, BM, layout=gl.SliceLayout(1, layout))
    c = gl.arange(0, BN, layout=gl.SliceLayout(0, layout))
    x = gl.load(x_ptr + r[:, None] * BN + c[None, :])
    smem = gl.allocate_shared_memory(gl.float32, [2, BM, BN], gl.SwizzledSharedLayout(1, 1, 1, [2, 1, 0]))
    smem.index(1).store(x * 2.0)
    top = smem.index(1).slice(0, BM // 2).load(other_layout)
    bottom = smem.index(1).slice(BM // 2, BM // 2).load(other_layout)
    r2 = gl.arange(0, BM // 2, layout=gl.SliceLayout(1, other_layout))
    c2 = gl.arange(0, BN, layout=gl.SliceLayout(0, other_layout))
    gl.store(y_ptr + r2[:, None] * BN + c2[None, :], top)
    gl.store(y_ptr + (r2[:, None] + BM // 2) * BN + c2[None, :], bottom + 1.0)


@gluon.jit
def cp_async_add_kernel(a_ptr, b_ptr, c_ptr, xnumel, XBLOCK: gl.constexpr, NBUF: gl.constexpr, layout: gl.constexpr):
    """cp.async pipeline in the style of the async-copy tutorial: NBUF - 1 copies ahead, commit_group / wait_group."""
    pid = gl.program_id(0)
    nprog = gl.num_programs(0)
    offs = gl.arange(0, XBLOCK, layout=layout)
    a_smem = gl.allocate_shared_memory(gl.float32, [NBUF, XBLOCK], gl.SwizzledSharedLayout(1, 1, 1, [1, 0]))
    n_blocks = gl.cdiv(xnumel, XBLOCK)
    my_blocks = gl.cdiv(n_blocks - pid, nprog)
    for i in gl.static_range(NBUF - 1):
        blk = pid + i * nprog
        idx = blk * XBLOCK + offs
        cp.async_copy_global_to_shared(a_smem.index(i), a_ptr + idx, mask=(idx < xnumel) & (i < my_blocks))
        cp.commit_group()
    for j in range(my_blocks):
        nxt = j + NBUF - 1
        idx_n = (pid + nxt * nprog) * XBLOCK + offs
        cp.async_copy_global_to_shared(a_smem.index(nxt % NBUF), a_ptr + idx_n,
                                       mask=(idx_n < xnumel) & (nxt < my_blocks))
        cp.commit_group()
        cp.wait_group(NBUF - 1)
        idx = (pid + j * nprog) * XBLOCK + offs
        a = a_smem.index(j % NBUF).load(layout)
        b = gl.load(b_ptr + idx, mask=idx < xnumel)
        gl.store(c_ptr + idx, a + b, mask=idx < xnumel)
    cp.wait_group(0)


@gluon.jit
def tma_add_kernel(a_desc, b_desc, c_desc, ynumel, XBLOCK: gl.constexpr, YBLOCK: gl.constexpr,
                   NBUF: gl.constexpr):
    """TMA + mbarrier pipeline (the TMA tutorial's structure): NBUF-deep ring of input tiles, one mbarrier per
    slot, TMA store of each result tile."""
    pid = gl.program_id(0)
    layout: gl.constexpr = gl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    xoff = pid * XBLOCK
    dtype: gl.constexpr = a_desc.dtype
    a_smem = gl.allocate_shared_memory(dtype, [NBUF, XBLOCK, YBLOCK], a_desc.layout)
    b_smem = gl.allocate_shared_memory(dtype, [NBUF, XBLOCK, YBLOCK], b_desc.layout)
    c_smem = gl.allocate_shared_memory(dtype, [XBLOCK, YBLOCK], c_desc.layout)
    bars = gl.allocate_shared_memory(gl.int64, [NBUF, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(NBUF):
        mbarrier.init(bars.index(i), count=1)
    nbytes: gl.constexpr = a_desc.block_type.nbytes + b_desc.block_type.nbytes
    n = gl.cdiv(ynumel, YBLOCK)
    for i in gl.static_range(NBUF - 1):
        bar = bars.index(i)
        mbarrier.expect(bar, nbytes)
        tma.async_copy_global_to_shared(a_desc, [xoff, i * YBLOCK], bar, a_smem.index(i))
        tma.async_copy_global_to_shared(b_desc, [xoff, i * YBLOCK], bar, b_smem.index(i))
    for j in range(n):
        nxt = j + NBUF - 1
        if nxt < n:
            bar = bars.index(nxt % NBUF)
            mbarrier.expect(bar, nbytes)
            tma.async_copy_global_to_shared(a_desc, [xoff, nxt * YBLOCK], bar, a_smem.index(nxt % NBUF))
            tma.async_copy_global_to_shared(b_desc, [xoff, nxt * YBLOCK], bar, b_smem.index(nxt % NBUF))
        mbarrier.wait(bars.index(j % NBUF), (j // NBUF) & 1)
        a = a_smem.index(j % NBUF).load(layout)
        b = b_smem.index(j % NBUF).load(layout)
        tma.store_wait(pendings=0)
        c_smem.store(a + b)
        fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [xoff, j * YBLOCK], c_smem)
    for i in gl.static_range(NBUF):
        mbarrier.invalidate(bars.index(i))
    tma.store_wait(pendings=0)


@gluon.constexpr_function
def wgmma_instr_n(BLOCK_N):
    n = 256
    while BLOCK_N % n:
        n -= 8
    return n


@gluon.jit
def wgmma_matmul_kernel(a_desc, b_desc, c_desc, K, num_warps: gl.constexpr, OVERLAP: gl.constexpr):
    """C = A @ B, one (BLOCK_M, BLOCK_N) tile per program: TMA loads of A and B, warpgroup_mma with an
    NVMMADistributedLayout accumulator, TMA store (the wgmma tutorial's blocked matmul)."""
    BLOCK_M: gl.constexpr = c_desc.block_type.shape[0]
    BLOCK_N: gl.constexpr = c_desc.block_type.shape[1]
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    a_smem = gl.allocate_shared_memory(a_desc.dtype, a_desc.block_type.shape, a_desc.layout)
    b_smem = gl.allocate_shared_memory(b_desc.dtype, b_desc.block_type.shape, b_desc.layout)
    off_m = gl.program_id(0) * BLOCK_M
    off_n = gl.program_id(1) * BLOCK_N
    mma_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                         instr_shape=[16, wgmma_instr_n(BLOCK_N), 16])
    acc = gl.zeros((BLOCK_M, BLOCK_N), dtype=gl.float32, layout=mma_layout)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    phase = 0
    for k in range(0, K, BLOCK_K):
        mbarrier.expect(bar, a_desc.block_type.nbytes + b_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(a_desc, [off_m, k], bar, a_smem)
        tma.async_copy_global_to_shared(b_desc, [k, off_n], bar, b_smem)
        mbarrier.wait(bar, phase=phase)
        phase ^= 1
        if OVERLAP:
            acc = warpgroup_mma(a_smem, b_smem, acc, is_async=True)
            acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc, ))
        else:
            acc = warpgroup_mma(a_smem, b_smem, acc)
    mbarrier.invalidate(bar)
    c_smem = gl.allocate_shared_memory(c_desc.dtype, c_desc.block_type.shape, c_desc.layout)
    c_smem.store(acc.to(c_desc.dtype))
    fence_async_shared()
    tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(pendings=0)


@gluon.jit
def wgmma_reg_a_kernel(a_ptr, b_desc, c_ptr, M: gl.constexpr, N: gl.constexpr, K: gl.constexpr,
                       num_warps: gl.constexpr):
    """C = A @ B with A in registers (a DotOperandLayout of the accumulator's layout) and B through TMA, stored
    from the accumulator layout with gl.store."""
    mma_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                         instr_shape=[16, N, 16])
    a_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=mma_layout, k_width=2)
    load_layout: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [num_warps, 1], [1, 0])
    r = gl.arange(0, M, layout=gl.SliceLayout(1, load_layout))
    c = gl.arange(0, K, layout=gl.SliceLayout(0, load_layout))
    a = gl.convert_layout(gl.load(a_ptr + r[:, None] * K + c[None, :]), a_layout)
    b_smem = gl.allocate_shared_memory(b_desc.dtype, b_desc.block_type.shape, b_desc.layout)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, b_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(b_desc, [0, 0], bar, b_smem)
    mbarrier.wait(bar, 0)
    acc = warpgroup_mma(a, b_smem, gl.zeros((M, N), gl.float32, layout=mma_layout), use_acc=False)
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, mma_layout))
    cn = gl.arange(0, N, layout=gl.SliceLayout(0, mma_layout))
    gl.store(c_ptr + rm[:, None] * N + cn[None, :], acc)


@gluon.jit
def linear_layout_kernel(x_ptr, y_ptr, layout: gl.constexpr):
    """A 2-D tile in a DistributedLinearLayout (16 x 16 over one warp: registers, then lanes), scaled and stored."""
    r = gl.arange(0, 16, layout=gl.SliceLayout(1, layout))
    c = gl.arange(0, 16, layout=gl.SliceLayout(0, layout))
    x = gl.load(x_ptr + r[:, None] * 16 + c[None, :])
    gl.store(y_ptr + r[:, None] * 16 + c[None, :], x * 3.0)


@gluon.jit
def mixed_layouts_kernel(x_ptr, BLOCK: gl.constexpr):
    """Adds two tiles the kernel gave different layouts: Gluon refuses it, and so does txl (at compile time)."""
    a = gl.arange(0, BLOCK, layout=gl.BlockedLayout([1], [32], [4], [0]))
    b = gl.arange(0, BLOCK, layout=gl.BlockedLayout([2], [32], [4], [0]))
    gl.store(x_ptr + a, a + b)


@gluon.jit
def _ws_load_partition(a_desc, b_desc, a_smem, b_smem, ready, empty, xoff, n, YBLOCK: gl.constexpr,
                       NBUF: gl.constexpr):
    """The producer (a 1-warp worker in Gluon): waits until slot j % NBUF is free, TMA-loads the next tiles."""
    for j in range(n):
        s = j % NBUF
        mbarrier.wait(empty.index(s), ((j // NBUF) & 1) ^ 1)  # a fresh mbarrier passes a wait on parity 1
        bar = ready.index(s)
        mbarrier.expect(bar, a_desc.block_type.nbytes + b_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(a_desc, [xoff, j * YBLOCK], bar, a_smem.index(s))
        tma.async_copy_global_to_shared(b_desc, [xoff, j * YBLOCK], bar, b_smem.index(s))


@gluon.jit
def _ws_add_partition(c_ptr, a_smem, b_smem, ready, empty, xoff, n, ynumel, XBLOCK: gl.constexpr,
                      YBLOCK: gl.constexpr, NBUF: gl.constexpr):
    """The consumer (the default partition): waits for slot j % NBUF, adds, frees the slot, stores."""
    layout: gl.constexpr = gl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    rows = xoff + gl.arange(0, XBLOCK, layout=gl.SliceLayout(1, layout))
    cols0 = gl.arange(0, YBLOCK, layout=gl.SliceLayout(0, layout))
    for j in range(n):
        s = j % NBUF
        mbarrier.wait(ready.index(s), (j // NBUF) & 1)
        c = a_smem.index(s).load(layout) + b_smem.index(s).load(layout)
        mbarrier.arrive(empty.index(s))
        cols = j * YBLOCK + cols0
        gl.store(c_ptr + rows[:, None] * ynumel + cols[None, :], c, mask=cols[None, :] < ynumel)


@gluon.jit
def ws_add_kernel(a_desc, b_desc, c_ptr, ynumel, XBLOCK: gl.constexpr, YBLOCK: gl.constexpr, NBUF: gl.constexpr):
    """c = a + b with gl.warp_specialize: a TMA producer partition and an adding default partition, NBUF slots
    handed over with "ready" / "empty" mbarriers (rows: the grid; XBLOCK must divide the rows)."""
    a_smem = gl.allocate_shared_memory(a_desc.dtype, [NBUF, XBLOCK, YBLOCK], a_desc.layout)
    b_smem = gl.allocate_shared_memory(b_desc.dtype, [NBUF, XBLOCK, YBLOCK], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [NBUF, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [NBUF, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(NBUF):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(empty.index(i), count=1)
    xoff = gl.program_id(0) * XBLOCK
    n = gl.cdiv(ynumel, YBLOCK)
    gl.warp_specialize([(_ws_add_partition, (c_ptr, a_smem, b_smem, ready, empty, xoff, n, ynumel, XBLOCK, YBLOCK,
                                             NBUF)),
                        (_ws_load_partition, (a_desc, b_desc, a_smem, b_smem, ready, empty, xoff, n, YBLOCK, NBUF))],
                       [1], [24])


@gluon.jit
def ws_store_outside_kernel(x_ptr):
    """A store outside the partitions: txl would run it in every warpgroup, so it is refused."""
    gl.store(x_ptr, 1.0)
    gl.warp_specialize([(_noop_partition, (x_ptr, )), (_noop_partition, (x_ptr, ))], [1], [24])


@gluon.jit
def _noop_partition(x_ptr):
    pass


# 16 x 16 over one warp (num_warps=1): register bits (0,1),(0,2),(8,0), lane bits (0,4),(0,8),(1,0),(2,0),(4,0).
LINEAR_16x16 = gl.DistributedLinearLayout(reg_bases=[[0, 1], [0, 2], [8, 0]],
                                          lane_bases=[[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]],
                                          warp_bases=[], block_bases=[], shape=[16, 16])


@gluon.jit
def tcgen05_matmul_kernel(a_desc, b_desc, c_ptr, K, num_warps: gl.constexpr):
    """C = A @ B for one [BLOCK_M, BLOCK_N] tile on Blackwell: TMA loads, tcgen05_mma into tensor memory completing
    on an mbarrier, the accumulator read back in get_tmem_reg_layout's layout (compile-checked for sm_100a only)."""
    BLOCK_M: gl.constexpr = a_desc.block_type.shape[0]
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    BLOCK_N: gl.constexpr = b_desc.block_type.shape[1]
    a_smem = gl.allocate_shared_memory(a_desc.dtype, [BLOCK_M, BLOCK_K], a_desc.layout)
    b_smem = gl.allocate_shared_memory(b_desc.dtype, [BLOCK_K, BLOCK_N], b_desc.layout)
    tma_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mma_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(tma_bar, count=1)
    mbarrier.init(mma_bar, count=1)
    tmem_layout: gl.constexpr = blackwell.TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=1)
    acc = blackwell.allocate_tensor_memory(gl.float32, [BLOCK_M, BLOCK_N], tmem_layout)
    phase = 0
    use_acc = False
    for k in range(0, K, BLOCK_K):
        mbarrier.expect(tma_bar, a_desc.block_type.nbytes + b_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(a_desc, [0, k], tma_bar, a_smem)
        tma.async_copy_global_to_shared(b_desc, [k, 0], tma_bar, b_smem)
        mbarrier.wait(tma_bar, phase)
        blackwell.tcgen05_mma(a_smem, b_smem, acc, use_acc=use_acc, mbarriers=[mma_bar])
        mbarrier.wait(mma_bar, phase)
        use_acc = True
        phase ^= 1
    reg_layout: gl.constexpr = blackwell.get_tmem_reg_layout(gl.float32, [BLOCK_M, BLOCK_N], tmem_layout, num_warps)
    c = acc.load(reg_layout)
    rows = gl.arange(0, BLOCK_M, layout=gl.SliceLayout(1, reg_layout))
    cols = gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, reg_layout))
    gl.store(c_ptr + rows[:, None] * BLOCK_N + cols[None, :], c)
