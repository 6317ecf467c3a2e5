"""Element types and a small adapter over tensor-like objects.

The runtime never imports torch itself. It reads tensors through duck typing: a torch.Tensor (``data_ptr()``,
``shape``, ``stride()``, ``dtype``, ``device``) or any object with ``__cuda_array_interface__`` (CuPy, Numba, ...).
Tests use small fake classes with the same attributes.

Canonical dtype names are the sidecar's: ``bf16 f16 f32 f64 f8e4m3 f8e5m2 i1 i8 u8 i16 i32 i64``, and ``u16 u32 u64``
(torch's unsigned tensors, which kernels take as Triton does: the JIT specializes on them; a compiled param names
the signless width).
"""

import numbers

# canonical name -> (bytes per element, CUtensorMapDataType or None when TMA cannot carry it)
# TMA has no fp8/int8/bool types: they travel as UINT8, which copies the same bytes.
_U8, _U16, _U32, _I32, _U64, _I64, _F16, _F32, _F64, _BF16 = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
DTYPES = {
    "bf16": (2, _BF16),
    "f16": (2, _F16),
    "f32": (4, _F32),
    "f64": (8, _F64),
    "f8e4m3": (1, _U8),
    "f8e5m2": (1, _U8),
    "i1": (1, _U8),
    "i8": (1, _U8),
    "u8": (1, _U8),
    "i16": (2, _U16),
    "i32": (4, _I32),
    "i64": (8, _I64),
    "u16": (2, _U16),
    "u32": (4, _U32),
    "u64": (8, _U64),
}

# dtypes the sidecar may name (params); the rest of DTYPES is accepted for TensorDescriptor only.
SIDECAR_DTYPES = ("bf16", "f16", "f32", "f8e4m3", "i8", "i32", "i64", "i1", "f64", "f8e5m2", "u8", "i16")

# torch / numpy / CAI spellings -> canonical name
_ALIASES = {
    "bfloat16": "bf16", "bf16": "bf16",
    "float16": "f16", "half": "f16", "f16": "f16", "<f2": "f16",
    "float32": "f32", "float": "f32", "f32": "f32", "<f4": "f32",
    "float64": "f64", "double": "f64", "f64": "f64", "<f8": "f64",
    "float8_e4m3fn": "f8e4m3", "f8e4m3": "f8e4m3", "f8e4m3fn": "f8e4m3",
    "float8_e5m2": "f8e5m2", "f8e5m2": "f8e5m2",
    "bool": "i1", "i1": "i1", "|b1": "i1",
    "int8": "i8", "i8": "i8", "|i1": "i8",
    "uint8": "u8", "u8": "u8", "|u1": "u8",
    "int16": "i16", "short": "i16", "i16": "i16", "<i2": "i16",
    "int32": "i32", "int": "i32", "i32": "i32", "<i4": "i32",
    "int64": "i64", "long": "i64", "i64": "i64", "<i8": "i64",
    "uint16": "u16", "u16": "u16", "<u2": "u16",
    "uint32": "u32", "u32": "u32", "<u4": "u32",
    "uint64": "u64", "u64": "u64", "<u8": "u64",
}

# canonical -> how torch spells it (for messages)
TORCH_NAMES = {
    "bf16": "torch.bfloat16", "f16": "torch.float16", "f32": "torch.float32", "f64": "torch.float64",
    "f8e4m3": "torch.float8_e4m3fn", "f8e5m2": "torch.float8_e5m2", "i1": "torch.bool", "i8": "torch.int8",
    "u8": "torch.uint8", "i16": "torch.int16", "i32": "torch.int32", "i64": "torch.int64",
    "u16": "torch.uint16", "u32": "torch.uint32", "u64": "torch.uint64",
}

# Integer elements of one width: a pointer param's dtype in the sidecar is the signless MLIR width (i8 for a kernel
# the JIT compiled for a uint8 tensor), and the signedness lives in the kernel's code, chosen by the JIT's
# specialization on the tensor's dtype (as Triton's). So the launcher accepts either signedness of the width.
_INT_WIDTH = {"i8": 8, "u8": 8, "i16": 16, "u16": 16, "i32": 32, "u32": 32, "i64": 64, "u64": 64}


def same_bits(got, want):
    """Whether a tensor of canonical dtype ``got`` fits a pointer param of canonical dtype ``want``."""
    return got == want or (got in _INT_WIDTH and _INT_WIDTH.get(want) == _INT_WIDTH[got])


def canonical_dtype(dt):
    """Canonical name for a torch dtype, numpy dtype, CAI typestr or string; None when unknown."""
    if dt is None:
        return None
    s = str(dt)
    if s.startswith("torch."):
        s = s[len("torch."):]
    return _ALIASES.get(s)


def itemsize(name):
    return DTYPES[name][0]


def is_int(x):
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


class TensorInfo:
    """What the runtime needs to know about a tensor, read without importing its library.

    ``strides`` are in elements, in the tensor's own (outermost-first) order.
    """

    __slots__ = ("obj", "ptr", "shape", "strides", "dtype", "raw_dtype", "itemsize", "device_type", "device_index")

    def __init__(self, obj, ptr, shape, strides, dtype, raw_dtype, item_size, device_type, device_index):
        self.obj = obj
        self.ptr = int(ptr)
        self.shape = tuple(int(s) for s in shape)
        self.strides = tuple(int(s) for s in strides)
        self.dtype = dtype
        self.raw_dtype = raw_dtype
        self.itemsize = item_size
        self.device_type = device_type
        self.device_index = device_index

    @property
    def is_cuda(self):
        return self.device_type == "cuda"

    @property
    def dtype_str(self):
        return self.dtype if self.dtype else str(self.raw_dtype)

    def is_contiguous(self):
        expected = 1
        for size, stride in zip(reversed(self.shape), reversed(self.strides)):
            if size != 1 and stride != expected:
                return False
            expected *= size
        return True


def is_tensor_like(obj):
    return (callable(getattr(obj, "data_ptr", None)) and hasattr(obj, "shape") and hasattr(obj, "dtype")) or hasattr(
        obj, "__cuda_array_interface__"
    )


def tensor_info(obj):
    """TensorInfo for a torch-like tensor or a __cuda_array_interface__ object; None if ``obj`` is neither."""
    if callable(getattr(obj, "data_ptr", None)) and hasattr(obj, "shape") and hasattr(obj, "dtype"):
        shape = tuple(obj.shape)
        stride = obj.stride() if callable(getattr(obj, "stride", None)) else None
        if stride is None:
            stride = _contiguous_strides(shape)
        dtype = canonical_dtype(obj.dtype)
        if callable(getattr(obj, "element_size", None)):
            isz = int(obj.element_size())
        else:
            isz = itemsize(dtype) if dtype else 0
        dev = getattr(obj, "device", None)
        if dev is not None and hasattr(dev, "type"):
            dtype_dev, idx = dev.type, dev.index
        elif dev is not None:
            s = str(dev)
            dtype_dev, _, i = s.partition(":")
            idx = int(i) if i else None
        else:
            dtype_dev, idx = ("cuda" if getattr(obj, "is_cuda", False) else "cpu"), None
        if dtype_dev == "cuda" and idx is None:
            idx = _current_torch_device()
        return TensorInfo(obj, obj.data_ptr(), shape, stride, dtype, obj.dtype, isz, dtype_dev, idx)
    cai = getattr(obj, "__cuda_array_interface__", None)
    if isinstance(cai, dict):
        shape = tuple(cai["shape"])
        typestr = cai["typestr"]
        dtype = canonical_dtype(typestr)
        isz = int(typestr[2:]) if typestr[2:].isdigit() else (itemsize(dtype) if dtype else 0)
        if cai.get("strides") is None:
            strides = _contiguous_strides(shape)
        else:
            if isz == 0 or any(s % isz for s in cai["strides"]):
                raise ValueError(
                    "__cuda_array_interface__ strides %s (bytes) are not multiples of the %d-byte element size"
                    % (list(cai["strides"]), isz)
                )
            strides = tuple(s // isz for s in cai["strides"])
        idx = None
        dev = getattr(obj, "device", None)
        if dev is not None and hasattr(dev, "id"):
            idx = int(dev.id)
        return TensorInfo(obj, cai["data"][0], shape, strides, dtype, typestr, isz, "cuda", idx)
    return None


def _contiguous_strides(shape):
    out, acc = [], 1
    for s in reversed(shape):
        out.append(acc)
        acc *= max(int(s), 1)
    return tuple(reversed(out))


def _current_torch_device():
    import sys

    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            return int(torch.cuda.current_device())
        except Exception:
            return 0
    return 0


def describe(obj):
    """Short description of an argument for error messages."""
    info = tensor_info(obj) if is_tensor_like(obj) else None
    if info is not None:
        where = info.device_type + ("" if info.device_index is None or info.device_type != "cuda" else ":%d" % info.device_index)
        return "a %s tensor of shape %s on %s" % (info.dtype_str, list(info.shape), where)
    r = repr(obj)
    if len(r) > 40:
        r = r[:37] + "..."
    return "%s %s" % (type(obj).__name__, r)
