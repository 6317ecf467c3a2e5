"""Triton's counter-based random numbers (``tl.rand``, ``tl.randint``, ``tl.randn`` and their 4x forms): Philox
4x32 with Triton's constants, rounds and seed/offset mapping, so the integers match ``triton.language``'s for
the same seed and offsets (the uniform floats too: same integer-to-float mapping). The normal variants go
through tl.log (approximate, as in Triton) and txl's approximate sin/cos, so they are close to Triton's, not
bit-identical.

The 32-bit high products (mul.hi.u32) are computed as 64-bit products shifted by 32 (see semantic.mulhi).
"""

from ..errors import SemanticError
from . import core
from . import semantic as S
from .core import block_type, builtin, _unwrap

N_ROUNDS_DEFAULT = 10

_KEY_A, _KEY_B = 0x9E3779B9, 0xBB67AE85
_ROUND_A, _ROUND_B = 0xD2511F53, 0xCD9E8D57
_U32 = core.uint32


def _rounds(n_rounds):
    n = _unwrap(n_rounds)
    if not isinstance(n, int) or n < 0:
        raise SemanticError("n_rounds must be a compile-time integer >= 0, got %r" % (n,))
    return n


def _u32(x, what):
    t = S.to_tensor(x)
    if not t.dtype.is_int() or t.dtype.is_bool():
        raise SemanticError("%s takes integers, got %s" % (what, t.dtype.name))
    if t.dtype.primitive_bitwidth != 32:
        raise SemanticError("%s: 64-bit Philox counters are not supported yet (got %s)" % (what, t.dtype.name),
                            "pass 32-bit counters (tl.randint/tl.rand take 64-bit offsets and split them)")
    return S.cast(t, _U32, bitcast=False)


def _const(v):
    return S.constant(v, _U32)


def _mul_lo(c, x):
    tx = S.to_tensor(x)
    cc = S.dense(c, tx.type) if isinstance(tx.type, block_type) else _const(c)
    return S._binop("muli", cc, tx)


@builtin
def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds=N_ROUNDS_DEFAULT):
    """``n_rounds`` Philox rounds on the counters (c0..c3) with the key (k0, k1); 32-bit unsigned values."""
    c0, c1, c2, c3 = [_u32(c, "tl.philox_impl") for c in (c0, c1, c2, c3)]
    k0, k1 = _u32(k0, "tl.philox_impl"), _u32(k1, "tl.philox_impl")
    for _ in range(_rounds(n_rounds)):
        _c0, _c2 = c0, c2
        c0 = S.binary("^", S.binary("^", S.mulhi(_ROUND_B, _c2, True, "tl.philox"), c1), k0)
        c2 = S.binary("^", S.binary("^", S.mulhi(_ROUND_A, _c0, True, "tl.philox"), c3), k1)
        c1 = _mul_lo(_ROUND_B, _c2)
        c3 = _mul_lo(_ROUND_A, _c0)
        k0 = S._binop("addi", *_same(k0, _KEY_A))
        k1 = S._binop("addi", *_same(k1, _KEY_B))
    return c0, c1, c2, c3


def _same(t, c):
    return t, (S.dense(c, t.type) if isinstance(t.type, block_type) else _const(c))


def _seed_words(seed):
    s = S.to_tensor(seed)
    if not s.dtype.is_int() or s.dtype.is_bool() or isinstance(s.type, block_type):
        raise SemanticError("the Philox seed must be an integer scalar, got %s" % s.type)
    s = S.cast(s, core.uint64)
    hi = S.cast(S.binary(">>", s, 32), _U32)
    lo = S.cast(s, _U32)
    return lo, hi


@builtin
def philox(seed, c0, c1, c2, c3, n_rounds=N_ROUNDS_DEFAULT):
    """Philox with the key taken from ``seed`` (low word, high word); 32-bit counters."""
    lo, hi = _seed_words(seed)
    c = [S.cast(_u32(x, "tl.philox"), _U32, bitcast=True) for x in (c0, c1, c2, c3)]
    return philox_impl(*c, lo, hi, n_rounds)


@builtin
def randint4x(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """Four tiles of random uint32 for ``offset`` (an integer tile or scalar; 64-bit offsets use their high word
    as the second counter)."""
    off = S.to_tensor(offset)
    if not off.dtype.is_int() or off.dtype.is_bool():
        raise SemanticError("tl.randint offsets must be integers, got %s" % off.dtype.name)
    lo = S.cast(off, _U32)
    zero = _mul_lo(0, lo)
    hi = S.cast(S.binary(">>", off, 32), _U32) if off.dtype.primitive_bitwidth > 32 else zero
    return philox(seed, lo, hi, zero, zero, n_rounds)


@builtin
def randint(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """A tile of random uint32 for ``offset`` (the first of randint4x's)."""
    return randint4x(seed, offset, n_rounds)[0]


def _uniform(x):
    from .standard import uint_to_uniform_float
    return uint_to_uniform_float(x)


@builtin
def rand(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """A tile of float32 uniform in [0, 1)."""
    return _uniform(randint(seed, offset, n_rounds))


@builtin
def rand4x(seed, offsets, n_rounds=N_ROUNDS_DEFAULT):
    return tuple(_uniform(i) for i in randint4x(seed, offsets, n_rounds))


@builtin
def pair_uniform_to_normal(u1, u2):
    """Box-Muller: two uniform tiles to two standard normal ones."""
    u1 = S.minmax("max", 1.0e-7, u1)
    th = S.binary("*", 6.283185307179586, u2)
    r = S.math_unary("sqrt", S.binary("*", -2.0, S.math_unary("log", u1)))
    return S.binary("*", r, S.math_unary("cos", th)), S.binary("*", r, S.math_unary("sin", th))


@builtin
def randn(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """A tile of float32 from N(0, 1)."""
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    return pair_uniform_to_normal(_uniform(i1), _uniform(i2))[0]


@builtin
def randn4x(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)
    return pair_uniform_to_normal(u1, u2) + pair_uniform_to_normal(u3, u4)


__all__ = ["philox_impl", "philox", "randint", "randint4x", "rand", "rand4x", "randn", "randn4x",
           "pair_uniform_to_normal"]
