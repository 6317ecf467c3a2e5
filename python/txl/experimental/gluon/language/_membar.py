"""CTA barriers between shared-memory accesses of different threads, where Gluon's compiler puts them.

A Gluon kernel does not synchronise its threads around shared memory itself: Triton's membar analysis inserts a
barrier wherever one thread may read what another wrote (or write what another still reads). txl's frontend says
what the user wrote, and a Gluon kernel wrote "no barrier" meaning "the compiler's barriers", so each Gluon shared-
memory access asks ``sync_before`` first, which emits one ``bar.sync`` (``tl.debug_barrier``) when an earlier access
to the same allocation conflicts with it and no barrier lies between:

* a generic read (``smem.load``, a wgmma operand) after a generic write (``smem.store``) or a cp.async copy (each
  thread waits only for its own copies); not after a TMA copy, whose mbarrier wait makes the data visible;
* a generic write, TMA copy or cp.async copy into a buffer after a generic read or write of it;
* an asynchronous read (TMA store, wgmma) after a generic write.

"Earlier" is the ops of the current block before this one (nested ops counted with everything in them), and, where
the block is a loop or ``if`` body, anything the kernel (the same partition of gl.warp_specialize) did to the
allocation so far, including the loop body's later ops (the code generator builds each loop body twice: a first
pass records them): that stands for the previous iteration and the code before the loop. Conservative where
unsure: a barrier too many costs time, one too few gives wrong results. In a partition the barrier is the
partition's warpgroup's (partitions order their accesses with mbarriers, as in Gluon).
"""

from ....language import semantic as S
from ....language import standard as _std
from ....language import txl_builtins as _txl
from ....language.core import smem_type

_VIEW_OPS = ("txl.get_buffer", "txl.smem_index", "txl.smem_subslice", "txl.smem_trans", "txl.smem_reshape")
# access kind -> the earlier kinds it conflicts with
_CONFLICTS = {"read": ("write", "cp_write"), "write": ("read", "write"), "tma_write": ("read", "write"),
              "cp_write": ("read", "write"), "async_read": ("write",)}
_OP_KINDS = {"txl.smem_load": "read", "txl.smem_store": "write", "txl.tma_load": "tma_write",
             "txl.async_load": "cp_write", "txl.tma_store": "async_read", "txl.dot": "read"}


def _root(v):
    """The allocation a shared-memory view comes from (None: unknown, e.g. a view carried through a loop)."""
    while True:
        op = getattr(v, "owner", None)
        if op is None or not hasattr(op, "operands"):
            return None  # a block argument
        if op.name in _VIEW_OPS:
            v = op.operands[0]
            continue
        return id(v)


def _accesses(op):
    """(kind, root) of each shared-memory access of ``op`` and the ops nested in it; barriers are ("barrier", None)."""
    if op.attrs.get("gluon_barrier"):
        yield "barrier", None
        return
    kind = _OP_KINDS.get(op.name)
    if kind is not None:
        for v in op.operands:
            if isinstance(v.type, smem_type):
                yield kind, _root(v)
    for r in op.regions:
        for b in r.blocks:
            for o in b.ops:
                for k, root in _accesses(o):
                    if k != "barrier":  # a barrier inside a branch may not run
                        yield k, root


def _state():
    ctx = S._ctx()
    st = getattr(ctx, "_gluon_smem_accesses", None)
    if st is None:
        st = ctx._gluon_smem_accesses = set()
    return st


def _role():
    """The warp-specialized partition being generated: its warpgroup id (gl.warp_specialize's roles), else None
    (the whole CTA). Partitions synchronise with one another through mbarriers, as in Gluon; a barrier here only
    orders the threads of one partition."""
    gen = S._ctx().codegen
    for kind, ids in reversed(getattr(gen, "roles", ()) or ()):
        if kind == "is_warpgroup" and len(ids) == 1:
            return ids[0]
    return None


def _same(a, b):
    return a is None or b is None or a == b


def sync_before(kind, view):
    """Emits a CTA barrier before a shared-memory access of ``kind`` to ``view`` where an earlier conflicting access
    may come from other threads (see the module docstring); records the access."""
    root = _root(view.handle)
    bad = _CONFLICTS[kind]
    b = S._b()
    need = None
    for op in reversed(b.block.ops):
        for k, r in _accesses(op):
            if k == "barrier":
                need = False
                break
            if k in bad and _same(r, root):
                need = True
                break
        if need is not None:
            break
    role = _role()
    if need is None:  # the block's start: the kernel's start, or a loop / if body
        need = b.block is not b.entry and any(k in bad and _same(r, root) and w == role for k, r, w in _state())
    if need:
        barrier()
    _state().add((kind, root, role))


def barrier():
    """bar.sync over the CTA (over the warpgroup in a partition of gl.warp_specialize: named barrier 8 + its id
    with its 128 threads; 1..7 are the compiler's), marked as a barrier for ``sync_before``."""
    role = _role()
    if role is None:
        _std.debug_barrier()
    else:
        _txl.bar_wait(8 + role, 128)
    S._b().block.ops[-1].attrs["gluon_barrier"] = True
