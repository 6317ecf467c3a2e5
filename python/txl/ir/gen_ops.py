#!/usr/bin/env python3
"""Generate ``txl/ir/dialects.py``: one Python builder per op of the dialects the frontend emits, from ODS.

    python3 python/txl/ir/gen_ops.py            # rewrite python/txl/ir/dialects.py
    python3 python/txl/ir/gen_ops.py --check    # exit 1 when the committed file differs (CI, ninja txl-docs-check)
    python3 python/txl/ir/gen_ops.py -o FILE    # write elsewhere (the CMake build, the wheel build)

It runs ``llvm-tblgen --dump-json`` on TXLOps.td and on the upstream dialects' ODS (arith, math, scf, func, builtin)
and writes, for every op, its operands (single, optional, variadic), results, attributes (with their kind: integer,
array, string, enum and its cases, ...) and regions, named as in ODS, and its declarative assembly format. The
frontend builds ops only through these builders (``dialects.txl.smem_index(src, index, result=ty)``); ``txl.ir``
checks arity and attribute kinds when an op is built and prints it from this description, so no op syntax is
written by hand in Python and an op whose ODS changes changes the frontend with it. The output is committed (a
checkout and the wheel have it without LLVM); every ``ninja txl-tools`` build runs ``--check`` (a stale file fails
the build, naming this command), ``txl-docs-check`` (scripts/test.sh, hence CI) does too, ``ninja txl-docs``
regenerates it, and scripts/build-wheel.sh checks it before packaging.

Only the Python standard library: it runs wherever llvm-tblgen does.
"""

import argparse
import json
import keyword
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
OUTPUT = os.path.join(HERE, "dialects.py")
LLVM = os.environ.get("TXL_LLVM_DIR", "/usr/lib/llvm-22")

# (dialect, .td file, where it lives): the dialects whose ops the frontend emits. A test
# (python/txl/tests/test_generated_ops.py) compiles the kernel corpus and fails on an op name not generated here.
SOURCES = [
    ("txl", "txl/Dialect/TXL/IR/TXLOps.td", "this repository's include/"),
    ("arith", "mlir/Dialect/Arith/IR/ArithOps.td", "upstream MLIR"),
    ("math", "mlir/Dialect/Math/IR/MathOps.td", "upstream MLIR"),
    ("scf", "mlir/Dialect/SCF/IR/SCFOps.td", "upstream MLIR"),
    ("func", "mlir/Dialect/Func/IR/FuncOps.td", "upstream MLIR"),
    ("builtin", "mlir/IR/BuiltinOps.td", "upstream MLIR"),
]


OPTIONS = {"tblgen": None, "llvm_include": None}  # set by --tblgen / --llvm-include (CMake passes its own)


def tblgen():
    exe = OPTIONS["tblgen"] or os.environ.get("TXL_TBLGEN") or os.path.join(LLVM, "bin", "llvm-tblgen")
    if not os.access(exe, os.X_OK):
        sys.exit("gen_ops.py: no llvm-tblgen at %s (set TXL_TBLGEN or TXL_LLVM_DIR)" % exe)
    return exe


def dump(td):
    inc = [os.path.join(REPO, "include"), OPTIONS["llvm_include"] or os.path.join(LLVM, "include")]
    path = next((os.path.join(i, td) for i in inc if os.path.exists(os.path.join(i, td))), None)
    if path is None:
        sys.exit("gen_ops.py: %s not found under %s" % (td, ", ".join(inc)))
    cmd = [tblgen(), "--dump-json"] + ["-I" + i for i in inc] + [path]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit("gen_ops.py: %s failed:\n%s" % (" ".join(cmd), r.stderr))
    return json.loads(r.stdout)


class Records:
    def __init__(self, d):
        self.d = d

    def __getitem__(self, name):
        return self.d[name]

    def sup(self, name):
        return self.d[name]["!superclasses"]

    def ref(self, v):
        return v["def"] if isinstance(v, dict) and v.get("kind") == "def" else None


def _int_type(recs, name):
    vt = recs[name].get("valueType")
    t = recs.ref(vt) if vt else None
    return {"I1": "i1", "I8": "i8", "I16": "i16", "I32": "i32", "I64": "i64", "Index": "index",
            "SI32": "si32", "SI64": "si64", "UI32": "ui32", "UI64": "ui64"}.get(t)


def _cases(recs, info):
    return {recs[recs.ref(c)]["str"]: recs[recs.ref(c)]["value"] for c in recs[info]["enumerants"]}


def attr_kind(recs, name):
    """(kind, ...) of an attribute constraint, following OptionalAttr / DefaultValuedAttr / ConfinedAttr."""
    sup = recs.sup(name)
    r = recs[name]
    if "OptionalAttr" in sup or "DefaultValuedAttr" in sup or "ConfinedAttr" in sup or \
            "DefaultValuedOptionalAttr" in sup:
        return attr_kind(recs, recs.ref(r["baseAttr"]))
    if name == "UnitAttr":
        return ("unit",)
    if name == "BoolAttr":
        return ("bool",)
    if "StringBasedAttr" in sup:
        return ("str",)
    if name == "FlatSymbolRefAttr":
        return ("symref",)
    if "DenseArrayAttrBase" in sup:
        return ("array", {"DenseI32ArrayAttr": "i32", "DenseI64ArrayAttr": "i64", "DenseI8ArrayAttr": "i8",
                          "DenseI16ArrayAttr": "i16", "DenseBoolArrayAttr": "i1", "DenseF32ArrayAttr": "f32",
                          "DenseF64ArrayAttr": "f64"}[name])
    if "EnumAttr" in sup and "AttrDef" in sup:  # a dialect attribute wrapping an enum: #arith.fastmath<...>
        info = recs.ref(r["enum"])
        dialect = recs[recs.ref(r["dialect"])]["name"]
        fmt = (r.get("assemblyFormat") or "").replace(" ", "")
        if fmt not in ("$value", "`<`$value`>`"):
            raise SystemExit("gen_ops.py: enum attribute %s has assembly format %r; teach txl/ir/__init__.py to print it"
                             % (name, r.get("assemblyFormat")))
        return ("enum", dialect, r["mnemonic"], fmt != "$value", _cases(recs, info),
                recs[info].get("separator") if "BitEnumAttr" in recs.sup(info) or "separator" in recs[info] else None)
    if "IntEnumAttr" in sup or "EnumAttrInfo" in sup and "enumerants" in r:
        return ("intenum", _int_type(recs, name) or "i64", _cases(recs, name))
    if "TypeAttrBase" in sup or name == "TypeAttr":
        return ("type",)
    if "SignlessIntegerAttrBase" in sup or "TypedSignlessIntegerAttrBase" in sup or "TypedAttrBase" in sup and \
            _int_type(recs, name):
        return ("int", _int_type(recs, name) or "i64")
    return ("raw",)  # TypedAttrInterface (arith.constant's value), ArrayAttr, ...: attribute text from the caller


def attr_default(recs, name, kind):
    """The value an unset attribute has (DefaultValuedAttr), as the Python value a builder takes, else None."""
    r = recs[name]
    if "DefaultValuedAttr" not in recs.sup(name) and "DefaultValuedOptionalAttr" not in recs.sup(name):
        return None
    text = (r.get("defaultValue") or "").strip()
    if kind[0] == "int":
        try:
            return int(text)
        except ValueError:
            return None
    if kind[0] in ("enum", "intenum"):
        return text.rsplit("::", 1)[-1]
    if kind[0] == "bool":
        return text == "true"
    return None


def operand_kind(recs, name):
    sup = recs.sup(name)
    if "Arg" in sup and "constraint" in recs[name]:  # Arg<Type, "", [effects]>
        return operand_kind(recs, recs.ref(recs[name]["constraint"]))
    if "VariadicOfVariadic" in sup:
        return "variadic_of_variadic", name
    if "Variadic" in sup:
        return "variadic", name
    if "Optional" in sup:
        return "optional", name
    return "single", name


def is_attr(recs, name):
    sup = recs.sup(name)
    if "Arg" in sup and "constraint" in recs[name]:
        return is_attr(recs, recs.ref(recs[name]["constraint"]))
    return "Attr" in sup and "TypeConstraint" not in sup


def op_specs(dialect, recs):
    specs = []
    for o in recs.d["!instanceof"]["Op"]:
        r = recs[o]
        if recs[recs.ref(r["opDialect"])]["name"] != dialect:
            continue
        name = dialect + "." + r["opName"]
        operands, attrs = [], []
        for arg, aname in r["arguments"]["args"]:
            c = recs.ref(arg)
            if is_attr(recs, c):
                base = recs.ref(recs[c]["constraint"]) if "Arg" in recs.sup(c) and "constraint" in recs[c] else c
                kind = attr_kind(recs, base)
                sup = recs.sup(base)
                optional = kind[0] == "unit" or "OptionalAttr" in sup or "DefaultValuedAttr" in sup or \
                    "DefaultValuedOptionalAttr" in sup
                attrs.append((aname, kind, optional, attr_default(recs, base, kind)))
            else:
                k, cons = operand_kind(recs, c)
                operands.append((aname, k, recs[cons].get("summary") or cons))
        results = [(n or ("result" if len(r["results"]["args"]) == 1 else "result%d" % i),
                    operand_kind(recs, recs.ref(t))[0]) for i, (t, n) in enumerate(r["results"]["args"])]
        regions = [(n, "variadic" if "VariadicRegion" in recs.sup(recs.ref(t)) else "single")
                   for t, n in r["regions"]["args"]]
        traits = set()
        for t in r.get("traits") or []:
            tn = recs.ref(t)
            traits.add(tn)
            traits.update(recs.sup(tn) if tn in recs.d else [])
        fmt = r["assemblyFormat"]
        if r["hasCustomAssemblyFormat"] or not fmt:
            fmt = None  # a C++ parser/printer: the frontend prints the generic form
        else:
            fmt = " ".join(fmt.split())
        specs.append(dict(name=name, operands=operands, attrs=attrs, results=results, regions=regions,
                          segments="AttrSizedOperandSegments" in traits,
                          same_type="SameOperandsAndResultType" in traits, format=fmt,
                          summary=(r.get("summary") or "").strip()))
    return sorted(specs, key=lambda s: s["name"])


def pyname(n):
    n = n.replace(".", "_")
    return n + "_" if keyword.iskeyword(n) or n in ("loc",) else n


def render(all_specs):
    out = ['"""Builders of the ops the txl frontend emits, one per op, generated from ODS by gen_ops.py: do not edit.',
           "",
           "Regenerate with ``python3 python/txl/ir/gen_ops.py`` (or ``ninja -C build txl-docs``) after an",
           "ODS change. Each builder takes the op's operands positionally (``None`` for an absent optional operand, a",
           "list for a variadic one), its result types, attributes and regions by keyword, all named as in ODS, and",
           "returns an unattached ``ir.Op``; ``txl.ir`` checks it against ``SPECS`` and prints it.",
           '"""',
           "",
           "from . import build_op as _build",
           "",
           "# name -> {operands: [(name, single|optional|variadic, constraint)], results: [(name, kind)],",
           "#          attrs: [(name, kind, optional, default)], regions: [(name, kind)], segments: AttrSizedOperandSegments,",
           "#          same_type: SameOperandsAndResultType,",
           "#          format: the declarative assembly format, None where the op has a C++ parser (generic form)}",
           "SPECS = {"]
    for dialect, td, where in SOURCES:
        for s in all_specs[dialect]:
            body = ", ".join("%r: %r" % (k, s[k]) for k in ("operands", "results", "attrs", "regions", "segments",
                                                            "same_type", "format"))
            out.append("    %r: {%s}," % (s["name"], body))
    out.append("}")
    for dialect, td, where in SOURCES:
        out += ["", "", "class %s:" % dialect, '    """The %s dialect (%s, %s)."""' % (dialect, td, where)]
        for s in all_specs[dialect]:
            names = [o[0] for o in s["operands"]] + [r[0] for r in s["results"]] + [a[0] for a in s["attrs"]] + \
                [g[0] for g in s["regions"]]
            if len(set(names)) != len(names):
                raise SystemExit("gen_ops.py: %s names two of its operands/results/attributes/regions alike"
                                 % s["name"])
            params = [pyname(o[0]) + ("=None" if o[1] == "optional" else "") for o in s["operands"]]
            # a required operand after an optional one stays positional-or-keyword without a default
            seen_default = False
            for i, p in enumerate(params):
                if p.endswith("=None"):
                    seen_default = True
                elif seen_default:
                    params[i] = p + "=_REQUIRED"
            kw = [pyname(r[0]) for r in s["results"]]
            kw += [pyname(a[0]) + ("=None" if a[2] else "") for a in s["attrs"]]
            kw += [pyname(g[0]) for g in s["regions"]]
            sig = ", ".join(params + (["*"] + kw if kw else []))
            call = "_build(%r, [%s], [%s], {%s}, [%s])" % (
                s["name"], ", ".join(pyname(o[0]) for o in s["operands"]),
                ", ".join(pyname(r[0]) for r in s["results"]),
                ", ".join("%r: %s" % (a[0], pyname(a[0])) for a in s["attrs"]),
                ", ".join(pyname(g[0]) for g in s["regions"]))
            out += ["", "    @staticmethod", "    def %s(%s):" % (pyname(s["name"].split(".", 1)[1]), sig)]
            if s["summary"]:
                out.append("        %s" % json.dumps(s["summary"].rstrip(".") + "."))
            out.append("        return " + call)
    text = "\n".join(out) + "\n"
    if "_REQUIRED" in text:
        text = text.replace("from . import build_op as _build",
                            "from . import REQUIRED as _REQUIRED, build_op as _build")
    return text


def generate():
    specs = {}
    for dialect, td, _ in SOURCES:
        specs[dialect] = op_specs(dialect, Records(dump(td)))
    return render(specs)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--output", default=OUTPUT)
    ap.add_argument("--check", action="store_true", help="compare with the output file instead of writing it")
    ap.add_argument("--tblgen", help="llvm-tblgen (default: $TXL_TBLGEN, else %s/bin/llvm-tblgen)" % LLVM)
    ap.add_argument("--llvm-include", help="MLIR's include directory (default: %s/include)" % LLVM)
    args = ap.parse_args(argv)
    OPTIONS.update(tblgen=args.tblgen, llvm_include=args.llvm_include)
    text = generate()
    if args.check:
        old = open(args.output).read() if os.path.exists(args.output) else None
        if old != text:
            print("%s is not what gen_ops.py generates from ODS now (an op's ODS changed): run "
                  "python3 python/txl/ir/gen_ops.py (or ninja -C build txl-docs) and commit it"
                  % args.output, file=sys.stderr)
            return 1
        return 0
    tmp = args.output + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
