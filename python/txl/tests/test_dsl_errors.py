"""User errors in @txl.jit functions: a CompilationError naming file:line:col, showing the source line with a
caret, saying what was expected and how to fix it -- never a frontend traceback."""

import pytest

import txl
import txl.language as tl
from txl.errors import CompilationError

from .dsl_helpers import ir_of

THIS = __file__.replace(".pyc", ".py")


def _error(fn, sig=None, consts=None, **opts):
    with pytest.raises(CompilationError) as info:
        ir_of(fn, sig or {}, consts or {}, **opts)
    e = info.value
    assert e.file == THIS and e.line is not None and e.col is not None
    text = str(e)
    assert text.startswith("%s:%d:%d: error: " % (THIS, e.line, e.col)), text
    assert "^" in text
    # No frontend frames: the traceback starts at ast_to_ir's caller.
    tb = info.tb
    frames = []
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append((code.co_filename, code.co_name))
        tb = tb.tb_next
    inner = [f for f in frames if "/txl/compiler/" in f[0] or "/txl/language/" in f[0]]
    assert inner == [(inner[0][0], "ast_to_ir")], frames
    return e, text


@txl.jit
def _bad_broadcast(K_ptr, l0, d0, s_L, s_D, BLOCK_L: tl.constexpr, BLOCK_D: tl.constexpr):
    offs_L = tl.arange(0, BLOCK_L)
    offs_D = tl.arange(0, BLOCK_D)
    k_ptrs = K_ptr + (l0 + offs_L) * s_L + (d0 + offs_D)[None, :] * s_D
    tl.store(k_ptrs, 0.0)


def test_broadcast_error_names_shapes_and_suggests_column():
    e, text = _error(_bad_broadcast, {"K_ptr": "*bf16", "l0": "i32", "d0": "i32", "s_L": "i32", "s_D": "i32"},
                     {"BLOCK_L": 128, "BLOCK_D": 64})
    assert "[128]" in e.message and "[1, 64]" in e.message
    assert "offs_L[:, None]" in e.fix
    assert "k_ptrs = K_ptr + (l0 + offs_L) * s_L + (d0 + offs_D)[None, :] * s_D" in text
    with open(THIS) as f:
        assert "K_ptr + (l0 + offs_L)" in f.read().splitlines()[e.line - 1]


@txl.jit
def _uses_with(x_ptr, n):
    with open("f"):
        pass


@txl.jit
def _uses_try(x_ptr, n):
    try:
        tl.store(x_ptr, 1.0)
    except Exception:
        pass


@txl.jit
def _uses_lambda(x_ptr, n):
    f = lambda v: v + 1  # noqa: E731
    tl.store(x_ptr, f(1.0))


@txl.jit
def _uses_listcomp(x_ptr, n):
    xs = [tl.load(x_ptr + i) for i in range(n)]
    tl.store(x_ptr, xs[0])


@txl.jit
def _uses_break(x_ptr, n):
    for i in range(n):
        if i > 3:
            break


@pytest.mark.parametrize("fn,word", [(_uses_with, "`with`"), (_uses_try, "`try`"), (_uses_lambda, "lambda"),
                                     (_uses_listcomp, "list comprehension"), (_uses_break, "`break`")])
def test_unsupported_python_constructs(fn, word):
    e, text = _error(fn, {"x_ptr": "*fp32", "n": "i32"})
    assert word in e.message
    assert e.fix


@txl.jit
def _undefined(x_ptr):
    tl.store(x_ptr, y)  # noqa: F821


def test_undefined_name():
    e, _ = _error(_undefined, {"x_ptr": "*fp32"})
    assert "`y` is not defined" in e.message


@txl.jit
def _loop_type_change(x_ptr, n):
    acc = tl.zeros([64], tl.float16)
    for i in range(n):
        acc = acc + tl.load(x_ptr + tl.arange(0, 64))
    tl.store(x_ptr + tl.arange(0, 64), acc)


def test_loop_carried_type_change():
    e, _ = _error(_loop_type_change, {"x_ptr": "*fp32", "n": "i32"})
    assert "loop-carried variable `acc`" in e.message and "tensor<64xf16>" in e.message
    assert "tensor<64xf32>" in e.message and "before the loop" in e.fix


@txl.jit
def _multistage_misuse(d, x):
    buf = txl.smem_alloc([64, 64], tl.bfloat16, num_stages=2)
    bar = txl.mbar_alloc(1)
    txl.tma_load(buf, d, [x, 0], bar)


def test_multistage_buffer_needs_get_buffer():
    e, _ = _error(_multistage_misuse, {"d": "tensordesc<bf16[64, 64]>", "x": "i32"})
    assert "2-stage" in e.message and "txl.get_buffer" in e.fix


@txl.jit
def _bitonic_merge(x_ptr, M):
    tl.store(x_ptr + tl.arange(0, 64), tl.bitonic_merge(tl.load(x_ptr + tl.arange(0, 64)), 8))


@pytest.mark.parametrize("fn,sig,what", [(_bitonic_merge, {"x_ptr": "*fp32", "M": "i32"}, "tl.bitonic_merge")])
def test_unsupported_constructs(fn, sig, what):
    e, _ = _error(fn, sig)
    assert what in e.message and "not supported yet" in e.message


@txl.jit
def _role_in_and(x):
    if txl.is_warpgroup([0]) and x > 0:
        txl.reg_dealloc(40)


def test_is_warpgroup_must_be_the_whole_condition():
    e, _ = _error(_role_in_and, {"x": "i32"}, num_warpgroups=2)
    assert "whole condition" in e.message


def test_missing_signature_and_constexpr():
    e, _ = _error(_role_in_and, {}, num_warpgroups=2)
    assert "no signature type" in e.message and "'i32'" in e.fix
    e, _ = _error(_bad_broadcast, {"K_ptr": "*bf16", "l0": "i32", "d0": "i32", "s_L": "i32", "s_D": "i32"},
                  {"BLOCK_L": 128})
    assert "BLOCK_D" in e.message


@txl.jit
def _static_assert_fails(x_ptr, B: tl.constexpr):
    tl.static_assert(B % 64 == 0, "B must be a multiple of 64")


def test_static_assert():
    e, _ = _error(_static_assert_fails, {"x_ptr": "*fp32"}, {"B": 100})
    assert "B must be a multiple of 64" in e.message


@txl.jit
def _early_return(x_ptr, n):
    for i in range(n):
        if i > 3:
            return
        tl.store(x_ptr + i, 1.0)


def test_return_inside_control_flow():
    # An early return inside an `if` compiles (test_early_return.py); inside a loop it is refused.
    e, _ = _error(_early_return, {"x_ptr": "*fp32", "n": "i32"})
    assert "`return` inside a for/while loop" in e.message


@txl.jit
def _helper_with_error(x):
    return x + tl.arange(0, 64)[None, :] + tl.arange(0, 32)[:, None] * tl.arange(0, 16)


@txl.jit
def _calls_helper(x_ptr):
    tl.store(x_ptr, _helper_with_error(1))


def test_error_inside_called_function_points_there():
    e, text = _error(_calls_helper, {"x_ptr": "*fp32"})
    assert "in @txl.jit function _helper_with_error" in text and "[1, 64]" in e.message and "[32, 16]" in e.message
    assert "return x + tl.arange" in text


def test_device_descriptor_of_a_scalar():
    @txl.jit
    def k(x_ptr):
        d = tl.make_tensor_descriptor(1, [64, 64], [64, 1], [64, 64])

    e, _ = _error(k, {"x_ptr": "*bf16"})
    assert "make_tensor_descriptor needs a global pointer as base" in e.message


@txl.jit
def _too_much_smem(x_ptr, N: tl.constexpr):
    buf = txl.smem_alloc([N, 128], tl.bfloat16, num_stages=4)
    t = txl.smem_load(txl.get_buffer(buf, 0))
    tl.store(x_ptr + tl.arange(0, 128), tl.sum(t.to(tl.float32), 0))


def test_every_op_carries_its_source_location():
    text = ir_of(_too_much_smem, {"x_ptr": "*fp32"}, {"N": 256})
    line = _too_much_smem.starting_line_number + 2
    assert 'txl.smem_alloc : !txl.smem<256x128xbf16, stages = 4> loc(%s:%d:11)' % (
        __import__("json").dumps(THIS), line) in text, text


def test_compiler_errors_point_at_the_kernel_source():
    # Shared memory over the H100's 227 KB is found by the compiler, not the frontend: its diagnostic still
    # names the user's file:line:col and shows the line, because every op carries the Python location.
    from txl.compiler.compiler import TxlCompileError, find_txlc
    from .dsl_helpers import TXLC, _need

    _need(TXLC)
    if find_txlc() is None:
        pytest.skip("txlc not found")
    with pytest.raises(TxlCompileError) as info:
        txl.compile(_too_much_smem, signature={"x_ptr": "*fp32"}, constexprs={"N": 256})
    text = str(info.value)
    line = _too_much_smem.starting_line_number + 2
    assert "%s:%d:11: error: 'txl.smem_alloc' op allocates 262144 bytes, more than the 232448 bytes (227 KB)" % (
        THIS, line) in text, text
    assert "use fewer stages or smaller tiles" in text
    assert "buf = txl.smem_alloc([N, 128], tl.bfloat16, num_stages=4)" in text
