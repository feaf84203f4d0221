#!/usr/bin/env bash
# The main job: build everything, then run VMMC on two simulated nodes of the paper's
# testbed (Pentium 166 hosts, Intel 430FX PCI, LANai 4.1 Myrinet cards, one M2F-SW8
# switch): the LANai control program firmware/vmmc/vmmc.fw, the host library and daemons
# (host/vmmc/) and lua-scripts/vmmc/main.lua print one-way latency and bandwidth per
# message size, the bidirectional total, the control program's instructions per packet,
# where one word's time goes, and the comparison with the paper (docs/vmmc.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
lk=build/tools/lanaikit
echo "== lanaikit run lua-scripts/vmmc/main.lua =="
$lk run lua-scripts/vmmc/main.lua --csv-dir build/vmmc
