"""tl.atomic_add / max / min / and / or / xor / xchg / cas from the DSL through the real txlc: the frontend IR
(txl.atomic_rmw / txl.atomic_cas with sem and scope), the PTX (atom / red with Triton's default acq_rel and gpu
scope, the kinds and types PTX has) and the errors for what PTX has no atomic for. Results on a GPU:
gpu/test_atomics_gpu.py."""

import re

import pytest

import txl
import txl.language as tl
from txl.errors import CompilationError

from .dsl_helpers import compile_ptx, ir_of


def _atoms(ptx):
    """The atom/red instructions of a PTX text, without predicates and operands (e.g.
    'atom.acq_rel.gpu.global.add.f32')."""
    return re.findall(r"\b((?:atom|red)\.[\w.]+)", ptx)


@txl.jit
def _histogram(x_ptr, hist_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + x, 1, mask=mask, sem="relaxed")


def test_histogram_is_one_red_per_element():
    text = ir_of(_histogram, {"x_ptr": "*i32", "hist_ptr": "*i32", "n": "i32"}, {"BLOCK": 1024})
    assert re.search(r"txl\.atomic_rmw add relaxed gpu %\S+, %\S+ mask %\S+ : tensor<1024x!txl\.ptr<i32>>, "
                     r"tensor<1024xi32>", text), text
    ptx, _ = compile_ptx(text)
    atoms = _atoms(ptx)
    # 1024 elements over 128 threads: 8 per thread, one red each (the result is unused).
    assert atoms == ["red.relaxed.gpu.global.add.u32"] * 8, atoms


@txl.jit
def _rmw(p, v_ptr, out_ptr, n, KIND: tl.constexpr, SEM: tl.constexpr, SCOPE: tl.constexpr,
         USE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(v_ptr + offs, mask=mask)
    if KIND == "add":
        old = tl.atomic_add(p + offs, v, mask=mask, sem=SEM, scope=SCOPE)
    elif KIND == "max":
        old = tl.atomic_max(p + offs, v, mask=mask, sem=SEM, scope=SCOPE)
    elif KIND == "min":
        old = tl.atomic_min(p + offs, v, mask=mask, sem=SEM, scope=SCOPE)
    elif KIND == "and":
        old = tl.atomic_and(p + offs, v, mask=mask, sem=SEM, scope=SCOPE)
    elif KIND == "or":
        old = tl.atomic_or(p + offs, v, mask=mask, sem=SEM, scope=SCOPE)
    elif KIND == "xor":
        old = tl.atomic_xor(p + offs, v, mask=mask, sem=SEM, scope=SCOPE)
    else:
        old = tl.atomic_xchg(p + offs, v, mask=mask, sem=SEM, scope=SCOPE)
    if USE:
        tl.store(out_ptr + offs, old, mask=mask)


def _rmw_ptx(kind, dtype, sem=None, scope=None, use=True):
    sig = {"p": "*" + dtype, "v_ptr": "*" + dtype, "out_ptr": "*" + dtype, "n": "i32"}
    ce = {"KIND": kind, "SEM": sem, "SCOPE": scope, "USE": use, "BLOCK": 128}
    text = ir_of(_rmw, sig, ce)
    ptx, _ = compile_ptx(text)
    return text, sorted(set(_atoms(ptx)))


@pytest.mark.parametrize("kind,dtype,ops", [
    ("add", "i32", ["add.u32"]), ("add", "u32", ["add.u32"]), ("add", "i64", ["add.u64"]),
    ("add", "fp32", ["add.f32"]), ("add", "fp64", ["add.f64"]),
    ("add", "fp16", ["add.noftz.f16"]), ("add", "bf16", ["add.noftz.bf16"]),
    ("max", "i32", ["max.s32"]), ("max", "u32", ["max.u32"]), ("min", "i64", ["min.s64"]),
    ("min", "u64", ["min.u64"]),
    # floats: a signed max (min) for values with the sign bit clear, an unsigned min (max) for the others
    ("max", "fp32", ["max.s32", "min.u32"]), ("min", "fp32", ["max.u32", "min.s32"]),
    ("max", "fp64", ["max.s64", "min.u64"]),
    ("and", "i32", ["and.b32"]), ("or", "u64", ["or.b64"]), ("xor", "i32", ["xor.b32"]),
    ("xchg", "i32", ["exch.b32"]), ("xchg", "fp32", ["exch.b32"]), ("xchg", "i64", ["exch.b64"]),
])
def test_kinds_and_types(kind, dtype, ops):
    text, atoms = _rmw_ptx(kind, dtype)
    irk = {"max": "umax", "min": "umin"}.get(kind, kind) if dtype.startswith("u") else kind
    assert "txl.atomic_rmw %s acq_rel gpu" % irk in text, text
    assert atoms == sorted("atom.acq_rel.gpu.global." + o for o in ops), atoms


@pytest.mark.parametrize("sem,scope,use,instr", [
    (None, None, True, "atom.acq_rel.gpu"),  # Triton's defaults
    ("acquire", "cta", True, "atom.acquire.cta"),
    ("release", "sys", True, "atom.release.sys"),
    ("relaxed", "gpu", True, "atom.relaxed.gpu"),
    ("relaxed", "cta", False, "red.relaxed.cta"),  # unused result: red
    ("release", "gpu", False, "red.release.gpu"),
    ("acq_rel", "gpu", False, "atom.acq_rel.gpu"),  # red cannot acquire: atom, result dropped
    ("acquire", "sys", False, "atom.acquire.sys"),
])
def test_sem_and_scope(sem, scope, use, instr):
    _, atoms = _rmw_ptx("add", "fp32", sem, scope, use)
    assert atoms == [instr + ".global.add.f32"], atoms


@txl.jit
def _cas_claim(slots_ptr, won_ptr, K: tl.constexpr):
    pid = tl.program_id(0)
    old = tl.atomic_cas(slots_ptr + pid % K, 0, pid + 1)
    tl.store(won_ptr + pid, (old == 0).to(tl.int32))


def test_scalar_cas_is_one_thread_and_hands_the_old_value_over():
    text = ir_of(_cas_claim, {"slots_ptr": "*i32", "won_ptr": "*i32"}, {"K": 8})
    assert re.search(r"txl\.atomic_cas acq_rel gpu %\S+, %\S+, %\S+ : !txl\.ptr<i32>, i32", text), text
    ptx, _ = compile_ptx(text)
    assert _atoms(ptx) == ["atom.acq_rel.gpu.global.cas.b32"], _atoms(ptx)
    # thread 0 of the warpgroup updates, stores the old value to shared memory between two barriers
    assert ptx.count("bar.sync") >= 2 and "ld.shared.b32" in ptx, ptx


@txl.jit
def _cas_tile(p, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    old = tl.atomic_cas(p + offs, tl.zeros([BLOCK], tl.int64), offs.to(tl.int64) + 1, sem="relaxed", scope="cta")
    tl.store(out_ptr + offs, old)


def test_tile_cas_64_bit():
    ptx, _ = compile_ptx(ir_of(_cas_tile, {"p": "*i64", "out_ptr": "*i64"}, {"BLOCK": 256}))
    assert set(_atoms(ptx)) == {"atom.relaxed.cta.global.cas.b64"}, _atoms(ptx)


@txl.jit
def _counter(count_ptr, out_ptr):
    t = tl.atomic_add(count_ptr, 1)
    tl.atomic_xchg(count_ptr + 1, t, sem="release")
    tl.store(out_ptr + tl.program_id(0), t)


def test_scalar_counter():
    text = ir_of(_counter, {"count_ptr": "*i32", "out_ptr": "*i32"})
    ptx, _ = compile_ptx(text, emit="cubin")  # ptxas accepts it (where it is installed)
    # red has no exch: the unused xchg is an atom too
    assert _atoms(ptx) == ["atom.acq_rel.gpu.global.add.u32", "atom.release.gpu.global.exch.b32"], _atoms(ptx)


@txl.jit
def _bad(p, v_ptr, WHAT: tl.constexpr):
    offs = tl.arange(0, 64)
    if WHAT == "fp16max":
        tl.atomic_max(p + offs, tl.load(v_ptr + offs))
    elif WHAT == "fp32and":
        tl.atomic_and(p + offs, tl.load(v_ptr + offs))
    elif WHAT == "sem":
        tl.atomic_add(p + offs, tl.load(v_ptr + offs), sem="seq_cst")
    elif WHAT == "scope":
        tl.atomic_add(p + offs, tl.load(v_ptr + offs), scope="device")
    elif WHAT == "int8":
        tl.atomic_add(p + offs, tl.load(v_ptr + offs))
    else:
        tl.atomic_add(v_ptr, 1)


@pytest.mark.parametrize("what,dtype,message,fix", [
    ("fp16max", "fp16", "tl.atomic_max does not take fp16 elements", "keep the buffer in float32"),
    ("fp32and", "fp32", "tl.atomic_and does not take fp32 elements", "pass an integer pointer"),
    ("sem", "fp32", "tl.atomic_add: unknown sem 'seq_cst'", "acq_rel"),
    ("scope", "fp32", "tl.atomic_add: unknown scope 'device'", "cta"),
    ("int8", "i8", "tl.atomic_add does not take int8 elements", "wider type"),
])
def test_refusals_name_the_alternative(what, dtype, message, fix):
    with pytest.raises(CompilationError) as info:
        ir_of(_bad, {"p": "*" + dtype, "v_ptr": "*" + dtype}, {"WHAT": what})
    e = info.value
    assert e.message.startswith(message), e.message
    assert fix in (e.fix or ""), e.fix


@txl.jit
def _not_a_pointer(x):
    tl.atomic_add(x, 1)


def test_atomic_needs_a_pointer():
    with pytest.raises(CompilationError) as info:
        ir_of(_not_a_pointer, {"x": "i32"})
    assert "tl.atomic_add needs a pointer" in info.value.message
