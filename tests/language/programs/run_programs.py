#!/usr/bin/env python3
"""Builds every tests/language/programs/*.fw with `lanaikit build` at -O0, -O2 and -Os -g
and runs it with `lanaikit exec`: stdout must equal the program's `// expect:` block and
the exit status its `// status: N` line (default 0). `// with: a.c b.s` links more
inputs (paths relative to the program). `// levels: -O0` restricts a program to the listed
levels (for behaviour only unoptimised code defines, such as division by zero)."""
import argparse
import os
import subprocess
import sys


def expectation(path):
    out, status, inside, extra, levels = [], 0, False, [], None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("// with:"):
                extra += [os.path.join(os.path.dirname(path), p)
                          for p in line.split(":", 1)[1].split()]
            elif line.startswith("// levels:"):
                levels = line.split(":", 1)[1].split()
            elif line.startswith("// status:"):
                status = int(line.split(":", 1)[1])
            elif line.startswith("// expect:"):
                inside = True
            elif inside and line.startswith("//"):
                out.append(line[3:] if line.startswith("// ") else line[2:])
            else:
                inside = False
    return "".join(l + "\n" for l in out), status, extra, levels


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lanaikit", required=True)
    ap.add_argument("--lib", required=True, help="firmware/lib (debug.fw, lanai.fw)")
    ap.add_argument("--work", required=True)
    ap.add_argument("programs", nargs="*")
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    progs = args.programs or sorted(
        os.path.join(here, p) for p in os.listdir(here) if p.endswith(".fw"))
    os.makedirs(args.work, exist_ok=True)
    failures = 0
    for prog in progs:
        want_out, want_status, extra, levels = expectation(prog)
        name = os.path.splitext(os.path.basename(prog))[0]
        for flags in (["-O0"], ["-O2"], ["-Os", "-g"]):
            if levels is not None and flags[0] not in levels:
                continue
            elf = os.path.join(args.work, name + "".join(flags) + ".elf")
            b = subprocess.run([args.lanaikit, "build", *flags, "-I", args.lib, "-o", elf, prog, *extra],
                               capture_output=True, text=True)
            if b.returncode != 0:
                print(f"FAIL {name} {flags}: build failed\n{b.stderr}")
                failures += 1
                continue
            r = subprocess.run([args.lanaikit, "exec", "--max-insns", "200000000", elf],
                               capture_output=True, text=True, timeout=300)
            if r.stdout != want_out or r.returncode != want_status:
                print(f"FAIL {name} {flags}: status {r.returncode} (want {want_status})")
                print("--- got\n" + r.stdout + "--- want\n" + want_out + "--- stderr\n" + r.stderr)
                failures += 1
            else:
                print(f"ok   {name} {' '.join(flags)}")
    if failures:
        print(f"{failures} failure(s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
