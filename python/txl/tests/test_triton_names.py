"""Triton 3.6's names (txl/language/triton_api.py) walked one by one: every implemented name exists in
txl.language / tl.math / libdevice (and the functions compile through txlc to the expected PTX); every refused name
used in a kernel is a CompilationError at the user's file:line:col with the hint, never an AttributeError naming a
module path."""

import importlib.util
import os
import re
import textwrap

import pytest

import txl
import txl.language as tl
from txl.errors import CompilationError, UnsupportedError
from txl.language import triton_api as api
from txl.language.extra import libdevice
from txl.language.extra.cuda import libdevice as cuda_libdevice

from .dsl_helpers import check, compile_ptx, ir_of, run_opt

MODULES = {"txl.language": tl, "txl.language.math": tl.math, "txl.language.extra.cuda.libdevice": libdevice}
TABLES = {"txl.language": api.LANGUAGE, "txl.language.math": api.MATH,
          "txl.language.extra.cuda.libdevice": api.LIBDEVICE}
SPELLING = {"txl.language": "tl", "txl.language.math": "tl.math", "txl.language.extra.cuda.libdevice": "libdevice"}


def _entries(status):
    return [(m, n) for m, t in TABLES.items() for n in sorted(t) if t[n][0] == status]


# -- the list itself ----------------------------------------------------------------------------------------------
def test_the_list_is_complete_and_well_formed():
    assert api.TRITON_VERSION == "3.6.0"
    for module, table in TABLES.items():
        for name, entry in table.items():
            assert len(entry) == 3 and entry[0] in (api.IMPLEMENTED, api.REFUSED), (module, name, entry)
            if entry[0] == api.REFUSED:
                assert entry[1] and entry[2], "refused %s.%s needs a reason and what to use instead" % (module, name)
            else:
                assert entry[2] is None
    # triton.language's __all__ (140 names), triton.language.math (17 functions), libdevice (197 functions).
    assert len(api.LANGUAGE) == 140
    assert len(api.MATH) == 17
    assert len(api.LIBDEVICE) == 197 and sorted(api.LIBDEVICE) == sorted(api.LIBDEVICE_NAMES)
    assert libdevice is cuda_libdevice and tl.extra.cuda.libdevice is libdevice and tl.extra.libdevice is libdevice


def test_counts():
    # The report of issue 14's first tranche; update when names move from refused to implemented.
    counts = {m: (len(api.implemented_names(t)), len(api.refused_names(t))) for m, t in TABLES.items()}
    assert counts == {"txl.language": (129, 11), "txl.language.math": (17, 0),
                      "txl.language.extra.cuda.libdevice": (197, 0)}, counts


def test_the_list_matches_triton_when_it_is_installed():
    if importlib.util.find_spec("triton") is None:
        pytest.skip("triton is not installed (the names are checked against Triton 3.6 where it is)")
    import triton
    import triton.language as ttl

    if not triton.__version__.startswith("3.6"):
        pytest.skip("triton %s installed, the list is for 3.6" % triton.__version__)
    from triton.language.extra.cuda import libdevice as tld

    assert sorted(api.LANGUAGE) == sorted(ttl.__all__)
    assert sorted(api.MATH) == sorted(n for n in dir(ttl.math) if not n.startswith("_")
                                      and n not in ("List", "T", "core", "wraps"))
    assert sorted(api.LIBDEVICE) == sorted(n for n in dir(tld) if not n.startswith("_") and n != "core")


@pytest.mark.parametrize("module,name", _entries(api.IMPLEMENTED))
def test_implemented_name_exists(module, name):
    value = getattr(MODULES[module], name)
    assert not isinstance(value, api.Refused), (module, name)


@pytest.mark.parametrize("module,name", _entries(api.REFUSED))
def test_refused_name_is_bound_to_its_refusal(module, name):
    value = getattr(MODULES[module], name)
    assert isinstance(value, api.Refused)
    assert value.spelling == "%s.%s" % (SPELLING[module], name)


# -- refused names in kernels: located errors with the hint -------------------------------------------------------
KERNEL = '''
import txl
import txl.language as tl
from txl.language.extra import libdevice


@txl.jit
def kernel(x_ptr):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs)
    y = {use}(x)
    tl.store(x_ptr + offs, x)
'''


def _load_kernel(tmp_path, source, name="kernel"):
    path = os.path.join(str(tmp_path), "user_kernel_%d.py" % abs(hash(source)))
    with open(path, "w") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location("user_kernel_%d" % abs(hash(source)), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name), path


def _compile_error(fn):
    with pytest.raises(CompilationError) as info:
        ir_of(fn, {"x_ptr": "*fp32"})
    return info.value


@pytest.mark.parametrize("module,name", _entries(api.REFUSED))
def test_refused_name_in_a_kernel_is_a_located_error_with_the_hint(tmp_path, module, name):
    use = "%s.%s" % (SPELLING[module], name)
    fn, path = _load_kernel(tmp_path, KERNEL.format(use=use))
    e = _compile_error(fn)
    _, why, instead = TABLES[module][name]
    text = str(e)
    assert e.file == path and e.line == 11 and e.col == 9, text  # `y = tl.sort(x)`: the name's column
    assert e.message == "%s is not supported yet by txl: %s" % (use, why), text
    assert e.fix == instead, text
    assert "<module" not in text and "AttributeError" not in text, text
    assert text.startswith("%s:11:9: error: %s" % (path, use)), text
    assert "    y = %s(x)\n        ^" % use in text, text


def test_refused_name_imported_by_name_is_refused_where_it_is_used(tmp_path):
    source = KERNEL.replace("from txl.language.extra import libdevice",
                            "from txl.language import bitonic_merge")
    fn, path = _load_kernel(tmp_path, source.format(use="bitonic_merge"))
    e = _compile_error(fn)
    assert (e.file, e.line, e.col) == (path, 11, 9)
    assert e.message.startswith("tl.bitonic_merge is not supported yet by txl: ") and "tl.sort" in e.fix


@pytest.mark.parametrize("use,what", [("tl.not_a_function", "tl.not_a_function does not exist"),
                                      ("tl.math.cosh", "tl.math.cosh does not exist"),
                                      ("libdevice.sinhf", "libdevice.sinhf does not exist")])
def test_unknown_name_says_it_is_not_a_triton_name(tmp_path, use, what):
    fn, path = _load_kernel(tmp_path, KERNEL.format(use=use))
    e = _compile_error(fn)
    assert (e.file, e.line, e.col) == (path, 11, 9)
    assert e.message.startswith(what) and "is not a name of Triton 3.6.0's" in e.message
    assert "<module" not in str(e)


def test_refused_name_outside_a_kernel():
    with pytest.raises(UnsupportedError) as info:
        tl.bitonic_merge(None, 4)
    assert "tl.bitonic_merge is not supported yet by txl" in str(info.value)
    with pytest.raises(AttributeError, match="tl.frobnicate does not exist"):
        tl.frobnicate


# -- tl.max(0, x): the hint names tl.maximum ---------------------------------------------------------------------
@txl.jit
def _max_of_two(x_ptr, n):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs)
    y = tl.max(0, x)
    tl.store(x_ptr + offs, y)


@txl.jit
def _min_of_scalars(x_ptr, n):
    m = tl.min(n, 4)
    tl.store(x_ptr, m.to(tl.float32))


@pytest.mark.parametrize("fn,what,expect", [
    (_max_of_two, "max", "here input is the number 0 and axis a run-time value"),
    (_min_of_scalars, "min", "here input is the scalar i32"),
])
def test_max_of_two_values_points_to_maximum(fn, what, expect):
    with pytest.raises(CompilationError) as info:
        ir_of(fn, {"x_ptr": "*fp32", "n": "i32"})
    e = info.value
    assert e.file == __file__.replace(".pyc", ".py") and e.line is not None and e.col is not None
    assert "tl.%s reduces a tile along an axis" % what in e.message and expect in e.message, str(e)
    assert e.fix == "for the elementwise %simum of two values write tl.%simum(a, b)" % (what, what)


# -- implemented names compile -----------------------------------------------------------------------------------
@txl.jit
def _new_tl_names(x_ptr, y_ptr, i_ptr, n):
    offs = tl.arange(0, 128)
    x = tl.load(x_ptr + offs)
    i = tl.load(i_ptr + offs)
    y = tl.add(x, tl.mul(x, tl.sub(x, 1.0)))
    y += tl.softmax(x) + tl.ravel(x[None, :]) + tl.sqrt_rn(x)
    y += tl.uint_to_uniform_float(i) + tl.umulhi(i, 0x9E3779B9).to(tl.float32)
    gi, gj = tl.swizzle2d(offs // 8, offs % 8, 16, 8, 4)
    y += (gi * 8 + gj).to(tl.float32)
    y += tl.math.exp2(x) + tl.math.exp(x) + tl.math.log(x) + tl.math.log2(x) + tl.math.sqrt(x)
    y += tl.math.rsqrt(x) + tl.math.abs(x) + tl.math.floor(x) + tl.math.ceil(x) + tl.math.fma(x, x, x)
    y += tl.math.sin(x) + tl.math.cos(x) + tl.math.div_rn(x, 3.0) + tl.math.fdiv(x, 3.0) + tl.math.sqrt_rn(x)
    y += tl.maximum(x, 0.0, propagate_nan=tl.PropagateNan.ALL) + tl.clamp(x, 0.0, 1.0)
    tl.static_assert(tl.TRITON_MAX_TENSOR_NUMEL == 1048576)
    tl.store(y_ptr + offs, y)


def test_new_tl_names_emit_ir_and_compile():
    text = ir_of(_new_tl_names, {"x_ptr": "*fp32", "y_ptr": "*fp32", "i_ptr": "*i32", "n": "i32"})
    check(text,
          r"arith.subf", r"arith.mulf", r"arith.addf",                                   # tl.sub / tl.mul / tl.add
          r"txl.reduce .* axis 0", r"arith.maxnumf", r"math.exp ", r"arith.addf", r"arith.divf",  # tl.softmax
          r"txl.reshape .*tensor<1x128xf32> -> tensor<128xf32>",                          # tl.ravel
          r"math.sqrt",                                                                  # tl.sqrt_rn
          r"arith.cmpi slt", r"arith.select", r"arith.sitofp", r"arith.mulf",            # uint_to_uniform_float
          r"arith.extui .* to tensor<128xi64>", r"arith.muli .*tensor<128xi64>", r"arith.shrui",
          r"arith.trunci .* to tensor<128xi32>",                                         # tl.umulhi
          r"arith.divsi", r"arith.minsi", r"arith.remsi",                                # tl.swizzle2d
          r"math.exp2 .* fastmath<afn>", r"math.exp ", r"math.log ", r"math.log2", r"math.sqrt", r"math.rsqrt",
          r"math.absf", r"math.floor", r"math.ceil", r"math.fma", r"math.sin .* fastmath<afn>",
          r"math.cos .* fastmath<afn>",
          r"arith.divf %[^ ]+, %[^ ]+ : ",                        # div_rn: IEEE (no fast-math flag)
          r"arith.divf .* fastmath<afn>",                         # fdiv: Triton's approximate division
          r"math.sqrt", r"arith.maximumf")
    ptx, _ = compile_ptx(text)
    for ins in ("ex2.approx.ftz.f32", "lg2.approx.f32", "sqrt.rn.f32", "sin.approx.f32", "cos.approx.f32",
                "cvt.rmi.f32.f32", "cvt.rpi.f32.f32", "fma.rn.f32", "div.rn.f32", "div.full.f32"):
        assert ins in ptx, ins


@txl.jit
def _divisions(x_ptr, y_ptr):
    offs = tl.arange(0, 128)
    x = tl.load(x_ptr + offs)
    y = x / (x + 1.0)
    y += tl.fdiv(x, 3.0, ieee_rounding=True)
    tl.store(y_ptr + offs, y)


def test_float_division_is_approximate_unless_ieee_is_asked():
    # As in Triton: `/` and tl.fdiv are div.full.f32 (2 ulp, full range), tl.div_rn and
    # tl.fdiv(ieee_rounding=True) the correctly rounded div.rn.f32.
    text = ir_of(_divisions, {"x_ptr": "*fp32", "y_ptr": "*fp32"})
    divs = [line for line in text.splitlines() if "arith.divf" in line]
    assert len(divs) == 2, divs
    assert "fastmath<afn>" in divs[0] and "fastmath" not in divs[1], divs
    ptx, _ = compile_ptx(text)
    assert ptx.count("div.full.f32") >= 1 and ptx.count("div.rn.f32") >= 1, ptx


@txl.jit
def _block_ptr_names(x_ptr, y_ptr, M, N, K):
    """tl.make_block_ptr, tl.advance and tl.load / tl.store through block pointers (test_block_ptr.py has the rest)."""
    xb = tl.make_block_ptr(base=x_ptr, shape=(M, K), strides=(K, 1), offsets=(tl.program_id(0) * 64, 0),
                           block_shape=(64, 32), order=(1, 0))
    acc = tl.zeros([64, 32], tl.float32)
    for k in range(0, K, 32):
        acc += tl.load(xb, boundary_check=(0, 1), padding_option="zero")
        xb = tl.advance(xb, (0, 32))
    yb = tl.make_block_ptr(y_ptr, (M, N), (N, 1), (tl.program_id(0) * 64, 0), (64, 32), (1, 0))
    tl.store(yb, acc, boundary_check=(0, 1))


def test_block_pointer_names_compile():
    assert api.status("txl.language", "make_block_ptr")[0] == api.IMPLEMENTED
    assert api.status("txl.language", "advance")[0] == api.IMPLEMENTED
    text = ir_of(_block_ptr_names, {"x_ptr": "*fp32", "y_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32"})
    bp = r"!txl.block_ptr<tensor<64x32xf32>, order = \[1, 0\]>"
    check(text, r'"scf.for"\(%c0, %K, %c32, %\d+, %\d+\) \(\{\n\s*\^bb0\(%k: i32, %acc_1: tensor<64x32xf32>, '
                r"%xb_1: " + bp + r"\):",
          r"txl.block_load %xb_1 boundary_check = \[0, 1\] padding zero : " + bp + " -> tensor<64x32xf32>",
          r"txl.advance %xb_1, \[%c0, %c32\]",
          r"txl.block_store %\d+, %acc boundary_check = \[0, 1\] : " + bp + ", tensor<64x32xf32>")
    # txl-expand-block-pointers: pointer tiles, the loop carrying the advanced offset alone
    check(run_opt(text, "--txl-expand-block-pointers"),
          r"scf.for %arg\d+ = %c0_i32 to %arg4 step %c32_i32 iter_args\(%arg\d+ = %\w+, %(?P<k>arg\d+) = %c0_i32\) -> "
          r"\(tensor<64x32xf32>, i32\)",
          r"txl.load %\d+ mask %\d+ other %\w+ : tensor<64x32x!txl.ptr<f32>> -> tensor<64x32xf32>",
          r"arith.addi %[[k]], %c32_i32 : i32",
          r"txl.store %\d+, %\d+#0 mask %\d+ : tensor<64x32x!txl.ptr<f32>>, tensor<64x32xf32>")
    ptx, _ = compile_ptx(text)
    assert "ld.global" in ptx and "st.global" in ptx


@txl.jit
def _libdevice_all(x_ptr, d_ptr, i_ptr, l_ptr, y_ptr):
    offs = tl.arange(0, 128)
    x = tl.load(x_ptr + offs)
    d = tl.load(d_ptr + offs)
    i = tl.load(i_ptr + offs)
    u = i.to(tl.uint32)
    ll = tl.load(l_ptr + offs)
    ull = ll.to(tl.uint64)
    f = libdevice.abs(x) + libdevice.ceil(x) + libdevice.floor(x) + libdevice.trunc(x) + libdevice.rint(x)
    f += libdevice.nearbyint(x) + libdevice.round(x) + libdevice.fma(x, x, x) + libdevice.fma_rn(x, x, x)
    f += libdevice.sqrt(x) + libdevice.sqrt_rn(x) + libdevice.rsqrt(x) + libdevice.exp2(x) + libdevice.log2(x)
    f += libdevice.copysign(x, -x) + libdevice.saturatef(x)
    f += libdevice.add_rn(x, x) + libdevice.sub_rn(x, x) + libdevice.mul_rn(x, x) + libdevice.div_rn(x, x)
    f += libdevice.rcp_rn(x) + libdevice.fast_dividef(x, x)
    f += libdevice.fast_expf(x) + libdevice.fast_exp10f(x) + libdevice.fast_logf(x) + libdevice.fast_log2f(x)
    f += libdevice.fast_log10f(x) + libdevice.fast_sinf(x) + libdevice.fast_cosf(x) + libdevice.fast_tanf(x)
    f += libdevice.fast_powf(x, x)
    k = libdevice.isnan(x) + libdevice.isinf(x) + libdevice.finitef(x) + libdevice.isfinited(d)
    k += libdevice.signbit(x) + libdevice.float_as_int(x) + libdevice.float_as_uint(x).to(tl.int32)
    k += libdevice.popc(i) + libdevice.clz(i) + libdevice.ffs(i) + libdevice.mulhi(i, i) + libdevice.mulhi(u, u)
    k += libdevice.double2hiint(d) + libdevice.double2loint(d) + libdevice.popc(ll) + libdevice.clz(ll)
    f += libdevice.int_as_float(i) + libdevice.uint_as_float(u)
    g = libdevice.double_as_longlong(d).to(tl.float64) + libdevice.longlong_as_double(ll)
    g += libdevice.hiloint2double(i, i) + libdevice.double2float_rn(d).to(tl.float64)
    for r in tl.static_range(4):
        k += libdevice.float2int_rn(x) + libdevice.float2int_rz(x) + libdevice.float2int_rd(x)
        k += libdevice.float2int_ru(x) + libdevice.float2uint_rn(x).to(tl.int32)
    k += libdevice.float2uint_rz(x).to(tl.int32) + libdevice.float2uint_rd(x).to(tl.int32)
    k += libdevice.float2uint_ru(x).to(tl.int32) + libdevice.double2int_rn(d) + libdevice.double2int_rz(d)
    k += libdevice.double2int_rd(d) + libdevice.double2int_ru(d) + libdevice.double2uint_rn(d).to(tl.int32)
    k += libdevice.double2uint_rz(d).to(tl.int32) + libdevice.double2uint_rd(d).to(tl.int32)
    k += libdevice.double2uint_ru(d).to(tl.int32)
    q = libdevice.float2ll_rn(x) + libdevice.float2ll_rz(x) + libdevice.float2ll_rd(x) + libdevice.float2ll_ru(x)
    q += libdevice.float2ull_rn(x).to(tl.int64) + libdevice.float2ull_rz(x).to(tl.int64)
    q += libdevice.float2ull_rd(x).to(tl.int64) + libdevice.float2ull_ru(x).to(tl.int64)
    q += libdevice.double2ll_rn(d) + libdevice.double2ll_rz(d) + libdevice.double2ll_rd(d)
    q += libdevice.double2ll_ru(d) + libdevice.double2ull_rn(d).to(tl.int64) + libdevice.double2ull_rz(d).to(tl.int64)
    q += libdevice.double2ull_rd(d).to(tl.int64) + libdevice.double2ull_ru(d).to(tl.int64)
    f += libdevice.int2float_rn(i) + libdevice.uint2float_rn(u) + libdevice.ll2float_rn(ll)
    f += libdevice.ull2float_rn(ull)
    g += libdevice.int2double_rn(i) + libdevice.uint2double_rn(u) + libdevice.ll2double_rn(ll)
    g += libdevice.ull2double_rn(ull)
    tl.store(y_ptr + offs, f + k.to(tl.float32) + q.to(tl.float32) + g.to(tl.float32))


def _called_names(fn):
    return set(re.findall(r"libdevice\.(\w+)\(", textwrap.dedent(fn.src)))


def test_every_implemented_libdevice_function_compiles():
    # (the libdevice calls compile in test_libdevice.py's kernel)
    from .test_libdevice import _libdevice_linked

    called = _called_names(_libdevice_all) | _called_names(_libdevice_linked)
    assert called >= set(api.implemented_names(api.LIBDEVICE)), \
        sorted(set(api.implemented_names(api.LIBDEVICE)) - called)
    text = ir_of(_libdevice_all, {"x_ptr": "*fp32", "d_ptr": "*fp64", "i_ptr": "*i32", "l_ptr": "*i64",
                                  "y_ptr": "*fp32"})
    check(text, r"math.ceil", r"math.trunc", r"math.roundeven", r"math.round ", r"math.copysign",
          r"arith.divf .* fastmath<arcp,afn>", r"arith.cmpf uno", r"math.ctpop", r"math.ctlz", r"math.cttz")
    ptx, _ = compile_ptx(text)
    for ins in ("cvt.rzi.f32.f32", "cvt.rni.f32.f32", "cvt.rzi.s32.f32", "popc.b32", "popc.b64", "clz.b32",
                "clz.b64", "div.approx.f32", "ex2.approx.f32", "lg2.approx.f32", "sin.approx.f32", "cos.approx.f32",
                "sqrt.rn.f32", "cvt.rn.f32.f64", "cvt.rn.f64.s64", "cvt.rzi.u64.f64", "cvt.rmi.f64.f64",
                "cvt.rpi.f64.f64"):
        assert ins in ptx, ins


@txl.jit
def _rn_ops(x_ptr, y_ptr):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, libdevice.add_rn(libdevice.mul_rn(x, x), x) + x * x)


def test_rn_operations_are_not_contracted():
    text = ir_of(_rn_ops, {"x_ptr": "*fp32", "y_ptr": "*fp32"})
    check(text, r"arith.mulf %x, %x : tensor<64xf32>", r"arith.addf %\w+, %x : tensor<64xf32>",
          r"arith.mulf %x, %x fastmath<contract>")


# -- tl.reduce with a user combine function, tl.reduce_or, tl.xor_sum --------------------------------------------
@txl.jit
def _mul_combine(a, b):
    return a * b + 0.0


@txl.jit
def _argmax_combine(v0, i0, v1, i1):
    take = v1 > v0
    return tl.where(take, v1, v0), tl.where(take, i1, i0)


@txl.jit
def _reductions(x_ptr, i_ptr, y_ptr):
    rows = tl.arange(0, 64)
    cols = tl.arange(0, 128)
    x = tl.load(x_ptr + rows[:, None] * 128 + cols[None, :])
    i = tl.load(i_ptr + rows[:, None] * 128 + cols[None, :])
    p = tl.reduce(x, 1, _mul_combine)
    v, ix = tl.reduce((x, i), 1, _argmax_combine)
    o = tl.reduce_or(i, 1) + tl.xor_sum(i, 1)
    tot = tl.reduce(x, None, _mul_combine, keep_dims=True)
    tl.store(y_ptr + rows, p + v + ix.to(tl.float32) + o.to(tl.float32) + tl.reshape(tot, [1]))


def test_reduce_with_a_combine_function():
    text = ir_of(_reductions, {"x_ptr": "*fp32", "i_ptr": "*i32", "y_ptr": "*fp32"})
    check(text,
          r"%p = txl.reduce %x axis 1 : \(tensor<64x128xf32>\) -> tensor<64xf32> \{",
          r"\^bb0\(%a0: f32, %b0: f32\):", r"%cst = arith.constant 0.0+e\+00 : f32",  # the constant stays inside
          r"arith.mulf %a0, %b0", r"arith.addf", r"txl.reduce_return %\d+ : f32",
          r"%v, %ix = txl.reduce %x, %i axis 1 : \(tensor<64x128xf32>, tensor<64x128xi32>\) -> "
          r"\(tensor<64xf32>, tensor<64xi32>\)", r"arith.cmpf ogt", r"arith.select", r"arith.select",
          r"txl.reduce_return %\d+, %\d+ : f32, i32",
          r"txl.reduce %i axis 1", r"arith.ori", r"txl.reduce %i axis 1", r"arith.xori",
          r"txl.reduce %x axis 1", r"txl.reduce %\d+ axis 0 : \(tensor<64xf32>\) -> f32")
    ptx, _ = compile_ptx(text)
    assert "shfl.sync.bfly" in ptx


@txl.jit
def _plain_python_combine(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 64))
    tl.store(x_ptr, tl.reduce(x, 0, max))


@txl.jit
def _xor_of_floats(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 64))
    tl.store(x_ptr, tl.xor_sum(x, 0))


@pytest.mark.parametrize("fn,expect", [(_plain_python_combine, "tl.reduce needs a @txl.jit combine function"),
                                       (_xor_of_floats, "tl.xor_sum needs integers, got fp32")])
def test_reduce_errors(fn, expect):
    e = _compile_error(fn)
    assert e.file == __file__.replace(".pyc", ".py") and expect in e.message, str(e)


@txl.jit
def _debug_barrier(x_ptr):
    offs = tl.arange(0, 128)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1.0)
    tl.debug_barrier()
    tl.store(x_ptr + offs, tl.load(x_ptr + 127 - offs))


def test_debug_barrier_syncs_the_block():
    text = ir_of(_debug_barrier, {"x_ptr": "*fp32"}, num_warps=8)
    check(text, r"txl.store", r"txl.bar_wait 0, 256", r"txl.load")
    ptx, _ = compile_ptx(text)
    assert "bar.sync \t0, 256;" in ptx or "barrier.sync \t0, 256;" in ptx or "bar.sync \t0;" in ptx


@txl.jit
def _takes_offsets(x_ptr, offs: tl.constexpr):
    return tl.load(x_ptr + offs)


@txl.jit
def _runtime_to_constexpr(x_ptr, y_ptr):
    offs = tl.arange(0, 64)
    tl.store(y_ptr + offs, _takes_offsets(x_ptr, offs))


def test_a_run_time_value_for_a_device_functions_constexpr_parameter_binds_as_it_is():
    # Triton's tutorial 06 passes offs_m = tl.arange(...) to `offs_m: tl.constexpr` of _attn_fwd_inner
    text = ir_of(_runtime_to_constexpr, {"x_ptr": "*fp32", "y_ptr": "*fp32"})
    check(text, r"txl.make_range 0, 64", r"txl.load", r"txl.store")


@txl.jit
def _pointer_table(table_ptr, out_ptr, G: tl.constexpr):
    g = tl.arange(0, G)
    src = tl.load(table_ptr + g).to(tl.pointer_type(tl.float16))  # Triton's tutorial 08 keeps int64 addresses
    tl.store(out_ptr + g, tl.load(src).to(tl.float32) + (src.to(tl.int64) != 0).to(tl.float32))
    tl.store(tl.load(table_ptr).to(tl.int32).to(tl.pointer_type(tl.float32)), 1.0)  # an int32 is widened first


def test_pointers_cast_to_and_from_int64():
    text = ir_of(_pointer_table, {"table_ptr": "*i64", "out_ptr": "*fp32"}, {"G": 16})
    check(text, r"txl.int_to_ptr %\w+ : tensor<16xi64> -> tensor<16x!txl.ptr<f16>>",
          r"txl.ptr_to_int %\w+ : tensor<16x!txl.ptr<f16>> -> tensor<16xi64>", r"arith.extsi",
          r"txl.int_to_ptr %\w+ : i64 -> !txl.ptr<f32>")
    compile_ptx(text)


@txl.jit
def _device_print(x_ptr, n):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs)
    tl.device_print("x 100% = ", x)
    tl.device_print("n ", n, hex=True)
    txl.print("m_i = ", tl.max(x, 0))


def test_device_print_is_vprintf():
    text = ir_of(_device_print, {"x_ptr": "*fp32", "n": "i32"})
    check(text, r'txl.print "x 100% = " %x : tensor<64xf32>', r'txl.print "n " %n : i32 \{hex\}',
          r'txl.print "m_i = " %\w+ : f32')
    ptx, _ = compile_ptx(text, emit="cubin")  # ptxas resolves vprintf
    ptx, _ = compile_ptx(text)
    assert "vprintf" in ptx and "cvt.f64.f32" in ptx
    # the format strings (the array holds one byte more: the NUL PTX zero-fills); the prefix's "%" is text: "%%"
    formats = [bytes(int(b) for b in m.split(", "))
               for m in re.findall(r"\.b8 txl_printf_\d+\[\d+\] = \{([\d, ]+)\}", ptx)]
    assert b"pid (%d, %d, %d) idx (%d) x 100%% = %f\n" in formats, formats
    assert b"pid (%d, %d, %d) n %x\n" in formats, formats
