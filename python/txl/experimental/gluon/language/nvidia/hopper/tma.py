"""Gluon's ``tma`` module on txl's TMA ops: ``async_copy_global_to_shared`` is ``txl.tma_load``,
``async_copy_shared_to_global`` ``txl.tma_store``, ``store_wait`` ``txl.tma_store_wait``."""

from ......errors import SemanticError
from ......language import txl_builtins as _txl
from ......language.core import builtin, _unwrap
from ..._core import smem_tensor
from ..._membar import sync_before
from .mbarrier import _bar

__all__ = ["async_copy_global_to_shared", "async_copy_shared_to_global", "store_wait", "tensor_descriptor",
           "async_load", "async_store"]


def _no_pred(pred, what):
    p = _unwrap(pred)
    if not (p is True or (isinstance(p, int) and p == 1)):
        raise SemanticError("%s(pred=...): txl's TMA copies are not predicated" % what, "put the copy under `if pred:`")


@builtin
def async_copy_global_to_shared(tensor_desc, coord, barrier, result, pred=True, multicast=False):
    _no_pred(pred, "tma.async_copy_global_to_shared")
    if _unwrap(multicast):
        raise SemanticError("tma.async_copy_global_to_shared(multicast=True): txl has no TMA multicast yet")
    view = smem_tensor(result, "tma.async_copy_global_to_shared")
    sync_before("tma_write", view)
    _txl.tma_load(view, tensor_desc, coord, _bar(barrier, "tma.async_copy_global_to_shared"))


@builtin
def async_copy_shared_to_global(tensor_desc, coord, src):
    view = smem_tensor(src, "tma.async_copy_shared_to_global")
    sync_before("async_read", view)
    _txl.tma_store(view, tensor_desc, coord)


@builtin
def store_wait(pendings):
    _txl.tma_store_wait(pendings)


async_load = async_copy_global_to_shared
async_store = async_copy_shared_to_global


class tensor_descriptor:
    """Gluon's in-kernel descriptor type name (annotations); descriptors are kernel arguments in txl."""
