"""The CUDA driver API through ctypes, and host-side TMA descriptors.

Only the Python standard library is used: ``libcuda.so.1`` is opened with ctypes, so this works wherever the
NVIDIA driver is installed, with or without torch, CuPy or cuda-python. When torch is present the runtime shares its
primary context (``cuDevicePrimaryCtxRetain`` + ``cuCtxSetCurrent``), so torch tensors' device pointers are valid in
our launches and our launches go on torch's current stream.

``TensorDescriptor`` encodes a ``CUtensorMap`` (128 bytes, 64-byte aligned) with ``cuTensorMapEncodeTiled``. It is
passed to kernels BY VALUE (a ``.param .align 64 .b8 p[128]`` parameter, ``const __grid_constant__ CUtensorMap`` in
CUDA C). Every requirement of the encoder that we can check is checked first, in Python, so that a bad tensor gives
a ValueError that says what is wrong and how to fix it rather than ``CUDA_ERROR_INVALID_VALUE``.
"""

import ctypes
import dataclasses
import os
import sys
import threading

from . import dtypes as _dt
from .errors import (
    CudaError,
    TxlDriverNotFoundError,
    TxlLaunchError,
    TxlModuleLoadError,
    TxlNoDeviceError,
    TxlRuntimeError,
    fallback_result_name,
    fallback_result_string,
)

# ---------------------------------------------------------------------------------------------------------------
# Constants from cuda.h (CUDA 12/13; all stable ABI values)
# ---------------------------------------------------------------------------------------------------------------
CUDA_SUCCESS = 0
CUDA_ERROR_NO_DEVICE = 100
CUDA_ERROR_INVALID_IMAGE = 200
CUDA_ERROR_NO_BINARY_FOR_GPU = 209

CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1
CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8
CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10
CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12
CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13
CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16
CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36
CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37
CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97

CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0
CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1
CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3
CU_FUNC_ATTRIBUTE_NUM_REGS = 4
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14

CU_JIT_INFO_LOG_BUFFER = 3
CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4
CU_JIT_ERROR_LOG_BUFFER = 5
CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
CU_JIT_LOG_VERBOSE = 12

CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4

CU_TENSOR_MAP_INTERLEAVE_NONE = 0
CU_TENSOR_MAP_SWIZZLE = {0: 0, 32: 1, 64: 2, 128: 3}  # bytes -> CUtensorMapSwizzle
CU_TENSOR_MAP_L2_PROMOTION = {0: 0, 64: 1, 128: 2, 256: 3}  # bytes -> CUtensorMapL2promotion
CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0
CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA = 1

TENSOR_MAP_BYTES = 128
TENSOR_MAP_ALIGN = 64
DEFAULT_SMEM_LIMIT = 48 * 1024  # what a launch gets without cuFuncSetAttribute

_CUresult = ctypes.c_int
_P = ctypes.POINTER


class _ClusterDim(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]


class CUlaunchAttributeValue(ctypes.Union):
    _fields_ = [("pad", ctypes.c_char * 64), ("align", ctypes.c_uint64), ("clusterDim", _ClusterDim)]


class CUlaunchAttribute(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", CUlaunchAttributeValue)]


class CUlaunchConfig(ctypes.Structure):
    _fields_ = [
        ("gridDimX", ctypes.c_uint),
        ("gridDimY", ctypes.c_uint),
        ("gridDimZ", ctypes.c_uint),
        ("blockDimX", ctypes.c_uint),
        ("blockDimY", ctypes.c_uint),
        ("blockDimZ", ctypes.c_uint),
        ("sharedMemBytes", ctypes.c_uint),
        ("hStream", ctypes.c_void_p),
        ("attrs", _P(CUlaunchAttribute)),
        ("numAttrs", ctypes.c_uint),
    ]


# name -> (argtypes); restype is always CUresult. Symbols are the ABI names (cuda.h maps e.g. cuMemAlloc to _v2).
_SIGNATURES = {
    "cuGetErrorName": [ctypes.c_int, _P(ctypes.c_char_p)],
    "cuGetErrorString": [ctypes.c_int, _P(ctypes.c_char_p)],
    "cuInit": [ctypes.c_uint],
    "cuDriverGetVersion": [_P(ctypes.c_int)],
    "cuDeviceGetCount": [_P(ctypes.c_int)],
    "cuDeviceGet": [_P(ctypes.c_int), ctypes.c_int],
    "cuDeviceGetName": [ctypes.c_char_p, ctypes.c_int, ctypes.c_int],
    "cuDeviceGetAttribute": [_P(ctypes.c_int), ctypes.c_int, ctypes.c_int],
    "cuDevicePrimaryCtxRetain": [_P(ctypes.c_void_p), ctypes.c_int],
    "cuDevicePrimaryCtxRelease_v2": [ctypes.c_int],
    "cuCtxSetCurrent": [ctypes.c_void_p],
    "cuCtxGetCurrent": [_P(ctypes.c_void_p)],
    "cuCtxSynchronize": [],
    "cuStreamSynchronize": [ctypes.c_void_p],
    "cuModuleLoadData": [_P(ctypes.c_void_p), ctypes.c_void_p],
    "cuModuleLoadDataEx": [_P(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_uint, _P(ctypes.c_int), _P(ctypes.c_void_p)],
    "cuModuleUnload": [ctypes.c_void_p],
    "cuModuleGetFunction": [_P(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_char_p],
    "cuFuncSetAttribute": [ctypes.c_void_p, ctypes.c_int, ctypes.c_int],
    "cuFuncGetAttribute": [_P(ctypes.c_int), ctypes.c_int, ctypes.c_void_p],
    "cuFuncGetParamInfo": [ctypes.c_void_p, ctypes.c_size_t, _P(ctypes.c_size_t), _P(ctypes.c_size_t)],
    "cuFuncGetParamCount": [ctypes.c_void_p, _P(ctypes.c_size_t)],
    "cuLaunchKernel": [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p, _P(ctypes.c_void_p), _P(ctypes.c_void_p)],
    "cuLaunchKernelEx": [_P(CUlaunchConfig), ctypes.c_void_p, _P(ctypes.c_void_p), _P(ctypes.c_void_p)],
    "cuTensorMapEncodeTiled": [
        ctypes.c_void_p,  # CUtensorMap *
        ctypes.c_int,  # CUtensorMapDataType
        ctypes.c_uint32,  # rank
        ctypes.c_void_p,  # globalAddress
        _P(ctypes.c_uint64),  # globalDim
        _P(ctypes.c_uint64),  # globalStrides
        _P(ctypes.c_uint32),  # boxDim
        _P(ctypes.c_uint32),  # elementStrides
        ctypes.c_int,  # interleave
        ctypes.c_int,  # swizzle
        ctypes.c_int,  # l2Promotion
        ctypes.c_int,  # oobFill
    ],
}

# Tried in order; tests monkeypatch this (or pass lib_path) to simulate a machine without a driver.
LIBCUDA_NAMES = ["libcuda.so.1", "libcuda.so"]


def _load_libcuda(lib_path=None):
    names = [lib_path] if lib_path else list(LIBCUDA_NAMES)
    errors = []
    for name in names:
        try:
            return ctypes.CDLL(name)
        except OSError as e:
            errors.append("%s: %s" % (name, e))
    raise TxlDriverNotFoundError(
        "cannot load the CUDA driver library (%s). This machine has no NVIDIA driver, so txl kernels cannot run "
        "here. Run on a machine with an NVIDIA GPU and driver (nvidia-smi should work), or, if the driver lives "
        "in an unusual place, add its folder to LD_LIBRARY_PATH. Sidecar parsing and argument checks work "
        "without a driver." % "; ".join(errors)
    )


class CudaDriver:
    """A thin, checked wrapper over the CUDA driver API.

    Every call goes through ``call(name, what, *args)``, which raises ``CudaError`` (or a subclass) carrying the
    CUresult's name and description and ``what`` was being done. Use ``get_driver()`` for the process-wide
    instance.
    """

    def __init__(self, lib_path=None):
        self.lib = _load_libcuda(lib_path)
        self._fns = {}
        for name, argtypes in _SIGNATURES.items():
            fn = getattr(self.lib, name, None)
            if fn is not None:
                fn.argtypes = argtypes
                fn.restype = _CUresult
            self._fns[name] = fn
        self._contexts = {}  # device ordinal -> CUcontext (primary, retained)
        self._lock = threading.Lock()
        self._init()

    # -- errors --------------------------------------------------------------------------------------------------
    def _error_text(self, getter, code, fallback):
        # cuGetErrorName / cuGetErrorString's answer for code, else txl's own table's
        fn = self._fns.get(getter)
        s = ctypes.c_char_p()
        if fn is not None and fn(int(code), ctypes.byref(s)) == CUDA_SUCCESS and s.value:
            return s.value.decode(errors="replace")
        return fallback(code)

    def error_name(self, code):
        return self._error_text("cuGetErrorName", code, fallback_result_name)

    def error_string(self, code):
        return self._error_text("cuGetErrorString", code, fallback_result_string)

    def make_error(self, code, func, what, cls=CudaError, **kw):
        return cls(code, self.error_name(code), self.error_string(code), func, what, **kw)

    def has(self, name):
        return self._fns.get(name) is not None

    def call(self, name, what, *args, error_cls=CudaError):
        fn = self._fns.get(name)
        if fn is None:
            raise TxlRuntimeError(
                "the CUDA driver has no %s (needed for %s): the NVIDIA driver is too old, update it "
                "(TMA and clusters need a driver for CUDA 12.0 or newer)" % (name, what)
            )
        rc = fn(*args)
        if rc != CUDA_SUCCESS:
            raise self.make_error(rc, name, what, cls=error_cls)

    # -- init, devices, contexts ------------------------------------------------------------------------------
    def _init(self):
        rc = self._fns["cuInit"](0) if self._fns.get("cuInit") else -1
        if rc != CUDA_SUCCESS:
            if rc == -1:
                raise TxlDriverNotFoundError("the loaded libcuda has no cuInit: it is not a CUDA driver library")
            raise self.make_error(rc, "cuInit", "initialising the CUDA driver", cls=TxlNoDeviceError)
        n = ctypes.c_int(0)
        self.call("cuDeviceGetCount", "counting CUDA devices", ctypes.byref(n), error_cls=TxlNoDeviceError)
        self.device_count = n.value
        if n.value == 0:
            raise TxlNoDeviceError(
                CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected",
                "cuDeviceGetCount", "looking for a GPU",
            )
        v = ctypes.c_int(0)
        self.call("cuDriverGetVersion", "reading the driver version", ctypes.byref(v))
        self.version = v.value  # e.g. 13000

    def device(self, ordinal):
        if not (0 <= ordinal < self.device_count):
            raise ValueError("CUDA device %d does not exist: this machine has %d device(s)" % (ordinal, self.device_count))
        d = ctypes.c_int(0)
        self.call("cuDeviceGet", "getting CUDA device %d" % ordinal, ctypes.byref(d), ordinal, error_cls=TxlNoDeviceError)
        return d.value

    def device_attribute(self, ordinal, attr):
        v = ctypes.c_int(0)
        self.call("cuDeviceGetAttribute", "reading attribute %d of device %d" % (attr, ordinal), ctypes.byref(v), attr,
                  self.device(ordinal))
        return v.value

    def device_name(self, ordinal):
        buf = ctypes.create_string_buffer(256)
        self.call("cuDeviceGetName", "reading the name of device %d" % ordinal, buf, 256, self.device(ordinal))
        return buf.value.decode(errors="replace")

    def compute_capability(self, ordinal):
        return (self.device_attribute(ordinal, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                self.device_attribute(ordinal, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR))

    def max_shared_optin(self, ordinal):
        return self.device_attribute(ordinal, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)

    def primary_context(self, ordinal):
        """Retain (once) the device's primary context: the one torch and the CUDA runtime use."""
        with self._lock:
            ctx = self._contexts.get(ordinal)
            if ctx is None:
                c = ctypes.c_void_p()
                self.call("cuDevicePrimaryCtxRetain", "retaining the primary context of device %d" % ordinal,
                          ctypes.byref(c), self.device(ordinal))
                ctx = c.value
                self._contexts[ordinal] = ctx
            return ctx

    def set_device(self, ordinal):
        """Make device ``ordinal``'s primary context current on this thread (a no-op when it already is)."""
        ctx = self.primary_context(ordinal)
        cur = ctypes.c_void_p()
        self.call("cuCtxGetCurrent", "reading the current context", ctypes.byref(cur))
        if cur.value != ctx:
            self.call("cuCtxSetCurrent", "making device %d's primary context current" % ordinal, ctypes.c_void_p(ctx))
        return ctx

    def synchronize(self, what="synchronising the device"):
        self.call("cuCtxSynchronize", what, error_cls=TxlLaunchError)

    def stream_synchronize(self, stream, what="synchronising a stream"):
        self.call("cuStreamSynchronize", what, ctypes.c_void_p(stream), error_cls=TxlLaunchError)

    # -- modules and functions ---------------------------------------------------------------------------------
    def load_module(self, image, what="loading a module"):
        """Load PTX (str, or bytes starting with text) or a cubin/fatbin (bytes). On failure, raise
        TxlModuleLoadError; for PTX its message holds the JIT compiler's error log."""
        is_ptx = isinstance(image, str)
        data = image.encode() if is_ptx else bytes(image)
        if is_ptx or not data.startswith(b"\x7fELF"):
            is_ptx = is_ptx or b".entry" in data[:1 << 20] or b".version" in data[:4096]
            if not data.endswith(b"\0"):
                data += b"\0"
        buf = ctypes.create_string_buffer(data, len(data))
        mod = ctypes.c_void_p()
        rc = self._fns["cuModuleLoadData"](ctypes.byref(mod), buf)
        if rc == CUDA_SUCCESS:
            return mod.value
        log = ""
        if is_ptx:
            log = self._jit_error_log(buf)
        raise self.make_error(rc, "cuModuleLoadData", what, cls=TxlModuleLoadError, log=log)

    def _jit_error_log(self, buf):
        """Reload with log buffers to fetch the PTX JIT's error messages (cuModuleLoadData gives only a code)."""
        size = 1 << 16
        err = ctypes.create_string_buffer(size)
        info = ctypes.create_string_buffer(size)
        opts = (ctypes.c_int * 5)(CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                                  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE)
        vals = (ctypes.c_void_p * 5)(ctypes.cast(err, ctypes.c_void_p), ctypes.c_void_p(size),
                                     ctypes.cast(info, ctypes.c_void_p), ctypes.c_void_p(size), ctypes.c_void_p(1))
        mod = ctypes.c_void_p()
        fn = self._fns.get("cuModuleLoadDataEx")
        if fn is None:
            return ""
        rc = fn(ctypes.byref(mod), buf, 5, opts, vals)
        if rc == CUDA_SUCCESS:  # it failed once and now loads: keep nothing
            self._fns["cuModuleUnload"](mod)
        text = err.value.decode(errors="replace").strip()
        if not text:
            text = info.value.decode(errors="replace").strip()
        return text

    def unload_module(self, module):
        self.call("cuModuleUnload", "unloading a module", ctypes.c_void_p(module))

    def get_function(self, module, name):
        f = ctypes.c_void_p()
        self.call("cuModuleGetFunction", "looking up kernel '%s' in the module" % name, ctypes.byref(f),
                  ctypes.c_void_p(module), name.encode())
        return f.value

    def func_attribute(self, func, attr):
        v = ctypes.c_int(0)
        self.call("cuFuncGetAttribute", "reading function attribute %d" % attr, ctypes.byref(v), attr, ctypes.c_void_p(func))
        return v.value

    def set_func_attribute(self, func, attr, value, what):
        self.call("cuFuncSetAttribute", what, ctypes.c_void_p(func), attr, int(value))

    def param_info(self, func, expected=None):
        """[(offset, size)] of the kernel's parameters from the driver, or None if the driver cannot tell
        (cuFuncGetParamInfo is CUDA 12.4+). ``expected``: the count the caller expects; under compute-sanitizer
        (which sets NV_SANITIZER_INJECTION_PORT_BASE) only that many are read, so that the probe past the last
        parameter, which fails by design, is not reported as an API error."""
        fn = self._fns.get("cuFuncGetParamInfo")
        if fn is None:
            return None
        out = []
        off, size = ctypes.c_size_t(), ctypes.c_size_t()
        # With cuFuncGetParamCount (newer drivers) no call fails on purpose; otherwise the count is where
        # cuFuncGetParamInfo starts failing, which compute-sanitizer lists as a (harmless) API error.
        limit, count = 4096, ctypes.c_size_t()
        get_count = self._fns.get("cuFuncGetParamCount")
        if get_count is not None and get_count(ctypes.c_void_p(func), ctypes.byref(count)) == CUDA_SUCCESS:
            limit = count.value
        elif expected is not None and "NV_SANITIZER_INJECTION_PORT_BASE" in os.environ:
            limit = expected
        for i in range(limit):
            rc = fn(ctypes.c_void_p(func), i, ctypes.byref(off), ctypes.byref(size))
            if rc != CUDA_SUCCESS:
                # Index 0 failing means the driver (or a tool intercepting it, such as
                # compute-sanitizer) cannot tell: skip the check rather than fail the launch.
                if i == 0:
                    return None
                break
            out.append((off.value, size.value))
        return out

    def launch(self, func, grid, block, shared_bytes, stream, params, cluster=(1, 1, 1), what="launching a kernel"):
        """Launch ``func``. ``params`` is a ctypes array of void* (one per kernel parameter, each pointing to the
        value's bytes). A cluster other than (1,1,1) goes through cuLaunchKernelEx."""
        gx, gy, gz = grid
        bx, by, bz = block
        if tuple(cluster) == (1, 1, 1):
            self.call("cuLaunchKernel", what, ctypes.c_void_p(func), gx, gy, gz, bx, by, bz, shared_bytes,
                      ctypes.c_void_p(stream), params, None, error_cls=TxlLaunchError)
            return
        attr = CUlaunchAttribute()
        attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = cluster
        cfg = CUlaunchConfig(gx, gy, gz, bx, by, bz, shared_bytes, ctypes.c_void_p(stream), ctypes.pointer(attr), 1)
        self.call("cuLaunchKernelEx", what, ctypes.byref(cfg), ctypes.c_void_p(func), params, None,
                  error_cls=TxlLaunchError)

    # -- TMA ----------------------------------------------------------------------------------------------------
    def encode_tiled(self, out_addr, plan, what):
        """cuTensorMapEncodeTiled into the 64-byte aligned 128 bytes at ``out_addr`` from a TensorMapPlan."""
        r = plan.rank
        self.call(
            "cuTensorMapEncodeTiled",
            what,
            ctypes.c_void_p(out_addr),
            plan.data_type,
            r,
            ctypes.c_void_p(plan.address),
            (ctypes.c_uint64 * r)(*plan.global_dim),
            (ctypes.c_uint64 * max(r - 1, 1))(*(plan.global_strides or (0,))),
            (ctypes.c_uint32 * r)(*plan.box_dim),
            (ctypes.c_uint32 * r)(*plan.element_strides),
            plan.interleave,
            plan.swizzle_enum,
            plan.l2_enum,
            plan.oob_fill,
        )


_driver = None
_driver_lock = threading.Lock()


def get_driver():
    """The process-wide CudaDriver (created on first use). Raises TxlDriverNotFoundError / TxlNoDeviceError."""
    global _driver
    if _driver is None:
        with _driver_lock:
            if _driver is None:
                _driver = CudaDriver()
    return _driver


def reset_driver():
    """Forget the cached driver (for tests that simulate a missing libcuda)."""
    global _driver
    _driver = None


_ENV = getattr(os.environ, "_data", None) if os.name == "posix" else None


def env_flag(name):
    """Whether environment variable ``name`` is set to something other than "" or "0". Launch paths read their
    debug switches on every call; on POSIX this reads os.environ's byte-keyed store directly (what os.environ.get
    does, less its key encoding, which cost more than the rest of a flag check)."""
    if _ENV is not None:
        v = _ENV.get(name.encode() if type(name) is str else name)
        return v is not None and v not in (b"", b"0")
    return os.environ.get(name, "") not in ("", "0")


def current_stream(device_index):
    """torch's current stream on the device when torch is loaded, else the legacy default stream (0)."""
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # no Stream object: ~10x cheaper
            if raw is not None:
                return int(raw(device_index))
            return int(torch.cuda.current_stream(device_index).cuda_stream)
        except Exception:
            return 0
    return 0


# ---------------------------------------------------------------------------------------------------------------
# TMA descriptors
# ---------------------------------------------------------------------------------------------------------------
class TensorMapPlan:
    """The validated arguments of cuTensorMapEncodeTiled (innermost dimension first, as the driver wants)."""

    __slots__ = ("dtype", "data_type", "rank", "address", "global_dim", "global_strides", "box_dim",
                 "element_strides", "interleave", "swizzle", "swizzle_enum", "l2_promotion", "l2_enum", "oob_fill",
                 "device_index", "shape", "strides", "block_shape")

    def key(self):
        return (self.device_index, self.dtype, self.address, self.global_dim, self.global_strides, self.box_dim,
                self.swizzle, self.l2_promotion, self.oob_fill)

    def __repr__(self):
        return ("TensorMapPlan(dtype=%s, globalDim=%s, globalStrides=%s, boxDim=%s, swizzle=%d, l2=%d)"
                % (self.dtype, list(self.global_dim), list(self.global_strides), list(self.box_dim), self.swizzle,
                   self.l2_promotion))


def _fix_elems(nbytes, isz):
    """Smallest element count >= nbytes/isz whose byte size is a multiple of 16."""
    per = 16 // isz if isz < 16 else 1
    n = nbytes // isz
    return (n + per - 1) // per * per


def plan_tensor_map(tensor, block_shape, swizzle=128, l2_promotion=128, oob_fill_nan=False, expect_dtype=None,
                    where=None):
    """Validate a tensor for a tiled TMA descriptor and return the TensorMapPlan. Raises TypeError/ValueError.

    ``where`` (e.g. "gemm(): param 'a'") prefixes messages when the check is for a kernel parameter.
    """
    pre = (where + ": ") if where else ""
    if not _dt.is_tensor_like(tensor):
        raise TypeError(
            "%sa TMA descriptor needs a CUDA tensor (a torch.Tensor or an object with __cuda_array_interface__), got %s"
            % (pre, _dt.describe(tensor))
        )
    info = _dt.tensor_info(tensor)
    if not info.is_cuda:
        raise ValueError(
            "%sthe tensor is on %s, but TMA reads GPU memory: move it with tensor.cuda() (or create it with "
            "device='cuda')" % (pre, info.device_type)
        )
    dt = info.dtype
    if dt is None or _dt.DTYPES[dt][1] is None:
        raise ValueError(
            "%sdtype %s cannot be described by a TMA descriptor; supported: %s"
            % (pre, info.dtype_str, ", ".join(sorted(_dt.DTYPES)))
        )
    if expect_dtype is not None and dt != expect_dtype:
        raise TypeError(
            "%sthe kernel expects a %s tensor (%s) but got %s: convert it with .to(%s)"
            % (pre, expect_dtype, _dt.TORCH_NAMES.get(expect_dtype), info.dtype_str, _dt.TORCH_NAMES.get(expect_dtype))
        )
    isz = _dt.itemsize(dt)
    rank = len(info.shape)
    if not 1 <= rank <= 5:
        raise ValueError(
            "%sa TMA descriptor describes a 1-D to 5-D tensor, this one is %d-D (shape %s): reshape it (merge "
            "dimensions) first" % (pre, rank, list(info.shape))
        )
    try:
        box = [int(b) for b in block_shape]
    except TypeError:
        raise TypeError("%sblock_shape must be a list of ints, got %r" % (pre, block_shape)) from None
    if any(not _dt.is_int(b) for b in block_shape):
        raise TypeError("%sblock_shape must be a list of ints, got %r" % (pre, block_shape))
    if len(box) != rank:
        raise ValueError(
            "%sblock_shape %s has %d dimensions but the tensor (shape %s) has %d: give one box size per tensor "
            "dimension (use 1 for dimensions the tile does not span)" % (pre, box, len(box), list(info.shape), rank)
        )
    for i, b in enumerate(box):
        if not 1 <= b <= 256:
            raise ValueError(
                "%sblock_shape[%d] = %d is out of range: each TMA box dimension must be 1..256 elements; split the "
                "tile into several loads" % (pre, i, b)
            )
    for i, s in enumerate(info.shape):
        if s < 1:
            raise ValueError("%stensor dimension %d has size %d: TMA cannot describe an empty tensor" % (pre, i, s))
        if s > 1 << 32:
            raise ValueError("%stensor dimension %d has size %d > 2^32, the TMA limit: split the tensor" % (pre, i, s))
    if info.strides[-1] != 1:
        raise ValueError(
            "%sthe innermost dimension must be contiguous (stride 1) for TMA, but its stride is %d elements "
            "(shape %s, strides %s): call .contiguous() on the tensor" % (pre, info.strides[-1], list(info.shape),
                                                                          list(info.strides))
        )
    for i in range(rank - 1):
        st = info.strides[i]
        nbytes = st * isz
        if st <= 0:
            raise ValueError(
                "%sstride[%d] = %d: TMA needs positive strides (a broadcast/expanded or flipped view): call "
                ".contiguous() on the tensor" % (pre, i, st)
            )
        if nbytes % 16:
            if i == rank - 2:
                fix = "pad the row to %d elements (allocate [..., %d] and slice [..., :%d])" % (
                    _fix_elems(nbytes, isz), _fix_elems(nbytes, isz), info.shape[-1])
            else:
                fix = "pad dimension %d so that its stride is a multiple of %d elements" % (i + 1, max(16 // isz, 1))
            raise ValueError(
                "%sstride[%d] of %d %s = %d bytes is not a multiple of 16 (a TMA requirement): %s"
                % (pre, i, st, dt, nbytes, fix)
            )
        if nbytes >= 1 << 40:
            raise ValueError("%sstride[%d] = %d bytes is >= 2^40, the TMA limit" % (pre, i, nbytes))
    if info.ptr % 16:
        raise ValueError(
            "%sthe tensor's data_ptr 0x%x is not 16-byte aligned (it is %d bytes past a 16-byte boundary, e.g. a "
            "view that starts mid-row): TMA needs a 16-byte aligned base; use an aligned view or .clone() the tensor"
            % (pre, info.ptr, info.ptr % 16)
        )
    if swizzle not in CU_TENSOR_MAP_SWIZZLE or isinstance(swizzle, bool):
        raise ValueError("%sswizzle must be 0, 32, 64 or 128 (bytes), got %r" % (pre, swizzle))
    if l2_promotion not in CU_TENSOR_MAP_L2_PROMOTION or isinstance(l2_promotion, bool):
        raise ValueError("%sl2_promotion must be 0, 64, 128 or 256 (bytes), got %r" % (pre, l2_promotion))
    inner = box[-1] * isz
    if inner % 16:
        raise ValueError(
            "%sthe inner box dimension block_shape[-1] = %d %s = %d bytes is not a multiple of 16 bytes (a TMA "
            "requirement): use a multiple of %d elements, e.g. %d"
            % (pre, box[-1], dt, inner, max(16 // isz, 1), _fix_elems(inner, isz))
        )
    if swizzle and inner > swizzle:
        raise ValueError(
            "%sthe inner box dimension block_shape[-1] = %d %s = %d bytes exceeds the %d-byte swizzle span: use "
            "block_shape[-1] <= %d, or load the tile as several boxes" % (pre, box[-1], dt, inner, swizzle,
                                                                          swizzle // isz)
        )
    if oob_fill_nan and dt not in ("bf16", "f16", "f32", "f64"):
        raise ValueError("%sNaN out-of-bounds fill needs a floating-point tensor, got %s" % (pre, dt))
    p = TensorMapPlan()
    p.dtype = dt
    p.data_type = _dt.DTYPES[dt][1]
    p.rank = rank
    p.address = info.ptr
    p.global_dim = tuple(reversed(info.shape))
    p.global_strides = tuple(info.strides[i] * isz for i in reversed(range(rank - 1)))
    p.box_dim = tuple(reversed(box))
    p.element_strides = (1,) * rank
    p.interleave = CU_TENSOR_MAP_INTERLEAVE_NONE
    p.swizzle = swizzle
    p.swizzle_enum = CU_TENSOR_MAP_SWIZZLE[swizzle]
    p.l2_promotion = l2_promotion
    p.l2_enum = CU_TENSOR_MAP_L2_PROMOTION[l2_promotion]
    p.oob_fill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA if oob_fill_nan else CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE
    p.device_index = info.device_index if info.device_index is not None else 0
    p.shape = info.shape
    p.strides = info.strides
    p.block_shape = tuple(box)
    return p


class TensorDescriptor:
    """A tiled TMA descriptor (CUtensorMap) for a row-major CUDA tensor, passed to kernels by value.

    ``TensorDescriptor(tensor, block_shape, swizzle=128)``: ``block_shape`` is the box in the tensor's own
    dimension order (outermost first), ``swizzle`` the shared-memory swizzle span in bytes (0, 32, 64, 128).
    Out-of-bounds parts of a box are filled with zeros (or NaN with ``oob_fill_nan=True``). The tensor is kept
    alive as long as the descriptor. All checks run before the driver is touched.
    """

    def __init__(self, tensor, block_shape, swizzle=128, *, l2_promotion=128, oob_fill_nan=False):
        self.plan = plan_tensor_map(tensor, block_shape, swizzle, l2_promotion, oob_fill_nan)
        self.tensor = tensor
        self._storage = (ctypes.c_uint8 * (TENSOR_MAP_BYTES + TENSOR_MAP_ALIGN))()
        base = ctypes.addressof(self._storage)
        self.address = base + (-base) % TENSOR_MAP_ALIGN  # 64-byte aligned host address of the 128 bytes
        drv = get_driver()
        drv.set_device(self.plan.device_index)
        drv.encode_tiled(self.address, self.plan, "encoding a TMA descriptor (%r)" % self.plan)

    @classmethod
    def from_tensor(cls, tensor, block_shape, swizzle=128, **kw):
        return cls(tensor, block_shape, swizzle, **kw)

    shape = property(lambda self: self.plan.shape)
    strides = property(lambda self: self.plan.strides)
    block_shape = property(lambda self: self.plan.block_shape)
    swizzle = property(lambda self: self.plan.swizzle)
    dtype = property(lambda self: self.plan.dtype)
    device_index = property(lambda self: self.plan.device_index)

    def to_bytes(self):
        """The 128 encoded bytes."""
        return ctypes.string_at(self.address, TENSOR_MAP_BYTES)

    def __repr__(self):
        return "TensorDescriptor(shape=%s, dtype=%s, block_shape=%s, swizzle=%d)" % (
            list(self.shape), self.dtype, list(self.block_shape), self.swizzle)


# ---------------------------------------------------------------------------------------------------------------
# Triton's triton.runtime.driver.active (host queries: device, stream, target, properties; active_driver.py)
# ---------------------------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class GPUTarget:
    """Triton's ``triton.backends.compiler.GPUTarget``: ``backend`` ("cuda"), ``arch`` (compute capability as an
    int: 90 on an H100) and ``warp_size``."""

    backend: str
    arch: object
    warp_size: int


# The object is active_driver.CudaDriver, whose queries are built on this module. active_driver puts it here when
# it is imported, which txl.runtime's __init__ does right after importing this module: the import runs one way
# (active_driver -> driver), and both names hold it before anything outside the package can read them.
default = None
active = None


def set_active(d):
    """Make ``d`` what ``txl.runtime.driver.active`` returns (Triton's ``driver.set_active``), e.g. a stand-in
    that describes a GPU on a machine without one."""
    global active
    active = d


def reset_active():
    """Back to txl's own driver object (Triton's ``driver.reset_active``)."""
    global active
    active = default


# Triton's triton.runtime.driver is an object (DriverConfig) that its module also names `driver`: code spells it
# `from triton.runtime.driver import driver` as well as `from triton.runtime import driver`. Here this module is
# that object (its active / default / set_active / reset_active are the module's), under both spellings.
driver = sys.modules[__name__]
