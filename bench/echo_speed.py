#!/usr/bin/env python3
"""Simulation speed of the two-node echo ping-pong (lanaikit echo, VMMC platform).

Prints simulated microseconds per wall second and guest instructions per second (median of
--runs runs), and, with callgrind, host instructions per simulated microsecond, per kernel
event and per guest instruction: counts that do not move with the machine's load.

With --baseline OTHER_LANAIKIT the two binaries run alternately (so a change in the
machine's load hits both), each gets its rows, and their echo results (everything but the
wall-time line) must be byte-identical: a speed change must not change what is simulated.
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
COUNTS = re.compile(r"([0-9]+) events, ([0-9]+) CPU batches")


def run(lk, args, wrapper=()):
    out = subprocess.run([*wrapper, lk, "echo", *args], check=True, capture_output=True, text=True)
    m = LINE.search(out.stdout)
    if not m:
        sys.exit("echo_speed: no speed line in:\n" + out.stdout)
    c = COUNTS.search(out.stdout)
    events, batches = (int(c.group(1)), int(c.group(2))) if c else (0, 0)
    result = "\n".join(l for l in out.stdout.splitlines() if not LINE.search(l))
    return float(m.group(1)), float(m.group(2)), int(m.group(4)), events, batches, result


def callgrind(lk, args):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        sim_us, _, insns, events, batches, _ = run(
            lk, args, ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"])
        total = 0
        with open(out) as f:
            for line in f:
                if line.startswith("summary:") or line.startswith("totals:"):
                    total = int(line.split()[1])
    return total, sim_us, insns, events, batches


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lanaikit", required=True)
    ap.add_argument("--baseline", help="another lanaikit to compare with (run alternately)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=500)
    ap.add_argument("--sizes", default="4,64,1024")
    ap.add_argument("--no-profiled", action="store_true")
    ap.add_argument("--no-callgrind", action="store_true")
    a = ap.parse_args()
    args = ["--sizes", a.sizes, "--iterations", str(a.iterations)]
    bins = [("this", a.lanaikit)] + ([("baseline", a.baseline)] if a.baseline else [])
    print(f"echo ping-pong, sizes {a.sizes}, {a.iterations} round trips each, {a.runs} runs")
    print("| binary | mode | simulated us | guest insns | events | CPU batches "
          "| sim us / wall s (median) | guest M insn / s (median) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    modes = [("plain", [])]
    if not a.no_profiled:
        modes.append(("profiled", ["--profile-out", os.path.join(tempfile.gettempdir(), "echo_speed_prof")]))
    medians = {}
    for mode, extra in modes:
        rows = {name: [] for name, _ in bins}
        results = {}
        for _ in range(a.runs):
            for name, lk in bins:
                sim_us, wall, insns, events, batches, result = run(lk, args + extra)
                rows[name].append((sim_us / wall, insns / wall / 1e6, sim_us, insns, events, batches))
                results.setdefault(name, result)
        if a.baseline and results["this"] != results["baseline"]:
            sys.exit(f"echo_speed: the two binaries simulate different results ({mode})")
        for name, _ in bins:
            r = rows[name]
            sim_rate = statistics.median(x[0] for x in r)
            mips = statistics.median(x[1] for x in r)
            medians[(name, mode)] = sim_rate
            print(f"| {name} | {mode} | {r[0][2]:.1f} | {r[0][3]} | {r[0][4]} | {r[0][5]} "
                  f"| {sim_rate:,.0f} | {mips:.1f} |")
    if a.baseline:
        for mode, _ in modes:
            print(f"\n{mode}: this / baseline = "
                  f"{medians[('this', mode)] / medians[('baseline', mode)]:.2f}x (median speeds); "
                  "echo results identical")
    if a.no_callgrind:
        return
    print()
    for name, lk in bins:
        total, sim_us, insns, events, batches = callgrind(lk, args)
        per_event = f", {total / events:,.0f} per event" if events else ""
        print(f"callgrind ({name}): {total:,} host instructions for the whole run (start-up "
              f"included): {total / sim_us:,.0f} per simulated us, {total / insns:.1f} per guest "
              f"instruction{per_event}")


if __name__ == "__main__":
    main()
