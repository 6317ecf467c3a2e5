"""``txl.profiler.language``: TXL's in-kernel proton scopes (``import triton.profiler.language as pl``), as no-ops.

``pl.enter_scope("name")`` / ``pl.exit_scope("name")`` / ``with pl.scope("name"):`` inside a ``@txl.jit`` kernel
compile to nothing (txl has no proton instrumentation); the host calls TXL's tutorials make at import
(``pl.enable_semantic("triton")``, ``pl.enable_semantic_obj(TXLSemantic)``) are accepted. The frontend treats
Triton's own ``triton.profiler.language`` scopes the same way, so a kernel that keeps that import compiles too.
"""

from ..language.core import builtin

_SEMANTICS = {"triton"}


def enable_semantic(semantic_name):
    _SEMANTICS.add(semantic_name)


def disable_semantic(semantic_name):
    _SEMANTICS.discard(semantic_name)


def enable_semantic_obj(semantic_obj):
    """TXL's hook: registers its ``TXLSemantic`` with proton. Accepted; there is nothing to register in txl."""
    _SEMANTICS.add(getattr(semantic_obj, "__name__", repr(semantic_obj)))


@builtin
def enter_scope(name):
    return None


@builtin
def exit_scope(name):
    return None


@builtin
def record(is_start, scope_name):
    return None


class scope:
    """``with pl.scope("name"):`` inside a kernel: the body is compiled as if the ``with`` were not there."""

    __txl_null_context__ = True

    def __init__(self, name, _semantic=None):
        self.name = name

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
