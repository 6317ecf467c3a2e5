"""Shape-only stand-ins for torch tensors: compiling a kernel's specialisation (signature, divisibility) needs a
tensor's shape, dtype, strides and an aligned address, not its data, torch or a GPU. Used to precompile kernel
caches here for a GPU host that has no compiler (txl.ops precompile, python/txl/tools/precompile.py)."""

import math
import types


class MetaTensor:
    """Shape, dtype and a fake (aligned) device address: what specialisation reads from a tensor."""

    SIZES = {"bfloat16": 2, "float16": 2, "float32": 4, "int32": 4, "int64": 8, "float8_e4m3fn": 1}
    _next = [0x7F0000000000]

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = "torch." + dtype
        self._isz = self.SIZES[dtype]
        self._ptr = MetaTensor._next[0]
        MetaTensor._next[0] += (math.prod(self.shape) * self._isz + (1 << 20)) & ~((1 << 20) - 1)
        self.device = types.SimpleNamespace(type="cuda", index=0)

    def data_ptr(self):
        return self._ptr

    def stride(self):
        out, acc = [], 1
        for s in reversed(self.shape):
            out.insert(0, acc)
            acc *= s
        return tuple(out)

    def element_size(self):
        return self._isz
