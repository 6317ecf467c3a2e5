"""``txl.set_allocator``: who allocates the global scratch memory a launch needs (Triton's allocator protocol).

A kernel that builds TMA descriptors on the device (``tl.make_tensor_descriptor``) writes them to global scratch
memory, ``bytes per CTA x CTAs`` of it per launch (the sidecar's ``global_scratch`` parameter). Triton asks the
allocator set with ``triton.set_allocator(fn)`` for it; txl does the same::

    def alloc_fn(size: int, alignment: int, stream: Optional[int]):
        return torch.empty(size, device="cuda", dtype=torch.int8)

    txl.set_allocator(alloc_fn)

``fn(size, alignment, stream)`` gets the number of bytes, their required alignment (bytes) and the CUstream handle
(an int) the launch goes to, and returns a buffer with ``data_ptr()`` (a CUDA tensor), which the launcher keeps
alive until the launch is queued. Unlike Triton, whose default allocator raises, txl's default (also what
``set_allocator(None)`` restores) allocates with torch's caching allocator on the launch's device. As in Triton,
the allocator is a ``contextvars.ContextVar``: it applies to the thread (or async context) that set it; others use
the default.
"""

import contextvars

# Bytes of alignment the scratch base must have: every CTA's share is a multiple of 128 bytes, and the TMA
# descriptors written there need 64.
GLOBAL_SCRATCH_ALIGN = 128

_allocator = contextvars.ContextVar("txl_allocator", default=None)


def set_allocator(allocator):
    """Make ``allocator(size, alignment, stream) -> buffer`` provide the global scratch of later launches on this
    thread (``None``: txl's default, torch's caching allocator)."""
    if allocator is not None and not callable(allocator):
        raise TypeError("txl.set_allocator needs a callable alloc_fn(size: int, alignment: int, stream: int) "
                        "returning a buffer with data_ptr() (e.g. a torch tensor), or None for txl's default; got %r"
                        % (allocator,))
    _allocator.set(allocator)


def get_allocator():
    """The allocator set with ``set_allocator`` on this thread, or None (txl's default)."""
    return _allocator.get()


def _nbytes(buf):
    """Bytes of a returned buffer when it says (a torch tensor does), else None."""
    try:
        return int(buf.numel()) * int(buf.element_size())
    except Exception:
        nbytes = getattr(buf, "nbytes", None)
        return int(nbytes) if isinstance(nbytes, int) else None


def allocate(nbytes, alignment, stream, default):
    """Global scratch of ``nbytes`` for a launch on CUstream ``stream`` (an int): from the allocator set with
    ``set_allocator``, checked, else from ``default(nbytes)``. Returns the buffer (keep it alive until the launch is
    queued) and its device address."""
    fn = _allocator.get()
    if fn is None:
        buf = default(nbytes)
        return buf, int(buf.data_ptr())
    buf = fn(nbytes, alignment, stream)
    where = "the allocator set with txl.set_allocator (%r), asked for %d bytes aligned to %d" % (fn, nbytes, alignment)
    ptr = getattr(buf, "data_ptr", None)
    if not callable(ptr):
        raise TypeError("%s returned %r, which has no data_ptr(): return a CUDA tensor (e.g. torch.empty(size, "
                        "dtype=torch.int8, device='cuda'))" % (where, type(buf).__name__))
    addr = int(ptr())
    if addr == 0 or addr % alignment:
        raise ValueError("%s returned a buffer at 0x%x, which is %s: return memory aligned to %d bytes (torch's "
                         "allocator aligns to 512)" % (where, addr, "null" if addr == 0 else "not %d-byte aligned"
                                                       % alignment, alignment))
    size = _nbytes(buf)
    if size is not None and size < nbytes:
        raise ValueError("%s returned only %d bytes: the kernel writes %d" % (where, size, nbytes))
    return buf, addr
