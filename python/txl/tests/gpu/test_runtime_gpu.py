"""GPU tests of the txl host runtime (skipped without torch + a CUDA GPU).

The kernels are CUDA C in ``kernels/`` compiled to PTX with ``kernels/build.sh``; each has a hand-written JSON
sidecar like the ones txlc writes. They check, against torch: PTX JIT loading, pointer and scalar packing (every
scalar width), TMA descriptors passed by value (2-D without swizzle, 128- and 64-byte swizzle, 3-D, with
out-of-bounds zero fill at non-multiple sizes), > 48 KB of dynamic shared memory, cluster launches through
cuLaunchKernelEx, launches on a non-default stream, and the errors for broken PTX and sidecar/PTX mismatches.
"""

import json
import os

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.runtime import (  # noqa: E402
    CudaError,
    Kernel,
    TensorDescriptor,
    TxlLaunchError,
    TxlModuleLoadError,
    TxlSidecarError,
    get_driver,
    load_kernel,
)

pytestmark = pytest.mark.gpu
KDIR = os.path.join(os.path.dirname(__file__), "kernels")


def K(name):
    return load_kernel(os.path.join(KDIR, name + ".json"))


def meta(name):
    with open(os.path.join(KDIR, name + ".json")) as f:
        return json.load(f)


def ptx(name):
    with open(os.path.join(KDIR, name)) as f:
        return f.read()


def cdiv(a, b):
    return (a + b - 1) // b


@pytest.fixture(scope="module", autouse=True)
def _init():
    torch.cuda.init()
    torch.manual_seed(0)
    d = get_driver()
    dev = torch.cuda.current_device()
    print("\ndevice %s cc %s driver %d optin smem %d" % (d.device_name(dev), d.compute_capability(dev), d.version,
                                                           d.max_shared_optin(dev)))
    yield
    torch.cuda.synchronize()


def test_driver_basics():
    d = get_driver()
    assert d.device_count >= 1 and d.version >= 12000
    assert d.compute_capability(0)[0] >= 9, "these kernels need Hopper (sm_90a)"
    ctx = d.set_device(0)
    assert ctx == d.primary_context(0)


def test_vec_add_scalar_and_streams():
    k = K("vec_add")
    n = 1000  # not a multiple of the 256-thread CTA
    a = torch.randn(n, device="cuda")
    b = torch.randn(n, device="cuda")
    c = torch.full((n,), float("nan"), device="cuda")
    k[(cdiv(n, 256),)](a, b, c, 0.5, n)
    torch.testing.assert_close(c, a + 0.5 * b)
    # keywords, grid callable, non-default torch stream
    c2 = torch.full((n,), float("nan"), device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        k[lambda m: (cdiv(n, m.threads[0]),)](a, b, c2, alpha=-2.0, n=n)
    s.synchronize()
    torch.testing.assert_close(c2, a - 2.0 * b)
    # launch(grid, ...) with an explicit stream object
    c3 = torch.full((n,), float("nan"), device="cuda")
    s.wait_stream(torch.cuda.current_stream())
    k.launch(4, a, b, c3, 1.0, n, stream=s)
    s.synchronize()
    torch.testing.assert_close(c3, a + b)


def test_scalar_widths():
    k = K("scalar_probe")
    out = torch.full((8,), float("nan"), dtype=torch.float64, device="cuda")
    out64 = torch.zeros(1, dtype=torch.int64, device="cuda")
    big = -(2**62) - 12345
    k[1](out, out64, -123456, big, 3.25, -1.5, 0.375, True, -7, 2.0**-40)
    torch.cuda.synchronize()
    assert out.tolist() == [-123456.0, float(big), 3.25, -1.5, 0.375, 1.0, -7.0, 2.0**-40]
    assert out64.item() == big


def _check_tma_copy(src, out, box):
    """out (grid * box, poisoned before) must equal src where src exists and be 0 (TMA zero fill) elsewhere."""
    torch.cuda.synchronize()
    ibits = {2: torch.int16, 4: torch.int32}[src.element_size()]
    o, s = out.view(ibits), src.view(ibits)
    region = tuple(slice(0, n) for n in src.shape)
    assert torch.equal(o[region], s), "the in-bounds part of the copy differs from the source"
    mask = torch.ones_like(o, dtype=torch.bool)
    mask[region] = False
    assert int(mask.sum()) > 0
    assert torch.all(o[mask] == 0), "out-of-bounds elements were not zero-filled"


@pytest.mark.parametrize("name", ["tma_copy_2d", "tma_copy_2d_sw128"])
def test_tma_copy_2d_bf16(name):
    k = K(name)
    R, C = 200, 136  # not multiples of the 64x64 box: exercises the zero fill
    src = torch.randn(R, C, dtype=torch.bfloat16, device="cuda")
    gx, gy = cdiv(C, 64), cdiv(R, 64)
    out = torch.full((gy * 64, gx * 64), float("nan"), dtype=torch.bfloat16, device="cuda")
    k[(gx, gy)](src, out, gx * 64)
    _check_tma_copy(src, out, (64, 64))
    # the same through an explicit TensorDescriptor, and again through the descriptor cache
    p = k.params[0]
    desc = TensorDescriptor(src, list(p.block_shape), swizzle=p.swizzle)
    assert len(desc.to_bytes()) == 128 and any(desc.to_bytes())
    out.fill_(float("nan"))
    k[(gx, gy)](desc, out, gx * 64)
    _check_tma_copy(src, out, (64, 64))
    out.fill_(float("nan"))
    k[(gx, gy)](src, out, gx * 64)
    _check_tma_copy(src, out, (64, 64))


def test_tma_copy_2d_f32_swizzle64():
    k = K("tma_copy_2d_sw64_f32")
    R, C = 100, 52  # 52 f32 = 208-byte rows (a multiple of 16)
    src = torch.randn(R, C, device="cuda")
    gx, gy = cdiv(C, 16), cdiv(R, 32)
    out = torch.full((gy * 32, gx * 16), float("nan"), device="cuda")
    k[(gx, gy)](src, out, gx * 16)
    _check_tma_copy(src, out, (32, 16))


def test_tma_copy_3d_f16():
    k = K("tma_copy_3d")
    D, R, C = 3, 40, 72
    src = torch.randn(D, R, C, dtype=torch.float16, device="cuda")
    grid = (cdiv(C, 32), cdiv(R, 16), cdiv(D, 2))
    out = torch.full((grid[2] * 2, grid[1] * 16, grid[0] * 32), float("nan"), dtype=torch.float16, device="cuda")
    k[grid](src, out, grid[1] * 16, grid[0] * 32)
    _check_tma_copy(src, out, (2, 16, 32))


def test_tma_view_with_padded_rows():
    """A view of a padded allocation (row stride 144 > 136 columns) is a valid TMA source."""
    k = K("tma_copy_2d")
    big = torch.randn(200, 144, dtype=torch.bfloat16, device="cuda")
    src = big[:, :136]
    assert not src.is_contiguous()
    gx, gy = cdiv(136, 64), cdiv(200, 64)
    out = torch.full((gy * 64, gx * 64), float("nan"), dtype=torch.bfloat16, device="cuda")
    k[(gx, gy)](src, out, gx * 64)
    _check_tma_copy(src.contiguous(), out, (64, 64))


def test_tma_bad_tensors_fail_before_launch():
    k = K("tma_copy_2d")
    out = torch.zeros(256, 192, dtype=torch.bfloat16, device="cuda")
    with pytest.raises(ValueError, match="stride\\[0\\] of 100 bf16 = 200 bytes.*pad the row to 104"):
        k[(2, 2)](torch.zeros(100, 100, dtype=torch.bfloat16, device="cuda"), out, 192)
    with pytest.raises(TypeError, match="expects a bf16 tensor"):
        k[(2, 2)](torch.zeros(128, 128, dtype=torch.float16, device="cuda"), out, 192)
    flat = torch.zeros(128 * 136 + 8, dtype=torch.bfloat16, device="cuda")
    unaligned = flat[4:4 + 128 * 136].view(128, 136)  # starts 8 bytes past a 16-byte boundary
    with pytest.raises(ValueError, match="not 16-byte aligned"):
        k[(2, 2)](unaligned, out, 192)
    wrong = TensorDescriptor(torch.zeros(128, 128, dtype=torch.bfloat16, device="cuda"), [32, 64], swizzle=0)
    with pytest.raises(ValueError, match="hang"):
        k[(2, 2)](wrong, out, 192)
    with pytest.raises(ValueError, match="on cpu"):
        k[(2, 2)](torch.zeros(128, 128, dtype=torch.bfloat16), out, 192)
    # out is a plain pointer (any strides, as in Triton); the TMA source needs a contiguous innermost dimension.
    with pytest.raises(ValueError, match="innermost dimension must be contiguous"):
        k[(2, 2)](torch.zeros(128, 128, dtype=torch.bfloat16, device="cuda").t(), out, 192)
    torch.cuda.synchronize()


def test_big_dynamic_smem():
    k = K("smem_reverse")
    assert k.meta.shared_bytes > 48 * 1024
    n = k.meta.shared_bytes // 4
    x = torch.randn(3, n, device="cuda")
    y = torch.full_like(x, float("nan"))
    k[3](x, y, n)
    torch.cuda.synchronize()
    assert torch.equal(y, x.flip(1))


def test_big_smem_without_attribute_is_a_launch_error():
    """The driver itself refuses > 48 KB without cuFuncSetAttribute: the error is a TxlLaunchError naming it."""
    d = get_driver()
    d.set_device(0)
    mod = d.load_module(ptx("simple.ptx"))
    f = d.get_function(mod, "smem_reverse")
    import ctypes

    x = torch.zeros(1, device="cuda")
    vals = [ctypes.c_uint64(x.data_ptr()), ctypes.c_uint64(x.data_ptr()), ctypes.c_int32(1)]
    params = (ctypes.c_void_p * 3)(*[ctypes.addressof(v) for v in vals])
    with pytest.raises(TxlLaunchError) as e:
        d.launch(f, (1, 1, 1), (256, 1, 1), 102400, 0, params, what="launching smem_reverse without the attribute")
    assert "CUDA_ERROR_" in str(e.value) and "without the attribute" in str(e.value)
    d.unload_module(mod)


def test_cluster_launch():
    k = K("cluster_info")
    assert k.meta.cluster == (2, 1, 1)
    out = torch.full((8,), -1, dtype=torch.int32, device="cuda")
    k[8](out)
    torch.cuda.synchronize()
    assert out.tolist() == [200, 201] * 4
    with pytest.raises(ValueError, match="multiple of the cluster"):
        k[7](out)
    # the same PTX without a cluster: every CTA is its own 1-CTA cluster
    m = meta("cluster_info")
    m["cluster"] = [1, 1, 1]
    k1 = Kernel.from_ptx(ptx("simple.ptx"), m)
    out.fill_(-1)
    k1[8](out)
    torch.cuda.synchronize()
    assert out.tolist() == [100] * 8


def test_jit_error_log():
    bad = (".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry broken(.param .u64 p)\n{\n"
           "  .reg .b32 %r<2>;\n  mov.b32 %r1, %undefined_reg;\n  ret;\n}\n")
    k = Kernel.from_ptx(bad, {"kernel": "broken", "threads": [32], "params": [{"name": "p", "kind": "ptr",
                                                                              "dtype": "f32"}]})
    with pytest.raises(TxlModuleLoadError) as e:
        k[1](torch.zeros(1, device="cuda"))
    msg = str(e.value)
    print(msg)
    assert "cuModuleLoadData failed while JIT-compiling the PTX of kernel 'broken'" in msg
    assert e.value.log, "the JIT error log should have been fetched with cuModuleLoadDataEx"
    assert "undefined_reg" in e.value.log or "error" in e.value.log.lower()


def test_missing_entry_is_cuda_not_found():
    m = meta("vec_add")
    m["kernel"] = "no_such_kernel"
    k = Kernel.from_ptx(ptx("simple.ptx"), m)
    a = torch.zeros(4, device="cuda")
    with pytest.raises(CudaError) as e:
        k[1](a, a, a, 1.0, 4)
    assert e.value.name == "CUDA_ERROR_NOT_FOUND" and "no_such_kernel" in str(e.value)


def test_sidecar_ptx_mismatch():
    if get_driver().param_info(_some_function()) is None:
        pytest.skip("driver lacks cuFuncGetParamInfo")
    m = meta("vec_add")
    m["params"] = m["params"][:4]
    a = torch.zeros(4, device="cuda")
    with pytest.raises(TxlSidecarError, match="lists 4 params .* takes 5"):
        Kernel.from_ptx(ptx("simple.ptx"), m)[1](a, a, a, 1.0)
    m = meta("tma_copy_2d")
    m["params"][0] = {"name": "src", "kind": "ptr", "dtype": "bf16"}
    with pytest.raises(TxlSidecarError, match="needs 8 bytes, but the PTX param 0 is 128 bytes"):
        Kernel.from_ptx(ptx("tma_copy.ptx"), m)[1](torch.zeros(64, 64, dtype=torch.bfloat16, device="cuda"),
                                                    torch.zeros(64, 64, dtype=torch.bfloat16, device="cuda"), 64)
    m = meta("vec_add")
    m["params"][4]["dtype"] = "i64"
    with pytest.raises(TxlSidecarError, match="param 'n'.*needs 8 bytes, but the PTX param 4 is 4 bytes"):
        Kernel.from_ptx(ptx("simple.ptx"), m)[1](a, a, a, 1.0, 4)


_fn_cache = []


def _some_function():
    if not _fn_cache:
        d = get_driver()
        d.set_device(0)
        mod = d.load_module(ptx("simple.ptx"))
        _fn_cache.append(d.get_function(mod, "vec_add"))
    return _fn_cache[0]

