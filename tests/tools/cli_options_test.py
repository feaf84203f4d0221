#!/usr/bin/env python3
"""Every `lanaikit` command's --help against its parser (tools/cli.h): the help is generated
from the options the command accepts, and this test holds both sides to it.

For every command:
  - `lanaikit CMD --help` exits 0, starts with "usage: lanaikit CMD" and lists every option
    the command had before the move to CLI11 (EXPECTED: none may silently disappear);
  - every option the help lists is accepted by the parser (not an unknown option), and one
    that takes a value, given without it, is exit status 2 with a message naming it;
  - an unknown option is exit status 2, named, with a pointer to `lanaikit CMD --help`.
And: `lanaikit run SCRIPT ARGS...` hands everything after the script, options and `--`
included, to the script as it is; `lanaikit --help` lists every command; `--version`.

usage: cli_options_test.py --lanaikit PATH
Prints one line per check and a final 'N passed, M failed'; exits non-zero on failure.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

from checker import Checker

# The options of each command (as they were documented by the hand-written help).
EXPECTED = {
    "build": ["-O", "-g", "-o", "--sram-size", "-I", "-D", "--emit", "--nostdlib"],
    "exec": ["--max-insns", "--sram-size", "--stack-guard", "--trace", "--reference", "--stats", "--profile",
             "--profile-out", "--cost"],
    "disasm": ["--symbols"],
    "debug": ["--sram-size", "--budget", "--stack-guard"],
    "echo": ["--platform", "--sizes", "--iterations", "--warmup", "--firmware", "--max-batch", "--time-limit-ms",
             "--profile", "--handlers", "--profile-out", "--trace", "--pcap", "--csv", "--svg"],
    "run": ["--time-limit-ms", "--wall-limit-s", "--cache", "--no-cache"],
    "sweep": ["--grid", "-j", "--jobs", "-o", "--out", "--time-limit-ms", "--wall-limit-s", "--cache",
              "--no-cache"],
    "dissector": ["--header", "--magic", "--protocol", "-o"],
    "compare": ["--platform", "--sizes", "--iterations", "--warmup", "--handlers", "--lines"],
}

# A valid value for each value type the help names (the parser checks values as it reads
# them, so a wrong one would be an error before the unknown option this test looks for).
VALUE = {"N": "4", "BYTES": "4", "LEVEL": "2", "STAGE": "ast", "K=N,...": "base=1", "NAME=V1,V2,...": "x=1",
         "N,N,...": "4"}

UNKNOWN = "--no-such-option"


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)


def help_options(text):
    """(option, value type or None) for every option line of a generated help."""
    out = []
    section = None
    for line in text.splitlines():
        if line and not line.startswith(" "):
            section = line
            continue
        if section in (None, "arguments:") or not line.startswith("  -"):
            continue
        m = re.match(r"  (\S+)(?: (\S+))?", line)
        names, value = m.group(1), m.group(2)
        if value in ("(repeatable)",):
            value = None
        for name in names.split(","):
            out.append((name, value))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lanaikit", required=True)
    a = ap.parse_args()
    lk = os.path.abspath(a.lanaikit)
    c = Checker()

    top = run([lk, "--help"])
    c.check("lanaikit --help: status 0", top.returncode == 0, top)
    for cmd in EXPECTED:
        c.check(f"lanaikit --help lists {cmd}", re.search(rf"^  {cmd} +\S", top.stdout, re.M) is not None,
                top.stdout)
    p = run([lk, "--version"])
    c.check("--version", p.returncode == 0 and p.stdout.startswith("lanaikit ") and "data:" in p.stdout, p)
    p = run([lk, UNKNOWN])
    c.check("an unknown top-level option: status 2, named",
            p.returncode == 2 and f"unknown option '{UNKNOWN}'" in p.stderr, p.stderr)

    for cmd, expected in EXPECTED.items():
        h = run([lk, cmd, "--help"])
        c.check(f"{cmd} --help: status 0, usage first",
                h.returncode == 0 and h.stdout.startswith("usage: lanaikit " + cmd + " "), h)
        listed = help_options(h.stdout)
        names = [n for n, _ in listed]
        missing = [o for o in expected if o not in names]
        c.check(f"{cmd} --help lists every option", not missing, (missing, h.stdout))

        for name, value in listed:
            if name in ("-h", "--help"):
                continue
            # Accepted: the unknown option after it is the one reported.
            args = [name] + ([VALUE.get(value, "x")] if value else [])
            p = run([lk, cmd, *args, UNKNOWN])
            c.check(f"{cmd} {' '.join(args)}: accepted",
                    p.returncode == 2 and f"unknown option '{UNKNOWN}'" in p.stderr, p.stderr)
            if value:
                p = run([lk, cmd, name])
                first = p.stderr.split("\n")[0]
                c.check(f"{cmd} {name} without its value: status 2, named",
                        p.returncode == 2 and first.startswith(f"lanaikit {cmd}: option ")
                        and first.endswith(" needs a value") and name in re.split("[ /]", first), p.stderr)

        p = run([lk, cmd, UNKNOWN])
        c.check(f"{cmd} {UNKNOWN}: status 2, named, points at --help",
                p.returncode == 2 and f"lanaikit {cmd}: unknown option '{UNKNOWN}'" in p.stderr
                and f"lanaikit {cmd} --help" in p.stderr, p.stderr)

    # --- everything after the script is the script's ----------------------------------------
    with tempfile.TemporaryDirectory() as work:
        script = os.path.join(work, "args.lua")
        with open(script, "w") as f:
            f.write("for i = 1, #arg do io.write(arg[i], '\\n') end\n")
        rest = ["--nodes", "4", "--", "-x", "--help", "run", "--time-limit-ms"]
        p = run([lk, "run", "--no-cache", script, *rest])
        c.check("run: the arguments after SCRIPT reach it as they are",
                p.returncode == 0 and p.stdout.split("\n")[:-1] == rest, (p.stdout, p.stderr))
        p = run([lk, "run", "--time-limit-ms", "0x10", script])
        c.check("run: a count in hex is accepted", p.returncode == 0, p.stderr)
        p = run([lk, "run", "--wall-limit-s", "0", script])
        c.check("run: --wall-limit-s 0 is refused, named",
                p.returncode == 2 and "--wall-limit-s must be at least 1" in p.stderr, p.stderr)

    print(f"{c.passed} passed, {c.failed} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
