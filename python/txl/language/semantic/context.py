"""The kernel being compiled: the active ``Context`` (the IR builder, the launch options and a little state shared by
the whole kernel, such as the wgmma groups still in flight) and how the other modules reach it."""

import contextlib

from ...errors import UnsupportedError


_current = []


def current():
    return _current[-1] if _current else None


@contextlib.contextmanager
def activate(ctx):
    _current.append(ctx)
    try:
        yield ctx
    finally:
        _current.pop()


class Context:
    """What the semantic functions need while one kernel is compiled."""

    def __init__(self, builder, num_warps, num_warpgroups, target, codegen=None):
        self.builder = builder
        self.num_warps = num_warps  # warps per role: 4 (a warpgroup, TXL), or 8/16 whose warpgroups split M
        self.num_warpgroups = num_warpgroups
        self.target = target
        self.codegen = codegen  # the CodeGenerator: inlining combine functions, re-binding names after waits
        self.dots = []  # every txl.dot op (marked async at the end when a txl.dot_wait follows it)
        self.deferred_errors = []
        self.debug = False  # device assertions are compiled in (Triton's debug: @txl.jit(debug=True), TRITON_DEBUG=1)


def _ctx():
    c = current()
    if c is None:
        raise RuntimeError("txl language functions can only be used inside a @txl.jit function")
    return c


def _b():
    return _ctx().builder


def unsupported(what, fix=None):
    raise UnsupportedError("%s is not supported yet by txl (the dialect has no operation for it)" % what, fix)


def _reads(op, value):
    """True if ``op`` or an op nested in its regions uses ``value``."""
    if any(v is value for v in op.operands):
        return True
    return any(_reads(o, value) for r in op.regions for blk in r.blocks for o in blk.ops)
