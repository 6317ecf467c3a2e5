"""``gluon.language.nvidia.blackwell``: importable names; tensor memory and tcgen05 MMAs are refused with located
errors (txl's spelling is ``txl.tmem_alloc`` / ``txl.dotx`` in a @txl.jit kernel). TMA and mbarriers are Hopper's."""

from ......compiler.errors import SemanticError
from ......language.core import builtin
from ..hopper import fence_async_shared, mbarrier, tma  # noqa: F401

__all__ = ["TensorMemoryLayout", "allocate_tensor_memory", "tcgen05_mma", "tcgen05_commit", "get_tmem_reg_layout",
           "fence_async_shared", "mbarrier", "tma"]


class TensorMemoryLayout:
    def __init__(self, block, col_stride=1, cta_split_num=None, two_ctas=False):
        self.block, self.col_stride = block, col_stride


def _refused(name):
    @builtin
    def f(*args, **kwargs):
        raise SemanticError("%s (Blackwell tensor memory / tcgen05) is not supported by txl's Gluon" % name,
                            "write the kernel with txl.tmem_alloc / txl.dotx / txl.tmem_load in a @txl.jit kernel "
                            "(docs/gluon.md)")
    f.__name__ = name
    return f


allocate_tensor_memory = _refused("allocate_tensor_memory")
tcgen05_mma = _refused("tcgen05_mma")
tcgen05_commit = _refused("tcgen05_commit")
tcgen05_copy = _refused("tcgen05_copy")


def get_tmem_reg_layout(*args, **kwargs):
    raise ValueError("get_tmem_reg_layout: txl's Gluon has no tensor memory (docs/gluon.md)")
