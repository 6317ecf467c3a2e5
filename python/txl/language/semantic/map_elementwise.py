"""``tl.map_elementwise(scalar_fn, *args, pack=1)``: Triton 3.6's map of a ``@jit`` function over the elements of
broadcast tensors. txl applies ``scalar_fn`` to the whole broadcast tiles (its arithmetic is elementwise on tiles),
which gives Triton's values for every function without data-dependent control flow; an ``if`` / ``while`` on an
element's value inside ``scalar_fn`` is refused by the code generator at that line (use ``tl.where``: txl then
computes both sides, which Triton's per-element branch avoids). ``pack`` > 1 (the function taking ``pack`` scalars
of each argument) is refused with the alternative.
"""

from ...errors import SemanticError, UnsupportedError
from ..core import _unwrap, block_type, builtin, is_jit_function
from .broadcast import _shape, broadcast_shapes, broadcast_to
from .context import _ctx
from .values import to_tensor


def map_elementwise_tiles(scalar_fn, args, pack=1):
    """``scalar_fn`` (a @txl.jit function) called on ``args`` broadcast to one shape: a tensor, or a tuple."""
    fn = _unwrap(scalar_fn)
    if not is_jit_function(fn):
        raise SemanticError("tl.map_elementwise needs a @txl.jit function to map, got %r" % (fn,),
                            "decorate the scalar function with @txl.jit")
    pack = _unwrap(pack)
    if pack != 1:
        raise UnsupportedError("tl.map_elementwise with pack=%r is not supported yet by txl: txl maps the function "
                               "over whole tiles, not %r elements at a time" % (pack, pack),
                               "write the function for one element and use pack=1")
    ts = [to_tensor(a) for a in args]
    if not ts:
        raise SemanticError("tl.map_elementwise needs at least one tensor argument to map over")
    shape = []
    for t in ts:
        shape = broadcast_shapes(shape, _shape(t), "tl.map_elementwise's arguments")
    ts = [broadcast_to(t, shape) for t in ts]
    gen = _ctx().codegen
    ret = _unwrap(gen.call_jit(gen.cur_call, fn, ts, {}))
    many = isinstance(ret, (tuple, list))
    outs = []
    for r in (ret if many else [ret]):
        r = to_tensor(r)
        if shape and not isinstance(r.type, block_type):
            r = broadcast_to(r, shape)  # the function returned a constant or a scalar of its own
        outs.append(r)
    return tuple(outs) if many else outs[0]


@builtin
def map_elementwise(scalar_fn, *args, pack=1):
    """Triton's ``tl.map_elementwise``: ``scalar_fn`` applied to the elements of ``args`` broadcast to one shape
    (txl: to the whole tiles at once; see the module docstring for what that excludes)."""
    return map_elementwise_tiles(scalar_fn, args, pack)
