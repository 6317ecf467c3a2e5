"""Wrong programs are refused at the user's line, never crashed and never compiled silently (issue 18, part 6).

One test per class found by an independent probe of wrong DSL programs: each is a CompilationError (or, for
what only the compiler can see, a TxlCompileError whose diagnostic names this file's line) that says what was
expected and how to fix it. The IR-level counterparts (hand-written .mlir) are lit tests:
test/Dialect/TXL/invalid-kernels.mlir and test/Target/PTX/no-kernel.mlir.
"""

import re

import pytest

import txl
import txl.language as tl
from txl.errors import CompilationError

from .dsl_helpers import TXLC, _need, ir_of

THIS = __file__.replace(".pyc", ".py")


def _line_of(fn, text):
    """The line number in this file of the first line of ``fn``'s source containing ``text``."""
    with open(THIS) as f:
        lines = f.read().splitlines()
    start = fn.starting_line_number
    for i in range(start - 1, len(lines)):
        if text in lines[i]:
            return i + 1
    raise AssertionError("%r not in %s" % (text, fn.__name__))


def _frontend_error(fn, sig=None, consts=None, **opts):
    """The CompilationError of the frontend, checked to be located in this file with the caret and a fix."""
    with pytest.raises(CompilationError) as info:
        ir_of(fn, sig or {}, consts or {}, **opts)
    e = info.value
    text = str(e)
    assert e.file == THIS, text
    assert text.startswith("%s:%d:%d: error: " % (THIS, e.line, e.col)), text
    assert e.fix, text
    assert "internal error" not in text, text
    return e, text


def _compiler_error(fn, sig, consts=None, **opts):
    """The diagnostics of txlc for a kernel the frontend accepts (only the compiler can see the mistake)."""
    from txl.compiler.compiler import TxlCompileError

    _need(TXLC)
    with pytest.raises(TxlCompileError) as info:
        txl.compile(fn, signature=sig, constexprs=consts or {}, use_cache=False, **opts)
    text = info.value.diagnostics
    assert "internal error" not in text, text
    return text


# --- crashes ------------------------------------------------------------------------------------------------

@txl.jit
def _huge_arange(x_ptr):
    offs = tl.arange(0, 2**24)
    tl.store(x_ptr + offs, 1.0)


@txl.jit
def _huge_zeros(x_ptr):
    z = tl.zeros([2**20, 1024], tl.float32)
    tl.store(x_ptr, tl.sum(tl.sum(z, axis=1), axis=0))


@pytest.mark.parametrize("fn, where", [(_huge_arange, "tl.arange(0, 2**24)"),
                                       (_huge_zeros, "tl.zeros([2**20, 1024]")])
def test_huge_tiles_are_refused_at_their_line(fn, where):
    # Before: txlc ran 40-55 s into "LLVM ERROR: out of memory".
    e, text = _frontend_error(fn, {"x_ptr": "*fp32"})
    assert e.line == _line_of(fn, where)
    assert "more than the 1048576 (2^20)" in e.message and "Triton" in e.message
    assert "loop" in e.fix


@txl.jit
def _vadd(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 1.0, mask=offs < n)


@pytest.mark.parametrize("sig, consts, expect", [
    (["*fp32", "i32"], {"BLOCK": 64}, "the signature must be a dict"),
    ({"x_ptr": 5, "n": "i32"}, {"BLOCK": 64}, "parameter 'x_ptr': the signature type must be a string"),
    ({0: "*fp32"}, {"BLOCK": 64}, "signature key 0 is not a parameter name"),
    ({"x_ptr": "fp32*", "n": "i32"}, {"BLOCK": 64}, "parameter 'x_ptr': unknown signature type 'fp32*'"),
    ({"x_ptr": "*fp32", "n": "i32"}, [("BLOCK", 64)], "constexprs must be a dict"),
    ({"x_ptr": "*fp32", "n": "i32"}, {1: 64}, "constexprs key 1 is not a parameter name"),
])
def test_wrong_signature_and_constexpr_forms(sig, consts, expect):
    # Before: raw ValueError / AttributeError from dict() in compiler.py / code_generator.py.
    with pytest.raises(CompilationError) as info:
        txl.compile(_vadd, signature=sig, constexprs=consts, use_cache=False)
    text = str(info.value)
    assert expect in text, text
    assert text.startswith("%s:%d:" % (THIS, _vadd.starting_line_number + 1)), text  # the def line
    assert "\nfix: " in text and ("'*bf16'" in text or "x_ptr, n, BLOCK" in text or "{'" in text), text


# --- silently accepted --------------------------------------------------------------------------------------

@txl.jit
def _dot_mixed(a_ptr, b_ptr, c_ptr):
    r = tl.arange(0, 64)
    a = tl.load(a_ptr + r[:, None] * 64 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 64 + r[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + r[:, None] * 64 + r[None, :], c)


def test_dot_of_mixed_element_types_is_refused():
    # Before: B (fp32) was quietly converted to bf16 while it was staged in shared memory.
    e, text = _frontend_error(_dot_mixed, {"a_ptr": "*bf16", "b_ptr": "*fp32", "c_ptr": "*fp32"})
    assert e.line == _line_of(_dot_mixed, "c = tl.dot(a, b)")
    assert "A is bf16 and B is fp32" in e.message
    assert "b.to(tl.bfloat16)" in e.fix


@txl.jit
def _int_mask(x_ptr, n):
    offs = tl.arange(0, 128)
    m = offs % 2
    v = tl.load(x_ptr + offs, mask=m)
    tl.store(x_ptr + offs, v + 1.0, mask=offs < n)


def test_integer_mask_is_refused():
    # Before: accepted silently (read as `m != 0`); Triton refuses a non-boolean mask too.
    e, text = _frontend_error(_int_mask, {"x_ptr": "*fp32", "n": "i32"})
    assert e.line == _line_of(_int_mask, "v = tl.load(")
    assert "mask must be a boolean tile (i1), got int32" in e.message
    assert "!= 0" in e.fix


@txl.jit
def _big_offset(x_ptr, n):
    off = n + 3221225472
    tl.store(x_ptr + off, 1.0)


def test_int_constant_outside_i32_promotes_to_i64():
    # Before: 3221225472 wrapped to -1073741824 in i32 arithmetic. Now, as in Triton, a Python int outside i32
    # is an i64 and the arithmetic is done in i64.
    text = ir_of(_big_offset, {"x_ptr": "*fp32", "n": "i32"})
    assert "3221225472 : i64" in text, text
    assert re.search(r"arith\.addi .* : i64", text), text
    assert "-1073741824" not in text, text


@txl.jit
def _barrier_too_big(x_ptr):
    txl.bar_wait(8, 1024)
    tl.store(x_ptr, 1.0)


def test_named_barrier_with_more_threads_than_the_block():
    # Before: compiled; the barrier never completes on the GPU.
    text = _compiler_error(_barrier_too_big, {"x_ptr": "*fp32"})
    line = _line_of(_barrier_too_big, "txl.bar_wait(8, 1024)")
    assert "%s:%d:5: error: 'txl.bar_wait' op waits for 1024 threads but the block has 128" % (THIS, line) in text


@txl.jit
def _short_expect(a_desc, x_ptr):
    buf = txl.smem_alloc([64, 64], tl.bfloat16)
    bar = txl.mbar_alloc(1)
    txl.mbar_expect(txl.get_buffer(bar, 0), 16)
    txl.tma_load(buf, a_desc, [0, 0], txl.get_buffer(bar, 0))
    txl.mbar_wait(txl.get_buffer(bar, 0), 0)
    tl.store(x_ptr, 1.0)


def test_mbar_expect_smaller_than_its_tma_loads():
    # Before: each get_buffer is a new value, so the verifier did not see that the load signals this barrier.
    text = _compiler_error(_short_expect, {"a_desc": "tensordesc<bf16[64, 64]>", "x_ptr": "*fp32"})
    line = _line_of(_short_expect, "txl.mbar_expect(")
    assert "%s:%d:5: error: 'txl.mbar_expect' op expects 16 bytes, but the TMA loads signalling this barrier " \
           "in the same block deliver 8192 bytes" % (THIS, line) in text, text


@txl.jit
def _top_level_reg_alloc(x_ptr):
    txl.reg_alloc(240)
    tl.store(x_ptr, 1.0)


def test_reg_alloc_outside_a_warpgroup_branch_over_the_register_file():
    # Before: compiled; setmaxnreg.inc 240 in all 384 threads waits forever.
    text = _compiler_error(_top_level_reg_alloc, {"x_ptr": "*fp32"}, num_warpgroups=3)
    line = _line_of(_top_level_reg_alloc, "txl.reg_alloc(240)")
    assert "%s:%d:5: error: 'txl.reg_alloc' op asks for 240 registers in every thread of the block (384 " \
           "threads" % (THIS, line) in text, text
    assert "txl.is_warpgroup" in text


@txl.jit
def _read_before_wait(a_desc, x_ptr):
    a = txl.smem_alloc([64, 64], tl.bfloat16)
    acc = tl.zeros([64, 64], tl.float32)
    acc = tl.dot(a, a.T, acc)
    r = tl.arange(0, 64)
    tl.store(x_ptr + r[:, None] * 64 + r[None, :], acc)
    txl.dot_wait(0)


def test_async_dot_result_read_before_its_wait():
    # Before: the dot was quietly made synchronous.
    e, text = _frontend_error(_read_before_wait, {"a_desc": "tensordesc<bf16[64, 64]>", "x_ptr": "*fp32"})
    assert e.line == _line_of(_read_before_wait, "tl.store(x_ptr")
    assert "before the txl.dot_wait that retires it (line %d)" % _line_of(_read_before_wait, "txl.dot_wait(0)") \
        in e.message
    assert "after txl.dot_wait" in e.fix


# --- poor messages ------------------------------------------------------------------------------------------

@txl.jit
def _arange_one_arg(x_ptr):
    tl.store(x_ptr + tl.arange(64), 1.0)


@txl.jit
def _load_misspelled_kw(x_ptr):
    offs = tl.arange(0, 64)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, msk=offs < 3))


@txl.jit
def _zeros_no_dtype(x_ptr):
    tl.store(x_ptr + tl.arange(0, 64), tl.zeros([64]))


@pytest.mark.parametrize("fn, where, expect, signature", [
    (_arange_one_arg, "tl.arange(64)", "missing a required argument: 'end'", "tl.arange(start, end)"),
    (_load_misspelled_kw, "tl.load(", "unexpected keyword argument 'msk'", "tl.load(pointer, mask=None"),
    (_zeros_no_dtype, "tl.zeros([64])", "missing a required argument: 'dtype'", "tl.zeros(shape, dtype)"),
])
def test_builtin_argument_mistakes(fn, where, expect, signature):
    # Before: "internal error of the txl frontend ... please report it".
    e, text = _frontend_error(fn, {"x_ptr": "*fp32"})
    assert e.line == _line_of(fn, where)
    assert expect in e.message, text
    assert signature in e.fix, text


@txl.jit
def _desc_bad_block(x_ptr, M, N):
    d = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [64, 3])
    d.store([0, 0], d.load([0, 0]))


def test_descriptor_block_shape_is_refused_by_the_frontend():
    # Before: the error was located in the frontend's temporary kernel.mlir.
    e, text = _frontend_error(_desc_bad_block, {"x_ptr": "*bf16", "M": "i32", "N": "i32"})
    assert e.line == _line_of(_desc_bad_block, "tl.make_tensor_descriptor(")
    assert "multiple of 16 bytes, got 3 x bf16 = 6 bytes" in e.message
    assert "multiple of 8 elements" in e.fix


def test_descriptor_signature_block_shape_is_refused():
    e, text = _frontend_error(_vadd, {"x_ptr": "tensordesc<bf16[300, 64]>", "n": "i32"}, {"BLOCK": 64})
    assert "TMA block dimensions must be in 1..256 (the innermost may be wider)" in e.message


@txl.jit
def _smem_over_limit(x_ptr):
    a = txl.smem_alloc([128, 256], tl.float32)
    b = txl.smem_alloc([128, 256], tl.float32)
    txl.smem_store(a, tl.zeros([128, 256], tl.float32))
    txl.smem_store(b, tl.zeros([128, 256], tl.float32))
    txl.smem_store(a, txl.smem_load(b))  # both live at once (a buffer is free before its first use)


def test_shared_memory_over_the_limit_across_allocations_points_at_the_kernel():
    # Before: "kernel.mlir:2:3: error: kernel needs 262144 bytes": the frontend's file, not the user's.
    text = _compiler_error(_smem_over_limit, {"x_ptr": "*fp32"})
    assert "%s:%d:1: error: kernel needs 262144 bytes of shared memory" % (
        THIS, _smem_over_limit.starting_line_number + 1) in text, text
    for where in ("a = txl.smem_alloc", "b = txl.smem_alloc"):
        assert "%s:%d:9: note: 131072 bytes here" % (THIS, _line_of(_smem_over_limit, where)) in text, text
    assert ".mlir:" not in text.split("(the frontend IR")[0], text


@txl.jit
def _mbar_wait_on_buffer(x_ptr):
    a = txl.smem_alloc([64, 64], tl.bfloat16)
    txl.mbar_wait(a, 0)


def test_mbar_wait_on_a_buffer_is_refused_by_the_frontend():
    # Before: ill-typed IR, reported by the MLIR parser in kernel.mlir.
    e, text = _frontend_error(_mbar_wait_on_buffer, {"x_ptr": "*fp32"})
    assert e.line == _line_of(_mbar_wait_on_buffer, "txl.mbar_wait(a, 0)")
    assert "txl.mbar_wait needs an mbarrier (from txl.mbar_alloc), got the shared-memory buffer" in e.message
    assert "txl.mbar_alloc" in e.fix


@txl.jit
def _fp8_convert(x_ptr):
    v = tl.load(x_ptr)
    tl.store(x_ptr, (v.to(tl.float32) * 2).to(tl.float8e4nv))


def test_fp8_conversion_is_refused_before_the_back_end():
    # Tiles convert (test_fp8.py); a scalar fp8 conversion has no lowering: refused at the user's line. Before:
    # llvm.fpext on i8 from the back end (then a crash of convert-txl-to-nvvm).
    e, text = _frontend_error(_fp8_convert, {"x_ptr": "*fp8e4nv"})
    assert e.line == _line_of(_fp8_convert, "v.to(tl.float32)")
    assert "converting fp8e4nv values to fp32" in e.message and "not supported yet" in e.message


@txl.jit
def _matmul_operator(a_ptr, c_ptr):
    r = tl.arange(0, 64)
    a = tl.load(a_ptr + r[:, None] * 64 + r[None, :])
    tl.store(c_ptr + r[:, None] * 64 + r[None, :], a @ a)


def test_matmul_operator_points_to_tl_dot():
    # Before: "operator MatMult is not supported", without the hint.
    e, text = _frontend_error(_matmul_operator, {"a_ptr": "*bf16", "c_ptr": "*fp32"})
    assert e.line == _line_of(_matmul_operator, "a @ a")
    assert "`@`" in e.message and "tl.dot(a, b)" in e.fix


@txl.jit
def _exp_fp16(x_ptr):
    offs = tl.arange(0, 64)
    tl.store(x_ptr + offs, tl.exp(tl.load(x_ptr + offs)))


@txl.jit
def _sin_fp64(x_ptr):
    offs = tl.arange(0, 64)
    tl.store(x_ptr + offs, tl.sin(tl.load(x_ptr + offs)))


@pytest.mark.parametrize("fn, ty, expect", [
    (_exp_fp16, "*fp16", "tl.exp is computed in fp32 on the GPU, got fp16"),
    (_sin_fp64, "*fp64", "tl.sin is computed in fp32 / fp16 / bf16 on the GPU, got fp64"),
])
def test_math_without_a_gpu_instruction_is_refused(fn, ty, expect):
    # Before: LLVM's "no libcall available for fexp" / NVPTX "Cannot select: fsin" at kernel.mlir:1:1.
    e, text = _frontend_error(fn, {"x_ptr": ty})
    assert e.line == _line_of(fn, "tl.store(")
    assert expect in e.message
    assert ".to(tl.float32)" in e.fix


@txl.jit
def _sin_fp32(x_ptr):
    offs = tl.arange(0, 64)
    tl.store(x_ptr + offs, tl.sin(tl.load(x_ptr + offs)) + tl.cos(tl.load(x_ptr + offs)))


def test_sin_and_cos_compile_to_the_approximate_instructions():
    # They had no lowering at all before (NVPTX selects only sin.approx / cos.approx, under `afn`).
    from .dsl_helpers import compile_ptx

    ptx, _ = compile_ptx(ir_of(_sin_fp32, {"x_ptr": "*fp32"}))
    assert "sin.approx.f32" in ptx and "cos.approx.f32" in ptx


@txl.jit
def _to_without_dtype(x_ptr):
    offs = tl.arange(0, 64)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs).to())


def test_tensor_method_argument_mistake_names_the_method():
    e, text = _frontend_error(_to_without_dtype, {"x_ptr": "*fp32"})
    assert e.line == _line_of(_to_without_dtype, ".to()")
    assert "wrong arguments for tensor.to: missing a required argument" in e.message, text
    assert e.fix.startswith("call it as tensor.to(dtype"), text


@txl.jit
def _pred_str_bad(x_ptr):
    buf = txl.get_buffer(txl.smem_alloc([64], dtype=tl.float32), 0)
    t = tl.zeros([64, 32], dtype=tl.float32)
    txl.frag_smem_store(buf, t, None, predStr="slice:0")


@txl.jit
def _pred_str_unknown(x_ptr):
    buf = txl.get_buffer(txl.smem_alloc([64], dtype=tl.float32), 0)
    txl.frag_smem_store(buf, tl.zeros([64, 64], dtype=tl.float32), None, predStr="rows")


@pytest.mark.parametrize("fn, expect", [
    (_pred_str_bad, "predStr='slice:0' drops dimension 0 of a 2-D value stored into a 1-D buffer of the other "
                    "dimension's size; got value [64, 32] and buffer [64]"),
    (_pred_str_unknown, "predStr='rows' is not understood"),
])
def test_frag_smem_store_pred_str_mistakes(fn, expect):
    e, text = _frontend_error(fn, {"x_ptr": "*fp32"})
    assert e.line == _line_of(fn, "txl.frag_smem_store(")
    assert expect in e.message, text


@txl.jit
def _dot_into_tmem(x_ptr):
    a = txl.get_buffer(txl.smem_alloc([128, 64], tl.float16), 0)
    b = txl.get_buffer(txl.smem_alloc([128, 64], tl.float16), 0)
    acc = txl.get_buffer(txl.tmem_alloc([128, 128], tl.float32), 0)
    acc = tl.dot(a, b.T, acc)


def test_dot_into_tensor_memory_names_dotx():
    # TXL's 01-matmul Blackwell kernel writes tl.dot(a, b.T, tmem_acc); txl's tcgen05 MMA is txl.dotx with mbars.
    e, text = _frontend_error(_dot_into_tmem, {"x_ptr": "*fp32"}, target="sm_100a")
    assert e.line == _line_of(_dot_into_tmem, "acc = tl.dot(")
    assert "tensor-memory accumulator" in e.message, text
    assert "txl.dotx(a, b, acc, mbars=[bar])" in e.fix, text
