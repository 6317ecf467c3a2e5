"""The txl frontend: a @txl.jit function's Python AST becomes txl IR text (an MLIR module).

Design (after Triton's ``code_generator.py``): a ``CodeGenerator`` walks the function's AST with a local scope
that maps names to values -- ``tensor`` (run-time values: scalars, tiles, pointers, buffers, mbarriers,
descriptors), ``constexpr`` (compile-time values) or plain Python objects (modules, functions, dtypes, tuples).
Expressions on constexprs are folded in Python; everything else goes through ``txl.language.semantic``, which
builds the IR (``txl.ir``).

Control flow:
  * ``if`` on a constexpr compiles one branch; on a run-time i1 it becomes ``scf.if``, whose results are the
    variables assigned in a branch that exist after it. ``if txl.is_warpgroup([...])`` is such an ``scf.if``: that
    is how the dialect expresses warp specialization.
  * ``for i in range(...)`` / ``tl.range`` becomes ``scf.for``; the variables the body re-assigns are its
    iter_args. They are found by generating the body once into a scratch block (a dry run), as Triton does.
    ``tl.static_range`` (and iterating a tuple) unrolls the loop at compile time.
  * ``while`` becomes ``scf.while`` the same way.
  * Calls to other @txl.jit functions are inlined; they may return a value or a tuple.
  * The frontend keeps no state of its own: each user construct is one op, and the C++ passes decide buffers,
    barriers and phases (txl-schedule-loops, txl-lower-tile-copies).

Every user error is a ``CompilationError`` at the AST node being compiled (``file:line:col``, the source line
with a caret, and a fix); unexpected exceptions are wrapped the same way so no frontend traceback reaches users.
"""

import ast
import builtins
import copy
import inspect
import json
import linecache
import os
import re
import textwrap
import types

from .. import ir
from ..ir.dialects import builtin as d_builtin, func as d_func, scf as d_scf
from ..errors import CompilationError, SemanticError, ShapeMismatchError
from ..language import core, semantic
from ..language.core import (block_type, constexpr, dtype, is_jit_function, smem_type, tensor, tensordesc_type,
                             _is_aggregate, _unwrap)
from ..language.triton_api import Refused


# ----------------------------------------------------------------------------------------------------------------
# Signatures
# ----------------------------------------------------------------------------------------------------------------
_DESC_RE = re.compile(r"^tensordesc<\s*(\w+)\s*\[([\d\s,]+)\]\s*(?:,\s*swizzle\s*=\s*(\d+)\s*)?>$")


def parse_signature_type(text, name="?"):
    """A Triton signature string (``*bf16``, ``i32``, ``i32:16``, ``fp32``, ``tensordesc<bf16[128, 64]>``) -> type."""
    s = str(text).strip()
    m = _DESC_RE.match(s)
    if m:
        ety = core.SIGNATURE_DTYPES.get(m.group(1))
        if ety is None:
            raise SemanticError("parameter %r: unknown element type %r in %r" % (name, m.group(1), s))
        shape = [int(x) for x in m.group(2).split(",") if x.strip()]
        swizzle = int(m.group(3)) if m.group(3) else None
        if swizzle is not None and swizzle not in (0, 32, 64, 128):
            raise SemanticError("parameter %r: swizzle must be 0, 32, 64 or 128, got %d" % (name, swizzle))
        return tensordesc_type(ety, shape, swizzle)
    if s.startswith("*"):
        inner = s[1:].strip()
        if inner.startswith("k"):  # Triton's "*k" (const pointer) spelling
            inner = inner[1:]
        ety = core.SIGNATURE_DTYPES.get(inner.split(":")[0])
        if ety is None:
            raise SemanticError("parameter %r: unknown pointer element type in %r" % (name, s))
        return core.pointer_type(ety)
    base = s.split(":")[0]  # "i32:16": divisibility specialisation, not needed by codegen
    ety = core.SIGNATURE_DTYPES.get(base)
    if ety is None:
        raise SemanticError("parameter %r: unknown signature type %r" % (name, s),
                            "use one of " + _SIGNATURE_FORMS)
    return ety


# ----------------------------------------------------------------------------------------------------------------
# Function metadata (a JITFunction or a plain function)
# ----------------------------------------------------------------------------------------------------------------
def _foreign_jit_fn(fn):
    """The Python function of a ``@triton.jit`` function (duck-typed: a JITFunction whose ``.fn`` is the Python
    function; triton need not be installed for txl), else None. TXL kernels call Triton helpers; txl inlines
    them like ``@txl.jit`` helpers."""
    inner = getattr(fn, "fn", None)
    if not inspect.isfunction(inner) or inspect.isfunction(fn) or isinstance(fn, types.ModuleType):
        return None
    if type(fn).__name__.endswith("JITFunction") or type(fn).__module__.split(".")[0] in ("triton", "teraxlang") \
            or callable(getattr(type(fn), "__getitem__", None)):  # kernel[grid]: a launchable JIT function
        return inner
    return None


class _FnInfo:
    def __init__(self, fn):
        if is_jit_function(fn):
            self.fn = fn.fn
            self.src = fn.src
            self.file = fn.file
            self.start = fn.starting_line_number
        else:
            fn = _foreign_jit_fn(fn) or fn
            if not inspect.isfunction(fn):
                raise TypeError("expected a @txl.jit function or a Python function, got %r" % (fn,))
            self.fn = fn
            lines, self.start = inspect.getsourcelines(fn)
            self.src = textwrap.dedent("".join(lines))
            self.file = inspect.getsourcefile(fn) or "<unknown>"
        self.name = self.fn.__name__
        self.globals = self.fn.__globals__
        self.signature = inspect.signature(self.fn)
        # Column shift: the source was dedented before parsing.
        orig = linecache.getline(self.file, self.start) if self.file else ""
        first = self.src.splitlines()[0] if self.src else ""
        self.indent = (len(orig) - len(orig.lstrip())) - (len(first) - len(first.lstrip())) if orig else 0
        tree = ast.parse(self.src)
        defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
        if not defs:
            raise TypeError("no function definition found in the source of %s" % self.name)
        self.node = defs[0]

    def constexpr_params(self):
        out = set()
        for name, p in self.signature.parameters.items():
            ann = p.annotation
            if ann is inspect.Parameter.empty:
                continue
            text = ann if isinstance(ann, str) else getattr(ann, "__name__", repr(ann))
            if ann is constexpr or text == "constexpr" or str(text).endswith(".constexpr"):
                out.add(name)
        return out


_JIT_CACHE = {}

# Functions (generator, tensor, name) -> value or NotImplemented, asked before the tensor attributes the code
# generator knows (core.TENSOR_ATTRS): how a language built on txl's (txl.experimental.gluon) gives run-time values
# the attributes its kernels read, e.g. a TMA descriptor's shared-memory layout.
ATTRIBUTE_HOOKS = []


def _info(fn):
    key = id(fn)
    hit = _JIT_CACHE.get(key)
    if hit is None or hit[0] is not fn:
        hit = (fn, _FnInfo(fn))
        _JIT_CACHE[key] = hit
    return hit[1]


# ----------------------------------------------------------------------------------------------------------------
# Values
# ----------------------------------------------------------------------------------------------------------------
def _wrap(v):
    """Python literals become constexprs; everything else is kept as is."""
    if isinstance(v, (bool, int, float, str, type(None), dtype)) and not isinstance(v, constexpr):
        return constexpr(v)
    return v


def _is_static(v):
    return not isinstance(v, tensor) and not _is_aggregate(v) \
        and not (isinstance(v, (tuple, list)) and any(not _is_static(x) for x in v))


def _flatten(v, name):
    """Leaves (tensors) of a value carried through control flow, and a function that rebuilds it. A frontend
    aggregate (a block pointer: ``core.block_pointer``) is flattened into its run-time fields (``_txl_fields``) and
    rebuilt with its compile-time part (``_txl_rebuild``)."""
    if isinstance(v, tensor):
        return [v], lambda leaves: leaves[0]
    if _is_aggregate(v):
        leaves, rb = _flatten(tuple(v._txl_fields()), name)
        return leaves, lambda ls: v._txl_rebuild(rb(ls))
    if isinstance(v, tuple):
        parts = [_flatten(x, name) for x in v]
        sizes = [len(p[0]) for p in parts]

        def rebuild(leaves):
            out, i = [], 0
            for (_, rb), n in zip(parts, sizes):
                out.append(rb(leaves[i:i + n]))
                i += n
            return tuple(out)
        return [l for p in parts for l in p[0]], rebuild
    raise SemanticError("`%s` (%r) cannot be carried through run-time control flow" % (name, v))


def _aggregate_fields(v):
    """Per leaf of ``_flatten(v)``: whether it is a field of a frontend aggregate."""
    if isinstance(v, tensor):
        return [False]
    if isinstance(v, tuple):
        return [f for x in v for f in _aggregate_fields(x)]
    if _is_aggregate(v):
        return [True] * len(_flatten(v, "")[0])
    return []


def _static_key(v):
    """The compile-time part of a value that goes through control flow (None for a tensor): both branches of an
    ``if`` and every loop iteration must agree on it (a block pointer's element type, block shape and order)."""
    if isinstance(v, tuple):
        return tuple(_static_key(x) for x in v)
    if _is_aggregate(v):
        return (v._txl_static(), _static_key(tuple(v._txl_fields())))
    return None


def _kept(leaves, keep):
    return [x for x, k in zip(leaves, keep) if k]


def _rebuild_kept(init, name, keep, values):
    """``init`` with its kept leaves replaced by the IR values ``values`` yields (block arguments, results); the
    other leaves (unchanged aggregate fields) stay ``init``'s."""
    leaves, rb = _flatten(init, name)
    out = []
    for leaf, k in zip(leaves, keep):
        if k:
            v = next(values)
            out.append(tensor(v, v.type))
        else:
            out.append(leaf)
    return rb(out)


def _hinted(values, name):
    """The IR values of an iterator, each named after the variable it becomes part of as it is taken."""
    for v in values:
        v.hint = name
        yield v


def _keep_mask(init, new, name):
    """Which leaves of a value carried through control flow become iter_args / results: all of them, except the
    fields of an aggregate that are the same value on both sides (a block pointer that a loop only reads, or that
    ``tl.advance(p, (0, 0))`` leaves as it is, is not carried; txl-expand-block-pointers carries the changing
    fields of the others)."""
    leaves = _flatten(init, name)[0]
    try:
        other = _flatten(new, name)[0]
    except SemanticError:
        return [True] * len(leaves)
    if len(other) != len(leaves) or _static_key(init) != _static_key(new):
        return [True] * len(leaves)
    return [not (f and a.handle is b.handle) for f, a, b in zip(_aggregate_fields(init), leaves, other)]


_PY_BINOPS = {
    ast.Add: ("+", lambda a, b: a + b), ast.Sub: ("-", lambda a, b: a - b), ast.Mult: ("*", lambda a, b: a * b),
    ast.Div: ("/", lambda a, b: a / b), ast.FloorDiv: ("//", lambda a, b: a // b),
    ast.Mod: ("%", lambda a, b: a % b), ast.BitAnd: ("&", lambda a, b: a & b), ast.BitOr: ("|", lambda a, b: a | b),
    ast.BitXor: ("^", lambda a, b: a ^ b), ast.LShift: ("<<", lambda a, b: a << b),
    ast.RShift: (">>", lambda a, b: a >> b), ast.Pow: ("**", lambda a, b: a ** b),
}
_PY_CMPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
_PY_CMP_FN = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
              ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


class _Return(Exception):
    pass


# ----------------------------------------------------------------------------------------------------------------
# The code generator
# ----------------------------------------------------------------------------------------------------------------
class CodeGenerator(ast.NodeVisitor):
    def __init__(self, info, ctx, lscope, call_stack=()):
        self.info = info
        self.ctx = ctx
        self.builder = ctx.builder
        self.lscope = lscope
        self.local_defs = {}  # names assigned in the current block (ordered)
        self.call_stack = tuple(call_stack) + (info.fn,)
        self.loop_depth = 0
        self.region_depth = 0  # > 0 inside if/for/while bodies (returns are only allowed at the top)
        self.cond_depth = 0  # > 0 inside the branches of a run-time `if` that is not a role split
        # Enclosing warp-specialized regions, innermost last: ("is_warpgroup" | "is_warp", ids) for the region
        # of `if txl.is_warpgroup(ids):`, ("else", None) for its else branch.
        self.roles = ()
        self.site_path = ()  # the call nodes that inlined this function (call-site keys of hidden state)
        self.cur_call = None  # the ast.Call whose builtin is running (see call_site)
        self.ret_value = None
        self.returned = False

    # -- errors -----------------------------------------------------------------------------------------------
    def error(self, node, message, fix=None, cls=CompilationError):
        line = col = None
        src = None
        if node is not None and hasattr(node, "lineno"):
            line = self.info.start + node.lineno - 1
            col = node.col_offset + self.info.indent + 1
            src = linecache.getline(self.info.file, line) or None
            if src is None:
                lines = self.info.src.splitlines()
                src = lines[node.lineno - 1] if node.lineno - 1 < len(lines) else None
                col = node.col_offset + 1
        return CompilationError(message, file=self.info.file, line=line, col=col, source_line=src, fix=fix,
                                kernel=self.info.name)

    def source_loc(self, node):
        """MLIR location of an AST node: loc("file":line:col), 1-based, in the user's file."""
        line = self.info.start + node.lineno - 1
        col = node.col_offset + self.info.indent + 1
        return "loc(%s:%d:%d)" % (json.dumps(self.info.file), line, col)

    def visit(self, node):
        saved = self.builder.loc
        if getattr(node, "lineno", None) is not None:
            self.builder.loc = self.source_loc(node)
        try:
            return super().visit(node)
        except (CompilationError, _Return):
            raise
        except ShapeMismatchError as e:
            raise self.error(node, e.message, e.fix or self._shape_fix(node, e)) from None
        except SemanticError as e:
            raise self.error(node, e.message, e.fix) from None
        except RecursionError:
            raise self.error(node, "expression too deeply nested (or a recursive @txl.jit call)") from None
        except Exception as e:  # a frontend bug: still point at the user's code
            if os.environ.get("TXL_FRONTEND_DEBUG"):
                raise
            raise self.error(node, "internal error of the txl frontend while compiling this (%s: %s)"
                             % (type(e).__name__, e),
                             "please report it (set TXL_FRONTEND_DEBUG=1 for the Python traceback)") from None
        finally:
            self.builder.loc = saved

    def generic_visit(self, node):
        raise self.error(node, "unsupported Python construct: %s" % _describe(node), _UNSUPPORTED_FIX.get(
            type(node).__name__))

    # -- scope ------------------------------------------------------------------------------------------------
    def lookup(self, name, node):
        if name in self.lscope:
            return self.lscope[name]
        g = self.info.globals
        if name in g:
            v = g[name]
            if isinstance(v, Refused):  # `from txl.language import atomic_add`
                raise self.error(node, v.message(), v.instead)
            return _wrap(v)
        if name in _BUILTIN_NAMES:
            return _BUILTIN_NAMES[name]
        if hasattr(builtins, name):
            raise self.error(node, "the Python builtin `%s` cannot be used in a txl kernel" % name)
        raise self.error(node, "name `%s` is not defined" % name,
                         "a variable first assigned inside an `if` branch or a loop body exists after it only "
                         "if it is assigned in every branch (or before the `if`/loop)")

    def set(self, name, value):
        value = _wrap(value)
        if isinstance(value, tensor) and value.handle.hint is None:
            owner = value.handle.owner
            if not (isinstance(owner, ir.Op) and "const" in owner.attrs):
                value.handle.hint = name
        self.lscope[name] = value
        self.local_defs[name] = True

    def call_site(self):
        """A key naming the call being compiled (its AST node and the inlining calls above it): state kept per
        call site (desc.load's staging buffer and mbarrier phase) is looked up by it."""
        return self.site_path + (self.cur_call,)

    def replace_value(self, old, new):
        """Re-binds every name holding the IR value ``old`` (after txl.dot_wait threads it)."""
        for k, v in list(self.lscope.items()):
            if isinstance(v, tensor) and v.handle is old:
                new.handle.hint = new.handle.hint or (v.handle.hint and v.handle.hint + "_done")
                self.lscope[k] = new

    # -- statements -------------------------------------------------------------------------------------------
    def visit_body(self, stmts):
        for i, s in enumerate(stmts):
            if self.returned:
                raise self.error(s, "code after `return` is not supported",
                                 "return once, at the end of the function")
            self.visit(s)

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # docstring
        self.visit(node.value)

    def visit_Pass(self, node):
        pass

    def visit_Assign(self, node):
        value = self.visit(node.value)
        for target in node.targets:
            self.assign(target, value)

    def visit_AnnAssign(self, node):
        if node.value is None:
            return
        value = self.visit(node.value)
        ann = self.visit(node.annotation) if node.annotation is not None else None
        if ann is constexpr and isinstance(value, tensor):
            raise self.error(node, "`%s` is annotated tl.constexpr but its value is only known at run time"
                             % ast.unparse(node.target))
        self.assign(node.target, value)

    def visit_AugAssign(self, node):
        load = _to_load(node.target)
        value = self.binop(node, load, node.op, node.value)
        self.assign(node.target, value)

    def assign(self, target, value):
        if isinstance(target, ast.Name):
            self.set(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            vals = _unwrap(value)
            if isinstance(vals, tensor) or not isinstance(vals, (tuple, list)):
                raise self.error(target, "cannot unpack %s into %d names" % (_kind(value), len(target.elts)))
            if len(vals) != len(target.elts):
                raise self.error(target, "cannot unpack %d values into %d names" % (len(vals), len(target.elts)))
            for t, v in zip(target.elts, vals):
                self.assign(t, v)
        elif isinstance(target, ast.Subscript):
            raise self.error(target, "assigning to a subscript (x[i] = ...) is not supported",
                             "tiles are values: build a new one with tl.where, or store into memory with tl.store "
                             "/ txl.smem_store")
        else:
            raise self.error(target, "cannot assign to %s" % _describe(target))

    def visit_Return(self, node):
        if self.region_depth > 0:
            if node.value is None:  # what _lower_early_returns leaves: a return inside a loop
                raise self.error(node, "`return` inside a for/while loop is not supported (a loop has a single "
                                 "exit)", "make the loop a `while` whose condition becomes false, and put what "
                                 "follows under an `if`")
            raise self.error(node, "returning a value inside an if/for/while is not supported (only at the end "
                             "of the function)", "assign the result to a variable and return it at the end")
        value = self.visit(node.value) if node.value is not None else None
        if self.is_kernel and _unwrap(value) is not None:
            raise self.error(node, "a kernel cannot return a value", "store results with tl.store / desc.store")
        self.ret_value = value
        self.returned = True

    def visit_Assert(self, node):
        cond = self.visit(node.test)
        if isinstance(cond, tensor):  # a run-time value: a device assertion (only with debug, as in Triton)
            msg = _unwrap(self.visit(node.msg)) if node.msg is not None else ""
            semantic.device_assert(cond, msg if isinstance(msg, str) else "")
            return
        if not _unwrap(cond):
            msg = _unwrap(self.visit(node.msg)) if node.msg is not None else ""
            raise self.error(node, "assertion failed" + (": %s" % msg if msg else ""))

    def visit_Break(self, node):
        raise self.error(node, "`break` is not supported in txl loops (scf.for/scf.while have a single exit)",
                         "use a `while` loop whose condition becomes false instead")

    def visit_Continue(self, node):
        raise self.error(node, "`continue` is not supported in txl loops",
                         "put the rest of the body under an `if`")

    # -- if ---------------------------------------------------------------------------------------------------
    def visit_If(self, node):
        cond = self.visit(node.test)
        if not isinstance(cond, tensor):
            self.visit_body(node.body if _unwrap(cond) else node.orelse)
            return
        self.runtime_if(node, cond, lambda: self.visit_body(node.body),
                        (lambda: self.visit_body(node.orelse)) if node.orelse else None)

    def _condition(self, node, cond):
        if isinstance(cond.type, block_type):
            raise self.error(node, "the condition is a %s tile; `if`/`while` need a scalar" % (cond.type.shape,),
                             "reduce it first (e.g. tl.max(mask, 0)) or select elementwise with tl.where")
        if cond.dtype.is_ptr() or not isinstance(cond.type, dtype):
            raise self.error(node, "cannot use %s as a condition" % cond.type)
        if cond.dtype != core.int1:
            role, ids = cond.role, getattr(cond, "role_ids", ())
            cond = semantic.cast(cond, core.int1)
            cond.role, cond.role_ids = role, ids
        return cond

    def _run_block(self, block, body_fn, scope):
        saved = (self.builder.block, self.lscope, self.local_defs)
        self.builder.block = block
        self.lscope = dict(scope)
        self.local_defs = {}
        self.region_depth += 1
        try:
            if body_fn is not None:
                body_fn()
            return self.lscope, self.local_defs
        finally:
            self.region_depth -= 1
            self.builder.block, self.lscope, self.local_defs = saved

    def runtime_if(self, node, cond, then_fn, else_fn, want=None):
        """scf.if. ``want`` (IfExp): the name whose value is the result; otherwise the assigned variables."""
        cond = self._condition(node, cond)
        liveins = dict(self.lscope)
        then_block, else_block = ir.Block(), ir.Block()
        role = self._role_of(cond)
        saved_roles = self.roles
        if role is None:
            self.cond_depth += 1  # (its branches may run in some threads only: no CTA barrier there)
        try:
            if role is not None:
                self.roles = saved_roles + (role,)
            then_scope, then_defs = self._run_block(then_block, then_fn, liveins)
            if role is not None:
                self.roles = saved_roles + (("else", None),)
            else_scope, else_defs = self._run_block(else_block, else_fn, liveins)
        finally:
            self.roles = saved_roles
            if role is None:
                self.cond_depth -= 1
        names = []
        for n in list(then_defs) + [n for n in else_defs if n not in then_defs]:
            if want is not None and n != want:
                continue
            if (n in then_defs and n in else_defs) or n in liveins:
                names.append(n)
        binds = {}
        then_vals, else_vals, rebuilders = [], [], []
        for n in names:
            old = liveins.get(n)
            tv = then_scope.get(n, old)
            ev = else_scope.get(n, old)
            if tv is ev:
                binds[n] = tv
                continue
            if _is_static(tv) and _is_static(ev):
                if _unwrap(tv) == _unwrap(ev) and type(_unwrap(tv)) is type(_unwrap(ev)):
                    binds[n] = tv
                    continue
            tv, ev = self._unify(node, n, tv, ev, then_block, else_block, "the `if` and the `else` branch")
            keep = _keep_mask(tv, ev, n)
            then_vals += _kept(_flatten(tv, n)[0], keep)
            else_vals += _kept(_flatten(ev, n)[0], keep)
            rebuilders.append((n, tv, keep))
        types = [v.type for v in then_vals]
        for block, vals in ((then_block, then_vals), (else_block, else_vals)):
            if vals or block is then_block or block.ops:  # (an else without ops is an empty region)
                block.ops.append(_yield_op(vals))
        regions = [ir.Region([then_block]), ir.Region([else_block] if else_block.ops else [])]
        op = self.builder.insert(d_scf.if_(cond.handle, results=types, thenRegion=regions[0], elseRegion=regions[1]))
        results = iter(op.results)
        for n, tv, keep in rebuilders:
            binds[n] = _rebuild_kept(tv, n, keep, _hinted(results, n))
        for n, v in binds.items():
            self.set(n, v)
        return binds.get(want) if want is not None else None

    @staticmethod
    def _role_of(cond):
        """("is_warpgroup" | "is_warp", ids) when ``cond`` is txl.is_warpgroup(ids) / txl.is_warp(ids), else None."""
        role = getattr(cond, "role", None)
        return (role, tuple(getattr(cond, "role_ids", ()))) if role else None

    def _unify(self, node, name, a, b, block_a, block_b, where):
        """Makes two values of one variable the same type (materializing constexprs in their own block)."""
        if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
            pairs = [self._unify(node, name, x, y, block_a, block_b, where) for x, y in zip(a, b)]
            return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)
        if _is_aggregate(a) or _is_aggregate(b):
            if not (_is_aggregate(a) and _is_aggregate(b)) or a._txl_static() != b._txl_static():
                raise self.error(node, "`%s` is %s in %s but %s in the other" % (
                    name, _kind(a), where.split(" and ")[0], _kind(b)),
                    "give it the same kind of value on both paths (a block pointer with the same element type, "
                    "block shape and order)")
            fa, fb = self._unify(node, name, tuple(a._txl_fields()), tuple(b._txl_fields()), block_a, block_b,
                                 where)
            return a._txl_rebuild(fa), b._txl_rebuild(fb)

        def materialize(v, like, block):
            saved = self.builder.block
            self.builder.block = block
            try:
                if isinstance(like, tensor) and isinstance(like.type, (dtype, block_type)):
                    t = semantic.to_tensor(v, like.dtype)
                    if isinstance(like.type, block_type):
                        t = semantic.broadcast_to(t, like.type.shape)
                    return t
                return semantic.to_tensor(v)
            finally:
                self.builder.block = saved

        if not isinstance(a, tensor) and not isinstance(b, tensor):
            a_v, b_v = _unwrap(a), _unwrap(b)
            if not isinstance(a_v, (int, float, bool)) or not isinstance(b_v, (int, float, bool)):
                raise self.error(node, "`%s` is %r in %s and %r in the other; a value chosen at run time must be "
                                 "a number or a tensor" % (name, a_v, where.split(" and ")[0], b_v))
            ety = semantic.result_dtype(semantic.weak_dtype(a_v), semantic.weak_dtype(b_v))
            return materialize(a, tensor(None, ety), block_a), materialize(b, tensor(None, ety), block_b)
        if not isinstance(a, tensor):
            a = materialize(a, b, block_a)
        if not isinstance(b, tensor):
            b = materialize(b, a, block_b)
        if isinstance(a.type, smem_type) and isinstance(b.type, smem_type) and type(a.type) is type(b.type):
            if a.type.shape == b.type.shape and a.type.element_ty == b.type.element_ty:
                # One type on both paths; the swizzle (unless the user named one) is txl-smem-allocs' choice.
                a.type.cell.merge(b.type.cell, "`%s` selects between two shared-memory buffers" % name)
        if a.type != b.type:
            raise self.error(node, "`%s` has type %s in %s but %s in the other" % (name, a.type,
                                                                                  where.split(" and ")[0], b.type),
                             "give it the same type on both paths (e.g. convert with .to(...))")
        return a, b

    def visit_IfExp(self, node):
        cond = self.visit(node.test)
        if not isinstance(cond, tensor):
            return self.visit(node.body if _unwrap(cond) else node.orelse)
        key = "__ifexp_%d_%d" % (node.lineno, node.col_offset)  # deterministic: the IR text is the cache key
        then_fn = lambda: self.set(key, self.visit(node.body))  # noqa: E731
        else_fn = lambda: self.set(key, self.visit(node.orelse))  # noqa: E731
        val = self.runtime_if(node, cond, then_fn, else_fn, want=key)
        self.lscope.pop(key, None)
        self.local_defs.pop(key, None)
        return val

    # -- loops ------------------------------------------------------------------------------------------------
    def visit_For(self, node):
        if node.orelse:
            raise self.error(node, "`for ... else` is not supported")
        it = self.visit(node.iter)
        it = _unwrap(it)
        if isinstance(it, core.static_range):
            for i in builtins.range(it.start, it.end, it.step):
                self.assign(node.target, constexpr(i))
                self.visit_body(node.body)
            return
        if isinstance(it, (tuple, list)):
            for v in it:
                self.assign(node.target, v)
                self.visit_body(node.body)
            return
        if not isinstance(it, core.range):
            raise self.error(node.iter, "cannot iterate over %s in a kernel" % _kind(it),
                             "use range(...)/tl.range(...) (a run-time loop) or tl.static_range(...) (unrolled)")
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "the loop variable must be a single name")
        self.scf_for(node, it)

    def scf_for(self, node, it):
        bounds = [_unwrap(it.start), _unwrap(it.end), _unwrap(it.step)]
        if isinstance(bounds[2], int) and bounds[2] == 0:
            raise self.error(node.iter, "the loop step must not be zero")
        # A constant negative step counts down, as in Triton: the loop runs upwards from `end` to `start` with
        # step -s, and the variable is start + end - iv (start - k * s in iteration k; same trip count).
        negative_step = isinstance(bounds[2], int) and not isinstance(bounds[2], bool) and bounds[2] < 0
        if negative_step:
            bounds = [bounds[1], bounds[0], -bounds[2]]
        ity = core.int32
        for v in bounds:
            if isinstance(v, tensor):
                if not isinstance(v.type, dtype) or not v.dtype.is_int() or v.dtype.is_bool():
                    raise self.error(node.iter, "loop bounds must be integer scalars, got %s" % v.type)
                if v.dtype.primitive_bitwidth == 64:
                    ity = core.int64
            elif not isinstance(v, int) or isinstance(v, bool):
                raise self.error(node.iter, "loop bounds must be integers, got %r" % (v,))
        lb, ub, step = [semantic.to_tensor(v, ity) for v in bounds]
        var = node.target.id

        def body(iv):
            if negative_step:
                iv = semantic.binary("+", semantic.binary("-", ub, iv), lb)
            self.set(var, iv)
            self.visit_body(node.body)

        carried = self._carried(node, body, ity)
        liveins = dict(self.lscope)
        inits, hints = self._carried_inits(carried)
        block = ir.Block([ity] + [v.type for v in inits], [var] + hints)
        scope = dict(liveins)
        args = iter(block.args[1:])
        for n, init, _, keep in carried:
            scope[n] = _rebuild_kept(init, n, keep, args)
        iv = tensor(block.args[0], ity)
        self.loop_depth += 1
        try:
            body_scope, _ = self._run_block(block, lambda: body(iv), scope)
        finally:
            self.loop_depth -= 1
        yields = self._yields(node, carried, body_scope, block)
        block.ops.append(_yield_op(yields))
        op = self.builder.insert(d_scf.for_(lb.handle, ub.handle, step.handle, [v.handle for v in inits],
                                            results=[v.type for v in inits], region=ir.Region([block])))
        stages = _unwrap(getattr(it, "num_stages", None))
        if stages is not None:
            if not isinstance(stages, int) or isinstance(stages, bool) or stages < 1:
                raise self.error(node.iter, "tl.range num_stages must be a positive integer constant, got %r"
                                 % (stages,))
            op.discardable["txl.num_stages"] = ir.Attr("%d : i32" % stages)
        self._bind_results(carried, op.results)

    @staticmethod
    def _carried_inits(carried):
        """The initial values of the iter_args of ``carried`` (their kept leaves) and their names."""
        inits, hints = [], []
        for n, init, _, keep in carried:
            kept = _kept(_flatten(init, n)[0], keep)
            inits += kept
            hints += [n] * len(kept)
        return inits, hints

    def _bind_results(self, carried, results):
        results = iter(results)
        for n, init, _, keep in carried:
            self.set(n, _rebuild_kept(init, n, keep, _hinted(results, n)))

    def _carried(self, node, body_fn, ity, cond_fn=None):
        """Dry run of a loop body: the live-in variables it re-assigns, with their initial values converted to
        the type the body gives them. Returns [(name, init_value, body_value, keep)], ``keep`` saying which leaves
        of the value are iter_args (``_keep_mask``: all but the unchanged fields of an aggregate).

        The dry run sees a carried variable as its value before the loop; where that is a number, a condition on
        it folds (``idx = 0`` ... ``idx = (idx + 1) % S`` ... ``if idx == 0: phase ^= 1``: the first dry run never
        takes the branch, and `phase` would look unchanged). So the body runs again with the variables found
        carried as run-time values, until no new carried variable appears."""
        liveins = dict(self.lscope)
        opaque = {}  # carried name -> its init converted to a run-time value (the later dry runs see that)
        while True:
            carried = self._dry_run(node, body_fn, ity, cond_fn, liveins, opaque)
            new = [(n, init) for n, init, _ in carried if n not in opaque and _is_static(liveins[n])]
            if not new:
                break
            opaque.update(new)
        out = []
        for n, init, new in carried:
            a, b = _flatten(init, n)[0], None
            try:
                b = _flatten(new, n)[0] if not _is_static(new) else None
            except SemanticError:
                b = None
            # The kind before the types where the leaves correspond (a block pointer's IR type holds its block;
            # the kind says what changed).
            if b is not None and len(a) == len(b) and _static_key(init) != _static_key(new):
                raise self.error(node, "loop-carried variable `%s` is %s before the loop but %s at the end of the "
                                 "body" % (n, _kind(init), _kind(new)),
                                 "give it the same kind of value in every iteration (a block pointer keeps its "
                                 "element type, block shape and order: tl.advance changes only its offsets)")
            if b is not None and [x.type for x in a] != [x.type for x in b]:
                self._type_change_error(node, n, a, b)
            out.append((n, init, new, _keep_mask(init, new, n)))
        return out

    def _dry_run(self, node, body_fn, ity, cond_fn, liveins, opaque):
        """One dry run of a loop body over ``liveins`` (the names in ``opaque`` as run-time values of their
        type): [(name, init_value, body_value)] of the live-ins it re-assigns."""
        types = [ity] if ity is not None else []
        names = list(opaque)
        scratch = ir.Block(types + [opaque[n].type for n in names])
        scope = dict(liveins)
        for i, n in enumerate(names):
            scope[n] = tensor(scratch.args[len(types) + i], opaque[n].type)
        self.loop_depth += 1
        try:
            def run():
                if cond_fn is not None:
                    cond_fn()
                body_fn(tensor(scratch.args[0], ity) if ity is not None else None)
            body_scope, defs = self._run_block(scratch, run, scope)
        finally:
            self.loop_depth -= 1
        carried = []
        for n in defs:
            if n not in liveins:
                continue
            init, new = liveins[n], body_scope[n]
            if init is new:
                continue
            if _is_static(init) and _is_static(new) and _unwrap(init) == _unwrap(new) \
                    and type(_unwrap(init)) is type(_unwrap(new)):
                continue
            if not isinstance(init, tensor) and not isinstance(init, tuple) and not _is_aggregate(init):
                # A constexpr before the loop that the body changes: it becomes a run-time value of the type
                # the body computes (Triton does the same).
                like = new if isinstance(new, tensor) else None
                if like is not None and isinstance(like.type, (dtype, block_type)):
                    init = semantic.to_tensor(init, like.dtype)
                    if isinstance(like.type, block_type):
                        init = semantic.broadcast_to(init, like.type.shape)
                else:
                    try:
                        init = semantic.to_tensor(init)
                    except SemanticError:
                        raise self.error(node, "`%s` is %r before the loop and changes in the loop body; only "
                                         "numbers and tensors can be loop-carried" % (n, _unwrap(init))) from None
            carried.append((n, init, new))
        # A name a previous dry run found carried stays carried (this run's analysis assumed it run-time).
        found = {n for n, _, _ in carried}
        carried += [(n, opaque[n], body_scope.get(n, scope[n])) for n in names if n not in found]
        return carried

    def _type_change_error(self, node, n, before, after):
        tb = ", ".join(str(x.type) for x in before)
        ta = ", ".join(str(x.type) for x in after)
        raise self.error(node, "loop-carried variable `%s` has type %s before the loop but %s at the end of the "
                         "body" % (n, tb, ta),
                         "give it its final type before the loop (e.g. `%s = tl.zeros([...], tl.float32)` or "
                         "`.to(...)`)" % n)

    def _yields(self, node, carried, body_scope, block):
        out = []
        for n, init, _, keep in carried:
            v = body_scope.get(n)
            init_leaves = _flatten(init, n)[0]
            if not isinstance(v, (tensor, tuple)) and not _is_aggregate(v):
                saved = self.builder.block
                self.builder.block = block
                try:
                    v = semantic.to_tensor(v, init_leaves[0].dtype) if len(init_leaves) == 1 else v
                    if isinstance(init_leaves[0].type, block_type):
                        v = semantic.broadcast_to(v, init_leaves[0].type.shape)
                finally:
                    self.builder.block = saved
            leaves = _flatten(v, n)[0]
            if len(leaves) == len(init_leaves) and _static_key(v) != _static_key(init):
                raise self.error(node, "loop-carried variable `%s` is %s before the loop but %s at the end of the "
                                 "body" % (n, _kind(init), _kind(v)))
            if [x.type for x in leaves] != [x.type for x in init_leaves]:
                self._type_change_error(node, n, init_leaves, leaves)
            if _static_key(v) != _static_key(init):
                raise self.error(node, "loop-carried variable `%s` is %s before the loop but %s at the end of the "
                                 "body" % (n, _kind(init), _kind(v)))
            for x, y, k in zip(leaves, init_leaves, keep):
                if not k and x.handle is not y.handle:  # the dry run said this field does not change
                    raise self.error(node, "internal error of the txl frontend: a field of `%s` that the loop "
                                     "leaves unchanged in its first compilation changed in the second" % n,
                                     "please report it")
            out += _kept(leaves, keep)
        return out

    def visit_While(self, node):
        if node.orelse:
            raise self.error(node, "`while ... else` is not supported")

        def cond_fn():
            c = self.visit(node.test)
            if not isinstance(c, tensor):
                raise self.error(node.test, "a `while` condition that is known at compile time would loop forever "
                                 "or never", "use a run-time condition, or tl.static_range")

        carried = self._carried(node, lambda _: self.visit_body(node.body), None, cond_fn)
        liveins = dict(self.lscope)
        inits, hints = self._carried_inits(carried)
        types = [v.type for v in inits]

        def bind(block):
            scope, args = dict(liveins), iter(block.args)
            for n, init, _, keep in carried:
                scope[n] = _rebuild_kept(init, n, keep, args)
            return scope

        before = ir.Block(types, hints)
        cond_holder = []

        def run_cond():
            c = self.visit(node.test)
            if not isinstance(c, tensor):
                raise self.error(node.test, "the `while` condition must be a run-time value")
            cond_holder.append(self._condition(node.test, c))

        self.loop_depth += 1
        try:
            cond_scope, _ = self._run_block(before, run_cond, bind(before))
            after = ir.Block(types, hints)
            body_scope, _ = self._run_block(after, lambda: self.visit_body(node.body), bind(after))
        finally:
            self.loop_depth -= 1
        c = cond_holder[0]
        # The condition may update carried state (a desc.load in it flips its phase): the body and the loop's
        # results see the values after the condition.
        args = []
        for n, init, _, keep in carried:
            v = cond_scope.get(n)
            leaves = _flatten(v, n)[0] if isinstance(v, (tensor, tuple)) or _is_aggregate(v) else None
            if leaves is None or [x.type for x in leaves] != [x.type for x in _flatten(init, n)[0]] \
                    or _static_key(v) != _static_key(init):
                leaves = [tensor(a, a.type) for a in before.args[len(args):len(args) + sum(keep)]]
            else:
                leaves = _kept(leaves, keep)
            args += [x.handle for x in leaves]
        before.ops.append(d_scf.condition(c.handle, list(args)))
        yields = self._yields(node, carried, body_scope, after)
        after.ops.append(_yield_op(yields))
        op = self.builder.insert(d_scf.while_([v.handle for v in inits], results=types,
                                              before=ir.Region([before]), after=ir.Region([after])))
        self._bind_results(carried, op.results)

    def visit_With(self, node):
        """``with pl.scope("name"):`` (proton, TXL's or Triton's): the body is compiled as it is; txl has no
        proton instrumentation. Other context managers do not exist in kernels."""
        for item in node.items:
            expr = item.context_expr
            try:  # only `with <proton>.scope(...)` is a kernel construct: look at the callee first
                callee = _unwrap(self.visit(expr.func)) if isinstance(expr, ast.Call) else None
            except CompilationError:
                callee = None
            if not (isinstance(callee, type) and _is_proton_scope_class(callee)):
                raise self.error(expr, "unsupported Python construct: `with` statement", _UNSUPPORTED_FIX["With"])
            ctx = _unwrap(self.visit(expr))
            if item.optional_vars is not None:
                self.assign(item.optional_vars, ctx)
        self.visit_body(node.body)

    # -- expressions ------------------------------------------------------------------------------------------
    def visit_Constant(self, node):
        return constexpr(node.value)

    def visit_Name(self, node):
        return self.lookup(node.id, node)

    def visit_Tuple(self, node):
        return tuple(self._elts(node.elts))

    def visit_List(self, node):
        return list(self._elts(node.elts))

    def _elts(self, elts):
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out += list(_unwrap(self.visit(e.value)))
            else:
                out.append(self.visit(e))
        return out

    def visit_JoinedStr(self, node):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            else:
                val = self.visit(v.value)
                if isinstance(val, tensor):
                    raise self.error(v, "f-strings can only format compile-time values",
                                     "pass run-time values to txl.print(prefix, value) instead")
                spec = self.visit(v.format_spec) if v.format_spec is not None else constexpr("")
                parts.append(format(_unwrap(val), _unwrap(spec)))
        return constexpr("".join(parts))

    def visit_Attribute(self, node):
        obj = self.visit(node.value)
        if isinstance(obj, tensor):
            for hook in ATTRIBUTE_HOOKS:  # a language layered on txl's (Gluon: a descriptor's .layout) asks first
                value = hook(self, obj, node.attr)
                if value is not NotImplemented:
                    return _wrap(value)
            if node.attr not in core.TENSOR_ATTRS:
                raise self.error(node, "%s has no attribute `%s`" % (_kind(obj), node.attr))
            value = getattr(obj, node.attr)
            if isinstance(value, Refused):  # x.gather: refused as tl.gather is
                raise self.error(node, value.message(ast.unparse(node)), value.instead)
            return _wrap(value)
        base = _unwrap(obj)
        try:
            value = getattr(base, node.attr)
        except AttributeError as e:
            if isinstance(base, types.ModuleType) and base.__name__.split(".")[0] == "txl":
                # txl.language's __getattr__ says whether Triton has the name (txl/language/triton_api.py).
                raise self.error(node, str(e)) from None
            raise self.error(node, "%s has no attribute `%s`" % (_kind(obj), node.attr)) from None
        if isinstance(value, Refused):
            raise self.error(node, value.message(ast.unparse(node)), value.instead)
        return _wrap(value)

    def visit_Subscript(self, node):
        obj = self.visit(node.value)
        idx = self._slice(node.slice)
        if isinstance(obj, tensor):
            return semantic.subscript(obj, idx)
        base = _unwrap(obj)
        if isinstance(base, (tuple, list, str)) or hasattr(base, "__getitem__"):
            key = _unwrap(idx)
            if isinstance(key, tensor):
                raise self.error(node, "a tuple can only be indexed with a compile-time integer")
            try:
                return _wrap(base[key])
            except (IndexError, KeyError, TypeError) as e:
                raise self.error(node, "bad index: %s" % e) from None
        raise self.error(node, "%s cannot be indexed" % _kind(obj))

    def _slice(self, node):
        if isinstance(node, ast.Slice):
            parts = [None if p is None else _unwrap(self.visit(p)) for p in (node.lower, node.upper, node.step)]
            return slice(*parts)
        if isinstance(node, ast.Tuple):
            return tuple(self._slice(e) for e in node.elts)
        return self.visit(node)

    def visit_BinOp(self, node):
        return self.binop(node, node.left, node.op, node.right)

    def binop(self, node, left_node, op, right_node):
        lhs = self.visit(left_node) if isinstance(left_node, ast.AST) else left_node
        rhs = self.visit(right_node)
        if isinstance(op, ast.MatMult) and not (_is_static(lhs) and _is_static(rhs)):
            raise self.error(node, "`@` (matrix product) is not an operator on txl tiles",
                             "use tl.dot(a, b), or tl.dot(a, b, acc) to accumulate into acc")
        if type(op) not in _PY_BINOPS:
            raise self.error(node, "operator %s is not supported" % type(op).__name__)
        name, fn = _PY_BINOPS[type(op)]
        lv, rv = _unwrap(lhs), _unwrap(rhs)
        if name == "+" and isinstance(lv, (tuple, list)) and isinstance(rv, (tuple, list)):
            if type(lv) is not type(rv):
                raise self.error(node, "cannot concatenate a %s and a %s" % (type(lv).__name__, type(rv).__name__))
            return lv + rv  # `accs = accs + (acc,)`: tuples of tiles are compile-time containers
        if name == "*" and (isinstance(lv, (tuple, list)) and isinstance(rv, int)
                            or isinstance(rv, (tuple, list)) and isinstance(lv, int)):
            return lv * rv
        if _is_static(lhs) and _is_static(rhs):
            try:
                return _wrap(fn(_unwrap(lhs), _unwrap(rhs)))
            except Exception as e:
                raise self.error(node, "cannot compute %s at compile time: %s" % (ast.unparse(node)
                                                                                 if isinstance(node, ast.BinOp)
                                                                                 else name, e)) from None
        if name == "**":
            raise self.error(node, "`**` on run-time values is not supported",
                             "use tl.exp2(y * tl.log2(x)) or multiply")
        if name == "@":
            raise self.error(node, "`@` is not supported", "use tl.dot(a, b)")
        for v in (lhs, rhs):
            if isinstance(v, tensor) and v.role:
                raise self.error(node, "txl.%s(...) must be used directly as an `if` condition" % v.role)
        try:
            return semantic.binary(name, lhs, rhs)
        except ShapeMismatchError as e:
            raise self.error(node, e.message, self._shape_fix(node, e, left_node, right_node)) from None

    def _shape_fix(self, node, e, left=None, right=None):
        """For a rank mismatch, name the 1-D operand to turn into a column: `offs[:, None]`."""
        if left is None and isinstance(node, ast.BinOp):
            left, right = node.left, node.right
        if not isinstance(left, ast.AST) or right is None:
            return "check the shapes of both operands; use x[:, None] / x[None, :] to add a dimension"
        if len(e.lhs_shape) == len(e.rhs_shape):
            return ("the shapes have the same rank but differ; check the tile sizes (tl.arange lengths, BLOCK "
                    "constants) of both operands")
        side, other = (left, e.rhs_shape) if len(e.lhs_shape) < len(e.rhs_shape) else (right, e.lhs_shape)
        cands = []
        for sub in ast.walk(side):
            if isinstance(sub, ast.Name) and sub.id in self.lscope:
                v = self.lscope[sub.id]
                if isinstance(v, tensor) and isinstance(v.type, block_type) and len(v.type.shape) == 1 \
                        and sub.id not in cands:
                    cands.append(sub.id)
        if cands and len(other) == 2:
            n = self.lscope[cands[0]].type.shape[0]
            col_ok = other[0] in (1, n)
            if col_ok:
                return ("`%s` is a 1-D index vector and broadcasts as a row; to index rows with it, make it a "
                        "column: write `%s[:, None]` (shape [%d, 1]), which broadcasts with %s to [%d, %d]"
                        % (cands[0], cands[0], n, other, n, other[1]))
            return ("`%s` (shape [%d]) broadcasts as a row; write `%s[None, :]` or `%s[:, None]` to say which "
                    "dimension it indexes" % (cands[0], n, cands[0], cands[0]))
        return "add the missing dimension with x[:, None] (column) or x[None, :] (row)"

    def visit_UnaryOp(self, node):
        v = self.visit(node.operand)
        if _is_static(v):
            x = _unwrap(v)
            fn = {ast.USub: lambda: -x, ast.UAdd: lambda: +x, ast.Not: lambda: not x, ast.Invert: lambda: ~x}
            return _wrap(fn[type(node.op)]())
        if isinstance(node.op, ast.USub):
            return semantic.neg(v)
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.Not):
            return semantic.logical_not(v)
        return semantic.invert(v)

    def visit_Compare(self, node):
        if len(node.ops) != 1:
            raise self.error(node, "chained comparisons (a < b < c) are not supported", "write (a < b) & (b < c)")
        lhs = self.visit(node.left)
        rhs = self.visit(node.comparators[0])
        op = node.ops[0]
        if isinstance(op, (ast.Is, ast.IsNot)):
            if not _is_static(lhs) or not _is_static(rhs):
                same = lhs is rhs
            else:
                same = _unwrap(lhs) is _unwrap(rhs) or (_unwrap(lhs) is None and _unwrap(rhs) is None)
            return constexpr(same if isinstance(op, ast.Is) else not same)
        if isinstance(op, (ast.In, ast.NotIn)):
            if not _is_static(lhs) or not _is_static(rhs):
                raise self.error(node, "`in` only works on compile-time values")
            r = _unwrap(lhs) in [_unwrap(x) for x in _unwrap(rhs)]
            return constexpr(r if isinstance(op, ast.In) else not r)
        name = _PY_CMPS[type(op)]
        if _is_static(lhs) and _is_static(rhs):
            return constexpr(_PY_CMP_FN[name](_unwrap(lhs), _unwrap(rhs)))
        try:
            return semantic.compare(name, lhs, rhs)
        except ShapeMismatchError as e:
            raise self.error(node, e.message, self._shape_fix(node, e, node.left, node.comparators[0])) from None

    def visit_BoolOp(self, node):
        is_and = isinstance(node.op, ast.And)
        result = self.visit(node.values[0])
        for vnode in node.values[1:]:
            if _is_static(result):
                # Python short-circuit on compile-time values.
                if bool(_unwrap(result)) != is_and:
                    return result
                result = self.visit(vnode)
                continue
            rhs = self.visit(vnode)
            if _is_static(rhs):
                if bool(_unwrap(rhs)) == is_and:
                    continue  # x and True == x ; x or False == x
                return rhs
            result = semantic.logical("and" if is_and else "or", result, rhs)
        return result

    # -- calls ------------------------------------------------------------------------------------------------
    def visit_Call(self, node):
        fn = self.visit(node.func)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args += list(_unwrap(self.visit(a.value)))
            else:
                args.append(self.visit(a))
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                kwargs.update(_unwrap(self.visit(kw.value)))
            else:
                kwargs[kw.arg] = self.visit(kw.value)
        fn = _unwrap(fn)
        if is_jit_function(fn):
            return self.call_jit(node, fn, args, kwargs)
        if _is_proton_noop(fn):  # pl.enter_scope("x") / pl.exit_scope("x"): txl has no proton instrumentation
            return constexpr(None)
        if _foreign_jit_fn(fn) is not None:  # a @triton.jit helper: inlined like a @txl.jit one
            return self.call_jit(node, fn, args, kwargs)
        if getattr(fn, "__txl_builtin__", False):
            _check_builtin_args(fn, args, kwargs)
            saved, self.cur_call = self.cur_call, node
            try:
                return _wrap(fn(*args, **kwargs))
            finally:
                self.cur_call = saved
        if fn in _PY_BUILTIN_IMPLS:
            return _PY_BUILTIN_IMPLS[fn](self, node, args, kwargs)
        if isinstance(fn, dtype):  # `tl.float32(0.0)`: Triton 3.6 refuses it too ('dtype' object is not callable)
            name = "tl." + core._DTYPE_PY_NAMES.get(fn.name, fn.name)
            raise self.error(node, "%s is a dtype, not a function: dtypes cannot be called (Triton refuses it too: "
                             "'dtype' object is not callable)" % name,
                             "for a value of that type write tl.full((), value, %s) (a scalar) or value.to(%s)"
                             % (name, name))
        if isinstance(fn, type) and issubclass(fn, (core.range, core.static_range)):
            return fn(*args, **kwargs)
        if all(_is_static(a) for a in args) and all(_is_static(v) for v in kwargs.values()):
            # A compile-time helper (math.log2, a layout class, a Python function on constexprs).
            if inspect.isfunction(fn) and not fn.__module__.startswith(("math", "txl.")):
                pass
            return _wrap(fn(*[_unwrap(a) for a in args], **{k: _unwrap(v) for k, v in kwargs.items()}))
        name = getattr(fn, "__name__", repr(fn))
        raise self.error(node, "`%s` is a plain Python function and cannot take run-time values" % name,
                         "decorate it with @txl.jit so that it is compiled (inlined) into the kernel")

    def call_jit(self, node, jfn, args, kwargs):
        info = _info(jfn)
        if info.fn in self.call_stack:
            raise self.error(node, "recursive call of @txl.jit function %s" % info.name)
        try:
            bound = info.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise self.error(node, "bad arguments for %s: %s" % (info.name, e)) from None
        bound.apply_defaults()
        scope = {}
        # A run-time value for a tl.constexpr parameter of a device function binds as it is, as in Triton
        # (its tutorial 06 passes offs_m = tl.arange(...) so): the annotation only matters for values that are
        # compile-time already.
        for name, v in bound.arguments.items():
            scope[name] = _wrap(v)
        gen = CodeGenerator(info, self.ctx, scope, self.call_stack)
        gen.is_kernel = False
        gen.loop_depth = self.loop_depth
        gen.roles = self.roles
        gen.site_path = self.site_path + (node,)
        prev = self.ctx.codegen
        self.ctx.codegen = gen
        try:
            gen.visit_body(_lower_early_returns(info.node.body))
        finally:
            self.ctx.codegen = prev
        return gen.ret_value

    is_kernel = True


_PROTON_MODULES = ("triton.profiler.language", "txl.profiler.language", "teraxlang.profiler.language",
                   "triton.intraprof.language")


def _is_proton_noop(fn):
    """proton's in-kernel enter_scope / exit_scope / record (Triton's or txl.profiler.language's)."""
    return getattr(fn, "__module__", None) in _PROTON_MODULES and \
        getattr(fn, "__name__", None) in ("enter_scope", "exit_scope", "record")


def _is_proton_scope_class(cls):
    """proton's ``scope`` class (``with pl.scope("name"):``), TXL's / Triton's or txl.profiler.language's."""
    return getattr(cls, "__txl_null_context__", False) or (cls.__module__ in _PROTON_MODULES
                                                           and cls.__name__ == "scope")


def _is_bare_return(s):
    return isinstance(s, ast.Return) and s.value is None


def _may_return(stmts):
    """A bare `return` is among these statements or in the branches of their `if`s (not inside loops)."""
    return any(_is_bare_return(s) or (isinstance(s, ast.If) and (_may_return(s.body) or _may_return(s.orelse)))
               for s in stmts)


def _lower_early_returns(stmts):
    """Early returns without a value (``if pid >= n: return``) as structured control flow: the statements after
    an `if` one of whose branches may return move into both branches (each branch then ends at its return), and
    a return that ends the function goes. Returns inside loops and returns of values are left for visit_Return
    to refuse."""
    out = []
    for i, s in enumerate(stmts):
        if _is_bare_return(s) and i == len(stmts) - 1:
            return out
        if isinstance(s, ast.If) and (_may_return(s.body) or _may_return(s.orelse)):
            rest = list(stmts[i + 1:])
            rest_copy = copy.deepcopy(rest)  # the two branches get their own nodes (call sites are keyed by node)
            body = s.body if s.body and _is_bare_return(s.body[-1]) else s.body + rest
            orelse = s.orelse if s.orelse and _is_bare_return(s.orelse[-1]) else s.orelse + rest_copy
            new = ast.If(test=s.test, body=_lower_early_returns(body), orelse=_lower_early_returns(orelse))
            out.append(ast.copy_location(new, s))
            return out
        out.append(s)
    return out


_UNSUPPORTED_FIX = {
    "With": "txl kernels have no context managers; write the code without `with`",
    "Try": "exceptions do not exist on the GPU; remove the try/except",
    "Lambda": "define a @txl.jit function instead",
    "ListComp": "list comprehensions are not supported; build tuples with tl.static_range loops",
    "DictComp": None, "SetComp": None, "GeneratorExp": None,
    "Raise": "use tl.static_assert(cond, msg) for compile-time checks",
    "Global": None, "Nonlocal": None, "Delete": None, "Import": "import modules at the top of the file",
    "ImportFrom": "import modules at the top of the file",
    "FunctionDef": "define helper functions at module level with @txl.jit",
    "ClassDef": None, "Dict": None, "Set": None, "Await": None, "Yield": None, "NamedExpr": None,
    "Match": None,
}


_BUILTIN_SIGNATURES = {}


def _builtin_name(fn):
    """How kernels spell a builtin: tl.arange, txl.mbar_wait, tensor.to."""
    mod = getattr(fn, "__module__", "") or ""
    name = getattr(fn, "__qualname__", getattr(fn, "__name__", "?"))
    if "." in name:  # a tensor / descriptor method
        return name
    if mod.endswith("txl_builtins"):
        return "txl." + name
    if mod.endswith("libdevice"):
        return "libdevice." + name
    return "tl." + name


def _check_builtin_args(fn, args, kwargs):
    """Binds a builtin's arguments to its signature first, so that a wrong call (``tl.arange(64)``,
    ``tl.load(p, msk=m)``) is a user error that names the real signature, not a TypeError from inside the
    frontend."""
    # A method (x.to(...)) is checked through its function, with the receiver as `self`: bound methods are new
    # objects on every access and would grow the cache without bound.
    if inspect.ismethod(fn):
        args = (fn.__self__,) + tuple(args)
        fn = fn.__func__
    sig = _BUILTIN_SIGNATURES.get(fn)
    if sig is None:
        try:
            sig = _BUILTIN_SIGNATURES[fn] = inspect.signature(fn)
        except (TypeError, ValueError):
            return
    try:
        sig.bind(*args, **kwargs)
    except TypeError as e:
        name = _builtin_name(fn)
        params = str(sig)
        if "." in name and params.startswith("(self"):  # methods: the tensor is the receiver
            params = "(" + params[len("(self"):].lstrip(", ")
        raise SemanticError("wrong arguments for %s: %s" % (name, e),
                            "call it as %s%s" % (name, params)) from None


def _describe(node):
    names = {"With": "`with` statement", "Try": "`try` statement", "Lambda": "lambda", "ListComp":
             "list comprehension", "DictComp": "dict comprehension", "SetComp": "set comprehension",
             "GeneratorExp": "generator expression", "Raise": "`raise` statement", "Global": "`global`",
             "Nonlocal": "`nonlocal`", "Delete": "`del`", "Import": "`import` inside a kernel",
             "ImportFrom": "`import` inside a kernel", "FunctionDef": "nested function definition",
             "ClassDef": "class definition", "Dict": "dict literal", "Set": "set literal", "Await": "`await`",
             "Yield": "`yield`", "NamedExpr": "`:=`", "Match": "`match` statement"}
    n = type(node).__name__
    return names.get(n, n)


def _kind(v):
    if isinstance(v, tensor):
        return "a value of type %s" % v.type
    if _is_aggregate(v):
        return v._txl_describe()
    return "%r" % (_unwrap(v),)


def _to_load(target):
    t = ast.parse(ast.unparse(target), mode="eval").body
    return ast.copy_location(t, target) if hasattr(target, "lineno") else t


def _yield_op(vals):
    return d_scf.yield_([v.handle for v in vals])


# ----------------------------------------------------------------------------------------------------------------
# Python builtins inside kernels
# ----------------------------------------------------------------------------------------------------------------
def _b_range(gen, node, args, kwargs):
    return core.range(*args, **kwargs)


def _b_len(gen, node, args, kwargs):
    v = _unwrap(args[0])
    if isinstance(v, tensor):
        return constexpr(v.shape[0].value if v.shape else 1)
    return constexpr(len(v))


def _minmax(kind):
    def impl(gen, node, args, kwargs):
        vals = list(args)
        if len(vals) == 1 and isinstance(_unwrap(vals[0]), (tuple, list)):
            vals = list(_unwrap(vals[0]))
        if all(_is_static(v) for v in vals):
            return _wrap((builtins.min if kind == "min" else builtins.max)(_unwrap(v) for v in vals))
        r = vals[0]
        for v in vals[1:]:
            r = semantic.minmax(kind, r, v)
        return r
    return impl


def _b_print(gen, node, args, kwargs):
    from ..language.txl_builtins import print as txl_print
    if args and isinstance(_unwrap(args[0]), str):
        return txl_print(args[0], list(args[1:]))
    return txl_print("", list(args))


def _b_conv(pytype):
    def impl(gen, node, args, kwargs):
        v = args[0] if args else constexpr(pytype())
        if isinstance(v, tensor):
            target = {int: "tl.int32", float: "tl.float32", bool: "tl.int1"}[pytype]
            raise gen.error(node, "%s() of a run-time value" % pytype.__name__, "use x.to(%s)" % target)
        return _wrap(pytype(*[_unwrap(a) for a in args]))
    return impl


def _b_abs(gen, node, args, kwargs):
    v = args[0]
    if isinstance(v, tensor):
        return semantic.abs_(v)
    return _wrap(builtins.abs(_unwrap(v)))


def _b_static(fn):
    def impl(gen, node, args, kwargs):
        if not all(_is_static(a) for a in args):
            raise gen.error(node, "%s() only works on compile-time values here" % fn.__name__)
        return _wrap(fn(*[_unwrap(a) for a in args], **{k: _unwrap(v) for k, v in kwargs.items()}))
    return impl


def _b_isinstance(gen, node, args, kwargs):
    v, t = args[0], _unwrap(args[1])
    if isinstance(v, tensor):
        return constexpr(isinstance(v, t))
    return constexpr(isinstance(_unwrap(v), t) or isinstance(v, t))


def _b_enumerate(gen, node, args, kwargs):
    return tuple((constexpr(i), x) for i, x in enumerate(_unwrap(args[0])))


def _b_zip(gen, node, args, kwargs):
    return tuple(zip(*[_unwrap(a) for a in args]))


_PY_BUILTIN_IMPLS = {
    builtins.range: _b_range, builtins.len: _b_len, builtins.min: _minmax("min"), builtins.max: _minmax("max"),
    builtins.print: _b_print, builtins.int: _b_conv(int), builtins.float: _b_conv(float),
    builtins.bool: _b_conv(bool), builtins.abs: _b_abs, builtins.isinstance: _b_isinstance,
    builtins.tuple: _b_static(tuple), builtins.list: _b_static(list), builtins.getattr: _b_static(getattr),
    builtins.hasattr: _b_static(hasattr), builtins.enumerate: _b_enumerate, builtins.zip: _b_zip,
    builtins.str: _b_static(str), builtins.round: _b_static(round), builtins.divmod: _b_static(divmod),
    builtins.pow: _b_static(pow), builtins.sum: _b_static(builtins.sum), builtins.all: _b_static(all),
    builtins.any: _b_static(any), builtins.type: _b_static(type), builtins.sorted: _b_static(sorted),
    builtins.reversed: _b_static(lambda x: tuple(reversed(x))),
}
_BUILTIN_NAMES = {f.__name__: f for f in _PY_BUILTIN_IMPLS if hasattr(f, "__name__")}
_BUILTIN_NAMES.update({"True": constexpr(True), "False": constexpr(False), "None": constexpr(None)})


# ----------------------------------------------------------------------------------------------------------------
# Entry point
# ----------------------------------------------------------------------------------------------------------------
def ast_to_ir(jit_fn, signature, constexprs, *, num_warps=4, num_warpgroups=1, target="sm_90a", num_stages=None,
              num_ctas=1):
    """The txl IR text (an MLIR module) of ``jit_fn`` specialised for ``signature`` and ``constexprs``.

    ``signature`` maps each run-time parameter to a Triton signature string; ``constexprs`` maps compile-time
    parameters (``tl.constexpr``-annotated, or Triton's specialisation of an integer equal to 1) to their values.
    The kernel's parameters are the function's parameters that are not constexprs, in order. ``num_warps`` is per
    warpgroup (TXL's convention): the block has ``num_warps * num_warpgroups`` warps. ``num_stages`` is Triton's
    pipeline depth for the kernel's loops (default 3, as Triton's; a loop's ``tl.range(..., num_stages=)`` wins).
    ``num_ctas``: CTAs per thread-block cluster (Triton's option: ``txl.num_ctas`` on the kernel).
    """
    try:
        signature, constexprs = _check_specialisation(jit_fn, signature, constexprs)
        return _ast_to_ir(jit_fn, signature, constexprs, num_warps, num_warpgroups, target,
                          DEFAULT_NUM_STAGES if num_stages is None else num_stages, num_ctas)
    except CompilationError as e:
        raise e.with_traceback(None) from None
    except (TypeError, ValueError, SyntaxError, OSError):
        raise  # not a @txl.jit function / no source: a caller error, not a kernel error
    except Exception as e:
        if os.environ.get("TXL_FRONTEND_DEBUG"):
            raise
        info = _info(jit_fn)
        err = CodeGenerator(info, semantic.Context(None, 4, 1, target), {}).error(
            info.node, "internal error of the txl frontend while finishing the module (%s: %s)"
            % (type(e).__name__, e), "please report it (set TXL_FRONTEND_DEBUG=1 for the Python traceback)")
        raise err.with_traceback(None) from None


_SIGNATURE_FORMS = "'*bf16' (a pointer), 'i32' / 'i64' / 'fp32' (a scalar), 'tensordesc<bf16[128, 64]>' (a TMA " \
    "descriptor)"


def _check_specialisation(jit_fn, signature, constexprs):
    """``signature`` and ``constexprs`` as dicts keyed by parameter name; anything else is a CompilationError at
    the kernel's ``def`` that names the parameter and the accepted forms (not a ValueError from ``dict()``)."""
    info = _info(jit_fn)
    params = ", ".join(info.signature.parameters)

    def err(msg, fix):
        return CodeGenerator(info, semantic.Context(None, 4, 1, "sm_90a"), {}).error(info.node, msg, fix)

    if signature is None:
        signature = {}
    if not isinstance(signature, dict):
        raise err("the signature must be a dict {parameter name: type string}, got %s %r"
                  % (type(signature).__name__, signature),
                  "e.g. signature={'x_ptr': '*fp32', 'n': 'i32'}; the accepted types: " + _SIGNATURE_FORMS)
    for name, ty in signature.items():
        if not isinstance(name, str):
            raise err("signature key %r is not a parameter name (a string)" % (name,),
                      "key the signature by parameter name (%s), e.g. {'x_ptr': '*fp32'}" % params)
        if not isinstance(ty, (str, dtype)):
            raise err("parameter %r: the signature type must be a string, got %s %r" % (name, type(ty).__name__, ty),
                      "use one of " + _SIGNATURE_FORMS + "; constexpr values go in constexprs={...}")
    if constexprs is None:
        constexprs = {}
    if not isinstance(constexprs, dict):
        raise err("constexprs must be a dict {parameter name: value}, got %s %r"
                  % (type(constexprs).__name__, constexprs),
                  "e.g. constexprs={'BLOCK': 1024}")
    for name in constexprs:
        if not isinstance(name, str):
            raise err("constexprs key %r is not a parameter name (a string)" % (name,),
                      "key constexprs by parameter name (%s), e.g. {'BLOCK': 1024}" % params)
    return dict(signature), dict(constexprs)


# Triton's default pipeline depth (num_stages) on Hopper.
DEFAULT_NUM_STAGES = 3


def _ast_to_ir(jit_fn, signature, constexprs, num_warps, num_warpgroups, target, num_stages, num_ctas=1):
    info = _info(jit_fn)
    signature = dict(signature or {})
    constexprs = dict(constexprs or {})
    fnode = info.node
    gen0 = CodeGenerator(info, semantic.Context(None, num_warps, num_warpgroups, target), {})

    def err(msg, fix=None, node=fnode):
        return gen0.error(node, msg, fix)

    if not isinstance(num_warps, int) or num_warps < 1:
        raise err("num_warps must be a positive integer, got %r" % (num_warps,))
    # num_warps: the warps that run one copy of the body. 8 or 16 (Triton's meaning: warps per CTA) give
    # warpgroups that split each dot's M; 1 or 2 (Triton's small configs) run without a warpgroup, their dots on
    # mma.sync; num_warpgroups > 1 is TXL's warp specialization, 4 warps per role.
    if num_warps not in (1, 2) and (num_warps % 4 or num_warps > 32):
        raise err("num_warps=%d: txl takes 1, 2 or whole warpgroups (a multiple of 4 up to 32), as Triton does "
                  "with powers of two" % num_warps)
    if num_warps != 4 and num_warpgroups != 1:
        raise err("num_warps=%d with num_warpgroups=%d: warp-specialized kernels run one warpgroup (num_warps=4) "
                  "per role; use num_warps=4 with num_warpgroups, or num_warps=%d alone"
                  % (num_warps, num_warpgroups, num_warps))
    if not isinstance(num_stages, int) or isinstance(num_stages, bool) or num_stages < 1:
        raise err("num_stages must be a positive integer (1: no pipelining), got %r" % (num_stages,))
    if not isinstance(num_warpgroups, int) or num_warpgroups < 1:
        raise err("num_warpgroups must be a positive integer, got %r" % (num_warpgroups,))
    consts = info.constexpr_params()
    params = list(info.signature.parameters.items())
    arg_nodes = {a.arg: a for a in fnode.args.args}
    known = set(n for n, _ in params)
    for k in list(signature) + list(constexprs):
        if k not in known:
            raise err("`%s` is not a parameter of %s (parameters: %s)" % (k, info.name, ", ".join(known)))

    builder = ir.Builder()
    entry = ir.Block()
    builder.block = builder.entry = entry
    ctx = semantic.Context(builder, num_warps, num_warpgroups, target)
    ctx.num_ctas = num_ctas  # CTAs per cluster (TXL splits a tile over them: txl.warp_max / warp_sum)
    ctx.debug = bool(getattr(jit_fn, "debug", False)) or any(
        os.environ.get(v, "").strip().lower() not in ("", "0", "false") for v in ("TRITON_DEBUG", "TXL_DEBUG"))
    lscope, arg_types, arg_names = {}, [], []
    entry_divisible = set()
    for name, p in params:
        node = arg_nodes.get(name, fnode)
        if name in constexprs:
            lscope[name] = _wrap(constexprs[name])
            continue
        sig = signature.get(name)
        if sig is not None and str(sig).strip() == "constexpr":
            sig = None
        if name in consts or sig is None:
            if p.default is not inspect.Parameter.empty and (name in consts or sig is None):
                lscope[name] = _wrap(p.default)
                continue
            if name in consts:
                raise err("tl.constexpr parameter `%s` has no value" % name,
                          "pass it in constexprs (e.g. %s=128) or give it a default" % name, node)
            raise err("parameter `%s` has no signature type" % name,
                      "add it to the signature, e.g. {'%s': '*bf16'} / 'i32' / 'fp32' / "
                      "'tensordesc<bf16[128, 64]>'" % name, node)
        try:
            ty = parse_signature_type(sig, name)
        except SemanticError as e:
            raise err(e.message, e.fix, node) from None
        v = entry.add_arg(ty, name)
        if str(sig).replace(" ", "").endswith(":16"):  # the ":16" specialisation: divisible by 16 (bytes for
            entry_divisible.add(v)                     # pointers, i.e. 16-byte aligned)
        arg_types.append(ty)
        arg_names.append(name)
        lscope[name] = tensor(v, ty)

    gen = CodeGenerator(info, ctx, lscope)
    gen.is_kernel = True
    ctx.codegen = gen
    with semantic.activate(ctx):
        gen.visit_body(_lower_early_returns(fnode.body))
        semantic.finalize_dots(ctx)
    entry.ops = builder.hoisted + entry.ops
    # One copy of the body on all the warps (their warpgroups split each dot's M), unless the kernel gives its
    # warps or warpgroups roles of their own (TXL's warp specialization, txl.warpgroup_id()).
    if num_warps < 4 and _uses_roles(entry):
        raise err("num_warps=%d: txl.warpgroup_id() / is_warpgroup / is_warp give whole warpgroups roles, and a "
                  "kernel of %d warps has no warpgroup" % (num_warps, num_warps), "launch it with num_warps=4")
    # (a kernel of 1 or 2 warps is one role of its txl.num_warps warps: the compiler reads that, no attribute)
    role_warps = num_warps if num_warps in (8, 16, 32) and not _uses_roles(entry) else 4
    # (tl.make_tensor_descriptor's hidden scratch parameter and slots are txl-global-scratch's)
    return _print_module(info.name, entry, num_warps * num_warpgroups, num_stages, target,
                         gen.source_loc(fnode), entry_divisible, role_warps=role_warps, num_ctas=num_ctas)


_ROLE_OPS = ("txl.is_warp", "txl.is_warpgroup", "txl.warpgroup_id")


def _uses_roles(block):
    return any(op.name in _ROLE_OPS or any(_uses_roles(b) for r in op.regions for b in r.blocks)
               for op in block.ops)


def _print_module(name, entry, total_warps, num_stages, target, loc=None, divisible=(), role_warps=4, num_ctas=1):
    arg_attrs = []
    for a in entry.args:
        attrs = []
        if a in divisible:  # txl-vectorize-accesses proves aligned vector accesses from it
            attrs.append("txl.divisibility = 16 : i32")
        arg_attrs.append("{%s}" % ", ".join(attrs))
    entry.ops.append(d_func.return_([]))
    fn = d_func.func(sym_name=name, function_type=ir.Attr("(%s) -> ()" % ", ".join(str(a.type) for a in entry.args)),
                     arg_attrs=ir.Attr("[%s]" % ", ".join(arg_attrs)) if any(x != "{}" for x in arg_attrs) else None,
                     body=ir.Region([entry]))
    fn.discardable = {"txl.kernel": True, "txl.num_stages": ir.Attr("%d : i32" % num_stages),
                      "txl.num_warps": ir.Attr("%d : i32" % total_warps)}
    # txl.role_warps: the warps of one copy of the body, when wider than a warpgroup (num_warps = 8).
    if role_warps != 4:
        fn.discardable["txl.role_warps"] = ir.Attr("%d : i32" % role_warps)
    if num_ctas != 1:  # a thread-block cluster of num_ctas CTAs per program
        fn.discardable["txl.num_ctas"] = ir.Attr("%d : i32" % num_ctas)
    # The kernel's own location (its `def` line): kernel-wide errors (shared memory over 227 KB, register budgets)
    # then point at the user's file, not at the temporary .mlir.
    fn.loc = loc
    body = ir.Block()
    body.ops.append(fn)
    module = d_builtin.module(bodyRegion=ir.Region([body]))
    module.discardable["txl.target"] = ir.Attr('"%s"' % target)
    return ir.Printer().print_op(module, 0)
