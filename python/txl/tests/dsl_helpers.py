"""Helpers for the DSL frontend tests: compile a kernel to IR text, check it FileCheck-style, verify it with
build/bin/txl-opt, run txl-opt passes on it (run_opt / opt_error) and compile it with build/bin/txlc (those skip
with a reason when the binaries are absent)."""

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
    """Each pattern (a regex) must match, in order (like consecutive CHECK lines). As FileCheck's [[VAR]]: a
    named group `(?P<phase>...)` binds its text, and `[[phase]]` later in that pattern or in a later one matches
    exactly that text (txl-opt prints generic SSA names: %arg5, %12). Returns the bindings."""
    pos = 0
    env = {}
    for p in patterns:
        # a variable bound earlier in the same pattern is a backreference
        p = re.sub(r"\[\[(\w+)\]\]",
                   lambda v: re.escape(env[v.group(1)]) if v.group(1) in env else "(?P=%s)" % v.group(1), p)
        m = re.compile(p, re.M).search(text, pos)
        assert m, "pattern %r not found after offset %d (previous match ended at: %r) in:\n%s" % (
            p, pos, text[max(0, pos - 80):pos], text)
        env.update({k: v for k, v in m.groupdict().items() if v is not None})
        pos = m.end()
    return env


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


def run_opt(text, *passes):
    """The module after ``txl-opt <passes>`` (e.g. "--txl-lower-tile-copies"), as txl-opt prints it: SSA names
    are generic there (%0, %arg3, %c0_i32), locations are not printed."""
    _need(TXL_OPT)
    r = subprocess.run([TXL_OPT] + list(passes) + ["-"], input=text, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, "txl-opt %s failed:\n%s\n%s" % (" ".join(passes), r.stderr, text)
    return r.stdout


def opt_error(text, *passes):
    """The diagnostics of ``txl-opt <passes>`` on a module it must reject (non-zero exit, no crash)."""
    _need(TXL_OPT)
    r = subprocess.run([TXL_OPT] + list(passes) + ["-"], input=text, capture_output=True, text=True, timeout=60)
    assert r.returncode > 0, \
        "txl-opt %s: expected an error, got exit %d:\n%s\n%s" % (" ".join(passes), r.returncode, r.stderr, text)
    assert "error:" in r.stderr and "Stack dump" not in r.stderr, r.stderr
    return r.stderr


def erase_dead(text):
    """txl-erase-dead-values, txlc's first cleanup stage: the module as every later stage sees it, without what
    nothing reads (the frontend prints the values its dry runs leave and the variables it carries for nothing)."""
    return run_opt(text, "--txl-erase-dead-values")


def lower_copies(text):
    """txl-lower-tile-copies: staging buffers, mbarriers and phases for the desc_load / desc_store / dot ops that
    the loop pipeliner did not take (for a kernel compiled with num_stages=1, all of them)."""
    return run_opt(text, "--txl-lower-tile-copies")


TILE_PASSES = ("--txl-global-scratch", "--txl-erase-dead-values", "--txl-rematerialize-expanded-ranges",
               "--txl-fold-dot-add", "--txl-schedule-loops", "--txl-expand-loops", "--txl-lower-tile-copies")


def lower_tiles(text):
    """The first stages of txlc's pipeline (txl-global-scratch ... txl-lower-tile-copies): the
    module with every desc_load / desc_store / register-B dot decided (rings for pipelined loops, staging buffers
    for the rest)."""
    return run_opt(text, *TILE_PASSES)


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
