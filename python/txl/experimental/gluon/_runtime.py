"""``@gluon.jit``: a txl ``JITFunction`` whose kernels are Gluon kernels.

The kernel compiles through txl's code generator like any ``@txl.jit`` function; its ``gl.*`` calls are the
builtins of ``txl.experimental.gluon.language``. What differs:

* a Gluon kernel's TMA descriptor arguments have Gluon's attributes (``desc.layout``, ``desc.block_type``,
  ``desc.dtype``), answered by ``_descriptor_attribute`` (code_generator.ATTRIBUTE_HOOKS);
* Triton's launch options that only steer Triton's compilation (``enable_fp_fusion``, ``maxnreg``...) are accepted:
  txl keeps its own choices (float ``+ - *`` contract into fma as with Triton's default).
"""

import contextlib
import functools
import re
import threading

from ...compiler import code_generator as _cg
from ...errors import SemanticError
from ...jit import JITFunction
from ...jit import TensorDescriptor as TxlDescriptor
from ...language.core import constexpr, tensor, tensordesc_type
from ...language.layouts import _Layout

# Triton launch options txl accepts for Gluon kernels and does not act on (see the module docstring).
_IGNORED_LAUNCH_OPTIONS = ("enable_fp_fusion", "maxnreg", "launch_cooperative_grid", "launch_pdl")


# constexpr-key prefix of a descriptor argument's global shape (see GluonJITFunction.specialize)
_SHAPE_KEY = "__gluon_desc_shape__:"
_compiling = threading.local()  # .shapes: {parameter: global shape} of the specialisation being compiled


class GluonJITFunction(JITFunction):
    """A ``@gluon.jit`` function (see the module docstring).

    ``desc.shape`` (the global shape of a TMA descriptor argument, which Gluon kernels read, e.g. ``K =
    a_desc.shape[1]``) is not in the CUtensorMap txl passes, so a Gluon kernel is specialised on its descriptors'
    shapes: they are part of the specialisation key (and of the fast path's fingerprint), and ``desc.shape`` is a
    compile-time constant. A new shape compiles the kernel again (txl's disk cache returns the same kernel where the
    kernel does not read it: its IR is the same)."""

    is_gluon = True
    _ignored_options = _IGNORED_LAUNCH_OPTIONS  # JITFunction drops them (its binder takes and ignores them)

    def __repr__(self):
        return "GluonJITFunction(%s:%s)" % (self.__module__, self.__qualname__)

    def _value_fingerprint(self, v, kind):
        """The binder's fingerprint of a value it does not inline (see ``_fingerprint`` for why): a layout
        constexpr by its repr, a descriptor with its global shape."""
        if kind == "c" and isinstance(v, _Layout):
            return "__gluon_layout__" + repr(v)
        fp = super()._value_fingerprint(v, kind)
        if isinstance(v, TxlDescriptor):
            return (fp, tuple(v.shape))
        return fp

    def specialize(self, bound):
        sig, consts = super().specialize(bound)
        for name, v in bound.items():
            if isinstance(v, TxlDescriptor):
                consts[_SHAPE_KEY + name] = tuple(int(d) for d in v.shape)
        return sig, consts

    def _fingerprint(self, args, kwargs, options):
        """txl's fingerprint (whose first item must stay the launch options: ``JITFunction._remember_fast`` reads
        them, and num_ctas, from ``fkey[0]``) with the descriptors' global shapes appended. A Gluon layout passed
        as a constexpr (tutorial 02's ``layout``) is fingerprinted by its repr (the layout dataclasses are not
        hashable; the slow path's cache key is their repr too), so such launches take the fast path as well."""
        kinds = self._kind_of
        if any(isinstance(v, _Layout) for v in args):
            args = tuple(_layout_key(v) if i < len(self.arg_names) and kinds[self.arg_names[i]] == "c" else v
                         for i, v in enumerate(args))
        if kwargs and any(isinstance(v, _Layout) for v in kwargs.values()):
            kwargs = {k: _layout_key(v) if kinds.get(k) == "c" else v for k, v in kwargs.items()}
        fp = super()._fingerprint(args, kwargs, options)
        if fp is None:
            return None
        shapes = tuple(tuple(v.shape) for v in args if isinstance(v, TxlDescriptor))
        if kwargs:
            shapes += tuple(tuple(v.shape) for v in kwargs.values() if isinstance(v, TxlDescriptor))
        return fp + ((_SHAPE_KEY, shapes),) if shapes else fp

    def _compile(self, sig, consts, options):
        from .language._core import NeedsWarpgroups
        shapes = {k[len(_SHAPE_KEY):]: v for k, v in consts.items() if k.startswith(_SHAPE_KEY)}
        consts = {k: v for k, v in consts.items() if not k.startswith(_SHAPE_KEY)}
        with descriptor_shapes(shapes):
            try:
                return super()._compile(sig, consts, options)
            except NeedsWarpgroups as e:  # gl.warp_specialize: one warpgroup per partition
                compiled = super()._compile(sig, consts, dict(options, num_warpgroups=e.n))
        check_outside_partitions(compiled.asm.get("txl", ""), self.where)
        return compiled


def _layout_key(v):
    """A Gluon layout constexpr as a hashable fingerprint item (its repr names the class and every field)."""
    return "__gluon_layout__" + repr(v) if isinstance(v, _Layout) else v


# What a warp-specialized kernel may do outside its partitions (txl runs that code in every warpgroup): compute,
# allocate, make views. Anything else (stores, copies, barriers, waits, dots) would run once per warpgroup.
_PURE_OUTSIDE = re.compile(r"^(arith|math)\.|^txl\.(program_id|num_programs|smem_alloc|mbar_alloc|get_buffer|"
                           r"smem_index|smem_subslice|smem_trans|smem_reshape|make_range|splat|broadcast|expand_dims|"
                           r"addptr|relayout|reshape|trans|is_warpgroup|load)$|^(scf\.yield|return|func\.return)$")
_OP_LINE = re.compile(r"^    (?:%[\w#, %:]+ = )?([a-z_]+\.[a-z_0-9.]+|return)\b(.*)$")
_LOC = re.compile(r'loc\("([^"]*)":(\d+):(\d+)\)')


def check_outside_partitions(text, where):
    """A SemanticError-like CompilationError when a warp-specialized kernel's frontend IR ``text`` has an op with
    effects at the kernel's top level, outside the ``scf.if`` of a ``txl.is_warpgroup`` role."""
    if "txl.is_warpgroup" not in text:
        return
    roles = set(re.findall(r"^    (%[\w]+) = txl\.is_warpgroup", text, re.M))
    for line in text.splitlines():
        m = _OP_LINE.match(line)
        if not m:
            continue
        name, rest = m.groups()
        if _PURE_OUTSIDE.match(name):
            continue
        if name == "scf.if" and rest.split()[0] in roles:
            continue
        loc = _LOC.search(line)
        from ...errors import CompilationError
        file, lno, col = (loc.group(1), int(loc.group(2)), int(loc.group(3))) if loc else ("<unknown>", None, None)
        import linecache
        raise CompilationError(
            "%s outside gl.warp_specialize's partitions: txl runs the code outside the partitions in every "
            "warpgroup (Gluon only in the default partition's warps), so it would run once per warpgroup" % name,
            file=file, line=lno, col=col, source_line=linecache.getline(file, lno) if lno else None,
            fix="move it into the default partition", kernel=where)


@contextlib.contextmanager
def descriptor_shapes(shapes):
    """While a Gluon kernel is compiled in this thread: ``{descriptor parameter: global shape}`` (what
    ``desc.shape`` reads). txl.compile / the CPU tests use it to compile such a kernel without a launch."""
    saved = getattr(_compiling, "shapes", None)
    _compiling.shapes = dict(shapes)
    try:
        yield
    finally:
        _compiling.shapes = saved


def jit(fn=None, **options):
    """``@gluon.jit`` / ``@gluon.jit(do_not_specialize=[...], ...)``: txl.jit's options."""
    def wrap(f):
        f.__txl_gluon__ = True  # the code generator's hooks know the function (and its helpers) as Gluon
        return GluonJITFunction(f, **options)
    return wrap if fn is None else wrap(fn)


# ----------------------------------------------------------------------------------------------------------------
# Descriptor attributes
# ----------------------------------------------------------------------------------------------------------------
class _BlockType:
    """``desc.block_type``: the shape and element type of the tile one TMA copy moves."""

    def __init__(self, element_ty, shape):
        self.element_ty = element_ty
        self.shape = list(shape)

    @property
    def nbytes(self):
        return functools.reduce(lambda a, b: a * b, self.shape, 1) * self.element_ty.primitive_bitwidth // 8

    def __eq__(self, other):
        return isinstance(other, _BlockType) and (self.element_ty, self.shape) == (other.element_ty, other.shape)

    def __hash__(self):
        return hash((self.element_ty, tuple(self.shape)))


class _DescType:
    def __init__(self, block_type, layout):
        self.block_type = block_type
        self.layout = layout


def _is_gluon(gen):
    return getattr(getattr(gen, "info", None), "fn", None) is not None and \
        getattr(gen.info.fn, "__txl_gluon__", False)


def _descriptor_attribute(gen, t, name):
    if not isinstance(t.type, tensordesc_type) or not _is_gluon(gen):
        return NotImplemented
    from .language._layouts import NVMMASharedLayout
    from ...language.core import default_swizzle
    ty = t.type
    shape = list(ty.block_shape)
    bt = _BlockType(ty.element_ty, shape)
    swizzle = ty.swizzle if ty.swizzle is not None else default_swizzle(shape, ty.element_ty)
    layout = NVMMASharedLayout(swizzle, ty.element_ty.primitive_bitwidth, len(shape))
    if name == "layout":
        return layout
    if name == "block_type":
        return bt
    if name == "dtype":
        return ty.element_ty
    if name == "type":
        return _DescType(bt, layout)
    if name == "block_shape":
        return shape
    if name == "shape":
        shapes = getattr(_compiling, "shapes", None) or {}
        shape = shapes.get(getattr(t.handle, "hint", None))
        if shape is not None:
            return [constexpr(d) for d in shape]
    if name in ("shape", "strides"):
        raise SemanticError("desc.%s of a TMA descriptor: txl passes a descriptor as its CUtensorMap only, and the "
                            "kernel cannot read the tensor's %s from it (a launched Gluon kernel is specialised on "
                            "its descriptor arguments' shapes, so desc.shape of a kernel argument works; strides do "
                            "not)" % (name, name),
                            "pass the size the kernel needs as an int argument (e.g. K) next to the descriptor")
    return NotImplemented


if _descriptor_attribute not in _cg.ATTRIBUTE_HOOKS:
    _cg.ATTRIBUTE_HOOKS.append(_descriptor_attribute)

_ = tensor
