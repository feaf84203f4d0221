#!/usr/bin/env python3
"""Emulator speed benchmark: the C kernels of bench/kernels/ built at -O2 and run with
`lanaikit exec --stats` (instruction and cycle counting on, as always).

For each kernel it reports
  * guest instructions executed (exact, from --stats),
  * guest MIPS = guest instructions per wall microsecond of the interpreter loop
    (median of --runs runs; exec times only cpu.run(), not loading),
  * host instructions per guest instruction, from `valgrind --tool=callgrind` with
    collection limited to the interpreter (`Interp::run`), so process start-up and LLVM
    initialisation are not counted. This number is stable on a noisy machine.
and the geometric mean of the MIPS column.

usage: bench/run_bench.py --lanaikit build/tools/lanaikit [--runs 5] [--no-callgrind]
"""
import argparse
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = ["crc32", "heapsort", "sieve", "matmul", "ptrchase", "tokenize"]


def stats_of(stderr):
    out = {}
    for line in stderr.splitlines():
        m = re.match(r"^(instructions|cycles|stall cycles|mips): ([0-9.]+)$", line)
        if m:
            out[m.group(1)] = float(m.group(2))
    return out


def run_exec(lanaikit, elf):
    p = subprocess.run([lanaikit, "exec", elf, "--stats"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{elf}: exit status {p.returncode}\n{p.stderr}")
    return p.stdout, stats_of(p.stderr)


def callgrind_host_insns(lanaikit, elf, workdir):
    out = os.path.join(workdir, "callgrind.out")
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
           "--toggle-collect=*Interp::run*", lanaikit, "exec", elf]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"callgrind failed on {elf}:\n{p.stderr[-2000:]}")
    with open(out) as f:
        for line in f:
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    sys.exit("no totals in callgrind output")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lanaikit", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--kernels", nargs="*", default=KERNELS)
    args = ap.parse_args()
    lanaikit = os.path.abspath(args.lanaikit)
    use_callgrind = not args.no_callgrind and shutil.which("valgrind")

    rows = []
    with tempfile.TemporaryDirectory() as work:
        for k in args.kernels:
            elf = os.path.join(work, k + ".elf")
            src = os.path.join(HERE, "kernels", k + ".c")
            subprocess.run([lanaikit, "build", "-O2", "-o", elf, src], check=True)
            outputs, mips, insns = set(), [], None
            for _ in range(args.runs):
                stdout, st = run_exec(lanaikit, elf)
                outputs.add(stdout)
                mips.append(st["mips"])
                insns = int(st["instructions"])
                cycles = int(st["cycles"])
            if len(outputs) != 1:
                sys.exit(f"{k}: output differs between runs")
            host = callgrind_host_insns(lanaikit, elf, work) if use_callgrind else None
            rows.append((k, insns, cycles, statistics.median(mips), min(mips), max(mips),
                         host / insns if host else None, outputs.pop().strip()))
            print(f"  {k}: done", file=sys.stderr)

    print(f"{'kernel':10} {'guest insns':>12} {'cycles':>12} {'MIPS median':>12} "
          f"{'(min-max)':>15} {'host/guest':>10}  checksum")
    for k, insns, cycles, med, lo, hi, hpg, out in rows:
        hpg_s = f"{hpg:10.2f}" if hpg is not None else f"{'-':>10}"
        print(f"{k:10} {insns:12d} {cycles:12d} {med:12.1f} {f'({lo:.0f}-{hi:.0f})':>15} "
              f"{hpg_s}  {out}")
    geo = math.exp(sum(math.log(r[3]) for r in rows) / len(rows))
    print(f"geometric mean MIPS (median of {args.runs} runs each): {geo:.1f}")
    if use_callgrind:
        hpgs = [r[6] for r in rows]
        geo_h = math.exp(sum(math.log(h) for h in hpgs) / len(hpgs))
        print(f"geometric mean host instructions per guest instruction: {geo_h:.2f}")


if __name__ == "__main__":
    main()
