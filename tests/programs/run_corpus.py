#!/usr/bin/env python3
"""Differential test of the C corpus: native build vs. lanaikit at -O0/-O1/-O2/-Os.

For every tests/programs/*.c: build natively (`CC -O1 -w prog.c`), run, capture stdout
and exit status; then for each optimisation level build for Lanai with
`lanaikit build -O<n> -o X.elf prog.c`, run `lanaikit exec X.elf --max-insns N`, and
compare stdout bytes and exit status with the native run. Prints a per-program table
and a final line `N passed, M failed` (program x level pairs); exits 1 on any failure.

--compile-only skips lanaikit: every program is compiled with
`CLANG --target=lanai -ffreestanding -O<n> -c`, its undefined symbols (llvm-nm -u) must
all be defined by the runtime objects in --runtime-dir, and the native run must
succeed. Useful before the lanaikit CLI exists.

Python 3 standard library only."""
import argparse
import concurrent.futures
import glob
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LEVELS = ["-O0", "-O1", "-O2", "-Os"]


def run(cmd, timeout, cwd=None):
    """Runs cmd; returns (returncode, stdout bytes, stderr text). Timeouts give rc None."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, cwd=cwd)
        return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        return None, e.stdout or b"", "timeout after %ss" % timeout
    except OSError as e:
        return None, b"", str(e)


def first_diff(a, b):
    la, lb = a.split(b"\n"), b.split(b"\n")
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else b"<missing>"
        y = lb[i] if i < len(lb) else b"<missing>"
        if x != y:
            return "line %d: native %r / lanai %r" % (i + 1, x[:100], y[:100])
    return "identical"


def native(prog, args):
    name = os.path.splitext(os.path.basename(prog))[0]
    exe = os.path.join(args.work, name + ".native")
    rc, _, err = run([args.cc, "-O1", "-w", "-o", exe, prog], args.timeout, cwd=HERE)
    if rc != 0:
        return None, "native build failed: " + err.strip()[:300]
    rc, out, err = run([exe], args.timeout)
    if rc is None or rc < 0:
        return None, "native run failed: " + err.strip()[:300]
    return (out, rc), None


def lanai(prog, level, args, expect):
    name = os.path.splitext(os.path.basename(prog))[0]
    elf = os.path.join(args.work, "%s%s.elf" % (name, level))
    rc, _, err = run([args.lanaikit, "build", level, "-o", elf, prog], args.timeout, cwd=HERE)
    if rc != 0:
        return False, "build failed: " + err.strip()[:300]
    rc, out, err = run([args.lanaikit, "exec", elf, "--max-insns", str(args.max_insns)], args.timeout)
    if rc is None:
        return False, "exec failed: " + err.strip()[:300]
    exp_out, exp_rc = expect
    if out != exp_out:
        return False, "stdout differs (%s)%s" % (first_diff(exp_out, out), (" stderr: " + err.strip()[:200]) if err.strip() else "")
    if (rc & 0xFF) != (exp_rc & 0xFF):
        return False, "exit status %d, native %d%s" % (rc, exp_rc, (" stderr: " + err.strip()[:200]) if err.strip() else "")
    return True, ""


def runtime_symbols(args):
    syms = set()
    for obj in glob.glob(os.path.join(args.runtime_dir, "*.o")):
        if os.path.basename(obj) == "crt0.o":
            continue
        rc, out, err = run([args.nm, "--defined-only", "-g", obj], args.timeout)
        if rc != 0:
            sys.exit("run_corpus: %s failed on %s: %s" % (args.nm, obj, err))
        syms.update(line.split()[-1] for line in out.decode().splitlines() if line.strip())
    return syms


def compile_only(prog, level, args, syms):
    name = os.path.splitext(os.path.basename(prog))[0]
    obj = os.path.join(args.work, "%s%s.o" % (name, level))
    rc, _, err = run([args.clang, "--target=lanai", "-ffreestanding", level, "-c", "-o", obj, prog], args.timeout, cwd=HERE)
    if rc != 0:
        return False, "compile failed: " + err.strip()[:300]
    rc, out, err = run([args.nm, "-u", obj], args.timeout)
    if rc != 0:
        return False, "nm failed: " + err.strip()[:300]
    missing = sorted(s for s in (l.split()[-1] for l in out.decode().splitlines() if l.strip()) if s not in syms)
    if missing:
        return False, "undefined, not in the runtime: " + " ".join(missing)
    return True, ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lanaikit", help="path of the lanaikit executable")
    ap.add_argument("--cc", default="cc", help="native C compiler (default: cc)")
    ap.add_argument("--clang", default="clang-14", help="clang-14 (for --compile-only)")
    ap.add_argument("--nm", default="llvm-nm-14", help="llvm-nm (for --compile-only)")
    ap.add_argument("--runtime-dir", help="directory of the runtime objects (for --compile-only)")
    ap.add_argument("--work", required=True, help="scratch directory for binaries")
    ap.add_argument("--max-insns", type=int, default=200000000)
    ap.add_argument("--timeout", type=float, default=600, help="seconds per build or run")
    ap.add_argument("--jobs", "-j", type=int, default=2)
    ap.add_argument("--levels", default=",".join(LEVELS), help="comma-separated, default -O0,-O1,-O2,-Os")
    ap.add_argument("--compile-only", action="store_true")
    ap.add_argument("programs", nargs="*", help="program names or paths (default: every tests/programs/*.c)")
    args = ap.parse_args()

    if not args.compile_only and not args.lanaikit:
        ap.error("--lanaikit is required (or use --compile-only)")
    if args.compile_only and not args.runtime_dir:
        ap.error("--compile-only needs --runtime-dir")
    for tool in [args.cc] + ([args.clang, args.nm] if args.compile_only else [args.lanaikit]):
        if not shutil.which(tool):
            sys.exit("run_corpus: tool not found: %s" % tool)
    # builds run with cwd = this directory: make tool paths given relative to ours absolute
    for attr in ("lanaikit", "cc", "clang", "nm"):
        v = getattr(args, attr)
        if v and os.sep in v and not os.path.isabs(v):
            setattr(args, attr, os.path.abspath(v))
    os.makedirs(args.work, exist_ok=True)
    args.work = os.path.abspath(args.work)
    levels = [l if l.startswith("-") else "-" + l for l in args.levels.split(",") if l]

    if args.programs:
        progs = []
        for p in args.programs:
            if not p.endswith(".c"):
                p += ".c"
            progs.append(p if os.path.isabs(p) or os.path.exists(p) else os.path.join(HERE, p))
    else:
        progs = sorted(glob.glob(os.path.join(HERE, "*.c")))
    progs = [os.path.abspath(p) for p in progs]
    syms = runtime_symbols(args) if args.compile_only else None

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        natives = dict(zip(progs, pool.map(lambda p: native(p, args), progs)))
        jobs = {}
        for p in progs:
            expect, err = natives[p]
            for lv in levels:
                if err:
                    jobs[(p, lv)] = None
                elif args.compile_only:
                    jobs[(p, lv)] = pool.submit(compile_only, p, lv, args, syms)
                else:
                    jobs[(p, lv)] = pool.submit(lanai, p, lv, args, expect)
        results = {}
        for key, fut in jobs.items():
            results[key] = (False, natives[key[0]][1]) if fut is None else fut.result()

    passed = failed = 0
    width = max([len(os.path.basename(p)) for p in progs] + [7])
    print("%-*s  %s" % (width, "program", "  ".join("%-4s" % l for l in levels)))
    details = []
    for p in progs:
        name = os.path.basename(p)
        cells = []
        for lv in levels:
            ok, why = results[(p, lv)]
            cells.append("%-4s" % ("ok" if ok else "FAIL"))
            if ok:
                passed += 1
            else:
                failed += 1
                details.append("%s %s: %s" % (name, lv, why))
        print("%-*s  %s" % (width, name, "  ".join(cells)))
    if details:
        print("\nfailures:")
        for d in details:
            print("  " + d)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
