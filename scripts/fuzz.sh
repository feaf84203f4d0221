#!/usr/bin/env bash
# Runs one of the libFuzzer targets of tests/fuzz (README there says what each checks).
#   scripts/fuzz.sh [TARGET] [SECONDS]    TARGET: fw (default), image, link, cpu, lua, packet,
#                                         cell;
#                                         SECONDS default 60; FUZZ_SEED=N fixes the seed
# Configures build-fuzz with clang-14 and -DLANAIKIT_FUZZ=ON, builds only that target, and
# runs it over build-fuzz/corpus-TARGET (fw: build-fuzz/corpus), seeded from the checked-in
# seeds (tests/fuzz/corpus*/) or, for link, from objects the toolchain produces; the
# checked-in corpus is never modified.
# FUZZ_NO_BUILD=1 runs the target as already built (several long runs side by side while
# the source tree changes); FUZZ_TIMEOUT=S replaces the target's per-input timeout (a long
# run niced beside builds and test suites is starved for tens of seconds at a time, and
# libFuzzer's timeout is wall-clock: an hour-long run there uses 600).
# Exits non-zero on any crash, sanitizer report, timeout or out-of-memory; the reproducer
# is left in build-fuzz/crashes/ (commit it to tests/fuzz/crashes/).
set -euo pipefail
cd "$(dirname "$0")/.."
target=fw
if [ $# -gt 0 ] && ! [[ "$1" =~ ^[0-9]+$ ]]; then
  target="$1"
  shift
fi
seconds="${1:-60}"
dir=build-fuzz

# Per target: the corpus directory, the checked-in seeds, and libFuzzer options.
case "$target" in
  # fw: 30 s, because an hour-long run beside builds once stopped on an input that takes
  # 0.2 s (ASan's quarantine freeing a large SourceFile while the process was starved).
  fw)     corpus="$dir/corpus"; seeds=tests/fuzz/corpus
          opts=(-dict=tests/fuzz/fw.dict -max_len=4096 -timeout=30) ;;
  image)  corpus="$dir/corpus-image"; seeds=tests/fuzz/corpus-image; opts=(-max_len=65536 -timeout=10) ;;
  # link: inputs take milliseconds; 30 s, because on a loaded machine ASan returning memory
  # to the system once stretched an ordinary input past 10 s.
  link)   corpus="$dir/corpus-link"; seeds=; opts=(-max_len=131072 -timeout=30) ;;
  cpu)    corpus="$dir/corpus-cpu"; seeds=tests/fuzz/corpus-cpu; opts=(-max_len=2100 -timeout=10) ;;
  lua)    corpus="$dir/corpus-lua"; seeds=tests/fuzz/corpus-lua; opts=(-max_len=1024 -timeout=30) ;;
  packet) corpus="$dir/corpus-packet"; seeds=tests/fuzz/corpus-packet
          opts=(-max_len=20000 -timeout=120) ;;
  # cell: an input is a DART cluster's run of up to a few hundred cells (tens of ms).
  cell)   corpus="$dir/corpus-cell"; seeds=tests/fuzz/corpus-cell; opts=(-max_len=16384 -timeout=60) ;;
  *) echo "fuzz.sh: unknown target '$target' (fw, image, link, cpu, lua, packet, cell)" >&2; exit 2 ;;
esac
binary="$dir/tests/fuzz/${target}_fuzz"

mkdir -p "$dir"
if [ -z "${FUZZ_NO_BUILD:-}" ]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DLANAIKIT_FUZZ=ON >"$dir/configure.log" 2>&1 || { cat "$dir/configure.log"; exit 1; }
  ninja -C "$dir" -j2 "${target}_fuzz"
fi

# The working corpus lives in the build directory: seeded from the checked-in corpus, it
# keeps what earlier runs found, so repeated local runs go deeper.
mkdir -p "$corpus" "$dir/crashes"
if [ -n "$seeds" ] && [ -d "$seeds" ]; then cp "$seeds"/* "$corpus/"; fi
if [ "$target" = link ]; then LINK_FUZZ_SEEDS="$corpus" "$binary"; fi

# LLVM keeps process-lifetime allocations (ManagedStatic, target registries) that the leak
# checker would report on exit; leaks are not what these targets look for.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
log="$dir/fuzz-$target.log"
# FUZZ_SEED fixes libFuzzer's random seed (CI: a run that passed once passes again, the
# time bound aside); by hand the seed is random.
if [ -n "${FUZZ_SEED:-}" ]; then opts+=(-seed="$FUZZ_SEED"); fi
if [ -n "${FUZZ_TIMEOUT:-}" ]; then opts+=(-timeout="$FUZZ_TIMEOUT"); fi
set +e
# Absolute paths: lua_fuzz works in a temporary directory.
"$binary" "$(realpath "$corpus")" "${opts[@]}" -rss_limit_mb=4096 \
  -max_total_time="$seconds" -print_final_stats=1 \
  -artifact_prefix="$(realpath "$dir/crashes")/$target-" >"$log" 2>&1
status=$?
set -e
# The full log (every new unit, the recommended dictionary) stays in build-fuzz/fuzz-TARGET.log.
grep -v -E '^#[0-9]+.*(NEW|REDUCE)|^"|^###### |^\s+NEW_FUNC' "$log" | tail -40
grep -Eo 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9a-zA-Z]+' "$log" | tail -1 || true
if [ "$status" -ne 0 ]; then
  echo "fuzz.sh: $target: the fuzzer stopped with status $status; reproducer(s) in $dir/crashes/:" >&2
  ls -l "$dir/crashes/" >&2
  exit 1
fi
echo "fuzz.sh: $target: no crash in ${seconds}s"
