"""txl.ops.flash_attention on a machine without a GPU: argument validation (torch CPU tensors; skipped without
torch) and every kernel variant / autotuning config compiling to PTX through the real txlc without spills."""

import os
import subprocess
import sys

import pytest

from txl.ops import attention as A

from .dsl_helpers import compile_ptx, ir_of


def test_import_txl_ops_does_not_import_torch():
    code = "import sys, txl, txl.ops; assert 'torch' not in sys.modules; print(txl.ops.flash_attention.__name__)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.dirname(__file__)))))
    assert r.returncode == 0 and "flash_attention" in r.stdout, r.stderr


def test_buckets_and_padding():
    assert [A.n_bucket(n) for n in (1, 128, 129, 1000, 4096, 100000)] == [128, 128, 256, 1024, 4096, 16384]
    assert [A.padded_len(n) for n in (1, 128, 129, 1000)] == [128, 128, 256, 1024]


# ---- validation -----------------------------------------------------------------------------------------------
def _t(torch, shape, dtype=None, device="cpu"):
    return torch.zeros(shape, dtype=dtype or torch.bfloat16, device=device)


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _err(exc, match, *args, **kwargs):
    with pytest.raises(exc, match=match):
        A.flash_attention(*args, **kwargs)


def test_rejects_non_tensors(torch):
    x = _t(torch, (1, 2, 128, 64))
    _err(TypeError, "q must be a torch.Tensor", [1.0], x, x)


def test_rejects_cpu_tensors(torch):
    x = _t(torch, (1, 2, 128, 64))
    _err(ValueError, "q is on cpu.*CUDA", x, x, x)


def test_rejects_bad_dtype(torch):
    x = _t(torch, (1, 2, 128, 64), torch.float32)
    _err(TypeError, "supported: torch.bfloat16, torch.float16", x, x, x)
    q, k = _t(torch, (1, 2, 128, 64)), _t(torch, (1, 2, 128, 64), torch.float16)
    _err(TypeError, "k is torch.float16 but q is torch.bfloat16", q, k, k)


def test_rejects_bad_shapes(torch):
    x = _t(torch, (1, 2, 128, 64))
    _err(ValueError, "must be 4-D", x[0], x, x)
    _err(ValueError, "head dim 96 is not supported", *[_t(torch, (1, 2, 128, 96))] * 3)
    _err(ValueError, "same shape", x, x, _t(torch, (1, 2, 256, 64)))
    _err(ValueError, "does not match q", x, *[_t(torch, (1, 2, 256, 64))] * 2)
    _err(ValueError, "multiple of the kv head count", _t(torch, (1, 3, 128, 64)), x, x)
    _err(ValueError, "stride 2 in its last dimension", _t(torch, (1, 2, 128, 128))[..., ::2], x, x)


def test_rejects_bad_options(torch):
    x = _t(torch, (1, 2, 128, 64))
    _err(ValueError, "kernel='fa4' is not one of", x, x, x, kernel="fa4")
    _err(TypeError, "causal must be a bool", x, x, x, causal=1)
    _err(ValueError, "sm_scale must be positive", x, x, x, sm_scale=-1.0)
    _err(TypeError, "sm_scale must be a float", x, x, x, sm_scale="0.1")


def test_every_forward_head_dim_has_a_backward(torch):
    from txl.ops import _attention_bwd

    assert set(_attention_bwd.BWD_HEAD_DIMS) == set(A.HEAD_DIMS)
    for d in A.HEAD_DIMS:
        _attention_bwd.check_supported(_t(torch, (1, 2, 128, d)))
    with pytest.raises(NotImplementedError, match="head dim 96 has no backward kernel yet.*scaled_dot_product"):
        _attention_bwd.check_supported(_t(torch, (1, 2, 128, 96)))


# ---- every kernel and config compiles, no spills ----------------------------------------------------------------
def _variants():
    out = []
    for kern, (mod, name, bm, nwg, cfgs) in A.KERNELS.items():
        for d, lst in cfgs.items():
            for cfg in lst:
                out.append((kern, d) + tuple(cfg[:2]) + (len(cfg) > 2 and cfg[2], cfg[3] if len(cfg) > 3 else None))
    return out


@pytest.mark.parametrize("kern,head_dim,block_n,num_stages,persistent,regs", _variants())
@pytest.mark.parametrize("causal,even_n,dtype,group", [(False, True, "bf16", 1), (True, False, "fp16", 2),
                                                    (False, False, "bf16", 4)])
def test_kernel_configs_compile(kern, head_dim, block_n, num_stages, persistent, regs, causal, even_n, dtype, group):
    import importlib

    mod_name, fn_name, bm, nwg, _ = A.KERNELS[kern]
    mod = importlib.import_module(mod_name)
    cx = dict(mod.constexprs(head_dim, causal, bm, block_n, num_stages, even_n, group), **A.KERNEL_CONSTEXPRS.get(kern, {}))
    if persistent:
        cx["PERSISTENT"] = True  # causal too: no spills since smem_store pins the thread index
    if regs:
        cx["CONSUMER_REGS"] = regs
    text = ir_of(getattr(mod, fn_name), mod.signature(head_dim, bm, block_n, dtype), cx, **mod.OPTIONS)
    ptx, err = compile_ptx(text, emit="cubin")
    assert "wgmma.mma_async" in ptx
    assert "spill" not in err.lower(), err


@pytest.mark.parametrize("mode", ["window", "varlen"])
@pytest.mark.parametrize("head_dim", [64, 128, 256])
def test_local_mask_modes_precompile(mode, head_dim):
    # Sliding window / sinks (WINDOW) and packed sequences (VARLEN): every non-persistent fa3 config of the mode
    # compiles through the tuner (as a call would), with the mode's constexpr set by the configs.
    kernels = A.precompile("fa3", head_dim, True, n=1000, heads=4, kv_heads=2, mode=mode)
    assert len(kernels) == len([c for c in A._FA3_CONFIGS[head_dim] if not c[2]])
    for k in kernels:
        assert "wgmma.mma_async" in k.asm["ptx"]


def test_local_masks_reduce_to_plain_attention():
    big = A.BIG
    assert A.local_masks((-1, -1), 0, False) == (big, big, 0)
    assert A._plain(A.local_masks((-1, -1), 8, True)) == (True, True)  # sinks add nothing without a left bound
    assert A.local_masks((256, -1), 4, True) == (256, 0, 4)
    assert A.local_masks((256, 10), 0, True) == (256, 0, 0)
    assert A._plain(A.local_masks((256, 0), 0, False)) == (False, True)
    with pytest.raises(TypeError, match="window must be a pair of ints"):
        A.local_masks((1.5, 0), 0, False)
    with pytest.raises(ValueError, match="window sides must be >= 0, or -1"):
        A.local_masks((-2, 0), 0, False)
    with pytest.raises(ValueError, match="num_sink_tokens must be an int >= 0"):
        A.local_masks((4, 0), -1, False)
