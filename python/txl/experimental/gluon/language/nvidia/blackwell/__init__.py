"""``gluon.language.nvidia.blackwell``: tensor memory and tcgen05 MMAs on txl's (sm_100a; compile-checked, no
Blackwell GPU has run them).

``allocate_tensor_memory`` is ``txl.tmem_alloc`` (one tcgen05 allocation per kernel, planned by txl-tmem-allocs),
``tmem.load(layout)`` / ``tmem.store(x)`` are ``txl.tmem_load`` / ``txl.tmem_store``, ``tcgen05_mma(a, b, acc,
mbarriers=[...])`` is ``txl.dotx`` (a tcgen05.commit per mbarrier). ``get_tmem_reg_layout`` gives txl's register
layout of a tensor-memory tile (tcgen05.ld 32x32b: row = 32 * warp + lane, the columns in registers). TMA and
mbarriers are Hopper's.
"""

from ......errors import SemanticError
from ......language import semantic as S
from ......language import txl_builtins as _txl
from ......language.core import builtin, constexpr, smem_type, tensor, _unwrap
from ..._core import given_layout, shared_memory_descriptor
from ..._layouts import BlockedLayout
from ..._membar import sync_before
from ..hopper import fence_async_shared, mbarrier, tma  # noqa: F401

__all__ = ["TensorMemoryLayout", "allocate_tensor_memory", "tensor_memory_descriptor", "tcgen05_mma",
           "tcgen05_commit", "tcgen05_copy", "get_tmem_reg_layout", "get_tmem_32x32b_reg_layout",
           "fence_async_shared", "mbarrier", "tma"]


class TensorMemoryLayout:
    """Gluon's tensor-memory layout: ``block`` (the MMA's [M, N] block), ``col_stride`` (1: 32-bit columns)."""

    def __init__(self, block, col_stride=1, cta_split_num=None, two_ctas=False, unpacked=None):
        self.block = [int(_unwrap(b)) for b in _unwrap(block)]
        self.col_stride = int(_unwrap(col_stride))
        if two_ctas:
            raise ValueError("TensorMemoryLayout(two_ctas=True): txl's Gluon runs tcgen05 MMAs on one CTA")

    def __eq__(self, other):
        return isinstance(other, TensorMemoryLayout) and (self.block, self.col_stride) == (other.block,
                                                                                         other.col_stride)

    def __hash__(self):
        return hash((tuple(self.block), self.col_stride))

    def __repr__(self):
        return "TensorMemoryLayout(block=%s, col_stride=%d)" % (self.block, self.col_stride)


class tensor_memory_descriptor:
    """A Gluon tensor-memory buffer: ``tensor`` is the txl ``!txl.tmem`` allocation (N stages for a [N, M, K]
    shape) or one view of it."""

    def __init__(self, t, layout):
        self.tensor, self.layout = t, layout

    dtype = property(lambda self: self.tensor.type.element_ty)
    shape = property(lambda self: [constexpr(s) for s in (([self.tensor.type.num_stages]
                                                           if self.tensor.type.num_stages else [])
                                                          + list(self.tensor.type.shape))])

    def _one(self, what):
        if self.tensor.type.num_stages > 1:
            raise SemanticError("%s of the %d tensor-memory buffers as a whole" % (what, self.tensor.type.num_stages),
                                "pick one with .index(i) first")
        return self.tensor

    @builtin
    def load(self, layout):
        return given_layout(_txl.tmem_load(self._one("tmem.load")), layout, "tmem.load")

    @builtin
    def store(self, value):
        _txl.tmem_store(self._one("tmem.store"), value)

    @builtin
    def index(self, i):
        if not self.tensor.type.num_stages:
            raise SemanticError("tmem.index of a single tensor-memory buffer")
        return tensor_memory_descriptor(S.get_buffer(self.tensor, i), self.layout)

    def _txl_fields(self):
        return (self.tensor,)

    def _txl_rebuild(self, fields):
        return tensor_memory_descriptor(tuple(fields)[0], self.layout)

    def _txl_static(self):
        return ("tmem", repr(self.layout), tuple(self.tensor.type.shape))

    def _txl_describe(self):
        return "a tensor-memory buffer %s" % self.tensor.type


@builtin
def allocate_tensor_memory(element_ty, shape, layout, value=None):
    shape = [int(_unwrap(s)) for s in _unwrap(shape)]
    layout = _unwrap(layout)
    if not isinstance(layout, TensorMemoryLayout):
        raise SemanticError("allocate_tensor_memory needs a TensorMemoryLayout, got %r" % (layout,))
    if len(shape) == 3:
        t = S.tmem_alloc(shape[1:], element_ty, shape[0])
    elif len(shape) == 2:
        t = S.tmem_alloc(shape, element_ty, 1)
    else:
        raise SemanticError("allocate_tensor_memory: shape %s; tensor memory holds [M, N] tiles (or [buffers, M, N])"
                            % shape)
    desc = tensor_memory_descriptor(t, layout)
    if _unwrap(value) is not None:
        desc.store(value)
    return desc


def _operand(x, what, tmem_ok):
    x = _unwrap(x)
    if isinstance(x, shared_memory_descriptor):
        t = x._one(what)
        sync_before("async_read", t)  # the tensor cores read shared memory through the async proxy
        return t
    if tmem_ok and isinstance(x, tensor_memory_descriptor):
        return x._one(what)
    raise SemanticError("%s must be a %s, got %r" % (what, "shared- or tensor-memory buffer" if tmem_ok
                                                     else "shared-memory buffer", x))


@builtin
def tcgen05_mma(a, b, acc, *, use_acc=True, pred=True, mbarriers=None, mbarrier_preds=None):
    """acc (tensor memory) += a @ b on the tensor cores, asynchronously: each of ``mbarriers`` completes a phase
    when it is done (tcgen05.commit)."""
    from ..hopper.mbarrier import _bar
    at = _operand(a, "tcgen05_mma A", True)
    bt = _operand(b, "tcgen05_mma B", False)
    acc = _unwrap(acc)
    if not isinstance(acc, tensor_memory_descriptor):
        raise SemanticError("tcgen05_mma: the accumulator must be a tensor-memory buffer (allocate_tensor_memory)")
    ua, p = _unwrap(use_acc), _unwrap(pred)
    bars = [_bar(m, "tcgen05_mma mbarriers") for m in (_unwrap(mbarriers) or [])]
    preds = list(_unwrap(mbarrier_preds) or [])
    _txl.dotx(at, bt, acc._one("tcgen05_mma acc"), useD=None if ua is True else ua, pred=None if p is True else p,
              mbars=bars, mbarPreds=preds)


@builtin
def tcgen05_commit(barrier, pred=True):
    raise SemanticError("tcgen05_commit: txl commits a tcgen05 MMA to the mbarriers it is given",
                        "pass mbarriers=[barrier] to tcgen05_mma")


@builtin
def tcgen05_copy(src, dst):
    raise SemanticError("tcgen05_copy (shared -> tensor memory) is not supported by txl's Gluon",
                        "load the tile into registers and tmem.store it")


def get_tmem_reg_layout(element_ty, shape, layout, num_warps, instr_variant="32x32b", cga_layout=None):
    """The register layout of a tensor-memory tile as txl reads it (tcgen05.ld 32x32b: row = 32 * warp + lane,
    a thread's row of N columns in registers): M = 32 * num_warps rows."""
    shape = [int(_unwrap(s)) for s in _unwrap(shape)]
    num_warps = int(_unwrap(num_warps))
    if _unwrap(instr_variant) != "32x32b" or len(shape) != 2 or shape[0] != 32 * num_warps:
        raise ValueError("get_tmem_reg_layout(shape=%s, num_warps=%d, %r): txl reads tensor memory with tcgen05.ld "
                         "32x32b, a row per thread: M must be 32 * num_warps" % (shape, num_warps, instr_variant))
    return BlockedLayout([1, shape[1]], [32, 1], [num_warps, 1], [0, 1])


def get_tmem_32x32b_reg_layout(M, N, shape, num_warps, cga_layout=None):
    return get_tmem_reg_layout(None, shape, None, num_warps)


_ = (smem_type, tensor)
