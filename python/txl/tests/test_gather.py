"""tl.gather of register tiles on the CPU: Triton's shape rules (located errors with the fix), and the forms libraries
use (1-D permutations, 2-D along either axis, fla's broadcast row index, the x.gather method, bf16 sources with int64
indices) compiled to PTX through ptxas: the source stored once to its scratch, one shared-memory load per result
register. gpu/test_gather_gpu.py runs these kernels against torch.gather."""

import pytest

import txl
import txl.language as tl
from txl.errors import CompilationError

from .dsl_helpers import TXLC, _need, compile_ptx, ir_of

THIS = __file__.replace(".pyc", ".py")


@txl.jit
def gather_1d(X, I, Y, N: tl.constexpr, M: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    i = tl.load(I + tl.arange(0, M))
    tl.store(Y + tl.arange(0, M), tl.gather(x, i, 0))


@txl.jit
def gather_2d(X, I, Y, R: tl.constexpr, C: tl.constexpr, IR: tl.constexpr, IC: tl.constexpr,
              AXIS: tl.constexpr):
    """y = torch.gather(x, AXIS, i) for an (R, C) source and an (IR, IC) index."""
    x = tl.load(X + tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :])
    i = tl.load(I + tl.arange(0, IR)[:, None] * IC + tl.arange(0, IC)[None, :])
    y = tl.gather(x, i, axis=AXIS)
    tl.store(Y + tl.arange(0, IR)[:, None] * IC + tl.arange(0, IC)[None, :], y)


@txl.jit
def gather_row_broadcast(X, P, Y, BV: tl.constexpr, BK: tl.constexpr):
    """fla's cp/chunk_merge pattern: the columns of a (BV, BK) tile permuted by a row of indices broadcast to every
    row, as the method x.gather(index, axis)."""
    rows = tl.arange(0, BV)[:, None]
    cols = tl.arange(0, BK)[None, :]
    x = tl.load(X + rows * BK + cols)
    o = tl.load(P + tl.arange(0, BK))
    y = x.gather(tl.broadcast_to(o[None, :], (BV, BK)), axis=1)
    tl.store(Y + rows * BK + cols, y)


@txl.jit
def gather_prev_row(X, Y, BT: tl.constexpr, BS: tl.constexpr):
    """fla's gsa/gate.py pattern: after a cumulative scan down the rows, each row's previous row (row 0 its own),
    gathered with a broadcast column of indices."""
    o_i = tl.arange(0, BT)
    o_s = tl.arange(0, BS)
    x = tl.load(X + o_i[:, None] * BS + o_s[None, :])
    z = tl.cumsum(x, axis=0)
    o_prev = tl.broadcast_to(tl.maximum(o_i - 1, 0)[:, None], (BT, BS))
    tl.store(Y + o_i[:, None] * BS + o_s[None, :], tl.gather(z, o_prev, axis=0))


# (kernel, signature, constexprs, shared-memory loads in the PTX: one per result register of a thread; 128 threads.
# The 1-D index of 128 int32 is held 4 a thread (16 bytes), each element by 4 threads, so 4 loads, not 1.)
CASES = {
    "1d": (gather_1d, {"X": "*fp32", "I": "*i32", "Y": "*fp32"}, {"N": 64, "M": 128}, 4),
    "2d_axis0": (gather_2d, {"X": "*fp32", "I": "*i32", "Y": "*fp32"},
                 {"R": 64, "C": 32, "IR": 16, "IC": 32, "AXIS": 0}, 16 * 32 // 128),
    "2d_axis1_bf16_i64": (gather_2d, {"X": "*bf16", "I": "*i64", "Y": "*bf16"},
                          {"R": 32, "C": 64, "IR": 32, "IC": 128, "AXIS": 1}, 32 * 128 // 128),
    # (the scan's cross-warp exchange reads shared memory too: the loads are not counted)
    "prev_row": (gather_prev_row, {"X": "*fp32", "Y": "*fp32"}, {"BT": 64, "BS": 64}, None),
    "row_broadcast": (gather_row_broadcast, {"X": "*fp16", "P": "*i32", "Y": "*fp16"}, {"BV": 64, "BK": 128},
                      64 * 128 // 128),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gather_compiles_with_ptxas(name):
    kernel, sig, consts, loads = CASES[name]
    text = ir_of(kernel, sig, consts)
    assert text.count("txl.gather") == 1, text
    _need(TXLC)
    ptx, _ = compile_ptx(text)
    got = [ln for ln in ptx.splitlines() if ln.strip().startswith("ld.shared")]
    assert loads is None or len(got) == loads, got
    assert "bar.sync" in ptx
    _, log = compile_ptx(text, emit="cubin")  # through ptxas, without spills
    assert "spill" not in log.lower(), log


def test_gather_is_probed_and_bound_like_triton():
    # fla: IS_GATHER_SUPPORTED = hasattr(triton.language, 'gather'); gather = tl.gather
    assert hasattr(tl, "gather") and callable(tl.gather)
    assert hasattr(tl.tensor, "gather")


def _located(fn, sig, consts, match):
    with pytest.raises(CompilationError, match=match) as info:
        ir_of(fn, sig, consts)
    assert info.value.file == THIS and info.value.line is not None
    return info.value


@txl.jit
def _bad(X, WHICH: tl.constexpr):
    x = tl.load(X + tl.arange(0, 64)[:, None] * 4 + tl.arange(0, 4)[None, :])
    if WHICH == "rank":
        y = tl.gather(x, tl.arange(0, 64), 0)
    elif WHICH == "dim":
        y = tl.gather(x, tl.zeros((16, 8), tl.int32), 0)
    elif WHICH == "float":
        y = tl.gather(x, tl.zeros((16, 4), tl.float32), 0)
    else:
        y = tl.gather(x, tl.zeros((16, 4), tl.int32), 2)
    tl.store(X + tl.arange(0, 16)[:, None] * 4 + tl.arange(0, 4)[None, :], y)


@pytest.mark.parametrize("which,match", [
    ("rank", r"source and index tensors must have the same rank, got \[64, 4\] and \[64\]"),
    ("dim", r"index dimension 1 \(8\) must match the source's \(4\): only the gather axis 0 may differ"),
    ("float", r"index must be an integer tensor, got fp32"),
    ("axis", r"axis 2 must be < source rank \(2\)"),
])
def test_wrong_gathers_are_located_errors(which, match):
    _located(_bad, {"X": "*fp32"}, {"WHICH": which}, match)
