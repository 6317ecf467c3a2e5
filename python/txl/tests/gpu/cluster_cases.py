"""Kernels launched as thread-block clusters (num_ctas, Triton's launch option) for test_cluster_gpu.py: each
program is a cluster of num_ctas CTAs (tl.program_id(0) counts clusters, txl.cta_rank() the CTA in it), and CTAs
read and write each other's shared memory (smem_load / smem_store with cta_id) between txl.cluster_barrier()s."""

import txl
import txl.language as tl


@txl.jit
def ring_read(X, Y, IDS, N: tl.constexpr, CTAS: tl.constexpr):
    # CTA r of cluster p publishes its row of X in its shared memory; after the barrier it reads the row of CTA
    # (r + 1) % CTAS from that CTA's shared memory and writes it to its own row of Y.
    pid = tl.program_id(0)
    rank = txl.cta_rank()
    row = pid * CTAS + rank
    offs = tl.arange(0, N)
    buf = txl.get_buffer(txl.smem_alloc([N], tl.float32), 0)
    txl.smem_store(buf, tl.load(X + row * N + offs))
    txl.cluster_barrier()
    got = tl.zeros([N], dtype=tl.float32)
    for j in tl.static_range(CTAS):
        if rank == j:
            got = txl.smem_load(buf, cta_id=(j + 1) % CTAS)
    # No CTA may exit while another still reads its shared memory.
    txl.cluster_barrier()
    tl.store(Y + row * N + offs, got)
    ids = tl.arange(0, 4)
    info = tl.where(ids == 0, pid, tl.where(ids == 1, rank, tl.where(ids == 2, tl.num_programs(0), 0)))
    tl.store(IDS + row * 4 + ids, info)


@txl.jit
def push_write(X, Y, N: tl.constexpr):
    # A cluster of 2: CTA r writes its row of X into the other CTA's shared memory, then each stores what it got.
    pid = tl.program_id(0)
    rank = txl.cta_rank()
    row = pid * 2 + rank
    offs = tl.arange(0, N)
    buf = txl.get_buffer(txl.smem_alloc([N], tl.float32), 0)
    x = tl.load(X + row * N + offs)
    if rank == 0:
        txl.smem_store(buf, x, cta_id=1)
    else:
        txl.smem_store(buf, x, cta_id=0)
    txl.cluster_barrier()
    tl.store(Y + row * N + offs, txl.smem_load(buf))


@txl.jit
def async_exchange(X, Y, ROWS: tl.constexpr, N: tl.constexpr):
    # TXL's cluster softmax exchange: a cluster of 2, each CTA st.async-es its row (and a 4-element tile whose
    # elements every warp holds: one store each) into the other CTA's shared memory, counted on that CTA's
    # mbarrier; the reader waits for the bytes (mbar_expect of the total), phase by phase over ROWS rows.
    pid = tl.program_id(0)
    rank = txl.cta_rank()
    buf = txl.get_buffer(txl.smem_alloc([N], tl.float32), 0)
    small = txl.get_buffer(txl.smem_alloc([4], tl.float32), 0)
    bar = txl.get_buffer(txl.mbar_alloc(1), 0)
    offs = tl.arange(0, N)
    offs4 = tl.arange(0, 4)
    for i in range(ROWS):
        row = (pid * 2 + rank) * ROWS + i
        x = tl.load(X + row * N + offs)
        x4 = tl.load(X + row * N + offs4) * 2.0
        txl.mbar_expect(bar, N * 4 + 16)
        if rank == 0:
            txl.frag_smem_store(buf, x, None, None, 1, bar)
            txl.frag_smem_store(small, x4, None, None, 1, bar)
        else:
            txl.frag_smem_store(buf, x, None, None, 0, bar)
            txl.frag_smem_store(small, x4, None, None, 0, bar)
        txl.mbar_wait(bar, i & 1)
        tl.store(Y + row * (N + 4) + offs, txl.smem_load(buf))
        tl.store(Y + row * (N + 4) + N + offs4, txl.smem_load(small))
        # the other CTA writes this buffer again next row
        txl.cluster_barrier()


@txl.jit
def cluster_device_desc(a_ptr, out_ptr, M, K, BM: tl.constexpr, BK: tl.constexpr, CTAS: tl.constexpr):
    # Each CTA of a cluster builds a TMA descriptor on the device over its own batch (a different base per CTA)
    # and sums that batch's K tiles. The descriptors live in the launch's global scratch, one slot per CTA: with
    # one slot per cluster (program), the CTAs of a cluster rewrote each other's tensor map while their TMA read it.
    b = tl.program_id(0) * CTAS + txl.cta_rank()
    a_desc = tl.make_tensor_descriptor(a_ptr + b * M * K, [M, K], [K, 1], [BM, BK])
    acc = tl.zeros([BM, BK], tl.float32)
    for k in range(0, K, BK):
        acc += a_desc.load([0, k]).to(tl.float32)
    offs_m = tl.arange(0, BM)
    offs_k = tl.arange(0, BK)
    tl.store(out_ptr + b * BM * BK + offs_m[:, None] * BK + offs_k[None, :], acc)
