#!/usr/bin/env bash
# The main job: build everything, then
#  1. lua-scripts/main.lua: ONE table of every protocol lanaikit has (each
#     lua-scripts/<protocol>/headline.lua; today VMMC and raw), each on its paper's testbed
#     beside the paper's headline numbers (one-word one-way latency, peak bandwidth,
#     instructions per packet), then all of them on one common testbed (VMMC's: Pentium
#     166 hosts, Intel 430FX PCI, LANai 4.1 Myrinet cards, one M2F-SW8 switch);
#  2. lua-scripts/vmmc/main.lua: VMMC in detail on that testbed (firmware/vmmc/vmmc.fw, the
#     host library and daemons of host/vmmc/): one-way latency and bandwidth per message
#     size, the bidirectional total, the control program's instructions per packet, where
#     one word's time goes, and the comparison with the paper (docs/vmmc.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
lk=build/tools/lanaikit
echo "== lanaikit run lua-scripts/main.lua =="
$lk run lua-scripts/main.lua
echo
echo "== lanaikit run lua-scripts/vmmc/main.lua =="
$lk run lua-scripts/vmmc/main.lua --csv-dir build/vmmc
