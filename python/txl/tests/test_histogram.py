"""tl.histogram of register tiles on the CPU: Triton's rules (1-D integer input, int32 counts of num_bins, an optional
mask; located errors with fixes) and kernels compiled to PTX through ptxas: the counts zeroed in a shared-memory
scratch, one atom.shared.add per element (each element once, whatever the layout copies), read back in the result's
layout. gpu/test_histogram_gpu.py runs these kernels against torch.bincount."""

import pytest

import txl
import txl.language as tl
from txl.errors import CompilationError

from .dsl_helpers import TXLC, _need, compile_ptx, ir_of

THIS = __file__.replace(".pyc", ".py")


@txl.jit
def hist_kernel(X, H, N: tl.constexpr, BINS: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    tl.store(H + tl.arange(0, BINS), tl.histogram(x, BINS))


@txl.jit
def hist_masked_kernel(X, H, n, N: tl.constexpr, BINS: tl.constexpr):
    """Only the first n elements counted (Triton's mask), as the method x.histogram(num_bins, mask)."""
    offs = tl.arange(0, N)
    x = tl.load(X + offs, mask=offs < n, other=0)
    tl.store(H + tl.arange(0, BINS), x.histogram(BINS, mask=offs < n))


# (kernel, signature, constexprs, atom.shared.add in the PTX: one per element a thread owns)
CASES = {
    "i32_1024_64": (hist_kernel, {"X": "*i32", "H": "*i32"}, {"N": 1024, "BINS": 64}, 1024 // 128),
    "i64_256_256": (hist_kernel, {"X": "*i64", "H": "*i32"}, {"N": 256, "BINS": 256}, 256 // 128),
    # 64 int8 are held 16 a thread by 4 threads: each element added once, by its owning copy
    "i8_64_16": (hist_kernel, {"X": "*i8", "H": "*i32"}, {"N": 64, "BINS": 16}, 16),
    "masked": (hist_masked_kernel, {"X": "*i32", "H": "*i32", "n": "i32"}, {"N": 2048, "BINS": 128}, 2048 // 128),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_histogram_compiles_with_ptxas(name):
    kernel, sig, consts, atoms = CASES[name]
    text = ir_of(kernel, sig, consts)
    assert text.count("txl.histogram") == 1, text
    _need(TXLC)
    ptx, _ = compile_ptx(text)
    got = [ln for ln in ptx.splitlines() if ln.strip().startswith("atom.shared.add")]
    assert len(got) == atoms, got
    assert ptx.count("bar.sync") >= 3
    _, log = compile_ptx(text, emit="cubin")  # through ptxas, without spills
    assert "spill" not in log.lower(), log


def _located(fn, sig, consts, match):
    with pytest.raises(CompilationError, match=match) as info:
        ir_of(fn, sig, consts)
    assert info.value.file == THIS and info.value.line is not None


@txl.jit
def _bad(X, WHICH: tl.constexpr):
    if WHICH == "2d":
        h = tl.histogram(tl.load(X + tl.arange(0, 8)[:, None] * 8 + tl.arange(0, 8)[None, :]), 8)
    elif WHICH == "float":
        h = tl.histogram(tl.load(X + tl.arange(0, 64)).to(tl.float32), 8)
    else:
        h = tl.histogram(tl.load(X + tl.arange(0, 64)), 12)
    tl.store(X + tl.arange(0, 8), h)


@pytest.mark.parametrize("which,match", [
    ("2d", r"tl.histogram only supports 1D input"),
    ("float", r"tl.histogram only supports integer input, got fp32"),
    ("bins", r"num_bins must be a power of two \(a tile size\), got 12"),
])
def test_wrong_histograms_are_located_errors(which, match):
    _located(_bad, {"X": "*i32"}, {"WHICH": which}, match)
