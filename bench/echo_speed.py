#!/usr/bin/env python3
"""Simulation speed of the two-node echo ping-pong (lanaikit echo, VMMC platform).

Prints simulated microseconds per wall second and guest instructions per second (median of
--runs runs), and, with callgrind, host instructions per simulated microsecond and per
guest instruction: counts that do not move with the machine's load.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

LINE = re.compile(r"simulated ([0-9.]+) us in ([0-9.]+) s of wall time: ([0-9]+) simulated us per "
                  r"wall second; ([0-9]+) guest instructions \(([0-9.]+) M/s\)")


def run(lk, args, wrapper=()):
    out = subprocess.run([*wrapper, lk, "echo", *args], check=True, capture_output=True, text=True)
    m = LINE.search(out.stdout)
    if not m:
        sys.exit("echo_speed: no speed line in:\n" + out.stdout)
    return float(m.group(1)), float(m.group(2)), int(m.group(4)), out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lanaikit", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=500)
    ap.add_argument("--sizes", default="4,64,1024")
    ap.add_argument("--no-callgrind", action="store_true")
    a = ap.parse_args()
    args = ["--sizes", a.sizes, "--iterations", str(a.iterations)]
    print(f"echo ping-pong, sizes {a.sizes}, {a.iterations} round trips each, {a.runs} runs")
    print(f"| mode | simulated us | guest insns | sim us / wall s (median) | guest M insn / s (median) |")
    print(f"|---|---:|---:|---:|---:|")
    for mode, extra in (("plain", []), ("profiled", ["--profile-out", os.devnull + "-echo-prof"])):
        if mode == "profiled":
            extra = ["--profile-out", os.path.join(tempfile.gettempdir(), "echo_speed_prof")]
        rows = []
        for _ in range(a.runs):
            sim_us, wall, insns, _ = run(a.lanaikit, args + extra)
            rows.append((sim_us / wall, insns / wall / 1e6, sim_us, insns))
        sim_rate = statistics.median(r[0] for r in rows)
        mips = statistics.median(r[1] for r in rows)
        print(f"| {mode} | {rows[0][2]:.1f} | {rows[0][3]} | {sim_rate:,.0f} | {mips:.1f} |")
    if a.no_callgrind:
        return
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        sim_us, _, insns, _ = run(a.lanaikit, args,
                                  ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"])
        total = 0
        with open(out) as f:
            for line in f:
                if line.startswith("summary:") or line.startswith("totals:"):
                    total = int(line.split()[1])
        print(f"\ncallgrind: {total:,} host instructions for the whole run (start-up included): "
              f"{total / sim_us:,.0f} per simulated us, {total / insns:.1f} per guest instruction")


if __name__ == "__main__":
    main()
