"""Global memory through pointers: ``tl.load`` / ``tl.store`` of pointer tiles, block pointers
(``tl.make_block_ptr``, ``tl.advance``) and the atomics."""

from ...ir import dialects as ods
from ...errors import SemanticError
from .. import core
from ..core import block_type, dtype, pointer_type, tensor, tensordesc_type, _unwrap
from .context import _b
from .values import const_value, constant, to_tensor
from .broadcast import broadcast_shapes, broadcast_to, _shape
from .arith import cast, _check_value, _with_elem


# ----------------------------------------------------------------------------------------------------------------
# Memory: pointers
# ----------------------------------------------------------------------------------------------------------------
_CACHE = {"": None, ".ca": "ca", ".cg": "cg", ".cv": "cv", ".cs": "cs", ".wb": "wb", ".wt": "wt",
          "ca": "ca", "cg": "cg", "cv": "cv", "cs": "cs", "wb": "wb", "wt": "wt"}


_EVICT = {"": None, "evict_normal": None, "evict_first": "evict_first", "evict_last": "evict_last"}


def _mem_attrs(cache_modifier, eviction_policy, volatile=False):
    cm, ev = _unwrap(cache_modifier) or "", _unwrap(eviction_policy) or ""
    if cm not in _CACHE:
        raise SemanticError("unknown cache_modifier %r (expected one of .ca .cg .cv .cs .wb .wt)" % cm)
    if ev not in _EVICT:
        raise SemanticError("unknown eviction_policy %r (expected evict_first / evict_last)" % ev)
    attrs = {"cache": _CACHE[cm], "evict": _EVICT[ev]}
    if _unwrap(volatile):
        attrs["isVolatile"] = True
    return attrs


def _bool_mask(mask, what):
    """A mask is a boolean (i1) tile or scalar, as in Triton ("Mask must have boolean scalar type"): an integer
    mask is almost always a forgotten comparison, and reading it as `!= 0` quietly would hide that."""
    m = to_tensor(mask)
    if not m.dtype.is_bool():
        raise SemanticError("%s: the mask must be a boolean tile (i1), got %s" % (what, m.dtype.name),
                            "compare to get one, e.g. `mask=m != 0` or `mask=offs < n`")
    return m


def load(pointer, mask=None, other=None, boundary_check=(), padding_option="", cache_modifier="",
         eviction_policy="", volatile=False):
    if isinstance(_unwrap(pointer), core.block_pointer):
        return _load_block_pointer(_unwrap(pointer), mask, other, boundary_check, padding_option, cache_modifier,
                                   eviction_policy, volatile)
    ptr = to_tensor(pointer)
    if isinstance(ptr.type, tensordesc_type):
        raise SemanticError("tl.load does not take a TMA descriptor", "use desc.load([x, y])")
    if not ptr.dtype.is_ptr():
        raise SemanticError("tl.load needs a pointer or a tile of pointers, got %s" % ptr.type,
                            "build pointers as base_ptr + offsets")
    if _unwrap(boundary_check) or _unwrap(padding_option):
        _not_a_block_pointer("tl.load", "boundary_check/padding_option", "mask=offs < n, other=0.0")
    mask, other = _unwrap(mask), _unwrap(other)
    if other is not None and mask is None:
        raise SemanticError("tl.load: `other` is only used with a `mask`", "pass mask=... or drop other=")
    elt = ptr.dtype.element_ty
    operands = []
    if mask is not None:
        m = cast(_bool_mask(mask, "tl.load"), core.int1)
        shape = broadcast_shapes(_shape(ptr), _shape(m), "the mask of tl.load")
        if shape:
            ptr, m = broadcast_to(ptr, shape), broadcast_to(m, shape)
        operands.append(m)
        if other is not None:
            o = to_tensor(other, elt) if not isinstance(other, tensor) else cast(other, elt)
            if shape:
                o = broadcast_to(o, shape)
            operands.append(o)
    rt = _with_elem(ptr.type, elt)
    mask_other = [v.handle for v in operands] + [None] * (2 - len(operands))
    op = _b().insert(ods.txl.load(ptr.handle, *mask_other, result=rt,
                                  **_mem_attrs(cache_modifier, eviction_policy, volatile)))
    return tensor(op.result, rt)


def store(pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy=""):
    if isinstance(_unwrap(pointer), core.block_pointer):
        return _store_block_pointer(_unwrap(pointer), value, mask, boundary_check, cache_modifier, eviction_policy)
    ptr = to_tensor(pointer)
    if isinstance(ptr.type, tensordesc_type):
        raise SemanticError("tl.store does not take a TMA descriptor", "use desc.store([x, y], value)")
    if not ptr.dtype.is_ptr():
        raise SemanticError("tl.store needs a pointer or a tile of pointers, got %s" % ptr.type)
    if _unwrap(boundary_check):
        _not_a_block_pointer("tl.store", "boundary_check", "mask=offs < n")
    elt = ptr.dtype.element_ty
    val = to_tensor(value)
    _check_value(val, "tl.store")
    shape = broadcast_shapes(_shape(ptr), _shape(val), "tl.store (pointers and value)")
    mask = _unwrap(mask)
    m = None
    if mask is not None:
        m = cast(_bool_mask(mask, "tl.store"), core.int1)
        shape = broadcast_shapes(shape, _shape(m), "the mask of tl.store")
    if shape:
        ptr, val = broadcast_to(ptr, shape), broadcast_to(val, shape)
        if m is not None:
            m = broadcast_to(m, shape)
    val = cast(val, elt)
    _b().insert(ods.txl.store(ptr.handle, val.handle, None if m is None else m.handle,
                              **_mem_attrs(cache_modifier, eviction_policy)))


# ----------------------------------------------------------------------------------------------------------------
# Block pointers: tl.make_block_ptr, tl.advance, and tl.load / tl.store through them
# ----------------------------------------------------------------------------------------------------------------
# A block pointer is an IR value (core.block_pointer wraps it with its compile-time part): tl.make_block_ptr is
# txl.make_block_ptr of the scalars the user gave (shapes and strides as i64, offsets as i32: Triton's widths),
# tl.advance is txl.advance, and a load or store through it is txl.block_load / txl.block_store with its
# boundary_check and padding. How the block is read is a lowering decision, taken in C++: txl-expand-block-pointers
# (first in txlc's pipeline) makes it ONE txl.load / txl.store of the pointer tile
# base + sum_d (offsets[d] + arange(block_shape[d])) * strides[d] (Triton's RewriteTensorPointer). The frontend
# checks every rule here, at the user's line.
def _not_a_block_pointer(what, args, mask_example):
    raise SemanticError("%s: %s only apply to block pointers (tl.make_block_ptr); for a tile of pointers the "
                        "compiler does not know the bounds (Triton refuses it too)" % (what, args),
                        "mask the elements instead (%s), or build a block pointer with tl.make_block_ptr"
                        % mask_example)


def _bp_list(x):
    x = _unwrap(x)
    return list(x) if isinstance(x, (tuple, list)) else [x]


def _bp_int(v, ty, what):
    """A shape / stride (i64) or offset (i32) of a block pointer: Triton's widths."""
    v = _unwrap(v)
    if isinstance(v, tensor):
        if not isinstance(v.type, dtype) or not v.dtype.is_int() or v.dtype.is_bool():
            raise SemanticError("%s must be integer scalars, got %s" % (what, v.type))
        if ty == core.int32 and v.dtype.primitive_bitwidth == 64:
            raise SemanticError("%s are 32-bit integers (Triton's rule for block pointers), got an %s value"
                                % (what, v.dtype.name),
                                "convert it with .to(tl.int32), or index with a tile of pointers for 64-bit offsets")
        return cast(v, ty)
    if isinstance(v, bool) or not isinstance(v, int):
        raise SemanticError("%s must be integers, got %r" % (what, v))
    bits = ty.primitive_bitwidth
    if not -2**(bits - 1) <= v < 2**(bits - 1):
        raise SemanticError("%s: %d does not fit in %d bits (block pointers have 64-bit shapes and strides and "
                            "32-bit offsets)" % (what, v, bits))
    return constant(v, ty)


def _bp_static_ints(x, what, fix):
    out = []
    for v in _bp_list(x):
        v = _unwrap(v)
        if isinstance(v, bool) or not isinstance(v, int):
            raise SemanticError("%s must be a tuple of compile-time integers (literals or tl.constexpr), got %s"
                                % (what, "a run-time value" if isinstance(v, tensor) else repr(v)), fix)
        out.append(v)
    return out


def make_block_ptr(base, shape, strides, offsets, block_shape, order):
    """tl.make_block_ptr: a core.block_pointer of a txl.make_block_ptr."""
    if isinstance(_unwrap(base), core.block_pointer):
        raise SemanticError("tl.make_block_ptr: base is already a block pointer", "move it with tl.advance(ptr, "
                            "offsets), or pass the tensor's base pointer")
    base = to_tensor(base)
    if not isinstance(base.type, pointer_type):
        raise SemanticError("tl.make_block_ptr needs a scalar pointer as base (the parent tensor's first element), "
                            "got %s" % base.type)
    block = _bp_static_ints(block_shape, "tl.make_block_ptr: block_shape",
                            "write the block sizes as literals or tl.constexpr parameters, e.g. "
                            "block_shape=(BLOCK_M, BLOCK_K)")
    if not block:
        raise SemanticError("tl.make_block_ptr: block_shape needs at least one dimension")
    for b in block:
        if b < 1 or b & (b - 1):
            raise SemanticError("tl.make_block_ptr: block_shape %s: every block dimension must be a power of two "
                                "(as every tile's), got %d" % (tuple(block), b),
                                "round the block up to a power of two and let boundary_check mask the rest")
    rank = len(block)
    order = _bp_static_ints(order, "tl.make_block_ptr: order", "e.g. order=(1, 0) for a row-major tensor")
    lists = [("shape", _bp_list(shape)), ("strides", _bp_list(strides)), ("offsets", _bp_list(offsets)),
             ("order", order)]
    for name, vals in lists:
        if len(vals) != rank:
            raise SemanticError("tl.make_block_ptr: block_shape has %d dimensions but %s has %d; shape, strides, "
                                "offsets, block_shape and order need one entry per dimension" % (rank, name, len(vals)))
    if sorted(order) != list(range(rank)):
        raise SemanticError("tl.make_block_ptr: order must be a permutation of (0, ..., %d), got %s"
                            % (rank - 1, tuple(order)),
                            "order lists the dimensions from the fastest-varying in memory: (1, 0) for row-major")
    block_type(base.type.element_ty, block)  # the tile size limit, checked here at the user's line
    shape = [_bp_int(v, core.int64, "tl.make_block_ptr shape") for v in lists[0][1]]
    strides = [_bp_int(v, core.int64, "tl.make_block_ptr strides") for v in lists[1][1]]
    offsets = [_bp_int(v, core.int32, "tl.make_block_ptr offsets") for v in lists[2][1]]
    ty = core.block_ptr_type(base.type.element_ty, block, order)
    op = _b().insert(ods.txl.make_block_ptr(base.handle, [v.handle for v in shape], [v.handle for v in strides],
                                            [v.handle for v in offsets], result=ty))
    return core.block_pointer(tensor(op.result, ty), block, order)


def _block_pointer(ptr, what):
    ptr = _unwrap(ptr)
    if not isinstance(ptr, core.block_pointer):
        raise SemanticError("%s needs a block pointer (from tl.make_block_ptr), got %s"
                            % (what, ptr.type if isinstance(ptr, tensor) else repr(ptr)),
                            "for a tile of pointers add to the pointers instead: ptrs += k * stride")
    return ptr


def advance(ptr, offsets):
    """tl.advance: the block pointer with ``offsets`` (i32) added to its offsets (txl.advance)."""
    ptr = _block_pointer(ptr, "tl.advance")
    deltas = _bp_list(offsets)
    rank = len(ptr.block_shape)
    if len(deltas) != rank:
        raise SemanticError("tl.advance: the block pointer has %d dimensions (block %s) but %d offsets were given"
                            % (rank, ptr.block_shape, len(deltas)),
                            "give one offset per dimension, e.g. tl.advance(ptr, (0, BLOCK_K))" if rank == 2 else
                            "give one offset per dimension")
    deltas = [_bp_int(d, core.int32, "tl.advance offsets") for d in deltas]
    if all(const_value(d) == 0 for d in deltas):  # the same value: a loop that only does this carries nothing
        return core.block_pointer(ptr.value, ptr.block_shape, ptr.order)
    ty = ptr.value.type
    op = _b().insert(ods.txl.advance(ptr.value.handle, [d.handle for d in deltas], result=ty))
    return core.block_pointer(tensor(op.result, ty), ptr.block_shape, ptr.order)


def _bp_boundary_check(ptr, boundary_check, what):
    """Triton's _canonicalize_boundary_check: distinct dimensions in [0, rank), sorted."""
    bc = _unwrap(boundary_check)
    if bc is None:
        return ()
    rank = len(ptr.block_shape)
    dims = []
    for d in _bp_list(bc):
        d = _unwrap(d)
        if isinstance(d, bool) or not isinstance(d, int):
            raise SemanticError("%s: boundary_check takes compile-time dimension numbers, got %s"
                                % (what, "a run-time value" if isinstance(d, tensor) else repr(d)),
                                "e.g. boundary_check=(0, 1)")
        if not 0 <= d < rank:
            raise SemanticError("%s: boundary_check dimension %d is out of range for a %d-D block pointer "
                                "(dimensions 0 to %d)" % (what, d, rank, rank - 1),
                                "list the dimensions whose bounds to check, e.g. boundary_check=%r"
                                % (tuple(range(rank)),))
        if d in dims:
            raise SemanticError("%s: dimension %d appears twice in boundary_check" % (what, d))
        dims.append(d)
    return tuple(sorted(dims))


_PADDINGS = ("", "zero", "nan")


def _load_block_pointer(ptr, mask, other, boundary_check, padding_option, cache_modifier, eviction_policy,
                        volatile):
    if _unwrap(mask) is not None or _unwrap(other) is not None:
        raise SemanticError("tl.load: a block pointer takes no mask or other (Triton refuses them too): the "
                            "elements outside the parent tensor are given by boundary_check and padding_option",
                            "write tl.load(ptr, boundary_check=(0, 1), padding_option='zero')")
    padding = _unwrap(padding_option)
    padding = "" if padding is None else padding
    if padding not in _PADDINGS:
        raise SemanticError("tl.load: unknown padding_option %r (expected '', 'zero' or 'nan')" % (padding,))
    elt = ptr.element_ty
    if padding == "nan" and not elt.is_floating():
        raise SemanticError("tl.load: padding_option='nan' needs a floating-point block pointer, this one is %s "
                            "(Triton refuses it too)" % elt.name, "use padding_option='zero'")
    dims = _bp_boundary_check(ptr, boundary_check, "tl.load")
    # The padding is what the checked dimensions read outside the parent; without a check nothing is padded.
    rt = block_type(elt, list(ptr.block_shape))
    op = _b().insert(ods.txl.block_load(ptr.value.handle, result=rt, boundary_check=list(dims) if dims else None,
                                        padding=padding if dims and padding else None,
                                        **_mem_attrs(cache_modifier, eviction_policy, volatile)))
    return tensor(op.result, rt)


def _store_block_pointer(ptr, value, mask, boundary_check, cache_modifier, eviction_policy):
    if _unwrap(mask) is not None:
        raise SemanticError("tl.store: a block pointer takes no mask (Triton refuses it too): the elements outside "
                            "the parent tensor are left alone by boundary_check",
                            "write tl.store(ptr, value, boundary_check=(0, 1))")
    dims = _bp_boundary_check(ptr, boundary_check, "tl.store")
    elt = ptr.element_ty
    weak = not isinstance(_unwrap(value), tensor)
    val = to_tensor(value, elt) if weak else _unwrap(value)
    _check_value(val, "tl.store")
    if isinstance(val.type, block_type):
        if tuple(val.type.shape) != ptr.block_shape:
            raise SemanticError("tl.store: the value is a %s tile but the block pointer's block is %s"
                                % (list(val.type.shape), list(ptr.block_shape)),
                                "store a tile of the block's shape")
    elif not isinstance(val.type, dtype):
        raise SemanticError("tl.store: cannot store %s through a block pointer" % val.type)
    if val.dtype != elt:
        raise SemanticError("tl.store: the value has element type %s but the block pointer points to %s (Triton "
                            "refuses the mismatch too)" % (val.dtype.name, elt.name),
                            "convert it first: value.to(tl.%s)" % core._DTYPE_PY_NAMES.get(elt.name, elt.name))
    # A scalar is stored into every element (txl-expand-block-pointers broadcasts it).
    _b().insert(ods.txl.block_store(ptr.value.handle, val.handle, boundary_check=list(dims) if dims else None,
                                    **_mem_attrs(cache_modifier, eviction_policy)))


# ----------------------------------------------------------------------------------------------------------------
# Memory: atomics
# ----------------------------------------------------------------------------------------------------------------
_SEMS = {None: "acq_rel", "": "acq_rel", "acq_rel": "acq_rel", "acquire": "acquire", "release": "release",
         "relaxed": "relaxed"}


_SCOPES = {None: "gpu", "": "gpu", "gpu": "gpu", "cta": "cta", "sys": "sys"}


def _sem_scope(name, sem, scope):
    sem, scope = _unwrap(sem), _unwrap(scope)
    if sem not in _SEMS:
        raise SemanticError("%s: unknown sem %r" % (name, sem),
                            "use one of \"acquire\", \"release\", \"acq_rel\" (the default), \"relaxed\"")
    if scope not in _SCOPES:
        raise SemanticError("%s: unknown scope %r" % (name, scope),
                            "use one of \"gpu\" (the default), \"cta\", \"sys\"")
    return _SEMS[sem], _SCOPES[scope]


# What each tl.atomic_* takes (Triton's rules; PTX atom's types).
_ATOMIC_TYPES = {
    "add": ("int32", "uint32", "int64", "uint64", "fp16", "bf16", "fp32", "fp64"),
    "max": ("int32", "uint32", "int64", "uint64", "fp32", "fp64"),
    "min": ("int32", "uint32", "int64", "uint64", "fp32", "fp64"),
    "and": ("int32", "uint32", "int64", "uint64"),
    "or": ("int32", "uint32", "int64", "uint64"),
    "xor": ("int32", "uint32", "int64", "uint64"),
    "xchg": ("int32", "uint32", "int64", "uint64", "fp32", "fp64"),
    "cas": ("int16", "uint16", "int32", "uint32", "int64", "uint64", "fp16", "bf16", "fp32", "fp64"),
}


def _atomic_pointer(name, pointer, kind):
    ptr = to_tensor(pointer)
    if isinstance(ptr.type, tensordesc_type):
        raise SemanticError("%s does not take a TMA descriptor" % name,
                            "build pointers as base_ptr + offsets")
    if not ptr.dtype.is_ptr():
        raise SemanticError("%s needs a pointer or a tile of pointers, got %s" % (name, ptr.type),
                            "build pointers as base_ptr + offsets")
    elt = ptr.dtype.element_ty
    if elt.name not in _ATOMIC_TYPES[kind]:
        fix = "accumulate in a wider type (e.g. an int32 or float32 buffer)"
        if kind in ("max", "min") and elt.name in ("fp16", "bf16"):
            fix = "keep the buffer in float32 (PTX has no 16-bit float atomic max/min)"
        elif kind in ("and", "or", "xor") and elt.is_floating():
            fix = "operate on the bits: pass an integer pointer of the same width"
        raise SemanticError("%s does not take %s elements (it takes %s)"
                            % (name, elt.name, ", ".join(_ATOMIC_TYPES[kind])), fix)
    return ptr, elt


def _atomic_value(name, ptr, elt, value):
    val = to_tensor(value)
    _check_value(val, name)
    if val.dtype.is_ptr():
        raise SemanticError("%s: the value must be a number, got %s" % (name, val.type))
    return val


def atomic_rmw(kind, pointer, value, mask=None, sem=None, scope=None):
    """tl.atomic_<kind>: one txl.atomic_rmw; returns the old values."""
    name = "tl.atomic_" + kind
    sem, scope = _sem_scope(name, sem, scope)
    ptr, elt = _atomic_pointer(name, pointer, kind)
    val = _atomic_value(name, ptr, elt, value)
    shape = broadcast_shapes(_shape(ptr), _shape(val), "%s (pointers and value)" % name)
    mask = _unwrap(mask)
    m = None
    if mask is not None:
        m = cast(_bool_mask(mask, name), core.int1)
        shape = broadcast_shapes(shape, _shape(m), "the mask of %s" % name)
    if shape:
        ptr, val = broadcast_to(ptr, shape), broadcast_to(val, shape)
        if m is not None:
            m = broadcast_to(m, shape)
    val = cast(val, elt)
    op_kind = kind
    if kind in ("max", "min") and elt.is_int_unsigned():
        op_kind = "u" + kind
    rt = _with_elem(ptr.type, elt)
    op = _b().insert(ods.txl.atomic_rmw(ptr.handle, val.handle, None if m is None else m.handle, result=rt,
                                        kind=op_kind, sem=sem, scope=scope))
    return tensor(op.result, rt)


def atomic_cas(pointer, cmp, value, sem=None, scope=None):
    """tl.atomic_cas: one txl.atomic_cas; returns the old values."""
    name = "tl.atomic_cas"
    sem, scope = _sem_scope(name, sem, scope)
    ptr, elt = _atomic_pointer(name, pointer, "cas")
    c = _atomic_value(name, ptr, elt, cmp)
    val = _atomic_value(name, ptr, elt, value)
    shape = broadcast_shapes(_shape(ptr), _shape(val), "%s (pointers and value)" % name)
    shape = broadcast_shapes(shape, _shape(c), "%s (pointers and cmp)" % name)
    if shape:
        ptr, c, val = broadcast_to(ptr, shape), broadcast_to(c, shape), broadcast_to(val, shape)
    c, val = cast(c, elt), cast(val, elt)
    rt = _with_elem(ptr.type, elt)
    op = _b().insert(ods.txl.atomic_cas(ptr.handle, c.handle, val.handle, result=rt, sem=sem, scope=scope))
    return tensor(op.result, rt)
