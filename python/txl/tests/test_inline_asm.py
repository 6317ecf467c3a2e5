"""tl.inline_asm_elementwise (Triton 3.6's function, same arguments) on the CPU: each form libraries use compiles to
PTX that ptxas accepts, with the user's asm once per ``pack`` elements of a thread, and wrong uses are errors at the
user's line. The kernels are the ones gpu/test_inline_asm_gpu.py runs against torch (Triton's own test_inline_asm*
forms), plus fla's softplus / safe_dot helpers with only their imports swapped."""

import os
import re

import pytest

import txl
import txl.language as tl
from txl.errors import CompilationError

from .dsl_helpers import TXLC, _need, compile_ptx, ir_of

THIS = __file__.replace(".pyc", ".py")
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


@txl.jit
def shf_kernel(X, Y, S, Z, BLOCK: tl.constexpr):
    """Triton's test_inline_asm: a funnel shift of three uint32 tiles, one call per element."""
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    s = tl.load(S + offs)
    z = tl.inline_asm_elementwise("shf.l.wrap.b32 $0, $1, $2, $3;", "=r,r, r, r", [x, y, s], dtype=tl.uint32,
                                  is_pure=True, pack=1)
    tl.store(Z + offs, z)


@txl.jit
def packed_kernel(X, Z, BLOCK: tl.constexpr):
    """Triton's test_inline_asm_packed: four uint8 per call, in and out through one 32-bit register."""
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    z = tl.inline_asm_elementwise("and.b32 $0, $1, 0x1F1F1F1F; \n shl.b32 $0, $0, 3;", "=r,r", [x],
                                  dtype=tl.uint8, is_pure=True, pack=4)
    tl.store(Z + offs, z)


@txl.jit
def two_outputs_kernel(A, B, C, D, BLOCK: tl.constexpr):
    """Triton's test_inline_asm_multiple_outputs: a uint8 tile unpacked to uint32 and an int32 tile negated, four
    elements per call, two results (a tuple)."""
    offs = tl.arange(0, BLOCK)
    a = tl.load(A + offs)
    b = tl.load(B + offs)
    (c, d) = tl.inline_asm_elementwise(
        asm="""
        {
            .reg .b8 tmp<4>;
            mov.b32 {tmp0, tmp1, tmp2, tmp3}, $8;
            cvt.u32.u8 $0, tmp0;
            cvt.u32.u8 $1, tmp1;
            cvt.u32.u8 $2, tmp2;
            cvt.u32.u8 $3, tmp3;
        }
        sub.u32 $4, 0, $9;
        sub.u32 $5, 0, $10;
        sub.u32 $6, 0, $11;
        sub.u32 $7, 0, $12;
        """,
        constraints="=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r",
        args=[a, b], dtype=(tl.uint32, tl.int32), is_pure=True, pack=4)
    tl.store(C + offs, c)
    tl.store(D + offs, d)


@txl.jit
def pointer_kernel(X, Y, BLOCK: tl.constexpr):
    """Triton's test_inline_asm_with_pointers: the asm loads through a tile of pointers itself."""
    offs = tl.arange(0, BLOCK)
    x_ptrs = X + offs
    y = tl.inline_asm_elementwise("ld.global.b8 $0, [$1]; shl.b32 $0, $0, 3;", "=r,l", [x_ptrs], dtype=tl.uint8,
                                  is_pure=True, pack=1)
    tl.store(Y + offs, y)


@txl.jit
def broadcast_kernel(X, Z, scale, M: tl.constexpr, N: tl.constexpr):
    """A 2-D tile, a row vector and a run-time scalar broadcast to one shape (Triton broadcasts the arguments
    without promoting them): z = x * row + scale by fma.rn.f32, impure (kept as written)."""
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(X + rows * N + cols)
    row = (tl.arange(0, N) + 1).to(tl.float32)[None, :]
    z = tl.inline_asm_elementwise("fma.rn.f32 $0, $1, $2, $3;", "=f,f,f,f", [x, row, scale], dtype=tl.float32,
                                  is_pure=False, pack=1)
    tl.store(Z + rows * N + cols, z)


@txl.jit
def half_pack_kernel(X, Z, BLOCK: tl.constexpr):
    """fp16 packed two per register, pack = 4: two input and two output registers per call (neg.f16x2)."""
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    z = tl.inline_asm_elementwise("neg.f16x2 $0, $2; neg.f16x2 $1, $3;", "=r,=r,r,r", [x], dtype=tl.float16,
                                  is_pure=True, pack=4)
    tl.store(Z + offs, z)


@txl.jit
def safe_dot_kernel(A, B, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    """fla's safe_dot (its Blackwell workaround): a wgmma accumulator through "mov.f32 $0, $1;" with an `r`
    constraint on fp32, in the accumulator's own layout."""
    rm = tl.arange(0, M)[:, None]
    rn = tl.arange(0, N)[None, :]
    rk = tl.arange(0, K)
    a = tl.load(A + rm * K + rk[None, :])
    b = tl.load(B + rk[:, None] * N + rn)
    c = tl.inline_asm_elementwise(asm="mov.f32 $0, $1;", constraints="=r,r", args=[tl.dot(a, b)],
                                  dtype=tl.float32, is_pure=True, pack=1)
    tl.store(C + rm * N + rn, c)


@txl.jit
def pdl_kernel(X, Y, BLOCK: tl.constexpr):
    """fla's cyfa/fused_recurrent.py PDL hint: asm without arguments (a scalar result nothing reads, impure)."""
    tl.inline_asm_elementwise('griddepcontrol.launch_dependents; // dummy $0', '=r', [], dtype=tl.int32,
                              is_pure=False, pack=1)
    offs = tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs) + 1.0)


# (kernel, signature, constexprs, an instruction of the asm, its lines in the PTX: calls per thread (of 128) times
# its lines per call). A thread holds 8 u32, 16 u8 (16 bytes: 1024 u8 or 512 pointers to u8 (copies) by the
# default layout), 16 fp16, 16 fp32 of the 32 x 64 tile.
CASES = {
    "shf": (shf_kernel, {"X": "*u32", "Y": "*u32", "S": "*u32", "Z": "*u32"}, {"BLOCK": 1024},
            "shf.l.wrap.b32", 8),
    "packed": (packed_kernel, {"X": "*u8", "Z": "*u8"}, {"BLOCK": 1024}, "and.b32", 4),
    "two_outputs": (two_outputs_kernel, {"A": "*u8", "B": "*i32", "C": "*u32", "D": "*i32"}, {"BLOCK": 1024},
                    "cvt.u32.u8", 4 * 4),
    "pointer": (pointer_kernel, {"X": "*u8", "Y": "*u8"}, {"BLOCK": 512}, "ld.global.b8", 16),
    "broadcast": (broadcast_kernel, {"X": "*fp32", "Z": "*fp32", "scale": "fp32"}, {"M": 32, "N": 64},
                  "fma.rn.f32", 16),
    "half_pack": (half_pack_kernel, {"X": "*fp16", "Z": "*fp16"}, {"BLOCK": 2048}, "neg.f16x2", 4),
    "pdl": (pdl_kernel, {"X": "*fp32", "Y": "*fp32"}, {"BLOCK": 256}, "griddepcontrol.launch_dependents;", 1),
    "safe_dot": (safe_dot_kernel, {"A": "*fp16", "B": "*fp16", "C": "*fp32"}, {"M": 64, "N": 64, "K": 32},
                 "mov.f32", None),
}


def _asm_calls(ptx, instr):
    """Lines of the PTX that are the asm's instruction ``instr``: inline asm is copied into the PTX verbatim (a space
    after the opcode), LLVM's own instructions have a tab there."""
    return [ln for ln in ptx.splitlines() if re.match(r"\s*%s [^\t]" % re.escape(instr), ln)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_inline_asm_compiles_with_ptxas(name):
    kernel, sig, consts, instr, calls = CASES[name]
    text = ir_of(kernel, sig, consts)
    assert "txl.elementwise_inline_asm" in text
    _need(TXLC)
    ptx, _ = compile_ptx(text)
    if calls is not None:
        assert len(_asm_calls(ptx, instr)) == calls, ptx
    _, log = compile_ptx(text, emit="cubin")  # ptxas accepts the asm as txl placed it
    assert "spill" not in log.lower(), log


def test_pure_asm_results_unused_are_dropped_impure_kept():
    # Triton's is_pure: a pure asm whose result nothing reads goes (LLVM may delete it), an impure one stays.
    _need(TXLC)

    @txl.jit
    def k(X, Z, PURE: tl.constexpr):
        offs = tl.arange(0, 128)
        x = tl.load(X + offs)
        tl.inline_asm_elementwise("add.u32 $0, $1, 7;", "=r,r", [x], dtype=tl.int32, is_pure=PURE, pack=1)
        tl.store(Z + offs, x)

    sig = {"X": "*i32", "Z": "*i32"}
    assert "add.u32" not in compile_ptx(ir_of(k, sig, {"PURE": True}))[0]
    assert "add.u32" in compile_ptx(ir_of(k, sig, {"PURE": False}))[0]


def test_scalar_arguments_give_a_scalar():
    @txl.jit
    def k(Z, a, b):
        s = tl.inline_asm_elementwise("mul.lo.u32 $0, $1, $2;", "=r,r,r", [a, b], dtype=tl.int32, is_pure=True,
                                      pack=1)
        tl.store(Z, s)

    text = ir_of(k, {"Z": "*i32", "a": "i32", "b": "i32"})
    assert re.search(r'txl.elementwise_inline_asm "mul.lo.u32 \$0, \$1, \$2;", "=r,r,r"\(%\w+, %\w+\) .*'
                     r': \(i32, i32\) -> i32', text), text
    _need(TXLC)
    assert len(_asm_calls(compile_ptx(text)[0], "mul.lo.u32")) == 1


def _located(fn, sig, consts, match):
    with pytest.raises(CompilationError, match=match) as info:
        ir_of(fn, sig, consts)
    assert info.value.file == THIS and info.value.line is not None


def test_frontend_errors_are_located():
    @txl.jit
    def bad_dtype(X):
        x = tl.load(X + tl.arange(0, 128))
        tl.inline_asm_elementwise("setp.gt.f32 $0, $1, 0.0;", "=r,f", [x], dtype=tl.int1, is_pure=True, pack=1)

    @txl.jit
    def bad_pack(X):
        x = tl.load(X + tl.arange(0, 128))
        tl.inline_asm_elementwise("mov.f32 $0, $1;", "=f,f", [x], dtype=tl.float32, is_pure=True, pack=0)

    @txl.jit
    def bad_shapes(X):
        x = tl.load(X + tl.arange(0, 128))
        y = tl.load(X + tl.arange(0, 64))
        tl.inline_asm_elementwise("add.f32 $0, $1, $2;", "=f,f,f", [x, y], dtype=tl.float32, is_pure=True, pack=1)

    sig = {"X": "*fp32"}
    _located(bad_dtype, sig, {}, r"result dtype int1 is not supported")
    _located(bad_pack, sig, {}, r"pack must be a positive compile-time int, got 0")
    _located(bad_shapes, sig, {}, r"incompatible shapes \[128\] and \[64\] for tl.inline_asm_elementwise")


def test_wrong_constraint_count_is_a_compiler_error_at_the_users_line():
    from txl.compiler.compiler import TxlCompileError, find_txlc

    _need(TXLC)
    if find_txlc() is None:
        pytest.skip("txlc not found")

    @txl.jit
    def k(X, Z):
        offs = tl.arange(0, 1024)
        x = tl.load(X + offs)
        z = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r,r,r,r", [x], dtype=tl.uint8, is_pure=True, pack=4)
        tl.store(Z + offs, z)

    with pytest.raises(TxlCompileError) as info:
        txl.compile(k, signature={"X": "*u8", "Z": "*u8"})
    text = str(info.value)
    line = k.starting_line_number + 4
    assert "%s:%d:" % (THIS, line) in text, text
    assert "constraints \"=r,r,r,r,r\" name 1 output and 4 input registers, but the asm has 1 output and 1 input" \
        in text, text


# -- fla's helpers, imports swapped -------------------------------------------------------------------------------
FLA_SOFTPLUS = os.path.join(REPO, ".ext", "fla", "fla", "ops", "utils", "softplus.py")


def _fla_softplus(tmp_path):
    """fla 0.6.0's ops/utils/softplus.py with its triton imports swapped to txl (and fla's IS_NVIDIA import, which
    would import all of fla, replaced by True); nothing else changes."""
    if not os.path.exists(FLA_SOFTPLUS):
        pytest.skip("fla is not in .ext/fla (bench/libraries.py's layout)")
    swaps = {"import triton": "import txl as triton", "from triton import language as tl":
             "from txl import language as tl", "from fla.utils import IS_NVIDIA": "IS_NVIDIA = True"}
    with open(FLA_SOFTPLUS) as f:
        lines = f.read().splitlines()
    assert all(s in lines for s in swaps), "fla's softplus.py changed its imports"
    src = "\n".join(swaps.get(ln, ln) for ln in lines) + "\n"
    path = tmp_path / "fla_softplus_txl.py"
    path.write_text(src)
    import importlib.util
    spec = importlib.util.spec_from_file_location("fla_softplus_txl", str(path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_FLA = {}


@txl.jit
def fla_softplus_kernel(X, Y, Z, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    tl.store(Y + offs, _FLA["softplus"].softplus_nv(x))
    tl.store(Z + offs, _FLA["softplus"].softplus2_nv(x))


def test_fla_softplus_compiles_under_txl(tmp_path):
    _FLA["softplus"] = _fla_softplus(tmp_path)
    k = fla_softplus_kernel
    text = ir_of(k, {"X": "*fp32", "Y": "*fp32", "Z": "*fp32"}, {"BLOCK": 1024})
    assert text.count("txl.elementwise_inline_asm") == 2
    _need(TXLC)
    ptx, _ = compile_ptx(text)
    assert ptx.count("setp.gt.f32  p,") == 16  # fla's asm, one line per call: 8 elements per thread, two functions
    _, log = compile_ptx(text, emit="cubin")  # through ptxas, without spills
    assert "spill" not in log.lower(), log
