"""Fill a kernel cache for a GPU host that has no compiler.

    python3 python/txl/tools/precompile.py /tmp/txl-cache            # here: txlc, no GPU or torch needed
    TXL_CACHE_DIR=/tmp/txl-cache python3 -m pytest -q python/txl/tests/gpu   # there: no txlc

Compiles every case of ``python/txl/tests/gpu/dsl_cases.py`` and of the other ``*_cases.py`` modules there (each
has a ``CASES`` list of ``dsl_cases.Case``: the specialisations the GPU tests launch, same arguments, dtypes,
constexprs and options, built from shape-only stand-in tensors) into CACHE_DIR. Cases whose
kernel module is not written yet are reported and skipped. Exit status 1 if any case failed to compile.
"""

import argparse
import glob
import importlib
import os
import sys
import time

if __package__ in (None, ""):  # run as a file: make `import txl` work from the checkout
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def all_cases():
    """dsl_cases.CASES, then the CASES of every other python/txl/tests/gpu/*_cases.py (sorted by file name)."""
    from txl.tests.gpu import dsl_cases

    cases = list(dsl_cases.CASES)
    gpu_dir = os.path.dirname(os.path.abspath(dsl_cases.__file__))
    for path in sorted(glob.glob(os.path.join(gpu_dir, "*_cases.py"))):
        name = os.path.splitext(os.path.basename(path))[0]
        if name != "dsl_cases":
            cases += list(getattr(importlib.import_module("txl.tests.gpu." + name), "CASES", []))
    return cases


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cache_dir", help="the cache directory to fill (created if missing; becomes TXL_CACHE_DIR)")
    ap.add_argument("--case", action="append", default=[], help="compile only this case (repeatable)")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    args = ap.parse_args(argv)

    os.environ["TXL_CACHE_DIR"] = os.path.abspath(args.cache_dir)
    from txl.compiler.compiler import find_txlc
    try:
        from txl.tests.gpu import dsl_cases
    except ImportError:  # an installed wheel: it leaves the tests (and so their cases) out
        import txl
        print("error: precompile compiles the cases of the GPU tests (python/txl/tests/gpu), which the installed "
              "package (%s) does not include; run it from a checkout: python3 python/txl/tools/precompile.py DIR"
              % os.path.dirname(txl.__file__), file=sys.stderr)
        return 2

    cases = all_cases()
    if args.list:
        for c in cases:
            print(c.name)
        return 0
    if args.case:
        unknown = sorted(set(args.case) - {c.name for c in cases})
        if unknown:
            ap.error("unknown case(s) %s; the cases are: %s" % (", ".join(unknown), ", ".join(c.name for c in cases)))
        cases = [c for c in cases if c.name in args.case]
    txlc = find_txlc()
    if txlc is None:
        print("error: no txlc (build it with scripts/setup.sh, or set TXL_TXLC)", file=sys.stderr)
        return 1
    print("txlc %s -> cache %s" % (txlc, os.environ["TXL_CACHE_DIR"]))
    failed = 0
    for c in cases:
        t = time.time()
        try:
            _, compiled = dsl_cases.run_case(c, dsl_cases.MetaFactory(), launch=False)
        except dsl_cases.Skip as e:
            print("  %-24s skipped: %s" % (c.name, e))
            continue
        except Exception as e:
            failed += 1
            print("  %-24s FAILED: %s: %s" % (c.name, type(e).__name__, e))
            continue
        for k in compiled if isinstance(compiled, list) else [compiled]:
            print("  %-24s %s key %s (%.1f s)" % (c.name, k.name, k.key[:16], time.time() - t))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
