"""Gluon's ``mbarrier`` module (``from ...gluon.language.nvidia.hopper import mbarrier``) on txl's mbarriers.

``gl.allocate_shared_memory(gl.int64, [N, 1], mbarrier.MBarrierLayout())`` is an array of N mbarriers; txl
allocates mbarriers with their arrival count (``txl.mbar_alloc count``), so the array becomes one ``txl.mbar_alloc``
of N stages at its first ``mbarrier.init`` (every barrier of an array is initialised with one count; a second count
is a located error). ``init`` places nothing in the kernel's body: txl initialises mbarriers at the kernel's start
(thread 0, fence, barrier: the txl-mbars stage), and ``invalidate`` is not needed (txl never reuses an mbarrier's
memory for data).
"""

from ......errors import SemanticError
from ......language import semantic as S
from ......language import txl_builtins as _txl
from ......language.core import builtin, mbar_type, tensor, _unwrap
from ..._membar import barrier

__all__ = ["MBarrierLayout", "init", "invalidate", "expect", "wait", "arrive", "fence_init_release_cluster",
           "sync_cluster_init"]


class MBarrierLayout:
    """The layout Gluon allocates mbarriers with (``gl.allocate_shared_memory(gl.int64, [N], MBarrierLayout())``)."""

    def __init__(self, cta_split_num=None, ctas_per_cga=None, two_cta=False):
        if two_cta:
            raise ValueError("MBarrierLayout(two_cta=True): txl's mbarriers belong to one CTA")
        self.cta_split_num = cta_split_num
        self.ctas_per_cga = ctas_per_cga

    def __eq__(self, other):
        return isinstance(other, MBarrierLayout)

    def __hash__(self):
        return hash("MBarrierLayout")

    def __repr__(self):
        return "MBarrierLayout()"


class _MBarrierArray:
    """N mbarriers from ``gl.allocate_shared_memory(gl.int64, shape, MBarrierLayout())`` (shape [N] or [N, 1]);
    allocated (``txl.mbar_alloc``) by the first ``mbarrier.init``, which gives the count."""

    def __init__(self, shape):
        if not shape or len(shape) > 2 or (len(shape) == 2 and shape[1] != 1) or shape[0] < 1:
            raise SemanticError("gl.allocate_shared_memory(gl.int64, %s, MBarrierLayout()): an mbarrier array has "
                                "shape [N] or [N, 1]" % (shape,))
        self.n = shape[0]
        self.tensor = None  # the txl.mbar_alloc, once initialised
        self.count = None
        self.views = {}  # id(handle) of a view made by .index -> its index

    dtype = property(lambda self: _int64())
    shape = property(lambda self: [self.n] if self.n else [1])

    def _alloc(self, count, what):
        count = S._static_int(count, what + " count")
        if self.tensor is None:
            self.tensor = S.mbar_alloc(count, self.n)
            self.count = count
        elif count != self.count:
            raise SemanticError("%s(count=%d) on an mbarrier of an array initialised with count=%d: txl allocates an "
                                "array's mbarriers with one arrival count" % (what, count, self.count),
                                "allocate the barriers that need another count as an array of their own")

    @builtin
    def index(self, i):
        i = _unwrap(i)
        if self.tensor is None:
            if not isinstance(i, int):
                raise SemanticError("mbarriers.index(i) with a run-time index before mbarrier.init: the array is "
                                    "allocated by its first mbarrier.init", "initialise the barriers first")
            if not 0 <= i < self.n:
                raise SemanticError("mbarriers.index(%d) of an array of %d mbarriers" % (i, self.n))
            return _PendingMBarrier(self, i)
        v = S.get_buffer(self.tensor, i)
        self.views[id(v.handle)] = i
        return v

    def _view(self, what):
        if self.tensor is None:
            raise SemanticError("%s of an mbarrier that mbarrier.init has not initialised" % what,
                                "call mbarrier.init(bar, count=...) first")
        if self.n != 1:
            raise SemanticError("%s of an array of %d mbarriers" % (what, self.n), "pick one with bars.index(i)")
        return S.get_buffer(self.tensor, 0)

    def __repr__(self):
        return "<%d mbarrier%s>" % (self.n, "s" if self.n > 1 else "")


class _PendingMBarrier:
    """``bars.index(i)`` before the array is allocated (what ``mbarrier.init(bars.index(i), count)`` takes)."""

    def __init__(self, array, i):
        self.array, self.i = array, i

    def _view(self, what):
        return self.array.index(self.i) if self.array.tensor is not None else self.array._view(what)


def _int64():
    from ......language.core import int64
    return int64


def _bar(bar, what):
    """The txl mbarrier view a Gluon mbarrier argument names."""
    bar = _unwrap(bar)
    if isinstance(bar, (_MBarrierArray, _PendingMBarrier)):
        return bar._view(what)
    if isinstance(bar, tensor) and isinstance(bar.type, mbar_type):
        return bar
    raise SemanticError("%s needs an mbarrier (gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())), "
                        "got %r" % (what, bar))


def _true(pred, what):
    p = _unwrap(pred)
    if p is True or (isinstance(p, int) and p == 1):
        return None
    return p


@builtin
def init(mbarrier, count):
    """Gives the mbarrier (array) its arrival count; txl initialises it at the kernel's start."""
    bar = _unwrap(mbarrier)
    if isinstance(bar, _PendingMBarrier):
        bar.array._alloc(count, "mbarrier.init")
        return
    if isinstance(bar, _MBarrierArray):
        bar._alloc(count, "mbarrier.init")
        return
    if isinstance(bar, tensor) and isinstance(bar.type, mbar_type):
        return  # a view of an initialised array (bars.index(i) after the first init): its count is the array's
    raise SemanticError("mbarrier.init needs an mbarrier, got %r" % (bar,))


@builtin
def invalidate(mbarrier):
    _bar(mbarrier, "mbarrier.invalidate")  # checked; nothing to do (see the module docstring)


@builtin
def expect(mbarrier, bytes_per_cta=None, pred=True, bytes=None):
    """Arrive on the barrier expecting ``bytes`` of asynchronous copies (mbarrier.arrive.expect_tx)."""
    n = bytes_per_cta if _unwrap(bytes_per_cta) is not None else bytes
    _txl.mbar_expect(_bar(mbarrier, "mbarrier.expect"), n, pred=_true(pred, "mbarrier.expect"))


@builtin
def wait(mbarrier, phase, pred=True, deps=()):
    if _true(pred, "mbarrier.wait") is not None:
        raise SemanticError("mbarrier.wait(pred=...): txl's mbarrier wait is not predicated",
                            "put the wait under `if pred:`")
    _txl.mbar_wait(_bar(mbarrier, "mbarrier.wait"), phase)


@builtin
def arrive(mbarrier, count=1, pred=True):
    """One arrival per call, by the first thread of the warps running it (Gluon's: its partition's, the CTA's
    outside warp_specialize), as Triton lowers it; txl.mbar_arrive arrives in every thread that runs it, so the
    call is predicated on that thread. A barrier of those warps comes first: the arrival says that all of them are
    done with what it guards (typically a buffer they read, which another partition then overwrites)."""
    if S._static_int(count, "mbarrier.arrive count") != 1:
        raise SemanticError("mbarrier.arrive(count=%d): txl arrives once per call" % _unwrap(count),
                            "call mbarrier.arrive once per arrival")
    if S._ctx().num_warps > 1:
        barrier()
    first = S.compare("==", S.binary("%", _txl.tid(), 32 * S._ctx().num_warps), 0)
    p = _true(pred, "mbarrier.arrive")
    if p is not None:
        first = S.logical("and", first, S.cast(S.to_tensor(p), first.dtype))
    _txl.mbar_arrive(_bar(mbarrier, "mbarrier.arrive"), pred=first)


@builtin
def fence_init_release_cluster():
    pass  # txl initialises mbarriers behind a cluster barrier in cluster kernels


@builtin
def sync_cluster_init():
    pass
