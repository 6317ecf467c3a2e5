"""Launching Gluon kernels twice without a GPU: the first launch is txl's checked one (the real frontend and txlc
compile the kernel; the runtime's argument checks run, the driver call is recorded), the second takes the JIT's fast
path (runtime.FastLaunch, replaced by a recorder of (grid, values)).

Regression (H200, bench/gluon.py, run 7): GluonJITFunction._fingerprint wrapped txl's fingerprint as ``(fp, shapes)``,
while JITFunction._remember_fast reads the launch options from ``fkey[0]`` and num_ctas from ``fkey[0][5]``. So a
Gluon kernel with at most 4 arguments (tutorial 01's copy_scalar and memcpy, 03's memcpy_1d_cpasync) failed its first
launch with ``IndexError: tuple index out of range``, and one with more took an argument's fingerprint (a tuple) for
num_ctas: its second launch passed a tuple grid to cuLaunchKernel (``ArgumentError: argument 2: TypeError: 'tuple'
object cannot be interpreted as an integer``: 03 elementwise_add and fla's four kernels in do_bench). Also checked: a
Gluon layout passed as a constexpr and Gluon's host TensorDescriptor (a txl.TensorDescriptor subclass) take the fast
path (each launch took the checked path before)."""

import sys
import tempfile

import pytest

from txl.compiler import compiler as C
from txl.experimental.gluon import language as gl
from txl.experimental.gluon.nvidia.hopper import TensorDescriptor
from txl.runtime import Kernel, launcher, normalize_grid
from txl.tests.gpu import gluon_cases as G
from txl.tests.test_fast_launch_cpu import TorchLike

J = sys.modules["txl.jit"]


def X(*shape, ptr=0x7F0000000000):
    return TorchLike(shape or (1000,), "float32", ptr=ptr)


@pytest.fixture
def calls(tmp_path, monkeypatch):
    if C.find_txlc() is None:  # pragma: no cover
        pytest.skip("txlc is not built")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("TXL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TXL_DEBUG_HANGS", raising=False)
    monkeypatch.setenv("TXL_TARGET", "sm_90a")
    monkeypatch.setattr(J, "_TENSOR_TYPES", (TorchLike,))
    rec = {"checked": [], "fast": []}

    def checked(self, grid, *args, stream=None, **kwargs):
        rec["checked"].append((normalize_grid(grid, self.meta), self.check_args(*args, **kwargs)))

    class FastRecorder:
        def __init__(self, kernel, dev):
            self.kernel = kernel

        def __call__(self, grid, values, stream=None):
            assert all(type(g) is int for g in grid), grid  # what cuLaunchKernel's ctypes arguments take
            rec["fast"].append((grid, list(values)))

    monkeypatch.setattr(Kernel, "launch", checked)
    monkeypatch.setattr(launcher, "FastLaunch", FastRecorder)
    kernels = (G.copy_scalar_kernel, G.scalar_loop_copy_kernel, G.add2d_kernel, G.copy_kernel, G.tma_add_kernel)
    for k in kernels:
        k.cache.clear()
        k._fast.clear()
    yield rec
    for k in kernels:
        k.cache.clear()
        k._fast.clear()


def test_copy_scalar_two_launches(calls):
    """Tutorial 01's copy_scalar (2 arguments, num_warps=1): failed its first launch with IndexError."""
    x, y = X(1), X(1)
    G.copy_scalar_kernel[(1,)](x, y, num_warps=1)
    assert len(calls["checked"]) == 1 and not calls["fast"]
    x2, y2 = X(1, ptr=0x7F0000001000), X(1, ptr=0x7F0000002000)
    G.copy_scalar_kernel[(1,)](x2, y2, num_warps=1)
    assert calls["fast"] == [((1, 1, 1), [x2, y2])]


def test_scalar_loop_two_launches(calls):
    """Tutorial 01's memcpy (4 arguments, XBLOCK positional, num_warps=1)."""
    x, y = X(), X()
    for _ in range(2):
        G.scalar_loop_copy_kernel[(16,)](x, y, 1000, 64, num_warps=1)
    assert len(calls["checked"]) == 1
    assert calls["fast"] == [((16, 1, 1), [x, y, 1000])]


def test_many_int_arguments_keep_the_grid(calls):
    """Tutorial 03's elementwise_add (13 arguments, a 1-tuple grid): the second launch's grid stays ints (the
    fingerprint of an argument was taken for num_ctas, and the grid became a tuple of tuples)."""
    a, b, c = X(1000, 2000), X(1000, 2000), X(1000, 2000)
    args = (a, b, c, 1000, 2000, 2000, 1, 2000, 1, 2000, 1, 32, 64)
    G.add2d_kernel[(32,)](*args)
    G.add2d_kernel[(32,)](*args)
    G.add2d_kernel[lambda meta: (meta["num_warps"] * 8,)](*args)  # the meta dict has the launch options
    assert len(calls["checked"]) == 1
    assert [g for g, _ in calls["fast"]] == [(32, 1, 1), (32, 1, 1)]
    assert calls["fast"][0][1][:5] == [a, b, c, 1000, 2000]


def test_layout_constexpr_takes_the_fast_path(calls):
    """A Gluon layout as a constexpr (tutorial 02's memcpy_1d): fingerprinted by its repr; another layout (or
    another value of one) compiles and checks again."""
    x, y = X(5000), X(5000)
    lay = gl.BlockedLayout([4], [32], [4], [0])
    G.copy_kernel[(5,)](x, y, 5000, XBLOCK=1024, layout=lay)
    G.copy_kernel[(5,)](x, y, 5000, XBLOCK=1024, layout=gl.BlockedLayout([4], [32], [4], [0]))
    assert len(calls["checked"]) == 1 and len(calls["fast"]) == 1
    G.copy_kernel[(5,)](x, y, 5000, XBLOCK=1024, layout=gl.BlockedLayout([1], [32], [4], [0]))
    assert len(calls["checked"]) == 2 and len(calls["fast"]) == 1
    assert len(G.copy_kernel.cache) == 2


def test_gluon_descriptors_take_the_fast_path(calls):
    """Gluon's host TensorDescriptor (with its NVMMASharedLayout) launches fast after the first launch, and a new
    global shape (desc.shape is a compile-time constant of a Gluon kernel) is checked again."""
    layout = gl.NVMMASharedLayout.get_default_for([32, 64], gl.float32)

    def descs(x, y):
        return [TensorDescriptor(t, list(t.shape), list(t.stride()), [32, 64], layout)
                for t in (X(x, y), X(x, y), X(x, y))]

    d = descs(1000, 2000)
    G.tma_add_kernel[(32,)](*d, 2000, XBLOCK=32, YBLOCK=64, NBUF=2)
    d2 = descs(1000, 2000)
    G.tma_add_kernel[(32,)](*d2, 2000, XBLOCK=32, YBLOCK=64, NBUF=2)
    assert len(calls["checked"]) == 1 and len(calls["fast"]) == 1
    grid, values = calls["fast"][0]
    assert grid == (32, 1, 1) and values[:3] == [t.base for t in d2] and values[3] == 2000
    G.tma_add_kernel[(2,)](*descs(64, 2000), 2000, XBLOCK=32, YBLOCK=64, NBUF=2)
    assert len(calls["checked"]) == 2
