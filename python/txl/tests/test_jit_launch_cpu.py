"""``kernel[grid](*args)`` without a GPU: arguments -> signature/constexprs (with specialisation), the early
argument errors, compile through the cache (fake frontend, real txlc), the in-memory cache per specialisation,
the call into the runtime (its argument checks run; the driver call is replaced), diff_mode and debug dumps."""

import os
import tempfile

import pytest

import txl
import txl.language as tl
from txl.compiler import compiler as C
from txl.runtime import Kernel, normalize_grid
from txl.tests.txl_fakes import FakeTensor, fake_descriptor, install_fake_frontend


@txl.jit
def vector_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pass


@txl.jit(do_not_specialize=["n"])
def vector_add_dns(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pass


@txl.jit
def mixed(desc, p, i, f, b, opt=None, SCALE: tl.constexpr = 2.0):
    pass


def X(n=1000, dtype="float32", **kw):
    return FakeTensor((n,), dtype, **kw)


@pytest.fixture
def launches(tmp_path, monkeypatch):
    """Real txlc, fake frontend, private cache; Kernel.launch runs the runtime's checks and records the call."""
    if C.find_txlc() is None:  # pragma: no cover
        pytest.skip("txlc is not built")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # work dirs (kept ones too) go away with tmp_path
    monkeypatch.setenv("TXL_CACHE_DIR", str(tmp_path / "cache"))
    for v in ("TXL_TXLC", "TXL_DUMP_IR", "TXL_KEEP_TEMPS", "TXL_DEBUG_HANGS"):
        monkeypatch.delenv(v, raising=False)
    install_fake_frontend(monkeypatch)
    calls = []

    def fake_launch(self, grid, *args, stream=None, **kwargs):
        g = normalize_grid(grid, self.meta)
        self.check_args(*args, **kwargs)
        calls.append((self.meta.kernel, g, args, kwargs, stream))

    monkeypatch.setattr(Kernel, "launch", fake_launch)
    for f in (vector_add_kernel, vector_add_dns, mixed):
        f.cache.clear()
    return calls


# ---------------------------------------------------------------------------------------------------------------
# signature mapping
# ---------------------------------------------------------------------------------------------------------------
def spec(fn, *args, **kwargs):
    return fn.specialize(fn.bind(args, kwargs))


def test_signature_of_pointers_and_ints():
    sig, cx = spec(vector_add_kernel, X(), X(), X(), 1024, BLOCK=256)
    # ":16" on pointers: the data is 16-byte aligned (what lets txl-vectorize-accesses emit vector accesses)
    assert sig == {"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "out_ptr": "*fp32:16", "n": "i32:16"}
    assert cx == {"BLOCK": 256}
    assert spec(vector_add_kernel, X(ptr=0x7F0000000004), X(), X(), 1024, 256)[0]["x_ptr"] == "*fp32"
    assert spec(vector_add_kernel, X(), X(), X(), 1000, 256)[0]["n"] == "i32"
    assert spec(vector_add_kernel, X(), X(), X(), 0, 256)[0]["n"] == "i32:16"
    assert spec(vector_add_kernel, X(), X(), X(), -32, 256)[0]["n"] == "i32:16"
    sig, cx = spec(vector_add_kernel, X(), X(), X(), 1, 256)
    assert "n" not in sig and cx == {"n": 1, "BLOCK": 256}  # == 1 becomes a constexpr
    assert spec(vector_add_kernel, X(), X(), X(), 2**40, 256)[0]["n"] == "i64:16"
    assert spec(vector_add_kernel, X(), X(), X(), 2**31, 256)[0]["n"] == "i64:16"
    assert spec(vector_add_kernel, X(), X(), X(), -(2**31) - 1, 256)[0]["n"] == "i64"
    with pytest.raises(ValueError, match="argument 'n' = .* does not fit in 64 bits"):
        spec(vector_add_kernel, X(), X(), X(), 2**64, 256)
    for dt, s in (("bfloat16", "*bf16"), ("float16", "*fp16"), ("int32", "*i32"), ("float8_e4m3fn", "*fp8e4nv"),
                  ("uint8", "*u8"), ("bool", "*i1"), ("int64", "*i64")):
        assert spec(vector_add_kernel, X(dtype=dt), X(), X(), 7, 256)[0]["x_ptr"] == s + ":16"


def test_do_not_specialize():
    sig, cx = spec(vector_add_dns, X(), X(), X(), 1, 256)
    assert sig["n"] == "i32" and cx == {"BLOCK": 256}
    assert spec(vector_add_dns, X(), X(), X(), 1024, 256)[0]["n"] == "i32"
    assert txl.jit(do_not_specialize=[3])(vector_add_kernel.fn).do_not_specialize == ("n",)
    with pytest.raises(ValueError, match="do_not_specialize.*names m, which is not a parameter"):
        txl.jit(do_not_specialize=["m"])(vector_add_kernel.fn)


def test_signature_of_descriptors_floats_bools_none():
    t = FakeTensor((256, 128), "bfloat16")
    d = fake_descriptor(t, [64, 64], 128)
    sig, cx = spec(mixed, d, X(dtype="float16"), 5, 0.5, True)
    assert sig == {"desc": "tensordesc<bf16[64, 64], swizzle=128>", "p": "*fp16:16", "i": "i32", "f": "fp32",
                   "b": "i1"}
    assert cx == {"opt": None, "SCALE": 2.0}
    sig, cx = spec(mixed, fake_descriptor(FakeTensor((64, 32), "float32"), [16, 8], 32), X(), 5, 1.0, False,
                   opt=3, SCALE=1.5)
    assert sig["desc"] == "tensordesc<fp32[16, 8], swizzle=32>" and sig["opt"] == "i32" and cx == {"SCALE": 1.5}


def test_logical_tensor_descriptor():
    """txl.TensorDescriptor carries the kernel's logical tile (wider than a swizzle span is fine); nothing is
    encoded until the launch, so pre_hooks may change block_shape and no driver is needed."""
    t = FakeTensor((1024, 512), "bfloat16")
    d = txl.TensorDescriptor(t, block_shape=[64, 256])
    assert spec(mixed, d, X(), 5, 0.5, True)[0]["desc"] == "tensordesc<bf16[64, 256]>"
    d.block_shape = [128, 64]
    assert spec(mixed, d, X(), 5, 0.5, True)[0]["desc"] == "tensordesc<bf16[128, 64]>"
    d = txl.TensorDescriptor.from_tensor(t, [64, 64], swizzle=64)
    assert spec(mixed, d, X(), 5, 0.5, True)[0]["desc"] == "tensordesc<bf16[64, 64], swizzle=64>"
    assert spec(mixed, txl.TensorDescriptor(t, [1024, 512], [512, 1], [64, 32]), X(), 5, 0.5, True)[0]["desc"] == \
        "tensordesc<bf16[64, 32]>"  # Triton's spelling (base, shape, strides, block_shape)
    assert repr(d) == "txl.TensorDescriptor(block_shape=[64, 64], swizzle=64)"
    # Triton's semantics: shape/strides describe memory from the tensor's first element (a view, see
    # test_txl_port_surface.py); one that reaches past the tensor is refused.
    with pytest.raises(ValueError, match="reach element 1049087 from the start, beyond the tensor"):
        txl.TensorDescriptor(t, [2049, 512], [512, 1], [8, 8])
    with pytest.raises(TypeError, match="needs a block_shape"):
        txl.TensorDescriptor(t)
    with pytest.raises(TypeError, match="needs a CUDA tensor, got list"):
        txl.TensorDescriptor([1, 2], [1])
    with pytest.raises(ValueError, match="argument 'desc' is a TensorDescriptor of a tensor on cpu"):
        spec(mixed, txl.TensorDescriptor(FakeTensor((64, 64), device="cpu"), [64, 64]), X(), 5, 0.5, True)
    with pytest.raises(ValueError, match="innermost dimension is not contiguous"):
        spec(mixed, txl.TensorDescriptor(FakeTensor((64, 64), strides=(1, 64)), [64, 64]), X(), 5, 0.5, True)
    with pytest.raises(TypeError, match="argument 'SCALE' is a tl.constexpr but got"):
        spec(mixed, d, X(), 5, 0.5, True, None, d)


def test_argument_errors_name_kernel_and_argument():
    here = "vector_add_kernel (%s:%d)" % (os.path.abspath(__file__), vector_add_kernel.starting_line_number)
    with pytest.raises(ValueError) as ei:
        spec(vector_add_kernel, X(device="cpu"), X(), X(), 8, 256)
    msg = str(ei.value)
    assert msg.startswith(here + ": argument 'x_ptr' is a tensor on cpu") and ".cuda()" in msg
    with pytest.raises(TypeError, match="argument 'y_ptr' is a tensor of dtype torch.complex64, which txl kernels "
                                        "cannot take"):
        spec(vector_add_kernel, X(), X(dtype="complex64"), X(), 8, 256)
    # a strided view is taken as it is (the kernel indexes through the strides it is given), as in Triton
    spec(vector_add_kernel, X(), X(), X(strides=(2,)), 8, 256)
    with pytest.raises(TypeError, match="argument 'n' is str 'x'"):
        spec(vector_add_kernel, X(), X(), X(), "x", 256)
    with pytest.raises(TypeError, match="argument 'BLOCK' is a tl.constexpr but got a f32 tensor"):
        spec(vector_add_kernel, X(), X(), X(), 8, X())
    with pytest.raises(TypeError, match=r"vector_add_kernel \(.*\): missing a required argument: 'BLOCK'; its "
                                        r"parameters are \(x_ptr, y_ptr, out_ptr, n, BLOCK\)"):
        spec(vector_add_kernel, X(), X(), X(), 8)
    with pytest.raises(TypeError, match="unexpected keyword argument 'BLOK'"):
        spec(vector_add_kernel, X(), X(), X(), 8, 4, BLOK=3)


# ---------------------------------------------------------------------------------------------------------------
# launching
# ---------------------------------------------------------------------------------------------------------------
def test_launch_compiles_once_per_specialisation(launches):
    from txl.tests.txl_fakes import fake_ast_to_ir

    x, y, o = X(), X(), X()
    vector_add_kernel[(4,)](x, y, o, 1000, BLOCK=256)
    name, grid, args, kwargs, stream = launches[-1]
    assert name == "vector_add_kernel" and grid == (4, 1, 1) and args == () and stream is None
    assert kwargs == {"x_ptr": x, "y_ptr": y, "out_ptr": o, "n": 1000}  # by the sidecar's names
    assert len(fake_ast_to_ir.calls) == 1
    vector_add_kernel[(4,)](x, y, o, 999, BLOCK=256)  # same specialisation (i32, not divisible by 16)
    assert len(fake_ast_to_ir.calls) == 1 and len(launches) == 2
    vector_add_kernel[(4,)](x, y, o, 1024, BLOCK=256)  # i32:16
    vector_add_kernel[(4,)](x, y, o, 999, BLOCK=512)
    vector_add_kernel[(4,)](x, y, o, 999, BLOCK=512, num_warps=8)
    assert len(fake_ast_to_ir.calls) == 4 and len(vector_add_kernel.cache) == 4
    assert fake_ast_to_ir.calls[-1][3] == 8


def test_launch_n_equal_one_is_a_constexpr(launches):
    x = X()
    vector_add_kernel[(1,)](x, x, x, 1, BLOCK=128)
    kwargs = launches[-1][3]
    assert "n" not in kwargs and list(kwargs) == ["x_ptr", "y_ptr", "out_ptr"]


def test_grid_callable_gets_meta(launches):
    seen = {}

    def grid(meta):
        seen.update(meta)
        return (-(-meta["n"] // meta["BLOCK"]),)

    x = X()
    vector_add_kernel[grid](x, x, x, 1000, BLOCK=256, num_warpgroups=1)
    assert launches[-1][1] == (4, 1, 1)
    assert seen["BLOCK"] == 256 and seen["n"] == 1000 and seen["num_warps"] == 4 and seen["x_ptr"] is x
    vector_add_kernel[lambda m: 3](x, x, x, 1000, BLOCK=256)
    assert launches[-1][1] == (3, 1, 1)


def test_empty_or_bad_grid_fails_before_compiling(launches):
    from txl.tests.txl_fakes import fake_ast_to_ir

    x = X()
    with pytest.raises(ValueError, match=r"vector_add_kernel \(.*\): grid \[0, 1, 1\] is empty"):
        vector_add_kernel[(0,)](x, x, x, 1000, BLOCK=256)
    with pytest.raises(ValueError, match=r"grid \[2, 0, 1\] is empty"):
        vector_add_kernel[lambda m: (2, 0)](x, x, x, 1000, BLOCK=256)
    with pytest.raises(TypeError, match="grid must be an int or a tuple"):
        vector_add_kernel[(1, 2, 3, 4)](x, x, x, 1000, BLOCK=256)
    with pytest.raises(ValueError, match="tensor on cpu"):
        vector_add_kernel[(1,)](X(device="cpu"), x, x, 1000, BLOCK=256)
    assert fake_ast_to_ir.calls == [] and launches == []


def test_stream_and_debug_hangs_are_passed(launches, monkeypatch):
    x = X()
    vector_add_kernel[(1,)](x, x, x, 1000, BLOCK=256, stream=7)
    assert launches[-1][4] == 7
    k = vector_add_kernel.warmup(x, x, x, 1000, BLOCK=256, debug_hangs=True)
    assert k.options["debug_hangs"] is True
    monkeypatch.setenv("TXL_DEBUG_HANGS", "1")
    assert vector_add_kernel.warmup(x, x, x, 1000, BLOCK=256).key == k.key


def test_warmup_compiles_without_launching(launches):
    x = X()
    k = vector_add_kernel.warmup(x, x, x, 1000, BLOCK=256)
    assert isinstance(k, txl.CompiledKernel) and launches == []
    assert ".entry vector_add_kernel(" in k.asm["ptx"]


def test_descriptor_launch_passes_the_tensor(launches, monkeypatch):
    """A txl.TensorDescriptor reaches the runtime as its tensor (the runtime encodes it with the sidecar's box)."""
    from txl.tests import txl_fakes

    seen = []

    def desc_frontend(fn, sig, cx, **kw):  # record what the frontend was told; the IR takes a plain pointer
        seen.append(sig["x_ptr"])
        return txl_fakes.fake_ast_to_ir(fn, dict(sig, x_ptr="*fp32"), cx, **kw)

    monkeypatch.setattr(__import__("sys").modules["txl.compiler.code_generator"], "ast_to_ir", desc_frontend)
    t, x = FakeTensor((16, 64)), X()
    vector_add_kernel[(1,)](txl.TensorDescriptor(t, [16, 64]), x, x, 1000, BLOCK=256)
    assert seen == ["tensordesc<fp32[16, 64]>"]
    assert launches[-1][3]["x_ptr"] is t


def test_runtime_rejects_what_the_sidecar_does_not_accept(launches, monkeypatch):
    # The sidecar disagrees with the launch (here: the frontend typed x as bf16): the runtime's checks catch it.
    from txl.tests import txl_fakes

    real = txl_fakes.fake_ast_to_ir

    def lying(fn, sig, cx, **kw):
        return real(fn, dict(sig, x_ptr="*bf16", y_ptr="*bf16", out_ptr="*bf16"), cx, **kw)

    monkeypatch.setattr(__import__("sys").modules["txl.compiler.code_generator"], "ast_to_ir", lying)
    x = X()
    with pytest.raises(TypeError, match=r"vector_add_kernel\(\): param 'x_ptr' \(pointer to bf16\) got a f32 tensor"):
        vector_add_kernel[(1,)](x, x, x, 1000, BLOCK=256)


def test_compile_error_at_launch(launches):
    @txl.jit
    def broken(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, BROKEN: tl.constexpr):
        pass

    x = X()
    with pytest.raises(C.TxlCompileError, match="txlc failed to compile kernel broken"):
        broken[(1,)](x, x, x, 1000, BLOCK=256, BROKEN=True)
    assert launches == []


def test_diff_mode_prints_and_does_not_launch(launches, capsys):
    stages = C.pipeline_stages(C.find_txlc())  # (stage numbers move as stages are added)
    al = stages.index("txl-assign-layouts")

    @txl.jit(diff_mode="txl", diff_select=al)
    def vadd_diff(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        pass

    x = X()
    k = vadd_diff[(1,)](x, x, x, 1000, BLOCK=256)
    out = capsys.readouterr().out
    assert launches == [] and isinstance(k, txl.CompiledKernel)
    assert "%d txl-assign-layouts   <== selected" % al in out and "not launched" in out

    with pytest.raises(ValueError, match="diff_mode.*supported mode is 'txl'"):
        txl.jit(diff_mode="ptx")(vadd_diff.fn)
    # TXL's Triton-stage modes are accepted with a warning and ignored (test_txl_port_surface.py)
    with pytest.warns(UserWarning, match="'ttgir' is a stage of Triton's pipeline"):
        assert txl.jit(diff_mode="ttgir")(vadd_diff.fn).diff_mode is None

    @txl.jit(diff_mode="txl")
    def vadd_nosel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        pass

    listed = ", ".join("%d %s" % (i, s) for i, s in enumerate(stages[:al + 1]))
    with pytest.raises(ValueError, match="needs diff_select=k.*" + listed):
        vadd_nosel[(1,)](x, x, x, 1000, BLOCK=256)


def test_dump_ir_prints_every_stage(launches, capsys, monkeypatch):
    monkeypatch.setenv("TXL_DUMP_IR", "1")

    @txl.jit
    def vadd_dbg(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        pass

    x = X()
    vadd_dbg[(1,)](x, x, x, 1000, BLOCK=256)
    err = capsys.readouterr().err
    stages = C.pipeline_stages(C.find_txlc())
    for s in ("txl-global-scratch", "txl-schedule-loops", "txl-partition-warpgroups"):
        assert "IR after %s (stage %d)" % (s, stages.index(s)) in err
    assert "IR after convert-txl-to-nvvm" in err
    assert len(launches) == 1


def test_log_dir_option(launches, tmp_path, capsys):
    @txl.jit(log_dir=str(tmp_path / "logs"))
    def vadd_log(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        pass

    x = X()
    vadd_log[(1,)](x, x, x, 1000, BLOCK=256)
    (d,) = os.listdir(tmp_path / "logs")
    assert "vadd_log.ptx" in os.listdir(tmp_path / "logs" / d)
    assert "kept the intermediate files" in capsys.readouterr().err


def test_calling_a_jit_function_directly_explains():
    with pytest.raises(RuntimeError, match=r"launch it with vector_add_kernel\[grid\]"):
        vector_add_kernel(1)


def test_import_txl_is_cheap():
    import subprocess
    import sys

    code = ("import sys, txl; assert txl.compile and txl.Config and txl.autotune and txl.TensorDescriptor and "
            "txl.jit; print('torch' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"


def test_jit_target_follows_the_device_and_txl_target(monkeypatch):
    # The JIT compiles for the current device's architecture (TXL's Blackwell tutorials on a B200 get sm_100a);
    # TXL_TARGET picks one anywhere; without a device it is Hopper's.
    from txl.jit import jit_target
    from txl.runtime import GPUTarget
    from txl.runtime import driver as drv

    class Fake:
        def __init__(self, arch):
            self.arch = arch

        def get_current_target(self):
            return GPUTarget("cuda", self.arch, 32)

    monkeypatch.delenv("TXL_TARGET", raising=False)
    for arch, want in ((90, "sm_90a"), (100, "sm_100a"), (103, "sm_100a"), (89, "sm_90a")):
        drv.set_active(Fake(arch))
        try:
            assert jit_target() == want
        finally:
            drv.reset_active()
    monkeypatch.setenv("TXL_TARGET", "sm_100a")
    assert jit_target() == "sm_100a"
    monkeypatch.setenv("TXL_TARGET", "sm_80")
    with pytest.raises(ValueError, match="TXL_TARGET='sm_80': txl compiles for sm_90a or sm_100a"):
        jit_target()
