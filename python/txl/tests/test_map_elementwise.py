"""tl.map_elementwise on the CPU: txl applies the @jit function to the whole broadcast tiles, so a function without
data-dependent control flow gives Triton's values (compiled here to PTX through ptxas; gpu/test_map_elementwise_gpu.py
checks them against torch); an `if` on an element's value is a located error at that line, pack > 1 a located
refusal."""

import pytest

import txl
import txl.language as tl
from txl.errors import CompilationError

from .dsl_helpers import TXLC, _need, compile_ptx, ir_of

THIS = __file__.replace(".pyc", ".py")


@txl.jit
def _clamp_scale(x, lo, s):
    return tl.minimum(tl.maximum(x, lo), 1.0) * s


@txl.jit
def _sum_diff(a, b):
    return a + b, a - b


@txl.jit
def _branchy(x):
    if x > 0:
        return x
    return -x


@txl.jit
def map_kernel(X, S, Y, Z, W, M: tl.constexpr, N: tl.constexpr):
    """A 2-D tile, a row of scales and a scalar broadcast together; a function of two results (a tuple)."""
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(X + rows * N + cols)
    s = tl.load(S + tl.arange(0, N))[None, :]
    tl.store(Y + rows * N + cols, tl.map_elementwise(_clamp_scale, x, -0.5, s))
    p, q = tl.map_elementwise(_sum_diff, x, s)
    tl.store(Z + rows * N + cols, p)
    tl.store(W + rows * N + cols, q)


SIG = {"X": "*fp32", "S": "*fp32", "Y": "*fp32", "Z": "*fp32", "W": "*fp32"}


def test_map_elementwise_compiles_with_ptxas():
    text = ir_of(map_kernel, SIG, {"M": 32, "N": 64})
    _need(TXLC)
    ptx, _ = compile_ptx(text)
    assert "max.f32" in ptx and "min.f32" in ptx
    _, log = compile_ptx(text, emit="cubin")  # through ptxas, without spills
    assert "spill" not in log.lower(), log


@txl.jit
def _bad(X, WHICH: tl.constexpr):
    x = tl.load(X + tl.arange(0, 64))
    if WHICH == "branch":
        y = tl.map_elementwise(_branchy, x)
    elif WHICH == "pack":
        y = tl.map_elementwise(_branchy, x, pack=2)
    else:
        y = tl.map_elementwise(tl.abs, x)
    tl.store(X + tl.arange(0, 64), y)


@pytest.mark.parametrize("which,match", [
    ("branch", r"the condition is a \[64\] tile; `if`/`while` need a scalar \(in @txl.jit function _branchy\)"),
    ("pack", r"tl.map_elementwise with pack=2 is not supported yet by txl"),
    ("not_jit", r"tl.map_elementwise needs a @txl.jit function to map"),
])
def test_unsupported_forms_are_located_errors(which, match):
    with pytest.raises(CompilationError, match=match) as info:
        ir_of(_bad, {"X": "*fp32"}, {"WHICH": which})
    assert info.value.file == THIS and info.value.line is not None
