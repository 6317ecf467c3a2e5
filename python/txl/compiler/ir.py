"""A minimal in-memory IR that the frontend builds and prints as MLIR text.

The frontend does not link against MLIR: it builds a small tree of operations (``Op``) with regions and blocks,
then prints it in the txl dialect's custom assembly. Keeping a tree (rather than appending strings) lets the
frontend

* finish types late: a shared-memory buffer's swizzle is only known once a TMA load into it has been seen, and
  types print lazily, so every use of the buffer shows the final encoding;
* hoist scalar constants and allocations to the top of the kernel and drop the unused ones;
* mark a ``txl.dot`` asynchronous once it is known that a ``txl.dot_wait`` follows it.

Each op carries a format template: ``{o[i]}`` is the name of operand i, ``{t[i]}`` its type, ``{r[i]}`` the type of
result i, ``{a[i]}`` the name of argument i of the first region's entry block, and ``{R[i]}`` region i, printed as
``{ ... }``. Literal braces are doubled, as in ``str.format``.
"""


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
    def __init__(self, blocks=None, print_entry_args=False):
        self.blocks = blocks or []
        # scf.for/scf.if/scf.while(before) name their entry arguments in the op header; txl.reduce and the
        # `do` region of scf.while print them as a ^bb0(...) label.
        self.print_entry_args = print_entry_args
        for b in self.blocks:
            b.parent = self


class Op:
    """One operation. ``pure`` ops (and hoisted allocations) whose results are never used are dropped before
    printing."""

    def __init__(self, template, operands=(), result_types=(), regions=(), pure=False, name=None, attrs=None):
        self.template = template
        self.operands = list(operands)
        self.results = [Value(t, self) for t in result_types]
        self.regions = list(regions)
        self.pure = pure
        self.name = name or template.split(" ", 1)[0]
        self.attrs = dict(attrs or {})  # frontend bookkeeping, not printed
        self.block = None
        self.loc = None  # 'loc("kernel.py":12:5)': where in the user's source the op comes from

    @property
    def result(self):
        assert len(self.results) == 1, self.name
        return self.results[0]


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

    def create(self, template, operands=(), result_types=(), regions=(), pure=False, attrs=None):
        op = Op(template, operands, result_types, regions, pure=pure, attrs=attrs)
        op.loc = self.loc
        op.block = self.block
        self.block.ops.append(op)
        return op

    def create_hoisted(self, template, result_types, attrs=None, key=None, pure=True):
        """An operand-free op placed at the top of the kernel (constants, allocations); ``key`` deduplicates."""
        if key is not None and key in self._const_cache:
            return self._const_cache[key]
        op = Op(template, (), result_types, pure=pure, attrs=attrs)
        op.loc = self.loc
        op.block = self.entry
        self.hoisted.append(op)
        if key is not None:
            self._const_cache[key] = op
        return op


# ----------------------------------------------------------------------------------------------------------------
# Printing
# ----------------------------------------------------------------------------------------------------------------
def _uses(block, counts):
    for op in block.ops:
        for v in op.operands:
            counts[id(v)] = counts.get(id(v), 0) + 1
        for r in op.regions:
            for b in r.blocks:
                _uses(b, counts)


def yield_template(n, name="scf.yield"):
    if not n:
        return name
    return "%s %s : %s" % (name, ", ".join("{o[%d]}" % i for i in range(n)), ", ".join("{t[%d]}" % i for i in range(n)))


def _prune_results(op, counts):
    """Drops the results of an scf.if / scf.for that nothing reads (a variable the frontend carried because the
    body assigns it, but that is neither read before being re-assigned in the body nor used afterwards).
    Returns True if something was removed."""
    kind = op.attrs.get("kind")
    if kind not in ("if", "for"):
        return False
    dead = []
    for i, r in enumerate(op.results):
        if counts.get(id(r), 0):
            continue
        if kind == "for":
            body = op.regions[0].blocks[0]
            arg = body.args[i + 1]
            y = body.ops[-1]
            n = counts.get(id(arg), 0) - (1 if y.operands[i] is arg else 0)
            if n:
                continue
        dead.append(i)
    if not dead:
        return False
    keep = [i for i in range(len(op.results)) if i not in dead]
    op.results = [op.results[i] for i in keep]
    if kind == "if":
        for region in op.regions:
            y = region.blocks[0].ops[-1] if region.blocks[0].ops else None
            if y is not None and y.name == "scf.yield":
                y.operands = [y.operands[i] for i in keep]
                y.template = yield_template(len(keep))
                if not keep:
                    region.blocks[0].ops.pop()
    else:
        body = op.regions[0].blocks[0]
        body.args = [body.args[0]] + [body.args[i + 1] for i in keep]
        y = body.ops[-1]
        y.operands = [y.operands[i] for i in keep]
        y.template = yield_template(len(keep))
        if not keep:
            body.ops.pop()
        op.operands = op.operands[:3] + [op.operands[3 + i] for i in keep]
    op.attrs["rebuild"](op)
    return True


def eliminate_dead_ops(entry):
    """Removes pure ops whose results are unused and unused loop/if results, to a fixed point (dry-run leftovers,
    unused constants, variables carried through a loop that nothing reads)."""
    while True:
        counts = {}
        _uses(entry, counts)
        removed = [False]

        def sweep(block):
            kept = []
            for op in block.ops:
                for r in op.regions:
                    for b in r.blocks:
                        sweep(b)
                if op.pure and op.results and all(counts.get(id(v), 0) == 0 for v in op.results):
                    removed[0] = True
                    continue
                if _prune_results(op, counts):
                    removed[0] = True
                kept.append(op)
            block.ops = kept

        sweep(entry)
        if not removed[0]:
            return


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
        args = []
        if op.regions and op.regions[0].blocks:
            args = [self.define(v) for v in op.regions[0].blocks[0].args]
        regions = [self.print_region(r, indent) for r in op.regions]
        fields = dict(o=[self.name(v) for v in op.operands], t=[str(v.type) for v in op.operands],
                      r=[str(v.type) for v in op.results], a=args, R=regions)
        text = op.template.format(**fields)
        if op.loc:
            text += " " + op.loc
        pad = "  " * indent
        return pad + ((", ".join(res) + " = ") if res else "") + text + "\n"

    def print_region(self, region, indent):
        out = ["{\n"]
        for i, block in enumerate(region.blocks):
            if i > 0 or region.print_entry_args:
                names = [self.define(v) if id(v) not in self.names else self.name(v) for v in block.args]
                label = "^bb%d" % i
                if block.args:
                    label += "(" + ", ".join("%s: %s" % (n, v.type) for n, v in zip(names, block.args)) + ")"
                out.append("  " * indent + label + ":\n")
            for op in block.ops:
                out.append(self.print_op(op, indent + 1))
        out.append("  " * indent + "}")
        return "".join(out)
