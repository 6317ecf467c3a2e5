"""``@txl.jit``: a Python function that is compiled to the txl dialect when it is launched or compiled.

A ``JITFunction`` records the function, its source and its parameters; the frontend
(``txl.compiler.code_generator``) turns the source into txl IR, ``txl.compile`` runs the compiler on it and
``kernel[grid](*args)`` specialises, compiles (through the cache) and launches.

Specialisation (like Triton's): every launch maps its arguments to a *signature* and *constexprs*; each distinct
pair is compiled once and kept in memory (``JITFunction.cache``) and on disk (``txl.compiler.cache``).

Argument -> signature entry (or constexpr):

* parameter annotated ``tl.constexpr`` -> constexprs[name] = value
* CUDA tensor -> ``*<dtype>``: ``*bf16``, ``*fp16``, ``*fp32``, ``*i32``, ...
* ``txl.TensorDescriptor(t, [64, 256])`` -> ``tensordesc<bf16[64, 256]>`` (the logical tile; ``, swizzle=S``
  when given)
* ``txl.runtime.TensorDescriptor`` (already encoded) -> ``tensordesc<bf16[64, 64], swizzle=128>`` (its hardware box)
* bool -> ``i1``
* int == 1 -> constexprs[name] = 1 (unless the parameter is in ``do_not_specialize``)
* other int -> ``i32``, or ``i64`` beyond the i32 range; ``:16`` appended when divisible by 16 (unless in
  ``do_not_specialize``)
* float -> ``fp32``
* None -> constexprs[name] = None

Debugging: ``@txl.jit(debug=True)`` (or TRITON_DEBUG=1 / TXL_DEBUG=1) compiles in the kernel's
``tl.device_assert`` and run-time ``assert`` checks, which Triton also drops otherwise; ``TXL_DUMP_IR=1`` prints
the IR after every pipeline stage, ``@txl.jit(diff_mode="txl", diff_select=k)`` prints what stage k changed and
does not launch, ``log_dir=`` or ``TXL_KEEP_TEMPS=1`` keeps the intermediate files; all of these act when a
specialisation is compiled, i.e. on its first launch in a process. ``TXL_DEBUG_HANGS=1`` (or ``debug_hangs=True`` at the launch) bounds mbarrier waits.

Target: the current device's architecture (sm_100a on Blackwell, else sm_90a); ``TXL_TARGET=sm_100a`` compiles
Blackwell kernels anywhere (``jit_target``).

Every parameter lands in exactly one of the two dicts. Element type names are Triton's (``fp32 bf16 fp16 fp64
fp8e4nv fp8e5 i1 i8 u8 i16 i32 i64``); the ``:16`` suffix promises "divisible by 16" to the frontend, which may
drop it.
"""

import functools
import inspect
import operator
import os
import sys
import textwrap
import threading
import types

from .language.core import dtype as _dtype
from .runtime.driver import env_flag

# runtime dtype name -> signature element type (Triton's spelling)
SIG_DTYPES = {"bf16": "bf16", "f16": "fp16", "f32": "fp32", "f64": "fp64", "f8e4m3": "fp8e4nv", "f8e5m2": "fp8e5",
              "i1": "i1", "i8": "i8", "u8": "u8", "i16": "i16", "i32": "i32", "i64": "i64", "u16": "u16",
              "u32": "u32", "u64": "u64"}
LAUNCH_OPTIONS = ("num_warps", "num_warpgroups", "num_stages", "debug_hangs", "stream")
_OPTION_DEFAULTS = {"num_warps": 4, "num_warpgroups": 1, "num_stages": None, "debug_hangs": None, "stream": None}
DIFF_MODES = ("txl",)
# TXL's diff_mode values name stages of Triton's pipeline (TTIR, TTGIR, LLVM IR), which txl does not have: the
# decorator is accepted with a warning and the kernel compiles and launches normally (TXL compiles it, prints a
# diff and exits without launching). txl's own debugging diff is diff_mode='txl', diff_select=k.
TRITON_DIFF_MODES = ("ttir", "ttgir", "llir")
_I32 = (-(2**31), 2**31 - 1)
_I64 = (-(2**63), 2**63 - 1)


_DESCRIPTOR_TYPES = set()  # TensorDescriptor and its subclasses (Gluon's): the fast path's descriptor types


class TensorDescriptor:
    """A TMA descriptor argument of a ``@txl.jit`` kernel: a CUDA tensor and the tile the kernel moves through it.

    ``txl.TensorDescriptor(t, block_shape=[64, 256])`` (or Triton's spelling ``TensorDescriptor(base, shape,
    strides, block_shape, padding="zero")`` / ``TensorDescriptor.from_tensor(t, block_shape)``). ``block_shape`` is
    the kernel's *logical* tile, as the DSL's ``tensordesc<bf16[64, 256]>`` type says; the hardware box can be
    smaller (a 128-byte swizzle moves a 256-column bf16 tile as 64-column boxes): the compiler's sidecar says
    which, and the launcher encodes the CUtensorMap from the tensor with that box. So nothing is encoded here: a
    ``pre_hook`` may still change ``block_shape`` (TXL's way to give descriptors the autotuned block), and no
    driver is needed to specialise or to compile. ``swizzle`` (bytes) defaults to the frontend's choice for the
    tile. ``txl.runtime.TensorDescriptor`` (encoded at once, hardware box) is accepted too.

    As in Triton, ``shape`` and ``strides`` (elements) describe the memory the descriptor covers, starting at the
    tensor's first element, and may differ from the tensor's own: TXL's attention host code describes a
    (B, H, N, D) tensor as ``shape=[B * H * N, D], strides=[D, 1]``. The descriptor then moves tiles of that
    view (``base.as_strided(shape, strides)``); it must stay inside the tensor's memory.
    """

    def __init__(self, base, shape=None, strides=None, block_shape=None, padding="zero", *, swizzle=None):
        from .runtime import dtypes as _dt

        if block_shape is None and shape is not None and strides is None:
            block_shape, shape = shape, None  # TensorDescriptor(t, [64, 256])
        if block_shape is None:
            raise TypeError("TensorDescriptor needs a block_shape (the tile the kernel loads or stores)")
        if isinstance(padding, int) and not isinstance(padding, bool) and swizzle is None:
            padding, swizzle = "zero", padding  # txl's earlier positional spelling (base, shape, strides, block, S)
        if padding not in ("zero", "nan", None):
            raise ValueError("TensorDescriptor(padding=%r): out-of-bounds elements read as 'zero' (the default) or "
                             "'nan'" % (padding,))
        info = _dt.tensor_info(base) if _dt.is_tensor_like(base) else None
        if info is None:
            raise TypeError("TensorDescriptor needs a CUDA tensor, got %s" % _dt.describe(base))
        if padding == "nan" and info.dtype not in ("bf16", "f16", "f32", "f64"):
            raise ValueError("TensorDescriptor(padding='nan'): NaN padding is only supported for floating-point "
                             "tensors, got %s (as in Triton); use padding='zero'" % info.dtype)
        if shape is not None or strides is not None:
            base = _view(base, info, shape, strides)
        self.base = base
        self.block_shape = [int(b) for b in block_shape]
        self.swizzle = swizzle
        self.padding = padding or "zero"
        self._encoded = {}  # padding="nan": (box, swizzle, l2 promotion) -> the encoded descriptor

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _DESCRIPTOR_TYPES.add(cls)  # gluon.nvidia.hopper.TensorDescriptor launches on the fast path too

    def launch_value(self, param):
        """What the launcher gets for kernel parameter ``param``: the tensor, which it encodes with the compiled
        kernel's box (zero fill), or, for padding="nan", a NaN-filling descriptor encoded here with that same box,
        swizzle and L2 promotion (kept for the next launch)."""
        if self.padding != "nan" or param.kind != "tensordesc":
            return self.base
        key = (tuple(param.block_shape), param.swizzle, param.l2_promotion)
        d = self._encoded.get(key)
        if d is None:
            from .runtime.driver import TensorDescriptor as Encoded

            d = self._encoded[key] = Encoded(self.base, list(param.block_shape), param.swizzle,
                                             l2_promotion=param.l2_promotion, oob_fill_nan=True)
        return d

    @property
    def shape(self):
        return list(self.base.shape)

    @property
    def strides(self):
        from .runtime import dtypes as _dt
        return list(_dt.tensor_info(self.base).strides)

    @classmethod
    def from_tensor(cls, base, block_shape, padding="zero", swizzle=None):
        return cls(base, block_shape=block_shape, padding=padding, swizzle=swizzle)

    def __repr__(self):
        return "txl.TensorDescriptor(block_shape=%s%s)" % (self.block_shape, "" if self.swizzle is None else
                                                           ", swizzle=%d" % self.swizzle)


_DESCRIPTOR_TYPES.add(TensorDescriptor)


def _view(base, info, shape, strides):
    """The tensor a Triton-style (shape, strides) descriptor describes: ``base`` itself when they are its own, else
    the view ``base.as_strided(shape, strides)`` (same first element), checked to stay inside ``base``."""
    shape = list(info.shape) if shape is None else [int(s) for s in shape]
    if strides is None:
        strides, acc = [], 1
        for s in reversed(shape):
            strides.insert(0, acc)
            acc *= s
    strides = [int(s) for s in strides]
    if len(strides) != len(shape):
        raise ValueError("TensorDescriptor shape %s and strides %s have different ranks" % (shape, strides))
    if tuple(shape) == tuple(info.shape) and tuple(strides) == tuple(info.strides):
        return base
    if any(s < 1 for s in shape) or any(st < 1 for st in strides):
        raise ValueError("TensorDescriptor shape %s / strides %s: sizes and strides must be positive (TMA)"
                         % (shape, strides))

    def last(shp, st):  # the offset (elements) of the last element a view reaches
        return sum((n - 1) * k for n, k in zip(shp, st))

    if any(n == 0 for n in info.shape) or last(shape, strides) > last(info.shape, info.strides):
        raise ValueError("TensorDescriptor shape %s, strides %s reach element %d from the start, beyond the tensor "
                         "(shape %s, strides %s, last element at %d): describe memory inside the tensor"
                         % (shape, strides, last(shape, strides), list(info.shape), list(info.strides),
                            last(info.shape, info.strides)))
    as_strided = getattr(base, "as_strided", None)
    if not callable(as_strided):
        raise ValueError("TensorDescriptor shape %s, strides %s differ from the tensor's (%s, %s) and it has no "
                         "as_strided: pass a view of that shape" % (shape, strides, list(info.shape),
                                                                      list(info.strides)))
    return as_strided(shape, strides)


class JITFunction:
    """A kernel or device function written in the txl DSL."""

    # How the language and the code generator recognise one without importing this module (they sit below it):
    # ``txl.language.core.is_jit_function``.
    __txl_jit_function__ = True

    # Launch options accepted and not acted on (GluonJITFunction: Triton's enable_fp_fusion, maxnreg...).
    _ignored_options = ()

    def __init__(self, fn, *, do_not_specialize=(), debug=False, noinline=False, diff_mode=None,
                 diff_select=None, log_dir=None, launch_metadata=None, do_not_specialize_on_alignment=(),
                 version=None, repr=None, use_txl=True, src_file=None):
        if not inspect.isfunction(fn):
            raise TypeError("@txl.jit decorates a Python function, got %r" % (fn,))
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        try:
            lines, self.starting_line_number = inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            raise TypeError("@txl.jit needs the source of %s (define it in a file, not in an interactive "
                            "session): %s" % (fn.__qualname__, e)) from None
        # Dedented source of the function, decorators included (the frontend skips them).
        self.src = textwrap.dedent("".join(lines))
        self.file = inspect.getsourcefile(fn) or "<unknown>"
        self.signature = inspect.signature(fn)
        self.arg_names = list(self.signature.parameters)
        # do_not_specialize takes names or positions, as in Triton.
        self.do_not_specialize = tuple(self.arg_names[d] if isinstance(d, int) else d for d in do_not_specialize)
        # Triton's do_not_specialize_on_alignment: no ':16' (divisible by 16 / 16-byte aligned) specialisation.
        self.do_not_specialize_on_alignment = tuple(self.arg_names[d] if isinstance(d, int) else d
                                                    for d in do_not_specialize_on_alignment)
        unknown = [d for d in self.do_not_specialize + self.do_not_specialize_on_alignment
                   if d not in self.arg_names]
        if unknown:
            raise ValueError("@txl.jit(do_not_specialize=...) of %s names %s, which %s (its parameters: %s)"
                             % (fn.__name__, ", ".join(unknown),
                                "is not a parameter" if len(unknown) == 1 else "are not parameters",
                                ", ".join(self.arg_names)))
        # TXL's and Triton's other @jit arguments. launch_metadata(grid, kernel, args) -> {"name", "flops..."}
        # names a launch for proton, which txl does not have: kept, never called. version / repr: Triton's
        # cache-key and repr hooks, kept. use_txl=False selects upstream Triton's pipeliner in TXL; txl has one
        # pipeline, so it is accepted and has no effect. src_file (compile from an IR/PTX file) is refused.
        self.launch_metadata = launch_metadata
        self.version = version
        self.repr = repr
        self.use_txl = use_txl
        if src_file:
            raise ValueError("@txl.jit(src_file=%r) of %s: txl compiles the kernel's Python source; to compile txl "
                             "IR, run `txlc file.mlir` (or txl.compile on the function)" % (src_file, fn.__name__))
        if isinstance(diff_mode, str) and diff_mode.lower() in TRITON_DIFF_MODES:
            import warnings

            warnings.warn("@txl.jit(diff_mode=%r) of %s: %r is a stage of Triton's pipeline, which txl does not "
                          "have; the kernel compiles and launches normally. txl's pass diff is "
                          "@txl.jit(diff_mode='txl', diff_select=k) (k = a txlc pipeline stage)"
                          % (diff_mode, fn.__name__, diff_mode), stacklevel=3)
            diff_mode, diff_select = None, None
        if diff_mode is not None and diff_mode not in DIFF_MODES:
            raise ValueError("@txl.jit(diff_mode=%r) of %s: the supported mode is 'txl' (diff the IR around one "
                             "pipeline stage, chosen with diff_select=k)" % (diff_mode, fn.__name__))
        self.debug = debug
        self.noinline = noinline
        self.diff_mode = diff_mode
        self.diff_select = diff_select
        self.log_dir = log_dir
        self.cache = {}  # specialisation key -> CompiledKernel
        self._compiling = {}  # specialisation key -> the lock held while it compiles (see _compile_once)
        # Fast path: per position / name, how a launch argument is fingerprinted ("c" constexpr, "n" not
        # specialised, "s" specialised), the defaults, and fingerprint -> _FastEntry.
        cexpr = set(self.constexpr_names)
        self._kind_of = {n: "c" if n in cexpr else "n" if n in self.do_not_specialize else "s" for n in self.arg_names}
        self._kinds = [self._kind_of[n] for n in self.arg_names]
        self._defaults = {n: p.default for n, p in self.signature.parameters.items()
                          if p.default is not inspect.Parameter.empty}
        self._fast = {}
        # Launch options that are also parameters of the kernel (TXL's softmax declares `num_warps: tl.constexpr`):
        # a launch's `num_warps=4` sets both, as in Triton.
        self._option_params = tuple(o for o in LAUNCH_OPTIONS[:3] if o in self.arg_names)
        self._binder = None  # made on the first launch (_make_binder); False: this kernel has none

    @property
    def constexpr_names(self):
        """Parameters annotated ``tl.constexpr`` (or ``txl.constexpr``): compile-time values."""
        names = []
        for name, p in self.signature.parameters.items():
            ann = p.annotation
            if ann is inspect.Parameter.empty:
                continue
            text = ann if isinstance(ann, str) else getattr(ann, "__name__", repr(ann))
            if text == "constexpr" or text.endswith(".constexpr"):
                names.append(name)
        return names

    @property
    def where(self):
        """'name (file:line)', how errors name the kernel."""
        return "%s (%s:%d)" % (self.__name__, self.file, self.starting_line_number)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("%s is a @txl.jit function: call it from another @txl.jit function, launch it with "
                           "%s[grid](*args), or compile it with txl.compile(%s, signature=...)"
                           % (self.__name__, self.__name__, self.__name__))

    def __repr__(self):
        return "JITFunction(%s:%s)" % (self.__module__, self.__qualname__)

    # -- specialisation ----------------------------------------------------------------------------------------
    def bind(self, args, kwargs):
        """{param: value} for a launch, defaults applied. TypeError names the kernel."""
        try:
            b = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError("%s: %s; its parameters are (%s)" % (self.where, e, ", ".join(self.arg_names))) from None
        b.apply_defaults()
        return dict(b.arguments)

    def specialize(self, bound):
        """(signature, constexprs) of a bound launch (see the module docstring). Checks tensors early, before
        anything is compiled: a CPU tensor or a dtype the kernel cannot take is an error
        naming the kernel and the argument."""
        from .runtime import TensorDescriptor as EncodedDescriptor
        from .runtime import dtypes as _dt

        cexpr = set(self.constexpr_names)
        sig, consts = {}, {}
        for name, v in bound.items():
            spec = name not in self.do_not_specialize
            align = spec and name not in self.do_not_specialize_on_alignment
            where = "%s: argument '%s'" % (self.where, name)
            if name in cexpr:
                if _dt.is_tensor_like(v) or isinstance(v, (TensorDescriptor, EncodedDescriptor)):
                    raise TypeError("%s is a tl.constexpr but got %s: constexprs are compile-time Python values "
                                    "(int, float, bool, str, dtype, ...)" % (where, _dt.describe(v)))
                consts[name] = getattr(v, "value", v) if type(v).__name__ == "constexpr" else v
            elif v is None:
                consts[name] = None
            elif isinstance(v, TensorDescriptor):  # logical tile, encoded at launch
                elt = self._pointer_type(where, v.base, _dt, descriptor=True)
                sig[name] = "tensordesc<%s[%s]%s>" % (elt, ", ".join(str(b) for b in v.block_shape),
                                                      "" if v.swizzle is None else ", swizzle=%d" % v.swizzle)
            elif isinstance(v, EncodedDescriptor):  # hardware box, already encoded
                sig[name] = "tensordesc<%s[%s], swizzle=%d>" % (SIG_DTYPES.get(v.dtype, v.dtype),
                                                                ", ".join(str(b) for b in v.block_shape), v.swizzle)
            elif _dt.is_tensor_like(v):
                # ":16": the data is 16-byte aligned (part of the specialisation, so a misaligned tensor gets
                # its own compile rather than a misaligned vector access)
                sig[name] = "*" + self._pointer_type(where, v, _dt) + (":16" if align and _aligned16(v) else "")
            elif isinstance(v, bool):
                sig[name] = "i1"
            elif _dt.is_int(v):
                v = int(v)
                if spec and v == 1:
                    consts[name] = 1
                    continue
                if _I32[0] <= v <= _I32[1]:
                    ty = "i32"
                elif _I64[0] <= v <= _I64[1]:
                    ty = "i64"
                else:
                    raise ValueError("%s = %d does not fit in 64 bits" % (where, v))
                sig[name] = ty + (":16" if align and v % 16 == 0 else "")
            elif isinstance(v, float):
                sig[name] = "fp32"
            else:
                raise TypeError("%s is %s: a kernel argument must be a CUDA tensor, a txl.TensorDescriptor, an int, "
                                "a float, a bool or None (or a tl.constexpr parameter)" % (where, _dt.describe(v)))
        return sig, consts

    @staticmethod
    def _pointer_type(where, v, _dt, descriptor=False):
        what = "a TensorDescriptor of a tensor" if descriptor else "a tensor"
        info = _dt.tensor_info(v)
        if not info.is_cuda:
            raise ValueError("%s is %s on %s: the kernel reads GPU memory; move it with .cuda()"
                             % (where, what, info.device_type))
        if info.dtype not in SIG_DTYPES:
            raise TypeError("%s is %s of dtype %s, which txl kernels cannot take; supported: %s"
                            % (where, what, info.dtype_str, ", ".join(_dt.TORCH_NAMES[d] for d in SIG_DTYPES)))
        if descriptor:
            if info.strides and info.strides[-1] != 1:
                raise ValueError("%s is %s whose innermost dimension is not contiguous (strides %s): TMA needs "
                                 "stride 1 there; call .contiguous()" % (where, what, list(info.strides)))
            return SIG_DTYPES[info.dtype]
        # A pointer argument may have any strides (the kernel indexes through the strides it is passed, as in
        # Triton); only TMA descriptors need a contiguous innermost dimension (above).
        return SIG_DTYPES[info.dtype]

    # -- compile and launch ------------------------------------------------------------------------------------
    def __getitem__(self, grid):
        """``kernel[grid](*args, num_warps=4, num_warpgroups=1, **constexprs)``."""
        binder = self._binder
        if binder is None:
            binder = self._binder = self._make_binder()
        if binder and "run" not in self.__dict__ and type(self).run is JITFunction.run:
            # the binder's launcher, called by functools.partial: no Python frame between the call and it
            return functools.partial(binder.launch, grid)
        return functools.partial(self.run, grid=grid)

    def warmup(self, *args, grid=None, **kwargs):
        """Specialise and compile (through the cache) without launching; returns the CompiledKernel."""
        return self.run(*args, grid=grid, _launch=False, **kwargs)

    def run(self, *args, grid, _launch=True, **kwargs):
        # The hot path: the kernel's binder (see _make_binder) fingerprints the arguments by name; a fingerprint
        # that went the checked way before launches at once.
        binding = None
        if _launch:
            binder = self._binder
            if binder is None:
                binder = self._binder = self._make_binder()
            if binder:
                try:
                    binding = binder(*args, **kwargs)
                except (TypeError, KeyError, _NoFastPath):  # an unusual launch: the checked path decides
                    binding = None
                else:
                    fast = self._fast.get(binding[0])
                    if fast is not None:
                        return fast(grid, binding[1], binding[2])
        return self._run_checked(args, kwargs, grid, _launch, binding)

    def _run_checked(self, args, kwargs, grid, _launch, binding):
        """A launch whose fingerprint has no fast entry yet (or that has none: warmup, diff_mode, an unusual
        argument): options, binding, specialisation, the compile cache, the runtime's checked launch; then the
        fingerprint (``binding``: the binder's (key, values, stream), else txl's positional fingerprint) is
        remembered for the fast path."""
        # Triton's launches pass warmup=False (KernelInterface.__getitem__: self.run(grid=grid, warmup=False, ...)),
        # and a subclassed autotuner or heuristics calling fn.run forwards it; warmup=True compiles without
        # launching, as Triton's. A kernel parameter named warmup keeps its value.
        for o in self._ignored_options:
            if o not in self._kind_of:
                kwargs.pop(o, None)
        if "warmup" in kwargs and "warmup" not in self._kind_of and kwargs.pop("warmup"):
            _launch = False
        # Launch options come from keyword arguments (as in Triton); one that is also a kernel parameter stays
        # in kwargs and binds to it too.
        num_warps, num_warpgroups, num_stages, debug_hangs, stream = (
            kwargs.get(o, _OPTION_DEFAULTS[o]) if o in self._option_params else kwargs.pop(o, _OPTION_DEFAULTS[o])
            for o in LAUNCH_OPTIONS)
        num_ctas = kwargs.get("num_ctas", 1) if "num_ctas" in self.arg_names else kwargs.pop("num_ctas", 1)
        num_ctas = 1 if num_ctas is None else num_ctas
        if isinstance(num_ctas, bool) or not isinstance(num_ctas, int) or not 1 <= num_ctas <= 8:
            raise ValueError("%s: num_ctas=%r: CTAs per cluster (one program of the grid is one cluster of "
                             "num_ctas CTAs, as in Triton) must be an int in 1..8" % (self.where, num_ctas))
        if debug_hangs is None:
            debug_hangs = env_flag(b"TXL_DEBUG_HANGS")
        libdevice = None
        if "extern_libs" not in self.arg_names and "extern_libs" in kwargs:
            libdevice = self._libdevice_of(kwargs.pop("extern_libs"))
        fkey = None
        if _launch and not self.diff_mode and binding is None:
            fkey = self._fingerprint(args, kwargs, (num_warps, num_warpgroups, num_stages, bool(debug_hangs),
                                                    libdevice, num_ctas))
            fast = self._fast.get(fkey) if fkey is not None else None
            if fast is not None:
                return fast(grid, args, kwargs, stream)
        bound = {n: _adopt_descriptor(v) for n, v in self.bind(args, kwargs).items()}
        sig, consts = self.specialize(bound)
        options = dict(num_warps=num_warps, num_warpgroups=num_warpgroups, num_stages=num_stages,
                       debug_hangs=bool(debug_hangs))
        if libdevice:
            options["libdevice"] = libdevice
        if num_ctas != 1:
            options["num_ctas"] = num_ctas
        # Check the grid before a possibly long compilation (the runtime checks it again against the cluster).
        launch = _launch and not self.diff_mode
        if launch:
            meta = dict(bound, **options)
            g = _cluster_grid(self._grid(grid, meta), num_ctas)
        key = (tuple(sig.items()), tuple((k, _freeze(v)) for k, v in consts.items()), tuple(options.items()))
        compiled = self.cache.get(key)
        if compiled is None or self.diff_mode:
            compiled = self._compile_once(key, sig, consts, options)
        if not launch:
            return compiled
        k = compiled.launcher()
        names = [p.name for p in k.params]
        vals = bound
        if not all(n in vals for n in names):
            # The IR did not name its parameters (txl.name): the runtime arguments go in order.
            if len(sig) != len(names):
                raise TypeError("%s: the compiled kernel takes %d parameters (%s) but the launch has %d runtime "
                                "arguments (%s): the frontend and the sidecar disagree"
                                % (self.where, len(names), ", ".join(names), len(sig), ", ".join(sig)))
            names = list(sig)
        # A txl.TensorDescriptor goes as its tensor (the runtime encodes it with the sidecar's hardware box), or
        # encoded with NaN fill (launch_value).
        result = k.launch(g, stream=stream, **{p.name: vals[n].launch_value(p) if isinstance(vals[n], TensorDescriptor)
                                               else vals[n] for p, n in zip(k.params, names)})
        # checked once: later launches with the same fingerprint take the fast path
        if binding is not None and not self.diff_mode:
            self._remember_bound(binding, k, names)
        elif fkey is not None:
            self._remember_fast(fkey, k, names, args, kwargs)
        return result

    def _libdevice_of(self, extern_libs):
        """Triton's ``extern_libs={"libdevice": path}`` launch option: the libdevice.10.bc to link when that file
        exists (Triton's tutorial 07 names its source tree's copy, which an installed package lacks: then txlc's
        own search, TXL_LIBDEVICE or the CUDA toolkit's, decides). Other libraries are refused."""
        if extern_libs is None:
            return None
        if not isinstance(extern_libs, dict):
            raise TypeError("%s: extern_libs must be a dict {name: path of a bitcode library}, got %r"
                            % (self.where, extern_libs))
        other = sorted(set(extern_libs) - {"libdevice"})
        if other:
            raise ValueError("%s: extern_libs names %s: txl links only CUDA's libdevice ({'libdevice': path})"
                             % (self.where, ", ".join(map(repr, other))))
        path = extern_libs.get("libdevice")
        return os.path.abspath(path) if isinstance(path, str) and os.path.exists(path) else None

    # -- the fast path of repeated launches --------------------------------------------------------------------
    def _fingerprint(self, args, kwargs, options):
        """A key that determines the specialisation and the argument checks of a launch (None: no fast path).
        Tensors: dtype, device, 16-byte alignment (and a descriptor's tile); ints: the class specialisation sees (== 1,
        divisible by 16, i32 or i64); constexprs: their value. Only torch tensors take the fast path."""
        kinds = self._kinds
        if len(args) > len(kinds):
            return None
        fp = [options]
        try:
            for v, kind in zip(args, kinds):
                fp.append(_arg_fingerprint(v, kind))
            for name, v in kwargs.items():
                fp.append(name)
                fp.append(_arg_fingerprint(v, self._kind_of[name]))
        except (_NoFastPath, KeyError, TypeError):
            return None
        return tuple(fp)

    def _remember_fast(self, fkey, kernel, names, args, kwargs):
        """Record how this launch's arguments map to the kernel's params, for launches of the same fingerprint."""
        src = {n: ("a", i) for i, n in enumerate(self.arg_names[:len(args)])}
        src.update({n: ("k", n) for n in kwargs})
        sources = []
        for n in names:
            if n not in src:  # a default value: the same in every launch
                sources.append(("d", self._defaults[n]))
            else:
                sources.append(src[n])
        if len(self._fast) > 64:
            self._fast.clear()
        self._fast[fkey] = _FastEntry(self, kernel, sources, dict(zip(LAUNCH_OPTIONS[:4], fkey[0])), fkey[0][5])

    def _make_binder(self):
        """The kernel's binder (False where it has none): a function generated with the kernel's own parameters
        (as Triton's JITFunction binds through a generated function), called with a launch's arguments. It binds
        them by name in C, applies the defaults and returns ``(key, values, stream)``: ``values`` the parameters'
        values in order, ``key`` the launch options and each value's fingerprint (what specialisation and the
        runtime's checks see: ``_arg_fingerprint``, its common cases inlined). A parameter not given is
        ``_MISSING`` (the autotuner fingerprints launches before its config fills in its constexprs; a JIT launch
        missing one has no fast entry and reports it on the checked path). Launches it cannot take (an unknown
        keyword, warmup=True, a value whose fingerprint raises) raise TypeError / _NoFastPath: the caller takes
        the checked path. Kernels with keyword-only or variadic parameters, or parameters named like a launch
        option, have none (the positional fingerprint serves them)."""
        params = list(self.signature.parameters.values())
        options = ("num_warps", "num_warpgroups", "num_stages", "debug_hangs", "stream", "num_ctas", "warmup",
                   "extern_libs", "grid") + tuple(self._ignored_options)
        if (self.diff_mode or any(p.kind is not p.POSITIONAL_OR_KEYWORD for p in params)
                or any(n in options or n in _BINDER_NAMES or n.startswith("_txl") for n in self.arg_names)):
            return False
        closure = {"_txl_fp": self._value_fingerprint}
        sig, lines, fps = [], [], []
        for i, n in enumerate(self.arg_names):
            if n in self._defaults:
                closure["_txl_d%d" % i] = self._defaults[n]
                sig.append("%s=_txl_d%d" % (n, i))
            else:
                sig.append("%s=_MISSING" % n)
            kind = self._kind_of[n]
            if kind == "c":
                lines += ["_txl_t = type(%s)" % n,
                          "_txl_f%d = (_txl_t, %s) if _txl_t in _SCALAR_CONSTEXPRS else _txl_fp(%s, 'c')" % (i, n, n)]
            else:
                intfp = ("(%s == 1, %s %% 16 == 0, -0x80000000 <= %s <= 0x7FFFFFFF)" % (n, n, n) if kind == "s"
                         else "'i32' if -0x80000000 <= %s <= 0x7FFFFFFF else 'i64'" % n)
                lines += ["_txl_t = type(%s)" % n,
                          "if _txl_t in _TENSOR_TYPES:",
                          "    _txl_f%d = (%s.dtype, %s.get_device(), %s.data_ptr() %% 16 == 0)" % (i, n, n, n),
                          "elif _txl_t is int:",
                          "    _txl_f%d = %s" % (i, intfp),
                          "else:",
                          "    _txl_f%d = _txl_fp(%s, %r)" % (i, n, kind)]
            fps.append("_txl_f%d" % i)
        closure["_txl_self"] = self
        kwonly = ["num_warps=4", "num_warpgroups=1", "num_stages=None", "debug_hangs=None", "stream=None",
                  "num_ctas=1", "warmup=False"] + ["%s=None" % o for o in self._ignored_options]
        # One key and one values expression for both functions: the autotuner finds the JIT's entries by the
        # binder's key, which the launcher registers them under.
        key = ("((num_warps, num_warpgroups, num_stages, bool(debug_hangs), None, num_ctas), _BOUND, %s)"
               % ", ".join(fps))
        values = "(%s)" % "".join(n + ", " for n in self.arg_names)
        options = "num_warps, num_warpgroups, num_stages, debug_hangs, stream, num_ctas, warmup"
        src = ["def _txl_make(%s):" % ", ".join(sorted(closure)),
               "    def _txl_bind(%s):" % ", ".join(sig + ["*"] + kwonly),
               "        if warmup:",
               "            raise _NoFastPath",
               "        if debug_hangs is None:",
               "            debug_hangs = env_flag(b'TXL_DEBUG_HANGS')",
               "        if num_ctas is None:",
               "            num_ctas = 1",
               "        elif type(num_ctas) is not int:",
               "            raise _NoFastPath",
               ] + ["        " + ln for ln in lines] + [
               "        return %s, %s, stream" % (key, values),
               # kernel[grid](...): binds, fingerprints and launches a known fingerprint in one call; anything
               # else goes to _launch_checked with the arguments by name
               "    def _txl_launch(_txl_grid, %s):" % ", ".join(sig + ["*_txl_more"] + kwonly + ["**_txl_extra"]),
               "        if _txl_more or _txl_extra or warmup or (num_ctas is not None and type(num_ctas) is not int):",
               "            return _txl_self._launch_checked(_txl_grid, _txl_more, _txl_extra, %s, %s, None)"
               % (values, options),
               "        _txl_hangs, _txl_ctas = debug_hangs, num_ctas",
               "        if debug_hangs is None:",
               "            debug_hangs = env_flag(b'TXL_DEBUG_HANGS')",
               "        if num_ctas is None:",
               "            num_ctas = 1",
               "        try:",
               ] + ["            " + ln for ln in lines] + [
               "        except (TypeError, KeyError, _NoFastPath):",
               "            return _txl_self._launch_checked(_txl_grid, (), {}, %s, %s, None)"
               % (values, options.replace("debug_hangs", "_txl_hangs").replace("num_ctas", "_txl_ctas")),
               "        _txl_key = %s" % key,
               "        _txl_values = %s" % values,
               "        _txl_entry = _txl_self._fast.get(_txl_key)",
               "        if _txl_entry is not None:",
               "            return _txl_entry(_txl_grid, _txl_values, stream)",
               "        return _txl_self._launch_checked(_txl_grid, (), {}, _txl_values, %s, (_txl_key, _txl_values, "
               "stream))" % options.replace("debug_hangs", "_txl_hangs").replace("num_ctas", "_txl_ctas"),
               "    return _txl_bind, _txl_launch"]
        scope = {}
        # The binder's globals are this module's, so what it calls (_arg_fingerprint, env_flag) is looked up at
        # the call (bench/libraries.py counts fast-path misses by wrapping _arg_fingerprint); its constants are
        # closure cells.
        exec(compile("\n".join(src), "<txl binder of %s>" % self.where, "exec"), globals(), scope)
        binder, launch = scope["_txl_make"](**closure)
        # A call that Python itself refuses (an argument given twice) names the kernel
        launch.__name__ = launch.__qualname__ = self.__name__
        binder.launch = launch
        return binder

    def _launch_checked(self, grid, more, extra, values, num_warps, num_warpgroups, num_stages, debug_hangs,
                        stream, num_ctas, warmup, binding):
        """The binder's launcher (see _make_binder) hands a launch without a fast entry to the checked path: the
        arguments by name (all positional where more were given than the kernel has parameters), the options as
        given, and its (key, values, stream) to remember, None where it could not fingerprint them."""
        if more:
            args, kwargs = tuple(values) + tuple(more), {}
        else:
            args = ()
            kwargs = {n: v for n, v in zip(self.arg_names, values) if v is not _MISSING}
        kwargs.update(extra)
        kwargs.update(num_warps=num_warps, num_warpgroups=num_warpgroups, num_stages=num_stages,
                      debug_hangs=debug_hangs, stream=stream, num_ctas=num_ctas, warmup=warmup)
        return self._run_checked(args, kwargs, grid, True, binding)

    def _value_fingerprint(self, v, kind):
        """A launch value's fingerprint where the binder's inlined cases do not decide (GluonJITFunction adds the
        global shape of a descriptor and the repr of a layout)."""
        return _MISSING if v is _MISSING else _arg_fingerprint(v, kind)

    def _launch_binding(self, args, kwargs):
        """The binder's ``(key, values, stream)`` of a launch's arguments as given, else ``(txl's positional
        fingerprint, None, None)``; None: no fast path. What the autotuner keys its choice on."""
        binder = self._binder
        if binder is None:
            binder = self._binder = self._make_binder()
        if binder:
            try:
                return binder(*args, **kwargs)
            except (TypeError, KeyError, _NoFastPath):
                pass
        fp = self._fingerprint(args, kwargs, ())
        return None if fp is None else (fp, None, None)

    def _launch_key(self, args, kwargs):
        """The fingerprint of a launch's arguments as given (None: no fast path); see _launch_binding."""
        binding = self._launch_binding(args, kwargs)
        return None if binding is None else binding[0]

    def _remember_bound(self, binding, kernel, names):
        """Record how a binder's values map to the kernel's params, for launches of the same binder key."""
        key, values, _ = binding
        index = {n: i for i, n in enumerate(self.arg_names)}
        if len(self._fast) > 64:
            self._fast.clear()
        self._fast[key] = _BoundEntry(self, kernel, [index[n] for n in names], values, key[0])

    def _grid(self, grid, meta):
        from .runtime import normalize_grid

        if grid is None:
            raise TypeError("%s: launch it as %s[grid](...), grid a tuple or a callable of the meta dict"
                            % (self.where, self.__name__))
        g = grid(meta) if callable(grid) else grid
        return normalize_grid(g, types.SimpleNamespace(kernel=self.where, cluster=(1, 1, 1)))

    def _compile_once(self, key, sig, consts, options):
        """Compile a specialisation and keep it in ``self.cache``. txl.autotune compiles its configs in threads
        and two configs can share a key (e.g. differing only in maxnreg): the second waits for the first's
        result instead of running txlc again. diff_mode compiles (and prints) every time."""
        if self.diff_mode:
            compiled = self.cache[key] = self._compile(sig, consts, options)
            return compiled
        with _COMPILING_GUARD:
            lock = self._compiling.setdefault(key, threading.Lock())
        with lock:
            compiled = self.cache.get(key)
            if compiled is None:  # not compiled by a thread that held the lock first
                compiled = self.cache[key] = self._compile(sig, consts, options)
        return compiled

    def _compile(self, sig, consts, options):
        from .compiler.compiler import compile as txl_compile
        from .compiler.compiler import find_txlc, pipeline_stages

        diff_select = self.diff_select
        if self.diff_mode and diff_select is None:
            diff_select = _ask_stage(self, find_txlc, pipeline_stages)
        dump = os.environ.get("TXL_DUMP_IR", "") not in ("", "0")
        compiled = txl_compile(self, sig, consts, target=jit_target(), dump_ir=dump, log_dir=self.log_dir,
                               diff_select=diff_select if self.diff_mode else None, **options)
        if self.diff_mode:
            sys.stdout.write("txl: %s was compiled in diff_mode and is not launched\n" % self.where)
        return compiled


_COMPILING_GUARD = threading.Lock()  # guards every JITFunction's _compiling dict

JIT_TARGETS = ("sm_90a", "sm_100a")


def jit_target():
    """The architecture a JIT compile targets: ``TXL_TARGET`` when set (sm_90a or sm_100a: TXL's Blackwell kernels
    compiled on any machine), else the current device's (``txl.runtime.driver.active.get_current_target()``:
    compute capability 10.x -> sm_100a, anything else -> sm_90a), sm_90a where no device can be asked."""
    env = os.environ.get("TXL_TARGET", "")
    if env:
        if env not in JIT_TARGETS:
            raise ValueError("TXL_TARGET=%r: txl compiles for %s" % (env, " or ".join(JIT_TARGETS)))
        return env
    try:
        from .runtime import driver as _driver

        arch = _driver.active.get_current_target().arch
    except Exception:  # no GPU, no driver: compile for Hopper, as before
        return "sm_90a"
    return "sm_100a" if isinstance(arch, int) and arch >= 100 else "sm_90a"


class _NoFastPath(Exception):
    pass


def _aligned16(v):
    """Whether a tensor argument's data starts on a 16-byte boundary (stand-ins without an address: assumed)."""
    ptr = getattr(v, "data_ptr", None)
    return True if ptr is None else ptr() % 16 == 0


_TENSOR_TYPES = ()  # torch.Tensor once torch is imported (tests may add a stand-in type)


def _tensor_types():
    global _TENSOR_TYPES
    if not _TENSOR_TYPES:
        torch = sys.modules.get("torch")
        if torch is not None:
            _TENSOR_TYPES = (torch.Tensor,)
    return _TENSOR_TYPES


def _adopt_descriptor(v):
    """Triton's host descriptor (triton.tools.tensor_descriptor.TensorDescriptor, which TXL's tutorials build, a
    pre_hook setting its block_shape) as a txl.TensorDescriptor of the same base, shape, strides, block and padding,
    read at this launch. Such launches take the slow path (the fast path knows txl's own descriptors only)."""
    t = type(v)
    if t is TensorDescriptor or t.__name__ != "TensorDescriptor" or not t.__module__.startswith("triton."):
        return v
    return TensorDescriptor(v.base, list(v.shape), list(v.strides), list(v.block_shape),
                            getattr(v, "padding", "zero") or "zero")


def _arg_fingerprint(v, kind):
    t = type(v)
    if kind == "c":  # a constexpr: its value (tensors as constexprs are the slow path's error)
        if t in (int, bool, float, str) or v is None or isinstance(v, _dtype):
            # (a tl dtype too: Liger passes tl.float32 and the like as constexprs, and a slow-path launch on
            # every call cost its backward kernels more than their run time)
            return (t, v)
        if t is tuple and all(type(e) in (int, bool, float, str) for e in v):
            return (t, v)
        raise _NoFastPath
    if t is bool:
        return "i1"
    if t is int:
        if kind == "n":
            return "i32" if _I32[0] <= v <= _I32[1] else "i64"
        return (v == 1, v % 16 == 0, _I32[0] <= v <= _I32[1])
    if t is float:
        return "f"
    if v is None:
        return None
    types_ = _TENSOR_TYPES or _tensor_types()
    if t in types_ or isinstance(v, types_):  # torch.nn.Parameter and other tensor subclasses too
        # Not its strides or contiguity: a tensor argument is a pointer param, which takes any strides (the
        # kernel indexes through the strides it is passed); only descriptors need stride 1 innermost (below).
        return (v.dtype, v.get_device(), v.data_ptr() % 16 == 0)
    if t in _DESCRIPTOR_TYPES and type(v.base) in types_ and v.padding != "nan":  # NaN fill: encoded on the slow path
        b = v.base
        return ("D", b.dtype, b.get_device(), b.stride()[-1] == 1, tuple(v.block_shape), v.swizzle)
    raise _NoFastPath


_MISSING = type("_Missing", (), {"__repr__": lambda self: "<not given>"})()  # a parameter the launch left out
_BOUND = type("_BoundKey", (), {"__repr__": lambda self: "<bound by name>"})()  # tags a binder key (see run)
_SCALAR_CONSTEXPRS = frozenset((int, bool, float, str, type(None)))
# Names the binder's code reads (builtins and this module's): a kernel parameter of one of these names would shadow
# it there, so such a kernel keeps the positional fingerprint.
_BINDER_NAMES = frozenset(("type", "bool", "int", "env_flag", "_MISSING", "_BOUND", "_TENSOR_TYPES",
                           "_SCALAR_CONSTEXPRS", "_NoFastPath"))


class _BoundEntry:
    """A launch whose binder key was checked once on the slow path: picks the kernel's params out of the binder's
    values (a txl.TensorDescriptor goes as its tensor) and launches through runtime.FastLaunch. The key holds the
    device of every tensor, so the entry's device is fixed (a kernel without tensor arguments asks torch)."""

    def __init__(self, jf, kernel, sources, values, options):
        self.jf, self.kernel = jf, kernel
        self.options = dict(zip(LAUNCH_OPTIONS[:4], options))
        self.num_ctas = options[5]
        self.sources = tuple(sources)
        self.in_order = self.sources == tuple(range(len(self.sources)))
        self.n = len(self.sources)
        # the kernel's params out of the values in one C call (itemgetter of one index returns the value itself)
        self.pick = operator.itemgetter(*self.sources) if self.n > 1 else lambda v, i=self.sources: [v[j] for j in i]
        picked = [values[i] for i in self.sources]
        # positions (in the kernel's params) of descriptors, which launch as their tensor (the key fixes the types)
        self.desc = tuple(j for j, v in enumerate(picked) if type(v) in _DESCRIPTOR_TYPES)
        dev = None
        for v in picked:
            t = v.base if type(v) in _DESCRIPTOR_TYPES else v
            if type(t) in _TENSOR_TYPES or isinstance(t, _TENSOR_TYPES):
                dev = t.get_device()
                break
        self.device = dev
        self.launch = None
        self.launchers = {}  # device -> FastLaunch, for a kernel without tensor arguments

    def __call__(self, grid, values, stream):
        if self.in_order:
            vals = values if len(values) == self.n else values[:self.n]
        else:
            vals = self.pick(values)
        if self.desc:
            vals = list(vals)
            for j in self.desc:
                vals[j] = vals[j].base
        if type(grid) is not tuple:
            if callable(grid):
                meta = dict(zip(self.jf.arg_names, values))
                meta.update(self.options)
                grid = grid(meta)
        g = _plain_grid(grid) if type(grid) is tuple else None
        if g is None:
            g = self.jf._grid(grid, {})  # normalize_grid: lists, other int types, and its errors
        if self.num_ctas != 1:
            g = _cluster_grid(g, self.num_ctas)
        launch = self.launch
        if launch is None:
            launch = self._launcher()
        return launch(g, vals, stream)

    def _launcher(self):
        from .runtime.launcher import FastLaunch

        if self.device is not None:
            self.launch = FastLaunch(self.kernel, self.device)
            return self.launch
        from .runtime import dtypes as _dt

        dev = _dt._current_torch_device()
        launch = self.launchers.get(dev)
        if launch is None:
            launch = self.launchers[dev] = FastLaunch(self.kernel, dev)
        return launch


class _FastEntry:
    """A launch of one JIT function whose fingerprint was checked once on the slow path: maps the arguments to
    the kernel's params (a txl.TensorDescriptor goes as its tensor) and launches through runtime.FastLaunch."""

    def __init__(self, jf, kernel, sources, options, num_ctas=1):
        self.jf, self.kernel, self.sources, self.options = jf, kernel, sources, options
        self.num_ctas = num_ctas
        self.launchers = {}  # device -> FastLaunch
        # The common case: the params are the first positional arguments, in order, none a txl.TensorDescriptor.
        self.in_order = sources == [("a", i) for i in range(len(sources))]
        self.tensor_at = None  # where the device comes from: the first tensor argument's position

    def _values(self, args, kwargs):
        vals = []
        for how, x in self.sources:
            v = args[x] if how == "a" else kwargs[x] if how == "k" else x
            if type(v) in _DESCRIPTOR_TYPES:
                v = v.base
            vals.append(v)
        return vals

    def __call__(self, grid, args, kwargs, stream):
        if self.in_order and _DESCRIPTOR_TYPES.isdisjoint(map(type, args)):
            vals = args if len(args) == len(self.sources) else args[:len(self.sources)]
        else:
            vals = self._values(args, kwargs)
        if callable(grid):
            meta = dict(self.jf._defaults)
            meta.update(zip(self.jf.arg_names, args))
            meta.update(kwargs)
            meta.update(self.options)
            grid = grid(meta)
        if type(grid) is tuple and len(grid) == 1 and type(grid[0]) is int and 0 < grid[0] < 0x80000000:
            g = (grid[0], 1, 1)
        elif type(grid) is tuple and 1 <= len(grid) <= 3 and all(type(x) is int and 0 < x < 65536 for x in grid):
            g = grid + (1,) * (3 - len(grid))
        else:
            g = self.jf._grid(grid, {})
        if self.num_ctas != 1:
            g = _cluster_grid(g, self.num_ctas)
        if self.tensor_at is None:
            self.tensor_at = next((i for i, v in enumerate(vals) if type(v) in _TENSOR_TYPES), -1)
        dev = vals[self.tensor_at].get_device() if self.tensor_at >= 0 else _device_of(vals)
        launch = self.launchers.get(dev)
        if launch is None:
            from .runtime.launcher import FastLaunch

            launch = self.launchers[dev] = FastLaunch(self.kernel, dev)
        return launch(g, vals, stream)


def _plain_grid(grid):
    """(x, y, z) of a tuple grid of 1 to 3 Python ints within the hardware's limits, else None."""
    n = len(grid)
    if n == 1:
        x = grid[0]
        if type(x) is int and 0 < x < 0x80000000:
            return (x, 1, 1)
    elif n == 2:
        x, y = grid
        if type(x) is int and type(y) is int and 0 < x < 0x80000000 and 0 < y < 65536:
            return (x, y, 1)
    elif n == 3:
        x, y, z = grid
        if type(x) is int and type(y) is int and type(z) is int and 0 < x < 0x80000000 and 0 < y < 65536 \
                and 0 < z < 65536:
            return grid
    return None


def _cluster_grid(g, num_ctas):
    """The CTA grid of a launch whose programs are clusters of num_ctas CTAs along x (Triton's num_ctas)."""
    return g if num_ctas == 1 else (g[0] * num_ctas,) + tuple(g[1:])


def _device_of(vals):
    for v in vals:
        if type(v) in _TENSOR_TYPES:
            return v.get_device()
    from .runtime import dtypes as _dt

    return _dt._current_torch_device()


def _ask_stage(jf, find_txlc, pipeline_stages):
    """TXL asks for the stage interactively when diff_select is not given; we do too, on a terminal only."""
    txlc = find_txlc()
    stages = pipeline_stages(txlc) if txlc else []
    listing = ", ".join("%d %s" % (i, s) for i, s in enumerate(stages)) or "(txlc not found)"
    if not sys.stdin.isatty():
        raise ValueError("%s: diff_mode='txl' needs diff_select=k, the index of the pipeline stage to diff: %s"
                         % (jf.where, listing))
    print("pipeline stages of %s: %s" % (jf.where, listing))
    return int(input("stage to diff: "))


def _freeze(v):
    """A hashable stand-in for a constexpr value (for the in-memory cache key)."""
    try:
        hash(v)
        return (type(v).__name__, v)
    except TypeError:
        return (type(v).__name__, repr(v))


def jit(fn=None, **options):
    """Decorator: ``@txl.jit`` or ``@txl.jit(debug=True, ...)``."""
    if fn is None:
        return lambda f: JITFunction(f, **options)
    return JITFunction(fn, **options)
