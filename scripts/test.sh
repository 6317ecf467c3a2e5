#!/usr/bin/env bash
# Run every txl test on this machine (no GPU needed): set up and build if
# needed, then lit (check-txl: every op, type, pass, stage, example and PTX
# test; ptxas runs when present), pytest (Python runtime, fuzz harness) and a
# short fuzz run. GPU tests are skipped here; see docs/gpu-results.md.
#
#   scripts/test.sh              everything
#   TXL_VERIFY_ROUNDTRIP=1 scripts/test.sh   also round-trip every txl-opt run
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TXL_BUILD_DIR:-$ROOT/build}"
JOBS="${TXL_JOBS:-2}"
LIT=/usr/lib/llvm-22/bin/lit

"$ROOT/scripts/setup.sh" --no-run || { echo "setup/build failed"; exit 1; }

passed=0
failed=0
count() { # $1 = passed, $2 = failed
  passed=$((passed + ${1:-0}))
  failed=$((failed + ${2:-0}))
}

echo "== lit (check-txl)"
ninja -C "$BUILD" -j"$JOBS" txl-tools >/dev/null || { echo "build failed"; exit 1; }
lit_out=$("$LIT" -sv "$BUILD/test" 2>&1)
lit_rc=$?
echo "$lit_out" | grep -E "^(FAIL|XPASS|UNRESOLVED|TIMEOUT)|Passed|Failed|Unsupported|Expectedly|Total" || true
lp=$(echo "$lit_out" | sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' | head -1)
lf=$(echo "$lit_out" | grep -E "^ *(Failed|Unresolved|Timed Out|Unexpectedly Passed) *:" | sed 's/.*: *\([0-9]*\).*/\1/' | paste -sd+ | bc 2>/dev/null)
count "${lp:-0}" "${lf:-0}"
if [[ $lit_rc -ne 0 && -z "${lf}" ]]; then count 0 1; fi

echo "== pytest (python/txl/tests, tools/fuzz)"
py_out=$(cd "$ROOT" && python3 -m pytest -q python/txl/tests tools/fuzz -p no:cacheprovider 2>&1)
py_rc=$?
echo "$py_out" | tail -3
pp=$(echo "$py_out" | grep -oE "[0-9]+ passed" | tail -1 | grep -oE "[0-9]+")
pf=$(echo "$py_out" | grep -oE "[0-9]+ (failed|error)" | grep -oE "[0-9]+" | paste -sd+ | bc 2>/dev/null)
count "${pp:-0}" "${pf:-0}"
if [[ $py_rc -ne 0 && $py_rc -ne 5 && -z "${pf}" ]]; then count 0 1; fi

echo "== fuzz (txl-opt, txlc; ${TXL_FUZZ_CASES:-500} cases)"
if python3 "$ROOT/tools/fuzz/txl_fuzz.py" --cases "${TXL_FUZZ_CASES:-500}" --seed "${TXL_FUZZ_SEED:-1}" \
    --jobs "$JOBS" --out "$ROOT/fuzz-out" --binary "$BUILD/bin/txl-opt" --binary "$BUILD/bin/txlc" 2>&1 | tail -2; then
  count 1 0
else
  count 0 1
fi

echo "== lint (ruff: pyflakes checks, pyproject.toml [tool.ruff])"
if (cd "$ROOT" && python3 -m ruff check python bench scripts tools --output-format concise 2>&1 | tail -5); then
  count 1 0
else
  count 0 1
fi

echo "== C++ format (clang-format --dry-run, .clang-format)"
unformatted=$(cd "$ROOT" && for f in $(git ls-files 'lib/*.cpp' 'lib/*.h' 'include/*.h' 'tools/*.cpp'); do
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || echo "$f"; done)
if [[ -z "$unformatted" ]]; then
  echo "all C++ sources are clang-format clean"
  count 1 0
else
  echo "FAIL: not clang-format clean (run clang-format -i on them):" $unformatted
  count 0 1
fi

echo "== docs/generated up to date (ninja txl-docs-check)"
if ninja -C "$BUILD" txl-docs-check >/dev/null 2>&1; then
  echo "docs/generated matches TableGen"
  count 1 0
else
  echo "FAIL: docs/generated/ is stale: run ninja -C build txl-docs and commit it"
  count 0 1
fi

echo "txl: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
