#!/usr/bin/env bash
# Build a wheel of txl that carries a fully static txlc, for GPU hosts without LLVM/MLIR:
#   pip install --no-deps dist/txl-*.whl     (there: kernels JIT-compile on first call, no other step)
#
#   scripts/build-wheel.sh                    # builds build-fullstatic/bin/txlc (-DTXL_LINK=fullstatic) first
#   TXL_WHEEL_TXLC=/path/txlc scripts/build-wheel.sh   # bundle an existing fully static txlc instead
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TXL_STATIC_BUILD_DIR:-$ROOT/build-fullstatic}"
TXLC="${TXL_WHEEL_TXLC:-}"
if [[ -z "$TXLC" ]]; then
  "$ROOT/scripts/setup.sh" --no-run >/dev/null  # the dependencies (apt) and the normal build's configuration
  if [[ ! -f "$BUILD/build.ninja" ]]; then
    cmake -G Ninja -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
      -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DLLVM_USE_LINKER=lld -DLLVM_ENABLE_ASSERTIONS=OFF \
      -DTXL_LINK=fullstatic >/dev/null
  fi
  ninja -C "$BUILD" -j"${TXL_JOBS:-2}" txlc
  TXLC="$BUILD/bin/txlc"
fi
if ldd "$TXLC" 2>/dev/null | grep -qi "libLLVM\|libMLIR"; then
  echo "error: $TXLC links LLVM/MLIR dynamically; a GPU host has neither: build it with -DTXL_LINK=fullstatic" >&2
  exit 1
fi
# The frontend's op builders (python/txl/ir/dialects.py, committed) must be what the bundled txlc's ODS
# gives, or the wheel's frontend prints ops its own txlc does not parse.
if [[ -x "${TXL_TBLGEN:-/usr/lib/llvm-22/bin/llvm-tblgen}" ]]; then
  python3 "$ROOT/python/txl/ir/gen_ops.py" --check
else
  echo "warning: no llvm-tblgen: python/txl/ir/dialects.py not checked against ODS" >&2
fi
# Build from a staging copy: setuptools writes build/ and *.egg-info next to its sources, and build/ here is
# the CMake build directory.
STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
cp -r "$ROOT/pyproject.toml" "$ROOT/setup.py" "$ROOT/README.md" "$STAGE/"
mkdir -p "$STAGE/python"
cp -r "$ROOT/python/txl" "$STAGE/python/"
find "$STAGE" -name __pycache__ -prune -exec rm -rf {} +
mkdir -p "$STAGE/python/txl/_bin"
strip -o "$STAGE/python/txl/_bin/txlc" "$TXLC"
chmod +x "$STAGE/python/txl/_bin/txlc"
mkdir -p "$ROOT/dist"
python3 -m pip wheel --no-deps -w "$ROOT/dist" "$STAGE" >/dev/null
ls -l "$ROOT"/dist/txl-*.whl
