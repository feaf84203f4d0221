#!/usr/bin/env python3
"""Code-quality benchmark: the firmware language against clang -O2 (bench/codequality).

Each kernel exists as <kernel>.c and <kernel>.fw (same algorithm, same data). Both are
built at -O2 with `lanaikit build`, run with `lanaikit exec --stats`, their outputs are
checked to be equal, and the executed instruction counts are compared. Then the compile
time of a generated ~2,000-line firmware (gen_big.py) is measured: `lanaikit build -O2`
from source to linked image, median of --runs.

    python3 bench/codequality/run.py --lanaikit build/tools/lanaikit
    cmake --build build --target codequality

Exit status: 0 when every kernel built, ran and printed the same result in both
languages; 1 otherwise. The ratios are reported, not enforced (numbers come from
benchmarks, not tests).
"""
import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = ["checksum", "queue", "header", "tlb", "bounds", "copy"]
TOLERANCE = 0.10          # "within 10%"
COMPILE_TARGET_S = 0.5    # parse to linked image for the 2,000-line firmware


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def build(lanaikit, src, out, opt):
    cmd = [lanaikit, "build", opt, "-I", HERE, "-o", out, src]
    r = run(cmd)
    if r.returncode != 0:
        return (r.stderr or r.stdout).strip()
    return None


def execute(lanaikit, elf):
    r = run([lanaikit, "exec", "--stats", elf])
    m = re.search(r"^instructions: (\d+)$", r.stderr, re.M)
    if r.returncode != 0 or not m:
        return None, r.stdout, "exit %d: %s" % (r.returncode, r.stderr.strip()[-400:])
    return int(m.group(1)), r.stdout, None


def function_size(lanaikit, elf, function):
    """Number of instruction words of `function` (up to the next symbol), from
    `lanaikit disasm --symbols`."""
    r = run([lanaikit, "disasm", "--symbols", elf])
    if r.returncode != 0:
        return None
    count, inside = 0, False
    for line in r.stdout.splitlines():
        m = re.match(r"^<(.+)>:$", line)
        if m:
            inside = m.group(1) == function
            continue
        if inside and re.match(r"^[0-9a-f]{8}:", line):
            count += 1
    return count or None


def kernels(args, tmp):
    rows, ok = [], True
    for k in args.kernels:
        c_elf, fw_elf = os.path.join(tmp, k + "-c.elf"), os.path.join(tmp, k + "-fw.elf")
        row = {"kernel": k}
        for lang, src, elf in (("c", k + ".c", c_elf), ("fw", k + ".fw", fw_elf)):
            err = build(args.lanaikit, os.path.join(HERE, src), elf, args.opt)
            if err:
                row[lang + "_err"] = "build failed: " + err.splitlines()[0][:200]
                if args.verbose:
                    print(err, file=sys.stderr)
                continue
            insns, out, err = execute(args.lanaikit, elf)
            if err:
                row[lang + "_err"] = "run failed: " + err.splitlines()[0][:200]
                continue
            row[lang] = insns
            row[lang + "_out"] = out
            row[lang + "_main"] = function_size(args.lanaikit, elf, "main")
        if "c" in row and "fw" in row and row["c_out"] != row["fw_out"]:
            row["fw_err"] = "output differs: C %r, .fw %r" % (row["c_out"].strip(),
                                                              row["fw_out"].strip())
            del row["fw"]
        if "c" not in row or "fw" not in row:
            ok = False
        rows.append(row)
    return rows, ok


def print_table(rows):
    print("| kernel | C insns | language insns | ratio | verdict |")
    print("|---|---:|---:|---:|---|")
    ratios = []
    for r in rows:
        c, fw = r.get("c"), r.get("fw")
        if c is None or fw is None:
            why = r.get("c_err") or r.get("fw_err") or "?"
            print("| %s | %s | %s | - | %s |" % (r["kernel"], c if c else "-", fw if fw else "-",
                                                why.replace("|", "\\|")))
            continue
        ratio = fw / c
        ratios.append(ratio)
        verdict = "within 10%" if ratio <= 1 + TOLERANCE else "slower by %.0f%%" % (100 * (ratio - 1))
        if ratio < 1 - TOLERANCE:
            verdict = "faster by %.0f%%" % (100 * (1 - ratio))
        print("| %s | %d | %d | %.3f | %s |" % (r["kernel"], c, fw, ratio, verdict))
    if ratios:
        geo = statistics.geometric_mean(ratios)
        print("| geometric mean | | | %.3f | %s |" %
              (geo, "within 10%" if abs(geo - 1) <= TOLERANCE else "outside 10%"))
    print()
    print("(whole-program instruction counts from `lanaikit exec --stats`, including data "
          "set-up and printing, identical in both versions; static size of main in "
          "instructions, C/.fw: %s)" % ", ".join(
              "%s %s/%s" % (r["kernel"], r.get("c_main", "-"), r.get("fw_main", "-"))
              for r in rows))


def compile_time(args, tmp):
    big = os.path.join(tmp, "big.fw")
    r = run([sys.executable, os.path.join(HERE, "gen_big.py"), "-o", big])
    if r.returncode != 0:
        print("gen_big.py failed: " + r.stderr, file=sys.stderr)
        return False
    lines = sum(1 for _ in open(big))
    elf = os.path.join(tmp, "big.elf")
    times, cpu = [], []
    for _ in range(args.runs):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        err = build(args.lanaikit, big, elf, args.opt)
        times.append(time.perf_counter() - t0)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime))
        if err:
            print("\ncompile time: building the generated %d-line firmware failed:\n%s" %
                  (lines, err[:2000]))
            return False
    med, cpu_med = statistics.median(times), statistics.median(cpu)
    # On a shared machine the wall time includes waiting for a core; the CPU time (user +
    # system of the lanaikit process) is the compiler's own cost.
    print("\ncompile time: %d-line generated firmware (gen_big.py), `lanaikit build %s`, "
          "source to linked image, median of %d:" % (lines, args.opt, len(times)))
    print("  wall %.3f s (min %.3f, max %.3f): %s" %
          (med, min(times), max(times),
           "target < %.1f s met" % COMPILE_TARGET_S if med < COMPILE_TARGET_S else
           "over the %.1f s target (load average %.1f)" % (COMPILE_TARGET_S, os.getloadavg()[0])))
    print("  CPU  %.3f s (user + system): %s" %
          (cpu_med, "target < %.1f s met" % COMPILE_TARGET_S if cpu_med < COMPILE_TARGET_S
           else "over the %.1f s target" % COMPILE_TARGET_S))
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lanaikit", required=True, help="path to the lanaikit command")
    ap.add_argument("--opt", default="-O2", help="optimisation level for both (default -O2)")
    ap.add_argument("--runs", type=int, default=5, help="compile-time repetitions (median)")
    ap.add_argument("--kernels", nargs="*", default=KERNELS)
    ap.add_argument("--no-compile-time", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true", help="print build errors in full")
    args = ap.parse_args()
    args.lanaikit = os.path.abspath(args.lanaikit)
    with tempfile.TemporaryDirectory(prefix="lanaikit-cq-") as tmp:
        rows, ok = kernels(args, tmp)
        print_table(rows)
        if not args.no_compile_time:
            ok = compile_time(args, tmp) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
