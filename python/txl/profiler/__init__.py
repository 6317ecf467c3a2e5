"""``txl.profiler``: the host side of TXL's proton profiler (``import triton.profiler as proton`` in TXL's
tutorials), as no-ops.

TXL ships a patched proton whose instrumentation records per-warpgroup scopes inside kernels. txl has no
instrumentation pass, so a TXL program that profiles ports by changing ``triton.profiler`` to ``txl.profiler``
(and ``triton.profiler.language`` to ``txl.profiler.language``): ``proton.start`` / ``finalize`` / ``activate`` /
``deactivate`` / ``scope`` do nothing (``start`` warns once that no profile is written), and the in-kernel scopes
of ``txl.profiler.language`` compile to nothing. Time kernels with ``txl.testing.do_bench`` or CUDA events.
"""

import contextlib
import functools
import warnings

from . import language  # noqa: F401

_warned = False
_session = -1


def start(name=None, *, context="shadow", data="tree", backend=None, mode=None, hook=None):
    """Proton's ``start``: returns a session id; nothing is recorded (see the module docstring)."""
    global _warned, _session
    if not _warned:
        warnings.warn("txl.profiler.start(%r): txl has no proton instrumentation; no profile is written (time "
                      "kernels with txl.testing.do_bench)" % (name,), stacklevel=2)
        _warned = True
    _session += 1
    return _session


def finalize(session=None, output_format=None):
    return None


def activate(session=None):
    return None


def deactivate(session=None, flushing=False):
    return None


def enter_scope(name, *, triton_op=False, metrics=None):
    return None


def exit_scope(name=None, *, triton_op=False, metrics=None):
    return None


class scope(contextlib.ContextDecorator):
    """``with proton.scope("name"):`` / ``@proton.scope("name")`` on the host: no-op."""

    def __init__(self, name, metrics=None):
        self.name = name
        self.metrics = metrics

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


cpu_timed_scope = scope


def profile(func=None, *, name=None, context="shadow", data="tree", backend=None, mode=None, hook=None):
    """Proton's ``@proton.profile`` decorator: runs the function unprofiled."""
    if func is None:
        return functools.partial(profile, name=name, context=context, data=data, backend=backend, mode=mode,
                                 hook=hook)
    return func
