"""Semantics of the txl language: type promotion, broadcasting and the IR each operation becomes.

The code generator (``txl.compiler.code_generator``) and the builtins call these functions while a kernel is
being compiled; ``current()`` is the active ``Context`` (the IR builder, the launch options and a little state
shared by the whole kernel, such as the wgmma groups still in flight). Every user error is a ``SemanticError``
with a message that says what was expected and, where possible, how to fix it; the code generator adds the
source location.

The rules follow Triton's ``semantic.py``: Python numbers are "weak" (they take the type of the tensor they meet),
16-bit floats of different kinds meet in fp32, integers widen to the wider operand, ``/`` on integers is a float
division, ``//`` and ``%`` truncate like C. Shapes broadcast NumPy-style from the right.

One module per topic, each importing only from the modules listed before it (one exception: ``values`` converts with
``arith.cast`` through a module reference, as casting needs constants and constants need casting):

* ``context``: the active ``Context`` (``current``, ``activate``)
* ``values``: constants, ``to_tensor``, type promotion (``result_dtype``)
* ``broadcast``: ``splat``, ``expand_dims``, ``broadcast_to``, the broadcasting rule
* ``arith``: casts, binary and unary arithmetic, comparisons, ``where``, min/max, math functions, ``device_assert``
* ``memory``: ``load`` / ``store`` through pointers, block pointers, atomics
* ``descriptors``: TMA descriptors: ``desc_load`` / ``desc_store``, ``make_tensor_descriptor``
* ``buffers``: shared and tensor memory, mbarriers, TMA copies (the TXL builtins)
* ``reductions``: reductions and scans, ``tl.reduce`` / ``tl.associative_scan`` combiners, ``unsplat``
* ``shapes``: indexing, ``trans``, ``reshape``, ``join`` / ``split``, ``cat``, ``interleave``
* ``sort``: ``sort_or_flip``, ``topk``
* ``dots``: ``tl.dot`` (wgmma, the FMA dot of fp32 tiles), ``txl.dot_wait``, ``finalize_dots``
* ``inline_asm``: ``tl.inline_asm_elementwise`` (``elementwise_inline_asm``)
* ``gather``: ``tl.gather`` of register tiles (``gather_tile``)
* ``histogram``: ``tl.histogram`` of a 1-D integer tile (``histogram_tile``)
* ``map_elementwise``: ``tl.map_elementwise`` over whole tiles (``map_elementwise_tiles``)

Other modules use ``from txl.language import semantic`` and ``semantic.<name>``: the package re-exports every
module's public names and the private helpers the builtins share (``_b``, ``_static_int``...).
"""

from .context import Context, activate, current, unsupported, _b, _ctx
from .values import const_value, constant, dense, result_dtype, to_tensor, weak_dtype, _i32, _static_int
from .broadcast import binary_broadcast, broadcast_shapes, broadcast_to, expand_dims, splat, _shape
from .arith import (TRITON_MATH_DTYPES, abs_, addptr, binary, cast, check_triton_math_dtypes, compare, device_assert,
                    fma, invert, logical, logical_not, math_op, math_unary, minmax, mulhi, neg, where, _binop,
                    _with_elem)
from .memory import advance, atomic_cas, atomic_rmw, load, make_block_ptr, store, _mem_attrs
from .descriptors import desc_load, desc_store, make_tensor_descriptor, _desc
from .buffers import (TMA_REDUCE_KINDS, as_view, get_buffer, mbar_alloc, mbar_expect, smem_alloc, smem_load, smem_store,
                      smem_trans, tma_load, tma_store, tmem_alloc, _pred, _shape_list)
from .reductions import reduce_arg, reduce_fn, reduce_named, scan_fn, scan_named, sum_dtype, unsplat
from .shapes import cat, interleave, join, reshape, split, subscript, trans
from .sort import sort_or_flip, topk
from .dots import dot, dot_wait, finalize_dots
from .inline_asm import elementwise_inline_asm
from .gather import gather_tile
from .histogram import histogram_tile
from .map_elementwise import map_elementwise_tiles
