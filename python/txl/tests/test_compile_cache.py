"""txl.compile and the on-disk cache, through the real txlc (a fake frontend writes the IR; no GPU, no torch).

Covers: PTX/cubin/sidecar from a @txl.jit function and from IR text; cache hits and what changes the key
(constexprs, signature, options, source); a cache filled here used with the compiler hidden (the GPU-host case);
compile errors (located, nothing cached); stage dumps, TXL_DUMP_IR, diff_select, log_dir / TXL_KEEP_TEMPS.
"""

import json
import os
import tempfile

import pytest

import txl
import txl.language as tl
from txl.compiler import cache as cache_mod
from txl.compiler import compiler as C
from txl.tests.txl_fakes import FakeTensor, install_fake_frontend

if C.find_txlc() is None:  # pragma: no cover - depends on the machine
    pytest.skip("txlc is not built (scripts/setup.sh builds build/bin/txlc)", allow_module_level=True)

TXLC = C.find_txlc()
SIG = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}


@txl.jit
def vector_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pass


@txl.jit
def vector_add_kernel2(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    return  # a different body: different source, different frontend IR


@pytest.fixture
def env(tmp_path, monkeypatch):
    """A private cache directory, the fake frontend, and a count of txlc compilations."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # work dirs (kept ones too) go away with tmp_path
    monkeypatch.setenv("TXL_CACHE_DIR", str(tmp_path / "cache"))
    for v in ("TXL_TXLC", "TXL_DUMP_IR", "TXL_KEEP_TEMPS"):
        monkeypatch.delenv(v, raising=False)
    fe = install_fake_frontend(monkeypatch)
    runs = []
    real = C._run_txlc

    def counting(cmd, kernel, ir_path, **kw):
        runs.append(cmd)
        return real(cmd, kernel, ir_path, **kw)

    monkeypatch.setattr(C, "_run_txlc", counting)
    return type("Env", (), {"cache": tmp_path / "cache", "frontend": fe, "runs": runs, "tmp": tmp_path})


def hide_compiler(monkeypatch):
    """A machine without txlc: nothing in TXL_TXLC, the repo build dir or PATH."""
    monkeypatch.setenv("TXL_TXLC", "/nonexistent/txlc")
    assert C.find_txlc() is None
    monkeypatch.delenv("TXL_TXLC")
    monkeypatch.setattr(C, "TXLC_SEARCH_PATHS", [])
    monkeypatch.setattr(C, "SEARCH_PATH_ENV", False)
    assert C.find_txlc() is None


def compile_entries(root):
    d = os.path.join(root, "kernels")
    return sorted(os.listdir(d)) if os.path.isdir(d) else []


def test_compile_to_ptx_sidecar_and_cache(env):
    k = txl.compile(vector_add_kernel, signature=SIG, constexprs={"BLOCK": 256})
    assert isinstance(k, txl.CompiledKernel)
    assert "txl.make_range 0, 256" in k.asm["txl"]
    assert ".entry vector_add_kernel(" in k.asm["ptx"]
    if C.find_ptxas():
        assert k.asm["cubin"][:4] == b"\x7fELF"
    m = k.metadata
    assert m["kernel"] == "vector_add_kernel" and m["threads"] == [128, 1, 1] and m["shared_bytes"] == 0
    assert [(p["name"], p["kind"], p["dtype"]) for p in m["params"]] == [
        ("x_ptr", "ptr", "f32"), ("y_ptr", "ptr", "f32"), ("out_ptr", "ptr", "f32"), ("n", "scalar", "i32")]
    assert k.params == ["x_ptr", "y_ptr", "out_ptr", "n"]
    # the entry: manifest + files, the sidecar loads with the runtime as it is
    assert os.path.dirname(os.path.dirname(k.cache_path)) == str(env.cache / "kernels")
    man = json.load(open(os.path.join(k.cache_path, "manifest.json")))
    assert man["kernel"] == "vector_add_kernel" and man["options"]["num_warps"] == 4
    assert man["constexprs"] == {"BLOCK": "256"} and man["signature"] == SIG
    from txl.runtime import load_kernel

    lk = load_kernel(os.path.join(k.cache_path, "vector_add_kernel.json"))
    assert lk.meta.signature() == "vector_add_kernel(x_ptr: *f32, y_ptr: *f32, out_ptr: *f32, n: i32)"
    assert len(env.runs) == 1
    # the launcher checks arguments against the sidecar without a GPU
    kern = k.launcher()
    assert kern is k.launcher()
    x = FakeTensor((1000,))
    kern.check_args(x, x, x, 1000)
    with pytest.raises(TypeError, match="param 'x_ptr'.*float32"):
        kern.check_args(FakeTensor((1000,), "bfloat16"), x, x, 1000)


def test_cache_hit_and_what_changes_the_key(env):
    base = txl.compile(vector_add_kernel, SIG, {"BLOCK": 256})
    again = txl.compile(vector_add_kernel, SIG, {"BLOCK": 256})
    assert again.key == base.key and again.asm["ptx"] == base.asm["ptx"]
    assert len(env.runs) == 1, "the second compile must be a cache hit"
    keys = {base.key}
    for variant in [
        dict(fn=vector_add_kernel, sig=SIG, cx={"BLOCK": 512}),  # a constexpr
        dict(fn=vector_add_kernel, sig=dict(SIG, x_ptr="*bf16", y_ptr="*bf16", out_ptr="*bf16"), cx={"BLOCK": 256}),
        dict(fn=vector_add_kernel, sig=SIG, cx={"BLOCK": 256}, num_warps=8),  # an option
        dict(fn=vector_add_kernel, sig=SIG, cx={"BLOCK": 256}, debug_hangs=True),
        dict(fn=vector_add_kernel2, sig=SIG, cx={"BLOCK": 256}),  # the source
    ]:
        fn, sig, cx = variant.pop("fn"), variant.pop("sig"), variant.pop("cx")
        k = txl.compile(fn, sig, cx, **variant)
        assert k.key not in keys, variant
        keys.add(k.key)
    assert len(env.runs) == 6 and len(compile_entries(env.cache)) == 6
    assert "--debug-hangs" in env.runs[4]
    # num_warps reaches txlc in the module alone (one path for one fact), never as a flag
    assert not any("num-warps" in f for run in env.runs for f in run)
    # every option is part of the key, computed in Python alone
    ir = base.asm["txl"]
    opts = dict(base.options)
    assert cache_mod.frontend_key(ir, opts) == base.key
    assert cache_mod.frontend_key(ir, dict(opts, target="sm_100a")) != base.key
    assert cache_mod.frontend_key(ir + " ", opts) != base.key
    # use_cache=False compiles and writes nothing
    k = txl.compile(vector_add_kernel, SIG, {"BLOCK": 256}, use_cache=False)
    assert k.cache_path is None and len(env.runs) == 7 and len(compile_entries(env.cache)) == 6


def test_cache_works_without_the_compiler(env, monkeypatch):
    built = txl.compile(vector_add_kernel, SIG, {"BLOCK": 256})
    hide_compiler(monkeypatch)
    k = txl.compile(vector_add_kernel, SIG, {"BLOCK": 256})
    assert k.asm["ptx"] == built.asm["ptx"] and k.metadata == built.metadata
    assert k.asm.get("cubin") == built.asm.get("cubin")
    assert k.compiler_id == built.compiler_id and len(env.runs) == 1
    k.launcher().check_args(*(FakeTensor((8,)),) * 3, 8)
    # a specialisation that was not compiled: a clear error saying what to do
    with pytest.raises(C.TxlCompilerNotFoundError) as ei:
        txl.compile(vector_add_kernel, SIG, {"BLOCK": 512})
    msg = str(ei.value)
    assert "vector_add_kernel" in msg and "scripts/setup.sh" in msg and "TXL_TXLC" in msg
    assert "TXL_CACHE_DIR" in msg and str(env.cache) in msg
    # stage dumps need the compiler even when the kernel is cached
    with pytest.raises(C.TxlCompilerNotFoundError, match="pipeline stages"):
        txl.compile(vector_add_kernel, SIG, {"BLOCK": 256}, stages=("txl-lower-loads",))


def test_cache_with_the_compiler_rebuilds_for_a_new_compiler(env, monkeypatch):
    built = txl.compile(vector_add_kernel, SIG, {"BLOCK": 256})
    monkeypatch.setattr(C, "compiler_id", lambda txlc, ptxas=None: "newcompiler")
    k = txl.compile(vector_add_kernel, SIG, {"BLOCK": 256})
    assert len(env.runs) == 2 and k.compiler_id == "newcompiler" and k.key == built.key
    # without a compiler, the entry of the compiler that wrote last is taken
    hide_compiler(monkeypatch)
    assert txl.compile(vector_add_kernel, SIG, {"BLOCK": 256}).compiler_id == "newcompiler"


def test_lookup_without_compiler_prefers_recorded_then_newest(tmp_path):
    c = cache_mod.KernelCache(str(tmp_path))
    files = {"ptx": ("k.ptx", "ptx A"), "json": ("k.json", "{}")}
    c.store("f" * 64, "old", files, {"kernel": "k"})
    c.store("f" * 64, "new", dict(files, ptx=("k.ptx", "ptx B")), {"kernel": "k"})
    assert c.lookup("f" * 64).compiler_id == "new"  # compiler.json records the last writer
    c.write_json(os.path.join(str(tmp_path), "compiler.json"), {"compiler_id": "old"})
    assert c.lookup("f" * 64).read("ptx") == "ptx A"
    os.unlink(os.path.join(str(tmp_path), "compiler.json"))
    assert c.lookup("f" * 64).compiler_id == "new"  # the newest
    assert c.lookup("f" * 64, "old").compiler_id == "old"
    assert c.lookup("f" * 64, "missing") is None and c.lookup("e" * 64) is None
    # a second writer of the same entry keeps the first one; no temporary directories are left
    again = c.store("f" * 64, "old", dict(files, ptx=("k.ptx", "ptx C")), {"kernel": "k"})
    assert again.read("ptx") == "ptx A"
    assert not [n for n in os.listdir(os.path.join(str(tmp_path), "kernels", "f" * 64)) if n.startswith(".")]
    # a half-written entry (no manifest) is not an entry
    os.makedirs(os.path.join(str(tmp_path), "kernels", "d" * 64, "x"))
    assert c.lookup("d" * 64) is None and c.lookup("d" * 64, "x") is None


def test_default_cache_dir(monkeypatch, tmp_path):
    monkeypatch.delenv("TXL_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_mod.default_cache_dir() == os.path.join(str(tmp_path), "txl")
    monkeypatch.setenv("TXL_CACHE_DIR", "~/x")
    assert cache_mod.default_cache_dir() == os.path.expanduser("~/x")


def test_compile_error_is_located_and_not_cached(env):
    with pytest.raises(C.TxlCompileError) as ei:
        txl.compile(vector_add_kernel, SIG, {"BLOCK": 256, "BROKEN": True})
    e = ei.value
    msg = str(e)
    here = os.path.abspath(__file__)
    # the MLIR diagnostic points at the kernel's Python source (the frontend's loc), and the kernel is named
    assert "%s:%d:5: error: 'txl.make_range' op" % (here, vector_add_kernel.starting_line_number + 2) in msg
    assert msg.startswith("txlc failed to compile kernel vector_add_kernel (%s:" % here)
    assert e.kernel.startswith("vector_add_kernel") and "make_range" in e.diagnostics
    # the IR is kept for the reproduction command; nothing went into the cache
    assert os.path.exists(e.ir_path) and e.ir_path in msg and e.command[0] == TXLC
    assert compile_entries(env.cache) == []
    # it is also the frontend's CompilationError when that exists
    try:
        from txl.errors import CompilationError
    except ImportError:  # pragma: no cover
        return
    assert isinstance(e, CompilationError)


def test_compile_ir_text_and_file(env, tmp_path):
    ir = env.frontend(vector_add_kernel, SIG, {"BLOCK": 128})
    a = txl.compile(ir)
    assert a.name == "vector_add_kernel" and ".entry vector_add_kernel(" in a.asm["ptx"]
    p = tmp_path / "k.mlir"
    p.write_text(ir)
    b = txl.compile(str(p))
    assert b.key == a.key and len(env.runs) == 1
    # a missing file is said as such (it was parsed as IR text: "expected operation name in quotes")
    with pytest.raises(FileNotFoundError, match="no txl IR file .*missing.mlir"):
        txl.compile(str(tmp_path / "missing.mlir"))
    assert len(env.runs) == 1


def test_frontend_gets_the_options(env):
    txl.compile(vector_add_kernel, SIG, {"BLOCK": 256}, num_warps=4, num_warpgroups=2)
    assert env.frontend.calls[-1] == ("vector_add_kernel", SIG, {"BLOCK": 256}, 4, 2)
    with pytest.raises(TypeError, match="NUM_STAGES"):
        txl.compile(vector_add_kernel, SIG, {"BLOCK": 256}, num_stages=3)


def test_stage_ir(env):
    k = txl.compile(vector_add_kernel, SIG, {"BLOCK": 256}, stages=("txl-assign-layouts", "txl-lower-loads"))
    assert "#txl.blocked" in k.asm["txl-assign-layouts"] and "txl.make_range" in k.asm["txl-lower-loads"]
    assert "txl-partition-warpgroups" not in k.asm
    stages = C.pipeline_stages(TXLC)
    first = ["txl-expand-block-pointers", "txl-global-scratch", "txl-rematerialize-expanded-ranges", "txl-fold-dot-add", "txl-schedule-loops",
             "txl-expand-loops", "txl-lower-tile-copies", "txl-partition-warpgroups", "txl-assign-layouts"]
    assert stages[0] == first[0] and [s for s in stages if s in first] == first, stages
    assert "txl-wgmma" in stages
    before = len(env.runs)
    k = txl.compile(vector_add_kernel, SIG, {"BLOCK": 256}, stages="all")
    assert all(s in k.asm for s in stages)
    assert "llvm.func" in k.asm[stages[-1]]
    # every stage's IR from one txlc run (--dump-stages), not one run per stage
    stage_runs = [cmd for cmd in env.runs[before:] if any(a.startswith("--stop-after") for a in cmd)]
    assert len(stage_runs) == 1 and any(a.startswith("--dump-stages=") for a in stage_runs[0]), stage_runs
    with pytest.raises(ValueError, match="unknown pipeline stage.*nope.*txl-partition-warpgroups, txl-assign-layouts"):
        txl.compile(vector_add_kernel, SIG, {"BLOCK": 256}, stages=("nope",))


def test_dump_ir_env(env, monkeypatch, capsys):
    monkeypatch.setenv("TXL_DUMP_IR", "1")
    txl.compile(vector_add_kernel, SIG, {"BLOCK": 256})
    err = capsys.readouterr().err
    stages = C.pipeline_stages(TXLC)
    for i, s in enumerate(stages):
        assert "// -----// vector_add_kernel: IR after %s (stage %d) //----- //" % (s, i) in err


def test_diff_select(env, capsys):
    stages = C.pipeline_stages(TXLC)
    al = stages.index("txl-assign-layouts")
    k = txl.compile(vector_add_kernel, SIG, {"BLOCK": 256}, diff_select=al)
    out = capsys.readouterr().out
    assert "txl diff_mode: pipeline stages of vector_add_kernel" in out
    assert "  %2d txl-assign-layouts   <== selected" % al in out
    assert "  %2d txl-partition-warpgroups\n" % (al - 1) in out
    for i, s in enumerate(stages[:al]):
        assert "  %2d %s\n" % (i, s) in out
    assert "--- vector_add_kernel" in out and "before txl-assign-layouts (after txl-partition-warpgroups)" in out
    assert "+    %" in out and "#txl.blocked" in out and out == k.asm["diff"]
    # a kernel without device-built descriptors, loops or tiles: those passes change nothing
    txl.compile(vector_add_kernel, SIG, {"BLOCK": 256}, diff_select="txl-expand-block-pointers")
    assert "stage 0 txl-expand-block-pointers changed nothing: the IR after it is the frontend IR" \
        in capsys.readouterr().out
    txl.compile(vector_add_kernel, SIG, {"BLOCK": 256}, diff_select="txl-partition-warpgroups")
    assert "stage %d txl-partition-warpgroups changed nothing" % (al - 1) in capsys.readouterr().out
    with pytest.raises(ValueError, match="out of range.*0 txl-expand-block-pointers"):
        txl.compile(vector_add_kernel, SIG, {"BLOCK": 256}, diff_select=99)


def test_log_dir_keeps_files(env, capsys):
    logs = env.tmp / "logs"
    k = txl.compile(vector_add_kernel, SIG, {"BLOCK": 256}, log_dir=str(logs), stages=("txl-lower-loads",),
                    diff_select=0)
    d = logs / ("vector_add_kernel-" + k.key[:12])
    names = sorted(os.listdir(d))
    for n in ("vector_add_kernel.mlir", "vector_add_kernel.ptx", "vector_add_kernel.json",
              "00-txl-expand-block-pointers.mlir", "diff-00-txl-expand-block-pointers.diff"):
        assert n in names, names
    # stage dumps are numbered by pipeline position (which moves as stages are added)
    assert any(n.endswith("-txl-lower-loads.mlir") for n in names), names
    assert "kept the intermediate files of vector_add_kernel" in capsys.readouterr().err
    # on a cache hit the files are still written
    k2 = txl.compile(vector_add_kernel, SIG, {"BLOCK": 128}, log_dir=str(logs))
    k3 = txl.compile(vector_add_kernel, SIG, {"BLOCK": 128}, log_dir=str(logs / "again"))
    assert k3.cache_path == k2.cache_path
    assert (logs / "again" / ("vector_add_kernel-" + k2.key[:12]) / "vector_add_kernel.ptx").exists()


def test_keep_temps_env(env, monkeypatch, capsys):
    monkeypatch.setenv("TXL_KEEP_TEMPS", "1")
    txl.compile(vector_add_kernel, SIG, {"BLOCK": 256})
    err = capsys.readouterr().err
    where = err.split(" in ")[-1].strip()
    assert os.path.exists(os.path.join(where, "vector_add_kernel.ptx"))
    assert os.path.exists(os.path.join(where, "vector_add_kernel.mlir"))


def test_key_ignores_the_directories_of_source_locations(env):
    """The GPU host's checkout lives elsewhere: loc("/x/k.py":3:5) and loc("/y/k.py":3:5) give one key."""
    ir = env.frontend(vector_add_kernel, SIG, {"BLOCK": 256})
    here = vector_add_kernel.file
    assert 'loc("%s":' % here in ir
    moved = ir.replace(here, "/elsewhere/checkout/" + os.path.basename(here))
    opts = {"num_warps": 4}
    assert cache_mod.frontend_key(ir, opts) == cache_mod.frontend_key(moved, opts)
    renamed = ir.replace(here, os.path.join(os.path.dirname(here), "other.py"))
    assert cache_mod.frontend_key(ir, opts) != cache_mod.frontend_key(renamed, opts)
    built = txl.compile(ir)
    assert txl.compile(moved).cache_path == built.cache_path and len(env.runs) == 1


def test_unwritable_cache_only_warns(env, monkeypatch, capsys):
    def fail(*a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(cache_mod.KernelCache, "store", fail)
    k = txl.compile(vector_add_kernel, SIG, {"BLOCK": 256})
    assert k.cache_path is None and ".entry vector_add_kernel(" in k.asm["ptx"]
    assert "warning: could not write vector_add_kernel to the cache" in capsys.readouterr().err
