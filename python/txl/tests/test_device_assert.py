"""tl.device_assert and run-time ``assert``: compiled in only with debug (@txl.jit(debug=True), TRITON_DEBUG=1 or
TXL_DEBUG=1), as in Triton, as one txl.assert per check; convert-txl-to-nvvm lowers it to a branch to CUDA's
__assertfail with the user's file, line and function. The GPU side (the message, the stop, nothing without
debug) is python/txl/tests/gpu/test_device_assert_gpu.py."""

import txl
import txl.language as tl

from .dsl_helpers import check, compile_ptx, ir_of, verify
from .gpu import device_assert_child as child

SIG = {"x_ptr": "*i32", "y_ptr": "*i32", "n": "i32", "limit": "i32"}


def test_debug_kernel_has_both_checks():
    text = ir_of(child.checked_copy, SIG, {"BLOCK": 256})
    check(text,
          r'txl.assert %\w+, "x below the limit" : tensor<256xi1> loc\(".*device_assert_child.py":16:',
          r'txl.assert %\w+, "x is non-negative" : tensor<256xi1> loc\(".*device_assert_child.py":17:')
    verify(text)
    ptx, _ = compile_ptx(text)
    assert ".extern .func __assertfail" in ptx, ptx[:2000]
    assert ptx.count("call.uni __assertfail,") == 2, ptx

    def as_bytes(text):  # how PTX spells a constant string: its bytes (the trailing NUL is left implicit)
        return "{%s}" % ", ".join(str(b) for b in text.encode())

    assert as_bytes("x below the limit") in ptx and as_bytes("checked_copy") in ptx
    assert as_bytes(child.__file__) in ptx
    compile_ptx(text, emit="cubin")  # ptxas resolves __assertfail (the driver provides it)


def test_without_debug_nothing_is_emitted():
    text = ir_of(child.unchecked_copy, SIG, {"BLOCK": 256})
    assert "txl.assert" not in text


def test_environment_turns_checks_on(monkeypatch):
    monkeypatch.setenv("TRITON_DEBUG", "1")
    text = ir_of(child.unchecked_copy, SIG, {"BLOCK": 256})
    check(text, r'txl.assert %\w+, "x below the limit" : tensor<256xi1>')


@txl.jit(debug=True)
def _scalar_and_quotes(x_ptr):
    x = tl.load(x_ptr)
    tl.device_assert(x != 0, 'say "hi" {braces}\\n')


def test_scalar_condition_and_escaped_message():
    text = ir_of(_scalar_and_quotes, {"x_ptr": "*fp32"})
    check(text, r'txl.assert %\w+, "say \\"hi\\" \{braces\}\\\\n" : i1')
    verify(text)
    compile_ptx(text)
