"""Warp-specialized persistent Hopper GEMM (TXL's ``matmul_persistent_ws_tma_txl_kernel``, docs/txl-reference.md §4b):
C[M, N] = A[M, K] @ B[N, K]^T, bf16 in, f32 accumulation, bf16 out.

Same structure as examples/gemm_ws_persistent_sm90.mlir: 3 warpgroups (num_warps=4, num_warpgroups=3).
WG0 is the TMA producer (setmaxnreg.dec 40); WG1/WG2 are wgmma consumers (setmaxnreg.inc 232), each computing
64 of the tile's 128 rows with a 64 x BLOCK_N f32 accumulator. A NUM_STAGES ring of (A0, A1, B) tiles is guarded
by `full` mbarriers (count 1 + TMA bytes) and `empty` mbarriers (count 256: every consumer thread arrives once the
wgmma that read the stage retired). Tiles are visited persistently in Triton's grouped order.

Descriptors: a_desc box [BLOCK_M // 2, BLOCK_K], b_desc box [BLOCK_N, BLOCK_K], c_desc box [BLOCK_M // 2, BLOCK_N].
Grid: (min(#SMs, #tiles),).
"""

import txl
import txl.language as tl


@txl.jit
def _tile_offsets(tile, num_pid_m, num_pid_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr):
    # Triton's grouped ordering: GROUP_SIZE_M row blocks share B columns in L2.
    num_pid_in_group = num_pid_n * GROUP_SIZE_M
    group_id = tile // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    in_group = tile % num_pid_in_group
    pid_m = first_pid_m + in_group % group_size_m
    pid_n = in_group // group_size_m
    return pid_m * BLOCK_M, pid_n * BLOCK_N


@txl.jit
def gemm_ws(a_desc, b_desc, c_desc, M, N, K,
            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
            NUM_STAGES: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    tl.static_assert(BLOCK_M == 128, "two consumer warpgroups of 64 rows each")
    HALF_M: tl.constexpr = BLOCK_M // 2
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_tiles = num_pid_m * num_pid_n
    k_tiles = tl.cdiv(K, BLOCK_K)

    # Shared memory and barriers, allocated by the whole block.
    a0_ring = txl.smem_alloc([HALF_M, BLOCK_K], tl.bfloat16, num_stages=NUM_STAGES)  # rows 0..63 of the A tile
    a1_ring = txl.smem_alloc([HALF_M, BLOCK_K], tl.bfloat16, num_stages=NUM_STAGES)  # rows 64..127
    b_ring = txl.smem_alloc([BLOCK_N, BLOCK_K], tl.bfloat16, num_stages=NUM_STAGES)
    c_stage = txl.smem_alloc([HALF_M, BLOCK_N], tl.bfloat16, num_stages=2)  # [0]: WG1, [1]: WG2
    full = txl.mbar_alloc(1, num_stages=NUM_STAGES)
    empty = txl.mbar_alloc(256, num_stages=NUM_STAGES)
    STAGE_BYTES: tl.constexpr = (2 * HALF_M * BLOCK_K + BLOCK_N * BLOCK_K) * 2

    if txl.is_warpgroup([0]):
        # Producer: one stage ring advanced across tiles, never reset. Its phase starts at 1: the first pass
        # over the ring waits for the phase "before" the barrier's initial one, which returns at once.
        txl.reg_dealloc(40)
        s = 0
        phase = 1
        for tile in range(pid, num_tiles, nprog):
            off_m, off_n = _tile_offsets(tile, num_pid_m, num_pid_n, BLOCK_M, BLOCK_N, GROUP_SIZE_M)
            for kt in range(0, k_tiles):
                txl.mbar_wait(txl.get_buffer(empty, s), phase)
                f = txl.get_buffer(full, s)
                k_off = kt * BLOCK_K
                txl.mbar_expect(f, STAGE_BYTES)
                txl.tma_load(txl.get_buffer(a0_ring, s), a_desc, [off_m, k_off], f)
                txl.tma_load(txl.get_buffer(a1_ring, s), a_desc, [off_m + HALF_M, k_off], f)
                txl.tma_load(txl.get_buffer(b_ring, s), b_desc, [off_n, k_off], f)
                s = s + 1
                wrap = s == NUM_STAGES
                s = tl.where(wrap, 0, s)
                phase = tl.where(wrap, phase ^ 1, phase)

    if txl.is_warpgroup([1, 2]):
        txl.reg_alloc(232)
        # Per-consumer data: the A half it multiplies, its row offset in the tile, its C staging tile.
        if txl.is_warpgroup([1]):
            a_ring = a0_ring
            row0 = 0
            c_idx = 0
        else:
            a_ring = a1_ring
            row0 = HALF_M
            c_idx = 1
        c_tile = txl.get_buffer(c_stage, c_idx)
        s = 0
        phase = 0
        for tile in range(pid, num_tiles, nprog):
            off_m, off_n = _tile_offsets(tile, num_pid_m, num_pid_n, BLOCK_M, BLOCK_N, GROUP_SIZE_M)
            acc = tl.zeros([HALF_M, BLOCK_N], tl.float32)
            for kt in range(0, k_tiles):
                txl.mbar_wait(txl.get_buffer(full, s), phase)
                a = txl.get_buffer(a_ring, s)
                b = txl.get_buffer(b_ring, s)
                acc = tl.dot(a, b.T, acc)
                txl.dot_wait(0)
                # The wgmma has read stage s: release it to the producer.
                txl.mbar_arrive(txl.get_buffer(empty, s))
                s = s + 1
                wrap = s == NUM_STAGES
                s = tl.where(wrap, 0, s)
                phase = tl.where(wrap, phase ^ 1, phase)
            # Epilogue of this tile. The previous tile's TMA store must have finished reading the staging tile.
            c = acc.to(tl.bfloat16)
            txl.tma_store_wait(0)
            txl.smem_store(c_tile, c)
            txl.fence_proxy_async()
            txl.tma_store(c_tile, c_desc, [off_m + row0, off_n])
        # Drain the last store before the block (and its shared memory) exits.
        txl.tma_store_wait(0)


BLOCK_M, BLOCK_N, BLOCK_K = 128, 256, 64
SIGNATURE = {
    "a_desc": "tensordesc<bf16[64, 64]>",
    "b_desc": "tensordesc<bf16[256, 64]>",
    "c_desc": "tensordesc<bf16[64, 256]>",
    "M": "i32", "N": "i32", "K": "i32",
}
CONSTEXPRS = {"BLOCK_M": BLOCK_M, "BLOCK_N": BLOCK_N, "BLOCK_K": BLOCK_K, "NUM_STAGES": 3, "GROUP_SIZE_M": 8}
OPTIONS = {"num_warps": 4, "num_warpgroups": 3}
