"""What every ``txl.ops`` attention operator launches with, below the operators that share it: the padding of
sequence lengths (BLOCK, padded_len), the "unbounded" window side the kernels take (BIG), the stand-in cu_seqlens of
a launch without packed sequences (_dummy_i32), ``fast_launch``, the launch path of kernels launched once per
call or more, and what the operators' per-shape plans replay a call with (``PlannedLaunch``: descriptors cached by
address, no row views; ``Piece`` / ``workspace_pieces``: a call's scratch tensors in one allocation).

``txl.ops.attention`` re-exports these names (``txl.ops.attention.fast_launch`` etc.), where callers and tests know
them; the modules ``attention`` imports (``_attention_bwd``, ``rope``) take them from here, so the imports run one
way.
"""

from txl.compiler.meta import MetaTensor

BLOCK = 128  # N is padded to a multiple of this (every kernel's BLOCK_M and BLOCK_N divide it)
BIG = 1 << 30  # an unbounded side of a sliding window, as the kernels take it
# Device types the operators accept and keep launch plans for (bench/attention_host_cpu.py adds "cpu" to time the
# host path on CPU tensors with stand-in launches).
DEVICE_TYPES = ("cuda",)


def padded_len(n):
    return -(-int(n) // BLOCK) * BLOCK


_modes = None


def tracing(torch):
    """Whether torch is tracing rather than running: torch.compile (dynamo), or make_fx / AOT autograd (a proxy,
    fake or functional dispatch mode is active; AOT traces a backward formula with fake tensors and
    torch.compiler.is_compiling() False). The operators then call their custom ops, which tracing records with
    their fake implementations, instead of launching kernels."""
    global _modes
    if torch.compiler.is_compiling():
        return True
    if _modes is None:
        key = torch._C._TorchDispatchModeKey
        _modes = (torch._C._get_dispatch_mode, (key.PROXY, key.FAKE, key.FUNCTIONAL))
    get, keys = _modes
    return get(keys[0]) is not None or get(keys[1]) is not None or get(keys[2]) is not None


_dummies = {}


def _dummy_i32(like):
    """A 2-element int32 tensor on ``like``'s device: the cu_seqlens arguments of a launch without packed
    sequences (read by no code path)."""
    if isinstance(like, MetaTensor):
        return MetaTensor((2,), "int32")
    t = _dummies.get(like.device)
    if t is None:
        import torch

        t = _dummies[like.device] = torch.zeros(2, dtype=torch.int32, device=like.device)
    return t


_fast_launches = {}


def launch_key(fn, dev, args, kwargs):
    """(key, tensors): what fast_launch keeps a launch of ``fn`` on device ``dev`` under (the kinds of its
    arguments as the JIT specialises them: dtypes, 16-byte alignment, contiguity, ints == 1 or divisible by 16 or
    beyond 32 bits; the constexprs' values), and the tensors among ``kwargs`` (runtime parameters after the
    constexprs)."""
    import torch
    import txl

    def kind(v):
        if isinstance(v, txl.TensorDescriptor):
            return ("d", v.base.dtype, tuple(v.block_shape), v.base.data_ptr() % 16 == 0, v.base.stride(-1))
        if isinstance(v, torch.Tensor):
            return ("t", v.dtype, v.data_ptr() % 16 == 0, v.is_contiguous())
        if isinstance(v, int):
            return ("i", v == 1, v % 16 == 0, -0x80000000 <= v <= 0x7FFFFFFF)
        return (type(v).__name__,)

    tensors = {n: v for n, v in kwargs.items() if isinstance(v, (torch.Tensor, txl.TensorDescriptor))}
    key = (fn, dev, tuple(sorted((n, kind(v) if n in tensors else v) for n, v in kwargs.items())),
           tuple(kind(a) for a in args))
    return key, tensors


def fast_launch(fn, grid, args, kwargs):
    """``fn[grid](*args, **kwargs)`` through runtime.FastLaunch: the first launch of a specialisation compiles it
    (the JIT's rules: dtypes, 16-byte alignment of pointers, ints == 1 or divisible by 16, the constexprs); later
    ones only pack the arguments (a backward is three or four launches per call, whose generic launch path cost
    more host time than the kernels' GPU time at (2, 16, 4096, 128)). ``args``: the kernel's runtime arguments
    in parameter order (descriptors as txl.TensorDescriptor), ``kwargs``: constexprs and launch options, and
    tensors of runtime parameters that follow the constexprs (the fa3 kernel's SINK_LOGITS). Returns (the
    FastLaunch, its params' names), from which a caller may keep a launch plan of its own."""
    import torch
    import txl
    from txl.runtime.launcher import FastLaunch

    dev = torch.cuda.current_device()
    key, tensors = launch_key(fn, dev, args, kwargs)
    entry = _fast_launches.get(key)
    if entry is None:
        compiled = fn.warmup(*args, grid=None, **kwargs)
        launcher = compiled.launcher()
        # The sidecar names its params after the kernel's (txl.name) or, unnamed, lists the runtime arguments in
        # order; either way without the ints that specialisation folded into constants (== 1).
        names = [p.name for p in launcher.params]
        if not all(n in fn.arg_names for n in names):
            bound = fn.bind(args, {n: v for n, v in kwargs.items() if n in fn.arg_names})
            names = list(fn.specialize(bound)[0])
        runtime = fn.arg_names[:len(args)] + list(tensors)
        if not all(n in runtime for n in names):
            raise TypeError("fast_launch(%s): the compiled kernel's params %s are not among the runtime arguments %s"
                            % (fn.where, names, runtime))
        entry = (FastLaunch(launcher, dev), names)
        if len(_fast_launches) > 256:
            _fast_launches.clear()
        _fast_launches[key] = entry
    fast, names = entry
    by_name = dict(zip(fn.arg_names, args), **tensors)
    vals = [by_name[n].base if isinstance(by_name[n], txl.TensorDescriptor) else by_name[n] for n in names]
    fast(tuple(grid) + (1,) * (3 - len(grid)), vals)
    return entry


# ---------------------------------------------------------------------------------------------------------------
# Launch plans: what a replayed call does per launch (the ops' _Plan classes build on these)
# ---------------------------------------------------------------------------------------------------------------
# A plan's key fixes every tensor's shape, strides and dtype, so a call differs from the first only in addresses.
# Per call it then needs no view of a tensor as the kernel's (rows, columns) (each view is a torch op, about 1 us
# of host time) and no TensorDescriptor: a descriptor param looks its encoded descriptor up by the tensor's
# address in the plan (encoded through the FastLaunch's own setter, with every check, on the first call with an
# address: torch's caching allocator hands the same few addresses back, so later calls hit), a pointer param
# takes the tensor as it is (FastLaunch reads only its data_ptr()), and a call's scratch tensors are pieces of one
# float32 workspace allocation (one torch.empty instead of one per scratch tensor), passed by address.
# Encoded descriptors kept per descriptor param of a plan (about 200 bytes each), cleared when exceeded: as many as
# FastLaunch keeps, so that a model whose layers share one shape (a plan) but not addresses still hits.
DESC_CACHE_LIMIT = 256
WORKSPACE_ALIGN = 128  # float32 elements (512 bytes, as torch's allocator aligns): every piece starts aligned


class Piece:
    """A scratch tensor inside a call's float32 workspace, passed to a pointer param by address (``data_ptr()``,
    all runtime.FastLaunch reads of it); ``tensor()`` views it when a descriptor must be encoded or the caller
    wants it (the backward's Delta for the learnable sinks)."""

    __slots__ = ("ws", "ptr", "off", "shape", "n")

    def __init__(self, ws, base, off, shape, n):
        self.ws, self.ptr, self.off, self.shape, self.n = ws, base + 4 * off, off, shape, n

    def data_ptr(self):
        return self.ptr

    def numel(self):
        return self.n

    def tensor(self):
        return self.ws.narrow(0, self.off, self.n).view(self.shape)


def workspace_layout(shapes):
    """([(offset, shape, numel)] in float32 elements, total elements) of pieces of ``shapes`` in one allocation,
    each at a multiple of WORKSPACE_ALIGN (16-byte aligned, as the kernels are specialised)."""
    layout, off = [], 0
    for shape in shapes:
        numel = 1
        for s in shape:
            numel *= s
        layout.append((off, tuple(shape), numel))
        off += -(-numel // WORKSPACE_ALIGN) * WORKSPACE_ALIGN
    return layout, max(off, 1)


def workspace_pieces(torch, layout, total, device):
    """One float32 allocation of ``total`` elements and its Pieces per ``layout`` (workspace_layout)."""
    ws = torch.empty(total, dtype=torch.float32, device=device)
    base = ws.data_ptr()
    return [Piece(ws, base, off, shape, numel) for off, shape, numel in layout]


class PlannedLaunch:
    """One kernel launch of a plan: its runtime.FastLaunch (or a stand-in with the same ``setters`` and ``lock``),
    grid, and per param the index of its value in the call's list of values (``idx``); ``descs``: (param index,
    row width) of each descriptor param, whose tensor the kernel reads as (numel / width, width) rows (every
    attention descriptor is 2-D). ``__call__(env[, grid])`` launches on ``env`` (tensors, Pieces, numbers), the
    descriptor params through the cache, keyed on (address, numel): a packed call's row count changes with its
    lengths, a dense plan's is fixed by its key."""

    __slots__ = ("fast", "grid", "idx", "descs")

    def __init__(self, fast, grid, idx, descs=()):
        self.fast, self.idx = fast, tuple(idx)
        self.grid = None if grid is None else tuple(grid) + (1,) * (3 - len(grid))
        self.descs = tuple((pos, int(width), {}) for pos, width in descs)

    def _encode(self, pos, t, width, cache, key):
        # The first call with this address and size: the FastLaunch's own setter plans (checks) and encodes the
        # descriptor for the tensor viewed as the kernel reads it; under its lock, since the setter also writes
        # the shared parameter slot (the launch rewrites it).
        t = t.tensor() if type(t) is Piece else t
        t = t.view(key[1] // width, width)
        with self.fast.lock:
            d = self.fast.setters[pos](t)
        if len(cache) >= DESC_CACHE_LIMIT:
            cache.clear()
        cache[key] = d
        return d

    def __call__(self, env, grid=None):
        vals = [env[i] for i in self.idx]
        for pos, width, cache in self.descs:
            t = vals[pos]
            key = (t.data_ptr(), t.numel())
            d = cache.get(key)
            vals[pos] = d if d is not None else self._encode(pos, t, width, cache, key)
        self.fast(grid or self.grid, vals)
