#!/usr/bin/env python3
"""Instructions per call of the runtime's multiply and divide helpers, before and after.

For every (operation, operand class) row, helpers.c is built at -O2 with
`lanaikit build` twice (REPS=1 and REPS=2) and run with `lanaikit exec --stats`; the
difference of the two instruction counts is one pass over the 64 operand pairs. The
same difference for the xor-only loop is subtracted, and the rest divided by 64: the
mean emulated instructions per call, call sequence included. Counts are exact and
machine independent (the operands are a fixed pseudo-random sequence).

"before" links the helpers as they were before issue 19 (bench/runtime/before/*.c,
given as extra inputs so the linker does not pull the runtime's objects); "after"
links the runtime's current objects. Both must give the same program result.

  python3 bench/runtime/run.py --lanaikit build/tools/lanaikit [--only mul32]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OPS = ["none", "none64", "mul32", "udiv32", "umod32", "sdiv32", "smod32", "mul64", "udiv64", "sdiv64"]
CLASSES = ["small8", "by8", "by16", "large", "lt", "pow2", "mixed"]
CLASS_TEXT = {
    "small8": "both < 2^8",
    "by8": "32-bit x (< 2^8)",
    "by16": "32-bit x (< 2^16)",
    "large": "both full width",
    "lt": "dividend < divisor",
    "pow2": "divisor a power of two",
    "mixed": "1..32-bit, random signs",
}
ROWS = [
    ("mul32", ["small8", "by8", "by16", "large", "mixed"]),
    ("udiv32", ["lt", "pow2", "by8", "by16", "large"]),
    ("umod32", ["by8", "large"]),
    ("sdiv32", ["pow2", "by8", "mixed"]),
    ("smod32", ["by8", "mixed"]),
    ("mul64", ["small8", "by16", "large"]),
    ("udiv64", ["lt", "by8", "by16", "large"]),
    ("sdiv64", ["mixed"]),
]
HELPER = {"mul32": "__mulsi3", "udiv32": "__udivsi3", "umod32": "__umodsi3", "sdiv32": "__divsi3",
          "smod32": "__modsi3", "mul64": "__muldi3", "udiv64": "__udivdi3", "sdiv64": "__divdi3"}
BEFORE = [os.path.join(HERE, "before", f) for f in ("mulsi3.c", "div32.c", "muldi3.c", "div64.c")]


def measure(lk, work, op, cls, before):
    counts, results = [], []
    for reps in (1, 2):
        elf = os.path.join(work, "%s-%s-%d-%s.elf" % (op, cls, reps, "b" if before else "a"))
        cmd = [lk, "build", "-O2", "-DOP=%d" % OPS.index(op), "-DCLASS=%d" % CLASSES.index(cls),
               "-DREPS=%d" % reps, "-o", elf, os.path.join(HERE, "helpers.c")]
        if before:
            cmd += BEFORE
        subprocess.run(cmd, check=True)
        p = subprocess.run([lk, "exec", "--stats", elf], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        m = re.search(r"instructions: (\d+)", p.stderr)
        if not m:
            sys.exit("no instruction count from %s: %s" % (elf, p.stderr))
        counts.append(int(m.group(1)))
        results.append(p.returncode)
    return counts[1] - counts[0], results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lanaikit", required=True)
    ap.add_argument("--only", help="one operation (mul32, udiv32, ...)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        base = {}
        print("| helper | operands | before | after | after/before |")
        print("|---|---|---:|---:|---:|")
        for op, classes in ROWS:
            if args.only and op != args.only:
                continue
            none = "none64" if op.endswith("64") else "none"
            for cls in classes:
                if (none, cls) not in base:
                    base[(none, cls)] = measure(args.lanaikit, work, none, cls, False)[0]
                b, rb = measure(args.lanaikit, work, op, cls, True)
                a, ra = measure(args.lanaikit, work, op, cls, False)
                if rb != ra:
                    sys.exit("%s %s: before and after disagree (exit %s vs %s)" % (op, cls, rb, ra))
                pb = (b - base[(none, cls)]) / 64.0
                pa = (a - base[(none, cls)]) / 64.0
                print("| `%s` | %s | %.1f | %.1f | %.2f |" % (HELPER[op], CLASS_TEXT[cls], pb, pa, pa / pb))
                sys.stdout.flush()


if __name__ == "__main__":
    main()
