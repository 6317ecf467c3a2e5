"""``gluon.nvidia.hopper.TensorDescriptor``: Gluon's host TMA descriptor on txl's (txl.TensorDescriptor).

Gluon's descriptor carries the shared layout of the tiles it moves (``layout``, an ``NVMMASharedLayout``); txl's carries
their swizzle, which the kernel's signature then names (``tensordesc<f16[64, 64], swizzle=128>``), so the buffers a
Gluon kernel fills through it get that swizzle."""

from ....jit import TensorDescriptor as _TxlDescriptor
from ..language._layouts import NVMMASharedLayout

__all__ = ["TensorDescriptor"]


class TensorDescriptor(_TxlDescriptor):
    def __init__(self, base, shape, strides, block_shape, layout=None, padding="zero", round_f32_to_tf32=False):
        swizzle = None
        if layout is not None:
            if not isinstance(layout, NVMMASharedLayout):
                raise TypeError("TensorDescriptor(layout=%r): a TMA descriptor's layout is an NVMMASharedLayout"
                                % (layout,))
            if layout.transposed:
                raise ValueError("TensorDescriptor(layout=NVMMASharedLayout(transposed=True)): txl's TMA tiles are "
                                 "row-major; describe the transposed tensor and .permute the buffer in the kernel")
            swizzle = int(layout.swizzle_byte_width)
        super().__init__(base, shape, strides, block_shape, padding, swizzle=swizzle)
        self.layout = layout if layout is not None else None

    @classmethod
    def from_tensor(cls, tensor, block_shape, layout=None, padding="zero"):
        return cls(tensor, list(tensor.shape), list(tensor.stride()), block_shape, layout, padding)
