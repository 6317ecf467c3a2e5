"""The Python package's layers import only downward (issue 33: the language used to reach up into the compiler and
``txl.jit`` through function-local imports, an import cycle). Bottom to top: ``txl.errors`` and ``txl.ir`` (the IR
tree, its generated builders) import nothing else from txl; ``txl.language`` imports only those two and itself.
Every import is checked, function-local ones included, by reading the sources (no import side effects)."""

import ast
import os

import pytest

PKG = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # python/txl

# layer -> the txl packages/modules it may import (besides itself)
ALLOWED = {
    "txl.errors": set(),
    "txl.ir": {"txl.errors"},
    "txl.language": {"txl.errors", "txl.ir"},
}


def _modules(layer):
    """(module name, path) of every .py file of ``layer`` (a module or a package)."""
    rel = layer.split(".")[1:]
    path = os.path.join(PKG, *rel)
    if os.path.isfile(path + ".py"):
        return [(layer, path + ".py")]
    out = []
    for root, _, files in os.walk(path):
        for f in sorted(files):
            if f.endswith(".py"):
                sub = os.path.relpath(os.path.join(root, f), PKG)[:-3].replace(os.sep, ".")
                name = "txl." + (sub[:-len(".__init__")] if sub.endswith("__init__") else sub)
                out.append((name, os.path.join(root, f)))
    return out


def _imports(name, path):
    """(line, absolute module) of every txl import in the file, relative imports resolved."""
    is_pkg = path.endswith("__init__.py")
    parts = name.split(".") if is_pkg else name.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(open(path).read(), path)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = parts[:len(parts) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            # `from txl import ir` names a module: count the imported names too
            found += [(node.lineno, mod + "." + a.name) for a in node.names] if not node.module or node.level \
                else [(node.lineno, mod)]
    return [(ln, m) for ln, m in found if m == "txl" or m.startswith("txl.")]


def _within(mod, prefix):
    return mod == prefix or mod.startswith(prefix + ".")


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports_only_downward(layer):
    bad = []
    for name, path in _modules(layer):
        for line, mod in _imports(name, path):
            if _within(mod, layer) or any(_within(mod, ok) for ok in ALLOWED[layer]):
                continue
            # `from .core import x` inside txl.language resolves to txl.language.core.x: fine (within the layer)
            bad.append("%s:%d imports %s" % (os.path.relpath(path, PKG), line, mod))
    assert not bad, "upward imports from %s:\n  %s" % (layer, "\n  ".join(bad))


def test_the_check_sees_a_function_local_upward_import(tmp_path):
    """The checker itself: a function-local `from ..jit import X` inside txl.language is reported."""
    src = tmp_path / "probe.py"
    src.write_text("def f():\n    from ..jit import JITFunction\n    return JITFunction\n")
    assert _imports("txl.language.probe", str(src)) == [(2, "txl.jit.JITFunction")]
