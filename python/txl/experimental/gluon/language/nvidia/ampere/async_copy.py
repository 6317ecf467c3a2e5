"""Gluon's ``async_copy`` (cp.async) on ``txl.async_load``.

txl commits every ``txl.async_load`` as a group of its own; Gluon groups the copies issued since the last
``commit_group``. ``wait_group(n)`` ("all but the n most recent committed groups are complete") becomes
``txl.async_load_wait k`` with k the number of copies issued after the (n+1)-th most recent ``commit_group`` (the
copies of the n groups committed last, and any not committed yet), counted back from the wait (``_allowed``): through
the block, into the previous iterations of a loop body and the code before the loop (the fewest over those paths),
through a loop met from after it (its last iteration, or no iteration); it stops, counting no further, at an ``if``
with copies inside, a loop with copies in nested ops or no ``commit_group``, and the start of an ``if`` body. A wait
in a loop body is walked again once the loop is complete (``_refine_waits``, at the next async_copy call). Waiting
for more than Gluon asks is always correct; k is exact for straight-line code and tutorial 03's pipelines.
"""

from ......errors import SemanticError
from ......language import semantic as S
from ......language import txl_builtins as _txl
from ......language.core import builtin, _unwrap
from ..._core import smem_tensor
from ..._membar import sync_before

__all__ = ["async_copy_global_to_shared", "commit_group", "wait_group", "mbarrier_arrive"]


@builtin
def async_copy_global_to_shared(smem, pointer, mask=None, cache_modifier="", eviction_policy="", volatile=False):
    if _unwrap(volatile):
        raise SemanticError("async_copy_global_to_shared(volatile=True): cp.async has no volatile form")
    _refine_waits()
    view = smem_tensor(smem, "async_copy_global_to_shared")
    sync_before("cp_write", view)
    _txl.async_load(view, pointer, mask=mask,
                    cache_modifier=cache_modifier, eviction_policy=eviction_policy)


def _commits(block):
    d = S._ctx().__dict__.setdefault("_gluon_commits", {})
    return d.setdefault(id(block), (block, []))[1]


@builtin
def commit_group():
    _refine_waits()
    blk = S._b().block
    _commits(blk).append(blk.ops[-1] if blk.ops else None)  # the group ends after this op


def _has_copies(op):
    return any(o.name == "txl.async_load" or _has_copies(o) for r in op.regions for b in r.blocks for o in b.ops)


@builtin
def wait_group(num_outstanding=0):
    n = S._static_int(num_outstanding, "async_copy.wait_group num_outstanding")
    if n < 0:
        raise SemanticError("async_copy.wait_group(%d): the count must be >= 0" % n)
    _refine_waits()
    blk = S._b().block
    _txl.async_load_wait(_allowed(blk, len(blk.ops), n))
    # In a loop body that is still being built, the walk stops at the body's start; once the loop is complete (the
    # next async_copy call after it), _refine_waits walks on into the previous iteration and the code before the loop.
    _pending_waits().append((blk.ops[-1], blk, n))


def _pending_waits():
    return S._ctx().__dict__.setdefault("_gluon_waits", [])


def _commit_positions(blk):
    """{position in blk.ops: the number of commit_groups right before the op at that position}."""
    at = {}
    for m in _commits(blk):
        pos = 0 if m is None else (blk.ops.index(m) + 1 if m in blk.ops else len(blk.ops))
        at[pos] = at.get(pos, 0) + 1
    return at


def _owner(block):
    """(op, its block, its position) of the op whose region holds ``block``, once that op is in the kernel (a loop
    body being built is not yet); None at the kernel's top level."""
    def find(b):
        for i, op in enumerate(b.ops):
            for r in op.regions:
                for bb in r.blocks:
                    if bb is block:
                        return op, b, i
                    f = find(bb)
                    if f:
                        return f
        return None
    entry = S._b().entry
    return find(entry) if entry is not None and entry is not block else None


def _simple_loop(op):
    """An scf.for whose body commits at least one group and issues its copies itself (none inside nested ops): the
    walk can go through its iterations (each one passes a commit, so the walk ends)."""
    if op.name != "scf.for" or not op.regions or not op.regions[0].blocks:
        return False
    body = op.regions[0].blocks[0]
    return bool(_commits(body)) and not any(o.name != "txl.async_load" and _has_copies(o) for o in body.ops)


def _allowed(blk, pos, n, j=0, k=0, depth=0):
    """The copies that may stay in flight at position ``pos`` of ``blk`` under ``wait_group(n)``: walking back,
    the copies issued after the (n+1)-th most recent commit_group (the n groups committed last and any copies not
    committed yet). Where the walk can take several paths (the start of a loop body: the previous iteration or
    the code before the loop; a loop met from after it: its last iteration or, with no iteration, the code before
    it), the fewest over the paths; where it cannot follow the control flow (an ``if`` or a loop with copies in
    nested ops, the start of an ``if`` body), the copies counted so far. Waiting for more copies than Gluon asks
    is always correct."""
    commits_at = _commit_positions(blk)
    while True:
        j += commits_at.get(pos, 0)
        if j > n:
            return k
        if pos == 0:
            own = _owner(blk) if depth < 16 else None
            if own is None or not _simple_loop(own[0]):
                return k
            op, parent, idx = own
            return min(_allowed(blk, len(blk.ops), n, j, k, depth + 1), _allowed(parent, idx, n, j, k, depth + 1))
        op = blk.ops[pos - 1]
        if op.name == "txl.async_load":
            k += 1
        elif _has_copies(op):
            if depth < 16 and _simple_loop(op):
                body = op.regions[0].blocks[0]
                return min(_allowed(body, len(body.ops), n, j, k, depth + 1),
                           _allowed(blk, pos - 1, n, j, k, depth + 1))
            return k
        pos -= 1


def _refine_waits():
    """The waits of loop bodies completed since they were generated: walked again through the loop."""
    waits = _pending_waits()
    keep = []
    for op, blk, n in waits:
        if op not in blk.ops:
            continue  # a first pass's body, discarded
        if _owner(blk) is None:
            keep.append((op, blk, n))
            continue
        k = _allowed(blk, blk.ops.index(op), n)
        if k > op.props["pendings"]:
            op.props["pendings"] = k
    waits[:] = keep


@builtin
def mbarrier_arrive(mbarrier, increment_count=True):
    raise SemanticError("async_copy.mbarrier_arrive (cp.async.mbarrier.arrive) is not supported by txl",
                        "wait for the copies with async_copy.wait_group, then mbarrier.arrive")
