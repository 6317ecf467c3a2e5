"""On-disk cache of compiled kernels, usable on a GPU host that has no compiler.

A kernel is compiled on a machine with ``txlc`` (and MLIR); the GPU host may have only Python, the NVIDIA driver
and torch. So the lookup must not need the compiler: everything a key is made of has to be computable in Python.

Layout (``TXL_CACHE_DIR``, default ``~/.cache/txl``)::

    <root>/kernels/<frontend_key>/<compiler_id>/   one compiled kernel (a complete directory, or nothing)
        manifest.json                             what, when, by which compiler, from which options
        <kernel>.mlir                             the frontend IR it was compiled from (for reproduction)
        <kernel>.ptx  <kernel>.json  [<kernel>.cubin]   what txlc wrote; the sidecar names the other two
    <root>/compiler.json                          the compiler_id that last wrote to this cache
    <root>/autotune/<kernel>-<hash>.json          best configs found by txl.autotune

Keys:

* ``frontend_key = sha256(cache format version, frontend IR text, options)``. The frontend IR is the output of
  ``ast_to_ir`` for one specialisation: it already reflects the kernel's source, the functions it calls, its
  constexpr values and its signature, so those need no separate hashing. The options are those that change what
  txlc produces from that IR (target, warps, debug_hangs, ...).
* ``compiler_id`` identifies the compiler: the sha256 of the txlc binary (and of ``ptxas --version`` when a cubin
  is made). It needs the binary, so it is the one part the GPU host may be unable to compute.

Lookup: with a compiler at hand, the exact ``<frontend_key>/<compiler_id>`` entry must exist, so a rebuilt
compiler recompiles everything. Without one (the GPU host), any entry under ``<frontend_key>`` is a valid
compilation of exactly this IR with these options; we take the one made by the compiler recorded in
``compiler.json`` (the latest compiler that wrote here), else the newest. The risk of that choice is only running
code from an older compiler for the same IR, never code for a different kernel or specialisation.

Writes are atomic: an entry is written into a temporary directory next to its final place and renamed into place
in one step, so a reader never sees a half-written entry and concurrent writers of the same entry are harmless
(the second rename fails and its copy is discarded). Nothing is written when a compilation fails.
"""

import hashlib
import json
import os
import re
import shutil
import tempfile
import time

# Bump when the layout of an entry or the makeup of the key changes: old entries are then simply not found.
CACHE_FORMAT = 1
MANIFEST = "manifest.json"


def default_cache_dir():
    """``TXL_CACHE_DIR``, else ``$XDG_CACHE_HOME/txl`` or ``~/.cache/txl``."""
    env = os.environ.get("TXL_CACHE_DIR")
    if env:
        return os.path.abspath(os.path.expanduser(env))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "txl")


def sha256_hex(data):
    if isinstance(data, str):
        data = data.encode()
    return hashlib.sha256(data).hexdigest()


# loc("/any/dir/kernel.py":12:5) -> loc("kernel.py":12:5); see frontend_key.
_LOC_DIR = re.compile(r'loc\("[^"]*/([^"/]*)"')


def frontend_key(ir_text, options):
    """The cache key of one specialisation: the frontend IR and the compile options (a JSON-able dict).

    The directories in the IR's source locations are left out: the GPU host's checkout usually lives at another
    path than the compile host's, and the code does not depend on them (only ``--debug-hangs`` messages print
    locations, and those then name the compile host's directory)."""
    ir = _LOC_DIR.sub(r'loc("\1"', ir_text)
    payload = json.dumps({"format": CACHE_FORMAT, "ir": sha256_hex(ir), "options": options}, sort_keys=True)
    return sha256_hex(payload)


def _write_atomic(path, data):
    """Write a small file through a temporary file and os.replace (atomic on POSIX)."""
    d = os.path.dirname(path)
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class CacheEntry:
    """One compiled kernel in the cache: a directory with a manifest and the files it lists."""

    def __init__(self, path, manifest):
        self.path = path
        self.manifest = manifest

    compiler_id = property(lambda self: self.manifest.get("compiler_id"))
    kernel = property(lambda self: self.manifest.get("kernel"))

    def file(self, what):
        """Absolute path of the entry's ``what`` file ("ptx", "json", "cubin", "ir"), or None."""
        name = self.manifest.get("files", {}).get(what)
        return os.path.join(self.path, name) if name else None

    def read(self, what, binary=False):
        p = self.file(what)
        if p is None or not os.path.exists(p):
            return None
        with open(p, "rb" if binary else "r") as f:
            return f.read()

    def __repr__(self):
        return "CacheEntry(%s)" % self.path


class KernelCache:
    """The cache rooted at ``root`` (default: ``default_cache_dir()``, read when the cache is created)."""

    def __init__(self, root=None):
        self.root = os.path.abspath(root) if root else default_cache_dir()

    def _key_dir(self, fkey):
        return os.path.join(self.root, "kernels", fkey)

    @staticmethod
    def _load(path):
        try:
            with open(os.path.join(path, MANIFEST)) as f:
                m = json.load(f)
        except (OSError, ValueError):
            return None  # not an entry (a stray directory, or damaged): ignore it
        return CacheEntry(path, m) if isinstance(m, dict) else None

    def entries(self, fkey):
        """Every complete entry compiled from this frontend key (any compiler)."""
        d = self._key_dir(fkey)
        try:
            names = os.listdir(d)
        except OSError:
            return []
        out = []
        for n in names:
            if n.startswith("."):
                continue  # a write in progress (or abandoned by a killed process)
            e = self._load(os.path.join(d, n))
            if e is not None:
                out.append(e)
        return out

    def latest_compiler_id(self):
        try:
            with open(os.path.join(self.root, "compiler.json")) as f:
                return json.load(f).get("compiler_id")
        except (OSError, ValueError, AttributeError):
            return None

    def lookup(self, fkey, compiler_id=None):
        """The entry for ``fkey``: exactly ``compiler_id``'s when it is given (a compiler is available), else the
        best one without a compiler (see the module docstring). None on a miss."""
        if compiler_id is not None:
            return self._load(os.path.join(self._key_dir(fkey), compiler_id))
        found = self.entries(fkey)
        if not found:
            return None
        latest = self.latest_compiler_id()
        for e in found:
            if latest is not None and e.compiler_id == latest:
                return e
        return max(found, key=lambda e: e.manifest.get("created", 0))

    def store(self, fkey, compiler_id, files, manifest):
        """Add an entry. ``files`` maps a role ("ptx", "json", "cubin", "ir") to (file name, str or bytes).
        Returns the CacheEntry (another process's identical entry if it won the race)."""
        d = self._key_dir(fkey)
        os.makedirs(d, exist_ok=True)
        tmp = tempfile.mkdtemp(dir=d, prefix=".tmp-")
        final = os.path.join(d, compiler_id)
        try:
            m = dict(manifest, compiler_id=compiler_id, frontend_key=fkey, format=CACHE_FORMAT, created=time.time(),
                     files={})
            for role, (name, data) in files.items():
                with open(os.path.join(tmp, name), "wb") as f:
                    f.write(data.encode() if isinstance(data, str) else data)
                m["files"][role] = name
            with open(os.path.join(tmp, MANIFEST), "w") as f:
                json.dump(m, f, indent=1, sort_keys=True)
            try:
                os.rename(tmp, final)
            except OSError:
                # Someone else stored it first (rename onto a non-empty directory fails): keep theirs.
                shutil.rmtree(tmp, ignore_errors=True)
                if self._load(final) is None:
                    raise
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        _write_atomic(os.path.join(self.root, "compiler.json"),
                      json.dumps({"compiler_id": compiler_id, "updated": time.time()}))
        return self._load(final)

    # -- autotuning results ----------------------------------------------------------------------------------
    def autotune_path(self, name, digest):
        return os.path.join(self.root, "autotune", "%s-%s.json" % (name, digest[:16]))

    def read_json(self, path):
        try:
            with open(path) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def write_json(self, path, obj):
        _write_atomic(path, json.dumps(obj, indent=1, sort_keys=True))
