#!/usr/bin/env python3
"""`lanaikit compare`: what an edit to a control program bought.

The echo firmware against a copy with a payload checksum loop added to `deliver` (and a
comment line added above `main`, so every later line moves): send_message is unchanged on
both nodes, deliver costs more per call, the one added line carries new instructions, and
every other line is matched to itself across the move (no line is reported as removed).
The firmware against itself changes nothing. Bad input: a missing source, one build only,
a build that does not compile.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        failures.append(name)
        if detail:
            print(detail)


def rows(text, section):
    """The table rows (lists of cells) under the '## section' heading."""
    out, inside = [], False
    for line in text.splitlines():
        if line.startswith("## "):
            inside = line[3:].startswith(section)
            continue
        if inside and line.startswith("| ") and not line.startswith("|---"):
            out.append([c.strip() for c in line.strip().strip("|").split("|")])
    return out[1:]  # without the header row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lanaikit", required=True)
    ap.add_argument("--source-dir", required=True)
    a = ap.parse_args()
    lk = a.lanaikit
    echo = os.path.join(a.source_dir, "firmware/echo/echo.c")
    work = tempfile.mkdtemp(prefix="lk-compare-")
    try:
        shutil.copy(os.path.join(a.source_dir, "firmware/echo/echo.h"), work)
        text = open(echo).read()
        anchor = "  unsigned int host = W(ECHO_CTL + ECHO_CTL_HOST_BUF);\n"
        assert anchor in text
        added = "for (unsigned int i = 0; i < len / 4; ++i) checksum += W(ECHO_RECV_BUF + ECHO_HEADER_BYTES + 4 * i);"
        variant = text.replace(anchor, anchor + "  " + added + "\n")
        variant = variant.replace("static unsigned int completions;",
                                  "static unsigned int completions;\nunsigned int checksum;")
        variant = variant.replace("int main(void) {", "/* the main loop */\nint main(void) {")
        after = os.path.join(work, "echo.c")
        open(after, "w").write(variant)

        p = subprocess.run([lk, "compare", echo, after, "--sizes", "4,256"], capture_output=True, text=True)
        check("compare exits 0", p.returncode == 0, p.stderr)
        out = p.stdout
        handlers = rows(out, "Per handler")
        by = {(r[0], r[1]): r for r in handlers}
        check("both handlers on both nodes", len(handlers) == 4 and all(
            (n, h) in by for n in "01" for h in ("send_message", "deliver")), out)
        if len(handlers) == 4:
            check("send_message unchanged", all(by[(n, "send_message")][5] == "+0" for n in "01"), out)
            check("deliver costs more per call", all(int(by[(n, "deliver")][5]) > 0 for n in "01"), out)
        lines = rows(out, "Per source line")
        new = [r for r in lines if r[0] == "(none)"]
        check("the added line is the one new line", len(new) == 1 and added in new[0][5]
              and int(new[0][3]) > 0 and new[0][2] == "0", out)
        check("no line reported as removed (moved lines are matched)",
              not any(r[1] == "(none)" for r in lines), out)
        moved = [r for r in lines if r[0].startswith("echo.c:") and r[1].startswith("echo.c:")]
        check("lines below the edit matched across the move", moved and all(
            int(r[1].split(":")[1]) > int(r[0].split(":")[1]) for r in moved
            if int(r[0].split(":")[1]) > 50), out)
        lat = rows(out, "Latency")
        check("latency rows for both sizes", [r[0] for r in lat] == ["4", "256"], out)
        if len(lat) == 2:
            check("256-byte latency grew (the loop runs per word)",
                  float(lat[1][2]) > float(lat[1][1]), out)

        p = subprocess.run([lk, "compare", echo, echo, "--sizes", "64"], capture_output=True, text=True)
        same = p.stdout
        check("a build against itself: no line changed", p.returncode == 0 and
              "; 0 line(s) changed" in same, same + p.stderr)
        check("a build against itself: handlers unchanged",
              all(r[5] == "+0" and r[10] == "+0" for r in rows(same, "Per handler")), same)
        check("a build against itself: latency unchanged",
              all(r[3].startswith("+0.00") for r in rows(same, "Latency")), same)

        p = subprocess.run([lk, "compare", echo, os.path.join(work, "missing.c")], capture_output=True, text=True)
        check("missing source: status 2, named", p.returncode == 2 and "AFTER: no file" in p.stderr
              and "missing.c" in p.stderr, p.stderr)
        p = subprocess.run([lk, "compare", echo], capture_output=True, text=True)
        check("one build: status 2, AFTER missing", p.returncode == 2 and "AFTER is required" in p.stderr, p.stderr)
        bad = os.path.join(work, "bad.c")
        open(bad, "w").write("int main(void) { return undeclared; }\n")
        p = subprocess.run([lk, "compare", echo, bad], capture_output=True, text=True)
        check("a build that fails: status 1, says which", p.returncode == 1 and
              p.stderr.startswith("lanaikit compare: AFTER:") and "undeclared" in p.stderr, p.stderr)
        p = subprocess.run([lk, "compare", "--help"], capture_output=True, text=True)
        check("--help", p.returncode == 0 and p.stdout.startswith("usage: lanaikit compare"), p.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
