#!/usr/bin/env python3
"""Mutation fuzzer for txl-opt and txlc: bad input must never crash.

Takes every *.mlir of the lit tests, the examples and tools/fuzz/seeds,
mutates it (deletes, duplicates and swaps lines and ops, perturbs integers,
swaps types, shapes and attribute values, rewires SSA uses, truncates the
file, inserts garbage, drops braces, splices in lines of other files) and
runs each case through txl-opt (plain, `-cse -canonicalize`,
`--verify-roundtrip`) and txlc when it is built. A signal, a timeout, an
exit code other than 0/1, an exit 1 without any diagnostic, or LLVM's crash
banners in the output is a failure; one reproducer per distinct signature
is saved under the output directory.

    tools/fuzz/txl_fuzz.py --cases 500              # CI budget
    tools/fuzz/txl_fuzz.py --cases 10000 --seed 7   # long run
    tools/fuzz/txl_fuzz.py --minimize fuzz-out/crash-1234abcd.mlir

Standard library only (Python >= 3.9). See tools/fuzz/README.md.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SEED_DIR = Path(__file__).resolve().parent / "seeds"

# ---------------------------------------------------------------------------
# Corpus
# ---------------------------------------------------------------------------

SPLIT_RE = re.compile(r"^\s*//\s*-----\s*$", re.M)
# Lines that only drive lit/FileCheck/-verify-diagnostics.
DROP_LINE_RE = re.compile(r"^\s*//\s*(RUN|CHECK[\w-]*|REQUIRES|UNSUPPORTED|XFAIL|expected-[\w-]+)\b")
TRAILING_EXPECTED_RE = re.compile(r"\s*//\s*expected-[\w-]+.*$")


def read_text(path: Path) -> str:
    return path.read_bytes().decode("utf-8", "surrogateescape")


def write_text(path: Path, text: str) -> None:
    path.write_bytes(text.encode("utf-8", "surrogateescape"))


def clean_source(text: str) -> str:
    """Drop RUN/CHECK lines and expected-* annotations."""
    out = []
    for line in text.splitlines():
        if DROP_LINE_RE.match(line):
            continue
        out.append(TRAILING_EXPECTED_RE.sub("", line))
    return "\n".join(out) + "\n"


def split_chunks(text: str) -> list[str]:
    return [c.strip("\n") + "\n" for c in SPLIT_RE.split(text) if c.strip()]


@dataclass
class Entry:
    name: str
    text: str


def collect_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for p in paths:
        if p.is_file():
            files.append(p)
        elif p.is_dir():
            files.extend(sorted(q for q in p.rglob("*.mlir") if q.is_file()))
    # Deterministic order, no duplicates.
    seen, uniq = set(), []
    for f in files:
        r = f.resolve()
        if r not in seen:
            seen.add(r)
            uniq.append(f)
    return sorted(uniq, key=lambda f: str(f))


def load_corpus(paths: list[Path]) -> list[Entry]:
    entries = []
    for f in collect_files(paths):
        try:
            rel = f.resolve().relative_to(REPO)
        except ValueError:
            rel = f
        chunks = split_chunks(clean_source(read_text(f)))
        for i, chunk in enumerate(chunks):
            # Skip chunks that are only comments.
            if not any(l.strip() and not l.strip().startswith("//") for l in chunk.splitlines()):
                continue
            entries.append(Entry(f"{rel}#{i}" if len(chunks) > 1 else str(rel), chunk))
    return entries


def add_generic_forms(entries: list[Entry], opt: str | None, timeout: float, jobs: int) -> list[Entry]:
    """Add the generic-form printout of every entry that parses: mutating the
    generic form reaches the verifiers with operands and attributes that the
    custom parsers would never build. Entries that parse but do not verify
    (the -verify-diagnostics tests) are printed with the verifier off."""
    if not opt or not os.path.exists(opt):
        return entries

    def generic(e: Entry) -> Entry | None:
        with tempfile.NamedTemporaryFile("wb", suffix=".mlir", delete=False) as tf:
            tf.write(e.text.encode("utf-8", "surrogateescape"))
        try:
            for extra in ([], ["--mlir-very-unsafe-disable-verifier-on-parsing"]):
                r = subprocess.run([opt, tf.name, "--mlir-print-op-generic"] + extra, capture_output=True,
                                   timeout=timeout, stdin=subprocess.DEVNULL)
                if r.returncode == 0 and r.stdout.strip():
                    return Entry(e.name + "[generic]", r.stdout.decode("utf-8", "surrogateescape"))
        except (subprocess.TimeoutExpired, OSError):
            pass
        finally:
            os.unlink(tf.name)
        return None

    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as ex:
        extra = [g for g in ex.map(generic, entries) if g is not None]
    return entries + extra


# ---------------------------------------------------------------------------
# Mutators: each takes (text, rng, corpus) and returns the mutated text (or
# the same text when it found nothing to change). All randomness comes from
# `rng`, so a case is a pure function of (seed, case index, corpus).
# ---------------------------------------------------------------------------

INT_RE = re.compile(r"(?<![\w%#^@.$\"-])-?\d+(?![\w.])")
DIMS_RE = re.compile(r"(?<=<)((?:[0-9?]+x)+)(?=[a-zA-Z!])")
ELT_TYPES = ["f16", "bf16", "f32", "f64", "tf32", "i1", "i4", "i8", "i16", "i32", "i64", "index",
             "f8E4M3FN", "f8E5M2", "f4E2M1FN", "f6E2M3FN", "ui8", "si32", "none"]
ELT_RE = re.compile(r"(?<![\w%#^@.$!])(f16|bf16|f32|f64|tf32|i1|i4|i8|i16|i32|i64|index|f8E4M3FN|"
                    r"f8E5M2|f4E2M1FN|f6E2M3FN)(?![\w.])")
SSA_RE = re.compile(r"%[A-Za-z_0-9$.\-]+(?:#\d+)?")
OP_LINE_RE = re.compile(r"^\s*(?:%[\w$.#:, %-]+=\s*)?\"?[a-z_][\w]*\.[\w.]+")
TXL_OPS = ["smem_alloc", "get_buffer", "smem_load", "smem_store", "frag_smem_load", "frag_smem_store",
           "smem_index", "smem_subslice", "smem_trans", "smem_reshape", "tmem_alloc", "tmem_load",
           "tmem_store", "mbar_alloc", "mbar_expect", "mbar_wait", "mbar_arrive", "tma_load", "tma_store",
           "tma_store_wait", "tma_gather", "async_load", "async_load_wait", "fence_proxy_async", "dot",
           "dotx", "dot_wait", "bar_arrive", "bar_wait", "reg_alloc", "reg_dealloc", "is_warpgroup",
           "is_warp", "tid", "warp_id", "warpgroup_id", "lane_id", "cta_rank", "program_id",
           "num_programs", "print", "relayout", "make_range", "splat", "broadcast", "expand_dims",
           "reduce", "reduce_return", "addptr", "load", "store", "trans", "reshape", "join", "split",
           "make_tensor_descriptor"]
TXL_OP_RE = re.compile(r"\btxl\.(" + "|".join(sorted(TXL_OPS, key=len, reverse=True)) + r")\b")
TYPE_POOL = [
    "i1", "i32", "i64", "index", "f32", "bf16", "none",
    "!txl.mbar", "!txl.mbar<1>", "!txl.mbar<3>", "!txl.mbar<0>",
    "!txl.smem<128x64xbf16>", "!txl.smem<128x64xbf16, stages = 3>", "!txl.smem<bf16>",
    "!txl.smem<64xf32>", "!txl.smem<2x64x64xbf16>", "!txl.smem<1xi1>",
    "!txl.smem<128x64xbf16, stages = 2, #txl.nvmma_shared<swizzle = 128>>",
    "!txl.smem<64x64xf8E4M3FN, #txl.nvmma_shared<swizzle = 64, transposed = true>>",
    "!txl.tmem<128x256xf32>", "!txl.tmem<128x256xf32, stages = 2>", "!txl.tmem<64x8xi1>",
    "!txl.tensordesc<128x64xbf16>", "!txl.tensordesc<1x64xbf16>", "!txl.tensordesc<8xi64>",
    "!txl.ptr<f32>", "!txl.ptr<bf16, 3>", "!txl.ptr<i1, 0>",
    "tensor<128xf32>", "tensor<64x128xf32>", "tensor<128x64xbf16>", "tensor<f32>", "tensor<0xf32>",
    "tensor<?x64xf32>", "tensor<*xf32>", "tensor<128xi1>", "tensor<8xi32>", "tensor<64x64xi1>",
    "tensor<128x!txl.ptr<f32>>", "tensor<64x64x!txl.ptr<bf16>>", "tensor<1x1x1xf32>",
    "tensor<64x128xf32, #txl.nvmma_shared<swizzle = 128>>", "tensor<4x!txl.mbar>",
    "vector<4xf32>", "memref<4xf32>", "complex<f32>", "tuple<>", "!llvm.ptr<3>",
]
# Types: find `!txl.xxx<...>` / `tensor<...>` / `vector<...>` spans with balanced angles.
TYPE_START_RE = re.compile(r"(!txl\.\w+|tensor|vector|memref)<")
ATTR_POOL = [
    "#txl.nvmma_shared<swizzle = 128>", "#txl.nvmma_shared<swizzle = 0>",
    "#txl.nvmma_shared<swizzle = 32, transposed = true>", "#txl.nvmma_shared<swizzle = 48>",
    "#txl.nvmma_shared<swizzle = 4294967295>", "#txl.cache<ca>", "#txl.evict<evict_last>",
    "#txl.slice<dim = 1, parent = #txl.nvmma_shared<swizzle = 0>>",
    "#txl.dot_operand<opIdx = 0, parent = #txl.nvmma_shared<swizzle = 0>, kWidth = 2>",
    "#txl.slice<dim = 5, parent = 1 : i32>", "#txl.dot_operand<opIdx = 7, parent = unit, kWidth = 3>",
    "#txl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>",
    "#txl.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>",
    "#txl.blocked<sizePerThread = [], threadsPerWarp = [], warpsPerCTA = [], order = []>",
    "#txl.blocked<sizePerThread = [0, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 1]>",
    "#txl.blocked<sizePerThread = [1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1, 1], order = [2, 0]>",
    "#txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>",
    "#txl.linear<register = [[0, 1]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]]>",
    "#txl.linear<register = [[1]], lane = [[2], [4], [8], [16], [0]], warp = []>",
    "#txl.linear<register = [[9223372036854775807, 1]], lane = [[0, 0], [0, 0], [0, 0], [0, 0], [0, 0]], "
    "warp = [[1, 1], [1, 1], [1, 1], [1, 1], [1, 1], [1, 1]]>",
    "#txl.linear<register = [], lane = [], warp = []>",
    "#txl.nvmma<version = 2, warpsPerCTA = [0, 1], instrShape = [16, 0, 16]>",
    "#txl.nvmma<version = 3, warpsPerCTA = [4], instrShape = []>",
    "#txl.slice<dim = 1, parent = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>>",
    "#txl.slice<dim = 0, parent = #txl.slice<dim = 0, parent = #txl.blocked<sizePerThread = [4], "
    "threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>>>",
    "#txl.dot_operand<opIdx = 0, parent = #txl.nvmma<version = 3, warpsPerCTA = [4, 1], "
    "instrShape = [16, 64, 16]>, kWidth = 2>",
    "#txl.dot_operand<opIdx = 1, parent = #txl.slice<dim = 0, parent = #txl.blocked<sizePerThread = [4], "
    "threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>>, kWidth = 8>",
    "unit", "0 : i32", "-1 : i32", "2147483648 : i64", "1 : i1", "\"sm_90a\"", "\"sm_100a\"",
    "\"sm_80\"", "[]", "[0]", "[0, 0]", "[1, 0]", "[-1]", "[99, 3]", "array<i32: 1, 0>",
    "array<i64: 64, 0>", "array<i32>", "array<i64: -1>", "dense<0> : tensor<2xi32>", "1.5 : f32",
    "{}", "@sym", "affine_map<(d0) -> (d0)>",
]
GARBAGE_TOKENS = [
    "{", "}", "(", ")", "<", ">", "[", "]", ":", ",", "=", "->", "%", "%0", "%arg0", "^bb1", "^bb0:",
    "!txl.", "!txl.smem<", "!txl.mbar<", "#txl.", "#txl.nvmma_shared<", "txl.", "txl.dot",
    "txl.get_buffer", "txl.reduce", "\"", "\"unterminated", "0x", "0xFFFFFFFFFFFFFFFFFFFF", "-",
    "?", "x", "1x", "stages =", "swizzle =", "dense<", "@", "#", "!", "...", "//", "/*", "\\",
    "\x00", "\x7f", "\udcff", "\udcc3", "\t", "\r", "loc(", "loc(\"f\":1:1)", "{-#", "#-}",
    "attributes", "module", "func.func", "return", "scf.yield", "\u00e9", "\U0001f600",
]
INT_SPECIALS = [0, -1, 1, 2, 3, 7, 8, 16, 24, 32, 48, 64, 127, 128, 255, 256, 257, 512, 1024, 65535,
                2**31 - 1, 2**31, -(2**31), 2**32, 2**32 - 1, 2**53, 2**63 - 1, 2**63, -(2**63),
                2**64, 10**30]


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _is_op_line(line: str) -> bool:
    return bool(OP_LINE_RE.match(line))


def _block_end(lines: list[str], start: int) -> int:
    """Index one past the line that closes the region opened on lines[start]."""
    depth = 0
    for i in range(start, len(lines)):
        depth += lines[i].count("{") - lines[i].count("}")
        if depth <= 0:
            return i + 1
    return len(lines)


def _replace_span(text: str, s: int, e: int, new: str, rng, p_all: float = 0.5) -> str:
    """Replace text[s:e]; with probability p_all replace every occurrence of
    that text instead, so that a type change stays consistent between a
    value's definition and its uses (and the case gets past the parser)."""
    old = text[s:e]
    if old and rng.random() < p_all:
        return text.replace(old, new)
    return text[:s] + new + text[e:]


def m_delete_line(text, rng, corpus):
    lines = _lines(text)
    cand = [i for i, l in enumerate(lines) if l.strip()]
    if not cand:
        return text
    del lines[rng.choice(cand)]
    return "\n".join(lines)


def m_delete_op(text, rng, corpus):
    """Delete an op; an op that opens a region goes with its whole region."""
    lines = _lines(text)
    cand = [i for i, l in enumerate(lines) if _is_op_line(l)]
    if not cand:
        return m_delete_line(text, rng, corpus)
    i = rng.choice(cand)
    end = _block_end(lines, i) if lines[i].count("{") > lines[i].count("}") else i + 1
    del lines[i:end]
    return "\n".join(lines)


def m_duplicate_line(text, rng, corpus):
    lines = _lines(text)
    cand = [i for i, l in enumerate(lines) if l.strip()]
    if not cand:
        return text
    i = rng.choice(cand)
    j = rng.randrange(len(lines) + 1) if rng.random() < 0.3 else i + 1
    lines.insert(j, lines[i])
    return "\n".join(lines)


def m_swap_lines(text, rng, corpus):
    lines = _lines(text)
    cand = [i for i, l in enumerate(lines) if l.strip()]
    if len(cand) < 2:
        return text
    i, j = rng.sample(cand, 2)
    if rng.random() < 0.5:  # mostly neighbours: moves an op above its operands' defs
        j = cand[min(cand.index(i) + 1, len(cand) - 1)]
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def _new_int(v: int, rng) -> int:
    r = rng.random()
    if r < 0.45:
        return rng.choice(INT_SPECIALS)
    if r < 0.8:
        return v + rng.choice([-1, 1, -2, 2, 8, -8])
    if r < 0.9:
        return -v
    return v * rng.choice([2, 3, 1024]) if v else rng.randint(-10, 10)


def m_perturb_int(text, rng, corpus):
    ms = list(INT_RE.finditer(text))
    if not ms:
        return text
    m = rng.choice(ms)
    return text[:m.start()] + str(_new_int(int(m.group()), rng)) + text[m.end():]


def m_perturb_shape(text, rng, corpus):
    """Change a shape's dims: resize, drop, add, zero, dynamic, huge."""
    ms = list(DIMS_RE.finditer(text))
    if not ms:
        return m_perturb_int(text, rng, corpus)
    m = rng.choice(ms)
    dims = m.group(1).rstrip("x").split("x")
    op = rng.randrange(6)
    k = rng.randrange(len(dims))
    if op == 0 and len(dims) > 1:
        del dims[k]
    elif op == 1:
        dims.insert(k, str(rng.choice([1, 2, 4, 64, 128])))
    elif op == 2:
        dims[k] = "?"
    elif op == 3:
        dims[k] = str(rng.choice([0, 1, 3, 7, 9, 257, 2**31, 2**40, 2**62]))
    elif op == 4:
        dims = [] if rng.random() < 0.5 else dims[::-1]
    else:
        dims[k] = str(_new_int(int(dims[k]) if dims[k].isdigit() else 1, rng))
    new = "".join(d + "x" for d in dims)
    if rng.random() < 0.5:  # the same shape everywhere (whole types, not dims prefixes)
        old_t, new_t = text[m.start() - 1:m.end()], "<" + new
        return text.replace(old_t, new_t)
    return text[:m.start()] + new + text[m.end():]


def m_swap_elt_type(text, rng, corpus):
    ms = list(ELT_RE.finditer(text))
    if not ms:
        return text
    m = rng.choice(ms)
    if rng.random() < 0.5:  # the classic f32 <-> bf16 <-> i1 <-> index swaps
        new = rng.choice(["f32", "bf16", "i1", "index"])
    else:
        new = rng.choice(ELT_TYPES)
    if rng.random() < 0.3:  # change every occurrence: keeps the file type-consistent
        return re.sub(r"(?<![\w%#^@.$!])" + re.escape(m.group()) + r"(?![\w.])", new, text)
    return text[:m.start()] + new + text[m.end():]


def _type_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    for m in TYPE_START_RE.finditer(text):
        depth, i = 0, m.end() - 1
        while i < len(text):
            if text[i] == "<":
                depth += 1
            elif text[i] == ">":
                depth -= 1
                if depth == 0:
                    spans.append((m.start(), i + 1))
                    break
            elif text[i] == "\n":
                break
            i += 1
    return spans


def m_replace_type(text, rng, corpus):
    """Replace a whole type with another one (from the pool or this file)."""
    spans = _type_spans(text)
    if not spans:
        return m_swap_elt_type(text, rng, corpus)
    s, e = rng.choice(spans)
    if rng.random() < 0.5:
        s2, e2 = rng.choice(spans)
        new = text[s2:e2]
    else:
        new = rng.choice(TYPE_POOL)
    return _replace_span(text, s, e, new, rng)


def m_buffer_type(text, rng, corpus):
    """!txl.smem/!txl.tmem stages, encodings and kind; !txl.mbar<N>."""
    choices = []
    for m in re.finditer(r"stages\s*=\s*-?\d+", text):
        choices.append((m.start(), m.end(), ["stages = 0", "stages = -1", "stages = 1", "stages = 4",
                                              "stages = 9223372036854775807", "stages = 2147483648",
                                              "stages = 1000000", "stages", "stages = x", "stages = 2, stages = 3"]))
    for m in re.finditer(r",\s*stages\s*=\s*-?\d+", text):
        choices.append((m.start(), m.end(), [""]))
    for m in re.finditer(r"!txl\.mbar(<-?\d+>)?", text):
        choices.append((m.start(), m.end(), ["!txl.mbar", "!txl.mbar<0>", "!txl.mbar<1>", "!txl.mbar<-1>",
                                              "!txl.mbar<3>", "!txl.mbar<4294967296>", "!txl.mbar<>",
                                              "!txl.mbar<3, 2>", "!txl.mbar<x>"]))
    for m in re.finditer(r"#txl\.nvmma_shared<[^>]*>", text):
        choices.append((m.start(), m.end(), ["", "#txl.nvmma_shared<swizzle = 64>",
                                              "#txl.nvmma_shared<swizzle = 32, transposed = true>",
                                              "#txl.nvmma_shared<swizzle = 0>", "#txl.nvmma_shared<>",
                                              "#txl.nvmma_shared<swizzle = 128, swizzle = 64>",
                                              "#txl.nvmma_shared<transposed = true>",
                                              "#txl.cache<cg>", "unit", "#txl.slice<dim = 0, parent = unit>"]))
    for m in re.finditer(r"!txl\.(smem|tmem)<", text):
        choices.append((m.start(), m.end(), ["!txl.smem<", "!txl.tmem<", "!txl.tensordesc<", "!txl.ptr<",
                                              "!txl.mbar<", "tensor<"]))
    for m in re.finditer(r"(!txl\.(?:smem|tmem)<[^<>]*?)(>)", text):  # add stages / an encoding
        choices.append((m.end(1), m.end(), [", stages = 2>", ", stages = 1>", ", #txl.nvmma_shared<swizzle = 128>>",
                                            ", stages = 3, #txl.nvmma_shared<swizzle = 32>>", ", 1 : i32>"]))
    if not choices:
        return m_replace_type(text, rng, corpus)
    s, e, opts = rng.choice(choices)
    return _replace_span(text, s, e, rng.choice(opts), rng, 0.4)


def m_swap_attr(text, rng, corpus):
    """Swizzles, id arrays, axes, counts, unit attrs, target strings, enums."""
    choices = []
    for m in re.finditer(r"(?<=swizzle = )\d+", text):
        choices.append((m.start(), m.end(), ["0", "16", "32", "64", "96", "128", "256", "-1", "4294967296"]))
    for m in re.finditer(r"(?<=txl\.is_warpgroup )\[[^\]]*\]|(?<=txl\.is_warp )\[[^\]]*\]"
                         r"|(?<=txl\.smem_trans %\w)\S* \[[^\]]*\]|\[\s*-?\d+(?:\s*,\s*-?\d+)*\s*\]", text):
        choices.append((m.start(), m.end(), ["[]", "[0]", "[0, 0]", "[1, 0]", "[0, 1]", "[2, 0]", "[-1]",
                                              "[0, 1, 2]", "[3, 2, 1, 0]", "[31]", "[32]", "[4294967295]",
                                              "[2147483648]", "[9223372036854775808]"]))
    for m in re.finditer(r"(?<=axis )-?\d+|(?<=program_id )-?\d+|(?<=num_programs )-?\d+|"
                         r"(?<=expand_dims %)\w+, -?\d+", text):
        g = m.group()
        pre = g[:g.rfind(" ") + 1] if "," in g else ""
        choices.append((m.start(), m.end(), [pre + v for v in ["0", "1", "2", "3", "-1", "64", "2147483647",
                                                                "-2147483648"]]))
    for m in re.finditer(r"\b(?:dim|opIdx|kWidth|version) = (-?\d+)", text):
        choices.append((m.start(1), m.end(1), ["0", "1", "2", "3", "4", "7", "8", "-1", "4294967295"]))
    for m in re.finditer(r"\b(?:sizePerThread|threadsPerWarp|warpsPerCTA|order|instrShape) = (\[[^\]]*\])",
                         text):
        choices.append((m.start(1), m.end(1), ["[]", "[1]", "[32]", "[0, 0]", "[1, 0]", "[4, 8]", "[8, 4]",
                                              "[4, 1]", "[1, 1, 1]", "[16, 64, 16]", "[16, 7, 16]",
                                              "[4294967295, 1]", "[2, 0]"]))
    for m in re.finditer(r"#\w+\b(?![<.])", text):  # a layout alias use: #acc -> #row
        choices.append((m.start(), m.end(), sorted(set(re.findall(r"^(#\w+) =", text, re.M))) or ["#undefined"]))
    for m in re.finditer(r"(?<=count )-?\d+", text):
        choices.append((m.start(), m.end(), ["0", "1", "-1", "1048575", "1048576", "2147483647", "4294967296"]))
    for m in re.finditer(r"\{async\}|\{track_async_op\}|\{two_ctas\}|\{hex\}", text):
        choices.append((m.start(), m.end(), ["", "{async}", "{track_async_op}", "{two_ctas}", "{async = 1 : i32}",
                                              "{track_async_op, tx_count = 8 : i32}", "{hex}"]))
    for m in re.finditer(r"\"sm_\d+a?\"", text):
        choices.append((m.start(), m.end(), ["\"sm_90a\"", "\"sm_100a\"", "\"sm_80\"", "\"\"", "1 : i32", "unit"]))
    for m in re.finditer(r"(?<=txl\.num_warps = )-?\d+", text):
        choices.append((m.start(), m.end(), ["0", "3", "4", "8", "32", "36", "-4", "2147483648"]))
    for m in re.finditer(r"(?<=txl\.)(kernel|target|num_warps)\b", text):
        choices.append((m.start(), m.end(), ["kernel", "target", "num_warps", "bogus"]))
    for m in re.finditer(r"\b(none|ca|cg|wb|cs|wt|cv|evict_normal|evict_first|evict_last)\b(?=>)", text):
        choices.append((m.start(), m.end(), ["none", "ca", "cg", "wb", "cs", "wt", "cv", "evict_first",
                                              "evict_last", "bogus"]))
    # An attribute value in a dictionary or properties: `name = <value>`.
    for m in re.finditer(r"(?<=[{ ,<]\w)\w* = ([^,}>]+)", text):
        choices.append((m.start(1), m.end(1), ATTR_POOL))
    # Integer attribute types (generic form): `1 : i32`.
    for m in re.finditer(r"(?<=\d) : (i\d+)", text):
        choices.append((m.start(1), m.end(1), ["i1", "i8", "i16", "i64", "index", "ui32", "si32"]))
    if not choices:
        return m_perturb_int(text, rng, corpus)
    s, e, opts = rng.choice(choices)
    return text[:s] + rng.choice(opts) + text[e:]


def m_swap_op_name(text, rng, corpus):
    ms = list(TXL_OP_RE.finditer(text))
    if not ms:
        return m_swap_ssa(text, rng, corpus)
    m = rng.choice(ms)
    return text[:m.start(1)] + rng.choice(TXL_OPS) + text[m.end(1):]


def m_swap_ssa(text, rng, corpus):
    """Replace an SSA use with another name (defined elsewhere or not at all)."""
    ms = list(SSA_RE.finditer(text))
    if len(ms) < 2:
        return text
    # Prefer uses: occurrences not directly followed by `=` or `:` (defs, args).
    uses = [m for m in ms if not re.match(r"\s*(=|:|,[^=\n]*=)", text[m.end():m.end() + 40])]
    m = rng.choice(uses or ms)
    names = sorted({x.group() for x in ms} - {m.group()})
    r = rng.random()
    if r < 0.8 and names:
        new = rng.choice(names)
    elif r < 0.9:
        new = rng.choice(["%undefined", "%0", "%arg9", "%c0#1", m.group().split("#")[0] + "#7"])
    else:
        new = rng.choice(["^bb1", "@f", "1", "%", "%%"])
    return text[:m.start()] + new + text[m.end():]


def m_truncate(text, rng, corpus):
    data = text.encode("utf-8", "surrogateescape")
    if not data:
        return text
    return data[:rng.randrange(len(data))].decode("utf-8", "surrogateescape")


def m_garbage(text, rng, corpus):
    pos = rng.randrange(len(text) + 1)
    r = rng.random()
    if r < 0.7:
        junk = " ".join(rng.choice(GARBAGE_TOKENS) for _ in range(rng.randint(1, 3)))
    elif r < 0.85:
        junk = "".join(chr(0xDC80 + rng.randrange(128)) if rng.random() < 0.3 else chr(rng.randrange(1, 128))
                       for _ in range(rng.randint(1, 8)))
    else:
        junk = rng.choice(TYPE_POOL + ATTR_POOL)
    return text[:pos] + junk + text[pos:]


def m_remove_brace(text, rng, corpus):
    ch = rng.choice("}}}{)>]")
    idx = [i for i, c in enumerate(text) if c == ch]
    if not idx:
        return m_truncate(text, rng, corpus)
    i = rng.choice(idx)
    return text[:i] + text[i + 1:]


def m_splice(text, rng, corpus):
    """Insert (or substitute) a few lines taken from another corpus entry."""
    if not corpus:
        return m_duplicate_line(text, rng, corpus)
    other = _lines(rng.choice(corpus).text)
    cand = [i for i, l in enumerate(other) if _is_op_line(l)] or list(range(len(other)))
    i = rng.choice(cand)
    n = rng.choice([1, 1, 1, 2, 3, 5])
    piece = other[i:i + n]
    lines = _lines(text)
    j = rng.randrange(len(lines) + 1)
    if rng.random() < 0.3 and j < len(lines):
        lines[j:j + 1] = piece
    else:
        lines[j:j] = piece
    return "\n".join(lines)


MUTATORS = {
    "delete_line": m_delete_line,
    "delete_op": m_delete_op,
    "duplicate_line": m_duplicate_line,
    "swap_lines": m_swap_lines,
    "perturb_int": m_perturb_int,
    "perturb_shape": m_perturb_shape,
    "swap_elt_type": m_swap_elt_type,
    "replace_type": m_replace_type,
    "buffer_type": m_buffer_type,
    "swap_attr": m_swap_attr,
    "swap_op_name": m_swap_op_name,
    "swap_ssa": m_swap_ssa,
    "truncate": m_truncate,
    "garbage": m_garbage,
    "remove_brace": m_remove_brace,
    "splice": m_splice,
}
# Relative weights: destructive mutations (truncate, garbage) mostly test the
# lexer/parser; semantic ones reach the verifiers and passes, so weigh more.
WEIGHTS = {
    "delete_line": 4, "delete_op": 6, "duplicate_line": 4, "swap_lines": 4, "perturb_int": 10,
    "perturb_shape": 10, "swap_elt_type": 8, "replace_type": 8, "buffer_type": 8, "swap_attr": 10,
    "swap_op_name": 4, "swap_ssa": 8, "truncate": 2, "garbage": 3, "remove_brace": 2, "splice": 5,
}


@dataclass
class Case:
    index: int
    source: str
    mutations: list[str]
    text: str


def make_case(corpus: list[Entry], seed: int, index: int, max_mutations: int = 4) -> Case:
    """Case `index` of a run with `seed`: deterministic, independent of --jobs."""
    rng = random.Random(f"txl-fuzz:{seed}:{index}")
    entry = corpus[rng.randrange(len(corpus))]
    text = entry.text
    names = list(MUTATORS)
    weights = [WEIGHTS[n] for n in names]
    applied = []
    # Fewer mutations are likelier: a case with one bad spot reaches deeper.
    n = rng.choices(range(1, max_mutations + 1), weights=[2 ** (max_mutations - k) for k in range(max_mutations)])[0]
    for _ in range(n):
        name = rng.choices(names, weights=weights)[0]
        text = MUTATORS[name](text, rng, corpus)
        applied.append(name)
    return Case(index, entry.name, applied, text)


# ---------------------------------------------------------------------------
# Running and classifying
# ---------------------------------------------------------------------------

CRASH_MARKERS = ["PLEASE submit a bug report", "LLVM ERROR", "Assertion", "UNREACHABLE", "Stack dump",
                 "crashed: this is a bug"]
# Frames that belong to the crash machinery, not to the bug.
NOISE_FRAME_RE = re.compile(
    r"PrintStackTrace|SignalHandler|RunSignalHandlers|CrashRecovery|__restore_rt|\braise\b|\babort\b|"
    r"__assert_fail|pthread_kill|gsignal|__libc_start|_start\b|report_fatal_error|"
    r"llvm_unreachable_internal|reportFatal|__cxa_|std::terminate|__gnu_cxx|libc\.so|"
    r"0x[0-9a-f]+ \(?/lib|\?\?|handleErrorImpl|__pthread|__GI_|libstdc\+\+")
FRAME_RE = re.compile(r"^\s*#(\d+)\s+0x[0-9a-fA-F]+\s+(.*)$")
# The tools' crash guard turns a crash into "internal error in ...; please report
# it" and exit 1. In a txl pass or the back end that is still a txl bug to find;
# in the MLIR parser it is upstream's (stock mlir-opt crashes too) and the
# diagnostic is the intended outcome.
INTERNAL_ERROR_RE = re.compile(r"error: internal error in (?!the MLIR parser)(.*?)(?: on | for |; )")


@dataclass
class Outcome:
    status: str  # "ok", "crash", "timeout"
    signature: str = ""
    returncode: int | None = None
    output: str = ""
    cmd: list[str] = field(default_factory=list)


def _normalize(s: str) -> str:
    s = re.sub(r"0x[0-9a-fA-F]+", "0x?", s)
    s = re.sub(r"/[^\s:'\"]*/", "", s)  # directories
    s = re.sub(r"\(\+0x\?\)", "", s)
    return s.strip()[:200]


def top_frame(output: str) -> str:
    for line in output.splitlines():
        m = FRAME_RE.match(line)
        if not m:
            continue
        frame = m.group(2)
        if NOISE_FRAME_RE.search(frame):
            continue
        frame = re.sub(r"^0x[0-9a-fA-F]+\s*", "", frame)
        frame = re.sub(r"\s+(/\S+|\S+\.(?:cpp|h|inc)):\d+(:\d+)?$", "", frame)  # file:line
        frame = re.sub(r"\s*\(/[^)]*\)$", "", frame)  # (/path/lib.so+0x..)
        frame = _normalize(frame)
        if frame:  # frames without a symbol say nothing
            return frame
    return ""


def signature_of(output: str, returncode: int | None) -> str:
    """A short, stable description used to deduplicate crashes."""
    msg = ""
    for line in output.splitlines():
        if "Assertion" in line and "failed" in line:
            m = re.search(r"Assertion `(.*)' failed", line)
            msg = "Assertion: " + (m.group(1) if m else line)
            break
        if "LLVM ERROR" in line:
            msg = line[line.index("LLVM ERROR"):]
            break
        if "UNREACHABLE" in line:
            msg = line[line.index("UNREACHABLE"):]
            msg = re.sub(r" at \S+:\d+", "", msg)
            break
    frame = top_frame(output)
    parts = []
    if returncode is not None and returncode < 0:
        try:
            import signal
            parts.append(signal.Signals(-returncode).name)
        except (ValueError, AttributeError):
            parts.append(f"signal {-returncode}")
    if msg:
        parts.append(_normalize(msg))
    if frame:
        parts.append("in " + frame)
    if not parts:
        parts.append(f"exit {returncode}")
    return " | ".join(parts)


def classify(returncode: int | None, output: str, timed_out: bool = False) -> tuple[str, str]:
    """(status, signature) of one run. OK: exit 0, or exit 1 with a diagnostic."""
    if timed_out:
        return "timeout", "timeout"
    if returncode is None or returncode < 0:
        return "crash", signature_of(output, returncode)
    if any(mk in output for mk in CRASH_MARKERS):
        return "crash", signature_of(output, returncode)
    m = INTERNAL_ERROR_RE.search(output)
    if m:
        return "crash", "internal error in " + _normalize(m.group(1))
    if returncode == 0:
        return "ok", ""
    if returncode == 1:
        if re.search(r"\berror\b|: note:|: warning:", output, re.I) or "expected" in output:
            return "ok", ""
        return "crash", "exit 1 without a diagnostic"
    return "crash", f"exit {returncode} | " + (top_frame(output) or _normalize(output.strip()[-120:]))


def _limits(mem_mb: int):
    def fn():
        try:
            import resource
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            if mem_mb > 0:
                b = mem_mb * 1024 * 1024
                resource.setrlimit(resource.RLIMIT_AS, (b, b))
        except (ImportError, ValueError, OSError):
            pass
    return fn


def run_one(cmd: list[str], timeout: float, mem_mb: int = 0) -> Outcome:
    env = dict(os.environ)
    env.setdefault("LLVM_DISABLE_CRASH_REPORT", "1")
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, env=env, preexec_fn=_limits(mem_mb) if os.name == "posix" else None)
        out = p.stdout.decode("utf-8", "replace")
        status, sig = classify(p.returncode, out)
        return Outcome(status, sig, p.returncode, out, cmd)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        tool = os.path.basename(cmd[0])
        flags = " ".join(a for a in cmd[2:] if a.startswith("-") and not a.startswith("-o"))
        return Outcome("timeout", f"timeout in {tool} {flags}".strip(), None, out, cmd)


@dataclass
class Config:
    """One way of running a case: `argv` with `{in}` and `{out}` placeholders."""
    argv: list[str]

    def command(self, infile: str, outfile: str) -> list[str]:
        return [a.replace("{in}", infile).replace("{out}", outfile) for a in self.argv]


def configs_for(binary: str) -> list[Config]:
    name = os.path.basename(binary)
    if "txlc" in name:
        return [Config([binary, "{in}", "--arch=sm_90a", "-o", "{out}"]),
                Config([binary, "{in}", "--arch=sm_100a", "--emit=llvm", "-o", "{out}"])]
    return [Config([binary, "{in}"]),
            Config([binary, "{in}", "-cse", "-canonicalize"]),
            Config([binary, "{in}", "--verify-roundtrip"])]


def run_case_file(path: str, configs: list[Config], timeout: float, mem_mb: int,
                  workdir: str) -> Outcome:
    """Run every config; return the first failure (or an ok outcome)."""
    stem = os.path.splitext(os.path.basename(path))[0]
    outfile = os.path.join(workdir, stem + ".out")
    try:
        for c in configs:
            o = run_one(c.command(path, outfile), timeout, mem_mb)
            if o.status != "ok":
                return o
        return Outcome("ok")
    finally:
        # The output and any sidecar (txlc writes <stem>.json beside its PTX).
        for f in os.listdir(workdir):
            if f.startswith(stem + ".") and os.path.join(workdir, f) != path:
                try:
                    os.unlink(os.path.join(workdir, f))
                except OSError:
                    pass


def save_reproducer(out_dir: Path, case_text: str, o: Outcome, infile: str, note: str,
                    known: bool = False) -> Path:
    h = hashlib.sha1(case_text.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    prefix = "timeout" if o.status == "timeout" else ("known" if known else "crash")
    path = out_dir / f"{prefix}-{h}.mlir"
    write_text(path, case_text)
    outname = os.path.splitext(infile)[0] + ".out"
    cmd = [str(path) if a == infile else ("/tmp/txl-fuzz-repro.out" if a == outname else a) for a in o.cmd]
    tail = "\n".join(o.output.splitlines()[-60:])
    info = (f"signature: {o.signature}\n"
            f"command: {shlex.join(cmd)}\n"
            f"returncode: {o.returncode}\n"
            f"{note}\n"
            f"--- output tail ---\n{tail}\n")
    write_text(path.with_suffix(".txt"), info)
    return path


# ---------------------------------------------------------------------------
# Fuzz loop
# ---------------------------------------------------------------------------

KNOWN_FILE = Path(__file__).resolve().parent / "known_crashes.txt"


def load_known(path: str | None) -> list[tuple[re.Pattern, str]]:
    """Regexes of crashes that are not txl's to fix (upstream MLIR bugs):
    `REGEX  # why` per line, searched in the signature and the output (stack
    dump). They are saved and listed but do not fail the run."""
    if not path or not os.path.exists(path):
        return []
    known = []
    for line in read_text(Path(path)).splitlines():
        pat, _, why = line.partition("  #")
        if pat.strip() and not pat.lstrip().startswith("#"):
            known.append((re.compile(pat.strip()), why.strip()))
    return known


def is_known(o: Outcome, known: list[tuple[re.Pattern, str]]) -> bool:
    text = o.signature + "\n" + o.output
    return o.status == "crash" and any(p.search(text) for p, _ in known)


def snapshot_binaries(binaries: list[str], workdir: str) -> dict[str, str]:
    """Copy the binaries into `workdir` so that a rebuild during the run
    (a relink deletes or half-writes build/bin/*) does not look like a crash."""
    snap = {}
    bindir = os.path.join(workdir, "bin")
    os.makedirs(bindir, exist_ok=True)
    for b in binaries:
        dst = os.path.join(bindir, os.path.basename(b))
        for _ in range(60):  # wait out a relink in progress
            try:
                size = os.path.getsize(b)
                time.sleep(0.2)
                if os.path.getsize(b) == size:
                    shutil.copy2(b, dst)
                    break
            except OSError:
                pass
            time.sleep(1)
        else:
            raise SystemExit(f"fuzz: cannot copy {b}")
        snap[dst] = b
    return snap


def default_binaries() -> list[str]:
    bins = []
    for name in ("txl-opt", "txlc"):
        p = REPO / "build" / "bin" / name
        if p.exists():
            bins.append(str(p))
    return bins


def fuzz(args) -> int:
    binaries = [str(Path(b)) for b in (args.binary or default_binaries())]
    missing = [b for b in binaries if not os.path.exists(b)]
    if missing or not binaries:
        print(f"fuzz: binary not found: {missing or 'build/bin/txl-opt'}", file=sys.stderr)
        return 2
    corpus_paths = [Path(c) for c in args.corpus] if args.corpus else \
        [REPO / "test", REPO / "examples", SEED_DIR]
    corpus = load_corpus(corpus_paths)
    if not corpus:
        print("fuzz: empty corpus", file=sys.stderr)
        return 2
    n_files = len(corpus)
    opt = next((b for b in binaries if "txlc" not in os.path.basename(b)), None)
    if not args.no_generic:
        corpus = add_generic_forms(corpus, opt, args.timeout, args.jobs)
    workdir = tempfile.mkdtemp(prefix="txl-fuzz-")
    snap = {b: b for b in binaries} if args.no_snapshot else snapshot_binaries(binaries, workdir)
    configs = [c for b in snap for c in configs_for(b)]
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    print(f"fuzz: corpus {n_files} inputs (+{len(corpus) - n_files} generic forms), "
          f"{len(configs)} configurations, seed {args.seed}, jobs {args.jobs}, timeout {args.timeout} s",
          flush=True)

    known = [] if args.no_known else load_known(args.known)
    lock = threading.Lock()
    stats = {"done": 0, "crashes": 0, "timeouts": 0, "known": 0}
    sigs: dict[str, list] = {}  # signature -> [count, reproducer path, known]
    start = time.monotonic()

    def summary(done: int) -> str:
        return (f"fuzz: {done} cases, {stats['crashes']} crashes, {stats['timeouts']} timeouts "
                f"({time.monotonic() - start:.1f} s)")

    def work(i: int) -> None:
        case = make_case(corpus, args.seed, i, args.max_mutations)
        path = os.path.join(workdir, f"case-{i}.mlir")
        write_text(Path(path), case.text)
        try:
            o = run_case_file(path, configs, args.timeout, args.mem_limit, workdir)
        finally:
            os.unlink(path)
        with lock:
            stats["done"] += 1
            if o.status != "ok":
                if is_known(o, known):
                    stats["known"] += 1
                else:
                    stats["crashes" if o.status == "crash" else "timeouts"] += 1
                entry = sigs.setdefault(o.signature, [0, None, is_known(o, known)])
                entry[0] += 1
                if entry[1] is None:
                    note = (f"case: {i} seed: {args.seed} source: {case.source} "
                            f"mutations: {', '.join(case.mutations)}")
                    o.cmd = [snap.get(a, a) for a in o.cmd]  # name the real binary
                    entry[1] = save_reproducer(out_dir, case.text, o, path, note, entry[2])
                    kind = "KNOWN " if entry[2] else ""
                    print(f"fuzz: case {i}: {kind}{o.status.upper()} {o.signature} -> {entry[1]}", flush=True)
            if args.progress and stats["done"] % args.progress == 0:
                print(summary(stats["done"]), flush=True)

    try:
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as ex:
            futs = [ex.submit(work, i) for i in range(args.first_case, args.first_case + args.cases)]
            for f in concurrent.futures.as_completed(futs):
                f.result()
    except KeyboardInterrupt:
        print("fuzz: interrupted", file=sys.stderr)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    if sigs:
        print(f"fuzz: {len(sigs)} distinct failure signatures:")
        for sig, (count, path, kn) in sorted(sigs.items(), key=lambda kv: -kv[1][0]):
            tag = " (known upstream, not counted)" if kn else ""
            print(f"  {count:6d}  {sig}{tag}\n          {path}")
    if stats["known"]:
        print(f"fuzz: {stats['known']} cases hit known upstream crashes ({args.known})")
    line = summary(stats["done"])
    print(line, flush=True)
    with open(out_dir / "summary.txt", "a") as f:
        f.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} seed={args.seed} first={args.first_case} "
                f"binaries={','.join(os.path.basename(b) for b in binaries)}: {line}\n")
    return 1 if stats["crashes"] or stats["timeouts"] else 0


# ---------------------------------------------------------------------------
# Minimizer
# ---------------------------------------------------------------------------

def minimize(args) -> int:
    src = Path(args.minimize)
    text = read_text(src)
    binaries = [str(Path(b)) for b in (args.binary or default_binaries())]
    configs = [c for b in binaries for c in configs_for(b)]
    workdir = tempfile.mkdtemp(prefix="txl-fuzz-min-")
    probe = os.path.join(workdir, "probe.mlir")

    def check(t: str) -> Outcome:
        write_text(Path(probe), t)
        return run_case_file(probe, configs, args.timeout, args.mem_limit, workdir)

    first = check(text)
    if first.status == "ok":
        print(f"minimize: {src} does not fail with {', '.join(binaries)}", file=sys.stderr)
        return 2
    target, target_status = first.signature, first.status
    # Re-check with the one failing command only (faster than every config).
    failing = Config([probe if a == probe else a for a in first.cmd])
    print(f"minimize: target {target_status}: {target}\nminimize: command {shlex.join(first.cmd)}")

    tries = 0

    def still_fails(lines: list[str]) -> bool:
        nonlocal tries
        tries += 1
        write_text(Path(probe), "\n".join(lines))
        o = run_one(failing.command(probe, os.path.join(workdir, "probe.out")), args.timeout, args.mem_limit)
        return o.status == target_status and o.signature == target

    lines = text.split("\n")
    # ddmin-style: remove chunks of decreasing size, then single lines until fixpoint.
    n = max(1, len(lines) // 2)
    while n >= 1:
        i, progress = 0, False
        while i < len(lines):
            cand = lines[:i] + lines[i + n:]
            if cand and still_fails(cand):
                lines, progress = cand, True
            else:
                i += n
        if not progress or n > 1:
            n //= 2
    # Shorten each remaining line by dropping trailing comments / attributes.
    for i in range(len(lines)):
        stripped = re.sub(r"\s*//.*$", "", lines[i])
        if stripped != lines[i]:
            cand = lines[:i] + [stripped] + lines[i + 1:]
            if still_fails(cand):
                lines = cand
    result = "\n".join(lines).rstrip("\n") + "\n"
    dst = Path(args.min_out) if args.min_out else src.with_name(src.stem + ".min.mlir")
    write_text(dst, result)
    for f in os.listdir(workdir):
        os.unlink(os.path.join(workdir, f))
    os.rmdir(workdir)
    print(f"minimize: {len(text.splitlines())} -> {len(lines)} lines in {tries} runs -> {dst}")
    print(result, end="")
    return 0


# ---------------------------------------------------------------------------

def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=500, help="number of cases (default 500)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--first-case", type=int, default=0,
                    help="index of the first case (to continue or shard a run)")
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds per command (default 10)")
    ap.add_argument("--jobs", "-j", type=int, default=2, help="parallel cases (default 2)")
    ap.add_argument("--out", default=str(REPO / "fuzz-out"), help="where reproducers go (default fuzz-out/)")
    ap.add_argument("--binary", action="append",
                    help="binary to fuzz (repeatable; default build/bin/txl-opt and build/bin/txlc if built)")
    ap.add_argument("--corpus", action="append",
                    help="corpus dir or file (repeatable; default test/, examples/, tools/fuzz/seeds/)")
    ap.add_argument("--max-mutations", type=int, default=4, help="mutations per case, at most (default 4)")
    ap.add_argument("--progress", type=int, default=100, help="print progress every N cases (0: never)")
    ap.add_argument("--mem-limit", type=int, default=4096,
                    help="address-space limit per command in MiB (0: none; default 4096)")
    ap.add_argument("--no-generic", action="store_true",
                    help="do not add the generic-form printout of each corpus entry")
    ap.add_argument("--known", default=str(KNOWN_FILE),
                    help="file of signature regexes of known upstream crashes that do not fail the run "
                         "(default tools/fuzz/known_crashes.txt)")
    ap.add_argument("--no-known", action="store_true", help="count known upstream crashes as crashes")
    ap.add_argument("--no-snapshot", action="store_true",
                    help="run the binaries in place instead of private copies")
    ap.add_argument("--dump-case", type=int, metavar="I", help="print case I of --seed and exit")
    ap.add_argument("--minimize", metavar="FILE", help="shrink a reproducer while it fails the same way")
    ap.add_argument("--min-out", metavar="FILE", help="where --minimize writes (default FILE.min.mlir)")
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.minimize:
        return minimize(args)
    if args.dump_case is not None:
        corpus_paths = [Path(c) for c in args.corpus] if args.corpus else \
            [REPO / "test", REPO / "examples", SEED_DIR]
        corpus = load_corpus(corpus_paths)
        if not args.no_generic:
            bins = args.binary or default_binaries()
            opt = next((b for b in bins if "txlc" not in os.path.basename(b)), None)
            corpus = add_generic_forms(corpus, opt, args.timeout, args.jobs)
        case = make_case(corpus, args.seed, args.dump_case, args.max_mutations)
        sys.stderr.write(f"// case {case.index} from {case.source}: {', '.join(case.mutations)}\n")
        sys.stdout.write(case.text)
        return 0
    return fuzz(args)


if __name__ == "__main__":
    sys.exit(main())
