"""tl.randint / tl.rand / tl.randn (Philox 4x32, issue 14): the frontend's IR for scalar seeds and offsets is run by
a small interpreter of its integer arith ops and compared with a reference written from Triton 3.6's
random.py (same constants, rounds, seed words and offset split), so the integers match Triton's bit for bit;
tile versions compile through txlc. (Bit-identity with Triton on the GPU is for the GPU tests.)"""

import re
import struct

import pytest

import txl
import txl.language as tl
from txl.errors import CompilationError

from .dsl_helpers import check, compile_ptx, ir_of
from .gpu.triton_lang_cases import M32, philox_reference

# Triton's philox(seed, c0..c3) on 32-bit counters in Python integers: the GPU cases' reference, shared.


def randint4x_reference(seed, offset, offset_bits, n_rounds=10):
    lo = offset & M32
    hi = (offset >> 32) & M32 if offset_bits > 32 else 0  # Triton: the high word of a 64-bit offset
    return philox_reference(seed, lo, hi, 0, 0, n_rounds)


_BIN = {"addi": lambda a, b: a + b, "muli": lambda a, b: a * b, "xori": lambda a, b: a ^ b,
        "andi": lambda a, b: a & b, "ori": lambda a, b: a | b, "shrui": lambda a, b: a >> b}


def run_scalar_ir(text, inputs):
    """Interprets the scalar integer arith ops of a kernel's IR; returns {store index: value} (unsigned)."""
    env = {"%" + k: v for k, v in inputs.items()}
    width = {"%seed": 64, "%off": 32}
    stores = {}
    for line in text.splitlines():
        line = line.split(" loc(")[0].strip()
        m = re.match(r"(%\w+) = arith\.constant (-?\d+) : i(\d+)$", line)
        if m:
            env[m[1]], width[m[1]] = int(m[2]) & ((1 << int(m[3])) - 1), int(m[3])
            continue
        m = re.match(r"(%\w+) = arith\.(\w+) (%\w+), (%\w+) : i(\d+)$", line)
        if m:
            w = int(m[5])
            a, b = env[m[3]], env[m[4]]
            if m[2] == "shrsi":
                a = a - (1 << w) if a >> (w - 1) else a
                r = a >> b
            else:
                r = _BIN[m[2]](a, b)
            env[m[1]], width[m[1]] = r & ((1 << w) - 1), w
            continue
        m = re.match(r"(%\w+) = arith\.(trunci|extui|extsi) (%\w+) : i(\d+) to i(\d+)$", line)
        if m:
            v, src, dst = env[m[3]], int(m[4]), int(m[5])
            if m[2] == "extsi" and v >> (src - 1):
                v -= 1 << src
            env[m[1]], width[m[1]] = v & ((1 << dst) - 1), dst
            continue
        m = re.match(r"(%\w+) = txl\.addptr %y_ptr, (%\w+)", line)
        if m:
            env[m[1]] = ("ptr", env[m[2]])
            continue
        m = re.match(r"txl\.store (%\w+), (%\w+) :", line)
        if m:
            stores[env[m[1]][1]] = env[m[2]]
            continue
        assert not line.startswith("%") or "txl.program_id" in line, "unexpected op: " + line
    return stores


@txl.jit
def _randint4x_scalar(y_ptr, seed, off, N_ROUNDS: tl.constexpr):
    a, b, c, d = tl.randint4x(seed, off, n_rounds=N_ROUNDS)
    tl.store(y_ptr + 0, a)
    tl.store(y_ptr + 1, b)
    tl.store(y_ptr + 2, c)
    tl.store(y_ptr + 3, d)
    tl.store(y_ptr + 4, tl.randint(seed, off, N_ROUNDS))


@pytest.mark.parametrize("seed_ty,off_ty", [("i64", "i32"), ("i32", "i64"), ("i32", "i32")])
@pytest.mark.parametrize("n_rounds", [10, 7])
def test_randint_matches_tritons_philox(seed_ty, off_ty, n_rounds):
    text = ir_of(_randint4x_scalar, {"y_ptr": "*u32", "seed": seed_ty, "off": off_ty}, {"N_ROUNDS": n_rounds})
    sbits, obits = int(seed_ty[1:]), int(off_ty[1:])
    for seed, off in [(0, 0), (42, 7), (-1, 123456), (0x123456789ABCDEF, -5), (2**31 - 1, 2**31 - 1),
                      (-2**31, 3 * 2**33 + 17)]:
        seed = ((seed + 2**(sbits - 1)) % 2**sbits) - 2**(sbits - 1)  # as the argument's type holds it
        off = ((off + 2**(obits - 1)) % 2**obits) - 2**(obits - 1)
        got = run_scalar_ir(text, {"seed": seed & (2**sbits - 1), "off": off & (2**obits - 1)})
        want = randint4x_reference(seed, off, obits, n_rounds)  # Triton sign-extends an int32 seed to uint64
        assert [got[i] for i in range(4)] == list(want), (seed, off)
        assert got[4] == want[0]


def test_uniform_floats_use_tritons_mapping():
    def to_uniform(x):
        x = x - 2**32 if x >> 31 else x
        x = -x - 1 if x < 0 else x
        return struct.unpack("<f", struct.pack("<f", x * 4.6566127342e-10))[0]
    # The mapping is tl.uint_to_uniform_float: check it lands in [0, 1) at the extremes.
    assert to_uniform(0) == 0.0 and to_uniform(0x80000000) < 1.0 and to_uniform(0x7FFFFFFF) < 1.0


@txl.jit
def _rand_tiles(x_ptr, seed, p, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    keep = tl.rand(seed, offs) > p  # dropout
    u1, u2, u3, u4 = tl.rand4x(seed, offs)
    n = tl.randn(seed, offs) + tl.randn4x(seed, offs)[3]
    tl.store(x_ptr + offs, tl.where(keep, x / (1 - p), 0.0) + u1 + u2 + u3 + u4 + n)


def test_rand_tiles_compile():
    text = ir_of(_rand_tiles, {"x_ptr": "*fp32", "seed": "i32", "p": "fp32"}, {"BLOCK": 128})
    check(text, r"arith.constant dense<3449720151> : tensor<128xi32>", r"dense<3528531795> : tensor<128xi32>",
          r"arith.extui .* : tensor<128xi32> to tensor<128xi64>", r"arith.muli .* : tensor<128xi64>",
          r"arith.shrui", r"arith.trunci", r"arith.xori", r"arith.sitofp", r"arith.cmpf ogt",
          r"math.sqrt", r"math.cos .*fastmath<afn>", r"math.sin .*fastmath<afn>")
    ptx, _ = compile_ptx(text)
    assert "mul.hi.u32" in ptx or "mul.wide.u32" in ptx
    assert "cos.approx.f32" in ptx


@txl.jit
def _philox_64(x_ptr, seed, c):
    a, b, c_, d = tl.philox(seed, c, c, c, c)
    tl.store(x_ptr, a)


def test_64_bit_counters_are_refused():
    with pytest.raises(CompilationError) as info:
        ir_of(_philox_64, {"x_ptr": "*u64", "seed": "i32", "c": "i64"})
    assert "64-bit Philox counters are not supported yet" in info.value.message
