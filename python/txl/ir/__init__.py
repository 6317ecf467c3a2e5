"""A minimal in-memory IR that the frontend builds and prints as MLIR text.

The bottom layer of the Python package: ``txl.ir`` (this tree, ``dialects.py`` and its generator) and
``txl.errors`` import nothing else from txl; ``txl.language`` builds ops through them; ``txl.compiler`` (the
code generator and the txlc driver) imports the language; ``txl.jit`` and ``txl.runtime`` sit above it. Neither
this package nor the language imports upward (``test_import_layers.py``); the host-side compiler, jit and runtime
modules still import each other lazily (docs/ARCHITECTURE.md).

The frontend does not link against MLIR: it builds a small tree of operations (``Op``) with regions and blocks,
then prints it as MLIR text for txlc. Ops are made only by the builders of ``dialects.py``, which ``gen_ops.py``
generates from the ops' ODS (TXLOps.td and upstream arith, math, scf, func, builtin): ``build_op`` checks an op
against its ODS description when it is built (operand and result arity, optional and variadic operands, attribute
names and kinds, enum cases, regions), and the ``Printer`` prints it from the same description -- in the op's
declarative assembly format where ODS has one, else in MLIR's generic form (``"scf.for"(...) ({...}) : (...) ->
...``) -- so no op syntax is written by hand here or in the frontend.

Keeping a tree (rather than appending strings) lets the frontend

* finish types late: types print lazily, so a swizzle the user names for a buffer (Gluon's shared layouts) shows
  on every use of it and of the buffers control flow joins with it (any other swizzle is txl-smem-allocs' choice);
* hoist scalar constants (deduplicated) and allocations to the top of the kernel (what nothing reads, there or
  anywhere, is txlc's first stage's to erase: txl-erase-dead-values);
* mark a ``txl.dot`` asynchronous once it is known that a ``txl.dot_wait`` follows it.
"""

import re

REQUIRED = object()  # a generated builder's default for a required operand that follows an optional one


class OpBuildError(TypeError):
    """An op built against its ODS description: a bug of the frontend, reported as an internal error."""


class Value:
    """An SSA value: the result of an op or a block argument. ``type`` is a ``txl.language`` type; ``str()`` of
    it is the MLIR spelling."""

    __slots__ = ("type", "owner", "hint")

    def __init__(self, type, owner=None, hint=None):
        self.type = type
        self.owner = owner
        self.hint = hint

    def __repr__(self):
        return "Value(%s)" % (self.type,)


class Block:
    def __init__(self, arg_types=(), arg_hints=None):
        self.args = [Value(t, self, (arg_hints[i] if arg_hints else None)) for i, t in enumerate(arg_types)]
        self.ops = []
        self.parent = None  # the owning Region

    def add_arg(self, type, hint=None):
        v = Value(type, self, hint)
        self.args.append(v)
        return v


class Region:
    def __init__(self, blocks=None):
        self.blocks = blocks or []
        for b in self.blocks:
            b.parent = self


class Attr(str):
    """Attribute text for the attributes whose kind the builders do not model (``raw`` in ``SPECS``: arith.constant's
    value, func.func's arg_attrs) and for discardable attributes (``Op.discardable``)."""


class TypedAttr:
    """``literal : type`` (arith.constant's value), printed with the type as it is when the module is printed."""

    def __init__(self, literal, type):
        self.literal, self.type = literal, type

    def __str__(self):
        return "%s : %s" % (self.literal, self.type)


_SPECS = []


def _specs():
    if not _SPECS:  # (dialects.py imports this module: bound on first use)
        from .dialects import SPECS
        _SPECS.append(SPECS)
    return _SPECS[0]


class Op:
    """One operation, made by a ``dialects`` builder. ``props`` are its ODS attributes (Python values, checked by
    ``build_op``), ``discardable`` other attributes (name -> ``Attr`` text, or True for a unit attribute), ``attrs``
    the frontend's own bookkeeping (never printed). Nothing is dropped here: an op whose results nothing reads is
    printed, and txlc's txl-erase-dead-values erases it."""

    def __init__(self, name, operands=(), result_types=(), regions=(), props=None, segments=None):
        self.name = name
        self.spec = _specs()[name]
        self.operands = list(operands)
        self.segments = segments  # operand group sizes of an AttrSizedOperandSegments op
        self.results = [Value(t, self) for t in result_types]
        self.regions = list(regions)
        self.props = dict(props or {})
        self.discardable = {}
        self.attrs = {}
        self.block = None
        self.loc = None  # 'loc("kernel.py":12:5)': where in the user's source the op comes from

    @property
    def result(self):
        assert len(self.results) == 1, self.name
        return self.results[0]

    def become(self, other):
        """Turns this op into ``other`` (another builder's op) in place, keeping its result values (and so their
        uses), location and bookkeeping."""
        assert len(other.results) == len(self.results), (self.name, other.name)
        self.name, self.spec, self.operands, self.segments = other.name, other.spec, other.operands, other.segments
        self.regions, self.props, self.discardable = other.regions, other.props, other.discardable
        for mine, theirs in zip(self.results, other.results):
            mine.type = theirs.type


def _check_attr(opname, name, kind, value):
    """The attribute value a builder was given, checked against its ODS kind (what ``_attr_text`` prints)."""
    k = kind[0]

    def bad(expected):
        return OpBuildError("%s: attribute `%s` must be %s, got %r" % (opname, name, expected, value))

    if k == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            raise bad("an integer (%s)" % kind[1])
    elif k in ("unit", "bool"):
        if not isinstance(value, bool):
            raise bad("True or False")
    elif k in ("str", "symref"):
        if not isinstance(value, str):
            raise bad("a string")
    elif k == "array":
        if not isinstance(value, (list, tuple)) or not all(isinstance(x, int) and not isinstance(x, bool)
                                                           for x in value):
            raise bad("a list of integers (array<%s>)" % kind[1])
    elif k in ("enum", "intenum"):
        cases = kind[4] if k == "enum" else kind[2]
        sep = kind[5] if k == "enum" else None
        words = [w.strip() for w in value.split(sep)] if sep and isinstance(value, str) else [value]
        if not all(isinstance(w, str) and w in cases for w in words):
            raise bad("one of %s" % ", ".join(cases))
    elif k == "raw":
        if not isinstance(value, (str, TypedAttr)):
            raise bad("attribute text (ir.Attr or ir.TypedAttr)")
    elif k == "type":
        if value is None:
            raise bad("a type")


# ODS type constraints whose meaning is one builtin type (their summaries, as gen_ops.py records them): checked when
# an op is built. The others (tiles, txl handle types) are left to txlc's verifier.
_SCALAR_CONSTRAINTS = {"1-bit signless integer": "i1", "32-bit signless integer": "i32",
                       "64-bit signless integer": "i64", "index": "index"}


def build_op(name, operands, results, attrs, regions):
    """The op ``name`` (see ``dialects.SPECS``) from a generated builder's arguments, checked against ODS."""
    spec = _specs()[name]
    flat, sizes = [], []
    for (oname, kind, cons), v in zip(spec["operands"], operands):
        if v is REQUIRED:
            raise OpBuildError("%s: operand `%s` is missing" % (name, oname))
        if kind == "single":
            vals = [v]
        elif kind == "optional":
            vals = [] if v is None else [v]
        else:
            if not isinstance(v, (list, tuple)):
                raise OpBuildError("%s: operand `%s` is variadic: give a list of values, got %r" % (name, oname, v))
            vals = list(v)
        want = _SCALAR_CONSTRAINTS.get(cons[len("variadic of "):] if cons.startswith("variadic of ") else cons)
        for x in vals:
            if not isinstance(x, Value):
                raise OpBuildError("%s: operand `%s` (%s) must be a value, got %r" % (name, oname, cons, x))
            if want is not None and str(x.type) != want:
                raise OpBuildError("%s: operand `%s` must be %s (%s), got %s" % (name, oname, cons, want, x.type))
        flat += vals
        sizes.append(len(vals))
    types = []
    for (rname, kind), t in zip(spec["results"], results):
        if kind == "variadic":
            if not isinstance(t, (list, tuple)):
                raise OpBuildError("%s: result `%s` is variadic: give a list of types, got %r" % (name, rname, t))
            types += list(t)
        elif kind == "optional":
            types += [] if t is None else [t]
        else:
            if t is None or isinstance(t, (list, tuple)):
                raise OpBuildError("%s: result `%s` needs one type, got %r" % (name, rname, t))
            types.append(t)
    if spec["same_type"] and len({str(t) for t in [v.type for v in flat] + types}) > 1:
        raise OpBuildError("%s: operands and results must have one type (SameOperandsAndResultType), got %s -> %s"
                           % (name, ", ".join(str(v.type) for v in flat), ", ".join(map(str, types))))
    props = {}
    for aname, kind, optional, _default in spec["attrs"]:
        v = attrs.get(aname)
        if v is None or (kind[0] == "unit" and v is False):
            if not optional:
                raise OpBuildError("%s: attribute `%s` is required" % (name, aname))
            continue
        _check_attr(name, aname, kind, v)
        props[aname] = v
    for (gname, _), r in zip(spec["regions"], regions):
        if not isinstance(r, Region):
            raise OpBuildError("%s: region `%s` must be an ir.Region, got %r" % (name, gname, r))
    return Op(name, flat, types, regions, props, sizes if spec["segments"] else None)


def clone(op, operands, result_types):
    """A copy of the region-free ``op`` with other operands and result types."""
    assert not op.regions, op.name
    return Op(op.name, operands, result_types, (), op.props, op.segments)


class Builder:
    """Appends ops to the current block; ``entry`` is the kernel's entry block (for hoisted ops)."""

    def __init__(self):
        self.block = None
        self.entry = None
        # The source location of the Python code being compiled, attached to every op created meanwhile, so
        # that the compiler's diagnostics (and --debug-hangs messages) name the user's file:line:col.
        self.loc = None
        self._const_cache = {}
        self.hoisted = []  # ops kept at the top of the entry block, in creation order

    def insert(self, op, attrs=None):
        """Appends ``op`` (a ``dialects`` builder's) to the current block at the current location. Whether an op
        nothing reads may go is not the frontend's to say: txl-erase-dead-values decides from the op's own
        effects."""
        op.attrs.update(attrs or {})
        op.loc = self.loc
        op.block = self.block
        self.block.ops.append(op)
        return op

    def hoist(self, op, key=None, attrs=None):
        """Places an operand-free op at the top of the kernel (constants, allocations); ``key`` deduplicates: the op
        made first for a key is returned instead of ``op``. An allocation is the kernel's, not the statement's (a
        buffer allocated in a branch is used after it); a constant hoisted and shared by value is one that a
        branch can make and the code after it reuse. Those that nothing reads (a loop's dry runs make some) are
        erased by txl-erase-dead-values."""
        if key is not None and key in self._const_cache:
            return self._const_cache[key]
        op.attrs.update(attrs or {})
        op.loc = self.loc
        op.block = self.entry
        self.hoisted.append(op)
        if key is not None:
            self._const_cache[key] = op
        return op


# ----------------------------------------------------------------------------------------------------------------
# Printing: the op's declarative assembly format (ODS) where it has one, else MLIR's generic form
# ----------------------------------------------------------------------------------------------------------------
def _quote(s):
    """A string attribute as MLIR prints it: quoted, with \\ \" and non-printable bytes escaped (\\XX)."""
    out = []
    for byte in s.encode("utf-8"):
        c = chr(byte)
        if c in '"\\':
            out.append("\\" + c)
        elif 0x20 <= byte < 0x7F:
            out.append(c)
        else:
            out.append("\\%02X" % byte)
    return '"' + "".join(out) + '"'


_BARE_ID = re.compile(r"^[A-Za-z_][\w$.]*$")


def _attr_text(kind, value, stripped):
    """An attribute's MLIR text: ``stripped`` as a declarative format prints an attribute it names (``5``,
    ``[1, 0]``, ``slt``, ``<contract>``), else in full (``5 : i32``, ``array<i32: 1, 0>``, ``#arith.fastmath<...>``)."""
    k = kind[0]
    if k == "int":
        return str(value) if stripped else "%d : %s" % (value, kind[1])
    if k == "bool":
        return "true" if value else "false"
    if k == "str":
        return _quote(value)
    if k == "symref":
        return "@" + (value if _BARE_ID.match(value) else _quote(value))
    if k == "array":
        if stripped:
            return "[%s]" % ", ".join(map(str, value))
        return "array<%s%s>" % (kind[1], (": " + ", ".join(map(str, value))) if value else "")
    if k == "enum":
        _, dialect, mnemonic, angle, _cases, _sep = kind
        if stripped:
            return "<%s>" % value if angle else value
        return "#%s.%s<%s>" % (dialect, mnemonic, value) if angle else "#%s<%s %s>" % (dialect, mnemonic, value)
    if k == "intenum":
        return value if stripped else "%d : %s" % (kind[2][value], kind[1])
    if k == "unit":
        return "unit"
    return str(value)  # type, raw


def _attr_entry(name, text):
    return name if text is True or text == "unit" else "%s = %s" % (name, text)


# The declarative assembly format, parsed once per op.
_FMT_TOKEN = re.compile(r"\s*(`[^`]*`|\$\w+|attr-dict-with-keyword|attr-dict|functional-type|qualified|type|"
                        r"operands|results|regions|custom<\w+>|[()?^,:])")


def _parse_format(fmt):
    toks = []
    pos = 0
    while pos < len(fmt):
        m = _FMT_TOKEN.match(fmt, pos)
        if not m:
            if fmt[pos:].strip() == "":
                break
            raise ValueError("cannot read the assembly format %r at %r" % (fmt, fmt[pos:]))
        toks.append(m.group(1))
        pos = m.end()
    toks.reverse()

    def arg():
        t = toks.pop()
        if t in ("type", "qualified"):
            assert toks.pop() == "("
            inner = arg()
            assert toks.pop() == ")"
            return ("type", inner[1]) if t == "type" else inner  # (qualified: txl prints types in full anyway)
        return ("var", t[1:]) if t.startswith("$") else ("var", t)  # operands / results

    def elements(stop):
        out = []
        while toks and toks[-1] not in stop:
            t = toks.pop()
            if t.startswith("`"):
                out.append(("lit", t[1:-1]))
            elif t.startswith("$"):
                anchor = bool(toks) and toks[-1] == "^"
                if anchor:
                    toks.pop()
                out.append(("var", t[1:], anchor))
            elif t in ("attr-dict", "attr-dict-with-keyword"):
                out.append(("attrdict", t != "attr-dict"))
            elif t in ("type", "qualified"):
                toks.append(t)
                e = arg()
                if toks and toks[-1] == "^":  # `(`->` type($result)^)?`: the group prints when $result exists
                    toks.pop()
                    e = ("type", e[1], True)
                out.append(e)
            elif t == "functional-type":
                assert toks.pop() == "("
                a = arg()
                assert toks.pop() == ","
                b = arg()
                assert toks.pop() == ")"
                out.append(("ftype", a[1], b[1]))
            elif t == "(":
                inner = elements((")",))
                assert toks.pop() == ")"
                if toks and toks[-1] == ":":
                    raise ValueError("optional groups with an else branch are not supported: %r" % fmt)
                assert toks.pop() == "?", fmt
                anchor = next((e[1] for e in _walk(inner) if e[0] in ("var", "type") and e[2:] == (True,)), None)
                out.append(("group", inner, anchor))
            elif t.startswith("custom<"):
                raise ValueError("custom directives are not supported: %r" % fmt)
            elif t in ("operands", "results", "regions"):
                out.append(("var", t, False))
            else:
                raise ValueError("unexpected %r in the assembly format %r" % (t, fmt))
        return out

    return elements(())


def _walk(elements):
    for e in elements:
        yield e
        if e[0] == "group":
            yield from _walk(e[1])


_FORMATS = {}


def _format_of(spec):
    fmt = spec["format"]
    if fmt is None:
        return None
    if fmt not in _FORMATS:
        try:
            _FORMATS[fmt] = _parse_format(fmt)
        except (ValueError, AssertionError, IndexError):
            _FORMATS[fmt] = None  # printed in the generic form
    return _FORMATS[fmt]


def _segments(op):
    """name -> the op's operands of each ODS operand (a list), using the segment sizes where ODS has them."""
    groups = op.spec["operands"]
    if op.segments is not None:
        sizes = op.segments
    else:
        fixed = sum(1 for g in groups if g[1] == "single")
        n_var = sum(1 for g in groups if g[1] != "single")
        rest = len(op.operands) - fixed
        assert n_var <= 1 or rest == 0, op.name
        sizes = [1 if g[1] == "single" else rest for g in groups]
    out, i = {}, 0
    for g, n in zip(groups, sizes):
        out[g[0]] = op.operands[i:i + n]
        i += n
    return out


def _result_groups(op):
    groups = op.spec["results"]
    fixed = sum(1 for g in groups if g[1] == "single")
    rest = len(op.results) - fixed
    out, i = {}, 0
    for name, kind in groups:
        n = 1 if kind == "single" else rest
        out[name] = op.results[i:i + n]
        i += n
    return out


def _function_type(ins, outs):
    res = outs[0] if len(outs) == 1 else "(%s)" % ", ".join(outs)
    return "(%s) -> %s" % (", ".join(ins), res)


class Printer:
    def __init__(self):
        self.names = {}
        self.used = set()
        self.counter = 0

    def name(self, v):
        n = self.names.get(id(v))
        if n is None:
            raise KeyError("value used before its definition was printed: %r" % (v,))
        return n

    def define(self, v):
        hint = v.hint
        if hint:
            base = "".join(c if (c.isalnum() or c in "_.$-") else "_" for c in hint)
            if base[0].isdigit():
                base = "v" + base
            name, i = base, 0
            while name in self.used:
                i += 1
                name = "%s_%d" % (base, i)
        else:
            while str(self.counter) in self.used:
                self.counter += 1
            name = str(self.counter)
            self.counter += 1
        self.used.add(name)
        self.names[id(v)] = "%" + name
        return "%" + name

    def print_op(self, op, indent):
        res = [self.define(v) for v in op.results]
        fmt = _format_of(op.spec)
        text = self._custom(op, fmt, indent) if fmt is not None else self._generic(op, indent)
        if op.loc:
            text += " " + op.loc
        pad = "  " * indent
        return pad + ((", ".join(res) + " = ") if res else "") + text + "\n"

    def _attrs(self, op):
        """(name, kind, value, default) of each ODS attribute the op has."""
        return [(n, kind, op.props[n], default) for n, kind, _opt, default in op.spec["attrs"] if n in op.props]

    def _generic(self, op, indent):
        props = ["%s" % _attr_entry(n, _attr_text(kind, v, False)) for n, kind, v, _ in self._attrs(op)]
        if op.segments is not None:
            props.append("operandSegmentSizes = array<i32: %s>" % ", ".join(map(str, op.segments)))
        text = '"%s"(%s)' % (op.name, ", ".join(self.name(v) for v in op.operands))
        if props:
            text += " <{%s}>" % ", ".join(sorted(props))
        if op.regions:
            text += " (%s)" % ", ".join(self.print_region(r, indent) for r in op.regions)
        if op.discardable:
            text += " {%s}" % ", ".join(_attr_entry(n, t) for n, t in op.discardable.items())
        return text + " : " + _function_type([str(v.type) for v in op.operands], [str(v.type) for v in op.results])

    def _custom(self, op, fmt, indent):
        operands = _segments(op)
        results = _result_groups(op)
        regions = dict(zip((g[0] for g in op.spec["regions"]), op.regions))
        attrs = {n: (kind, v, d) for n, kind, v, d in self._attrs(op)}
        named = {e[1] for e in _walk(fmt) if e[0] == "var"}
        out = []
        state = {"space": True, "punct": False}

        def types_of(name):
            if name in operands:
                return [str(v.type) for v in operands[name]]
            if name in results:
                return [str(v.type) for v in results[name]]
            if name == "operands":
                return [str(v.type) for v in op.operands]
            return [str(v.type) for v in op.results]  # results

        def emit(text):
            if state["space"]:
                out.append(" ")
            out.append(text)
            state["space"], state["punct"] = True, False

        def literal(lit):
            if lit == "":
                state["space"] = False
                return
            if lit in (" ", "\\n"):
                out.append(" ")
                state["space"] = False
                return
            if state["space"]:
                if len(lit) != 1 and lit != "->":
                    sp = True
                elif state["punct"]:
                    sp = lit[0] not in ">)}],"
                else:
                    sp = lit[0] not in "<>(){}[],"
                if sp:
                    out.append(" ")
            out.append(lit)
            state["space"] = not (len(lit) == 1 and lit in "<({[")
            state["punct"] = not (lit[0] == "_" or lit[0].isalpha())

        def present(anchor):
            if anchor in operands:
                return bool(operands[anchor])
            if anchor in attrs:
                kind, v, default = attrs[anchor]
                return kind[0] == "unit" and v or kind[0] != "unit" and (default is None or v != default)
            if anchor in results:
                return bool(results[anchor])
            return anchor in regions and regions[anchor].blocks

        def run(elements):
            for e in elements:
                k = e[0]
                if k == "lit":
                    literal(e[1])
                elif k == "var":
                    n = e[1]
                    if n in operands:
                        emit(", ".join(self.name(v) for v in operands[n]))
                    elif n == "operands":
                        emit(", ".join(self.name(v) for v in op.operands))
                    elif n in attrs:
                        kind, v, _ = attrs[n]
                        if kind[0] != "unit":
                            emit(_attr_text(kind, v, True))
                    elif n in regions:
                        emit(self.print_region(regions[n], indent))
                elif k == "type":
                    emit(", ".join(types_of(e[1])))
                elif k == "ftype":
                    emit(_function_type(types_of(e[1]), types_of(e[2])))
                elif k == "attrdict":
                    entries = [_attr_entry(n, _attr_text(kind, v, False)) for n, (kind, v, d) in attrs.items()
                               if n not in named and (d is None or v != d)]
                    entries += [_attr_entry(n, t) for n, t in op.discardable.items()]
                    if entries:
                        out.append((" attributes {%s}" if e[1] else " {%s}") % ", ".join(entries))
                    state["space"], state["punct"] = True, False
                elif k == "group":
                    if present(e[2]):
                        run(e[1])

        run(fmt)
        return op.name + "".join(out)

    def print_region(self, region, indent):
        out = ["{\n"]
        for i, block in enumerate(region.blocks):
            if i > 0 or block.args:
                names = [self.define(v) if id(v) not in self.names else self.name(v) for v in block.args]
                label = "^bb%d" % i
                if block.args:
                    label += "(" + ", ".join("%s: %s" % (n, v.type) for n, v in zip(names, block.args)) + ")"
                out.append("  " * indent + label + ":\n")
            for op in block.ops:
                out.append(self.print_op(op, indent + 1))
        out.append("  " * indent + "}")
        return "".join(out)
