#!/usr/bin/env bash
# Fuzzes the firmware-language front end (tests/fuzz/fw_fuzz.cpp) with libFuzzer.
#   scripts/fuzz.sh [SECONDS]    default 60
# Configures build-fuzz with clang-14 and -DLANAIKIT_FUZZ=ON, builds only the fuzz target,
# and runs it over a copy of tests/fuzz/corpus kept in build-fuzz/corpus (the checked-in
# corpus is never modified).
# Exits non-zero on any crash, sanitizer report, timeout or out-of-memory; the reproducer
# is left in build-fuzz/crashes/ (commit it to tests/fuzz/crashes/).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
dir=build-fuzz

mkdir -p "$dir"
CC=clang-14 CXX=clang++-14 cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DLANAIKIT_FUZZ=ON >"$dir/configure.log" 2>&1 || { cat "$dir/configure.log"; exit 1; }
ninja -C "$dir" -j2 fw_fuzz

# The working corpus lives in the build directory: seeded from the checked-in corpus, it
# keeps what earlier runs found, so repeated local runs go deeper.
corpus="$dir/corpus"
mkdir -p "$corpus" "$dir/crashes"
cp tests/fuzz/corpus/* "$corpus/"

# LLVM keeps process-lifetime allocations (ManagedStatic, target registries) that the leak
# checker would report on exit; leaks are not what this target looks for.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
set +e
"$dir/tests/fuzz/fw_fuzz" "$corpus" \
  -dict=tests/fuzz/fw.dict -max_len=4096 -timeout=10 -rss_limit_mb=4096 \
  -max_total_time="$seconds" -print_final_stats=1 \
  -artifact_prefix="$dir/crashes/" >"$dir/fuzz.log" 2>&1
status=$?
set -e
# The full log (every new unit, the recommended dictionary) stays in build-fuzz/fuzz.log.
grep -v -E '^#[0-9]+.*(NEW|REDUCE)|^"|^###### |^\s+NEW_FUNC' "$dir/fuzz.log" | tail -40
grep -Eo 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9a-zA-Z]+' "$dir/fuzz.log" | tail -1 || true
if [ "$status" -ne 0 ]; then
  echo "fuzz.sh: the fuzzer stopped with status $status; reproducer(s) in $dir/crashes/:" >&2
  ls -l "$dir/crashes/" >&2
  exit 1
fi
echo "fuzz.sh: no crash in ${seconds}s"
