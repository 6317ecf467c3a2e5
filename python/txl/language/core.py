"""Core of the txl language: types, compile-time constants (``constexpr``), the ``tensor`` value that kernels
compute with, and the ``@builtin`` marker for functions that only exist inside a @txl.jit function.

Types print as their MLIR spelling (``str(tl.bfloat16) == "bf16"``, ``str(block_type(fp32, [64, 128])) ==
"tensor<64x128xf32>"``); the frontend's IR (``txl.ir``) stores them directly and prints them lazily.
Shared-memory types share an ``EncodingCell`` per allocation so that a swizzle the user named (Gluon's shared
layouts) shows on every view of it and on every buffer control flow joins with it. A buffer the user gave no
swizzle prints none: txl-smem-allocs chooses it (the TMA descriptor's, else the widest a wgmma allows).
"""

import functools

from ..errors import SemanticError


# ----------------------------------------------------------------------------------------------------------------
# Element types
# ----------------------------------------------------------------------------------------------------------------
class dtype:
    """A scalar element type. ``name`` is Triton's (``fp32``, ``bf16``, ``int32``...), ``str()`` the MLIR one."""

    _FLOATS = {"fp8e4nv": ("f8E4M3FN", 8), "fp8e5": ("f8E5M2", 8), "fp16": ("f16", 16), "bf16": ("bf16", 16),
               "fp32": ("f32", 32), "fp64": ("f64", 64)}
    _INTS = {"int1": 1, "int8": 8, "int16": 16, "int32": 32, "int64": 64,
             "uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64}

    def __init__(self, name):
        if name not in self._FLOATS and name not in self._INTS:
            raise ValueError("unknown dtype %r" % name)
        self.name = name

    # Kind queries (Triton's names).
    def is_floating(self):
        return self.name in self._FLOATS

    def is_int(self):
        return self.name in self._INTS

    def is_bool(self):
        return self.name == "int1"

    def is_int_signed(self):
        return self.is_int() and not self.name.startswith("uint")

    def is_int_unsigned(self):
        return self.name.startswith("uint")

    def is_fp8(self):
        return self.name in ("fp8e4nv", "fp8e5")

    def is_ptr(self):
        return False

    def is_block(self):
        return False

    @property
    def primitive_bitwidth(self):
        if self.is_floating():
            return self._FLOATS[self.name][1]
        return self._INTS[self.name]

    @property
    def scalar(self):
        return self

    def to_ir(self):
        if self.is_floating():
            return self._FLOATS[self.name][0]
        return "i%d" % self._INTS[self.name]  # MLIR integers are signless; signedness lives in the ops

    def __str__(self):
        return self.to_ir()

    def __repr__(self):
        return "txl.language." + _DTYPE_PY_NAMES.get(self.name, self.name)

    def __eq__(self, other):
        return isinstance(other, dtype) and type(other) is type(self) and self.name == other.name

    def __hash__(self):
        return hash(("dtype", self.name))


class pointer_type(dtype):
    """A pointer to ``element_ty`` in global (1) or shared (3) memory: ``!txl.ptr<bf16>``."""

    def __init__(self, element_ty, address_space=1):
        self.element_ty = element_ty
        self.address_space = address_space
        self.name = "pointer<%s>" % element_ty.name

    def is_ptr(self):
        return True

    def is_floating(self):
        return False

    def is_int(self):
        return False

    def is_bool(self):
        return False

    @property
    def primitive_bitwidth(self):
        return 64

    def to_ir(self):
        if self.address_space == 1:
            return "!txl.ptr<%s>" % self.element_ty.to_ir()
        return "!txl.ptr<%s, %d>" % (self.element_ty.to_ir(), self.address_space)

    def __eq__(self, other):
        return (isinstance(other, pointer_type) and self.element_ty == other.element_ty
                and self.address_space == other.address_space)

    def __hash__(self):
        return hash(("ptr", self.element_ty, self.address_space))

    def __repr__(self):
        return "pointer_type(%r)" % (self.element_ty,)


# The most elements a register tile may have (Triton's TRITON_MAX_TENSOR_NUMEL; the verifiers in
# lib/Dialect/TXL/IR check the same limit, kMaxTileElements, on IR input).
MAX_TILE_NUMEL = 2**20


class block_type:
    """A register tile: ``tensor<64x128xf32>`` (no layout: the compiler's AssignLayouts pass picks one)."""

    def __init__(self, element_ty, shape):
        self.element_ty = element_ty
        self.shape = [int(s) for s in shape]
        self.numel = functools.reduce(lambda a, b: a * b, self.shape, 1)
        if self.numel > MAX_TILE_NUMEL:
            raise SemanticError("a tile of shape %s has %d elements, more than the %d (2^20) a tile may have "
                                "(Triton's limit too)" % (self.shape, self.numel, MAX_TILE_NUMEL),
                                "use smaller blocks and loop over them")

    scalar = property(lambda self: self.element_ty)

    def is_block(self):
        return True

    def is_ptr(self):
        return False

    def to_ir(self):
        return "tensor<%s%s>" % ("".join("%dx" % s for s in self.shape), self.element_ty.to_ir())

    __str__ = to_ir

    def __eq__(self, other):
        return isinstance(other, block_type) and self.shape == other.shape and self.element_ty == other.element_ty

    def __hash__(self):
        return hash(("block", tuple(self.shape), self.element_ty))

    def __repr__(self):
        return "block_type(%r, %r)" % (self.element_ty, self.shape)


class EncodingCell:
    """The shared-memory swizzle the user named for one allocation (and every buffer merged with it through
    control flow), or None: then the buffer prints no encoding and txl-smem-allocs chooses one for it and for
    every buffer control flow joins with it.

    A union-find node: ``merge`` makes two allocations print the same encoding, which ``scf.if``/``scf.for``
    need when a kernel selects one of two buffers at run time."""

    def __init__(self, swizzle=None, origin=None):
        self.parent = None
        self.swizzle = swizzle
        self.origin = origin  # a description for error messages

    def find(self):
        c = self
        while c.parent is not None:
            c = c.parent
        return c

    def set_swizzle(self, swizzle, why):
        root = self.find()
        if root.swizzle is not None and root.swizzle != swizzle:
            raise SemanticError(
                "shared-memory buffer %s needs swizzle %d for %s but already has swizzle %d"
                % (root.origin or "", swizzle, why, root.swizzle),
                "use TMA descriptors with the same swizzle for every load/store into one buffer")
        root.swizzle = swizzle

    def merge(self, other, why):
        a, b = self.find(), other.find()
        if a is b:
            return
        if a.swizzle is not None and b.swizzle is not None and a.swizzle != b.swizzle:
            raise SemanticError("%s: the two buffers have different swizzles (%d and %d)" % (why, a.swizzle,
                                                                                            b.swizzle))
        b.parent = a
        if a.swizzle is None:
            a.swizzle = b.swizzle


def default_swizzle(shape, element_ty):
    """Largest NVMMA swizzle (128/64/32 bytes, else 0) that the tile's inner dimension fills exactly."""
    row_bytes = shape[-1] * element_ty.primitive_bitwidth // 8
    for s in (128, 64, 32):
        if row_bytes % s == 0:
            return s
    return 0


class smem_type:
    """``!txl.smem<shape x T, stages = N, #txl.nvmma_shared<...>>`` (an allocation) or, with ``num_stages=0``,
    a view of one stage. ``transposed`` marks a view through ``smem_trans`` (an MN-major wgmma operand)."""

    kind = "smem"

    def __init__(self, shape, element_ty, num_stages=0, cell=None, transposed=False):
        self.shape = [int(s) for s in shape]
        self.element_ty = element_ty
        self.num_stages = num_stages
        self.cell = cell or EncodingCell()
        self.transposed = transposed

    scalar = property(lambda self: self.element_ty)

    def is_block(self):
        return False

    def is_ptr(self):
        return False

    def view(self, shape=None, transposed=None):
        return type(self)(self.shape if shape is None else shape, self.element_ty, 0, self.cell,
                          self.transposed if transposed is None else transposed)

    def encoding(self):
        sw = self.cell.find().swizzle
        if sw is None:
            return ""
        return ", #txl.nvmma_shared<swizzle = %d%s>" % (sw, ", transposed = true" if self.transposed else "")

    def to_ir(self):
        stages = ", stages = %d" % self.num_stages if self.num_stages else ""
        return "!txl.%s<%s%s%s%s>" % (self.kind, "x".join(str(s) for s in self.shape), "x" if self.shape else "",
                                      self.element_ty.to_ir(), stages + self.encoding())

    __str__ = to_ir

    def __eq__(self, other):
        return (type(other) is type(self) and self.shape == other.shape and self.element_ty == other.element_ty
                and self.num_stages == other.num_stages and self.transposed == other.transposed
                and self.cell.find().swizzle == other.cell.find().swizzle)

    def __hash__(self):
        return hash((self.kind, tuple(self.shape), self.element_ty, self.num_stages))

    def __repr__(self):
        return self.to_ir()


class tmem_type(smem_type):
    """``!txl.tmem<128x256xf32, stages = 2>`` (Blackwell tensor memory)."""

    kind = "tmem"

    def encoding(self):
        return ""


class mbar_type:
    """``!txl.mbar<N>`` (an array of N mbarriers) or ``!txl.mbar`` (one of them)."""

    def __init__(self, num_stages=0):
        self.num_stages = num_stages

    def is_block(self):
        return False

    def is_ptr(self):
        return False

    def to_ir(self):
        return "!txl.mbar<%d>" % self.num_stages if self.num_stages else "!txl.mbar"

    __str__ = to_ir

    def __eq__(self, other):
        return isinstance(other, mbar_type) and other.num_stages == self.num_stages

    def __hash__(self):
        return hash(("mbar", self.num_stages))

    def __repr__(self):
        return self.to_ir()


def _check_tma_box(block_shape, element_ty):
    """The TMA box rules of !txl.tensordesc's verifier (TensorDescType::verify), checked where the kernel names
    the box so the error points at the user's line, not at the frontend's IR."""
    for i, d in enumerate(block_shape):
        # the innermost may be wider: a swizzled tile moves as several boxes of one swizzle span (the compiler
        # refuses it where the buffer gets no swizzle)
        if d < 1 or (d > 256 and i + 1 < len(block_shape)):
            raise SemanticError("TMA block dimensions must be in 1..256 (the innermost may be wider), got %s"
                                % (block_shape,), "split the tile into several loads of at most 256 per dimension")
    bits = element_ty.primitive_bitwidth
    inner = block_shape[-1] * bits // 8 if block_shape else 0
    if block_shape and inner % 16:
        raise SemanticError("the TMA block's last (contiguous) dimension must span a multiple of 16 bytes, got "
                            "%d x %s = %d bytes (block %s)" % (block_shape[-1], element_ty.name, inner, block_shape),
                            "make it a multiple of %d elements" % max(1, 128 // bits))


class tensordesc_type:
    """A TMA descriptor argument: ``!txl.tensordesc<128x64xbf16, #txl.nvmma_shared<swizzle = 128>>``."""

    def __init__(self, element_ty, block_shape, swizzle=None):
        self.element_ty = element_ty
        self.block_shape = [int(s) for s in block_shape]
        _check_tma_box(self.block_shape, element_ty)
        self.swizzle = default_swizzle(self.block_shape, element_ty) if swizzle is None else int(swizzle)

    scalar = property(lambda self: self.element_ty)

    def is_block(self):
        return False

    def is_ptr(self):
        return False

    def to_ir(self):
        return "!txl.tensordesc<%s%s, #txl.nvmma_shared<swizzle = %d>>" % (
            "".join("%dx" % s for s in self.block_shape), self.element_ty.to_ir(), self.swizzle)

    __str__ = to_ir

    def __eq__(self, other):
        return (isinstance(other, tensordesc_type) and other.element_ty == self.element_ty
                and other.block_shape == self.block_shape and other.swizzle == self.swizzle)

    def __hash__(self):
        return hash(("desc", self.element_ty, tuple(self.block_shape)))

    def __repr__(self):
        return self.to_ir()


class block_ptr_type:
    """The IR type of a block pointer (``tl.make_block_ptr``):
    ``!txl.block_ptr<tensor<64x32xf16>, order = [1, 0]>`` (element type, block shape, order)."""

    def __init__(self, element_ty, block_shape, order):
        self.element_ty = element_ty
        self.block_shape = tuple(int(s) for s in block_shape)
        self.order = tuple(int(o) for o in order)

    def is_block(self):
        return False

    def is_ptr(self):
        return False

    def to_ir(self):
        return "!txl.block_ptr<%s, order = [%s]>" % (block_type(self.element_ty, self.block_shape).to_ir(),
                                                      ", ".join(str(o) for o in self.order))

    __str__ = to_ir

    def __eq__(self, other):
        return (isinstance(other, block_ptr_type) and other.element_ty == self.element_ty
                and other.block_shape == self.block_shape and other.order == self.order)

    def __hash__(self):
        return hash(("block_ptr", self.element_ty, self.block_shape, self.order))

    def __repr__(self):
        return self.to_ir()


class _DescriptorMeta(type):
    def __instancecheck__(cls, v):
        v = v.value if isinstance(v, constexpr) else v
        return isinstance(v, tensor) and isinstance(v.type, tensordesc_type)


class tensor_descriptor(metaclass=_DescriptorMeta):
    """Triton's ``tl.tensor_descriptor``, the type of a TMA descriptor value in a kernel: a kernel parameter given a
    ``txl.TensorDescriptor`` or the result of ``tl.make_tensor_descriptor``. Kernels use it in ``isinstance(desc,
    tl.tensor_descriptor)`` (a compile-time test, e.g. TXL's "descriptor or pointer?" helpers); descriptors are
    never constructed through it."""

    def __init__(self, *args, **kwargs):
        raise TypeError("tl.tensor_descriptor is the type of descriptor values: pass a txl.TensorDescriptor from "
                        "the host or build one with tl.make_tensor_descriptor(base, shape, strides, block_shape)")


# Triton's dtype objects.
int1 = dtype("int1")
int8 = dtype("int8")
int16 = dtype("int16")
int32 = dtype("int32")
int64 = dtype("int64")
uint8 = dtype("uint8")
uint16 = dtype("uint16")
uint32 = dtype("uint32")
uint64 = dtype("uint64")
float8e4nv = dtype("fp8e4nv")
float8e5 = dtype("fp8e5")
float16 = dtype("fp16")
bfloat16 = dtype("bf16")
float32 = dtype("fp32")
float64 = dtype("fp64")

_DTYPE_PY_NAMES = {"int1": "int1", "fp8e4nv": "float8e4nv", "fp8e5": "float8e5", "fp16": "float16",
                   "bf16": "bfloat16", "fp32": "float32", "fp64": "float64"}

# Signature spellings (Triton's "*bf16", "i32", "fp32", and the sidecar's "f32"/"f16") -> dtype.
SIGNATURE_DTYPES = {
    "i1": int1, "i8": int8, "i16": int16, "i32": int32, "i64": int64,
    "u1": int1, "u8": uint8, "u16": uint16, "u32": uint32, "u64": uint64,
    "fp8e4nv": float8e4nv, "fp8e5": float8e5, "f8e4m3": float8e4nv, "f8e5m2": float8e5,
    "fp16": float16, "f16": float16, "bf16": bfloat16, "fp32": float32, "f32": float32,
    "fp64": float64, "f64": float64,
}


def pointer_to(element_ty):
    return pointer_type(element_ty)


# ----------------------------------------------------------------------------------------------------------------
# constexpr
# ----------------------------------------------------------------------------------------------------------------
class constexpr:
    """A value known at compile time. As an annotation (``BLOCK: tl.constexpr``) it marks a parameter whose
    value is folded into the kernel; as a value it wraps a Python int/float/bool/str/dtype/None/tuple."""

    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self):
        return "constexpr[%r]" % (self.value,)

    def __bool__(self):
        return bool(self.value)

    def __index__(self):
        return self.value.__index__()

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)

    def __hash__(self):
        return hash(self.value)

    def __eq__(self, other):
        return self.value == _unwrap(other)

    def __call__(self, *args, **kwargs):
        return self.value(*args, **kwargs)


def _unwrap(x):
    return x.value if isinstance(x, constexpr) else x


def is_jit_function(fn):
    """True for a ``@txl.jit`` function (a ``txl.jit.JITFunction``, recognised by its class marker: the language
    sits below ``txl.jit`` and does not import it)."""
    return getattr(type(fn), "__txl_jit_function__", False)


class constexpr_type:
    """Triton's type of a compile-time value (``constexpr(v).type == constexpr_type(v)``): libraries compare
    types with it; it carries the value."""

    def __init__(self, value):
        self.value = _unwrap(value)

    def __eq__(self, other):
        return isinstance(other, constexpr_type) and self.value == other.value

    def __hash__(self):
        return hash(("constexpr_type", self.value))

    def __repr__(self):
        return "constexpr_type[%r]" % (self.value,)

    def is_block(self):
        return False

    def is_ptr(self):
        return False


constexpr.type = property(lambda self: constexpr_type(self.value))

# Triton's triton.language.core names that libraries read (fla: ``descending: tl.constexpr =
# tl.core.CONSTEXPR_0``, ``tl.core.get_int_dtype(bitwidth=..., signed=True)``).
CONSTEXPR_0 = constexpr(0)
_unwrap_if_constexpr = _unwrap


def get_int_dtype(bitwidth, signed):
    """The integer dtype of ``bitwidth`` bits (Triton's triton.language.core.get_int_dtype)."""
    bitwidth, signed = int(_unwrap(bitwidth)), bool(_unwrap(signed))
    if bitwidth == 1:
        return int1
    if bitwidth not in (8, 16, 32, 64):
        raise SemanticError("get_int_dtype: there is no %d-bit integer dtype" % bitwidth,
                            "use 1, 8, 16, 32 or 64 bits")
    return dtype(("int%d" if signed else "uint%d") % bitwidth)


def is_builtin(fn):
    """True for txl.language functions (Triton's triton.language.core.is_builtin)."""
    return bool(getattr(fn, "__txl_builtin__", False))


def is_constexpr_value(x):
    """True for values the frontend folds at compile time."""
    return isinstance(x, (constexpr, int, float, bool, str, type(None), dtype))


# ----------------------------------------------------------------------------------------------------------------
# Builtins
# ----------------------------------------------------------------------------------------------------------------
def builtin(fn):
    """Marks a language function: callable only while a @txl.jit function is being compiled."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from . import semantic
        if semantic.current() is None:
            raise RuntimeError("%s() can only be called inside a @txl.jit function" % fn.__name__)
        return fn(*args, **kwargs)

    wrapper.__txl_builtin__ = True
    return wrapper


def _sem():
    from . import semantic
    return semantic


# ----------------------------------------------------------------------------------------------------------------
# tensor
# ----------------------------------------------------------------------------------------------------------------
class tensor:
    """A run-time value of a kernel: a scalar, a register tile, a pointer, a shared-memory buffer, an mbarrier or
    a TMA descriptor. ``handle`` is its IR value, ``type`` its type (``dtype``, ``block_type``, ``smem_type``...)."""

    def __init__(self, handle, type):
        self.handle = handle
        self.type = type
        # scalar dtype for tiles and scalars
        self.dtype = type.scalar if hasattr(type, "scalar") else type
        # Set on the i1 results of txl.is_warpgroup / txl.is_warp: they must be an `if` condition as they are.
        self.role = None

    @property
    def shape(self):
        t = self.type
        if isinstance(t, (block_type, smem_type)):
            return tuple(constexpr(s) for s in t.shape)
        if isinstance(t, tensordesc_type):
            return tuple(constexpr(s) for s in t.block_shape)
        return ()

    @property
    def numel(self):
        return constexpr(self.type.numel if isinstance(self.type, block_type) else 1)

    def __repr__(self):
        return "tensor(%s)" % (self.type,)

    def __bool__(self):
        raise SemanticError("a run-time value has no Python truth value here",
                            "use it as the condition of an `if`/`while` (it becomes scf.if/scf.while), or "
                            "tl.where(cond, a, b) for a selection")

    # Arithmetic dunders: the code generator calls the semantic directly; these let builtins written in Python
    # (e.g. softmax helpers in the language) use operators too.
    def __add__(self, o): return _sem().binary("+", self, o)
    def __radd__(self, o): return _sem().binary("+", o, self)
    def __sub__(self, o): return _sem().binary("-", self, o)
    def __rsub__(self, o): return _sem().binary("-", o, self)
    def __mul__(self, o): return _sem().binary("*", self, o)
    def __rmul__(self, o): return _sem().binary("*", o, self)
    def __truediv__(self, o): return _sem().binary("/", self, o)
    def __rtruediv__(self, o): return _sem().binary("/", o, self)
    def __floordiv__(self, o): return _sem().binary("//", self, o)
    def __rfloordiv__(self, o): return _sem().binary("//", o, self)
    def __mod__(self, o): return _sem().binary("%", self, o)
    def __rmod__(self, o): return _sem().binary("%", o, self)
    def __and__(self, o): return _sem().binary("&", self, o)
    def __rand__(self, o): return _sem().binary("&", o, self)
    def __or__(self, o): return _sem().binary("|", self, o)
    def __ror__(self, o): return _sem().binary("|", o, self)
    def __xor__(self, o): return _sem().binary("^", self, o)
    def __rxor__(self, o): return _sem().binary("^", o, self)
    def __lshift__(self, o): return _sem().binary("<<", self, o)
    def __rshift__(self, o): return _sem().binary(">>", self, o)
    def __rlshift__(self, o): return _sem().binary("<<", o, self)
    def __rrshift__(self, o): return _sem().binary(">>", o, self)
    def __lt__(self, o): return _sem().binary("<", self, o)
    def __le__(self, o): return _sem().binary("<=", self, o)
    def __gt__(self, o): return _sem().binary(">", self, o)
    def __ge__(self, o): return _sem().binary(">=", self, o)
    def __eq__(self, o): return _sem().binary("==", self, o)
    def __ne__(self, o): return _sem().binary("!=", self, o)
    def __neg__(self): return _sem().neg(self)
    def __invert__(self): return _sem().invert(self)
    __hash__ = object.__hash__

    def __getitem__(self, slices):
        return _sem().subscript(self, slices)

    # Methods. Triton's tensor methods (TRITON_TENSOR_METHODS) that are functions of txl.language are bound by
    # install_tensor_methods (called by txl.language's __init__, once every function exists); the ones defined here
    # have no free function of the same name (to, item, logical_and/or) or mean more in txl (store).
    @builtin
    def to(self, dtype, fp_downcast_rounding=None, bitcast=False):
        if isinstance(self.type, smem_type):  # tmem_type too
            # TXL: a buffer converted to its own dtype is the buffer (`tl.dot(p_smem.to(tl.bfloat16), v, acc)`).
            what = "a tensor-memory buffer" if isinstance(self.type, tmem_type) else "a shared-memory buffer"
            load = "txl.tmem_load" if isinstance(self.type, tmem_type) else "txl.smem_load"
            dst = _unwrap(dtype)
            if dst == self.type.element_ty and not _unwrap(bitcast):
                return self
            dname = getattr(dst, "name", dst)
            raise SemanticError("buffer.to(%s): %s of %s holds its elements in memory and converts only to its own "
                                "dtype" % (dname, what, self.type.element_ty.name),
                                "load it first: %s(buf).to(tl.%s)" % (load, _DTYPE_PY_NAMES.get(dname, dname)))
        return _sem().cast(self, _unwrap(dtype), bitcast=_unwrap(bitcast))

    @property
    def T(self):
        return _sem().trans(self)

    @builtin
    def item(self):
        """The only element of a one-element tile, as a scalar (a scalar stays as it is)."""
        return _sem().unsplat(self, "x.item()")

    @builtin
    def logical_and(self, other):
        return _sem().logical("and", self, other)

    @builtin
    def logical_or(self, other):
        return _sem().logical("or", self, other)

    # TMA descriptor methods (a `tensordesc` argument): Triton's desc.load / desc.store.
    @builtin
    def load(self, offsets):
        return _sem().desc_load(self, offsets)

    @builtin
    def store(self, *args, **kwargs):
        """``desc.store(offsets, value)`` on a TMA descriptor (Triton's tensor_descriptor.store), else Triton's
        ``ptr.store(value, mask=None, ...)``: tl.store(ptr, value, ...)."""
        from . import standard
        fn = standard.store_tensor_descriptor if isinstance(self.type, tensordesc_type) else standard.store
        _bind_or_explain(fn, "desc.store" if fn is standard.store_tensor_descriptor else "x.store", self, args,
                         kwargs)
        return fn(self, *args, **kwargs)

    @property
    def block_shape(self):
        if isinstance(self.type, tensordesc_type):
            return [constexpr(s) for s in self.type.block_shape]
        raise SemanticError("block_shape is an attribute of TMA descriptors, this is %s" % self.type)


# Triton 3.6's tensor methods: the functions its language modules decorate with @_tensor_member_fn (core.py,
# math.py, standard.py) and the methods its class defines (to, logical_and, logical_or, and the sort stub), i.e.
# dir(triton.language.tensor) without the dunders, ``T`` and ``_flatten_ir``. Libraries written for Triton call
# them as methods (``x.cast(tl.float32)``, ``x.exp()``, ``ptr.atomic_add(v)``); txl has each, mapped to the
# txl.language function of the same name (a refused one refuses the same way, at the user's line).
TRITON_TENSOR_METHODS = (
    "abs", "advance", "argmax", "argmin", "associative_scan", "atomic_add", "atomic_and", "atomic_cas",
    "atomic_max", "atomic_min", "atomic_or", "atomic_xchg", "atomic_xor", "broadcast_to", "cast", "cdiv", "ceil",
    "cos", "cumprod", "cumsum", "erf", "exp", "exp2", "expand_dims", "flip", "floor", "gather", "histogram", "item",
    "log", "log2", "logical_and", "logical_or", "max", "min", "permute", "ravel", "reduce", "reduce_or", "reshape",
    "rsqrt", "sigmoid", "sin", "softmax", "sort", "split", "sqrt", "sqrt_rn", "store", "sum", "to", "trans",
    "view", "xor_sum")

# The methods the class defines itself (the others are bound to txl.language's functions).
_OWN_METHODS = ("to", "item", "logical_and", "logical_or", "store")

# The attributes a kernel may read on a tensor (the code generator refuses others with a located error):
# Triton's methods and attributes, and TXL's descriptor ones.
TENSOR_ATTRS = frozenset(TRITON_TENSOR_METHODS) | {"T", "shape", "dtype", "numel", "type", "load",
                                                   "block_shape"}


def _bind_or_explain(fn, spelling, self, args, kwargs):
    """Binds a method call's arguments to ``fn``'s signature, so that a wrong call is a user error naming the
    signature (``x.sum(0, 1, 2, 3)``), not a TypeError from inside the frontend."""
    import inspect
    sig = inspect.signature(fn)
    try:
        sig.bind(self, *args, **kwargs)
    except TypeError as e:
        params = list(sig.parameters.values())[1:]
        raise SemanticError("wrong arguments for %s: %s" % (spelling, e),
                            "call it as %s(%s)" % (spelling, ", ".join(str(p) for p in params))) from None


def _method(name, fn):
    """``tensor.<name>``: ``fn(self, ...)`` with ``fn``'s signature (its first parameter renamed ``self``), so
    the code generator checks a method call's arguments against the free function's."""
    import inspect

    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    params[0] = params[0].replace(name="self")
    method.__signature__ = sig.replace(parameters=params)
    method.__name__ = name
    method.__qualname__ = "tensor." + name
    method.__doc__ = "``x.%s(...)`` is ``tl.%s(x, ...)``." % (name, name)
    method.__txl_builtin__ = True
    return method


def install_tensor_methods(language):
    """Binds Triton's tensor methods to the functions of ``language`` (txl.language's namespace): a function
    becomes a method taking the tensor as its first argument; a refused name (``triton_api.Refused``) is bound as
    it is, so that reading ``x.gather`` in a kernel is the located refusal of ``tl.gather``."""
    from .triton_api import Refused
    for name in TRITON_TENSOR_METHODS:
        if name in _OWN_METHODS:
            continue
        fn = language[name]
        if isinstance(fn, Refused):
            setattr(tensor, name, Refused("x." + name, fn.why, fn.instead))
        else:
            setattr(tensor, name, _method(name, fn))


class block_pointer:
    """What ``tl.make_block_ptr`` returns: Triton's pointer to a block of a parent tensor (its
    ``pointer_type(block_type)``). ``value`` is its IR value, of type ``!txl.block_ptr<tensor<...>, order = [...]>``
    (``block_ptr_type``), made by ``txl.make_block_ptr`` from the base, shape and strides (i64) and offsets (i32);
    ``tl.advance`` is ``txl.advance``, ``tl.load`` / ``tl.store`` through it ``txl.block_load`` /
    ``txl.block_store``. How the block is read is the compiler's decision: txl-expand-block-pointers (first in
    txlc's pipeline) makes each load or store one ``txl.load`` / ``txl.store`` of the pointer tile
    ``base + sum_d (offsets[d] + arange(block_shape[d])) * strides[d]`` (masked on the ``boundary_check``
    dimensions) and carries only the changing fields through loops.

    It is a frontend aggregate of one run-time field (``_txl_fields``: the IR value, carried through ``scf.for``
    iter_args / ``scf.if`` results like any value) and a compile-time part (element type, block shape, order)
    that both branches of an ``if`` and every loop iteration must agree on, with the located errors of the code
    generator when they do not."""

    def __init__(self, value, block_shape, order):
        self.value = value
        self.block_shape = tuple(int(s) for s in block_shape)
        self.order = tuple(int(o) for o in order)

    @property
    def element_ty(self):
        return self.value.type.element_ty

    @property
    def dtype(self):
        return pointer_type(block_type(self.element_ty, self.block_shape))

    type = dtype

    # -- the aggregate protocol of the code generator (control flow) ---------------------------------------------
    def _txl_fields(self):
        """The run-time fields, as a tuple of tensors (the leaves carried through control flow): the IR value."""
        return (self.value,)

    def _txl_rebuild(self, fields):
        (value,) = tuple(fields)
        return block_pointer(value, self.block_shape, self.order)

    def _txl_static(self):
        """What must agree between two values of one variable (if/else branches, loop iterations)."""
        return ("block_pointer", self.element_ty, self.block_shape, self.order)

    def _txl_describe(self):
        return "a block pointer (tl.make_block_ptr) to %s blocks of %s with order %s" % (
            "x".join(str(s) for s in self.block_shape), self.element_ty.name, self.order)

    def __repr__(self):
        return "<%s>" % self._txl_describe()

    def __bool__(self):
        raise SemanticError("a block pointer has no Python truth value", "compare its loaded values instead")

    @builtin
    def advance(self, offsets):
        return _sem().advance(self, offsets)


def _is_aggregate(v):
    """A frontend aggregate (``block_pointer``): run-time fields (IR values) and a compile-time part that control
    flow must keep."""
    return hasattr(type(v), "_txl_fields")


def _shape_arg(shape):
    """Accepts f(2, 3) and f((2, 3)) / f([2, 3])."""
    shape = [_unwrap(s) for s in shape]
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = [_unwrap(s) for s in shape[0]]
    return [int(s) for s in shape]


# ----------------------------------------------------------------------------------------------------------------
# Loop iterators
# ----------------------------------------------------------------------------------------------------------------
class range:
    """``for i in tl.range(lo, hi, step, num_stages=None)``: an scf.for loop. ``num_stages`` is Triton's: loads
    in the loop are issued num_stages - 1 iterations ahead (the kernel's num_stages when absent); the other
    hints are accepted and ignored."""

    def __init__(self, arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None,
                 disallow_acc_multi_buffer=False, flatten=False, warp_specialize=False):
        if arg2 is None:
            self.start, self.end = constexpr(0), arg1
        else:
            self.start, self.end = arg1, arg2
        self.step = constexpr(1) if step is None else step
        self.num_stages = num_stages


class static_range:
    """``for i in tl.static_range(lo, hi, step)``: unrolled at compile time; ``i`` is a constexpr."""

    def __init__(self, arg1, arg2=None, step=None):
        if arg2 is None:
            arg1, arg2 = 0, arg1
        vals = [_unwrap(arg1), _unwrap(arg2), 1 if step is None else _unwrap(step)]
        for v in vals:
            if not isinstance(v, int):
                raise SemanticError("tl.static_range bounds must be compile-time integers, got %r" % (v,),
                                    "use tl.range(...) (an scf.for loop) for run-time bounds")
        self.start, self.end, self.step = vals


def __getattr__(name):
    # Triton's triton.language.core also holds the functions of triton.language (tl.core.load, tl.core.full...):
    # tl.core.<name> is txl.language's <name> where txl has it.
    import sys
    lang = sys.modules.get(__package__)
    if lang is not None and not name.startswith("_") and name in vars(lang):
        return vars(lang)[name]
    raise AttributeError("tl.core.%s does not exist in txl (txl.language.core has the types, constexpr and tensor; "
                         "triton.language's functions are reachable as tl.<name>)" % name)
