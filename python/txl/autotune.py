"""``txl.autotune`` and ``txl.Config``: pick the fastest launch configuration of a kernel, per problem shape.

    @txl.autotune(configs=[txl.Config({"BLOCK_M": 128, "BLOCK_N": 128}, num_warps=4, num_warpgroups=3),
                           txl.Config({"BLOCK_M": 128, "BLOCK_N": 64}, num_warps=4, num_warpgroups=3)],
                  key=["N_CTX", "HEAD_DIM"])
    @txl.jit
    def attn_fwd(desc_q, ..., N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr): ...

    attn_fwd[grid](desc_q, ..., N_CTX, HEAD_DIM=128)     # BLOCK_M/BLOCK_N come from the chosen config

The first launch with a new key value benchmarks every config (CUDA events via torch), printing one line per
config with its time or the error that ruled it out (a config that does not compile is skipped, not fatal). Before
benchmarking, the configs are compiled concurrently in threads (txlc and ptxas run as subprocesses, so they overlap):
``TXL_AUTOTUNE_JOBS`` threads, default min(configs, CPUs, 16); ``TXL_AUTOTUNE_JOBS=1`` compiles each config when
it is benchmarked, as before. Benchmarking stays sequential, in config order. The
best config is remembered per key, in memory and as JSON under the cache directory, so the next process does
not benchmark again. ``pre_hook(nargs)`` runs before every launch of a config with the arguments by name (config
values included); as in TXL it may replace entries, e.g. build the TMA descriptors with the config's block shape
(``nargs["desc_q"] = txl.TensorDescriptor(q, [BLOCK_M // 2, HEAD_DIM])``): the launch uses nargs as the hook
left it.
"""

import concurrent.futures
import copy
import hashlib
import inspect
import json
import os
import sys
import time
import warnings

from .compiler.cache import KernelCache


# Triton's default pipeline depth, which a Config without num_stages reads (triton.Config's default) and txl's
# frontend uses for a kernel launched without one (code_generator.DEFAULT_NUM_STAGES; a test checks they agree).
# A config at this depth launches without the option, so it compiles exactly as a plain launch does.
DEFAULT_NUM_STAGES = 3


class Config:
    """One launch configuration: constexpr values (``kwargs``) and launch options, with triton.Config's fields
    (``kwargs``, ``num_warps``, ``num_stages`` (3 unless given, as in Triton), ``num_ctas`` (CTAs per thread-block
    cluster, 1..8; a program is a cluster), ``maxnreg`` (kept for the record; txl's register budget comes from
    num_warps and txl.reg_alloc), ``pre_hook``, ``ir_override`` (must be None), ``all_kwargs()``) and TXL's
    ``num_warpgroups``. Equality and hashing are Triton's (by ``all_kwargs()`` and ``pre_hook``): libraries test
    ``config in configs`` with configs they build themselves."""

    def __init__(self, kwargs, num_warps=4, num_warpgroups=1, num_stages=DEFAULT_NUM_STAGES, num_ctas=1,
                 maxnreg=None, pre_hook=None, ir_override=None):  # TXL's argument order (num_warpgroups third)
        num_ctas = 1 if num_ctas is None else num_ctas
        if isinstance(num_ctas, bool) or not isinstance(num_ctas, int) or not 1 <= num_ctas <= 8:
            raise ValueError("txl.Config(num_ctas=%r): CTAs per cluster must be an int in 1..8" % (num_ctas,))
        if ir_override is not None:
            raise ValueError("txl.Config(ir_override=...) is not supported: txl compiles the kernel's source")
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_warpgroups = num_warpgroups
        # None (txl's earlier "compiler's choice") is the default depth, which is what the compiler chose.
        self.num_stages = DEFAULT_NUM_STAGES if num_stages is None else num_stages
        self.pre_hook = pre_hook
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.ir_override = None

    def __setstate__(self, state):
        # As Triton's: a pickled config of an older version (fewer fields) gets the defaults.
        self.kwargs = state.get("kwargs", {})
        self.num_warps = state.get("num_warps", 4)
        self.num_warpgroups = state.get("num_warpgroups", 1)
        self.num_stages = state.get("num_stages") or DEFAULT_NUM_STAGES
        self.num_ctas = state.get("num_ctas", 1)
        self.maxnreg = state.get("maxnreg")
        self.pre_hook = state.get("pre_hook")
        self.ir_override = None

    @classmethod
    def from_config(cls, c):
        """A ``txl.Config`` from a ``triton.Config`` (or any object with its attributes: kwargs, num_warps,
        num_stages, num_ctas, maxnreg, pre_hook, ir_override; ``num_warpgroups`` where it has one), as TXL's
        tutorials pass to ``txl.autotune``."""
        if isinstance(c, cls):
            return c
        if not isinstance(getattr(c, "kwargs", None), dict):
            raise TypeError("txl.autotune takes txl.Config (or triton.Config) objects, got %r" % (c,))
        return cls(c.kwargs, num_warps=getattr(c, "num_warps", 4), num_warpgroups=getattr(c, "num_warpgroups", 1),
                   num_stages=getattr(c, "num_stages", None), num_ctas=getattr(c, "num_ctas", 1),
                   maxnreg=getattr(c, "maxnreg", None), pre_hook=getattr(c, "pre_hook", None),
                   ir_override=getattr(c, "ir_override", None))

    @property
    def options(self):
        """The launch options (num_warps, ...) that are not constexprs of the config."""
        return {k: v for k, v in self.launch_kwargs().items() if k not in self.kwargs}

    def launch_kwargs(self):
        kw = dict(self.kwargs, num_warps=self.num_warps, num_warpgroups=self.num_warpgroups)
        if self.num_stages != DEFAULT_NUM_STAGES:
            kw["num_stages"] = self.num_stages
        if self.num_ctas != 1:
            kw["num_ctas"] = self.num_ctas
        return kw

    def all_kwargs(self):
        """Triton's Config.all_kwargs: the constexprs and every launch option that is set (what perf_model,
        early_config_prune and the hooks see): num_warps, num_ctas, num_stages, maxnreg when set, and TXL's
        num_warpgroups."""
        kw = dict(self.kwargs, num_warps=self.num_warps, num_warpgroups=self.num_warpgroups,
                  num_ctas=self.num_ctas, num_stages=self.num_stages)
        if self.maxnreg is not None:
            kw["maxnreg"] = self.maxnreg
        return kw

    def to_dict(self):
        """What identifies the config (JSON-able; the pre_hook is code and is left out)."""
        return {"kwargs": {k: _jsonable(v) for k, v in self.kwargs.items()}, "num_warps": self.num_warps,
                "num_warpgroups": self.num_warpgroups, "num_stages": self.num_stages,
                **({"num_ctas": self.num_ctas} if self.num_ctas != 1 else {})}

    def __eq__(self, other):
        if not isinstance(other, Config):
            return NotImplemented
        return (tuple(self.all_kwargs().items()), self.pre_hook) == (tuple(other.all_kwargs().items()),
                                                                     other.pre_hook)

    def __hash__(self):
        return hash((*self.all_kwargs().items(), self.pre_hook))

    def __str__(self):
        # Triton's text of a config (libraries print and log it); repr() is txl's constructor form.
        parts = ["%s: %s" % kv for kv in self.kwargs.items()]
        parts += ["num_warps: %s" % self.num_warps, "num_ctas: %s" % self.num_ctas,
                  "num_stages: %s" % self.num_stages, "maxnreg: %s" % self.maxnreg, "ir_override: None"]
        if self.num_warpgroups != 1:
            parts.insert(len(self.kwargs) + 1, "num_warpgroups: %s" % self.num_warpgroups)
        return ", ".join(parts)

    def __repr__(self):
        parts = ["%s=%r" % kv for kv in self.kwargs.items()]
        parts += ["num_warps=%d" % self.num_warps, "num_warpgroups=%d" % self.num_warpgroups]
        if self.num_stages != DEFAULT_NUM_STAGES:
            parts.append("num_stages=%d" % self.num_stages)
        if self.num_ctas != 1:
            parts.append("num_ctas=%d" % self.num_ctas)
        if self.maxnreg is not None:
            parts.append("maxnreg=%d" % self.maxnreg)
        return "Config(%s)" % ", ".join(parts)


def _jsonable(v):
    return v if isinstance(v, (int, float, str, bool, type(None))) else repr(v)


def do_bench(fn, warmup=25, rep=100):
    """Median time of ``fn()`` in ms, measured with CUDA events on torch's current stream (Triton's method:
    estimate one run, then ``warmup`` ms of warm-up runs and ``rep`` ms of timed runs, flushing L2 before each)."""
    import statistics

    import torch

    fn()
    wait_bounded(torch, "the first run of the config")
    flush = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        flush.zero_()
        fn()
    end.record()
    torch.cuda.synchronize()
    est = max(start.elapsed_time(end) / 5, 1e-3)
    for _ in range(max(1, int(warmup / est))):
        fn()
    n = max(1, int(rep / est))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    for s, e in zip(starts, ends):
        flush.zero_()
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))


FIRST_RUN_TIMEOUT_S = float(os.environ.get("TXL_AUTOTUNE_TIMEOUT", "20"))


class ConfigHang(RuntimeError):
    pass


def wait_bounded(torch, what, timeout=None):
    """Wait for the work queued on torch's current stream, at most ``timeout`` seconds (TXL_AUTOTUNE_TIMEOUT,
    default 20): a config that deadlocks becomes an error naming it instead of a frozen process."""
    timeout = FIRST_RUN_TIMEOUT_S if timeout is None else timeout
    ev = torch.cuda.Event()
    ev.record()
    deadline = time.monotonic() + timeout
    while not ev.query():
        if time.monotonic() > deadline:
            raise ConfigHang("%s did not finish within %g s: the kernel is deadlocked (rerun with TXL_DEBUG_HANGS=1 "
                             "to see which mbarrier wait never completes)" % (what, timeout))
        time.sleep(1e-4)
    torch.cuda.synchronize()


def context_lost():
    """The CUDA error that makes the current context unusable, or None. A device-side fault (illegal
    instruction, out-of-bounds access, a trapped hang) is sticky: every later call in the process fails."""
    import torch

    try:
        torch.cuda.synchronize()
        torch.empty(1, device="cuda").add_(1)
        torch.cuda.synchronize()
        return None
    except Exception as e:  # the sticky error, re-reported
        return "%s: %s" % (type(e).__name__, (str(e).strip().splitlines() or [""])[0])


def _reason(e):
    """How a config's failure is reported, on one line: the exception's type and the first line of its message;
    when that line only introduces what follows ("txlc failed to compile kernel k (file:line):"), the first
    diagnostic after it too (the first line with "error:", the user's file:line where the frontend recorded it;
    else the next line)."""
    lines = [line.strip() for line in str(e).strip().splitlines() if line.strip()]
    first = lines[0] if lines else ""
    if first.endswith(":") and len(lines) > 1:
        first += " " + next((line for line in lines[1:] if "error:" in line), lines[1])
    return "%s: %s" % (type(e).__name__, first)


def compile_jobs(n):
    """How many of ``n`` configs compile at once: ``TXL_AUTOTUNE_JOBS``, else min(n, CPUs, 16)."""
    env = os.environ.get("TXL_AUTOTUNE_JOBS", "").strip()
    if not env:
        return min(n, os.cpu_count() or 1, 16)
    try:
        jobs = int(env)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise ValueError("TXL_AUTOTUNE_JOBS=%r: give the number of configs txl.autotune compiles at once, >= 1 "
                         "(1: each config compiles when it is benchmarked)" % env)
    return min(jobs, n)


def _snapshot(v):
    """A copy of a txl.TensorDescriptor (or of Triton's, adopted as one) that later changes to ``v`` (its block
    shape, swizzle) do not reach; any other value as it is."""
    from .jit import TensorDescriptor, _adopt_descriptor

    adopted = _adopt_descriptor(v)
    if adopted is not v:
        return adopted
    if not isinstance(v, TensorDescriptor):
        return v
    c = copy.copy(v)
    c.block_shape = list(v.block_shape)
    return c


def _jit_of(fn):
    """The @txl.jit function an autotuner launches, through txl.heuristics wrappers; None for anything else (an
    autotuner under txl.heuristics compiles its own configs when it is launched)."""
    from .jit import JITFunction

    while isinstance(fn, Heuristics):
        fn = fn.fn
    return fn if isinstance(fn, JITFunction) else None


def _device_name():
    torch = sys.modules.get("torch")
    try:
        return torch.cuda.get_device_name() if torch is not None and torch.cuda.is_available() else "no-gpu"
    except Exception:
        return "no-gpu"


def _no_pre_hook(kwargs, reset_only=False):
    """Triton's default Autotuner.pre_hook (no reset_to_zero / restore_value): does nothing."""


def _no_post_hook(kwargs, exception):
    """Triton's default Autotuner.post_hook: does nothing."""


def _storable(key):
    """Whether a tuning key can be kept on disk (by its repr): scalars only. Triton puts the raw value of each
    key argument in the key, so a key naming a tensor argument holds the tensor: that one is kept in memory only."""
    return all(isinstance(v, (int, float, str, bool, type(None))) for v in key)


_UNSET = object()


class Autotuner:
    """Wraps a JITFunction; ``autotuner[grid](*args, **kwargs)`` launches with the best config for the key.

    txl's constructor: ``Autotuner(fn, configs, key, warmup, rep, bench, cache_results, verbose, ...)``.
    ``txl.runtime.autotuner.Autotuner`` (``triton.runtime.autotuner.Autotuner`` under txl) is this class with
    Triton's constructor; what ``txl.autotune`` returns. The state is Triton's, so that libraries that subclass
    Triton's Autotuner (flash-linear-attention's CachedAutotuner) work: ``configs``, ``keys`` (the key names as
    given; ``key`` keeps those that are parameters), ``cache`` ({tuning key: Config}, Triton's key: the key
    arguments' values then the ``dtype`` of every argument that has one, positional arguments first; a subclass
    may fill it before ``run`` to choose a config), ``arg_names``, ``nargs`` (the positional arguments by name,
    while ``run`` / ``warmup`` choose), ``pre_hook`` / ``post_hook`` (always callable, read at each use),
    ``user_defined_pre_hook`` / ``user_defined_post_hook``, ``reset_to_zero`` / ``restore_value`` /
    ``restore_copies``, ``early_config_prune`` / ``perf_model`` / ``configs_top_k``, ``best_config``,
    ``configs_timings`` and ``bench_time`` (after a tuning), ``run(*args, grid=..., warmup=False, **kwargs)``,
    ``prune_configs(kwargs)``, ``warmup(*args, **kwargs)``. As in Triton, an autotuner of one config launches it
    untuned."""

    def __init__(self, fn, configs, key, warmup=25, rep=100, bench=None, cache_results=True, verbose=True,
                 prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None, post_hook=None,
                 do_bench=None, use_cuda_graph=False):
        for what, names in (("key", key), ("reset_to_zero", reset_to_zero or []),
                            ("restore_value", restore_value or [])):
            if isinstance(names, str):
                raise TypeError("txl.autotune(%s=%r) of %s takes a list of parameter names, e.g. %s=[%r]"
                                % (what, names, fn.__name__, what, names))
            missing = [k for k in names if k not in fn.arg_names]
            if missing and what == "key":
                # As Triton: a key that names no parameter is ignored (Triton's tutorial 08 has a typo in one).
                warnings.warn("txl.autotune(key=%r) of %s: %s %s not a parameter and %s ignored, as Triton does "
                              "(parameters: %s)" % (list(names), fn.__name__, ", ".join(missing),
                                                    "is" if len(missing) == 1 else "are",
                                                    "is" if len(missing) == 1 else "are", ", ".join(fn.arg_names)),
                              stacklevel=3)
            elif missing:
                raise ValueError("txl.autotune(%s=%r) of %s: %s %s not a parameter (parameters: %s)"
                                 % (what, list(names), fn.__name__, ", ".join(missing),
                                    "is" if len(missing) == 1 else "are", ", ".join(fn.arg_names)))
        self.fn = fn
        self.base_fn = fn  # Triton's: the Python function under the jit / heuristics wrappers
        while not inspect.isfunction(self.base_fn):
            self.base_fn = self.base_fn.fn
        # As Triton: no configs means one default config (launched as it is).
        self.configs = [Config.from_config(c) for c in configs] if configs else [Config({})]
        self.keys = list(key)  # Triton's attribute: the names as given
        self.key = [k for k in key if k in fn.arg_names]
        self.warmup_ms = 25 if warmup is None else warmup
        self.rep_ms = 100 if rep is None else rep
        self.num_warmups, self.num_reps = warmup, rep  # Triton's names for them
        self.use_cuda_graph = use_cuda_graph  # accepted (Triton's); txl times with CUDA events either way
        if do_bench is not None and bench is None:
            # Triton's do_bench(kernel_call, quantiles) -> [median, p20, p80] (or one number)
            def bench(call, _do_bench=do_bench):
                r = _do_bench(call, quantiles=(0.5, 0.2, 0.8))
                return r[0] if isinstance(r, (list, tuple)) else r
        self.bench = bench  # callable(fn) -> ms; None: do_bench with CUDA events
        self.cache_results = cache_results
        self.verbose = verbose
        # Triton's prune_configs_by: early_config_prune(configs, nargs, **kwargs) -> configs, then the top_k
        # configs by perf_model(**nargs, **kwargs, **config.all_kwargs()) (top_k <= 1.0: a fraction).
        prune = dict(prune_configs_by or {})
        unknown = sorted(set(prune) - {"perf_model", "top_k", "early_config_prune"})
        if unknown:
            raise ValueError("txl.autotune(prune_configs_by=...) of %s: unknown key(s) %s (expected perf_model, "
                             "top_k, early_config_prune)" % (fn.__name__, ", ".join(unknown)))
        self.perf_model = prune.get("perf_model")
        self.configs_top_k = prune.get("top_k", 1.0)
        self.early_config_prune = prune.get("early_config_prune")
        # Triton's reset_to_zero / restore_value: before every benchmarked launch the reset_to_zero tensors are
        # zeroed and the restore_value tensors saved, after it they are restored (a kernel that accumulates into
        # its output runs many times while tuning); the reset_to_zero tensors are zeroed again before the launch
        # that follows the tuning. A user pre_hook(nargs, reset_only=False) / post_hook(nargs, exception)
        # replaces these defaults, as in Triton. A None argument (an optional pointer) is left alone.
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        self.restore_copies = {}
        self.user_defined_pre_hook = pre_hook is not None
        self.user_defined_post_hook = post_hook is not None
        self.pre_hook = pre_hook or (self._default_pre_hook if self.reset_to_zero or self.restore_value
                                     else _no_pre_hook)
        self.post_hook = post_hook or (self._default_post_hook if self.restore_value else _no_post_hook)
        self.cache = {}  # tuning key -> Config (Triton's attribute)
        self.best_config = None  # the config of the last launch (Triton's attribute)
        self.nargs = None  # the positional arguments by name while a launch chooses its config (Triton's)
        self.configs_timings = None  # {Config: ms (inf: failed)} of the last tuning (Triton's attribute)
        self.bench_time = None  # seconds the last tuning took (Triton's attribute)
        self.timings = {}  # key tuple -> [(Config, ms or None, error or None)]
        self.__name__ = fn.__name__
        self.arg_names = fn.arg_names
        self._key_positions = [(k, fn.arg_names.index(k)) for k in self.key]
        self._config_names = frozenset(k for c in self.configs for k in c.kwargs)
        self._chosen = {}  # _fast_key -> (tuning key, Config), filled by launches that went the checked way

    @property
    def best(self):
        """{tuning key: Config}: txl's earlier name of ``cache``."""
        return self.cache

    def _default_pre_hook(self, nargs, reset_only=False):
        for name in self.reset_to_zero:
            if nargs[name] is not None:
                nargs[name].zero_()
        if not reset_only:
            self.restore_copies = {name: nargs[name].clone() for name in self.restore_value
                                   if nargs[name] is not None}

    def _default_post_hook(self, nargs, exception):
        for name, value in self.restore_copies.items():
            nargs[name].copy_(value)
        self.restore_copies = {}

    def prune_configs(self, kwargs, *nargs_form):
        """The configs to benchmark (Triton's prune_configs_by). Triton's form ``prune_configs(kwargs)`` reads the
        positional arguments by name from ``self.nargs`` (set while ``run`` / ``warmup`` choose); txl's earlier
        form ``prune_configs(nargs, kwargs)`` (bench/triton_tutorials.py) passes them."""
        if nargs_form:
            (nargs, kwargs) = (kwargs,) + nargs_form
        else:
            nargs = self.nargs or {}
        configs = self.configs
        if self.early_config_prune is not None:
            configs = list(self.early_config_prune(self.configs, nargs, **kwargs))
            if not configs:
                raise RuntimeError("txl.autotune %s: early_config_prune returned no config; it must keep at least "
                                   "one" % self.fn.where)
        if self.perf_model is not None:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(configs) * top_k))
            elif not isinstance(top_k, int):
                raise TypeError("txl.autotune(prune_configs_by={'top_k': %r}): top_k must be an int or a float "
                                "<= 1.0" % (top_k,))
            if len(configs) > top_k:
                est = [(self.perf_model(**{**nargs, **kwargs, **c.all_kwargs()}), i) for i, c in enumerate(configs)]
                configs = [configs[i] for _, i in sorted(est)[:top_k]]
        return configs

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def _key_of(self, nargs):
        """Triton's tuning key of the arguments by name (``nargs``: positional ones first, then the keyword ones,
        in the order given): the key arguments' values, then ``str(dtype)`` of every argument with a dtype."""
        vals = [nargs[k] for k in self.keys if k in nargs]
        vals += [str(v.dtype) for v in nargs.values() if hasattr(v, "dtype")]
        return tuple(vals)

    def _results_path(self, cache):
        h = hashlib.sha256()
        h.update(self.fn.src.encode())
        h.update(json.dumps([c.to_dict() for c in self.configs], sort_keys=True).encode())
        h.update(_device_name().encode())
        return cache.autotune_path(self.fn.__name__, h.hexdigest())

    def _launch(self, config, grid, args, kwargs, checked=True):
        args, kwargs = self._call_args(config, args, kwargs, checked)
        return self.fn.run(*args, grid=grid, **kwargs)

    def _call_args(self, config, args, kwargs, checked=True):
        """(args, kwargs) of the config's launch, after its pre_hook (the same for compiling it alone)."""
        # Launched the same way on both paths, so they share one JIT fingerprint. A pre_hook sees the arguments by
        # name: bound (and checked) the first time, assembled directly for an argument form bound before.
        if config.pre_hook is None:
            return args, dict(kwargs, **config.kwargs, **config.options)
        if checked:
            nargs = self.fn.bind(args, dict(kwargs, **config.kwargs))
        else:
            nargs = dict(self.fn._defaults)
            nargs.update(zip(self.fn.arg_names, args))
            nargs.update(kwargs)
            nargs.update(config.kwargs)
        config.pre_hook(nargs)
        # A kernel parameter named like a launch option (num_warps) is in nargs too: the config's value wins.
        return (), dict(nargs, **config.options)

    def _fast_key(self, args, kwargs, fp=_UNSET):
        """The JIT fingerprint of the arguments (``fp``, when the caller has it) plus the key arguments' values
        (None: no fast path). It is finer than the tuning key, so a hit names the config the slow path chose for
        the same tuning key."""
        if fp is _UNSET:
            fp = self.fn._launch_key(args, kwargs)
        if fp is None:
            return None
        vals = []
        for name, pos in self._key_positions:
            v = args[pos] if pos < len(args) else kwargs.get(name, self.fn._defaults.get(name))
            if type(v) not in (int, float, bool, str) and v is not None:
                return None
            vals.append(v)
        return fp, tuple(vals)

    def _direct(self, config, args, kwargs):
        """(the JIT's fast entry, its key, the config's constexprs by parameter position) for launching a hit of
        the fast path without binding the arguments again (None where that does not hold: a config pre_hook may
        change the arguments, a heuristics layer between computes values from them, a kernel without a binder).
        Given the autotuner's fingerprint, the config fixes the JIT's: the same arguments with the config's
        constexprs and options."""
        from .jit import JITFunction, _NoFastPath

        fn = self.fn
        if config.pre_hook is not None or not isinstance(fn, JITFunction) or not fn._binder:
            return None
        try:
            key, _, _ = fn._binder(*args, **kwargs, **config.kwargs, **config.options)
        except (TypeError, KeyError, _NoFastPath):
            return None
        entry = fn._fast.get(key)
        if entry is None:
            return None
        index = {n: i for i, n in enumerate(fn.arg_names)}
        return entry, key, tuple((index[k], v) for k, v in config.kwargs.items() if k in index)

    def _check_clash(self, kwargs):
        # A usage error, not a config's failure: report it before benchmarking anything.
        clash = sorted(self._config_names & kwargs.keys())
        if clash:
            raise TypeError("%s: %s %s given both at the launch and by the autotuner's configs; drop %s from the "
                            "launch" % (self.fn.where, ", ".join(clash), "is" if len(clash) == 1 else "are",
                                        "it" if len(clash) == 1 else "them"))

    def run(self, *args, grid, **kwargs):
        # Triton's launches pass warmup=False (KernelInterface.__getitem__); warmup=True compiles without
        # launching. A kernel parameter named warmup keeps its value.
        if "warmup" in kwargs and "warmup" not in self.arg_names and kwargs.pop("warmup"):
            return self.warmup(*args, grid=grid, **kwargs)
        if kwargs and not self._config_names.isdisjoint(kwargs):
            self._check_clash(kwargs)
        if len(self.configs) == 1:  # as Triton: nothing to choose, nothing benchmarked
            config = self.best_config = self.configs[0]
            return self._launch(config, grid, args, kwargs)
        binding = self.fn._launch_binding(args, kwargs)
        fkey = self._fast_key(args, kwargs, binding[0] if binding is not None else None)
        hit = self._chosen.get(fkey) if fkey is not None else None
        # The fast path holds while the tuning key still maps to the config it chose (a subclass may replace
        # entries of self.cache, as flash-linear-attention's CachedAutotuner does before calling run).
        if hit is not None and self.cache.get(hit[0]) is hit[1]:
            config = self.best_config = hit[1]
            direct = hit[2]
            # The JIT entry of this fingerprint and config, while the JIT still has it (its cache may be cleared).
            # (A launch option given at the call that the config sets too: the config's wins, as in _call_args.)
            if direct is not None and binding[1] is not None and direct[0].jf._fast.get(direct[1]) is direct[0]:
                _, values, stream = binding
                values = list(values)
                for i, v in direct[2]:
                    values[i] = v
                return direct[0](grid, values, stream)
            result = self._launch(config, grid, args, kwargs, checked=False)
            if direct is None and hit[3]:
                direct = self._direct(config, args, kwargs)
                self._chosen[fkey] = (hit[0], config, direct, direct is not None)
            return result
        key, config = self._choose(args, kwargs, grid)
        self.best_config = config
        result = self._launch(config, grid, args, kwargs)
        if fkey is not None:
            self._chosen[fkey] = (key, config, None, True)  # (tuning key, config, direct launch, worth looking)
        return result

    def _choose(self, args, kwargs, grid):
        """(tuning key, config) of a launch: from self.cache, the results file, or by benchmarking."""
        nargs = self._bind_partial(args, kwargs)  # checks the arguments; the hooks see them by name
        self.nargs = dict(zip(self.arg_names, args))
        try:
            named = dict(self.nargs)
            named.update((k, v) for k, v in kwargs.items() if k in nargs)
            key = self._key_of(named)
            config = self.cache.get(key)
            if config is None:
                config = self._load(key)
            if config is None:
                # As Triton: the pruning functions see the positional arguments by name and the keyword ones apart.
                # One config left is still benchmarked (unlike Triton's newest releases): its run checks it, and
                # a config that faults or hangs is recorded for the next process.
                config = self._tune(key, grid, args, kwargs, self.prune_configs(kwargs))
                # Triton: the reset_to_zero tensors are zeroed again for the launch
                self.pre_hook(dict(nargs, **config.all_kwargs()), reset_only=True)
        finally:
            self.nargs = None
        return key, config

    def _bind_partial(self, args, kwargs):
        """Arguments by name before a config fills in its constexprs (bind_partial: those are still missing)."""
        try:
            b = self.fn.signature.bind_partial(*args, **kwargs)
        except TypeError as e:
            raise TypeError("%s: %s" % (self.fn.where, e)) from None
        return dict(b.arguments)

    def _load(self, key):
        if not self.cache_results or not _storable(key):
            return None
        _, _, stored = self._stored()
        hit = stored.get(repr(key))
        if hit is None:
            return None
        for c in self.configs:
            if c.to_dict() == hit.get("config"):
                self.cache[key] = c
                return c
        return None

    def _tune(self, key, grid, args, kwargs, configs=None):
        configs = self.configs if configs is None else configs
        start = time.time()
        results = []
        n = len(configs)
        faulted = self._faulted(key)
        earlier = [faulted.get(json.dumps(c.to_dict(), sort_keys=True)) for c in configs]
        failed = self._precompile(grid, args, kwargs, [(i, c) for i, c in enumerate(configs) if earlier[i] is None])
        first_error = None  # (config, exception) of the first config that failed in this process
        for i, c in enumerate(configs):
            if earlier[i] is not None:
                ms, reason, error = None, "faulted in an earlier process: " + earlier[i], None
            elif i in failed:
                ms, reason, error = None, _reason(failed[i]), failed[i]
            else:
                ms, reason, error = self._try(key, c, grid, args, kwargs)
            if error is not None and first_error is None:
                first_error = (c, error)
            results.append((c, ms, reason))
            line = "%.4f ms" % ms if ms is not None else "skipped: " + reason
            if self.verbose:
                print("txl.autotune %s key=%r [%d/%d] %r: %s" % (self.fn.__name__, key, i + 1, n, c, line))
        self.timings[key] = results
        self.bench_time = time.time() - start
        self.configs_timings = {c: float("inf") if ms is None else ms for c, ms, _ in results}
        ok = [(ms, i) for i, (c, ms, err) in enumerate(results) if ms is not None]
        if not ok:
            # Each config's line says why in one line; the first failure is also given in full (the compiler's
            # diagnostics with the source line).
            full = ""
            if first_error is not None:
                full = "\nthe first failure, %r, in full:\n%s" % (first_error[0], str(first_error[1]).strip())
            raise RuntimeError("txl.autotune %s: every config failed for key %r:\n%s%s" % (
                self.fn.where, key, "\n".join("  %r: %s" % (c, err) for c, _, err in results), full))
        best = configs[min(ok)[1]]
        self.cache[key] = best
        if self.verbose:
            print("txl.autotune %s key=%r: best %r (%.4f ms)" % (self.fn.__name__, key, best, min(ok)[0]))
        if self.cache_results and _storable(key):
            cache, path, stored = self._stored()
            stored[repr(key)] = {"config": best.to_dict(), "ms": min(ok)[0], "time": time.time()}
            try:
                cache.write_json(path, stored)
            except OSError as e:  # a read-only cache (e.g. carried to a GPU host) must not fail the launch
                print("txl.autotune %s: could not save the result in %s: %s" % (self.fn.__name__, path, e))
        return best

    def _precompile(self, grid, args, kwargs, configs):
        """Compiles the (index, config) pairs without launching, ``compile_jobs`` at a time in threads: each
        compile spends its time in txlc and ptxas subprocesses, so they overlap (the Python frontend runs one at a
        time). The JIT function keeps each compiled kernel, so the benchmark's launch finds it. Returns {index:
        exception} of the configs that failed to compile; _tune reports them, in config order, as _try would have.

        A config's pre_hook runs here first, in this thread and in config order, on its own copy of the
        arguments, so the config compiles with the arguments it will launch with (e.g. TensorDescriptors of its
        block shape, new or changed in place: see _snapshot); it runs again before every benchmarked launch, as
        always. A config whose arguments cannot
        be prepared (the hook or the binding raises) is left to _try, which reports that error as before.
        Not done with one compile thread (TXL_AUTOTUNE_JOBS=1), for a kernel that dumps its IR or diffs a stage
        (its output would interleave), or under something other than a @txl.jit function: then each config
        compiles when it is benchmarked."""
        jit = _jit_of(self.fn)
        jobs = compile_jobs(len(configs)) if configs else 0
        if (jobs <= 1 or jit is None or jit.diff_mode or jit.debug
                or os.environ.get("TXL_DUMP_IR", "") not in ("", "0")):
            return {}
        calls = {}
        for i, c in configs:
            try:
                a, kw = self._call_args(c, args, kwargs)
            except Exception:
                continue  # _try runs the hook again and reports its error
            # Triton's hooks (tutorials 06, 09) set nargs["desc"].block_shape on the one descriptor every config
            # shares: the next config's hook changes it while this one compiles. So each compile gets copies of
            # the descriptors as they are now, after this config's hook (and the earlier configs' hooks, as when
            # this config is launched after them).
            calls[i] = (tuple(_snapshot(v) for v in a), {k: _snapshot(v) for k, v in kw.items()})
        failed = {}
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="txl-autotune")
        try:
            futures = {i: pool.submit(lambda a, kw: self.fn.warmup(*a, grid=grid, **kw), a, kw)
                       for i, (a, kw) in calls.items()}
            for i, f in futures.items():
                e = f.exception()
                if e is not None:
                    if not isinstance(e, Exception):  # KeyboardInterrupt, SystemExit: not a config's failure
                        raise e
                    failed[i] = e
        finally:
            # On an interrupt, start no more compiles (the running ones finish: they are subprocesses).
            pool.shutdown(wait=True, cancel_futures=True)
        return failed

    def _try(self, key, config, grid, args, kwargs):
        """(ms, None, None), or (None, reason, exception) for a config that failed (e.g. did not compile). A config
        that deadlocked
        or left the CUDA context unusable ends the tuning: it is recorded, and the error says to restart."""
        pre_hook, post_hook = self.pre_hook, self.post_hook
        if pre_hook is _no_pre_hook and post_hook is _no_post_hook:
            call = lambda: self._launch(config, grid, args, kwargs)  # noqa: E731
        else:
            nargs = dict(self._bind_partial(args, kwargs), **config.all_kwargs())

            def call():
                pre_hook(nargs)
                try:
                    self._launch(config, grid, args, kwargs)
                except Exception as e:
                    post_hook(nargs, exception=e)
                    raise
                post_hook(nargs, exception=None)
        try:
            return self._bench(call), None, None
        except Exception as e:
            reason = _reason(e)
            if isinstance(e, ConfigHang):  # the kernel still runs: touching the context would block
                what = "deadlocked"
            elif self.bench is None and not isinstance(e, (TypeError, ValueError)) and context_lost():
                what = "faulted"
            else:
                return None, reason, e
            path = self._record_fault(key, config, reason)
            raise RuntimeError(
                "txl.autotune %s: config %r %s for key %r (%s). The CUDA context of this process is lost (device "
                "faults are sticky; a deadlocked kernel never retires), so no later launch can run here: restart "
                "the process. The config is recorded as failing for this key and the next process skips it%s."
                % (self.fn.where, config, what, key, reason, " (%s)" % path if path else "")) from e

    def _stored(self):
        """(cache, path, stored results) of this autotuner's results file."""
        cache = KernelCache()
        path = self._results_path(cache)
        return cache, path, cache.read_json(path) or {}

    def _faulted(self, key):
        """{config as JSON: error} of the configs that faulted for this key in an earlier process."""
        if not self.cache_results or not _storable(key):
            return {}
        _, _, stored = self._stored()
        return {json.dumps(f["config"], sort_keys=True): f["error"] for f in
                stored.get("faulted", {}).get(repr(key), [])}

    def _record_fault(self, key, config, reason):
        """Adds the config to the key's faulted list in the results file; returns the file's path (None: not kept)."""
        if not self.cache_results or not _storable(key):
            return None
        cache, path, stored = self._stored()
        stored.setdefault("faulted", {}).setdefault(repr(key), []).append(
            {"config": config.to_dict(), "error": reason, "time": time.time()})
        try:
            cache.write_json(path, stored)
        except OSError:
            return None
        return path

    def _bench(self, call):
        if self.bench is not None:
            return self.bench(call)
        return do_bench(call, self.warmup_ms, self.rep_ms)

    def warmup(self, *args, grid=None, **kwargs):
        """Compile every (pruned) config without launching (e.g. to fill a cache for a GPU host); a list of the
        compiled kernels, as Triton's."""
        if "warmup" not in self.arg_names:
            kwargs.pop("warmup", None)  # Triton's KernelInterface.warmup passes warmup=True
        self.nargs = dict(zip(self.arg_names, args))
        try:
            configs = self.prune_configs(kwargs)
        finally:
            self.nargs = None
        out = []
        for c in configs:
            nargs = self.fn.bind(args, dict(kwargs, **c.kwargs))
            if c.pre_hook is not None:
                c.pre_hook(nargs)
            out.append(self.fn.warmup(grid=grid, **dict(nargs, **c.options)))
        return out

    def __repr__(self):
        return "Autotuner(%r, %d configs, key=%r)" % (self.fn, len(self.configs), self.key)


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None,
             post_hook=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None, cache_results=True, *,
             bench=None, verbose=True):
    """Decorator over a ``@txl.jit`` (or ``@txl.heuristics``) function; see the module docstring. Triton's
    arguments, in Triton's order: ``key`` (parameter names whose values select the tuning entry, plus every
    tensor argument's dtype; a name that is no parameter is ignored, with a warning, as Triton ignores it),
    ``prune_configs_by`` ({"perf_model", "top_k", "early_config_prune"}),
    ``reset_to_zero`` / ``restore_value`` (parameter names), ``pre_hook`` / ``post_hook`` (replace the
    reset/restore hooks), ``warmup`` / ``rep`` (ms, default 25 / 100), ``use_cuda_graph`` (accepted; txl times
    with CUDA events), ``do_bench(kernel_call, quantiles)`` (replaces the timer), ``cache_results`` (txl's default
    is True: the choice is kept on disk). ``bench(call) -> ms`` replaces the timer too (tests use a fake one).
    Returns a ``txl.runtime.autotuner.Autotuner`` (Triton's class name and constructor)."""

    def deco(fn):
        from .runtime.autotuner import Autotuner as TritonAutotuner

        return TritonAutotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value, pre_hook=pre_hook,
                               post_hook=post_hook, prune_configs_by=prune_configs_by, warmup=warmup, rep=rep,
                               use_cuda_graph=use_cuda_graph, do_bench=do_bench, cache_results=cache_results,
                               bench=bench, verbose=verbose)

    return deco


class Heuristics:
    """``@txl.heuristics(values={"BLOCK": lambda args: txl.next_power_of_2(args["n"])})``: before each launch,
    each value is computed from the arguments by name (``{**dict(zip(arg_names, args)), **kwargs}``: the positional
    arguments and the keyword ones, including an outer autotuner's config values) and passed as a keyword argument
    (a constexpr), as ``triton.heuristics``. It wraps a ``@txl.jit`` function or a ``@txl.autotune``d one, and can
    be wrapped by ``@txl.autotune``."""

    def __init__(self, fn, values):
        if not isinstance(values, dict) or not all(callable(v) for v in values.values()):
            raise TypeError("txl.heuristics(values=...) takes a dict {name: function(args) -> value}")
        names = getattr(fn, "arg_names", None)
        if names is None:
            raise TypeError("txl.heuristics decorates a @txl.jit (or @txl.autotune) function, got %r" % (fn,))
        unknown = [v for v in values if v not in names]
        if unknown:
            raise ValueError("txl.heuristics(values=...) of %s: %s %s not a parameter (parameters: %s)"
                             % (fn.__name__, ", ".join(unknown), "is" if len(unknown) == 1 else "are",
                                ", ".join(names)))
        self.fn = fn
        self.values = dict(values)
        self.arg_names = names
        self.__name__ = fn.__name__

    def _apply(self, args, kwargs):
        kwargs = dict(kwargs)
        for name, heur in self.values.items():
            kwargs[name] = heur({**dict(zip(self.arg_names, args)), **kwargs})
        return kwargs

    def run(self, *args, grid, **kwargs):
        return self.fn.run(*args, grid=grid, **self._apply(args, kwargs))

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def warmup(self, *args, grid=None, **kwargs):
        return self.fn.warmup(*args, grid=grid, **self._apply(args, kwargs))

    def bind(self, args, kwargs):
        return self.fn.bind(args, self._apply(args, kwargs))

    def __getattr__(self, name):  # signature, where, src, _defaults, _fingerprint... of the wrapped function
        if name == "fn":
            raise AttributeError(name)
        return getattr(self.fn, name)

    def __repr__(self):
        return "Heuristics(%r, %s)" % (self.fn, sorted(self.values))


def heuristics(values):
    """Decorator: see ``Heuristics``. Returns a ``txl.runtime.autotuner.Heuristics`` (Triton's constructor)."""

    def deco(fn):
        from .runtime.autotuner import Heuristics as TritonHeuristics

        return TritonHeuristics(fn, getattr(fn, "arg_names", None), values)

    return deco


def cdiv(x, y):
    """ceil(x / y) for integers (triton.cdiv)."""
    return (x + y - 1) // y


def next_power_of_2(n):
    """The smallest power of two >= n (triton.next_power_of_2; 1 for n <= 1)."""
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()
