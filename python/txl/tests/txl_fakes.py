"""Stand-ins for the CPU tests of compiling, caching, launching and autotuning.

* ``fake_ast_to_ir``: a frontend that writes real txl IR (a masked vector add of ``BLOCK`` elements) for a
  ``@txl.jit`` function with three pointer parameters and an int ``n``, so that txlc compiles it to real PTX. The
  IR records a hash of the function's source, as a real frontend's IR would differ for a different body.
  ``BROKEN=True`` among the constexprs produces IR that txlc rejects, at a Python location.
* ``FakeTensor``: what the runtime reads from a torch tensor (data_ptr, shape, stride, dtype, device), no torch.
* ``fake_descriptor``: a ``txl.TensorDescriptor`` planned (and checked) but never encoded (that needs a driver).
"""

import hashlib
import types

from txl.runtime import TensorDescriptor, plan_tensor_map

_ELT = {"fp32": "f32", "bf16": "bf16", "fp16": "f16", "i32": "i32"}


def fake_ast_to_ir(jit_fn, signature, constexprs, *, num_warps=4, num_warpgroups=1, target="sm_90a"):
    fake_ast_to_ir.calls.append((jit_fn.__name__, dict(signature), dict(constexprs), num_warps, num_warpgroups))
    x, y, o, n = jit_fn.arg_names[:4]
    block = int(constexprs.get("BLOCK", 1024))
    elt = _ELT[signature[x].lstrip("*").split(":")[0]]  # "*fp32:16": 16-byte aligned
    src_hash = hashlib.sha256(jit_fn.src.encode()).hexdigest()[:16]
    if n in constexprs:  # n == 1 was specialised away
        n_arg, n_def = "", "    %%n = arith.constant %d : i32\n" % constexprs[n]
    else:
        n_arg, n_def = ", %%n: i32 {txl.name = \"%s\"}" % n, ""
    loc = 'loc("%s":%d:5)' % (jit_fn.file, jit_fn.starting_line_number + 2)
    # BROKEN: a range of the wrong length, which the txl.make_range verifier rejects at the Python location.
    range_end = block + 1 if constexprs.get("BROKEN") else block
    T = "tensor<%dx%s>" % (block, elt)
    I = "tensor<%dxi32>" % block
    P = "tensor<%dx!txl.ptr<%s>>" % (block, elt)
    return (
        "// frontend IR of %s, source %s\n" % (jit_fn.__name__, src_hash)
        + 'module attributes {txl.target = "%s"} {\n' % target
        + "  func.func @%s(%%x: !txl.ptr<%s> {txl.name = \"%s\"}, %%y: !txl.ptr<%s> {txl.name = \"%s\"},\n"
        % (jit_fn.__name__, elt, x, elt, y)
        + "      %%o: !txl.ptr<%s> {txl.name = \"%s\"}%s)\n" % (elt, o, n_arg)
        + "      attributes {txl.kernel, txl.num_warps = %d : i32} {\n" % (num_warps * num_warpgroups)
        + n_def
        + "    %pid = txl.program_id 0\n"
        + "    %%c = arith.constant %d : i32\n" % block
        + "    %base = arith.muli %pid, %c : i32\n"
        + "    %%r = txl.make_range 0, %d : %s %s\n" % (range_end, I, loc)
        + "    %%b = txl.splat %%base : i32 -> %s\n" % I
        + "    %%offs = arith.addi %%b, %%r : %s\n" % I
        + "    %%nt = txl.splat %%n : i32 -> %s\n" % I
        + "    %%mask = arith.cmpi slt, %%offs, %%nt : %s\n" % I
        + "".join("    %%%ss = txl.splat %%%s : !txl.ptr<%s> -> %s\n    %%%sp = txl.addptr %%%ss, %%offs : %s, %s\n"
                  % (v, v, elt, P, v, v, P, I) for v in "xyo")
        + "    %%xv = txl.load %%xp mask %%mask : %s -> %s\n" % (P, T)
        + "    %%yv = txl.load %%yp mask %%mask : %s -> %s\n" % (P, T)
        + "    %s = arith.addf %xv, %yv : " + T + "\n"
        + "    txl.store %%op, %%s mask %%mask : %s, %s\n" % (P, T)
        + "    return\n  }\n}\n"
    )


fake_ast_to_ir.calls = []


def install_fake_frontend(monkeypatch):
    """Make ``txl.compiler.code_generator.ast_to_ir`` the fake (whether or not the real frontend exists)."""
    mod = types.ModuleType("txl.compiler.code_generator")
    mod.ast_to_ir = fake_ast_to_ir
    fake_ast_to_ir.calls = []
    monkeypatch.setitem(__import__("sys").modules, "txl.compiler.code_generator", mod)
    return fake_ast_to_ir


class FakeDevice:
    def __init__(self, type_, index=None):
        self.type = type_
        self.index = index


class FakeTensor:
    """Looks like a torch.Tensor to the runtime (data_ptr, shape, stride, dtype, device, element_size)."""

    SIZES = {"bfloat16": 2, "float16": 2, "float32": 4, "float64": 8, "int8": 1, "uint8": 1, "int32": 4,
             "int64": 8, "bool": 1, "float8_e4m3fn": 1, "complex64": 8, "int16": 2}

    def __init__(self, shape, dtype="float32", device="cuda", strides=None, ptr=0x7F0000000000):
        self.shape = tuple(shape)
        self.dtype = "torch." + dtype
        if strides is None:
            strides, acc = [], 1
            for s in reversed(self.shape):
                strides.insert(0, acc)
                acc *= s
        self._strides = tuple(strides)
        self._ptr = ptr
        self.device = FakeDevice(device, 0 if device == "cuda" else None)
        self._isz = self.SIZES[dtype]

    def data_ptr(self):
        return self._ptr

    def stride(self):
        return self._strides

    def element_size(self):
        return self._isz


def fake_descriptor(tensor, block_shape, swizzle=128):
    """A TensorDescriptor with its plan (all checks) but no encoded bytes."""
    d = TensorDescriptor.__new__(TensorDescriptor)
    d.plan = plan_tensor_map(tensor, block_shape, swizzle)
    d.tensor = tensor
    return d
