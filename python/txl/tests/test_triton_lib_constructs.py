"""Constructs that libraries written for Triton 3.6 (Liger-Kernel, flash-linear-attention) use, each in a small
kernel of its own that compiles through txlc to PTX: tensor methods (``x.cast(...)``, ``x.exp()``), Triton's
dtype rules for math functions and reductions, 0-d tensors (scalars in txl) and ``triton.language.core`` names.

The expected dtypes and refusals were read off Triton 3.6.0's own frontend (its ``make_ir`` on the same kernels,
no GPU needed): where Triton refuses a construct, txl refuses it too, at the user's file:line:col."""

import importlib.util
import inspect

import pytest

import txl
import txl.language as tl
from txl.errors import CompilationError
from txl.language import core

from txl.tests.gpu import dsl_cases, library_constructs_cases

from .dsl_helpers import TXLC, _need, check, check_not, compile_ptx, ir_of

# dir(triton.language.tensor) of Triton 3.6.0 without the dunders, `T` and `_flatten_ir` (56 names less those 2):
# the functions it decorates with @_tensor_member_fn and the methods its class defines.
TRITON_3_6_TENSOR_METHODS = (
    "abs advance argmax argmin associative_scan atomic_add atomic_and atomic_cas atomic_max atomic_min atomic_or "
    "atomic_xchg atomic_xor broadcast_to cast cdiv ceil cos cumprod cumsum erf exp exp2 expand_dims flip floor "
    "gather histogram item log log2 logical_and logical_or max min permute ravel reduce reduce_or reshape rsqrt "
    "sigmoid sin softmax sort split sqrt sqrt_rn store sum to trans view xor_sum").split()


def _line_of(fn, text):
    """The 1-based line of the first line of ``fn``'s source containing ``text``, and the column of ``text``."""
    lines, start = inspect.getsourcelines(getattr(fn, "fn", fn))
    for i, line in enumerate(lines):
        if text in line:
            return start + i, line.index(text) + 1
    raise AssertionError("%r not in the source of %s" % (text, fn.__name__))


def _error(fn, sig, constexprs=None):
    with pytest.raises(CompilationError) as info:
        ir_of(fn, sig, constexprs or {})
    return info.value


# -- tensor methods -------------------------------------------------------------------------------------------------
def test_every_triton_tensor_method_exists():
    assert sorted(core.TRITON_TENSOR_METHODS) == sorted(TRITON_3_6_TENSOR_METHODS)
    missing = [n for n in TRITON_3_6_TENSOR_METHODS if not hasattr(tl.tensor, n)]
    assert not missing, missing
    for n in TRITON_3_6_TENSOR_METHODS:
        assert n in core.TENSOR_ATTRS, n  # the code generator lets kernels read it


def test_the_method_list_matches_triton_when_it_is_installed():
    if importlib.util.find_spec("triton") is None:
        pytest.skip("triton is not installed (the list is Triton 3.6.0's, hard-coded above)")
    import triton
    import triton.language as ttl

    if not triton.__version__.startswith("3.6"):
        pytest.skip("triton %s installed, the list is for 3.6" % triton.__version__)
    live = sorted(n for n in dir(ttl.tensor) if not n.startswith("__") and n not in ("T", "_flatten_ir"))
    assert live == sorted(TRITON_3_6_TENSOR_METHODS)


@pytest.mark.parametrize("name", [n for n in TRITON_3_6_TENSOR_METHODS if n not in core._OWN_METHODS])
def test_a_method_is_the_function_of_the_same_name(name):
    method = getattr(tl.tensor, name)
    fn = getattr(tl, name)
    if isinstance(fn, txl.language.triton_api.Refused):
        assert isinstance(method, txl.language.triton_api.Refused) and method.why == fn.why
        return
    fparams = list(inspect.signature(fn).parameters.values())
    mparams = list(inspect.signature(method).parameters.values())
    assert mparams[0].name == "self" and mparams[1:] == fparams[1:], (name, mparams, fparams)


@txl.jit
def _methods(x_ptr, i_ptr, out_ptr, cnt_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)  # bf16
    xf = x.cast(tl.float32)
    y = xf.exp() + xf.exp2() + xf.abs().log() + (xf.abs() + 1.0).log2() + xf.abs().sqrt() + xf.sin() + xf.cos()
    y += (xf.abs() + 1.0).rsqrt() + xf.floor() + xf.ceil() + xf.sigmoid() + xf.softmax() + xf.abs().sqrt_rn()
    y += xf.cumsum(0) + xf.cumprod(0) + xf.flip(0) + xf.sort()
    y += xf.max() + xf.min() + xf.sum() + xf.argmax(0).to(tl.float32) + xf.argmin(0).to(tl.float32)
    grid = xf.reshape(BLOCK // 2, 2).trans().permute(1, 0).view(BLOCK)
    a, b = xf.reshape(BLOCK // 2, 2).split()
    y += grid + xf.ravel() + (a + b).expand_dims(1).broadcast_to(BLOCK // 2, 2).reshape(BLOCK)
    i = tl.load(i_ptr + offs, mask=mask, other=0)
    flags = (i > 0).logical_and(i < 100).logical_or(i == -1)
    y += flags.to(tl.float32) + i.cdiv(4).to(tl.float32)
    y += i.xor_sum(0).to(tl.float32) + i.reduce_or(0).to(tl.float32) + xf.max(0, keep_dims=True).item()
    (out_ptr + offs).store(y.to(tl.bfloat16), mask=mask)
    cnt_ptr.atomic_add(1)
    cnt_ptr.atomic_max(i.max())


def test_triton_tensor_methods_compile_to_ptx():
    text = ir_of(_methods, {"x_ptr": "*bf16", "i_ptr": "*i32", "out_ptr": "*bf16", "cnt_ptr": "*i32", "n": "i32"},
                 {"BLOCK": 64})
    check(text, r"arith\.extf", r"math\.exp", r"txl\.scan", r"txl\.sort", r"txl\.reshape", r"txl\.trans",
          r"txl\.split", r"txl\.store", r"txl\.atomic_rmw")
    compile_ptx(text)


@txl.jit
def _gather_method(x_ptr, WHICH: tl.constexpr):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs)
    if WHICH == "gather":
        tl.store(x_ptr + offs, x.gather(offs, 0))
    else:
        tl.store(x_ptr + tl.arange(0, 8), x.to(tl.int32).histogram(8).to(tl.float32))


@pytest.mark.parametrize("which", ["gather", "histogram"])
def test_gather_and_histogram_methods_compile(which):
    # Once refused (the name existed, the method did not work); now Triton's methods (test_gather.py,
    # test_histogram.py).
    text = ir_of(_gather_method, {"x_ptr": "*fp32"}, {"WHICH": which})
    check(text, r"txl\.%s" % which)
    compile_ptx(text)


@txl.jit
def _wrong_method_args(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 64))
    tl.store(x_ptr, x.sum(0, False, tl.float32, 7))


def test_wrong_method_arguments_name_the_methods_signature():
    e = _error(_wrong_method_args, {"x_ptr": "*fp32"})
    assert e.line == _line_of(_wrong_method_args, "x.sum(0, False")[0]
    assert "wrong arguments for tensor.sum" in e.message and "x.sum(" not in (e.fix or "x.sum(")
    assert "(axis=None, keep_dims=False, dtype=None)" in e.fix, e.fix


@txl.jit
def _desc_and_pointer_store(desc, ptr):
    t = desc.load([0, 0])
    desc.store([0, 64], t)
    ptr.store(tl.sum(t.to(tl.float32)))


def test_store_method_is_a_descriptor_store_or_a_pointer_store():
    text = ir_of(_desc_and_pointer_store, {"desc": "tensordesc<bf16[64, 64]>", "ptr": "*fp32"})
    check(text, r"txl\.desc_load", r"txl\.desc_store", r"txl\.store")


# -- Triton's dtype rules: math functions --------------------------------------------------------------------------
@txl.jit
def _math_on(x_ptr, OP: tl.constexpr, METHOD: tl.constexpr):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs)
    if METHOD:
        if OP == "exp":
            y = x.exp()
        elif OP == "sqrt":
            y = x.sqrt()
        else:
            y = x.floor()
    else:
        y = getattr(tl, OP)(x)
    tl.store(x_ptr + offs, y.to(x.dtype))


# tl.erf is missing on purpose: txl takes fp16 / bf16 there too (libdevice's erff in fp32; test_libdevice.py).
MATH = ["exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "floor", "ceil", "sqrt_rn", "sigmoid"]


@pytest.mark.parametrize("op", MATH)
@pytest.mark.parametrize("elt", ["bf16", "fp16", "i32"])
def test_math_on_16_bit_floats_and_integers_is_refused_as_triton_does(op, elt):
    # Triton 3.6: "Expected dtype ['fp32', 'fp64'] but got bf16" (its math functions do not convert).
    e = _error(_math_on, {"x_ptr": "*" + elt}, {"OP": op, "METHOD": False})
    name = {"i32": "int32"}.get(elt, elt)
    assert "got %s" % name in e.message and "Triton 3.6 refuses it too" in e.message, e.message
    assert "x.to(tl.float32)" in e.fix
    assert e.line == _line_of(_math_on, "y = getattr(tl, OP)(x)")[0]


@pytest.mark.parametrize("op", ["exp", "sqrt", "floor"])
def test_the_method_follows_the_same_rule(op):
    e = _error(_math_on, {"x_ptr": "*bf16"}, {"OP": op, "METHOD": True})
    assert "got bf16" in e.message and "Triton 3.6 refuses it too" in e.message
    compile_ptx(ir_of(_math_on, {"x_ptr": "*fp32"}, {"OP": op, "METHOD": True}))


def test_math_on_fp32_compiles():
    for op in MATH:
        compile_ptx(ir_of(_math_on, {"x_ptr": "*fp32"}, {"OP": op, "METHOD": False}))


# -- Triton's dtype rules: reductions and scans (read off Triton 3.6.0's frontend) ----------------------------------
REDUCTION_DTYPES = [
    # (expression, input dtype, Triton 3.6's result dtype)
    ("max", "bf16", tl.float32), ("max", "fp16", tl.float32), ("min", "uint8", tl.int32), ("max", "int1", tl.int32),
    ("max", "int16", tl.int32), ("max", "fp32", tl.float32), ("max", "int64", tl.int64),
    ("max_indices", "bf16", tl.float32), ("max_indices", "fp16", tl.float16),
    ("sum", "bf16", tl.bfloat16), ("sum", "fp16", tl.float16), ("sum", "int8", tl.int32), ("sum", "uint8", tl.uint32),
    ("sum", "int1", tl.uint32), ("sum_fp32", "bf16", tl.float32), ("sum_bf16", "fp32", tl.bfloat16),
    ("cumsum", "bf16", tl.float32), ("cumsum", "fp16", tl.float16),
    ("cumprod", "bf16", tl.float32), ("softmax", "bf16", tl.float32), ("xor_sum", "int8", tl.int8),
]


@txl.jit
def _reduction(x_ptr, o_ptr, OP: tl.constexpr, ELT: tl.constexpr, OUT: tl.constexpr):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs).to(ELT)
    if OP == "max":
        y = tl.max(x, 0)
    elif OP == "min":
        y = x.min(0)
    elif OP == "max_indices":
        y, _ = tl.max(x, 0, return_indices=True)
    elif OP == "sum":
        y = tl.sum(x)
    elif OP == "sum_fp32":
        y = tl.sum(x, 0, dtype=tl.float32)
    elif OP == "sum_bf16":
        y = x.sum(dtype=tl.bfloat16)
    elif OP == "cumsum":
        y = tl.cumsum(x, 0)
    elif OP == "cumprod":
        y = x.cumprod(0)
    elif OP == "softmax":
        y = tl.softmax(x)
    else:
        y = tl.xor_sum(x, 0)
    tl.static_assert(y.dtype == OUT)
    tl.store(o_ptr + offs, y.to(tl.float32))


@pytest.mark.parametrize("op,elt,out", REDUCTION_DTYPES)
def test_reduction_dtypes_are_tritons(op, elt, out):
    elt_ty = {"bf16": tl.bfloat16, "fp16": tl.float16, "fp32": tl.float32, "int1": tl.int1, "int8": tl.int8,
              "uint8": tl.uint8, "int16": tl.int16, "int64": tl.int64}[elt]
    text = ir_of(_reduction, {"x_ptr": "*fp32", "o_ptr": "*fp32"}, {"OP": op, "ELT": elt_ty, "OUT": out})
    if op in ("sum", "sum_bf16") and out.primitive_bitwidth == 16:
        check(text, r"arith\.addf .*: f32", r"arith\.truncf")  # accumulated in fp32, rounded once


def test_reduction_dtype_kernels_compile_to_ptx():
    for op, elt, out in (("max", "bf16", tl.float32), ("sum", "bf16", tl.bfloat16), ("sum", "int1", tl.uint32),
                         ("softmax", "bf16", tl.float32)):
        elt_ty = {"bf16": tl.bfloat16, "int1": tl.int1}[elt]
        compile_ptx(ir_of(_reduction, {"x_ptr": "*fp32", "o_ptr": "*fp32"}, {"OP": op, "ELT": elt_ty, "OUT": out}))


@txl.jit
def _softmax_rows(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    # A library's softmax on a bf16 row: tl.max widens it to fp32, so `x - m` and tl.exp are fp32 (Triton's rule).
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))
    m = tl.max(x, axis=0)
    e = tl.exp(x - m)
    d = tl.sum(e, axis=0)
    tl.store(y_ptr + row * n_cols + offs, (e / d).cast(x.dtype), mask=mask)


def test_bf16_softmax_with_an_fp32_max_compiles():
    compile_ptx(ir_of(_softmax_rows, {"x_ptr": "*bf16", "y_ptr": "*bf16", "n_cols": "i32"}, {"BLOCK": 1024}))


# -- 0-d tensors: scalars -------------------------------------------------------------------------------------------
@txl.jit
def _zero_d_accumulators(o_ptr, go_ptr, gi_ptr, n_cols, BLOCK: tl.constexpr):
    # The pattern of a sparsemax backward: 0-d fp32 accumulators summed over blocks of a row.
    offs = tl.arange(0, BLOCK)
    cnt = tl.zeros((), tl.float32)
    total = tl.full((), 0.0, tl.float32)
    tl.static_assert(len(cnt.shape) == 0 and cnt.numel == 1)
    for i in tl.range(0, tl.cdiv(n_cols, BLOCK)):
        idx = i * BLOCK + offs
        m = idx < n_cols
        o = tl.load(o_ptr + idx, mask=m, other=0.0).to(tl.float32)
        go = tl.load(go_ptr + idx, mask=m, other=0.0).to(tl.float32)
        total += tl.sum(tl.where(o > 0.0, go, 0.0))
        cnt += tl.sum((o > 0.0).to(tl.float32))
    mean = total / tl.maximum(cnt, 1e-6)
    for i in tl.range(0, tl.cdiv(n_cols, BLOCK)):
        idx = i * BLOCK + offs
        m = idx < n_cols
        go = tl.load(go_ptr + idx, mask=m, other=0.0).to(tl.float32)
        tl.store(gi_ptr + idx, (go - mean).to(gi_ptr.dtype.element_ty), mask=m)


def test_zero_d_accumulators_in_a_loop_compile_to_ptx():
    text = ir_of(_zero_d_accumulators, {"o_ptr": "*bf16", "go_ptr": "*bf16", "gi_ptr": "*bf16", "n_cols": "i32"},
                 {"BLOCK": 256})
    assert "tensor<f32>" not in text  # no 0-d tile anywhere: the accumulators are f32 scalars
    check(text, r'"scf\.for"', r"\}\) : \([^)]*\) -> \(f32, f32\)")
    compile_ptx(text)


@txl.jit
def _zero_d_shapes(x_ptr, o_ptr, v):
    x = tl.load(x_ptr + tl.arange(0, 16))
    s = tl.sum(x)
    a = tl.full((), v, tl.float32) + tl.zeros_like(s) + tl.broadcast_to(s, ())
    b = tl.reshape(tl.sum(x, 0, keep_dims=True), ()) + tl.sum(x, 0, keep_dims=True).item()
    tl.static_assert(len(a.shape) == 0 and len(b.shape) == 0)
    c = s[None] + tl.expand_dims(s, 0) + tl.reshape(s, (1,))
    tl.static_assert(c.shape == (1,))
    tl.store(o_ptr + tl.arange(0, 1), c + a + b)


def test_zero_d_values_are_scalars_and_become_tiles_again():
    text = ir_of(_zero_d_shapes, {"x_ptr": "*fp32", "o_ptr": "*fp32", "v": "fp32"})
    assert "tensor<f32>" not in text
    compile_ptx(text)


# -- triton.language.core names and hasattr probes ------------------------------------------------------------------
@txl.jit
def _core_names(x_ptr, DESCENDING: tl.constexpr = tl.core.CONSTEXPR_0):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs)
    idtype: tl.constexpr = tl.core.get_int_dtype(bitwidth=x.dtype.primitive_bitwidth, signed=True)
    ix = x.to(idtype, bitcast=True)
    n_dims: tl.constexpr = tl.standard._log2(64)
    tl.static_assert(n_dims == 6)
    tl.store(x_ptr + offs, tl.sort(ix, descending=DESCENDING).to(x.dtype, bitcast=True))


def test_triton_core_names_work_in_kernels():
    assert tl.core.CONSTEXPR_0 == 0 and isinstance(tl.core.CONSTEXPR_0, tl.constexpr)
    assert tl.core.tensor is tl.tensor and tl.core.dtype is tl.dtype and tl.core.constexpr is tl.constexpr
    assert tl.core.load is tl.load and tl.core.full is tl.full  # Triton's core holds the functions too
    assert tl.constexpr(3).type == tl.constexpr_type(3) and tl.core.constexpr_type is tl.constexpr_type
    assert tl.core.get_int_dtype(1, True) is tl.int1 and tl.core.get_int_dtype(32, False) == tl.uint32
    text = ir_of(_core_names, {"x_ptr": "*fp32"})
    check(text, r"arith\.bitcast .* to tensor<64xi32>", r"txl\.sort")
    compile_ptx(text)
    with pytest.raises(AttributeError, match="tl.core.no_such_name does not exist in txl"):
        tl.core.no_such_name


# What libraries do: probe with hasattr, bind the name at import time, use it in a kernel.
_gather = tl.gather if hasattr(tl, "gather") else None


@txl.jit
def _probed_gather(x_ptr):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs)
    tl.store(x_ptr + offs, _gather(x, offs, 0))


def test_a_probed_name_works():
    # tl.gather is implemented (test_gather.py): a library's probe and import-time binding give a working gather.
    assert hasattr(tl, "gather")
    text = ir_of(_probed_gather, {"x_ptr": "*fp32"})
    check(text, r"txl\.gather")
    compile_ptx(text)


@txl.jit
def _dtype_call(x_ptr):
    m = tl.float32(-float("inf"))
    tl.store(x_ptr, m)


def test_calling_a_dtype_is_refused_as_triton_does():
    e = _error(_dtype_call, {"x_ptr": "*fp32"})
    line, col = _line_of(_dtype_call, "tl.float32(")
    assert (e.line, e.col) == (line, col)
    assert "tl.float32 is a dtype, not a function" in e.message and "tl.full((), value, tl.float32)" in e.fix


# -- atomics on 2-D tiles whose pointers and values would default to different layouts --------------------------------
@txl.jit
def _bucket_scatter(keys_ptr, starts_ptr, fill_ptr, out_ptr, n, ROWS: tl.constexpr, WIDTH: tl.constexpr,
                    COUNT: tl.constexpr):
    # A counting sort over a [ROWS, WIDTH] tile of i64 bucket ids (-1: none): the counting pass adds a constant 1
    # per element; the scatter pass reads each element's old fill level back (atomic_add's result).
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, WIDTH)
    keys = tl.load(keys_ptr + rows[:, None].to(tl.int64) * WIDTH + cols[None, :], mask=(rows < n)[:, None],
                   other=-1).to(tl.int64)
    valid = (rows < n)[:, None] & (keys >= 0)
    if COUNT:
        tl.atomic_add(starts_ptr + keys + 1, 1, mask=valid)
    else:
        slot = tl.load(starts_ptr + keys, mask=valid, other=0).to(tl.int64) + tl.atomic_add(fill_ptr + keys, 1,
                                                                                          mask=valid)
        tl.store(out_ptr + slot, tl.broadcast_to(rows[:, None], (ROWS, WIDTH)), mask=valid)


@pytest.mark.parametrize("count", [True, False])
@pytest.mark.parametrize("num_warps", [4, 8])
def test_atomics_with_i64_offsets_and_a_constant_value_compile(count, num_warps):
    # The pointers (i64 offsets) and the constant 1 used to get layouts of their own (2 and 4 elements per
    # thread): "'txl.atomic_rmw' mixes register layouts". An atomic's operands and result are one layout class.
    sig = {"keys_ptr": "*i64", "starts_ptr": "*i32", "fill_ptr": "*i32", "out_ptr": "*i32", "n": "i32"}
    text = ir_of(_bucket_scatter, sig, {"ROWS": 128, "WIDTH": 16, "COUNT": count}, num_warps=num_warps)
    ptx, _ = compile_ptx(text)
    assert "atom.acq_rel.gpu.global.add.u32" in ptx


# -- loops counting down ----------------------------------------------------------------------------------------------
@txl.jit
def _count_down(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    # A reverse scan over blocks (a backward pass walks its chunks from the last), and a constant-bound one.
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for i in range(tl.cdiv(n, BLOCK) - 1, -1, -1):
        acc = acc * 0.5 + tl.load(x_ptr + i * BLOCK + offs, mask=i * BLOCK + offs < n, other=0.0)
        tl.store(o_ptr + i * BLOCK + offs, acc, mask=i * BLOCK + offs < n)
    k = 0
    for j in tl.range(10, 0, -3):
        k += j
    tl.store(o_ptr + offs, acc + k, mask=offs < n)


def test_a_loop_with_a_negative_constant_step_counts_down():
    text = ir_of(_count_down, {"x_ptr": "*fp32", "o_ptr": "*fp32", "n": "i32"}, {"BLOCK": 128})
    # range(hi, -1, -1): scf.for from -1 to hi (step 1), the variable hi + -1 - iv
    check(text, r"%(?P<lo>\S+) = arith.constant -1 : i32", r'"scf.for"\(%[[lo]], %(?P<hi>[^,]+), [^)]*\) \(\{\n\s*\^bb0\(%(?P<iv>[^:]+): i32',
          r"arith.subi %[[hi]], %[[iv]] : i32")
    compile_ptx(text)


@txl.jit
def _zero_step(o_ptr, n):
    for i in range(0, n, 0):
        tl.store(o_ptr + i, 1.0)


def test_a_zero_step_is_a_located_error():
    e = _error(_zero_step, {"o_ptr": "*fp32", "n": "i32"})
    assert "the loop step must not be zero" in str(e)
    assert ":%d:" % _line_of(_zero_step, "range(0, n, 0)")[0] in str(e)


# -- fp32 tl.dot (Triton's FMA dot) -----------------------------------------------------------------------------------
@txl.jit
def _fp32_dots(a_ptr, b_ptr, g_ptr, o_ptr, K: tl.constexpr, BM: tl.constexpr, BK: tl.constexpr,
               PRECISION: tl.constexpr):
    # Small fp32 products of gated 16-bit inputs (a chunked linear-attention block): a K loop accumulating into an
    # fp32 tile, then a product of two results (as a block triangular inverse merges its blocks).
    rm = tl.arange(0, BM)
    acc = tl.zeros([BM, BM], dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :]).to(tl.float32)
        g = tl.load(g_ptr + rm[:, None] * K + rk[None, :])
        b = tl.load(b_ptr + rk[:, None] + rm[None, :] * K).to(tl.float32)
        acc = tl.dot(a * tl.exp(g), b, acc, input_precision=PRECISION)
    low = tl.where(rm[:, None] > rm[None, :], acc, 0.0)
    inv = -tl.dot(tl.dot(low, acc, input_precision=PRECISION), low, input_precision=PRECISION)
    tl.store(o_ptr + rm[:, None] * BM + rm[None, :], inv + tl.dot(low, acc))


@pytest.mark.parametrize("precision", ["ieee", "tf32"])
@pytest.mark.parametrize("num_warps,bk", [(4, 32), (8, 64)])
def test_fp32_dots_compile_as_fma_dots(precision, num_warps, bk):
    sig = {"a_ptr": "*bf16", "b_ptr": "*fp16", "g_ptr": "*fp32", "o_ptr": "*fp32"}
    text = ir_of(_fp32_dots, sig, {"K": 128, "BM": 16, "BK": bk, "PRECISION": precision}, num_warps=num_warps)
    check_not(text, r"txl\.dot ")  # no tensor-core dot: wgmma and mma.sync take no fp32 operands here
    check(text, r"arith.mulf .* : tensor<16x%dx16xf32>" % bk, r"txl.reduce .* axis 1 : \(tensor<16x%dx16xf32>\)" % bk)
    ptx, _ = compile_ptx(text)
    assert "mul.f32" in ptx and "wgmma" not in ptx and "mma.sync" not in ptx


@txl.jit
def _fp32_dot_too_big(a_ptr, o_ptr, B: tl.constexpr):
    r = tl.arange(0, B)
    a = tl.load(a_ptr + r[:, None] * B + r[None, :])
    tl.store(o_ptr + r[:, None] * B + r[None, :], tl.dot(a, a))


def test_an_fp32_dot_beyond_the_product_tile_limit_is_a_located_error():
    e = _error(_fp32_dot_too_big, {"a_ptr": "*fp32", "o_ptr": "*fp32"}, {"B": 128})
    assert "2097152-element product tile" in str(e) and "bf16/fp16" in str(e)
    assert ":%d:" % _line_of(_fp32_dot_too_big, "tl.dot(a, a)")[0] in str(e)


# -- the GPU cases of the same constructs (gpu/library_constructs_cases.py) compile --------------------------------------
@pytest.mark.parametrize("case", library_constructs_cases.CASES, ids=lambda c: c.name)
def test_library_construct_gpu_cases_compile(case):
    _need(TXLC)
    _, compiled = dsl_cases.run_case(case, dsl_cases.MetaFactory(), launch=False)
    ptx = compiled.asm["ptx"]
    if "dot" in case.name:
        assert "fma.rn.f32" in ptx or "mul.f32" in ptx
        assert "wgmma" not in ptx and "mma.sync" not in ptx
    if "bucket" in case.name:
        assert "atom.acq_rel.gpu.global.add.u32" in ptx or "red." in ptx
