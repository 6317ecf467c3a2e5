"""The query-head split of the attention backward's dK/dV kernel (issue 34 item 2), no GPU: the split rule
(``_attention_bwd.split_heads``), the launch plan the op builds from it (grids, partial buffers, the combine
launch; recorded with a stand-in launcher on CPU tensors), and every new kernel configuration through the real
compiler to SASS: SPLIT > 1 of both dK/dV kernels (head dims 64, 128, 256; causal or not; N a multiple of the
block or not; fp16/bf16; with dQ or without it, as deterministic=True runs it) and the combine kernel."""

import re

import pytest

from txl.kernels import flash_attention_bwd as kb
from txl.ops import _attention_bwd as AB

from .dsl_helpers import compile_ptx, ir_of


def _spill_bytes(err):
    m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", err)
    return (int(m.group(1)) + int(m.group(2))) if m else 0


# ---------------------------------------------------------------------------------------------------------------
# The rule


def test_split_rule_on_the_issue_row():
    # (2, 8, 1000, 64) MQA: 8 key blocks x 2 kv heads = 16 CTAs of 8 heads x 16 query blocks on 132 SMs.
    assert AB.split_heads(8, 2, 8, 16, 132) == 8
    # GQA 4 with H_KV = 2, N = 1000: 16 CTAs; splitting all 4 heads apart still fits one wave.
    assert AB.split_heads(8, 2, 4, 16, 132) == 4


def test_split_rule_leaves_full_grids_alone():
    assert AB.split_heads(32, 16 * 8, 4, 64, 132) == 1  # (16, 32, 8, 4096): 4096 CTAs
    assert AB.split_heads(8, 2, 1, 16, 132) == 1  # MHA: no group to split
    assert AB.split_heads(66, 2, 8, 132, 132) == 1  # exactly one wave already


def test_split_rule_counts_waves():
    # 60 CTAs, a group of 8, 16 steps a head, in steps (SPLIT_CTA_STEPS = SPLIT_COMBINE_STEPS = 4): S = 1 132;
    # S = 2 one wave of 120 CTAs, 4 * 16 + 4 + 4 = 72; S = 4 two waves, 2 * (2 * 16 + 4) + 4 = 76; S = 8 four
    # waves, 4 * (16 + 4) + 4 = 84.
    assert (AB.SPLIT_CTA_STEPS, AB.SPLIT_COMBINE_STEPS) == (4, 4)
    assert AB.split_heads(60, 1, 8, 16, 132) == 2
    # 100 CTAs: every split needs a second wave that costs more than the idle SMs it fills.
    assert AB.split_heads(100, 1, 8, 16, 132) == 1
    for ctas in range(1, 140):
        for group in (1, 2, 3, 4, 6, 8, 16):
            s = AB.split_heads(ctas, 1, group, 8, 132)
            assert group % s == 0 and 1 <= s <= group
            if ctas >= 132:
                assert s == 1


# ---------------------------------------------------------------------------------------------------------------
# The launch plan (CPU tensors, a recording launcher)


class _Rec:
    def __init__(self):
        self.calls = []

    def __call__(self, fn, grid, args, kwargs):
        self.calls.append((fn, grid, args, kwargs))


@pytest.mark.parametrize("deterministic", [False, True])
@pytest.mark.parametrize("B,H,HK,N,D,causal,want", [
    (2, 8, 1, 1000, 64, False, 8),
    (1, 4, 2, 777, 128, True, 2),
    (1, 4, 1, 64, 256, False, 4),
    (2, 4, 4, 1000, 64, False, 1),  # MHA: the existing path
])
def test_launch_plan(monkeypatch, deterministic, B, H, HK, N, D, causal, want):
    torch = pytest.importorskip("torch")
    from txl.ops import attention as A

    rec = _Rec()
    monkeypatch.setattr(A, "fast_launch", rec)
    q, o, do = (torch.zeros(B, H, N, D, dtype=torch.bfloat16) for _ in range(3))
    k, v = (torch.zeros(B, HK, N, D, dtype=torch.bfloat16) for _ in range(2))
    n_pad = A.padded_len(N)
    m = torch.zeros(B * H, n_pad)
    AB.backward(do, q, k, v, o, m, causal, D ** -0.5, deterministic=deterministic)
    names = [c[0].__name__ if hasattr(c[0], "__name__") else c[0].fn.__name__ for c in rec.calls]
    main = [c for c in rec.calls if c[3].get("HEAD_DIM") == D and "NUM_STAGES" in c[3]]
    assert len(main) == 1
    _, grid, args, kw = main[0]
    assert kw["SPLIT"] == want and kw["DQ"] == (not deterministic)
    block_n = 64 if D == 256 else 128
    if want > 1:
        assert grid == (n_pad // block_n, B * HK, want)
        dk_part, dv_part = args[9], args[10]  # DK, DV: the f32 partial buffers
        for t in (dk_part, dv_part):
            assert t.dtype == torch.float32 and tuple(t.shape) == (want, B * HK * n_pad, D)
        comb = [c for c in rec.calls if c[3].get("SPLIT") == want and "DK_DIM" in c[3]]
        assert len(comb) == 1, names
        _, cgrid, cargs, ckw = comb[0]
        assert cgrid == (n_pad * D // AB.COMBINE_CHUNK, B * HK)
        assert cargs[0] is dk_part and cargs[1] is dv_part
        assert cargs[4:] == (N, n_pad)
        assert ckw == dict(DK_DIM=D, DV_DIM=D, SPLIT=want, CHUNK=AB.COMBINE_CHUNK)
    else:
        assert grid == (n_pad // block_n, B * HK)
        assert args[9].dtype == torch.bfloat16
        assert not [c for c in rec.calls if "DK_DIM" in c[3]]


# ---------------------------------------------------------------------------------------------------------------
# Every new configuration compiles (SASS, spills bounded as the unsplit kernel's)


def _split_variants():
    out = []
    for d, split, group in ((64, 8, 8), (64, 2, 2), (128, 2, 2), (128, 8, 8), (256, 2, 4)):
        for causal, even_n, dtype, dq in ((False, False, "fp16", True), (True, False, "bf16", True),
                                          (False, True, "bf16", False), (True, False, "fp16", False)):
            out.append((d, split, group, causal, even_n, dtype, dq))
    return out


# The unsplit kernels spill too (test_attention_bwd_cpu.py: hd128 up to 64 bytes, hd256 170-216); the split's
# partial stores from registers may add a few words, no more.
_MAX_SPILL = {64: 0, 128: 160, 256: 448}


@pytest.mark.parametrize("head_dim,split,group,causal,even_n,dtype,dq", _split_variants())
def test_split_kernel_compiles(head_dim, split, group, causal, even_n, dtype, dq):
    block_n = 64 if head_dim == 256 else 128
    cx = dict(kb.constexprs(head_dim, causal, block_n=block_n, num_stages=AB.NUM_STAGES[head_dim], even_n=even_n,
                            h_q_per_kv=group, split=split), DQ=dq)
    fn = kb.flash_attention_bwd_hd256 if head_dim == 256 else kb.flash_attention_bwd
    text = ir_of(fn, kb.signature(head_dim, dtype=dtype, split=split), cx, **kb.OPTIONS)
    ptx, err = compile_ptx(text, emit="cubin")
    assert _spill_bytes(err) <= _MAX_SPILL[head_dim], err
    # the grid's third axis picks the heads; the partials are f32 stores from registers, no TMA store of dK/dV
    assert "%ctaid.z" in ptx
    assert ptx.count("st.global.b32") + ptx.count("st.global.v2.b32") + ptx.count("st.global.v4.b32") > 0
    assert ("cp.reduce.async.bulk.tensor" in ptx) == dq
    assert "cp.async.bulk.tensor.2d.global.shared::cta" not in ptx.replace("cp.reduce.async", "")
    assert "wgmma.mma_async" in ptx


def test_split_of_one_is_the_unsplit_kernel():
    cx = kb.constexprs(64, False, num_stages=2, even_n=False, h_q_per_kv=8)
    assert cx["SPLIT"] == 1
    text = ir_of(kb.flash_attention_bwd, kb.signature(64, dtype="fp16"), cx, **kb.OPTIONS)
    assert "get_program_id z" not in text and "program_id(2)" not in text
    ptx, _ = compile_ptx(text)
    assert "%ctaid.z" not in ptx


@pytest.mark.parametrize("dk_dim,dv_dim,split", [(64, 64, 8), (128, 128, 2), (256, 256, 4), (192, 128, 2)])
@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
def test_combine_compiles(dk_dim, dv_dim, split, dtype):
    # as a launch specialises it: torch's allocations are 16-byte aligned, N_PAD is a multiple of 128
    sig = {"DK_PART": "*fp32:16", "DV_PART": "*fp32:16", "DK": "*%s:16" % dtype, "DV": "*%s:16" % dtype,
           "N_CTX": "i32", "N_PAD": "i32:16"}
    cx = dict(DK_DIM=dk_dim, DV_DIM=dv_dim, SPLIT=split, CHUNK=AB.COMBINE_CHUNK)
    text = ir_of(kb.attention_bwd_dkv_combine, sig, cx)
    ptx, err = compile_ptx(text, emit="cubin")
    assert _spill_bytes(err) == 0, err
    # every split's partial of dK and of dV is read, with 16-byte loads (consecutive elements)
    assert len(re.findall(r"ld\.global(\.\w+)*\.v4", ptx)) >= 2 * split, ptx[-2000:]
    assert "st.global" in ptx
