"""The txl language: what @txl.jit kernels call.

``import txl.language as tl`` provides the part of ``triton.language`` that attention and GEMM kernels use (same
names and arguments), plus the TXL builtins (``tl.smem_alloc``... also reachable as ``txl.smem_alloc``), so a TXL
kernel ports by changing its imports. Modules: ``core`` (types, constexpr, tensor), ``semantic`` (promotion,
broadcasting, the IR each operation becomes), ``standard`` (triton.language functions), ``txl_builtins`` (TXL's
builtins), ``layouts`` (TXL's layout classes).
"""

from .core import (EncodingCell, block_type, builtin, constexpr, constexpr_type, dtype, mbar_type, pointer_type, range,
                   smem_type, static_range, tensor, tensor_descriptor, tensordesc_type, tmem_type)
from .core import (bfloat16, float8e4nv, float8e5, float16, float32, float64, int1, int8, int16, int32, int64,
                   uint8, uint16, uint32, uint64)
from .standard import (PropagateNan, TRITON_MAX_TENSOR_NUMEL, abs, add, advance, arange, argmax, argmin,
                       associative_scan, assume,
                       atomic_add, atomic_and, atomic_cas, atomic_max, atomic_min, atomic_or, atomic_xchg,
                       atomic_xor, broadcast,
                       broadcast_to, cast, cat, cdiv, ceil, clamp, cos, cumprod, cumsum, debug_barrier, device_assert,
                       device_print,
                       div_rn, dot, erf, exp, flip,
                       exp2,
                       expand_dims, fdiv, floor, fma, full, interleave, join, load, load_tensor_descriptor, log, log2,
                       make_block_ptr, make_tensor_descriptor, max, max_constancy, max_contiguous, maximum, min,
                       minimum, mul,
                       multiple_of, num_programs, permute, program_id, ravel, reduce, reduce_or, reshape, rsqrt, sigmoid, sin, softmax, sort,
                       split, sqrt, sqrt_rn, static_assert, static_print, store, store_tensor_descriptor, sub, sum,
                       swizzle2d, topk, trans, uint_to_uniform_float, umulhi, view, where, xor_sum, zeros, zeros_like)
from .txl_builtins import (async_load, async_load_wait, bar_arrive, bar_wait, bdim, bid, cta_rank, dot_wait, dotx,
                           cluster_barrier, fence_proxy_async, frag_smem_load, frag_smem_store, get_buffer, is_warp, is_warpgroup,
                           lane_id, mbar_alloc, mbar_arrive, mbar_expect, mbar_wait, ones, ones_like, print,
                           print_layout, reg_alloc, reg_dealloc, relayout,
                           smem_alloc, smem_index, smem_load, smem_reshape, smem_slice, smem_store, smem_trans,
                           tdim, thread0, tid, tma_gather, tma_load, tma_store, tma_store_wait, tmem_alloc,
                           tmem_load, tmem_store, warp_id, warp_max, warp_sum, warpgroup_id, wg_thread0)
from .layouts import (AutoLayout, BlockedLayout, DistributedLinearLayout, DotOperandLayout, NVMMADistributedLayout,
                      NVMMASharedLayout, SliceLayout, SwizzledSharedLayout)

from .random import (pair_uniform_to_normal, philox, philox_impl, rand, rand4x, randint, randint4x,  # noqa: E402
                     randn, randn4x)
from . import extra, math  # noqa: E402  (tl.math, tl.extra.cuda.libdevice)
from . import triton_api as _triton_api  # noqa: E402

# Triton's aliases.
float8e4m3fn = float8e4nv
float8_e4m3fn = float8e4nv
pi32_t = pointer_type(int32)

# The TXL builtins re-exported at the top level of the `txl` package (txl.smem_alloc, txl.is_warpgroup, ...).
TXL_BUILTINS = (
    "smem_alloc", "get_buffer", "smem_load", "smem_store", "frag_smem_load", "frag_smem_store", "smem_index",
    "smem_slice", "smem_trans", "smem_reshape", "tmem_alloc", "tmem_load", "tmem_store", "mbar_alloc",
    "mbar_expect", "mbar_wait", "mbar_arrive", "tma_load", "tma_store", "tma_store_wait", "tma_gather",
    "async_load", "async_load_wait", "cluster_barrier", "fence_proxy_async", "dotx", "dot_wait", "bar_arrive", "bar_wait",
    "reg_alloc", "reg_dealloc", "is_warpgroup", "is_warp", "tid", "tdim", "bid", "bdim", "warp_id",
    "warpgroup_id", "lane_id", "cta_rank", "thread0", "wg_thread0", "warp_max", "warp_sum", "print",
    "relayout", "print_layout", "ones", "ones_like",
    "AutoLayout", "BlockedLayout", "SliceLayout", "DistributedLinearLayout", "DotOperandLayout",
    "NVMMADistributedLayout", "NVMMASharedLayout", "SwizzledSharedLayout",
)


class TXLSemantic:
    """The name of TXL's frontend semantics class (``from teraxlang.language.semantic import TXLSemantic``), which
    TXL's tutorials hand to proton: ``pl.enable_semantic_obj(TXLSemantic)`` (``txl.profiler.language`` accepts it).
    txl's semantics are the functions of ``txl.language.semantic``; this class only makes that import work, so
    the tutorials' guarded ``try: ... except:`` import does not replace txl by its stub."""


from . import semantic  # noqa: E402
from .semantic.inline_asm import inline_asm_elementwise  # noqa: E402
from .semantic.gather import gather  # noqa: E402
from .semantic.histogram import histogram  # noqa: E402
from .semantic.map_elementwise import map_elementwise  # noqa: E402

semantic.TXLSemantic = TXLSemantic  # importable as txl.language.semantic.TXLSemantic, TXL's spelling

# The names of Triton 3.6's triton.language that txl refuses (atomics, scans, random numbers...): each is bound to
# a `Refused` that makes its use in a kernel a located error with what to use instead (triton_api.LANGUAGE).
_triton_api.install_refusals(globals())

# Triton's tensor methods (x.cast(...), x.exp(), ptr.atomic_add(...)...): each is the function of the same name above.
from . import core as _core  # noqa: E402

_core.install_tensor_methods(globals())


def __getattr__(name):
    raise _triton_api.missing_attribute(__name__, name)
