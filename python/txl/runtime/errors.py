"""Exceptions raised by the txl host runtime.

Every error says what was being done, what went wrong and, where we know it, how to fix it. Errors from the CUDA
driver carry the CUresult code, its name (``cuGetErrorName``) and its description (``cuGetErrorString``).

Hierarchy::

    TxlRuntimeError (RuntimeError)
      TxlDriverNotFoundError      libcuda.so.1 cannot be loaded (no NVIDIA driver on this machine)
      TxlSidecarError (also ValueError)   a kernel's JSON sidecar is malformed or disagrees with its PTX
      CudaError                   a driver call returned a CUresult other than CUDA_SUCCESS
        TxlNoDeviceError          the driver loads but there is no usable GPU (cuInit etc. failed)
        TxlModuleLoadError        cuModuleLoadData failed; .log holds the PTX JIT error log
        TxlLaunchError            cuLaunchKernel(Ex) or the synchronisation after it failed
      OutOfResources              a compiled kernel needs more threads / shared memory than the device has

Argument problems found before a launch are plain ``TypeError`` / ``ValueError`` so that they read naturally.
"""

# Names of the CUresult codes we are most likely to see; used when cuGetErrorName itself is unavailable (for
# example the toolkit's stub libcuda.so, which answers every call with CUDA_ERROR_STUB_LIBRARY).
_FALLBACK_NAMES = {
    0: "CUDA_SUCCESS",
    1: "CUDA_ERROR_INVALID_VALUE",
    2: "CUDA_ERROR_OUT_OF_MEMORY",
    3: "CUDA_ERROR_NOT_INITIALIZED",
    4: "CUDA_ERROR_DEINITIALIZED",
    34: "CUDA_ERROR_STUB_LIBRARY",
    35: "CUDA_ERROR_INSUFFICIENT_DRIVER",
    100: "CUDA_ERROR_NO_DEVICE",
    101: "CUDA_ERROR_INVALID_DEVICE",
    200: "CUDA_ERROR_INVALID_IMAGE",
    201: "CUDA_ERROR_INVALID_CONTEXT",
    209: "CUDA_ERROR_NO_BINARY_FOR_GPU",
    218: "CUDA_ERROR_INVALID_PTX",
    222: "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
    400: "CUDA_ERROR_INVALID_HANDLE",
    500: "CUDA_ERROR_NOT_FOUND",
    700: "CUDA_ERROR_ILLEGAL_ADDRESS",
    701: "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
    702: "CUDA_ERROR_LAUNCH_TIMEOUT",
    715: "CUDA_ERROR_ILLEGAL_INSTRUCTION",
    716: "CUDA_ERROR_MISALIGNED_ADDRESS",
    719: "CUDA_ERROR_LAUNCH_FAILED",
    912: "CUDA_ERROR_CLUSTER_OUT_OF_RESOURCES",
    999: "CUDA_ERROR_UNKNOWN",
}

# Hints appended to the message for codes whose cause is usually the same.
_HINTS = {
    34: "this is the CUDA toolkit's stub libcuda.so, not a real driver: run on a machine with an NVIDIA driver",
    35: "the installed NVIDIA driver is older than this CUDA code needs: update the driver",
    100: "no CUDA-capable GPU is visible (check nvidia-smi and CUDA_VISIBLE_DEVICES)",
    209: "the cubin was built for another GPU architecture: rebuild for this GPU or load the PTX instead",
    218: "the PTX failed to JIT-compile (see the log above)",
    222: "the PTX's .version is newer than this driver supports: update the driver or emit an older PTX ISA",
    500: "the name was not found in the module: check the sidecar's 'kernel' field against the PTX .entry name",
    700: "the kernel accessed an illegal address: check pointer arguments, sizes and TMA coordinates",
    701: "too many resources requested (threads, registers or shared memory) for this launch",
    716: "misaligned address in the kernel (TMA descriptors need 64-byte alignment, smem for swizzle needs 1024)",
    912: "the cluster cannot be scheduled: lower the cluster size or the shared memory per CTA",
}


_FALLBACK_STRINGS = {
    34: "CUDA driver is a stub library",
    35: "CUDA driver version is insufficient for CUDA runtime version",
    100: "no CUDA-capable device is detected",
}


def fallback_result_string(code):
    return _FALLBACK_STRINGS.get(int(code), "no description (cuGetErrorString failed)")


def fallback_result_name(code):
    return _FALLBACK_NAMES.get(int(code), "CUresult %d" % int(code))


class TxlRuntimeError(RuntimeError):
    """Base class of the runtime's own errors."""


class TxlDriverNotFoundError(TxlRuntimeError):
    """libcuda.so.1 could not be loaded: the machine has no NVIDIA driver."""


class TxlSidecarError(TxlRuntimeError, ValueError):
    """A kernel sidecar (JSON metadata) is malformed or disagrees with the PTX it describes."""


class CudaError(TxlRuntimeError):
    """A CUDA driver call failed.

    Attributes: ``code`` (int CUresult), ``name`` (e.g. ``CUDA_ERROR_INVALID_VALUE``), ``description`` (the
    driver's string), ``what`` (what the runtime was doing), ``func`` (the driver entry point).
    """

    def __init__(self, code, name, description, func, what, extra=None):
        self.code = int(code)
        self.name = name
        self.description = description
        self.func = func
        self.what = what
        self.extra = extra
        msg = "%s failed while %s: %s (%d): %s" % (func, what, name, self.code, description)
        hint = _HINTS.get(self.code)
        if extra:
            msg += "\n" + extra
        if hint:
            msg += "\nhint: " + hint
        super().__init__(msg)


class TxlNoDeviceError(CudaError):
    """The driver loaded but no usable GPU was found (cuInit / cuDeviceGetCount / cuDeviceGet failed)."""


class TxlModuleLoadError(CudaError):
    """Loading a PTX/cubin module failed; ``log`` holds the JIT error log (may be empty)."""

    def __init__(self, code, name, description, func, what, log=""):
        self.log = log or ""
        extra = ("PTX JIT error log:\n" + self.log.strip()) if self.log.strip() else None
        super().__init__(code, name, description, func, what, extra)


class TxlLaunchError(CudaError):
    """A kernel launch (or the synchronisation that reports its asynchronous failure) failed."""


class OutOfResources(TxlRuntimeError):
    """A compiled kernel needs more of a resource than the device has (Triton's ``OutOfResources``: the same
    message and the attributes ``required``, ``limit``, ``name``). An autotuner skips such a config."""

    def __init__(self, required, limit, name):
        self.required, self.limit, self.name = required, limit, name
        super().__init__("out of resource: %s, Required: %d, Hardware limit: %d. Reducing block sizes or "
                         "`num_stages` may help." % (name, required, limit))
