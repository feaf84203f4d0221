#!/bin/sh
# Cluster simulation speed (issue 16): user CPU seconds of the main job, VMMC's main job,
# the VMMC stress on 2 and 4 nodes and the echo experiment, for one or two lanaikit
# binaries (before / after), the median of RUNS runs each (default 1), and the ratios.
#
#   sh bench/cluster_speed/run.sh BUILD_BEFORE/tools/lanaikit [BUILD_AFTER/tools/lanaikit]
#
# BEFORE_TREE=DIR runs the before binary in DIR (its own source tree, so that it runs its
# own version of the scripts: an old binary finds its Lua libraries relative to its tree).
# Each binary runs every command once first, untimed, so its firmware cache is warm (a
# cold cache times the firmware compiler, not the simulation).
#
# Run from the source tree (the scripts are found relative to it). RUNS=3 gives the median
# of three runs per cell (one by default): on the shared machine user time moves by 20-30%
# with the load, so also quote the callgrind table (CALLGRIND=1: host instructions of short
# runs, start-up included), which does not. A script missing from the before tree gets "-".
set -e
before=${1:+$(realpath "$1")}
after=${2:+$(realpath "$2")}
[ -n "$before" ] || { echo "usage: $0 LANAIKIT_BEFORE [LANAIKIT_AFTER]" >&2; exit 2; }

here=$(pwd)
tree() { # binary: the directory it runs in
  if [ "$1" = "$before" ] && [ -n "$BEFORE_TREE" ]; then echo "$BEFORE_TREE"; else echo "$here"; fi
}
runs=${RUNS:-1}
cpu() { # binary, arguments...: user seconds, the median of RUNS runs (after a warm-up run)
  b=$1; shift
  # A script the binary's tree does not have (an old tree): no figure.
  if [ "$1" = run ] && [ ! -e "$(tree "$b")/$2" ]; then echo "-"; return; fi
  (cd "$(tree "$b")" && "$b" "$@" >/dev/null 2>&1) || { echo "failed: $b $*" >&2; exit 1; }
  k=0
  while [ "$k" -lt "$runs" ]; do
    (cd "$(tree "$b")" && /usr/bin/time -f %U -a -o /tmp/cluster_speed.$$ "$b" "$@" >/dev/null 2>&1) ||
      { echo "failed: $b $*" >&2; exit 1; }
    k=$((k + 1))
  done
  sort -n /tmp/cluster_speed.$$ | sed -n "$(( (runs + 1) / 2 ))p"
  rm -f /tmp/cluster_speed.$$
}
ir() { # binary, arguments...: callgrind's instruction total (after a warm-up run)
  b=$1; shift
  (cd "$(tree "$b")" && "$b" "$@" >/dev/null 2>&1 &&
     valgrind --tool=callgrind --callgrind-out-file=/dev/null "$b" "$@" 2>&1 >/dev/null |
     sed -n 's/.*refs: *//p' | tr -d ,)
}

# table TITLE MEASURE RATIO_DECIMALS: one row per "name|lanaikit arguments" line on stdin,
# measured by MEASURE (cpu or ir) with the before binary and, when given, the after one.
table() {
  printf '| %s | before |%s\n' "$1" "${after:+ after | ratio |}"
  printf '|---|---|%s\n' "${after:+---|---|}"
  while IFS='|' read -r name args; do
    # shellcheck disable=SC2086
    b=$($2 "$before" $args)
    if [ -n "$after" ]; then
      # shellcheck disable=SC2086
      a=$($2 "$after" $args)
      printf '| %s | %s | %s | %s |\n' "$name" "$b" "$a" \
        "$(echo "$b $a" | awk -v d="$3" '{ if ($1 == "-" || $2 <= 0) print "-"; else printf "%.*f", d, $1 / $2 }')"
    else
      printf '| %s | %s |\n' "$name" "$b"
    fi
  done
}

table "run (user s)" cpu 2 <<LIST
main.lua|run lua-scripts/main.lua
vmmc/main.lua|run lua-scripts/vmmc/main.lua
stress 2 nodes, 2000|run lua-scripts/vmmc/stress.lua --nodes 2 --messages 2000 --quiet
stress 4 nodes, 2000|run lua-scripts/vmmc/stress.lua --messages 2000 --quiet
echo|echo
LIST
if [ -n "$CALLGRIND" ]; then
  echo
  table "callgrind, host instructions" ir 3 <<LIST
main.lua|run lua-scripts/main.lua
stress 4 nodes, 200|run lua-scripts/vmmc/stress.lua --messages 200 --quiet
stress 2 nodes, 2000|run lua-scripts/vmmc/stress.lua --nodes 2 --messages 2000 --quiet
echo|echo
LIST
fi
rm -f /tmp/cluster_speed.$$
