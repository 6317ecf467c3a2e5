"""The query-head split of the attention backward's dK/dV kernel (issue 34 item 2), no GPU: the split rule
(``_attention_bwd.split_walk``), the launch plan the op builds from it (grids, partial buffers, the combine
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
    # (2, 8, 1000, 64) MQA: 8 key blocks x 2 kv heads = 16 CTAs walking 8 heads x 16 query blocks on 132 SMs:
    # 8 CTAs per key block, one query head each, 128 CTAs in one wave.
    assert AB.split_walk(8, 2, 8, 16, 132) == 8
    # GQA 4, 16 CTAs: 8 CTAs per key block (half a head each) is still one wave.
    assert AB.split_walk(8, 2, 4, 16, 132) == 8
    # MHA (a group of 1): the query blocks of the one head are split; 8 CTAs of 2 steps each.
    assert AB.split_walk(8, 2, 1, 16, 132) == 8


def test_split_rule_leaves_full_grids_alone():
    assert AB.split_walk(32, 16 * 8, 4, 64, 132) == 1  # (16, 32, 8, 4096): 4096 CTAs
    assert AB.split_walk(66, 2, 8, 132, 132) == 1  # exactly one wave already
    assert AB.split_walk(1, 4, 1, 1, 132) == 1  # one step: nothing to split


def test_split_rule_counts_waves():
    # 60 CTAs, a group of 8, 16 steps a head (a walk of 128): S = 2 is one wave of 120 CTAs (64 steps each +
    # fixed costs, about 74); S = 3 needs two waves of 43 (about 100); no split 132.
    assert AB.split_walk(60, 1, 8, 16, 132) == 2
    # 120 CTAs of 4 steps: a split needs a second wave and a combine that cost more than the idle SMs give.
    assert AB.split_walk(120, 1, 1, 4, 132) == 1
    for ctas in range(1, 140):
        for group in (1, 2, 3, 4, 6, 8, 16):
            for steps in (1, 2, 8, 64):
                s = AB.split_walk(ctas, 1, group, steps, 132)
                assert 1 <= s <= min(AB.MAX_SPLIT, max(group * steps, 1))
                if ctas >= 132:
                    assert s == 1
                # a split never costs a wave more than it saves: its waves * steps per CTA beat no split's
                if s > 1:
                    waves = -(-ctas * s // 132)
                    assert waves * -(-group * steps // s) < group * steps


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
    (1, 4, 2, 777, 128, True, 7),  # 14 CTAs of a walk of 28 steps: 7 of 4 steps each
    (1, 4, 1, 64, 256, False, 8),  # 2 CTAs of a walk of 8 steps: one step each
    (2, 4, 4, 1000, 64, False, 2),  # MHA, 64 CTAs: query blocks split in two
    (8, 16, 16, 1000, 128, False, 1),  # 1024 CTAs: the unsplit path
])
def test_launch_plan(monkeypatch, deterministic, B, H, HK, N, D, causal, want):
    torch = pytest.importorskip("torch")
    from txl.ops import _launch
    from txl.ops import attention as A

    rec = _Rec()
    monkeypatch.setattr(_launch, "fast_launch", rec)  # what the backward launches through
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
    # (head dim, split, group): splits of whole heads, of heads and query blocks (3 of a group of 2), of an MHA
    # head's query blocks
    for d, split, group in ((64, 8, 8), (64, 3, 2), (128, 2, 2), (128, 8, 1), (256, 2, 4), (256, 5, 1)):
        for causal, even_n, dtype, dq in ((False, False, "fp16", True), (True, False, "bf16", True),
                                          (False, True, "bf16", False), (True, False, "fp16", False)):
            out.append((d, split, group, causal, even_n, dtype, dq))
    return out


# The unsplit kernels spill too (hd128 about 100 bytes in total with a causal mask and N odd, hd256 about 400);
# the split's step range and partial stores add a few words: causal, N odd, hd128 104 -> 168 bytes, hd256
# 416 -> 476.
_MAX_SPILL = {64: 0, 128: 192, 256: 512}


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
