"""FP8 attention forward (``txl.ops.flash_attention_fp8``) without a GPU:

* every autotuning configuration of the kernel (head dims 64/128/256, causal or not, N a multiple of 128 or not,
  GQA) compiles through txlc and ptxas without spills, with e4m3 wgmmas (k32) only, within the shared memory of
  an H100, and P reaches the P V wgmma with no relayout (no scratch buffer, no shared-memory round trip);
* the V transpose kernel compiles to 16-byte global loads and stores;
* the key permutation: the kernel's rename of P's columns (_a_operand), the transpose kernel's inverse map and
  key_perm agree, and attention with both applied equals attention without (numpy);
* argument errors, and the ops' precompile path. The GPU test is gpu/test_attention_fp8_gpu.py."""

import re

import pytest

from txl.kernels import flash_attention_fp8 as K
from txl.ops import attention_fp8 as F8

from .dsl_helpers import compile_ptx, ir_of, run_opt

SMEM_LIMIT = 232448  # bytes of shared memory a CTA may use on sm_90
# txlc's stages up to the scratch buffers (a relayout's included in the shared-memory plan)
UP_TO_SCRATCH = ("--txl-fold-dot-add", "--txl-schedule-loops", "--txl-expand-loops", "--txl-lower-tile-copies",
                 "--txl-partition-warpgroups", "--txl-assign-layouts", "--txl-remove-layout-conversions",
                 "--loop-invariant-code-motion", "--txl-allocate-scratch")


def _variants():
    return [(d, bn, ns) for d in F8.HEAD_DIMS for bn, ns in F8.CONFIGS[d]]


def _text(d, bn, ns, causal, even_n, group, rename_p=True):
    return ir_of(K.flash_attention_fp8, K.signature(d, bn),
                 K.constexprs(d, causal, bn, ns, even_n, group, rename_p=rename_p), **K.OPTIONS)


@pytest.mark.parametrize("d,block_n,num_stages", _variants())
@pytest.mark.parametrize("causal,even_n,group,rename_p", [(False, True, 1, True), (True, False, 4, True),
                                                          (False, False, 8, True), (True, True, 2, True),
                                                          (True, False, 4, False)])
def test_fp8_configs_compile_without_spills(d, block_n, num_stages, causal, even_n, group, rename_p):
    # rename_p=False (P relayouted through shared memory, ops.attention_fp8.RENAME_P's fallback) compiles too
    text = _text(d, block_n, num_stages, causal, even_n, group, rename_p)
    ptx, err = compile_ptx(text, emit="cubin")
    assert "spill" not in err.lower(), err
    wgmma = set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m64n\d+k\d+)\.f32\.(\w+)\.(\w+)", ptx))
    # S = Q K^T: n = BLOCK_N; O += P VT^T: n = D; both e4m3 x e4m3, k32
    assert wgmma == {("m64n%dk32" % block_n, "e4m3", "e4m3"), ("m64n%dk32" % d, "e4m3", "e4m3")}, wgmma
    # peeled S + loop S: D / 32 k-steps each; loop PV + last PV: BLOCK_N / 32 each
    assert len(re.findall(r"wgmma\.mma_async", ptx)) == 2 * (d // 32) + 2 * (block_n // 32)
    shared = int(re.search(r"txl\.shared_bytes = (\d+)", run_opt(text, *UP_TO_SCRATCH, "--txl-smem-allocs")).group(1))
    assert shared <= SMEM_LIMIT, shared


@pytest.mark.parametrize("d", F8.HEAD_DIMS)
def test_p_reaches_the_pv_wgmma_in_registers(d):
    # The only scratch of the kernel would be a relayout of P into the A layout (through shared memory): the
    # rename of _a_operand makes it a no-op, so there is none, and the only shared stores are O's staging.
    bn = F8.CONFIGS[d][0][0]
    text = _text(d, bn, 2, True, False, 2)
    out = run_opt(text, *UP_TO_SCRATCH)
    assert "scratch(" not in out
    ptx, _ = compile_ptx(text)
    assert "ld.shared" not in ptx  # P never comes back from shared memory
    # cvt of P: two f32 -> one e4m3 pair per instruction, BLOCK_N / 2 pairs of 64 rows over 128 threads, twice
    assert len(re.findall(r"cvt\.rn\.satfinite\.e4m3x2\.f32", ptx)) == 2 * (64 * bn // 2) // 128


@pytest.mark.parametrize("d", F8.HEAD_DIMS)
@pytest.mark.parametrize("permute", [True, False])
def test_transpose_kernel_moves_16_byte_vectors(d, permute):
    text = ir_of(K.transpose_v, {"V": "*i8:16", "VT": "*i8:16", "N": "i32", "NV": "i32:16"},
                 {"HEAD_DIM": d, "BLOCK": F8.TRANSPOSE_BLOCK, "PERMUTE": permute}, num_warps=4)
    ptx, err = compile_ptx(text, emit="cubin")
    assert "spill" not in err.lower(), err
    acc = set(re.findall(r"(?:ld|st)\.global[.\w]*", ptx))
    assert acc == {"ld.global.v4.b32", "st.global.v4.b32"}, acc
    # the transpose happens on the way into shared memory (byte stores along D), rows of VT come out whole
    assert set(re.findall(r"(?:ld|st)\.shared[.\w]*", ptx)) == {"st.shared.b8", "ld.shared.v4.b32"}


def _perm_by_rename(n):
    # What _a_operand's reshape [R, n / 32, 2, 2, 2, 2, 2] -> permute [0, 1, 2, 4, 5, 3, 6] -> reshape [R, n] does
    # to column indices (row-major semantics, as tl.reshape / tl.permute and numpy): cols[k] = the column of P that
    # lands at k.
    shape = [n // 32, 2, 2, 2, 2, 2]
    order = [0, 1, 3, 4, 2, 5]  # the permutation without the row dimension
    out_shape = [shape[i] for i in order]
    cols = []
    for k in range(n):
        idx, rest = [], k
        for size in reversed(out_shape):
            idx.insert(0, rest % size)
            rest //= size
        src = [0] * len(shape)
        for pos, i in enumerate(order):
            src[i] = idx[pos]
        c = 0
        for size, i in zip(shape, src):
            c = c * size + i
        cols.append(c)
    return cols


def test_key_permutation_agrees():
    for n in (64, 128):
        by_rename = _perm_by_rename(n)
        assert sorted(by_rename) == list(range(n))
        for c in range(n):
            assert by_rename[K.key_perm(c)] == c
    # the transpose kernel's inverse map (written out in transpose_v) is key_perm's inverse
    for k in range(256):
        kk = k % 32
        c = (k - kk) + (kk & 1) + ((kk >> 2) & 1) * 2 + ((kk >> 3) & 1) * 4 + ((kk >> 1) & 1) * 8 + (kk & 16)
        assert K.key_perm(c) == k
    src = open(K.__file__).read()
    assert "c = (k - kk) + (kk & 1) + ((kk >> 2) & 1) * 2 + ((kk >> 3) & 1) * 4 + ((kk >> 1) & 1) * 8 + (kk & 16)" \
        in src


def test_renamed_columns_match_the_fp8_a_fragment():
    # Thread t (lane % 4) of a quad holds S columns {2t, 2t + 1, 8 + 2t, 9 + 2t, 16 + 2t, ...} (wgmma accumulator,
    # f32); the e4m3 A fragment gives it k = {4t .. 4t + 3, 16 + 4t .. 16 + 4t + 3} of every 32. The rename must
    # send the first set onto the second: then P is already where the PV wgmma reads it.
    for t in range(4):
        acc_cols = {8 * i + 2 * t + j for i in range(4) for j in range(2)}
        a_cols = {16 * h + 4 * t + j for h in range(2) for j in range(4)}
        assert {K.key_perm(c) for c in acc_cols} == a_cols


def test_permuted_attention_is_attention():
    import random

    rng = random.Random(0)
    n, rows, d = 128, 4, 8
    p = [[rng.random() for _ in range(n)] for _ in range(rows)]
    v = [[rng.gauss(0, 1) for _ in range(d)] for _ in range(n)]
    cols = _perm_by_rename(n)
    p_renamed = [[row[cols[k]] for k in range(n)] for row in p]  # P' columns
    vt = [[0.0] * n for _ in range(d)]
    for c in range(n):
        for j in range(d):
            vt[j][K.key_perm(c)] = v[c][j]  # VT' as the transpose writes it
    for r in range(rows):
        for j in range(d):
            want = sum(p[r][c] * v[c][j] for c in range(n))
            got = sum(p_renamed[r][k] * vt[j][k] for k in range(n))
            assert abs(got - want) < 1e-9


# ---- the op's checks (before any GPU work) ---------------------------------------------------------------------
@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def test_argument_errors(torch):
    fp8 = getattr(torch, "float8_e4m3fn", None)
    if fp8 is None:
        pytest.skip("torch without float8_e4m3fn")
    q = torch.zeros(1, 4, 64, 128).to(fp8)
    kv = torch.zeros(1, 2, 64, 128).to(fp8)
    with pytest.raises(TypeError, match="expected torch.float8_e4m3fn"):
        F8.flash_attention_fp8(q.to(torch.bfloat16), kv, kv)
    with pytest.raises(ValueError, match="head dim 96 is not supported"):
        x = torch.zeros(1, 2, 64, 96).to(fp8)
        F8.flash_attention_fp8(x, x, x)
    with pytest.raises(ValueError, match="multiple of the kv head"):
        F8.flash_attention_fp8(q, torch.zeros(1, 3, 64, 128).to(fp8), torch.zeros(1, 3, 64, 128).to(fp8))
    with pytest.raises(ValueError, match="must be 4-D"):
        F8.flash_attention_fp8(q[0], kv, kv)
    with pytest.raises(ValueError, match="sm_scale must be"):
        F8.flash_attention_fp8(q, kv, kv, sm_scale=-1.0)
    big = torch.empty(1, 2, 1 << 30, 64, dtype=fp8, device="meta")  # 2^31 rows: refused before the device
    with pytest.raises(ValueError, match="32-bit indices; split the batch"):
        F8.flash_attention_fp8(big, big, big)
    with pytest.raises(ValueError, match="the kernel runs on a CUDA GPU"):
        F8.flash_attention_fp8(q, kv, kv)
    # descales: (1,) or (B, H_KV), float
    assert F8._check_descale(torch, "descale_q", None, 1, 2, q.device) == (None, 0)
    d, s = F8._check_descale(torch, "descale_q", torch.ones(1), 1, 2, q.device)
    assert s == 0 and d.dtype == torch.float32
    d, s = F8._check_descale(torch, "descale_k", torch.ones(1, 2, dtype=torch.float64), 1, 2, q.device)
    assert s == 1 and d.shape == (2,) and d.dtype == torch.float32
    with pytest.raises(ValueError, match=r"descale_v has shape \(1, 4\); expected \(1,\) .* \(1, 2\)"):
        F8._check_descale(torch, "descale_v", torch.ones(1, 4), 1, 2, q.device)
    with pytest.raises(TypeError, match="descale_q is torch.int32"):
        F8._check_descale(torch, "descale_q", torch.ones(1, dtype=torch.int32), 1, 2, q.device)


def test_precompile_every_head_dim():
    for d in F8.HEAD_DIMS:
        ks = F8.precompile(d, causal=True, n=1000, heads=4, kv_heads=2)
        assert len(ks) == 1 + len(F8.CONFIGS[d])  # the transpose and every config
    assert len(F8.precompile(256, causal=False, n=4096, rename_p=False)) == 1 + len(F8.CONFIGS[256])


# ---- the renamed P, register by register -----------------------------------------------------------------------
class _LlvmTrace:
    """Follows values of the kernel's unoptimised LLVM IR (txlc --emit=llvm -O 0) back from a P V wgmma's A
    registers to the S wgmma outputs they hold: i32 <- <4 x i8> <- cvt.e4m3x2 pair <- softmax <- S element."""

    def __init__(self, text):
        self.defs = {}
        for line in text.split("\n"):
            m = re.match(r"\s*(%[\w.]+) = (.*)$", line)
            if m:
                self.defs[m.group(1)] = m.group(2)

    @staticmethod
    def call_args(d, ty):
        return re.findall(ty + r" (%[\w.]+)", d.split('"(')[-1])

    def element(self, struct, i):
        d = self.defs[struct]
        m = re.match(r"insertvalue \{[^}]*\} (\S+), \w+ (%[\w.]+), (\d+)$", d)
        if m:
            return m.group(2) if int(m.group(3)) == i else self.element(m.group(1), i)
        m = re.match(r"phi \{[^}]*\} \[ (%[\w.]+), ", d)
        assert m, "element %d of %s: %s" % (i, struct, d[:120])
        return self.element(m.group(1), i)

    def register_bytes(self, v):
        d = self.defs[v]
        m = re.match(r"extractvalue \{[^}]*\} (%[\w.]+), (\d+)$", d)
        if m:  # a register pinned by an asm with tied operands: output i is input i
            return self.register_bytes(self.call_args(self.defs[m.group(1)], "i32")[int(m.group(2))])
        m = re.match(r"phi i32 \[ (%[\w.]+), ", d)
        if m:  # a register packed in the previous iteration (or before the loop): carried as a block argument
            return self.register_bytes(m.group(1))
        m = re.match(r"bitcast <2 x i16> (%[\w.]+) to i32", d)
        if m:  # two cvt.e4m3x2 results side by side (txlc's byte-pair packing): bytes lo, hi of each
            return [b for half in self.vector(m.group(1), 2, "i16", self.pair) for b in half]
        m = re.match(r"bitcast <4 x i8> (%[\w.]+) to i32", d)
        assert m, "A register %s: %s" % (v, d[:120])
        return self.vector(m.group(1), 4, "i8", self.byte)

    def vector(self, v, n, ty, element):
        """``element`` of each of the n lanes an insertelement chain ending in ``v`` fills (the last insert wins)."""
        out = [None] * n
        while True:
            m = re.match(r"insertelement <%d x %s> (\S+), %s (%%[\w.]+), i32 (\d+)" % (n, ty, ty), self.defs.get(v, ""))
            if not m:
                return out
            if out[int(m.group(3))] is None:
                out[int(m.group(3))] = element(m.group(2))
            v = m.group(1)

    def byte(self, v):
        d = self.defs[v]
        m = re.match(r"extractvalue \{[^}]*\} (%[\w.]+), (\d+)$", d)
        if m:
            return self.byte(self.element(m.group(1), int(m.group(2))))
        m = re.match(r"phi i8 \[ (%[\w.]+), ", d)
        if m:
            return self.byte(m.group(1))
        m = re.match(r"trunc i16 (%[\w.]+) to i8", d)
        assert m, "P byte %s: %s" % (v, d[:120])
        x, high = m.group(1), False
        m = re.match(r"lshr i16 (%[\w.]+), 8", self.defs[x])
        if m:
            x, high = m.group(1), True
        return self.pair(x)[1 if high else 0]

    def pair(self, x):
        """(low byte, high byte) of a cvt.e4m3x2 result, as S elements."""
        m = re.match(r"call i16 @llvm\.nvvm\.ff\.to\.e4m3x2\.rn\(float (%[\w.]+), float (%[\w.]+)\)", self.defs[x])
        assert m, "P pair %s: %s" % (x, self.defs[x][:120])
        return self.s_element(m.group(2)), self.s_element(m.group(1))  # cvt a, b: a -> high byte

    def s_element(self, f, depth=0):
        assert depth < 30, f
        d = self.defs[f]
        m = re.match(r"extractvalue \{[^}]*\} (%[\w.]+), (\d+)$", d)
        if m:
            src, i = m.group(1), int(m.group(2))
            sd = self.defs[src]
            if "wait_group" in sd:  # dot_wait: tied accumulators
                return self.s_element(self.call_args(sd, "float")[i], depth + 1)
            if "mma_async" in sd:
                return (src, re.search(r"m64n\d+k\d+", sd).group(0), i)
            return self.s_element(self.element(src, i), depth + 1)
        m = (re.match(r"call (?:\w+ )*float @llvm\.[\w.]+\(float (%[\w.]+)", d)
             or re.match(r"(?:fmul|fadd|fsub)(?: \w+)* float (%[\w.]+), ", d))
        if m:
            return self.s_element(m.group(1), depth + 1)
        m = re.match(r"select i1 \S+, float (\S+), float (\S+)", d)
        if m:
            return self.s_element(m.group(1) if m.group(1).startswith("%") else m.group(2), depth + 1)
        m = re.match(r"phi float \[ (%[\w.]+), ", d)
        assert m, "softmax value %s: %s" % (f, d[:120])
        return self.s_element(m.group(1), depth + 1)


@pytest.mark.parametrize("causal", [False, True])
def test_renamed_p_is_the_a_fragment(causal):
    # Each P V wgmma (k-step s of 32 keys) must read, in its four A registers (bytes 0..3), the S accumulator
    # elements d[16 s + {0, 1, 4, 5}], d[16 s + {2, 3, 6, 7}], d[16 s + {8, 9, 12, 13}], d[16 s + {10, 11, 14, 15}]
    # (accumulator d_i: row g + 8 ((i >> 1) & 1), column 8 (i >> 2) + 2t + (i & 1); A register r, byte j: row
    # g + 8 (r & 1), k 16 (r >> 1) + 4t + j), which is S column c at k = key_perm(c): what V^T's permutation assumes.
    import subprocess
    import tempfile

    from .dsl_helpers import TXLC, _need

    _need(TXLC)
    d, bn = 64, 128
    text = _text(d, bn, 2, causal, True, 1)
    with tempfile.TemporaryDirectory() as tmp:
        src = tmp + "/k.mlir"
        with open(src, "w") as f:
            f.write(text)
        r = subprocess.run([TXLC, src, "--emit=llvm", "-O", "0", "-o", tmp + "/k.ll"], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, r.stderr
        with open(tmp + "/k.ll") as f:
            ll = f.read()
    trace = _LlvmTrace(ll)
    pv = [line for line in ll.split("\n") if "m64n%dk32.f32.e4m3.e4m3" % d in line and "{$32,$33,$34,$35}" in line]
    assert len(pv) == 2 * bn // 32, len(pv)  # the loop's P V and the last one, BLOCK_N / 32 k-steps each
    want = [[0, 1, 4, 5], [2, 3, 6, 7], [8, 9, 12, 13], [10, 11, 14, 15]]
    for n, line in enumerate(pv):
        s = n % (bn // 32)
        regs = re.findall(r"i32 (%[\w.]+)", line.split('"(')[-1])[:4]
        got = [trace.register_bytes(a) for a in regs]
        sources = {(src, shape) for reg in got for src, shape, _ in reg}
        assert len(sources) == 1 and next(iter(sources))[1] == "m64n%dk32" % bn, sources  # one S wgmma's outputs
        assert [[i for _, _, i in reg] for reg in got] == [[16 * s + i for i in w] for w in want], (n, got)
