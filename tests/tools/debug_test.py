#!/usr/bin/env python3
"""End-to-end tests of `lanaikit debug` beyond cli_test.py's: the instruction budget,
Ctrl-C (SIGINT) while the program runs, and (when present) next/finish/print/restart.

usage: debug_test.py --lanaikit PATH
Prints one line per check and a final 'N passed, M failed'; exits non-zero on failure.
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile

LOOP_C = r"""
int main(void) { for (volatile int i = 0;; ++i) {} }
"""


class Checker:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print(f"  ok   {name}")
        else:
            self.failed += 1
            print(f"  FAIL {name}\n       {detail}")


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lanaikit", required=True)
    args = ap.parse_args()
    lk = os.path.abspath(args.lanaikit)
    c = Checker()

    with tempfile.TemporaryDirectory() as work:
        def build(name, text, *flags):
            src = os.path.join(work, name)
            with open(src, "w") as f:
                f.write(text)
            out = os.path.join(work, os.path.splitext(name)[0] + ".elf")
            p = run([lk, "build", *flags, "-o", out, src])
            c.check(f"build {name}", p.returncode == 0, p.stderr)
            return out

        loop = build("loop.c", LOOP_C, "-O1", "-g")

        # --- the instruction budget ---------------------------------------------------
        p = run([lk, "debug", "--budget", "5000", loop], input="run\ninfo\ncontinue\nstep 3\nquit\n")
        out = p.stdout
        c.check("budget: run of an endless loop returns with the budget message and the position",
                re.search(r"stopped after 5000 instructions \(the budget; `budget N` changes it\)\n"
                          r"0x[0-9a-f]{8}: .*main\+0x[0-9a-f]+ \(loop\.c:2\)", out) is not None, out)
        c.check("budget: info counts the instructions run", "5000 instructions," in out, out)
        c.check("budget: each command has its own budget (continue runs 5000 more)",
                out.count("stopped after 5000 instructions") == 2, out)
        c.check("budget: a step within the budget is still a step", "stopped: step" in out
                and p.returncode == 0, (p.returncode, out))
        p = run([lk, "debug", loop], input="budget 1000\nbudget\nrun\nstep 2000\nbudget 0\nquit\n")
        out = p.stdout
        c.check("budget command sets and shows it",
                out.count("budget: 1000 instructions per command") == 2
                and "budget: none (Ctrl-C stops the program)" in out, out)
        c.check("budget command: step N stops at the budget",
                out.count("stopped after 1000 instructions (the budget") == 2, out)
        p = run([lk, "debug", loop], input="budget lots\nquit\n")
        c.check("budget command: a bad count is an error, the session goes on",
                "error:" in p.stdout and "'lots'" in p.stdout and p.returncode == 0, p.stdout)
        p = run([lk, "debug", "--budget", "x", loop])
        c.check("--budget with a bad count is a usage error", p.returncode == 2 and "'x'" in p.stderr,
                (p.returncode, p.stderr))
        p = run([lk, "debug", "--help"])
        c.check("debug --help documents the budget and Ctrl-C",
                p.returncode == 0 and "--budget N" in p.stdout and "Ctrl-C" in p.stdout, p.stdout)

        # --- Ctrl-C while the program runs ----------------------------------------------
        # No budget: only the interrupt can stop the loop. The debugger says "running from"
        # (flushed) before it runs, so the signal arrives while the program runs (or just
        # before: the flag is checked before the first slice too).
        proc = subprocess.Popen([lk, "debug", "--budget", "0", loop], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        proc.stdin.write("run\n")
        proc.stdin.flush()
        first = proc.stdout.readline()
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate("regs\ninfo\nquit\n", timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        c.check("SIGINT: the debugger reports it is running", first.startswith("running from 0x00000000 "),
                first)
        c.check("SIGINT stops the program and prints the position",
                re.search(r"interrupted after \d+ instructions\n0x[0-9a-f]{8}: ", out) is not None, (out, err))
        c.check("SIGINT: the debugger lives on and accepts regs, info and quit",
                "%r31" in out and "instructions," in out and proc.returncode == 0, (proc.returncode, out, err))

    print(f"{c.passed} passed, {c.failed} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
