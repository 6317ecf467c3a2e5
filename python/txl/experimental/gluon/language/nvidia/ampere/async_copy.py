"""Gluon's ``async_copy`` (cp.async) on ``txl.async_load``.

txl commits every ``txl.async_load`` as a group of its own; Gluon groups the copies issued since the last
``commit_group``. ``wait_group(n)`` ("all but the n most recent committed groups are complete") becomes
``txl.async_load_wait k`` with k the number of copies of the same block after the (n+1)-th most recent
``commit_group`` (the copies of the n groups committed last, and any not committed yet), counted back from the wait
until that commit, the block's start, or an ``if`` / loop with copies inside (how many of those ran is not known
here). Waiting for more than Gluon asks is always correct; k is exact for straight-line code.
"""

from ......compiler.errors import SemanticError
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
    view = smem_tensor(smem, "async_copy_global_to_shared")
    sync_before("cp_write", view)
    _txl.async_load(view, pointer, mask=mask,
                    cache_modifier=cache_modifier, eviction_policy=eviction_policy)


def _commits(block):
    d = S._ctx().__dict__.setdefault("_gluon_commits", {})
    return d.setdefault(id(block), (block, []))[1]


@builtin
def commit_group():
    blk = S._b().block
    _commits(blk).append(blk.ops[-1] if blk.ops else None)  # the group ends after this op


def _has_copies(op):
    return any(o.name == "txl.async_load" or _has_copies(o) for r in op.regions for b in r.blocks for o in b.ops)


@builtin
def wait_group(num_outstanding=0):
    n = S._static_int(num_outstanding, "async_copy.wait_group num_outstanding")
    if n < 0:
        raise SemanticError("async_copy.wait_group(%d): the count must be >= 0" % n)
    blk = S._b().block
    # The copies Gluon lets stay in flight: those of the n groups committed last and those not committed yet. Walk
    # the block back from here, counting copies until the (n+1)-th commit_group; an op with copies inside (a loop,
    # an `if`) ends the walk: how many of its copies ran, and were committed, is not known here.
    commits_at = {}
    for m in _commits(blk):
        pos = 0 if m is None else (blk.ops.index(m) + 1 if m in blk.ops else len(blk.ops))
        commits_at[pos] = commits_at.get(pos, 0) + 1
    k = j = 0
    pos = len(blk.ops)
    while True:
        j += commits_at.get(pos, 0)
        if j > n or pos == 0:
            break
        op = blk.ops[pos - 1]
        if op.name == "txl.async_load":
            k += 1
        elif _has_copies(op):
            break
        pos -= 1
    _txl.async_load_wait(k)


@builtin
def mbarrier_arrive(mbarrier, increment_count=True):
    raise SemanticError("async_copy.mbarrier_arrive (cp.async.mbarrier.arrive) is not supported by txl",
                        "wait for the copies with async_copy.wait_group, then mbarrier.arrive")
