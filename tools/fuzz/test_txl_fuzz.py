"""Unit tests of the fuzz harness: python3 -m pytest tools/fuzz -q"""

import random
import stat
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import txl_fuzz as tf  # noqa: E402

SAMPLE = """\
// RUN: txl-opt %s | FileCheck %s
// CHECK-LABEL: func @f
module attributes {txl.target = "sm_90a"} {
  func.func @f(%i: i32) {
    %c0 = arith.constant 0 : i32
    %buf = txl.smem_alloc : !txl.smem<128x64xbf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
    %v = txl.get_buffer %buf[%c0] : !txl.smem<128x64xbf16, stages = 3, #txl.nvmma_shared<swizzle = 128>>
    %bars = txl.mbar_alloc count 1 : !txl.mbar<3>
    %p = txl.is_warpgroup [0]
    %m = txl.program_id 0 // expected-error {{nothing}}
    return
  }
}
// -----
func.func @g() {
  txl.bar_wait 8, 256
  return
}
"""


def corpus():
    return [tf.Entry(f"sample#{i}", c) for i, c in enumerate(tf.split_chunks(tf.clean_source(SAMPLE)))]


# --- corpus ---------------------------------------------------------------

def test_clean_and_split():
    chunks = tf.split_chunks(tf.clean_source(SAMPLE))
    assert len(chunks) == 2
    assert "RUN" not in chunks[0] and "CHECK" not in chunks[0]
    assert "expected-error" not in chunks[0]
    assert "txl.program_id 0" in chunks[0]
    assert chunks[1].startswith("func.func @g")


def test_seeds_exist():
    entries = tf.load_corpus([tf.SEED_DIR])
    assert len(entries) >= 4


# --- mutators ---------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(tf.MUTATORS))
def test_mutators_return_text_and_are_deterministic(name):
    c = corpus()
    fn = tf.MUTATORS[name]
    changed = 0
    for s in range(40):
        a = fn(c[0].text, random.Random(s), c)
        b = fn(c[0].text, random.Random(s), c)
        assert isinstance(a, str) and a == b
        changed += a != c[0].text
    assert changed > 0, f"{name} never changed the input"


def test_mutators_survive_odd_inputs():
    c = corpus()
    for fn in tf.MUTATORS.values():
        for text in ["", "\n", "}", "%", "\udcff\x00", "x" * 3]:
            for s in range(5):
                assert isinstance(fn(text, random.Random(s), c), str)


def test_make_case_deterministic_and_varied():
    c = corpus()
    a = [tf.make_case(c, 7, i).text for i in range(30)]
    b = [tf.make_case(c, 7, i).text for i in range(30)]
    assert a == b
    assert len(set(a)) > 20
    assert tf.make_case(c, 8, 0).text != a[0] or tf.make_case(c, 8, 1).text != a[1]


def test_specific_mutations():
    c = corpus()
    text = c[0].text
    # perturb_int replaces one integer literal, never an SSA name like %c0.
    for s in range(50):
        out = tf.m_perturb_int(text, random.Random(s), c)
        assert "%c0" in out and "%buf" in out
    # buffer_type touches stages / mbar / encodings.
    outs = {tf.m_buffer_type(text, random.Random(s), c) for s in range(60)}
    assert any("stages = 0" in o for o in outs)
    assert any("!txl.mbar<0>" in o or "!txl.mbar " in o or "!txl.mbar\n" in o for o in outs)
    # truncate shortens.
    assert len(tf.m_truncate(text, random.Random(1), c)) < len(text)
    # swap_ssa keeps the number of lines.
    assert tf.m_swap_ssa(text, random.Random(3), c).count("\n") == text.count("\n")
    # delete_op removes a whole region when the op opens one.
    lines = text.split("\n")
    assert len(tf.m_delete_op(text, random.Random(0), c).split("\n")) < len(lines)


def test_perturb_shape_changes_dims():
    text = "%t = txl.smem_load %v : !txl.smem<64x64xf32> -> tensor<64x64xf32>\n"
    outs = {tf.m_perturb_shape(text, random.Random(s), []) for s in range(40)}
    assert any("?x" in o for o in outs)
    assert any("<f32>" in o or "<64xf32>" in o for o in outs)


# --- classifier -------------------------------------------------------------

def fake(tmp_path, name, body):
    p = tmp_path / name
    p.write_text("#!/bin/sh\n" + body + "\n")
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return str(p)


def test_classify_plain():
    assert tf.classify(0, "")[0] == "ok"
    assert tf.classify(1, "x.mlir:1:1: error: expected operation name")[0] == "ok"
    assert tf.classify(1, "")[0] == "crash"  # failure without any diagnostic
    assert tf.classify(-11, "")[0] == "crash"
    assert tf.classify(134, "")[0] == "crash"
    assert tf.classify(1, "LLVM ERROR: out of memory")[0] == "crash"
    assert tf.classify(0, "PLEASE submit a bug report to ...")[0] == "crash"
    st, sig = tf.classify(-6, "foo: Foo.cpp:12: void f(): Assertion `x && \"bad\"' failed.")
    assert st == "crash" and "x && " in sig and "SIGABRT" in sig


def test_classify_crash_guard_reports():
    # A crash the tools' guard caught: upstream's parser is the intended diagnostic, a txl pass is a bug.
    parser = ("k.mlir:2:42: error: internal error in the MLIR parser at k.mlir:2:42 (upstream MLIR crashed on the "
              "construct that ends here, which is likely malformed: check its syntax); please report it with the "
              "input file and the command line")
    assert tf.classify(1, parser)[0] == "ok"
    st, sig = tf.classify(1, "txlc: error: internal error in pass 'convert-txl-to-nvvm' (ConvertTXLToNVVM) on "
                             "k.mlir:1:1; please report it with the input file and the command line")
    assert st == "crash" and sig == "internal error in pass 'convert-txl-to-nvvm' (ConvertTXLToNVVM)"
    st, sig = tf.classify(1, "txlc: error: internal error in the LLVM translation and NVPTX back end for k.mlir; "
                             "please report it")
    assert st == "crash" and sig == "internal error in the LLVM translation and NVPTX back end"


def test_signature_skips_signal_frames():
    out = """Stack dump:
 #0 0x00007f4b498b8786 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) (/usr/lib/libLLVM.so+0x1)
 #1 0x00007f4b498b5fd3 llvm::sys::RunSignalHandlers() (/usr/lib/libLLVM.so+0x2)
 #2 0x00007f4b498b94f4 (/usr/lib/llvm-22/lib/libLLVM.so.22.1+0x4eb94f4)
 #3 0x00007f4b4485a050 (/lib/x86_64-linux-gnu/libc.so.6+0x3c050)
 #4 0x000055abbbfe3da8 mlir::txl::SmemIndexOp::verify() (/work/main/build/bin/txl-opt+0xde7da8)
 #5 0x000055abbc020b90 mlir::Operation::verify() (/work/main/build/bin/txl-opt+0xe24b90)
"""
    sig = tf.signature_of(out, -11)
    assert sig == "SIGSEGV | in mlir::txl::SmemIndexOp::verify()"
    # Same bug, other addresses: same signature.
    assert tf.signature_of(out.replace("da8", "db0").replace("f4b", "e11"), -11) == sig


def test_fake_binary_segfault(tmp_path):
    b = fake(tmp_path, "segv", "kill -SEGV $$")
    o = tf.run_one([b, "in.mlir"], timeout=5)
    assert o.status == "crash" and "SIGSEGV" in o.signature


def test_fake_binary_abort(tmp_path):
    b = fake(tmp_path, "abrt", "kill -ABRT $$")
    assert tf.run_one([b], timeout=5).status == "crash"


def test_fake_binary_timeout(tmp_path):
    b = fake(tmp_path, "slow", "exec sleep 30")
    o = tf.run_one([b, "x"], timeout=0.5)
    assert o.status == "timeout"


def test_fake_binary_llvm_error(tmp_path):
    b = fake(tmp_path, "fatal", "echo 'LLVM ERROR: Building op without a context' >&2; exit 1")
    o = tf.run_one([b], timeout=5)
    assert o.status == "crash" and o.signature.startswith("LLVM ERROR: Building op")


def test_fake_binary_diagnostic_is_ok(tmp_path):
    b = fake(tmp_path, "diag", "echo \"$1:3:5: error: 'txl.dot' op wgmma N must be in 8..256\" >&2; exit 1")
    assert tf.run_one([b, "in.mlir"], timeout=5).status == "ok"
    b = fake(tmp_path, "good", "cat \"$1\"; exit 0")
    assert tf.run_one([b, "/dev/null"], timeout=5).status == "ok"


def test_fake_binary_odd_exit_code(tmp_path):
    b = fake(tmp_path, "exit3", "echo 'error: x' >&2; exit 3")
    assert tf.run_one([b], timeout=5).status == "crash"


def test_known_crashes(tmp_path):
    k = tmp_path / "known.txt"
    k.write_text("# comment\n^SIGSEGV[\\s\\S]*parseDenseArrayAttr  # upstream\n")
    known = tf.load_known(str(k))
    assert len(known) == 1
    hit = tf.Outcome("crash", "SIGSEGV | in mlir::FloatType::getWidth()", -11,
                     "#6 0x1 mlir::detail::Parser::parseDenseArrayAttr(mlir::Type)")
    assert tf.is_known(hit, known)
    assert not tf.is_known(tf.Outcome("crash", "SIGSEGV | in f()", -11, "#4 0x1 f()"), known)
    assert not tf.is_known(tf.Outcome("timeout", "timeout", None, "parseDenseArrayAttr"), known)


# --- end to end with fake binaries -----------------------------------------

def test_fuzz_run_and_minimize(tmp_path):
    corpus_dir = tmp_path / "corpus"
    corpus_dir.mkdir()
    (corpus_dir / "a.mlir").write_text(SAMPLE)
    # Crashes whenever the input mentions a !txl.mbar<0>-like zero-stage type or
    # `stages = 0`; otherwise exits 0.
    b = fake(tmp_path, "fake-opt",
             "if grep -q 'stages = 0' \"$1\"; then kill -SEGV $$; fi; exit 0")
    out = tmp_path / "out"
    common = ["--corpus", str(corpus_dir), "--binary", b, "--no-generic", "--jobs", "2",
              "--timeout", "5", "--progress", "0", "--no-known"]
    rc = tf.main(["--cases", "200", "--seed", "3", "--out", str(out)] + common)
    crashes = sorted(out.glob("crash-*.mlir"))
    assert rc == 1 and len(crashes) == 1  # deduplicated by signature
    txt = crashes[0].with_suffix(".txt").read_text()
    assert "signature: SIGSEGV" in txt and "command: " in txt and str(crashes[0]) in txt
    assert "fake-opt" in txt and "txl-fuzz-" not in txt.split("\n")[1]  # the real binary, not the copy
    dst = tmp_path / "min.mlir"
    assert tf.main(["--minimize", str(crashes[0]), "--min-out", str(dst), "--binary", b,
                    "--timeout", "5"]) == 0
    lines = [l for l in dst.read_text().splitlines() if l.strip()]
    assert len(lines) == 1 and "stages = 0" in lines[0]


def test_fuzz_clean_run(tmp_path):
    corpus_dir = tmp_path / "corpus"
    corpus_dir.mkdir()
    (corpus_dir / "a.mlir").write_text(SAMPLE)
    b = fake(tmp_path, "ok-opt", "exit 0")
    out = tmp_path / "out"
    rc = tf.main(["--cases", "20", "--corpus", str(corpus_dir), "--binary", b, "--no-generic",
                  "--out", str(out), "--progress", "0"])
    assert rc == 0
    assert "fuzz: 20 cases, 0 crashes, 0 timeouts (" in (out / "summary.txt").read_text()


def test_txlc_configs(tmp_path):
    cfgs = tf.configs_for("/x/build/bin/txlc")
    cmds = [c.command("in.mlir", "o.out") for c in cfgs]
    assert all(c[1] == "in.mlir" and "-o" in c for c in cmds)
    assert any("--arch=sm_90a" in c for c in cmds)
    opt = [c.command("in.mlir", "o.out") for c in tf.configs_for("/x/build/bin/txl-opt")]
    assert ["/x/build/bin/txl-opt", "in.mlir", "-cse", "-canonicalize"] in opt
    assert ["/x/build/bin/txl-opt", "in.mlir", "--verify-roundtrip"] in opt
    # A txlc that writes its output and a sidecar leaves nothing behind.
    b = fake(tmp_path, "txlc", 'while [ $# -gt 0 ]; do [ "$1" = -o ] && o=$2; shift; done; '
                               'echo x > "$o"; echo {} > "${o%.out}.json"; exit 0')
    work = tmp_path / "work"
    work.mkdir()
    case = work / "case-1.mlir"
    case.write_text("module {}\n")
    assert tf.run_case_file(str(case), tf.configs_for(b), 5, 0, str(work)).status == "ok"
    assert sorted(p.name for p in work.iterdir()) == ["case-1.mlir"]
