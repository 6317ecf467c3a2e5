"""TXL's layout classes (docs/txl-reference.md §3c), Gluon-style dataclasses used as ``tl.constexpr`` values.

TXL kernels pass them as ``layout=`` / ``shared_enc=`` hints. txl's compiler assigns register layouts and shared
encodings itself (AssignLayouts, SmemAllocs), so the frontend accepts these objects for source compatibility and
does not emit them; ``to_ir()`` gives the txl attribute where one exists (for inspection and tests).
"""

from dataclasses import dataclass, field
from typing import List, Optional


def _arr(xs):
    return "[" + ", ".join(str(int(x)) for x in xs) + "]"


class _Layout:
    def to_ir(self):
        return None


@dataclass
class AutoLayout(_Layout):
    pass


@dataclass
class BlockedLayout(_Layout):
    size_per_thread: List[int]
    threads_per_warp: List[int]
    warps_per_cta: List[int]
    order: List[int]
    ctas_per_cga: Optional[List[int]] = None
    cta_split_num: Optional[List[int]] = None
    cta_order: Optional[List[int]] = None

    def to_ir(self):
        return "#txl.blocked<sizePerThread = %s, threadsPerWarp = %s, warpsPerCTA = %s, order = %s>" % (
            _arr(self.size_per_thread), _arr(self.threads_per_warp), _arr(self.warps_per_cta), _arr(self.order))


@dataclass
class SliceLayout(_Layout):
    dim: int
    parent: object

    def to_ir(self):
        p = self.parent.to_ir() if isinstance(self.parent, _Layout) else None
        return None if p is None else "#txl.slice<dim = %d, parent = %s>" % (self.dim, p)


@dataclass
class DistributedLinearLayout(_Layout):
    reg_bases: List[List[int]]
    lane_bases: List[List[int]]
    warp_bases: List[List[int]]
    block_bases: List[List[int]]
    shape: List[int]


@dataclass
class NVMMADistributedLayout(_Layout):
    version: List[int]
    warps_per_cta: List[int]
    instr_shape: List[int]
    ctas_per_cga: Optional[List[int]] = None
    cta_split_num: Optional[List[int]] = None
    cta_order: Optional[List[int]] = None

    def to_ir(self):
        major = self.version[0] if isinstance(self.version, (list, tuple)) else self.version
        return "#txl.nvmma<version = %d, warpsPerCTA = %s, instrShape = %s>" % (
            int(major), _arr(self.warps_per_cta), _arr(self.instr_shape))


@dataclass
class DotOperandLayout(_Layout):
    operand_index: int
    parent: object
    k_width: int

    def to_ir(self):
        p = self.parent.to_ir() if isinstance(self.parent, _Layout) else None
        return None if p is None else "#txl.dot_operand<opIdx = %d, parent = %s, kWidth = %d>" % (
            self.operand_index, p, self.k_width)


@dataclass
class NVMMASharedLayout(_Layout):
    swizzle_byte_width: int
    element_bitwidth: int
    rank: int = 2
    transposed: bool = False
    fp4_padded: bool = False
    ctas_per_cga: Optional[List[int]] = None
    cta_split_num: Optional[List[int]] = None
    cta_order: Optional[List[int]] = None

    @staticmethod
    def get_default_for(block_shape, dtype, transposed=False, fp4_padded=False):
        from .core import _unwrap, default_swizzle
        dtype = _unwrap(dtype)
        shape = [int(_unwrap(s)) for s in block_shape]
        if transposed:
            shape = shape[1:] + shape[:1]
        swizzle = default_swizzle(shape, dtype)
        outer = 1
        for s in shape[:-1]:
            outer *= s
        if len(shape) < 2 or outer < 8:  # Triton's rule: no swizzle for a rank-1 tile or fewer than 8 rows (a 1-D
            swizzle = 0                  # TMA box then moves the whole tile in one copy, not one per 128 bytes)
        return NVMMASharedLayout(swizzle, dtype.primitive_bitwidth, len(shape), transposed, fp4_padded)

    def to_ir(self):
        return "#txl.nvmma_shared<swizzle = %d%s>" % (self.swizzle_byte_width,
                                                      ", transposed = true" if self.transposed else "")


@dataclass
class SwizzledSharedLayout(_Layout):
    vec: int
    per_phase: int
    max_phase: int
    order: List[int] = field(default_factory=lambda: [1, 0])
    ctas_per_cga: Optional[List[int]] = None
    cta_split_num: Optional[List[int]] = None
    cta_order: Optional[List[int]] = None
