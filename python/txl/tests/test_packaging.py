"""Packaging without building anything: what pyproject.toml ships, and where txl looks for its compiler (TXL_TXLC,
then the wheel's bundled txl/_bin/txlc, then a checkout's build/bin/txlc, then PATH). The wheel itself is built by
scripts/build-wheel.sh and was checked on a GPU host (docs/reliability-and-call-cost.md)."""

import os
import stat
import sys

import pytest

from txl.compiler import compiler as C

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is Python 3.11+")
def test_pyproject_ships_the_package_and_the_bundled_compiler():
    import tomllib

    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        meta = tomllib.load(f)
    find = meta["tool"]["setuptools"]["packages"]["find"]
    assert find["where"] == ["python"] and "txl.tests*" in find["exclude"]
    assert meta["tool"]["setuptools"]["package-data"]["txl"] == ["_bin/txlc"]
    # the package's version is txl's own; txl.__version__ is the Triton version txl implements (libraries branch on
    # it under `import txl as triton`), so the wheel must not take that one
    assert meta["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "txl.txl_version"}


def _exe(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def test_compiler_lookup_order(tmp_path, monkeypatch):
    assert C.TXLC_SEARCH_PATHS[0].endswith(os.path.join("txl", "_bin", "txlc"))  # the wheel's, before a checkout's
    bundled, checkout, env = (_exe(str(tmp_path / d / "txlc")) for d in ("bundled", "checkout", "env"))
    monkeypatch.setattr(C, "TXLC_SEARCH_PATHS", [bundled, checkout])
    monkeypatch.setattr(C, "SEARCH_PATH_ENV", False)
    monkeypatch.delenv("TXL_TXLC", raising=False)
    assert C.find_txlc() == bundled
    monkeypatch.setenv("TXL_TXLC", env)
    assert C.find_txlc() == env  # an explicit choice wins over the bundled compiler
    os.remove(bundled)
    monkeypatch.delenv("TXL_TXLC")
    assert C.find_txlc() == checkout
