"""Loading compiled txl kernels (PTX/cubin + JSON sidecar) and launching them.

``txlc kernel.py -o k.ptx`` writes ``k.ptx`` and a sidecar ``k.json``::

    {"kernel": "gemm_sm90", "arch": "sm_90a", "ptx": "k.ptx", "cubin": "k.cubin",
     "threads": [384, 1, 1], "shared_bytes": 197632, "cluster": [1, 1, 1],
     "params": [{"name": "a", "kind": "tensordesc", "dtype": "bf16", "block_shape": [128, 64], "swizzle": 128},
                {"name": "c_ptr", "kind": "ptr", "dtype": "f32"},
                {"name": "M", "kind": "scalar", "dtype": "i32"}]}

``load_kernel("k.json")`` returns a ``Kernel``; ``kernel[grid](*args)`` (or ``kernel.launch(grid, *args)``) checks
every argument against the sidecar, and only when all checks pass loads the module (once per device), encodes TMA
descriptors and launches on torch's current stream. Parameter kinds:

* ``tensordesc``: a CUDA tensor (encoded here with the param's block_shape/swizzle) or a ``TensorDescriptor``
  whose box, swizzle and dtype match the param's (a mismatched box would make the kernel wait for the wrong
  number of bytes and hang). Passed by value: 128 bytes, 64-byte aligned.
* ``ptr``: a CUDA tensor of the param's dtype, any strides; the kernel gets its device address.
* ``scalar``: a Python int/float (ints are range-checked against the dtype).

Set ``TXL_LAUNCH_BLOCKING=1`` to synchronise after every launch and report asynchronous faults at the launch.
"""

import ctypes
import json
import math
import numbers
import os
import struct
import sys

from . import _allocation
from . import dtypes as _dt
from .driver import (
    CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
    CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
    CU_FUNC_ATTRIBUTE_NUM_REGS,
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
    CUDA_ERROR_INVALID_IMAGE,
    CUDA_ERROR_NO_BINARY_FOR_GPU,
    DEFAULT_SMEM_LIMIT,
    TENSOR_MAP_ALIGN,
    TENSOR_MAP_BYTES,
    TensorDescriptor,
    current_stream,
    env_flag,
    get_driver,
    plan_tensor_map,
)
from .errors import TxlLaunchError, TxlModuleLoadError, TxlSidecarError

PARAM_KINDS = ("tensordesc", "ptr", "scalar", "global_scratch")
_LAUNCH_BLOCKING = b"TXL_LAUNCH_BLOCKING"
MAX_GRID = (2**31 - 1, 65535, 65535)
_INT_RANGES = {"i1": (0, 1), "i8": (-(2**7), 2**7 - 1), "u8": (0, 255), "i16": (-(2**15), 2**15 - 1),
               "i32": (-(2**31), 2**31 - 1), "i64": (-(2**63), 2**63 - 1)}
_FLOAT_SCALARS = ("f32", "f64", "f16", "bf16")
_SCALAR_SIZES = {"i1": (1, 2, 4), "i8": (1, 2, 4), "u8": (1, 2, 4), "i16": (2, 4), "f16": (2, 4), "bf16": (2, 4),
                 "i32": (4,), "f32": (4,), "i64": (8,), "f64": (8,)}


# ---------------------------------------------------------------------------------------------------------------
# Sidecar
# ---------------------------------------------------------------------------------------------------------------
class Param:
    """One kernel parameter as the sidecar describes it."""

    __slots__ = ("index", "name", "kind", "dtype", "block_shape", "swizzle", "l2_promotion")

    def __init__(self, index, name, kind, dtype, block_shape=None, swizzle=None, l2_promotion=128):
        self.index, self.name, self.kind, self.dtype = index, name, kind, dtype
        self.block_shape, self.swizzle, self.l2_promotion = block_shape, swizzle, l2_promotion

    def signature(self):
        if self.kind == "tensordesc":
            return "%s: tensordesc<%s, %s, swizzle=%d>" % (self.name, self.dtype, list(self.block_shape), self.swizzle)
        if self.kind == "ptr":
            return "%s: *%s" % (self.name, self.dtype or "any")
        return "%s: %s" % (self.name, self.dtype)

    def __repr__(self):
        return "Param(%s)" % self.signature()


class KernelMeta:
    """The parsed, validated sidecar."""

    def __init__(self, kernel, arch, threads, shared_bytes, cluster, params, ptx=None, cubin=None, source="<dict>",
                 global_scratch=None):
        self.kernel, self.arch, self.threads, self.shared_bytes = kernel, arch, threads, shared_bytes
        self.cluster, self.params, self.ptx, self.cubin, self.source = cluster, params, ptx, cubin, source
        # (parameter position, bytes per CTA) of the global scratch the launcher allocates and passes (the
        # kernel builds TMA descriptors there: tl.make_tensor_descriptor); not a user argument.
        self.global_scratch = global_scratch

    def signature(self):
        return "%s(%s)" % (self.kernel, ", ".join(p.signature() for p in self.params))


def _dims3(v, what, src, lo=1):
    if _dt.is_int(v):
        v = [v]
    if not isinstance(v, (list, tuple)) or not 1 <= len(v) <= 3 or not all(_dt.is_int(x) for x in v):
        raise TxlSidecarError("%s: '%s' must be a list of 1 to 3 ints, got %r" % (src, what, v))
    v = list(v) + [1] * (3 - len(v))
    if any(x < lo for x in v):
        raise TxlSidecarError("%s: every '%s' dimension must be >= %d, got %r" % (src, what, lo, v))
    return tuple(v)


def parse_sidecar(meta, source="<dict>"):
    """Validate a sidecar dict and return a KernelMeta. Raises TxlSidecarError naming the field and the fix."""
    src = source
    if not isinstance(meta, dict):
        raise TxlSidecarError("%s: the sidecar must be a JSON object, got %s" % (src, type(meta).__name__))
    name = meta.get("kernel")
    if not isinstance(name, str) or not name:
        raise TxlSidecarError("%s: 'kernel' (the PTX .entry name) is missing or not a string" % src)
    arch = meta.get("arch", "sm_90a")
    if not isinstance(arch, str):
        raise TxlSidecarError("%s: 'arch' must be a string like 'sm_90a', got %r" % (src, arch))
    if "threads" not in meta:
        raise TxlSidecarError("%s: 'threads' (the CTA shape, e.g. [384, 1, 1]) is missing" % src)
    threads = _dims3(meta["threads"], "threads", src)
    if threads[0] > 1024 or threads[1] > 1024 or threads[2] > 64 or math.prod(threads) > 1024:
        raise TxlSidecarError(
            "%s: threads %s: a CTA holds at most 1024 threads (x, y <= 1024, z <= 64)" % (src, list(threads)))
    shared = meta.get("shared_bytes", 0)
    if not _dt.is_int(shared) or shared < 0:
        raise TxlSidecarError("%s: 'shared_bytes' must be a non-negative int, got %r" % (src, shared))
    if shared > 232448:
        raise TxlSidecarError(
            "%s: shared_bytes = %d exceeds the 227 KB (232448 bytes) a Hopper CTA can have: use fewer pipeline "
            "stages or smaller tiles" % (src, shared))
    cluster = _dims3(meta.get("cluster", [1, 1, 1]), "cluster", src)
    if math.prod(cluster) > 16:
        raise TxlSidecarError("%s: cluster %s has %d CTAs; the hardware maximum is 16 (8 portable)"
                              % (src, list(cluster), math.prod(cluster)))
    raw_params = meta.get("params", [])
    if not isinstance(raw_params, list):
        raise TxlSidecarError("%s: 'params' must be a list" % src)
    params, seen, global_scratch = [], set(), None
    for i, rp in enumerate(raw_params):
        where = "%s: params[%d]" % (src, i)
        if not isinstance(rp, dict):
            raise TxlSidecarError("%s must be an object, got %r" % (where, rp))
        pname = rp.get("name", "arg%d" % i)
        if not isinstance(pname, str) or not pname:
            raise TxlSidecarError("%s: 'name' must be a non-empty string" % where)
        if pname in seen:
            raise TxlSidecarError("%s: duplicate parameter name '%s'" % (where, pname))
        seen.add(pname)
        kind = rp.get("kind")
        if kind not in PARAM_KINDS:
            raise TxlSidecarError("%s ('%s'): 'kind' must be one of %s, got %r" % (where, pname, PARAM_KINDS, kind))
        dtype = rp.get("dtype")
        if dtype is None and kind == "ptr":
            pass  # untyped pointer: any dtype
        elif dtype not in _dt.SIDECAR_DTYPES:
            raise TxlSidecarError("%s ('%s'): unknown dtype %r; expected one of %s"
                                  % (where, pname, dtype, ", ".join(_dt.SIDECAR_DTYPES)))
        if kind == "global_scratch":
            nbytes = rp.get("bytes")
            if not _dt.is_int(nbytes) or nbytes <= 0 or nbytes % 128:
                raise TxlSidecarError("%s ('%s'): 'bytes' (per CTA) must be a positive multiple of 128, got %r"
                                      % (where, pname, nbytes))
            if global_scratch is not None:
                raise TxlSidecarError("%s ('%s'): a kernel has at most one global_scratch parameter" % (where, pname))
            global_scratch = (i, nbytes)
            continue
        p = Param(len(params), pname, kind, dtype)
        if kind == "tensordesc":
            bs = rp.get("block_shape")
            if (not isinstance(bs, list) or not 1 <= len(bs) <= 5 or not all(_dt.is_int(b) and 1 <= b <= 256 for b in bs)):
                raise TxlSidecarError("%s ('%s'): 'block_shape' must be a list of 1 to 5 ints in 1..256, got %r"
                                      % (where, pname, bs))
            sw = rp.get("swizzle")
            if sw not in (0, 32, 64, 128) or isinstance(sw, bool):
                raise TxlSidecarError("%s ('%s'): 'swizzle' must be 0, 32, 64 or 128 (bytes), got %r"
                                      % (where, pname, sw))
            l2 = rp.get("l2_promotion", 128)
            if l2 not in (0, 64, 128, 256) or isinstance(l2, bool):
                raise TxlSidecarError("%s ('%s'): 'l2_promotion' must be 0, 64, 128 or 256, got %r" % (where, pname, l2))
            inner = bs[-1] * _dt.itemsize(dtype)
            if inner % 16 or (sw and inner > sw):
                raise TxlSidecarError(
                    "%s ('%s'): the inner box dimension %d %s = %d bytes must be a multiple of 16 bytes%s"
                    % (where, pname, bs[-1], dtype, inner, (" and at most the %d-byte swizzle" % sw) if sw else ""))
            p.block_shape, p.swizzle, p.l2_promotion = tuple(bs), sw, l2
        elif kind == "scalar" and dtype in ("f8e4m3", "f8e5m2"):
            raise TxlSidecarError("%s ('%s'): fp8 scalars are not supported; pass an f32" % (where, pname))
        params.append(p)
    return KernelMeta(name, arch, threads, shared, cluster, params, meta.get("ptx"), meta.get("cubin"), source,
                      global_scratch)


def load_kernel(json_path):
    """Load ``k.json`` and the PTX/cubin it names (paths relative to the JSON file). The module is loaded into the
    GPU lazily, on the first launch."""
    json_path = os.fspath(json_path)
    try:
        with open(json_path) as f:
            meta = json.load(f)
    except FileNotFoundError:
        raise TxlSidecarError("%s: no such sidecar file (txlc writes k.json next to k.ptx)" % json_path) from None
    except json.JSONDecodeError as e:
        raise TxlSidecarError("%s: not valid JSON: %s" % (json_path, e)) from None
    km = parse_sidecar(meta, json_path)
    base = os.path.dirname(os.path.abspath(json_path))
    ptx_name = km.ptx or os.path.splitext(os.path.basename(json_path))[0] + ".ptx"
    ptx_path = os.path.join(base, ptx_name)
    cubin = None
    if km.cubin:
        cp = os.path.join(base, km.cubin)
        if os.path.exists(cp):
            with open(cp, "rb") as f:
                cubin = f.read()
    ptx = None
    if os.path.exists(ptx_path):
        with open(ptx_path) as f:
            ptx = f.read()
    if ptx is None and cubin is None:
        raise TxlSidecarError("%s: neither the PTX (%s) nor a cubin (%s) exists" % (json_path, ptx_path, km.cubin))
    if ptx is not None and (".entry %s(" % km.kernel) not in ptx and (".entry %s\n" % km.kernel) not in ptx:
        raise TxlSidecarError("%s: the PTX %s has no '.entry %s': check the sidecar's 'kernel' field"
                              % (json_path, ptx_path, km.kernel))
    return Kernel(km, ptx=ptx, cubin=cubin)


# ---------------------------------------------------------------------------------------------------------------
# Argument packing
# ---------------------------------------------------------------------------------------------------------------
def _bf16_bits(x):
    (u,) = struct.unpack("<I", struct.pack("<f", x))
    if (u & 0x7F800000) == 0x7F800000 and (u & 0x7FFFFF):  # NaN stays NaN
        return (u >> 16) | 0x40
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


def _pack_scalar(p, v, kname):
    """ctypes value holding the scalar's bytes (small types in the low bytes of a 32-bit word)."""
    where = "%s(): param '%s' (%s)" % (kname, p.name, p.dtype)
    dt = p.dtype
    if dt in _INT_RANGES:
        if dt == "i1" and isinstance(v, bool):
            v = int(v)
        if not _dt.is_int(v):
            raise TypeError("%s needs an int, got %s%s" % (where, _dt.describe(v),
                                                          "; use .item() for a 0-d tensor" if _dt.is_tensor_like(v) else ""))
        lo, hi = _INT_RANGES[dt]
        v = int(v)
        if not lo <= v <= hi:
            raise ValueError("%s = %d does not fit in %s (%d..%d)" % (where, v, dt, lo, hi))
        if dt == "i64":
            return ctypes.c_int64(v)
        return ctypes.c_uint32(v & {"i1": 1, "i8": 0xFF, "u8": 0xFF, "i16": 0xFFFF}.get(dt, 0xFFFFFFFF))
    if dt in _FLOAT_SCALARS:
        if not isinstance(v, numbers.Real) or isinstance(v, bool):
            raise TypeError("%s needs a float, got %s%s" % (where, _dt.describe(v),
                                                           "; use .item() for a 0-d tensor" if _dt.is_tensor_like(v) else ""))
        v = float(v)
        if dt == "f64":
            return ctypes.c_double(v)
        if math.isfinite(v):
            lim = {"f32": 3.4028234663852886e38, "f16": 65504.0, "bf16": 3.3895313892515355e38}[dt]
            if abs(v) > lim:
                raise ValueError("%s = %r overflows %s (max %g)" % (where, v, dt, lim))
        if dt == "f32":
            return ctypes.c_float(v)
        if dt == "f16":
            return ctypes.c_uint32(struct.unpack("<H", struct.pack("<e", v))[0])
        return ctypes.c_uint32(_bf16_bits(v))
    raise TypeError("%s: scalars of dtype %s are not supported" % (where, dt))


class _Packed:
    """Validated arguments: what the launch needs, computed without touching the driver."""

    def __init__(self):
        self.values = []  # per param: ("desc", TensorDescriptor) | ("plan", TensorMapPlan, tensor) | ("ctype", obj)
        self.device_index = None


def _collect_device(packed, dev, kname, pname):
    if dev is None:
        return
    if packed.device_index is None:
        packed.device_index = dev
    elif packed.device_index != dev:
        raise ValueError("%s(): param '%s' is on cuda:%d but earlier arguments are on cuda:%d: put all tensors on one "
                         "GPU" % (kname, pname, dev, packed.device_index))


def normalize_grid(grid, meta):
    """(x, y, z) from an int, a 1- to 3-tuple or a callable(meta) -> tuple. Raises ValueError/TypeError."""
    kname = meta.kernel
    if callable(grid):
        grid = grid(meta)
    if _dt.is_int(grid):
        grid = (grid,)
    if not isinstance(grid, (tuple, list)) or not 1 <= len(grid) <= 3:
        raise TypeError("%s: grid must be an int or a tuple of 1 to 3 ints, got %r" % (kname, grid))
    if not all(_dt.is_int(g) for g in grid):
        raise TypeError("%s: grid dimensions must be ints, got %r" % (kname, grid))
    g = tuple(int(x) for x in grid) + (1,) * (3 - len(grid))
    for axis, (n, mx) in enumerate(zip(g, MAX_GRID)):
        if n <= 0:
            raise ValueError("%s: grid %s is empty (dimension %s = %d): nothing would run; every grid dimension must "
                             "be >= 1" % (kname, list(g), "xyz"[axis], n))
        if n > mx:
            raise ValueError("%s: grid %s: dimension %s = %d exceeds the CUDA limit %d%s" % (
                kname, list(g), "xyz"[axis], n, mx, "" if axis == 0 else "; put the large dimension on x"))
    for axis, (n, c) in enumerate(zip(g, meta.cluster)):
        if n % c:
            raise ValueError("%s: grid %s is not a multiple of the cluster %s in dimension %s: round the grid up to a "
                             "multiple of %d" % (kname, list(g), list(meta.cluster), "xyz"[axis], c))
    return g


class Kernel:
    """A compiled kernel and its sidecar. ``kernel[grid](*args)`` launches it."""

    def __init__(self, meta, ptx=None, cubin=None):
        if isinstance(meta, dict):
            meta = parse_sidecar(meta)
        self.meta = meta
        self.ptx = ptx
        self.cubin = cubin
        self._loaded = {}  # device index -> (module, function)
        self._desc_cache = {}

    @classmethod
    def from_ptx(cls, ptx_text, meta):
        """A kernel from PTX text and a sidecar dict (its 'ptx'/'cubin' entries are ignored)."""
        if not isinstance(ptx_text, str):
            raise TypeError("Kernel.from_ptx needs the PTX as a str, got %s" % type(ptx_text).__name__)
        return cls(parse_sidecar(meta, "<from_ptx %s>" % (meta.get("kernel") if isinstance(meta, dict) else "?")),
                   ptx=ptx_text)

    @classmethod
    def from_cubin(cls, cubin_bytes, meta, ptx_text=None):
        return cls(parse_sidecar(meta, "<from_cubin>"), ptx=ptx_text, cubin=bytes(cubin_bytes))

    name = property(lambda self: self.meta.kernel)
    params = property(lambda self: self.meta.params)

    def __repr__(self):
        m = self.meta
        return "<txl Kernel %s threads=%s shared=%d cluster=%s>" % (m.signature(), list(m.threads), m.shared_bytes,
                                                                    list(m.cluster))

    def __getitem__(self, grid):
        def launcher(*args, **kwargs):
            return self.launch(grid, *args, **kwargs)

        return launcher

    # -- checks (no GPU needed) ---------------------------------------------------------------------------------
    def check_args(self, *args, **kwargs):
        """Match arguments to params and validate them all; returns the packed form. Touches no GPU."""
        m = self.meta
        kname = m.kernel
        n = len(m.params)
        names = [p.name for p in m.params]
        if len(args) > n:
            raise TypeError("%s() takes %d arguments (%s) but %d were given" % (kname, n, ", ".join(names), len(args)))
        vals = list(args) + [_MISSING] * (n - len(args))
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError("%s() got an unexpected argument '%s'; its params are %s" % (kname, k, ", ".join(names)))
            i = names.index(k)
            if vals[i] is not _MISSING:
                raise TypeError("%s() got multiple values for argument '%s'" % (kname, k))
            vals[i] = v
        missing = [names[i] for i, v in enumerate(vals) if v is _MISSING]
        if missing:
            raise TypeError("%s() takes %d arguments (%s) but %d were given; missing: %s"
                            % (kname, n, ", ".join(names), n - len(missing), ", ".join(missing)))
        packed = _Packed()
        for p, v in zip(m.params, vals):
            if p.kind == "tensordesc":
                self._check_desc(p, v, packed)
            elif p.kind == "ptr":
                self._check_ptr(p, v, packed)
            else:
                packed.values.append(("ctype", _pack_scalar(p, v, kname)))
        return packed

    def _check_desc(self, p, v, packed):
        kname = self.meta.kernel
        if isinstance(v, TensorDescriptor):
            bad = []
            if tuple(v.block_shape) != tuple(p.block_shape):
                bad.append("block_shape %s (the kernel expects %s)" % (list(v.block_shape), list(p.block_shape)))
            if v.swizzle != p.swizzle:
                bad.append("swizzle %d (the kernel expects %d)" % (v.swizzle, p.swizzle))
            if v.dtype != p.dtype:
                bad.append("dtype %s (the kernel expects %s)" % (v.dtype, p.dtype))
            if bad:
                raise ValueError(
                    "%s(): param '%s': the TensorDescriptor has %s; a mismatched descriptor makes the kernel wait for "
                    "the wrong number of bytes (a hang) or read garbage. Build it as TensorDescriptor(t, %s, "
                    "swizzle=%d), or pass the tensor itself and let the launcher encode it"
                    % (kname, p.name, ", ".join(bad), list(p.block_shape), p.swizzle))
            _collect_device(packed, v.device_index, kname, p.name)
            packed.values.append(("desc", v))
            return
        if not _dt.is_tensor_like(v):
            raise TypeError("%s(): param '%s' (%s) needs a CUDA tensor or a TensorDescriptor, got %s"
                            % (kname, p.name, p.signature(), _dt.describe(v)))
        plan = plan_tensor_map(v, p.block_shape, p.swizzle, p.l2_promotion, expect_dtype=p.dtype,
                               where="%s(): param '%s'" % (kname, p.name))
        _collect_device(packed, plan.device_index, kname, p.name)
        packed.values.append(("plan", plan, v))

    def _check_ptr(self, p, v, packed):
        kname = self.meta.kernel
        where = "%s(): param '%s' (%s)" % (kname, p.name, "pointer to %s" % (p.dtype or "any"))
        if isinstance(v, TensorDescriptor):
            raise TypeError("%s needs a tensor, got a TensorDescriptor: pass the tensor itself" % where)
        if not _dt.is_tensor_like(v):
            raise TypeError("%s needs a CUDA tensor, got %s" % (where, _dt.describe(v)))
        info = _dt.tensor_info(v)
        if not info.is_cuda:
            raise ValueError("%s got a tensor on %s: the kernel reads GPU memory; move it with .cuda()"
                             % (where, info.device_type))
        if p.dtype is not None and not _dt.same_bits(info.dtype, p.dtype):
            raise TypeError("%s got a %s tensor: convert it with .to(%s)" % (where, info.dtype_str,
                                                                            _dt.TORCH_NAMES.get(p.dtype, p.dtype)))
        # Any strides: the kernel gets the address of element 0 and indexes through the strides it is given, as in
        # Triton (matmul(a, b.T) passes a transposed view).
        _collect_device(packed, info.device_index, kname, p.name)
        packed.values.append(("ctype", ctypes.c_uint64(info.ptr)))

    # -- GPU side -----------------------------------------------------------------------------------------------
    def _function(self, drv, dev):
        hit = self._loaded.get(dev)
        if hit is not None:
            return hit[1]
        m = self.meta
        drv.set_device(dev)
        mod = None
        if self.cubin is not None:
            try:
                mod = drv.load_module(self.cubin, "loading the cubin of kernel '%s'" % m.kernel)
            except TxlModuleLoadError as e:
                if self.ptx is None or e.code not in (CUDA_ERROR_NO_BINARY_FOR_GPU, CUDA_ERROR_INVALID_IMAGE):
                    raise
        if mod is None:
            if self.ptx is None:
                raise TxlSidecarError("%s: no PTX to load" % m.source)
            mod = drv.load_module(self.ptx, "JIT-compiling the PTX of kernel '%s' for %s (device %d)"
                                  % (m.kernel, drv.device_name(dev), dev))
        try:
            func = drv.get_function(mod, m.kernel)
            self._check_signature(drv, func)
            self._configure(drv, func, dev)
        except Exception:
            drv.unload_module(mod)
            raise
        self._loaded[dev] = (mod, func)
        return func

    def load(self, device=None):
        """Load the module on CUDA device ``device`` (default: the current one, torch's when torch is loaded)
        unless it is loaded there already; returns (CUmodule, CUfunction). Launches do this themselves."""
        drv = get_driver()
        dev = _dt._current_torch_device() if device is None else int(device)
        drv.set_device(dev)
        self._function(drv, dev)
        return self._loaded[dev]

    def function_attributes(self, device=None):
        """What the driver says of the kernel loaded on ``device`` (loading it first): ``n_regs`` (registers per
        thread), ``local_bytes`` (local memory per thread: spills and stack), ``max_threads`` (the most threads a
        block of it can have) and ``static_shared`` (bytes of static shared memory)."""
        _, func = self.load(device)
        drv = get_driver()
        return {"n_regs": drv.func_attribute(func, CU_FUNC_ATTRIBUTE_NUM_REGS),
                "local_bytes": drv.func_attribute(func, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES),
                "max_threads": drv.func_attribute(func, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
                "static_shared": drv.func_attribute(func, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)}

    def _check_signature(self, drv, func):
        """Compare the sidecar's params with the parameter sizes the driver reports for the PTX entry."""
        m = self.meta
        count = len(m.params) + (m.global_scratch is not None)
        info = drv.param_info(func, expected=count)
        if info is None:
            return
        if len(info) != count:
            raise TxlSidecarError(
                "%s: the sidecar lists %d params (%s%s) but the PTX entry '%s' takes %d (sizes %s): the sidecar and "
                "the PTX are out of step; regenerate both" % (m.source, count, ", ".join(p.name for p in m.params),
                                                             ", global scratch" if m.global_scratch else "",
                                                             m.kernel, len(info), [s for _, s in info]))
        if m.global_scratch is not None:
            index, _ = m.global_scratch
            if info[index][1] != 8:
                raise TxlSidecarError("%s: the global scratch param %d is %d bytes in the PTX, not a pointer"
                                      % (m.source, index, info[index][1]))
            info = info[:index] + info[index + 1:]
        for p, (off, size) in zip(m.params, info):
            if p.kind == "tensordesc":
                # sizes only: the offsets the driver reports for over-aligned byval params are not plain
                # byte offsets (an H100 with driver 580 reported 112 for a .align 128 first param)
                ok = size == TENSOR_MAP_BYTES
                want = "128 bytes (a by-value CUtensorMap, .param .align 64 .b8 p[128])"
            elif p.kind == "ptr":
                ok, want = size == 8, "8 bytes"
            else:
                ok = size in _SCALAR_SIZES[p.dtype]
                want = " or ".join(str(s) for s in _SCALAR_SIZES[p.dtype]) + " bytes"
            if not ok:
                raise TxlSidecarError(
                    "%s: param '%s' is %s in the sidecar, which needs %s, but the PTX param %d is %d bytes at "
                    "offset %d%s" % (m.source, p.name, p.signature(), want, p.index, size, off,
                                     " (a pointer: was the descriptor passed by pointer instead of by value?)"
                                     if p.kind == "tensordesc" and size == 8 else ""))

    def _configure(self, drv, func, dev):
        m = self.meta
        static = drv.func_attribute(func, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
        optin = drv.max_shared_optin(dev)
        if static + m.shared_bytes > optin:
            raise TxlSidecarError(
                "%s: kernel '%s' needs %d bytes of dynamic + %d of static shared memory, more than the %d bytes a CTA "
                "can have on %s: use fewer stages or smaller tiles" % (m.source, m.kernel, m.shared_bytes, static,
                                                                         optin, drv.device_name(dev)))
        if m.shared_bytes > DEFAULT_SMEM_LIMIT or static + m.shared_bytes > DEFAULT_SMEM_LIMIT:
            drv.set_func_attribute(func, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, m.shared_bytes,
                                   "allowing kernel '%s' %d bytes of dynamic shared memory" % (m.kernel, m.shared_bytes))
        if math.prod(m.cluster) > 8:
            drv.set_func_attribute(func, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1,
                                   "allowing kernel '%s' a non-portable cluster of %d CTAs" % (m.kernel,
                                                                                              math.prod(m.cluster)))

    def _descriptor(self, plan, tensor):
        key = plan.key()
        d = self._desc_cache.get(key)
        if d is None:
            d = TensorDescriptor.__new__(TensorDescriptor)
            d.plan = plan
            d.tensor = None  # the cache keys on the address; the caller's tensor is alive during the launch
            d._storage = (ctypes.c_uint8 * (TENSOR_MAP_BYTES + TENSOR_MAP_ALIGN))()
            base = ctypes.addressof(d._storage)
            d.address = base + (-base) % TENSOR_MAP_ALIGN
            get_driver().encode_tiled(d.address, plan, "encoding the TMA descriptor for a %s tensor of shape %s, box %s"
                                      % (plan.dtype, list(plan.shape), list(plan.block_shape)))
            if len(self._desc_cache) > 256:
                self._desc_cache.clear()
            self._desc_cache[key] = d
        return d

    def launch(self, grid, *args, stream=None, **kwargs):
        """Check everything, then launch on ``stream`` (a CUstream handle int, an object with ``.cuda_stream``
        such as torch.cuda.Stream, or None for torch's current stream)."""
        m = self.meta
        g = normalize_grid(grid, m)
        packed = self.check_args(*args, **kwargs)
        drv = get_driver()
        dev = packed.device_index
        if dev is None:
            dev = _dt._current_torch_device()
        drv.set_device(dev)
        func = self._function(drv, dev)
        holders = []
        addrs = []
        for entry in packed.values:
            if entry[0] == "desc":
                holders.append(entry[1])
                addrs.append(entry[1].address)
            elif entry[0] == "plan":
                d = self._descriptor(entry[1], entry[2])
                holders.append(d)
                addrs.append(d.address)
            else:
                holders.append(entry[1])
                addrs.append(ctypes.addressof(entry[1]))
        s = _stream_handle(stream, dev)
        if m.global_scratch is not None:
            ptr = _scratch_param(m, g, dev, stream, holders, s)
            addrs.insert(m.global_scratch[0], ctypes.addressof(ptr))
        params = (ctypes.c_void_p * max(len(addrs), 1))(*addrs)
        what = "launching %s with grid %s, block %s, %d bytes of dynamic shared memory%s" % (
            m.kernel, list(g), list(m.threads), m.shared_bytes,
            ", cluster %s" % list(m.cluster) if m.cluster != (1, 1, 1) else "")
        drv.launch(func, g, m.threads, m.shared_bytes, s, params, m.cluster, what)
        if os.environ.get("TXL_LAUNCH_BLOCKING") == "1":
            drv.stream_synchronize(s, "running %s (TXL_LAUNCH_BLOCKING=1)" % what[len("launching "):])
        del holders


class FastLaunch:
    """Repeated launches of one kernel on one device whose arguments keep their kinds: the hot path.

    ``Kernel.launch`` checks every argument against the sidecar. A caller that has already launched through it and
    knows that a new launch has arguments of the same kinds (the JIT's fingerprint: the same dtype, device and
    16-byte alignment of every tensor, the same class of every int) launches through this instead, which checks only what
    can still differ: int and float ranges, and for descriptor params the tensor's address, shape and strides (a
    combination not seen before is planned with every TMA check and encoded once; encodings are cached). The
    parameter buffers are allocated once and reused (cuLaunchKernel copies them), under a lock so that two
    threads launching the same kernel do not share them. ``values``: one per sidecar param, in order, tensors for
    ``ptr``/``tensordesc`` params (or an encoded ``TensorDescriptor``), Python numbers for scalars."""

    def __init__(self, kernel, dev):
        import threading

        m = kernel.meta
        drv = get_driver()
        drv.set_device(dev)
        self.kernel, self.dev, self.drv = kernel, dev, drv
        self.func = kernel._function(drv, dev)
        self.ctx = drv.primary_context(dev)
        self.lock = threading.Lock()
        n = len(m.params) + (m.global_scratch is not None)
        self.params = (ctypes.c_void_p * max(n, 1))()
        self.slots = []
        self.slot_at = {}  # param position -> its ctypes slot (pointer and i32/f32 params)
        self.setters = []
        positions = []
        for p in m.params:
            idx = p.index
            if m.global_scratch is not None and idx >= m.global_scratch[0]:
                idx += 1
            positions.append(idx)
            self.setters.append(self._setter(p, idx))
        self.pack = self._packer(m.params, positions)
        # The two driver calls of every launch, without ctypes argtypes: with them ctypes builds a converter object
        # per argument (about 2 us for cuLaunchKernel's 11); untyped, a Python int goes as a C int (grid, block
        # and shared bytes are below 2**31) and pointers go as c_void_p / byref objects made once.
        self.cu_launch = _untyped(drv._fns["cuLaunchKernel"])
        self.cu_ctx_get = _untyped(drv._fns["cuCtxGetCurrent"])
        self.cur = ctypes.c_void_p()
        self.cur_ref = ctypes.byref(self.cur)
        self.func_p = ctypes.c_void_p(self.func)
        self.params_ref = ctypes.byref(self.params)
        self.stream_int, self.stream_p = 0, None  # the last launch's stream handle and its c_void_p
        torch = sys.modules.get("torch")  # its raw current stream, without a Stream object per launch
        self.raw_stream = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)
        self.block = tuple(m.threads) + (m.shared_bytes,)
        self.what = "launching %s (block %s, %d bytes of dynamic shared memory)" % (m.kernel, list(m.threads),
                                                                                    m.shared_bytes)

    def _slot(self, ctype, idx):
        slot = ctype()
        self.slots.append(slot)
        self.slot_at[idx] = slot
        self.params[idx] = ctypes.addressof(slot)
        return slot

    def _packer(self, params, positions):
        """``pack(values)``: what calling every setter does, as one function generated for this kernel's params
        (no Python call per pointer, i32 or f32 param: each fills its slot inline, with the setter's checks; the
        setter raises the checked path's error for a value outside them). Returns what must stay alive until the
        launch is queued (encoded descriptors, packed scalars)."""
        closure, body, kept = {}, [], []
        for j, (p, idx) in enumerate(zip(params, positions)):
            v, slot = "v%d" % j, self.slot_at.get(idx)
            closure["f%d" % j] = self.setters[j]
            if slot is not None:
                closure["s%d" % j] = slot
            if p.kind == "ptr":
                body.append("s%d.value = %s.data_ptr()" % (j, v))
            elif slot is not None and p.dtype == "i32":
                body.append("if type(%s) is int and -0x80000000 <= %s <= 0x7FFFFFFF:" % (v, v))
                body += ["    s%d.value = %s & 0xFFFFFFFF" % (j, v), "else:", "    f%d(%s)" % (j, v)]
            elif slot is not None and p.dtype == "f32":
                body.append("if type(%s) is float and abs(%s) <= 3.4028234663852886e38:" % (v, v))
                body += ["    s%d.value = %s" % (j, v), "else:", "    f%d(%s)" % (j, v)]
            else:  # descriptors and other scalars: their setter (which points the param at what it returns)
                kept.append("f%d(%s)" % (j, v))
        names = ["v%d" % j for j in range(len(params))]
        src = ["def _txl_make(%s):" % ", ".join(sorted(closure)),
               "    def pack(values):",
               "        try:",
               "            %s = values" % "".join(n + ", " for n in names) if names else "            () = values",
               "        except ValueError:",
               "            raise TypeError('%s: FastLaunch takes %d values, one per kernel param (%s), got %%d'"
               " %% len(values)) from None" % (self.kernel.meta.kernel, len(params),
                                               ", ".join(p.name for p in params)),
               ] + ["        " + ln for ln in body] + [
               "        return [%s]" % ", ".join(kept),  # a list: the global scratch joins it
               "    return pack"]
        scope = {}
        exec(compile("\n".join(src), "<txl packer of %s>" % self.kernel.meta.kernel, "exec"), {}, scope)
        return scope["_txl_make"](**closure)

    def _setter(self, p, idx):
        kname, params = self.kernel.meta.kernel, self.params
        if p.kind == "ptr":
            slot = self._slot(ctypes.c_uint64, idx)

            def set_ptr(v):
                slot.value = v.data_ptr()
            return set_ptr
        if p.kind == "tensordesc":
            kernel, cache = self.kernel, {}

            def set_desc(v):
                if isinstance(v, TensorDescriptor):  # encoded by the caller (its box was checked on the slow path)
                    params[idx] = v.address
                    return v
                key = (v.data_ptr(), v.shape, v.stride())  # torch.Size and the strides are tuples
                d = cache.get(key)
                if d is None:
                    plan = plan_tensor_map(v, p.block_shape, p.swizzle, p.l2_promotion, expect_dtype=p.dtype,
                                           where="%s(): param '%s'" % (kname, p.name))
                    d = kernel._descriptor(plan, v)
                    if len(cache) > 256:
                        cache.clear()
                    cache[key] = d
                params[idx] = d.address
                return d
            return set_desc
        if p.dtype == "i32":
            slot = self._slot(ctypes.c_uint32, idx)

            def set_i32(v):
                if type(v) is not int or not -0x80000000 <= v <= 0x7FFFFFFF:
                    slot.value = _pack_scalar(p, v, kname).value  # raises the checked path's error
                else:
                    slot.value = v & 0xFFFFFFFF
            return set_i32
        if p.dtype == "f32":
            slot = self._slot(ctypes.c_float, idx)

            def set_f32(v):
                if type(v) is not float or abs(v) > 3.4028234663852886e38:
                    slot.value = _pack_scalar(p, v, kname).value  # inf/nan pass; an overflow raises
                else:
                    slot.value = v
            return set_f32
        holder = [None]

        def set_scalar(v):
            holder[0] = _pack_scalar(p, v, kname)
            params[idx] = ctypes.addressof(holder[0])
        return set_scalar

    def __call__(self, grid, values, stream=None):
        m = self.kernel.meta
        gx, gy, gz = grid
        with self.lock:
            keep = self.pack(values)  # encoded descriptors stay alive until launched
            self.cu_ctx_get(self.cur_ref)
            if self.cur.value != self.ctx:
                self.drv.set_device(self.dev)
            s = self.raw_stream(self.dev) if stream is None and self.raw_stream else _stream_handle(stream, self.dev)
            if m.global_scratch is not None:
                self.params[m.global_scratch[0]] = ctypes.addressof(_scratch_param(m, grid, self.dev, stream, keep, s))
            if m.cluster != (1, 1, 1):
                self.drv.launch(self.func, grid, m.threads, m.shared_bytes, s, self.params, m.cluster, self.what)
            else:
                bx, by, bz, shared = self.block
                if s != self.stream_int or self.stream_p is None:
                    self.stream_int, self.stream_p = s, ctypes.c_void_p(s)
                rc = self.cu_launch(self.func_p, gx, gy, gz, bx, by, bz, shared, self.stream_p, self.params_ref, None)
                if rc:
                    raise self.drv.make_error(rc, "cuLaunchKernel", "%s with grid %s" % (self.what, list(grid)),
                                              cls=TxlLaunchError)
        if env_flag(_LAUNCH_BLOCKING):
            self.drv.stream_synchronize(s, "running %s (TXL_LAUNCH_BLOCKING=1)" % m.kernel)
        del keep


_UNTYPED = ctypes.CFUNCTYPE(ctypes.c_int)  # a C function returning CUresult, arguments converted by their Python type


def _untyped(fn):
    """The C function ``fn`` points at, called without argtypes (see FastLaunch.__init__)."""
    return _UNTYPED(ctypes.cast(fn, ctypes.c_void_p).value)


def _stream_handle(stream, dev):
    """The CUstream of a launch's ``stream`` argument: None (torch's current stream on the device), an object with
    ``.cuda_stream`` (torch.cuda.Stream) or a handle."""
    if stream is None:
        return current_stream(dev)
    return int(stream.cuda_stream) if hasattr(stream, "cuda_stream") else int(stream)


def _scratch_param(meta, grid, dev, stream, keep, handle=None):
    """The value of a kernel's global-scratch parameter for one launch over ``grid``: a pointer (ctypes) to fresh
    scratch of the sidecar's bytes per CTA, from the allocator set with ``txl.set_allocator`` (called as
    ``alloc(size, alignment, handle)``, ``handle`` the launch's CUstream) or else torch's caching allocator; the
    scratch and the pointer are appended to ``keep``, which the caller holds until the launch is queued."""
    nbytes = meta.global_scratch[1] * math.prod(grid)
    if handle is None:
        handle = _stream_handle(stream, dev)
    scratch, addr = _allocation.allocate(nbytes, _allocation.GLOBAL_SCRATCH_ALIGN, handle,
                                         lambda n: _global_scratch(n, dev, stream))
    ptr = ctypes.c_uint64(addr)
    keep.extend((scratch, ptr))
    return ptr


def _global_scratch(nbytes, dev, stream):
    """Device memory for a launch's device-built TMA descriptors, from torch's caching allocator: it is freed
    (for reuse by later work on the same stream) when the launch's Python references go, which is stream-ordered
    safe; a launch on another stream records that stream."""
    try:
        import torch
    except ImportError:  # pragma: no cover - the GPU host has torch
        raise RuntimeError("this kernel builds TMA descriptors on the device (tl.make_tensor_descriptor) and needs "
                           "%d bytes of global scratch memory per launch, which the launcher allocates with torch; "
                           "install torch" % nbytes) from None
    t = torch.empty(nbytes, dtype=torch.uint8, device="cuda:%d" % dev)
    if isinstance(stream, torch.cuda.Stream):
        t.record_stream(stream)
    return t


_MISSING = object()
