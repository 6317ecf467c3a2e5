#!/bin/sh
# Regenerate the PTX of the runtime's GPU test kernels (the .json sidecars are hand-written next to them).
# Needs only nvcc (no GPU): sh python/txl/tests/gpu/kernels/build.sh
set -e
cd "$(dirname "$0")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
for f in simple tma_copy; do
  "$NVCC" -gencode=arch=compute_90a,code=compute_90a -ptx -O3 -std=c++17 -o "$f.ptx" "$f.cu"
done
