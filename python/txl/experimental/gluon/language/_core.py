"""Gluon's core builtins (``gl.*``) on top of txl.language.

A Gluon kernel is a txl kernel whose tiles carry the layouts its author gave. Each builtin here calls the txl
function that does the same thing (``tl.arange``, ``tl.full``, ``tl.load``, ``txl.smem_alloc``...) and, where Gluon
names a layout, ties the result to it with one ``txl.relayout {txl.layout = L}``: txl-assign-layouts anchors the
result's layout class to L (an error where the kernel gives one class two layouts, as Gluon's type check is), and
every tile computed from it (elementwise ops, broadcasts, loads through its pointers) has L; a reduction's result has
``SliceLayout`` of it. So the kernel gets the layouts Gluon says, and the compiler adds no conversion of its own
between them (``gl.convert_layout`` is where a kernel asks for one).

Shared memory: ``gl.allocate_shared_memory`` returns a ``shared_memory_descriptor`` (a txl ``!txl.smem`` buffer and
its Gluon layout) with Gluon's ``.load(layout)``, ``.store(value)``, ``.index(i)``, ``.slice(start, length, dim)``,
``.permute(order)``, ``.reshape(shape)``; with ``mbarrier.MBarrierLayout()`` it is an array of mbarriers
(``txl.mbar_alloc``; see nvidia/hopper/mbarrier.py).
"""

import functools

from ....errors import CompilationError, SemanticError
from ....language import core as _tl_core
from ....language import semantic as S
from ....language import standard as _std
from ....language import txl_builtins as _txl
from ....language.core import block_type, builtin, constexpr, smem_type, tensor, _unwrap
from ._membar import barrier, sync_before
from ._layouts import (NVMMASharedLayout, PaddedSharedLayout, SharedLinearLayout, SwizzledSharedLayout, is_shared,
                       layout_attr)


# ----------------------------------------------------------------------------------------------------------------
# Layouts on tiles
# ----------------------------------------------------------------------------------------------------------------
def given_layout(x, layout, what):
    """``x`` tied to ``layout`` (a Gluon distributed layout): one ``txl.relayout {txl.layout = L}`` whose result's
    layout class txl-assign-layouts anchors to L. ``layout=None`` (or AutoLayout) leaves the tile as it is."""
    attr = layout_attr(layout, what)
    if attr is None:
        return x
    t = S.to_tensor(x)
    if not isinstance(t.type, block_type):
        raise SemanticError("%s: a layout belongs to a tile, got the scalar %s" % (what, t.type))
    rank = len(t.type.shape)
    want = _layout_rank(_unwrap(layout))
    if want is not None and want != rank:
        raise SemanticError("%s: %s is a layout of rank %d, the tile %s has rank %d"
                            % (what, type(_unwrap(layout)).__name__, want, list(t.type.shape), rank))
    op = _relayout_op(t, attr)
    out = tensor(op.result, t.type)
    _layouts_of()[id(op.result)] = _unwrap(layout)
    return out


def _relayout_op(t, attr):
    """The one op this layer emits itself: ``txl.relayout %t {txl.layout = L} : T -> T`` (built by
    txl.ir.dialects' generated builder)."""
    from ....ir.dialects import txl as _d
    op = _d.relayout(t.handle, result=t.type)
    op.discardable["txl.layout"] = attr
    return S._b().insert(op)


def _layout_rank(layout):
    from ._layouts import (BlockedLayout, DistributedLinearLayout, DotOperandLayout, NVMMADistributedLayout,
                           SliceLayout)
    if isinstance(layout, BlockedLayout):
        return len(layout.size_per_thread)
    if isinstance(layout, SliceLayout):
        parent = _layout_rank(layout.parent)
        return None if parent is None else parent - 1
    if isinstance(layout, (NVMMADistributedLayout, DotOperandLayout)):
        return 2
    if isinstance(layout, DistributedLinearLayout):
        return len(layout.shape)
    return None


def _layouts_of():
    """Per kernel being compiled: IR value id -> the layout Gluon gave it (what ``x.type.layout`` reads)."""
    ctx = S._ctx()
    d = getattr(ctx, "_gluon_layouts", None)
    if d is None:
        d = ctx._gluon_layouts = {}
    return d


def layout_of(t):
    """The layout a kernel gave tile ``t`` (None when txl infers it from the tiles it is computed from)."""
    return _layouts_of().get(id(t.handle))


# ----------------------------------------------------------------------------------------------------------------
# Tiles
# ----------------------------------------------------------------------------------------------------------------
@builtin
def arange(start, end, layout=None):
    return given_layout(_std.arange(start, end), layout, "gl.arange")


@builtin
def full(shape, value, dtype, layout=None):
    return given_layout(_std.full(shape, value, dtype), layout, "gl.full")


@builtin
def zeros(shape, dtype=_tl_core.float32, layout=None):
    return given_layout(_std.full(shape, 0, dtype), layout, "gl.zeros")


def _like(input, shape, dtype):
    t = S.to_tensor(input)
    shape = list(t.type.shape) if _unwrap(shape) is None else _unwrap(shape)
    return shape, (t.dtype if _unwrap(dtype) is None else dtype), t


@builtin
def full_like(input, value, shape=None, dtype=None, layout=None):
    """``value`` in the shape, dtype and layout of ``input`` (each unless given). The input's layout is the one the
    kernel gave it; a tile whose layout txl infers gets the fill untied, and the fill joins its layout class where
    the two meet (an elementwise op), as Gluon's would."""
    t = S.to_tensor(input)
    shape = list(t.type.shape) if _unwrap(shape) is None else _unwrap(shape)
    dtype = t.dtype if _unwrap(dtype) is None else dtype
    if _unwrap(layout) is None and isinstance(t.type, block_type) and list(shape) == list(t.type.shape):
        layout = layout_of(t)
    return given_layout(_std.full(shape, value, dtype), layout, "gl.full_like")


@builtin
def zeros_like(input, shape=None, dtype=None, layout=None):
    return full_like(input, 0, shape, dtype, layout)


@builtin
def convert_layout(value, layout, assert_trivial=False):
    """The tile in ``layout``: a ``txl.relayout`` (free when both layouts place every element in the same thread,
    shuffles or a shared-memory round trip otherwise, decided by the compiler's LinearLayout algebra)."""
    return given_layout(value, layout, "gl.convert_layout")


@builtin
def set_auto_layout(value, layout):
    return given_layout(value, layout, "gl.set_auto_layout")


@builtin
def thread_barrier():
    barrier()


@builtin
def num_warps():
    return constexpr(S._ctx().num_warps)


@builtin
def num_ctas():
    return constexpr(1)


class NeedsWarpgroups(CompilationError):
    """Raised by gl.warp_specialize when the kernel is being compiled with fewer warpgroups than its partitions:
    GluonJITFunction compiles it again with ``num_warpgroups`` (it passes the code generator untouched, as a
    CompilationError does)."""

    def __init__(self, n):
        super().__init__("gl.warp_specialize needs %d warpgroups (one per partition): launch the kernel with "
                         "num_warpgroups=%d (a @gluon.jit kernel is compiled so by itself)" % (n, n))
        self.n = n


def _partitions(args, kwargs):
    """[(function, args)] (the default partition first) and the workers' warp counts, from any of Gluon's three
    signatures: warp_specialize(functions_and_args, worker_num_warps, worker_num_regs),
    warp_specialize(args, default_partition, worker_partitions, worker_num_warps, worker_num_regs) and
    warp_specialize(default_args, default_partition, worker_args, worker_partitions, worker_num_warps,
    worker_num_regs)."""
    a = [_unwrap(x) for x in args]
    kw = {k: _unwrap(v) for k, v in kwargs.items()}
    if "functions_and_args" in kw or (a and isinstance(a[0], (list, tuple)) and a[0]
                                      and all(isinstance(p, (list, tuple)) and len(p) == 2 and callable(_unwrap(p[0]))
                                              for p in a[0])):
        parts = kw.get("functions_and_args", a[0] if a else None)
        warps = kw.get("worker_num_warps", a[1] if len(a) > 1 else None)
        return [(_unwrap(f), tuple(_unwrap(x))) for f, x in parts], warps
    names6 = ("default_args", "default_partition", "worker_args", "worker_partitions", "worker_num_warps",
              "worker_num_regs")
    names5 = ("args", "default_partition", "worker_partitions", "worker_num_warps", "worker_num_regs")
    if len(a) + len(kw) >= 6 or "worker_args" in kw:
        v = dict(zip(names6, a), **kw)
        parts = [(v["default_partition"], tuple(_unwrap(v["default_args"])))]
        parts += [(f, tuple(_unwrap(v["worker_args"]))) for f in _unwrap(v["worker_partitions"])]
        return parts, v["worker_num_warps"]
    v = dict(zip(names5, a), **kw)
    shared = tuple(_unwrap(v["args"]))
    return [(v["default_partition"], shared)] + [(f, shared) for f in _unwrap(v["worker_partitions"])], \
        v["worker_num_warps"]


@builtin
def warp_specialize(*args, **kwargs):
    """Gluon's warp specialization as txl's warpgroup roles: partition k (the default partition first) runs under
    ``if txl.is_warpgroup([k])``, each on a warpgroup of its own (a worker of 1 or 2 warps gets a whole warpgroup;
    its layouts, of fewer warps, repeat over the others, and TMA copies, mbarrier arrivals and scalar stores are
    issued once). The kernel is compiled with one warpgroup per partition. txl runs the code outside the
    partitions in every warpgroup, so it may only compute values and allocate (GluonJITFunction checks that)."""
    parts, warps = _partitions(args, kwargs)
    ctx = S._ctx()
    gen = ctx.codegen
    warps = [int(_unwrap(w)) for w in (_unwrap(warps) or [])]
    if len(warps) != len(parts) - 1:
        raise SemanticError("gl.warp_specialize: %d worker partitions but %d worker_num_warps"
                            % (len(parts) - 1, len(warps)))
    if any(w not in (1, 2, 4) for w in warps):
        raise SemanticError("gl.warp_specialize: worker_num_warps %s: txl runs each worker on one warpgroup (1, 2 or "
                            "4 warps)" % warps, "split a larger worker into several partitions")
    if ctx.num_warps != 4:
        raise SemanticError("gl.warp_specialize in a kernel of num_warps=%d: txl's default partition is one "
                            "warpgroup" % ctx.num_warps, "launch with num_warps=4")
    if gen is None or gen.roles or gen.region_depth:
        raise SemanticError("gl.warp_specialize inside a loop, an `if` or another partition: txl's partitions are "
                            "the kernel's top-level warpgroup roles", "call it at the kernel's top level")
    if ctx.num_warpgroups != len(parts):
        raise NeedsWarpgroups(len(parts))
    node = gen.cur_call
    for k, (fn, fargs) in enumerate(parts):
        def run(fn=fn, fargs=fargs, k=k):
            out = gen.call_jit(node, fn, list(fargs), {})
            if out is not None and k == 0:
                raise SemanticError("gl.warp_specialize: the default partition returns a value; txl's partitions "
                                    "are warpgroup roles, whose results do not leave them",
                                    "store the result (to global or shared memory) in the partition")
        gen.runtime_if(node, _txl.is_warpgroup([k]), run, None)
    return None


# ----------------------------------------------------------------------------------------------------------------
# Shared memory
# ----------------------------------------------------------------------------------------------------------------
class shared_memory_descriptor_type:
    """What ``smem.type`` is in Gluon: the block's shape, element type and shared layout."""

    def __init__(self, element_ty, shape, layout):
        self.element_ty = element_ty
        self.shape = list(shape)
        self.layout = layout

    @property
    def nbytes(self):
        return functools.reduce(lambda a, b: a * b, self.shape, 1) * self.element_ty.primitive_bitwidth // 8

    def __eq__(self, other):
        return isinstance(other, shared_memory_descriptor_type) and (self.element_ty, self.shape, self.layout) == (
            other.element_ty, other.shape, other.layout)

    def __repr__(self):
        return "shared_memory_descriptor<%s%s, %r>" % ("".join("%dx" % s for s in self.shape), self.element_ty,
                                                         self.layout)


class shared_memory_descriptor:
    """A Gluon shared-memory buffer: ``tensor`` is the txl view (``!txl.smem<...>``), ``layout`` Gluon's shared
    layout. A frontend aggregate: it goes through run-time control flow as its one view."""

    def __init__(self, t, layout):
        self.tensor = t
        self.layout = layout

    # -- what Gluon kernels read ------------------------------------------------------------------------------
    @property
    def dtype(self):
        return self.tensor.type.element_ty

    @property
    def _shape(self):
        ty = self.tensor.type
        return ([ty.num_stages] if ty.num_stages else []) + list(ty.shape)

    @property
    def shape(self):
        return [constexpr(s) for s in self._shape]

    @property
    def rank(self):
        return len(self._shape)

    @property
    def type(self):
        return shared_memory_descriptor_type(self.dtype, self._shape, self.layout)

    def _one(self, what):
        """The view to load / store / slice: a multi-buffer allocation must be indexed first."""
        if self.tensor.type.num_stages:
            raise SemanticError("%s of the %d buffers %s as a whole: txl lays each buffer out on its own"
                                % (what, self.tensor.type.num_stages, list(self._shape)),
                                "pick one with .index(i) first")
        return self.tensor

    def _view(self, t, layout=None):
        return shared_memory_descriptor(t, self.layout if layout is None else layout)

    # -- methods ----------------------------------------------------------------------------------------------
    @builtin
    def load(self, layout):
        """The buffer as a register tile in ``layout``."""
        view = self._one("smem.load")
        sync_before("read", view)
        return given_layout(S.smem_load(view), layout, "smem.load")

    @builtin
    def store(self, value):
        v = S.to_tensor(value)
        if isinstance(v.type, block_type) and v.dtype != self.dtype:
            raise SemanticError("smem.store: the value is %s, the buffer holds %s" % (v.dtype.name, self.dtype.name),
                                "convert first: value.to(gl.%s)" % _tl_core._DTYPE_PY_NAMES.get(self.dtype.name,
                                                                                             self.dtype.name))
        view = self._one("smem.store")
        sync_before("write", view)
        S.smem_store(view, v)

    @builtin
    def index(self, index):
        """Sub-buffer ``index`` along the first dimension (a run-time index is fine)."""
        if self.rank < 2:
            raise SemanticError("smem.index: a buffer of rank %d has no sub-buffers" % self.rank)
        if self.tensor.type.num_stages:
            return self._view(S.get_buffer(self.tensor, index))
        return self._view(_txl.smem_index(self.tensor, index))

    @builtin
    def slice(self, start, length, dim=0):
        return self._view(_txl.smem_slice(self._one("smem.slice"), start, length, dim))

    @builtin
    def permute(self, order):
        order = [int(_unwrap(o)) for o in _unwrap(order)]
        return self._view(S.smem_trans(self._one("smem.permute"), order))

    @builtin
    def trans(self):
        return self.permute([1, 0])

    @builtin
    def reshape(self, shape):
        return self._view(_txl.smem_reshape(self._one("smem.reshape"), shape))

    @builtin
    def _reinterpret(self, dtype, shape, layout):
        raise SemanticError("smem._reinterpret: txl buffers keep their element type and shape",
                            "allocate a second buffer of the type you need")

    @builtin
    def _keep_alive(self):
        pass  # txl keeps every buffer with asynchronous users live to the end of the kernel

    # -- the aggregate protocol of the code generator (control flow) -----------------------------------------
    def _txl_fields(self):
        return (self.tensor,)

    def _txl_rebuild(self, fields):
        return shared_memory_descriptor(tuple(fields)[0], self.layout)

    def _txl_static(self):
        return ("smem", repr(self.layout), tuple(self._shape), self.tensor.type.element_ty)

    def _txl_describe(self):
        return "a shared-memory buffer %s" % self.tensor.type

    def __repr__(self):
        return "<%s>" % self._txl_describe()


def _shared_swizzle(layout, shape, what):
    """The NVMMA swizzle (bytes) txl gives a buffer of Gluon shared layout ``layout``."""
    layout = _unwrap(layout)
    if isinstance(layout, NVMMASharedLayout):
        if layout.fp4_padded:
            raise SemanticError("%s: NVMMASharedLayout(fp4_padded=True): txl has no fp4 operands" % what)
        if layout.swizzle_byte_width not in (0, 32, 64, 128):
            raise SemanticError("%s: NVMMASharedLayout swizzle_byte_width=%r must be 0, 32, 64 or 128"
                                % (what, layout.swizzle_byte_width))
        return int(layout.swizzle_byte_width)
    if isinstance(layout, SwizzledSharedLayout):
        if (int(layout.vec), int(layout.per_phase), int(layout.max_phase)) != (1, 1, 1):
            raise SemanticError("%s: SwizzledSharedLayout(vec=%s, per_phase=%s, max_phase=%s): txl's shared "
                                "buffers are either unswizzled or NVMMA-swizzled (TMA/wgmma's 32/64/128-byte "
                                "patterns)" % (what, layout.vec, layout.per_phase, layout.max_phase),
                                "use gl.SwizzledSharedLayout(1, 1, 1, order) (unswizzled) or "
                                "gl.NVMMASharedLayout.get_default_for(shape, dtype)")
        # The order of the tile's dimensions (a multi-buffer allocation's leading dimension is not in it).
        order = [int(_unwrap(o)) for o in layout.order]
        if order != list(range(len(order) - 1, -1, -1)) or len(order) > len(shape):
            raise SemanticError("%s: SwizzledSharedLayout order=%s: txl's buffers are row-major (order %s)"
                                % (what, order, list(range(len(shape) - 1, -1, -1))),
                                "store the tile transposed, or use a .permute view of a row-major buffer")
        return 0
    if isinstance(layout, (PaddedSharedLayout, SharedLinearLayout)):
        raise SemanticError("%s: %s is not supported by txl (its shared buffers are unswizzled or NVMMA-swizzled)"
                            % (what, type(layout).__name__),
                            "use gl.NVMMASharedLayout.get_default_for(shape, dtype) or gl.SwizzledSharedLayout(1, 1, "
                            "1, order)")
    raise SemanticError("%s: %r is not a shared-memory layout" % (what, layout),
                        "use gl.NVMMASharedLayout(...) or gl.SwizzledSharedLayout(...)")


@builtin
def allocate_shared_memory(element_ty, shape, layout, value=None):
    """A shared-memory buffer (``txl.smem_alloc``, hoisted to the kernel's start) of ``shape`` with ``layout``; an
    mbarrier array for ``mbarrier.MBarrierLayout()``. ``value`` is stored into it."""
    from .nvidia.hopper.mbarrier import MBarrierLayout, _MBarrierArray
    layout = _unwrap(layout)
    shape = [int(_unwrap(s)) for s in _unwrap(shape)]
    if isinstance(layout, MBarrierLayout):
        return _MBarrierArray(shape)
    if not is_shared(layout):
        raise SemanticError("gl.allocate_shared_memory needs a shared layout, got %r" % (layout,),
                            "use gl.NVMMASharedLayout / gl.SwizzledSharedLayout (or mbarrier.MBarrierLayout() for "
                            "mbarriers)")
    swizzle = _shared_swizzle(layout, shape, "gl.allocate_shared_memory")
    if len(shape) >= 3 or (len(shape) == 2 and isinstance(layout, NVMMASharedLayout) and int(layout.rank) == 1):
        # [N, *tile]: N buffers of the tile (Gluon's multi-buffering, reached with .index(i)): a txl allocation of
        # N stages, each laid out (swizzled) on its own, as TMA and wgmma see one tile.
        t = S.smem_alloc(shape[1:], element_ty, shape[0])
        t.type.cell.set_swizzle(swizzle, "the shared layout gl.allocate_shared_memory names")
        desc = shared_memory_descriptor(t, layout)
    else:
        t = S.smem_alloc(shape, element_ty, 1)
        t.type.cell.set_swizzle(swizzle, "the shared layout gl.allocate_shared_memory names")
        desc = shared_memory_descriptor(S.get_buffer(t, 0), layout)
    if _unwrap(value) is not None:
        desc.store(value)
    return desc


def smem_tensor(x, what):
    """The txl view of a Gluon shared-memory descriptor (a SemanticError for anything else)."""
    x = _unwrap(x)
    if isinstance(x, shared_memory_descriptor):
        return x._one(what)
    if isinstance(x, tensor) and isinstance(x.type, smem_type):
        return x
    raise SemanticError("%s needs a shared-memory buffer (gl.allocate_shared_memory), got %s"
                        % (what, x.type if isinstance(x, tensor) else repr(x)))


def constexpr_function(fn):
    """Gluon's ``@gluon.constexpr_function``: a Python function a kernel calls on compile-time values (txl's code
    generator runs any plain Python function whose arguments are all compile-time values). It runs as host code:
    ``triton.cdiv`` in it is the host's (an int), not the kernel's."""
    @functools.wraps(fn)
    def host(*args, **kwargs):
        with S.activate(None):  # no kernel is being compiled while it runs
            return fn(*args, **kwargs)

    host.__gluon_constexpr_function__ = True
    return host
