#!/usr/bin/env python3
"""Host memory per simulated node: peak RSS of a cluster run at N and 2N nodes.

usage: bench/cluster_memory/run.py --lanaikit build/tools/lanaikit [--nodes 128 256 512]
                                   [--messages 4]

Runs lua-scripts/examples/big_cluster.lua (raw messages between every node and its partner
across the network, every byte checked) once per size and prints, per size, the peak
resident set (VmHWM, as the script reports it), the wall time, and the memory per node
between consecutive sizes: (RSS(b) - RSS(a)) / (b - a), which leaves out what every run
pays once (the executable, LLVM, Lua, the firmware image). docs/sim.md quotes the result.
"""
import argparse
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "lua-scripts", "examples", "big_cluster.lua")


def run(lanaikit, nodes, messages):
    t0 = time.perf_counter()
    p = subprocess.run([lanaikit, "run", SCRIPT, "--nodes", str(nodes), "--messages", str(messages)],
                       capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"{nodes} nodes: exit status {p.returncode}\n{p.stdout}{p.stderr}")
    m = re.search(r"peak RSS (\d+) KB", p.stdout)
    if not m:
        sys.exit(f"{nodes} nodes: no peak RSS in the output\n{p.stdout}")
    return int(m.group(1)), wall


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lanaikit", required=True)
    ap.add_argument("--nodes", type=int, nargs="*", default=[128, 256, 512])
    ap.add_argument("--messages", type=int, default=4)
    args = ap.parse_args()
    lanaikit = os.path.abspath(args.lanaikit)
    rows = [(n, *run(lanaikit, n, args.messages)) for n in sorted(args.nodes)]
    print(f"{'nodes':>6} {'peak RSS MB':>12} {'wall s':>8} {'KB per node (from previous)':>28}")
    prev = None
    for n, kb, wall in rows:
        per = f"{(kb - prev[1]) / (n - prev[0]):28.0f}" if prev else f"{'-':>28}"
        print(f"{n:6d} {kb / 1024:12.1f} {wall:8.2f} {per}")
        prev = (n, kb)


if __name__ == "__main__":
    main()
