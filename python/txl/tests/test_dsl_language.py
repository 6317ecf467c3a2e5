"""triton.language surface of the DSL: each construct emits the expected txl IR, which verifies (txl-opt) and
compiles to PTX (txlc)."""

import txl
import txl.language as tl

from .dsl_helpers import check, check_not, compile_ptx, ir_of, lower_copies, run_opt, verify


@txl.jit
def _tiles(x_ptr, y_ptr, n, scale, BLOCK: tl.constexpr, ROWS: tl.constexpr, USE_EXP2: tl.constexpr):
    tl.static_assert(BLOCK % 32 == 0, "BLOCK must be a multiple of 32")
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    n_blocks = tl.cdiv(n, BLOCK)
    cols = tl.multiple_of(tl.arange(0, BLOCK), 16)
    rows = pid * ROWS + tl.arange(0, ROWS)
    offs = rows[:, None] * n + cols[None, :]
    mask = (rows[:, None] < n) & (cols[None, :] < n)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    acc = tl.zeros([ROWS, BLOCK], tl.float32)
    for i in tl.static_range(2):
        acc += x * (i + 1)
    if USE_EXP2:
        e = tl.exp2(x * scale)
    else:
        e = tl.exp(x * scale)
    y = tl.where(x > 0, e, tl.full([ROWS, BLOCK], 1.5, tl.float32))
    y = tl.maximum(y, acc) + tl.minimum(tl.log(tl.abs(y) + 1.0), tl.log2(tl.sqrt(tl.abs(x) + 2.0)))
    y = tl.fma(y, tl.rsqrt(tl.abs(x) + 1.0), acc)
    m = tl.max(y, axis=1)
    s = tl.sum(y, 1)
    lo = tl.min(y, axis=1)
    y = (y - m[:, None]) / (s - lo)[:, None]
    tl.store(y_ptr + offs, y.to(tl.bfloat16).to(tl.float32), mask=mask)
    # Scalar control flow: scf.for with a carried value, scf.while, scf.if with results.
    total = 0
    for b in range(pid, n_blocks, nprog):
        total += b
    k = 0
    while k < total:
        k = k * 2 + 1
    if k > n:
        r = k - n
    else:
        r = n // 3
    tl.store(y_ptr + r, (k % 7).to(tl.float32))


TILES_SIG = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "scale": "fp32"}


def test_tile_ops_emit_expected_ir():
    text = ir_of(_tiles, TILES_SIG, {"BLOCK": 64, "ROWS": 4, "USE_EXP2": True})
    check(text, r'module attributes \{txl.target = "sm_90a"\}',
          r'"func.func"\(\) <\{function_type = \(!txl.ptr<f32>, !txl.ptr<f32>, i32, f32\) -> \(\), sym_name = "_tiles"\}>',
          r"\^bb0\(%x_ptr: !txl.ptr<f32>, %y_ptr: !txl.ptr<f32>, %n: i32, %scale: f32\):",
          r"%pid = txl.program_id 0", r"%nprog = txl.num_programs 0", r"arith.ceildivsi %n, %c64 : i32",
          r"txl.make_range 0, 64 : tensor<64xi32>", r"txl.make_range 0, 4 : tensor<4xi32>",
          r"txl.expand_dims %rows(_\d+)?, 1 : tensor<4xi32> -> tensor<4x1xi32>",
          r"txl.expand_dims %cols(_\d+)?, 0 : tensor<64xi32> -> tensor<1x64xi32>",
          r"arith.andi .* : tensor<4x64xi1>",
          r"txl.addptr .* : tensor<4x64x!txl.ptr<f32>>, tensor<4x64xi32>",
          r"%x = txl.load .* mask %mask other .* : tensor<4x64x!txl.ptr<f32>> -> tensor<4x64xf32>",
          r"arith.constant dense<0.0+e\+00> : tensor<4x64xf32>",
          r"math.exp2 .* : tensor<4x64xf32>",
          r"arith.cmpf ogt, %x, .* : tensor<4x64xf32>",
          r"arith.constant dense<1.50+e\+00> : tensor<4x64xf32>",
          r'"arith.select".* : \(tensor<4x64xi1>, tensor<4x64xf32>, tensor<4x64xf32>\) -> tensor<4x64xf32>',
          r"arith.maxnumf", r"math.absf", r"math.log ", r"math.sqrt", r"math.log2", r"arith.minnumf",
          r"math.rsqrt", r"math.fma",
          r"txl.reduce %y_\d+ axis 1 : \(tensor<4x64xf32>\) -> tensor<4xf32> \{",
          r"\^bb0\(%x_\d+: f32, %y_\d+: f32\):", r"arith.maxnumf", r"txl.reduce_return",
          r"arith.addf", r"arith.minnumf",
          r"arith.truncf .* : tensor<4x64xf32> to tensor<4x64xbf16>",
          r"arith.extf .* : tensor<4x64xbf16> to tensor<4x64xf32>",
          r"txl.store .* mask %mask : tensor<4x64x!txl.ptr<f32>>, tensor<4x64xf32>",
          r'%total = "scf.for"\(%pid, %n_blocks, %nprog, %c0\) \(\{\n\s*\^bb0\(%b: i32, %total_1: i32\):',
          r"arith.addi %total_1, %b : i32", r"scf.yield", r"\}\) : \(i32, i32, i32, i32\) -> i32",
          r'%k = "scf.while"\(%c0\) \(\{\n\s*\^bb0\(%k_1: i32\):', r"arith.cmpi slt, %k_1, %total : i32",
          r"scf.condition\(.*\) %k_1 : i32", r"\}, \{", r"\^bb0\(%k_\d+: i32\):", r"scf.yield",
          r"\}\) : \(i32\) -> i32",
          r'%r = "scf.if"', r"arith.subi %k, %n", r"\}, \{", r"arith.divsi %n, %c3", r"\}\) : \(i1\) -> i32",
          r"arith.remsi %k, %c7 : i32", r"arith.sitofp .* : i32 to f32",
          r"txl.store .* : !txl.ptr<f32>, f32")
    check(text, r"txl.broadcast .* : tensor<4x1xi32> -> tensor<4x64xi32>")
    # constexpr branch folded, static_range unrolled (two multiplies by 1 and 2 are folded or emitted)
    check_not(text, r"math.exp ")
    verify(text)
    compile_ptx(text)


def test_constexpr_branch_selects_exp():
    text = ir_of(_tiles, TILES_SIG, {"BLOCK": 64, "ROWS": 4, "USE_EXP2": False})
    check(text, r"math.exp .* : tensor<4x64xf32>")
    check_not(text, r"math.exp2 .* : tensor<4x64xf32>")


@txl.jit
def _promotion(a_ptr, b_ptr, i, j, f):
    a = tl.load(a_ptr + tl.arange(0, 128))            # bf16
    b = tl.load(b_ptr + tl.arange(0, 128))            # fp16
    c = a * 2.0                                        # weak float keeps bf16
    d = a + b                                          # bf16 + fp16 -> fp32
    e = i + j                                          # i32 + i64 -> i64
    g = i / 2                                          # int true division -> fp32
    h = i * f                                          # int * float -> fp32
    tl.store(a_ptr + tl.arange(0, 128), c + d.to(tl.bfloat16) + (e.to(tl.float32) + g + h).to(tl.bfloat16))


def test_type_promotion_follows_triton():
    text = ir_of(_promotion, {"a_ptr": "*bf16", "b_ptr": "*fp16", "i": "i32", "j": "i64", "f": "fp32"}, {})
    check(text, r"%c = arith.mulf %a, .* : tensor<128xbf16>",
          r"arith.extf %a : tensor<128xbf16> to tensor<128xf32>",
          r"arith.extf %b : tensor<128xf16> to tensor<128xf32>", r"%d = arith.addf .* : tensor<128xf32>",
          r"arith.extsi %i : i32 to i64", r"%e = arith.addi .* : i64",
          r"arith.sitofp %i : i32 to f32", r"%g = arith.divf .* : f32",
          r"%h = arith.mulf .* : f32")
    verify(text)
    compile_ptx(text)


@txl.jit
def _helper(x, y, K: tl.constexpr):
    return x + y * K, x - y


@txl.jit
def _inline(out_ptr, a, SHIFT: tl.constexpr):
    s, d = _helper(a, 3, K=SHIFT)
    v = s if a > 0 else d
    tl.store(out_ptr, v)


def test_jit_calls_are_inlined_and_ternary_becomes_if():
    text = ir_of(_inline, {"out_ptr": "*i32", "a": "i32"}, {"SHIFT": 4})
    check(text, r"arith.addi %a, %c12 : i32", r"arith.subi %a, %c3 : i32", r"arith.cmpi sgt, %a, %c0",
          r'"scf.if"', r"scf.yield %s : i32", r"scf.yield %d : i32", r"\}\) : \(i1\) -> i32", r"txl.store %out_ptr")
    verify(text)
    compile_ptx(text)


def test_integer_specialisations_parse():
    # "i32:16" (divisible by 16) parses; a constexpr 1 is folded.
    text = ir_of(_inline, {"out_ptr": "*i32", "a": "i32:16"}, {"SHIFT": 1})
    check(text, r"%a: i32", r"arith.addi %a, %c3 : i32")


@txl.jit
def _desc_copy(src, dst, X, Y):
    t = src.load([X, Y])
    dst.store([X, Y], (t.to(tl.float32) * 2.0).to(tl.bfloat16))


def test_descriptor_load_store():
    text = ir_of(_desc_copy, {"src": "tensordesc<bf16[64, 64]>", "dst": "tensordesc<bf16[64, 64], swizzle=64>",
                              "X": "i32", "Y": "i32"}, {})
    # the frontend: one op per call, as written
    check(text, r"%src: !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>>",
          r"%dst: !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 64>>",
          r"%t = txl.desc_load %src\[%X, %Y\] : !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 128>> -> "
          r"tensor<64x64xbf16>",
          r"arith.truncf .* to tensor<64x64xbf16>",
          r"txl.desc_store %dst\[%X, %Y\], %\w+ : !txl.tensordesc<64x64xbf16, #txl.nvmma_shared<swizzle = 64>>, "
          r"tensor<64x64xbf16>")
    check_not(text, r"txl.smem_alloc", r"txl.mbar", r"txl.tma_", r"txl.smem_load", r"txl.smem_store")
    # txl-lower-tile-copies: staging buffers in each descriptor's layout, TMA, mbarrier, bulk-store waits
    low = lower_copies(text)
    check(low, r"txl.smem_alloc \{txl.staging\} : !txl.smem<64x64xbf16, stages = 1, #txl.nvmma_shared<swizzle = 64>>",
          r"txl.smem_alloc \{txl.staging\} : !txl.smem<64x64xbf16, stages = 1, #txl.nvmma_shared<swizzle = 128>>",
          r"txl.mbar_alloc count 1 : !txl.mbar<1>", r"txl.mbar_expect .*, 8192",
          r"txl.tma_load %arg0\[%arg2, %arg3\]", r"txl.mbar_wait %\d+, %c0_i32\w* : i32", r"txl.smem_load",
          r"txl.tma_store_wait 0", r"txl.smem_store", r"txl.fence_proxy_async",
          r"txl.tma_store .*%arg1\[%arg2, %arg3\]",
          r"txl.tma_store_wait 0")
    check_not(low, r"txl.bar_wait", r"txl.desc_")
    verify(text)
    compile_ptx(text)


def test_signature_swizzle_defaults():
    from txl.compiler.code_generator import parse_signature_type
    assert str(parse_signature_type("tensordesc<bf16[128, 64]>")) == \
        "!txl.tensordesc<128x64xbf16, #txl.nvmma_shared<swizzle = 128>>"
    assert str(parse_signature_type("tensordesc<bf16[64, 16]>")) == \
        "!txl.tensordesc<64x16xbf16, #txl.nvmma_shared<swizzle = 32>>"
    assert str(parse_signature_type("tensordesc<fp32[64, 16]>")) == \
        "!txl.tensordesc<64x16xf32, #txl.nvmma_shared<swizzle = 64>>"
    assert str(parse_signature_type("*fp8e4nv")) == "!txl.ptr<f8E4M3FN>"
    assert str(parse_signature_type("i64:16")) == "i64"


def test_import_txl_is_cheap():
    import subprocess
    import sys
    code = "import sys, txl, txl.language; print('torch' in sys.modules, 'numpy' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(__import__("os").environ, PYTHONPATH=__import__("os").path.dirname(
                           __import__("os").path.dirname(__import__("os").path.dirname(__file__)))))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == "False"
    assert txl.smem_alloc is tl.smem_alloc and txl.is_warpgroup is tl.is_warpgroup


@txl.jit
def _phase_in_branch(x_ptr, N):
    # TXL's ring-buffer loop: the phase flips when the slot index wraps. The slot index is a number before the
    # loop, so a first dry run of the body folds `slot == 0` to False and would never see `phase` change.
    phase = 0
    slot = 0
    for i in range(0, N):
        slot = (slot + 1) % 3
        if slot == 0:
            phase = phase ^ 1
    tl.store(x_ptr, phase)
    tl.store(x_ptr + 1, slot)


def test_variable_changed_under_a_condition_on_a_carried_number_is_carried():
    text = ir_of(_phase_in_branch, {"x_ptr": "*i32", "N": "i32"}, {})
    check(text, r'%slot, %phase = "scf.for"\(.*, %c0, %c0\) \(\{\n\s*\^bb0\(%\w+: i32, %slot_1: i32, %phase_1: i32\):',
          r'%phase_2 = "scf.if"', r"arith.xori %phase_1, %c1", r"scf.yield %slot_2, %phase_2",
          r"txl.store %x_ptr, %phase :")
    verify(text)


@txl.jit
def _acc_plus_dot(o_ptr):
    a = txl.get_buffer(txl.smem_alloc([64, 64], tl.float16), 0)
    b = txl.get_buffer(txl.smem_alloc([64, 64], tl.float16), 0)
    acc = tl.zeros([64, 64], tl.float32) + 1.0
    acc += tl.dot(a, b.T)  # TXL's MLA: the add is the dot's accumulation, so it may precede the wait
    txl.dot_wait(0)
    s = tl.dot(a, b)  # a product read twice: not folded
    y = acc + s
    offs = tl.arange(0, 64)
    tl.store(o_ptr + offs[:, None] * 64 + offs[None, :], y + s)


def test_acc_plus_dot_is_the_dots_accumulator():
    """The frontend emits the add as written, the wait passing the sum through; txl-fold-dot-add makes the add
    the dot's accumulator (the verifier accepts the add before the wait as that accumulation)."""
    text = ir_of(_acc_plus_dot, {"o_ptr": "*fp32"}, {})
    check(text, r"%acc = arith.addf", r"%\d+ = txl.dot %a, %\w+, %\d+ \{async\}", r"%acc_1 = arith.addf %acc, %\d+",
          r"txl.dot_wait 0, %acc_1", r"%s = txl.dot %a, %b, %\d+ :", r"%y = arith.addf %acc_done, %s")
    verify(text)
    folded = run_opt(text, "--txl-fold-dot-add")
    check(folded, r"%(?P<acc>\d+) = arith.addf", r"%(?P<d>\d+) = txl.dot %\w+, %\d+, %[[acc]] \{async\}",
          r"txl.dot_wait 0, %[[d]] :", r"%(?P<s>\d+) = txl.dot .* : ", r"arith.addf %\w+, %[[s]]",
          r"arith.addf %\w+, %[[s]]")
