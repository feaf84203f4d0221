#!/usr/bin/env python3
"""End-to-end tests of `lanaikit sweep` (docs/sweep.md): a tiny grid with -j 2 (columns,
values, types), failing points reported while the others survive, a re-run that skips the
points already done, a real simulation point equal to the same point run by hand, usage
and result errors, and, when mpirun is there and lanaikit has MPI, a 2-rank sweep whose
merged files equal the -j 2 ones byte for byte.

usage: sweep_test.py --lanaikit PATH --source-dir DIR [--mpirun PATH]
Prints one line per check and a final 'N passed, M failed'; exits non-zero on failure.
"""
import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

from checker import Checker

GRID = ["--grid", "x=1,2,3", "--grid", "y=0.5,2"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lanaikit", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--mpirun", default="")
    a = ap.parse_args()
    lk = os.path.abspath(a.lanaikit)
    a.source_dir = os.path.abspath(a.source_dir)
    here = os.path.join(a.source_dir, "tests", "tools", "sweep")
    tiny = os.path.join(here, "tiny.lua")
    c = Checker()
    work = tempfile.mkdtemp(prefix="lk-sweep-")

    def sweep(*args, cwd=work, launcher=()):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMI", "LANAIKIT_SWEEP"))}
        if launcher:
            # Under scripts/test.sh --sanitize: Open MPI keeps allocations of its plugins,
            # unloaded by then, until exit, which LeakSanitizer reports (and no suppression
            # can name an unloaded module). The -j runs above check the sweep's own leaks.
            env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
        return subprocess.run([*launcher, lk, "sweep", *args], cwd=cwd, capture_output=True, text=True,
                              timeout=300, env=env)

    def read(d, name):
        with open(os.path.join(work, d, name), newline="") as f:
            return f.read()

    # --- a tiny grid, one point failing on purpose ----------------------------------------
    r = sweep("-j", "2", *GRID, "-o", "a", tiny, "--fail_x", "3")
    c.check("a failing point: exit status 1", r.returncode == 1, r.stderr)
    c.check("the failure is listed with the script's message",
            "lanaikit sweep: 2 of 6 points failed:" in r.stderr
            and "x=3,y=0.5: exit status 1: lanaikit run: tiny.lua: failing at x = 3 on purpose [a/points/x=3,y=0.5.err]"
            in r.stderr, r.stderr)
    rows = list(csv.reader(io.StringIO(read("a", "results.csv"))))
    c.check("CSV columns: the grid's, then the results sorted",
            rows[0] == ["x", "y", "big", "half", "harmonic", "label", "product", "sum"], rows[0])
    c.check("CSV: the four good points, in grid order (last --grid fastest)",
            [r[:2] for r in rows[1:]] == [["1", "0.5"], ["1", "2"], ["2", "0.5"], ["2", "2"]], rows)
    data = json.loads(read("a", "results.json"))
    want = []
    for x in (1, 2):
        for y in (0.5, 2):
            acc = 0.0
            for i in range(1, 1001):
                acc += 1 / (i * x + y)
            p = x * y
            want.append({"x": x, "y": y, "big": x > 1, "half": x / 2, "harmonic": acc, "label": "x%d" % x,
                         "product": int(p) if p == int(p) else p, "sum": x + y})
    c.check("JSON: every value, with its type (int, double, string, boolean)", data == want,
            json.dumps(data) + "\n" + json.dumps(want))
    c.check("JSON: integers stay integers, doubles doubles",
            '"product": 1,' in read("a", "results.json") and '"product": 0.5,' in read("a", "results.json")
            and '"half": 1.0,' in read("a", "results.json") and '"sum": 3\n' in read("a", "results.json"),
            read("a", "results.json"))
    c.check("CSV: doubles in shortest exact form",
            rows[1][4] == repr(want[0]["harmonic"]) and rows[3][3] == "1", rows)
    pts = os.path.join(work, "a", "points")
    c.check("per-point stdout kept", open(os.path.join(pts, "x=2,y=0.5.out")).read() == "point x=2 y=0.5\n",
            sorted(os.listdir(pts)))
    c.check("per-point stderr kept for the failure",
            "failing at x = 3" in open(os.path.join(pts, "x=3,y=2.err")).read())
    c.check("no result file for a failed point", not os.path.exists(os.path.join(pts, "x=3,y=2.json")))

    # --- a re-run skips the points already done --------------------------------------------
    os.remove(os.path.join(pts, "x=1,y=0.5.out"))
    r = sweep("-j", "2", *GRID, "-o", "a", tiny)
    c.check("re-run: exit status 0 once the failing points pass", r.returncode == 0, r.stderr)
    c.check("re-run: only the two failed points run", "6 points (2 run, 4 done before), 0 failed" in r.stderr,
            r.stderr)
    c.check("re-run: a done point was not run again", not os.path.exists(os.path.join(pts, "x=1,y=0.5.out")))
    rows = list(csv.reader(io.StringIO(read("a", "results.csv"))))
    c.check("re-run: all six points merged", len(rows) == 7 and rows[5][:2] == ["3", "0.5"], rows)
    full = read("a", "results.json")
    r = sweep("-j", "2", *GRID, "-o", "b", tiny)
    c.check("re-run: the merged JSON equals a fresh sweep's", r.returncode == 0 and read("b", "results.json") == full,
            r.stderr)

    # --- crashes and missing results ---------------------------------------------------------
    r = sweep("-j", "2", "--grid", "x=1,2,3", "-o", "c", tiny, "--kill_x", "2", "--silent_x", "3")
    c.check("a killed point and a silent point: exit status 1", r.returncode == 1, r.stderr)
    c.check("a killed point is reported with its signal", "x=2: killed by signal 9 (Killed)" in r.stderr, r.stderr)
    c.check("a point without a result is reported",
            "x=3: the script recorded no result (require \"sweep\"; sweep.result{...}" in r.stderr, r.stderr)
    rows = list(csv.reader(io.StringIO(read("c", "results.csv"))))
    c.check("the surviving point is merged", [r[0] for r in rows] == ["x", "1"], rows)
    r = sweep("--grid", "x=1", "-o", "d", os.path.join(here, "bad_result.lua"))
    c.check("a result named like a parameter is refused",
            r.returncode == 1 and "x=1: the result 'x' has the name of a grid parameter" in r.stderr, r.stderr)
    r = sweep("--grid", "x=1", "-o", "e", os.path.join(here, "nested.lua"))
    c.check("a nested result is a Lua error at the call",
            r.returncode == 1 and "nested.lua:3: sweep.result: 'list' is a table (expected a number, a string or a "
            "boolean)" in r.stderr, r.stderr)

    r = sweep("--help")
    c.check("--help", r.returncode == 0 and "--grid NAME=V1,V2,..." in r.stdout and "mpirun" in r.stdout, r.stdout)

    # --- usage errors ----------------------------------------------------------------------
    for args, msg in [
        (["--grid", "x", tiny], "lanaikit sweep: --grid 'x': expected NAME=V1,V2,...\n"),
        (["--grid", "x=1,,2", tiny], "lanaikit sweep: --grid 'x=1,,2': an empty value\n"),
        (["--grid", "x=1,1", tiny], "lanaikit sweep: --grid 'x=1,1': the value '1' is given twice\n"),
        (["--grid", "x=1", "--grid", "x=2", tiny], "lanaikit sweep: --grid: the parameter 'x' is given twice\n"),
        (["--grid", "2x=1", tiny], "lanaikit sweep: --grid '2x=1': the name '2x' is not an identifier"),
        ([tiny], "lanaikit sweep: no --grid given\n"),
        (["--grid", "x=1", "-j", "0", tiny], "lanaikit sweep: -j must be between 1 and 1024\n"),
        (["--grid", "x=1", "nope.lua"], "lanaikit sweep: no script file 'nope.lua'\n"),
    ]:
        r = sweep(*args)
        c.check("usage error: " + msg.strip(), r.returncode == 2 and r.stderr.startswith(msg), r.stderr)

    # --- a real simulation: the VMMC example, two points ----------------------------------
    example = os.path.join(a.source_dir, "lua-scripts", "vmmc", "sweep_clock_pci.lua")
    vgrid = ["--grid", "clock_mhz=33,66", "--grid", "pci_mb_s=128"]
    r = sweep("-j", "2", *vgrid, "-o", "v", example)
    c.check("VMMC sweep: exit status 0", r.returncode == 0, r.stderr)
    vrows = json.loads(read("v", "results.json"))
    c.check("VMMC sweep: a faster LANai clock lowers the one-word latency",
            len(vrows) == 2 and vrows[1]["latency_us"] < vrows[0]["latency_us"], vrows)
    by_hand = os.path.join(work, "by_hand.json")
    env = dict(os.environ, LANAIKIT_SWEEP_RESULT=by_hand)
    h = subprocess.run([lk, "run", example, "--clock_mhz", "66", "--pci_mb_s", "128"], cwd=work, env=env,
                       capture_output=True, text=True, timeout=120)
    with open(by_hand) as f:
        hand = json.load(f)
    c.check("VMMC sweep: a point equals the same point run by hand",
            h.returncode == 0 and {k: vrows[1][k] for k in hand} == hand, (hand, vrows[1], h.stderr))

    plot = os.path.join(a.source_dir, "lua-scripts", "vmmc", "sweep_clock_pci_plot.lua")
    h = subprocess.run([lk, "run", plot, "v"], cwd=work, capture_output=True, text=True, timeout=60)
    svg = open(os.path.join(work, "v", "latency.svg")).read() if h.returncode == 0 else ""
    c.check("VMMC sweep: the plot script reads the merged CSV into curves (sweep.read, sweep.curves)",
            h.stdout == "2 points; wrote v/latency.svg and v/bandwidth.svg\n" and "pci_mb_s = 128" in svg
            and os.path.exists(os.path.join(work, "v", "bandwidth.svg")), h.stdout + h.stderr)

    # --- MPI: two ranks, the same bytes as -j 2 -------------------------------------------------
    if not a.mpirun:
        print("  skip MPI: no mpirun")
    else:
        mpi = [a.mpirun, "--oversubscribe", "--allow-run-as-root", "-n", "2"]
        r = sweep(*GRID, "-o", "m", tiny, "--fail_x", "3", launcher=mpi)
        if "built without MPI" in r.stderr:
            print("  skip MPI: lanaikit was built without MPI")
        else:
            c.check("MPI: exit status 1 with the failing points", r.returncode == 1, r.stdout + r.stderr)
            c.check("MPI: the failures listed once, by rank 0", r.stderr.count("2 of 6 points failed") == 1, r.stderr)
            r2 = sweep("-j", "2", *GRID, "-o", "j", tiny, "--fail_x", "3")
            for name in ("results.csv", "results.json"):
                c.check("MPI: " + name + " equals -j 2's byte for byte", read("m", name) == read("j", name),
                        read("m", name) + "\n----\n" + read("j", name))
            r = sweep("--grid", "x", tiny, launcher=mpi)
            c.check("MPI: a usage error is reported once, by rank 0",
                    r.returncode == 2 and r.stderr.count("lanaikit sweep: --grid 'x': expected NAME=V1,V2,...") == 1,
                    r.stderr)
            r = sweep(*vgrid, "-o", "vm", example, launcher=mpi)
            c.check("MPI: the VMMC sweep equals -j 2's",
                    r.returncode == 0 and read("vm", "results.csv") == read("v", "results.csv"), r.stderr)

    print(f"{c.passed} passed, {c.failed} failed")
    if c.failed == 0:
        shutil.rmtree(work)
    else:
        print("work directory kept: " + work)
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
