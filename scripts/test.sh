#!/usr/bin/env bash
# npm test: installs what the tests need, builds and runs every test of the project.
#   0. scripts/setup.sh --test: the Debian packages (toolchain, Chromium, python3-torch) and npm ci,
#      each only when missing (ATTN_SKIP_APT=1 skips apt)
#   1. native GoogleTest suite through ctest                        (build-native/)
#   2. the same suite under AddressSanitizer + UBSan                (build-asan/)
#   3. libFuzzer on validation, forward and sessions, bounded time  (build-fuzz/, FUZZ_SECONDS, default 60)
#   4. the WASM builds (npm run build), their SIMD check, and the Node tests of dist/lib on both builds
#   5. browser tests: dist/ in Debian's Chromium (playwright-core), screenshots in test-results/e2e/
# Env: FUZZ_SECONDS=0 skips the fuzzer; BUILD_JOBS (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${BUILD_JOBS:-2}"
fuzz_seconds="${FUZZ_SECONDS:-60}"

step() { printf '\n=== %s ===\n' "$*"; }

step "setup: what the tests need (scripts/setup.sh --test)"
bash scripts/setup.sh --test
configure() {  # configure <preset> <dir>: a preset of CMakePresets.json, only when the build dir is new
  [ -f "$2/CMakeCache.txt" ] || cmake --preset "$1" >/dev/null
}

step "native build and tests (ctest)"
configure native build-native
cmake --build build-native -j"$jobs"
ctest --test-dir build-native --output-on-failure -j"$jobs"

step "native tests under AddressSanitizer + UndefinedBehaviorSanitizer (ctest)"
configure asan build-asan
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs"

if [ "$fuzz_seconds" != "0" ]; then
  step "libFuzzer: validation, forward and sessions for ${fuzz_seconds}s"
  configure fuzz build-fuzz
  cmake --build build-fuzz -j"$jobs"
  corpus="build-fuzz/corpus"
  mkdir -p "$corpus"
  ./build-fuzz/attn_fuzz -max_total_time="$fuzz_seconds" -print_final_stats=1 -rss_limit_mb=4096 \
    -artifact_prefix=build-fuzz/ "$corpus" tests/fuzz/corpus 2>build-fuzz/fuzz.log || {
      tail -60 build-fuzz/fuzz.log; echo "fuzzer found a crash: see build-fuzz/crash-*"; exit 1; }
  grep -E '^(Done|stat::number_of_executed_units|stat::new_units_added)' build-fuzz/fuzz.log
fi

step "WASM build (npm run build) and its SIMD check (ctest)"
node scripts/build.mjs
ctest --test-dir build-wasm --output-on-failure

step "Node tests of dist/lib (SIMD and scalar builds, no code generation from strings)"
node --test --disallow-code-generation-from-strings tests/node/

step "browser tests (Chromium via playwright-core)"
if [ ! -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then
  echo "Chromium is missing (${CHROMIUM_PATH:-/usr/bin/chromium}): run 'bash scripts/setup.sh --test' (installs Debian's chromium)" >&2
  exit 1
fi
node --test tests/e2e/
