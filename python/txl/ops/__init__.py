"""Ready-made operators on torch tensors, built on the DSL kernels in ``txl.kernels``.

``txl.ops.flash_attention(q, k, v, causal=False, sm_scale=None, return_lse=False, kernel="fa3", deterministic=False,
window=(-1, -1), num_sink_tokens=0)`` and ``txl.ops.flash_attention_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k,
max_seqlen_q, max_seqlen_k, ...)`` (packed sequences), ``txl.ops.apply_rope``,
``txl.ops.nsa_selection_attention(q, k, v, block_indices, block_size=64, cu_seqlens=None)`` (NSA's selected-block
attention) and ``txl.ops.mla_decode(q, kv_cache, block_table, cache_seqlens)`` (paged MLA decoding). torch is imported when an operator is first called, not when
``txl`` or ``txl.ops`` is imported.
"""

from .attention import KERNELS, flash_attention  # noqa: F401
from .attention_fp8 import flash_attention_fp8  # noqa: F401
from .attention_varlen import flash_attention_varlen  # noqa: F401
from .kvcache import flash_attention_with_kvcache  # noqa: F401
from .mla_decode import mla_decode  # noqa: F401
from .nsa import nsa_selection_attention  # noqa: F401
from .rope import apply_rope  # noqa: F401
