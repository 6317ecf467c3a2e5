"""Every public name of Triton 3.6's ``triton.language`` (its ``__all__``), ``triton.language.math`` and
``triton.language.extra.cuda.libdevice``, and what txl does with it, as data.

Each table maps a name to ``(status, detail, instead)``:

- ``("implemented", note, None)``: ``txl.language`` (resp. ``txl.language.math``, ``txl.language.extra.cuda.
  libdevice``) provides it with Triton's meaning; ``note`` says where txl differs (e.g. an approximate
  instruction) or is None.
- ``("refused", why, instead)``: using the name inside a ``@txl.jit`` function is a compile error at the user's
  ``file:line:col`` saying "<name> is not supported yet by txl: <why>" with ``instead`` as the fix.

``python/txl/tests/test_triton_names.py`` walks these tables: every implemented name exists (the important ones
compile through txlc), every refused name is refused with its hint, and no name of Triton 3.6 is missing.
"""

from ..errors import UnsupportedError

TRITON_VERSION = "3.6.0"

IMPLEMENTED = "implemented"
REFUSED = "refused"


def ok(note=None):
    return (IMPLEMENTED, note, None)


def no(why, instead):
    return (REFUSED, why, instead)


# Reasons shared by several names.
_NORMAL = "Box-Muller with txl's approximate sin/cos: close to Triton's values, not bit-identical"
_LIBDEVICE = "it needs CUDA's libdevice, which txl does not link yet (NVPTX has no instruction for it)"
_ROUNDING = "txl has no operation with a directed rounding mode (rd/ru/rz) for it"
_FP8_OTHER = "it is not an fp8 format of Hopper/Blackwell tensor cores"

LANGUAGE = {
    # -- types, constants, constexprs -------------------------------------------------------------------------
    "PropagateNan": ok(),
    "TRITON_MAX_TENSOR_NUMEL": ok(),
    "bfloat16": ok(), "float16": ok(), "float32": ok(), "float64": ok(),
    "float8e4nv": ok(), "float8e5": ok(),
    "float8e4b15": no(_FP8_OTHER, "use tl.float8e4nv (e4m3fn) or tl.float8e5 (e5m2)"),
    "float8e4b8": no(_FP8_OTHER + " (it is AMD's fnuz format)", "use tl.float8e4nv (e4m3fn)"),
    "float8e5b16": no(_FP8_OTHER + " (it is AMD's fnuz format)", "use tl.float8e5 (e5m2)"),
    "int1": ok(), "int8": ok(), "int16": ok(), "int32": ok(), "int64": ok(),
    "uint8": ok(), "uint16": ok(), "uint32": ok(), "uint64": ok(),
    "void": no("txl has no void dtype (kernels and @txl.jit helpers simply return nothing)",
               "leave the return value out"),
    "dtype": ok(), "pointer_type": ok(), "block_type": ok(), "pi32_t": ok(),
    "constexpr": ok(),
    "constexpr_type": ok("the type of a compile-time value: tl.constexpr(v).type == tl.constexpr_type(v)"),
    "const": no("txl has no const pointer annotation", "drop the tl.const annotation (loads work on any pointer)"),
    "tensor": ok(),
    "tuple": no("txl has no tl.tuple type", "use a Python tuple: (a, b) and t[0] with compile-time indices work"),
    "tensor_descriptor": ok("the type of descriptor values, for isinstance(desc, tl.tensor_descriptor); "
                            "descriptors come from the host (txl.TensorDescriptor) or tl.make_tensor_descriptor"),
    "slice": no("indexing a register tile with a range is not supported (tiles have no element access)",
                "use x[:, None] / x[None, :] to add dimensions, tl.split/tl.reshape to take parts"),
    "extra": ok(), "math": ok(),
    "target_info": no("txl compiles for NVIDIA Hopper/Blackwell only, so there is nothing to query",
                      "drop the target check (is_cuda() is always true; the target is sm_90a or sm_100a)"),
    # -- program and tile creation --------------------------------------------------------------------------
    "program_id": ok(), "num_programs": ok(), "arange": ok(),
    "full": ok("a shape of () (Triton's 0-d tensor) gives a scalar: txl has no 0-d tiles"),
    "zeros": ok("a shape of () gives a scalar, as tl.full"), "zeros_like": ok(),
    "cdiv": ok(), "cast": ok(), "broadcast": ok(), "broadcast_to": ok(), "expand_dims": ok(),
    "range": ok("num_stages is honoured; the other loop hints are accepted and ignored"),
    "static_range": ok(),
    "condition": no("txl has no while-loop condition annotation",
                    "write the condition directly: `while x < n:`"),
    # -- memory ---------------------------------------------------------------------------------------------
    "load": ok("pointer tiles, scalars and block pointers (boundary_check, padding_option '' / 'zero' / 'nan')"),
    "store": ok("pointer tiles, scalars and block pointers (boundary_check)"),
    "make_tensor_descriptor": ok(), "load_tensor_descriptor": ok(), "store_tensor_descriptor": ok(),
    "make_block_ptr": ok("a frontend value: a load/store through it is one pointer-tile tl.load/tl.store with the "
                         "boundary mask (no TMA)"),
    "advance": ok(),
    "atomic_add": ok("pointer tiles and scalars, with mask, sem and scope (PTX atom/red); f16/bf16 too"),
    "atomic_and": ok(), "atomic_or": ok(), "atomic_xor": ok(), "atomic_xchg": ok(),
    "atomic_cas": ok(),
    "atomic_max": ok("float32/float64 through a signed max and an unsigned min on the bits, as Triton"),
    "atomic_min": ok("float32/float64 through a signed min and an unsigned max on the bits, as Triton"),
    # -- shape manipulation ---------------------------------------------------------------------------------
    "reshape": ok("to () (a one-element tile to Triton's 0-d tensor) gives a scalar"), "view": ok(), "ravel": ok(), "trans": ok(), "permute": ok(), "split": ok(), "join": ok(),
    "interleave": ok(), "cat": ok("keeps input's elements first (Triton may reorder)"),
    "flip": ok("any dimension (Triton: the last)"),
    "gather": ok("txl.gather: the source through shared memory; out-of-range indices (undefined in Triton) read "
                 "the element at the index modulo the axis size"),
    "histogram": ok("txl.histogram: shared-memory atomics in a num_bins scratch; values outside [0, num_bins) are "
                    "not counted; num_bins a power of two (a tile size)"),
    # -- linear algebra -------------------------------------------------------------------------------------
    "dot": ok("fp32/fp64 register tiles multiply on the CUDA cores (Triton's FMA dot) whatever input_precision "
              "says"),
    "dot_scaled": no("block-scaled MMA (mxfp4/mxfp8) is not built yet",
                     "dequantize to bf16/fp16 and use tl.dot"),
    # -- elementwise math -----------------------------------------------------------------------------------
    "abs": ok(), "add": ok(), "sub": ok(), "mul": ok(), "where": ok(), "maximum": ok(), "minimum": ok(),
    "clamp": ok(), "exp": ok("exp2.approx(x * log2 e), as Triton; fp32 only (Triton: fp32 / fp64, and like "
                            "Triton, bf16 / fp16 / integer tiles are refused, not converted)"),
    "exp2": ok("ex2.approx.ftz, as Triton; fp32 / fp64 tiles only, as Triton"),
    "log": ok("lg2.approx(x) * ln 2, as Triton; fp32 only (Triton: fp32 / fp64)"),
    "log2": ok("lg2.approx, as Triton; fp32 only (Triton: fp32 / fp64)"),
    "sqrt": ok("IEEE sqrt.rn (Triton's tl.sqrt is the approximate one); fp32 / fp64 tiles only, as Triton"),
    "sqrt_rn": ok("fp32 tiles only, as Triton"), "rsqrt": ok("fp32 / fp64 tiles only, as Triton"),
    "sin": ok("the approximate sin.approx.f32 (absolute error ~2^-21 in [-pi, pi]; Triton calls libdevice); fp32 "
              "tiles only (Triton: fp32 / fp64)"),
    "cos": ok("the approximate cos.approx.f32 (absolute error ~2^-21 in [-pi, pi]; Triton calls libdevice); fp32 "
              "tiles only (Triton: fp32 / fp64)"),
    "floor": ok(), "ceil": ok(), "fma": ok(), "sigmoid": ok(), "softmax": ok(), "fdiv": ok(), "div_rn": ok(),
    "umulhi": ok(), "swizzle2d": ok(),
    "erf": ok("CUDA libdevice's erf (needs libdevice.10.bc when compiling)"),
    "inline_asm_elementwise": ok("txl.elementwise_inline_asm: the PTX once per `pack` elements of a thread, narrow "
                                 "elements packed in 32-bit registers, as Triton; the constraint string is checked "
                                 "against that register count"),
    "map_elementwise": ok("the @jit function applied to the whole broadcast tiles: Triton's values for functions "
                          "without data-dependent control flow; an `if` on an element is a located error (tl.where "
                          "computes both sides); pack > 1 is refused"),
    # -- reductions and scans -------------------------------------------------------------------------------
    "max": ok("Triton 3.6's dtypes: bf16 and every type narrower than 32 bits widen (to fp32 / int32) first"),
    "min": ok("Triton 3.6's dtypes, as tl.max"),
    "sum": ok("Triton 3.6's dtypes: dtype=, else (u)int32 for narrower integers and booleans, else the input's "
              "(a bf16 sum is bf16; txl accumulates 16-bit floats in fp32 and rounds once)"),
    "argmax": ok(), "argmin": ok(),
    "reduce": ok("the combine function must be a @txl.jit function (associative and commutative)"),
    "reduce_or": ok(), "xor_sum": ok(),
    "associative_scan": ok("inclusive, in order (reverse=True from the end); the combine function must be a "
                           "@txl.jit function and associative"),
    "cumsum": ok("Triton 3.6's dtypes: bf16 in fp32, narrower integers in (u)int32 (booleans are refused; "
                 "Triton counts them in uint32)"),
    "cumprod": ok("bf16 in fp32, as Triton"),
    "sort": ok("a bitonic network along any dimension (Triton: the last); values only, as in Triton"),
    "topk": ok("k a power of two; sorted descending, as Triton's"),
    "bitonic_merge": no("txl does not expose the network's last stage on its own", "tl.sort the whole dimension"),
    # -- random numbers -------------------------------------------------------------------------------------
    "philox": ok("32-bit counters (64-bit ones are refused)"), "philox_impl": ok("32-bit counters"),
    "rand": ok(), "rand4x": ok(), "randint": ok(), "randint4x": ok(),
    "randn": ok(_NORMAL), "randn4x": ok(_NORMAL), "pair_uniform_to_normal": ok(_NORMAL),
    "uint_to_uniform_float": ok(),
    # -- hints, compile-time and debugging helpers ----------------------------------------------------------
    "multiple_of": ok("accepted; txl does not use the hint"),
    "max_contiguous": ok("accepted; txl does not use the hint"),
    "max_constancy": ok("accepted; txl does not use the hint"), "assume": ok("accepted; txl drops it"),
    "static_assert": ok(), "static_print": ok(),
    "device_print": ok("vprintf per thread and element, as Triton prints"),
    "device_assert": ok("compiled in with debug only, as in Triton: @txl.jit(debug=True) or TRITON_DEBUG=1"),
    "debug_barrier": ok("bar.sync 0 over every thread of the block"),
}

MATH = {
    "abs": ok(), "ceil": ok(), "floor": ok(), "fma": ok(), "exp": LANGUAGE["exp"], "exp2": LANGUAGE["exp2"],
    "log": LANGUAGE["log"], "log2": LANGUAGE["log2"], "sqrt": LANGUAGE["sqrt"], "sqrt_rn": ok(), "rsqrt": ok(),
    "sin": LANGUAGE["sin"], "cos": LANGUAGE["cos"], "div_rn": ok(), "fdiv": ok(), "umulhi": ok(),
    "erf": LANGUAGE["erf"],
}


def _libdevice():
    t = {}
    # Exact transcendental functions: libdevice's polynomials.
    approx = {
        "exp": "tl.exp or libdevice.fast_expf (ex2.approx-based)", "exp10": "libdevice.fast_exp10f",
        "expm1": "tl.exp(x) - 1 (inexact near 0)", "log": "tl.log or libdevice.fast_logf",
        "log10": "libdevice.fast_log10f", "log1p": "tl.log(1 + x) (inexact near 0)",
        "sin": "tl.sin (sin.approx) or libdevice.fast_sinf", "cos": "tl.cos (cos.approx) or libdevice.fast_cosf",
        "tan": "libdevice.fast_tanf", "pow": "libdevice.fast_powf (exp2(y * log2(x)), x > 0)",
        "tanh": "2 * tl.sigmoid(2 * x) - 1",
        "sinh": "(tl.exp(x) - tl.exp(-x)) * 0.5", "cosh": "(tl.exp(x) + tl.exp(-x)) * 0.5",
        "erf": "a polynomial over tl.exp (Abramowitz-Stegun 7.1.26)",
    }
    for name, alt in approx.items():
        t[name] = no(_LIBDEVICE, "use the approximate " + alt)
    for name in ("acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "cospi", "cyl_bessel_i0",
                 "cyl_bessel_i1", "erfc", "erfcinv", "erfcx", "erfinv", "fmod", "hypot", "ilogb", "j0", "j1", "jn",
                 "ldexp", "lgamma", "logb", "nextafter", "norm3d", "norm4d", "normcdf", "normcdfinv", "rcbrt",
                 "remainder", "rhypot", "rnorm3d", "rnorm4d", "scalbn", "sinpi", "tgamma", "y0", "y1", "yn",
                 "rcp64h", "rsqrt_rn", "llrint", "llround", "fdim"):
        t[name] = no(_LIBDEVICE, "compute it from the tl functions txl has (exp2, log2, sqrt, fma...)")
    for name in ("brev", "byte_perm", "mul24", "sad", "hadd", "rhadd"):
        t[name] = no("it has no txl operation yet (it is a libdevice integer intrinsic)",
                     "write it with integer arithmetic (shifts, masks, widening to int64)")
    # Directed rounding.
    for op in ("add", "sub", "mul", "div", "fma", "sqrt", "rcp"):
        for r in ("rd", "ru", "rz"):
            t["%s_%s" % (op, r)] = no(_ROUNDING, "use libdevice.%s_rn (round to nearest even)" % op)
        t["%s_rn" % op] = ok()
    for src, dsts in (("int", ("float", "double")), ("uint", ("float", "double")), ("ll", ("float", "double")),
                      ("ull", ("float", "double"))):
        for d in dsts:
            for r in ("rn", "rd", "ru", "rz"):
                name = "%s2%s_%s" % (src, d, r)
                if name in ("int2double_rd", "int2double_ru", "int2double_rz", "uint2double_rd",
                            "uint2double_ru", "uint2double_rz"):
                    continue  # exact conversions: libdevice has only _rn
                t[name] = ok() if r == "rn" else no(_ROUNDING, "use libdevice.%s2%s_rn" % (src, d))
    for src in ("float", "double"):
        for d in ("int", "uint", "ll", "ull"):
            for r in ("rn", "rd", "ru", "rz"):
                t["%s2%s_%s" % (src, d, r)] = ok()
    for r in ("rn", "rd", "ru", "rz"):
        t["double2float_" + r] = ok() if r == "rn" else no(_ROUNDING, "use libdevice.double2float_rn")
    # What txl computes with PTX instructions.
    for name in ("abs", "ceil", "floor", "trunc", "rint", "nearbyint", "round", "fma", "sqrt", "rsqrt", "exp2",
                 "log2", "copysign", "isnan", "isinf", "finitef", "isfinited", "signbit", "float_as_int",
                 "int_as_float", "float_as_uint", "uint_as_float", "double_as_longlong", "longlong_as_double",
                 "double2hiint", "double2loint", "hiloint2double", "popc", "clz", "ffs", "mulhi", "umulhi",
                 "saturatef", "fast_expf", "fast_exp10f", "fast_logf", "fast_log2f", "fast_log10f", "fast_sinf",
                 "fast_cosf", "fast_tanf", "fast_powf", "fast_dividef"):
        t[name] = ok()
    t["exp2"] = ok("ex2.approx.f32, as libdevice's __nv_exp2f")
    t["log2"] = ok("lg2.approx.f32 (libdevice's __nv_log2f is exact to 1 ulp)")
    t["rsqrt"] = ok("1 / sqrt.rn (libdevice's __nv_rsqrtf is rsqrt.approx)")
    for n in ("fast_sinf", "fast_cosf", "fast_tanf"):
        t[n] = ok("sin.approx / cos.approx, as libdevice")
    return t


# Triton 3.6's libdevice names (triton.language.extra.cuda.libdevice, dir() without private names and `core`).
LIBDEVICE_NAMES = (
    "abs acos acosh add_rd add_rn add_ru add_rz asin asinh atan atan2 atanh brev byte_perm cbrt ceil clz copysign "
    "cos cosh cospi cyl_bessel_i0 cyl_bessel_i1 div_rd div_rn div_ru div_rz double2float_rd double2float_rn "
    "double2float_ru double2float_rz double2hiint double2int_rd double2int_rn double2int_ru double2int_rz "
    "double2ll_rd double2ll_rn double2ll_ru double2ll_rz double2loint double2uint_rd double2uint_rn double2uint_ru "
    "double2uint_rz double2ull_rd double2ull_rn double2ull_ru double2ull_rz double_as_longlong erf erfc erfcinv "
    "erfcx erfinv exp exp10 exp2 expm1 fast_cosf fast_dividef fast_exp10f fast_expf fast_log10f fast_log2f "
    "fast_logf fast_powf fast_sinf fast_tanf fdim ffs finitef float2int_rd float2int_rn float2int_ru float2int_rz "
    "float2ll_rd float2ll_rn float2ll_ru float2ll_rz float2uint_rd float2uint_rn float2uint_ru float2uint_rz "
    "float2ull_rd float2ull_rn float2ull_ru float2ull_rz float_as_int float_as_uint floor fma fma_rd fma_rn fma_ru "
    "fma_rz fmod hadd hiloint2double hypot ilogb int2double_rn int2float_rd int2float_rn int2float_ru int2float_rz "
    "int_as_float isfinited isinf isnan j0 j1 jn ldexp lgamma ll2double_rd ll2double_rn ll2double_ru ll2double_rz "
    "ll2float_rd ll2float_rn ll2float_ru ll2float_rz llrint llround log log10 log1p log2 logb longlong_as_double "
    "mul24 mul_rd mul_rn mul_ru mul_rz mulhi nearbyint nextafter norm3d norm4d normcdf normcdfinv popc pow rcbrt "
    "rcp64h rcp_rd rcp_rn rcp_ru rcp_rz remainder rhadd rhypot rint rnorm3d rnorm4d round rsqrt rsqrt_rn sad "
    "saturatef scalbn signbit sin sinh sinpi sqrt sqrt_rd sqrt_rn sqrt_ru sqrt_rz sub_rd sub_rn sub_ru sub_rz tan "
    "tanh tgamma trunc uint2double_rn uint2float_rd uint2float_rn uint2float_ru uint2float_rz uint_as_float "
    "ull2double_rd ull2double_rn ull2double_ru ull2double_rz ull2float_rd ull2float_rn ull2float_ru ull2float_rz "
    "y0 y1 yn").split()

# The names txl implements as calls of CUDA's libdevice functions (txl.extern_elementwise; txlc links
# libdevice.10.bc): every name the table above refused for want of libdevice, of a rounding mode or of an integer
# intrinsic.
LIBDEVICE_CALLS = sorted(n for n, (st, _, _) in _libdevice().items() if st == REFUSED and n in set(LIBDEVICE_NAMES))
_LINKED = "a call of CUDA libdevice's function: needs libdevice.10.bc when compiling (the CUDA toolkit's, or TXL_LIBDEVICE)"
LIBDEVICE = {k: (ok(_LINKED) if k in LIBDEVICE_CALLS else v) for k, v in _libdevice().items()
             if k in set(LIBDEVICE_NAMES)}

TABLES = {"txl.language": LANGUAGE, "txl.language.math": MATH, "txl.language.extra.cuda.libdevice": LIBDEVICE,
          "txl.language.extra.libdevice": LIBDEVICE}


def status(module_name, name):
    """(status, detail, instead) of ``name`` in the txl module ``module_name``, or None when Triton 3.6 has no
    such name there."""
    table = TABLES.get(module_name)
    return table.get(name) if table is not None else None


class Refused:
    """What a refused name of a txl language module is bound to. Using it in a @txl.jit function is a located
    compile error (the code generator checks for it where the name or attribute is read; calling it raises the
    same error as an ``UnsupportedError``, located at the call)."""

    __txl_builtin__ = True

    def __init__(self, spelling, why, instead):
        self.spelling = spelling  # e.g. "tl.atomic_add", "libdevice.tan"
        self.why = why
        self.instead = instead

    def message(self, spelling=None):
        return "%s is not supported yet by txl: %s" % (spelling or self.spelling, self.why)

    def error(self, spelling=None):
        return UnsupportedError(self.message(spelling), self.instead)

    def __call__(self, *args, **kwargs):
        raise self.error()

    def __repr__(self):
        return "<%s: not supported yet by txl>" % self.spelling


_SPELLING = {"txl.language": "tl", "txl.language.math": "tl.math", "txl.language.extra.cuda.libdevice": "libdevice",
             "txl.language.extra.libdevice": "libdevice"}


def install_refusals(module_globals):
    """Binds every refused name of the module's table to a ``Refused`` (replacing any stub of the same name)."""
    module = module_globals["__name__"]
    for name in refused_names(TABLES[module]):
        _, why, instead = TABLES[module][name]
        module_globals[name] = Refused("%s.%s" % (_SPELLING[module], name), why, instead)


def missing_attribute(module, name):
    """The AttributeError for a name a txl language module does not have (module ``__getattr__``)."""
    spelled = "%s.%s" % (_SPELLING.get(module, module), name)
    st = status(module, name)
    if st is None:
        return AttributeError("%s does not exist: %s is not a name of Triton %s's %s either (see "
                              "txl/language/triton_api.py for the names txl knows)"
                              % (spelled, name, TRITON_VERSION, module.replace("txl.", "triton.")))
    return AttributeError("%s is listed as implemented in txl/language/triton_api.py but %s does not define it "
                          "(a txl bug)" % (spelled, module))


def refused_names(table):
    return sorted(n for n, (s, _, _) in table.items() if s == REFUSED)


def implemented_names(table):
    return sorted(n for n, (s, _, _) in table.items() if s == IMPLEMENTED)
