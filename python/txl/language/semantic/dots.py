"""Matrix multiply: ``tl.dot`` (wgmma on 16-bit and fp8 operands, an FMA dot on the CUDA cores for fp32/fp64
tiles), ``txl.dot_wait`` (which dots run asynchronously) and ``finalize_dots``."""

import json
import linecache
import re

from ...ir import dialects as ods
from ... import ir
from ...errors import CompilationError, SemanticError
from .. import core
from ..core import block_type, mbar_type, smem_type, tensor, tmem_type, _unwrap
from .context import _b, _ctx, _reads
from .values import dense, to_tensor, _static_int
from .broadcast import broadcast_to, expand_dims
from .arith import binary, cast
from .buffers import as_view
from .reductions import _reduce_axes


# ----------------------------------------------------------------------------------------------------------------
# Matrix multiply
# ----------------------------------------------------------------------------------------------------------------
def dot(a, b, acc=None, out_dtype=None, use_acc=None):
    """``txl.dot``: wgmma with A in shared memory or registers and B in shared memory."""
    a, b = _unwrap(a), _unwrap(b)
    if not isinstance(a, tensor) or not isinstance(b, tensor):
        raise SemanticError("tl.dot needs tensors, got %r and %r" % (a, b))
    if a.dtype != b.dtype and not isinstance(a.type, mbar_type) and not isinstance(b.type, mbar_type):
        # Checked before B is staged through shared memory, which would convert it quietly.
        if isinstance(a.type, block_type) or isinstance(b.type, block_type):
            fix = "convert one explicitly, e.g. `tl.dot(a, b.to(tl.%s))` (or `a.to(tl.%s)`)" % (
                core._DTYPE_PY_NAMES.get(a.dtype.name, a.dtype.name),
                core._DTYPE_PY_NAMES.get(b.dtype.name, b.dtype.name))
        else:
            fix = "allocate both shared-memory operands with one element type (convert the data before it is stored)"
        raise SemanticError("tl.dot: A is %s and B is %s; the tensor cores multiply operands of one element type"
                            % (a.dtype.name, b.dtype.name), fix)
    if (isinstance(a.type, block_type) and isinstance(b.type, block_type) and a.dtype.is_floating()
            and a.dtype.primitive_bitwidth >= 32):
        return _fma_dot(a, b, acc, out_dtype)
    # What the user wrote: operands in shared memory or registers. txl-lower-tile-copies reads a tile that
    # desc.load brought through shared memory from there and stages any other register B (wgmma reads B from
    # shared memory); such a dot runs synchronously unless the loop pipeliner gives it a ring of buffers.
    staged = isinstance(b.type, block_type) or getattr(a, "from_desc", False)
    if isinstance(b.type, block_type):
        b = _dot_register_b(a, b)
    else:
        b = as_view(b, "tl.dot operand B")
    if isinstance(a.type, smem_type):
        a = as_view(a, "tl.dot operand A")
    elif not isinstance(a.type, block_type):
        raise SemanticError("tl.dot operand A must be a shared-memory buffer or a register tile, got %s" % a.type)
    sa, sb = list(a.type.shape), list(b.type.shape)
    if len(sa) != 2 or len(sb) != 2:
        raise SemanticError("tl.dot needs 2-D operands, got %s and %s" % (sa, sb))
    if sa[1] != sb[0]:
        raise SemanticError("tl.dot: A is %s and B is %s, but A's columns must equal B's rows" % (sa, sb),
                            "for A x B^T with B stored N x K, pass the transposed view `b.T`")
    if a.dtype != b.dtype:
        fix = None
        if isinstance(a.type, block_type):
            fix = "convert A first: `.to(%r)`" % (b.dtype,)
        raise SemanticError("tl.dot: A is %s and B is %s; wgmma needs one element type" % (a.dtype.name,
                                                                                          b.dtype.name), fix)
    out_dtype = _unwrap(out_dtype)
    acc = _unwrap(acc)
    if isinstance(acc, tensor) and isinstance(acc.type, tmem_type):
        # TXL lowers this to a synchronous tcgen05 MMA; txl's tcgen05 MMA is txl.dotx, whose completion the kernel
        # waits for on an mbarrier it owns (the tile must not be read, nor its operands' buffers reused, before).
        raise SemanticError("tl.dot with a tensor-memory accumulator: txl runs tcgen05 MMAs as txl.dotx, which "
                            "signals an mbarrier when done",
                            "write txl.dotx(a, b, acc, mbars=[bar]) and txl.mbar_wait(bar, phase) before "
                            "txl.tmem_load(acc) or reusing a/b's buffers")
    if acc is None:
        ety = out_dtype or (core.int32 if a.dtype.is_int() else core.float32)
        acc = dense(0, block_type(ety, [sa[0], sb[1]]))
    else:
        acc = to_tensor(acc)
        if not isinstance(acc.type, block_type) or list(acc.type.shape) != [sa[0], sb[1]]:
            raise SemanticError("tl.dot: the accumulator must be a %s tile, got %s" % ([sa[0], sb[1]], acc.type))
    ua = None if use_acc is None else cast(to_tensor(use_acc), core.int1).handle
    # `async` is set at the end (finalize_dots), once it is known whether a txl.dot_wait retires the dot
    op = _b().insert(ods.txl.dot(a.handle, b.handle, acc.handle, ua, result=acc.type))
    # A dot with register operands (staged by txl-lower-tile-copies) stays synchronous: txl.dot_wait does not
    # cover it (the next execution of the op overwrites its staging buffer).
    op.attrs["dot"] = not staged
    _ctx().dots.append(op)
    return tensor(op.result, acc.type)


def _fma_dot(a, b, acc, out_dtype):
    """``tl.dot`` of fp32 (or fp64) register tiles: products summed along K on the CUDA cores, as Triton's FMA dot
    (its lowering of fp32 dots with input_precision="ieee"; "tf32" and "tf32x3" get the same, at least as exact,
    result): sum(a[:, :, None] * b[None, :, :], axis=1) + acc. The tensor cores' 16-bit and fp8 paths are not
    used: wgmma and mma.sync take no fp32 operands here."""
    sa, sb = list(a.type.shape), list(b.type.shape)
    if len(sa) != 2 or len(sb) != 2:
        raise SemanticError("tl.dot needs 2-D operands, got %s and %s" % (sa, sb))
    if sa[1] != sb[0]:
        raise SemanticError("tl.dot: A is %s and B is %s, but A's columns must equal B's rows" % (sa, sb),
                            "for A x B^T, pass `tl.trans(b)`")
    out_dtype = _unwrap(out_dtype)
    if out_dtype is not None and out_dtype.primitive_bitwidth < 32:  # fp64 operands accumulate in fp64
        raise SemanticError("tl.dot of %s operands accumulates in %s, got out_dtype=%s"
                            % (a.dtype.name, a.dtype.name, out_dtype.name))
    if sa[0] * sa[1] * sb[1] > core.MAX_TILE_NUMEL:
        raise SemanticError("tl.dot of %s operands %s x %s: txl multiplies fp32 tiles on the CUDA cores through "
                            "a %d-element product tile, more than the %d a tile may have"
                            % (a.dtype.name, sa, sb, sa[0] * sa[1] * sb[1], core.MAX_TILE_NUMEL),
                            "use smaller blocks, or convert the operands to bf16/fp16 (`a.to(tl.bfloat16)`) for "
                            "the tensor cores")
    prod = binary("*", broadcast_to(expand_dims(a, 2), [sa[0], sa[1], sb[1]]),
                  broadcast_to(expand_dims(b, 0), [sa[0], sa[1], sb[1]]))
    r = _reduce_axes("sum", prod, 1, False)
    acc = _unwrap(acc)
    if acc is None:
        return r
    acc = to_tensor(acc)
    if not isinstance(acc.type, block_type) or list(acc.type.shape) != [sa[0], sb[1]]:
        raise SemanticError("tl.dot: the accumulator must be a %s tile, got %s" % ([sa[0], sb[1]], acc.type))
    return binary("+", cast(acc, a.dtype), r)


def _dot_register_b(a, b):
    """Checks a register B of tl.dot (e.g. from tl.load) and converts it to A's element type, as the dot reads
    it: wgmma takes 16-bit or fp8 operands of one type."""
    b = to_tensor(b)
    if len(b.type.shape) != 2:
        raise SemanticError("tl.dot needs 2-D operands, got B of shape %s" % list(b.type.shape))
    ety = a.dtype if isinstance(a, tensor) and a.dtype.is_floating() else b.dtype
    if not ety.is_floating() or ety.primitive_bitwidth not in (8, 16):
        raise SemanticError("tl.dot with B in registers: B is %s, but wgmma takes 16-bit or fp8 operands"
                            % b.dtype.name, "convert B first: `b.to(tl.bfloat16)`")
    if b.dtype != ety:
        if not b.dtype.is_floating():
            raise SemanticError("tl.dot: A is %s and B is %s; wgmma needs one element type"
                                % (ety.name, b.dtype.name), "convert B first: `b.to(%s)`" % ety.name)
        b = cast(b, ety)
    return b


def dot_wait(pendings):
    """``txl.dot_wait N``: wait until at most N wgmma groups are in flight. The accumulators of the dots of this
    block that the wait retires are passed through it, and the kernel's names re-bound to the results (what
    ``%x = txl.dot_wait N, %x_issued`` says in hand-written IR)."""
    n = _static_int(pendings, "txl.dot_wait pendings")
    if n < 0:
        raise SemanticError("txl.dot_wait pendings must be >= 0, got %d" % n)
    b = _b()
    block = b.block
    # Dots of this block not covered by an earlier wait, in issue order.
    issued = [op for op in block.ops if op.attrs.get("dot") and not op.attrs.get("waited")]
    covered = issued[:len(issued) - n] if n else issued
    # The wait makes the dots it covers asynchronous: the tensor cores write their results until here, so a read
    # before the wait (other than as another dot's accumulator, a chained group) would see a half-written tile.
    # That is the kernel's bug, refused at the read (quietly making the dot synchronous instead would hide the
    # overlap the kernel asked for). Dots that stage an operand (attrs["dot"] False) are never covered.
    ok = []
    for d in covered:
        d.attrs["waited"] = True
        flight = _in_flight(block, d)
        if isinstance(flight, ir.Op):
            raise _error_at(flight.loc or d.loc,
                            "reads the result of tl.dot (%s) before the txl.dot_wait that retires it (%s): the "
                            "tensor cores may still be writing it" % (_loc_text(d.loc), _loc_text(_b().loc)),
                            "move this read after txl.dot_wait, or drop the txl.dot_wait to make the dot "
                            "synchronous")
        ok.append((d, flight))
    for d, _ in ok:
        d.attrs["async"] = True
    for d in issued[len(covered):]:
        d.attrs["async"] = True  # still in flight after this wait: only a later wait may read it
        d.attrs["pending_wait"] = True
    # What is in flight passes through the wait when nothing has read it yet: the dot's result, or the sum of
    # `acc += tl.dot(...)`.
    vals = [v for _, v in ok if not any(_reads(o, v) for o in block.ops[block.ops.index(v.owner) + 1:])]
    op = b.insert(ods.txl.dot_wait(vals, outputs=[v.type for v in vals], pendings=n))
    if not vals:
        return None
    ctx = _ctx()
    if ctx.codegen is not None:
        for old, new in zip(vals, op.results):
            ctx.codegen.replace_value(old, tensor(new, new.type))
    return None


def _in_flight(block, d):
    """The value the tensor cores are still writing when the covered dot ``d`` is waited for: its result, or, when
    the kernel added the product to an earlier value (``acc += tl.dot(q, k.T)``, which txl-fold-dot-add turns
    into the dot accumulating into acc), that add's result. Returns the reader of it that comes too early (any op
    but another dot taking it as its accumulator, or that one add), an ``ir.Op``, or else the value."""
    v = d.result
    for o in block.ops[block.ops.index(d) + 1:]:
        if not _reads(o, v):
            continue
        if o.attrs.get("dot") and o.operands[2] is v and o.operands[0] is not v:
            continue  # a chained group: the next dot accumulates into it
        if o.name in ("arith.addf", "arith.addi") and sum(x is v for x in o.operands) == 1:
            other = o.operands[1] if o.operands[0] is v else o.operands[0]
            if (v is d.result and not any(_reads(p, v) for p in block.ops[block.ops.index(o) + 1:])):
                v = o.result  # the accumulation `acc + tl.dot(...)`; whether it folds is the verifier's rule
                continue
            if isinstance(other.owner, ir.Op) and other.owner.attrs.get("dot"):
                continue  # `v + tl.dot(...)`: the next dot's accumulation, a chained group
        return o
    return v


def finalize_dots(ctx):
    """Marks each txl.dot async or not (see dot_wait) once the whole kernel has been generated."""
    for op in ctx.dots:
        if op.attrs.get("async"):
            op.props["async"] = True


# ----------------------------------------------------------------------------------------------------------------
# Errors at an earlier op
# ----------------------------------------------------------------------------------------------------------------
_LOC_RE = re.compile(r'loc\((".*"):(\d+):(\d+)\)$')


def _parse_loc(loc):
    """(file, line, col) of a 'loc("file":line:col)' string, or None."""
    m = _LOC_RE.match(loc or "")
    if not m:
        return None
    return json.loads(m.group(1)), int(m.group(2)), int(m.group(3))


def _loc_text(loc):
    where = _parse_loc(loc)
    return "line %d" % where[1] if where else "earlier"


def _error_at(loc, message, fix=None):
    """A CompilationError at an op the kernel created earlier (its recorded source location), for errors found
    when a later statement runs; a SemanticError (at the statement running now) when the op has no location."""
    where = _parse_loc(loc)
    if where is None:
        return SemanticError(message, fix)
    file, line, col = where
    ctx = _ctx()
    kernel = getattr(getattr(ctx.codegen, "info", None), "name", None) if ctx.codegen is not None else None
    return CompilationError(message, file=file, line=line, col=col, source_line=linecache.getline(file, line) or None,
                            fix=fix, kernel=kernel)
