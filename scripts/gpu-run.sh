#!/bin/bash
# One step of a GPU session on the lent H100 (the device tool runs this in the repository root; each step fits in
# one 10-minute command). Needs the fullstatic txlc carried as .device/txlc.xz (and, for `tutorials*`, the Triton
# tutorials in .device/tutorials: docs/triton-tutorials.md says how to get them):
#
#   here:   scripts/build-wheel.sh (it builds build-fullstatic/bin/txlc), then
#           strip -o /tmp/txlc build-fullstatic/bin/txlc && xz -T2 -3 -c /tmp/txlc > .device/txlc.xz
#   device: bash scripts/gpu-run.sh pending        (carry [".device"])
#
# Steps: pending (the GPU test files of session 18's work; all of them passed on the H200 in session 19, kept as
# a quick re-check of those areas; pytest-xdist, 8 workers), suite (every GPU test),
# triton-style (bench/triton_style.py --quick and --num-warps 8), tutorials-a / tutorials-b (Triton's tutorials
# 01-05 / 06-09), variants (bench/variants.py at (4, 32, 8192, 128)), wheel (dist/txl-*.whl from
# scripts/build-wheel.sh, carried as ["dist"], installed and run on its own: scripts/wheel-smoke.py), nsa (the selection
# attention op's GPU tests and bench/nsa.py), mla (the MLA decode op's GPU tests and bench/mla_decode.py),
# txl-tutorials-a / txl-tutorials-b (TXL's own tutorials ported by import only, bench/txl_tutorials.py: 01 + 02 /
# 04 + MLA + NSA; TXL's files in .device/txl-tutorials, docs/txl-tutorials.md says how to get them).
# Output goes to stdout and $OUT/<step>.log.
set -o pipefail
step=${1:?usage: scripts/gpu-run.sh pending|suite|triton-style|tutorials-a|tutorials-b|variants|wheel|nsa|mla|txl-tutorials-a|txl-tutorials-b}
if [[ $step != wheel ]]; then
  mkdir -p /tmp/txlbin && xz -dc .device/txlc.xz > /tmp/txlbin/txlc && chmod +x /tmp/txlbin/txlc || exit 1
fi
export TXL_TXLC=/tmp/txlbin/txlc PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1 TXL_CACHE_DIR=${TXL_CACHE_DIR:-/tmp/txlcache}
log=${OUT:-/tmp}/$step.log
nvidia-smi --query-gpu=name --format=csv,noheader
case $step in
  pending)
    (cd python && timeout 560 python3 -m pytest -q -p no:cacheprovider -p no:logging -n 8 --dist loadfile \
      txl/tests/gpu/test_attention_sinks_gpu.py txl/tests/gpu/test_attention_variants_gpu.py \
      txl/tests/gpu/test_attention_bwd_split_gpu.py txl/tests/gpu/test_attention_bwd_asym_gpu.py \
      txl/tests/gpu/test_attention_asym_gpu.py txl/tests/gpu/test_attention_fp8_gpu.py \
      txl/tests/gpu/test_mla_decode_gpu.py txl/tests/gpu/test_kvcache_gpu.py txl/tests/gpu/test_gluon_gpu.py \
      txl/tests/gpu/test_inline_asm_gpu.py txl/tests/gpu/test_gather_gpu.py txl/tests/gpu/test_histogram_gpu.py \
      txl/tests/gpu/test_map_elementwise_gpu.py) 2>&1 | tail -40 | tee "$log" ;;
  suite)
    (cd python && timeout 570 python3 -m pytest -q -p no:cacheprovider -p no:logging txl/tests/gpu) 2>&1 | tail -40 | tee "$log" ;;
  triton-style)
    { timeout 280 python3 bench/triton_style.py --quick; timeout 280 python3 bench/triton_style.py --num-warps 8; } 2>&1 \
      | grep -v "^module\|^\^\|warning: ptxas" | tee "$log" ;;
  tutorials-a)
    timeout 570 python3 bench/triton_tutorials.py --tutorials .device/tutorials --only 01,02,03,04,05 --timeout 240 2>&1 | tee "$log" ;;
  tutorials-b)
    timeout 570 python3 bench/triton_tutorials.py --tutorials .device/tutorials --only 06,07,08,09 --timeout 240 2>&1 | tee "$log" ;;
  wheel)
    # The wheel alone (scripts/build-wheel.sh here, carry ["dist"]): pip-installed into an empty folder, run from
    # outside the checkout with no TXL_TXLC, so txl and its txlc come from the wheel.
    rm -rf /tmp/whl && python3 -m pip install -q --no-deps --no-index --target /tmp/whl dist/txl-*.whl || exit 1
    (cd /tmp && env -u TXL_TXLC PYTHONPATH=/tmp/whl TXL_CACHE_DIR=/tmp/whl-cache timeout 500 \
      python3 "$OLDPWD/scripts/wheel-smoke.py") 2>&1 | tee "$log" ;;
  variants)
    timeout 570 python3 bench/variants.py 2>&1 | grep -v "^module\|^\^\|warning" | tee "$log" ;;
  nsa)
    { (cd python && timeout 300 python3 -m pytest -q -p no:cacheprovider -p no:logging txl/tests/gpu/test_nsa_gpu.py) \
        | tail -25; timeout 270 python3 bench/nsa.py; } 2>&1 | grep -v "^module\|^\^\|warning" | tee "$log" ;;
  mla)
    { (cd python && timeout 300 python3 -m pytest -q -p no:cacheprovider -p no:logging txl/tests/gpu/test_mla_decode_gpu.py) \
        | tail -25; timeout 270 python3 bench/mla_decode.py; } 2>&1 | grep -v "^module\|^\^\|warning" | tee "$log" ;;
  txl-tutorials-a)
    timeout 570 python3 bench/txl_tutorials.py --tutorials .device/txl-tutorials --only 01,02 --timeout 90 2>&1 \
      | tee "$log" ;;
  txl-tutorials-b)
    timeout 570 python3 bench/txl_tutorials.py --tutorials .device/txl-tutorials --only 04,mla,nsa --timeout 90 2>&1 \
      | tee "$log" ;;
  *) echo "unknown step '$step'"; exit 2 ;;
esac
