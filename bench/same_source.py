"""The same kernel source under Triton: a txl kernel file with its txl imports and decorators swapped for Triton's,
written to a temporary file (Triton reads a kernel's source from its file) and imported. The benches that compare
txl with Triton 3.6 on one source use it (bench/nsa.py, bench/mla_decode.py)."""

import importlib.util
import os
import sys
import tempfile

SWAPS = (("import txl.language as tl", "import triton.language as tl"), ("import txl\n", "import triton\n"),
         ("@txl.jit", "@triton.jit"))


def load_with_triton(path, name):
    """The module at ``path`` (a Triton-style txl kernel file) compiled by Triton, as module ``name``."""
    with open(path) as f:
        src = f.read()
    for a, b in SWAPS:
        if a not in src:
            raise RuntimeError("%s: expected %r in the kernel source" % (path, a))
        src = src.replace(a, b)
    out = os.path.join(tempfile.mkdtemp(), name + ".py")
    with open(out, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location(name, out)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod
