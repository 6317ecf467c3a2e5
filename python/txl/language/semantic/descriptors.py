"""TMA tensor descriptors: ``desc.load`` / ``desc.store`` on descriptor arguments, and descriptors built on the
device (``tl.make_tensor_descriptor``) in the kernel's hidden global scratch memory."""

from ...ir import dialects as ods
from ...errors import SemanticError
from .. import core
from ..core import block_type, dtype, pointer_type, tensor, tensordesc_type, _unwrap
from .context import _b
from .values import const_value, constant, to_tensor, _i32, _static_int
from .arith import cast


# ----------------------------------------------------------------------------------------------------------------
# TMA descriptors as Triton values: desc.load / desc.store
# ----------------------------------------------------------------------------------------------------------------
def _offsets(offsets, rank, what):
    offsets = _unwrap(offsets)
    if not isinstance(offsets, (tuple, list)):
        offsets = [offsets]
    if len(offsets) != rank:
        raise SemanticError("%s needs %d offsets (one per dimension of the descriptor), got %d"
                            % (what, rank, len(offsets)))
    return [_i32(o, "%s offset" % what) for o in offsets]


def _desc(desc, what):
    desc = _unwrap(desc)
    if not isinstance(desc, tensor) or not isinstance(desc.type, tensordesc_type):
        raise SemanticError("%s needs a TMA descriptor argument (signature 'tensordesc<bf16[128, 64]>'), got %s"
                            % (what, desc.type if isinstance(desc, tensor) else repr(desc)))
    return desc


def desc_load(desc, offsets):
    """desc.load([x, y]): one ``txl.desc_load``. The C++ passes decide how the tile travels: a ring of buffers
    filled iterations ahead in a pipelined loop (txl-schedule-loops), else a staging buffer, an mbarrier and its
    phase (txl-lower-tile-copies)."""
    desc = _desc(desc, "desc.load")
    idx = _offsets(offsets, len(desc.type.block_shape), "desc.load")
    rt = block_type(desc.type.element_ty, desc.type.block_shape)
    op = _b().insert(ods.txl.desc_load(desc.handle, [i.handle for i in idx], result=rt))
    out = tensor(op.result, rt)
    out.from_desc = True  # a dot reads it where desc.load brought it (see dot)
    return out


def desc_store(desc, offsets, value):
    """desc.store([x, y], v): one ``txl.desc_store`` (complete when it returns; txl-lower-tile-copies stages it)."""
    desc = _desc(desc, "desc.store")
    idx = _offsets(offsets, len(desc.type.block_shape), "desc.store")
    val = to_tensor(value)
    shape, ety = desc.type.block_shape, desc.type.element_ty
    if not isinstance(val.type, block_type) or list(val.type.shape) != list(shape):
        raise SemanticError("desc.store: the value must be a %s tile (the descriptor's block), got %s"
                            % (shape, val.type))
    val = cast(val, ety)
    _b().insert(ods.txl.desc_store(desc.handle, [i.handle for i in idx], val.handle))


# ----------------------------------------------------------------------------------------------------------------
# Device-built TMA descriptors: tl.make_tensor_descriptor
# ----------------------------------------------------------------------------------------------------------------
# A descriptor built in the kernel lives in global memory (TMA reads tensor maps from param, const or global
# space). The op is emitted without its slot: txl-global-scratch (first in txlc's pipeline) gives the kernel one
# hidden parameter (a !txl.ptr<i8> marked `txl.global_scratch = bytes per CTA`, which the sidecar describes and
# the launcher allocates) and each txl.make_tensor_descriptor its 128-byte slot per warpgroup and CTA.


def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero"):
    """tl.make_tensor_descriptor(base, shape, strides, block_shape): a TMA descriptor built on the device (see the
    comment above) for desc.load / desc.store and the TXL TMA builtins."""
    base = to_tensor(base)
    if not isinstance(base.type, pointer_type) or base.type.address_space != 1:
        raise SemanticError("tl.make_tensor_descriptor needs a global pointer as base, got %s" % base.type)
    ety = base.type.element_ty
    if ety.primitive_bitwidth not in (8, 16, 32, 64) or ety.is_bool():
        raise SemanticError("tl.make_tensor_descriptor: TMA moves 8-, 16-, 32- and 64-bit elements, got %s"
                            % ety.name)
    block = [_static_int(b, "tl.make_tensor_descriptor block_shape") for b in _unwrap(block_shape)]
    shape, strides = list(_unwrap(shape)), list(_unwrap(strides))
    if not 1 <= len(block) <= 5 or len(shape) != len(block) or len(strides) != len(block):
        raise SemanticError("tl.make_tensor_descriptor needs 1 to 5 dimensions and as many sizes, strides and "
                            "block sizes; got %d, %d and %d" % (len(shape), len(strides), len(block)))
    if const_value(to_tensor(strides[-1])) != 1:
        raise SemanticError("tl.make_tensor_descriptor: the last stride must be the constant 1 (TMA reads rows "
                            "that are contiguous in memory), got %r" % (_unwrap(strides[-1]),),
                            "transpose the tensor first (or describe its transpose and use .T on the tile)")
    padding = _unwrap(padding_option)
    if padding not in ("zero", "nan"):
        raise SemanticError("tl.make_tensor_descriptor(padding_option=%r): out-of-bounds elements read as 'zero' "
                            "or 'nan'" % (padding,), "use padding_option='zero' or 'nan'")
    if padding == "nan" and not ety.is_floating() or padding == "nan" and ety.is_fp8():
        raise SemanticError("tl.make_tensor_descriptor(padding_option='nan'): NaN padding needs fp16, bf16, fp32 or "
                            "fp64 elements, got %s" % ety.name, "use padding_option='zero'")

    def i64(v, what):
        v = _unwrap(v)
        if not isinstance(v, tensor):
            return constant(_static_int(v, "tl.make_tensor_descriptor %s" % what), core.int64)
        if not isinstance(v.type, dtype) or not v.dtype.is_int() or v.dtype.is_bool():
            raise SemanticError("tl.make_tensor_descriptor %s must be integer scalars, got %s" % (what, v.type))
        return cast(v, core.int64)

    dims = [i64(v, "sizes") for v in shape]
    strd = [i64(v, "strides") for v in strides]
    try:
        desc_ty = tensordesc_type(ety, block)
    except ValueError as e:
        raise SemanticError("tl.make_tensor_descriptor: %s" % e) from None
    op = _b().insert(ods.txl.make_tensor_descriptor(base.handle, [v.handle for v in dims], [v.handle for v in strd],
                                                    result=desc_ty, nan_fill=padding == "nan"))
    return tensor(op.result, desc_ty)
