"""``txl.experimental.gluon.language`` (``gl``): Gluon's language on txl.

Gluon's names, each one of txl.language's functions (``gl.load`` is ``tl.load``, ``gl.sum`` is ``tl.sum``...) or, where
Gluon adds a layout (``gl.arange(..., layout=)``, ``gl.full``, ``gl.zeros``, ``gl.convert_layout``,
``smem.load(layout)``), that function with the layout given to its result (``_core.given_layout``). Names txl does
not have are located errors at the kernel's line, saying what to use instead (``triton_api``'s refusals for
Triton's names, ``_core.warp_specialize``...).
"""

from ....language import (abs, associative_scan, atomic_add, atomic_and, atomic_cas, atomic_max, atomic_min,  # noqa: F401
                          atomic_or, atomic_xchg, atomic_xor, bfloat16, block_type, broadcast, cast, cdiv, ceil,
                          clamp, constexpr, cos, cumprod, cumsum, device_assert, device_print, div_rn, dtype, erf,
                          exp, exp2, expand_dims, fdiv, float8e4nv, float8e5, float16, float32, float64, floor, fma,
                          int1, int8, int16, int32, int64, join, load, log, log2, max, max_constancy, max_contiguous,
                          maximum, min, minimum, multiple_of, num_programs, permute, pointer_type, program_id,
                          reduce, reshape, rsqrt, sigmoid, sin, split, sqrt, sqrt_rn, static_assert, static_print,
                          static_range, store, sum, tensor, umulhi, uint8, uint16, uint32, uint64, where, xor_sum,
                          assume, interleave, cat, flip, sort, argmax, argmin, softmax, broadcast_to, trans, ravel)
from ....language import range as _range
from ....language import extra, math  # noqa: F401
from ....language.core import float8e4nv as float8e4m3fn  # noqa: F401
from ._layouts import (AutoLayout, BlockedLayout, CoalescedLayout, DistributedLinearLayout,  # noqa: F401
                       DotOperandLayout, NVMMADistributedLayout, NVMMASharedLayout, PaddedSharedLayout,
                       SharedLinearLayout, SliceLayout, SwizzledSharedLayout)
from ._core import (allocate_shared_memory, arange, constexpr_function, convert_layout, full, full_like,  # noqa: F401
                    num_ctas, num_warps, set_auto_layout, shared_memory_descriptor, shared_memory_descriptor_type,
                    thread_barrier, warp_specialize, zeros, zeros_like)
from . import nvidia  # noqa: F401

range = _range
float8e5b16 = None  # AMD's fp8 (not an NVIDIA type); here so that `gl.float8e5b16` is not an AttributeError at import
distributed_type = block_type
shared_layout = object
distributed_layout = object


def __getattr__(name):
    from ....language import triton_api
    raise triton_api.missing_attribute(__name__, name)
