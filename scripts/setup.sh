#!/usr/bin/env bash
# Set up txl on a fresh Debian 12 machine: install what is missing, configure
# (clang + lld + ninja against /usr/lib/llvm-22), build. Running it again only
# rebuilds what changed.
#
#   scripts/setup.sh            install + build + run the main job (scripts/run-examples.sh)
#   scripts/setup.sh --no-run   install + build
#   scripts/setup.sh --no-deps  build only
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TXL_BUILD_DIR:-$ROOT/build}"
JOBS="${TXL_JOBS:-2}"
LLVM=/usr/lib/llvm-22

# Debian packages the build and the tests need.
PKGS=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang clang-format lld ninja-build cmake
      python3 python3-pytest zlib1g-dev libzstd-dev git libgtest-dev)

missing=()
RUN=1
[[ "${1:-}" == "--no-run" || "${1:-}" == "--no-deps" ]] && RUN=0
if [[ "${1:-}" != "--no-deps" ]]; then
  for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
fi
if (( ${#missing[@]} )); then
  echo "== installing: ${missing[*]}"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

# pytest and ruff (the lint scripts/test.sh runs) for the python3 on PATH (which may not be Debian's, e.g.
# pyenv's).
for tool in pytest ruff; do
  if [[ "${1:-}" != "--no-deps" ]] && ! python3 -m "$tool" --version >/dev/null 2>&1; then
    echo "== installing $tool for $(command -v python3)"
    python3 -m pip install -q "$tool" || python3 -m pip install -q --break-system-packages "$tool" ||
      { echo "error: could not install $tool"; exit 1; }
  fi
done

if [[ ! -f "$BUILD/build.ninja" ]]; then
  echo "== configuring $BUILD"
  cmake -G Ninja -S "$ROOT" -B "$BUILD" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$LLVM/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$LLVM/bin/lit" \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DLLVM_USE_LINKER=lld \
    -DLLVM_ENABLE_ASSERTIONS=OFF >/dev/null
fi
echo "== building (ninja -j$JOBS)"
start=$(date +%s)
ninja -C "$BUILD" -j"$JOBS" txl-tools
echo "== built in $(( $(date +%s) - start )) s: $BUILD/bin/txl-opt, $BUILD/bin/txlc"

if (( RUN )); then
  echo "== main job: compile the example kernels"
  TXL_BUILD_DIR="$BUILD" "$ROOT/scripts/run-examples.sh"
fi
