"""Host-side tools: ``txl.tools.tensor_descriptor`` (Triton's ``triton.tools.tensor_descriptor``: the host
``TensorDescriptor``) and ``precompile.py`` (fill a kernel cache for a GPU host without the compiler; run it as a
script)."""

from . import tensor_descriptor  # noqa: F401
