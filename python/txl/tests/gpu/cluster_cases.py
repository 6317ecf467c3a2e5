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
