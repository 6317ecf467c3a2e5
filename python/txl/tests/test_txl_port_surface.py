"""Issue 17, first tranche: TXL's Python surface, so that TXL kernels port by changing only their imports.

The kernels are in txl_port_kernels.py, written (txl's own code) the way TXL's tutorials write theirs, with TXL's
imports replaced by txl's; here they compile to PTX through the real compiler (no GPU: txl.compile and the
autotuner's warmup). The rest checks each piece of the surface: the package's re-exports, TXL's jit / autotune /
Config arguments, kernel parameters named like launch options, @triton.jit helpers, proton scopes, tuple
concatenation, Triton-style (shape, strides) host descriptors and the builtins whose meaning differed.
"""

import contextlib
import importlib.util
import re
import warnings

import pytest

import txl
import txl.language as tl
from txl.compiler import compiler as C
from txl.errors import CompilationError
from txl.jit import JITFunction
from txl.tests import txl_port_kernels as K
from txl.tests.txl_fakes import FakeTensor

from .dsl_helpers import check, check_not, ir_of, run_opt


def _need_txlc():
    if C.find_txlc() is None:  # pragma: no cover
        pytest.skip("txlc is not built")


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TXL_CACHE_DIR", str(tmp_path / "cache"))
    for v in ("TXL_TXLC", "TXL_DUMP_IR", "TXL_KEEP_TEMPS", "TXL_DEBUG_HANGS"):
        monkeypatch.delenv(v, raising=False)


class StridedFake(FakeTensor):
    """A FakeTensor with torch's as_strided (a view of the same memory)."""

    def as_strided(self, shape, strides):
        return StridedFake(shape, self.dtype[len("torch."):], strides=strides, ptr=self._ptr)


# ---------------------------------------------------------------------------------------------------------------
# 1. module / decorator surface
# ---------------------------------------------------------------------------------------------------------------
def test_the_tutorials_guarded_import_keeps_txl():
    assert K.Has_TXL is True
    from txl.language.semantic import TXLSemantic

    assert K.TXLSemantic is TXLSemantic
    assert not isinstance(K.txl, type)  # the stub is a class; the real txl is the package


def test_txl_reexports_triton_language_as_txl_does():
    for name in ("zeros", "zeros_like", "arange", "full", "dot", "load", "store", "where", "maximum", "exp2",
                 "program_id", "num_programs", "static_range", "range", "float16", "bfloat16", "float32",
                 "int32", "make_tensor_descriptor", "reshape", "split", "permute", "sum", "max", "cast"):
        assert getattr(txl, name) is getattr(tl, name), name
    assert txl.tensor_descriptor is tl.tensor_descriptor
    assert txl.math is tl.math and tl.math.exp2 is tl.exp2
    assert txl.relayout is tl.relayout and txl.ones is tl.ones and txl.print_layout is tl.print_layout
    assert txl.smem_alloc is tl.smem_alloc and txl.BlockedLayout is tl.BlockedLayout
    assert txl.Cdiv(7, 2) == txl.cdiv(7, 2) == 4  # TXL's `from triton import cdiv as Cdiv`
    # txl's own names keep txl's meaning
    assert txl.jit.__module__ == "txl.jit" and txl.Config.__module__ == "txl.autotune"
    assert txl.TensorDescriptor.__module__ == "txl.jit" and callable(txl.compile)
    with pytest.raises(AttributeError, match="tl.frobnicate does not exist: .*not a name of Triton"):
        txl.frobnicate


def test_txl_profiler_host_calls_are_no_ops():
    import txl.profiler as proton
    import txl.profiler.language as pl

    pl.enable_semantic("triton")
    pl.enable_semantic_obj(txl.language.semantic.TXLSemantic)
    with pytest.warns(UserWarning, match="no profile is written"):
        session = proton.start("matmul", hook="triton")
    assert isinstance(session, int)
    proton.activate(session)
    with proton.scope("bench"):
        pass

    @proton.scope("fn")
    def f():
        return 3

    assert f() == 3
    proton.deactivate(session)
    proton.finalize()
    assert txl.profiler is proton


def test_jit_accepts_txl_options():
    def kern(x_ptr, n, BLOCK: tl.constexpr):
        pass

    meta = K._launch_metadata
    jf = txl.jit(launch_metadata=meta, use_txl=False, version=1, repr=None)(kern)
    assert isinstance(jf, JITFunction) and jf.launch_metadata is meta and jf.use_txl is False
    with pytest.warns(UserWarning, match=r"'llir' is a stage of Triton's pipeline.*diff_mode='txl'"):
        jf = txl.jit(diff_mode="llir", diff_select=22, log_dir="")(kern)
    assert jf.diff_mode is None and jf.diff_select is None
    with pytest.raises(ValueError, match="src_file='k.ttgir'.*txlc file.mlir"):
        txl.jit(src_file="k.ttgir")(kern)
    with pytest.raises(ValueError, match="supported mode is 'txl'"):
        txl.jit(diff_mode="sass")(kern)
    # Triton's do_not_specialize_on_alignment: no ':16' for that parameter (ints == 1 still specialise)
    jf = txl.jit(do_not_specialize_on_alignment=["n"])(kern)
    sig, consts = jf.specialize(jf.bind((FakeTensor((64,)), 32), {"BLOCK": 64}))
    assert sig == {"x_ptr": "*fp32:16", "n": "i32"} and consts == {"BLOCK": 64}
    with pytest.raises(ValueError, match="names m, which is not a parameter"):
        txl.jit(do_not_specialize_on_alignment=["m"])(kern)


def test_autotune_accepts_triton_configs_and_txl_arguments():
    # attn_fwd_kernel is tuned over a triton.Config (CI: the stand-in with Triton's attributes)
    tuner = K.attn_fwd_kernel
    (c,) = tuner.configs
    assert isinstance(c, txl.Config) and c.kwargs == {"BLOCK_M": 64, "BLOCK_N": 64}
    assert (c.num_warps, c.num_warpgroups, c.num_stages, c.pre_hook) == (4, 1, 1, K._attn_pre_hook)
    assert K.ws_gemm_kernel.use_cuda_graph is True
    # TXL's argument order: Config(kwargs, num_warps, num_warpgroups, num_stages, num_ctas, maxnreg, pre_hook)
    c = txl.Config({"B": 1}, 4, 3, 2, 1, 232, K._gemm_pre_hook)
    assert (c.num_warps, c.num_warpgroups, c.num_stages, c.num_ctas, c.maxnreg, c.pre_hook) == \
        (4, 3, 2, 1, 232, K._gemm_pre_hook)
    with pytest.raises(TypeError, match="takes txl.Config \\(or triton.Config\\) objects"):
        txl.autotune(configs=[{"BLOCK": 64}], key=[])(K.dotx_kernel)


# ---------------------------------------------------------------------------------------------------------------
# launch options that are kernel parameters
# ---------------------------------------------------------------------------------------------------------------
@pytest.fixture
def compiled(monkeypatch):
    """JITFunction._compile records (signature, constexprs, options) instead of compiling."""
    calls = []

    def fake(self, sig, consts, options):
        calls.append((sig, consts, options))
        return "compiled"

    monkeypatch.setattr(JITFunction, "_compile", fake)
    return calls


def test_num_warps_parameter_gets_the_launch_value(compiled):
    k = K.row_softmax_kernel
    k.cache.clear()
    x = FakeTensor((8, 1000))
    assert k.warmup(x, x, 1000, 1000, 8, 1000, 1024, 2, grid=(8,), num_warps=8) == "compiled"
    sig, consts, options = compiled[-1]
    assert consts == {"BLOCK_SIZE": 1024, "num_stages": 2, "num_warps": 8}
    assert options["num_warps"] == 8 and options["num_stages"] is None  # num_stages given positionally: a param
    k.warmup(x, x, 1000, 1000, 8, 1000, BLOCK_SIZE=1024, num_stages=3, num_warps=4, grid=(8,))
    sig, consts, options = compiled[-1]
    assert consts["num_stages"] == 3 and options["num_stages"] == 3 and options["num_warps"] == 4
    with pytest.raises(TypeError, match="missing a required argument: 'num_warps'"):
        k.warmup(x, x, 1000, 1000, 8, 1000, 1024, 2, grid=(8,))


def test_num_ctas_launch_option(compiled):
    @txl.jit
    def kern(x_ptr, n, BLOCK: tl.constexpr):
        pass

    kern.warmup(FakeTensor((64,)), 64, BLOCK=64, num_ctas=1, grid=(1,))
    assert compiled[-1][1] == {"BLOCK": 64} and "num_ctas" not in compiled[-1][2]
    kern.warmup(FakeTensor((64,)), 64, BLOCK=64, num_ctas=2, grid=(1,))  # clusters of 2 CTAs
    assert compiled[-1][2]["num_ctas"] == 2
    with pytest.raises(ValueError, match="num_ctas=9: CTAs per cluster"):
        kern.warmup(FakeTensor((64,)), 64, BLOCK=64, num_ctas=9, grid=(1,))


# ---------------------------------------------------------------------------------------------------------------
# 2. host descriptors: Triton's (base, shape, strides, block_shape) with a reshaped shape
# ---------------------------------------------------------------------------------------------------------------
def test_tensor_descriptor_takes_txls_reshaped_shape():
    q = StridedFake((16, 32, 1024, 128), "float16")
    y_dim = 16 * 32 * 1024
    d = txl.TensorDescriptor(q, shape=[y_dim, 128], strides=[128, 1], block_shape=[1, 1])
    assert d.shape == [524288, 128] and d.strides == [128, 1] and d.base.data_ptr() == q.data_ptr()
    d.block_shape = [128, 128]  # what the tutorials' pre_hooks do
    jf = txl.jit(lambda_kernel)
    sig, _ = jf.specialize(jf.bind((d,), {}))
    assert sig == {"desc": "tensordesc<fp16[128, 128]>"}
    # Triton's positional spelling and from_tensor
    assert txl.TensorDescriptor(q, [y_dim, 128], [128, 1], [64, 128]).shape == [524288, 128]
    assert txl.TensorDescriptor.from_tensor(q, [1, 1, 64, 128]).base is q
    # the same shape and strides: the tensor itself
    assert txl.TensorDescriptor(q, q.shape, q.stride(), [1, 1, 64, 128]).base is q
    with pytest.raises(ValueError, match="beyond the tensor"):
        txl.TensorDescriptor(q, shape=[y_dim + 1, 128], strides=[128, 1], block_shape=[1, 1])
    with pytest.raises(ValueError, match="different ranks"):
        txl.TensorDescriptor(q, shape=[y_dim, 128], strides=[1], block_shape=[1, 1])
    with pytest.raises(ValueError, match="has no as_strided: pass a view"):
        txl.TensorDescriptor(FakeTensor((16, 1024, 128), "float16"), [16 * 1024, 128], [128, 1], [1, 1])
    assert txl.TensorDescriptor(q, [y_dim, 128], [128, 1], [64, 128], "nan").padding == "nan"


def lambda_kernel(desc):
    pass


class _TritonHostDescriptor:
    """Shaped like triton.tools.tensor_descriptor.TensorDescriptor (a dataclass of base, shape, strides,
    block_shape, padding), which TXL's tutorials build on the host (CI has no triton)."""

    def __init__(self, base, shape, strides, block_shape, padding="zero"):
        self.base, self.shape, self.strides, self.block_shape, self.padding = base, shape, strides, block_shape, padding


_TritonHostDescriptor.__name__ = "TensorDescriptor"
_TritonHostDescriptor.__module__ = "triton.tools.tensor_descriptor"


def test_triton_host_descriptors_are_taken_as_txls():
    # TXL's tutorials keep `from triton.tools.tensor_descriptor import TensorDescriptor` (Triton is installed
    # wherever TXL is); a txl kernel takes such a descriptor as a txl.TensorDescriptor, reading its block shape at
    # the launch (after the autotune pre_hook set it).
    from txl.autotune import _snapshot
    from txl.jit import _adopt_descriptor

    q = StridedFake((16, 32, 1024, 128), "float16")
    d = _TritonHostDescriptor(q, [16 * 32 * 1024, 128], [128, 1], [1, 1])
    d.block_shape = [64, 128]
    jf = txl.jit(lambda_kernel)
    sig, _ = jf.specialize({n: _adopt_descriptor(v) for n, v in jf.bind((d,), {}).items()})
    assert sig == {"desc": "tensordesc<fp16[64, 128]>"}
    adopted = _adopt_descriptor(d)
    assert isinstance(adopted, txl.TensorDescriptor) and adopted.shape == [524288, 128]
    assert _adopt_descriptor(adopted) is adopted and _adopt_descriptor(q) is q
    snap = _snapshot(d)  # what the autotuner keeps per config: later pre_hooks do not reach it
    d.block_shape = [128, 128]
    assert isinstance(snap, txl.TensorDescriptor) and snap.block_shape == [64, 128]


# ---------------------------------------------------------------------------------------------------------------
# 4. the port kernels compile to PTX through the real compiler
# ---------------------------------------------------------------------------------------------------------------
def test_port_ws_gemm_compiles_every_config(private_cache):
    _need_txlc()
    a, b, c = StridedFake((512, 256), "float16"), StridedFake((256, 256), "float16"), StridedFake((512, 256),
                                                                                                 "float16")
    kernels = K.ws_gemm(a, b, c, launch=False)
    assert len(kernels) == 2
    for k, block_n in zip(kernels, (128, 64)):
        ptx = k.asm["ptx"]
        assert "wgmma.mma_async" in ptx and re.search(r"setmaxnreg.dec.sync.aligned.u32\s+40;", ptx)
        assert "cp.async.bulk.tensor" in ptx and "mbarrier.try_wait.parity" in ptx
        assert k.metadata["threads"] == [384, 1, 1]
        # the config's pre_hook sized the dummy-block descriptors: A and C halves of BLOCK_M, B [BLOCK_N, K]
        assert [p["block_shape"] for p in k.metadata["params"][:3]] == [[64, 64], [block_n, 64], [64, 64]]


def test_port_attention_on_reshaped_descriptors_compiles(private_cache):
    _need_txlc()
    q, k, v, o = (StridedFake((2, 4, 256, 64), "float16") for _ in range(4))
    (kern,) = K.attn_fwd(q, k, v, o, 0.5, launch=False)
    ptx = kern.asm["ptx"]
    assert "wgmma.mma_async" in ptx and "cp.async.bulk.tensor.2d" in ptx and "ex2.approx" in ptx


def test_port_attention_ir_uses_the_descriptors_and_the_buffer(private_cache):
    text = ir_of(K.attn_fwd_kernel.fn, {"sm_scale": "fp32", "desc_q": "tensordesc<fp16[64, 64]>",
                                        "desc_k": "tensordesc<fp16[64, 64]>", "desc_v": "tensordesc<fp16[64, 64]>",
                                        "desc_o": "tensordesc<fp16[64, 64]>", "Z": "i32", "H": "i32",
                                        "N_CTX": "i32"},
                 {"HEAD_DIM": 64, "BLOCK_M": 64, "BLOCK_N": 64})
    # the descriptors are the arguments (no tl.make_tensor_descriptor), and P's buffer feeds the dot unconverted
    check_not(text, r"txl.make_tensor_descriptor")
    check(text, r"txl.smem_store .*%cur_p", r"txl.dot .*%cur_p")


def test_port_row_softmax_compiles(private_cache):
    _need_txlc()
    k = txl.compile(K.row_softmax_kernel, {"output_ptr": "*fp32", "input_ptr": "*fp32", "input_row_stride": "i32",
                                           "output_row_stride": "i32", "n_rows": "i32", "n_cols": "i32"},
                    {"BLOCK_SIZE": 1024, "num_stages": 2, "num_warps": 4})
    assert "shfl.sync.bfly" in k.asm["ptx"]


def test_port_dotx_returns_the_accumulator_and_compiles_for_sm100(private_cache):
    sig = {"a_desc": "tensordesc<bf16[128, 64]>", "b_desc": "tensordesc<bf16[64, 64]>", "c_ptr": "*fp32",
           "K": "i32"}
    consts = {"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 64}
    text = ir_of(K.dotx_kernel, sig, consts, target="sm_100a")
    # acc = txl.dotx(..., acc, ...) is the tensor-memory buffer itself: tmem_load reads it
    check(text, r"%acc = txl.get_buffer %acc0", r"txl.dotx .*, %acc mbars", r"txl.tmem_load %acc :")
    _need_txlc()
    k = txl.compile(K.dotx_kernel, sig, consts, target="sm_100a")
    assert "tcgen05.mma" in k.asm["ptx"] and "tcgen05.ld" in k.asm["ptx"]


# ---------------------------------------------------------------------------------------------------------------
# in-kernel constructs, one at a time
# ---------------------------------------------------------------------------------------------------------------
class JITFunction_:  # noqa: N801 - a third-party JIT function (launchable, .fn), e.g. Triton's
    def __init__(self, fn):
        self.fn = fn

    def __getitem__(self, grid):
        raise RuntimeError


@JITFunction_
def _helper(x, SCALE: tl.constexpr):
    return x * SCALE, x + 1


@txl.jit
def _calls_foreign_helper(x_ptr):
    offs = tl.arange(0, 128)
    a, b = _helper(tl.load(x_ptr + offs), 2.0)
    tl.store(x_ptr + offs, a + b)


def test_triton_jit_helpers_are_inlined():
    text = ir_of(_calls_foreign_helper, {"x_ptr": "*fp32"})
    check(text, r"arith.mulf", r"arith.addf", r"txl.store")


def test_real_triton_jit_helpers_are_inlined():
    if importlib.util.find_spec("triton") is None:
        pytest.skip("triton is not installed (the stand-in test above covers the duck typing)")
    assert type(K._tile_coords).__module__.startswith("triton")
    test_port_attention_ir_uses_the_descriptors_and_the_buffer(None)


class _TritonProton:
    """Triton's triton.profiler.language, as far as kernels see it (its functions' and scope's __module__)."""

    @staticmethod
    def enter_scope(name):
        raise AssertionError("not called in kernels")

    @staticmethod
    def exit_scope(name):
        raise AssertionError("not called in kernels")

    class scope:
        def __init__(self, name, _semantic=None):
            self.name = name


for _f in (_TritonProton.enter_scope, _TritonProton.exit_scope):
    _f.__module__ = "triton.profiler.language"
_TritonProton.scope.__module__ = "triton.profiler.language"
tpl = _TritonProton


@txl.jit
def _scoped(x_ptr):
    with K.pl.scope("kernel"):
        offs = tl.arange(0, 128)
        K.pl.enter_scope("load")
        x = tl.load(x_ptr + offs)
        K.pl.exit_scope("load")
        with tpl.scope("triton's") as s:
            tpl.enter_scope("inner")
            x = x + 1.0
            tpl.exit_scope("inner")
    tl.store(x_ptr + offs, x)


_NULL = contextlib.nullcontext()


@txl.jit
def _bad_with(x_ptr):
    with _NULL:
        pass


def test_proton_scopes_compile_to_nothing():
    text = ir_of(_scoped, {"x_ptr": "*fp32"})
    check(text, r"txl.load", r"arith.addf", r"txl.store")
    check_not(text, r"proton|func.call|\"(kernel|load|inner)\"")
    with pytest.raises(CompilationError, match="`with` statement") as info:
        ir_of(_bad_with, {"x_ptr": "*fp32"})
    assert "no context managers" in info.value.fix


@txl.jit
def _tuples(x_ptr):
    offs = tl.arange(0, 128)
    arr = ()
    for i in tl.static_range(3):
        arr = arr + (tl.load(x_ptr + offs + i * 128),)
    twice = arr * 2
    tl.store(x_ptr + offs, arr[0] + arr[2] + twice[4])


@txl.jit
def _tuple_plus_list(x_ptr):
    t = (tl.load(x_ptr),) + [1]


def test_tuple_concatenation():
    text = ir_of(_tuples, {"x_ptr": "*fp32"})
    assert text.count("txl.load") == 3
    with pytest.raises(CompilationError, match="cannot concatenate a tuple and a list"):
        ir_of(_tuple_plus_list, {"x_ptr": "*fp32"})


@txl.jit
def _buffer_to(x_ptr, DT: tl.constexpr):
    buf = txl.smem_alloc([64, 64], tl.float16)
    b = txl.get_buffer(buf, 0)
    p = tl.load(x_ptr + tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :])
    txl.smem_store(b, p.to(tl.float16))
    txl.fence_proxy_async()
    acc = tl.dot(b.to(DT), b.T)
    tl.store(x_ptr + tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :], acc)


def test_buffer_to_its_own_dtype_is_the_buffer():
    text = ir_of(_buffer_to, {"x_ptr": "*fp32"}, {"DT": tl.float16})
    check(text, r"%b = txl.get_buffer", r"txl.dot %b, ")
    with pytest.raises(CompilationError, match=r"buffer.to\(fp32\): a shared-memory buffer of fp16") as info:
        ir_of(_buffer_to, {"x_ptr": "*fp32"}, {"DT": tl.float32})
    assert info.value.fix == "load it first: txl.smem_load(buf).to(tl.float32)"


@txl.jit
def _relayout_wrong(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 128))
    y = txl.relayout(x, (64, 2), txl.BlockedLayout([1], [32], [4], [0]))


@txl.jit
def _prints_layout(x_ptr):
    txl.print_layout((64,), tl.float32, txl.BlockedLayout([1], [32], [4], [0]))


@txl.jit
def _ones(x_ptr):
    offs = tl.arange(0, 64)
    tl.store(x_ptr + offs, txl.ones([64], tl.float32) + txl.ones_like(tl.load(x_ptr + offs)))


def test_relayout_print_layout_ones():
    with pytest.raises(CompilationError, match=r"value's shape is \[128\]") as info:
        ir_of(_relayout_wrong, {"x_ptr": "*fp32"})
    assert "tl.reshape" in info.value.fix
    with pytest.raises(CompilationError, match="txl assigns register layouts in the compiler") as info:
        ir_of(_prints_layout, {"x_ptr": "*fp32"})
    assert "--stop-after=txl-assign-layouts" in info.value.fix
    check(ir_of(_ones, {"x_ptr": "*fp32"}), r"arith.constant dense<1.0+e\+00> : tensor<64xf32>",
          r"arith.constant dense<1.0+e\+00> : tensor<64xf32>", r"arith.addf")


@txl.jit
def _is_desc(d, p, out_ptr):
    tl.store(out_ptr, isinstance(d, tl.tensor_descriptor) and not isinstance(p, tl.tensor_descriptor))


def test_tensor_descriptor_isinstance():
    text = ir_of(_is_desc, {"d": "tensordesc<fp16[64, 64]>", "p": "*fp16", "out_ptr": "*i1"})
    check(text, r"arith.constant true", r"txl.store")
    with pytest.raises(TypeError, match="type of descriptor values"):
        tl.tensor_descriptor()


def test_no_warning_leaks_at_import():
    # the one warning the port kernels cause (attn_fwd_kernel's diff_mode='ttgir') is TXL's Triton-stage diff
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        txl.jit(diff_mode="ttgir")(lambda_kernel)
    assert [str(x.message).split(":")[0] for x in w] == ["@txl.jit(diff_mode='ttgir') of lambda_kernel"]


# ---------------------------------------------------------------------------------------------------------------
# 5. the TXL tutorial harness (bench/txl_tutorials.py): only import lines change, by its table
# ---------------------------------------------------------------------------------------------------------------
def _txl_tutorials_harness():
    import importlib.util
    import os

    path = os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench", "txl_tutorials.py")
    spec = importlib.util.spec_from_file_location("txl_tutorials_harness", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_txl_tutorial_harness_rewrites_only_import_lines():
    h = _txl_tutorials_harness()
    src = ("import torch\ntry:\n    import teraxlang as txl\n    from teraxlang.language.semantic import TXLSemantic\n"
           "except Exception:\n    pass\nimport triton.language as tl\nimport triton\n"
           "from triton.tools.tensor_descriptor import TensorDescriptor\n"
           "from teraxlang.tutorials.utils.test_util import attention_ref\nx = 'import teraxlang as txl'\n")
    out, changes = h.rewrite_imports(src, "t.py")
    assert out.splitlines() == [
        "import torch", "try:", "    import txl", "    from txl.language.semantic import TXLSemantic",
        "except Exception:", "    pass", "import txl.language as tl", "import triton",
        "from triton.tools.tensor_descriptor import TensorDescriptor",
        "from utils.test_util import attention_ref", "x = 'import teraxlang as txl'"]
    assert [n for n, _, _ in changes] == [3, 4, 7, 10]
    # every rewritten import resolves to txl's names (triton's host descriptor is taken at launch)
    ns = {}
    for new in ("import txl", "import txl.language as tl", "from txl.language.semantic import TXLSemantic",
                "import txl.profiler as proton", "import txl.profiler.language as pl"):
        assert new in h.REWRITES.values()
        exec(new, ns)
    # an import of TXL's package that no rule covers is an error, not a silent pass-through
    with pytest.raises(SystemExit, match=r"t.py:1: no rewrite rule for 'from teraxlang.language import core'"):
        h.rewrite_imports("from teraxlang.language import core\n", "t.py")
    # guarded imports of TXL's own flash-attn build stay as written (their except branch runs)
    assert h.rewrite_imports("    from teraxlang.tests.flash_attn.cute.interface import f\n", "t.py")[1] == []


def test_port_role_split_ring_k_steps_and_halves_compile(private_cache):
    # TXL's constructs the tutorials' import-only port needed this session, as one kernel (txl_port_kernels.py).
    sig = {"a_desc": "tensordesc<fp16[128, 64]>", "b_desc": "tensordesc<fp16[128, 64]>",
           "o_desc": "tensordesc<fp16[128, 128]>", "idx_ptr": "*i32", "K": "i32", "S_KV": "i32"}
    consts = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "NUM_STAGES": 2}
    text = ir_of(K.role_split_kernel, sig, consts, num_warps=4, num_warpgroups=3)
    # the ring's phase is carried through the loop although only an `if` on the slot changes it (the results are
    # %slot_1, %phase_1 when the role's `if` carries them out too: nothing reads them after it, and the frontend
    # prints them for txl-erase-dead-values to erase)
    check(text, r'%slot(_\d+)?, %phase(_\d+)? = "scf.for"\(.*, %c0, %c1\) \(\{\n\s*\^bb0\(%\w+: i32, %slot_\d+: i32, '
                r'%phase_\d+: i32\)',
          r"arith.xori %phase_")
    check(text, r"txl.dot .*\{async\} : !txl.smem<128x32xf16>, !txl.smem<32x128xf16>, tensor<128x128xf32>")
    # the K-step views of the TMA-filled rings get the descriptors' swizzle in txl-smem-allocs
    check(run_opt(text, "--txl-smem-allocs"),
          r"txl.dot .*\{async\} : !txl.smem<128x32xf16, #txl.nvmma_shared<swizzle = 128>>, "
          r"!txl.smem<32x128xf16, #txl.nvmma_shared<swizzle = 128, transposed = true>>, tensor<128x128xf32>")
    check(text, r"txl.frag_smem_store .* \{slicedDim = 1 : i32\}")
    _need_txlc()
    k = txl.compile(K.role_split_kernel, sig, consts, num_warps=4, num_warpgroups=3)
    ptx = k.asm["ptx"]
    # the warpgroup_id split is a role: per-warpgroup register budgets
    assert re.search(r"setmaxnreg.dec.sync.aligned.u32\s+40;", ptx) and \
        re.search(r"setmaxnreg.inc.sync.aligned.u32\s+232;", ptx)
    assert ptx.count("wgmma.mma_async") >= 4  # 2 K steps of 32 = 2 k16 wgmmas each, per loop body
    # the two halves of the 128-column tile: one 64-column box each
    assert ptx.count("cp.async.bulk.tensor.2d.global.shared::cta") == 2
