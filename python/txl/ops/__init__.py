"""Ready-made operators on torch tensors, built on the DSL kernels in ``txl.kernels``.

``txl.ops.flash_attention(q, k, v, causal=False, sm_scale=None, return_lse=False, kernel="fa3", deterministic=False,
window=(-1, -1), num_sink_tokens=0)`` and ``txl.ops.flash_attention_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k,
max_seqlen_q, max_seqlen_k, ...)`` (packed sequences), ``txl.ops.apply_rope``,
``txl.ops.nsa_selection_attention(q, k, v, block_indices, block_size=64, cu_seqlens=None)`` (NSA's selected-block
attention) and ``txl.ops.mla_decode(q, kv_cache, block_table, cache_seqlens)`` (paged MLA decoding). txl.ops does not
import torch itself (a machine without torch can still precompile kernels); torch is imported when an operator is
first called.

The ops are also torch custom ops (``torch.ops.txl.*``), which torch.compile traces. torch.compile cannot trace
their registration (dynamo refuses torch.library's schema inference), so they are registered when ``txl.ops`` is
imported with torch already imported, or by ``txl.ops.register_torch_ops()`` (else an op first reached inside a
compiled function stops dynamo at ``infer_schema``: import torch before txl.ops, or call it).
"""

import sys


from .attention import KERNELS, flash_attention  # noqa: F401
from .attention_fp8 import flash_attention_fp8  # noqa: F401
from .attention_varlen import flash_attention_varlen  # noqa: F401
from .kvcache import flash_attention_with_kvcache  # noqa: F401
from .mla_decode import mla_decode  # noqa: F401
from .nsa import nsa_selection_attention  # noqa: F401
from .rope import apply_rope  # noqa: F401


def register_torch_ops():
    """Register every ``torch.ops.txl.*`` custom op now (imports torch); idempotent."""
    # (by module path: the package's names mla_decode etc. are the functions, not their modules)
    for name in ("attention", "attention_fp8", "attention_varlen", "kvcache", "mla_decode"):
        sys.modules[__name__ + "." + name]._custom_op()


if "torch" in sys.modules:
    register_torch_ops()
