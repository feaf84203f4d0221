#!/usr/bin/env python3
"""Firmware patterns three ways: the language, C at -O2 and hand-written Lanai assembly.

Each pattern (poll, header, fields, dispatch, ring, pagetable) is one function,
`pat_step(i)`, written as <pattern>.fw, <pattern>.c and <pattern>.s; drive.c (C, -O2)
sets up the pinned state (pat.h / pat.fw), calls it for i = 0..N-1 and prints
"<pattern> <checksum>" over the results and the pinned SRAM region. The three variants
must print the same line. Each is built with N and 2N calls and run with
`lanaikit exec --stats`; the difference of the two instruction counts, divided by N, is
the exact number of instructions per call (the driver's loop included, the same code in
all three). null.s, an empty pat_step of 3 instructions, measures the driver: its count
minus 3 is subtracted to give the instructions inside pat_step, on which the
language/assembly ratio is taken (target: within 10%).

    python3 bench/codequality/firmware/run.py --lanaikit build/tools/lanaikit
    python3 bench/codequality/firmware/run.py --lanaikit ... --check    # outputs only

Exit status 1 when a variant fails to build or run or prints a different line; the
ratios are reported, not enforced.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PATTERNS = ["poll", "header", "fields", "dispatch", "ring", "pagetable"]
VARIANTS = [("fw", "language"), ("c", "C -O2"), ("s", "assembly")]
N = 500


def build_run(lk, work, pattern, variant, iters, source=None):
    elf = os.path.join(work, "%s-%s-%d.elf" % (pattern, variant, iters))
    b = subprocess.run([lk, "build", "-O2", "-I", HERE, "-DPAT=%d" % PATTERNS.index(pattern),
                        "-DITERS=%d" % iters, "-o", elf, os.path.join(HERE, "drive.c"),
                        source or os.path.join(HERE, pattern + "." + variant)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if b.returncode != 0:
        return None, None, "build failed: " + (b.stderr or b.stdout).strip()[:400]
    r = subprocess.run([lk, "exec", "--stats", elf], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    m = re.search(r"^instructions: (\d+)$", r.stderr, re.M)
    if r.returncode != 0 or not m:
        return None, None, "run failed (exit %d): %s" % (r.returncode, r.stderr.strip()[-400:])
    return int(m.group(1)), r.stdout, None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lanaikit", required=True)
    ap.add_argument("--check", action="store_true", help="only check that the three variants agree")
    ap.add_argument("patterns", nargs="*", default=PATTERNS)
    args = ap.parse_args()
    ok = True
    with tempfile.TemporaryDirectory() as work:
        driver = 0.0
        if not args.check:
            counts = []
            for iters in (N, 2 * N):
                n, _, err = build_run(args.lanaikit, work, "poll", "null", iters, os.path.join(HERE, "null.s"))
                if err:
                    sys.exit("null: " + err)
                counts.append(n)
            driver = (counts[1] - counts[0]) / N - 3
            print("Instructions per call of pat_step (the driver's %.0f per call subtracted):" % driver)
            print()
            print("| pattern | language | C -O2 | assembly | language/asm | C/asm |")
            print("|---|---:|---:|---:|---:|---:|")
        for p in args.patterns:
            per, outs = {}, {}
            for v, _ in VARIANTS:
                n1, out, err = build_run(args.lanaikit, work, p, v, N)
                if err:
                    print("%s %s: %s" % (p, v, err), file=sys.stderr)
                    ok = False
                    continue
                outs[v] = out
                if args.check:
                    continue
                n2, out2, err = build_run(args.lanaikit, work, p, v, 2 * N)
                if err:
                    print("%s %s: %s" % (p, v, err), file=sys.stderr)
                    ok = False
                    continue
                per[v] = (n2 - n1) / N - driver
            if len(set(outs.values())) > 1:
                print("%s: the variants disagree: %s" % (p, outs), file=sys.stderr)
                ok = False
            elif args.check and outs:
                print("%s: %s agree: %s" % (p, ", ".join(sorted(outs)), next(iter(outs.values())).strip()))
            if not args.check and len(per) == 3:
                print("| %s | %.1f | %.1f | %.1f | %.2f | %.2f |" % (
                    p, per["fw"], per["c"], per["s"], per["fw"] / per["s"], per["c"] / per["s"]))
            sys.stdout.flush()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
