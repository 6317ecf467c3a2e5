"""Ready-made operators on torch tensors, built on the DSL kernels in ``txl.kernels``.

``txl.ops.flash_attention(q, k, v, causal=False, sm_scale=None, return_lse=False, kernel="fa3")``. torch is imported
when an operator is first called, not when ``txl`` or ``txl.ops`` is imported.
"""

from .attention import KERNELS, flash_attention  # noqa: F401
