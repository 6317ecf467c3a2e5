"""``txl.compile``: frontend IR -> txlc -> PTX (+ cubin) + sidecar, through the on-disk cache.

Compiling needs neither a GPU nor torch. The frontend (``txl.compiler.code_generator.ast_to_ir``) turns a
``@txl.jit`` function and one specialisation (signature + constexpr values) into txl IR text; the C++ compiler
``txlc`` runs as a subprocess (there are no MLIR Python bindings) and writes ``k.ptx``, the sidecar ``k.json`` and,
when ptxas exists, ``k.cubin``. The result is a ``CompiledKernel``; ``compiled[grid](*args)`` launches it through
``txl.runtime``.

Where txlc comes from: ``TXL_TXLC`` (authoritative when set), else the one a wheel bundles (``txl/_bin/txlc``,
scripts/build-wheel.sh), else ``<repo>/build/bin/txlc``, else ``txlc`` on PATH. A machine without txlc (a GPU
host) can still run kernels whose entries are in the cache (see ``cache.py``: the key is computed from the
frontend IR, in Python).

Debugging (docs/txl-reference.md §3d):

* ``stages=("txl-lower-loads",)`` or ``"all"``: ``compiled.asm[stage]`` is the IR after that pipeliner stage
  (``txlc --stop-after=<stage>``). ``dump_ir=True`` or ``TXL_DUMP_IR=1`` prints the IR after every stage.
* ``diff_select=k``: prints the numbered stage list and a unified diff of what stage k changed.
* ``log_dir=<dir>`` or ``TXL_KEEP_TEMPS=1``: keeps the frontend IR, PTX, sidecar, cubin and stage dumps in a
  directory and prints where.
"""

import difflib
import hashlib
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

from .cache import KernelCache, frontend_key

# Where to look for txlc after TXL_TXLC. Tests replace this list to simulate a machine without the compiler.
_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
_BUNDLED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "_bin", "txlc")
TXLC_SEARCH_PATHS = [_BUNDLED, os.path.join(_REPO, "build", "bin", "txlc")]
SEARCH_PATH_ENV = True  # also try `txlc` on PATH (tests turn this off)
PTXAS_FALLBACK = "/usr/local/cuda/bin/ptxas"


# ---------------------------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------------------------
class TxlCompileError(RuntimeError):
    """txlc rejected a kernel. ``diagnostics`` holds its messages (MLIR locations: the frontend's Python
    file:line:col where it recorded them, else the kept ``.mlir`` file, whose path is ``ir_path``)."""

    def __init__(self, message, kernel=None, diagnostics="", ir_path=None, command=None):
        RuntimeError.__init__(self, message)
        self.message = message
        self.kernel = kernel
        self.diagnostics = diagnostics
        self.ir_path = ir_path
        self.command = command

    def __str__(self):
        return self.message


class TxlCompilerNotFoundError(RuntimeError):
    """No txlc on this machine and the kernel is not in the cache."""


_error_cls = None
_error_cls_lock = threading.Lock()


def _compile_error_class():
    """TxlCompileError, made a subclass of the frontend's ``txl.errors.CompilationError`` too when that
    module exists, so that ``except CompilationError`` catches back-end and front-end errors alike."""
    global _error_cls
    # Under a lock, assigned once: compiles run in threads (txl.autotune), and a thread must neither see a half-made
    # choice nor make a second class.
    with _error_cls_lock:
        if _error_cls is None:
            cls = TxlCompileError
            try:
                from ..errors import CompilationError
            except Exception:
                CompilationError = None
            if isinstance(CompilationError, type) and not issubclass(TxlCompileError, CompilationError):
                try:
                    cls = type("TxlCompileError", (TxlCompileError, CompilationError),
                               {"__init__": TxlCompileError.__init__, "__str__": TxlCompileError.__str__,
                                "__module__": __name__})
                except TypeError:  # incompatible layouts: keep ours
                    pass
            _error_cls = cls
    return _error_cls


# ---------------------------------------------------------------------------------------------------------------
# Finding the tools
# ---------------------------------------------------------------------------------------------------------------
def _is_exe(p):
    return bool(p) and os.path.isfile(p) and os.access(p, os.X_OK)


def txlc_candidates():
    """Where find_txlc looks, in order (for error messages)."""
    env = os.environ.get("TXL_TXLC")
    if env:
        return ["$TXL_TXLC=" + env]
    return list(TXLC_SEARCH_PATHS) + (["txlc on PATH"] if SEARCH_PATH_ENV else [])


def find_txlc():
    """Path of txlc, or None. ``TXL_TXLC`` is authoritative when set (so ``TXL_TXLC=/nonexistent`` hides the
    compiler, e.g. to prove that a kernel runs from the cache alone)."""
    env = os.environ.get("TXL_TXLC")
    if env:
        return os.path.abspath(env) if _is_exe(env) else None
    for p in TXLC_SEARCH_PATHS:
        if _is_exe(p):
            return p
    if SEARCH_PATH_ENV:
        return shutil.which("txlc")
    return None


def find_ptxas():
    """The ptxas txlc would use (its order: $TXL_PTXAS, PATH, /usr/local/cuda/bin/ptxas), or None."""
    env = os.environ.get("TXL_PTXAS")
    if env:
        return env if _is_exe(env) else None
    return shutil.which("ptxas") or (PTXAS_FALLBACK if _is_exe(PTXAS_FALLBACK) else None)


_id_cache = {}


def _file_sha256(path):
    st = os.stat(path)
    key = (path, st.st_size, st.st_mtime_ns)
    hit = _id_cache.get(key)
    if hit is None:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        hit = _id_cache[key] = h.hexdigest()
    return hit


def compiler_id(txlc, ptxas=None):
    """Identity of the compiler: the txlc binary's sha256 and, when a cubin is made, ptxas's version."""
    parts = ["txlc:" + _file_sha256(txlc)]
    if ptxas:
        key = ("ptxas", ptxas)
        ver = _id_cache.get(key)
        if ver is None:
            try:
                ver = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout.strip()
            except OSError:
                ver = "?"
            _id_cache[key] = ver
        parts.append("ptxas:" + ver)
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]


_stage_cache = {}


def pipeline_stages(txlc):
    """The ordered pipeline stage names (``txlc --print-pipeline``)."""
    hit = _stage_cache.get(txlc)
    if hit is None:
        r = subprocess.run([txlc, "--print-pipeline"], capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError("%s --print-pipeline failed: %s" % (txlc, r.stderr.strip()))
        hit = _stage_cache[txlc] = [s for s in r.stdout.split() if s]
    return list(hit)


def _no_compiler(what, cache, fkey, in_cache=False):
    looked = ", ".join(txlc_candidates())
    if in_cache:
        return TxlCompilerNotFoundError(
            "%s needs the txl compiler (stage IR is not cached, only the PTX), but no txlc was found (looked at: "
            "%s). Build it with scripts/setup.sh (build/bin/txlc) or point TXL_TXLC at it." % (what, looked))
    return TxlCompilerNotFoundError(
        "%s needs the txl compiler, but no txlc was found (looked at: %s), and the cache %s has no entry for this "
        "specialisation (key %s). Either build the compiler (scripts/setup.sh, which puts it in build/bin/txlc) or "
        "point TXL_TXLC at it; or, on a machine without the compiler, set TXL_CACHE_DIR to a cache filled where "
        "txlc exists (python3 python/txl/tools/precompile.py <dir>) with the same kernel source, constexprs, "
        "argument types and launch options." % (what, looked, cache.root, fkey[:16]))


# ---------------------------------------------------------------------------------------------------------------
# The frontend
# ---------------------------------------------------------------------------------------------------------------
def _accepts(fn, name):
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind == p.VAR_KEYWORD for p in params.values())


def frontend_ir(fn, signature, constexprs, num_warps=4, num_warpgroups=1, target="sm_90a", num_stages=None,
                num_ctas=1):
    """The txl IR text of one specialisation of ``fn`` (a JITFunction), from the frontend."""
    try:
        from .code_generator import ast_to_ir
    except ImportError as e:
        raise ImportError("txl.compile of a @txl.jit function needs the DSL frontend (txl.compiler.code_generator), "
                          "which cannot be imported: %s. Pass txl IR text or an .mlir path instead." % e) from e
    kw = dict(num_warps=num_warps, num_warpgroups=num_warpgroups, target=target)
    if num_stages is not None:
        if not _accepts(ast_to_ir, "num_stages"):
            raise TypeError("num_stages=%r: txl kernels choose their pipeline depth themselves; pass it as a "
                            "constexpr (e.g. NUM_STAGES=%r) instead" % (num_stages, num_stages))
        kw["num_stages"] = num_stages
    if num_ctas != 1:
        kw["num_ctas"] = num_ctas
    # ast_to_ir checks that both are dicts (a CompilationError at the kernel's def otherwise).
    ir = ast_to_ir(fn, signature, constexprs, **kw)
    if not isinstance(ir, str):
        ir = str(ir)
    return ir


_FRONTEND_LOCK = threading.RLock()  # see compile(); reentrant in case a frontend callback compiles again

# func.func @name( (custom form, hand-written IR) or "func.func"() <{..., sym_name = "name"}> (the frontend's).
_KERNEL_RE = re.compile(r'func\.func\s+@([\w$.]+)\s*\(|"func\.func"\(\)\s*<\{[^\n]*?\bsym_name\s*=\s*"([\w$.]+)"')


def _ir_kernel_name(ir):
    """Name of the txl.kernel function in IR text (the first function when none is marked)."""
    found = list(_KERNEL_RE.finditer(ir))
    for i, m in enumerate(found):
        # The attribute dict sits between the name and the body; stop at the next function.
        end = found[i + 1].start() if i + 1 < len(found) else len(ir)
        if "txl.kernel" in ir[m.end():end]:
            return m.group(1) or m.group(2)
    return (found[0].group(1) or found[0].group(2)) if found else "kernel"


def _where(fn):
    """'name (file:line)' for messages."""
    if hasattr(fn, "file") and hasattr(fn, "starting_line_number"):
        return "%s (%s:%d)" % (fn.__name__, fn.file, fn.starting_line_number)
    return getattr(fn, "__name__", "kernel")


# ---------------------------------------------------------------------------------------------------------------
# The compiled kernel
# ---------------------------------------------------------------------------------------------------------------
_ARCH_RE = re.compile(r"sm_(\d+)")


class KernelMetadata(dict):
    """A compiled kernel's metadata: the sidecar txlc wrote (a dict: ``kernel``, ``arch``, ``threads``,
    ``shared_bytes``, ``cluster``, ``params``, ...), readable as Triton's ``CompiledKernel.metadata`` too: its keys
    and Triton's names are attributes. ``shared`` (bytes of dynamic shared memory a block gets), ``num_warps``
    (warps of a block as launched), ``num_stages`` (as requested; None: the compiler's choice), ``num_ctas`` (CTAs
    of a cluster), ``cluster_dims``, ``name``, ``hash``, ``target`` (GPUTarget), ``global_scratch_size`` (bytes per
    CTA) / ``global_scratch_align``, ``profile_scratch_size`` (0), ``tmem_size`` (None), ``debug``,
    ``launch_cooperative_grid`` / ``launch_pdl`` (False) and ``maxnreg`` (None)."""

    def __init__(self, sidecar=(), options=None, key=None):
        dict.__init__(self, sidecar)
        options = dict(options or {})
        threads = self.get("threads") or [128, 1, 1]
        cluster = self.get("cluster") or [1, 1, 1]
        m = _ARCH_RE.match(str(self.get("arch") or options.get("target", "sm_90a")))
        scratch = [p for p in self.get("params", []) if isinstance(p, dict) and p.get("kind") == "global_scratch"]
        from ..runtime.active_driver import GPUTarget

        n_threads, n_ctas = 1, 1
        for t in threads:
            n_threads *= int(t)
        for c in cluster:
            n_ctas *= int(c)
        self.__dict__["_triton"] = {
            "name": self.get("kernel"), "hash": key, "shared": int(self.get("shared_bytes", 0)),
            "num_warps": n_threads // 32, "num_stages": options.get("num_stages"),
            "num_warpgroups": options.get("num_warpgroups", 1), "num_ctas": n_ctas, "cluster_dims": tuple(cluster),
            "target": GPUTarget("cuda", int(m.group(1)) if m else 90, 32),
            "global_scratch_size": int(scratch[0].get("bytes", 0)) if scratch else 0,
            "global_scratch_align": 128 if scratch else 1, "profile_scratch_size": 0, "profile_scratch_align": 1,
            "tmem_size": None, "debug": bool(options.get("debug_hangs", False)), "launch_cooperative_grid": False,
            "launch_pdl": False, "maxnreg": None,
        }

    def __getattr__(self, name):
        triton = self.__dict__.get("_triton", {})
        if name in triton:
            return triton[name]
        if name in self:
            return self[name]
        raise AttributeError("the kernel metadata has no %r (sidecar keys: %s; Triton's names: %s)"
                             % (name, ", ".join(map(str, self)), ", ".join(triton)))

    def __setattr__(self, name, value):
        raise AttributeError("the kernel metadata is read-only (set %r in the sidecar dict instead: metadata[%r])"
                             % (name, name))

    def _asdict(self):
        """Triton's names and the sidecar keys, as one dict (Triton's metadata is a namedtuple)."""
        return dict(self.__dict__.get("_triton", {}), **self)


class CompiledKernel:
    """A compiled specialisation.

    ``asm``: ``"txl"`` (frontend IR), ``"ptx"``, ``"cubin"`` (bytes; absent without ptxas), ``"json"`` (sidecar
    text) and one entry per requested pipeline stage. ``metadata``: the sidecar dict, also readable as Triton's
    metadata (``metadata.shared``, ``metadata.num_warps``, ...: KernelMetadata). ``key`` (and ``hash``): the cache
    key.

    Launching: ``compiled[grid](*args, stream=None)`` takes either the kernel's run-time arguments (the sidecar's
    params, as the runtime's ``Kernel``; keywords by param name) or, as Triton's ``CompiledKernel``, every argument
    of the ``@jit`` function in order, constexprs included (those must equal the values it was compiled with and
    are not passed). ``txl.TensorDescriptor`` arguments go as their tensors (the launcher encodes them).

    Triton's handles: ``_init_handles()`` loads the kernel on the current device (a GPU is needed) and sets
    ``module``, ``function``, ``n_regs`` (registers per thread), ``n_spills`` (local memory per thread / 4, as
    Triton's) and ``n_max_threads``; it raises OutOfResources when a block is too large for the device. Before it,
    ``n_regs`` / ``n_spills`` come from ``ptxas -v`` on the PTX where ptxas is installed (no GPU needed).
    """

    def __init__(self, name, asm, metadata, options, key, compiler_id=None, cache_path=None, where=None, *,
                 arg_names=None, signature=None, constants=None):
        self.name = name
        self.asm = asm
        self.metadata = metadata if isinstance(metadata, KernelMetadata) else KernelMetadata(metadata, options, key)
        self.options = options
        self.key = self.hash = key
        self.compiler_id = compiler_id
        self.cache_path = cache_path
        self.where = where or name
        # The @jit function's parameters, and which of them are run-time (signature) or compile-time (constants).
        self.arg_names = list(arg_names) if arg_names is not None else None
        self.signature = dict(signature or {})
        self.constants = dict(constants or {})
        self._kernel = None
        self.module = self.function = None
        self._resources = None  # {"n_regs", "n_spills", ...}: from the driver after _init_handles, else ptxas

    def launcher(self):
        """The ``txl.runtime.Kernel`` (created once; the GPU module loads on the first launch)."""
        if self._kernel is None:
            from ..runtime import Kernel  # no driver is touched until a launch
            cubin = self.asm.get("cubin")
            if cubin is not None:
                self._kernel = Kernel.from_cubin(cubin, self.metadata, ptx_text=self.asm["ptx"])
            else:
                self._kernel = Kernel.from_ptx(self.asm["ptx"], self.metadata)
        return self._kernel

    def __getitem__(self, grid):
        kernel = self.launcher()

        def runner(*args, stream=None, **kwargs):
            args, kwargs = self._launch_args(kernel, args, kwargs)
            return kernel.launch(grid, *args, stream=stream, **kwargs)

        return runner

    def check_args(self, *args, **kwargs):
        """Check a launch's arguments as ``compiled[grid](*args, **kwargs)`` would, without a GPU (TypeError /
        ValueError on a bad one); returns the runtime's packed arguments."""
        kernel = self.launcher()
        args, kwargs = self._launch_args(kernel, args, kwargs)
        return kernel.check_args(*args, **kwargs)

    def _launch_args(self, kernel, args, kwargs):
        """The runtime Kernel's arguments of a launch (see the class docstring)."""
        from ..jit import TensorDescriptor

        n_params = len(kernel.params)
        names = self.arg_names
        if names is not None and not kwargs and len(args) == len(names) and len(names) != n_params:
            given = dict(zip(names, args))
            for n, want in self.constants.items():
                v = given.get(n)
                v = getattr(v, "value", v) if type(v).__name__ == "constexpr" else v
                try:
                    same = v is want or bool(v == want)
                except Exception:
                    same = True
                if not same:
                    raise ValueError("%s: argument '%s' is %r, but this kernel was compiled with %s=%r (a "
                                     "compile-time value): compile (or warm up) the kernel for %s=%r"
                                     % (self.where, n, v, n, want, n, v))
            # The sidecar names the params after the @jit parameters, or (IR without names) they are the run-time
            # parameters in order, as JITFunction.run maps them.
            run_time = [p.name for p in kernel.params]
            if not all(n in given for n in run_time):
                run_time = [n for n in names if n in self.signature]
            if len(run_time) != n_params:
                raise TypeError("%s: the compiled kernel takes %d run-time arguments but its signature has %d (%s)"
                                % (self.where, n_params, len(run_time), ", ".join(run_time)))
            args = [given[n] for n in run_time]
        unwrap = lambda v: v.base if isinstance(v, TensorDescriptor) else v  # noqa: E731
        return [unwrap(a) for a in args], {k: unwrap(v) for k, v in kwargs.items()}

    # -- Triton's handles and resource counts --------------------------------------------------------------------
    def _init_handles(self, device=None):
        """Load the kernel on ``device`` (default: the current one) and read its resource use from the driver
        (Triton's CompiledKernel._init_handles). Needs a GPU: without a driver or a device it raises the runtime's
        TxlDriverNotFoundError / TxlNoDeviceError."""
        if self.function is not None:
            return
        from ..runtime import OutOfResources

        kernel = self.launcher()
        self.module, self.function = kernel.load(device)
        attrs = kernel.function_attributes(device)
        self._resources = {"n_regs": attrs["n_regs"], "n_spills": attrs["local_bytes"] // 4,
                           "n_max_threads": attrs["max_threads"]}
        threads = self.metadata.num_warps * 32
        if threads > attrs["max_threads"]:
            raise OutOfResources(threads, attrs["max_threads"], "threads")

    def _static_resources(self):
        """{"n_regs", "n_spills"} from ``ptxas -v`` on the PTX (stack frame bytes / 4 as the spills, as the
        driver's local size), or None without ptxas."""
        if self._resources is None:
            ptxas = find_ptxas()
            if ptxas is None or "ptx" not in self.asm:
                return None
            arch = self.metadata.get("arch") or self.options.get("target", "sm_90a")
            work = tempfile.mkdtemp(prefix="txl-ptxas-")
            try:
                src = os.path.join(work, "k.ptx")
                with open(src, "w") as f:
                    f.write(self.asm["ptx"])
                r = subprocess.run([ptxas, "-v", "-arch=" + arch, src, "-o", os.path.join(work, "k.cubin")],
                                   capture_output=True, text=True)
            finally:
                shutil.rmtree(work, ignore_errors=True)
            out = r.stdout + r.stderr
            entry = out.split("Compiling entry function '%s'" % self.name)[-1]
            regs = re.search(r"Used (\d+) registers", entry)
            frame = re.search(r"(\d+) bytes stack frame", entry)
            if r.returncode or regs is None:
                return None
            self._resources = {"n_regs": int(regs.group(1)),
                               "n_spills": int(frame.group(1)) // 4 if frame else 0}
        return self._resources

    def _resource(self, name):
        res = self._resources if self.function is not None else self._static_resources()
        if res is None or name not in res:
            raise AttributeError("%s: %s is known after kernel._init_handles(), which loads the kernel on a GPU "
                                 "(or, without a GPU, from ptxas -v, which is not installed here)"
                                 % (self.where, name))
        return res[name]

    n_regs = property(lambda self: self._resource("n_regs"))
    n_spills = property(lambda self: self._resource("n_spills"))
    n_max_threads = property(lambda self: self._resource("n_max_threads"))

    @property
    def params(self):
        return [p.get("name") for p in self.metadata.get("params", [])]

    def __repr__(self):
        return "<txl CompiledKernel %s threads=%s shared=%s key=%s>" % (
            self.name, self.metadata.get("threads"), self.metadata.get("shared_bytes"), self.key[:12])


# ---------------------------------------------------------------------------------------------------------------
# Running txlc
# ---------------------------------------------------------------------------------------------------------------
def _txlc_flags(target, debug_hangs, libdevice=None):
    # num_warps reaches txlc once, in the module (txl.num_warps / txl.role_warps), never as a flag.
    flags = ["--arch=" + target]
    if debug_hangs:
        flags.append("--debug-hangs")
    libdevice = libdevice or _triton_libdevice()
    if libdevice:
        flags.append("--libdevice=" + libdevice)
    return flags


_LIBDEVICE = []


def _triton_libdevice():
    """Where no CUDA toolkit provides libdevice.10.bc (txlc looks for TXL_LIBDEVICE and the toolkit's copy
    itself), the copy an installed Triton bundles, found without importing triton; else None."""
    if not _LIBDEVICE:
        found = None
        cuda = [os.environ.get("TXL_LIBDEVICE")] + [os.path.join(r, "nvvm", "libdevice", "libdevice.10.bc") for r in
                                                    (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"),
                                                     "/usr/local/cuda") if r]
        if not any(p and os.path.exists(p) for p in cuda):
            import importlib.util
            spec = importlib.util.find_spec("triton")
            for loc in (spec.submodule_search_locations or []) if spec else []:
                p = os.path.join(loc, "backends", "nvidia", "lib", "libdevice.10.bc")
                if os.path.exists(p):
                    found = p
                    break
        _LIBDEVICE.append(found)
    return _LIBDEVICE[0]


def _run_txlc(cmd, kernel, ir_path, result=None):
    """txlc's stdout; a failure raises TxlCompileError. ``result``: the CompletedProcess of a run already done."""
    r = result or subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        diag = (r.stderr or r.stdout).strip()
        raise _compile_error_class()(
            "txlc failed to compile kernel %s:\n%s\n(the frontend IR is kept in %s; reproduce with: %s)"
            % (kernel, diag, ir_path, " ".join(cmd)), kernel=kernel, diagnostics=diag, ir_path=ir_path, command=cmd)
    if r.stderr.strip():
        sys.stderr.write(r.stderr)  # warnings and remarks from a successful run
    return r.stdout


def _stage_ir(txlc, ir_path, stage, flags, kernel):
    return _run_txlc([txlc, ir_path, "--stop-after=" + stage] + flags, kernel, ir_path)


def _stages_ir(txlc, ir_path, stages, wanted, flags, kernel):
    """{stage index: IR after it} for the `wanted` indices, from one txlc run up to the last of them
    (``--dump-stages``); one run per stage with a txlc that predates that option."""
    if not wanted:
        return {}
    last = stages[max(wanted)]
    with tempfile.TemporaryDirectory(prefix="txl-stages-") as d:
        cmd = [txlc, ir_path, "--stop-after=" + last, "--dump-stages=" + d] + flags
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode and "dump-stages" in (r.stderr or ""):
            return {i: _stage_ir(txlc, ir_path, stages[i], flags, kernel) for i in wanted}
        _run_txlc(cmd, kernel, ir_path, result=r)
        out = {}
        for i in wanted:
            with open(os.path.join(d, "%02d-%s.mlir" % (i, stages[i]))) as f:
                out[i] = f.read()
        return out


def _roundtrip(txlc, ir_path, ir):
    """The frontend IR as the MLIR printer writes it (so a diff of stage 0 shows only real changes); the raw
    text when txl-opt is not next to txlc."""
    opt = os.path.join(os.path.dirname(txlc), "txl-opt")
    if _is_exe(opt):
        r = subprocess.run([opt, ir_path], capture_output=True, text=True)
        if r.returncode == 0:
            return r.stdout
    return ir


def _print_diff(kernel, stages, k, before, after, out, log_dir=None):
    lines = ["txl diff_mode: pipeline stages of %s:" % kernel]
    for i, s in enumerate(stages):
        lines.append("  %2d %s%s" % (i, s, "   <== selected" if i == k else ""))
    src = "frontend IR" if k == 0 else "after %s" % stages[k - 1]
    diff = list(difflib.unified_diff(before.splitlines(), after.splitlines(), fromfile="%s: before %s (%s)"
                                     % (kernel, stages[k], src), tofile="%s: after %s" % (kernel, stages[k]),
                                     lineterm=""))
    if not diff:
        diff = ["(stage %d %s changed nothing: the IR after it is the %s)" % (k, stages[k], src)]
    text = "\n".join(lines + diff) + "\n"
    out.write(text)
    if log_dir:
        path = os.path.join(log_dir, "diff-%02d-%s.diff" % (k, stages[k]))
        with open(path, "w") as f:
            f.write(text)
        out.write("txl: diff written to %s\n" % path)
    return text


def _env_flag(name):
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no", "off")


def compile(fn, signature=None, constexprs=None, *, num_warps=4, num_warpgroups=1, target="sm_90a",
            debug_hangs=False, num_stages=None, stages=(), dump_ir=None, diff_select=None, log_dir=None,
            cache_dir=None, use_cache=True, libdevice=None, num_ctas=1):
    """Compile one specialisation of ``fn`` and return a CompiledKernel. No GPU, no torch.

    ``fn``: a ``@txl.jit`` function (run through the frontend with ``signature`` {param: "*bf16" | "i32" | ...}
    and ``constexprs`` {param: value}), or txl IR given as text or as a path to an ``.mlir`` file.
    ``stages``: pipeline stage names (or "all") whose IR to put in ``asm``; ``dump_ir`` (default: env
    ``TXL_DUMP_IR``) prints the IR after every stage; ``diff_select=k`` prints what stage k changed;
    ``log_dir`` (or env ``TXL_KEEP_TEMPS=1``) keeps the intermediate files; ``libdevice``: the libdevice.10.bc
    to link (default: txlc's search); ``num_ctas``: CTAs per cluster (Triton's option; the kernel then requires
    that cluster shape and a program is a cluster). Raises TxlCompileError when txlc
    rejects the kernel (nothing is cached then) and TxlCompilerNotFoundError when there is no txlc and no cache
    entry.
    """
    options = {"target": target, "num_warps": int(num_warps), "num_warpgroups": int(num_warpgroups),
               "debug_hangs": bool(debug_hangs)}
    if num_stages is not None:
        options["num_stages"] = num_stages
    if libdevice:
        options["libdevice"] = str(libdevice)
    if num_ctas != 1:
        options["num_ctas"] = int(num_ctas)
    if isinstance(fn, str):
        ir = fn
        if "\n" not in fn and fn.endswith(".mlir"):
            # One line ending in .mlir is a path, never IR text: a missing file is said as such, instead of
            # txlc parsing the path ("expected operation name in quotes").
            if not os.path.isfile(fn):
                raise FileNotFoundError("txl.compile: no txl IR file %r (a string ending in .mlir on one line is "
                                        "read as a path; pass the IR text itself, or an existing .mlir file)" % fn)
            with open(fn) as f:
                ir = f.read()
        kname = where = _ir_kernel_name(ir)
    else:
        # One frontend at a time: it keeps the kernel being built in module state (language.semantic's context
        # stack), and it is pure Python, so threads would gain nothing there. txlc, below, runs concurrently.
        with _FRONTEND_LOCK:
            ir = frontend_ir(fn, signature, constexprs, num_warps, num_warpgroups, target, num_stages, num_ctas)
        kname = _ir_kernel_name(ir) if "txl.kernel" in ir else fn.__name__
        where = _where(fn)
    if dump_ir is None:
        dump_ir = _env_flag("TXL_DUMP_IR")
    job = _Job(ir, kname, where, options, KernelCache(cache_dir), log_dir)
    try:
        entry = job.cache.lookup(job.key, job.cid) if use_cache else None
        if entry is not None:
            asm = {"txl": ir, "ptx": entry.read("ptx"), "json": entry.read("json")}
            cubin = entry.read("cubin", binary=True)
            if cubin is not None:
                asm["cubin"] = cubin
            used_cid, cache_path = entry.compiler_id, entry.path
        else:
            asm = job.build()
            used_cid = job.cid
            cache_path = job.store(asm, signature, constexprs) if use_cache else None
        want = {stages} if isinstance(stages, str) else set(stages or ())
        if dump_ir:
            want.add("all")
        if want or diff_select is not None:
            job.add_stages(asm, want, dump_ir, diff_select)
        if job.keep:
            job.keep_outputs(asm)
        return CompiledKernel(kname, asm, json.loads(asm["json"]), options, job.key, used_cid, cache_path, where,
                              arg_names=None if isinstance(fn, str) else getattr(fn, "arg_names", None),
                              signature=signature, constants=constexprs)
    except TxlCompileError:
        job.keep = True  # keep the IR: the error message points at it and gives the command to reproduce
        raise
    finally:
        if not job.keep:
            shutil.rmtree(job.work, ignore_errors=True)


class _Job:
    """One compile(): the frontend IR written to a work directory, the tools, the cache key."""

    def __init__(self, ir, kname, where, options, cache, log_dir):
        self.ir, self.kname, self.where, self.options, self.cache = ir, kname, where, options, cache
        self.key = frontend_key(ir, options)
        self.txlc = find_txlc()
        self.ptxas = find_ptxas() if self.txlc else None
        self.cid = compiler_id(self.txlc, self.ptxas) if self.txlc else None
        # A kept directory (log_dir / TXL_KEEP_TEMPS) or a temporary one.
        self.keep = bool(log_dir) or _env_flag("TXL_KEEP_TEMPS")
        if log_dir:
            self.work = os.path.join(os.path.abspath(log_dir), "%s-%s" % (kname, self.key[:12]))
            os.makedirs(self.work, exist_ok=True)
        else:
            self.work = tempfile.mkdtemp(prefix="txl-%s-" % kname)
        self.ir_path = self.path(".mlir")
        with open(self.ir_path, "w") as f:
            f.write(ir)
        o = options
        self.flags = _txlc_flags(o["target"], o["debug_hangs"], o.get("libdevice"))

    def path(self, ext):
        return os.path.join(self.work, self.kname + ext)

    def build(self):
        """Run txlc: PTX + sidecar (+ cubin when ptxas exists)."""
        if self.txlc is None:
            raise _no_compiler("compiling kernel %s" % self.where, self.cache, self.key)
        cmd = [self.txlc, self.ir_path, "--emit=" + ("cubin" if self.ptxas else "ptx"), "-o", self.path(".ptx")]
        _run_txlc(cmd + self.flags, self.where, self.ir_path)
        asm = {"txl": self.ir}
        with open(self.path(".ptx")) as f:
            asm["ptx"] = f.read()
        with open(self.path(".json")) as f:
            asm["json"] = f.read()
        if self.ptxas:
            with open(self.path(".cubin"), "rb") as f:
                asm["cubin"] = f.read()
        return asm

    def store(self, asm, signature, constexprs):
        k = self.kname
        files = {"ir": (k + ".mlir", self.ir), "ptx": (k + ".ptx", asm["ptx"]), "json": (k + ".json", asm["json"])}
        if "cubin" in asm:
            files["cubin"] = (k + ".cubin", asm["cubin"])
        manifest = {"kernel": k, "options": self.options, "source": self.where,
                    "signature": {n: str(v) for n, v in (signature or {}).items()},
                    "constexprs": {n: repr(v) for n, v in (constexprs or {}).items()}}
        try:
            return self.cache.store(self.key, self.cid, files, manifest).path
        except OSError as e:  # a read-only or full cache must not fail the compilation
            sys.stderr.write("txl: warning: could not write %s to the cache %s: %s\n" % (k, self.cache.root, e))
            return None

    def add_stages(self, asm, want, dump_ir, diff_select):
        """IR after the wanted pipeline stages (``txlc --stop-after``), dumps and the diff of one stage."""
        if self.txlc is None:
            raise _no_compiler("printing the pipeline stages of %s" % self.where, self.cache, self.key, in_cache=True)
        stages = pipeline_stages(self.txlc)
        if diff_select is not None:
            k = _check_diff_select(diff_select, stages, self.where)
            want |= {stages[k]} | ({stages[k - 1]} if k else set())
        if "all" in want:
            want = set(stages)
        bad = sorted(want - set(stages))
        if bad:
            raise ValueError("unknown pipeline stage(s) %s for %s; the stages are: %s"
                             % (", ".join(bad), self.where, ", ".join(stages)))
        wanted = [i for i, s in enumerate(stages) if s in want]
        ir_after = _stages_ir(self.txlc, self.ir_path, stages, wanted, self.flags, self.where)
        for i, s in enumerate(stages):
            if s not in want:
                continue
            asm[s] = ir_after[i]
            if self.keep:
                with open(os.path.join(self.work, "%02d-%s.mlir" % (i, s)), "w") as f:
                    f.write(asm[s])
            if dump_ir:
                sys.stderr.write("// -----// %s: IR after %s (stage %d) //----- //\n%s\n" % (self.kname, s, i, asm[s]))
        if diff_select is not None:
            before = asm[stages[k - 1]] if k else _roundtrip(self.txlc, self.ir_path, self.ir)
            asm["diff"] = _print_diff(self.where, stages, k, before, asm[stages[k]], sys.stdout,
                                      self.work if self.keep else None)

    def keep_outputs(self, asm):
        for role in ("ptx", "json", "cubin"):
            p = self.path("." + role)
            if role in asm and not os.path.exists(p):  # a cache hit: txlc wrote nothing here
                with open(p, "wb") as f:
                    f.write(asm[role] if isinstance(asm[role], bytes) else asm[role].encode())
        sys.stderr.write("txl: kept the intermediate files of %s in %s\n" % (self.where, self.work))


def _check_diff_select(k, stages, where):
    if isinstance(k, str) and not k.isdigit():
        if k in stages:
            return stages.index(k)
        raise ValueError("diff_select=%r for %s is not a stage; the stages are: %s"
                         % (k, where, ", ".join("%d %s" % (i, s) for i, s in enumerate(stages))))
    k = int(k)
    if not 0 <= k < len(stages):
        raise ValueError("diff_select=%d for %s is out of range: pick a stage 0..%d: %s"
                         % (k, where, len(stages) - 1, ", ".join("%d %s" % (i, s) for i, s in enumerate(stages))))
    return k
