#!/bin/sh
# Doze changes nothing (vm/doze.h, issue 16): each script below runs with idle chips dozing
# (the default) and with LANAIKIT_DOZE=0 (every instruction run), and everything it prints
# must be the same, byte for byte, except its wall-clock lines. Together they cover every
# protocol's main-job row (latency, bandwidth, instructions per packet from the profiler),
# the stress runs of VMMC, BIP and Hamlyn, raw traffic on 8 nodes, and UDM's cycle tables.
#
#   sh tests/sim/doze_compare.sh LANAIKIT SOURCE_DIR
set -eu
lanaikit=$1
cd "$2"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
n=0
while read -r script; do
  [ -n "$script" ] || continue
  n=$((n + 1))
  for doze in 1 0; do
    # shellcheck disable=SC2086
    LANAIKIT_DOZE=$doze "$lanaikit" run $script > "$out/$n.$doze" 2>&1 ||
      { echo "FAILED (LANAIKIT_DOZE=$doze): $script"; cat "$out/$n.$doze"; exit 1; }
    grep -v -i -E 'wall|\(CPU\)|cpu_s' "$out/$n.$doze" > "$out/$n.$doze.cmp" || true
  done
  if cmp -s "$out/$n.1.cmp" "$out/$n.0.cmp"; then
    echo "same: $script ($(wc -l < "$out/$n.1.cmp") lines)"
  else
    echo "DIFFERENT with and without doze: $script"
    diff "$out/$n.0.cmp" "$out/$n.1.cmp" | head -20
    status=1
  fi
done <<LIST
lua-scripts/main.lua
lua-scripts/vmmc/stress.lua --messages 300 --quiet
lua-scripts/bip/stress.lua --messages 300
lua-scripts/hamlyn/stress.lua --messages 300
bench/cluster_speed/scale.lua --nodes 8 --count 50
lua-scripts/udm/tables.lua
LIST
exit $status
