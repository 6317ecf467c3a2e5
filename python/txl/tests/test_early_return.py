"""Early returns without a value (``if pid >= n: return``, issue 14) become structured control flow: what follows
the `if` moves into the branch that does not return. Returns inside loops and returns of values inside branches
stay refused with a fix that fits them."""

import pytest

import txl
import txl.language as tl
from txl.errors import CompilationError

from .dsl_helpers import check, check_not, compile_ptx, ir_of


@txl.jit
def _guarded(x_ptr, n, FLAG: tl.constexpr):
    pid = tl.program_id(0)
    if pid >= n:
        return
    if FLAG:
        return
    offs = pid * 64 + tl.arange(0, 64)
    if pid == 3:
        if n > 5:
            return
        tl.store(x_ptr + offs, 2.0)
    tl.store(x_ptr + offs, 1.0)
    return


def test_early_returns_become_branches():
    text = ir_of(_guarded, {"x_ptr": "*fp32", "n": "i32"}, {"FLAG": False})
    # (an scf.if whose then-region only yields: the early return's branch)
    check(text, r"arith.cmpi sge, %pid, %n", r'"scf.if"\(%\d+\) \(\{\n\s*scf.yield\n\s*\}, \{',
          r"arith.cmpi eq, %pid", r"scf.if", r"arith.cmpi sgt, %n", r'"scf.if"\(%\d+\) \(\{\n\s*scf.yield\n\s*\}, \{',
          r"dense<2.0", r"txl.store", r"dense<1.0", r"txl.store", r"\}, \{", r"dense<1.0", r"txl.store")
    assert text.count("txl.store") == 3  # the final store runs on both paths that reach it
    compile_ptx(text)
    # A compile-time return drops the rest of the kernel.
    check_not(ir_of(_guarded, {"x_ptr": "*fp32", "n": "i32"}, {"FLAG": True}), r"txl.store")


@txl.jit
def _helper(x_ptr, i):
    if i < 0:
        return
    tl.store(x_ptr + i, 1.0)


@txl.jit
def _calls_helper(x_ptr, n):
    _helper(x_ptr, n)
    tl.store(x_ptr, 2.0)


def test_early_return_in_a_helper_returns_from_the_helper_only():
    text = ir_of(_calls_helper, {"x_ptr": "*fp32", "n": "i32"})
    check(text, r"arith.cmpi slt, %n", r'"scf.if"\(%\d+\) \(\{\n\s*scf.yield\n\s*\}, \{', r"txl.store", r"\}",
          r"txl.store")


@txl.jit
def _value_in_branch(x):
    if x > 0:
        return x
    return -x


@txl.jit
def _uses_value(x_ptr, n):
    tl.store(x_ptr, _value_in_branch(n).to(tl.float32))


def test_returning_a_value_in_a_branch_is_still_refused():
    with pytest.raises(CompilationError) as info:
        ir_of(_uses_value, {"x_ptr": "*fp32", "n": "i32"})
    assert "returning a value inside an if/for/while" in info.value.message
    assert "return it at the end" in info.value.fix
