"""The fast path of repeated @txl.jit launches, without a GPU: which launches share a fingerprint (and so skip the
checked path), how a fast launch maps positional, keyword, default and descriptor arguments to the kernel's params,
and the autotuner's per-fingerprint choice. The checked launch is the runtime's (its argument checks run, the
driver call is recorded); the fast launch is replaced by a recorder of (grid, values)."""

import sys
import tempfile

import pytest


import txl
import txl.language as tl
from txl.compiler import compiler as C
from txl.runtime import Kernel, launcher, normalize_grid
from txl.tests.txl_fakes import FakeTensor, install_fake_frontend

J = sys.modules["txl.jit"]  # the module (the attribute txl.jit is the decorator)


class TorchLike(FakeTensor):
    """A FakeTensor with the few torch.Tensor methods the fingerprint reads."""

    def get_device(self):
        return 0 if self.device.type == "cuda" else -1

    def is_contiguous(self):
        return self._strides == FakeTensor(self.shape)._strides


@txl.jit
def vadd(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr = 1024):
    pass


def X(n=1000, dtype="float32", **kw):
    return TorchLike((n,), dtype, **kw)


@pytest.fixture
def calls(tmp_path, monkeypatch):
    if C.find_txlc() is None:  # pragma: no cover
        pytest.skip("txlc is not built")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("TXL_CACHE_DIR", str(tmp_path / "cache"))
    for v in ("TXL_TXLC", "TXL_DEBUG_HANGS"):
        monkeypatch.delenv(v, raising=False)
    install_fake_frontend(monkeypatch)
    monkeypatch.setattr(J, "_TENSOR_TYPES", (TorchLike,))
    rec = {"checked": [], "fast": []}

    def checked(self, grid, *args, stream=None, **kwargs):
        rec["checked"].append((normalize_grid(grid, self.meta), self.check_args(*args, **kwargs)))

    class FastRecorder:
        def __init__(self, kernel, dev):
            self.kernel = kernel

        def __call__(self, grid, values, stream=None):
            rec["fast"].append((grid, values))

    monkeypatch.setattr(Kernel, "launch", checked)
    monkeypatch.setattr(launcher, "FastLaunch", FastRecorder)
    vadd.cache.clear()
    vadd._fast.clear()
    return rec


def test_fingerprints_separate_what_specialisation_or_checks_see(monkeypatch):
    monkeypatch.setattr(J, "_TENSOR_TYPES", (TorchLike,))
    fp = lambda *a, **k: vadd._fingerprint(a, k, ())  # noqa: E731
    x = X()
    assert fp(x, x, x, 1000) is not None
    assert fp(x, x, x, 1000) == fp(X(5), X(7), X(9), 3000)  # other tensors and values of the same class
    assert fp(x, x, x, 1000) != fp(x, x, x, 1024)  # divisible by 16
    assert fp(x, x, x, 1000) != fp(x, x, x, 1)  # == 1 is a constexpr
    assert fp(x, x, x, 1000) != fp(x, x, x, 2**33)  # i64
    assert fp(x, x, x, 1000) != fp(X(dtype="float16"), x, x, 1000)
    assert fp(x, x, x, 1000) != fp(X(device="cpu"), x, x, 1000)
    assert fp(x, x, x, 1000) != fp(TorchLike((8, 8), strides=(1, 8)), x, x, 1000)  # non-contiguous
    assert fp(x, x, x, 1000, BLOCK=256) != fp(x, x, x, 1000, BLOCK=512)  # constexpr values
    assert fp(x, x, x, 1000, BLOCK=256) != fp(x, x, x, 1000, 256)  # keyword vs position
    assert fp(x, x, x, 1000, 256, 7) is None and fp(x, x, x, 1000, bogus=1) is None  # the checked path's errors
    assert fp(FakeTensor((4,)), x, x, 1000) is None  # not a torch tensor: always checked
    # a tl dtype or a tuple as a constexpr (Liger passes tl.float32 and the like): fingerprinted by value, so such
    # launches take the fast path too (each used to take the checked path, 0.3-0.6 ms a call in Liger's backward)
    assert fp(x, x, x, 1000, BLOCK=tl.float32) is not None
    assert fp(x, x, x, 1000, BLOCK=tl.float32) == fp(x, x, x, 1000, BLOCK=tl.float32)
    assert fp(x, x, x, 1000, BLOCK=tl.float32) != fp(x, x, x, 1000, BLOCK=tl.bfloat16)
    assert fp(x, x, x, 1000, BLOCK=(1, 2)) != fp(x, x, x, 1000, BLOCK=(1, 3))

    class Parameter(TorchLike):  # a tensor subclass (torch.nn.Parameter) is a tensor to the fingerprint
        pass

    assert fp(Parameter((1000,), "float32"), x, x, 1000) == fp(x, x, x, 1000)


def test_second_launch_takes_the_fast_path_with_the_right_values(calls):
    x, y, z = X(), X(), X()
    vadd[(4,)](x, y, z, 1000, BLOCK=256)
    assert len(calls["checked"]) == 1 and not calls["fast"]
    x2, y2, z2 = X(ptr=0x7F0000001000), X(), X()
    vadd[lambda meta: (meta["n"] // meta["BLOCK"] + 1,)](x2, y2, z2, 3000, BLOCK=256)
    assert len(calls["checked"]) == 1 and len(calls["fast"]) == 1
    grid, values = calls["fast"][0]
    assert grid == (12, 1, 1) and list(values[:4]) == [x2, y2, z2, 3000]
    vadd[(4,)](x, y, z, 1024, BLOCK=256)  # another int class: checked again
    assert len(calls["checked"]) == 2
    with pytest.raises(ValueError, match="is a tensor on cpu"):  # never fast: the checked path reports it
        vadd[(4,)](X(device="cpu"), y, z, 1000, BLOCK=256)
    assert len(calls["fast"]) == 1


def test_defaults_and_keywords_map_by_name(calls):
    x, y, z = X(), X(), X()
    vadd[(1,)](x, y, out_ptr=z, n=1000)
    vadd[(1,)](y, x, out_ptr=x, n=3000)
    assert len(calls["fast"]) == 1
    assert calls["fast"][0][1][:4] == [y, x, x, 3000]


def test_autotuner_remembers_its_choice_per_fingerprint(calls):
    timed = []
    configs = [txl.Config({"BLOCK": b}) for b in (128, 256)]
    tuned = txl.autotune(configs, key=["n"], bench=lambda call: (call(), timed.append(1), 1.0)[2],
                         cache_results=False, verbose=False)(vadd)
    x = X()
    tuned[(1,)](x, x, x, 1000)  # each config checked once while timing; the chosen one then launches fast
    assert len(timed) == 2 and len(calls["checked"]) == 2 and len(calls["fast"]) == 1
    tuned[(1,)](x, x, x, 1000)  # same key value, same fingerprint: the remembered config, fast launch
    assert len(timed) == 2 and len(calls["checked"]) == 2 and len(calls["fast"]) == 2
    tuned[(1,)](x, x, x, 3000)  # a new key value tunes again
    assert len(timed) == 4
