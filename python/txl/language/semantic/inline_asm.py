"""``tl.inline_asm_elementwise``: the user's PTX applied to the elements of tiles (Triton 3.6's function, same
arguments and results).

The frontend says what the user wrote: one ``txl.elementwise_inline_asm`` op whose operands are the arguments
broadcast to one shape (Triton broadcasts them without promoting their dtypes) and whose results are tiles of that
shape with the requested dtypes. How it runs is the compiler's: ``convert-txl-to-nvvm`` calls the asm once per
``pack`` registers of a thread, elements narrower than 32 bits packed in one register (see the op's description in
TXLOps.td); the op's verifier checks the constraint string against that register count, so a wrong one is an error
at the user's line, not LLVM's.
"""

from ...ir import dialects as ods
from ...errors import SemanticError
from ..core import _unwrap, block_type, builtin, dtype, tensor
from .broadcast import _shape, broadcast_shapes, broadcast_to
from .context import _b
from .values import to_tensor


def _string(x, what):
    x = _unwrap(x)
    if not isinstance(x, str):
        raise SemanticError("tl.inline_asm_elementwise: %s must be a compile-time string, got %r" % (what, x))
    return x


def _dtypes(d):
    """(the result dtypes, whether the user asked for several): Triton takes a sequence of dtypes as several
    results (a tuple back, even of one) and a single dtype as one."""
    d = _unwrap(d)
    many = isinstance(d, (list, tuple))
    out = [_unwrap(x) for x in (d if many else [d])]
    for i, t in enumerate(out):
        if not isinstance(t, dtype):
            raise SemanticError("tl.inline_asm_elementwise: dtype%s must be a tl dtype, got %r"
                                % ("[%d]" % i if many else "", t), "e.g. dtype=tl.float32 or dtype=(tl.int32, tl.int32)")
        if t.is_ptr() or t.is_bool():
            raise SemanticError("tl.inline_asm_elementwise: result dtype %s is not supported: inline asm results are "
                                "integers and floats of 8 to 64 bits" % t.name,
                                "return an int8/int32 (or the address as tl.int64) and convert it after the call")
    if not out:
        raise SemanticError("tl.inline_asm_elementwise: dtype is an empty sequence; give one dtype per result")
    return out, many


def elementwise_inline_asm(asm, constraints, args, dtype_, is_pure, pack):
    """The op for ``tl.inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack)``: a tensor, or a tuple
    of them when ``dtype`` is a sequence."""
    asm = _string(asm, "asm")
    constraints = _string(constraints, "constraints")
    pack = _unwrap(pack)
    if not isinstance(pack, int) or isinstance(pack, bool) or pack < 1:
        raise SemanticError("tl.inline_asm_elementwise: pack must be a positive compile-time int, got %r" % (pack,))
    is_pure = _unwrap(is_pure)
    if not isinstance(is_pure, bool):
        raise SemanticError("tl.inline_asm_elementwise: is_pure must be a compile-time bool, got %r" % (is_pure,))
    args = _unwrap(args)
    if isinstance(args, tensor) or not isinstance(args, (list, tuple)):
        args = [args]
    args = [to_tensor(a) for a in args]  # none: scalar results (fla's `griddepcontrol` hint), as in Triton
    dtypes, many = _dtypes(dtype_)
    shape = []
    for a in args:
        shape = broadcast_shapes(shape, _shape(a), "tl.inline_asm_elementwise's arguments")
    if shape:
        args = [broadcast_to(a, shape) for a in args]
    types = [block_type(d, shape) if shape else d for d in dtypes]
    op = _b().insert(ods.txl.elementwise_inline_asm([a.handle for a in args], results=types, asm_string=asm,
                                                     constraints=constraints, pure=is_pure, packed_element=pack))
    outs = [tensor(v, t) for v, t in zip(op.results, types)]
    return tuple(outs) if many else outs[0]


@builtin
def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack):
    """Triton's ``tl.inline_asm_elementwise``: runs ``asm`` (PTX, ``$N`` operands in the order of ``constraints``:
    results first) on the elements of ``args`` broadcast to one shape, ``pack`` elements per call; returns a tensor
    of ``dtype``, or a tuple when ``dtype`` is a sequence."""
    return elementwise_inline_asm(asm, constraints, args, dtype, is_pure, pack)
