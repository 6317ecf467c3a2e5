"""Helpers for the DSL frontend tests: compile a kernel to IR text, check it FileCheck-style, verify it with
build/bin/txl-opt and compile it with build/bin/txlc (those two skip with a reason when the binaries are absent)."""

import os
import re
import subprocess
import tempfile

import pytest

from txl.compiler.code_generator import ast_to_ir

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
BIN = os.environ.get("TXL_BIN_DIR", os.path.join(REPO, "build", "bin"))
TXL_OPT = os.path.join(BIN, "txl-opt")
TXLC = os.path.join(BIN, "txlc")


def ir_of(fn, signature=None, constexprs=None, **opts):
    return ast_to_ir(fn, signature or {}, constexprs or {}, **opts)


def check(text, *patterns):
    """Each pattern (a regex) must match, in order (like consecutive CHECK lines)."""
    pos = 0
    for p in patterns:
        m = re.compile(p, re.M).search(text, pos)
        assert m, "pattern %r not found after offset %d (previous match ended at: %r) in:\n%s" % (
            p, pos, text[max(0, pos - 80):pos], text)
        pos = m.end()


def check_not(text, *patterns):
    for p in patterns:
        assert not re.search(p, text, re.M), "pattern %r unexpectedly found in:\n%s" % (p, text)


def _need(binary):
    if not os.access(binary, os.X_OK):
        pytest.skip("%s not built (cmake --build build --target txl-opt txlc)" % binary)


def verify(text):
    """The module parses and verifies with txl-opt."""
    _need(TXL_OPT)
    r = subprocess.run([TXL_OPT, "-"], input=text, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, "txl-opt rejected the module:\n%s\n%s" % (r.stderr, text)


def compile_ptx(text, emit="ptx"):
    """Runs txlc; returns (ptx text, stderr). emit='cubin' also runs ptxas (spill warnings land in stderr)."""
    _need(TXLC)
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "k.mlir")
        with open(src, "w") as f:
            f.write(text)
        out = os.path.join(d, "k.ptx")
        r = subprocess.run([TXLC, src, "--emit=" + emit, "-o", out], capture_output=True, text=True, timeout=120)
        if emit == "cubin" and r.returncode != 0 and "ptxas" in r.stderr and "not found" in r.stderr:
            pytest.skip("ptxas not available: %s" % r.stderr.strip())
        assert r.returncode == 0, "txlc failed:\n%s\n%s" % (r.stderr, text)
        with open(out) as f:
            return f.read(), r.stderr
