"""The frontend's op builders are generated from ODS (python/txl/ir/gen_ops.py -> dialects.py):

* the committed dialects.py is what gen_ops.py generates from TableGen now (skipped without llvm-tblgen);
* every op name in the IR of the kernel corpus (the GPU test cases that precompile.py compiles) is a generated op,
  and that IR parses and verifies with txl-opt;
* the builders check what they are given against ODS (arity, variadic and optional operands, attribute kinds,
  enum cases, regions) and print the declarative format or the generic form.
"""

import os
import re
import subprocess

import pytest

from txl import ir
from txl.compiler import compiler as compiler_mod
from txl.ir import dialects as ods, gen_ops
from txl.language import core

from .dsl_helpers import TXL_OPT


def test_committed_builders_match_tablegen():
    exe = os.environ.get("TXL_TBLGEN") or os.path.join(gen_ops.LLVM, "bin", "llvm-tblgen")
    if not os.access(exe, os.X_OK):
        pytest.skip("no llvm-tblgen at %s" % exe)
    with open(gen_ops.OUTPUT) as f:
        committed = f.read()
    assert gen_ops.generate() == committed, \
        "python/txl/ir/dialects.py is stale: run python3 python/txl/ir/gen_ops.py and commit it"


_GENERIC = re.compile(r'^"([a-z_]\w*\.[\w.]+)"\(')
_CUSTOM = re.compile(r"^([a-z_]\w*\.[\w.]+)(?:\s|$)")
_RESULTS = re.compile(r"^%[\w.$-]+(?::\d+)?(?:, %[\w.$-]+)* = ")


def op_names(text):
    """Every op name in MLIR text that the frontend printed (custom or generic form)."""
    names = set()
    for line in text.splitlines():
        line = _RESULTS.sub("", line.strip())
        m = _GENERIC.match(line) or _CUSTOM.match(line)
        if m:
            names.add(m.group(1))
    return names


class _Stop(Exception):
    pass


def _corpus_irs(monkeypatch):
    """The frontend IR of every case of python/txl/tests/gpu/*_cases.py (the GPU tests' kernels and options),
    without running txlc."""
    from txl.tests.gpu import dsl_cases
    from txl.tools.precompile import all_cases

    irs = {}
    real = compiler_mod.frontend_ir

    def record(fn, *args, **kwargs):
        text = real(fn, *args, **kwargs)
        irs.setdefault(getattr(fn, "__name__", "?") + "#%d" % len(irs), text)
        raise _Stop()

    monkeypatch.setattr(compiler_mod, "frontend_ir", record)
    monkeypatch.setenv("TXL_AUTOTUNE_JOBS", "1")
    for case in all_cases():
        if case.ir_file:
            continue
        try:
            dsl_cases.run_case(case, dsl_cases.MetaFactory(), launch=False)
        except Exception:  # _Stop, or an autotuner reporting that its configs stopped
            pass
    return irs


def test_corpus_emits_only_generated_ops(monkeypatch):
    irs = _corpus_irs(monkeypatch)
    assert len(irs) >= 100, "only %d kernels of the corpus reached the frontend" % len(irs)
    seen = set()
    for name, text in irs.items():
        names = op_names(text)
        unknown = sorted(n for n in names if n not in ods.SPECS)
        assert not unknown, "%s: ops with no generated builder: %s" % (name, unknown)
        seen |= names
    # the corpus exercises the generic form (scf) and the declarative formats (txl, arith) alike
    assert {"scf.for", "scf.if", "txl.dot", "txl.desc_load", "arith.addf", "func.func", "builtin.module"} <= seen
    if not os.access(TXL_OPT, os.X_OK):
        pytest.skip("txl-opt not built: the corpus's op names were checked, not its parsing")
    for name, text in irs.items():
        r = subprocess.run([TXL_OPT, "-"], input=text, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, "%s: txl-opt rejects the frontend's IR:\n%s" % (name, r.stderr)


def test_op_names_sees_both_forms():
    text = ('  %a, %b = "scf.while"(%x) ({\n'
            "    %0 = arith.addi %x, %c1 : i32\n"
            "    txl.bar_wait 0, 128\n"
            "  }) : (i32) -> i32\n")
    assert op_names(text) == {"scf.while", "arith.addi", "txl.bar_wait"}


# ---------------------------------------------------------------------------------------------------------------
# Builders check what they are given against ODS
# ---------------------------------------------------------------------------------------------------------------
def _val(ty):
    return ir.Block([ty]).args[0]


def _print(op):
    p = ir.Printer()
    for v in op.operands:
        p.define(v)
    return p.print_op(op, 0).strip()


def test_declarative_format_and_attribute_kinds():
    a, b = _val(core.int32), _val(core.int32)
    assert re.fullmatch(r"%\w+ = arith\.cmpi slt, %\w+, %\w+ : i32",
                        _print(ods.arith.cmpi(a, b, result=core.int1, predicate="slt")))
    x, y = _val(core.float32), _val(core.float32)
    assert re.fullmatch(r"%\w+ = arith\.addf %\w+, %\w+ fastmath<contract> : f32",
                        _print(ods.arith.addf(x, y, result=core.float32, fastmath="contract")))
    assert _print(ods.txl.bar_wait(bar=0, numThreads=128)) == "txl.bar_wait 0, 128"
    # an optional operand and a default-valued attribute left out
    bar = _val(core.mbar_type(0))
    assert re.fullmatch(r"txl\.mbar_expect %\w+, 1024", _print(ods.txl.mbar_expect(bar, bytes=1024)))


def test_generic_form_has_properties_and_segment_sizes():
    c, x = _val(core.int1), _val(core.float32)
    text = _print(ods.arith.select(c, x, x, result=core.float32))
    assert re.fullmatch(r'%\w+ = "arith\.select"\(%\w+, %\w+, %\w+\) : \(i1, f32, f32\) -> f32', text), text
    p = _val(core.pointer_type(core.float32))
    op = ods.txl.atomic_rmw(p, x, result=core.float32, kind="add", sem="relaxed", scope="gpu")
    assert op.segments == [1, 1, 0, 0]
    p2 = ir.Printer()
    for v in op.operands:
        p2.define(v)
    generic = p2._generic(op, 0)
    assert "<{kind = #txl<atomic_kind add>, operandSegmentSizes = array<i32: 1, 1, 0, 0>, " \
           "scope = #txl<scope gpu>, sem = #txl<sem relaxed>}>" in generic, generic


@pytest.mark.parametrize("build, message", [
    (lambda: ods.arith.cmpi(_val(core.int32), _val(core.int32), result=core.int1, predicate="less"),
     "attribute `predicate` must be one of eq, ne, slt"),
    (lambda: ods.txl.bar_wait(bar="0", numThreads=128), "attribute `bar` must be an integer"),
    (lambda: ods.txl.make_range(result=core.int32, start=0, end=None), "attribute `end` is required"),
    (lambda: ods.txl.desc_load(_val(core.int32), _val(core.int32), result=core.int32),
     "operand `indices` is variadic"),
    (lambda: ods.arith.addf(_val(core.float32), 1.0, result=core.float32), "operand `rhs`"),
    (lambda: ods.txl.get_buffer(_val(core.mbar_type(2)), _val(core.int64), result=core.mbar_type(0)),
     "operand `index` must be 32-bit signless integer (i32), got i64"),
    (lambda: ods.arith.addf(_val(core.float32), _val(core.float32), result=None), "result `result` needs one type"),
    (lambda: ods.arith.addi(_val(core.int32), _val(core.int64), result=core.int32),
     "arith.addi: operands and results must have one type (SameOperandsAndResultType), got i32, i64 -> i32"),
    (lambda: ods.arith.addf(_val(core.float32), _val(core.float32), result=core.float32, fastmath="contract,fastt"),
     "attribute `fastmath` must be one of"),
])
def test_builders_refuse_what_ods_does_not_allow(build, message):
    with pytest.raises(ir.OpBuildError, match=re.escape(message)):
        build()


def test_builders_take_only_ods_names():
    with pytest.raises(TypeError):
        ods.txl.smem_load(_val(core.int32), result=core.int32, cta_id=0)  # ODS calls it ctaId


def test_printing_follows_the_ods_format(monkeypatch):
    # What the printer writes comes from the op's ODS description: a changed assembly format (here a made-up one)
    # changes the frontend's text with it, and an op without one prints in the generic form.
    spec = dict(ods.SPECS["txl.bar_wait"], format="$bar `to` $numThreads attr-dict")
    monkeypatch.setitem(ods.SPECS, "txl.bar_wait", spec)
    assert _print(ods.txl.bar_wait(bar=1, numThreads=256)) == "txl.bar_wait 1 to 256"
    monkeypatch.setitem(ods.SPECS, "txl.bar_wait", dict(spec, format=None))
    assert _print(ods.txl.bar_wait(bar=1, numThreads=256)) == \
        '"txl.bar_wait"() <{bar = 1 : i32, numThreads = 256 : i32}> : () -> ()'
