"""Triton's ``triton.tools.tensor_descriptor``: ``TensorDescriptor``, a host-side TMA descriptor argument.

It is ``txl.TensorDescriptor`` itself (one class: ``isinstance`` checks and the launch fast path see the same
type), with Triton's constructor ``TensorDescriptor(base, shape, strides, block_shape, padding="zero")`` and
``TensorDescriptor.from_tensor(tensor, block_shape, padding="zero")``, so ::

    from triton.tools.tensor_descriptor import TensorDescriptor

ports as ``from txl.tools.tensor_descriptor import TensorDescriptor``. ``block_shape`` is the kernel's tile and may be
changed until the launch (an autotuner's ``pre_hook`` sets it per config); the CUtensorMap is encoded by the launcher
with the box the compiler chose. ``padding="nan"`` is not supported yet (txl fills out-of-bounds elements with zero).
"""

from ..jit import TensorDescriptor

__all__ = ["TensorDescriptor"]
