#!/usr/bin/env bash
# The main job: check every example kernel in examples/ with txl-opt (parse,
# verify, round-trip), then compile it with txlc through the whole pipeline
# to PTX (and a cubin when ptxas is installed) in $BUILD/kernels/, with the
# JSON sidecar the Python launcher reads. One summary line per example;
# exits non-zero if any example fails.
#
#   scripts/run-examples.sh               summary only
#   scripts/run-examples.sh -v            also print each example's IR
#   scripts/run-examples.sh FILE...       only these examples
#
# TXL_BUILD_DIR selects the build directory (default: build/).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TXL_BUILD_DIR:-$ROOT/build}"
TXL_OPT="$BUILD/bin/txl-opt"
TXLC="$BUILD/bin/txlc"
KERNELS="$BUILD/kernels"
mkdir -p "$KERNELS"
EMIT=ptx
if command -v ptxas >/dev/null 2>&1 || [[ -x /usr/local/cuda/bin/ptxas ]]; then EMIT=cubin; fi

verbose=0
if [[ "${1:-}" == "-v" ]]; then
  verbose=1
  shift
fi

if [[ ! -x "$TXL_OPT" ]]; then
  echo "error: $TXL_OPT not found; build first (scripts/setup.sh)" >&2
  exit 2
fi

files=("$@")
if (( ${#files[@]} == 0 )); then
  shopt -s nullglob
  files=("$ROOT"/examples/*.mlir)
fi
if (( ${#files[@]} == 0 )); then
  echo "error: no examples found in $ROOT/examples" >&2
  exit 2
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

failed=0
for f in "${files[@]}"; do
  name="$(basename "$f" .mlir)"
  if ! "$TXL_OPT" "$f" --verify-roundtrip >"$tmp/out.mlir" 2>"$tmp/err.txt"; then
    printf 'FAIL  %s\n' "$name"
    sed 's/^/      /' "$tmp/err.txt"
    failed=$((failed + 1))
    continue
  fi
  if (( verbose )); then
    echo "// ===== $name"
    cat "$tmp/out.mlir"
  fi
  # The generic form prints one op per line as "dialect.op"(...).
  "$TXL_OPT" "$f" --mlir-print-op-generic >"$tmp/generic.mlir" 2>/dev/null
  ops=$(grep -cE '^[[:space:]]*(%[^=]+= )?"[a-z0-9_]+\.[a-z0-9_.]+"' "$tmp/generic.mlir")
  txl_ops=$(grep -cE '^[[:space:]]*(%[^=]+= )?"txl\.' "$tmp/generic.mlir")
  target=$(grep -oE 'txl\.target = "[^"]+"' "$tmp/out.mlir" | head -1 | cut -d'"' -f2)
  warps=$(grep -oE 'txl\.num_warps = [0-9]+' "$tmp/out.mlir" | head -1 | grep -oE '[0-9]+$')
  if ! "$TXLC" "$f" --emit="$EMIT" -o "$KERNELS/$name.ptx" 2>"$tmp/txlc.txt"; then
    printf 'FAIL  %s (txlc)\n' "$name"
    sed 's/^/      /' "$tmp/txlc.txt"
    failed=$((failed + 1))
    continue
  fi
  spills=$(grep -c "spilled" "$tmp/txlc.txt")
  printf 'OK    %-28s target=%-8s warps=%-3s ops=%-4s txl-ops=%-3s -> %s (%s)%s\n' \
    "$name" "${target:-?}" "${warps:-?}" "$ops" "$txl_ops" "kernels/$name.ptx" "$EMIT" \
    "$( (( spills )) && echo ', ptxas reports spills')"
done

total=${#files[@]}
echo "$((total - failed))/$total examples OK"
(( failed == 0 ))
