#!/usr/bin/env bash
# The main job: build everything, then build and run an example NIC program on the
# emulated Lanai processor, with its instruction and cycle counts.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
lk=build/tools/lanaikit
mkdir -p build/examples
$lk build -O2 -g -o build/examples/checksum.elf examples/checksum.c
echo "== lanaikit exec examples/checksum.c (-O2) =="
set +e
$lk exec build/examples/checksum.elf --stats
status=$?
set -e
echo "exit status: $status"
