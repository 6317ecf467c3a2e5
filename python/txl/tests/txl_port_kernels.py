"""Small kernels written the way TXL's tutorials write theirs (deciding/txl, python/teraxlang/tutorials), ported by
changing only the import lines (issue 17). They are txl's own code, not copies: each uses one group of TXL
constructs as the tutorials use them; test_txl_port_surface.py compiles them to PTX with the real compiler.

The header mirrors a tutorial's, with TXL's imports replaced:
    import teraxlang as txl                                  -> import txl
    import triton.language as tl                             -> import txl.language as tl
    import triton.profiler.language as pl                    -> import txl.profiler.language as pl
    import triton.profiler as proton                         -> import txl.profiler as proton
    from triton.tools.tensor_descriptor import TensorDescriptor -> from txl import TensorDescriptor
    from teraxlang.language.semantic import TXLSemantic      -> from txl.language.semantic import TXLSemantic
``import triton`` stays (``@triton.jit`` helpers, ``triton.Config``); where triton is not installed (CI) a minimal
stand-in with the same shape (a JITFunction holding ``.fn``, a Config with kwargs/num_warps/...) takes its place.
"""

import txl.language as tl
import txl.profiler as proton  # noqa: F401 (the tutorials import it this way)

try:
    import triton
except ImportError:  # CI has no triton: the two names the tutorials use, shaped like Triton's
    class JITFunction:
        def __init__(self, fn, **options):
            self.fn = fn
            self.options = options

        def __getitem__(self, grid):
            raise RuntimeError("a stand-in for a triton kernel")

    def _jit(fn=None, **options):
        if fn is None:
            return lambda f: JITFunction(f, **options)
        return JITFunction(fn)

    class _Config:
        def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None,
                     ir_override=None):
            self.kwargs, self.num_warps, self.num_stages, self.num_ctas = kwargs, num_warps, num_stages, num_ctas
            self.maxnreg, self.pre_hook, self.ir_override = maxnreg, pre_hook, ir_override

    class triton:  # noqa: N801
        jit = staticmethod(_jit)
        Config = _Config
        cdiv = staticmethod(lambda a, b: (a + b - 1) // b)

try:  # the tutorials' guarded import: a failure here would replace txl by a stub
    import txl
    import txl.profiler.language as pl

    Has_TXL = True
    from txl import TensorDescriptor
    from txl.language.semantic import TXLSemantic

    pl.enable_semantic("triton")
    pl.enable_semantic_obj(TXLSemantic)
except Exception:  # pragma: no cover - what TXL's tutorials do; the test asserts it does not happen
    class txl:  # noqa: N801
        class Config:
            def __init__(self, config, num_stages=1, num_warps=1, num_warpgroups=1, pre_hook=None):
                pass

        @staticmethod
        def jit(use_txl=False, diff_mode="ttir", diff_select=-1, log_dir="", src_file="", launch_metadata=None):
            return lambda func: func

        @staticmethod
        def autotune(configs=[], key="", use_cuda_graph=False):
            return lambda func: func

    Has_TXL = False


# ---------------------------------------------------------------------------------------------------------------
# Host helpers as the tutorials write them
# ---------------------------------------------------------------------------------------------------------------
def _launch_metadata(grid, kernel, args):
    M, N, K = args["M"], args["N"], args["K"]
    return {"name": "%s [M=%d, N=%d, K=%d]" % (kernel.name, M, N, K), "flops16": 2.0 * M * N * K}


def _gemm_pre_hook(nargs):
    BM = nargs["BLOCK_M"] // 2  # each consumer warpgroup owns half of the rows
    nargs["a_desc"].block_shape = [BM, nargs["BLOCK_K"]]
    nargs["b_desc"].block_shape = [nargs["BLOCK_N"], nargs["BLOCK_K"]]
    nargs["c_desc"].block_shape = [BM, nargs["BLOCK_N"]]


def gemm_configs():
    return [txl.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "NUM_STAGES": 2}, num_stages=1,
                       num_warps=4, num_warpgroups=3, pre_hook=_gemm_pre_hook),
            txl.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 64, "NUM_STAGES": 3}, num_stages=1,
                       num_warps=4, num_warpgroups=3, pre_hook=_gemm_pre_hook)]


def _attn_pre_hook(nargs):
    BLOCK_M, BLOCK_N, HEAD_DIM = nargs["BLOCK_M"], nargs["BLOCK_N"], nargs["HEAD_DIM"]
    nargs["desc_q"].block_shape = [BLOCK_M, HEAD_DIM]
    nargs["desc_k"].block_shape = [BLOCK_N, HEAD_DIM]
    nargs["desc_v"].block_shape = [BLOCK_N, HEAD_DIM]
    nargs["desc_o"].block_shape = [BLOCK_M, HEAD_DIM]


# a triton.Config handed to txl.autotune, as 01-matmul.py does
attn_configs = [triton.Config({"BLOCK_M": 64, "BLOCK_N": 64}, num_stages=1, num_warps=4, pre_hook=_attn_pre_hook)]


# ---------------------------------------------------------------------------------------------------------------
# @triton.jit helpers called from @txl.jit kernels
# ---------------------------------------------------------------------------------------------------------------
@triton.jit
def _tile_coords(tile_id, num_pid_n, GROUP_M: tl.constexpr):
    pid_m = tile_id // num_pid_n
    pid_n = tile_id % num_pid_n
    return (pid_m * GROUP_M, pid_n)


@triton.jit
def _maybe_desc(desc_or_ptr, shape, strides, block_shape):
    if isinstance(desc_or_ptr, tl.tensor_descriptor):
        return desc_or_ptr
    else:
        return tl.make_tensor_descriptor(desc_or_ptr, shape, strides, block_shape)


# ---------------------------------------------------------------------------------------------------------------
# Hopper: warp-specialized GEMM (producer warpgroup 0, two consumer warpgroups), proton scopes, a triton.Config
# ---------------------------------------------------------------------------------------------------------------
@txl.autotune(configs=gemm_configs(), key=["M", "N", "K"], use_cuda_graph=True)
@txl.jit(launch_metadata=_launch_metadata)
def ws_gemm_kernel(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   BLOCK_K: tl.constexpr, NUM_STAGES: tl.constexpr):
    dtype = tl.float16
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m, pid_n = _tile_coords(tl.program_id(0), num_pid_n, 1)
    offs_am = pid_m * BLOCK_M
    offs_bn = pid_n * BLOCK_N
    a0 = txl.smem_alloc([BLOCK_M // 2, BLOCK_K], dtype, num_stages=NUM_STAGES)
    a1 = txl.smem_alloc([BLOCK_M // 2, BLOCK_K], dtype, num_stages=NUM_STAGES)
    b0 = txl.smem_alloc([BLOCK_N, BLOCK_K], dtype, num_stages=NUM_STAGES)
    full = txl.mbar_alloc(1, num_stages=NUM_STAGES)
    empty0 = txl.mbar_alloc(128, num_stages=NUM_STAGES)
    empty1 = txl.mbar_alloc(128, num_stages=NUM_STAGES)
    num_k = tl.cdiv(K, BLOCK_K)
    if txl.is_warpgroup([0]):
        txl.reg_dealloc(40)
        buf = 0
        phase = 1
        for k in range(0, num_k):
            pl.enter_scope("load")
            txl.mbar_wait(txl.get_buffer(empty0, buf), phase)
            txl.mbar_wait(txl.get_buffer(empty1, buf), phase)
            bar = txl.get_buffer(full, buf)
            txl.mbar_expect(bar, BLOCK_M * BLOCK_K * 2 + BLOCK_N * BLOCK_K * 2)
            txl.tma_load(txl.get_buffer(a0, buf), a_desc, [offs_am, k * BLOCK_K], bar)
            txl.tma_load(txl.get_buffer(a1, buf), a_desc, [offs_am + BLOCK_M // 2, k * BLOCK_K], bar)
            txl.tma_load(txl.get_buffer(b0, buf), b_desc, [offs_bn, k * BLOCK_K], bar)
            pl.exit_scope("load")
            buf = (buf + 1) % NUM_STAGES
            if buf == 0:
                phase = phase ^ 1
    if txl.is_warpgroup([1, 2]):
        txl.reg_alloc(232)
        acc = txl.zeros([BLOCK_M // 2, BLOCK_N], dtype=tl.float32)
        buf = 0
        phase = 0
        for k in range(0, num_k):
            with pl.scope("dot"):
                txl.mbar_wait(txl.get_buffer(full, buf), phase)
                b = txl.get_buffer(b0, buf)
                if txl.is_warpgroup([1]):
                    acc = tl.dot(txl.get_buffer(a0, buf), b.T, acc)
                    txl.dot_wait(0)
                    txl.mbar_arrive(txl.get_buffer(empty0, buf))
                else:
                    acc = tl.dot(txl.get_buffer(a1, buf), b.T, acc)
                    txl.dot_wait(0)
                    txl.mbar_arrive(txl.get_buffer(empty1, buf))
            buf = (buf + 1) % NUM_STAGES
            if buf == 0:
                phase = phase ^ 1
        c = acc.to(dtype)
        if txl.is_warpgroup([1]):
            c_desc.store([offs_am, offs_bn], c)
        else:
            c_desc.store([offs_am + BLOCK_M // 2, offs_bn], c)


def ws_gemm(a, b, c, launch=True):
    """The tutorials' host code: dummy-block descriptors that the config's pre_hook sizes (launch=False: compile
    every config without launching, for machines without a GPU)."""
    M, K = a.shape
    N = b.shape[0]
    dummy_block = [1, 1]
    a_desc = TensorDescriptor(a, a.shape, a.stride(), dummy_block)
    b_desc = TensorDescriptor(b, b.shape, b.stride(), dummy_block)
    c_desc = TensorDescriptor(c, c.shape, c.stride(), dummy_block)

    def grid(META):
        return (triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]),)

    if not launch:
        return ws_gemm_kernel.warmup(a_desc, b_desc, c_desc, M, N, K, grid=grid)
    ws_gemm_kernel[grid](a_desc, b_desc, c_desc, M, N, K)
    return c


# ---------------------------------------------------------------------------------------------------------------
# Hopper: attention-style kernel on TXL's reshaped descriptors ((B, H, N, D) seen as [B*H*N, D]): one warpgroup,
# online softmax, P through shared memory (`.to(dtype)` of a buffer of that dtype), descriptors or pointers
# through a @triton.jit helper, tuple accumulation of per-stage values
# ---------------------------------------------------------------------------------------------------------------
@txl.autotune(configs=attn_configs, key=["N_CTX", "HEAD_DIM"])
@txl.jit(diff_mode="ttgir")  # TXL's Triton-stage diff: accepted, with a warning, and ignored
def attn_fwd_kernel(sm_scale, desc_q, desc_k, desc_v, desc_o, Z, H, N_CTX, HEAD_DIM: tl.constexpr,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    dtype = tl.float16
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    y_dim = Z * H * N_CTX
    desc_q = _maybe_desc(desc_q, [y_dim, HEAD_DIM], [HEAD_DIM, 1], [BLOCK_M, HEAD_DIM])
    desc_k = _maybe_desc(desc_k, [y_dim, HEAD_DIM], [HEAD_DIM, 1], [BLOCK_N, HEAD_DIM])
    desc_v = _maybe_desc(desc_v, [y_dim, HEAD_DIM], [HEAD_DIM, 1], [BLOCK_N, HEAD_DIM])
    desc_o = _maybe_desc(desc_o, [y_dim, HEAD_DIM], [HEAD_DIM, 1], [BLOCK_M, HEAD_DIM])
    offset_y = off_hz * N_CTX
    qo_offset_y = offset_y + start_m * BLOCK_M
    bQ = txl.smem_alloc([BLOCK_M, HEAD_DIM], dtype)
    bK = txl.smem_alloc([BLOCK_N, HEAD_DIM], dtype)
    bV = txl.smem_alloc([BLOCK_N, HEAD_DIM], dtype)
    bP = txl.smem_alloc([BLOCK_M, BLOCK_N], dtype)
    q_bar = txl.mbar_alloc(1)
    kv_bar = txl.mbar_alloc(1)
    cur_q = txl.get_buffer(bQ, 0)
    cur_p = txl.get_buffer(bP, 0)
    txl.mbar_expect(txl.get_buffer(q_bar, 0), BLOCK_M * HEAD_DIM * 2)
    txl.tma_load(cur_q, desc_q, [qo_offset_y, 0], txl.get_buffer(q_bar, 0))
    txl.mbar_wait(txl.get_buffer(q_bar, 0), 0)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    phase = 0
    for start_n in range(0, N_CTX, BLOCK_N):
        kv = txl.get_buffer(kv_bar, 0)
        cur_k = txl.get_buffer(bK, 0)
        cur_v = txl.get_buffer(bV, 0)
        txl.mbar_expect(kv, 2 * BLOCK_N * HEAD_DIM * 2)
        txl.tma_load(cur_k, desc_k, [offset_y + start_n, 0], kv)
        txl.tma_load(cur_v, desc_v, [offset_y + start_n, 0], kv)
        txl.mbar_wait(kv, phase)
        phase = phase ^ 1
        qk = tl.dot(cur_q, cur_k.T)
        txl.dot_wait(0)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        txl.smem_store(cur_p, p.to(dtype))
        txl.fence_proxy_async()
        acc = tl.dot(cur_p.to(dtype), cur_v, acc)  # TXL: .to(dtype) of a buffer of that dtype is the buffer
        txl.dot_wait(0)
        m_i = m_ij
    acc = acc / l_i[:, None]
    desc_o.store([qo_offset_y, 0], acc.to(dtype))


def attn_fwd(q, k, v, o, sm_scale, launch=True):
    """TXL's host code: 4-D (B, H, N, D) tensors described as [B*H*N, D] with a dummy block that the config's
    pre_hook sizes."""
    HEAD_DIM = q.shape[-1]
    y_dim = q.shape[0] * q.shape[1] * q.shape[2]
    dummy_block = [1, 1]
    desc_q = TensorDescriptor(q, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=dummy_block)
    desc_k = TensorDescriptor(k, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=dummy_block)
    desc_v = TensorDescriptor(v, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=dummy_block)
    desc_o = TensorDescriptor(o, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=dummy_block)

    def grid(META):
        return (triton.cdiv(q.shape[2], META["BLOCK_M"]), q.shape[0] * q.shape[1], 1)

    args = (sm_scale, desc_q, desc_k, desc_v, desc_o, q.shape[0], q.shape[1], q.shape[2])
    if not launch:
        return attn_fwd_kernel.warmup(*args, HEAD_DIM=HEAD_DIM, grid=grid)
    attn_fwd_kernel[grid](*args, HEAD_DIM=HEAD_DIM)
    return o


# ---------------------------------------------------------------------------------------------------------------
# A row kernel that declares `num_warps` itself (TXL's softmax), row reductions, txl.* spellings of Triton's
# functions, txl.relayout, tuples built with `arr + (x,)`
# ---------------------------------------------------------------------------------------------------------------
@txl.jit
def row_softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                       BLOCK_SIZE: txl.constexpr, num_stages: txl.constexpr, num_warps: txl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    layout: tl.constexpr = txl.BlockedLayout(size_per_thread=[1], threads_per_warp=[32],
                                             warps_per_cta=[num_warps], order=[0])
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        col_offsets = txl.arange(0, BLOCK_SIZE)
        mask = col_offsets < n_cols
        row = tl.load(input_ptr + row_idx * input_row_stride + col_offsets, mask=mask, other=-float("inf"))
        row = txl.relayout(row, (BLOCK_SIZE,), layout)
        parts = ()
        for h in tl.static_range(2):
            parts = parts + (tl.where(col_offsets % 2 == h, row, -float("inf")),)
        # (txl.warp_max / warp_sum of a 1-D tile leave one value per warp, as in TXL; a whole-row statistic is tl.max /
        # tl.sum, or TXL's exchange of the partials: gpu/warp_partials_cases.py)
        row_max = txl.maximum(tl.max(parts[0], axis=0), tl.max(parts[1], axis=0))
        numerator = txl.exp(row - row_max)
        denominator = tl.sum(numerator, axis=0)
        tl.store(output_ptr + row_idx * output_row_stride + col_offsets, numerator / denominator, mask=mask)


# ---------------------------------------------------------------------------------------------------------------
# Blackwell: tcgen05 MMA into tensor memory, TXL's `acc = txl.dotx(a, b.T, acc, ...)` then tmem_load(acc)
# ---------------------------------------------------------------------------------------------------------------
@txl.jit
def dotx_kernel(a_desc, b_desc, c_ptr, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    dtype = tl.bfloat16
    a0 = txl.smem_alloc([BLOCK_M, BLOCK_K], dtype)
    b0 = txl.smem_alloc([BLOCK_N, BLOCK_K], dtype)
    acc0 = txl.tmem_alloc([BLOCK_M, BLOCK_N], tl.float32)
    load_bar = txl.mbar_alloc(1)
    mma_bar = txl.mbar_alloc(1)
    a = txl.get_buffer(a0, 0)
    b = txl.get_buffer(b0, 0)
    acc = txl.get_buffer(acc0, 0)
    txl.tmem_store(acc, txl.zeros([BLOCK_M, BLOCK_N], tl.float32))
    phase = 0
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        bar = txl.get_buffer(load_bar, 0)
        txl.mbar_expect(bar, (BLOCK_M + BLOCK_N) * BLOCK_K * 2)
        txl.tma_load(a, a_desc, [0, k * BLOCK_K], bar)
        txl.tma_load(b, b_desc, [0, k * BLOCK_K], bar)
        txl.mbar_wait(bar, phase)
        acc = txl.dotx(a, b.T, acc, mbars=[txl.get_buffer(mma_bar, 0)])
        txl.mbar_wait(txl.get_buffer(mma_bar, 0), phase)
        phase = phase ^ 1
    c = txl.tmem_load(acc)
    offs = tl.arange(0, BLOCK_M)[:, None] * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    tl.store(c_ptr + offs, c)


@txl.jit
def role_split_kernel(a_desc, b_desc, o_desc, idx_ptr, K, S_KV, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      BLOCK_K: tl.constexpr, NUM_STAGES: tl.constexpr):
    # What 01-matmul, 02's tawa kernels, MLA and NSA do: a role split written with warpgroup_id (producer 0, the
    # others consume), a ring whose phase flips when the slot index wraps, K steps sliced inside one swizzle atom,
    # `acc += tl.dot(...)` before txl.dot_wait, each consumer storing its half of the output tile through one
    # descriptor, and NSA's row-constant mask stored with predStr='slice:1'. Compiled, not launched (CI).
    tid = txl.tid(0)
    a_ring = txl.smem_alloc([BLOCK_M, BLOCK_K], dtype=tl.float16, num_stages=NUM_STAGES)
    b_ring = txl.smem_alloc([BLOCK_N, BLOCK_K], dtype=tl.float16, num_stages=NUM_STAGES)
    full = txl.mbar_alloc(1, num_stages=NUM_STAGES)
    empty = txl.mbar_alloc(256, num_stages=NUM_STAGES)
    o_buf = txl.smem_alloc([BLOCK_M, BLOCK_N], dtype=tl.float16)
    valid_buf = txl.smem_alloc([64], dtype=tl.int8)
    wgid = txl.warpgroup_id()
    if wgid == 0:
        txl.reg_dealloc(40)
        slot = 0
        phase = 1
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            txl.mbar_wait(txl.get_buffer(empty, slot), phase)
            bar = txl.get_buffer(full, slot)
            txl.mbar_expect(bar, (BLOCK_M + BLOCK_N) * BLOCK_K * 2)
            txl.tma_load(txl.get_buffer(a_ring, slot), a_desc, [0, k * BLOCK_K], bar)
            txl.tma_load(txl.get_buffer(b_ring, slot), b_desc, [0, k * BLOCK_K], bar)
            slot = (slot + 1) % NUM_STAGES
            if slot == 0:
                phase = phase ^ 1
    else:
        txl.reg_alloc(232)
        acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        slot = 0
        phase = 0
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            txl.mbar_wait(txl.get_buffer(full, slot), phase)
            a = txl.get_buffer(a_ring, slot)
            b = txl.get_buffer(b_ring, slot)
            for kk in tl.static_range(0, BLOCK_K, 32):
                acc += tl.dot(txl.smem_slice(a, kk, 32, 1), txl.smem_slice(b, kk, 32, 1).T)
                txl.dot_wait(0)
            txl.mbar_arrive(txl.get_buffer(empty, slot))
            slot = (slot + 1) % NUM_STAGES
            if slot == 0:
                phase = phase ^ 1
        if wgid == 1:
            # the output tile, as NSA stores its halves: two copies through one 64 x BLOCK_N descriptor
            o = txl.get_buffer(o_buf, 0)
            txl.smem_store(o, acc.to(tl.float16))
            txl.fence_proxy_async()
            txl.tma_store(txl.smem_slice(o, 0, BLOCK_N // 2, 1), o_desc, [0, 0])
            txl.tma_store(txl.smem_slice(o, BLOCK_N // 2, BLOCK_N // 2, 1), o_desc, [0, BLOCK_N // 2])
            txl.tma_store_wait(0)
        index = tl.load(idx_ptr + tl.arange(0, 64))
        ok = (index >= 0) & (index < S_KV)
        ok2 = tl.reshape(tl.broadcast_to(ok[:, None], (64, 64)), (64, 64))
        layout: tl.constexpr = txl.SliceLayout(dim=1, parent=txl.BlockedLayout([1, 1], [4, 8], [4, 1], [1, 0]))
        txl.frag_smem_store(txl.get_buffer(valid_buf, 0), ok2.to(tl.int8), layout, pred=(tid % 8 == 0),
                            predStr="slice:1")
