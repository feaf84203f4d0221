#!/bin/sh
# Doze changes nothing (vm/doze.h, issue 16): each script below runs with idle chips dozing
# and with LANAIKIT_DOZE=0 (every instruction run), and everything it prints must be the
# same, byte for byte, except its wall-clock lines. Together they cover every protocol's
# main-job row (latency, bandwidth, instructions per packet from the profiler), the stress
# runs of VMMC, BIP and Hamlyn, raw traffic on 8 nodes, and UDM's cycle tables.
# With LANAIKIT_HOLD=0 on both sides every chunk is an event, so even the event-level
# figures (a stress run's kernel trace hash, an event count) must agree. By default a
# dozing chip also takes chunks held back without events (net/link.h): that run must print
# the same but for those event-level figures.
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
  for run in doze:1:0 plain:0:0 held:1:1; do
    name=${run%%:*}
    flags=${run#*:}
    # shellcheck disable=SC2086
    LANAIKIT_DOZE=${flags%%:*} LANAIKIT_HOLD=${flags#*:} "$lanaikit" run $script > "$out/$n.$name" 2>&1 ||
      { echo "FAILED ($name): $script"; cat "$out/$n.$name"; exit 1; }
    grep -v -i -E 'wall|\(CPU\)|cpu_s' "$out/$n.$name" > "$out/$n.$name.cmp" || true
    # The event-level figures, which held-back chunks change by design.
    grep -v 'stress-hash' "$out/$n.$name.cmp" | sed -E 's/ events [0-9]+//' > "$out/$n.$name.obs" || true
  done
  if cmp -s "$out/$n.doze.cmp" "$out/$n.plain.cmp"; then
    echo "same: $script ($(wc -l < "$out/$n.doze.cmp") lines)"
  else
    echo "DIFFERENT with and without doze: $script"
    diff "$out/$n.plain.cmp" "$out/$n.doze.cmp" | head -20
    status=1
  fi
  if cmp -s "$out/$n.held.obs" "$out/$n.plain.obs"; then
    echo "same observables with held-back chunks: $script"
  else
    echo "DIFFERENT with held-back chunks: $script"
    diff "$out/$n.plain.obs" "$out/$n.held.obs" | head -20
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
