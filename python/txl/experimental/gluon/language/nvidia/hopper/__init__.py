"""``gluon.language.nvidia.hopper``: TMA, mbarriers, ``fence_async_shared`` and ``warpgroup_mma`` (wgmma) on txl's
ops: ``warpgroup_mma`` is ``txl.dot`` (A from shared memory or registers, B from shared memory),
``warpgroup_mma_wait`` is ``txl.dot_wait``."""

from ......errors import SemanticError
from ......language import semantic as S
from ......language import txl_builtins as _txl
from ......language.core import builtin, constexpr, smem_type, tensor, _unwrap
from ..._core import shared_memory_descriptor
from ..._membar import sync_before
from . import mbarrier, tma  # noqa: F401

__all__ = ["fence_async_shared", "mbarrier", "tma", "warpgroup_mma", "warpgroup_mma_init", "warpgroup_mma_wait",
           "warpgroup_mma_accumulator"]


@builtin
def fence_async_shared(cluster=False):
    """Orders this thread's generic-proxy shared-memory accesses with the async proxy's (TMA, wgmma)."""
    _txl.fence_proxy_async()


def _operand(x, what):
    x = _unwrap(x)
    if isinstance(x, shared_memory_descriptor):
        return x._one(what)
    if isinstance(x, tensor):
        return x
    raise SemanticError("%s: expected a shared-memory buffer or a register tile, got %r" % (what, x))


@builtin
def warpgroup_mma(a, b, acc, *, use_acc=True, precision=None, max_num_imprecise_acc=None, is_async=False):
    """acc + a @ b on the tensor cores (wgmma). ``is_async=True``: the result is read after ``warpgroup_mma_wait``
    (an earlier read is a located error); else the product is complete when this returns."""
    if _unwrap(precision) not in (None, "tf32", "ieee"):
        raise SemanticError("warpgroup_mma(precision=%r) is not supported" % (_unwrap(precision),))
    ua = _unwrap(use_acc)
    ua = None if ua is True else ua
    bt = _operand(b, "warpgroup_mma B")
    if not isinstance(_unwrap(b), shared_memory_descriptor):
        raise SemanticError("warpgroup_mma: B must be a shared-memory buffer (wgmma reads B from shared memory)",
                            "store B with gl.allocate_shared_memory(..., value=b) first")
    at = _operand(a, "warpgroup_mma A")
    for t in (at, bt):
        if isinstance(t.type, smem_type):
            sync_before("async_read", t)  # wgmma reads shared memory through the async proxy
    d = S.dot(at, bt, acc, use_acc=ua)
    if not _unwrap(is_async):
        d.handle.owner.attrs["waited"] = True  # synchronous: no later warpgroup_mma_wait covers it
    return d


@builtin
def warpgroup_mma_init(acc):
    return acc


@builtin
def warpgroup_mma_wait(num_outstanding=0, deps=None):
    """Waits until at most ``num_outstanding`` warpgroup_mma groups are in flight; returns ``deps`` with the
    accumulators the wait retires replaced by their completed values (a tuple of one is returned as its value)."""
    S.dot_wait(num_outstanding)
    blk = S._b().block
    op = blk.ops[-1] if blk.ops else None
    done = {}
    if op is not None and op.name == "txl.dot_wait":
        done = {id(v): r for v, r in zip(op.operands, op.results)}
    deps = _unwrap(deps)
    if deps is None:
        return None
    single = not isinstance(deps, (tuple, list))
    out = []
    for d in ([deps] if single else deps):
        d = _unwrap(d)
        if isinstance(d, tensor) and id(d.handle) in done:
            r = done[id(d.handle)]
            d = tensor(r, r.type)
        out.append(d)
    return out[0] if len(out) == 1 else tuple(out)  # Gluon's: one dependency comes back as itself


class warpgroup_mma_accumulator:
    """Gluon's accumulator token type (annotations only)."""


_ = constexpr
