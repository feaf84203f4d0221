#!/usr/bin/env bash
# The main job: build everything, then run the two-node experiment on the simulated VMMC
# testbed (two hosts, two LANai chips, one Myrinet switch): one-way latency per message
# size, ping-pong bandwidth, the firmware's instructions per packet, where one message's
# time went, and the simulator's speed. The control program is firmware/echo/echo.c; the
# firmware profile (per-handler calls, hottest functions and lines) goes to
# build/echo-profile.node<i>.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
lk=build/tools/lanaikit
echo "== lanaikit echo --platform vmmc =="
$lk echo --platform vmmc --iterations 20 --profile-out build/echo-profile
